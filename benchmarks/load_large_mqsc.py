"""Loading large MQSC (issue #18): CPU seconds of `mqcheck run`'s work (load the scenario,
apply the MQSC, settle) for one queue manager with N definitions of one kind.

    PYTHONPATH=. python benchmarks/load_large_mqsc.py [KIND ...] [--sizes 2000,4000,8000]

KIND: topic, sub, qlocal, channel, namelist (default: all). Run it against two checkouts
side by side (PYTHONPATH=<checkout>) to compare; the ratio between sizes shows the growth
(linear: 2x per doubling; quadratic: 4x).
"""

from __future__ import annotations

import sys
import time

from spec.network import run_scenario
from spec.scenario import parse_scenario

LINES = {
    "topic": lambda i: f"DEFINE TOPIC(T{i}) TOPICSTR('a/t{i}')",
    "sub": lambda i: f"DEFINE SUB(S{i}) TOPICSTR('a/s{i}') DEST(Q)",
    "qlocal": lambda i: f"DEFINE QLOCAL(Q{i})",
    "channel": lambda i: f"DEFINE CHANNEL(C{i}) CHLTYPE(SDR) CONNAME('h{i}') XMITQ(Q)",
    "namelist": lambda i: f"DEFINE NAMELIST(N{i}) NAMES(A,B)",
}


def cpu_seconds(kind: str, n: int) -> float:
    mqsc = "DEFINE QLOCAL(Q)\n" + "\n".join(LINES[kind](i) for i in range(n)) + "\n"
    text = f"[qmgrs.QMA]\nmqsc = '''\n{mqsc}'''\n"
    start = time.process_time()
    run_scenario(parse_scenario(text, "bench.toml"))
    return time.process_time() - start


def main(argv: list[str]) -> None:
    sizes = [2000, 4000, 8000]
    kinds = []
    for arg in argv:
        if arg.startswith("--sizes"):
            continue
        if "," in arg or arg.isdigit():
            sizes = [int(x) for x in arg.split(",")]
        else:
            kinds.append(arg)
    for kind in kinds or list(LINES):
        times = [cpu_seconds(kind, n) for n in sizes]
        print(f"{kind:9s} " + "  ".join(f"{n}: {t:6.2f} s" for n, t in zip(sizes, times)), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
