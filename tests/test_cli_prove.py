"""`mqcheck prove` as a user runs it: exit statuses (DESIGN §2.3), the text a proof and a
counterexample print, JSON for reports, the Sport reachability table, ``[[prove]]``
claims, bad input, and determinism."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from checker.cli import main

ROOT = Path(__file__).resolve().parent.parent
SPORT_PROVE = str(ROOT / "examples" / "prove-sports.toml")


def prove(capsys, *argv):
    status = main(["prove", *argv])
    out = capsys.readouterr()
    return status, out.out, out.err


def test_a_proof_prints_its_bound_seconds_and_the_facts_it_rests_on(capsys):
    status, out, _ = prove(capsys, "PS-CFG-LOOP-BOUND", "--bound", "3")
    assert status == 0
    assert "PS-CFG-LOOP-BOUND            proved (bound 3 queue managers)" in out
    assert " s CPU)\n" in out.splitlines(keepends=True)[0]
    assert "rests on:\n      - 002 §How loop detection works" in out
    assert out.rstrip().endswith("1 proved, 0 counterexample(s), 0 unknown")


def test_a_broken_rule_gives_a_counterexample_scenario_that_replays(capsys, tmp_path):
    status, out, _ = prove(capsys, "RP-CFG-FR-MESH", "--bound", "3", "--broken", "--out", str(tmp_path))
    assert status == 0  # the broken rule is refuted: the expected outcome of --broken
    assert "counterexample (within bound 3 full repositories): refuted (as expected)" in out
    assert "broken-rule run: proved against the deliberately broken rule 'fr_forwarding_swapped'; " \
           "a counterexample is the expected outcome" in out
    path = tmp_path / "rp-cfg-fr-mesh.toml"
    assert f"scenario: {path}" in out and f"replay:   mqcheck run {path}" in out
    # its [[expect]] blocks state what the broken rule predicts: the real rules do otherwise
    assert path.read_text().startswith("# Counterexample of RP-CFG-FR-MESH under the deliberately broken rule")
    assert main(["run", str(path)]) == 1
    assert "FR2/DEMO queues: expected {'CQ2': ['FR2']}, got {'CQ1': ['FR1'], 'CQ2': ['FR2']}" in capsys.readouterr().out


def test_json_carries_the_command_and_per_claim_records(capsys, tmp_path):
    status, out, _ = prove(capsys, "PS-CFG-REACH", "PS-CFG-LOOP-BOUND", "--bound", "2", "--json",
                           "--out", str(tmp_path))
    data = json.loads(out)
    assert status == 0 and data["command"] == "prove" and data["exit_status"] == 0
    assert [c["id"] for c in data["claims"]] == ["PS-CFG-LOOP-BOUND", "PS-CFG-REACH"]
    record = data["claims"][1]
    assert {"id", "title", "citation", "verdict", "bound", "seconds", "facts", "counterexample_path"} <= set(record)
    assert record["verdict"] == "proved" and record["bound"] == 2 and record["facts"]


def test_unknown_is_never_proved_and_exits_3(capsys):
    status, out, _ = prove(capsys, "PS-CFG-WILDCARD-BLOCK", "--bound", "4", "--timeout", "0.001")
    assert status == 3
    # Z3's reason_unknown for a timeout is "canceled": said as the --timeout that ran out
    assert "unknown (bound 4 levels of tree depth: timeout (0.001 s); not proved)" in out
    assert "canceled" not in out
    assert "proved (bound" not in out


def test_bad_input_is_one_line_and_exit_2(capsys, tmp_path):
    status, out, err = prove(capsys, "NO-SUCH-CLAIM")
    assert status == 2 and err.startswith("mqcheck: error: <command line>: unknown property id(s): NO-SUCH-CLAIM")
    bad = tmp_path / "bad.toml"
    bad.write_text('[qmgrs.QMA]\n[[prove]]\nexpect = "never"\nsubscriber = "QMZ"\n')
    status, out, err = prove(capsys, str(bad))
    assert status == 2 and err.count("\n") == 1
    assert f"{bad}:4:1: prove[0].subscriber: unknown queue manager QMZ" in err
    bad.write_text('[qmgrs.QMA]\n[[prove]]\nexpect = "sometimes"\n')
    status, _, err = prove(capsys, str(bad))
    assert status == 2 and "prove[0].expect: expected one of never, possible" in err


def test_sport_reachability_table_and_claims(capsys, tmp_path):
    """002's Sport cluster: QMB's wildcard subscriptions get QMA's rugby results only when
    another subscription pulls them over, and never its football results (WILDCARD(BLOCK));
    QMA's own SARSENAL-like subscriptions are blocked under Football too."""
    status, out, _ = prove(capsys, SPORT_PROVE, "--out", str(tmp_path))
    assert status == 1  # prove[1] is refuted
    local = out.index("publisher -> subscriber: CL1A -> CL1A, CL1B -> CL1B, QMA -> QMA, QMB -> QMB")
    remote = out.index("publisher -> subscriber: CL1A -> CL1B")
    rows = {}
    for line in out[remote:].splitlines()[3:7]:
        cells = line.split()
        rows[cells[0]] = cells[1:]
    assert rows["Sports/#"] == ["no", "no", "no"]
    assert rows["Sports/Football/#"] == ["yes", "no", "no"]
    assert rows["Sports/Rugby/#"] == ["yes", "no", "yes"]
    assert "Sports/Football/#                 yes                   no                                  no" in out[local:remote]
    assert "prove[0]                     proved" in out
    assert "rests on:" in out and "QMB: no other topic objects or cluster topic records" in out
    assert "prove[1]                     counterexample" in out
    assert "prove[2]                     proved" in out and "witness:" in out
    refuted = tmp_path / "prove-1-no-wildcard-subscription-on-qmb-ever-receives-qma-s-football-publications.toml"
    assert main(["run", str(refuted)]) == 1  # the violation, shown by the network
    witness = tmp_path / "prove-2-a-wildcard-subscription-on-qmb-can-receive-qma-s-rugby-publications.toml"
    assert main(["run", str(witness)]) == 0
    capsys.readouterr()


def test_same_output_under_any_hash_seed(tmp_path):
    outs = []
    for seed in ("0", "12345"):
        env = dict(os.environ, PYTHONHASHSEED=seed, PYTHONPATH=str(ROOT))
        proc = subprocess.run([sys.executable, "-m", "checker.cli", "prove", "PS-CFG-REACH", "--broken", "--bound", "2",
                               "--json", "--out", str(tmp_path / seed)], capture_output=True, text=True, cwd=ROOT,
                              env=env, check=False)
        assert proc.returncode == 0, proc.stderr  # every broken rule refuted
        data = json.loads(proc.stdout)
        for c in data["claims"]:
            c.pop("seconds")
            c.pop("cpu_seconds")
            path = c.pop("counterexample_path")
            c.pop("replay")
            outs.append(Path(path).read_text())
        outs.append(json.dumps(data))
    assert outs[0] == outs[2] and outs[1] == outs[3]


def test_a_configuration_without_clusters_still_delivers_locally(capsys):
    """Regression: with no cluster names at all the symbolic tree's domain must stay
    satisfiable (a contradiction would have made every cell "no")."""
    status, out, _ = prove(capsys, str(ROOT / "examples" / "fr-mesh-broken.toml"))
    assert status == 0
    assert "# (only SYSTEM.BASE.TOPIC above)  yes" in out


def test_contradictory_facts_are_never_proved():
    import z3

    from checker.prove import UNKNOWN
    from checker.prove import prove as run
    from spec.symbolic.base import Encoding

    class Contradiction:
        default_bound, bound_unit = 1, "things"

        def encode(self, bound):
            x = z3.Int("x")
            return Encoding({"x is 1": x == 1, "x is 2": x == 2}, x > 5, lambda m: None)

    verdict, detail = run(Contradiction())
    assert verdict == UNKNOWN and detail["reason"].startswith("vacuous")


def test_every_claim_is_proved_at_its_default_bound_and_refuted_when_broken(capsys, tmp_path):
    """The issue's "done when": `mqcheck prove` proves every claim at its default bound, and
    `--broken` refutes every one (each writes a scenario)."""
    status, out, _ = prove(capsys, "--json")
    data = json.loads(out)
    assert status == 0 and len(data["claims"]) == 6
    assert all(c["verdict"] == "proved" and c["facts"] for c in data["claims"]), data
    status, out, _ = prove(capsys, "--broken", "--bound", "3", "--json", "--out", str(tmp_path))
    data = json.loads(out)
    assert status == 0 and data["exit_status"] == 0  # every broken rule refuted: the expected outcome
    assert all(c["verdict"] == "counterexample" for c in data["claims"])
    assert all(c["broken"] and c["expected"] == "counterexample" and c["broken_rule"] for c in data["claims"])
    assert all(Path(c["counterexample_path"]).exists() for c in data["claims"])


def test_a_broken_rule_the_claim_does_not_refute_exits_1(capsys, tmp_path, monkeypatch):
    """A surviving mutant: pair a claim with a "broken" variant that is in fact the real rule
    (variant ""), so the proof succeeds; --broken must fail (exit 1) and say so."""
    from properties import claims as claims_module

    monkeypatch.setitem(claims_module.BROKEN, "PS-CFG-LOOP-BOUND", "")
    status, out, _ = prove(capsys, "PS-CFG-LOOP-BOUND", "RP-CFG-FR-MESH", "--bound", "3", "--broken",
                           "--out", str(tmp_path))
    assert status == 1
    assert "PS-CFG-LOOP-BOUND            proved (bound 3 queue managers): NOT refuted: " \
           "the claim does not detect this broken rule ''" in out
    assert "RP-CFG-FR-MESH               counterexample (within bound 3 full repositories): refuted (as expected)" in out
    status, out, _ = prove(capsys, "PS-CFG-LOOP-BOUND", "--bound", "3", "--broken", "--json", "--out", str(tmp_path))
    data = json.loads(out)
    assert status == 1 and data["exit_status"] == 1
    [record] = data["claims"]
    assert record["verdict"] == "proved" and record["broken"] is True and record["expected"] == "counterexample"
    assert record["broken_rule"] == ""


def test_a_plain_run_marks_no_record_broken(capsys):
    status, out, _ = prove(capsys, "PS-CFG-LOOP-BOUND", "--bound", "3", "--json")
    [record] = json.loads(out)["claims"]
    assert status == 0 and record["broken"] is False and record["broken_rule"] is None
    assert record["expected"] == "proved"


def test_reachability_columns_are_measured_after_escaping():
    """A topic with a control character is shown as \\x1b (4 characters): the columns were
    measured before escaping, so every later column was shifted on that row."""
    from checker.cli import _render_reach

    rows = [{"topics": "a\x1b/b", "any": "yes", "wildcard": "no", "wildcard_pulled": "no"},
            {"topics": "plain", "any": "no", "wildcard": "no", "wildcard_pulled": "no"}]
    reach = {"bound": 2, "level_names": ["a"], "seconds": 0.0,
             "pairs": [{"publisher": "QM1", "subscriber": "QM2", "linked": True, "rows": rows}]}
    table = [line for line in _render_reach("s", reach) if line.startswith("  ")]
    starts = {line.index(cell) for line, cell in zip(table[-2:], ("yes", "no"))}
    assert len(starts) == 1 and "\x1b" not in "".join(table) and "a\\x1b/b" in table[-2]


def test_claims_of_one_name_or_a_long_name_get_their_own_files(capsys, tmp_path):
    """Two [[prove]] claims named alike wrote one file (the second overwrote the first, and
    the first's replay replayed the wrong claim); a 300-character name failed with
    'File name too long' after every claim was proved (a user trial)."""
    text = Path(SPORT_PROVE).read_text().split("[[prove]]")[0]
    claim = '[[prove]]\nname = "{name}"\npublisher = "QMA"\nsubscriber = "{sub}"\ntopic = "{topic}"\nexpect = "never"\n'
    text += claim.format(name="same", sub="QMB", topic="Sports/Rugby/#") + claim.format(name="same", sub="QMA", topic="Sports")
    text += claim.format(name="a" * 300, sub="QMA", topic="Sports")
    path = tmp_path / "claims.toml"
    path.write_text(text)
    status, out, err = prove(capsys, str(path), "--out", str(tmp_path / "o"))
    assert status == 1 and "Traceback" not in err, err
    files = sorted(p.name for p in (tmp_path / "o").iterdir())
    assert files == ["prove-0-same.toml", "prove-1-same.toml", f"prove-2-{'a' * 80}.toml"]
    for name in files:   # each replays its own claim: the network shows the delivery the claim says never happens
        assert main(["run", str(tmp_path / "o" / name)]) == 1
    capsys.readouterr()


def test_a_counterexample_at_a_queue_manager_whose_name_needs_quoting_replays(capsys, tmp_path):
    """Queue manager names may hold '.', '/' and '%': the counterexample scenario wrote them as
    bare TOML keys ([qmgrs.QM.A], [expect.deliveries.QM.A]), a file `mqcheck run` rejected as
    invalid TOML instead of replaying the claim."""
    path = tmp_path / "dots.toml"
    path.write_text('[qmgrs."QM.A"]\nmqsc = "DEFINE TOPIC(T) TOPICSTR(\'a\')"\n[qmgrs."QM/B%"]\n'
                    '[[prove]]\nname = "local"\npublisher = "QM.A"\nsubscriber = "QM.A"\ntopic = "a/#"\n'
                    'expect = "never"\n')
    status, out, err = prove(capsys, str(path), "--out", str(tmp_path / "o"))
    assert status == 1, err
    text = (tmp_path / "o" / "prove-0-local.toml").read_text()
    assert '[qmgrs."QM.A"]' in text and '[qmgrs."QM/B%"]' in text and '[expect.deliveries."QM.A"]' in text
    assert main(["run", str(tmp_path / "o" / "prove-0-local.toml")]) == 1   # replays: the delivery happens
    assert "QM.A PROVE.S1: expected [], got ['a']" in capsys.readouterr().out


def test_a_counterexample_never_replaces_the_scenario_it_came_from(capsys, tmp_path):
    """A scenario saved as prove-0-local.toml, proved with --out its own directory: the
    counterexample of its claim 'local' was written over it, and the user's file was lost."""
    path = tmp_path / "prove-0-local.toml"
    text = ('[qmgrs.QMA]\nmqsc = "DEFINE TOPIC(T) TOPICSTR(\'a\')"\n'
            '[[prove]]\nname = "local"\npublisher = "QMA"\nsubscriber = "QMA"\ntopic = "a/#"\nexpect = "never"\n')
    path.write_text(text)
    status, out, err = prove(capsys, str(path), "--out", str(tmp_path))
    assert (status, out) == (2, "") and path.read_text() == text
    assert err == (f"mqcheck: error: <command line>: --out {tmp_path}: the counterexample of [[prove]] #0 would be "
                   f"written over {path}, a file this scenario is read from (give another --out directory)\n")


def test_a_counterexample_directory_that_cannot_be_one_is_refused_before_proving(capsys, tmp_path):
    (tmp_path / "afile").write_text("")
    for out_dir, expected in ((tmp_path / "afile", "is a file, not a directory"),
                              (tmp_path / "afile" / "sub", "is not a directory"), ("", "expected a directory name")):
        status, out, err = prove(capsys, "--broken", "PS-CFG-LOOP-BOUND", "--out", str(out_dir))
        assert status == 2 and out == "" and err.count("\n") == 1 and expected in err, err
        assert main(["fuzz", "--out", str(out_dir), "--examples", "1", "--no-database"]) == 2
        assert expected in capsys.readouterr().err


def test_broken_with_a_scenario_is_refused(capsys):
    """--broken has no broken rules for a scenario's [[prove]] claims: it was ignored, and
    the exit status then meant "a broken rule not refuted"."""
    status, out, err = prove(capsys, "--broken", SPORT_PROVE)
    assert status == 2 and out == "" and "--broken proves the catalogue's claims against broken rules" in err


# ------------------------------------------------------------ a user trial of prove (bounds, claims, wording)
def test_a_claim_whose_topic_cannot_occur_within_the_bound_is_flagged_vacuous(capsys, tmp_path):
    """`prove examples/prove-sports.toml --bound 1`: prove[1] said "proved" although no topic
    string of one level matches Sports/Football/#, and prove[2] "no such delivery is
    possible (it rests on the facts above)" with no facts listed."""
    status, out, _ = prove(capsys, SPORT_PROVE, "--bound", "1", "--out", str(tmp_path))
    assert "up to 1 level (" in out
    assert ("prove[1]                     proved (bound 1 topic level) — VACUOUS: no topic string within the bound "
            "(1 topic level) matches 'Sports/Football/#'; raise --bound to 2") in out
    assert ("prove[2]                     unknown (bound 1 topic level: vacuous: no topic string within the bound "
            "(1 topic level) matches 'Sports/Rugby/#'; raise --bound to 2; not proved)") in out
    assert "rests on the facts above" not in out
    assert "2 proved (1 VACUOUS), 0 counterexample(s), 1 unknown" in out   # prove[0]: Sports is 1 level: asked
    assert status == 3
    status, out, _ = prove(capsys, SPORT_PROVE, "--bound", "1", "--json", "--out", str(tmp_path))
    claims = {c["id"]: c for c in json.loads(out)["claims"]}
    assert claims["prove[1]"]["vacuous"] is True and claims["prove[1]"]["verdict"] == "proved"
    assert claims["prove[2]"]["vacuous"] is True and claims["prove[2]"]["verdict"] == "unknown"
    assert claims["prove[0]"]["vacuous"] is False


def test_the_default_bound_covers_each_claims_own_topic(capsys, tmp_path):
    scenario = tmp_path / "deep.toml"
    scenario.write_text('[qmgrs.QMA]\nmqsc = "DEFINE TOPIC(A) TOPICSTR(\'a\')"\n'
                        '[[prove]]\nname = "deep"\ntopic = "a/b/c/d"\nexpect = "possible"\n')
    status, out, _ = prove(capsys, str(scenario), "--json", "--out", str(tmp_path))
    data = json.loads(out)
    [claim] = data["claims"]
    assert data["reachability"]["bound"] == 4 and claim["bound"] == 4   # not 2 (one below topic A)
    assert claim["verdict"] == "proved" and not claim["vacuous"], claim   # QMA's own subscription on a/b/c/d
    assert status == 0


def test_an_empty_claim_topic_is_an_invalid_topic_string(capsys, tmp_path):
    """`topic = ""` was read as "not given" and proved the claim over every topic ('#'),
    while `mqcheck match '' a` rejects the empty string."""
    bad = tmp_path / "bad.toml"
    bad.write_text('[qmgrs.QMA]\n[[prove]]\nname = "x"\ntopic = ""\nexpect = "never"\n')
    status, out, err = prove(capsys, str(bad))
    assert status == 2 and out == "" and err.count("\n") == 1
    assert err.startswith(f"mqcheck: error: {bad}:4:1: prove[0].topic: invalid topic string: a topic string must "
                          "not be empty (002 §Topic strings)")


def test_an_unknown_claim_id_gets_the_near_miss(capsys):
    status, _, err = prove(capsys, "PS-CFG-LOOP-BOND")
    assert status == 2
    assert err == "mqcheck: error: <command line>: unknown property id(s): PS-CFG-LOOP-BOND (did you mean " \
                  "PS-CFG-LOOP-BOUND?)\n"


def test_an_empty_claim_id_is_called_empty_not_unknown(capsys):
    # session 33: `prove examples/ps-sports-cluster.toml ''` said "unknown property id(s): ;"
    status, out, err = prove(capsys, str(ROOT / "examples" / "ps-sports-cluster.toml"), "")
    assert status == 2 and out == ""
    assert err.startswith("mqcheck: error: <command line>: claim '': an empty claim id; expected a claim id such as ")
    assert "RP-CFG-FR-MESH" in err and "ps-sports-cluster.toml's [[prove]] claims" in err and ": ;" not in err
    status, _, err = prove(capsys, "PS-CFG-REACH", "  ")
    assert status == 2 and "claim '  ': an empty claim id;" in err and "give none to prove every catalogue claim" in err


def test_help_gives_every_exit_status_of_broken(capsys):
    import pytest

    with pytest.raises(SystemExit):
        main(["prove", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "with --broken, 0 every broken rule refuted, 1 one not refuted (the claim misses it), 2 bad input, " \
           "3 unknown" in text
    assert "3 when one is unknown" in text


def test_a_bound_of_one_is_singular():
    """"up to 1 levels", "bound 1 topic levels"."""
    from checker.cli import _render_reach
    from checker.prove import ProofRecord, format_record

    reach = {"bound": 1, "level_names": ["a"], "seconds": 0.0, "pairs": []}
    assert "every topic string up to 1 level (" in _render_reach("s", reach)[0]
    for unit, one in (("queue managers", "1 queue manager"), ("levels of tree depth", "1 level of tree depth"),
                      ("full repositories", "1 full repository"), ("topic levels", "1 topic level")):
        record = ProofRecord("X", "t", "c", "proved", 1, unit, 0.1)
        assert f"proved (bound {one})  " in format_record(record)[0]
        record.bound = 2
        assert f"proved (bound 2 {unit})  " in format_record(record)[0]
