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
so its id cannot be reused while cached). A dataclass may declare a field ``_encoded``
with ``init=False`` (``NetworkState`` does): it is not part of the value, and its
encoding is kept there, so a whole state is encoded once however often it is hashed,
compared and fingerprinted. Two different values share an encoding only if
two different encodings share a 128-bit digest (probability about 2^-128 per pair, far
below the 64-bit fingerprint collision estimate the explorer reports).
"""

from __future__ import annotations

import dataclasses
from hashlib import blake2b
from typing import Any

_FIELDS: dict[type, tuple[str, ...]] = {}
_TAGS: dict[type, bytes] = {}

# Digests of compound values already seen, keyed by identity: (value, digest). The entry
# keeps the value alive, so its id cannot be reused while cached; the memo changes how
# fast an encoding is produced, never what it is. Cleared when full.
_MEMO: dict[int, tuple[object, bytes]] = {}
_MEMO_LIMIT = 50_000
_TOP_LIMIT = 4_096  # whole states: a checker hashes a new state, then encodes it for its fingerprint
DIGEST_SIZE = 16


CACHE_FIELD = "_encoded"
_CACHED: set[type] = set()   # dataclasses with a CACHE_FIELD slot: their encoding is kept on the object


def _fields(cls: type) -> tuple[str, ...]:
    """The fields that make up the value: every field except a ``CACHE_FIELD`` declared
    ``init=False`` (a per-object cache of the encoding itself)."""
    names = _FIELDS.get(cls)
    if names is None:
        fields = dataclasses.fields(cls)
        names = tuple(f.name for f in fields if not (f.name == CACHE_FIELD and not f.init))
        if len(names) < len(fields):
            _CACHED.add(cls)
        _FIELDS[cls] = names
        _TAGS[cls] = b"D%d:%s{" % (len(cls.__name__.encode()), cls.__name__.encode())
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
        if len(value) <= 2:
            return _body(value, t)
        return b"H" + _digest(value, t)
    if t is frozenset or _is_compound(value, t):
        return b"H" + _digest(value, t)
    if isinstance(value, bool):  # pragma: no cover - bool cannot be subclassed
        return b"T" if value else b"F"
    if isinstance(value, int):  # IntEnum and other int subclasses
        return b"i%d;" % int(value)
    if isinstance(value, str):  # StrEnum and other str subclasses
        return _inline(str(value))
    if isinstance(value, frozenset):
        return b"H" + _digest(frozenset(value), frozenset)
    raise TypeError(f"cannot encode {t.__name__} canonically: states hold only immutable values")


def _body(value: Any, t: type) -> bytes:
    """The encoding of a compound value itself (its digest is the digest of this)."""
    if t is tuple:
        return b"(%d%s)" % (len(value), b"".join([_inline(item) for item in value]))
    if t is frozenset:
        members = sorted(_inline(item) for item in value)
        return b"<%d%s>" % (len(members), b"".join(members))
    names = _fields(t)
    return _TAGS[t] + b"".join([_inline(getattr(value, name)) for name in names]) + b"}"


def _digest(value: Any, t: type) -> bytes:
    hit = _MEMO.get(id(value))
    if hit is not None and hit[0] is value:
        return hit[1]
    digest = blake2b(_body(value, t), digest_size=DIGEST_SIZE).digest()
    if len(_MEMO) >= _MEMO_LIMIT:
        _MEMO.clear()
    _MEMO[id(value)] = (value, digest)
    return digest


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
