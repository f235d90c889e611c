"""The Spark backend's expansion of a level (``checker.spark``): states as bytes and
fingerprints (``_Codec``), the property checks of one expanded state (``_Checks``), and the
``mapInArrow`` function the executors run over a frontier (``_arrow_expander``), whose
observations and counts come back to the driver through an accumulator."""

from __future__ import annotations

import gc
import itertools
import pickle
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from hashlib import blake2b
from typing import Any

from checker.spark_rundir import KIND_FALSIFIED, KIND_WITNESS, _position_of

PICKLE_PROTOCOL = 5


@dataclass(frozen=True)
class _Codec:
    """How states travel: ``model.encode`` bytes when the model can ``decode`` them,
    otherwise a pickle with a fixed protocol. Fingerprints always hash ``encode``."""

    model: Any
    bits: int = 64

    @property
    def ships_encoding(self) -> bool:
        return callable(getattr(self.model, "decode", None))

    def fingerprint_of(self, encoded: bytes) -> int:
        digest = blake2b(encoded, digest_size=self.bits // 8).digest()
        return int.from_bytes(digest, "little", signed=True)  # checker.explore's, as int64

    def pack(self, state: Any) -> tuple[int, bytes]:
        """(fingerprint, bytes to ship) of a state."""
        encoded = self.model.encode(state)
        if self.ships_encoding:
            return self.fingerprint_of(encoded), encoded
        ship = getattr(self.model, "ship", None)
        shipped = pickle.dumps(state, PICKLE_PROTOCOL) if ship is None else ship(state)
        return self.fingerprint_of(encoded), shipped

    def unpack(self, shipped: bytes) -> Any:
        if self.ships_encoding:
            return self.model.decode(shipped)
        unship = getattr(self.model, "unship", None)
        return pickle.loads(shipped) if unship is None else unship(shipped)


def _is_internal(model: Any, action: Any) -> bool:
    fn = getattr(model, "is_internal", None)  # checker.model.is_internal, inlined for workers
    return True if fn is None else bool(fn(action))


@dataclass(frozen=True)
class _Checks:
    """The state properties checked while expanding: (index into the property list, prop)."""

    always: tuple[tuple[int, Any], ...]
    sometimes: tuple[tuple[int, Any], ...]
    at_quiescence: tuple[tuple[int, Any], ...]
    run: str = ""  # which run these checks belong to (unique in the driver's application)

    @classmethod
    def of(cls, properties: Sequence[Any], run: str = "") -> _Checks:
        def pick(kind: str) -> tuple[tuple[int, Any], ...]:
            return tuple((i, p) for i, p in enumerate(properties) if _kind(p) == kind)

        return cls(pick("always"), pick("sometimes"), pick("at_quiescence"), run)

    def observe(self, model: Any, state: Any, quiescent: bool) -> Iterator[tuple[int, int]]:
        """(row kind, property index) observations of one state, in property order: judged
        as the local engine judges (checker.model.Judge, once per view where the model has
        views), by judges kept for this model in this process (not pickled). A task gets
        its own copy of the model and the checks; the judges of the run's earlier tasks in
        this process, with what they learnt, serve it (``_RUN_JUDGES``)."""
        judges = self.__dict__.get("_judges")
        if judges is None or judges[0] is not model:
            judges = _RUN_JUDGES.get(self.run) if self.run else None
            if judges is None:
                judges = self._judges(model)
                if self.run:
                    _RUN_JUDGES.clear()  # one run at a time
                    _RUN_JUDGES[self.run] = judges
            self.__dict__["_judges"] = judges = (model, *judges[1:])
        _, new, quiet, rows = judges
        for pid in new.hits(state):
            yield rows[pid]
        if quiescent:
            for pid in quiet.hits(state):
                yield rows[pid]

    def _judges(self, model: Any) -> tuple:
        from checker.model import Judge

        rows = {p.id: (KIND_WITNESS if _kind(p) == "sometimes" else KIND_FALSIFIED, i)
                for i, p in self.always + self.sometimes + self.at_quiescence}
        return (model, Judge(model, [p for _, p in self.always + self.sometimes]),
                Judge(model, [p for _, p in self.at_quiescence]), rows)

    def __getstate__(self) -> dict:
        return {k: v for k, v in self.__dict__.items() if k != "_judges"}


_RUN_JUDGES: dict[str, tuple] = {}
"""An executor process's judges (``_Checks.observe``) for the run whose tasks it runs."""
_RUNS = itertools.count()


def _kind(prop: Any) -> str:
    return str(getattr(prop.kind, "value", prop.kind))


def _observe_and_expand(model, codec: _Codec, checks: _Checks, state: Any, check_only: bool = False):
    """(observations, successors) of one frontier state: observations are (row kind,
    property index) in property order; successors (action index, next state, internal)
    in action order. ``check_only``: only the always/sometimes observations (a state that
    will not be expanded)."""
    if check_only:
        return list(checks.observe(model, state, quiescent=False)), []
    successors = []
    internal_enabled = False
    for index, action in enumerate(model.actions(state)):
        nxt = model.next_state(state, action)
        if nxt is not None:
            internal = _is_internal(model, action)
            internal_enabled = internal_enabled or internal
            successors.append((index, nxt, internal))
    return list(checks.observe(model, state, quiescent=not internal_enabled)), successors


EXPANSION_SCHEMA = "fp bigint, parent bigint, ppos bigint, action int, state binary, internal boolean"
"""Successor rows: fingerprint, the parent's fingerprint and position in its level (the
local engine's discovery order), the action's position in ``actions(parent)``."""

CHUNK = 2048
"""Parents per chunk, as in ``checker.explore.CHUNK``: a ``max_states`` cut takes effect
after the chunk of parents in which the bound is passed (generated successors, quiescence
checks and back edges count up to that chunk), exactly as the local engine does."""

RANK_BUCKET = 65536
"""Parent positions per bucket when ranking a large level (positions are dense)."""

RANK_IN_ONE_TASK = 262_144
"""Levels up to this many states are ranked on the driver from their seen rows
(``_positions``); larger ones per bucket of parent positions, in Spark."""

OUTPUT_BATCH_ROWS = 65536
OUTPUT_BATCH_BYTES = 16 << 20
"""A successor batch ends at this many rows or at this many bytes of states, whichever
comes first (the JVM holds a batch whole while it converts it)."""

SPLIT_FRONTIER_AT = 4096
"""Frontiers at least this large are spread over all expansion tasks (repartitioned, unless
their files already make that many tasks)."""

ROWS_PER_TASK = 64
"""At most one expansion task per this many frontier states (overridable for tests)."""


def _arrow_expander(model, codec: _Codec, checks: _Checks, tally, check_only: bool = False,
                    positions=None, keep: int | None = None):
    """The function ``mapInArrow`` runs on executors: frontier batches (fp, pos, state) in,
    successor batches out; observations and counts go to the `tally` accumulator, keyed by
    chunk of parent positions where a ``max_states`` cut needs them. The model travels
    inside this closure (cloudpickle). ``positions``: None, or a broadcast of
    ``_positions`` (then batches are (fp, state)). ``keep``: only the states at
    positions below it (a cut level's first states)."""

    def expand(batches):
        # States are acyclic trees of values: the cyclic collector would only walk the
        # task's successors over and over (the local engine turns it off for its run too)
        enabled = gc.isenabled()
        # (loading a broadcast turns the collector on: PySpark's Broadcast.load)
        table = None if positions is None else positions.value
        gc.disable()
        try:
            yield from _expand(batches, table)
        finally:
            if enabled:
                gc.enable()

    def _expand(batches, positions):
        import pyarrow as pa
        from pyspark import TaskContext

        schema = pa.schema(
            [
                ("fp", pa.int64()),
                ("parent", pa.int64()),
                ("ppos", pa.int64()),
                ("action", pa.int32()),
                ("state", pa.binary()),
                ("internal", pa.bool_()),
            ]
        )
        started = time.process_time()
        quiet = {i for i, _ in checks.at_quiescence}
        observed: dict[tuple, int] = {}
        generated: dict[int, int] = {}
        # Successors are deduplicated within the task first, by the state itself (as the
        # local engine does within a level), so each distinct one is encoded and hashed
        # once; then by fingerprint, keeping the first discoverer — the smallest (parent
        # position, action), the local engine's rule and the JVM's.
        by_state: dict[Any, list] = {}
        for batch in batches:
            fps = batch.column("fp")
            if positions is None:
                poss = batch.column("pos").to_pylist()
            else:
                poss = _position_of(positions, fps.to_numpy())
            blobs = batch.column("state").to_pylist()
            for fp, pos, blob in zip(fps.to_pylist(), poss, blobs):
                if keep is not None and pos >= keep:
                    continue
                state = codec.unpack(blob)
                obs, successors = _observe_and_expand(model, codec, checks, state, check_only)
                chunk = pos // CHUNK
                for kind, index in obs:
                    key = ("qobs", kind, index, chunk) if index in quiet else ("obs", kind, index)
                    observed[key] = min(observed.get(key, fp), fp)
                if successors:
                    generated[chunk] = generated.get(chunk, 0) + len(successors)
                for index, nxt, internal in successors:
                    row = by_state.get(nxt)
                    if row is None:
                        by_state[nxt] = [fp, pos, index, internal]
                    else:
                        if (pos, index) < (row[1], row[2]):
                            row[0], row[1], row[2] = fp, pos, index
                        row[3] = row[3] or internal
        best: dict[int, list] = {}
        for nxt, (parent, ppos, action, internal) in by_state.items():
            child, shipped = codec.pack(nxt)
            row = best.get(child)
            if row is None:
                best[child] = [parent, ppos, action, shipped, internal]
            else:
                if (ppos, action) < (row[1], row[2]):
                    row[0], row[1], row[2] = parent, ppos, action
                row[4] = row[4] or internal
        del by_state
        chunk_fps, rows, size = [], [], 0
        for child, row in best.items():
            chunk_fps.append(child)
            rows.append(row)
            size += len(row[3])
            if len(rows) == OUTPUT_BATCH_ROWS or size >= OUTPUT_BATCH_BYTES:
                yield _successor_batch(pa, schema, chunk_fps, rows)
                chunk_fps, rows, size = [], [], 0
        if rows:
            yield _successor_batch(pa, schema, chunk_fps, rows)
        part = TaskContext.get().partitionId()
        counts = {("gen", part, c): n for c, n in generated.items()}
        tally.add(observed | counts | {("cpu", part): time.process_time() - started})

    return expand


def _successor_batch(pa, schema, fps: list, rows: list):
    cols = [fps] + [[r[i] for r in rows] for i in range(5)]
    return pa.RecordBatch.from_arrays([pa.array(c, type=f.type) for c, f in zip(cols, schema)], schema=schema)


class _TallyParam:
    """Accumulator merge for expansion tallies: min for observations (fingerprints), and
    for per-partition entries the same value again on a retry (max keeps one copy)."""

    def zero(self, value: dict) -> dict:
        return {}

    def addInPlace(self, acc: dict, more: dict) -> dict:
        for key, value in more.items():
            if key in acc:
                acc[key] = min(acc[key], value) if key[0] in ("obs", "qobs") else max(acc[key], value)
            else:
                acc[key] = value
        return acc
