"""Lookup tables for tuples of named objects, memoised by identity.

Spec values are immutable tuples, so finding an object by name (or a topic object by its
topic string) in one is a scan, and defining n objects one after another, each checked
against the ones before it, costs n^2. :func:`table` keeps, for recently used tuples, a
dict from a key to the first object with that key, so a lookup costs O(1); a tuple made
by adding one object to another takes over its table (updated, not copied) through
:func:`handed_over`, so loading 10^4 definitions costs O(n).

The tables change how fast an answer comes, never what it is: a lookup returns what a scan
of the tuple in order would (the first object with the key), whether the table was built
now, handed over, or dropped and rebuilt. Like :mod:`spec.encoding`'s memo they are
keyed by ``id()`` and hold the tuple itself, so an id cannot be reused while cached.
"""

from __future__ import annotations

from operator import attrgetter

__all__ = ["table", "handed_over", "first"]

_TABLES: dict[tuple[int, str], tuple[tuple, dict]] = {}
_LIMIT = 512


def _store(objects: tuple, field: str, found: dict) -> None:
    if len(_TABLES) >= _LIMIT:
        _TABLES.clear()
    _TABLES[(id(objects), field)] = (objects, found)


def table(objects: tuple, field: str) -> dict:
    """``{key: first object with that key}`` for the objects' attribute ``field``.

    >>> from collections import namedtuple
    >>> T = namedtuple("T", "name n")
    >>> objs = (T("A", 1), T("B", 2), T("A", 3))
    >>> table(objs, "name")["A"].n
    1
    """
    hit = _TABLES.get((id(objects), field))
    if hit is not None and hit[0] is objects:
        return hit[1]
    get = attrgetter(field)
    found: dict = {}
    for obj in objects:
        found.setdefault(get(obj), obj)
    _store(objects, field, found)
    return found


def first(objects: tuple, field: str, key):
    """The first object of ``objects`` whose ``field`` is ``key``, or None (a scan's answer)."""
    return table(objects, field).get(key)


def handed_over(old: tuple, new: tuple, field: str, added, replaced=None) -> tuple:
    """``new`` (``old`` with ``added`` put in, replacing ``replaced`` if given), taking over
    ``old``'s table when the answer of a scan is sure to be the same: ``added``'s key was
    free, or it is ``replaced``'s key and ``replaced`` was that key's object. Otherwise the
    table is dropped and rebuilt on the next lookup. Returns ``new``.

    >>> from collections import namedtuple
    >>> T = namedtuple("T", "name n")
    >>> a = (T("A", 1),)
    >>> _ = table(a, "name")
    >>> b = handed_over(a, a + (T("B", 2),), "name", T("B", 2))
    >>> sorted(table(b, "name"))
    ['A', 'B']
    """
    hit = _TABLES.pop((id(old), field), None)
    if hit is None or hit[0] is not old:
        return new
    found = hit[1]
    key = getattr(added, field)
    if replaced is not None:
        if getattr(replaced, field) != key or found.get(key) is not replaced:
            return new
        found[key] = added
    elif key in found:
        return new
    else:
        found[key] = added
    _store(new, field, found)
    return new
