"""Exploration throughput on the MQ network model (spec.network) rather than a toy.

Reproduce:  python benchmarks/bench_network.py [--quick] [--only EXAMPLE]... [--max-states N]

``--duplicates`` (with ``--workers 1``) splits the CPU time of computing and encoding
successors between those first reached and those reached again: the most that pruning
transitions could save (benchmarks/RESULTS.md, "#17 (round 12)").

``--only`` and ``--max-states`` make the short run a profile samples, e.g.
``py-spy record -r 500 --format raw -o prof.raw -- python benchmarks/bench_network.py
--only fr-mesh-broken.toml --max-states 15000`` (benchmarks/RESULTS.md, "#17 (round 6)").

Each row explores a bundled example with every property of `mqcheck check`, including the
initial queue managers joining their clusters (--explore-initial), which is where the
interleavings are. Reported: distinct and generated states, depth, seconds, states per
second, bytes per visited state (the fingerprint set), bytes of one encoded state, and
the process's peak resident memory.
"""

from __future__ import annotations

import argparse
import platform
import resource
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from checker.cli import _check_properties  # noqa: E402
from checker.explore import explore  # noqa: E402
from spec.scenario import load_scenario  # noqa: E402
from spec.network import MQNetwork  # noqa: E402

CASES = [
    ("fr-mesh-broken.toml", True),
    ("fr-mesh-complete.toml", True),
    ("cluster-two-frs.toml", False),
    ("reset-deleted-qmgr.toml", True),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="only the smaller rows")
    parser.add_argument("--workers", type=int, default=None, help="explorer workers (default: the engine's)")
    parser.add_argument("--only", action="append", metavar="EXAMPLE", choices=[name for name, _ in CASES],
                        help="only this row (repeatable)")
    parser.add_argument("--max-states", type=int, default=None, help="stop each row at N states (incomplete)")
    parser.add_argument("--memo", choices=("on", "off", "verify"), default="on",
                        help="the delivery memo (spec/network/memo.py; default on, as mqcheck check runs)")
    parser.add_argument("--duplicates", action="store_true",
                        help="also measure the CPU time spent computing and encoding successors that "
                             "were already reached (what pruning transitions, e.g. sleep sets, could save "
                             "at most); needs --workers 1")
    args = parser.parse_args()
    if args.duplicates and args.workers != 1:
        parser.error("--duplicates times successors in this process: add --workers 1")
    print(f"machine: {platform.machine()}, {platform.python_implementation()} {platform.python_version()}")
    print("| example | start | distinct | generated | depth | seconds | states/s | bytes/visited state | bytes/encoded state |")
    print("|---|---|---|---|---|---|---|---|---|")
    cases = [c for c in CASES if c[0] in args.only] if args.only else CASES[:2] if args.quick else CASES
    memos = []
    for name, initial in cases:
        scenario = load_scenario(ROOT / "examples" / name)
        model = MQNetwork(scenario, _check_properties(scenario), explore_initial=initial, memo=args.memo)
        split = _time_duplicates(model) if args.duplicates else None
        start = time.perf_counter()
        cpu = time.process_time()
        result = explore(model, workers=args.workers, max_states=args.max_states)
        seconds = time.perf_counter() - start
        cpu = time.process_time() - cpu
        st = result.statistics
        (init,) = model.init_states()
        print(f"| {name} | {'joining explored' if initial else 'settled'} | {st.distinct_states:,} | "
              f"{st.generated_states:,} | {st.max_depth} | {seconds:.1f} | {st.distinct_states / seconds:,.0f} | "
              f"{st.visited_bytes_per_state:.1f} | {len(model.encode(init)):,} |")
        memos.append((name, model.memo))
        if split is not None:
            new, dup = split
            print(f"successors of {name}: {new[0]:,} first reached, {new[1] / 1e9:.1f} CPU s "
                  f"(computed and encoded); {dup[0]:,} reached again, {dup[1] / 1e9:.1f} CPU s; "
                  f"the run {cpu:.1f} CPU s, of which reached-again successors {dup[1] / 1e9 / cpu:.0%}")
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak resident memory: {peak_mb:,.0f} MB")
    for name, memo in memos:   # this process's deliveries (with --workers 1: all of them)
        if memo is not None:
            seen = memo.misses + memo.learnt + memo.hits + memo.direct
            print(f"delivery memo, {name}: {seen:,} deliveries and MQSC steps keyed, {memo.misses:,} local situations, "
                  f"{memo.hits:,} replays, {memo.learnt:,} learnt, {memo.direct:,} computed in full, "
                  f"{memo.rests} rests")


def _time_duplicates(model: MQNetwork) -> tuple[list[int], list[int]]:
    """Wrap ``model.next_state`` (the explorer reads it from the instance) so that each
    successor is computed and encoded inside the wrapper, timed, and counted as first
    reached or reached again (by its canonical encoding). Returns the two [count, CPU ns]
    tallies, filled in as the run goes. The encoding is kept on the state, so the explorer
    does not encode it a second time."""
    from spec.encoding import canonical_bytes

    seen: set[bytes] = set()
    new, dup = [0, 0], [0, 0]
    inner = model.next_state
    clock = time.process_time_ns

    def next_state(state, action):
        t0 = clock()
        succ = inner(state, action)
        if succ is None:
            return None
        key = canonical_bytes(succ)
        tally = dup if key in seen else new
        seen.add(key)
        tally[0] += 1
        tally[1] += clock() - t0
        return succ

    model.next_state = next_state
    return new, dup


if __name__ == "__main__":
    main()
