"""The mutant catalogue of `mqcheck fuzz` (issue #14, DESIGN §5 "Mutants"): broken network
models that fuzzing must find within a stated budget, shrunk to a scenario that replays.

A mutant counts as **found** when, within its budget, the fuzzer reports a counterexample

1. whose property is one the mutant breaks (``BREAKS``), and
2. whose shrunk scenario replays the violation with the mutant on — ``mqcheck check`` on the
   file (an exhaustive exploration within ``REPLAY_STATES``), or, for a walk deeper than that
   exploration reaches, the walk's own trace followed action by action — and
3. whose shrunk scenario does NOT violate that property on the real spec: that is what
   tells a mutant finding from a real bug.

Each hunt checks the mutant's properties (and their witnesses), as ``mqcheck fuzz ID...`` does: a real-spec finding elsewhere in the catalogue is the
business of the real-spec runs (tests/test_fuzz.py, tests/regressions/), not of this test.
Budgets (examples) come from ``benchmarks/bench_fuzz_mutants.py`` (benchmarks/RESULTS.md,
"#14 (round 2)"); the examples actually needed are measured there and never pinned here:
they change whenever the spec or the generator changes.

A mutant fuzzing cannot find within its budget is in ``NOT_FOUND`` and RESULTS.md says so;
its test checks that the catalogue says "not found" (it cannot pass silently as "found").
"""

from __future__ import annotations

import dataclasses
import importlib.util
import re
from pathlib import Path

import pytest

from checker.cli import FUZZ_DEFAULTS, fuzz_foci, fuzz_target
from checker.fuzz import fuzz_configs, fuzz_walks, replay_trace, write_counterexample
from checker.model import Status
from spec.network import MQNetwork, Mutations
from spec.scenario import load_scenario

ROOT = Path(__file__).resolve().parent.parent
_BENCH = ROOT / "benchmarks" / "bench_fuzz_mutants.py"
_spec = importlib.util.spec_from_file_location("bench_fuzz_mutants", _BENCH)
bench = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench)

BREAKS = bench.BREAKS
REPLAY_STATES = bench.REPLAY_STATES
# mutant: (mode, seed, examples budget, slow?) — found within the budget (benchmarks/RESULTS.md)
CATALOGUE = bench.CATALOGUE
# mutant: (mode, seed, examples tried, what is missing) — not found (benchmarks/RESULTS.md)
NOT_FOUND = bench.NOT_FOUND


def test_every_mutant_switch_is_catalogued():
    switches = {f.name for f in dataclasses.fields(Mutations) if f.name != "explain"}
    assert switches == set(CATALOGUE) | set(NOT_FOUND)
    assert not set(CATALOGUE) & set(NOT_FOUND)
    assert switches == set(BREAKS)


def _results_section() -> str:
    text = (ROOT / "benchmarks" / "RESULTS.md").read_text(encoding="utf-8")
    return text[text.index("#14 (round 2)"):]


@pytest.mark.parametrize("name", sorted(CATALOGUE) + sorted(NOT_FOUND))
def test_results_md_says_what_the_catalogue_says(name):
    rows = [line for line in _results_section().splitlines() if line.startswith(f"| {name} |")]
    assert rows, f"{name} has no row in benchmarks/RESULTS.md, #14 (round 2)"
    # a later round's row supersedes an earlier one's
    assert ("| not found |" in rows[-1]) == (name in NOT_FOUND)


def _cases():
    for name, (mode, seed, budget, slow) in CATALOGUE.items():
        yield pytest.param(name, mode, seed, budget, id=name, marks=[pytest.mark.slow] if slow else [])


@pytest.mark.parametrize("name,mode,seed,budget", list(_cases()))
def test_fuzzing_finds_the_mutant_within_its_budget(tmp_path, name, mode, seed, budget):
    mutation = Mutations(**{name: True})
    fuzz = fuzz_target(mode, mutations=mutation, foci=fuzz_foci(BREAKS[name]))
    bound = FUZZ_DEFAULTS[mode]["bound"]
    run = fuzz_configs if mode == "configs" else fuzz_walks
    kwargs = {"max_states": bound} if mode == "configs" else {"max_steps": bound}
    report = run(fuzz, examples=budget, seed=seed, property_ids=sorted(BREAKS[name]), **kwargs)
    c = report.counterexample
    assert c is not None, f"{name} not found within {budget} examples"
    assert c.property_id in BREAKS[name], f"{name}: the fuzzer reported {c.property_id} ({c.detail})"
    assert report.examples <= budget
    path = write_counterexample(report, fuzz, tmp_path)
    prop = c.property_id
    # the shrunk scenario replays under the mutant: `check` finds it, or the walk's trace does
    under_mutant = bench.replay(path, mutation, prop, REPLAY_STATES)
    if under_mutant is not Status.VIOLATED:
        assert mode == "walks", f"{name}: check on the shrunk file says {under_mutant.value}"
        model = MQNetwork(load_scenario(path), bench.check_properties(path), mutations=mutation)
        assert replay_trace(model, c.trace, [prop]) == prop
    # ... and the real spec keeps the property there: a mutant finding, not a real bug
    assert bench.replay(path, Mutations(), prop, REPLAY_STATES) is not Status.VIOLATED


def test_a_mutant_not_found_is_reported_as_such():
    # (one test, not a parametrised one that would be skipped with an empty parameter set)
    for name, (mode, seed, tried, missing) in NOT_FOUND.items():
        assert tried > 0 and missing and mode in ("configs", "walks")
        row = [line for line in _results_section().splitlines() if line.startswith(f"| {name} |")]
        assert row and "| not found |" in row[0] and re.search(rf"\b{tried}\b", row[0])
    found_rows = [line for line in _results_section().splitlines() if line.startswith("| ") and "| found |" in line]
    assert {line.split(" | ")[0][2:] for line in found_rows} == set(CATALOGUE)
