"""How far each `config` claim's proof goes: seconds at bound 5, and the largest bound
proved within a budget of CPU seconds (bounds 5, 6, 7, ... until this process has spent the
budget; a proof stopped by the wall-clock timeout is `unknown`, never counted). CPU, not
wall: the machine is shared, and wall time there measures the other users.

    PYTHONPATH=. python benchmarks/prove_bounds.py [--budget SECONDS] [ID ...]

Prints one line per proof: claim, bound, verdict, wall seconds, CPU seconds (this process).
"""

from __future__ import annotations

import argparse
import time

from checker.prove import prove
from properties.claims import CLAIMS


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--budget", type=float, default=600.0, help="CPU seconds per claim (default 600)")
    parser.add_argument("--timeout", type=float, default=3600.0, help="wall seconds per proof (default 3600)")
    parser.add_argument("--start", type=int, default=5)
    parser.add_argument("ids", nargs="*")
    args = parser.parse_args()
    for prop in CLAIMS:
        if args.ids and prop.id not in args.ids:
            continue
        spent, bound, best = 0.0, args.start, None
        while spent < args.budget:
            cpu = time.process_time()
            verdict, detail = prove(prop.predicate, bound, timeout=args.timeout)
            cpu = time.process_time() - cpu
            spent += cpu
            print(f"{prop.id:<24} bound {bound:>2}  {verdict:<14} {detail['seconds']:>8.2f} s wall  {cpu:>8.2f} s CPU",
                  flush=True)
            if verdict != "proved":
                break
            best = bound
            bound += 1
        print(f"{prop.id:<24} largest bound proved within {args.budget:.0f} CPU s: {best} ({spent:.1f} CPU s spent)",
              flush=True)


if __name__ == "__main__":
    main()
