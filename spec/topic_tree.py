"""A queue manager's topic space: which topic object governs a topic string, and its attributes.

Source: 002 §Topics, §Administrative topic objects ("the topic inherits the attributes of
its closest ancestor in the topic tree that you have associated with an administrative
topic object"), §Controlling wildcard usage with the WILDCARD property, §Wildcards and
cluster topics (subscription resolution), §Overlapping topics (local beats cluster; the
latest cluster definition wins and a conflict is logged), §Multiple cluster topic
definitions; DESIGN §3.2.

Nodes of the tree are tuples of levels, not strings: the root (SYSTEM.BASE.TOPIC, topic
string empty) is ``()`` and ``'/Football'`` is ``('', 'Football')``, so an empty first
level is never confused with the root.

A topic object here is anything with the attributes ``name``, ``topicstr``, ``cluster``,
``pubscope``, ``subscope``, ``dursub``, ``wildcard``, ``proxysub``, ``pub``, ``sub``
(``spec.objects.TopicObject`` and cluster topic records both qualify). Abstracted away:
topic nodes created dynamically by publishers and subscribers (they carry no attributes of
their own, so they change no answer), authorities, TREELIFE.
"""

from __future__ import annotations

from typing import Any

from spec import lookup
from spec.topics import compile_subscription, split_levels
from spec.values import replace, value

ASPARENT = "ASPARENT"
BASE_TOPIC = "SYSTEM.BASE.TOPIC"

# 002 §Administrative topic objects / DESIGN §3.2: SYSTEM.BASE.TOPIC's values, the end of
# every ASPARENT walk. Used only if SYSTEM.BASE.TOPIC itself says ASPARENT (MQ forbids it).
BASE_DEFAULTS: dict[str, str] = {
    "pubscope": "ALL",
    "subscope": "ALL",
    "dursub": "YES",
    "pub": "ENABLED",
    "sub": "ENABLED",
    "cluster": "",
    "wildcard": "PASSTHRU",
    "proxysub": "FIRSTUSE",
}

Node = tuple[str, ...]


def node_of(topicstr: str) -> Node:
    """The tree node of a topic string; the empty string (SYSTEM.BASE.TOPIC) is the root.

    >>> node_of(""), node_of("Sports/Football"), node_of("/Football")
    ((), ('Sports', 'Football'), ('', 'Football'))
    """
    return () if topicstr == "" else split_levels(topicstr)


def _inherits(attr: str, value: Any) -> bool:
    # ASPARENT values inherit; for CLUSTER a blank name means "as parent" (DESIGN §3.2)
    if attr == "cluster":
        return not (value or "").strip()
    return value == ASPARENT


@value
class ClusterConflict:
    """Two or more cluster topic definitions for one topic string (002 §Overlapping topics:
    "it is an error. An error message is written to the error log")."""

    topicstr: str
    names: tuple[str, ...]
    winner: str


@value
class TopicSpace:
    """Local topic objects plus the cluster topic records this queue manager has received.

    ``local`` must contain SYSTEM.BASE.TOPIC; ``cluster`` is in arrival order (the last
    record for a topic string is the most recent).
    """

    local: tuple[Any, ...]
    cluster: tuple[Any, ...] = ()

    # --- which object sits at a node ------------------------------------------------
    def object_at(self, node: Node) -> Any | None:
        """The object governing exactly this node, or None.

        002 §Overlapping topics: "If the topic is defined locally, then it takes precedence
        over a cluster topic that is defined elsewhere and resolves to the same topic
        string"; among cluster records the latest wins.
        """
        # the node's topic string is its levels joined (node_of inverts it, but for ('',),
        # which no topic string has): a table lookup, not a scan of every topic object —
        # each DEFINE SUB resolves several nodes, and 10^4 topics must still load in seconds
        topicstr = "/".join(node)
        obj = lookup.first(self.local, "topicstr", topicstr)
        if obj is not None and node_of(obj.topicstr) == node:
            return obj
        latest = None
        for record in self.cluster:
            if record.topicstr == topicstr and node_of(record.topicstr) == node:
                latest = record
        return latest

    def conflicts(self) -> tuple[ClusterConflict, ...]:
        """Topic strings with more than one differing cluster definition (sorted)."""
        by_string: dict[str, list[Any]] = {}
        for record in self.cluster:
            by_string.setdefault(record.topicstr, []).append(record)
        out = []
        for topicstr in sorted(by_string):
            records = by_string[topicstr]
            if len(set(records)) > 1:
                out.append(ClusterConflict(topicstr, tuple(r.name for r in records), records[-1].name))
        return tuple(out)

    # --- resolution -----------------------------------------------------------------
    def resolve_node(self, node: Node) -> tuple[Node, Any]:
        """The nearest ancestor-or-self node that has an object, and that object."""
        for depth in range(len(node), -1, -1):
            obj = self.object_at(node[:depth])
            if obj is not None:
                return node[:depth], obj
        raise AssertionError("SYSTEM.BASE.TOPIC missing from the topic space")

    def resolve_topic(self, topic: str) -> Any:
        """The topic object a publication on ``topic`` resolves to (002 §Topics).

        >>> from types import SimpleNamespace as O
        >>> base = O(name="SYSTEM.BASE.TOPIC", topicstr="")
        >>> rugby = O(name="Rugby", topicstr="Sports/Rugby")
        >>> TopicSpace((base, rugby)).resolve_topic("Sports/Rugby/Leeds").name
        'Rugby'
        >>> TopicSpace((base, rugby)).resolve_topic("Sports").name
        'SYSTEM.BASE.TOPIC'
        """
        return self.resolve_node(node_of(topic))[1]

    def subscription_node(self, subscription: str, scheme: str = "topic") -> Node:
        """Where a subscription's topic object is looked up from.

        002 §Wildcards and cluster topics: "Truncate the topic string to the first
        wildcard. Scan left through the topic string looking for the first topic that has
        an associated administrative topic object." (``Sports/#/Leeds`` -> ``Sports``.)
        But a topic object whose TOPICSTR is the subscription's whole topic string,
        wildcards included, is that subscription's object: 002 §Overlapping topics defines
        ``TOPIC(A) TOPICSTR('Football/result/#') SUBSCOPE(QMGR)`` and says "A subscription
        to topic A receives nothing. SUBSCOPE(QMGR), and the publication is on the other
        queue manager" (docs/decisions.md "A second user trial").
        """
        whole = node_of(subscription)
        matcher = compile_subscription(subscription, scheme)
        if matcher.has_wildcard and self.object_at(whole) is not None:
            return whole
        return matcher.prefix

    def resolve_subscription(self, subscription: str, scheme: str = "topic") -> Any:
        """The topic object a subscription resolves to.

        >>> from types import SimpleNamespace as O
        >>> base = O(name="SYSTEM.BASE.TOPIC", topicstr="")
        >>> rugby = O(name="Rugby", topicstr="Sports/Rugby")
        >>> TopicSpace((base, rugby)).resolve_subscription("Sports/#/Leeds").name
        'SYSTEM.BASE.TOPIC'
        """
        return self.resolve_node(self.subscription_node(subscription, scheme))[1]

    def effective_at(self, node: Node, attr: str) -> str:
        """An attribute's effective value at a node: ASPARENT (and blank CLUSTER) walk up to
        the next ancestor with an object, ending at SYSTEM.BASE.TOPIC (002 §Administrative
        topic objects, "Inheriting attributes")."""
        for depth in range(len(node), -1, -1):
            obj = self.object_at(node[:depth])
            if obj is None:
                continue
            value = getattr(obj, attr)
            if not _inherits(attr, value):
                return value
        return BASE_DEFAULTS[attr]

    def effective(self, topic: str, attr: str) -> str:
        """``effective_at`` for a published topic string."""
        return self.effective_at(node_of(topic), attr)

    def effective_for_subscription(self, subscription: str, scheme: str, attr: str) -> str:
        """``effective_at`` at a subscription's resolution node."""
        return self.effective_at(self.subscription_node(subscription, scheme), attr)

    def cluster_of(self, topic: str) -> str:
        """The cluster a topic belongs to ('' = not a cluster topic; DESIGN §3.2)."""
        return (self.effective(topic, "cluster") or "").strip()

    # --- WILDCARD(BLOCK) ------------------------------------------------------------
    def blocking_nodes(self, subscription: str, scheme: str = "topic") -> tuple[Node, ...]:
        """The WILDCARD(BLOCK) nodes that block this subscription, captured at creation.

        002 §Controlling wildcard usage with the WILDCARD property: "Subscriptions made to
        a wildcarded topic less specific than the topic string at this topic object do not
        receive publications made to this topic or to topic strings more specific than
        this topic", and "The value of this attribute is used when subscriptions are
        defined". A subscription without wildcards is never blocked; one whose fixed
        prefix reaches the BLOCK node (``Sports/Football/#``) is not blocked.
        """
        matcher = compile_subscription(subscription, scheme)
        if not matcher.has_wildcard:
            return ()
        prefix = matcher.prefix
        nodes = set()
        for obj in (*self.local, *self.cluster):
            node = node_of(obj.topicstr)
            if len(node) > len(prefix) and node[: len(prefix)] == prefix:
                effective = self.object_at(node)
                if effective is not None and effective.wildcard == "BLOCK":
                    nodes.add(node)
        return tuple(sorted(nodes))


def is_blocked(blocking: tuple[Node, ...], topic: str) -> bool:
    """Is a publication on ``topic`` at or below one of a subscription's blocking nodes?

    >>> is_blocked((("Sports", "Football"),), "Sports/Football/Arsenal")
    True
    >>> is_blocked((("Sports", "Football"),), "Sports/Rugby")
    False
    """
    if not blocking:
        return False
    node = node_of(topic)
    return any(node[: len(b)] == b for b in blocking)


def subscriptions_after_restart(space: TopicSpace, subscriptions: tuple[Any, ...]) -> tuple[Any, ...]:
    """The subscriptions a queue manager still has when it starts again, with their
    WILDCARD(BLOCK) sets taken from the topic space as it is now.

    002 §Subscription durability: a non-durable subscription "exists only as long as the
    application's connection" — a stopped queue manager ends every connection, so only
    durable ones (every DEFINE SUB among them) survive. 002 §Controlling wildcard usage with
    the WILDCARD property: "To force the matching set of topics to be re-evaluated ... you
    must restart the queue manager" (DESIGN §3.2). Subscriptions are anything with
    ``topic``, ``scheme``, ``durable`` and ``blocking`` fields (``spec.pubsub.Subscription``).

    >>> from types import SimpleNamespace as O
    >>> from spec.pubsub import Subscription
    >>> base = O(name="SYSTEM.BASE.TOPIC", topicstr="", wildcard="PASSTHRU")
    >>> football = O(name="F", topicstr="Sports/Football", wildcard="BLOCK")
    >>> subs = (Subscription("ND", "Sports/#", durable=False), Subscription("D", "Sports/#"))
    >>> [(s.name, s.blocking) for s in subscriptions_after_restart(TopicSpace((base, football)), subs)]
    [('D', (('Sports', 'Football'),))]
    """
    return tuple(
        replace(sub, blocking=space.blocking_nodes(sub.topic, sub.scheme)) for sub in subscriptions if sub.durable
    )
