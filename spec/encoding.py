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


def _fields(cls: type) -> tuple[str, ...]:
    names = _FIELDS.get(cls)
    if names is None:
        names = tuple(f.name for f in dataclasses.fields(cls))
        _FIELDS[cls] = names
    return names


def _encode(value: Any, out: list[str]) -> None:
    if isinstance(value, str):
        out.append(f"s{len(value)}:")
        out.append(value)
    elif value is None:
        out.append("N")
    elif value is True:
        out.append("T")
    elif value is False:
        out.append("F")
    elif isinstance(value, int):
        out.append(f"i{value};")
    elif isinstance(value, tuple):
        out.append(f"({len(value)}")
        for item in value:
            _encode(item, out)
        out.append(")")
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        cls = type(value)
        out.append(f"D{cls.__name__}{{")
        for name in _fields(cls):
            _encode(getattr(value, name), out)
        out.append("}")
    elif isinstance(value, frozenset):
        members = sorted(canonical_bytes(item) for item in value)
        out.append(f"<{len(members)}")
        out.extend(m.decode("utf-8", "surrogatepass") for m in members)
        out.append(">")
    else:
        raise TypeError(f"cannot encode {type(value).__name__} canonically: states hold only immutable values")


def canonical_bytes(value: Any) -> bytes:
    """The canonical encoding of an immutable spec value.

    >>> canonical_bytes(("QMA", 3, None, frozenset({"b", "a"})))
    b'(4s3:QMAi3;N<2s1:as1:b>)'
    """
    out: list[str] = []
    _encode(value, out)
    return "".join(out).encode("utf-8", "surrogatepass")
