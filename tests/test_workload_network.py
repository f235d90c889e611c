"""Workload management and bind options on the network model (issue #7): the seeds'
examples as scenarios with their exact counts, `run --explain`, `check` finding the stuck
BIND_ON_OPEN message, the mutants the checker must catch, and pinned check results of the
small examples (tests/manifests/workload.json; regenerate with
``python tests/test_workload_network.py --update``).

Sources: 000 §Channel Rank example, §Queue Rank example, §Channel Weight example,
§Utilising remote destinations, §Rank and Overlapping Clusters, §Workload balancing - Bind
Options, §When does workload balancing occur?; 001; 004 §Pros and cons of binding,
§Channel availability routing, §AMQSCLM Logic.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
MANIFEST = ROOT / "tests" / "manifests" / "workload.json"
sys.path.insert(0, str(ROOT))

from checker.cli import _check_properties, main  # noqa: E402
from checker.explore import explore  # noqa: E402
from checker.model import Status  # noqa: E402
from properties.workload import PROPERTIES  # noqa: E402
from spec.scenario import load_scenario  # noqa: E402
from spec.system import MQNetwork, Mutations, messages_of, run_scenario  # noqa: E402


# ---------------------------------------------------------------------------------------
# Seed examples with `mqcheck run` — exact counts (001's "approximately" is exact in the
# model: no administrative traffic shares the channels)
# ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("example", sorted(p.name for p in EXAMPLES.glob("wl-*.toml")))
def test_properties_hold_on_every_run(example):
    # every WL-/BD- always property holds in the final state of `mqcheck run`, whose ghost
    # decisions cover every choice made (000's 100-put examples included)
    final = run_scenario(load_scenario(EXAMPLES / example)).final
    model = MQNetwork(load_scenario(EXAMPLES / example))
    for prop in PROPERTIES:
        if prop.kind.value == "always":
            assert prop.predicate(model, final), prop.id


@pytest.mark.parametrize("example,handle,counts", [
    # 000 §Channel Weight example: SERVER1 20%, SERVER2 50%, SERVER3 20%, SERVER4 10%
    ("wl-channel-weight.toml", "app", {"SERVER1": 20, "SERVER2": 50, "SERVER3": 20, "SERVER4": 10}),
    # 000 §Channel Rank example: "distributed equally between ... SERVER2 and SERVER3"
    ("wl-channel-rank.toml", "app", {"SERVER2": 50, "SERVER3": 50}),
    # 000 §Queue Rank example: "all messages are delivered to SERVER2"
    ("wl-queue-rank.toml", "app", {"SERVER2": 100}),
    # 001 rule 6: four CLUSRCVRs against one CLUSSDR, "Four-fifths (80 percent) ... local"
    ("wl-clwluseq-any.toml", "app", {"QMA": 80, "QMB": 20}),
    # 001 rule 5: the disabled instance is skipped until it is enabled
    ("wl-put-disabled.toml", "app", {"SERVER1": 5, "SERVER2": 3, "SERVER3": 5}),
    # 004 §AMQSCLM Logic: CLWLPRTY 1 where the consumers are, then swapped
    ("wl-amqsclm.toml", "app", {"SERVER1": 10, "SERVER2": 10}),
    # 004 §Pros and cons of binding: ON_OPEN waits for SERVER1, NOT_FIXED goes round it
    ("wl-failed-server.toml", "h_open", {"SERVER1": 5}),
    ("wl-failed-server.toml", "h_nf", {"SERVER2": 4}),
    # 000 §Rank and Overlapping Clusters: both end on SERVERD, with or without bouncing
    ("wl-overlap-bounce.toml", "app", {"SERVERD": 2}),
    ("wl-overlap-rank.toml", "app", {"SERVERD": 2}),
    # bind options: DEFBIND(OPEN) of the cluster queue, an alias's own DEFBIND(NOTFIXED),
    # one choice per group, a named queue manager
    ("wl-bind-options.toml", "h_def", {"SERVER1": 6}),
    ("wl-bind-options.toml", "h_alias", {"SERVER1": 2, "SERVER2": 2, "SERVER3": 2}),
    ("wl-bind-options.toml", "h_group", {"SERVER1": 1, "SERVER2": 4, "SERVER3": 4}),
    ("wl-bind-options.toml", "h_target", {"SERVER3": 4}),
    # 000 Scenarios 4 and 5: the gateway QMC resolves its clustered alias and balances over RED
    ("wl-gateway-scenarios.toml", "scenario4", {"QME": 2, "QMF": 2, "QMG": 2}),
    ("wl-gateway-scenarios.toml", "scenario5", {"QME": 2, "QMF": 2, "QMG": 2}),
    ("wl-stuck-on-open.toml", "app", {"SERVER1": 2}),
    ("wl-rank-beats-status.toml", "app", {"SERVER1": 2}),
    ("wl-redrive-not-fixed.toml", "app", {"SERVER1": 1, "SERVER2": 1}),
    ("wl-weights-small.toml", "app", {"SERVER1": 1, "SERVER2": 2}),
])
def test_seed_example_counts(example, handle, counts):
    report = run_scenario(load_scenario(EXAMPLES / example))
    assert messages_of(report.final)[handle] == counts
    assert all(r.ok for r in report.expectations)


def test_put_inhibited_is_reported():
    report = run_scenario(load_scenario(EXAMPLES / "wl-put-disabled.toml"))
    codes = [(e.qmgr, e.code) for e in report.final.log]
    assert codes == [("QMAPP", "MQRC_CLUSTER_PUT_INHIBITED")] * 2  # 001 rule 5 note: both puts fail


def test_run_json_has_messages_per_handle(capsys):
    assert main(["run", str(EXAMPLES / "wl-channel-rank.toml"), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["messages"] == {"app": {"SERVER2": 50, "SERVER3": 50}}
    assert "explanations" not in data


# ---------------------------------------------------------------------------------------
# run --explain: the rules applied and what each eliminated
# ---------------------------------------------------------------------------------------
def test_explain_shows_the_rules(capsys):
    assert main(["run", str(EXAMPLES / "wl-queue-rank.toml"), "--explain"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"app +SERVER2 +100 +100%", out)
    assert "steps[1] app message 0 at QMAPP: DEMOQ" in out
    assert ("rule 3 (channel CLWLRANK): highest CLWLRANK is 7; eliminated SERVER1 via TO.SERVER1, "
            "SERVER4 via TO.SERVER4") in out
    assert "rule 4 (queue CLWLRANK): highest queue CLWLRANK is 1; eliminated SERVER3 via TO.SERVER3" in out


def test_explain_shows_the_redrive_and_the_bounce(capsys):
    assert main(["run", str(EXAMPLES / "wl-failed-server.toml"), "--explain", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["explanations"]
    redriven = [r for r in rows if "re-driven" in r["put"]]
    assert [(r["handle"], r["message"], r["qmgr"]) for r in redriven] == [("h_nf", 1, "QMAPP")]
    assert any("eliminated SERVER1 via TO.SERVER1 (RETRYING)" in line for line in redriven[0]["rules"])
    assert main(["run", str(EXAMPLES / "wl-overlap-bounce.toml"), "--explain", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["explanations"]
    path = [r["qmgr"] for r in rows if r["message"] == 0]
    assert path == ["SERVERA", "SERVERB", "SERVERC", "SERVERD"]  # B sends it to C's alias


def test_gateway_reruns_the_algorithm(capsys):
    # 000 §When does workload balancing occur?: "at the far end the channel code issues an
    # MQPUT ... and the workload algorithm will be called"
    assert main(["run", str(EXAMPLES / "wl-gateway-scenarios.toml"), "--explain", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["explanations"]
    first = [(r["qmgr"], r["put"]) for r in rows if (r["handle"], r["message"]) == ("scenario5", 0)]
    assert first == [("QMA", "CQ1 (queue manager CQM)"), ("QMC", "CQ1, arrived over a cluster channel"),
                     ("QME", "CQ1, arrived over a cluster channel")]
    at_gateway = next(r["rules"] for r in rows if (r["handle"], r["message"], r["qmgr"]) == ("scenario5", 0, "QMC"))
    assert at_gateway[0] == "resolve (possible destinations): queue CQ1: 3 route(s)"


def test_partial_repository_learns_a_queue_manager_alias_when_it_opens(tmp_path):
    # 000 §First MQOPEN of a Queue: a partial repository subscribes for what it opens; for
    # MQOPEN(CQ1, CQM) that is the name CQM too, so Scenario 5 works from a partial repository
    text = (EXAMPLES / "wl-gateway-scenarios.toml").read_text()
    text = text.replace("ALTER QMGR REPOS(BLUE)\n", "").replace(
        "DEFINE CHANNEL(TO.QMA) CHLTYPE(CLUSSDR) CONNAME('qma(1414)') CLUSTER(BLUE)\n", "")
    path = tmp_path / "pr.toml"
    path.write_text(text)
    report = run_scenario(load_scenario(path))
    assert messages_of(report.final)["scenario5"] == {"QME": 2, "QMF": 2, "QMG": 2}
    assert all(r.ok for r in report.expectations)


# ---------------------------------------------------------------------------------------
# mqcheck check: the stuck BIND_ON_OPEN message, and NOT_FIXED re-routing
# ---------------------------------------------------------------------------------------
def test_check_finds_the_stuck_bind_on_open_message(capsys):
    code = main(["check", str(EXAMPLES / "wl-stuck-on-open.toml"), "--quiet"])
    out = capsys.readouterr().out
    assert code == 1
    assert "Counterexample for BD-NOT-FIXED-REDRIVE" in out
    trace = out.split("Counterexample for BD-NOT-FIXED-REDRIVE", 1)[1]
    # the shortest trace: SERVER1 fails, the handle binds to it at MQOPEN anyway (it is known
    # and its channel has not failed yet), the puts find the channel RETRYING and wait
    assert "QmgrStop(SERVER1)" in trace and '"RETRYING"' in trace
    assert "MSG app#0 to DEMOQ (bound) via QMAPP" in trace


def test_check_not_fixed_reroutes(capsys):
    code = main(["check", str(EXAMPLES / "wl-redrive-not-fixed.toml"), "--quiet"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "BD-REDRIVEN" in out and "witnessed" in out


# ---------------------------------------------------------------------------------------
# Mutants the checker must catch (DESIGN §5), with short counterexamples
# ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("example,mutation,caught", [
    ("wl-rank-beats-status.toml", "rank_after_status", "WL-RANK"),
    ("wl-weights-small.toml", "weight_ignored", "WL-WEIGHTS"),
    ("wl-stuck-on-open.toml", "redrive_bound_messages", "BD-ON-OPEN-FIXED"),
])
def test_mutant_is_caught(example, mutation, caught):
    scenario = load_scenario(EXAMPLES / example)
    sound = explore(MQNetwork(scenario, PROPERTIES, faults=1))
    assert sound.verdicts[caught].status is Status.HOLDS
    mutant = explore(MQNetwork(scenario, PROPERTIES, faults=1, mutations=Mutations(**{mutation: True})))
    verdict = mutant.verdicts[caught]
    assert verdict.status is Status.VIOLATED
    assert verdict.trace.length <= 3


# ---------------------------------------------------------------------------------------
# Pinned check results (DESIGN §5 "Manifests")
# ---------------------------------------------------------------------------------------
CHECKED = ["wl-overlap-bounce.toml", "wl-overlap-rank.toml", "wl-rank-beats-status.toml",
           "wl-redrive-not-fixed.toml", "wl-stuck-on-open.toml", "wl-weights-small.toml"]


def summary(name: str) -> dict:
    scenario = load_scenario(EXAMPLES / name)
    result = explore(MQNetwork(scenario, _check_properties(scenario)))
    return {
        "distinct_states": result.statistics.distinct_states,
        "max_depth": result.statistics.max_depth,
        "complete": result.statistics.complete,
        "verdicts": {pid: v.status.value for pid, v in sorted(result.verdicts.items()) if pid[:3] in ("WL-", "BD-")}
                    | {pid: v.status.value for pid, v in result.verdicts.items() if pid.startswith("EXPECT")},
    }


@pytest.mark.parametrize("name", CHECKED)
def test_check_matches_manifest(name):
    assert summary(name) == json.loads(MANIFEST.read_text())[name]


if __name__ == "__main__":
    if "--update" not in sys.argv:
        sys.exit(__doc__)
    MANIFEST.write_text(json.dumps({name: summary(name) for name in CHECKED}, indent=2, sort_keys=True) + "\n")
