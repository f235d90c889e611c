"""The delivery memo (spec/network/memo.py): replayed deliveries are the transitions the
specification computes, byte for byte, on every bundled example and on generated
configurations; a delivery that writes outside its projection is never replayed; a
projection that misses a read is caught by ``verify``."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from checker.explore import explore
from spec.encoding import canonical_bytes
from spec.network import MQNetwork, NetworkState
from spec.network.memo import DIRECT, DeliveryMemo, MemoMismatch
from spec.network.state import Channel, LogEntry, QmgrState, put_qmgr
from spec import objects, repository as rp
from spec.pubsub import LocalPubSub
from spec.scenario import load_scenario, parse_scenario
from spec.strategies import configurations
from spec.values import replace

EXAMPLES = sorted((Path(__file__).resolve().parent.parent / "examples").glob("*.toml"))
BOUND = 250


def _run(scenario, memo: str, explore_initial: bool, bound: int = BOUND):
    model = MQNetwork(scenario, [], explore_initial=explore_initial, memo=memo)
    result = explore(model, max_states=bound, workers=1)
    st = result.statistics
    return (st.distinct_states, st.generated_states, st.max_depth, st.levels), model.memo


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_every_replay_is_the_transition_on_every_example(path):
    """``verify`` recomputes every replayed delivery and raises on a difference; the
    counts are those of the engine without the memo."""
    scenario = load_scenario(path)
    for initial in (True, False):
        off, _ = _run(scenario, "off", initial)
        on, memo = _run(scenario, "verify", initial)
        assert on == off, (path.name, initial)
    assert memo is not None


def test_the_memo_is_used_where_it_pays():
    """fr-mesh-broken with the joining explored: most deliveries are replays."""
    scenario = load_scenario(next(p for p in EXAMPLES if p.name == "fr-mesh-broken.toml"))
    _, memo = _run(scenario, "on", True, bound=3000)
    assert memo.hits > 4 * memo.misses > 0
    assert memo.direct == 0


def test_mqsc_steps_are_replayed_too():
    """fr-mesh-broken's two MQSC steps at PR1 repeat from a few local situations while the
    full repositories' joining interleaves with them: they are replayed, and exactly."""
    scenario = load_scenario(next(p for p in EXAMPLES if p.name == "fr-mesh-broken.toml"))
    model = MQNetwork(scenario, [], explore_initial=True, memo="verify")
    assert model._memo_steps == {0, 1}
    calls = []
    deliver = model.memo.deliver
    model.memo.deliver = lambda state, dst, msg, process: calls.append(type(msg).__name__) or deliver(
        state, dst, msg, process)
    explore(model, max_states=3000, workers=1)
    assert calls.count("MqscStep") > 100
    assert model.memo.hits > 0 and model.memo.direct == 0


def _reachable(model, bound: int):
    """The first ``bound`` states of a breadth-first search (the model's own transitions)."""
    seen, frontier, out = set(), list(model.init_states()), []
    while frontier and len(out) < bound:
        nxt = []
        for s in frontier:
            if s in seen or len(out) >= bound:
                continue
            seen.add(s)
            out.append(s)
            nxt.extend(t for a in model.actions(s) if (t := model.next_state(s, a)) is not None)
        frontier = nxt
    return out


@pytest.mark.parametrize("path", [p for p in EXAMPLES if p.name.startswith("ps-")], ids=lambda p: p.name)
def test_after_every_transition_reconciling_is_a_no_op(path):
    """The premise of memoising an MQSC step (memo.py): after a step every queue manager
    is reconciled, and for each one the step did not change that must be a no-op. So on
    every reachable state no queue manager has an unstamped subscription or an unjudged
    PARENT, and reconciling any queue manager changes nothing."""
    from spec import pubsub as ps
    from spec.network.pubsub import _ps_reconcile
    scenario = load_scenario(path)
    for initial in (True, False):
        model = MQNetwork(scenario, [], explore_initial=initial, memo="off")
        for state in _reachable(model, 300):
            for q in state.qmgrs:
                assert all(sub.created != ps.UNSTAMPED for sub in q.pubsub.subscriptions), (path.name, q.name)
                assert q.defs.parent == q.pubsub.parent_judged, (path.name, q.name)
                after = _ps_reconcile(state, q.name, model.mutations)
                assert canonical_bytes(after) == canonical_bytes(state), (path.name, initial, q.name)


def test_a_step_with_alter_qmgr_is_not_memoised():
    """ALTER QMGR may change another queue manager's publish/subscribe neighbours (PARENT,
    PSMODE): reconciling that one after the step then depends on its own state, which a
    step's key leaves out. Such a step is computed in full; the others are memoised."""
    scenario = parse_scenario("""
name = "steps at Q"
[qmgrs.Y]
[qmgrs.Q]
[[steps]]
mqsc = { qmgr = "Q", commands = "DEFINE QLOCAL(A)" }
[[steps]]
mqsc = { qmgr = "Q", commands = '''
DEFINE QLOCAL(B)
ALTER QMGR PARENT(Y)
''' }
[[steps]]
subscribe = { qmgr = "Q", name = "S", topic = "Sport" }
""", "steps.toml")
    assert MQNetwork(scenario, [])._memo_steps == {0}


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(configurations(max_qmgrs=3, max_steps=3))
def test_generated_configurations_replay_exactly(config):
    scenario = parse_scenario(config.to_toml(), "generated.toml")
    initial = config.explore_initial
    off, _ = _run(scenario, "off", initial, bound=150)
    on, _ = _run(scenario, "verify", initial, bound=150)
    assert on == off


# --- the mechanism, on hand-made states --------------------------------------------------

def _state(other_caches=()) -> NetworkState:
    a = QmgrState("QA", objects.QueueManagerDef("QA"), LocalPubSub())
    b = QmgrState("QB", objects.QueueManagerDef("QB"), LocalPubSub(), caches=other_caches)
    return NetworkState((a, b), (Channel("QA", "QB", "RUNNING", ("m1",)), Channel("QB", "QA", "RUNNING", ("m2",))))


def _log(state: NetworkState, text: str) -> NetworkState:
    return replace(state, logs=(("QA", (LogEntry("QA", "X", text, 0),)),))


def test_the_projection_keeps_what_the_docstring_says():
    memo = DeliveryMemo()
    cache = rp.ClusterCache("C", full=True)
    s = _state((cache,))
    p = memo.project(s, "QA")
    assert p.qmgrs[0] is s.qmgrs[0]
    assert p.qmgrs[1].caches == () and p.qmgrs[1].defs is s.qmgrs[1].defs
    assert [(c.src, c.dst) for c in p.channels] == [("QA", "QB")]
    assert p.logs == ()


def test_a_delivery_that_writes_outside_its_projection_is_never_replayed():
    memo = DeliveryMemo()
    cache = rp.ClusterCache("C", full=True)

    def writes_other_cache(s):  # QA's delivery changes QB's cache: not replayable
        return put_qmgr(s, replace(s.qmgrs[1], caches=(cache,)))

    s = _state()
    results = [memo.deliver(s, "QA", "msg", writes_other_cache) for _ in range(3)]
    assert (memo.misses, memo.learnt, memo.direct, memo.hits) == (1, 1, 1, 0)
    assert len({canonical_bytes(r) for r in results}) == 1
    assert canonical_bytes(results[0]) == canonical_bytes(writes_other_cache(s))
    assert DIRECT is None


def test_a_delivery_that_fails_on_its_projection_is_computed_in_full():
    memo = DeliveryMemo()

    def needs_qb_incoming(s):   # the channel into QA is not in QA's projection
        return _log(s, str(next(c for c in s.channels if c.dst == "QA").messages))

    s = _state()
    results = [memo.deliver(s, "QA", "msg", needs_qb_incoming) for _ in range(3)]
    assert (memo.learnt, memo.direct, memo.hits) == (1, 1, 0)
    assert all(canonical_bytes(r) == canonical_bytes(needs_qb_incoming(s)) for r in results)


def test_a_replay_is_the_transition_it_records():
    memo = DeliveryMemo()

    def sends_and_logs(s):  # as channels.send does: the channel from QA gets one more message
        return _log(replace(s, channels=tuple(replace(c, messages=c.messages + ("m3",)) if c.src == "QA" else c
                                              for c in s.channels)), "done")

    first = _state()
    for _ in range(2):   # met, then learnt
        assert canonical_bytes(memo.deliver(first, "QA", "msg", sends_and_logs)) == canonical_bytes(sends_and_logs(first))
    # another global state with the same projection: QB's incoming channel holds more
    second = replace(first, channels=(first.channels[0], Channel("QB", "QA", "RUNNING", ("m2", "m9"))))
    replayed = memo.deliver(second, "QA", "msg", sends_and_logs)
    assert memo.hits == 1
    assert canonical_bytes(replayed) == canonical_bytes(sends_and_logs(second))
    assert replayed.channels[1].messages == ("m2", "m9")


def test_verify_catches_a_read_outside_the_projection():
    """A delivery that (wrongly for the memo) reads another queue manager's cache: the first
    visit cannot tell, a later state with another cache there is replayed wrongly by "on"
    and caught by "verify"."""
    def reads_other_cache(s):
        return _log(s, f"QB holds {len(s.qmgrs[1].caches)} caches")

    without, with_cache = _state(), _state((rp.ClusterCache("C"),))
    for mode in ("on", "verify"):
        memo = DeliveryMemo(mode)
        memo.deliver(without, "QA", "msg", reads_other_cache)   # met
        memo.deliver(without, "QA", "msg", reads_other_cache)   # learnt: right for this state
        if mode == "on":
            wrong = memo.deliver(with_cache, "QA", "msg", reads_other_cache)
            assert canonical_bytes(wrong) != canonical_bytes(reads_other_cache(with_cache))
        else:
            with pytest.raises(MemoMismatch, match="differs from the transition"):
                memo.deliver(with_cache, "QA", "msg", reads_other_cache)


def test_a_pickled_model_uses_its_process_memo():
    """The memo is not shipped; every unpickled copy (a Spark task) uses one memo per
    process and mutant switches, which outlives the task."""
    from spec.network.state import Mutations

    model = MQNetwork(load_scenario(next(p for p in EXAMPLES if p.name == "fr-mesh-broken.toml")), [],
                      explore_initial=True)
    explore(model, max_states=200, workers=1)
    assert model.memo.hits + model.memo.misses > 0
    shipped = pickle.dumps(model)
    assert len(shipped) < len(pickle.dumps(model.memo._deltas))
    first, second = pickle.loads(shipped), pickle.loads(shipped)
    assert first.memo is second.memo and first.memo is not model.memo and first.memo.mode == "on"
    mutant = MQNetwork(model.scenario, mutations=Mutations(relay_within_cluster=True))
    assert pickle.loads(pickle.dumps(mutant)).memo is not first.memo
    off = pickle.loads(pickle.dumps(MQNetwork(model.scenario, memo="off")))
    assert off.memo is None


def test_memo_modes():
    scenario = load_scenario(EXAMPLES[0])
    assert MQNetwork(scenario, memo="off").memo is None
    with pytest.raises(ValueError, match="expected 'on', 'off' or 'verify'"):
        MQNetwork(scenario, memo="sometimes")
    from spec.network.state import Mutations
    assert MQNetwork(scenario, mutations=Mutations(explain=True)).memo is None


def test_check_memo_verify_reports_a_wrong_replay_in_one_line(monkeypatch, capsys):
    """A replay made wrong on purpose after the first visit's check (as a projection that
    misses a read would be): ``check --memo verify`` stops with exit 1 and says what
    happened, without a traceback."""
    from checker import cli
    from spec.network import memo as memo_module

    real_apply, checked = memo_module._apply, set()

    def wrong_after_first_check(delta, state, dst):
        if id(delta) not in checked:   # the first visit's check: right
            checked.add(id(delta))
            return real_apply(delta, state, dst)
        return replace(real_apply(delta, state, dst), clock=99)

    monkeypatch.setattr(memo_module, "_apply", wrong_after_first_check)
    example = next(p for p in EXAMPLES if p.name == "fr-mesh-broken.toml")
    status = cli.main(["check", str(example), "--explore-initial", "--max-states", "300", "--memo", "verify",
                       "--workers", "1", "--quiet"])
    err = capsys.readouterr().err
    assert status == 1
    assert "--memo verify: " in err and "differs from the transition" in err and "Traceback" not in err
    assert cli.main(["check", str(example), "--backend", "spark", "--memo", "verify"]) == 2
    assert "--memo verify is for the local backend" in capsys.readouterr().err


def test_the_memo_rests_where_nothing_repeats(monkeypatch):
    """Deliveries that never repeat a local situation (every message new): after a window
    with almost no replay, the memo stops keying for four windows, then looks again."""
    from spec.network import memo as memo_module

    monkeypatch.setattr(memo_module, "WINDOW", 10)
    memo = DeliveryMemo()
    s = _state()
    for i in range(10):
        memo.deliver(s, "QA", f"m{i}", lambda x: x)
    assert memo.misses == 10 and memo.rests == 1   # the tenth closed the window: resting
    for i in range(40):
        assert memo.deliver(s, "QA", f"n{i}", lambda x: _log(x, "in full")).logs   # computed in full
    assert memo.misses == 10
    memo.deliver(s, "QA", "again", lambda x: x)
    assert memo.misses == 11


def test_a_situation_is_learnt_on_its_second_visit():
    memo = DeliveryMemo()
    s = _state()
    calls = []

    def counted(x):
        calls.append(x)
        return _log(x, "seen")

    for _ in range(4):
        memo.deliver(s, "QA", "msg", counted)
    # first visit: once; second: on the state and on its projection; then replays
    assert (memo.misses, memo.learnt, memo.hits) == (1, 1, 2) and len(calls) == 3


# --- a step that lets another queue manager send its JOIN ---------------------------------
# A review of the engine's caches found this: an MQSC step replayed from the memo must be
# the step the specification takes, also where the step lets another queue manager send a
# JOIN it could not send before (``retry_joins``), which the memo's key cannot see.
# B's manual CLUSSDR names 'x(1414)'. C's CLUSRCVR listens there for steps 0-1 only; A's from
# step 2. Where B ran through steps 0-1, B has joined over 'x(1414)' (to C), and A's step
# makes no JOIN; where a fault stopped B meanwhile, B restarts not joined, and A's step lets
# B send its JOIN to A (``retry_joins``). The step's key (A whole; of B its name,
# definitions, incarnation, running flag and handles) is the same in both, with the fault
# budget spent either way.
REJOIN = """
name = "a manual CLUSSDR that finds its listener again"
[qmgrs.A]
[qmgrs.B]
mqsc = '''
DEFINE CHANNEL(TO.B) CHLTYPE(CLUSRCVR) CONNAME('b(1414)') CLUSTER(CL)
DEFINE CHANNEL(TO.X) CHLTYPE(CLUSSDR) CONNAME('x(1414)') CLUSTER(CL)
'''
[qmgrs.C]

[[steps]]
mqsc = { qmgr = "C", commands = "DEFINE CHANNEL(TO.C) CHLTYPE(CLUSRCVR) CONNAME('x(1414)') CLUSTER(CL)" }
[[steps]]
mqsc = { qmgr = "C", commands = "DELETE CHANNEL(TO.C)" }
[[steps]]
mqsc = { qmgr = "A", commands = "DEFINE CHANNEL(TO.A) CHLTYPE(CLUSRCVR) CONNAME('x(1414)') CLUSTER(CL)" }

[check]
faults = true
"""


def _rejoin_counts(memo: str):
    model = MQNetwork(parse_scenario(REJOIN, "rejoin.toml"), [], memo=memo)
    st = explore(model, workers=1).statistics
    return st.distinct_states, st.generated_states, st.max_depth, st.levels


def test_a_step_that_lets_another_queue_manager_join_is_replayed_exactly():
    """``--memo verify`` raised MemoMismatch here, and ``--memo on`` explored 93 states
    against the specification's 92 (a replay without B's JOIN)."""
    off = _rejoin_counts("off")
    assert _rejoin_counts("verify") == off
    assert _rejoin_counts("on") == off
