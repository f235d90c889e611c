"""The import rules of docs/architecture.md, checked on the source: a layer that imports
what it must not is a test failure, not a review comment."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# spec/network/: each module imports only the modules before it (no cycles, read top-down)
NETWORK_ORDER = ["state", "memo", "views", "topology", "channels", "repositories", "opens", "pubsub", "workload", "uniform", "steps", "model",
                 "run"]
COMPOSITION_ROOTS = {"cli.py", "pytest_plugin.py"}
# the Spark backend: each module imports only the ones before it (the search last)
SPARK_ORDER = ["spark_session", "spark_rundir", "spark_expand", "spark"]


def imported_modules(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def top(name: str) -> str:
    return name.split(".")[0]


def sources(package: str) -> list[Path]:
    return sorted((ROOT / package).rglob("*.py"))


@pytest.mark.parametrize("path", sources("spec"), ids=lambda p: str(p.relative_to(ROOT)))
def test_spec_imports_no_checker_properties_or_reports(path):
    bad = {m for m in imported_modules(path) if top(m) in ("checker", "properties", "reports")}
    assert not bad, f"{path.relative_to(ROOT)} imports {sorted(bad)}"


@pytest.mark.parametrize("path", sources("checker"), ids=lambda p: str(p.relative_to(ROOT)))
def test_checker_imports_no_spec_or_properties_outside_composition_roots(path):
    if path.name in COMPOSITION_ROOTS:
        return
    bad = {m for m in imported_modules(path) if top(m) in ("spec", "properties")}
    assert not bad, f"{path.relative_to(ROOT)} imports {sorted(bad)}"


@pytest.mark.parametrize("path", sources("reports"), ids=lambda p: str(p.relative_to(ROOT)))
def test_reports_import_no_spec_or_checker(path):
    bad = {m for m in imported_modules(path) if top(m) in ("spec", "checker", "properties")}
    assert not bad, f"{path.relative_to(ROOT)} imports {sorted(bad)}"


def test_network_modules_are_listed():
    on_disk = {p.stem for p in (ROOT / "spec" / "network").glob("*.py")} - {"__init__"}
    assert set(NETWORK_ORDER) <= on_disk
    extra = on_disk - set(NETWORK_ORDER)
    assert not extra, f"add {sorted(extra)} to NETWORK_ORDER (and docs/architecture.md) at its place"


@pytest.mark.parametrize("name", NETWORK_ORDER)
def test_network_module_imports_only_earlier_ones(name):
    allowed = {f"spec.network.{m}" for m in NETWORK_ORDER[:NETWORK_ORDER.index(name)]}
    used = {m for m in imported_modules(ROOT / "spec" / "network" / f"{name}.py") if m.startswith("spec.network")}
    used = {".".join(m.split(".")[:3]) for m in used}
    assert used <= allowed, f"spec/network/{name}.py imports {sorted(used - allowed)}, which come after it"


def test_no_module_of_spec_is_over_900_lines_but_the_parsers():
    long = {str(p.relative_to(ROOT)): n for p in sources("spec")
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > 900}
    assert set(long) <= {"spec/mqsc.py", "spec/scenario.py"}, long


@pytest.mark.parametrize("name", SPARK_ORDER)
def test_spark_module_imports_only_earlier_ones(name):
    allowed = {f"checker.{m}" for m in SPARK_ORDER[:SPARK_ORDER.index(name)]}
    used = {".".join(m.split(".")[:2]) for m in imported_modules(ROOT / "checker" / f"{name}.py")
            if m == "checker.spark" or m.startswith(("checker.spark.", "checker.spark_"))}
    assert used <= allowed, f"checker/{name}.py imports {sorted(used - allowed)}, which come after it"
