"""`mqcheck check` on the publish/subscribe examples: the proxy-subscription race is found
with a short trace and is absent under PROXYSUB(FORCE); loops give duplicates and
terminate; MQACTP_FORWARD republishing terminates and MQACTP_NEW does not (DESIGN §4)."""

from __future__ import annotations

from pathlib import Path

from checker.cli import _check_properties
from checker.explore import explore
from checker.model import Status
from spec.scenario import load_scenario
from spec.system import MQNetwork

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def explore_example(name: str, **bounds):
    scenario = load_scenario(EXAMPLES / name)
    model = MQNetwork(scenario, _check_properties(scenario))
    return explore(model, workers=1, **bounds)


def test_the_race_is_found_with_a_short_trace():
    r = explore_example("ps-proxy-race.toml")
    assert r.complete and r.statistics.distinct_states == 7
    missed = r.verdicts["PS-MISSED-BEFORE-PROXY"]
    assert missed.status is Status.WITNESSED and missed.trace.length == 3
    assert r.verdicts["EXPECT"].status is Status.VIOLATED and r.verdicts["EXPECT"].trace.length == 3
    assert r.verdicts["PS-FORCE-NO-MISS"].status is Status.HOLDS


def test_proxysub_force_proves_the_race_absent():
    r = explore_example("ps-proxysub-force.toml")
    assert r.complete and r.statistics.distinct_states == 7
    assert r.verdicts["PS-MISSED-BEFORE-PROXY"].status is Status.NEVER_REACHED
    assert r.verdicts["PS-FORCE-NO-MISS"].status is Status.HOLDS and not r.verdicts["PS-FORCE-NO-MISS"].vacuous
    assert r.verdicts["EXPECT"].status is Status.HOLDS
    assert not r.violations()


def test_hierarchy_loop_duplicates_and_terminates():
    r = explore_example("ps-hierarchy-loop.toml")
    assert r.complete and r.statistics.distinct_states == 381
    assert r.verdicts["PS-DUPLICATES-DELIVERED"].status is Status.WITNESSED
    assert r.verdicts["PS-LOOP-DUPLICATES"].status is Status.HOLDS
    assert r.verdicts["PS-TERMINATION"].status is Status.HOLDS
    assert r.verdicts["PS-PROXY-CONVERGENCE"].status is Status.HOLDS


def test_forward_republishing_terminates():
    r = explore_example("ps-republish-forward.toml")
    assert r.complete
    assert r.verdicts["PS-TERMINATION"].status is Status.HOLDS
    assert r.verdicts["EXPECT"].status is Status.HOLDS  # LOOP_DETECTED in every interleaving
    assert not r.violations()


def test_new_republishing_never_settles():
    r = explore_example("ps-republish-new.toml", max_states=150)
    assert not r.complete
    assert r.verdicts["PS-TERMINATION"].status is Status.HOLDS_UP_TO_BOUND
    assert r.exit_status() == 3 and not r.violations()
    # the evidence: a chain of states, each one delivery longer than the last
    assert r.statistics.max_depth >= 130


def test_every_always_property_holds_on_the_clusters_joined_example():
    r = explore_example("ps-clusters-joined.toml")
    assert r.complete
    bad = [v.property_id for v in r.violations() if v.property_id != "EXPECT"]
    assert bad == []
    assert r.verdicts["PS-CLUSTER-FORWARD"].status is Status.WITNESSED


def test_hierarchy_loop_after_unsubscribe_keeps_proxies_and_can_livelock():
    r = explore_example("ps-hierarchy-loop-unsubscribe.toml")
    assert r.complete
    assert r.verdicts["PS-PROXY-CONVERGENCE"].status is Status.VIOLATED
    lasso = r.verdicts["PS-TERMINATION"]
    assert lasso.status is Status.VIOLATED and lasso.trace.loop_start is not None
