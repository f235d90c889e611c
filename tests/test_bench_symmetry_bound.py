"""benchmarks/bench_symmetry_bound.py: the renaming of queue managers, the orbit count and
the equivariance check behind benchmarks/RESULTS.md, "Session 34: what symmetry reduction
could save (upper bound)"."""

from __future__ import annotations

import sys
from pathlib import Path

from spec.encoding import canonical_bytes
from spec.network import MQNetwork
from spec.scenario import load_scenario

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

import bench_scale  # noqa: E402
import bench_symmetry_bound as sym  # noqa: E402


def _model(tmp_path: Path, family: str, k: int) -> MQNetwork:
    path = tmp_path / f"{family}-{k}.toml"
    path.write_text(bench_scale.FAMILIES[family](k))
    scenario = load_scenario(path)
    return MQNetwork(scenario, (), explore_initial=scenario.check.explore_initial or None)


def test_names_are_renamed_as_words_whatever_their_case() -> None:
    swap = sym.Renaming({"PR1": "PR3", "PR3": "PR1"})
    assert swap.text("TO.PR1 PR1_1 pr1.example.com(1414) PR10 XPR1 PR3>TO.PR3") == \
        "TO.PR3 PR3_1 pr3.example.com(1414) PR10 XPR1 PR1>TO.PR1"
    assert sym.Renaming({"PR1": "PR1"}).identity


def test_a_renamed_state_keeps_the_orders_and_the_symmetric_start_is_its_own_image(tmp_path: Path) -> None:
    model = _model(tmp_path, "fr-join", 3)
    start = model.init_states()[0]
    swap = sym.Renaming({"PR1": "PR3", "PR3": "PR1"})
    image = swap(start)
    # PR1 and PR3 are configured alike (both join through FR1): the start is symmetric
    assert canonical_bytes(image) == canonical_bytes(start)
    # a state that is not: PR1's JOIN delivered, PR3's not
    after = next(t for a in model.actions(start) if str(a) == "ChannelDeliver(PR1->FR1)"
                 for t in [model.next_state(start, a)])
    moved = swap(after)
    assert canonical_bytes(moved) != canonical_bytes(after)
    assert canonical_bytes(swap(moved)) == canonical_bytes(after)
    assert [q.name for q in moved.qmgrs] == sorted(q.name for q in moved.qmgrs)
    assert [(c.src, c.dst) for c in moved.channels] == sorted((c.src, c.dst) for c in moved.channels)
    fr1 = moved.qmgr("FR1").caches[0]
    assert [r.owner for r in fr1.records] == sorted(r.owner for r in fr1.records)
    assert "PR3_1" in {r.owner for r in fr1.records} and "PR1_1" not in {r.owner for r in fr1.records}
    pr3 = moved.qmgr("PR3")
    assert {c.name for c in pr3.defs.channels} == {"TO.PR3", "TO.FR1"}
    assert pr3.defs.channel("TO.PR3").conname == "pr3.example.com(1414)"


def test_orbits_are_states_with_one_member_per_class_and_fewer_with_two(tmp_path: Path) -> None:
    one = sym.measure(_model(tmp_path, "fr-join", 2), sym.default_classes("fr-join", 2), sample=0)
    assert one.group == 1 and one.complete and one.states == one.orbits == 1196
    two = sym.measure(_model(tmp_path, "fr-join", 3), sym.default_classes("fr-join", 3), max_states=3000,
                      sample=25)
    assert two.group == 2 and not two.complete and two.states == 3000
    # each orbit holds at most two states, and some hold two
    assert two.states / 2 <= two.orbits < two.states
    assert two.checks > 0 and two.violations == 0


def test_the_workload_algorithms_tie_break_by_name_is_a_violation(tmp_path: Path) -> None:
    point = sym.measure(_model(tmp_path, "cluster-queue", 3), sym.default_classes("cluster-queue", 3), sample=1)
    assert point.group == 2 and point.violations >= 1
    assert set(point.by_action) == {"ScenarioStep"}
    assert "wl_history" in point.examples[0]


def test_a_member_named_by_a_remaining_step_is_not_permuted(tmp_path: Path) -> None:
    model = _model(tmp_path, "ps-cluster", 3)
    assert sym.named_in(model.scenario.steps[1:], ["M1", "S1", "M2", "S2"]) == {"M2", "S2"}
    kept = sym.measure(model, sym.default_classes("ps-cluster", 3), max_states=300, sample=1)
    ignored = sym.measure(_model(tmp_path, "ps-cluster", 3), sym.default_classes("ps-cluster", 3),
                          max_states=300, sample=1, respect_steps=False)
    assert kept.violations == 0 and ignored.violations > 0
    # the subscriptions' creation steps (a ghost) keep every state its own orbit; without them
    # in the keys, swapped members merge
    assert kept.orbits == kept.states
    dropped = sym.measure(_model(tmp_path, "ps-cluster", 3), sym.default_classes("ps-cluster", 3),
                          max_states=300, sample=0, drop=frozenset({"Subscription.created"}))
    assert dropped.states == 300 and dropped.orbits < dropped.states
