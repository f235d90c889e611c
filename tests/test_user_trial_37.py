"""Session 37: a user trial of prove, fuzz, lint, match and report (docs/decisions.md,
"Session 37: user trial of prove, fuzz, lint, match and report").

Each test is one roughness the trial hit, and fails without its fix.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from checker.cli import main  # noqa: E402


def _mqcheck(*args: str, cwd: Path | None = None, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "checker.cli", *args], capture_output=True, text=True,
                          cwd=cwd or ROOT, timeout=timeout)


# ---------------------------------------------------------------- a reader that leaves: `mqcheck ... | head`

@pytest.mark.parametrize("args, status", [
    (["lint", "examples/fr-mesh-broken.toml"], 1),         # errors found
    (["check", "examples/fr-mesh-broken.toml"], 1),        # a violation
    (["match", "Sports/#", "Sports/Rugby"], 0),
    (["match", "Sports/#", "Rugby"], 1),                   # does not match
    (["prove", "PS-CFG-LOOP-BOUND", "--out", "{tmp}"], 0),
])
def test_a_closed_pipe_keeps_the_commands_own_exit_status(tmp_path, args, status):
    # `mqcheck lint ... | head -1` under `set -o pipefail`: the reader left before the output
    # was written, and mqcheck exited 0 ("nothing found", "matches") whatever it had found,
    # or 0 and 1 from one run to the next, as the reader's timing went.
    args = [a.replace("{tmp}", str(tmp_path)) for a in args]
    proc = subprocess.Popen([sys.executable, "-m", "checker.cli", *args], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.close()   # the reader is gone before anything is written
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == status, err
    assert "Traceback" not in err and "Exception ignored" not in err, err
