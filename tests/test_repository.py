"""Cluster repositories (issue #5): seed walkthroughs step by step, the clock, and mutants
the checker must catch with short traces.

Walkthroughs drive spec.system's MQNetwork one action at a time, as the seeds narrate
them (000 §Initial definitions, §First MQOPEN of a Queue, §Refreshing repository
information, §Incorrectly deleted queue managers).
"""

from __future__ import annotations

import textwrap

import pytest

from checker.explore import explore
from checker.model import Status
from properties.repository import PROPERTIES
from spec import repository as rp
from spec.scenario import parse_scenario
from spec.system import ChannelDeliver, MQNetwork, Mutations, ScenarioStep, repositories_of, run_scenario, settle


def scenario(text: str):
    return parse_scenario(textwrap.dedent(text), "test.toml")


def fr(name: str, other: str, cluster: str = "DEMO") -> str:
    return f"""
[qmgrs.{name}]
mqsc = '''
ALTER QMGR REPOS({cluster})
DEFINE CHANNEL(TO.{name}) CHLTYPE(CLUSRCVR) CONNAME('{name.lower()}(1414)') CLUSTER({cluster})
DEFINE CHANNEL(TO.{other}) CHLTYPE(CLUSSDR) CONNAME('{other.lower()}(1414)') CLUSTER({cluster})
'''
"""


def pr(name: str, via: str, extra: str = "", cluster: str = "DEMO") -> str:
    return f"""
[qmgrs.{name}]
mqsc = '''
DEFINE CHANNEL(TO.{name}) CHLTYPE(CLUSRCVR) CONNAME('{name.lower()}(1414)') CLUSTER({cluster}) CLWLWGHT(70)
DEFINE CHANNEL(TO.{via}) CHLTYPE(CLUSSDR) CONNAME('{via.lower()}(1414)') CLUSTER({cluster})
{extra}
'''
"""


TWO_FRS = 'name = "t"\n' + fr("FR1", "FR2") + fr("FR2", "FR1")


def deliver_all(model, state):
    return settle(model, state)


def step(model, state):
    return model.next_state(state, ScenarioStep(state.next_step))


def deliver(model, state, src, dst):
    nxt = model.next_state(state, ChannelDeliver(src, dst))
    assert nxt is not None, f"nothing to deliver {src}->{dst}"
    return nxt


def view(state, qmgr, cluster="DEMO"):
    return repositories_of(state)[qmgr][cluster]


# ---------------------------------------------------------------------------------------
# 000 §Initial definitions / §Checking initial definitions
# ---------------------------------------------------------------------------------------
def test_initial_definitions_walkthrough():
    model = MQNetwork(scenario(TWO_FRS + "[qmgrs.PR1]\n" + """
[[steps]]
mqsc = { qmgr = "PR1", commands = '''
DEFINE CHANNEL(TO.PR1) CHLTYPE(CLUSRCVR) CONNAME('pr1(1414)') CLUSTER(DEMO) CLWLWGHT(70)
DEFINE CHANNEL(TO.FR1) CHLTYPE(CLUSSDR) CONNAME('fr1(1414)') CLUSTER(DEMO)
''' }
"""))
    (s,) = model.init_states()
    # "Once both a cluster sender channel and a cluster receiver channel for the same
    # cluster are defined, the repository task starts the cluster sender channel"
    s = step(model, s)
    assert view(s, "PR1")["qmgrs"] == ["PR1", "SYSTEM.TEMPQMGR.fr1(1414)"]
    ch = s.channel("PR1", "FR1")
    assert [m.op for m in ch.messages] == ["JOIN"]
    # "The information from the cluster receiver channel on the Partial Repository is sent
    # to the Full Repository which uses it to construct an auto defined cluster sender"
    s = deliver(model, s, "PR1", "FR1")
    fr1 = s.qmgr("FR1").cache("DEMO")
    record = fr1.qmgr_record_of("PR1")
    assert record.info.conname == "pr1(1414)" and record.info.clwlwght == 70  # CLUSRCVR's attributes
    assert view(s, "PR1")["qmgrs"] == ["PR1", "SYSTEM.TEMPQMGR.fr1(1414)"]  # not answered yet
    # "The repository task on the Full Repository starts the channel back to the Partial
    # Repository and sends back the information from its cluster receiver channel."
    s = deliver(model, s, "FR1", "PR1")
    assert view(s, "PR1")["qmgrs"] == ["FR1", "FR2", "PR1"]
    s = deliver_all(model, s)
    assert view(s, "FR2")["qmgrs"] == ["FR1", "FR2", "PR1"]  # FR1 forwarded to its manual FR


@pytest.mark.parametrize(
    "extra_mqsc,reason",
    [
        ("DEFINE CHANNEL(TO.PR1) CHLTYPE(CLUSRCVR) CONNAME('pr1(1414)') CLUSTER(OTHER)\n"
         "DEFINE CHANNEL(TO.FR1) CHLTYPE(CLUSSDR) CONNAME('fr1(1414)') CLUSTER(DEMO)",
         "cluster names differ"),
        ("DEFINE CHANNEL(TO.PR1) CHLTYPE(CLUSRCVR) CONNAME('pr1(1414)') CLUSTER(DEMO)\n"
         "DEFINE CHANNEL(TO.FR1) CHLTYPE(CLUSSDR) CONNAME('nowhere(1414)') CLUSTER(DEMO)",
         "matches no queue manager's CLUSRCVR"),
    ],
    ids=["cluster-names-differ", "conname-matches-nothing"],
)
def test_a_member_that_never_joins_and_why(extra_mqsc, reason):
    # 000 §Checking initial definitions: "The Partial Repository will not attempt to talk to
    # the Full Repository unless both the CLUSRCVR and the CLUSSDR channels are defined with
    # the same cluster name in the CLUSTER keyword."
    report = run_scenario(scenario(TWO_FRS + f"[qmgrs.PR1]\nmqsc = '''\n{extra_mqsc}\n'''\n"))
    data = report.to_json()
    assert "PR1" not in data["repositories"]["FR1"]["DEMO"]["qmgrs"]
    assert any(reason in e["reason"] for e in data["not_joined"] if e["qmgr"] == "PR1")


# ---------------------------------------------------------------------------------------
# 000 §First MQOPEN of a Queue
# ---------------------------------------------------------------------------------------
def test_first_mqopen_walkthrough():
    text = (TWO_FRS + pr("PR1", "FR1", "DEFINE QLOCAL(CQ1) CLUSTER(DEMO)") + pr("PR2", "FR2", "DEFINE QLOCAL(CQ1) CLUSTER(DEMO)")
            + pr("PR3", "FR1") + '\n[[steps]]\nopen = { qmgr = "PR3", handle = "h1", queue = "CQ1" }\n'
            + '[[steps]]\nmqsc = { qmgr = "PR2", commands = "ALTER QLOCAL(CQ1) PUT(DISABLED)" }\n')
    model = MQNetwork(scenario(text))
    (s,) = model.init_states()
    assert view(s, "PR3")["queues"] == {}
    # "A message is put to the SYSTEM.CLUSTER.COMMAND.QUEUE requesting the repository task
    # to subscribe for the queue ... The subscription request is sent to 2 Full Repositories."
    s = step(model, s)
    subs = {(c.dst, m.op, m.keys) for c in s.channels if c.src == "PR3" for m in c.messages}
    assert subs == {("FR1", "SUBSCRIBE", (("QUEUE", "CQ1"),)), ("FR2", "SUBSCRIBE", (("QUEUE", "CQ1"),))}
    # "The Full Repository queue manager sends back the information about the queue"
    s = deliver(model, s, "PR3", "FR1")
    s = deliver(model, s, "FR1", "PR3")
    assert view(s, "PR3")["queues"] == {"CQ1": ["PR1", "PR2"]}
    # "What it would then need to find out is information on the channels that the hosts
    # of the queue have advertised ... more subscriptions would be made"
    assert any(m.op == "SUBSCRIBE" and ("QMGR", "PR2") in m.keys for c in s.channels if c.src == "PR3" for m in c.messages)
    s = deliver_all(model, s)
    assert set(view(s, "PR3")["qmgrs"]) == {"FR1", "FR2", "PR1", "PR2", "PR3"}
    # (10): a change to a subscribed queue is notified to the subscribing PR
    s = deliver_all(model, step(model, s))
    held = [r for r in s.qmgr("PR3").cache("DEMO").live() if r.kind == rp.QUEUE and r.owner_name == "PR2"]
    assert [r.info.put for r in held] == ["DISABLED"]


def test_publishing_goes_to_two_full_repositories():
    # 003 §Queue managers and repositories: "sent to the chosen repository and also to one
    # other repository (if there is one)"
    text = TWO_FRS + pr("PR1", "FR1") + '\n[[steps]]\nmqsc = { qmgr = "PR1", commands = "DEFINE QLOCAL(CQ1) CLUSTER(DEMO)" }\n'
    model = MQNetwork(scenario(text))
    (s,) = model.init_states()
    s = step(model, s)
    targets = sorted(c.dst for c in s.channels if c.src == "PR1" and c.messages)
    assert targets == ["FR1", "FR2"]
    assert s.qmgr("PR1").cache("DEMO").last_publish == (("FR1", "FR2"), 2)


# ---------------------------------------------------------------------------------------
# 000 §Refreshing repository information
# ---------------------------------------------------------------------------------------
STALE = (TWO_FRS + pr("PR1", "FR1", "DEFINE QLOCAL(CQ1) CLUSTER(DEMO)") + pr("PR2", "FR2") + pr("PR3", "FR1") + """
[[steps]]
open = { qmgr = "PR3", handle = "h1", queue = "CQ1" }
[[steps]]
channel = { qmgr = "FR1", to = "PR3", status = "STOPPED" }
[[steps]]
channel = { qmgr = "FR2", to = "PR3", status = "STOPPED" }
[[steps]]
mqsc = { qmgr = "PR2", commands = "DEFINE QLOCAL(CQ1) CLUSTER(DEMO)" }
# "Messages have been removed from ... another queue manager's SYSTEM.CLUSTER.TRANSMIT.QUEUE"
[[steps]]
mqsc = { qmgr = "FR1", commands = "CLEAR QLOCAL(SYSTEM.CLUSTER.TRANSMIT.QUEUE)" }
[[steps]]
mqsc = { qmgr = "FR2", commands = "CLEAR QLOCAL(SYSTEM.CLUSTER.TRANSMIT.QUEUE)" }
[[steps]]
channel = { qmgr = "FR1", to = "PR3", status = "RUNNING" }
[[steps]]
channel = { qmgr = "FR2", to = "PR3", status = "RUNNING" }
""")


def test_refresh_restores_a_stale_view():
    stale = run_scenario(scenario(STALE))
    # "the Partial Repository believes that a queue called MY.Q is hosted by ... but the
    # Full Repository knows it is actually hosted by S1 and S2"
    assert view(stale.final, "PR3")["queues"] == {"CQ1": ["PR1"]}
    assert view(stale.final, "FR1")["queues"] == {"CQ1": ["PR1", "PR2"]}
    fixed = run_scenario(scenario(STALE + '[[steps]]\nmqsc = { qmgr = "PR3", commands = "REFRESH CLUSTER(DEMO)" }\n'))
    assert view(fixed.final, "PR3")["queues"] == {"CQ1": ["PR1", "PR2"]}
    assert set(view(fixed.final, "PR3")["qmgrs"]) >= {"FR1", "FR2", "PR1", "PR2", "PR3"}


# ---------------------------------------------------------------------------------------
# 000 §Incorrectly deleted queue managers
# ---------------------------------------------------------------------------------------
RECREATED = TWO_FRS + pr("PR1", "FR1", "DEFINE QLOCAL(CQ1) CLUSTER(DEMO)") + """
[[steps]]
qmgr = { name = "PR1", action = "delete" }
[[steps]]
qmgr = { name = "PR1", action = "recreate" }
"""


def test_recreated_queue_manager_appears_twice_until_reset_by_qmid():
    twice = run_scenario(scenario(RECREATED))
    assert view(twice.final, "FR2")["qmgrs"] == ["FR1", "FR2", "PR1_1", "PR1_2"]
    owners = {r.owner for r in twice.final.qmgr("FR2").cache("DEMO").live() if r.kind == rp.QUEUE}
    assert owners == {"PR1_1", "PR1_2"}
    by_name = run_scenario(scenario(RECREATED + '[[steps]]\nmqsc = { qmgr = "FR1", commands = '
                                    '"RESET CLUSTER(DEMO) ACTION(FORCEREMOVE) QMNAME(PR1) QUEUES(YES)" }\n'))
    assert [e.code for e in by_name.final.log] == ["QMNAME_AMBIGUOUS"]
    reset = run_scenario(scenario(RECREATED + '[[steps]]\nmqsc = { qmgr = "FR1", commands = '
                                  '"RESET CLUSTER(DEMO) ACTION(FORCEREMOVE) QMID(\'PR1_1\') QUEUES(YES)" }\n'))
    for qmgr in ("FR1", "FR2", "PR1"):
        assert view(reset.final, qmgr)["qmgrs"] == ["FR1", "FR2", "PR1"], qmgr
    assert {r.owner for r in reset.final.qmgr("FR2").cache("DEMO").live()} == {"FR1_1", "FR2_1", "PR1_2"}


def test_reset_by_qmname_of_a_deleted_queue_manager():
    text = TWO_FRS + pr("PR1", "FR1", "DEFINE QLOCAL(CQ1) CLUSTER(DEMO)") + pr("PR2", "FR2") + """
[[steps]]
open = { qmgr = "PR2", handle = "h", queue = "CQ1" }
[[steps]]
qmgr = { name = "PR1", action = "delete" }
[[steps]]
mqsc = { qmgr = "FR2", commands = "RESET CLUSTER(DEMO) ACTION(FORCEREMOVE) QMNAME(PR1) QUEUES(YES)" }
"""
    final = run_scenario(scenario(text)).final
    for qmgr in ("FR1", "FR2", "PR2"):
        assert "PR1" not in view(final, qmgr)["qmgrs"], qmgr
        assert view(final, qmgr)["queues"] == {}, qmgr


# ---------------------------------------------------------------------------------------
# Time: 30-day republishing, missing refreshes, 60/90-day expiry (DESIGN §3.4)
# ---------------------------------------------------------------------------------------
def test_republish_and_expiry():
    base = TWO_FRS + pr("PR1", "FR1", "DEFINE QLOCAL(CQ1) CLUSTER(DEMO)\nDEFINE TOPIC(T1) TOPICSTR('Sport') CLUSTER(DEMO)")
    alive = run_scenario(scenario(base + '[[steps]]\nadvance = { days = 31 }\n[[steps]]\nadvance = { days = 31 }\n'
                                  '[[steps]]\nadvance = { days = 31 }\n')).final
    records = [r for r in alive.qmgr("FR2").cache("DEMO").live() if r.owner_name == "PR1"]
    assert {r.published for r in records} == {93}  # republished by the running owner
    assert alive.log == ()
    stopped = base + '[[steps]]\nqmgr = { name = "PR1", action = "stop" }\n'
    after_31 = run_scenario(scenario(stopped + '[[steps]]\nadvance = { days = 31 }\n')).final
    assert {e.code for e in after_31.log} == {"REFRESH_MISSING"}
    assert view(after_31, "FR2")["topics"] == ["Sport"]
    after_61 = run_scenario(scenario(stopped + '[[steps]]\nadvance = { days = 61 }\n')).final
    assert view(after_61, "FR2")["topics"] == []  # topics expire after 60 days
    assert "PR1" in view(after_61, "FR2")["qmgrs"]
    after_91 = run_scenario(scenario(stopped + '[[steps]]\nadvance = { days = 91 }\n')).final
    assert "PR1" not in view(after_91, "FR2")["qmgrs"]  # queue managers after 90
    assert view(after_91, "FR2")["queues"] == {}


def test_cluster_topic_records_reach_every_member():
    # 002 §Cluster topics: "Information about cluster topics is pushed to all members"
    text = TWO_FRS + pr("PR1", "FR1") + pr("PR2", "FR2") + \
        '\n[[steps]]\nmqsc = { qmgr = "PR1", commands = "DEFINE TOPIC(SPORTS) TOPICSTR(\'Sports\') CLUSTER(DEMO)" }\n'
    final = run_scenario(scenario(text)).final
    for qmgr in ("FR1", "FR2", "PR1", "PR2"):
        assert view(final, qmgr)["topics"] == ["Sports"], qmgr
    # and, a pub/sub cluster existing, every member knows every queue manager
    assert set(view(final, "PR2")["qmgrs"]) == {"FR1", "FR2", "PR1", "PR2"}


def test_sequence_numbers_discard_stale_copies():
    cache = rp.ClusterCache("DEMO")
    info = rp.QueueInfo()
    new = rp.Record(rp.QUEUE, "DEMO", "CQ1", "PR1_1", "PR1", 5, info=info)
    old = rp.Record(rp.QUEUE, "DEMO", "CQ1", "PR1_1", "PR1", 4, info=rp.QueueInfo(put="DISABLED"))
    cache, applied = rp.apply_record(cache, new)
    assert applied
    cache, applied = rp.apply_record(cache, old)
    assert not applied and cache.discarded
    cache, applied = rp.apply_record(cache, new)  # a duplicate
    assert not applied
    assert cache.get(new.ident) == new


# ---------------------------------------------------------------------------------------
# Mutants: deliberately broken protocols the checker must catch with a short trace
# ---------------------------------------------------------------------------------------
UPDATES_RACE = TWO_FRS + pr("PR1", "FR1") + """
[[steps]]
mqsc = { qmgr = "PR1", commands = "DEFINE QLOCAL(CQ1) CLUSTER(DEMO)" }
[[steps]]
mqsc = { qmgr = "PR1", commands = "ALTER QLOCAL(CQ1) PUT(DISABLED)" }
"""

MESH_COMPLETE = 'name = "mesh"\n' + "".join(
    f"""
[qmgrs.{n}]
mqsc = '''
ALTER QMGR REPOS(DEMO)
DEFINE CHANNEL(TO.{n}) CHLTYPE(CLUSRCVR) CONNAME('{n.lower()}(1414)') CLUSTER(DEMO)
""" + "".join(f"DEFINE CHANNEL({n}.TO.{m}) CHLTYPE(CLUSSDR) CONNAME('{m.lower()}(1414)') CLUSTER(DEMO)\n"
              for m in ("FR1", "FR2", "FR3") if m != n) + "'''\n"
    for n in ("FR1", "FR2", "FR3")) + """
[qmgrs.PR1]
[[steps]]
mqsc = { qmgr = "PR1", commands = '''
DEFINE CHANNEL(TO.PR1) CHLTYPE(CLUSRCVR) CONNAME('pr1(1414)') CLUSTER(DEMO)
DEFINE CHANNEL(TO.FR1) CHLTYPE(CLUSSDR) CONNAME('fr1(1414)') CLUSTER(DEMO)
''' }
[[steps]]
mqsc = { qmgr = "PR1", commands = "DEFINE QLOCAL(CQ1) CLUSTER(DEMO)" }
"""


@pytest.mark.parametrize(
    "text,mutation,property_id,max_trace",
    [
        (UPDATES_RACE, Mutations(ignore_sequence_numbers=True), "RP-NO-STALE-APPLY", 8),
        (UPDATES_RACE, Mutations(publish_to_one_fr=True), "RP-TWO-FRS", 3),
        (MESH_COMPLETE, Mutations(fr_forwarding_swapped=True), "RP-FR-CONVERGENCE", 6),
    ],
    ids=["sequence-numbers-ignored", "publish-to-one-fr", "fr-forwarding-swapped"],
)
def test_mutants_are_caught(text, mutation, property_id, max_trace):
    sc = scenario(text)
    honest = explore(MQNetwork(sc, PROPERTIES), property_ids=[property_id])
    assert honest.verdicts[property_id].status is Status.HOLDS
    broken = explore(MQNetwork(sc, PROPERTIES, mutations=mutation), property_ids=[property_id])
    verdict = broken.verdicts[property_id]
    assert verdict.status is Status.VIOLATED
    assert verdict.trace.length <= max_trace


def test_one_fault_anywhere_does_not_break_a_complete_mesh():
    # Faults (DESIGN §2.1 / issue #5): a channel into RETRYING or a queue manager stopping,
    # then recovering. Messages wait on the transmission queue and flow again, so full
    # repositories that are fully connected still converge in every settled state.
    sc = scenario(MESH_COMPLETE)
    plain = explore(MQNetwork(sc, PROPERTIES, faults=0), property_ids=["RP-FR-CONVERGENCE"])
    faulty = explore(MQNetwork(sc, PROPERTIES, faults=1), property_ids=["RP-FR-CONVERGENCE", "RP-PR-CONVERGENCE"])
    assert faulty.statistics.distinct_states > plain.statistics.distinct_states
    assert faulty.verdicts["RP-FR-CONVERGENCE"].status is Status.HOLDS
    assert faulty.verdicts["RP-PR-CONVERGENCE"].status is Status.HOLDS
    model = MQNetwork(sc, PROPERTIES, faults=1)
    (s,) = model.init_states()
    kinds = {type(a).__name__ for a in model.actions(model.next_state(s, ScenarioStep(0)))}
    assert {"ChannelFail", "QmgrStop", "ChannelDeliver", "ScenarioStep"} <= kinds


def test_a_member_defined_before_its_full_repository_still_joins():
    # The initial MQSC runs queue manager by queue manager (in name order): AAPR's manual
    # CLUSSDR reaches nothing until ZFR1's CLUSRCVR exists. Like a channel in RETRYING, it
    # joins once the listener is there.
    text = 'name = "order"\n' + pr("AAPR", "ZFR1") + fr("ZFR1", "ZFR2") + fr("ZFR2", "ZFR1")
    final = run_scenario(scenario(text)).final
    for qmgr in ("ZFR1", "ZFR2"):
        assert set(view(final, qmgr)["qmgrs"]) == {"AAPR", "ZFR1", "ZFR2"}, qmgr
    # AAPR learns the FRs ZFR1 knew when it answered (003: "When it does this, it
    # immediately learns which other queue managers in the cluster hold full repositories")
    assert "ZFR1" in view(final, "AAPR")["qmgrs"] and not final.qmgr("AAPR").cache("DEMO").tempqmgr
    # and a CLUSRCVR defined in a later step lets a waiting CLUSSDR through
    late = 'name = "late"\n' + pr("PR1", "FR1") + "[qmgrs.FR1]\n" + """
[[steps]]
mqsc = { qmgr = "FR1", commands = '''
ALTER QMGR REPOS(DEMO)
DEFINE CHANNEL(TO.FR1) CHLTYPE(CLUSRCVR) CONNAME('fr1(1414)') CLUSTER(DEMO)
''' }
"""
    final = run_scenario(scenario(late)).final
    assert view(final, "PR1")["qmgrs"] == ["FR1", "PR1"]
    assert view(final, "FR1")["qmgrs"] == ["FR1", "PR1"]
