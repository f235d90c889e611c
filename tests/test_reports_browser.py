"""HTML reports opened in a real headless Chromium (Debian's ``chromium`` and
``chromium-driver``, driven by selenium): the DOM a reader sees — verdict rows, one
lifeline per queue manager, one arrow per channel message, hostile strings as visible
text, no script, nothing loaded from anywhere — and a screenshot of each report.

A missing browser is a failure, not a skip: run ``scripts/ensure-chromium``.
Screenshots go to pytest's temporary directory, or to ``$MQCHECK_SCREENSHOTS`` when set.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from checker.cli import main

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data" / "reports"
EXAMPLES = ROOT / "examples"


@pytest.fixture(scope="module")
def browser():
    chromium, driver_path = shutil.which("chromium"), shutil.which("chromedriver")
    if chromium is None or driver_path is None:
        pytest.fail("Debian's chromium and chromium-driver are needed for the report tests: run "
                    "scripts/ensure-chromium (it installs them with apt-get)", pytrace=False)
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    options = Options()
    options.binary_location = chromium
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--window-size=1400,1000", "--disable-extensions", "--no-first-run"):
        options.add_argument(arg)
    driver = webdriver.Chrome(service=Service(driver_path), options=options)
    try:
        yield driver
    finally:
        driver.quit()  # no browser process outlives the tests


@pytest.fixture(scope="module")
def shots(tmp_path_factory) -> Path:
    where = os.environ.get("MQCHECK_SCREENSHOTS")
    path = Path(where) if where else tmp_path_factory.mktemp("screenshots")
    path.mkdir(parents=True, exist_ok=True)
    return path


def make_report(tmp_path, capsys, command: str, scenario: Path, *argv: str) -> tuple[Path, dict]:
    out = tmp_path / f"{scenario.stem}-{command}.html"
    main([command, str(scenario), "--json", "--report", str(out), *argv])
    data = json.loads(capsys.readouterr().out)
    return out, data


def open_report(browser, path: Path, shots: Path):
    from selenium.webdriver.common.by import By

    browser.get(path.as_uri())
    assert browser.find_elements(By.CSS_SELECTOR, "h1")[0].text == "mqcheck report"
    height = browser.execute_script("return document.documentElement.scrollHeight")
    browser.set_window_size(1400, min(int(height) + 40, 4000))
    shot = shots / (path.stem + ".png")
    browser.save_screenshot(str(shot))
    assert shot.stat().st_size > 10_000  # something was drawn
    browser.set_window_size(1400, 1000)
    return By


def assert_self_contained(browser) -> None:
    resources = browser.execute_script("return performance.getEntriesByType('resource').map(e => e.name)")
    assert resources == [], f"the report loaded {resources}"
    assert browser.execute_script("return document.scripts.length") == 0  # verdicts need no JavaScript


def deliveries_and_in_flight(trace: dict) -> int:
    """The number of channel messages of a trace in which none is dropped: each was
    delivered (a deliver event) or is still in flight at the end."""
    current: dict = {}
    for step in trace["steps"]:
        for key, value in step["state"].items():
            current[key] = value
    delivered = sum(1 for s in trace["steps"] if s.get("event", {}).get("kind") == "deliver")
    return delivered + sum(len(m) for m in (current.get("in_flight") or {}).values())


def test_broken_mesh_report_in_chromium(browser, shots, tmp_path, capsys):
    path, data = make_report(tmp_path, capsys, "check", EXAMPLES / "fr-mesh-broken.toml")
    By = open_report(browser, path, shots)
    assert_self_contained(browser)
    rows = browser.find_elements(By.CSS_SELECTOR, "table.verdicts tr.verdict")
    assert len(rows) == len(data["verdicts"])
    violated = browser.find_element(By.CSS_SELECTOR, 'tr.verdict[data-property="RP-FR-CONVERGENCE"]')
    assert violated.is_displayed() and "violated (trace of 6 steps)" in violated.text
    topology = browser.find_element(By.CSS_SELECTOR, "svg.topology")
    assert len(topology.find_elements(By.CSS_SELECTOR, "g.qmgr")) == 4
    assert len(topology.find_elements(By.CSS_SELECTOR, "g.qmgr.full-repository")) == 3
    assert topology.find_elements(By.CSS_SELECTOR, 'g.cluster[data-cluster="DEMO"]')
    trace = browser.find_element(By.CSS_SELECTOR, 'article.trace[data-property="RP-FR-CONVERGENCE"]')
    chart = trace.find_element(By.CSS_SELECTOR, "svg.sequence")
    lifelines = [g.get_attribute("data-qmgr") for g in chart.find_elements(By.CSS_SELECTOR, "g.lifeline")]
    assert sorted(lifelines) == ["FR1", "FR2", "FR3", "PR1"]  # one per queue manager
    arrows = chart.find_elements(By.CSS_SELECTOR, "g.msg line")
    assert len(arrows) == deliveries_and_in_flight(data["verdicts"]["RP-FR-CONVERGENCE"]["trace"]) == 5
    assert chart.find_element(By.CSS_SELECTOR, "g.violation").is_displayed()
    changes = trace.find_elements(By.CSS_SELECTOR, "li.step.violation table.changes tr")
    # the settling delivery: FR2's answer to PR1's second subscription (session 29)
    assert any("in_flight.FR2->PR1" in tr.text for tr in changes)
    trace.find_element(By.CSS_SELECTOR, "li.step.violation").screenshot(str(shots / "fr-mesh-broken-step.png"))


def test_hostile_strings_are_visible_text_in_chromium(browser, shots, tmp_path, capsys):
    path, data = make_report(tmp_path, capsys, "check", DATA / "hostile.toml")
    By = open_report(browser, path, shots)
    assert_self_contained(browser)
    assert browser.find_elements(By.TAG_NAME, "img") == []
    assert browser.find_elements(By.CSS_SELECTOR, "a[href^='http']") == []
    assert browser.execute_script("return document.title").startswith("mqcheck report")
    heading = browser.find_element(By.CSS_SELECTOR, "section.result h2").text
    assert "<script>alert('name')</script>" in heading  # shown, not run
    assert "\\u001b[31m" in heading and "\\u202e" in heading
    assert "\x1b" not in heading and "\u202e" not in heading
    body = browser.find_element(By.TAG_NAME, "body").get_attribute("textContent")
    assert "Sports/<script>alert(1)</script>/" in body and "\u202e" not in body and "\x1b" not in body
    chart = browser.find_element(By.CSS_SELECTOR, "article.trace svg.sequence")
    arrows = chart.find_elements(By.CSS_SELECTOR, "g.msg line")
    assert len(arrows) == deliveries_and_in_flight(data["verdicts"]["EXPECT"]["trace"])


def test_workload_run_report_in_chromium(browser, shots, tmp_path, capsys):
    path, data = make_report(tmp_path, capsys, "run", EXAMPLES / "wl-channel-weight.toml")
    By = open_report(browser, path, shots)
    assert_self_contained(browser)
    row = browser.find_element(By.CSS_SELECTOR, 'tr.verdict[data-property="expect-0"]')
    assert row.is_displayed() and "holds" in row.text
    bars = browser.find_elements(By.CSS_SELECTOR, "svg.chart g.bar-row")
    assert len(bars) == len(data["messages"]["app"]) == 4
    assert len(browser.find_elements(By.CSS_SELECTOR, "svg.chart line.reference")) == 4
    assert len(browser.find_elements(By.CSS_SELECTOR, "svg.topology g.qmgr")) == 5


def test_pubsub_loop_evidence_report_in_chromium(browser, shots, tmp_path, capsys):
    path, data = make_report(tmp_path, capsys, "check", EXAMPLES / "ps-republish-new.toml")
    By = open_report(browser, path, shots)
    assert_self_contained(browser)
    assert browser.find_element(By.CSS_SELECTOR, 'tr.verdict[data-property="PS-TERMINATION"]').get_attribute(
        "data-status") == "holds up to bound"
    trace = browser.find_element(By.CSS_SELECTOR, 'article.trace[data-property="PS-REPUBLISH-LOOP"]')
    assert "Evidence against PS-TERMINATION" in trace.text
    chart = trace.find_element(By.CSS_SELECTOR, "svg.sequence")
    assert len(chart.find_elements(By.CSS_SELECTOR, "g.lifeline")) == 2
    assert len(chart.find_elements(By.CSS_SELECTOR, "g.msg line")) == deliveries_and_in_flight(
        data["verdicts"]["PS-REPUBLISH-LOOP"]["trace"])
    hierarchy = browser.find_elements(By.CSS_SELECTOR, "svg.topology g.channel.hierarchy")
    assert len(hierarchy) == 1


def test_long_unbroken_names_and_topics_wrap_inside_the_page(browser, shots, tmp_path, capsys):
    """Session 36: a 300-character scenario name, a 48-character queue manager name and a
    long topic string ran off the right edge (the page scrolled sideways to 6,300 px, the
    trace's step titles and the run tables with it), and the topology cut the name of a
    queue manager at the picture's edge."""
    qm = "QM.VERY.LONG.NAME.FOR.A.QUEUE.MANAGER.0123456789"
    topic = "Prices/" + "/".join(f"Segment{i}<i>&amp;\\\"quoted\\\"" for i in range(12))
    members = "".join(
        f'[qmgrs."{name}"]\nmqsc = """\n{"ALTER QMGR REPOS(PRICES)" if fr else ""}\n'
        f"DEFINE CHANNEL(TO.{tag}) CHLTYPE(CLUSRCVR) CONNAME('{tag.lower()}(1414)') CLUSTER(PRICES)\n"
        f"DEFINE CHANNEL(TO.{to}) CHLTYPE(CLUSSDR) CONNAME('{to.lower()}(1414)') CLUSTER(PRICES)\n"
        f'{"DEFINE TOPIC(P) TOPICSTR(" + chr(39) + "Prices" + chr(39) + ") CLUSTER(PRICES)" if tag == "FR1" else ""}\n"""\n'
        for name, tag, to, fr in (("FR1", "FR1", "FR2", True), ("FR2", "FR2", "FR1", True),
                                  (qm, "PUB", "FR1", False), ("SUB", "SUB", "FR2", False)))
    scenario = tmp_path / "long.toml"
    scenario.write_text(
        f'name = "{"W" * 300}"\n{members}'
        '[[steps]]\nsubscribe = { qmgr = "SUB", name = "ALL", topic = "Prices/#" }\n'
        '[[steps]]\nwait = { until = "settled" }\n'
        f'[[steps]]\npublish = {{ qmgr = "{qm}", topic = "{topic}" }}\n'
        '[[expect]]\ndeliveries = { SUB = { ALL = ["Prices/never"] } }\n', encoding="utf-8")
    for command in ("run", "check"):
        out = tmp_path / f"long-{command}.html"
        main([command, str(scenario), "--json", "--report", str(out)])
        capsys.readouterr()
        By = open_report(browser, out, shots)
        width = browser.execute_script("return document.documentElement.clientWidth")
        assert browser.execute_script("return document.documentElement.scrollWidth") <= width, command
        topology = browser.find_element(By.CSS_SELECTOR, "svg.topology")
        box = topology.rect
        for label in topology.find_elements(By.CSS_SELECTOR, "text.qm-name"):
            r = label.rect
            assert box["x"] <= r["x"] and r["x"] + r["width"] <= box["x"] + box["width"] + 1, (command, label.text)
