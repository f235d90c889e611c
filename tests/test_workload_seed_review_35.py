"""Session 35: a rule-by-rule review of 001 ("The cluster workload management algorithm") and
of 000's workload and bind-option sections ("WebSphere MQ Clustering": §Workload balancing -
Bind Options, §When does workload balancing occur?, §Workload management features, §Rank,
§Channel Weight example, §Cluster Workload Algorithm, §Routing messages in and out of
clusters, Scenarios 1-5) against the spec.

Each test states one rule or worked example that no other test pinned (001 =
001_409bb33830e2113c.txt, 000 = 000_5901d3ec1d32383e.txt). The rules already pinned in
tests/test_workload.py, test_workload_network.py, test_binding.py and
test_cluster_seed_review.py are not repeated. docs/decisions.md "Session 35: review of 000
and 001 (workload algorithm, bind options)" says what changed and what was left.
"""

from __future__ import annotations

import textwrap

from spec.network import messages_of, run_scenario
from spec.scenario import parse_scenario
from spec.workload import ClusterReceiver, Put, QmgrView, QueueInstance, choose, distribute


def run(text: str):
    return run_scenario(parse_scenario(textwrap.dedent(text), "review35.toml")).final


def codes(state, qmgr: str) -> list[tuple[int, str]]:
    return [(e.step, e.code) for e in state.log if e.qmgr == qmgr]


APP_AND_SERVER1 = """
    name = "review 35"
    [qmgrs.QMAPP]
    mqsc = '''
    DEFINE CHANNEL(TO.QMAPP) CHLTYPE(CLUSRCVR) CONNAME('qmapp(1414)') CLUSTER(DEMO)
    DEFINE CHANNEL(TO.SERVER1) CHLTYPE(CLUSSDR) CONNAME('server1(1414)') CLUSTER(DEMO)
    '''
    [qmgrs.SERVER1]
    mqsc = '''
    ALTER QMGR REPOS(DEMO)
    DEFINE CHANNEL(TO.SERVER1) CHLTYPE(CLUSRCVR) CONNAME('server1(1414)') CLUSTER(DEMO)
    DEFINE QLOCAL(DEMOQ) CLUSTER(DEMO) PUT(DISABLED)
    '''
"""


# ---------------------------------------------------------------------------------------
# 001 §The cluster workload management algorithm, rule 5 note: "If only put disabled
# instances remain then only inquire operations will succeed, all other operations will fail
# with MQRC_CLUSTER_PUT_INHIBITED"; and 001's first bullet: the algorithm "is used at the
# point a cluster queue is opened, by using the MQOO_BIND_ON_OPEN option".
# ---------------------------------------------------------------------------------------
def test_an_on_open_mqopen_that_finds_only_put_disabled_instances_fails_and_its_handle_is_invalid():
    # QMAPP learns DEMOQ (a NOT_FIXED put, which fails: MQOPEN does not choose for it), then
    # opens it ON_OPEN: the choice at MQOPEN fails, so the MQOPEN fails. The queue is enabled
    # afterwards, but a failed MQOPEN returns no handle: each put through it is
    # MQRC_HOBJ_ERROR (docs/decisions.md "MQOPEN failures"), and nothing arrives. Before the
    # fix the MQOPEN logged the failure yet the handle bound itself at the first put.
    final = run(APP_AND_SERVER1 + """
    [[steps]]
    open = { qmgr = "QMAPP", handle = "warm", queue = "DEMOQ", bind = "NOT_FIXED" }
    [[steps]]
    put = { handle = "warm", count = 1 }
    [[steps]]
    open = { qmgr = "QMAPP", handle = "app", queue = "DEMOQ", bind = "ON_OPEN" }
    [[steps]]
    mqsc = { qmgr = "SERVER1", commands = "ALTER QLOCAL(DEMOQ) PUT(ENABLED)" }
    [[steps]]
    put = { handle = "app", count = 2 }
    [[steps]]
    open = { qmgr = "QMAPP", handle = "again", queue = "DEMOQ", bind = "ON_OPEN" }
    [[steps]]
    put = { handle = "again", count = 1 }
    """)
    assert codes(final, "QMAPP") == [(1, "MQRC_CLUSTER_PUT_INHIBITED"), (2, "MQRC_CLUSTER_PUT_INHIBITED"),
                                     (4, "MQRC_HOBJ_ERROR"), (4, "MQRC_HOBJ_ERROR")]
    assert next(h for h in final.qmgr("QMAPP").handles if h.name == "app").failed == "MQRC_CLUSTER_PUT_INHIBITED"
    # a new MQOPEN once an instance is enabled chooses and succeeds
    assert messages_of(final) == {"again": {"SERVER1": 1}, "app": {}, "warm": {}}


# ---------------------------------------------------------------------------------------
# 001 §The cluster workload management algorithm, final choice: with every channel at the
# default CLWLWGHT(50) "the least recently used channel is chosen"; with a non-default
# weight "(even if they all have a matching non-default value)" routing depends on "the
# relative weightings of each channel and the total number of times each channel has
# previously been chosen"; and the remedy for an uneven spread of one queue: "Set CLWLWGHT
# to 50 on all cluster receiver channels if even distribution is required".
# ---------------------------------------------------------------------------------------
def _shared_channels(weight: int) -> QmgrView:
    def rcvr(q):
        return ClusterReceiver(q, f"TO.{q}", ("C",), clwlwght=weight)
    return QmgrView("QMAPP", local_receivers=(ClusterReceiver("QMAPP", "TO.QMAPP", ("C",)),),
                    receivers=(rcvr("SERVER1"), rcvr("SERVER2")),
                    queues=(QueueInstance("SERVER1", "Q1", ("C",)), QueueInstance("SERVER2", "Q1", ("C",)),
                            QueueInstance("SERVER1", "Q2", ("C",))))


def _q1_after_three_q2(weight: int) -> list[str]:
    v = _shared_channels(weight)
    history = distribute(v, Put("Q2"), 3).history  # Q2 is only on SERVER1: TO.SERVER1 used 3 times
    out = []
    for _ in range(4):
        c = choose(v, Put("Q1"), history)
        out.append(c.destination.qmgr)
        history = c.history
    return out


def test_default_weights_choose_the_least_recently_used_channel():
    # TO.SERVER1 was used more often but TO.SERVER2 more recently after Q1's first put: with
    # every CLWLWGHT at 50 the choice is the least recently used channel, so Q1 alternates
    assert _q1_after_three_q2(50) == ["SERVER2", "SERVER1", "SERVER2", "SERVER1"]


def test_matching_non_default_weights_balance_the_times_each_channel_was_chosen():
    # "(even if they all have a matching non-default value)": the channels' totals are
    # balanced, so Q1 goes to SERVER2 until it has caught up (the "unbalanced distribution
    # across a subset of queue instances" 001 warns of); the tie then goes to the lowest
    # DestSeqNumber
    assert _q1_after_three_q2(40) == ["SERVER2", "SERVER2", "SERVER2", "SERVER1"]

