"""spec.values.replace: the same values as dataclasses.replace, on every frozen dataclass
a successor state is built from (issue #17: the fast path must not change a state)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from spec import values
from spec.encoding import canonical_bytes
from spec.network import MQNetwork
from spec.network.state import NetworkState
from spec.scenario import load_scenario

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def _parts(value, seen):
    """Every dataclass instance inside ``value`` (a state tree), once per identity."""
    if id(value) in seen:
        return
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        seen[id(value)] = value
        for f in dataclasses.fields(value):
            _parts(getattr(value, f.name), seen)
    elif isinstance(value, (tuple, frozenset)):
        for item in value:
            _parts(item, seen)


@pytest.mark.parametrize("name", ["fr-mesh-broken.toml", "ps-republish-new.toml", "wl-bind-options.toml"])
def test_replace_agrees_with_dataclasses_on_state_parts(name):
    scenario = load_scenario(EXAMPLES / name)
    model = MQNetwork(scenario, [], explore_initial=True)
    state = next(iter(model.init_states()))
    for a in list(model.actions(state))[:3]:
        state = model.next_state(state, a) or state
    seen: dict = {}
    _parts(state, seen)
    assert len({type(v) for v in seen.values()}) >= 4
    for part in seen.values():
        fields = [f for f in dataclasses.fields(part) if f.init]
        assert values.replace(part) == dataclasses.replace(part)
        for f in fields[:3]:
            # every field replaced by another part's value of the same field: same result both ways
            new = getattr(part, f.name)
            mine, theirs = values.replace(part, **{f.name: new}), dataclasses.replace(part, **{f.name: new})
            assert type(mine) is type(theirs) and canonical_bytes(mine) == canonical_bytes(theirs)


def test_replace_starts_the_cached_encoding_afresh():
    state = NetworkState(qmgrs=())
    before = canonical_bytes(state)
    assert state._encoded == before
    later = values.replace(state, clock=1)
    assert later._encoded is None and canonical_bytes(later) != before


def test_replace_runs_post_init_checks_and_refuses_unknown_fields():
    @dataclasses.dataclass(frozen=True)
    class Positive:
        n: int

        def __post_init__(self):
            if self.n <= 0:
                raise ValueError("n must be positive")

    assert values.replace(Positive(1), n=2) == Positive(2)
    with pytest.raises(ValueError, match="positive"):
        values.replace(Positive(1), n=0)
    with pytest.raises(TypeError, match="no field 'm'"):
        values.replace(Positive(1), m=3)
