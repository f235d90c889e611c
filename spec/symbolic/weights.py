"""The workload algorithm's weighted final choice over successive puts, in Z3 (mirrors the
final choice of ``spec.workload.choose`` — ``_final`` and ``History.charged`` — threaded
through a put sequence as ``spec.workload.distribute`` does).

Setting: a putting queue manager QMAPP with no local instance; instances of the queue on
up to K queue managers QM1..QMK (``exists``), each reached through the channel auto-defined
from its CLUSRCVR TO.QMi with a CLWLWGHT in 1..99; every other workload attribute at its
default, so all of them survive 001 rules 1-15 and are the finalists of every choice (a
static view), from a fresh history (every DestSeqFactor and DestSeqNumber 0).

Mirrored (001 final choice; 000 §Cluster Workload Algorithm rule 12): when every channel
has the default CLWLWGHT(50) the chosen channel is the least recently used (lowest
DestSeqNumber, then the lowest (queue manager, channel) name, the spec's own tie); otherwise
it has the lowest DestSeqFactor, then the lowest DestSeqNumber, then the lowest name. Its
DestSeqFactor grows by exactly 1000/CLWLWGHT and its DestSeqNumber becomes the previous
choice's plus one. From a fresh
history a channel chosen c times has DestSeqFactor c * 1000 / w, so "factor_i < factor_j"
is the integer comparison c_i * w_j < c_j * w_i (exact; Z3 integer arithmetic).

A *full weight cycle* (``spec.workload.weight_cycle``) is the least number of puts N after
which every channel's DestSeqFactor can be equal: N = sum(w) / gcd(w). A count vector
d_1..d_K with sum n and d_i * w_j = d_j * w_i for every pair exists exactly when n is a whole
number of full weight cycles, and it is then d_i = n * w_i / sum(w): the claim quantifies
over such d and needs no division or lcm.

Two renderings of the same rule (one ``chooser``):

- :func:`step` — one choice from an *arbitrary* state (counts, DestSeqNumbers): the
  inductive step of the proof (properties/claims.py WL-CFG-WEIGHTS), which then holds for
  every number of puts, not only up to a bound;
- :func:`unrolled` — T successive choices from a fresh history: the put sequences the
  counterexample decoder and the no-drift tests use.

Variant ``weight_ignored`` (DESIGN §5 mutant, as ``spec.network``'s
``Mutations.weight_ignored``): every channel is treated as CLWLWGHT(50), whatever its weight.
"""

from __future__ import annotations

from dataclasses import dataclass

import z3

from spec.symbolic.base import ticking

WEIGHT_MAX = 99
WEIGHT_DEFAULT = 50


def qmgr_names(k: int) -> list[str]:
    """QM1..QMK, zero-padded so that name order is index order (the spec breaks ties by name)."""
    width = len(str(k))
    return [f"QM{i + 1:0{width}d}" for i in range(k)]


def horizon(k: int) -> int:
    """Puts the counterexample search unrolls for K instances."""
    return 4 * k + 4


def all_default(exists: list, weights: list) -> z3.BoolRef:
    """Every existing channel has the default CLWLWGHT(50) (001: then "the least recently
    used channel is chosen")."""
    return z3.And([z3.Implies(e, w == WEIGHT_DEFAULT) for e, w in zip(exists, weights)])


def chooser(exists: list, weights: list, counts: list, numbers: list, variant: str = "") -> list[z3.BoolRef]:
    """chosen[i]: channel i is the one 001's final choice picks among the existing ones: every
    CLWLWGHT 50, the least recently used (lowest DestSeqNumber, then lowest name); else the
    lowest DestSeqFactor, then lowest DestSeqNumber, then lowest name."""
    k = len(exists)
    eff = [z3.IntVal(WEIGHT_DEFAULT)] * k if variant == "weight_ignored" else list(weights)
    lru = all_default(exists, eff)

    def before(i: int, j: int) -> z3.BoolRef:
        fi, fj = counts[i] * eff[j], counts[j] * eff[i]  # factor_i, factor_j scaled by w_i * w_j / 1000
        older = z3.Or(numbers[i] < numbers[j], z3.And(numbers[i] == numbers[j], z3.BoolVal(i < j)))
        return z3.If(lru, older, z3.Or(fi < fj, z3.And(fi == fj, older)))
    return [z3.And(exists[i], *[z3.Implies(exists[j], before(i, j)) for j in range(k) if j != i])
            for i in ticking(range(k))]


def one_pick_ahead(exists: list, weights: list, counts: list) -> z3.BoolRef:
    """No channel more than one weighted pick ahead of another: (c_i - 1) / w_i <= c_j / w_j
    for every pair of existing channels with c_i >= 1 (WL-WEIGHTS' first half)."""
    k = len(exists)
    return z3.And([z3.Implies(z3.And(exists[i], exists[j], counts[i] >= 1),
                              (counts[i] - 1) * weights[j] <= counts[j] * weights[i])
                   for i in ticking(range(k)) for j in range(k) if i != j])


def least_recent_behind(exists: list, weights: list, counts: list, numbers: list) -> z3.BoolRef:
    """With every CLWLWGHT 50, a channel chosen more often was also chosen more recently
    (c_i > c_j implies DestSeqNumber_i > DestSeqNumber_j): what makes the least recently used
    channel one of the least chosen, so that the least-recently-used choice keeps
    ``one_pick_ahead`` (the inductive invariant's second half)."""
    k = len(exists)
    return z3.Implies(all_default(exists, weights), z3.And(
        [z3.Implies(z3.And(exists[i], exists[j], counts[i] > counts[j]), numbers[i] > numbers[j])
         for i in ticking(range(k)) for j in range(k) if i != j]))


def proportional(exists: list, weights: list, d: list, n: z3.ArithRef) -> z3.BoolRef:
    """``d`` counts ``n`` puts in exact proportion to the weights (so ``n`` is a whole number
    of full weight cycles)."""
    k = len(exists)
    parts = [x >= 0 for x in d] + [z3.Implies(z3.Not(e), x == 0) for e, x in zip(exists, d)]
    parts.append(z3.Sum([z3.If(e, x, 0) for e, x in zip(exists, d)]) == n)
    parts += [z3.Implies(z3.And(exists[i], exists[j]), d[i] * weights[j] == d[j] * weights[i])
              for i in ticking(range(k)) for j in range(i + 1, k)]
    return z3.And(parts)


@dataclass
class Step:
    """One choice from an arbitrary state: counts/numbers before, the choice, counts after."""

    names: list[str]
    exists: list[z3.BoolRef]
    weight: list[z3.ArithRef]
    count: list[z3.ArithRef]
    number: list[z3.ArithRef]
    chosen: list[z3.BoolRef]
    after: list[z3.ArithRef]
    d: list[z3.ArithRef]  # a proportional count vector (universally quantified by the claim)
    number_after: list[z3.ArithRef]
    last: z3.ArithRef  # the previous choice's DestSeqNumber (History.last_number)

    def domain(self) -> list[z3.BoolRef]:
        out = [z3.Or(self.exists)]
        for e, w, c, n in zip(self.exists, self.weight, self.count, self.number):
            out += [w >= 1, w <= WEIGHT_MAX, c >= 0, n >= 0, z3.Implies(z3.Not(e), c == 0), self.last >= n]
        return out

    def puts(self) -> z3.ArithRef:
        return z3.Sum([z3.If(e, c, 0) for e, c in zip(self.exists, self.count)])


def step(k: int) -> Step:
    names = qmgr_names(k)
    return Step(names, [z3.Bool(f"{q}.instance") for q in names], [z3.Int(f"TO.{q}.CLWLWGHT") for q in names],
                [z3.Int(f"TO.{q}.chosen") for q in names], [z3.Int(f"TO.{q}.DestSeqNumber") for q in names],
                [z3.Bool(f"next.to.{q}") for q in names], [z3.Int(f"TO.{q}.chosen'") for q in names],
                [z3.Int(f"proportional.{q}") for q in names], [z3.Int(f"TO.{q}.DestSeqNumber'") for q in names],
                z3.Int("previous.DestSeqNumber"))


def choice_rule(s: Step, variant: str = "") -> z3.BoolRef:
    return z3.And([c == t for c, t in zip(s.chosen, chooser(s.exists, s.weight, s.count, s.number, variant))])


def charge_rule(s: Step) -> z3.BoolRef:
    """The choice's DestSeqFactor += 1000/CLWLWGHT: its count + 1; its DestSeqNumber becomes
    the previous choice's plus one (the others unchanged)."""
    return z3.And([a == c + z3.If(h, 1, 0) for a, c, h in zip(s.after, s.count, s.chosen)]
                  + [a == z3.If(h, s.last + 1, n) for a, n, h in zip(s.number_after, s.number, s.chosen)])


@dataclass
class Unrolled:
    """T successive choices from a fresh history (``spec.workload.distribute``)."""

    names: list[str]
    t: int
    exists: list[z3.BoolRef]
    weight: list[z3.ArithRef]
    chosen: list[list[z3.BoolRef]]   # chosen[s][i]: put s+1 goes to channel i
    count: list[list[z3.ArithRef]]   # count[s][i]: after s puts (count[0] all 0)
    rules: list[z3.BoolRef]

    def domain(self) -> list[z3.BoolRef]:
        return [z3.Or(self.exists)] + [z3.And(w >= 1, w <= WEIGHT_MAX) for w in self.weight]


def unrolled(k: int, t: int, variant: str = "") -> Unrolled:
    names = qmgr_names(k)
    exists = [z3.Bool(f"{q}.instance") for q in names]
    weight = [z3.Int(f"TO.{q}.CLWLWGHT") for q in names]
    counts: list[list[z3.ArithRef]] = [[z3.IntVal(0)] * k]
    numbers: list[z3.ArithRef] = [z3.IntVal(0)] * k
    chosen, rules = [], []
    for s in ticking(range(t)):
        here = [z3.Bool(f"put{s + 1}.to.{q}") for q in names]
        rules += [h == c for h, c in zip(here, chooser(exists, weight, counts[s], numbers, variant))]
        nxt = [z3.Int(f"count{s + 1}.{q}") for q in names]
        rules += [a == c + z3.If(h, 1, 0) for a, c, h in zip(nxt, counts[s], here)]
        numbers = [z3.If(h, s + 1, n) for h, n in zip(here, numbers)]
        chosen.append(here)
        counts.append(nxt)
    return Unrolled(names, t, exists, weight, chosen, counts, rules)


def violation(u: Unrolled, variant: str = "") -> tuple[z3.BoolRef, list[z3.BoolRef]]:
    """A reachable violation of the claim within ``u.t`` puts: at some n, counts that are
    not the proportional ones at a whole number of cycles, or a channel two weighted picks
    ahead. Returns the condition and, per put n, whether it is violated there."""
    per_put = []
    for n in ticking(range(1, u.t + 1)):
        c = u.count[n]
        d = [z3.Int(f"proportional{n}.{q}") for q in u.names]
        off_cycle = z3.And(proportional(u.exists, u.weight, d, z3.IntVal(n)),
                           z3.Or([z3.And(e, x != y) for e, x, y in zip(u.exists, c, d)]))
        per_put.append(z3.Or(off_cycle, z3.Not(one_pick_ahead(u.exists, u.weight, c))))
    return z3.Or(per_put), per_put
