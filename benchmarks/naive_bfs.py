"""The baseline for benchmarks: the BFS anyone would write first — a Python ``set`` of full
state tuples, a deque frontier, the ``always`` and ``at_quiescence`` predicates checked on
each new state, ``sometimes`` predicates until they are witnessed (the same property work
the engine does). No fingerprints, no parent pointers (so no traces), no termination check,
no bounds. It uses the same Model methods as the engine, so the comparison measures the
engines, not the model.
"""

from __future__ import annotations

import sys
import time
from collections import deque


def naive_bfs(model) -> dict:
    """Explore every reachable state; return counts and the ids of violated properties."""
    props = model.properties()
    always = [p for p in props if p.kind.value == "always"]
    quiet = [p for p in props if p.kind.value == "at_quiescence"]
    sometimes = [p for p in props if p.kind.value == "sometimes"]
    witnessed: set[str] = set()
    internal = getattr(model, "is_internal", lambda a: True)
    start = time.perf_counter()
    seen = set()
    frontier = deque()
    for s in model.init_states():
        if s not in seen:
            seen.add(s)
            frontier.append((s, 0))
    violated: set[str] = set()
    generated = len(seen)
    max_depth = 0
    while frontier:
        s, d = frontier.popleft()
        for p in always:
            if not p.predicate(model, s):
                violated.add(p.id)
        if sometimes:
            for p in sometimes:
                if p.predicate(model, s):
                    witnessed.add(p.id)
            sometimes = [p for p in sometimes if p.id not in witnessed]
        settled = True
        for a in model.actions(s):
            t = model.next_state(s, a)
            if t is None:
                continue
            if internal(a):
                settled = False
            generated += 1
            if t not in seen:
                seen.add(t)
                frontier.append((t, d + 1))
                if d + 1 > max_depth:
                    max_depth = d + 1
        if settled:
            for p in quiet:
                if not p.predicate(model, s):
                    violated.add(p.id)
    seconds = time.perf_counter() - start
    set_bytes = sys.getsizeof(seen) + sum(sys.getsizeof(s) for s in seen)
    return {
        "distinct_states": len(seen),
        "generated_states": generated,
        "max_depth": max_depth,
        "seconds": seconds,
        "states_per_second": len(seen) / seconds if seconds else 0.0,
        "visited_bytes_per_state": set_bytes / max(len(seen), 1),
        "violated": sorted(violated),
        "witnessed": sorted(witnessed),
    }
