"""Publish/subscribe at one queue manager: subscriptions, delivery, groups, retained publications.

Source: 002 §Subscribers and subscriptions, §Subscription durability, §Retained
publications, §Controlling wildcard usage with the WILDCARD property, §Overlapping topics
(grouped subscriptions); DESIGN §3.3 steps 2 (delivery) and the retained-publication rule.
The distributed parts of §3.3 (proxy subscriptions, forwarding, loop-detection
fingerprints) build on these functions: a publication that arrives from another queue
manager is delivered by the same :func:`deliver`, with ``remote=True``.

Abstracted away: message payloads and properties (a publication is its topic string and
its identity), selection strings, subscription expiry, managed queues (a delivery is
recorded against its subscription; DEST is kept for display), authorities.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from spec.topic_tree import Node, TopicSpace, is_blocked
from spec.topics import compile_subscription

SCOPE_ALL = "ALL"
SCOPE_QMGR = "QMGR"


@dataclass(frozen=True, slots=True)
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


@dataclass(frozen=True, slots=True)
class Publication:
    """One publication: its topic, its identity (origin queue manager and serial number),
    whether it is retained, and the loop-detection fingerprints it carries (DESIGN §3.3)."""

    topic: str
    origin: str
    serial: int
    retain: bool = False
    fingerprints: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Delivery:
    """A publication put to a subscription's destination."""

    subscription: str
    topic: str
    origin: str
    serial: int
    retained: bool = False  # delivered from the retained store at subscribe time


@dataclass(frozen=True, slots=True)
class PubSubError:
    """An entry for the queue manager's error log, or a failed MQI call's reason code."""

    code: str
    detail: str


@dataclass(frozen=True, slots=True)
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

    def subscription(self, name: str) -> Subscription | None:
        for sub in self.subscriptions:
            if sub.name == name:
                return sub
        return None


def arrived_from_neighbour(pub: Publication) -> bool:
    """A publication forwarded by another queue manager carries that queue manager's
    fingerprint (002 §How loop detection works); a local publication carries none."""
    return bool(pub.fingerprints)


def effective_scope(space: TopicSpace, sub: Subscription) -> str:
    """ALL when the subscription may receive publications from other queue managers.

    002 §Subscription scope: the subscription's own option (MQSO_SCOPE_QMGR) or the
    SUBSCOPE of the topic object it resolves to, inherited through ASPARENT.
    """
    if sub.scope == SCOPE_QMGR:
        return SCOPE_QMGR
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
    new = tuple(
        Delivery(sub.name, pub.topic, pub.origin, pub.serial) for sub in recipients(space, ps, pub.topic, remote)
    )
    return replace(ps, deliveries=ps.deliveries + new) if new else ps


def retain(ps: LocalPubSub, pub: Publication) -> LocalPubSub:
    """Keep ``pub`` as the topic's retained publication, replacing the previous one."""
    kept = tuple(p for p in ps.retained if p.topic != pub.topic) + (pub,)
    return replace(ps, retained=tuple(sorted(kept, key=lambda p: p.topic)))


def clear_retained(ps: LocalPubSub, topic: str) -> LocalPubSub:
    """CLEAR TOPICSTR(topic) CLTRTYPE(RETAINED) (002 §Topic trees, "What is an unused topic?")."""
    return replace(ps, retained=tuple(p for p in ps.retained if p.topic != topic))


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
    ps = replace(ps, subscriptions=ps.subscriptions + (created,), next_order=ps.next_order + 1)
    if new_publications_only:
        return ps, ()
    sent = tuple(
        Delivery(created.name, pub.topic, pub.origin, pub.serial, retained=True)
        for pub in ps.retained
        if _matches(created, pub.topic) and _eligible(space, created, pub.topic, remote=arrived_from_neighbour(pub))
    )
    return replace(ps, deliveries=ps.deliveries + sent), ()


def unsubscribe(ps: LocalPubSub, name: str) -> tuple[LocalPubSub, tuple[PubSubError, ...]]:
    """Remove a subscription (MQCLOSE with MQCO_REMOVE_SUB, or DELETE SUB)."""
    if ps.subscription(name) is None:
        return ps, (PubSubError("MQRC_NO_SUBSCRIPTION", f"no subscription named {name}"),)
    return replace(ps, subscriptions=tuple(s for s in ps.subscriptions if s.name != name)), ()
