"""A queue manager's topic space in Z3 (mirrors ``spec.topic_tree.TopicSpace``).

The tree's shape is concrete — every node of depth <= D over a finite alphabet of level
names — and what sits at each node is symbolic: whether a local topic object and/or a
cluster topic record is defined there, and each one's PUBSCOPE, SUBSCOPE, CLUSTER and
WILDCARD. "Every tree of depth <= D" is every assignment of these variables. A fixed
tree (a user's configuration) is the same encoding with the variables set by facts.

Mirrored rules (002 §Administrative topic objects, §Overlapping topics, §Controlling
wildcard usage with the WILDCARD property; DESIGN §3.2):
- ``object_at``: a local object beats a cluster record at the same node;
- ``effective_at``: ASPARENT (blank CLUSTER) walks up to the next node with an object,
  ending at SYSTEM.BASE.TOPIC's values;
- ``blocking_nodes`` + ``is_blocked``: a wildcard subscription is blocked below every
  BLOCK node strictly deeper than its fixed prefix that extends it.

Abstracted away: the order among several cluster records for one node (one record per
node here: the latest wins in the spec, and only the winner matters).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

import z3

from spec.symbolic.base import checkpoint, ticking
from spec.symbolic.topics import (
    SEPARATOR,
    SymSubscription,
    SymTopic,
    char_prefix_cut,
    level_prefix_length,
)
from spec.topic_tree import BASE_DEFAULTS

# attribute value codes (0 always means "inherit")
SCOPES = ("ASPARENT", "QMGR", "ALL")
WILDCARDS = ("PASSTHRU", "BLOCK")  # WILDCARD has no ASPARENT in MQ
Node = tuple[str, ...]


@dataclass(frozen=True)
class NodeVars:
    """What may sit at one node: a local object and/or a cluster record, with attributes.
    ``clusters[0]`` is blank (= inherit); a cluster record always names a cluster."""

    node: Node
    local: z3.BoolRef
    record: z3.BoolRef
    local_attrs: dict[str, z3.ArithRef]
    record_attrs: dict[str, z3.ArithRef]

    def present(self) -> z3.BoolRef:
        return z3.Or(self.local, self.record)

    def value(self, attr: str) -> z3.ArithRef:
        """The attribute of ``object_at(node)`` (local beats cluster)."""
        return z3.If(self.local, self.local_attrs[attr], self.record_attrs[attr])


ATTRS = ("pubscope", "subscope", "cluster", "wildcard")


class SymTree:
    """Every topic tree of depth <= ``depth`` over ``names`` (plus the root), one queue
    manager's view. ``clusters`` are the cluster names a CLUSTER attribute may take."""

    def __init__(self, prefix: str, names: Sequence[str], depth: int, clusters: Sequence[str] = ("CL1",),
                 nodes: Sequence[Node] | None = None, records_of: SymTree | None = None) -> None:
        """``records_of``: share that tree's cluster records (queue managers of one cluster
        hold the same cluster topic records; their local objects differ)."""
        self.prefix = prefix
        self.records_of = records_of
        self.names = tuple(names)
        self.depth = depth
        self.clusters = ("",) + tuple(clusters)
        if nodes is None:
            nodes = [n for d in range(1, depth + 1) for n in itertools.product(self.names, repeat=d)]
        self.nodes: dict[Node, NodeVars] = {(): self._vars(())}
        for n in ticking(nodes):
            self.nodes[tuple(n)] = self._vars(tuple(n))

    def _vars(self, node: Node) -> NodeVars:
        tag = f"{self.prefix}@{SEPARATOR.join(node) or '<root>'}"
        def attrs(kind: str) -> dict[str, z3.ArithRef]:
            return {a: z3.Int(f"{tag}.{kind}.{a}") for a in ATTRS}
        if self.records_of is not None:
            shared = self.records_of.nodes[node]
            return NodeVars(node, z3.Bool(f"{tag}.local"), shared.record, attrs("local"), shared.record_attrs)
        return NodeVars(node, z3.Bool(f"{tag}.local"), z3.Bool(f"{tag}.record"), attrs("local"), attrs("record"))

    # --- domains -----------------------------------------------------------------------
    def domain(self) -> list[z3.BoolRef]:
        out: list[z3.BoolRef] = []
        for node, v in ticking(self.nodes.items()):
            for attrs in (v.local_attrs, v.record_attrs):
                out += [z3.And(attrs["pubscope"] >= 0, attrs["pubscope"] < len(SCOPES)),
                        z3.And(attrs["subscope"] >= 0, attrs["subscope"] < len(SCOPES)),
                        z3.And(attrs["cluster"] >= 0, attrs["cluster"] < len(self.clusters)),
                        z3.And(attrs["wildcard"] >= 0, attrs["wildcard"] < len(WILDCARDS))]
            out.append(z3.Implies(v.record, v.record_attrs["cluster"] >= 1))  # a cluster record names its cluster
            if node == ():
                out += [v.local, z3.Not(v.record)]  # SYSTEM.BASE.TOPIC is always there, local
        return out

    def non_default(self) -> z3.ArithRef:
        """How many objects the tree defines below the root and root attributes altered:
        a counterexample's size (minimised)."""
        terms = []
        for node, v in ticking(self.nodes.items()):
            if node == ():
                base = [v.local_attrs["pubscope"] != SCOPES.index("ALL"), v.local_attrs["subscope"] != SCOPES.index("ALL"),
                        v.local_attrs["cluster"] != 0, v.local_attrs["wildcard"] != 0]
                terms += [z3.If(b, 1, 0) for b in base]
            else:
                terms += [z3.If(v.local, 1, 0), z3.If(v.record, 1, 0)]
        return z3.Sum(terms) if terms else z3.IntVal(0)

    # --- ancestry ----------------------------------------------------------------------
    def _ancestor(self, node: Node, length: z3.ArithRef, items: Sequence[z3.ArithRef]) -> z3.BoolRef:
        """``node`` is an ancestor-or-self of the level path (``length``, ``items``)."""
        if len(node) > len(items):
            return z3.BoolVal(False)
        return z3.And(length >= len(node), *[items[k] == self.names.index(level) for k, level in enumerate(node)])

    def under(self, topic: SymTopic, node: Node) -> z3.BoolRef:
        """``is_blocked((node,), topic)``: the topic is at or below ``node``."""
        assert not topic.charwise and topic.alphabet == self.names
        return self._ancestor(node, topic.length, topic.items)

    # --- resolution --------------------------------------------------------------------
    def _effective_path(self, attr: str, length: z3.ArithRef, items: Sequence[z3.ArithRef]) -> z3.ArithRef:
        out: z3.ArithRef = z3.IntVal(_base_code(attr))
        for node in ticking(sorted(self.nodes, key=len)):  # deeper ancestors override shallower ones
            v = self.nodes[node]
            value = v.value(attr)
            set_here = z3.And(self._ancestor(node, length, items), v.present(), value != 0)
            out = z3.If(set_here, value, out)
        return out

    def effective(self, attr: str, topic: SymTopic) -> z3.ArithRef:
        """``TopicSpace.effective(topic, attr)`` as a code (``SCOPES``/``clusters`` index)."""
        return self._effective_path(attr, topic.length, topic.items)

    def effective_for_subscription(self, attr: str, sub: SymSubscription) -> z3.ArithRef:
        """``TopicSpace.effective_for_subscription`` (topic scheme): at the fixed prefix, or
        at an object whose topic string is the subscription's whole string with its
        wildcards (``TopicSpace.subscription_node``: 002 §Overlapping topics)."""
        out = self._effective_path(attr, level_prefix_length(sub), sub.tokens)
        for node in ticking(sorted(self.nodes, key=len)):
            if not any(level in ("#", "+") for level in node) or len(node) > len(sub.tokens):
                continue
            codes = [sub.many if level == "#" else sub.one if level == "+" else sub.alphabet.index(level)
                     for level in node]
            same = z3.And(sub.length == len(node), *[sub.tokens[k] == c for k, c in enumerate(codes)],
                          self.nodes[node].present())
            out = z3.If(same, self.effective_at(attr, node), out)
        return out

    def effective_at(self, attr: str, node: Node) -> z3.ArithRef:
        return self._effective_path(attr, z3.IntVal(len(node)), [z3.IntVal(self.names.index(x)) for x in node])

    # --- WILDCARD(BLOCK) ---------------------------------------------------------------
    def blocks(self, node: Node) -> z3.BoolRef:
        v = self.nodes[node]
        return z3.And(v.present(), v.value("wildcard") == WILDCARDS.index("BLOCK"))

    def blocks_local_only(self, node: Node) -> z3.BoolRef:
        """A broken variant: cluster topic definitions ignored for WILDCARD."""
        v = self.nodes[node]
        return z3.And(v.local, v.local_attrs["wildcard"] == WILDCARDS.index("BLOCK"))

    def blocked(self, sub: SymSubscription, topic: SymTopic, variant: str = "") -> z3.BoolRef:
        """``is_blocked(space.blocking_nodes(sub, scheme), topic)`` (either scheme)."""
        terms = []
        for node in ticking(self.nodes):
            if node == ():
                continue
            below = _char_deeper(node, sub) if sub.charwise else _level_deeper(self, node, sub)
            at = char_under(node, topic) if topic.charwise else self.under(topic, node)
            block = self.blocks_local_only(node) if variant == "local_objects_only" else self.blocks(node)
            terms.append(z3.And(block, below, at))
        return z3.And(sub.has_wildcard(), z3.Or(terms)) if terms else z3.BoolVal(False)

    # --- decoding ----------------------------------------------------------------------
    def decode(self, model: z3.ModelRef) -> dict[Node, dict[str, dict[str, str]]]:
        """node -> {"local"|"record": {attr: value}} for the objects the model defines."""
        def val(x: z3.ArithRef) -> int:
            return model.eval(x, model_completion=True).as_long()
        out: dict[Node, dict[str, dict[str, str]]] = {}
        for node, v in ticking(self.nodes.items()):
            found = {}
            for kind, present, attrs in (("local", v.local, v.local_attrs), ("record", v.record, v.record_attrs)):
                if z3.is_true(model.eval(present, model_completion=True)):
                    found[kind] = {"pubscope": SCOPES[val(attrs["pubscope"])], "subscope": SCOPES[val(attrs["subscope"])],
                                   "cluster": self.clusters[val(attrs["cluster"])],
                                   "wildcard": WILDCARDS[val(attrs["wildcard"])]}
            if found:
                out[node] = found
        return out

    def pin(self, node: Node, kind: str, a: dict[str, str]) -> list[z3.BoolRef]:
        """Constraints saying a ``kind`` ("local"/"record") object with attributes ``a`` sits at ``node``."""
        v = self.nodes[node]
        present, attrs = (v.local, v.local_attrs) if kind == "local" else (v.record, v.record_attrs)
        return [present, attrs["pubscope"] == SCOPES.index(a["pubscope"]),
                attrs["subscope"] == SCOPES.index(a["subscope"]),
                attrs["cluster"] == self.clusters.index(a["cluster"]),
                attrs["wildcard"] == WILDCARDS.index(a["wildcard"])]

    def fix(self, objects: dict[Node, dict[str, dict[str, str]]]) -> list[z3.BoolRef]:
        """Constraints making the tree exactly ``objects`` (the shape :meth:`decode` returns)."""
        out = []
        for node, v in ticking(self.nodes.items()):
            given = objects.get(node, {})
            for kind, present, attrs in (("local", v.local, v.local_attrs), ("record", v.record, v.record_attrs)):
                if kind not in given:
                    out.append(z3.Not(present))
                    continue
                a = given[kind]
                out += [present, attrs["pubscope"] == SCOPES.index(a["pubscope"]),
                        attrs["subscope"] == SCOPES.index(a["subscope"]),
                        attrs["cluster"] == self.clusters.index(a["cluster"]),
                        attrs["wildcard"] == WILDCARDS.index(a["wildcard"])]
        return out


def _base_code(attr: str) -> int:
    value = BASE_DEFAULTS[attr]
    if attr in ("pubscope", "subscope"):
        return SCOPES.index(value)
    if attr == "wildcard":
        return WILDCARDS.index(value)
    return 0  # cluster: blank


def _level_deeper(tree: SymTree, node: Node, sub: SymSubscription) -> z3.BoolRef:
    """Topic scheme: ``node`` is strictly deeper than the subscription's fixed prefix and
    extends it (``len(node) > len(prefix) and node[:len(prefix)] == prefix``)."""
    p = level_prefix_length(sub)
    same = [z3.Implies(k < p, sub.tokens[k] == tree.names.index(level)) for k, level in enumerate(node)
            if k < len(sub.tokens)]
    return z3.And(p < len(node), *same)


def _char_deeper(node: Node, sub: SymSubscription) -> z3.BoolRef:
    """Character scheme: the same, with the prefix cut back to the last ``/`` before the
    first wildcard: ``"/".join(node)`` starts with the cut-off head plus ``/`` (or the
    prefix is empty)."""
    text = SEPARATOR.join(node)
    cut = char_prefix_cut(sub)
    options = [cut == -1]
    checkpoint()
    for q, ch in enumerate(text):
        if ch == SEPARATOR and q < len(sub.tokens):
            options.append(z3.And(cut == q, *[sub.tokens[j] == sub.alphabet.index(text[j]) for j in range(q)]))
    return z3.Or(options)


def char_under(node: Node, topic: SymTopic) -> z3.BoolRef:
    """Character representation of ``is_blocked((node,), topic)``."""
    text = SEPARATOR.join(node)
    if len(text) > topic.bound:
        return z3.BoolVal(False)
    same = [topic.items[j] == topic.alphabet.index(ch) for j, ch in enumerate(text)]
    boundary = topic.length == len(text)
    if len(text) < topic.bound:
        boundary = z3.Or(boundary, z3.And(topic.length > len(text),
                                          topic.items[len(text)] == topic.alphabet.index(SEPARATOR)))
    return z3.And(topic.length >= len(text), *same, boundary)
