"""Session 35: a user trial with an eight-queue-manager estate (docs/decisions.md,
"Session 35: user trial with an eight-queue-manager estate").

Each test is one roughness the trial hit, and fails without its fix.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def _mqcheck(*args: str, cwd: Path | None = None, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "checker.cli", *args], capture_output=True, text=True,
                          cwd=cwd or ROOT, timeout=timeout)


# ---------------------------------------------------------------- a timeout beyond the timer

def test_a_timeout_of_ten_billion_seconds_is_no_traceback():
    # setitimer refuses about 10^10 s ("timestamp out of range for platform time_t"): such a
    # timeout is a deadline polled, not a timer armed (checker.explore.TIMER_MAX_SECONDS).
    for command in (["check", "examples/sports-qma.toml", "--max-states", "5"],
                    ["fuzz", "--examples", "1", "--no-database", "--no-timings", "--max-qmgrs", "2"]):
        done = _mqcheck(*command, "--timeout", "1e10")
        assert "Traceback" not in done.stderr, done.stderr
        assert done.returncode in (0, 3), (command, done.returncode, done.stderr)
