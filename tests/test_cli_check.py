"""`mqcheck check` as a user runs it: exit statuses (DESIGN §2.3), honest verdict lines,
readable traces, JSON, and bad arguments."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def check(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "checker.cli", "check", *argv, "--quiet"],
                          capture_output=True, text=True, cwd=ROOT, check=False)


def test_broken_mesh_exits_1_with_a_readable_shortest_trace():
    proc = check("examples/fr-mesh-broken.toml")
    assert proc.returncode == 1
    out = proc.stdout
    assert "RP-FR-CONVERGENCE" in out and "violated (trace of 6 steps)" in out
    trace = out[out.index("Counterexample for RP-FR-CONVERGENCE"):]
    assert "steps[0] MQSC at PR1" in trace and "ChannelDeliver(PR1->FR1)" in trace
    assert 'in_flight.PR1->FR1: ["JOIN[DEMO] QMGR:PR1#1"]' in trace


def test_faults_do_not_lengthen_the_shortest_trace():
    # faults are the environment's actions: a settled state is judged while a fault could
    # still be injected, so a fault never lengthens the shortest lost update. Fault-free it
    # takes 6 steps (session 29: PR1's second subscription and its answer settle too); with
    # one fault, stopping PR1 settles the cluster two deliveries sooner (messages for a
    # stopped queue manager wait), with FR3 still missing PR1: the only fault is that one
    proc = check("examples/fr-mesh-broken.toml", "--faults", "1", "--property", "RP-FR-CONVERGENCE")
    assert proc.returncode == 1
    assert "violated (trace of 4 steps)" in proc.stdout
    trace = proc.stdout[proc.stdout.index("Counterexample for RP-FR-CONVERGENCE"):]
    assert "ChannelFail" not in trace and trace.count("QmgrStop") == 1 and "4  QmgrStop(PR1)" in trace


def test_complete_mesh_exits_0_and_says_complete():
    proc = check("examples/fr-mesh-complete.toml")
    assert proc.returncode == 0, proc.stdout
    assert "holds (complete: " in proc.stdout
    assert "INCOMPLETE" not in proc.stdout


def test_a_bound_gives_incomplete_and_exit_3_never_holds():
    proc = check("examples/fr-mesh-complete.toml", "--max-states", "5", "--property", "RP-FR-CONVERGENCE")
    assert proc.returncode == 3
    assert "holds up to bound (incomplete: " in proc.stdout
    assert "holds (complete" not in proc.stdout
    assert "INCOMPLETE" in proc.stdout


def test_json_has_statistics_and_one_verdict_per_property():
    proc = check("examples/fr-mesh-broken.toml", "--json", "--property", "RP-FR-CONVERGENCE")
    data = json.loads(proc.stdout)
    assert proc.returncode == 1
    assert data["scenario"].startswith("Three full repositories")
    assert {"distinct_states", "generated_states", "max_depth", "complete"} <= set(data["statistics"])
    assert data["verdicts"]["RP-FR-CONVERGENCE"]["status"] == "violated"
    assert len(data["verdicts"]["RP-FR-CONVERGENCE"]["trace"]["steps"]) == 7


@pytest.mark.parametrize(
    "argv,message",
    [
        (["examples/fr-mesh-broken.toml", "--max-states", "0"], "must be at least 1"),
        (["examples/fr-mesh-broken.toml", "--max-depth", "-1"], "must be at least 0"),
        # not a quiet "no bound": NaN compares false with everything, inf is no limit
        (["examples/fr-mesh-broken.toml", "--timeout", "nan"], "expected a finite number, got 'nan'"),
        (["examples/fr-mesh-broken.toml", "--timeout", "inf"], "expected a finite number, got 'inf'"),
        (["examples/fr-mesh-broken.toml", "--memory-limit-mb", "NaN"], "expected a finite number, got 'NaN'"),
        (["examples/fr-mesh-broken.toml", "--memory-limit-mb", "inf"], "expected a finite number, got 'inf'"),
        (["examples/fr-mesh-broken.toml", "--property", "RP-FR-CONVERGENSE"], "did you mean RP-FR-CONVERGENCE?"),
        (["/nonexistent.toml"], "cannot read the scenario file"),
    ],
)
def test_bad_arguments_exit_2_without_traceback(argv, message):
    proc = check(*argv)
    assert proc.returncode == 2
    assert message in proc.stderr
    assert "Traceback" not in proc.stderr


def test_check_output_escapes_control_characters_the_user_wrote(tmp_path):
    # a scenario name and a topic string with ESC sequences (object names may not hold them):
    # nothing the user wrote may drive the terminal from the verdict table or a trace
    scenario = tmp_path / "evil.toml"
    scenario.write_text(
        'name = "evil \\u001b[2J name"\n'
        '[qmgrs.QM1]\n'
        'mqsc = "DEFINE TOPIC(T1) TOPICSTR(\'Q\\u001b[31mX\')"\n'
        '[[steps]]\n'
        'mqsc = { qmgr = "QM1", commands = "DEFINE TOPIC(T1) TOPICSTR(\'Q\\u001b[31mX\')" }\n'
        '[[expect]]\n'
        'no_errors = true\n')
    proc = check(str(scenario))
    assert proc.returncode == 1, proc.stderr  # the step's DEFINE of an existing object is an error (AMQ8150)
    assert "\x1b" not in proc.stdout + proc.stderr
    assert "evil \\x1b[2J name" in proc.stdout and "Q\\x1b[31mX" in proc.stdout


def test_counts_have_thousands_separators_in_the_text_not_in_json():
    """`Explored: 1,100 distinct states (6,230 generated)` and `incomplete: 1,100 states`,
    as the same output writes `2,136 states/s`; --json keeps plain numbers."""
    argv = ("examples/fr-mesh-complete.toml", "--explore-initial", "--max-states", "1100", "--workers", "1",
            "--property", "RP-FR-CONVERGENCE")
    proc = check(*argv)
    assert proc.returncode == 3, proc.stderr
    explored = next(line for line in proc.stdout.splitlines() if line.startswith("Explored: "))
    assert explored.startswith("Explored: 1,100 distinct states (")
    generated = explored.split("(", 1)[1].split(" generated")[0]
    assert "," in generated and int(generated.replace(",", "")) > 1100
    assert "holds up to bound (incomplete: 1,100 states, depth" in proc.stdout
    data = json.loads(check(*argv, "--json").stdout)
    assert data["statistics"]["distinct_states"] == 1100
    assert data["verdicts"]["RP-FR-CONVERGENCE"]["distinct_states"] == 1100


def test_a_misspelt_property_gets_did_you_mean_not_the_catalogue():
    proc = check("examples/fr-mesh-broken.toml", "--property", "RP-FR-CONVERGENC")
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr == ("mqcheck: error: <command line>: unknown property RP-FR-CONVERGENC "
                           "(did you mean RP-FR-CONVERGENCE?)\n")
    unknown = check("examples/fr-mesh-broken.toml", "--property", "NO-SUCH-THING")
    assert unknown.returncode == 2 and "unknown property NO-SUCH-THING; known: " in unknown.stderr
    assert "RP-FR-CONVERGENCE" in unknown.stderr and unknown.stderr.count("\n") == 1


@pytest.mark.parametrize("argv, message", [
    (["check", "examples/sports-qma.toml", "--property", ""],
     "--property '': an empty property id; expected a property id such as RP-FR-CONVERGENCE (an unset shell "
     "variable?); leave --property out to check every property"),
    (["check", "examples/sports-qma.toml", "--property", "RP-FR-CONVERGENCE", "--property", " "],
     "--property ' ': an empty property id; expected a property id such as RP-FR-CONVERGENCE"),
    (["fuzz", "--examples", "1", "--property", ""], "property '': an empty property id; expected a property id"),
    (["fuzz", "--examples", "1", "--exclude", ""], "--exclude '': an empty property id; expected a property id"),
])
def test_an_empty_property_id_is_called_empty_not_unknown(capsys, argv, message):
    # session 33: "unknown property ; known: <ninety ids>" hid that the id was empty
    from checker.cli import main

    assert main([argv[0], *[str(ROOT / a) if a.endswith(".toml") else a for a in argv[1:]]]) == 2
    err = capsys.readouterr().err
    assert err.startswith("mqcheck: error: <command line>: " + message) and "known:" not in err, err


def test_fuzz_says_did_you_mean_the_same_way(capsys):
    from checker.cli import main

    assert main(["fuzz", "RP-FR-CONVERGENC", "--no-database"]) == 2
    err = capsys.readouterr().err
    assert err == "mqcheck: error: <command line>: unknown property RP-FR-CONVERGENC (did you mean RP-FR-CONVERGENCE?)\n"


@pytest.mark.parametrize("example, pid, expected", [
    ("sports-qma.toml", "UC-BALANCED", "property UC-BALANCED does not apply here: it is checked only on uniform "
                                       "clusters (a queue manager with uniform_cluster, or a ccdt)\n"),
    ("uc-amqsphac-demo.toml", "UC-SCALE-OUT", "it is checked only on uniform clusters (a queue manager with "
                                              "uniform_cluster, or a ccdt) and with a join_uniform step\n"),
    ("", "EXPECT", "property EXPECT does not apply here: it is checked only on a scenario with [[expect]] blocks\n"),
])
def test_a_catalogue_property_that_does_not_apply_is_not_called_unknown(capsys, tmp_path, example, pid, expected):
    """`--property UC-BALANCED` on a scenario without a uniform cluster said "unknown
    property UC-BALANCED (did you mean WL-BALANCED?)" (a user trial)."""
    from checker.cli import main

    path = ROOT / "examples" / example if example else tmp_path / "s.toml"
    if not example:
        path.write_text("[qmgrs.QMA]\n")
    assert main(["check", str(path), "--property", pid]) == 2
    err = capsys.readouterr().err
    assert err.endswith(expected) and "unknown" not in err and err.count("\n") == 1


def test_fuzz_takes_property_as_check_spells_it(capsys):
    from checker.cli import main

    assert main(["fuzz", "--property", "RP-FR-CONVERGENC", "--no-database"]) == 2
    assert "unknown property RP-FR-CONVERGENC (did you mean RP-FR-CONVERGENCE?)" in capsys.readouterr().err
    argv = ["--examples", "2", "--no-database", "--no-timings", "--json"]
    assert main(["fuzz", "--property", "RP-FR-CONVERGENCE", *argv]) == 0
    by_option = capsys.readouterr().out
    assert main(["fuzz", "RP-FR-CONVERGENCE", *argv]) == 0
    assert capsys.readouterr().out == by_option


def test_a_violated_expectation_says_what_was_expected_and_got(tmp_path):
    # `check` explains EXPECT's counterexample as `run` explains a failed [[expect]]
    for name in ("sports-qma.toml", "sports-qma.mqsc"):
        text = (ROOT / "examples" / name).read_text(encoding="utf-8")
        (tmp_path / name).write_text(text.replace("SARSENAL = []", 'SARSENAL = ["Sports/Football/Arsenal"]'),
                                     encoding="utf-8")
    proc = check(str(tmp_path / "sports-qma.toml"))
    assert proc.returncode == 1, proc.stderr
    why = proc.stdout[proc.stdout.index("Counterexample for EXPECT"):]
    assert why.rstrip().endswith("  At its last state:\n"
                                 "    - [[expect]] #0: QMA SARSENAL: expected ['Sports/Football/Arsenal'], got []")


def test_a_long_verdict_wraps_in_its_column():
    # a backend's note (e.g. "not checked on this backend (...)") must not widen every row
    from types import SimpleNamespace

    from checker.cli import VERDICT_WIDTH, _render_check
    from checker.model import Result, Statistics, Status, Verdict, format_verdict

    note = "not checked on this backend: " + "an internal action leads back into an explored level " * 5
    verdicts = {"PS-TERMINATION": Verdict("PS-TERMINATION", "eventually", Status.NOT_CHECKED, note=note),
                "RP-OK": Verdict("RP-OK", "always", Status.HOLDS, distinct_states=33)}
    result = Result("m", "spark", Statistics(distinct_states=33, complete=True), verdicts)
    scenario = SimpleNamespace(name="s", file="s.toml")
    model = SimpleNamespace(explore_initial=False, properties=lambda: ())
    text = _render_check(scenario, model, result, format_verdict)
    table = text[text.index("property"):].split("\n\n")[0].splitlines()
    assert max(map(len, table)) <= len("PS-TERMINATION") + len("eventually") + VERDICT_WIDTH + 6
    assert " ".join(table).count("explored level") == 5  # wrapped, not cut


@pytest.mark.parametrize("argv, given", [
    (["--backend", "spark", "--no-por"], "--no-por only applies with --backend local"),
    (["--backend", "spark", "--timeout", "5", "--workers", "1"], "--timeout, --workers only apply with --backend local"),
    (["--master", "local[2]"], "--master only applies with --backend spark"),
])
def test_options_of_the_other_backend_are_errors(capsys, argv, given):
    """--no-por was accepted silently with Spark, which explores unreduced (a user trial)."""
    from checker.cli import main

    assert main(["check", str(ROOT / "examples" / "sports-qma.toml"), *argv]) == 2
    err = capsys.readouterr().err
    assert err == f"mqcheck: error: <command line>: {given}\n"


@pytest.mark.parametrize(
    "argv,message",
    [
        # every level of reset-deleted-qmgr would run on Spark: a bad master used to start a
        # JVM and end in a 30-line traceback, exit 1
        (["--master", "bogus://x", "--driver-threshold", "0"],
         "--master 'bogus://x': expected local, local[N], local[*], local[N,F], local-cluster[N,C,M], "
         "spark://HOST:PORT[,HOST:PORT...], yarn or k8s://..."),
        # every level stays on the driver: Spark never starts, and a bad master went unnoticed
        (["--master", "bogus://x"], "--master 'bogus://x': expected local, local[N]"),
        (["--master", "local[0]"], "local[N] needs at least one thread"),
        (["--master", "spark://master"], "expected spark://HOST:PORT[,HOST:PORT...]"),
        (["--conf", "spark.master=yarn-cluster"], "--conf spark.master 'yarn-cluster': expected local"),
        (["--conf", "spark.sql.shuffle.partitions"], "expected KEY=VALUE"),
    ],
)
def test_spark_options_are_checked_before_anything_is_explored(argv, message):
    proc = check("examples/reset-deleted-qmgr.toml", "--backend", "spark", *argv)
    assert (proc.returncode, proc.stdout) == (2, ""), proc.stderr[-2000:]
    [line] = proc.stderr.splitlines()   # one line, no traceback
    assert line.startswith("mqcheck: error: <command line>: ") and message in line


@pytest.mark.parametrize(
    "reason,footer",
    [
        ("max_states reached", "The exploration stopped at a bound: "),
        ("timeout (5 s)", "The exploration stopped at a bound: "),
        ("memory limit (100 MB)", "The exploration stopped at a bound: "),
        ("interrupted", "The exploration was interrupted: "),
        ("terminated (SIGTERM)", "The exploration was terminated (SIGTERM): "),
        ("interrupted during the termination check", "The exploration was interrupted during the termination check: "),
        ("stopped at first violation", "The exploration stopped at its first violation (--stop-on-violation): "),
        ("Spark failed: the JVM was killed by SIGKILL",
         "The exploration stopped early (Spark failed: the JVM was killed by SIGKILL): "),
    ],
)
def test_the_footer_says_what_stopped_the_exploration(reason, footer):
    # Ctrl-C and SIGTERM are no bound: the footer used to say "stopped at a bound" for both
    from types import SimpleNamespace

    from checker.cli import _render_check
    from checker.model import Result, Statistics, Status, Verdict, format_verdict

    verdicts = {"RP-OK": Verdict("RP-OK", "always", Status.HOLDS_UP_TO_BOUND, distinct_states=3, reason=reason)}
    result = Result("m", "local", Statistics(distinct_states=3, complete=False, stop_reason=reason), verdicts)
    text = _render_check(SimpleNamespace(name="s", file="s.toml"),
                         SimpleNamespace(explore_initial=False, properties=lambda: ()), result, format_verdict)
    assert text.splitlines()[-1] == footer + "no verdict above claims more than the states explored."


@pytest.mark.parametrize("name", ["result.json", "result.txt"])
def test_a_json_file_given_as_the_scenario_says_where_json_goes(tmp_path, name):
    # a saved --json result (or a CCDT) given to check: the hint was "see https://toml.io"
    path = tmp_path / name
    path.write_text('{"command": "run", "deliveries": {}}\n')
    proc = check(str(path))
    assert (proc.returncode, proc.stdout) == (2, "")
    # session 37: a saved result is named as one (its "command" key), not as "JSON" with two guesses
    assert proc.stderr == (f"mqcheck: error: {path}:1:1: invalid TOML: Invalid statement (this looks like a saved "
                           f"--json result: check takes a scenario file (TOML); a saved --json result goes to "
                           f"`mqcheck report {path} --out report.html`)\n")


SLOW_START = (
    "import sys, time\n"
    "from spec.network import MQNetwork\n"
    "settled = MQNetwork.init_states\n"
    "def init_states(self):  # a start state that takes long to settle (30 full repositories: 42 s)\n"
    "    time.sleep(15)\n"
    "    return settled(self)\n"
    "MQNetwork.init_states = init_states\n"
    "from checker.cli import main\n"
    "sys.exit(main(sys.argv[1:]))\n")


def test_the_timeout_also_bounds_settling_the_start_state():
    # a user trial: --timeout 10 ran 42 s, settling the start state before any bound was
    # looked at, and --json then settled it once more for the topology
    import time

    began = time.monotonic()
    proc = subprocess.run([sys.executable, "-c", SLOW_START, "check", "examples/sports-qma.toml", "--timeout", "0.5",
                           "--json", "--quiet"], capture_output=True, text=True, cwd=ROOT, check=False, timeout=120)
    spent = time.monotonic() - began
    assert proc.returncode == 3, proc.stderr
    data = json.loads(proc.stdout)
    assert data["statistics"]["stop_reason"] == "timeout (0.5 s)" and data["statistics"]["distinct_states"] == 0
    assert "topology" not in data
    assert {v["status"] for v in data["verdicts"].values()} <= {"holds up to bound", "not reached up to bound"}
    assert spent < 10


def test_families_the_scenario_never_exercises_are_one_vacuous_line_each():
    # a user trial (session 33): a plain workload example printed ~100 verdict lines, ~30 of
    # them VACUOUS for publish/subscribe and binding properties it has nothing for
    import re

    proc = check("examples/wl-clwluseq-any.toml")
    assert proc.returncode == 0, proc.stderr
    every = json.loads(check("examples/wl-clwluseq-any.toml", "--json").stdout)["verdicts"]
    table, _, grouped = proc.stdout.partition("\nProperty families this scenario never exercises: BD, PS (")
    assert grouped, proc.stdout
    rows = {line.split()[0] for line in table.splitlines()[6:] if re.match(r"[A-Z]+(-[A-Z0-9]+)*\s", line)}
    in_lines = set(re.findall(r"\b(?:BD|PS)-[A-Z0-9-]*[A-Z0-9]\b", grouped))
    # every property is shown once: a row, or an id in the family's lines
    assert rows | in_lines == set(every) and not rows & in_lines
    assert {p for p in in_lines} == {p for p, v in every.items() if p[:2] in ("BD", "PS") and
                                     (v["vacuous"] or v["status"] == "never reached")}
    assert "PS-TERMINATION" in rows           # holds with no witness to need: not vacuous, keeps its row
    assert any(v["vacuous"] for p, v in every.items() if p in rows)  # WL/RP reached witnesses: row by row
    # a vacuous verdict is still called VACUOUS, never a pass
    vacuous = sorted(p for p in in_lines if every[p]["vacuous"])
    flagged = re.findall(r"^  VACUOUS +(?:BD|PS): \d+ held only vacuously: (.*?)(?=\n  \S|\Z)", grouped, re.M | re.S)
    assert sorted(p for text in flagged for p in re.findall(r"[A-Z]{2}-[A-Z0-9-]*[A-Z0-9]", text)) == vacuous
    assert "holds" not in grouped
    # --all-verdicts: one row each, as before
    full = check("examples/wl-clwluseq-any.toml", "--all-verdicts").stdout
    assert "never exercises" not in full
    assert full.count(" — VACUOUS: witness ") == sum(v["vacuous"] for v in every.values())


def test_an_incomplete_run_groups_as_possibly_vacuous_and_json_keeps_every_property():
    proc = check("examples/wl-clwluseq-any.toml", "--max-states", "5")
    assert proc.returncode == 3
    assert "Property families this run did not exercise: BD, PS" in proc.stdout
    assert "\n  possibly VACUOUS         BD: 5 held only vacuously up to bound: BD-ON-OPEN-FIXED," in proc.stdout
    assert "\n  VACUOUS " not in proc.stdout      # up to a bound is never more than "possibly"
    data = json.loads(check("examples/wl-clwluseq-any.toml", "--max-states", "5", "--json").stdout)
    assert len(data["verdicts"]) == 92 and "BD-ON-OPEN-FIXED" in data["verdicts"]


def test_a_family_with_a_witness_reached_or_a_violation_is_not_grouped():
    from reports.unexercised import unexercised

    vac = {"kind": "always", "status": "holds", "vacuous": True}
    never = {"kind": "sometimes", "status": "never reached", "vacuous": False}
    assert unexercised({"PS-A": vac, "PS-W": never}) == {"PS": ["PS-A", "PS-W"]}
    assert unexercised({"PS-A": vac, "PS-W": never, "PS-X": dict(never, status="witnessed")}) == {}
    assert unexercised({"PS-A": vac, "PS-W": never, "PS-B": dict(vac, status="violated", vacuous=False)}) == {}
    assert unexercised({"PS-W": never}) == {}                  # nothing vacuous: nothing to group
    assert unexercised({"EXPECT": vac, "EXPECT-END": never}) == {}   # the user's claims: always a row


def test_json_of_an_incomplete_run_has_the_advice_the_text_gives():
    # session 33: `check --json` lacked the "To finish" list; a new key, only when incomplete
    from checker.advice import HEADING

    bounded = ("examples/wl-clwluseq-any.toml", "--max-states", "5")
    text = check(*bounded).stdout
    tips = text[text.index(HEADING):].splitlines()[1:-1]
    data = json.loads(check(*bounded, "--json").stdout)
    assert data["advice"] == [t.removeprefix("  - ") for t in tips] and len(tips) == 3
    complete = json.loads(check("examples/wl-clwluseq-any.toml", "--json").stdout)
    assert "advice" not in complete and set(data) - set(complete) == {"advice"}
