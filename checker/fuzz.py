"""Hypothesis-driven fuzzing of any :class:`~checker.model.Model`: random configurations
and random walks (DESIGN §1 ``fuzz.py``, §2.3 ``mqcheck fuzz``; issue #14).

Generic: this module knows the Model protocol and Hypothesis, never ``spec``. What it
fuzzes comes in a :class:`FuzzTarget` from the composition root (``checker.cli``): a
Hypothesis strategy of configurations, a function building a Model from one, and a
function rendering one as a scenario file.

Two modes:

- **configs** (:func:`fuzz_configs`): each example is a configuration drawn from the
  strategy, explored exhaustively by :func:`checker.explore.explore` within small bounds
  (``max_states``); every property of the model is checked in every state explored.
- **walks** (:func:`fuzz_walks`): a ``RuleBasedStateMachine`` whose ``@initialize`` rule
  draws a configuration, whose one rule takes an enabled action of the model, and whose
  ``@invariant`` checks the model's ``always`` properties (and ``at_quiescence`` ones in
  quiescent states) after every step: one long random path per example, far deeper than a
  breadth-first search reaches in bigger configurations.

Rare behaviour: each walk enables a random subset of *action kinds* (swarm testing, Groce
et al. 2012, as Hypothesis's own stateful testing does for rules since
HypothesisWorks/hypothesis#2238); when no action of an enabled kind is possible the walk
takes the model's first enabled action, so a walk never stalls and no example is wasted
(the failure mode of HypothesisWorks/hypothesis#376). Every run reports, per property, in
how many examples its witness was reached: a run without failures says how much it exercised.

No ``target()`` and no targeting phase (``Phase.target``). Hypothesis hill-climbs a target
score from the best example. On these configurations most of its attempts end in an
overrun before the command's test runs, and are run again on the next pass of the climb;
the phase ends only after a pass that made no call, so it ran for minutes without running
an example (``--seed 8 --max-qmgrs 3 --examples 800``: 507 examples in 400 s; without
the phase all 800 in 199 CPU s). Over seeds 0-3 at 200 examples the phase cost 1.0-2.2x
the CPU and left as many properties never exercised or more in three of four seeds
(docs/decisions.md, "Session 29: no targeting phase in `mqcheck fuzz`").

A failure (a violated property, or the model raising) is shrunk by Hypothesis; the
shrunk configuration is rendered as a scenario file headed by the property, the seed and
the replay command (``mqcheck check FILE --property ID``). Failures are kept in the
example database (replayed first by the next run); a pareto front of targeting, which an
older version stored there, is not read, so that the same seed gives the same run.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, Phase, Verbosity, reject, seed as hypothesis_seed, settings
from hypothesis import given, strategies as st
from hypothesis.database import DirectoryBasedExampleDatabase, ExampleDatabase
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule, run_state_machine_as_test

from checker.model import Kind, Status, describe_action, is_internal, select_properties

MODES = ("configs", "walks")
CRASH = "CRASH"  # the property id of a failure where the model itself raised
EXAMPLES_DONE = "examples done"   # the stop reason of a run that ran all its examples


class InvalidConfiguration(Exception):
    """Raised by :attr:`FuzzTarget.build` for a configuration the model cannot take: the
    example is counted as invalid and Hypothesis draws another."""


@dataclass(frozen=True)
class FuzzTarget:
    """What the fuzzer needs from the composition root.

    - ``configurations``: a Hypothesis strategy of configuration values;
    - ``build(configuration) -> Model`` (may raise :class:`InvalidConfiguration`);
    - ``render(configuration, header) -> str``: the scenario file text, ``header`` being
      comment lines to put at its top;
    - ``excused(configuration) -> ids``: properties whose documented assumptions the
      configuration breaks on purpose (e.g. full repositories not fully connected): their
      violations are counted as ``excused``, not reported as counterexamples;
    - ``kind_of(model, action) -> str``: the action's kind for swarm testing (default:
      the action's class name);
    - ``size_of(configuration) -> dict``: how big it is, for reports;
    - ``key``: bytes distinguishing this target's entries in the example database.
    """

    configurations: Any
    build: Callable[[Any], Any]
    render: Callable[[Any, Sequence[str]], str]
    excused: Callable[[Any], Collection[str]] = lambda configuration: ()
    kind_of: Callable[[Any, Any], str] | None = None
    size_of: Callable[[Any], dict] | None = None
    key: bytes = b""


@dataclass
class PropertyCoverage:
    """Per property: examples that checked it, reached its witness, violated it, and
    violated it in a configuration that breaks its assumptions (``excused``).

    ``exercised``: for a ``sometimes`` property, the examples that reached it; for an
    ``always``/``at_quiescence`` property, the examples that reached its witness (the
    property itself when it names none: examples that checked it in some state); for
    ``eventually``, the examples where termination was decided on a run with at least one
    action."""

    id: str
    kind: str
    title: str = ""
    witness: str | None = None
    checked: int = 0
    exercised: int = 0
    violated: int = 0
    excused: int = 0


@dataclass
class Counterexample:
    """A shrunk failure, written as a scenario file."""

    property_id: str
    title: str
    citation: str
    mode: str
    seed: int
    trace: list[str]
    scenario: str
    size: dict
    detail: str = ""
    file: str | None = None
    replay: str = ""


@dataclass
class FuzzReport:
    """The result of one fuzz run. ``to_dict(timings=False)`` is the comparable part:
    the same seed gives the same dictionary."""

    mode: str
    seed: int
    requested: int
    examples: int = 0
    invalid: int = 0
    shrink_calls: int = 0
    properties: dict[str, PropertyCoverage] = field(default_factory=dict)
    counterexample: Counterexample | None = None
    excused_examples: int = 0
    bounds: dict = field(default_factory=dict)
    seconds: float = 0.0
    cpu_seconds: float = 0.0
    stop_reason: str = ""
    # the failure being shrunk (the last failing example of the first failure's property):
    # a stop while Hypothesis shrinks it still reports it (``shrink_stopped``)
    found: Any = field(default=None, repr=False, compare=False)
    shrink_stopped: str = ""   # the stop reason that cut the shrinking of the counterexample short
    # Hypothesis's own reason when a run without a counterexample ended of itself before its
    # examples did (e.g. "nothing left to do": every configuration it can draw was run)
    fewer_because: str = ""

    def keep(self, found: "_Found") -> "_Found":
        """Note a failure as it is raised; returns it."""
        if self.found is None or self.found.property_id == found.property_id:
            self.found = found
        return found

    @property
    def ok(self) -> bool:
        return self.counterexample is None

    @property
    def complete(self) -> bool:
        """Did the run end of itself (its examples run, or a counterexample found)? Not when
        Ctrl-C, SIGTERM or ``--timeout`` stopped it (``stop_reason`` says which)."""
        return self.stop_reason in (EXAMPLES_DONE, "counterexample") and not self.shrink_stopped

    def exit_status(self) -> int:
        return 0 if self.ok else 1

    def never_exercised(self) -> list[str]:
        return [pid for pid, c in self.properties.items() if c.exercised == 0]

    def to_dict(self, timings: bool = True) -> dict:
        data = {
            "command": "fuzz",
            "mode": self.mode,
            "seed": self.seed,
            "requested_examples": self.requested,
            "examples": self.examples,
            "invalid": self.invalid,
            "shrink_calls": self.shrink_calls,
            "excused_examples": self.excused_examples,
            "bounds": dict(self.bounds),
            "stop_reason": self.stop_reason,
            "complete": self.complete,
            "shrink_stopped": self.shrink_stopped or None,
            "fewer_examples_because": self.fewer_because or None,
            "ok": self.ok,
            "properties": {pid: {"kind": c.kind, "title": c.title, "witness": c.witness, "checked": c.checked,
                                 "exercised": c.exercised, "violated": c.violated, "excused": c.excused}
                           for pid, c in self.properties.items()},
            "never_exercised": self.never_exercised(),
            "counterexamples": [] if self.counterexample is None else [_counterexample_dict(self.counterexample)],
        }
        if timings:
            data["timings"] = {"seconds": round(self.seconds, 3), "cpu_seconds": round(self.cpu_seconds, 3),
                               "seconds_per_example": round(self.seconds / max(self.examples, 1), 4)}
        return data


def _counterexample_dict(c: Counterexample) -> dict:
    return {"property": c.property_id, "title": c.title, "citation": c.citation, "mode": c.mode, "seed": c.seed,
            "trace": list(c.trace), "size": dict(c.size), "detail": c.detail, "file": c.file, "replay": c.replay,
            "scenario": c.scenario}


class _Found(AssertionError):
    """A failure inside an example; carries what the report needs."""

    def __init__(self, property_id: str, configuration: Any, trace: list[str], detail: str = "") -> None:
        super().__init__(f"{property_id} violated{': ' + detail if detail else ''}")
        self.property_id = property_id
        self.configuration = configuration
        self.trace = trace
        self.detail = detail


class _FailuresOnly(ExampleDatabase):
    """The example database, minus the pareto front of ``target()`` (which older versions
    of this module made): failures are kept and replayed first; the examples targeting
    found best are not, so a run with no stored failure is a function of its seed alone."""

    def __init__(self, path: str | Path) -> None:
        super().__init__()
        self._db = DirectoryBasedExampleDatabase(str(path))

    @staticmethod
    def _kept(key: bytes) -> bool:
        return not key.endswith(b".pareto")

    def save(self, key: bytes, value: bytes) -> None:
        if self._kept(key):
            self._db.save(key, value)

    def fetch(self, key: bytes):
        return self._db.fetch(key) if self._kept(key) else iter(())

    def delete(self, key: bytes, value: bytes) -> None:
        self._db.delete(key, value)

    def move(self, src: bytes, dest: bytes, value: bytes) -> None:
        if self._kept(dest):
            self._db.move(src, dest, value)
        else:
            self._db.delete(src, value)


class _Run:
    """Counters shared by the examples of one run. Examples are counted until the first
    failure; later calls are Hypothesis shrinking it (``shrink_calls``)."""

    def __init__(self, report: FuzzReport, props: Sequence[Any], progress: Callable[[int, int], None] | None):
        self.report = report
        self.props = list(props)
        self.by_id = {p.id: p for p in self.props}
        self.failed = False
        self.progress = progress
        for p in self.props:
            report.properties[p.id] = PropertyCoverage(p.id, p.kind.value, p.title, p.witness)

    def counting(self) -> bool:
        if self.failed:
            self.report.shrink_calls += 1
            return False
        return True

    def record(self, checked: Collection[str], reached: Collection[str], violated: Collection[str],
               excused: Collection[str], decided: Collection[str]) -> None:
        """One example's outcome (only before the first failure)."""
        rep = self.report
        rep.examples += 1
        if excused:
            rep.excused_examples += 1
        for p in self.props:
            cov = rep.properties[p.id]
            if p.id in checked:
                cov.checked += 1
            if p.kind is Kind.SOMETIMES:
                hit = p.id in reached
            elif p.kind is Kind.EVENTUALLY:
                hit = p.id in decided
            else:
                hit = (p.witness in reached) if p.witness else (p.id in checked)
            cov.exercised += int(hit)
            cov.violated += int(p.id in violated)
            cov.excused += int(p.id in excused)
        if self.progress is not None:
            self.progress(rep.examples, rep.requested)


def _quiescent(model: Any, state: Any) -> bool:
    """No internal action (a delivery) can move: where at_quiescence properties apply."""
    return not any(is_internal(model, a) and model.next_state(state, a) is not None for a in model.actions(state))


def _fail(run: _Run | None) -> None:
    """The first failure: later examples are Hypothesis shrinking it."""
    if run is not None:
        run.failed = True


def _settings(examples: int, database: ExampleDatabase | None, **extra: Any) -> settings:
    return settings(settings.get_profile("default"), max_examples=examples, deadline=None, database=database,
                    suppress_health_check=list(HealthCheck), verbosity=Verbosity.quiet, print_blob=False,
                    report_multiple_bugs=False,
                    phases=(Phase.explicit, Phase.reuse, Phase.generate, Phase.shrink), **extra)  # no targeting: module docstring


def _database(path: str | Path | None) -> ExampleDatabase | None:
    return None if path is None else _FailuresOnly(path)


def _hashable(configuration: Any) -> Any:
    """``configuration`` as a dictionary key, or None when it cannot be one. Its rendering
    is part of the key: equal values of different types (1 and True) render differently."""
    try:
        hash(configuration)
    except TypeError:
        return None
    render = getattr(configuration, "to_toml", None)
    return (configuration, render() if callable(render) else None)


# --------------------------------------------------------------------------- configs mode
def fuzz_configs(fuzz: FuzzTarget, *, examples: int = 100, seed: int = 0, property_ids: Sequence[str] | None = None,
                 max_states: int = 1000, database: str | Path | None = None,
                 progress: Callable[[int, int], None] | None = None) -> FuzzReport:
    """Draw up to ``examples`` configurations; explore each exhaustively within
    ``max_states`` distinct states; stop at the first violation, shrink it and return it
    as :attr:`FuzzReport.counterexample`."""
    from checker.explore import INTERRUPTED_BY_SIGTERM, RunStopped, StopSignals, explore, stopped_by_signal

    report = FuzzReport("configs", seed, examples, bounds={"max_states": max_states})
    run: _Run | None = None
    # Hypothesis draws the same configuration again from other choices: about a fifth of the
    # examples of a mutant hunt, and a third of the shrink candidates. Exploring one is
    # deterministic, so a configuration is explored once per phase and its outcome replayed:
    # before the first failure, what the example adds to the coverage counts (it passed);
    # while the failure is shrunk (each search stopping at the first violation's level),
    # the property found violated and its trace, or None
    counted: dict[Any, tuple] = {}
    shrink_outcomes: dict[Any, tuple[str, list[str]] | None] = {}

    def one(configuration: Any) -> None:
        StopSignals.poll()   # a signal whose RunStopped was discarded (StopSignals.poll)
        key = _hashable(configuration)
        if key is not None and key in counted and not run.failed:
            if run.counting():   # an example like any other
                run.record(*counted[key])
            outcome = None
        elif key is not None and key in shrink_outcomes and run.failed:
            run.counting()   # a shrink call like any other
            outcome = shrink_outcomes[key]
        else:
            outcome = explored(configuration, key)
        if outcome is not None:   # one place for every violation: Hypothesis tells failures by where they are raised
            raise report.keep(_Found(outcome[0], configuration, list(outcome[1])))

    def explored(configuration: Any, key: Any) -> tuple[str, list[str]] | None:
        """Explore ``configuration``: the first violated property and its trace, or None
        (remembered under ``key``, unless that is None)."""
        nonlocal run
        try:
            model = fuzz.build(configuration)
        except InvalidConfiguration:
            if run is None or run.counting():
                report.invalid += 1
            reject()
        except Exception as err:
            _fail(run)
            raise report.keep(_Found(CRASH, configuration, [], f"{type(err).__name__}: {err}")) from err
        if run is None:
            run = _Run(report, select_properties(model, property_ids), progress)
        counting = run.counting()
        excused = set(fuzz.excused(configuration))
        try:
            # while a failure is shrunk (not counting), each candidate's search stops after
            # the BFS level where a first violation appears: a shortest trace is still there
            result = explore(model, max_states=max_states, property_ids=property_ids, workers=1,
                             stop_on_violation=not counting)
        except Exception as err:  # the model raised: a failure of its own kind
            _fail(run)
            raise report.keep(_Found(CRASH, configuration, [], f"{type(err).__name__}: {err}")) from err
        StopSignals.poll()   # Ctrl-C or SIGTERM under `mqcheck fuzz`: stop fuzzing
        reason = result.statistics.stop_reason
        if stopped_by_signal(reason):   # (called without StopSignals: the run's own reason)
            raise RunStopped(INTERRUPTED_BY_SIGTERM if reason.startswith(INTERRUPTED_BY_SIGTERM) else "interrupted")
        verdicts = result.verdicts
        reached = {pid for pid, v in verdicts.items() if v.status is Status.WITNESSED}
        violated = {pid for pid, v in verdicts.items() if v.status is Status.VIOLATED}
        decided = {pid for pid, v in verdicts.items()
                   if v.kind == Kind.EVENTUALLY.value and v.status is Status.HOLDS and result.max_depth > 0}
        checked = {pid for pid, v in verdicts.items() if v.status is not Status.NOT_CHECKED}
        if counting:
            run.record(checked, reached, violated, violated & excused, decided)
        outcome = None
        for p in run.props:  # the first violated property, in the model's order
            if p.id in violated and p.id not in excused:
                _fail(run)
                trace = verdicts[p.id].trace
                outcome = p.id, trace.actions() if trace else []
                break
        if key is not None and not counting:
            shrink_outcomes[key] = outcome
        elif key is not None and outcome is None:
            counted[key] = (checked, reached, violated, violated & excused, decided)
        return outcome

    # @seed before @settings: @seed alone switches the example database off
    test = hypothesis_seed(seed)(given(fuzz.configurations)(one))
    test = _settings(examples, _database(database))(test)
    test.hypothesis.inner_test._hypothesis_internal_add_digest = b"mqcheck-fuzz-configs:" + fuzz.key
    return _execute(test, report, run_ref=lambda: run, fuzz=fuzz)


# --------------------------------------------------------------------------- walks mode
def fuzz_walks(fuzz: FuzzTarget, *, examples: int = 100, seed: int = 0, property_ids: Sequence[str] | None = None,
               max_steps: int = 200, database: str | Path | None = None,
               progress: Callable[[int, int], None] | None = None) -> FuzzReport:
    """Up to ``examples`` random walks of at most ``max_steps`` actions, each in a freshly
    drawn configuration; ``always`` properties checked after every action,
    ``at_quiescence`` ones in states with no enabled internal action. ``eventually``
    properties are not decided by walks (their coverage stays 0)."""
    from checker.explore import StopSignals

    report = FuzzReport("walks", seed, examples, bounds={"max_actions": max_steps})   # actions per walk (--bound)
    holder: dict[str, _Run] = {}
    kind_of = fuzz.kind_of or (lambda model, action: type(action).__name__)

    class Walk(RuleBasedStateMachine):
        """One walk: a configuration, then enabled actions of the model."""

        def __init__(self) -> None:
            super().__init__()
            self.model = None
            self.configuration = None
            self.state = None
            self.trace: list[str] = []
            self.reached: set[str] = set()
            self.checked: set[str] = set()
            self.checked_state = None
            self.disabled: dict[str, bool] = {}
            self.p_disabled = 0
            self.excused: set[str] = set()
            self.excused_violations: set[str] = set()
            self.failing = False  # this walk fails: counted as an example, then the run stops counting

        @initialize(configuration=fuzz.configurations, threshold=st.integers(0, 254))
        def configure(self, configuration: Any, threshold: int) -> None:
            StopSignals.poll()   # a signal whose RunStopped was discarded (StopSignals.poll)
            try:
                model = fuzz.build(configuration)
            except InvalidConfiguration:
                run = holder.get("run")
                if run is None or run.counting():
                    report.invalid += 1
                reject()
            except Exception as err:
                self.failing = True
                raise report.keep(_Found(CRASH, configuration, [], f"{type(err).__name__}: {err}")) from err
            if "run" not in holder:
                holder["run"] = _Run(report, select_properties(model, property_ids), progress)
            self.model, self.configuration = model, configuration
            self.excused = set(fuzz.excused(configuration))
            self.p_disabled = threshold  # swarm: share of action kinds switched off in this walk
            try:
                self.state = model.init_states()[0]
            except Exception as err:
                self.failing = True
                raise report.keep(_Found(CRASH, configuration, [], f"{type(err).__name__}: {err}")) from err

        def _kind_enabled(self, kind: str, data: Any) -> bool:
            """Swarm testing: each action kind is switched off in this walk with probability
            ``p_disabled``/255, decided the first time the kind is met. Both draws shrink
            to "on" (0), so a shrunk walk needs no switched-off kind."""
            if kind not in self.disabled:
                self.disabled[kind] = data.draw(st.integers(0, 254), label=f"swarm {kind}") > 254 - self.p_disabled
            return not self.disabled[kind]

        @rule(data=st.data())
        def take_an_action(self, data: Any) -> None:
            StopSignals.poll()
            if self.model is None:
                return
            model, state = self.model, self.state
            try:
                enabled = list(model.actions(state))
                chosen = [a for a in enabled if self._kind_enabled(kind_of(model, a), data)] or enabled[:1]
                while chosen:
                    i = data.draw(st.integers(0, len(chosen) - 1), label="action")
                    action = chosen.pop(i)
                    after = model.next_state(state, action)
                    if after is not None:
                        self.trace.append(describe_action(model, action))
                        self.state = after
                        return
            except _Found:
                raise
            except Exception as err:
                self.failing = True
                raise report.keep(_Found(CRASH, self.configuration, self.trace,
                                         f"{type(err).__name__}: {err}")) from err

        @invariant()
        def properties_hold(self) -> None:
            if self.model is None or self.state is self.checked_state:
                return
            self.checked_state = self.state
            run = holder["run"]
            model, state = self.model, self.state
            quiescent = None
            for p in run.props:
                if p.kind is Kind.AT_QUIESCENCE:
                    if quiescent is None:
                        quiescent = _quiescent(model, state)
                    if not quiescent:
                        continue
                elif p.kind not in (Kind.ALWAYS, Kind.SOMETIMES):
                    continue
                self.checked.add(p.id)
                try:
                    ok = bool(p.predicate(model, state))
                except Exception as err:
                    self.failing = True
                    raise report.keep(_Found(CRASH, self.configuration, self.trace,
                                 f"{p.id}: {type(err).__name__}: {err}")) from err
                if p.kind is Kind.SOMETIMES:
                    if ok:
                        self.reached.add(p.id)
                elif not ok:
                    if p.id in self.excused:
                        self.excused_violations.add(p.id)
                        continue
                    self.failing = True
                    raise report.keep(_Found(p.id, self.configuration, self.trace))

        def teardown(self) -> None:
            run = holder.get("run")
            if run is None:
                return
            if self.model is not None:
                if run.counting():
                    run.record(self.checked, self.reached, self.excused_violations, self.excused_violations, ())
            if self.failing:
                run.failed = True

    Walk.__name__ = Walk.__qualname__ = "MQWalk"
    machine = hypothesis_seed(seed)(Walk)
    machine_settings = _settings(examples, _database(database), stateful_step_count=max_steps)
    # the database key: the machine's source plus this target's key
    machine._hypothesis_internal_add_digest = b"mqcheck-fuzz-walks:" + fuzz.key

    def test() -> None:
        run_state_machine_as_test(machine, settings=machine_settings)

    return _execute(test, report, run_ref=lambda: holder.get("run"), fuzz=fuzz)


# --------------------------------------------------------------------------- shared
def _statistics_into(stats: dict) -> Any:
    """A context in which Hypothesis's run statistics (``stopped-because``: why it stopped
    generating) are copied into ``stats``, through the hook its pytest plugin uses; a
    no-op context where a Hypothesis version has no such hook."""
    import contextlib

    try:
        from hypothesis.statistics import collector
    except ImportError:  # pragma: no cover - the hook moved in another Hypothesis version
        return contextlib.nullcontext()
    return collector.with_value(stats.update)


def _execute(test: Callable[[], None], report: FuzzReport, run_ref: Callable[[], _Run | None],
             fuzz: FuzzTarget) -> FuzzReport:
    from checker.explore import StopSignals

    wall, cpu = time.perf_counter(), time.process_time()
    found: _Found | None = None
    stats: dict = {}
    try:
        with _statistics_into(stats):
            test()
        report.stop_reason = EXAMPLES_DONE
        if report.examples < report.requested:
            report.fewer_because = str(stats.get("stopped-because") or "Hypothesis generated no more")
    except _Found as err:
        found = err
    except BaseExceptionGroup as group:  # Hypothesis reports distinct failures together: the first
        firsts = group.subgroup(lambda e: isinstance(e, _Found))
        if firsts is None:
            stop = _stop_behind(group)
            if stop is None:
                raise
            found = _stopped(report, stop)
        else:
            found = _first_found(firsts)
    except KeyboardInterrupt as stop:   # Ctrl-C, or SIGTERM or the timeout under checker.explore.StopSignals
        StopSignals.caught()   # (a signal raises where it lands while Hypothesis runs: mqcheck fuzz)
        found = _stopped(report, stop)
    except Exception as err:   # Hypothesis's own code, failing while a stop landed in it
        stop = _stop_behind(err)
        if stop is None:
            raise
        found = _stopped(report, stop)
    finally:
        # the fuzzing is over however it ended: a stop from here on (the timeout's timer
        # expiring, a signal) is only recorded, and cannot throw away the report being built
        StopSignals.caught()
        report.seconds = time.perf_counter() - wall
        report.cpu_seconds = time.process_time() - cpu
    if found is not None:
        run = run_ref()
        prop = run.by_id.get(found.property_id) if run else None
        report.stop_reason = "counterexample"
        report.counterexample = Counterexample(
            property_id=found.property_id,
            title=prop.title if prop else "the model raised an exception",
            citation=prop.citation if prop else "",
            mode=report.mode, seed=report.seed, trace=list(found.trace),
            scenario="", size=fuzz.size_of(found.configuration) if fuzz.size_of else {},
            detail=found.detail)
        report.counterexample.scenario = fuzz.render(found.configuration, ())
        report._configuration = found.configuration  # for write_counterexample
    return report


def _stopped(report: FuzzReport, stop: KeyboardInterrupt) -> _Found | None:
    """A stop (Ctrl-C, SIGTERM, the timeout) ended the fuzzing: its reason, and the failure
    being shrunk, if any, which is still a counterexample (its shrinking cut short)."""
    from checker.explore import RunStopped

    report.stop_reason = stop.reason if isinstance(stop, RunStopped) else "interrupted"
    if report.found is not None:
        report.shrink_stopped = report.stop_reason
    return report.found


def _stop_behind(err: BaseException) -> KeyboardInterrupt | None:
    """The stop behind an exception Hypothesis raised while handling it (a RunStopped that
    landed in Hypothesis's set-up ended in ``assert state._runner is not None``), if any."""
    seen = set()
    while err is not None and id(err) not in seen:
        if isinstance(err, KeyboardInterrupt):
            return err
        if isinstance(err, BaseExceptionGroup):
            stops = err.subgroup(lambda e: isinstance(e, KeyboardInterrupt))
            if stops is not None:
                return _first_leaf(stops)
        seen.add(id(err))
        err = err.__context__
    return None


def _first_leaf(group: BaseExceptionGroup) -> BaseException:
    first = group.exceptions[0]
    return _first_leaf(first) if isinstance(first, BaseExceptionGroup) else first


def _first_found(group: BaseExceptionGroup) -> _Found:
    for e in group.exceptions:
        return _first_found(e) if isinstance(e, BaseExceptionGroup) else e
    raise AssertionError("an empty exception group")


def write_counterexample(report: FuzzReport, fuzz: FuzzTarget, out_dir: str | Path, replay_prefix: str = "mqcheck check"
                         ) -> Path:
    """Write the report's counterexample as ``out_dir/fuzz-<property>-seed<S>.toml``
    headed by the failing property, the seed and the replay command; returns the path."""
    c = report.counterexample
    assert c is not None
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"fuzz-{c.property_id.lower()}-{c.mode}-seed{c.seed}.toml"
    replay = f"{replay_prefix} {path}" + (f" --property {c.property_id}" if c.property_id != CRASH else "")
    if report.mode == "configs" and "max_states" in report.bounds and c.property_id != CRASH:
        replay += f" --max-states {report.bounds['max_states']}"
    header = [f"mqcheck fuzz counterexample: {c.property_id} ({c.title})",
              f"citation: {c.citation}" if c.citation else "citation: -",
              f"found by: mqcheck fuzz --mode {c.mode} --seed {c.seed} "
              + (f"(shrinking cut short: {report.shrink_stopped})" if report.shrink_stopped else "(shrunk by Hypothesis)"),
              f"replay: {replay}"]
    if c.detail:
        header.append(f"detail: {c.detail}")
    if c.trace:
        header.append("the failing walk/trace:" if c.mode == "walks" else "the shortest trace found:")
        header += [f"  {i + 1:>3}  {a}" for i, a in enumerate(c.trace)]
    text = fuzz.render(report._configuration, [h.replace("\n", " ") for h in header])
    path.write_text(text, encoding="utf-8")
    c.file, c.replay, c.scenario = str(path), replay, text
    return path


def replay_trace(model: Any, trace: Sequence[str], property_ids: Sequence[str] | None = None) -> str | None:
    """Follow ``trace`` (action descriptions, as a counterexample lists them) in ``model``
    from its first initial state, checking its ``always`` properties after every action and
    its ``at_quiescence`` ones in quiescent states, as a walk does; return the id of the
    first property violated on the way, or None. Raises ``ValueError`` when an action of the
    trace is not enabled (the model took another path)."""
    props = [p for p in select_properties(model, property_ids) if p.kind in (Kind.ALWAYS, Kind.AT_QUIESCENCE)]
    state = model.init_states()[0]

    def violated(state: Any) -> str | None:
        quiescent = None
        for p in props:
            if p.kind is Kind.AT_QUIESCENCE:
                if quiescent is None:
                    quiescent = _quiescent(model, state)
                if not quiescent:
                    continue
            if not p.predicate(model, state):
                return p.id
        return None

    found = violated(state)
    for i, described in enumerate(trace):
        if found is not None:
            return found
        for action in model.actions(state):
            if describe_action(model, action) == described:
                after = model.next_state(state, action)
                if after is not None:
                    state = after
                    break
        else:
            raise ValueError(f"step {i + 1} of the trace ({described}) is not enabled here")
        found = violated(state)
    return found
