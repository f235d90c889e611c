"""Properties judged once per view (spec/network/views.py, checker.model.Judge): every
declared ``reads`` covers all that its predicate reads, on every bundled example; verdicts
with the views are those without, on every example and on generated configurations; a
declaration that leaves a read out is caught by ``--memo verify``."""

from __future__ import annotations

import dataclasses
import pickle
from collections import deque
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from pyspark import cloudpickle

from checker.cli import _check_properties
from checker.explore import explore
from checker.model import Judge, Property, ViewMismatch
from checker.spark_expand import _Checks
from spec import objects
from spec.network import MQNetwork, NetworkState
from spec.network.state import Channel, LogEntry, QmgrState
from spec.network.views import FLOW, LOGS, QMGRS, READS_FLOW, READS_LOGS, READS_QMGRS, VIEWS, view_key
from spec.pubsub import LocalPubSub
from spec.scenario import load_scenario, parse_scenario
from spec.strategies import configurations
from spec.values import replace

EXAMPLES = sorted((Path(__file__).resolve().parent.parent / "examples").glob("*.toml"))


class _Unread:
    """A part of a state a predicate declared it does not read: any use of it fails."""

    def _fail(self, *_args, **_kwargs):
        raise _Read()

    __iter__ = __len__ = __bool__ = __getitem__ = __eq__ = __contains__ = _fail
    __hash__ = None

    def __getattr__(self, name):
        raise _Read()


class _Read(Exception):
    """The predicate used a part it declared it does not read."""


class _Flag(_Unread):
    """A channel's messages seen as ``FLOW`` sees them: whether there are any."""

    def __init__(self, any_: bool) -> None:
        object.__setattr__(self, "any", any_)

    def __bool__(self) -> bool:
        return self.any


def _craft(cls, source, **parts):
    """An instance of ``cls`` with ``source``'s fields, ``parts`` replacing some (no
    constructor: the replacements are not values of the declared types)."""
    out = object.__new__(cls)
    for f in dataclasses.fields(cls):
        object.__setattr__(out, f.name, parts[f.name] if f.name in parts else getattr(source, f.name))
    return out


def _as_read(state: NetworkState, reads: frozenset) -> NetworkState:
    """``state`` with the parts ``reads`` leaves out unusable: messages reduced to whether
    there are any without FLOW... every channel unusable without it; logs unusable without
    LOGS."""
    parts = {"_encoded": None}
    if FLOW in reads:
        parts["channels"] = tuple(_craft(Channel, c, messages=_Flag(bool(c.messages)), _digest=None)
                                  for c in state.channels)
    else:
        parts["channels"] = _Unread()
    if LOGS not in reads:
        parts["logs"] = _Unread()
    return _craft(NetworkState, state, **parts)


def _states(model, bound: int) -> list:
    (init,) = model.init_states()
    seen, queue, out = {init}, deque([init]), []
    while queue and len(out) < bound:
        s = queue.popleft()
        out.append(s)
        for a in model.actions(s):
            t = model.next_state(s, a)
            if t is not None and t not in seen:
                seen.add(t)
                queue.append(t)
    return out


def _viewed(props) -> list:
    return [p for p in props if p.predicate is not None and p.reads and p.reads <= VIEWS]


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_a_declared_property_reads_nothing_else(path):
    """On each explored state (both ways of starting), every property that declares
    ``reads`` judges a copy whose undeclared parts fail when used exactly as the state."""
    scenario = load_scenario(path)
    props = _check_properties(scenario)
    viewed = _viewed(props)
    judged = 0
    for initial in (True, False):
        model = MQNetwork(scenario, props, explore_initial=initial, memo="off")
        for state in _states(model, 150):
            copies = {}
            for p in viewed:
                copy = copies.get(p.reads)
                if copy is None:
                    copy = copies[p.reads] = _as_read(state, p.reads)
                want = bool(p.predicate(model, state))
                try:
                    got = bool(p.predicate(model, copy))
                except _Read:
                    pytest.fail(f"{p.id} reads more than {sorted(p.reads)} on {path.name}")
                assert got == want, (p.id, path.name)
                judged += 1
    assert judged > 0


def test_most_properties_declare_what_they_read():
    """The catalogue's state properties that read no channel's messages say so (about
    four in five): a new one without ``reads`` is judged on every state, correctly but slowly."""
    props = _check_properties(load_scenario(next(p for p in EXAMPLES if p.name == "fr-mesh-broken.toml")))
    state_props = [p for p in props if p.predicate is not None and p.kind.value != "config"]
    assert len(_viewed(state_props)) >= 0.75 * len(state_props)


def _verdicts(scenario, memo: str, initial: bool, bound: int):
    model = MQNetwork(scenario, _check_properties(scenario), explore_initial=initial, memo=memo)
    result = explore(model, max_states=bound, workers=1)
    st = result.statistics
    return (st.distinct_states, st.generated_states, st.max_depth), result.verdicts


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_verdicts_with_views_are_those_without(path):
    """``verify`` judges every reused verdict again (and raises on a difference); the
    verdicts, traces and counts are those of the run that judges every state."""
    scenario = load_scenario(path)
    for initial in (True, False):
        assert _verdicts(scenario, "verify", initial, 200) == _verdicts(scenario, "off", initial, 200), initial


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(configurations(max_qmgrs=3, max_steps=3))
def test_generated_configurations_judge_the_same(config):
    scenario = parse_scenario(config.to_toml(), "generated.toml")
    initial = config.explore_initial
    assert _verdicts(scenario, "verify", initial, 120) == _verdicts(scenario, "off", initial, 120)


# --- the mechanism -----------------------------------------------------------------------

def _net(messages=(), status="RUNNING", logs=(), **scalars) -> NetworkState:
    a = QmgrState("QA", objects.QueueManagerDef("QA"), LocalPubSub())
    b = QmgrState("QB", objects.QueueManagerDef("QB"), LocalPubSub())
    return NetworkState((a, b), (Channel("QA", "QB", status, tuple(messages)),), logs=logs, **scalars)


def test_the_keys_see_what_the_tags_name_and_nothing_else():
    base = _net(["m1"])
    qmgrs, flow, logs = (view_key(r) for r in (READS_QMGRS, READS_FLOW, READS_LOGS))
    other_messages = _net(["m2", "m3"])
    assert qmgrs(base) == qmgrs(other_messages) and flow(base) == flow(other_messages)
    assert flow(base) != flow(_net()) and flow(base) != flow(_net(["m1"], status="RETRYING"))
    assert qmgrs(base) == qmgrs(_net())
    logged = _net(["m1"], logs=(("QA", (LogEntry("QA", "AMQ9999", "x", 0),)),))
    assert flow(base) == flow(logged) and logs(base) != logs(logged)
    # every scalar of the network is part of the queue managers' view
    for name, value in (("next_step", 1), ("clock", 2), ("faults", 1), ("stopped_by_fault", ("QB",)),
                        ("held_by_step", (("QA", "QB"),))):
        assert qmgrs(base) != qmgrs(replace(base, **{name: value})), name
    changed = replace(base, qmgrs=(replace(base.qmgrs[0], running=False), base.qmgrs[1]))
    assert qmgrs(base) != qmgrs(changed)
    # the fields of the state: each is in the queue managers' view, or named by a tag
    names = {f.name for f in dataclasses.fields(NetworkState) if f.init}
    assert names - {"channels", "logs"} == {"qmgrs", "next_step", "clock", "faults", "stopped_by_fault",
                                            "held_by_step", "uniform"}
    assert {QMGRS, FLOW, LOGS} == VIEWS


def test_only_tags_of_the_views_get_a_key():
    assert view_key(None) is None and view_key(frozenset()) is None
    assert view_key(frozenset({QMGRS, "settled"})) is None
    scenario = load_scenario(EXAMPLES[0])
    assert MQNetwork(scenario, memo="off").views(READS_QMGRS) is None
    assert MQNetwork(scenario, memo="on").views(READS_QMGRS) is not None


def _lying():
    """Declares the queue managers only, reads the channels."""
    return Property.always("LIES", "no message in flight", lambda m, s: not any(c.messages for c in s.channels),
                           reads=READS_QMGRS)


class _Net:
    def __init__(self, verify: bool) -> None:
        self.verify_views = verify

    def views(self, reads):
        return view_key(reads)


def test_a_declaration_that_leaves_a_read_out_is_caught_by_verify():
    empty, busy = _net(), _net(["m1"])
    on = Judge(_Net(False), [_lying()])
    assert on.hits(empty) == [] and on.hits(busy) == []   # the verdict of `empty` reused: wrong
    assert on.cached == 1
    verify = Judge(_Net(True), [_lying()])
    assert verify.hits(empty) == []
    with pytest.raises(ViewMismatch, match="LIES"):
        verify.hits(busy)


def test_hits_come_in_the_order_of_the_properties():
    props = [Property.sometimes("S1", "s", lambda m, s: True, reads=READS_FLOW),
             Property.always("A", "a", lambda m, s: False),
             Property.sometimes("S2", "s", lambda m, s: True, reads=READS_QMGRS)]
    judge = Judge(_Net(False), props)
    assert judge.hits(_net(["m"])) == ["S1", "A", "S2"] == judge.hits(_net(["n", "o"]))
    assert judge.cached == 2


def test_spark_checks_do_not_ship_their_judges():
    scenario = load_scenario(next(p for p in EXAMPLES if p.name == "fr-mesh-broken.toml"))
    props = _check_properties(scenario)
    model = MQNetwork(scenario, props, memo="on")
    checks = _Checks.of(props)
    (init,) = model.init_states()
    before = list(checks.observe(model, init, quiescent=True))
    assert "_judges" in checks.__dict__
    shipped = pickle.loads(cloudpickle.dumps(checks))   # as Spark ships a closure
    assert "_judges" not in shipped.__dict__
    assert list(shipped.observe(model, init, quiescent=True)) == before


def test_the_tasks_of_one_spark_run_share_an_executors_judges():
    """Each task unpickles its own model and checks; within a worker process the run's
    judges, and the verdicts they cached, serve every task of that run, and only that run."""
    import checker.spark_expand as backend

    scenario = load_scenario(next(p for p in EXAMPLES if p.name == "fr-mesh-broken.toml"))
    props = _check_properties(scenario)
    model = MQNetwork(scenario, props, memo="on")
    (init,) = model.init_states()
    checks = _Checks.of(props, run="driver-pid.7")
    ship = cloudpickle.dumps((model, checks))
    first_model, first = pickle.loads(ship)   # task 1
    before = list(first.observe(first_model, init, quiescent=True))
    judge = first.__dict__["_judges"][1]
    cached = judge.cached
    second_model, second = pickle.loads(ship)   # task 2, same process
    assert list(second.observe(second_model, init, quiescent=True)) == before
    assert second.__dict__["_judges"][1] is judge and judge.cached > cached
    other_model, other = pickle.loads(cloudpickle.dumps((model, _Checks.of(props, run="driver-pid.8"))))
    assert list(other.observe(other_model, init, quiescent=True)) == before
    assert other.__dict__["_judges"][1] is not judge
    assert list(backend._RUN_JUDGES) == ["driver-pid.8"]   # one run's at a time
    backend._RUN_JUDGES.clear()


def test_check_memo_verify_reports_a_lying_declaration_in_one_line(monkeypatch, capsys):
    """``check --memo verify`` with a property whose ``reads`` leaves out what it reads:
    exit 1 and one line naming it, no traceback; ``--memo on`` trusts the declaration."""
    from checker import cli

    real = cli._check_properties
    # holds where it is first judged, and fails later on a state with the same queue managers
    # (eleven since session 28: full repositories record the joiners' subscriptions, so at
    # ten the first state over the limit has a view of its own and is judged directly)
    lie = Property.always("LIES", "fewer than eleven messages in flight",
                          lambda m, s: sum(len(c.messages) for c in s.channels) < 11, reads=READS_QMGRS)
    monkeypatch.setattr(cli, "_check_properties", lambda scenario, faults=None: (*real(scenario, faults), lie))
    example = next(p for p in EXAMPLES if p.name == "fr-mesh-broken.toml")
    args = ["check", str(example), "--explore-initial", "--max-states", "300", "--workers", "1", "--quiet"]
    assert cli.main(args + ["--memo", "verify"]) == 1
    err = capsys.readouterr().err
    assert "--memo verify: " in err and "LIES" in err and "property views" in err and "Traceback" not in err
    assert cli.main(args + ["--memo", "off", "--property", "LIES"]) == 1   # judged on every state: violated
    assert "violated" in capsys.readouterr().out


def test_a_group_whose_views_do_not_repeat_rests_and_judges_the_same():
    """Where fewer than 1 in 4 states of a window reuse a verdict, the group is judged
    directly for four windows (no key, cache dropped), then keyed again; a window that
    fails again doubles the rest."""
    seen = []

    class Counting:
        def views(self, reads):
            def key(s):
                seen.append(s)
                return s
            return key

    odd = Property.always("ODD", "odd", lambda m, s: s % 2 == 1, reads=frozenset({"n"}))
    judge = Judge(Counting(), [odd])
    judge.WINDOW = 4
    answers = [judge.hits(n) for n in range(40)]
    assert answers == [[] if n % 2 else ["ODD"] for n in range(40)]
    # keyed 1-4, rests 16 (4 windows), keyed 21-24, rests 32 (doubled): 8 keyed
    assert judge.rests == 2 and judge.cached == 0 and len(seen) == 8
    again = Judge(Counting(), [odd])
    again.WINDOW = 4
    for _ in range(10):
        again.hits(3)
    assert again.rests == 0 and again.cached == 9
