"""The bad-input contract under fuzzing (issue #18): mutated scenario files and MQSC, tried
as a new user with mistakes would, against ``mqcheck run`` and ``mqcheck check``.

For every input: the exit status is 0-3; nothing escapes ``main`` (an exception here is a
traceback for the user); exit status 2 comes with one error line naming
``file:line:column:``; and the run ends within a generous time proportional to the input
(an alarm, not a wall-clock comparison: it only catches hangs and blow-ups such as the
quadratic loading of large MQSC this issue fixed).

The inputs are the bundled examples (and the one ``mqsc_file``) mutated by Hypothesis:
slices deleted, duplicated or moved, MQSC/TOML tokens, control characters and bytes that
are not UTF-8 inserted. ``MQCHECK_FUZZ_EXAMPLES`` sets the budget (CI: the default, small).
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import signal
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from checker.cli import main

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = sorted((ROOT / "examples").glob("*.toml"))
MQSC_FILES = sorted((ROOT / "examples").glob("*.mqsc"))
BUDGET = int(os.environ.get("MQCHECK_FUZZ_EXAMPLES", "40"))

# pieces a user (or an editor) might put in the wrong place
TOKENS = [
    b"[[steps]]\n", b"[qmgrs.QMX]\n", b"[a.a.a]\n", b"[check]\nmax_states = 0\n", b"[[expect]]\n",
    b'"""', b"'''", b'"', b"'", b"[", b"]", b"{", b"}", b"=", b",", b".", b"#", b"\\", b"\n", b"\r\n", b"\t",
    b"DEFINE ", b"ALTER ", b"DELETE ", b"QLOCAL(", b"TOPIC(", b"SUB(", b"CHANNEL(", b"CHLTYPE(CLUSRCVR) ",
    b"CLUSTER(", b"TOPICSTR('", b"CONNAME('", b"REPOS(", b"CLWLUSEQ(ANY) ", b"PUT(DISABLED) ", b"+\n", b"-\n",
    b"*", b")", b"(", b"'#'", b"/#", b"+", b"%", b"qmgr = ", b'topic = "', b"count = 99999", b"days = -1",
    b"\x00", b"\x1b[31m", b"\xc2\x9b", b"\xe2\x80\xae", b"\xff", b"\xe9", b"\xc3", b"\xf0\x9f\x98",
    b"[" * 200, b"9" * 5000, b"true", b"1979-05-27", b"inf", b"nan",
]


@st.composite
def mutated(draw, sources: list[bytes]) -> bytes:
    data = draw(st.sampled_from(sources))
    for _ in range(draw(st.integers(1, 4))):
        n = len(data)
        i = draw(st.integers(0, n))
        kind = draw(st.sampled_from(["insert", "delete", "duplicate", "move", "byte"]))
        if kind == "insert":
            data = data[:i] + draw(st.sampled_from(TOKENS)) + data[i:]
        elif kind == "byte":
            data = data[:i] + bytes([draw(st.integers(0, 255))]) + data[i:]
        else:
            j = draw(st.integers(i, min(n, i + 200)))
            piece = data[i:j]
            if kind == "delete":
                data = data[:i] + data[j:]
            elif kind == "duplicate":
                data = data[:j] + piece + data[j:]
            else:
                rest = data[:i] + data[j:]
                k = draw(st.integers(0, len(rest)))
                data = rest[:k] + piece + rest[k:]
    return data


class Hang(Exception):
    pass


@contextlib.contextmanager
def alarm(seconds: int):
    def ring(signum, frame):
        raise Hang(f"no answer within {seconds} s")

    previous = signal.signal(signal.SIGALRM, ring)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


ERROR_LINE = re.compile(r"^mqcheck: error: (?P<file>[^\n]+?):(?P<line>\d+):(?P<column>\d+): \S")


def run_cli(args: list[str], size: int) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    # generous and proportional to the input: 60 s, plus 10 s per 10 kB
    with alarm(60 + 10 * (size // 10_000)), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(args)
    return status, out.getvalue(), err.getvalue()


def check_contract(args: list[str], path: Path, size: int) -> None:
    status, _, err = run_cli(args, size)
    assert status in (0, 1, 2, 3), (status, err)
    assert "Traceback" not in err, err
    if status == 2:
        lines = [line for line in err.splitlines() if line.startswith("mqcheck: error:")]
        assert len(lines) == 1, err
        m = ERROR_LINE.match(lines[0])
        assert m, f"the error names no file:line:column: {lines[0]!r}"
        assert Path(m["file"]).name.endswith((".toml", ".mqsc")), lines[0]


COMMANDS = st.sampled_from([["run"], ["run", "--json"], ["check", "--max-states", "40", "--quiet", "--workers", "1"]])


@settings(max_examples=BUDGET, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.function_scoped_fixture])
@given(text=mutated([p.read_bytes() for p in EXAMPLES]), command=COMMANDS)
def test_mutated_scenarios_keep_the_contract(tmp_path, text, command):
    path = tmp_path / "s.toml"
    path.write_bytes(text)
    for mqsc in MQSC_FILES:  # an example's mqsc_file is found next to it
        (tmp_path / mqsc.name).write_bytes(mqsc.read_bytes())
    check_contract([*command[:1], str(path), *command[1:]], path, len(text))


@settings(max_examples=max(BUDGET // 2, 5), deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(mqsc=mutated([p.read_bytes() for p in MQSC_FILES]))
def test_mutated_mqsc_files_keep_the_contract(tmp_path, mqsc):
    scenario = ROOT / "examples" / "sports-qma.toml"
    (tmp_path / "s.toml").write_bytes(scenario.read_bytes())
    (tmp_path / "sports-qma.mqsc").write_bytes(mqsc)
    check_contract(["run", str(tmp_path / "s.toml")], tmp_path / "s.toml", len(mqsc))


# -- the smallest reproducer of each class the fuzz run found -------------------

REPRODUCERS = [
    pytest.param(b'name = "caf\xe9"\n[qmgrs.QMA]\n', r"s\.toml:1:12: not UTF-8 text", id="invalid-utf8"),
    pytest.param(b'[qmgrs.QMA]\nmqsc = """\nDEFINE QLOCAL(Q1)\n', r"s\.toml:2:8: invalid TOML: Unterminated string",
                 id="toml-at-end-of-document"),
    pytest.param(b"[qmgrs.QMA]\nx = " + b"[" * 3000 + b"]" * 3000 + b"\n", r"s\.toml:2:105: invalid TOML: .*nested too deeply",
                 id="nested-too-deeply"),
    pytest.param(b"[qmgrs.QMA]\n[a.a.a]\nb = 1\n", r"s\.toml:2:2: a: unknown key", id="dotted-table-header"),
]


@pytest.mark.parametrize("text, message", REPRODUCERS)
def test_smallest_reproducers_name_line_and_column(tmp_path, text, message):
    path = tmp_path / "s.toml"
    path.write_bytes(text)
    status, _, err = run_cli(["run", str(path)], len(text))
    assert status == 2
    assert re.search(message, err), err
