"""The registry of codes the model logs (spec/log_codes.py) is complete, and the scenario
loader refuses an expected code the model never logs (a user trial, session 34: a misspelt
code in ``absent_errors`` held whatever happened)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from checker.cli import main
from spec.log_codes import LOGGED, unknown_code
from spec.network import MQNetwork
from spec.network.run import run_scenario
from spec.scenario import load_scenario
from spec.workload import Reason

ROOT = Path(__file__).resolve().parent.parent
SPEC = ROOT / "spec"
SCENARIOS = sorted([*(ROOT / "examples").glob("*.toml"), *(ROOT / "tests" / "regressions").glob("*.toml"),
                    *(ROOT / "tests" / "data" / "scenarios").glob("*.toml")])
SCENARIOS.remove(ROOT / "tests" / "data" / "scenarios" / "missing_mqsc_file.toml")   # bad input, on purpose


def _constants(tree: ast.Module) -> dict[str, str]:
    """Module-level ``NAME = "text"`` assignments."""
    out = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            out.update({t.id: node.value.value for t in node.targets if isinstance(t, ast.Name)})
    return out


def _literal(node: ast.AST | None, names: dict[str, str]) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.Name):
        return names.get(node.id)
    return None


def _callee(call: ast.Call) -> str:
    f = call.func
    return f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""


def written_codes() -> dict[str, set[str]]:
    """Each code written as a literal (or a module constant) at a logging site in spec/,
    with the files writing it: the code argument of ``LogEntry``, ``PubSubError`` and
    ``TopicStringError(reason=)`` (and its default), an error ``Resolved``'s reason, a uniform cluster's
    ``logs.append((qmgr, code, detail))``, and the AMQ number heading a message runmqsc
    rejects a command with (spec.network.steps._amq_code makes it the code)."""
    found: dict[str, set[str]] = {}
    for path in sorted(SPEC.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names = _constants(tree)
        where = str(path.relative_to(ROOT))
        for node in ast.walk(tree):
            codes: list[str | None] = []
            if isinstance(node, ast.Call):
                kw = {k.arg: k.value for k in node.keywords}
                name = _callee(node)
                if name == "LogEntry":
                    codes.append(_literal(node.args[1] if len(node.args) > 1 else kw.get("code"), names))
                elif name == "PubSubError":
                    codes.append(_literal(node.args[0] if node.args else kw.get("code"), names))
                elif name == "TopicStringError":
                    codes.append(_literal(kw.get("reason"), names))
                elif name == "Resolved" and node.args and _literal(node.args[0], names) == "error":
                    codes.append(_literal(node.args[4] if len(node.args) > 4 else kw.get("reason"), names))
                elif name == "append" and isinstance(node.func, ast.Attribute) and \
                        isinstance(node.func.value, ast.Attribute) and node.func.value.attr == "logs" and \
                        node.args and isinstance(node.args[0], ast.Tuple) and len(node.args[0].elts) == 3:
                    codes.append(_literal(node.args[0].elts[1], names))
            elif isinstance(node, ast.ClassDef) and node.name.endswith("Error"):
                for init in (f for f in node.body if isinstance(f, ast.FunctionDef) and f.name == "__init__"):
                    args = init.args
                    pairs = list(zip(args.kwonlyargs, args.kw_defaults)) + \
                        list(zip(args.args[len(args.args) - len(args.defaults):], args.defaults))
                    codes += [_literal(d, names) for a, d in pairs if a.arg in ("code", "reason")]
            elif isinstance(node, (ast.Constant, ast.JoinedStr)):
                head = node.value if isinstance(node, ast.Constant) else _literal(next(iter(node.values), None), {})
                if isinstance(head, str) and (m := re.match(r"(AMQ\d{4}):", head)):
                    codes.append(m.group(1))
            for code in codes:
                if code:
                    found.setdefault(code, set()).add(where)
    return found


def test_every_code_written_at_a_logging_site_is_registered():
    found = written_codes()
    # the scan sees the sites it is meant to: a code from each kind of site
    for code in ("LOOP_DETECTED", "MQRC_SUB_INHIBITED", "MQRC_TOPIC_STRING_ERROR", "MQRC_ALIAS_BASE_Q_TYPE_ERROR",
                 "UC_NO_CCDT_ENTRY", "AMQ8147", "AMQ9406", "XMITQ_NO_CHANNEL"):
        assert code in found, code
    missing = {code: sorted(files) for code, files in found.items() if code not in LOGGED}
    assert not missing, f"codes logged but not in spec/log_codes.py: {missing}"


def test_the_workload_algorithms_failure_reasons_are_registered():
    assert {str(r) for r in Reason if r is not Reason.MQRC_NONE} <= LOGGED


def test_every_registered_code_is_written_somewhere():
    """No stale entry: each code is written at a site the scan finds, or is a workload
    failure reason, or is spec.network.steps' fallback for a rejected command."""
    found = set(written_codes()) | {str(r) for r in Reason} | {"MQSC_REJECTED"}
    assert LOGGED - found == set()


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.name)
def test_what_the_bundled_scenarios_log_is_registered(path):
    """Run each bundled scenario, and walk its first 80 explored states (faults as its
    [check] section sets them): every code logged is one the loader accepts."""
    scenario = load_scenario(path)
    codes = {e.code for e in run_scenario(scenario).final.log}
    model = MQNetwork(scenario, (), faults=scenario.check.faults or 0)
    frontier, seen = list(model.init_states()), set()
    while frontier and len(seen) < 80:
        state = frontier.pop(0)
        codes |= {e.code for _q, entries in state.logs for e in entries}
        for action in model.actions(state):
            nxt = model.next_state(state, action)
            if nxt is not None and (key := model.encode(nxt)) not in seen:
                seen.add(key)
                frontier.append(nxt)
    assert codes <= LOGGED, codes - LOGGED


def test_a_misspelt_expected_code_is_refused_with_the_nearest(tmp_path, capsys):
    path = tmp_path / "typo.toml"
    path.write_text('name = "typo"\n[qmgrs.QM1]\nmqsc = "DEFINE QLOCAL(Q1)"\n[[expect]]\n'
                    'absent_errors = [{ qmgr = "QM1", code = "MQRC_UNKNOWN_OBJECT" }]\n')
    assert main(["run", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"{path}:5:34:" in err and "expect[0].absent_errors[0].code" in err
    assert "mqcheck never logs MQRC_UNKNOWN_OBJECT" in err and "did you mean MQRC_UNKNOWN_OBJECT_NAME?" in err
    assert "Traceback" not in err


def test_a_code_with_no_near_one_lists_what_is_logged():
    why = unknown_code("MQRC_Q_FULL")
    assert "never be met (errors) or never fail (absent_errors)" in why and "LOOP_DETECTED" in why
    assert unknown_code("LOOP_DETECTED") == ""


@pytest.mark.parametrize("code", sorted(LOGGED))
def test_every_registered_code_can_be_expected(tmp_path, code):
    path = tmp_path / "ok.toml"
    path.write_text(f'name = "ok"\n[qmgrs.QM1]\nmqsc = "DEFINE QLOCAL(Q1)"\n[[expect]]\n'
                    f'absent_errors = [{{ qmgr = "QM1", code = "{code}" }}]\n')
    assert load_scenario(path).expects[0].absent_errors[0].code == code
