"""The ``spark-submit`` entry script: ``mqcheck check`` with the Spark backend.

    spark-submit --master local[2] --py-files mqcheck.zip checker/spark_submit.py \\
        SCENARIO [mqcheck check options]

runs ``checker.cli.main(["check", SCENARIO, ..., "--backend", "spark"])``: the same parsing,
output and exit statuses as the CLI (0 all hold / 1 a violation / 2 bad input / 3
incomplete), one implementation. The master, executors and memory come from
``spark-submit`` itself (``--master``, ``--conf``, ``--driver-memory``, ``SPARK_CONF_DIR``);
``checker.spark_session.make_session`` never overrides them.

For the FingerprintFlood benchmark model (benchmarks/ff_model.py, which must be importable
as ``ff_model``: put it in the ``--py-files`` zip), without a scenario:

    spark-submit --master local[2] --py-files mqcheck.zip checker/spark_submit.py \\
        --ff complete:3 [--cap 4] [--max-states N] [--max-depth D] [--property ID]... \\
        [--run-dir DIR | --resume DIR] [--partitions P] [--driver-threshold T] [--json]

The package travels to executors in the ``--py-files`` zip (or a wheel installed on every
node); the model object itself travels inside the expansion closure (cloudpickle).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

EXIT_BAD_INPUT = 2


def _ff_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="spark_submit.py --ff",
        description="Explore a FingerprintFlood benchmark model on Spark.",
    )
    parser.add_argument(
        "--ff", required=True, metavar="TOPOLOGY:N",
        help="ring:N, tree:N or complete:N (benchmarks/ff_model.py)",
    )
    parser.add_argument("--cap", type=int, default=4, help="channel capacity (default 4)")
    parser.add_argument("--max-states", type=int)
    parser.add_argument("--max-depth", type=int)
    parser.add_argument("--property", action="append", dest="properties", metavar="ID")
    parser.add_argument("--run-dir", help="keep the levels here (new run)")
    parser.add_argument("--resume", metavar="DIR", help="continue the run recorded in DIR")
    parser.add_argument("--partitions", type=int, help="expansion tasks per level")
    parser.add_argument("--driver-threshold", type=int, help="frontier size that moves to Spark")
    parser.add_argument("--master", help="Spark master URL (spark-submit's --master wins)")
    parser.add_argument("--conf", action="append", default=[], metavar="KEY=VALUE")
    parser.add_argument("--json", action="store_true", help="print the Result as JSON")
    return parser


def _ff_model(spec: str, cap: int):
    topology, sep, n = spec.partition(":")
    if not sep or not n.isdigit():
        raise ValueError(f"--ff {spec!r}: expected TOPOLOGY:N, e.g. --ff complete:3")
    try:
        from ff_model import FingerprintFlood
    except ImportError:
        raise ValueError(
            "--ff needs benchmarks/ff_model.py importable as ff_model: add it to the "
            "--py-files zip (see checker/spark_submit.py)"
        ) from None
    return FingerprintFlood(topology, int(n), cap=cap)


def run_ff(argv: Sequence[str]) -> int:
    """``--ff``: explore a FingerprintFlood model; print verdicts (or JSON); exit status."""
    from checker.model import format_verdict
    from checker.spark import RunDirError, explore_spark
    from checker.spark_session import make_session

    args = _ff_parser().parse_args(argv)
    try:
        model = _ff_model(args.ff, args.cap)
        if args.run_dir and args.resume:
            raise ValueError("give either --run-dir (a new run) or --resume DIR, not both")
        kwargs = {}
        if args.driver_threshold is not None:
            kwargs["driver_threshold"] = args.driver_threshold
        spark = make_session(args.master, args.conf)
        result = explore_spark(
            model,
            spark=spark,
            run_dir=args.resume or args.run_dir,
            resume=bool(args.resume),
            max_states=args.max_states,
            max_depth=args.max_depth,
            partitions=args.partitions,
            property_ids=args.properties,
            **kwargs,
        )
    except (ValueError, RunDirError) as err:
        print(f"mqcheck: error: {err}", file=sys.stderr)
        return EXIT_BAD_INPUT
    if args.json:
        print(result.to_json(indent=2))
    else:
        s = result.statistics
        print(f"{result.model} [{result.backend}]: {s.distinct_states:,} distinct states, "
              f"{s.generated_states:,} generated, depth {s.max_depth}, {s.seconds:.1f} s"
              + ("" if s.complete else f" — INCOMPLETE: {s.stop_reason}"))
        for pid, verdict in result.verdicts.items():
            print(f"  {pid}: {format_verdict(verdict)}")
    return result.exit_status()


def main(argv: Sequence[str] | None = None) -> int:
    import warnings

    from checker.spark_session import PANDAS_NOTICE

    # spark-submit merges the Python driver's stderr into stdout: keep --json parseable.
    warnings.filterwarnings("ignore", PANDAS_NOTICE, FutureWarning)
    argv = list(sys.argv[1:] if argv is None else argv)
    if any(a == "--ff" or a.startswith("--ff=") for a in argv):
        return run_ff(argv)
    from checker import cli  # the composition root: one implementation of `mqcheck check`

    if argv[:1] == ["check"]:
        argv = argv[1:]
    return cli.main(["check", *argv, "--backend", "spark"])


if __name__ == "__main__":
    sys.exit(main())
