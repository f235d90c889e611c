"""A trace as the report shows it: the state after each step, what each step changed, and
the channel messages from send to delivery (docs/report-data.md, "Traces").

Input is a trace as plain data (``checker.model.Trace`` as JSON): ``steps[0].state`` is the
whole described state, later steps hold only the top-level keys that changed (``None``:
gone). The message arrows come from the ``in_flight`` key (``{"SRC->DST": [message, ...]}``,
each list a FIFO) and from each step's ``event`` (``{"kind": "deliver", "src", "dst"}``
marks the head of that channel as delivered). Without events, a step marked ``internal``
that removes the head of exactly one channel is taken as that delivery.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

MISSING = object()


@dataclass
class Change:
    """One leaf of the described state that a step added, changed or removed."""

    path: str
    kind: str  # "added" | "changed" | "removed"
    old: Any = None
    new: Any = None


@dataclass
class Message:
    """One channel message: sent at step ``sent`` (0: already in flight initially), then
    delivered at step ``delivered``, or dropped (moved away or discarded) at ``dropped``,
    or still in flight when the trace ends (both None)."""

    number: int
    src: str
    dst: str
    text: str
    sent: int
    delivered: int | None = None
    dropped: int | None = None
    kind: str = ""  # "repository", "proxy subscription", "publication", "application" (from the delivery event)


@dataclass
class Step:
    number: int
    action: str | None
    event: dict
    internal: bool | None
    state: dict  # the whole described state after the step
    changes: list[Change] = field(default_factory=list)


def flatten(value: Any, prefix: str = "") -> dict[str, Any]:
    """A nested dict as ``{dotted path: leaf}``; lists stay leaves (they are values: a
    repository's queue managers, a subscription's deliveries); an empty dict has no leaves
    (``in_flight`` going from ``{}`` to one channel is one addition, not two changes).

    >>> flatten({"a": {"b": 1, "c": [2]}, "d": {}})
    {'a.b': 1, 'a.c': [2]}
    """
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for key, item in value.items():
            out.update(flatten(item, f"{prefix}.{key}" if prefix else str(key)))
        return out
    return {prefix: value}


def leaf_changes(before: dict, after: dict) -> list[Change]:
    """Added/changed/removed leaves, in sorted path order.

    >>> [(c.path, c.kind) for c in leaf_changes({"a": {"x": 1, "y": 2}}, {"a": {"x": 1, "y": 3, "z": 0}})]
    [('a.y', 'changed'), ('a.z', 'added')]
    """
    old, new = flatten(before), flatten(after)
    changes = []
    for path in sorted(old.keys() | new.keys()):
        a, b = old.get(path, MISSING), new.get(path, MISSING)
        if a is MISSING:
            changes.append(Change(path, "added", None, b))
        elif b is MISSING:
            changes.append(Change(path, "removed", a, None))
        elif a != b:
            changes.append(Change(path, "changed", a, b))
    return changes


def states(trace: dict) -> list[Step]:
    """Each step with the whole state after it and its leaf-level changes."""
    out: list[Step] = []
    current: dict = {}
    for number, raw in enumerate(trace.get("steps") or []):
        raw = raw if isinstance(raw, dict) else {}
        delta = raw.get("state") if isinstance(raw.get("state"), dict) else {}
        before = current
        if number == 0:
            current = dict(delta)
        else:
            current = dict(current)
            for key, value in delta.items():
                if value is None:
                    current.pop(key, None)
                else:
                    current[key] = value
        event = raw.get("event") if isinstance(raw.get("event"), dict) else {}
        step = Step(number, raw.get("action"), event, raw.get("internal"), current)
        if number > 0:
            step.changes = leaf_changes(before, current)
        out.append(step)
    return out


def _fifo(state: dict) -> dict[str, list[str]]:
    flight = state.get("in_flight")
    if not isinstance(flight, dict):
        return {}
    return {str(ch): [m if isinstance(m, str) else json.dumps(m, sort_keys=True) for m in msgs]
            for ch, msgs in flight.items() if isinstance(msgs, list)}


def _ends(channel: str) -> tuple[str, str]:
    src, sep, dst = channel.partition("->")
    return (src, dst) if sep else (channel, channel)


def _delivered_channel(step: Step, before: dict[str, list[str]], after: dict[str, list[str]]) -> str | None:
    ev = step.event
    if ev.get("kind") == "deliver" and ev.get("src") is not None and ev.get("dst") is not None:
        return f"{ev['src']}->{ev['dst']}"
    if ev or step.internal is not True:
        return None
    heads = [ch for ch, msgs in before.items()
             if msgs and after.get(ch, []) != msgs and after.get(ch, [])[: len(msgs) - 1] == msgs[1:]]
    return heads[0] if len(heads) == 1 else None


def messages(steps: list[Step]) -> list[Message]:
    """Every channel message of the trace, numbered in order of sending (then channel)."""
    found: list[Message] = []
    queues: dict[str, list[Message]] = {}
    previous: dict[str, list[str]] = {}
    for step in steps:
        now = _fifo(step.state)
        if step.number == 0:
            for ch in sorted(now):
                for text in now[ch]:
                    src, dst = _ends(ch)
                    m = Message(len(found) + 1, src, dst, text, 0)
                    found.append(m)
                    queues.setdefault(ch, []).append(m)
            previous = now
            continue
        delivered = _delivered_channel(step, previous, now)
        for ch in sorted(previous.keys() | now.keys()):
            queue = queues.setdefault(ch, [])
            old, new = previous.get(ch, []), now.get(ch, [])
            if ch == delivered and queue:
                head = queue.pop(0)
                head.delivered = step.number
                head.kind = str(step.event.get("message_kind") or "")
                old = old[1:]
            kept = _kept(old, new)
            for m in queue[: len(old) - kept]:
                m.dropped = step.number
            del queue[: len(old) - kept]
            for text in new[kept:]:
                src, dst = _ends(ch)
                m = Message(len(found) + 1, src, dst, text, step.number)
                found.append(m)
                queue.append(m)
        previous = now
    return found


def _kept(old: list[str], new: list[str]) -> int:
    """How many of ``old``'s messages are still waiting: the longest tail of ``old`` that
    is a head of ``new`` (messages leave a FIFO at its head and join at its tail)."""
    for start in range(len(old) + 1):
        tail = old[start:]
        if new[: len(tail)] == tail:
            return len(tail)
    return 0  # pragma: no cover - the empty tail always matches
