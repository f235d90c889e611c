"""Ctrl-C on the Spark backend (issue #18): a real ``mqcheck check --backend spark`` in its
own process group, every level a Spark job, gets SIGINT as a terminal's Ctrl-C delivers
it (to the whole foreground group) while a level is running, and once more a moment
later. The user sees the honest incomplete result and nothing else: exit status 3,
verdicts "interrupted", and an empty stderr — no Python traceback, no Java stack trace,
none of the JVM's start-up warnings (checker/log4j2.properties) — and no process of the
run outlives it: the JVM and its Python workers are gone when mqcheck exits, not seconds
later. The same holds for a signal while the JVM is still starting, for a run that
completes, and for Spark options the JVM refuses (one line naming the option, exit 2).
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
    level, family, jvms = -1, set(), set()
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
                jvms = {pid for pid in family if _is_jvm(pid)}
                os.killpg(proc.pid, signal.SIGINT)
                # an impatient user presses Ctrl-C again while the jobs are being cancelled:
                # the result must still come, with nothing else on the terminal
                time.sleep(1.5)
                if proc.poll() is None:
                    os.killpg(proc.pid, signal.SIGINT)
                break
            time.sleep(0.1)
        out, err = proc.communicate(timeout=300)
        left = _alive(family)   # right after mqcheck exits
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        _kill(family)
    assert level >= 1, "the run ended before it could be interrupted"
    assert proc.returncode == 3, err[-3000:]
    assert "interrupted" in out
    assert "holds up to bound (incomplete" in out
    assert out.rstrip().endswith("The exploration was interrupted: no verdict above claims more than the "
                                 "states explored.")
    assert err == "", err[-3000:]
    assert jvms, "the run had started its JVM"
    assert not left, f"processes of the run outlived it: {sorted(left)}"


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


def _kill(pids: set[int]) -> None:
    """Clean up after a failed test: the run's processes that are left (by PID)."""
    for pid in _alive(pids):
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


def _is_jvm(pid: int) -> bool:
    try:
        return b"java" in Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[0]
    except OSError:
        return False


def _run(tmp_path, *argv: str, signal_when=None):
    """``mqcheck check ARGV`` as a terminal runs it (its own process group); every process
    below it is noted while it runs. ``signal_when(family)`` returns a signal to send to
    the group, once, or None. Returns (exit status, stdout, stderr, the processes seen (the
    JVMs among them), those still running right after mqcheck exited, seconds from the
    signal to the end)."""
    out, err = tmp_path / "stdout", tmp_path / "stderr"
    with open(out, "w") as fo, open(err, "w") as fe:
        proc = subprocess.Popen(
            [sys.executable, "-m", "checker.cli", "check", *argv], cwd=ROOT, env=dict(os.environ, PYTHONPATH=str(ROOT)),
            stdout=fo, stderr=fe, start_new_session=True,
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    family: set[int] = set()
    jvms: set[int] = set()
    sent = None
    try:
        deadline = time.monotonic() + 600
        while proc.poll() is None and time.monotonic() < deadline:
            family |= _descendants(proc.pid)
            jvms |= {pid for pid in family - jvms if _is_jvm(pid)}   # spark-submit execs java
            if signal_when is not None and sent is None:
                signum = signal_when(family)
                if signum is not None:
                    family |= _descendants(proc.pid)
                    os.killpg(proc.pid, signum)
                    sent = time.monotonic()
            time.sleep(0.05)
        proc.wait(timeout=300)
        ended = time.monotonic()
        left = _alive(family)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        _kill(family)
    return (proc.returncode, out.read_text(), err.read_text(), (family, jvms), left,
            None if sent is None else ended - sent)


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_signal_while_the_jvm_starts_ends_the_run_and_the_jvm_at_once(tmp_path, signum):
    """Ctrl-C or SIGTERM while the JVM starts (seconds, with every level on Spark): the JVM
    being started is ended, and the run with it, within seconds. It used to outlive the
    run (for good, when the signal came before the JVM had answered)."""
    seen: dict[str, float] = {}

    def when(family):
        if any(_is_jvm(pid) for pid in family):
            seen.setdefault("jvm", time.monotonic())
            if time.monotonic() - seen["jvm"] >= 1.0:   # the JVM is starting
                return signum
        return None

    status, out, err, family, left, seconds = _run(
        tmp_path, "examples/fr-mesh-complete.toml", "--backend", "spark", "--driver-threshold", "0",
        "--master", "local[2]", "--conf", "spark.ui.enabled=false", signal_when=when)
    reason = "terminated (SIGTERM)" if signum == signal.SIGTERM else "interrupted"
    assert seconds is not None, "the run ended before its JVM started"
    assert status == 3, err[-3000:]
    assert f"The exploration was {reason}: " in out
    assert err == "", err[-3000:]
    assert not left, f"processes of the run outlived it: {sorted(left)}"
    assert seconds < 10, f"the run took {seconds:.1f} s to end after the signal"


def test_a_run_that_completes_leaves_no_process(tmp_path):
    """Every level on Spark, to the end: the JVM and its Python workers are gone when mqcheck
    exits (they used to stay 1-3 s, until the JVM noticed its stdin close)."""
    status, out, err, family, left, _ = _run(
        tmp_path, "examples/ps-proxy-race.toml", "--backend", "spark", "--driver-threshold", "0",
        "--master", "local[2]", "--conf", "spark.ui.enabled=false")
    assert status in (0, 1), err[-3000:]
    assert "complete" in out and "INCOMPLETE" not in out
    assert err == "", err[-3000:]
    assert family[1], "the run did not start Spark"
    assert not left, f"processes of the run outlived it: {sorted(left)}"


@pytest.mark.parametrize(
    "conf,told",
    [
        # Spark reads SQL settings when a session first needs them: it used to fail at the
        # first level, in an 84-line Python and Java traceback, exit 1
        ("spark.sql.shuffle.partitions=abc", "The value 'abc' in the config \"spark.sql.shuffle.partitions\" is invalid"),
        # the JVM exits before it answers: pyspark said only JAVA_GATEWAY_EXITED, exit 1
        ("spark.executor.memory=abc", "Executor memory must be a positive number"),
    ],
    ids=["session-refuses", "jvm-exits"],
)
def test_a_setting_spark_refuses_is_one_line_naming_it(tmp_path, conf, told):
    status, out, err, family, left, _ = _run(
        tmp_path, "examples/reset-deleted-qmgr.toml", "--backend", "spark", "--driver-threshold", "0",
        "--conf", conf)
    assert (status, out) == (2, ""), err[-3000:]
    assert err.splitlines() == [err.rstrip("\n")], err[-3000:]   # one line
    assert err.startswith(f"mqcheck: error: <command line>: --conf {conf}: Spark did not start: "), err
    assert told in err
    assert not left, f"processes of the run outlived it: {sorted(left)}"
