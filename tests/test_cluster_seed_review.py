"""Session 34: a rule-by-rule review of 003 ("Components of a cluster") and 004 ("Build a
truly fault tolerant and scalable IBM MQ messaging solution") against the spec.

Each test states one of the seeds' rules that no other test pinned, with the seed section
(003 = 003_73686902d34f0233.txt, 004 = 004_10e4e45f071ceb03.txt). The rules already pinned
elsewhere (tests/test_repository.py, test_fidelity_round2.py, test_admin_trial.py,
test_workload.py, test_workload_network.py, test_uniform*.py) are not repeated here;
docs/decisions.md "Session 34: review of 003 and 004" says what changed and what was left;
"Session 34: BD-ON-OPEN-FIXED excuses only an alias" says why the property now catches the
far end's old behaviour (the mutant ``bound_rebalanced_when_gone``).
"""

from __future__ import annotations

import textwrap

import pytest

from spec import objects
from spec.mqsc import parse
from spec.network import run_scenario
from spec.network.steps import unmodelled_in
from spec.scenario import parse_scenario

CLUSTER_QUEUES = ("SYSTEM.CLUSTER.COMMAND.QUEUE", "SYSTEM.CLUSTER.REPOSITORY.QUEUE", "SYSTEM.CLUSTER.TRANSMIT.QUEUE")


def scenario(text: str):
    return parse_scenario(textwrap.dedent(text), "review.toml")


def one(command: str, qm: objects.QueueManagerDef | None = None) -> tuple[objects.QueueManagerDef, objects.Outcome]:
    qm, (outcome,) = objects.apply_commands(qm or objects.QueueManagerDef("QMA"), parse(command))
    return qm, outcome


# ---------------------------------------------------------------------------------------
# 003 §Cluster transmission queue: "A definition for this queue (and others required for
# clustering) is created by default on every queue manager"; 003 §Queue managers and
# repositories names the other two (SYSTEM.CLUSTER.REPOSITORY.QUEUE, .COMMAND.QUEUE).
# ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", CLUSTER_QUEUES)
def test_the_clustering_queues_exist_so_altering_one_is_accepted(name):
    # it was AMQ8147 ("not found"), which a real queue manager never says of these queues
    _, out = one(f"ALTER QLOCAL({name}) MAXDEPTH(100000)")
    assert out.accepted, out.message
    assert isinstance(out.operation, objects.AlterDefaultObject)


@pytest.mark.parametrize("name", CLUSTER_QUEUES)
def test_the_clustering_queues_exist_so_defining_one_again_is_refused(name):
    qm, out = one(f"DEFINE QLOCAL({name})")
    assert (out.accepted, out.message) == (False, objects.AMQ8150(name))
    assert qm.queue(name) is None  # nothing changed


def test_like_the_cluster_transmission_queue_is_a_transmission_queue():
    qm, out = one("DEFINE QLOCAL(XQ) LIKE(SYSTEM.CLUSTER.TRANSMIT.QUEUE)")
    assert out.accepted and qm.queue("XQ").usage == "XMITQ"
    qm, out = one("DEFINE QLOCAL(Q2) LIKE(SYSTEM.CLUSTER.COMMAND.QUEUE)")
    assert out.accepted and qm.queue("Q2").usage == "NORMAL"


def test_altering_the_cluster_transmission_queue_in_a_scenario_logs_nothing_and_is_said_unmodelled():
    sc = scenario("""
        [qmgrs.QMA]
        mqsc = '''
        ALTER QMGR REPOS(DEMO)
        DEFINE CHANNEL(TO.QMA) CHLTYPE(CLUSRCVR) CONNAME('qma(1414)') CLUSTER(DEMO)
        ALTER QLOCAL(SYSTEM.CLUSTER.TRANSMIT.QUEUE) MAXDEPTH(100000)
        '''
        """)
    assert run_scenario(sc).final.log == ()
    (note,) = unmodelled_in(sc)
    assert "(line 6): altering one of MQ's default objects" in note


# ---------------------------------------------------------------------------------------
# 003 §Queue managers and repositories: "The new information is also sent to another
# repository ... Because all the information is sent twice, the repositories have to discard
# duplicates. Each item of information carries a sequence number, which the repositories use
# to identify duplicates."
# ---------------------------------------------------------------------------------------
def _fr(name: str, other: str) -> str:
    return f"""
[qmgrs.{name}]
mqsc = '''
ALTER QMGR REPOS(DEMO)
DEFINE CHANNEL(TO.{name}) CHLTYPE(CLUSRCVR) CONNAME('{name.lower()}(1414)') CLUSTER(DEMO)
DEFINE CHANNEL(TO.{other}) CHLTYPE(CLUSSDR) CONNAME('{other.lower()}(1414)') CLUSTER(DEMO)
'''
"""


TWICE = 'name = "sent twice"\n' + _fr("FR1", "FR2") + _fr("FR2", "FR1") + """
[qmgrs.PR1]
mqsc = '''
DEFINE CHANNEL(TO.PR1) CHLTYPE(CLUSRCVR) CONNAME('pr1(1414)') CLUSTER(DEMO)
DEFINE CHANNEL(TO.FR1) CHLTYPE(CLUSSDR) CONNAME('fr1(1414)') CLUSTER(DEMO)
'''
[[steps]]
mqsc = { qmgr = "PR1", commands = "DEFINE QLOCAL(CQ1) CLUSTER(DEMO)" }
"""


def _copies(state, src: str, dst: str) -> list:
    ch = state.channel(src, dst)
    return [r for m in (ch.messages if ch else ()) for r in getattr(m, "records", ()) if r.kind == "QUEUE"]


def test_each_full_repository_gets_a_new_queue_twice_and_discards_the_second_copy():
    from spec.network import ChannelDeliver, MQNetwork, ScenarioStep, settle
    from spec.network.state import put_cache, put_qmgr
    from spec.values import replace

    model = MQNetwork(parse_scenario(TWICE, "twice.toml"))
    (s,) = model.init_states()
    s = model.next_state(s, ScenarioStep(0))
    # the partial repository sends it to its full repository and one other (003)
    assert [len(_copies(s, "PR1", fr)) for fr in ("FR1", "FR2")] == [1, 1]
    s = model.next_state(s, ChannelDeliver("PR1", "FR1"))
    s = model.next_state(s, ChannelDeliver("PR1", "FR2"))
    # each full repository forwards what a partial repository sent it to the other
    first = {fr: s.qmgr(fr).cache("DEMO") for fr in ("FR1", "FR2")}
    (fwd12,), (fwd21,) = _copies(s, "FR1", "FR2"), _copies(s, "FR2", "FR1")
    assert fwd12 == fwd21 == first["FR1"].get(fwd12.ident) == first["FR2"].get(fwd12.ident)
    for fr in ("FR1", "FR2"):  # the ghost flag is sticky (the joins had duplicates): clear it
        s = put_qmgr(s, put_cache(s.qmgr(fr), replace(first[fr], discarded=False)))
    s = settle(model, s)
    for fr in ("FR1", "FR2"):
        after = s.qmgr(fr).cache("DEMO")
        assert after.discarded  # the second copy, by its sequence number
        assert after.get(fwd12.ident) == fwd12 and after.records == first[fr].records
    # ... and discarded copies are not forwarded again: nothing ping-pongs between them
    assert not any(c.messages for c in s.channels)


# ---------------------------------------------------------------------------------------
# 004 §Channel availability routing: re-routing "occurs for queued transmission messages
# every time the channel is retried. So blocked messages can be re-routed, if they're not
# prevented..."; §Things that can prevent routing: a named target queue manager, binding
# (both tested in tests/test_admin_trial.py) and 'Using "cluster workload rank"'.
# ---------------------------------------------------------------------------------------
def _rank_retry(rank: int) -> str:
    return f"""
name = "rank prevents re-routing on retry"
[qmgrs.QMAPP]
mqsc = '''
DEFINE CHANNEL(TO.QMAPP) CHLTYPE(CLUSRCVR) CONNAME('qmapp(1414)') CLUSTER(DEMO)
DEFINE CHANNEL(TO.SERVER1) CHLTYPE(CLUSSDR) CONNAME('server1(1414)') CLUSTER(DEMO)
'''
[qmgrs.SERVER1]
mqsc = '''
ALTER QMGR REPOS(DEMO)
DEFINE CHANNEL(TO.SERVER1) CHLTYPE(CLUSRCVR) CONNAME('server1(1414)') CLUSTER(DEMO) CLWLRANK({rank})
DEFINE CHANNEL(TO.SERVER2) CHLTYPE(CLUSSDR) CONNAME('server2(1414)') CLUSTER(DEMO)
DEFINE QLOCAL(DEMOQ) CLUSTER(DEMO)
'''
[qmgrs.SERVER2]
mqsc = '''
ALTER QMGR REPOS(DEMO)
DEFINE CHANNEL(TO.SERVER2) CHLTYPE(CLUSRCVR) CONNAME('server2(1414)') CLUSTER(DEMO)
DEFINE CHANNEL(TO.SERVER1) CHLTYPE(CLUSSDR) CONNAME('server1(1414)') CLUSTER(DEMO)
DEFINE QLOCAL(DEMOQ) CLUSTER(DEMO)
'''
[[steps]]
open = {{ qmgr = "QMAPP", handle = "app", queue = "DEMOQ", bind = "NOT_FIXED" }}
[[steps]]
channel = {{ qmgr = "QMAPP", to = "SERVER1", status = "RETRYING" }}
[[steps]]
channel = {{ qmgr = "QMAPP", to = "SERVER2", status = "RETRYING" }}
[[steps]]
put = {{ handle = "app", count = 3 }}
[[steps]]
channel = {{ qmgr = "QMAPP", to = "SERVER2", status = "RUNNING" }}
"""


@pytest.mark.parametrize("rank,arrived,waiting", [
    (0, {"SERVER2": 3}, 0),  # equal ranks: each retry of SERVER1's channel re-routes to SERVER2
    (7, {}, 3),              # SERVER1 ranked higher: chosen again at every retry, they wait
])
def test_cluster_workload_rank_prevents_rerouting_on_channel_retry(rank, arrived, waiting):
    from spec.network import messages_of
    from spec.network.workload import retries

    final = run_scenario(parse_scenario(_rank_retry(rank), "rank-retry.toml")).final
    assert messages_of(final)["app"] == arrived
    ch = final.channel("QMAPP", "SERVER1")
    assert len(ch.messages if ch else ()) == waiting
    assert final.route_status("QMAPP", "SERVER1", "") == "RETRYING"
    assert retries(final) == ()  # no retry is offered that would move one


# ---------------------------------------------------------------------------------------
# 003 §Auto-definition of remote queues: "A queue manager in a cluster does not need a
# remote-queue definition for remote queues in the cluster ... You cannot alter or delete an
# automatically-created remote-queue definition."
# ---------------------------------------------------------------------------------------
AUTO_QUEUE = """
name = "the automatically-created remote-queue definition"
[qmgrs.QMAPP]
mqsc = '''
ALTER QMGR REPOS(DEMO)
DEFINE CHANNEL(TO.QMAPP) CHLTYPE(CLUSRCVR) CONNAME('qmapp(1414)') CLUSTER(DEMO)
DEFINE CHANNEL(TO.SERVER1) CHLTYPE(CLUSSDR) CONNAME('server1(1414)') CLUSTER(DEMO)
'''
[qmgrs.SERVER1]
mqsc = '''
ALTER QMGR REPOS(DEMO)
DEFINE CHANNEL(TO.SERVER1) CHLTYPE(CLUSRCVR) CONNAME('server1(1414)') CLUSTER(DEMO)
DEFINE CHANNEL(TO.QMAPP) CHLTYPE(CLUSSDR) CONNAME('qmapp(1414)') CLUSTER(DEMO)
DEFINE QLOCAL(DEMOQ) CLUSTER(DEMO)
'''
[[steps]]
mqsc = { qmgr = "QMAPP", commands = "DELETE QREMOTE(DEMOQ)" }
[[steps]]
mqsc = { qmgr = "QMAPP", commands = "DELETE QLOCAL(DEMOQ)" }
[[steps]]
mqsc = { qmgr = "QMAPP", commands = "ALTER QREMOTE(DEMOQ) RQMNAME(QMAPP)" }
[[steps]]
mqsc = { qmgr = "QMAPP", commands = "ALTER QLOCAL(DEMOQ) PUT(DISABLED)" }
[[steps]]
open = { qmgr = "QMAPP", handle = "app", queue = "DEMOQ" }
[[steps]]
put = { handle = "app", count = 2 }
"""


def test_the_automatically_created_remote_queue_definition_cannot_be_altered_or_deleted():
    from spec.network import messages_of, repositories_of

    final = run_scenario(parse_scenario(AUTO_QUEUE, "auto-queue.toml")).final
    # no remote-queue definition was needed, and the commands that would change it are refused
    assert [(e.qmgr, e.code, e.step) for e in final.log] == [("QMAPP", "AMQ8147", i) for i in range(4)]
    assert final.qmgr("QMAPP").defs.queue("DEMOQ") is None
    assert repositories_of(final)["QMAPP"]["DEMO"]["queues"] == {"DEMOQ": ["SERVER1"]}
    assert messages_of(final)["app"] == {"SERVER1": 2}


# ---------------------------------------------------------------------------------------
# 004 §Pros and cons of binding: with bind on open or on group "Once a target has been chosen
# it cannot change - Whether it's available or not"; "* While a route is known by the source
# queue manager, it won't be rebalanced, but it could be DLQd". 000 §When does workload
# balancing occur?: with bind_on_open, "once the destination is chosen at MQOPEN time, no
# more workload balancing will occur on the message"; bind_not_fixed messages' destination
# "may change whilst the message is in transit" ("at the far end ... the workload algorithm
# will be called").
# ---------------------------------------------------------------------------------------
def _deleted_at_target(bind: str) -> str:
    return f"""
name = "the bound destination deletes its queue while the messages are on their way"
[qmgrs.QMAPP]
mqsc = '''
ALTER QMGR REPOS(DEMO)
DEFINE CHANNEL(TO.QMAPP) CHLTYPE(CLUSRCVR) CONNAME('qmapp(1414)') CLUSTER(DEMO)
DEFINE CHANNEL(TO.SERVER1) CHLTYPE(CLUSSDR) CONNAME('server1(1414)') CLUSTER(DEMO)
'''
[qmgrs.SERVER1]
mqsc = '''
ALTER QMGR REPOS(DEMO)
DEFINE CHANNEL(TO.SERVER1) CHLTYPE(CLUSRCVR) CONNAME('server1(1414)') CLUSTER(DEMO)
DEFINE CHANNEL(TO.QMAPP) CHLTYPE(CLUSSDR) CONNAME('qmapp(1414)') CLUSTER(DEMO)
DEFINE QLOCAL(DEMOQ) CLUSTER(DEMO)
'''
[qmgrs.SERVER2]
mqsc = '''
DEFINE CHANNEL(TO.SERVER2) CHLTYPE(CLUSRCVR) CONNAME('server2(1414)') CLUSTER(DEMO)
DEFINE CHANNEL(TO.QMAPP) CHLTYPE(CLUSSDR) CONNAME('qmapp(1414)') CLUSTER(DEMO)
DEFINE QLOCAL(DEMOQ) CLUSTER(DEMO)
'''
[[steps]]
open = {{ qmgr = "QMAPP", handle = "app", queue = "DEMOQ", bind = "{bind}" }}
[[steps]]
channel = {{ qmgr = "QMAPP", to = "SERVER1", status = "STOPPED" }}
[[steps]]
channel = {{ qmgr = "QMAPP", to = "SERVER2", status = "STOPPED" }}
[[steps]]
put = {{ handle = "app", count = 2 }}
[[steps]]
mqsc = {{ qmgr = "SERVER1", commands = "DELETE QLOCAL(DEMOQ)" }}
[[steps]]
channel = {{ qmgr = "QMAPP", to = "SERVER1", status = "RUNNING" }}
[[steps]]
channel = {{ qmgr = "QMAPP", to = "SERVER2", status = "RUNNING" }}
"""


@pytest.mark.parametrize("bind,arrived,dead_lettered", [
    # bound to SERVER1 at MQOPEN (the first in name order): both wait for it, and SERVER1's
    # receiving channel cannot put them, so they go to its dead-letter queue; they are not
    # balanced again to SERVER2, which still hosts DEMOQ
    ("ON_OPEN", {}, 2),
    # not fixed: one each; the one for SERVER1 is balanced again at the far end
    ("NOT_FIXED", {"SERVER2": 2}, 0),
])
def test_a_bound_message_whose_queue_went_is_dead_lettered_not_balanced_again(bind, arrived, dead_lettered):
    from spec.network import messages_of

    final = run_scenario(parse_scenario(_deleted_at_target(bind), f"deleted-{bind}.toml")).final
    assert messages_of(final)["app"] == arrived
    dead = [e for e in final.log if "dead-letter" in e.detail]
    assert [(e.qmgr, e.code) for e in dead] == [("SERVER1", "MQRC_UNKNOWN_OBJECT_NAME")] * dead_lettered
    assert not any(c.messages for c in final.channels)


# ---------------------------------------------------------------------------------------
# 003 §Queue managers and repositories: "When the queue manager sends out any information
# about itself, for example when it creates a new queue definition, this information is sent
# to the chosen repository and also to one other repository (if there is one)". Two full
# repositories are pinned in tests/test_repository.py; one and three are not.
# ---------------------------------------------------------------------------------------
def _frs_mesh(names: tuple[str, ...]) -> str:
    return "".join(f"""
[qmgrs.{n}]
mqsc = '''
ALTER QMGR REPOS(DEMO)
DEFINE CHANNEL(TO.{n}) CHLTYPE(CLUSRCVR) CONNAME('{n.lower()}(1414)') CLUSTER(DEMO)
""" + "".join(f"DEFINE CHANNEL(TO.{m}) CHLTYPE(CLUSSDR) CONNAME('{m.lower()}(1414)') CLUSTER(DEMO)\n"
              for m in names if m != n) + "'''\n" for n in names)


@pytest.mark.parametrize("frs,sent_to", [
    (("FR1",), ("FR1",)),                 # "(if there is one)": the only one
    (("FR1", "FR2", "FR3"), ("FR1", "FR2")),  # the chosen one (its CLUSSDR's) and ONE other
])
def test_a_partial_repository_sends_its_news_to_the_chosen_full_repository_and_one_other(frs, sent_to):
    from spec.network import MQNetwork, ScenarioStep

    text = 'name = "news"\n' + _frs_mesh(frs) + """
[qmgrs.PR1]
mqsc = '''
DEFINE CHANNEL(TO.PR1) CHLTYPE(CLUSRCVR) CONNAME('pr1(1414)') CLUSTER(DEMO)
DEFINE CHANNEL(TO.FR1) CHLTYPE(CLUSSDR) CONNAME('fr1(1414)') CLUSTER(DEMO)
'''
[[steps]]
mqsc = { qmgr = "PR1", commands = "DEFINE QLOCAL(CQ1) CLUSTER(DEMO)" }
"""
    model = MQNetwork(parse_scenario(text, "news.toml"))
    (s,) = model.init_states()
    assert {r.owner_name for r in s.qmgr("PR1").cache("DEMO").full_repositories()} == set(frs)  # it knows them all
    s = model.next_state(s, ScenarioStep(0))
    assert tuple(sorted(c.dst for c in s.channels if c.src == "PR1" and _copies(s, "PR1", c.dst))) == sent_to


# The same rule as a property: BD-ON-OPEN-FIXED excuses a message of a BIND_ON_OPEN handle
# that leaves its bound destination only when the name it carried went through an alias
# there (000 §Routing messages in and out of clusters, Scenarios 4 and 5), not because that
# queue manager had no local instance (docs/decisions.md "Session 34: BD-ON-OPEN-FIXED
# excuses only an alias"). The mutant `bound_rebalanced_when_gone` is the behaviour before
# the review: the far end balanced the messages again, to SERVER2.
def _check(text: str, mutations=None, property_ids=("BD-ON-OPEN-FIXED", "BD-TARGET-FIXED")):
    from checker.cli import _check_properties
    from checker.explore import explore
    from spec.network import MQNetwork, Mutations

    sc = parse_scenario(text, "bound.toml")
    model = MQNetwork(sc, _check_properties(sc), mutations=mutations or Mutations())
    return explore(model, property_ids=list(property_ids), workers=1).verdicts


def test_bd_on_open_fixed_catches_a_bound_message_balanced_again_when_its_queue_went():
    from checker.model import Status
    from spec.network import Mutations

    assert _check(_deleted_at_target("ON_OPEN"))["BD-ON-OPEN-FIXED"].status is Status.HOLDS
    verdict = _check(_deleted_at_target("ON_OPEN"), Mutations(bound_rebalanced_when_gone=True))["BD-ON-OPEN-FIXED"]
    assert verdict.status is Status.VIOLATED
    # NOT_FIXED messages may be balanced again at the far end: the mutant changes nothing
    final = run_scenario(parse_scenario(_deleted_at_target("NOT_FIXED"), "nf.toml"),
                         mutations=Mutations(bound_rebalanced_when_gone=True)).final
    from spec.network import messages_of
    assert messages_of(final)["app"] == {"SERVER2": 2}


def test_bd_on_group_catches_a_group_balanced_again_when_its_queue_went():
    """The same for BIND_ON_GROUP: both messages of group g1 are bound to SERVER1; the mutant
    sends them on to SERVER2 from there. BD-ON-GROUP compared only the first hops of a group
    with each other, and its arrival places with each other, so it held (session 34's
    guard review); it now also holds the current group to the handle's bound destination."""
    from checker.model import Status
    from spec.network import Mutations

    text = _deleted_at_target("ON_GROUP").replace('put = { handle = "app", count = 2 }',
                                                  'put = { handle = "app", count = 2, group = "g1" }')
    assert 'group = "g1"' in text

    assert _check(text, property_ids=["BD-ON-GROUP"])["BD-ON-GROUP"].status is Status.HOLDS
    verdict = _check(text, Mutations(bound_rebalanced_when_gone=True), ["BD-ON-GROUP"])["BD-ON-GROUP"]
    assert verdict.status is Status.VIOLATED


def test_bd_on_open_fixed_still_excuses_a_gateway_alias():
    # 000 Scenario 4 (QMC's clustered QALIAS(ACQ1) TARGQ(CQ1)) and Scenario 5 (QMC's
    # QREMOTE(CQM) RNAME(' ') RQMNAME(' ')), opened ON_OPEN: bound to the gateway QMC, whose
    # alias runs the algorithm again over RED; the property holds
    from pathlib import Path

    from checker.model import Status

    text = (Path(__file__).resolve().parent.parent / "examples" / "wl-gateway-scenarios.toml").read_text(encoding="utf-8")
    text = text.replace('bind = "NOT_FIXED"', 'bind = "ON_OPEN"')
    assert text.count('bind = "ON_OPEN"') == 2
    verdicts = _check(text)
    assert verdicts["BD-ON-OPEN-FIXED"].status is Status.HOLDS
    assert verdicts["BD-TARGET-FIXED"].status is Status.HOLDS
    final = run_scenario(parse_scenario(text, "gw.toml")).final
    far = [d for d in final.qmgr("QMC").decisions if d.via_cluster_channel]
    assert {d.handle for d in far} == {"scenario4", "scenario5"} and all(d.through_alias for d in far)
