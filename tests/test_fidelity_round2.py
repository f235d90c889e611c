"""Fidelity round 2 (issue #18): behaviours IBM's documents state, as scenarios written
from the cited sections, with their neighbouring cases. Each runs as a user would run it
(`mqcheck run`/`check` through ``checker.cli.main``) or through ``run_scenario``.
"""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import pytest

from checker.cli import main
from spec.network import run_scenario
from spec.scenario import parse_scenario


def fr(name: str, *others: str, cluster: str = "DEMO") -> str:
    sdrs = "\n".join(f"DEFINE CHANNEL(TO.{o}) CHLTYPE(CLUSSDR) CONNAME('{o.lower()}(1414)') CLUSTER({cluster})"
                     for o in others)
    return (f"[qmgrs.{name}]\nmqsc = '''\nALTER QMGR REPOS({cluster})\n"
            f"DEFINE CHANNEL(TO.{name}) CHLTYPE(CLUSRCVR) CONNAME('{name.lower()}(1414)') CLUSTER({cluster})\n"
            f"{sdrs}\n'''\n")


def pr(name: str, to: str, extra: str = "", cluster: str = "DEMO") -> str:
    return (f"[qmgrs.{name}]\nmqsc = '''\n"
            f"DEFINE CHANNEL(TO.{name}) CHLTYPE(CLUSRCVR) CONNAME('{name.lower()}(1414)') CLUSTER({cluster})\n"
            f"DEFINE CHANNEL(TO.{to}) CHLTYPE(CLUSSDR) CONNAME('{to.lower()}(1414)') CLUSTER({cluster})\n"
            f"{extra}\n'''\n")


def steps(*lines: str) -> str:
    return "".join(f"[[steps]]\n{line}\n" for line in lines)


def run(text: str):
    return run_scenario(parse_scenario(text, "s.toml"))


def cli(tmp_path: Path, text: str, *args: str) -> tuple[int, str, str]:
    path = tmp_path / "s.toml"
    path.write_text(text)
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main([args[0], str(path), *args[1:]])
    return status, out.getvalue(), err.getvalue()


def arrived(report, handle: str) -> dict:
    return {k: v for k, v in report.to_json()["messages"].get(handle, {}).items() if v}


# =======================================================================================
# 5. Unavailable full repositories — 000 §Considerations for Full Repositories: "manually
# defining a cluster sender channel to that queue manager will make the Partial Repository
# attempt to use it first, but if that Full Repository is unavailable, it will then use
# any other Full Repositories that it knows about"; 003 §Queue managers and repositories.
# =======================================================================================

THREE_FRS = (fr("FR1", "FR2", "FR3") + fr("FR2", "FR1", "FR3") + fr("FR3", "FR1", "FR2")
             + pr("PR1", "FR2", "DEFINE QLOCAL(CQ1) CLUSTER(DEMO)") + pr("PR3", "FR1"))
TWO_FRS = fr("FR1", "FR2") + fr("FR2", "FR1") + pr("PR1", "FR1", "DEFINE QLOCAL(CQ1) CLUSTER(DEMO)") + pr("PR3", "FR1")
OPEN_PUT = ('open = { qmgr = "PR3", handle = "h1", queue = "CQ1" }', 'put = { handle = "h1", count = 2 }')


@pytest.mark.parametrize("stopped", [(), ("FR1",), ("FR2",), ("FR1", "FR2"), ("FR1", "FR3")],
                         ids=lambda s: "stopped:" + (",".join(s) or "none"))
def test_a_partial_repository_subscribes_at_full_repositories_that_are_up(stopped):
    # three FRs: whichever one or two are down, PR3 learns CQ1 from one that is up
    report = run(THREE_FRS + steps(*(f'qmgr = {{ name = "{n}", action = "stop" }}' for n in stopped), *OPEN_PUT))
    assert arrived(report, "h1") == {"PR1": 2}
    assert not report.blocked
    assert "CQ1" in report.to_json()["repositories"]["PR3"]["DEMO"]["queues"]
    assert not set(subscribed_at(report, "PR3", "CQ1")) & set(stopped)


def test_the_preferred_full_repository_first_when_it_is_up():
    # neighbouring case: everything up; the manual CLUSSDR's FR (FR1) gets the subscription
    report = run(THREE_FRS + steps(*OPEN_PUT))
    assert arrived(report, "h1") == {"PR1": 2}
    assert subscribed_at(report, "PR3", "CQ1") == ["FR1", "FR2"]  # preferred first, then one other


def subscribed_at(report, who: str, queue: str) -> list[str]:
    """The full repositories holding ``who``'s subscription for ``queue``."""
    return sorted(q.name for q in report.final.qmgrs for c in q.caches if c.full
                  for s in c.subscribers if s[1] == who and s[3] == queue)


def test_a_full_repository_back_before_the_put_answers_it():
    # both FRs down at MQOPEN: the subscription waits on the transmission queue for FR1;
    # FR1 restarts before the put, answers, and the put goes through
    report = run(TWO_FRS + steps('qmgr = { name = "FR1", action = "stop" }', 'qmgr = { name = "FR2", action = "stop" }',
                                 OPEN_PUT[0], 'qmgr = { name = "FR1", action = "start" }', OPEN_PUT[1]))
    assert arrived(report, "h1") == {"PR1": 2}
    assert not report.blocked


def test_two_full_repositories_still_when_one_is_unavailable(tmp_path):
    # 003: a change goes "to the chosen repository and also to one other repository (if
    # there is one)": the one out of service gets it when it is back (RP-TWO-FRS agrees)
    text = TWO_FRS + steps('qmgr = { name = "FR1", action = "stop" }',
                           "mqsc = { qmgr = \"PR3\", commands = \"DEFINE QLOCAL(CQ3) CLUSTER(DEMO)\" }")
    assert run(text).to_json()["repositories"]["FR2"]["DEMO"]["queues"]["CQ3"] == ["PR3"]
    back = run(text + steps('qmgr = { name = "FR1", action = "start" }'))
    assert back.to_json()["repositories"]["FR1"]["DEMO"]["queues"]["CQ3"] == ["PR3"]
    status, out, _ = cli(tmp_path, text, "check", "--json", "--quiet", "--workers", "1",
                         "--property", "RP-TWO-FRS", "--property", "RP-PR-CONVERGENCE")
    assert {k: v["status"] for k, v in json.loads(out)["verdicts"].items()} == {
        "RP-TWO-FRS": "holds", "RP-TWO-FRS-WITNESS": "witnessed", "RP-PR-CONVERGENCE": "holds",
        "RP-PR-SUBSCRIBED": "witnessed"}  # the joiners' subscriptions for the full repositories' records (session 29)
    assert status == 0


BOTH_DOWN = TWO_FRS + steps('qmgr = { name = "FR1", action = "stop" }', 'qmgr = { name = "FR2", action = "stop" }',
                            *OPEN_PUT) + "[[expect]]\nmessages = { h1 = { PR1 = 2 } }\n"


def test_run_reports_a_put_that_can_never_be_taken_and_exits_1(tmp_path):
    # no full repository can answer: `run` used to crash (AttributeError in the settle
    # loop); the step that can never be taken is a finding
    status, out, err = cli(tmp_path, BOTH_DOWN, "run", "--json")
    assert status == 1, err
    data = json.loads(out)
    assert "steps[3]" in data["blocked"] and "never be taken" in data["blocked"]
    assert [e["code"] for e in data["errors"]] == ["STEP_NEVER_TAKEN"]
    assert "Traceback" not in err


def test_check_reports_the_deadlock_as_a_violation_not_a_vacuous_pass(tmp_path):
    status, out, _ = cli(tmp_path, BOTH_DOWN, "check", "--json", "--quiet", "--workers", "1")
    assert status == 1
    verdicts = json.loads(out)["verdicts"]
    assert verdicts["EXPECT"]["status"] == "violated"
    assert verdicts["EXPECT-END"]["status"] == "never reached"


def test_check_says_which_step_can_never_be_taken(tmp_path):
    # the counterexample's last state is explained as `run` explains it
    status, out, _ = cli(tmp_path, BOTH_DOWN, "check", "--quiet", "--workers", "1")
    assert status == 1
    why = out[out.index("Counterexample for EXPECT"):]
    assert "  At its last state:\n    - steps[3] can never be taken: " in why


# =======================================================================================
# 7. PSCLUS(DISABLED) — 002 §Inhibiting clustered publish/subscribe in a cluster: "No
# clustered topic objects can exist in any cluster of which this queue manager is a member
# when modifying from ENABLED to DISABLED. Any such topics (even remotely defined ones) must
# be deleted before disabling this function"
# =======================================================================================

PS_CLUSTER = fr("FR1", "FR2") + fr("FR2", "FR1") + pr("PR1", "FR1") + pr("PR2", "FR2")
DISABLE_AT_PR2 = 'mqsc = { qmgr = "PR2", commands = "ALTER QMGR PSCLUS(DISABLED)" }'
DEFINE_AT_PR1 = "mqsc = { qmgr = \"PR1\", commands = \"DEFINE TOPIC(SPORT) TOPICSTR('Sport') CLUSTER(DEMO)\" }"


def psclus(report, qmgr: str) -> str:
    return report.final.qmgr(qmgr).defs.psclus


def test_psclus_disabled_refused_while_a_remote_clustered_topic_exists():
    report = run(PS_CLUSTER + steps(DEFINE_AT_PR1, DISABLE_AT_PR2))
    assert psclus(report, "PR2") == "ENABLED"
    [entry] = [e for e in report.to_json()["errors"] if e["qmgr"] == "PR2"]
    assert "PSCLUS(DISABLED)" in entry["detail"] and "SPORT" in entry["detail"] and "defined elsewhere" in entry["detail"]


def test_psclus_disabled_refused_while_a_local_clustered_topic_exists():
    report = run(PS_CLUSTER + steps("mqsc = { qmgr = \"PR2\", commands = \"DEFINE TOPIC(SPORT) TOPICSTR('Sport') "
                                    "CLUSTER(DEMO)\" }", DISABLE_AT_PR2))
    assert psclus(report, "PR2") == "ENABLED"


def test_psclus_disabled_accepted_without_clustered_topics():
    report = run(PS_CLUSTER + steps("mqsc = { qmgr = \"PR1\", commands = \"DEFINE TOPIC(SPORT) TOPICSTR('Sport')\" }",
                                    DISABLE_AT_PR2))
    assert psclus(report, "PR2") == "DISABLED"
    assert report.to_json()["errors"] == []


def test_psclus_disabled_accepted_once_the_clustered_topic_is_deleted():
    report = run(PS_CLUSTER + steps(DEFINE_AT_PR1, 'mqsc = { qmgr = "PR1", commands = "DELETE TOPIC(SPORT)" }',
                                    DISABLE_AT_PR2))
    assert psclus(report, "PR2") == "DISABLED"


# =======================================================================================
# 8. MQSO_SCOPE_ALL — 002 §Subscription scope: "Subscribers can override the SUBSCOPE
# setting by specifying either the MQSO_SCOPE_QMGR or MQSO_SCOPE_ALL subscription option
# when creating a subscription."
# =======================================================================================

def scoped(subscope: str, scope: str | None) -> str:
    option = f', scope = "{scope}"' if scope else ""
    return PS_CLUSTER + steps(
        f"mqsc = {{ qmgr = \"FR1\", commands = \"DEFINE TOPIC(SPORT) TOPICSTR('Sport') CLUSTER(DEMO) "
        f"SUBSCOPE({subscope})\" }}",
        f'subscribe = {{ qmgr = "PR2", name = "S1", topic = "Sport/#"{option} }}',
        'subscribe = { qmgr = "PR1", name = "LOCAL", topic = "Sport/#" }',
        'publish = { qmgr = "PR1", topic = "Sport/Rugby" }')


@pytest.mark.parametrize("subscope, scope, remote", [
    ("QMGR", "ALL", True),     # MQSO_SCOPE_ALL overrides SUBSCOPE(QMGR)
    ("QMGR", None, False),     # no option: the topic's SUBSCOPE(QMGR) keeps it local
    ("QMGR", "QMGR", False),
    ("ALL", None, True),
    ("ALL", "QMGR", False),    # MQSO_SCOPE_QMGR overrides SUBSCOPE(ALL)
    ("ALL", "ALL", True),
])
def test_subscription_scope_options_override_subscope(subscope, scope, remote):
    delivered = run(scoped(subscope, scope)).to_json()["deliveries"]
    assert delivered["PR2"]["S1"] == (["Sport/Rugby"] if remote else [])
    assert delivered["PR1"]["LOCAL"] == ["Sport/Rugby"]  # local delivery whatever the scope


# =======================================================================================
# 2. A stopped local CLUSRCVR — 001 rule 6: with CLWLUSEQ(ANY) "the local queue is chosen,
# based on the status of the locally-defined CLUSRCVR channels in the same cluster as the
# queue ... That CLUSRCVR has STOPPING status, whereas the other queues of the same name in
# the cluster have RUNNING or INACTIVE status. In this case the remote channels will be
# chosen, and the local queue is not used."
# =======================================================================================

def useq(receivers: int, clwluseq: str, *commands: str) -> str:
    rcvrs = "\n".join(f"DEFINE CHANNEL(TO.QMA.{i}) CHLTYPE(CLUSRCVR) CONNAME('qma({1413 + i})') CLUSTER(IVANS)"
                      for i in range(1, receivers + 1))
    text = (f"[qmgrs.QMA]\nmqsc = '''\nALTER QMGR REPOS(IVANS)\n{rcvrs}\n"
            "DEFINE CHANNEL(TO.QMB) CHLTYPE(CLUSSDR) CONNAME('qmb(1414)') CLUSTER(IVANS)\n"
            f"DEFINE QLOCAL(CLUSQ) CLUSTER(IVANS) CLWLUSEQ({clwluseq})\n'''\n"
            "[qmgrs.QMB]\nmqsc = '''\nALTER QMGR REPOS(IVANS)\n"
            "DEFINE CHANNEL(TO.QMB) CHLTYPE(CLUSRCVR) CONNAME('qmb(1414)') CLUSTER(IVANS)\n"
            "DEFINE CHANNEL(TO.QMA.1) CHLTYPE(CLUSSDR) CONNAME('qma(1414)') CLUSTER(IVANS)\n"
            "DEFINE QLOCAL(CLUSQ) CLUSTER(IVANS)\n'''\n")
    return text + steps(*(f'mqsc = {{ qmgr = "QMA", commands = "{c}" }}' for c in commands),
                        'open = { qmgr = "QMA", handle = "app", queue = "CLUSQ", bind = "NOT_FIXED" }',
                        'put = { handle = "app", count = 20 }')


@pytest.mark.parametrize("receivers, clwluseq, commands, expected", [
    (1, "ANY", (), {"QMA": 10, "QMB": 10}),                                 # one against one
    (1, "ANY", ("STOP CHANNEL(TO.QMA.1)",), {"QMB": 20}),                    # 001's example: remote chosen
    (1, "ANY", ("STOP CHANNEL(TO.QMA.1)", "START CHANNEL(TO.QMA.1)"), {"QMA": 10, "QMB": 10}),
    (4, "ANY", (), {"QMA": 16, "QMB": 4}),                                  # 001's four-fifths
    (4, "ANY", ("STOP CHANNEL(TO.QMA.2)",), {"QMA": 15, "QMB": 5}),          # three running against one
    (1, "LOCAL", ("STOP CHANNEL(TO.QMA.1)",), {"QMA": 20}),                  # LOCAL: the local instance anyway
], ids=["any-1", "any-1-stopped", "any-1-restarted", "any-4", "any-4-one-stopped", "local-stopped"])
def test_the_local_clusrcvr_status_enters_rule_6(receivers, clwluseq, commands, expected):
    report = run(useq(receivers, clwluseq, *commands))
    assert arrived(report, "app") == expected
    assert report.to_json()["errors"] == []


# =======================================================================================
# 1. CLWLUSEQ(ANY) on a partial repository — 000 §Utilising remote destinations ("ANY = ...
# choose either local or remote queues"), §First MQOPEN of a Queue; 001 rule 6 (four
# CLUSRCVRs against one CLUSSDR: four-fifths local)
# =======================================================================================

def pr_useq(queue_useq: str, qmgr_useq: str = "", receivers: int = 4, remote: bool = True) -> str:
    rcvrs = "\n".join(f"DEFINE CHANNEL(TO.PR1.{i}) CHLTYPE(CLUSRCVR) CONNAME('pr1({1413 + i})') CLUSTER(DEMO)"
                      for i in range(1, receivers + 1))
    alter = f"ALTER QMGR CLWLUSEQ({qmgr_useq})\n" if qmgr_useq else ""
    pr1 = (f"[qmgrs.PR1]\nmqsc = '''\n{alter}{rcvrs}\n"
           "DEFINE CHANNEL(TO.FR1) CHLTYPE(CLUSSDR) CONNAME('fr1(1414)') CLUSTER(DEMO)\n"
           f"DEFINE QLOCAL(CLUSQ) CLUSTER(DEMO) CLWLUSEQ({queue_useq})\n'''\n")
    others = fr("FR1", "FR2") + fr("FR2", "FR1")
    if remote:
        others += pr("PR2", "FR2", "DEFINE QLOCAL(CLUSQ) CLUSTER(DEMO)")
    return others + pr1 + steps('open = { qmgr = "PR1", handle = "app", queue = "CLUSQ", bind = "NOT_FIXED" }',
                                'put = { handle = "app", count = 20 }')


@pytest.mark.parametrize("queue_useq, qmgr_useq, receivers, remote, expected", [
    ("ANY", "", 4, True, {"PR1": 16, "PR2": 4}),      # 001's 80%/20%, on a partial repository
    ("ANY", "", 1, True, {"PR1": 10, "PR2": 10}),
    ("QMGR", "ANY", 4, True, {"PR1": 16, "PR2": 4}),  # inherited from the queue manager
    ("QMGR", "", 4, True, {"PR1": 20}),               # the queue manager's default LOCAL
    ("LOCAL", "ANY", 4, True, {"PR1": 20}),
    ("ANY", "", 4, False, {"PR1": 20}),               # no other instance anywhere
], ids=["any-4", "any-1", "qmgr-any", "qmgr-local", "local", "any-alone"])
def test_clwluseq_any_on_a_partial_repository_learns_the_remote_instances(queue_useq, qmgr_useq, receivers,
                                                                          remote, expected):
    report = run(pr_useq(queue_useq, qmgr_useq, receivers, remote))
    assert arrived(report, "app") == expected
    assert report.to_json()["errors"] == []
    if remote and expected.get("PR2"):
        assert report.to_json()["repositories"]["PR1"]["DEMO"]["queues"]["CLUSQ"] == ["PR1", "PR2"]


# =======================================================================================
# 10. WL-LOCAL-USEQ against WL-PUT-INHIBITED — 001 rule 5's note: "If only put disabled
# instances remain then only inquire operations will succeed, all other operations will
# fail with MQRC_CLUSTER_PUT_INHIBITED": rule 6 (the local instance) never applies then.
# =======================================================================================

def put_disabled(local_put: str, remote_put: str) -> str:
    return ("[qmgrs.QMA]\nmqsc = '''\nALTER QMGR REPOS(IVANS)\n"
            "DEFINE CHANNEL(TO.QMA) CHLTYPE(CLUSRCVR) CONNAME('qma(1414)') CLUSTER(IVANS)\n"
            "DEFINE CHANNEL(TO.QMB) CHLTYPE(CLUSSDR) CONNAME('qmb(1414)') CLUSTER(IVANS)\n"
            f"DEFINE QLOCAL(CLUSQ) CLUSTER(IVANS) PUT({local_put})\n'''\n"
            "[qmgrs.QMB]\nmqsc = '''\nALTER QMGR REPOS(IVANS)\n"
            "DEFINE CHANNEL(TO.QMB) CHLTYPE(CLUSRCVR) CONNAME('qmb(1414)') CLUSTER(IVANS)\n"
            "DEFINE CHANNEL(TO.QMA) CHLTYPE(CLUSSDR) CONNAME('qma(1414)') CLUSTER(IVANS)\n"
            f"DEFINE QLOCAL(CLUSQ) CLUSTER(IVANS) PUT({remote_put})\n'''\n"
            + steps('open = { qmgr = "QMA", handle = "app", queue = "CLUSQ", bind = "NOT_FIXED" }',
                    'put = { handle = "app", count = 2 }'))


@pytest.mark.parametrize("local_put, remote_put, arrived_at, code", [
    ("DISABLED", "DISABLED", {}, "MQRC_CLUSTER_PUT_INHIBITED"),  # rule 5's note; rule 6 never applies
    ("ENABLED", "DISABLED", {"QMA": 2}, None),                    # rule 6: the local instance
    ("DISABLED", "ENABLED", {"QMB": 2}, None),                    # rule 5 before rule 6
    ("ENABLED", "ENABLED", {"QMA": 2}, None),                     # CLWLUSEQ(LOCAL)
], ids=["both-disabled", "remote-disabled", "local-disabled", "both-enabled"])
def test_local_useq_and_put_inhibited_agree(tmp_path, local_put, remote_put, arrived_at, code):
    text = put_disabled(local_put, remote_put)
    report = run(text)
    assert arrived(report, "app") == arrived_at
    assert [e["code"] for e in report.to_json()["errors"]] == ([code] * 2 if code else [])
    status, out, _ = cli(tmp_path, text, "check", "--json", "--quiet", "--workers", "1",
                         "--property", "WL-LOCAL-USEQ", "--property", "WL-PUT-INHIBITED")
    verdicts = json.loads(out)["verdicts"]
    assert verdicts["WL-LOCAL-USEQ"]["status"] == "holds"
    assert verdicts["WL-PUT-INHIBITED"]["status"] == "holds"
    assert status == 0


# =======================================================================================
# 9. RP-PR-CONVERGENCE as 000 states it — 000 §Considerations for Full Repositories: "if
# the 2 Full Repositories to which a queue manager subscribed for a queue are both
# off-line, then that queue manager will not find out about administrative changes to the
# queue, even if there are other Full Repositories available."
# =======================================================================================

OFFLINE = (fr("FR1", "FR2", "FR3") + fr("FR2", "FR1", "FR3") + fr("FR3", "FR1", "FR2")
           + pr("PR1", "FR3", "DEFINE QLOCAL(CQ1) CLUSTER(DEMO)") + pr("PR3", "FR1"))
CHANGE = "mqsc = { qmgr = \"PR1\", commands = \"ALTER QLOCAL(CQ1) PUT(DISABLED)\" }"


def pr3_put_of_cq1(report) -> str:
    return next(r.info.put for r in report.final.qmgr("PR3").cache("DEMO").live()
                if r.kind == "QUEUE" and r.key == "CQ1")


def test_a_partial_repository_whose_full_repositories_are_off_line_misses_a_change(tmp_path):
    text = OFFLINE + steps('open = { qmgr = "PR3", handle = "h1", queue = "CQ1" }',
                           'qmgr = { name = "FR1", action = "stop" }', 'qmgr = { name = "FR2", action = "stop" }',
                           CHANGE)
    report = run(text)
    assert pr3_put_of_cq1(report) == "ENABLED"  # it did not find out, as 000 says
    assert pr3_put_of_cq1(run(text + steps('qmgr = { name = "FR1", action = "start" }'))) == "DISABLED"
    status, out, _ = cli(tmp_path, text, "check", "--json", "--quiet", "--workers", "1",
                         "--property", "RP-PR-CONVERGENCE", "--property", "RP-FR-CONVERGENCE")
    assert json.loads(out)["verdicts"]["RP-PR-CONVERGENCE"]["status"] == "holds"
    assert status == 0


def test_the_thirty_day_resubscription_goes_to_a_full_repository_that_is_up():
    # 000 §Considerations for Full Repositories: "Partial Repositories will re-subscribe for
    # cluster queue and cluster queue manager information every 30 days", and a partial
    # repository whose preferred full repository "is unavailable ... will then use any other
    # Full Repositories that it knows about". The missed change of the case above reaches
    # PR3 at its next 30-day cycle, from FR3, with FR1 and FR2 still off-line.
    text = OFFLINE + steps('open = { qmgr = "PR3", handle = "h1", queue = "CQ1" }',
                           'qmgr = { name = "FR1", action = "stop" }', 'qmgr = { name = "FR2", action = "stop" }',
                           CHANGE)
    assert pr3_put_of_cq1(run(text + steps("advance = { days = 29 }"))) == "ENABLED"  # not yet due
    report = run(text + steps("advance = { days = 31 }"))
    assert pr3_put_of_cq1(report) == "DISABLED"
    subscribers = report.final.qmgr("FR3").cache("DEMO").subscribers
    assert ("QUEUE", "CQ1") in {(s[2], s[3]) for s in subscribers if s[1] == "PR3"}


def test_a_partial_repository_with_a_full_repository_up_converges():
    # neighbouring case: only one of its two FRs is off-line: the other notifies it
    text = OFFLINE + steps('open = { qmgr = "PR3", handle = "h1", queue = "CQ1" }',
                           'qmgr = { name = "FR1", action = "stop" }', CHANGE)
    assert pr3_put_of_cq1(run(text)) == "DISABLED"


# =======================================================================================
# 6. A CLUSRCVR CONNAME without a port — 003 §Auto-definition of channels: "suppose ... you
# define a CLUSRCVR without specifying a port number in the CONNAME parameter, and manually
# define a CLUSSDR that does specify a port number. When the auto-defined CLUSSDR replaces
# the manually defined one, the port number (taken from the CLUSRCVR) becomes blank. The
# default port number is used and the channel fails."
# =======================================================================================

def portless(fr1_rcvr: str, to_fr1: str, pr1_to_fr1: str | None = None) -> str:
    return (f"[qmgrs.FR1]\nmqsc = '''\nALTER QMGR REPOS(DEMO)\n"
            f"DEFINE CHANNEL(TO.FR1) CHLTYPE(CLUSRCVR) CONNAME('{fr1_rcvr}') CLUSTER(DEMO)\n"
            "DEFINE CHANNEL(TO.FR2) CHLTYPE(CLUSSDR) CONNAME('fr2(1414)') CLUSTER(DEMO)\n'''\n"
            f"[qmgrs.FR2]\nmqsc = '''\nALTER QMGR REPOS(DEMO)\n"
            "DEFINE CHANNEL(TO.FR2) CHLTYPE(CLUSRCVR) CONNAME('fr2(1414)') CLUSTER(DEMO)\n"
            f"DEFINE CHANNEL(TO.FR1) CHLTYPE(CLUSSDR) CONNAME('{to_fr1}') CLUSTER(DEMO)\n'''\n"
            f"[qmgrs.PR1]\nmqsc = '''\n"
            "DEFINE CHANNEL(TO.PR1) CHLTYPE(CLUSRCVR) CONNAME('pr1(1414)') CLUSTER(DEMO)\n"
            f"DEFINE CHANNEL(TO.FR1) CHLTYPE(CLUSSDR) CONNAME('{pr1_to_fr1 or to_fr1}') CLUSTER(DEMO)\n'''\n"
            + steps("mqsc = { qmgr = \"PR1\", commands = \"DEFINE QLOCAL(CQ1) CLUSTER(DEMO)\" }"))


def test_a_clusrcvr_without_a_port_joins_then_its_auto_defined_channel_fails():
    report = run(portless("fr1", "fr1(1420)"))
    data = report.to_json()
    # initial contact works: PR1's and FR2's manual CLUSSDRs reach FR1, which answers them
    assert data["repositories"]["PR1"]["DEMO"]["qmgrs"] == ["FR1", "PR1"]
    assert "FR2" in data["repositories"]["FR2"]["DEMO"]["qmgrs"] and "FR1" in data["repositories"]["FR2"]["DEMO"]["qmgrs"]
    # then the auto-defined CLUSSDRs to FR1 (CONNAME 'fr1': the default port) fail
    retrying = {(c.src, c.dst) for c in report.final.channels if c.status == "RETRYING"}
    assert retrying == {("PR1", "FR1"), ("FR2", "FR1")}
    assert sorted(e["qmgr"] for e in data["errors"] if e["code"] == "CHANNEL_RETRYING") == ["FR2", "PR1"]
    # so FR2's answer never reaches FR1, and PR1's new queue never reaches a full repository
    assert [j["qmgr"] for j in data["not_joined"]] == ["FR1"]
    assert "RETRYING" in data["not_joined"][0]["reason"]
    assert data["repositories"]["FR1"]["DEMO"]["queues"] == {} == data["repositories"]["FR2"]["DEMO"]["queues"]


@pytest.mark.parametrize("fr1_rcvr, to_fr1", [
    ("fr1(1420)", "fr1(1420)"),   # the port on both: nothing fails
    ("fr1", "fr1"),               # no port on either: the default port on both
    ("fr1", "fr1(1414)"),         # the manual CLUSSDR names the default port
], ids=["both-ports", "no-ports", "default-port"])
def test_matching_connames_never_fail(fr1_rcvr, to_fr1):
    data = run(portless(fr1_rcvr, to_fr1)).to_json()
    assert data["not_joined"] == [] and data["errors"] == []
    assert data["repositories"]["FR1"]["DEMO"]["queues"] == {"CQ1": ["PR1"]}


@pytest.mark.parametrize("fr2_to_fr1, pr1_to_fr1", [("fr1(1414)", "fr1(1420)"), ("fr1(1420)", "fr1(1414)")],
                         ids=["fr2-default", "pr1-default"])
def test_a_listener_at_the_default_port_too_is_reached_by_the_auto_defined_channels(fr2_to_fr1, pr1_to_fr1):
    # Session 28 (fuzzing): both manual CLUSSDRs reach FR1, so it listens at both ports; the
    # channel fails only because "the default port number is used" where nothing listens,
    # and here one manual CLUSSDR reached FR1 at the default port
    data = run(portless("fr1", fr2_to_fr1, pr1_to_fr1)).to_json()
    assert data["not_joined"] == [] and data["errors"] == []
    assert data["repositories"]["FR1"]["DEMO"]["queues"] == {"CQ1": ["PR1"]}


def test_correcting_the_clusrcvr_conname_lets_the_retrying_channels_connect():
    # 000 §Resource definition for Full Repositories: "If you alter a cluster receiver
    # channel, the changes are not immediately reflected in the corresponding automatically
    # defined cluster sender channels. ... If the sender channels are in retry, the next time
    # they hit a retry interval, they will pick up the changes." 003's failing channel, then
    # the administrator puts the listener's port into FR1's CLUSRCVR: FR2 receives FR1's
    # new record over the running FR1->FR2 channel, and its channel to FR1, in retry, picks
    # up the port and connects; FR1 hears from FR2 at last.
    fix = steps("mqsc = { qmgr = \"FR1\", commands = \"ALTER CHANNEL(TO.FR1) CHLTYPE(CLUSRCVR) CONNAME('fr1(1420)')\" }")
    report = run(portless("fr1", "fr1(1420)") + fix)
    data = report.to_json()
    assert report.final.channel("FR2", "FR1").status == "RUNNING"
    assert ("FR2", "FR1") not in report.final.held_by_step
    assert "FR2" in data["repositories"]["FR1"]["DEMO"]["qmgrs"]
    assert not any(q.startswith("SYSTEM.TEMPQMGR") for q in data["repositories"]["FR1"]["DEMO"]["qmgrs"])
    assert data["not_joined"] == []
    # a channel a step set RETRYING stays so: only the CONNAME's failure is lifted
    held = steps('channel = { qmgr = "FR2", to = "FR1", status = "RETRYING" }')
    report = run(portless("fr1(1420)", "fr1(1420)") + held + fix)
    assert report.final.channel("FR2", "FR1").status == "RETRYING"


def test_a_partial_repository_that_joined_through_a_full_repository_picks_up_its_corrected_clusrcvr():
    # The same correction seen from PR1, which knows FR1 only from joining through it (it
    # uses no queue there). 003 §Queue managers and repositories: a queue manager that joins
    # "immediately learns which other queue managers in the cluster hold full
    # repositories", and a partial repository asks "that thereafter they be notified of any
    # new information concerning that queue or queue manager"; 000 §Resource definition for
    # Full Repositories: the auto-defined CLUSSDRs "pick up the changes" of an altered
    # CLUSRCVR. So FR1's new record reaches PR1, PR1's channel connects, and the queue PR1
    # defined while it failed reaches both full repositories.
    fix = steps("mqsc = { qmgr = \"FR1\", commands = \"ALTER CHANNEL(TO.FR1) CHLTYPE(CLUSRCVR) CONNAME('fr1(1420)')\" }")
    report = run(portless("fr1", "fr1(1420)") + fix)
    data = report.to_json()
    assert report.final.qmgr("PR1").cache("DEMO").qmgr_record_of("FR1").info.conname == "fr1(1420)"
    assert report.final.channel("PR1", "FR1").status == "RUNNING"
    assert data["repositories"]["FR1"]["DEMO"]["queues"] == {"CQ1": ["PR1"]} == data["repositories"]["FR2"]["DEMO"]["queues"]


# =======================================================================================
# 4. Demoting full repositories — 000 §Considerations for Full Repositories: "If the Full
# Repositories are taken off-line as part of scheduled maintenance, then this can be
# overcome by altering the Full Repositories to be Partial Repositories before taking them
# off-line, which will cause the queue managers within the cluster to remake their
# subscriptions elsewhere."
# =======================================================================================

MAINTENANCE = (fr("FR1", "FR2", "FR3") + fr("FR2", "FR1", "FR3") + fr("FR3", "FR1", "FR2")
               + pr("PR1", "FR3", "DEFINE QLOCAL(CQ1) CLUSTER(DEMO)") + pr("PR2", "FR3") + pr("PR3", "FR1"))


def demote(name: str) -> str:
    return f"mqsc = {{ qmgr = \"{name}\", commands = \"ALTER QMGR REPOS(' ')\" }}"


def maintenance(*middle: str) -> str:
    return MAINTENANCE + steps('open = { qmgr = "PR3", handle = "h1", queue = "CQ1", bind = "NOT_FIXED" }', *middle,
                               "mqsc = { qmgr = \"PR2\", commands = \"DEFINE QLOCAL(CQ1) CLUSTER(DEMO)\" }",
                               'put = { handle = "h1", count = 4 }')


STOP_BOTH = ('qmgr = { name = "FR1", action = "stop" }', 'qmgr = { name = "FR2", action = "stop" }')


def test_demoted_full_repositories_make_members_subscribe_elsewhere():
    report = run(maintenance(demote("FR1"), demote("FR2"), *STOP_BOTH))
    assert subscribed_at(report, "PR3", "CQ1") == ["FR3"]
    # the queue defined during the outage is learnt, and used
    assert report.to_json()["repositories"]["PR3"]["DEMO"]["queues"] == {"CQ1": ["PR1", "PR2"]}
    assert arrived(report, "h1") == {"PR1": 2, "PR2": 2}


def test_full_repositories_taken_off_line_without_demoting_leave_members_uninformed():
    # the neighbouring case 000 warns about: "that queue manager will not find out"
    report = run(maintenance(*STOP_BOTH))
    assert report.to_json()["repositories"]["PR3"]["DEMO"]["queues"] == {"CQ1": ["PR1"]}
    assert arrived(report, "h1") == {"PR1": 4}


def test_demoting_one_full_repository_moves_only_its_subscriptions():
    report = run(maintenance(demote("FR1")))
    assert subscribed_at(report, "PR3", "CQ1") == ["FR2", "FR3"]
    assert arrived(report, "h1") == {"PR1": 2, "PR2": 2}


# =======================================================================================
# 3. Several CLUSRCVRs per queue manager per cluster, and NETPRTY — 001 rule 12; 000 §Workload
# management features: "the higher network priority route is always used when its channel
# is in a good state"
# =======================================================================================

def two_routes(p1: int, p2: int, second_server: bool = False) -> str:
    server = ("[qmgrs.SERVER]\nmqsc = '''\n"
              f"DEFINE CHANNEL(TO.SERVER.A) CHLTYPE(CLUSRCVR) CONNAME('server(1414)') CLUSTER(DEMO) NETPRTY({p1})\n"
              + ("" if second_server else
                 f"DEFINE CHANNEL(TO.SERVER.B) CHLTYPE(CLUSRCVR) CONNAME('server(1415)') CLUSTER(DEMO) NETPRTY({p2})\n")
              + "DEFINE CHANNEL(TO.FR2) CHLTYPE(CLUSSDR) CONNAME('fr2(1414)') CLUSTER(DEMO)\n"
              "DEFINE QLOCAL(CQ1) CLUSTER(DEMO)\n'''\n")
    other = ("[qmgrs.OTHER]\nmqsc = '''\n"
             f"DEFINE CHANNEL(TO.OTHER) CHLTYPE(CLUSRCVR) CONNAME('other(1414)') CLUSTER(DEMO) NETPRTY({p2})\n"
             "DEFINE CHANNEL(TO.FR2) CHLTYPE(CLUSSDR) CONNAME('fr2(1414)') CLUSTER(DEMO)\n"
             "DEFINE QLOCAL(CQ1) CLUSTER(DEMO)\n'''\n") if second_server else ""
    return (fr("FR1", "FR2") + fr("FR2", "FR1") + pr("PR3", "FR1") + server + other
            + steps('open = { qmgr = "PR3", handle = "h1", queue = "CQ1", bind = "NOT_FIXED" }',
                    'put = { handle = "h1", count = 4 }'))


def channels_used(report) -> dict:
    used: dict = {}
    for q in report.final.qmgrs:
        for d in q.decisions:
            if d.chosen:
                used[d.chosen[1]] = used.get(d.chosen[1], 0) + 1
    return used


@pytest.mark.parametrize("p1, p2, expected", [
    (1, 2, {"TO.SERVER.B": 4}),                   # the higher NETPRTY route to SERVER, always
    (5, 0, {"TO.SERVER.A": 4}),
    (3, 3, {"TO.SERVER.A": 2, "TO.SERVER.B": 2}),  # equal: both routes, round robin
])
def test_netprty_chooses_between_two_routes_to_one_queue_manager(p1, p2, expected):
    report = run(two_routes(p1, p2))
    assert arrived(report, "h1") == {"SERVER": 4}
    assert channels_used(report) == expected
    # both CLUSRCVRs are published: the full repositories hold a record for each
    fr1 = report.final.qmgr("FR1").cache("DEMO")
    assert sorted(r.info.channel for r in fr1.qmgr_records() if r.owner_name == "SERVER") == ["TO.SERVER.A",
                                                                                              "TO.SERVER.B"]


def test_netprty_does_not_choose_between_queue_managers():
    # neighbouring case: rule 12 compares routes to the same queue manager only
    report = run(two_routes(1, 2, second_server=True))
    assert arrived(report, "h1") == {"SERVER": 2, "OTHER": 2}


# Round 2 of behaviour 3: each route has a channel status of its own (000: "The higher
# network priority route is always used when it's channel is in a good state"; 001 rules
# 8-11, channel status, come before rule 12, NETPRTY). SERVER's first CLUSRCVR is the pair's
# channel, its second a separate route; both orders are tried (`first` names the first).
def routes(high: str, first: str = "A", *lines: str, p_high: int = 5, p_low: int = 1, extra_b: str = "",
           other: bool = False) -> str:
    prty = {"A": p_high if high == "A" else p_low, "B": p_high if high == "B" else p_low}
    defs = {c: (f"DEFINE CHANNEL(TO.SERVER.{c}) CHLTYPE(CLUSRCVR) CONNAME('server-{c.lower()}(1414)') "
                f"CLUSTER(DEMO) NETPRTY({prty[c]}){extra_b if c == 'B' else ''}\n") for c in "AB"}
    order = "AB" if first == "A" else "BA"
    server = ("[qmgrs.SERVER]\nmqsc = '''\n" + defs[order[0]] + defs[order[1]]
              + "DEFINE CHANNEL(TO.FR2) CHLTYPE(CLUSSDR) CONNAME('fr2(1414)') CLUSTER(DEMO)\n"
              "DEFINE QLOCAL(CQ1) CLUSTER(DEMO)\n'''\n")
    other_qm = ("[qmgrs.OTHER]\nmqsc = '''\n"
                "DEFINE CHANNEL(TO.OTHER) CHLTYPE(CLUSRCVR) CONNAME('other(1414)') CLUSTER(DEMO)\n"
                "DEFINE CHANNEL(TO.FR2) CHLTYPE(CLUSSDR) CONNAME('fr2(1414)') CLUSTER(DEMO)\n"
                "DEFINE QLOCAL(CQ1) CLUSTER(DEMO)\n'''\n") if other else ""
    return (fr("FR1", "FR2") + fr("FR2", "FR1") + pr("PR3", "FR1") + server + other_qm
            + steps('open = { qmgr = "PR3", handle = "h0", queue = "CQ1", bind = "NOT_FIXED" }',
                    'put = { handle = "h0", count = 1 }', *lines))


def stop(ch: str) -> str:
    return f'mqsc = {{ qmgr = "PR3", commands = "STOP CHANNEL(TO.SERVER.{ch})" }}'


def start(ch: str) -> str:
    return f'mqsc = {{ qmgr = "PR3", commands = "START CHANNEL(TO.SERVER.{ch})" }}'


def put(handle: str, count: int = 2) -> tuple[str, str]:
    return (f'open = {{ qmgr = "PR3", handle = "{handle}", queue = "CQ1", bind = "NOT_FIXED" }}',
            f'put = {{ handle = "{handle}", count = {count} }}')


def routes_of(report, handle: str) -> list[str]:
    """The channel each choice for ``handle``'s messages took, in order."""
    return [d.chosen[1] for d in report.final.qmgr("PR3").decisions if d.handle == handle and d.chosen]


def route_statuses(report) -> dict:
    s = report.final
    return {c: s.route_status("PR3", "SERVER", c if c != pair else "") for pair in
            [s.qmgr("PR3").cache("DEMO").qmgr_record_of("SERVER").info.channel] for c in ("TO.SERVER.A", "TO.SERVER.B")}


@pytest.mark.parametrize("first", ["A", "B"])
@pytest.mark.parametrize("high", ["A", "B"])
def test_the_lower_route_while_the_higher_one_is_stopped_and_back(high, first):
    low = "B" if high == "A" else "A"
    report = run(routes(high, first, *put("good"), stop(high), *put("down"), start(high), *put("back")))
    assert routes_of(report, "good") == [f"TO.SERVER.{high}"] * 2   # both good: the higher NETPRTY
    assert routes_of(report, "down") == [f"TO.SERVER.{low}"] * 2    # higher STOPPED: the lower, good one
    assert routes_of(report, "back") == [f"TO.SERVER.{high}"] * 2   # recovered: the higher again
    assert arrived(report, "down") == {"SERVER": 2} and arrived(report, "back") == {"SERVER": 2}
    assert report.final.in_flight() == 0 and not report.final.log


@pytest.mark.parametrize("first", ["A", "B"])
def test_stopping_one_route_leaves_the_other_in_its_state(first):
    report = run(routes("B", first, stop("B")))
    statuses = route_statuses(report)
    assert statuses["TO.SERVER.B"] == "STOPPED" and statuses["TO.SERVER.A"] in ("INACTIVE", "RUNNING")


@pytest.mark.parametrize("first", ["A", "B"])
@pytest.mark.parametrize("status_a, status_b, chosen", [
    ("STOPPED", "STOPPED", "TO.SERVER.B"),    # both in the worst class: rule 12, the higher
    ("RETRYING", "STOPPED", "TO.SERVER.A"),   # rules 8-11 first: RETRYING beats STOPPED
    ("STOPPED", "RETRYING", "TO.SERVER.B"),
    ("RETRYING", "RETRYING", "TO.SERVER.B"),
])
def test_both_routes_bad_rule_order(first, status_a, status_b, chosen):
    # B is the higher route; the named `channel` step sets one route's status and holds it
    set_a = f'channel = {{ qmgr = "PR3", to = "SERVER", status = "{status_a}", name = "TO.SERVER.A" }}'
    set_b = f'channel = {{ qmgr = "PR3", to = "SERVER", status = "{status_b}", name = "TO.SERVER.B" }}'
    report = run(routes("B", first, set_a, set_b, *put("bad", 1)))
    assert routes_of(report, "bad") == [chosen]
    assert arrived(report, "bad") == {}                          # it waits for its route
    waiting = [m for ch in report.final.channels for m in ch.messages if getattr(m, "handle", "") == "bad"]
    pair = report.final.qmgr("PR3").cache("DEMO").qmgr_record_of("SERVER").info.channel
    assert [m.route or pair for m in waiting] == [chosen]


def test_a_stopped_route_loses_to_another_queue_manager_first():
    # 001's order: channel status (rules 8-11) over all routes before NETPRTY (rule 12):
    # SERVER's good lower route competes with OTHER; both SERVER routes bad: only OTHER
    report = run(routes("B", "A", stop("B"), *put("one_bad", 4), stop("A"), *put("both_bad", 4), other=True))
    assert arrived(report, "one_bad") == {"SERVER": 2, "OTHER": 2}
    assert set(routes_of(report, "one_bad")) == {"TO.SERVER.A", "TO.OTHER"}
    assert arrived(report, "both_bad") == {"OTHER": 4}


@pytest.mark.parametrize("prty_b, expected", [
    ("CLWLPRTY(4)", ["TO.SERVER.B"] * 4),                       # equal NETPRTY: rule 13 decides
    ("", ["TO.SERVER.B", "TO.SERVER.A"] * 2),                    # all equal: least recently used (h0 took A)
])
def test_equal_netprty_goes_to_the_next_rules(prty_b, expected):
    report = run(routes("B", "A", *put("eq", 4), p_high=3, p_low=3, extra_b=f" {prty_b}" if prty_b else ""))
    assert routes_of(report, "eq") == expected


def test_a_channel_step_without_a_name_sets_every_route():
    report = run(routes("B", "A", 'channel = { qmgr = "PR3", to = "SERVER", status = "STOPPED" }', *put("x", 1)))
    assert set(route_statuses(report).values()) == {"STOPPED"}
    assert routes_of(report, "x") == ["TO.SERVER.B"] and arrived(report, "x") == {}


def test_a_fault_on_the_higher_route_redrives_to_the_lower_route():
    # `check`'s channel fault is per route: the higher route's messages go to RETRYING and,
    # unbound, are re-driven to the lower route in a good state (004 §Channel availability
    # routing); the lower route's channel is untouched
    from spec.network import ChannelDeliver, ChannelFail, MQNetwork

    scenario = parse_scenario(routes("B", "A", *put("f", 1)), "s.toml")
    model = MQNetwork(scenario, faults=1)
    (state,) = model.init_states()
    for _ in range(len(scenario.steps)):   # the steps, settling the repository traffic between
        state = model.next_state(state, next(a for a in model.actions(state) if "ScenarioStep" in type(a).__name__))
        while True:
            app = [a for a in model.actions(state) if isinstance(a, ChannelDeliver)
                   and not any(getattr(m, "handle", "") == "f" for m in state.channel(a.src, a.dst).messages)]
            if not app:
                break
            state = model.next_state(state, app[0])
    fails = [a for a in model.actions(state) if isinstance(a, ChannelFail) and a.dst == "SERVER"]
    assert fails == [ChannelFail("PR3", "SERVER", "TO.SERVER.B")]  # the route the message waits on
    after = model.next_state(state, fails[0])
    assert after.route_status("PR3", "SERVER", "TO.SERVER.B") == "RETRYING"
    assert after.route_status("PR3", "SERVER") == state.route_status("PR3", "SERVER")
    (msg,) = [m for m in after.channel("PR3", "SERVER").messages if getattr(m, "handle", "") == "f"]
    assert msg.route == ""                                            # now on TO.SERVER.A
    assert [d.chosen[1] for d in after.qmgr("PR3").decisions if d.handle == "f"][-1] == "TO.SERVER.A"
    delivered = model.next_state(after, ChannelDeliver("PR3", "SERVER"))
    assert delivered.qmgr("SERVER").arrivals


def test_a_channel_step_name_must_be_an_mq_name(tmp_path):
    text = routes("B", "A", 'channel = { qmgr = "PR3", to = "SERVER", status = "STOPPED", name = "TO>B" }')
    status, out, err = cli(tmp_path, text, "run")
    line = next(i for i, t in enumerate(text.splitlines(), 1) if 'name = "TO>B"' in t)
    assert status == 2 and f"s.toml:{line}:" in err and "invalid channel name" in err and "Traceback" not in err


# =======================================================================================
# The defects above, re-introduced as mutants (issue #14 item 5: spec.network.Mutations).
# Each mutant brings its behaviour back as it was before this round: its scenario from the
# sections above gives the documented outcome on the real spec and the old one under the
# mutant. Whether fuzzing finds each: benchmarks/bench_fuzz_mutants.py, RESULTS.md.
# =======================================================================================

DEFECTS = {
    # mutant: (scenario, what the report says, on the real spec, under the mutant)
    "useq_any_no_subscribe": (pr_useq("ANY"), lambda r: arrived(r, "app"), {"PR1": 16, "PR2": 4}, {"PR1": 20}),
    "local_clusrcvr_status_ignored": (useq(1, "ANY", "STOP CHANNEL(TO.QMA.1)"), lambda r: arrived(r, "app"),
                                      {"QMB": 20}, {"QMA": 10, "QMB": 10}),
    "first_clusrcvr_only": (two_routes(1, 2), channels_used, {"TO.SERVER.B": 4}, {"TO.SERVER.A": 4}),
    # FR2, the other full repository holding PR3's subscriptions, is down: only FR1 itself can
    # tell PR3 of its demotion (when FR2 is up, FR2 tells it too: PR3 is subscribed there for
    # FR1's record since it joined, session 29)
    "demotion_untold": (maintenance('qmgr = { name = "FR2", action = "stop" }', demote("FR1")),
                        lambda r: arrived(r, "h1"), {"PR1": 2, "PR2": 2}, {"PR1": 4}),
    "unavailable_frs_chosen": (THREE_FRS + steps(*(f'qmgr = {{ name = "{n}", action = "stop" }}' for n in ("FR1", "FR2")),
                                                 *OPEN_PUT),
                               lambda r: (arrived(r, "h1"), bool(r.blocked)), ({"PR1": 2}, False), ({}, True)),
    "portless_conname_unreached": (portless("fr1", "fr1(1420)"),
                                   lambda r: r.to_json()["repositories"]["PR1"]["DEMO"]["qmgrs"],
                                   ["FR1", "PR1"], ["PR1", "SYSTEM.TEMPQMGR.fr1(1420)"]),  # never joins
    "psclus_remote_topics_ignored": (PS_CLUSTER + steps(DEFINE_AT_PR1, DISABLE_AT_PR2), lambda r: psclus(r, "PR2"),
                                     "ENABLED", "DISABLED"),
    "scope_all_ignored": (scoped("QMGR", "ALL"), lambda r: r.to_json()["deliveries"]["PR2"]["S1"], ["Sport/Rugby"], []),
}


@pytest.mark.parametrize("mutant", sorted(DEFECTS))
def test_each_defect_comes_back_under_its_mutant(mutant):
    from spec.network import Mutations

    text, observe, real, mutated = DEFECTS[mutant]
    scenario = parse_scenario(text, "s.toml")
    assert observe(run_scenario(scenario)) == real
    assert observe(run_scenario(scenario, mutations=Mutations(**{mutant: True}))) == mutated


def test_every_fidelity_mutant_has_its_scenario():
    import dataclasses

    from spec.network import Mutations

    declared = [f.name for f in dataclasses.fields(Mutations)]
    # the issue #18 mutants are declared together, after the DESIGN §5 ones
    assert set(declared[declared.index("useq_any_no_subscribe"):declared.index("explain")]) == set(DEFECTS)


# =======================================================================================
# Issue #14 (round 4): properties that state three of these rules, so that fuzzing the
# catalogue finds their mutants (benchmarks/bench_fuzz_mutants.py, BREAKS)
def _verdicts(text: str, ids: list[str], mutations=None) -> dict[str, str]:
    from checker.cli import _check_properties
    from checker.explore import explore
    from spec.network import MQNetwork, Mutations

    scenario = parse_scenario(text, "s.toml")
    model = MQNetwork(scenario, _check_properties(scenario), mutations=mutations or Mutations())
    result = explore(model, max_states=20000, property_ids=ids, workers=1)
    assert result.complete
    return {k: v.status.value for k, v in result.verdicts.items()}


# the demotion story, small enough to explore completely: PR3 subscribes at FR1 and FR2 for
# CQ1, then FR1 is altered to a partial repository. Two full repositories: with three
# (THREE_FRS) it took 8,544 states, and over 200,000 since every partial repository holds
# subscriptions (for the full repositories' records) and remakes them all at the demotion
# (session 29)
DEMOTE_ONE = (fr("FR1", "FR2") + fr("FR2", "FR1") + pr("PR1", "FR2", "DEFINE QLOCAL(CQ1) CLUSTER(DEMO)")
              + pr("PR3", "FR1")) + steps(
    'open = { qmgr = "PR3", handle = "h1", queue = "CQ1", bind = "NOT_FIXED" }', demote("FR1"))

RULE_PROPERTIES = {
    # mutant: (the property stating its rule, that property's witness, the scenario: None for DEFECTS')
    "useq_any_no_subscribe": ("WL-USEQ-ANY-SUBSCRIBED", "WL-USEQ-ANY-OPENED", None),
    "local_clusrcvr_status_ignored": ("WL-LOCAL-CLUSRCVR-STOPPED", "WL-LOCAL-CLUSRCVR-STOP", None),
    "scope_all_ignored": ("PS-SCOPE-OPTION", "PS-SCOPE-OVERRIDDEN", None),
    "first_clusrcvr_only": ("RP-FR-HOLDS-MEMBERS", "RP-MEMBERS-HELD", None),
    "demotion_untold": ("RP-PARTIAL-NO-SUBSCRIBERS", "RP-FR-DEMOTED", DEMOTE_ONE),
    "unavailable_frs_chosen": ("RP-SUBSCRIBE-AVAILABLE", "RP-SUBSCRIBED-AT-OPEN", None),
    "portless_conname_unreached": ("RP-MANUAL-CLUSSDR-JOINS", "RP-JOINED", None),
    "psclus_remote_topics_ignored": ("PS-PSCLUS-REFUSED", "PS-PSCLUS-ASKED", None),
}


def test_every_fidelity_mutant_has_a_rule_property():
    assert set(RULE_PROPERTIES) == set(DEFECTS)


@pytest.mark.parametrize("mutant", sorted(RULE_PROPERTIES))
def test_the_rule_property_holds_on_the_spec_and_fails_under_the_mutant(mutant):
    from spec.network import Mutations

    prop, witness, text = RULE_PROPERTIES[mutant]
    text = text or DEFECTS[mutant][0]
    assert _verdicts(text, [prop]) == {prop: "holds", witness: "witnessed"}
    assert _verdicts(text, [prop], Mutations(**{mutant: True}))[prop] == "violated"


@pytest.mark.parametrize("subscope, scope, overridden", [
    ("QMGR", "ALL", True), ("QMGR", None, False),
    # PR2 may subscribe before FR1's SUBSCOPE(QMGR) cluster topic reaches it: then SYSTEM.BASE.TOPIC's
    # SUBSCOPE(ALL) is what the option overrides, in the interleavings where the topic is late
    ("QMGR", "QMGR", True),
    ("ALL", None, False), ("ALL", "QMGR", True), ("ALL", "ALL", False),
])
def test_scope_option_is_judged_only_where_an_option_was_given(subscope, scope, overridden):
    verdicts = _verdicts(scoped(subscope, scope), ["PS-SCOPE-OPTION"])
    assert verdicts == {"PS-SCOPE-OPTION": "holds",
                        "PS-SCOPE-OVERRIDDEN": "witnessed" if overridden else "never reached"}


def test_a_stop_channel_at_a_stopped_queue_manager_is_not_judged():
    # found by `mqcheck fuzz` while writing the property: the step fails with
    # MQRC_Q_MGR_NOT_AVAILABLE and changes nothing, so the CLUSRCVR is not STOPPED after
    # the queue manager restarts
    text = useq(1, "ANY") + steps('qmgr = { name = "QMA", action = "stop" }',
                                  'mqsc = { qmgr = "QMA", commands = "STOP CHANNEL(TO.QMA.1)" }',
                                  'qmgr = { name = "QMA", action = "start" }')
    assert _verdicts(text, ["WL-LOCAL-CLUSRCVR-STOPPED"]) == {"WL-LOCAL-CLUSRCVR-STOPPED": "holds",
                                                             "WL-LOCAL-CLUSRCVR-STOP": "never reached"}


def test_stop_channel_of_a_sender_of_the_same_name_is_not_the_own_receiver():
    # STOP CHANNEL names a sender first (an auto-defined CLUSSDR carries its CLUSRCVR's
    # name): QMB's TO.QMA.1 is its CLUSSDR to QMA, not a CLUSRCVR of its own
    text = useq(1, "ANY") + steps('mqsc = { qmgr = "QMB", commands = "STOP CHANNEL(TO.QMA.1)" }')
    assert _verdicts(text, ["WL-LOCAL-CLUSRCVR-STOPPED"]) == {"WL-LOCAL-CLUSRCVR-STOPPED": "holds",
                                                             "WL-LOCAL-CLUSRCVR-STOP": "never reached"}


@pytest.mark.parametrize("stopped, down_target", [((), False), (("FR1",), False), (("FR1", "FR2"), True),
                                                  (("FR1", "FR3"), True)],
                         ids=lambda v: ",".join(v) if isinstance(v, tuple) else str(v))
def test_subscribe_available_over_the_stopped_full_repositories_table(stopped, down_target):
    # three FRs known: two available ones get the subscription; with one available, it and
    # one that is down (003: "also to one other repository (if there is one)")
    text = THREE_FRS + steps(*(f'qmgr = {{ name = "{n}", action = "stop" }}' for n in stopped), *OPEN_PUT)
    assert _verdicts(text, ["RP-SUBSCRIBE-AVAILABLE", "RP-SUBSCRIBED-PAST-DOWN"]) == {
        "RP-SUBSCRIBE-AVAILABLE": "holds", "RP-SUBSCRIBED-AT-OPEN": "witnessed",
        "RP-SUBSCRIBED-PAST-DOWN": "witnessed" if down_target else "never reached"}


def test_a_manual_clussdr_to_no_listener_is_not_judged():
    # a CONNAME no CLUSRCVR has: SYSTEM.TEMPQMGR for ever, no JOIN to carry (000 §Checking
    # initial definitions); RP-MANUAL-CLUSSDR-JOINS judges only CLUSSDRs that reach a listener
    text = fr("FR1") + pr("PR1", "NOWHERE")
    assert _verdicts(text, ["RP-MANUAL-CLUSSDR-JOINS"])["RP-MANUAL-CLUSSDR-JOINS"] == "holds"
