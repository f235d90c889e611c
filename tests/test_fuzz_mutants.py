"""The mutant catalogue of `mqcheck fuzz` (issue #14, DESIGN §5 "Mutants"): broken network
models that fuzzing must find within a stated budget, with a shrunk scenario that replays.

Every mutant switch of ``spec.network.Mutations`` is listed: in ``CATALOGUE`` with the
budget (mode, seed, examples) within which fuzzing finds it — measured by
``benchmarks/bench_fuzz_mutants.py`` (benchmarks/RESULTS.md, "Fuzzing: the mutant
catalogue") — or in ``NOT_FOUND`` with the budget it was tried with: a mutant fuzzing does
not find is reported, not hidden. The budgets are deterministic (a seed), so "found within
N examples" is exact; the tests run the cheap entries always and the rest under the
``slow`` marker.
"""

from __future__ import annotations

import dataclasses

import pytest

from checker.cli import FUZZ_DEFAULTS, fuzz_target
from checker.fuzz import fuzz_configs, fuzz_walks, write_counterexample
from spec.network import Mutations

import importlib.util
from pathlib import Path

_BENCH = Path(__file__).resolve().parent.parent / "benchmarks" / "bench_fuzz_mutants.py"
_spec = importlib.util.spec_from_file_location("bench_fuzz_mutants", _BENCH)
bench = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench)

# mutant: (mode, seed, examples budget, property that catches it, slow?)
CATALOGUE: dict[str, tuple[str, int, int, str, bool]] = {
}
# mutant: (mode, seed, examples tried, why fuzzing does not reach it)
NOT_FOUND: dict[str, tuple[str, int, int, str]] = {
}


def test_every_mutant_switch_is_catalogued():
    switches = {f.name for f in dataclasses.fields(Mutations) if f.name != "explain"}
    assert switches == set(CATALOGUE) | set(NOT_FOUND)
    assert not set(CATALOGUE) & set(NOT_FOUND)


def _cases():
    for name, (mode, seed, budget, prop, slow) in CATALOGUE.items():
        marks = [pytest.mark.slow] if slow else []
        yield pytest.param(name, mode, seed, budget, prop, id=name, marks=marks)


@pytest.mark.parametrize("name,mode,seed,budget,prop", list(_cases()))
def test_fuzzing_finds_the_mutant_within_its_budget(tmp_path, name, mode, seed, budget, prop):
    mutation = Mutations(**{name: True})
    fuzz = fuzz_target(mode, mutations=mutation)
    bound = FUZZ_DEFAULTS[mode]["bound"]
    run = fuzz_configs if mode == "configs" else fuzz_walks
    kwargs = {"max_states": bound} if mode == "configs" else {"max_steps": bound}
    report = run(fuzz, examples=budget, seed=seed, property_ids=bench.catalogue_properties(), **kwargs)
    c = report.counterexample
    assert c is not None, f"{name} not found within {budget} examples"
    assert c.property_id == prop and report.examples <= budget
    path = write_counterexample(report, fuzz, tmp_path)
    replay_bound = max(bound, 20000)
    # the shrunk scenario replays under the mutant, and the real spec keeps the property
    assert bench.replay(path, mutation, prop, replay_bound).value == "violated"
    assert bench.replay(path, Mutations(), prop, replay_bound).value != "violated"
