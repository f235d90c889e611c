"""``mqcheck`` — the command line, and the composition root (DESIGN.md §1, §2.3).

This is the only checker module that imports ``spec``, ``properties`` and ``reports``.
Every problem in what the user wrote is an ``InputError`` and becomes one line on stderr
with exit status 2 — never a traceback.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence

from spec.errors import InputError, printable

EXIT_OK = 0
EXIT_FAILED = 1  # no match / an expectation failed / a property violated
EXIT_BAD_INPUT = 2
EXIT_INCOMPLETE = 3


def _json_text(data: dict) -> str:
    """JSON for ``run``/``match``/``check``: non-ASCII stays readable, but the control characters json
    leaves raw (C1 controls such as CSI, line separators, bidi overrides) are \\u-escaped like
    the C0 ones, so the output cannot drive a terminal. Outside strings JSON is ASCII, so
    the replacement only ever touches string contents."""
    text = json.dumps(data, ensure_ascii=False, indent=2)
    if text.replace("\n", "").isprintable():
        return text
    return "".join(ch if ch == "\n" or ch.isprintable() else json.dumps(ch)[1:-1] for ch in text)


def _cmd_match(args: argparse.Namespace) -> int:
    from spec.topics import compile_subscription, validate_topic_string

    for what, text in (("SUBSCRIPTION", args.subscription), ("TOPIC", args.topic)):
        # bytes that are not UTF-8 reach argv as lone surrogates (PEP 383): the answer was a
        # "no" about a string shown as 'a\udcff', which no publication's topic can be
        bad = next((i for i, ch in enumerate(text) if "\udc80" <= ch <= "\udcff"), None)
        if bad is not None:
            raise InputError(f"{what}: not UTF-8 text: byte 0x{ord(text[bad]) - 0xdc00:02x} at character {bad + 1}",
                             file="<command line>", suggestion="topic strings are Unicode: give them as UTF-8")
    for what, check in (("TOPIC", lambda: validate_topic_string(args.topic)),
                        ("SUBSCRIPTION", lambda: compile_subscription(args.subscription, args.scheme))):
        try:
            check()
        except InputError as err:   # which argument is wrong, as a file:line:column says where
            raise InputError(f"{what}: {err.message}", file="<command line>", suggestion=err.suggestion) from None
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


def _load_scenario(path: str, command: str):
    """``spec.scenario.load_scenario``, with a hint when the file that is not TOML is an
    MQSC file given where a scenario belongs."""
    from spec.scenario import load_scenario

    try:
        return load_scenario(path)
    except InputError as err:
        if not err.message.startswith("invalid TOML"):
            raise
        import shlex

        if _looks_like_json(path):   # a saved --json result, or a CCDT (a user trial: "see toml.io")
            from spec.scenario import _read_text

            saved = f"a saved --json result goes to `mqcheck report {shlex.quote(path)} --out report.html`"
            ccdt = f"a JSON CCDT is named from a scenario with ccdt = \"{os.path.basename(path)}\""
            try:   # which of the two, as lint tells them apart (session 37)
                keys = _json_keys(_read_text(path))
            except (OSError, UnicodeDecodeError):
                keys = set()
            what, where = (("a JSON CCDT", ccdt) if "channel" in keys else
                           ("a saved --json result", saved) if keys & {"command", "verdicts", "claims"} else
                           ("JSON", f"{saved}, {ccdt}"))
            raise InputError(err.message, file=err.file, line=err.line, column=err.column,
                             suggestion=f"this looks like {what}: {command} takes a scenario file (TOML); "
                                        f"{where}") from None
        if not _looks_like_mqsc(path):
            raise

        raise InputError(err.message, file=err.file, line=err.line, column=err.column,
                         suggestion=f"this looks like an MQSC file: {command} takes a scenario file (TOML); "
                                    f"check MQSC with `mqcheck lint {shlex.quote(path)}`, or name it from a "
                                    f"scenario's queue manager with mqsc_file = \"{os.path.basename(path)}\"") from None


def _looks_like_json(path: str) -> bool:
    """A ``.json`` file, or one whose first character that is not blank is ``{``."""
    from spec.scenario import _read_text

    if path.lower().endswith(".json"):
        return True
    try:
        return _read_text(path).lstrip().startswith("{")
    except (OSError, UnicodeDecodeError):
        return False


def _looks_like_mqsc(path: str) -> bool:
    """An ``.mqsc`` file, or one whose first word (after blank lines and ``*``/``#`` comment
    lines) is an MQSC verb such as DEFINE or ALTER."""
    import re

    from spec.mqsc import VERBS
    from spec.scenario import _read_text

    if path.lower().endswith(".mqsc"):
        return True
    try:
        text = _read_text(path)
    except (OSError, UnicodeDecodeError):
        return False
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith(("*", "#")):
            m = re.match(r"[A-Za-z]+", line)
            return bool(m) and m.group().upper() in VERBS
    return False


def _cmd_run(args: argparse.Namespace) -> int:
    from spec.network import run_scenario

    scenario = _load_scenario(args.scenario, "run")
    _report_target(args.report, scenario.files)
    report = run_scenario(scenario, explain=args.explain)
    data = run_report_data(scenario, report, explain=args.explain)
    if args.json:
        print(_json_text(data))
    else:
        print(_render_run(report, data))
        if args.explain:
            print(_render_explanations(data["explanations"]))
    for note in report.unmodelled:
        print(f"mqcheck: note: {printable(note)}", file=sys.stderr)
    _write_report(args.report, [data])  # after the result: a failed write does not hide it
    if report.blocked:  # a deadlock before the scenario's end is a finding, never a pass
        return EXIT_FAILED
    return EXIT_OK if all(r.ok for r in report.expectations) else EXIT_FAILED


def run_report_data(scenario, report, explain: bool = False) -> dict:
    """``run --json``: the run's result with what reports draw (the topology, the workload
    against the configured weights, DISPLAY APSTATUS views). Also the pytest plugin's."""
    data = {"command": "run", **report.to_json()}
    _add_apstatus(scenario, report, data)  # issue #19
    if explain:
        from spec.network import explanations_of

        data["explanations"] = explanations_of(report.final)
    data["scenario_file"] = str(scenario.file)
    data["description"] = scenario.description
    data["topology"] = _topology_data(report.final)
    workload = _workload_data(report.final, data)
    if workload:
        data["workload"] = workload
    return data


def topic_text(topic: str) -> str:
    """A topic string for a text table: quoted when it is empty or starts or ends with a
    blank, which a table cell would otherwise hide (a user trial: TOPICSTR(' Price/Fruit')
    looked like 'Price/Fruit', whose subscribers got nothing)."""
    return printable(topic) if topic and topic == topic.strip(" ") else printable(repr(topic))


def _render_run(report, data: dict) -> str:
    from tabulate import tabulate

    p = printable  # every name, topic and detail here is text the user wrote
    t = topic_text
    lines = [f"Scenario: {p(report.scenario)}", ""]
    rows = []
    for q in report.final.qmgrs:
        subs = {s.name: s for s in q.pubsub.subscriptions}
        for name, topics in data["deliveries"].get(q.name, {}).items():
            sub = subs.get(name)
            described = f"{t(sub.topic)} ({sub.scheme})" if sub else "(deleted)"
            rows.append([p(q.name), p(name), described, "\n".join(map(t, topics)) if topics else "-"])
    if rows:
        lines.append("Deliveries")
        lines.append(tabulate(rows, headers=["queue manager", "subscription", "topic string", "publications received"],
                              tablefmt="simple"))
    else:
        lines.append("Deliveries: no subscriptions")
    lines.append("")
    lines.extend(_render_messages(data))
    lines.extend(_render_apstatus(data))  # issue #19
    def known(view: dict) -> str:   # a suspended member is marked (SUSPEND QMGR; 001 rule 7)
        suspended = set(view.get("suspended", ()))
        return ", ".join(f"{n} (suspended)" if n in suspended else n for n in view["qmgrs"])

    repo_rows = [[p(qmgr), p(cluster), p(known(view)),
                  p("; ".join(f"{q} @ {', '.join(hosts)}" for q, hosts in view["queues"].items())) or "-",
                  ", ".join(map(t, view["topics"])) or "-"]
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
    if data.get("pubsub_backlog"):
        # session 36: what DISPLAY QLOCAL(SYSTEM.INTER.QMGR.*) CURDEPTH would show at a queue
        # manager with PSMODE(DISABLED) (002 §Subscription performance considerations)
        lines.append("Publish/subscribe messages left unprocessed (PSMODE(DISABLED))")
        lines.append(tabulate([[p(qmgr), p(queue), f"{i} of {len(msgs)}", p(msg)]
                               for qmgr, queues in data["pubsub_backlog"].items() for queue, msgs in queues.items()
                               for i, msg in enumerate(msgs, 1)],
                              headers=["queue manager", "system queue", "position", "message (oldest first)"],
                              tablefmt="simple"))
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


def _add_apstatus(scenario, report, data: dict) -> None:
    """Uniform clusters (issue #19): DISPLAY APSTATUS views and CCDT findings, only for
    scenarios that have them (other scenarios' output is unchanged)."""
    from spec.network.uniform import apstatus_of, ccdt_findings

    view = apstatus_of(report.final)
    if view is not None:
        data["apstatus"] = view
        data["ccdt_findings"] = ccdt_findings(scenario)


def _render_apstatus(data: dict) -> list[str]:
    """004 §View application status: DISPLAY APSTATUS(*) TYPE(APPL) and TYPE(QMGR)."""
    from tabulate import tabulate

    if "apstatus" not in data:
        return []
    p = printable
    lines = ["DISPLAY APSTATUS(*) TYPE(APPL)"]
    rows = [[p(r["APPLNAME"]), p(r["CLUSTER"]) or " ", r["COUNT"], r["MOVCOUNT"], r["BALANCED"]]
            for r in data["apstatus"]["appl"]]
    lines.append(tabulate(rows, headers=["APPLNAME", "CLUSTER", "COUNT", "MOVCOUNT", "BALANCED"], tablefmt="simple")
                 if rows else "  no application instances connected")
    lines += ["", "DISPLAY APSTATUS(*) TYPE(QMGR)"]
    rows = [[p(r["APPLNAME"]), p(r["QMNAME"]), r["ACTIVE"], r["COUNT"], r["MOVCOUNT"], r["BALSTATE"]]
            for r in data["apstatus"]["qmgr"]]
    lines.append(tabulate(rows, headers=["APPLNAME", "QMNAME", "ACTIVE", "COUNT", "MOVCOUNT", "BALSTATE"],
                          tablefmt="simple") if rows else "  no application instances connected")
    lines += [f"CCDT finding: {p(note)}" for note in data.get("ccdt_findings", [])]
    lines.append("")
    return lines


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


def _check_properties(scenario, faults: int | None = None) -> tuple:
    """The properties `check` judges on ``scenario``; ``faults``: `check --faults` (None:
    the file's ``[check] faults``)."""
    from checker.model import SETTLED, Property
    from properties.repository import PROPERTIES as REPOSITORY
    from properties.workload import PROPERTIES as WORKLOAD
    from spec.network import check_expectations

    props = list(REPOSITORY) + list(WORKLOAD)
    from properties.pubsub import PROPERTIES as PUBSUB

    props += list(PUBSUB)  # issue #6
    from properties.uniform import uniform_properties

    props += list(uniform_properties(scenario, faults))  # issue #19: only where a uniform cluster or a CCDT is declared
    if scenario.expects:
        def at_end(model, state):
            # every step taken and no message in flight that can still move: one for or from
            # a queue manager a step stopped or deleted, or on a channel a step left stopped or
            # retrying, waits for good, and `run` judges the expectations then too (a user
            # trial and its review: such scenarios had EXPECT "holds", vacuously, or held
            # where `run` failed)
            # (a retry that would re-route a waiting message: not for good, MQNetwork.settled)
            return state.next_step == len(scenario.steps) and model.settled(state)

        def expectations_hold(model, state) -> bool:
            if not at_end(model, state):
                return not _deadlocked(model, state)
            return all(r.ok for r in check_expectations(scenario, state))

        props.append(Property.at_quiescence(
            "EXPECT", "the scenario's steps can all be taken and its [[expect]] blocks hold in every settled "
            "final state", expectations_hold, citation=scenario.file, witness="EXPECT-END"))
        props.append(Property.sometimes(
            "EXPECT-END", "the scenario's last step is taken and the network settles",
            lambda model, state: at_end(model, state), citation=scenario.file,
            reads=frozenset({SETTLED})))  # holds only with nothing in flight (docs/por.md)
    return tuple(props)


def _empty_property(given: str, what: str, example: str, otherwise: str) -> InputError:
    """An empty (or blank) property id — ``--property ''``, often a shell variable that was
    not set — said as such: "unknown property id(s): ;" named nothing (session 33)."""
    return InputError(f"{given}: an empty {what}; expected a {what} such as {example} (an unset shell "
                      f"variable?); {otherwise}", file="<command line>")


def _state_property_ids() -> list[str]:
    """The ids of the property catalogue ``check`` and ``fuzz`` check (a one-queue-manager
    scenario's: no [[expect]] or uniform-cluster properties)."""
    from spec.scenario import parse_scenario

    return [p.id for p in _check_properties(parse_scenario('name = "x"\n[qmgrs.QM1]\n', "x.toml"))]


def _unknown_property(pid: str, known) -> InputError:
    """``--property`` naming no property: the near miss when there is one (not buried at the
    end of some ninety ids), else the ids there are."""
    from spec.errors import near_miss

    from properties.uniform import PROPERTIES as UNIFORM

    conditions = {"UC-RECOVERY": "where a queue manager can restart (a qmgr step, or --faults N)",
                  "UC-RECOVERED": "where a queue manager can restart (a qmgr step, or --faults N)",
                  "UC-SCALE-OUT": "with a join_uniform step", "UC-SCALED-OUT": "with a join_uniform step"}
    if pid in {p.id for p in UNIFORM}:   # a catalogue property that does not apply here
        return InputError(f"property {pid} does not apply here: it is checked only on uniform clusters (a queue "
                          f"manager with uniform_cluster, or a ccdt){' and ' + conditions[pid] if pid in conditions else ''}",
                          file="<command line>")
    if pid in ("EXPECT", "EXPECT-END"):
        return InputError(f"property {pid} does not apply here: it is checked only on a scenario with [[expect]] "
                          "blocks", file="<command line>")
    from properties.claims import claims

    if pid in {c.id for c in claims()}:   # README's prove table lists them (session 37)
        return InputError(f"{pid} is a config claim, proved over every configuration within a bound: `mqcheck prove "
                          f"{pid}` proves it; check and fuzz check the properties of the states a scenario reaches",
                          file="<command line>")
    hint = near_miss(pid, known)
    if hint:
        return InputError(f"unknown property {pid}", file="<command line>", suggestion=hint)
    return InputError(f"unknown property {pid}; known: {', '.join(sorted(known))}", file="<command line>")


def _deadlocked(model, state) -> bool:
    """A settled state before the scenario's end where nothing at all can happen: the next
    step waits for ever (a put waiting for a repository answer that cannot come). A step
    that can never be taken is a finding, never a vacuous pass (issue #18)."""
    if state.next_step >= len(model.scenario.steps):
        return False
    return all(model.next_state(state, action) is None for action in model.actions(state))


def _check_backend_options(args: argparse.Namespace) -> None:
    """Options of one backend given to the other are errors, not silently ignored."""
    spark_only = {"--master": args.master, "--conf": args.conf, "--run-dir": args.run_dir,
                  "--resume": args.resume, "--partitions": args.partitions,
                  "--driver-threshold": args.driver_threshold}
    local_only = {"--timeout": args.timeout, "--memory-limit-mb": args.memory_limit_mb,
                  "--stop-on-violation": args.stop_on_violation or None, "--workers": args.workers,
                  "--no-por": args.no_por or None}   # Spark explores unreduced
    given = [k for k, v in (spark_only if args.backend != "spark" else local_only).items() if v is not None]
    if given:
        other = "--backend spark" if args.backend != "spark" else "--backend local"
        raise InputError(f"{', '.join(given)} only appl{'ies' if len(given) == 1 else 'y'} with {other}",
                         file="<command line>")
    if args.run_dir is not None and args.resume is not None:
        raise InputError("give either --run-dir DIR (a new run) or --resume DIR (continue one), not both",
                         file="<command line>")
    if args.backend == "spark":
        # before anything is explored, whether or not Spark will start: a run whose levels
        # all stay on the driver never starts it, and a misspelt master went unnoticed
        from checker.spark_session import check_master, parse_conf

        try:
            conf = parse_conf(args.conf or ())
            if args.master is not None:
                check_master(args.master)
            if "spark.master" in conf:
                check_master(conf["spark.master"], "--conf spark.master")
        except ValueError as err:
            raise InputError(str(err), file="<command line>") from None


def _cmd_check(args: argparse.Namespace) -> int:
    from checker.model import format_verdict
    from spec.network import MQNetwork

    _check_backend_options(args)
    scenario = _load_scenario(args.scenario, "check")
    _report_target(args.report, scenario.files)
    explore_initial = True if args.explore_initial else None
    model = MQNetwork(scenario, _check_properties(scenario, args.faults), faults=args.faults,
                      explore_initial=explore_initial, memo=args.memo)
    known = {p.id for p in model.properties()}
    for pid in args.property or ():
        if not pid.strip():
            raise _empty_property(f"--property {pid!r}", "property id", "RP-FR-CONVERGENCE",
                                  "leave --property out to check every property")
        if pid not in known:
            raise _unknown_property(pid, known)
    max_states = args.max_states if args.max_states is not None else scenario.check.max_states
    max_depth = args.max_depth if args.max_depth is not None else scenario.check.max_depth
    bounds = dict(max_states=max_states, max_depth=max_depth, property_ids=args.property or None)
    if args.backend == "spark":
        from checker.spark import DEFAULT_DRIVER_THRESHOLD, explore_spark

        if args.memo == "verify":
            raise InputError("--memo verify is for the local backend (Spark executors run with the memo on or off)",
                             file="<command line>")

        if args.fingerprint_bits != 64:
            raise InputError("the Spark backend stores 64-bit fingerprints; drop --fingerprint-bits or use "
                             "--backend local", file="<command line>")
        try:
            result = explore_spark(
                model, master=args.master, conf=tuple(args.conf or ()), run_dir=args.run_dir or args.resume,
                resume=args.resume is not None, partitions=args.partitions,
                driver_threshold=(DEFAULT_DRIVER_THRESHOLD if args.driver_threshold is None
                                  else args.driver_threshold), **bounds)
        except ValueError as err:  # a run directory that cannot be used, or Spark did not start
            raise InputError(str(err), file="<command line>") from None
    else:
        from checker.explore import explore

        progress = sys.stderr.isatty() and not args.quiet
        try:
            result = explore(model, timeout=args.timeout, progress=progress, workers=args.workers,
                             fingerprint_bits=args.fingerprint_bits, memory_limit_mb=args.memory_limit_mb,
                             stop_on_violation=args.stop_on_violation, por=not args.no_por, **bounds)
        except Exception as err:  # --memo verify found a replay or a reused verdict that differs
            found = f"{type(err).__name__} {err}"   # (in this process, or the helper's traceback)
            if args.memo != "verify" or ("MemoMismatch" not in found and "ViewMismatch" not in found):
                raise
            line = printable(str(err).splitlines()[-1].removeprefix("spec.network.memo.")
                             .removeprefix("checker.model."))
            what = "delivery memo" if "MemoMismatch" in found else "property views (a property's reads)"
            print(f"mqcheck check: --memo verify: {line}\n"
                  f"This is a bug in mqcheck's {what}; --memo off checks without it.", file=sys.stderr)
            return EXIT_FAILED
    _shield_after_stop(result.statistics.stop_reason)
    if args.json or args.report:
        data = result.to_dict()
        data["scenario"] = scenario.name
        data["explore_initial"] = model.explore_initial
        _check_report_data(args, scenario, model, data)
        if not result.statistics.complete:
            from checker.advice import incomplete_tips, looping

            tips = incomplete_tips(model, result.statistics, looping(model, result))
            if tips:  # what the text's "To finish" list says (session 33); only when incomplete
                data["advice"] = tips
    if args.json:
        print(_json_text(data))  # scenario names and traces quote what the user wrote
    else:
        print(_render_check(scenario, model, result, format_verdict, all_verdicts=args.all_verdicts or bool(args.property)))
    if args.report:  # after the result: a failed write does not hide it
        _write_report(args.report, [data])
    return result.exit_status()


VERDICT_WIDTH = 110  # characters of check's verdict column before it wraps


def _render_check(scenario, model, result, format_verdict, all_verdicts: bool = False) -> str:
    from tabulate import tabulate

    st = result.statistics
    state_word = "complete" if st.complete else f"INCOMPLETE ({st.stop_reason})"
    lines = [
        f"Scenario: {printable(scenario.name)} ({printable(str(scenario.file))})",
        f"Explored: {st.distinct_states:,} distinct states ({st.generated_states:,} generated), depth {st.max_depth:,}, "
        f"{state_word}, {st.seconds:.1f} s ({st.states_per_second:,.0f} states/s, {result.backend} backend)",
        f"Fingerprints: {st.fingerprint_bits}-bit, estimated collision probability {st.collision_probability:.1e}",
        *([f"Reduced: {st.reduced:,} of these states expanded with a partial-order reduction (same verdicts; "
           "--no-por or --backend spark counts every interleaving)"] if st.reduced else []),
        "Start: " + ("the initial MQSC, joining explored" if model.explore_initial
                     else "the settled initial configuration (--explore-initial explores the joining too)"),
        "",
    ]
    # the vacuous verdicts of property families the scenario never exercises: one line each
    groups = {} if all_verdicts else _unexercised(result)
    grouped = {pid for ids in groups.values() for pid in ids}
    rows = [[pid, v.kind, format_verdict(v)] for pid, v in result.verdicts.items() if pid not in grouped]
    # a long verdict (a backend's note) wraps within its column rather than widening the table
    lines.append(tabulate(rows, headers=["property", "kind", "verdict"], tablefmt="simple",
                          maxcolwidths=[None, None, VERDICT_WIDTH]))
    lines += _unexercised_lines(result, groups)
    for pid, v in result.verdicts.items():
        if v.status.value == "violated" and v.trace is not None:
            lines += ["", printable(f"Counterexample for {pid}: {v.title} ({v.citation})")]
            lines += _trace_lines(v.trace)
            if pid == "EXPECT":
                why = expect_failures(model, v.trace, st.fingerprint_bits)
                lines += ["  At its last state:", *(f"    - {w}" for w in why)] if why else []
    evidence = _evidence_lines(model, result)
    lines += evidence
    if not st.complete:
        from checker.advice import incomplete_advice  # what to change so that it finishes (session 32)

        lines += ["", *incomplete_advice(model, st, looping=bool(evidence)),
                  f"{_stopped_by(st.stop_reason)}: no verdict above claims more than the states explored."]
    return "\n".join(lines)


def _unexercised(result) -> dict[str, list[str]]:
    """The property families the run never exercised (reports.unexercised), grouped."""
    from reports.unexercised import unexercised

    return unexercised({pid: {"kind": str(getattr(v.kind, "value", v.kind)), "status": v.status.value,
                              "vacuous": v.vacuous} for pid, v in result.verdicts.items()})


def _unexercised_lines(result, groups: dict[str, list[str]]) -> list[str]:
    """The grouped verdicts of families the scenario never exercises, after the table:
    one heading that says VACUOUS (a vacuous verdict is never shown as a pass), then per
    family its vacuous verdicts and its unreached witnesses, by id (session 33)."""
    import textwrap

    from reports.unexercised import summary

    if not groups:
        return []
    plain = {pid: {"kind": str(getattr(v.kind, "value", v.kind)), "status": v.status.value, "vacuous": v.vacuous}
             for pid, v in result.verdicts.items()}
    parts = summary(plain, groups)
    unreached = sum(1 for pid in (p for ids in groups.values() for p in ids) if not plain[pid]["vacuous"])
    st = result.statistics
    names = ", ".join(groups)
    if st.complete:
        head = (f"Property families this scenario never exercises: {names} (none of their {unreached} sometimes "
                f"properties reached; complete: {st.distinct_states:,} states)")
    else:
        head = (f"Property families this run did not exercise: {names} (none of their {unreached} sometimes "
                f"properties reached up to bound; incomplete: {st.distinct_states:,} states, depth "
                f"{st.max_depth:,}, {st.stop_reason})")
    width = max(len(p[0]) for p in parts)
    out = ["", textwrap.fill(f"{head}; --all-verdicts gives each its row:", width=VERDICT_WIDTH + 20,
                             break_on_hyphens=False)]
    for what, text, ids in parts:
        out.append(textwrap.fill(f"{text}: {', '.join(ids)}", width=VERDICT_WIDTH + 20,
                                 initial_indent=f"  {what:<{width}}  ", subsequent_indent=" " * (width + 4),
                                 break_on_hyphens=False, break_long_words=False))
    return out


BOUND_STOPS = ("max_states", "max_depth", "timeout", "memory limit", "out of memory")


def _stopped_by(stop_reason: str) -> str:
    """What stopped an incomplete exploration, for the footer of `check`'s text: a bound, a
    signal ("interrupted", "terminated (SIGTERM)"), the first violation, or else its reason.

    >>> _stopped_by("max_states reached"), _stopped_by("terminated (SIGTERM)")
    ('The exploration stopped at a bound', 'The exploration was terminated (SIGTERM)')
    """
    from checker.explore import stopped_by_signal

    if stopped_by_signal(stop_reason):
        return f"The exploration was {stop_reason}"
    if stop_reason == "stopped at first violation":
        return "The exploration stopped at its first violation (--stop-on-violation)"
    if not stop_reason or stop_reason.startswith(BOUND_STOPS):
        return "The exploration stopped at a bound"
    return f"The exploration stopped early ({stop_reason})"


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


def _at_least(lowest: int | float, kind=int, highest: int | float | None = None):
    """An argparse type: a number no smaller than ``lowest`` and, given ``highest``, no
    larger (bad values exit 2 with a one-line error)."""
    def parse(text: str):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
        if value != value or value in (float("inf"), float("-inf")):   # float("nan"), float("inf")
            raise argparse.ArgumentTypeError(f"expected a finite number, got {text!r}")
        if value < lowest:
            raise argparse.ArgumentTypeError(f"must be at least {lowest}, got {text}")
        if highest is not None and value > highest:
            raise argparse.ArgumentTypeError(f"must be at most {highest}, got {text}")
        return value
    return parse

# --------------------------------------------------------------------------- mqcheck fuzz (issue #14)
# What a configuration's documented misconfiguration excuses (spec.strategies.Configuration.misconfigured):
# full repositories not fully connected by manual CLUSSDRs lose updates — 000 §Considerations
# for Full Repositories; RP-FR-MESH-NEEDED is the witness that they do.
# REFRESH CLUSTER at a cluster's only full repository leaves it nothing to rebuild from (000
# §Refreshing repository information: rebuilt "by requesting it from the Full Repositories";
# RP-REFRESH-RESTORES skips that case too) — see docs/decisions.md, issue #14.
# (000 §Resource definition for Full Repositories: FRs must be fully connected; without that,
# no repository view is promised to converge, a refreshed FR included)
# A full repository without a manual CLUSSDR to the other one that refreshes has nothing to
# rebuild from, as the sole one has: who the cluster's members are, and so the proxy
# subscriptions they exchange, are not promised either (PS-PROXY-CONVERGENCE: found by the
# round-4 500-example run, a two-FR cluster whose first FR refreshed; docs/decisions.md).
FUZZ_EXCUSES = {"fr_mesh_incomplete": ("RP-FR-CONVERGENCE", "RP-REFRESH-RESTORES", "RP-PR-CONVERGENCE",
                                       "RP-PR-HOSTS-CURRENT", "RP-TOPIC-EVERYWHERE", "RP-RESET-REMOVES",
                                       "RP-FR-HOLDS-MEMBERS", "PS-PROXY-CONVERGENCE"),
                "sole_fr_refreshed": ("RP-TOPIC-EVERYWHERE", "RP-PR-CONVERGENCE", "RP-PR-HOSTS-CURRENT",
                                      "RP-REFRESH-RESTORES", "PS-PROXY-CONVERGENCE", "RP-FR-HOLDS-MEMBERS"),
                # 000 §Refreshing repository information: "RESET CLUSTER ACTION(FORCEREMOVE) was
                # issued in error" is a case needing REFRESH CLUSTER at the removed queue manager
                # (and, still running, it republishes its records and is back: RP-RESET-REMOVES).
                # Until then the full repositories' view is the wrong one, so a refreshed
                # repository rebuilt from it is not promised to match it either (session 32,
                # seed 9214: a running full repository removed in error, a partial repository
                # kept its record through REFRESH CLUSTER)
                "reset_in_error": ("RP-TOPIC-EVERYWHERE", "RP-PR-CONVERGENCE", "RP-PR-HOSTS-CURRENT",
                                   "RP-RESET-REMOVES", "RP-REFRESH-RESTORES"),
                # 000 §Incorrectly deleted queue managers: until the RESET, the others "still
                # believe that the queue manager exists" (its records, its proxy subscriptions)
                "deleted_in_cluster": ("PS-PROXY-CONVERGENCE", "RP-TOPIC-EVERYWHERE", "RP-PR-CONVERGENCE",
                                       "RP-PR-HOSTS-CURRENT")}
# A handle whose messages may be bound (BIND_ON_OPEN, BIND_ON_GROUP, or BIND_AS_Q_DEF with
# DEFBIND(OPEN), the default): its messages waiting behind a RETRYING channel stay there
# (000 §When does workload balancing occur?; 004 "Binding messages to a target"), which
# BD-NOT-FIXED-REDRIVE reports on purpose (its stuck-message trace, examples/wl-stuck-on-open.toml):
# documented behaviour, not a counterexample, when fuzzing (docs/decisions.md, issue #14 round 2).
FUZZ_BOUND_EXCUSES = ("BD-NOT-FIXED-REDRIVE",)
# REFRESH CLUSTER where a cluster topic may be defined: the refreshing queue manager discards
# "any cluster topics and their associated proxy subscriptions" (002 §REFRESH CLUSTER
# considerations), and the members' proxy subscriptions registered to it come back only when
# they resynchronise (REFRESH QMGR TYPE(PROXYSUB): 002 §Resynchronization of proxy
# subscriptions; docs/decisions.md, issue #6 item 6, pinned by tests/test_pubsub_network.py);
# 002 says REFRESH CLUSTER "must be used in a publish/subscribe cluster only when under the
# guidance of your IBM Support Center". Settled proxy subscriptions are then not what the
# subscriptions require: documented, not a counterexample, when fuzzing (docs/decisions.md,
# "Session 33"; tests/regressions/real-refresh-pubsub-cluster-proxies.toml, fuzz seed 0)
FUZZ_REFRESH_EXCUSES = ("PS-PROXY-CONVERGENCE",)


def _fuzz_excused(configuration) -> set[str]:
    excused = {pid for flag in configuration.misconfigured for pid in FUZZ_EXCUSES.get(flag, ())}
    if any(kind == "open" and dict(body).get("bind") != "NOT_FIXED" for kind, body in configuration.steps):
        excused.update(FUZZ_BOUND_EXCUSES)
    commands = [str(dict(body).get("commands", "")) for kind, body in configuration.steps if kind == "mqsc"]
    if any("REFRESH CLUSTER" in c for c in commands) and any(
            line.startswith("DEFINE TOPIC") and " CLUSTER(" in line
            for line in [*(line for _, lines in configuration.qmgrs for line in lines),
                         *(line for c in commands for line in c.splitlines())]):
        excused.update(FUZZ_REFRESH_EXCUSES)
    return excused


FUZZ_DEFAULTS = {"configs": {"max_steps": 5, "bound": 1000}, "walks": {"max_steps": 30, "bound": 300}}


# What a property family needs built (spec.strategies.FOCI): `mqcheck fuzz WL-RANK` draws
# configurations around a cluster queue, `mqcheck fuzz PS-SCOPE` around topics and
# subscriptions; a run over the whole catalogue (or mixed families) draws from every focus,
# "witnesses" included (the rare witnesses of several families; in no family's foci).
FUZZ_FOCI = {"WL": ("workload",), "BD": ("workload",), "PS": ("free", "hierarchy", "pubsub_cluster"),
             "RP": ("free",)}


# Properties whose rule only a later focus exercises (spec.strategies.FOCI): a run over
# these draws from that focus; the family's foci stay as they were for the rest.
FUZZ_PROPERTY_FOCI = {"RP-FR-HOLDS-MEMBERS": ("membership",), "RP-PARTIAL-NO-SUBSCRIBERS": ("membership",),
                      "RP-SUBSCRIBE-AVAILABLE": ("membership",), "RP-MANUAL-CLUSSDR-JOINS": ("membership",),
                      "PS-PSCLUS-REFUSED": ("membership",)}


def fuzz_foci(property_ids) -> tuple[str, ...] | None:
    """The foci for a run over ``property_ids`` (None: all of them)."""
    if not property_ids:
        return None
    if all(pid in FUZZ_PROPERTY_FOCI for pid in property_ids):
        return tuple(dict.fromkeys(f for pid in property_ids for f in FUZZ_PROPERTY_FOCI[pid]))
    families = {pid.split("-")[0] for pid in property_ids}
    if len(families) != 1 or next(iter(families)) not in FUZZ_FOCI:
        return None
    return FUZZ_FOCI[next(iter(families))]


def fuzz_target(mode: str = "configs", max_qmgrs: int = 3, mutations=None, max_steps: int | None = None,
                foci: tuple[str, ...] | None = None):
    """The glue between the generic fuzzer (checker.fuzz) and the MQ network model: the
    configurations of spec.strategies, each built into an MQNetwork with the property
    catalogue (as `check` builds it from the rendered file, so `mqcheck check FILE`
    replays what fuzzing saw). ``mutations`` (tests and benchmarks only) breaks a rule."""
    from dataclasses import replace

    from checker.fuzz import FuzzTarget
    from spec.network import NO_MUTATIONS, MQNetwork, ScenarioStep
    from spec.scenario import parse_scenario
    from spec.strategies import FOCI, configurations

    mutations = NO_MUTATIONS if mutations is None else mutations
    steps = FUZZ_DEFAULTS[mode]["max_steps"] if max_steps is None else max_steps

    def build(configuration):
        scenario = parse_scenario(configuration.to_toml(), "fuzz.toml")
        return MQNetwork(scenario, _check_properties(scenario), mutations=mutations)

    def kind_of(model, action) -> str:
        if isinstance(action, ScenarioStep):  # swarm over step kinds too, not just "a step"
            return "step:" + type(model.scenario.steps[action.index]).__name__
        return type(action).__name__

    mutated = ",".join(f for f in type(mutations).__dataclass_fields__ if getattr(mutations, f))
    return FuzzTarget(
        configurations=configurations(max_qmgrs=max_qmgrs, max_steps=steps, foci=foci or FOCI),
        build=build,
        render=lambda configuration, header: replace(configuration, comments=tuple(header)).to_toml(),
        excused=_fuzz_excused,
        kind_of=kind_of,
        size_of=lambda configuration: configuration.size(),
        key=f"{mode}:{max_qmgrs}:{steps}:{mutated}:{','.join(foci or FOCI)}".encode(),
    )


def _cmd_fuzz(args: argparse.Namespace) -> int:
    from checker.fuzz import fuzz_configs, fuzz_walks, write_counterexample

    catalogue = _state_property_ids()
    args.property = list(args.property or ()) + [p for p in args.also if p not in (args.property or ())]
    for pid in list(args.property or ()) + list(args.exclude or ()):  # unknown ids: exit 2 before any example
        if not pid.strip():
            excluded = pid in (args.exclude or ())
            raise _empty_property(f"{'--exclude' if excluded else 'property'} {pid!r}", "property id",
                                  "RP-FR-CONVERGENCE", f"{'exclude' if excluded else 'name'} none to fuzz every "
                                  "property")
        if pid not in catalogue:
            raise _unknown_property(pid, catalogue)
    if args.exclude:
        args.property = [pid for pid in (args.property or catalogue) if pid not in set(args.exclude)]
        if not args.property:   # an empty selection meant "no selection": every property was checked
            raise InputError("--exclude leaves no property to check", file="<command line>",
                             suggestion="exclude fewer, or name the properties to check")
    _report_target(args.report)
    _out_dir(args.out)
    if args.no_database and args.database is not None:
        raise InputError("give --database DIR or --no-database, not both", file="<command line>")
    args.database = FUZZ_DATABASE if args.database is None else args.database
    if not args.no_database:   # Hypothesis ignores a database it cannot write: failures were silently not kept
        _out_dir(args.database, "--database", "the example database is a directory of failures kept")
    fuzz = fuzz_target(args.mode, args.max_qmgrs, max_steps=args.max_steps, foci=fuzz_foci(args.property))
    progress = None
    if sys.stderr.isatty() and not args.quiet:
        def progress(done: int, total: int) -> None:
            print(f"\rmqcheck fuzz: {done}/{total} examples", end="", file=sys.stderr, flush=True)
    bound = args.bound if args.bound is not None else FUZZ_DEFAULTS[args.mode]["bound"]
    database = None if args.no_database else args.database
    common = dict(examples=args.examples, seed=args.seed, property_ids=args.property or None,
                  database=database, progress=progress)
    from checker.explore import RunStopped, StopSignals
    from checker.fuzz import FuzzReport

    # Ctrl-C, SIGTERM and --timeout end the fuzzing with a report (exit 3), wherever Hypothesis is
    try:
        with StopSignals(raise_where_it_lands=True, timeout=args.timeout):
            if args.mode == "configs":
                report = fuzz_configs(fuzz, max_states=bound, **common)
            else:
                report = fuzz_walks(fuzz, max_steps=bound, **common)
    except RunStopped as stop:   # before the first example began (e.g. --timeout 0.001): nothing ran
        report = FuzzReport(args.mode, args.seed, args.examples, stop_reason=stop.reason)
    _shield_after_stop(report.stop_reason)
    if progress is not None:
        print(file=sys.stderr)
    report.bounds["max_qmgrs"] = args.max_qmgrs
    if report.counterexample is not None:
        write_counterexample(report, fuzz, args.out)
    data = {**report.to_dict(timings=not args.no_timings), "vacuous": _fuzz_vacuous(report)}
    if args.json:
        print(_json_text(data))
    else:
        print(_render_fuzz(report, timings=not args.no_timings))
    _write_report(args.report, [data])  # after the result
    if report.ok and not report.complete:   # Ctrl-C, SIGTERM or --timeout (a counterexample found is one: 1)
        return EXIT_INCOMPLETE
    return report.exit_status()


def _fuzz_vacuous(report) -> bool:
    """No counterexample, and not one property checked was exercised: a pass that says
    nothing (``mqcheck fuzz WL-MRUC`` where no example reached WL-MRUC-CUT; session 37)."""
    return report.counterexample is None and bool(report.properties) and \
        len(report.never_exercised()) == len(report.properties)


def _render_fuzz(report, timings: bool = True) -> str:
    from tabulate import tabulate

    bound = ", ".join(f"{k} {v}" for k, v in report.bounds.items())
    lines = [f"Fuzzing: mode {report.mode}, seed {report.seed}, {bound}",
             f"Examples: {report.examples} run, {report.invalid} invalid, {report.excused_examples} with a documented "
             f"misconfiguration, {report.shrink_calls} shrinking calls ({report.stop_reason})", ""]
    rows = [[pid, c.kind, c.witness or "-", c.checked, c.exercised, c.violated, c.excused]
            for pid, c in report.properties.items()]
    lines.append("Coverage: examples in which each property was checked, and exercised (a sometimes property: "
                 "reached; always/at_quiescence: its witness reached; eventually: decided on a non-empty run)")
    lines.append(tabulate(rows, headers=["property", "kind", "witness", "checked", "exercised", "violated",
                                         "excused"], tablefmt="simple"))
    never = report.never_exercised()
    if never:
        lines += ["", f"Never exercised ({len(never)}): {', '.join(never)} — no example reached these; a pass says "
                      "nothing about them"]
    c = report.counterexample
    lines.append("")
    if c is None:
        if report.complete and report.fewer_because:   # Hypothesis ended it early, of itself
            lines.append(printable(f"Result: no counterexample in {report.examples} examples, {report.examples} of "
                                   f"the {report.requested} asked for (Hypothesis stopped: {report.fewer_because})"))
        elif report.complete:
            lines.append(f"Result: no counterexample in {report.examples} examples" + (
                " — VACUOUS: no property checked was exercised (above)" if _fuzz_vacuous(report) else ""))
        else:   # never a pass: the run ended before its examples did
            lines.append(printable(f"Result: incomplete ({report.stop_reason}): no counterexample in the "
                                   f"{report.examples} of {report.requested} examples run"))
    else:
        lines.append(printable(f"Result: COUNTEREXAMPLE: {c.property_id} violated: {c.title} ({c.citation})"))
        if c.detail:
            lines.append(printable(f"  {c.detail}"))
        if report.shrink_stopped:
            lines.append(printable(f"  shrinking cut short ({report.shrink_stopped}): the last failing example "
                                   "tried is shown; a smaller one may exist"))
        lines.append(f"  shrunk scenario ({', '.join(f'{k} {v}' for k, v in c.size.items())}): {printable(c.file or '')}")
        lines.append(f"  replay: {printable(c.replay)}")
        lines += [printable(f"  {i + 1:>4}  {a}") for i, a in enumerate(c.trace)]
    if timings:
        lines += ["", f"Time: {report.seconds:.1f} s wall, {report.cpu_seconds:.1f} s CPU, "
                      f"{report.seconds / max(report.examples, 1):.3f} s per example"]
    return "\n".join(lines)


# The largest --max-qmgrs: past it an example takes many seconds (64: about 14 s, 100: 18 s)
# and 10**9 hung in the first one, while the bound of states explored covers ever less of
# each configuration (a user trial; a larger K is refused, exit 2, not silently clamped)
FUZZ_MAX_QMGRS = 32
FUZZ_DATABASE = ".hypothesis/mqcheck-fuzz"


def _add_fuzz_parser(sub) -> None:
    fuzz = sub.add_parser(
        "fuzz",
        help="random configurations and random walks against the property catalogue (Hypothesis)",
        description=(
            "Generate random MQ configurations (spec/strategies.py) and check the property catalogue: "
            "--mode configs explores each configuration exhaustively within --bound states; --mode walks "
            "takes one random path of at most --bound actions per configuration, checking the always "
            "properties after every action. A failure is shrunk and written as a scenario file to --out "
            "(replay it with mqcheck check). Prints, per property, in how many examples it was exercised. "
            "Exit status 0 no counterexample, 1 a counterexample, 2 bad input, 3 incomplete (Ctrl-C, SIGTERM "
            "or --timeout: the report of the examples run so far is printed)."
        ),
    )
    fuzz.add_argument("property", nargs="*", metavar="ID", help="check only these properties (default: all)")
    fuzz.add_argument("--property", dest="also", action="append", default=[], metavar="ID",
                      help="the same as a positional ID, as check spells it (repeatable)")
    fuzz.add_argument("--exclude", action="append", metavar="ID",
                      help="do not check this property (repeatable; its witness may still be reported)")
    fuzz.add_argument("--examples", type=_at_least(1), default=100, metavar="N",
                      help="examples to run (default 100; Hypothesis may run a few more, which the report counts)")
    fuzz.add_argument("--seed", type=_at_least(0), default=0, metavar="S", help="random seed (default 0)")
    fuzz.add_argument("--timeout", type=_at_least(0.001, float), default=None, metavar="SECONDS",
                      help="stop fuzzing after this long (incomplete, exit 3: the report of the examples run "
                           "so far, stop reason \"timeout (SECONDS s)\"); default: no limit")
    fuzz.add_argument("--max-qmgrs", type=_at_least(1, highest=FUZZ_MAX_QMGRS), default=3, metavar="K",
                      help=f"at most K queue managers per configuration (default 3, at most {FUZZ_MAX_QMGRS}); "
                           "the cluster-membership focus always has four, the smallest cluster where choosing "
                           "among full repositories matters")
    fuzz.add_argument("--max-steps", type=_at_least(0), default=None, metavar="N",
                      help="at most N scenario steps per configuration (default 5 for configs, 30 for walks)")
    fuzz.add_argument("--mode", choices=("configs", "walks"), default="configs")
    fuzz.add_argument("--bound", type=_at_least(1), default=None, metavar="N",
                      help="configs: distinct states explored per configuration (default 1000); walks: actions "
                           "per walk (default 300)")
    fuzz.add_argument("--out", default="fuzz-counterexamples", metavar="DIR",
                      help="where a shrunk counterexample is written (default fuzz-counterexamples)")
    fuzz.add_argument("--database", default=None, metavar="DIR",
                      help=f"Hypothesis example database keeping failures found (default {FUZZ_DATABASE})")
    fuzz.add_argument("--no-database", action="store_true", help="neither replay nor keep failures")
    fuzz.add_argument("--json", action="store_true", help="print the report as JSON (\"command\": \"fuzz\")")
    fuzz.add_argument("--no-timings", action="store_true",
                      help="leave out timings, so the same seed prints the same bytes")
    fuzz.add_argument("--quiet", action="store_true", help="no progress on stderr")
    fuzz.set_defaults(handler=_cmd_fuzz)


def _not_utf8(err: UnicodeDecodeError, path: str, suggestion: str) -> InputError:
    """A file that is not UTF-8, located at its first bad byte (file:line:column) as
    ``run`` reports a scenario or an ``mqsc_file`` (spec.scenario.utf8_error_position)."""
    from spec.scenario import utf8_error_position, utf8_problem

    line, column = utf8_error_position(err)
    return InputError(utf8_problem(err),
                      file=path, line=line, column=column, suggestion=suggestion)


def _lint_configs(paths: Sequence[str], whole_network: bool = False) -> tuple[list, list[str]]:
    """``mqcheck lint``'s inputs as lint configurations: each scenario (.toml) alone, all MQSC
    files together (one queue manager each, named by the file); each with its ``[lint]``
    table's disabled rules, whose ids are checked here (bad ones: file:line:column, exit 2).
    A file named twice (``lint F F``, ``lint F ./F``, a link to F) is linted once."""
    import shlex

    from properties.lint import RULE_IDS, config_of_mqsc, config_of_scenario
    from spec.errors import near_miss
    from spec.mqsc import parse as parse_mqsc
    from spec.scenario import _read_text, load_scenario

    seen: set[str] = set()
    unique = []
    for path in paths:
        real = os.path.realpath(path) if "\0" not in path else path
        if real not in seen:
            seen.add(real)
            unique.append(path)
    paths = unique
    configs, mqsc = [], []
    for path in paths:
        if "\0" not in path and os.path.isdir(path):   # `mqcheck lint estate/` (session 37)
            kinds = sorted({os.path.splitext(n)[1].lower() for n in os.listdir(path)} & {".mqsc", ".toml"})
            given = " ".join(f"{os.path.join(path, '*' + k)}" for k in kinds or (".mqsc", ".toml"))
            raise InputError(f"is a directory: lint reads scenario and MQSC files; give them, e.g. `mqcheck lint "
                             f"{printable(given)}`", file=path)
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
                raise InputError(f"cannot read the MQSC file: {e.strerror or e}", file=path or "<command line>") from None
            except UnicodeDecodeError as e:
                raise _not_utf8(e, path, "MQSC files are read as UTF-8; save the file as UTF-8") from None
            try:
                commands = parse_mqsc(text, file=path)
            except InputError as err:
                json_at = _json_start(text)
                if json_at is not None and not _looks_like_toml(text):
                    line, column = json_at   # a user trial: "'{' is not an MQSC command"
                    ccdt = (f"a JSON CCDT is named from a scenario with ccdt = \"{os.path.basename(path)}\" "
                            "(README, \"Uniform clusters\"), where `mqcheck run` prints its CCDT findings and "
                            "`mqcheck check` checks the UC- properties")
                    saved = f"a saved --json result goes to `mqcheck report {shlex.quote(path)} --out report.html`"
                    keys = _json_keys(text)
                    what, where = (("a JSON CCDT", ccdt) if "channel" in keys else
                                   ("a saved --json result", saved) if keys & {"command", "verdicts", "claims"} else
                                   ("JSON (a JSON CCDT?)", f"{ccdt}; {saved}"))
                    raise InputError(f"this looks like {what}, not MQSC: expected MQSC commands such as DEFINE or "
                                     "ALTER", file=path, line=line, column=column,
                                     suggestion=f"lint reads scenario files (.toml) and MQSC files; {where}") from None
                if not _looks_like_toml(text):
                    raise
                raise InputError(err.message, file=err.file, line=err.line, column=err.column,
                                 suggestion="this looks like a scenario file: lint reads files whose name ends in "
                                            ".toml as scenarios and every other file as MQSC; rename it to "
                                            f"{os.path.splitext(os.path.basename(path))[0]}.toml") from None
            mqsc.append((path, commands))
    if mqsc:
        configs.append((config_of_mqsc(mqsc, whole_network), {}))
    return configs, list(paths)


def _json_start(text: str) -> tuple[int, int] | None:
    """The line and column (1-based) of the first character that is not blank when it is
    ``{`` or ``[`` — JSON, which MQSC never starts with — else None.

    >>> _json_start('\\n  {"channel": []}'), _json_start("DEFINE QLOCAL(Q)"), _json_start("")
    ((2, 3), None, None)
    """
    body = text.lstrip("\ufeff")
    stripped = body.lstrip()
    if not stripped.startswith(("{", "[")):
        return None
    before = body[:len(body) - len(stripped)]
    line = before.count("\n") + 1
    return line, len(before) - (before.rfind("\n") + 1) + 1


def _json_keys(text: str) -> set[str]:
    """The top-level keys of ``text`` as a JSON object (empty: not one)."""
    try:
        data = json.loads(text)
    except ValueError:
        return set()
    return set(data) if isinstance(data, dict) else set()


def _looks_like_toml(text: str) -> bool:
    """Whether ``text`` parses as TOML with a ``qmgrs`` table: a scenario file, whatever
    its name."""
    import tomllib

    try:
        return isinstance(tomllib.loads(text).get("qmgrs"), dict)
    except (tomllib.TOMLDecodeError, ValueError):
        return False


def _cmd_lint(args: argparse.Namespace) -> int:
    from checker import lint
    from properties.lint import RULE_IDS, RULES
    from spec.errors import near_miss

    if args.json and args.format not in (None, "json"):   # --json used to win silently
        raise InputError(f"give --json or --format {args.format}, not both", file="<command line>")
    disabled = {}
    for item in args.disable or ():
        rule, _, reason = item.partition("=")
        rule = rule.strip().upper()
        if not rule:   # was "unknown rule ; expected one of ..."
            raise InputError(f"--disable: expected RULE or RULE=REASON, got {item!r}", file="<command line>")
        if rule not in RULE_IDS:
            raise InputError(f"--disable: unknown rule {rule}; expected one of {', '.join(RULE_IDS)}",
                             file="<command line>", suggestion=near_miss(rule, RULE_IDS))
        disabled[rule] = reason.strip() or "--disable on the command line"
    configs, files = _lint_configs(args.files, args.whole_network)
    report = lint.run_rules(configs, RULES, disabled, files)
    fmt = "json" if args.json else args.format or "text"
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
    lint.add_argument("--format", choices=("text", "json", "sarif"), default=None,
                      help="text (grouped by file, the default), json, or sarif (SARIF 2.1.0 for code scanning)")
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


def _out_dir(path: str, option: str = "--out",
             purpose: str = "counterexamples are written as scenario files into a directory") -> None:
    """Refuse a directory for counterexample files that cannot be one, before the command
    works (it used to fail with a traceback after every claim was proved): an empty name,
    an existing file, or a place where no directory can be made."""
    if not path or "\0" in path:
        raise InputError(f"{option}: expected a directory name", file="<command line>")
    probe = os.path.abspath(path)
    while not os.path.exists(probe):
        parent = os.path.dirname(probe)
        if parent == probe:
            break
        probe = parent
    if not os.path.isdir(probe):
        what = "is a file, not a directory" if probe == os.path.abspath(path) else \
            f"cannot be made: {printable(probe)} is not a directory"
        raise InputError(f"{option} {printable(path)} {what}", file="<command line>",
                         suggestion=purpose)
    if not os.access(probe, os.W_OK | os.X_OK):
        raise InputError(f"{option} {printable(path)}: cannot create files in {printable(probe)}: permission denied",
                         file="<command line>")


def _report_target(path: str | None, inputs=(), *, stdout: bool = False) -> None:
    """Refuse a report path before the command does its work (a long run must not end in
    this error): a directory, a device, a missing directory, one of the command's input
    files (``inputs``), or ``-`` where the command prints its own result."""
    if path is None:
        return
    import reports

    problem = reports.target_problem(path, inputs, stdout=stdout)
    if problem is not None:
        raise InputError(f"cannot write the report: {problem}", file=path or "<command line>")


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
    where = "standard output" if path == "-" else printable(path)
    print(f"mqcheck: report written to {where} ({size:,} bytes)", file=sys.stderr)


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
        # status-only entries: a separate route ("DST>CHANNEL", drawn as its auto-defined
        # CLUSSDR to DST) and a queue manager's own CLUSRCVR ("QMGR:CHANNEL", not a link)
        dst, _, route = ch.dst.partition(">")
        if ":" in dst:
            continue
        shared = sorted(member_of.get(ch.src, set()) & member_of.get(dst, set()))
        if not route and ((ch.src, dst) in drawn or ((ch.src, dst) in hierarchy and not shared)):
            continue
        channels.append({"src": ch.src, "dst": dst, "kind": "auto", "name": route,
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
    from spec.network import ChannelDeliver, ChannelFail, ChannelRecover, QmgrStart, QmgrStop, ScenarioStep, first_on

    if isinstance(action, ChannelDeliver):
        ch = state.channel(action.src, action.dst)
        i = -1 if ch is None else first_on(ch, action.route)  # the first message of its route
        head = ch.messages[i] if i >= 0 else None
        return {"kind": "deliver", "src": action.src, "dst": action.dst,
                "message": "" if head is None else str(head), "message_kind": _MESSAGE_KINDS.get(type(head).__name__, "")}
    if isinstance(action, ChannelFail):
        return {"kind": "fault", "src": action.src, "dst": action.dst,
                "label": f"channel {action.src}->{action.dst}{' ' + action.route if action.route else ''} RETRYING"}
    if isinstance(action, ChannelRecover):
        return {"kind": "recover", "src": action.src, "dst": action.dst,
                "label": f"channel {action.src}->{action.dst}{' ' + action.route if action.route else ''} RUNNING again"}
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


def replay(model, steps: Sequence[dict], bits: int = 64) -> list:
    """The model's states along a trace (``steps``: dicts with ``action`` and
    ``fingerprint``, as ``Trace.to_dict`` writes them), each with the action that reached
    it (None for the first): the action with the step's description that reaches the
    step's fingerprint. Stops where the trace does not replay (another backend's
    fingerprints), so the list may be shorter than the trace."""
    from checker.explore import fingerprint
    from checker.model import describe_action

    def fp(state) -> str:
        return format(fingerprint(model.encode(state), bits), "x")

    if not steps:
        return []
    state = next((s for s in model.init_states() if fp(s) == steps[0].get("fingerprint")), None)
    if state is None:
        return []
    out = [(state, None)]
    for step in steps[1:]:
        found = None
        for action in model.actions(state):
            if describe_action(model, action) == step.get("action"):
                after = model.next_state(state, action)
                if after is not None and fp(after) == step.get("fingerprint"):
                    found = after, action
                    break
        if found is None:
            break
        out.append(found)
        state = found[0]
    return out


def _annotate_traces(model, data: dict) -> None:
    """Give each trace step its ``event``, found by replaying the trace on the model
    (:func:`replay`). A trace that does not replay keeps the steps it has without events;
    the report then infers deliveries from the states."""
    bits = data.get("statistics", {}).get("fingerprint_bits", 64)
    for verdict in data.get("verdicts", {}).values():
        trace = verdict.get("trace")
        if not trace or not trace.get("steps"):
            continue
        states = replay(model, trace["steps"], bits)
        for step, (before, _), (_, action) in zip(trace["steps"][1:], states, states[1:]):
            step["event"] = _step_event(model, before, action)


def expect_failures(model, trace, bits: int = 64) -> list[str]:
    """Why EXPECT fails at the last state of its counterexample ``trace``, in the words
    ``mqcheck run`` uses: each failed ``[[expect]]`` block with what was expected and what
    was got, or the step that can never be taken. Empty when the trace does not replay."""
    from checker.model import Trace
    from spec.network import check_expectations
    from spec.network.steps import describe_step

    steps = ([{"action": s.action, "fingerprint": s.fingerprint} for s in trace.steps]
             if isinstance(trace, Trace) else trace.get("steps", []))
    states = replay(model, steps, bits)
    if not states or len(states) != len(steps):
        return []
    state, scenario = states[-1][0], model.scenario
    if state.next_step < len(scenario.steps):
        return [f"steps[{state.next_step}] can never be taken: "
                f"{printable(describe_step(scenario.steps[state.next_step]))}"]
    return [printable(f"[[expect]] #{r.index}: {f}")
            for r in check_expectations(scenario, state) if not r.ok for f in r.failures]


def _check_report_data(args: argparse.Namespace, scenario, model, data: dict) -> dict:
    """``check --json`` with what reports draw: the command, the scenario, the topology of
    the start state, trace events, evidence links and replay commands."""
    import shlex

    data["command"] = "check"
    data["scenario_file"] = str(scenario.file)
    data["description"] = scenario.description
    if data["statistics"]["distinct_states"]:
        # not when a timeout, Ctrl-C or SIGTERM stopped the run before its start state was
        # settled: settling it again here took as long once more (42 s after --timeout 3)
        (start,) = model.init_states()[:1]
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
    from spec.scenario import _read_text

    _report_target(args.out, args.results, stdout=True)
    sections = []
    for path in args.results:
        try:
            text = _read_text(path)  # a regular file only, as run and lint read: a FIFO would block
        except OSError as err:
            raise InputError(f"cannot read: {err.strerror or err}", file=path) from None
        except UnicodeDecodeError as e:
            raise _not_utf8(e, path, "expected the --json output of an mqcheck command") from None
        data = _parse_result_json(text, path)
        try:
            reports.validate(data)
        except reports.ReportDataError as err:
            raise InputError(str(err), file=path) from None
        sections.append(data)
    _write_report(args.out, sections)
    return EXIT_OK


REPORT_MAX_NESTING = 200  # as reports.schema.MAX_DEPTH: where a nesting error is reported


def _parse_result_json(text: str, path: str):
    """Saved result data: JSON without NaN/Infinity or numbers beyond a float's range;
    anything else is one located error (never a RecursionError or a ValueError)."""
    import re

    def no_constant(name: str):
        raise ValueError(f"{name} is not a JSON number")

    def finite(literal: str) -> float:
        value = float(literal)
        if value in (float("inf"), float("-inf")):
            raise ValueError(f"the number {literal[:40]} is too large")
        return value

    def position(index: int) -> tuple[int, int]:
        return text.count("\n", 0, index) + 1, index - (text.rfind("\n", 0, index) + 1) + 1

    expected = "expected the --json output of an mqcheck command"
    if not text.strip():   # `mqcheck run X --json > r.json` whose run failed leaves it empty
        raise InputError(f"the file is empty ({expected}; if one wrote it, it may have failed: "
                         "its error went to standard error)", file=path, line=1, column=1)
    try:
        return json.loads(text, parse_constant=no_constant, parse_float=finite)
    except json.JSONDecodeError as err:
        raise InputError(f"not JSON: {err.msg} ({expected})", file=path, line=err.lineno, column=err.colno) from None
    except RecursionError:
        depth, at = 0, 0
        for m in re.finditer(r'"(?:[^"\\]|\\.)*"|[\[\]{}]', text):
            if m.group() in "[{":
                depth += 1
                if depth > REPORT_MAX_NESTING:
                    at = m.start()
                    break
            elif m.group() in "]}":
                depth -= 1
        line, column = position(at)
        raise InputError(f"arrays and objects nested too deeply (more than {REPORT_MAX_NESTING} levels here; "
                         f"{expected})", file=path, line=line, column=column) from None
    except ValueError as err:  # NaN/Infinity, a float out of range, an int past Python's digit limit
        message = str(err)
        m = re.search(r"[0-9]{4301,}", text) if "digits" in message else None
        if "digits" in message:
            message = "a number with more than 4300 digits"
        line, column = position(m.start()) if m else (0, 0)
        raise InputError(f"not JSON mqcheck reads: {message} ({expected})", file=path, line=line,
                         column=column) from None


def _add_report_parser(sub) -> None:
    report = sub.add_parser(
        "report",
        help="combine saved results (--json output) into one HTML report",
        description=(
            "Render the saved --json output of mqcheck run, check, prove, fuzz, lint and match (or any "
            "JSON object with a \"command\" field) as one self-contained HTML file: verdicts, findings, "
            "topology, counterexamples as sequence charts, charts. Exit status 0, or 2 for unreadable "
            "input or data of another shape."
        ),
    )
    report.add_argument("results", nargs="+", metavar="RESULT.json",
                        help="the --json output of run, check, prove, fuzz, lint or match (not lint's SARIF)")
    report.add_argument("--out", required=True, metavar="FILE.html", help="the HTML file to write (\"-\": standard output); never one of the RESULT files")
    report.set_defaults(handler=_cmd_report)
# --------------------------------------------------------------------------- prove (issue #13)
def _prove_targets(args: argparse.Namespace) -> tuple[list[str], str | None]:
    """Split ``prove``'s positional arguments into claim ids and at most one scenario file."""
    import os

    ids, scenario = [], None
    for target in args.targets:
        if target.endswith(".toml") or os.sep in target or os.path.exists(target):
            if scenario is not None:
                raise InputError(f"give at most one scenario file; got {scenario} and {target}", file="<command line>")
            scenario = target
        else:
            ids.append(target)
    return ids, scenario


def _prove_record(prop, verdict: str, detail: dict, out_dir: str, bound_unit: str):
    from checker.prove import ProofRecord, write_counterexample

    cex = detail.get("counterexample")
    record = ProofRecord(prop.id, prop.title, prop.citation, verdict, detail["bound"], bound_unit, detail["seconds"],
                         list(detail["facts"]), detail.get("cpu_seconds", 0.0), reason=detail.get("reason", ""))
    if cex is not None:
        record.counterexample = cex.summary
        record.counterexample_path = write_counterexample(cex, out_dir, prop.id)
        record.replay = f"mqcheck run {record.counterexample_path}"
    return record


def _prove_catalogue(args: argparse.Namespace, chosen: list) -> list:
    """The records of the catalogue claims ``chosen`` (``Property`` objects, as ``_cmd_prove``
    selected and checked them against ``--bound``)."""
    from checker.prove import prove
    from properties.claims import BROKEN

    records = []
    for prop in chosen:
        claim = prop.predicate.broken(BROKEN[prop.id]) if args.broken else prop.predicate
        verdict, detail = prove(claim, args.bound, args.timeout)
        record = _prove_record(prop, verdict, detail, args.out, claim.bound_unit)
        if args.broken:
            record.title += f" [broken rule: {BROKEN[prop.id]}]"
            record.broken_rule = BROKEN[prop.id]
        records.append(record)
    return records


def _reach_table(args: argparse.Namespace, config, ctx, bound: int) -> dict:
    """``mqcheck prove SCENARIO``'s table: per publish/subscribe neighbour pair, which topic
    subtrees reach which kinds of subscription."""
    from checker.prove import witnesses
    from properties import scenario_claims as sc
    from spec.symbolic.scenario import alphabet

    table, seconds = [], 0.0
    for publisher, subscriber in sc.pairs(config):
        route = sc.route(config, publisher, subscriber)
        if not route.covered:
            table.append({"publisher": publisher, "subscriber": subscriber, "linked": False, "rows": [],
                          "reason": route.reason})
            continue
        encode, questions = sc.table_questions(ctx, publisher, subscriber, bound)
        answers, took = witnesses(encode, questions(), args.timeout)
        seconds += took
        rows = []
        for row in sc.rows(config):
            cells = {c: answers.get((row, c), ("n/a", None)) for c in sc.COLUMNS}
            rows.append({"topics": sc.row_label(row), **{c: cells[c][0] for c in sc.COLUMNS},
                         "witness": cells["any"][1]})
        table.append({"publisher": publisher, "subscriber": subscriber, "linked": True, "rows": rows,
                      "via": list(route.via)})
    cells = [row[c] for pair in table for row in pair["rows"] for c in sc.COLUMNS if row[c] != "n/a"]
    return {"bound": bound, "level_names": list(alphabet(config)), "seconds": round(seconds, 3), "pairs": table,
            "cells": len(cells), "unknown_cells": cells.count("unknown")}


def _prove_scenario(args: argparse.Namespace, path: str, table: bool = True,
                    only: set[int] | None = None) -> tuple[dict | None, list]:
    """The reachability table of the scenario at ``path`` (unless ``table`` is false) and
    the records of its ``[[prove]]`` claims (those whose index is in ``only``, if given);
    ``args`` carries ``bound``, ``timeout`` and ``out`` as ``mqcheck prove`` has them.

    A claim's ``--timeout`` counts from its start over all its publisher/subscriber pairs.
    A claim whose topic no topic string within the bound matches, or none of whose pairs
    are publish/subscribe neighbours, is vacuous: a ``never`` claim is proved and flagged
    VACUOUS, a ``possible`` one is unknown (nothing was searched); the default bound covers
    every claim's own topic."""
    import time
    import tomllib

    from checker.model import Property
    from checker.prove import COUNTEREXAMPLE, PROVED, UNKNOWN, bound_text, prove
    from properties import scenario_claims as sc
    from spec.network import run_scenario
    from spec.symbolic.scenario import configuration

    scenario = _load_scenario(path, "prove")
    for claim in scenario.proves:   # a counterexample file never replaces one of the scenario's own files
        target = os.path.join(args.out, sc.claim_file_stem(claim) + ".toml")
        if os.path.exists(target) and any(os.path.samefile(target, f) for f in scenario.files if os.path.exists(f)):
            raise InputError(f"--out {printable(args.out)}: the counterexample of [[prove]] #{claim.index} would be "
                             f"written over {printable(target)}, a file this scenario is read from",
                             file="<command line>", suggestion="give another --out directory")
    with open(path, "rb") as f:
        doc = tomllib.load(f)
    config = configuration(run_scenario(scenario).final)
    bound = args.bound or sc.default_bound(config, [c for c in scenario.proves if only is None or c.index in only])
    if bound > sc.MAX_BOUND:   # a --bound beyond it is refused before this (_cmd_prove)
        raise InputError(f"the default bound would be {bound} topic levels (one below the deepest topic object, or "
                         f"a [[prove]] topic's levels): more than prove accepts ({sc.MAX_BOUND}); give --bound",
                         file=path)
    ctx = sc.Context(scenario.name, config, tuple((q.name, q.mqsc) for q in scenario.qmgrs),
                     sc.render_steps(doc.get("steps", [])))
    reach = _reach_table(args, config, ctx, bound) if table else None
    records = []
    for claim in scenario.proves:
        if only is not None and claim.index not in only:
            continue
        prop = Property.config(f"prove[{claim.index}]", claim.name, None, citation=f"{path}:{claim.line}")
        verdict, facts, cex, took, reason = PROVED if claim.expect == "never" else COUNTEREXAMPLE, set(), None, 0.0, ""
        cpu = 0.0
        started = time.monotonic()
        pairs = [(p, s) for p in claim.publishers for s in claim.subscribers if sc.linked(config, p, s)]
        # the pairs left out of the verdict (session 33): said with the verdict, never silently
        left_out = [f"{p} -> {s} ({sc.route(config, p, s).reason})" for p in claim.publishers
                    for s in claim.subscribers if not sc.linked(config, p, s)]
        needed = sc.topic_levels(claim.topic)
        vacuous = ""
        if needed > bound:
            vacuous = (f"no topic string within the bound ({bound_text(bound, 'topic levels')}) matches "
                       f"{claim.topic!r}; raise --bound to {needed}")
        elif not pairs:
            why = sorted({sc.route(config, p, s).reason for p in claim.publishers for s in claim.subscribers})
            vacuous = "no route prove covers joins the claim's publisher and subscriber: " + "; ".join(why)
        for publisher, subscriber in [] if vacuous else pairs:
            v, d = prove(sc.prove_claim(ctx, claim, publisher, subscriber, bound), bound, args.timeout,
                         started=started)
            took += d["seconds"]
            cpu += d["cpu_seconds"]
            if v == UNKNOWN:
                verdict, reason = UNKNOWN, d["reason"]
            elif claim.expect == "never" and v == COUNTEREXAMPLE and cex is None:
                verdict, cex = COUNTEREXAMPLE, d["counterexample"]
            elif claim.expect == "never" and v == PROVED:
                facts |= set(d["facts"])
            elif claim.expect == "possible" and v == COUNTEREXAMPLE and cex is None:
                verdict, cex = PROVED, d["counterexample"]  # the witness
            elif claim.expect == "possible" and v == PROVED:
                facts |= set(d["facts"])
        if cex is not None:   # refuted (never), or a witness (possible): no proof rests on them (session 37)
            facts = set()
        if vacuous:
            verdict, reason = (PROVED, vacuous) if claim.expect == "never" else (UNKNOWN, f"vacuous: {vacuous}")
        detail = {"bound": bound, "seconds": round(took, 3), "cpu_seconds": round(cpu, 3), "facts": sorted(facts),
                  "counterexample": cex, "reason": reason}
        record = _prove_record(prop, verdict, detail, args.out, "topic levels")
        record.vacuous = bool(vacuous)
        if left_out and pairs and verdict != UNKNOWN:
            record.reason = "not covered, so not part of this verdict: " + "; ".join(left_out)
        if claim.expect == "possible" and verdict == PROVED:
            record.counterexample = ""  # a witness, not a counterexample: its scenario still replays it
        elif claim.expect == "possible" and verdict == COUNTEREXAMPLE:
            record.counterexample = "no witness within the bound: no such delivery is possible" + (
                " (it rests on the facts above)" if facts else "")
        records.append(record)
    return reach, records


def _render_reach(name: str, reach: dict) -> list[str]:
    from checker.prove import format_table

    lines = [f"Reachability in {printable(name)}: publications on every topic string up to "
             f"{reach['bound']} level{'' if reach['bound'] == 1 else 's'} "
             f"(level names: {', '.join(repr(n) for n in reach['level_names'])}, the last standing for any other "
             f"name), every topic-scheme subscription; {reach['seconds']:.2f} s", ""]
    groups: dict[str, list] = {}
    for pair in reach["pairs"]:
        key = json.dumps([[r["topics"], r["any"], r["wildcard"], r["wildcard_pulled"]] for r in pair["rows"]])
        groups.setdefault(key if pair["linked"] else "unlinked: " + pair.get("reason", ""), []).append(pair)
    header = ("topics (by closest topic object)", "a subscription there", "a wildcard subscription above them",
              "a wildcard one, pulled over by another")
    from reports.pairs import pair_list, route_lines  # n² pairs in a few words (session 32)

    everyone = {printable(p[k]) for p in reach["pairs"] for k in ("publisher", "subscriber")}
    for key, members in groups.items():
        pairs = pair_list([(printable(p['publisher']), printable(p['subscriber'])) for p in members], everyone)
        if key.startswith("unlinked: "):
            lines += [f"{pairs}: {printable(key[len('unlinked: '):])}", ""]
            continue
        lines.append(f"publisher -> subscriber: {pairs}")
        lines += [f"  {line}" for line in route_lines(members, printable)]
        # escaped before the columns are measured: a control character shown as \x1b is 4 wide
        body = [tuple(printable(str(cell)) for cell in (row["topics"], row["any"], row["wildcard"],
                                                         row["wildcard_pulled"])) for row in members[0]["rows"]]
        lines += ["  " + line for line in format_table(header, body)] + [""]
    return lines


def _interruptible_proofs(work):
    """``work()`` run in a worker thread while this (main) thread waits and takes Ctrl-C and
    SIGTERM: Z3 checks in C, where a Python signal handler would wait for the check to end
    (up to ``--timeout`` per claim). The first signal asks Z3 to stop
    (``checker.prove.interrupt``): the claim under way and those after it are unknown,
    and what was proved before stands; repeats only ask again. An ignored SIGINT stays
    ignored; a caller's own SIGTERM handler stays. Returns ``work()``'s value."""
    import threading

    from checker.explore import StopSignals
    from checker.prove import interrupt, reset_interrupt, stopped

    reset_interrupt()
    box: dict = {}

    def run() -> None:
        try:
            box["value"] = work()
        except BaseException as err:  # noqa: BLE001 - re-raised in the main thread below
            box["error"] = err

    worker = threading.Thread(target=run, name="mqcheck-prove", daemon=True)
    with StopSignals(on_signal=interrupt):
        worker.start()
        while worker.is_alive():
            worker.join(0.2)
            if stopped() is not None and worker.is_alive():
                interrupt(stopped())   # again: a check started since the first request is stopped too
    _shield_after_stop(stopped())
    if "error" in box:
        raise box["error"]
    return box["value"]


def _cmd_prove(args: argparse.Namespace) -> int:
    from checker.model import select_properties
    from checker.prove import bound_text, exit_status, format_header, format_record, format_summary, stopped
    from properties.claims import claims
    from properties.scenario_claims import MAX_BOUND as SCENARIO_MAX_BOUND
    from spec.errors import near_miss

    ids, scenario = _prove_targets(args)
    _out_dir(args.out)
    if args.broken and scenario is not None:
        raise InputError("--broken proves the catalogue's claims against broken rules; a scenario's [[prove]] "
                         "claims have none: give claim ids, or leave --broken out", file="<command line>")
    chosen = []
    if ids or scenario is None:
        known = [c.id for c in claims()]
        if any(not i.strip() for i in ids):
            blank = next(i for i in ids if not i.strip())
            raise _empty_property(f"claim {blank!r}", "claim id", known[0],
                                  f"known: {', '.join(sorted(known))}; give none to prove "
                                  + ("every catalogue claim" if scenario is None else
                                     f"{scenario}'s [[prove]] claims"))
        unknown = [i for i in dict.fromkeys(ids) if i not in known]
        states = set(_state_property_ids()) & set(unknown)
        if states:   # a property of the catalogue check and fuzz check (session 37)
            raise InputError(f"{', '.join(sorted(states))}: a property of the states a scenario reaches, which "
                             f"`mqcheck check` (and `mqcheck fuzz`) checks; prove proves the config claims "
                             f"{', '.join(known)}, and a scenario's own [[prove]] claims", file="<command line>")
        if unknown:   # as check --property: the near miss, else the ids there are
            hint = next((h for h in (near_miss(i, known) for i in unknown) if h), "")
            raise InputError(f"unknown property id(s): {', '.join(unknown)}"
                             + ("" if hint else f"; known: {', '.join(sorted(known))}"),
                             file="<command line>", suggestion=hint)

        class _Catalogue:
            def properties(self):
                return claims()

        try:
            chosen = select_properties(_Catalogue(), ids or None)
        except ValueError as e:
            raise InputError(str(e), file="<command line>") from None
    if args.bound is not None:   # refused before anything runs: a bound that cannot be encoded
        limits = [(p.id, p.predicate.min_bound, p.predicate.max_bound, p.predicate.bound_unit) for p in chosen]
        limits += [(scenario, 1, SCENARIO_MAX_BOUND, "topic levels")] if scenario is not None else []
        small = [(who, low, unit) for who, low, _, unit in limits if args.bound < low]
        large = [(who, high, unit) for who, _, high, unit in limits if args.bound > high]
        if small:
            raise InputError(f"--bound {args.bound} is too small: " + ", ".join(
                f"{who} needs at least {bound_text(low, unit)}" for who, low, unit in small), file="<command line>")
        if large:
            raise InputError(f"--bound {args.bound} is more than prove can encode in a minute: the largest accepted "
                             f"bound is {min(high for _, _, high, _ in limits)} ("
                             + ", ".join(f"{who}: {bound_text(high, unit)}" for who, high, unit in large) + ")",
                             file="<command line>")
    if args.report is not None:
        _report_target(args.report, _load_scenario(scenario, "prove").files if scenario is not None else ())

    def proofs():
        reach, records = None, []
        if scenario is not None:
            reach, records = _prove_scenario(args, scenario)
        if chosen:
            records += _prove_catalogue(args, chosen)
        return reach, records

    reach, records = _interruptible_proofs(proofs)
    status = exit_status(records)
    unknown_cells = reach["unknown_cells"] if reach is not None else 0
    if unknown_cells and status == EXIT_OK:   # a table cell not decided is never a pass (session 37)
        status = EXIT_INCOMPLETE
    data = {"command": "prove", "scenario": scenario, "claims": [r.to_dict() for r in records],
            "exit_status": status}
    stop = stopped()
    if stop is not None:
        data["stop_reason"] = stop
    if reach is not None:
        data["reachability"] = reach
    if args.json:
        print(_json_text(data))
        _write_report(args.report, [data])  # after the result: a failed write does not hide it
        return status
    # names and topic strings come from the user's files: escaped before they reach a terminal
    lines = [printable(line) for line in _render_reach(scenario or "", reach)] + [""] if reach is not None else []
    lines += [printable(line) for line in format_header(records)]
    for r in records:
        lines += [printable(line) for line in format_record(r)]
    summary = format_summary(records) if records or reach is None else "no [[prove]] claims"
    if reach is not None:
        summary += (f"; reachability table: {reach['cells'] - unknown_cells} of {reach['cells']} cells decided"
                    + (f", {unknown_cells} unknown (not decided: neither yes nor no)" if unknown_cells else ""))
    lines.append(summary)
    if stop is not None:
        lines.append(f"Stopped ({stop}): what was being decided then, and everything after it, is unknown "
                     "(never proved); what was decided before stands.")
    print("\n".join(lines))
    _write_report(args.report, [data])
    return status


def _add_prove_parser(sub) -> None:
    prove = sub.add_parser(
        "prove",
        help="Z3 proofs of the config claims over every configuration within a bound, or over every topic "
             "string of a scenario's configuration",
        description=(
            "Prove the config claims (all, or the IDs given) over every configuration within the bound; with a "
            "SCENARIO, over every publication topic string, subscription and scope option its configuration "
            "leaves open: a reachability table and its [[prove]] claims. Counterexamples are written as "
            "runnable scenario files. Exit status 0 all proved, 1 a counterexample, 2 bad input, 3 unknown "
            "(a timeout, Ctrl-C or SIGTERM: never proved); with --broken, 0 every broken rule refuted, 1 one not refuted (the "
            "claim misses it), 2 bad input, 3 unknown."),
    )
    prove.add_argument("targets", nargs="*", metavar="ID|SCENARIO", help="claim ids and/or one scenario file")
    prove.add_argument("--bound", type=_at_least(1), metavar="N",
                       help="queue managers / tree depth / topic levels (default: each claim's own); each claim "
                            "accepts a largest bound, one that encodes in well under a minute (README)")
    prove.add_argument("--timeout", type=_at_least(0.001, float), default=60.0, metavar="SECONDS",
                       help="per claim, its encoding included (default 60); a claim not decided in time is unknown")
    prove.add_argument("--out", default="mqcheck-counterexamples", metavar="DIR",
                       help="where counterexample scenarios are written (default ./mqcheck-counterexamples)")
    prove.add_argument("--broken", action="store_true",
                       help="prove each claim against its deliberately broken rule (shows the claim is not vacuous: "
                            "every one should be refuted; exit status 0 when all are, 1 when one is not, 3 when one "
                            "is unknown)")
    prove.add_argument("--json", action="store_true", help="print the results as JSON")
    prove.set_defaults(handler=_cmd_prove)


def _version() -> str:
    """The installed distribution's version (pyproject.toml's), or, when mqcheck runs from
    a source tree that was never installed, the version pyproject.toml declares."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("mqcheck")
    except PackageNotFoundError:
        import re
        from pathlib import Path

        pyproject = Path(__file__).resolve().parent.parent / "pyproject.toml"
        try:
            m = re.search(r'^version\s*=\s*"([^"]+)"', pyproject.read_text(encoding="utf-8"), re.MULTILINE)
        except OSError:
            m = None
        return m.group(1) if m else "unknown"


SCENARIO_HELP = 'a scenario file (TOML; see "Scenario files" in the README)'


class _Parser(argparse.ArgumentParser):
    """argparse, but an option error is one line and a pointer to --help, not the usage
    block first (a user trial: the error came after six lines of usage), and what the user
    typed is quoted escaped and shortened, as every other error (``unrecognized arguments``
    quoted it raw: an ESC sequence drove the terminal). Exit status 2, as before."""

    def error(self, message: str):
        from spec.errors import shorten_words

        self.exit(EXIT_BAD_INPUT, f"{self.prog}: error: {printable(shorten_words(message))}\n"
                                  f"(see {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="mqcheck",
        description="A model checker for IBM MQ clusters and distributed publish/subscribe.",
        epilog="Each command's exit statuses are in its --help (mqcheck COMMAND --help); a bad option or "
               "bad input is exit status 2 with a one-line error.",
    )
    parser.add_argument("--version", action="version", version=f"mqcheck {_version()}",
                        help="print mqcheck's version and exit")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    match = sub.add_parser(
        "match",
        help="does a subscription topic string match a published topic?",
        description=(
            "Does SUBSCRIPTION (with the wildcards of --scheme) match a publication on TOPIC? "
            "Exit status 0 if it matches, 1 if not, 2 for an invalid topic string. For the "
            "character scheme it also prints the topic-wildcard proxy subscription it converts to. "
            "A SUBSCRIPTION or TOPIC that starts with '-' goes after '--': mqcheck match -- -x/# -x/y."
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
    run.add_argument("scenario", metavar="SCENARIO", help=SCENARIO_HELP)
    run.add_argument("--json", action="store_true", help="print the result as JSON (stable keys)")
    run.add_argument("--explain", action="store_true",
                     help="show, for each workload choice, the rules applied and what each eliminated")
    run.set_defaults(handler=_cmd_run)

    check = sub.add_parser(
        "check",
        help="explore every interleaving of a scenario and check the property catalogue",
        description=(
            "Explore every interleaving of in-flight messages (and, with --faults, channel failures and "
            "queue managers stopping) between the scenario's steps, and check the property catalogue and the scenario's "
            "[[expect]] blocks in every reachable state. Exit status 0 if everything holds on a "
            "complete exploration, 1 if a property is violated (a shortest counterexample is "
            "printed), 2 for bad input, 3 if the exploration stopped at a bound."
        ),
    )
    check.add_argument("scenario", metavar="SCENARIO", help=SCENARIO_HELP)
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
                       help="stop (incomplete) past this resident size, in MB of 2^20 bytes as ps and top "
                            "count them (default: 80%% of the memory available at the start; 0: no guard; "
                            "checked every few hundred states, so a run may pass it by a little); local backend")
    check.add_argument("--stop-on-violation", action="store_true",
                       help="stop after the BFS level where the first violation appears (other verdicts incomplete); "
                            "local backend")
    check.add_argument("--workers", type=int, choices=(1, 2), default=None,
                       help="local backend: 1 process, or fork a second for large levels (default: when a core is idle)")
    check.add_argument("--no-por", action="store_true",
                       help="local backend: no partial-order reduction (on by default; it applies only where the "
                            "checked properties allow it, docs/por.md; same verdicts, fewer states). The Spark "
                            "backend always explores unreduced")
    check.add_argument("--memo", choices=("on", "off", "verify"), default="on",
                       help="the delivery memo and property views: each channel delivery computed once per local "
                            "situation and replayed, each property judged once per view of what it reads (on, the "
                            "default); off; or verify, which recomputes every replay and reused verdict and stops with "
                            "an error (exit 1) on a difference (slower; docs/decisions.md, issue #17 rounds 8 and 9). "
                            "Same states and verdicts either way")
    check.add_argument("--explore-initial", action="store_true",
                       help="also explore the initial queue managers joining their clusters (default: start "
                            "from the settled initial configuration; [check] explore_initial)")
    check.add_argument("--all-verdicts", action="store_true",
                       help="one table row per property, also for the property families the scenario never "
                            "exercises (by default their vacuous verdicts are grouped in one VACUOUS line per "
                            "family; --json always lists every property)")
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
    _add_prove_parser(sub)
    _add_fuzz_parser(sub)
    _add_report_option(sub.choices["prove"])
    _add_report_option(sub.choices["fuzz"])
    return parser


# Ctrl-C and SIGTERM after a run they stopped (issue #17): the handlers the shield replaced
_SHIELDED: list = []


def _shield_after_stop(stop_reason: str | None) -> None:
    """A run stopped by Ctrl-C or SIGTERM: its incomplete result is printed next. A repeated
    Ctrl-C or SIGTERM from here on would lose that output, or end the process with 130 or
    143 while it frees the run's memory, so both are ignored until ``main`` returns (until
    the process exits when ``main`` runs the process's own command line). The run's own
    handlers already ignore repeats while the result is built (checker.explore, and the
    Spark backend)."""
    import signal
    import threading

    from checker.explore import stopped_by_signal

    if not stopped_by_signal(stop_reason) or threading.current_thread() is not threading.main_thread():
        return
    # only the defaults are replaced: an ignored SIGINT stays ignored, a caller's own handler stays
    for signum, default in ((signal.SIGINT, signal.default_int_handler), (signal.SIGTERM, signal.SIG_DFL)):
        if signal.getsignal(signum) is default:
            _SHIELDED.append((signum, signal.signal(signum, signal.SIG_IGN)))


def _lift_shield() -> None:
    import signal

    while _SHIELDED:
        signum, previous = _SHIELDED.pop()
        signal.signal(signum, previous if previous is not None else signal.SIG_DFL)


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``mqcheck``; return the exit status (DESIGN §2.3)."""
    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    if extra:   # said by the command's parser, which names the command and its --help
        command = parser._subparsers._group_actions[0].choices[args.command]  # noqa: SLF001 - argparse keeps them here
        command.error(f"unrecognized arguments: {' '.join(extra)}")
    try:
        return _run_command(args)
    finally:
        if argv is not None:   # called in-process (tests, scripts): give the signals back
            _lift_shield()


class _ReaderMayLeave:
    """The process's standard output while a command runs: when the pipe's reader leaves
    (``mqcheck lint ... | head -1``), what is still printed goes to /dev/null and the command
    ends with its own exit status. A BrokenPipeError caught around the command returned 0
    ("nothing found") whatever it had found, or 0 and 1 from one run to the next as the
    reader's timing went, which `set -o pipefail` passes on (session 37)."""

    def __init__(self, inner) -> None:
        self._inner = inner

    def write(self, text: str) -> int:
        try:
            return self._inner.write(text)
        except BrokenPipeError:
            self._reader_left()
            return len(text)

    def flush(self) -> None:
        try:
            self._inner.flush()
        except BrokenPipeError:
            self._reader_left()

    def _reader_left(self) -> None:
        # what the buffer still holds, and everything after it, is written to /dev/null
        os.dup2(os.open(os.devnull, os.O_WRONLY), self._inner.fileno())

    def __getattr__(self, name: str):
        return getattr(self._inner, name)


def _run_command(args: argparse.Namespace) -> int:
    real = sys.stdout
    guarded = real is not None and real is sys.__stdout__   # in-process callers keep their own
    if guarded:
        sys.stdout = _ReaderMayLeave(real)
    try:
        status = args.handler(args)
        sys.stdout.flush()   # here, not at the interpreter's exit (status 120 and a message there)
        return status
    except InputError as err:
        print(f"mqcheck: error: {err.one_line()}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print("mqcheck: interrupted", file=sys.stderr)
        return EXIT_INCOMPLETE
    except BrokenPipeError:  # written past sys.stdout (report --out - writes its buffer): say nothing more
        os.dup2(os.open(os.devnull, os.O_WRONLY), real.fileno())
        return EXIT_OK
    finally:
        if guarded:
            sys.stdout = real


if __name__ == "__main__":
    sys.exit(main())
