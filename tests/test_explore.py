"""checker.explore: pinned counts and counterexamples of the test models (Stateright's
``assert_discovery`` habit), bounds and honest incomplete verdicts, Ctrl-C, determinism
across PYTHONHASHSEED values, the forked worker, and a differential Hypothesis test
against a naive BFS on random graphs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
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
    DirectedGraph,
    DoubleOrIncrement,
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
    for model in (BoundedCounters(6), PingPongLivelock(), DoubleOrIncrement(60)):
        one = explore(model, workers=1).to_dict()
        two = explore(model, workers=2).to_dict()
        for d in (one, two):
            d["statistics"].update(seconds=0, states_per_second=0)
        assert one == two


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_ctrl_c_in_the_forked_worker_is_an_interrupt(monkeypatch):
    monkeypatch.setattr(explore_mod, "PARALLEL_MIN_LEVEL", 2)
    r = explore(InterruptAfter(BoundedCounters(6), 30), workers=2)
    assert r.statistics.stop_reason == "interrupted"


# ============================================================ determinism across processes
SCRIPT = """
import json, sys
sys.path.insert(0, {bench!r})
import checker.explore as E
from checker.test_util import BoundedCounters, PingPongLivelock, DoubleOrIncrement, VacuousInvariant
from ff_model import FingerprintFlood
E.PARALLEL_MIN_LEVEL = 50
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
