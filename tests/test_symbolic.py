"""No drift: each Z3 encoding in spec/symbolic against the Python function it mirrors.

Exhaustive on every input of a small bound, Hypothesis at larger bounds. The encodings are
evaluated by pinning every symbolic input with the encoding's own ``fix`` constraints and
reading the term from the model Z3 returns (the real solver, no stand-in).
"""

from __future__ import annotations

import itertools
from types import SimpleNamespace

import pytest
import z3
from hypothesis import given, settings
from hypothesis import strategies as st

from spec.pubsub import Subscription
from spec.symbolic.topic_tree import SymTree
from spec.symbolic.topics import matches, sym_subscription, sym_topic
from spec.topic_tree import TopicSpace, is_blocked
from spec.topics import topic_matches


def value(term, fixes) -> bool:
    """The Boolean ``term`` under the constraints ``fixes`` (which pin every input)."""
    s = z3.Solver()
    s.add(*fixes)
    assert s.check() == z3.sat
    return z3.is_true(s.model().eval(term, model_completion=True))


def strings(symbols, max_len, sep):
    for n in range(1, max_len + 1):
        for parts in itertools.product(symbols, repeat=n):
            text = sep.join(parts)
            if text:
                yield text


# ============================================================ wildcard matching, both schemes
TOPIC_NAMES = ("a", "")
CHARS = ("a", "/")


def _match_term(charwise, names, bound):
    topic = sym_topic("t", names, bound, charwise)
    sub = sym_subscription("s", names, bound, charwise)
    return topic, sub, matches(sub, topic)


@pytest.mark.parametrize("charwise, names, sep", [(False, TOPIC_NAMES, "/"), (True, CHARS, "")])
def test_matching_agrees_exhaustively(charwise, names, sep):
    """Every subscription and topic of up to 3 levels (topic scheme) / characters (char scheme)."""
    topic, sub, term = _match_term(charwise, names, 3)
    scheme = "char" if charwise else "topic"
    for s in strings(sub.symbols(), 3, sep):
        solver = z3.Solver()
        solver.add(*sub.fix(s), *sub.domain())
        for t in strings(names, 3, sep):
            solver.push()
            solver.add(*topic.fix(t))
            assert solver.check() == z3.sat
            got = z3.is_true(solver.model().eval(term, model_completion=True))
            solver.pop()
            assert got == topic_matches(s, t, scheme), (s, t, scheme)


@settings(max_examples=40)
@given(st.data())
def test_matching_agrees_at_larger_bounds(data):
    charwise = data.draw(st.booleans())
    names = ("a", "b", "/") if charwise else ("a", "b", "")
    bound = 6
    topic, sub, term = _match_term(charwise, names, bound)
    sep = "" if charwise else "/"
    s_parts = data.draw(st.lists(st.sampled_from(sub.symbols()), min_size=1, max_size=bound))
    t_parts = data.draw(st.lists(st.sampled_from(names), min_size=1, max_size=bound))
    s, t = sep.join(s_parts), sep.join(t_parts)
    if not s or not t:
        return
    assert value(term, sub.fix(s) + topic.fix(t)) == topic_matches(s, t, "char" if charwise else "topic")


# ============================================================ topic tree: resolution and WILDCARD(BLOCK)
BASE = {"pubscope": "ALL", "subscope": "ALL", "cluster": "", "wildcard": "PASSTHRU"}


def _python_space(objects: dict) -> TopicSpace:
    def obj(name, node, attrs):
        return SimpleNamespace(name=name, topicstr="/".join(node), proxysub="FIRSTUSE", dursub="YES",
                               pub="ENABLED", sub="ENABLED", **attrs)
    local = [obj("SYSTEM.BASE.TOPIC", (), objects.get((), {}).get("local", BASE))]
    records = []
    for node, kinds in sorted(objects.items()):
        if node == ():
            continue
        if "local" in kinds:
            local.append(obj("L." + ".".join(node), node, kinds["local"]))
        if "record" in kinds:
            records.append(obj("C." + ".".join(node), node, kinds["record"]))
    return TopicSpace(tuple(local), tuple(records))


def _with_root(objects: dict) -> dict:
    return {(): {"local": BASE}, **objects}


def _obj(wildcard="PASSTHRU", pubscope="ASPARENT", subscope="ASPARENT", cluster=""):
    return {"pubscope": pubscope, "subscope": subscope, "cluster": cluster, "wildcard": wildcard}


# every way a node can hold objects, for the WILDCARD question
NODE_STATES = [{}, {"local": _obj("BLOCK")}, {"record": _obj("BLOCK", cluster="CL1")},
               {"local": _obj("PASSTHRU"), "record": _obj("BLOCK", cluster="CL1")},
               {"local": _obj("BLOCK"), "record": _obj("PASSTHRU", cluster="CL1")}]


@pytest.mark.parametrize("charwise, variant", [(False, ""), (True, ""), (False, "local_objects_only")])
def test_blocking_agrees_exhaustively(charwise, variant):
    """Every tree of depth 2 over one level name (each node in each of NODE_STATES), every
    subscription of up to 2 levels/characters and topic of up to 3, both schemes; the broken
    variant against the Python rule applied to local objects only."""
    t_alpha = ("a", "/") if charwise else ("a", "")
    # a character-scheme tree is over level names; a topic-scheme one shares the topic's alphabet
    tree = SymTree("T", ("a",) if charwise else t_alpha, 2, nodes=[("a",), ("a", "a")])
    topic = sym_topic("t", t_alpha, 3, charwise)
    sub = sym_subscription("s", t_alpha, 3, charwise)
    term = tree.blocked(sub, topic, variant)
    sep = "" if charwise else "/"
    scheme = "char" if charwise else "topic"
    subs = list(strings(sub.symbols(), 2, sep))
    topics = list(strings(t_alpha, 3, sep))
    for states in itertools.product(NODE_STATES, repeat=2):
        objects = _with_root({n: st_ for n, st_ in zip((("a",), ("a", "a")), states) if st_})
        space = _python_space(objects)
        rule_space = TopicSpace(space.local) if variant else space
        solver = z3.Solver()
        solver.add(*tree.domain(), *tree.fix(objects))
        for s in subs:
            blocking = rule_space.blocking_nodes(s, scheme)
            solver.push()
            solver.add(*sub.fix(s))
            for t in topics:
                solver.push()
                solver.add(*topic.fix(t))
                assert solver.check() == z3.sat
                got = z3.is_true(solver.model().eval(term, model_completion=True))
                solver.pop()
                assert got == is_blocked(blocking, t), (objects, s, t, scheme, variant)
            solver.pop()


SCOPES = ("ASPARENT", "QMGR", "ALL")


@st.composite
def trees(draw, names=("a", "b"), depth=3):
    nodes = [n for d in range(1, depth + 1) for n in itertools.product(names, repeat=d)]
    objects = {(): {"local": {"pubscope": draw(st.sampled_from(SCOPES[1:])), "subscope": draw(st.sampled_from(SCOPES[1:])),
                              "cluster": "", "wildcard": "PASSTHRU"}}}
    for node in draw(st.lists(st.sampled_from(nodes), max_size=6, unique=True)):
        kinds = {}
        for kind in draw(st.sampled_from([("local",), ("record",), ("local", "record")])):
            kinds[kind] = {"pubscope": draw(st.sampled_from(SCOPES)), "subscope": draw(st.sampled_from(SCOPES)),
                           "cluster": "CL1" if kind == "record" else draw(st.sampled_from(["", "CL1"])),
                           "wildcard": draw(st.sampled_from(["PASSTHRU", "BLOCK"]))}
        objects[node] = kinds
    return objects


@settings(max_examples=30)
@given(trees(), st.lists(st.sampled_from(("a", "b", "")), min_size=1, max_size=4),
       st.lists(st.sampled_from(("a", "b", "+", "#")), min_size=1, max_size=4))
def test_resolution_agrees(objects, t_levels, s_levels):
    """Closest topic object and ASPARENT inheritance (PUBSCOPE, SUBSCOPE, CLUSTER), for a
    publication's topic and at a subscription's fixed prefix, and WILDCARD(BLOCK), on
    random trees of depth 3."""
    names = ("a", "b", "")
    t, s = "/".join(t_levels), "/".join(s_levels)
    if not t:
        return
    tree = SymTree("T", names, 3, nodes=[n for n in objects if n])
    topic, sub = sym_topic("t", names, 4), sym_subscription("s", names, 4)
    space = _python_space(objects)
    fixes = tree.domain() + tree.fix(objects) + topic.fix(t) + sub.fix(s)
    solver = z3.Solver()
    solver.add(*fixes)
    assert solver.check() == z3.sat
    m = solver.model()
    for attr in ("pubscope", "subscope", "cluster"):
        codes = tree.clusters if attr == "cluster" else SCOPES
        assert codes[m.eval(tree.effective(attr, topic)).as_long()] == space.effective(t, attr), (attr, objects, t)
        want = space.effective_for_subscription(s, "topic", attr)
        assert codes[m.eval(tree.effective_for_subscription(attr, sub)).as_long()] == want, (attr, objects, s)
    blocked = is_blocked(Subscription("S", s, blocking=space.blocking_nodes(s)).blocking, t)
    assert z3.is_true(m.eval(tree.blocked(sub, topic), model_completion=True)) == blocked


def test_resolution_agrees_exhaustively():
    """Every one-node tree (nothing, a local object, a cluster record, or both, over every
    PUBSCOPE and CLUSTER) under every altered SYSTEM.BASE.TOPIC PUBSCOPE, and every topic of
    up to two levels: the effective PUBSCOPE and CLUSTER."""
    names = ("a", "b")
    tree = SymTree("T", names, 1)
    topic = sym_topic("t", names, 2)
    objs = [None] + [_obj(pubscope=p, cluster=c) for p in SCOPES for c in ("", "CL1")]
    records = [None] + [_obj(pubscope=p, cluster="CL1") for p in SCOPES]
    solver = z3.Solver()
    solver.add(*tree.domain())
    terms = {a: tree.effective(a, topic) for a in ("pubscope", "cluster")}
    for base, local, record in itertools.product(("QMGR", "ALL"), objs, records):
        node = {k: v for k, v in (("local", local), ("record", record)) if v is not None}
        objects = {(): {"local": {**BASE, "pubscope": base}}, **({("a",): node} if node else {})}
        space = _python_space(objects)
        solver.push()
        solver.add(*tree.fix(objects))
        for t in strings(names, 2, "/"):
            solver.push()
            solver.add(*topic.fix(t))
            assert solver.check() == z3.sat
            m = solver.model()
            solver.pop()
            assert SCOPES[m.eval(terms["pubscope"]).as_long()] == space.effective(t, "pubscope"), (objects, t)
            assert tree.clusters[m.eval(terms["cluster"]).as_long()] == space.effective(t, "cluster"), (objects, t)
        solver.pop()


def test_an_object_at_a_wildcard_subscriptions_whole_string_agrees_exhaustively():
    """002 §Overlapping topics: TOPIC(A) TOPICSTR('Football/result/#') governs a subscription
    to exactly that string (``TopicSpace.subscription_node``). Objects at ('a',), ('a', '#')
    and ('a', '+') in every SUBSCOPE/CLUSTER combination; every topic-scheme subscription of
    up to 3 levels over a, +, #: the effective SUBSCOPE and CLUSTER agree."""
    names = ("a", "#", "+")
    nodes = [("a",), ("a", "#"), ("a", "+")]
    tree = SymTree("T", names, 2, nodes=nodes)
    sub = sym_subscription("s", names, 3)
    terms = {a: tree.effective_for_subscription(a, sub) for a in ("subscope", "cluster")}
    states = [None, _obj(subscope="QMGR"), _obj(subscope="ALL", cluster="CL1")]
    subs = list(strings(("a", "+", "#"), 3, "/"))
    solver = z3.Solver()
    solver.add(*tree.domain(), *sub.domain())
    checked = 0
    for picks in itertools.product(states, repeat=len(nodes)):
        objects = _with_root({n: {"local": p} for n, p in zip(nodes, picks) if p is not None})
        space = _python_space(objects)
        solver.push()
        solver.add(*tree.fix(objects))
        for s in subs:
            solver.push()
            solver.add(*sub.fix(s))
            assert solver.check() == z3.sat, (objects, s)
            m = solver.model()
            solver.pop()
            assert SCOPES[m.eval(terms["subscope"]).as_long()] == space.effective_for_subscription(s, "topic", "subscope"), (objects, s)
            assert tree.clusters[m.eval(terms["cluster"]).as_long()] == space.effective_for_subscription(s, "topic", "cluster"), (objects, s)
            checked += 1
        solver.pop()
    assert checked == 27 * len(subs)
