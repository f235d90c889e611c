"""``properties.once_per_part`` (issue #17): a property judges each immutable part of a
state (a ghost decision, a decision history, a cluster cache) once per part object. The
cache must change how fast a predicate answers, never what it answers: checked here
against the same predicates on deep copies of the states (new objects, so nothing is
found in the cache), over explorations where the properties both hold and fail.
"""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

from checker.cli import _check_properties
from explored import first_states
from properties import once_per_part
from spec.network import MQNetwork, Mutations
from spec.scenario import load_scenario, parse_scenario

ROOT = Path(__file__).resolve().parent.parent
# the properties outside properties/workload.py whose predicates use once_per_part
CACHED = {"RP-NO-STALE-APPLY", "RP-TEMPQMGR", "PS-FORCE-DELIVERED"}


def test_a_part_is_judged_once_and_an_equal_copy_again():
    calls = []

    @once_per_part
    def size(part):
        """The number of items."""
        calls.append(part)
        return len(part)

    a = (1, 2, 3)
    assert size(a) == 3 and size(a) == 3
    assert len(calls) == 1
    b = tuple([1, 2, 3])  # equal, another object: judged on its own
    assert b is not a and size(b) == 3
    assert len(calls) == 2
    assert size.__doc__ == "The number of items." and size.__wrapped__(a) == 3


def _states(example: str, mutations: Mutations, limit: int, initial: bool) -> tuple[MQNetwork, list]:
    """Breadth-first, the first ``limit`` distinct states of the scenario (with the
    initial joining explored if ``initial``)."""
    if example == "UPDATES_RACE":  # two updates of one record racing (tests/test_repository.py)
        from test_repository import UPDATES_RACE

        scenario = parse_scenario(UPDATES_RACE, "race.toml")
    else:
        scenario = load_scenario(ROOT / "examples" / example)
    model = MQNetwork(scenario, _check_properties(scenario), mutations=mutations, explore_initial=initial)
    return model, first_states(model, limit)


@pytest.mark.parametrize(("example", "mutation", "initial"), [
    ("wl-queue-rank.toml", Mutations(), False),
    ("wl-queue-rank.toml", Mutations(rank_after_status=True), False),
    ("wl-channel-weight.toml", Mutations(weight_ignored=True), False),
    ("wl-amqsclm.toml", Mutations(redrive_bound_messages=True), False),
    ("UPDATES_RACE", Mutations(ignore_sequence_numbers=True), False),
    ("ps-proxysub-force.toml", Mutations(), False),
])
def test_cached_judgements_equal_fresh_ones(example, mutation, initial):
    model, states = _states(example, mutation, 80, initial)
    props = [p for p in model.properties() if p.kind.value in ("always", "sometimes")
             and (p.id.startswith(("WL-", "BD-")) or p.id in CACHED)]
    outcomes = set()
    for s in states:
        fresh = copy.deepcopy(s)   # new part objects: nothing of it is cached yet
        for p in props:
            cached = p.predicate(model, s)
            assert cached == p.predicate(model, fresh), (example, p.id)
            outcomes.add((p.id, bool(cached)))
    # the comparison saw a cached property both hold and fail (not a vacuous agreement)
    ids = {pid for pid, _ in outcomes}
    assert any((pid, True) in outcomes and (pid, False) in outcomes for pid in ids), sorted(outcomes)
