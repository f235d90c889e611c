"""`mqcheck report` on input that is not what it expects: well-formed JSON of the wrong
shape, JSON nested too deeply, files that are not regular files, text that is not UTF-8.
Each is exit status 2 with one line naming the file (and the JSON path or the line and
column), never a traceback and never a hang."""

from __future__ import annotations

import contextlib
import copy
import functools
import io
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from checker.cli import main

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"


def report(*paths, out) -> tuple[int, str]:
    """``mqcheck report PATHS --out OUT``: (exit status, stderr). Anything but an exit
    status (an exception) fails the test."""
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        code = main(["report", *map(str, paths), "--out", str(out)])
    return code, err.getvalue()


def one_line_error(code: int, err: str, name: str) -> bool:
    """Exit status 2 and one line on stderr naming the file ``name`` (a path's tail)."""
    return code == 2 and err.count("\n") == 1 and err.startswith("mqcheck: error: ") and \
        f"{name}:" in err.split(" ")[2] and "Traceback" not in err


# ================================================================ wrong types (item 1)
@pytest.mark.parametrize("data, expected", [
    ({"command": "run", "deliveries": [1, 2]}, "r.json: deliveries: expected an object, found an array"),
    ({"command": "run", "errors": True}, "r.json: errors: expected an array, found true"),
    ({"command": "run", "expectations": [{"failures": 3}]},
     "r.json: expectations[0].failures: expected an array or null, found a number"),
    ({"command": "check", "verdicts": {"P 1": {"trace": {"steps": [{"state": "x"}]}}}},
     'r.json: verdicts["P 1"].trace.steps[0].state: expected an object or null, found a string'),
    ({"command": "check", "statistics": {"collision_probability": None}},
     "r.json: statistics.collision_probability: expected a number, found null"),
    ({"command": "fuzz", "properties": {"X": {"violated": "many"}}},
     "r.json: properties.X.violated: expected a number or null, found a string"),
])
def test_wrong_types_name_the_json_path(tmp_path, data, expected):
    path = tmp_path / "r.json"
    path.write_text(json.dumps(data))
    code, err = report(path, out=tmp_path / "x.html")
    assert one_line_error(code, err, "r.json") and expected in err, err
    assert not (tmp_path / "x.html").exists()


@pytest.mark.parametrize("text, expected", [
    ("[" * 100_000, "deep.json:1:201: arrays and objects nested too deeply (more than 200 levels here"),
    ('{"command": "x", "a": ' + "[" * 300 + "]" * 300 + "}", "deep.json: arrays and objects nested more than 200"),
    ('{"command": "check", "statistics": {"collision_probability": NaN}}', "deep.json: not JSON mqcheck reads: NaN"),
    ('{"command": "x", "n": 1e400}', "deep.json: not JSON mqcheck reads: the number 1e400 is too large"),
    ('{"command": "x",\n "n": ' + "1" * 5000 + "}", "deep.json:2:7: not JSON mqcheck reads: a number with more"),
])
def test_json_python_cannot_hold_is_one_line(tmp_path, text, expected):
    path = tmp_path / "deep.json"
    path.write_text(text)
    code, err = report(path, out=tmp_path / "x.html")
    assert one_line_error(code, err, "deep.json") and expected in err, err


@functools.cache
def saved_results() -> tuple[str, ...]:
    """What `run --json` (with --explain: workload choices, messages, weights), `check
    --json` (a violation with its trace, events and replay), `lint --json` and `match
    --json` print for small examples."""
    outputs = []
    for argv in (["run", str(EXAMPLES / "wl-weights-small.toml"), "--json", "--explain"],
                 ["run", str(EXAMPLES / "sports-qma.toml"), "--json"],
                 ["check", str(EXAMPLES / "fr-mesh-broken.toml"), "--property", "RP-FR-CONVERGENCE", "--json",
                  "--quiet", "--workers", "1"],
                 ["lint", str(EXAMPLES / "fr-mesh-broken.toml"), "--json"],
                 ["match", "Sports/#", "Sports/Rugby", "--json"]):
        out = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
            assert main(argv) in (0, 1)
        outputs.append(out.getvalue())
    return tuple(outputs)


def _paths(value, prefix=()):
    yield prefix
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _paths(item, prefix + (key,))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _paths(item, prefix + (i,))


REPLACEMENTS = st.sampled_from([None, True, False, 0, -7, 2.5, "", "text", [], [1, "a", None], {}, {"a": 1},
                                [[{}]], {"k": [None, {}]}])


def _type_of(value) -> str:
    return "null" if value is None else "bool" if isinstance(value, bool) else \
        "number" if isinstance(value, (int, float)) else type(value).__name__


@st.composite
def mutated_results(draw):
    """A saved result with 1-3 values (anywhere, the command field included) replaced by a
    value of another JSON type."""
    data = json.loads(draw(st.sampled_from(saved_results())))
    for _ in range(draw(st.integers(1, 3))):
        path = draw(st.sampled_from(list(_paths(data))[1:]))
        parent = data
        for key in path[:-1]:
            parent = parent[key]
        old = parent[path[-1]]
        new = draw(REPLACEMENTS.filter(lambda v: _type_of(v) != _type_of(old)))
        parent[path[-1]] = copy.deepcopy(new)
    return data


@settings(max_examples=150, deadline=None)
@given(mutated_results())
def test_type_changes_render_or_are_one_line_errors(data):
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "r.json"
        path.write_text(json.dumps(data), encoding="utf-8")
        code, err = report(path, out=Path(tmp) / "r.html")
        if code == 0:
            assert (Path(tmp) / "r.html").stat().st_size > 0
        else:
            assert one_line_error(code, err, str(path)), err


def test_the_unmutated_results_render(tmp_path):
    for i, text in enumerate(saved_results()):
        (tmp_path / f"{i}.json").write_text(text)
    code, err = report(*sorted(tmp_path.glob("*.json")), out=tmp_path / "all.html")
    assert code == 0, err
    html = (tmp_path / "all.html").read_text(encoding="utf-8")
    assert html.count('<section class="result') == len(saved_results())


# ============================================== lint and match results (item 3)
def test_lint_json_renders_its_findings(tmp_path):
    lint = json.loads(saved_results()[3])
    (tmp_path / "l.json").write_text(saved_results()[3])
    code, err = report(tmp_path / "l.json", out=tmp_path / "l.html")
    assert code == 0, err
    html = (tmp_path / "l.html").read_text(encoding="utf-8")
    assert "No dedicated view" not in html and 'data-command="lint"' in html
    assert html.count('class="verdict bad" data-property="FR-MESH" data-status="error"') == \
        sum(f["rule"] == "FR-MESH" for f in lint["findings"]) > 0
    first = lint["findings"][0]
    assert f'{first["file"]}:{first["line"]}:{first["column"]}' in html
    errors = lint["counts"]["error"]
    assert f'{errors} error{"s" if errors != 1 else ""}, ' in html
    # the table speaks of rules and findings, not of properties and verdicts
    assert "<h3>Findings</h3>" in html and "<th>rule</th>" in html and "<th>property</th>" not in html


def test_match_json_renders_its_answer(tmp_path):
    (tmp_path / "m.json").write_text(saved_results()[4])
    code, err = report(tmp_path / "m.json", out=tmp_path / "m.html")
    assert code == 0, err
    html = (tmp_path / "m.html").read_text(encoding="utf-8")
    assert "No dedicated view" not in html and 'data-command="match"' in html
    assert "<tr><th>matches</th><td>yes</td></tr>" in html and "Sports/# on Sports/Rugby" in html


def test_other_json_is_refused_with_what_report_accepts(tmp_path, capsys):
    assert main(["lint", str(EXAMPLES / "fr-mesh-broken.toml"), "--format", "sarif"]) == 1
    (tmp_path / "s.json").write_text(capsys.readouterr().out)
    code, err = report(tmp_path / "s.json", out=tmp_path / "s.html")
    assert one_line_error(code, err, "s.json")
    # session 37: SARIF is named, with what to give instead
    assert "this is SARIF (lint --format sarif), for code scanning; a report reads lint's --format json" in err
    (tmp_path / "o.json").write_text('{"runs": 1}')
    code, err = report(tmp_path / "o.json", out=tmp_path / "o.html")
    assert one_line_error(code, err, "o.json")
    assert "not the --json output of an mqcheck command: run (deliveries), check (verdicts, statistics), " \
           "lint (files, findings) or match (subscription, topic, matches)" in err


def test_report_help_lists_what_it_renders(capsys):
    with pytest.raises(SystemExit):
        main(["report", "--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    assert "any other mqcheck command" not in help_text
    assert "--json output of mqcheck run, check, prove, fuzz, lint and match" in help_text


# ======================================================== not a regular file (item 2)
def _mqcheck(*argv: str, pass_fds=()) -> subprocess.CompletedProcess:
    """mqcheck in its own process, so a read that blocks fails the test after 30 s
    instead of hanging it."""
    return subprocess.run([sys.executable, "-m", "checker.cli", *argv], capture_output=True, text=True,
                          timeout=30, cwd=ROOT, pass_fds=pass_fds)


def test_a_named_pipe_without_a_writer_is_refused_not_waited_on(tmp_path):
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)
    done = _mqcheck("report", str(fifo), "--out", str(tmp_path / "x.html"))
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert "fifo.json: cannot read: not a regular file (a device, pipe or socket)" in done.stderr


def test_a_pipe_given_as_dev_fd_is_refused_as_run_refuses_it(tmp_path):
    """`mqcheck report <(cat r.json)`: the shell passes /dev/fd/N, a pipe. run refuses a
    scenario given that way (it reads regular files only); report does the same."""
    read, write = os.pipe()
    try:
        os.write(write, saved_results()[1].encode())
        os.close(write)
        path = f"/dev/fd/{read}"
        if not os.path.exists(path):
            pytest.fail("this system has no /dev/fd")
        by_report = _mqcheck("report", path, "--out", str(tmp_path / "x.html"), pass_fds=(read,))
        by_run = _mqcheck("run", path, pass_fds=(read,))
    finally:
        os.close(read)
    for done in (by_report, by_run):
        assert done.returncode == 2 and done.stderr.count("\n") == 1
        assert "not a regular file (a device, pipe or socket)" in done.stderr


# ================================================ not UTF-8: file:line:column (item 4)
def test_report_locates_the_first_byte_that_is_not_utf8(tmp_path):
    path = tmp_path / "garbage.toml"
    path.write_bytes(b'{"command": "run",\n "x": "caf\xe9"}\n')
    code, err = report(path, out=tmp_path / "x.html")
    assert one_line_error(code, err, "garbage.toml")
    assert "garbage.toml:2:11: not UTF-8 text: byte 0xe9 cannot start or continue a character here" in err


def test_lint_locates_the_first_byte_that_is_not_utf8_as_run_does(tmp_path, capsys):
    mqsc = tmp_path / "garbage.mqsc"
    mqsc.write_bytes(b"* a comment\nDEF\x94INE QLOCAL(A)\n")
    (tmp_path / "s.toml").write_text('[qmgrs.QMA]\nmqsc_file = "garbage.mqsc"\n')
    assert main(["lint", str(mqsc)]) == 2
    by_lint = capsys.readouterr().err
    assert main(["run", str(tmp_path / "s.toml")]) == 2
    by_run = capsys.readouterr().err
    where = f"{mqsc}:2:4: not UTF-8 text: byte 0x94 cannot start or continue a character here"
    assert by_lint.count("\n") == 1 and where in by_lint and "save the file as UTF-8" in by_lint
    assert where in by_run


@pytest.mark.parametrize("bom", [b"\xff\xfe", b"\xfe\xff"])
def test_a_utf16_file_is_called_utf16_by_lint_run_and_report(tmp_path, capsys, bom):
    # what Windows PowerShell 5's `dmpmqcfg ... > qm.mqsc` writes; the error said only
    # "byte 0xff cannot start or continue a character here"
    encoding = "utf-16-le" if bom == b"\xff\xfe" else "utf-16-be"
    said = f"not UTF-8 text: UTF-16 (the file starts with the byte-order mark 0x{bom[0]:02x} 0x{bom[1]:02x})"
    mqsc = tmp_path / "qm.mqsc"
    mqsc.write_bytes(bom + "DEFINE QLOCAL(A)\r\n".encode(encoding))
    (tmp_path / "s.toml").write_text('[qmgrs.QMA]\nmqsc_file = "qm.mqsc"\n')
    (tmp_path / "r.json").write_bytes(bom + '{"command": "run"}'.encode(encoding))
    for argv, where in ((["lint", str(mqsc)], mqsc), (["run", str(tmp_path / "s.toml")], mqsc),
                        (["report", str(tmp_path / "r.json"), "--out", str(tmp_path / "x.html")], tmp_path / "r.json")):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and f"{where}:1:1: {said}" in err, err


# ======================= where a report is written: never over an input, never a device
def _copy_scenario(tmp_path: Path) -> Path:
    """sports-qma.toml and the mqsc_file it names, copied into ``tmp_path``."""
    for name in ("sports-qma.toml", "sports-qma.mqsc"):
        (tmp_path / name).write_bytes((EXAMPLES / name).read_bytes())
    return tmp_path / "sports-qma.toml"


@pytest.mark.parametrize("target", ["sports-qma.toml", "sports-qma.mqsc", "link.toml"])
def test_run_refuses_to_write_its_report_over_a_file_it_reads(tmp_path, capsys, target):
    scenario = _copy_scenario(tmp_path)
    (tmp_path / "link.toml").symlink_to("sports-qma.toml")
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    assert main(["run", str(scenario), "--report", str(tmp_path / target)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""          # refused before the run, not after it
    assert captured.err.count("\n") == 1 and "which this command reads: writing the report there would replace it" \
        in captured.err
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before


def test_report_refuses_to_write_over_one_of_its_results(tmp_path):
    path = tmp_path / "r.json"
    path.write_text(saved_results()[1])
    (tmp_path / "link.json").symlink_to("r.json")
    for out in (path, tmp_path / "link.json"):
        code, err = report(path, out=out)
        assert one_line_error(code, err, out.name) and "r.json, which this command reads" in err
    assert json.loads(path.read_text())["command"] == "run"


def test_a_report_is_written_through_a_symbolic_link_and_keeps_the_files_permissions(tmp_path):
    path = tmp_path / "r.json"
    path.write_text(saved_results()[1])
    (tmp_path / "real.html").write_text("old")
    os.chmod(tmp_path / "real.html", 0o640)
    (tmp_path / "link.html").symlink_to("real.html")
    (tmp_path / "link.html.partial").write_text("the user's own file")   # the old fixed temporary name
    code, err = report(path, out=tmp_path / "link.html")
    assert code == 0, err
    assert (tmp_path / "link.html").is_symlink()
    assert (tmp_path / "real.html").read_text().startswith("<!DOCTYPE html>")
    assert os.stat(tmp_path / "real.html").st_mode & 0o777 == 0o640
    assert (tmp_path / "link.html.partial").read_text() == "the user's own file"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.html", "link.html.partial", "r.json", "real.html"]


@pytest.mark.parametrize("out, expected", [
    ("/dev/null", "not a regular file (a device, pipe or socket)"),
    ("{tmp}", "it is a directory: give the report a file name"),
    ("{tmp}/missing/x.html", "no such directory"),
    ("", "expected a file name for the report, got an empty string"),
])
def test_report_targets_that_are_not_files_are_refused(tmp_path, out, expected):
    path = tmp_path / "r.json"
    path.write_text(saved_results()[1])
    out = out.format(tmp=tmp_path)
    code, err = report(path, out=out)
    assert code == 2 and err.count("\n") == 1 and expected in err, err
    assert os.path.exists("/dev/null") and not os.path.isfile("/dev/null")


def test_report_out_dash_is_standard_output_and_report_dash_is_refused(tmp_path, capsys):
    path = tmp_path / "r.json"
    path.write_text(saved_results()[1])
    assert main(["report", str(path), "--out", "-"]) == 0
    captured = capsys.readouterr()
    assert captured.out.startswith("<!DOCTYPE html>") and "written to standard output" in captured.err
    assert not (tmp_path / "-").exists() and not Path("-").exists()
    assert main(["run", str(_copy_scenario(tmp_path)), "--report", "-"]) == 2
    assert "'-' is standard output, where the command prints its result" in capsys.readouterr().err


def test_check_refuses_a_report_directory_before_exploring(tmp_path, capsys):
    """A bad --report path used to end a finished exploration with exit 2 and no result."""
    (tmp_path / "outdir").mkdir()
    started = time.process_time()
    code = main(["check", str(EXAMPLES / "fr-mesh-broken.toml"), "--explore-initial", "--workers", "1",
                 "--report", str(tmp_path / "outdir")])
    captured = capsys.readouterr()
    assert code == 2 and captured.out == "" and "outdir: cannot write the report: it is a directory" in captured.err
    assert time.process_time() - started < 5    # the exploration (tens of CPU seconds) never started


def test_a_report_that_fails_to_write_comes_after_the_result(tmp_path, capsys, monkeypatch):
    """A write that fails at the end (a full disk) still leaves the verdicts printed."""
    import reports

    def full_disk(path, sections, **kw):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(reports, "write", full_disk)
    code = main(["check", str(EXAMPLES / "fr-mesh-broken.toml"), "--property", "RP-FR-CONVERGENCE", "--quiet",
                 "--workers", "1", "--report", str(tmp_path / "r.html")])
    captured = capsys.readouterr()
    assert code == 2 and "RP-FR-CONVERGENCE" in captured.out and "violated" in captured.out
    assert captured.err.strip().endswith("r.html: cannot write the report: No space left on device")


# ======================= fields whose type changes what the report concludes
@pytest.mark.parametrize("data, expected", [
    ({"command": "check", "statistics": {"complete": "no"}}, "statistics.complete: expected true or false, found a string"),
    ({"command": "run", "expectations": [{"index": 0, "ok": "false"}]},
     "expectations[0].ok: expected true or false, found a string"),
    ({"command": "check", "verdicts": {"A": {"status": "holds", "vacuous": "no"}}},
     "verdicts.A.vacuous: expected true or false or null, found a string"),
    ({"command": "check", "verdicts": {"A": {"status": "violated", "trace": {"steps": [{}], "loop_start": 99}}}},
     "verdicts.A.trace.loop_start: expected the index of one of the trace's steps (0 to 0), found 99"),
    ({"command": "check", "verdicts": {"A": {"status": "violated", "trace": {"steps": [{}], "loop_start": -1}}}},
     "verdicts.A.trace.loop_start: expected a whole number (0 or more) or null, found -1"),
    ({"command": "check", "statistics": {"levels": "abc"}}, "statistics.levels: expected an array, found a string"),
    ({"command": "check", "statistics": {"max_depth": -3}}, "statistics.max_depth: expected a whole number (0 or more), found -3"),
    ({"command": "check", "statistics": {"distinct_states": "many"}},
     "statistics.distinct_states: expected a whole number (0 or more), found a string"),
    ({"command": "run", "workload": {"h": {"destinations": [{"qmgr": "A", "weight": -1}]}}},
     "workload.h.destinations[0].weight: expected a whole number (0 or more) or null, found -1"),
])
def test_fields_the_report_concludes_from_must_have_their_type(tmp_path, data, expected):
    path = tmp_path / "r.json"
    path.write_text(json.dumps(data))
    code, err = report(path, out=tmp_path / "x.html")
    assert one_line_error(code, err, "r.json") and expected in err, err


def test_completeness_is_never_assumed(tmp_path):
    """Data that does not say whether the exploration was complete is not shown as complete."""
    path = tmp_path / "r.json"
    path.write_text(json.dumps({"command": "check", "verdicts": {"A": {"status": "holds"}}}))
    code, err = report(path, out=tmp_path / "x.html")
    page = (tmp_path / "x.html").read_text()
    assert code == 0, err
    assert "not stated (the data has no statistics.complete)" in page
    assert "exploration complete" not in page and "complete: 0 states" not in page
