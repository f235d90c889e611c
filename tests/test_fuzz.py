"""checker.fuzz: generic over the Model protocol (a toy model here, no spec), shrinking,
swarm and coverage accounting, determinism; and `mqcheck fuzz` on the real spec at a small
budget (the CI run of issue #14)."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
import time
import dataclasses
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import strategies as st

from checker.cli import main
from checker.fuzz import CRASH, FuzzTarget, fuzz_configs, fuzz_walks, write_counterexample
from checker.model import Property

ROOT = Path(__file__).resolve().parent.parent
ENV = dict(os.environ, PYTHONPATH=str(ROOT))


# ---------------------------------------------------------------------------------------
# A toy model: a counter that may go up by 1 or 2, or reset; the configuration is its limit
# ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Up:
    by: int


@dataclass(frozen=True)
class Reset:
    pass


class Counter:
    """Counts up to ``limit``; ``always`` value < ``bad`` (violated when ``bad <= limit``)."""

    def __init__(self, limit: int, bad: int = 7) -> None:
        self.limit, self.bad = limit, bad

    def init_states(self):
        return (0,)

    def actions(self, state):
        return (Up(1), Up(2), Reset())

    def is_internal(self, action):
        return isinstance(action, Up)  # the environment resets; counting up always ends

    def next_state(self, state, action):
        if isinstance(action, Reset):
            return 0 if state else None
        return state + action.by if state + action.by <= self.limit else None

    def properties(self):
        return (Property.always("BELOW", "the counter stays below bad", lambda m, s: s < m.bad, witness="HALF"),
                Property.sometimes("HALF", "the counter passes 3", lambda m, s: s > 3),
                Property.eventually("ENDS", "counting ends"))

    def encode(self, state):
        return state.to_bytes(4, "big")


def counter_target(bad: int = 7, crash_at: int | None = None) -> FuzzTarget:
    def build(limit):
        if crash_at is not None and limit >= crash_at:
            raise RuntimeError("boom")
        return Counter(limit, bad)

    return FuzzTarget(configurations=st.integers(0, 40), build=build,
                      render=lambda limit, header: "".join(f"# {h}\n" for h in header) + f"limit = {limit}\n",
                      size_of=lambda limit: {"limit": limit}, key=b"counter")


def test_configs_mode_shrinks_to_the_smallest_failing_configuration(tmp_path):
    report = fuzz_configs(counter_target(), examples=200, seed=1, max_states=100)
    c = report.counterexample
    assert c is not None and c.property_id == "BELOW"
    assert c.size == {"limit": 7}  # Hypothesis shrank 0..40 to the least limit that breaks it
    assert len(c.trace) == 4  # a shortest path to 7 with steps of 1 or 2 (BFS)
    path = write_counterexample(report, counter_target(), tmp_path)
    text = path.read_text()
    assert text.endswith("limit = 7\n") and "--property BELOW" in text and "seed 1" in text
    assert report.exit_status() == 1


def test_a_configuration_drawn_again_is_not_explored_again():
    """Hypothesis reaches one configuration from different choices (here: limits are tens
    of a drawn number), both while generating and while shrinking; its outcome is
    remembered, so each configuration is explored at most once before the first failure
    (yet counted as an example each time) and at most once while shrinking, and the
    counterexample is the one shrinking gives anyway."""
    built: list[int] = []
    base = counter_target()

    def build(limit):
        built.append(limit)
        return base.build(limit)

    target = FuzzTarget(configurations=st.integers(0, 400).map(lambda n: n // 10), build=build,
                        render=base.render, size_of=base.size_of, key=b"counter-tens")
    report = fuzz_configs(target, examples=200, seed=1, max_states=100)
    c = report.counterexample
    assert c is not None and c.property_id == "BELOW" and c.size == {"limit": 7} and len(c.trace) == 4
    first = next(i for i, limit in enumerate(built) if limit >= 7)
    shrinking = built[first + 1:]
    assert len(shrinking) == len(set(shrinking)), shrinking
    assert report.shrink_calls > len(shrinking), "no configuration was drawn twice while shrinking"
    # no failure (bad is out of reach): 41 limits drawn over and over, each explored once
    built.clear()
    base = counter_target(bad=1000)
    report = fuzz_configs(dataclasses.replace(target, build=lambda limit: built.append(limit) or base.build(limit)),
                          examples=200, seed=1, max_states=100)
    assert report.counterexample is None
    assert len(built) == len(set(built)) < report.examples, (len(built), report.examples)
    assert report.properties["BELOW"].checked == report.examples   # each drawing counted
    assert report.properties["HALF"].exercised > len([limit for limit in built if limit > 3])


def test_walks_mode_finds_a_deep_violation_and_counts_coverage():
    report = fuzz_walks(counter_target(bad=30), examples=100, seed=2, max_steps=60)
    c = report.counterexample
    assert c is not None and c.property_id == "BELOW"
    assert c.size == {"limit": 30}
    assert len(c.trace) >= 15  # 30 needs at least 15 increments: deeper than a shallow BFS bound
    assert report.properties["HALF"].exercised > 0


def test_no_failure_reports_coverage_per_property():
    report = fuzz_configs(counter_target(bad=100), examples=30, seed=3, max_states=100)
    assert report.ok and report.examples == 30
    cov = report.properties
    assert cov["BELOW"].checked == 30 and cov["BELOW"].exercised == cov["HALF"].exercised > 0
    assert 0 < cov["ENDS"].exercised <= 30  # decided on every run with an action
    assert report.never_exercised() == []


def test_a_model_that_raises_is_a_counterexample():
    report = fuzz_configs(counter_target(bad=100, crash_at=12), examples=100, seed=4, max_states=50)
    c = report.counterexample
    assert c is not None and c.property_id == CRASH and "RuntimeError: boom" in c.detail
    assert c.size == {"limit": 12}


@pytest.mark.parametrize("mode", ["configs", "walks"])
def test_no_targeting_phase_runs(mode, monkeypatch):
    """Hypothesis's targeting phase is not run (checker/fuzz.py's docstring; docs/decisions.md,
    "Session 29: no targeting phase in `mqcheck fuzz`"): on the network's configurations its
    hill climb ran for minutes without running an example. Hypothesis climbs only scores
    passed to ``target()`` and only in ``Phase.target``; this counts its optimiser's runs."""
    from hypothesis.internal.conjecture import optimiser

    climbs = []
    real = optimiser.Optimiser.run
    monkeypatch.setattr(optimiser.Optimiser, "run", lambda self: climbs.append(1) or real(self))
    if mode == "configs":
        report = fuzz_configs(counter_target(bad=100), examples=60, seed=3, max_states=100)
    else:
        report = fuzz_walks(counter_target(bad=100), examples=60, seed=3, max_steps=20)
    assert report.ok and report.examples >= 40   # configs: the 41 limits 0..40 are all there are
    assert climbs == []


def test_a_run_hypothesis_ends_early_says_how_many_of_those_asked_for_ran_and_why():
    """The counter's 41 limits are all Hypothesis can draw: asked for 60, it stops at 41 of
    itself. The run is complete, and the report says 41 of 60 and Hypothesis's reason."""
    from checker.cli import _render_fuzz

    report = fuzz_configs(counter_target(bad=100), examples=60, seed=3, max_states=100)
    assert report.complete and report.examples == 41 and report.fewer_because == "nothing left to do"
    assert report.to_dict(timings=False)["fewer_examples_because"] == "nothing left to do"
    text = _render_fuzz(report, timings=False)
    assert "Result: no counterexample in 41 examples, 41 of the 60 asked for (Hypothesis stopped: nothing left " \
           "to do)" in text
    full = fuzz_configs(counter_target(bad=100), examples=30, seed=3, max_states=100)
    assert full.examples == 30 and full.fewer_because == "" and full.to_dict()["fewer_examples_because"] is None
    assert "Result: no counterexample in 30 examples\n" in _render_fuzz(full, timings=False) + "\n"


def test_same_seed_same_report():
    a = fuzz_walks(counter_target(bad=100), examples=25, seed=5, max_steps=20).to_dict(timings=False)
    b = fuzz_walks(counter_target(bad=100), examples=25, seed=5, max_steps=20).to_dict(timings=False)
    assert a == b and a["command"] == "fuzz" and "timings" not in a


def test_failures_are_kept_in_the_example_database(tmp_path):
    db = tmp_path / "db"
    first = fuzz_configs(counter_target(), examples=200, seed=6, max_states=100, database=db)
    assert first.counterexample is not None and any(db.rglob("*"))
    again = fuzz_configs(counter_target(), examples=200, seed=99, max_states=100, database=db)
    assert again.counterexample is not None and again.examples <= 1  # replayed first, before any new example


def test_fuzz_module_imports_no_spec():
    tree = ast.parse((ROOT / "checker" / "fuzz.py").read_text())
    names = [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
    names += [n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
    assert not [n for n in names if n.split(".")[0] in ("spec", "properties", "reports")]


# ---------------------------------------------------------------------------------------
# mqcheck fuzz on the real spec, at a small budget
# ---------------------------------------------------------------------------------------
def run_cli(capsys, *argv):
    code = main(["fuzz", *argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_cli_configs_small_budget_no_failure_and_same_output_twice(capsys, tmp_path):
    args = ("--examples", "12", "--seed", "1", "--no-database", "--no-timings", "--out", str(tmp_path))
    code, first, err = run_cli(capsys, *args)
    assert code == 0, first
    assert "Result: no counterexample in 12 examples" in first and err == ""  # no progress: not a terminal
    for pid in ("RP-FR-CONVERGENCE", "PS-SCOPE", "WL-RANK", "BD-ON-GROUP", "PS-TERMINATION"):
        assert pid in first  # every property has a coverage row
    code, second, _ = run_cli(capsys, *args)
    assert second == first


def test_cli_json_walks(capsys, tmp_path):
    # PS- properties only: WL-LOCAL-USEQ has a known real-spec counterexample (tests/regressions)
    code, out, _ = run_cli(capsys, "PS-SCOPE", "PS-PROXY-AGGREGATION", "--mode", "walks", "--examples", "8",
                           "--seed", "2", "--bound", "40", "--no-database", "--json", "--out", str(tmp_path))
    data = json.loads(out)
    assert code == 0 and data["command"] == "fuzz" and data["mode"] == "walks"
    assert data["examples"] == 8 and data["counterexamples"] == [] and data["ok"] is True
    # --bound is the actions per walk, not --max-steps (the scenario steps): it was reported as max_steps
    assert data["bounds"] == {"max_actions": 40, "max_qmgrs": 3}
    assert set(data["timings"]) == {"seconds", "cpu_seconds", "seconds_per_example"}
    row = data["properties"]["PS-SCOPE"]
    assert set(row) == {"kind", "title", "witness", "checked", "exercised", "violated", "excused"}
    assert row["checked"] == 8


@pytest.mark.parametrize("argv,expected", [
    (("--examples", "0"), "must be at least 1"),
    (("--mode", "deep"), "invalid choice"),
    # no upper limit used to hang in the first example (10**9) or take minutes (100)
    (("--max-qmgrs", "33"), "argument --max-qmgrs: must be at most 32, got 33"),
    (("--max-qmgrs", str(10**9)), "must be at most 32, got 1000000000"),
])
def test_cli_bad_options_exit_2(capsys, argv, expected):
    with pytest.raises(SystemExit) as exc:
        main(["fuzz", *argv])
    assert exc.value.code == 2 and expected in capsys.readouterr().err


# ---------------------------------------------------------------------------------------
# --timeout (session 29): the run stops, incomplete, with the report of what it ran
# ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("value,expected", [
    ("0", "must be at least 0.001, got 0"),
    ("-5", "must be at least 0.001, got -5"),
    ("soon", "expected a number, got 'soon'"),
    ("nan", "expected a finite number, got 'nan'"),
    ("inf", "expected a finite number, got 'inf'"),
])
def test_cli_bad_timeout_exits_2_with_one_line(capsys, value, expected):
    with pytest.raises(SystemExit) as exc:
        main(["fuzz", "--timeout", value])
    err = capsys.readouterr().err
    assert exc.value.code == 2
    assert err.splitlines()[0] == f"mqcheck fuzz: error: argument --timeout: {expected}"
    assert "Traceback" not in err


def _fuzz_in_a_session(tmp_path, *argv):
    """`mqcheck fuzz ARGV` in its own process group; returns (exit status, stdout, stderr,
    seconds); asserts that no process of that group outlived it."""
    start = time.monotonic()
    proc = subprocess.Popen([sys.executable, "-m", "checker.cli", "fuzz", *argv, "--no-database", "--quiet",
                             "--out", str(tmp_path)], cwd=ROOT, env=ENV, start_new_session=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, 9)
            proc.wait()
    took = time.monotonic() - start
    if hasattr(os, "killpg"):
        with pytest.raises(ProcessLookupError):   # the group is empty: nothing outlived the command
            os.killpg(proc.pid, 0)
    return proc.returncode, out, err, took


def test_cli_timeout_stops_a_long_run_incomplete_with_its_report(tmp_path):
    # 100,000 examples take hours: the timeout ends the run, which says so (never a pass)
    code, out, err, took = _fuzz_in_a_session(tmp_path, "--examples", "100000", "--seed", "1", "--timeout", "2")
    assert code == 3, (out, err[-2000:])
    assert "Traceback" not in err
    result = [line for line in out.splitlines() if line.startswith("Result:")]
    assert len(result) == 1 and result[0].startswith("Result: incomplete (timeout (2 s)): no counterexample in the ")
    assert result[0].endswith(" of 100000 examples run")
    assert "(timeout (2 s))" in out.splitlines()[1]   # the Examples line's stop reason
    assert "Coverage:" in out                         # the report of what it ran
    assert took < 90                                  # generous: the point is that it ends


def test_cli_timeout_json_marks_the_run_incomplete_walks(tmp_path):
    code, out, err, _ = _fuzz_in_a_session(tmp_path, "PS-SCOPE", "--mode", "walks", "--examples", "100000",
                                           "--timeout", "1.5", "--json", "--no-timings")
    assert code == 3, err[-2000:]
    data = json.loads(out)
    assert data["stop_reason"] == "timeout (1.5 s)"
    assert data["complete"] is False and data["shrink_stopped"] is None
    assert 0 <= data["examples"] < 100000 and data["counterexamples"] == []


@pytest.mark.parametrize("timeout", ["0.001", "0.01", "0.05"])
def test_cli_a_timeout_before_or_in_hypothesis_set_up_is_still_a_clean_report(tmp_path, timeout):
    # the stop landed before the first example (the report was lost: "mqcheck: interrupted"),
    # or in Hypothesis's set-up, which turned it into an AssertionError (a traceback, exit 1),
    # or in its garbage-collector callback ("Exception ignored in ..." on stderr)
    code, out, err, _ = _fuzz_in_a_session(tmp_path, "--examples", "100000", "--timeout", timeout)
    assert (code, err) == (3, "")
    assert f"Result: incomplete (timeout ({timeout} s)): no counterexample in the " in out


def test_a_stop_that_hypothesis_turned_into_its_own_error_is_still_a_stop():
    from checker.explore import RunStopped
    from checker.fuzz import FuzzReport, _execute

    def set_up_interrupted():
        try:
            raise RunStopped("timeout (1 s)")
        except BaseException:
            assert False, "as hypothesis.core asserts state._runner is not None"

    report = _execute(set_up_interrupted, FuzzReport("configs", 0, 10), run_ref=lambda: None,
                      fuzz=counter_target())
    assert report.stop_reason == "timeout (1 s)" and not report.complete and report.counterexample is None

    def broken():
        raise ValueError("not a stop")

    with pytest.raises(ValueError, match="not a stop"):
        _execute(broken, FuzzReport("configs", 0, 10), run_ref=lambda: None, fuzz=counter_target())


def test_a_run_that_ends_of_itself_is_complete(capsys, tmp_path):
    code, out, _ = run_cli(capsys, "PS-SCOPE", "--examples", "2", "--seed", "1", "--timeout", "600",
                           "--no-database", "--json", "--no-timings", "--out", str(tmp_path))
    data = json.loads(out)
    assert code == 0 and data["stop_reason"] == "examples done" and data["complete"] is True


def test_a_stop_while_shrinking_still_reports_the_counterexample(tmp_path):
    """A timeout (or Ctrl-C) that lands while Hypothesis shrinks a failure: the failure is
    still reported (the last failing example tried), never "no counterexample"."""
    from checker.explore import RunStopped

    failing = []

    def build(limit):
        if failing:                    # the first call after the first failure: Hypothesis shrinks
            raise RunStopped("timeout (9 s)")
        if limit >= 7:
            failing.append(limit)
        return Counter(limit)

    fuzz = FuzzTarget(configurations=st.integers(0, 40), build=build,
                      render=lambda limit, header: "".join(f"# {h}\n" for h in header) + f"limit = {limit}\n",
                      size_of=lambda limit: {"limit": limit}, key=b"counter-stopped")
    report = fuzz_configs(fuzz, examples=200, seed=1, max_states=100)
    c = report.counterexample
    assert c is not None and c.property_id == "BELOW" and c.size == {"limit": failing[0]}
    assert report.shrink_stopped == "timeout (9 s)" and not report.complete
    assert report.to_dict()["shrink_stopped"] == "timeout (9 s)"
    path = write_counterexample(report, fuzz, tmp_path)
    assert "(shrinking cut short: timeout (9 s))" in path.read_text(encoding="utf-8")


def test_a_timeout_after_the_fuzzing_ended_cannot_throw_its_report_away():
    """The run ended of itself just before the deadline: the timer's stop, landing while
    the command writes the report, used to be able to raise there; it is only recorded."""
    from checker.explore import StopSignals, sigalrm_free

    assert sigalrm_free(), "SIGALRM or the real-time timer is in use (tests/conftest.py gives them back after each test)"
    with StopSignals(raise_where_it_lands=True, timeout=0.5):
        report = fuzz_configs(counter_target(bad=99), examples=5, seed=1, max_states=20)
        time.sleep(1.0)   # the deadline passes here, after the fuzzing
    assert report.stop_reason == "examples done" and report.complete


def test_cli_unknown_property_exits_2(capsys):
    code, out, err = run_cli(capsys, "PS-SCOOP", "--examples", "1", "--no-database")
    assert code == 2 and "unknown property PS-SCOOP" in err and "Traceback" not in err


@pytest.mark.parametrize("argv", [("PS-SCOPE", "--exclude", "PS-SCOPE"),
                                  ("PS-SCOPE", "PS-PROXY-AGGREGATION", "--exclude", "PS-SCOPE",
                                   "--exclude", "PS-PROXY-AGGREGATION")])
def test_cli_excluding_every_property_given_is_an_error_not_the_whole_catalogue(capsys, tmp_path, argv):
    # the empty selection was passed on as "no selection": all 89 properties were checked
    code, out, err = run_cli(capsys, *argv, "--examples", "1", "--no-database", "--out", str(tmp_path))
    assert (code, out) == (2, "")
    assert err == ("mqcheck: error: <command line>: --exclude leaves no property to check "
                   "(exclude fewer, or name the properties to check)\n")


@pytest.mark.parametrize("database, message", [
    # Hypothesis ignores a database it cannot write: the failures found were silently not kept
    ("FILE", "--database {FILE} is a file, not a directory (the example database is a directory of failures kept)"),
    ("", "--database: expected a directory name"),
])
def test_cli_a_database_that_cannot_be_a_directory_is_refused(capsys, tmp_path, database, message):
    file = tmp_path / "a-file"
    file.write_text("x")
    code, out, err = run_cli(capsys, "--examples", "1", "--out", str(tmp_path), "--database",
                             database.replace("FILE", str(file)))
    assert (code, out) == (2, "")
    assert err == f"mqcheck: error: <command line>: {message.replace('{FILE}', str(file))}\n"


def test_cli_database_and_no_database_conflict(capsys, tmp_path):
    code, _, err = run_cli(capsys, "--examples", "1", "--out", str(tmp_path), "--no-database",
                           "--database", str(tmp_path / "db"))
    assert code == 2 and err == "mqcheck: error: <command line>: give --database DIR or --no-database, not both\n"


def test_a_reset_in_error_excuses_refresh_restores_as_it_excuses_pr_convergence():
    # Session 32 (seed 9214, tests/regressions/real-reset-running-fr-refresh.toml): a running
    # full repository removed by RESET CLUSTER FORCEREMOVE "in error" (000 §Refreshing
    # repository information) leaves the full repositories' view wrong until it refreshes;
    # a refreshed partial repository compared with that view is excused, as RP-PR-CONVERGENCE is.
    from types import SimpleNamespace

    from checker.cli import _fuzz_excused

    excused = _fuzz_excused(SimpleNamespace(misconfigured=("reset_in_error",), steps=()))
    assert {"RP-REFRESH-RESTORES", "RP-PR-CONVERGENCE"} <= excused
    assert "RP-REFRESH-RESTORES" not in _fuzz_excused(SimpleNamespace(misconfigured=("deleted_in_cluster",), steps=()))


# Session 33: properties a whole-catalogue run left vacuous, or nearly so, that the
# "coverage" focus (spec/strategies_coverage.py) is for (docs/decisions.md, "Session 33:
# the fuzz generator exercises the re-drive, retained and termination properties")
COVERED = ("BD-NOT-FIXED-REDRIVE", "BD-REDRIVEN", "PS-TERMINATION", "PS-RETAINED-NEW-ONLY", "PS-RETAINED-REMOTE")


def test_a_small_coverage_focused_fuzz_run_exercises_each_of_them():
    """A real fixed-seed fuzz run (Hypothesis draws every example) exercises each property
    non-vacuously: BD-NOT-FIXED-REDRIVE's witness reached in examples where it is judged
    (never excused: the recipe binds NOT_FIXED only), PS-RETAINED-NEW-ONLY's witness
    (PS-RETAINED-REMOTE) reached, PS-TERMINATION decided in a configuration where
    publications go round (a hierarchy ring, or republishing applications)."""
    from checker.cli import fuzz_target
    from checker.model import Kind, Status
    from spec.strategies_coverage import pubsub_loop

    import checker.explore as explore_module

    decided_with_loop = []
    real_explore, real_build = explore_module.explore, None
    target = fuzz_target("configs", 3, foci=("coverage",))
    last = {}

    def building(configuration):
        last["c"] = configuration
        return real_build(configuration)

    def observed(model, **kw):
        result = real_explore(model, **kw)
        v = result.verdicts.get("PS-TERMINATION")
        if v is not None and v.status is Status.HOLDS and pubsub_loop(last["c"]):
            decided_with_loop.append(last["c"])
        return result

    real_build = target.build
    target = dataclasses.replace(target, build=building)
    explore_module.explore = observed
    try:
        report = fuzz_configs(target, examples=40, seed=33, property_ids=list(COVERED) + ["PS-PUB-FORWARDED"])
    finally:
        explore_module.explore = real_explore
    assert report.ok and report.examples >= 40, report.never_exercised()
    for pid in COVERED:
        assert report.properties[pid].exercised >= 1, pid
    redrive = report.properties["BD-NOT-FIXED-REDRIVE"]
    assert redrive.kind == Kind.ALWAYS.value and redrive.excused == 0 and redrive.violated == 0
    assert decided_with_loop
    again = fuzz_configs(fuzz_target("configs", 3, foci=("coverage",)), examples=40, seed=33,
                         property_ids=list(COVERED) + ["PS-PUB-FORWARDED"])
    assert {p: c.exercised for p, c in again.properties.items()} == {p: c.exercised for p, c in report.properties.items()}


def test_a_refresh_cluster_beside_a_cluster_topic_excuses_proxy_convergence():
    # Session 33 (fuzz seed 0, tests/regressions/real-refresh-pubsub-cluster-proxies.toml):
    # REFRESH CLUSTER discards the proxy subscriptions registered to the refreshing queue
    # manager until the members resynchronise (002 §REFRESH CLUSTER considerations)
    from types import SimpleNamespace

    from checker.cli import _fuzz_excused

    refresh = ("mqsc", (("qmgr", "QM1"), ("commands", "REFRESH CLUSTER(C1)")))
    topic = ("QM2", ("DEFINE TOPIC(T1) TOPICSTR('a') CLUSTER(C1)",))
    assert "PS-PROXY-CONVERGENCE" in _fuzz_excused(SimpleNamespace(misconfigured=(), steps=(refresh,),
                                                                   qmgrs=(topic, ("QM1", ()))))
    defined_later = ("mqsc", (("qmgr", "QM2"), ("commands", "DEFINE TOPIC(TX) TOPICSTR('a') CLUSTER(C1) REPLACE")))
    assert "PS-PROXY-CONVERGENCE" in _fuzz_excused(SimpleNamespace(misconfigured=(), steps=(refresh, defined_later),
                                                                   qmgrs=(("QM1", ()),)))
    # no cluster topic, or no REFRESH CLUSTER (REFRESH QMGR TYPE(PROXYSUB) resynchronises): not excused
    local = ("QM2", ("DEFINE TOPIC(T1) TOPICSTR('a')",))
    assert "PS-PROXY-CONVERGENCE" not in _fuzz_excused(SimpleNamespace(misconfigured=(), steps=(refresh,),
                                                                       qmgrs=(local,)))
    proxysub = ("mqsc", (("qmgr", "QM1"), ("commands", "REFRESH QMGR TYPE(PROXYSUB)")))
    assert "PS-PROXY-CONVERGENCE" not in _fuzz_excused(SimpleNamespace(misconfigured=(), steps=(proxysub,),
                                                                       qmgrs=(topic,)))
