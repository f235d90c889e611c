"""Publish/subscribe at one queue manager: subscriptions, delivery, groups, retained publications.

Source: 002 §Subscribers and subscriptions, §Subscription durability, §Retained
publications, §Controlling wildcard usage with the WILDCARD property, §Overlapping topics
(grouped subscriptions); DESIGN §3.3 steps 2 (delivery) and the retained-publication rule.
The distributed parts of §3.3 are in the second half of this module, as pure functions
of one queue manager's state and its links (``spec.network`` moves the messages):
proxy subscriptions (:func:`desired_proxies`, :func:`reconcile`, :func:`receive_proxy`),
publication routing with loop-detection fingerprints (:func:`route_publication`), the
RFH2 ``<ibm><Rfp>`` folder that carries them (``spec.rfh2``, re-exported here:
``encode_rfp_folder``, ``decode_rfp_folder``, ``rfh2_bytes``, ``parse_rfh2``), and republishing
applications. A publication that arrives from another queue manager is delivered by the
same :func:`deliver`, with ``remote=True``.

Abstracted away: message payloads and properties (a publication is its topic string and
its identity), selection strings, subscription expiry, managed queues (a delivery is
recorded against its subscription; DEST is kept for display), authorities.
"""

from __future__ import annotations

from dataclasses import field
from functools import lru_cache
from typing import Any, NamedTuple

from spec import lookup
from spec.encoding import OMITTED_AT_DEFAULT
from spec.rfh2 import (  # noqa: F401 (re-exported: pubsub.rfh2_bytes, pubsub.parse_rfh2, ...)
    MQENC_BIG, MQENC_LITTLE, decode_rfp_folder, encode_rfp_folder, parse_rfh2, rfh2_bytes,
)
from spec.topic_tree import Node, TopicSpace, is_blocked, node_of
from spec.topics import compile_subscription
from spec.values import replace, value

SCOPE_ALL = "ALL"
SCOPE_QMGR = "QMGR"
# MQSO_SCOPE_ALL asked for explicitly: overrides the topic's SUBSCOPE(QMGR) (002 §Subscription
# scope); SCOPE_ALL, the default, is no option (the topic's SUBSCOPE decides)
SCOPE_OPTION_ALL = "MQSO_SCOPE_ALL"


@value
class Subscription:
    """A subscription as the queue manager holds it at run time.

    ``topic`` is the full topic string (a TOPICOBJ already joined: "The subscription, when
    created, no longer refers to the topic object" — 002 Figure 9 note); ``scope`` is
    QMGR for MQSO_SCOPE_QMGR or DEFINE SUB ... SUBSCOPE(QMGR); ``blocking`` is the
    WILDCARD(BLOCK) nodes captured at creation; ``order`` is creation order.
    """

    name: str
    topic: str
    scheme: str = "topic"
    scope: str = SCOPE_ALL
    group: str = ""
    dest: str = ""
    durable: bool = True
    admin: bool = False
    blocking: tuple[Node, ...] = ()
    order: int = 0
    new_only: bool = False  # MQSO_NEW_PUBLICATIONS_ONLY: no retained publications, local or remote
    created: int = -2  # ghost: the scenario step that created it (UNSTAMPED until the network stamps it)


@value
class Publication:
    """One publication: its topic, its identity (origin queue manager and serial number),
    whether it is retained, and the loop-detection fingerprints it carries (DESIGN §3.3)."""

    topic: str
    origin: str
    serial: int
    retain: bool = False
    fingerprints: tuple[str, ...] = ()
    lineage: tuple[str, ...] = ()  # ghost: the republishers ("QM:SUB") whose republications led to it
    # published with MQPMO_SCOPE_QMGR: kept as this queue manager's retained publication but
    # never sent to another one, not even in answer to a proxy subscription (002 §Publication
    # scope; found by `mqcheck fuzz`, issue #14)
    local_only: bool = False
    # where it arrived from, kept with a retained publication so that answering a new proxy
    # subscription with it follows the relay rules (``retained_for``): the neighbour ("" when
    # published here) and the link ("" a hierarchy, else the cluster). Encoded only when set
    # (``spec.encoding.OMITTED_AT_DEFAULT``): a publication made here encodes as before.
    came_from: str = field(default="", metadata=OMITTED_AT_DEFAULT)
    came_via: str = field(default="", metadata=OMITTED_AT_DEFAULT)


@value
class Delivery:
    """A publication put to a subscription's destination.

    Ghosts for the properties, the subscription's attributes when the publication was put
    (a later ALTER, restart or a new subscription of the same name does not change what
    was right then): ``order`` (which subscription of that name), ``scope`` (its effective
    scope) and ``blocking`` (its WILDCARD(BLOCK) nodes)."""

    subscription: str
    topic: str
    origin: str
    serial: int
    retained: bool = False  # a retained publication: from the store at subscribe time, or a remote answer
    order: int = -1
    scope: str = ""
    blocking: tuple[Node, ...] = ()


def delivery_to(space: TopicSpace, sub: Subscription, pub: Publication, retained: bool = False) -> Delivery:
    """The record of ``pub`` put to ``sub``'s destination now."""
    return Delivery(sub.name, pub.topic, pub.origin, pub.serial, retained, sub.order, effective_scope(space, sub),
                    sub.blocking)


@value
class PubSubError:
    """An entry for the queue manager's error log, or a failed MQI call's reason code."""

    code: str
    detail: str


@value
class LocalPubSub:
    """A queue manager's publish/subscribe state.

    ``subscriptions`` in creation order; ``retained`` sorted by topic string, at most one
    per topic (002 §Retained publications: "The queue manager can retain only one
    publication for each topic"); ``deliveries`` in arrival order, duplicates included.
    """

    subscriptions: tuple[Subscription, ...] = ()
    retained: tuple[Publication, ...] = ()
    deliveries: tuple[Delivery, ...] = ()
    next_order: int = 0
    # --- distributed publish/subscribe (DESIGN §3.3); all sorted, see ``ProxyKey`` ----
    proxies: tuple[ProxyKey, ...] = ()  # proxy subscriptions registered here by neighbours
    proxies_sent: tuple[ProxyKey, ...] = ()  # proxy subscriptions this queue manager holds at neighbours
    # the demand paths behind each of them, (key, paths) sorted; the keys are ``proxies`` /
    # ``proxies_sent`` (kept in step by ``_with_held`` / ``_with_sent``; see ``Path``)
    proxy_paths: tuple[HeldProxy, ...] = ()
    sent_paths: tuple[HeldProxy, ...] = ()
    # the WILDCARD(BLOCK) nodes of each proxy subscription held here, captured when it was
    # registered (a proxy subscription is a subscription at this queue manager: 002
    # §Controlling wildcard usage with the WILDCARD property, "used when subscriptions are
    # defined"), re-evaluated only at restart; (key, nodes) sorted, non-empty sets only
    proxy_blocking: tuple[tuple[ProxyKey, tuple[Node, ...]], ...] = ()
    republishers: tuple[Republisher, ...] = ()  # applications republishing a subscription's publications
    published_log: tuple[PublishedEntry, ...] = ()  # ghost: this queue manager's own publications
    parent_judged: str = ""  # the PARENT value last checked (an unusable one is logged once per change)
    # what other queue managers sent to its publish/subscribe system queues while it had
    # PSMODE(DISABLED), unprocessed, in arrival order (``ProxySubMsg``, ``PublicationMsg``;
    # ``system_queue`` names the queue each waits on): 002 §Subscription performance
    # considerations reads a backlog there as a queue manager "having publish/subscribe
    # support disabled (see PSMODE in ALTER QMGR)". Encoded only when not empty
    # (``spec.encoding.OMITTED_AT_DEFAULT``): a queue manager without one encodes as before.
    backlog: tuple[Any, ...] = field(default=(), metadata=OMITTED_AT_DEFAULT)

    def subscription(self, name: str) -> Subscription | None:
        # a table lookup, not a scan: 10^4 DEFINE SUBs must load in seconds (spec.lookup)
        return lookup.first(self.subscriptions, "name", name)


def arrived_from_neighbour(pub: Publication) -> bool:
    """A publication forwarded by another queue manager carries that queue manager's
    fingerprint (002 §How loop detection works); a local publication carries none."""
    return bool(pub.fingerprints)


def effective_scope(space: TopicSpace, sub: Subscription) -> str:
    """ALL when the subscription may receive publications from other queue managers.

    002 §Subscription scope: the subscription's own option or the SUBSCOPE of the topic
    object it resolves to, inherited through ASPARENT: "Subscribers can override the
    SUBSCOPE setting by specifying either the MQSO_SCOPE_QMGR or MQSO_SCOPE_ALL
    subscription option when creating a subscription."
    """
    if sub.scope == SCOPE_QMGR:
        return SCOPE_QMGR
    if sub.scope == SCOPE_OPTION_ALL:
        return SCOPE_ALL
    return space.effective_for_subscription(sub.topic, sub.scheme, "subscope")


def _matches(sub: Subscription, topic: str) -> bool:
    return compile_subscription(sub.topic, sub.scheme).matches(topic)


def _eligible(space: TopicSpace, sub: Subscription, topic: str, remote: bool) -> bool:
    # WILDCARD(BLOCK) captured at creation; remote publications need scope ALL (DESIGN §3.3)
    if is_blocked(sub.blocking, topic):
        return False
    return not remote or effective_scope(space, sub) == SCOPE_ALL


def _specificity(sub: Subscription) -> tuple[int, int, int]:
    # 002 §Overlapping topics (grouped): "The more specific subscription wins": no wildcard
    # beats wildcard, a longer literal prefix beats a shorter one, then definition order.
    matcher = compile_subscription(sub.topic, sub.scheme)
    return (1 if matcher.has_wildcard else 0, -len(matcher.prefix), sub.order)


def recipients(space: TopicSpace, ps: LocalPubSub, topic: str, remote: bool = False) -> tuple[Subscription, ...]:
    """The subscriptions a publication on ``topic`` is delivered to, in creation order.

    Ungrouped: every matching, eligible subscription. Grouped (same ``group``): only the
    most specific matching subscription of the group is considered, and it receives the
    publication only if it is eligible (002 §Overlapping topics, grouped subscriptions).
    """
    chosen: list[Subscription] = []
    best_in_group: dict[str, Subscription] = {}
    for sub in ps.subscriptions:
        if not _matches(sub, topic):
            continue
        if sub.group:
            current = best_in_group.get(sub.group)
            if current is None or _specificity(sub) < _specificity(current):
                best_in_group[sub.group] = sub
        elif _eligible(space, sub, topic, remote):
            chosen.append(sub)
    chosen.extend(s for s in best_in_group.values() if _eligible(space, s, topic, remote))
    return tuple(sorted(chosen, key=lambda s: s.order))


def deliver(space: TopicSpace, ps: LocalPubSub, pub: Publication, remote: bool = False) -> LocalPubSub:
    """Deliver a publication to the local subscriptions (DESIGN §3.3 step 2)."""
    new = tuple(delivery_to(space, sub, pub) for sub in recipients(space, ps, pub.topic, remote))
    return replace(ps, deliveries=ps.deliveries + new) if new else ps


def retain(ps: LocalPubSub, pub: Publication) -> LocalPubSub:
    """Keep ``pub`` as the topic's retained publication, replacing the previous one."""
    kept = tuple(p for p in ps.retained if p.topic != pub.topic) + (pub,)
    return replace(ps, retained=tuple(sorted(kept, key=lambda p: p.topic)))


def clear_retained(ps: LocalPubSub, topic: str) -> LocalPubSub:
    """CLEAR TOPICSTR(topic) CLTRTYPE(RETAINED) (002 §Topic trees, "What is an unused topic?")."""
    return replace(ps, retained=tuple(p for p in ps.retained if p.topic != topic))


def clear_queue(ps: LocalPubSub, queue: str) -> LocalPubSub:
    """CLEAR QLOCAL(queue): the publications waiting on the queue of every subscription
    whose DEST it is are gone (002's sample scripts clear the subscription queues before
    re-running, e.g. wildsubs.tst)."""
    names = {s.name for s in ps.subscriptions if s.dest == queue}
    if not names:
        return ps
    return replace(ps, deliveries=tuple(d for d in ps.deliveries if d.subscription not in names))


def publish(
    space: TopicSpace, ps: LocalPubSub, pub: Publication, remote: bool = False
) -> tuple[LocalPubSub, tuple[PubSubError, ...]]:
    """A publication arrives at this queue manager (from a local publisher, or a neighbour).

    A local publisher is refused with MQRC_PUT_INHIBITED when the topic's effective PUB is
    DISABLED. A retained publication replaces the topic's previous one (002 §Retained
    publications).
    """
    if not remote and space.effective(pub.topic, "pub") == "DISABLED":
        return ps, (PubSubError("MQRC_PUT_INHIBITED", f"publishing on {pub.topic!r}: PUB(DISABLED)"),)
    if pub.retain:
        ps = retain(ps, pub)
    return deliver(space, ps, pub, remote), ()


def subscribe(
    space: TopicSpace, ps: LocalPubSub, sub: Subscription, new_publications_only: bool = False
) -> tuple[LocalPubSub, tuple[PubSubError, ...]]:
    """Create a subscription; unless it asks for new publications only, it receives the
    retained publication of every matching topic it is eligible for (002 §Retained
    publications: MQSO_NEW_PUBLICATIONS_ONLY).

    Refused as MQ refuses it: a name already in use (MQRC_SUB_ALREADY_EXISTS), SUB(DISABLED)
    (MQRC_SUB_INHIBITED), a durable subscription where DURSUB is NO
    (MQRC_DURABILITY_NOT_ALLOWED; 002 §Administrative topic objects, "Inheriting attributes").
    """
    if ps.subscription(sub.name) is not None:
        return ps, (PubSubError("MQRC_SUB_ALREADY_EXISTS", f"subscription {sub.name} already exists"),)
    if space.effective_for_subscription(sub.topic, sub.scheme, "sub") == "DISABLED":
        return ps, (PubSubError("MQRC_SUB_INHIBITED", f"subscribing to {sub.topic!r}: SUB(DISABLED)"),)
    if sub.durable and space.effective_for_subscription(sub.topic, sub.scheme, "dursub") == "NO":
        return ps, (
            PubSubError("MQRC_DURABILITY_NOT_ALLOWED", f"durable subscription {sub.name} to {sub.topic!r}: DURSUB(NO)"),
        )
    created = replace(sub, blocking=space.blocking_nodes(sub.topic, sub.scheme), order=ps.next_order)
    created = replace(created, new_only=new_publications_only)
    subscriptions = lookup.handed_over(ps.subscriptions, ps.subscriptions + (created,), "name", created)
    ps = replace(ps, subscriptions=subscriptions, next_order=ps.next_order + 1)
    if new_publications_only:
        return ps, ()
    sent = tuple(
        delivery_to(space, created, pub, retained=True)
        for pub in ps.retained
        if _matches(created, pub.topic) and _eligible(space, created, pub.topic, remote=arrived_from_neighbour(pub))
    )
    return replace(ps, deliveries=ps.deliveries + sent), ()


def unsubscribe(ps: LocalPubSub, name: str) -> tuple[LocalPubSub, tuple[PubSubError, ...]]:
    """Remove a subscription (MQCLOSE with MQCO_REMOVE_SUB, or DELETE SUB)."""
    if ps.subscription(name) is None:
        return ps, (PubSubError("MQRC_NO_SUBSCRIPTION", f"no subscription named {name}"),)
    return replace(ps, subscriptions=tuple(s for s in ps.subscriptions if s.name != name)), ()


# =========================================================================================
# Distributed publish/subscribe (DESIGN §3.3)
#
# Source: 002 §How does distributed publish/subscribe work?, §Proxy subscription
# aggregation and publication aggregation, §More on routing mechanisms, §Wildcard rules,
# §Wildcards and cluster topics, §Cluster topic attributes, §Publish/subscribe hierarchies,
# §Controlling the flow of publications and subscriptions, §Publication scope,
# §Subscription scope, §Topic spaces, §Combining topics spaces, §Overlapping cluster
# support, and publish/subscribe, §Inhibiting clustered publish/subscribe in a cluster,
# §How loop detection works, §Loop detection fingerprint format, §Retained publications in
# a distributed publish/subscribe topology.
#
# A queue manager's links are ``Link(neighbour, via)``: ``via`` is "" for a hierarchy edge
# (PARENT, carries everything, multi-hop) or a cluster name (one hop: what arrives from a
# member of C is never relayed to members of C). Proxy subscriptions are kept as sorted
# tuples of ``(neighbour, via, topic)`` on both sides — what this queue manager registered
# at each neighbour (``proxies_sent``) and what neighbours registered here (``proxies``)
# — so states stay canonical; each carries the set of demand paths behind it
# (``sent_paths``, ``proxy_paths``: a path vector). Demand is recomputed from scratch
# (:func:`desired_proxy_paths`) and the difference with ``sent_paths`` is sent
# (:func:`reconcile`): "subscribe t" when demand for t from sources other than N, along
# paths not through N, appears or its set of paths changes, "unsubscribe t" when none is
# left (002 §How loop detection works: aggregation "will prevent the perpetual looping of
# proxy subscriptions", even in a loop). One
# proxy subscription per topic string per neighbour is aggregation; a new link simply
# makes the whole current demand "new" for that neighbour (the synchronisation on
# joining). Abstracted away: the SYSTEM.INTER.QMGR.* queues (a message on them is processed
# when it arrives; only a queue manager with PSMODE(DISABLED) leaves them there, as
# ``LocalPubSub.backlog``, 002 §Subscription performance considerations) and channel
# definitions of a hierarchy (a PARENT naming a queue manager of the scenario is a working
# link when both run PSMODE(ENABLED)), proxy-subscription resynchronisation timers,
# PSMODE(COMPAT) beyond hierarchy links.
# =========================================================================================

UNSTAMPED = -2
SUBSCRIBE, UNSUBSCRIBE = "SUBSCRIBE", "UNSUBSCRIBE"
HIERARCHY = ""  # the ``via`` of a hierarchy link
ACTION_NEW, ACTION_FORWARD = "NEW", "FORWARD"

ProxyKey = tuple[str, str, str]  # (neighbour, via, topic string in the topic-wildcard scheme)
# A demand path: the queue managers a proxy subscription's demand came through, from the one
# with the subscription (or PROXYSUB(FORCE) object) to the sender. An aggregated proxy
# subscription carries the set of paths behind it (see :func:`desired_proxy_paths`).
Path = tuple[str, ...]
HeldProxy = tuple[ProxyKey, tuple[Path, ...]]


class Link(NamedTuple):
    """A publish/subscribe neighbour and how it is reached ("" = hierarchy, else a cluster).

    A named tuple, not a ``@value``: links are recomputed for every delivery and never kept
    in a state, and a member of a publish/subscribe cluster of hundreds has hundreds of
    them, which are sorted and searched as tuples (in C)."""

    neighbour: str
    via: str


@value
class Republisher:
    """An application that gets the publications of ``subscription`` and publishes them
    again (under ``topic`` when given), with MQPMO action NEW (a new fingerprint chain) or
    FORWARD (the chain continues) — 002 §Loop detection fingerprint format. It does not get
    its own republications (it subscribes with MQSO_NO_LOCAL)."""

    subscription: str
    action: str
    topic: str = ""


@value
class PublishedEntry:
    """Ghost record of a publication made at this queue manager (for the properties)."""

    serial: int
    topic: str
    step: int
    forwardable: bool  # its PUBSCOPE (or the publisher's MQPMO_SCOPE_QMGR) allowed forwarding
    next_order: int  # local subscriptions with a smaller order existed when it was made
    retain: bool = False
    fingerprints: tuple[str, ...] = ()  # the chain it started with (MQACTP_FORWARD republications)
    lineage: tuple[str, ...] = ()  # the republishers that led to it (see ``Publication.lineage``)
    # the wildcard (T/#) proxy subscriptions registered here that it matched when it was made,
    # when forwardable: whether a PROXYSUB(FORCE) route out was in place then (PS-FORCE-NO-MISS)
    proxies: tuple[ProxyKey, ...] = ()


@value
class ProxySubMsg:
    """A proxy subscription (or its cancellation) from ``sender`` over link ``via``."""

    op: str
    topic: str
    sender: str
    via: str
    paths: tuple[Path, ...] = ()  # SUBSCRIBE: the demand paths it now carries (all of them: an update replaces)

    def __str__(self) -> str:
        sign = "+" if self.op == SUBSCRIBE else "-"
        link = f"cluster {self.via}" if self.via else "hierarchy"
        # its demand paths (decision H1) tell a first proxy subscription from an update
        demand = "; ".join(">".join(path) or "FORCE" for path in self.paths)
        return f"proxy {sign}{self.topic!r} from {self.sender} ({link}{'; demand ' + demand if demand else ''})"


@value
class PublicationMsg:
    """A publication forwarded by ``sender`` over ``via``. ``rfp`` is the RFH2 ``<ibm>``
    folder with the fingerprints (``encode_rfp_folder``); ``prev_via`` is the link the
    sender received it over (None when published at the sender) — a ghost for
    PS-ONE-HOP-CLUSTER."""

    topic: str
    origin: str
    serial: int
    retain: bool
    sender: str
    via: str
    rfp: str
    prev_via: str | None = None
    answers: str = ""  # a retained publication sent in answer to the new proxy subscription ``answers``
    lineage: tuple[str, ...] = ()  # ghost: ``Publication.lineage``

    def __str__(self) -> str:
        what = f"retained answer to {self.answers!r}" if self.answers else "publication"
        return f"{what} {self.topic!r} ({self.origin}#{self.serial}) from {self.sender} {self.rfp}"

    @property
    def fingerprints(self) -> tuple[str, ...]:
        return decode_rfp_folder(self.rfp)


def system_queue(msg: ProxySubMsg | PublicationMsg) -> str:
    """The system queue a publish/subscribe message from another queue manager arrives on
    (002 §Distributed publish/subscribe system queues). Publications, retained answers
    included, go to SYSTEM.INTER.QMGR.PUBS (002 §Balancing producers and consumers: "Those
    publications are targeted at the SYSTEM.INTER.QMGR.PUBS queue on the remote queue
    managers"); proxy subscriptions and their cancellations to the control queue,
    SYSTEM.INTER.QMGR.CONTROL (decided: 002 names the queue's purpose only, and calls
    SYSTEM.INTER.QMGR.FANREQ an internal queue of the sending queue manager's fan-out
    process). SYSTEM.HIERARCHY.STATE's relationship messages are not modelled."""
    return "SYSTEM.INTER.QMGR.PUBS" if isinstance(msg, PublicationMsg) else "SYSTEM.INTER.QMGR.CONTROL"


# --- the RFH2 <ibm> folder (002 §Loop detection fingerprint format): spec/rfh2.py ----------


# --- proxy subscriptions -------------------------------------------------------------------
def proxy_topic(sub: Subscription) -> str:
    """The topic-scheme string a subscription's proxy subscription carries (002 §Wildcard
    rules: character wildcards are converted back to the nearest '/' and '#')."""
    return compile_subscription(sub.topic, sub.scheme).proxy


def _forced_topics(space: TopicSpace) -> tuple[str, ...]:
    # PROXYSUB(FORCE) at topic string T: a wildcard proxy subscription T/# (DESIGN §3.3)
    out = set()
    for obj in (*space.local, *space.cluster):
        if obj.proxysub == "FORCE" and space.object_at(node_of(obj.topicstr)) is obj:
            out.add(obj.topicstr + "/#" if obj.topicstr else "#")
    return tuple(sorted(out))


def demand_sources(space: TopicSpace, ps: LocalPubSub, held: tuple[HeldProxy, ...] | None = None
                   ) -> tuple[tuple[str, str | None, str | None, tuple[Path, ...]], ...]:
    """(topic, neighbour, via, paths) of every source of demand at this queue manager: local
    subscriptions whose scope is ALL and PROXYSUB(FORCE) objects (neighbour None, the one
    empty path: the demand starts here), and proxy subscriptions registered by neighbours
    with the demand paths they carry (``held`` overrides ``ps.proxy_paths``)."""
    out: list[tuple[str, str | None, str | None, tuple[Path, ...]]] = []
    for sub in ps.subscriptions:
        # 002 §Subscription scope: MQSO_SCOPE_QMGR or SUBSCOPE(QMGR): no proxy subscription;
        # MQSO_SCOPE_ALL overrides SUBSCOPE(QMGR) (its via marks it for _may_send)
        if effective_scope(space, sub) == SCOPE_ALL:
            out.append((proxy_topic(sub), None, SCOPE_OPTION_ALL if sub.scope == SCOPE_OPTION_ALL else None, ((),)))
    out.extend((t, None, None, ((),)) for t in _forced_topics(space))
    out.extend((t, n, v, paths) for (n, v, t), paths in (ps.proxy_paths if held is None else held))
    return tuple(out)


@lru_cache(maxsize=65536)
def _topic_facts(space: TopicSpace, topic: str) -> tuple[bool, str]:
    """(effective SUBSCOPE is ALL, cluster) at a proxy subscription's resolution node.
    Cached: a pure function of immutable inputs (it changes how fast, never what)."""
    subscope_all = space.effective_for_subscription(topic, "topic", "subscope") == SCOPE_ALL
    return subscope_all, (space.effective_for_subscription(topic, "topic", "cluster") or "").strip()


def _relay_allowed(cluster: str, source: str | None, source_via: str | None, link: Link,
                   links: tuple[Link, ...]) -> bool:
    """May something received from ``source`` over ``source_via`` (a proxy subscription or
    a publication whose topic is a cluster topic of ``cluster`` here, "" when local) go out
    over ``link``? Two rules, for proxy subscriptions and publications alike:

    * 002 §Overlapping cluster support: "you cannot use this mechanism to route publications
      and subscriptions from one cluster to another" — what arrived over a cluster link
      never leaves over a cluster link (the one-hop rule, for every cluster; only hierarchy
      links relay: DESIGN §3.3).
    * 002 §Topic spaces: "If a queue manager is a member of a cluster and a hierarchy, proxy
      subscriptions are propagated by both mechanisms without delivering duplicate
      publications" — for a cluster topic of C, what came from a member of C is never
      relayed (over any link) to another member of C: the cluster connects the two directly.
    """
    if source is None:
        return True
    if source_via and link.via:
        return False
    if cluster and Link(source, cluster) in links and Link(link.neighbour, cluster) in links:
        return False
    return True


def _may_send(space: TopicSpace, topic: str, source: str | None, source_via: str | None, link: Link,
              relay_within_cluster: bool, links: tuple[Link, ...] = ()) -> bool:
    if source == link.neighbour:
        return False  # demand from N is never sent back to N
    subscope_all, cluster = _topic_facts(space, topic)
    # DESIGN §3.3: forwarding needs the topic's effective SUBSCOPE ALL here (002 §Combine
    # and isolate topic spaces in multiple clusters: the bridge's SUBSCOPE(QMGR) isolates),
    # unless a local subscriber asked for MQSO_SCOPE_ALL (002 §Subscription scope)
    if not subscope_all and not (source is None and source_via == SCOPE_OPTION_ALL):
        return False
    # 002 §Topic spaces: hierarchies propagate every proxy subscription; in a cluster only
    # subscriptions resolving to a cluster topic of that cluster; §Overlapping cluster
    # support: "limited to the single cluster"
    if link.via != HIERARCHY and cluster != link.via:
        return False
    # DESIGN §3.3: one hop, no routing between clusters, no duplicate route within a cluster
    return relay_within_cluster or _relay_allowed(cluster, source, source_via, link, links)


def _offer(paths: tuple[Path, ...], neighbour: str, me: str) -> tuple[Path, ...]:
    # 002 §How loop detection works: aggregation "will prevent the perpetual looping of
    # proxy subscriptions" — a path that already went through N is not offered to N, so
    # demand never comes back round a loop to where it passed (see desired_proxy_paths)
    return tuple(p + (me,) for p in paths if neighbour not in p)


def desired_proxy_paths(space: TopicSpace, ps: LocalPubSub, links: tuple[Link, ...], me: str, *,
                        held: tuple[HeldProxy, ...] | None = None, aggregate: bool = True,
                        relay_within_cluster: bool = False) -> tuple[HeldProxy, ...]:
    """The proxy subscriptions this queue manager (``me``) should hold at its neighbours,
    each with the demand paths it carries, sorted.

    Aggregated (the default): one per topic string per neighbour, over the first link (in
    ``Link`` order, the hierarchy first) that may carry it (002 §Proxy subscription
    aggregation and publication aggregation), carrying the set of every demand path behind
    it. A path is offered to neighbour N only if it does not contain N, extended with
    ``me``; a proxy subscription exists while its set is not empty. Every path starts at a
    live subscription, so after the last subscriber leaves every proxy subscription is
    cancelled, loop or not (002 §How loop detection works: aggregation "does not prevent
    the formation of a loop, although it will prevent the perpetual looping of proxy
    subscriptions"). Without aggregation (a mutant) one per source of demand.
    """
    sources = demand_sources(space, ps, held)
    out: list[HeldProxy] = []
    chosen: dict[tuple[str, str], tuple[str, set[Path]]] = {}
    for link in sorted(links):
        for topic, source, source_via, paths in sources:
            if not _may_send(space, topic, source, source_via, link, relay_within_cluster, links):
                continue
            offered = _offer(paths, link.neighbour, me)
            if not offered:
                continue
            if not aggregate:
                out.append(((link.neighbour, link.via, topic), tuple(sorted(offered))))
                continue
            via, got = chosen.setdefault((link.neighbour, topic), (link.via, set()))
            got.update(offered)
    out.extend(((n, via, t), tuple(sorted(got))) for (n, t), (via, got) in chosen.items())
    return tuple(sorted(out))


def desired_proxies(space: TopicSpace, ps: LocalPubSub, links: tuple[Link, ...], me: str, *,
                    held: tuple[HeldProxy, ...] | None = None, aggregate: bool = True,
                    relay_within_cluster: bool = False) -> tuple[ProxyKey, ...]:
    """The keys of :func:`desired_proxy_paths`, sorted."""
    return tuple(k for k, _ in desired_proxy_paths(space, ps, links, me, held=held, aggregate=aggregate,
                                                   relay_within_cluster=relay_within_cluster))


def _with_held(ps: LocalPubSub, held) -> LocalPubSub:
    held = tuple(sorted(held))
    keys = tuple(k for k, _ in held)
    blocking = tuple(b for b in ps.proxy_blocking if b[0] in keys)  # a cancelled one's set goes with it
    return replace(ps, proxy_paths=held, proxies=keys, proxy_blocking=blocking)


def _captured(ps: LocalPubSub, space: TopicSpace | None, key: ProxyKey) -> LocalPubSub:
    """``ps`` with the WILDCARD(BLOCK) nodes of the newly registered proxy subscription
    ``key`` captured from ``space`` (002 §Controlling wildcard usage with the WILDCARD
    property: "The value of this attribute is used when subscriptions are defined. If you
    alter this attribute, the set of topics covered by existing subscriptions is not
    affected"; a proxy subscription "is a subscription made by one queue manager for topics
    published on another queue manager", 002 §Proxy subscription aggregation and
    publication aggregation). Without ``space`` nothing is captured."""
    if space is None:
        return ps
    nodes = space.blocking_nodes(key[2])
    rest = tuple(b for b in ps.proxy_blocking if b[0] != key)
    return replace(ps, proxy_blocking=tuple(sorted(rest + ((key, nodes),))) if nodes else rest)


def proxies_after_restart(space: TopicSpace, ps: LocalPubSub) -> LocalPubSub:
    """The WILDCARD(BLOCK) sets of the proxy subscriptions held here, taken from the topic
    space as it is now: 002 §Controlling wildcard usage with the WILDCARD property, "To
    force the matching set of topics to be re-evaluated for existing subscriptions, you must
    restart the queue manager" (as ``spec.topic_tree.subscriptions_after_restart`` does for
    local subscriptions)."""
    captured = ((key, space.blocking_nodes(key[2])) for key in ps.proxies)
    return replace(ps, proxy_blocking=tuple(sorted((k, nodes) for k, nodes in set(captured) if nodes)))


def _with_sent(ps: LocalPubSub, sent) -> LocalPubSub:
    sent = tuple(sorted(sent))
    return replace(ps, sent_paths=sent, proxies_sent=tuple(k for k, _ in sent))


def _multiset_minus(a: tuple, b: tuple) -> list:
    rest = list(b)
    out = []
    for x in a:
        if x in rest:
            rest.remove(x)
        else:
            out.append(x)
    return out


def reconcile(space: TopicSpace, ps: LocalPubSub, links: tuple[Link, ...], me: str, exists, *,
              aggregate: bool = True, relay_within_cluster: bool = False
              ) -> tuple[LocalPubSub, tuple[tuple[str, ProxySubMsg], ...]]:
    """Send what changed in this queue manager's demand, as ``(destination, message)``: a
    new proxy subscription, an update (SUBSCRIBE again with the new set of demand paths,
    when the set sent to that neighbour changed) and a cancellation when the set is empty;
    ``exists(name)`` says whether a neighbour still exists (a deleted one is simply
    forgotten). Without aggregation (a mutant) each changed entry is cancelled and sent
    anew."""
    want = desired_proxy_paths(space, ps, links, me, aggregate=aggregate, relay_within_cluster=relay_within_cluster)
    if want == ps.sent_paths:
        return ps, ()
    sends: list[tuple[str, ProxySubMsg]] = []
    if aggregate:
        now = dict(want)
        for (n, v, t), _ in ps.sent_paths:
            if (n, v, t) not in now and exists(n):
                sends.append((n, ProxySubMsg(UNSUBSCRIBE, t, me, v)))
        before = dict(ps.sent_paths)
        for (n, v, t), paths in want:
            if before.get((n, v, t)) != paths:
                sends.append((n, ProxySubMsg(SUBSCRIBE, t, me, v, paths)))
    else:
        for (n, v, t), paths in _multiset_minus(ps.sent_paths, want):
            if exists(n):
                sends.append((n, ProxySubMsg(UNSUBSCRIBE, t, me, v, paths)))
        for (n, v, t), paths in _multiset_minus(want, ps.sent_paths):
            sends.append((n, ProxySubMsg(SUBSCRIBE, t, me, v, paths)))
    return _with_sent(ps, want), tuple(sends)


def receive_proxy(ps: LocalPubSub, msg: ProxySubMsg, me: str = "", aggregate: bool = True,
                  space: TopicSpace | None = None) -> tuple[LocalPubSub, bool]:
    """Register, update or cancel a neighbour's proxy subscription; returns (state, is_new).
    Paths through this queue manager (``me``) are dropped (002 §How loop detection works);
    a proxy subscription left with none is as good as cancelled. A new one's WILDCARD(BLOCK)
    nodes are captured from ``space`` (:func:`_captured`); an update keeps them."""
    key = (msg.sender, msg.via, msg.topic)
    paths = tuple(sorted(p for p in msg.paths if me not in p))
    if not aggregate:
        held = list(ps.proxy_paths)
        if msg.op == SUBSCRIBE:
            if not paths:
                return ps, False
            new = key not in ps.proxies
            ps = _with_held(ps, held + [(key, paths)])
            return (_captured(ps, space, key) if new else ps), True
        if (key, paths) not in held:
            return ps, False
        held.remove((key, paths))
        return _with_held(ps, held), False
    if msg.op == UNSUBSCRIBE:
        paths = ()
    had = key in ps.proxies
    rest = [h for h in ps.proxy_paths if h[0] != key]
    if paths:
        ps = _with_held(ps, rest + [(key, paths)])
        return (ps, False) if had else (_captured(ps, space, key), True)
    return (_with_held(ps, rest), False) if had else (ps, False)


# --- routing a publication -----------------------------------------------------------------
@value
class Routed:
    """What processing one publication at a queue manager produced."""

    ps: LocalPubSub
    sends: tuple[tuple[str, PublicationMsg], ...] = ()
    errors: tuple[PubSubError, ...] = ()
    published: int = 0  # serial numbers used by republications


def _forced_routes(ps: LocalPubSub, topic: str) -> tuple[ProxyKey, ...]:
    """The multilevel-wildcard proxy subscriptions registered here that match ``topic``: the
    form a PROXYSUB(FORCE) proxy subscription takes (T/#, DESIGN §3.3). Only these are kept
    in the ghost, so that histories differing in other proxies' timing stay one state."""
    return tuple(k for k in ps.proxies if k[2].endswith("#") and compile_subscription(k[2]).matches(topic))


def forward_targets(space: TopicSpace, ps: LocalPubSub, topic: str, came_from: str | None, came_via: str | None,
                    *, aggregate: bool = True, relay_within_cluster: bool = False,
                    links: tuple[Link, ...] = ()) -> tuple[Link, ...]:
    """The neighbours a publication on ``topic`` goes to: each neighbour other than the one
    it came from with a matching proxy subscription here (WILDCARD(BLOCK) applies to
    wildcard proxy subscriptions: DESIGN §3.2, with the nodes captured when each was
    registered, ``LocalPubSub.proxy_blocking``), one copy per neighbour (publication
    aggregation) unless ``aggregate`` is off (a mutant: one per matching proxy). A
    publication that arrived is relayed only as :func:`_relay_allowed` says (``links`` are
    this queue manager's current links: they say who is a member of which cluster)."""
    out: list[Link] = []
    cluster = _topic_facts(space, topic)[1] if came_from is not None else ""
    blocking = dict(ps.proxy_blocking)
    for n, v, t in ps.proxies:
        if n == came_from:
            continue
        if not relay_within_cluster and not _relay_allowed(cluster, came_from, came_via, Link(n, v), links):
            continue  # one hop, no routing between clusters, no duplicate route within a cluster
        # WILDCARD(BLOCK) as captured when the proxy subscription was registered here
        # (002 §Controlling wildcard usage with the WILDCARD property; ``_captured``)
        if not compile_subscription(t).matches(topic) or is_blocked(blocking.get((n, v, t), ()), topic):
            continue
        link = Link(n, v)
        if aggregate and any(x.neighbour == n for x in out):
            continue
        out.append(link)
    return tuple(out)


def route_publication(space: TopicSpace, ps: LocalPubSub, pub: Publication, *, me: str, qmid: str,
                      came_from: str | None = None, came_via: str | None = None, scope_qmgr: bool = False,
                      step: int = 0, next_serial: int = 0, check_fingerprints: bool = True,
                      aggregate: bool = True, relay_within_cluster: bool = False,
                      ignore_subscope_remote: bool = False, links: tuple[Link, ...] = (),
                      _chain: frozenset = frozenset()) -> Routed:
    """A publication at this queue manager: published here (``came_from`` None) or arrived
    from a neighbour with fingerprints ``pub.fingerprints`` (DESIGN §3.3 steps 1-3), then
    any republishing applications it feeds (which may publish again, recursively; each
    republisher at most once per chain, as MQSO_NO_LOCAL keeps its own publications from it).
    """
    arrived = came_from is not None
    # 1. 002 §How loop detection works: "If its own fingerprint is already present ... the
    # queue manager discards the message, and adds an entry to the error log."
    if arrived and check_fingerprints and qmid in pub.fingerprints:
        detail = f"publication {pub.topic!r} ({pub.origin}#{pub.serial}) from {came_from} already visited {qmid}; discarded"
        return Routed(ps, errors=(PubSubError("LOOP_DETECTED", detail),))
    # 2. local delivery
    if scope_qmgr and not arrived and pub.retain:
        pub = replace(pub, local_only=True)
    before = len(ps.deliveries)
    ps, errors = publish(space, ps, pub, remote=arrived and not ignore_subscope_remote)
    if errors:
        return Routed(ps, errors=errors)
    delivered = ps.deliveries[before:]
    # 3. forward: 002 §Publication scope (MQPMO_SCOPE_QMGR overrides PUBSCOPE)
    forwardable = not scope_qmgr and space.effective(pub.topic, "pubscope") == SCOPE_ALL
    if not arrived:
        ps = replace(ps, published_log=ps.published_log + (
            PublishedEntry(pub.serial, pub.topic, step, forwardable, ps.next_order, pub.retain,
                           pub.fingerprints, pub.lineage, _forced_routes(ps, pub.topic) if forwardable else ()),))
    sends: list[tuple[str, PublicationMsg]] = []
    if forwardable:
        rfp = encode_rfp_folder(pub.fingerprints + (qmid,))
        for link in forward_targets(space, ps, pub.topic, came_from, came_via, aggregate=aggregate,
                                    relay_within_cluster=relay_within_cluster, links=links):
            sends.append((link.neighbour, PublicationMsg(pub.topic, pub.origin, pub.serial, pub.retain, me,
                                                         link.via, rfp, came_via, lineage=pub.lineage)))
    result = Routed(ps, tuple(sends), (), next_serial)
    # 4. republishing applications fed by this delivery
    for d in delivered:
        for rep in ps.republishers:
            if rep.subscription != d.subscription or rep.subscription in _chain:
                continue
            result = _republish(space, result, rep, pub, me=me, qmid=qmid, step=step,
                                check_fingerprints=check_fingerprints, aggregate=aggregate, relay_within_cluster=relay_within_cluster,
                                ignore_subscope_remote=ignore_subscope_remote, links=links,
                                chain=_chain | {rep.subscription})
    return result


def _republish(space: TopicSpace, done: Routed, rep: Republisher, pub: Publication, *, chain: frozenset, me: str,
               qmid: str, step: int, **flags) -> Routed:
    # 002 §Loop detection fingerprint format: MQACTP_FORWARD continues the chain of
    # fingerprints; MQACTP_NEW (the default) starts a new one
    fps = pub.fingerprints if rep.action == ACTION_FORWARD else ()
    again = Publication(rep.topic or pub.topic, me, done.published, pub.retain, fps,
                        pub.lineage + (f"{me}:{rep.subscription}",))
    inner = route_publication(space, done.ps, again, me=me, qmid=qmid, step=step,
                              next_serial=done.published + 1, _chain=chain, **flags)
    return Routed(inner.ps, done.sends + inner.sends, done.errors + inner.errors, inner.published)


def retained_for(space: TopicSpace, ps: LocalPubSub, topic: str, me: str, qmid: str, via: str,
                 requester: str = "", *, sender: str = "", links: tuple[Link, ...] = ()
                 ) -> tuple[PublicationMsg, ...]:
    """002 §Retained publications in a distributed publish/subscribe topology / DESIGN
    §3.3: a queue manager receiving a new proxy subscription sends its matching retained
    publications (those its PUBSCOPE lets out, and not published with MQPMO_SCOPE_QMGR) to
    the requester, as answers to that proxy subscription (see :func:`receive_retained_answer`).
    A wildcard proxy subscription is blocked by WILDCARD(BLOCK) here as for live publications
    (002 §Controlling wildcard usage with the WILDCARD property: such subscriptions "do not
    receive publications made to this topic or to topic strings more specific"); it has just
    been registered, so its captured nodes are those of the topic space now. A retained
    publication that arrived from the requester (``requester``: its QMID, the last
    fingerprint such a publication carries) is not sent back to it, as a live publication is
    not (DESIGN §3.3 step 3: "each neighbour other than N"): the requester would find its
    own fingerprint and log a loop where there is none (002 §How loop detection works; a
    user trial, session 37). One that arrived from another neighbour is sent to ``sender``
    (the requester's name) only where :func:`_relay_allowed` would relay it (``links``: this
    queue manager's links): a retained publication received from a member of a cluster
    is not passed on to another member (002 §Overlapping cluster support, and
    publish/subscribe; §Topic spaces, "without delivering duplicate publications")."""
    matcher = compile_subscription(topic)
    blocking = space.blocking_nodes(topic)
    out = []
    for pub in ps.retained:
        if is_blocked(blocking, pub.topic) or (pub.came_from and requester and pub.fingerprints[-1:] == (requester,)):
            continue  # (an MQACTP_FORWARD republication made here keeps its chain: a real loop)
        if pub.came_from and sender and not _relay_allowed(_topic_facts(space, pub.topic)[1], pub.came_from,
                                                           pub.came_via, Link(sender, via), links):
            continue
        if matcher.matches(pub.topic) and space.effective(pub.topic, "pubscope") == SCOPE_ALL and not pub.local_only:
            rfp = encode_rfp_folder(pub.fingerprints + (qmid,))
            prev = pub.came_via if pub.came_from else None  # ghost for PS-ONE-HOP-CLUSTER
            out.append(PublicationMsg(pub.topic, pub.origin, pub.serial, True, me, via, rfp, prev, topic))
    return tuple(out)


def answer_recipients(space: TopicSpace, ps: LocalPubSub, pub: Publication, answers: str) -> tuple[Subscription, ...]:
    """The local subscriptions a retained answer to proxy subscription ``answers`` is for.

    002 §Retained publications: a new subscriber receives the retained publication unless
    it asked for new publications only (MQSO_NEW_PUBLICATIONS_ONLY); "Existing subscribers
    can ask for duplicate copies" (MQSUBRQ, not modelled) — so they get none unasked. The
    answer is for the subscriptions whose demand the proxy subscription carries (proxy
    topic string ``answers``), that did not ask for new publications only and do not yet
    hold this publication; it may still bring a second, different retained publication
    (002 §Retained publications in a distributed publish/subscribe topology: "multiple
    retained publications might be received").
    """
    held = {(d.subscription, d.order, d.origin, d.serial) for d in ps.deliveries}
    return tuple(sub for sub in recipients(space, ps, pub.topic, remote=True)
                 if not sub.new_only and proxy_topic(sub) == answers
                 and (sub.name, sub.order, pub.origin, pub.serial) not in held)


def receive_retained_answer(space: TopicSpace, ps: LocalPubSub, pub: Publication, answers: str, *, me: str, qmid: str,
                            came_from: str, came_via: str, check_fingerprints: bool = True,
                            relay_within_cluster: bool = False, links: tuple[Link, ...] = ()) -> Routed:
    """A retained publication arrives in answer to this queue manager's proxy subscription
    ``answers`` (002 §Retained publications in a distributed publish/subscribe topology):
    loop detection as for any publication (002 §How loop detection works), kept as the
    topic's retained publication, delivered to :func:`answer_recipients`, and passed on
    to the neighbours whose proxy subscription ``answers`` held here is what this queue
    manager's proxy subscription carried (the relay rules of :func:`_relay_allowed` apply),
    if its PUBSCOPE for the topic lets it forward, as for a live publication (002
    §Publication scope; a user trial, session 37)."""
    if check_fingerprints and qmid in pub.fingerprints:
        detail = (f"retained publication {pub.topic!r} ({pub.origin}#{pub.serial}) from {came_from} already "
                  f"visited {qmid}; discarded")
        return Routed(ps, errors=(PubSubError("LOOP_DETECTED", detail),))
    ps = retain(ps, replace(pub, came_from=came_from, came_via=came_via))
    new = tuple(delivery_to(space, sub, pub, retained=True) for sub in answer_recipients(space, ps, pub, answers))
    ps = replace(ps, deliveries=ps.deliveries + new) if new else ps
    if space.effective(pub.topic, "pubscope") != SCOPE_ALL:
        return Routed(ps)
    cluster = _topic_facts(space, answers)[1]
    rfp = encode_rfp_folder(pub.fingerprints + (qmid,))
    blocking = dict(ps.proxy_blocking)
    sends = []
    for n, v, t in ps.proxies:
        if t != answers or n == came_from or any(d == n for d, _ in sends):
            continue
        if is_blocked(blocking.get((n, v, t), ()), pub.topic):
            continue  # WILDCARD(BLOCK) here, as forward_targets relays a live publication
        if not relay_within_cluster and not _relay_allowed(cluster, came_from, came_via, Link(n, v), links):
            continue
        sends.append((n, PublicationMsg(pub.topic, pub.origin, pub.serial, True, me, v, rfp, came_via, answers)))
    return Routed(ps, tuple(sends))
