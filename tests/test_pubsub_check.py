"""`mqcheck check` on the publish/subscribe examples: the proxy-subscription race is found
with a short trace and is absent under PROXYSUB(FORCE); loops give duplicates and
terminate; MQACTP_FORWARD republishing terminates and MQACTP_NEW does not (DESIGN §4)."""

from __future__ import annotations

from pathlib import Path

from checker.cli import _check_properties
from checker.explore import explore
from checker.model import Status
from spec.scenario import load_scenario
from spec.network import MQNetwork

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def explore_example(name: str, **bounds):
    from explored import explore_example as shared  # one exploration per session (tests/explored.py)

    if set(bounds) <= {"max_states", "max_depth"}:
        return shared(name, **bounds)
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
    # 5309 (was 381 before the demand paths): proxy subscriptions are updated as paths arrive;
    # 5341 since a publication records the wildcard routes out it had (PS-FORCE-NO-MISS, #14 round 4)
    assert r.complete and r.statistics.distinct_states == 5341
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


def test_check_prints_the_republishing_loop_as_evidence_beside_the_undecided_termination(capsys):
    # issue #6: with a bound, "an honest incomplete plus the growing cycle as evidence"
    from checker.cli import main

    code = main(["check", str(EXAMPLES / "ps-republish-new.toml"), "--quiet", "--max-states", "150"])
    out = capsys.readouterr().out
    assert code == 3
    assert "PS-TERMINATION" in out and "holds up to bound" in out
    evidence = out.split("Evidence against PS-TERMINATION (undecided): PS-REPUBLISH-LOOP", 1)[1]
    assert evidence.count("republish") >= 3  # QM1, QM2, then QM1 again: the loop repeats


def test_every_always_property_holds_on_the_clusters_joined_example():
    r = explore_example("ps-clusters-joined.toml")
    assert r.complete
    bad = [v.property_id for v in r.violations() if v.property_id != "EXPECT"]
    assert bad == []
    assert r.verdicts["PS-CLUSTER-FORWARD"].status is Status.WITNESSED


def test_hierarchy_loop_after_unsubscribe_cancels_every_proxy():
    # 002 §How loop detection works: aggregation "will prevent the perpetual looping of
    # proxy subscriptions" — with demand paths, the loop's proxies go when S1 goes
    r = explore_example("ps-hierarchy-loop-unsubscribe.toml")
    assert r.complete
    assert r.verdicts["PS-PROXY-CONVERGENCE"].status is Status.HOLDS
    assert r.verdicts["PS-PROXIES-SETTLED"].status is Status.WITNESSED
    assert r.verdicts["PS-TERMINATION"].status is Status.HOLDS
    assert r.verdicts["PS-DUPLICATES-DELIVERED"].status is Status.WITNESSED  # while S1 was subscribed
    assert r.verdicts["EXPECT"].status is Status.HOLDS  # no LOOP_DETECTED in any interleaving
    assert not r.violations()


FORCE_OVERLAP = """
name = "PROXYSUB(FORCE) in overlapping clusters"
[qmgrs.QM1]
mqsc = '''
ALTER QMGR REPOS(CLUSTER1)
DEFINE CHANNEL(TO.QM1) CHLTYPE(CLUSRCVR) CONNAME('qm1(1414)') CLUSTER(CLUSTER1)
DEFINE TOPIC(A) TOPICSTR('a') CLUSTER(CLUSTER1) PROXYSUB(FORCE)
'''
[qmgrs.QM2]
mqsc = '''
ALTER QMGR REPOS(CLUSTER2)
DEFINE CHANNEL(TO.QM2) CHLTYPE(CLUSRCVR) CONNAME('qm2(1414)') CLUSTER(CLUSTER2)
DEFINE TOPIC(AB) TOPICSTR('a/b') CLUSTER(CLUSTER2) PROXYSUB(FORCE)
'''
[qmgrs.QM3]
mqsc = '''
DEFINE NAMELIST(BOTH) NAMES(CLUSTER1, CLUSTER2)
DEFINE CHANNEL(TO.QM3) CHLTYPE(CLUSRCVR) CONNAME('qm3(1414)') CLUSNL(BOTH)
DEFINE CHANNEL(TO.QM1) CHLTYPE(CLUSSDR) CONNAME('qm1(1414)') CLUSTER(CLUSTER1)
DEFINE CHANNEL(TO.QM2) CHLTYPE(CLUSSDR) CONNAME('qm2(1414)') CLUSTER(CLUSTER2)
'''
[[steps]]
subscribe = { qmgr = "QM2", name = "FAR", topic = "a/b/x" }
[[steps]]
subscribe = { qmgr = "QM3", name = "MID", topic = "a/b/x" }
[[steps]]
publish = { qmgr = "QM1", topic = "a/b/x" }
[[expect]]
deliveries = { QM3 = { MID = ["a/b/x"] }, QM2 = { FAR = [] } }
"""


def test_force_no_miss_knows_the_relay_rules():
    # 002 §Overlapping cluster support: "you cannot use this mechanism to route publications
    # and subscriptions from one cluster to another" — QM3 (in both) does not relay QM1's
    # CLUSTER1 publication to QM2 over CLUSTER2, so FAR (PROXYSUB(FORCE) 'a/b' at QM2) not
    # getting it is the rule, not a race; MID at QM3 gets it.
    from dataclasses import replace

    from properties.pubsub import force_no_miss, missed
    from spec.scenario import parse_scenario
    from spec.network import run_scenario
    scenario = parse_scenario(FORCE_OVERLAP, "force-overlap.toml")
    r = explore(MQNetwork(scenario, _check_properties(scenario)), workers=1)
    assert r.complete
    assert r.verdicts["EXPECT"].status is Status.HOLDS
    assert r.verdicts["PS-MISSED-BEFORE-PROXY"].status is Status.NEVER_REACHED
    assert r.verdicts["PS-FORCE-NO-MISS"].status is Status.HOLDS and not r.verdicts["PS-FORCE-NO-MISS"].vacuous
    # the property still sees a miss where a route exists: MID's delivery taken away
    final = run_scenario(scenario).final
    assert force_no_miss(None, final)
    qm3 = final.qmgr("QM3")
    robbed = replace(final, qmgrs=tuple(replace(q, pubsub=replace(q.pubsub, deliveries=())) if q is qm3 else q
                                        for q in final.qmgrs))
    assert [(r_.name, s.name) for _, _, r_, s in missed(robbed)] == [("QM3", "MID")]
    assert not force_no_miss(None, robbed)
