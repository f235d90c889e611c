"""What an administrator who brings a realistically sized cluster meets (docs/decisions.md,
"Session 32: a user trial with a larger cluster"):

- An incomplete `check` says what to change so that it finishes, naming only the levers the
  scenario has (--explore-initial, steps not separated by `wait`, many messages, faults) and
  how the BFS levels were growing; a run that loops is told no bound finishes it.
- `prove SCENARIO` on 30 queue managers says its 900 publisher -> subscriber pairs in a few
  words (it printed them all on one 12,000-character line), in text and in the HTML report.
- A CLUSRCVR with a blank CONNAME (MQ generates it from the machine's IP address) reaches no
  CLUSSDR of the scenario: `run`'s "Not joined" and lint say why, and lint's FR-MESH fix no
  longer proposes `CONNAME(' ')`.
- SET CHLAUTH and SET AUTHREC (dmpmqcfg writes dozens) are accepted as before, and `run` says
  once per queue manager that they are not modelled, instead of ignoring them silently.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from checker.advice import HEADING, _growth, incomplete_advice  # noqa: E402

FOOTER = "The exploration stopped at a bound: no verdict above claims more than the states explored."


def cluster_text(partials: int, puts: int = 3) -> str:
    """Two full repositories and ``partials`` partial repositories of INVENTORY; PR1-PR3 host
    INVENTQ, PR7 and PR8 (when there) put to it."""
    def qm(name: str, lines: list[str]) -> str:
        return f"[qmgrs.{name}]\nmqsc = '''\n" + "\n".join(lines) + "\n'''\n"

    def rcvr(name: str) -> str:
        return (f"DEFINE CHANNEL(INVENTORY.{name}) CHLTYPE(CLUSRCVR) TRPTYPE(TCP) "
                f"CONNAME('{name.lower()}.example.com(1414)') CLUSTER(INVENTORY)")

    def sdr(name: str) -> str:
        return (f"DEFINE CHANNEL(INVENTORY.{name}) CHLTYPE(CLUSSDR) TRPTYPE(TCP) "
                f"CONNAME('{name.lower()}.example.com(1414)') CLUSTER(INVENTORY)")

    text = 'name = "INVENTORY"\n'
    text += qm("FR1", ["ALTER QMGR REPOS(INVENTORY)", rcvr("FR1"), sdr("FR2")])
    text += qm("FR2", ["ALTER QMGR REPOS(INVENTORY)", rcvr("FR2"), sdr("FR1")])
    for i in range(1, partials + 1):
        lines = [rcvr(f"PR{i}"), sdr("FR1" if i % 2 else "FR2")]
        if i <= 3:
            lines.append("DEFINE QLOCAL(INVENTQ) CLUSTER(INVENTORY) DEFBIND(NOTFIXED) DEFPSIST(YES) MAXDEPTH(50000)")
        text += qm(f"PR{i}", lines)
    text += '[[steps]]\nopen = { qmgr = "PR7", handle = "app7", queue = "INVENTQ" }\n'
    text += '[[steps]]\nopen = { qmgr = "PR8", handle = "app8", queue = "INVENTQ" }\n'
    text += f'[[steps]]\nput = {{ handle = "app7", count = {puts} }}\n'
    text += f'[[steps]]\nput = {{ handle = "app8", count = {puts} }}\n'
    return text + "[[expect]]\nno_errors = true\n"


def check(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "checker.cli", "check", *argv, "--quiet"],
                          capture_output=True, text=True, cwd=ROOT, check=False)


def test_an_incomplete_check_of_a_ten_queue_manager_cluster_says_what_to_change(tmp_path):
    path = tmp_path / "inventory.toml"
    path.write_text(cluster_text(8, puts=10))
    proc = check(str(path), "--explore-initial", "--max-states", "3000")
    assert proc.returncode == 3, proc.stderr[-2000:]
    lines = proc.stdout.splitlines()
    assert lines[-1] == FOOTER               # the footer stays the last line
    advice = "\n".join(lines[lines.index(HEADING):])
    assert "drop --explore-initial" in advice and "the 10 queue managers join" in advice
    assert 'wait = { until = "settled" }' in advice
    assert "put or publish 20 messages" in advice
    assert "--faults" not in advice          # no lever the scenario does not have
    # --max-states cuts its last level short: the growth is read from the complete ones
    assert "times the one before it (depth " in advice


def test_a_complete_check_gives_no_advice(tmp_path):
    path = tmp_path / "inventory.toml"
    path.write_text(cluster_text(8, puts=1))
    proc = check(str(path), "--property", "EXPECT")
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert HEADING not in proc.stdout


def test_a_loop_is_told_that_no_bound_finishes_it():
    proc = check("examples/ps-republish-new.toml")
    assert proc.returncode == 3, proc.stderr[-2000:]
    advice = proc.stdout[proc.stdout.index(HEADING):]
    assert "no bound finishes this exploration" in advice
    assert "a larger --timeout" not in advice


def test_growth_reads_complete_levels_only():
    # levels of a run stopped by --max-states 5000: the last one (1,599) was cut short
    assert _growth([1, 11, 85, 527, 2777, 1599], last_partial=True) == (2777 / 527, 4)
    # a timeout drops the level being built: the last recorded one is complete
    assert _growth([1, 11, 85, 527, 2777, 12812], last_partial=False) == (12812 / 2777, 5)
    assert _growth([1, 3], last_partial=False) is None


def test_only_bounds_and_signals_are_advised():
    model = SimpleNamespace(explore_initial=False, faults=1, scenario=SimpleNamespace(steps=(), qmgrs=()))
    stopped = SimpleNamespace(complete=False, stop_reason="stopped at first violation", levels=[], max_depth=0)
    assert incomplete_advice(model, stopped) == []
    timed_out = SimpleNamespace(complete=False, stop_reason="timeout (5 s)", levels=[1, 2, 2, 1], max_depth=3)
    advice = incomplete_advice(model, timed_out)
    assert advice[0] == HEADING and any("--faults 1" in line for line in advice)
    assert "a larger bound may finish it" in advice[-1]


def test_prove_says_the_pairs_of_a_thirty_queue_manager_cluster_in_a_few_words(tmp_path):
    path = tmp_path / "inventory.toml"
    path.write_text(cluster_text(28))
    proc = subprocess.run([sys.executable, "-m", "checker.cli", "prove", str(path)],
                          capture_output=True, text=True, cwd=ROOT, check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "publisher -> subscriber: each queue manager -> itself (30 pairs)" in proc.stdout
    assert "every queue manager -> every other (870 pairs): not publish/subscribe neighbours" in proc.stdout
    assert max(len(line) for line in proc.stdout.splitlines()) < 300


def test_the_report_titles_the_pairs_alike():
    from reports.render import _reach_tables

    names = [f"QM{i}" for i in range(20)]
    pairs = [{"publisher": p, "subscriber": s, "linked": p == s,
              "rows": [{"topics": "#", "any": "yes", "wildcard": "n/a", "wildcard_pulled": "n/a"}] if p == s else []}
             for p in names for s in names]
    titles = [t["title"] for t in _reach_tables({"bound": 1, "level_names": ["", "X"], "pairs": pairs})]
    assert titles == ["Reachability: each queue manager -> itself (20 pairs)",
                      "Reachability: every queue manager -> every other (380 pairs)"]


BLANK = """name = "a full repository with a blank CLUSRCVR CONNAME"
[qmgrs.FR1]
mqsc = '''
ALTER QMGR REPOS(INVENTORY)
DEFINE CHANNEL(INVENTORY.FR1) CHLTYPE(CLUSRCVR) TRPTYPE(TCP) CONNAME(' ') CLUSTER(INVENTORY)
DEFINE CHANNEL(INVENTORY.FR2) CHLTYPE(CLUSSDR) TRPTYPE(TCP) CONNAME('10.0.0.2(1414)') CLUSTER(INVENTORY)
'''
[qmgrs.FR2]
mqsc = '''
ALTER QMGR REPOS(INVENTORY)
DEFINE CHANNEL(INVENTORY.FR2) CHLTYPE(CLUSRCVR) TRPTYPE(TCP) CONNAME('10.0.0.2(1414)') CLUSTER(INVENTORY)
DEFINE CHANNEL(INVENTORY.FR1) CHLTYPE(CLUSSDR) TRPTYPE(TCP) CONNAME('10.0.0.1(1414)') CLUSTER(INVENTORY)
'''
"""


def test_a_blank_clusrcvr_conname_is_named_where_a_clussdr_reaches_nothing(tmp_path):
    path = tmp_path / "blank.toml"
    path.write_text(BLANK)
    run = subprocess.run([sys.executable, "-m", "checker.cli", "run", str(path)],
                         capture_output=True, text=True, cwd=ROOT, check=False)
    [line] = [x for x in run.stdout.splitlines() if x.startswith("Not joined:")]
    assert "matches no queue manager's CLUSRCVR (FR1's CLUSRCVR INVENTORY.FR1 has a blank CONNAME" in line
    lint = subprocess.run([sys.executable, "-m", "checker.cli", "lint", str(path)],
                          capture_output=True, text=True, cwd=ROOT, check=False)
    assert "CLUSSDR-TARGET" in lint.stdout and "INVENTORY.FR1 has a blank CONNAME" in lint.stdout
    assert "CONNAME(' ')" not in lint.stdout and "CONNAME('<FR1's address>(1414)')" in lint.stdout


def test_security_commands_are_said_to_be_unmodelled_once_per_queue_manager(tmp_path):
    text = BLANK.replace("CONNAME(' ')", "CONNAME('10.0.0.1(1414)')").replace(
        "ALTER QMGR REPOS(INVENTORY)\nDEFINE CHANNEL(INVENTORY.FR2) CHLTYPE(CLUSRCVR)",
        "ALTER QMGR REPOS(INVENTORY)\n"
        "SET CHLAUTH('INVENTORY.*') TYPE(ADDRESSMAP) ADDRESS('*') USERSRC(NOACCESS) ACTION(REPLACE)\n"
        "SET CHLAUTH('*') TYPE(BLOCKUSER) USERLIST('nobody')\n"
        "SET AUTHREC PROFILE(INVENTQ) OBJTYPE(QUEUE) PRINCIPAL('app') AUTHADD(PUT)\n"
        "DEFINE CHANNEL(INVENTORY.FR2) CHLTYPE(CLUSRCVR)")
    assert text.count("SET ") == 3
    path = tmp_path / "security.toml"
    path.write_text(text)
    run = subprocess.run([sys.executable, "-m", "checker.cli", "run", str(path)],
                         capture_output=True, text=True, cwd=ROOT, check=False)
    assert run.returncode == 0, run.stderr
    notes = [line for line in run.stderr.splitlines() if line.startswith("mqcheck: note:")]
    assert notes == [
        "mqcheck: note: qmgrs.FR2 (line 11): SET CHLAUTH (2 commands): channel authentication records are not "
        "modelled: every channel starts as if no rule blocked it",
        "mqcheck: note: qmgrs.FR2 (line 13): SET AUTHREC (1 command): authority records are not modelled: every "
        "application may open, put, get and subscribe"]
