"""How a local run ends (issue #17): SIGTERM like Ctrl-C (an honest incomplete result,
JSON included), the forked helper dying with its parent however the parent dies (no
orphan), the default memory guard and MemoryError ending in an incomplete result, and a
progress line that moves within a level.

The signal tests use models whose slow steps *sleep* (no CPU) so they stay cheap; the
helper tests make the forked helper spin (as a real orphan did) so that only the
mechanism under test can end it.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

import checker.explore as explore_mod
from checker.explore import default_memory_limit_mb, explore
from checker.model import Property
from checker.test_util import BoundedCounters, cpu_seconds, signal_twice

ROOT = Path(__file__).resolve().parent.parent
ENV = dict(os.environ, PYTHONPATH=str(ROOT))
LINUX = sys.platform.startswith("linux")


class SleepyFan:
    """Level 0: one state; level 1: ``width`` states; each of those has one successor
    whose ``next_state`` sleeps ``pause`` seconds (wall clock, no CPU)."""

    name = "SleepyFan"

    def __init__(self, width: int, pause: float, fail_at: int | None = None) -> None:
        self.width, self.pause, self.fail_at = width, pause, fail_at

    def init_states(self):
        return [(0, 0)]

    def actions(self, state):
        depth, k = state
        if depth == 0:
            return list(range(self.width))
        return [0] if depth == 1 else []

    def next_state(self, state, action):
        depth, k = state
        if depth == 1:
            time.sleep(self.pause)
            if self.fail_at is not None and k >= self.fail_at:
                raise MemoryError
            return (2, k)
        return (1, action)

    def properties(self):
        return [Property.always("SMALL", "depth stays small", lambda m, s: s[0] <= 2),
                Property.sometimes("DEEP", "depth 2 is reached", lambda m, s: s[0] == 2)]

    def encode(self, state):
        return b"%d:%d" % state


def _terminate_once_exploring(proc: subprocess.Popen, cpu: float = 4.0) -> None:
    """SIGTERM once the process has used ``cpu`` CPU seconds: past loading the scenario
    (about a second), inside the exploration, however loaded the machine is."""
    deadline = time.monotonic() + 300
    while proc.poll() is None and time.monotonic() < deadline:
        if cpu_seconds(proc.pid) >= cpu:
            break
        time.sleep(0.1)
    proc.send_signal(signal.SIGTERM)


def _alive(pid: int) -> bool:
    """The process exists and is not a zombie."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


# ============================================================ SIGTERM like Ctrl-C
def test_sigterm_stops_the_run_with_an_honest_incomplete_result():
    timer = threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGTERM))
    timer.start()
    before = signal.getsignal(signal.SIGTERM)
    try:
        r = explore(SleepyFan(400, 0.01), workers=1)
    finally:
        timer.cancel()
    assert signal.getsignal(signal.SIGTERM) is before      # restored after the run
    assert not r.complete and r.statistics.stop_reason == "terminated (SIGTERM)"
    assert r.statistics.distinct_states == 401             # levels 0-1; the cut level dropped
    assert r.verdicts["SMALL"].status.value == "holds up to bound"
    assert r.verdicts["DEEP"].status.value == "not reached up to bound"


def test_a_callers_own_sigterm_handler_is_kept():
    calls = []
    previous = signal.signal(signal.SIGTERM, lambda s, f: calls.append(s))
    try:
        seen = []

        class Spy(BoundedCounters):
            def next_state(self, state, action):
                seen.append(signal.getsignal(signal.SIGTERM))
                return super().next_state(state, action)

        mine = signal.getsignal(signal.SIGTERM)
        r = explore(Spy(3), workers=1)
        assert r.complete and set(seen) == {mine}
    finally:
        signal.signal(signal.SIGTERM, previous)


SCRIPT_CHECK = [sys.executable, "-m", "checker.cli", "check", "examples/cluster-two-frs.toml",
                "--explore-initial", "--json", "--quiet", "--workers", "1"]


@pytest.mark.skipif(not LINUX, reason="reads the CPU time from /proc")
def test_check_killed_with_sigterm_prints_its_incomplete_result_as_json():
    """`timeout 5 mqcheck check ...` used to print nothing: now exit status 3 and the
    JSON of what was explored, marked incomplete."""
    proc = subprocess.Popen(SCRIPT_CHECK, cwd=ROOT, env=ENV, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        _terminate_once_exploring(proc)   # the exploration does not end within minutes
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 3, err[-2000:]
    data = json.loads(out)
    stats = data["statistics"]
    assert stats["complete"] is False and stats["stop_reason"] == "terminated (SIGTERM)"
    assert stats["distinct_states"] > 0
    assert all(v["status"] != "holds" for v in data["verdicts"].values())
    assert "Traceback" not in err


@pytest.mark.skipif(not LINUX, reason="reads the CPU time from /proc")
@pytest.mark.parametrize("signum,gap", [(signal.SIGTERM, 0.05), (signal.SIGINT, 0.3)], ids=["TERM-TERM", "INT-INT"])
def test_a_second_signal_does_not_lose_the_result(signum, gap):
    """A second Ctrl-C or SIGTERM soon after the first, while the stopped run builds and
    prints its result (about half a second here) or frees its memory: the JSON is still
    printed and the exit status is still 3 (it was no output and "mqcheck: interrupted",
    or exit 130/143 after the JSON)."""
    proc = subprocess.Popen(SCRIPT_CHECK, cwd=ROOT, env=ENV, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True,
                            # SIGINT as a terminal leaves it, even if this test runs in a background job
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    out, err = signal_twice(proc, signum, gap, after_cpu=4.0)
    assert proc.returncode == 3, (proc.returncode, err[-2000:])
    stats = json.loads(out)["statistics"]
    want = "terminated (SIGTERM)" if signum == signal.SIGTERM else "interrupted"
    assert stats["complete"] is False and stats["stop_reason"] == want
    assert err == "", err[-2000:]


def test_a_signal_while_the_result_is_built_is_ignored(monkeypatch):
    """In-process: the first SIGTERM stops the run; one more arriving while the explorer
    builds its result is ignored (it used to raise KeyboardInterrupt out of explore)."""
    built = []
    inner = explore_mod._Explorer._result

    def result_with_a_second_signal(self):
        os.kill(os.getpid(), signal.SIGTERM)   # handled at once: Python runs handlers between bytecodes
        built.append(True)
        return inner(self)

    monkeypatch.setattr(explore_mod._Explorer, "_result", result_with_a_second_signal)
    timer = threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGTERM))
    before = signal.getsignal(signal.SIGTERM)
    timer.start()
    try:
        r = explore(SleepyFan(40, 0.05), workers=1)
    except KeyboardInterrupt:   # not out of pytest: that would end the whole session
        pytest.fail("the second SIGTERM escaped explore() and lost the result")
    finally:
        timer.cancel()
    assert built and signal.getsignal(signal.SIGTERM) is before
    assert not r.complete and r.statistics.stop_reason == "terminated (SIGTERM)"


class SwallowingFan(SleepyFan):
    """Sends itself SIGTERM from inside ``next_state`` and discards the KeyboardInterrupt the
    handler raises there, as Python discards an exception raised in a garbage-collector
    callback (Hypothesis installs one) or a ``__del__``."""

    def next_state(self, state, action):
        if state == (1, 3):
            try:
                os.kill(os.getpid(), signal.SIGTERM)
                time.sleep(0.01)   # the handler runs here, inside the try
            except KeyboardInterrupt:
                pass
        return super().next_state(state, action)


def test_a_signal_whose_keyboardinterrupt_was_discarded_still_stops_the_run():
    r = explore(SwallowingFan(400, 0.002), workers=1)
    assert not r.complete and r.statistics.stop_reason == "terminated (SIGTERM)"
    assert r.statistics.distinct_states < 1 + 400 + 400


def test_stop_signals_poll_raises_once_a_signal_asked_to_stop():
    with explore_mod.StopSignals() as stopper:
        explore_mod.StopSignals.poll()          # nothing asked yet
        stopper.reason = "terminated (SIGTERM)"  # as a handler whose RunStopped was discarded leaves it
        with pytest.raises(explore_mod.RunStopped):
            explore_mod.StopSignals.poll()
    explore_mod.StopSignals.poll()              # none active any more


def test_a_command_running_many_explorations_stops_with_the_one_a_signal_stopped():
    """checker.explore.StopSignals (mqcheck fuzz): an exploration inside takes SIGTERM over
    from it, stops cleanly, tells it, and gives SIGTERM back; a repeat is then ignored.
    Outside an exploration, the first signal is recorded and poll() raises RunStopped."""
    before = signal.getsignal(signal.SIGTERM)
    timer = threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGTERM))
    with explore_mod.StopSignals() as stopper:
        assert signal.getsignal(signal.SIGTERM) is stopper
        timer.start()
        try:
            r = explore(SleepyFan(40, 0.05), workers=1)
        finally:
            timer.cancel()
        assert signal.getsignal(signal.SIGTERM) is stopper     # given back
        assert r.statistics.stop_reason == "terminated (SIGTERM)" == stopper.reason
        os.kill(os.getpid(), signal.SIGTERM)                    # a repeat: ignored
    assert signal.getsignal(signal.SIGTERM) is before
    # outside an exploration, the first signal is recorded, and the command's poll raises
    with pytest.raises(explore_mod.RunStopped) as stopped:
        with explore_mod.StopSignals() as stopper:
            os.kill(os.getpid(), signal.SIGTERM)
            deadline = time.monotonic() + 30
            while stopper.reason is None and time.monotonic() < deadline:
                time.sleep(0.01)
            explore_mod.StopSignals.poll()
    assert stopped.value.reason == "terminated (SIGTERM)"
    assert signal.getsignal(signal.SIGTERM) is before


@pytest.mark.skipif(not LINUX, reason="reads the CPU time from /proc")
def test_fuzz_stopped_by_sigterm_reports_what_it_ran():
    """`timeout 60 mqcheck fuzz ...` used to go on fuzzing: a SIGTERM that arrived inside
    one configuration's exploration stopped only that exploration. Now it stops the
    fuzzing with its report (exit 3, "terminated (SIGTERM)"); a second SIGTERM right
    after does not lose the report."""
    proc = subprocess.Popen([sys.executable, "-m", "checker.cli", "fuzz", "--examples", "5000", "--seed", "1",
                             "--no-database", "--json", "--quiet"],
                            cwd=ROOT, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out, err = signal_twice(proc, signal.SIGTERM, 0.05, after_cpu=5.0, timeout=60)
    assert proc.returncode == 3, (proc.returncode, err[-2000:])
    report = json.loads(out)
    assert report["stop_reason"] == "terminated (SIGTERM)"
    assert 0 < report["examples"] < 5000
    assert "Traceback" not in err


# ============================================================ the helper dies with its parent
HELPER_SCRIPT = textwrap.dedent("""
    import os, sys, time
    import checker.explore as explore_mod
    from checker.test_util import BoundedCounters

    explore_mod.PARALLEL_MIN_LEVEL = 2
    explore_mod.CHUNK = 2
    explore_mod.DEATH_SIGNAL = int(sys.argv[1])
    parent = os.getpid()

    class Spin(BoundedCounters):
        def next_state(self, state, action):
            if os.getpid() != parent:
                print(os.getpid(), flush=True)      # the helper announces itself
                if explore_mod.DEATH_SIGNAL:
                    while True:                     # spins: only the death signal ends it
                        pass
                time.sleep(0.05)                    # slow chunks: the parent check ends it
            return super().next_state(state, action)

    explore_mod.explore(Spin(30), workers=2, progress=False)
""")


@pytest.mark.skipif(not (LINUX and hasattr(os, "fork")), reason="needs Linux /proc and os.fork")
@pytest.mark.parametrize("death_signal", [int(signal.SIGKILL), 0], ids=["death-signal", "parent-check"])
def test_no_process_of_the_run_survives_a_sigkilled_parent(death_signal):
    proc = subprocess.Popen([sys.executable, "-c", HELPER_SCRIPT, str(death_signal)], cwd=ROOT, env=ENV,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    helper = None
    try:
        helper = int(proc.stdout.readline())
        assert _alive(helper)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
        deadline = time.monotonic() + 20
        while _alive(helper) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not _alive(helper), "the forked helper outlived its SIGKILLed parent"
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        if helper is not None and _alive(helper):   # never leave one behind, even on failure
            os.kill(helper, signal.SIGKILL)


# ============================================================ memory
def test_the_default_memory_guard_is_derived_from_available_memory(monkeypatch):
    if not LINUX:
        assert default_memory_limit_mb() is None
        return
    limit = default_memory_limit_mb()
    assert limit is not None and limit >= explore_mod._rss_mb() + 256 - 1
    monkeypatch.setattr(explore_mod, "_available_mb", lambda: 10_000.0)
    monkeypatch.setattr(explore_mod, "_rss_mb", lambda: 100.0)
    assert default_memory_limit_mb() == 100 + 8_000


def test_the_default_guard_ends_the_run_honestly(monkeypatch):
    monkeypatch.setattr(explore_mod, "default_memory_limit_mb", lambda: 1.0)
    r = explore(BoundedCounters(5), workers=1)
    assert not r.complete
    assert r.statistics.stop_reason.startswith("memory limit (1 MB, the default guard")
    r = explore(BoundedCounters(5), workers=1, memory_limit_mb=0)    # 0: no guard
    assert r.complete


def test_a_memory_error_is_an_incomplete_result_not_a_traceback():
    r = explore(SleepyFan(50, 0.0, fail_at=20), workers=1)
    assert not r.complete and r.statistics.stop_reason == "out of memory (MemoryError)"
    assert r.statistics.distinct_states == 51
    assert r.verdicts["SMALL"].status.value == "holds up to bound"


# ============================================================ progress within a level
def test_the_progress_count_moves_within_a_level(capsys):
    explore(SleepyFan(1500, 0.002), workers=1, progress=True)      # level 2: about 3 s asleep
    lines = [ln for ln in capsys.readouterr().err.splitlines() if "expanded" in ln]
    assert lines, "no progress line inside the large level"
    counts = [int(ln.split()[0]) for ln in lines]
    assert any(1501 < c < 3001 for c in counts), counts            # between level 1 and the end
    assert counts == sorted(counts)


@pytest.mark.skipif(not LINUX, reason="reads the CPU time from /proc")
def test_spark_backend_check_killed_with_sigterm_prints_its_incomplete_result():
    """The same on the Spark backend (its levels kept on the driver here, so no JVM is
    started: the handler is the backend's, not Spark's)."""
    argv = [a for a in SCRIPT_CHECK if a not in ("--workers", "1")]
    proc = subprocess.Popen([*argv, "--backend", "spark", "--driver-threshold", "1000000000"], cwd=ROOT, env=ENV,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        _terminate_once_exploring(proc)
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 3, err[-2000:]
    data = json.loads(out)
    assert data["backend"] == "spark"
    assert data["statistics"]["complete"] is False
    assert data["statistics"]["stop_reason"] == "terminated (SIGTERM)"
    assert "Traceback" not in err


# A loop that never calls StopSignals.poll(): Hypothesis's target phase, which ran for 5
# minutes under `mqcheck fuzz --seed 8 --max-qmgrs 3 --examples 800` calling none of the
# command's code, so SIGTERM and SIGINT were recorded and never acted on (session 28).
_LIBRARY_LOOP = textwrap.dedent("""
    import os, signal, sys, threading, time
    from checker.explore import RunStopped, StopSignals

    discard = int(sys.argv[2])   # raises to swallow, as Python swallows one raised in a gc callback
    got = 0
    timeout = 0.3 if sys.argv[1] == "timeout" else None   # the timer stops it instead of a SIGTERM
    with StopSignals(raise_where_it_lands=sys.argv[1] != "record", timeout=timeout):
        if timeout is None:
            threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGTERM)).start()
        try:
            while True:
                try:
                    start = time.monotonic()
                    while time.monotonic() - start < float(sys.argv[3]):
                        pass
                    break
                except RunStopped:
                    got += 1
                    if got <= discard:
                        continue
                    raise
            print("ran to its end", got)
        except RunStopped as stop:
            StopSignals.caught()
            time.sleep(3 * StopSignals.RETRY_SECONDS)   # no retry lands once caught
            print("stopped:", stop.reason, got)
""")


@pytest.mark.parametrize("discard", [0, 2])
def test_fuzz_signals_stop_a_loop_that_is_not_the_commands(discard):
    proc = subprocess.run([sys.executable, "-c", _LIBRARY_LOOP, "raise", str(discard), "60"], env=ENV, cwd=ROOT,
                          capture_output=True, text=True, timeout=50)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == f"stopped: terminated (SIGTERM) {discard + 1}", proc.stdout
    assert proc.stderr == ""


@pytest.mark.parametrize("discard", [0, 2])
def test_a_fuzz_timeout_stops_a_loop_that_is_not_the_commands(discard):
    """`mqcheck fuzz --timeout`: the deadline is a timer that delivers the same stop as a
    signal, so it ends a library's loop that never polls, retrying until caught."""
    proc = subprocess.run([sys.executable, "-c", _LIBRARY_LOOP, "timeout", str(discard), "60"], env=ENV, cwd=ROOT,
                          capture_output=True, text=True, timeout=50)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == f"stopped: timeout (0.3 s) {discard + 1}", proc.stdout
    assert proc.stderr == ""


def test_a_fuzz_timeout_stops_the_exploration_running_then_as_a_signal_would():
    """The timer's stop goes to the exploration that has taken the signals over: it ends
    with the timeout as its stop reason (no RunStopped lands inside it, retries included),
    the command's poll() then raises, and SIGALRM and SIGTERM are given back."""
    assert explore_mod.sigalrm_free(), "SIGALRM or the real-time timer is in use (tests/conftest.py gives them back)"
    before = signal.getsignal(signal.SIGTERM)
    with explore_mod.StopSignals(raise_where_it_lands=True, timeout=0.3) as stopper:
        r = explore(SleepyFan(40, 0.05), workers=1)         # about 2 s without the timeout
        assert r.statistics.stop_reason == "timeout (0.3 s)" == stopper.reason and not r.complete
        with pytest.raises(explore_mod.RunStopped) as stopped:
            explore_mod.StopSignals.poll()
        explore_mod.StopSignals.caught()
        assert stopped.value.reason == "timeout (0.3 s)"
    assert signal.getsignal(signal.SIGTERM) is before
    assert signal.getsignal(signal.SIGALRM) == signal.SIG_DFL
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)


# The timeout expires inside a garbage-collector callback, as it can inside Hypothesis's: a
# RunStopped raised there is discarded by Python, which prints "Exception ignored in ...".
# The loop's first collection holds its callback for 0.5 s, across the 0.3 s timeout, so the
# stop's first delivery lands there every time; the retries (every 0.25 s) land in the loop.
# (Until session 35 every callback took 5 ms and a retry had to land outside one by chance:
# 4 in 100 did, and a loaded machine twice saw none in 30 s.)
_GC_LOOP = textwrap.dedent("""
    import gc, sys, time
    from checker.explore import RunStopped, StopSignals

    held = []

    def slow_first_callback(phase, info):
        if not held and StopSignals.active is not None:   # the first collection with the timer running
            held.append(phase)
            until = time.monotonic() + 0.5
            while time.monotonic() < until:
                pass

    gc.callbacks.append(slow_first_callback)
    try:
        with StopSignals(raise_where_it_lands=True, timeout=0.3):
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline:
                a = []
                a.append(a)        # cyclic garbage: the collector runs often
                del a
            print("ran to its end")
    except RunStopped as stop:
        print("stopped:", stop.reason)
""")


def test_a_stop_is_not_raised_in_a_garbage_collector_callback():
    proc = subprocess.run([sys.executable, "-c", _GC_LOOP], env=ENV, cwd=ROOT, capture_output=True, text=True,
                          timeout=50)
    assert proc.stdout.strip() == "stopped: timeout (0.3 s)", (proc.stdout, proc.stderr)
    assert proc.stderr == ""


def test_a_timeout_needs_raising_where_it_lands():
    with pytest.raises(ValueError, match="raise_where_it_lands"):
        explore_mod.StopSignals(timeout=1.0)


def test_without_raising_where_it_lands_such_a_loop_runs_on():
    # what `mqcheck fuzz` did before: the signal is only recorded (right for `prove`,
    # whose main thread polls)
    proc = subprocess.run([sys.executable, "-c", _LIBRARY_LOOP, "record", "0", "1.5"], env=ENV, cwd=ROOT,
                          capture_output=True, text=True, timeout=50)
    assert proc.stdout.strip() == "ran to its end 0", (proc.stdout, proc.stderr)
