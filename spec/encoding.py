"""Canonical bytes of spec values: the input of every fingerprint (DESIGN §2.1).

A state is a tree of frozen dataclasses, tuples, strings, integers, booleans and None.
Its encoding is a function of its value alone — never of ``hash()`` (salted per process),
``id()`` or set iteration order — so the same state has the same fingerprint in every
process, on every backend, under any PYTHONHASHSEED. Frozensets are encoded sorted by
their members' encodings. Every value is tagged and strings are length-prefixed, so two
different values never share an encoding.
"""

from __future__ import annotations

import dataclasses
from typing import Any

_FIELDS: dict[type, tuple[str, ...]] = {}
# Fields declared with ``field(metadata={"encode": "omit_if_none"})`` are left out of the
# encoding while they are None, so adding such a field (last, default None) to a state class
# keeps the encodings, and so the fingerprints, of every state that does not use it (issue
# #19's ``NetworkState.uniform``). Only a trailing field may be omitted: the closing brace
# then still tells the two encodings apart.
_OMIT: dict[type, frozenset[str]] = {}

# Encodings of dataclass instances already seen, keyed by identity. States share most of
# their structure (``dataclasses.replace`` keeps references to unchanged parts), so the
# queue managers' definitions and untouched caches are encoded once, not once per state.
# The entry keeps the object alive, so its id cannot be reused while cached; the memo
# changes how fast an encoding is produced, never what it is.
_MEMO: dict[int, tuple[object, str]] = {}
_MEMO_LIMIT = 100_000
_TOP_LIMIT = 20_000  # whole states: only recent ones are hashed again (a checker's level dict)


def _fields(cls: type) -> tuple[str, ...]:
    names = _FIELDS.get(cls)
    if names is None:
        fields = dataclasses.fields(cls)
        names = tuple(f.name for f in fields)
        omit = [i for i, f in enumerate(fields) if f.metadata.get("encode") == "omit_if_none"]
        assert omit == list(range(len(fields) - len(omit), len(fields))), "only trailing fields may be omitted"
        _OMIT[cls] = frozenset(fields[i].name for i in omit)
        _FIELDS[cls] = names
    return names


def _remember(value: object, text: str) -> None:
    if len(_MEMO) >= _MEMO_LIMIT:
        _MEMO.clear()
    _MEMO[id(value)] = (value, text)


def _encode(value: Any, out: list[str]) -> None:
    t = type(value)
    if t is str:
        out.append(f"s{len(value)}:")
        out.append(value)
        return
    if t is int:
        out.append(f"i{value};")
        return
    if value is None:
        out.append("N")
        return
    if t is bool:
        out.append("T" if value else "F")
        return
    if t is tuple or t in _FIELDS or dataclasses.is_dataclass(value) and not isinstance(value, type):
        # compound values: memoised by identity (tuples of one or two items are cheap)
        hit = _MEMO.get(id(value))
        if hit is not None and hit[0] is value:
            out.append(hit[1])
            return
        if t is tuple:
            sub: list[str] = [f"({len(value)}"]
            for item in value:
                _encode(item, sub)
            sub.append(")")
        else:
            sub = [f"D{t.__name__}{{"]
            names = _fields(t)
            omit = _OMIT[t]
            for name in names:
                item = getattr(value, name)
                if item is None and omit and name in omit:
                    continue
                _encode(item, sub)
            sub.append("}")
        text = "".join(sub)
        if t is not tuple or len(value) > 2:
            _remember(value, text)
        out.append(text)
        return
    if isinstance(value, int):  # IntEnum and other int subclasses
        out.append(f"i{int(value)};")
    elif isinstance(value, str):  # StrEnum and other str subclasses
        _encode(str(value), out)
    elif isinstance(value, frozenset):
        members = sorted(canonical_bytes(item) for item in value)
        out.append(f"<{len(members)}")
        out.extend(m.decode("utf-8", "surrogatepass") for m in members)
        out.append(">")
    else:
        raise TypeError(f"cannot encode {t.__name__} canonically: states hold only immutable values")


_TOP: dict[int, tuple[object, bytes]] = {}


def canonical_bytes(value: Any) -> bytes:
    """The canonical encoding of an immutable spec value.

    >>> canonical_bytes(("QMA", 3, None, frozenset({"b", "a"})))
    b'(4s3:QMAi3;N<2s1:as1:b>)'
    """
    hit = _TOP.get(id(value))
    if hit is not None and hit[0] is value:
        return hit[1]
    out: list[str] = []
    _encode(value, out)
    data = "".join(out).encode("utf-8", "surrogatepass")
    if dataclasses.is_dataclass(value):
        if len(_TOP) >= _TOP_LIMIT:
            _TOP.clear()
        _TOP[id(value)] = (value, data)
    return data
