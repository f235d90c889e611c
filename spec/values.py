"""Updating frozen spec values: ``replace(obj, **changes)``, the same result as
``dataclasses.replace`` at a fraction of its cost (issue #17).

Every successor state is built by replacing a few fields of the parent's frozen dataclasses
(a state, one queue manager, its cluster cache, a channel): a few replaces per successor,
hundreds of thousands per run. ``dataclasses.replace`` walks the class's field objects on
every call and calls the constructor with keyword arguments; here the constructor's field
names are read once per class, the current values are fetched by one ``attrgetter`` call and
the constructor is called positionally. The constructor still runs (``__post_init__``
checks included), and fields declared ``init=False`` (a cached encoding) start again from
their defaults, exactly as with ``dataclasses.replace``.

>>> from dataclasses import dataclass
>>> @dataclass(frozen=True)
... class P:
...     x: int
...     y: int = 0
>>> replace(P(1, 2), y=5)
P(x=1, y=5)
>>> replace(P(1), z=3)
Traceback (most recent call last):
TypeError: P has no field 'z' to replace

Spec values are declared with ``@value``: ``@dataclass(frozen=True, slots=True)`` with a
constructor that sets each slot through its descriptor instead of ``object.__setattr__``
by name (two to three times as fast on a queue manager's 14 fields; 2-9% of a whole
exploration, where every successor builds several new parts: benchmarks/RESULTS.md,
"#17 (round 6)"). It takes the same arguments, sets the same fields (``init=False`` ones
to their defaults) and runs ``__post_init__`` last, as the constructor ``dataclasses``
writes does; that one stays on the class as ``__dataclass_init__`` and tests compare the
two.

>>> @value
... class Q:
...     name: str
...     depth: int = 0
>>> Q("A"), Q("A", depth=2) == Q(name="A", depth=2), replace(Q("A"), depth=1)
(Q(name='A', depth=0), True, Q(name='A', depth=1))
>>> Q("A").depth = 3
Traceback (most recent call last):
dataclasses.FrozenInstanceError: cannot assign to field 'depth'
"""

from __future__ import annotations

import dataclasses
from operator import attrgetter
from typing import Any, Callable, TypeVar

T = TypeVar("T")

# per class: (fetch every constructor argument, name -> position)
_PLANS: dict[type, tuple[Callable[[Any], Any], dict[str, int]]] = {}


def _plan(cls: type) -> tuple[Callable[[Any], Any], dict[str, int]]:
    names = [f.name for f in dataclasses.fields(cls) if f.init]
    if any(f.kw_only for f in dataclasses.fields(cls) if f.init):
        raise TypeError(f"{cls.__name__} has keyword-only fields: use dataclasses.replace")
    if len(names) == 1:
        one = attrgetter(names[0])
        fetch: Callable[[Any], Any] = lambda obj: (one(obj),)  # noqa: E731 - a one-field class
    else:
        fetch = attrgetter(*names) if names else (lambda obj: ())
    plan = (fetch, {name: i for i, name in enumerate(names)})
    _PLANS[cls] = plan
    return plan


def replace(obj: T, /, **changes: Any) -> T:
    """``obj`` with ``changes`` applied: a new instance of its (frozen dataclass) class."""
    cls = type(obj)
    plan = _PLANS.get(cls) or _plan(cls)
    values = list(plan[0](obj))
    index = plan[1]
    for name, value in changes.items():
        position = index.get(name)
        if position is None:
            raise TypeError(f"{cls.__name__} has no field {name!r} to replace")
        values[position] = value
    return cls(*values)


def value(cls: Any = None, /, **options: Any) -> Any:
    """``@dataclass(frozen=True, slots=True, **options)``, with the faster constructor
    described in the module docstring. ``@value`` or ``@value(order=True)``."""
    def wrap(c: type) -> type:
        c = dataclasses.dataclass(frozen=True, slots=True, **options)(c)
        _fast_init(c)
        _fast_pickle(c)
        return c
    return wrap if cls is None else wrap(cls)


def _fast_pickle(cls: type) -> None:
    """Give ``cls`` (a frozen dataclass with slots) the pickle state ``dataclasses`` gives
    it — every field's value, in field order, ``init=False`` ones (cached encodings)
    included — without walking ``dataclasses.fields`` on every object. The Spark backend
    pickles every state it ships; with the generated pair, two thirds of an executor's
    (un)pickling time went to ``fields()`` (benchmarks/RESULTS.md, "#17 (round 10)").
    A state pickled by either pair loads with the other."""
    names = [f.name for f in dataclasses.fields(cls)]
    if not names:
        return
    if len(names) == 1:
        one = attrgetter(names[0])
        get: Callable[[Any], Any] = lambda obj: (one(obj),)  # noqa: E731 - a one-field class
    else:
        get = attrgetter(*names)
    setters = tuple(cls.__dict__[name].__set__ for name in names)

    def __getstate__(self: Any) -> tuple:
        return get(self)

    def __setstate__(self: Any, state: Any) -> None:
        for put, item in zip(setters, state):
            put(self, item)

    for fn in (__getstate__, __setstate__):
        fn.__qualname__ = f"{cls.__qualname__}.{fn.__name__}"
        fn.__module__ = cls.__module__
        setattr(cls, fn.__name__, fn)


def _fast_init(cls: type) -> None:
    """Give ``cls`` (a frozen dataclass with slots) a constructor that sets its slots
    through their member descriptors. The source is generated from the class's own field
    names, like the one ``dataclasses`` generates; a class with a default factory or
    keyword-only fields keeps the generated one."""
    fields = dataclasses.fields(cls)
    if any(f.default_factory is not dataclasses.MISSING or f.kw_only for f in fields):
        return
    ns: dict[str, Any] = {}
    params, body = [], []
    for i, f in enumerate(fields):
        ns[f"_set{i}_"] = cls.__dict__[f.name].__set__
        if f.default is not dataclasses.MISSING:
            ns[f"_default{i}_"] = f.default
        if f.init:
            params.append(f.name if f.default is dataclasses.MISSING else f"{f.name}=_default{i}_")
            body.append(f"_set{i}_(self, {f.name})")
        elif f.default is not dataclasses.MISSING:
            body.append(f"_set{i}_(self, _default{i}_)")
    if hasattr(cls, "__post_init__"):
        body.append("self.__post_init__()")
    source = f"def __init__(self, {', '.join(params)}):\n    " + "\n    ".join(body or ["pass"]) + "\n"
    exec(source, ns)  # noqa: S102 - our own field names, as dataclasses itself does
    init = ns["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__module__ = cls.__module__
    cls.__dataclass_init__ = cls.__init__
    cls.__init__ = init
