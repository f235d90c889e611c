"""Session 37: a user trial of prove, fuzz, lint, match and report (docs/decisions.md,
"Session 37: user trial of prove, fuzz, lint, match and report").

Each test is one roughness the trial hit, and fails without its fix.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from checker.cli import main  # noqa: E402


def _mqcheck(*args: str, cwd: Path | None = None, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "checker.cli", *args], capture_output=True, text=True,
                          cwd=cwd or ROOT, timeout=timeout)


# ---------------------------------------------------------------- a reader that leaves: `mqcheck ... | head`

@pytest.mark.parametrize("args, status", [
    (["lint", "examples/fr-mesh-broken.toml"], 1),         # errors found
    (["check", "examples/fr-mesh-broken.toml"], 1),        # a violation
    (["match", "Sports/#", "Sports/Rugby"], 0),
    (["match", "Sports/#", "Rugby"], 1),                   # does not match
    (["prove", "PS-CFG-LOOP-BOUND", "--out", "{tmp}"], 0),
])
def test_a_closed_pipe_keeps_the_commands_own_exit_status(tmp_path, args, status):
    # `mqcheck lint ... | head -1` under `set -o pipefail`: the reader left before the output
    # was written, and mqcheck exited 0 ("nothing found", "matches") whatever it had found,
    # or 0 and 1 from one run to the next, as the reader's timing went.
    args = [a.replace("{tmp}", str(tmp_path)) for a in args]
    proc = subprocess.Popen([sys.executable, "-m", "checker.cli", *args], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.close()   # the reader is gone before anything is written
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == status, err
    assert "Traceback" not in err and "Exception ignored" not in err, err


# ---------------------------------------------------------------- lint: PUT-DISABLED needs every instance

def _pr(name: str, extra: str) -> str:
    return (f"DEFINE CHANNEL(TO.{name}) CHLTYPE(CLUSRCVR) CONNAME('{name.lower()}(1414)') CLUSTER(DEMO)\n"
            "DEFINE CHANNEL(TO.FR1) CHLTYPE(CLUSSDR) CONNAME('fr1(1414)') CLUSTER(DEMO)\n" + extra + "\n")


def test_put_disabled_on_one_mqsc_file_is_not_every_instance(tmp_path, capsys):
    # An administrator drains one instance with PUT(DISABLED) (004's amqsclm does so). Linted
    # alone, its MQSC file said "every instance of cluster queue ... is PUT(DISABLED): every put
    # to it fails", though the queue managers not given may host enabled instances: the rule
    # needs the whole network, as README says of such rules.
    (tmp_path / "app2.mqsc").write_text(_pr("APP2", "DEFINE QLOCAL(PAY.REQUEST) CLUSTER(DEMO) PUT(DISABLED)"))
    assert main(["lint", str(tmp_path / "app2.mqsc"), "--format", "json"]) == 0
    assert [f["rule"] for f in json.loads(capsys.readouterr().out)["findings"]] == []
    assert main(["lint", str(tmp_path / "app2.mqsc"), "--whole-network", "--format", "json"]) == 1
    assert "PUT-DISABLED" in [f["rule"] for f in json.loads(capsys.readouterr().out)["findings"]]


# ---------------------------------------------------------------- prove: what a refuted [[prove]] claim rests on

RESTS_ON = """name = "a cluster topic published at QM1 only"
[qmgrs.QM1]
mqsc = \"\"\"
ALTER QMGR REPOS(PRICES)
DEFINE CHANNEL(TO.QM1) CHLTYPE(CLUSRCVR) CONNAME('qm1(1414)') CLUSTER(PRICES)
DEFINE CHANNEL(TO.QM2) CHLTYPE(CLUSSDR) CONNAME('qm2(1414)') CLUSTER(PRICES)
DEFINE TOPIC(T) TOPICSTR('A') CLUSTER(PRICES) PUBSCOPE(QMGR)
\"\"\"
[qmgrs.QM2]
mqsc = \"\"\"
ALTER QMGR REPOS(PRICES)
DEFINE CHANNEL(TO.QM2) CHLTYPE(CLUSRCVR) CONNAME('qm2(1414)') CLUSTER(PRICES)
DEFINE CHANNEL(TO.QM1) CHLTYPE(CLUSSDR) CONNAME('qm1(1414)') CLUSTER(PRICES)
\"\"\"

[[prove]]
name = "nothing published on A reaches QM2"
publisher = ["QM1", "QM2"]
subscriber = "QM2"
topic = "A/#"
expect = "never"
"""


def test_a_refuted_never_claim_lists_no_facts_it_rests_on(tmp_path, capsys):
    # QM1 -> QM2 is proved (PUBSCOPE(QMGR) at QM1), then QM2 -> QM2 refutes the claim: the
    # record said "rests on:" with the facts of the pair proved before, as if the refuted
    # claim were a proof (a `possible` claim's witness already dropped them).
    (tmp_path / "r.toml").write_text(RESTS_ON)
    assert main(["prove", str(tmp_path / "r.toml"), "--out", str(tmp_path / "cex"), "--json"]) == 1
    (claim,) = json.loads(capsys.readouterr().out)["claims"]
    assert claim["verdict"] == "counterexample"
    assert claim["facts"] == []


def test_a_scenario_proof_names_the_users_cluster_not_cl1(tmp_path, capsys):
    # The one-hop rule said "a matching proxy subscription (a cluster topic of CL1 at S ...)":
    # CL1 is the catalogue claim's generic cluster; the administrator's is PRICES.
    (tmp_path / "r.toml").write_text(RESTS_ON.replace('publisher = ["QM1", "QM2"]', 'publisher = "QM1"'))
    assert main(["prove", str(tmp_path / "r.toml"), "--out", str(tmp_path / "cex"), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    (claim,) = data["claims"]
    text = " ".join(claim["facts"])
    assert "CL1" not in text and "a cluster topic of PRICES at S" in text, text


# ---------------------------------------------------------------- an id of the other kind

@pytest.mark.parametrize("args", [
    ["check", "examples/fr-mesh-broken.toml", "--property", "PS-CFG-REACH"],
    ["fuzz", "PS-CFG-REACH", "--examples", "1", "--no-database"],
])
def test_a_config_claim_given_to_check_or_fuzz_points_at_prove(args, capsys):
    # README's prove table lists PS-CFG-REACH; given to check or fuzz it was "unknown
    # property PS-CFG-REACH; known:" and some ninety ids, none of them it.
    assert main(args) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1, err
    assert "config claim" in err and "mqcheck prove PS-CFG-REACH" in err, err
    assert "known:" not in err, err


def test_a_state_property_given_to_prove_points_at_check(capsys):
    # ... and `prove RP-FR-CONVERGENCE` listed the six claims without saying why it is not one.
    assert main(["prove", "RP-FR-CONVERGENCE"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1, err
    assert "mqcheck check" in err and "RP-CFG-FR-MESH" in err, err


# ---------------------------------------------------------------- report: a file that is not a result

@pytest.mark.parametrize("make, said", [
    (lambda tmp: main(["lint", "examples/fr-mesh-broken.toml", "--format", "sarif"]), "SARIF"),
    (None, "CCDT"),
])
def test_report_names_sarif_and_a_ccdt_for_what_they_are(tmp_path, capsys, make, said):
    # `report lint.sarif` (the help says "not lint's SARIF") and `report uc-ccdt.json` said
    # 'no "command" field, and the data is not the --json output of an mqcheck command: run
    # (deliveries), check ...', leaving the user to guess what to give instead.
    if make is not None:
        make(tmp_path)
        path = tmp_path / "lint.sarif"
        path.write_text(capsys.readouterr().out)
    else:
        path = ROOT / "examples" / "uc-ccdt.json"
    assert main(["report", str(path), "--out", str(tmp_path / "r.html")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and said in err, err
    assert "SARIF" not in err or "--format json" in err, err


# ---------------------------------------------------------------- lint: a directory

def test_lint_of_a_directory_says_how_to_give_its_files(tmp_path, capsys):
    # `mqcheck lint estate/` said "cannot read the MQSC file: it is a directory, not a file":
    # the directory was taken for an MQSC file, and nothing said what to give instead.
    estate = tmp_path / "estate"
    estate.mkdir()
    (estate / "qma.mqsc").write_text("DEFINE QLOCAL(A)\n")
    (estate / "net.toml").write_text('name = "x"\n[qmgrs.QM1]\n')
    assert main(["lint", str(estate)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1, err
    assert "cannot read the MQSC file" not in err and f"{estate}/*.mqsc" in err and f"{estate}/*.toml" in err, err


# ---------------------------------------------------------------- prove SCENARIO: a table left unknown

def test_a_reachability_table_with_unknown_cells_is_not_exit_0(tmp_path, capsys):
    # A scenario without [[prove]] claims is its table. Stopped by --timeout (or Ctrl-C, or
    # SIGTERM) with cells "unknown", prove exited 0 and ended "0 proved, 0 counterexample(s),
    # 0 unknown": a run that decided nothing passed.
    args = ["prove", "examples/ps-sports-cluster.toml", "--timeout", "0.001", "--out", str(tmp_path)]
    assert main(args) == 3
    out = capsys.readouterr().out
    assert " unknown " in out   # the cells
    last = out.strip().splitlines()[-1]
    assert "cell" in last and "unknown" in last and "0 unknown" not in last, last
    assert main(args + ["--json"]) == 3
    data = json.loads(capsys.readouterr().out)
    assert data["exit_status"] == 3
    assert data["reachability"]["unknown_cells"] > 0


# ---------------------------------------------------------------- prove's scenarios pass mqcheck's own lint

def test_the_counterexample_scenarios_prove_writes_lint_without_errors(tmp_path, capsys):
    # RP-CFG-FR-MESH's scenario named its full repositories' CLUSSDRs FR1.TO.FR2 beside the
    # CLUSRCVR TO.FR2, so `mqcheck lint` on a file mqcheck itself wrote said "error
    # CLUSSDR-NAME: ... this channel does not start" about the very channels the
    # counterexample is about.
    assert main(["prove", "--broken", "--out", str(tmp_path)]) == 0
    written = sorted(str(p) for p in tmp_path.glob("*.toml"))
    assert len(written) == 6
    capsys.readouterr()
    assert main(["lint", *written, "--fail-on", "error", "--format", "json"]) == 0, \
        [(f["file"], f["rule"]) for f in json.loads(capsys.readouterr().out)["findings"] if f["severity"] == "error"]


# ---------------------------------------------------------------- a saved result given where a scenario belongs

def test_a_saved_result_given_to_prove_is_named_as_one(tmp_path, capsys):
    # `mqcheck prove prove.json` (the result a previous run saved) said "this looks like JSON:
    # ... a saved --json result goes to `mqcheck report`, a JSON CCDT is named from a scenario
    # with ccdt = "prove.json"" — both guesses, where lint tells the two apart.
    saved = tmp_path / "prove.json"
    saved.write_text(json.dumps({"command": "prove", "claims": []}))
    assert main(["prove", str(saved)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "mqcheck report" in err and "CCDT" not in err, err
    assert main(["prove", str(ROOT / "examples" / "uc-ccdt.json")]) == 2
    err = capsys.readouterr().err.strip()
    assert "ccdt = \"uc-ccdt.json\"" in err and "mqcheck report" not in err, err


# ---------------------------------------------------------------- fuzz: a pass that exercised nothing asked

def test_fuzz_says_vacuous_when_no_property_named_was_exercised(tmp_path, capsys):
    # `mqcheck fuzz WL-MRUC` ended "Result: no counterexample in 3 examples" (exit 0) with
    # WL-MRUC exercised in none of them: the Never exercised line said so, the result did
    # not, where check's verdict says VACUOUS.
    args = ["fuzz", "WL-MRUC", "--examples", "3", "--no-database", "--no-timings", "--quiet", "--out", str(tmp_path)]
    assert main(args) == 0   # a vacuous pass passes, as check's does, and says so
    last = capsys.readouterr().out.strip().splitlines()[-1]
    assert last.startswith("Result: no counterexample in 3 examples") and "VACUOUS" in last, last
    assert main(args + ["--json"]) == 0
    assert json.loads(capsys.readouterr().out)["vacuous"] is True


# ---------------------------------------------------------------- report: a stopped prove run says INCOMPLETE

def test_the_report_of_a_stopped_prove_run_says_incomplete(tmp_path, capsys):
    # A fuzz run stopped by Ctrl-C heads its report "INCOMPLETE (interrupted)"; a prove run
    # stopped alike showed "stop reason: interrupted" among the scalar fields, and nothing
    # at the head said that the claims and table cells were left undecided.
    saved = tmp_path / "prove.json"
    saved.write_text(json.dumps({
        "command": "prove", "scenario": "s.toml", "exit_status": 3, "stop_reason": "interrupted",
        "claims": [{"id": "prove[0]", "title": "t", "citation": "s.toml:9", "verdict": "unknown", "bound": 2,
                    "bound_unit": "topic levels", "reason": "interrupted before it started"}]}))
    assert main(["report", str(saved), "--out", str(tmp_path / "r.html")]) == 0
    html = (tmp_path / "r.html").read_text()
    summary = html[html.index('<table class="summary">'):]
    summary = summary[:summary.index("</table>")]
    assert "<tr><th>proving</th><td>INCOMPLETE (interrupted)" in summary, summary
