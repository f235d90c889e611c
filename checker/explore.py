"""The local explicit-state explorer: breadth-first search over a :class:`~checker.model.Model`.

Entry point: :func:`explore`. Anchors: TLC (fingerprint set, BFS, shortest traces, the
collision-probability estimate) and Stateright's ``bfs.rs``.

How it works (level-synchronous BFS):

- The visited set holds **fingerprints and parent pointers only** — a sorted ``uint64``
  array of 64-bit ``blake2b`` fingerprints of ``model.encode(state)`` (plus a second
  ``uint64`` array for 128-bit fingerprints), the state index of each sorted entry
  (``uint32``), and per state its parent's index (``uint32``) and the position of the
  action in ``model.actions(parent)`` (``uint16``): 18 bytes per state (26 at 128 bits),
  reported as ``visited_bytes_per_state``. Full states live only in the current frontier
  and the next level being built. Python ``hash()`` is never used for fingerprints.
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
- With ``workers=2`` (the default when a second core is idle and ``os.fork`` exists),
  each large level is split in two contiguous halves; a forked child expands the second
  half (it inherits the frontier and the visited set copy-on-write) while this process
  expands the first, and the child's distinct successors come back pickled. Merging the
  halves in order gives exactly the sequential result: same counts, same traces.
- Termination (``eventually``: no reachable cycle of internal actions). In BFS every edge
  u→v satisfies depth(v) ≤ depth(u)+1, and around a cycle the depth differences sum to 0,
  so every cycle contains a *back edge* (depth(v) ≤ depth(u)). The first pass therefore
  only notes whether an internal action ever leads to an already-visited level — no edges
  are stored. If none does, termination holds at no memory cost (the FingerprintFlood
  models and most message-passing models are like this: depth is a function of the
  state). Otherwise a second pass re-expands the explored states along the parent tree,
  stores every internal edge among visited states (10 bytes per edge: this is the memory
  price of an exact answer, paid only when back edges exist), peels the states that
  cannot reach a cycle, and reports a lasso: the BFS-shortest prefix to the cycle state
  with the smallest index, then the cycle.

Bounds (``max_states``, ``max_depth``, ``timeout``, ``memory_limit_mb``) and Ctrl-C stop
the run with ``complete=False`` and a ``stop_reason``; verdicts are then "holds up to
bound", never "holds". A level interrupted half-way is discarded (its states are not
counted). Depth counts actions: initial states have depth 0.

Limits: state indices are ``uint32`` (4 billion states) and action positions ``uint16``
(65,535 actions per state); models beyond that get a clear error.
"""

from __future__ import annotations

import gc
import json
import os
import pickle
import signal
import sys
import threading
import time
import traceback
from array import array
from collections.abc import Callable, Iterable
from contextlib import contextmanager
from dataclasses import dataclass, field
from hashlib import blake2b
from typing import Any

import numpy as np

from checker.model import (
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
    model_name,
)

BACKEND = "local"
PARALLEL_MIN_LEVEL = 2000   # levels smaller than this are expanded in-process
CHUNK = 2048                # parents per chunk between bound/progress checks



class ExplorationError(RuntimeError):
    """The model misbehaved (e.g. replaying a trace gave a different state)."""


class _Stop(Exception):
    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


# --------------------------------------------------------------------------- fingerprints
def fingerprint(data: bytes, bits: int = 64) -> int:
    """The ``bits``-bit blake2b fingerprint of canonical state bytes, as an int.

    >>> fingerprint(b"abc") == fingerprint(b"abc") != fingerprint(b"abd")
    True
    >>> fingerprint(b"abc", 128) >> 64 > 0
    True
    """
    return int.from_bytes(blake2b(data, digest_size=bits // 8).digest(), "little")


class FingerprintSet:
    """Sorted fingerprint arrays with the state index of each entry.

    64-bit fingerprints: one sorted ``uint64`` array. 128-bit: sorted by the high word,
    the low word alongside (equal high words are resolved by a short scan).
    """

    def __init__(self, bits: int) -> None:
        if bits not in (64, 128):
            raise ValueError(f"fingerprint_bits must be 64 or 128, got {bits}")
        self.bits = bits
        self.hi = np.empty(0, np.uint64)
        self.lo = np.empty(0, np.uint64) if bits == 128 else None
        self.idx = np.empty(0, np.uint32)

    def split(self, fps: list[int]) -> tuple[np.ndarray, np.ndarray | None]:
        if self.bits == 64:
            return np.array(fps, dtype=np.uint64), None
        mask = (1 << 64) - 1
        return (np.array([f >> 64 for f in fps], dtype=np.uint64),
                np.array([f & mask for f in fps], dtype=np.uint64))

    def lookup(self, hi: np.ndarray, lo: np.ndarray | None) -> np.ndarray:
        """State index of each fingerprint, or -1 (int64 array)."""
        out = np.full(len(hi), -1, dtype=np.int64)
        if not len(self.hi) or not len(hi):
            return out
        left = np.searchsorted(self.hi, hi, "left")
        if self.lo is None:
            inside = left < len(self.hi)
            hit = np.zeros(len(hi), dtype=bool)
            hit[inside] = self.hi[left[inside]] == hi[inside]
            out[hit] = self.idx[left[hit]]
            return out
        right = np.searchsorted(self.hi, hi, "right")
        for k in np.nonzero(right > left)[0]:
            for p in range(left[k], right[k]):
                if self.lo[p] == lo[k]:
                    out[k] = self.idx[p]
                    break
        return out

    def add(self, hi: np.ndarray, lo: np.ndarray | None, idx: np.ndarray) -> None:
        if not len(hi):
            return
        order = np.argsort(hi, kind="stable")
        hi, idx = hi[order], idx[order]
        pos = np.searchsorted(self.hi, hi)
        self.hi = np.insert(self.hi, pos, hi)
        self.idx = np.insert(self.idx, pos, idx.astype(np.uint32))
        if lo is not None:
            self.lo = np.insert(self.lo, pos, lo[order])

    @property
    def nbytes(self) -> int:
        return self.hi.nbytes + self.idx.nbytes + (self.lo.nbytes if self.lo is not None else 0)


# --------------------------------------------------------------------------- expansion
@dataclass
class _Part:
    """What expanding a slice of the frontier produced (picklable: children send it)."""

    states: list = field(default_factory=list)      # new distinct successors, in order
    fps: list = field(default_factory=list)         # their fingerprints
    parents: list = field(default_factory=list)     # global index of the discovering parent
    aidx: list = field(default_factory=list)        # action position in actions(parent)
    hits: list = field(default_factory=list)        # (k, prop id): always failed / sometimes held on states[k]
    quiet_fail: list = field(default_factory=list)  # (parent global index, prop id)
    generated: int = 0
    back_edge: bool = False


class _Ctx:
    """Everything an expansion needs; inherited by forked children."""

    def __init__(self, model: Any, props: list, bits: int) -> None:
        self.model = model
        self.bits = bits
        self.digest = bits // 8
        fn = getattr(model, "is_internal", None)
        self.internal: Callable[[Any], bool] | None = fn
        self.open_always = [p for p in props if p.kind is Kind.ALWAYS]
        self.open_sometimes = [p for p in props if p.kind is Kind.SOMETIMES]
        self.open_quiet = [p for p in props if p.kind is Kind.AT_QUIESCENCE]
        self.visited = FingerprintSet(bits)

    def fp(self, state: Any) -> int:
        return int.from_bytes(blake2b(self.model.encode(state), digest_size=self.digest).digest(), "little")


class _Level:
    """One process's view of the level being built: every distinct successor seen so far
    (``seen``: state -> candidate number, in order of discovery) and, for candidates of
    earlier chunks, whether they were already visited (``old``)."""

    __slots__ = ("seen", "old")

    def __init__(self) -> None:
        self.seen: dict = {}
        self.old = bytearray()


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
    first = n = len(level.seen)      # candidates numbered from `first` belong to this chunk
    cand: list = []
    origin: list = []        # (parent global index << 32) | action position
    inner_in: list = []      # reached by an internal action
    generated = 0
    back_edge = False
    if internal is None:
        # every action internal (the model has no is_internal): the common case, kept lean
        for i in range(lo, hi):
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
                if j == n:
                    n += 1
                    cand.append(t)
                    origin.append((base + i) << 32 | ai)
                elif j < first and old[j]:
                    back_edge = True
            if quiet and generated == before:
                for p in quiet:
                    if not p.predicate(model, s):
                        part.quiet_fail.append((base + i, p.id))
        inner_in = [True] * len(cand)
        lo = hi   # skip the general loop below
    for i in range(lo, hi):
        s = frontier[i]
        settled = True
        ai = -1
        for a in actions(s):
            ai += 1
            t = next_state(s, a)
            if t is None:
                continue
            generated += 1
            inner = True if internal is None else bool(internal(a))
            if inner:
                settled = False
            j = setdefault(t, n)
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
            for p in quiet:
                if not p.predicate(model, s):
                    part.quiet_fail.append((base + i, p.id))
    part.generated += generated
    if cand:
        back_edge |= _resolve(ctx, cand, origin, inner_in, level, part)
    part.back_edge |= back_edge


def _resolve(ctx: _Ctx, cand: list, origin: list, inner_in: list, level: _Level, part: _Part) -> bool:
    """Fingerprint a chunk's distinct successors, drop the visited ones, check the new ones
    against the open always/sometimes properties. True if an internal edge hit a visited state."""
    model = ctx.model
    encode, size, from_bytes = model.encode, ctx.digest, int.from_bytes
    fps = [from_bytes(blake2b(encode(t), digest_size=size).digest(), "little") for t in cand]
    h, l = ctx.visited.split(fps)
    old = ctx.visited.lookup(h, l) >= 0
    level.old.extend(old.astype(np.uint8).tobytes())
    back_edge = bool(np.any(old & np.array(inner_in, dtype=bool)))
    always, sometimes = ctx.open_always, ctx.open_sometimes
    states, pfps, parents, aidx, hits = part.states, part.fps, part.parents, part.aidx, part.hits
    for k in (np.nonzero(~old)[0].tolist() if old.any() else range(len(cand))):
        t = cand[k]
        m = len(states)
        states.append(t)
        pfps.append(fps[k])
        parents.append(origin[k] >> 32)
        aidx.append(origin[k] & 0xFFFFFFFF)
        for p in always:
            if not p.predicate(model, t):
                hits.append((m, p.id))
        for p in sometimes:
            if p.predicate(model, t):
                hits.append((m, p.id))
    return back_edge


def _expand_in_child(ctx: _Ctx, frontier: list, lo: int, hi: int, base: int) -> tuple[int, int]:
    """Fork a child that expands ``frontier[lo:hi]`` and writes a pickled _Part to a pipe."""
    r, w = os.pipe()
    # Objects alive now are shared copy-on-write with the child: keep the cyclic garbage
    # collector of either process from writing to all of them (unfrozen after the level).
    gc.freeze()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - runs in the child
        try:
            gc.disable()   # the child lives for one level; its memory is freed on exit
            signal.signal(signal.SIGINT, signal.SIG_IGN)
            os.close(r)
            part = _Part()
            _expand(ctx, frontier, lo, hi, base, _Level(), part)
            payload = pickle.dumps(("ok", part), pickle.HIGHEST_PROTOCOL)
        except BaseException as e:  # noqa: BLE001 - reported to the parent
            payload = pickle.dumps(("error", type(e).__name__, traceback.format_exc()))
        try:
            with os.fdopen(w, "wb") as f:
                f.write(payload)
        finally:
            os._exit(0)
    os.close(w)
    return pid, r


def _collect_child(pid: int, fd: int) -> _Part:
    with os.fdopen(fd, "rb") as f:
        data = f.read()
    os.waitpid(pid, 0)
    msg = pickle.loads(data)
    if msg[0] == "ok":
        return msg[1]
    if msg[1] == "KeyboardInterrupt":
        raise KeyboardInterrupt
    raise ExplorationError(f"a worker process failed with {msg[1]}:\n{msg[2]}")


def _kill_child(pid: int, fd: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    try:
        os.close(fd)
    except OSError:
        pass
    try:
        os.waitpid(pid, 0)
    except ChildProcessError:
        pass


def _merge(parts: list[_Part]) -> _Part:
    """Concatenate parts in order, dropping later copies of the same fingerprint.

    The first part is extended in place (it is this process's own, usually the larger)."""
    out = parts[0]
    if len(parts) == 1:
        return out
    seen = set(out.fps)
    for part in parts[1:]:
        out.generated += part.generated
        out.back_edge |= part.back_edge
        out.quiet_fail.extend(part.quiet_fail)
        hits: dict[int, list] = {}
        for k, pid in part.hits:
            hits.setdefault(k, []).append(pid)
        states, fps, parents, aidx = out.states, out.fps, out.parents, out.aidx
        for k, f in enumerate(part.fps):
            if f in seen:
                continue
            seen.add(f)
            if k in hits:
                n = len(states)
                out.hits.extend((n, pid) for pid in hits[k])
            states.append(part.states[k])
            fps.append(f)
            parents.append(part.parents[k])
            aidx.append(part.aidx[k])
    return out


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
) -> Result:
    """Explore every state reachable in ``model`` breadth-first and check its properties.

    - ``max_states``: stop once this many distinct states are known (incomplete).
    - ``max_depth``: do not add states deeper than this many actions (incomplete if some
      state at that depth has a successor not seen before).
    - ``timeout``: seconds of wall-clock time; ``memory_limit_mb``: resident-set size.
    - ``fingerprint_bits``: 64 (default) or 128.
    - ``property_ids``: check only these (plus the ``sometimes`` witnesses they name);
      unknown ids raise ``ValueError``.
    - ``stop_on_violation``: stop after the BFS level where the first violation appears.
    - ``progress``: print distinct states, states/s, depth and frontier size to stderr
      about once a second (the CLI passes ``sys.stderr.isatty() and not quiet``).
    - ``workers``: 1 = in-process only; 2 = fork one helper per large level; ``None``
      (default) = 2 when a second core is idle (see ``_auto_workers``). Counts, verdicts
      and traces do not depend on it.

    Ctrl-C stops cleanly: the result is incomplete with ``stop_reason="interrupted"``.
    Returns a :class:`~checker.model.Result` with ``backend="local"``.
    """
    return _Explorer(model, max_states, max_depth, timeout, memory_limit_mb, fingerprint_bits,
                     property_ids, stop_on_violation, progress, workers).run()


def _select(model: Any, property_ids: Iterable[str] | None) -> list:
    return select_properties(model, property_ids)


@contextmanager
def _sigint_deferred():
    """Hold a Ctrl-C back until the block is done, then raise it (main thread only)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    pending: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: pending.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        if pending:
            raise KeyboardInterrupt


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


def _rss_mb() -> float:
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
    except OSError:  # pragma: no cover - not Linux
        import resource
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


class _Explorer:
    def __init__(self, model, max_states, max_depth, timeout, memory_limit_mb, bits,
                 property_ids, stop_on_violation, progress, workers) -> None:
        self.model = model
        self.props = _select(model, property_ids)
        self.max_states, self.max_depth = max_states, max_depth
        self.timeout, self.memory_limit_mb = timeout, memory_limit_mb
        self.stop_on_violation, self.progress = stop_on_violation, progress
        if workers is None:
            workers = _auto_workers()
        self.workers = max(1, min(int(workers), 2))
        self.ctx = _Ctx(model, self.props, bits)
        self.parent = array("I")
        self.aidx = array("H")
        self.level_start = [0]        # level d = states level_start[d] .. level_start[d+1]-1
        self.expanded_levels = 0      # levels 0..expanded_levels-1 were fully expanded
        self.generated = 0
        self.back_edge = False
        self.found: dict[str, int] = {}   # prop id -> state index (violation or witness)
        self.stop_reason = ""
        self.start = 0.0
        self.last_progress = 0.0

    # ----- helpers
    @property
    def count(self) -> int:
        return len(self.parent)

    def _check_bounds(self, depth: int, frontier: int) -> None:
        now = time.perf_counter()
        if self.timeout is not None and now - self.start > self.timeout:
            raise _Stop(f"timeout ({self.timeout:g} s)")
        if self.memory_limit_mb is not None and _rss_mb() > self.memory_limit_mb:
            raise _Stop(f"memory limit ({self.memory_limit_mb:g} MB)")
        if self.progress and now - self.last_progress >= 1.0:
            self.last_progress = now
            rate = self.count / max(now - self.start, 1e-9)
            print(f"  {self.count} states, {rate:,.0f} states/s, depth {depth}, frontier {frontier}",
                  file=sys.stderr, flush=True)

    def _add(self, part: _Part, depth: int) -> list:
        """Append a merged level to the visited set; record first violations/witnesses.
        Ctrl-C is held back until the visited set and parent pointers agree again."""
        with _sigint_deferred():
            return self._add_now(part)

    def _add_now(self, part: _Part) -> list:
        keep = len(part.states)
        if self.max_states is not None and self.count + keep > self.max_states:
            keep = max(self.max_states - self.count, 0)
            self.stop_reason = "max_states reached"
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
        h, l = self.ctx.visited.split(part.fps[:keep])
        self.ctx.visited.add(h, l, np.arange(base, base + keep, dtype=np.uint32))
        if keep:
            self.level_start.append(self.count)
        self._close_found()
        return part.states[:keep]

    def _close_found(self) -> None:
        c = self.ctx
        c.open_always = [p for p in c.open_always if p.id not in self.found]
        c.open_sometimes = [p for p in c.open_sometimes if p.id not in self.found]
        c.open_quiet = [p for p in c.open_quiet if p.id not in self.found]

    def _violated_any(self) -> bool:
        kinds = {p.id: p.kind for p in self.props}
        return any(kinds[i] is not Kind.SOMETIMES for i in self.found)

    # ----- the search
    def run(self) -> Result:
        self.start = self.last_progress = time.perf_counter()
        frontier: list = []
        depth = 0
        try:
            frontier = self._init_level()
            while frontier and not self.stop_reason:
                if self.stop_on_violation and self._violated_any():
                    self.stop_reason = "stopped at first violation"
                    break
                part = self._expand_level(frontier, depth)
                for parent_idx, pid in part.quiet_fail:
                    if pid not in self.found:
                        self.found[pid] = parent_idx
                self.expanded_levels = depth + 1
                self._close_found()
                if self.max_depth is not None and depth >= self.max_depth:
                    if part.states:
                        self.stop_reason = "max_depth reached"
                    self.back_edge |= part.back_edge
                    break
                self.back_edge |= part.back_edge
                frontier = self._add(part, depth + 1)
                depth += 1
            if self.stop_on_violation and self._violated_any() and not self.stop_reason and frontier:
                self.stop_reason = "stopped at first violation"
        except _Stop as stop:
            self.stop_reason = stop.reason
        except KeyboardInterrupt:
            self.stop_reason = "interrupted"
        if self.progress:
            print(f"  done: {self.count} states, depth {max(len(self.level_start) - 2, 0)}"
                  + (f" ({self.stop_reason})" if self.stop_reason else ""), file=sys.stderr, flush=True)
        return self._result()

    def _init_level(self) -> list:
        part = _Part()
        level: dict = {}
        ctx = self.ctx
        inits = list(self.model.init_states())
        for i, s in enumerate(inits):
            part.generated += 1
            if s in level:
                continue
            level[s] = True
            f = ctx.fp(s)
            if f in part.fps:
                continue
            n = len(part.states)
            part.states.append(s)
            part.fps.append(f)
            part.parents.append(2**32 - 1)   # no parent: aidx = position in init_states()
            part.aidx.append(i)
            for p in ctx.open_always:
                if not p.predicate(self.model, s):
                    part.hits.append((n, p.id))
            for p in ctx.open_sometimes:
                if p.predicate(self.model, s):
                    part.hits.append((n, p.id))
        self.generated += part.generated
        return self._add(part, 0)

    def _expand_level(self, frontier: list, depth: int) -> _Part:
        base = self.level_start[depth]
        n = len(frontier)
        parts: list[_Part] = []
        child = None
        mine = n
        if self.workers > 1 and n >= PARALLEL_MIN_LEVEL:
            mine = n // 2
            child = _expand_in_child(self.ctx, frontier, mine, n, base)
        try:
            part = _Part()
            level = _Level()
            for lo in range(0, mine, CHUNK):
                self._check_bounds(depth, n)
                _expand(self.ctx, frontier, lo, min(lo + CHUNK, mine), base, level, part)
            del level
            parts.append(part)
            if child is not None:
                self._check_bounds(depth, n)
                pid, fd = child
                child = None
                parts.append(_collect_child(pid, fd))
        finally:
            if child is not None:
                _kill_child(*child)
            if self.workers > 1 and n >= PARALLEL_MIN_LEVEL:
                gc.unfreeze()
        merged = _merge(parts)
        self.generated += merged.generated
        return merged

    # ----- results
    def _result(self) -> Result:
        seconds = time.perf_counter() - self.start
        complete = not self.stop_reason
        termination = [p for p in self.props if p.kind is Kind.EVENTUALLY]
        lasso = None
        if termination and self.back_edge and self.stop_reason not in ("interrupted",) \
                and not self.stop_reason.startswith(("timeout", "memory")):
            try:
                lasso = self._find_cycle()
            except KeyboardInterrupt:
                self.stop_reason, complete = "interrupted", False
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
        )
        verdicts: dict[str, Verdict] = {}
        for p in self.props:
            verdicts[p.id] = self._verdict(p, stats, lasso)
        for p in self.props:
            v = verdicts[p.id]
            if p.witness and v.status is not Status.VIOLATED:
                v.witness = p.witness
                v.vacuous = verdicts[p.witness].status is not Status.WITNESSED
        return Result(model_name(self.model), BACKEND, stats, verdicts)

    def _verdict(self, p, stats: Statistics, lasso) -> Verdict:
        v = Verdict(p.id, p.kind.value, Status.HOLDS, title=p.title, citation=p.citation,
                    distinct_states=stats.distinct_states, depth=stats.max_depth,
                    reason=stats.stop_reason)
        bounded = Status.HOLDS if stats.complete else Status.HOLDS_UP_TO_BOUND
        if p.kind is Kind.CONFIG:
            v.status = Status.NOT_CHECKED
            v.note = "config properties are proved with Z3 (mqcheck prove)"
        elif p.kind is Kind.EVENTUALLY:
            if lasso is not None:
                v.status, v.trace = Status.VIOLATED, lasso
            else:
                v.status = bounded
        elif p.kind is Kind.SOMETIMES:
            if p.id in self.found:
                v.status, v.trace = Status.WITNESSED, self._trace_to(self.found[p.id])
            else:
                v.status = Status.NEVER_REACHED if stats.complete else Status.NOT_REACHED_UP_TO_BOUND
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
        want = self.ctx.visited.lookup(*self.ctx.visited.split([self.ctx.fp(states[-1])]))[0]
        if want != path[-1]:
            raise ExplorationError(
                "replaying a trace did not reach the recorded state: the model is not "
                "deterministic (actions() order or next_state() depends on something other "
                "than the state, e.g. set iteration order or Python hash())")
        return states, acts

    def _trace_to(self, idx: int) -> Trace:
        states, acts = self._replay(self._path(idx))
        return _make_trace(self.model, self.ctx, states, acts)

    # ----- termination: second pass
    def _find_cycle(self) -> Trace | None:
        """Re-expand the explored states, keep internal edges, look for a cycle."""
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
            succ, owners, aids, inner = [], [], [], []
            for k, s in enumerate(level):
                for ai, a in enumerate(model.actions(s)):
                    t = model.next_state(s, a)
                    if t is None:
                        continue
                    succ.append(t)
                    owners.append(base + k)
                    aids.append(ai)
                    inner.append(True if internal is None else bool(internal(a)))
            if not succ:
                level = nxt
                continue
            idx = ctx.visited.lookup(*ctx.visited.split([ctx.fp(t) for t in succ]))
            for j, v in enumerate(idx.tolist()):
                if v < 0:
                    continue
                if inner[j]:
                    src.append(owners[j])
                    dst.append(v)
                    act.append(aids[j])
                if nxt_base <= v < nxt_end and self.parent[v] == owners[j] and self.aidx[v] == aids[j]:
                    nxt[v - nxt_base] = succ[j]
            level = nxt
        cycle = _cycle(self.count, np.frombuffer(src, np.uint32), np.frombuffer(dst, np.uint32))
        if cycle is None:
            return None
        # rotate so the cycle starts at its smallest state index (the shallowest entry)
        k = cycle.index(min(cycle))
        cycle = cycle[k:] + cycle[:k]
        prefix = self._path(cycle[0])
        states, acts = self._replay(prefix)
        edge_action = {}
        for u, v, a in zip(src, dst, act):
            edge_action.setdefault((u, v), a)
        s = states[-1]
        ring = cycle[1:] + cycle[:1]
        for u, v in zip(cycle, ring):
            a = list(model.actions(s))[edge_action[(u, v)]]
            s = model.next_state(s, a)
            states.append(s)
            acts.append(a)
        return _make_trace(model, ctx, states, acts, loop_start=len(prefix) - 1)


def _cycle(n: int, src: np.ndarray, dst: np.ndarray) -> list[int] | None:
    """A cycle (list of state indices, each with an edge to the next and last to first)
    in the graph with edges src[i]→dst[i], or None. Deterministic."""
    if not len(src):
        return None
    outdeg = np.bincount(src, minlength=n).astype(np.int64)
    order = np.argsort(dst, kind="stable")
    rev_src = src[order]
    rev_ptr = np.searchsorted(dst[order], np.arange(n + 1))
    stack = np.nonzero(outdeg == 0)[0].tolist()
    while stack:
        v = stack.pop()
        for u in rev_src[rev_ptr[v]:rev_ptr[v + 1]].tolist():
            outdeg[u] -= 1
            if outdeg[u] == 0:
                stack.append(u)
    alive = np.nonzero(outdeg > 0)[0]
    if not len(alive):
        return None
    fwd = np.argsort(src, kind="stable")
    f_dst = dst[fwd]
    f_ptr = np.searchsorted(src[fwd], np.arange(n + 1))
    alive_mask = outdeg > 0
    v = int(alive[0])
    seen: dict[int, int] = {}
    walk: list[int] = []
    while v not in seen:
        seen[v] = len(walk)
        walk.append(v)
        for w in f_dst[f_ptr[v]:f_ptr[v + 1]].tolist():
            if alive_mask[w]:
                v = int(w)
                break
    return walk[seen[v]:]


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
