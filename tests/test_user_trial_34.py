"""Session 34: a user trial as an experienced MQ administrator (docs/decisions.md,
"Session 34: user trial").

- SUSPEND QMGR CLUSTER(C) is shown in the repository views (``run``'s table, ``--json``,
  the state changes of a counterexample): a trace whose put goes to a suspended queue
  manager must show whether the putting queue manager had learnt of the SUSPEND yet
  (000 §Workload management features; 001 rule 7).
- PSMODE(DISABLED) disables a queue manager's publish/subscribe support (002 §Subscription
  performance considerations): an application's subscribe or publish there fails with
  MQRC_PUBSUB_INHIBITED, and ``prove`` covers no pair with such a queue manager.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from spec.network import MQNetwork, deliveries_of, repositories_of, run_scenario  # noqa: E402
from spec.scenario import parse_scenario  # noqa: E402


def _qmgr(name: str, *, repos: bool = False, to: str = "FR1", extra: str = "") -> str:
    lines = ["ALTER QMGR REPOS(DEMO)"] if repos else []
    lines.append(f"DEFINE CHANNEL(TO.{name}) CHLTYPE(CLUSRCVR) CONNAME('{name.lower()}(1414)') CLUSTER(DEMO)")
    lines.append(f"DEFINE CHANNEL(TO.{to}) CHLTYPE(CLUSSDR) CONNAME('{to.lower()}(1414)') CLUSTER(DEMO)")
    return f"[qmgrs.{name}]\nmqsc = '''\n" + "\n".join(lines + ([extra] if extra else [])) + "\n'''\n"


WORKQ = "DEFINE QLOCAL(WORKQ) CLUSTER(DEMO)"
SUSPEND = ('[[steps]]\nmqsc = { qmgr = "S1", commands = "SUSPEND QMGR CLUSTER(DEMO)" }\n'
           '[[steps]]\nopen = { qmgr = "APP", handle = "a", queue = "WORKQ", bind = "NOT_FIXED" }\n'
           '[[steps]]\nput = { handle = "a", count = 1 }\n')
TEXT = (_qmgr("FR1", repos=True, to="FR2") + _qmgr("FR2", repos=True) + _qmgr("APP")
        + _qmgr("S1", extra=WORKQ) + _qmgr("S2", to="FR2", extra=WORKQ))


def test_suspended_member_in_the_repository_view():
    final = run_scenario(parse_scenario(TEXT + SUSPEND, file="suspend.toml")).final
    views = repositories_of(final)
    for q in ("FR1", "FR2", "APP", "S1"):
        assert views[q]["DEMO"]["suspended"] == ["S1"], q
    assert "suspended" not in views["S2"]["DEMO"]   # S2 never subscribed to S1's records
    resumed = TEXT + SUSPEND + '[[steps]]\nmqsc = { qmgr = "S1", commands = "RESUME QMGR CLUSTER(DEMO)" }\n'
    views = repositories_of(run_scenario(parse_scenario(resumed, file="resume.toml")).final)
    assert all("suspended" not in v["DEMO"] for v in views.values())   # the view is unchanged without SUSPEND


def test_counterexample_state_changes_show_the_suspend_arriving():
    scenario = parse_scenario(TEXT + SUSPEND, file="suspend.toml")
    net = MQNetwork(scenario)
    before = net.describe_state(run_scenario(parse_scenario(TEXT, file="plain.toml")).final)
    after = net.describe_state(run_scenario(scenario).final)
    assert "suspended" not in before["repositories"]["APP"]["DEMO"]
    assert after["repositories"]["APP"]["DEMO"]["suspended"] == ["S1"]


def test_run_table_and_json_mark_the_suspended_member(tmp_path):
    path = tmp_path / "suspend.toml"
    path.write_text('name = "suspend"\n' + TEXT + SUSPEND)
    cmd = [sys.executable, "-m", "checker.cli", "run", str(path)]
    text = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, check=True).stdout
    app = next(line for line in text.splitlines() if line.startswith("APP "))
    assert "S1 (suspended)" in app and "S2 (suspended)" not in app
    data = json.loads(subprocess.run(cmd + ["--json"], cwd=ROOT, capture_output=True, text=True, check=True).stdout)
    assert data["repositories"]["APP"]["DEMO"]["suspended"] == ["S1"]


def test_html_report_marks_the_suspended_member():
    from reports.render import _run_view
    view = _run_view({"command": "run", "repositories": {
        "APP": {"DEMO": {"qmgrs": ["APP", "S1", "S2"], "queues": {}, "topics": [], "suspended": ["S1"]}},
        "S2": {"DEMO": {"qmgrs": ["S2"], "queues": {}, "topics": []}}}})
    rows = {r["qmgr"]: r["qmgrs"] for r in view["repositories"]}
    assert rows == {"APP": "APP, S1 (suspended), S2", "S2": "S2"}


PSMODE_TEXT = """
[qmgrs.QM2]
mqsc = '''
ALTER QMGR PSMODE({mode})
DEFINE QLOCAL(SQ)
DEFINE SUB(ADMIN) TOPICSTR('a/#') DEST(SQ)
'''
[[steps]]
subscribe = {{ qmgr = "QM2", name = "S", topic = "a/#" }}
[[steps]]
publish = {{ qmgr = "QM2", topic = "a/b" }}
"""


def test_psmode_disabled_inhibits_publish_and_subscribe():
    report = run_scenario(parse_scenario(PSMODE_TEXT.format(mode="DISABLED"), file="psmode.toml"))
    assert [(e.qmgr, e.code, e.step) for e in report.final.log] == [
        ("QM2", "MQRC_PUBSUB_INHIBITED", 0), ("QM2", "MQRC_PUBSUB_INHIBITED", 1)]
    assert deliveries_of(report.final) == {"QM2": {"ADMIN": []}}


def test_psmode_compat_keeps_the_api():
    report = run_scenario(parse_scenario(PSMODE_TEXT.format(mode="COMPAT"), file="psmode.toml"))
    assert report.final.log == ()
    assert deliveries_of(report.final) == {"QM2": {"ADMIN": ["a/b"], "S": ["a/b"]}}


def test_prove_covers_no_pair_with_a_psmode_disabled_queue_manager():
    from spec.symbolic.scenario import configuration, route
    text = PSMODE_TEXT.format(mode="DISABLED") + '[qmgrs.QM1]\n[qmgrs.QM3]\nmqsc = "ALTER QMGR PARENT(QM1)"\n'
    config = configuration(run_scenario(parse_scenario(text, file="psmode.toml")).final)
    assert not route(config, "QM2", "QM2").covered and "PSMODE(DISABLED)" in route(config, "QM2", "QM2").reason
    assert not route(config, "QM1", "QM2").covered
    assert route(config, "QM1", "QM1").covered and route(config, "QM3", "QM1").covered


def test_a_malformed_suspended_list_is_bad_input_not_a_traceback(tmp_path):
    data = {"command": "run", "deliveries": {}, "repositories": {"APP": {"DEMO": {"qmgrs": ["APP"], "suspended": 5}}}}
    path = tmp_path / "run.json"
    path.write_text(json.dumps(data))
    done = subprocess.run([sys.executable, "-m", "checker.cli", "report", str(path), "--out", str(tmp_path / "r.html")],
                          cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert "repositories.APP.DEMO.suspended: expected an array" in done.stderr


def test_identical_cluster_topic_hosts_are_told_what_000_recommends():
    """000 §Cluster Topic Hosts recommends defining each cluster topic identically on two
    highly available queue managers; 002 §Multiple cluster topic definitions advises one
    host. TOPIC-CONFLICT stays a warning (002 wins for publish/subscribe) but no longer
    says the choice of definition matters while the two are identical, and its fix names
    000's alternative."""
    from checker import lint
    from properties.lint import RULES, config_of_scenario
    topic = "DEFINE TOPIC(SPORTS) TOPICSTR('/global/sports') CLUSTER(DEMO)"
    text = _qmgr("FR1", repos=True, to="FR2", extra=topic) + _qmgr("FR2", repos=True, extra=topic)
    report = lint.run_rules([(config_of_scenario(parse_scenario(text, file="t.toml")), {})], RULES)
    [hit] = [f for f in report.findings if f.rule == "TOPIC-CONFLICT"]
    assert hit.severity.name == "WARNING"
    assert "(identically): no difference today" in hit.message and "depends on arrival order" not in hit.message
    assert "000 §Cluster Topic Hosts" in hit.fix
