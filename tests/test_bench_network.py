"""benchmarks/bench_network.py --duplicates: the split of successor time between states
first reached and states reached again (benchmarks/RESULTS.md, "#17 (round 12)")."""

from __future__ import annotations

import sys
from pathlib import Path

from checker.cli import _check_properties
from checker.explore import explore
from spec.network import MQNetwork
from spec.scenario import load_scenario

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

import bench_network  # noqa: E402


def test_every_successor_is_counted_once_as_first_reached_or_reached_again() -> None:
    scenario = load_scenario(ROOT / "examples" / "reset-deleted-qmgr.toml")
    plain = explore(MQNetwork(scenario, _check_properties(scenario), explore_initial=True), workers=1)
    model = MQNetwork(scenario, _check_properties(scenario), explore_initial=True)
    new, again = bench_network._time_duplicates(model)
    timed = explore(model, workers=1)
    st = timed.statistics
    # the wrapper changes nothing the explorer sees
    assert (st.distinct_states, st.generated_states) == (plain.statistics.distinct_states,
                                                         plain.statistics.generated_states)
    assert {p: v.status for p, v in timed.verdicts.items()} == {p: v.status for p, v in plain.verdicts.items()}
    # every state but the initial one is a successor first reached exactly once; the
    # termination check's second look at a few states adds calls reached again
    assert new[0] == st.distinct_states - 1
    assert new[0] + again[0] >= st.generated_states
    assert again[0] > 0 and new[1] > 0 and again[1] > 0
