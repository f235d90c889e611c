"""The shapes an encoding hands ``checker.prove`` (structurally: prove.py never imports spec).

An :class:`Encoding` is named facts (rules and configuration facts, each tracked so the
unsat core can name what a proof rests on), untracked domain constraints, the claim, cost
terms to minimise, and a decoder from a Z3 model to a :class:`Counterexample`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, TypeVar

import z3

T = TypeVar("T")

# The driver's check (``checker.prove``: the claim's deadline and the stop signal), while a
# claim is being encoded or decoded; empty otherwise. The encodings call it through
# :func:`checkpoint` between pieces of their work, so a large bound can be abandoned.
_WATCH: list[Callable[[], None]] = []


@contextmanager
def watching(check: Callable[[], None]) -> Iterator[None]:
    """While active, every :func:`checkpoint` calls ``check()``, which raises to abandon
    the encoding (the exception goes through the encoding to the caller). The claims
    offer this to the driver as ``claim.watching`` (``checker.prove`` imports no spec)."""
    _WATCH.append(check)
    try:
        yield
    finally:
        _WATCH.pop()


def checkpoint() -> None:
    """A point where an encoding may be abandoned: called once per piece of work that
    builds at most a few hundred terms (a loop iteration), so a deadline or a stop signal
    is noticed within milliseconds whatever the bound."""
    if _WATCH:
        _WATCH[-1]()


def ticking(items: Iterable[T]) -> Iterator[T]:
    """``items``, with a :func:`checkpoint` before each (for an encoding's loops)."""
    for item in items:
        checkpoint()
        yield item


@dataclass
class Encoding:
    facts: dict[str, z3.BoolRef]
    claim: z3.BoolRef
    decode: Callable[[z3.ModelRef], Any]
    domain: list[z3.BoolRef] = field(default_factory=list)
    cost: list[z3.ArithRef] = field(default_factory=list)


@dataclass(frozen=True)
class Counterexample:
    """A decoded counterexample: a one-line summary, a runnable scenario file (TOML) and
    the stem of its file name; ``data`` is the decoded configuration for tests."""

    summary: str
    scenario_toml: str
    file_stem: str
    data: Any = None


def count(bools) -> z3.ArithRef:
    """How many of ``bools`` hold (a cost term)."""
    bools = list(bools)
    return z3.Sum([z3.If(b, 1, 0) for b in bools]) if bools else z3.IntVal(0)


def toml_string(s: str) -> str:
    """A TOML basic string (escapes quotes, backslashes and control characters)."""
    out = []
    for ch in s:
        if ch in '"\\':
            out.append("\\" + ch)
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\u{ord(ch):04X}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def mqsc_string(s: str) -> str:
    """An MQSC quoted string (single quotes doubled)."""
    return "'" + s.replace("'", "''") + "'"
