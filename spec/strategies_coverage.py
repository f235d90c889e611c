"""The "coverage" focus of :func:`spec.strategies.configurations` (session 33): three
recipes for properties that every other focus left vacuous or nearly so in a
whole-catalogue ``mqcheck fuzz`` run (docs/decisions.md, "Session 33: the fuzz generator
exercises the re-drive, retained and termination properties"; measured with
benchmarks/fuzz_exercised.py). Split from spec/strategies.py, which is at the 900-line rule
for spec modules; it uses that module's helpers, read when a recipe is drawn (the two
modules import each other).

Pure, as spec/strategies.py: Hypothesis supplies every choice.
"""

from __future__ import annotations

import re

from hypothesis import strategies as st

from spec.configuration import Configuration

QUEUE = "CQ1"   # spec.strategies.QUEUES[0]


COVERAGE_RECIPES = ("redrive", "retained", "loop")


@st.composite
def _coverage_focus(draw, max_qmgrs: int, max_steps: int, allow_faults: bool,
                    recipes: tuple[str, ...] = COVERAGE_RECIPES):
    """One of ``recipes`` (default :data:`COVERAGE_RECIPES`), each a small configuration whose
    exploration holds a property to account that the other foci leave vacuous: ``redrive``
    (:func:`_redrive`), ``retained`` (:func:`_retained`), ``loop`` (:func:`_loop`)."""
    recipe = draw(st.sampled_from(recipes))
    if recipe == "redrive":
        return _redrive(draw, max_steps, allow_faults)
    if recipe == "retained":
        return _retained(draw, max_steps, allow_faults)
    return _loop(draw, max_steps, allow_faults)


def _redrive(draw, max_steps: int, allow_faults: bool) -> Configuration:
    """BD-NOT-FIXED-REDRIVE and its witness BD-REDRIVEN (000 §When does workload balancing
    occur?: "If a channel from a queue manager to a backend server goes into retry, then any
    bind_not_fixed messages waiting to be sent down that channel will go through workload
    balancing again"; 004 §Channel availability routing: "every time the channel is
    retried"): QM1 opens CQ1, hosted by QM2 and QM3, with MQOO_BIND_NOT_FIXED only (a bound
    handle's stuck messages are the property's documented counterexample, excused when
    fuzzing: checker.cli.FUZZ_BOUND_EXCUSES) and puts two or three messages. Then, two times
    in three, a ``channel`` step puts the channel to one host into RETRYING while messages
    may still wait on the cluster transmission queue, maybe followed by another put, by the
    channel running again, or preceded by the other host's queue turning PUT(DISABLED) (001
    rule 5: the re-drive may find nowhere better); the rest of the time the faults do it
    (``[check] faults``: any channel may fail, any queue manager stop)."""
    import spec.strategies as base  # the helpers; imported here: spec.strategies imports this module
    names = ("QM1", "QM2", "QM3")
    mqsc: dict[str, list[str]] = {q: [] for q in names}
    base._cluster_mqsc(draw, names, draw(st.sampled_from((("QM2",), ("QM2", "QM3"), ("QM1", "QM2")))), "C1", mqsc,
                  channel_attrs=False)
    for q in names[1:]:
        mqsc[q].append(f"DEFINE QLOCAL({QUEUE}) CLUSTER(C1) REPLACE")
    steps: list = [("open", (("qmgr", "QM1"), ("handle", "h1"), ("queue", QUEUE), ("bind", "NOT_FIXED"))),
                   ("put", (("handle", "h1"), ("count", draw(st.integers(2, 3)))))]
    if draw(st.integers(0, 2)) == 2:
        return base._config(names, mqsc, steps, "coverage", allow_faults)
    away = draw(st.sampled_from(names[1:]))
    steps.append(("channel", (("qmgr", "QM1"), ("to", away), ("status", "RETRYING"))))
    then = draw(st.sampled_from(("nothing", "put", "running", "disabled")))
    if then == "put":
        steps.append(("put", (("handle", "h1"), ("count", 1))))
    elif then == "running":
        steps.append(("channel", (("qmgr", "QM1"), ("to", away), ("status", "RUNNING"))))
    elif then == "disabled":
        other = names[1] if away == names[2] else names[2]
        steps.insert(2, ("mqsc", (("qmgr", other), ("commands",
                                                    f"DEFINE QLOCAL({QUEUE}) CLUSTER(C1) PUT(DISABLED) REPLACE"))))
    return base._config(names, mqsc, steps[:max(max_steps, 2)], "coverage",
                        allow_faults and draw(st.integers(0, 3)) == 3)


def _retained(draw, max_steps: int, allow_faults: bool) -> Configuration:
    """PS-RETAINED-NEW-ONLY and its witness PS-RETAINED-REMOTE (002 §Retained publications;
    §Retained publications in a distributed publish/subscribe topology): a retained
    publication (one time in three a second one, anywhere), then a subscription at another
    queue manager made after it — on the topic or a wildcard over it, one time in four with
    MQSO_NEW_PUBLICATIONS_ONLY, which must get no retained publication — and half the time
    one at the publisher too. The queue managers are linked by a hierarchy (a child, two
    children, or a chain) or are the members of a publish/subscribe cluster with a cluster
    topic 'a'."""
    import spec.strategies as base  # the helpers; imported here: spec.strategies imports this module
    names = ("QM1", "QM2", "QM3")
    mqsc: dict[str, list[str]] = {q: [] for q in names}
    if draw(st.booleans()):
        for child, parent in draw(st.sampled_from(((("QM2", "QM1"),), (("QM2", "QM1"), ("QM3", "QM1")),
                                                   (("QM2", "QM1"), ("QM3", "QM2"))))):
            mqsc[child].append(f"ALTER QMGR PARENT({parent})")
    else:
        base._cluster_mqsc(draw, names, (draw(st.sampled_from(names)),), "C1", mqsc, channel_attrs=False)
        mqsc[draw(st.sampled_from(names))].append("DEFINE TOPIC(T1) TOPICSTR('a') CLUSTER(C1)")
    publisher = draw(st.sampled_from(names))
    remote = draw(st.sampled_from([q for q in names if q != publisher]))
    topic = draw(st.sampled_from(("a/b", "a/c")))
    room = max(max_steps, 2) - 2   # the publication and the remote subscription always fit in
    steps: list = [("publish", (("qmgr", publisher), ("topic", topic), ("retain", True)))]
    if room and draw(st.integers(0, 2)) == 2:
        room -= 1
        steps.append(("publish", (("qmgr", draw(st.sampled_from(names))), ("topic", topic), ("retain", True))))
    sub = (("qmgr", remote), ("name", "S1"), ("topic", draw(st.sampled_from((topic, "a/#", "a/+")))))
    steps.append(("subscribe", sub + ((("new_only", True),) if draw(st.integers(0, 3)) == 3 else ())))
    if room and draw(st.booleans()):
        local = (("qmgr", publisher), ("name", "S2"), ("topic", topic))
        steps.append(("subscribe", local + ((("new_only", True),) if draw(st.integers(0, 3)) == 3 else ())))
    return base._config(names, mqsc, steps, "coverage", allow_faults and draw(st.integers(0, 3)) == 3)


def _loop(draw, max_steps: int, allow_faults: bool) -> Configuration:
    """PS-TERMINATION where publications can go round (002 §How loop detection works: "a
    hierarchy should never have" a loop, and the fingerprints discard a publication that
    comes back): a hierarchy ring of two or three queue managers (each the parent of the
    next) with subscriptions at one to three of them on 'a/b' or 'a/#', then a publication
    on 'a/b', maybe retained; or, one time in three when five steps fit, two republishing applications feeding
    each other with MQACTP_FORWARD (002 §Loop detection fingerprint format: the fingerprints
    travel on, so the loop is detected and ends; MQACTP_NEW, which never ends, is the
    witnesses focus's PS-REPUBLISH-LOOP recipe)."""
    import spec.strategies as base  # the helpers; imported here: spec.strategies imports this module
    if max_steps >= 5 and draw(st.integers(0, 2)) == 2:  # the republishing loop takes five steps
        names2 = ("QM1", "QM2")
        mqsc2: dict[str, list[str]] = {"QM1": [], "QM2": ["ALTER QMGR PARENT(QM1)"]}
        into, out = draw(st.sampled_from((("a/b", "a/c"), ("a/c", "a/b"))))
        steps2 = [("subscribe", (("qmgr", "QM1"), ("name", "IN"), ("topic", into))),
                  ("subscribe", (("qmgr", "QM2"), ("name", "OUT"), ("topic", out))),
                  ("republish", (("qmgr", "QM1"), ("subscription", "IN"), ("action", "FORWARD"), ("topic", out))),
                  ("republish", (("qmgr", "QM2"), ("subscription", "OUT"), ("action", "FORWARD"), ("topic", into))),
                  ("publish", (("qmgr", draw(st.sampled_from(names2))), ("topic", into)))]
        return base._config(names2, mqsc2, steps2, "coverage", allow_faults and draw(st.integers(0, 3)) == 3)
    n = draw(st.integers(2, 3))
    names = tuple(f"QM{i + 1}" for i in range(n))
    mqsc: dict[str, list[str]] = {q: [] for q in names}
    for i, q in enumerate(names):
        mqsc[q].append(f"ALTER QMGR PARENT({names[(i + 1) % n]})")
    subscribers = [q for q in names if draw(st.booleans())] or [names[-1]]
    steps: list = [("subscribe", (("qmgr", q), ("name", f"S{i + 1}"), ("topic", draw(st.sampled_from(("a/b", "a/#"))))))
                   for i, q in enumerate(subscribers)]
    publication = (("qmgr", draw(st.sampled_from(names))), ("topic", "a/b"))
    steps.append(("publish", publication + ((("retain", True),) if draw(st.integers(0, 3)) == 3 else ())))
    return base._config(names, mqsc, steps[-max(max_steps, 2):], "coverage",
                        allow_faults and draw(st.integers(0, 3)) == 3)


def pubsub_loop(configuration) -> bool:
    """Whether publications can go round in ``configuration`` (002 §How loop detection
    works), so that PS-TERMINATION decided there says something: a ``republish`` step, or a
    cycle in the publish/subscribe link graph — PARENT links between queue managers (two
    that name each other make a loop of two), each cluster with a cluster topic one hub node
    (one hop within it: 002 §Overlapping cluster support). Read from the MQSC text, steps'
    included; used by benchmarks/fuzz_exercised.py and the tests of the coverage focus."""
    if any(kind == "republish" for kind, _ in configuration.steps):
        return True
    edges: list[tuple[str, str]] = []
    clustered_topic: set[str] = set()
    members: dict[str, set[str]] = {}
    mqsc = dict(configuration.qmgrs)
    for kind, body in configuration.steps:  # MQSC steps may define topics and join clusters
        if kind == "mqsc":
            b = dict(body)
            mqsc[b["qmgr"]] = tuple(mqsc.get(b["qmgr"], ())) + tuple(str(b["commands"]).splitlines())
    for q, lines in mqsc.items():
        for line in lines:
            m = re.search(r"PARENT\((\w+)\)", line)
            if m:
                edges.append((q, m.group(1)))
            if "CHLTYPE(CLUSRCVR)" in line:
                for c in re.findall(r"CLUSTER\((\w+)\)", line):
                    members.setdefault(c, set()).add(q)
                if "CLUSNL(BOTH)" in line:
                    for c in ("C1", "C2"):
                        members.setdefault(c, set()).add(q)
            if line.startswith("DEFINE TOPIC"):
                clustered_topic.update(re.findall(r"CLUSTER\((\w+)\)", line))
    for c in clustered_topic:
        edges += [(q, "cluster:" + c) for q in members.get(c, ())]
    parent: dict[str, str] = {}

    def root(x: str) -> str:
        while parent.get(x, x) != x:
            x = parent[x]
        return x

    seen: set[tuple[str, str]] = set()
    for a, b in edges:  # QM1 PARENT(QM2) with QM2 PARENT(QM1) is a loop of two
        if a == b or (a, b) in seen:
            continue
        seen.add((a, b))
        ra, rb = root(a), root(b)
        if ra == rb:
            return True
        parent[ra] = rb
    return False
