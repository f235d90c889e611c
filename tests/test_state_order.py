"""The orders a network state keeps, which its lookups rely on (session 33).

``NetworkState`` finds a queue manager and a channel by binary search, and a cluster cache
finds a record, its highest sequence number seen and the records of one kind the same way
(spec/network/state.py, spec/repository.py): settling a cluster of hundreds of queue
managers looks them up several times per delivery. That is only right while every state
keeps its queue managers sorted by name, its channels by (source, destination), and each
cache its records and ``highest_seen`` by ident. A transition that broke an order would
make lookups miss silently, so this walks the bundled examples and the regression
scenarios (REFRESH CLUSTER, RESET CLUSTER, deleted queue managers, faults) with the joining
explored and checks every state reached.
"""

from __future__ import annotations

from collections import deque
from pathlib import Path

import pytest

from spec.network import MQNetwork
from spec.scenario import load_scenario

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = sorted(ROOT.glob("examples/*.toml")) + sorted(ROOT.glob("tests/regressions/*.toml"))
STATES = 80   # per scenario and mode: the orders are broken, if at all, by one transition


def _disorder(state) -> str | None:
    names = [q.name for q in state.qmgrs]
    if names != sorted(names) or len(set(names)) != len(names):
        return f"queue managers {names}"
    ends = [(c.src, c.dst) for c in state.channels]
    if ends != sorted(ends) or len(set(ends)) != len(ends):
        return f"channels {ends}"
    for q in state.qmgrs:
        for cache in q.caches:
            idents = [r.ident for r in cache.records]
            if idents != sorted(idents) or len(set(idents)) != len(idents):
                return f"{q.name}'s records of {cache.cluster}"
            seen = [i for i, _ in cache.highest_seen]
            if seen != sorted(seen) or len(set(seen)) != len(seen):
                return f"{q.name}'s highest_seen of {cache.cluster}"
            for kind in ("QMGR", "QUEUE", "TOPIC"):
                if cache.live_of(kind) != tuple(r for r in cache.live() if r.kind == kind):
                    return f"{q.name}'s live {kind} records of {cache.cluster}"
            for r in cache.records:
                if cache.get(r.ident) is not r:
                    return f"{q.name}'s lookup of {r.ident} in {cache.cluster}"
        if state.find(q.name) is not q:
            return f"the lookup of {q.name}"
    for c in state.channels:
        if state.channel(c.src, c.dst) is not c:
            return f"the lookup of channel {c.src} -> {c.dst}"
    return None


@pytest.mark.parametrize("explore_initial", [True, False], ids=["joining", "settled"])
@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.name)
def test_every_state_reached_keeps_its_orders(path: Path, explore_initial: bool) -> None:
    scenario = load_scenario(path)
    model = MQNetwork(scenario, faults=max(int(scenario.check.faults), 1), explore_initial=explore_initial)
    seen = set()
    queue = deque(model.init_states())
    while queue and len(seen) < STATES:
        state = queue.popleft()
        if state in seen:
            continue
        seen.add(state)
        assert _disorder(state) is None, f"{path.name}: {_disorder(state)} out of order"
        for action in model.actions(state):
            after = model.next_state(state, action)
            if after is not None and after not in seen:
                queue.append(after)
    assert len(seen) > 1 or not model.actions(model.init_states()[0])
