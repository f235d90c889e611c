"""Exhaustive exploration on Apache Spark: the local engine's breadth-first search, one
level at a time, on DataFrames (DESIGN §1, issue #8).

Per level d the frontier (the states first reached at depth d) is expanded in Python with
``mapInArrow``; each frontier state's properties are checked there, exactly once, and the
results come back through an accumulator. Every state has a position in its level: the
local engine's discovery order (the position of the parent that first found it, then the
action's position in ``actions(parent)``). Successors ``(fp, parent, ppos, action,
state)`` are deduplicated inside each task, then inside the JVM: grouped by fingerprint
keeping the first discoverer, the smallest ``(ppos, action)`` (the local engine's parent
rule, so traces do not depend on partitioning or hash seeds), and joined (``left_anti``,
or ``left`` when termination needs back edges) against every fingerprint seen so far.
A level's positions are ranks of ``(ppos, action)``, computed when it is read back: up
to ``RANK_IN_ONE_TASK`` states by the driver from the level's seen rows (20 bytes a
state, broadcast to the tasks), above by bucket sizes to the driver and a window inside
each bucket: the driver holds at most that many positions, and no state.
``max_states`` keeps exactly the local engine's states: the level
is cut after the chunk of ``CHUNK`` parents in which the bound is passed, and its first
states in discovery order are kept.

The run directory holds, as Parquet, ``levels/table=seen/level=d`` (fp, parent, ppos,
action: kept for traces and the order), ``levels/table=frontier/level=d`` (fp, ppos,
action, state: written by Spark levels and once when Spark takes over; deleted once
expanded), ``levels/table=backedge/level=d`` (old states reached by an internal action,
with the first parent position reaching them), ``levels.jsonl`` (per-level statistics,
one appended line a level) and ``manifest.json`` (identity, totals and the last complete
level: constant size, replaced atomically after each complete level). Reading each
level back from Parquet keeps query plans small and makes ``resume`` possible after a
crash or Ctrl-C: the run continues from the last complete level. The run directory must
be a filesystem path the driver can write (local for ``local[*]``; a shared mount on a
cluster).

Small levels run on the driver in plain Python until a frontier exceeds
``driver_threshold`` states; from then on every level runs on Spark. Driver levels keep
their states in memory and write only the seen table (a resume in the driver phase
rebuilds the frontier by replaying parent pointers). Both phases apply the same parent
rule, so the trace does not depend on the threshold.

Termination (``eventually``): when no internal action leads back into an explored level,
no cycle exists (the local engine's first pass). Otherwise, if every level ran on the
driver, the local engine's second pass runs there (re-expansion along the parent tree,
internal edges among visited states, ``checker.explore._lasso``): the same verdict and
lasso shape as the local engine. If levels ran on Spark, the verdict is "not checked on
this backend", never a pass. Fingerprints are 64-bit only (Spark ``bigint``).

This module is the search. The session and its JVM are in ``checker.spark_session``, the
expansion the executors run in ``checker.spark_expand``, the run directory and a run's
progress in ``checker.spark_rundir``.
"""

from __future__ import annotations

import contextlib
import gc
import json
import os
import shutil
import signal
import sys
import threading
import time
import warnings
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from checker.spark_expand import (
    CHUNK,
    EXPANSION_SCHEMA,
    PICKLE_PROTOCOL,
    RANK_BUCKET,
    RANK_IN_ONE_TASK,
    ROWS_PER_TASK,
    SPLIT_FRONTIER_AT,
    _RUN_JUDGES,
    _RUNS,
    _arrow_expander,
    _Checks,
    _Codec,
    _is_internal,
    _kind,
    _observe_and_expand,
    _TallyParam,
)
from checker.spark_rundir import (
    _MISSING,
    RunDirError,
    _positions,
    _Progress,
    _read_ordered,
    _resume_bounds,
    _RunDir,
    _write_level_locally,
)
from checker.spark_session import PANDAS_NOTICE, SparkStartError, _exception_line, _Jvm, _start_session, parse_conf

DEFAULT_DRIVER_THRESHOLD = 20_000
"""Frontier size above which levels move from the driver to Spark (benchmarks/RESULTS.md)."""


# ---------------------------------------------------------------------------------------
# The search
# ---------------------------------------------------------------------------------------


@dataclass
class _Search:
    """One exploration: the model, its checks, the run directory and the progress so far."""

    model: Any
    properties: tuple
    checks: _Checks
    codec: _Codec
    rundir: _RunDir
    identity: dict
    progress: _Progress
    spark: Any = None
    partitions: int | None = None
    on_level: Any = None  # test hook: called as on_level(event, level)
    session_args: tuple = (None, ())  # make_session(master, conf) when Spark is first needed
    interrupts: Any = None  # the run's _Interrupts (Ctrl-C handling), set by explore_spark
    jvm: Any = None  # the _Jvm this run started (stopped when the run ends), or None
    rows_per_task: int = ROWS_PER_TASK
    graph_checked: bool = False  # the driver's termination pass ran
    # The internal edges of the driver levels, recorded as they are expanded (as the local
    # engine records its edges): per level, where its edges start; per edge, the parent's
    # position in its level, the target's fingerprint and the action's index. None when
    # they are not all here (a resumed run, a cut level, past EDGE_LIMIT): find_lasso then
    # expands the levels again.
    edges: Any = None
    split_timing: bool = False  # benchmarks: time expand, dedup and write separately
    started: float = field(default_factory=time.perf_counter)
    prior_seconds: float = 0.0  # what earlier processes of a resumed run spent

    def elapsed(self) -> float:
        return self.prior_seconds + time.perf_counter() - self.started

    @property
    def track_back_edges(self) -> bool:
        return any(_kind(p) == "eventually" for p in self.properties)

    # -- driver phase ------------------------------------------------------------------

    def init_level(self) -> tuple[list[tuple], int]:
        """Level 0 in the order of ``init_states()`` (action = position there)."""
        rows: list[tuple] = []
        seen: set[int] = set()
        generated = 0
        for i, state in enumerate(self.model.init_states()):
            generated += 1
            fp, shipped = self.codec.pack(state)
            if fp not in seen:
                seen.add(fp)
                rows.append((fp, 0, -1, i, shipped))
        return rows, generated

    def driver_level(self, seen: set[int], frontier: list[tuple[int, Any]], level: int,
                     room: int | None = None):
        """Expand one level in plain Python, in discovery order: (next level's rows in
        discovery order, generated successors, internal edges back into explored levels,
        whether a ``max_states`` cut happened, timings). ``room``: how many more states
        ``max_states`` allows; the level is cut after the chunk of parents that passes it
        (the remaining parents are only checked, as the local engine checked them when
        it found them)."""
        started = time.perf_counter()
        best: dict[int, list] = {}
        children: dict[Any, int] = {}  # state -> fp, within the level (the local engine's dict)
        generated = back = 0
        cut = False
        note = self.progress.note
        model, codec, checks = self.model, self.codec, self.checks
        edges = self.edges
        if edges is not None:
            edges.starts.append(len(edges.src))
        for pos, (fp, state) in enumerate(frontier):
            obs, successors = _observe_and_expand(model, codec, checks, state, check_only=cut)
            for kind, index in obs:
                note(kind, index, level, fp)
            for action, nxt, internal in successors:
                generated += 1
                child = children.get(nxt)
                if child is None:
                    child = children[nxt] = codec.fingerprint_of(model.encode(nxt))
                if child in seen:
                    back += internal
                elif child not in best:
                    best[child] = [fp, pos, action, nxt]
                if internal and edges is not None:
                    edges.add(pos, child, action)
            if room is not None and not cut and ((pos + 1) % CHUNK == 0 or pos + 1 == len(frontier)):
                cut = len(best) > room
        if cut or (edges is not None and len(edges.src) > _edge_limit()):
            self.edges = None  # the termination pass expands the levels again
        return list(best.items()), generated, back, cut, {"expand": time.perf_counter() - started}

    # -- Spark phase -------------------------------------------------------------------

    def ranked_frontier(self, level: int):
        """(frontier `level`, positions): each state's position is its place in the local
        engine's discovery order (rank of (parent position, action)). Up to
        ``RANK_IN_ONE_TASK`` states, the driver ranks the level's seen rows (fp, parent
        position, action: 20 bytes a state) and the positions travel to the expansion
        tasks as a broadcast (fingerprints sorted, positions): the frontier is (fp, state)
        as written, and its states are not sorted. Above, the frontier carries a ``pos``
        column, ranked per bucket of parent positions: bucket sizes come to the driver (a
        few numbers, one small job), the rank inside a bucket is a window function."""
        from pyspark.sql import Window
        from pyspark.sql import functions as F

        spark, run = self.spark, self.rundir
        if run.count(level) <= RANK_IN_ONE_TASK:
            frontier = spark.read.parquet(run.frontier(level)).select("fp", "state")
            return frontier, spark.sparkContext.broadcast(_positions(run.seen(level)))
        frontier = spark.read.parquet(run.frontier(level)).select("fp", "ppos", "action", "state")
        bucket = F.floor(F.col("ppos") / RANK_BUCKET).cast("long")
        sizes = sorted(
            (r[0], r[1]) for r in spark.read.parquet(run.seen(level)).groupBy(bucket.alias("b")).count().collect()
        )
        offsets, total = [], 0
        for b, n in sizes:
            offsets.append((b, total))
            total += n
        table = spark.createDataFrame(offsets, "b long, offset long")
        window = Window.partitionBy("b").orderBy("ppos", "action")
        ranked = (
            frontier.withColumn("b", bucket)
            .join(F.broadcast(table), "b")
            .withColumn("pos", F.row_number().over(window) - 1 + F.col("offset"))
            .select("fp", "pos", "state")
        )
        return ranked, None

    def spark_level(self, level: int, check_only: bool = False, keep: int | None = None):
        """Expand frontier `level` and write level+1 in one Spark job: (new states, the
        expansion tally, timings). ``check_only`` only checks the level's first ``keep``
        states (discovery order) against always/sometimes (a cut last level).
        Observations and per-task counts come back through an accumulator whose merge is
        idempotent (min of fingerprints; per-partition counts keyed by partition), so a
        retried task cannot double-count."""
        spark = self.spark
        size = self.progress.last_new if keep is None else keep
        parts = self.partitions or max(2, 2 * spark.sparkContext.defaultParallelism)
        tally = spark.sparkContext.accumulator({}, _TallyParam())
        t0 = time.perf_counter()
        frontier, positions = self.ranked_frontier(level)
        try:
            expander = _arrow_expander(self.model, self.codec, self.checks, tally, check_only, positions, keep)
            return self._spark_level(level, check_only, frontier, positions is not None, expander, tally,
                                     size, parts, t0)
        finally:
            if positions is not None:
                positions.destroy()

    def _spark_level(self, level: int, check_only: bool, frontier: Any, scan: bool, expander: Any,
                     tally: Any, size: int, parts: int, t0: float):
        """``spark_level`` from its expansion on; ``scan``: the frontier is read as written."""
        from pyspark.sql import functions as F

        spark, run = self.spark, self.rundir
        if size >= SPLIT_FRONTIER_AT or self.partitions:
            tasks = min(parts, max(1, size // max(1, self.rows_per_task)))
            # A level Spark wrote is in files of fp-hashed rows (one per shuffle partition):
            # where reading them already makes a task per core, its states are not
            # shuffled again (fewer, larger tasks also ship fewer duplicate successors)
            if not (scan and self.partitions is None
                    and min(tasks, spark.sparkContext.defaultParallelism) <= frontier.rdd.getNumPartitions() <= tasks):
                frontier = frontier.repartition(tasks)
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", PANDAS_NOTICE, FutureWarning)
            successors = frontier.mapInArrow(expander, EXPANSION_SCHEMA)
        if check_only:
            successors.write.format("noop").mode("overwrite").save()
            return 0, dict(tally.value), {"wall": time.perf_counter() - t0}
        seen = spark.read.parquet(run.seen_root).where(F.col("level") <= level).select("fp")
        best = F.struct("ppos", "action", "parent", "state")  # first discoverer first
        if self.track_back_edges:
            # Old states carry no payload into the aggregation; an old state reached by an
            # internal action leaves a back-edge row with the first parent position that
            # reaches it (termination needs to know of any, and a cut needs the position).
            joined = successors.join(seen.withColumn("old", F.lit(True)), "fp", "left")
            grouped = joined.groupBy("fp").agg(
                F.min(F.when(F.col("old").isNull(), best)).alias("best"),
                F.max("old").alias("old"),
                F.min(F.when(F.col("internal") & F.col("old"), F.col("ppos"))).alias("back_pos"),
            )
            tables = (
                F.when(F.col("old").isNull(), F.array(F.lit("seen"), F.lit("frontier")))
                .when(F.col("back_pos").isNotNull(), F.array(F.lit("backedge")))
                .otherwise(F.array().cast("array<string>"))
            )
            ppos = F.coalesce(F.col("best.ppos"), F.col("back_pos"))
        else:
            grouped = successors.join(seen, "fp", "left_anti").groupBy("fp").agg(F.min(best).alias("best"))
            tables = F.array(F.lit("seen"), F.lit("frontier"))
            ppos = F.col("best.ppos")
        # One write, up to three tables: a new state's seen row (fp, parent, position of
        # the parent, action: kept for traces and discovery order) and its frontier row
        # (with the state), and the back-edge rows.
        out = grouped.select(
            "fp", "best.parent", ppos.alias("ppos"), "best.action", "best.state",
            F.explode(tables).alias("table"),
        )
        out = out.withColumn("state", F.when(F.col("table") == "frontier", F.col("state")))
        out = out.withColumn("level", F.lit(level + 1))
        run.clear_level(level + 1)
        t1 = time.perf_counter()
        split = {}
        if self.split_timing:
            # Benchmarks only: the same plan up to the expansion, then up to the
            # deduplication, each into Spark's no-op sink, then the real job; the
            # differences are measured wall times. The tally merge is idempotent
            # (min / max per partition), so the repeated expansions do not double-count.
            successors.write.format("noop").mode("overwrite").save()
            t_expand = time.perf_counter()
            out.write.format("noop").mode("overwrite").save()
            t_dedup = time.perf_counter()
            split = {"expand_s": t_expand - t1, "dedup_s": (t_dedup - t_expand) - (t_expand - t1)}
            t1 = time.perf_counter()
        out.write.mode("append").partitionBy("table", "level").parquet(run.levels_root)
        t2 = time.perf_counter()
        tally_value = dict(tally.value)
        cpu = sum(v for k, v in tally_value.items() if k[0] == "cpu")
        tasks = len({k[1] for k in tally_value if k[0] == "cpu"})
        times = {"prepare_s": t1 - t0, "job_s": t2 - t1, "python_task_s": cpu, "tasks": tasks}
        if split:
            split["write_s"] = (t2 - t1) - (split["expand_s"] + split["dedup_s"])
            times |= split
        return run.count(level + 1), tally_value, times

    def absorb(self, tally: dict, level: int, upto_chunk: int | None = None) -> int:
        """Record a level's observations; return its number of generated successors.
        ``upto_chunk``: a cut level: quiescence observations and generated successors of
        parents in chunks after this one do not count (they were not expanded locally)."""
        generated = 0
        for key, value in tally.items():
            if key[0] == "obs":
                self.progress.note(key[1], key[2], level, value)
            elif key[0] == "qobs":
                if upto_chunk is None or key[3] <= upto_chunk:
                    self.progress.note(key[1], key[2], level, value)
            elif key[0] == "gen":
                if upto_chunk is None or key[2] <= upto_chunk:
                    generated += value
        return generated

    def spark_cut_chunk(self, level: int, room: int) -> int:
        """The chunk of parents (of frontier `level`) after which the local engine cuts
        level+1: the first whose new states, with all earlier chunks', exceed `room`."""
        from pyspark.sql import functions as F

        chunk = F.floor(F.col("ppos") / CHUNK).cast("long")
        rows = self.spark.read.parquet(self.rundir.seen(level + 1)).groupBy(chunk.alias("c")).count().collect()
        total = 0
        for c, n in sorted((r[0], r[1]) for r in rows):
            total += n
            if total > room:
                return c
        raise AssertionError("a cut level without a chunk past the bound")  # pragma: no cover

    def spark_back_edges(self, level: int, upto_chunk: int | None) -> int:
        import pyarrow.parquet as pq

        path = self.rundir.backedge(level + 1)
        if not os.path.isdir(path):
            return 0
        if upto_chunk is None:
            return self.rundir.count(level + 1, "backedge")
        limit = (upto_chunk + 1) * CHUNK
        return pq.read_table(path, columns=["ppos"], filters=[("ppos", "<", limit)]).num_rows

    def _event(self, event: str, level: int) -> None:
        if self.on_level is not None:
            self.on_level(event, level)

    # -- the level loop ----------------------------------------------------------------

    def run(self, max_states, max_depth, driver_threshold, keep_frontiers) -> str:
        """Explore until done or a bound stops it; returns "" (complete) or the reason, in
        the local engine's words. Only complete levels are committed to the manifest."""
        p = self.progress
        seen_mem: set[int] | None = None
        frontier_mem: list | None = None
        if p.phase == "driver":
            seen_mem, frontier_mem = self.load_driver_levels(p.level)
            # edges are recorded from a fresh start only (a resumed run did not see the
            # levels before it expanded); they matter to termination only
            self.edges = _Edges() if p.level == 0 and self.track_back_edges else None
        while True:
            if self.interrupts is not None:
                self.interrupts.check()
            level = p.level
            p.depth = level if p.last_new else max(level - 1, 0)
            if p.last_new == 0:
                p.finished = True
                self.commit()
                return ""
            if p.phase == "driver" and p.last_new > driver_threshold:
                # Spark takes over: the frontier goes to Parquet once, here (driver levels
                # keep their states in memory and write only the seen table)
                cols = _read_ordered(self.rundir.seen(level), ("fp", "parent", "ppos", "action"))
                rows = [(fp, r[0], r[1], r[2], self._ship(s))
                        for (fp, s), r in zip(frontier_mem, zip(cols["parent"], cols["ppos"], cols["action"]))]
                _write_level_locally(self.rundir, level, rows)
                p.phase = "spark"
                seen_mem = frontier_mem = None
                self.edges = None  # termination is then judged from the back-edge rows
            last = max_depth is not None and level >= max_depth
            room = None if max_states is None or last else max_states - p.distinct
            cut_chunk = None
            if p.phase == "spark":
                if self.spark is None:
                    self.start_spark()
                new, tally, times = self.spark_level(level)
                if self.jvm is not None:
                    self.jvm.note_family()   # its Python workers, which the level's tasks started
                if room is not None and new > room:
                    cut_chunk = self.spark_cut_chunk(level, room)
                generated = self.absorb(tally, level, cut_chunk)
                back = self.spark_back_edges(level, cut_chunk)
                cut = cut_chunk is not None
            else:
                rows, generated, back, cut, times = self.driver_level(seen_mem, frontier_mem, level, room)
                new = len(rows)
            p.generated += generated
            p.back_edges += back
            p.expanded = level + 1
            if last:
                return "max_depth reached" if new else ""
            if cut:  # the level is cut: check what is kept, commit nothing
                keep = max(room, 0)
                p.distinct += keep
                if keep:
                    p.depth = level + 1
                p.levels.append({"level": level + 1, "new": keep, "truncated_from": new})
                if p.phase == "spark":
                    _, tally, _ = self.spark_level(level + 1, check_only=True, keep=keep)
                    self.absorb(tally, level + 1)
                else:
                    kept = rows[:keep]
                    _write_level_locally(self.rundir, level + 1, self._packed(kept, False), frontier=False)
                    for fp, r in kept:  # checked when found, as the local engine does
                        for kind, index in self.checks.observe(self.model, r[3], quiescent=False):
                            p.note(kind, index, level + 1, fp)
                return "max_states reached"
            if p.phase == "driver":
                t = time.perf_counter()
                _write_level_locally(self.rundir, level + 1, self._packed(rows, False), frontier=False)
                times["write"] = time.perf_counter() - t
            self._event("written", level + 1)
            stats = {"level": level + 1, "new": new, "generated": generated, "phase": p.phase}
            stats |= {k: round(v, 4) if isinstance(v, float) else v for k, v in times.items()}
            self.rundir.append_level(stats)
            p.levels.append(stats)
            p.level = level + 1
            p.last_new = new
            p.distinct += new
            self.commit()
            if p.phase == "driver":
                seen_mem.update(fp for fp, _ in rows)
                frontier_mem = [(fp, r[3]) for fp, r in rows]
            if not keep_frontiers:
                self.rundir.drop_frontier(level)
            self._event("committed", level + 1)

    def start_spark(self) -> None:
        """Start the session when the first level goes to Spark. Until it answers, a signal
        ends the JVM being started (:class:`_Interrupts`); a session that cannot start is a
        :class:`SparkStartError`."""
        interrupts = self.interrupts
        self.spark, self.jvm = _start_session(*self.session_args, "mqcheck", interrupts)
        if interrupts is not None:
            interrupts.starting = None   # self.jvm is stopped with the run from here on
            interrupts.reinstall()

    def _packed(self, rows: list, with_states: bool = True) -> list[tuple]:
        """Driver rows (fp, [parent, ppos, action, state]) as rows to write."""
        ship = self._ship if with_states else (lambda s: None)
        return [(fp, parent, ppos, action, ship(s)) for fp, (parent, ppos, action, s) in rows]

    def _ship(self, state: Any) -> bytes:
        return self.codec.pack(state)[1]

    def load_driver_levels(self, level: int) -> tuple[set[int], list[tuple[int, Any]]]:
        """Driver phase, on start or resume: every seen fingerprint and the states of
        frontier `level` in discovery order. Driver levels do not write their states, so
        they are rebuilt by replaying the parent pointers level by level (one more
        expansion of what was explored: the price of not writing every state)."""
        import pyarrow.parquet as pq

        seen: set[int] = set()
        for d in range(level + 1):
            seen.update(pq.read_table(self.rundir.seen(d), columns=["fp"]).column("fp").to_pylist())
        model = self.model
        cols = _read_ordered(self.rundir.seen(0), ("fp", "action"))
        inits = list(model.init_states())
        states = [inits[a] for a in cols["action"]]
        fps = cols["fp"]
        for d in range(1, level + 1):
            cols = _read_ordered(self.rundir.seen(d), ("fp", "ppos", "action"))
            nxt = []
            for fp, ppos, action in zip(cols["fp"], cols["ppos"], cols["action"]):
                parent = states[ppos]
                state = model.next_state(parent, list(model.actions(parent))[action])
                if state is None or self.codec.fingerprint_of(model.encode(state)) != fp:
                    raise RunDirError(
                        f"{self.rundir.root}: replaying level {d} did not reach the recorded "
                        "state: the model is not the one that wrote this run directory, or "
                        "it is not deterministic"
                    )
                nxt.append(state)
            states, fps = nxt, cols["fp"]
        return seen, list(zip(fps, states))

    def commit(self) -> None:
        self.progress.seconds = self.elapsed()
        self.rundir.write_manifest(self.identity, self.progress)

    # -- termination, when the whole graph fits on the driver ---------------------------

    def find_lasso(self, visited_levels: int, expanded_levels: int):
        """The local engine's termination check (``checker.explore``): every internal edge
        between visited states (global index = level start + discovery position, as
        there), as recorded by the driver levels or else found by expanding the levels
        again along the parent tree, handed to its ``_lasso``: the smallest-index state on
        a cycle, its BFS prefix, a shortest cycle. Returns a lasso ``Trace`` or None."""
        import numpy as np

        from checker.explore import _lasso

        model = self.model
        index: dict[int, int] = {}
        order: list[dict[str, list]] = []
        for d in range(visited_levels):
            cols = _read_ordered(self.rundir.seen(d), ("fp", "parent", "ppos", "action"))
            base = len(index)
            for k, fp in enumerate(cols["fp"]):
                index[fp] = base + k
            order.append(cols)
        if self.edges is not None and len(self.edges.starts) >= expanded_levels:
            src, dst, act = self.edges.resolved(index, order, expanded_levels)
        else:
            src, dst, act = self.reexpanded_edges(index, order, expanded_levels)
        found = _lasso(len(index), np.array(src, np.uint32), np.array(dst, np.uint32))
        if found is None:
            return None
        entry, cycle = found
        starts = [index[o["fp"][0]] if o["fp"] else len(index) for o in order]
        entry_level = max(d for d, s in enumerate(starts) if s <= entry and order[d]["fp"])
        steps = self.replay(self.path_to(entry_level, order[entry_level]["fp"][entry - starts[entry_level]]))
        loop_start = len(steps) - 1
        edge_action: dict = {}
        for u, v, a in zip(src, dst, act):
            edge_action.setdefault((u, v), a)
        s = entry_state = steps[-1][1]
        pack = self.codec.pack
        for u, v in zip(cycle, cycle[1:] + cycle[:1]):
            a = list(model.actions(s))[edge_action[(u, v)]]
            s = model.next_state(s, a)
            # the cycle was found among fingerprints: each step of its replay must reach the
            # state recorded there, by an internal action, and the last must be the very state
            # it left — as the local engine checks (checker.explore, _find_cycle)
            if s is None or index.get(pack(s)[0]) != v or not _is_internal(model, a):
                raise AssertionError(
                    "replaying a lasso's cycle did not follow the recorded edges: the model is not "
                    "deterministic (actions() order or next_state() depends on something other "
                    "than the state)")
            steps.append((a, s))
        if model.encode(s) != model.encode(entry_state):
            raise AssertionError(
                f"the cycle found does not replay as a cycle: two states share a {self.codec.bits}-bit "
                "fingerprint (a collision; run again with 128-bit fingerprints)")
        return self.make_trace(steps, loop_start)

    def reexpanded_edges(self, index: dict[int, int], order: list[dict[str, list]], expanded_levels: int):
        """The internal edges among the visited states (``index``: fingerprint to global
        index), found by expanding the levels again along the parent tree."""
        model, codec = self.model, self.codec
        inits = list(model.init_states())
        level = [inits[a] for a in order[0]["action"]] if order else []
        src: list[int] = []
        dst: list[int] = []
        act: list[int] = []
        for d in range(expanded_levels):
            base = index[order[d]["fp"][0]] if order[d]["fp"] else len(index)
            child_at: dict[tuple[int, int], int] = {}
            if d + 1 < len(order):
                nxt_cols = order[d + 1]
                child_at = {(pp, a): k for k, (pp, a) in enumerate(zip(nxt_cols["ppos"], nxt_cols["action"]))}
            nxt: list = [None] * len(child_at)
            for k, s in enumerate(level):
                for ai, a in enumerate(model.actions(s)):
                    t = model.next_state(s, a)
                    if t is None:
                        continue
                    v = index.get(codec.fingerprint_of(model.encode(t)))
                    if v is None:
                        continue
                    if _is_internal(model, a):
                        src.append(base + k)
                        dst.append(v)
                        act.append(ai)
                    j = child_at.get((k, ai))
                    if j is not None:
                        nxt[j] = t
            level = nxt
        return src, dst, act

    # -- traces ------------------------------------------------------------------------

    def path_to(self, level: int, fp: int) -> list[tuple[int, int]]:
        """(fp, action index) from an initial state (action -1) to `fp` at `level`."""
        import pyarrow.parquet as pq

        chain = []
        for d in range(level, 0, -1):
            table = pq.read_table(self.rundir.seen(d), filters=[("fp", "=", fp)])
            assert table.num_rows == 1, f"fingerprint {fp} missing from seen level {d}"
            chain.append((fp, table.column("action")[0].as_py()))
            fp = table.column("parent")[0].as_py()
        chain.append((fp, -1))
        chain.reverse()
        return chain

    def trace(self, level: int, fp: int):
        """The ``checker.model.Trace`` from an initial state to `fp` at `level`."""
        return self.make_trace(self.replay(self.path_to(level, fp)))

    def make_trace(self, steps: list[tuple[Any, Any]], loop_start: int | None = None):
        """A ``checker.model.Trace`` in the local engine's format (changed top-level keys
        only after the first step)."""
        from checker.model import Trace, TraceStep, describe_action, describe_state

        out = []
        prev: dict = {}
        for action, state in steps:
            cur = json.loads(json.dumps(describe_state(self.model, state), default=str))
            fp_hex = format(self.codec.pack(state)[0] & 0xFFFFFFFFFFFFFFFF, "x")
            if action is None:
                out.append(TraceStep(None, cur, fp_hex))
            else:
                changed = {k: v for k, v in cur.items() if prev.get(k, _MISSING) != v}
                changed.update({k: None for k in prev if k not in cur})
                out.append(TraceStep(describe_action(self.model, action), changed, fp_hex,
                                     _is_internal(self.model, action)))
            prev = cur
        return Trace(out, loop_start)

    def replay(self, chain: list[tuple[int, int]]) -> list[tuple[Any, Any]]:
        """Re-run next_state on the driver: [(None, init), (action, state), ...]."""
        root_fp = chain[0][0]
        state = next(s for s in self.model.init_states() if self.codec.pack(s)[0] == root_fp)
        steps: list[tuple[Any, Any]] = [(None, state)]
        for fp, index in chain[1:]:
            actions = list(self.model.actions(state))
            nxt = self.model.next_state(state, actions[index]) if 0 <= index < len(actions) else None
            if nxt is None or self.codec.pack(nxt)[0] != fp:
                raise AssertionError(
                    f"replaying a trace: action {index} does not lead to fingerprint {fp}; the "
                    "model is not deterministic (actions() order or next_state() depends on "
                    "something other than the state)"
                )
            steps.append((actions[index], nxt))
            state = nxt
        return steps


def model_identity(model: Any, properties: Sequence[Any], bits: int) -> dict:
    """What a resumed run must share with the run that wrote the directory."""
    from checker.model import model_name

    codec = _Codec(model, bits)
    return {
        "model": f"{type(model).__module__}.{type(model).__qualname__}",
        "model_name": model_name(model),
        "init_fingerprints": sorted({codec.pack(s)[0] for s in model.init_states()}),
        "properties": [str(getattr(p, "id", i)) for i, p in enumerate(properties)],
        "fingerprint": f"blake2b-{bits} of Model.encode, read as a signed little-endian int64",
        "state_bytes": "Model.encode/decode" if codec.ships_encoding else f"pickle protocol {PICKLE_PROTOCOL}",
        "order": "parent position in its level, then action position (the local engine's)",
    }


# ---------------------------------------------------------------------------------------
# The entry point
# ---------------------------------------------------------------------------------------


def explore_spark(
    model: Any,
    *,
    spark: Any = None,
    run_dir: str | os.PathLike | None = None,
    resume: bool = False,
    max_states: int | None = None,
    max_depth: int | None = None,
    partitions: int | None = None,
    driver_threshold: int = DEFAULT_DRIVER_THRESHOLD,
    fingerprint_bits: int = 64,
    property_ids: Sequence[str] | None = None,
    keep_frontiers: bool = False,
    master: str | None = None,
    conf: Iterable[str] | dict[str, str] = (),
    rows_per_task: int = ROWS_PER_TASK,
    _on_level: Any = None,
    _split_timing: bool = False,
):
    """Explore every reachable state of ``model`` breadth-first on Spark; return a
    ``checker.model.Result`` with ``backend="spark"``.

    Same contract as ``checker.explore.explore``: the same distinct-state count, depth,
    verdicts and shortest-trace lengths, under any ``PYTHONHASHSEED`` and partition count;
    under ``max_states`` the same states are kept (discovery order: parent position, then
    action). ``run_dir`` keeps the levels (a temporary directory, removed afterwards,
    when None); ``resume=True`` continues the run recorded there from its last complete
    level, under the bounds it was started with (the manifest records them: a bound given
    now must be the same, else RunDirError; None, or the scenario's ``[check]`` default
    that the command line passes for no option, means the recorded one; a manifest from
    before bounds were recorded takes the ones given now) (the statistics' seconds and states/s cover the
    whole run: the manifest keeps the time spent up to its last complete level). ``spark`` defaults to ``make_session(master, conf)``, started
    only when a frontier first exceeds ``driver_threshold`` states (small models never
    start a JVM). ``partitions`` is the number of expansion tasks per level (default:
    twice the default parallelism), at most one per ``rows_per_task`` frontier states.
    """
    import tempfile

    if fingerprint_bits != 64:
        raise ValueError(
            f"fingerprint_bits={fingerprint_bits}: the Spark backend stores fingerprints as "
            "64-bit integers; use fingerprint_bits=64 (or the local engine for wider ones)"
        )
    properties = _select(model, property_ids)
    if resume and run_dir is None:
        raise RunDirError("resume needs the run directory of the interrupted run (--resume DIR)")
    temporary = run_dir is None
    root = Path(tempfile.mkdtemp(prefix="mqcheck-spark-") if temporary else run_dir)
    run = _RunDir(root)
    codec = _Codec(model, fingerprint_bits)
    identity = model_identity(model, properties, fingerprint_bits)
    # The cyclic garbage collector is off for the run, as in the local engine: states are
    # acyclic, and it would only walk the driver's levels over and over.
    collecting = gc.isenabled()
    gc.disable()
    closing = contextlib.ExitStack()   # what an interrupted run holds until it returns
    search = None
    try:
        if resume:
            progress = run.read_manifest(identity)
            bounds, notes = _resume_bounds(root, run.recorded_bounds,
                                           {"max_states": max_states, "max_depth": max_depth}, model)
            max_states, max_depth = bounds["max_states"], bounds["max_depth"]
            for note in notes:
                sys.stderr.write(f"mqcheck: note: {note}\n")
            run.discard_after(progress.level)
            progress.finished = False
        else:
            if run.manifest.exists():
                raise RunDirError(
                    f"{root} already holds a run (manifest.json); resume it with --resume "
                    f"{root}, or choose an empty --run-dir"
                )
            progress = _Progress()
        recorded = {**identity, "bounds": {"max_states": max_states, "max_depth": max_depth}}
        search = _Search(
            model, properties, _Checks.of(properties, f"{os.getpid()}.{next(_RUNS)}"), codec, run, recorded, progress,
            spark=spark, partitions=partitions, on_level=_on_level,
            session_args=(master, dict(conf) if isinstance(conf, dict) else parse_conf(conf)),
            rows_per_task=rows_per_task, prior_seconds=progress.seconds,
            split_timing=_split_timing,
        )
        if resume and run.recorded_bounds != recorded["bounds"]:  # an older manifest, or new bounds
            run.write_manifest(recorded, progress)
        if not resume:
            try:
                root.mkdir(parents=True, exist_ok=True)
            except OSError as err:   # a file of that name, a place no directory can be made
                why = "it is a file" if root.is_file() else err.strerror
                raise RunDirError(f"--run-dir {root}: cannot make the run directory: {why}") from None
            run.levels_log.unlink(missing_ok=True)
            rows, generated = search.init_level()
            keep = len(rows) if max_states is None else min(len(rows), max_states)
            for fp, _, _, _, blob in rows[:keep]:
                for kind, index in _observe_and_expand(model, codec, search.checks,
                                                       codec.unpack(blob), check_only=True)[0]:
                    progress.note(kind, index, 0, fp)
            _write_level_locally(run, 0, rows[:keep])
            progress.distinct = progress.last_new = keep
            progress.generated = generated
            stats = {"level": 0, "new": keep, "generated": generated, "phase": "driver"}
            run.append_level(stats)
            progress.levels.append(stats)
            search.commit()
        lasso = None
        failure = ""
        interrupts = search.interrupts = _Interrupts(search)
        try:
            with interrupts:
                try:
                    stop = search.run(max_states, max_depth, driver_threshold, keep_frontiers)
                    interrupts.check()
                    if (progress.phase == "driver" and progress.back_edges and search.track_back_edges):
                        visited = progress.depth + 1 if progress.distinct else 0
                        lasso = search.find_lasso(visited, min(progress.expanded, visited))
                        search.graph_checked = True
                    interrupts.check()
                except SparkStartError as err:
                    if interrupts.requested:
                        raise KeyboardInterrupt from None
                    if temporary:
                        raise
                    raise err.with_hint(f"{root} keeps level {search.progress.level}: --resume {root} "
                                        "goes on from there") from None
                except Exception as err:
                    if interrupts.requested:
                        raise KeyboardInterrupt from None  # a Spark call failed because Ctrl-C cancelled it
                    failure = _spark_failure(err, search)
                    if not failure:
                        raise
                    stop = f"Spark failed: {failure}"
        except KeyboardInterrupt:
            # Ctrl-C or SIGTERM: report what the last complete level established; resume continues.
            # From here to the end of the clean-up below, a repeat only cuts the wait for the
            # cancelled tasks (or for the JVM's end) short (reporting).
            closing.enter_context(interrupts.reporting())
            if search.jvm is not None:
                search.jvm.output.mute()
            interrupts.cancel_jobs()
            if search.jvm is None:   # a JVM this run started is stopped below, quiet already
                interrupts.settle()
            stop = "terminated (SIGTERM)" if interrupts.terminated else "interrupted"
            failure = stop
        if failure:
            # a signal, or Spark failed after it started: what the last complete level
            # established, as after a bound (the run directory can be resumed)
            search.progress = run.read_manifest(identity)
            search.progress.depth = (search.progress.level if search.progress.last_new
                                     else max(search.progress.level - 1, 0))
            lasso = None
        return _result(search, stop, search.elapsed(), lasso)
    finally:
        _RUN_JUDGES.clear()  # the driver's (local mode runs the driver levels here)
        if collecting:
            gc.enable()
        jvm = search.jvm if search is not None else None
        if jvm is None and search is not None and search.interrupts is not None:
            jvm = search.interrupts.starting   # started, but the run stopped before it took it
        if jvm is not None:
            # no process of the run outlives it: the JVM this run started and its Python
            # workers end before it returns (a repeated signal only hurries them)
            interrupts = search.interrupts
            with interrupts.reporting() if interrupts is not None else contextlib.nullcontext():
                jvm.stop(search.spark, hurried=lambda: interrupts is not None and interrupts.hurried)
        if temporary:
            shutil.rmtree(root, ignore_errors=True)
        closing.close()


def _spark_failure(err: Exception, search: "_Search") -> str:
    """What to report when ``err`` is Spark failing under a run that had started it (the
    JVM gone, a job aborted, the connection lost): one line; "" for anything else, which
    is raised as it is (mqcheck's own errors: a Python exception in a task, a query that
    does not analyse)."""
    if search.spark is None or type(err).__name__ in ("PythonException", "AnalysisException"):
        return ""
    try:
        from py4j.protocol import Py4JError
    except ImportError:   # pragma: no cover - pyspark brings py4j
        Py4JError = ()
    tb = err.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    where = tb.tb_frame.f_code.co_filename if tb is not None else ""
    inside = any(f"{os.sep}{package}{os.sep}" in where for package in ("py4j", "pyspark"))
    if not (isinstance(err, Py4JError) or inside):
        return ""
    gone = search.jvm.exited(wait=1.0) if search.jvm is not None else ""
    return gone or _exception_line(err)


class _Interrupts:
    """Ctrl-C during a run: the honest incomplete result, and nothing else on the terminal.

    pyspark's own SIGINT handler calls ``cancelAllJobs`` from inside the signal handler,
    re-entering py4j while the interrupted call is still reading its socket: py4j then logs
    tracebacks ("reentrant call", "KeyboardInterrupt while sending command") and the JVM
    logs the cancelled jobs with a stack trace. Here, while a run is under way, SIGINT in
    the middle of a py4j call only asks for the interruption: another thread cancels the
    jobs with the JVM's logging off, the call returns or fails as cancelled, and the run
    stops as interrupted (:meth:`check`); anywhere else it raises KeyboardInterrupt at
    once. A repeat in the middle of a py4j call is ignored too (the cancelled call returns,
    and the run stops then); once the run has stopped and its result is being built
    (:meth:`reporting`), a repeat only cuts the wait for the cancelled tasks short, so that
    the result is still printed.

    SIGTERM (``kill``, ``timeout``) is handled the same way (issue #17), when its action was
    the default; ``terminated`` says it was SIGTERM, for the result's stop reason.
    """

    def __init__(self, search: "_Search") -> None:
        self.search = search
        self.requested = False
        self.previous: Any = None
        self.previous_term: Any = None
        self.terminated = False
        self.hurried = False   # a repeat after the run stopped: the result now, without waiting
        self.starting: _Jvm | None = None   # a JVM being started for the run (_start_session)
        self.active = threading.current_thread() is threading.main_thread()

    def __enter__(self) -> "_Interrupts":
        if self.active:
            self.previous = signal.getsignal(signal.SIGINT)
            if self.previous is not signal.SIG_IGN:   # an ignored SIGINT (a background job) stays ignored
                signal.signal(signal.SIGINT, self.handler)
            self.previous_term = signal.getsignal(signal.SIGTERM)
            if self.previous_term is signal.SIG_DFL:
                signal.signal(signal.SIGTERM, self.handler)
        return self

    def __exit__(self, *exc: object) -> None:
        if self.active:
            signal.signal(signal.SIGINT, self.previous)
            if self.previous_term is signal.SIG_DFL:
                signal.signal(signal.SIGTERM, signal.SIG_DFL)

    @contextlib.contextmanager
    def reporting(self) -> Iterator[None]:
        """While an interrupted run cancels its jobs and builds its result: a repeated Ctrl-C
        or SIGTERM no longer raises (that would lose the result) but stops the wait for the
        cancelled tasks (:meth:`settle`). An ignored SIGINT stays ignored; a caller's own
        SIGTERM handler stays."""
        installed = []
        if self.active:
            previous = signal.getsignal(signal.SIGINT)
            if previous is not signal.SIG_IGN and previous is not None:
                installed.append((signal.SIGINT, signal.signal(signal.SIGINT, self.hurry)))
            if signal.getsignal(signal.SIGTERM) is signal.SIG_DFL:
                installed.append((signal.SIGTERM, signal.signal(signal.SIGTERM, self.hurry)))
        try:
            yield
        finally:
            for signum, previous in reversed(installed):
                signal.signal(signum, previous)

    def hurry(self, signum: int, frame: Any) -> None:
        """A repeated Ctrl-C or SIGTERM while the result is built: stop waiting (:meth:`settle`)."""
        self.hurried = True

    def reinstall(self) -> None:
        """After a SparkContext starts: it installs pyspark's handler in place of ours (and in
        place of an ignored SIGINT, which is ignored again)."""
        if self.active:
            signal.signal(signal.SIGINT, signal.SIG_IGN if self.previous is signal.SIG_IGN else self.handler)

    def handler(self, signum: int, frame: Any) -> None:
        self.terminated = self.terminated or signum == signal.SIGTERM
        first = not self.requested
        self.requested = True
        jvm = getattr(self.search, "jvm", None)
        if jvm is not None:
            jvm.output.mute()   # what the cancelled tasks' workers print is not the run's
        if not first:
            # the first signal already stops the run; a repeat only hurries what is left
            # (raising again could cut short the ending of the JVM or of a py4j call)
            self.hurried = True
            return
        if self.starting is not None:
            # the JVM is still starting (seconds): end it, and the run with it, now
            self.starting.terminate()
            raise KeyboardInterrupt
        if self.search.spark is not None and _inside_py4j(frame):
            threading.Thread(target=self.cancel_jobs, name="mqcheck-cancel", daemon=True).start()
            # raising inside py4j would break its connection (tracebacks on stderr); the run
            # stops when the cancelled call returns
            return
        raise KeyboardInterrupt

    def check(self) -> None:
        """Raise KeyboardInterrupt if an interruption was asked for."""
        if self.requested:
            raise KeyboardInterrupt

    def cancel_jobs(self) -> None:
        """Cancel every running job, the JVM's logging off (its cancellations are not errors)."""
        spark = self.search.spark
        if spark is None:
            return
        try:
            spark.sparkContext.setLogLevel("OFF")
            spark.sparkContext.cancelAllJobs()
        except Exception:  # the JVM may be going away; nothing left to cancel then
            pass

    def settle(self, timeout: float = 30.0) -> None:
        """Turn the JVM's errors back on once the cancelled tasks have ended.

        A job is cancelled at once, but its tasks are killed asynchronously: a task thread
        interrupted while it reads shuffle blocks logs "ERROR ShuffleBlockFetcherIterator:
        Error occurred while fetching local blocks" when it notices, up to seconds later.
        Those lines are the cancellation's, not errors of the run, so logging stays off
        until no executor runs a task; if they do not end within ``timeout`` seconds it
        stays off (the process is about to report the interrupted run and exit).
        """
        spark = self.search.spark
        if spark is None:
            return
        deadline = time.monotonic() + timeout
        try:
            tracker = spark.sparkContext.statusTracker()
            while time.monotonic() < deadline and not self.hurried:
                if not any(e.numRunningTasks for e in tracker.getExecutorInfos()):
                    spark.sparkContext.setLogLevel("ERROR")
                    return
                time.sleep(0.05)
        except Exception:  # the JVM is going away: nothing left to log
            pass


def _edge_limit() -> int:
    """The local engine's bound on recorded edges (``checker.explore.EDGE_LIMIT``)."""
    from checker.explore import EDGE_LIMIT

    return EDGE_LIMIT


class _Edges:
    """The internal edges of the driver levels as they are expanded, in the order the
    termination pass would find them again: level by level, parent by parent, action by
    action (so the lasso and its trace are the same either way)."""

    def __init__(self) -> None:
        from array import array

        self.starts: list[int] = []  # per level, the index of its first edge
        self.src = array("I")  # the parent's position in its level
        self.dst = array("q")  # the target's fingerprint
        self.act = array("H")  # the action's index in actions(parent)

    def add(self, pos: int, fp: int, action: int) -> None:
        self.src.append(pos)
        self.dst.append(fp)
        self.act.append(action)

    def resolved(self, index: dict[int, int], order: list[dict[str, list]], levels: int):
        """(src, dst, act) in global indices (``index``: fingerprint to global index; a
        level's base is its first state's), the edges of the first ``levels`` levels whose
        target was visited."""
        src: list[int] = []
        dst: list[int] = []
        act: list[int] = []
        ends = self.starts[1:levels] + [self.starts[levels] if levels < len(self.starts) else len(self.src)]
        for d in range(levels):
            base = index[order[d]["fp"][0]] if order[d]["fp"] else len(index)
            for k in range(self.starts[d], ends[d]):
                v = index.get(self.dst[k])
                if v is not None:
                    src.append(base + self.src[k])
                    dst.append(v)
                    act.append(self.act[k])
        return src, dst, act


def _inside_py4j(frame: Any) -> bool:
    """Is the interrupted Python code in the middle of a call to the JVM?"""
    marker = f"{os.sep}py4j{os.sep}"
    while frame is not None:
        if marker in frame.f_code.co_filename:
            return True
        frame = frame.f_back
    return False


def _select(model: Any, property_ids: Iterable[str] | None) -> tuple:
    """The properties to check, witnesses included (the one rule of checker.model)."""
    from checker.model import select_properties

    return tuple(select_properties(model, property_ids))


# ---------------------------------------------------------------------------------------
# Verdicts
# ---------------------------------------------------------------------------------------


def _result(search: _Search, stop: str, seconds: float, lasso=None):
    """The ``checker.model.Result``, with the local engine's verdict rules."""
    from checker.model import (
        Kind,
        Result,
        Statistics,
        Status,
        Verdict,
        collision_probability,
        model_name,
    )

    p = search.progress
    complete = not stop
    depth = p.depth
    seen_bytes = sum(f.stat().st_size for f in Path(search.rundir.seen_root).rglob("*.parquet"))
    bits = search.codec.bits
    stats = Statistics(
        distinct_states=p.distinct,
        generated_states=p.generated,
        max_depth=depth,
        seconds=round(seconds, 6),
        states_per_second=round(p.distinct / seconds, 1) if seconds > 0 else 0.0,
        fingerprint_bits=bits,
        collision_probability=collision_probability(p.distinct, p.generated, bits),
        visited_bytes_per_state=round(seen_bytes / p.distinct, 2) if p.distinct else 0.0,
        complete=complete,
        stop_reason=stop,
        # new distinct states per level, as the local engine counts them (a level cut to 0 is none)
        levels=[int(lv["new"]) for lv in sorted(p.levels, key=lambda lv: lv["level"]) if lv["new"]],
    )
    verdicts: dict = {}
    graph_checked = search.graph_checked
    for i, prop in enumerate(search.properties):
        v = Verdict(
            prop.id, prop.kind.value, Status.HOLDS, title=prop.title, citation=prop.citation,
            distinct_states=p.distinct, depth=depth, reason=stop,
        )
        bounded = Status.HOLDS if complete else Status.HOLDS_UP_TO_BOUND
        if prop.kind is Kind.CONFIG:
            v.status = Status.NOT_CHECKED
            v.note = "config properties are proved with Z3 (mqcheck prove)"
        elif prop.kind is Kind.EVENTUALLY:
            if lasso is not None:
                v.status, v.trace = Status.VIOLATED, lasso
            elif p.back_edges == 0 or graph_checked:
                # no edge into an explored level: no cycle; or the driver's second pass
                # (the local engine's) found none
                v.status = bounded
            else:
                v.status = Status.NOT_CHECKED
                v.note = (
                    f"{p.back_edges} internal action(s) lead back into explored levels and "
                    "levels ran on Spark: deciding whether they close a cycle needs the "
                    "whole graph (the local engine's second pass), which the Spark backend "
                    "only runs when every level stayed on the driver: use --backend local "
                    "or a larger --driver-threshold"
                )
        elif prop.kind is Kind.SOMETIMES:
            if i in p.witnessed:
                v.status, v.trace = Status.WITNESSED, search.trace(*p.witnessed[i])
            else:
                v.status = Status.NEVER_REACHED if complete else Status.NOT_REACHED_UP_TO_BOUND
        elif i in p.falsified:
            v.status, v.trace = Status.VIOLATED, search.trace(*p.falsified[i])
        else:
            v.status = bounded
        if v.status not in (Status.HOLDS_UP_TO_BOUND, Status.NOT_REACHED_UP_TO_BOUND):
            v.reason = ""
        verdicts[prop.id] = v
    for prop in search.properties:
        v = verdicts[prop.id]
        if prop.witness and v.status is not Status.VIOLATED:
            v.witness = prop.witness
            v.vacuous = verdicts[prop.witness].status is not Status.WITNESSED
    return Result(model_name(search.model), "spark", stats, verdicts)
