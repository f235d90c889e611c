"""The delivery memo: a channel delivery computed once per local situation (issue #17).

A delivery is the receiving queue manager's business. What it reads is that queue
manager, the message, the channels *from* it (their statuses, and their messages when it
re-drives them), and of the other queue managers only what an administrator could see from
outside: that they exist, their definitions (CONNAMEs, PARENT, PSMODE), whether they run,
their incarnation, and the handles of the application that opened a queue (an arrival is
counted with its handle: ``workload._arrive``). It writes that queue manager, the channels
from it, the error log, and an opener's handles.

Exploring every interleaving visits the same local situation in many global states: on
fr-mesh-broken with the joining explored, the first 15,000 states made 46,640 deliveries
from 4,105 distinct local situations (benchmarks/RESULTS.md, "#17 (round 8)"). LTSmin calls
this transition caching over a dependency matrix; here the dependency is the *projection*
below, and the cached result is a *delta* that is replayed on the next global state with
the same projection.

- :meth:`DeliveryMemo.project` keeps the receiving queue manager whole; every other queue
  manager keeps ``name``, ``defs``, ``incarnation``, ``running`` and ``handles`` (its other
  fields are set to their defaults); only the channels from the receiving queue manager are kept,
  whole; the error log is empty; the scalars (step, clock, faults, stopped and held
  channels) are kept.
- A delta is what the delivery did to the projection: the receiving queue manager's new
  value, the changed kept fields of the others, the new channels from the receiving queue
  manager, the log entries added, and the new scalars. A delivery that changes anything else
  of the projection (a field it was not given, a channel of another queue manager) cannot
  be replayed; it is computed in full each time (``DIRECT``).
- A local situation met the first time is computed and only its key remembered (where few
  situations repeat, learning each would cost more than it saves). **On the second visit
  the delta is learnt and checked against the specification**: the delivery is computed on
  the real state and on the projection, and the delta is kept only if replaying it gives
  the real result, byte for byte (canonical encoding). Later visits replay it. ``verify``
  recomputes every replay as well (tests run every bundled example that way:
  tests/test_delivery_memo.py).
- Where almost nothing repeats (fewer than 1 in 20 of the last ``WINDOW`` deliveries were
  replays), the memo rests for four windows: those deliveries are computed in full, with no key.

The memo changes how fast a successor is produced, never what it is: the same states, the
same encodings, the same fingerprints. It is bounded (cleared when full) and not shipped
with a pickled model: an unpickled one (a Spark task) uses its process's
(:func:`executor_memo`). The key needs every other queue manager as the projection shows
it; that part is kept on the queue manager object (its ``_outside`` slot, like the
encoding's ``_digest``), so it is computed once per object.

An MQSC scenario step is memoised the same way (``MQNetwork.next_state``), with the step
itself in the key's place of the message. runmqsc at one queue manager reads and writes
what a delivery there does: its definitions, caches and publish/subscribe state, the
channels from it, and of the others what the projection keeps (``apply_mqsc``,
``publish_own``). After a step every queue manager is reconciled (``pubsub_after_step``),
which for the others is a no-op: every transition reconciles each queue manager whose
demand or neighbours it may have changed, and a step at one queue manager changes neither
for another unless it alters the queue manager itself (PARENT, PSMODE), so steps with
ALTER QMGR are not memoised. (Reconciling includes processing the messages a queue manager
left unprocessed under PSMODE(DISABLED), ``pubsub.process_backlog``: only one whose PSMODE is
no longer DISABLED does that, and only ALTER QMGR changes PSMODE.) runmqsc ends with every queue manager retrying the JOINs its
manual CLUSSDRs could not send (``retry_joins``): a CLUSRCVR the step defines may be the
listener another queue manager's CONNAME names, and whether that one has sent its JOIN is
in its caches, which the key leaves out. So a step is memoised only while no other running
queue manager has a JOIN unsent (``model._joins_unsent``). On fr-mesh-broken with the joining explored, the first
40,000 states took its two steps 8,591 times, from 24 local situations; a step there cost
about ten deliveries, since it publishes the queue manager's records anew. Other steps are
not memoised: an application's puts and publications carry serial numbers, so their
situations rarely repeat.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable

from spec.encoding import canonical_bytes, inline_bytes
from spec.network.state import NetworkState, QmgrState, add_log
from spec.pubsub import LocalPubSub
from spec.values import replace

KEPT = frozenset({"name", "defs", "incarnation", "running", "handles"})  # of the other queue managers
DIRECT = None  # a local situation whose delivery is always computed in full
MEMO_LIMIT = 40_000   # entries; cleared when full (like spec.encoding's memo)
# Where fewer than 1 in 20 of the last WINDOW deliveries were replays (application messages
# carry serial numbers: a cluster queue's puts rarely repeat a situation), the memo rests
# for the next 4 * WINDOW deliveries, which are computed in full without a key, then looks
# again. It changes how fast, never what: a delivery is the same either way.
WINDOW = 5_000


class MemoMismatch(AssertionError):
    """``verify``: a replayed delta differs from the specification's transition."""


class DeliveryMemo:
    """Deltas of deliveries by local situation. ``mode`` is ``"on"`` or ``"verify"``."""

    def __init__(self, mode: str = "on") -> None:
        if mode not in ("on", "verify"):
            raise ValueError(f"delivery memo mode {mode!r}: expected 'on' or 'verify'")
        self.mode = mode
        self._deltas: dict[tuple, Any] = {}
        self._empty = LocalPubSub()
        self.hits = self.misses = self.learnt = self.direct = self.rests = 0
        self._window = self._window_hits = self._resting = 0

    # --- the projection -------------------------------------------------------------
    def _strip(self, q: QmgrState) -> QmgrState:
        """What a delivery at another queue manager may read of ``q``."""
        return QmgrState(q.name, q.defs, self._empty, incarnation=q.incarnation, running=q.running,
                         handles=q.handles)

    def _outside(self, q: QmgrState) -> bytes:
        """The inline bytes of ``q`` stripped, kept on ``q`` (its ``_outside`` slot)."""
        data = q._outside
        if data is None:
            data = inline_bytes(self._strip(q))
            object.__setattr__(q, "_outside", data)
        return data

    def project(self, state: NetworkState, dst: str) -> NetworkState:
        """What a delivery at ``dst`` may read of ``state`` (module docstring)."""
        return NetworkState(
            tuple(q if q.name == dst else self._strip(q) for q in state.qmgrs),
            tuple(c for c in state.channels if c.src == dst),
            state.next_step, (), state.clock, state.faults, state.stopped_by_fault, state.held_by_step,
            state.uniform)

    def key(self, state: NetworkState, dst: str, msg: Any) -> tuple:
        """The projection and the message, as the inline bytes of their parts: equal keys
        exactly when the projections and messages encode alike, without encoding the
        projection as a whole."""
        return (inline_bytes(msg), state.next_step, state.clock, state.faults, state.stopped_by_fault,
                state.held_by_step,
                *(inline_bytes(q) if q.name == dst else self._outside(q) for q in state.qmgrs),
                *(inline_bytes(c) for c in state.channels if c.src == dst))

    # --- delivering -----------------------------------------------------------------
    def deliver(self, state: NetworkState, dst: str, msg: Any,
                process: Callable[[NetworkState], NetworkState | None]) -> NetworkState | None:
        """``process(state)`` — the delivery of ``msg`` at ``dst``, the head already taken
        off its channel — from the memo when this local situation was seen before."""
        if state.uniform is not None:   # the uniform-cluster protocol reads every member
            return process(state)
        if self._resting:                # few replays lately: not worth the keys (WINDOW)
            self._resting -= 1
            return process(state)
        self._window += 1
        if self._window >= WINDOW:
            if self._window_hits * 20 < WINDOW:
                self._resting, self.rests = 4 * WINDOW, self.rests + 1
            self._window = self._window_hits = 0
        key = self.key(state, dst, msg)
        delta = self._deltas.get(key, _MISSING)
        if delta is _MISSING:   # the first visit: computed, and only the key remembered
            self.misses += 1
            if len(self._deltas) >= MEMO_LIMIT:
                self._deltas.clear()
            self._deltas[key] = _SEEN
            return process(state)
        if delta is _SEEN:      # the second: the delta is learnt and checked against the transition
            self.learnt += 1
            real = process(state)
            proj = self.project(state, dst)
            try:
                on_projection = process(proj)
            except Exception:  # noqa: BLE001 - it needed what the projection leaves out: not replayable
                on_projection = None
            delta = _delta(proj, on_projection, dst)
            if delta is not DIRECT and (real is None or
                                        canonical_bytes(_apply(delta, state, dst)) != canonical_bytes(real)):
                delta = DIRECT
            self._deltas[key] = delta
            return real
        if delta is DIRECT:
            self.direct += 1
            return process(state)
        self.hits += 1
        self._window_hits += 1
        after = _apply(delta, state, dst)
        if self.mode == "verify":
            real = process(state)
            if real is None or canonical_bytes(real) != canonical_bytes(after):
                raise MemoMismatch(f"the delivery memo's replay at {dst} of {msg} differs from the transition")
        return after


_EXECUTOR_MEMOS: dict[tuple[str, Any], DeliveryMemo] = {}


def executor_memo(mode: str, mutations: Any) -> DeliveryMemo:
    """The memo an unpickled model uses (a Spark executor's Python worker): one per process,
    mode and mutant switches, so that it outlives a task (each task unpickles its own copy of
    the model). A delta depends on the delivery's projection, message and the mutant
    switches only — handlers are not given the scenario, and an MQSC step is part of its
    own key — so models of different scenarios may share one."""
    memo = _EXECUTOR_MEMOS.get((mode, mutations))
    if memo is None:
        memo = _EXECUTOR_MEMOS[(mode, mutations)] = DeliveryMemo(mode)
    return memo


_MISSING = object()
_SEEN = object()   # a local situation met once: most are never met again where few deliveries repeat
_QMGR_FIELDS = tuple(f.name for f in dataclasses.fields(QmgrState) if f.init)


def _delta(before: NetworkState, after: NetworkState | None, dst: str) -> Any:
    """What ``after`` changed of the projection ``before`` (module docstring), or DIRECT."""
    if after is None or after.uniform is not None:
        return DIRECT
    if tuple(q.name for q in after.qmgrs) != tuple(q.name for q in before.qmgrs):
        return DIRECT
    mine = None
    others = []
    for i, (old, new) in enumerate(zip(before.qmgrs, after.qmgrs)):
        if old.name == dst:
            mine = new
        elif new is not old:
            changed = {f: getattr(new, f) for f in _QMGR_FIELDS
                       if getattr(new, f) is not getattr(old, f) and getattr(new, f) != getattr(old, f)}
            if not changed.keys() <= KEPT:
                return DIRECT
            if changed:
                others.append((i, changed))
    if any(c.src != dst for c in after.channels):
        return DIRECT
    channels = None if after.channels is before.channels else after.channels
    return (mine, tuple(others), channels, after.logs,
            (after.next_step, after.clock, after.faults, after.stopped_by_fault, after.held_by_step))


def _apply(delta: Any, state: NetworkState, dst: str) -> NetworkState:
    """``delta`` replayed on ``state`` (whose projection it was computed from)."""
    mine, others, channels, logs, (next_step, clock, faults, stopped, held) = delta
    qmgrs = [mine if q.name == dst else q for q in state.qmgrs]
    for i, changed in others:
        qmgrs[i] = replace(qmgrs[i], **changed)
    if channels is None:   # the channels from dst are as they were
        merged = state.channels
    else:
        # state.channels is sorted by (src, dst), so the channels from dst are one block;
        # the delta's, from the projection's sorted tuple, take its place
        old = state.channels
        a = 0
        while a < len(old) and old[a].src < dst:
            a += 1
        b = a
        while b < len(old) and old[b].src == dst:
            b += 1
        merged = old[:a] + channels + old[b:]
    state = replace(state, qmgrs=tuple(qmgrs), channels=merged, next_step=next_step, clock=clock,
                    faults=faults, stopped_by_fault=stopped, held_by_step=held)
    return add_log(state, [e for _, entries in logs for e in entries])

