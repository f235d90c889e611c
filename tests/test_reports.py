"""HTML reports (issue #15) without a browser: escaping, determinism, the golden file,
size budgets, the data contract (docs/report-data.md), the CLI options and bad input.
tests/test_reports_browser.py opens reports in a real headless Chromium."""

from __future__ import annotations

import json
import re
import os
import subprocess
import sys
from pathlib import Path

import pytest

import reports
from checker.cli import main
from reports.text import visible
from reports.trace import messages, states

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data" / "reports"
EXAMPLES = ROOT / "examples"
GOLDEN_JSON = DATA / "fr-mesh-broken.json"
GOLDEN_HTML = DATA / "fr-mesh-broken.golden.html"
# Regenerate both (after a deliberate change to the report or to check's JSON):
#   python -m checker.cli check examples/fr-mesh-broken.toml --property RP-FR-CONVERGENCE --json --quiet \
#       > tests/data/reports/fr-mesh-broken.json
#   python -m checker.cli report tests/data/reports/fr-mesh-broken.json --out tests/data/reports/fr-mesh-broken.golden.html


def check_json(capsys, path, *argv: str) -> tuple[int, dict]:
    code = main(["check", str(path), "--json", "--quiet", *argv])
    return code, json.loads(capsys.readouterr().out)


def no_hidden_characters(text: str) -> bool:
    return all(ch.isprintable() or ch == "\n" for ch in text)


# =============================================================== making user text visible
@pytest.mark.parametrize("raw, shown", [
    ("Sports/Rugby", "Sports/Rugby"),
    ("\x1b[31mred", "\\u001b[31mred"),           # an ANSI escape starts with ESC
    ("\x9b31m", "\\u009b31m"),                   # ... or with the C1 CSI
    ("abc\u202edef", "abc\\u202edef"),           # RIGHT-TO-LEFT OVERRIDE
    ("a\u2066b\u2069", "a\\u2066b\\u2069"),      # bidi isolates
    ("line\u2028sep", "line\\u2028sep"),         # LINE SEPARATOR
    ("tab\there", "tab\\u0009here"),
    ("é 漢字 <b>", "é 漢字 <b>"),                  # printable text stays (markup is escaped later)
])
def test_visible_shows_every_hidden_character(raw, shown):
    assert visible(raw) == shown


def test_hostile_strings_render_as_visible_text(tmp_path, capsys):
    out = tmp_path / "hostile.html"
    code = main(["check", str(DATA / "hostile.toml"), "--quiet", "--report", str(out)])
    capsys.readouterr()
    assert code == 1  # the scenario's expectation fails on purpose
    html = out.read_text(encoding="utf-8")
    assert "<script" not in html and "<img" not in html and "<a href='https" not in html
    assert no_hidden_characters(html)  # no raw ESC, CSI, bidi override
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "\\u001b[31m" in html or "\\x1b[31m" in html
    assert "\\u202e" in html
    assert "http://" not in html and "https://example.com" in html  # only as escaped text


def test_hostile_strings_in_a_run_report(tmp_path, capsys):
    out = tmp_path / "hostile-run.html"
    assert main(["run", str(DATA / "hostile.toml"), "--report", str(out)]) == 1
    capsys.readouterr()
    html = out.read_text(encoding="utf-8")
    assert "<script" not in html and no_hidden_characters(html)
    assert '<div class="topic">Sports/&lt;script&gt;alert(1)&lt;/script&gt;/\\u001b[31mred\\u202eevil</div>' in html


# ============================================================== determinism and golden file
def test_golden_report_bytes():
    data = json.loads(GOLDEN_JSON.read_text(encoding="utf-8"))
    assert reports.render([data]).encode("utf-8") == GOLDEN_HTML.read_bytes(), (
        "the report of tests/data/reports/fr-mesh-broken.json changed; if on purpose, regenerate it "
        "with the commands at the top of tests/test_reports.py")


def test_golden_input_is_what_check_says_today(capsys, monkeypatch):
    """The saved JSON is check's output (timings aside): same verdicts, topology and trace
    with its events — so the golden file pins what users get."""
    monkeypatch.chdir(ROOT)
    code, live = check_json(capsys, "examples/fr-mesh-broken.toml", "--property", "RP-FR-CONVERGENCE")
    saved = json.loads(GOLDEN_JSON.read_text(encoding="utf-8"))
    assert code == 1
    for data in (live, saved):
        for key in ("seconds", "states_per_second"):
            data["statistics"].pop(key)
    assert live == saved


def test_report_bytes_identical_under_two_hash_seeds(tmp_path):
    outs = []
    for seed in ("0", "12345"):
        out = tmp_path / f"r{seed}.html"
        env = {**os.environ, "PYTHONHASHSEED": seed}
        proc = subprocess.run([sys.executable, "-m", "checker.cli", "report", str(GOLDEN_JSON), str(DATA / "run.json"),
                               "--out", str(out)], capture_output=True, text=True, cwd=ROOT, env=env, check=False)
        assert proc.returncode == 0, proc.stderr
        outs.append(out.read_bytes())
    assert outs[0] == outs[1]


# =================================================================== sizes and contents
def test_a_31_step_counterexample_stays_far_under_1_mb(tmp_path, capsys):
    out = tmp_path / "long.html"
    code, data = check_json(capsys, DATA / "long-trace.toml", "--property", "EXPECT", "--report", str(out))
    assert code == 1
    assert len(data["verdicts"]["EXPECT"]["trace"]["steps"]) - 1 >= 30
    assert out.stat().st_size < 1_000_000
    steps = data["verdicts"]["EXPECT"]["trace"]["steps"]
    delivered = sum(1 for s in steps if s.get("event", {}).get("kind") == "deliver")
    assert delivered == 15  # the 15 publications, sent and delivered
    assert out.read_text(encoding="utf-8").count('<g class="msg"') == delivered


def test_state_counts_do_not_grow_the_report():
    data = json.loads(GOLDEN_JSON.read_text(encoding="utf-8"))
    small = len(reports.render([data]))
    data["statistics"].update(distinct_states=10**6, generated_states=4 * 10**6,
                              levels=[1000] * 1000)  # a million states over 1000 BFS levels
    big = len(reports.render([data]))
    assert big - small < 10_000  # the levels chart is bucketed; no per-state data


def test_check_report_shows_verdicts_topology_trace_and_replay(tmp_path, capsys):
    data = json.loads(GOLDEN_JSON.read_text(encoding="utf-8"))
    html = reports.render([data])
    assert html.count('class="verdict ') == len(data["verdicts"])
    assert 'data-property="RP-FR-CONVERGENCE" data-status="violated"' in html
    assert html.count('<g class="lifeline"') == len(data["topology"]["qmgrs"]) == 4
    assert 'class="qmgr full-repository" data-qmgr="FR3"' in html
    assert 'class="channel manual"' in html and 'class="channel auto"' in html
    assert "mqcheck check examples/fr-mesh-broken.toml --property RP-FR-CONVERGENCE" in html
    assert 'class="violation"' in html and "violated here" in html
    assert "distinct states per BFS level" in html


def test_message_arrows_follow_the_fifo_channels():
    data = json.loads(GOLDEN_JSON.read_text(encoding="utf-8"))
    found = messages(states(data["verdicts"]["RP-FR-CONVERGENCE"]["trace"]))
    assert [(m.src, m.dst, m.sent, m.delivered) for m in found] == [
        ("PR1", "FR1", 1, 2),     # the join
        ("FR1", "FR2", 2, 3),     # FR1 forwards PR1's record to FR2 only
        ("FR1", "PR1", 2, 4),     # FR1's reply
        ("PR1", "FR2", 4, 5),     # PR1 subscribes for the full repositories' records at a second one
        ("FR2", "PR1", 5, 6),     # FR2's reply (session 29)
    ]


def test_deliveries_are_inferred_without_events():
    data = json.loads(GOLDEN_JSON.read_text(encoding="utf-8"))
    trace = data["verdicts"]["RP-FR-CONVERGENCE"]["trace"]
    with_events = [(m.src, m.dst, m.sent, m.delivered) for m in messages(states(trace))]
    for step in trace["steps"]:
        step.pop("event", None)
    assert [(m.src, m.dst, m.sent, m.delivered) for m in messages(states(trace))] == with_events


def test_a_lasso_is_drawn_with_its_cycle():
    trace = {"steps": [
        {"action": None, "state": {"in_flight": {}}},
        {"action": "steps[0] publish", "state": {"in_flight": {"A->B": ["p1"]}}, "internal": False},
        {"action": "ChannelDeliver(A->B)", "state": {"in_flight": {"B->A": ["p2"]}}, "internal": True},
        {"action": "ChannelDeliver(B->A)", "state": {"in_flight": {"A->B": ["p1"]}}, "internal": True},
    ], "loop_start": 1}
    data = {"command": "check", "scenario": "loop", "statistics": {"complete": True},
            "verdicts": {"T": {"kind": "eventually", "status": "violated", "title": "terminates", "trace": trace}},
            "topology": {"qmgrs": [{"name": "A"}, {"name": "B"}]}}
    html = reports.render([data])
    assert "lasso: 1-step prefix, 2-step cycle" in html
    assert 'class="cycle"' in html and "cycle: back to the state after step 1" in html
    assert html.count('class="arrow"') == 2 and html.count('class="arrow in-flight"') == 1


def test_run_report_has_expectations_deliveries_and_weights(tmp_path, capsys):
    out = tmp_path / "wl.html"
    assert main(["run", str(EXAMPLES / "wl-channel-weight.toml"), "--report", str(out)]) == 0
    capsys.readouterr()
    html = out.read_text(encoding="utf-8")
    assert 'data-property="expect-0" data-status="ok"' in html
    assert "app: messages per queue manager (DEMOQ opened at QMAPP, 100 messages)" in html
    assert "SERVER2 (TO.SERVER2, CLWLWGHT 50): 50%" in html and "share the configured weights give 50%" in html


def test_run_explain_lists_the_workload_choices(tmp_path, capsys):
    out = tmp_path / "explain.html"
    assert main(["run", str(EXAMPLES / "wl-failed-server.toml"), "--explain", "--report", str(out)]) == 0
    capsys.readouterr()
    html = out.read_text(encoding="utf-8")
    assert "workload choices (" in html and "rule 3 (channel CLWLRANK)" in html


def test_faults_are_marked_in_the_chart():
    trace = {"steps": [
        {"action": None, "state": {"in_flight": {"A->B": ["m1"]}}},
        {"action": "ChannelFail(A->B)", "state": {"channels": {"A->B": "RETRYING"}}, "internal": False,
         "event": {"kind": "fault", "src": "A", "dst": "B", "label": "channel A->B RETRYING"}},
        {"action": "QmgrStop(B)", "state": {"stopped": ["B"]}, "internal": False,
         "event": {"kind": "fault", "qmgr": "B", "label": "B stops"}},
    ]}
    data = {"command": "check", "verdicts": {"P": {"kind": "always", "status": "violated", "trace": trace}},
            "topology": {"qmgrs": [{"name": "A"}, {"name": "B"}]}}
    html = reports.render([data])
    assert html.count('class="mark fault"') == 2 and "✖ channel A-&gt;B" in html and "✖ B stops" in html
    assert html.count('class="arrow in-flight"') == 1  # m1 never left


# ==================================================================== the data contract
def test_unknown_commands_render_generically():
    data = {"command": "frobnicate", "scenario": "x", "answer": 42,
            "verdicts": {"P1": {"kind": "config", "status": "proved", "title": "t", "seconds": 1.5}},
            "details": {"a": [1, 2]}}
    html = reports.render([data])
    assert "No dedicated view for the command" in html
    assert 'data-property="P1" data-status="proved"' in html
    assert "seconds per claim" in html and "&#34;details&#34;" in html


def test_prove_and_fuzz_sections_plug_in():
    prove = {"command": "prove", "scenario": "", "verdicts": {
        "PS-X": {"kind": "config", "status": "proved", "title": "a claim", "citation": "002 §Topics",
                 "quote": "a sentence", "seconds": 0.4},
        "PS-Y": {"kind": "config", "status": "unknown", "title": "another", "note": "timeout", "seconds": 2.0}}}
    fuzz = {"command": "fuzz", "examples": 100, "coverage": {"PS-REMOTE-DELIVERY": 37, "PS-LOOP": 0},
            "charts": [{"title": "examples per topology", "bars": [{"label": "hierarchy", "value": 60}]}]}
    html = reports.render([prove, fuzz])
    assert html.count('<section class="result') == 2
    assert "witness coverage" in html and "examples per topology" in html and "<blockquote>a sentence" in html
    assert 'class="badge partial">unknown' in html


def test_prove_with_a_scenario_shows_its_reachability_tables():
    # the table `mqcheck prove SCENARIO` prints, grouped by pairs with the same rows
    row = {"topics": "Sports/#", "any": "yes", "wildcard": "no", "wildcard_pulled": "n/a"}
    reach = {"bound": 2, "level_names": ["Sports", ""], "seconds": 0.1, "pairs": [
        {"publisher": "QMA", "subscriber": "QMB", "linked": True, "rows": [row]},
        {"publisher": "QMB", "subscriber": "QMA", "linked": True, "rows": [row]},
        {"publisher": "QMA", "subscriber": "QMC", "linked": False, "rows": []}]}
    claim = {"id": "prove[0]", "title": "possible", "verdict": "proved", "counterexample_path": "w.toml"}
    html = reports.render([{"command": "prove", "scenario": "s.toml", "claims": [claim], "reachability": reach}])
    assert "<h3>Reachability: QMA -&gt; QMB, QMB -&gt; QMA</h3>" in html
    assert "<tr><td>Sports/#</td><td>yes</td><td>no</td><td>n/a</td></tr>" in html
    assert "QMA -&gt; QMC</h3>" in html and "not publish/subscribe neighbours" in html
    assert "witness: w.toml" in html  # a possible claim's witness is not a counterexample
    with pytest.raises(reports.ReportDataError, match="reachability.pairs"):
        reports.render([{"command": "prove", "claims": [], "reachability": {"pairs": {"a": 1}}}])


def test_a_vacuous_claim_is_flagged_not_plainly_proved():
    """`mqcheck prove --json` marks a claim over no topic string within the bound "vacuous";
    the report showed it as a plain green "proved"."""
    claims = [{"id": "prove[0]", "title": "t", "verdict": "proved", "bound": 1, "bound_unit": "topic level",
               "vacuous": True, "reason": "no topic string within the bound matches 'a/b'; raise --bound to 2"},
              {"id": "prove[1]", "title": "u", "verdict": "proved", "bound": 1, "vacuous": False}]
    html = reports.render([{"command": "prove", "scenario": "s.toml", "claims": claims}])
    assert 'data-property="prove[0]" data-status="proved"' in html
    assert "proved (bound 1 topic level) — VACUOUS" in html and "raise --bound to 2" in html
    assert html.count("VACUOUS") == 1 and "proved (vacuous)" in html
    with pytest.raises(reports.ReportDataError, match="vacuous"):
        reports.render([{"command": "prove", "claims": [dict(claims[0], vacuous="no")]}])


def test_prove_and_fuzz_json_as_their_commands_print_it():
    """tests/data/reports/prove.json and fuzz.json: `mqcheck prove --json --bound 2` and
    `mqcheck fuzz --json --examples 8 --seed 1` as the issue #13/#14 branches printed them."""
    prove = json.loads((DATA / "prove.json").read_text(encoding="utf-8"))
    fuzz = json.loads((DATA / "fuzz.json").read_text(encoding="utf-8"))
    html = reports.render([prove, fuzz])
    assert "No dedicated view" not in html
    for claim in prove["claims"]:
        assert f'data-property="{claim["id"]}" data-status="{claim["verdict"]}"' in html
    assert "CPU seconds per claim" in html
    assert html.count('class="verdict ') == len(prove["claims"]) + len(fuzz["properties"])
    assert 'data-property="RP-PR-CONVERGENCE" data-status="violated (excused)"' in html
    assert "witness coverage: examples in which each property was exercised" in html


def test_an_incomplete_fuzz_run_says_so_first_and_escaped():
    """`mqcheck fuzz --timeout` (session 29): the summary's first row says the run was
    incomplete and why, as check's does; results of older versions (no "complete") do not
    get the row; a stop reason is text, never markup."""
    fuzz = json.loads((DATA / "fuzz.json").read_text(encoding="utf-8"))
    assert "complete" not in fuzz and "<th>fuzzing</th>" not in reports.render([fuzz])
    stopped = dict(fuzz, complete=False, stop_reason="timeout (2 s)")
    html = reports.render([stopped])
    assert ("<tr><th>fuzzing</th><td>INCOMPLETE (timeout (2 s)): no pass — the examples run before it stopped "
            "are counted below</td>") in html
    assert "<tr><th>fuzzing</th><td>complete</td>" in reports.render([dict(fuzz, complete=True)])
    html = reports.render([dict(stopped, stop_reason="<b>x</b>")])
    assert "<b>x</b>" not in html and "&lt;b&gt;x&lt;/b&gt;" in html
    with pytest.raises(reports.ReportDataError, match="complete: expected true or false"):
        reports.render([dict(fuzz, complete="no")])


def test_old_results_without_a_command_are_recognised():
    data = json.loads(GOLDEN_JSON.read_text(encoding="utf-8"))
    del data["command"]
    assert reports.infer_command(data) == "check"
    assert reports.infer_command({"deliveries": {}}) == "run"
    with pytest.raises(reports.ReportDataError):
        reports.infer_command({"something": 1})


# ======================================================================= command line
def test_report_command_combines_saved_results(tmp_path, capsys):
    out = tmp_path / "both.html"
    assert main(["report", str(GOLDEN_JSON), str(DATA / "run.json"), "--out", str(out)]) == 0
    assert "report written to" in capsys.readouterr().err
    html = out.read_text(encoding="utf-8")
    assert '<nav><ol>' in html and html.count('<section class="result') == 2
    # ids are unique in a document: the arrow heads are defined once per page, not per diagram
    ids = re.findall(r'\bid="([^"]+)"', html)
    assert ids and len(ids) == len(set(ids)), sorted(i for i in ids if ids.count(i) > 1)
    assert html.count("url(#arrow-") > 1 and html.count('id="arrow-dark"') == 1


@pytest.mark.parametrize("content, expected", [
    ('{"command": "check",\n  oops}', "bad.json:2:3: not JSON"),
    ("[1, 2]", "bad.json: expected a JSON object"),
    ('{"x": 1}', 'bad.json: no "command" field'),
    (b"\xff\xfe", "bad.json:1:1: not UTF-8 text: UTF-16 (the file starts with the byte-order mark 0xff 0xfe)"),
])
def test_report_bad_input_is_one_line_exit_2(tmp_path, capsys, content, expected):
    path = tmp_path / "bad.json"
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    code = main(["report", str(path), "--out", str(tmp_path / "x.html")])
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1 and expected in err and "Traceback" not in err
    assert not (tmp_path / "x.html").exists()


def test_unwritable_report_path_is_exit_2(tmp_path, capsys):
    code = main(["run", str(EXAMPLES / "sports-qma.toml"), "--report", str(tmp_path / "missing" / "r.html")])
    err = capsys.readouterr().err
    assert code == 2 and "cannot write the report" in err and err.count("\n") == 1


# ===================================================================== every example
EXAMPLE_FILES = sorted(p.name for p in EXAMPLES.glob("*.toml"))


@pytest.mark.parametrize("example", EXAMPLE_FILES)
def test_every_example_reports(example, capsys):
    """run and check (at a small bound: the report, not the exploration, is under test)
    of each example render one report, without hidden characters."""
    assert main(["run", str(EXAMPLES / example), "--json"]) in (0, 1)
    run = json.loads(capsys.readouterr().out)
    code, check = check_json(capsys, EXAMPLES / example, "--max-states", "40", "--workers", "1")
    assert code in (0, 1, 3)
    html = reports.render([run, check])
    assert html.count('<section class="result') == 2
    assert html.count('class="verdict ') == len(check["verdicts"]) + len(run["expectations"])
    assert no_hidden_characters(html) and "<script" not in html


def test_reports_doctests():
    import doctest

    import reports.pairs
    import reports.text
    import reports.trace
    import reports.unexercised

    for module in (reports.pairs, reports.text, reports.trace, reports.unexercised):
        failed, tried = doctest.testmod(module)
        assert tried > 0 and failed == 0


def test_states_per_level_are_recorded_by_both_engines(tmp_path):
    """Statistics.levels (the report's BFS chart): new distinct states per level, the same
    from the local engine and from the Spark backend's driver levels, resumed or not."""
    from checker.explore import explore
    from checker.spark import explore_spark
    from checker.test_util import BoundedCounters, DoubleOrIncrement

    for model in (BoundedCounters(3), DoubleOrIncrement()):
        local = explore(model, workers=1).statistics
        assert sum(local.levels) == local.distinct_states and len(local.levels) == local.max_depth + 1
        assert explore_spark(model, spark=None, driver_threshold=10**9).statistics.levels == local.levels
    model = DoubleOrIncrement()
    explore_spark(model, spark=None, driver_threshold=10**9, max_depth=3, run_dir=str(tmp_path))
    # resumed without a bound, a run keeps the bound it was started with; a larger bound
    # given on resume takes it further (checker/spark.py, _resume_bounds)
    kept = explore_spark(model, spark=None, driver_threshold=10**9, run_dir=str(tmp_path), resume=True)
    assert kept.statistics.levels == explore(model, workers=1, max_depth=3).statistics.levels
    resumed = explore_spark(model, spark=None, driver_threshold=10**9, run_dir=str(tmp_path), resume=True,
                            max_depth=10**6)
    assert resumed.statistics.levels == explore(model, workers=1).statistics.levels


# ------------------------------------------------------- prove and fuzz write their reports too
def test_prove_writes_its_report(tmp_path, capsys):
    out = tmp_path / "prove.html"
    assert main(["prove", "PS-CFG-LOOP-BOUND", "--bound", "3", "--report", str(out)]) == 0
    html = out.read_text()
    assert "PS-CFG-LOOP-BOUND" in html and "proved" in html and "<script" not in html
    assert '<span class="command">prove</span> 1 catalogue claim</h2>' in html  # a title, not an empty one


def test_fuzz_writes_its_report(tmp_path, capsys):
    out = tmp_path / "fuzz.html"
    assert main(["fuzz", "--examples", "3", "--seed", "1", "--no-database", "--out", str(tmp_path / "cx"),
                 "--report", str(out)]) == 0
    html = out.read_text()
    assert "fuzz" in html and "witness" in html.lower() and "<script" not in html
    assert '<span class="command">fuzz</span> mode configs, seed 1, examples 3</h2>' in html


def test_families_a_check_never_exercised_are_grouped_flagged_and_escaped():
    # session 33: the report had the table's problem, one row per vacuous PS-/BD- verdict
    vac = {"kind": "always", "status": "holds", "vacuous": True, "witness": "PS-<b>SEEN</b>", "distinct_states": 3}
    verdicts = {"RP-OK": {"kind": "always", "status": "holds", "distinct_states": 3},
                "PS-<script>alert(1)</script>": vac,
                "PS-<b>SEEN</b>": {"kind": "sometimes", "status": "never reached", "distinct_states": 3},
                "PS-\u202eEVIL": dict(vac, witness="PS-<b>SEEN</b>")}
    data = {"command": "check", "model": "m", "backend": "local",
            "statistics": {"complete": True, "distinct_states": 3}, "verdicts": verdicts}
    html = reports.render([data])
    assert "<script>alert" not in html and "<b>SEEN" not in html and "\u202e" not in html
    assert html.count('class="verdict ') == len(verdicts)   # every verdict keeps its row, folded away
    lines = html[html.index('<ul class="unexercised">'):html.index('<details class="unexercised">')]
    assert ('<span class="badge warn">VACUOUS</span> PS: 2 held only vacuously: '
            'PS-&lt;script&gt;alert(1)&lt;/script&gt;, PS-\\u202eEVIL') in lines
    assert '<span class="badge warn">never reached</span> PS: 1 sometimes property: PS-&lt;b&gt;SEEN&lt;/b&gt;' in lines
    main_table = html[:html.index('<p class="unexercised">')]
    assert 'data-property="RP-OK"' in main_table and 'data-property="PS-' not in main_table
    # a witness reached: the family is exercised, row by row as before
    verdicts["PS-<b>SEEN</b>"] = {"kind": "sometimes", "status": "witnessed"}
    assert 'class="unexercised"' not in reports.render([data])
