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


def _example_parts(name: str, with_scenario: bool = False) -> dict:
    """Every dataclass instance of ``examples/NAME``'s state after its first three actions
    (the initial joining explored), and of its scenario with ``with_scenario``."""
    scenario = load_scenario(EXAMPLES / name)
    model = MQNetwork(scenario, [], explore_initial=True)
    state = next(iter(model.init_states()))
    for a in list(model.actions(state))[:3]:
        state = model.next_state(state, a) or state
    seen: dict = {}
    _parts(state, seen)
    if with_scenario:
        _parts(scenario, seen)
    return seen


@pytest.mark.parametrize("name", ["fr-mesh-broken.toml", "ps-republish-new.toml", "wl-bind-options.toml"])
def test_replace_agrees_with_dataclasses_on_state_parts(name):
    seen = _example_parts(name)
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


# --- @value: the constructor that sets slots through their descriptors ------------------------
def _value_classes():
    """Every class declared with ``@value`` in the spec's modules."""
    import importlib
    import pkgutil

    import spec

    out = {}
    for info in pkgutil.walk_packages(spec.__path__, "spec."):
        if info.name.startswith("spec.symbolic"):
            continue  # Z3 models: no @value classes, and importing them needs nothing here
        module = importlib.import_module(info.name)
        for obj in vars(module).values():
            if isinstance(obj, type) and "__dataclass_init__" in vars(obj):
                out[f"{obj.__module__}.{obj.__qualname__}"] = obj
    return out


def _built_both_ways(part):
    """``part`` rebuilt by the fast constructor and by the one dataclasses wrote, from its
    own init fields, positionally and by keyword."""
    cls = type(part)
    args = [getattr(part, f.name) for f in dataclasses.fields(cls) if f.init]
    kwargs = {f.name: getattr(part, f.name) for f in dataclasses.fields(cls) if f.init}
    theirs = object.__new__(cls)
    cls.__dataclass_init__(theirs, *args)
    return cls(*args), cls(**kwargs), theirs


def test_every_spec_value_class_gets_the_fast_constructor():
    classes = _value_classes()
    assert len(classes) >= 100
    from spec.network.state import NetworkState, QmgrState
    assert NetworkState.__init__ is not NetworkState.__dataclass_init__
    assert QmgrState.__init__.__qualname__ == "QmgrState.__init__"


@pytest.mark.parametrize("name", ["fr-mesh-broken.toml", "ps-republish-new.toml", "wl-bind-options.toml",
                                  "uc-mixed-reconnect.toml"])
def test_the_fast_constructor_builds_what_dataclasses_builds(name):
    seen = _example_parts(name, with_scenario=True)
    checked = 0
    for part in seen.values():
        if "__dataclass_init__" not in vars(type(part)):
            continue
        built = _built_both_ways(part)
        # every field, init=False ones included, as just built (before equality caches an encoding)
        positional, keywords, theirs = ([getattr(b, f.name) for f in dataclasses.fields(part)] for b in built)
        assert positional == keywords == theirs
        assert built[0] == built[2] and built[1] == built[2]
        checked += 1
    assert checked >= 10


def test_the_fast_constructor_keeps_defaults_init_false_fields_and_post_init():
    from spec.network.state import NetworkState
    from spec.workload import ClusterReceiver

    s = NetworkState(qmgrs=())
    assert s._encoded is None and s.next_step == 0 and s.channels == ()   # init=False field set to its default
    with pytest.raises(TypeError):
        NetworkState()                                                  # a required field is still required
    with pytest.raises(TypeError):
        NetworkState((), nonsense=1)
    with pytest.raises(ValueError, match="CLWLWGHT"):                    # __post_init__ still runs
        ClusterReceiver(qmgr="A", channel="TO.A", clusters=("C",), clwlwght=0)
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.clock = 1


@pytest.mark.parametrize("name", ["fr-mesh-broken.toml", "ps-republish-new.toml", "wl-bind-options.toml",
                                  "uc-mixed-reconnect.toml"])
def test_the_fast_pickle_state_is_the_one_dataclasses_writes(name):
    """@value classes pickle every field (cached encodings included) in field order, as
    dataclasses' own pair does, only faster (issue #17, round 10): a state written by
    either pair loads with the other, and a round trip keeps the value and its caches."""
    import pickle

    from dataclasses import _dataclass_getstate, _dataclass_setstate

    seen = _example_parts(name, with_scenario=True)
    checked = 0
    for part in seen.values():
        cls = type(part)
        if "__dataclass_init__" not in vars(cls):
            continue
        canonical_bytes(part)   # fill the caches the state carries
        ours = cls.__getstate__(part)
        assert list(ours) == _dataclass_getstate(part)
        loaded = object.__new__(cls)
        loaded.__setstate__(_dataclass_getstate(part))
        theirs = object.__new__(cls)
        _dataclass_setstate(theirs, ours)
        again = pickle.loads(pickle.dumps(part, 5))
        for copy in (loaded, theirs, again):
            assert [getattr(copy, f.name) for f in dataclasses.fields(cls)] == \
                [getattr(part, f.name) for f in dataclasses.fields(cls)]
        assert canonical_bytes(again) == canonical_bytes(part)
        checked += 1
    assert checked >= 10
