"""Publish/subscribe properties (DESIGN §4, PS-…): what distributed publish/subscribe promises.

Each property reads ``spec.network.NetworkState`` and cites its seed section; each
``always``/``at_quiescence`` property names a ``sometimes`` witness (STYLE habit 4).
"Settled" means nothing in flight and every queue manager running.

The routing graph used by PS-EXACTLY-ONCE-ACYCLIC and PS-LOOP-DUPLICATES for a publication
on topic t has the queue managers as nodes, hierarchy links as edges, and one extra node
per publish/subscribe cluster joined to each member (a cluster is one hop, so a
three-member cluster is not a cycle). A hierarchy link between two members of cluster C
is left out when t is a cluster topic of C at both ends: the two mechanisms carry the same
subscriptions "without delivering duplicate publications" (002 §Topic spaces). A loop-free
path is a sequence of linked queue managers without repetition and without two
consecutive cluster hops (the one-hop rule; no routing from one cluster into another:
002 §Overlapping cluster support); fingerprints let a publication follow exactly these
paths (002 §How loop detection works).

Abstracted: publications delivered from the retained store and retained answers to proxy
subscriptions (several may legitimately arrive — 002 §Retained publications in a
distributed publish/subscribe topology) are left out of the counting properties
(PS-PUB-AGGREGATION, PS-EXACTLY-ONCE-ACYCLIC, PS-LOOP-DUPLICATES); PS-RETAINED-NEW-ONLY
checks them instead.
"""

from __future__ import annotations

from collections import Counter

from checker.model import Property
from properties import in_flight, once_per_part, scenario_steps, stable_under
from spec import pubsub
from spec import scenario as sc
from spec.network import NetworkState, pubsub_links, pubsub_space
from spec.topic_tree import is_blocked, node_of
from spec.topics import compile_subscription
from spec.values import replace
from spec.network.views import READS_QMGRS, STABLE_LANDING


def settled(state: NetworkState) -> bool:
    return state.in_flight() == 0 and all(q.running for q in state.qmgrs)


def _entries(state: NetworkState) -> dict[tuple[str, int], pubsub.PublishedEntry]:
    return {(q.name, e.serial): e for q in state.qmgrs for e in q.pubsub.published_log}


# (channel, publication) in flight
_publication_msgs = in_flight(pubsub.PublicationMsg)


def _live_copies(state: NetworkState) -> Counter:
    """(qmgr, subscription, origin, serial, topic) -> copies delivered, retained and
    retained-store deliveries left out."""
    entries = _entries(state)
    out: Counter = Counter()
    for q in state.qmgrs:
        for d in q.pubsub.deliveries:
            e = entries.get((d.origin, d.serial))
            if d.retained or e is None or e.retain:
                continue
            out[(q.name, d.subscription, d.origin, d.serial, d.topic)] += 1
    return out


# --- the routing graph --------------------------------------------------------------------
def _cluster_of(state: NetworkState, name: str, topic: str) -> str:
    q = state.find(name)
    if q is None:
        return ""
    return (pubsub_space(q).effective_for_subscription(topic, "topic", "cluster") or "").strip()


def _links(state: NetworkState, topic: str | None = None) -> dict[str, set[tuple[str, str]]]:
    """Symmetric links: qmgr -> {(neighbour, via)}. With ``topic``, a hierarchy link between
    two members of the cluster that ``topic`` is a cluster topic of (at both ends) is left
    out (002 §Topic spaces: both mechanisms, no duplicates)."""
    all_links = {q.name: pubsub_links(state, q) for q in state.qmgrs}
    members = {(n, link.via) for n, ls in all_links.items() for link in ls if link.via}
    members |= {(link.neighbour, link.via) for ls in all_links.values() for link in ls if link.via}
    out: dict[str, set[tuple[str, str]]] = {q.name: set() for q in state.qmgrs}
    for name, links in all_links.items():
        for link in links:
            if topic is not None and not link.via:
                c = _cluster_of(state, name, topic)
                if c and c == _cluster_of(state, link.neighbour, topic) and {(name, c), (link.neighbour, c)} <= members:
                    continue
            out[name].add((link.neighbour, link.via))
            out.setdefault(link.neighbour, set()).add((name, link.via))
    return out


def topology_is_acyclic(state: NetworkState, topic: str | None = None) -> bool:
    """Is the routing graph (clusters as hub nodes) for a publication on ``topic`` a forest?"""
    edges = set()
    for q, links in _links(state, topic).items():
        for n, via in links:
            edges.add(tuple(sorted((q, n))) if not via else tuple(sorted((q, "cluster:" + via))))
    nodes = {x for e in edges for x in e}
    parent = {x: x for x in nodes}

    def find(x):
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for a, b in edges:
        ra, rb = find(a), find(b)
        if ra == rb:
            return False
        parent[ra] = rb
    return True


def loop_free_paths(state: NetworkState, origin: str, target: str, topic: str | None = None) -> int:
    """Paths origin -> target over the links for ``topic``, no queue manager twice, no two
    consecutive cluster hops."""
    if origin == target:
        return 1
    links = _links(state, topic)

    def walk(at: str, came_via: str | None, seen: frozenset) -> int:
        if at == target:
            return 1
        total = 0
        for n, via in sorted(links.get(at, ())):
            if n in seen or (via and came_via):
                continue
            total += walk(n, via, seen | {n})
        return total

    return walk(origin, None, frozenset({origin}))


# --- PS-LOCAL-DELIVERY ----------------------------------------------------------------------
def local_delivery(model, state: NetworkState) -> bool:
    # 002 §Publication scope: "The publication is delivered to local subscribers" whatever
    # the scope; each matching eligible subscription that existed at the time gets it once
    if not settled(state):
        return True
    for q in state.qmgrs:
        space = pubsub_space(q)
        got = {(d.subscription, d.serial) for d in q.pubsub.deliveries if d.origin == q.name}
        for e in q.pubsub.published_log:
            then = pubsub.LocalPubSub(subscriptions=tuple(s for s in q.pubsub.subscriptions if s.order < e.next_order))
            for sub in pubsub.recipients(space, then, e.topic):
                if (sub.name, e.serial) not in got:
                    return False
    return True


def local_delivered(model, state: NetworkState) -> bool:
    return settled(state) and any(d.origin == q.name for q in state.qmgrs for d in q.pubsub.deliveries)


# --- PS-SCOPE -------------------------------------------------------------------------------
def scope_respected(model, state: NetworkState) -> bool:
    # 002 §Combining publication and subscription scopes: "If the publisher and subscriber
    # are connected to different queue managers, both settings must be ALL" — judged as
    # they were when the publication was made (``forwardable``) and put (``Delivery.scope``)
    entries = _entries(state)
    for q in state.qmgrs:
        for d in q.pubsub.deliveries:
            if d.origin == q.name:
                continue
            e = entries.get((d.origin, d.serial))
            if e is not None and not e.forwardable:
                return False
            if d.scope != pubsub.SCOPE_ALL:
                return False
    return True


def remote_delivery(model, state: NetworkState) -> bool:
    return any(d.origin != q.name for q in state.qmgrs for d in q.pubsub.deliveries)


# --- PS-SCOPE-OPTION ------------------------------------------------------------------------
def _optioned(model, state: NetworkState):
    """(queue manager, subscription, option) for each subscription a subscribe step made
    with an MQSO_SCOPE_ALL or MQSO_SCOPE_QMGR option (``SubscribeStep.scope``)."""
    steps = scenario_steps(model)
    for q in state.qmgrs:
        for sub in q.pubsub.subscriptions:
            step = steps[sub.created] if 0 <= sub.created < len(steps) else None
            if (isinstance(step, sc.SubscribeStep) and step.qmgr == q.name and step.name == sub.name
                    and step.scope in ("ALL", "QMGR")):
                yield q, sub, step.scope


def scope_option_wins(model, state: NetworkState) -> bool:
    # 002 §Subscription scope: "Subscribers can override the SUBSCOPE setting by specifying
    # either the MQSO_SCOPE_QMGR or MQSO_SCOPE_ALL subscription option when creating a
    # subscription" — whatever SUBSCOPE the topic object it resolves to has
    return all(pubsub.effective_scope(pubsub_space(q), sub) == option for q, sub, option in _optioned(model, state))


def scope_option_overrides(model, state: NetworkState) -> bool:
    return any(pubsub_space(q).effective_for_subscription(sub.topic, sub.scheme, "subscope") != option
               for q, sub, option in _optioned(model, state))


# --- PS-PSCLUS-REFUSED ----------------------------------------------------------------------
def psclus_refused(model, state: NetworkState) -> bool:
    # 002 §Inhibiting clustered publish/subscribe in a cluster: "No clustered topic objects
    # can exist in any cluster of which this queue manager is a member when modifying from
    # ENABLED to DISABLED. Any such topics (even remotely defined ones) must be deleted
    # before disabling this function" (``QmgrState.psclus_asked``: what it knew when asked)
    return not any(q.defs.psclus == "DISABLED" and q.psclus_asked for q in state.qmgrs)


def psclus_asked_with_topics(model, state: NetworkState) -> bool:
    return any(q.psclus_asked for q in state.qmgrs)


# --- PS-WILDCARD-BLOCK ----------------------------------------------------------------------
def wildcard_block(model, state: NetworkState) -> bool:
    # 002 §Controlling wildcard usage with the WILDCARD property: judged against the
    # subscription's blocking nodes when the publication was put (``Delivery.blocking``)
    return not any(is_blocked(d.blocking, d.topic) for q in state.qmgrs for d in q.pubsub.deliveries)


def block_matters(model, state: NetworkState) -> bool:
    for q in state.qmgrs:
        for d in q.pubsub.deliveries:
            for s in q.pubsub.subscriptions:
                if (s.blocking and is_blocked(s.blocking, d.topic)
                        and compile_subscription(s.topic, s.scheme).matches(d.topic)):
                    return True
    return False


# --- PS-ONE-HOP-CLUSTER ---------------------------------------------------------------------
def one_hop_cluster(model, state: NetworkState) -> bool:
    # 002 §Overlapping cluster support: publications cannot be routed on through a cluster;
    # DESIGN §3.3: never relayed to members of the cluster it came from
    # and §Overlapping cluster support: nor routed from one cluster into another
    return not any(m.via and m.prev_via for _, m in _publication_msgs(state))


def cluster_forward(model, state: NetworkState) -> bool:
    return any(m.via for _, m in _publication_msgs(state))


# --- PS-PROXY-AGGREGATION / PS-PUB-AGGREGATION ----------------------------------------------
def proxy_aggregation(model, state: NetworkState) -> bool:
    # 002 §Proxy subscription aggregation and publication aggregation
    for q in state.qmgrs:
        keys = [(n, t) for n, _, t in q.pubsub.proxies]
        if len(keys) != len(set(keys)):
            return False
    return True


def proxy_held(model, state: NetworkState) -> bool:
    return any(q.pubsub.proxies for q in state.qmgrs)


def pub_aggregation(model, state: NetworkState) -> bool:
    # 002 §Proxy subscription aggregation and publication aggregation: one copy of a
    # publication per neighbour, however many of its proxy subscriptions match. Retained
    # answers are left out: each new proxy subscription gets its own (002 §Retained
    # publications in a distributed publish/subscribe topology: "As multiple proxy
    # subscriptions are distributed, multiple retained publications might be received")
    if not _publication_msgs(state):
        return True
    return all(_one_copy_each(ch.messages) for ch in state.channels if ch.messages)


@once_per_part
def _one_copy_each(messages: tuple) -> bool:
    seen = [(m.origin, m.serial, m.rfp) for m in _publication_msgs.of_kind(messages) if not m.answers]
    return len(seen) == len(set(seen))


def pub_forwarded(model, state: NetworkState) -> bool:
    return any(True for _ in _publication_msgs(state))


# --- PS-PROXY-CONVERGENCE -------------------------------------------------------------------
def required_proxies(model, state: NetworkState) -> dict[str, tuple]:
    """The proxy subscriptions each queue manager should hold, with the demand paths each
    carries, computed from scratch as the least fixpoint of "send t to N, with the paths not
    through N, while demand for t from sources other than N exists" (002 §How loop
    detection works; ``pubsub.desired_proxy_paths``). Paths are simple, so it is reached."""
    from spec.network import NO_MUTATIONS

    mut = getattr(model, "mutations", NO_MUTATIONS)
    held: dict[str, tuple] = {q.name: () for q in state.qmgrs}
    running = [q for q in state.qmgrs if q.running]
    for _ in range(4 * len(state.qmgrs) + 4):
        nxt: dict[str, list] = {q.name: [] for q in state.qmgrs}
        for q in running:
            for (n, v, t), paths in pubsub.desired_proxy_paths(
                    pubsub_space(q), q.pubsub, pubsub_links(state, q), q.name, held=held[q.name],
                    aggregate=not mut.no_proxy_aggregation, relay_within_cluster=mut.relay_within_cluster):
                kept = tuple(p for p in paths if n not in p)  # the receiver drops paths through itself
                if n in nxt and kept:
                    nxt[n].append(((q.name, v, t), kept))
        new = {k: tuple(sorted(v)) for k, v in nxt.items()}
        if new == held:
            return held
        held = new
    return held


def proxy_convergence(model, state: NetworkState) -> bool:
    # 002 §How does distributed publish/subscribe work?: proxy subscriptions follow the
    # subscriptions; at quiescence what is held (with its demand paths) is what current
    # subscriptions require
    if not settled(state):
        return True
    return required_proxies(model, state) == {q.name: q.pubsub.proxy_paths for q in state.qmgrs}


def proxies_settled(model, state: NetworkState) -> bool:
    return settled(state) and proxy_held(model, state)


# --- PS-EXACTLY-ONCE-ACYCLIC / PS-LOOP-DUPLICATES -------------------------------------------
def exactly_once_acyclic(model, state: NetworkState) -> bool:
    # 002 §How loop detection works: without a loop, no subscription gets a copy twice
    # 002 §Topic spaces: a member of a cluster and a hierarchy, no duplicates either
    acyclic: dict[str, bool] = {}
    for (_, _, _, _, topic), n in _live_copies(state).items():
        if n > 1:
            if topic not in acyclic:
                acyclic[topic] = topology_is_acyclic(state, topic)
            if acyclic[topic]:
                return False
    return True


def loop_duplicates_bounded(model, state: NetworkState) -> bool:
    # 002 §How loop detection works: "publications are propagated in both directions around
    # the loop" — at most one copy per loop-free path, then the fingerprints stop it
    for (qname, _, origin, _, topic), n in _live_copies(state).items():
        if n > 1 and n > loop_free_paths(state, origin, qname, topic):
            return False
    return True


def duplicates_delivered(model, state: NetworkState) -> bool:
    return any(n > 1 for n in _live_copies(state).values())


# --- PS-REPUBLISH-LOOP (evidence for PS-TERMINATION) -----------------------------------------
def republish_loop(state: NetworkState) -> tuple[str, str] | None:
    """(queue manager, republisher) of a republication whose lineage already passed that
    republisher: the republishing loop has gone round once and started again. With MQACTP_NEW
    each round starts a new fingerprint chain, so nothing in the configuration stops the
    next round (002 §Loop detection fingerprint format); the trace to such a state is the
    evidence that propagation does not end, where a bounded exploration cannot prove it."""
    for q in state.qmgrs:
        for e in q.pubsub.published_log:
            if e.lineage and e.lineage[-1] in e.lineage[:-1]:
                return q.name, e.lineage[-1]
    return None


def republish_loop_repeats(model, state: NetworkState) -> bool:
    return republish_loop(state) is not None


# --- PS-RETAINED ---------------------------------------------------------------------------
def retained_for_new_subscriptions(model, state: NetworkState) -> bool:
    # 002 §Retained publications: a subscriber asking for MQSO_NEW_PUBLICATIONS_ONLY gets no
    # retained publication; "Existing subscribers can ask for duplicate copies" — unasked,
    # none: a subscription gets each retained publication at most once, wherever it came from
    for q in state.qmgrs:
        new_only = {s.order for s in q.pubsub.subscriptions if s.new_only}
        seen = set()
        for d in q.pubsub.deliveries:
            if not d.retained:
                continue
            key = (d.subscription, d.order, d.origin, d.serial)
            if d.order in new_only or key in seen:
                return False
            seen.add(key)
    return True


def remote_retained(model, state: NetworkState) -> bool:
    return any(d.retained and d.origin != q.name for q in state.qmgrs for d in q.pubsub.deliveries)


# --- PS-MISSED-BEFORE-PROXY -----------------------------------------------------------------
def _forced_at(space, topic: str) -> bool:
    node = node_of(topic)
    return any(o.proxysub == "FORCE" and node[:len(node_of(o.topicstr))] == node_of(o.topicstr)
               for o in (*space.local, *space.cluster))


def _reached_now(state: NetworkState, by_name: dict, origin: str, topic: str) -> set[str]:
    """The queue managers a publication on ``topic`` made at ``origin`` would reach over the
    proxy subscriptions held now, relayed as ``pubsub.forward_targets`` relays (one hop in a
    cluster, no routing from one cluster into another, no second route within a cluster:
    002 §Overlapping cluster support; §Topic spaces), refused over a cluster link under
    PSCLUS(DISABLED) (002 §Inhibiting clustered publish/subscribe in a cluster) and not
    relayed by a queue manager whose PUBSCOPE for the topic is QMGR, as
    ``pubsub.route_publication`` does not (002 §Publication scope: it "controls whether
    queue managers forward a publication"; the origin's own is ``PublishedEntry.forwardable``)."""
    reached: set[str] = set()
    seen: set[tuple] = set()
    todo: list[tuple[str, str | None, str | None]] = [(origin, None, None)]
    while todo:
        hop = todo.pop()
        name, came_from, came_via = hop
        q = by_name.get(name)
        if hop in seen or q is None or (came_via and q.defs.psclus == "DISABLED"):
            continue
        seen.add(hop)
        if came_from is not None:
            reached.add(name)
            if pubsub_space(q).effective(topic, "pubscope") != pubsub.SCOPE_ALL:
                continue  # delivered here, forwarded no further (found by a user trial, session 37)
        for link in pubsub.forward_targets(pubsub_space(q), q.pubsub, topic, came_from, came_via,
                                           links=pubsub_links(state, q)):
            todo.append((link.neighbour, name, link.via))
    return reached


def missed(state: NetworkState):
    """(publication entry, origin, subscriber qmgr, subscription) for each remote publication
    a subscription made before it did not get although the route to it exists now (the
    proxy subscriptions held now, under the relay rules: :func:`_reached_now`)."""
    if not settled(state):
        return
    by_name = {q.name: q for q in state.qmgrs}
    for q in state.qmgrs:
        for e in q.pubsub.published_log:
            if not e.forwardable:
                continue
            reached = _reached_now(state, by_name, q.name, e.topic)
            for r in by_name.values():
                if r.name == q.name or r.name not in reached or r.qmid in e.fingerprints:
                    continue  # (a publication that already visited R is R's to discard)
                space = pubsub_space(r)
                got = {(d.subscription) for d in r.pubsub.deliveries if (d.origin, d.serial) == (q.name, e.serial)}
                for sub in r.pubsub.subscriptions:
                    if sub.created == pubsub.UNSTAMPED or sub.created >= e.step or sub.name in got:
                        continue
                    if not compile_subscription(sub.topic, sub.scheme).matches(e.topic) or sub.group:
                        continue
                    if is_blocked(sub.blocking, e.topic) or pubsub.effective_scope(space, sub) != pubsub.SCOPE_ALL:
                        continue
                    yield e, q.name, r, sub


def missed_before_proxy(model, state: NetworkState) -> bool:
    return any(True for _ in missed(state))


def force_no_miss(model, state: NetworkState) -> bool:
    # 002 §Wildcards and cluster topics / DESIGN §3.3 PROXYSUB(FORCE): the wildcard proxy
    # subscription is in place before any subscriber exists, so nothing races it — once it
    # is in place: a publication made while the forced proxy subscription was still on its
    # way to the publisher (the configuration joining, or the topic object just defined)
    # races it like any other. Judged over the wildcard routes out of the publisher when it
    # published (``PublishedEntry.proxies``) and the relays' routes now (found by mqcheck fuzz).
    by_name = {q.name: q for q in state.qmgrs}
    for e, origin, r, _ in missed(state):
        if _forced_at(pubsub_space(r), e.topic) and r.name in _reached_then(state, by_name, origin, e):
            return False
    return True


def _reached_then(state: NetworkState, by_name: dict, origin: str, e: pubsub.PublishedEntry) -> set[str]:
    q = by_name[origin]
    then = replace(q, pubsub=replace(q.pubsub, proxies=e.proxies))
    return _reached_now(state, {**by_name, origin: then}, origin, e.topic)


def force_delivered(model, state: NetworkState) -> bool:
    for q in state.qmgrs:
        remote = [d for d in q.pubsub.deliveries if d.origin != q.name]
        if remote:  # the topic space only where something arrived from elsewhere
            space = pubsub_space(q)
            if any(_forced_at(space, d.topic) for d in remote):
                return True
    return False


PROPERTIES = (
    Property.at_quiescence("PS-LOCAL-DELIVERY", "a publication reaches every matching eligible subscription of its "
                           "own queue manager", local_delivery, citation="002 §Publication scope",
                           witness="PS-LOCAL-DELIVERED"),
    Property.sometimes("PS-LOCAL-DELIVERED", "a local publication is delivered and the network settles",
                       local_delivered, citation="002 §Publication scope"),
    Property.always("PS-SCOPE", "remote delivery needs PUBSCOPE ALL at the publisher and SUBSCOPE ALL at the "
                    "subscriber", scope_respected, citation="002 §Combining publication and subscription scopes",
                    witness="PS-REMOTE-DELIVERY", reads=READS_QMGRS),
    Property.sometimes("PS-REMOTE-DELIVERY", "a publication is delivered at another queue manager", remote_delivery,
                       citation="002 §How does distributed publish/subscribe work?", reads=READS_QMGRS),
    Property.always("PS-SCOPE-OPTION", "a subscription's MQSO_SCOPE_ALL or MQSO_SCOPE_QMGR option overrides the "
                    "topic's SUBSCOPE", scope_option_wins, citation="002 §Subscription scope",
                    witness="PS-SCOPE-OVERRIDDEN", reads=READS_QMGRS),
    Property.always("PS-PSCLUS-REFUSED", "PSCLUS(DISABLED) is refused while the queue manager knows a clustered "
                    "topic, even one defined elsewhere", psclus_refused,
                    citation="002 §Inhibiting clustered publish/subscribe in a cluster",
                    witness="PS-PSCLUS-ASKED", reads=READS_QMGRS),
    Property.sometimes("PS-PSCLUS-ASKED", "PSCLUS(DISABLED) is asked for while a clustered topic is known",
                       psclus_asked_with_topics, citation="002 §Inhibiting clustered publish/subscribe in a cluster", reads=READS_QMGRS),
    Property.sometimes("PS-SCOPE-OVERRIDDEN", "a subscription's scope option differs from its topic's SUBSCOPE",
                       scope_option_overrides, citation="002 §Subscription scope", reads=READS_QMGRS),
    Property.always("PS-WILDCARD-BLOCK", "no wildcard subscription receives a publication below a WILDCARD(BLOCK) "
                    "topic less specific than it", wildcard_block,
                    citation="002 §Controlling wildcard usage with the WILDCARD property", witness="PS-BLOCK-MATTERS", reads=READS_QMGRS),
    Property.sometimes("PS-BLOCK-MATTERS", "a blocked wildcard subscription matches a publication delivered beside it",
                       block_matters, citation="002 §Controlling wildcard usage with the WILDCARD property", reads=READS_QMGRS),
    Property.always("PS-ONE-HOP-CLUSTER", "a publication that arrived over a cluster link never leaves over a "
                    "cluster link (one hop; no routing from one cluster into another)", one_hop_cluster,
                    citation="002 §Overlapping cluster support, and publish/subscribe",
                    witness="PS-CLUSTER-FORWARD"),
    Property.sometimes("PS-CLUSTER-FORWARD", "a publication travels between members of a publish/subscribe cluster",
                       cluster_forward, citation="002 §Publish/subscribe clusters"),
    Property.always("PS-PROXY-AGGREGATION", "at most one proxy subscription per topic string per neighbour",
                    proxy_aggregation, citation="002 §Proxy subscription aggregation and publication aggregation",
                    witness="PS-PROXY-HELD", reads=READS_QMGRS),
    Property.sometimes("PS-PROXY-HELD", "a queue manager holds a proxy subscription", proxy_held,
                       citation="002 §Proxy subscription aggregation and publication aggregation", reads=READS_QMGRS),
    Property.always("PS-PUB-AGGREGATION", "at most one copy of a publication per neighbour", pub_aggregation,
                    citation="002 §Proxy subscription aggregation and publication aggregation",
                    witness="PS-PUB-FORWARDED"),
    Property.sometimes("PS-PUB-FORWARDED", "a publication is forwarded to a neighbour", pub_forwarded,
                       citation="002 §More on routing mechanisms"),
    Property.at_quiescence("PS-PROXY-CONVERGENCE", "settled proxy subscriptions are exactly what current "
                           "subscriptions require", proxy_convergence,
                           citation="002 §How does distributed publish/subscribe work?", witness="PS-PROXIES-SETTLED"),
    Property.sometimes("PS-PROXIES-SETTLED", "the network settles with proxy subscriptions in place", proxies_settled,
                       citation="002 §How does distributed publish/subscribe work?"),
    Property.eventually("PS-TERMINATION", "every publication's propagation ends (no cycle of internal actions)",
                        citation="002 §How loop detection works", evidence="PS-REPUBLISH-LOOP"),
    Property.always("PS-EXACTLY-ONCE-ACYCLIC", "without loops, no subscription receives a publication twice",
                    exactly_once_acyclic, citation="002 §How loop detection works", witness="PS-REMOTE-DELIVERY", reads=READS_QMGRS),
    Property.always("PS-LOOP-DUPLICATES", "a subscription receives at most one copy per loop-free path",
                    loop_duplicates_bounded, citation="002 §How loop detection works",
                    witness="PS-DUPLICATES-DELIVERED", reads=READS_QMGRS),
    Property.sometimes("PS-DUPLICATES-DELIVERED", "a subscription receives duplicate copies (a loop)",
                       duplicates_delivered, citation="002 §How loop detection works", reads=READS_QMGRS),
    Property.always("PS-RETAINED-NEW-ONLY", "retained publications go to new subscriptions that did not ask for new "
                    "publications only, each at most once", retained_for_new_subscriptions,
                    citation="002 §Retained publications", witness="PS-RETAINED-REMOTE", reads=READS_QMGRS),
    Property.sometimes("PS-RETAINED-REMOTE", "a subscription receives another queue manager's retained publication",
                       remote_retained,
                       citation="002 §Retained publications in a distributed publish/subscribe topology", reads=READS_QMGRS),
    Property.sometimes("PS-REPUBLISH-LOOP", "a republishing application republishes a publication that its own "
                       "earlier republication led to (the loop repeats: evidence against PS-TERMINATION)",
                       republish_loop_repeats, citation="002 §Loop detection fingerprint format", reads=READS_QMGRS),
    Property.sometimes("PS-MISSED-BEFORE-PROXY", "a publication races a proxy subscription and is missed",
                       missed_before_proxy,
                       citation="002 §Proxy subscription aggregation and publication aggregation"),
    Property.at_quiescence("PS-FORCE-NO-MISS", "under PROXYSUB(FORCE) no publication races a proxy subscription",
                           force_no_miss, citation="002 §More on routing mechanisms",
                           witness="PS-FORCE-DELIVERED"),
    Property.sometimes("PS-FORCE-DELIVERED", "a publication reaches a remote subscription under PROXYSUB(FORCE)",
                       force_delivered, citation="002 §More on routing mechanisms", reads=READS_QMGRS),
)


# Stable under landings (spec.network.views.LANDING: an application message put to a local
# queue; it changes only its route's messages and status, the receiver's ``arrivals`` and the
# handle's ``arrived``), with why.
_PUBSUB = ("reads publish/subscribe state (deliveries, subscriptions, proxies, published log), definitions and "
           "running flags only: a landing changes none of them")
_PUBLICATIONS = "reads the publications in flight only: a landing takes an application message"
_SETTLED = "holds only in a settled state (nothing in flight), where no landing is enabled"
PROPERTIES = stable_under(PROPERTIES, STABLE_LANDING, {
    "PS-LOCAL-DELIVERED": _SETTLED,
    "PS-SCOPE": _PUBSUB,
    "PS-REMOTE-DELIVERY": _PUBSUB,
    "PS-SCOPE-OPTION": _PUBSUB + " (with the steps taken)",
    "PS-PSCLUS-REFUSED": "reads definitions and the ghost psclus_asked only: a landing changes neither",
    "PS-PSCLUS-ASKED": "as PS-PSCLUS-REFUSED",
    "PS-SCOPE-OVERRIDDEN": _PUBSUB + " (with the steps taken)",
    "PS-WILDCARD-BLOCK": _PUBSUB,
    "PS-BLOCK-MATTERS": _PUBSUB,
    "PS-ONE-HOP-CLUSTER": _PUBLICATIONS,
    "PS-CLUSTER-FORWARD": _PUBLICATIONS,
    "PS-PROXY-AGGREGATION": _PUBSUB,
    "PS-PROXY-HELD": _PUBSUB,
    "PS-PUB-AGGREGATION": _PUBLICATIONS + " (_one_copy_each filters each channel's publications)",
    "PS-PUB-FORWARDED": _PUBLICATIONS,
    "PS-PROXIES-SETTLED": _SETTLED,
    "PS-EXACTLY-ONCE-ACYCLIC": _PUBSUB,
    "PS-LOOP-DUPLICATES": _PUBSUB,
    "PS-DUPLICATES-DELIVERED": _PUBSUB,
    "PS-RETAINED-NEW-ONLY": _PUBSUB,
    "PS-RETAINED-REMOTE": _PUBSUB,
    "PS-REPUBLISH-LOOP": _PUBSUB,
    "PS-MISSED-BEFORE-PROXY": _SETTLED,
    "PS-FORCE-DELIVERED": _PUBSUB,
})
