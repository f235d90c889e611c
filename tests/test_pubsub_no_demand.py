"""The shortcut in spec.network.pubsub._ps_reconcile (issue #17): a queue manager with no
source of demand and nothing sent is not reconciled, because ``pubsub.reconcile`` would
send nothing. Checked against the full computation at every state of breadth-first
explorations of the bundled publish/subscribe examples (PROXYSUB(FORCE), cluster topics,
hierarchies, loops, republishing) and of a plain cluster's joining."""

from __future__ import annotations

from pathlib import Path

import pytest

from explored import first_states
from spec import pubsub
from spec.network import MQNetwork
from spec.network import pubsub as net_ps
from spec.network.topology import pubsub_links, pubsub_space
from spec.scenario import load_scenario, parse_scenario

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ["ps-proxysub-force.toml", "ps-sports-cluster.toml", "ps-hierarchy-loop.toml",
            "ps-republish-forward.toml", "ps-clusters-bridged.toml", "ps-retained-hierarchy.toml",
            "ps-hierarchy-loop-unsubscribe.toml", "fr-mesh-broken.toml", "cluster-force"]

# A cluster topic with PROXYSUB(FORCE) defined at the full repository only: the members
# learn it from a cluster topic record, with no subscription and no topic object of their own.
CLUSTER_FORCE = """
name = "a clustered PROXYSUB(FORCE) topic"
[qmgrs.FR]
mqsc = '''
ALTER QMGR REPOS(DEMO)
DEFINE CHANNEL(TO.FR) CHLTYPE(CLUSRCVR) CONNAME('fr(1414)') CLUSTER(DEMO)
DEFINE TOPIC(T) TOPICSTR('t') CLUSTER(DEMO) PROXYSUB(FORCE)
'''
[qmgrs.M1]
mqsc = '''
DEFINE CHANNEL(TO.M1) CHLTYPE(CLUSRCVR) CONNAME('m1(1414)') CLUSTER(DEMO)
DEFINE CHANNEL(TO.FR) CHLTYPE(CLUSSDR) CONNAME('fr(1414)') CLUSTER(DEMO)
'''
[qmgrs.M2]
mqsc = '''
DEFINE CHANNEL(TO.M2) CHLTYPE(CLUSRCVR) CONNAME('m2(1414)') CLUSTER(DEMO)
DEFINE CHANNEL(TO.FR) CHLTYPE(CLUSSDR) CONNAME('fr(1414)') CLUSTER(DEMO)
'''
"""


def model_of(example: str) -> MQNetwork:
    if example == "cluster-force":
        return MQNetwork(parse_scenario(CLUSTER_FORCE), (), explore_initial=True)
    return MQNetwork(load_scenario(ROOT / "examples" / example), (), explore_initial=example.startswith("fr-"))


def checked(example: str) -> tuple[int, int]:
    """(queue managers the shortcut skipped, queue managers it left to the full
    computation) over up to 600 states of ``example``; asserts the skipped ones agree."""
    model = model_of(example)
    skipped = computed = 0
    for s in first_states(model, 600):
        for q in s.qmgrs:
            if not q.running:
                continue
            if net_ps._no_demand(q):
                ps, sends = pubsub.reconcile(pubsub_space(q), q.pubsub, pubsub_links(s, q), q.name,
                                             lambda n: s.find(n) is not None)
                assert ps is q.pubsub and sends == (), (example, q.name)
                skipped += 1
            else:
                computed += 1
    return skipped, computed


@pytest.mark.parametrize("example", EXAMPLES)
def test_no_demand_means_reconcile_sends_nothing(example):
    checked(example)


def test_both_ways_are_exercised():
    skipped, computed = checked("ps-hierarchy-loop.toml")     # subscriptions at some, none at others
    assert skipped > 0 and computed > 0
    skipped, computed = checked("fr-mesh-broken.toml")         # a plain cluster: no publish/subscribe
    assert skipped > 0 and computed == 0
    skipped, computed = checked("cluster-force")               # demand from a record alone
    assert skipped > 0 and computed > 0


def test_force_and_cluster_topics_are_demand_even_without_subscriptions():
    model = MQNetwork(load_scenario(ROOT / "examples" / "ps-proxysub-force.toml"), ())
    (s,) = model.init_states()
    forced = [q.name for q in s.qmgrs if any(t.proxysub == "FORCE" for t in q.defs.topics)]
    assert forced and not any(net_ps._no_demand(s.qmgr(n)) for n in forced)
