"""``--resume`` on the Spark backend explores under the bounds the run was started with
(a user trial: a run started with ``--max-states 3000``, interrupted, then resumed with the
README's command and no ``--max-states``, went on to the scenario's own ``[check]
max_states`` 5000). The run directory's manifest records the bounds; a resume with no
bound takes them, one with another bound is refused, and a manifest from before bounds
were recorded still resumes. Real ``mqcheck check`` processes, levels on Spark.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.spark

BOUND = 60  # what the run is started with; the scenario's own default is DEFAULT
DEFAULT = 400
SPARK = ["--backend", "spark", "--driver-threshold", "5", "--master", "local[2]",
         "--conf", "spark.ui.enabled=false"]


def _check(scenario: Path, *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "checker.cli", "check", str(scenario), *SPARK, *args],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)


def _explored(out: str) -> str:
    return next(line for line in out.splitlines() if line.startswith("Explored:"))


@pytest.fixture(scope="module")
def started(tmp_path_factory):
    """A run stopped by ``--max-states BOUND`` (levels on Spark), in a scenario whose own
    ``[check] max_states`` is DEFAULT."""
    base = tmp_path_factory.mktemp("resume-bounds")
    text = (ROOT / "examples" / "wl-channel-weight.toml").read_text(encoding="utf-8")
    assert "\nmax_states = 5000\n" in text
    scenario = base / "wl.toml"
    scenario.write_text(text.replace("\nmax_states = 5000\n", f"\nmax_states = {DEFAULT}\n"), encoding="utf-8")
    run_dir = base / "run"
    proc = _check(scenario, "--max-states", str(BOUND), "--run-dir", str(run_dir))
    assert proc.returncode == 3, proc.stderr[-3000:]
    assert f"Explored: {BOUND:,} distinct states" in proc.stdout
    assert "INCOMPLETE (max_states reached)" in proc.stdout
    assert json.loads((run_dir / "manifest.json").read_text())["progress"]["phase"] == "spark"
    return scenario, run_dir


def _copy(started, tmp_path) -> tuple[Path, Path]:
    scenario, run_dir = started
    copy = tmp_path / "run"
    shutil.copytree(run_dir, copy)
    return scenario, copy


def test_the_manifest_records_the_bounds(started):
    _, run_dir = started
    manifest = json.loads((run_dir / "manifest.json").read_text())
    assert manifest["bounds"] == {"max_states": BOUND, "max_depth": None}


def test_resume_with_no_bound_keeps_the_bound_the_run_was_started_with(started, tmp_path):
    scenario, run_dir = _copy(started, tmp_path)
    proc = _check(scenario, "--resume", str(run_dir))
    assert proc.returncode == 3, proc.stderr[-3000:]
    line = _explored(proc.stdout)
    assert line.startswith(f"Explored: {BOUND:,} distinct states"), line  # not DEFAULT
    assert "INCOMPLETE (max_states reached)" in line


def test_resume_with_another_bound_takes_it_and_says_so(started, tmp_path):
    # a bound given explicitly on resume is the user's choice (e.g. to take a bounded run
    # further): used, said, and recorded for the next resume
    scenario, run_dir = _copy(started, tmp_path)
    proc = _check(scenario, "--resume", str(run_dir), "--max-states", str(BOUND + 40))
    assert proc.returncode == 3, proc.stderr[-3000:]
    assert f"Explored: {BOUND + 40:,} distinct states" in proc.stdout, proc.stdout[-2000:]
    assert (f"mqcheck: note: --resume {run_dir}: the run was started with max_states {BOUND}; "
            f"it goes on with max_states {BOUND + 40}") in proc.stderr, proc.stderr[-2000:]
    bounds = json.loads((run_dir / "manifest.json").read_text())["bounds"]
    assert bounds == {"max_states": BOUND + 40, "max_depth": None}


def test_a_manifest_without_bounds_still_resumes_and_then_records_them(started, tmp_path):
    """Backward compatibility: a run directory written before bounds were recorded resumes
    under the bounds given now (as it always did), and from then on records them."""
    scenario, run_dir = _copy(started, tmp_path)
    path = run_dir / "manifest.json"
    manifest = json.loads(path.read_text())
    del manifest["bounds"]
    path.write_text(json.dumps(manifest, indent=1, sort_keys=True))
    proc = _check(scenario, "--resume", str(run_dir), "--max-states", str(BOUND))
    assert proc.returncode == 3, proc.stderr[-3000:]
    assert _explored(proc.stdout).startswith(f"Explored: {BOUND:,} distinct states")
    assert json.loads(path.read_text())["bounds"] == {"max_states": BOUND, "max_depth": None}


def test_another_initial_state_is_explained_in_user_terms(started, tmp_path):
    scenario, run_dir = _copy(started, tmp_path)
    proc = _check(scenario, "--resume", str(run_dir), "--faults", "1")
    assert proc.returncode == 2, (proc.stdout[-2000:], proc.stderr[-2000:])
    assert "the initial state differs from the interrupted run's" in proc.stderr, proc.stderr
    assert "--faults" in proc.stderr and "init_fingerprints" in proc.stderr, proc.stderr
