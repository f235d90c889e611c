"""What symmetry reduction could save on the scale curve's families (issue #17), and whether
today's model would allow it: an upper bound and a soundness check, not a production feature.

Symmetry reduction merges states that differ only by a permutation of interchangeable queue
managers (fr-join's odd partial repositories among themselves, say). This script explores a
point of ``benchmarks/bench_scale.py`` with a plain breadth-first search over the model's
``init_states``/``actions``/``next_state`` (no properties, no partial-order reduction), and
for every state reached computes a canonical key: the least canonical encoding
(``spec.encoding.canonical_bytes``) of π(state) over the permutations π of the symmetry
class. The number of distinct keys (orbits) is how many states a symmetry-reduced search
would store at best; states / orbits is the most it could cut.

π renames queue managers everywhere in a state: whole strings, derived names (QMIDs
``PR1_1``, channel names ``TO.PR1``, CONNAMEs ``pr1.example.com(1414)``, route keys) and names
in free text, each as a word (``PR1`` is not ``PR10``: neither side may be a letter or
digit). It then re-sorts every tuple the state keeps sorted (``SORTS``: queue managers by
name, channels by (source, destination), cache records by ident, logs by queue manager, ...;
tests/test_state_order.py lists the ones lookups rely on).

A permutation is only a symmetry if it fixes the names the scenario's remaining steps use
(ps-cluster's steps subscribe on M1, M2, ... in turn): by default each state's permutations
are those of the class that fix every member named in ``steps[next_step:]``;
``--ignore-steps`` drops that restriction (to show the steps break the symmetry).
``--drop Subscription.created`` leaves a field out of the orbit keys: what symmetry would
save if that (ghost) field were not in the state; the states and the check are unchanged.

Equivariance (``--sample N``, default 50): for every N-th state s and every transposition π
of two neighbours of a class allowed there (they generate the class's permutations), the
successors of π(s) must be π of the successors of s (sets of encodings).
A violation means a symmetry-reduced search on today's model would be unsound; the first few
are printed with the action and the first field where the two successors differ.

Reproduce:  python benchmarks/bench_symmetry_bound.py [--max-states N] [--sample N] [--ignore-steps] FAMILY:K...

e.g. ``fr-join:2 fr-join:3 fr-join:4 cluster-queue:4 ps-cluster:3``. Classes: fr-join, the odd
PRs and the even PRs (odd ones join through FR1, even ones through FR2); cluster-queue,
HOST2..HOSTk (HOST1 is a full repository); ps-cluster, M1..M(k-1) (Mk publishes), each
with its subscription's name (``M1+S1``: step i subscribes Mi as Si); ``--class A,B
--class C+X,D+Y`` overrides. Prints a Markdown table (benchmarks/RESULTS.md,
"Session 34: what symmetry reduction could save (upper bound)").
"""

from __future__ import annotations

import argparse
import dataclasses
import itertools
import re
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Sequence
from fractions import Fraction
from hashlib import blake2b
from operator import attrgetter, itemgetter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import bench_scale  # noqa: E402
from spec.encoding import canonical_bytes  # noqa: E402
from spec.network import MQNetwork  # noqa: E402
from spec.scenario import load_scenario  # noqa: E402


# --------------------------------------------------------------------------- sort orders
def _natural(t: tuple) -> tuple:
    return tuple(sorted(t))


def _by(key: Callable[[Any], Any]) -> Callable[[tuple], tuple]:
    return lambda t: tuple(sorted(t, key=key))


def _held(t: tuple) -> tuple:
    """(key, paths) pairs, sorted, each one's paths sorted (spec/pubsub.py ``_with_held``)."""
    return tuple(sorted((k, tuple(sorted(paths))) for k, paths in t))


_NAME = attrgetter("name")
# (class name, field) -> how the model keeps that tuple ordered. Tuples not listed keep an
# order of events (a channel's FIFO, a publication's fingerprints, a demand path, a log,
# the decisions made), which a renaming does not change.
SORTS: dict[tuple[str, str], Callable[[tuple], tuple]] = {
    ("NetworkState", "qmgrs"): _by(_NAME),
    ("NetworkState", "channels"): _by(attrgetter("src", "dst")),
    ("NetworkState", "logs"): _by(itemgetter(0)),
    ("NetworkState", "stopped_by_fault"): _natural,
    ("NetworkState", "held_by_step"): _natural,
    ("QmgrState", "caches"): _by(attrgetter("cluster")),
    ("QmgrState", "handles"): _by(_NAME),
    ("QmgrState", "arrivals"): _natural,
    ("QmgrState", "psclus_asked"): _natural,
    **{("QueueManagerDef", f): _by(_NAME) for f in ("topics", "subscriptions", "queues", "channels", "namelists")},
    ("ClusterCache", "records"): _by(attrgetter("kind", "cluster", "owner", "key")),
    ("ClusterCache", "tempqmgr"): _natural,
    ("ClusterCache", "subscribers"): _natural,
    ("ClusterCache", "interests"): _natural,
    ("ClusterCache", "highest_seen"): _by(itemgetter(0)),
    ("ClusterCache", "removed"): _natural,
    ("ClusterCache", "joined"): _natural,
    ("RepoMsg", "records"): _by(attrgetter("kind", "cluster", "owner", "key")),
    ("RepoMsg", "keys"): _natural,
    ("LocalPubSub", "retained"): _by(attrgetter("topic")),
    ("LocalPubSub", "proxies"): _natural,
    ("LocalPubSub", "proxies_sent"): _natural,
    ("LocalPubSub", "proxy_paths"): _held,
    ("LocalPubSub", "sent_paths"): _held,
    ("LocalPubSub", "proxy_blocking"): _natural,
    ("LocalPubSub", "republishers"): _by(attrgetter("subscription", "action", "topic")),
    ("PublishedEntry", "proxies"): _natural,
    ("ProxySubMsg", "paths"): _natural,
    ("Handle", "arrived"): _natural,
    ("Handle", "defbinds"): _natural,
    ("Decision", "candidates"): _by(attrgetter("qmgr", "channel", "local")),
    ("Decision", "finalists"): _natural,
    ("FrozenHistory", "channels"): _by(itemgetter(0, 1)),
    ("FrozenHistory", "observed"): _by(itemgetter(0, 1)),
}

_INIT: dict[type, tuple[str, ...]] = {}
_MEMO_LIMIT = 300_000


_DEFAULTS: dict[type, dict[str, Any]] = {}


def _init_fields(cls: type) -> tuple[str, ...]:
    names = _INIT.get(cls)
    if names is None:
        names = _INIT[cls] = tuple(f.name for f in dataclasses.fields(cls) if f.init)
        _DEFAULTS[cls] = {f.name: None if f.default is dataclasses.MISSING else f.default
                          for f in dataclasses.fields(cls)}
    return names


class Renaming:
    """π: queue-manager names mapped within a class, applied to any spec value."""

    def __init__(self, mapping: dict[str, str], drop: frozenset[str] = frozenset()) -> None:
        self.mapping = {a: b for a, b in mapping.items() if a != b}
        self.drop = drop   # "Class.field"s set to their default (--drop: a what-if, not the model)
        self.identity = not self.mapping and not drop
        alts = "|".join(sorted(map(re.escape, self.mapping), key=len, reverse=True))
        self._re = re.compile(rf"(?<![A-Za-z0-9])({alts})(?![A-Za-z0-9])", re.IGNORECASE) if alts else None
        self._upper = {a.upper(): b for a, b in self.mapping.items()}
        self._strs: dict[str, str] = {}
        self._memo: dict[int, tuple[Any, Any]] = {}   # id -> (value, renamed): keeps the value alive

    def __repr__(self) -> str:
        return "(" + " ".join(f"{a}->{b}" for a, b in sorted(self.mapping.items())) + ")"

    def _swap(self, m: re.Match) -> str:
        old = m.group(0)
        new = self._upper[old.upper()]
        return new.lower() if old.islower() else new

    def text(self, s: str) -> str:
        out = self._strs.get(s)
        if out is None:
            out = self._strs[s] = self._re.sub(self._swap, s) if self._re is not None else s
        return out

    def __call__(self, v: Any) -> Any:
        if self.identity:
            return v
        t = type(v)
        if t is str:
            return self.text(v)
        if t is int or t is bool or v is None or t is float or t is Fraction:
            return v
        hit = self._memo.get(id(v))
        if hit is not None and hit[0] is v:
            return hit[1]
        if t is tuple:
            out: Any = tuple(map(self, v))
        elif t is frozenset:
            out = frozenset(map(self, v))
        elif dataclasses.is_dataclass(v) and not isinstance(v, type):
            values = []
            cname = t.__name__
            for name in _init_fields(t):
                if self.drop and f"{cname}.{name}" in self.drop:
                    values.append(_DEFAULTS[t][name])
                    continue
                x = self(getattr(v, name))
                order = SORTS.get((cname, name))
                if order is not None and x:
                    x = order(x)
                values.append(x)
            out = t(*values)
        elif isinstance(v, tuple) and hasattr(v, "_fields"):   # a NamedTuple
            out = t(*map(self, v))
        elif isinstance(v, (str, int)):                      # enums: not names
            return v
        else:
            raise TypeError(f"cannot rename a {t.__name__}")
        if len(self._memo) >= _MEMO_LIMIT:
            self._memo.clear()
        self._memo[id(v)] = (v, out)
        return out


def _bundle(member: str) -> tuple[str, ...]:
    """A class member: a queue manager, or names that move together (``M1+S1``: member M1
    and its subscription S1)."""
    return tuple(member.split("+"))


def class_permutations(classes: Sequence[Sequence[str]], fixed: Iterable[str] = (),
                       generators: bool = False, drop: frozenset[str] = frozenset()) -> list[Renaming]:
    """Every renaming that permutes each class among itself and fixes the members with a
    name in ``fixed``; the identity first. ``generators``: only the transpositions of
    neighbours in each class (they generate the same group: a successor relation
    equivariant under them is equivariant under every permutation of the class)."""
    fixed = set(fixed)
    per_class = []
    for members in classes:
        free = [_bundle(m) for m in members if not fixed & set(_bundle(m))]
        if generators:
            per_class.append([(free[i], free[i + 1]) for i in range(len(free) - 1)])
        else:
            per_class.append([list(zip(free, p)) for p in itertools.permutations(free)])
    if generators:
        out = [Renaming({})]
        for swaps in per_class:
            for a, b in swaps:
                out.append(Renaming({**dict(zip(a, b)), **dict(zip(b, a))}))
        return out
    out = []
    for combo in itertools.product(*per_class):
        mapping: dict[str, str] = {}
        for part in combo:
            for a, b in part:
                mapping.update(zip(a, b))
        out.append(Renaming(mapping, drop))
    out.sort(key=lambda r: not r.identity)
    return out


def _strings(v: Any) -> Iterable[str]:
    if isinstance(v, str):
        yield v
    elif isinstance(v, (tuple, list, frozenset, set)):
        for x in v:
            yield from _strings(x)
    elif isinstance(v, dict):
        for x in v.items():
            yield from _strings(x)
    elif dataclasses.is_dataclass(v) and not isinstance(v, type):
        for f in dataclasses.fields(v):
            yield from _strings(getattr(v, f.name))


def named_in(steps: Sequence[Any], names: Iterable[str]) -> set[str]:
    """The ``names`` any of ``steps`` mentions (as a word, in any string of the step)."""
    names = list(names)
    if not names:
        return set()
    pattern = re.compile(r"(?<![A-Za-z0-9])(" + "|".join(map(re.escape, names)) + r")(?![A-Za-z0-9])", re.IGNORECASE)
    upper = {n.upper(): n for n in names}
    return {upper[m.group(0).upper()] for s in steps for text in _strings(s) for m in pattern.finditer(text)}


# --------------------------------------------------------------------------- the measurement
def default_classes(family: str, k: int) -> list[list[str]]:
    if family in ("fr-join", "cluster-app"):
        return [[f"PR{i}" for i in range(1, k + 1, 2)], [f"PR{i}" for i in range(2, k + 1, 2)]]
    if family == "cluster-queue":
        return [[f"HOST{i}" for i in range(2, k + 1)]]
    if family == "ps-cluster":   # a member moves with its subscription's name
        return [[f"M{i}+S{i}" for i in range(1, k)]]
    if family == "hierarchy":
        return []
    raise ValueError(family)


def first_difference(a: Any, b: Any, path: str = "state") -> str | None:
    """The first place two values differ, as a path and the two sides (shortened)."""
    if type(a) is not type(b):
        return f"{path}: {_short(a)} != {_short(b)}"
    if dataclasses.is_dataclass(a) and not isinstance(a, type):
        for f in dataclasses.fields(a):
            if f.init or f.compare:
                d = first_difference(getattr(a, f.name), getattr(b, f.name), f"{path}.{f.name}")
                if d:
                    return d
        return None
    if isinstance(a, tuple):
        if len(a) != len(b):
            return f"{path}: {_short(a)} != {_short(b)}"
        for i, (x, y) in enumerate(zip(a, b)):
            d = first_difference(x, y, f"{path}[{i}]")
            if d:
                return d
        return None
    return None if a == b else f"{path}: {_short(a)} != {_short(b)}"


def _short(v: Any, n: int = 160) -> str:
    r = repr(v)
    return r if len(r) <= n else r[:n] + "..."


def _digest(b: bytes) -> bytes:
    return blake2b(b, digest_size=16).digest()


@dataclasses.dataclass
class Point:
    case: str
    classes: list[list[str]]
    group: int = 1
    states: int = 0
    orbits: int = 0
    complete: bool = True
    explore_cpu: float = 0.0
    canon_cpu: float = 0.0
    sampled: int = 0
    checks: int = 0
    violations: int = 0
    examples: list[str] = dataclasses.field(default_factory=list)
    by_action: dict[str, int] = dataclasses.field(default_factory=dict)


def measure(model: MQNetwork, classes: list[list[str]], case: str = "", max_states: int | None = None,
            sample: int = 50, respect_steps: bool = True, examples: int = 5,
            drop: frozenset[str] = frozenset(), progress: bool = False) -> Point:
    """Explore ``model`` breadth first; count states and orbits; check equivariance on every
    ``sample``-th state (0: never). ``drop``: fields left out of the orbit keys (a what-if:
    the states and the equivariance check keep them)."""
    steps = model.scenario.steps
    members = [n for c in classes for m in c for n in _bundle(m)]
    perms_at: dict[tuple[int, bool], list[Renaming]] = {}

    def perms(next_step: int, generators: bool = False) -> list[Renaming]:
        got = perms_at.get((next_step, generators))
        if got is None:
            fixed = named_in(steps[next_step:], members) if respect_steps else set()
            got = perms_at[next_step, generators] = class_permutations(classes, fixed, generators,
                                                                       frozenset() if generators else drop)
        return got

    point = Point(case, classes, group=len(class_permutations(classes)))
    seen: set[bytes] = set()
    keys: set[bytes] = set()
    frontier = []
    for s in model.init_states():
        d = _digest(canonical_bytes(s))
        if d not in seen:
            seen.add(d)
            frontier.append(s)
    index = 0
    while frontier:
        nxt = []
        for s in frontier:
            c0 = time.process_time()
            key = min(canonical_bytes(p(s)) for p in perms(s.next_step))
            keys.add(_digest(key))
            c1 = time.process_time()
            point.canon_cpu += c1 - c0
            succ = [(a, t) for a in model.actions(s) if (t := model.next_state(s, a)) is not None]
            for _, t in succ:
                d = _digest(canonical_bytes(t))
                if d not in seen and (max_states is None or len(seen) < max_states):
                    seen.add(d)
                    nxt.append(t)
                elif d not in seen:
                    point.complete = False
            point.explore_cpu += time.process_time() - c1
            if sample and index % sample == 0:
                point.sampled += 1
                for p in perms(s.next_step, generators=True)[1:]:
                    point.checks += 1
                    problem = equivariance(model, s, succ, p)
                    if problem:
                        point.violations += 1
                        action, text = problem
                        point.by_action[action] = point.by_action.get(action, 0) + 1
                        if len(point.examples) < examples:
                            point.examples.append(f"π={p}, state #{index} (next_step {s.next_step}): {text}")
            index += 1
        frontier = nxt
        if progress:
            print(f"{case}: {len(seen):,} states, {len(keys):,} orbits, level of {len(frontier):,} next, "
                  f"{point.explore_cpu + point.canon_cpu:.0f} CPU s", file=sys.stderr, flush=True)
    point.states, point.orbits = len(seen), len(keys)
    return point


def equivariance(model: MQNetwork, s: Any, succ: list[tuple[Any, Any]], p: Renaming) -> tuple[str, str] | None:
    """None if succ(π(s)) = π(succ(s)); else (the kind of action, what differs)."""
    ps = p(s)
    want = {canonical_bytes(p(t)) for _, t in succ}
    got_pairs = [(a, t) for a in model.actions(ps) if (t := model.next_state(ps, a)) is not None]
    if want == {canonical_bytes(t) for _, t in got_pairs}:
        return None
    mine = {canonical_bytes(p(a)): (a, t) for a, t in succ}
    theirs = {canonical_bytes(a): (a, t) for a, t in got_pairs}
    for key, (a, t) in mine.items():
        if key not in theirs:
            return type(a).__name__, f"{a} is enabled at s, {p(a)} is not at π(s)"
        a2, t2 = theirs[key]
        if canonical_bytes(p(t)) != canonical_bytes(t2):
            return type(a).__name__, f"after {a}: π(next) vs next(π(s), {a2}): {first_difference(p(t), t2)}"
    for key, (a2, _) in theirs.items():
        if key not in mine:
            return type(a2).__name__, f"{a2} is enabled at π(s), its preimage is not at s"
    return "?", "the successor sets differ, every action agrees (duplicate successors)"


def run_point(family: str, k: int, work: Path, classes: list[list[str]] | None, max_states: int | None,
              sample: int, respect_steps: bool, drop: frozenset[str] = frozenset()) -> Point:
    path = work / f"{family}-{k}.toml"
    path.write_text(bench_scale.FAMILIES[family](k))
    scenario = load_scenario(path)
    model = MQNetwork(scenario, (), explore_initial=scenario.check.explore_initial or None)
    return measure(model, classes or default_classes(family, k), f"{family} k={k}", max_states, sample, respect_steps,
                   drop=drop, progress=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("points", nargs="+", metavar="FAMILY:K")
    ap.add_argument("--max-states", type=int, default=None, help="stop after this many states (a prefix)")
    ap.add_argument("--sample", type=int, default=50, help="check equivariance on every N-th state (0: never)")
    ap.add_argument("--ignore-steps", action="store_true",
                    help="permute members the remaining scenario steps name, too")
    ap.add_argument("--drop", action="append", default=[], metavar="CLASS.FIELD",
                    help="leave this field out of the orbit keys (what if it were not in the state)")
    ap.add_argument("--class", dest="classes", action="append", metavar="A,B,...", help="a symmetry class")
    args = ap.parse_args()
    classes = [c.split(",") for c in args.classes] if args.classes else None
    print("| point | classes (group size) | states | orbits | states / orbits | canonical key, µs/state | "
          "explore CPU s | sampled states | π checks | violations |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    found = []
    with tempfile.TemporaryDirectory(prefix="mqcheck-sym-") as tmp:
        for spec in args.points:
            family, _, k = spec.partition(":")
            pt = run_point(family, int(k), Path(tmp), classes, args.max_states, args.sample, not args.ignore_steps,
                           frozenset(args.drop))
            cls = " ".join("{" + ",".join(c) + "}" for c in pt.classes if c)
            bound = "" if pt.complete else f" (prefix, cap {args.max_states:,})"
            bound += "".join(f", without {d}" for d in args.drop)
            print(f"| {pt.case}{bound} | {cls} ({pt.group}) | {pt.states:,} | {pt.orbits:,} | "
                  f"{pt.states / max(pt.orbits, 1):.2f} | {1e6 * pt.canon_cpu / max(pt.states, 1):,.0f} | "
                  f"{pt.explore_cpu:.1f} | {pt.sampled:,} | {pt.checks:,} | {pt.violations:,} |", flush=True)
            found.append(pt)
    for pt in found:
        if pt.violations:
            kinds = ", ".join(f"{a}: {n}" for a, n in sorted(pt.by_action.items()))
            print(f"\n{pt.case}: {pt.violations} violations of {pt.checks} checks ({kinds}); first ones:")
            for e in pt.examples:
                print(f"- {e}")


if __name__ == "__main__":
    main()
