"""Shrunk scenarios found by `mqcheck fuzz`, pinned (tests/regressions/manifest.json).

Each entry names a scenario file, the property it was found with, the mutant switch it was
found against (none: the real spec) and the verdict of that property when the file is
explored within ``max_states`` — exactly what the file's replay command does — under the
mutant and under the real spec. A mutant entry is a regression test for the real spec: the
real spec must keep the verdict pinned for it (the broken rule stays fixed), and the mutant
must keep violating it (the scenario still discriminates). A real-spec entry pins a finding
of fuzzing and its current verdict, with a note saying why it is what it is.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from checker.cli import _check_properties, main
from checker.explore import explore
from spec.network import MQNetwork, Mutations
from spec.scenario import load_scenario

HERE = Path(__file__).resolve().parent / "regressions"
MANIFEST = json.loads((HERE / "manifest.json").read_text())["scenarios"]


def verdict(path: Path, prop: str, max_states: int, mutation: str | None) -> str:
    scenario = load_scenario(path)
    mutations = Mutations(**{mutation: True}) if mutation else Mutations()
    model = MQNetwork(scenario, _check_properties(scenario), mutations=mutations)
    result = explore(model, max_states=max_states, property_ids=[prop], workers=1)
    return result.verdicts[prop].status.value


@pytest.mark.parametrize("entry", MANIFEST, ids=[e["file"] for e in MANIFEST])
def test_pinned_verdicts(entry):
    path = HERE / entry["file"]
    assert verdict(path, entry["property"], entry["max_states"], None) == entry["real_spec"]
    if entry.get("mutation"):
        assert verdict(path, entry["property"], entry["max_states"], entry["mutation"]) == entry["mutant"]


@pytest.mark.parametrize("entry", [e for e in MANIFEST if not e.get("mutation")],
                         ids=lambda e: e["file"])
def test_the_replay_command_in_the_file_replays_it(capsys, entry):
    path = HERE / entry["file"]
    replay = next(line for line in path.read_text().splitlines() if line.startswith("# replay: "))
    argv = replay.removeprefix("# replay: mqcheck ").split()
    argv[1] = str(path)  # the file's own path, from wherever pytest runs
    code = main(argv + ["--quiet", "--workers", "1"])
    out = capsys.readouterr().out
    assert code == {"violated": 1, "holds": 0}.get(entry["real_spec"], 3), out


def test_every_file_is_pinned():
    assert sorted(p.name for p in HERE.glob("*.toml")) == sorted(e["file"] for e in MANIFEST)
