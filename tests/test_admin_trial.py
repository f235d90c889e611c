"""What MQ administrators wrote from IBM's documents in four user trials (session 20), and
what the documents say happens: each case was a disagreement, a rejection of valid MQSC, or
a silent no-op (docs/decisions.md, "A user trial from IBM's documents" and the three after).

- A partial repository that uses a queue hosted on the full repository it joined through
  is told of that host's later changes (SUSPEND, an altered CLUSRCVR): 003 §Queue managers
  and repositories ("notified of any new information concerning that queue or queue
  manager"); 001 rules 3 and 7.
- SUSPEND QMGR in a queue manager's initial MQSC suspends it.
- LIKE may name MQ's default objects (003 §Cluster transmission queue).
- A CLUSSDR naming one address of a multi-instance CLUSRCVR CONNAME joins.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from checker.explore import explore  # noqa: E402
from checker.model import Status  # noqa: E402
from properties.repository import PROPERTIES  # noqa: E402
from spec.network import MQNetwork, deliveries_of, messages_of, repositories_of, run_scenario  # noqa: E402
from spec.scenario import parse_scenario  # noqa: E402
from scenarios import stopped_servers_text  # noqa: E402

def qmgr(name: str, *, repos: bool = False, to: tuple[str, ...] = (), extra: str = "") -> str:
    """A [qmgrs.NAME] table in cluster DEMO: CLUSRCVR DEMO.NAME, a CLUSSDR to each of ``to``."""
    lines = ["ALTER QMGR REPOS(DEMO)"] if repos else []
    lines.append(f"DEFINE CHANNEL(DEMO.{name}) CHLTYPE(CLUSRCVR) CONNAME('{name.lower()}(1414)') CLUSTER(DEMO)")
    lines += [f"DEFINE CHANNEL(DEMO.{o}) CHLTYPE(CLUSSDR) CONNAME('{o.lower()}(1414)') CLUSTER(DEMO)" for o in to]
    quotes = "'" * 3
    return f"[qmgrs.{name}]\nmqsc = {quotes}\n" + "\n".join(lines + ([extra] if extra else [])) + f"\n{quotes}\n"



DEMOQ = "DEFINE QLOCAL(DEMOQ) CLUSTER(DEMO) DEFBIND(NOTFIXED)"
SERVERS = (qmgr("SERVER1", repos=True, extra=DEMOQ + "\n{server1}") + qmgr("SERVER2", to=("SERVER1",), extra=DEMOQ)
           + qmgr("QMAPP", to=("SERVER1",)))


def scenario(server1_initial: str = "", step: str = "", puts: int = 4):
    text = SERVERS.format(server1=server1_initial)
    if step:
        text += f'[[steps]]\nmqsc = {{ qmgr = "SERVER1", commands = "{step}" }}\n'
    text += ('[[steps]]\nopen = { qmgr = "QMAPP", handle = "app", queue = "DEMOQ", bind = "NOT_FIXED" }\n'
             f'[[steps]]\nput = {{ handle = "app", count = {puts} }}\n')
    return parse_scenario(text, file="trial.toml")


@pytest.mark.parametrize("initial, step, expected", [
    # the full repository SERVER1, which QMAPP joined through, hosts DEMOQ too
    ("", "", {"SERVER1": 2, "SERVER2": 2}),
    # 001 rule 7: "if any are not suspended then all those that are suspended are eliminated"
    ("", "SUSPEND QMGR CLUSTER(DEMO)", {"SERVER2": 4}),
    ("SUSPEND QMGR CLUSTER(DEMO)", "", {"SERVER2": 4}),  # in its initial MQSC
    # 001 rule 3: the highest channel CLWLRANK wins
    ("", "ALTER CHANNEL(DEMO.SERVER1) CHLTYPE(CLUSRCVR) CLWLRANK(9)", {"SERVER1": 4}),
], ids=["none", "suspend-step", "suspend-initial", "rank-step"])
def test_a_change_at_the_full_repository_reaches_the_partial_repository_that_uses_it(initial, step, expected):
    report = run_scenario(scenario(initial, step))
    assert messages_of(report.final)["app"] == expected
    assert not [e for e in report.final.log if e.code.startswith(("AMQ", "MQRC"))]


def test_the_host_subscription_is_checked_and_the_property_can_fail(monkeypatch):
    # RP-PR-HOSTS-CURRENT states the rule from the full repositories' view of the hosts, not
    # from the partial repository's own subscriptions: without the follow-up subscriptions it fails
    props = PROPERTIES
    ids = ["RP-PR-HOSTS-CURRENT"]
    text = scenario(step="SUSPEND QMGR CLUSTER(DEMO)", puts=1)
    held = explore(MQNetwork(text, props), property_ids=ids)
    assert held.statistics.complete
    assert held.verdicts["RP-PR-HOSTS-CURRENT"].status is Status.HOLDS

    import spec.network.repositories as repositories
    monkeypatch.setattr(repositories, "_pr_follow_up", lambda state, q, cache, out, mut: cache)
    broken = explore(MQNetwork(text, props), property_ids=ids)
    assert broken.verdicts["RP-PR-HOSTS-CURRENT"].status is Status.VIOLATED


def test_like_a_default_object_defines_the_channel():
    text = SERVERS.format(server1="").replace(
        "DEFINE CHANNEL(DEMO.QMAPP) CHLTYPE(CLUSRCVR)", "DEFINE CHANNEL(DEMO.QMAPP) CHLTYPE(CLUSRCVR) LIKE(SYSTEM.DEF.CLUSRCVR)")
    text += ('[[steps]]\nmqsc = { qmgr = "QMAPP", commands = "DEFINE QLOCAL(LOCALQ) LIKE(SYSTEM.DEFAULT.LOCAL.QUEUE)" }\n')
    report = run_scenario(parse_scenario(text, file="like.toml"))
    assert report.final.log == ()
    assert "QMAPP" in repositories_of(report.final)["SERVER1"]["DEMO"]["qmgrs"]


@pytest.mark.parametrize("clussdr", ["fr1a(1414)", "FR1B.example.com(1414)", "fr1a(1414),fr1b.example.com(1414)"])
def test_a_clussdr_naming_one_instance_of_a_multi_instance_queue_manager_joins(clussdr):
    text = f"""
[qmgrs.FR1]
mqsc = '''
ALTER QMGR REPOS(DEMO)
DEFINE CHANNEL(TO.FR1) CHLTYPE(CLUSRCVR) CONNAME('fr1a(1414),fr1b.example.com(1414)') CLUSTER(DEMO)
'''
[qmgrs.QMX]
mqsc = '''
DEFINE CHANNEL(TO.QMX) CHLTYPE(CLUSRCVR) CONNAME('qmx(1414)') CLUSTER(DEMO)
DEFINE CHANNEL(TO.FR1) CHLTYPE(CLUSSDR) CONNAME('{clussdr}') CLUSTER(DEMO)
'''
"""
    report = run_scenario(parse_scenario(text, file="mi.toml"))
    assert repositories_of(report.final)["FR1"]["DEMO"]["qmgrs"] == ["FR1", "QMX"]
    assert repositories_of(report.final)["QMX"]["DEMO"]["qmgrs"] == ["FR1", "QMX"]


def test_altering_a_default_object_is_accepted_and_said_to_be_unmodelled():
    from spec.network.steps import unmodelled_in

    text = ("[qmgrs.QMA]\nmqsc = '''\nALTER QLOCAL(SYSTEM.DEFAULT.LOCAL.QUEUE) DEFPSIST(YES)\n"
            "DEFINE QLOCAL(SYSTEM.DEFAULT.ALIAS.QUEUE) REPLACE\nALTER QLOCAL(SYSTEM.DEFAULT.ALIAS.QUEUE) PUT(DISABLED)\n'''\n")
    scenario_ = parse_scenario(text, file="alter.toml")
    report = run_scenario(scenario_)
    assert report.final.log == ()
    notes = unmodelled_in(scenario_)
    assert len(notes) == 1 and "(line 3): altering one of MQ's default objects" in notes[0]  # not the one defined here


# -- the second trial: publish/subscribe from 002 -------------------------------------------
OVERLAPPING = """
[qmgrs.QM1]
mqsc = '''
ALTER QMGR REPOS(SPORTS)
DEFINE CHANNEL(TO.QM1) CHLTYPE(CLUSRCVR) CONNAME('qm1(1414)') CLUSTER(SPORTS)
DEFINE TOPIC(A) TOPICSTR('Football/result/#') SUBSCOPE(QMGR) CLUSTER(SPORTS)
DEFINE TOPIC(B) TOPICSTR('Football/#') SUBSCOPE(ALL) CLUSTER(SPORTS)
DEFINE TOPIC(C) TOPICSTR('Football/result/Newport/Cardiff') PUBSCOPE(ALL) SUBSCOPE(ALL) CLUSTER(SPORTS)
DEFINE TOPIC(D) TOPICSTR('Football/matches/Newport/Cardiff') PUBSCOPE(ALL) SUBSCOPE(QMGR) CLUSTER(SPORTS)
'''
[qmgrs.QM2]
mqsc = '''
DEFINE CHANNEL(TO.QM2) CHLTYPE(CLUSRCVR) CONNAME('qm2(1414)') CLUSTER(SPORTS)
DEFINE CHANNEL(TO.QM1) CHLTYPE(CLUSSDR) CONNAME('qm1(1414)') CLUSTER(SPORTS)
'''
"""


@pytest.mark.parametrize("group, expected", [
    # 002 §Overlapping topics, "if these subscriptions are ungrouped"
    ("", {"A": [], "B": ["Football/result/Newport/Cardiff", "Football/matches/Newport/Cardiff"],
          "C": ["Football/result/Newport/Cardiff"], "D": []}),
    # "if these subscriptions are grouped": one publication, on topic C
    ("G", {"A": [], "B": [], "C": ["Football/result/Newport/Cardiff"], "D": []}),
])
def test_002_overlapping_topics_a_to_d(group, expected):
    text = OVERLAPPING + "".join(
        f'[[steps]]\nsubscribe = {{ qmgr = "QM2", name = "{t}", topicobj = "{t}"'
        + (f', group = "{group}"' if group else "") + " }\n" for t in "ABCD")
    text += '[[steps]]\npublish = { qmgr = "QM1", topicobj = "C" }\n[[steps]]\npublish = { qmgr = "QM1", topicobj = "D" }\n'
    report = run_scenario(parse_scenario(text, file="overlap.toml"))
    assert deliveries_of(report.final)["QM2"] == expected


def test_an_object_at_the_whole_wildcard_string_governs_the_subscription():
    from types import SimpleNamespace as O

    from spec.topic_tree import TopicSpace

    base = O(name="SYSTEM.BASE.TOPIC", topicstr="", subscope="ALL")
    a = O(name="A", topicstr="Football/result/#", subscope="QMGR")
    space = TopicSpace((base, a))
    assert space.resolve_subscription("Football/result/#").name == "A"
    # 002 §Wildcards and cluster topics: otherwise truncate at the first wildcard, scan left
    assert space.resolve_subscription("Football/result/+").name == "SYSTEM.BASE.TOPIC"
    assert space.resolve_subscription("Football/result/#/x").name == "SYSTEM.BASE.TOPIC"


def test_traces_name_the_topic_object_and_tables_show_blanks(capsys):
    from checker.cli import main, topic_text
    from spec.network.steps import describe_step
    from spec.scenario import PublishStep, SubscribeStep

    assert describe_step(SubscribeStep(0, 1, "QM2", "U.A", "", topicobj="A")) == "subscribe U.A to TOPICOBJ(A) (topic) at QM2"
    assert describe_step(PublishStep(1, 2, "QM1", "x", topicobj="C")) == "publish TOPICOBJ(C) + 'x' at QM1"
    assert [topic_text(t) for t in (" a/b", "a/b ", "", "a/b")] == ["' a/b'", "'a/b '", "''", "a/b"]


# -- the third trial: fault tolerance (004) ---------------------------------------------------
RETRYING = (qmgr("QMAPP", repos=True, to=("SERVER1",)) + qmgr("SERVER1", repos=True, to=("QMAPP",), extra=DEMOQ)
            + qmgr("SERVER2", to=("QMAPP",), extra=DEMOQ) + """[[steps]]
channel = { qmgr = "QMAPP", to = "SERVER2", status = "RETRYING" }
[[steps]]
open = { qmgr = "QMAPP", handle = "warm", queue = "DEMOQ" }
[[steps]]
put = { handle = "warm" }
[[steps]]
channel = { qmgr = "QMAPP", to = "SERVER1", status = "RETRYING" }
[[steps]]
open = { qmgr = "QMAPP", handle = "h", queue = "DEMOQ" }
[[steps]]
put = { handle = "h" }
""")


@pytest.mark.parametrize("then, expected", [
    # 000 §Workload management features: with every channel in RETRY the messages "will have
    # to wait on the transmission queue": SERVER2's channel retrying again moves nothing
    ('channel = { qmgr = "QMAPP", to = "SERVER2", status = "RETRYING" }', {"SERVER2": 1}),
    # 000 §When does workload balancing occur?: "to see if there is a different destination
    # that is available": SERVER1 runs again, so the waiting message goes there
    ('channel = { qmgr = "QMAPP", to = "SERVER1", status = "RUNNING" }\n[[steps]]\n'
     'channel = { qmgr = "QMAPP", to = "SERVER2", status = "RETRYING" }', {"SERVER1": 1}),
])
def test_a_waiting_message_moves_only_to_an_available_destination(then, expected):
    text = RETRYING + f"[[steps]]\n{then}\n" + "".join(
        f'[[steps]]\nchannel = {{ qmgr = "QMAPP", to = "{s}", status = "RUNNING" }}\n' for s in ("SERVER2", "SERVER1"))
    report = run_scenario(parse_scenario(text, file="retrying.toml"))
    assert messages_of(report.final) == {"warm": {"SERVER1": 1}, "h": expected}


def test_a_channel_step_naming_no_channel_is_logged_and_changes_nothing():
    text = RETRYING.split("[[steps]]")[0] + (
        '[[steps]]\nchannel = { qmgr = "QMAPP", to = "SERVER2", status = "STOPPED", name = "DEMO.SERVR2" }\n'
        '[[steps]]\nopen = { qmgr = "QMAPP", handle = "h", queue = "DEMOQ" }\n[[steps]]\nput = { handle = "h", count = 2 }\n')
    report = run_scenario(parse_scenario(text, file="typo.toml"))
    assert [(e.code, e.step) for e in report.final.log] == [("CHANNEL_NOT_FOUND", 0)]
    assert messages_of(report.final)["h"] == {"SERVER1": 1, "SERVER2": 1}


def test_check_faults_on_the_command_line_judges_uc_recovery(capsys):
    from checker.cli import _check_properties

    from dataclasses import replace

    from spec.scenario import load_scenario

    scenario_ = load_scenario(ROOT / "examples" / "uc-outage-recovery.toml")
    no_step = replace(scenario_, steps=tuple(s for s in scenario_.steps if type(s).__name__ != "QmgrStep"))
    ids = {p.id for p in _check_properties(no_step)}
    assert "UC-RECOVERY" not in ids  # nothing can restart: it could only hold vacuously
    assert "UC-RECOVERY" in {p.id for p in _check_properties(no_step, faults=1)}  # check --faults 1
    assert "UC-RECOVERY" not in {p.id for p in _check_properties(no_step, faults=0)}


# -- the fourth trial: repository operations (000, 003) ---------------------------------------

THREE_FRS = (qmgr("FR1", repos=True, to=("FR2", "FR3")) + qmgr("FR2", repos=True, to=("FR1", "FR3"))
             + qmgr("FR3", repos=True, to=("FR1", "FR2")) + qmgr("PR2", to=("FR1",), extra="DEFINE QLOCAL(CQ1) CLUSTER(DEMO)")
             + """[[steps]]
mqsc = { qmgr = "FR1", commands = "ALTER QMGR REPOS(' ')" }
[[steps]]
mqsc = { qmgr = "PR2", commands = "DEFINE QLOCAL(CQ2) CLUSTER(DEMO)" }
""")


def test_a_demoted_full_repository_is_published_to_no_more():
    # 000 §Considerations for Full Repositories: demotion "will cause the queue managers within
    # the cluster to remake their subscriptions elsewhere"; PR2, which never subscribed at FR1
    # but published to it, now publishes to the two full repositories left. (FR2 and FR3 still
    # forward to FR1 over their manual CLUSSDRs: docs/decisions.md, the fourth trial.)
    final = run_scenario(parse_scenario(THREE_FRS, file="demote.toml")).final
    assert final.qmgr("PR2").cache("DEMO").last_publish[0] == ("FR2", "FR3")
    view = repositories_of(final)
    assert view["FR2"]["DEMO"]["queues"] == view["FR3"]["DEMO"]["queues"] == {"CQ1": ["PR2"], "CQ2": ["PR2"]}
    assert view["PR2"]["DEMO"]["qmgrs"] == ["FR1", "FR2", "FR3", "PR2"]


def test_check_judges_the_expectations_when_the_scenario_ends_with_a_queue_manager_stopped(capsys):
    from checker.cli import main

    text = (qmgr("FR1", repos=True, to=("FR2",)) + qmgr("FR2", repos=True, to=("FR1",)) + qmgr("PR1", to=("FR1",))
            + """[[steps]]
qmgr = { name = "FR2", action = "stop" }
[[steps]]
mqsc = { qmgr = "PR1", commands = "DEFINE QLOCAL(CQ1) CLUSTER(DEMO)" }
[[expect]]
repositories = { FR2 = { DEMO = { queues = { CQ1 = ["PR1"] } } } }
""")
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "stopped-end.toml"
        path.write_text(text)
        assert main(["run", str(path)]) == 1  # FR2 is stopped: the update waits for it
        assert main(["check", str(path), "--property", "EXPECT"]) == 1  # was "holds", vacuously
    out = capsys.readouterr().out
    assert "EXPECT      at_quiescence  violated" in out and "VACUOUS" not in out


def test_one_long_advance_logs_the_thirty_day_warning_before_the_expiry():
    text = THREE_FRS.split("[[steps]]")[0] + (
        '[[steps]]\nqmgr = { name = "PR2", action = "delete" }\n[[steps]]\nadvance = { days = 91 }\n')
    log = run_scenario(parse_scenario(text, file="expiry.toml")).final.log
    fr1 = [e.code for e in log if e.qmgr == "FR1"]
    assert fr1 == ["REFRESH_MISSING", "RECORD_EXPIRED"] * 2  # PR2's queue-manager record and CQ1


def test_lint_names_the_misspelt_cluster_of_the_clusrcvr():
    from checker import lint
    from properties.lint import RULES, config_of_scenario

    text = THREE_FRS.split("[[steps]]")[0].replace(
        "DEFINE CHANNEL(DEMO.PR2) CHLTYPE(CLUSRCVR) CONNAME('pr2(1414)') CLUSTER(DEMO)",
        "DEFINE CHANNEL(DEMO.PR2) CHLTYPE(CLUSRCVR) CONNAME('pr2(1414)') CLUSTER(DMEO)")
    report = lint.run_rules([(config_of_scenario(parse_scenario(text, file="typo.toml")), {})], RULES)
    pair = [f for f in report.findings if f.rule == "CLUSTER-PAIR"]
    assert len(pair) == 1 and "DMEO: a misspelling of DEMO?" in pair[0].message
    assert pair[0].fix == "on PR2: ALTER CHANNEL(DEMO.PR2) CHLTYPE(CLUSRCVR) CLUSTER(DEMO)"


def test_a_wait_step_lets_check_follow_a_maintenance_procedure():
    # 000 §Considerations for Full Repositories, taking both full repositories down: written
    # for `check` without a wait, the stop interleaves with PR3's subscription still in
    # flight, which no administrator following the procedure would do
    from checker.explore import explore
    from checker.cli import _check_properties
    from spec.scenario import WaitStep

    text = THREE_FRS.split("[[steps]]")[0].replace("[qmgrs.FR3]", "[qmgrs.PR3]\nmqsc = '''\n"
        "DEFINE CHANNEL(DEMO.PR3) CHLTYPE(CLUSRCVR) CONNAME('pr3(1414)') CLUSTER(DEMO)\n"
        "DEFINE CHANNEL(DEMO.FR1) CHLTYPE(CLUSSDR) CONNAME('fr1(1414)') CLUSTER(DEMO)\n'''\n[qmgrs.FR3]")
    steps = ('[[steps]]\nopen = { qmgr = "PR3", handle = "h", queue = "CQ1" }\n{wait}'
             '[[steps]]\nqmgr = { name = "FR1", action = "stop" }\n'
             '[[steps]]\nqmgr = { name = "FR2", action = "stop" }\n'
             '[[steps]]\nput = { handle = "h", count = 2 }\n'
             '[[expect]]\nmessages = { h = { PR2 = 2 } }\n')
    verdicts = {}
    for wait in ("", '[[steps]]\nwait = { until = "settled" }\n'):
        scenario_ = parse_scenario(text + steps.replace("{wait}", wait), file="maintenance.toml")
        assert any(isinstance(s, WaitStep) for s in scenario_.steps) == bool(wait)
        assert messages_of(run_scenario(scenario_).final)["h"] == {"PR2": 2}
        result = explore(MQNetwork(scenario_, _check_properties(scenario_)), property_ids=["EXPECT"])
        assert result.statistics.complete
        verdicts[bool(wait)] = result.verdicts["EXPECT"].status
    assert verdicts == {False: Status.VIOLATED, True: Status.HOLDS}


def test_a_wait_step_names_what_it_waits_for():
    import pytest as _pytest

    from spec.errors import InputError

    with _pytest.raises(InputError, match=r"steps\[0\]\.wait\.until: .*settled"):
        parse_scenario('[qmgrs.QM1]\n[[steps]]\nwait = { until = "quiet" }\n', file="w.toml")


# -- a review of this session's changes ----------------------------------------------------------
def test_a_redrive_that_leaves_the_message_waiting_is_not_counted_nor_a_witness():
    # the re-drive runs the algorithm; when its pick is no better (RETRYING), the message waits
    # and nothing is sent: the history is not advanced (the next put still alternates) and
    # BD-REDRIVEN ("re-driven elsewhere") is not witnessed by a move that never happened
    from properties.workload import PROPERTIES as WORKLOAD
    from spec.network.model import settle
    from spec.network.state import ScenarioStep

    path = ROOT / "tests" / "data" / "scenarios" / "redrive-both-retrying.toml"
    text = path.read_text() + (
        '[[steps]]\nchannel = { qmgr = "QMAPP", to = "SERVER1", status = "RUNNING" }\n'
        '[[steps]]\nchannel = { qmgr = "QMAPP", to = "SERVER2", status = "RUNNING" }\n'
        '[[steps]]\nput = { handle = "app", count = 1 }\n')
    scenario_ = parse_scenario(text, file="skew.toml")
    model = MQNetwork(scenario_, ())
    (state,) = model.init_states()
    for i in range(len(scenario_.steps)):
        state = model.next_state(state, ScenarioStep(i))
        if i != 2:  # the put's message is still waiting when SERVER1's channel goes into retry
            state = settle(model, state)
    assert messages_of(state)["app"] == {"SERVER1": 1, "SERVER2": 1}

    alone = parse_scenario(path.read_text(), file="phantom.toml")
    result = explore(MQNetwork(alone, WORKLOAD), property_ids=["BD-NOT-FIXED-REDRIVE"])
    assert result.statistics.complete
    assert result.verdicts["BD-REDRIVEN"].status is Status.NEVER_REACHED


def test_a_redrive_that_leaves_the_message_waiting_is_no_final_choice():
    # fuzz --seed 5 --max-qmgrs 5 (Session 28): QM1's second CLUSRCVR has NETPRTY(1); QM1
    # stops, the message moves to the NETPRTY(0) channel while that looks available, then it
    # enters RETRYING too. Both RETRYING, rule 12 keeps the NETPRTY(1) channel, so the
    # re-drive's pick is no better and the message waits where it is (000 §Workload
    # management features). The ghost decision's ``chosen`` is where it waits, outside
    # ``finalists``: that is not a choice rule 15 made, and WL-MRUC holds. The same record
    # is no pick for WL-ROUND-ROBIN's counts (the history is untouched).
    from properties import workload as pw
    from properties.workload import PROPERTIES as WORKLOAD
    from spec import binding as bd

    path = ROOT / "tests" / "regressions" / "real-redrive-waits-netprty.toml"
    result = explore(MQNetwork(parse_scenario(path.read_text(), file=path.name), WORKLOAD),
                     property_ids=["WL-MRUC", "WL-ROUND-ROBIN"], workers=1)
    assert result.statistics.complete
    assert result.verdicts["WL-MRUC"].status is Status.HOLDS
    assert result.verdicts["WL-ROUND-ROBIN"].status is Status.HOLDS

    def decision(chosen, finalists, reason="MQRC_NONE", **kw):
        return bd.Decision("h1", 0, "QM4", "CQ1", "NOT_FIXED", False, "", 999_999_999, (),
                           chosen, reason, tuple((q, c, 50) for q, c in finalists), **kw)

    waits = decision(("QM1", "TO.QM1", False), [("QM1", "TO.QM1.B")], redrive=True,
                     reason=bd.REDRIVE_WAITS, away_from="QM1")
    assert pw._mruc_ok(waits)
    assert not pw._mruc_ok(decision(("QM1", "TO.QM1", False), [("QM1", "TO.QM1.B")], redrive=True))
    both = [("S1", "TO.S1"), ("S2", "TO.S2")]
    picks = [decision(("S1", "TO.S1", False), both, fresh=True), decision(("S2", "TO.S2", False), both)]
    waiting = decision(("S1", "TO.S1", False), both, redrive=True, reason=bd.REDRIVE_WAITS)
    assert list(pw._runs(tuple(picks[:1] + [waiting] + picks[1:]))) == [picks]


# -- 004 §Channel availability routing: "every time the channel is retried" ------------------------
def _retry_scenario(bind: str = "NOT_FIXED", target: str = "", count: int = 3):
    """Both servers' channels RETRYING, NOT_FIXED puts queue on them; then SERVER2's channel
    runs again while SERVER1's still retries (its steps held: only retries move messages)."""
    to = f', target_qmgr = "{target}"' if target else ""
    text = (ROOT / "tests" / "data" / "scenarios" / "redrive-both-retrying.toml").read_text().split("[[steps]]")[0] + (
        f'[[steps]]\nopen = {{ qmgr = "QMAPP", handle = "app", queue = "DEMOQ", bind = "{bind}"{to} }}\n'
        '[[steps]]\nchannel = { qmgr = "QMAPP", to = "SERVER1", status = "RETRYING" }\n'
        '[[steps]]\nchannel = { qmgr = "QMAPP", to = "SERVER2", status = "RETRYING" }\n'
        f'[[steps]]\nput = {{ handle = "app", count = {count} }}\n'
        '[[steps]]\nchannel = { qmgr = "QMAPP", to = "SERVER2", status = "RUNNING" }\n')
    return parse_scenario(text, file=f"retry-{bind.lower()}.toml")


def _stepped(model, scenario_):
    """Every step taken, settling (deliveries and recoveries only) between them, no retry."""
    from spec.network.model import reconnectable
    from spec.network.state import ChannelDeliver, ScenarioStep

    (state,) = model.init_states()
    for i in range(len(scenario_.steps)):
        state = model.next_state(state, ScenarioStep(i))
        while True:
            for r in reconnectable(state):
                state = model.next_state(state, r)
            delivers = [a for a in model.actions(state) if isinstance(a, ChannelDeliver)]
            if not delivers:
                break
            state = model.next_state(state, delivers[0])
    return state


def _waiting(state, dst):
    ch = state.channel("QMAPP", dst)
    return [] if ch is None else [str(m) for m in ch.messages]


def test_a_retry_reroutes_not_fixed_messages_queued_while_every_channel_was_retrying():
    # 004 §Channel availability routing: "it also occurs for queued transmission messages
    # every time the channel is retried. So blocked messages can be re-routed"
    from spec.network import ChannelRetry
    from spec.network.workload import redrive_channel

    scenario_ = _retry_scenario()
    model = MQNetwork(scenario_, ())
    state = _stepped(model, scenario_)
    assert len(_waiting(state, "SERVER1")) == 2  # app#0 and app#2 (the put alternated)
    assert messages_of(state)["app"] == {"SERVER2": 1}
    retry = ChannelRetry("QMAPP", "SERVER1")
    assert retry in model.actions(state)
    after = model.next_state(state, retry)
    # the re-drive's mechanism, history and ghost decisions alike
    assert after == redrive_channel(state, "QMAPP", "SERVER1", state.next_step - 1, model.mutations)
    assert _waiting(after, "SERVER1") == [] and len(_waiting(after, "SERVER2")) == 2
    assert after.route_status("QMAPP", "SERVER1", "") == "RETRYING"  # a retry that does not connect
    assert retry not in model.actions(after)  # nothing left to move: no self-loop
    assert messages_of(run_scenario(scenario_).final)["app"] == {"SERVER2": 3}  # `run` retries too


def test_no_retry_is_offered_while_no_other_destination_is_available():
    from spec.network import ChannelRetry

    from spec.values import replace

    short = replace(_retry_scenario(), steps=_retry_scenario().steps[:-1])  # SERVER2's still RETRYING
    model = MQNetwork(short, ())
    state = _stepped(model, short)
    assert _waiting(state, "SERVER1") and _waiting(state, "SERVER2")
    assert not any(isinstance(a, ChannelRetry) for a in model.actions(state))


@pytest.mark.parametrize("bind,target", [("ON_OPEN", ""), ("NOT_FIXED", "SERVER1")])
def test_a_retry_moves_no_bound_message_nor_one_naming_its_queue_manager(bind, target):
    # 004: "if they're not prevented" — bound messages, or a named target queue manager
    from spec.network import ChannelRetry
    from spec.network.workload import retry_channel

    scenario_ = _retry_scenario(bind, target)
    model = MQNetwork(scenario_, ())
    state = _stepped(model, scenario_)
    assert len(_waiting(state, "SERVER1")) == 3
    assert not any(isinstance(a, ChannelRetry) for a in model.actions(state))
    assert retry_channel(state, "QMAPP", "SERVER1", state.next_step - 1, model.mutations) is None
    assert messages_of(run_scenario(scenario_).final)["app"] == {}


@pytest.mark.parametrize("bind,status", [("NOT_FIXED", Status.HOLDS), ("ON_OPEN", Status.VIOLATED)])
def test_bd_not_fixed_redrive_with_retries(bind, status):
    # with the retry, a NOT_FIXED message waits for its RETRYING channel only until the next
    # retry (BD-REDRIVEN witnessed by it); a bound one still waits for good (the
    # stuck-message trace of examples/wl-stuck-on-open.toml)
    from properties.workload import PROPERTIES as WORKLOAD

    result = explore(MQNetwork(_retry_scenario(bind), WORKLOAD), property_ids=["BD-NOT-FIXED-REDRIVE"])
    assert result.statistics.complete
    assert result.verdicts["BD-NOT-FIXED-REDRIVE"].status is status
    if bind == "NOT_FIXED":
        assert result.verdicts["BD-REDRIVEN"].status is Status.WITNESSED


def test_bd_not_fixed_redrive_wants_the_retry_offered(monkeypatch):
    # the excuse of a message whose last run saw its channel out of service holds only while
    # the model offers the retry that moves it
    import properties.workload as pw

    scenario_ = _retry_scenario()
    model = MQNetwork(scenario_, ())
    state = _stepped(model, scenario_)
    assert list(pw.stuck_messages(state)) and pw.not_fixed_redriven(model, state)
    monkeypatch.setattr(pw, "retries", lambda state, mut: ())  # a model that never retries
    assert not pw.not_fixed_redriven(model, state)



def _trace_in_file(model, path, bind="NOT_FIXED"):
    """The state the ``# the shortest trace found:`` comment of a fuzz file leads to (its
    MQOPEN with ``bind`` instead of NOT_FIXED)."""
    state = model.init_states()[0]
    lines = path.read_text().splitlines()
    start = lines.index("# the shortest trace found:") + 1
    for line in lines[start:]:
        if not line.startswith("#     "):
            break
        wanted = line[1:].strip().split(None, 1)[1].replace("bind NOT_FIXED", f"bind {bind}")
        action = next(a for a in model.actions(state) if model.describe_action(a) == wanted)
        state = model.next_state(state, action)
    return state


@pytest.mark.parametrize("bind", ["NOT_FIXED", "ON_OPEN"])
def test_bd_not_fixed_redrive_excuses_a_redrive_that_found_no_destination(monkeypatch, bind):
    # Session 30. The QM1->QM2 channel entered RETRYING while QM2's CQ1 was PUT(DISABLED)
    # and QM1 knew no other instance with a route: the re-drive found no destination at all
    # (001: "If only put disabled instances remain ... MQRC_CLUSTER_PUT_INHIBITED") and the
    # messages stayed. QM3 learnt afterwards is for the channel's next retry (004 §Channel
    # availability routing: "every time the channel is retried"), which the model offers:
    # the property excuses NOT_FIXED messages while that retry is on offer, never bound ones.
    import properties.workload as pw
    from properties.workload import PROPERTIES as WORKLOAD
    from spec.network import ChannelRetry
    from spec.network.workload import retry_channel

    path = ROOT / "tests" / "regressions" / "real-not-fixed-redrive-put-inhibited.toml"
    text = path.read_text().replace('bind = "NOT_FIXED"', f'bind = "{bind}"')
    model = MQNetwork(parse_scenario(text, file=path.name), WORKLOAD)
    state = _trace_in_file(model, path, bind)
    stuck = list(pw._stuck(state))
    assert [(ch.dst, dest.qmgr) for ch, _m, dest in stuck] == [("QM2", "QM3")] * 2
    if bind == "ON_OPEN":  # bound: never re-driven, the stuck-message trace
        assert not any(isinstance(a, ChannelRetry) for a in model.actions(state))
        assert not pw.not_fixed_redriven(model, state)
        return
    last = [d for d in pw._decisions(state) if d.redrive]
    assert last and all(d.chosen is None and d.away_from == "QM2" for d in last)
    assert ChannelRetry("QM1", "QM2", "") in model.actions(state)
    after = retry_channel(state, "QM1", "QM2", state.next_step - 1, model.mutations)
    assert not list(pw._stuck(after)) and after.channel("QM1", "QM2").messages == ()
    assert pw.not_fixed_redriven(model, state)
    monkeypatch.setattr(pw, "retries", lambda state, mut: ())  # a model that never retries
    assert not pw.not_fixed_redriven(model, state)


def _stopped_servers_scenario():
    """Both servers stopped by steps before NOT_FIXED puts, then SERVER2 started again."""
    return parse_scenario(stopped_servers_text(), file="retry-stopped.toml")


def test_no_retry_bounces_messages_between_stopped_queue_managers():
    # Until session 28 check could recover a channel to a stopped queue manager (RUNNING in
    # name only: a message sent there went straight back into RETRYING), and retries bounced
    # messages between the two stopped servers' channels for ever (the ghost decisions made
    # that an endless space). Now a channel in retry connects only to a running queue
    # manager; the space stays small and the one outcome is run's
    from properties.workload import PROPERTIES as WORKLOAD

    scenario_ = _stopped_servers_scenario()
    assert messages_of(run_scenario(scenario_).final)["app"] == {"SERVER2": 3}
    result = explore(MQNetwork(scenario_, WORKLOAD), property_ids=["BD-NOT-FIXED-REDRIVE"], max_states=5000)
    assert result.statistics.complete and result.statistics.distinct_states < 200
    assert result.verdicts["BD-NOT-FIXED-REDRIVE"].status is Status.HOLDS
    assert result.verdicts["BD-REDRIVEN"].status is Status.WITNESSED


def test_a_channel_in_retry_connects_only_once_its_partner_runs():
    # 000 §Checking initial definitions: a channel RETRYING means "check ... that the listener
    # ... is running"; 004 §Clustering for availability: "routing messages to running queue
    # managers". The channel to the still-stopped SERVER1 stays in retry, and its retry
    # re-routes the message that waits there to SERVER2 (004 §Channel availability routing).
    from spec.network import ChannelRecover, ChannelRetry
    from spec.network.channels import reconnectable, recoverable

    scenario_ = _stopped_servers_scenario()
    model = MQNetwork(scenario_, ())
    state = _stepped(model, scenario_)
    assert state.route_status("QMAPP", "SERVER1") == "RETRYING" and _waiting(state, "SERVER1")
    acts = model.actions(state)
    assert ChannelRecover("QMAPP", "SERVER1") not in acts
    assert model.next_state(state, ChannelRecover("QMAPP", "SERVER1")) is None
    assert recoverable(state) == reconnectable(state)  # check and run: one rule
    assert ChannelRetry("QMAPP", "SERVER1") in acts
    after = model.next_state(state, ChannelRetry("QMAPP", "SERVER1"))
    assert _waiting(after, "SERVER1") == [] and after.route_status("QMAPP", "SERVER1") == "RETRYING"


def test_a_channel_in_retry_to_a_queue_manager_a_fault_stopped_connects_after_its_restart():
    # the fault model: QmgrStop/QmgrStart by the budget; the recovery waits for QmgrStart
    from spec.network import ChannelDeliver, ChannelFail, ChannelRecover, QmgrStart, QmgrStop
    from spec.network.state import ScenarioStep

    text = (ROOT / "tests" / "data" / "scenarios" / "redrive-both-retrying.toml").read_text().split("[[steps]]")[0] + (
        '[[steps]]\nopen = { qmgr = "QMAPP", handle = "app", queue = "DEMOQ", bind = "ON_OPEN" }\n'
        '[[steps]]\nput = { handle = "app", count = 1 }\n')
    scenario_ = parse_scenario(text, file="fault-stopped.toml")
    model = MQNetwork(scenario_, (), faults=2)
    (state,) = model.init_states()
    state = model.next_state(state, ScenarioStep(0))
    while (delivers := [a for a in model.actions(state) if isinstance(a, ChannelDeliver)]):
        state = model.next_state(state, delivers[0])
    state = model.next_state(state, ScenarioStep(1))
    dst = next(c.dst for c in state.channels if c.src == "QMAPP" and c.messages)  # bound: it stays there
    state = model.next_state(model.next_state(state, ChannelFail("QMAPP", dst)), QmgrStop(dst))
    assert state.route_status("QMAPP", dst) == "RETRYING"
    assert ChannelRecover("QMAPP", dst) not in model.actions(state)
    assert model.next_state(state, ChannelRecover("QMAPP", dst)) is None
    state = model.next_state(state, QmgrStart(dst))
    assert ChannelRecover("QMAPP", dst) in model.actions(state)
    state = model.next_state(state, ChannelRecover("QMAPP", dst))
    assert ChannelDeliver("QMAPP", dst) in model.actions(state)


def test_expect_is_judged_when_a_step_leaves_a_message_on_a_stopped_channel():
    from checker.cli import _check_properties

    text = (ROOT / "tests" / "data" / "scenarios" / "redrive-both-retrying.toml").read_text().split("[[steps]]")[0] + (
        '[[steps]]\nopen = { qmgr = "QMAPP", handle = "app", queue = "DEMOQ", bind = "ON_OPEN" }\n'
        '[[steps]]\nput = { handle = "app", count = 1 }\n'
        '[[steps]]\nchannel = { qmgr = "QMAPP", to = "SERVER1", status = "STOPPED" }\n'
        '[[steps]]\nchannel = { qmgr = "QMAPP", to = "SERVER2", status = "STOPPED" }\n'
        '[[expect]]\nmessages = { app = { SERVER1 = 1 } }\n')
    scenario_ = parse_scenario(text, file="stopped.toml")
    result = explore(MQNetwork(scenario_, _check_properties(scenario_)), property_ids=["EXPECT"])
    # an interleaving stops the channels before the message leaves: it never arrives
    assert result.verdicts["EXPECT"].status is Status.VIOLATED


def test_a_channel_step_naming_a_channel_to_another_queue_manager_is_logged():
    text = RETRYING.split("[[steps]]")[0] + (
        '[[steps]]\nchannel = { qmgr = "QMAPP", to = "SERVER2", status = "STOPPED", name = "DEMO.SERVER1" }\n')
    log = run_scenario(parse_scenario(text, file="other.toml")).final.log
    assert [(e.code, e.detail) for e in log] == [
        ("CHANNEL_NOT_FOUND", "channel DEMO.SERVER1: no sender channel of that name leads from QMAPP to SERVER2 "
                              "(manual or auto-defined)")]


def test_lint_reads_shared_addresses_and_change_scripts_as_the_model_does(tmp_path, capsys):
    from checker import lint
    from checker.cli import main
    from properties.lint import RULES, config_of_scenario

    text = THREE_FRS.split("[[steps]]")[0].replace("CONNAME('fr2(1414)') CLUSTER(DEMO)\nDEFINE CHANNEL(DEMO.FR1)",
                                                   "CONNAME('fr1(1414),fr2(1414)') CLUSTER(DEMO)\nDEFINE CHANNEL(DEMO.FR1)", 1)
    report = lint.run_rules([(config_of_scenario(parse_scenario(text, file="dup.toml")), {})], RULES)
    assert [f.rule for f in report.findings if f.rule == "DUP-QMGR"] == ["DUP-QMGR"]  # fr1(1414) twice
    # a change script linted on its own may ALTER and DELETE what the queue manager already has
    (tmp_path / "qmb.mqsc").write_text("ALTER QLOCAL(APP.Q) PUT(DISABLED)\nDELETE QLOCAL(OLD.Q)\n"
                                       "DEFINE TOPIC(T) DESCR('TOPICSTR(x) in text') TOPICSTR('X')\n")
    assert main(["lint", str(tmp_path / "qmb.mqsc")]) == 0
    assert "0 findings" in capsys.readouterr().out
