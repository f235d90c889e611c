"""``mqcheck`` — the command line, and the composition root (DESIGN.md §1, §2.3).

This is the only checker module that imports ``spec``, ``properties`` and ``reports``.
Every problem in what the user wrote is an ``InputError`` and becomes one line on stderr
with exit status 2 — never a traceback.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from spec.errors import InputError

EXIT_OK = 0
EXIT_FAILED = 1  # no match / an expectation failed / a property violated
EXIT_BAD_INPUT = 2
EXIT_INCOMPLETE = 3


def _cmd_match(args: argparse.Namespace) -> int:
    from spec.topics import compile_subscription, validate_topic_string

    validate_topic_string(args.topic)
    matcher = compile_subscription(args.subscription, args.scheme)
    matched = matcher.matches(args.topic)
    result = {
        "subscription": args.subscription,
        "topic": args.topic,
        "scheme": args.scheme,
        "matches": matched,
        "wildcard": matcher.has_wildcard,
    }
    if args.scheme == "char":
        result["proxy_subscription"] = matcher.proxy
    if args.json:
        print(json.dumps(result, ensure_ascii=False, indent=2))
    else:
        verdict = "yes" if matched else "no"
        relation = "matches" if matched else "does not match"
        print(f"{verdict}: {args.subscription!r} ({args.scheme} scheme) {relation} {args.topic!r}")
        if args.scheme == "char":
            print(
                f"proxy subscription: {matcher.proxy!r} "
                "(topic wildcard a remote queue manager receives; 002 §Wildcard rules)"
            )
    return EXIT_OK if matched else EXIT_FAILED


def _cmd_run(args: argparse.Namespace) -> int:
    from spec.scenario import load_scenario
    from spec.system import run_scenario

    report = run_scenario(load_scenario(args.scenario))
    data = report.to_json()
    if args.json:
        print(json.dumps(data, ensure_ascii=False, indent=2))
    else:
        print(_render_run(report, data))
    for note in report.unmodelled:
        print(f"mqcheck: note: {note}", file=sys.stderr)
    return EXIT_OK if all(r.ok for r in report.expectations) else EXIT_FAILED


def _render_run(report, data: dict) -> str:
    from tabulate import tabulate

    lines = [f"Scenario: {report.scenario}", ""]
    rows = []
    for q in report.final.qmgrs:
        subs = {s.name: s for s in q.pubsub.subscriptions}
        for name, topics in data["deliveries"].get(q.name, {}).items():
            sub = subs.get(name)
            described = f"{sub.topic} ({sub.scheme})" if sub else "(deleted)"
            rows.append([q.name, name, described, "\n".join(topics) if topics else "-"])
    if rows:
        lines.append("Deliveries")
        lines.append(tabulate(rows, headers=["queue manager", "subscription", "topic string", "publications received"],
                              tablefmt="simple"))
    else:
        lines.append("Deliveries: no subscriptions")
    lines.append("")
    if data["errors"]:
        lines.append("Errors logged")
        lines.append(tabulate([[e["qmgr"], e["code"], "initial MQSC" if e["step"] < 0 else f"steps[{e['step']}]",
                                e["detail"]] for e in data["errors"]],
                              headers=["queue manager", "code", "when", "detail"], tablefmt="simple"))
    else:
        lines.append("Errors logged: none")
    if report.expectations:
        held = sum(r.ok for r in report.expectations)
        lines.append("")
        lines.append(f"Expectations: {held} of {len(report.expectations)} hold")
        for r in report.expectations:
            lines.append(f"  [[expect]] #{r.index}: {'ok' if r.ok else 'FAILED'}")
            lines.extend(f"    - {f}" for f in r.failures)
    return "\n".join(lines)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="mqcheck",
        description="A model checker for IBM MQ clusters and distributed publish/subscribe.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    match = sub.add_parser(
        "match",
        help="does a subscription topic string match a published topic?",
        description=(
            "Does SUBSCRIPTION (with the wildcards of --scheme) match a publication on TOPIC? "
            "Exit status 0 if it matches, 1 if not, 2 for an invalid topic string. For the "
            "character scheme it also prints the topic-wildcard proxy subscription it converts to."
        ),
    )
    match.add_argument("subscription", metavar="SUBSCRIPTION")
    match.add_argument("topic", metavar="TOPIC")
    match.add_argument(
        "--scheme",
        choices=("topic", "char"),
        default="topic",
        help="wildcard scheme: topic (MQSO_WILDCARD_TOPIC, default) or char (MQSO_WILDCARD_CHAR)",
    )
    match.add_argument("--json", action="store_true", help="print the answer as JSON")
    match.set_defaults(handler=_cmd_match)

    run = sub.add_parser(
        "run",
        help="run a scenario with the deterministic scheduler and show what happened",
        description=(
            "Apply every queue manager's initial MQSC, then execute the scenario's steps in order "
            "and print the publications each subscription received, the errors logged and the "
            "[[expect]] results. Exit status 0 if every expectation holds, 1 if one fails, 2 for "
            "bad input (the message names the file, line and column)."
        ),
    )
    run.add_argument("scenario", metavar="SCENARIO", help="a scenario file (TOML, DESIGN.md §2.2)")
    run.add_argument("--json", action="store_true", help="print the result as JSON (stable keys)")
    run.set_defaults(handler=_cmd_run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``mqcheck``; return the exit status (DESIGN §2.3)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.handler(args)
    except InputError as err:
        print(f"mqcheck: error: {err.one_line()}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print("mqcheck: interrupted", file=sys.stderr)
        return EXIT_INCOMPLETE


if __name__ == "__main__":
    sys.exit(main())
