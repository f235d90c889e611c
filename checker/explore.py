"""The local explicit-state explorer: breadth-first search over a :class:`~checker.model.Model`.

Entry point: :func:`explore`. Anchors: TLC (fingerprint set, BFS, shortest traces, the
collision-probability estimate) and Stateright's ``bfs.rs``.

How it works (level-synchronous BFS):

- The visited set holds **fingerprints and parent pointers only** — a sorted ``uint64``
  array of 64-bit ``blake2b`` fingerprints of ``model.encode(state)`` (plus a second
  ``uint64`` array for 128-bit fingerprints), the state index of each sorted entry
  (``uint32``), and per state its parent's index (``uint32``) and the position of the
  action in ``model.actions(parent)`` (``uint16``): 18 bytes per state (26 at 128 bits),
  reported as ``visited_bytes_per_state`` (measured after the run). New fingerprints go
  to a small dict, then a sorted buffer, which is merged into the main arrays only past
  ``max(BUF_MIN, N/8)`` entries — so deep models with tiny levels cost no whole-array copy
  per level (transiently ≤ 1.5 bytes/state more). Full states live only in the current
  frontier and the next level being built. Python ``hash()`` is never used for fingerprints.
- Within one level, successors are first deduplicated in a dict keyed by the state itself
  (cheap, and private to the level, so its iteration order — insertion order — is all
  that matters for determinism); only the level's distinct successors are encoded and
  fingerprinted, and they are looked up in the visited set in one vectorised batch.
- Every distinct state is checked once against every ``always`` and ``sometimes``
  property when it is discovered, in BFS order, so the first violation (or witness) found
  is a shortest one; ``at_quiescence`` properties are checked when a state is expanded and
  turns out to have no enabled internal action. A counterexample is rebuilt from the
  parent pointers and **replayed** through ``next_state`` (the replay checks each
  fingerprint, which catches a non-deterministic model).
- Successors come from the model's optional batched ``successors(state)`` (pairs of
  action position and state) when it has one and no ``is_internal``, else from
  ``actions``/``next_state``.
- Levels are expanded in chunks of ``CHUNK`` parents; bounds and progress are checked
  between chunks, and ``max_states``/``stop_on_violation`` cut the level after the chunk
  where they are hit (not at its end).
- With ``workers=2`` (the default when a second core is idle and ``os.fork`` exists), a
  persistent helper process is forked at the first level of at least
  ``PARALLEL_MIN_LEVEL`` states and takes the second part of it (split at a multiple of
  ``CHUNK``). From then on each process keeps the new states it discovered as its share
  of the next level: this process's share is a prefix of the level in discovery order,
  the helper's the rest. Per level only fingerprints, origins (parent index, action
  position) and property hits cross the pipe; this process drops the helper's states it
  already found itself (a keep-mask goes back with the level's fingerprints, which the
  helper adds to its own copy of the visited set). Merging in order gives exactly the
  sequential result: same counts, same traces, same cut under a bound. The memory guard
  counts the helper's private memory.
- Termination (``eventually``: no reachable cycle of internal actions). In BFS every edge
  u→v satisfies depth(v) ≤ depth(u)+1, and around a cycle the depth differences sum to 0,
  so every cycle contains a *back edge* (depth(v) ≤ depth(u)). The search notes whether
  an internal action ever leads to an already-visited level. If none does, termination
  holds (the FingerprintFlood models and most message-passing models are like this:
  depth is a function of the state). When an ``eventually`` property is checked (and the
  model does not use the batched-successors path), the search also records every internal
  edge it generates (source index, action position,
  the target's fingerprint: 6 bytes plus the digest per edge, up to ``EDGE_LIMIT``
  edges), so the check costs no second expansion: the targets are looked up in the
  visited set at the end, in the order a re-expansion would find them (and, under a bound
  that cut the last level, only the expanded parents' edges: the same with one or two
  processes). After a reduced (partial-order) search they are the reduced graph's edges,
  which has a reachable cycle of internal actions iff the full graph has one
  (docs/por.md). Past ``EDGE_LIMIT`` a second pass re-expands the explored states along the parent tree instead and stores every
  internal edge among visited states (10 bytes per edge). Then the states that cannot
  reach a cycle are peeled, and a lasso is reported (``_lasso``): among the states on some cycle
  (a non-trivial strongly connected component or a self-loop) the one with the smallest
  BFS depth (then lowest index), the BFS-shortest prefix to it, then a shortest cycle
  through it. The cycle is found among fingerprints, so its replay is checked step by step
  and must come back to the very state it left (same ``encode``): a cycle that two states
  sharing a fingerprint made up is an ``ExplorationError``, never a "violated" verdict
  on a terminating model. The bounds and Ctrl-C apply to this pass too; if it does not
  finish, the termination verdict is "holds up to bound" (never "holds") and the run is
  incomplete.

Bounds (``max_states``, ``max_depth``, ``timeout``, ``memory_limit_mb``), Ctrl-C and
SIGTERM stop the run with ``complete=False`` and a ``stop_reason``; verdicts are then
"holds up to bound", never "holds". A level interrupted (timeout, memory, Ctrl-C,
SIGTERM) half-way is discarded (its states are not counted). The memory guard is on by
default (80% of the memory available at the start, ``default_memory_limit_mb``), checked
every ``TICK`` parents, so a run ends honestly before the kernel's out-of-memory killer
would end it. One handler for SIGINT and SIGTERM is installed for the whole run (not if
SIGINT is ignored, nor over a caller's own SIGTERM handler) and the previous ones
restored; once one of them has stopped the run, a repeat is ignored, so that a second
Ctrl-C cannot throw away the result being built; the forked helper dies with this process (a death signal on Linux, a parent
check between chunks elsewhere). The progress line's count moves within a level (the
helper reports through a shared page). The cyclic garbage collector is off during the
run. Depth counts actions: initial states have depth 0.

Limits: state indices are ``uint32`` (4 billion states) and action positions ``uint16``
(65,535 actions per state); models beyond that get a clear error.
"""

from __future__ import annotations

import functools
import gc
import json
import os
import pickle
import select
import mmap
import signal
import struct
import sys
import threading
import time
import traceback
from array import array
from bisect import bisect_left
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from hashlib import blake2b
from typing import Any

import numpy as np

from checker.model import (
    Judge,
    Kind,
    select_properties,
    Result,
    Statistics,
    Status,
    Trace,
    TraceStep,
    Verdict,
    collision_probability,
    describe_action,
    describe_state,
    is_internal,
    model_name,
    por_reads,
    por_stable,
    settled_only,
)

BACKEND = "local"
INTERRUPTED_BY_SIGTERM = "terminated (SIGTERM)"
PARALLEL_MIN_LEVEL = 4096   # levels smaller than this are expanded in-process
_TALLY = struct.Struct("<QQ")  # the helper's progress in the current level: new states, parents done
DEATH_SIGNAL = signal.SIGKILL  # what the helper gets when its parent dies (0: none; tests)
PR_SET_PDEATHSIG = 1        # linux/prctl.h: the signal a process gets when its parent dies
CHUNK = 2048                # parents per chunk: bound/progress checks, and where bounds cut a level
TICK = 128                  # parents between progress/bound checks inside a chunk
# internal edges recorded during the search for the termination check (at most this many;
# beyond it the check re-expands the explored states instead): 4 + 2 + digest bytes each
EDGE_LIMIT = 4_000_000
# The longest interval the real-time timer takes: setitimer refuses about 10^10 seconds
# ("timestamp out of range for platform time_t"); a --timeout beyond this (over 31 years)
# is polled as a deadline instead, or needs no timer at all.
TIMER_MAX_SECONDS = 1e9
TINY = 8                    # batches up to this size skip numpy where they can
SMALL_MAX = 4096            # FingerprintSet: entries held in the dict before they go to the sorted buffer
BUF_MIN = 65536             # FingerprintSet: the sorted buffer is merged into the main array past
                            # max(BUF_MIN, len(main) // 8) entries


_NOT_DETERMINISTIC = ("replaying a trace did not reach the recorded state: the model is not "
                      "deterministic (actions() order or next_state() depends on something other "
                      "than the state, e.g. set iteration order or Python hash())")


class ExplorationError(RuntimeError):
    """The model misbehaved (e.g. replaying a trace gave a different state), or a worker
    process died."""


class _InitTimeout(BaseException):
    """The timeout, while the initial states are computed (``_Explorer._initial_within_timeout``)."""


class _Stop(Exception):
    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


SIGNAL_STOPS = ("interrupted", INTERRUPTED_BY_SIGTERM)   # stop reasons of Ctrl-C and SIGTERM


def stopped_by_signal(stop_reason: str | None) -> bool:
    """Did Ctrl-C or SIGTERM stop the run (during the search or the termination check)?"""
    return bool(stop_reason) and stop_reason.startswith(SIGNAL_STOPS)


class RunStopped(KeyboardInterrupt):
    """Ctrl-C or SIGTERM ended a command that runs many explorations; ``reason`` is the
    stop reason to report (one of ``SIGNAL_STOPS``)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def sigalrm_free() -> bool:
    """Can this process take SIGALRM and the real-time timer for a while? Only in the main
    thread, and where no caller uses either (pytest-timeout does, for one)."""
    return (threading.current_thread() is threading.main_thread()
            and signal.getsignal(signal.SIGALRM) is signal.SIG_DFL
            and signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0))


class StopSignals:
    """SIGINT and SIGTERM for a command that runs one exploration after another (``mqcheck
    fuzz``), as a context manager: the first of them is recorded, and the command's next
    :meth:`poll` raises :class:`RunStopped`; repeats are ignored, so the command can still
    report what it found. An ignored SIGINT
    stays ignored and a caller's own SIGTERM handler stays, as in an exploration. An
    exploration started inside takes both over for its own run, stops cleanly (its
    result's stop reason is then one of ``SIGNAL_STOPS``, and ``reason`` is set: the
    caller raises :class:`RunStopped` with it), and gives them back afterwards.

    ``timeout`` (seconds, with ``raise_where_it_lands``; ``mqcheck fuzz --timeout``): a
    real-time timer that delivers the same stop as a signal when it expires, with the
    reason ``timeout (N s)`` — to the exploration running then, if one has taken the
    signals over, else where it lands. It is the SIGALRM timer the signal retry uses (one
    handler, one timer: after the deadline it goes on as the retry), so the two cannot
    clash. Where SIGALRM is not free (another thread, a caller's timer), :meth:`poll`
    checks the deadline instead."""

    active: "StopSignals | None" = None   # the one entered last in this process
    RETRY_SECONDS = 0.25

    def __init__(self, on_signal: Callable[[str], None] | None = None, *, raise_where_it_lands: bool = False,
                 timeout: float | None = None) -> None:
        self.reason: str | None = None
        self.on_signal = on_signal   # called with the reason on the first signal and on each repeat
        # The command's loop is a library's (Hypothesis's engine runs between the command's
        # calls, and its target phase can run for minutes without calling them: a `fuzz`
        # run ignored SIGTERM and SIGINT for 5 minutes, a fuzz campaign in session 28). Then
        # the signal raises RunStopped where it lands, and again every RETRY_SECONDS (a
        # SIGALRM timer) until the command says it has it (:meth:`caught`): a raise that lands
        # in a garbage-collector callback is discarded by Python.
        self.raise_where_it_lands = raise_where_it_lands
        if timeout is not None and not raise_where_it_lands:
            raise ValueError("a timeout needs raise_where_it_lands: the command's loop may not poll")
        self.timeout = timeout
        self.timeout_reason = None if timeout is None else f"timeout ({timeout:g} s)"
        self._deadline: float | None = None   # time.monotonic() of the timeout, where poll() checks it
        # the stop of the exploration that has taken the signals over (Explorer.stop_from_outside)
        self.exploration: Callable[[str], None] | None = None
        self._caught = False
        self._alarm: Any = None   # the SIGALRM handler replaced while the timer runs
        self._installed: list = []
        self._outer: StopSignals | None = None

    @classmethod
    def caught(cls) -> None:
        """The command has the RunStopped, or is past the point where a stop could end
        anything (it is writing its report): no more raising (the timer stops)."""
        stopper = cls.active
        if stopper is not None:
            stopper._stop_retrying()

    def _stop_retrying(self) -> None:
        self._caught = True
        if self._alarm is not None:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, self._alarm)
            self._alarm = None

    def _start_timer(self, first: float) -> bool:
        """SIGALRM in ``first`` seconds, then every RETRY_SECONDS; False where it is not free
        or ``first`` is beyond what the timer takes."""
        if first > TIMER_MAX_SECONDS:
            return False
        if self._alarm is None:
            if not sigalrm_free():
                return False
            self._alarm = signal.signal(signal.SIGALRM, self._on_alarm)
        signal.setitimer(signal.ITIMER_REAL, first, self.RETRY_SECONDS)
        return True

    def _on_alarm(self, signum: int, frame: Any) -> None:
        if self._caught:
            return
        if self.reason is None:   # the timeout: a stop like a signal's
            self._stop(self.timeout_reason or "timeout", frame)
        elif self.exploration is None and not _in_gc_callback(frame):   # a retry (an exploration stops of itself)
            raise RunStopped(self.reason)

    @classmethod
    def poll(cls) -> None:
        """Raise :class:`RunStopped` if a signal (or the timeout) has asked the command to stop
        (the command calls this between its explorations and steps)."""
        stopper = cls.active
        if stopper is None:
            return
        if stopper.reason is None and stopper._deadline is not None and time.monotonic() >= stopper._deadline:
            stopper.reason = stopper.timeout_reason
        if stopper.reason is not None:
            raise RunStopped(stopper.reason)

    def __enter__(self) -> "StopSignals":
        self._outer, StopSignals.active = StopSignals.active, self
        if threading.current_thread() is threading.main_thread():
            previous = signal.getsignal(signal.SIGINT)
            if previous is not signal.SIG_IGN and previous is not None:
                self._installed.append((signal.SIGINT, signal.signal(signal.SIGINT, self)))
            if signal.getsignal(signal.SIGTERM) is signal.SIG_DFL:
                self._installed.append((signal.SIGTERM, signal.signal(signal.SIGTERM, self)))
        if self.timeout is not None and not self._start_timer(self.timeout):
            self._deadline = time.monotonic() + self.timeout
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop_retrying()
        while self._installed:
            signum, previous = self._installed.pop()
            signal.signal(signum, previous)
        StopSignals.active = self._outer

    def __call__(self, signum: int, frame: Any) -> None:
        # Recorded (a repeat keeps the first reason), and the command raises at its next
        # poll(); with raise_where_it_lands, raised here too (see _stop).
        self._stop(INTERRUPTED_BY_SIGTERM if signum == signal.SIGTERM else "interrupted", frame)

    def _stop(self, reason: str, frame: Any = None) -> None:
        """A signal, or the timeout: record the first reason; with ``raise_where_it_lands``,
        stop the exploration that has the signals (it stops as on a signal and returns) or
        raise RunStopped here, and retry every RETRY_SECONDS until :meth:`caught`. Not
        raised in a garbage-collector callback (Hypothesis installs one): Python discards
        an exception raised there and prints "Exception ignored in ..." on stderr; the
        retry raises it elsewhere."""
        if self.reason is None:
            self.reason = reason
        if self.on_signal is not None:
            self.on_signal(self.reason)
        if self.raise_where_it_lands and not self._caught:
            self._start_timer(self.RETRY_SECONDS)
            if self.exploration is not None:
                self.exploration(self.reason)
            elif not _in_gc_callback(frame):
                raise RunStopped(self.reason)


def _in_gc_callback(frame: Any) -> bool:
    """Is ``frame`` (where a signal landed) inside a garbage-collector callback?"""
    codes = {getattr(callback, "__code__", None) for callback in gc.callbacks} - {None}
    while codes and frame is not None:
        if frame.f_code in codes:
            return True
        frame = frame.f_back
    return False


# --------------------------------------------------------------------------- fingerprints
def fingerprint(data: bytes, bits: int = 64) -> int:
    """The ``bits``-bit blake2b fingerprint of canonical state bytes, as an int.

    >>> fingerprint(b"abc") == fingerprint(b"abc") != fingerprint(b"abd")
    True
    >>> fingerprint(b"abc", 128) >> 64 > 0
    True
    """
    return int.from_bytes(blake2b(data, digest_size=bits // 8).digest(), "little")


def _search(hi_arr: np.ndarray, lo_arr: np.ndarray | None, idx_arr: np.ndarray,
            hi: np.ndarray, lo: np.ndarray | None, out: np.ndarray) -> None:
    """Set ``out[k]`` to the index of fingerprint k if it is in this sorted run."""
    if not len(hi_arr) or not len(hi):
        return
    left = np.searchsorted(hi_arr, hi, "left")
    if lo_arr is None:
        inside = left < len(hi_arr)
        hit = np.zeros(len(hi), dtype=bool)
        hit[inside] = hi_arr[left[inside]] == hi[inside]
        out[hit] = idx_arr[left[hit]]
        return
    right = np.searchsorted(hi_arr, hi, "right")
    for k in np.nonzero(right > left)[0]:
        for p in range(left[k], right[k]):
            if lo_arr[p] == lo[k]:
                out[k] = idx_arr[p]
                break


def _insert(hi_arr, lo_arr, idx_arr, hi, lo, idx):
    """The sorted run with (hi, lo, idx) merged in."""
    order = np.argsort(hi, kind="stable")
    hi, idx = hi[order], idx[order]
    pos = np.searchsorted(hi_arr, hi)
    hi_arr = np.insert(hi_arr, pos, hi)
    idx_arr = np.insert(idx_arr, pos, idx.astype(np.uint32))
    if lo is not None:
        lo_arr = np.insert(lo_arr, pos, lo[order])
    return hi_arr, lo_arr, idx_arr


class FingerprintSet:
    """Fingerprints with the state index of each entry, in three tiers.

    - ``hi``/``lo``/``idx``: the main sorted arrays. 64-bit fingerprints: one sorted
      ``uint64`` array; 128-bit: sorted by the high word, the low word alongside (equal
      high words are resolved by a short scan).
    - a sorted buffer of the same shape, merged into the main arrays only once it holds
      more than ``max(BUF_MIN, len(main) // 8)`` entries (so a deep model with small
      levels does not copy the whole array per level: amortised O(log) copies per entry);
    - a dict for the last few thousand entries (tiny levels cost no numpy call to add).

    Fingerprints are given as digests (``bytes`` of 8 or 16, little-endian) to
    :meth:`find`/:meth:`add_digests`, or as split ``uint64`` arrays to :meth:`lookup`/:meth:`add`.
    """

    def __init__(self, bits: int) -> None:
        if bits not in (64, 128):
            raise ValueError(f"fingerprint_bits must be 64 or 128, got {bits}")
        self.bits = bits
        self.hi = np.empty(0, np.uint64)
        self.lo = np.empty(0, np.uint64) if bits == 128 else None
        self.idx = np.empty(0, np.uint32)
        self._bhi = np.empty(0, np.uint64)
        self._blo = np.empty(0, np.uint64) if bits == 128 else None
        self._bidx = np.empty(0, np.uint32)
        self._small: dict[bytes, int] = {}

    def __len__(self) -> int:
        return len(self.hi) + len(self._bhi) + len(self._small)

    # ----- conversions
    def split(self, fps: list[int]) -> tuple[np.ndarray, np.ndarray | None]:
        if self.bits == 64:
            return np.array(fps, dtype=np.uint64), None
        mask = (1 << 64) - 1
        return (np.array([f >> 64 for f in fps], dtype=np.uint64),
                np.array([f & mask for f in fps], dtype=np.uint64))

    def split_digests(self, digests: list[bytes]) -> tuple[np.ndarray, np.ndarray | None]:
        words = np.frombuffer(b"".join(digests), "<u8")
        if self.bits == 64:
            return words.astype(np.uint64), None
        words = words.reshape(-1, 2)
        return words[:, 1].astype(np.uint64), words[:, 0].astype(np.uint64)

    def _digests(self, hi: np.ndarray, lo: np.ndarray | None) -> list[bytes]:
        if lo is None:
            w = hi.astype("<u8").tobytes()
            return [w[i:i + 8] for i in range(0, len(w), 8)]
        w = np.stack([lo.astype("<u8"), hi.astype("<u8")], axis=1).tobytes()
        return [w[i:i + 16] for i in range(0, len(w), 16)]

    # ----- queries
    def find(self, digests: list[bytes]) -> list[int]:
        """State index of each digest, or -1."""
        small = self._small
        out = [small.get(d, -1) for d in digests] if small else [-1] * len(digests)
        if not len(self.hi) and not len(self._bhi):
            return out
        miss = [k for k, v in enumerate(out) if v < 0] if small else range(len(digests))
        if not len(miss):
            return out
        if len(miss) <= TINY:   # a few scalar searches beat building arrays
            runs = [r for r in ((self.hi, self.lo, self.idx), (self._bhi, self._blo, self._bidx)) if len(r[0])]
            for k in miss:
                d = digests[k]
                h = np.uint64(int.from_bytes(d[-8:], "little"))
                l = int.from_bytes(d[:8], "little") if self.bits == 128 else None
                for hi_arr, lo_arr, idx_arr in runs:
                    p = int(hi_arr.searchsorted(h))
                    while p < len(hi_arr) and hi_arr[p] == h:
                        if l is None or int(lo_arr[p]) == l:
                            out[k] = int(idx_arr[p])
                            break
                        p += 1
                    if out[k] >= 0:
                        break
            return out
        h, l = self.split_digests([digests[k] for k in miss] if small else digests)
        got = np.full(len(h), -1, dtype=np.int64)
        _search(self.hi, self.lo, self.idx, h, l, got)
        _search(self._bhi, self._blo, self._bidx, h, l, got)
        for k, v in zip(miss, got.tolist()):
            if v >= 0:
                out[k] = v
        return out

    def lookup(self, hi: np.ndarray, lo: np.ndarray | None) -> np.ndarray:
        """State index of each fingerprint, or -1 (int64 array)."""
        out = np.full(len(hi), -1, dtype=np.int64)
        if not len(hi):
            return out
        _search(self.hi, self.lo, self.idx, hi, lo, out)
        _search(self._bhi, self._blo, self._bidx, hi, lo, out)
        if self._small:
            get = self._small.get
            for k, d in enumerate(self._digests(hi, lo)):
                v = get(d, -1)
                if v >= 0:
                    out[k] = v
        return out

    # ----- updates
    def add_digests(self, digests: list[bytes], start: int) -> None:
        """Add ``digests`` with indices ``start, start+1, ...`` (none may be present yet)."""
        if not digests:
            return
        if len(self._small) + len(digests) <= SMALL_MAX:
            self._small.update(zip(digests, range(start, start + len(digests))))
            return
        h, l = self.split_digests(digests)
        self.add(h, l, np.arange(start, start + len(digests), dtype=np.uint32))

    def add(self, hi: np.ndarray, lo: np.ndarray | None, idx: np.ndarray) -> None:
        if not len(hi):
            return
        if self._small:
            sh, sl = self.split_digests(list(self._small))
            hi = np.concatenate([sh, hi])
            lo = None if lo is None else np.concatenate([sl, lo])
            idx = np.concatenate([np.fromiter(self._small.values(), np.uint32, len(self._small)),
                                  np.asarray(idx, np.uint32)])
            self._small = {}
        self._bhi, self._blo, self._bidx = _insert(self._bhi, self._blo, self._bidx, hi, lo, np.asarray(idx))
        if len(self._bhi) > max(BUF_MIN, len(self.hi) // 8):
            self._merge_buffer()

    def _merge_buffer(self) -> None:
        if len(self._bhi):
            pos = np.searchsorted(self.hi, self._bhi)
            self.hi = np.insert(self.hi, pos, self._bhi)
            self.idx = np.insert(self.idx, pos, self._bidx)
            if self.lo is not None:
                self.lo = np.insert(self.lo, pos, self._blo)
            self._bhi = np.empty(0, np.uint64)
            self._blo = np.empty(0, np.uint64) if self.bits == 128 else None
            self._bidx = np.empty(0, np.uint32)

    def flush(self) -> None:
        """Move every entry into the main sorted arrays (done at the end of a run)."""
        if self._small:
            sh, sl = self.split_digests(list(self._small))
            idx = np.fromiter(self._small.values(), np.uint32, len(self._small))
            self._small = {}
            self._bhi, self._blo, self._bidx = _insert(self._bhi, self._blo, self._bidx, sh, sl, idx)
        self._merge_buffer()

    @property
    def nbytes(self) -> int:
        arrays = (self.hi, self.lo, self.idx, self._bhi, self._blo, self._bidx)
        small = sys.getsizeof(self._small) + len(self._small) * (33 + self.bits // 8 + 28) if self._small else 0
        return sum(a.nbytes for a in arrays if a is not None) + small


# --------------------------------------------------------------------------- expansion
@dataclass
class _Part:
    """What expanding a slice of the frontier produced (picklable: children send it)."""

    states: list = field(default_factory=list)      # new distinct successors, in order
    fps: list = field(default_factory=list)         # their fingerprint digests (bytes)
    parents: list = field(default_factory=list)     # global index of the discovering parent
    aidx: list = field(default_factory=list)        # action position in actions(parent)
    hits: list = field(default_factory=list)        # (k, prop id): always failed / sometimes held on states[k]
    quiet_fail: list = field(default_factory=list)  # (parent global index, prop id)
    generated: int = 0
    back_edge: bool = False
    # per finished chunk: (len(fps), generated, len(quiet_fail), back_edge, violated)
    marks: list = field(default_factory=list)
    cut: str = ""                                   # why the level was cut short ("" = not)
    keep: bytes = b""                               # which of the helper's new states were kept
    reduced: int = 0                                # parents expanded with a reduced (ample) set
    # internal edges, when recorded for the termination check: source global index, action
    # position, the target's fingerprint digest (concatenated), in expansion order
    e_src: array = field(default_factory=lambda: array("I"))
    e_ai: array = field(default_factory=lambda: array("H"))
    e_fp: bytearray = field(default_factory=bytearray)


class _Ctx:
    """Everything an expansion needs; inherited by forked children."""

    def __init__(self, model: Any, props: list, bits: int, por: bool = False) -> None:
        self.model = model
        self.bits = bits
        self.digest = bits // 8
        fn = getattr(model, "is_internal", None)
        # partial-order reduction (docs/por.md): the model's optional ample(state, actions,
        # reads), with what the checked always/sometimes properties read
        self.reads = por_reads(props)
        # and the classes of actions under which each of them that reads anything is
        # stable (Property.stable_under): the model may offer sets of those alone
        self.stable = por_stable(props)
        # no reduction while a checked invariant or witness reads everything and no class
        # of actions is declared stable for all of them
        amp = getattr(model, "ample", None) if por and (self.reads is not None or self.stable) else None
        if callable(amp) and self.stable:
            amp = functools.partial(_ample_stable, amp, self.stable)
        self.ample: Callable[[Any, Any, Any], Any] | None = amp if callable(amp) else None
        if self.ample is not None and fn is None:
            fn = _all_internal   # the general loop below (it alone applies ample sets)
        self.internal: Callable[[Any], bool] | None = fn
        # the optional batched successor method (checker.model: ``successors``); only used
        # when every action is internal (it does not hand the action objects back)
        succ = getattr(model, "successors", None)
        self.successors: Callable[[Any], Any] | None = succ if fn is None else None
        self.open_always = [p for p in props if p.kind is Kind.ALWAYS]
        self.open_sometimes = [p for p in props if p.kind is Kind.SOMETIMES]
        self.open_quiet = [p for p in props if p.kind is Kind.AT_QUIESCENCE]
        self._judge()
        # record internal edges while expanding, so that the termination check need not
        # expand every state a second time (switched off past EDGE_LIMIT edges). Not on the
        # batched-successors path: its models' successors cost about what recording an edge
        # costs (FingerprintFlood: +7% CPU, +14 MB on FF(tree,20), for a check that never
        # runs there since depth is a function of their state); a second pass stays cheap.
        self.record_edges = any(p.kind is Kind.EVENTUALLY for p in props) and self.successors is None
        self.always_ids = frozenset(p.id for p in props if p.kind is Kind.ALWAYS)
        self.visited = FingerprintSet(bits)
        self.tally: Any = None   # in the helper: the page shared with the parent (_Helper.tally)
        # called every TICK parents inside a chunk with (parents done, candidates) of the
        # chunk: bounds and progress in the parent, the shared progress page in the helper
        self.tick: Callable[[int, int], None] | None = None

    def _judge(self) -> None:
        """The judges of the open properties (checker.model.Judge: once per view where the
        model has views): new states against always/sometimes, settled ones against
        at_quiescence."""
        self.judge = Judge(self.model, self.open_always + self.open_sometimes)
        self.quiet_judge = Judge(self.model, self.open_quiet)

    def keep_open(self, closed: Any) -> None:
        """Stop judging the properties whose ids are in ``closed`` (decided)."""
        if not any(p.id in closed for p in self.open_always + self.open_sometimes + self.open_quiet):
            return
        self.open_always = [p for p in self.open_always if p.id not in closed]
        self.open_sometimes = [p for p in self.open_sometimes if p.id not in closed]
        self.open_quiet = [p for p in self.open_quiet if p.id not in closed]
        self._judge()

    def fp(self, state: Any) -> int:
        return int.from_bytes(blake2b(self.model.encode(state), digest_size=self.digest).digest(), "little")

    def digest_of(self, state: Any) -> bytes:
        return blake2b(self.model.encode(state), digest_size=self.digest).digest()


def _all_internal(action: Any) -> bool:
    return True


class _Level:
    """One process's view of the level being built: every distinct successor seen so far
    (``seen``: state -> candidate number, in order of discovery) and, for candidates of
    earlier chunks, whether they were already visited (``old``)."""

    __slots__ = ("seen", "old", "fps")

    def __init__(self) -> None:
        self.seen: dict = {}
        self.old = bytearray()
        self.fps: list = []    # candidates' digests, when edges are recorded


def _expand(ctx: _Ctx, frontier: list, lo: int, hi: int, base: int, level: _Level, part: _Part) -> None:
    """Expand ``frontier[lo:hi]`` (global index of frontier[0] is ``base``) into ``part``.

    This is the hot loop: each successor is hashed once (``dict.setdefault``), and only
    the level's distinct successors are encoded and fingerprinted (in ``_resolve``).
    """
    model = ctx.model
    actions, next_state, internal = model.actions, model.next_state, ctx.internal
    quiet = ctx.open_quiet
    setdefault = level.seen.setdefault
    old = level.old
    tick = ctx.tick
    first = n = len(level.seen)      # candidates numbered from `first` belong to this chunk
    cand: list = []
    origin: list = []        # (parent global index << 32) | action position
    inner_in: list = []      # reached by an internal action
    generated = 0
    back_edge = False
    rec = ctx.record_edges
    e_src, e_ai, e_j = part.e_src.append, part.e_ai.append, []   # recorded edges (targets: candidates)
    if ctx.successors is not None:
        # the model's batched successors(): (action position, state) pairs, enabled only
        successors = ctx.successors
        for i in range(lo, hi):
            if tick is not None and not (i - lo + 1) % TICK:
                tick(i - lo, n - first)
            s = frontier[i]
            succ = successors(s)
            if not succ:
                for pid in ctx.quiet_judge.hits(s):
                    part.quiet_fail.append((base + i, pid))
                continue
            generated += len(succ)
            gi = (base + i) << 32
            for ai, t in succ:
                j = setdefault(t, n)
                if j == n:
                    n += 1
                    cand.append(t)
                    origin.append(gi | ai)
                elif j < first and old[j]:
                    back_edge = True
        inner_in = None
        lo = hi   # skip the general loop below
    elif internal is None:
        # every action internal (the model has no is_internal): the common case, kept lean
        for i in range(lo, hi):
            if tick is not None and not (i - lo + 1) % TICK:
                tick(i - lo, n - first)
            s = frontier[i]
            ai = -1
            before = generated
            for a in actions(s):
                ai += 1
                t = next_state(s, a)
                if t is None:
                    continue
                generated += 1
                j = setdefault(t, n)
                if rec:
                    e_src(base + i)
                    e_ai(ai)
                    e_j.append(j)
                if j == n:
                    n += 1
                    cand.append(t)
                    origin.append((base + i) << 32 | ai)
                elif j < first and old[j]:
                    back_edge = True
            if quiet and generated == before:
                for pid in ctx.quiet_judge.hits(s):
                    part.quiet_fail.append((base + i, pid))
        inner_in = None
        lo = hi   # skip the general loop below
    ample, reads = ctx.ample, ctx.reads
    for i in range(lo, hi):
        if tick is not None and not (i - lo + 1) % TICK:
            tick(i - lo, n - first)
        s = frontier[i]
        settled = True
        acts = actions(s)
        steps = None
        if ample is not None:
            steps = _reduced(ctx, s, acts, ample(s, acts, reads))
            if steps is not None:
                part.reduced += 1
        if steps is None:
            steps = [(ai, a, next_state(s, a)) for ai, a in enumerate(acts)]
        for ai, a, t in steps:
            if t is None:
                continue
            generated += 1
            inner = bool(internal(a))
            if inner:
                settled = False
            j = setdefault(t, n)
            if rec and inner:
                e_src(base + i)
                e_ai(ai)
                e_j.append(j)
            if j == n:
                n += 1
                cand.append(t)
                origin.append((base + i) << 32 | ai)
                inner_in.append(inner)
            elif j >= first:
                if inner:
                    inner_in[j - first] = True
            elif inner and old[j]:
                back_edge = True
        if settled and quiet:
            for pid in ctx.quiet_judge.hits(s):
                part.quiet_fail.append((base + i, pid))
    part.generated += generated
    if cand:
        back_edge |= _resolve(ctx, cand, origin, inner_in, level, part)
    if e_j:
        fps = level.fps
        part.e_fp += b"".join([fps[j] for j in e_j])
    part.back_edge |= back_edge


def _ample_stable(ample: Callable, stable: frozenset, s: Any, acts: Any, reads: Any) -> Any:
    """The model's ``ample`` called with the classes the checked properties are stable
    under (checker.model: ``por_stable``)."""
    return ample(s, acts, reads, stable)


def _reduced(ctx: _Ctx, s: Any, acts: Any, sel: Any) -> list | None:
    """The (position, action, successor) triples of the ample set ``sel`` of ``s``, or
    None (expand fully): when the model gave none, a set that is not a proper subset, one
    with no enabled internal action, or — the cycle proviso of a breadth-first search — one
    with a successor already visited (the current level or an earlier one), which may
    close a cycle along which the other actions would be ignored for ever (docs/por.md)."""
    if sel is None:
        return None
    sel = sorted(set(sel))
    if not sel or len(sel) >= len(acts):
        return None
    next_state, internal, visited = ctx.model.next_state, ctx.internal, ctx.visited
    out = []
    for ai in sel:
        a = acts[ai]
        t = next_state(s, a)
        if t is None:
            continue
        if not internal(a) or visited.find([ctx.digest_of(t)])[0] >= 0:
            return None
        out.append((ai, a, t))
    return out or None


def _resolve(ctx: _Ctx, cand: list, origin: list, inner_in: list | None, level: _Level, part: _Part) -> bool:
    """Fingerprint a chunk's distinct successors, drop the visited ones, check the new ones
    against the open always/sometimes properties. True if an internal edge hit a visited
    state (``inner_in`` None: every edge is internal)."""
    model = ctx.model
    encode, size = model.encode, ctx.digest
    fps = [blake2b(encode(t), digest_size=size).digest() for t in cand]
    found = ctx.visited.find(fps)
    old = bytes(v >= 0 for v in found)
    level.old.extend(old)
    if ctx.record_edges:
        level.fps.extend(fps)
    back_edge = False
    if 1 in old:
        back_edge = True if inner_in is None else any(o and i for o, i in zip(old, inner_in))
        new = [k for k, o in enumerate(old) if not o]
    else:
        new = range(len(cand))
    always, sometimes = ctx.open_always, ctx.open_sometimes
    states, pfps, parents, aidx, hits = part.states, part.fps, part.parents, part.aidx, part.hits
    if not always and not sometimes:
        for k in new:
            states.append(cand[k])
            pfps.append(fps[k])
            o = origin[k]
            parents.append(o >> 32)
            aidx.append(o & 0xFFFFFFFF)
        return back_edge
    judge = ctx.judge.hits
    for k in new:
        t = cand[k]
        m = len(states)
        states.append(t)
        pfps.append(fps[k])
        o = origin[k]
        parents.append(o >> 32)
        aidx.append(o & 0xFFFFFFFF)
        for pid in judge(t):
            hits.append((m, pid))
    return back_edge


def _violation_in(ctx: _Ctx, part: _Part, nh: int, nq: int) -> bool:
    """Did the chunk that appended part.hits[nh:] / part.quiet_fail[nq:] find a violation?"""
    if len(part.quiet_fail) > nq:
        return True
    ids = ctx.always_ids
    return any(pid in ids for _, pid in part.hits[nh:])


def _expand_chunks(ctx: _Ctx, share: list, offset: int, base: int, part: _Part,
                   stop_on_violation: bool) -> None:
    """The helper's loop over its share (global level positions ``offset..``): chunk by
    chunk, chunk ends at the same global positions as with one process (multiples of
    CHUNK), a mark after each; stops after the first chunk with a violation if asked to
    (the parent cuts the level there or earlier)."""
    level = _Level()
    lo, hi = 0, len(share)
    parent = os.getppid()
    while lo < hi:
        if _orphaned(parent):   # pragma: no cover - the death signal normally came first
            os._exit(1)
        end = min(hi, (offset + lo) // CHUNK * CHUNK + CHUNK - offset)
        nh, nq = len(part.hits), len(part.quiet_fail)
        if ctx.tally is not None:
            had, start = len(part.fps), lo
            ctx.tick = lambda done, cands: _TALLY.pack_into(ctx.tally, 0, had + cands, start + done)
        _expand(ctx, share, lo, end, base + offset, level, part)   # share[0] is global index base + offset
        if ctx.tally is not None:   # progress the parent can print while it waits
            _TALLY.pack_into(ctx.tally, 0, len(part.fps), end)
        violated = _violation_in(ctx, part, nh, nq)
        part.marks.append((len(part.fps), part.generated, len(part.quiet_fail), part.back_edge, violated))
        lo = end
        if violated and stop_on_violation:
            break


def _send(fd: int, obj: Any) -> None:
    data = pickle.dumps(obj, pickle.HIGHEST_PROTOCOL)
    view = memoryview(len(data).to_bytes(8, "little") + data)
    while view:
        view = view[os.write(fd, view):]


def _recv(fd: int, check: Callable[[], None] | None = None) -> Any:
    """One message; ``check`` is called about 4 times a second while waiting. None at EOF."""
    buf = bytearray()
    need = 8
    size = None
    while True:
        while len(buf) < need:
            if check is not None:
                ready, _, _ = select.select([fd], [], [], 0.25)
                if not ready:
                    check()
                    continue
            data = os.read(fd, min(need - len(buf), 1 << 20))   # never past this message
            if not data:
                return None
            buf += data
        if size is None:
            size = int.from_bytes(buf[:8], "little")
            need = 8 + size
            continue
        return pickle.loads(memoryview(buf)[8:need])


def _die_with_parent(parent: int) -> None:  # pragma: no cover - runs in the child
    """Make this forked helper end when its parent does, however the parent ends
    (SIGKILL, the out-of-memory killer): on Linux the kernel sends SIGKILL to it when
    the parent dies (``prctl(PR_SET_PDEATHSIG)``). Elsewhere, and as a second line, the
    helper checks ``os.getppid()`` between chunks (``_orphaned``) and exits at end of pipe."""
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(PR_SET_PDEATHSIG, DEATH_SIGNAL, 0, 0, 0)
        except (OSError, AttributeError):
            pass
    if os.getppid() != parent:   # the parent died before the death signal was armed
        os._exit(1)


def _orphaned(parent: int) -> bool:
    """The parent of this helper is gone (it was re-parented)."""
    return os.getppid() != parent


def _helper_main(ctx: _Ctx, share: list, rfd: int, wfd: int) -> None:  # pragma: no cover - runs in the child
    """The persistent helper: keeps its share of each level (the states it discovered that
    the parent kept) and a copy of the visited set; only fingerprints, origins and
    verdict hits cross the pipe, never states."""
    pending: list = []
    while True:
        msg = _recv(rfd)
        if msg is None or msg[0] == "quit":
            return
        if msg[0] == "expand":
            _, base, offset, closed, stop_on_violation, ctx.record_edges = msg
            if ctx.tally is not None:
                _TALLY.pack_into(ctx.tally, 0, 0, 0)
            ctx.keep_open(closed)
            part = _Part()
            _expand_chunks(ctx, share, offset, base, part, stop_on_violation)
            pending = part.states
            part.states = []
            fps = b"".join(part.fps)
            part.fps = []
            origins = array("Q", (p << 32 | a for p, a in zip(part.parents, part.aidx)))
            part.parents, part.aidx = [], []
            _send(wfd, ("ok", part, fps, origins.tobytes()))
        elif msg[0] == "commit":
            # every new digest of the level in global order (the parent's and the kept
            # ones of this helper), and which of this helper's new states were kept
            _, start, level_fps, keep = msg
            size = ctx.digest
            ctx.visited.add_digests([level_fps[i:i + size] for i in range(0, len(level_fps), size)], start)
            share = [s for s, k in zip(pending, keep) if k]
            pending = []


class _Helper:
    """The forked persistent helper process (``workers=2``): started at the first level of
    at least PARALLEL_MIN_LEVEL states with the second part of that level as its share."""

    def __init__(self, ctx: _Ctx, share: list) -> None:
        to_child_r, to_child_w = os.pipe()
        to_parent_r, to_parent_w = os.pipe()
        parent = os.getpid()
        # one shared anonymous page: the helper writes its level's new states and expanded
        # parents after each chunk, so the parent's progress line moves while it waits
        self.tally = mmap.mmap(-1, _TALLY.size)
        pid = os.fork()
        if pid == 0:  # pragma: no cover - runs in the child
            code = 0
            try:
                gc.disable()
                signal.signal(signal.SIGINT, signal.SIG_IGN)
                # SIGTERM too: the parent ends this helper (SIGKILL) when it stops, whatever
                # stopped it; a SIGTERM to the whole process group must not kill the helper
                # first and turn the parent's honest "terminated" into "a worker died"
                signal.signal(signal.SIGTERM, signal.SIG_IGN)
                _die_with_parent(parent)
                ctx.tally = self.tally
                os.close(to_child_w)
                os.close(to_parent_r)
                try:
                    _helper_main(ctx, share, to_child_r, to_parent_w)
                except BaseException as e:  # noqa: BLE001 - reported to the parent
                    try:
                        _send(to_parent_w, ("error", type(e).__name__, traceback.format_exc()))
                    except BaseException:  # noqa: BLE001
                        code = 1
            finally:
                os._exit(code)
        os.close(to_child_r)
        os.close(to_parent_w)
        self.pid, self.wfd, self.rfd, self.reaped = pid, to_child_w, to_parent_r, False
        self.size = ctx.digest
        self.share = len(share)   # states in the helper's share of the current level

    def progress(self) -> tuple[int, int]:
        """(new states, parents expanded) of the helper's share of the current level so far."""
        return _TALLY.unpack_from(self.tally, 0)

    def private_mb(self) -> float:
        """Memory the helper does not share with this process (its own pages)."""
        if self.reaped:
            return 0.0
        try:
            with open(f"/proc/{self.pid}/smaps_rollup") as f:
                kb = sum(int(line.split()[1]) for line in f if line.startswith(("Private_Clean", "Private_Dirty")))
            return kb / 1024
        except (OSError, ValueError, IndexError):  # pragma: no cover - not Linux / gone
            try:
                with open(f"/proc/{self.pid}/statm") as f:
                    return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
            except (OSError, ValueError, IndexError):
                return 0.0

    def send(self, msg: Any) -> None:
        try:
            _send(self.wfd, msg)
        except BrokenPipeError:
            raise self._died() from None

    def _died(self) -> ExplorationError:
        _, status = os.waitpid(self.pid, 0)
        self.reaped = True
        return ExplorationError(f"a worker process died without a result ({_wait_status(status)})")

    def result(self, check: Callable[[], None]) -> tuple[_Part, list, list]:
        """The helper's part of the level: (part without states, digests, origins)."""
        msg = _recv(self.rfd, check)
        if msg is None:
            raise self._died()
        if msg[0] == "ok":
            _, part, fps, origins = msg
            size = self.size
            return part, [fps[i:i + size] for i in range(0, len(fps), size)], array("Q", origins)
        if msg[1] == "KeyboardInterrupt":
            raise KeyboardInterrupt
        raise ExplorationError(f"a worker process failed with {msg[1]}:\n{msg[2]}")

    def close(self) -> None:
        """Kill the helper unless it was reaped, close the pipes."""
        if not self.reaped:
            try:
                os.kill(self.pid, signal.SIGKILL)
            except ProcessLookupError:  # pragma: no cover
                pass
            try:
                os.waitpid(self.pid, 0)
            except ChildProcessError:  # pragma: no cover
                pass
            self.reaped = True
        for fd in (self.wfd, self.rfd):
            try:
                os.close(fd)
            except OSError:  # pragma: no cover
                pass
        self.wfd = self.rfd = -1
        self.tally.close()


def _wait_status(status: int) -> str:
    if os.WIFSIGNALED(status):
        return f"killed by signal {os.WTERMSIG(status)}"
    return f"exit status {os.waitstatus_to_exitcode(status)}"


# --------------------------------------------------------------------------- the explorer
def explore(
    model: Any,
    *,
    max_states: int | None = None,
    max_depth: int | None = None,
    timeout: float | None = None,
    memory_limit_mb: float | None = None,
    fingerprint_bits: int = 64,
    property_ids: Iterable[str] | None = None,
    stop_on_violation: bool = False,
    progress: bool = False,
    workers: int | None = None,
    por: bool = False,
) -> Result:
    """Explore every state reachable in ``model`` breadth-first and check its properties.

    - ``max_states``: stop once more than this many distinct states are found: the run
      keeps exactly ``max_states`` (incomplete). The level being built is cut after the
      chunk of ``CHUNK`` parents where the bound is crossed (``generated_states`` counts
      the successors of the parents expanded up to there).
    - ``max_depth``: do not add states deeper than this many actions (incomplete if some
      state at that depth has a successor not seen before).
    - ``timeout``: seconds of wall-clock time; ``memory_limit_mb``: resident-set size of
      this process plus the private memory of its forked helper. ``None`` (default) is
      the default guard (:func:`default_memory_limit_mb`: 80% of the memory available
      when the run starts), ``0`` no guard. Both also bound the termination check's
      second pass; a ``MemoryError`` ends the run the same honest way (incomplete,
      ``stop_reason`` "out of memory (MemoryError)").
    - ``fingerprint_bits``: 64 (default) or 128.
    - ``property_ids``: check only these (plus the ``sometimes`` witnesses they name);
      unknown ids raise ``ValueError``.
    - ``stop_on_violation``: stop after the chunk of ``CHUNK`` parents in which the first
      violation appears (the violation found first is a shortest one: BFS order).
    - ``progress``: print distinct states, states/s, depth and frontier size to stderr
      about once a second (the CLI passes ``sys.stderr.isatty() and not quiet``).
    - ``workers``: 1 = in-process only; 2 = one persistent forked helper from the first large
      level on; ``None``
      (default) = 2 when a second core is idle (see ``_auto_workers``). Counts, verdicts
      and traces do not depend on it (bounds included: chunks are aligned).

    Ctrl-C stops cleanly: the result is incomplete with ``stop_reason="interrupted"``;
    SIGTERM (``kill``, ``timeout``) likewise, with ``stop_reason="terminated (SIGTERM)"``
    (only when SIGTERM had its default action: a caller's own handler is kept). The
    forked helper dies with this process however it ends (``_die_with_parent``).
    Returns a :class:`~checker.model.Result` with ``backend="local"``.
    """
    args = (model, max_states, max_depth, timeout, memory_limit_mb, fingerprint_bits,
            property_ids, stop_on_violation, progress, workers)
    explorer = _Explorer(*args, por=por)
    result = explorer.run()
    stopped = result.statistics.stop_reason
    if explorer.reduced and (not stopped or stopped.startswith(("max_states", "max_depth"))):
        # not after Ctrl-C, SIGTERM, a timeout or the memory guard: the run is over
        _shortest_traces(result, explorer.props, args, time.perf_counter() - explorer.start,
                         explorer.first_reduced or 0)
    return result


def _shortest_traces(result: Result, props: list, args: tuple, spent: float, exact_to: int = 0) -> None:
    """A reduced search may reach a violation or a witness of an ``always``/``sometimes``
    property by a longer path than the shortest: re-run the search unreduced, bounded by
    the depth of the longest such trace, and take its (shortest) traces. Not needed for
    ``at_quiescence`` properties and ``settled`` ones: the reduction keeps every settled
    state at its shortest depth (docs/por.md). Lassos are kept as found. If the re-run
    does not get there (its own bounds), the reduced search's traces stay.

    ``exact_to``: the first level with a parent expanded with a reduced set. Every parent
    above it was expanded fully, so levels ``0 .. exact_to`` hold exactly the states an
    unreduced search puts there, in the same order: a trace no longer than ``exact_to`` is
    already the unreduced search's, and needs no re-run (session 36: with the whole
    catalogue checked, most runs have witnesses near the top and reduce only at the end)."""
    exact = {p.id for p in props if p.kind in (Kind.ALWAYS, Kind.SOMETIMES) and not settled_only(p)}
    want = {pid: v.trace.length for pid, v in result.verdicts.items()
            if pid in exact and v.trace is not None and v.trace.loop_start is None
            and v.status in (Status.VIOLATED, Status.WITNESSED) and v.trace.length > exact_to}
    if not want:
        return
    model, max_states, max_depth, timeout, memory_limit_mb, bits, _ids, *rest = args
    depth = max(want.values())
    if max_depth is not None:
        depth = min(depth, max_depth)
    if timeout is not None:
        timeout = max(timeout - spent, 0.001)
    # judging only the properties whose traces are wanted (and the witnesses they name):
    # the re-run's verdicts of the others are not used
    full = _Explorer(model, max_states, depth, timeout, memory_limit_mb, bits, sorted(want), *rest, por=False).run()
    for pid in want:
        v, w = result.verdicts[pid], full.verdicts.get(pid)
        if w is not None and w.trace is not None and w.status is v.status and w.trace.length <= v.trace.length:
            v.trace = w.trace


def _select(model: Any, property_ids: Iterable[str] | None) -> list:
    return select_properties(model, property_ids)


def _auto_workers() -> int:
    """2 when the machine has a second core that is idle right now (load average below
    cores - 1) and ``os.fork`` exists, else 1. On a busy machine a second process only
    competes with the first (measured: benchmarks/RESULTS.md)."""
    cores = os.cpu_count() or 1
    if cores < 2 or not hasattr(os, "fork"):
        return 1
    try:
        load = os.getloadavg()[0]
    except OSError:  # pragma: no cover
        return 1
    return 2 if load < cores - 1 else 1


MEMORY_GUARD_SHARE = 0.8   # the default guard: this share of the memory available at the start


def _available_mb() -> float | None:
    """Memory this run could still take, in MB: the kernel's ``MemAvailable``
    (/proc/meminfo), or what the cgroup still allows (``memory.max - memory.current``,
    cgroup v2) when that is smaller. None where neither can be read (not Linux)."""
    found = []
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    found.append(int(line.split()[1]) / 1024)
                    break
    except (OSError, ValueError, IndexError):
        pass
    try:
        with open("/sys/fs/cgroup/memory.max") as f:
            limit = f.read().strip()
        if limit != "max":
            with open("/sys/fs/cgroup/memory.current") as f:
                found.append((int(limit) - int(f.read())) / 2**20)
    except (OSError, ValueError):
        pass
    return max(min(found), 0.0) if found else None


def default_memory_limit_mb() -> float | None:
    """The memory guard used when the caller gives none: this process's resident size now
    plus ``MEMORY_GUARD_SHARE`` (80%) of the memory available to it now (the smaller of
    the kernel's MemAvailable and the cgroup's headroom), at least 256 MB. Past it the run
    stops with an honest incomplete result rather than meeting a ``MemoryError`` or the
    kernel's out-of-memory killer. None (no guard) where the available memory cannot be
    read."""
    available = _available_mb()
    if available is None:
        return None
    return round(_rss_mb() + max(MEMORY_GUARD_SHARE * available, 256.0))


def _rss_mb() -> float:
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
    except OSError:  # pragma: no cover - not Linux
        import resource
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


class _Explorer:
    def __init__(self, model, max_states, max_depth, timeout, memory_limit_mb, bits,
                 property_ids, stop_on_violation, progress, workers, por: bool = False) -> None:
        self.model = model
        self.reduced = 0              # parents expanded with an ample set (partial-order reduction)
        self.first_reduced: int | None = None   # the first level with such a parent
        self.props = _select(model, property_ids)
        self.max_states, self.max_depth = max_states, max_depth
        self.timeout = timeout
        self.memory_note = ""
        if memory_limit_mb is None:
            memory_limit_mb = default_memory_limit_mb()
            self.memory_note = ", the default guard: 80% of the memory available at the start"
        elif memory_limit_mb == 0:
            memory_limit_mb = None   # no guard: the caller's choice
        self.memory_limit_mb = memory_limit_mb
        self.stop_on_violation, self.progress = stop_on_violation, progress
        if workers is None:
            workers = _auto_workers()
        self.workers = max(1, min(int(workers), 2))
        self.ctx = _Ctx(model, self.props, bits, por)
        self.parent = array("I")
        self.aidx = array("H")
        self.level_start = [0]        # level d = states level_start[d] .. level_start[d+1]-1
        self.expanded_levels = 0      # levels 0..expanded_levels-1 were expanded (the last maybe cut)
        self.generated = 0
        self.back_edge = False
        # internal edges recorded for the termination check: the graph the search explored
        # (after a reduced search, the reduced graph: it has a reachable cycle of internal
        # actions iff the full graph has one, docs/por.md)
        self.edges_ok = self.ctx.record_edges
        self.e_src, self.e_ai, self.e_fp = array("I"), array("H"), bytearray()
        self.found: dict[str, int] = {}   # prop id -> state index (violation or witness)
        self.stop_reason = ""
        self.cycle_reason = ""        # why the termination check's second pass did not finish
        self.start = 0.0
        self.last_progress = 0.0
        self.child: _Helper | None = None
        self._defer = False           # Ctrl-C held back while the visited set is updated
        self._closed = 0              # len(found) when the open property lists were last pruned
        self._pending = False
        self._interrupt = "interrupted"   # the stop reason of a KeyboardInterrupt (SIGINT or SIGTERM)
        self._signalled = False           # a SIGINT or SIGTERM has stopped the run: later ones are ignored
        self._stopper: StopSignals | None = None   # the handler taken over from a command (mqcheck fuzz)
        # Where a signal may raise KeyboardInterrupt: the search and the termination check.
        # It is also polled there (_check_bounds), because an exception raised inside a
        # garbage-collector callback or a __del__ is discarded by Python.
        self._raise_ok = False
        self._delivered = False           # a KeyboardInterrupt of that signal has been caught

    # ----- Ctrl-C and SIGTERM: one handler for the whole run
    def _on_sigint(self, signum, frame) -> None:
        self.stop_from_outside(INTERRUPTED_BY_SIGTERM if signum == signal.SIGTERM else "interrupted")

    def stop_from_outside(self, reason: str) -> None:
        """Stop as on Ctrl-C, with ``reason``: a signal, or the timeout of the command around
        this run (:class:`StopSignals`, which calls this from its SIGALRM handler)."""
        if self._signalled:
            # A second Ctrl-C or SIGTERM: the run is already stopping and its result is on
            # its way (building it takes up to about a second). Raising again would throw
            # that result away, so the repeat is ignored.
            return
        self._signalled = True
        self._interrupt = reason
        if self._stopper is not None and self._stopper.reason is None:
            self._stopper.reason = self._interrupt   # the command around this run stops too
        if self._defer:
            self._pending = True
        elif self._raise_ok:
            raise KeyboardInterrupt
        # else: the search is over (the result is being built or the run is closing): the
        # signal is recorded, and the run's result is returned as it is

    def _install_sigint(self) -> list:
        """Install the run's handler for SIGINT (Ctrl-C) and SIGTERM (``kill``, ``timeout``);
        return ``(signal, previous handler)`` for each installed. A signal is left alone
        where the run cannot handle it (not the main thread) or the caller chose otherwise:
        an ignored SIGINT stays ignored; SIGTERM is taken over only from its default action
        or from a :class:`StopSignals` (a caller's own SIGTERM handler stays)."""
        if threading.current_thread() is not threading.main_thread():
            return []
        installed = []
        previous = signal.getsignal(signal.SIGINT)
        if previous is not signal.SIG_IGN and previous is not None:
            signal.signal(signal.SIGINT, self._on_sigint)
            installed.append((signal.SIGINT, previous))
        previous = signal.getsignal(signal.SIGTERM)
        if previous is signal.SIG_DFL or isinstance(previous, StopSignals):
            signal.signal(signal.SIGTERM, self._on_sigint)
            installed.append((signal.SIGTERM, previous))
        for _, previous in installed:
            if isinstance(previous, StopSignals):
                self._stopper = previous
        if self._stopper is not None:   # its timeout stops this run as a signal would
            self._stopper.exploration = self.stop_from_outside
        return installed

    # ----- helpers
    @property
    def count(self) -> int:
        return len(self.parent)

    def _check_bounds(self, depth: int, frontier: int, new: int = 0, done: int = 0) -> None:
        """Stop at a bound (timeout, memory); print the progress line about once a second.
        ``new``/``done``: new states found and parents expanded so far in the level being
        built by this process (the helper's are read from the shared page), so the count
        moves within a large level."""
        if self._signalled and self._raise_ok and not self._delivered and not self._defer:
            raise KeyboardInterrupt   # a signal whose KeyboardInterrupt was discarded (see _raise_ok)
        now = time.perf_counter()
        if self.timeout is not None and now - self.start > self.timeout:
            raise _Stop(f"timeout ({self.timeout:g} s)")
        if self.memory_limit_mb is not None:
            used = _rss_mb() + (self.child.private_mb() if self.child is not None else 0.0)
            if used > self.memory_limit_mb:
                raise _Stop(f"memory limit ({self.memory_limit_mb:g} MB{self.memory_note})")
        if self.progress and now - self.last_progress >= 1.0:
            self.last_progress = now
            if self.child is not None and not self.child.reaped:
                h_new, h_done = self.child.progress()
                new, done = new + h_new, done + h_done
            count = self.count + new
            rate = count / max(now - self.start, 1e-9)
            level = f", level {done}/{frontier} expanded" if frontier and done else ""
            print(f"  {count} states, {rate:,.0f} states/s, depth {depth}, frontier {frontier}{level}",
                  file=sys.stderr, flush=True)

    def _add(self, part: _Part, depth: int) -> list:
        """Append a merged level to the visited set; record first violations/witnesses.
        Ctrl-C is held back until the visited set and parent pointers agree again."""
        self._defer = True
        try:
            return self._add_now(part)
        finally:
            self._defer = False
            if self._pending:
                self._pending = False
                raise KeyboardInterrupt

    def _add_now(self, part: _Part) -> list:
        keep = len(part.fps)   # with a helper, part.states holds only this process's share
        if self.max_states is not None and self.count + keep > self.max_states:
            keep = max(self.max_states - self.count, 0)
            self.stop_reason = "max_states reached"
        elif part.cut:
            self.stop_reason = part.cut
        if keep and self.count + keep > 2**32 - 1:
            raise ExplorationError("more than 4,294,967,295 states: beyond this explorer's uint32 indices")
        base = self.count
        for k, pid in part.hits:
            if k < keep and pid not in self.found:
                self.found[pid] = base + k
        if max(part.aidx[:keep], default=0) > 65535:
            raise ExplorationError("a state has more than 65,535 actions: beyond this explorer's uint16 action positions")
        self.parent.extend(part.parents[:keep])
        self.aidx.extend(part.aidx[:keep])
        self.ctx.visited.add_digests(part.fps[:keep], base)
        if keep:
            self.level_start.append(self.count)
        self._close_found()
        if self.child is not None and not self.stop_reason:
            self.child.send(("commit", base, b"".join(part.fps), part.keep))
            self.child.share = part.keep.count(1)
        return part.states[:keep]

    def _close_found(self) -> None:
        if len(self.found) == self._closed:
            return
        self._closed = len(self.found)
        self.ctx.keep_open(self.found)

    def _violated_any(self) -> bool:
        kinds = {p.id: p.kind for p in self.props}
        return any(kinds[i] is not Kind.SOMETIMES for i in self.found)

    # ----- the search
    def run(self) -> Result:
        self.start = self.last_progress = time.perf_counter()
        installed = self._install_sigint()
        gc_was_enabled = gc.isenabled()
        # States are acyclic tuples: the cyclic collector only burns time walking the
        # frontier (and, after a fork, would write to every shared page). Off for the run.
        gc.disable()
        try:
            self._raise_ok = True
            self._search()
            self._raise_ok = False
            return self._result()
        finally:
            self._raise_ok = False
            if gc_was_enabled:
                # Collect what the run allocated now, while a signal is only recorded (a
                # first Ctrl-C here used to raise out of this block, leaving this run's
                # handlers installed), rather than at the caller's next allocation.
                gc.enable()
                gc.collect(0)
            for signum, previous in installed:
                signal.signal(signum, previous)
            if self._stopper is not None:
                self._stopper.exploration = None

    def _level_size(self, frontier: list) -> int:
        """States of the level to expand next: this process's share ``frontier`` plus the
        helper's (a level may be held by the helper alone)."""
        return len(frontier) + (self.child.share if self.child is not None else 0)

    def _search(self) -> None:
        frontier: list = []
        depth = 0
        try:
            frontier = self._init_level()
            while self._level_size(frontier) and not self.stop_reason:
                if self.stop_on_violation and self._violated_any():
                    self.stop_reason = "stopped at first violation"
                    break
                last = self.max_depth is not None and depth >= self.max_depth
                part = self._expand_level(frontier, depth, last)
                for parent_idx, pid in part.quiet_fail:
                    if pid not in self.found:
                        self.found[pid] = parent_idx
                self.expanded_levels = depth + 1
                self._close_found()
                self.back_edge |= part.back_edge
                self._keep_edges(part)
                if last:
                    if part.fps:   # new states in either process's share
                        self.stop_reason = "max_depth reached"
                    break
                frontier = self._add(part, depth + 1)
                depth += 1
            if self.stop_on_violation and self._violated_any() and not self.stop_reason and self._level_size(frontier):
                self.stop_reason = "stopped at first violation"
        except _Stop as stop:
            self.stop_reason = stop.reason
        except KeyboardInterrupt:
            self._delivered = True
            self.stop_reason = self._interrupt
        except MemoryError:
            # the guard's last line: an allocation failed (e.g. under ``ulimit -v``) before
            # the limit was seen; the level being built is dropped, which frees its memory
            frontier = []
            self.stop_reason = "out of memory (MemoryError)"
        finally:
            if self.child is not None:
                self.child.close()
                self.child = None
        if self.progress:
            print(f"  done: {self.count} states, depth {max(len(self.level_start) - 2, 0)}"
                  + (f" ({self.stop_reason})" if self.stop_reason else ""), file=sys.stderr, flush=True)

    def _initial_within_timeout(self) -> list:
        """``model.init_states()`` within ``timeout``. It is one call (the settled initial
        configuration) that never reaches ``_check_bounds``: 30 full repositories in a full
        mesh took 42 s to settle, and ``check --timeout 10`` ran that long (a user trial).
        A real-time timer stops it at the timeout, where no caller uses SIGALRM or the
        timer (main thread only). What it raises is no ``Exception``, which the model may
        catch (spec.network.memo)."""
        if self.timeout is None or self.timeout > TIMER_MAX_SECONDS or not sigalrm_free():
            return list(self.model.init_states())
        remaining = self.timeout - (time.perf_counter() - self.start)
        if remaining <= 0:
            raise _Stop(f"timeout ({self.timeout:g} s)")

        def on_alarm(signum, frame):
            raise _InitTimeout

        signal.signal(signal.SIGALRM, on_alarm)
        try:
            try:
                signal.setitimer(signal.ITIMER_REAL, remaining)
                return list(self.model.init_states())
            finally:   # the timer fires once: if it fires here, it is caught below all the same
                signal.setitimer(signal.ITIMER_REAL, 0)
        except _InitTimeout:
            raise _Stop(f"timeout ({self.timeout:g} s)") from None
        finally:
            signal.signal(signal.SIGALRM, signal.SIG_DFL)

    def _init_level(self) -> list:
        part = _Part()
        level: dict = {}
        ctx = self.ctx
        inits = self._initial_within_timeout()
        for i, s in enumerate(inits):
            part.generated += 1
            if s in level:
                continue
            level[s] = True
            f = ctx.digest_of(s)
            if f in part.fps:
                continue
            n = len(part.states)
            part.states.append(s)
            part.fps.append(f)
            part.parents.append(2**32 - 1)   # no parent: aidx = position in init_states()
            part.aidx.append(i)
            for pid in ctx.judge.hits(s):
                part.hits.append((n, pid))
        self.generated += part.generated
        return self._add(part, 0)

    def _cut_here(self, part: _Part, violated: bool, end: int, n: int, last: bool) -> str:
        """Why the level stops after the chunk ending at parent position ``end`` ("" = go on)."""
        if violated and self.stop_on_violation and end < n:
            return "stopped at first violation"
        if not last and self.max_states is not None and self.count + len(part.fps) > self.max_states:
            return "max_states reached"
        return ""

    def _expand_level(self, frontier: list, depth: int, last: bool) -> _Part:
        """Expand one level chunk by chunk. With two workers, the persistent helper holds
        the level's positions from ``len(frontier)`` on and expands them at the same time;
        chunk ends are at multiples of CHUNK in either process (so where a bound cuts the
        level does not depend on the number of workers)."""
        base = self.level_start[depth]
        ctx = self.ctx
        helper = self.child
        if helper is None and self.workers > 1 and len(frontier) >= PARALLEL_MIN_LEVEL and not last:
            split = max(CHUNK, (len(frontier) // 2) // CHUNK * CHUNK)
            if split < len(frontier):
                helper = self.child = _Helper(ctx, frontier[split:])
                del frontier[split:]
        mine = len(frontier)
        n = mine + (helper.share if helper is not None else 0)
        if helper is not None:
            helper.send(("expand", base, mine, frozenset(self.found), self.stop_on_violation, ctx.record_edges))
        part = _Part()
        level = _Level()
        shared_violation = False
        check = self._check_bounds
        for lo in range(0, mine, CHUNK):
            had = len(part.fps)
            check(depth, n, had, lo)
            ctx.tick = lambda done, cands: check(depth, n, had + cands, lo + done)  # noqa: B023 - called in this iteration
            nh, nq = len(part.hits), len(part.quiet_fail)
            end = min(lo + CHUNK, mine)
            _expand(ctx, frontier, lo, end, base, level, part)
            violated = _violation_in(ctx, part, nh, nq)
            if end % CHUNK and end < n:
                shared_violation = violated   # the chunk goes on in the helper: decided there
                break
            part.cut = self._cut_here(part, violated, end, n, last)
            if part.cut:
                break
        ctx.tick = None
        del level
        if helper is not None and not part.cut:
            other, fps, origins = helper.result(lambda: self._check_bounds(depth, n, len(part.fps), mine))
            self._merge_helper(part, other, fps, origins, mine, n, last, shared_violation, base)
        self.generated += part.generated
        self.reduced += part.reduced
        if part.reduced and self.first_reduced is None:
            self.first_reduced = depth   # levels 0..depth are those of an unreduced search
        return part

    def _merge_helper(self, out: _Part, other: _Part, fps: list, origins: array, mine: int, n: int,
                      last: bool, shared_violation: bool, base: int) -> None:
        """Append the helper's new states (fingerprints and origins) to ``out`` in order,
        dropping those ``out`` already has (``out.keep`` says which stayed), and cut after
        the first chunk where a bound is hit (as one process would): the recorded edges of
        parents past the cut are dropped too."""
        seen = set(out.fps)
        hits: dict[int, list] = {}
        for k, pid in other.hits:
            hits.setdefault(k, []).append(pid)
        keep = bytearray(len(fps))
        pfps, parents, aidx = out.fps, out.parents, out.aidx
        k = 0
        pos = mine
        generated, quiet, back_edge = other.generated, len(other.quiet_fail), other.back_edge
        for end_k, gen_c, quiet_c, back_c, violated in other.marks:
            while k < end_k:
                f = fps[k]
                if f not in seen:
                    seen.add(f)
                    keep[k] = 1
                    if k in hits:
                        m = len(pfps)
                        out.hits.extend((m, pid) for pid in hits[k])
                    pfps.append(f)
                    o = origins[k]
                    parents.append(o >> 32)
                    aidx.append(o & 0xFFFFFFFF)
                k += 1
            pos = min(n, pos // CHUNK * CHUNK + CHUNK)
            out.cut = self._cut_here(out, violated or shared_violation, pos, n, last)
            shared_violation = False
            if out.cut:
                generated, quiet, back_edge = gen_c, quiet_c, back_c
                break
        out.generated += generated
        out.reduced += other.reduced
        edges = len(other.e_src)
        if out.cut:   # keep the edges of the parents before ``pos`` (the end of the cutting chunk)
            edges = bisect_left(other.e_src, base + pos)
        out.e_src.extend(other.e_src[:edges])
        out.e_ai.extend(other.e_ai[:edges])
        out.e_fp += other.e_fp[:edges * self.ctx.digest]
        out.quiet_fail.extend(other.quiet_fail[:quiet])
        out.back_edge |= back_edge
        out.keep = bytes(keep)

    def _keep_edges(self, part: _Part) -> None:
        """Add a level's recorded edges; past EDGE_LIMIT stop recording (and drop them)."""
        if not self.edges_ok:
            return
        self.e_src.extend(part.e_src)
        self.e_ai.extend(part.e_ai)
        self.e_fp += part.e_fp
        if len(self.e_src) > EDGE_LIMIT:
            self.edges_ok = self.ctx.record_edges = False
            self.e_src, self.e_ai, self.e_fp = array("I"), array("H"), bytearray()

    # ----- results
    def _result(self) -> Result:
        termination = [p for p in self.props if p.kind is Kind.EVENTUALLY]
        lasso = None
        explored_all = not self.stop_reason
        if termination and self.back_edge and not stopped_by_signal(self.stop_reason) \
                and not self.stop_reason.startswith(("timeout", "memory", "out of memory")):
            try:
                if self._signalled:   # a signal between the search and this check: not started
                    self._delivered = True
                    raise KeyboardInterrupt
                self._raise_ok = True
                lasso = self._find_cycle()
            except _Stop as stop:
                self.cycle_reason = stop.reason
            except KeyboardInterrupt:
                self._delivered = True
                self.cycle_reason = self._interrupt
            except MemoryError:
                self.cycle_reason = "out of memory (MemoryError)"
            finally:
                self._raise_ok = False
            if self.cycle_reason:
                self.stop_reason = self.stop_reason or f"{self.cycle_reason} during the termination check"
        self.ctx.visited.flush()
        seconds = time.perf_counter() - self.start
        complete = not self.stop_reason
        n = self.count
        depth = max(len(self.level_start) - 2, 0)
        bits = self.ctx.bits
        visited_bytes = self.ctx.visited.nbytes + self.parent.itemsize * n + self.aidx.itemsize * n
        stats = Statistics(
            distinct_states=n,
            generated_states=self.generated,
            max_depth=depth,
            seconds=round(seconds, 6),
            states_per_second=round(n / seconds, 1) if seconds > 0 else 0.0,
            fingerprint_bits=bits,
            collision_probability=collision_probability(n, self.generated, bits),
            visited_bytes_per_state=round(visited_bytes / n, 2) if n else 0.0,
            complete=complete,
            stop_reason=self.stop_reason,
            levels=[b - a for a, b in zip(self.level_start, self.level_start[1:])],
            reduced=self.reduced,
        )
        verdicts: dict[str, Verdict] = {}
        for p in self.props:
            verdicts[p.id] = self._verdict(p, stats, lasso, explored_all)
        for p in self.props:
            v = verdicts[p.id]
            if p.witness and v.status is not Status.VIOLATED:
                v.witness = p.witness
                v.vacuous = verdicts[p.witness].status is not Status.WITNESSED
        return Result(model_name(self.model), BACKEND, stats, verdicts)

    def _verdict(self, p, stats: Statistics, lasso, explored_all: bool) -> Verdict:
        """``explored_all``: the first pass finished (only the termination check may not have)."""
        v = Verdict(p.id, p.kind.value, Status.HOLDS, title=p.title, citation=p.citation,
                    distinct_states=stats.distinct_states, depth=stats.max_depth,
                    reason=stats.stop_reason)
        bounded = Status.HOLDS if explored_all else Status.HOLDS_UP_TO_BOUND
        if p.kind is Kind.CONFIG:
            v.status = Status.NOT_CHECKED
            v.note = "config properties are proved with Z3 (mqcheck prove)"
        elif p.kind is Kind.EVENTUALLY:
            if lasso is not None:
                v.status, v.trace = Status.VIOLATED, lasso
            else:
                v.status = Status.HOLDS if stats.complete else Status.HOLDS_UP_TO_BOUND
        elif p.kind is Kind.SOMETIMES:
            if p.id in self.found:
                v.status, v.trace = Status.WITNESSED, self._trace_to(self.found[p.id])
            else:
                v.status = Status.NEVER_REACHED if explored_all else Status.NOT_REACHED_UP_TO_BOUND
        elif p.id in self.found:
            v.status, v.trace = Status.VIOLATED, self._trace_to(self.found[p.id])
        else:
            v.status = bounded
        if v.status not in (Status.HOLDS_UP_TO_BOUND, Status.NOT_REACHED_UP_TO_BOUND):
            v.reason = ""
        return v

    # ----- traces
    def _path(self, idx: int) -> list[int]:
        path = [idx]
        while self.parent[path[-1]] != 2**32 - 1:
            path.append(self.parent[path[-1]])
        return path[::-1]

    def _replay(self, path: list[int]) -> tuple[list, list]:
        """Full states and actions along a path of state indices (checked by fingerprint)."""
        model = self.model
        inits = list(model.init_states())
        s = inits[self.aidx[path[0]]]
        states, acts = [s], []
        for idx in path[1:]:
            a = list(model.actions(s))[self.aidx[idx]]
            s = model.next_state(s, a)
            states.append(s)
            acts.append(a)
        want = self.ctx.visited.find([self.ctx.digest_of(states[-1])])[0]
        if want != path[-1]:
            raise ExplorationError(_NOT_DETERMINISTIC)
        return states, acts

    def _trace_to(self, idx: int) -> Trace:
        states, acts = self._replay(self._path(idx))
        return _make_trace(self.model, self.ctx, states, acts)

    # ----- termination: the edges, then a lasso
    def _find_cycle(self) -> Trace | None:
        """Look for a cycle of internal edges among the explored states: over the edges
        recorded while they were expanded (when they fitted in EDGE_LIMIT; after a reduced
        search, the reduced graph's), else over those found by expanding them again (a second pass). The bounds (timeout, memory)
        apply, and Ctrl-C stops it."""
        model = self.model
        # After a reduced search the recorded edges are the reduced graph's: every ample set
        # holds internal actions only and is persistent, so an infinite run of internal
        # actions from a state gives one in the reduced graph (docs/por.md, "eventually"),
        # and whether a back edge exists was already judged on that graph. Re-expanding
        # every state in full instead cost as much as the search again (session 36).
        if self.edges_ok:
            src, dst, act = self._recorded_edges()
        else:
            src, dst, act = self._reexpanded_edges()
        tick = lambda: self._check_bounds(self.expanded_levels, 0)  # noqa: E731
        found = _lasso(self.count, np.frombuffer(src, np.uint32), np.frombuffer(dst, np.uint32), tick)
        if found is None:
            return None
        entry, cycle = found
        prefix = self._path(entry)
        states, acts = self._replay(prefix)
        edge_action: dict = {}
        for u, v, a in zip(src, dst, act):
            edge_action.setdefault((u, v), a)
        s = entry_state = states[-1]
        ring = cycle[1:] + cycle[:1]
        for u, v in zip(cycle, ring):
            a = list(model.actions(s))[edge_action[(u, v)]]
            s = model.next_state(s, a)
            if s is None or self.ctx.visited.find([self.ctx.digest_of(s)])[0] != v:
                raise ExplorationError(_NOT_DETERMINISTIC)
            states.append(s)
            acts.append(a)
        # The cycle was found among fingerprints: it is a lasso only if the replay comes back
        # to the very state it left (two states sharing a fingerprint make a cycle that the
        # model does not have, and a terminating model would be reported violated).
        closed = model.encode(s) == model.encode(entry_state)
        if not closed or not all(is_internal(model, a) for a in acts[len(prefix) - 1:]):
            raise ExplorationError(
                "the cycle found does not replay as a cycle of internal actions: two states share a "
                f"{self.ctx.bits}-bit fingerprint (a collision; run again with 128-bit fingerprints)")
        return _make_trace(model, self.ctx, states, acts, loop_start=len(prefix) - 1)

    def _recorded_edges(self) -> tuple[array, array, array]:
        """The recorded internal edges whose target was visited, in the order recorded (the
        order a second pass would find them: level by level, parent by parent, action by
        action), targets looked up by fingerprint."""
        size = self.ctx.digest
        fp = bytes(self.e_fp)
        src, dst, act = array("I"), array("I"), array("H")
        step = 1 << 16
        for lo in range(0, len(self.e_src), step):
            self._check_bounds(self.expanded_levels, 0)
            hi = min(lo + step, len(self.e_src))
            idx = self.ctx.visited.find([fp[k * size:(k + 1) * size] for k in range(lo, hi)])
            for k, v in zip(range(lo, hi), idx):
                if v >= 0:
                    src.append(self.e_src[k])
                    dst.append(v)
                    act.append(self.e_ai[k])
        return src, dst, act

    def _reexpanded_edges(self) -> tuple[array, array, array]:
        """The internal edges among the explored states, found by expanding them again."""
        model, ctx = self.model, self.ctx
        internal = ctx.internal
        src, dst, act = array("I"), array("I"), array("H")
        inits = list(model.init_states())
        level = [inits[self.aidx[i]] for i in range(self.level_start[0], self.level_start[1] if len(self.level_start) > 1 else self.count)]
        for d in range(self.expanded_levels):
            base = self.level_start[d]
            nxt_base = self.level_start[d + 1] if d + 1 < len(self.level_start) else self.count
            nxt_end = self.level_start[d + 2] if d + 2 < len(self.level_start) else self.count
            nxt: list = [None] * (nxt_end - nxt_base)
            for lo in range(0, len(level), CHUNK):
                self._check_bounds(d, len(level))
                succ, owners, aids, inner = [], [], [], []
                for k in range(lo, min(lo + CHUNK, len(level))):
                    s = level[k]
                    for ai, a in enumerate(model.actions(s)):
                        t = model.next_state(s, a)
                        if t is None:
                            continue
                        succ.append(t)
                        owners.append(base + k)
                        aids.append(ai)
                        inner.append(True if internal is None else bool(internal(a)))
                if not succ:
                    continue
                idx = ctx.visited.find([ctx.digest_of(t) for t in succ])
                for j, v in enumerate(idx):
                    if v < 0:
                        continue
                    if inner[j]:
                        src.append(owners[j])
                        dst.append(v)
                        act.append(aids[j])
                    if nxt_base <= v < nxt_end and self.parent[v] == owners[j] and self.aidx[v] == aids[j]:
                        nxt[v - nxt_base] = succ[j]
            level = nxt
        return src, dst, act


def _lasso(n: int, src: np.ndarray, dst: np.ndarray, tick: Callable[[], None] = lambda: None):
    """The shortest-entry lasso in the graph with edges src[i]→dst[i] (state indices in
    BFS order), or None: ``(entry, cycle)`` where ``entry`` is the state with the smallest
    index (= smallest BFS depth, then lowest index) that lies on some cycle (a non-trivial
    strongly connected component, or a self-loop), and ``cycle`` a shortest cycle through
    it (BFS inside its component, edges in the order they were recorded), starting at
    ``entry``. The prefix to ``entry`` is its BFS parent path (shortest). Deterministic;
    ``tick`` is called now and then (bounds)."""
    if not len(src):
        return None
    # peel states that cannot reach a cycle (out-degree 0, repeatedly): what is left is
    # every cycle plus the paths between them
    outdeg = np.bincount(src, minlength=n).astype(np.int64)
    order = np.argsort(dst, kind="stable")
    rev_src = src[order]
    rev_ptr = np.searchsorted(dst[order], np.arange(n + 1))
    stack = np.nonzero(outdeg == 0)[0].tolist()
    steps = 0
    while stack:
        v = stack.pop()
        steps += 1
        if steps % 65536 == 0:
            tick()
        for u in rev_src[rev_ptr[v]:rev_ptr[v + 1]].tolist():
            outdeg[u] -= 1
            if outdeg[u] == 0:
                stack.append(u)
    alive = outdeg > 0
    if not alive.any():
        return None
    fwd = np.argsort(src, kind="stable")
    f_dst = dst[fwd]
    f_ptr = np.searchsorted(src[fwd], np.arange(n + 1))

    def succ(v: int) -> list[int]:
        return [w for w in f_dst[f_ptr[v]:f_ptr[v + 1]].tolist() if alive[w]]

    # strongly connected components of the alive subgraph (iterative Tarjan); keep the
    # one holding the smallest index among the components that contain a cycle
    index: dict[int, int] = {}
    low: dict[int, int] = {}
    comp: dict[int, int] = {}
    on_stack: set[int] = set()
    tstack: list[int] = []
    counter = 0
    best = None
    best_comp: list[int] = []
    for root in np.nonzero(alive)[0].tolist():
        if root in index:
            continue
        work = [(root, iter(succ(root)))]
        index[root] = low[root] = counter
        counter += 1
        tstack.append(root)
        on_stack.add(root)
        while work:
            v, it = work[-1]
            advanced = False
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    tstack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(succ(w))))
                    advanced = True
                    break
                if w in on_stack:
                    low[v] = min(low[v], index[w])
            if advanced:
                continue
            work.pop()
            if work:
                u = work[-1][0]
                low[u] = min(low[u], low[v])
            if low[v] == index[v]:
                members = []
                while True:
                    w = tstack.pop()
                    on_stack.discard(w)
                    comp[w] = v
                    members.append(w)
                    if w == v:
                        break
                if len(members) > 1 or v in succ(v):
                    m = min(members)
                    if best is None or m < best:
                        best, best_comp = m, members
            if counter % 65536 == 0:
                tick()
    if best is None:
        return None
    # shortest cycle through `best` inside its component: BFS from best until an edge
    # back to best
    inside = set(best_comp)
    if best in succ(best):
        return best, [best]
    prev = {best: -1}
    queue = [best]
    for v in queue:
        for w in succ(v):
            if w not in inside:
                continue
            if w == best:
                path = [v]
                while prev[path[-1]] != -1:
                    path.append(prev[path[-1]])
                return best, path[::-1]
            if w not in prev:
                prev[w] = v
                queue.append(w)
    raise AssertionError("a strongly connected component without a cycle")  # pragma: no cover


def _json_clean(d: dict) -> dict:
    return json.loads(json.dumps(d, default=str))


def _make_trace(model: Any, ctx: _Ctx, states: list, acts: list, loop_start: int | None = None) -> Trace:
    prev = _json_clean(describe_state(model, states[0]))
    steps = [TraceStep(None, prev, format(ctx.fp(states[0]), "x"))]
    missing = object()
    for a, s in zip(acts, states[1:]):
        cur = _json_clean(describe_state(model, s))
        changed = {k: v for k, v in cur.items() if prev.get(k, missing) != v}
        changed.update({k: None for k in prev if k not in cur})
        inner = True if ctx.internal is None else bool(ctx.internal(a))
        steps.append(TraceStep(describe_action(model, a), changed, format(ctx.fp(s), "x"), inner))
        prev = cur
    return Trace(steps, loop_start)
