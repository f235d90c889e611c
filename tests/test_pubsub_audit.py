"""Distributed publish/subscribe: the audit's scenarios (issue 6), each a worked case of the
seed with exact expected deliveries, and the properties that must catch the defects.

Sections: a queue manager in a cluster and a hierarchy (002 §Topic spaces); no routing from
one cluster into another (002 §Overlapping cluster support, and publish/subscribe); retained
publications across queue managers (002 §Retained publications in a distributed
publish/subscribe topology); cluster topic objects named by TOPICOBJ anywhere in the cluster
(002 §Topic spaces, Case 1); properties judged against the delivery-time attributes; one
subscription namespace per queue manager; the RFH2 parser (002 §Loop detection
fingerprint format); PARENT errors."""

from __future__ import annotations

import textwrap

import pytest

from checker.explore import explore
from checker.model import Status
from properties.pubsub import PROPERTIES
from spec.scenario import parse_scenario
from spec.network import MQNetwork, Mutations, deliveries_of, run_scenario


def scenario(text: str):
    return parse_scenario(textwrap.dedent(text), "audit.toml")


def run_text(text: str) -> dict:
    report = run_scenario(scenario(text))
    return {"deliveries": deliveries_of(report.final), "errors": [(e.qmgr, e.code) for e in report.final.log],
            "final": report.final}


def verdict(text: str, prop: str, mutation: Mutations = Mutations(), max_states: int = 20000):
    model = MQNetwork(scenario(text), PROPERTIES, mutations=mutation)
    return explore(model, max_states=max_states, property_ids=[prop], workers=1,
                   stop_on_violation=True).verdicts[prop]


# ---------------------------------------------------------------------------------------
# 002 §Topic spaces: "If a queue manager is a member of a cluster and a hierarchy, proxy
# subscriptions are propagated by both mechanisms without delivering duplicate
# publications to the subscriber." 002's hierarchy Scenario 3 (QM1 parent of QM2 and QM3,
# all in DEMO) with FOOTBALL a cluster topic of DEMO.
# ---------------------------------------------------------------------------------------
CLUSTER_AND_HIERARCHY = """
    [qmgrs.QM1]
    mqsc = '''
    ALTER QMGR PSMODE(ENABLED)
    ALTER QMGR REPOS(DEMO)
    DEFINE CHANNEL(TO.QM1) CHLTYPE(CLUSRCVR) TRPTYPE(TCP) CONNAME('localhost(9999)') CLUSTER(DEMO)
    DEFINE CHANNEL(TO.QM2) CHLTYPE(CLUSSDR) TRPTYPE(TCP) CONNAME('localhost(7777)') CLUSTER(DEMO)
    DEFINE TOPIC(FOOTBALL) TOPICSTR('Sport/Soccer') CLUSTER(DEMO)
    '''
    [qmgrs.QM2]
    mqsc = '''
    ALTER QMGR PSMODE(ENABLED)
    ALTER QMGR REPOS(DEMO)
    DEFINE CHANNEL(TO.QM2) CHLTYPE(CLUSRCVR) TRPTYPE(TCP) CONNAME('localhost(7777)') CLUSTER(DEMO)
    DEFINE CHANNEL(TO.QM1) CHLTYPE(CLUSSDR) TRPTYPE(TCP) CONNAME('localhost(9999)') CLUSTER(DEMO)
    ALTER QMGR PARENT (QM1)
    '''
    [qmgrs.QM3]
    mqsc = '''
    ALTER QMGR PSMODE(ENABLED)
    DEFINE CHANNEL(TO.QM3) CHLTYPE(CLUSRCVR) TRPTYPE(TCP) CONNAME('localhost(8888)') CLUSTER(DEMO)
    DEFINE CHANNEL(TO.QM1) CHLTYPE(CLUSSDR) TRPTYPE(TCP) CONNAME('localhost(9999)') CLUSTER(DEMO)
    ALTER QMGR PARENT (QM1)
    '''
    [[steps]]
    subscribe = { qmgr = "QM1", name = "SUB1", topic = "Sport/Soccer" }
    [[steps]]
    subscribe = { qmgr = "QM3", name = "SUB3", topic = "Sport/Soccer" }
    [[steps]]
    publish = { qmgr = "QM2", topic = "Sport/Soccer" }
"""


def test_cluster_and_hierarchy_deliver_once():
    got = run_text(CLUSTER_AND_HIERARCHY)
    assert got["deliveries"] == {"QM1": {"SUB1": ["Sport/Soccer"]}, "QM3": {"SUB3": ["Sport/Soccer"]}}
    assert got["errors"] == []  # nothing goes round to QM2 to be discarded as a loop


def test_cluster_and_hierarchy_demand_is_not_relayed_between_members():
    # QM3's demand reaches QM2 directly over DEMO; QM1 does not relay it over the hierarchy
    final = run_text(CLUSTER_AND_HIERARCHY)["final"]
    at_qm2 = final.qmgr("QM2").pubsub.proxies
    assert ("QM3", "DEMO", "Sport/Soccer") in at_qm2
    assert [p for p in at_qm2 if p[0] == "QM1"] == [("QM1", "", "Sport/Soccer")]  # SUB1's own demand


def test_cluster_and_hierarchy_every_interleaving_exactly_once():
    assert verdict(CLUSTER_AND_HIERARCHY, "PS-EXACTLY-ONCE-ACYCLIC").status is Status.HOLDS


def test_relaying_within_a_cluster_is_caught_in_cluster_and_hierarchy():
    # the mutant relays as before the fix: two copies at SUB1 and SUB3, now a violation
    v = verdict(CLUSTER_AND_HIERARCHY, "PS-EXACTLY-ONCE-ACYCLIC", Mutations(relay_within_cluster=True))
    assert v.status is Status.VIOLATED and v.trace is not None and v.trace.length <= 12


# ---------------------------------------------------------------------------------------
# 002 §Overlapping cluster support, and publish/subscribe: "you cannot use this mechanism
# to route publications and subscriptions from one cluster to another"; "a subscriber to a
# topic string on QM2 do not receive messages published to the same topic string
# published from QM5" (and vice versa). QM3 is in CLUSTER1 and CLUSTER2.
# ---------------------------------------------------------------------------------------
OVERLAP_RELAY = """
    [qmgrs.QM1]
    mqsc = '''
    ALTER QMGR REPOS(CLUSTER1)
    DEFINE CHANNEL(TO.QM1) CHLTYPE(CLUSRCVR) CONNAME('qm1(1414)') CLUSTER(CLUSTER1)
    DEFINE TOPIC(FOOTBALL) TOPICSTR('/Sport/Football') CLUSTER(CLUSTER1)
    DEFINE TOPIC(SPORT) TOPICSTR('/Sport') CLUSTER(CLUSTER1)
    '''
    [qmgrs.QM2]
    mqsc = '''
    DEFINE CHANNEL(TO.QM2) CHLTYPE(CLUSRCVR) CONNAME('qm2(1414)') CLUSTER(CLUSTER1)
    DEFINE CHANNEL(TO.QM1) CHLTYPE(CLUSSDR) CONNAME('qm1(1414)') CLUSTER(CLUSTER1)
    '''
    [qmgrs.QM3]
    mqsc = '''
    DEFINE NAMELIST(BOTH) NAMES(CLUSTER1, CLUSTER2)
    DEFINE CHANNEL(TO.QM3) CHLTYPE(CLUSRCVR) CONNAME('qm3(1414)') CLUSNL(BOTH)
    DEFINE CHANNEL(TO.QM1) CHLTYPE(CLUSSDR) CONNAME('qm1(1414)') CLUSTER(CLUSTER1)
    DEFINE CHANNEL(TO.QM4) CHLTYPE(CLUSSDR) CONNAME('qm4(1414)') CLUSTER(CLUSTER2)
    '''
    [qmgrs.QM4]
    mqsc = '''
    ALTER QMGR REPOS(CLUSTER2)
    DEFINE CHANNEL(TO.QM4) CHLTYPE(CLUSRCVR) CONNAME('qm4(1414)') CLUSTER(CLUSTER2)
    DEFINE TOPIC(TENNIS) TOPICSTR('/Sport/Tennis') CLUSTER(CLUSTER2)
    '''
    [qmgrs.QM5]
    mqsc = '''
    DEFINE CHANNEL(TO.QM5) CHLTYPE(CLUSRCVR) CONNAME('qm5(1414)') CLUSTER(CLUSTER2)
    DEFINE CHANNEL(TO.QM4) CHLTYPE(CLUSSDR) CONNAME('qm4(1414)') CLUSTER(CLUSTER2)
    '''
    [[steps]]
    subscribe = { qmgr = "QM3", name = "SPORT", topic = "/Sport/#" }
    [[steps]]
    subscribe = { qmgr = "QM5", name = "TENNIS5", topic = "/Sport/Tennis" }
    [[steps]]
    publish = { qmgr = "QM2", topic = "/Sport/Tennis" }
"""


def test_overlap_does_not_route_from_one_cluster_into_another():
    got = run_text(OVERLAP_RELAY)
    # QM2's /Sport/Tennis resolves to SPORT (CLUSTER1) there: QM3 in the overlap gets it,
    # QM5 in CLUSTER2 does not, although QM5's TENNIS5 proxy subscription is held at QM3
    assert got["deliveries"] == {"QM3": {"SPORT": ["/Sport/Tennis"]}, "QM5": {"TENNIS5": []}}
    assert got["errors"] == []
    assert ("QM5", "CLUSTER2", "/Sport/Tennis") in got["final"].qmgr("QM3").pubsub.proxies


def test_routing_between_clusters_is_caught_by_one_hop_property():
    assert verdict(OVERLAP_RELAY, "PS-ONE-HOP-CLUSTER").status is Status.HOLDS
    v = verdict(OVERLAP_RELAY, "PS-ONE-HOP-CLUSTER", Mutations(relay_within_cluster=True))
    assert v.status is Status.VIOLATED and v.trace is not None and v.trace.length <= 8


# ---------------------------------------------------------------------------------------
# 002 §Retained publications ("Subscribers can specify that they do not want to receive
# retained publications by using the MQSO_NEW_PUBLICATIONS_ONLY subscription option.
# Existing subscribers can ask for duplicate copies") and §Retained publications in a
# distributed publish/subscribe topology: each new proxy subscription is answered with
# the retained publication, for the new subscription(s) it carries.
# ---------------------------------------------------------------------------------------
RETAINED = """
    [qmgrs.QM1]
    [qmgrs.QM2]
    mqsc = "ALTER QMGR PARENT(QM1)"
    [[steps]]
    publish = { qmgr = "QM1", topic = "Weather/Leeds", retain = true }
    [[steps]]
    subscribe = { qmgr = "QM2", name = "S1", topic = "Weather/Leeds" }
    [[steps]]
    subscribe = { qmgr = "QM2", name = "S2", topic = "Weather/#" }
    [[steps]]
    subscribe = { qmgr = "QM2", name = "S3", topic = "Weather/+", new_only = true }
"""


def test_retained_answer_is_for_the_new_subscription_only():
    got = run_text(RETAINED)
    # S2's and S3's new proxy subscriptions are each answered; S1 (existing) gets no
    # duplicate, S3 (new publications only) gets nothing
    assert got["deliveries"] == {"QM2": {"S1": ["Weather/Leeds"], "S2": ["Weather/Leeds"], "S3": []}}
    assert got["errors"] == []
    assert sorted(t for _, _, t in got["final"].qmgr("QM1").pubsub.proxies) == ["Weather/#", "Weather/+",
                                                                                 "Weather/Leeds"]


def test_retained_answer_reaches_a_grandchild_once():
    # QM3 -> QM2 -> QM1: QM2 relays QM1's answer to the requester QM3 only
    got = run_text("""
        [qmgrs.QM1]
        [qmgrs.QM2]
        mqsc = "ALTER QMGR PARENT(QM1)"
        [qmgrs.QM3]
        mqsc = "ALTER QMGR PARENT(QM2)"
        [[steps]]
        publish = { qmgr = "QM1", topic = "Weather/Leeds", retain = true }
        [[steps]]
        subscribe = { qmgr = "QM2", name = "MID", topic = "Weather/Leeds" }
        [[steps]]
        subscribe = { qmgr = "QM3", name = "LEAF", topic = "Weather/#" }
    """)
    assert got["deliveries"] == {"QM2": {"MID": ["Weather/Leeds"]}, "QM3": {"LEAF": ["Weather/Leeds"]}}
    assert got["errors"] == []


@pytest.mark.parametrize("prop", ["PS-RETAINED-NEW-ONLY", "PS-PUB-AGGREGATION"])
def test_retained_answers_hold_in_every_interleaving(prop):
    assert verdict(RETAINED, prop).status is Status.HOLDS
    assert verdict(RETAINED, "PS-RETAINED-REMOTE").status is Status.WITNESSED


def test_retained_property_catches_a_duplicate_and_a_new_only_delivery():
    from dataclasses import replace

    from properties.pubsub import retained_for_new_subscriptions
    from spec.network import put_qmgr

    final = run_text(RETAINED)["final"]
    qm2 = final.qmgr("QM2")
    assert retained_for_new_subscriptions(None, final)
    s1 = next(d for d in qm2.pubsub.deliveries if d.subscription == "S1")
    s3 = qm2.pubsub.subscription("S3")
    for extra in (s1, replace(s1, subscription="S3", order=s3.order)):
        bad = put_qmgr(final, replace(qm2, pubsub=replace(qm2.pubsub, deliveries=qm2.pubsub.deliveries + (extra,))))
        assert not retained_for_new_subscriptions(None, bad)


# ---------------------------------------------------------------------------------------
# PS-SCOPE / PS-WILDCARD-BLOCK judge a delivery by the attributes it had when it was put
# (002 §Subscription scope: SUBSCOPE applies when a publication is delivered)
# ---------------------------------------------------------------------------------------
SCOPE_BASE = """
    [qmgrs.QM1]
    mqsc = "DEFINE TOPIC(A) TOPICSTR('a') PROXYSUB(FORCE)"
    [qmgrs.QM2]
    mqsc = '''
    ALTER QMGR PARENT(QM1)
    DEFINE TOPIC(A) TOPICSTR('a') PROXYSUB(FORCE)
    '''
    [[steps]]
    subscribe = { qmgr = "QM2", name = "S", topic = "a/b" }
    [[steps]]
    publish = { qmgr = "QM1", topic = "a/b" }
"""
SCOPE_LATER = {
    "altered": """
    [[steps]]
    mqsc = { qmgr = "QM2", commands = "ALTER TOPIC(A) SUBSCOPE(QMGR)" }
    """,
    "name reused": """
    [[steps]]
    unsubscribe = { qmgr = "QM2", name = "S" }
    [[steps]]
    subscribe = { qmgr = "QM2", name = "S", topic = "a/b", scope = "QMGR" }
    """,
}


@pytest.mark.parametrize("later", sorted(SCOPE_LATER))
def test_scope_is_judged_at_delivery_time(later):
    text = SCOPE_BASE + textwrap.dedent(SCOPE_LATER[later])
    assert run_text(text)["deliveries"]["QM2"]["S"] == ["a/b"]  # delivered while S was SUBSCOPE ALL
    assert verdict(text, "PS-SCOPE").status is Status.HOLDS


def test_scope_property_still_catches_subscope_ignored():
    text = SCOPE_BASE.replace('topic = "a/b" }\n    [[steps]]', 'topic = "a/b", scope = "QMGR" }\n    [[steps]]', 1)
    assert run_text(text)["deliveries"]["QM2"]["S"] == []
    v = verdict(text, "PS-SCOPE", Mutations(ignore_subscope_remote=True))
    assert v.status is Status.VIOLATED


def test_wildcard_block_is_judged_at_delivery_time():
    # S ('a/#') gets a/b/c; then a/b becomes WILDCARD(BLOCK) and S is made again: the new S
    # is blocked below a/b (002 §Controlling wildcard usage with the WILDCARD property), the
    # delivery to the old S was right
    text = """
        [qmgrs.QM1]
        [[steps]]
        subscribe = { qmgr = "QM1", name = "S", topic = "a/#" }
        [[steps]]
        publish = { qmgr = "QM1", topic = "a/b/c" }
        [[steps]]
        unsubscribe = { qmgr = "QM1", name = "S" }
        [[steps]]
        mqsc = { qmgr = "QM1", commands = "DEFINE TOPIC(B) TOPICSTR('a/b') WILDCARD(BLOCK)" }
        [[steps]]
        subscribe = { qmgr = "QM1", name = "S", topic = "a/#" }
        [[steps]]
        publish = { qmgr = "QM1", topic = "a/b/c" }
    """
    assert run_text(text)["deliveries"] == {"QM1": {"S": ["a/b/c"]}}
    assert verdict(text, "PS-WILDCARD-BLOCK").status is Status.HOLDS


# ---------------------------------------------------------------------------------------
# 002 §Topic spaces, Case 1 item 3: "An application or administrator, anywhere in the
# cluster, can create a subscription to USA/Alabama by referring to the Alabama topic
# object." TOPICOBJ resolves local objects first, then cluster topics known here.
# ---------------------------------------------------------------------------------------
ALABAMA = """
    [qmgrs.FR1]
    mqsc = '''
    ALTER QMGR REPOS(CL)
    DEFINE CHANNEL(TO.FR1) CHLTYPE(CLUSRCVR) CONNAME('fr1(1414)') CLUSTER(CL)
    DEFINE TOPIC(ALABAMA) TOPICSTR('USA/Alabama') CLUSTER(CL)
    '''
    [qmgrs.PR1]
    mqsc = '''
    DEFINE CHANNEL(TO.PR1) CHLTYPE(CLUSRCVR) CONNAME('pr1(1414)') CLUSTER(CL)
    DEFINE CHANNEL(TO.FR1) CHLTYPE(CLUSSDR) CONNAME('fr1(1414)') CLUSTER(CL)
    {local}
    '''
    [[steps]]
    mqsc = {{ qmgr = "PR1", commands = "DEFINE SUB(ADMIN) TOPICOBJ(ALABAMA) DEST(Q1)" }}
    [[steps]]
    subscribe = {{ qmgr = "PR1", name = "APP", topicobj = "ALABAMA" }}
    [[steps]]
    publish = {{ qmgr = "FR1", topic = "USA/Alabama" }}
    [[steps]]
    publish = {{ qmgr = "PR1", topic = "Local/Alabama" }}
"""


def test_topicobj_names_a_cluster_topic_anywhere_in_the_cluster():
    got = run_text(ALABAMA.format(local=""))
    assert got["deliveries"] == {"PR1": {"ADMIN": ["USA/Alabama"], "APP": ["USA/Alabama"]}}
    assert got["errors"] == []
    assert got["final"].qmgr("PR1").defs.subscription("ADMIN").topicstr == "USA/Alabama"


def test_topicobj_prefers_the_local_object_of_that_name():
    got = run_text(ALABAMA.format(local="DEFINE TOPIC(ALABAMA) TOPICSTR('Local/Alabama')"))
    assert got["deliveries"] == {"PR1": {"ADMIN": ["Local/Alabama"], "APP": ["Local/Alabama"]}}


def test_topicobj_unknown_anywhere_is_still_refused():
    got = run_text(ALABAMA.format(local="").replace("TOPICOBJ(ALABAMA)", "TOPICOBJ(TEXAS)")
                   .replace('topicobj = "ALABAMA"', 'topicobj = "TEXAS"'))
    assert got["deliveries"] == {}
    assert got["errors"] == [("PR1", "AMQ8147"), ("PR1", "MQRC_UNKNOWN_OBJECT_NAME")]


# ---------------------------------------------------------------------------------------
# 002 §Loop detection fingerprint format: "By default the application uses
# PutMsgOpts.Action = MQACTP_NEW and starts a new chain" — two republishers feeding each
# other loop for ever; a bounded check is incomplete, and PS-REPUBLISH-LOOP's witness trace
# shows the loop going round and starting again (the evidence). With FORWARD it never does.
# ---------------------------------------------------------------------------------------
REPUBLISH = """
    [qmgrs.QM1]
    mqsc = "DEFINE TOPIC(PRICE) TOPICSTR('Price') PROXYSUB(FORCE)"
    [qmgrs.QM2]
    mqsc = '''
    ALTER QMGR PARENT(QM1)
    DEFINE TOPIC(PRICE) TOPICSTR('Price') PROXYSUB(FORCE)
    '''
    [[steps]]
    subscribe = {{ qmgr = "QM1", name = "IN", topic = "Price/In" }}
    [[steps]]
    subscribe = {{ qmgr = "QM2", name = "OUT", topic = "Price/Out" }}
    [[steps]]
    republish = {{ qmgr = "QM1", subscription = "IN", action = "{action}", topic = "Price/Out" }}
    [[steps]]
    republish = {{ qmgr = "QM2", subscription = "OUT", action = "{action}", topic = "Price/In" }}
    [[steps]]
    publish = {{ qmgr = "QM1", topic = "Price/In" }}
"""


def test_republish_new_loop_has_a_trace_as_evidence():
    from properties.pubsub import republish_loop

    model = MQNetwork(scenario(REPUBLISH.format(action="NEW")), PROPERTIES)
    result = explore(model, max_states=300, property_ids=["PS-REPUBLISH-LOOP", "PS-TERMINATION"], workers=1)
    assert not result.statistics.complete
    assert result.verdicts["PS-TERMINATION"].status is Status.HOLDS_UP_TO_BOUND
    v = result.verdicts["PS-REPUBLISH-LOOP"]
    assert v.status is Status.WITNESSED and v.trace is not None
    # replay the witness: its last state has QM1's IN republisher acting a second time in
    # one lineage, with a fresh fingerprint chain
    state = next(iter(model.init_states()))
    for step in v.trace.steps[1:]:
        action = next(a for a in model.actions(state) if model.describe_action(a) == step.action)
        state = model.next_state(state, action)
    assert republish_loop(state) == ("QM1", "QM1:IN")
    last = state.qmgr("QM1").pubsub.published_log[-1]
    assert last.lineage == ("QM1:IN", "QM2:OUT", "QM1:IN") and last.fingerprints == ()


def test_republish_forward_never_loops():
    v = verdict(REPUBLISH.format(action="FORWARD"), "PS-REPUBLISH-LOOP")
    assert v.status is Status.NEVER_REACHED
    assert verdict(REPUBLISH.format(action="FORWARD"), "PS-TERMINATION").status is Status.HOLDS


# ---------------------------------------------------------------------------------------
# One subscription namespace per queue manager: DELETE SUB removes a subscription an
# application made, DEFINE SUB finds its name taken, MQCLOSE(MQCO_REMOVE_SUB) removes an
# administrative one (002 §Subscribers and subscriptions, §Subscription durability)
# ---------------------------------------------------------------------------------------
def test_delete_sub_removes_an_api_subscription():
    got = run_text("""
        [qmgrs.QM1]
        [[steps]]
        subscribe = { qmgr = "QM1", name = "S", topic = "in", durable = true }
        [[steps]]
        mqsc = { qmgr = "QM1", commands = "DELETE SUB(S)" }
        [[steps]]
        subscribe = { qmgr = "QM1", name = "S", topic = "other" }
        [[steps]]
        publish = { qmgr = "QM1", topic = "in" }
        [[steps]]
        publish = { qmgr = "QM1", topic = "other" }
    """)
    assert got["deliveries"] == {"QM1": {"S": ["other"]}}
    assert got["errors"] == []


@pytest.mark.parametrize("durable", ["true", "false"])
def test_delete_sub_ends_the_republisher_reading_it(durable):
    got = run_text(f"""
        [qmgrs.QM1]
        [[steps]]
        subscribe = {{ qmgr = "QM1", name = "S", topic = "in", durable = {durable} }}
        [[steps]]
        subscribe = {{ qmgr = "QM1", name = "OUT", topic = "out" }}
        [[steps]]
        republish = {{ qmgr = "QM1", subscription = "S", action = "NEW", topic = "out" }}
        [[steps]]
        mqsc = {{ qmgr = "QM1", commands = "DELETE SUB(S)" }}
        [[steps]]
        mqsc = {{ qmgr = "QM1", commands = "DEFINE SUB(S) TOPICSTR('in') DEST(Q)" }}
        [[steps]]
        publish = {{ qmgr = "QM1", topic = "in" }}
    """)
    assert got["deliveries"] == {"QM1": {"OUT": [], "S": ["in"]}}
    assert got["errors"] == [] and got["final"].qmgr("QM1").pubsub.republishers == ()


def test_define_sub_on_a_live_api_subscription_is_refused():
    got = run_text("""
        [qmgrs.QM1]
        [[steps]]
        subscribe = { qmgr = "QM1", name = "S", topic = "in" }
        [[steps]]
        mqsc = { qmgr = "QM1", commands = "DEFINE SUB(S) TOPICSTR('other') DEST(Q)" }
        [[steps]]
        publish = { qmgr = "QM1", topic = "in" }
        [[steps]]
        publish = { qmgr = "QM1", topic = "other" }
    """)
    assert got["deliveries"] == {"QM1": {"S": ["in"]}}
    assert got["errors"] == [("QM1", "AMQ8150")]
    assert got["final"].qmgr("QM1").defs.subscription("S") is None


def test_unsubscribe_removes_an_administrative_subscription():
    got = run_text("""
        [qmgrs.QM1]
        [[steps]]
        mqsc = { qmgr = "QM1", commands = "DEFINE SUB(S) TOPICSTR('in') DEST(Q)" }
        [[steps]]
        unsubscribe = { qmgr = "QM1", name = "S" }
        [[steps]]
        mqsc = { qmgr = "QM1", commands = "DEFINE SUB(S) TOPICSTR('other') DEST(Q)" }
        [[steps]]
        publish = { qmgr = "QM1", topic = "in" }
        [[steps]]
        publish = { qmgr = "QM1", topic = "other" }
    """)
    assert got["deliveries"] == {"QM1": {"S": ["other"]}}
    assert got["errors"] == []


# ---------------------------------------------------------------------------------------
# 002 §Loop detection fingerprint format: the RFH2 <ibm> folder — parse_rfh2 robustness
# ---------------------------------------------------------------------------------------
import struct  # noqa: E402

from spec import pubsub  # noqa: E402

FPS = ("QMA_1", "QMB_1")


def _with_length(raw: bytes, n: int, order: str = ">") -> bytes:
    return raw[:36] + struct.pack(order + "i", n) + raw[40:]


@pytest.mark.parametrize("encoding", [pubsub.MQENC_BIG, pubsub.MQENC_LITTLE])
def test_rfh2_round_trips_in_both_byte_orders(encoding):
    raw = pubsub.rfh2_bytes(FPS, encoding)
    assert pubsub.parse_rfh2(raw) == FPS
    assert pubsub.parse_rfh2(raw, encoding=encoding) == FPS
    assert struct.unpack({273: ">i", 546: "<i"}[encoding], raw[12:16])[0] == encoding  # the Encoding field


def test_rfh2_little_endian_header_as_an_x86_queue_manager_writes_it():
    big = pubsub.rfh2_bytes(FPS)
    little = struct.pack("<4siiii8sii", b"RFH ", 2, len(big), 546, 1208, b"MQSTR   ", 0, 1208)
    little += struct.pack("<i", len(big) - 40) + big[40:]
    assert pubsub.parse_rfh2(little) == FPS


@pytest.mark.parametrize("name,mutate", [
    ("negative NameValueLength", lambda raw: _with_length(raw, -4)),
    ("NameValueLength past StrucLength", lambda raw: _with_length(raw, 1000)),
    ("NameValueLength one past StrucLength", lambda raw: _with_length(raw, len(raw) - 40 + 1)),
    ("StrucLength past the bytes", lambda raw: raw[:8] + struct.pack(">i", len(raw) + 4) + raw[12:]),
    ("StrucLength below the fixed part", lambda raw: raw[:8] + struct.pack(">i", 20) + raw[12:]),
    ("Encoding neither normal nor reversed", lambda raw: raw[:12] + struct.pack(">i", 0x333) + raw[16:]),
    ("NameValueCCSID not UTF-8", lambda raw: raw[:32] + struct.pack(">i", 819) + raw[36:]),
    ("Version 1", lambda raw: raw[:4] + struct.pack(">i", 1) + raw[8:]),
    ("wrong StrucId", lambda raw: b"RFH1" + raw[4:]),
    ("truncated", lambda raw: raw[:30]),
])
def test_rfh2_malformed_is_refused(name, mutate):
    with pytest.raises(ValueError):
        pubsub.parse_rfh2(mutate(pubsub.rfh2_bytes(FPS)))


def test_rfh2_declared_encoding_wins_over_detection():
    # a big-endian header read as the reversed encoding its carrier declares is not version 2
    with pytest.raises(ValueError):
        pubsub.parse_rfh2(pubsub.rfh2_bytes(FPS), encoding=pubsub.MQENC_LITTLE)


# ---------------------------------------------------------------------------------------
# 002 §Publish/subscribe hierarchies: PARENT must name another queue manager
# ---------------------------------------------------------------------------------------
def test_parent_unknown_or_self_is_logged_once():
    got = run_text("""
        [qmgrs.QM1]
        mqsc = "ALTER QMGR PARENT(NOSUCH)"
        [qmgrs.QM2]
        mqsc = "ALTER QMGR PARENT(QM2)"
        [[steps]]
        subscribe = { qmgr = "QM1", name = "S", topic = "a" }
        [[steps]]
        publish = { qmgr = "QM2", topic = "a" }
        [[steps]]
        mqsc = { qmgr = "QM2", commands = "ALTER QMGR PARENT(QM1)" }
        [[steps]]
        publish = { qmgr = "QM2", topic = "a" }
    """)
    assert got["errors"] == [("QM1", "PARENT_UNKNOWN"), ("QM2", "PARENT_SELF")]
    assert got["deliveries"] == {"QM1": {"S": ["a"]}}  # only once QM2's PARENT names QM1
