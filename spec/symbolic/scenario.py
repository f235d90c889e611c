"""A user's settled configuration with the topic strings and subscriptions left open, in Z3.

``mqcheck prove SCENARIO`` takes the queue managers' topic spaces (local topic objects and
the cluster topic records they hold) and publish/subscribe links as the scenario leaves
them once settled (``spec.network.run_scenario``) and quantifies over what the scenario
does not fix: every publication topic string up to a level bound — over the tree's own
level names, the empty level and one fresh name standing for every other name — every
topic-scheme subscription, the scope options, and whether other subscriptions at the
subscriber pull publications over. Each configuration fact (a topic object, a record, a
link) is a named fact, so a proof's unsat core names the definitions it rests on.

Routes (:func:`route`): local when P is S; one hop when S is a direct neighbour of P
(over the hierarchy or a publish/subscribe cluster); otherwise the unique path through the
publish/subscribe hierarchy (PARENT links), P = x0, x1, ..., xk = S, each intermediate
queue manager relaying the proxy subscriptions towards P and the publication towards S
(002 §Topic spaces: "Proxy subscriptions are propagated between all queue managers that are
connected together by parent-child relationships in a queue manager hierarchy ... As long as
there is a connected path between the queue managers, it does not matter how the queue
managers are connected"; §Combine the topic spaces of multiple clusters: "The hierarchical
connections propagate subscriptions and publications between the connected queue
managers"). Its rules are spec/symbolic/reach.py's ``rules`` for a multi-hop
problem. Not covered (the table says why): a hierarchy with a loop (more than one route), a
route that needs a cluster hop as well as hierarchy hops, and a hierarchy route whose
intermediate queue manager shares a cluster with both of its path neighbours (the explicit
model does not relay between two members of a cluster: ``spec.pubsub._relay_allowed``) —
docs/decisions.md, session 33. Character-scheme subscriptions are left out (their proxy
subscriptions are topic-scheme; see spec/symbolic/reach.py).
"""

from __future__ import annotations

from dataclasses import dataclass

import z3

from spec.network import NetworkState, pubsub_links, pubsub_space
from spec.symbolic.base import ticking
from spec.symbolic.reach import ReachProblem, Sub
from spec.symbolic.topic_tree import Node, SymTree
from spec.symbolic.topics import sym_subscription, sym_topic
from spec.topic_tree import node_of

ATTRS = ("pubscope", "subscope", "cluster", "wildcard")


@dataclass(frozen=True)
class TopicDef:
    """One topic object or cluster topic record at a node, as the queue manager holds it."""

    name: str
    topicstr: str
    attrs: tuple[tuple[str, str], ...]

    def attr(self, key: str) -> str:
        return dict(self.attrs)[key]

    def describe(self) -> str:
        shown = [f"{k.upper()}({v})" for k, v in self.attrs if v and v not in ("ASPARENT",)
                 and not (k == "wildcard" and v == "PASSTHRU")]
        return f"TOPIC({self.name}) TOPICSTR('{self.topicstr}')" + (" " + " ".join(shown) if shown else "")


@dataclass(frozen=True)
class QmgrTopics:
    name: str
    local: tuple[tuple[Node, TopicDef], ...]
    records: tuple[tuple[Node, TopicDef], ...]
    links: tuple[tuple[str, str], ...]  # (neighbour, via): via "" = hierarchy, else the cluster
    psmode_disabled: bool = False  # PSMODE(DISABLED): no MQSUB or MQPUT to a topic (spec.network.pubsub)


@dataclass(frozen=True)
class Configuration:
    qmgrs: tuple[QmgrTopics, ...]

    def qmgr(self, name: str) -> QmgrTopics:
        return next(q for q in self.qmgrs if q.name == name)

    def nodes(self) -> tuple[Node, ...]:
        found = {n for q in self.qmgrs for n, _ in (*q.local, *q.records)}
        return tuple(sorted(found - {()}, key=lambda n: (len(n), n)))

    def level_names(self) -> tuple[str, ...]:
        return tuple(sorted({level for n in self.nodes() for level in n} - {""}))

    def clusters(self) -> tuple[str, ...]:
        found = {d.attr("cluster") for q in self.qmgrs for _, d in (*q.local, *q.records)}
        found |= {via for q in self.qmgrs for _, via in q.links if via}
        return tuple(sorted(found - {""}))

    def depth(self) -> int:
        return max((len(n) for n in self.nodes()), default=0)


def _def(obj) -> TopicDef:
    return TopicDef(obj.name, obj.topicstr, tuple((a, (getattr(obj, a) or "").strip()) for a in ATTRS))


def configuration(state: NetworkState) -> Configuration:
    """The settled configuration: each queue manager's topic space (the winner at each
    node: 002 §Overlapping topics) and its publish/subscribe links."""
    out = []
    for q in state.qmgrs:
        space = pubsub_space(q)
        local = {node_of(o.topicstr): _def(o) for o in space.local}
        records = {}
        for r in space.cluster:
            node = node_of(r.topicstr)
            if node not in local and space.object_at(node) is r:
                records[node] = _def(r)
        links = tuple(sorted((link.neighbour, link.via) for link in pubsub_links(state, q)))
        out.append(QmgrTopics(q.name, tuple(sorted(local.items())), tuple(sorted(records.items())), links,
                              q.defs.psmode == "DISABLED"))
    return Configuration(tuple(sorted(out, key=lambda q: q.name)))


def fresh_name(names: tuple[str, ...]) -> str:
    """A level name not in the tree: it stands for every name the tree does not mention."""
    i = 0
    while True:
        candidate = "X" if i == 0 else f"X{i}"
        if candidate not in names:
            return candidate
        i += 1


def alphabet(config: Configuration, extra: tuple[str, ...] = ()) -> tuple[str, ...]:
    """The level names a topic may use: the tree's, ``extra`` ones (a claim's topic
    pattern), the empty level, and one fresh name."""
    names = tuple(sorted(set(config.level_names()) | set(extra) - {"", "#", "+"}))
    return names + ("", fresh_name(names))


def _tree(config: Configuration, q: QmgrTopics, names: tuple[str, ...]) -> tuple[SymTree, dict[str, z3.BoolRef]]:
    """A symbolic tree pinned to ``q``'s topic space; one named fact per object."""
    tree = SymTree(q.name, names, config.depth(), clusters=config.clusters(), nodes=config.nodes())
    facts: dict[str, z3.BoolRef] = {}
    local, records = dict(q.local), dict(q.records)
    empty = []
    for node, v in ticking(tree.nodes.items()):
        for kind, present, found in (("local", v.local, local), ("record", v.record, records)):
            d = found.get(node)
            if d is None:
                empty.append(z3.Not(present))
                continue
            values = {a: d.attr(a) or ("" if a == "cluster" else "ASPARENT") for a in ATTRS}
            if values["wildcard"] not in ("PASSTHRU", "BLOCK"):
                values["wildcard"] = "PASSTHRU"
            if node == ():
                label = d.describe().replace("TOPIC(SYSTEM.BASE.TOPIC) TOPICSTR('')", "SYSTEM.BASE.TOPIC")
            elif kind == "local":
                label = f"DEFINE {d.describe()}"
            else:
                label = f"holds the cluster topic {d.describe()}"
            facts[f"{q.name}: {label}"] = z3.And(tree.pin(node, kind, values))
    facts[f"{q.name}: no other topic objects or cluster topic records"] = z3.And(empty) if empty else z3.BoolVal(True)
    return tree, facts


@dataclass(frozen=True)
class Route:
    """How a publication at ``hops[0]`` may reach ``hops[-1]``: ``(P,)`` local, ``(P, S)``
    one hop, ``(P, x1, ..., S)`` through the hierarchy; ``()`` with ``reason`` when the pair
    is not covered."""

    hops: tuple[str, ...]
    reason: str = ""

    @property
    def covered(self) -> bool:
        return bool(self.hops)

    @property
    def via(self) -> tuple[str, ...]:
        """The intermediate queue managers (none for a local or one-hop route)."""
        return self.hops[1:-1]

    def describe(self) -> str:
        return f"{self.hops[0]} -> {self.hops[-1]} via {', '.join(self.via)}"


def _hierarchy(config: Configuration) -> dict[str, set[str]]:
    """The hierarchy links (PARENT/child, ``via`` ""), both ways."""
    out: dict[str, set[str]] = {q.name: set() for q in config.qmgrs}
    for q in config.qmgrs:
        for neighbour, via in q.links:
            if via == "" and neighbour in out:
                out[q.name].add(neighbour)
                out[neighbour].add(q.name)
    return out


def _reachable(adjacent: dict[str, set[str]], start: str) -> dict[str, str | None]:
    """Breadth-first from ``start``: each queue manager reached -> the one it was reached from
    (neighbours in name order, so the path found does not depend on set order)."""
    came: dict[str, str | None] = {start: None}
    frontier = [start]
    while frontier:
        nxt = []
        for a in frontier:
            for b in sorted(adjacent[a]):
                if b not in came:
                    came[b] = a
                    nxt.append(b)
        frontier = nxt
    return came


def route(config: Configuration, publisher: str, subscriber: str) -> Route:
    """The route ``prove`` covers from ``publisher`` to ``subscriber``, or why none is
    (docs/decisions.md, session 33)."""
    off = [n for n in dict.fromkeys((publisher, subscriber)) if config.qmgr(n).psmode_disabled]
    if off:
        return Route((), f"{' and '.join(off)} {'has' if len(off) == 1 else 'have'} PSMODE(DISABLED): applications "
                         "there can neither publish nor subscribe (MQRC_PUBSUB_INHIBITED)")
    if publisher == subscriber:
        return Route((publisher,))
    p = config.qmgr(publisher)
    direct = {via for n, via in p.links if n == subscriber}
    tree = _hierarchy(config)
    came = _reachable(tree, publisher)
    if direct:
        if "" not in direct and subscriber in came:
            # a cluster link, and a multi-hop hierarchy route besides: the two together
            # are not covered (which carries what depends on spec.pubsub._relay_allowed)
            return Route((), f"publish/subscribe neighbours in cluster {', '.join(sorted(direct))} and joined by "
                             "the hierarchy too: a pair with both routes is not covered")
        return Route((publisher, subscriber))
    if subscriber not in came:
        everything = {q.name: {n for n, _ in q.links} for q in config.qmgrs}
        for q in config.qmgrs:
            for n, _ in q.links:
                everything.setdefault(n, set()).add(q.name)
        if subscriber in _reachable(everything, publisher):
            return Route((), "connected only through both hierarchy and cluster links: a route mixing them is "
                             "not covered")
        return Route((), "not publish/subscribe neighbours (no hierarchy or publish/subscribe cluster joins them)")
    component = set(came)
    edges = sum(len(tree[a] & component) for a in component) // 2
    if edges != len(component) - 1:
        return Route((), "joined by a hierarchy with a loop (more than one route): not covered")
    hops = [subscriber]
    while hops[-1] != publisher:
        hops.append(came[hops[-1]])
    hops.reverse()
    for before, middle, after in zip(hops, hops[1:], hops[2:]):
        links = set(config.qmgr(middle).links)
        shared = sorted(c for n, c in links if n == before and c and (after, c) in links)
        if shared:
            return Route((), f"the hierarchy route via {', '.join(hops[1:-1])} passes {middle}, which shares "
                             f"cluster {shared[0]} with {before} and {after}: not covered")
    return Route(tuple(hops))


def reach_problem(config: Configuration, publisher: str, subscriber: str, bound: int,
                  extra_names: tuple[str, ...] = ()) -> tuple[ReachProblem, dict[str, z3.BoolRef]]:
    """The reach encoding for a publication at ``publisher`` and subscriptions at
    ``subscriber``, with the configuration's facts about both (named) and, for a multi-hop
    route, about the queue managers between them."""
    names = alphabet(config, extra_names)
    path = route(config, publisher, subscriber)
    assert path.covered, path.reason
    p, s = config.qmgr(publisher), config.qmgr(subscriber)
    pub_tree, facts = _tree(config, p, names)
    same = publisher == subscriber
    sub_tree = pub_tree
    if not same:
        sub_tree, more = _tree(config, s, names)
        facts.update(more)
    mids = []
    for name in path.via:
        tree, more = _tree(config, config.qmgr(name), names)
        mids.append(tree)
        facts.update(more)
    links: dict[str, z3.BoolRef] = {}
    if path.via:
        hop_links = []
        for a, b in zip(path.hops, path.hops[1:]):
            hop_links.append(z3.Bool(f"link.{a}.{b}.hierarchy"))
            facts[f"{a} and {b} are publish/subscribe neighbours (hierarchy)"] = hop_links[-1]
        links[""] = z3.And(hop_links)
    for neighbour, via in [] if path.via else p.links:
        if neighbour == subscriber:
            kind = "hierarchy" if via == "" else f"cluster {via}"
            links[via] = z3.Bool(f"link.{publisher}.{subscriber}.{via or 'hierarchy'}")
            facts[f"{publisher} and {subscriber} are publish/subscribe neighbours ({kind})"] = links[via]
    topic = sym_topic("topic", names, bound)
    subs = [Sub(sym_subscription(f"s{i + 1}", names, bound), z3.Bool(f"s{i + 1}.present"),
                z3.Bool(f"s{i + 1}.scope_qmgr")) for i in range(2)]
    rp = ReachProblem(names, None, pub_tree, sub_tree, topic, z3.Bool("pmo_scope_qmgr"), subs, links, same,
                      tuple(mids), path.hops)
    return rp, facts


def topic_in_row(rp: ReachProblem, config: Configuration, row: Node) -> z3.BoolRef:
    """The topic's closest node (among every queue manager's topic objects) is ``row``."""
    tree = rp.pub_tree
    deeper = [n for n in config.nodes() if len(n) > len(row) and n[: len(row)] == row]
    inside = tree.under(rp.topic, row) if row else z3.BoolVal(True)
    return z3.And(inside, *[z3.Not(tree.under(rp.topic, n)) for n in ticking(deeper)])


def topic_under_pattern(rp: ReachProblem, pattern: str) -> z3.BoolRef:
    """The publication's topic matches the topic-scheme ``pattern`` (a ``[[prove]]`` claim's
    ``topic``); levels outside the alphabet cannot occur, so such a pattern matches only
    what its other levels allow."""
    from spec.symbolic.topics import matches
    levels = pattern.split("/")
    names = rp.topic.alphabet
    assert all(level in names or level in ("#", "+") for level in levels), pattern
    sub = sym_subscription(f"pattern.{pattern}", names, len(levels))
    return z3.And(*sub.fix(pattern), matches(sub, rp.topic))
