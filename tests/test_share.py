"""spec.network.state.ship / unship: how a state travels between the Spark backend's
processes (issue #17, round 10). Each queue manager and channel travels as its encoding's
digest and its own pickle, made once per part object; a receiver builds only the parts it
has not met and shares the rest. It must never change a state: same value, same encoding,
same successors; equal parts become one object."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest

from spec.encoding import canonical_bytes, inline_bytes
from spec.network import MQNetwork
from spec.network import state as network_state
from spec.scenario import load_scenario

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


@pytest.fixture(autouse=True)
def _fresh_tables(monkeypatch):
    monkeypatch.setattr(network_state, "_SHARED", {})
    monkeypatch.setattr(network_state, "_PICKLED", {})


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


def _successors(model, s):
    return [None if t is None else model.encode(t) for t in (model.next_state(s, a) for a in model.actions(s))]


@pytest.mark.parametrize("limit", [None, 7], ids=["tables", "tables-cleared-often"])
@pytest.mark.parametrize("name", ["fr-mesh-broken.toml", "ps-republish-new.toml", "wl-bind-options.toml"])
def test_a_shipped_state_is_the_same_state_with_its_parts_met_once(name, limit, monkeypatch):
    if limit is not None:
        monkeypatch.setattr(network_state, "_SHARED_LIMIT", limit)
        monkeypatch.setattr(network_state, "_PICKLED_LIMIT", limit)
    model, states = _states(name, 200)
    owner: dict[bytes, int] = {}
    again = 0
    for s in states:
        t = model.unship(model.ship(s))
        assert t is not s
        assert model.encode(t) == model.encode(s) == canonical_bytes(pickle.loads(pickle.dumps(s, 5)))
        assert t == s and hash(t) == hash(s)
        assert [(type(a), a.name) for a in t.qmgrs] == [(type(a), a.name) for a in s.qmgrs]
        for part in t.qmgrs + t.channels:
            key = inline_bytes(part)
            if limit is None and key in owner:   # never cleared here: one object per value
                assert owner[key] == id(part)
                again += 1
            owner[key] = id(part)
        # what the model does with the shipped state is what it does with the original
        assert _successors(model, t) == _successors(model, s)
    if limit is None:
        assert again > len(owner), "parts were rarely met twice: the test shows little"


def test_a_receiver_builds_the_parts_it_has_not_met(monkeypatch):
    """Another process: its tables are empty, so every part is built from its pickle."""
    model, states = _states("fr-mesh-broken.toml", 30)
    shipped = [model.ship(s) for s in states]
    monkeypatch.setattr(network_state, "_SHARED", {})
    for s, data in zip(states, shipped):
        t = model.unship(data)
        assert model.encode(t) == model.encode(s)
        assert all(a is not b for a, b in zip(t.qmgrs, s.qmgrs))
        assert _successors(model, t) == _successors(model, s)


def test_a_plain_pickle_still_loads():
    """Run directories written before states were shipped this way hold plain pickles:
    a resumed run reads them."""
    model, states = _states("ps-republish-new.toml", 20)
    for s in states:
        t = model.unship(pickle.dumps(s, 5))
        assert model.encode(t) == model.encode(s)


def test_a_part_is_pickled_once_per_object(monkeypatch):
    model, states = _states("fr-mesh-broken.toml", 50)
    made = []
    real = pickle.dumps

    def counting(obj, *args, **kwargs):
        made.append(type(obj).__name__)
        return real(obj, *args, **kwargs)

    monkeypatch.setattr(network_state.pickle, "dumps", counting)
    for s in states:
        model.ship(s)
    monkeypatch.undo()
    distinct = {id(p) for s in states for p in s.qmgrs + s.channels}
    assert len(made) == len(distinct) < sum(len(s.qmgrs) + len(s.channels) for s in states)


def test_equal_tuples_of_parts_become_one_tuple():
    """Two states whose queue managers all encode alike share the tuple itself, so the
    encoding memo finds it by identity."""
    model, states = _states("fr-mesh-broken.toml", 1)
    a = model.unship(model.ship(states[0]))
    b = model.unship(model.ship(states[0]))
    assert a is not b and a.qmgrs is b.qmgrs and a.channels is b.channels
