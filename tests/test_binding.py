"""spec/binding.py: name resolution and DEFBIND, the view built from a repository, the
history as canonical values, and Hypothesis properties of every choice against the naive
reference the WL- properties use (the choice is eligible, has maximal rank, the best
available status class; long runs follow the weights exactly).

Sources: 000 §Workload balancing - Bind Options, §Routing messages in and out of clusters
(Scenarios 1-5), §Rank and Overlapping Clusters; 001; 004 §Pros and cons of binding.
"""

from __future__ import annotations

import pickle
from collections import Counter
from fractions import Fraction

import pytest
from hypothesis import given, settings, strategies as st

from properties.workload import _chosen_routes, _enabled, _local_used, _rank_survivors
from spec import binding as bd
from spec import objects
from spec import workload as wl
from spec.encoding import canonical_bytes
from spec.mqsc import parse


def qmgr_def(name: str, mqsc: str) -> objects.QueueManagerDef:
    defs, outcomes = objects.apply_commands(objects.QueueManagerDef(name), parse(mqsc))
    assert all(o.accepted for o in outcomes), [o.message for o in outcomes]
    return defs


# ---------------------------------------------------------------------------------------
# Name resolution before the algorithm — 000 §Routing messages in and out of clusters
# ---------------------------------------------------------------------------------------
GATEWAY = qmgr_def("QMA", """
DEFINE QREMOTE(CQM) RNAME(' ') RQMNAME(' ')
DEFINE QREMOTE(QMBALIAS) RNAME(' ') RQMNAME(QMB)
DEFINE QREMOTE(SELF) RNAME(' ') RQMNAME(QMA)
DEFINE QREMOTE(QMBX) RNAME(' ') RQMNAME(QMB) XMITQ(XQ)
DEFINE QREMOTE(QMSAME) RNAME(' ') RQMNAME(QMSAME)
DEFINE QREMOTE(REMOTEX) RNAME(REMQ) RQMNAME(QMB) XMITQ(XQ)
DEFINE QREMOTE(LOCALQ) RNAME(REMQ) RQMNAME(QMB)
DEFINE QALIAS(ACQ1) TARGET(CQ1) DEFBIND(NOTFIXED)
DEFINE QALIAS(GROUPED) TARGET(CQ1) DEFBIND(GROUP)
DEFINE QALIAS(CLUSQ) TARGET(CLUSQ) CLUSTER(INNER)
DEFINE QLOCAL(PRIVATE)
DEFINE QLOCAL(SHARED) CLUSTER(BLUE) DEFBIND(NOTFIXED)
DEFINE QLOCAL(XQ) USAGE(XMITQ)
DEFINE QALIAS(LOOP1) TARGET(LOOP2)
DEFINE QALIAS(LOOP2) TARGET(LOOP1)
""")


@pytest.mark.parametrize("queue,target,expected", [
    # Scenario 3: QREMOTE(CQM) RNAME(' ') RQMNAME(' ') removes the queue manager name
    ("CQ1", "CQM", bd.Resolved("cluster", "CQ1", "", "")),
    # a queue manager alias maps the name (Scenario 1's QREMOTE(QMB) RQMNAME(QMB))
    ("CQ1", "QMBALIAS", bd.Resolved("cluster", "CQ1", "QMB", "")),
    # a remote queue definition names queue and queue manager; its DEFBIND is OPEN
    ("LOCALQ", "", bd.Resolved("cluster", "REMQ", "QMB", "OPEN")),
    # a queue alias: the alias's own DEFBIND (004 "don't forget aliases")
    ("ACQ1", "", bd.Resolved("cluster", "CQ1", "", "NOTFIXED")),
    ("GROUPED", "", bd.Resolved("cluster", "CQ1", "", "GROUP")),
    # a gateway's alias of the cluster queue of the same name: the name goes to the cluster
    # and the alias is not the local instance (000 §Rank and Overlapping Clusters)
    ("CLUSQ", "", bd.Resolved("cluster", "CLUSQ", "", "OPEN", exclude_local=True)),
    # a non-clustered local queue never reaches the algorithm; a clustered one competes
    ("PRIVATE", "", bd.Resolved("local", "PRIVATE", "", "OPEN")),
    ("SHARED", "", bd.Resolved("cluster", "SHARED", "", "NOTFIXED")),
    # naming this queue manager is naming no queue manager
    ("PRIVATE", "QMA", bd.Resolved("local", "PRIVATE", "", "OPEN")),
    # ... but it fixes the destination: a clustered local queue named with this queue
    # manager is put to here, not balanced (DESIGN §3.6; 000 Scenario 1 "put to CQ1 on QMB")
    ("SHARED", "QMA", bd.Resolved("local", "SHARED", "", "NOTFIXED")),
    # a queue manager alias that maps the name to this queue manager does the same (000
    # Scenario 2's QREMOTE(CQM) RNAME(' ') RQMNAME(QMB) on QMB)
    ("SHARED", "SELF", bd.Resolved("local", "SHARED", "", "NOTFIXED")),
    # 000 Scenario 1 at QMX: a queue manager alias with XMITQ sends through it, and a
    # transmission queue named like the queue manager is used when no alias exists
    ("CQ1", "QMBX", bd.Resolved("xmitq", "CQ1", "QMB", "", xmitq="XQ")),
    ("CQ1", "XQ", bd.Resolved("xmitq", "CQ1", "XQ", "", xmitq="XQ")),
    # a remote queue definition with its own XMITQ
    ("REMOTEX", "", bd.Resolved("xmitq", "REMQ", "QMB", "OPEN", xmitq="XQ")),
    # QREMOTE(X) RNAME(' ') RQMNAME(X) without XMITQ names X itself: the cluster's business
    ("CQ1", "QMSAME", bd.Resolved("cluster", "CQ1", "QMSAME", "")),
    # unknown here: the cluster's business
    ("CQ1", "", bd.Resolved("cluster", "CQ1", "", "")),
    ("CQ1", "QMZ", bd.Resolved("cluster", "CQ1", "QMZ", "")),
])
def test_resolve_local(queue, target, expected):
    assert bd.resolve_local(GATEWAY, "QMA", queue, target) == expected


@pytest.mark.parametrize("queue,reason", [
    ("XQ", "MQRC_UNKNOWN_OBJECT_NAME"),
    ("LOOP1", "MQRC_ALIAS_BASE_Q_TYPE_ERROR"),
])
def test_resolve_local_errors(queue, reason):
    res = bd.resolve_local(GATEWAY, "QMA", queue)
    assert (res.kind, res.reason) == ("error", reason)


@pytest.mark.parametrize("target", ["QMA", "SELF"])
def test_a_queue_named_at_this_queue_manager_is_looked_up_here_only(target):
    # ObjectQmgrName naming this queue manager (directly or through a queue manager alias
    # mapping to it) fixes the destination here (DESIGN §3.6; 000 §Routing messages in and
    # out of clusters, Scenario 1): an object not defined here is unknown, even if the
    # cluster has instances (or a clustered alias) of that name elsewhere — the seeds are
    # silent on the failure; MQ's name resolution reports MQRC_UNKNOWN_OBJECT_NAME, and at
    # the far end the receiving channel dead-letters the message (Session 30)
    res = bd.resolve_local(GATEWAY, "QMA", "CQ1", target)
    assert (res.kind, res.reason) == ("error", "MQRC_UNKNOWN_OBJECT_NAME")
    # the gateway's own clustered alias still passes the name on to the cluster: that is
    # what a message chosen for the alias arrives as (000 §Rank and Overlapping Clusters)
    assert bd.resolve_local(GATEWAY, "QMA", "CLUSQ", target) == bd.Resolved(
        "cluster", "CLUSQ", "", "OPEN", exclude_local=True)


@pytest.mark.parametrize("defbind,bind", [("OPEN", "ON_OPEN"), ("NOTFIXED", "NOT_FIXED"), ("GROUP", "ON_GROUP")])
def test_defbind_to_bind_option(defbind, bind):
    # 000 §Workload balancing - Bind Options: DEFBIND OPEN (default) / NOTFIXED; GROUP (v7+)
    assert bd.bind_from_defbind(defbind) == bind


# ---------------------------------------------------------------------------------------
# The view from a repository (DESIGN §3.5)
# ---------------------------------------------------------------------------------------
def test_view_built_from_the_settled_repository():
    from spec.scenario import load_scenario
    from spec.network import MQNetwork

    scenario = load_scenario("examples/wl-queue-rank.toml")
    model = MQNetwork(scenario)
    (state,) = model.init_states()
    # SERVER1 is a full repository: it holds every queue manager's and queue's record
    view = bd.view_of(state.qmgr("SERVER1"), {"SERVER2": "RETRYING"})
    assert [(r.qmgr, r.clwlrank) for r in view.receivers if r.qmgr.startswith("SERVER")] == [
        ("SERVER2", 7), ("SERVER3", 7), ("SERVER4", 3)]
    assert [(q.qmgr, q.clwlrank) for q in view.queues] == [("SERVER2", 1), ("SERVER3", 0), ("SERVER4", 0)]
    assert [(q.name, q.clwlrank) for q in view.local_queues] == [("DEMOQ", 6)]
    assert view.status("SERVER2", "TO.SERVER2") is wl.ChannelStatus.RETRYING
    assert view.clusters == frozenset({"DEMO"})
    # a fresh partial repository knows nothing of DEMOQ until it opens it (000 §First MQOPEN)
    app = bd.view_of(state.qmgr("QMAPP"), {})
    assert not bd.candidates(app, wl.Put("DEMOQ"))


def test_history_freezes_to_canonical_values():
    h = wl.History().charged("QMB", "TO.QMB", 30).charged("QMC", "TO.QMC", 50)
    frozen = bd.freeze_history(h)
    assert bd.thaw_history(frozen) == h
    assert bd.thaw_history(frozen).factor("QMB", "TO.QMB") == Fraction(100, 3)
    assert canonical_bytes(frozen) == canonical_bytes(bd.freeze_history(h))
    assert pickle.loads(pickle.dumps(frozen)) == frozen


def test_messages_and_handles_are_values():
    m = bd.AppMessage("h1", 3, "DEMOQ", "", True, "g1", ("QMAPP", "QMA"))
    assert str(m) == "MSG h1#3 to DEMOQ (bound) via QMAPP>QMA"
    h = bd.Handle("h1", "QMAPP", "DEMOQ", bound=wl.Destination("QMB", "TO.QMB"))
    assert canonical_bytes((m, h)) and hash((m, h)) == hash(pickle.loads(pickle.dumps((m, h))))


# ---------------------------------------------------------------------------------------
# Hypothesis: every choice against the naive reference (properties/workload.py helpers)
# ---------------------------------------------------------------------------------------
STATUSES = [s.value for s in wl.ChannelStatus]


@st.composite
def views(draw):
    n = draw(st.integers(1, 4))
    receivers, queues, statuses = [], [], []
    for i in range(n):
        name = f"QM{i}"
        receivers.append(wl.ClusterReceiver(name, f"TO.{name}", ("C",), draw(st.integers(1, 99)),
                                            draw(st.integers(0, 2)), draw(st.integers(0, 1)), 0,
                                            draw(st.booleans())))
        queues.append(wl.QueueInstance(name, "Q", ("C",), draw(st.booleans()), draw(st.integers(0, 2)),
                                       draw(st.integers(0, 1))))
        statuses.append(wl.ChannelState(name, f"TO.{name}", draw(st.sampled_from(STATUSES))))
    local = draw(st.booleans())
    local_queues = (wl.QueueInstance("APP", "Q", ("C",), draw(st.booleans()), draw(st.integers(0, 2)), 0,
                                     draw(st.sampled_from(["LOCAL", "ANY", "QMGR"]))),) if local else ()
    return wl.QmgrView("APP", (wl.ClusterReceiver("APP", "TO.APP", ("C",)),), tuple(receivers), tuple(queues),
                       (), local_queues, tuple(statuses), draw(st.sampled_from(["LOCAL", "ANY"])))


@settings(max_examples=150, deadline=None)
@given(views(), st.booleans())
def test_every_choice_is_eligible_ranked_and_in_the_best_status_class(view, via_channel):
    choice, d = bd.decide(view, wl.Put("Q", via_cluster_channel=via_channel), wl.History(), "h", 0, "NOT_FIXED")
    survivors = _rank_survivors(d)
    if not any(c.put_enabled for c in survivors):
        assert choice.reason is wl.Reason.MQRC_CLUSTER_PUT_INHIBITED
        return
    chosen = _chosen_routes(d)
    assert chosen, "the choice is one of the routes that survived rules 1-2"
    assert any(c in survivors for c in chosen), "maximal channel rank, then queue rank"
    assert any(c.put_enabled for c in chosen)
    if _local_used(d):
        assert choice.destination.local
        return
    kept = _enabled(survivors)
    if len({c.qmgr for c in kept}) > 1 and not all(c.suspended for c in kept):
        kept = [c for c in kept if not c.suspended]
    assert any(c.status_class == min(k.status_class for k in kept) for c in chosen)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(1, 99), min_size=2, max_size=4), st.integers(1, 3))
def test_long_runs_follow_the_weights_exactly(weights, cycles):
    # 001 final choice: counts exactly proportional at every full weight cycle, and no
    # channel ever more than one weighted pick ahead of another
    receivers = tuple(wl.ClusterReceiver(f"QM{i}", f"TO.QM{i}", ("C",), w) for i, w in enumerate(weights))
    view = wl.QmgrView("APP", (wl.ClusterReceiver("APP", "TO.APP", ("C",)),), receivers,
                       tuple(wl.QueueInstance(r.qmgr, "Q", ("C",)) for r in receivers))
    n = min(cycles * wl.weight_cycle(weights), 400)
    history, counts = wl.History(), Counter()
    for _ in range(n):
        c = wl.choose(view, wl.Put("Q"), history)
        history = c.history
        counts[c.destination.qmgr] += 1
        for i, wi in enumerate(weights):
            for j, wj in enumerate(weights):
                assert (counts[f"QM{i}"] - 1) * wj <= counts[f"QM{j}"] * wi
    if n % wl.weight_cycle(weights) == 0:
        assert all(counts[f"QM{i}"] * sum(weights) == n * w for i, w in enumerate(weights))
