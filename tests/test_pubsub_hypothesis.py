"""Hypothesis: random hierarchies (trees, and PARENT graphs with cycles) and random
subscription sets against a naive reference of DESIGN §3.3 written from the rules alone:
proxy subscriptions as the least fixpoint of "v sends its demand for t to u when v or a
neighbour other than u wants t" (in the clustered reference, with the demand paths each
carries: none is offered back to a queue manager it went through), and publications following every path on which each hop
has a matching proxy subscription, stopped by fingerprints (002 §How loop detection
works). Acyclic ⇒ exactly one copy per eligible subscription; cyclic ⇒ one copy per
loop-free path (when everyone subscribes); propagation always terminates."""

from __future__ import annotations

from hypothesis import example, given, settings, strategies as st

from spec.scenario import parse_scenario
from spec.network import run_scenario
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
    return "\n".join(lines + steps_lines(names, subs, origin, topic)) + "\n"


def steps_lines(names, subs, origin, topic) -> list[str]:
    lines = []
    for q in names:
        for i, t in enumerate(subs[q]):
            lines.append("[[steps]]")
            lines.append(f'subscribe = {{ qmgr = "{q}", name = "S{i}", topic = "{t}" }}')
    lines.append("[[steps]]")
    lines.append(f'publish = {{ qmgr = "{origin}", topic = "{topic}" }}')
    return lines


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


# ---------------------------------------------------------------------------------------
# Clusters overlaid on the hierarchy: 0-2 publish/subscribe clusters (possibly
# overlapping, possibly sharing members with the hierarchy). C1's cluster topic is 'a',
# C2's is 'a/b' (002 §Overlapping cluster support, Figure 1's layout: a queue manager in
# both resolves 'a/b' to C2's topic and 'a/c' to C1's). The reference adds the seed's two
# relay rules to the hierarchy reference above:
#   one hop: what arrived over a cluster link never leaves over a cluster link (002
#     §Overlapping cluster support: "you cannot use this mechanism to route publications
#     and subscriptions from one cluster to another");
#   for a cluster topic of C, what came from a member of C is never relayed to another
#     member of C (002 §Topic spaces: "propagated by both mechanisms without delivering
#     duplicate publications").
# ---------------------------------------------------------------------------------------
CLUSTER_TOPICS = {"C1": ("a",), "C2": ("a", "b")}


@st.composite
def clustered_networks(draw):
    names, parents, subs, origin, topic = draw(networks())
    members = {}
    for c in draw(st.sampled_from([("C1",), ("C1", "C2")])):
        chosen = draw(st.lists(st.sampled_from(names), unique=True, min_size=2, max_size=len(names)))
        members[c] = sorted(chosen)
    topic = draw(st.sampled_from(["a/b", "a/c", "a/b/c", "x"]))
    return names, parents, subs, origin, topic, members


def full_repositories(members) -> dict[str, str]:
    out = {}
    for c in sorted(members):
        out[c] = next(q for q in members[c] if q not in out.values())
    return out


def clustered_text(names, parents, subs, origin, topic, members) -> str:
    frs = full_repositories(members)
    mqsc = {q: [f"ALTER QMGR PARENT({parents[q]})"] if parents[q] else [] for q in names}
    for c, ms in sorted(members.items()):
        fr = frs[c]
        for q in ms:
            mqsc[q].append(f"DEFINE CHANNEL(TO.{q}.{c}) CHLTYPE(CLUSRCVR) CONNAME('{q.lower()}.{c.lower()}(1414)') "
                           f"CLUSTER({c})")
            if q == fr:
                mqsc[q].append(f"ALTER QMGR REPOS({c})")
                mqsc[q].append(f"DEFINE TOPIC(T{c}) TOPICSTR('{'/'.join(CLUSTER_TOPICS[c])}') CLUSTER({c})")
            else:
                mqsc[q].append(f"DEFINE CHANNEL(TO.{fr}.{c}) CHLTYPE(CLUSSDR) "
                               f"CONNAME('{fr.lower()}.{c.lower()}(1414)') CLUSTER({c})")
    lines = ['name = "random hierarchy and clusters"']
    for q in names:
        lines.append(f"[qmgrs.{q}]")
        if mqsc[q]:
            lines.append("mqsc = '''\n" + "\n".join(mqsc[q]) + "\n'''")
    return "\n".join(lines + steps_lines(names, subs, origin, topic)) + "\n"


def cluster_of(members, q: str, t: str) -> str:
    """The cluster of the topic object ``t`` resolves to at ``q`` (002 §Wildcard rules:
    truncate at the first wildcard, then the nearest node with an object q knows)."""
    levels = []
    for level in t.split("/"):
        if level in ("#", "+"):
            break
        levels.append(level)
    for k in range(len(levels), 0, -1):
        for c, node in CLUSTER_TOPICS.items():
            if tuple(levels[:k]) == node and q in members.get(c, ()):
                return c
    return ""


def clustered_reference(names, parents, subs, origin, topic, members) -> dict[tuple[str, str], int]:
    es = edges(names, parents)
    links = {q: sorted({(n, "") for n in neighbours(es, q)}
                       | {(n, c) for c, ms in members.items() if q in ms for n in ms if n != q}) for q in names}

    def relay_ok(at: str, t: str, src: str | None, src_via: str | None, to: str, via: str) -> bool:
        if src is None:
            return True
        if src_via and via:
            return False  # one hop; no routing from one cluster into another
        c = cluster_of(members, at, t)
        return not (c and at in members[c] and src in members[c] and to in members[c])

    # held[(v, u)]: (topic, via, demand path) of what v has registered at u — a path vector
    # (docs/decisions.md pub/sub item 1): a path is offered to u only if it does not go
    # through u, extended with v; one proxy per topic per neighbour, over the first link
    # that carries some path
    paths = {(v, u): frozenset() for v in names for u in names if v != u}
    for _ in range(4 * len(names) + 4):
        new = {}
        for v in names:
            sources = [(t, None, None, ()) for t in subs[v]]
            sources += [(t, w, via, p) for w in names if w != v for t, via, p in paths[(w, v)]]
            for u in names:
                if u == v:
                    continue
                want, first = set(), {}
                for n, via in links[v]:
                    if n != u:
                        continue
                    for t, src, src_via, p in sources:
                        if src == u or u in p:
                            continue
                        if via and cluster_of(members, v, t) != via:
                            continue
                        if relay_ok(v, t, src, src_via, u, via):
                            want.add((t, first.setdefault(t, via), p + (v,)))
                new[(v, u)] = frozenset(want)
        if new == paths:
            break
        paths = new
    held = {k: frozenset((t, via) for t, via, _ in v) for k, v in paths.items()}
    copies: dict[tuple[str, str], int] = {}

    def arrive(at: str, came_from: str | None, came_via: str | None, fps: tuple[str, ...]):
        if came_from is not None and at in fps:
            return
        for i, t in enumerate(subs[at]):
            if topic_matches(t, topic):
                copies[(at, f"S{i}")] = copies.get((at, f"S{i}"), 0) + 1
        sent = set()
        for n, via, t in sorted((n, via, t) for n in names if n != at for t, via in held[(n, at)]):
            if n == came_from or n in sent or not topic_matches(t, topic):
                continue
            if not relay_ok(at, topic, came_from, came_via, n, via):
                continue
            sent.add(n)
            arrive(n, at, via, fps + (at,))

    arrive(origin, None, None, ())
    return copies


def _clustered_example(parents, subs, origin, topic, members):
    names = ["QA", "QB", "QC", "QD", "QE"][:len(parents)]
    return names, parents, subs, origin, topic, members


# 002 hierarchy Scenario 3 with a cluster topic (QA=QM1 parent of QB, QC; all in C1)
SCENARIO_3_CLUSTERED = _clustered_example({"QA": None, "QB": "QA", "QC": "QA"},
                                          {"QA": ["a/b"], "QB": [], "QC": ["a/b"]}, "QB", "a/b",
                                          {"C1": ["QA", "QB", "QC"]})
# 002 §Overlapping cluster support: QC in both clusters must not pass QA's 'a/b' to QD
OVERLAP = _clustered_example({"QA": None, "QB": None, "QC": None, "QD": None},
                             {"QA": [], "QB": [], "QC": ["a/#"], "QD": ["a/b"]}, "QA", "a/b",
                             {"C1": ["QA", "QB", "QC"], "C2": ["QC", "QD"]})


@settings(max_examples=30, deadline=None)
@given(clustered_networks())
@example(SCENARIO_3_CLUSTERED)
@example(OVERLAP)
def test_clusters_and_hierarchies_match_the_reference(net):
    from properties.pubsub import topology_is_acyclic

    got, final = model_copies(clustered_text(*net))
    assert got == clustered_reference(*net)
    assert final.in_flight() == 0 and not any(e.code == "NOT_SETTLED" for e in final.log)
    if topology_is_acyclic(final, net[4]):
        assert all(n == 1 for n in got.values())


def test_the_seed_cases_of_the_clustered_reference():
    assert clustered_reference(*SCENARIO_3_CLUSTERED) == {("QA", "S0"): 1, ("QC", "S0"): 1}
    assert clustered_reference(*OVERLAP) == {("QC", "S0"): 1}
    got, _ = model_copies(clustered_text(*OVERLAP))
    assert got == {("QC", "S0"): 1}
