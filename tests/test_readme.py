"""The README's quick start is a contract: two commands a newcomer pastes; `.ci/run` runs
the second exactly; the first's main job works on the bundled example."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def quick_start_commands() -> list[str]:
    text = (ROOT / "README.md").read_text()
    section = text[text.index("## Quick start"):text.index("\n## ", text.index("## Quick start") + 1)]
    return [block.strip() for block in re.findall(r"```sh\n(.*?)```", section, flags=re.S)]


def test_quick_start_has_exactly_two_commands():
    commands = quick_start_commands()
    assert len(commands) == 2
    assert all("\n" not in c for c in commands)
    assert commands[0].startswith("python -m pip install -e . && mqcheck ")
    assert commands[1] == "python -m pip install -e '.[test]' && python -m pytest"


def test_ci_runs_the_readme_test_command():
    assert quick_start_commands()[1] in (ROOT / ".ci" / "run").read_text()


def test_main_job_runs_on_the_bundled_example():
    job = quick_start_commands()[0].split("&&", 1)[1].split()
    assert job[0] == "mqcheck"
    proc = subprocess.run([sys.executable, "-m", "checker.cli", *job[1:]], capture_output=True, text=True,
                          cwd=ROOT, check=False)
    assert proc.returncode == 0, proc.stderr
    assert "Expectations: 1 of 1 hold" in proc.stdout
    assert shlex.join(job)  # the command is plain words a shell pastes as is
