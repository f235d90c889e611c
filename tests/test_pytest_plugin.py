"""The pytest plugin (issue 16) in temporary projects through ``pytester``: collection,
passing and failing items with their output, marks from the ``[pytest]`` table, ``-k``,
``-x``, ``--lf``, bad input, an unrelated test suite left alone, and once the real
``pytest11`` entry point of an installed mqcheck in a throwaway venv."""

from __future__ import annotations

import glob
import importlib.metadata
import os
import subprocess
import sys

import pytest

# pytester's in-process runs drop the modules a run imported; keep mqcheck's (and the
# extension modules they load, which cannot be loaded twice in one process) imported.
import checker.cli
import checker.explore
import checker.pytest_plugin  # noqa: F401
import properties.lint  # noqa: F401
import spec.network  # noqa: F401

pytest_plugins = ["pytester"]

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _installed() -> bool:
    return any(ep.value == "checker.pytest_plugin" for ep in importlib.metadata.entry_points(group="pytest11"))


# Load the plugin by module name unless this interpreter already has mqcheck installed
# with the entry point (then pytest loads it by itself, and -p would register it twice).
PLUGIN = () if _installed() else ("-p", "checker.pytest_plugin")


def example(name: str) -> str:
    with open(os.path.join(ROOT, "examples", name), encoding="utf-8") as f:
        return f.read()


BROKEN = example("fr-mesh-broken.toml")
GOOD = example("fr-mesh-complete.toml")
QUICK = '[pytest]\nproperties = ["RP-FR-CONVERGENCE", "RP-NO-STALE-APPLY", "EXPECT"]\n'
GOOD_LINES = len(GOOD.splitlines())  # GOOD ends with a newline: an appended table starts on the next line


def run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest(*PLUGIN, "-p", "no:cacheprovider", *args)


# ======================================================================================
# Collection
# ======================================================================================

def test_a_scenario_file_gives_a_run_item_and_one_item_per_property(pytester):
    pytester.makefile(".mqcheck.toml", good=GOOD)
    result = run(pytester, "--collect-only", "-q")
    ids = [ln for ln in result.outlines if "::" in ln]
    assert ids[0] == "good.mqcheck.toml::run"
    assert "good.mqcheck.toml::RP-FR-CONVERGENCE" in ids and "good.mqcheck.toml::PS-SCOPE" in ids
    assert "good.mqcheck.toml::EXPECT" in ids
    assert not any(i.endswith("-WITNESS") or i.endswith("::RP-FRS-SETTLED") for i in ids)  # sometimes: no items
    assert len(ids) == len(set(ids)) > 30


def test_files_not_matching_the_patterns_are_not_collected(pytester):
    pytester.makefile(".toml", plain=GOOD)  # a scenario, but not *.mqcheck.toml
    pytester.makefile(".toml", pyproject="[tool.other]\nx = 1\n")
    result = run(pytester, "--collect-only", "-q")
    assert result.ret == pytest.ExitCode.NO_TESTS_COLLECTED


def test_mqcheck_paths_collect_any_toml_with_scenario_tables(pytester):
    ops = pytester.mkdir("ops")
    (ops / "mesh.toml").write_text(GOOD + QUICK)
    (ops / "notes.toml").write_text('title = "not a scenario"\n')
    (pytester.path / "outside.toml").write_text(GOOD)
    pytester.makeini("[pytest]\nmqcheck_paths = ops\n")
    result = run(pytester, "--collect-only", "-q")
    ids = [ln for ln in result.outlines if "::" in ln]
    assert ids == ["ops/mesh.toml::run", "ops/mesh.toml::RP-FR-CONVERGENCE", "ops/mesh.toml::RP-NO-STALE-APPLY",
                   "ops/mesh.toml::EXPECT"]  # [pytest] properties' order


def test_mqcheck_patterns_are_configurable(pytester):
    pytester.makefile(".toml", net_scenario=GOOD + QUICK)
    pytester.makeini("[pytest]\nmqcheck_patterns = *_scenario.toml\n")
    result = run(pytester, "--collect-only", "-q")
    assert "net_scenario.toml::run" in result.outlines


# ======================================================================================
# Passing and failing
# ======================================================================================

def test_good_passes_and_broken_fails_with_its_counterexample(pytester):
    pytester.makefile(".mqcheck.toml", good=GOOD + QUICK, broken=BROKEN + QUICK)
    result = run(pytester)
    result.assert_outcomes(passed=7, failed=1)
    out = result.stdout.str()
    assert "FAILED broken.mqcheck.toml::RP-FR-CONVERGENCE" in out
    assert "RP-FR-CONVERGENCE: violated (trace of 6 steps)" in out
    assert "Counterexample (shortest" in out
    step_line = BROKEN.splitlines().index("[[steps]]") + 2  # the line of steps[0]'s mqsc key
    assert f"steps[0] (broken.mqcheck.toml:{step_line}) MQSC at PR1" in out
    assert "repositories.FR2.DEMO.qmgrs" in out and "000 §Considerations for Full Repositories" in out
    assert "Traceback" not in out and "pytest_plugin.py" not in out and "checker/" not in out


def test_pytest_html_reports_link_each_item_to_its_mqcheck_report(pytester):
    # issue 16 with #15: under pytest-html (--html) every mqcheck item links the mqcheck
    # report of its file's run or exploration, written beside pytest-html's report
    import html as html_text
    import json
    import re

    pytester.makefile(".mqcheck.toml", good=GOOD + QUICK, broken=BROKEN + QUICK)
    result = run(pytester, "--html=out/pytest.html")
    result.assert_outcomes(passed=7, failed=1)
    page = (pytester.path / "out" / "pytest.html").read_text(encoding="utf-8")
    blob = json.loads(html_text.unescape(re.search(r'data-jsonblob="([^"]*)"', page).group(1)))
    links = {test_id: [e["content"] for e in runs[0].get("extras", []) if e["name"] == "mqcheck report"]
             for test_id, runs in blob["tests"].items()}
    assert len(links) == 8 and all(len(v) == 1 for v in links.values())
    failed = links["broken.mqcheck.toml::RP-FR-CONVERGENCE"][0]
    assert failed.startswith("mqcheck-reports/broken.mqcheck-") and failed.endswith("-check.html")
    assert links["broken.mqcheck.toml::run"][0].endswith("-run.html")
    report = (pytester.path / "out" / failed).read_text(encoding="utf-8")
    assert "Counterexample: RP-FR-CONVERGENCE" in report and "<svg" in report
    assert len(list((pytester.path / "out" / "mqcheck-reports").iterdir())) == 4   # one per file and kind


def test_without_html_no_report_is_written(pytester):
    pytester.makefile(".mqcheck.toml", broken=BROKEN + QUICK)
    run(pytester).assert_outcomes(passed=3, failed=1)
    assert not list(pytester.path.rglob("mqcheck-reports"))


def test_a_failed_expectation_shows_the_block_its_line_and_the_difference(pytester):
    wrong = GOOD.replace('queues = { CQ1 = ["PR1"] }', 'queues = { CQ1 = ["FR2"] }', 1)
    assert wrong != GOOD
    pytester.makefile(".mqcheck.toml", wrong=wrong + '[pytest]\ncheck = false\n')
    result = run(pytester)
    result.assert_outcomes(failed=1)
    out = result.stdout.str()
    line = wrong.splitlines().index("[[expect]]") + 1
    assert "1 of 1 [[expect]] blocks failed" in out
    assert f"wrong.mqcheck.toml:{line}: [[expect]] #0:" in out
    assert "FR3" in out and "Traceback" not in out


def test_a_violated_expect_property_says_what_differed(pytester):
    # FILE::EXPECT explains its counterexample's last state as FILE::run does
    wrong = GOOD.replace('queues = { CQ1 = ["PR1"] }', 'queues = { CQ1 = ["FR2"] }', 1)
    pytester.makefile(".mqcheck.toml", wrong=wrong + '[pytest]\nproperties = ["EXPECT"]\n')
    result = run(pytester, "-k", "EXPECT")
    result.assert_outcomes(failed=1, deselected=1)  # wrong.mqcheck.toml::run fails too, deselected
    out = result.stdout.str()
    assert "At its last state:" in out
    assert "mqcheck check: wrong.mqcheck.toml EXPECT" in out  # the headline names the file
    assert "- [[expect]] #0: FR3/DEMO queues: expected {'CQ1': ['FR2']}, got " in out


def test_k_selects_items_and_x_stops_at_the_first_failure(pytester):
    pytester.makefile(".mqcheck.toml", broken=BROKEN + QUICK, good=GOOD + QUICK)
    result = run(pytester, "-k", "CONVERGENCE")
    result.assert_outcomes(passed=1, failed=1, deselected=6)
    result = run(pytester, "-x")
    result.assert_outcomes(passed=1, failed=1)  # broken.mqcheck.toml::run passes, ::RP-FR-CONVERGENCE stops it


def test_last_failed_reruns_only_the_failed_property(pytester):
    pytester.makefile(".mqcheck.toml", broken=BROKEN + QUICK)
    pytester.runpytest(*PLUGIN).assert_outcomes(passed=3, failed=1)
    result = pytester.runpytest(*PLUGIN, "--lf", "-v")
    result.assert_outcomes(failed=1)
    assert "broken.mqcheck.toml::RP-FR-CONVERGENCE FAILED" in result.stdout.str()


def test_an_incomplete_exploration_fails_unless_accepted(pytester):
    bounded = BROKEN + '[pytest]\nproperties = ["RP-NO-STALE-APPLY"]\nmax_states = 5\n'
    pytester.makefile(".mqcheck.toml", bounded=bounded)
    result = run(pytester, "-k", "RP-NO-STALE-APPLY")
    result.assert_outcomes(failed=1, deselected=1)
    out = result.stdout.str()
    assert "holds up to bound (incomplete: 5 states" in out and "an incomplete run does not pass" in out
    pytester.makefile(".mqcheck.toml", bounded=bounded + "accept_incomplete = true\n")
    run(pytester, "-k", "RP-NO-STALE-APPLY").assert_outcomes(passed=1, deselected=1)


def test_an_incomplete_failure_says_what_to_change_as_check_does(pytester):
    # session 33: the failure said only "raise the bounds"; `mqcheck check` names the
    # scenario's own levers (here its 100 puts) in a "To finish" list: the same list here
    from checker.advice import HEADING

    text = example("wl-clwluseq-any.toml") + '[pytest]\nproperties = ["WL-LOCAL-USEQ"]\nmax_states = 5\n'
    pytester.makefile(".mqcheck.toml", useq=text)
    result = run(pytester, "-k", "WL-LOCAL-USEQ")
    result.assert_outcomes(failed=1, deselected=1)
    out = result.stdout.str()
    cli = subprocess.run([sys.executable, "-m", "checker.cli", "check", str(pytester.path / "useq.mqcheck.toml"),
                          "--max-states", "5", "--property", "WL-LOCAL-USEQ", "--quiet"],
                         capture_output=True, text=True, cwd=ROOT, check=False)
    advice = cli.stdout[cli.stdout.index(HEADING):].splitlines()[:-1]   # without the footer
    assert len(advice) >= 3 and "fewer messages: the steps put or publish 100 messages" in advice[2]
    shown = [line.removeprefix("E   ").removeprefix("E ").rstrip() for line in result.outlines]
    start = shown.index(HEADING)
    assert shown[start:start + len(advice)] == [a.rstrip() for a in advice]


def test_a_witness_not_reached_within_the_bound_is_said_so(pytester):
    # accepted incomplete evidence: the witness was not reached *within the bound*, which
    # is not "never reached"
    bounded = GOOD + '[pytest]\nproperties = ["RP-FR-CONVERGENCE"]\nmax_states = 2\naccept_incomplete = true\n'
    pytester.makefile(".mqcheck.toml", bounded=bounded)
    result = run(pytester, "-k", "RP-FR-CONVERGENCE")
    result.assert_outcomes(failed=1, deselected=1)
    out = result.stdout.str()
    assert "holds vacuously: its witness RP-FRS-SETTLED was not reached within the bound (max_states" in out
    assert "was never reached" not in out


def test_properties_named_in_the_file_must_not_be_vacuous_and_witnesses_must_be_reached(pytester):
    pytester.makefile(".mqcheck.toml", named=BROKEN + '[pytest]\nproperties = ["PS-SCOPE", "RP-FR-MESH-NEEDED"]\n')
    result = run(pytester, "-k", "not run")
    result.assert_outcomes(passed=1, failed=1, deselected=1)
    out = result.stdout.str()
    assert "FAILED named.mqcheck.toml::PS-SCOPE" in out and "holds vacuously" in out


# ======================================================================================
# The [pytest] table: marks, xfail, skip
# ======================================================================================

def test_marks_xfail_and_skip_from_the_file(pytester):
    pytester.makeini("[pytest]\nmarkers =\n    nightly: slow scenario runs\n")
    pytester.makefile(".mqcheck.toml", broken=BROKEN + QUICK + 'marks = ["nightly"]\n'
                      'xfail = { RP-FR-CONVERGENCE = "FR3 is not meshed yet (CHG-123)" }\n'
                      'skip = { RP-NO-STALE-APPLY = "covered elsewhere" }\n')
    result = run(pytester, "-rxs")
    result.assert_outcomes(passed=2, xfailed=1, skipped=1)
    out = result.stdout.str()
    assert "FR3 is not meshed yet (CHG-123)" in out and "covered elsewhere" in out
    run(pytester, "-m", "not nightly").assert_outcomes(deselected=4)
    run(pytester, "-m", "mqcheck and nightly", "-k", "run").assert_outcomes(passed=1, deselected=3)


def test_skip_and_xfail_reasons_reach_the_terminal_escaped(pytester):
    # pytest prints a reason as given: an escape sequence in the file drove the terminal
    pytester.makefile(".mqcheck.toml", evil=GOOD + QUICK + 'skip = { EXPECT = "lab \\u001b[31mdown" }\n'
                      'xfail = { run = "CHG \\u009b1m \\u202e1" }\n')
    result = run(pytester, "-rsxX")
    result.assert_outcomes(passed=2, skipped=1, xpassed=1)
    out = result.stdout.str()
    assert "\x1b" not in out and "\x9b" not in out and "\u202e" not in out
    assert "lab \\x1b[31mdown" in out and "CHG \\x9b1m \\u202e1" in out


def test_marks_of_the_file_need_no_registration(pytester):
    # the file declares its marks: no PytestUnknownMarkWarning, accepted by --strict-markers
    pytester.makefile(".mqcheck.toml", good=GOOD + QUICK + 'marks = ["weekly"]\n')
    result = run(pytester, "--strict-markers", "-W", "error::pytest.PytestUnknownMarkWarning", "-m", "weekly",
                 "-k", "run")
    result.assert_outcomes(passed=1, deselected=3)
    assert "PytestUnknownMarkWarning" not in result.stdout.str()


def test_a_file_wide_skip(pytester):
    pytester.makefile(".mqcheck.toml", skipped=GOOD + QUICK + 'skip = "the lab is down"\n')
    run(pytester).assert_outcomes(skipped=4)


# ======================================================================================
# Bad input: one line with file:line:column, never a traceback
# ======================================================================================

@pytest.mark.parametrize("text,expected", [
    (GOOD.replace("CHLTYPE(CLUSRCVR)", "CHLTYPE(CLUSRCVER)", 1), "bad.mqcheck.toml:12:32: qmgrs.FR1.mqsc:"),
    # the key's own line and column, not the [pytest] header's
    (GOOD + '[pytest]\nmarks = ["a"]\nproperties = ["PS-SCOPE", "RP-FR-CONVERGANCE"]\n',
     f"bad.mqcheck.toml:{GOOD_LINES + 3}:27: pytest.properties: "
     "unknown property RP-FR-CONVERGANCE (did you mean RP-FR-CONVERGENCE?)"),  # not ninety ids first
    (GOOD + '[pytest]\n\nxfail = { run = "y", NOPE = "x" }\n',
     f"bad.mqcheck.toml:{GOOD_LINES + 3}:22: pytest.xfail: NOPE is not an item of this file"),
    (GOOD + '[pytest]\nbackend = "spark"\n  timeout = 5\n',
     f"bad.mqcheck.toml:{GOOD_LINES + 3}:3: pytest.timeout only applies with the local backend"),
    (GOOD + '[pytest]\nbackend = "dask"\n', "pytest.backend: expected one of local, spark"),
    # a file that tests nothing used to collect no item and pass unseen (a user trial)
    ('name = "x"\n[qmgrs.QMA]\n[pytest]\ncheck = false\n',
     "bad.mqcheck.toml:4:1: this scenario file gives pytest nothing to test"),
    ('name = "x"\n[qmgrs.QMA]\n[pytest]\nproperties = []\n',
     "bad.mqcheck.toml:4:1: this scenario file gives pytest nothing to test"),
], ids=["mqsc", "property", "xfail-item", "timeout", "backend", "no-item-check-false", "no-item-no-properties"])
def test_bad_scenario_files_are_one_line_collection_errors(pytester, text, expected):
    pytester.makefile(".mqcheck.toml", bad=text)
    result = run(pytester)
    assert result.ret == pytest.ExitCode.INTERRUPTED
    out = result.stdout.str()
    assert "ERROR collecting bad.mqcheck.toml" in out
    assert "mqcheck: error: bad.mqcheck.toml:" in out and expected in out
    assert "Traceback" not in out and "spec/" not in out


# ======================================================================================
# Inert elsewhere (tavern #825): an unrelated suite collects and runs exactly as without
# ======================================================================================

def test_an_unrelated_test_suite_is_unaffected(pytester):
    pytester.makepyfile(test_plain="""
        import tomllib

        def test_toml_still_parses():
            assert tomllib.loads('a = 1') == {'a': 1}

        def test_other():
            assert True
    """)
    pytester.makefile(".toml", settings="[check]\nmax_states = 10\n[[expect]]\nx = 1\n")
    pytester.makefile(".toml", pyproject="[tool.pytest.ini_options]\nmarkers = ['slow: slow']\n")
    without_plugin = ("-p", "no:mqcheck") if _installed() else ()
    run(pytester, "-q", "--strict-markers").assert_outcomes(passed=2)
    pytester.runpytest("-p", "no:cacheprovider", "-q", "--strict-markers", *without_plugin).assert_outcomes(passed=2)
    collected = run(pytester, "--collect-only", "-q").outlines
    baseline = pytester.runpytest("-p", "no:cacheprovider", "--collect-only", "-q", *without_plugin).outlines
    ids = [ln for ln in collected if "::" in ln]
    assert ids == [ln for ln in baseline if "::" in ln] == ["test_plain.py::test_toml_still_parses",
                                                            "test_plain.py::test_other"]


def test_this_repository_has_no_file_the_default_patterns_collect():
    """mqcheck's own suite (testpaths tests and spec) and its examples keep their
    collection once the entry point is installed: no *.mqcheck.toml anywhere, and
    mqcheck_paths is empty by default."""
    import fnmatch

    from checker.pytest_plugin import DEFAULT_PATTERNS

    tomls = glob.glob(os.path.join(ROOT, "**", "*.toml"), recursive=True)
    assert any("tests/data" in t for t in tomls) and any("examples" in t for t in tomls)
    assert [t for t in tomls if any(fnmatch.fnmatch(os.path.basename(t), p) for p in DEFAULT_PATTERNS)] == []


# ======================================================================================
# The real entry point, installed in a throwaway venv (once in the suite)
# ======================================================================================

def test_the_installed_entry_point_collects_three_scenarios_without_a_conftest(tmp_path):
    """Done-when of issue 16: in a fresh directory with three scenario files and no
    conftest, `pytest` collects them, passes the good ones and fails the broken one with its
    counterexample — through the pytest11 entry point of `pip install -e` of this tree."""
    import shutil

    source = tmp_path / "mqcheck-src"  # a copy: pip writes build metadata into the tree it installs
    for part in ("checker", "spec", "properties", "reports"):
        if os.path.isdir(os.path.join(ROOT, part)):
            shutil.copytree(os.path.join(ROOT, part), source / part,
                            ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    for part in ("pyproject.toml", "README.md"):
        shutil.copy(os.path.join(ROOT, part), source / part)
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], check=True)
    python = venv / "bin" / "python"
    pip = subprocess.run([str(python), "-m", "pip", "install", "-q", "--no-deps", "-e", str(source)],
                         capture_output=True, text=True)
    assert pip.returncode == 0, pip.stderr[-2000:]
    project = tmp_path / "mq-configs"
    project.mkdir()
    (project / "mesh-broken.mqcheck.toml").write_text(BROKEN + QUICK)
    (project / "mesh-complete.mqcheck.toml").write_text(GOOD + QUICK)
    (project / "sports-qma.mqcheck.toml").write_text(example("sports-qma.toml") + '[pytest]\ncheck = false\n')
    (project / "sports-qma.mqsc").write_text(example("sports-qma.mqsc"))
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTEST_ADDOPTS", "PYTEST_PLUGINS")}
    done = subprocess.run([str(python), "-m", "pytest", "-p", "no:cacheprovider", "-rA"], cwd=project,
                          capture_output=True, text=True, env=env, timeout=600)
    out = done.stdout
    assert done.returncode == 1, out[-3000:] + done.stderr[-2000:]
    assert "1 failed, 8 passed" in out, out[-3000:]
    assert "PASSED sports-qma.mqcheck.toml::run" in out
    assert "PASSED mesh-complete.mqcheck.toml::RP-FR-CONVERGENCE" in out
    assert "FAILED mesh-broken.mqcheck.toml::RP-FR-CONVERGENCE" in out
    assert "Counterexample (shortest" in out and "steps[0] (mesh-broken.mqcheck.toml:" in out
    assert "Traceback" not in out
    assert not (project / "conftest.py").exists()
    where = subprocess.run([str(python), "-c", "import checker; print(checker.__file__)"], cwd=project,
                           capture_output=True, text=True, env=env)
    assert where.stdout.startswith(str(source)), where.stdout  # the venv's mqcheck, not another install


def test_the_spark_backend_from_the_file_gives_the_same_counterexample(pytester):
    """[pytest] backend = "spark": the same verdict; this small model stays on the driver
    (DEFAULT_DRIVER_THRESHOLD), so no JVM starts (tests/test_spark.py covers Spark jobs)."""
    pytester.makefile(".mqcheck.toml", onspark=BROKEN + '[pytest]\nbackend = "spark"\nproperties = ["RP-FR-CONVERGENCE"]\n')
    result = run(pytester, "-k", "CONVERGENCE")
    result.assert_outcomes(failed=1, deselected=1)
    out = result.stdout.str()
    assert "explored: 68 distinct states, depth 10, complete, spark backend" in out
    assert "RP-FR-CONVERGENCE: violated (trace of 6 steps)" in out


# ======================================================================================
# [[prove]] claims (mqcheck prove)
# ======================================================================================

def test_prove_claims_are_items_proved_ones_pass_and_a_refuted_one_fails_with_its_scenario(pytester):
    # examples/prove-sports.toml: claim 0 is proved, claim 1 refuted (Sports/Football/# names
    # the WILDCARD(BLOCK) node itself), claim 2 has a witness
    text = example("prove-sports.toml") + '[pytest]\ncheck = false\n'
    pytester.makefile(".mqcheck.toml", sports=text)
    ids = [ln for ln in run(pytester, "--collect-only", "-q").outlines if "::" in ln]
    assert ids == ["sports.mqcheck.toml::run", "sports.mqcheck.toml::prove[0]", "sports.mqcheck.toml::prove[1]",
                   "sports.mqcheck.toml::prove[2]"]
    result = run(pytester, "-k", "prove")
    result.assert_outcomes(passed=2, failed=1)
    out = result.stdout.str()
    assert "FAILED sports.mqcheck.toml::prove[1]" in out
    line = text.splitlines().index("[[prove]]", text.splitlines().index("[[prove]]") + 1) + 1
    assert f"sports.mqcheck.toml:{line}: [[prove]] #1" in out and "counterexample" in out
    assert "replay:   mqcheck run " in out
    assert "Traceback" not in out and "pytest_plugin.py" not in out
