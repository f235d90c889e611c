"""`mqcheck COMMAND --help`: every help text points at documents this repository has."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from checker.cli import build_parser, main

ROOT = Path(__file__).resolve().parent.parent
COMMANDS = sorted(build_parser()._subparsers._group_actions[0].choices)  # noqa: SLF001 - argparse keeps them here


def help_of(capsys, *argv: str) -> str:
    with pytest.raises(SystemExit) as done:
        main([*argv, "--help"])
    assert done.value.code == 0
    return " ".join(capsys.readouterr().out.split())


@pytest.mark.parametrize("command", [None, *COMMANDS])
def test_no_help_text_cites_a_document_the_repository_lacks(capsys, command):
    text = help_of(capsys, *([command] if command else []))
    assert "DESIGN" not in text
    for name in re.findall(r"\b[\w./-]+\.md\b", text):
        assert (ROOT / name).exists(), name


@pytest.mark.parametrize("command", ["run", "check"])
def test_scenario_help_points_at_the_readme_section(capsys, command):
    text = help_of(capsys, command)
    assert 'SCENARIO a scenario file (TOML; see "Scenario files" in the README)' in text
    headings = [line for line in (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
                if line.startswith("#")]
    assert "## Scenario files" in headings


def _errors_of(*argv: str):
    import subprocess
    import sys

    proc = subprocess.run([sys.executable, "-m", "checker.cli", *argv], capture_output=True, text=True,
                          cwd=ROOT, check=False, timeout=60)
    return proc.returncode, proc.stdout, proc.stderr


@pytest.mark.parametrize("argv, first", [
    # the error came after six lines of usage (a user trial): one line, then where to look
    (["check", "examples/sports-qma.toml", "--max-states", "abc"],
     "mqcheck check: error: argument --max-states: expected a number, got 'abc'"),
    (["check", "examples/sports-qma.toml", "--no-such-option"],
     "mqcheck check: error: unrecognized arguments: --no-such-option"),
    (["match", "a/b"], "mqcheck match: error: the following arguments are required: TOPIC"),
    (["bogus"], "mqcheck: error: argument COMMAND: invalid choice: 'bogus' (choose from 'match', 'run', "
                "'check', 'lint', 'report', 'prove', 'fuzz')"),
])
def test_an_option_error_is_one_line_and_a_pointer_to_help(argv, first):
    status, out, err = _errors_of(*argv)
    command = "mqcheck" + (f" {argv[0]}" if argv[0] != "bogus" else "")
    assert (status, out, err) == (2, "", f"{first}\n(see {command} --help)\n")


def test_an_unrecognized_argument_is_quoted_escaped_and_shortened():
    # argparse joined the unknown arguments raw: an ESC sequence reached the terminal
    status, _, err = _errors_of("run", "examples/sports-qma.toml", "--x\x1b[31m", "y" * 5000)
    assert status == 2 and "\x1b" not in err and "--x\\x1b[31m" in err
    assert len(err.splitlines()[0]) < 300 and "(5,000 characters)" in err


@pytest.mark.parametrize("command", [None, *COMMANDS])
def test_every_help_says_its_exit_statuses(capsys, command):
    # mqcheck --help said nothing of them (a user trial); each command's help does
    text = help_of(capsys, *([command] if command else []))
    assert "exit status" in text.lower() and " 2 " in text
