"""HTML report sizes and costs (issue #15).

Reproduce:  python benchmarks/bench_reports.py

For each case: the size of `check --json` (or `run --json`), the CPU seconds the CLI spends
adding the report data to check's result (topology, trace events by replaying every
trace), the CPU seconds of rendering the HTML from the JSON (median of 5), and the
report's size. CPU seconds (time.process_time), not wall time: the machine is shared.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import reports  # noqa: E402
from checker import cli  # noqa: E402

CASES = [
    ("check", "examples/fr-mesh-broken.toml", []),
    ("check", "examples/ps-republish-new.toml", []),
    ("check", "tests/data/reports/long-trace.toml", ["--property", "EXPECT"]),
    ("check", "examples/ps-hierarchy-loop.toml", ["--max-states", "2000"]),
    ("run", "examples/wl-channel-weight.toml", []),
]


def cli_json(argv: list[str]) -> dict:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        cli.main(argv)
    return json.loads(out.getvalue())


def annotate_seconds(path: str, extra: list[str]) -> float:
    """CPU seconds of cli._check_report_data alone, measured by wrapping it."""
    spent = []
    original = cli._check_report_data

    def timed(*a, **kw):
        t = time.process_time()
        try:
            return original(*a, **kw)
        finally:
            spent.append(time.process_time() - t)

    cli._check_report_data = timed
    try:
        cli_json(["check", path, "--json", "--quiet", "--workers", "1", *extra])
    finally:
        cli._check_report_data = original
    return spent[0]


def main() -> None:
    argparse.ArgumentParser(description=__doc__).parse_args()
    print(f"{'case':58} {'json KB':>8} {'report data s':>13} {'render s':>9} {'report KB':>10}")
    for command, path, extra in CASES:
        argv = [command, path, "--json", *(["--quiet", "--workers", "1"] if command == "check" else []), *extra]
        data = cli_json(argv)
        extra_s = annotate_seconds(path, extra) if command == "check" else 0.0
        times = []
        for _ in range(5):
            t = time.process_time()
            html = reports.render([data])
            times.append(time.process_time() - t)
        name = f"{command} {path} {' '.join(extra)}".strip()
        print(f"{name:58} {len(json.dumps(data)) / 1024:8.1f} {extra_s:13.3f} {statistics.median(times):9.3f} "
              f"{len(html.encode()) / 1024:10.1f}")


if __name__ == "__main__":
    main()
