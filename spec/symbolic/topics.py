"""Both wildcard schemes over bounded topic strings, in Z3 (mirrors ``spec.topics``).

Topic scheme (``topic_matches(s, t, "topic")``): a topic is a symbolic sequence of at most
L levels, each one of a finite alphabet of level names (the tree's names plus fresh ones;
``""`` may be one: empty levels are real levels); a subscription is at most M tokens,
each a level name, ``+`` or ``#``. Character scheme (``topic_matches(s, t, "char")``): a
topic is at most L characters of a finite alphabet that includes ``/``; a subscription is
at most M tokens, each a character, ``*`` or ``?``.

Matching is the textbook dynamic programme M(i, j) = "tokens i.. match topic j..",
unrolled over the bound (each cell one Z3 term: O(M x L) terms). The Python matcher
places segments leftmost instead; the two are tested equal (tests/test_symbolic_topics.py).

Abstracted away: ``%`` escapes and literal ``*``/``?``/``#``/``+`` inside published
topics (the alphabets exclude them; escapes are covered by spec/topics.py's own tables).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import z3

from spec.symbolic.base import checkpoint, ticking

PLUS, HASH = "+", "#"
STAR, QMARK = "*", "?"
SEPARATOR = "/"


@dataclass(frozen=True)
class SymTopic:
    """A symbolic topic string: ``length`` in 1..L and ``items[k]`` codes into ``alphabet``
    (levels for the topic scheme, characters for the character scheme)."""

    alphabet: tuple[str, ...]
    length: z3.ArithRef
    items: tuple[z3.ArithRef, ...]
    charwise: bool

    @property
    def bound(self) -> int:
        return len(self.items)

    def domain(self) -> list[z3.BoolRef]:
        out = [self.length >= 1, self.length <= self.bound]
        out += [z3.And(x >= 0, x < len(self.alphabet)) for x in ticking(self.items)]
        if not self.charwise and "" in self.alphabet:
            # the empty string is not a topic string (spec.topics.validate_topic_string)
            out.append(z3.Not(z3.And(self.length == 1, self.items[0] == self.alphabet.index(""))))
        return out

    def code(self, name: str) -> int:
        return self.alphabet.index(name)

    def decode(self, model: z3.ModelRef) -> str:
        n = model.eval(self.length, model_completion=True).as_long()
        parts = [self.alphabet[model.eval(x, model_completion=True).as_long()] for x in self.items[:n]]
        return "".join(parts) if self.charwise else SEPARATOR.join(parts)

    def fix(self, topic: str) -> list[z3.BoolRef]:
        """Constraints making this symbolic topic equal ``topic``."""
        parts = list(topic) if self.charwise else topic.split(SEPARATOR)
        assert len(parts) <= self.bound and all(p in self.alphabet for p in parts), topic
        return [self.length == len(parts)] + [self.items[k] == self.code(p) for k, p in enumerate(parts)]


def sym_topic(prefix: str, alphabet: Sequence[str], bound: int, charwise: bool = False) -> SymTopic:
    return SymTopic(tuple(alphabet), z3.Int(f"{prefix}.len"),
                    tuple(z3.Int(f"{prefix}[{k}]") for k in ticking(range(bound))), charwise)


@dataclass(frozen=True)
class SymSubscription:
    """A symbolic subscription: ``tokens[k]`` codes into ``alphabet + (wild_one, wild_many)``
    (``+``/``#`` for the topic scheme, ``?``/``*`` for the character scheme)."""

    alphabet: tuple[str, ...]
    length: z3.ArithRef
    tokens: tuple[z3.ArithRef, ...]
    charwise: bool

    @property
    def one(self) -> int:  # '+' or '?'
        return len(self.alphabet)

    @property
    def many(self) -> int:  # '#' or '*'
        return len(self.alphabet) + 1

    @property
    def scheme(self) -> str:
        return "char" if self.charwise else "topic"

    def domain(self) -> list[z3.BoolRef]:
        out = [self.length >= 1, self.length <= len(self.tokens)]
        out += [z3.And(x >= 0, x <= self.many) for x in ticking(self.tokens)]
        if not self.charwise and "" in self.alphabet:
            out.append(z3.Not(z3.And(self.length == 1, self.tokens[0] == self.alphabet.index(""))))
        if not self.charwise:  # a level that is exactly '#' or '+' is the wildcard, never a name
            out += [x != self.alphabet.index(w) for w in ("#", "+") if w in self.alphabet for x in ticking(self.tokens)]
        return out

    def symbols(self) -> tuple[str, ...]:
        wild = (QMARK, STAR) if self.charwise else (PLUS, HASH)
        return self.alphabet + wild

    def decode(self, model: z3.ModelRef) -> str:
        n = model.eval(self.length, model_completion=True).as_long()
        parts = [self.symbols()[model.eval(x, model_completion=True).as_long()] for x in self.tokens[:n]]
        return "".join(parts) if self.charwise else SEPARATOR.join(parts)

    def fix(self, sub: str) -> list[z3.BoolRef]:
        parts = list(sub) if self.charwise else sub.split(SEPARATOR)
        syms = self.symbols()
        assert len(parts) <= len(self.tokens) and all(p in syms for p in parts), sub
        wild = {PLUS: self.one, HASH: self.many} if not self.charwise else {}  # the wildcard, not a name '#'
        return [self.length == len(parts)] + [self.tokens[k] == wild.get(p, syms.index(p)) for k, p in enumerate(parts)]

    def is_wild(self, k: int) -> z3.BoolRef:
        return z3.Or(self.tokens[k] == self.one, self.tokens[k] == self.many)

    def has_wildcard(self) -> z3.BoolRef:
        """``spec.topics.is_wildcard``."""
        return z3.Or([z3.And(k < self.length, self.is_wild(k)) for k in ticking(range(len(self.tokens)))])

    def first_wildcard(self) -> z3.ArithRef:
        """Index of the first wildcard token (``length`` when there is none)."""
        out: z3.ArithRef = self.length
        for k in ticking(reversed(range(len(self.tokens)))):
            out = z3.If(z3.And(k < self.length, self.is_wild(k)), z3.IntVal(k), out)
        return out


def sym_subscription(prefix: str, alphabet: Sequence[str], bound: int, charwise: bool = False) -> SymSubscription:
    return SymSubscription(tuple(alphabet), z3.Int(f"{prefix}.len"),
                           tuple(z3.Int(f"{prefix}[{k}]") for k in ticking(range(bound))), charwise)


def matches(sub: SymSubscription, topic: SymTopic) -> z3.BoolRef:
    """``spec.topics.topic_matches(sub, topic, scheme)`` as a Z3 term (same alphabet).

    >>> t, s = sym_topic("t", ("a", "b"), 3), sym_subscription("s", ("a", "b"), 3)
    >>> solver = z3.Solver()
    >>> solver.add(*t.fix("a/b"), *s.fix("a/#"))
    >>> solver.check() == z3.sat and z3.is_true(solver.model().eval(matches(s, t)))
    True
    >>> solver = z3.Solver()
    >>> solver.add(*t.fix("a"), *s.fix("a/+"), s.length == 2)
    >>> solver.check() == z3.sat and z3.is_true(solver.model().eval(matches(s, t)))
    False
    """
    assert sub.alphabet == topic.alphabet and sub.charwise == topic.charwise
    m, n = len(sub.tokens), topic.bound
    memo: dict[tuple[int, int], z3.BoolRef] = {}
    # bottom-up: cell (i, j) = tokens i.. of sub match items j.. of topic
    for i in range(m, -1, -1):
        for j in range(n, -1, -1):
            checkpoint()
            done = j == topic.length
            if i == m:
                memo[i, j] = done
                continue
            more = z3.BoolVal(False) if j == n else j < topic.length
            tok = sub.tokens[i]
            step = z3.BoolVal(False) if j == n else z3.And(
                more, z3.Or(tok == sub.one, tok == topic.items[j]), memo[i + 1, j + 1])
            many = z3.Or(memo[i + 1, j], z3.And(more, memo[i, j + 1]) if j < n else z3.BoolVal(False))
            memo[i, j] = z3.If(i == sub.length, done, z3.If(tok == sub.many, many, step))
    return memo[0, 0]


def level_prefix_length(sub: SymSubscription) -> z3.ArithRef:
    """Topic scheme: the number of levels of ``spec.topics.fixed_prefix`` (tokens before
    the first ``+``/``#``; all of them when there is none)."""
    assert not sub.charwise
    return sub.first_wildcard()


def char_prefix_cut(sub: SymSubscription) -> z3.ArithRef:
    """Character scheme: where ``fixed_prefix`` cuts the literal head back to — the index
    of the last ``/`` before the first wildcard, or -1 (the prefix is then ``()``)."""
    assert sub.charwise
    slash = sub.alphabet.index(SEPARATOR)
    first = sub.first_wildcard()
    out: z3.ArithRef = z3.IntVal(-1)
    for k in ticking(range(len(sub.tokens))):
        out = z3.If(z3.And(k < first, sub.tokens[k] == slash), z3.IntVal(k), out)
    return out
