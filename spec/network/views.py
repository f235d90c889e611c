"""What a property reads of a network state, as a key: judge a predicate once per view
(issue #17).

Exploring every interleaving visits many states that differ only in what is in flight. On
fr-mesh-broken with the joining explored, the first 60,000 states hold 7,781 distinct
tuples of queue managers and 45,222 distinct tuples of channels (benchmarks/RESULTS.md,
"#17 (round 9)"). Most properties judge the queue managers only — their caches, handles,
ghost decisions — and a predicate of those gives the same answer on every state that
shares them. A property declares what it reads (``Property.reads``) with these tags:

- :data:`QMGRS`: the queue managers (every field) and the network's scalars: the next
  scenario step, the clock, the fault budget, the queue managers a fault stopped, the
  channels a step holds, the uniform cluster's state;
- :data:`FLOW`: of each channel (and route entry) its ends, its status, and *whether* it
  holds messages — not which (``settled`` reads this much);
- :data:`LOGS`: the error log.

A property that reads channel messages declares nothing (``reads=None``, everything) and is
judged on every state. :func:`view_key` gives, for a set of tags, the function from a state
to the key of its view: two states with equal keys look the same to a predicate that reads
only those tags, so the checker may judge it once per key (``checker.model.Judge``). The
key is the 128-bit digest of those parts' canonical inline bytes (``spec.encoding``, found
by identity for the parts a successor shares with its parent): equal keys for different
views need two different encodings with one digest, as for the encoding itself.

A wrong declaration would make the checker reuse a verdict the predicate would not give.
tests/test_property_views.py judges every declared property of every bundled example on
each explored state and on a copy whose undeclared parts are replaced by values that fail
when read; ``mqcheck check --memo verify`` judges every cached verdict again.
"""

from __future__ import annotations

from hashlib import blake2b
from typing import Any, Callable

from spec.encoding import DIGEST_SIZE, inline_bytes
from spec.network.state import Channel, NetworkState

QMGRS = "qmgrs"
FLOW = "flow"
LOGS = "logs"
VIEWS = frozenset({QMGRS, FLOW, LOGS})


_DEFAULT_REST = ((), (), None)


def _qmgrs(state: NetworkState) -> bytes:
    # the queue managers' inline bytes delimit themselves; then the integer scalars; then
    # the others' inline bytes, left out (empty) when all three have their defaults
    rest = (state.stopped_by_fault, state.held_by_step, state.uniform)
    tail = b"" if rest == _DEFAULT_REST else b"".join([inline_bytes(x) for x in rest])
    return b"%s%d;%d;%d;%s" % (inline_bytes(state.qmgrs), state.next_step, state.clock, state.faults, tail)


_NAMES: dict[str, bytes] = {}


def _name(text: str) -> bytes:
    """A string's inline bytes (length-prefixed), by value: queue manager and channel names
    and statuses recur in every state."""
    data = _NAMES.get(text)
    if data is None:
        if len(_NAMES) >= 10_000:
            _NAMES.clear()
        data = _NAMES[text] = inline_bytes(text)
    return data


# A channel's flow, kept by identity (a successor shares most of its parent's channels); the
# entry keeps the channel alive, so its id is not reused while cached; cleared when full.
_FLOWS: dict[int, tuple[Channel, bytes]] = {}
_FLOWS_LIMIT = 8_192


def _flow(state: NetworkState) -> bytes:
    out = []
    flows = _FLOWS
    for c in state.channels:
        hit = flows.get(id(c))
        if hit is None or hit[0] is not c:
            data = b"%s%s%s%s" % (_name(c.src), _name(c.dst), _name(c.status), b"F" if c.messages else b"E")
            if len(flows) >= _FLOWS_LIMIT:
                flows.clear()
            flows[id(c)] = hit = (c, data)
        out.append(hit[1])
    return b"%d;%s" % (len(out), b"".join(out))


def _logs(state: NetworkState) -> bytes:
    return inline_bytes(state.logs)


_PARTS: tuple[tuple[str, Callable[[NetworkState], bytes]], ...] = ((QMGRS, _qmgrs), (FLOW, _flow), (LOGS, _logs))
_PART_OF = dict(_PARTS)
_LAST: list = [None, {}]   # the last state keyed and its parts (kept alive: `is` is safe)


def view_key(reads: frozenset[str] | None) -> Callable[[NetworkState], Any] | None:
    """The key of what a predicate reading ``reads`` sees of a state, or None when it may
    read more than the tags name (None, empty, or a tag not in :data:`VIEWS`).

    >>> from spec.network.state import Channel, NetworkState
    >>> key = view_key(frozenset({QMGRS, FLOW}))
    >>> a = NetworkState((), (Channel("A", "B", "RUNNING", ("m1",)),))
    >>> b = NetworkState((), (Channel("A", "B", "RUNNING", ("m2", "m3")),))
    >>> key(a) == key(b), key(a) == key(NetworkState((), (Channel("A", "B", "RUNNING"),)))
    (True, False)
    >>> view_key(None), view_key(frozenset({QMGRS, "settled"}))
    (None, None)
    """
    if not reads or not reads <= VIEWS:
        return None
    tags = tuple(tag for tag, _ in _PARTS if tag in reads)

    def key(state: NetworkState) -> bytes:
        if _LAST[0] is not state:   # the groups of one state share its parts
            _LAST[0], _LAST[1] = state, {}
        parts = _LAST[1]
        out = []
        for tag in tags:
            data = parts.get(tag)
            if data is None:
                data = parts[tag] = _PART_OF[tag](state)
            out.append(data)
        return blake2b(b"|".join(out), digest_size=DIGEST_SIZE).digest()

    return key


# What a property declares (``Property.reads``): the queue managers and scalars; with each
# channel's flow; with the error log too.
READS_QMGRS = frozenset({QMGRS})
READS_FLOW = frozenset({QMGRS, FLOW})
READS_LOGS = frozenset({QMGRS, FLOW, LOGS})


# A class of actions a property may declare its verdict stable under
# (``Property.stable_under``; docs/por.md, condition 1): a *landing* (``MQNetwork._lands``),
# the delivery of an application message on its first hop, in no logical group, that the
# receiving queue manager puts to a local queue or a cluster queue's local instance
# (``spec.network.workload.lands_locally``), at the queue manager its handle is bound to if
# it is bound, over a route whose status is INACTIVE or RUNNING. It takes the message off
# its channel and sets that route RUNNING (the same status class), adds one to the
# receiver's ``arrivals`` and to the putting handle's ``arrived`` ghost counter; nothing
# else (no log entry, no decision, no cache). ``MQNetwork.ample`` offers a reduced set of
# landings only while every checked invariant and witness that reads anything declares it.
LANDING = "landing"
STABLE_LANDING = frozenset({LANDING})
