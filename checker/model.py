"""The Model protocol, properties as data, and the result/verdict types of every backend.

Shaped like Stateright's ``Model`` trait (DESIGN §2.1). ``spec.network.MQNetwork`` satisfies
:class:`Model` structurally — it never imports this module. Every backend (``explore``,
``spark``, ``prove``) returns a :class:`Result`; reports and the CLI read only these types,
which serialise to JSON and back exactly (``Result.from_json(r.to_json()) == r``).

Required model methods (the :class:`Model` protocol):

- ``init_states() -> Sequence[S]``
- ``actions(state) -> Sequence[A]`` — deterministic order (sorted, or a fixed order);
- ``next_state(state, action) -> S | None`` — ``None`` means the action is disabled;
- ``properties() -> Sequence[Property]``
- ``encode(state) -> bytes`` — canonical bytes: equal states give equal bytes in every
  process; fingerprints are ``blake2b`` digests of it, never Python ``hash()``.

Optional methods, used when present (:func:`is_internal`, :func:`describe_action`,
:func:`describe_state` below apply the defaults):

- ``is_internal(action) -> bool`` — default: every action is internal. Internal actions
  are the ones the system takes by itself (channel deliveries); external ones are
  environment steps (scenario steps). ``at_quiescence`` properties are checked on states
  with no enabled internal action, and termination (``eventually``) means no reachable
  cycle of internal actions.
- ``successors(state) -> Sequence[tuple[int, S]]`` — a batched, faster form of
  ``actions``/``next_state``: the ``(position of the action in actions(state), next
  state)`` pairs of the enabled actions, in ``actions`` order. Must give exactly the same
  transitions. The local explorer uses it (when the model has no ``is_internal``);
  without it, ``actions``/``next_state``. Traces are always replayed with those two.
- ``describe_action(action) -> str`` — default ``str(action)``; used in traces.
- ``describe_state(state) -> dict`` — JSON-able, default ``{"state": repr(state)}``;
  traces show the full description of the first state and, for later steps, only the
  top-level keys whose value changed.
- ``name`` attribute or ``describe() -> str`` — a label for results (default: class name).
- ``ample(state, actions, reads) -> Sequence[int] | None`` — partial-order reduction
  (docs/por.md): the positions in ``actions`` (= ``actions(state)``) of a *persistent*
  set of enabled actions that contains an enabled internal action, none of which can
  change what a property reading ``reads`` looks at (``reads``: the union of the
  ``reads`` of the checked ``always``/``sometimes`` properties, ``None`` = everything);
  ``None`` = expand fully. The local explorer applies it with the cycle proviso. When
  some checked property declares ``stable_under`` (below), it is called as
  ``ample(state, actions, reads, stable)`` with ``stable`` (:func:`por_stable`) the
  classes of actions under which every such property is *stable*: the model may then
  also offer a persistent set whose actions are all of a class in ``stable``, whatever
  they change of what the properties read (docs/por.md, condition 1).
- ``views(reads) -> Callable[[S], Hashable] | None`` — the key of what a predicate that
  reads only ``reads`` (a property's declared tags) sees of a state: states with equal
  keys get equal verdicts, so every backend judges such a property once per key
  (:class:`Judge`); ``None`` = judge it on every state. A ``verify_views`` attribute that
  is true makes each reused verdict judged again (:class:`ViewMismatch` on a difference).
- ``ship(state) -> bytes`` and ``unship(bytes) -> S`` — how a state travels between
  processes (the Spark backend's frontiers and successors); default: a pickle. ``unship``
  must give back an equal state (same value, same ``encode``) and may reuse objects the
  process already holds, so that a model's identity caches hit on shipped states as on
  the states it built itself.

States and actions are immutable, hashable and picklable (DESIGN §2.1).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field, fields
from enum import Enum
from typing import Any, Protocol, TypeVar, runtime_checkable

S = TypeVar("S")
A = TypeVar("A")


# --------------------------------------------------------------------------- the protocol
@runtime_checkable
class Model(Protocol[S, A]):
    """What a checker needs from a transition system (DESIGN §2.1)."""

    def init_states(self) -> Sequence[S]: ...

    def actions(self, state: S) -> Sequence[A]: ...

    def next_state(self, state: S, action: A) -> S | None: ...

    def properties(self) -> Sequence["Property"]: ...

    def encode(self, state: S) -> bytes: ...


def is_internal(model: Any, action: Any) -> bool:
    """``model.is_internal(action)`` if the model defines it, else ``True``."""
    fn = getattr(model, "is_internal", None)
    return True if fn is None else bool(fn(action))


def describe_action(model: Any, action: Any) -> str:
    """``model.describe_action(action)`` if defined, else ``str(action)``."""
    fn = getattr(model, "describe_action", None)
    return str(action) if fn is None else str(fn(action))


def describe_state(model: Any, state: Any) -> dict:
    """``model.describe_state(state)`` if defined, else ``{"state": repr(state)}``."""
    fn = getattr(model, "describe_state", None)
    return {"state": repr(state)} if fn is None else dict(fn(state))


def model_name(model: Any) -> str:
    """A label for results: ``model.describe()``, ``model.name``, or the class name."""
    fn = getattr(model, "describe", None)
    if callable(fn):
        return str(fn())
    name = getattr(model, "name", None)
    return str(name) if isinstance(name, str) else type(model).__name__


# --------------------------------------------------------------------------- properties
class Kind(str, Enum):
    """Property kinds (DESIGN §2.1)."""

    ALWAYS = "always"                # every reachable state satisfies the predicate
    SOMETIMES = "sometimes"          # some reachable state satisfies it (a witness)
    AT_QUIESCENCE = "at_quiescence"  # every state with no enabled internal action does
    EVENTUALLY = "eventually"        # termination: no reachable cycle of internal actions
    CONFIG = "config"                # a statement over configurations, proved with Z3


@dataclass(frozen=True)
class Property:
    """A property as data: id, title, kind, seed citation, predicate.

    ``predicate(model, state) -> bool``. For ``eventually`` (termination) the predicate is
    unused (pass ``None``). For ``config`` it is whatever ``checker.prove`` expects.

    ``witness`` names (by id) a ``sometimes`` property of the same model that shows an
    ``always``/``at_quiescence`` property is not vacuous (STYLE habit 4). When a run does
    not reach the witness, the (non-violated) verdict of the property carries
    ``vacuous=True`` and ``format_verdict`` flags it ("VACUOUS", or "possibly vacuous"
    when the run was incomplete). A witness id that the model does not define is a programming
    error (``ValueError`` from the checker).

    ``evidence`` (``eventually`` only) names a ``sometimes`` property whose witness is
    evidence against termination that a bounded run can find where it cannot decide the
    property (a loop seen going round again): reports show its trace beside the undecided
    verdict. It never turns a verdict into "violated" or "holds".
    """

    id: str
    title: str
    kind: Kind
    predicate: Callable[[Any, Any], bool] | None
    citation: str = ""
    witness: str | None = None
    evidence: str | None = None
    # what the predicate reads, as tags the model understands: its ``ample`` (docs/por.md)
    # and its ``views`` (a predicate judged once per view: ``Judge``); None = everything
    # (no partial-order reduction while an always/sometimes property reading everything is
    # checked, and judged on every state)
    reads: frozenset[str] | None = None
    # classes of actions (names the model understands, e.g. the network model's
    # "landing") under which the verdict is *stable*: for ``always``, no such action turns
    # a state violating the predicate into one satisfying it (non-repairing); for
    # ``sometimes``, none turns a witnessing state into one that is not. The model's
    # ``ample`` may then offer sets of such actions although they change what the predicate
    # reads (docs/por.md). Empty: no claim. tests/test_por_stable.py checks the claims.
    stable_under: frozenset[str] = frozenset()

    def __post_init__(self) -> None:
        object.__setattr__(self, "kind", Kind(self.kind))

    @classmethod
    def always(cls, id: str, title: str, predicate: Callable[[Any, Any], bool], *,
               citation: str = "", witness: str | None = None,
               reads: frozenset[str] | None = None,
               stable_under: frozenset[str] = frozenset()) -> "Property":
        return cls(id, title, Kind.ALWAYS, predicate, citation, witness, reads=reads,
                   stable_under=frozenset(stable_under))

    @classmethod
    def sometimes(cls, id: str, title: str, predicate: Callable[[Any, Any], bool], *,
                  citation: str = "", reads: frozenset[str] | None = None,
                  stable_under: frozenset[str] = frozenset()) -> "Property":
        return cls(id, title, Kind.SOMETIMES, predicate, citation, reads=reads,
                   stable_under=frozenset(stable_under))

    @classmethod
    def at_quiescence(cls, id: str, title: str, predicate: Callable[[Any, Any], bool], *,
                      citation: str = "", witness: str | None = None,
                      reads: frozenset[str] | None = None) -> "Property":
        return cls(id, title, Kind.AT_QUIESCENCE, predicate, citation, witness, reads=reads)

    @classmethod
    def eventually(cls, id: str, title: str, *, citation: str = "", evidence: str | None = None) -> "Property":
        """Termination: every execution of internal actions settles (no reachable cycle)."""
        return cls(id, title, Kind.EVENTUALLY, None, citation, evidence=evidence)

    @classmethod
    def config(cls, id: str, title: str, predicate: Any, *, citation: str = "") -> "Property":
        return cls(id, title, Kind.CONFIG, predicate, citation)


SETTLED = "settled"
"""A ``Property.reads`` tag: the predicate can hold (``sometimes``) or fail (``always``)
only in a state with no enabled internal action. A reduction whose ample sets hold internal
actions only keeps every such state at its shortest depth (docs/por.md), so such a property
needs nothing of the model's ``ample`` and no re-run for a shortest trace."""


def settled_only(p: Property) -> bool:
    """Is ``p`` judged only in settled states (``reads == {SETTLED}``)?"""
    return p.reads is not None and p.reads == frozenset({SETTLED})


def por_reads(props: Iterable[Property]) -> frozenset[str] | None:
    """What the checked ``always``/``sometimes`` properties read, for a model's ``ample``:
    the union of their ``reads``, ``None`` (everything) if one does not declare it.
    Properties judged only in settled states (:data:`SETTLED`) read nothing ample must
    care about.

    >>> por_reads([Property.sometimes("S", "s", lambda m, s: True, reads=frozenset({"a"}))])
    frozenset({'a'})
    >>> por_reads([Property.always("A", "a", lambda m, s: True)]) is None
    True
    """
    out: set[str] = set()
    for p in props:
        if p.kind in (Kind.ALWAYS, Kind.SOMETIMES) and not settled_only(p):
            if p.reads is None:
                return None
            out |= p.reads
    return frozenset(out)


def por_stable(props: Iterable[Property]) -> frozenset[str]:
    """The classes of actions under which every checked ``always``/``sometimes`` property
    that reads anything is stable (``Property.stable_under``), for a model's ``ample``:
    the intersection of their ``stable_under``. Properties judged only in settled states
    (:data:`SETTLED`) and properties that read nothing (``reads`` empty: a constant) are
    stable under every action and left out. Empty when no class is shared, or when no
    property is left (then ``por_reads`` is empty and every class may be reduced anyway).

    Vacuity needs nothing more: an ``always``/``at_quiescence`` property's vacuity flag is
    its witness's verdict, and the witness is a checked ``sometimes`` property
    (``select_properties`` adds it), so it takes part in this intersection like any other.

    >>> A = Property.always("A", "a", lambda m, s: True, stable_under=frozenset({"x", "y"}))
    >>> W = Property.sometimes("W", "w", lambda m, s: True, stable_under=frozenset({"x"}))
    >>> sorted(por_stable([A, W]))
    ['x']
    >>> por_stable([A, Property.sometimes("V", "v", lambda m, s: True)])
    frozenset()
    """
    out: frozenset[str] | None = None
    for p in props:
        if p.kind in (Kind.ALWAYS, Kind.SOMETIMES) and not settled_only(p) and p.reads != frozenset():
            out = p.stable_under if out is None else out & p.stable_under
            if not out:
                return frozenset()
    return out or frozenset()


class ViewMismatch(AssertionError):
    """A verdict cached for a view differs from the predicate's on a state with that view:
    the property reads more than its ``reads`` declares (found with ``verify_views``)."""


class Judge:
    """Judges properties on states: which of ``props`` a state *hits* — an ``always`` or
    ``at_quiescence`` predicate false, a ``sometimes`` predicate true.

    With the model's optional ``views(reads)`` (a key function of what a predicate reading
    ``reads`` sees of a state, or None), properties that read the same parts are judged
    together once per key, and the verdicts reused on every state with that key: a
    successor differs from its parent in what is in flight far more often than in what the
    queue managers hold (spec/network/views.py). Without it, or for a property that
    declares no ``reads``, every predicate runs on every state. A model's
    ``verify_views`` attribute makes every reused verdict judged again
    (:class:`ViewMismatch` on a difference). It changes how fast, never what, a state is
    judged: the hits come in the order of ``props``.

    >>> odd = Property.always("ODD", "odd", lambda m, s: s[0] % 2 == 1, reads=frozenset({"n"}))
    >>> big = Property.sometimes("BIG", "big", lambda m, s: s[1] > 9)
    >>> class M:
    ...     def views(self, reads):
    ...         return (lambda s: s[0]) if reads == frozenset({"n"}) else None
    >>> judge = Judge(M(), [odd, big])
    >>> judge.hits((2, 10)), judge.hits((3, 0)), judge.hits((2, 0)), judge.cached
    (['ODD', 'BIG'], [], ['ODD'], 1)
    """

    LIMIT = 100_000   # cached keys per group; cleared when full
    # Where fewer than 1 in 4 of a group's last WINDOW states reused a verdict (its view
    # changes with nearly every state: a publish/subscribe cluster's deliveries change the
    # receiving queue manager), the group rests for the next 4 * WINDOW states: judged
    # directly, no key, its cache dropped. Each window that fails again doubles the rest
    # (up to 64 windows); one that reuses enough resets it. It changes how fast, never what.
    WINDOW = 2_000

    def __init__(self, model: Any, props: Sequence[Property]) -> None:
        self.model = model
        self.verify = bool(getattr(model, "verify_views", False))
        views = getattr(model, "views", None)
        direct: list[tuple[int, Property]] = []
        groups: dict[frozenset[str], tuple[Callable[[Any], Any], list]] = {}
        for i, p in enumerate(props):
            key = views(p.reads) if callable(views) and p.reads is not None else None
            if key is None:
                direct.append((i, p))
            else:
                groups.setdefault(p.reads, (key, []))[1].append((i, p))
        self.direct = _split(direct)
        # per group: [key function, members, cache, states keyed in this window, reused, rest
        # left, the next rest in windows]
        self.groups = [[key, _split(members), {}, 0, 0, 0, 4] for key, members in groups.values()]
        self.ids = [p.id for p in props]
        self.cached = 0   # verdicts reused (a group's at a time)
        self.rests = 0    # times a group rested

    def hits(self, state: Any) -> list[str]:
        """The ids of the properties ``state`` hits, in the order of ``props``."""
        model = self.model
        found: list[int] = []
        # ``_judge`` inlined: a model without views (FF) judges only these, on every new
        # state, and the call cost it 3% (benchmarks/RESULTS.md, "#17 (round 9)")
        falsified, witnessed = self.direct
        for i, predicate in falsified:
            if not predicate(model, state):
                found.append(i)
        for i, predicate in witnessed:
            if predicate(model, state):
                found.append(i)
        for group in self.groups:
            members = group[1]
            if group[5]:     # resting: few states shared a view lately
                group[5] -= 1
                _judge(members, model, state, found)
                continue
            group[3] += 1
            if group[3] >= self.WINDOW:
                if group[4] * 4 < self.WINDOW:
                    group[2].clear()
                    group[5] = group[6] * self.WINDOW
                    group[6] = min(2 * group[6], 64)
                    self.rests += 1
                else:
                    group[6] = 4
                group[3] = group[4] = 0
            cache = group[2]
            k = group[0](state)
            hit = cache.get(k)
            if hit is None:
                hit = tuple(_judge(members, model, state, []))
                if len(cache) >= self.LIMIT:
                    cache.clear()
                cache[k] = hit
            else:
                self.cached += 1
                group[4] += 1
                if self.verify:
                    again = tuple(_judge(members, model, state, []))
                    if again != hit:
                        wrong = sorted({self.ids[i] for i in set(hit) ^ set(again)})
                        raise ViewMismatch(f"the verdict of {', '.join(wrong)} reused for an equal view "
                                           f"differs from the predicate's (it reads more than it declares)")
            if hit:
                found.extend(hit)
        if not found:
            return found
        if len(found) > 1:
            found.sort()
        ids = self.ids
        return [ids[i] for i in found]


def _split(members: list[tuple[int, Property]]) -> tuple[tuple, tuple]:
    """(position, predicate) of the properties hit when their predicate is false (always,
    at_quiescence), and of those hit when it is true (sometimes)."""
    return (tuple((i, p.predicate) for i, p in members if p.kind is not Kind.SOMETIMES),
            tuple((i, p.predicate) for i, p in members if p.kind is Kind.SOMETIMES))


def _judge(members: tuple[tuple, tuple], model: Any, state: Any, out: list[int]) -> list[int]:
    """Append to ``out`` the positions of ``members`` (``_split``) that ``state`` hits."""
    falsified, witnessed = members
    for i, predicate in falsified:
        if not predicate(model, state):
            out.append(i)
    for i, predicate in witnessed:
        if predicate(model, state):
            out.append(i)
    return out


def select_properties(model: Any, property_ids: Iterable[str] | None) -> list[Property]:
    """The properties a run checks: all of the model's, or the ids asked for plus the
    ``sometimes`` witnesses they name. Every backend uses this one rule.

    Raises ``ValueError`` for duplicate ids, a witness that is not a ``sometimes``
    property of the model, or an unknown id (naming the known ones).
    """
    props = list(model.properties())
    by_id = {p.id: p for p in props}
    if len(by_id) != len(props):
        raise ValueError("property ids must be unique")
    for p in props:
        for role, ref in (("witness", p.witness), ("evidence", p.evidence)):
            if ref is not None and (ref not in by_id or by_id[ref].kind is not Kind.SOMETIMES):
                raise ValueError(f"property {p.id}: {role} {ref!r} is not a sometimes property of this model")
    if property_ids is None:
        return props
    wanted = list(dict.fromkeys(property_ids))
    unknown = [i for i in wanted if i not in by_id]
    if unknown:
        raise ValueError(f"unknown property id(s): {', '.join(unknown)}; "
                         f"known: {', '.join(sorted(by_id))}")
    keep = set(wanted) | {ref for i in wanted for ref in (by_id[i].witness, by_id[i].evidence) if ref}
    return [p for p in props if p.id in keep]


# --------------------------------------------------------------------------- results
class Status(str, Enum):
    """Verdict statuses. Only HOLDS and NEVER_REACHED claim completeness."""

    HOLDS = "holds"                              # complete exploration, never violated
    HOLDS_UP_TO_BOUND = "holds up to bound"      # incomplete exploration, not violated so far
    VIOLATED = "violated"                        # with a (shortest, for BFS) trace
    WITNESSED = "witnessed"                      # sometimes: with a trace to the witness
    NEVER_REACHED = "never reached"              # sometimes: complete exploration, no witness
    NOT_REACHED_UP_TO_BOUND = "not reached up to bound"  # sometimes, incomplete exploration
    NOT_CHECKED = "not checked on this backend"  # e.g. config properties in explore
    PROVED = "proved"                            # Z3 (checker.prove)
    UNKNOWN = "unknown"                          # Z3 timeout / unknown: never "proved"


@dataclass
class TraceStep:
    """One step of a trace.

    ``action`` is ``None`` for the initial state. ``state`` is the full
    ``describe_state`` of the initial state, and for later steps only the top-level keys
    whose value changed. ``fingerprint`` is the hex fingerprint of the state reached.
    """

    action: str | None
    state: dict
    fingerprint: str = ""
    internal: bool | None = None


@dataclass
class Trace:
    """A path from an initial state. ``steps[0]`` is the initial state (no action).

    For a lasso (termination counterexample), ``loop_start`` is the index of the step
    whose state starts the cycle; the last step's state equals that state again.
    """

    steps: list[TraceStep]
    loop_start: int | None = None

    @property
    def length(self) -> int:
        """Number of actions."""
        return len(self.steps) - 1

    def describe(self) -> str:
        if self.loop_start is None:
            return f"trace of {self.length} step{'s' if self.length != 1 else ''}"
        prefix = self.loop_start
        cycle = self.length - prefix
        return f"lasso: {prefix}-step prefix, {cycle}-step cycle"

    def actions(self) -> list[str]:
        return [s.action for s in self.steps[1:] if s.action is not None]


@dataclass
class Verdict:
    """The verdict on one property. ``distinct_states``/``depth``/``reason`` describe the
    exploration it rests on (``reason`` empty when complete)."""

    property_id: str
    kind: str
    status: Status
    title: str = ""
    citation: str = ""
    trace: Trace | None = None
    vacuous: bool = False
    witness: str | None = None
    distinct_states: int = 0
    depth: int = 0
    reason: str = ""
    note: str = ""

    def __post_init__(self) -> None:
        self.status = Status(self.status)

    @property
    def ok(self) -> bool:
        """False only for a violation (a missing witness is reported, not failed:
        ``sometimes`` properties are evidence, and vacuity is flagged separately)."""
        return self.status is not Status.VIOLATED


@dataclass
class Statistics:
    """What an exploration did. ``generated_states`` counts successors produced,
    duplicates included (initial states included once). ``max_depth`` is the largest
    number of actions from an initial state to a discovered state (initial states: 0)."""

    distinct_states: int = 0
    generated_states: int = 0
    max_depth: int = 0
    seconds: float = 0.0
    states_per_second: float = 0.0
    fingerprint_bits: int = 64
    collision_probability: float = 0.0
    visited_bytes_per_state: float = 0.0
    complete: bool = True
    stop_reason: str = ""
    # distinct states first reached at each BFS depth (levels[0]: the initial states); empty
    # when a backend does not record it. Reports chart it (issue #15).
    levels: list[int] = field(default_factory=list)
    # states the partial-order reduction expanded with a reduced (ample) set: the counts
    # above are then the reduced search's, smaller than an unreduced backend's (docs/por.md,
    # "Backends"). 0: none; left out of the JSON then, so unreduced results read as before.
    reduced: int = 0


@dataclass
class Result:
    """The outcome of one run of one backend on one model."""

    model: str
    backend: str
    statistics: Statistics
    verdicts: dict[str, Verdict] = field(default_factory=dict)

    # ----- summary (the stable entry point's names: issue 4, "a stable programmatic entry point")
    @property
    def complete(self) -> bool:
        return self.statistics.complete

    @property
    def distinct_states(self) -> int:
        return self.statistics.distinct_states

    @property
    def generated_states(self) -> int:
        """Successors produced, duplicates included, plus the initial states."""
        return self.statistics.generated_states

    @property
    def max_depth(self) -> int:
        return self.statistics.max_depth

    @property
    def traces(self) -> dict[str, "Trace"]:
        """Property id -> trace, for the verdicts that have one (violations, witnesses, lassos)."""
        return {pid: v.trace for pid, v in self.verdicts.items() if v.trace is not None}

    def violations(self) -> list[Verdict]:
        return [v for v in self.verdicts.values() if v.status is Status.VIOLATED]

    def exit_status(self) -> int:
        """DESIGN §2.3: 1 a violation, 3 incomplete (or unknown), 0 all hold."""
        if self.violations():
            return 1
        if not self.complete or any(v.status is Status.UNKNOWN for v in self.verdicts.values()):
            return 3
        return 0

    # ----- JSON
    def to_dict(self) -> dict:
        d = _plain(asdict(self))
        if not self.statistics.reduced:
            del d["statistics"]["reduced"]
        return d

    def to_json(self, **kw: Any) -> str:
        return json.dumps(self.to_dict(), **kw)

    @classmethod
    def from_dict(cls, d: dict) -> "Result":
        """The result ``to_dict`` gave; keys the CLI adds to its JSON for reports (a trace
        step's ``event``, ``replay``, the topology, ...) are not part of it and are left out."""
        verdicts = {}
        for pid, v in d.get("verdicts", {}).items():
            v = _known(Verdict, v)
            t = v.get("trace")
            if t is not None:
                v["trace"] = Trace([TraceStep(**_known(TraceStep, s)) for s in t["steps"]], t.get("loop_start"))
            verdicts[pid] = Verdict(**v)
        return cls(d["model"], d["backend"], Statistics(**_known(Statistics, d["statistics"])), verdicts)

    @classmethod
    def from_json(cls, text: str) -> "Result":
        return cls.from_dict(json.loads(text))


def _known(cls: type, d: dict) -> dict:
    """The items of ``d`` that are fields of the dataclass ``cls``."""
    names = {f.name for f in fields(cls)}
    return {k: v for k, v in d.items() if k in names}


def _plain(x: Any) -> Any:
    if isinstance(x, Enum):
        return x.value
    if isinstance(x, dict):
        return {k: _plain(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_plain(v) for v in x]
    return x


# --------------------------------------------------------------------------- formatting
def format_verdict(v: Verdict) -> str:
    """One line for humans, counts with thousands separators (``--json`` carries the
    numbers). An incomplete run never prints "holds (complete" or "passed".

    >>> format_verdict(Verdict("P", "always", Status.HOLDS, distinct_states=1234))
    'holds (complete: 1,234 states)'
    >>> format_verdict(Verdict("P", "always", Status.HOLDS_UP_TO_BOUND, distinct_states=5000,
    ...                        depth=7, reason="max_states reached"))
    'holds up to bound (incomplete: 5,000 states, depth 7, max_states reached)'
    >>> format_verdict(Verdict("P", "always", Status.VIOLATED, trace=Trace([TraceStep(None, {})] * 5)))
    'violated (trace of 4 steps)'
    """
    s = v.status
    complete = f"complete: {v.distinct_states:,} states"
    incomplete = f"incomplete: {v.distinct_states:,} states, depth {v.depth:,}, {v.reason}"
    if s in (Status.VIOLATED, Status.WITNESSED):
        text = f"{s.value} ({v.trace.describe()})" if v.trace else s.value
    elif s in (Status.HOLDS, Status.NEVER_REACHED):
        text = f"{s.value} ({complete})"
    elif s in (Status.HOLDS_UP_TO_BOUND, Status.NOT_REACHED_UP_TO_BOUND):
        text = f"{s.value} ({incomplete})"
    else:
        text = s.value + (f" ({v.note})" if v.note else "")
    if v.vacuous and s is Status.HOLDS_UP_TO_BOUND:
        text += f" — possibly vacuous: witness {v.witness} not reached up to bound"
    elif v.vacuous:
        text += f" — VACUOUS: witness {v.witness} never reached"
    return text


def collision_probability(distinct: int, generated: int, bits: int) -> float:
    """TLC's optimistic estimate of the chance that a fingerprint collision made the
    explorer miss a state: ``n * (g - n) / 2**bits`` for ``n`` distinct states and ``g``
    generated ones (TLC's "calculated" estimate), capped at 1.

    >>> collision_probability(1000, 5000, 64) < 1e-12
    True
    """
    if distinct <= 0:
        return 0.0
    p = distinct * max(generated - distinct, 0) / math.ldexp(1.0, bits)
    return min(p, 1.0)
