"""Cluster repositories (issue #5): seed walkthroughs step by step, the clock, and mutants
the checker must catch with short traces.

Walkthroughs drive spec.network's MQNetwork one action at a time, as the seeds narrate
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
from spec.network import (
    ChannelDeliver, MQNetwork, Mutations, ScenarioStep, messages_of, repositories_of, run_scenario, settle,
)


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


def test_a_new_instance_reaches_the_subscriber_through_both_full_repositories():
    """000 §WMQ Cluster Architecture, steps (7)-(11): "the creation of a new instance of a
    cluster queue ... being used by a request (7). This information is propagated from the
    reply queue manager (8). The Full Repository propagates the definition to the other Full
    Repository (9) and the Full Repository propagates it to any interested request QMs
    (10), allowing this new instance to be used during an MQOPEN, MQPUT or MQPUT1 call (11)."
    PR3 (joined through FR1) uses CQ1 on PR1; PR2 (joined through FR2) defines a second
    instance. A BIND_NOT_FIXED handle opened before the change uses it; a BIND_ON_OPEN
    handle opened before stays where it was bound (001: the algorithm runs at MQOPEN)."""
    text = (TWO_FRS + pr("PR1", "FR1", "DEFINE QLOCAL(CQ1) CLUSTER(DEMO)") + pr("PR2", "FR2") + pr("PR3", "FR1") + """
[[steps]]
open = { qmgr = "PR3", handle = "nf", queue = "CQ1", bind = "NOT_FIXED" }
[[steps]]
open = { qmgr = "PR3", handle = "oo", queue = "CQ1", bind = "ON_OPEN" }
[[steps]]
put = { handle = "nf", count = 1 }
[[steps]]
mqsc = { qmgr = "PR2", commands = "DEFINE QLOCAL(CQ1) CLUSTER(DEMO)" }
[[steps]]
put = { handle = "nf", count = 4 }
[[steps]]
put = { handle = "oo", count = 2 }
""")
    model = MQNetwork(scenario(text))
    (s,) = model.init_states()
    for _ in range(3):  # the opens and the first put
        s = deliver_all(model, step(model, s))
    assert view(s, "PR3")["queues"] == {"CQ1": ["PR1"]}
    s = step(model, s)  # (7)-(8): PR2 publishes to the FR it joined through and to one other
    assert sorted(c.dst for c in s.channels if c.src == "PR2" and c.messages) == ["FR1", "FR2"]
    s = deliver(model, s, "PR2", "FR2")
    # (10): FR2 tells its subscriber PR3 (PR3 subscribed for CQ1 at both FRs)
    assert any(m.op == "UPDATE" and any(r.key == "CQ1" and r.owner_name == "PR2" for r in m.records)
               for c in s.channels if (c.src, c.dst) == ("FR2", "PR3") for m in c.messages)
    s = deliver_all(model, s)
    assert view(s, "PR3")["queues"] == {"CQ1": ["PR1", "PR2"]}
    assert view(s, "FR1")["queues"] == {"CQ1": ["PR1", "PR2"]}  # (9): the other FR has it too
    s = deliver_all(model, step(model, s))  # (11): MQPUT balances over both instances
    s = deliver_all(model, step(model, s))
    assert messages_of(s) == {"nf": {"PR1": 3, "PR2": 2}, "oo": {"PR1": 2}}


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


# ---------------------------------------------------------------------------------------
# Audit of issue #5: each defect as the seed states the rule it broke
# ---------------------------------------------------------------------------------------
from dataclasses import replace as _replace  # noqa: E402

from properties import repository as rprops  # noqa: E402
from spec.network import ChannelRecover, QmgrStart, QmgrStop  # noqa: E402

FIVE = TWO_FRS + pr("PR1", "FR1", "DEFINE QLOCAL(CQ1) CLUSTER(DEMO)\nDEFINE QLOCAL(CQ2) CLUSTER(DEMO)") + \
    pr("PR2", "FR2", "DEFINE QLOCAL(CQ1) CLUSTER(DEMO)") + pr("PR3", "FR1")

BROKEN_MESH = 'name = "broken"\n' + "".join(
    f"""
[qmgrs.{n}]
mqsc = '''
ALTER QMGR REPOS(DEMO)
DEFINE CHANNEL(TO.{n}) CHLTYPE(CLUSRCVR) CONNAME('{n.lower()}(1414)') CLUSTER(DEMO)
""" + "".join(f"DEFINE CHANNEL({n}.TO.{m}) CHLTYPE(CLUSSDR) CONNAME('{m.lower()}(1414)') CLUSTER(DEMO)\n"
              for m in targets) + "'''\n"
    for n, targets in (("FR1", ["FR2"]), ("FR2", ["FR1"]), ("FR3", ["FR1", "FR2"])))


def without_in_flight(state):
    """The same state with every transmission queue emptied (settled by force)."""
    return _replace(state, channels=tuple(_replace(c, messages=()) for c in state.channels))


def test_a_stopped_queue_manager_does_not_hide_the_lost_update():
    # 000 §Resource definition for Full Repositories: FRs must be "a fully connected set";
    # a queue manager stopped for maintenance elsewhere must not stop that being checked.
    text = BROKEN_MESH + "[qmgrs.PR1]\n[qmgrs.APP9]\n" + """
[[steps]]
qmgr = { name = "APP9", action = "stop" }
[[steps]]
mqsc = { qmgr = "PR1", commands = '''
DEFINE CHANNEL(TO.PR1) CHLTYPE(CLUSRCVR) CONNAME('pr1(1414)') CLUSTER(DEMO)
DEFINE CHANNEL(TO.FR1) CHLTYPE(CLUSSDR) CONNAME('fr1(1414)') CLUSTER(DEMO)
''' }
"""
    model = MQNetwork(scenario(text), PROPERTIES)
    result = explore(model, property_ids=["RP-FR-CONVERGENCE", "RP-FRS-SETTLED"])
    assert result.verdicts["RP-FR-CONVERGENCE"].status is Status.VIOLATED
    # the witness is not met by the initial state (settled by construction, proves nothing)
    (s,) = model.init_states()
    assert rprops.settled(s) and not rprops.frs_settled_together(model, s)
    assert rprops.frs_settled_together(model, step(model, s))  # APP9 stopped: still judged


def test_messages_held_by_a_stopped_queue_manager_are_delayed_not_settled():
    model = MQNetwork(scenario(FIVE + '[[steps]]\nmqsc = { qmgr = "PR1", commands = "DEFINE QLOCAL(CQ3) CLUSTER(DEMO)" }\n'),
                      PROPERTIES, faults=1)
    (s,) = model.init_states()
    s = step(model, s)
    assert not rprops.settled(s)
    stopped = model.next_state(s, QmgrStop("PR1"))
    assert not rprops.settled(stopped)  # PR1's updates wait in its transmission queue
    gone = model.next_state(deliver_all(model, s), QmgrStop("PR3"))
    assert rprops.settled(gone)  # nothing in flight to a running queue manager


def test_refresh_cluster_at_a_full_repository_rebuilds_it_from_the_others():
    # 002 §REFRESH CLUSTER considerations / 000 §Refreshing repository information: the
    # refreshed repository's information "will then be rebuilt over time, by requesting it
    # from the Full Repositories"
    text = FIVE + '[[steps]]\nmqsc = { qmgr = "FR1", commands = "REFRESH CLUSTER(DEMO)" }\n'
    final = run_scenario(scenario(text)).final
    assert view(final, "FR1") == view(final, "FR2")
    assert view(final, "FR1")["queues"] == {"CQ1": ["PR1", "PR2"], "CQ2": ["PR1"]}
    model = MQNetwork(scenario(text), PROPERTIES)
    result = explore(model, property_ids=["RP-REFRESH-RESTORES", "RP-REFRESHED", "RP-FR-CONVERGENCE"])
    assert {v.status for v in result.verdicts.values()} == {Status.HOLDS, Status.WITNESSED}
    # RP-REFRESH-RESTORES compares a refreshed FR with the other FRs: a wiped FR fails it
    (s,) = model.init_states()
    wiped = without_in_flight(step(model, s))
    assert rprops.settled(wiped) and not rprops.refresh_restores(model, wiped)


def test_a_refreshed_partial_repository_whose_manual_full_repository_was_deleted_is_rebuilt():
    # Session 32's fuzzing (seed 9209): PR3's only manual CLUSSDR names FR1, which is deleted
    # and then removed by RESET CLUSTER at FR2 (000 §Incorrectly deleted queue managers).
    # REFRESH CLUSTER at PR3 rebuilds it from FR2, which it still knows (000 §Refreshing
    # repository information), but its manual CLUSSDR shows SYSTEM.TEMPQMGR again and nothing
    # listens at FR1's address to answer it (000 §Initial definitions). RP-REFRESH-RESTORES
    # counts only an entry that a running full repository could answer.
    text = TWO_FRS + pr("PR3", "FR1") + """
[[steps]]
qmgr = { name = "FR1", action = "delete" }
[[steps]]
mqsc = { qmgr = "FR2", commands = "RESET CLUSTER(DEMO) ACTION(FORCEREMOVE) QMNAME(FR1)" }
[[steps]]
mqsc = { qmgr = "PR3", commands = "REFRESH CLUSTER(DEMO)" }
"""
    model = MQNetwork(scenario(text), PROPERTIES)
    final = run_scenario(scenario(text)).final
    assert view(final, "PR3")["qmgrs"] == ["FR2", "PR3", "SYSTEM.TEMPQMGR.fr1(1414)"]
    assert rprops.settled(final) and final.qmgr("PR3").cache("DEMO").refreshed
    assert rprops.refresh_restores(model, final)
    result = explore(model, property_ids=["RP-REFRESH-RESTORES", "RP-REFRESHED"])
    assert result.verdicts["RP-REFRESH-RESTORES"].status is Status.HOLDS
    assert result.verdicts["RP-REFRESHED"].status is Status.WITNESSED
    # an entry that the running FR2 would answer is still a repository not rebuilt
    pr3 = final.qmgr("PR3")
    waiting = _replace(pr3, caches=tuple(_replace(c, tempqmgr=c.tempqmgr + ("fr2(1414)",)) for c in pr3.caches))
    unanswered = _replace(final, qmgrs=tuple(waiting if q.name == "PR3" else q for q in final.qmgrs))
    assert not rprops.refresh_restores(model, unanswered)


def test_a_full_repository_added_to_a_running_cluster_learns_every_member():
    # 003 §Queue managers and repositories: "All repositories are kept in step with each
    # other by exchanging messages"
    text = FIVE + "[qmgrs.FR3]\n" + """
[[steps]]
mqsc = { qmgr = "FR3", commands = '''
ALTER QMGR REPOS(DEMO)
DEFINE CHANNEL(TO.FR3) CHLTYPE(CLUSRCVR) CONNAME('fr3(1414)') CLUSTER(DEMO)
DEFINE CHANNEL(TO.FR1) CHLTYPE(CLUSSDR) CONNAME('fr1(1414)') CLUSTER(DEMO)
DEFINE CHANNEL(TO.FR2) CHLTYPE(CLUSSDR) CONNAME('fr2(1414)') CLUSTER(DEMO)
''' }
[[steps]]
mqsc = { qmgr = "FR1", commands = "DEFINE CHANNEL(FR1.TO.FR3) CHLTYPE(CLUSSDR) CONNAME('fr3(1414)') CLUSTER(DEMO)" }
[[steps]]
mqsc = { qmgr = "FR2", commands = "DEFINE CHANNEL(FR2.TO.FR3) CHLTYPE(CLUSSDR) CONNAME('fr3(1414)') CLUSTER(DEMO)" }
"""
    final = run_scenario(scenario(text)).final
    assert view(final, "FR3") == view(final, "FR1") == view(final, "FR2")
    assert view(final, "FR3")["qmgrs"] == ["FR1", "FR2", "FR3", "PR1", "PR2", "PR3"]
    result = explore(MQNetwork(scenario(text), PROPERTIES), property_ids=["RP-FR-CONVERGENCE"])
    assert result.verdicts["RP-FR-CONVERGENCE"].status is Status.HOLDS


def test_deleting_the_last_cluster_topic_reaches_every_member():
    # 002 §Cluster topics: "Information about cluster topics is pushed to all members"
    text = TWO_FRS + pr("PR1", "FR1", "DEFINE TOPIC(SPORTS) TOPICSTR('Sports') CLUSTER(DEMO)") + pr("PR2", "FR2") + \
        '[[steps]]\nmqsc = { qmgr = "PR1", commands = "DELETE TOPIC(SPORTS)" }\n'
    model = MQNetwork(scenario(text), PROPERTIES)
    (s,) = model.init_states()
    assert view(s, "PR2")["topics"] == ["Sports"]
    final = run_scenario(scenario(text)).final
    for qmgr in ("FR1", "FR2", "PR1", "PR2"):
        assert view(final, qmgr)["topics"] == [], qmgr
    result = explore(model, property_ids=["RP-TOPIC-EVERYWHERE", "RP-TOPIC-AT-MEMBER"])
    assert result.verdicts["RP-TOPIC-EVERYWHERE"].status is Status.HOLDS
    assert result.verdicts["RP-TOPIC-AT-MEMBER"].status is Status.WITNESSED
    # equality, not inclusion: a member still holding the deleted topic fails the property
    stale = without_in_flight(step(model, s))  # PR1 deleted it; nobody else heard
    assert rprops.settled(stale) and not rprops.topics_everywhere(model, stale)


def test_refresh_cluster_undoes_a_reset_cluster_issued_in_error():
    # 000 §Refreshing repository information: a reason to refresh is that "RESET CLUSTER
    # ACTION(FORCEREMOVE) was issued in error"
    base = FIVE + """
[[steps]]
open = { qmgr = "PR3", handle = "h1", queue = "CQ1" }
[[steps]]
mqsc = { qmgr = "FR1", commands = "RESET CLUSTER(DEMO) ACTION(FORCEREMOVE) QMNAME(PR1) QUEUES(YES)" }
"""
    removed = run_scenario(scenario(base)).final
    assert "PR1" not in view(removed, "FR2")["qmgrs"] and view(removed, "PR3")["queues"] == {"CQ1": ["PR2"]}
    final = run_scenario(scenario(base + '[[steps]]\nmqsc = { qmgr = "PR1", commands = "REFRESH CLUSTER(DEMO)" }\n')).final
    for qmgr in ("FR1", "FR2"):
        assert view(final, qmgr)["qmgrs"] == ["FR1", "FR2", "PR1", "PR2", "PR3"], qmgr
        assert view(final, qmgr)["queues"] == {"CQ1": ["PR1", "PR2"], "CQ2": ["PR1"]}, qmgr
    assert view(final, "PR3")["queues"] == {"CQ1": ["PR1", "PR2"]}
    # a copy sent before the removal stays stale when it arrives late; the re-join is newer
    cache = final.qmgr("FR1").cache("DEMO")
    assert cache.qmgr_record_of("PR1").seq > removed.qmgr("FR1").cache("DEMO").get(
        (rp.QMGR, "DEMO", "PR1_1", "")).seq


def test_a_late_copy_of_a_removed_record_is_discarded():
    tomb = rp.Record(rp.QMGR, "DEMO", "", "PR1_1", "PR1", 3, deleted=True,
                     info=rp.QmgrInfo("TO.PR1", "pr1(1414)", False))
    cache = rp.remove_owner(rp.ClusterCache("DEMO"), "PR1_1", (tomb,))
    late, applied = rp.apply_record(cache, _replace(tomb, deleted=False))
    assert not applied and late.discarded
    newer, applied = rp.apply_record(cache, _replace(tomb, deleted=False, seq=4))
    assert applied and newer.qmgr_record_of("PR1") is not None


def test_expiry_follows_the_refresh_that_arrives_not_the_owner_running():
    # DESIGN §3.4 / 002 §Key roles: members log when an expected refresh is missing, and
    # records not refreshed expire: PR1 runs, but both its channels to the FRs are stopped
    text = FIVE + """
[[steps]]
channel = { qmgr = "PR1", to = "FR1", status = "STOPPED" }
[[steps]]
channel = { qmgr = "PR1", to = "FR2", status = "STOPPED" }
[[steps]]
advance = { days = 31 }
"""
    after_31 = run_scenario(scenario(text)).final
    assert {(e.qmgr, e.code) for e in after_31.log} >= {("FR1", "REFRESH_MISSING"), ("FR2", "REFRESH_MISSING")}
    after_91 = run_scenario(scenario(text + '[[steps]]\nadvance = { days = 60 }\n')).final
    assert "PR1" not in view(after_91, "FR2")["qmgrs"]
    assert view(after_91, "FR2")["queues"] == {"CQ1": ["PR2"]}
    running = run_scenario(scenario(FIVE + '[[steps]]\nadvance = { days = 91 }\n')).final
    assert running.log == () and "PR1" in view(running, "FR2")["qmgrs"]


def test_a_queue_manager_restarted_after_expiry_is_relearnt():
    # 000 §Incorrectly deleted queue managers ("up to 90 days"): the owner republishes
    # when it starts again, overdue as its records are
    text = FIVE + """
[[steps]]
open = { qmgr = "PR3", handle = "h1", queue = "CQ1" }
[[steps]]
qmgr = { name = "PR1", action = "stop" }
[[steps]]
advance = { days = 91 }
"""
    expired = run_scenario(scenario(text)).final
    assert "PR1" not in view(expired, "FR1")["qmgrs"]
    final = run_scenario(scenario(text + '[[steps]]\nqmgr = { name = "PR1", action = "start" }\n')).final
    assert view(final, "FR1")["qmgrs"] == ["FR1", "FR2", "PR1", "PR2", "PR3"]
    assert view(final, "FR2")["queues"] == {"CQ1": ["PR1", "PR2"], "CQ2": ["PR1"]}
    assert view(final, "PR3")["queues"] == {"CQ1": ["PR1", "PR2"]}


def test_tempqmgr_is_cleared_when_the_conname_is_spelled_differently():
    # 000 §Initial definitions: SYSTEM.TEMPQMGR "will be changed when the Partial Repository
    # has communicated with the Full Repository"; 'FR1' is fr1(1414) (default port)
    text = TWO_FRS + """
[qmgrs.PRF]
mqsc = '''
DEFINE CHANNEL(TO.PRF) CHLTYPE(CLUSRCVR) CONNAME('prf') CLUSTER(DEMO)
DEFINE CHANNEL(TO.FR1) CHLTYPE(CLUSSDR) CONNAME('FR1') CLUSTER(DEMO)
'''
"""
    report = run_scenario(scenario(text))
    assert view(report.final, "PRF")["qmgrs"] == ["FR1", "FR2", "PRF"]
    assert report.not_joined == ()
    model = MQNetwork(scenario(text), PROPERTIES, explore_initial=True)
    result = explore(model, property_ids=["RP-TEMPQMGR", "RP-TEMPQMGR-SHOWN"])
    assert result.verdicts["RP-TEMPQMGR"].status is Status.HOLDS


@pytest.mark.parametrize(
    "qmgr_mqsc,steps,who,reason",
    [
        ("DEFINE CHANNEL(TO.FR1) CHLTYPE(CLUSSDR) CONNAME('fr1(1414)') CLUSTER(DEMO)", "", "PR1",
         "PR1 has no CLUSRCVR for cluster DEMO"),
        ("", '[[steps]]\nchannel = { qmgr = "FR1", to = "PR1", status = "RETRYING" }\n'
             '[[steps]]\nmqsc = { qmgr = "PR1", commands = """\n'
             "DEFINE CHANNEL(TO.PR1) CHLTYPE(CLUSRCVR) CONNAME('pr1(1414)') CLUSTER(DEMO)\n"
             "DEFINE CHANNEL(TO.FR1) CHLTYPE(CLUSSDR) CONNAME('fr1(1414)') CLUSTER(DEMO)\n\"\"\" }\n", "PR1",
         "the channel from FR1 back to PR1 is RETRYING — check channel status from the Full to the Partial"),
    ],
    ids=["only-a-clussdr", "channel-back-retrying"],
)
def test_not_joined_reports_the_actual_state(qmgr_mqsc, steps, who, reason):
    # 000 §Checking initial definitions
    text = TWO_FRS + f"[qmgrs.PR1]\nmqsc = '''\n{qmgr_mqsc}\n'''\n" + steps
    report = run_scenario(scenario(text))
    assert [(q, why) for q, why in report.not_joined if reason in why] == [(who, report.not_joined[0][1])]


def test_a_joined_member_is_not_reported_after_its_full_repository_is_demoted():
    text = FIVE + '[[steps]]\nmqsc = { qmgr = "FR1", commands = "ALTER QMGR REPOS(\' \')" }\n'
    assert run_scenario(scenario(text)).not_joined == ()


def test_a_scenario_channel_status_stays_until_a_later_step():
    # run and check agree: only a fault-injected failure recovers by itself
    text = FIVE + """
[[steps]]
channel = { qmgr = "FR1", to = "PR3", status = "RETRYING" }
[[steps]]
open = { qmgr = "PR3", handle = "h1", queue = "CQ1" }
"""
    model = MQNetwork(scenario(text), PROPERTIES, faults=1)
    (s,) = model.init_states()
    s = step(model, s)
    assert not any(isinstance(a, ChannelRecover) for a in model.actions(s))
    assert model.next_state(s, ChannelRecover("FR1", "PR3")) is None
    ran = run_scenario(scenario(text)).final
    assert ran.channel("FR1", "PR3").status == "RETRYING"


def test_faults_are_environment_actions_not_internal_ones():
    model = MQNetwork(scenario(FIVE), PROPERTIES, faults=1)
    assert model.is_internal(ChannelDeliver("A", "B"))
    assert not any(model.is_internal(a) for a in (QmgrStop("A"), QmgrStart("A"), ChannelRecover("A", "B"),
                                                   ScenarioStep(0)))


def test_stop_channel_naming_an_auto_defined_clussdr():
    # 003 §Auto-definition of channels: the auto-defined CLUSSDR takes the CLUSRCVR's name
    text = FIVE + '[[steps]]\nmqsc = { qmgr = "FR1", commands = "STOP CHANNEL(TO.PR3)" }\n'
    final = run_scenario(scenario(text)).final
    assert final.channel("FR1", "PR3").status == "STOPPED"
    unknown = run_scenario(scenario(FIVE + '[[steps]]\nmqsc = { qmgr = "FR1", commands = "STOP CHANNEL(NOPE)" }\n'))
    assert [e.code for e in unknown.final.log] == ["CHANNEL_NOT_FOUND"]


def test_queue_hosts_are_shown_by_qmid_when_a_name_has_two():
    # 000 §Incorrectly deleted queue managers: the recreated queue manager is a second one
    final = run_scenario(scenario(RECREATED)).final
    assert view(final, "FR2")["queues"] == {"CQ1": ["PR1_1", "PR1_2"]}
    assert view(final, "FR1")["qmgrs"] == ["FR1", "FR2", "PR1_1", "PR1_2"]


def test_reset_cluster_away_from_a_full_repository_and_recreate_of_an_existing_qmgr_are_refused():
    # 000 §Incorrectly deleted queue managers: RESET CLUSTER "has to be run on a Full Repository"
    text = FIVE + """
[[steps]]
mqsc = { qmgr = "PR2", commands = "RESET CLUSTER(DEMO) ACTION(FORCEREMOVE) QMNAME(PR1) QUEUES(YES)" }
[[steps]]
qmgr = { name = "PR3", action = "recreate" }
"""
    report = run_scenario(scenario(text))
    assert [e.qmgr for e in report.final.log] == ["PR2", "PR3"]
    assert "must be issued on a full repository" in report.final.log[0].detail
    assert report.final.log[1].code == "AMQ8110"
    assert not any(e.code.startswith("AMQ9XXX") for e in report.final.log)
    assert report.final.qmgr("PR3").incarnation == 1 and "PR1" in view(report.final, "FR1")["qmgrs"]


def test_repository_messages_print_without_double_spaces():
    msg = rp.RepoMsg(rp.REMOVE, "DEMO", "FR1_1", "FR1", True, removed="PR1_1")
    assert str(msg) == "REMOVE[DEMO] removed=PR1_1"
    sub = rp.RepoMsg(rp.SUBSCRIBE, "DEMO", "PR3_1", "PR3", False, keys=((rp.QUEUE, "CQ1"),))
    assert str(sub) == "SUBSCRIBE[DEMO] keys=[('QUEUE', 'CQ1')]"


def test_after_refresh_a_partial_repository_resubscribes_at_two_full_repositories():
    # 000 §First MQOPEN of a Queue: "The subscription request is sent to 2 Full Repositories"
    text = FIVE + '[[steps]]\nopen = { qmgr = "PR3", handle = "h1", queue = "CQ1" }\n' + \
        '[[steps]]\nmqsc = { qmgr = "PR3", commands = "REFRESH CLUSTER(DEMO)" }\n'
    model = MQNetwork(scenario(text))
    (s,) = model.init_states()
    s = step(model, deliver_all(model, step(model, s)))
    subs = sorted(c.dst for c in s.channels if c.src == "PR3" for m in c.messages if m.op == rp.SUBSCRIBE)
    assert subs == ["FR1", "FR2"]


def test_reset_cluster_after_the_queue_manager_withdrew_its_channels():
    # 004 §Adding and removing queue managers: delete the cluster channels, RESET CLUSTER
    # from a full repository, then delete the queue manager
    text = FIVE + """
[[steps]]
mqsc = { qmgr = "PR1", commands = '''
DELETE CHANNEL(TO.FR1)
DELETE CHANNEL(TO.PR1)
''' }
[[steps]]
mqsc = { qmgr = "FR1", commands = "RESET CLUSTER(DEMO) ACTION(FORCEREMOVE) QMNAME(PR1) QUEUES(YES)" }
[[steps]]
qmgr = { name = "PR1", action = "delete" }
"""
    final = run_scenario(scenario(text)).final
    assert final.log == ()
    for qmgr in ("FR1", "FR2", "PR3"):
        assert "PR1" not in view(final, qmgr)["qmgrs"], qmgr
    assert view(final, "FR2")["queues"] == {"CQ1": ["PR2"]}


# ---------------------------------------------------------------------------------------
# 002 §Inhibiting clustered publish/subscribe in a cluster
# ---------------------------------------------------------------------------------------
def _psclus_frs(fr_psclus: str) -> str:
    frs = "".join(fr(n, o).replace(f"REPOS(DEMO)", f"REPOS(DEMO) PSCLUS({fr_psclus})")
                  for n, o in (("FR1", "FR2"), ("FR2", "FR1")))
    return 'name = "psclus"\n' + frs + pr("PR1", "FR1") + pr("PR2", "FR1") + """
[[steps]]
mqsc = { qmgr = "PR1", commands = "DEFINE TOPIC(OOPS) TOPICSTR('Oops') CLUSTER(DEMO)" }
[[steps]]
subscribe = { qmgr = "PR2", name = "S", topic = "Oops/x" }
[[steps]]
publish = { qmgr = "PR1", topic = "Oops/x" }
"""


@pytest.mark.parametrize(
    "fr_psclus,topic_at,delivered,refusals",
    [
        # 002: "setting PSCLUS to DISABLED on all full repository queue managers in the
        # cluster prevents any clustered topic definition on an incorrectly configured
        # partial repository from affecting other queue managers in the cluster. In such
        # scenarios, the inconsistency is reported in the error logs of the full repository
        # queue managers."
        ("DISABLED", {"FR1": [], "FR2": [], "PR1": ["Oops"], "PR2": []}, [], {"FR1", "FR2"}),
        # the contrast: 002 §Cluster topics, the topic is pushed to every member
        ("ENABLED", {"FR1": ["Oops"], "FR2": ["Oops"], "PR1": ["Oops"], "PR2": ["Oops"]}, ["Oops/x"], set()),
    ],
)
def test_psclus_disabled_at_every_full_repository_stops_a_stray_cluster_topic(fr_psclus, topic_at, delivered,
                                                                              refusals):
    from spec.network import deliveries_of
    sc = scenario(_psclus_frs(fr_psclus))
    final = run_scenario(sc).final
    assert {q: view(final, q)["topics"] for q in topic_at} == topic_at
    assert deliveries_of(final)["PR2"]["S"] == delivered
    refused = {e.qmgr for e in final.log if e.code == "PSCLUS_DISABLED" and "cluster topic" in e.detail}
    assert refused == refusals
    # and the checker agrees in every interleaving (the owner alone keeps its topic)
    from properties.pubsub import PROPERTIES as PS
    result = explore(MQNetwork(sc, PROPERTIES + PS), property_ids=["RP-TOPIC-EVERYWHERE", "PS-PROXY-CONVERGENCE"])
    assert result.verdicts["RP-TOPIC-EVERYWHERE"].status is Status.HOLDS
    assert result.verdicts["PS-PROXY-CONVERGENCE"].status is Status.HOLDS


REFRESH_WHILE_AN_FR_IS_DOWN = """
name = "REFRESH CLUSTER at a partial repository while the full repository of its manual CLUSSDR is down"
[qmgrs.FR1]
mqsc = '''
ALTER QMGR REPOS(INV)
DEFINE CHANNEL(INV.FR1) CHLTYPE(CLUSRCVR) CONNAME('fr1(1414)') CLUSTER(INV)
DEFINE CHANNEL(INV.FR2) CHLTYPE(CLUSSDR) CONNAME('fr2(1414)') CLUSTER(INV)
'''
[qmgrs.FR2]
mqsc = '''
ALTER QMGR REPOS(INV)
DEFINE CHANNEL(INV.FR2) CHLTYPE(CLUSRCVR) CONNAME('fr2(1414)') CLUSTER(INV)
DEFINE CHANNEL(INV.FR1) CHLTYPE(CLUSSDR) CONNAME('fr1(1414)') CLUSTER(INV)
'''
[qmgrs.QM1]
mqsc = '''
DEFINE CHANNEL(INV.QM1) CHLTYPE(CLUSRCVR) CONNAME('qm1(1414)') CLUSTER(INV)
DEFINE CHANNEL(INV.FR2) CHLTYPE(CLUSSDR) CONNAME('fr2(1414)') CLUSTER(INV)
DEFINE QLOCAL(STOCK) CLUSTER(INV)
'''
[qmgrs.APP]
mqsc = '''
DEFINE CHANNEL(INV.APP) CHLTYPE(CLUSRCVR) CONNAME('app(1414)') CLUSTER(INV)
DEFINE CHANNEL(INV.FR1) CHLTYPE(CLUSSDR) CONNAME('fr1(1414)') CLUSTER(INV)
'''
[[steps]]
qmgr = { name = "FR1", action = "stop" }
[[steps]]
mqsc = { qmgr = "APP", commands = "REFRESH CLUSTER(INV) REPOS" }
[[steps]]
open = { qmgr = "APP", handle = "h", queue = "STOCK" }
[[steps]]
put = { handle = "h" }
[[expect]]
messages = { h = { QM1 = 1 } }
"""


@pytest.mark.parametrize("repos, reaches", [("(NO)", True), ("", True), ("(YES)", False)])
def test_refresh_cluster_repos_no_keeps_the_full_repositories(repos, reaches):
    """MQSC reference, REFRESH CLUSTER: REPOS(NO), the default, retains the full
    repositories, so the partial repository rebuilds from FR2 while FR1 (its manual
    CLUSSDR's) is down; REPOS(YES) forgets them too and waits for FR1. Every record was
    discarded either way (a user trial)."""
    text = REFRESH_WHILE_AN_FR_IS_DOWN.replace("REPOS\" }", f"REPOS{repos}\" }}" if repos else "\" }")
    report = run_scenario(scenario(text))
    assert all(r.ok for r in report.expectations) is reaches
    app = view(report.final, "APP", "INV")
    if reaches:
        assert {"FR1", "FR2", "QM1"} <= set(app["qmgrs"]) and not any("TEMPQMGR" in q for q in app["qmgrs"])
    else:
        assert app["qmgrs"] == ["APP", "SYSTEM.TEMPQMGR.fr1(1414)"]


def test_refresh_cluster_at_a_full_repository_keeps_the_other_queue_managers():
    """At a full repository REPOS(NO) also retains the other cluster queue managers: with
    FR2 stopped, FR1 refreshed used to know only itself and SYSTEM.TEMPQMGR.fr2(1414)."""
    text = REFRESH_WHILE_AN_FR_IS_DOWN.split("[[steps]]")[0].replace(
        "DEFINE CHANNEL(INV.FR2) CHLTYPE(CLUSSDR) CONNAME('fr2(1414)') CLUSTER(INV)\n'''\n[qmgrs.APP]",
        "DEFINE CHANNEL(INV.FR1.M) CHLTYPE(CLUSSDR) CONNAME('fr1(1414)') CLUSTER(INV)\n'''\n[qmgrs.APP]")
    text += ('[[steps]]\nqmgr = { name = "FR2", action = "stop" }\n'
             '[[steps]]\nmqsc = { qmgr = "FR1", commands = "REFRESH CLUSTER(INV)" }\n')
    final = run_scenario(scenario(text)).final
    assert set(view(final, "FR1", "INV")["qmgrs"]) == {"APP", "FR1", "FR2", "QM1"}


def test_refresh_cluster_repos_yes_at_a_full_repository_logs_amq9406():
    """MQSC reference, REFRESH CLUSTER: REPOS(YES) on a full repository "will fail with an
    error AMQ9406/CSQX406E logged" (it was logged as MQSC_REJECTED)."""
    text = REFRESH_WHILE_AN_FR_IS_DOWN.split("[[steps]]")[0] + \
        '[[steps]]\nmqsc = { qmgr = "FR1", commands = "REFRESH CLUSTER(INV) REPOS(YES)" }\n'
    report = run_scenario(scenario(text))
    assert [(e.qmgr, e.code) for e in report.final.log if e.step == 0] == [("FR1", "AMQ9406")]


# ---------------------------------------------------------------------------------------
# Session 28: a fidelity review of 000 and 003 — worked statements that had no test
# ---------------------------------------------------------------------------------------
REVIEW = TWO_FRS + pr("PR1", "FR1", "DEFINE QLOCAL(CQ1) CLUSTER(DEMO)\nDEFINE TOPIC(T1) TOPICSTR('Sport') CLUSTER(DEMO)") + pr("PR3", "FR2")


def test_with_no_full_repository_user_messages_flow_and_changes_do_not():
    # 000 §Considerations for Full Repositories: "If at least one FR is not available ...
    # Cluster definition changes via FRs will not flow; User messages between Partial
    # Repositories over existing channels will flow"; "if no Full Repositories are available
    # ... this does not effect application messages ... however it does mean that the
    # clustered queue managers will not find out about administrative changes in the cluster
    # until the Full Repositories are active again."
    text = REVIEW + """
[[steps]]
open = { qmgr = "PR3", handle = "h", queue = "CQ1" }
[[steps]]
put = { handle = "h", count = 1 }
[[steps]]
qmgr = { name = "FR1", action = "stop" }
[[steps]]
qmgr = { name = "FR2", action = "stop" }
[[steps]]
put = { handle = "h", count = 2 }
[[steps]]
mqsc = { qmgr = "PR1", commands = "ALTER QLOCAL(CQ1) PUT(DISABLED)" }
"""
    def put_at_pr3(final):
        return [r.info.put for r in final.qmgr("PR3").cache("DEMO").live() if r.kind == rp.QUEUE]

    down = run_scenario(scenario(text)).final
    assert messages_of(down) == {"h": {"PR1": 3}}
    assert put_at_pr3(down) == ["ENABLED"]
    back = run_scenario(scenario(text + '[[steps]]\nqmgr = { name = "FR2", action = "start" }\n')).final
    assert put_at_pr3(back) == ["DISABLED"]


def test_a_second_mqopen_of_a_known_queue_subscribes_no_more():
    # 000 §WMQ Cluster Architecture: "channels are only automatically defined once on the
    # first MQOPEN that resolves to a queue on the remote queue manager, not for every
    # MQOPEN or MQPUT" (§First MQOPEN of a Queue: the subscription is made when "No
    # information is available in the cache")
    model = MQNetwork(scenario(REVIEW + '[[steps]]\nopen = { qmgr = "PR3", handle = "h", queue = "CQ1" }\n'
                               '[[steps]]\nopen = { qmgr = "PR3", handle = "h2", queue = "CQ1" }\n'
                               '[[steps]]\nput = { handle = "h2", count = 1 }\n'))
    (s,) = model.init_states()
    s = step(model, s)
    assert {m.op for c in s.channels if c.src == "PR3" for m in c.messages} == {"SUBSCRIBE"}
    s = deliver_all(model, s)
    for _ in range(2):  # the second open, then a put
        s = step(model, s)
        assert not any(isinstance(m, rp.RepoMsg) for c in s.channels if c.src == "PR3" for m in c.messages)
        s = deliver_all(model, s)
    assert messages_of(s)["h2"] == {"PR1": 1}


def test_an_auto_defined_clussdr_cannot_be_altered():
    # 003 §Auto-definition of channels: "You cannot modify an auto-defined cluster-sender
    # definition." PR3's channel to PR1 is auto-defined from PR1's CLUSRCVR TO.PR1; an ALTER
    # of it at PR3 finds no such object and changes nothing
    text = REVIEW + ('[[steps]]\nopen = { qmgr = "PR3", handle = "h", queue = "CQ1" }\n'
                     '[[steps]]\nmqsc = { qmgr = "PR3", commands = "ALTER CHANNEL(TO.PR1) CHLTYPE(CLUSSDR) CLWLWGHT(10)" }\n')
    final = run_scenario(scenario(text)).final
    assert [e.code for e in final.log] == ["AMQ8147"]
    assert final.qmgr("PR3").cache("DEMO").qmgr_record_of("PR1").info.clwlwght == 70  # PR1's CLUSRCVR's


def test_reset_cluster_of_a_lost_topic_host_removes_its_cluster_topic_everywhere():
    # 000 §Cluster Topic Hosts: "If topic host is lost, cluster topic will remain usable for
    # up to 30 days - RESET CLUSTER the lost queue manager"; 000 §Incorrectly deleted queue
    # managers: the full repository can "inform the other queue managers in the cluster to
    # delete them"
    lost = REVIEW + '[[steps]]\nqmgr = { name = "PR1", action = "delete" }\n'
    still = run_scenario(scenario(lost)).final
    assert view(still, "PR3")["topics"] == ["Sport"]  # still usable: the cached record stays
    reset = run_scenario(scenario(lost + '[[steps]]\nmqsc = { qmgr = "FR1", commands = '
                                  '"RESET CLUSTER(DEMO) ACTION(FORCEREMOVE) QMNAME(PR1) QUEUES(YES)" }\n')).final
    for qmgr in ("FR1", "FR2", "PR3"):
        assert view(reset, qmgr)["topics"] == [], qmgr
        assert "PR1" not in view(reset, qmgr)["qmgrs"], qmgr


def test_a_reply_to_a_queue_manager_used_for_the_first_time():
    """000 §WMQ Cluster Architecture, (4)-(6): "When an MQPUT1 or MQOPEN request is made to
    send a message to a ReplyToQMgr for the first time, the queue manager sends an internal
    message (4) to the repository requesting the channel definition required to reach the
    client. The returned definition (5) is used to automatically define a channel to the
    request queue manager (6) to get the message back to the request queue manager where
    local queue resolution puts the message on the ReplyToQ." PR1 serves CQ1; PR3, the
    requester, has a private (not clustered) reply queue that PR1 knows only by the
    queue manager's name. (No cluster topic here: in a publish/subscribe cluster every
    queue-manager record is pushed to every member, 002 §Cluster topics.)"""
    text = TWO_FRS + pr("PR1", "FR1", "DEFINE QLOCAL(CQ1) CLUSTER(DEMO)") + pr("PR3", "FR2") + """
[[steps]]
mqsc = { qmgr = "PR3", commands = "DEFINE QLOCAL(REPLYQ)" }
[[steps]]
open = { qmgr = "PR1", handle = "reply", queue = "REPLYQ", target_qmgr = "PR3" }
[[steps]]
put = { handle = "reply", count = 1 }
"""
    model = MQNetwork(scenario(text))
    (s,) = model.init_states()
    s = deliver_all(model, step(model, s))
    assert "PR3" not in view(s, "PR1")["qmgrs"]
    s = step(model, s)  # (4): a subscription for the queue manager, at two full repositories
    subs = {(c.dst, m.op) for c in s.channels if c.src == "PR1" for m in c.messages
            if isinstance(m, rp.RepoMsg) and ("QMGR", "PR3") in m.keys}
    assert subs == {("FR1", "SUBSCRIBE"), ("FR2", "SUBSCRIBE")}
    s = deliver_all(model, s)  # (5): the definition comes back
    assert s.qmgr("PR1").cache("DEMO").qmgr_record_of("PR3").info.channel == "TO.PR3"
    s = deliver_all(model, step(model, s))  # (6): the channel to PR3, and local resolution there
    assert messages_of(s) == {"reply": {"PR3": 1}}
    assert s.channel("PR1", "PR3") is not None


# ---------------------------------------------------------------------------------------
# Session 29: a partial repository's subscription for the full repositories' records.
# 003 §Queue managers and repositories: a queue manager that joins "immediately learns which
# other queue managers in the cluster hold full repositories", and a partial repository
# requests "that thereafter they be notified of any new information concerning that queue
# or queue manager" — the subscription is its own request. 000 §Considerations for Full
# Repositories: "information is always published to and subscribed for from 2 Full
# Repositories"; demoting full repositories makes the queue managers "remake their
# subscriptions elsewhere"; "Partial Repositories will re-subscribe ... every 30 days".
# ---------------------------------------------------------------------------------------
def fr_to(name: str, *others: str) -> str:
    sdrs = "\n".join(f"DEFINE CHANNEL(TO.{o}) CHLTYPE(CLUSSDR) CONNAME('{o.lower()}(1414)') CLUSTER(DEMO)"
                     for o in others)
    return (f"[qmgrs.{name}]\nmqsc = '''\nALTER QMGR REPOS(DEMO)\n"
            f"DEFINE CHANNEL(TO.{name}) CHLTYPE(CLUSRCVR) CONNAME('{name.lower()}(1414)') CLUSTER(DEMO)\n"
            f"{sdrs}\n'''\n")


# PR1 joins through FR1 and uses no queue: what it holds of the full repositories it holds
# only from joining
JOINED = ('name = "joined"\n' + fr_to("FR1", "FR2", "FR3") + fr_to("FR2", "FR1", "FR3")
          + fr_to("FR3", "FR1", "FR2") + pr("PR1", "FR1"))
FR_KEYS = ((rp.QMGR, "FR1"), (rp.QMGR, "FR2"), (rp.QMGR, "FR3"))
ALTER_FR3 = 'mqsc = { qmgr = "FR3", commands = "ALTER CHANNEL(TO.FR3) CHLTYPE(CLUSRCVR) CLWLWGHT(20)" }'


def joined(*lines: str):
    return run_scenario(scenario(JOINED + "".join(f"[[steps]]\n{line}\n" for line in lines))).final


def stop(name: str) -> str:
    return f'qmgr = {{ name = "{name}", action = "stop" }}'


def holders_of(final, who: str, key: tuple[str, str]) -> list[str]:
    """The full repositories holding ``who``'s subscription for ``key``."""
    return sorted(q.name for q in final.qmgrs for c in q.caches if c.full
                  for s in c.subscribers if s[1] == who and (s[2], s[3]) == key)


def fr3_weight_at_pr1(final) -> int:
    return final.qmgr("PR1").cache("DEMO").qmgr_record_of("FR3").info.clwlwght


def test_a_joiner_records_its_subscription_for_the_full_repositories_records():
    """PR1's JOIN answer names FR1, FR2 and FR3; PR1 is subscribed for their records, it
    lists that subscription among its own (``interests``), and the subscription is held at
    two full repositories, as every other one is: FR1, which answered the join, and one
    other (FR2, the first it knows besides)."""
    final = joined()
    assert set(FR_KEYS) <= set(final.qmgr("PR1").cache("DEMO").interests)
    for key in FR_KEYS:
        assert holders_of(final, "PR1", key) == ["FR1", "FR2"], key


def test_a_change_of_a_full_repository_reaches_the_joiner_while_the_one_it_joined_through_is_down():
    # FR3's altered CLUSRCVR goes to FR1 (down) and FR2; FR2 holds PR1's subscription
    final = joined(stop("FR1"), ALTER_FR3)
    assert fr3_weight_at_pr1(final) == 20


def test_both_full_repositories_it_subscribed_at_down_the_joiner_waits_for_the_thirty_day_resubscription():
    # 000 §Considerations for Full Repositories: "if the 2 Full Repositories to which a queue
    # manager subscribed ... are both off-line, then that queue manager will not find out
    # about administrative changes ..., even if there are other Full Repositories
    # available"; "Partial Repositories will re-subscribe ... every 30 days"
    assert fr3_weight_at_pr1(joined(stop("FR1"), stop("FR2"), ALTER_FR3)) == 50
    assert fr3_weight_at_pr1(joined(stop("FR1"), stop("FR2"), ALTER_FR3, "advance = { days = 29 }")) == 50
    final = joined(stop("FR1"), stop("FR2"), ALTER_FR3, "advance = { days = 31 }")
    assert fr3_weight_at_pr1(final) == 20
    assert "FR3" in holders_of(final, "PR1", (rp.QMGR, "FR3"))


def test_demoting_the_full_repository_it_joined_through_moves_the_joiners_subscription():
    # 000 §Considerations for Full Repositories: "altering the Full Repositories to be Partial
    # Repositories before taking them off-line ... will cause the queue managers within the
    # cluster to remake their subscriptions elsewhere". FR1 demoted, FR2 then stopped: PR1
    # hears FR3's change from FR3, where it subscribed again
    final = joined("mqsc = { qmgr = \"FR1\", commands = \"ALTER QMGR REPOS(' ')\" }", stop("FR2"), ALTER_FR3)
    assert holders_of(final, "PR1", (rp.QMGR, "FR3")) == ["FR2", "FR3"]
    assert fr3_weight_at_pr1(final) == 20


def test_refresh_cluster_subscribes_the_joiner_again_at_full_repositories_that_are_up():
    # 000 §Refreshing repository information: the information "will then be rebuilt over
    # time, by requesting it from the Full Repositories"; with FR1 down the requests go to
    # FR2 and FR3 (§Considerations: "it will then use any other Full Repositories that it
    # knows about"). Without the REFRESH, FR1 and FR2 down leave PR1 uninformed (above).
    final = joined(stop("FR1"), 'mqsc = { qmgr = "PR1", commands = "REFRESH CLUSTER(DEMO)" }', stop("FR2"),
                   ALTER_FR3)
    assert "FR3" in holders_of(final, "PR1", (rp.QMGR, "FR3"))
    assert fr3_weight_at_pr1(final) == 20


def test_rp_pr_convergence_judges_the_subscription_for_the_full_repositories_records():
    from spec.network.state import put_cache, put_qmgr

    model = MQNetwork(scenario(JOINED))
    (s,) = model.init_states()
    assert rprops.prs_converge(model, s)
    pr1 = s.qmgr("PR1")
    cache = pr1.cache("DEMO")
    stale = tuple(_replace(r, seq=r.seq + 100) if r.kind == rp.QMGR and r.owner_name == "FR3" else r
                  for r in cache.records)
    doctored = put_qmgr(s, put_cache(pr1, _replace(cache, records=stale)))
    assert not rprops.prs_converge(model, doctored)


def test_a_joiner_is_given_every_record_of_the_full_repositories_it_is_subscribed_for():
    """What a full repository gives a joiner is what a subscription for the full
    repositories' records is answered with (000 §First MQOPEN of a Queue: every record of
    the queue manager), a second CLUSRCVR of the cluster included (001 rule 12: a route of
    its own). With one full repository there is no second subscription to bring it."""
    text = ('name = "one"\n[qmgrs.FR1]\nmqsc = \'\'\'\nALTER QMGR REPOS(DEMO)\n'
            "DEFINE CHANNEL(TO.FR1) CHLTYPE(CLUSRCVR) CONNAME('fr1(1414)') CLUSTER(DEMO)\n"
            "DEFINE CHANNEL(TO.FR1.B) CHLTYPE(CLUSRCVR) CONNAME('fr1b(1414)') CLUSTER(DEMO)\n'''\n"
            + pr("PR1", "FR1"))
    final = run_scenario(scenario(text)).final
    held = final.qmgr("PR1").cache("DEMO")
    assert {r.key for r in rp.records_for(held, (rp.QMGR, "FR1"))} == {"", "TO.FR1.B"}
    assert rprops.prs_converge(None, final)


def test_rp_pr_hosts_current_has_a_witness_of_its_own():
    """RP-PR-HOSTS-CURRENT judges only subscriptions for cluster queues. Its witness is
    RP-PR-QUEUE-SUBSCRIBED, not RP-PR-SUBSCRIBED: every joined partial repository now
    settles holding its subscription for the full repositories' records, so RP-PR-SUBSCRIBED
    is reached where no queue was ever subscribed for, and would hide a vacuous pass.
    fr-mesh-broken has no MQOPEN: the pass of RP-PR-HOSTS-CURRENT there is flagged."""
    from pathlib import Path

    from checker.cli import _check_properties
    from spec.scenario import load_scenario

    by_id = {p.id: p for p in PROPERTIES}
    assert by_id["RP-PR-HOSTS-CURRENT"].witness == "RP-PR-QUEUE-SUBSCRIBED"
    sc = load_scenario(Path(__file__).resolve().parent.parent / "examples" / "fr-mesh-broken.toml")
    result = explore(MQNetwork(sc, _check_properties(sc)),
                     property_ids=["RP-PR-HOSTS-CURRENT", "RP-PR-SUBSCRIBED"])
    v = result.verdicts
    assert v["RP-PR-SUBSCRIBED"].status is Status.WITNESSED
    assert v["RP-PR-QUEUE-SUBSCRIBED"].status is Status.NEVER_REACHED
    assert v["RP-PR-HOSTS-CURRENT"].status is Status.HOLDS and v["RP-PR-HOSTS-CURRENT"].vacuous


# ---------------------------------------------------------------------------------------
# Session 30: a refreshed full repository tells its subscribers of its re-announced records
# ---------------------------------------------------------------------------------------
def _pr_copy(state, qmgr, owner):
    rec = state.qmgr(qmgr).cache("DEMO").qmgr_record_of(owner)
    return rec.ident, rec.seq


def test_a_refreshed_full_repository_tells_its_subscribers_itself():
    # 000 §Considerations for Full Repositories: "in which case the Full Repositories will
    # notify the Partial Repositories that have subscribed for the information on the
    # resource that is changing". REFRESH CLUSTER at FR1 re-announces FR1's record with a
    # new sequence number; the partial repositories subscribed at FR1 for it hear of it from
    # FR1, not only through FR2, which stops before FR1's JOIN reaches it (fuzzing, seed 2).
    text = FIVE + '[[steps]]\nmqsc = { qmgr = "FR1", commands = "REFRESH CLUSTER(DEMO)" }\n'
    model = MQNetwork(scenario(text), PROPERTIES, faults=1)
    (s,) = model.init_states()
    subscribed = sorted(sub[1] for sub in s.qmgr("FR1").cache("DEMO").subscribers if sub[2:] == (rp.QMGR, "FR1"))
    assert subscribed == ["PR1", "PR2", "PR3"]  # each subscribed at both full repositories
    refreshed = step(model, s)
    told = sorted(c.dst for c in refreshed.channels if c.src == "FR1" for m in c.messages
                  if m.op != rp.JOIN and any(r.owner_name == "FR1" for r in m.records))
    assert told == subscribed
    after = deliver_all(model, model.next_state(refreshed, QmgrStop("FR2")))
    assert rprops.settled(after)
    for qmgr in subscribed:
        assert _pr_copy(after, qmgr, "FR1") == _pr_copy(after, "FR1", "FR1"), qmgr
    assert rprops.prs_converge(model, after)
    result = explore(model, property_ids=["RP-PR-CONVERGENCE", "RP-PR-SUBSCRIBED"])
    assert result.verdicts["RP-PR-CONVERGENCE"].status is Status.HOLDS


def test_a_refreshed_full_repository_pushes_its_own_cluster_topic_to_every_member():
    # 002 §Cluster topics: "Information about cluster topics is pushed to all members of a
    # cluster" — also the copy a full repository re-announces on REFRESH CLUSTER, with the
    # other full repository stopped
    text = TWO_FRS.replace("CLUSTER(DEMO)\nDEFINE CHANNEL(TO.FR2)",
                           "CLUSTER(DEMO)\nDEFINE TOPIC(SPORTS) TOPICSTR('Sports') CLUSTER(DEMO)\n"
                           "DEFINE CHANNEL(TO.FR2)", 1) + pr("PR1", "FR1") + pr("PR2", "FR2") + \
        '[[steps]]\nmqsc = { qmgr = "FR1", commands = "REFRESH CLUSTER(DEMO)" }\n'
    assert "TOPIC(SPORTS)" in text
    model = MQNetwork(scenario(text), PROPERTIES, faults=1)
    (s,) = model.init_states()
    after = deliver_all(model, model.next_state(step(model, s), QmgrStop("FR2")))
    topic = next(r for r in after.qmgr("FR1").cache("DEMO").live() if r.kind == rp.TOPIC)
    for qmgr in ("PR1", "PR2"):
        assert after.qmgr(qmgr).cache("DEMO").get(topic.ident).seq == topic.seq, qmgr
    assert rprops.topics_everywhere(model, after)
    result = explore(model, property_ids=["RP-TOPIC-EVERYWHERE", "RP-PR-CONVERGENCE"])
    assert {result.verdicts[p].status for p in ("RP-TOPIC-EVERYWHERE", "RP-PR-CONVERGENCE")} == {Status.HOLDS}
