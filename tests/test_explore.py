"""checker.explore: pinned counts and counterexamples of the test models (Stateright's
``assert_discovery`` habit), bounds and honest incomplete verdicts, Ctrl-C, determinism
across PYTHONHASHSEED values, the forked worker, and a differential Hypothesis test
against a naive BFS on random graphs."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections import deque
from pathlib import Path

import networkx as nx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import checker.explore as explore_mod
from checker.explore import ExplorationError, FingerprintSet, explore, fingerprint
from checker.model import Property, Result, Status, format_verdict
from checker.test_util import (
    BoundedCounters,
    CounterRing,
    DirectedGraph,
    DoubleOrIncrement,
    Grid,
    InterruptAfter,
    PingPongLivelock,
    VacuousInvariant,
)

ROOT = Path(__file__).resolve().parent.parent


def counts(r: Result) -> tuple[int, int, int]:
    s = r.statistics
    return s.distinct_states, s.generated_states, s.max_depth


def status(r: Result) -> dict[str, str]:
    return {pid: v.status.value for pid, v in r.verdicts.items()}


# ============================================================ pinned discoveries
def test_tiny_graph():
    r = explore(DirectedGraph({0: [1, 2], 1: [3], 2: [3]}), workers=1)
    assert counts(r) == (4, 5, 2)
    assert r.complete and r.statistics.stop_reason == ""
    assert r.backend == "local" and r.model == "DirectedGraph"


def test_bounded_counters_pinned_counts_verdicts_and_traces():
    r = explore(BoundedCounters(3), workers=1)
    assert counts(r) == (16, 25, 6)
    assert status(r) == {
        "SUM-BOUNDED": "holds", "BOTH-FULL": "witnessed", "SUM-SMALL": "violated",
        "FULL-AT-REST": "holds", "COUNTERS-STOP": "holds", "SOME-CONFIG": "not checked on this backend",
    }
    assert r.verdicts["SUM-SMALL"].trace.actions() == ["IncX", "IncX", "IncX", "IncY"]
    assert r.verdicts["BOTH-FULL"].trace.actions() == ["IncX"] * 3 + ["IncY"] * 3
    assert not r.verdicts["SUM-BOUNDED"].vacuous and r.verdicts["SUM-BOUNDED"].witness == "BOTH-FULL"
    assert format_verdict(r.verdicts["SUM-BOUNDED"]) == "holds (complete: 16 states)"
    assert format_verdict(r.verdicts["SUM-SMALL"]) == "violated (trace of 4 steps)"
    assert "Z3" in r.verdicts["SOME-CONFIG"].note
    assert r.exit_status() == 1


def test_trace_steps_show_the_initial_state_and_then_only_what_changed():
    steps = explore(BoundedCounters(3), workers=1).verdicts["SUM-SMALL"].trace.steps
    assert [s.action for s in steps] == [None, "IncX", "IncX", "IncX", "IncY"]
    assert steps[0].state == {"x": 0, "y": 0}
    assert [s.state for s in steps[1:]] == [{"x": 1}, {"x": 2}, {"x": 3}, {"y": 1}]
    assert all(s.internal for s in steps[1:])
    assert len({s.fingerprint for s in steps}) == 5


def test_shortest_counterexample_is_found_and_replayed():
    r = explore(DoubleOrIncrement(), workers=1)
    assert counts(r) == (20, 30, 6)
    trace = r.verdicts["NEVER-TARGET"].trace
    assert trace.actions() == ["Double", "Double", "Increment", "Double"]
    assert [s.state.get("value") for s in trace.steps] == [1, 2, 4, 5, 10]


def test_livelock_gives_a_lasso():
    r = explore(PingPongLivelock(), workers=1)
    assert counts(r) == (4, 5, 3)
    v = r.verdicts["CONVERSATION-ENDS"]
    assert v.status is Status.VIOLATED
    assert v.trace.actions() == ["Start", "Send", "Bounce"]
    assert v.trace.loop_start == 1
    assert v.trace.steps[1].fingerprint == v.trace.steps[-1].fingerprint   # back where the cycle began
    assert [s.internal for s in v.trace.steps[1:]] == [False, True, True]
    assert format_verdict(v) == "violated (lasso: 1-step prefix, 2-step cycle)"
    assert r.verdicts["DROPPED-AT-REST"].status is Status.HOLDS     # state 0 is quiescent too
    assert r.verdicts["NEVER-DROPPED"].trace.actions() == ["Start", "Send", "Drop"]


def test_back_edge_without_a_cycle_still_terminates():
    # 3 -> 1 goes back to a shallower level, but there is no cycle: the second pass says so
    props = [Property.eventually("T", "terminates")]
    r = explore(DirectedGraph({0: [1, 2], 2: [3], 3: [1]}, properties=props), workers=1)
    assert counts(r) == (4, 5, 2)
    assert r.verdicts["T"].status is Status.HOLDS


def test_self_loop_is_a_one_step_cycle():
    props = [Property.eventually("T", "terminates")]
    r = explore(DirectedGraph({0: [1], 1: [1]}, properties=props), workers=1)
    t = r.verdicts["T"].trace
    assert t.actions() == ["0->1", "1->1"] and t.loop_start == 1


def test_cycles_of_external_actions_do_not_break_termination():
    props = [Property.eventually("T", "terminates")]
    r = explore(DirectedGraph({0: [1], 1: [0]}, properties=props, external=[(1, 0)]), workers=1)
    assert r.verdicts["T"].status is Status.HOLDS


@pytest.mark.parametrize("chunk", [1, 2048])
def test_an_internal_edge_back_to_a_state_an_external_edge_reached_first_is_a_back_edge(monkeypatch, chunk):
    # level 1 is {1, 2}: 1 -> 0 (external) reaches 0 first, then 2 -> 0 (internal) closes
    # the cycle 0 -> 2 -> 0, in a later chunk (CHUNK 1) or in the same one
    monkeypatch.setattr(explore_mod, "CHUNK", chunk)
    props = [Property.eventually("T", "terminates")]
    r = explore(DirectedGraph({0: [1, 2], 1: [0], 2: [0]}, properties=props, external=[(1, 0)]), workers=1)
    assert r.verdicts["T"].status is Status.VIOLATED
    assert r.verdicts["T"].trace.actions() == ["0->2", "2->0"]


def test_vacuous_invariant_is_flagged_by_its_witness():
    r = explore(VacuousInvariant(), workers=1)
    assert counts(r) == (2, 2, 1)
    v = r.verdicts["ACK-NEEDS-SEND"]
    assert v.status is Status.HOLDS and v.vacuous
    assert "VACUOUS" in format_verdict(v)
    assert r.verdicts["ACKED"].status is Status.NEVER_REACHED
    ok = explore(VacuousInvariant(can_send=True), workers=1)
    assert counts(ok) == (6, 8, 3)
    assert not ok.verdicts["ACK-NEEDS-SEND"].vacuous
    assert ok.verdicts["ACKED"].trace.actions() == ["Send", "Ack"]


def test_multiple_and_duplicate_initial_states():
    r = explore(DirectedGraph({0: [2], 1: [2]}, init=(0, 1, 0)), workers=1)
    assert counts(r) == (3, 5, 1)


# ============================================================ property selection
def test_property_ids_select_properties_and_their_witnesses():
    r = explore(BoundedCounters(3), property_ids=["SUM-BOUNDED"], workers=1)
    assert list(r.verdicts) == ["SUM-BOUNDED", "BOTH-FULL"]
    with pytest.raises(ValueError, match="unknown property id.*NOPE"):
        explore(BoundedCounters(3), property_ids=["NOPE"])


def test_a_witness_that_is_not_a_sometimes_property_is_an_error():
    props = [Property.always("A", "a", lambda m, s: True, witness="A")]
    with pytest.raises(ValueError, match="witness 'A' is not a sometimes property"):
        explore(DirectedGraph({0: []}, properties=props))


# ============================================================ bounds: never "holds"
def test_max_states_gives_an_incomplete_run():
    r = explore(BoundedCounters(3), max_states=5, workers=1)
    assert not r.complete and r.statistics.stop_reason == "max_states reached"
    assert r.statistics.distinct_states == 5
    v = r.verdicts["SUM-BOUNDED"]
    assert v.status is Status.HOLDS_UP_TO_BOUND and v.vacuous
    assert format_verdict(v).startswith("holds up to bound (incomplete: 5 states, depth 2, max_states reached)")
    assert r.verdicts["COUNTERS-STOP"].status is Status.HOLDS_UP_TO_BOUND
    assert r.verdicts["BOTH-FULL"].status is Status.NOT_REACHED_UP_TO_BOUND
    assert r.exit_status() == 3
    for verdict in r.verdicts.values():
        assert "holds (complete" not in format_verdict(verdict)


def test_max_depth_gives_an_incomplete_run_unless_nothing_is_beyond():
    r = explore(BoundedCounters(3), max_depth=2, workers=1)
    assert not r.complete and r.statistics.stop_reason == "max_depth reached"
    assert counts(r)[::2] == (6, 2)
    full = explore(BoundedCounters(3), max_depth=6, workers=1)
    assert full.complete and counts(full) == (16, 25, 6)


def test_a_violation_inside_the_bound_is_still_reported():
    r = explore(BoundedCounters(3), max_depth=4, workers=1)
    assert r.verdicts["SUM-SMALL"].status is Status.VIOLATED
    assert r.exit_status() == 1


def test_timeout_and_memory_guard():
    r = explore(BoundedCounters(3), timeout=0, workers=1)
    assert not r.complete and r.statistics.stop_reason.startswith("timeout")
    m = explore(BoundedCounters(3), memory_limit_mb=1, workers=1)
    assert not m.complete and m.statistics.stop_reason.startswith("memory limit")


def test_stop_on_violation():
    r = explore(BoundedCounters(3), stop_on_violation=True, workers=1)
    assert r.statistics.stop_reason == "stopped at first violation" and not r.complete
    assert r.verdicts["SUM-SMALL"].trace.actions() == ["IncX", "IncX", "IncX", "IncY"]
    assert r.verdicts["SUM-BOUNDED"].status is Status.HOLDS_UP_TO_BOUND


def test_ctrl_c_stops_cleanly_with_statistics_so_far():
    r = explore(InterruptAfter(BoundedCounters(3), 10), workers=1)
    assert not r.complete and r.statistics.stop_reason == "interrupted"
    assert counts(r)[0] == 6    # levels 0..2 done; the interrupted level 3 is discarded
    assert r.verdicts["SUM-BOUNDED"].status is Status.HOLDS_UP_TO_BOUND
    assert r.exit_status() == 3


def test_a_non_deterministic_model_is_caught_on_replay():
    class Flaky(DoubleOrIncrement):
        calls = 0

        def actions(self, state):
            Flaky.calls += 1
            acts = ["Double", "Increment"]
            return acts[::-1] if Flaky.calls > 20 else acts   # 20 states explored, then replay

    with pytest.raises(ExplorationError, match="not deterministic"):
        explore(Flaky(), workers=1)


def test_a_non_deterministic_model_is_caught_on_replaying_a_lasso_cycle():
    # the search sees the cycle 0 -> 1 -> 0; replaying it, actions() at 1 lists 1 -> 2
    # first: the "lasso" 0 -> 1 -> 2 did not come back to 0, and was reported as violated
    class Flaky(DirectedGraph):
        calls = 0

        def actions(self, state):
            acts = super().actions(state)
            if state == 1:
                self.calls += 1
                return acts[::-1] if self.calls > 1 else acts
            return acts

    with pytest.raises(ExplorationError, match="not deterministic"):
        explore(Flaky({0: [1], 1: [0, 2]}, properties=[Property.eventually("T", "terminates")]), workers=1)


def test_a_fingerprint_collision_does_not_make_a_terminating_model_violated(monkeypatch):
    # 0 -> 1 -> 2 -> 3 terminates; with 3's fingerprint equal to 1's the search sees the
    # cycle 1 -> 2 -> 1. It used to report "violated" with a lasso 1 -> 2 -> 3 that does not
    # come back to 1; replaying the cycle compares the states themselves
    model = DirectedGraph({0: [1], 1: [2], 2: [3]}, properties=[Property.eventually("T", "terminates")])
    real = explore_mod.blake2b

    def colliding(data, digest_size):
        return real(model.encode(1) if data == model.encode(3) else data, digest_size=digest_size)

    monkeypatch.setattr(explore_mod, "blake2b", colliding)
    with pytest.raises(ExplorationError, match="collision"):
        explore(model, workers=1)


# ============================================================ fingerprints and statistics
def test_fingerprints_are_blake2b_and_128_bits_gives_the_same_answers():
    assert fingerprint(b"") == int.from_bytes(__import__("hashlib").blake2b(b"", digest_size=8).digest(), "little")
    r64 = explore(BoundedCounters(4), workers=1)
    r128 = explore(BoundedCounters(4), fingerprint_bits=128, workers=1)
    assert counts(r64) == counts(r128) and status(r64) == status(r128)
    assert r128.statistics.fingerprint_bits == 128
    assert r128.statistics.collision_probability < r64.statistics.collision_probability
    assert r64.statistics.visited_bytes_per_state == 18.0
    assert r128.statistics.visited_bytes_per_state == 26.0


def test_fingerprint_set_with_colliding_high_words():
    fs = FingerprintSet(128)
    hi, lo = fs.split([(7 << 64) | 1, (7 << 64) | 2, (3 << 64) | 9])
    fs.add(hi, lo, __import__("numpy").arange(3))
    q = fs.split([(7 << 64) | 2, (7 << 64) | 3, (3 << 64) | 9, 5])
    assert fs.lookup(*q).tolist() == [1, -1, 2, -1]


def test_statistics_are_consistent():
    s = explore(BoundedCounters(5), workers=1).statistics
    assert s.distinct_states == 36 and s.generated_states == 61
    assert s.complete and 0 < s.collision_probability < 1e-15
    assert s.states_per_second > 0 and s.seconds > 0


# ============================================================ the forked worker
@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_forked_worker_gives_identical_results(monkeypatch):
    monkeypatch.setattr(explore_mod, "PARALLEL_MIN_LEVEL", 2)
    monkeypatch.setattr(explore_mod, "CHUNK", 2)     # small levels still get a helper
    forks = []
    original = explore_mod._Helper.__init__

    def record(self, *a, **k):
        original(self, *a, **k)
        forks.append(self.pid)

    monkeypatch.setattr(explore_mod._Helper, "__init__", record)
    for model in (BoundedCounters(6), PingPongLivelock(), DoubleOrIncrement(60)):
        one = explore(model, workers=1).to_dict()
        two = explore(model, workers=2).to_dict()
        for d in (one, two):
            d["statistics"].update(seconds=0, states_per_second=0)
        assert one == two
    assert len(forks) == 2     # PingPongLivelock has no level of 2 states


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
@pytest.mark.parametrize("chunk", [1, 2])
def test_the_helpers_states_have_the_right_parents_and_a_level_it_alone_holds_is_expanded(monkeypatch, chunk):
    # Two bugs of the two-process engine, found while recording edges (issue #17): the
    # helper recorded its states' parents as positions in its own share, not in the level
    # (a trace through them failed to replay: "the model is not deterministic"), and a
    # level whose states were all discovered by the helper ended the search (9 -> 1 was
    # never generated, and the run said "complete").
    monkeypatch.setattr(explore_mod, "CHUNK", chunk)
    monkeypatch.setattr(explore_mod, "PARALLEL_MIN_LEVEL", 2)
    g = DirectedGraph({0: [4, 1], 1: [7, 2], 2: [3], 3: [1], 4: [5], 5: [6], 6: [5], 7: [8], 8: [9], 9: [1]},
                      properties=[Property.sometimes("NINE", "node 9 is reached", lambda m, s: s == 9),
                                  Property.eventually("ENDS", "the walk ends")])
    one = explore(g, workers=1).to_dict()
    two = explore(g, workers=2).to_dict()
    for d in (one, two):
        d["statistics"].update(seconds=0, states_per_second=0)
    assert one == two
    assert two["statistics"]["generated_states"] == 13 and two["statistics"]["complete"]


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_ctrl_c_in_the_forked_worker_is_an_interrupt(monkeypatch):
    monkeypatch.setattr(explore_mod, "PARALLEL_MIN_LEVEL", 2)
    monkeypatch.setattr(explore_mod, "CHUNK", 2)
    r = explore(InterruptAfter(BoundedCounters(6), 30), workers=2)
    assert r.statistics.stop_reason == "interrupted"


# ============================================================ deep models, tiers of the visited set
@pytest.mark.parametrize("bits", [64, 128])
def test_a_deep_model_with_tiny_levels(bits):
    # 20,001 states in 5,001 levels of 4: every level goes through the visited set's
    # dict/buffer/main tiers (BUF_MIN is passed several times)
    r = explore(CounterRing(20001), workers=1, fingerprint_bits=bits, property_ids=["BELOW-N"])
    assert counts(r) == (20001, 4 * 20001 + 1, 5000)
    assert r.complete and r.verdicts["BELOW-N"].status is Status.HOLDS
    assert r.statistics.visited_bytes_per_state == (18.0 if bits == 64 else 26.0)


@pytest.mark.parametrize("bits", [64, 128])
def test_fingerprint_set_tiers_agree_with_a_dict(monkeypatch, bits):
    import random
    monkeypatch.setattr(explore_mod, "SMALL_MAX", 5)
    monkeypatch.setattr(explore_mod, "BUF_MIN", 17)
    rng = random.Random(bits)
    fs = FingerprintSet(bits)
    truth: dict[bytes, int] = {}
    size = bits // 8
    for _ in range(60):
        batch = list({rng.getrandbits(bits).to_bytes(size, "little") for _ in range(rng.choice([1, 2, 3, 9, 40]))} - set(truth))
        queries = batch + rng.sample(list(truth), min(len(truth), 12))
        want = [truth.get(d, -1) for d in queries]
        assert fs.find(queries) == want
        h, l = fs.split([int.from_bytes(d, "little") for d in queries])
        assert fs.lookup(h, l).tolist() == want
        fs.add_digests(batch, len(truth))
        truth.update(zip(batch, range(len(truth), len(truth) + len(batch))))
    assert len(fs) == len(truth) and len(fs.hi) > 17     # the main array was merged into
    fs.flush()
    assert len(fs.hi) == len(truth) and fs.find(list(truth)) == list(truth.values())


# ============================================================ shortest lassos
def test_lasso_enters_the_shallowest_cycle_state_by_a_shortest_cycle():
    r = explore(Grid(30), workers=1)
    lasso = r.verdicts["GRID-STOPS"].trace
    assert (lasso.loop_start, lasso.actions()) == (0, ["IncX", "DecX"])
    ring = explore(CounterRing(41), workers=1).verdicts["RING-STOPS"].trace
    assert (ring.loop_start, ring.actions()) == (0, ["+1", "-1"])


def test_lasso_prefix_is_shortest_and_the_cycle_shortest_through_its_entry():
    # 0 -> 1 -> 2 -> 3 -> 1 (3-cycle entered at depth 1); 0 -> 4 -> 5 -> 6 -> 5 (2-cycle
    # entered at depth 2): the shallower entry wins although its cycle is longer. From 1,
    # the long way round 1 -> 7 -> 8 -> 9 -> 1 is also a cycle: the shortest is reported.
    g = DirectedGraph({0: [4, 1], 1: [7, 2], 2: [3], 3: [1], 4: [5], 5: [6], 6: [5], 7: [8], 8: [9], 9: [1]},
                      properties=[Property.eventually("ENDS", "the walk ends")])
    lasso = explore(g, workers=1).verdicts["ENDS"].trace
    assert lasso.loop_start == 1
    assert lasso.actions() == ["0->1", "1->2", "2->3", "3->1"]


# ============================================================ edges recorded for the termination check
class _Counting:
    """Wraps a model and counts next_state calls."""

    def __init__(self, model) -> None:
        self.model, self.calls = model, 0
        self.name = type(model).__name__

    def __getattr__(self, item):
        return getattr(self.model, item)

    def next_state(self, state, action):
        self.calls += 1
        return self.model.next_state(state, action)


def _lasso_models():
    ring = DirectedGraph({0: [4, 1], 1: [7, 2], 2: [3], 3: [1], 4: [5], 5: [6], 6: [5], 7: [8], 8: [9], 9: [1]},
                         properties=[Property.eventually("ENDS", "the walk ends")])
    return [Grid(12), CounterRing(41), PingPongLivelock(), ring, BoundedCounters(6)]


def test_the_termination_check_uses_the_edges_recorded_in_the_search(monkeypatch):
    # the same verdicts, lassos and counts as expanding every state a second time
    # (EDGE_LIMIT -1: nothing is kept, the second pass runs), without the second pass
    for model in _lasso_models():
        counted = _Counting(model)
        recorded = explore(counted, workers=1).to_dict()
        calls = counted.calls
        monkeypatch.setattr(explore_mod, "EDGE_LIMIT", -1)
        counted = _Counting(model)
        again = explore(counted, workers=1).to_dict()
        monkeypatch.undo()
        assert calls <= counted.calls
        if isinstance(model, Grid):   # its lasso needs the termination check: no second expansion
            generated = recorded["statistics"]["generated_states"]
            assert calls < 1.3 * generated and counted.calls > 1.8 * generated, (calls, counted.calls, generated)
        for d in (recorded, again):
            d["statistics"].update(seconds=0, states_per_second=0)
        assert recorded == again, counted.name


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
@pytest.mark.parametrize("chunk", [1, 3])
def test_recorded_edges_agree_with_one_or_two_workers_and_under_bounds(monkeypatch, chunk):
    # a bound cuts the level at a chunk: the edges of the parents past the cut are dropped
    # in either process, so the termination verdict and lasso do not depend on the workers
    monkeypatch.setattr(explore_mod, "CHUNK", chunk)
    monkeypatch.setattr(explore_mod, "PARALLEL_MIN_LEVEL", 2)
    for model in _lasso_models():
        for bounds in ({}, {"max_states": 7}, {"max_states": 30}):
            one = explore(model, workers=1, **bounds).to_dict()
            two = explore(model, workers=2, **bounds).to_dict()
            for d in (one, two):
                d["statistics"].update(seconds=0, states_per_second=0)
            assert one == two, (type(model).__name__, bounds)


# ============================================================ the termination pass honours the bounds
@pytest.mark.parametrize("bound, reason", [({"timeout": 0.0}, "timeout"), ({"memory_limit_mb": 1}, "memory limit")])
def test_the_termination_pass_honours_the_bounds(monkeypatch, bound, reason):
    original = explore_mod._Explorer._find_cycle

    def late(self):   # the first pass is over; the bound is hit during the second
        for k, v in bound.items():
            setattr(self, k, v)
        return original(self)

    monkeypatch.setattr(explore_mod._Explorer, "_find_cycle", late)
    model = Grid(6)
    model.properties = lambda: [Property.eventually("GRID-STOPS", "stops"),
                                Property.always("IN-GRID", "inside", lambda m, s: max(s) <= 6)]
    r = explore(model, workers=1)
    assert r.verdicts["GRID-STOPS"].status is Status.HOLDS_UP_TO_BOUND
    assert "holds (complete" not in format_verdict(r.verdicts["GRID-STOPS"])
    assert not r.complete and r.statistics.stop_reason.startswith(reason)
    assert "termination check" in r.statistics.stop_reason and r.exit_status() == 3
    assert r.verdicts["IN-GRID"].status is Status.HOLDS    # the first pass did finish
    assert r.distinct_states == 49


# ============================================================ bounds cut the level at a chunk
def test_max_states_cuts_the_level_after_the_chunk_that_crosses_it(monkeypatch):
    monkeypatch.setattr(explore_mod, "CHUNK", 1)
    # level 2 is expanded parent by parent: (1,0) alone brings 5 > 4 states, so (0,1) is
    # never expanded: 1 + 2 + 2 generated (the whole level would make 7)
    r = explore(BoundedCounters(3), max_states=4, workers=1)
    assert counts(r) == (4, 5, 2) and r.statistics.stop_reason == "max_states reached"


def test_stop_on_violation_cuts_the_level_after_the_violating_chunk(monkeypatch):
    monkeypatch.setattr(explore_mod, "CHUNK", 1)
    # levels 0-3 hold 10 states (16 - 3 ... generated 1+2+4+6); in level 3 the first
    # parent (3,0) reaches (3,1), x+y = 4: stop there (the whole level: 13 states, 19 generated)
    r = explore(BoundedCounters(3), stop_on_violation=True, workers=1)
    assert counts(r) == (11, 14, 4) and r.statistics.stop_reason == "stopped at first violation"
    assert r.verdicts["SUM-SMALL"].trace.actions() == ["IncX", "IncX", "IncX", "IncY"]


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
@pytest.mark.parametrize("chunk", [1, 3])
def test_bounds_cut_the_same_with_one_or_two_workers(monkeypatch, chunk):
    monkeypatch.setattr(explore_mod, "CHUNK", chunk)
    monkeypatch.setattr(explore_mod, "PARALLEL_MIN_LEVEL", 2)
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from ff_model import FingerprintFlood
    cases = [(BoundedCounters(6), {"max_states": s}) for s in (5, 11, 20, 33)]
    cases += [(FingerprintFlood("tree", 8, cap=1), {"stop_on_violation": True}),
              (FingerprintFlood("tree", 8), {"max_states": 150}), (BoundedCounters(6), {"stop_on_violation": True})]
    for model, bounds in cases:
        one = explore(model, workers=1, **bounds).to_dict()
        two = explore(model, workers=2, **bounds).to_dict()
        for d in (one, two):
            d["statistics"].update(seconds=0, states_per_second=0)
        assert one == two, (model.name, bounds)


# ============================================================ the forked worker's life
class _InChild:
    """Wraps a model: in a forked child (not in `parent`), next_state runs `act` first."""

    def __init__(self, model, act) -> None:
        self.model, self.act, self.parent = model, act, os.getpid()
        self.name = "InChild"

    def __getattr__(self, item):
        return getattr(self.model, item)

    def next_state(self, state, action):
        if os.getpid() != self.parent:
            self.act()
        return self.model.next_state(state, action)


def _gone(pid: int) -> bool:
    try:
        return os.waitpid(pid, os.WNOHANG) != (0, 0)
    except ChildProcessError:
        return True


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_ctrl_c_while_waiting_for_the_child_kills_it(monkeypatch):
    monkeypatch.setattr(explore_mod, "PARALLEL_MIN_LEVEL", 2)
    monkeypatch.setattr(explore_mod, "CHUNK", 2)
    pids = []
    original = explore_mod._Helper.__init__

    def record(self, *a, **k):
        original(self, *a, **k)
        pids.append(self.pid)

    monkeypatch.setattr(explore_mod._Helper, "__init__", record)
    # a Ctrl-C for this process, whatever it inherited: a shell starts background jobs with
    # SIGINT ignored, and the explorer leaves an ignored SIGINT ignored
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    timer = threading.Timer(1.0, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    try:
        r = explore(_InChild(BoundedCounters(6), lambda: time.sleep(60)), workers=2)
    finally:
        timer.cancel()
        signal.signal(signal.SIGINT, before)
    assert r.statistics.stop_reason == "interrupted" and pids
    assert all(_gone(pid) for pid in pids)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_a_child_that_dies_without_a_result_is_an_exploration_error(monkeypatch):
    monkeypatch.setattr(explore_mod, "PARALLEL_MIN_LEVEL", 2)
    monkeypatch.setattr(explore_mod, "CHUNK", 2)
    with pytest.raises(ExplorationError, match="died without a result.*exit status 7"):
        explore(_InChild(BoundedCounters(6), lambda: os._exit(7)), workers=2)


@pytest.mark.skipif(not os.path.exists("/proc/self/smaps_rollup"), reason="needs Linux /proc")
def test_the_memory_guard_counts_the_child(monkeypatch):
    monkeypatch.setattr(explore_mod, "PARALLEL_MIN_LEVEL", 2)
    monkeypatch.setattr(explore_mod, "CHUNK", 2)
    monkeypatch.setattr(explore_mod, "_rss_mb", lambda: 0.0)   # this process: nothing
    hoard = []

    def grow():
        hoard.append(b"x" * (80 << 20))   # 80 MB of the child's own pages
        time.sleep(60)

    r = explore(_InChild(BoundedCounters(6), grow), workers=2, memory_limit_mb=40)
    assert r.statistics.stop_reason == "memory limit (40 MB)"


def test_one_sigint_handler_for_the_run_and_an_ignored_sigint_stays_ignored():
    seen = []

    class Spy(DoubleOrIncrement):
        def next_state(self, state, action):
            seen.append(signal.getsignal(signal.SIGINT))
            return super().next_state(state, action)

    inherited = signal.signal(signal.SIGINT, signal.default_int_handler)  # as Python sets it, unless
    try:                                                                   # started with SIGINT ignored
        before = signal.getsignal(signal.SIGINT)
        explore(Spy(), workers=1)
        assert signal.getsignal(signal.SIGINT) is before and before not in seen
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        seen.clear()
        explore(Spy(), workers=1)
        assert set(seen) == {signal.SIG_IGN}
    finally:
        signal.signal(signal.SIGINT, inherited)


# ============================================================ determinism across processes
SCRIPT = """
import json, sys
sys.path.insert(0, {bench!r})
import checker.explore as E
from checker.test_util import BoundedCounters, PingPongLivelock, DoubleOrIncrement, VacuousInvariant
from ff_model import FingerprintFlood
E.PARALLEL_MIN_LEVEL = 50
E.CHUNK = 16
out = []
for m in (BoundedCounters(4), PingPongLivelock(), DoubleOrIncrement(), VacuousInvariant(),
          FingerprintFlood("tree", 10), FingerprintFlood("tree", 8, cap=1)):
    d = E.explore(m).to_dict()
    d["statistics"].update(seconds=0, states_per_second=0)
    out.append(d)
print(json.dumps(out))
"""


def test_same_results_under_two_hash_seeds():
    code = SCRIPT.format(bench=str(ROOT / "benchmarks"))
    runs = []
    for seed in ("0", "12345"):
        env = dict(os.environ, PYTHONHASHSEED=seed)
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                             check=True, cwd=ROOT).stdout
        runs.append(json.loads(out))
    assert runs[0] == runs[1]
    assert runs[0][4]["statistics"]["distinct_states"] == 496
    ff_cap1 = runs[0][5]["verdicts"]["FF-CHANNEL-BOUND"]
    assert ff_cap1["status"] == "violated"


# ============================================================ differential: random graphs
def naive_reachable(edges: dict[int, list[int]], init: list[int]) -> tuple[set[int], int]:
    seen = set(init)
    queue = deque(init)
    depth = {v: 0 for v in init}
    while queue:
        u = queue.popleft()
        for v in edges.get(u, []):
            if v not in seen:
                seen.add(v)
                depth[v] = depth[u] + 1
                queue.append(v)
    return seen, max(depth.values())


graphs = st.dictionaries(st.integers(0, 12), st.lists(st.integers(0, 12), max_size=4), max_size=13)


@settings(max_examples=60)
@given(edges=graphs, external=st.sets(st.tuples(st.integers(0, 12), st.integers(0, 12)), max_size=6))
def test_random_graphs_match_a_naive_bfs_and_networkx(edges, external):
    props = [Property.eventually("T", "terminates"),
             Property.at_quiescence("Q", "quiescent states are sinks of internal edges",
                                    lambda m, s: all((s, v) in m.external for v in m.edges.get(s, ())))]
    model = DirectedGraph(edges, properties=props, external=sorted(external))
    r = explore(model, workers=1)
    reach, depth = naive_reachable(model.edges, [0])
    assert r.statistics.distinct_states == len(reach)
    assert r.statistics.max_depth == depth
    assert r.statistics.generated_states == 1 + sum(len(model.edges.get(u, ())) for u in reach)
    g = nx.DiGraph()
    g.add_nodes_from(reach)
    g.add_edges_from((u, v) for u in reach for v in model.edges.get(u, ()) if (u, v) not in model.external)
    has_cycle = not nx.is_directed_acyclic_graph(g)
    v = r.verdicts["T"]
    assert (v.status is Status.VIOLATED) == has_cycle
    if has_cycle:
        nodes = [0] + [int(a.split("->")[1]) for a in v.trace.actions()]
        cycle = nodes[v.trace.loop_start:]
        assert cycle[0] == cycle[-1] and len(cycle) >= 2
        assert all(g.has_edge(a, b) for a, b in zip(cycle, cycle[1:]))
    assert r.verdicts["Q"].status is Status.HOLDS


# ============================================================ differential: termination, bounds, workers, reduction
class _Product:
    """Independent components, each a small graph with edges ``(u, v, internal)``; a state
    holds each component's node. ``ample`` offers every enabled action of one component
    whose enabled actions are all internal: a persistent set (the components share
    nothing). ``flavour``: "A" has ``is_internal`` (the general loop), "B" none (every
    action internal, the lean loop), "C" also the batched ``successors``. ``dummy`` lists
    some actions where they are disabled (``next_state`` None)."""

    def __init__(self, comps, init, flavour, salt, dummy):
        self.comps, self.init, self.flavour, self.salt, self.dummy = comps, init, flavour, salt, dummy
        self.extra: tuple = ()
        self.name = "Product"
        if flavour == "A":
            self.is_internal = lambda a: a[3]
        if flavour == "C":
            self.successors = lambda s: [(ai, t) for ai, a in enumerate(self.actions(s))
                                         if (t := self.next_state(s, a)) is not None]

    def init_states(self):
        return list(self.init)

    def actions(self, s):
        return [(c, u, v, i or self.flavour != "A") for c, edges in enumerate(self.comps)
                for u, v, i in edges if u == s[c] or (self.dummy and (u + c) % 3 == 0)]

    def next_state(self, s, a):
        c, u, v, _ = a
        return s[:c] + (v,) + s[c + 1:] if s[c] == u else None

    def ample(self, s, acts, reads):
        for off in range(len(self.comps)):
            c = (sum(s) + self.salt + off) % len(self.comps)
            pos = [k for k, a in enumerate(acts) if a[0] == c and self.next_state(s, a) is not None]
            if pos and all(acts[k][3] for k in pos):
                return pos
        return None

    def properties(self):
        return [Property.eventually("T", "terminates"), *self.extra]

    def encode(self, s):
        return bytes(s)

    def describe_state(self, s):
        return {f"c{c}": x for c, x in enumerate(s)}

    def describe_action(self, a):
        return f"{a[0]}:{a[1]}->{a[2]}:{'i' if a[3] else 'e'}"


def _product_truth(model):
    """By brute force: does a reachable state lie on a cycle of internal actions, and the
    smallest BFS depth of such a state (None: none does)."""
    succ: dict = {}
    depth = {s: 0 for s in model.init}
    queue = deque(depth)
    while queue:
        u = queue.popleft()
        succ[u] = []
        for a in model.actions(u):
            t = model.next_state(u, a)
            if t is None:
                continue
            if a[3]:
                succ[u].append(t)
            if t not in depth:
                depth[t] = depth[u] + 1
                queue.append(t)

    def on_cycle(x):
        seen, stack = set(), [x]
        while stack:
            for y in succ[stack.pop()]:
                if y == x:
                    return True
                if y not in seen:
                    seen.add(y)
                    stack.append(y)
        return False

    return min((depth[x] for x in depth if on_cycle(x)), default=None)


def _assert_real_lasso(model, trace):
    """Every step a transition of the model from an initial state; the cycle internal and
    back where it started."""
    names = [f"c{c}" for c in range(len(model.comps))]
    view = dict(trace.steps[0].state)
    states = [tuple(view[k] for k in names)]
    assert states[0] in model.init
    for step in trace.steps[1:]:
        view.update(step.state)
        t = tuple(view[k] for k in names)
        assert any(model.next_state(states[-1], a) == t for a in model.actions(states[-1])
                   if model.describe_action(a) == step.action), (states[-1], step.action, t)
        states.append(t)
    start = trace.loop_start
    assert start is not None and start < len(states) - 1 and states[start] == states[-1]
    assert all(step.internal and step.action.endswith(":i") for step in trace.steps[start + 1:])


@st.composite
def _products(draw):
    sizes = draw(st.lists(st.integers(1, 5), min_size=1, max_size=3))
    chains = draw(st.booleans())   # mostly-acyclic components: where the reduction bites
    comps = []
    for n in sizes:
        if chains:
            edges = [(u, u + 1, True) for u in range(n - 1)] + draw(st.lists(
                st.tuples(st.integers(0, n - 1), st.integers(0, n - 1), st.sampled_from([True] * 3 + [False])),
                max_size=2))
            comps.append(draw(st.permutations(edges)))
        else:
            comps.append(draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1), st.booleans()),
                                       max_size=8)))
    states = st.tuples(*[st.integers(0, n - 1) for n in sizes])
    init = tuple(draw(st.lists(states, min_size=1, max_size=3)))
    return _Product(comps, init, draw(st.sampled_from("ABC")), draw(st.integers(0, 2)), draw(st.booleans()))


_EXTRA = {
    0: (),
    1: (Property.always("A", "c0 below 3", lambda m, s: s[0] < 3, reads=frozenset()),),
    2: (Property.at_quiescence("Q", "c0 not 2 at rest", lambda m, s: s[0] != 2),),
    3: (Property.sometimes("S", "c0 reaches 2", lambda m, s: s[0] == 2, reads=frozenset()),
        Property.always("B", "c0 below 4", lambda m, s: s[0] < 4)),
}


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
@settings(max_examples=250, deadline=None)
@given(model=_products(), por=st.booleans(), chunk=st.sampled_from([1, 2, 3, 2048]),
       bound=st.one_of(st.just({}), st.builds(lambda n: {"max_states": n}, st.integers(1, 15)),
                       st.builds(lambda n: {"max_depth": n}, st.integers(0, 4))),
       bits=st.sampled_from([64, 128]), edge_limit=st.sampled_from([None, -1, 3]),
       stop=st.booleans(), extra=st.sampled_from(sorted(_EXTRA)))
def test_termination_matches_brute_force_with_workers_reduction_and_bounds(model, por, chunk, bound, bits,
                                                                          edge_limit, stop, extra):
    # "violated" only with a real lasso (each step a transition, the cycle internal and
    # closed) and only where a reachable internal cycle exists; "holds" only after a
    # complete run without one; an incomplete run never says "holds". One process or two
    # (the helper from the first level of two states, chunks of 1-3 parents), with the
    # partial-order reduction or without, edges recorded or re-expanded (EDGE_LIMIT).
    model.extra = _EXTRA[extra]
    entry = _product_truth(model)
    saved = explore_mod.CHUNK, explore_mod.PARALLEL_MIN_LEVEL, explore_mod.EDGE_LIMIT
    explore_mod.CHUNK, explore_mod.PARALLEL_MIN_LEVEL = chunk, 1
    if edge_limit is not None:
        explore_mod.EDGE_LIMIT = edge_limit
    try:
        r, two = (explore(model, workers=w, por=por, fingerprint_bits=bits, memory_limit_mb=0,
                          stop_on_violation=stop, **bound) for w in (1, 2))
    finally:
        explore_mod.CHUNK, explore_mod.PARALLEL_MIN_LEVEL, explore_mod.EDGE_LIMIT = saved
    runs = [r.to_dict(), two.to_dict()]
    for d in runs:
        d["statistics"].update(seconds=0, states_per_second=0)
    assert runs[0] == runs[1]
    v = r.verdicts["T"]
    if v.status is Status.VIOLATED:
        assert entry is not None
        _assert_real_lasso(model, v.trace)
        if r.complete and not por:   # the shallowest state on a cycle
            assert v.trace.loop_start == entry
    else:
        assert v.status is (Status.HOLDS if r.complete else Status.HOLDS_UP_TO_BOUND)
        assert not r.complete or entry is None


# ============================================================ odds and ends
def test_real_results_round_trip_through_json():
    for model in (BoundedCounters(3), PingPongLivelock(), VacuousInvariant()):
        r = explore(model, workers=1)
        assert Result.from_json(r.to_json()) == r


def test_a_model_without_initial_states():
    r = explore(DirectedGraph({}, init=()), workers=1)
    assert counts(r) == (0, 0, 0) and r.complete


def test_progress_goes_to_stderr(capsys, monkeypatch):
    monkeypatch.setattr(explore_mod, "CHUNK", 1)
    ticks = iter(range(0, 1000, 2))     # every chunk looks two seconds later
    monkeypatch.setattr(explore_mod.time, "perf_counter", lambda: float(next(ticks)))
    explore(BoundedCounters(2), progress=True, workers=1)
    out, err = capsys.readouterr()
    assert out == ""
    assert "states/s, depth" in err and "frontier" in err and "done: 9 states, depth 4" in err
