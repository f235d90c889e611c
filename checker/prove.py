"""Bounded proofs with Z3: the generic driver behind ``mqcheck prove`` (DESIGN §2.1, §2.3).

A ``config`` property's predicate is a :class:`ConfigClaim`: given a bound it builds an
:class:`Encoding` — Z3 terms over symbolic configuration variables, split into *named
facts* (the rules and configuration facts the claim may rest on, each tracked by an
assumption literal) and a *claim*. The driver asserts the facts and ``Not(claim)``:

* ``unsat`` -> ``proved`` at that bound. The unsat core over the tracked assumptions,
  shrunk to a minimal one (deletion, as Z3's ``examples/python/mus/marco.py`` grows and
  shrinks seeds), is the list of facts the proof rests on: drop any one and it fails.
* ``sat`` -> ``counterexample``. The model is minimised (a binary search per term) over the
  encoding's cost terms (fewest queue managers first, then fewest non-default
  attributes, lexicographically) and handed to the claim's decoder, which turns it into a
  runnable scenario file.
* ``unknown`` (a timeout included) -> ``unknown``: never proved (exit status 3).

``--timeout`` counts from the claim's start, its encoding included: a claim offers
``watching(check)`` (``spec.symbolic.base.watching``), and its encoding calls ``check``
at its checkpoints, which raises :class:`Abandoned` once the deadline has passed or a stop
signal came (:func:`interrupt`). Z3 never handles a signal itself (its ``ctrl_c``
parameter is off): mqcheck's handler does, and an unknown's reason says which of the
timeout, the signal or Z3's own ``reason_unknown`` it was.

Under ``--broken`` each claim is proved against a deliberately broken rule (a mutant), so
the expected outcome is inverted: a counterexample is the claim detecting the broken rule
(exit status 0 when every one is refuted), a proof is a surviving mutant (the claim does not
detect that broken rule: exit status 1), unknown is still 3.

This module imports z3 but neither ``spec`` nor ``properties`` (DESIGN §1): the encodings
and decoders come in through the claim objects the composition root passes.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Protocol

import z3

PROVED = "proved"
COUNTEREXAMPLE = "counterexample"
UNKNOWN = "unknown"

# the suffix ``mqcheck prove --broken`` appends to a record's title (checker/cli.py)
_BROKEN_TITLE = re.compile(r" \[broken rule: (?P<rule>[^\]]*)\]$")


class Encoding(Protocol):
    """What a claim hands the driver for one bound (``spec.symbolic.base.Encoding``).

    ``facts``: name -> Z3 Boolean, each a rule or configuration fact the proof may rest on
    (tracked: the unsat core is a subset of these names). ``domain``: untracked constraints
    that only say which values a variable may take. ``claim``: what must hold. ``cost``:
    integer terms to minimise, most important first (a counterexample's size). ``decode``
    turns a satisfying model into a counterexample with ``summary``, ``scenario_toml`` and
    ``file_stem``.
    """

    facts: dict[str, z3.BoolRef]
    claim: z3.BoolRef
    decode: Callable[[z3.ModelRef], Any]
    domain: list[z3.BoolRef]
    cost: list[z3.ArithRef]


class ConfigClaim(Protocol):
    """A ``config`` property's predicate: ``encode(bound) -> Encoding``, the bound used
    when none is given, and what the bound counts (``"queue managers"``, ...). Optional:
    ``watching(check)``, a context manager under which everything the claim builds calls
    ``check()`` now and then (:func:`prove` passes the deadline and stop check), and
    ``max_bound``/``min_bound``, the bounds it accepts (0: no maximum)."""

    default_bound: int
    bound_unit: str

    def encode(self, bound: int) -> Encoding: ...


@dataclass
class ProofRecord:
    """One claim's verdict, as ``mqcheck prove --json`` prints it."""

    id: str
    title: str
    citation: str
    verdict: str
    bound: int
    bound_unit: str
    seconds: float  # wall-clock, encoding included
    facts: list[str] = field(default_factory=list)
    cpu_seconds: float = 0.0  # this process's CPU time (the machine may be shared)
    counterexample: str = ""  # summary
    counterexample_path: str = ""
    replay: str = ""
    reason: str = ""  # why unknown, why a proof is vacuous, or which pairs a verdict leaves out
    # the deliberately broken rule the claim was proved against (``--broken``), or None; when
    # left None it is read from the title's " [broken rule: NAME]" suffix
    broken_rule: str | None = None
    # proved, but of nothing: no configuration within the bound is one the claim is about
    # (a [[prove]] claim whose topic no topic string within the bound matches); ``reason`` says why
    vacuous: bool = False

    def mutant(self) -> str | None:
        """The broken rule this record was proved against, or None for the real rules."""
        if self.broken_rule is not None:
            return self.broken_rule
        m = _BROKEN_TITLE.search(self.title)
        return m.group("rule") if m else None

    @property
    def broken(self) -> bool:
        return self.mutant() is not None

    @property
    def expected(self) -> str:
        """The verdict that counts as success: a counterexample under a broken rule."""
        return COUNTEREXAMPLE if self.broken else PROVED

    @property
    def failed(self) -> bool:
        """A counterexample to a real claim, or a broken rule the claim did not refute."""
        return self.verdict == (PROVED if self.broken else COUNTEREXAMPLE)

    def to_dict(self) -> dict:
        d = dict(self.__dict__)
        d["broken_rule"] = self.mutant()
        d["broken"] = self.broken
        d["expected"] = self.expected
        return d


def _tracked(facts: dict[str, z3.BoolRef]) -> tuple[dict[str, z3.BoolRef], list[z3.BoolRef]]:
    """One fresh assumption literal per fact, and the implications tying them."""
    lits = {name: z3.Bool(f"fact!{i}") for i, name in enumerate(facts)}
    return lits, [z3.Implies(lits[name], fact) for name, fact in facts.items()]


def _remaining_ms(deadline: float) -> int:
    return max(1, int((deadline - time.monotonic()) * 1000))


def _minimal_core(solver: z3.Solver, lits: dict[str, z3.BoolRef], core: list[str], deadline: float) -> list[str]:
    """Shrink an unsat core to a minimal one by deletion (marco.py's ``shrink``): a fact is
    kept only if the rest without it is satisfiable. Stops shrinking (keeping what it has,
    still a valid core) when the time is up."""
    kept = list(core)
    for name in list(core):
        if time.monotonic() >= deadline:
            break
        trial = [n for n in kept if n != name]
        solver.set("timeout", _remaining_ms(deadline))
        if solver.check(*[lits[n] for n in trial]) == z3.unsat:
            smaller = {str(c) for c in solver.unsat_core()}
            kept = [n for n in trial if str(lits[n]) in smaller]
    return kept


def _minimised_model(enc: Encoding, constraints: list[z3.BoolRef], deadline: float,
                     check: Callable[[], None] = lambda: None) -> z3.ModelRef | None:
    """A model of ``constraints`` minimising ``enc.cost`` lexicographically, or None when
    the time runs out (the caller keeps the plain solver's model then: a model minimised
    part of the way would depend on the machine's speed).

    A binary search per cost term with a plain :class:`z3.Solver`, not ``z3.Optimize``:
    Optimize on WL-CFG-WEIGHTS' nonlinear arithmetic has a phase that heeds neither
    ``Context.interrupt`` nor its timeout (Ctrl-C ended the run 12 s late). Each search
    step is an ordinary check, which both stop, and ``check`` runs between steps. Every
    cost term counts or measures something, so none is below 0."""
    if not enc.cost:
        return None
    solver = z3.Solver()
    solver.add(*constraints)

    def ask() -> z3.CheckSatResult:
        check()
        if time.monotonic() >= deadline:
            return z3.unknown
        solver.set("timeout", _remaining_ms(deadline))
        return solver.check()

    if ask() != z3.sat:
        return None
    model = solver.model()
    for term in enc.cost:
        low, high = 0, model.eval(term, model_completion=True).as_long()
        while low < high:
            middle = (low + high) // 2
            solver.push()
            solver.add(term <= middle)
            answer = ask()
            if answer == z3.sat:
                model = solver.model()
                high = model.eval(term, model_completion=True).as_long()
            solver.pop()
            if answer == z3.unsat:
                low = middle + 1
            elif answer != z3.sat:
                return None
        solver.add(term == high)
    return model


def _satisfiable(enc: Encoding, deadline: float) -> bool:
    """Is there any configuration at all (the facts and domain, without the claim)? A proof
    over an empty set of configurations is vacuous (DESIGN §2.1: flagged, never "proved").
    Unknown counts as satisfiable: the question is only asked to catch a contradiction."""
    solver = z3.Solver()
    solver.set("timeout", _remaining_ms(deadline))
    solver.add(*enc.domain, *enc.facts.values())
    return solver.check() != z3.unsat


def _fresh_context() -> None:
    """Give each proof a new default Z3 context: what Z3 answers (which model, which core)
    then depends only on this claim and bound, not on the proofs run before it in the
    process — the same command prints the same bytes (determinism, DESIGN §2.1).

    Z3's ``ctrl_c`` is turned off: left on, every check installs Z3's own SIGINT handler
    (a process-wide ``signal()``, from whatever thread), so a Ctrl-C during a check
    cancelled it and never reached mqcheck's handler — the claim said "timeout" and the run
    went on. mqcheck's handler (checker.cli) stops Z3 with :func:`interrupt` instead."""
    z3.set_param("ctrl_c", False)
    z3.z3._main_ctx = None


# Ctrl-C or SIGTERM during ``mqcheck prove`` (:func:`interrupt`): the stop reason, or None.
_STOPPED: list[str] = []


def interrupt(reason: str) -> None:
    """Stop proving: Z3's check under way returns unknown, the encoding under way is
    abandoned at its next checkpoint, and every later question is answered unknown without
    asking Z3. Called from a signal handler of the main thread while the proofs run in
    another (``checker.cli``); Z3's ``interrupt`` is meant to be called from another thread.
    ``reason`` ("interrupted", "terminated (SIGTERM)") becomes the unknown verdicts' reason.
    A claim decided before stands; the one under way is unknown whatever Z3 answers after
    the interrupt (:func:`prove`)."""
    if not _STOPPED:
        _STOPPED.append(reason)
    ctx = z3.z3._main_ctx
    if ctx is not None:
        try:
            ctx.interrupt()
        except z3.Z3Exception:
            # Z3_interrupt has run; the binding then reads the context's last error, which
            # the proving thread's cancelled call may have left ("push canceled"), and raises
            # it here, in the signal handler: a traceback instead of the incomplete result
            # (a CI run, session 37). That error is the other thread's to report.
            pass


def stopped() -> str | None:
    """The reason :func:`interrupt` was given, or None."""
    return _STOPPED[0] if _STOPPED else None


def reset_interrupt() -> None:
    """Before a new command: nothing is stopped. An interrupted default Z3 context is
    dropped too: interrupted while no check ran (an encoding abandoned at a checkpoint), it
    stays cancelled, and every later push or check on it would fail ("push canceled")."""
    if _STOPPED:
        z3.z3._main_ctx = None
    _STOPPED.clear()


class Abandoned(Exception):
    """Raised at an encoding's checkpoint (or between the driver's steps) when the claim's
    deadline has passed or a stop signal came; ``reason`` is the unknown verdict's."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def timeout_reason(timeout: float) -> str:
    """How an unknown verdict names the ``--timeout`` that ran out."""
    return f"timeout ({timeout:g} s)"


def _watch(deadline: float, timeout: float) -> Callable[[], None]:
    """The check an encoding calls at its checkpoints: raise :class:`Abandoned` once a stop
    signal came or the claim's deadline has passed (a monotonic clock read: cheap)."""
    def check() -> None:
        if _STOPPED:
            raise Abandoned(_STOPPED[0])
        if time.monotonic() >= deadline:
            raise Abandoned(timeout_reason(timeout))
    return check


@contextmanager
def _watching(owner: Any, check: Callable[[], None]) -> Iterator[None]:
    """``owner.watching(check)`` when the claim (or table encoder) offers it."""
    watching = getattr(owner, "watching", None)
    if watching is None:
        yield
        return
    with watching(check):
        yield


def _unknown_reason(reason: str, timeout: float | None, deadline: float | None = None) -> str:
    """Z3's ``reason_unknown``, said honestly: after :func:`interrupt`, the stop reason; Z3
    reports its timeout as "canceled" (or "timeout"), which is the ``--timeout`` running out
    only when the deadline has passed (``timeout (0.01 s)``); any other reason is Z3's own
    words ("canceled" before the deadline is said as such, never as a timeout)."""
    if _STOPPED:
        return _STOPPED[0]
    if reason in ("canceled", "timeout") and timeout is not None:
        # Z3's timer starts with the check, after the deadline was read: it ends at or after it
        # (50 ms of slack for the rounding to whole milliseconds)
        if deadline is None or time.monotonic() >= deadline - 0.05:
            return timeout_reason(timeout)
        return f"Z3 stopped the check before the --timeout ({reason})"
    return reason or "unknown"


def not_attempted(stop: str) -> str:
    """The reason of a claim a stop signal came before."""
    return f"{stop} before it started"


def check_bound(claim: Any, bound: int) -> str:
    """Why ``bound`` is refused for ``claim`` (its ``min_bound``/``max_bound``), or ""."""
    low, high = getattr(claim, "min_bound", 1) or 1, getattr(claim, "max_bound", 0) or 0
    unit = getattr(claim, "bound_unit", "")
    if bound < low:
        return f"the smallest bound it is defined for is {low} {unit}".rstrip()
    if high and bound > high:
        return f"the largest bound it accepts is {high} {unit}".rstrip()
    return ""


def prove(claim: ConfigClaim, bound: int | None = None, timeout: float = 60.0, *, explain: bool = True,
          minimise: bool = True, started: float | None = None) -> tuple[str, dict]:
    """Prove one claim at ``bound`` (default: the claim's) within ``timeout`` seconds (wall)
    counted from ``started`` (``time.monotonic()``; default: now), the encoding included.
    ``explain``: shrink the unsat core to a minimal one; ``minimise``: minimise a
    counterexample with ``Optimize`` (both cost solver time; a table of many small
    questions turns them off).

    Returns ``(verdict, detail)``: ``detail`` has ``bound``, ``seconds`` (this call's wall
    time, encoding included), ``facts`` (the minimal core, for a proof), ``counterexample``
    (the decoded object, for a counterexample) and ``reason`` (for unknown).
    """
    bound = claim.default_bound if bound is None else bound
    refused = check_bound(claim, bound)
    if refused:
        raise ValueError(f"bound {bound}: {refused}")
    if _STOPPED:   # Ctrl-C or SIGTERM before this claim: not asked
        return UNKNOWN, {"bound": bound, "facts": [], "counterexample": None, "reason": not_attempted(_STOPPED[0]),
                         "seconds": 0.0, "cpu_seconds": 0.0}
    cpu = time.process_time()
    start = time.monotonic()
    deadline = (start if started is None else started) + timeout
    detail: dict[str, Any] = {"bound": bound, "facts": [], "counterexample": None, "reason": ""}
    check = _watch(deadline, timeout)
    try:
        with _watching(claim, check):
            verdict = _decide(claim, bound, deadline, timeout, explain, minimise, detail, check)
    except Abandoned as stop:   # the deadline or a stop signal, at a checkpoint
        verdict = UNKNOWN
        detail.update(facts=[], counterexample=None, reason=stop.reason)
    except z3.Z3Exception:
        if not _STOPPED:
            raise
        verdict = UNKNOWN   # Z3 raised "canceled" somewhere after interrupt()
    if _STOPPED:
        # Interrupted while this claim was decided. Z3 does not promise a sound answer from a
        # context interrupted mid-way (a check that raced interrupt() with the claim's
        # encoding was seen answering sat with a model that is no counterexample), so
        # whatever came out is discarded: unknown, never proved nor refuted.
        verdict = UNKNOWN
        detail.update(facts=[], counterexample=None, reason=_STOPPED[0])
    detail["seconds"] = round(time.monotonic() - start, 3)
    detail["cpu_seconds"] = round(time.process_time() - cpu, 3)
    return verdict, detail


def _decide(claim: ConfigClaim, bound: int, deadline: float, timeout: float, explain: bool, minimise: bool,
            detail: dict[str, Any], check: Callable[[], None]) -> str:
    """:func:`prove`'s work: the verdict, with ``detail`` filled in. ``check`` raises
    :class:`Abandoned` (the deadline, a stop signal); the encoding calls it too."""
    _fresh_context()
    check()
    enc = claim.encode(bound)
    check()
    lits, ties = _tracked(enc.facts)
    solver = z3.Solver()
    solver.add(*enc.domain, *ties, z3.Not(enc.claim))
    check()
    solver.set("timeout", _remaining_ms(deadline))
    answer = solver.check(*lits.values())
    if answer == z3.unsat and not _satisfiable(enc, deadline):
        # nothing satisfies the facts: the "proof" would hold of no configuration at all
        verdict = UNKNOWN
        detail["reason"] = "vacuous: the encoding's facts and domain contradict each other"
    elif answer == z3.unsat:
        by_lit = {str(lit): name for name, lit in lits.items()}
        core = [by_lit[str(c)] for c in solver.unsat_core()]
        # a sound proof needs no shrinking; give the explanation at most the time left
        detail["facts"] = sorted(_minimal_core(solver, lits, core, deadline) if explain else core)
        verdict = PROVED
    elif answer == z3.sat:
        model = solver.model()
        constraints = [*enc.domain, *enc.facts.values(), z3.Not(enc.claim)]
        check()   # a stop that came as the check ended: no minimising
        better = _minimised_model(enc, constraints, deadline, check) if minimise else None
        check()   # the decoder may build terms and ask Z3 again (WL-CFG-WEIGHTS): within the deadline
        detail["counterexample"] = enc.decode(better if better is not None else model)
        verdict = COUNTEREXAMPLE
    else:
        verdict = UNKNOWN
        detail["reason"] = _unknown_reason(solver.reason_unknown(), timeout, deadline)
    return verdict


def witnesses(encode: Callable[[], Any], questions: Iterable[tuple[Any, Any]], timeout: float = 60.0
              ) -> tuple[dict[Any, tuple[str, Any]], float]:
    """Many existence questions over one encoding (a reachability table): ``encode()``
    gives an encoding whose ``facts`` and ``domain`` hold throughout; each question is
    ``(key, condition)``, the condition a Z3 term or a function building it (built only
    when it is asked). Answers ``key -> ("yes", decoded witness) | ("no", None) |
    ("unknown", reason)`` and the seconds taken. One solver, one push/pop per question
    (incremental: the shared facts are asserted once). ``timeout`` counts from the start,
    the encoding included (``encode.watching``, as :func:`prove` uses a claim's); once it
    has run out, or a stop signal came, the questions not answered are unknown."""
    start = time.monotonic()
    deadline = start + timeout
    answers: dict[Any, tuple[str, Any]] = {}
    pending = iter(questions)
    asking = None   # the key of the question under way
    check = _watch(deadline, timeout)
    try:
        with _watching(encode, check):
            check()
            _fresh_context()
            enc = encode()
            check()
            solver = z3.Solver()
            solver.add(*enc.domain, *enc.facts.values())
            solver.set("timeout", _remaining_ms(deadline))
            vacuous = solver.check() == z3.unsat
            check()
            if vacuous:  # no configuration at all: every "no" would be vacuous
                return {key: ("unknown", "vacuous: the facts contradict each other") for key, _ in pending}, \
                    round(time.monotonic() - start, 3)
            for key, condition in pending:
                asking = key
                check()
                term = condition() if callable(condition) else condition
                solver.set("timeout", _remaining_ms(deadline))
                solver.push()
                solver.add(term)
                result = solver.check()
                if _STOPPED:   # interrupted during this question: its answer is discarded (see prove)
                    raise Abandoned(_STOPPED[0])
                answers[key] = (("yes", enc.decode(solver.model())) if result == z3.sat else ("no", None)
                                if result == z3.unsat else
                                ("unknown", _unknown_reason(solver.reason_unknown(), timeout, deadline)))
                asking = None
                solver.pop()
    except Abandoned as stop:
        _left_unanswered(answers, asking, pending, stop.reason)
    except z3.Z3Exception:
        if not _STOPPED:
            raise
        _left_unanswered(answers, asking, pending, _STOPPED[0])   # Z3 raised "canceled" after interrupt()
    return answers, round(time.monotonic() - start, 3)


def _left_unanswered(answers: dict, asking: Any, pending: Iterator, reason: str) -> None:
    """The question under way and those after it: unknown, with ``reason`` (the timeout or
    the stop signal; "... before it was asked" for those not asked)."""
    if asking is not None:
        answers[asking] = ("unknown", reason)
    later = f"{reason} before it was asked" if _STOPPED else reason
    for key, _ in pending:
        answers.setdefault(key, ("unknown", later))


def write_counterexample(cex: Any, out_dir: str, claim_id: str) -> str:
    """Write a counterexample's scenario file under ``out_dir``; return its path."""
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, f"{cex.file_stem or claim_id.lower()}.toml")
    with open(path, "w", encoding="utf-8") as f:
        f.write(cex.scenario_toml)
    return path


def exit_status(records: Sequence[ProofRecord]) -> int:
    """DESIGN §2.3: 1 a counterexample, 3 an unknown, 0 every claim proved. Under a broken
    rule (``--broken``) a counterexample is the expected outcome: 0 every broken rule
    refuted, 1 some broken rule proved (the claim does not detect it: a surviving mutant),
    3 some unknown."""
    if any(r.failed for r in records):
        return 1
    if any(r.verdict == UNKNOWN for r in records):
        return 3
    return 0


BROKEN_HEADER = ("Broken-rule run (--broken): each claim is proved against a deliberately broken rule; "
                 "a counterexample is the expected outcome.")


def format_header(records: Sequence[ProofRecord]) -> list[str]:
    """The line printed before the records of a broken-rule run (none otherwise)."""
    return [BROKEN_HEADER] if any(r.broken for r in records) else []


def format_summary(records: Sequence[ProofRecord]) -> str:
    """The closing count line; a broken-rule run counts refuted and surviving broken rules."""
    counts = {v: sum(1 for r in records if r.verdict == v) for v in (PROVED, COUNTEREXAMPLE, UNKNOWN)}
    vacuous = sum(1 for r in records if r.verdict == PROVED and r.vacuous)
    line = (f"{counts[PROVED]} proved{f' ({vacuous} VACUOUS)' if vacuous else ''}, "
            f"{counts[COUNTEREXAMPLE]} counterexample(s), {counts[UNKNOWN]} unknown")
    broken = [r for r in records if r.broken]
    if broken:
        refuted = sum(1 for r in broken if r.verdict == COUNTEREXAMPLE)
        missed = sum(1 for r in broken if r.verdict == PROVED)
        line += f" ({refuted} of {len(broken)} broken rule(s) refuted as expected, {missed} NOT refuted)"
    return line


def bound_text(bound: int, unit: str) -> str:
    """``5 queue managers``, ``1 queue manager``, ``1 level of tree depth``: the unit's
    plural word (its first ending in "s") made singular for a bound of 1."""
    if bound != 1:
        return f"{bound} {unit}".rstrip()
    words = unit.split(" ")
    for i, word in enumerate(words):
        if word.endswith("ies"):
            words[i] = word[:-3] + "y"
            break
        if word.endswith("s") and not word.endswith("ss"):
            words[i] = word[:-1]
            break
    return f"1 {' '.join(words)}".rstrip()


def format_record(r: ProofRecord) -> list[str]:
    """The text lines ``mqcheck prove`` prints for one claim."""
    head = f"{r.id:<28} {r.verdict}"
    bound = bound_text(r.bound, r.bound_unit)
    if r.broken and r.verdict == COUNTEREXAMPLE:
        head += f" (within bound {bound}): refuted (as expected)"
    elif r.broken and r.verdict == PROVED:
        head += (f" (bound {bound}): NOT refuted: the claim does not detect this broken rule"
                 f" {r.mutant()!r}")
    elif r.verdict == PROVED and r.vacuous:
        head += f" (bound {bound}) — VACUOUS: {r.reason}"
    elif r.verdict == PROVED:
        head += f" (bound {bound})"
    elif r.verdict == UNKNOWN:
        head += f" (bound {bound}: {r.reason}; not proved)"
    else:
        head += f" (within bound {bound})"
    lines = [f"{head}  {r.seconds:.2f} s ({r.cpu_seconds:.2f} s CPU)", f"    {r.title} ({r.citation})"]
    if r.reason and r.verdict != UNKNOWN and not r.vacuous:
        lines.append(f"    {r.reason}")   # a [[prove]] claim's pairs prove does not cover (session 33)
    if r.broken:
        lines.append(f"    broken-rule run: proved against the deliberately broken rule {r.mutant()!r}; "
                     "a counterexample is the expected outcome")
    if r.facts:
        lines.append("    rests on:")
        lines.extend(f"      - {fact}" for fact in r.facts)
    if r.counterexample:
        lines.append(f"    counterexample: {r.counterexample}")
    if r.counterexample_path:
        lines.append(f"    {'witness' if r.verdict == PROVED else 'scenario'}: {r.counterexample_path}")
        lines.append(f"    replay:   {r.replay}")
    return lines


def format_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    """A plain text table (cells may hold several lines)."""
    split = [[str(c).split("\n") for c in row] for row in rows]
    widths = [max([len(h)] + [len(line) for row in split for line in row[i]]) for i, h in enumerate(header)]
    def line(cells):
        return "  ".join(c.ljust(w) for c, w in zip(cells, widths)).rstrip()
    out = [line(header), line(["-" * w for w in widths])]
    for row in split:
        for k in range(max(len(c) for c in row)):
            out.append(line([c[k] if k < len(c) else "" for c in row]))
    return out
