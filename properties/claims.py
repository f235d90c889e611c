"""``config`` claims: statements over every configuration within a bound, proved with Z3.

Each claim is a ``Property.config`` whose predicate is a :class:`Claim` (what
``checker.prove`` needs: ``encode(bound)``, ``default_bound``, ``bound_unit``). The
encodings come from ``spec.symbolic`` (each tested against the Python function it
mirrors); this module states the claims, names the facts a proof may rest on, and decodes
counterexamples into runnable scenario files whose ``[[expect]]`` blocks say what the
claim demands of that configuration.

Every claim has a deliberately broken rule variant (:data:`BROKEN`; DESIGN §5 mutants
where one applies) under which it is refuted: the claim is not vacuous.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from dataclasses import dataclass, replace

import z3

from checker.model import Property
from spec.symbolic import loops as sym_loops
from spec.symbolic import reach as sym_reach
from spec.symbolic import base as sym_base
from spec.symbolic import repository as sym_repo
from spec.symbolic import weights as sym_weights
from spec.symbolic import workload as sym_wl
from spec.symbolic.base import Counterexample, Encoding, checkpoint, count, mqsc_string, ticking, toml_string
from spec.symbolic.topic_tree import SymTree, char_under
from spec.symbolic.topics import (
    SEPARATOR,
    char_prefix_cut,
    level_prefix_length,
    matches,
    sym_subscription,
    sym_topic,
)


@dataclass(frozen=True)
class Claim:
    """A ``config`` property's predicate (``checker.prove.ConfigClaim``). ``max_bound``: the
    largest bound ``mqcheck prove`` accepts, one whose encoding takes well under a minute
    (measured: docs/decisions.md, "A large --bound"); ``min_bound``: the smallest the
    encoding is defined for."""

    build: Callable[[int, str], Encoding]
    default_bound: int
    bound_unit: str
    variant: str = ""
    max_bound: int = 0
    min_bound: int = 1

    def encode(self, bound: int) -> Encoding:
        return self.build(bound, self.variant)

    def watching(self, check: Callable[[], None]):
        """The driver's check, called by the encoding's checkpoints (spec.symbolic.base)."""
        return sym_base.watching(check)

    def broken(self, variant: str) -> Claim:
        return replace(self, variant=variant)


# ------------------------------------------------------------------ scenario rendering
def _comment(lines: list[str]) -> str:
    """TOML comment lines (control characters cannot end a comment early: they are escaped)."""
    return "\n".join("# " + "".join(ch if ch.isprintable() else f"\\x{ord(ch):02x}" for ch in line)
                     for line in lines) + "\n"


def _broken_header(claim_id: str, variant: str, predicts: str) -> list[str]:
    """The header of a broken-rule counterexample (docs/decisions.md, issue #13 round 2): its
    [[expect]] blocks state what the broken rule predicts, so ``mqcheck run`` on the real
    spec fails (exit 1) and shows what the real rules do instead."""
    return [f"Counterexample of {claim_id} under the deliberately broken rule {variant!r}.",
            f"The broken variant {variant} predicts {predicts};",
            "the executable spec disagrees: the [[expect]] blocks below state the broken rule's prediction,",
            "so `mqcheck run` on this file exits 1 and its failing expectation shows the real behaviour."]


def _qmgr_block(name: str, mqsc: list[str]) -> str:
    body = "\n".join(mqsc)
    return f"[qmgrs.{name}]\nmqsc = \"\"\"\n{body}\n\"\"\"\n" if mqsc else f"[qmgrs.{name}]\n"


def _scenario(name: str, description: str, qmgrs: list[tuple[str, list[str]]], steps: list[str],
              expects: list[str], comment: list[str] | None = None) -> str:
    parts = [_comment(comment)] if comment else []
    parts += [f"name = {toml_string(name)}", f"description = {toml_string(description)}", ""]
    parts += [_qmgr_block(q, m) for q, m in qmgrs]
    parts += [f"[[steps]]\n{s}\n" for s in steps]
    parts += [f"[[expect]]\n{e}\n" for e in expects]
    return "\n".join(parts)


def _cluster_members(qmgrs: list[str], cluster: str = "CL1") -> dict[str, list[str]]:
    """MQSC making FR1 the full repository of ``cluster`` and each of ``qmgrs`` a member."""
    port = 1500
    out = {"FR1": ["ALTER QMGR REPOS(%s)" % cluster,
                   f"DEFINE CHANNEL(TO.FR1) CHLTYPE(CLUSRCVR) CONNAME('fr1({port})') CLUSTER({cluster})"]}
    for i, q in enumerate(qmgrs, 1):
        out[q] = [f"DEFINE CHANNEL(TO.{q}) CHLTYPE(CLUSRCVR) CONNAME('{q.lower()}({port + i})') CLUSTER({cluster})",
                  f"DEFINE CHANNEL(TO.FR1) CHLTYPE(CLUSSDR) CONNAME('fr1({port})') CLUSTER({cluster})"]
    return out


def _topic_defs(objects: dict, kind: str, attrs: tuple[str, ...], prefix: str) -> list[str]:
    """DEFINE TOPIC commands for the decoded objects of one kind ("local" or "record")."""
    out = []
    for node in sorted(objects, key=lambda n: (len(n), n)):
        obj = objects[node].get(kind)
        if obj is None or node == ():
            continue
        topicstr = SEPARATOR.join(node)
        name = prefix + "." + ".".join(level or "_" for level in node)
        text = f"DEFINE TOPIC({mqsc_string(name)}) TOPICSTR({mqsc_string(topicstr)})"
        for a in attrs:
            value = obj[a]
            if a == "cluster":
                value = value or ""
                if value:
                    text += f" CLUSTER({value})"
            elif value not in ("ASPARENT",):
                text += f" {a.upper()}({value})"
        out.append(text)
    return out


def _root_alter(objects: dict, attrs: tuple[str, ...]) -> list[str]:
    base = objects.get((), {}).get("local")
    if base is None:
        return []
    changes = [f"{a.upper()}({base[a]})" for a in attrs
               if a in ("pubscope", "subscope") and base[a] not in ("ALL", "ASPARENT")]
    return [f"ALTER TOPIC(SYSTEM.BASE.TOPIC) {' '.join(changes)}"] if changes else []


def _deliveries_expect(qmgr: str, subs: dict[str, list[str]]) -> str:
    rows = "\n".join(f"{name} = [{', '.join(toml_string(t) for t in topics)}]" for name, topics in subs.items())
    return f"[expect.deliveries.{qmgr}]\n{rows}"


# ------------------------------------------------------------------ PS-CFG-WILDCARD-BLOCK
LEVELS = ("a", "b")  # the level names of a bounded tree (a char-scheme topic's characters: a, b, /)


def _block_part(tag: str, depth: int, charwise: bool, variant: str, facts: dict, domain: list):
    """One scheme's half of the WILDCARD(BLOCK) claim."""
    tree = SymTree(f"{tag}.tree", LEVELS, depth)
    if charwise:
        alphabet = ("a", "b", SEPARATOR)
        length = 2 * depth + 1
    else:
        alphabet = LEVELS + ("",)
        length = depth + 1
        tree = SymTree(f"{tag}.tree", alphabet, depth, nodes=[n for d in range(1, depth + 1)
                                                              for n in itertools.product(LEVELS, repeat=d)])
    topic = sym_topic(f"{tag}.topic", alphabet, length, charwise)
    sub = sym_subscription(f"{tag}.sub", alphabet, length, charwise)
    domain += tree.domain() + topic.domain() + sub.domain()
    m, b, d = z3.Bools(f"{tag}.matches {tag}.blocked {tag}.delivered")
    scheme = "character-based" if charwise else "topic-based"
    facts[f"002 §{scheme.capitalize()} wildcard scheme: how a {scheme} subscription matches a topic string"] = \
        m == matches(sub, topic)
    facts[f"002 §Controlling wildcard usage with the WILDCARD property: BLOCK nodes below a {scheme} "
          f"subscription's fixed prefix, captured at creation"] = b == tree.blocked(sub, topic, variant)
    facts[f"002 §Subscribers and subscriptions, {scheme}: a publication is delivered when it matches and is "
          f"not blocked"] = \
        d == z3.And(m, z3.Not(b))
    prefix_levels = _char_prefix_levels(sub) if charwise else level_prefix_length(sub)
    hidden = []
    for node in ticking(tree.nodes):
        if node == ():
            continue
        under = char_under(node, topic) if charwise else tree.under(topic, node)
        hidden.append(z3.Implies(z3.And(tree.blocks(node), sub.has_wildcard(), prefix_levels < len(node), under),
                                 z3.Not(d)))
    never_blocked = z3.Implies(z3.And(z3.Not(sub.has_wildcard()), m), d)
    return tree, topic, sub, z3.And(*hidden, never_blocked), d


def _char_prefix_levels(sub) -> z3.ArithRef:
    """How many levels ``fixed_prefix`` has in the character scheme."""
    cut = char_prefix_cut(sub)
    slash = sub.alphabet.index(SEPARATOR)
    slashes = z3.Sum([z3.If(z3.And(k < cut, sub.tokens[k] == slash), 1, 0) for k in range(len(sub.tokens))])
    return z3.If(cut == -1, 0, slashes + 1)


def _encode_block(depth: int, variant: str) -> Encoding:
    facts: dict[str, z3.BoolRef] = {}
    domain: list[z3.BoolRef] = []
    parts = [_block_part("topic", depth, False, variant, facts, domain),
             _block_part("char", depth, True, variant, facts, domain)]
    claim = z3.And(parts[0][3], parts[1][3])

    def decode(model: z3.ModelRef) -> Counterexample:
        for scheme, (tree, topic, sub, holds, delivered) in zip(("topic", "char"), parts):
            if z3.is_true(model.eval(holds, model_completion=True)):
                continue
            objects = tree.decode(model)
            t, s = topic.decode(model), sub.decode(model)
            got = z3.is_true(model.eval(delivered, model_completion=True))
            return _block_scenario(objects, s, scheme, t, got, variant)
        raise AssertionError("decode called on a model that satisfies the claim")

    cost = [count(v.local for n, v in p[0].nodes.items() if n) + count(v.record for v in p[0].nodes.values())
            for p in parts]
    sizes = [p[1].length + p[2].length for p in parts]
    return Encoding(facts, claim, decode, domain, [z3.Sum(cost), z3.Sum(sizes)])


def _block_scenario(objects: dict, sub: str, scheme: str, topic: str, delivered: bool, variant: str) -> Counterexample:
    attrs = ("wildcard",)
    local = _topic_defs(objects, "local", attrs, "T")
    records = [c + " CLUSTER(CL1)" for c in _topic_defs(objects, "record", attrs, "C")]
    # a real counterexample's expect is what the claim demands (the opposite of what the rule
    # did); a broken rule's, what the broken rule predicts (docs/decisions.md, #13 round 2)
    want = ([topic] if delivered else []) if variant else ([] if delivered else [topic])
    members = _cluster_members(["QMA"]) if records else {}
    qmgrs = []
    if records:
        qmgrs.append(("FR1", members["FR1"] + records))
    qmgrs.append(("QMA", members.get("QMA", []) + local))
    steps = [f"subscribe = {{ qmgr = \"QMA\", name = \"S1\", topic = {toml_string(sub)}, scheme = \"{scheme}\" }}",
             f"publish = {{ qmgr = \"QMA\", topic = {toml_string(topic)} }}"]
    broken = f" under the broken rule {variant!r}" if variant else ""
    summary = (f"{scheme}-scheme subscription {sub!r} at QMA {'receives' if delivered else 'misses'} a "
               f"publication on {topic!r}{broken}; the claim says it must {'not ' if delivered else ''}receive it")
    comment = _broken_header("PS-CFG-WILDCARD-BLOCK", variant, f"that the {scheme}-scheme subscription S1 {sub!r} at "
                             f"QMA {'receives' if delivered else 'misses'} the publication on {topic!r}") \
        if variant else None
    text = _scenario(f"PS-CFG-WILDCARD-BLOCK counterexample{broken}", summary, qmgrs, steps,
                     [_deliveries_expect("QMA", {"S1": want})], comment)
    return Counterexample(summary, text, "ps-cfg-wildcard-block", {"objects": objects, "sub": sub, "scheme": scheme,
                                                                   "topic": topic, "delivered": delivered})


# ------------------------------------------------------------------ RP-CFG-FR-MESH
def _encode_fr_mesh(n: int, variant: str) -> Encoding:
    mesh = sym_repo.fr_mesh(n)
    facts = sym_repo.rules(mesh, variant)
    ex = mesh.exists
    own = {x: mesh.own_record_reaches(x) for x in range(n)}
    pr = {(a, b): mesh.pr_record_reaches(a, b) for a in range(n) for b in range(n) if a != b}
    lost: list[tuple[str, tuple, int, z3.BoolRef]] = []
    for x, got in ticking(own.items()):
        lost += [("own", (x,), y, z3.And(ex[x], ex[y], z3.Not(got[y]))) for y in range(n)]
    for (a, b), got in ticking(pr.items()):
        lost += [("pr", (a, b), y, z3.And(ex[a], ex[b], ex[y], z3.Not(got[y]))) for y in range(n)]
    every_record_everywhere = z3.Not(z3.Or([c for *_, c in lost]))
    claim = every_record_everywhere == mesh.complete()

    def decode(model: z3.ModelRef) -> Counterexample:
        k, edges = sym_repo.decode_graph(mesh, model)
        missing = [(kind, who, y) for kind, who, y, c in lost if z3.is_true(model.eval(c, model_completion=True))]
        reaches = {(x, y): z3.is_true(model.eval(own[x][y], model_completion=True)) for x in range(k) for y in range(k)}
        return _fr_mesh_scenario(k, edges, missing, variant, reaches)

    uses_pr = z3.Or([c for kind, *_, c in lost if kind == "pr"])
    cost = [count(ex), z3.If(uses_pr, 1, 0), count(mesh.edge.values())]
    return Encoding(facts, claim, decode, mesh.domain(), cost)


def _fr_mesh_scenario(k: int, edges: list[tuple[int, int]], missing: list, variant: str,
                      reaches: dict | None = None) -> Counterexample:
    fr = [f"FR{i + 1}" for i in range(k)]
    qmgrs = []
    for i in range(k):
        mqsc = ["ALTER QMGR REPOS(DEMO)",
                f"DEFINE CHANNEL(TO.{fr[i]}) CHLTYPE(CLUSRCVR) CONNAME('{fr[i].lower()}(1414)') CLUSTER(DEMO)"]
        # named as the CLUSRCVR it reaches: the two ends of a channel share one name (lint CLUSSDR-NAME)
        mqsc += [f"DEFINE CHANNEL(TO.{fr[j]}) CHLTYPE(CLUSSDR) CONNAME('{fr[j].lower()}(1414)') CLUSTER(DEMO)"
                 for a, j in edges if a == i]
        qmgrs.append((fr[i], mqsc))
    broken = f" under the broken rule {variant!r}" if variant else ""
    complete = len(edges) == k * (k - 1)
    graph = ", ".join(f"{fr[a]}->{fr[b]}" for a, b in edges) or "none"
    if missing:
        kind, who, y = missing[0]
        if kind == "own":
            owner, steps = fr[who[0]], [f'mqsc = {{ qmgr = "{fr[who[0]]}", commands = "DEFINE QLOCAL(CQ1) CLUSTER(DEMO)" }}']
        else:
            owner = "PR1"
            qmgrs.append(("PR1", []))
            join = (f"DEFINE CHANNEL(TO.PR1) CHLTYPE(CLUSRCVR) CONNAME('pr1(1414)') CLUSTER(DEMO)\n"
                    f"DEFINE CHANNEL(TO.{fr[who[0]]}) CHLTYPE(CLUSSDR) CONNAME('{fr[who[0]].lower()}(1414)') CLUSTER(DEMO)")
            steps = [f'mqsc = {{ qmgr = "PR1", commands = "{join}" }}',
                     'mqsc = { qmgr = "PR1", commands = "DEFINE QLOCAL(CQ1) CLUSTER(DEMO)" }']
        summary = (f"{k} full repositories, manual CLUSSDRs {graph} ({'complete' if complete else 'not complete'}): "
                   f"a record of {owner} (CQ1) never reaches {fr[y]}{broken}")
    else:
        steps, owner = [], ""
        summary = (f"{k} full repositories, manual CLUSSDRs {graph}: not complete, yet every record reaches every "
                   f"full repository{broken}")
    expects = [f'[expect.repositories.{name}.DEMO]\nqueues = {{ CQ1 = ["{owner}"] }}' for name in fr] if owner else \
        ["no_errors = true"]
    comment = None
    if variant and reaches is not None and (not missing or missing[0][0] == "own"):
        # the broken rule's prediction for every FR's own record: each FR defines CQ<i>, and each
        # FR's repository holds exactly the records the broken rule delivers to it
        steps = [f'mqsc = {{ qmgr = "{fr[x]}", commands = "DEFINE QLOCAL(CQ{x + 1}) CLUSTER(DEMO)" }}' for x in range(k)]
        qmgrs = [(q, m) for q, m in qmgrs if q != "PR1"]
        expects, lost = [], []
        for y in range(k):
            held = [x for x in range(k) if reaches[(x, y)]]
            lost += [f"CQ{x + 1} of {fr[x]} at {fr[y]}" for x in range(k) if not reaches[(x, y)]]
            queues = ", ".join(f'CQ{x + 1} = ["{fr[x]}"]' for x in held)
            expects.append(f"[expect.repositories.{fr[y]}.DEMO]\nqueues = {{ {queues} }}")
        comment = _broken_header("RP-CFG-FR-MESH", variant, "that each FR's own queue record reaches "
                                 + ("every FR" if not lost else "every FR but: " + "; ".join(lost)))
    elif variant:  # a partial repository's record: the broken rule predicts it never reaches fr[y]
        kind, who, y = missing[0]
        expects = [f"[expect.repositories.{fr[y]}.DEMO]\nqueues = {{}}"]
        comment = _broken_header("RP-CFG-FR-MESH", variant, f"that PR1's queue record CQ1 never reaches {fr[y]}")
    text = _scenario(f"RP-CFG-FR-MESH counterexample{broken}", summary, qmgrs, steps, expects, comment)
    return Counterexample(summary, text, "rp-cfg-fr-mesh", {"frs": k, "edges": edges, "missing": missing})


# ------------------------------------------------------------------ PS-CFG-LOOP-BOUND
def _encode_loop_bound(n: int, variant: str) -> Encoding:
    g = sym_loops.graph(n)
    p = sym_loops.path(n)
    facts = sym_loops.rules(g, p, variant)
    claim = p.length < count(g.exists)  # processed at no more queue managers than there are

    def decode(model: z3.ModelRef) -> Counterexample:
        return _loop_scenario(sym_loops.decode(g, p, model), variant)

    cost = [count(g.exists), count(g.member), count(g.parent[i] != sym_loops.NO_PARENT for i in range(n))]
    return Encoding(facts, claim, decode, g.domain() + p.domain(g), cost)


def _loop_scenario(d: dict, variant: str) -> Counterexample:
    names = [f"QM{i + 1}" for i in range(d["qmgrs"])]
    members = [names[i] for i, m in enumerate(d["member"]) if m]
    mqsc: dict[str, list[str]] = {q: [] for q in names}
    for i, par in enumerate(d["parent"]):
        if par >= 0:
            mqsc[names[i]].append(f"ALTER QMGR PARENT({names[par]})")
    if members:
        fr = members[0]
        mqsc[fr] += ["ALTER QMGR REPOS(CL1)",
                     f"DEFINE CHANNEL(TO.{fr}) CHLTYPE(CLUSRCVR) CONNAME('{fr.lower()}(1414)') CLUSTER(CL1)",
                     "DEFINE TOPIC(PRICE) TOPICSTR('Price') CLUSTER(CL1)"]
        for q in members[1:]:
            mqsc[q] += [f"DEFINE CHANNEL(TO.{q}) CHLTYPE(CLUSRCVR) CONNAME('{q.lower()}(1414)') CLUSTER(CL1)",
                        f"DEFINE CHANNEL(TO.{fr}) CHLTYPE(CLUSSDR) CONNAME('{fr.lower()}(1414)') CLUSTER(CL1)"]
    path = [names[i] for i in d["path"]]
    seen: list[str] = []
    again = ""
    for q in path:
        if q in seen:
            again = q
            break
        seen.append(q)
    steps = [f'subscribe = {{ qmgr = "{q}", name = "S{i + 1}", topic = "Price/#" }}' for i, q in enumerate(names)]
    steps.append(f'publish = {{ qmgr = "{path[0]}", topic = "Price/Fruit" }}')
    hops = "".join(f"{a} -{v}-> " for a, v in zip(path, d["via"])) + path[-1]
    broken = f" under the broken rule {variant!r}" if variant else ""
    summary = (f"a publication at {path[0]} is processed {len(path)} times among {len(names)} queue managers: "
               f"{hops}{broken}")
    expects = [f'errors = [{{ qmgr = "{again}", code = "LOOP_DETECTED" }}]'] if again else ["no_errors = true"]
    comment = None
    if variant and again:  # the broken rule predicts the publication comes back to {again} unnoticed
        expects = [f'absent_errors = [{{ qmgr = "{again}", code = "LOOP_DETECTED" }}]']
        comment = _broken_header("PS-CFG-LOOP-BOUND", variant, f"that the publication comes back to {again} and is "
                                 f"processed there again, no LOOP_DETECTED ({hops})")
    text = _scenario(f"PS-CFG-LOOP-BOUND counterexample{broken}", summary, [(q, mqsc[q]) for q in names], steps,
                     expects, comment)
    return Counterexample(summary, text, "ps-cfg-loop-bound", d)


# ------------------------------------------------------------------ PS-CFG-REACH
def _reach_condition(rp, publisher_cluster: bool = False) -> z3.BoolRef:
    """The condition DESIGN §4 PS-SCOPE states, at each end's closest topic object."""
    s1 = rp.subs[0]
    any_puller = z3.Or([z3.And(x.present, z3.Not(x.scope_qmgr),
                               rp.sub_tree.effective_for_subscription("subscope", x.sub) == sym_reach.ALL,
                               rp.sub_tree.effective_for_subscription("cluster", x.sub) == sym_reach.CL1,
                               matches(x.sub, rp.topic), z3.Not(rp.pub_tree.blocked(x.sub, rp.topic)))
                        for x in rp.subs])
    parts = [z3.Not(rp.pmo_scope_qmgr), rp.pub_tree.effective("pubscope", rp.topic) == sym_reach.ALL,
             z3.Not(s1.scope_qmgr), rp.sub_tree.effective_for_subscription("subscope", s1.sub) == sym_reach.ALL,
             matches(s1.sub, rp.topic), z3.Not(rp.sub_tree.blocked(s1.sub, rp.topic)), any_puller]
    if publisher_cluster:
        parts.append(rp.pub_tree.effective("cluster", rp.topic) == sym_reach.CL1)
    return z3.And(parts)


def _encode_reach(depth: int, variant: str) -> Encoding:
    rp = sym_reach.reach_problem(depth)
    sent, reached = z3.Bools("P.forwards_to_S s1.receives")
    facts = sym_reach.rules(rp, sent, reached, variant)
    claim = reached == _reach_condition(rp)

    def decode(model: z3.ModelRef) -> Counterexample:
        return _reach_scenario(rp, model, variant, z3.is_true(model.eval(_reach_condition(rp), model_completion=True)))

    objects = [count(v.local for n, v in t.nodes.items() if n) for t in (rp.pub_tree, rp.sub_tree)]
    objects.append(count(v.record for v in rp.records.nodes.values()))
    flags = count([rp.pmo_scope_qmgr, rp.subs[1].present] + [s.scope_qmgr for s in rp.subs])
    sizes = rp.topic.length + z3.Sum([s.sub.length for s in rp.subs])
    return Encoding(facts, claim, decode, rp.domain(), [z3.Sum(objects), flags, sizes])


def _reach_scenario(rp, model: z3.ModelRef, variant: str, demanded: bool) -> Counterexample:
    def true(x):
        return z3.is_true(model.eval(x, model_completion=True))
    attrs = ("pubscope", "subscope", "cluster", "wildcard")
    records = rp.records.decode(model)
    members = _cluster_members(["QMA", "QMB"])
    fr = members["FR1"] + _topic_defs(records, "record", attrs, "C")
    qmgrs = [("FR1", fr)]
    for q, tree in (("QMA", rp.pub_tree), ("QMB", rp.sub_tree)):
        objs = {n: {"local": o["local"]} for n, o in tree.decode(model).items() if "local" in o}
        qmgrs.append((q, members[q] + _root_alter(objs, attrs) + _topic_defs(objs, "local", attrs, "T")))
    topic = rp.topic.decode(model)
    steps, subs = [], []
    for i, s in enumerate(rp.subs):
        if not true(s.present):
            continue
        scope = ', scope = "QMGR"' if true(s.scope_qmgr) else ""
        text = s.sub.decode(model)
        subs.append(f"S{i + 1} {text!r}{' (MQSO_SCOPE_QMGR)' if scope else ''}")
        steps.append(f'subscribe = {{ qmgr = "QMB", name = "S{i + 1}", topic = {toml_string(text)}{scope} }}')
    pscope = ', scope = "QMGR"' if true(rp.pmo_scope_qmgr) else ""
    steps.append(f'publish = {{ qmgr = "QMA", topic = {toml_string(topic)}{pscope} }}')
    broken = f" under the broken rule {variant!r}" if variant else ""
    summary = (f"publication on {topic!r} at QMA{' (MQPMO_SCOPE_QMGR)' if pscope else ''}, subscriptions at QMB "
               f"{', '.join(subs)}: S1 {'misses' if demanded else 'receives'} it{broken}; the condition says it "
               f"must {'' if demanded else 'not '}receive it")
    # a broken rule's counterexample states its prediction (it disagrees with the condition,
    # which the real rules meet): a real one states the condition
    received = not demanded if variant else demanded
    comment = _broken_header("PS-CFG-REACH", variant, f"that S1 at QMB {'receives' if received else 'misses'} the "
                             f"publication on {topic!r} from QMA") if variant else None
    text = _scenario(f"PS-CFG-REACH counterexample{broken}", summary, qmgrs, steps,
                     [_deliveries_expect("QMB", {"S1": [topic] if received else []})], comment)
    return Counterexample(summary, text, "ps-cfg-reach", {"topic": topic, "demanded": demanded})


# ------------------------------------------------------------------ WL-CFG-SELECTION
def _selection_claim(sel, out) -> tuple[z3.BoolRef, dict[str, z3.BoolRef]]:
    """The four statements about the first choice (each also a separate term, for decoding)."""
    rs = sel.routes
    local = sel.local
    never_disabled = z3.And([z3.Implies(c, r.put) for c, r in zip(out.chosen, rs)])
    top_rank = z3.And([z3.Implies(c, z3.And([z3.Implies(o.exists, z3.Or(o.ch_rank < r.ch_rank, z3.And(
        o.ch_rank == r.ch_rank, o.q_rank <= r.q_rank))) for o in rs])) for c, r in zip(out.chosen, rs)])
    outranked = z3.Or([z3.And(o.exists, z3.Or(o.ch_rank > local.ch_rank, z3.And(o.ch_rank == local.ch_rank,
                                                                                    o.q_rank > local.q_rank)))
                       for o in rs[:-1]])
    keeps_local = z3.Implies(z3.And(local.exists, local.put, sel.effective_useq_local(), z3.Not(outranked)),
                             out.chosen[-1])
    top = [z3.And(r.exists, *[z3.Implies(o.exists, z3.Or(o.ch_rank < r.ch_rank, z3.And(
        o.ch_rank == r.ch_rank, o.q_rank <= r.q_rank))) for o in rs]) for r in rs]
    inhibited_iff = out.inhibited == z3.And(z3.Or(top), z3.And([z3.Implies(t, z3.Not(r.put)) for t, r in zip(top, rs)]))
    parts = {"never a PUT(DISABLED) instance": never_disabled,
             "never a lower CLWLRANK (channel, then queue)": top_rank,
             "the local instance under CLWLUSEQ(LOCAL) unless outranked": keeps_local,
             "MQRC_CLUSTER_PUT_INHIBITED exactly when every top-ranked instance is PUT(DISABLED)": inhibited_iff}
    return z3.And(list(parts.values())), parts


def _encode_selection(k: int, variant: str) -> Encoding:
    sel = sym_wl.selection(k)
    out = sym_wl.choose(sel, variant)
    chosen = [z3.Bool(f"chosen.{r.qmgr}") for r in sel.routes]
    inhibited = z3.Bool("MQRC_CLUSTER_PUT_INHIBITED")
    facts = {
        "001 §The cluster workload management algorithm: rules 3-14 in order (rank before PUT before the local "
        "instance before SUSPEND, status, priority), then the least recently used channel":
            z3.And([c == t for c, t in zip(chosen, out.chosen)] + [inhibited == out.inhibited]),
    }
    view = sym_wl.Outcome(chosen, inhibited, out.no_instance)
    claim, parts = _selection_claim(sel, view)
    correct = sym_wl.choose(sel)

    def decode(model: z3.ModelRef) -> Counterexample:
        failed = [name for name, term in parts.items() if not z3.is_true(model.eval(term, model_completion=True))]
        d = sym_wl.decode(sel, model)
        got = [r.qmgr for r, c in zip(sel.routes, chosen) if z3.is_true(model.eval(c, model_completion=True))]
        right = [r.qmgr for r, c in zip(sel.routes, correct.chosen) if z3.is_true(model.eval(c, model_completion=True))]
        right_inhibited = z3.is_true(model.eval(correct.inhibited, model_completion=True))
        return _selection_scenario(d, failed, got, right, right_inhibited, variant)

    rs = sel.routes
    cost = [count(r.exists for r in rs),
            z3.Sum([count([r.ch_rank != 0, r.ch_prty != 0, r.weight != 50, r.status != 0, r.suspended,
                           z3.Not(r.put), r.q_rank != 0, r.q_prty != 0]) for r in rs])
            + count([sel.local_useq != 0, z3.Not(sel.qmgr_useq_local)])]
    return Encoding(facts, claim, decode, sel.domain(), cost)


def _selection_scenario(d: dict, failed: list[str], got: list[str], right: list[str], inhibited: bool,
                        variant: str) -> Counterexample:
    routes = d["routes"]
    local = routes[-1]
    def channel_attrs(r):
        return "".join(f" {a}({r[a]})" for a, default in (("CLWLRANK", 0), ("CLWLPRTY", 0), ("CLWLWGHT", 50))
                       if r[a] != default)
    def queue_attrs(r):
        text = "" if r["PUT"] else " PUT(DISABLED)"
        text += "".join(f" {a.split()[1]}({r[a]})" for a in ("queue CLWLRANK", "queue CLWLPRTY") if r[a])
        return text
    app = ["ALTER QMGR REPOS(DEMO)",
           f"DEFINE CHANNEL(TO.QMAPP) CHLTYPE(CLUSRCVR) CONNAME('qmapp(1414)') CLUSTER(DEMO){channel_attrs(local)}"]
    if d["QMGR CLWLUSEQ"] != "LOCAL":
        app.insert(0, "ALTER QMGR CLWLUSEQ(ANY)")
    if local["instance"]:
        useq = "" if d["local CLWLUSEQ"] == "QMGR" else f" CLWLUSEQ({d['local CLWLUSEQ']})"
        app.append(f"DEFINE QLOCAL(DEMOQ) CLUSTER(DEMO){queue_attrs(local)}{useq}")
    qmgrs = [("QMAPP", app)]
    steps = []
    for r in routes[:-1]:
        if not r["instance"]:
            continue
        q = r["qmgr"]
        qmgrs.append((q, [f"DEFINE CHANNEL(TO.{q}) CHLTYPE(CLUSRCVR) CONNAME('{q.lower()}(1414)') CLUSTER(DEMO)"
                          f"{channel_attrs(r)}",
                          "DEFINE CHANNEL(TO.QMAPP) CHLTYPE(CLUSSDR) CONNAME('qmapp(1414)') CLUSTER(DEMO)",
                          f"DEFINE QLOCAL(DEMOQ) CLUSTER(DEMO){queue_attrs(r)}"]))
        if r["suspended"]:
            steps.append(f'mqsc = {{ qmgr = "{q}", commands = "SUSPEND QMGR CLUSTER(DEMO)" }}')
        if r["status"] != "RUNNING":
            steps.append(f'channel = {{ qmgr = "QMAPP", to = "{q}", status = "{r["status"]}" }}')
    steps += ['open = { qmgr = "QMAPP", handle = "app", queue = "DEMOQ", bind = "NOT_FIXED" }',
              'put = { handle = "app" }']
    broken = f" under the broken rule {variant!r}" if variant else ""
    where = got[0] if got else "nowhere (MQRC_CLUSTER_PUT_INHIBITED)"
    summary = f"the first put from QMAPP goes to {where}{broken}: fails '{'; '.join(failed)}'"
    # what the real rules do, which the claim demands: a message on a channel that is not
    # running waits on the transmission queue (rank beats status: 000 §Queue Rank example)
    if inhibited:
        expect = 'errors = [{ qmgr = "QMAPP", code = "MQRC_CLUSTER_PUT_INHIBITED" }]'
    else:
        dest = next(r for r in routes if r["qmgr"] == right[0])
        arrived = dest["local"] or dest["status"] == "RUNNING"
        expect = f'messages = {{ app = {{ {right[0]} = 1 }} }}' if arrived else "messages = { app = {} }"
        expect += "\nno_errors = true"
    comment = None
    if variant:  # the broken rule's prediction instead (docs/decisions.md, #13 round 2)
        if not got:
            expect = 'errors = [{ qmgr = "QMAPP", code = "MQRC_CLUSTER_PUT_INHIBITED" }]'
            predicts = "that the put fails with MQRC_CLUSTER_PUT_INHIBITED"
        else:
            dest = next(r for r in routes if r["qmgr"] == got[0])
            if not dest["local"] and dest["status"] != "RUNNING":
                # the message waits on a channel that is not running: start it, so it arrives
                steps.append(f'channel = {{ qmgr = "QMAPP", to = "{got[0]}", status = "RUNNING" }}')
            expect = f"messages = {{ app = {{ {got[0]} = 1 }} }}"
            predicts = f"that the put goes to {got[0]}"
        comment = _broken_header("WL-CFG-SELECTION", variant, predicts)
    text = _scenario(f"WL-CFG-SELECTION counterexample{broken}", summary, qmgrs, steps, [expect], comment)
    return Counterexample(summary, text, "wl-cfg-selection", d)


# ------------------------------------------------------------------ WL-CFG-WEIGHTS
def _encode_weights(k: int, variant: str) -> Encoding:
    s = sym_weights.step(k)
    facts = {
        "001 §The cluster workload management algorithm, final choice: every CLWLWGHT 50, the least recently "
        "used channel (lowest DestSeqNumber); else the channel with the lowest DestSeqFactor, "
        "then the lowest DestSeqNumber (then the lowest name)": sym_weights.choice_rule(s, variant),
        "000 §Cluster Workload Algorithm rule 12: the chosen channel's DestSeqFactor grows by 1000/CLWLWGHT "
        "(from a fresh history: its choices so far times 1000/CLWLWGHT) and its DestSeqNumber becomes the "
        "previous choice's plus one": sym_weights.charge_rule(s),
    }
    zeros = [z3.IntVal(0)] * k

    def ahead(exists, weights, counts, numbers=zeros):
        # the invariant: no channel more than one weighted pick ahead, and (every CLWLWGHT 50)
        # the more often chosen channels are the more recently chosen
        return z3.And(sym_weights.one_pick_ahead(exists, weights, counts),
                      sym_weights.least_recent_behind(exists, weights, counts, numbers))
    # by induction over the puts: true of a fresh history, kept by every choice, and at a whole
    # number of full weight cycles it leaves only the proportional counts
    initially = ahead(s.exists, s.weight, zeros)
    kept = z3.Implies(ahead(s.exists, s.weight, s.count, s.number), ahead(s.exists, s.weight, s.after, s.number_after))
    exact = z3.Implies(z3.And(ahead(s.exists, s.weight, s.count, s.number),
                              sym_weights.proportional(s.exists, s.weight, s.d, s.puts())),
                       z3.And([z3.Implies(e, c == x) for e, c, x in zip(s.exists, s.count, s.d)]))
    claim = z3.And(initially, kept, exact)

    def decode(model: z3.ModelRef) -> Counterexample:
        def val(x):
            v = model.eval(x, model_completion=True)
            return z3.is_true(v) if z3.is_bool(v) else v.as_long()
        present = [i for i in range(k) if val(s.exists[i])]
        return _weights_counterexample(k, present, [val(s.weight[i]) for i in present], variant)

    cost = [count(s.exists), count([w != sym_weights.WEIGHT_DEFAULT for w in s.weight]),
            z3.Sum([z3.If(e, i, 0) for i, e in enumerate(s.exists)])]  # QM1, QM2, ... first
    return Encoding(facts, claim, decode, s.domain(), cost)


def _weights_run(k: int, present: list[int], weights: list[int] | None, variant: str, t: int):
    """The first put (within ``t``) at which the rule ``variant`` violates the claim, on the
    instances ``present`` (weights fixed, or free when ``weights`` is None): (weights, n,
    counts after n puts), or None."""
    u = sym_weights.unrolled(k, t, variant)
    _, per_put = sym_weights.violation(u, variant)
    solver = z3.Solver()
    solver.add(*u.domain(), *u.rules, *[e == (i in present) for i, e in enumerate(u.exists)])
    if weights is not None:
        solver.add(*[u.weight[i] == w for i, w in zip(present, weights)])
    solver.add(*[u.weight[i] == sym_weights.WEIGHT_DEFAULT for i in range(k) if i not in present])
    for n, bad in enumerate(per_put, 1):  # the first violated put: the shortest scenario
        solver.push()
        solver.add(bad)
        answer = solver.check()
        checkpoint()  # a check the deadline or a stop signal cut short is not an answer
        if answer == z3.sat:
            m = solver.model()
            ws = [m.eval(u.weight[i], model_completion=True).as_long() for i in present]
            got = [m.eval(u.count[n][i], model_completion=True).as_long() for i in present]
            return ws, n, got
        solver.pop()
    return None


def _weights_counts(k: int, present: list[int], weights: list[int], variant: str, n: int) -> list[int]:
    """Counts after ``n`` puts under the rule ``variant`` (the encoding's own prediction)."""
    u = sym_weights.unrolled(k, n, variant)
    solver = z3.Solver()
    solver.add(*u.rules, *[e == (i in present) for i, e in enumerate(u.exists)],
               *[u.weight[i] == w for i, w in zip(present, weights)],
               *[u.weight[i] == sym_weights.WEIGHT_DEFAULT for i in range(k) if i not in present])
    answer = solver.check()
    checkpoint()
    assert answer == z3.sat
    m = solver.model()
    return [m.eval(u.count[n][i], model_completion=True).as_long() for i in present]


def _weights_counterexample(k: int, present: list[int], weights: list[int], variant: str) -> Counterexample:
    t = sym_weights.horizon(k)
    found = _weights_run(k, present, weights, variant, t) or _weights_run(k, present, None, variant, t)
    names = [sym_weights.qmgr_names(k)[i] for i in present]
    if found is None:  # the inductive step fails only at states no put sequence reaches within t
        found = weights, t, _weights_counts(k, present, weights, variant, t)
    weights, n, got = found
    real = _weights_counts(k, present, weights, "", n)
    total = sum(weights)
    cycle = total // math.gcd(*weights)
    def show(counts):
        return ", ".join(f"{q} {c}" for q, c in zip(names, counts))
    where = ", ".join(f"{q} CLWLWGHT({w})" for q, w in zip(names, weights))
    broken = f" under the broken rule {variant!r}" if variant else ""
    summary = (f"{n} puts from QMAPP over {where} (full weight cycle: {cycle} puts) go {show(got)}{broken}; "
               f"the rule of record sends {show(real)}")
    app = ["ALTER QMGR REPOS(DEMO)",
           "DEFINE CHANNEL(TO.QMAPP) CHLTYPE(CLUSRCVR) CONNAME('qmapp(1414)') CLUSTER(DEMO)"]
    qmgrs = [("QMAPP", app)]
    for q, w in zip(names, weights):
        attrs = "" if w == sym_weights.WEIGHT_DEFAULT else f" CLWLWGHT({w})"
        qmgrs.append((q, [f"DEFINE CHANNEL(TO.{q}) CHLTYPE(CLUSRCVR) CONNAME('{q.lower()}(1414)') CLUSTER(DEMO){attrs}",
                          "DEFINE CHANNEL(TO.QMAPP) CHLTYPE(CLUSSDR) CONNAME('qmapp(1414)') CLUSTER(DEMO)",
                          "DEFINE QLOCAL(DEMOQ) CLUSTER(DEMO)"]))
    steps = ['open = { qmgr = "QMAPP", handle = "app", queue = "DEMOQ", bind = "NOT_FIXED" }',
             f'put = {{ handle = "app", count = {n} }}']
    # a broken rule's counterexample states the broken rule's prediction; a real one, the claim's
    predicted = got if variant else ([n * w // total for w in weights] if n % cycle == 0 else real)
    expect = "messages = { app = { " + ", ".join(f"{q} = {c}" for q, c in zip(names, predicted) if c) + " } }"
    comment = _broken_header("WL-CFG-WEIGHTS", variant, f"that {n} puts go {show(got)}") if variant else None
    text = _scenario(f"WL-CFG-WEIGHTS counterexample{broken}", summary, qmgrs, steps, [expect], comment)
    return Counterexample(summary, text, "wl-cfg-weights", {"qmgrs": names, "weights": weights, "puts": n,
                                                             "predicted": got, "real": real})


CLAIMS: list[Property] = [
    Property.config(
        "PS-CFG-WILDCARD-BLOCK",
        "WILDCARD(BLOCK) hides every publication at or below the blocking node from wildcard subscriptions "
        "whose fixed prefix is above it, in both wildcard schemes; a subscription without wildcards is never blocked",
        Claim(_encode_block, 3, "levels of tree depth", max_bound=9),
        citation="002 §Controlling wildcard usage with the WILDCARD property"),
    Property.config(
        "RP-CFG-FR-MESH",
        "every record (each full repository's own, and each partial repository's for every choice of two full "
        "repositories) reaches every full repository if and only if the manual CLUSSDRs among them are complete",
        Claim(_encode_fr_mesh, 5, "full repositories", max_bound=13, min_bound=2),
        citation="000 §Considerations for Full Repositories"),
    Property.config(
        "PS-CFG-LOOP-BOUND",
        "fingerprint loop detection bounds every publication's path: it is processed at no more queue managers "
        "than there are, on every hierarchy + publish/subscribe cluster graph",
        Claim(_encode_loop_bound, 5, "queue managers", max_bound=250),
        citation="002 §How loop detection works"),
    Property.config(
        "PS-CFG-REACH",
        "a publication at one member of a publish/subscribe cluster reaches a subscription at another exactly "
        "when: effective PUBSCOPE ALL at the publisher and no MQPMO_SCOPE_QMGR, effective SUBSCOPE ALL at the "
        "subscriber and no MQSO_SCOPE_QMGR, the subscription matches and WILDCARD does not block it, and some "
        "subscription there resolving to a cluster topic of the cluster pulled it over",
        Claim(_encode_reach, 3, "levels of tree depth", max_bound=9),
        citation="002 §Subscription scope, §Publication scope, §Wildcards and cluster topics"),
    Property.config(
        "WL-CFG-SELECTION",
        "the workload algorithm's choice among up to K instances never picks a PUT(DISABLED) instance, never "
        "prefers a lower CLWLRANK, keeps the local instance under CLWLUSEQ(LOCAL) unless a remote one outranks "
        "it, and fails with MQRC_CLUSTER_PUT_INHIBITED exactly when every top-ranked instance is PUT(DISABLED)",
        Claim(_encode_selection, 3, "remote instances", max_bound=200),
        citation="001 §The cluster workload management algorithm"),
    Property.config(
        "WL-CFG-WEIGHTS",
        "over a static set of up to K finalist channels with any CLWLWGHTs, from a fresh history: after every whole "
        "number of full weight cycles (sum(w)/gcd(w) puts) each channel has been chosen exactly n*w/sum(w) times, "
        "and after every put no channel is more than one weighted pick ahead of another — for every number of puts "
        "(by induction over the puts)",
        Claim(_encode_weights, 3, "instances", max_bound=160),
        citation="001 §The cluster workload management algorithm"),
]

# claim id -> the broken rule variant that refutes it (DESIGN §5 mutants where one applies)
BROKEN: dict[str, str] = {
    "PS-CFG-WILDCARD-BLOCK": "local_objects_only",
    "RP-CFG-FR-MESH": "fr_forwarding_swapped",
    "PS-CFG-LOOP-BOUND": "no_fingerprint_check",
    "PS-CFG-REACH": "ignore_subscope_remote",
    "WL-CFG-SELECTION": "rank_after_status",
    "WL-CFG-WEIGHTS": "weight_ignored",
}


def claims() -> list[Property]:
    return list(CLAIMS)
