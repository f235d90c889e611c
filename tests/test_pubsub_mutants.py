"""Mutants the checker must catch (DESIGN §5): each breaks one documented rule of
distributed publish/subscribe, and exploring a small example finds the violation with a
short trace. The same examples without the mutation hold (tests/test_pubsub_check.py)."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from checker.explore import explore
from checker.model import Status
from properties.pubsub import PROPERTIES
from spec.scenario import load_scenario, parse_scenario
from spec.network import MQNetwork, Mutations

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"

# two subscriptions on one topic string at QM2: one proxy subscription, one copy
TWO_SUBS = textwrap.dedent("""
    name = "two subscriptions, one topic"
    [qmgrs.QM1]
    [qmgrs.QM2]
    mqsc = "ALTER QMGR PARENT(QM1)"
    [[steps]]
    subscribe = { qmgr = "QM2", name = "A", topic = "News/Sport" }
    [[steps]]
    subscribe = { qmgr = "QM2", name = "B", topic = "News/Sport" }
    [[steps]]
    publish = { qmgr = "QM1", topic = "News/Sport" }
""")


def check(scenario, mutation: Mutations, prop: str, max_states: int = 5000):
    model = MQNetwork(scenario, PROPERTIES, mutations=mutation)
    return explore(model, max_states=max_states, property_ids=[prop], workers=1,
                   stop_on_violation=True).verdicts[prop]


CASES = [
    # (mutation, scenario, property caught, longest acceptable trace)
    (Mutations(no_fingerprint_check=True), "ps-hierarchy-loop.toml", "PS-LOOP-DUPLICATES", 16),
    (Mutations(relay_within_cluster=True), "ps-football-results.toml", "PS-ONE-HOP-CLUSTER", 16),
    (Mutations(ignore_subscope_remote=True), "ps-football-results.toml", "PS-SCOPE", 16),
    (Mutations(no_proxy_aggregation=True), TWO_SUBS, "PS-PROXY-AGGREGATION", 4),
    (Mutations(no_proxy_aggregation=True), TWO_SUBS, "PS-PUB-AGGREGATION", 6),
    (Mutations(no_proxy_aggregation=True), TWO_SUBS, "PS-EXACTLY-ONCE-ACYCLIC", 8),
]


def _name(mutation: Mutations) -> str:
    return next(f for f in Mutations.__dataclass_fields__ if getattr(mutation, f))


@pytest.mark.parametrize("mutation,source,prop,longest", CASES, ids=[f"{_name(c[0])}-{c[2]}" for c in CASES])
def test_mutant_is_caught(mutation, source, prop, longest):
    scenario = (load_scenario(EXAMPLES / source) if source.endswith(".toml")
                else parse_scenario(source, "two-subs.toml"))
    verdict = check(scenario, mutation, prop)
    assert verdict.status is Status.VIOLATED, verdict
    assert verdict.trace is not None and verdict.trace.length <= longest
    unmutated = check(scenario, Mutations(), prop, max_states=20000)  # ps-hierarchy-loop: 5341 states
    assert unmutated.status is Status.HOLDS, unmutated
