"""Partial-order reduction (issue #17, docs/por.md): the same verdicts and the same settled
states with and without it, fewer or equal states with it, shortest traces kept, and the
explorer's cycle proviso — on bundled examples, on Hypothesis-generated scenarios, and on a
small generic model."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from checker.cli import _check_properties
from checker.explore import explore
from checker.model import Kind, Property, Status, por_reads, por_stable
from spec.network import MQNetwork
from spec.scenario import load_scenario, parse_scenario
from spec.strategies import configurations
from scenarios import stopped_servers_text

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"


def _settled_recorder(seen: set):
    """An at_quiescence property that records every settled state it is asked about (the
    explorer asks exactly once per settled state; in-process: workers=1)."""
    def record(model, state) -> bool:
        seen.add(model.encode(state))
        return True
    return Property.at_quiescence("SETTLED-STATES", "records settled states", record)


def _both(model_for, **kw):
    """Explore with and without reduction: (reduced result, its settled states, full result,
    its settled states)."""
    out = []
    for por in (True, False):
        seen: set = set()
        model = model_for(seen)
        out += [explore(model, workers=1, por=por, **kw), seen]
    return out


def _statuses(result) -> dict:
    return {pid: v.status for pid, v in result.verdicts.items()}


# examples whose [[expect]] blocks give a property reduction may apply to (EXPECT, with its
# witness EXPECT-END, which reads only "settled"), chosen small enough for the default suite
EXPECT_EXAMPLES = ["fr-mesh-broken.toml", "reset-deleted-qmgr.toml", "ps-proxy-race.toml",
                   "wl-gateway-scenarios.toml", "wl-failed-server.toml", "cluster-two-frs.toml",
                   "ps-football-results.toml", "wl-arrival-stays.toml"]
# where the reduction removes states (measured: 564 of 671, 309 of 313 with its EXPECT
# violation, 275 of 320)
REDUCED = {"wl-gateway-scenarios.toml", "ps-football-results.toml", "wl-arrival-stays.toml"}


@pytest.mark.parametrize("name", EXPECT_EXAMPLES)
def test_examples_same_verdicts_and_settled_states(name):
    scenario = load_scenario(EXAMPLES / name)
    catalogue = _check_properties(scenario)

    def model_for(seen):
        return MQNetwork(scenario, catalogue + (_settled_recorder(seen),))

    ids = ["EXPECT", "SETTLED-STATES"]
    reduced, rseen, full, fseen = _both(model_for, property_ids=ids, max_states=20000)
    assert full.complete and reduced.complete
    assert _statuses(reduced) == _statuses(full)
    assert rseen == fseen
    assert reduced.distinct_states <= full.distinct_states
    if name in REDUCED:
        assert reduced.distinct_states < full.distinct_states
    # a shortest trace is still reported (the pinned trace lengths stay)
    for pid, v in full.verdicts.items():
        if v.trace is not None:
            assert reduced.verdicts[pid].trace.length == v.trace.length


def test_no_reduction_while_a_property_reads_everything():
    """An invariant that declares no reads and no stability (here one beside the catalogue,
    whose own properties all declare stability under landings since session 36): the run
    is unreduced, state for state."""
    scenario = load_scenario(EXAMPLES / "wl-failed-server.toml")
    undeclared = Property.always("ANYTHING", "reads everything, claims nothing", lambda m, s: True)
    props = _check_properties(scenario) + (undeclared,)
    assert por_reads(props) is None and por_stable(props) == frozenset()
    a = explore(MQNetwork(scenario, props), workers=1, por=True)
    b = explore(MQNetwork(scenario, props), workers=1, por=False)
    assert a.to_dict()["verdicts"] == b.to_dict()["verdicts"]
    assert a.distinct_states == b.distinct_states


def _settled_kinds(scenario, seen):
    """The catalogue's at_quiescence and eventually properties (witnesses dropped: those read
    everything) and the recorder."""
    keep = tuple(replace(p, witness=None, evidence=None) for p in _check_properties(scenario)
                 if p.kind in (Kind.AT_QUIESCENCE, Kind.EVENTUALLY))
    return keep + (_settled_recorder(seen),)


@settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
@given(configurations(max_qmgrs=3, max_steps=3))
def test_generated_scenarios_same_verdicts_and_settled_states(configuration):
    scenario = parse_scenario(configuration.to_toml(), "generated.toml")

    def model_for(seen):
        return MQNetwork(scenario, _settled_kinds(scenario, seen))

    reduced, rseen, full, fseen = _both(model_for, max_states=3000)
    if not full.complete:  # a bound cuts the two searches at different places: nothing to compare
        return
    assert reduced.complete
    assert _statuses(reduced) == _statuses(full)
    assert rseen == fseen
    assert reduced.distinct_states <= full.distinct_states


def _rcvr(name: str, extra: str = "") -> str:
    return (f"DEFINE CHANNEL(TO.{name}) CHLTYPE(CLUSRCVR) TRPTYPE(TCP) "
            f"CONNAME('{name.lower()}.example.com(1414)') CLUSTER(DEMO){extra}")


def _sdr(name: str) -> str:
    return (f"DEFINE CHANNEL(TO.{name}) CHLTYPE(CLUSSDR) TRPTYPE(TCP) "
            f"CONNAME('{name.lower()}.example.com(1414)') CLUSTER(DEMO)")


@st.composite
def cluster_queue_scenarios(draw):
    """A cluster queue on k hosts and an application putting to it: the workload scenarios
    where messages land at hosts that send nothing on, which is where the reduction applies
    (the generic generator above rarely gets there)."""
    k = draw(st.integers(2, 3))
    parts = ['name = "generated cluster queue"\n']
    parts.append(f'[qmgrs.QMAPP]\nmqsc = """\nALTER QMGR REPOS(DEMO)\n{_rcvr("QMAPP")}\n{_sdr("HOST1")}\n"""\n')
    for i in range(1, k + 1):
        weight = draw(st.sampled_from(["", " CLWLWGHT(10)", " CLWLWGHT(90)"]))
        put = draw(st.sampled_from(["", " PUT(DISABLED)"])) if i > 1 else ""
        repos = "ALTER QMGR REPOS(DEMO)\n" if i == 1 else ""
        parts.append(f'[qmgrs.HOST{i}]\nmqsc = """\n{repos}{_rcvr(f"HOST{i}", weight)}\n{_sdr("QMAPP")}\n'
                     f'DEFINE QLOCAL(DEMOQ) CLUSTER(DEMO){put}\n"""\n')
    bind = draw(st.sampled_from(["NOT_FIXED", "ON_OPEN"]))
    parts.append(f'[[steps]]\nopen = {{ qmgr = "QMAPP", handle = "app", queue = "DEMOQ", bind = "{bind}" }}\n')
    for _ in range(draw(st.integers(1, 2))):
        parts.append(f'[[steps]]\nput = {{ handle = "app", count = {draw(st.integers(1, 3))} }}\n')
    parts.append("[[expect]]\nno_errors = true\n")
    return "\n".join(parts)


def _same_verdicts_and_settled_states(scenario):
    """EXPECT's verdicts and the set of settled states with and without the reduction,
    over the catalogue, the reduced run no larger: (reduced, full) results."""
    catalogue = _check_properties(scenario)

    def model_for(seen):
        return MQNetwork(scenario, catalogue + (_settled_recorder(seen),))

    reduced, rseen, full, fseen = _both(model_for, property_ids=["EXPECT", "SETTLED-STATES"], max_states=5000)
    assert full.complete and reduced.complete
    assert _statuses(reduced) == _statuses(full)
    assert rseen == fseen
    assert reduced.distinct_states <= full.distinct_states
    return reduced, full


@settings(max_examples=8, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
@given(cluster_queue_scenarios())
def test_generated_cluster_queues_same_verdicts_fewer_states(text):
    reduced, full = _same_verdicts_and_settled_states(parse_scenario(text, "generated.toml"))
    for pid, v in full.verdicts.items():
        if v.trace is not None:
            assert reduced.verdicts[pid].trace.length == v.trace.length


def test_a_cluster_queue_is_reduced():
    """Three puts landing at three hosts: 2^3+2 interleavings' states without, 3+3 with."""
    text = "\n".join([
        'name = "three hosts"\n',
        f'[qmgrs.QMAPP]\nmqsc = """\nALTER QMGR REPOS(DEMO)\n{_rcvr("QMAPP")}\n{_sdr("HOST1")}\n"""\n',
        *(f'[qmgrs.HOST{i}]\nmqsc = """\n{"ALTER QMGR REPOS(DEMO)" if i == 1 else ""}\n{_rcvr(f"HOST{i}")}\n'
          f'{_sdr("QMAPP")}\nDEFINE QLOCAL(DEMOQ) CLUSTER(DEMO)\n"""\n' for i in (1, 2, 3)),
        '[[steps]]\nopen = { qmgr = "QMAPP", handle = "app", queue = "DEMOQ", bind = "NOT_FIXED" }\n',
        '[[steps]]\nput = { handle = "app", count = 3 }\n',
        "[[expect]]\nno_errors = true\n"])
    scenario = parse_scenario(text, "three.toml")

    def model_for(seen):
        return MQNetwork(scenario, _check_properties(scenario) + (_settled_recorder(seen),))

    reduced, rseen, full, fseen = _both(model_for, property_ids=["EXPECT", "SETTLED-STATES"])
    assert (reduced.distinct_states, full.distinct_states) == (6, 10)
    assert rseen == fseen
    assert _statuses(reduced) == _statuses(full)


# --------------------------------------------------------------------------- generic model
class Ring:
    """Two counters moving independently round a ring of ``n``; ``ample`` offers counter 0
    alone. Without the cycle proviso the search would go round counter 0's ring for ever
    and never see counter 1 move (the ignoring problem)."""

    def __init__(self, n: int, props=()):
        self.n, self._props = n, tuple(props)

    def init_states(self):
        return ((0, 0),)

    def actions(self, state):
        return (0, 1)

    def next_state(self, state, action):
        s = list(state)
        s[action] = (s[action] + 1) % self.n
        return tuple(s)

    def properties(self):
        return self._props

    def encode(self, state):
        return bytes(state)

    def ample(self, state, actions, reads):
        return (0,) if reads is not None and not reads else None


def test_cycle_proviso_finds_what_an_ignored_action_reaches():
    witness = Property.sometimes("B-MOVED", "counter 1 reached 2", lambda m, s: s[1] == 2, reads=frozenset())
    full = explore(Ring(4, [witness]), workers=1, por=False)
    reduced = explore(Ring(4, [witness]), workers=1, por=True)
    assert full.distinct_states == 16
    assert reduced.verdicts["B-MOVED"].status is Status.WITNESSED
    assert reduced.verdicts["B-MOVED"].trace.length == full.verdicts["B-MOVED"].trace.length == 2
    # the reduction is real: not every state is needed
    assert reduced.distinct_states <= full.distinct_states


class CountThenSpin(Ring):
    """Counter 0 counts up to ``n - 1`` and stops; counter 1 goes round a ring of ``n`` for
    ever. ``ample`` offers counter 0 alone while it can move (independent of counter 1:
    a persistent set of internal actions). The only cycles are counter 1's, which the
    reduced graph reaches once counter 0 has stopped."""

    def actions(self, state):
        return (0, 1) if state[0] < self.n - 1 else (1,)

    def next_state(self, state, action):
        s = list(state)
        s[action] = (s[action] + 1) % self.n if action else s[action] + 1
        return tuple(s)

    def ample(self, state, actions, reads):
        return (0,) if reads is not None and not reads and state[0] < self.n - 1 else None


class CountDown(CountThenSpin):
    """Both counters count down to 0 and stop: no cycle at all."""

    def init_states(self):
        return ((self.n - 1, self.n - 1),)

    def actions(self, state):
        return tuple(i for i in (0, 1) if state[i] > 0)

    def next_state(self, state, action):
        s = list(state)
        s[action] -= 1
        return tuple(s)

    def ample(self, state, actions, reads):
        return (0,) if reads is not None and not reads and state[0] > 0 and state[1] > 0 else None


def test_termination_after_a_reduced_search_uses_the_recorded_reduced_edges(monkeypatch):
    """docs/por.md, "eventually": the reduced graph has a reachable cycle of internal
    actions iff the full graph has one, so the termination check looks for it among the
    edges the reduced search recorded — not by expanding every state again in full, which
    cost a reduced run that saved nothing twice the CPU (session 36)."""
    import checker.explore as ex

    def props():
        return [Property.eventually("TERM", "no cycle of internal actions"),
                Property.sometimes("ANY", "anything", lambda m, s: True, reads=frozenset())]

    spin_full = explore(CountThenSpin(5, props()), workers=1, por=False)
    cd_full = explore(CountDown(5, props()), workers=1, por=False)

    def no_second_pass(self):
        raise AssertionError("the termination check expanded the states again")
    monkeypatch.setattr(ex._Explorer, "_reexpanded_edges", no_second_pass)
    spin = explore(CountThenSpin(5, props()), workers=1, por=True)
    cd = explore(CountDown(5, props()), workers=1, por=True)
    # the reduction is real on both models
    assert spin.distinct_states < spin_full.distinct_states
    assert cd.distinct_states < cd_full.distinct_states
    # a cycle only counter 1 makes, reached once counter 0 has stopped: found, a real lasso
    assert spin_full.verdicts["TERM"].status is spin.verdicts["TERM"].status is Status.VIOLATED
    lasso = spin.verdicts["TERM"].trace
    assert lasso.loop_start is not None and lasso.length > lasso.loop_start
    # no cycle at all: holds, both ways
    assert cd_full.verdicts["TERM"].status is cd.verdicts["TERM"].status is Status.HOLDS
    assert spin.complete and cd.complete


def test_check_no_por_flag_same_verdicts(tmp_path):
    """`mqcheck check` reduces by default; --no-por gives the same verdicts and traces."""
    out = []
    for flag in ([], ["--no-por"]):
        p = subprocess.run([sys.executable, "-m", "checker.cli", "check", str(EXAMPLES / "ps-proxy-race.toml"),
                            "--property", "EXPECT", "--json", "--workers", "1", *flag],
                           capture_output=True, text=True, cwd=ROOT, timeout=300)
        assert p.returncode == 1, p.stderr
        d = json.loads(p.stdout)
        out.append({k: (v["status"], len(v["trace"]["steps"]) if v["trace"] else 0) for k, v in d["verdicts"].items()})
    assert out[0] == out[1]
    assert out[0]["EXPECT"][0] == "violated"


def test_a_reduced_run_says_so_in_text_json_and_report(tmp_path, capsys):
    """Counts differ between a reduced run and an unreduced one (--no-por, Spark): a run
    that reduced anything says so, and a run that did not prints and writes what it did
    before (docs/por.md, "Backends")."""
    from checker.cli import main

    example = str(EXAMPLES / "wl-redrive-not-fixed.toml")   # 55 states reduced, 61 without
    main(["check", example, "--workers", "1"])
    text = capsys.readouterr().out
    assert "Explored: 55 distinct states" in text
    reduced_line = next(line for line in text.splitlines() if line.startswith("Reduced: "))
    assert "of these states expanded with a partial-order reduction" in reduced_line and "--no-por" in reduced_line
    main(["check", example, "--workers", "1", "--no-por"])
    text = capsys.readouterr().out
    assert "Explored: 61 distinct states" in text and "Reduced:" not in text
    data = {}
    for flag in ([], ["--no-por"]):
        out = tmp_path / f"r{len(flag)}.json"
        main(["check", example, "--workers", "1", "--json", *flag])
        out.write_text(capsys.readouterr().out)
        data[bool(flag)] = json.loads(out.read_text())
    assert data[False]["statistics"]["reduced"] > 0
    assert "reduced" not in data[True]["statistics"]   # unreduced JSON as before
    from reports.render import render
    assert "partial-order reduction" in render([data[False]])
    assert "partial-order reduction" not in render([data[True]])


def test_retries_keep_the_reduction_sound():
    # ChannelRetry is a workload decision, like the re-drive a fault makes: while an unbound
    # message waits on a RETRYING channel nothing is reduced (docs/por.md condition 8), and
    # the verdicts and settled states are those of the full search
    text = stopped_servers_text() + '[[expect]]\nmessages = { app = { SERVER2 = 3 } }\n'
    _same_verdicts_and_settled_states(parse_scenario(text, file="retry-por.toml"))


# --------------------------------------------------------------------------- separate routes
# A queue manager with two CLUSRCVRs in one cluster is reached by two routes (a separate
# route: spec.binding.separate_routes), each a FIFO of its own on the pair's channel and
# each with a status of its own. Two gaps the conditions once left (docs/por.md 4 and 5).

_TWO_ROUTES_TO_D = '''name = "a message sent on another route does not queue behind"
[qmgrs.D]
mqsc = """
ALTER QMGR REPOS(DEMO)
DEFINE CHANNEL(TO.D.A) CHLTYPE(CLUSRCVR) CONNAME('d-a(1414)') CLUSTER(DEMO)
DEFINE CHANNEL(TO.D.B) CHLTYPE(CLUSRCVR) CONNAME('d-b(1415)') CLUSTER(DEMO)
DEFINE CHANNEL(TO.E) CHLTYPE(CLUSSDR) CONNAME('e(1414)') CLUSTER(DEMO)
DEFINE QALIAS(QA_D) TARGET(CQ2) CLUSTER(DEMO)
"""
[qmgrs.E]
mqsc = """
ALTER QMGR REPOS(DEMO)
DEFINE CHANNEL(TO.E) CHLTYPE(CLUSRCVR) CONNAME('e(1414)') CLUSTER(DEMO)
DEFINE CHANNEL(TO.D.A) CHLTYPE(CLUSSDR) CONNAME('d-a(1414)') CLUSTER(DEMO)
DEFINE QALIAS(QA_E) TARGET(QA_D) CLUSTER(DEMO)
DEFINE QLOCAL(CQ2) CLUSTER(DEMO)
"""
[[steps]]
open = { qmgr = "E", handle = "h1", queue = "QA_D", bind = "NOT_FIXED" }
[[steps]]
put = { handle = "h1", count = 1 }
[[steps]]
open = { qmgr = "D", handle = "h2", queue = "QA_E", bind = "NOT_FIXED" }
[[steps]]
put = { handle = "h2", count = 1 }
[[expect]]
no_errors = true
'''

_ROUTE_STARTING = '''name = "a delivery out of d changes a separate route's status d reads"
[qmgrs.D]
mqsc = """
ALTER QMGR REPOS(DEMO)
DEFINE CHANNEL(TO.D) CHLTYPE(CLUSRCVR) CONNAME('d(1414)') CLUSTER(DEMO)
DEFINE CHANNEL(TO.Y.A) CHLTYPE(CLUSSDR) CONNAME('y-a(1414)') CLUSTER(DEMO)
DEFINE QALIAS(QA_D) TARGET(CQ) CLUSTER(DEMO)
"""
[qmgrs.Y]
mqsc = """
ALTER QMGR REPOS(DEMO)
DEFINE CHANNEL(TO.Y.A) CHLTYPE(CLUSRCVR) CONNAME('y-a(1414)') CLUSTER(DEMO) NETPRTY(1)
DEFINE CHANNEL(TO.Y.B) CHLTYPE(CLUSRCVR) CONNAME('y-b(1415)') CLUSTER(DEMO) NETPRTY(5)
DEFINE CHANNEL(TO.D) CHLTYPE(CLUSSDR) CONNAME('d(1414)') CLUSTER(DEMO)
DEFINE QLOCAL(CQ) CLUSTER(DEMO)
"""
[[steps]]
open = { qmgr = "D", handle = "h1", queue = "NOPE", target_qmgr = "Y", bind = "NOT_FIXED" }
[[steps]]
put = { handle = "h1", count = 1 }
[[steps]]
open = { qmgr = "Y", handle = "h2", queue = "QA_D", bind = "NOT_FIXED" }
[[steps]]
channel = { qmgr = "D", to = "Y", name = "TO.Y.B", status = "STARTING" }
[[steps]]
put = { handle = "h2", count = 1 }
[[expect]]
no_errors = true
'''


@pytest.mark.parametrize("text", [_TWO_ROUTES_TO_D, _ROUTE_STARTING], ids=["condition-4", "condition-5"])
def test_separate_routes_keep_the_reduction_sound(text):
    # condition 4: E's message h1 waits for D on the pair's route; the message D sends E
    # (h2) comes back to D on the separate route TO.D.B, a delivery into D of its own that
    # can overtake h1 — so D's decisions can come in either order, and reducing to D's
    # deliveries lost one. Condition 5: h1 waits on D's separate route TO.Y.B, set STARTING
    # by a step; its delivery sets that route RUNNING, which D's choice for h2 reads (a
    # RUNNING TO.Y.B, of the higher NETPRTY, wins) — reducing to D's deliveries lost that
    # choice after the last step. Each time one settled state was missing.
    _same_verdicts_and_settled_states(parse_scenario(text, file="routes-por.toml"))
