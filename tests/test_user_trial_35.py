"""Session 35: a user trial with an eight-queue-manager estate (docs/decisions.md,
"Session 35: user trial with an eight-queue-manager estate").

Each test is one roughness the trial hit, and fails without its fix.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def _mqcheck(*args: str, cwd: Path | None = None, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "checker.cli", *args], capture_output=True, text=True,
                          cwd=cwd or ROOT, timeout=timeout)


# ---------------------------------------------------------------- a timeout beyond the timer

def test_a_timeout_of_ten_billion_seconds_is_no_traceback():
    # setitimer refuses about 10^10 s ("timestamp out of range for platform time_t"): such a
    # timeout is a deadline polled, not a timer armed (checker.explore.TIMER_MAX_SECONDS).
    for command in (["check", "examples/sports-qma.toml", "--max-states", "5"],
                    ["fuzz", "--examples", "1", "--no-database", "--no-timings", "--max-qmgrs", "2"]):
        done = _mqcheck(*command, "--timeout", "1e10")
        assert "Traceback" not in done.stderr, done.stderr
        assert done.returncode in (0, 3), (command, done.returncode, done.stderr)


# ---------------------------------------------------------------- runmqsc's input file syntax

from spec.mqsc import InputError, parse, render_command  # noqa: E402

import pytest  # noqa: E402


@pytest.mark.parametrize("text, expected", [
    # "Any comments or blank lines are discarded when the command is reassembled into a
    # single string" (MQSC reference, "MQSC input file syntax"), for + and - alike
    ("DEFINE QLOCAL(SALES.ORDERS) +\n* preferred instance\n       CLUSTER(SALES) CLWLRANK(2)",
     "DEFINE QLOCAL(SALES.ORDERS) CLUSTER(SALES) CLWLRANK(2)"),
    ("DEFINE QLOCAL(SALES.ORDERS) -\n\n CLUSTER(SALES)", "DEFINE QLOCAL(SALES.ORDERS) CLUSTER(SALES)"),
    ("DEFINE NAMELIST(ALL) NAMES(SALES, +\n*   the second cluster\n\n    INVENTORY)",
     "DEFINE NAMELIST(ALL) NAMES(SALES,INVENTORY)"),
    # a semicolon ends a command, even after a continuation character; not inside quotes
    ("DEFINE QLOCAL(A) CLUSTER(SALES);", "DEFINE QLOCAL(A) CLUSTER(SALES)"),
    ("DEFINE QLOCAL(A) CLUSTER(SALES) +\n;", "DEFINE QLOCAL(A) CLUSTER(SALES)"),
    ("DEFINE QLOCAL(A) DESCR('a;')", "DEFINE QLOCAL(A) DESCR('a;')"),
    # commas between parameters are blanks (MQSC reference, "Script (MQSC) commands")
    ("DEFINE QLOCAL(A),CLUSTER(SALES), CLWLRANK(2)", "DEFINE QLOCAL(A) CLUSTER(SALES) CLWLRANK(2)"),
])
def test_runmqsc_input_file_syntax(text, expected):
    (cmd,) = parse(text)
    assert render_command(cmd) == expected


def test_an_error_after_a_discarded_comment_names_its_own_line_and_column():
    with pytest.raises(InputError) as err:
        parse("DEFINE QLOCAL(A) +\n* comment\n\n    CLWLRNK(2)")
    assert (err.value.line, err.value.column) == (4, 5)
    assert "CLWLRANK" in str(err.value)


def test_a_continuation_followed_only_by_comments_is_still_unfinished():
    with pytest.raises(InputError, match="continuation character"):
        parse("DEFINE QLOCAL(A) +\n* nothing follows\n")


# ---------------------------------------------------------------- empty files

def test_an_empty_result_file_is_called_empty(tmp_path):
    # `mqcheck run X --json > run.json` whose run failed leaves run.json empty: "not JSON:
    # Expecting value" sent the trial looking for a JSON syntax error
    (tmp_path / "run.json").write_text("")
    done = _mqcheck("report", str(tmp_path / "run.json"), "--out", str(tmp_path / "r.html"))
    assert done.returncode == 2
    assert "run.json:1:1: the file is empty" in done.stderr and "Expecting value" not in done.stderr


@pytest.mark.parametrize("text", ["", "# only a comment\n\n"])
def test_an_empty_scenario_is_called_empty(text):
    from spec.scenario import parse_scenario
    with pytest.raises(InputError) as err:
        parse_scenario(text, file="empty.toml")
    assert "the scenario file is empty" in str(err.value) and "required key" not in str(err.value)


# ---------------------------------------------------------------- lint: CLUSTER-MEMBER

def _lint(text: str):
    from checker import lint
    from properties.lint import RULES, config_of_scenario
    from spec.scenario import parse_scenario
    return lint.run_rules([(config_of_scenario(parse_scenario(text, file="s.toml")), {})], RULES).findings


_MEMBERS = """
[qmgrs.FR1]
mqsc = '''
ALTER QMGR REPOS(SALES)
DEFINE CHANNEL(SALES.FR1) CHLTYPE(CLUSRCVR) CONNAME('fr1(1414)') CLUSTER(SALES)
DEFINE CHANNEL(SALES.FR2) CHLTYPE(CLUSSDR) CONNAME('fr2(1414)') CLUSTER(SALES)
'''
[qmgrs.FR2]
mqsc = '''
ALTER QMGR REPOS(SALES)
DEFINE CHANNEL(SALES.FR2) CHLTYPE(CLUSRCVR) CONNAME('fr2(1414)') CLUSTER(SALES)
DEFINE CHANNEL(SALES.FR1) CHLTYPE(CLUSSDR) CONNAME('fr1(1414)') CLUSTER(SALES)
'''
[qmgrs.SRV1]
mqsc = '''
DEFINE CHANNEL(SALES.SRV1) CHLTYPE(CLUSRCVR) CONNAME('srv1(1414)') CLUSTER(SALES)
DEFINE CHANNEL(SALES.FR1) CHLTYPE(CLUSSDR) CONNAME('fr1(1414)') CLUSTER(SALES)
"""


@pytest.mark.parametrize("definition, severity, fix", [
    # a misspelt cluster name: the queue is advertised nowhere (the trial's put at another
    # member ended MQRC_UNKNOWN_OBJECT_NAME, and lint said nothing)
    ("DEFINE QLOCAL(ORDERS) CLUSTER(SALSE)", "error", "ALTER QLOCAL(ORDERS) CLUSTER(SALES)"),
    ("DEFINE TOPIC(PRICES) TOPICSTR('Sales/Prices') CLUSTER(SALSE)", "error", "ALTER TOPIC(PRICES) CLUSTER(SALES)"),
    # a namelist naming SALES and a cluster SRV1 is not in: shared in SALES, not in the other
    ("DEFINE NAMELIST(BOTH) NAMES(SALES, INVENTORY)\nDEFINE QALIAS(STOCK) TARGET(INV.STOCK) CLUSNL(BOTH)",
     "warning", "a CLUSRCVR in INVENTORY"),
])
def test_an_object_shared_in_a_cluster_its_queue_manager_is_not_in(definition, severity, fix):
    found = [f for f in _lint(_MEMBERS + definition + "\n'''\n") if f.rule == "CLUSTER-MEMBER"]
    assert len(found) == 1, found
    assert found[0].severity.value == severity and fix in found[0].fix
    assert found[0].location.line == 18 + definition.count("\n")   # the defining command's line


def test_objects_shared_in_the_clusters_their_queue_manager_is_in_are_not_flagged():
    text = _MEMBERS + "DEFINE QLOCAL(ORDERS) CLUSTER(SALES)\nDEFINE TOPIC(T) TOPICSTR('T') CLUSTER(SALES)\n'''\n"
    assert [f for f in _lint(text) if f.rule == "CLUSTER-MEMBER"] == []


# ---------------------------------------------------------------- lint: a CLUSSDR to a partial repository

def test_a_manual_clussdr_to_a_partial_repository_is_a_lint_error():
    # `run` said "Not joined: PR2: CLUSSDR SALES.SRV1 reaches SRV1, which is not a full
    # repository" (NOT_A_FULL_REPOSITORY) while lint was silent
    text = _MEMBERS + "'''\n[qmgrs.PR2]\nmqsc = '''\n" + \
        "DEFINE CHANNEL(SALES.PR2) CHLTYPE(CLUSRCVR) CONNAME('pr2(1414)') CLUSTER(SALES)\n" + \
        "DEFINE CHANNEL(SALES.SRV1) CHLTYPE(CLUSSDR) CONNAME('srv1(1414)') CLUSTER(SALES)\n'''\n"
    found = [f for f in _lint(text) if f.rule == "CLUSSDR-TARGET"]
    assert len(found) == 1 and "SRV1, which is not a full repository of SALES" in found[0].message
    assert "FR1, FR2" in found[0].fix
    assert [f for f in _lint(text.replace("srv1(1414)", "fr1(1414)").replace("SALES.SRV1) CHLTYPE(CLUSSDR)",
                                                                              "SALES.FR1) CHLTYPE(CLUSSDR)"))
            if f.rule == "CLUSSDR-TARGET"] == []


# ---------------------------------------------------------------- the report's summary counts

def test_the_report_summary_calls_a_bounded_vacuous_verdict_possibly_vacuous(tmp_path):
    # the verdict rows said "possibly vacuous" after --max-states, the summary "(vacuous)"
    done = _mqcheck("check", "examples/fr-mesh-complete.toml", "--max-states", "30", "--json")
    assert done.returncode == 3, done.stderr
    (tmp_path / "c.json").write_text(done.stdout)
    assert _mqcheck("report", str(tmp_path / "c.json"), "--out", str(tmp_path / "c.html")).returncode == 0
    html = (tmp_path / "c.html").read_text()
    assert "holds up to bound (possibly vacuous)" in html
    assert "holds up to bound (vacuous)" not in html


# ---------------------------------------------------------------- lint: ALIAS-TARGET

def test_an_alias_whose_target_no_queue_manager_defines_is_a_lint_warning():
    # the trial's QALIAS(ORDERS.ALIAS) TARGQ(ORDRES): every put through it ended in
    # MQRC_UNKNOWN_OBJECT_NAME at run time, and lint was silent
    text = _MEMBERS + "DEFINE QLOCAL(ORDERS) CLUSTER(SALES)\nDEFINE QALIAS(ORDERS.ALIAS) TARGQ(ORDRES)\n'''\n"
    found = [f for f in _lint(text) if f.rule == "ALIAS-TARGET"]
    assert len(found) == 1 and found[0].severity.value == "warning"
    assert "did you mean ORDERS?" in found[0].message and found[0].fix.endswith("TARGET(ORDERS)")
    assert [f for f in _lint(text.replace("TARGQ(ORDRES)", "TARGQ(ORDERS)")) if f.rule == "ALIAS-TARGET"] == []


# ---------------------------------------------------------------- a channel step with no channel

def test_a_channel_step_between_queue_managers_nothing_connects_is_noted():
    # the trial's `channel = { qmgr = "APP1", to = "BRANCH", status = "STOPPED" }`: APP1 and
    # BRANCH share no cluster and no hierarchy link, the step changed nothing and said nothing
    from spec.network.steps import unmodelled_in
    from spec.scenario import parse_scenario
    text = _MEMBERS + "'''\n[qmgrs.BRANCH]\nmqsc = 'ALTER QMGR PARENT(SRV1)'\n[qmgrs.LONE]\n" + "".join(
        f'[[steps]]\nchannel = {{ qmgr = "{a}", to = "{b}", status = "STOPPED" }}\n'
        for a, b in (("SRV1", "LONE"), ("SRV1", "BRANCH"), ("BRANCH", "SRV1"), ("SRV1", "FR1")))
    notes = [n for n in unmodelled_in(parse_scenario(text, file="s.toml")) if "connects" in n]
    assert len(notes) == 1 and notes[0].startswith("steps[0] (line 23): no MQSC of the scenario connects SRV1 to LONE")
    # a step's MQSC that puts LONE into the cluster connects them
    joined = text + ("[[steps]]\nmqsc = { qmgr = \"LONE\", commands = \"DEFINE CHANNEL(SALES.LONE) CHLTYPE(CLUSRCVR) "
                     "CONNAME('lone(1414)') CLUSTER(SALES)\" }\n")
    assert [n for n in unmodelled_in(parse_scenario(joined, file="s.toml")) if "connects" in n] == []
