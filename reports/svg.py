"""Inline SVG, built as plain strings (as Stateright's ``as_svg`` does): the topology,
message sequence charts and bar charts. No JavaScript, no external resource.

Every attribute value and text node goes through :func:`el`, which makes user text
visible (``reports.text.visible``) and escapes it; only :class:`Markup` built here is
inserted as is. Coordinates are rounded to one decimal, and layouts use fixed seeds and
sorted inputs, so the same data gives the same bytes.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

from markupsafe import Markup

from reports.text import html_text, shorten
from reports.trace import Message, Step

PALETTE = ("#1f77b4", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2", "#bcbd22")
STATUS_COLOUR = {"RUNNING": "#2e7d32", "INACTIVE": "#757575", "RETRYING": "#ef6c00", "STOPPED": "#c62828",
                 "PAUSED": "#c62828", "REQUESTING": "#c62828", "SWITCHING": "#c62828"}


def _num(v: float) -> str:
    text = f"{v:.1f}"
    return text.removesuffix(".0")


def el(tag: str, attrs: dict | None = None, *children: object) -> Markup:
    """``<tag attrs>children</tag>``: strings are made visible and escaped, numbers
    formatted, Markup inserted as is; ``None`` attributes and children are left out."""
    parts = [f"<{tag}"]
    for key, value in (attrs or {}).items():
        if value is None:
            continue
        text = _num(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else html_text(value)
        parts.append(f' {key.rstrip("_").replace("_", "-")}="{text}"')
    body = "".join(c if isinstance(c, Markup) else str(html_text(c)) for c in children if c is not None)
    if not body and tag not in ("text", "title", "tspan", "g", "svg"):
        return Markup("".join(parts) + "/>")
    return Markup("".join(parts) + ">" + body + f"</{tag}>")


def _svg(width: float, height: float, label: str, css_class: str, *children: object) -> Markup:
    return el("svg", {"class": css_class, "width": width, "height": height,
                      "viewBox": f"0 0 {_num(width)} {_num(height)}", "role": "img", "aria-label": label},
              el("title", {}, label), *children)


def markers() -> Markup:
    """The arrow heads every diagram of a page refers to (``url(#arrow-...)``), defined once
    per page in a hidden SVG: ids are unique in a document, and a report of several
    sections, each with a topology and sequence charts, repeated them in every diagram."""
    return el("svg", {"class": "defs", "width": 0, "height": 0, "aria-hidden": "true", "focusable": "false"},
              _defs())


def _defs() -> Markup:
    def marker(id_: str, colour: str) -> Markup:
        return el("marker", {"id": id_, "viewBox": "0 0 10 10", "refX": 9, "refY": 5, "markerWidth": 7,
                             "markerHeight": 7, "orient": "auto-start-reverse"},
                  el("path", {"d": "M0,0 L10,5 L0,10 z", "fill": colour}))
    return el("defs", {}, marker("arrow-dark", "#37474f"), marker("arrow-grey", "#9e9e9e"),
              marker("arrow-msg", "#1565c0"), marker("arrow-hier", "#6a1b9a"),
              *(marker(f"arrow-m{i}", colour) for i, colour in enumerate(MESSAGE_COLOUR.values())))


# ------------------------------------------------------------------------------- topology
def topology(topo: dict) -> Markup:
    """Queue managers (full repositories ringed), clusters as coloured groups, manual
    (solid) and auto-defined (dashed) cluster channels coloured by status, hierarchy links
    (purple, child to parent)."""
    import networkx as nx

    qmgrs = sorted((q for q in topo.get("qmgrs") or [] if isinstance(q, dict) and "name" in q),
                   key=lambda q: str(q["name"]))
    names = [str(q["name"]) for q in qmgrs]
    clusters = sorted((c for c in topo.get("clusters") or [] if isinstance(c, dict) and "name" in c),
                      key=lambda c: str(c["name"]))
    channels = sorted((c for c in topo.get("channels") or [] if isinstance(c, dict)
                       and str(c.get("src")) in names and str(c.get("dst")) in names),
                      key=lambda c: (str(c.get("kind")), str(c["src"]), str(c["dst"]), str(c.get("name", ""))))
    graph = nx.Graph()
    graph.add_nodes_from(names)
    for c in clusters:  # members of a cluster pull together
        members = sorted(str(m) for m in c.get("members") or [] if str(m) in names)
        for i, a in enumerate(members):
            for b in members[i + 1:]:
                graph.add_edge(a, b, weight=graph.get_edge_data(a, b, {}).get("weight", 0) + 1.0)
    for ch in channels:
        a, b = str(ch["src"]), str(ch["dst"])
        if a != b:
            graph.add_edge(a, b, weight=graph.get_edge_data(a, b, {}).get("weight", 0) + 1.0)
    pos = _layout(graph)
    unit, margin, legend_h = 120.0, 80.0, 84.0
    xs = [p[0] for p in pos.values()] or [0.0]
    ys = [p[1] for p in pos.values()] or [0.0]
    width = max((max(xs) - min(xs)) * unit + 2 * margin, 440.0)
    height = max((max(ys) - min(ys)) * unit + 2 * margin + 20, 200.0) + legend_h
    xy = {n: (round(margin + (p[0] - min(xs)) * unit, 1), round(margin + 10 + (p[1] - min(ys)) * unit, 1))
          for n, p in pos.items()}
    parts: list[Markup] = []
    for i, c in enumerate(clusters):
        members = [str(m) for m in c.get("members") or [] if str(m) in xy]
        if not members:
            continue
        colour = PALETTE[i % len(PALETTE)]
        pad = 42 + 8 * (i % 4)
        x0 = min(xy[m][0] for m in members) - pad
        y0 = min(xy[m][1] for m in members) - pad - 12
        x1 = max(xy[m][0] for m in members) + pad
        y1 = max(xy[m][1] for m in members) + pad + 14
        parts.append(el("g", {"class": "cluster", "data-cluster": c["name"]},
                        el("title", {}, f"cluster {c['name']}: {', '.join(members)}"),
                        el("rect", {"x": x0, "y": y0, "width": x1 - x0, "height": y1 - y0, "rx": 18,
                                    "fill": colour, "fill-opacity": 0.10, "stroke": colour, "stroke-width": 1.5}),
                        el("text", {"x": x0 + 10, "y": y0 + 16, "fill": colour, "class": "cluster-label"},
                           f"cluster {c['name']}")))
    pairs = {(str(ch["src"]), str(ch["dst"])) for ch in channels}
    for ch in channels:
        parts.append(_topology_edge(ch, xy, (str(ch["dst"]), str(ch["src"])) in pairs))
    fr_of = {str(q["name"]): [str(c) for c in q.get("full_repository_for") or []] for q in qmgrs}
    for q in qmgrs:
        n = str(q["name"])
        x, y = xy[n]
        fr = fr_of[n]
        running = q.get("running", True) is not False
        title = f"queue manager {n}" + (f"; full repository for {', '.join(fr)}" if fr else "") + \
            ("" if running else "; stopped")
        shapes = [el("title", {}, title)]
        if fr:
            shapes.append(el("circle", {"cx": x, "cy": y, "r": 30, "fill": "none", "stroke": "#37474f",
                                        "stroke-width": 2, "class": "fr-ring"}))
        shapes.append(el("circle", {"cx": x, "cy": y, "r": 24, "fill": "#eceff1" if running else "#ffcdd2",
                                    "stroke": "#37474f", "stroke-width": 1.5}))
        shapes.append(el("text", {"x": x, "y": y + 4, "text-anchor": "middle", "class": "qm-badge"},
                         "FR" if fr else "PR" if q.get("clusters") else "QM"))
        label = shorten(n, 24)
        half = len(label) * 4.4   # about half the label's width (12px bold, 8.5 px a character): kept inside the picture
        lx = round(min(max(x, half + 4), width - half - 4), 1)
        shapes.append(el("text", {"x": lx, "y": y + 46, "text-anchor": "middle", "class": "qm-name"}, label))
        parts.append(el("g", {"class": "qmgr" + (" full-repository" if fr else ""), "data-qmgr": n}, *shapes))
    parts.append(_topology_legend(height - legend_h + 6))
    return _svg(width, height, "topology: queue managers, clusters and channels", "topology", *parts)


def _layout(graph) -> dict[str, tuple[float, float]]:
    """Positions in layout units: each connected component laid out by networkx's spring
    layout (fixed seed, nodes in sorted order), components side by side, largest first."""
    import networkx as nx

    placed: dict[str, tuple[float, float]] = {}
    offset = 0.0
    comps = sorted((sorted(c) for c in nx.connected_components(graph)), key=lambda c: (-len(c), c[0]))
    for comp in comps:
        if len(comp) == 1:
            local = {comp[0]: (0.0, 0.0)}
        elif len(comp) == 2:
            local = {comp[0]: (0.0, 0.0), comp[1]: (1.2, 0.0)}
        else:
            raw = nx.spring_layout(graph.subgraph(comp), seed=7, iterations=300, weight="weight",
                                   scale=0.75 * math.sqrt(len(comp)))
            local = {n: (round(float(raw[n][0]), 4), round(float(raw[n][1]), 4)) for n in comp}
        low = min(x for x, _ in local.values())
        high = max(x for x, _ in local.values())
        mid_y = (min(y for _, y in local.values()) + max(y for _, y in local.values())) / 2
        for n, (x, y) in local.items():
            placed[n] = (offset + x - low, y - mid_y)
        offset += high - low + 1.3
    return placed


def _topology_edge(ch: dict, xy: dict, both_ways: bool) -> Markup:
    a, b = str(ch["src"]), str(ch["dst"])
    kind = str(ch.get("kind", "auto"))
    status = str(ch.get("status") or "INACTIVE")
    (x0, y0), (x1, y1) = xy[a], xy[b]
    dx, dy = x1 - x0, y1 - y0
    length = math.hypot(dx, dy) or 1.0
    ux, uy = dx / length, dy / length
    shift = 5.0 if both_ways else 0.0  # the two directions side by side
    ox, oy = -uy * shift, ux * shift
    start = (x0 + ux * 32 + ox, y0 + uy * 32 + oy)
    end = (x1 - ux * 32 + ox, y1 - uy * 32 + oy)
    if kind == "hierarchy":
        colour, dash, marker, width = "#6a1b9a", None, "url(#arrow-hier)", 3
    elif kind == "manual":
        colour, dash, marker, width = STATUS_COLOUR.get(status, "#37474f"), None, "url(#arrow-dark)", 2
    else:
        colour, dash, marker, width = STATUS_COLOUR.get(status, "#9e9e9e"), "6 4", "url(#arrow-grey)", 1.5
    what = {"hierarchy": "hierarchy link (child to parent)", "manual": "manual CLUSSDR",
            "auto": "auto-defined cluster sender"}.get(kind, kind)
    label = f"{a} -> {b}: {what}" + (f" {ch['name']}" if ch.get("name") else "") + \
        (f" (cluster {ch['cluster']})" if ch.get("cluster") else "") + f", {status}"
    parts = [el("title", {}, label),
             el("line", {"x1": start[0], "y1": start[1], "x2": end[0], "y2": end[1], "stroke": colour,
                         "stroke-width": width, "stroke-dasharray": dash, "marker-end": marker})]
    if status not in ("RUNNING", "INACTIVE") or kind == "hierarchy":
        mx, my = (start[0] + end[0]) / 2 + ox * 2, (start[1] + end[1]) / 2 + oy * 2
        parts.append(el("text", {"x": mx, "y": my - 4, "text-anchor": "middle", "class": "edge-label",
                                 "fill": colour}, "parent" if kind == "hierarchy" and status in ("RUNNING", "INACTIVE")
                        else status))
    return el("g", {"class": f"channel {kind}", "data-status": status}, *parts)


def _topology_legend(top: float) -> Markup:
    """The key, in rows of three below the drawing."""
    rows = [("line", "#37474f", None, "manual CLUSSDR"), ("line", "#37474f", "6 4", "auto-defined"),
            ("line", "#6a1b9a", None, "hierarchy (to parent)"), ("ring", "#37474f", None, "full repository"),
            ("line", STATUS_COLOUR["RUNNING"], None, "RUNNING"), ("line", STATUS_COLOUR["INACTIVE"], None, "INACTIVE"),
            ("line", STATUS_COLOUR["RETRYING"], None, "RETRYING"), ("line", STATUS_COLOUR["STOPPED"], None, "STOPPED")]
    parts = [el("line", {"x1": 8, "y1": top, "x2": 432, "y2": top, "stroke": "#cfd8dc"})]
    for i, (shape, colour, dash, text) in enumerate(rows):
        x, y = 10 + 145 * (i % 3), top + 20 + 20 * (i // 3)
        if shape == "ring":
            parts.append(el("circle", {"cx": x + 10, "cy": y - 4, "r": 6, "fill": "none", "stroke": colour,
                                       "stroke-width": 2}))
        else:
            parts.append(el("line", {"x1": x, "y1": y - 4, "x2": x + 20, "y2": y - 4, "stroke": colour,
                                     "stroke-width": 2, "stroke-dasharray": dash}))
        parts.append(el("text", {"x": x + 25, "y": y, "class": "legend"}, text))
    return el("g", {"class": "legend"}, *parts)


# ------------------------------------------------------------------- sequence charts
COL, ROW, LEFT, TOP = 150.0, 34.0, 70.0, 60.0
MESSAGE_COLOUR = {"repository": "#1565c0", "proxy subscription": "#6a1b9a", "publication": "#00838f",
                  "application": "#ad1457"}


def lifeline_order(steps: Sequence[Step], messages: Sequence[Message], qmgrs: Iterable[str]) -> list[str]:
    """The queue managers of the topology, then any other seen in the trace, sorted."""
    names = list(dict.fromkeys(str(q) for q in qmgrs))
    seen = {m.src for m in messages} | {m.dst for m in messages}
    for s in steps:
        for key in ("qmgr", "src", "dst"):
            if s.event.get(key):
                seen.add(str(s.event[key]))
    return names + sorted(seen - set(names))


def sequence_chart(steps: Sequence[Step], messages: Sequence[Message], lifelines: Sequence[str], *,
                   loop_start: int | None, violated_at: int | None, label: str) -> Markup:
    """One lifeline per queue manager, a box per scenario step, an arrow per channel
    message from its send to its delivery, faults marked, the violating state and a
    lasso's cycle highlighted."""
    x_of = {q: LEFT + COL / 2 + i * COL for i, q in enumerate(lifelines)}
    width = LEFT + COL * max(len(lifelines), 1) + 20
    last = len(steps) - 1
    height = TOP + ROW * (last + 1) + 40
    bottom = height - 10  # where the lifelines end

    def y_of(n: int) -> float:
        return TOP + ROW * n + ROW / 2

    parts: list[Markup] = []
    if loop_start is not None and 0 <= loop_start <= last:
        y0, y1 = y_of(loop_start) - ROW / 2, y_of(last) + ROW / 2
        parts.append(el("g", {"class": "cycle"},
                        el("title", {}, f"the cycle: the state after step {last} is the state after step {loop_start}"),
                        el("rect", {"x": 2, "y": y0, "width": width - 4, "height": y1 - y0, "fill": "#fff3e0",
                                    "stroke": "#ef6c00", "stroke-dasharray": "5 3"}),
                        el("path", {"d": f"M{_num(LEFT - 12)},{_num(y1 - 8)} C{_num(8)},{_num(y1 - 8)} "
                                         f"{_num(8)},{_num(y0 + 8)} {_num(LEFT - 12)},{_num(y0 + 8)}",
                                    "fill": "none", "stroke": "#ef6c00", "stroke-width": 2,
                                    "marker-end": "url(#arrow-grey)"}),
                        el("text", {"x": width - 8, "y": y0 + 14, "text-anchor": "end", "class": "cycle-label"},
                           f"cycle: back to the state after step {loop_start}")))
    if violated_at is not None and 0 <= violated_at <= last:
        y = y_of(violated_at)
        height += 18  # the label goes under the chart, clear of the boxes and arrows of the row
        parts.append(el("g", {"class": "violation"},
                        el("rect", {"x": 2, "y": y - ROW / 2, "width": width - 4, "height": ROW, "fill": "#ffebee",
                                    "stroke": "#c62828"}),
                        el("text", {"x": 8, "y": height - 8, "class": "violation-label"}, f"▲ row {violated_at}: {label}")))
    for q in lifelines:
        x = x_of[q]
        parts.append(el("g", {"class": "lifeline", "data-qmgr": q},
                        el("rect", {"x": x - COL / 2 + 10, "y": 10, "width": COL - 20, "height": 28, "rx": 4,
                                    "fill": "#eceff1", "stroke": "#37474f"}),
                        el("text", {"x": x, "y": 29, "text-anchor": "middle", "class": "qm-name"}, shorten(q, 18)),
                        el("line", {"x1": x, "y1": 38, "x2": x, "y2": bottom, "stroke": "#90a4ae",
                                    "stroke-dasharray": "4 3"})))
    for s in steps:
        parts.append(_step_mark(s, x_of, y_of(s.number), width))
    sent_per: dict[tuple[int, str], int] = {}
    labels: list[Markup] = []
    for m in messages:
        k = sent_per.get((m.sent, m.src), 0)
        sent_per[(m.sent, m.src)] = k + 1
        arrow, text = _arrow(m, x_of, y_of, last, k)
        parts.append(arrow)
        labels.append(text)
    # every label over every arrow (a later arrow no longer strikes an earlier label through)
    parts.append(el("g", {"class": "msg-labels"}, *labels))
    kinds = {m.kind for m in messages if m.kind}
    if kinds:
        parts.append(_message_legend(height + 6, kinds))
        height += 22
    return _svg(width, height, label, "sequence", *parts)


def _step_mark(s: Step, x_of: dict, y: float, width: float) -> Markup:
    ev, n = s.event, s.number
    parts = [el("text", {"x": 8, "y": y + 4, "class": "step-number"}, str(n))]
    kind = ev.get("kind")
    text = s.action or "initial state"
    if n == 0:
        parts.append(el("text", {"x": LEFT, "y": y + 4, "class": "note"}, "initial state"))
    elif kind in ("step", "fault", "recover") or (not kind and not s.internal):
        cls = {"step": "step-box", "fault": "fault", "recover": "recover"}.get(kind, "step-box")
        fill = {"fault": "#ffcdd2", "recover": "#c8e6c9"}.get(kind, "#fffde7")
        where = [str(ev[k]) for k in ("qmgr", "src") if ev.get(k) and str(ev[k]) in x_of]
        if where:
            x = x_of[where[0]]
            box = (x - COL / 2 + 6, COL - 12)
        else:  # a step of the whole network (advance the clock), or an unknown event
            box = (LEFT, width - LEFT - 10)
        short = ("✖ " if kind == "fault" else "") + str(ev.get("label") or text)
        parts.append(el("rect", {"x": box[0], "y": y - 11, "width": box[1], "height": 22, "rx": 3, "fill": fill,
                                 "stroke": "#c62828" if kind == "fault" else "#8d6e63"}))
        parts.append(el("text", {"x": box[0] + 4, "y": y + 4, "class": "box-text"}, shorten(short, int(box[1] / 6.2))))
        return el("g", {"class": f"mark {cls}", "data-step": n}, el("title", {}, f"{n}: {text}"), *parts)
    return el("g", {"class": "mark", "data-step": n}, el("title", {}, f"{n}: {text}"), *parts)


def _message_marker(kind: str) -> str:
    kinds = list(MESSAGE_COLOUR)
    return f"url(#arrow-m{kinds.index(kind)})" if kind in MESSAGE_COLOUR else "url(#arrow-msg)"


def _message_legend(y: float, kinds: set[str]) -> Markup:
    parts = []
    x = LEFT
    for kind, colour in MESSAGE_COLOUR.items():
        if kind not in kinds:
            continue
        parts.append(el("line", {"x1": x, "y1": y - 4, "x2": x + 22, "y2": y - 4, "stroke": colour, "stroke-width": 2,
                                 "marker-end": _message_marker(kind)}))
        parts.append(el("text", {"x": x + 28, "y": y, "class": "legend"}, kind))
        x += 40 + 6.5 * len(kind)
    return el("g", {"class": "legend"}, *parts)


def _arrow(m: Message, x_of: dict, y_of, last: int, k: int) -> tuple[Markup, Markup]:
    """The arrow of message ``m`` and, apart, its label: at the middle of the arrow, just
    above it (arrows leaving one queue manager in one row part there), the ``k``-th of
    the same row and sender a line lower."""
    x0, x1 = x_of.get(m.src), x_of.get(m.dst)
    if x0 is None or x1 is None:
        return Markup(""), Markup("")
    y0 = y_of(m.sent) + (6 if m.sent else 0)
    cls, dash = "arrow", None
    if m.delivered is not None:
        y1, end = y_of(m.delivered), f"delivered at step {m.delivered}"
    elif m.dropped is not None:
        y1, end, cls, dash = y_of(m.dropped), f"removed at step {m.dropped} (not delivered)", "arrow dropped", "2 3"
    else:
        y1, end, cls, dash = y_of(last) + ROW / 2 + 10, "still in flight when the trace ends", "arrow in-flight", "6 4"
        x1 = x0 + (x1 - x0) * 0.6
    colour = MESSAGE_COLOUR.get(m.kind, "#1565c0")
    what = f" ({m.kind})" if m.kind else ""
    parts = [el("title", {}, f"message {m.number}{what}: {m.src} -> {m.dst}: {m.text}; sent at step {m.sent}, {end}"),
             el("line", {"class": cls, "x1": x0, "y1": y0, "x2": x1, "y2": y1, "stroke": colour,
                         "stroke-width": 1.5, "stroke-dasharray": dash, "marker-end": _message_marker(m.kind)})]
    text = shorten(m.text, 30)
    # the baseline clears the arrow under the whole label (about 6 px a character at 10 px)
    rise = abs(y1 - y0) / max(abs(x1 - x0), 1.0) * len(text) * 3.0
    label = el("text", {"x": (x0 + x1) / 2, "y": (y0 + y1) / 2 - 4 - min(rise, ROW / 2) + 11 * k,
                        "text-anchor": "middle", "class": "msg-label", "data-msg": m.number,
                        "style": f"fill:{colour}"}, text)
    if m.dropped is not None:
        parts.append(el("path", {"d": f"M{_num(x1 - 5)},{_num(y1 - 5)} l10,10 m0,-10 l-10,10", "stroke": "#c62828",
                                 "stroke-width": 2}))
    return el("g", {"class": "msg", "data-msg": m.number, "data-src": m.src, "data-dst": m.dst,
                    "data-kind": m.kind or None}, *parts), label


# ------------------------------------------------------------------------------ charts
def bar_chart(title: str, bars: Sequence[dict], *, unit: str = "", reference_name: str = "") -> Markup:
    """Horizontal bars, one per ``{"label", "value", "reference"?}``; a reference (e.g. the
    share the configured weights give) is drawn as a black tick on the same scale."""
    bars = [b for b in bars if isinstance(b, dict)]
    values = [float(b.get("value") or 0) for b in bars] + [float(b.get("reference") or 0) for b in bars]
    top = max(values + [0.0]) or 1.0
    label_w, plot_w, row = 270.0, 360.0, 24.0
    height = 34 + row * len(bars) + (22 if reference_name else 8)
    width = label_w + plot_w + 90
    parts: list[Markup] = [el("text", {"x": 4, "y": 16, "class": "chart-title"}, title)]
    for i, b in enumerate(bars):
        y = 28 + row * i
        value = float(b.get("value") or 0)
        w = plot_w * value / top
        shown = f"{int(value) if value.is_integer() else f'{value:.3g}'}{unit}"
        cells = [el("title", {}, f"{b.get('label')}: {shown}" + (
            f" ({reference_name} {float(b['reference']):.3g}{unit})" if b.get("reference") is not None else "")),
                 el("text", {"x": label_w - 6, "y": y + 14, "text-anchor": "end", "class": "bar-label"},
                    shorten(str(b.get("label")), 42)),
                 el("rect", {"class": "bar", "x": label_w, "y": y + 3, "width": max(w, 0.5), "height": row - 8,
                             "fill": PALETTE[0]}),
                 el("text", {"x": label_w + w + 6, "y": y + 14, "class": "bar-value"}, shown)]
        if b.get("reference") is not None:
            rx = label_w + plot_w * float(b["reference"]) / top
            cells.append(el("line", {"class": "reference", "x1": rx, "y1": y, "x2": rx, "y2": y + row - 2,
                                     "stroke": "#000", "stroke-width": 2.5}))
        parts.append(el("g", {"class": "bar-row"}, *cells))
    if reference_name:
        y = height - 8
        parts.append(el("line", {"x1": label_w, "y1": y - 4, "x2": label_w, "y2": y + 4, "stroke": "#000",
                                 "stroke-width": 2.5}))
        parts.append(el("text", {"x": label_w + 8, "y": y + 4, "class": "legend"}, f"= {reference_name}"))
    return _svg(width, height, title, "chart", *parts)


def column_chart(title: str, values: Sequence[int], *, x_name: str, y_name: str) -> Markup:
    """Columns for a sequence of counts (distinct states per BFS level); more than 80
    values are summed into 80 equal buckets so the chart stays small."""
    values = [int(v) for v in values]
    first = list(range(len(values)))
    if len(values) > 80:
        size = math.ceil(len(values) / 80)
        first = list(range(0, len(values), size))
        values = [sum(values[i:i + size]) for i in first]
    top = max(values + [1])
    plot_w, plot_h, left = 520.0, 110.0, 60.0
    width, height = left + plot_w + 20, plot_h + 70
    bw = plot_w / max(len(values), 1)
    parts: list[Markup] = [el("text", {"x": 4, "y": 16, "class": "chart-title"}, title),
                           el("text", {"x": left - 6, "y": 34, "text-anchor": "end", "class": "axis"}, str(top)),
                           el("text", {"x": left - 6, "y": 30 + plot_h, "text-anchor": "end", "class": "axis"}, "0"),
                           el("line", {"x1": left, "y1": 30 + plot_h, "x2": left + plot_w, "y2": 30 + plot_h,
                                       "stroke": "#37474f"})]
    for i, (start, v) in enumerate(zip(first, values)):
        h = plot_h * v / top
        parts.append(el("rect", {"class": "bar", "x": left + i * bw + 1, "y": 30 + plot_h - h,
                                 "width": max(bw - 2, 0.5), "height": h, "fill": PALETTE[0]},
                        el("title", {}, f"{x_name} {start}: {v} {y_name}")))
    parts.append(el("text", {"x": left, "y": 48 + plot_h, "class": "axis"}, f"{x_name} 0"))
    parts.append(el("text", {"x": left + plot_w, "y": 48 + plot_h, "text-anchor": "end", "class": "axis"},
                    f"{x_name} {first[-1] if first else 0}"))
    return _svg(width, height, title, "chart", *parts)
