"""The shape of result data, checked before anything is rendered (docs/report-data.md).

One small schema walk over the fields the renderer reads in a way that needs a type —
iterating, looking up keys, taking numbers — so well-formed JSON of the wrong shape is a
:class:`ReportDataError` naming the JSON path of the bad value, what was expected and what
was found (``deliveries: expected an object, found an array``), never an exception from
deep inside a view. Fields the renderer only shows as text are not constrained; unknown
fields are allowed.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any


class ReportDataError(ValueError):
    """The data handed to the report is not result data of the documented shape."""


MAX_DEPTH = 200  # arrays/objects nested deeper than this are refused (real results nest < 20)
MAX_EXACT_INT = 2**53  # counts the report does arithmetic on stay exact as floats


def found(value: Any) -> str:
    """What a JSON value is, for error messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, (int, float)):
        return "a number" if _finite(value) else f"the number {value!r}"
    return type(value).__name__  # pragma: no cover - json never produces anything else


def _finite(value: Any) -> bool:
    return isinstance(value, int) or math.isfinite(value)


@dataclass(frozen=True)
class Shape:
    """What one value must be: ``kind`` is ``any``, ``object``, ``map``, ``array``, ``string``,
    ``boolean``, ``number`` or ``count`` (a whole number, zero or more); ``fields`` the object's checked fields; ``item`` a map's values or an
    array's items; ``null`` whether null is allowed too."""

    kind: str
    fields: dict = field(default_factory=dict)
    item: Shape | None = None
    null: bool = False

    def expected(self) -> str:
        what = {"object": "an object", "map": "an object", "array": "an array", "string": "a string",
                "boolean": "true or false", "number": "a number", "count": "a whole number (0 or more)"}[self.kind]
        return what + (" or null" if self.null else "")

    def accepts(self, value: Any) -> bool:
        if value is None:
            return self.null or self.kind == "any"
        if self.kind == "any":
            return True
        if self.kind in ("object", "map"):
            return isinstance(value, dict)
        if self.kind == "array":
            return isinstance(value, list)
        if self.kind == "string":
            return isinstance(value, str)
        if self.kind == "boolean":
            return isinstance(value, bool)
        if self.kind == "count" and not (isinstance(value, int) and value >= 0):
            return False
        return isinstance(value, (int, float)) and not isinstance(value, bool) and _finite(value) \
            and abs(value) <= MAX_EXACT_INT


ANY = Shape("any")
STRING = Shape("string")
NUMBER = Shape("number")
BOOLEAN = Shape("boolean")
COUNT = Shape("count")


def obj(**fields: Shape) -> Shape:
    return Shape("object", fields)


def mapping(item: Shape = ANY) -> Shape:
    return Shape("map", item=item)


def array(item: Shape = ANY) -> Shape:
    return Shape("array", item=item)


def nullable(shape: Shape) -> Shape:
    return Shape(shape.kind, shape.fields, shape.item, null=True)


# ------------------------------------------------------------------------------ the schema
TRACE = obj(steps=array(obj(state=nullable(obj()), event=nullable(obj()))), loop_start=nullable(COUNT))
# what a verdict's line is made of (reports.render.verdict_text): a status that is text, a
# flag that is a flag, counts that are counts ("vacuous": "no" must not read as VACUOUS)
VERDICT = obj(trace=nullable(TRACE), status=STRING, vacuous=nullable(BOOLEAN), distinct_states=nullable(COUNT),
              depth=nullable(COUNT))
BARS = array(obj(value=nullable(NUMBER), reference=nullable(NUMBER)))
TOPOLOGY = obj(qmgrs=array(obj(full_repository_for=nullable(array()))),
               clusters=array(obj(members=nullable(array()))),
               channels=array(obj()))

# every section: what the heading, summary, charts, verdicts and traces read
COMMON = {
    "statistics": obj(collision_probability=NUMBER, complete=BOOLEAN, distinct_states=COUNT,
                      generated_states=COUNT, max_depth=COUNT, seconds=NUMBER, fingerprint_bits=COUNT,
                      levels=array(COUNT), reduced=COUNT),
    "verdicts": mapping(VERDICT),
    "evidence": mapping(STRING),
    "topology": TOPOLOGY,
    "workload": mapping(nullable(obj(destinations=nullable(array(nullable(obj(
        messages=nullable(COUNT), weight=nullable(COUNT)))))))),
    "coverage": mapping(),
    "charts": array(obj(bars=BARS)),
}

# what a command's own view reads, besides the common fields
BY_COMMAND = {
    "run": {
        "deliveries": mapping(mapping(array())),
        "messages": mapping(mapping(NUMBER)),
        "errors": array(obj()),
        "expectations": array(obj(failures=nullable(array()), ok=BOOLEAN)),
        "repositories": mapping(mapping(obj(qmgrs=nullable(array()), queues=nullable(mapping(array())),
                                            topics=nullable(array()), suspended=nullable(array())))),
        "explanations": array(obj(rules=nullable(array()))),
        "not_joined": array(obj()),
        "unmodelled": array(),
    },
    "prove": {"claims": array(obj(facts=nullable(array()), vacuous=nullable(BOOLEAN))),
              "reachability": obj(level_names=nullable(array()), pairs=nullable(array(obj(rows=nullable(array(obj()))))))},
    "lint": {
        "files": array(),
        "findings": array(obj(related=nullable(array(obj())))),
        "counts": mapping(),
        "disabled": mapping(),
    },
    "fuzz": {
        "complete": BOOLEAN,
        "properties": mapping(obj(checked=nullable(NUMBER), exercised=nullable(NUMBER),
                                  violated=nullable(NUMBER), excused=nullable(NUMBER))),
        "counterexamples": array(obj(trace=nullable(array()))),
    },
}


def check(data: dict, command: str) -> None:
    """Raise :class:`ReportDataError` unless ``data`` (one section, of ``command``) has the
    shape the renderer reads.

    >>> check({"command": "run", "deliveries": [1, 2]}, "run")
    Traceback (most recent call last):
    ...
    reports.schema.ReportDataError: deliveries: expected an object, found an array
    >>> check({"command": "check", "verdicts": {"P": {"trace": {"steps": [{"state": 3}]}}}}, "check")
    Traceback (most recent call last):
    ...
    reports.schema.ReportDataError: verdicts.P.trace.steps[0].state: expected an object or null, found a number
    """
    _check_depth(data)
    _walk(data, obj(**COMMON, **BY_COMMAND.get(command, {})), "")
    verdicts = data.get("verdicts") or {}
    for pid, verdict in verdicts.items():   # a lasso's cycle starts at one of its steps
        trace = verdict.get("trace") if isinstance(verdict, dict) else None
        if isinstance(trace, dict) and trace.get("loop_start") is not None:
            last = len(trace.get("steps") or []) - 1
            if trace["loop_start"] > last:
                raise ReportDataError(f"{_join(_join('verdicts', pid), 'trace')}.loop_start: expected the index of "
                                      f"one of the trace's steps (0 to {last}), found {trace['loop_start']}")


def _walk(value: Any, shape: Shape, path: str) -> None:
    if shape.kind == "any" or (value is None and shape.null):
        return
    if not shape.accepts(value):
        what = shape.expected()
        if shape.kind == "number" and isinstance(value, (int, float)) and not isinstance(value, bool):
            what = f"a number of at most {MAX_EXACT_INT:,} in size"
        seen = found(value)
        if shape.kind == "count" and isinstance(value, (int, float)) and not isinstance(value, bool) and _finite(value):
            seen = repr(value)   # a count that is negative or fractional: say which
        raise ReportDataError(f"{path or 'the data'}: expected {what}, found {seen}")
    if shape.kind == "object":
        for key, sub in shape.fields.items():
            if key in value:
                _walk(value[key], sub, _join(path, key))
    elif shape.kind == "map" and shape.item is not None and shape.item.kind != "any":
        for key, item in value.items():
            _walk(item, shape.item, _join(path, key))
    elif shape.kind == "array" and shape.item is not None and shape.item.kind != "any":
        for i, item in enumerate(value):
            _walk(item, shape.item, f"{path}[{i}]")


_PLAIN_KEY = re.compile(r"[A-Za-z0-9_\-]+")


def _join(path: str, key: str) -> str:
    part = key if _PLAIN_KEY.fullmatch(key) else f"[{_quote(key)}]"
    return part if not path else f"{path}{part}" if part.startswith("[") else f"{path}.{part}"


def _quote(key: str) -> str:
    import json

    return json.dumps(key, ensure_ascii=False)


def _check_depth(data: Any) -> None:
    """Arrays and objects nested more than :data:`MAX_DEPTH` deep are refused (the views
    walk the data recursively), found without recursion."""
    stack = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise ReportDataError(f"arrays and objects nested more than {MAX_DEPTH} levels deep")
        if isinstance(value, dict):
            stack.extend((v, depth + 1) for v in value.values())
        elif isinstance(value, list):
            stack.extend((v, depth + 1) for v in value)
