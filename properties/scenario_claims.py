"""Claims about a user's own configuration (``mqcheck prove SCENARIO``).

The configuration is fixed (``spec.symbolic.scenario.configuration`` of the settled
network); what is quantified is every publication topic string up to the level bound,
every topic-scheme subscription, the MQPMO/MQSO scope options, and the other
subscriptions that may pull publications over. Two products:

- the reachability table: for each publisher / subscriber pair and each group of topics
  (grouped by their closest topic object), can a subscription there receive them — any
  subscription on its own, a wildcard subscription above the group on its own, a wildcard
  subscription when another subscription pulls the publications over;
- the scenario's ``[[prove]]`` claims, proved or refuted; a refutation is a runnable
  scenario: the user's queue managers and steps, then the subscription(s) and the
  publication, with an ``[[expect]]`` saying what the claim demands.
"""

from __future__ import annotations

from dataclasses import dataclass

import z3

from spec.symbolic import base as sym_base
from spec.symbolic import reach as sym_reach
from spec.symbolic import scenario as sym_sc
from spec.symbolic.base import Counterexample, Encoding, toml_string
from spec.symbolic.topics import level_prefix_length

COLUMNS = ("any", "wildcard", "wildcard_pulled")
COLUMN_TITLES = {
    "any": "a subscription there",
    "wildcard": "a wildcard subscription above them",
    "wildcard_pulled": "... when other subscriptions pull them over",
}


@dataclass(frozen=True)
class Context:
    """What a decoder needs to write a runnable scenario for the user's configuration."""

    name: str
    config: sym_sc.Configuration
    qmgr_mqsc: tuple[tuple[str, str], ...]  # queue manager -> its initial MQSC text
    steps_toml: tuple[str, ...]             # the user's [[steps]] bodies, re-rendered


# The largest level bound ``mqcheck prove SCENARIO`` accepts (docs/decisions.md, "A large
# --bound"): the encoding of one publisher/subscriber pair grows with the square of the
# bound (the wildcard matching); at 150 levels it took 37 s for 002's Sport cluster.
MAX_BOUND = 150


@dataclass(frozen=True)
class FixedClaim:
    """A ``checker.prove.ConfigClaim`` whose bound is fixed by the configuration."""

    build: object
    default_bound: int
    bound_unit: str = "topic levels"
    max_bound: int = MAX_BOUND

    def encode(self, bound: int) -> Encoding:
        return self.build(bound)

    def watching(self, check):
        """The driver's check, called by the encoding's checkpoints (spec.symbolic.base)."""
        return sym_base.watching(check)


def topic_levels(pattern: str) -> int:
    """The fewest levels a topic string matching the topic-scheme ``pattern`` has: one per
    level that is not ``#`` (``#`` matches zero or more levels; a topic string has at least
    one level)."""
    return max(1, sum(1 for level in pattern.split("/") if level != "#"))


def default_bound(config: sym_sc.Configuration, claims=()) -> int:
    """One level deeper than the deepest topic object, so every group has a topic below
    it, and deep enough for every ``[[prove]]`` claim's own topic (``claims``)."""
    return max([config.depth() + 1] + [topic_levels(c.topic) for c in claims])


def _subscription_kind(rp, kind: str, row_depth: int | None) -> z3.BoolRef:
    s1 = rp.subs[0].sub
    if kind == "wildcard":
        above = level_prefix_length(s1) < row_depth if row_depth is not None else z3.BoolVal(True)
        return z3.And(s1.has_wildcard(), above)
    if kind == "exact":
        return z3.Not(s1.has_wildcard())
    return z3.BoolVal(True)


def _reaches(ctx: Context, publisher: str, subscriber: str, bound: int, where, kind: str, pulled: bool,
             row_depth: int | None, extra_names: tuple[str, ...] = ()):
    """(rp, facts, condition): ``condition`` = a publication at ``publisher`` on a topic
    satisfying ``where(rp)`` reaches subscription s1 (of ``kind``) at ``subscriber``."""
    rp, facts = sym_sc.reach_problem(ctx.config, publisher, subscriber, bound, extra_names)
    sent, reached = z3.Bools("P.forwards_to_S s1.receives")
    facts.update(sym_reach.rules(rp, sent, reached))
    extra = [] if pulled else [z3.Not(rp.subs[1].present)]
    condition = z3.And(reached, where(rp), _subscription_kind(rp, kind, row_depth), *extra)
    return rp, facts, condition


def _witness(rp, model: z3.ModelRef) -> dict:
    def true(x):
        return z3.is_true(model.eval(x, model_completion=True))
    subs = []
    for i, s in enumerate(rp.subs):
        if true(s.present):
            subs.append({"name": f"PROVE.S{i + 1}", "topic": s.sub.decode(model),
                         "scope": "QMGR" if true(s.scope_qmgr) else "ALL"})
    return {"topic": rp.topic.decode(model), "pmo_scope": "QMGR" if true(rp.pmo_scope_qmgr) else "ALL",
            "subscriptions": subs}


def table_questions(ctx: Context, publisher: str, subscriber: str, bound: int):
    """``(encode, questions)`` for ``checker.prove.witnesses``: one question per
    (row, column) of the table for this pair; a witness is a delivery."""
    built: dict = {}

    def encode() -> Encoding:
        rp, facts = sym_sc.reach_problem(ctx.config, publisher, subscriber, bound)
        sent, reached = z3.Bools("P.forwards_to_S s1.receives")
        facts.update(sym_reach.rules(rp, sent, reached))
        built["rp"], built["reached"] = rp, reached
        return Encoding(facts, z3.BoolVal(True), lambda m: _witness(rp, m), rp.domain())

    encode.watching = sym_base.watching   # the driver's deadline and stop check (checker.prove.witnesses)

    def question(row: tuple[str, ...], column: str):
        def build() -> z3.BoolRef:   # built when asked: a table abandoned half-way builds no more
            rp, reached = built["rp"], built["reached"]
            in_row = sym_sc.topic_in_row(rp, ctx.config, row)
            kind = _subscription_kind(rp, column.split("_")[0], len(row))
            alone = [] if column == "wildcard_pulled" else [z3.Not(rp.subs[1].present)]
            return z3.And(reached, in_row, kind, *alone)
        return build

    def questions():
        for row in rows(ctx.config):
            for column in COLUMNS:
                if column != "any" and not row:
                    continue  # nothing is above the root
                yield (row, column), question(row, column)
    return encode, questions


def cell(ctx: Context, publisher: str, subscriber: str, row: tuple[str, ...], column: str, bound: int) -> FixedClaim:
    """"No subscription of this column's kind at ``subscriber`` ever receives a publication
    at ``publisher`` whose closest topic object is ``row``" — proved means "no" in the table,
    a counterexample is the witness for "yes"."""
    def build(b: int) -> Encoding:
        rp, facts, reach = _reaches(ctx, publisher, subscriber, b,
                                    lambda rp: sym_sc.topic_in_row(rp, ctx.config, row), column.split("_")[0],
                                    column == "wildcard_pulled", len(row))
        return Encoding(facts, z3.Not(reach), lambda m: _witness(rp, m), rp.domain(), _cost(rp))
    return FixedClaim(build, bound)


def _cost(rp) -> list[z3.ArithRef]:
    flags = [rp.subs[1].present, rp.pmo_scope_qmgr] + [s.scope_qmgr for s in rp.subs]
    return [z3.Sum([z3.If(f, 1, 0) for f in flags]), rp.topic.length + z3.Sum([s.sub.length for s in rp.subs])]


def row_label(row: tuple[str, ...]) -> str:
    return "/".join(row) + "/#" if row else "# (only SYSTEM.BASE.TOPIC above)"


def rows(config: sym_sc.Configuration) -> tuple[tuple[str, ...], ...]:
    return ((),) + config.nodes()


def pairs(config: sym_sc.Configuration) -> list[tuple[str, str]]:
    names = [q.name for q in config.qmgrs]
    return [(p, s) for p in names for s in names]


def route(config: sym_sc.Configuration, publisher: str, subscriber: str) -> sym_sc.Route:
    """The route ``prove`` covers for the pair (local, one hop, or through the hierarchy),
    or why it covers none (``spec.symbolic.scenario.route``)."""
    return sym_sc.route(config, publisher, subscriber)


def linked(config: sym_sc.Configuration, publisher: str, subscriber: str) -> bool:
    """Does ``prove`` cover a route for the pair?"""
    return route(config, publisher, subscriber).covered


# ------------------------------------------------------------------ [[prove]] claims
def prove_claim(ctx: Context, claim, publisher: str, subscriber: str, bound: int) -> FixedClaim:
    """One ``[[prove]]`` claim for one publisher / subscriber pair. ``never``: the claim is
    "no such delivery" (a counterexample is a delivery); ``possible``: the claim is encoded
    as "no such delivery" too, and the caller reads a counterexample as the proof's witness."""
    pattern_names = tuple(level for level in claim.topic.split("/") if level not in ("#", "+"))

    def build(b: int) -> Encoding:
        rp, facts, reach = _reaches(ctx, publisher, subscriber, b,
                                    lambda rp: sym_sc.topic_under_pattern(rp, claim.topic), claim.subscription,
                                    claim.pulled, None, pattern_names)
        return Encoding(facts, z3.Not(reach),
                        lambda m: _claim_scenario(ctx, claim, publisher, subscriber, _witness(rp, m)),
                        rp.domain(), _cost(rp))
    return FixedClaim(build, bound)


def _claim_scenario(ctx: Context, claim, publisher: str, subscriber: str, w: dict) -> Counterexample:
    # queue manager names may hold '.', '/' and '%', which a bare TOML key cannot
    qmgrs = "\n".join(f"[qmgrs.{_toml_key(q)}]\nmqsc = {_multiline(text)}\n" for q, text in ctx.qmgr_mqsc)
    steps = [f"[[steps]]\n{s}\n" for s in ctx.steps_toml]
    for s in w["subscriptions"]:
        scope = ', scope = "QMGR"' if s["scope"] == "QMGR" else ""
        steps.append(f'[[steps]]\nsubscribe = {{ qmgr = "{subscriber}", name = "{s["name"]}", '
                     f'topic = {toml_string(s["topic"])}{scope} }}\n')
    pscope = ', scope = "QMGR"' if w["pmo_scope"] == "QMGR" else ""
    steps.append(f'[[steps]]\npublish = {{ qmgr = "{publisher}", topic = {toml_string(w["topic"])}{pscope} }}\n')
    first = w["subscriptions"][0]
    if claim.expect == "never":
        summary = (f"{first['name']} {first['topic']!r} at {subscriber} receives a publication on {w['topic']!r} "
                   f"from {publisher}" + (f" (pulled over by {w['subscriptions'][1]['topic']!r})"
                                           if len(w["subscriptions"]) > 1 else ""))
        expect = f"[[expect]]\n[expect.deliveries.{_toml_key(subscriber)}]\n{toml_string(first['name'])} = []\n"
    else:
        summary = (f"witness: {first['name']} {first['topic']!r} at {subscriber} receives a publication on "
                   f"{w['topic']!r} from {publisher}")
        expect = (f"[[expect]]\n[expect.deliveries.{_toml_key(subscriber)}]\n{toml_string(first['name'])} = "
                  f"[{toml_string(w['topic'])}]\n")
    head = (f"name = {toml_string(f'[[prove]] {claim.name} ({ctx.name})')}\n"
            f"description = {toml_string(summary)}\n\n")
    text = head + qmgrs + "\n" + "\n".join(steps) + "\n" + expect
    return Counterexample(summary, text, claim_file_stem(claim), w)


def claim_file_stem(claim) -> str:
    """The name (without ``.toml``) of a ``[[prove]]`` claim's counterexample file:
    prove-<index>-<name>, so two claims of one name do not share a file, and a long name is
    cut (a file name has at most 255 bytes)."""
    slug = "".join(c if c.isascii() and c.isalnum() else "-" for c in claim.name.lower()).strip("-")[:80].strip("-")
    return f"prove-{claim.index}" + (f"-{slug}" if slug else "")


# ------------------------------------------------------------------ TOML re-rendering
def _multiline(text: str) -> str:
    """A TOML multi-line literal string when ``text`` allows one (MQSC stays readable)."""
    if "'''" in text or any(ord(c) < 0x20 and c not in "\n\t" for c in text):
        return toml_string(text)
    return "'''\n" + text + ("" if text.endswith("\n") else "\n") + "'''"


def _toml_value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        return toml_string(v)
    if isinstance(v, list):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{_toml_key(k)} = {_toml_value(x)}" for k, x in v.items()) + " }"
    raise TypeError(type(v).__name__)


def _toml_key(k: str) -> str:
    return k if k and all(c.isascii() and c.isalnum() or c in "_-" for c in k) else toml_string(k)


def render_steps(steps: list[dict]) -> tuple[str, ...]:
    """The user's ``[[steps]]`` tables (as tomllib read them), one body each."""
    return tuple("\n".join(f"{_toml_key(k)} = {_toml_value(v)}" for k, v in step.items()) for step in steps)
