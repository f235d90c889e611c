"""Exhaustive exploration on Apache Spark: the local engine's breadth-first search, one
level at a time, on DataFrames (DESIGN §1, issue #8).

Per level d the frontier (the states first reached at depth d) is expanded in Python with
``mapInArrow``; each frontier state's properties are checked there, exactly once, and the
results come back through an accumulator. Successors ``(fp, parent, action, state)`` are
deduplicated inside each task, then inside the JVM: grouped by fingerprint keeping the
smallest ``(parent, action)`` (so traces do not depend on partitioning or hash seeds),
and joined (``left_anti``, or ``left`` when termination needs back edges) against every
fingerprint seen so far. Nothing the size of a level reaches the driver; one Spark job
per level.

The run directory holds, as Parquet, ``levels/table=seen/level=d`` (fp, parent, action:
16 bytes a state after zstd, kept for traces), ``levels/table=frontier/level=d`` (fp,
state: deleted once expanded), ``levels/table=backedge/level=d`` (old states reached by
an internal action), and ``manifest.json``, replaced atomically after each complete level.
Reading each level back from Parquet keeps query plans small and makes ``resume``
possible after a crash or Ctrl-C: the run continues from the last complete level. The
run directory must be a filesystem path the driver can write (local for ``local[*]``; a
shared mount on a cluster).

Small levels run on the driver in plain Python until a frontier exceeds
``driver_threshold`` states; from then on every level runs on Spark. Both phases apply
the same parent rule, so the trace does not depend on the threshold.

Limits, said plainly: termination (``eventually``) is decided only when no internal
action leads back into an explored level (then no cycle exists, as in the local engine's
first pass); otherwise the verdict is "not checked on this backend", never a pass —
the local engine's edge-storing second pass is not implemented here. Fingerprints are
64-bit only (Spark ``bigint``).
"""

from __future__ import annotations

import json
import os
import pickle
import shutil
import time
import warnings
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from hashlib import blake2b
from pathlib import Path
from typing import Any

DEFAULT_DRIVER_THRESHOLD = 20_000
"""Frontier size above which levels move from the driver to Spark (benchmarks/RESULTS.md)."""

PICKLE_PROTOCOL = 5
MANIFEST_FORMAT = "mqcheck-spark-run/1"

# Rows leaving the expansion: kind 0 is a successor; kinds 1 and 2 are observations of
# the expanded state `fp` about property number `action`.
KIND_SUCCESSOR = 0
KIND_FALSIFIED = 1  # an always (or at_quiescence, at a quiescent state) predicate is false
KIND_WITNESS = 2  # a sometimes predicate is true


# ---------------------------------------------------------------------------------------
# Session configuration
# ---------------------------------------------------------------------------------------

PANDAS_NOTICE = "PySpark does not yet fully support pandas"

DEFAULT_CONF: dict[str, str] = {
    # 2 cores / 24 GiB: the driver is also the executor in local mode.
    "spark.driver.memory": "8g",
    "spark.sql.shuffle.partitions": "4",
    "spark.sql.adaptive.enabled": "true",
    "spark.sql.parquet.compression.codec": "zstd",
    "spark.ui.showConsoleProgress": "false",
    "spark.executorEnv.PYTHONHASHSEED": "0",
    # pyspark's notice that pandas >= 3 is not fully supported: this backend uses Arrow.
    "spark.executorEnv.PYTHONWARNINGS": f"ignore:{PANDAS_NOTICE}:FutureWarning",
    "spark.python.worker.reuse": "true",
}


def parse_conf(pairs: Iterable[str]) -> dict[str, str]:
    """Parse ``KEY=VALUE`` strings (the CLI's ``--conf``), keeping their order.

    >>> parse_conf(["spark.ui.enabled=false", "spark.sql.shuffle.partitions=8"])
    {'spark.ui.enabled': 'false', 'spark.sql.shuffle.partitions': '8'}
    """
    out: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise ValueError(
                f"--conf {pair!r}: expected KEY=VALUE, e.g. --conf spark.sql.shuffle.partitions=8"
            )
        out[key.strip()] = value
    return out


def _spark_defaults_keys() -> set[str]:
    """Keys the user set in ``$SPARK_CONF_DIR/spark-defaults.conf`` (Spark's own file)."""
    conf_dir = os.environ.get("SPARK_CONF_DIR") or (
        os.path.join(os.environ["SPARK_HOME"], "conf") if "SPARK_HOME" in os.environ else None
    )
    if not conf_dir:
        return set()
    path = os.path.join(conf_dir, "spark-defaults.conf")
    keys: set[str] = set()
    try:
        with open(path, encoding="utf-8") as fh:
            for line in fh:
                line = line.strip()
                if line and not line.startswith("#"):
                    keys.add(line.split(None, 1)[0].split("=", 1)[0])
    except OSError:
        pass
    return keys


def make_session(
    master: str | None = None,
    conf: Iterable[str] | dict[str, str] = (),
    app_name: str = "mqcheck",
):
    """Return a SparkSession configured for exploration.

    Precedence, lowest first: ``DEFAULT_CONF`` (tuned for 2 cores / 24 GiB), then what the
    user configured for Spark itself (``spark-defaults.conf`` in ``SPARK_CONF_DIR``, or
    ``spark-submit --conf``/``--master``, which this never overrides), then ``master`` and
    ``conf`` given here. Without any master, ``local[*]``. Driver memory only takes effect
    when this call starts the JVM (a plain ``python`` process); under ``spark-submit`` pass
    ``--driver-memory`` instead.
    """
    from pyspark import SparkConf
    from pyspark.core.context import SparkContext
    from pyspark.sql import SparkSession

    explicit = dict(conf) if isinstance(conf, dict) else parse_conf(conf)
    under_submit = "PYSPARK_GATEWAY_PORT" in os.environ  # the JVM is already running
    user_keys = _spark_defaults_keys()
    if under_submit:
        SparkContext._ensure_initialized()
        user_keys |= {k for k, _ in SparkConf().getAll()}
    builder = SparkSession.builder.appName(app_name)
    for key, value in DEFAULT_CONF.items():
        if key not in user_keys:
            builder = builder.config(key, value)
    if master is not None:
        builder = builder.master(master)
    elif not under_submit and "spark.master" not in user_keys:
        builder = builder.master("local[*]")
    for key, value in explicit.items():
        builder = builder.config(key, value)
    session = builder.getOrCreate()
    session.sparkContext.setLogLevel("ERROR")
    return session


# ---------------------------------------------------------------------------------------
# States as bytes, fingerprints, and the property checks of one expanded state
# ---------------------------------------------------------------------------------------


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
        shipped = encoded if self.ships_encoding else pickle.dumps(state, PICKLE_PROTOCOL)
        return self.fingerprint_of(encoded), shipped

    def unpack(self, shipped: bytes) -> Any:
        if self.ships_encoding:
            return self.model.decode(shipped)
        return pickle.loads(shipped)


def _is_internal(model: Any, action: Any) -> bool:
    fn = getattr(model, "is_internal", None)  # checker.model.is_internal, inlined for workers
    return True if fn is None else bool(fn(action))


@dataclass(frozen=True)
class _Checks:
    """The state properties checked while expanding: (index into the property list, prop)."""

    always: tuple[tuple[int, Any], ...]
    sometimes: tuple[tuple[int, Any], ...]
    at_quiescence: tuple[tuple[int, Any], ...]

    @classmethod
    def of(cls, properties: Sequence[Any]) -> _Checks:
        def pick(kind: str) -> tuple[tuple[int, Any], ...]:
            return tuple((i, p) for i, p in enumerate(properties) if _kind(p) == kind)

        return cls(pick("always"), pick("sometimes"), pick("at_quiescence"))

    def observe(self, model: Any, state: Any, quiescent: bool) -> Iterator[tuple[int, int]]:
        """(row kind, property index) observations of one state, in property order."""
        for i, prop in self.always:
            if not prop.predicate(model, state):
                yield KIND_FALSIFIED, i
        for i, prop in self.sometimes:
            if prop.predicate(model, state):
                yield KIND_WITNESS, i
        if quiescent:
            for i, prop in self.at_quiescence:
                if not prop.predicate(model, state):
                    yield KIND_FALSIFIED, i


def _kind(prop: Any) -> str:
    return str(getattr(prop.kind, "value", prop.kind))


def _expand_one(model, codec: _Codec, checks: _Checks, fp: int, state: Any,
                check_only: bool = False):
    """Rows (kind, fp, parent, action, state bytes, internal) for one frontier state:
    its property observations, then its successors in action order. ``check_only``:
    only the always/sometimes observations (a state that will not be expanded)."""
    if check_only:
        for kind, index in checks.observe(model, state, quiescent=False):
            yield (kind, fp, 0, index, None, False)
        return
    successors = []
    internal_enabled = False
    for index, action in enumerate(model.actions(state)):
        nxt = model.next_state(state, action)
        if nxt is not None:
            internal = _is_internal(model, action)
            internal_enabled = internal_enabled or internal
            child_fp, shipped = codec.pack(nxt)
            successors.append((KIND_SUCCESSOR, child_fp, fp, index, shipped, internal))
    for kind, index in checks.observe(model, state, quiescent=not internal_enabled):
        yield (kind, fp, 0, index, None, False)
    yield from successors


EXPANSION_SCHEMA = "fp bigint, parent bigint, action int, state binary, internal boolean"


OUTPUT_BATCH_ROWS = 65536

SPLIT_FRONTIER_AT = 4096
"""Frontiers at least this large are repartitioned over all expansion tasks."""


def _arrow_expander(model, codec: _Codec, checks: _Checks, tally, check_only: bool = False):
    """The function ``mapInArrow`` runs on executors: frontier batches (fp, state) in,
    successor batches out; observations and counts go to the `tally` accumulator. The
    model travels inside this closure (cloudpickle)."""

    def expand(batches):
        import pyarrow as pa
        from pyspark import TaskContext

        schema = pa.schema(
            [
                ("fp", pa.int64()),
                ("parent", pa.int64()),
                ("action", pa.int32()),
                ("state", pa.binary()),
                ("internal", pa.bool_()),
            ]
        )
        started = time.process_time()
        observed: dict[tuple, int] = {}
        generated = 0
        # Successors are deduplicated within the task first, by the state itself (as the
        # local engine does within a level), so each distinct one is encoded and hashed
        # once; then by fingerprint, keeping the smallest (parent, action) — the JVM's rule,
        # applied early, so fewer rows cross into the JVM and the shuffle.
        by_state: dict[Any, list] = {}
        for batch in batches:
            fps = batch.column("fp").to_pylist()
            blobs = batch.column("state").to_pylist()
            for fp, blob in zip(fps, blobs):
                state = codec.unpack(blob)
                if check_only:
                    for kind, index in checks.observe(model, state, quiescent=False):
                        key = ("obs", kind, index)
                        observed[key] = min(observed.get(key, fp), fp)
                    continue
                internal_enabled = False
                for index, action in enumerate(model.actions(state)):
                    nxt = model.next_state(state, action)
                    if nxt is None:
                        continue
                    generated += 1
                    internal = _is_internal(model, action)
                    internal_enabled = internal_enabled or internal
                    row = by_state.get(nxt)
                    if row is None:
                        by_state[nxt] = [fp, index, internal]
                    else:
                        if (fp, index) < (row[0], row[1]):
                            row[0], row[1] = fp, index
                        row[2] = row[2] or internal
                for kind, index in checks.observe(model, state, not internal_enabled):
                    key = ("obs", kind, index)
                    observed[key] = min(observed.get(key, fp), fp)
        best: dict[int, list] = {}
        for nxt, (parent, action, internal) in by_state.items():
            child, shipped = codec.pack(nxt)
            row = best.get(child)
            if row is None:
                best[child] = [parent, action, shipped, internal]
            else:
                if (parent, action) < (row[0], row[1]):
                    row[0], row[1] = parent, action
                row[3] = row[3] or internal
        del by_state
        children = list(best)
        for lo in range(0, len(children), OUTPUT_BATCH_ROWS):
            chunk = children[lo : lo + OUTPUT_BATCH_ROWS]
            rows = [best[c] for c in chunk]
            cols = [chunk] + [[r[i] for r in rows] for i in range(4)]
            yield pa.RecordBatch.from_arrays(
                [pa.array(c, type=f.type) for c, f in zip(cols, schema)], schema=schema
            )
        part = TaskContext.get().partitionId()
        tally.add(observed | {("gen", part): generated, ("cpu", part): time.process_time() - started})

    return expand


class _TallyParam:
    """Accumulator merge for expansion tallies: min for observations (fingerprints), and
    for per-partition entries the same value again on a retry (max keeps one copy)."""

    def zero(self, value: dict) -> dict:
        return {}

    def addInPlace(self, acc: dict, more: dict) -> dict:
        for key, value in more.items():
            if key in acc:
                acc[key] = min(acc[key], value) if key[0] == "obs" else max(acc[key], value)
            else:
                acc[key] = value
        return acc


# ---------------------------------------------------------------------------------------
# The run directory: Parquet levels and an atomically replaced manifest
# ---------------------------------------------------------------------------------------


class RunDirError(ValueError):
    """A run directory that cannot be resumed (missing, or made for another check)."""


@dataclass
class _Progress:
    """Everything a resumed run needs besides the Parquet levels (manifest.json)."""

    level: int = 0  # last complete level: seen/frontier level=`level` written, not expanded
    distinct: int = 0
    generated: int = 0
    phase: str = "driver"
    # property index -> [level, fp] of the first falsifying / witnessing state (min fp)
    falsified: dict[int, list[int]] = field(default_factory=dict)
    witnessed: dict[int, list[int]] = field(default_factory=dict)
    levels: list[dict] = field(default_factory=list)  # per-level statistics
    back_edges: int = 0  # internal actions leading back into an explored level
    finished: bool = False

    def note(self, kind: int, index: int, level: int, fp: int) -> None:
        table = self.falsified if kind == KIND_FALSIFIED else self.witnessed
        if index not in table or [level, fp] < table[index]:
            table[index] = [level, fp]

    def to_json(self) -> dict:
        return {
            "level": self.level,
            "distinct": self.distinct,
            "generated": self.generated,
            "phase": self.phase,
            "falsified": {str(k): v for k, v in sorted(self.falsified.items())},
            "witnessed": {str(k): v for k, v in sorted(self.witnessed.items())},
            "levels": self.levels,
            "back_edges": self.back_edges,
            "finished": self.finished,
        }

    @classmethod
    def from_json(cls, data: dict) -> _Progress:
        return cls(
            level=data["level"],
            distinct=data["distinct"],
            generated=data["generated"],
            phase=data["phase"],
            falsified={int(k): v for k, v in data["falsified"].items()},
            witnessed={int(k): v for k, v in data["witnessed"].items()},
            levels=list(data["levels"]),
            back_edges=data["back_edges"],
            finished=data["finished"],
        )


TABLES = ("seen", "frontier", "backedge")


class _RunDir:
    """Paths: ``levels/table=seen/level=d`` and ``levels/table=frontier/level=d`` (one
    Spark write produces both), and ``manifest.json``."""

    def __init__(self, root: str | os.PathLike):
        self.root = Path(root)

    @property
    def levels_root(self) -> str:
        return str(self.root / "levels")

    @property
    def seen_root(self) -> str:
        return str(self.root / "levels" / "table=seen")

    def seen(self, level: int) -> str:
        return str(self.root / "levels" / "table=seen" / f"level={level}")

    def frontier(self, level: int) -> str:
        return str(self.root / "levels" / "table=frontier" / f"level={level}")

    def clear_level(self, level: int) -> None:
        for table in TABLES:
            shutil.rmtree(self.root / "levels" / f"table={table}" / f"level={level}", ignore_errors=True)

    def count(self, level: int, table: str = "seen") -> int:
        """Rows of a level's table, from the Parquet footers (no Spark job)."""
        import pyarrow.parquet as pq

        base = self.root / "levels" / f"table={table}" / f"level={level}"
        if not base.is_dir():
            return 0
        return sum(pq.read_metadata(f).num_rows for f in base.glob("*.parquet"))

    @property
    def manifest(self) -> Path:
        return self.root / "manifest.json"

    def write_manifest(self, identity: dict, progress: _Progress) -> None:
        data = {"format": MANIFEST_FORMAT, **identity, "progress": progress.to_json()}
        tmp = self.root / "manifest.json.tmp"
        with open(tmp, "w", encoding="utf-8") as fh:
            json.dump(data, fh, indent=1, sort_keys=True)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, self.manifest)  # atomic: a reader sees the old or the new manifest

    def read_manifest(self, identity: dict) -> _Progress:
        try:
            data = json.loads(self.manifest.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise RunDirError(
                f"{self.root}: no manifest.json, so nothing to resume; "
                "start a new run with --run-dir instead of --resume"
            ) from None
        if data.get("format") != MANIFEST_FORMAT:
            raise RunDirError(f"{self.manifest}: not a mqcheck Spark run ({data.get('format')!r})")
        for key, value in identity.items():
            if data.get(key) != value:
                raise RunDirError(
                    f"{self.manifest}: {key} was {data.get(key)!r} when this run started, "
                    f"now {value!r}; resume with the same check, or use a fresh --run-dir"
                )
        return _Progress.from_json(data["progress"])

    def discard_after(self, level: int) -> None:
        """Remove what a crashed run wrote beyond the last complete level."""
        for table in TABLES:
            base = self.root / "levels" / f"table={table}"
            if base.is_dir():
                for child in base.iterdir():
                    if child.name.startswith("level=") and int(child.name[6:]) > level:
                        shutil.rmtree(child)
        shutil.rmtree(self.root / "levels" / "_temporary", ignore_errors=True)

    def drop_frontier(self, level: int) -> None:
        shutil.rmtree(self.frontier(level), ignore_errors=True)

    def disk_bytes(self) -> int:
        return sum(p.stat().st_size for p in self.root.rglob("*") if p.is_file())


def _write_level_locally(run: _RunDir, level: int, rows: dict[int, tuple], states) -> None:
    """Driver phase: write one level's seen and frontier Parquet files with pyarrow."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    fps = sorted(rows)
    seen = pa.table(
        {
            "fp": pa.array(fps, pa.int64()),
            "parent": pa.array([rows[f][0] for f in fps], pa.int64()),
            "action": pa.array([rows[f][1] for f in fps], pa.int32()),
        }
    )
    frontier = pa.table(
        {"fp": pa.array(fps, pa.int64()), "state": pa.array([states[f] for f in fps], pa.binary())}
    )
    for table, path in ((seen, run.seen(level)), (frontier, run.frontier(level))):
        shutil.rmtree(path, ignore_errors=True)
        os.makedirs(path)
        pq.write_table(table, os.path.join(path, "part-00000.parquet"), compression="zstd")


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

    @property
    def track_back_edges(self) -> bool:
        return any(_kind(p) == "eventually" for p in self.properties)

    # -- driver phase ------------------------------------------------------------------

    def init_level(self) -> tuple[dict[int, tuple], dict[int, bytes], int]:
        rows: dict[int, tuple] = {}
        states: dict[int, bytes] = {}
        generated = 0
        for state in self.model.init_states():
            generated += 1
            fp, shipped = self.codec.pack(state)
            if fp not in rows:
                rows[fp] = (0, -1)
                states[fp] = shipped
        return rows, states, generated

    def driver_level(self, seen: dict[int, tuple], frontier: dict[int, bytes], level: int,
                     check_only: bool = False):
        """Expand one level in plain Python: (next level's rows, its states, generated
        successors, internal edges back into explored levels, timings)."""
        started = time.perf_counter()
        best: dict[int, tuple[int, int, bytes]] = {}
        generated = back = 0
        for fp in sorted(frontier):
            state = self.codec.unpack(frontier[fp])
            for kind, child, parent, action, shipped, internal in _expand_one(
                self.model, self.codec, self.checks, fp, state, check_only
            ):
                if kind != KIND_SUCCESSOR:
                    self.progress.note(kind, action, level, child)
                    continue
                generated += 1
                if child in seen:
                    back += internal
                    continue
                candidate = (parent, action, shipped)
                if child not in best or candidate[:2] < best[child][:2]:
                    best[child] = candidate
        rows = {fp: (p, a) for fp, (p, a, _) in best.items()}
        states = {fp: s for fp, (_, _, s) in best.items()}
        return rows, states, generated, back, {"expand": time.perf_counter() - started}

    # -- Spark phase -------------------------------------------------------------------

    def spark_level(self, level: int, check_only: bool = False, keep: int | None = None):
        """Expand frontier `level` and write level+1 in one Spark job: (new states,
        generated successors, internal edges back into explored levels, timings).

        ``check_only`` only checks the level's states against always/sometimes (a
        truncated last level, whose ``keep`` smallest fingerprints count). Observations
        and per-task counts come back through an accumulator whose merge is idempotent
        (min of fingerprints; per-partition counts keyed by partition), so a retried task
        cannot double-count."""
        from pyspark.sql import functions as F

        spark, run = self.spark, self.rundir
        size = self.progress.levels[level]["new"] if keep is None else keep
        parts = self.partitions or max(2, 2 * spark.sparkContext.defaultParallelism)
        tally = spark.sparkContext.accumulator({}, _TallyParam())
        expander = _arrow_expander(self.model, self.codec, self.checks, tally, check_only)
        t0 = time.perf_counter()
        frontier = spark.read.parquet(run.frontier(level)).select("fp", "state")
        if keep is not None:
            frontier = frontier.orderBy("fp").limit(keep)
        if size >= SPLIT_FRONTIER_AT or self.partitions:
            frontier = frontier.repartition(min(parts, max(1, size // 64)))
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", PANDAS_NOTICE, FutureWarning)
            successors = frontier.mapInArrow(expander, EXPANSION_SCHEMA)
        if check_only:
            successors.write.format("noop").mode("overwrite").save()
            self._absorb(tally.value, level)
            return 0, 0, 0, {"wall": time.perf_counter() - t0}
        seen = spark.read.parquet(run.seen_root).where(F.col("level") <= level).select("fp")
        if self.track_back_edges:
            # Old states carry no payload into the aggregation; an old state reached by an
            # internal action leaves a back-edge row (termination needs to know of any).
            joined = successors.join(seen.withColumn("old", F.lit(True)), "fp", "left")
            grouped = joined.groupBy("fp").agg(
                F.min(F.when(F.col("old").isNull(), F.struct("parent", "action", "state")))
                .alias("best"),
                F.max("old").alias("old"),
                F.max(F.col("internal") & F.col("old")).alias("back"),
            )
            tables = (
                F.when(F.col("old").isNull(), F.array(F.lit("seen"), F.lit("frontier")))
                .when(F.col("back"), F.array(F.lit("backedge")))
                .otherwise(F.array().cast("array<string>"))
            )
        else:
            grouped = (
                successors.join(seen, "fp", "left_anti")
                .groupBy("fp")
                .agg(F.min(F.struct("parent", "action", "state")).alias("best"))
            )
            tables = F.array(F.lit("seen"), F.lit("frontier"))
        # One write, up to three tables: a new state's seen row (fp, parent, action: kept
        # for traces) and its frontier row (with the state), and the back-edge rows.
        out = grouped.select(
            "fp", "best.parent", "best.action", "best.state", F.explode(tables).alias("table")
        )
        out = out.withColumn("state", F.when(F.col("table") == "frontier", F.col("state")))
        out = out.withColumn("level", F.lit(level + 1))
        run.clear_level(level + 1)
        out.write.mode("append").partitionBy("table", "level").parquet(run.levels_root)
        wall = time.perf_counter() - t0
        generated = self._absorb(tally.value, level)
        cpu = sum(v for k, v in tally.value.items() if k[0] == "cpu")
        times = {"wall": wall, "python_task_s": cpu}
        return run.count(level + 1), generated, run.count(level + 1, "backedge"), times

    def _absorb(self, tally: dict, level: int) -> int:
        """Record a level's observations; return its number of generated successors."""
        generated = 0
        for key, value in tally.items():
            if key[0] == "obs":
                self.progress.note(key[1], key[2], level, value)
            elif key[0] == "gen":
                generated += value
        return generated

    def _event(self, event: str, level: int) -> None:
        if self.on_level is not None:
            self.on_level(event, level)

    # -- the level loop ----------------------------------------------------------------

    def run(self, max_states, max_depth, driver_threshold, keep_frontiers) -> str:
        """Explore until done or a bound stops it; returns "" (complete) or the reason, in
        the local engine's words. Only complete levels are committed to the manifest."""
        p = self.progress
        seen_mem = frontier_mem = None
        if p.phase == "driver":
            seen_mem, frontier_mem = _load_levels_locally(self.rundir, p.level)
        while True:
            level = p.level
            if p.levels[level]["new"] == 0:
                p.finished = True
                self.commit()
                return ""
            if p.phase == "driver" and p.levels[level]["new"] > driver_threshold:
                p.phase = "spark"
                seen_mem = frontier_mem = None
            if p.phase == "spark":
                if self.spark is None:
                    self.spark = make_session(*self.session_args)
                new, generated, back, times = self.spark_level(level)
            else:
                rows, states, generated, back, times = self.driver_level(
                    seen_mem, frontier_mem, level
                )
                new = len(rows)
            p.generated += generated
            p.back_edges += back
            if max_depth is not None and level >= max_depth:
                return "max_depth reached" if new else ""
            keep = new
            if max_states is not None and p.distinct + new > max_states:
                keep = max(max_states - p.distinct, 0)
            if p.phase == "driver":
                t = time.perf_counter()
                if keep < new:
                    kept = sorted(rows)[:keep]
                    rows, states = {f: rows[f] for f in kept}, {f: states[f] for f in kept}
                _write_level_locally(self.rundir, level + 1, rows, states)
                times["write"] = time.perf_counter() - t
            if keep < new:  # the level is cut: check what is kept, commit nothing
                p.distinct += keep
                p.levels.append({"level": level + 1, "new": keep, "truncated_from": new})
                if p.phase == "spark":
                    self.spark_level(level + 1, check_only=True, keep=keep)
                else:
                    self.driver_level({}, states, level + 1, check_only=True)
                return "max_states reached"
            self._event("written", level + 1)
            p.level = level + 1
            p.distinct += new
            p.levels.append(
                {"level": level + 1, "new": new, "generated": generated, "phase": p.phase}
                | {k: round(v, 4) for k, v in times.items()}
            )
            self.commit()
            if p.phase == "driver":
                seen_mem.update(rows)
                frontier_mem = states
            if not keep_frontiers:
                self.rundir.drop_frontier(level)
            self._event("committed", level + 1)

    def commit(self) -> None:
        self.rundir.write_manifest(self.identity, self.progress)

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
        """The ``checker.model.Trace`` from an initial state to `fp` at `level`, in the
        local engine's format (changed top-level keys only after the first step)."""
        from checker.model import Trace, TraceStep, describe_action, describe_state

        steps = []
        prev: dict = {}
        for action, state in self.replay(self.path_to(level, fp)):
            cur = json.loads(json.dumps(describe_state(self.model, state), default=str))
            fp_hex = format(self.codec.pack(state)[0] & 0xFFFFFFFFFFFFFFFF, "x")
            if action is None:
                steps.append(TraceStep(None, cur, fp_hex))
            else:
                changed = {k: v for k, v in cur.items() if prev.get(k, _MISSING) != v}
                changed.update({k: None for k in prev if k not in cur})
                steps.append(TraceStep(describe_action(self.model, action), changed, fp_hex,
                                       _is_internal(self.model, action)))
            prev = cur
        return Trace(steps)

    def replay(self, chain: list[tuple[int, int]]) -> list[tuple[Any, Any]]:
        """Re-run next_state on the driver: [(None, init), (action, state), ...]."""
        root_fp = chain[0][0]
        state = next(s for s in self.model.init_states() if self.codec.pack(s)[0] == root_fp)
        steps: list[tuple[Any, Any]] = [(None, state)]
        for fp, index in chain[1:]:
            actions = list(self.model.actions(state))
            order = [index] + [i for i in range(len(actions)) if i != index]
            for i in order:
                nxt = self.model.next_state(state, actions[i]) if i < len(actions) else None
                if nxt is not None and self.codec.pack(nxt)[0] == fp:
                    steps.append((actions[i], nxt))
                    state = nxt
                    break
            else:
                raise AssertionError(f"no action of the model leads to fingerprint {fp}")
        return steps


_MISSING = object()


def _load_levels_locally(run: _RunDir, level: int):
    """Driver phase, on start or resume: every seen fingerprint and the last frontier."""
    import pyarrow.parquet as pq

    seen: dict[int, tuple] = {}
    for d in range(level + 1):
        t = pq.read_table(run.seen(d))
        for fp, parent, action in zip(*(t.column(c).to_pylist() for c in ("fp", "parent", "action"))):
            seen[fp] = (parent, action)
    t = pq.read_table(run.frontier(level))
    frontier = dict(zip(t.column("fp").to_pylist(), t.column("state").to_pylist()))
    return seen, frontier


def model_identity(model: Any, properties: Sequence[Any], bits: int) -> dict:
    """What a resumed run must share with the run that wrote the directory."""
    from checker.model import model_name

    codec = _Codec(model, bits)
    return {
        "model": f"{type(model).__module__}.{type(model).__qualname__}",
        "model_name": model_name(model),
        "init_fingerprints": sorted({codec.pack(s)[0] for s in model.init_states()}),
        "properties": [str(getattr(p, "id", i)) for i, p in enumerate(properties)],
        "fingerprint": f"blake2b-{bits} of Model.encode, signed big-endian int64",
        "state_bytes": "Model.encode/decode" if codec.ships_encoding else f"pickle protocol {PICKLE_PROTOCOL}",
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
    _on_level: Any = None,
):
    """Explore every reachable state of ``model`` breadth-first on Spark; return a
    ``checker.model.Result`` with ``backend="spark"``.

    Same contract as ``checker.explore.explore``: the same distinct-state count, depth,
    verdicts and shortest-trace lengths, under any ``PYTHONHASHSEED`` and partition count.
    ``run_dir`` keeps the levels (a temporary directory, removed afterwards, when None);
    ``resume=True`` continues the run recorded there from its last complete level, with
    the bounds given now. ``spark`` defaults to ``make_session(master, conf)``, started
    only when a frontier first exceeds ``driver_threshold`` states (small models never
    start a JVM). ``partitions`` is the number of
    expansion tasks per level (default: twice the default parallelism).
    """
    import tempfile

    from checker.model import Kind

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
    started = time.perf_counter()
    try:
        if resume:
            progress = run.read_manifest(identity)
            run.discard_after(progress.level)
            progress.finished = False
        else:
            if run.manifest.exists():
                raise RunDirError(
                    f"{root} already holds a run (manifest.json); resume it with --resume "
                    f"{root}, or choose an empty --run-dir"
                )
            progress = _Progress()
        search = _Search(
            model, properties, _Checks.of(properties), codec, run, identity, progress,
            spark=spark, partitions=partitions, on_level=_on_level,
            session_args=(master, dict(conf) if isinstance(conf, dict) else parse_conf(conf)),
        )
        if not resume:
            root.mkdir(parents=True, exist_ok=True)
            rows, states, generated = search.init_level()
            _write_level_locally(run, 0, rows, states)
            progress.distinct = len(rows)
            progress.generated = generated
            progress.levels.append({"level": 0, "new": len(rows), "generated": generated})
            search.commit()
        try:
            stop = search.run(max_states, max_depth, driver_threshold, keep_frontiers)
        except KeyboardInterrupt:
            # Ctrl-C: report what the last complete level established; resume continues.
            search.progress = run.read_manifest(identity)
            stop = "interrupted"
        return _result(search, stop, time.perf_counter() - started)
    finally:
        if temporary:
            shutil.rmtree(root, ignore_errors=True)


def _select(model: Any, property_ids: Iterable[str] | None) -> tuple:
    """The properties to check, witnesses included (the one rule of checker.model)."""
    from checker.model import select_properties

    return tuple(select_properties(model, property_ids))


# ---------------------------------------------------------------------------------------
# Verdicts
# ---------------------------------------------------------------------------------------


def _result(search: _Search, stop: str, seconds: float):
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
    depth = max(lv["level"] for lv in p.levels if lv["new"] > 0)
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
    )
    verdicts: dict = {}
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
            if p.back_edges == 0:
                # Every cycle has an edge into an explored level; without one, none exists.
                v.status = bounded
            else:
                v.status = Status.NOT_CHECKED
                v.note = (
                    f"{p.back_edges} internal action(s) lead back into explored levels; "
                    "deciding whether they close a cycle needs the local engine's "
                    "edge-storing second pass, which the Spark backend does not have: "
                    "use --backend local"
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
