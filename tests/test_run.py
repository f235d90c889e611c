"""`mqcheck run` end to end: bundled examples, 002's single-queue-manager worked examples
written as scenarios, JSON keys and exit statuses (DESIGN §2.3), and bad input."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from checker.cli import main
from spec.scenario import parse_scenario
from spec.system import MQNetwork, run_scenario

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"


def run_json(capsys, path) -> tuple[int, dict]:
    code = main(["run", str(path), "--json"])
    return code, json.loads(capsys.readouterr().out)


def scenario(text: str):
    return parse_scenario(textwrap.dedent(text), "test.toml")


# ---------------------------------------------------------------------------------------
# Bundled examples
# ---------------------------------------------------------------------------------------
def test_sports_qma_prints_the_002_table(capsys):
    code, data = run_json(capsys, EXAMPLES / "sports-qma.toml")
    assert code == 0
    assert set(data) >= {"scenario", "deliveries", "errors", "expectations"}
    # 002 §Controlling wildcard usage with the WILDCARD property, "Publications received on QMA"
    assert data["deliveries"] == {
        "QMA": {
            "SPORTS": ["Sports", "Sports/Rugby", "Sports/Rugby/Leeds"],
            "SARSENAL": [],
            "SLEEDS": ["Sports/Rugby/Leeds"],
            "FARSENAL": ["Sports/Football/Arsenal"],
            "FLEEDS": ["Sports/Rugby/Leeds"],
        }
    }
    assert data["errors"] == []
    assert data["expectations"] == [{"index": 0, "ok": True}]


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("*.toml")), ids=lambda p: p.name)
def test_every_example_runs_and_its_expectations_hold(capsys, path):
    code, data = run_json(capsys, path)
    assert code == 0, data["expectations"]
    assert data["expectations"] and all(e["ok"] for e in data["expectations"])


def test_table_output(capsys):
    assert main(["run", str(EXAMPLES / "sports-qma.toml")]) == 0
    out = capsys.readouterr().out
    assert "SARSENAL" in out and "Sports/#/Arsenal (topic)" in out
    assert "Expectations: 1 of 1 hold" in out


# ---------------------------------------------------------------------------------------
# 002 single-queue-manager examples as scenarios
# ---------------------------------------------------------------------------------------
def test_topicobj_concatenation_table():
    # 002 §Constructing topic names, "Topic string concatenation examples", via TOPICOBJ
    report = run_scenario(scenario("""
        name = "concatenation"
        [qmgrs.QM1]
        mqsc = '''
        DEFINE TOPIC(SCORES) TOPICSTR('Football/Scores')
        DEFINE TOPIC(FOOTBALL) TOPICSTR('Football')
        DEFINE TOPIC(ROOTED) TOPICSTR('/Football')
        '''
        [[steps]]
        subscribe = { qmgr = "QM1", name = "ALONE", topicobj = "SCORES" }
        [[steps]]
        subscribe = { qmgr = "QM1", name = "ADDED", topicobj = "FOOTBALL", topic = "Scores" }
        [[steps]]
        subscribe = { qmgr = "QM1", name = "EMPTYNODE", topicobj = "FOOTBALL", topic = "/Scores" }
        [[steps]]
        subscribe = { qmgr = "QM1", name = "LEADING", topicobj = "ROOTED", topic = "Scores" }
        [[steps]]
        publish = { qmgr = "QM1", topic = "Football/Scores" }
        [[steps]]
        publish = { qmgr = "QM1", topicobj = "FOOTBALL", topic = "/Scores" }
        [[steps]]
        publish = { qmgr = "QM1", topic = "/Football/Scores" }
    """))
    subs = {s.name: s.topic for s in report.final.qmgr("QM1").pubsub.subscriptions}
    assert subs == {"ALONE": "Football/Scores", "ADDED": "Football/Scores",
                    "EMPTYNODE": "Football//Scores", "LEADING": "/Football/Scores"}
    got = report.to_json()["deliveries"]["QM1"]
    assert got == {"ALONE": ["Football/Scores"], "ADDED": ["Football/Scores"],
                   "EMPTYNODE": ["Football//Scores"], "LEADING": ["/Football/Scores"]}


def test_wildcard_alter_does_not_affect_existing_subscriptions():
    # 002 §Controlling wildcard usage: "If you alter this attribute, the set of topics
    # covered by existing subscriptions is not affected by the modification"
    report = run_scenario(scenario("""
        name = "alter wildcard"
        [qmgrs.QM1]
        mqsc = '''
        DEFINE TOPIC(FOOTBALL) TOPICSTR('Sports/Football')
        DEFINE SUB(BEFORE) TOPICSTR('Sports/#') DEST(Q1)
        '''
        [[steps]]
        mqsc = { qmgr = "QM1", commands = "ALTER TOPIC(FOOTBALL) WILDCARD(BLOCK)" }
        [[steps]]
        mqsc = { qmgr = "QM1", commands = "DEFINE SUB(AFTER) TOPICSTR('Sports/#') DEST(Q1)" }
        [[steps]]
        publish = { qmgr = "QM1", topic = "Sports/Football/Arsenal" }
    """))
    assert report.to_json()["deliveries"]["QM1"] == {"BEFORE": ["Sports/Football/Arsenal"], "AFTER": []}


def test_char_scheme_subscription_defined_in_mqsc():
    report = run_scenario(scenario("""
        name = "char scheme"
        [qmgrs.QM1]
        mqsc = "DEFINE SUB(WARE) TOPICSTR('IBM/*ware/Results') WSCHEMA(CHAR) DEST(Q1)"
        [[steps]]
        publish = { qmgr = "QM1", topic = "IBM/Software/Results" }
        [[steps]]
        publish = { qmgr = "QM1", topic = "IBM/Services/Results" }
        [[steps]]
        publish = { qmgr = "QM1", topic = "IBM/Patents/Hardware/Results" }
    """))
    assert report.to_json()["deliveries"]["QM1"]["WARE"] == ["IBM/Software/Results", "IBM/Patents/Hardware/Results"]


def test_rejected_mqsc_is_logged_as_mq_reports_it_and_changes_nothing():
    # 002 Figure 7 note: "The REPLACE option does not replace the TOPICSTR properties of a topic"
    report = run_scenario(scenario("""
        name = "rejections"
        [qmgrs.QM1]
        mqsc = '''
        DELETE TOPIC('Sports')
        DEFINE TOPIC('Sports') TOPICSTR('Sports')
        DEFINE TOPIC('Sports') TOPICSTR('Sports')
        DEFINE TOPIC('Sports') TOPICSTR('Games') REPLACE
        '''
        [[expect]]
        errors = [{ qmgr = "QM1", code = "AMQ8147" }, { qmgr = "QM1", code = "AMQ8150" }]
    """))
    codes = [e["code"] for e in report.to_json()["errors"]]
    assert codes[:2] == ["AMQ8147", "AMQ8150"] and len(codes) == 3
    assert report.final.qmgr("QM1").defs.topic("Sports").topicstr == "Sports"
    assert report.expectations[0].ok


def test_durable_subscription_refused_where_dursub_no():
    # 002 §Administrative topic objects, "Inheriting attributes"
    report = run_scenario(scenario("""
        name = "dursub"
        [qmgrs.QM1]
        mqsc = '''
        DEFINE TOPIC(FOOTBALL.EUROPEAN) TOPICSTR('Sport/Soccer') DURSUB(NO)
        DEFINE SUB(TEAMX) TOPICSTR('Sport/Soccer/TeamX/Results') DEST(Q1)
        DEFINE SUB(PLAYERB) TOPICSTR('Sport/Tennis/PlayerB/Results') DEST(Q1)
        '''
    """))
    assert [e["code"] for e in report.to_json()["errors"]] == ["MQRC_DURABILITY_NOT_ALLOWED"]
    assert [s.name for s in report.final.qmgr("QM1").pubsub.subscriptions] == ["PLAYERB"]
    assert report.final.qmgr("QM1").defs.subscription("TEAMX") is None


def test_clear_retained():
    report = run_scenario(scenario("""
        name = "clear retained"
        [qmgrs.QM1]
        [[steps]]
        publish = { qmgr = "QM1", topic = "USA/Alabama", retain = true }
        [[steps]]
        mqsc = { qmgr = "QM1", commands = "CLEAR TOPICSTR('USA/Alabama') CLTRTYPE(RETAINED)" }
        [[steps]]
        subscribe = { qmgr = "QM1", name = "LATE", topic = "USA/#" }
    """))
    assert report.to_json()["deliveries"]["QM1"]["LATE"] == []


def test_failed_expectation_exits_1(tmp_path, capsys):
    path = tmp_path / "s.toml"
    path.write_text(textwrap.dedent("""
        name = "fails"
        [qmgrs.QM1]
        [[steps]]
        subscribe = { qmgr = "QM1", name = "S", topic = "a/#" }
        [[steps]]
        publish = { qmgr = "QM1", topic = "a/b" }
        [[expect]]
        deliveries = { QM1 = { S = ["a/c"] } }
    """))
    code, data = run_json(capsys, path)
    assert code == 1
    assert data["expectations"][0]["ok"] is False
    assert "expected ['a/c'], got ['a/b']" in data["expectations"][0]["failures"][0]


def test_put_and_message_expectations_are_modelled(tmp_path):
    # issue #7: put/close are modelled, message counts are checked (no longer "not
    # modelled yet"); QM1 is in no cluster, so its CLUSTER(C1) queue is just a local queue
    path = tmp_path / "s.toml"
    path.write_text(textwrap.dedent("""
        name = "workload"
        [qmgrs.QM1]
        mqsc = "DEFINE QLOCAL(CQ1) CLUSTER(C1)"
        [[steps]]
        open = { qmgr = "QM1", handle = "h1", queue = "CQ1" }
        [[steps]]
        put = { handle = "h1", count = 3 }
        [[expect]]
        messages = { h1 = { QM1 = 2 } }
    """))
    proc = subprocess.run([sys.executable, "-m", "checker.cli", "run", str(path), "--json"],
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 1
    data = json.loads(proc.stdout)
    assert data["unmodelled"] == [] and "not modelled yet" not in proc.stderr
    assert data["messages"] == {"h1": {"QM1": 3}}
    assert data["expectations"][0]["failures"] == ["messages of h1: expected {'QM1': 2}, got {'QM1': 3}"]


# ---------------------------------------------------------------------------------------
# Bad input: one line, file:line:column, exit status 2, no traceback
# ---------------------------------------------------------------------------------------
BAD = [
    ('name = "x"\n[qmgrs.QMA]\nmqsc = """\nDEFINE TOPIC(T1) TOPICSTR(\'a\') CLUSTR(CL1)\n"""\n',
     "bad.toml:4:", "did you mean CLUSTER?"),
    ('name = "x"\n[qmgrs.QMA\n', "bad.toml:2:", "invalid TOML"),
    ('name = "x"\n[qmgrs.QMA]\nmqsc_file = "nope.mqsc"\n', "bad.toml:3:", "file not found: nope.mqsc"),
    ('name = "x"\n[qmgrs.QMA]\n[[steps]]\npublish = { qmgr = "QMB", topic = "a" }\n', "bad.toml:4:", "unknown queue manager QMB"),
    ('name = "x"\n[qmgrs.QMA]\nmqsc = "DEFINE CHANNEL(C) CHLTYPE(CLUSRCVR) CONNAME(\'h(1)\') CLUSTER(X) CLWLWGHT(200)"\n',
     "bad.toml:3:", "CLWLWGHT"),
    ('name = "x"\n[qmgrs.QMA]\n[[steps]]\nsubscribe = { qmgr = "QMA", name = "S", topic = "a%b", scheme = "char" }\n',
     "bad.toml:4:", "'%' must be followed by"),
]


@pytest.mark.parametrize("text,where,what", BAD)
def test_bad_input_one_line_status_2(tmp_path, text, where, what):
    (tmp_path / "bad.toml").write_text(text)
    proc = subprocess.run([sys.executable, "-m", "checker.cli", "run", "bad.toml"],
                          capture_output=True, text=True, cwd=tmp_path, check=False)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in proc.stderr
    assert lines[0].startswith("mqcheck: error: " + where), lines[0]
    assert what in lines[0]


def test_model_protocol_on_a_scenario():
    model = MQNetwork(scenario("""
        name = "two steps"
        [qmgrs.QM1]
        [[steps]]
        subscribe = { qmgr = "QM1", name = "S", topic = "#" }
        [[steps]]
        publish = { qmgr = "QM1", topic = "a" }
    """))
    (s0,) = model.init_states()
    (a0,) = model.actions(s0)
    s1 = model.next_state(s0, a0)
    assert model.next_state(s0, model.actions(s1)[0]) is None  # out of order: disabled
    s2 = model.next_state(s1, model.actions(s1)[0])
    assert model.actions(s2) == ()
    assert len({model.encode(s) for s in (s0, s1, s2)}) == 3
    assert model.encode(s2) == model.encode(model.next_state(model.next_state(s0, a0), model.actions(s1)[0]))
    assert not model.is_internal(a0)
    assert "subscribe S" in model.describe_action(a0)


def test_topicobj_in_a_step_is_the_exact_mqi_name():
    # 002 Figure 7 defines TOPIC('Football') quoted: its name keeps its case, and an
    # application opens it as "Football" (MQOD.ObjectName is not folded).
    report = run_scenario(scenario("""
        name = "exact names"
        [qmgrs.QMA]
        mqsc = '''
        DEFINE TOPIC ('Football') TOPICSTR('Sports/Football')
        DEFINE TOPIC (RUGBY) TOPICSTR('Sports/Rugby')
        '''
        [[steps]]
        subscribe = { qmgr = "QMA", name = "ARSENAL", topicobj = "Football", topic = "Arsenal" }
        [[steps]]
        publish = { qmgr = "QMA", topicobj = "Football", topic = "Arsenal" }
        [[steps]]
        publish = { qmgr = "QMA", topicobj = "FOOTBALL", topic = "Arsenal" }
        [[steps]]
        publish = { qmgr = "QMA", topicobj = "rugby" }
    """))
    data = report.to_json()
    assert data["deliveries"]["QMA"]["ARSENAL"] == ["Sports/Football/Arsenal"]
    assert [e["code"] for e in data["errors"]] == ["MQRC_UNKNOWN_OBJECT_NAME", "MQRC_UNKNOWN_OBJECT_NAME"]
