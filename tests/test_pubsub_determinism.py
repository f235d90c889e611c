"""Distributed publish/subscribe gives the same output under any PYTHONHASHSEED (STYLE.md
habit 5): `run` of the pub/sub examples and the verdicts and traces of `check`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SEEDS = ("0", "4242")
TIMING = {"seconds", "states_per_second"}


def run_with_seed(argv: list[str], seed: str) -> tuple[int, str]:
    env = dict(os.environ, PYTHONHASHSEED=seed)
    proc = subprocess.run([sys.executable, "-m", "checker.cli", *argv], capture_output=True, text=True, env=env,
                          cwd=ROOT, check=False)
    return proc.returncode, proc.stdout


def strip_timing(value):
    if isinstance(value, dict):
        return {k: strip_timing(v) for k, v in value.items() if k not in TIMING}
    if isinstance(value, list):
        return [strip_timing(v) for v in value]
    return value


@pytest.mark.parametrize("example", ["ps-sports-cluster.toml", "ps-hierarchy-loop.toml", "ps-clusters-bridged.toml"])
def test_run_identical_under_two_hash_seeds(example):
    first, second = (run_with_seed(["run", f"examples/{example}", "--json"], seed) for seed in SEEDS)
    assert first == second and first[0] == 0


def test_check_verdicts_and_traces_identical_under_two_hash_seeds():
    outs = [run_with_seed(["check", "examples/ps-hierarchy-loop.toml", "--json"], seed) for seed in SEEDS]
    assert outs[0][0] == outs[1][0]
    assert strip_timing(json.loads(outs[0][1])) == strip_timing(json.loads(outs[1][1]))
