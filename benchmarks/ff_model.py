"""FingerprintFlood: a flooding benchmark model with loop detection, defined exactly so that
its state counts can be compared with an independent implementation (e.g. Spin).

An undirected graph on nodes ``0..n-1`` — ``ring`` (edges {i, i+1 mod n}), ``complete``, or
``tree`` (heap-numbered binary tree, parent(i) = (i-1)//2, plus one extra edge between
nodes n-2 and n-1); edge sets are deduplicated and self-loops dropped. Every directed edge
u→v has a FIFO channel; a message is the bitmask of the nodes it has visited (the shape of
MQ's publication fingerprint list, 002 §How loop detection works).

State (a flat tuple of ints, so hashing and encoding are cheap):
``(published, delivered[0..n-1], queue[0..E-1])`` where channel ``c`` is the c-th directed
edge in sorted order and ``queue[c]`` packs its FIFO contents as base-2**n digits, head in
the low bits. Every mask contains node 0, so no digit is zero and the queue length is
``ceil(bit_length / n)``.

Actions (ints, in this order; ``successors(state)`` gives the same transitions in one
call, which the explorer uses when present — the naive baseline uses
``actions``/``next_state``): ``-1`` = PUBLISH (enabled once): published := 1,
delivered[0] += 1, append mask {0} to channel 0→w for each neighbour w of 0;
``c >= 0`` = RECEIVE on channel c = u→v (enabled when non-empty): pop the head mask m;
if v ∈ m discard it (loop detected); else delivered[v] += 1 and append m ∪ {v} to v→w for
every neighbour w ≠ u of v.

Properties: FF-CHANNEL-BOUND (always: no channel holds more than ``cap`` messages),
FF-PATH-COUNT (at quiescence: delivered[v] = number of simple paths 0→v, 1 for node 0),
FF-TERMINATION (eventually), and sometimes-witnesses for both.
"""

from __future__ import annotations

import pickle
import sys
from itertools import compress
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from checker.model import Property  # noqa: E402

TOPOLOGIES = ("ring", "complete", "tree")


def undirected_edges(topology: str, n: int) -> list[tuple[int, int]]:
    """Sorted, deduplicated undirected edges (u < v) of the named topology.

    >>> undirected_edges("ring", 2), undirected_edges("ring", 3)
    ([(0, 1)], [(0, 1), (0, 2), (1, 2)])
    >>> undirected_edges("tree", 5)
    [(0, 1), (0, 2), (1, 3), (1, 4), (3, 4)]
    """
    if n < 2:
        raise ValueError(f"FingerprintFlood needs at least 2 nodes, got n={n}")
    if topology == "ring":
        pairs = [(i, (i + 1) % n) for i in range(n)]
    elif topology == "complete":
        pairs = [(i, j) for i in range(n) for j in range(i + 1, n)]
    elif topology == "tree":
        pairs = [(i, (i - 1) // 2) for i in range(1, n)] + [(n - 2, n - 1)]
    else:
        raise ValueError(f"unknown topology {topology!r}; expected one of {', '.join(TOPOLOGIES)}")
    return sorted({(min(u, v), max(u, v)) for u, v in pairs if u != v})


def simple_path_counts(n: int, edges: list[tuple[int, int]]) -> tuple[int, ...]:
    """Number of simple paths from node 0 to each node (1 for node 0 itself).

    >>> simple_path_counts(3, undirected_edges("ring", 3))
    (1, 2, 2)
    """
    adj = {v: [] for v in range(n)}
    for u, v in edges:
        adj[u].append(v)
        adj[v].append(u)
    counts = [0] * n

    def walk(v: int, seen: int) -> None:
        counts[v] += 1
        for w in adj[v]:
            if not seen >> w & 1:
                walk(w, seen | 1 << w)

    walk(0, 1)
    return tuple(counts)


def _channel_bound(model: "FingerprintFlood", state: tuple) -> bool:
    # every digit is non-zero, so len(queue) <= cap  <=>  queue < 2**(cap*n)
    return max(state[model.qoff:]) < model.bound


def _some_channel_busy(model: "FingerprintFlood", state: tuple) -> bool:
    return any(state[model.qoff:])


def _paths_counted(model: "FingerprintFlood", state: tuple) -> bool:
    return state[1:model.qoff] == model.paths


def _settled(model: "FingerprintFlood", state: tuple) -> bool:
    return state[0] == 1 and not any(state[model.qoff:])


class FingerprintFlood:
    """FF(topology, n, cap): see the module docstring. Implements ``checker.model.Model``."""

    def __init__(self, topology: str, n: int, cap: int = 4) -> None:
        self.topology, self.n, self.cap = topology, n, cap
        self.name = f"FF({topology},{n})" + ("" if cap == 4 else f" cap={cap}")
        edges = undirected_edges(topology, n)
        self.paths = simple_path_counts(n, edges)
        self.channels = sorted([(u, v) for u, v in edges] + [(v, u) for u, v in edges])
        index = {ch: i for i, ch in enumerate(self.channels)}
        neighbours = {v: sorted(w for u, w in self.channels if u == v) for v in range(n)}
        self.qoff = 1 + n
        # per channel c = u->v: (state slot of the queue, v, v's bit, and the state slots of
        # the queues v->w for w != u) — precomputed so next_state is a few tuple operations
        self._recv = [
            (self.qoff + c, v, 1 << v, tuple(self.qoff + index[(v, w)] for w in neighbours[v] if w != u))
            for c, (u, v) in enumerate(self.channels)
        ]
        self._publish_slots = tuple(self.qoff + index[(0, w)] for w in neighbours[0])
        self._digit = (1 << n) - 1
        self.bound = 1 << (cap * n)
        self._chan_range = range(len(self.channels))

    # ----- Model protocol
    def init_states(self) -> list[tuple]:
        return [(0,) * (1 + self.n + len(self.channels))]

    def actions(self, state: tuple) -> list[int]:
        acts = [] if state[0] else [-1]
        acts.extend(compress(self._chan_range, state[self.qoff:]))   # the non-empty channels
        return acts

    def next_state(self, state: tuple, action: int) -> tuple | None:
        if action < 0:
            if state[0]:
                return None
            return self._publish(state)
        slot, v, vbit, out = self._recv[action]
        if not state[slot]:
            return None
        return self._receive(state, slot, v, vbit, out)

    def successors(self, state: tuple) -> list[tuple[int, tuple]]:
        """Optional batched form of ``actions``/``next_state`` (checker.model): the
        ``(position in actions(state), next state)`` pairs, in that order. Same states;
        ``_receive`` inlined (this is the explorer's hot loop)."""
        out = [] if state[0] else [(0, self._publish(state))]
        ai = len(out)
        recv, n, digit = self._recv, self.n, self._digit
        for c in compress(self._chan_range, state[self.qoff:]):
            slot, v, vbit, outs = recv[c]
            q = state[slot]
            m = q & digit
            if m & vbit:   # loop detected: only the head is dropped
                out.append((ai, state[:slot] + (q >> n,) + state[slot + 1:]))
            else:
                s = list(state)
                s[slot] = q >> n
                s[1 + v] += 1
                m |= vbit
                for o in outs:
                    q = s[o]
                    s[o] = q | m << (-(-q.bit_length() // n) * n)   # _push, inlined
                out.append((ai, tuple(s)))
            ai += 1
        return out

    def _publish(self, state: tuple) -> tuple:
        s = list(state)
        s[0] = 1
        s[1] += 1
        for slot in self._publish_slots:
            s[slot] = self._push(s[slot], 1)
        return tuple(s)

    def _receive(self, state: tuple, slot: int, v: int, vbit: int, out: tuple) -> tuple:
        n = self.n
        q = state[slot]
        m = q & self._digit
        if m & vbit:   # loop detected: only the head is dropped
            return state[:slot] + (q >> n,) + state[slot + 1:]
        s = list(state)
        s[slot] = q >> n
        s[1 + v] += 1
        m |= vbit
        for o in out:
            q = s[o]
            s[o] = q | m << (-(-q.bit_length() // n) * n)   # _push, inlined
        return tuple(s)

    def properties(self) -> list[Property]:
        cite = "benchmark model (flooding with loop detection, after 002 §How loop detection works)"
        return [
            Property.always("FF-CHANNEL-BOUND", f"no channel holds more than {self.cap} messages",
                            _channel_bound, citation=cite, witness="FF-CHANNEL-BUSY"),
            Property.sometimes("FF-CHANNEL-BUSY", "some message is in flight", _some_channel_busy,
                               citation=cite),
            Property.at_quiescence("FF-PATH-COUNT",
                                   "at quiescence every node got one copy per simple path from node 0",
                                   _paths_counted, citation=cite, witness="FF-SETTLED"),
            Property.sometimes("FF-SETTLED", "the flood settles after the publication", _settled,
                               citation=cite),
            Property.eventually("FF-TERMINATION", "every flood ends (no cycle of deliveries)",
                                citation=cite),
        ]

    def encode(self, state: tuple) -> bytes:
        # A flat tuple of ints pickles canonically: int opcodes depend only on the value and
        # there are no shared sub-objects for the memo to refer to.
        return pickle.dumps(state, 4)

    # ----- optional
    def describe_action(self, action: int) -> str:
        if action < 0:
            return "PUBLISH"
        u, v = self.channels[action]
        return f"RECEIVE({u}->{v})"

    def describe_state(self, state: tuple) -> dict:
        d = {"published": bool(state[0]), "delivered": list(state[1:self.qoff])}
        for c, (u, v) in enumerate(self.channels):
            d[f"{u}->{v}"] = [sorted(b for b in range(self.n) if m >> b & 1) for m in self.unpack(state[self.qoff + c])]
        return d

    # ----- queue packing
    def _push(self, q: int, m: int) -> int:
        n = self.n
        return q | m << (-(-q.bit_length() // n) * n)

    def queue_len(self, q: int) -> int:
        return -(-q.bit_length() // self.n)

    def unpack(self, q: int) -> list[int]:
        out = []
        while q:
            out.append(q & self._digit)
            q >>= self.n
        return out
