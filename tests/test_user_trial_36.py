"""Session 36: a user trial of the pytest plugin, the HTML reports and spark-submit
(docs/decisions.md, "Session 36: user trial of the pytest plugin, reports and spark-submit").

Each test is one roughness the trial hit, and fails without its fix.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def _example(name: str) -> str:
    return (ROOT / "examples" / name).read_text(encoding="utf-8")


def _pytest_env() -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTEST_ADDOPTS", "PYTEST_PLUGINS")}
    env["PYTHONPATH"] = str(ROOT)   # this tree's plugin, whatever mqcheck the interpreter has installed
    env["PYTHONUNBUFFERED"] = "1"   # each line as pytest writes it
    return env


def _plugin_args() -> list[str]:
    import importlib.metadata

    installed = any(ep.value == "checker.pytest_plugin" for ep in importlib.metadata.entry_points(group="pytest11"))
    return [] if installed else ["-p", "checker.pytest_plugin"]


# ---------------------------------------------------------------- a signal during the plugin's exploration

@pytest.mark.parametrize("signum, said", [(signal.SIGINT, "KeyboardInterrupt"),
                                          (signal.SIGTERM, "terminated (SIGTERM)")])
def test_a_signal_during_an_exploration_stops_the_pytest_session(tmp_path, signum, said):
    # The exploration catches Ctrl-C and SIGTERM to end with what it explored. Under pytest
    # that turned one Ctrl-C into every property item of the file failing "incomplete"
    # (advising larger bounds) and the session going on with the next file; a CI job
    # cancelled with SIGTERM ran on the same way.
    slow = _example("cluster-two-frs.toml").replace("max_states = 200000", "max_states = 2000000\nexplore_initial = true")
    (tmp_path / "a_slow.mqcheck.toml").write_text(slow + '[pytest]\nproperties = ["RP-NO-STALE-APPLY", "RP-TWO-FRS"]\n')
    (tmp_path / "b_quick.mqcheck.toml").write_text(_example("fr-mesh-complete.toml")
                                                   + '[pytest]\nproperties = ["RP-NO-STALE-APPLY"]\n')
    proc = subprocess.Popen([sys.executable, "-m", "pytest", *_plugin_args(), "-p", "no:cacheprovider", "-v",
                             "-p", "no:xdist", "-p", "no:timeout"],
                            cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            env=_pytest_env())
    lines: list[str] = []
    started = threading.Event()

    def read() -> None:
        # -v names an item before running it, and ends the line only with its outcome
        while chunk := os.read(proc.stdout.fileno(), 4096):
            lines.append(chunk.decode("utf-8", "replace"))
            if "a_slow.mqcheck.toml::RP-NO-STALE-APPLY" in "".join(lines):
                started.set()
        started.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        assert started.wait(120), "".join(lines)
        time.sleep(2.0)
        assert proc.poll() is None, "".join(lines)
        proc.send_signal(signum)
        proc.wait(timeout=60)
        reader.join(10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    out = "".join(lines)
    assert proc.returncode == pytest.ExitCode.INTERRUPTED, out[-3000:]
    assert said in out, out[-3000:]
    assert "the exploration of a_slow.mqcheck.toml was" in out, out[-3000:]
    assert "b_quick.mqcheck.toml" not in out, out[-3000:]     # the session stopped
    assert "an incomplete run does not pass" not in out, out[-3000:]
    assert " failed" not in out, out[-3000:]


# ---------------------------------------------------------------- a queue manager name with dots

from spec.errors import InputError  # noqa: E402
from spec.scenario import parse_scenario  # noqa: E402

_FR = "DEFINE CHANNEL(TO.A) CHLTYPE(CLUSRCVR) CONNAME('a(1414)') CLUSTER(C)\nALTER QMGR REPOS(C)"


def _error(text: str) -> InputError:
    with pytest.raises(InputError) as info:
        parse_scenario(text, "estate.toml")
    return info.value


def test_a_dotted_queue_manager_name_unquoted_says_to_quote_it():
    # MQ names may contain dots (QM1.PROD); TOML reads [qmgrs.QM1.PROD] as a table QM1 with a
    # subtable PROD, and the error was "qmgrs.QM1.PROD: unknown key; expected one of mqsc,
    # mqsc_file, uniform_cluster"
    err = _error(f'[qmgrs.QM1.PROD]\nmqsc = """\n{_FR}\n"""\n')
    assert "queue manager name QM1.PROD has dots" in err.one_line()
    assert '[qmgrs."QM1.PROD"]' in err.one_line()
    assert (err.line, err.column) == (1, 8)   # the name's first part
    err = _error('[qmgrs.QM1.PROD.EU]\n')
    assert '[qmgrs."QM1.PROD.EU"]' in err.one_line()


def test_a_dotted_cluster_name_in_an_expectation_says_to_quote_it():
    text = (f'[qmgrs."QM1.PROD"]\nmqsc = """\n{_FR}\n"""\n[[expect]]\nno_errors = true\n'
            '[expect.repositories."QM1.PROD".PAY.EU]\nqmgrs = ["QM1.PROD"]\n')
    err = _error(text)
    assert "cluster name PAY.EU has dots" in err.one_line()
    assert '[expect.repositories."QM1.PROD"."PAY.EU"]' in err.one_line()


def test_an_unknown_dotted_queue_manager_is_declared_quoted():
    err = _error(f'[qmgrs.QMA]\nmqsc = """\n{_FR}\n"""\n[[steps]]\npublish = {{ qmgr = "QM9.X", topic = "A" }}\n')
    assert 'declare it with a [qmgrs."QM9.X"] table' in err.one_line()


# ---------------------------------------------------------------- the line of a table below [[expect]]

def test_an_unknown_queue_manager_in_an_expectation_table_is_located_at_its_header():
    # [expect.repositories.FR9.DEMO] after [[expect]] belongs to expect[0]; the error pointed
    # at the [[expect]] line instead of the header that names FR9
    text = (f'[qmgrs.FR1]\nmqsc = """\n{_FR}\n"""\n[[expect]]\nno_errors = true\n'
            '[expect.repositories.FR1.C]\nqmgrs = ["FR1"]\n'
            '[[expect]]\nno_errors = true\n'
            '[expect.repositories.FR9.C]\nqmgrs = ["FR1"]\n')
    err = _error(text)
    assert "expect[1].repositories.FR9: unknown queue manager FR9" in err.one_line()
    assert (err.line, err.column) == (12, 22)


# ---------------------------------------------------------------- a misspelt item in [pytest] xfail / skip

def test_a_misspelt_xfail_or_skip_item_names_the_nearest(tmp_path):
    # "pytest.xfail: RP-FR-CONVERGANCE is not an item of this file; its items: <all of them>"
    # left the reader to spot the one meant, where pytest.properties says "did you mean"
    text = _example("fr-mesh-complete.toml") + ('[pytest]\nproperties = ["RP-FR-CONVERGENCE"]\n'
                                                'xfail = { RP-FR-CONVERGANCE = "CHG-123" }\n')
    (tmp_path / "mesh.mqcheck.toml").write_text(text)
    (tmp_path / "skip.mqcheck.toml").write_text(_example("fr-mesh-complete.toml")
                                                + '[pytest]\ncheck = false\nskip = { runs = "later" }\n')
    done = subprocess.run([sys.executable, "-m", "pytest", *_plugin_args(), "-p", "no:cacheprovider",
                           "-p", "no:xdist", "--collect-only", "-q"], cwd=tmp_path, capture_output=True, text=True,
                          env=_pytest_env(), timeout=120)
    assert "pytest.xfail: RP-FR-CONVERGANCE is not an item of this file" in done.stdout, done.stdout
    assert "(did you mean RP-FR-CONVERGENCE?)" in done.stdout
    assert "pytest.skip: runs is not an item of this file" in done.stdout and "(did you mean run?)" in done.stdout
    assert "Traceback" not in done.stdout


# ---------------------------------------------------------------- vacuous passes are said to be vacuous

def test_properties_that_pass_only_vacuously_are_listed_after_the_run(tmp_path):
    # "93 passed" for a workload scenario read as if its publish/subscribe properties had
    # been checked; nothing they speak of ever happened there
    (tmp_path / "mesh.mqcheck.toml").write_text(_example("fr-mesh-complete.toml"))
    (tmp_path / "named.mqcheck.toml").write_text(_example("fr-mesh-complete.toml")
                                                 + '[pytest]\nproperties = ["RP-FR-CONVERGENCE"]\n')
    args = [sys.executable, "-m", "pytest", *_plugin_args(), "-p", "no:cacheprovider", "-p", "no:xdist", "-rN"]
    done = subprocess.run(args, cwd=tmp_path, capture_output=True, text=True, env=_pytest_env(), timeout=300)
    out = done.stdout
    assert done.returncode == 0, out[-3000:]
    assert "mqcheck: " in out and " passed only vacuously" in out, out[-3000:]
    line = next(ln for ln in out.splitlines() if ln.startswith("mesh.mqcheck.toml: "))
    assert " passed (" in line and "PS " in line and "BD " in line, line
    assert not any(ln.startswith("named.mqcheck.toml: ") for ln in out.splitlines())   # it held non-vacuously
    assert "PS-WILDCARD-BLOCK" not in out and "-v lists them" in out
    verbose = subprocess.run(args + ["-v"], cwd=tmp_path, capture_output=True, text=True, env=_pytest_env(),
                             timeout=300).stdout
    assert any(ln.startswith("  PS: ") and "PS-WILDCARD-BLOCK" in ln for ln in verbose.splitlines()), verbose[-3000:]


# ---------------------------------------------------------------- EXPECT named in a file without [[expect]]

def test_expect_named_in_a_file_without_expect_blocks_says_why(tmp_path):
    # "pytest.properties: unknown property EXPECT; known: <ninety ids>": EXPECT is a property
    # only of a file with [[expect]] blocks, as `check --property EXPECT` says
    text = _example("fr-mesh-complete.toml")
    text = text[:text.index("[[expect]]")] + '[pytest]\nproperties = ["EXPECT"]\n'
    (tmp_path / "mesh.mqcheck.toml").write_text(text)
    done = subprocess.run([sys.executable, "-m", "pytest", *_plugin_args(), "-p", "no:cacheprovider",
                           "-p", "no:xdist", "--collect-only", "-q"], cwd=tmp_path, capture_output=True, text=True,
                          env=_pytest_env(), timeout=120)
    line = next(ln for ln in done.stdout.splitlines() if ln.startswith("mqcheck: error:"))
    assert "pytest.properties: property EXPECT does not apply here" in line, line
    assert "[[expect]] blocks; this file has none" in line and "RP-NO-STALE-APPLY" not in line, line


# ---------------------------------------------------------------- pytest-timeout cutting an exploration

def test_pytest_timeout_cutting_an_exploration_is_said_once_in_a_few_lines(tmp_path):
    # pytest --timeout (pytest-timeout) stopped the exploration with pytest's whole internal
    # traceback (some 1,400 lines per item), and each further item of the file explored again
    # until the same timeout
    pytest.importorskip("pytest_timeout")
    slow = _example("cluster-two-frs.toml").replace("max_states = 200000", "max_states = 2000000\nexplore_initial = true")
    (tmp_path / "slow.mqcheck.toml").write_text(slow + '[pytest]\nproperties = ["RP-NO-STALE-APPLY", "RP-TWO-FRS"]\n')
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "pytest", *_plugin_args(), "-p", "no:cacheprovider", "-p", "no:xdist",
                           "--timeout", "3", "-k", "not run"], cwd=tmp_path, capture_output=True, text=True,
                          env=_pytest_env(), timeout=300)
    took = time.monotonic() - started
    out = done.stdout
    assert done.returncode == pytest.ExitCode.TESTS_FAILED, out[-3000:]
    assert "2 failed" in out, out[-3000:]
    assert "pytest stopped the exploration of slow.mqcheck.toml: Timeout (>3.0s) from pytest-timeout." in out
    assert "RP-TWO-FRS: not decided" in out
    assert "site-packages" not in out and "def " not in out, out[-3000:]   # no internal traceback
    assert len(out.splitlines()) < 40, out[-3000:]
    assert took < 3 * 2 + 60, f"the second item explored again: {took:.0f} s"
