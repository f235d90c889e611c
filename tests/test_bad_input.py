"""Bad and large input (issue #18): `mqcheck --version`, `check --json` escaping what the
user wrote, and large but legal MQSC loading in time linear in its size.

Loading used to be quadratic (every definition scanned the ones before it: 8,000 TOPICs
9.5 CPU s, 10^4 SUBs past 20 s). Lookups are now by name (binary search on the sorted
tuples) or through spec.lookup's tables, which a tuple made by adding one object takes
over from the tuple before. The linearity is asserted deterministically: the objects
scanned to build lookup tables while loading n definitions grow as n, not n^2. Loading
10^4 definitions of each kind is the slow test (a generous alarm, never a wall-clock
comparison); benchmarks/RESULTS.md has the CPU seconds.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import signal
import time
from pathlib import Path

import pytest

from checker.cli import main
from spec import lookup
from spec.network import run_scenario
from spec.scenario import parse_scenario

ROOT = Path(__file__).resolve().parent.parent


def cli(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = main(list(args))
        except SystemExit as e:  # argparse's --version and usage errors
            status = e.code
    return status, out.getvalue(), err.getvalue()


# -- mqcheck --version ------------------------------------------------------------------

def test_version_is_pyprojects():
    declared = re.search(r'^version = "([^"]+)"', (ROOT / "pyproject.toml").read_text(), re.MULTILINE)[1]
    status, out, err = cli("--version")
    assert (status, out, err) == (0, f"mqcheck {declared}\n", "")


# -- check --json escapes C1 controls and bidi overrides like every other output ---------

def test_check_json_escapes_c1_controls_and_bidi_overrides(tmp_path):
    name = "evil \u009b31m red \u202e reversed \u2066 isolate \x1b[0m"
    path = tmp_path / "s.toml"
    path.write_text(f'name = {json.dumps(name)}\n[qmgrs.QMA]\n[[steps]]\n'
                    'publish = { qmgr = "QMA", topic = "a\u202eb" }\n', encoding="utf-8")
    status, out, _ = cli("check", str(path), "--json", "--quiet", "--workers", "1")
    assert status == 0
    for raw in ("\u009b", "\u202e", "\u2066", "\x1b"):
        assert raw not in out
    assert "\\u009b" in out and "\\u202e" in out
    assert json.loads(out)["scenario"] == name  # escaped, not lost


# -- large MQSC: linear loading ---------------------------------------------------------

def _big_mqsc(n: int) -> str:
    return "DEFINE QLOCAL(Q)\n" + "".join(
        f"DEFINE TOPIC(T{i}) TOPICSTR('a/t{i}')\nDEFINE SUB(S{i}) TOPICSTR('a/s{i}') DEST(Q)\n"
        f"DEFINE QLOCAL(Q{i})\nDEFINE CHANNEL(C{i}) CHLTYPE(SDR) CONNAME('h{i}') XMITQ(Q)\n"
        f"DEFINE NAMELIST(N{i}) NAMES(A,B)\n" for i in range(n))


def _table_work(n: int, monkeypatch) -> int:
    """Objects scanned to build lookup tables while `run` loads n definitions of each kind."""
    work = 0
    build = lookup.table

    def counting(objects, field):
        nonlocal work
        hit = lookup._TABLES.get((id(objects), field))
        if hit is None or hit[0] is not objects:
            work += len(objects)
        return build(objects, field)

    monkeypatch.setattr(lookup, "table", counting)
    report = run_scenario(parse_scenario(f"[qmgrs.QMA]\nmqsc = '''\n{_big_mqsc(n)}'''\n", "s.toml"))
    q = report.final.qmgr("QMA")
    assert len(q.defs.topics) == n + 1 and len(q.defs.queues) == n + 1 and len(q.pubsub.subscriptions) == n
    return work


def test_loading_scans_grow_linearly(monkeypatch):
    small, large = _table_work(200, monkeypatch), _table_work(800, monkeypatch)
    assert large <= 4 * small + 50, (small, large)  # quadratic would be 16x
    assert large <= 4 * 800


@contextlib.contextmanager
def _alarm(seconds: int):
    """A TimeoutError after ``seconds`` of wall clock inside the block. SIGALRM's handler
    and the real-time timer are given back as found however the block ends (it cancelled
    the alarm and left its handler up: the conftest guard named the test, and a later
    fuzz test in the same worker found SIGALRM taken). A caller's timer (pytest-timeout's)
    goes on with what it had left."""
    def ring(signum, frame):
        raise TimeoutError(f"loading took more than {seconds} s")

    previous = signal.signal(signal.SIGALRM, ring)
    earlier = signal.setitimer(signal.ITIMER_REAL, seconds)
    start = time.monotonic()
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        if earlier != (0.0, 0.0):
            left = max(earlier[0] - (time.monotonic() - start), 1e-6)
            signal.setitimer(signal.ITIMER_REAL, left, earlier[1])


@pytest.mark.parametrize("ending", [None, ValueError, KeyboardInterrupt])
def test_the_loading_alarm_gives_sigalrm_and_the_timer_back(ending):
    def mine(signum, frame):
        pass

    found = signal.signal(signal.SIGALRM, mine)
    timer = signal.getitimer(signal.ITIMER_REAL)   # pytest-timeout's, under --timeout
    try:
        with contextlib.suppress(ValueError, KeyboardInterrupt):
            with _alarm(600):
                assert signal.getsignal(signal.SIGALRM) is not mine
                assert signal.getitimer(signal.ITIMER_REAL)[0] > 0
                if ending is not None:
                    raise ending
        assert signal.getsignal(signal.SIGALRM) is mine
        left = signal.getitimer(signal.ITIMER_REAL)
        if timer == (0.0, 0.0):
            assert left == (0.0, 0.0)
        else:
            assert 0 < left[0] <= timer[0] and left[1] == timer[1]
    finally:
        signal.signal(signal.SIGALRM, found)


@pytest.mark.slow
def test_ten_thousand_definitions_of_each_kind_load(tmp_path):
    """10^4 TOPICs, SUBs, QLOCALs, CHANNELs and NAMELISTs on one queue manager (CI: the
    MQCHECK_SLOW_BOUND default, 1,500 of each): `mqcheck run` answers, well within a
    generous alarm (quadratic loading took minutes)."""
    n = int(os.environ.get("MQCHECK_SLOW_BOUND", "1500")) or 10_000
    (tmp_path / "big.mqsc").write_text(_big_mqsc(n))
    (tmp_path / "s.toml").write_text('[qmgrs.QMA]\nmqsc_file = "big.mqsc"\n')
    with _alarm(600):
        status, out, err = cli("run", str(tmp_path / "s.toml"), "--json")
    assert status == 0, err
    assert len(json.loads(out)["deliveries"]["QMA"]) == n


# ------------------------------------------------ an MQSC file where a scenario belongs
@pytest.mark.parametrize("command", ["run", "check", "prove"])
def test_an_mqsc_file_given_as_a_scenario_gets_a_hint(command, capsys):
    path = str(ROOT / "examples" / "sports-qma.mqsc")
    assert main([command, path]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{path}:1:1: invalid TOML: Invalid statement" in err
    assert f"this looks like an MQSC file: {command} takes a scenario file (TOML); check MQSC with " \
           f"`mqcheck lint {path}`, or name it from a scenario's queue manager with " \
           f'mqsc_file = "sports-qma.mqsc"' in err


def test_mqsc_by_its_first_word_whatever_the_file_is_called(tmp_path, capsys):
    text = tmp_path / "qma.txt"
    text.write_text("* the queue manager's objects\n\n  def ql(Q1)\n")
    assert main(["run", str(text)]) == 2
    assert "this looks like an MQSC file: run takes a scenario file" in capsys.readouterr().err
    toml = tmp_path / "s.toml"
    toml.write_text("# a scenario\nname = \n")  # broken TOML, not MQSC: no hint
    assert main(["run", str(toml)]) == 2
    err = capsys.readouterr().err
    assert "invalid TOML" in err and "MQSC" not in err


@pytest.mark.parametrize("text, quoted", [
    ("DEF" + "X" * 100_000 + "\n", "'DEFXXX"),
    ("DEFINE QLOCAL(Q1) " + "X" * 100_000 + "(1)\n", "QLOCAL(Q1): XXX"),
    ("\0" * 1000, "'\\x00\\x00"),
])
def test_an_error_quoting_a_huge_token_stays_one_short_line(tmp_path, text, quoted):
    """A file of one 100,000-character word used to print a 100,000-character error line."""
    path = tmp_path / "c.mqsc"
    path.write_text(text)
    status, out, err = cli("lint", str(path))
    assert status == 2 and out == "" and err.count("\n") == 1
    assert quoted in err and " characters)" in err and len(err) < 400, err


# ------------------------------------------------ a JSON CCDT with NaN or Infinity in it
@pytest.mark.parametrize("word", ["NaN", "Infinity", "-Infinity"])
def test_a_ccdt_with_a_non_json_constant_is_an_error_at_its_place(word):
    """json.loads takes NaN and Infinity, which strict JSON has not: the positions reader
    then failed an assert, a traceback from `mqcheck run` on a scenario naming the CCDT."""
    from spec.ccdt import parse_ccdt
    from spec.errors import InputError

    text = ('{"channel": [{"name": "C", "clientConnection": {\n'
            f'  "connection": [{{"host": "h1", "port": {word}}}], "queueManager": "QM1"}}}}]}}')
    with pytest.raises(InputError) as err:
        parse_ccdt(text, file="ccdt.json")
    assert str(err.value) == (f"ccdt.json:2:41: invalid JSON: {word} is not a JSON value "
                              "(JSON CCDTs are strict JSON: a number is written in digits)")


def test_a_ccdt_host_of_blanks_says_so():
    from spec.ccdt import parse_ccdt
    from spec.errors import InputError

    with pytest.raises(InputError, match=r"connection\[0\]\.host: expected a non-empty string, got blanks only"):
        parse_ccdt('{"channel": [{"name": "C", "clientConnection": {"connection": [{"host": " "}], '
                   '"queueManager": "QM1"}}]}')


# ------------------------------------------------ check --backend spark --resume DIR, a damaged manifest
@pytest.mark.parametrize("manifest, said", [
    ("[]", "not a mqcheck Spark run (an array, not an object)"),
    ("null", "not a mqcheck Spark run (null, not an object)"),
    ('{"format": 1', "not a mqcheck Spark run (Expecting ',' delimiter"),
    (b"\xff", "not a mqcheck Spark run ('utf-8' codec can't decode"),
    ("{FORMAT, \"progress\": 3}", "its progress cannot be read (TypeError"),
    ("{FORMAT, \"progress\": {}}", "its progress cannot be read (KeyError"),
    ("{FORMAT, \"bounds\": {\"max_states\": \"x\"}, \"progress\": {}}", "its progress cannot be read (ValueError: "
                                                                     "bounds {'max_states': 'x'}"),
    (None, "cannot read: Is a directory"),
])
def test_a_damaged_spark_manifest_is_an_error_not_a_traceback(tmp_path, manifest, said):
    """`--resume DIR` read DIR/manifest.json and took it for an object with a progress record:
    a manifest that was a JSON array, null, a directory, or had its progress edited, gave an
    AttributeError, KeyError or IsADirectoryError traceback instead of exit status 2."""
    from checker.spark_rundir import MANIFEST_FORMAT, RunDirError, _RunDir

    path = tmp_path / "manifest.json"
    if manifest is None:
        path.mkdir()
    elif isinstance(manifest, bytes):
        path.write_bytes(manifest)
    else:
        path.write_text(manifest.replace("FORMAT", f'"format": {json.dumps(MANIFEST_FORMAT)}'))
    with pytest.raises(RunDirError) as err:
        _RunDir(tmp_path).read_manifest({})
    assert str(err.value).startswith(f"{path}: {said}"), str(err.value)


def test_a_resume_from_a_damaged_manifest_exits_2(tmp_path):
    (tmp_path / "manifest.json").write_text("[]")
    status, out, err = cli("check", str(ROOT / "examples" / "fr-mesh-complete.toml"), "--backend", "spark",
                           "--resume", str(tmp_path), "--quiet")
    assert (status, out) == (2, "") and err.count("\n") == 1 and "not a mqcheck Spark run" in err, err


@pytest.mark.parametrize("where", ["file", "under-a-file"])
def test_a_spark_run_dir_that_cannot_be_made_exits_2(tmp_path, where):
    """--run-dir naming a file (or a place under one) ended in a FileExistsError or
    NotADirectoryError traceback from mkdir, before Spark started."""
    (tmp_path / "f").write_text("")
    run_dir = tmp_path / "f" if where == "file" else tmp_path / "f" / "run"
    status, out, err = cli("check", str(ROOT / "examples" / "fr-mesh-complete.toml"), "--backend", "spark",
                           "--run-dir", str(run_dir), "--quiet")
    why = "it is a file" if where == "file" else "Not a directory"
    assert (status, out) == (2, ""), err
    assert err == f"mqcheck: error: <command line>: --run-dir {run_dir}: cannot make the run directory: {why}\n"


# ------------------------------------------------ a file name that is not UTF-8
@pytest.mark.parametrize("command", [("lint",), ("check", "--quiet", "--workers", "1")])
def test_a_file_name_that_is_not_utf8_is_shown_escaped(tmp_path, command):
    """A Latin-1 file name reaches Python as lone surrogates (PEP 383). Shown as they were,
    `lint` and `check` died with a UnicodeEncodeError traceback on a UTF-8 terminal's stdout
    (strict error handler, as under en_US.UTF-8) when they named the file."""
    path = tmp_path / os.fsdecode(b"caf\xe9.toml")
    path.write_text((ROOT / "examples" / "ps-football-results.toml").read_text(encoding="utf-8"), encoding="utf-8")
    status, out, err = cli(*command, str(path))
    assert status in (0, 1), err
    out.encode("utf-8")   # strict: no lone surrogate left to fail on
    assert "caf\\udce9.toml" in out


@pytest.mark.parametrize("relative", [True, False])
def test_lint_sarif_of_a_file_name_that_is_not_utf8(tmp_path, monkeypatch, relative):
    """SARIF quoted the file name for its URI, and hashed it for the finding's fingerprint,
    as UTF-8: a Latin-1 name (lone surrogates) was a UnicodeEncodeError traceback whatever
    the terminal. The URI now quotes the name's bytes."""
    name = os.fsdecode(b"caf\xe9.toml")
    (tmp_path / name).write_text((ROOT / "examples" / "ps-football-results.toml").read_text(encoding="utf-8"),
                                 encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    status, out, err = cli("lint", "--format", "sarif", name if relative else str(tmp_path / name))
    assert status == 1, err
    uri = json.loads(out)["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
    assert uri == ("caf%E9.toml" if relative else (tmp_path / name).as_uri())
    assert uri.endswith("caf%E9.toml")


@pytest.mark.parametrize("command, what", [("run", "scenario"), ("check", "scenario"), ("lint", "MQSC")])
def test_an_empty_file_name_is_named_as_such(command, what):
    """`mqcheck run ''` said "error: cannot read the scenario file: No such file or
    directory": no file to name, and nothing said the name was empty."""
    status, out, err = cli(command, "")
    assert (status, out) == (2, "")
    assert err == f"mqcheck: error: <command line>: cannot read the {what} file: the file name is empty\n"
