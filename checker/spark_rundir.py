"""The Spark backend's run directory (``checker.spark``): the Parquet levels (seen,
frontier, back edges), the per-level log and the manifest with the run's progress, replaced
atomically after each complete level; the bounds a resumed run explores under; and a level's
discovery positions, read back from its seen rows."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

MANIFEST_FORMAT = "mqcheck-spark-run/1"

# Rows leaving the expansion (checker.spark_expand): kind 0 is a successor; kinds 1 and 2
# are observations of the expanded state `fp` about property number `action`, which the
# run's progress records.
KIND_SUCCESSOR = 0
KIND_FALSIFIED = 1  # an always (or at_quiescence, at a quiescent state) predicate is false
KIND_WITNESS = 2  # a sometimes predicate is true


class RunDirError(ValueError):
    """A run directory that cannot be resumed (missing, or made for another check)."""


@dataclass
class _Progress:
    """Everything a resumed run needs besides the Parquet levels (manifest.json). Per-level
    statistics go to ``levels.jsonl`` (appended once per level), not the manifest."""

    level: int = 0  # last complete level: seen/frontier level=`level` written, not expanded
    last_new: int = 0  # states in level `level`
    distinct: int = 0
    generated: int = 0
    phase: str = "driver"
    # property index -> [level, fp] of the first falsifying / witnessing state (min fp)
    falsified: dict[int, list[int]] = field(default_factory=dict)
    witnessed: dict[int, list[int]] = field(default_factory=dict)
    back_edges: int = 0  # internal actions leading back into an explored level
    finished: bool = False
    seconds: float = 0.0  # wall time of the run up to the last commit, across resumes
    # not in the manifest: this process's view
    levels: list[dict] = field(default_factory=list)  # per-level statistics
    depth: int = 0
    expanded: int = 0  # levels 0..expanded-1 were expanded (the last maybe cut)

    def note(self, kind: int, index: int, level: int, fp: int) -> None:
        table = self.falsified if kind == KIND_FALSIFIED else self.witnessed
        if index not in table or [level, fp] < table[index]:
            table[index] = [level, fp]

    def to_json(self) -> dict:
        return {
            "level": self.level,
            "last_new": self.last_new,
            "distinct": self.distinct,
            "generated": self.generated,
            "phase": self.phase,
            "falsified": {str(k): v for k, v in sorted(self.falsified.items())},
            "witnessed": {str(k): v for k, v in sorted(self.witnessed.items())},
            "back_edges": self.back_edges,
            "finished": self.finished,
            "seconds": round(self.seconds, 6),
        }

    @classmethod
    def from_json(cls, data: dict) -> _Progress:
        return cls(
            level=data["level"],
            last_new=data["last_new"],
            distinct=data["distinct"],
            generated=data["generated"],
            phase=data["phase"],
            falsified={int(k): v for k, v in data["falsified"].items()},
            witnessed={int(k): v for k, v in data["witnessed"].items()},
            back_edges=data["back_edges"],
            finished=data["finished"],
            seconds=data.get("seconds", 0.0),
            expanded=data["level"],
        )


TABLES = ("seen", "frontier", "backedge")


class _RunDir:
    """Paths: ``levels/table=seen/level=d`` and ``levels/table=frontier/level=d`` (one
    Spark write produces both), ``levels.jsonl`` and ``manifest.json``."""

    def __init__(self, root: str | os.PathLike):
        self.root = Path(root)
        self.recorded_bounds: dict | None = None  # the manifest's "bounds" (None: an older manifest)

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

    def backedge(self, level: int) -> str:
        return str(self.root / "levels" / "table=backedge" / f"level={level}")

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

    @property
    def levels_log(self) -> Path:
        return self.root / "levels.jsonl"

    def append_level(self, stats: dict) -> None:
        """One line per complete level (statistics only: resume does not need them)."""
        with open(self.levels_log, "a", encoding="utf-8") as fh:
            fh.write(json.dumps(stats, sort_keys=True) + "\n")

    def read_levels(self, upto: int) -> list[dict]:
        try:
            lines = self.levels_log.read_text(encoding="utf-8").splitlines()
        except FileNotFoundError:
            return []
        out = []
        for line in lines:
            try:
                stats = json.loads(line)
            except ValueError:  # a line cut short by a crash
                continue
            if isinstance(stats, dict) and isinstance(stats.get("level"), int) and stats["level"] <= upto:
                out.append(stats)
        return out

    def write_manifest(self, identity: dict, progress: _Progress) -> None:
        """Totals and the last complete level only (constant size), replaced atomically."""
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
        except OSError as err:   # a directory named manifest.json, no permission
            raise RunDirError(f"{self.manifest}: cannot read: {err.strerror}") from None
        except ValueError as err:   # not JSON, not UTF-8: damaged, or not written by mqcheck
            raise RunDirError(f"{self.manifest}: not a mqcheck Spark run ({err}); use a fresh --run-dir") from None
        if not isinstance(data, dict):
            kind = {list: "an array", str: "a string", bool: "a boolean", int: "a number", float: "a number"}
            raise RunDirError(f"{self.manifest}: not a mqcheck Spark run ({kind.get(type(data), 'null')}, not an "
                              "object); use a fresh --run-dir")
        if data.get("format") != MANIFEST_FORMAT:
            raise RunDirError(f"{self.manifest}: not a mqcheck Spark run ({data.get('format')!r})")
        for key, value in identity.items():
            if data.get(key) != value:
                was = data.get(key)
                if key == "properties" and isinstance(was, list):
                    gone = [x for x in was if x not in value]
                    new = [x for x in value if x not in was]
                    change = "; ".join(
                        f"{label} {_few(ids)}" for label, ids in (("not checked now:", gone), ("new:", new)) if ids
                    ) or "same properties, another order"
                    detail = f"the properties differ from when this run started ({change})"
                elif key == "init_fingerprints":
                    detail = (
                        "the initial state differs from the interrupted run's: the scenario, --faults or "
                        f"--explore-initial changed since it started (init_fingerprints {_brief(was)} "
                        f"then, now {_brief(value)})"
                    )
                else:
                    detail = f"{key} {_brief(was)} when this run started, now {_brief(value)}"
                raise RunDirError(
                    f"{self.manifest}: {detail}; resume with the same check (same scenario, "
                    "--property and options), or use a fresh --run-dir"
                )
        bounds = data.get("bounds")
        self.recorded_bounds = dict(bounds) if isinstance(bounds, dict) else None
        try:
            if any(not (v is None or type(v) is int and v >= 0) for v in (self.recorded_bounds or {}).values()):
                raise ValueError(f"bounds {bounds!r}: a bound that is not a whole number")
            progress = _Progress.from_json(data["progress"])
            if not all(type(getattr(progress, k)) is int and getattr(progress, k) >= 0
                       for k in ("level", "last_new", "distinct", "generated")):
                raise ValueError("a level or count that is not a whole number")
        except (KeyError, TypeError, AttributeError, ValueError) as err:   # edited by hand, or damaged
            raise RunDirError(f"{self.manifest}: its progress cannot be read ({type(err).__name__}: {err}); "
                              "use a fresh --run-dir") from None
        progress.levels = self.read_levels(progress.level)
        return progress

    def discard_after(self, level: int) -> None:
        """Remove what a crashed run wrote beyond the last complete level."""
        for table in TABLES:
            base = self.root / "levels" / f"table={table}"
            if base.is_dir():
                for child in base.iterdir():
                    if child.name.startswith("level=") and int(child.name[6:]) > level:
                        shutil.rmtree(child)
        shutil.rmtree(self.root / "levels" / "_temporary", ignore_errors=True)
        kept = self.read_levels(level)
        with open(self.levels_log, "w", encoding="utf-8") as fh:
            fh.writelines(json.dumps(s, sort_keys=True) + "\n" for s in kept)

    def drop_frontier(self, level: int) -> None:
        shutil.rmtree(self.frontier(level), ignore_errors=True)

    def disk_bytes(self) -> int:
        return sum(p.stat().st_size for p in self.root.rglob("*") if p.is_file())


_MISSING = object()

BOUNDS = ("max_states", "max_depth")
"""The exploration bounds a run directory's manifest records (``"bounds"``): a resume
explores under the same ones. (The property selection is part of the identity.)"""


def _resume_bounds(root: Path, recorded: dict | None, given: dict, model: Any) -> tuple[dict, list[str]]:
    """The bounds a resumed run explores under, and what to tell the user about them.

    A bound not given now is the recorded one: None, or the scenario's own ``[check]``
    default (which the command line passes when the user gives no ``--max-states`` or
    ``--max-depth``), means "not given". So a run interrupted under ``--max-states 3000``
    resumes under 3000, never silently under the scenario's 5000. A bound given now that
    differs from the recorded one is the user's choice, e.g. to take a bounded run
    further. It is used, said in a note, and recorded for the next resume. A manifest from
    before bounds were recorded: the bounds given now, as before."""
    if recorded is None:
        return dict(given), []
    defaults = getattr(getattr(model, "scenario", None), "check", None)
    out, notes = {}, []
    for key in BOUNDS:
        value, was = given.get(key), recorded.get(key, given.get(key))
        if value is None or value == was or value == getattr(defaults, key, _MISSING):
            out[key] = was
            continue
        started = f"with {key} {was}" if was is not None else f"without {key}"
        notes.append(f"--resume {root}: the run was started {started}; it goes on with {key} {value}")
        out[key] = value
    return out, notes


def _few(ids: list) -> str:
    return ", ".join(map(str, ids[:3])) + (f" and {len(ids) - 3} more" if len(ids) > 3 else "")


def _brief(value: Any) -> str:
    """A manifest value for an error message: lists by their length and first items."""
    if isinstance(value, list) and len(value) > 4:
        head = ", ".join(map(str, value[:3]))
        return f"had {len(value)} entries ({head}, ...)"
    return f"was {value!r}"


def _write_level_locally(run: _RunDir, level: int, rows: Sequence[tuple], frontier: bool = True) -> None:
    """Driver phase: write one level's seen (and, with ``frontier``, frontier) Parquet
    files with pyarrow. ``rows``: (fp, parent fp, parent position, action, state bytes or
    None) in discovery order."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    cols = list(zip(*rows)) if rows else [(), (), (), (), ()]
    fp = pa.array(cols[0], pa.int64())
    ppos = pa.array(cols[2], pa.int64())
    action = pa.array(cols[3], pa.int32())
    tables = [(pa.table({"fp": fp, "parent": pa.array(cols[1], pa.int64()), "ppos": ppos, "action": action}),
               run.seen(level))]
    if frontier:
        tables.append((pa.table({"fp": fp, "ppos": ppos, "action": action,
                                 "state": pa.array(cols[4], pa.binary())}), run.frontier(level)))
    for table, path in tables:
        shutil.rmtree(path, ignore_errors=True)
        os.makedirs(path)
        pq.write_table(table, os.path.join(path, "part-00000.parquet"), compression="zstd")


def _read_ordered(path: str, columns: Sequence[str]) -> dict[str, list]:
    """A driver-sized level's columns, in discovery order (parent position, action)."""
    import pyarrow.parquet as pq

    names = list(dict.fromkeys([*columns, "ppos", "action"]))
    t = pq.read_table(path, columns=names).sort_by([("ppos", "ascending"), ("action", "ascending")])
    return {c: t.column(c).to_pylist() for c in columns}


def _positions(seen_path: str):
    """A level's discovery positions from its seen rows: (fingerprints sorted, the
    position of each), the position being the rank of (parent position, action)."""
    import numpy as np
    import pyarrow.parquet as pq

    table = pq.read_table(seen_path, columns=["fp", "ppos", "action"])
    fps = table.column("fp").to_numpy()
    ranked = np.lexsort((table.column("action").to_numpy(), table.column("ppos").to_numpy()))
    pos = np.empty(len(fps), dtype=np.int64)
    pos[ranked] = np.arange(len(fps), dtype=np.int64)
    by_fp = np.argsort(fps, kind="stable")
    return fps[by_fp], pos[by_fp]


def _position_of(positions, fps) -> list[int]:
    """The positions (``_positions``) of a batch's fingerprints."""
    import numpy as np

    known, pos = positions
    at = np.searchsorted(known, fps)
    if len(fps) and (at.max() >= len(known) or not np.array_equal(known[at], fps)):
        raise RunDirError("a frontier state is missing from its level's seen table")
    return pos[at].tolist()
