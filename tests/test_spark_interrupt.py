"""Ctrl-C on the Spark backend (issue #18): a real ``mqcheck check --backend spark`` in its
own process group, every level a Spark job, gets SIGINT as a terminal's Ctrl-C delivers
it (to the whole foreground group) while a level is running, and once more a moment
later. The user sees the honest incomplete result and nothing else: exit status 3,
verdicts "interrupted", and an empty stderr — no Python traceback, no Java stack trace,
none of the JVM's start-up warnings (checker/log4j2.properties) — and no process of the
run outlives it.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.spark


def _descendants(pid: int) -> set[int]:
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    found, todo = set(), [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.add(child)
            todo.append(child)
    return found


def test_ctrl_c_prints_the_incomplete_result_and_nothing_else(tmp_path):
    run_dir = tmp_path / "run"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.Popen(
        [sys.executable, "-m", "checker.cli", "check", "examples/fr-mesh-complete.toml", "--backend", "spark",
         "--driver-threshold", "0", "--master", "local[2]", "--conf", "spark.ui.enabled=false",
         "--run-dir", str(run_dir)],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        start_new_session=True,  # its own group, so the SIGINT below is a terminal's Ctrl-C
        # SIGINT as a terminal leaves it, even when this test runs in a background job
        # (started with SIGINT ignored, which a child inherits across exec)
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    level, family = -1, set()
    try:
        deadline = time.monotonic() + 600
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                level = json.loads((run_dir / "manifest.json").read_text())["progress"]["level"]
            except (OSError, ValueError, KeyError):
                level = -1
            if level >= 1:  # levels run on Spark now: the next one is a job under way
                time.sleep(1.0)
                family = _descendants(proc.pid)
                os.killpg(proc.pid, signal.SIGINT)
                # an impatient user presses Ctrl-C again while the jobs are being cancelled:
                # the result must still come, with nothing else on the terminal
                time.sleep(1.5)
                if proc.poll() is None:
                    os.killpg(proc.pid, signal.SIGINT)
                break
            time.sleep(0.1)
        out, err = proc.communicate(timeout=300)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert level >= 1, "the run ended before it could be interrupted"
    assert proc.returncode == 3, err[-3000:]
    assert "interrupted" in out
    assert "holds up to bound (incomplete" in out
    assert err == "", err[-3000:]
    assert family, "the run had started its JVM"
    deadline = time.monotonic() + 120  # the JVM ends when its stdin (a pipe from the driver) closes
    while time.monotonic() < deadline and _alive(family):
        time.sleep(0.5)
    assert not _alive(family), f"processes of the run outlived it: {sorted(_alive(family))}"


def _alive(pids: set[int]) -> set[int]:
    alive = set()
    for pid in pids:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z":
            alive.add(pid)
    return alive
