"""Hypothesis: random hierarchies (trees, and PARENT graphs with cycles) and random
subscription sets against a naive reference of DESIGN §3.3 written from the rules alone:
proxy subscriptions as the least fixpoint of "v sends its demand for t to u when v or a
neighbour other than u wants t", and publications following every path on which each hop
has a matching proxy subscription, stopped by fingerprints (002 §How loop detection
works). Acyclic ⇒ exactly one copy per eligible subscription; cyclic ⇒ one copy per
loop-free path (when everyone subscribes); propagation always terminates."""

from __future__ import annotations

from hypothesis import example, given, settings, strategies as st

from spec.scenario import parse_scenario
from spec.system import run_scenario
from spec.topics import topic_matches

NAMES = ["QA", "QB", "QC", "QD", "QE"]
SUB_TOPICS = ["a/b", "a/#", "+/b", "#", "a/c"]
PUB_TOPICS = ["a/b", "a/c", "x"]


@st.composite
def networks(draw, everyone_subscribes: bool = False):
    n = draw(st.integers(2, 5))
    names = NAMES[:n]
    parents = {q: draw(st.sampled_from([None] + [p for p in names if p != q])) for q in names}
    if everyone_subscribes:
        subs = {q: ["a/#"] for q in names}
    else:
        subs = {q: draw(st.lists(st.sampled_from(SUB_TOPICS), unique=True, max_size=2)) for q in names}
    origin = draw(st.sampled_from(names))
    topic = draw(st.sampled_from(PUB_TOPICS))
    return names, parents, subs, origin, topic


def scenario_text(names, parents, subs, origin, topic) -> str:
    lines = ['name = "random hierarchy"']
    for q in names:
        lines.append(f"[qmgrs.{q}]")
        if parents[q]:
            lines.append(f'mqsc = "ALTER QMGR PARENT({parents[q]})"')
    for q in names:
        for i, t in enumerate(subs[q]):
            lines.append("[[steps]]")
            lines.append(f'subscribe = {{ qmgr = "{q}", name = "S{i}", topic = "{t}" }}')
    lines.append("[[steps]]")
    lines.append(f'publish = {{ qmgr = "{origin}", topic = "{topic}" }}')
    return "\n".join(lines) + "\n"


def edges(names, parents) -> set[frozenset]:
    return {frozenset((q, p)) for q, p in parents.items() if p and p != q}


def neighbours(es, q):
    return sorted(x for e in es if q in e for x in e if x != q)


def reference(names, parents, subs, origin, topic) -> dict[tuple[str, str], int]:
    """Copies per (queue manager, subscription name), from the rules alone."""
    es = edges(names, parents)
    # demand[(v, u)] = proxy topics v has registered at u (least fixpoint)
    demand = {(v, u): set() for e in es for v in e for u in e if v != u}
    changed = True
    while changed:
        changed = False
        for (v, u), held in demand.items():
            want = set(subs[v])
            for w in neighbours(es, v):
                if w != u:
                    want |= demand[(w, v)]
            if want != held:
                demand[(v, u)] = want
                changed = True
    copies: dict[tuple[str, str], int] = {}

    def arrive(at: str, came_from: str | None, fingerprints: tuple[str, ...]):
        if came_from is not None and at in fingerprints:
            return  # loop detected: discarded
        for i, t in enumerate(subs[at]):
            if topic_matches(t, topic):
                copies[(at, f"S{i}")] = copies.get((at, f"S{i}"), 0) + 1
        for v in neighbours(es, at):
            if v != came_from and any(topic_matches(t, topic) for t in demand[(v, at)]):
                arrive(v, at, fingerprints + (at,))

    arrive(origin, None, ())
    return copies


def simple_paths(es, a, b, seen=()) -> int:
    if a == b:
        return 1
    return sum(simple_paths(es, n, b, seen + (a,)) for n in neighbours(es, a) if n not in seen and n != a)


def model_copies(text: str) -> tuple[dict[tuple[str, str], int], object]:
    report = run_scenario(parse_scenario(text, "random.toml"))
    out = {}
    for q in report.final.qmgrs:
        for d in q.pubsub.deliveries:
            out[(q.name, d.subscription)] = out.get((q.name, d.subscription), 0) + 1
    return out, report.final


def acyclic(names, parents) -> bool:
    es = edges(names, parents)
    parent = {q: q for q in names}

    def find(x):
        while parent[x] != x:
            x = parent[x]
        return x

    for e in es:
        a, b = sorted(e)
        if find(a) == find(b):
            return False
        parent[find(a)] = find(b)
    return True


RING = (["QA", "QB", "QC", "QD"], {"QA": "QB", "QB": "QC", "QC": "QD", "QD": "QA"},
        {q: ["a/#"] for q in ["QA", "QB", "QC", "QD"]}, "QA", "a/b")
RING_WITH_TAIL = (["QA", "QB", "QC", "QD", "QE"], {"QA": "QB", "QB": "QC", "QC": "QA", "QD": "QA", "QE": "QD"},
                  {q: ["a/#"] for q in ["QA", "QB", "QC", "QD", "QE"]}, "QE", "a/b")


@settings(max_examples=60, deadline=None)
@given(networks())
@example(RING)
@example(RING_WITH_TAIL)
def test_random_hierarchies_match_the_reference(net):
    got, final = model_copies(scenario_text(*net))
    assert got == reference(*net)
    assert final.in_flight() == 0 and not any(e.code == "NOT_SETTLED" for e in final.log)


@settings(max_examples=40, deadline=None)
@given(networks())
def test_acyclic_means_exactly_once_per_eligible_subscription(net):
    names, parents, subs, origin, topic = net
    if not acyclic(names, parents):
        return
    got, _ = model_copies(scenario_text(*net))
    es = edges(names, parents)
    for q in names:
        connected = simple_paths(es, origin, q) > 0
        for i, t in enumerate(subs[q]):
            expected = 1 if connected and topic_matches(t, topic) else 0
            assert got.get((q, f"S{i}"), 0) == expected


@settings(max_examples=40, deadline=None)
@given(networks(everyone_subscribes=True))
@example(RING)
@example(RING_WITH_TAIL)
def test_cyclic_gives_one_copy_per_loop_free_path(net):
    names, parents, subs, origin, topic = net
    got, final = model_copies(scenario_text(*net))
    es = edges(names, parents)
    for q in names:
        expected = simple_paths(es, origin, q) if topic_matches("a/#", topic) else 0
        assert got.get((q, "S0"), 0) == expected
    if any(e.code == "LOOP_DETECTED" for e in final.log):
        assert not acyclic(names, parents)


def test_the_ring_examples_loop():
    # a 4-ring: two loop-free paths to every other queue manager, and QA discards both returns
    got, final = model_copies(scenario_text(*RING))
    assert got == {("QA", "S0"): 1, ("QB", "S0"): 2, ("QC", "S0"): 2, ("QD", "S0"): 2}
    assert [e.qmgr for e in final.log if e.code == "LOOP_DETECTED"] == ["QA", "QA"]
