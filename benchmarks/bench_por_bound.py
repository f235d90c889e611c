"""How much partial-order reduction could buy on an example if every property declared
that it reads nothing a delivery changes (issue #17, docs/por.md): an upper bound, not a
sound run.

`mqcheck check` reduces only when every checked ``always``/``sometimes`` property declares
``Property.reads``; the catalogue's do not (each reads something a delivery changes), so
with the whole catalogue nothing is reduced. This script pretends they all declare
``reads = frozenset()`` (copies of the properties, the catalogue is untouched) and explores
the example with and without reduction, in this process, one worker. The state counts say
how far the network model's ample sets (deliveries into one queue manager, in a run's last
phase) can cut this example at best; the CPU seconds say what asking for them costs.

    python benchmarks/bench_por_bound.py [--max-states N] [--explore-initial] EXAMPLE...

Prints a Markdown table (benchmarks/RESULTS.md, "#17: what reduction could buy").
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from checker.cli import _check_properties  # noqa: E402
from checker.explore import explore  # noqa: E402
from checker.model import Kind  # noqa: E402
from spec.network import MQNetwork  # noqa: E402
from spec.scenario import load_scenario  # noqa: E402


def invisible(props) -> tuple:
    """The properties, every always/sometimes one declaring that it reads nothing."""
    return tuple(dataclasses.replace(p, reads=frozenset()) if p.kind in (Kind.ALWAYS, Kind.SOMETIMES) else p
                 for p in props)


def measure(path: Path, por: bool, max_states: int | None, explore_initial: bool) -> dict:
    scenario = load_scenario(path)
    model = MQNetwork(scenario, invisible(_check_properties(scenario)),
                      explore_initial=True if explore_initial else None)
    cpu = time.process_time()
    result = explore(model, max_states=max_states, workers=1, por=por)
    return {"states": result.distinct_states, "complete": result.complete,
            "cpu_s": round(time.process_time() - cpu, 1)}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("examples", nargs="+", type=Path)
    ap.add_argument("--max-states", type=int, default=None)
    ap.add_argument("--explore-initial", action="store_true")
    args = ap.parse_args()
    print("| example | states, no reduction | states, reduction | ratio | CPU s, no reduction | CPU s, reduction |")
    print("|---|---:|---:|---:|---:|---:|")
    for path in args.examples:
        full = measure(path, False, args.max_states, args.explore_initial)
        red = measure(path, True, args.max_states, args.explore_initial)
        mark = lambda r: "" if r["complete"] else " (bound)"  # noqa: E731
        print(f"| {path.name}{':initial' if args.explore_initial else ''} | {full['states']:,}{mark(full)} | "
              f"{red['states']:,}{mark(red)} | {red['states'] / max(full['states'], 1):.3f} | {full['cpu_s']} | "
              f"{red['cpu_s']} |", flush=True)


if __name__ == "__main__":
    main()
