"""Object definitions: what MQSC does to one queue manager's configuration, what MQ rejects
(and that a rejection changes nothing), the runtime operations handed to the network
model, the seeds' scripts, and a Hypothesis round trip definitions -> MQSC -> definitions."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from spec import mqsc
from spec.errors import InputError
from spec.mqsc import parse, render, render_command
from spec.objects import (
    BASE_TOPIC, BASE_TOPIC_OBJECT, Channel, ClearRetained, Namelist, Queue, QueueManagerDef,
    RefreshCluster, RefreshProxySubscriptions, conname_key, ResetCluster, ResumeCluster, StartChannel,
    StopChannel, Subscription, SuspendCluster, TopicObject, apply_command, apply_commands,
    clusters_of, definitions, repos_clusters,
)


def run(mqsc: str, qm: QueueManagerDef | None = None):
    return apply_commands(qm or QueueManagerDef("QM1"), parse(mqsc))


def accepted(mqsc: str, qm: QueueManagerDef | None = None) -> QueueManagerDef:
    qm, outcomes = run(mqsc, qm)
    assert [o.message for o in outcomes if not o.accepted] == []
    return qm


# ============================================================================ defaults

def test_a_new_queue_manager_has_only_system_base_topic():
    qm = QueueManagerDef("QM1")
    # DESIGN §3.2: topic string empty, PUBSCOPE(ALL) SUBSCOPE(ALL) CLUSTER(' ')
    # WILDCARD(PASSTHRU) PROXYSUB(FIRSTUSE) DURSUB(YES)
    assert qm.topics == (BASE_TOPIC_OBJECT,)
    base = qm.topic(BASE_TOPIC)
    assert (base.topicstr, base.pubscope, base.subscope, base.cluster, base.wildcard,
            base.proxysub, base.dursub) == ("", "ALL", "ALL", "", "PASSTHRU", "FIRSTUSE", "YES")
    assert (qm.clwluseq, qm.clwlmruc, qm.psmode, qm.psclus, qm.repos) == (
        "LOCAL", 999999999, "ENABLED", "ENABLED", "")


def test_new_objects_take_mq_defaults():
    qm = accepted("DEFINE TOPIC(T) TOPICSTR('t')\nDEFINE QLOCAL(Q)\n"
                  "DEFINE CHANNEL(TO.QM1) CHLTYPE(CLUSRCVR) CLUSTER(C)\n"
                  "DEFINE SUB(S) TOPICSTR('t/#')")
    assert qm.topic("T") == TopicObject("T", "t", "", "ASPARENT", "ASPARENT", "FIRSTUSE",
                                        "PASSTHRU", "ASPARENT", "ASPARENT", "ASPARENT")
    assert qm.queue("Q") == Queue("Q", "QLOCAL", defbind="OPEN", put="ENABLED",
                                  clwluseq="QMGR")
    assert qm.channel("TO.QM1").clwlwght == 50  # 000 §Channel Weight: default 50
    assert qm.subscription("S") == Subscription("S", "t/#", wschema="TOPIC", subscope="ALL",
                                                durable=True, order=0)


# ============================================================================ seed scripts

# 002 §Controlling wildcard usage with the WILDCARD property, Figures 7 and 9
SPORTS = """\
DEFINE TOPIC ('Sports')     TOPICSTR('Sports')
DEFINE TOPIC ('Football')   TOPICSTR('Sports/Football') CLUSTER(CL1) WILDCARD(BLOCK)
DEFINE TOPIC ('Arsenal')    TOPICSTR('Sports/Football/Arsenal')
DEFINE TOPIC ('Rugby')      TOPICSTR('Sports/Rugby')    CLUSTER(CL1)
DEFINE TOPIC ('Leeds')      TOPICSTR('Sports/Rugby/Leeds')
DEFINE QLOCAL(QSPORTS)   REPLACE
DEFINE QLOCAL(QFARSENAL) REPLACE
DEFINE QLOCAL(QRLEEDS)   REPLACE
DEFINE SUB   (SPORTS)   TOPICSTR('Sports/#')         DEST(QSPORTS)
DEFINE SUB   (FARSENAL) TOPICOBJ('Football') TOPICSTR('Arsenal') DEST(QFARSENAL)
DEFINE SUB   (RLEEDS)   TOPICOBJ('Rugby')    TOPICSTR('Leeds')   DEST(QRLEEDS)
"""


def test_sports_script_topics_and_subscriptions():
    qm = accepted(SPORTS)
    assert [t.name for t in qm.topics] == ["Arsenal", "Football", "Leeds", "Rugby", BASE_TOPIC,
                                           "Sports"]  # sorted by code point
    football = qm.topic("Football")
    assert (football.topicstr, football.cluster, football.wildcard) == (
        "Sports/Football", "CL1", "BLOCK")
    # "The delimiter, /, is automatically inserted between the topic string referenced by
    # TOPICOBJ, and the topic string defined by TOPICSTR."
    farsenal = qm.subscription("FARSENAL")
    assert (farsenal.topicstr, farsenal.topicobj, farsenal.dest) == (
        "Sports/Football/Arsenal", "Football", "QFARSENAL")
    assert [(s.name, s.order) for s in sorted(qm.subscriptions, key=lambda s: s.order)] == [
        ("SPORTS", 0), ("FARSENAL", 1), ("RLEEDS", 2)]


def test_topicobj_subscription_no_longer_refers_to_the_topic_object():
    # 002: "The subscription, when created, no longer refers to the topic object."
    qm = accepted(SPORTS + "DELETE TOPIC('Football')\n"
                  "DEFINE TOPIC('Football2') TOPICSTR('Sports/Football2')")
    assert qm.topic("Football") is None
    assert qm.subscription("FARSENAL").topicstr == "Sports/Football/Arsenal"


def test_the_seed_script_rerun_deletes_then_defines():
    # Figure 7 is written to be run repeatedly: DELETE first (fails the first time), DEFINE
    qm = accepted(SPORTS)
    again, outcomes = run("DELETE TOPIC ('Sports')\nDEFINE TOPIC ('Sports') TOPICSTR('Sports')\n"
                          "DELETE SUB (SPORTS)\nDEFINE SUB (SPORTS) TOPICSTR('Sports/#') DEST(QSPORTS)",
                          qm)
    assert all(o.accepted for o in outcomes)
    assert again.subscription("SPORTS").order == 3  # a new subscription, a new order number
    _, first_time = run("DELETE TOPIC ('Sports')")
    assert first_time[0].message == "AMQ8147: IBM MQ object Sports not found."


def test_hierarchy_and_cluster_setup_scripts():
    # 002 §Connect a queue manager to a broker hierarchy; 000 §Channel configurations
    qm = accepted("""\
DEFINE QLOCAL(QM1.XMITQ) USAGE(XMITQ)
DEFINE QREMOTE (QM1) RNAME('') RQMNAME(QM1) XMITQ(QM1.XMITQ)
DEFINE CHANNEL('QM2.TO.QM1') CHLTYPE(SDR) CONNAME('localhost(9999)') XMITQ(QM1.XMITQ) TRPTYPE(TCP)
DEFINE CHANNEL('QM1.TO.QM2') CHLTYPE(RCVR) TRPTYPE(TCP)
ALTER QMGR PARENT (QM1)
ALTER QMGR PSMODE(ENABLED)
DEF NAMELIST(CLNL) NAMES(BLUE,RED)
DEF CHL(TO.QM1) CHLTYPE(CLUSRCVR) CLUSNL(CLNL)
DEF QL(Q1.BLUE) CLUSTER(BLUE)
DEFINE QALIAS(ACQ1) TARGQ(CQ1) CLUSTER(BLUE)
""")
    assert qm.parent == "QM1" and qm.queue("QM1").is_qmgr_alias
    assert qm.queue("QM1.XMITQ").usage == "XMITQ"
    assert qm.channel("QM2.TO.QM1") == Channel("QM2.TO.QM1", "SDR", conname="localhost(9999)",
                                               xmitq="QM1.XMITQ")
    assert clusters_of(qm.channel("TO.QM1"), qm) == ("BLUE", "RED")
    assert clusters_of(qm.queue("Q1.BLUE"), qm) == ("BLUE",)
    assert clusters_of(qm.queue("QM1"), qm) == ()
    assert qm.queue("ACQ1").target == "CQ1"
    assert accepted("ALTER QMGR PARENT('')", qm).parent == ""


def test_channel_rank_and_weight_examples():
    # 000 §Channel Rank example, §Channel Weight example (ALTERs of existing CLUSRCVRs)
    qm = accepted("DEFINE CHANNEL(TO.SERVER2) CHLTYPE(CLUSRCVR) CLUSTER(IVANS)\n"
                  "ALTER CHL(TO.SERVER2) CHLTYPE(CLUSRCVR) CLWLRANK(7)\n"
                  "ALTER CHL(TO.SERVER2) CHLTYPE(CLUSRCVR) CLWLWGHT(20)")
    ch = qm.channel("TO.SERVER2")
    assert (ch.cluster, ch.clwlrank, ch.clwlwght) == ("IVANS", 7, 20)


# ============================================================================ repositories

CONNAMES = [
    # (CLUSSDR CONNAME, CLUSRCVR CONNAME, same address?)
    ("LOCALHOST(1421)", "LOCALHOST(1421)", True),  # 002 create qmgrs.bat
    ("localhost(9999)", "LOCALHOST(9999)", True),
    ("MACHINE1.IBM.COM", "machine1.ibm.com(1414)", True),  # 000: default port
    ("localhost(7777)", "localhost(9999)", False),
    ("server1(2345),server2(2345)", "server1(2345)", False),
]


@pytest.mark.parametrize("sender, receiver, same", CONNAMES)
def test_conname_key(sender, receiver, same):
    assert (conname_key(sender) == conname_key(receiver)) is same


def test_repos_and_reposnl():
    assert repos_clusters(accepted("ALTER QMGR REPOS(CL1)")) == ("CL1",)
    qm = accepted("DEFINE NAMELIST(FRS) NAMES(A,B,A)\nALTER QMGR REPOSNL(FRS)")
    assert repos_clusters(qm) == ("A", "B")
    assert repos_clusters(accepted("ALTER QMGR REPOSNL(MISSING)")) == ()
    assert repos_clusters(QueueManagerDef("QM1")) == ()


# ============================================================================ DEFINE / ALTER / DELETE

def test_replace_starts_from_defaults_alter_keeps_the_rest():
    qm = accepted("DEFINE QLOCAL(Q) CLUSTER(C) PUT(DISABLED)")
    assert accepted("ALTER QLOCAL(Q) CLWLRANK(3)", qm).queue("Q") == Queue(
        "Q", "QLOCAL", cluster="C", put="DISABLED", clwlrank=3)
    assert accepted("DEFINE QLOCAL(Q) CLWLRANK(3) REPLACE", qm).queue("Q") == Queue(
        "Q", "QLOCAL", clwlrank=3)


def test_replace_of_a_topic_with_the_same_topic_string():
    qm = accepted("DEFINE TOPIC(T) TOPICSTR('a') CLUSTER(C)")
    assert accepted("DEFINE TOPIC(T) TOPICSTR('a') REPLACE", qm).topic("T").cluster == ""


def test_alter_system_base_topic():
    qm = accepted("ALTER TOPIC(SYSTEM.BASE.TOPIC) PUBSCOPE(QMGR) CLUSTER(CL1)")
    assert (qm.topic(BASE_TOPIC).pubscope, qm.topic(BASE_TOPIC).cluster) == ("QMGR", "CL1")


def test_like_copies_attributes():
    qm = accepted("DEFINE QLOCAL(A) CLUSTER(C) DEFBIND(GROUP)\nDEFINE QLOCAL(B) LIKE(A) PUT(DISABLED)")
    assert qm.queue("B") == Queue("B", "QLOCAL", cluster="C", defbind="GROUP", put="DISABLED")


@pytest.mark.parametrize("command, name, kind", [
    # 003 §Cluster transmission queue: default objects are "created by default on every queue
    # manager", so an administrator's LIKE of one names an object that exists: the defaults
    ("DEFINE QLOCAL(B) LIKE(SYSTEM.DEFAULT.LOCAL.QUEUE) CLUSTER(C)", "B", "queue"),
    ("DEFINE QALIAS(B) LIKE(SYSTEM.DEFAULT.ALIAS.QUEUE) TARGET(A)", "B", "queue"),
    ("DEFINE QREMOTE(B) LIKE(SYSTEM.DEFAULT.REMOTE.QUEUE) RNAME(X) RQMNAME(QM2)", "B", "queue"),
    ("DEFINE CHANNEL(TO.B) CHLTYPE(CLUSRCVR) LIKE(SYSTEM.DEF.CLUSRCVR) CONNAME('b(1414)') CLUSTER(C)", "TO.B",
     "channel"),
    ("DEFINE CHANNEL(TO.B) CHLTYPE(CLUSSDR) LIKE(SYSTEM.DEF.CLUSSDR) CONNAME('b(1414)') CLUSTER(C)", "TO.B",
     "channel"),
    ("DEFINE CHANNEL(B) CHLTYPE(SDR) LIKE(SYSTEM.DEF.SENDER) CONNAME('b(1414)') XMITQ(B)", "B", "channel"),
    ("DEFINE TOPIC(B) TOPICSTR('b') LIKE(SYSTEM.DEFAULT.TOPIC) CLUSTER(C)", "B", "topic"),
    ("DEFINE SUB(B) TOPICSTR('b') LIKE(SYSTEM.DEFAULT.SUB)", "B", "subscription"),
    ("DEFINE NAMELIST(B) NAMES(C, D) LIKE(SYSTEM.DEFAULT.NAMELIST)", "B", "namelist"),
])
def test_like_a_default_object_is_the_same_as_no_like(command, name, kind):
    without = accepted(command.replace(command[command.index(" LIKE("):command.index(")", command.index(" LIKE(")) + 1],
                                       ""))
    assert getattr(accepted(command), kind)(name) == getattr(without, kind)(name) is not None


def test_like_an_object_of_a_default_objects_name_defined_here_copies_it():
    qm = accepted("DEFINE QLOCAL(SYSTEM.DEFAULT.LOCAL.QUEUE) DEFBIND(GROUP) REPLACE\n"
                  "DEFINE QLOCAL(B) LIKE(SYSTEM.DEFAULT.LOCAL.QUEUE)")
    assert qm.queue("B").defbind == "GROUP"


def test_replace_of_a_subscription_keeps_its_order_number():
    qm = accepted("DEFINE SUB(A) TOPICSTR('a')\nDEFINE SUB(B) TOPICSTR('b')\n"
                  "DEFINE SUB(A) TOPICSTR('a') DEST(Q2) REPLACE")
    assert (qm.subscription("A").order, qm.subscription("A").dest, qm.next_order) == (0, "Q2", 2)


def test_alter_sub_changes_destination():
    qm = accepted("DEFINE SUB(A) TOPICSTR('a') DEST(Q1)\nALTER SUB(A) DEST(Q2) DESTQMGR(QM2)")
    assert (qm.subscription("A").dest, qm.subscription("A").destqmgr) == ("Q2", "QM2")


def test_delete_each_type():
    qm = accepted("DEFINE QLOCAL(Q)\nDEFINE TOPIC(T) TOPICSTR('t')\nDEFINE SUB(S) TOPICSTR('t')\n"
                  "DEFINE CHANNEL(C) CHLTYPE(RCVR)\nDEFINE NAMELIST(N)")
    qm = accepted("DELETE QLOCAL(Q)\nDELETE TOPIC(T)\nDELETE SUB(S)\nDELETE CHANNEL(C)\n"
                  "DELETE NAMELIST(N)", qm)
    assert qm == replace(QueueManagerDef("QM1"), next_order=1)


def test_char_scheme_subscription_through_topicobj():
    qm = accepted("DEFINE TOPIC(IBM) TOPICSTR('IBM')\n"
                  "DEFINE SUB(S) TOPICOBJ(IBM) TOPICSTR('*ware/Results') WSCHEMA(CHAR)")
    assert (qm.subscription("S").topicstr, qm.subscription("S").wschema) == (
        "IBM/*ware/Results", "CHAR")


# ============================================================================ rejections

PRELUDE = """\
DEFINE QLOCAL(Q1) CLUSTER(C1)
DEFINE QALIAS(A1) TARGET(Q1)
DEFINE TOPIC(T1) TOPICSTR('Sports') CLUSTER(CL1)
DEFINE SUB(S1) TOPICSTR('Sports/#')
DEFINE CHANNEL(TO.QM1) CHLTYPE(CLUSRCVR) CLUSTER(CL1)
DEFINE NAMELIST(NL1) NAMES(CL1,CL2)
ALTER QMGR REPOS(CL1)
"""

REJECTIONS = [
    # (command, message)
    ("DEFINE QLOCAL(Q1)", "AMQ8150: IBM MQ object Q1 already exists."),
    ("DEFINE QREMOTE(Q1) RQMNAME(QM2)", "AMQ8150: IBM MQ object Q1 already exists."),
    ("DEFINE QREMOTE(Q1) RQMNAME(QM2) REPLACE", "AMQ8151: IBM MQ object Q1 has different type."),
    ("DEFINE TOPIC(T1) TOPICSTR('Sports')", "AMQ8150: IBM MQ object T1 already exists."),
    ("DEFINE SUB(S1) TOPICSTR('Sports/#')", "AMQ8150: IBM MQ object S1 already exists."),
    ("DEFINE CHANNEL(TO.QM1) CHLTYPE(CLUSRCVR)", "AMQ8150: IBM MQ object TO.QM1 already exists."),
    ("DEFINE CHANNEL(TO.QM1) CHLTYPE(CLUSSDR) REPLACE", "AMQ8151"),
    ("DEFINE NAMELIST(NL1)", "AMQ8150"),
    ("ALTER QLOCAL(NOPE) PUT(DISABLED)", "AMQ8147: IBM MQ object NOPE not found."),
    ("ALTER QLOCAL(A1) PUT(DISABLED)", "AMQ8151: IBM MQ object A1 has different type."),
    ("DELETE QREMOTE(Q1)", "AMQ8151"),
    ("DELETE QLOCAL(NOPE)", "AMQ8147"),
    ("ALTER TOPIC(NOPE) PUBSCOPE(ALL)", "AMQ8147"),
    ("DELETE TOPIC(NOPE)", "AMQ8147"),
    ("ALTER SUB(NOPE) DEST(Q)", "AMQ8147"),
    ("DELETE SUB(NOPE)", "AMQ8147"),
    ("ALTER CHANNEL(NOPE) CHLTYPE(CLUSRCVR) CLWLWGHT(5)", "AMQ8147"),
    ("ALTER CHANNEL(TO.QM1) CHLTYPE(CLUSSDR) CLWLWGHT(5)", "AMQ8151"),
    ("DELETE CHANNEL(NOPE)", "AMQ8147"),
    ("ALTER NAMELIST(NOPE) NAMES(A)", "AMQ8147"),
    ("DELETE NAMELIST(NOPE)", "AMQ8147"),
    ("DEFINE QLOCAL(Q2) LIKE(NOPE)", "AMQ8147: IBM MQ object NOPE not found."),
    # MQ's default objects exist, each of its own type
    ("DEFINE QLOCAL(Q2) LIKE(SYSTEM.DEFAULT.ALIAS.QUEUE)", "AMQ8151: IBM MQ object SYSTEM.DEFAULT.ALIAS.QUEUE has"),
    ("DEFINE CHANNEL(C2) CHLTYPE(CLUSRCVR) LIKE(SYSTEM.DEF.CLUSSDR) CONNAME('x') CLUSTER(C)",
     "AMQ8151: IBM MQ object SYSTEM.DEF.CLUSSDR has different type."),
    ("DEFINE TOPIC(T3) TOPICSTR('t3') LIKE(SYSTEM.DEFAULT.SUB)", "AMQ8151"),
    # 002 Figure 7 note: "The REPLACE option does not replace the TOPICSTR properties of a topic"
    ("DEFINE TOPIC(T1) TOPICSTR('Other') REPLACE", "does not replace the TOPICSTR"),
    # 002 Figure 9 note: "... does not replace TOPICOBJ or TOPICSTR properties of a subscription"
    ("DEFINE SUB(S1) TOPICSTR('Sports/+') REPLACE", "does not replace TOPICOBJ or TOPICSTR"),
    ("DEFINE SUB(S1) TOPICOBJ(T1) TOPICSTR('#') REPLACE", "does not replace TOPICOBJ"),
    # REPLACE is ALTER with every other parameter given; ALTER SUB cannot change WSCHEMA or
    # SUBSCOPE (ALTER SUB usage notes, spec.mqsc.NOT_ALTERABLE), so MQ refuses the command
    ("DEFINE SUB(S1) TOPICSTR('Sports/#') WSCHEMA(CHAR) REPLACE",
     "SUB(S1) REPLACE: WSCHEMA of an existing subscription cannot be changed (TOPIC -> CHAR)"),
    ("DEFINE SUB(S1) TOPICSTR('Sports/#') SUBSCOPE(QMGR) REPLACE",
     "SUBSCOPE of an existing subscription cannot be changed (ALL -> QMGR)"),
    ("DEFINE TOPIC(T2) TOPICSTR('Sports')", "MQRCCF_TOPICSTR_ALREADY_EXISTS"),
    ("DEFINE SUB(S2) TOPICOBJ(NOPE) TOPICSTR('x')", "AMQ8147: IBM MQ object NOPE not found."),
    # 002 §Constructing topic names: neither field present
    ("DEFINE SUB(S2) TOPICOBJ(SYSTEM.BASE.TOPIC)", "MQRC_UNKNOWN_OBJECT_NAME"),
    ("DEFINE SUB(S2) TOPICOBJ(T1) TOPICSTR('100%') WSCHEMA(CHAR)", "MQRC_TOPIC_STRING_ERROR"),
    ("ALTER QLOCAL(Q1) CLUSNL(NL1)", "MQRCCF_CLUSTER_NAME_CONFLICT"),
    ("ALTER CHANNEL(TO.QM1) CHLTYPE(CLUSRCVR) CLUSNL(NL1)", "MQRCCF_CLUSTER_NAME_CONFLICT"),
    ("ALTER QMGR REPOSNL(NL1)", "MQRCCF_REPOS_NAME_CONFLICT"),
    ("ALTER TOPIC(SYSTEM.BASE.TOPIC) PUBSCOPE(ASPARENT)", "not allowed on the root"),
    ("DELETE TOPIC(SYSTEM.BASE.TOPIC)", "ALTER it instead"),
    ("SUSPEND QMGR CLUSNL(NOPE)", "AMQ8147"),
    # 000 §Incorrectly deleted queue managers: RESET "has to be run on a Full Repository"
    ("RESET CLUSTER(OTHER) ACTION(FORCEREMOVE) QMNAME(QM9)", "must be issued on a full repository"),
    ("REFRESH CLUSTER(CL1) REPOS(YES)", "cannot be issued on a full repository"),
    # 002 §Inhibiting clustered publish/subscribe in a cluster
    ("ALTER QMGR PSCLUS(DISABLED)", "delete the clustered topic objects first (T1)"),
]


def test_psclus_disabled_refuses_cluster_topics():
    qm = accepted("ALTER QMGR PSCLUS(DISABLED)\nDEFINE TOPIC(T) TOPICSTR('t')")
    for command in ("DEFINE TOPIC(U) TOPICSTR('u') CLUSTER(CL1)", "ALTER TOPIC(T) CLUSTER(CL1)"):
        after, (outcome,) = run(command, qm)
        assert "PSCLUS is DISABLED" in outcome.message and after == qm
    assert accepted("ALTER TOPIC(T) PUBSCOPE(QMGR)", qm).topic("T").pubscope == "QMGR"


@pytest.mark.parametrize("command, message", REJECTIONS)
def test_rejection_changes_nothing(command, message):
    before = accepted(PRELUDE)
    after, (outcome,) = run(command, before)
    assert not outcome.accepted
    assert message in outcome.message
    assert after == before and outcome.operation is None


def test_replace_sub_may_change_what_alter_may():
    qm = accepted(PRELUDE + "DEFINE SUB(C1) TOPICSTR('Sports/*') WSCHEMA(CHAR)")
    qm = accepted("DEFINE SUB(S1) TOPICSTR('Sports/#') DEST(Q2) REPLACE\n"
                  "DEFINE SUB(C1) TOPICSTR('Sports/*') WSCHEMA(CHAR) DEST(Q2) REPLACE", qm)
    assert {(s.name, s.wschema, s.dest) for s in qm.subscriptions} == {("S1", "TOPIC", "Q2"), ("C1", "CHAR", "Q2")}
    _, (outcome,) = run("DEFINE SUB(C1) TOPICSTR('Sports/*') DEST(Q2) REPLACE", qm)  # WSCHEMA back to TOPIC
    assert not outcome.accepted and "(CHAR -> TOPIC)" in outcome.message


# ============================================================================ operations

OPERATIONS = [
    ("SUSPEND QMGR CLUSTER(CL1)", SuspendCluster(("CL1",), "QUIESCE")),
    ("SUSPEND QMGR CLUSNL(NL1) MODE(FORCE)", SuspendCluster(("CL1", "CL2"), "FORCE")),
    ("RESUME QMGR CLUSNL(NL1)", ResumeCluster(("CL1", "CL2"))),
    ("REFRESH CLUSTER(CL2) REPOS(YES)", RefreshCluster("CL2", True)),
    ("REFRESH CLUSTER(*)", RefreshCluster("*", False)),
    ("RESET CLUSTER(CL1) ACTION(FORCEREMOVE) QMNAME(QM9) QUEUES(YES)",
     ResetCluster("CL1", "QM9", "", True)),
    ("RESET CLUSTER(CL1) ACTION(FORCEREMOVE) QMID('QM9_2012')", ResetCluster("CL1", "", "QM9_2012")),
    ("REFRESH QMGR TYPE(PROXYSUB)", RefreshProxySubscriptions()),
    ("CLEAR TOPICSTR('USA/Alabama') CLTRTYPE(RETAINED)", ClearRetained("USA/Alabama")),
    ("START CHANNEL(TO.QM2)", StartChannel("TO.QM2")),
    ("STOP CHANNEL(TO.QM2)", StopChannel("TO.QM2")),
    ("REFRESH QMGR TYPE(EXPIRY)", None),
]


@pytest.mark.parametrize("command, operation", OPERATIONS)
def test_runtime_operations_change_no_definition(command, operation):
    before = accepted(PRELUDE)
    after, (outcome,) = run(command, before)
    assert outcome.accepted and outcome.operation == operation and after == before


@pytest.mark.parametrize("command", ["DISPLAY QMGR", "DEFINE LISTENER(L) TRPTYPE(TCP) PORT(1414)",
                                     "CLEAR QLOCAL(Q1)", "DIS SUB(*) SUBTYPE(PROXY) ALL"])
def test_ignored_commands_are_accepted_no_ops(command):
    before = accepted(PRELUDE)
    after, (outcome,) = run(command, before)
    assert outcome.accepted and not outcome.modelled and after == before


# ============================================================================ round trip

# object names: the characters MQ allows (spec.mqsc.NAME_CHARACTERS); a topic object's may
# hold embedded blanks (002's TOPIC('St. Helens')); a subscription name is any string
_name = st.text("ABCDEFGHIJKLMNOPQRSTUVWXYZabc._/%0123456789", min_size=1, max_size=8)
_topic_name = st.text("ABCDEFGHIJKLMNOPQRSTUVWXYZabc._/% 0123456789", min_size=1, max_size=8).filter(
    lambda s: s.strip(" ") == s)
_sub_name = st.text("ABCDEFGHIJKLMNOPQRSTUVWXYZabc._/% 0123456789'", min_size=1, max_size=8).filter(
    lambda s: s.rstrip(" ") == s)
_cluster = st.sampled_from(["", "CL1", "CL2", "blue"])
_topicstr = st.text(st.characters(min_codepoint=32, max_codepoint=0x17F), min_size=1,
                    max_size=12).filter(lambda s: s[0] != " ")


def _topic(name, topicstr):
    return st.builds(
        TopicObject, st.just(name), st.just(topicstr), _cluster,
        st.sampled_from(["QMGR", "ALL", "ASPARENT"]), st.sampled_from(["QMGR", "ALL", "ASPARENT"]),
        st.sampled_from(["FIRSTUSE", "FORCE"]), st.sampled_from(["BLOCK", "PASSTHRU"]),
        st.sampled_from(["YES", "NO", "ASPARENT"]),
        st.sampled_from(["ENABLED", "DISABLED", "ASPARENT"]),
        st.sampled_from(["ENABLED", "DISABLED", "ASPARENT"]))


def _queue(name):
    return st.one_of(
        st.builds(Queue, st.just(name), st.just("QLOCAL"), _cluster,
                  defbind=st.sampled_from(["OPEN", "NOTFIXED", "GROUP"]),
                  put=st.sampled_from(["ENABLED", "DISABLED"]), clwlrank=st.integers(0, 9),
                  clwlprty=st.integers(0, 9), clwluseq=st.sampled_from(["QMGR", "LOCAL", "ANY"]),
                  usage=st.sampled_from(["NORMAL", "XMITQ"])),
        st.builds(Queue, st.just(name), st.just("QREMOTE"), clusnl=st.sampled_from(["", "NL1"]),
                  rname=_name | st.just(""), rqmname=_name, xmitq=_name | st.just("")),
        st.builds(Queue, st.just(name), st.just("QALIAS"), _cluster, target=_name,
                  targtype=st.sampled_from(["QUEUE", "TOPIC"])))


def _channel(name):
    cluster = st.builds(Channel, st.just(name), st.sampled_from(["CLUSRCVR", "CLUSSDR"]),
                        conname=st.text("abc.()0123456789", max_size=10), cluster=_cluster,
                        clwlwght=st.integers(1, 99), clwlrank=st.integers(0, 9),
                        clwlprty=st.integers(0, 9))
    return st.one_of(
        cluster.map(lambda c: c if c.chltype == "CLUSSDR" else c),
        st.builds(Channel, st.just(name), st.just("CLUSRCVR"), cluster=_cluster,
                  netprty=st.integers(0, 9)),
        st.builds(Channel, st.just(name), st.just("SDR"), conname=st.just("h(1)"), xmitq=_name),
        st.builds(Channel, st.just(name), st.just("RCVR")))


@st.composite
def _qmgrs(draw):
    """A consistent QueueManagerDef: unique names and topic strings, orders 0..n-1."""
    names = st.lists(_name, unique=True, max_size=4)
    topicstrs = draw(st.lists(_topicstr, unique=True, max_size=4))
    topic_names = draw(st.lists(_topic_name.filter(lambda n: n != BASE_TOPIC), unique=True,
                                min_size=len(topicstrs), max_size=len(topicstrs)))
    topics = [draw(_topic(n, t)) for n, t in zip(topic_names, topicstrs)]
    base = draw(_topic(BASE_TOPIC, "").filter(
        lambda t: "ASPARENT" not in (t.pubscope, t.subscope, t.dursub, t.pub, t.sub)))
    subs = [Subscription(n, t, wschema="TOPIC" if "%" in t else draw(st.sampled_from(["TOPIC", "CHAR"])),
                         dest=draw(_name),
                         destqmgr=draw(_name | st.just("")),
                         subscope=draw(st.sampled_from(["ALL", "QMGR"])), order=i)
            for i, (n, t) in enumerate((n, draw(_topicstr)) for n in draw(st.lists(_sub_name, unique=True, max_size=4)))]
    queues = [draw(_queue(n)) for n in draw(names)]
    channels = [draw(_channel(n)) for n in draw(names.map(lambda ns: [n[:20] for n in ns])
                                                 .filter(lambda ns: len(set(ns)) == len(ns)))]
    namelists = [Namelist(n, tuple(draw(st.lists(_name, max_size=3)))) for n in draw(names)]
    repos = draw(_cluster)
    qm = QueueManagerDef(
        draw(_name), repos=repos, reposnl="" if repos else draw(st.sampled_from(["", "NL1"])),
        clwluseq=draw(st.sampled_from(["LOCAL", "ANY"])), clwlmruc=draw(st.integers(1, 999999999)),
        parent=draw(_name | st.just("")), psmode=draw(st.sampled_from(["ENABLED", "DISABLED", "COMPAT"])),
        # 002 §Inhibiting clustered publish/subscribe: no clustered topics under DISABLED
        psclus="ENABLED" if any(t.cluster for t in [base, *topics]) else draw(
            st.sampled_from(["ENABLED", "DISABLED"])),
        topics=tuple(sorted([base, *topics], key=lambda t: t.name)),
        subscriptions=tuple(sorted(subs, key=lambda s: s.name)),
        queues=tuple(sorted(queues, key=lambda q: q.name)),
        channels=tuple(sorted(channels, key=lambda c: c.name)),
        namelists=tuple(sorted(namelists, key=lambda n: n.name)), next_order=len(subs))
    return qm


@settings(max_examples=60)
@given(_qmgrs())
def test_definitions_render_parse_apply_round_trip(qm):
    text = render(definitions(qm))
    rebuilt, outcomes = apply_commands(QueueManagerDef(qm.name), parse(text))
    assert [o.message for o in outcomes if not o.accepted] == []
    assert rebuilt == qm


@settings(max_examples=60)
@given(_qmgrs(), st.lists(st.sampled_from([
    "DEFINE QLOCAL(Q1)", "DELETE QLOCAL(Q1)", "DEFINE TOPIC(T) TOPICSTR('a')",
    "DEFINE TOPIC(U) TOPICSTR('a')", "DELETE TOPIC(T)", "DEFINE SUB(S) TOPICOBJ(T) TOPICSTR('b')",
    "DEFINE SUB(S) TOPICSTR('a/b') REPLACE", "DELETE SUB(S)", "ALTER QLOCAL(Q1) CLUSNL(NL1)",
    "DEFINE NAMELIST(NL1) NAMES(X) REPLACE", "ALTER QMGR REPOSNL(NL1)", "ALTER QMGR REPOS(' ')",
    "RESET CLUSTER(CL1) ACTION(FORCEREMOVE) QMNAME(X)", "ALTER TOPIC(T) CLUSTER(CL1)",
]), max_size=8))
def test_any_command_sequence_keeps_definitions_canonical(qm, commands):
    """Rejections change nothing; tuples stay sorted and unique; SYSTEM.BASE.TOPIC stays."""
    for cmd in parse("\n".join(commands)):
        new, outcome = apply_command(qm, cmd)
        if not outcome.accepted:
            assert new == qm
        qm = new
        for objects in (qm.topics, qm.subscriptions, qm.queues, qm.channels, qm.namelists):
            names = [o.name for o in objects]
            assert names == sorted(set(names))
        assert qm.topic(BASE_TOPIC) is not None
        assert len({t.topicstr for t in qm.topics}) == len(qm.topics)
        assert not (qm.repos and qm.reposnl)
        assert all(not (q.cluster and q.clusnl) for q in qm.queues)


# ============================================================================ table-driven fuzz

_NAMES = st.sampled_from(["Q1", "T1", "CL1", "NL1", "TO.QM1", "SYSTEM.BASE.TOPIC", "S1", "*",
                          "' '", "'lower'"])


def _value_text(attr):
    """A value for a keyword of kind ``attr.kind``: mostly valid, sometimes not."""
    if attr.kind == "enum":
        return st.sampled_from(attr.choices + ("BAD",)).map(lambda v: f"({v})")
    if attr.kind == "int":
        return st.integers(attr.lo - 1, attr.hi + 1).map(lambda v: f"({v})")
    if attr.kind == "flag":
        return st.just("")
    if attr.kind == "list":
        return st.lists(_NAMES, max_size=3).map(lambda v: "(" + ",".join(v) + ")")
    if attr.kind == "text":
        return st.sampled_from(["('a')", "('a/#')", "('')", "(' x')", "('50%')", "('a*')"])
    return _NAMES.map(lambda v: f"({v})")


@st.composite
def _table_commands(draw):
    verb, objtype = draw(st.sampled_from(sorted(mqsc.MODELLED_TYPES)))
    chltype = draw(st.sampled_from(mqsc.CHANNEL_TYPES)) if objtype == "CHANNEL" else ""
    spec = mqsc.attribute_keywords(verb, objtype, chltype)
    parts = [f"{verb} {objtype}" + ("" if (verb, objtype) in mqsc.NAMELESS else f"({draw(_NAMES)})")]
    for kw in draw(st.lists(st.sampled_from(sorted(spec)), unique=True, max_size=4)) if spec else []:
        parts.append(kw + draw(_value_text(spec[kw])))
    if chltype and verb != "DELETE":
        parts.append(f"CHLTYPE({chltype})")
    return " ".join(parts)


@settings(max_examples=150)
@given(st.lists(_table_commands(), max_size=8))
def test_generated_commands_are_read_or_rejected_cleanly(lines):
    """Every keyword of every modelled command: InputError or a command; applying it never
    raises; a rejection changes nothing; what was read renders back to the same command."""
    qm = QueueManagerDef("QM1")
    for line in lines:
        try:
            (cmd,) = parse(line)
        except InputError:
            continue
        new, outcome = apply_command(qm, cmd)
        assert outcome.accepted or new == qm
        qm = new
        assert parse(render_command(cmd)) == (cmd,)


def test_every_modelled_command_has_a_handler():
    from spec.objects import _HANDLERS
    assert set(_HANDLERS) == set(mqsc.MODELLED_TYPES)
