"""Canonical bytes of spec values: the input of every fingerprint (DESIGN §2.1).

A state is a tree of frozen dataclasses, tuples, strings, integers, booleans and None.
Its encoding is a function of its value alone — never of ``hash()`` (salted per process),
``id()`` or set iteration order — so the same state has the same fingerprint in every
process, on every backend, under any PYTHONHASHSEED.

The encoding is a Merkle tree (issue #17). Scalars are encoded inline (tagged, strings
length-prefixed); a compound value (a dataclass, a frozenset, a tuple of three or more
items) appears inside its parent as ``H`` plus the 128-bit blake2b digest of its own
encoding; tuples of one or two items are inlined. Frozensets are encoded sorted by their
members' encodings. So the encoding of a whole state is a few hundred bytes — its fields,
each a digest — however large the state, and a successor, which shares most of its
parent's queue managers and channels (``dataclasses.replace`` keeps references to
unchanged parts), costs only the digests of the parts it changed: the others are found by
identity in a bounded memo that stores 16 bytes per part (the part itself is kept alive
so its id cannot be reused while cached). Inlined tuples of one or two items are kept in
the same memo with their inline bytes: a changed parent re-inlines its unchanged pairs (on
fr-mesh-broken, 6.8 of the 15.4 tuples encoded per successor were such repeats before they
were memoised). A dataclass may declare a field ``_encoded`` with ``init=False``
(``NetworkState`` does): it is not part of the value, and its encoding is kept there, so
a whole state is encoded once however often it is hashed, compared and fingerprinted. Two different values share an encoding only if
two different encodings share a 128-bit digest (probability about 2^-128 per pair, far
below the 64-bit fingerprint collision estimate the explorer reports).

A field declared with ``metadata=OMITTED_AT_DEFAULT`` is left out of its dataclass's
encoding while it holds its default, and otherwise follows the other fields as ``+``, its
name and its value (no inline encoding starts with ``+``, so the bytes still decode one
way). A field added that way leaves the encoding of every value that does not use it as it
was: every pinned fingerprint and digest of such states stays (session 36,
``LocalPubSub.backlog``).
"""

from __future__ import annotations

import dataclasses
from hashlib import blake2b
from operator import attrgetter
from typing import Any, Callable

_FIELDS: dict[type, tuple[str, ...]] = {}
_TAGS: dict[type, bytes] = {}
_GETTERS: dict[type, Callable[[Any], tuple]] = {}   # a dataclass's field values, in order

# How compound values already seen appear in a parent (b"H" + digest), keyed by identity:
# (value, that). The entry keeps the value alive, so its id cannot be reused while cached;
# the memo changes how fast an encoding is produced, never what it is. Cleared when full.
_MEMO: dict[int, tuple[object, bytes]] = {}
_MEMO_LIMIT = 50_000
# How strings appear inline, by value (names recur in every state). Cleared when full.
_STRS: dict[str, bytes] = {}
_STRS_LIMIT = 20_000
_TOP_LIMIT = 4_096  # whole states: a checker hashes a new state, then encodes it for its fingerprint
DIGEST_SIZE = 16


CACHE_FIELD = "_encoded"
_CACHED: set[type] = set()   # dataclasses with a CACHE_FIELD slot: their encoding is kept on the object
DIGEST_FIELD = "_digest"
_DIGESTED: set[type] = set()  # dataclasses with a DIGEST_FIELD slot: their inline bytes are kept on the object
# ``field(default=..., metadata=OMITTED_AT_DEFAULT)``: encoded only when not at its default
OMITTED_AT_DEFAULT = {"encoding": "omitted at default"}


def _omitted_at_default(f: Any) -> bool:
    return f.metadata.get("encoding") == OMITTED_AT_DEFAULT["encoding"]


# per dataclass with such fields: (name, default, the bytes before its value) for each
_OPTIONAL: dict[type, tuple[tuple[str, Any, bytes], ...]] = {}


def _fields(cls: type) -> tuple[str, ...]:
    """The fields that make up the value, as every value encodes them: every field except
    those declared ``init=False`` and ``compare=False``, which are caches kept on the object
    (``CACHE_FIELD``, the encoding itself; ``DIGEST_FIELD``, its inline bytes; the delivery
    memo's key part), and those declared ``OMITTED_AT_DEFAULT``, which ``_body`` adds after
    them when they are not at their default (``_OPTIONAL``)."""
    names = _FIELDS.get(cls)
    if names is None:
        fields = dataclasses.fields(cls)
        # a field neither an __init__ argument nor compared is a cache on the object, not
        # part of the value (CACHE_FIELD, DIGEST_FIELD, the delivery memo's key part)
        names = tuple(f.name for f in fields if (f.init or f.compare) and not _omitted_at_default(f))
        optional = tuple((f.name, f.default, b"+" + _inline(f.name)) for f in fields
                         if _omitted_at_default(f))
        if optional:
            _OPTIONAL[cls] = optional
        for f in fields:
            if f.name == CACHE_FIELD and not f.init:
                _CACHED.add(cls)
            elif f.name == DIGEST_FIELD and not f.init:
                _DIGESTED.add(cls)
        _FIELDS[cls] = names
        _TAGS[cls] = b"D%d:%s{" % (len(cls.__name__.encode()), cls.__name__.encode())
        if len(names) == 1:
            one = attrgetter(names[0])
            _GETTERS[cls] = lambda value: (one(value),)
        else:
            _GETTERS[cls] = attrgetter(*names) if names else (lambda value: ())
    return names


def _is_compound(value: Any, t: type) -> bool:
    return t in _FIELDS or (dataclasses.is_dataclass(value) and not isinstance(value, type))


def _inline(value: Any) -> bytes:
    """How ``value`` appears inside its parent's encoding."""
    t = type(value)
    if t is str:
        data = value.encode("utf-8", "surrogatepass")
        return b"s%d:%s" % (len(data), data)
    if t is int:
        return b"i%d;" % value
    if value is None:
        return b"N"
    if t is bool:
        return b"T" if value else b"F"
    if t is tuple:
        if not value:
            return b"(0)"
        if len(value) <= 2:    # inlined, and memoised like a digest: parents re-inline it often
            hit = _MEMO.get(id(value))
            if hit is not None and hit[0] is value:
                return hit[1]
            data = _body(value, t)
            if len(_MEMO) >= _MEMO_LIMIT:
                _MEMO.clear()
            _MEMO[id(value)] = (value, data)
            return data
        return _hashed(value, t)
    if t is frozenset or _is_compound(value, t):
        return _hashed(value, t)
    if isinstance(value, bool):  # pragma: no cover - bool cannot be subclassed
        return b"T" if value else b"F"
    if isinstance(value, int):  # IntEnum and other int subclasses
        return b"i%d;" % int(value)
    if isinstance(value, str):  # StrEnum and other str subclasses
        return _inline(str(value))
    if isinstance(value, frozenset):
        return _hashed(frozenset(value), frozenset)
    raise TypeError(f"cannot encode {t.__name__} canonically: states hold only immutable values")


def _inlined(items: Any) -> list[bytes]:
    """``[_inline(item) for item in items]``, with the common cases (a string, an integer,
    None, a part already digested) decided here rather than in a call per item: this is
    the inner loop of encoding every successor state."""
    out: list[bytes] = []
    append = out.append
    memo, strs = _MEMO.get, _STRS
    for item in items:
        t = type(item)
        if t is str:
            data = strs.get(item)
            if data is None:
                data = _inline(item)
                if len(strs) >= _STRS_LIMIT:
                    strs.clear()
                strs[item] = data
            append(data)
        elif t is int:
            append(b"i%d;" % item)
        elif item is None:
            append(b"N")
        elif t is bool:
            append(b"T" if item else b"F")
        elif t in _DIGESTED:
            data = item._digest
            append(data if data is not None else _hashed(item, t))
        else:
            hit = memo(id(item))
            append(hit[1] if hit is not None and hit[0] is item else _inline(item))
    return out


def _body(value: Any, t: type) -> bytes:
    """The encoding of a compound value itself (its digest is the digest of this)."""
    if t is tuple:
        return b"(%d%s)" % (len(value), b"".join(_inlined(value)))
    if t is frozenset:
        members = sorted(_inlined(value))
        return b"<%d%s>" % (len(members), b"".join(members))
    getter = _GETTERS.get(t)
    if getter is None:
        _fields(t)
        getter = _GETTERS[t]
    optional = _OPTIONAL.get(t)
    if optional is None:
        return _TAGS[t] + b"".join(_inlined(getter(value))) + b"}"
    extra = b"".join([tag + _inline(v) for name, default, tag in optional
                      if (v := getattr(value, name)) != default])
    return _TAGS[t] + b"".join(_inlined(getter(value))) + extra + b"}"


def _hashed(value: Any, t: type) -> bytes:
    """How a compound value appears inside its parent: ``H`` and its digest (memoised, or
    kept on the object when its class declares a ``DIGEST_FIELD``)."""
    if t in _DIGESTED:
        data = value._digest
        if data is None:
            data = b"H" + blake2b(_body(value, t), digest_size=DIGEST_SIZE).digest()
            object.__setattr__(value, DIGEST_FIELD, data)
        return data
    hit = _MEMO.get(id(value))
    if hit is not None and hit[0] is value:
        return hit[1]
    inline = b"H" + blake2b(_body(value, t), digest_size=DIGEST_SIZE).digest()
    if len(_MEMO) >= _MEMO_LIMIT:
        _MEMO.clear()
    _MEMO[id(value)] = (value, inline)
    return inline


def inline_bytes(value: Any) -> bytes:
    """How ``value`` appears inside a parent's encoding: a scalar's own bytes, a compound
    value's ``H`` and digest (memoised). Two values have the same inline bytes exactly when
    they have the same canonical encoding (up to the digest's collisions)."""
    return _inline(value)


_TOP: dict[int, tuple[object, bytes]] = {}


def canonical_bytes(value: Any) -> bytes:
    """The canonical encoding of an immutable spec value: scalars inline, compound parts
    by the digest of their own encoding.

    >>> canonical_bytes(("QMA", 3))
    b'(2s3:QMAi3;)'
    >>> a = canonical_bytes(("QMA", 3, None, frozenset({"b", "a"})))
    >>> a == canonical_bytes(("QMA", 3, None, frozenset({"a", "b"}))) != canonical_bytes(("QMA", 3, None, frozenset()))
    True
    >>> a[:12], len(a)
    (b'(4s3:QMAi3;N', 30)
    """
    t = type(value)
    if t in _CACHED:      # kept on the object: a whole state is encoded once
        data = getattr(value, CACHE_FIELD)
        if data is None:
            data = _body(value, t)
            object.__setattr__(value, CACHE_FIELD, data)
        return data
    hit = _TOP.get(id(value))
    if hit is not None and hit[0] is value:
        return hit[1]
    if t is tuple or t is frozenset or _is_compound(value, t):
        data = _body(value, t)
    else:
        return _inline(value)
    if t in _CACHED:      # its fields were just read for the first time
        object.__setattr__(value, CACHE_FIELD, data)
    elif t is not tuple and t is not frozenset:
        if len(_TOP) >= _TOP_LIMIT:
            _TOP.clear()
        _TOP[id(value)] = (value, data)
    return data
