"""FingerprintFlood manifest: pinned distinct/generated state counts, depths, verdicts and
trace lengths of the small FF instances (tlaplus/Examples' manifest.json habit). Every
backend must reproduce tests/manifests/ff.json exactly; the big instances live in
benchmarks/ only.

The counts are also checked against an independent re-implementation of the FF
definition below (``reference_ff``: dicts of deques, masks as frozensets), written
straight from the text in benchmarks/ff_model.py's docstring without its packed-int
encoding, and sharing none of its code (its own edge lists and simple-path counts), so a
bug in the model cannot hide behind the explorer agreeing with itself.

"generated" counts every successor produced, duplicates included, plus the initial
states (one here).

Regenerate after a deliberate model change: ``python tests/test_ff_manifest.py --write``.
"""

from __future__ import annotations

import json
import sys
from collections import deque
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

from ff_model import FingerprintFlood  # noqa: E402

from checker.explore import explore  # noqa: E402
from checker.model import format_verdict  # noqa: E402

MANIFEST = ROOT / "tests" / "manifests" / "ff.json"

INSTANCES = (
    [("ring", n, 4) for n in range(2, 9)]
    + [("tree", n, 4) for n in range(2, 16)]
    + [("complete", n, 4) for n in (2, 3)]
    + [("tree", 6, 1), ("tree", 8, 1)]          # cap 1: the channel bound is violated
)
BOUNDED = [("complete", 4, 4, {"max_states": 2000}), ("tree", 12, 4, {"max_depth": 10})]


def summary(result) -> dict:
    s = result.statistics
    return {
        "distinct_states": s.distinct_states,
        "generated_states": s.generated_states,
        "max_depth": s.max_depth,
        "complete": s.complete,
        "stop_reason": s.stop_reason,
        "verdicts": {pid: format_verdict(v) for pid, v in result.verdicts.items()},
    }


def key(topology: str, n: int, cap: int, bounds: dict | None = None) -> str:
    k = f"FF({topology},{n},cap={cap})"
    return k + "".join(f" {b}={v}" for b, v in sorted((bounds or {}).items()))


def compute() -> dict:
    out = {}
    for t, n, cap in INSTANCES:
        out[key(t, n, cap)] = summary(explore(FingerprintFlood(t, n, cap), workers=1))
    for t, n, cap, bounds in BOUNDED:
        out[key(t, n, cap, bounds)] = summary(explore(FingerprintFlood(t, n, cap), workers=1, **bounds))
    return out


# ============================================================ the manifest
@pytest.fixture(scope="module")
def manifest() -> dict:
    return json.loads(MANIFEST.read_text())


@pytest.mark.parametrize("t, n, cap", INSTANCES)
def test_small_instances_match_the_manifest(manifest, t, n, cap):
    assert summary(explore(FingerprintFlood(t, n, cap), workers=1)) == manifest[key(t, n, cap)]


@pytest.mark.parametrize("t, n, cap, bounds", BOUNDED)
def test_bounded_runs_are_incomplete_and_say_so(manifest, t, n, cap, bounds):
    got = summary(explore(FingerprintFlood(t, n, cap), workers=1, **bounds))
    assert got == manifest[key(t, n, cap, bounds)]
    assert not got["complete"]
    assert all("holds (complete" not in line for line in got["verdicts"].values())


def test_channel_bound_violation_has_a_shortest_trace():
    r = explore(FingerprintFlood("tree", 6, cap=1), workers=1)
    trace = r.verdicts["FF-CHANNEL-BOUND"].trace
    assert trace.actions()[0] == "PUBLISH"
    # the last step pushes a second message into some channel
    last = trace.steps[-1].state
    assert any(isinstance(v, list) and len(v) == 2 for v in last.values())


# ============================================================ independent reference
def reference_neighbours(topology: str, n: int) -> dict[int, list[int]]:
    """Neighbour lists, from the issue's text: ring {i, i+1 mod n}; complete; tree =
    heap parent (i-1)//2 plus the edge {n-2, n-1}. Undirected, no self-loops, no repeats."""
    nbrs: dict[int, set[int]] = {v: set() for v in range(n)}

    def link(a: int, b: int) -> None:
        if a != b:
            nbrs[a].add(b)
            nbrs[b].add(a)

    for i in range(n):
        if topology == "ring":
            link(i, (i + 1) % n)
        elif topology == "complete":
            for j in range(n):
                link(i, j)
        elif topology == "tree" and i > 0:
            link(i, (i - 1) // 2)
    if topology == "tree":
        link(n - 2, n - 1)
    return {v: sorted(ws) for v, ws in nbrs.items()}


def reference_paths(nbrs: dict[int, list[int]]) -> list[int]:
    """Simple paths from node 0 to each node, by enumerating them (node 0: the empty path)."""
    count = [0] * len(nbrs)
    stack = [(0, (0,))]
    while stack:
        v, path = stack.pop()
        count[v] += 1
        stack.extend((w, path + (w,)) for w in nbrs[v] if w not in path)
    return count


def test_the_reference_graphs():
    # hand-checked: a triangle has 2 simple paths 0->1 (direct, via 2); in the tree on 5
    # nodes (edges 0-1, 0-2, 1-3, 1-4, 3-4) node 4 is reached by 0-1-4 and 0-1-3-4
    assert reference_neighbours("ring", 3) == {0: [1, 2], 1: [0, 2], 2: [0, 1]}
    assert reference_paths(reference_neighbours("ring", 3)) == [1, 2, 2]
    assert reference_neighbours("tree", 5) == {0: [1, 2], 1: [0, 3, 4], 2: [0], 3: [1, 4], 4: [1, 3]}
    assert reference_paths(reference_neighbours("tree", 5)) == [1, 1, 1, 2, 2]
    assert reference_paths(reference_neighbours("complete", 4)) == [1, 5, 5, 5]
    assert reference_neighbours("ring", 2) == {0: [1], 1: [0]}


def reference_ff(topology: str, n: int) -> tuple[int, int, int, bool]:
    """(distinct, generated, depth, every quiescent state counts simple paths)."""
    nbrs = reference_neighbours(topology, n)
    chans = sorted((u, v) for u in range(n) for v in nbrs[u])
    paths = reference_paths(nbrs)

    def freeze(published, delivered, queues):
        return (published, tuple(delivered), tuple(tuple(queues[c]) for c in chans))

    init = freeze(False, [0] * n, {c: deque() for c in chans})
    seen, level, depth, generated, ok = {init}, [init], 0, 1, True
    while level:
        nxt = []
        for published, delivered, qs in level:
            succ = []
            if not published:
                d = list(delivered)
                d[0] += 1
                q = {c: deque(qs[i]) for i, c in enumerate(chans)}
                for w in nbrs[0]:
                    q[(0, w)].append(frozenset({0}))
                succ.append(freeze(True, d, q))
            for i, (u, v) in enumerate(chans):
                if not qs[i]:
                    continue
                d = list(delivered)
                q = {c: deque(qs[j]) for j, c in enumerate(chans)}
                m = q[(u, v)].popleft()
                if v not in m:
                    d[v] += 1
                    for w in nbrs[v]:
                        if w != u:
                            q[(v, w)].append(m | {v})
                succ.append(freeze(published, d, q))
            if not succ:
                ok &= (not published) or list(delivered) == paths
            generated += len(succ)
            for s in succ:
                if s not in seen:
                    seen.add(s)
                    nxt.append(s)
        level = nxt
        depth += 1 if nxt else 0
    return len(seen), generated, depth, ok


@pytest.mark.parametrize("t, n", [("ring", 5), ("tree", 8), ("tree", 10), ("complete", 3)])
def test_counts_agree_with_an_independent_implementation(manifest, t, n):
    distinct, generated, depth, ok = reference_ff(t, n)
    m = manifest[key(t, n, 4)]
    assert (m["distinct_states"], m["generated_states"], m["max_depth"]) == (distinct, generated, depth)
    assert ok and m["verdicts"]["FF-PATH-COUNT"].startswith("holds (complete")


@pytest.mark.parametrize("t, n", [("ring", 5), ("tree", 9), ("complete", 3)])
def test_batched_successors_are_actions_and_next_state(t, n):
    model = FingerprintFlood(t, n)
    seen, todo = set(model.init_states()), list(model.init_states())
    while todo:
        s = todo.pop()
        want = [(i, model.next_state(s, a)) for i, a in enumerate(model.actions(s))]
        assert model.successors(s) == [(i, x) for i, x in want if x is not None]
        for _, x in want:
            if x not in seen:
                seen.add(x)
                todo.append(x)
    assert len(seen) == reference_ff(t, n)[0]


def test_the_explorer_gives_the_same_answers_without_the_batched_method(manifest):
    class Plain(FingerprintFlood):
        successors = None   # the explorer falls back to actions/next_state
    got = summary(explore(Plain("tree", 10), workers=1))
    assert got == manifest[key("tree", 10, 4)]


if __name__ == "__main__":
    if "--write" in sys.argv:
        MANIFEST.parent.mkdir(exist_ok=True)
        MANIFEST.write_text(json.dumps(compute(), indent=1) + "\n")
        print(f"wrote {MANIFEST}")
