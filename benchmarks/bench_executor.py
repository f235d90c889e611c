"""What one Spark expansion task costs per frontier state, measured without Spark (issue #17,
round 10).

Reproduce:  python benchmarks/bench_executor.py [--family fr-join] [--k 4] [--level 10] [--profile]

A scale-curve point (benchmarks/bench_scale.py) is explored breadth first in this process
up to ``--level``; that frontier is pickled by the Spark backend's codec, the model and its
checks are round-tripped through cloudpickle (as a task receives them), and the function
``mapInArrow`` runs on executors (``checker.spark_expand._arrow_expander``) expands the frontier as
one Arrow batch. Printed: the frontier's size, shipped bytes per state, and the expansion's
CPU seconds and milliseconds per state (``--profile``: a cProfile listing instead of the
plain timing). Compare checkouts by running this script from each (``cd`` there).
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import sys
import tempfile
import time
import types
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import bench_scale  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--family", default="fr-join", choices=sorted(bench_scale.FAMILIES))
    parser.add_argument("--k", type=int, default=4)
    parser.add_argument("--level", type=int, default=10, help="expand the frontier at this depth")
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()

    import pyarrow as pa
    import pyspark
    from pyspark import cloudpickle

    import checker.spark as backend
    import checker.spark_expand as spark_expand
    from checker.cli import _check_properties
    from spec.network import MQNetwork
    from spec.scenario import load_scenario

    path = Path(tempfile.mkdtemp(prefix="bench-executor-")) / f"{args.family}-{args.k}.toml"
    path.write_text(bench_scale.FAMILIES[args.family](args.k))
    scenario = load_scenario(path)
    model = MQNetwork(scenario, _check_properties(scenario), explore_initial=scenario.check.explore_initial or None)
    codec = spark_expand._Codec(model)
    checks = spark_expand._Checks.of(backend._select(model, None))

    seen: set[int] = set()
    frontier = [(codec.pack(s)[0], s) for s in model.init_states()]
    for _ in range(args.level):
        nxt: dict[int, object] = {}
        for _, s in frontier:
            for a in model.actions(s):
                t = model.next_state(s, a)
                if t is not None:
                    fp = codec.fingerprint_of(model.encode(t))
                    if fp not in seen and fp not in nxt:
                        nxt[fp] = t
        seen |= set(nxt)
        frontier = list(nxt.items())
    if not frontier:
        sys.exit(f"{args.family} k={args.k} has no states at depth {args.level}")
    blobs = [codec.pack(s)[1] for _, s in frontier]
    print(f"{args.family} k={args.k}, level {args.level}: {len(frontier):,} states, "
          f"{sum(map(len, blobs)) / len(blobs):,.0f} shipped bytes per state")

    task_model = cloudpickle.loads(cloudpickle.dumps(model))   # as a task gets them
    task_checks = cloudpickle.loads(cloudpickle.dumps(checks))

    class Tally:
        def add(self, value: dict) -> None:
            pass

    # the expander asks TaskContext for its partition: one task, partition 0
    pyspark.TaskContext.get = staticmethod(lambda: types.SimpleNamespace(partitionId=lambda: 0))
    batch = pa.RecordBatch.from_arrays(
        [pa.array([fp for fp, _ in frontier], pa.int64()), pa.array(range(len(blobs)), pa.int64()),
         pa.array(blobs, pa.binary())], names=["fp", "pos", "state"])
    expand = spark_expand._arrow_expander(task_model, spark_expand._Codec(task_model), task_checks, Tally())
    profile = cProfile.Profile() if args.profile else None
    started = time.process_time()
    if profile:
        profile.enable()
    rows = sum(b.num_rows for b in expand([batch]))
    if profile:
        profile.disable()
    cpu = time.process_time() - started
    print(f"expanded into {rows:,} distinct successors: {cpu:.2f} CPU s, "
          f"{1000 * cpu / len(frontier):.3f} ms per frontier state")
    if profile:
        pstats.Stats(profile).sort_stats("cumulative").print_stats(30)


if __name__ == "__main__":
    main()
