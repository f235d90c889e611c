"""Partial-order reduction with the whole catalogue checked (issue #17, docs/por.md,
condition 1): the properties' declarations of stability under landings
(``Property.stable_under``, spec.network.views.LANDING) hold on every explored state, a
landing changes only what the declarations' arguments say it changes, and ``check`` with
the whole catalogue gives the same verdicts, vacuity flags and trace lengths with and
without the reduction, in no more states.

The declarations are checked as tests/test_property_views.py checks ``reads``: on the
states of bundled examples (both ways of starting) and of Hypothesis-generated cluster
queues, for every enabled landing ``t`` from a state ``s`` and every property declaring
stability: an ``always`` property violated in ``s`` is violated in ``t(s)``; a
``sometimes`` property witnessed in ``s`` is witnessed in ``t(s)``. Vacuity flags are
witnesses' verdicts (``sometimes`` properties named by ``witness``), so checking the
witnesses checks them; a test below also shows that a witness without the declaration
stops the reduction.
"""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from checker.cli import _check_properties
from checker.explore import explore
from checker.model import Kind, Property, por_stable
from spec import binding as bd
from spec.network import ChannelDeliver, MQNetwork
from spec.network.views import LANDING, STABLE_LANDING
from spec.scenario import load_scenario, parse_scenario

sys.path.insert(0, str(Path(__file__).resolve().parent))
from explored import first_states  # noqa: E402
from test_por import _rcvr, _sdr, cluster_queue_scenarios  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
# the workload examples (application messages land there) and the cluster-queue and
# repository ones (few landings, many declarations judged on the states around them)
STABLE_EXAMPLES = sorted(p.name for p in EXAMPLES.glob("wl-*.toml")) + [
    "cluster-two-frs.toml", "fr-mesh-broken.toml", "ps-football-results.toml", "reset-deleted-qmgr.toml"]


def _declared(props) -> list:
    return [p for p in props if LANDING in p.stable_under]


def _landings(model, state):
    return [a for a in model.actions(state) if isinstance(a, ChannelDeliver) and model._lands(state, a)]


def _only_what_a_landing_changes(model, s, a, t) -> None:
    """``t`` (the landing ``a`` taken from ``s``) differs from ``s`` only in the route's
    messages (one fewer: the one taken) and status (RUNNING), the receiver's ``arrivals``
    and the putting handle's ``arrived`` — the premise of every declaration's argument."""
    assert (t.next_step, t.clock, t.faults, t.stopped_by_fault, t.held_by_step, t.uniform, t.logs) == \
        (s.next_step, s.clock, s.faults, s.stopped_by_fault, s.held_by_step, s.uniform, s.logs)
    before = {(c.src, c.dst): c for c in s.channels}
    after = {(c.src, c.dst): c for c in t.channels}
    # a separate route's status is an entry of its own (spec.binding.route_key), made when
    # it first runs
    route = (a.src, bd.route_key(a.dst, a.route)) if a.route else (a.src, a.dst)
    assert set(after) - set(before) <= {route} and set(before) <= set(after)
    for key, c in before.items():
        if key not in ((a.src, a.dst), route):
            assert after[key] == c, key
    if route != (a.src, a.dst):
        assert not after[route].messages and (route not in before or not before[route].messages)
        assert before[(a.src, a.dst)].status == after[(a.src, a.dst)].status
    assert len(after[(a.src, a.dst)].messages) == len(before[(a.src, a.dst)].messages) - 1
    assert t.route_status(a.src, a.dst, a.route) == "RUNNING"
    assert s.route_status(a.src, a.dst, a.route) in ("INACTIVE", "RUNNING")
    for q0, q1 in zip(s.qmgrs, t.qmgrs):
        assert q0.name == q1.name
        h0 = tuple(replace(h, arrived=()) for h in q0.handles)
        h1 = tuple(replace(h, arrived=()) for h in q1.handles)
        assert replace(q1, arrivals=(), handles=h1) == replace(q0, arrivals=(), handles=h0), q0.name
    assert sum(n for q in t.qmgrs for *_, n in q.arrivals) == sum(n for q in s.qmgrs for *_, n in q.arrivals) + 1


def _check_declarations(model, states, props) -> tuple[int, set]:
    """Every declaration holds for every enabled landing from every state of ``states``:
    (landings taken, ids of declared properties whose value some landing changed)."""
    declared = _declared(props)
    taken, moved = 0, set()
    for s in states:
        for a in _landings(model, s):
            t = model.next_state(s, a)
            _only_what_a_landing_changes(model, s, a, t)
            taken += 1
            for p in declared:
                before, after = bool(p.predicate(model, s)), bool(p.predicate(model, t))
                if before != after:
                    moved.add(p.id)
                if p.kind is Kind.ALWAYS:
                    assert before or not after, f"{p.id}: a landing {a} repaired a violation"
                else:
                    assert not before or after, f"{p.id}: a landing {a} lost a witness"
    return taken, moved


@pytest.mark.parametrize("name", STABLE_EXAMPLES)
def test_declarations_hold_on_the_examples(name):
    scenario = load_scenario(EXAMPLES / name)
    props = _check_properties(scenario)
    for initial in (True, False):
        model = MQNetwork(scenario, props, explore_initial=initial, memo="off")
        _check_declarations(model, first_states(model, 400), props)


@settings(max_examples=10, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
@given(cluster_queue_scenarios())
def test_declarations_hold_on_generated_cluster_queues(text):
    scenario = parse_scenario(text, "generated.toml")
    props = _check_properties(scenario)
    model = MQNetwork(scenario, props, memo="off")
    taken, _ = _check_declarations(model, first_states(model, 3000), props)
    assert taken > 0


def test_the_declarations_are_exercised():
    """The examples take landings where declared properties change value (arrivals are
    witnesses) — the check above is not vacuous — and every always/sometimes property of
    the catalogue's three areas declares stability (so a plain ``check`` reduces)."""
    total, moved = 0, set()
    for name in ("wl-bind-options.toml", "wl-named-target.toml", "wl-arrival-stays.toml"):
        scenario = load_scenario(EXAMPLES / name)
        props = _check_properties(scenario)
        model = MQNetwork(scenario, props, memo="off")
        taken, changed = _check_declarations(model, first_states(model, 400), props)
        total, moved = total + taken, moved | changed
    assert total > 100
    assert {"BD-ON-OPEN-ARRIVED", "BD-TARGET-REACHED"} <= moved
    props = _check_properties(load_scenario(EXAMPLES / "wl-bind-options.toml"))
    assert all(LANDING in p.stable_under for p in props if p.kind in (Kind.ALWAYS, Kind.SOMETIMES)
               and p.reads != frozenset({"settled"}))
    assert por_stable(props) == STABLE_LANDING


def test_a_wrong_declaration_is_caught():
    """Properties that a landing repairs (an even number of messages in flight: every
    landing changes the parity) or whose witness it loses (an odd number), wrongly declared
    stable: the check fails, on an example and on a generated cluster queue."""
    def in_flight(s):
        return sum(len(c.messages) for c in s.channels)

    wrong = Property.always("WRONG", "even in flight", lambda m, s: in_flight(s) % 2 == 0, stable_under=STABLE_LANDING)
    lost = Property.sometimes("LOST", "odd in flight", lambda m, s: in_flight(s) % 2 == 1, stable_under=STABLE_LANDING)
    for scenario in (load_scenario(EXAMPLES / "wl-bind-options.toml"), parse_scenario(_hosts(3), "three.toml")):
        for p in (wrong, lost):
            model = MQNetwork(scenario, (p,), memo="off")
            with pytest.raises(AssertionError, match=p.id):
                _check_declarations(model, first_states(model, 400), (p,))


# --- vacuity -------------------------------------------------------------------------------

def test_an_undeclared_witness_stops_the_reduction():
    """A vacuity flag is its witness's verdict: a witness that does not declare stability
    leaves no class shared (``por_stable``), and the run is unreduced state for state."""
    scenario = parse_scenario(_hosts(3), "three.toml")
    props = tuple(replace(p, stable_under=frozenset()) if p.id == "BD-ON-OPEN-ARRIVED" else p
                  for p in _check_properties(scenario))
    assert por_stable(props) == frozenset()
    a = explore(MQNetwork(scenario, props), workers=1, por=True)
    b = explore(MQNetwork(scenario, props), workers=1, por=False)
    assert a.distinct_states == b.distinct_states == 10
    assert _signature(a) == _signature(b)


def test_vacuity_flags_are_kept():
    """A witness reached only through landings (BD-ON-OPEN-ARRIVED: two arrivals of a
    BIND_ON_OPEN handle's messages) and witnesses never reached: the reduced run, which
    does reduce, flags the same properties vacuous and reaches the same witnesses."""
    text = _hosts(3).replace("[[steps]]", '[[steps]]\nopen = { qmgr = "QMAPP", handle = "fixed", queue = "DEMOQ", '
                             'bind = "ON_OPEN" }\n[[steps]]\nput = { handle = "fixed", count = 2 }\n[[steps]]', 1)
    scenario = parse_scenario(text, "three.toml")
    a = explore(MQNetwork(scenario, _check_properties(scenario)), workers=1, por=True)
    b = explore(MQNetwork(scenario, _check_properties(scenario)), workers=1, por=False)
    assert _signature(a) == _signature(b)
    assert a.verdicts["BD-ON-OPEN-ARRIVED"].status.value == "witnessed"
    assert a.verdicts["BD-ON-OPEN-FIXED"].vacuous is False
    assert any(v.vacuous for v in a.verdicts.values())
    assert a.distinct_states < b.distinct_states


# --- verdicts with and without the reduction ------------------------------------------------

def _signature(result) -> dict:
    """Per property: status, vacuity flag and trace length (a reduced run reports a
    shortest trace: checker.explore._shortest_traces)."""
    return {pid: (v.status.value, v.vacuous, None if v.trace is None else v.trace.length)
            for pid, v in result.verdicts.items()}


def _hosts(k: int, bind: str = "NOT_FIXED", count: int | None = None) -> str:
    """A cluster queue on ``k`` hosts and ``count`` (default ``k``) puts through one handle."""
    return "\n".join([
        f'name = "{k} hosts"\n',
        f'[qmgrs.QMAPP]\nmqsc = """\nALTER QMGR REPOS(DEMO)\n{_rcvr("QMAPP")}\n{_sdr("HOST1")}\n"""\n',
        *(f'[qmgrs.HOST{i}]\nmqsc = """\n{"ALTER QMGR REPOS(DEMO)" if i == 1 else ""}\n{_rcvr(f"HOST{i}")}\n'
          f'{_sdr("QMAPP")}\nDEFINE QLOCAL(DEMOQ) CLUSTER(DEMO)\n"""\n' for i in range(1, k + 1)),
        f'[[steps]]\nopen = {{ qmgr = "QMAPP", handle = "app", queue = "DEMOQ", bind = "{bind}" }}\n',
        f'[[steps]]\nput = {{ handle = "app", count = {k if count is None else count} }}\n',
        "[[expect]]\nno_errors = true\n"])


def _same_with_and_without(scenario, max_states: int = 30000):
    a = explore(MQNetwork(scenario, _check_properties(scenario)), workers=1, por=True, max_states=max_states)
    b = explore(MQNetwork(scenario, _check_properties(scenario)), workers=1, por=False, max_states=max_states)
    assert a.complete and b.complete
    assert _signature(a) == _signature(b)
    assert a.distinct_states <= b.distinct_states
    return a, b


@pytest.mark.parametrize("k,reduced,full", [(3, 6, 10), (4, 7, 18)])
def test_a_cluster_queue_is_reduced_with_the_whole_catalogue(k, reduced, full):
    """k puts landing at k hosts, every catalogue property checked: k+3 states against
    2^k+2 (as with ``--property EXPECT`` before, docs/por.md)."""
    a, b = _same_with_and_without(parse_scenario(_hosts(k), f"{k}.toml"))
    assert (a.distinct_states, b.distinct_states) == (reduced, full)


# the bundled workload examples whose exploration completes (tests/manifests/workload.json),
# small enough for the default suite
COMPLETE = ["wl-arrival-stays.toml", "wl-clwluseq-any.toml", "wl-failed-server.toml", "wl-gateway-chain.toml",
            "wl-gateway-scenarios.toml", "wl-on-open-far-end.toml", "wl-overlap-bounce.toml",
            "wl-overlap-rank.toml", "wl-rank-beats-status.toml", "wl-redrive-not-fixed.toml",
            "wl-routing-in-cluster.toml", "wl-routing-scenario1.toml", "wl-routing-scenario2.toml",
            "wl-routing-scenario3.toml", "wl-stuck-on-open.toml", "wl-weights-small.toml"]


@pytest.mark.parametrize("name", COMPLETE)
def test_workload_examples_same_verdicts_with_the_whole_catalogue(name):
    _same_with_and_without(load_scenario(EXAMPLES / name))


@settings(max_examples=10, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
@given(cluster_queue_scenarios())
def test_generated_cluster_queues_same_verdicts_with_the_whole_catalogue(text):
    _same_with_and_without(parse_scenario(text, "generated.toml"))
