"""spec.encoding: the canonical bytes are a function of the value alone.

The encoder memoises parts by identity (digested parts and, since issue #17 round 6, the
inlined tuples of one or two items). These tests build the same value twice, from fresh
objects and from shared ones, in different orders and across a cleared memo, and require
the same bytes every time."""

from __future__ import annotations

from dataclasses import dataclass, field

from hypothesis import given, settings, strategies as st

import spec.encoding as enc
from spec.encoding import canonical_bytes


@dataclass(frozen=True, slots=True)
class Leaf:
    name: str
    n: int
    parts: tuple = ()


scalars = st.one_of(st.none(), st.booleans(), st.integers(-2**70, 2**70), st.text(max_size=6))
values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4).map(tuple),
        st.frozensets(st.one_of(st.text(max_size=3), st.integers(-5, 5)), max_size=4),
        st.builds(Leaf, st.text(max_size=4), st.integers(-3, 3), st.lists(inner, max_size=3).map(tuple)),
    ),
    max_leaves=25,
)


def rebuilt(value):
    """An equal value made of new objects (no part shared with ``value``)."""
    if isinstance(value, tuple):
        return tuple([rebuilt(v) for v in value])
    if isinstance(value, Leaf):
        return Leaf("".join(value.name), value.n, rebuilt(value.parts))
    if isinstance(value, frozenset):
        return frozenset(rebuilt(v) for v in value)
    if isinstance(value, str):
        return "".join(list(value))
    return value


@settings(max_examples=300, deadline=None)
@given(values)
def test_the_encoding_does_not_depend_on_the_memo(value):
    first = canonical_bytes(value)
    again = canonical_bytes(value)                    # every part found in the memo
    fresh = canonical_bytes(rebuilt(value))           # no part found
    enc._MEMO.clear()
    enc._STRS.clear()
    enc._TOP.clear()
    cold = canonical_bytes(value)                     # the same objects, memo empty
    assert first == again == fresh == cold


@settings(max_examples=200, deadline=None)
@given(values, values)
def test_a_shared_part_encodes_alike_in_every_parent(a, b):
    """A short tuple is inlined into its parent: memoised once, it must still appear as
    itself (not as a digest) wherever it is reused, and parents that differ must differ."""
    pair = (a, b)
    one = canonical_bytes((pair, 1, pair))
    two = canonical_bytes(((rebuilt(a), rebuilt(b)), 1, (rebuilt(a), rebuilt(b))))
    assert one == two
    assert canonical_bytes((pair,)) != canonical_bytes((pair, pair))


def test_short_tuples_stay_inline_after_they_are_memoised():
    pair = ("QMA", 3)
    assert canonical_bytes((pair, "x")) == b"(2(2s3:QMAi3;)s1:x)"
    assert canonical_bytes((pair, "x")) == b"(2(2s3:QMAi3;)s1:x)"   # the memo's answer
    assert canonical_bytes(Leaf("a", 1, (pair,))) == canonical_bytes(Leaf("a", 1, (("QMA", 3),)))


def test_a_full_memo_is_cleared_and_the_answers_stay(monkeypatch):
    monkeypatch.setattr(enc, "_MEMO_LIMIT", 3)
    parts = [(f"Q{i}", i) for i in range(20)]
    expected = [canonical_bytes(("head", p)) for p in parts]
    assert [canonical_bytes(("head", p)) for p in parts] == expected
    assert len(enc._MEMO) <= 3


# --- fields omitted at their default (session 36) -----------------------------------------
@dataclass(frozen=True, slots=True)
class Before:
    name: str
    n: int = 0


@dataclass(frozen=True, slots=True)
class _Grown:
    name: str
    n: int = 0
    extra: tuple = field(default=(), metadata=enc.OMITTED_AT_DEFAULT)
    more: str = field(default="", metadata=enc.OMITTED_AT_DEFAULT)


_Grown.__name__ = "Before"   # the same tag: the class as it was, and as it grew


@given(st.text(max_size=4), st.integers(-3, 3), st.lists(st.integers(0, 3), max_size=3).map(tuple),
       st.text(max_size=2), st.text(max_size=2), st.integers(-3, 3),
       st.lists(st.integers(0, 3), max_size=3).map(tuple), st.text(max_size=2))
@settings(max_examples=300, deadline=None)
def test_a_field_omitted_at_its_default_leaves_the_old_encoding_and_stays_one_to_one(a, n, x, m, b, k, y, o):
    """At its default the field is not encoded, so values that do not use it encode as
    before it existed (LocalPubSub.backlog: no pinned state moved); otherwise the bytes
    differ whenever the values differ."""
    assert canonical_bytes(_Grown(a, n)) == canonical_bytes(Before(a, n))
    one, two = _Grown(a, n, x, m), _Grown(b, k, y, o)
    assert (canonical_bytes(one) == canonical_bytes(two)) == (one == two)
    assert canonical_bytes((one, 1)) != canonical_bytes((two, 1)) or one == two
