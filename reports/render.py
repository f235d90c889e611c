"""Sections of result data -> one self-contained HTML page (docs/report-data.md).

Each section is the ``--json`` result of one command, keyed by its ``"command"``: ``run``
and ``check`` have their own views; every other command (``prove``, ``fuzz``, later ones)
gets the generic view — its scalar fields, its verdicts (with traces, when they have
them), its ``charts`` and the rest of its data collapsed — so a new command's result
renders before anyone writes a view for it.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from importlib import resources
from typing import Any

import jinja2
from markupsafe import Markup

from reports import schema, svg
from reports.pairs import pair_list, route_lines
from reports.schema import ReportDataError
from reports.text import html_text, visible
from reports.trace import messages as trace_messages
from reports.trace import states as trace_states
from reports.unexercised import summary, unexercised

KNOWN_COMMANDS = ("run", "check")
MAX_RAW_CHARS = 100_000  # the collapsed "other data" of a generic section is cut here
MAX_CHANGES_PER_STEP = 200  # beyond this a step's changes are summarised, not listed
MAX_EXPLANATIONS = 200  # run --explain: workload choices listed (each with its rules)


# ------------------------------------------------------------------------- environment
def _environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FunctionLoader(_template_source),
        autoescape=True,  # every template, whatever its name
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters["v"] = lambda value: html_text(value)  # visible + escaped, one line
    env.filters["vblock"] = lambda value: html_text(value, keep_newlines=True)
    env.filters["json"] = lambda value: html_text(json.dumps(value, ensure_ascii=False, indent=2, sort_keys=False),
                                                  keep_newlines=True)
    env.filters["jv"] = lambda value: html_text(json.dumps(value, ensure_ascii=False))  # one line of JSON
    env.filters["num"] = _number
    return env


def _template_source(name: str) -> str:
    return resources.files("reports").joinpath("templates", name).read_text(encoding="utf-8")


def _number(value: Any) -> str:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return visible(value)
    if isinstance(value, int):
        return f"{value:,}"
    return f"{value:,.3g}" if abs(value) < 1000 else f"{value:,.0f}"


# ---------------------------------------------------------------------------- sections
def infer_command(data: dict) -> str:
    """The section's command: its ``"command"`` field, or (for results saved before the
    field existed, and the commands whose JSON has none) ``check`` for data with verdicts
    and statistics, ``run`` for data with deliveries, ``lint`` for files and findings,
    ``match`` for a subscription, a topic and whether it matches."""
    if not isinstance(data, dict):
        raise ReportDataError("expected a JSON object (the --json output of an mqcheck command)")
    command = data.get("command")
    if isinstance(command, str) and command:
        return command
    if command is not None:
        raise ReportDataError('"command" must be a non-empty string')
    if isinstance(data.get("verdicts"), dict) and isinstance(data.get("statistics"), dict):
        return "check"
    if isinstance(data.get("deliveries"), dict):
        return "run"
    if isinstance(data.get("files"), list) and isinstance(data.get("findings"), list):
        return "lint"  # lint --json (its JSON has no "command": scripts read its stable keys)
    if {"subscription", "topic"} <= data.keys() and isinstance(data.get("matches"), bool):
        return "match"
    if isinstance(data.get("runs"), list) and "version" in data:   # what the file is, not only what it is not
        raise ReportDataError("this is SARIF (lint --format sarif), for code scanning; a report reads lint's "
                              "--format json (or --json)")
    if isinstance(data.get("channel"), list):
        raise ReportDataError("this looks like a JSON CCDT, not an mqcheck result; a scenario names it with "
                              "ccdt = \"FILE\" (README, \"Uniform clusters\")")
    raise ReportDataError('no "command" field, and the data is not the --json output of an mqcheck command: '
                          'run (deliveries), check (verdicts, statistics), lint (files, findings) or match '
                          '(subscription, topic, matches)')


def validate(data: Any) -> str:
    """``data``'s command, once its shape is the one the renderer reads (reports.schema);
    else :class:`ReportDataError` naming the JSON path of the bad value."""
    command = infer_command(data)
    schema.check(data, command)
    return command


def render(sections: Sequence[dict], *, title: str | None = None) -> str:
    """The report page for ``sections`` (each the JSON of one command's result)."""
    if not sections:
        raise ReportDataError("no result data to report")
    views = [_section_view(i, data) for i, data in enumerate(sections)]
    page_title = title or " · ".join(dict.fromkeys(f"{v['command']}: {v['scenario']}" if v["scenario"]
                                                   else v["command"] for v in views))
    html = _environment().get_template("report.html.j2").render(title=page_title, sections=views,
                                                                 markers=svg.markers())
    return html


def write(path: str, sections: Sequence[dict], *, title: str | None = None) -> int:
    """Write the report to ``path`` (UTF-8, ``\\n`` line ends; ``-`` is standard output);
    return its size in bytes.

    A report is whole or absent, even after Ctrl-C: it is written to a new file of a unique
    name beside its target and renamed over it. The target is the file ``path`` names: a
    symbolic link is written through, not replaced by a file, and an existing file keeps
    its permissions. Callers refuse other targets first (:func:`target_problem`)."""
    import os
    import sys
    import tempfile

    data = render(sections, title=title).encode("utf-8")
    if path == "-":
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
        return len(data)
    target = os.path.realpath(path)
    try:
        mode = os.stat(target).st_mode & 0o7777
    except FileNotFoundError:
        umask = os.umask(0o022)
        os.umask(umask)
        mode = 0o666 & ~umask
    fd, partial = tempfile.mkstemp(dir=os.path.dirname(target), prefix=f".{os.path.basename(target)}.",
                                   suffix=".partial")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.chmod(partial, mode)
        os.replace(partial, target)
    except BaseException:
        if os.path.exists(partial):
            os.remove(partial)
        raise
    return len(data)


def target_problem(path: str, inputs: Sequence[str] = (), *, stdout: bool = False) -> str | None:
    """Why the report cannot be written to ``path`` (checked before a run starts, so that a
    long run does not end in this error), or None. ``inputs`` are the files the command
    reads: a report never replaces one of them. ``-`` is standard output where ``stdout``
    allows it."""
    import os
    import stat

    if not path:
        return "expected a file name for the report, got an empty string"
    if "\0" in path:
        return "the file name contains a NUL character"
    if path == "-":
        return None if stdout else ("'-' is standard output, where the command prints its result: give the "
                                    "report a file name (mqcheck report ... --out - writes a report there)")
    target = os.path.realpath(path)
    try:
        st = os.stat(target)
    except FileNotFoundError:
        st = None
    except OSError as err:
        return f"cannot use it for the report: {err.strerror or err}"
    if st is not None and stat.S_ISDIR(st.st_mode):
        return "it is a directory: give the report a file name, such as report.html"
    if st is not None and not stat.S_ISREG(st.st_mode):
        return "not a regular file (a device, pipe or socket): the report is written as a new file"
    for name in inputs:
        try:
            same = st is not None and os.path.samefile(target, name)
        except OSError:
            same = False
        if same or os.path.realpath(name) == target:
            return f"it is {name}, which this command reads: writing the report there would replace it"
    directory = os.path.dirname(target)
    if not os.path.isdir(directory):
        return f"no such directory: {os.path.dirname(path) or directory}"
    if not os.access(directory, os.W_OK | os.X_OK):
        return f"cannot create files in {os.path.dirname(path) or directory}: permission denied"
    return None


def _section_view(index: int, data: dict) -> dict:
    command = validate(data)
    view: dict[str, Any] = {
        "index": index,
        "anchor": f"s{index}",
        "command": command,
        "known": command in KNOWN_COMMANDS,
        "scenario": _text(data.get("scenario") or data.get("model") or ""),
        "scenario_file": _text(data.get("scenario_file") or ""),
        "description": _text(data.get("description") or ""),
        "topology": _topology(data.get("topology")),
        "charts": _charts(command, data),
        "verdicts": _verdict_rows(data.get("verdicts")),
        "verdicts_title": "Verdicts",
        "tables": [],  # further tables: {"title", "caption", "header": [...], "rows": [[...]]}
        "verdicts_columns": ["property", "kind", "verdict", "title and citation"],
        "raw": "",
    }
    view["traces"] = _traces(data, view)
    view["blocks"] = []
    view["unexercised"] = None
    if command == "check":
        view["summary"] = _check_summary(data)
        view["unexercised"] = _unexercised(data, view)
    elif command == "run":
        view.update(_run_view(data))
        view["summary"] = _run_summary(data, view)
    else:
        view["summary"] = _generic_summary(data)
        view["raw"] = _raw_rest(data)
        if command == "prove" and isinstance(data.get("claims"), list):
            view["known"] = True
            _prove_view(data, view)
        elif command == "fuzz" and isinstance(data.get("properties"), dict):
            view["known"] = True
            _fuzz_view(data, view)
        elif command == "lint":
            view["known"], view["raw"] = True, ""
            _lint_view(data, view)
        elif command == "match":
            view["known"] = True  # the summary is the whole answer
            view["scenario"] = _text(f"{data.get('subscription')} on {data.get('topic')}")
    counts: dict[tuple[str, str], int] = {}
    for row in view["verdicts"]:
        # a vacuous verdict of a bounded run may yet find its witness beyond the bound, as
        # the verdict rows and `check`'s text say ("possibly vacuous")
        vacuous = " (possibly vacuous)" if row["status"] == "holds up to bound" else " (vacuous)"
        key = (row["badge"], row["status"] + (vacuous if row["vacuous"] else ""))
        counts[key] = counts.get(key, 0) + 1
    order = ("bad", "partial", "warn", "ok", "muted")
    view["counts"] = [(b, st, n) for (b, st), n in sorted(counts.items(), key=lambda kv: (order.index(kv[0][0])
                                                                                         if kv[0][0] in order else 9,
                                                                                         kv[0][1]))]
    return view


def _text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _topology(topo: Any) -> Markup | None:
    if not isinstance(topo, dict) or not topo.get("qmgrs"):
        return None
    return svg.topology(topo)


# ---------------------------------------------------------------------------- verdicts
BADGES = {
    "holds": "ok", "proved": "ok", "witnessed": "ok", "passed": "ok",
    "violated": "bad", "counterexample": "bad", "failed": "bad",
    "holds up to bound": "partial", "not reached up to bound": "partial", "unknown": "partial",
    "never reached": "warn", "not checked on this backend": "muted",
}


def verdict_text(v: dict) -> str:
    """One line, like ``checker.model.format_verdict`` (kept here: reports read plain data)."""
    status = str(v.get("status", ""))
    trace = v.get("trace") if isinstance(v.get("trace"), dict) else None
    if status in ("violated", "witnessed") and trace:
        text = f"{status} ({_trace_describe(trace)})"
    elif status in ("holds", "never reached") and "distinct_states" in v:
        text = f"{status} (complete: {v['distinct_states']} states)"
    elif status in ("holds up to bound", "not reached up to bound"):
        text = f"{status} (incomplete: {v.get('distinct_states', 0)} states, depth {v.get('depth', 0)}, " \
               f"{v.get('reason', '')})"
    else:
        text = status + (f" ({v['note']})" if v.get("note") else "")
    if v.get("vacuous") and status == "holds up to bound":
        text += f" — possibly vacuous: witness {v.get('witness')} not reached up to bound"
    elif v.get("vacuous"):
        text += f" — VACUOUS: witness {v.get('witness')} never reached"
    return text


def _trace_describe(trace: dict) -> str:
    n = max(len(trace.get("steps") or []) - 1, 0)
    loop = trace.get("loop_start")
    if loop is None:
        return f"trace of {n} step{'s' if n != 1 else ''}"
    return f"lasso: {loop}-step prefix, {n - loop}-step cycle"


def _verdict_rows(verdicts: Any) -> list[dict]:
    if not isinstance(verdicts, dict):
        return []
    rows = []
    for pid, v in verdicts.items():
        if not isinstance(v, dict):
            v = {"status": str(v)}
        status = str(v.get("status", ""))
        badge = BADGES.get(status, "muted")
        if v.get("vacuous") and badge == "ok":
            badge = "warn"
        rows.append({"id": str(pid), "kind": str(v.get("kind", "")), "status": status, "badge": badge,
                     "title": str(v.get("title", "")), "citation": str(v.get("citation", "")),
                     "quote": str(v.get("quote", "")), "text": verdict_text(v),
                     "has_trace": isinstance(v.get("trace"), dict), "anchor": "", "vacuous": bool(v.get("vacuous")),
                     "detail": []})
    return rows


def _unexercised(data: dict, view: dict) -> dict | None:
    """The vacuous verdicts of property families the run never exercised (as `check`'s
    text groups them: reports.unexercised), for one collapsed block under the verdict table:
    its summary lines say VACUOUS with the ids, each verdict's row is inside (session 33)."""
    verdicts = data.get("verdicts")
    if not isinstance(verdicts, dict):
        return None
    plain = {str(p): v for p, v in verdicts.items() if isinstance(v, dict)}
    groups = unexercised(plain)
    if not groups:
        return None
    ids = {p for these in groups.values() for p in these}
    rows = []
    for row in view["verdicts"]:
        row["grouped"] = row["id"] in ids
        rows += [row] if row["grouped"] else []
    st = data.get("statistics") if isinstance(data.get("statistics"), dict) else {}
    complete = st.get("complete") is True
    unreached = sum(1 for p in ids if plain[p].get("vacuous") is not True)
    head = (f"Property families this {'scenario never exercises' if complete else 'run did not exercise'}: "
            f"{', '.join(groups)} (none of their {unreached} sometimes properties reached"
            f"{'' if complete else ' up to bound'})")
    return {"head": head, "lines": [{"badge": "warn" if "VACUOUS" in label else BADGES.get(label, "muted"),
                                     "label": label, "text": f"{text}: {', '.join(these)}"}
                                    for label, text, these in summary(plain, groups)],
            "rows": rows}


# ------------------------------------------------------------------------------ traces
def _traces(data: dict, view: dict) -> list[dict]:
    """The traces shown in full: violations, lassos, and the evidence of undecided
    termination verdicts (``"evidence": {property: witness}``). Other witnesses' traces
    are counted in the verdict table, not drawn (the report stays small)."""
    verdicts = data.get("verdicts") if isinstance(data.get("verdicts"), dict) else {}
    evidence = data.get("evidence") if isinstance(data.get("evidence"), dict) else {}
    lifelines = [str(q.get("name")) for q in (data.get("topology") or {}).get("qmgrs") or [] if isinstance(q, dict)] \
        if isinstance(data.get("topology"), dict) else []
    shown: list[tuple[str, str, dict]] = []
    for pid, v in verdicts.items():
        if isinstance(v, dict) and isinstance(v.get("trace"), dict) and v.get("status") in ("violated",
                                                                                           "counterexample"):
            shown.append((str(pid), "counterexample", v))
    for pid, ref in evidence.items():
        v, w = verdicts.get(pid), verdicts.get(ref)
        if isinstance(v, dict) and isinstance(w, dict) and isinstance(w.get("trace"), dict) and \
                v.get("status") in ("holds up to bound", "not checked on this backend"):
            shown.append((str(ref), f"evidence against {pid} (undecided)", w))
    out = []
    for k, (pid, role, v) in enumerate(shown):
        out.append(_trace_view(f"{view['anchor']}-t{k}", pid, role, v, lifelines, data))
    anchors = {t["property"]: t["anchor"] for t in out}
    for row in view["verdicts"]:
        row["anchor"] = anchors.get(row["id"], "")
    return out


def _trace_view(anchor: str, pid: str, role: str, v: dict, lifelines: list[str], data: dict) -> dict:
    trace = v["trace"]
    steps = trace_states(trace)
    msgs = trace_messages(steps)
    loop = trace.get("loop_start") if isinstance(trace.get("loop_start"), int) else None
    violated_at = len(steps) - 1 if role == "counterexample" and loop is None else None
    label = f"{pid} violated in the state after step {len(steps) - 1}" if violated_at is not None else \
        f"{pid}: {role}"
    order = svg.lifeline_order(steps, msgs, lifelines)
    chart = svg.sequence_chart(steps, msgs, order, loop_start=loop, violated_at=violated_at, label=label)
    step_rows = []
    for s in steps:
        changes = s.changes
        more = max(len(changes) - MAX_CHANGES_PER_STEP, 0)
        step_rows.append({"number": s.number, "action": s.action or "initial state", "event": s.event,
                          "changes": changes[:MAX_CHANGES_PER_STEP], "more": more,
                          "cycle_start": loop is not None and s.number == loop,
                          "violation": s.number == violated_at})
    return {
        "anchor": anchor, "property": pid, "role": role, "title": str(v.get("title", "")),
        "citation": str(v.get("citation", "")), "quote": str(v.get("quote", "")),
        "describe": _trace_describe(trace), "chart": chart, "steps": step_rows,
        "messages": msgs, "message_count": len(msgs), "lasso": loop is not None, "loop_start": loop,
        "initial": steps[0].state if steps else {}, "final": steps[-1].state if steps else {},
        "replay": _replay(data, pid),
    }


def _replay(data: dict, pid: str) -> str:
    replay = data.get("replay")
    if isinstance(replay, dict) and isinstance(replay.get(pid), str):
        return replay[pid]
    if isinstance(replay, str):
        return replay
    return ""


# --------------------------------------------------------------------------- summaries
def _check_summary(data: dict) -> list[tuple[str, str]]:
    st = data.get("statistics") if isinstance(data.get("statistics"), dict) else {}
    complete = st.get("complete")   # never assumed: data without it does not say
    rows = [("command", "check"), ("backend", _text(data.get("backend", ""))),
            ("exploration", "complete" if complete is True else f"INCOMPLETE ({st.get('stop_reason', '')})"
             if complete is False else "not stated (the data has no statistics.complete)"),
            ("distinct states", _number(st.get("distinct_states", 0))),
            ("generated states", _number(st.get("generated_states", 0))),
            ("depth", _number(st.get("max_depth", 0))),
            ("time", f"{_number(st.get('seconds', 0))} s")]
    if "fingerprint_bits" in st:
        collision = float(st.get("collision_probability", 0))
        rows.append(("fingerprints", f"{st['fingerprint_bits']}-bit, estimated collision probability {collision:.1e}"))
    if st.get("reduced"):
        rows.append(("partial-order reduction", f"{_number(st['reduced'])} states expanded with a reduced set: "
                     "the counts are the reduced search's (same verdicts; --no-por or the Spark backend "
                     "explores every interleaving)"))
    if "explore_initial" in data:
        rows.append(("start", "the initial MQSC, joining explored" if data["explore_initial"]
                     else "the settled initial configuration"))
    return rows


def _run_summary(data: dict, view: dict) -> list[tuple[str, str]]:
    held = sum(1 for e in view["expectations"] if e["ok"])
    rows = [("command", "run (the deterministic scheduler)"),
            ("expectations", f"{held} of {len(view['expectations'])} hold" if view["expectations"] else "none"),
            ("errors logged", str(len(view["errors"])))]
    if data.get("unmodelled"):
        rows.append(("not modelled", f"{len(data['unmodelled'])} part(s) of the scenario (listed below)"))
    return rows


def _generic_summary(data: dict) -> list[tuple[str, str]]:
    """A result's scalar fields, named as words (``exit_status``: "exit status") and with
    booleans as yes/no, for people rather than programs."""
    def shown(value: Any) -> str:
        if isinstance(value, bool):
            return "yes" if value else "no"
        return _number(value) if isinstance(value, (int, float)) else visible(value)

    rows = []
    for key, value in data.items():
        if isinstance(value, (str, int, float, bool)):
            rows.append((str(key).replace("_", " "), shown(value)))
    st = data.get("statistics")
    if isinstance(st, dict):
        for key, value in st.items():
            if isinstance(value, (str, int, float, bool)):
                rows.append((f"statistics: {str(key).replace('_', ' ')}", shown(value)))
    return rows


def _raw_rest(data: dict) -> str:
    rest = {k: v for k, v in data.items() if k not in ("verdicts", "topology", "charts", "statistics")
            and not isinstance(v, (str, int, float, bool, type(None)))}
    if not rest:
        return ""
    text = json.dumps(rest, ensure_ascii=False, indent=2)
    if len(text) > MAX_RAW_CHARS:
        text = text[:MAX_RAW_CHARS] + f"\n… ({len(text) - MAX_RAW_CHARS} more characters not shown)"
    return text


# ------------------------------------------------------------------------------ run data
def _run_view(data: dict) -> dict:
    expectations = []
    for e in data.get("expectations") or []:
        if isinstance(e, dict):
            expectations.append({"index": e.get("index"), "ok": bool(e.get("ok")),
                                 "failures": [str(f) for f in e.get("failures") or []]})
    deliveries = []
    for qmgr, subs in (data.get("deliveries") or {}).items():
        if isinstance(subs, dict):
            for sub, topics in subs.items():
                deliveries.append({"qmgr": str(qmgr), "subscription": str(sub),
                                   "topics": [str(t) for t in topics] if isinstance(topics, list) else []})
    messages = []
    for handle, per in (data.get("messages") or {}).items():
        if isinstance(per, dict):
            total = sum(int(n) for n in per.values() if isinstance(n, int)) or 1
            for qmgr, n in per.items():
                messages.append({"handle": str(handle), "qmgr": str(qmgr), "count": n,
                                 "share": f"{100 * n / total:.0f}%" if isinstance(n, int) else ""})
    errors = [{"qmgr": str(e.get("qmgr", "")), "code": str(e.get("code", "")), "detail": str(e.get("detail", "")),
               "step": e.get("step")} for e in data.get("errors") or [] if isinstance(e, dict)]
    repositories = []
    for qmgr, clusters in (data.get("repositories") or {}).items():
        if isinstance(clusters, dict):
            for cluster, rv in clusters.items():
                rv = rv if isinstance(rv, dict) else {}
                suspended = set(map(str, rv.get("suspended") or []))
                repositories.append({
                    "qmgr": str(qmgr), "cluster": str(cluster),
                    # a suspended member is marked, as in `mqcheck run`'s table (001 rule 7)
                    "qmgrs": ", ".join(f"{q} (suspended)" if q in suspended else q
                                       for q in map(str, rv.get("qmgrs") or [])),
                    "queues": "; ".join(f"{q} @ {', '.join(map(str, h))}" for q, h in (rv.get("queues") or {}).items()
                                        if isinstance(h, list)),
                    "topics": ", ".join(map(str, rv.get("topics") or []))})
    explanations = []
    for e in (data.get("explanations") or [])[:MAX_EXPLANATIONS]:
        if isinstance(e, dict):
            explanations.append({"head": f"steps[{e.get('step')}] {e.get('handle')} message {e.get('message')} at "
                                         f"{e.get('qmgr')}: {e.get('put')}",
                                 "rules": [str(r) for r in e.get("rules") or []]})
    return {"explanations": explanations,
            "explanations_left": max(len(data.get("explanations") or []) - MAX_EXPLANATIONS, 0),
            "expectations": expectations, "deliveries": deliveries, "messages": messages, "errors": errors,
            "repositories": repositories,
            "not_joined": [f"{e.get('qmgr')}: {e.get('reason')}" for e in data.get("not_joined") or []
                           if isinstance(e, dict)],
            "unmodelled": [str(u) for u in data.get("unmodelled") or []]}


# -------------------------------------------------------------------------------- charts
def _charts(command: str, data: dict) -> list[Markup]:
    charts: list[Markup] = []
    st = data.get("statistics") if isinstance(data.get("statistics"), dict) else {}
    levels = st.get("levels")
    if isinstance(levels, list) and levels and all(isinstance(n, int) for n in levels):
        charts.append(svg.column_chart("distinct states per BFS level", levels, x_name="level",
                                       y_name="new distinct states"))
    workload = data.get("workload")
    if isinstance(workload, dict):
        for handle, w in workload.items():
            if not isinstance(w, dict) or not isinstance(w.get("destinations"), list):
                continue
            dests = [d for d in w["destinations"] if isinstance(d, dict)]
            total = sum(int(d.get("messages") or 0) for d in dests) or 1
            weights = sum(float(d.get("weight") or 0) for d in dests) or 1.0
            bars = [{"label": f"{d.get('qmgr')} ({d.get('channel', '')}, CLWLWGHT {d.get('weight')})",
                     "value": round(100.0 * int(d.get("messages") or 0) / total, 1),
                     "reference": round(100.0 * float(d.get("weight") or 0) / weights, 1)} for d in dests]
            charts.append(svg.bar_chart(f"{handle}: messages per queue manager ({w.get('queue', '')} opened at "
                                        f"{w.get('qmgr', '')}, {total} messages)", bars, unit="%",
                                        reference_name="share the configured weights give"))
    coverage = data.get("coverage")
    if isinstance(coverage, dict) and coverage:
        charts.append(svg.bar_chart("witness coverage: examples that reached each witness",
                                    [{"label": k, "value": v} for k, v in coverage.items()
                                     if isinstance(v, (int, float))]))
    verdicts = data.get("verdicts") if isinstance(data.get("verdicts"), dict) else {}
    timed = [{"label": pid, "value": v["seconds"]} for pid, v in verdicts.items()
             if isinstance(v, dict) and isinstance(v.get("seconds"), (int, float))]
    if timed:
        charts.append(svg.bar_chart("seconds per claim", timed, unit=" s"))
    for c in data.get("charts") or []:
        if isinstance(c, dict) and isinstance(c.get("bars"), list):
            charts.append(svg.bar_chart(str(c.get("title", "")), c["bars"], unit=str(c.get("unit", "")),
                                        reference_name=str(c.get("reference_name", ""))))
    return charts


# ------------------------------------------------------------ prove and fuzz, as they emit
def _prove_view(data: dict, view: dict) -> None:
    """``mqcheck prove --json``: ``claims`` is a list of proof records (id, title, citation,
    verdict, bound, bound_unit, seconds, cpu_seconds, facts, counterexample, replay, reason,
    vacuous)."""
    rows = []
    for c in data["claims"]:
        if not isinstance(c, dict):
            continue
        status = str(c.get("verdict", ""))
        text = status
        if "bound" in c:
            text += f" (bound {c['bound']}{' ' + str(c['bound_unit']) if c.get('bound_unit') else ''})"
        # a claim that something is possible is proved by a witness, written where a
        # counterexample would be (as `mqcheck prove` prints it)
        path_label = "witness" if status == "proved" else "counterexample scenario"
        detail = [f"{k}: {c[k]}" for k in ("reason", "counterexample") if c.get(k)]
        if c.get("counterexample_path"):
            detail.append(f"{path_label}: {c['counterexample_path']}")
        if c.get("facts"):
            detail.append("rests on: " + ", ".join(map(str, c["facts"])))
        if c.get("replay"):
            detail.append(f"replay: {c['replay']}")
        # a claim over no topic string within the bound: flagged, as check flags a vacuous
        # verdict (the reason says which topic and the bound that covers it)
        vacuous = c.get("vacuous") is True
        badge = BADGES.get(status, "muted")
        if vacuous and badge == "ok":
            badge, text = "warn", text + " — VACUOUS"
        rows.append({"id": str(c.get("id", "")), "kind": "config", "status": status,
                     "badge": badge, "title": str(c.get("title", "")),
                     "citation": str(c.get("citation", "")), "quote": str(c.get("quote", "")), "text": text,
                     "has_trace": False, "anchor": "", "vacuous": vacuous, "detail": detail})
    view["verdicts"] = rows
    if data.get("stop_reason"):   # Ctrl-C or SIGTERM: said first, as fuzz's and check's summaries do (session 37)
        view["summary"].insert(0, ("proving", f"INCOMPLETE ({_text(data['stop_reason'])}): what was being decided "
                                              "then, and everything after it, is unknown (never proved)"))
    if isinstance(data.get("reachability"), dict):
        reach = data["reachability"]
        view["tables"] += _reach_tables(reach)
        cells, unknown = reach.get("cells"), reach.get("unknown_cells")
        if isinstance(cells, int) and isinstance(unknown, int):   # as prove's last line (session 37)
            view["summary"].append(("reachability table", f"{cells - unknown:,} of {cells:,} cells decided"
                                    + (f", {unknown:,} unknown (not decided)" if unknown else "")))
    if not view["scenario"]:  # the catalogue's claims: name them, not an empty title
        broken = any(isinstance(c, dict) and c.get("broken") for c in data["claims"])
        view["scenario"] = (f"{len(rows)} catalogue claim{'s' if len(rows) != 1 else ''}"
                            + (" against broken rules" if broken else ""))
    timed = [{"label": r["id"], "value": c.get("cpu_seconds", c.get("seconds"))}
             for r, c in zip(rows, [c for c in data["claims"] if isinstance(c, dict)])
             if isinstance(c.get("cpu_seconds", c.get("seconds")), (int, float))]
    if timed:
        unit = "CPU seconds" if any("cpu_seconds" in c for c in data["claims"] if isinstance(c, dict)) else "seconds"
        view["charts"].append(svg.bar_chart(f"{unit} per claim", timed, unit=" s"))


REACH_HEADER = ["topics (by closest topic object)", "a subscription there", "a wildcard subscription above them",
                "a wildcard one, pulled over by another"]


def _reach_tables(reach: dict) -> list[dict]:
    """``prove SCENARIO``'s reachability (``mqcheck prove`` prints the same tables): one
    table per group of publisher -> subscriber pairs with the same rows."""
    groups: dict[str, list[dict]] = {}
    for pair in reach.get("pairs") or []:
        rows = [[str(r.get(k, "")) for k in ("topics", "any", "wildcard", "wildcard_pulled")]
                for r in pair.get("rows") or []]
        key = json.dumps(rows) if pair.get("linked") else "unlinked: " + str(pair.get("reason") or
                                                                            "not publish/subscribe neighbours")
        groups.setdefault(key, []).append({**pair, "_rows": rows})
    names = ", ".join(repr(str(n)) for n in reach.get("level_names") or [])
    caption = (f"publications on every topic string up to {reach.get('bound', '?')} levels (level names: {names}, "
               "the last standing for any other name), every topic-scheme subscription")
    tables = []
    everyone = {str(p.get(k, "")) for p in reach.get("pairs") or [] for k in ("publisher", "subscriber")}
    for key, members in groups.items():
        pairs = pair_list([(str(p.get("publisher", "")), str(p.get("subscriber", ""))) for p in members], everyone)
        if key.startswith("unlinked: "):
            tables.append({"title": f"Reachability: {pairs}", "caption": key[len("unlinked: "):], "header": [],
                           "rows": []})
        else:
            routes = route_lines([{**p, "via": [str(v) for v in p.get("via") or []]} for p in members])
            tables.append({"title": f"Reachability: {pairs}",
                           "caption": caption + ("; routes: " + "; ".join(routes) if routes else ""),
                           "header": REACH_HEADER, "rows": members[0]["_rows"]})
    return tables


def _fuzz_view(data: dict, view: dict) -> None:
    """``mqcheck fuzz --json``: ``properties`` maps ids to coverage counts (kind, title,
    witness, checked, exercised, violated, excused); ``counterexamples`` lists shrunk
    counterexamples (property, title, citation, detail, trace as lines, file, replay)."""
    rows, bars = [], []
    for pid, c in data["properties"].items():
        if not isinstance(c, dict):
            continue
        violated = int(c.get("violated") or 0)
        excused = int(c.get("excused") or 0)  # violations in configurations outside the property's assumptions
        exercised = int(c.get("exercised") or 0)
        if violated > excused:
            status, badge = "violated", "bad"
        elif violated:
            status, badge = "violated (excused)", "warn"
        else:
            status, badge = ("exercised", "ok") if exercised else ("never exercised", "warn")
        text = f"checked in {c.get('checked', 0)} examples, exercised in {exercised}" + (
            f", violated in {violated}" if violated else "") + (f", excused in {c['excused']}" if c.get("excused") else "")
        rows.append({"id": str(pid), "kind": str(c.get("kind", "")), "status": status, "badge": badge,
                     "title": str(c.get("title", "")), "citation": str(c.get("citation", "")), "quote": "",
                     "text": text, "has_trace": False, "anchor": "", "vacuous": False, "detail": []})
        if exercised:
            bars.append({"label": str(pid), "value": exercised})
    view["verdicts"] = rows
    complete = data.get("complete")   # never assumed: results of older versions do not say
    if complete is not None:   # first, as check's summary says whether its exploration was complete
        view["summary"].insert(0, ("fuzzing", "complete" if complete is True else
                                   f"INCOMPLETE ({_text(data.get('stop_reason', ''))}): no pass — the examples "
                                   "run before it stopped are counted below"))
    if not view["scenario"]:  # name the run by what reproduces it
        view["scenario"] = ", ".join(f"{k} {data[k]}" for k in ("mode", "seed", "examples")
                                     if isinstance(data.get(k), (str, int)) and not isinstance(data.get(k), bool))
    never = sum(1 for r in rows if r["status"] == "never exercised")
    if bars:
        view["charts"].append(svg.bar_chart(f"witness coverage: examples in which each property was exercised "
                                            f"({never} never exercised: see the table)", bars))
    for c in data.get("counterexamples") or []:
        if isinstance(c, dict):
            lines = [str(c.get("detail", ""))] if c.get("detail") else []
            lines += [f"{i}. {step}" for i, step in enumerate(c.get("trace") or [], 1)]
            if c.get("file"):
                lines.append(f"shrunk scenario: {c['file']}")
            view["blocks"].append({"title": f"Counterexample: {c.get('property', '')} — {c.get('title', '')}",
                                   "citation": str(c.get("citation", "")), "lines": lines,
                                   "code": str(c.get("replay", ""))})


LINT_BADGES = {"error": "bad", "warning": "warn", "info": "muted"}


def _count(n, severity: str) -> str:
    """``2 errors``, ``1 warning``, ``3 info``."""
    plural = severity in ("error", "warning") and n != 1
    return f"{n} {severity}{'s' if plural else ''}"


def _lint_view(data: dict, view: dict) -> None:
    """``mqcheck lint --json``: ``findings``, each ``{"rule", "severity", "message", "file",
    "line", "column", "fix", "citation", "confirm", "related": [{"file", "line", "column",
    "note"}]}``, shown as rows (the severity as the badge, the location, the fix, the
    command that confirms it); ``counts`` and ``disabled`` make the summary."""
    def where(loc: dict) -> str:
        return ":".join(str(loc[k]) for k in ("file", "line", "column") if loc.get(k))

    rows = []
    for f in data.get("findings") or []:
        if not isinstance(f, dict):
            continue
        severity = str(f.get("severity", ""))
        detail = [f"{k}: {f[k]}" for k in ("fix", "confirm") if f.get(k)]
        detail += [f"see {where(r)}" + (f": {r['note']}" if r.get("note") else "")
                   for r in f.get("related") or [] if isinstance(r, dict)]
        rows.append({"id": str(f.get("rule", "")), "kind": "lint", "status": severity,
                     "badge": LINT_BADGES.get(severity, "muted"), "title": str(f.get("message", "")),
                     "citation": str(f.get("citation", "")), "quote": "", "text": where(f), "has_trace": False,
                     "anchor": "", "vacuous": False, "detail": detail})
    view["verdicts"] = rows
    view["verdicts_title"] = "Findings"
    view["verdicts_columns"] = ["rule", "kind", "severity and location", "finding and citation"]
    counts = data.get("counts") or {}
    files = ", ".join(map(str, data.get("files") or []))
    view["scenario"] = files
    order = [*LINT_BADGES, *(k for k in counts if k not in LINT_BADGES)]  # error, warning, info
    view["summary"] = [("command", "lint (static checks of the definitions)"), ("files", files),
                       ("findings", ", ".join(_count(counts[k], k) for k in order if k in counts) or str(len(rows)))]
    view["summary"] += [(f"disabled: {rule}", str(why)) for rule, why in (data.get("disabled") or {}).items()]
