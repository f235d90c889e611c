"""MQSC line ends (session 29): LF, CRLF and a bare CR (classic Mac OS, or a file passed
through `tr '\\n' '\\r'`) each end a line, in a file and in a scenario's inline MQSC, mixed
too. A file of bare CRs used to be read as one line: its first line, a `*` comment, made the
whole file a comment, so `run` lost every definition and `lint` found nothing. Line and
column numbers in errors count lines as an editor shows them."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from checker.cli import main
from spec.errors import InputError
from spec.mqsc import parse
from spec.scenario import load_scenario, parse_scenario

ROOT = Path(__file__).resolve().parent.parent
SPORTS = ROOT / "examples" / "sports-qma.toml"
SPORTS_MQSC = ROOT / "examples" / "sports-qma.mqsc"
BROKEN = ROOT / "examples" / "fr-mesh-broken.toml"

LINES = ["* a comment first: the whole file was one comment",
         "DEFINE QLOCAL(A) DESCR('one, two')",
         "",
         "  DEFINE QLOCAL(B) +",
         "   CLUSTER(X)",
         "DEFINE QLOCAL(C) -",
         "CLUSTER(Y)",
         "ALTER QMGR REPOS(X)"]


def ended(lines: list[str], ends: list[str]) -> str:
    """``lines`` joined by ``ends`` in turn, with a final line end."""
    return "".join(line + ends[i % len(ends)] for i, line in enumerate(lines))


ENDINGS = {"LF": ["\n"], "CRLF": ["\r\n"], "CR": ["\r"], "mixed": ["\r", "\n", "\r\n"], "mixed2": ["\r\n", "\r"]}


def positions(commands) -> list:
    return [(c.title(), c.attrs, c.line, c.column, [c.where(k) for k, _ in c.attrs]) for c in commands]


# ======================================================================= the reader
@pytest.mark.parametrize("ending", list(ENDINGS))
def test_every_line_end_reads_the_same_commands_at_the_same_positions(ending):
    expected = positions(parse(ended(LINES, ["\n"])))
    assert [e[0] for e in expected] == ["DEFINE QLOCAL(A)", "DEFINE QLOCAL(B)", "DEFINE QLOCAL(C)", "ALTER QMGR"]
    assert positions(parse(ended(LINES, ENDINGS[ending]))) == expected
    assert positions(parse(ended(LINES, ENDINGS[ending]).rstrip("\r\n"))) == expected   # no final line end


@pytest.mark.parametrize("ending", ["\r", "\r\n", "\n"])
def test_an_error_on_the_fifth_line_says_line_5(ending):
    text = ending.join(["* header", "DEFINE QLOCAL(Q1)", "", "DEFINE QLOCAL(Q2)", "DEFINE QLOCAL(Q5) CLUSTR(X)",
                        "DEFINE QLOCAL(Q6)"])
    with pytest.raises(InputError) as caught:
        parse(text, file="cr.mqsc")
    err = caught.value
    assert (err.file, err.line, err.column) == ("cr.mqsc", 5, 19)
    assert str(err).startswith("cr.mqsc:5:19: DEFINE QLOCAL(Q5): CLUSTR is not an attribute of QLOCAL")


def test_mixed_line_ends_count_each_once():
    # CRLF is one line end, not two (no empty line between); a bare CR and a bare LF one each
    text = "DEFINE QLOCAL(A)\r\nDEFINE QLOCAL(B)\rDEFINE QLOCAL(C)\n\rDEFINE QLOCAL(D) CLUSTR(X)"
    assert [c.line for c in parse(text.rsplit("\r", 1)[0])] == [1, 2, 3]
    with pytest.raises(InputError) as caught:
        parse(text, file="m.mqsc")
    assert (caught.value.line, caught.value.column) == (5, 18)


def test_a_continuation_at_the_end_of_a_bare_cr_file_is_located():
    with pytest.raises(InputError) as caught:
        parse("DEFINE QLOCAL(A)\rDEFINE QLOCAL(B) +\r", file="cr.mqsc")
    assert (caught.value.line, caught.value.column) == (2, 18)
    assert "ends with a continuation character" in caught.value.message


# ======================================================================= a scenario's inline MQSC
def test_inline_mqsc_with_bare_crs_is_read_and_errors_point_into_the_toml():
    # TOML has no bare CR outside an escape: "\r" in a basic string
    good = 'name = "x"\n[qmgrs.QM1]\nmqsc = "* c\\rDEFINE QLOCAL(A)\\rDEFINE QLOCAL(B) CLUSTER(X)"\n'
    commands = parse_scenario(good, "x.toml").qmgrs[0].commands
    assert [c.title() for c in commands] == ["DEFINE QLOCAL(A)", "DEFINE QLOCAL(B)"]
    bad = ('name = "x"\n[qmgrs.QM1]\n[[steps]]\n'
           'mqsc = { qmgr = "QM1", commands = "DEFINE QLOCAL(A)\\rDEFINE QLOCAL(B) CLUSTR(X)" }\n')
    with pytest.raises(InputError) as caught:
        parse_scenario(bad, "x.toml")
    column = bad.splitlines()[3].index("CLUSTR") + 1
    assert (caught.value.file, caught.value.line, caught.value.column) == ("x.toml", 4, column)
    assert "CLUSTR is not an attribute of QLOCAL" in caught.value.message


# ======================================================================= the command line
def _sports_copy(tmp_path: Path, name: str, ends: list[str]) -> Path:
    """examples/sports-qma.toml with its mqsc_file written with ``ends`` as line ends."""
    lines = SPORTS_MQSC.read_text(encoding="utf-8").split("\n")
    (tmp_path / f"{name}.mqsc").write_bytes(ended(lines, ends).encode("utf-8"))
    toml = SPORTS.read_text(encoding="utf-8").replace('mqsc_file = "sports-qma.mqsc"', f'mqsc_file = "{name}.mqsc"')
    assert f'"{name}.mqsc"' in toml
    (tmp_path / f"{name}.toml").write_text(toml, encoding="utf-8")
    return tmp_path / f"{name}.toml"


@pytest.mark.parametrize("ending", ["CR", "mixed"])
def test_run_and_check_of_a_bare_cr_mqsc_file_match_the_lf_file(tmp_path, capsys, ending):
    lf, other = _sports_copy(tmp_path, "lf", ["\n"]), _sports_copy(tmp_path, "other", ENDINGS[ending])
    assert len(load_scenario(other).qmgrs[0].commands) == len(load_scenario(lf).qmgrs[0].commands) > 10
    outs = []
    for path in (lf, other):
        assert main(["run", str(path), "--json"]) == 0
        outs.append(capsys.readouterr().out.replace(str(path), "SCENARIO").replace(path.stem + ".mqsc", "MQSC"))
    assert outs[0] == outs[1] and "SCENARIO" in outs[0]
    checks = []
    for path in (lf, other):
        assert main(["check", str(path), "--json", "--workers", "1"]) == 0
        data = json.loads(capsys.readouterr().out.replace(str(path), "SCENARIO"))
        checks.append((data["verdicts"], data["statistics"]["distinct_states"]))
    assert checks[0] == checks[1]


def test_lint_of_bare_cr_mqsc_files_matches_the_lf_files(tmp_path, capsys):
    """The broken-mesh example's queue managers as MQSC files: the same findings, at the
    same lines and columns, whatever the line ends."""
    results = []
    for name, ends in (("lf", ["\n"]), ("cr", ["\r"]), ("mixed", ["\r\n", "\r", "\n"])):
        folder = tmp_path / name
        folder.mkdir()
        files = []
        for q in load_scenario(BROKEN).qmgrs:
            path = folder / f"{q.name.lower()}.mqsc"
            path.write_bytes(ended(["* " + q.name] + q.mqsc.strip().split("\n"), ends).encode("utf-8"))
            files.append(str(path))
        assert main(["lint", *files, "--whole-network", "--format", "json"]) == 1
        data = json.loads(capsys.readouterr().out)
        results.append(sorted((os.path.basename(f["file"]), f["line"], f["column"], f["rule"], f["message"])
                              for f in data["findings"]))
    assert results[0] and any(line > 2 for _, line, *_ in results[0])
    assert results[0] == results[1] == results[2]


def test_an_error_in_a_bare_cr_mqsc_file_names_its_line_and_column(tmp_path, capsys):
    path = _sports_copy(tmp_path, "cr", ["\r"])
    mqsc = tmp_path / "cr.mqsc"
    lines = mqsc.read_bytes().decode("utf-8").split("\r")   # (read_text would turn each CR into LF)
    lines[4] = lines[4].replace("TOPICSTR(", "TOPICSTRR(")
    mqsc.write_bytes("\r".join(lines).encode("utf-8"))
    column = lines[4].index("TOPICSTRR") + 1
    assert main(["run", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"{mqsc}:5:{column}: " in err and "TOPICSTRR" in err and "Traceback" not in err
    assert main(["lint", str(mqsc)]) == 2
    assert f"{mqsc}:5:{column}: " in capsys.readouterr().err


def test_a_byte_that_is_not_utf8_in_a_bare_cr_file_is_located_by_line(tmp_path, capsys):
    path = tmp_path / "cr.mqsc"
    path.write_bytes(b"* header\rDEFINE QLOCAL(A)\r\nDEFINE QLOCAL(B) DESCR('caf\xe9')\r")
    assert main(["lint", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"{path}:3:" in err and "Traceback" not in err


def test_the_example_bare_cr_file_of_the_report(tmp_path, capsys):
    """The report's reproduction: `tr '\\n' '\\r' < examples/sports-qma.mqsc`."""
    cr = tmp_path / "cr.mqsc"
    cr.write_bytes(SPORTS_MQSC.read_bytes().replace(b"\n", b"\r"))
    shutil.copy(SPORTS_MQSC, tmp_path / "lf.mqsc")
    text = cr.read_bytes().decode("utf-8")   # (read_text would turn each CR into LF)
    assert "\n" not in text and text.count("\r") > 10
    assert parse(text) == parse((tmp_path / "lf.mqsc").read_bytes().decode("utf-8"))
    assert len(parse(text)) > 10


def test_a_scenario_file_of_bare_crs_is_refused_with_the_reason(tmp_path, capsys):
    """TOML ends lines at LF or CRLF only: a scenario file of bare CRs cannot be read, and
    the error says why (it said only "see https://toml.io")."""
    path = tmp_path / "cr.toml"
    path.write_bytes(SPORTS.read_bytes().replace(b"\n", b"\r"))
    assert main(["run", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "invalid TOML" in err and "bare carriage return" in err
