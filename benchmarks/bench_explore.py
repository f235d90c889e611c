"""Throughput of the local explorer (checker.explore) against a naive set-of-tuples BFS on
FingerprintFlood instances.

    python benchmarks/bench_explore.py            # the full run recorded in RESULTS.md
    python benchmarks/bench_explore.py --quick    # small instances only (about a minute)
    python benchmarks/bench_explore.py --instances tree:6,tree:7   # just these (+ complete:5 with --violation)

Every measurement runs in a fresh subprocess (so peak memory is that run's alone) and
prints one row: distinct states, generated states, depth, wall seconds, states per wall
second, CPU seconds (user+system, this process and its forked helper), bytes per visited
state, and peak resident memory (the larger of the process and its helper). Engines:
``explore/2`` (a persistent forked helper owns part of every level from the first level of
4,096 states on), ``explore/1`` (one process) and ``naive`` (benchmarks/naive_bfs.py). The
explorer takes successors from FingerprintFlood's batched ``successors()``; the naive BFS
calls ``actions``/``next_state`` (both are the same model code otherwise). "generated"
counts every successor produced, duplicates included, plus the initial state.
FF(complete,5) is explored with ``stop_on_violation`` to show the shortest channel-bound
counterexample; the naive BFS cannot stop early and is not run on it. Timings on a shared
machine are noisy: compare CPU seconds as well as wall seconds.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

QUICK = [("ring", n) for n in range(3, 9)] + [("tree", n) for n in (5, 10, 15, 16)] + [("complete", 3)]
FULL = [("ring", n) for n in range(3, 9)] + [("tree", n) for n in range(5, 21)] + \
       [("complete", 3), ("complete", 4)]
ENGINES = ("explore/2", "explore/1", "naive")


def measure(engine: str, topology: str, n: int, stop: bool) -> dict:
    """Run one engine on one instance in this process; return its row."""
    from ff_model import FingerprintFlood
    from naive_bfs import naive_bfs

    from checker.explore import explore
    from checker.model import format_verdict

    model = FingerprintFlood(topology, n)
    t0 = os.times()
    if engine == "naive":
        r = naive_bfs(model)
        row = {k: r[k] for k in ("distinct_states", "generated_states", "max_depth", "seconds",
                                 "states_per_second", "visited_bytes_per_state")}
        row["verdict"] = "violated: " + ", ".join(r["violated"]) if r["violated"] else "no violation"
    else:
        res = explore(model, workers=int(engine.split("/")[1]), stop_on_violation=stop)
        s = res.statistics
        row = {"distinct_states": s.distinct_states, "generated_states": s.generated_states,
               "max_depth": s.max_depth, "seconds": s.seconds, "states_per_second": s.states_per_second,
               "visited_bytes_per_state": s.visited_bytes_per_state}
        bound = res.verdicts["FF-CHANNEL-BOUND"]
        row["verdict"] = "FF-CHANNEL-BOUND " + format_verdict(bound)
        if bound.trace:
            row["trace"] = bound.trace.actions()
        if not s.complete:
            row["verdict"] += f" [run incomplete: {s.stop_reason}]"
    t1 = os.times()
    row["cpu_seconds"] = round(t1.user - t0.user + t1.system - t0.system
                               + t1.children_user - t0.children_user
                               + t1.children_system - t0.children_system, 2)
    row["peak_mb"] = round(max(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
                               resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss) / 1024, 1)
    return row


def run_one(engine: str, topology: str, n: int, stop: bool) -> dict:
    cmd = [sys.executable, __file__, "--one", engine, topology, str(n)] + (["--stop"] if stop else [])
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="small instances only")
    ap.add_argument("--json", help="also write all rows to this file")
    ap.add_argument("--instances", help="comma-separated topology:n list instead of the default set")
    ap.add_argument("--violation", action="store_true",
                    help="with --instances: also run FF(complete,5) with stop_on_violation")
    ap.add_argument("--one", nargs=3, metavar=("ENGINE", "TOPOLOGY", "N"), help=argparse.SUPPRESS)
    ap.add_argument("--stop", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one:
        engine, topology, n = args.one
        print(json.dumps(measure(engine, topology, int(n), args.stop)))
        return
    if args.instances:
        chosen = [(t, int(n)) for t, n in (item.split(":") for item in args.instances.split(","))]
        instances = [(t, n, False) for t, n in chosen] + ([("complete", 5, True)] if args.violation else [])
    else:
        instances = [(t, n, False) for t, n in (QUICK if args.quick else FULL)] + [("complete", 5, True)]
    print(f"# {platform.python_implementation()} {platform.python_version()}, {os.cpu_count()} CPUs, "
          f"load average {os.getloadavg()[0]:.1f} at start, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    header = ("| instance | engine | distinct | generated | depth | wall s | states/s | CPU s "
              "| bytes/visited state | peak MB |")
    print(header)
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    rows = []
    for topology, n, stop in instances:
        engines = ("explore/2", "explore/1") if stop else ENGINES
        for engine in engines:
            row = run_one(engine, topology, n, stop)
            row.update(instance=f"FF({topology},{n})", engine=engine)
            rows.append(row)
            print(f"| {row['instance']} | {engine} | {row['distinct_states']} | {row['generated_states']} "
                  f"| {row['max_depth']} | {row['seconds']:.2f} | {row['states_per_second']:,.0f} "
                  f"| {row['cpu_seconds']:.2f} | {row['visited_bytes_per_state']:.1f} | {row['peak_mb']:.0f} |",
                  flush=True)
    print()
    for row in rows:
        if row["engine"] != "naive":
            print(f"{row['instance']} {row['engine']}: {row['verdict']}")
            if row.get("trace"):
                print("   trace: " + ", ".join(row["trace"]))
    by = {(r["instance"], r["engine"]): r for r in rows}
    print()
    for inst in sorted({r["instance"] for r in rows}):
        naive = by.get((inst, "naive"))
        if not naive or naive["seconds"] < 0.5:
            continue
        for engine in ("explore/2", "explore/1"):
            e = by[(inst, engine)]
            print(f"{inst} {engine}: {e['states_per_second'] / naive['states_per_second']:.2f}x naive states/s "
                  f"(wall), {naive['cpu_seconds'] / e['cpu_seconds']:.2f}x naive per CPU second, "
                  f"{e['visited_bytes_per_state']:.0f} vs {naive['visited_bytes_per_state']:.0f} bytes/state")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
