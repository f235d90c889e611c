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

from spec.errors import InputError, printable

EXIT_OK = 0
EXIT_FAILED = 1  # no match / an expectation failed / a property violated
EXIT_BAD_INPUT = 2
EXIT_INCOMPLETE = 3


def _json_text(data: dict) -> str:
    """JSON for ``run``/``match``: non-ASCII stays readable, but the control characters json
    leaves raw (C1 controls such as CSI, line separators, bidi overrides) are \\u-escaped like
    the C0 ones, so the output cannot drive a terminal. Outside strings JSON is ASCII, so
    the replacement only ever touches string contents."""
    text = json.dumps(data, ensure_ascii=False, indent=2)
    if text.replace("\n", "").isprintable():
        return text
    return "".join(ch if ch == "\n" or ch.isprintable() else json.dumps(ch)[1:-1] for ch in text)


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
        print(_json_text(result))
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
    from spec.network import run_scenario

    scenario = load_scenario(args.scenario)
    report = run_scenario(scenario, explain=args.explain)
    data = {"command": "run", **report.to_json()}
    if args.explain:
        from spec.network import explanations_of

        data["explanations"] = explanations_of(report.final)
    data["scenario_file"] = str(scenario.file)
    data["description"] = scenario.description
    data["topology"] = _topology_data(report.final)
    workload = _workload_data(report.final, data)
    if workload:
        data["workload"] = workload
    _write_report(args.report, [data])
    if args.json:
        print(_json_text(data))
    else:
        print(_render_run(report, data))
        if args.explain:
            print(_render_explanations(data["explanations"]))
    for note in report.unmodelled:
        print(f"mqcheck: note: {printable(note)}", file=sys.stderr)
    return EXIT_OK if all(r.ok for r in report.expectations) else EXIT_FAILED


def _render_run(report, data: dict) -> str:
    from tabulate import tabulate

    p = printable  # every name, topic and detail here is text the user wrote
    lines = [f"Scenario: {p(report.scenario)}", ""]
    rows = []
    for q in report.final.qmgrs:
        subs = {s.name: s for s in q.pubsub.subscriptions}
        for name, topics in data["deliveries"].get(q.name, {}).items():
            sub = subs.get(name)
            described = f"{p(sub.topic)} ({sub.scheme})" if sub else "(deleted)"
            rows.append([p(q.name), p(name), described, "\n".join(map(p, topics)) if topics else "-"])
    if rows:
        lines.append("Deliveries")
        lines.append(tabulate(rows, headers=["queue manager", "subscription", "topic string", "publications received"],
                              tablefmt="simple"))
    else:
        lines.append("Deliveries: no subscriptions")
    lines.append("")
    lines.extend(_render_messages(data))
    repo_rows = [[p(qmgr), p(cluster), p(", ".join(view["qmgrs"])),
                  p("; ".join(f"{q} @ {', '.join(hosts)}" for q, hosts in view["queues"].items())) or "-",
                  p(", ".join(view["topics"])) or "-"]
                 for qmgr, clusters in data.get("repositories", {}).items() for cluster, view in clusters.items()]
    if repo_rows:
        lines.append("Repositories")
        lines.append(tabulate(repo_rows, headers=["queue manager", "cluster", "queue managers known",
                                                  "queues (hosts)", "cluster topics"], tablefmt="simple"))
        lines.append("")
    for entry in data.get("not_joined", []):
        lines.append(f"Not joined: {p(entry['qmgr'])}: {p(entry['reason'])}")
    if data.get("not_joined"):
        lines.append("")
    if data["errors"]:
        lines.append("Errors logged")
        lines.append(tabulate([[p(e["qmgr"]), p(e["code"]), "initial MQSC" if e["step"] < 0 else f"steps[{e['step']}]",
                                p(e["detail"])] for e in data["errors"]],
                              headers=["queue manager", "code", "when", "detail"], tablefmt="simple"))
    else:
        lines.append("Errors logged: none")
    if report.expectations:
        held = sum(r.ok for r in report.expectations)
        lines.append("")
        lines.append(f"Expectations: {held} of {len(report.expectations)} hold")
        for r in report.expectations:
            lines.append(f"  [[expect]] #{r.index}: {'ok' if r.ok else 'FAILED'}")
            lines.extend(f"    - {p(f)}" for f in r.failures)
    return "\n".join(lines)


def _render_messages(data: dict) -> list[str]:
    """The ``messages`` table of ``run``: per handle, how many arrived at each queue manager."""
    from tabulate import tabulate

    rows = [[printable(handle), printable(qmgr), n, f"{100 * n / total:.0f}%"]
            for handle, per in data.get("messages", {}).items()
            for total in [sum(per.values()) or 1] for qmgr, n in per.items()]
    if not data.get("messages"):
        return []
    if not rows:
        return ["Messages: none arrived", ""]
    return ["Messages (arrived on each queue manager's instance)",
            tabulate(rows, headers=["handle", "queue manager", "messages", "share"], tablefmt="simple"), ""]


def _render_explanations(rows: list[dict]) -> str:
    """``run --explain``: for each run of the workload algorithm, the rules applied and
    what each eliminated (``spec.workload.Choice.lines``)."""
    if not rows:
        return "\nWorkload choices: none"
    lines = ["", "Workload choices (001's rules, in order)"]
    for r in rows:
        lines.append(printable(f"steps[{r['step']}] {r['handle']} message {r['message']} at {r['qmgr']}: {r['put']}"))
        lines.extend(f"    {printable(line)}" for line in r["rules"])
    return "\n".join(lines)


def _flatten(value, prefix: str = "") -> dict[str, object]:
    """A nested dict as {dotted path: leaf} for showing what changed between trace steps."""
    if isinstance(value, dict):
        out: dict[str, object] = {}
        for key, item in value.items():
            out.update(_flatten(item, f"{prefix}.{key}" if prefix else str(key)))
        return out
    return {prefix: value}


def _trace_lines(trace) -> list[str]:
    """Each step of a trace: the action, then the parts of the state it changed.

    A trace's first step holds the whole described state; later steps hold the top-level
    parts that changed (None: gone). The lines show changes down to the leaves."""
    lines = []
    current: dict = {}
    previous: dict[str, object] = {}
    for number, step in enumerate(trace.steps):
        if number == 0:
            current = dict(step.state)
            lines.append("   0  initial state")
        else:
            for key, value in step.state.items():
                if value is None:
                    current.pop(key, None)
                else:
                    current[key] = value
            mark = "   <- the cycle starts here" if trace.loop_start is not None and number == trace.loop_start + 1 else ""
            lines.append(f"{number:>4}  {printable(str(step.action))}{mark}")  # actions quote the user's MQSC
        flat = _flatten(current)
        if number > 0:
            for key in sorted(k for k in flat.keys() | previous.keys() if flat.get(k) != previous.get(k)):
                value = flat.get(key, "(gone)")
                lines.append(f"          {printable(key)}: {printable(json.dumps(value, ensure_ascii=False))}")
        previous = flat
    return lines


def _check_properties(scenario) -> tuple:
    from checker.model import Property
    from properties.repository import PROPERTIES as REPOSITORY
    from properties.workload import PROPERTIES as WORKLOAD
    from spec.network import check_expectations

    props = list(REPOSITORY) + list(WORKLOAD)
    from properties.pubsub import PROPERTIES as PUBSUB

    props += list(PUBSUB)  # issue #6
    if scenario.expects:
        def at_end(state):
            return state.next_step == len(scenario.steps) and state.in_flight() == 0

        def expectations_hold(model, state) -> bool:
            return not at_end(state) or all(r.ok for r in check_expectations(scenario, state))

        props.append(Property.at_quiescence(
            "EXPECT", "the scenario's [[expect]] blocks hold in every settled final state", expectations_hold,
            citation=scenario.file, witness="EXPECT-END"))
        props.append(Property.sometimes(
            "EXPECT-END", "the scenario's last step is taken and the network settles",
            lambda model, state: at_end(state), citation=scenario.file))
    return tuple(props)


def _check_backend_options(args: argparse.Namespace) -> None:
    """Options of one backend given to the other are errors, not silently ignored."""
    spark_only = {"--master": args.master, "--conf": args.conf, "--run-dir": args.run_dir,
                  "--resume": args.resume, "--partitions": args.partitions,
                  "--driver-threshold": args.driver_threshold}
    local_only = {"--timeout": args.timeout, "--memory-limit-mb": args.memory_limit_mb,
                  "--stop-on-violation": args.stop_on_violation or None, "--workers": args.workers}
    given = [k for k, v in (spark_only if args.backend != "spark" else local_only).items() if v is not None]
    if given:
        other = "--backend spark" if args.backend != "spark" else "--backend local"
        raise InputError(f"{', '.join(given)} only appl{'ies' if len(given) == 1 else 'y'} with {other}",
                         file="<command line>")
    if args.run_dir is not None and args.resume is not None:
        raise InputError("give either --run-dir DIR (a new run) or --resume DIR (continue one), not both",
                         file="<command line>")


def _cmd_check(args: argparse.Namespace) -> int:
    from checker.model import format_verdict
    from spec.scenario import load_scenario
    from spec.network import MQNetwork

    _check_backend_options(args)
    scenario = load_scenario(args.scenario)
    explore_initial = True if args.explore_initial else None
    model = MQNetwork(scenario, _check_properties(scenario), faults=args.faults, explore_initial=explore_initial)
    known = {p.id for p in model.properties()}
    for pid in args.property or ():
        if pid not in known:
            from spec.errors import near_miss

            raise InputError(f"unknown property {pid}; known: {', '.join(sorted(known))}",
                             file="<command line>", suggestion=near_miss(pid, known))
    max_states = args.max_states if args.max_states is not None else scenario.check.max_states
    max_depth = args.max_depth if args.max_depth is not None else scenario.check.max_depth
    bounds = dict(max_states=max_states, max_depth=max_depth, property_ids=args.property or None)
    if args.backend == "spark":
        from checker.spark import DEFAULT_DRIVER_THRESHOLD, explore_spark

        if args.fingerprint_bits != 64:
            raise InputError("the Spark backend stores 64-bit fingerprints; drop --fingerprint-bits or use "
                             "--backend local", file="<command line>")
        try:
            result = explore_spark(
                model, master=args.master, conf=tuple(args.conf or ()), run_dir=args.run_dir or args.resume,
                resume=args.resume is not None, partitions=args.partitions,
                driver_threshold=(DEFAULT_DRIVER_THRESHOLD if args.driver_threshold is None
                                  else args.driver_threshold), **bounds)
        except ValueError as err:  # a bad --conf, or a run directory that cannot be used
            raise InputError(str(err), file="<command line>") from None
    else:
        from checker.explore import explore

        progress = sys.stderr.isatty() and not args.quiet
        result = explore(model, timeout=args.timeout, progress=progress, workers=args.workers,
                         fingerprint_bits=args.fingerprint_bits, memory_limit_mb=args.memory_limit_mb,
                         stop_on_violation=args.stop_on_violation, **bounds)
    if args.json or args.report:
        data = result.to_dict()
        data["scenario"] = scenario.name
        data["explore_initial"] = model.explore_initial
        _check_report_data(args, scenario, model, data)
        _write_report(args.report, [data])
    if args.json:
        print(_json_text(data))  # scenario names and traces quote what the user wrote
        return result.exit_status()
    print(_render_check(scenario, model, result, format_verdict))
    return result.exit_status()


def _render_check(scenario, model, result, format_verdict) -> str:
    from tabulate import tabulate

    st = result.statistics
    state_word = "complete" if st.complete else f"INCOMPLETE ({st.stop_reason})"
    lines = [
        f"Scenario: {printable(scenario.name)} ({printable(str(scenario.file))})",
        f"Explored: {st.distinct_states} distinct states ({st.generated_states} generated), depth {st.max_depth}, "
        f"{state_word}, {st.seconds:.1f} s ({st.states_per_second:,.0f} states/s, {result.backend} backend)",
        f"Fingerprints: {st.fingerprint_bits}-bit, estimated collision probability {st.collision_probability:.1e}",
        "Start: " + ("the initial MQSC, joining explored" if model.explore_initial
                     else "the settled initial configuration (--explore-initial explores the joining too)"),
        "",
    ]
    rows = [[pid, v.kind, format_verdict(v)] for pid, v in result.verdicts.items()]
    lines.append(tabulate(rows, headers=["property", "kind", "verdict"], tablefmt="simple"))
    for pid, v in result.verdicts.items():
        if v.status.value == "violated" and v.trace is not None:
            lines += ["", printable(f"Counterexample for {pid}: {v.title} ({v.citation})")]
            lines += _trace_lines(v.trace)
    lines += _evidence_lines(model, result)
    if not st.complete:
        lines += ["", "The exploration stopped at a bound: no verdict above claims more than the states explored."]
    return "\n".join(lines)


def _evidence_lines(model, result) -> list[str]:
    """Traces of the evidence witnesses of undecided termination verdicts (Property.evidence):
    where a bounded run cannot decide termination, the trace of a loop going round again
    is what the user can act on."""
    from checker.model import Status

    lines = []
    for prop in model.properties():
        verdict, ref = result.verdicts.get(prop.id), prop.evidence
        if verdict is None or ref is None or verdict.status not in (Status.HOLDS_UP_TO_BOUND, Status.NOT_CHECKED):
            continue
        evidence = result.verdicts.get(ref)
        if evidence is not None and evidence.status is Status.WITNESSED and evidence.trace is not None:
            lines += ["", printable(f"Evidence against {prop.id} (undecided): {ref}: {evidence.title} "
                                    f"({evidence.citation})")]
            lines += _trace_lines(evidence.trace)
    return lines


def _at_least(lowest: int | float, kind=int):
    """An argparse type: a number no smaller than ``lowest`` (bad values exit 2 with usage)."""
    def parse(text: str):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
        if value < lowest:
            raise argparse.ArgumentTypeError(f"must be at least {lowest}, got {text}")
        return value
    return parse


def _lint_configs(paths: Sequence[str], whole_network: bool = False) -> tuple[list, list[str]]:
    """``mqcheck lint``'s inputs as lint configurations: each scenario (.toml) alone, all MQSC
    files together (one queue manager each, named by the file); each with its ``[lint]``
    table's disabled rules, whose ids are checked here (bad ones: file:line:column, exit 2)."""
    from properties.lint import RULE_IDS, config_of_mqsc, config_of_scenario
    from spec.errors import near_miss
    from spec.mqsc import parse as parse_mqsc
    from spec.scenario import _read_text, load_scenario

    configs, mqsc = [], []
    for path in paths:
        if path.lower().endswith(".toml"):
            scenario = load_scenario(path)
            for rule, _, line, column in scenario.lint.disable:
                if rule not in RULE_IDS:
                    raise InputError(f"lint.disable: unknown rule {rule}; expected one of {', '.join(RULE_IDS)}",
                                     file=path, line=line, column=column, suggestion=near_miss(rule, RULE_IDS))
            configs.append((config_of_scenario(scenario), {r: why for r, why, _, _ in scenario.lint.disable}))
        else:
            try:
                text = _read_text(path)
            except OSError as e:
                raise InputError(f"cannot read the MQSC file: {e.strerror or e}", file=path) from None
            except UnicodeDecodeError as e:
                raise InputError(f"not UTF-8 text (byte {e.start + 1})", file=path) from None
            mqsc.append((path, parse_mqsc(text, file=path)))
    if mqsc:
        configs.append((config_of_mqsc(mqsc, whole_network), {}))
    return configs, list(paths)


def _cmd_lint(args: argparse.Namespace) -> int:
    from checker import lint
    from properties.lint import RULE_IDS, RULES
    from spec.errors import near_miss

    disabled = {}
    for item in args.disable or ():
        rule, _, reason = item.partition("=")
        rule = rule.strip().upper()
        if rule not in RULE_IDS:
            raise InputError(f"--disable: unknown rule {rule}; expected one of {', '.join(RULE_IDS)}",
                             file="<command line>", suggestion=near_miss(rule, RULE_IDS))
        disabled[rule] = reason.strip() or "--disable on the command line"
    configs, files = _lint_configs(args.files, args.whole_network)
    report = lint.run_rules(configs, RULES, disabled, files)
    fmt = "json" if args.json else args.format
    if fmt == "json":
        print(_json_text(lint.to_dict(report)))
    elif fmt == "sarif":
        from importlib.metadata import PackageNotFoundError, version

        try:
            mine = version("mqcheck")
        except PackageNotFoundError:  # run from a source tree that is not installed
            mine = ""
        print(_json_text(lint.to_sarif(report, mine)))
    else:
        print(lint.render_text(report, printable))
    return lint.exit_status(report, lint.Severity(args.fail_on))


def _add_lint_parser(sub) -> None:
    lint = sub.add_parser(
        "lint",
        help="check scenario and MQSC files statically against the documents' advice",
        description=(
            "Static checks of queue managers' definitions (scenario files, or MQSC files: one queue "
            "manager each, named by the file) against IBM's documented advice. Never runs the model; "
            "each finding names the file, line and column, the rule, the document section, a fix, and "
            "the mqcheck command that confirms it where one can. Exit status 0 if no finding is at or "
            "above --fail-on, 1 if one is, 2 for bad input."
        ),
    )
    lint.add_argument("files", nargs="+", metavar="SCENARIO|MQSC", help="scenario files (.toml) and MQSC files")
    lint.add_argument("--format", choices=("text", "json", "sarif"), default="text",
                      help="text (grouped by file), json, or sarif (SARIF 2.1.0 for code scanning)")
    lint.add_argument("--json", action="store_true", help="the same as --format json")
    lint.add_argument("--fail-on", choices=("error", "warning", "info"), default="warning",
                      help="exit 1 when a finding has this severity or a higher one (default warning)")
    lint.add_argument("--whole-network", action="store_true",
                      help="the MQSC files given are every queue manager of the network: also check CLUSSDR "
                           "targets, full repository counts and meshes (a scenario file always is)")
    lint.add_argument("--disable", action="append", metavar="RULE[=REASON]",
                      help="turn a rule off, with the reason (repeatable); a scenario's [lint] table does the "
                           "same for one file")
    lint.set_defaults(handler=_cmd_lint)
# --- HTML reports (issue #15; docs/report-data.md) ---------------------------------------
# The report renders plain result data; this block adds to the JSON of run/check what the
# report draws (the topology, each trace step's event, the workload weights) and writes the
# HTML. Another command plugs in the same way: give its parser `_add_report_option(p)`, put
# `"command": NAME` in its result data, and end with `_write_report(args.report, [data])`.
def _add_report_option(parser: argparse.ArgumentParser) -> None:
    """The ``--report FILE.html`` option every result-producing command takes."""
    parser.add_argument("--report", metavar="FILE.html",
                        help="also write a self-contained HTML report of the result to this file")


def _write_report(path: str | None, sections: list[dict]) -> None:
    """Write the HTML report of ``sections`` to ``path`` (nothing when ``path`` is None);
    a path that cannot be written is bad input (exit 2), said in one line."""
    if path is None:
        return
    import reports

    try:
        size = reports.write(path, sections)
    except reports.ReportDataError as err:
        raise InputError(f"cannot report this result: {err}", file="<command line>") from None
    except OSError as err:
        raise InputError(f"cannot write the report: {err.strerror or err}", file=path) from None
    print(f"mqcheck: report written to {printable(path)} ({size:,} bytes)", file=sys.stderr)


def _topology_data(state) -> dict:
    """Queue managers, clusters (members, full repositories), manual CLUSSDRs, the other
    (auto-defined) channels the network has used, hierarchy links, and channel states."""
    from spec.network import resolve_conname
    from spec.objects import clusters_of

    qmgrs, clusters = [], {}
    for q in state.qmgrs:
        member = {c for ch in q.defs.channels if ch.chltype == "CLUSRCVR" for c in clusters_of(ch, q.defs)}
        full = {c.cluster for c in q.caches if c.full} | ({q.defs.repos} if q.defs.repos else set())
        full |= {n for nl in q.defs.namelists if nl.name == q.defs.reposnl for n in nl.names}
        for c in member | full:
            entry = clusters.setdefault(c, {"name": c, "members": set(), "full_repositories": set()})
            entry["members"].add(q.name)
            if c in full:
                entry["full_repositories"].add(q.name)
        qmgrs.append({"name": q.name, "running": q.running, "clusters": sorted(member | full),
                      "full_repository_for": sorted(full), "parent": q.defs.parent, "psmode": q.defs.psmode})
    names = {q.name for q in state.qmgrs}

    def status(src: str, dst: str) -> str:
        live = state.channel(src, dst)
        return live.status if live is not None else "INACTIVE"

    channels, drawn = [], set()
    for q in state.qmgrs:
        for ch in q.defs.channels:
            for cluster in (clusters_of(ch, q.defs) if ch.chltype == "CLUSSDR" else ()):
                target = resolve_conname(state, ch.conname, cluster)
                if target and target != q.name and (q.name, target) not in drawn:
                    drawn.add((q.name, target))
                    channels.append({"src": q.name, "dst": target, "kind": "manual", "name": ch.name,
                                     "cluster": cluster, "status": status(q.name, target)})
    hierarchy = set()
    for q in state.qmgrs:
        if q.defs.parent and q.defs.parent in names and q.defs.parent != q.name:
            hierarchy |= {(q.name, q.defs.parent), (q.defs.parent, q.name)}
            channels.append({"src": q.name, "dst": q.defs.parent, "kind": "hierarchy", "name": "", "cluster": "",
                             "status": status(q.name, q.defs.parent)})
    member_of = {q["name"]: set(q["clusters"]) for q in qmgrs}
    for ch in state.channels:
        shared = sorted(member_of.get(ch.src, set()) & member_of.get(ch.dst, set()))
        if (ch.src, ch.dst) in drawn or ((ch.src, ch.dst) in hierarchy and not shared):
            continue
        channels.append({"src": ch.src, "dst": ch.dst, "kind": "auto", "name": "",
                         "cluster": ", ".join(shared), "status": ch.status})
    return {"qmgrs": qmgrs,
            "clusters": [{"name": c["name"], "members": sorted(c["members"]),
                          "full_repositories": sorted(c["full_repositories"])} for _, c in sorted(clusters.items())],
            "channels": channels}


_MESSAGE_KINDS = {"RepoMsg": "repository", "ProxySubMsg": "proxy subscription", "PublicationMsg": "publication",
                  "AppMessage": "application"}  # the spec's message types, as reports name them


def _step_event(model, state, action) -> dict:
    """What a trace step did, as data for the sequence chart (docs/report-data.md)."""
    from spec import scenario as sc
    from spec.network import ChannelDeliver, ChannelFail, ChannelRecover, QmgrStart, QmgrStop, ScenarioStep

    if isinstance(action, ChannelDeliver):
        ch = state.channel(action.src, action.dst)
        head = ch.messages[0] if ch is not None and ch.messages else None
        return {"kind": "deliver", "src": action.src, "dst": action.dst,
                "message": "" if head is None else str(head), "message_kind": _MESSAGE_KINDS.get(type(head).__name__, "")}
    if isinstance(action, ChannelFail):
        return {"kind": "fault", "src": action.src, "dst": action.dst,
                "label": f"channel {action.src}->{action.dst} RETRYING"}
    if isinstance(action, ChannelRecover):
        return {"kind": "recover", "src": action.src, "dst": action.dst,
                "label": f"channel {action.src}->{action.dst} RUNNING again"}
    if isinstance(action, QmgrStop):
        return {"kind": "fault", "qmgr": action.name, "label": f"{action.name} stops"}
    if isinstance(action, QmgrStart):
        return {"kind": "recover", "qmgr": action.name, "label": f"{action.name} starts again"}
    if isinstance(action, ScenarioStep):
        step = model.scenario.steps[action.index]
        qmgr = step.name if isinstance(step, sc.QmgrStep) else getattr(step, "qmgr", None)
        if qmgr is None and hasattr(step, "handle"):  # put/close: the queue manager that opened it
            qmgr = next((q.name for q in state.qmgrs for h in q.handles if h.name == step.handle), None)
        event = {"kind": "step", "index": action.index, "qmgr": qmgr, "label": model.describe_action(action)}
        if isinstance(step, sc.MqscStep):
            event["mqsc"] = step.text.strip("\n")
        return event
    return {"kind": "other", "label": str(action)}


def _annotate_traces(model, data: dict) -> None:
    """Give each trace step its ``event``, found by replaying the trace on the model: the
    action with the step's description that reaches the step's fingerprint. A trace that
    does not replay (another backend's fingerprints) keeps the steps it has without
    events; the report then infers deliveries from the states."""
    from checker.explore import fingerprint
    from checker.model import describe_action

    bits = data.get("statistics", {}).get("fingerprint_bits", 64)

    def fp(state) -> str:
        return format(fingerprint(model.encode(state), bits), "x")

    inits = list(model.init_states())
    for verdict in data.get("verdicts", {}).values():
        trace = verdict.get("trace")
        if not trace or not trace.get("steps"):
            continue
        steps = trace["steps"]
        state = next((s for s in inits if fp(s) == steps[0].get("fingerprint")), None)
        for step in steps[1:]:
            found = None
            for action in (model.actions(state) if state is not None else ()):
                if describe_action(model, action) == step.get("action"):
                    after = model.next_state(state, action)
                    if after is not None and fp(after) == step.get("fingerprint"):
                        found = action, after
                        break
            if found is None:
                break
            step["event"] = _step_event(model, state, found[0])
            state = found[1]


def _check_report_data(args: argparse.Namespace, scenario, model, data: dict) -> dict:
    """``check --json`` with what reports draw: the command, the scenario, the topology of
    the start state, trace events, evidence links and replay commands."""
    import shlex

    (start,) = model.init_states()[:1]
    data["command"] = "check"
    data["scenario_file"] = str(scenario.file)
    data["description"] = scenario.description
    data["topology"] = _topology_data(start)
    data["evidence"] = {p.id: p.evidence for p in model.properties() if p.evidence and p.id in data["verdicts"]}
    _annotate_traces(model, data)
    bounds = []
    for flag, value in (("--max-states", args.max_states), ("--max-depth", args.max_depth), ("--faults", args.faults)):
        if value is not None:
            bounds += [flag, str(value)]
    if args.explore_initial:
        bounds.append("--explore-initial")
    data["replay"] = {pid: shlex.join(["mqcheck", "check", str(scenario.file), "--property", pid, *bounds])
                      for pid, v in data["verdicts"].items() if v.get("trace") is not None}
    return data


def _workload_data(state, data: dict) -> dict:
    """Per open handle: where its messages arrived against the weights configured on each
    host's CLUSRCVR channels in the queue's cluster (000 §Channel Weight)."""
    from spec.objects import clusters_of

    out = {}
    for q in state.qmgrs:
        views = data.get("repositories", {}).get(q.name, {})
        for h in q.handles:
            arrived = data.get("messages", {}).get(h.name, {})
            clusters = sorted(c for c, view in views.items() if h.queue in view["queues"])
            hosts = set(arrived) | {host for c in clusters for host in views[c]["queues"][h.queue]}
            dests = []
            for host in sorted(hosts):
                hq = state.find(host)
                rcvrs = [ch for ch in (hq.defs.channels if hq is not None else ())
                         if ch.chltype == "CLUSRCVR" and (not clusters or set(clusters_of(ch, hq.defs)) & set(clusters))]
                dests.append({"qmgr": host, "channel": ", ".join(ch.name for ch in rcvrs),
                              "weight": sum(ch.clwlwght for ch in rcvrs) or 50,
                              "messages": arrived.get(host, 0)})
            if dests:
                out[h.name] = {"qmgr": q.name, "queue": h.queue, "bind": h.option, "destinations": dests}
    return out


def _cmd_report(args: argparse.Namespace) -> int:
    import reports

    sections = []
    for path in args.results:
        try:
            with open(path, encoding="utf-8") as fh:
                text = fh.read()
        except OSError as err:
            raise InputError(f"cannot read: {err.strerror or err}", file=path) from None
        except UnicodeDecodeError:
            raise InputError("not UTF-8 text (expected the --json output of an mqcheck command)", file=path) from None
        try:
            data = json.loads(text)
        except json.JSONDecodeError as err:
            raise InputError(f"not JSON: {err.msg} (expected the --json output of an mqcheck command)",
                             file=path, line=err.lineno, column=err.colno) from None
        try:
            reports.infer_command(data)
        except reports.ReportDataError as err:
            raise InputError(str(err), file=path) from None
        sections.append(data)
    _write_report(args.out, sections)
    return EXIT_OK


def _add_report_parser(sub) -> None:
    report = sub.add_parser(
        "report",
        help="combine saved results (--json output) into one HTML report",
        description=(
            "Render the saved --json output of run/check (and of any other mqcheck command) as one "
            "self-contained HTML file: verdicts, topology, counterexamples as sequence charts, charts. "
            "Exit status 0, or 2 for unreadable input."
        ),
    )
    report.add_argument("results", nargs="+", metavar="RESULT.json")
    report.add_argument("--out", required=True, metavar="FILE.html", help="the HTML file to write")
    report.set_defaults(handler=_cmd_report)


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
    run.add_argument("--explain", action="store_true",
                     help="show, for each workload choice, the rules applied and what each eliminated")
    run.set_defaults(handler=_cmd_run)

    check = sub.add_parser(
        "check",
        help="explore every interleaving of a scenario and check the property catalogue",
        description=(
            "Explore every interleaving of in-flight messages (and, with --faults, channel failures) "
            "between the scenario's steps, and check the property catalogue and the scenario's "
            "[[expect]] blocks in every reachable state. Exit status 0 if everything holds on a "
            "complete exploration, 1 if a property is violated (a shortest counterexample is "
            "printed), 2 for bad input, 3 if the exploration stopped at a bound."
        ),
    )
    check.add_argument("scenario", metavar="SCENARIO")
    check.add_argument("--backend", choices=("local", "spark"), default="local")
    check.add_argument("--max-states", type=_at_least(1), metavar="N", help="stop after N distinct states (incomplete)")
    check.add_argument("--max-depth", type=_at_least(0), metavar="D", help="explore at most D actions deep (incomplete)")
    check.add_argument("--timeout", type=_at_least(0.001, float), metavar="SECONDS", help="stop after this long (incomplete); local backend")
    check.add_argument("--property", action="append", metavar="ID", help="check only this property (repeatable)")
    check.add_argument("--faults", type=_at_least(0), metavar="N", default=None,
                       help="let the checker inject up to N failures: a channel into RETRYING or a queue "
                            "manager stopping, each recovering later (default: the scenario's [check] faults)")
    check.add_argument("--fingerprint-bits", type=int, choices=(64, 128), default=64,
                       help="fingerprint width (the collision estimate is reported either way)")
    check.add_argument("--memory-limit-mb", type=_at_least(0, float), metavar="MB",
                       help="stop (incomplete) past this resident size (default: 80%% of the memory available "
                            "at the start; 0: no guard); local backend")
    check.add_argument("--stop-on-violation", action="store_true",
                       help="stop after the BFS level where the first violation appears (other verdicts incomplete); "
                            "local backend")
    check.add_argument("--workers", type=int, choices=(1, 2), default=None,
                       help="local backend: 1 process, or fork a second for large levels (default: when a core is idle)")
    check.add_argument("--explore-initial", action="store_true",
                       help="also explore the initial queue managers joining their clusters (default: start "
                            "from the settled initial configuration; [check] explore_initial)")
    check.add_argument("--json", action="store_true", help="print the result data as JSON")
    check.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    spark = check.add_argument_group("Spark backend")
    spark.add_argument("--master", metavar="URL", help="Spark master (default local[*])")
    spark.add_argument("--conf", action="append", metavar="KEY=VALUE", help="extra Spark configuration (repeatable)")
    spark.add_argument("--run-dir", metavar="DIR", help="where the Spark run keeps its levels and manifest")
    spark.add_argument("--resume", metavar="DIR", help="resume an interrupted Spark run from its run directory")
    spark.add_argument("--partitions", type=_at_least(1), metavar="N",
                       help="expansion tasks per level (default 2x the cores)")
    spark.add_argument("--driver-threshold", type=_at_least(0), metavar="N",
                       help="frontier size above which levels run on Spark rather than the driver (default 20000)")
    check.set_defaults(handler=_cmd_check)
    _add_lint_parser(sub)
    _add_report_option(run)
    _add_report_option(check)
    _add_report_parser(sub)
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
    except BrokenPipeError:  # e.g. `mqcheck run ... | head`: the reader left; say nothing more
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
