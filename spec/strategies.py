"""Hypothesis strategies for whole MQ configurations that render to scenario files.

DESIGN §1 (``strategies.py``), issue #14. :func:`configurations` draws a
:class:`Configuration`: queue managers with their MQSC (publish/subscribe clusters whose
full-repository mesh is complete or not, hierarchies that are trees or have cycles and may
overlap the clusters, a second cluster overlapping the first through namelists and gateway
aliases, topic objects with PUBSCOPE/SUBSCOPE/WILDCARD/PROXYSUB/CLUSTER and ASPARENT,
cluster queues and channels with workload attributes) and a list of steps (publish,
subscribe in both wildcard schemes, unsubscribe, open/put/close with every bind option,
MQSC changes, REFRESH/RESET CLUSTER, channel faults, queue-manager stop/start, advance).
:meth:`Configuration.to_toml` renders it as a scenario file (the same format as
``examples/``, MQSC inline), which ``spec.scenario.parse_scenario`` accepts for every
configuration drawn (tests/test_strategies.py holds it to that).

Swarm testing (Groce et al., "Swarm testing", ISSTA 2012): each configuration first draws
which *features* it uses and which *step kinds* it may contain; everything else is
generated only for the features drawn. Features are drawn as booleans "enabled" that
shrink to False, so a shrunk counterexample keeps only the features it needs.

Graphs are plain strategies, not ``hypothesis-networkx``: a hierarchy is a PARENT
function (each queue manager names at most one parent, drawn as an index that shrinks to
"none"), a full-repository mesh is a set of manual CLUSSDRs between a cluster's full
repositories, and cluster membership is a hypergraph; graph_builder draws general
(di)graphs that would need filtering to those shapes, which wastes examples and shrinks
worse than drawing the shape itself.

Pure: no I/O, no clock, no randomness of its own (Hypothesis supplies the choices; a seed
reproduces them).
"""

from __future__ import annotations

from hypothesis import strategies as st

from spec.configuration import Configuration

__all__ = ["Configuration", "configurations", "FEATURES", "FOCI", "STEP_KINDS", "DEFAULT_MAX_QMGRS"]

DEFAULT_MAX_QMGRS = 3
FEATURES = ("cluster", "full_repository_mesh", "second_cluster", "namelists", "hierarchy",
            "topic_objects", "cluster_topics", "cluster_queues", "workload_attributes", "explore_initial")
# What a configuration is built around (see :func:`configurations`): anything (the
# feature swarm below), or the structures one family of rules needs, which uniform choice
# rarely assembles (HypothesisWorks/hypothesis#376): a cluster queue on several hosts
# opened and put to from a queue manager without an instance (001's algorithm, 004's bind
# options); a hierarchy, loops included, with subscriptions and a publication (002 §How
# loop detection works); a publish/subscribe cluster with an attributed cluster topic,
# subscriptions at several members in both schemes and a publication (002 §Cluster topic
# attributes, §Publication scope, §Subscription scope).
# Appended foci come last: "membership" (one cluster's full and partial repositories, for
# 000 §Considerations for Full Repositories and 003 §Auto-definition of channels); a focus
# added at the end changes no draw of a run restricted to the earlier ones.
# "witnesses" (second: Hypothesis draws the later of six choices least often, and it is
# the focus a whole-catalogue run needs most per example): the smallest configurations
# reaching witnesses that no other focus reached in a whole-catalogue run (docs/decisions.md,
# "Session 29: a whole-catalogue fuzz run reaches the rare witnesses"): a CLWLUSEQ(ANY) queue
# opened at a partial repository hosting it, CLWLMRUC(1) over two channels, unequal CLWLWGHTs
# over a full weight cycle, a gateway alias between two clusters, two republishing
# applications feeding each other; since session 30 also a WILDCARD(BLOCK) topic object
# between a wildcard subscription and a publication, and a publication reaching a subscriber
# by two loop-free paths (a hierarchy loop, or a hierarchy bridging two members of a
# publish/subscribe cluster). No family's foci include it (checker.cli.FUZZ_FOCI), so
# the runs focused on a family draw what they drew before.
# "coverage" (appended in session 33): three recipes for properties that every other focus
# left vacuous or nearly so in a whole-catalogue run (docs/decisions.md, "Session 33: the fuzz
# generator exercises the re-drive, retained and termination properties"; measured with
# benchmarks/fuzz_exercised.py): NOT_FIXED messages on the cluster transmission queue when
# the channel to one host goes into retry (BD-NOT-FIXED-REDRIVE, BD-REDRIVEN), retained
# publications with subscriptions made after them at another queue manager and locally
# (PS-RETAINED-NEW-ONLY, PS-RETAINED-REMOTE), and publish/subscribe loops that end
# (PS-TERMINATION decided where publications can go round).
FOCI = ("free", "witnesses", "workload", "hierarchy", "pubsub_cluster", "membership", "coverage")
STEP_KINDS = ("publish", "subscribe", "unsubscribe", "open", "put", "close", "mqsc", "join",
              "refresh", "reset", "channel", "qmgr", "advance")

# A small topic vocabulary: collisions between publications, subscriptions and topic
# objects are what exercise the rules, so the alphabet is tiny.
TOPICS = ("a", "a/b", "a/b/c", "b", "a/c")
TOPIC_SUBS = ("a", "a/b", "a/#", "#", "a/+", "+/b", "a/b/#", "b")
CHAR_SUBS = ("a*", "a/b", "*", "a/?", "*/b")
SCOPES = ("ALL", "QMGR", "ASPARENT")
QUEUES = ("CQ1", "CQ2")
BINDS = ("AS_Q_DEF", "ON_OPEN", "NOT_FIXED", "ON_GROUP")
STATUSES = ("RETRYING", "STOPPED", "RUNNING")
DAYS = (1, 31, 61, 91)


def _conname(q: str) -> str:
    return f"'{q.lower()}(1414)'"


def _swarm(draw, names: tuple[str, ...]) -> tuple[str, ...]:
    """A random subset (swarm testing); each flag shrinks to "off"."""
    return tuple(n for n in names if draw(st.booleans()))


@st.composite
def configurations(draw, max_qmgrs: int = DEFAULT_MAX_QMGRS, max_steps: int = 5,
                   step_kinds: tuple[str, ...] | None = None, allow_faults: bool = True,
                   foci: tuple[str, ...] = FOCI):
    """A strategy of :class:`Configuration` with 1..``max_qmgrs`` queue managers and at
    most ``max_steps`` steps whose kinds come from ``step_kinds`` (default: all), built
    around one of ``foci`` (default: any of :data:`FOCI`)."""
    n = draw(st.integers(min(2, max_qmgrs), max(1, max_qmgrs)))  # one queue manager alone exercises little
    names = tuple(f"QM{i + 1}" for i in range(n))
    # swarm at the top level: a free configuration, or one built around what a family of
    # rules needs (FOCI); "free" comes first, so shrinking tries it first
    focus = draw(st.sampled_from(foci)) if max_qmgrs >= 3 else "free"
    if focus != "free":
        return draw(_FOCUSED[focus](max_qmgrs, max_steps, allow_faults))
    features = set(_swarm(draw, FEATURES))
    kinds = _swarm(draw, tuple(step_kinds or STEP_KINDS)) or tuple(step_kinds or STEP_KINDS)
    mqsc: dict[str, list[str]] = {q: [] for q in names}
    clusters: dict[str, tuple[str, ...]] = {}   # cluster -> members
    repos: dict[str, tuple[str, ...]] = {}      # cluster -> full repositories

    if "cluster" in features:
        cluster_names = ("C1", "C2") if "second_cluster" in features and n >= 2 else ("C1",)
        for c in cluster_names:
            # a member with probability 3/4 (shrinking to "not a member"): partial repositories
            # beside two full repositories are where most repository rules apply
            members = tuple(q for q in names if draw(st.integers(0, 3)) > 0 or q == names[0 if c == "C1" else -1])
            n_frs = draw(st.integers(1, min(2, len(members))))
            clusters[c], repos[c] = members, members[:n_frs]
        misconfigured = _define_clusters(draw, names, clusters, repos, features, mqsc)
    else:
        misconfigured = set()

    if "hierarchy" in features and n >= 2:
        for q in names:  # cycles allowed: a PARENT graph of any shape (002 §How loop detection works)
            parent = draw(st.sampled_from((None,) + tuple(p for p in names if p != q)))
            if parent:
                mqsc[q].append(f"ALTER QMGR PARENT({parent})")

    membership = {q: tuple(c for c, members in clusters.items() if q in members) for q in names}
    if "topic_objects" in features:
        for q in names:
            chosen = draw(st.lists(st.sampled_from(TOPICS), unique=True, max_size=2))
            for i, topic in enumerate(chosen):
                mqsc[q].append(_topic_object(draw, f"T{i + 1}", topic, membership[q] if "cluster_topics" in features
                                             else ()))
        if draw(st.booleans()):
            q = draw(st.sampled_from(names))
            mqsc[q].append(f"ALTER TOPIC(SYSTEM.BASE.TOPIC) PUBSCOPE({draw(st.sampled_from(SCOPES[:2]))}) "
                           f"SUBSCOPE({draw(st.sampled_from(SCOPES[:2]))})")

    if "cluster_queues" in features and clusters:
        for c, members in clusters.items():
            for q in members:
                if draw(st.booleans()):
                    mqsc[q].append(_cluster_queue(draw, draw(st.sampled_from(QUEUES)), c,
                                                  "workload_attributes" in features))
        if "workload_attributes" in features:
            for q in names:
                if membership[q] and draw(st.booleans()):
                    mqsc[q].append(f"ALTER QMGR CLWLUSEQ({draw(st.sampled_from(('LOCAL', 'ANY')))}) "
                                   f"CLWLMRUC({draw(st.integers(1, 3))})")
        if "second_cluster" in features and len(clusters) == 2:
            gateways = [q for q in names if len(membership[q]) == 2
                        and not any(line.startswith(f"DEFINE QLOCAL({QUEUES[0]})") for line in mqsc[q])]
            if gateways and draw(st.booleans()):  # 000 §Rank and Overlapping Clusters: a gateway alias
                g = draw(st.sampled_from(gateways))
                mqsc[g].append(f"DEFINE QALIAS({QUEUES[0]}) TARGET({QUEUES[0]}) CLUSTER(C1)")

    steps = _steps(draw, names, kinds, clusters, repos, max_steps, misconfigured)
    faults = allow_faults and draw(st.booleans())
    return Configuration(tuple((q, tuple(mqsc[q])) for q in names), tuple(steps), tuple(sorted(features)),
                         kinds, faults, "explore_initial" in features, tuple(sorted(misconfigured)))


def _define_clusters(draw, names, clusters, repos, features, mqsc) -> set[str]:
    """Full and partial repositories (003 §Queue managers and repositories; 000
    §Resource definition for Full Repositories): every member has a CLUSRCVR; a full
    repository has manual CLUSSDRs to the other full repositories (all of them, or — when
    the mesh feature is off — a random subset: an incomplete mesh); a partial repository
    has one manual CLUSSDR to a full repository. A queue manager in both clusters may use
    one namelist for REPOSNL and its CLUSRCVR (002 §Overlapping cluster support)."""
    misconfigured: set[str] = set()
    both = {q for q in names if all(q in m for m in clusters.values()) and len(clusters) == 2}
    use_nl = "namelists" in features and both
    for q in names:
        mine = [c for c in clusters if q in clusters[c]]
        if not mine:
            continue
        fr_of = [c for c in mine if q in repos[c]]
        if use_nl and q in both:
            mqsc[q].append("DEFINE NAMELIST(BOTH) NAMES(C1, C2)")
            mqsc[q].append(f"DEFINE CHANNEL(TO.{q}) CHLTYPE(CLUSRCVR) CONNAME({_conname(q)}) CLUSNL(BOTH)"
                           + _channel_workload(draw, features))
            if len(fr_of) == 2:
                mqsc[q].append("ALTER QMGR REPOSNL(BOTH)")
            elif fr_of:
                mqsc[q].append(f"ALTER QMGR REPOS({fr_of[0]})")
        else:
            if len(fr_of) == 1:
                mqsc[q].append(f"ALTER QMGR REPOS({fr_of[0]})")
            elif len(fr_of) == 2:
                mqsc[q].append("DEFINE NAMELIST(FRS) NAMES(C1, C2)")
                mqsc[q].append("ALTER QMGR REPOSNL(FRS)")
            for c in mine:
                mqsc[q].append(f"DEFINE CHANNEL(TO.{q}.{c}) CHLTYPE(CLUSRCVR) CONNAME({_conname(q)}) CLUSTER({c})"
                               + _channel_workload(draw, features))
        for c in mine:
            if q in repos[c]:
                others = [f for f in repos[c] if f != q]
                complete = "full_repository_mesh" in features
                targets = [f for f in others if complete or draw(st.booleans())]
                if len(targets) < len(others):
                    misconfigured.add("fr_mesh_incomplete")
            else:
                targets = [draw(st.sampled_from(repos[c]))]
            for f in targets:
                mqsc[q].append(f"DEFINE CHANNEL({q}.TO.{f}.{c}) CHLTYPE(CLUSSDR) CONNAME({_conname(f)}) CLUSTER({c})")
    return misconfigured


def _channel_workload(draw, features) -> str:
    """CLUSRCVR workload attributes (001 rules 4, 12, 13; 000 §Channel Weight)."""
    if "workload_attributes" not in features or not draw(st.booleans()):
        return ""
    attrs = [f"CLWLWGHT({draw(st.sampled_from((1, 20, 50, 99)))})"]
    if draw(st.booleans()):
        attrs.append(f"CLWLRANK({draw(st.integers(0, 2))})")
    if draw(st.booleans()):
        attrs.append(f"CLWLPRTY({draw(st.integers(0, 2))})")
    if draw(st.booleans()):
        attrs.append(f"NETPRTY({draw(st.integers(0, 2))})")
    return " " + " ".join(attrs)


def _topic_object(draw, name: str, topic: str, clusters: tuple[str, ...]) -> str:
    """DEFINE TOPIC with a random subset of its distributed attributes (002 §Administrative
    topic objects, §Cluster topic attributes, §Controlling wildcard usage)."""
    attrs = [f"TOPICSTR('{topic}')"]
    for kw, choices in (("PUBSCOPE", SCOPES), ("SUBSCOPE", SCOPES), ("WILDCARD", ("BLOCK", "PASSTHRU")),
                        ("PROXYSUB", ("FIRSTUSE", "FORCE"))):
        if draw(st.booleans()):
            attrs.append(f"{kw}({draw(st.sampled_from(choices))})")
    if clusters and draw(st.booleans()):
        attrs.append(f"CLUSTER({draw(st.sampled_from(clusters))})")
    return f"DEFINE TOPIC({name}) " + " ".join(attrs)


def _cluster_queue(draw, queue: str, cluster: str, workload: bool) -> str:
    """A cluster queue, with workload attributes when that feature is on (001 rules 3-7, 13)."""
    text = f"DEFINE QLOCAL({queue}) CLUSTER({cluster})"
    if workload:
        for kw, value in (("CLWLRANK", st.integers(0, 2)), ("CLWLPRTY", st.integers(0, 2)),
                          ("DEFBIND", st.sampled_from(("OPEN", "NOTFIXED", "GROUP"))),
                          ("PUT", st.sampled_from(("ENABLED", "DISABLED"))),
                          ("CLWLUSEQ", st.sampled_from(("QMGR", "LOCAL", "ANY")))):
            if draw(st.booleans()):
                text += f" {kw}({draw(value)})"
    return text + " REPLACE"


def _steps(draw, names, kinds, clusters, repos, max_steps, misconfigured: set[str]) -> list:
    """Steps in order, each valid at its point (the reader checks handles and live
    subscriptions in step order: spec/scenario.py)."""
    if not kinds:
        return []
    live: dict[str, list[str]] = {q: [] for q in names}   # subscriptions made by steps
    open_handles: list[str] = []
    opened = 0
    made = 0
    stopped: list[str] = []
    joined: set[str] = set()
    steps = []
    wanted = draw(st.integers(min(1, max_steps), max_steps))
    for _ in range(3 * wanted):  # a kind that does not apply here (put before any open) draws again
        if len(steps) >= wanted:
            break
        kind = draw(st.sampled_from(kinds))
        q = draw(st.sampled_from(names))
        if kind == "publish":
            body = [("qmgr", q), ("topic", draw(st.sampled_from(TOPICS)))]
            if draw(st.booleans()):
                body.append(("retain", True))
            if draw(st.booleans()):
                body.append(("scope", draw(st.sampled_from(("ALL", "QMGR")))))
            steps.append(("publish", tuple(body)))
        elif kind == "subscribe":
            made += 1
            name = f"S{made}"
            char = draw(st.booleans())
            body = [("qmgr", q), ("name", name),
                    ("topic", draw(st.sampled_from(CHAR_SUBS if char else TOPIC_SUBS)))]
            if char:
                body.append(("scheme", "char"))
            if draw(st.booleans()):
                body.append(("scope", draw(st.sampled_from(("ALL", "QMGR")))))
            if draw(st.booleans()):
                body.append(("durable", True))
            live[q].append(name)
            steps.append(("subscribe", tuple(body)))
            if "publish" in kinds and draw(st.booleans()):  # a publication after it: delivery, not just proxies
                steps.append(("publish", (("qmgr", draw(st.sampled_from(names))),
                                          ("topic", draw(st.sampled_from(TOPICS))))))
        elif kind == "unsubscribe":
            holders = [h for h in names if live[h]]
            if holders:
                h = draw(st.sampled_from(holders))
                name = draw(st.sampled_from(live[h]))
                live[h].remove(name)
                steps.append(("unsubscribe", (("qmgr", h), ("name", name))))
        elif kind == "open":
            opened += 1
            handle = f"h{opened}"
            bind = draw(st.sampled_from(BINDS))
            body = [("qmgr", q), ("handle", handle), ("queue", draw(st.sampled_from(QUEUES))), ("bind", bind)]
            if draw(st.booleans()):
                body.append(("target_qmgr", draw(st.sampled_from(names))))
            open_handles.append(handle)
            steps.append(("open", tuple(body)))
            if draw(st.booleans()):  # an application opens in order to put: 2+ messages exercise the balancing
                put = [("handle", handle), ("count", draw(st.integers(2, 4)))]
                steps.append(("put", tuple(put + [("group", "g1")] if bind == "ON_GROUP" else put)))
                if "close" in kinds and draw(st.booleans()):
                    open_handles.remove(handle)
                    steps.append(("close", (("handle", handle),)))
        elif kind == "put" and open_handles:
            body = [("handle", draw(st.sampled_from(open_handles))), ("count", draw(st.integers(1, 3)))]
            if draw(st.booleans()):
                body.append(("group", "g1"))
            steps.append(("put", tuple(body)))
        elif kind == "close" and open_handles:
            handle = draw(st.sampled_from(open_handles))
            open_handles.remove(handle)
            steps.append(("close", (("handle", handle),)))
        elif kind == "mqsc":
            change = draw(_mqsc_change(q, clusters))
            steps.append(("mqsc", (("qmgr", q), ("commands", change))))
            if change.startswith("DEFINE QLOCAL") and draw(st.booleans()):
                # a second update of the same record right behind the first: copies of both
                # race to the full repositories (003 §Queue managers and repositories)
                again = change.replace("PUT(ENABLED)", "PUT(DISABLED)") if "PUT(ENABLED)" in change else \
                    change.replace(" REPLACE", " PUT(DISABLED) REPLACE") if "PUT(" not in change else \
                    change.replace("PUT(DISABLED)", "PUT(ENABLED)")
                steps.append(("mqsc", (("qmgr", q), ("commands", again))))
        elif kind == "join" and "C1" in clusters and q not in clusters["C1"] and q not in joined:
            # a queue manager joins a running cluster (000 §Initial definitions): its manual
            # CLUSSDR shows SYSTEM.TEMPQMGR until the full repository answers
            joined.add(q)
            fr = draw(st.sampled_from(repos["C1"]))
            commands = (f"DEFINE CHANNEL(TO.{q}.C1) CHLTYPE(CLUSRCVR) CONNAME({_conname(q)}) CLUSTER(C1)\n"
                        f"DEFINE CHANNEL({q}.TO.{fr}.C1) CHLTYPE(CLUSSDR) CONNAME({_conname(fr)}) CLUSTER(C1)")
            if draw(st.booleans()):
                commands += f"\nDEFINE QLOCAL({QUEUES[0]}) CLUSTER(C1) REPLACE"
            steps.append(("mqsc", (("qmgr", q), ("commands", commands))))
        elif kind == "refresh":
            mine = [c for c, m in clusters.items() if q in m]
            if mine:  # 000 §Refreshing repository information; REPOS(YES) never at a full repository
                c = draw(st.sampled_from(mine))
                suffix = " REPOS(YES)" if q not in repos[c] and draw(st.booleans()) else ""
                if repos[c] == (q,):
                    misconfigured.add("sole_fr_refreshed")
                steps.append(("mqsc", (("qmgr", q), ("commands", f"REFRESH CLUSTER({c}){suffix}"))))
            else:
                steps.append(("mqsc", (("qmgr", q), ("commands", "REFRESH QMGR TYPE(PROXYSUB)"))))
        elif kind == "reset" and clusters:
            c = draw(st.sampled_from(sorted(clusters)))
            fr = draw(st.sampled_from(repos[c]))
            victim = draw(st.sampled_from([m for m in clusters[c] if m != fr] or [fr]))
            if victim != fr:
                # 000 §Incorrectly deleted queue managers: RESET removes a queue manager deleted
                # without leaving the cluster; issued against a live one it is "issued in error"
                # (000 §Refreshing repository information) and that one needs a REFRESH CLUSTER
                if draw(st.booleans()):
                    # deleted without leaving the cluster: the others "still believe that the
                    # queue manager exists" until the RESET (000 §Incorrectly deleted queue managers)
                    misconfigured.add("deleted_in_cluster")
                    steps.append(("qmgr", (("name", victim), ("action", "delete"))))
                else:
                    misconfigured.add("reset_in_error")
                steps.append(("mqsc", (("qmgr", fr), ("commands",
                                                      f"RESET CLUSTER({c}) ACTION(FORCEREMOVE) QMNAME({victim})"))))
        elif kind == "channel" and len(names) >= 2:
            to = draw(st.sampled_from([m for m in names if m != q]))
            steps.append(("channel", (("qmgr", q), ("to", to), ("status", draw(st.sampled_from(STATUSES))))))
        elif kind == "qmgr":
            if stopped and draw(st.booleans()):
                steps.append(("qmgr", (("name", stopped.pop(0)), ("action", "start"))))
            elif q not in stopped:
                stopped.append(q)
                steps.append(("qmgr", (("name", q), ("action", "stop"))))
        elif kind == "advance":
            steps.append(("advance", (("days", draw(st.sampled_from(DAYS))),)))
    return steps


@st.composite
def _mqsc_change(draw, q: str, clusters: dict[str, tuple[str, ...]]):
    """An administrative change at run time (an ``mqsc`` step)."""
    mine = [c for c, m in clusters.items() if q in m]
    options = ["topic", "base"]
    if mine:
        options += ["queue", "alter_queue", "suspend"]
    choice = draw(st.sampled_from(options))
    if choice == "topic":
        return _topic_object(draw, "TX", draw(st.sampled_from(TOPICS)), tuple(mine)) + " REPLACE"
    if choice == "base":
        return f"ALTER TOPIC(SYSTEM.BASE.TOPIC) PUBSCOPE({draw(st.sampled_from(SCOPES[:2]))})"
    c = draw(st.sampled_from(mine))
    if choice == "queue":
        return f"DEFINE QLOCAL({draw(st.sampled_from(QUEUES))}) CLUSTER({c}) REPLACE"
    if choice == "alter_queue":
        return (f"DEFINE QLOCAL({draw(st.sampled_from(QUEUES))}) CLUSTER({c}) "
                f"PUT({draw(st.sampled_from(('ENABLED', 'DISABLED')))}) CLWLRANK({draw(st.integers(0, 2))}) REPLACE")
    return f"SUSPEND QMGR CLUSTER({c})"


# --------------------------------------------------------------------------- focused recipes
def _cluster_mqsc(draw, names, frs, cluster: str, mqsc, channel_attrs: bool) -> None:
    """``names`` all in ``cluster``: full repositories ``frs`` fully connected by manual
    CLUSSDRs (000 §Resource definition for Full Repositories), every other member with one
    manual CLUSSDR to a full repository; CLUSRCVRs with workload attributes when asked."""
    for q in names:
        if q in frs:
            mqsc[q].append(f"ALTER QMGR REPOS({cluster})")
        attrs = ""
        if channel_attrs:
            parts = []
            # weights in small ratios with each other and with the default 50, so that a few
            # puts make a full weight cycle (001 final choice; 000 §Channel Weight example)
            for kw, values in (("CLWLWGHT", (25, 75)), ("CLWLRANK", (0, 3, 7)), ("CLWLPRTY", (0, 1, 2)),
                               ("NETPRTY", (0, 1))):
                if draw(st.integers(0, 1 if kw == "CLWLWGHT" else 2)) >= (1 if kw == "CLWLWGHT" else 2):
                    parts.append(f"{kw}({draw(st.sampled_from(values))})")
            attrs = "".join(" " + p for p in parts)
        mqsc[q].append(f"DEFINE CHANNEL(TO.{q}) CHLTYPE(CLUSRCVR) CONNAME({_conname(q)}) CLUSTER({cluster})" + attrs)
        targets = [f for f in frs if f != q] if q in frs else [draw(st.sampled_from(frs))]
        for f in targets:
            mqsc[q].append(f"DEFINE CHANNEL({q}.TO.{f}) CHLTYPE(CLUSSDR) CONNAME({_conname(f)}) CLUSTER({cluster})")


def _config(names, mqsc, steps, focus: str, faults: bool) -> Configuration:
    return Configuration(tuple((q, tuple(mqsc[q])) for q in names), tuple(steps), (f"focus:{focus}",),
                         tuple(sorted({kind for kind, _ in steps})), faults)


@st.composite
def _workload_focus(draw, max_qmgrs: int, max_steps: int, allow_faults: bool):
    """One cluster; a cluster queue hosted by two or more servers with rank, priority, PUT,
    CLWLUSEQ and DEFBIND attributes, their CLUSRCVRs with CLWLWGHT/CLWLRANK/CLWLPRTY/NETPRTY
    (001 rules 3-13); an application at a queue manager without (mostly) an instance opens
    it with a bind option, maybe naming a target queue manager, and puts several messages;
    then maybe a rank change, a channel status change or a stopped CLUSRCVR, and more puts
    (000 §Queue Rank example, §When does workload balancing occur?, 004 §Pros and cons of
    binding). The application's queue manager is a full repository or not."""
    n = draw(st.integers(3, max(3, max_qmgrs)))
    names = tuple(f"QM{i + 1}" for i in range(n))
    app, servers = names[0], names[1:]
    frs = draw(st.sampled_from(((app, servers[0]), (servers[0],), (servers[0], servers[1]))))
    mqsc: dict[str, list[str]] = {q: [] for q in names}
    if draw(st.integers(0, 3)) == 3:
        # the balancing story alone (000 §Channel Weight example): NOT_FIXED puts from the
        # application's queue manager over servers whose CLUSRCVRs differ only in CLWLWGHT
        _cluster_mqsc(draw, names, frs, "C1", mqsc, channel_attrs=False)
        for q in servers:
            mqsc[q] = [line + f" CLWLWGHT({draw(st.sampled_from((25, 50, 75)))})" if "CHLTYPE(CLUSRCVR)" in line
                       else line for line in mqsc[q]]
            mqsc[q].append(f"DEFINE QLOCAL({QUEUES[0]}) CLUSTER(C1) REPLACE")
        steps = [("open", (("qmgr", app), ("handle", "h1"), ("queue", QUEUES[0]), ("bind", "NOT_FIXED"))),
                 ("put", (("handle", "h1"), ("count", draw(st.integers(2, 4)))))]
        if max_steps > 2 and draw(st.booleans()):
            steps.append(("put", (("handle", "h1"), ("count", draw(st.integers(1, 3))))))
        return _config(names, mqsc, steps, "workload", allow_faults and draw(st.booleans()))
    _cluster_mqsc(draw, names, frs, "C1", mqsc, channel_attrs=draw(st.booleans()))
    hosts = [q for q in servers if q == servers[0] or q == servers[1] or draw(st.booleans())]
    if draw(st.integers(0, 3)) == 3:
        hosts.append(app)
    for q in hosts:
        text = f"DEFINE QLOCAL({QUEUES[0]}) CLUSTER(C1)"
        for kw, values in (("CLWLRANK", (0, 3, 7)), ("CLWLPRTY", (0, 1, 2)), ("PUT", ("ENABLED", "DISABLED")),
                           ("CLWLUSEQ", ("QMGR", "LOCAL", "ANY")), ("DEFBIND", ("OPEN", "NOTFIXED", "GROUP"))):
            if draw(st.integers(0, 3)) == 3:
                text += f" {kw}({draw(st.sampled_from(values))})"
        mqsc[q].append(text + " REPLACE")
    for q in names:
        if draw(st.integers(0, 3)) == 3:
            mqsc[q].append(f"ALTER QMGR CLWLUSEQ({draw(st.sampled_from(('LOCAL', 'ANY')))}) "
                           f"CLWLMRUC({draw(st.integers(1, 3))})")
    opener = app if draw(st.integers(0, 3)) else draw(st.sampled_from(servers))
    bind = draw(st.sampled_from(BINDS))
    body = [("qmgr", opener), ("handle", "h1"), ("queue", QUEUES[0]), ("bind", bind)]
    if draw(st.integers(0, 3)) == 3:
        body.append(("target_qmgr", draw(st.sampled_from(hosts))))
    steps: list = [("open", tuple(body))]

    def put(count):
        return ("put", (("handle", "h1"), ("count", count)) + ((("group", "g1"),) if bind == "ON_GROUP" else ()))

    steps.append(put(draw(st.integers(2, 4))))
    if max_steps > 2 and draw(st.booleans()):
        what = draw(st.sampled_from(("rank", "channel", "stop_receiver", "put_disabled")))
        s = draw(st.sampled_from([q for q in servers if q != opener]))
        if what == "rank":  # 000 §Queue Rank example: rank changes after the open
            steps.append(("mqsc", (("qmgr", s), ("commands",
                                                 f"ALTER CHANNEL(TO.{s}) CHLTYPE(CLUSRCVR) CLWLRANK(7)"))))
        elif what == "channel":
            steps.append(("channel", (("qmgr", opener), ("to", s),
                                      ("status", draw(st.sampled_from(("RETRYING", "STOPPED")))))))
        elif what == "stop_receiver":  # 001 rule 6: the status of the locally-defined CLUSRCVR
            steps.append(("mqsc", (("qmgr", opener), ("commands", f"STOP CHANNEL(TO.{opener})"))))
        else:
            steps.append(("mqsc", (("qmgr", s), ("commands",
                                                 f"DEFINE QLOCAL({QUEUES[0]}) CLUSTER(C1) PUT(DISABLED) REPLACE"))))
        steps.append(put(draw(st.integers(1, 3))))
    faults = allow_faults and draw(st.booleans())
    return _config(names, mqsc, steps[:max(max_steps, 2)], "workload", faults)


@st.composite
def _hierarchy_focus(draw, max_qmgrs: int, max_steps: int, allow_faults: bool):
    """A hierarchy (PARENT links) that is a chain, a star or a loop (002 §How loop detection
    works: 'a hierarchy should never have' one), maybe with topic objects; subscriptions at
    two or more queue managers in either scheme, then a publication."""
    n = draw(st.integers(2, max(2, min(3, max_qmgrs))))
    names = tuple(f"QM{i + 1}" for i in range(n))
    mqsc: dict[str, list[str]] = {q: [] for q in names}
    shape = draw(st.sampled_from(("loop", "loop", "chain", "star")))
    for i, q in enumerate(names):
        if shape == "loop":
            mqsc[q].append(f"ALTER QMGR PARENT({names[(i + 1) % n]})")
        elif shape == "chain" and i + 1 < n:
            mqsc[q].append(f"ALTER QMGR PARENT({names[i + 1]})")
        elif shape == "star" and i > 0:
            mqsc[q].append(f"ALTER QMGR PARENT({names[0]})")
    if draw(st.integers(0, 3)) == 3:
        q = draw(st.sampled_from(names))
        mqsc[q].append(_topic_object(draw, "T1", draw(st.sampled_from(TOPICS[:3])), ()))
    published = draw(st.sampled_from(TOPICS))
    steps = _subscriptions(draw, names, published)
    steps.append(("publish", _publication(draw, names, published)))
    faults = allow_faults and draw(st.integers(0, 3)) == 3
    return _config(names, mqsc, steps[-max(max_steps, 2):], "hierarchy", faults)


def _subscriptions(draw, names, published: str) -> list:
    """Subscriptions at most members (at least one), one or two each: two at one queue
    manager with different scopes is 002's "football results service"."""
    steps: list = []
    subscribers = [q for q in names if draw(st.integers(0, 3))] or [names[-1]]
    for q in subscribers:
        for _ in range(1 + (draw(st.integers(0, 2)) == 2)):
            steps.append(("subscribe", _subscription(draw, q, f"S{len(steps) + 1}", published)))
    return steps


@st.composite
def _pubsub_cluster_focus(draw, max_qmgrs: int, max_steps: int, allow_faults: bool):
    """A publish/subscribe cluster (one or two full repositories, fully connected) with a
    cluster topic object carrying PUBSCOPE/SUBSCOPE/WILDCARD/PROXYSUB, maybe a hierarchy
    link out of it (002 §Combining hierarchies and clusters); subscriptions at two or more
    members in both schemes, with or without an MQSO scope, then a publication or two (002
    §Publication scope, §Subscription scope, "Example: football results service")."""
    n = draw(st.integers(3, max(3, max_qmgrs)))
    names = tuple(f"QM{i + 1}" for i in range(n))
    mqsc: dict[str, list[str]] = {q: [] for q in names}
    frs = draw(st.sampled_from(((names[0],), (names[0], names[1]))))
    _cluster_mqsc(draw, names, frs, "C1", mqsc, channel_attrs=False)
    host = draw(st.sampled_from(names))
    topic = draw(st.sampled_from(TOPICS[:3]))
    attrs = [f"TOPICSTR('{topic}')", "CLUSTER(C1)"]
    for kw, values in (("SUBSCOPE", ("QMGR", "ALL")), ("PUBSCOPE", ("QMGR", "ALL")), ("WILDCARD", ("BLOCK",)),
                       ("PROXYSUB", ("FORCE",))):
        if draw(st.booleans()):
            attrs.append(f"{kw}({draw(st.sampled_from(values))})")
    mqsc[host].append("DEFINE TOPIC(T1) " + " ".join(attrs))
    if draw(st.integers(0, 3)) == 3:  # a local topic object over it at another member
        q = draw(st.sampled_from(names))
        if q != host:
            mqsc[q].append(_topic_object(draw, "T2", draw(st.sampled_from(TOPICS[:3])), ()))
    published = draw(st.sampled_from((topic, topic + "/b") + TOPICS))
    steps = _subscriptions(draw, names, published)
    steps.append(("publish", _publication(draw, names, published)))
    if draw(st.booleans()):
        steps.append(("publish", _publication(draw, names, published)))
    faults = allow_faults and draw(st.integers(0, 3)) == 3
    return _config(names, mqsc, steps[-max(max_steps, 2):], "pubsub_cluster", faults)


def _subscription(draw, q: str, name: str, published: str) -> tuple:
    """A subscription that mostly matches ``published`` (the topic itself, or a wildcard
    over it), in either scheme (002 §Wildcard schemes)."""
    char = draw(st.integers(0, 3)) == 3
    if draw(st.integers(0, 3)):
        parent = published.rsplit("/", 1)[0] if "/" in published else published
        topic = draw(st.sampled_from((published, "*" if char else "#", parent + ("*" if char else "/#"))))
    else:
        topic = draw(st.sampled_from(CHAR_SUBS if char else TOPIC_SUBS))
    body = [("qmgr", q), ("name", name), ("topic", topic)]
    if char:
        body.append(("scheme", "char"))
    if draw(st.booleans()):
        body.append(("scope", draw(st.sampled_from(("ALL", "QMGR")))))
    return tuple(body)


def _publication(draw, names, topic: str) -> tuple:
    body = [("qmgr", draw(st.sampled_from(names))), ("topic", topic)]
    if draw(st.integers(0, 3)) == 3:
        body.append(("retain", True))
    if draw(st.integers(0, 3)) == 3:
        body.append(("scope", "QMGR"))
    return tuple(body)


@st.composite
def _membership_focus(draw, max_qmgrs: int, max_steps: int, allow_faults: bool):
    """One cluster of four queue managers: two or three full repositories, fully connected,
    the others partial repositories with one manual CLUSSDR to a full repository, a cluster
    queue, and what 000 §Considerations for Full Repositories and 003 §Auto-definition of
    channels are about: a member with a second CLUSRCVR in the cluster (001 rule 12's
    routes); a full repository whose CLUSRCVR CONNAME has no port, reached by a member's
    CLUSSDR naming another port; a cluster topic defined at one member and PSCLUS(DISABLED)
    asked for at another; full repositories stopped before an application's MQOPEN, or
    altered to partial repositories (ALTER QMGR REPOS(' ')) between the MQOPEN and the
    MQPUT. Four queue managers whatever ``max_qmgrs`` says: three full repositories and a
    member are the smallest cluster where choosing among full repositories matters."""
    names = ("QM1", "QM2", "QM3", "QM4")
    frs = names[:draw(st.sampled_from((2, 3)))]
    app = names[-1]
    mqsc: dict[str, list[str]] = {q: [] for q in names}
    portless = draw(st.integers(0, 3)) == 3  # QM1's CLUSRCVR CONNAME('qm1'), no port
    second = draw(st.sampled_from((None,) * 3 + names))  # a second CLUSRCVR there
    for q in names:
        if q in frs:
            mqsc[q].append("ALTER QMGR REPOS(C1)")
        conname = "'qm1'" if portless and q == "QM1" else _conname(q)
        mqsc[q].append(f"DEFINE CHANNEL(TO.{q}) CHLTYPE(CLUSRCVR) CONNAME({conname}) CLUSTER(C1)")
        if q == second:
            mqsc[q].append(f"DEFINE CHANNEL(TO.{q}.B) CHLTYPE(CLUSRCVR) CONNAME('{q.lower()}(1415)') CLUSTER(C1) "
                           f"NETPRTY({draw(st.integers(0, 1))})")
        for f in ([f for f in frs if f != q] if q in frs else [draw(st.sampled_from(frs))]):
            # a partial repository's CLUSSDR names QM1's listener at another port than the default
            to = "'qm1(1420)'" if portless and f == "QM1" and q not in frs else _conname(f)
            mqsc[q].append(f"DEFINE CHANNEL({q}.TO.{f}) CHLTYPE(CLUSSDR) CONNAME({to}) CLUSTER(C1)")
    mqsc[draw(st.sampled_from(names[:-1]))].append(f"DEFINE QLOCAL({QUEUES[0]}) CLUSTER(C1)")
    steps: list = []
    if draw(st.integers(0, 2)) == 2:
        # a cluster topic defined at one member, then PSCLUS(DISABLED) asked for at another
        # (002 §Inhibiting clustered publish/subscribe in a cluster: refused, even for a
        # remotely defined clustered topic)
        at, other = draw(st.lists(st.sampled_from(names), min_size=2, max_size=2, unique=True))
        mqsc[at].append(f"DEFINE TOPIC(T1) TOPICSTR('{draw(st.sampled_from(TOPICS[:2]))}') CLUSTER(C1)")
        steps.append(("mqsc", (("qmgr", other), ("commands", "ALTER QMGR PSCLUS(DISABLED)"))))
    if draw(st.integers(0, 2)) == 2:
        for f in draw(st.lists(st.sampled_from(frs), min_size=1, max_size=2, unique=True)):
            steps.append(("qmgr", (("name", f), ("action", "stop"))))
    steps.append(("open", (("qmgr", app), ("handle", "h1"), ("queue", QUEUES[0]), ("bind", "NOT_FIXED"))))
    cap = max(max_steps, 2)
    if draw(st.integers(0, 2)) == 2:
        demoted = draw(st.lists(st.sampled_from(frs), min_size=1, max_size=2, unique=True))
        for f in demoted[:cap - 2]:  # the MQOPEN and the MQPUT always fit in (a put needs its open)
            steps.append(("mqsc", (("qmgr", f), ("commands", "ALTER QMGR REPOS(' ')"))))
    steps.append(("put", (("handle", "h1"), ("count", draw(st.integers(1, 2))))))
    faults = allow_faults and draw(st.integers(0, 3)) == 3
    return _config(names, mqsc, steps[-cap:], "membership", faults)


# One recipe per witness. The republishing loop first: the only publish/subscribe one of
# session 29's five, and Hypothesis draws the first choice of a few most often. Session 30's
# two are appended: a WILDCARD(BLOCK) topic object between a wildcard subscription and a
# publication (PS-BLOCK-MATTERS), and a publication that reaches a subscriber by two
# loop-free paths (PS-DUPLICATES-DELIVERED), round a hierarchy loop or over a cluster and
# back through a hierarchy (``_two_paths`` draws which). Every recipe added takes its share
# of the focus from the others (docs/decisions.md, "Session 30: recipes for the four
# never-exercised publish/subscribe properties": three entries instead of two cost session
# 29's witnesses more than it gained)
WITNESS_RECIPES = ("republish_loop", "useq_any", "mruc", "weight_cycle", "gateway", "wildcard_block", "two_paths")
# the steps each recipe needs at least (the others fit in any budget: two steps)
_RECIPE_STEPS = {"republish_loop": 5, "wildcard_block": 3}


@st.composite
def _witnesses_focus(draw, max_qmgrs: int, max_steps: int, allow_faults: bool,
                     recipes: tuple[str, ...] = WITNESS_RECIPES):
    """One of ``recipes`` (default :data:`WITNESS_RECIPES`): the smallest configuration whose
    exploration reaches a witness that the other foci almost never assemble (each needs
    several rare draws at once); what the witness needs is fixed, the rest is drawn. QM1 is
    the application's queue manager. The republishing loop takes five steps and the
    WILDCARD(BLOCK) recipe three; each is left out of smaller budgets."""
    fitting = tuple(r for r in recipes if _RECIPE_STEPS.get(r, 2) <= max(max_steps, 2)) or recipes
    recipe = draw(st.sampled_from(fitting))
    faults = allow_faults and draw(st.integers(0, 3)) == 3
    if recipe == "republish_loop":
        return _republish_loop(draw, faults)
    if recipe == "wildcard_block":
        return _wildcard_block(draw, faults)
    if recipe == "two_paths":
        return _two_paths(draw, max_steps, faults)
    names = ("QM1", "QM2", "QM3")
    mqsc: dict[str, list[str]] = {q: [] for q in names}
    open_h1 = ("open", (("qmgr", "QM1"), ("handle", "h1"), ("queue", QUEUES[0]), ("bind", "NOT_FIXED")))
    if recipe == "gateway":
        _gateway_mqsc(mqsc)
        return _config(names, mqsc, [open_h1, ("put", (("handle", "h1"), ("count", draw(st.integers(1, 2)))))],
                       "witnesses", faults)
    _cluster_mqsc(draw, names, draw(st.sampled_from((("QM2",), ("QM2", "QM3")))), "C1", mqsc,
                  channel_attrs=False)  # QM1 a partial repository
    hosts = ["QM2", "QM3"]
    if recipe == "useq_any":
        # WL-USEQ-ANY-OPENED: a partial repository opens, naming no queue manager, a clustered
        # queue it hosts whose effective CLWLUSEQ is ANY (000 §Utilising remote destinations)
        hosts = ["QM2"] + (["QM3"] if draw(st.booleans()) else [])
        if draw(st.booleans()):
            mqsc["QM1"].append(f"DEFINE QLOCAL({QUEUES[0]}) CLUSTER(C1) CLWLUSEQ(ANY) REPLACE")
        else:
            mqsc["QM1"] += ["ALTER QMGR CLWLUSEQ(ANY)", f"DEFINE QLOCAL({QUEUES[0]}) CLUSTER(C1) REPLACE"]
    elif recipe == "mruc":
        # WL-MRUC-CUT: CLWLMRUC(1) where the algorithm runs, two channels to the hosts (001 rule 15)
        mqsc["QM1"].append("ALTER QMGR CLWLMRUC(1)")
    else:
        # WL-WEIGHTED-CYCLE: unequal CLWLWGHTs and puts enough for a full weight cycle (000
        # §Channel Weight example: 25 and 75 make a cycle of four)
        weights = draw(st.sampled_from(((25, 75), (75, 25), (25, 50), (50, 25))))
        for q, w in zip(hosts, weights):
            mqsc[q] = [line + f" CLWLWGHT({w})" if "CHLTYPE(CLUSRCVR)" in line else line for line in mqsc[q]]
    for q in hosts:
        mqsc[q].append(f"DEFINE QLOCAL({QUEUES[0]}) CLUSTER(C1) REPLACE")
    count = draw(st.integers(4, 5)) if recipe == "weight_cycle" else draw(st.integers(2, 3))
    return _config(names, mqsc, [open_h1, ("put", (("handle", "h1"), ("count", count)))], "witnesses", faults)


def _gateway_mqsc(mqsc) -> None:
    """000 §Rank and Overlapping Clusters with one gateway: QM1 in C1, QM3 in C2 hosting CQ1,
    QM2 the full repository of both with a gateway alias CQ1 in C1 (WL-GATEWAY-HOP: a
    message put at QM1 goes on from QM2, where it arrived)."""
    mqsc["QM1"] += [f"DEFINE CHANNEL(TO.QM1) CHLTYPE(CLUSRCVR) CONNAME({_conname('QM1')}) CLUSTER(C1)",
                    f"DEFINE CHANNEL(QM1.TO.QM2) CHLTYPE(CLUSSDR) CONNAME({_conname('QM2')}) CLUSTER(C1)"]
    mqsc["QM2"] += ["DEFINE NAMELIST(BOTH) NAMES(C1, C2)", "ALTER QMGR REPOSNL(BOTH)",
                    f"DEFINE CHANNEL(TO.QM2) CHLTYPE(CLUSRCVR) CONNAME({_conname('QM2')}) CLUSNL(BOTH)",
                    f"DEFINE QALIAS({QUEUES[0]}) TARGET({QUEUES[0]}) CLUSTER(C1)"]
    mqsc["QM3"] += [f"DEFINE CHANNEL(TO.QM3) CHLTYPE(CLUSRCVR) CONNAME({_conname('QM3')}) CLUSTER(C2)",
                    f"DEFINE CHANNEL(QM3.TO.QM2) CHLTYPE(CLUSSDR) CONNAME({_conname('QM2')}) CLUSTER(C2)",
                    f"DEFINE QLOCAL({QUEUES[0]}) CLUSTER(C2)"]


def _republish_loop(draw, faults: bool) -> Configuration:
    """PS-REPUBLISH-LOOP (examples/ps-republish-new.toml): QM2 is QM1's child; an application
    at each republishes what its subscription gets on the topic the other one subscribes to,
    with MQACTP_NEW (each round a new fingerprint chain: 002 §Loop detection fingerprint
    format) or, one time in four, MQACTP_FORWARD (the loop is detected); a publication starts it."""
    names = ("QM1", "QM2")
    mqsc: dict[str, list[str]] = {"QM1": [], "QM2": ["ALTER QMGR PARENT(QM1)"]}
    if draw(st.booleans()):  # proxy subscriptions in place before anything is published
        for q in names:
            mqsc[q].append("DEFINE TOPIC(T1) TOPICSTR('a') PROXYSUB(FORCE)")
    into, out = draw(st.sampled_from((("a/b", "a/c"), ("a/c", "a/b"))))
    action = "FORWARD" if draw(st.integers(0, 3)) == 3 else "NEW"
    steps = [("subscribe", (("qmgr", "QM1"), ("name", "IN"), ("topic", into))),
             ("subscribe", (("qmgr", "QM2"), ("name", "OUT"), ("topic", out))),
             ("republish", (("qmgr", "QM1"), ("subscription", "IN"), ("action", action), ("topic", out))),
             ("republish", (("qmgr", "QM2"), ("subscription", "OUT"), ("action", action), ("topic", into))),
             ("publish", (("qmgr", draw(st.sampled_from(names))), ("topic", into)))]
    return _config(names, mqsc, steps, "witnesses", faults)


def _wildcard_block(draw, faults: bool) -> Configuration:
    """PS-BLOCK-MATTERS (002 §Controlling wildcard usage with the WILDCARD property): a topic
    object with WILDCARD(BLOCK) at 'a' or 'a/b'; at QM1 a wildcard subscription less specific
    than it (blocked: '#', 'a/#' under 'a/b', or '*' in the character scheme) and one that
    still gets a publication at or below it (the topic itself, or the object's own topic
    string with '/#': "Sports/Football/#" is not blocked); then a publication at or below
    it, at QM2 mostly. QM1 and QM2 are linked by a hierarchy (the object a local one at
    QM1, maybe defined at QM2 too) or are the members of a publish/subscribe cluster (the
    object a cluster topic, defined at either)."""
    names = ("QM1", "QM2")
    mqsc: dict[str, list[str]] = {q: [] for q in names}
    block_at = draw(st.sampled_from(TOPICS[:2]))  # 'a' or 'a/b'
    published = draw(st.sampled_from([t for t in TOPICS[:3] if (t + "/").startswith(block_at + "/")]))
    if draw(st.booleans()):
        child, parent = draw(st.sampled_from((names[::-1], names)))  # either may be the parent
        mqsc[child].append(f"ALTER QMGR PARENT({parent})")
        hosts = ["QM1", "QM2"] if draw(st.integers(0, 3)) == 3 else ["QM1"]
        cluster = ""
    else:
        _cluster_mqsc(draw, names, (draw(st.sampled_from(names)),), "C1", mqsc, channel_attrs=False)
        hosts = [draw(st.sampled_from(names))]
        cluster = " CLUSTER(C1)"
    for q in hosts:
        mqsc[q].append(f"DEFINE TOPIC(T1) TOPICSTR('{block_at}'){cluster} WILDCARD(BLOCK)")
    blocked = draw(st.sampled_from((("#", "topic"), ("*", "char"))
                                   + ((("a/#", "topic"),) if block_at == "a/b" else ())))
    getter = draw(st.sampled_from((published, block_at + "/#")))
    subs = [("subscribe", (("qmgr", "QM1"), ("name", "S1"), ("topic", blocked[0]))
             + ((("scheme", "char"),) if blocked[1] == "char" else ())),
            ("subscribe", (("qmgr", "QM1"), ("name", "S2"), ("topic", getter)))]
    if draw(st.booleans()):
        subs.reverse()
    publisher = "QM1" if draw(st.integers(0, 3)) == 3 else "QM2"
    return _config(names, mqsc, [*subs, ("publish", (("qmgr", publisher), ("topic", published)))], "witnesses",
                   faults)


def _two_paths(draw, max_steps: int, faults: bool) -> Configuration:
    """PS-DUPLICATES-DELIVERED (002 §How loop detection works: "each queue manager within the
    loop receives both publications ... subscribing applications receiving duplicate
    copies"): one subscription, then a publication at another queue manager that reaches it
    by two loop-free paths, in one of two shapes. ``hierarchy_loop``: QM1, QM2 and QM3
    parents of each other in a ring, either way round (examples/ps-hierarchy-loop.toml with
    one subscriber); the subscriber is QM2 or QM3, the publisher QM1. ``cluster_bridge``:
    QM1 and QM2 the members of a publish/subscribe cluster with a cluster topic 'a', and QM3,
    outside it, linked to both by a hierarchy (a chain through QM3, or QM3 the parent of
    both): the publication goes over the cluster and round through QM3 — not the case 002
    §Topic spaces excludes, a hierarchy link between two members of the cluster.
    Publication on 'a/b'; the subscription is 'a/b' or 'a/#', and in the loop also '#' or
    the character scheme's '*'. Half the time, when three steps are allowed and faults are
    not, the publisher has the same subscription."""
    names = ("QM1", "QM2", "QM3")
    mqsc: dict[str, list[str]] = {q: [] for q in names}
    shape = draw(st.sampled_from(("hierarchy_loop", "cluster_bridge")))
    if shape == "hierarchy_loop":
        ring = names if draw(st.booleans()) else names[::-1]
        for i, q in enumerate(ring):
            mqsc[q].append(f"ALTER QMGR PARENT({ring[(i + 1) % 3]})")
        subscriber, publisher = draw(st.sampled_from(names[1:])), "QM1"
    else:
        _cluster_mqsc(draw, names[:2], (draw(st.sampled_from(names[:2])),), "C1", mqsc, channel_attrs=False)
        mqsc[draw(st.sampled_from(names[:2]))].append("DEFINE TOPIC(T1) TOPICSTR('a') CLUSTER(C1)")
        for child, parent in draw(st.sampled_from(((("QM1", "QM3"), ("QM3", "QM2")), (("QM2", "QM3"), ("QM3", "QM1")),
                                                   (("QM1", "QM3"), ("QM2", "QM3"))))):
            mqsc[child].append(f"ALTER QMGR PARENT({parent})")
        subscriber, publisher = draw(st.sampled_from((names[1::-1], names[:2])))
    # over the cluster only a subscription at or below the cluster topic's node is proxied
    # (002 §Wildcards and cluster topics: '#' or '*' would reach the publisher through QM3 only)
    topics = (("a/b", "topic"), ("a/#", "topic")) + ((("#", "topic"), ("*", "char")) if shape == "hierarchy_loop"
                                                     else ())
    topic, scheme = draw(st.sampled_from(topics))
    char = (("scheme", "char"),) if scheme == "char" else ()
    steps: list = [("subscribe", (("qmgr", subscriber), ("name", "S1"), ("topic", topic)) + char)]
    if max_steps >= 3 and not faults and draw(st.booleans()):
        # the publisher subscribes too: demand both ways round, so that without fingerprints
        # (the no_fingerprint_check mutant) a copy goes round again and is delivered a third
        # time within the fuzz bound (1,000 states); with faults the bound cuts it short
        steps.append(("subscribe", (("qmgr", publisher), ("name", "S2"), ("topic", topic)) + char))
    steps.append(("publish", (("qmgr", publisher), ("topic", "a/b"))))
    return _config(names, mqsc, steps, "witnesses", faults)


# the coverage focus (session 33) lives in spec/strategies_coverage.py: this module is at the
# 900-line rule for spec modules (tests/test_layers.py); it reads the helpers above
from spec.strategies_coverage import COVERAGE_RECIPES, _coverage_focus  # noqa: E402,F401

_FOCUSED = {"workload": _workload_focus, "hierarchy": _hierarchy_focus, "pubsub_cluster": _pubsub_cluster_focus,
            "membership": _membership_focus, "witnesses": _witnesses_focus, "coverage": _coverage_focus}
