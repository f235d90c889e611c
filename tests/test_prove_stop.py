"""How a proof ends before it is decided: ``--timeout`` (from the claim's start, its
encoding included), Ctrl-C and SIGTERM (mqcheck's handler, never Z3's), and a ``--bound``
too large to encode (refused up front). A user trial found a large bound ignoring both
the timeout and SIGTERM (one run was OOM-killed at 24 GB), and Ctrl-C reported as a
timeout."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import z3

from checker import prove as prove_mod
from checker.cli import main
from checker.prove import UNKNOWN, ProofRecord, format_record, prove, witnesses
from checker.test_util import cpu_seconds
from properties.claims import CLAIMS

ROOT = Path(__file__).resolve().parent.parent
BY_ID = {p.id: p for p in CLAIMS}


@pytest.fixture(autouse=True)
def _nothing_stopped():
    prove_mod.reset_interrupt()
    yield
    prove_mod.reset_interrupt()


def _mqcheck(*argv: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "checker.cli", "prove", *argv], cwd=ROOT,
                            env=dict(os.environ, PYTHONPATH=str(ROOT)), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def _signal_and_time(proc: subprocess.Popen, signum: int, after_cpu: float) -> tuple[float, str, str]:
    """Send ``signum`` once ``proc`` has used ``after_cpu`` CPU seconds; return how long it
    took to end after it, and its output (killed after 60 s)."""
    try:
        deadline = time.monotonic() + 120
        while proc.poll() is None and time.monotonic() < deadline and cpu_seconds(proc.pid) < after_cpu:
            time.sleep(0.05)
        assert proc.poll() is None, proc.communicate()
        sent = time.monotonic()
        proc.send_signal(signum)
        try:
            out, err = proc.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            out, err = proc.communicate()
        return time.monotonic() - sent, out, err
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


# ============================================================ Z3 never takes Ctrl-C itself
def test_z3s_own_ctrl_c_handler_is_off():
    """Left on, each check installs Z3's SIGINT handler for the whole process: a Ctrl-C
    during the check cancelled it and never reached mqcheck's handler."""
    z3.set_param("ctrl_c", True)
    prove(BY_ID["PS-CFG-LOOP-BOUND"].predicate, 2)
    assert z3.get_param("ctrl_c") == "false"


def test_ctrl_c_during_a_z3_check_is_reported_as_ctrl_c_not_a_timeout():
    """`timeout -s INT 3 mqcheck prove PS-CFG-LOOP-BOUND --bound 12 --timeout 30` printed
    "timeout (30 s)" and no "Stopped" line: Z3's handler had cancelled the check. (Bound 12
    encodes in a fraction of a second and takes Z3 minutes: the signal comes during the check.)"""
    proc = _mqcheck("PS-CFG-LOOP-BOUND", "--bound", "12", "--timeout", "60", "--json")
    took, out, err = _signal_and_time(proc, signal.SIGINT, after_cpu=3.0)
    assert proc.returncode == 3, err[-2000:]
    data = json.loads(out)
    assert data["stop_reason"] == "interrupted"
    [claim] = data["claims"]
    assert claim["verdict"] == UNKNOWN and claim["reason"] == "interrupted", claim
    assert took < 5, took


def test_unknown_reasons_say_which_it_was():
    from checker.prove import _unknown_reason

    now = time.monotonic()
    assert _unknown_reason("canceled", 30.0, deadline=now - 1) == "timeout (30 s)"
    assert _unknown_reason("timeout", 30.0, deadline=now) == "timeout (30 s)"
    # cancelled with time left: neither the timeout nor a signal of mqcheck's
    assert _unknown_reason("canceled", 30.0, deadline=now + 20) == \
        "Z3 stopped the check before the --timeout (canceled)"
    assert _unknown_reason("max. memory exceeded", 30.0, deadline=now + 20) == "max. memory exceeded"
    prove_mod.interrupt("terminated (SIGTERM)")
    assert _unknown_reason("canceled", 30.0, deadline=now + 20) == "terminated (SIGTERM)"


def test_an_error_the_proving_thread_left_does_not_escape_the_interrupt(monkeypatch):
    """A CI run (session 37): SIGTERM during `prove examples/prove-sports.toml --bound 50`
    ended in a traceback, `Z3Exception: b'push canceled'` raised by ``ctx.interrupt()`` in
    the handler — the binding checks the context's last error after Z3_interrupt, and the
    proving thread's cancelled push had set it. The stop is still recorded and said."""
    class Cancelled:
        def interrupt(self):
            raise z3.Z3Exception(b"push canceled")

    monkeypatch.setattr(z3.z3, "_main_ctx", Cancelled())
    prove_mod.reset_interrupt()
    try:
        prove_mod.interrupt("terminated (SIGTERM)")
        assert prove_mod.stopped() == "terminated (SIGTERM)"
    finally:
        prove_mod.reset_interrupt()


def test_a_stop_signal_is_said_once():
    """`terminated (SIGTERM) (not proved); not proved` said it twice."""
    claim = BY_ID["RP-CFG-FR-MESH"].predicate
    threading.Timer(0.3, prove_mod.interrupt, ("terminated (SIGTERM)",)).start()
    verdict, detail = prove(claim, 10, 600)
    record = ProofRecord("RP-CFG-FR-MESH", "t", "c", verdict, 10, claim.bound_unit, detail["seconds"],
                         reason=detail["reason"])
    assert verdict == UNKNOWN and detail["reason"] == "terminated (SIGTERM)"
    assert "unknown (bound 10 full repositories: terminated (SIGTERM); not proved)" in format_record(record)[0]
    verdict, detail = prove(claim, 3, 600)
    assert verdict == UNKNOWN and detail["reason"] == "terminated (SIGTERM) before it started"


# ============================================================ the encoding keeps the deadline and the stop
def test_timeout_counts_the_encoding():
    """PS-CFG-LOOP-BOUND at 80 queue managers takes seconds to encode; --timeout 0.5 was
    only given to Z3, after the encoding."""
    start = time.monotonic()
    verdict, detail = prove(BY_ID["PS-CFG-LOOP-BOUND"].predicate, 80, timeout=0.5)
    took = time.monotonic() - start
    assert verdict == UNKNOWN and detail["reason"] == "timeout (0.5 s)", detail
    assert took < 2.0, took


def test_an_interrupt_during_the_encoding_ends_the_claim_at_once():
    claim = BY_ID["RP-CFG-FR-MESH"].predicate   # bound 10: about ten seconds of encoding
    box: dict = {}
    worker = threading.Thread(target=lambda: box.update(result=prove(claim, 10, 600)))
    worker.start()
    time.sleep(0.5)
    sent = time.monotonic()
    prove_mod.interrupt("interrupted")
    worker.join(30)
    assert not worker.is_alive()
    assert time.monotonic() - sent < 1.5
    verdict, detail = box["result"]
    assert verdict == UNKNOWN and detail["reason"] == "interrupted"


@pytest.mark.parametrize("claim_id", sorted(BY_ID))
def test_the_largest_accepted_bound_still_keeps_a_short_timeout(claim_id):
    """At its max_bound (the encoding takes tens of seconds) every claim gives up within
    about its --timeout: the encodings' checkpoints are close enough together."""
    claim = BY_ID[claim_id].predicate
    start = time.monotonic()
    verdict, detail = prove(claim, claim.max_bound, timeout=0.5)
    took = time.monotonic() - start
    assert verdict == UNKNOWN and detail["reason"] == "timeout (0.5 s)", detail
    assert took < 2.0, took


def test_a_reachability_table_keeps_its_timeout_and_the_stop():
    """`mqcheck prove examples/prove-sports.toml --bound 50 --timeout 5` ignored SIGTERM: each
    pair's table was encoded (seconds at 50 levels) before the stop or the timeout was looked at."""
    import tomllib

    from checker.cli import _load_scenario
    from properties import scenario_claims as sc
    from spec.network import run_scenario
    from spec.symbolic.scenario import configuration

    path = ROOT / "examples" / "prove-sports.toml"
    scenario = _load_scenario(str(path), "prove")
    doc = tomllib.loads(path.read_text(encoding="utf-8"))
    config = configuration(run_scenario(scenario).final)
    ctx = sc.Context(scenario.name, config, tuple((q.name, q.mqsc) for q in scenario.qmgrs),
                     sc.render_steps(doc.get("steps", [])))
    encode, questions = sc.table_questions(ctx, "QMA", "QMB", 40)
    start = time.monotonic()
    answers, _ = witnesses(encode, questions(), timeout=0.3)
    assert time.monotonic() - start < 1.5
    keys = [key for key, _ in questions()]
    assert set(answers) == set(keys) and {a for a, _ in answers.values()} == {"unknown"}
    assert {r for _, r in answers.values()} == {"timeout (0.3 s)"}
    prove_mod.interrupt("interrupted")
    answers, _ = witnesses(encode, questions(), timeout=60)
    assert set(answers) == set(keys) and {r for _, r in answers.values()} == {"interrupted before it was asked"}


@pytest.mark.parametrize("signum, argv", [
    (signal.SIGTERM, ("RP-CFG-FR-MESH", "--bound", "12", "--timeout", "600")),
    (signal.SIGINT, ("PS-CFG-LOOP-BOUND", "--bound", "250", "--timeout", "600")),
    (signal.SIGTERM, (str(ROOT / "examples" / "prove-sports.toml"), "--bound", "50", "--timeout", "600")),
], ids=["fr-mesh-sigterm", "loop-bound-sigint", "sports-table-sigterm"])
def test_a_stop_signal_ends_a_large_bound_within_seconds(signum, argv, tmp_path):
    """Bound 12 stopped 16.6 s after SIGTERM, bound 250 (or 1000) only by SIGKILL: the
    encoding under way saw neither. Now the run ends, exit 3, within about a second."""
    proc = _mqcheck(*argv, "--json", "--out", str(tmp_path))
    took, out, err = _signal_and_time(proc, signum, after_cpu=3.0)
    assert proc.returncode == 3, err[-2000:]
    data = json.loads(out)
    stop = "interrupted" if signum == signal.SIGINT else "terminated (SIGTERM)"
    assert data["stop_reason"] == stop
    assert all(c["verdict"] == UNKNOWN and c["reason"].startswith(stop) for c in data["claims"]), data["claims"]
    assert "Traceback" not in err
    assert took < 3.0, took


# ============================================================ a bound too large is refused up front
def test_a_bound_beyond_what_encodes_is_refused_in_one_line(capsys):
    """--bound 100000000000000000000 was OOM-killed at 24 GB; --bound 99999 ran for ever."""
    start = time.monotonic()
    assert main(["prove", "PS-CFG-LOOP-BOUND", "--bound", "99999"]) == 2
    err = capsys.readouterr().err
    assert err == ("mqcheck: error: <command line>: --bound 99999 is more than prove can encode in a minute: the "
                   "largest accepted bound is 250 (PS-CFG-LOOP-BOUND: 250 queue managers)\n")
    assert main(["prove", "--bound", "100000000000000000000"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "the largest accepted bound is 9 (" in err
    assert main(["prove", str(ROOT / "examples" / "prove-sports.toml"), "--bound", "151"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "the largest accepted bound is 150 (" in err and "150 topic levels" in err
    assert time.monotonic() - start < 5


def test_a_bound_below_what_a_claim_is_defined_for_is_refused(capsys):
    """RP-CFG-FR-MESH --bound 1 ended in a traceback (a cluster has two full repositories)."""
    assert main(["prove", "RP-CFG-FR-MESH", "--bound", "1"]) == 2
    err = capsys.readouterr().err
    assert err == "mqcheck: error: <command line>: --bound 1 is too small: RP-CFG-FR-MESH needs at least 2 full " \
                  "repositories\n"


def test_the_driver_refuses_a_bound_out_of_range_too():
    with pytest.raises(ValueError, match="largest bound it accepts is 250 queue managers"):
        prove(BY_ID["PS-CFG-LOOP-BOUND"].predicate, 251)
