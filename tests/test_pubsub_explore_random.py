"""Hypothesis over whole explorations: random hierarchies (PARENT graphs, cycles allowed),
optionally overlaid with one publish/subscribe cluster, random subscriptions and one
publication; every interleaving is explored and every PS- safety property, proxy
convergence and termination must hold (the races and loops are allowed to duplicate or
miss, never to break the rules)."""

from __future__ import annotations

from hypothesis import given, settings, strategies as st

from checker.explore import explore
from checker.model import Status
from properties.pubsub import PROPERTIES
from spec.scenario import parse_scenario
from spec.network import MQNetwork

NAMES = ["QA", "QB", "QC"]
CHECKED = ["PS-SCOPE", "PS-WILDCARD-BLOCK", "PS-ONE-HOP-CLUSTER", "PS-PROXY-AGGREGATION", "PS-PUB-AGGREGATION",
           "PS-PROXY-CONVERGENCE", "PS-EXACTLY-ONCE-ACYCLIC", "PS-LOOP-DUPLICATES", "PS-LOCAL-DELIVERY",
           "PS-TERMINATION", "PS-FORCE-NO-MISS"]


@st.composite
def configurations(draw):
    n = draw(st.integers(2, 3))
    names = NAMES[:n]
    parents = {q: draw(st.sampled_from([None] + [p for p in names if p != q])) for q in names}
    # QA is the full repository of cluster C and hosts the cluster topic 'a'; others may join
    members = [q for q in names[1:] if draw(st.booleans())]
    subs = {q: draw(st.lists(st.sampled_from(["a/b", "a/#", "#", "x"]), unique=True, max_size=1)) for q in names}
    origin = draw(st.sampled_from(names))
    topic = draw(st.sampled_from(["a/b", "x"]))
    return names, parents, members, subs, origin, topic


def scenario_text(names, parents, members, subs, origin, topic) -> str:
    lines = ['name = "random topology"']
    for q in names:
        mqsc = []
        if parents[q]:
            mqsc.append(f"ALTER QMGR PARENT({parents[q]})")
        if q == "QA" and members:
            mqsc += ["ALTER QMGR REPOS(C)",
                     "DEFINE CHANNEL(TO.QA) CHLTYPE(CLUSRCVR) CONNAME('qa(1414)') CLUSTER(C)",
                     "DEFINE TOPIC(A) TOPICSTR('a') CLUSTER(C)"]
        if q in members:
            mqsc += [f"DEFINE CHANNEL(TO.{q}) CHLTYPE(CLUSRCVR) CONNAME('{q.lower()}(1414)') CLUSTER(C)",
                     "DEFINE CHANNEL(TO.QA) CHLTYPE(CLUSSDR) CONNAME('qa(1414)') CLUSTER(C)"]
        lines.append(f"[qmgrs.{q}]")
        if mqsc:
            lines.append("mqsc = '''\n" + "\n".join(mqsc) + "\n'''")
    for q in names:
        for i, t in enumerate(subs[q]):
            lines += ["[[steps]]", f'subscribe = {{ qmgr = "{q}", name = "S{i}", topic = "{t}" }}']
    lines += ["[[steps]]", f'publish = {{ qmgr = "{origin}", topic = "{topic}" }}']
    return "\n".join(lines) + "\n"


@settings(max_examples=30, deadline=None)
@given(configurations())
def test_every_interleaving_keeps_the_rules(config):
    model = MQNetwork(parse_scenario(scenario_text(*config), "random.toml"), PROPERTIES)
    result = explore(model, max_states=5000, property_ids=CHECKED, workers=1)
    for pid in CHECKED:
        assert result.verdicts[pid].status is not Status.VIOLATED, (pid, result.verdicts[pid].trace)
