"""spec.network.state.share: a state unpickled on a Spark executor gets the parts this
process met before (issue #17, round 10). It must never change a state: same value, same
encoding, same successors; equal parts become one object."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest

from spec.encoding import canonical_bytes, inline_bytes
from spec.network import MQNetwork
from spec.network import state as network_state
from spec.scenario import load_scenario

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def _states(name: str, count: int):
    """The model and its first ``count`` states in breadth-first order (joining explored)."""
    model = MQNetwork(load_scenario(EXAMPLES / name), [], explore_initial=True)
    found, order = set(), []
    level = list(model.init_states())
    while level and len(order) < count:
        nxt = []
        for s in level:
            if s in found:
                continue
            found.add(s)
            order.append(s)
            nxt.extend(t for a in model.actions(s) if (t := model.next_state(s, a)) is not None)
        level = nxt
    return model, order[:count]


@pytest.mark.parametrize("limit", [network_state._SHARED_LIMIT, 7], ids=["table", "table-cleared-often"])
@pytest.mark.parametrize("name", ["fr-mesh-broken.toml", "ps-republish-new.toml", "wl-bind-options.toml"])
def test_a_shared_state_is_the_same_state_with_its_parts_met_once(name, limit, monkeypatch):
    monkeypatch.setattr(network_state, "_SHARED", {})
    monkeypatch.setattr(network_state, "_SHARED_LIMIT", limit)
    model, states = _states(name, 200)
    never_cleared = limit > 10_000
    owner: dict[bytes, int] = {}
    again = 0
    for s in states:
        shipped = pickle.loads(pickle.dumps(s, 5))   # fresh objects, as on an executor
        t = model.share(shipped)
        assert t is shipped
        assert model.encode(t) == model.encode(s) == canonical_bytes(pickle.loads(pickle.dumps(s, 5)))
        assert t == s and hash(t) == hash(s)
        assert [(type(a), a.name) for a in t.qmgrs] == [(type(a), a.name) for a in s.qmgrs]
        for part in t.qmgrs + t.channels:
            key = inline_bytes(part)
            if never_cleared and key in owner:   # one object per value
                assert owner[key] == id(part)
                again += 1
            owner[key] = id(part)
        # what the model does with the shared state is what it does with the original
        assert [model.encode(x) if x is not None else None for x in
                (model.next_state(t, a) for a in model.actions(t))] == \
            [model.encode(x) if x is not None else None for x in (model.next_state(s, a) for a in model.actions(s))]
    if never_cleared:
        assert again > len(owner), "parts were rarely met twice: the test shows little"


def test_equal_tuples_of_parts_become_one_tuple(monkeypatch):
    """Two states whose queue managers all encode alike share the tuple itself, so the
    encoding memo finds it by identity."""
    monkeypatch.setattr(network_state, "_SHARED", {})
    model, states = _states("fr-mesh-broken.toml", 1)
    a = model.share(pickle.loads(pickle.dumps(states[0], 5)))
    b = model.share(pickle.loads(pickle.dumps(states[0], 5)))
    assert a is not b and a.qmgrs is b.qmgrs and a.channels is b.channels
