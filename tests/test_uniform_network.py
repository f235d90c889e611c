"""Uniform clusters in the whole network model (issue #19): `mqcheck run` reproduces 004's
DISPLAY APSTATUS figures, `mqcheck check` finds the misconfigurations with short traces,
mutants of the balancing rules are caught, and scenarios without a uniform cluster keep
their states and fingerprints.

The examples' state counts and verdicts are pinned in tests/manifests/uniform.json
(regenerate: ``python tests/test_uniform_network.py --update``).
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from checker.cli import _check_properties
from checker.explore import explore
from spec import uniform as uc
from spec.network import MQNetwork, run_scenario
from spec.network.uniform import apstatus_of
from spec.scenario import load_scenario

EXAMPLES = ROOT / "examples"
MANIFEST = ROOT / "tests" / "manifests" / "uniform.json"


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "checker.cli", *args], cwd=ROOT, capture_output=True, text=True,
                          env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "PYTHONHASHSEED": "0"})


class RulesNetwork(MQNetwork):
    """The network with other balancing rules (a mutant or a parameter), from its start."""

    def __init__(self, scenario, rules: uc.Rules, **kw) -> None:
        super().__init__(scenario, _check_properties(scenario), **kw)
        self.rules = rules

    def init_states(self):
        return tuple(replace(s, uniform=replace(s.uniform, rules=self.rules)) for s in super().init_states())


def check(name: str, rules: uc.Rules | None = None, **bounds):
    scenario = load_scenario(EXAMPLES / name)
    model = MQNetwork(scenario, _check_properties(scenario)) if rules is None else RulesNetwork(scenario, rules)
    return explore(model, workers=1, max_states=bounds.get("max_states", scenario.check.max_states),
                   max_depth=scenario.check.max_depth)


# =============================================================================== mqcheck run
def test_run_reproduces_004_display_apstatus():
    report = run_scenario(load_scenario(EXAMPLES / "uc-amqsphac-demo.toml"))
    assert all(r.ok for r in report.expectations)
    view = apstatus_of(report.final)
    # 004 §View application status
    assert view["appl"] == [
        {"APPLNAME": "AMQSPHAC", "CLUSTER": "UNIDEMO", "COUNT": 8, "MOVCOUNT": 8, "BALANCED": "YES"},
        {"APPLNAME": "AMQSPUTC", "CLUSTER": "", "COUNT": 2, "MOVCOUNT": 0, "BALANCED": "NOTAPPLIC"},
    ]
    assert [(r["APPLNAME"], r["QMNAME"], r["COUNT"], r["MOVCOUNT"], r["BALSTATE"]) for r in view["qmgr"]] == [
        ("AMQSPHAC", "UNID001", 3, 3, "OK"), ("AMQSPHAC", "UNID002", 3, 3, "OK"), ("AMQSPHAC", "UNID003", 2, 2, "OK"),
        ("AMQSPUTC", "UNID001", 2, 0, "NOTAPPLIC"),
    ]


def test_run_text_and_json_show_apstatus():
    done = cli("run", "examples/uc-amqsphac-demo.toml")
    assert done.returncode == 0, done.stderr
    assert "DISPLAY APSTATUS(*) TYPE(APPL)" in done.stdout and "DISPLAY APSTATUS(*) TYPE(QMGR)" in done.stdout
    assert any(line.split() == ["AMQSPHAC", "UNID003", "YES", "2", "2", "OK"] for line in done.stdout.splitlines())
    data = json.loads(cli("run", "examples/uc-amqsphac-demo.toml", "--json").stdout)
    assert data["apstatus"]["appl"][0] == {"APPLNAME": "AMQSPHAC", "CLUSTER": "UNIDEMO", "COUNT": 8, "MOVCOUNT": 8,
                                           "BALANCED": "YES"}
    plain = json.loads(cli("run", "examples/cluster-two-frs.toml", "--json").stdout)
    assert "apstatus" not in plain


@pytest.mark.parametrize("name", sorted(p.name for p in EXAMPLES.glob("uc-*.toml")))
def test_examples_run_and_their_expectations_hold(name):
    report = run_scenario(load_scenario(EXAMPLES / name))
    assert [r.failures for r in report.expectations if not r.ok] == []


def test_missing_real_name_entries_are_a_run_finding():
    done = cli("run", "examples/uc-ccdt-missing-real-names.toml")
    assert done.returncode == 0
    assert "CCDT finding: the CCDT examples/uc-ccdt-group-only.json has no entry under UNID002's real name" \
        in done.stdout
    assert "UC_NO_CCDT_ENTRY" in done.stdout


def test_a_failed_apstatus_expectation_exits_1(tmp_path):
    text = (EXAMPLES / "uc-amqsphac-demo.toml").read_text().replace('count = 8\nmovcount = 8',
                                                                     'count = 9\nmovcount = 8')
    (tmp_path / "s.toml").write_text(text)
    (tmp_path / "uc-ccdt.json").write_text((EXAMPLES / "uc-ccdt.json").read_text())
    done = cli("run", str(tmp_path / "s.toml"))
    assert done.returncode == 1
    assert "APSTATUS(AMQSPHAC) TYPE(APPL) COUNT: expected 9, got 8" in done.stdout


def test_bad_ccdt_exits_2_with_position(tmp_path):
    (tmp_path / "s.toml").write_text((EXAMPLES / "uc-amqsphac-demo.toml").read_text())
    (tmp_path / "uc-ccdt.json").write_text('{"channel": [\n  {"name": "X",}\n]}')
    done = cli("run", str(tmp_path / "s.toml"))
    assert done.returncode == 2
    assert done.stderr.strip().endswith("uc-ccdt.json:2:16: invalid JSON: Expecting property name enclosed in "
                                        "double quotes (JSON CCDTs are strict JSON: commas between members, "
                                        "none after the last)")
    assert "Traceback" not in done.stderr


# =============================================================================== mqcheck check
def test_missing_ccdt_entries_violate_balance_with_a_short_trace():
    result = check("uc-ccdt-missing-real-names.toml")
    v = result.verdicts["UC-BALANCED"]
    assert v.status.value == "violated" and v.trace.length <= 8
    assert result.verdicts["UC-NO-CCDT-ENTRY"].status.value == "witnessed"
    assert result.verdicts["UC-TERMINATION"].status.value == "holds"


def test_mixed_reconnect_options_violate_balance():
    result = check("uc-mixed-reconnect.toml")
    assert result.verdicts["UC-BALANCED"].status.value == "violated"
    assert result.verdicts["UC-NON-RECONNECTABLE-STAY"].status.value == "holds"
    assert result.verdicts["UC-FIXED-AT-DONOR"].status.value == "witnessed"


def test_a_donor_stopping_with_requests_unanswered_still_settles_balanced(tmp_path):
    """004 §Automatic Application balancing: "Automatically handle rebalancing following
    planned and unplanned queue manager outages". The three members of the AMQSPHAC demo,
    three reconnectable instances (all on UNID001 at first), and UNID001 stopped for good at
    any point of the balancing: whatever was asked of UNID001 before it stopped, the running
    members end balanced. The checker used to find a 4-step trace where UNID003's request to
    UNID001 was never answered and UNID003 never asked again (0/3/0)."""
    demo = (EXAMPLES / "uc-amqsphac-demo.toml").read_text().split("[[steps]]")[0]
    (tmp_path / "s.toml").write_text(demo + """
[[steps]]
connect = { app = "R", count = 3, via = "*ANY_QM", reconnect = true }
[[steps]]
qmgr = { name = "UNID001", action = "stop" }
""")
    (tmp_path / "uc-ccdt.json").write_text((EXAMPLES / "uc-ccdt.json").read_text())
    scenario = load_scenario(tmp_path / "s.toml")
    result = explore(MQNetwork(scenario, _check_properties(scenario)), workers=1, max_states=50_000)
    assert result.statistics.complete
    assert result.verdicts["UC-BALANCED"].status.value == "holds"
    assert result.verdicts["UC-TERMINATION"].status.value == "holds"


def two_fulls_two_partials(tmp_path, steps: str) -> Path:
    """A uniform cluster of four members: FR1 and FR2 full repositories of UNIDEMO, PR3 and
    PR4 partial repositories that each know FR1 by a manual CLUSSDR (so neither holds the
    other's record). The CCDT group lists PR3 first: every instance lands on PR3."""
    hosts = {"FR1": "host1", "FR2": "host2", "PR3": "host3", "PR4": "host4"}

    def entry(qm: str, host: str) -> dict:
        return {"name": "SVRCONN.CHANNEL", "type": "clientConnection",
                "clientConnection": {"connection": [{"host": host, "port": 1414}], "queueManager": qm}}

    channels = [entry("ANY_QM", hosts[q]) for q in ("PR3", "PR4", "FR1", "FR2")]
    channels += [entry(q, h) for q, h in hosts.items()]
    (tmp_path / "ccdt.json").write_text(json.dumps({"channel": channels}, indent=1))
    text = 'name = "two full and two partial repositories"\nccdt = "ccdt.json"\n'
    for q, h in hosts.items():
        full = q.startswith("FR")
        other = "FR2" if q == "FR1" else "FR1"
        text += f"""
[qmgrs.{q}]
uniform_cluster = "UNIDEMO"
mqsc = \"\"\"
{"ALTER QMGR REPOS(UNIDEMO)" if full else ""}
DEFINE CHANNEL(TO.{q}) CHLTYPE(CLUSRCVR) TRPTYPE(TCP) CONNAME('{h}(1414)') CLUSTER(UNIDEMO)
DEFINE CHANNEL(TO.{other}) CHLTYPE(CLUSSDR) TRPTYPE(TCP) CONNAME('{hosts[other]}(1414)') CLUSTER(UNIDEMO)
\"\"\"
"""
    (tmp_path / "s.toml").write_text(text + steps)
    return tmp_path / "s.toml"


def test_partial_repository_members_balance_with_each_other(tmp_path):
    """004 §the "uniform cluster" pattern: the members are "All members of an MQ Cluster";
    "MQ will automatically share application connectivity knowledge between queue managers"
    and keep instances "balanced across the queue managers"; §Automatic Application
    balancing: "Every member of the uniform cluster will detect an imbalance". Two partial
    repositories that are both members know each other through the full repositories: four
    instances end 1/1/1/1. (A member used to know only the members its own repository held
    records of, so PR4 never heard of PR3 and the cluster settled 1/1/2/0, BALANCED(NO).)"""
    path = two_fulls_two_partials(tmp_path, """
[[steps]]
connect = { app = "R", count = 4, via = "*ANY_QM", reconnect = true }
""")
    report = run_scenario(load_scenario(path))
    view = apstatus_of(report.final)
    assert view["appl"] == [{"APPLNAME": "R", "CLUSTER": "UNIDEMO", "COUNT": 4, "MOVCOUNT": 4, "BALANCED": "YES"}]
    assert [(r["QMNAME"], r["COUNT"]) for r in view["qmgr"]] == [("FR1", 1), ("FR2", 1), ("PR3", 1), ("PR4", 1)]


def test_partial_repository_members_still_know_each_other_while_the_full_repositories_are_down(tmp_path):
    """004 §the "uniform cluster" pattern: members share knowledge and keep instances
    balanced; a full repository being down does not make a member forget the other members
    it learnt of through it (a stopped queue manager keeps its repository). With FR1 and
    FR2 stopped, the instances connect to PR3 and PR4 asks PR3 for its share: 2/2."""
    path = two_fulls_two_partials(tmp_path, """
[[steps]]
qmgr = { name = "FR1", action = "stop" }
[[steps]]
qmgr = { name = "FR2", action = "stop" }
[[steps]]
connect = { app = "R", count = 4, via = "*ANY_QM", reconnect = true }
""")
    view = apstatus_of(run_scenario(load_scenario(path)).final)
    assert view["appl"][0]["BALANCED"] == "YES"
    assert [(r["QMNAME"], r["ACTIVE"], r["COUNT"]) for r in view["qmgr"]] == [
        ("FR1", "NO", 0), ("FR2", "NO", 0), ("PR3", "YES", 2), ("PR4", "YES", 2)]


# --- mutants: each breaks one documented rule; the checker must catch it -----------------
def test_mutant_moving_non_reconnectable_instances_is_caught():
    result = check("uc-mixed-reconnect.toml", uc.Rules(mutant_move_fixed=True))
    v = result.verdicts["UC-NON-RECONNECTABLE-STAY"]
    assert v.status.value == "violated" and v.trace.length <= 12


def test_mutant_ignoring_the_ccdt_is_caught():
    result = check("uc-ccdt-missing-real-names.toml", uc.Rules(mutant_ignore_ccdt=True))
    v = result.verdicts["UC-DIRECTED-HAS-ENTRY"]
    assert v.status.value == "violated" and v.trace.length <= 8


def test_mutant_asking_again_after_a_refusal_never_settles():
    # without the memory of what it asked on which knowledge, a member whose request is
    # refused (no CCDT entry under its name) asks again for ever: UC-TERMINATION's lasso
    result = check("uc-ccdt-missing-real-names.toml", uc.Rules(mutant_forget_asked=True))
    v = result.verdicts["UC-TERMINATION"]
    assert v.status.value == "violated" and v.trace.loop_start is not None


# =============================================================================== no uniform cluster
# blake2b-128 of the settled initial state's encoding of scenarios without a uniform cluster,
# pinned when issue #19's field joined issue #17's digest encoding: a state that has no
# uniform cluster must not change encoding because the field exists (nor for any other
# reason unnoticed: a deliberate encoding change re-pins these)
BEFORE = {
    # all three re-pinned for issue #14 round 4: two ghost fields joined every state
    # (ClusterCache.last_subscribe, QmgrState.psclus_asked; docs/decisions.md), and again in
    # session 27: LocalPubSub.proxy_blocking (a proxy subscription's WILDCARD(BLOCK) nodes,
    # captured when it is registered) joined every queue manager's state (docs/decisions.md,
    # "Session 27"); the values are the same, only the field list grew
    # All three re-pinned again in session 28: a full repository that answers a partial
    # repository's JOIN now subscribes it to the full repositories' records it is given
    # (ClusterCache.subscribers holds more entries in the settled initial state;
    # docs/decisions.md, "Session 28: repository and auto-definition fidelity review").
    # All three re-pinned in session 29: the joiners list that subscription in their own
    # ClusterCache.interests and make it at a second full repository too (more subscribers,
    # the auto-defined channels that subscription and its answer ran over, and the ghost
    # ``discarded`` where the answer repeated records already held); nothing else moved
    # (docs/decisions.md, "Session 29").
    "cluster-two-frs.toml": "0ac487caa4a9ca7d3774b6bdeb3644a5",
    # re-pinned in session 12: its partial repositories now learn both full repositories in
    # the initial settling (docs/decisions.md, "Session 12")
    "wl-amqsclm.toml": "fdb59d9b36396ee6db53c5ecda4a77d2",
    "ps-sports-cluster.toml": "723040bc923659aeeb35451b2735e258",
}


@pytest.mark.parametrize("name,digest", sorted(BEFORE.items()))
def test_scenarios_without_a_uniform_cluster_keep_their_encodings(name, digest):
    model = MQNetwork(load_scenario(EXAMPLES / name))
    (state,) = model.init_states()
    assert state.uniform is None
    assert hashlib.blake2b(model.encode(state), digest_size=16).hexdigest() == digest


def test_uniform_states_pickle_and_encode_the_same_in_another_process():
    # the Spark backend ships states between processes: same value, same bytes
    import pickle

    report = run_scenario(load_scenario(EXAMPLES / "uc-mixed-reconnect.toml"))
    model = MQNetwork(load_scenario(EXAMPLES / "uc-mixed-reconnect.toml"))
    again = pickle.loads(pickle.dumps(report.final))
    assert again == report.final and model.encode(again) == model.encode(report.final)
    code = ("import pickle,sys,hashlib; sys.path.insert(0, %r); from spec.encoding import canonical_bytes; "
            "print(hashlib.blake2b(canonical_bytes(pickle.loads(sys.stdin.buffer.read())), digest_size=8).hexdigest())"
            % str(ROOT))
    for seed in ("0", "123"):
        out = subprocess.run([sys.executable, "-c", code], input=pickle.dumps(report.final), capture_output=True,
                             env={"PYTHONHASHSEED": seed, "PATH": "/usr/bin:/bin"}, check=True).stdout
        assert out.decode().strip() == hashlib.blake2b(model.encode(report.final), digest_size=8).hexdigest()


def test_uc_properties_only_for_uniform_scenarios():
    assert not any(p.id.startswith("UC-") for p in _check_properties(load_scenario(EXAMPLES / "cluster-two-frs.toml")))
    scale = {p.id for p in _check_properties(load_scenario(EXAMPLES / "uc-scale-out.toml"))}
    outage = {p.id for p in _check_properties(load_scenario(EXAMPLES / "uc-outage-recovery.toml"))}
    assert {"UC-BALANCED", "UC-NON-RECONNECTABLE-STAY", "UC-SCALE-OUT", "UC-NO-CCDT-ENTRY", "UC-TERMINATION"} <= scale
    assert "UC-RECOVERY" in outage and "UC-RECOVERY" not in scale and "UC-SCALE-OUT" not in outage


# =============================================================================== manifest
def summary(result) -> dict:
    return {"distinct_states": result.statistics.distinct_states, "max_depth": result.statistics.max_depth,
            "complete": result.statistics.complete,
            "verdicts": {pid: v.status.value for pid, v in sorted(result.verdicts.items())}}


ENTRIES = sorted(json.loads(MANIFEST.read_text()).items()) if MANIFEST.exists() else []


@pytest.mark.parametrize("name,expected", ENTRIES, ids=[n for n, _ in ENTRIES])
def test_example_matches_uniform_manifest(name, expected):
    assert summary(check(name)) == expected


def test_manifest_covers_every_uniform_example():
    assert sorted(n for n, _ in ENTRIES) == sorted(p.name for p in EXAMPLES.glob("uc-*.toml"))


if __name__ == "__main__":
    if "--update" not in sys.argv:
        sys.exit(__doc__)
    names = [a for a in sys.argv[1:] if a != "--update"] or sorted(p.name for p in EXAMPLES.glob("uc-*.toml"))
    manifest = dict(ENTRIES)
    for n in names:
        manifest[n] = summary(check(n))
        print(n, manifest[n]["distinct_states"], manifest[n]["max_depth"], manifest[n]["complete"])
    MANIFEST.write_text(json.dumps(dict(sorted(manifest.items())), indent=2) + "\n")
