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
