"""The README's quick start is a contract: two commands a newcomer pastes; `.ci/run` runs
the second exactly; the first's main job works on the bundled example."""

from __future__ import annotations

import os
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
    # a stock Debian/Ubuntu Python has no `python` command and refuses pip installs into
    # the system interpreter (PEP 668): both commands go through the virtual environment
    run, test = commands
    assert run.startswith("scripts/bootstrap && . .venv/bin/activate && mqcheck ")
    assert test == ("scripts/bootstrap test && . .venv/bin/activate && scripts/ensure-chromium && "
                    "python -m pytest")
    for command in commands:
        assert not re.search(r"(^|&& )(python|pip)3? -m pip", command), command


def test_the_scripts_the_quick_start_runs_exist_and_are_executable():
    for script in ("scripts/bootstrap", "scripts/ensure-chromium"):
        path = ROOT / script
        assert path.is_file() and os.access(path, os.X_OK), script
        assert subprocess.run(["bash", "-n", str(path)], check=False).returncode == 0, script


def test_bootstrap_makes_a_virtual_environment_that_runs_mqcheck(tmp_path):
    """scripts/bootstrap as the quick start runs it, into a throwaway environment: the venv
    is created, mqcheck is installed into it and its console script answers.
    MQCHECK_VENV keeps the repository's own .venv untouched; PIP_NO_DEPS spares the test
    reinstalling Spark and the rest (the quick start installs them)."""
    venv = tmp_path / "venv"
    env = dict(os.environ, MQCHECK_VENV=str(venv), PIP_NO_DEPS="1")
    env.pop("VIRTUAL_ENV", None)
    proc = subprocess.run(["bash", str(ROOT / "scripts" / "bootstrap")], cwd=ROOT, env=env, capture_output=True,
                          text=True, check=False, timeout=600)
    assert proc.returncode == 0, proc.stderr
    version = subprocess.run([str(venv / "bin" / "mqcheck"), "--help"], capture_output=True, text=True, check=False)
    assert version.returncode == 0 and "mqcheck" in version.stdout, version.stderr


def test_ci_runs_the_readme_test_command():
    assert quick_start_commands()[1] in (ROOT / ".ci" / "run").read_text()


def test_main_job_runs_on_the_bundled_example():
    job = quick_start_commands()[0].split("&&")[-1].split()
    assert job[0] == "mqcheck"
    proc = subprocess.run([sys.executable, "-m", "checker.cli", *job[1:]], capture_output=True, text=True,
                          cwd=ROOT, check=False)
    assert proc.returncode == 0, proc.stderr
    assert "Expectations: 1 of 1 hold" in proc.stdout
    assert shlex.join(job)  # the command is plain words a shell pastes as is
