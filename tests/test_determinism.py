"""Same input, same output, under any PYTHONHASHSEED (STYLE.md habit 5; DESIGN §2.1).

Each case runs a command in fresh interpreters with two different hash seeds and
compares everything it prints. Later commands (run, check) join the table.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SEEDS = ("0", "4242")

COMMANDS = [
    ["-m", "checker.cli", "run", "examples/sports-qma.toml", "--json"],
    ["-m", "checker.cli", "run", "examples/grouped-subscriptions.toml"],
    ["-m", "checker.cli", "match", "Sports/#/Leeds", "Sports/Leeds", "--json"],
    ["-m", "checker.cli", "match", "IBM/*ware/Results", "IBM/Software/Results", "--scheme", "char"],
]


def run_with_seed(argv: list[str], seed: str) -> tuple[int, str, str]:
    env = dict(os.environ, PYTHONHASHSEED=seed)
    proc = subprocess.run([sys.executable, *argv], capture_output=True, text=True, env=env, cwd=ROOT, check=False)
    return proc.returncode, proc.stdout, proc.stderr


@pytest.mark.parametrize("argv", COMMANDS, ids=lambda a: " ".join(a[2:5]))
def test_cli_output_identical_under_two_hash_seeds(argv):
    first, second = (run_with_seed(argv, seed) for seed in SEEDS)
    assert first == second


def test_topic_suite_passes_under_two_hash_seeds(tmp_path, monkeypatch):
    # in one process (-n 0: pyproject's addopts would start two workers) with a base
    # directory of its own: an inherited --basetemp (PYTEST_ADDOPTS) would be cleared by the
    # inner run, under the outer run's workers
    monkeypatch.delenv("PYTEST_ADDOPTS", raising=False)
    for seed in SEEDS:
        code, out, err = run_with_seed(["-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "0",
                                        f"--basetemp={tmp_path / seed}", "tests/test_topics.py"], seed)
        assert code == 0, out + err
        assert " passed" in out, out


def _without_timings(text: str) -> dict:
    import json

    data = json.loads(text)
    for key in ("seconds", "states_per_second"):
        data["statistics"].pop(key, None)
    return data


@pytest.mark.parametrize("example", ["fr-mesh-broken.toml", "reset-deleted-qmgr.toml"])
def test_check_results_identical_under_two_hash_seeds(example):
    # same states, same counts, same verdicts, same first counterexample (DESIGN §2.1)
    argv = ["-m", "checker.cli", "check", f"examples/{example}", "--json", "--quiet"]
    (code_a, out_a, _), (code_b, out_b, _) = (run_with_seed(argv, seed) for seed in SEEDS)
    assert code_a == code_b == 1
    assert _without_timings(out_a) == _without_timings(out_b)
