"""The Spark backend (checker.spark) against the local engine (checker.explore) on
FingerprintFlood instances.

    python benchmarks/bench_spark.py                          # FF(tree,20) and FF(complete,4)
    python benchmarks/bench_spark.py --instances tree:20 --thresholds 0,20000
    python benchmarks/bench_spark.py --instances fr-join:3,ps-cluster:3 --thresholds 0 --local-workers 1

An instance is an FF topology (``tree:N``, ``complete:N``, ``ring:N``) or, for the real MQ
network model (issue #17), a scale-curve family of benchmarks/bench_scale.py with its k
(``fr-join:3``: that scenario with every property of ``mqcheck check``). Termination
verdicts that Spark levels leave "not checked" (back edges into explored levels) are not
compared; every other verdict must equal the local engine's.

For each instance: the local engine (its default two processes), then ``explore_spark`` on
``--master`` (default local[2]) once per driver threshold. Printed per run: distinct
states, seconds, states/s and the ratio to the local engine, driver and Spark levels, the
fixed per-level overhead (median wall time of the Spark levels with under 1,000 new states),
Python expansion task-seconds summed over tasks, bytes on disk per state (the seen table
kept for traces, and the largest frontier), and the driver's resident memory at the first
and the last Spark level (flat = the driver holds no level), and the JVM's (VmRSS of the
``java`` child, from /proc). Then, per Spark level of the last run (from the run
directory's ``levels.jsonl``): new states, generated successors, expansion tasks, prepare
seconds (ranking, planning), job seconds, and with ``--split`` the measured expand / dedup
/ write seconds (the level's plan run into Spark's no-op sink up to the expansion, then up
to the deduplication, then the real write: differences of wall times; it triples the
expansion work, so the totals of a ``--split`` run are not comparable), Python task-s.

Timings on a shared machine are noisy; rerun and compare.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from ff_model import FingerprintFlood  # noqa: E402

from checker.explore import explore  # noqa: E402
from checker.spark import explore_spark  # noqa: E402
from checker.spark_session import make_session  # noqa: E402


def rss_mb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def jvm_rss_mb() -> tuple[float, float]:
    """(VmRSS, VmHWM) in MB of the JVM this process started (local mode: the executors'
    memory too), from /proc; (nan, nan) if none is found."""
    me = str(os.getpid())
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            name = stat.read_text().split("(", 1)[1].split(")", 1)[0]
        except OSError:
            continue
        if fields[1] == me and name == "java":
            status = (stat.parent / "status").read_text().splitlines()
            kb = {line.split(":")[0]: int(line.split()[1]) for line in status if line.startswith(("VmRSS", "VmHWM"))}
            return kb["VmRSS"] / 1024, kb["VmHWM"] / 1024
    return float("nan"), float("nan")


def dir_bytes(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*.parquet"))


def run_spark(spark, model, threshold: int, partitions: int | None, split: bool = False) -> dict:
    with tempfile.TemporaryDirectory(prefix="bench-spark-") as tmp:
        root = Path(tmp) / "run"
        memory: dict[int, float] = {}
        jvm: dict[int, tuple[float, float]] = {}
        frontier_bytes = [0]

        def hook(event: str, level: int) -> None:
            if event == "committed":
                memory[level] = rss_mb()
                jvm[level] = jvm_rss_mb()
                f = root / "levels" / "table=frontier" / f"level={level}"
                if f.is_dir():
                    frontier_bytes[0] = max(frontier_bytes[0], dir_bytes(f))

        t = time.perf_counter()
        r = explore_spark(model, spark=spark, run_dir=root, driver_threshold=threshold,
                          partitions=partitions, _on_level=hook, _split_timing=split)
        seconds = time.perf_counter() - t
        levels = [json.loads(line) for line in (root / "levels.jsonl").read_text().splitlines()]
        for lv in levels:
            lv["jvm_rss_mb"], lv["jvm_hwm_mb"] = jvm.get(lv["level"], (float("nan"),) * 2)
        seen = dir_bytes(root / "levels" / "table=seen")
    s = r.statistics
    spark_levels = [lv for lv in levels if lv.get("phase") == "spark"]
    small = [lv["prepare_s"] + lv["job_s"] for lv in spark_levels if lv["new"] < 1000]
    spark_mem = [memory[lv["level"]] for lv in spark_levels if lv["level"] in memory]
    return {
        "distinct": s.distinct_states, "generated": s.generated_states, "depth": s.max_depth,
        "seconds": seconds, "rate": s.distinct_states / seconds,
        "driver_levels": sum(1 for lv in levels if lv.get("phase") == "driver"),
        "spark_levels": len(spark_levels),
        "overhead": statistics.median(small) if small else float("nan"),
        "python_task_s": sum(lv.get("python_task_s", 0.0) for lv in spark_levels),
        "seen_bytes_per_state": seen / s.distinct_states,
        "max_frontier_bytes_per_state": frontier_bytes[0] / max(
            (lv["new"] for lv in levels), default=1),
        "driver_rss_first_last": (spark_mem[0], spark_mem[-1]) if spark_mem else None,
        "jvm_rss_first_last": (spark_levels[0]["jvm_rss_mb"], spark_levels[-1]["jvm_rss_mb"]) if spark_levels else None,
        "levels": spark_levels,
        "verdicts": {k: v.status.value for k, v in r.verdicts.items()},
    }


def make_model(topology: str, n: int, cap: int):
    """An FF instance, or a bench_scale family's generated scenario on the network model."""
    import bench_scale

    if topology not in bench_scale.FAMILIES:
        return FingerprintFlood(topology, n, cap=cap)
    from checker.cli import _check_properties
    from spec.network import MQNetwork
    from spec.scenario import load_scenario

    path = Path(tempfile.mkdtemp(prefix="bench-spark-model-")) / f"{topology}-{n}.toml"
    path.write_text(bench_scale.FAMILIES[topology](n))
    scenario = load_scenario(path)
    model = MQNetwork(scenario, _check_properties(scenario), explore_initial=scenario.check.explore_initial or None)
    model.name = f"{topology} k={n}"
    return model


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--instances", default="tree:20,complete:4")
    parser.add_argument("--thresholds", default="20000,0",
                        help="driver thresholds to run (0: every level on Spark)")
    parser.add_argument("--master", default="local[2]")
    parser.add_argument("--partitions", type=int)
    parser.add_argument("--cap", type=int, default=4, help="channel capacity of the FF models")
    parser.add_argument("--local-workers", type=int, default=None,
                        help="the local engine's processes (default: its own choice)")
    parser.add_argument("--split", action="store_true",
                        help="also time expand / dedup / write per Spark level (runs each level's "
                             "expansion three times: the totals are then not comparable)")
    args = parser.parse_args()
    spark = make_session(args.master, ["spark.ui.enabled=false"], "mqcheck-bench")
    spark.sparkContext.addPyFile(str(HERE / "ff_model.py"))
    print("| model | engine | states | generated | depth | s | states/s | vs local | "
          "driver/Spark levels | level overhead s | Python task-s | seen B/state | "
          "frontier B/state | driver RSS MB first→last Spark level | JVM RSS MB first→last |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    last = None
    for spec in args.instances.split(","):
        topology, n = spec.split(":")
        model = make_model(topology, int(n), args.cap)
        t = time.perf_counter()
        local = explore(model, workers=args.local_workers)
        local_s = time.perf_counter() - t
        ls = local.statistics
        local_rate = ls.distinct_states / local_s
        procs = f"{args.local_workers} process(es)" if args.local_workers else "default processes"
        print(f"| {model.name} | local (explore, {procs}) | {ls.distinct_states:,} | "
              f"{ls.generated_states:,} | {ls.max_depth} | {local_s:.1f} | {local_rate:,.0f} | "
              f"1.00 | – | – | – | {ls.visited_bytes_per_state} (RAM) | – | – | – |", flush=True)
        for threshold in (int(x) for x in args.thresholds.split(",")):
            r = run_spark(spark, model, threshold, args.partitions, args.split)
            assert r["distinct"] == ls.distinct_states, (r["distinct"], ls.distinct_states)
            want = {k: v.status.value for k, v in local.verdicts.items()}
            for k, got in r["verdicts"].items():
                if got == "not checked on this backend" and local.verdicts[k].kind == "eventually":
                    want[k] = got
            assert r["verdicts"] == want, (r["verdicts"], want)
            mem = r["driver_rss_first_last"]
            print(f"| {model.name} | spark {args.master}, threshold {threshold:,} | "
                  f"{r['distinct']:,} | {r['generated']:,} | {r['depth']} | {r['seconds']:.1f} | "
                  f"{r['rate']:,.0f} | {r['rate'] / local_rate:.2f} | "
                  f"{r['driver_levels']}/{r['spark_levels']} | {r['overhead']:.2f} | "
                  f"{r['python_task_s']:.1f} | {r['seen_bytes_per_state']:.1f} | "
                  f"{r['max_frontier_bytes_per_state']:.1f} | "
                  + (f"{mem[0]:.0f}→{mem[1]:.0f}" if mem else "–") + " | "
                  + (f"{r['jvm_rss_first_last'][0]:.0f}→{r['jvm_rss_first_last'][1]:.0f}"
                     if r["jvm_rss_first_last"] else "–") + " |", flush=True)
            if r["levels"]:   # the per-level table shows the last run that had Spark levels
                last = (model.name, threshold, r["levels"])
    if last:
        name, threshold, levels = last
        print(f"\nPer Spark level, {name}, threshold {threshold:,}:\n")
        print("| level | new states | generated | tasks | prepare s | job s | expand s | dedup s | "
              "write s | Python task-s | JVM RSS MB |")
        print("|---|---|---|---|---|---|---|---|---|---|---|")
        nan = float("nan")
        for lv in levels:
            print(f"| {lv['level']} | {lv['new']:,} | {lv['generated']:,} | {lv.get('tasks', 0)} | "
                  f"{lv['prepare_s']:.2f} | {lv['job_s']:.2f} | {lv.get('expand_s', nan):.2f} | "
                  f"{lv.get('dedup_s', nan):.2f} | {lv.get('write_s', nan):.2f} | "
                  f"{lv.get('python_task_s', 0.0):.2f} | {lv['jvm_rss_mb']:.0f} |")
    spark.stop()


if __name__ == "__main__":
    main()
