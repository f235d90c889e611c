"""WL-CFG-WEIGHTS: the Z3 rendering of the weighted final choice (spec/symbolic/weights.py)
against ``spec.workload.choose`` / ``distribute`` — no drift — and the claim itself.

- the choice from an *arbitrary* history (what the inductive proof rests on) agrees with
  ``spec.workload.choose`` on every state of a small bound (two channels, six weights,
  counts 0..3, every consistent DestSeqNumber), and on Hypothesis-drawn states of four;
- the unrolled put sequence agrees with ``spec.workload.distribute`` on every weight pair
  in 1..12 (the sequence decoded counterexamples come from), and on Hypothesis-drawn weight
  vectors of up to five channels; the ``weight_ignored`` variant agrees with the spec run
  on the view ``spec.network``'s mutant sees (every CLWLWGHT 50).
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import pytest
import z3
from hypothesis import given, settings
from hypothesis import strategies as st

from checker.prove import COUNTEREXAMPLE, PROVED, prove
from properties.claims import BROKEN, CLAIMS
from spec import workload as wl
from spec.symbolic import weights as sw

CLAIM = next(p for p in CLAIMS if p.id == "WL-CFG-WEIGHTS")


def _view(names, weights, ignored=False):
    receivers = tuple(wl.ClusterReceiver(q, f"TO.{q}", ("DEMO",), 50 if ignored else w) for q, w in zip(names, weights))
    queues = tuple(wl.QueueInstance(q, "DEMOQ", ("DEMO",)) for q in names)
    return wl.QmgrView("QMAPP", (wl.ClusterReceiver("QMAPP", "TO.QMAPP", ("DEMO",)),), receivers, queues)


# ------------------------------------------------------------------ one choice, any history
def _history(view, names, weights, counts, numbers):
    """A history whose DestSeqFactors are count * 1000 / CLWLWGHT (a fresh history's after
    ``counts`` choices) with the given DestSeqNumbers; ``observed`` as the previous choice
    left it, so nothing is reset."""
    uses = tuple(wl.ChannelUse(q, f"TO.{q}", Fraction(c * 1000, w), n)
                 for q, w, c, n in zip(names, weights, counts, numbers))
    observed = tuple(sorted((r.qmgr, r.channel, r.workload_attributes()) for r in view.all_receivers()))
    return wl.History(uses, max(numbers, default=0), observed)


def _step_agrees(s, solver, present, weights, counts, numbers, variant=""):
    k = len(s.names)
    names = [s.names[i] for i in present]
    solver.push()
    solver.add(*[e == (i in present) for i, e in enumerate(s.exists)])
    for j, i in enumerate(present):
        solver.add(s.weight[i] == weights[j], s.count[i] == counts[j], s.number[i] == numbers[j])
    for i in range(k):
        if i not in present:
            solver.add(s.weight[i] == 50, s.count[i] == 0, s.number[i] == 0)
    assert solver.check() == z3.sat
    m = solver.model()
    solver.pop()
    got = [s.names[i] for i in range(k) if z3.is_true(m.eval(s.chosen[i], model_completion=True))]
    view = _view(names, weights, variant == "weight_ignored")
    charged = [r.clwlwght for r in view.receivers]  # the mutant charged 1000/50 at every choice
    choice = wl.choose(view, wl.Put("DEMOQ"), _history(view, names, charged, counts, numbers))
    assert not any(step.rule == "reset" for step in choice.explanation)
    assert got == [choice.destination.qmgr], (weights, counts, numbers, choice.lines())


def _numbers(counts):
    """Every consistent DestSeqNumber assignment: 0 for a channel never chosen, distinct
    positive numbers (1..) for the others."""
    used = [i for i, c in enumerate(counts) if c]
    for perm in itertools.permutations(range(1, len(used) + 1)):
        out = [0] * len(counts)
        for i, n in zip(used, perm):
            out[i] = n
        yield out


@pytest.mark.parametrize("variant", ["", "weight_ignored"])
def test_choice_from_any_history_agrees_exhaustively(variant):
    s = sw.step(2)
    solver = z3.Solver()
    solver.add(*s.domain(), *[c == t for c, t in zip(s.chosen, sw.chooser(s.exists, s.weight, s.count, s.number,
                                                                             variant))])
    for weights in itertools.product((1, 2, 3, 49, 50, 99), repeat=2):
        for counts in itertools.product(range(4), repeat=2):
            for numbers in _numbers(counts):
                _step_agrees(s, solver, [0, 1], list(weights), list(counts), numbers, variant)
    for w in (1, 50, 99):  # one instance of the two
        _step_agrees(s, solver, [1], [w], [2], [1], variant)


def _channels(data, k: int) -> tuple[list[int], list[int]]:
    """Which of ``k`` channel slots exist (at least one), and a CLWLWGHT for each."""
    present = sorted(data.draw(st.sets(st.integers(0, k - 1), min_size=1)))
    return present, [data.draw(st.integers(1, 99)) for _ in present]


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_choice_from_any_history_agrees_at_four(data):
    k = 4
    present, weights = _channels(data, k)
    counts = [data.draw(st.integers(0, 30)) for _ in present]
    numbers = data.draw(st.sampled_from(list(itertools.islice(_numbers(counts), 24))))
    s = sw.step(k)
    solver = z3.Solver()
    solver.add(*s.domain(), sw.choice_rule(s))
    _step_agrees(s, solver, present, weights, counts, numbers)


# ------------------------------------------------------------------ put sequences from a fresh history
def _sequence_agrees(u, solver, present, weights, variant=""):
    names = [u.names[i] for i in present]
    solver.push()
    solver.add(*[e == (i in present) for i, e in enumerate(u.exists)],
               *[u.weight[i] == w for i, w in zip(present, weights)],
               *[u.weight[i] == 50 for i in range(len(u.names)) if i not in present])
    assert solver.check() == z3.sat
    m = solver.model()
    solver.pop()
    got = [next(u.names[i] for i, c in enumerate(row) if z3.is_true(m.eval(c, model_completion=True)))
           for row in u.chosen]
    view, history, want = _view(names, weights, variant == "weight_ignored"), wl.History(), []
    for _ in range(u.t):
        choice = wl.choose(view, wl.Put("DEMOQ"), history)
        history = choice.history
        want.append(choice.destination.qmgr)
    assert got == want, (weights, variant)


@pytest.mark.parametrize("variant", ["", "weight_ignored"])
def test_put_sequences_agree_on_every_weight_pair(variant):
    u = sw.unrolled(2, sw.horizon(2), variant)
    solver = z3.Solver()
    solver.add(*u.domain(), *u.rules)
    for weights in itertools.product(range(1, 13), repeat=2):
        _sequence_agrees(u, solver, [0, 1], list(weights), variant)


_FIVE: dict = {}


@settings(max_examples=12, deadline=None)
@given(st.data())
def test_put_sequences_agree_at_five(data):
    k = 5
    present, weights = _channels(data, k)
    if not _FIVE:  # one encoding and solver for every example (push/pop per weight vector)
        u = sw.unrolled(k, 16)
        solver = z3.Solver()
        solver.add(*u.domain(), *u.rules)
        _FIVE.update(u=u, solver=solver)
    _sequence_agrees(_FIVE["u"], _FIVE["solver"], present, weights)


def test_a_full_weight_cycle_is_the_spec_s():
    """sum(w)/gcd(w), the cycle the claim's proportional count vectors stand for, is
    ``spec.workload.weight_cycle``."""
    import math
    for weights in [(20, 50, 20, 10), (50, 50, 50), (98, 1, 1), (99, 98), (6, 10, 15), (7,)]:
        assert wl.weight_cycle(weights) == sum(weights) // math.gcd(*weights)


# ------------------------------------------------------------------ the claim
def test_claim_proved_and_rests_on_both_rules():
    verdict, detail = prove(CLAIM.predicate, 3)
    assert verdict == PROVED
    assert len(detail["facts"]) == 2 and any("final choice" in f for f in detail["facts"])


def test_weight_ignored_is_refuted_with_a_reachable_put_sequence():
    verdict, detail = prove(CLAIM.predicate.broken(BROKEN["WL-CFG-WEIGHTS"]), 2)
    assert verdict == COUNTEREXAMPLE
    d = detail["counterexample"].data
    assert d["predicted"] != d["real"] and len(set(d["weights"])) > 1
    # the real counts are the spec's
    view = _view(d["qmgrs"], d["weights"])
    assert [wl.distribute(view, wl.Put("DEMOQ"), d["puts"]).by_qmgr().get(q, 0) for q in d["qmgrs"]] == d["real"]
