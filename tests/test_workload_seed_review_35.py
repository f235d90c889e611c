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
from pathlib import Path

from spec.network import messages_of, run_scenario
from spec.scenario import parse_scenario
from spec.workload import ChannelState, ClusterReceiver, Put, QmgrView, QueueInstance, choose, distribute


EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


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


# ---------------------------------------------------------------------------------------
# 001 §The cluster workload management algorithm: the order of the rules where two of them
# pull apart (each test fails with the two rules swapped)
# ---------------------------------------------------------------------------------------
def _view(receivers, queues, **kw) -> QmgrView:
    kw.setdefault("local_receivers", (ClusterReceiver("QMAPP", "TO.QMAPP", ("C",)),))
    return QmgrView(kw.pop("qmgr", "QMAPP"), receivers=tuple(receivers), queues=tuple(queues), **kw)


def test_rule_6_local_instance_comes_before_rule_7_suspend():
    # rule 6 (CLWLUSEQ(LOCAL): "the local instance is used") precedes rule 7, so a queue
    # manager suspended from the cluster still puts its own applications' messages to its
    # local instance (000 §Cluster Workload Algorithm agrees: "If only remote instances of a
    # queue remain, resumed queue managers are chosen in preference to suspended ones")
    v = _view((ClusterReceiver("QMB", "TO.QMB", ("C",)),), (QueueInstance("QMB", "DEMOQ", ("C",)),), qmgr="QMA",
              local_receivers=(ClusterReceiver("QMA", "TO.QMA", ("C",), suspended=True),),
              local_queues=(QueueInstance("QMA", "DEMOQ", ("C",), clwluseq="LOCAL"),))
    assert choose(v, Put("DEMOQ")).destination.local


def test_rule_7_suspend_comes_before_rules_8_to_11_status():
    # a suspended queue manager with a RUNNING channel loses to a resumed one whose channel
    # is RETRYING: rule 7 eliminates first, then the best status among what is left
    v = _view((ClusterReceiver("SERVER1", "TO.SERVER1", ("C",), suspended=True),
               ClusterReceiver("SERVER2", "TO.SERVER2", ("C",))),
              (QueueInstance("SERVER1", "DEMOQ", ("C",)), QueueInstance("SERVER2", "DEMOQ", ("C",))),
              statuses=(ChannelState("SERVER1", "TO.SERVER1", "RUNNING"),
                        ChannelState("SERVER2", "TO.SERVER2", "RETRYING")))
    assert choose(v, Put("DEMOQ")).destination.qmgr == "SERVER2"


def test_rule_12_netprty_compares_the_routes_to_one_queue_manager_only():
    # "channels with the highest NETPRTY value for each queue manager are chosen": a higher
    # NETPRTY on SERVER1's channel does not eliminate SERVER2's
    v = _view((ClusterReceiver("SERVER1", "TO.SERVER1", ("C",), netprty=5), ClusterReceiver("SERVER2", "TO.SERVER2", ("C",))),
              (QueueInstance("SERVER1", "DEMOQ", ("C",)), QueueInstance("SERVER2", "DEMOQ", ("C",))))
    assert distribute(v, Put("DEMOQ"), 4).by_qmgr() == {"SERVER1": 2, "SERVER2": 2}


def test_rule_12_netprty_comes_before_rule_13_channel_priority():
    # two routes to QMB: rule 12 keeps TO.QMB.A (NETPRTY 1) before rule 13 could prefer
    # TO.QMB.B's CLWLPRTY(5)
    v = _view((ClusterReceiver("QMB", "TO.QMB.A", ("C",), netprty=1), ClusterReceiver("QMB", "TO.QMB.B", ("C",), clwlprty=5)),
              (QueueInstance("QMB", "DEMOQ", ("C",)),))
    assert choose(v, Put("DEMOQ")).destination.channel == "TO.QMB.A"


def test_rule_13_channel_priority_comes_before_rule_14_queue_priority():
    # SERVER1's channel CLWLPRTY(1) beats SERVER2's queue CLWLPRTY(5): rule 13 eliminates
    # SERVER2's channel before rule 14 compares the queues
    v = _view((ClusterReceiver("SERVER1", "TO.SERVER1", ("C",), clwlprty=1), ClusterReceiver("SERVER2", "TO.SERVER2", ("C",))),
              (QueueInstance("SERVER1", "DEMOQ", ("C",)), QueueInstance("SERVER2", "DEMOQ", ("C",), clwlprty=5)))
    assert distribute(v, Put("DEMOQ"), 3).by_qmgr() == {"SERVER1": 3}


# ---------------------------------------------------------------------------------------
# 000 §Workload balancing - Bind Options notes: "To choose a new destination, perhaps for the
# next set of messages, close and reopen the destination in order to re-drive the workload
# balancing algorithm to choose a new queue manager."
# ---------------------------------------------------------------------------------------
def test_close_and_reopen_re_drives_the_algorithm_to_a_new_queue_manager():
    text = (EXAMPLES / "wl-bind-options.toml").read_text(encoding="utf-8").split("[[steps]]")[0]
    final = run(text + """
[[steps]]
open = { qmgr = "QMAPP", handle = "first", queue = "DEMOQ", bind = "ON_OPEN" }
[[steps]]
put = { handle = "first", count = 3 }
[[steps]]
close = { handle = "first" }
[[steps]]
open = { qmgr = "QMAPP", handle = "second", queue = "DEMOQ", bind = "ON_OPEN" }
[[steps]]
put = { handle = "second", count = 3 }
""")
    # each handle's messages all go to its one choice, and the second open chose anew (the
    # least recently used channel, every CLWLWGHT being 50)
    assert messages_of(final) == {"first": {"SERVER1": 3}, "second": {"SERVER2": 3}}


# ---------------------------------------------------------------------------------------
# 000 §Routing messages in and out of clusters, Scenarios 1, 4 and 5: what each scenario
# says the application can and cannot reach "without admin changes"
# ---------------------------------------------------------------------------------------
def test_scenario_1_reaches_any_queue_on_qmb_and_none_on_qmc():
    # "Without admin changes our app could put to any queue (clustered or not) on QMB. But...
    # can't put to queues on QMC or QMD"
    text = (EXAMPLES / "wl-routing-scenario1.toml").read_text(encoding="utf-8").split("[[steps]]")[0]
    text = text.replace("DEFINE QLOCAL(CQ1) CLUSTER(BLUE)\n'''\n[qmgrs.QMC]",
                        "DEFINE QLOCAL(CQ1) CLUSTER(BLUE)\nDEFINE QLOCAL(PLAIN)\n'''\n[qmgrs.QMC]", 1)
    assert "QLOCAL(PLAIN)" in text
    final = run(text + """
[[steps]]
open = { qmgr = "QMX", handle = "plain", queue = "PLAIN", target_qmgr = "QMB", bind = "NOT_FIXED" }
[[steps]]
put = { handle = "plain", count = 2 }
[[steps]]
open = { qmgr = "QMX", handle = "qmc", queue = "CQ1", target_qmgr = "QMC", bind = "NOT_FIXED" }
[[steps]]
put = { handle = "qmc", count = 1 }
""")
    assert messages_of(final) == {"plain": {"QMB": 2}, "qmc": {}}
    assert codes(final, "QMX") == [(2, "MQRC_UNKNOWN_REMOTE_Q_MGR"), (3, "MQRC_HOBJ_ERROR")]


GATEWAY_CQ2 = """
[[steps]]
open = { qmgr = "QMA", handle = "cqm", queue = "CQ2", target_qmgr = "CQM", bind = "NOT_FIXED" }
[[steps]]
put = { handle = "cqm", count = 4 }
[[steps]]
open = { qmgr = "QMA", handle = "plain", queue = "CQ2", bind = "NOT_FIXED" }
[[steps]]
put = { handle = "plain", count = 1 }
"""


def test_scenario_5_reaches_any_cluster_queue_in_red_and_scenario_4_needs_an_alias_per_queue():
    # Scenario 5: "Now our app can put to any cluster queue in cluster RED" — CQ2, defined
    # in RED after the gateway's QREMOTE(CQM) RNAME(' ') RQMNAME(' '), is reached through it
    # with no new definition. Scenario 4: "But... need an alias for each queue" — without a
    # QALIAS for CQ2 on the gateway, BLUE's QMA cannot open CQ2 by name alone.
    text = (EXAMPLES / "wl-gateway-scenarios.toml").read_text(encoding="utf-8").split("[[steps]]")[0]
    for host in ("QMF", "QMG"):
        head = f"[qmgrs.{host}]\nmqsc = '''\n"
        assert head in text
        text = text.replace(head, head + "DEFINE QLOCAL(CQ2) CLUSTER(RED)\n", 1)
    final = run(text + GATEWAY_CQ2)
    assert messages_of(final) == {"cqm": {"QMF": 2, "QMG": 2}, "plain": {}}
    assert codes(final, "QMA") == [(2, "MQRC_UNKNOWN_OBJECT_NAME"), (3, "MQRC_HOBJ_ERROR")]
