"""spec.strategies: every generated configuration is a scenario the real reader accepts,
generation is reproducible from a seed, and the generator covers what issue #14 lists."""

from __future__ import annotations

import re

from hypothesis import HealthCheck, given, seed, settings, strategies as st

from spec.scenario import load_scenario, parse_scenario
from spec.strategies import FEATURES, FOCI, STEP_KINDS, Configuration, configurations


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(configurations(max_qmgrs=4, max_steps=8))
def test_every_configuration_is_accepted_by_the_reader(configuration):
    scenario = parse_scenario(configuration.to_toml(), "generated.toml")
    assert [q.name for q in scenario.qmgrs] == [name for name, _ in configuration.qmgrs]
    assert len(scenario.steps) == len(configuration.steps)
    assert scenario.check.faults == configuration.faults
    assert scenario.check.explore_initial == configuration.explore_initial


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.tuples(st.integers(1, 4), st.sampled_from(FOCI)).flatmap(
    lambda kf: st.tuples(st.just(kf[0]), configurations(max_qmgrs=3, max_steps=kf[0], foci=(kf[1],)))))
def test_small_step_budgets_still_give_valid_scenarios(drawn):
    # a step budget cuts steps, never a step another needs, in every focus (test_por's
    # generated scenarios use max_steps=3: the membership focus once cut the MQOPEN its
    # MQPUT needs)
    _, configuration = drawn
    scenario = parse_scenario(configuration.to_toml(), "generated.toml")  # raises on a put without its open
    assert len(scenario.steps) == len(configuration.steps)


@settings(max_examples=10, deadline=None, suppress_health_check=list(HealthCheck))
@given(configurations())
def test_rendered_files_load_from_disk_with_comments(tmp_path_factory, configuration):
    path = tmp_path_factory.mktemp("gen") / "generated.toml"
    commented = Configuration(configuration.qmgrs, configuration.steps, configuration.features,
                              configuration.step_kinds, configuration.faults, configuration.explore_initial,
                              configuration.misconfigured, comments=("replay: mqcheck check generated.toml",))
    path.write_text(commented.to_toml())
    loaded, parsed = load_scenario(path), parse_scenario(configuration.to_toml(), str(path))
    assert [(q.name, q.commands) for q in loaded.qmgrs] == [(q.name, q.commands) for q in parsed.qmgrs]
    assert len(loaded.steps) == len(parsed.steps)


def draw_texts(seed_value: int, n: int = 40, **kwargs) -> list[str]:
    texts: list[str] = []

    @seed(seed_value)
    @settings(max_examples=n, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(configurations(**kwargs))
    def collect(configuration):
        texts.append(configuration.to_toml())

    collect()
    return texts


def test_generation_is_reproducible_from_a_seed():
    first = draw_texts(7)
    assert draw_texts(7) == first
    assert draw_texts(8) != first


def test_the_generator_covers_the_issue_list():
    # the free configurations (the feature swarm) cover the list; the focused recipes are
    # narrower by design (test_each_focus_builds_what_it_is_for)
    texts = "\n".join(draw_texts(11, 300, foci=("free",)))
    for needle in ("PUBSCOPE(", "SUBSCOPE(", "WILDCARD(BLOCK)", "PROXYSUB(FORCE)",
                   "ASPARENT", "REPOSNL(", "CLUSNL(BOTH)", "ALTER QMGR PARENT(", "QALIAS(CQ1) TARGET(CQ1)",
                   "CLWLWGHT(", "CLWLRANK(", "CLWLPRTY(", "NETPRTY(", "CLWLUSEQ(", "DEFBIND(", "PUT(DISABLED)",
                   "CLWLMRUC(", "REFRESH CLUSTER(", "RESET CLUSTER(", "scheme = \"char\"",
                   "faults = true", "explore_initial = true", 'action = "stop"', 'action = "start"',
                   'action = "delete"', "advance = {", "channel = {", "unsubscribe = {", "close = {",
                   "retain = true", 'group = "g1"'):
        assert needle in texts, needle
    for bind in ("AS_Q_DEF", "ON_OPEN", "NOT_FIXED", "ON_GROUP"):
        assert f'bind = "{bind}"' in texts
    assert re.search(r"DEFINE TOPIC\(\w+\) TOPICSTR\('[^']*'\).* CLUSTER\(C[12]\)", texts)  # cluster topics
    kinds = set(re.findall(r"^(\w+) = \{", texts, re.M))
    assert {"publish", "subscribe", "open", "put", "mqsc"} <= kinds
    assert all(f in texts for f in FEATURES) and all(k in texts for k in STEP_KINDS)  # in the descriptions
    # full-repository meshes complete and not, hierarchies with cycles
    assert "fr_mesh" not in texts  # flags are not rendered; they travel with the configuration


def test_incomplete_meshes_are_flagged():
    flagged = []

    @seed(3)
    @settings(max_examples=200, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(configurations(foci=("free",)))  # the feature swarm draws the misconfigurations
    def collect(configuration):
        flagged.extend(configuration.misconfigured)

    collect()
    assert {"fr_mesh_incomplete", "reset_in_error"} <= set(flagged)


def test_each_focus_builds_what_it_is_for():
    """The focused recipes (issue #14 round 2: targeted generation) build the structures
    their rules need in most examples, not by chance."""
    workload = draw_texts(12, 40, foci=("workload",))
    assert sum("DEFINE QLOCAL(CQ1) CLUSTER(C1)" in t and "open = {" in t and "put = {" in t for t in workload) >= 30
    hierarchy = draw_texts(13, 40, foci=("hierarchy",))
    assert sum("PARENT(" in t and "subscribe = {" in t and "publish = {" in t for t in hierarchy) >= 30
    clustered = draw_texts(14, 40, foci=("pubsub_cluster",))
    assert sum("CLUSTER(C1)" in t and "DEFINE TOPIC(T1)" in t and "subscribe = {" in t for t in clustered) >= 30
    membership = draw_texts(16, 60, foci=("membership",))
    assert all("ALTER QMGR REPOS(C1)" in t and "open = {" in t and "put = {" in t for t in membership)
    # each of what the membership rules need turns up (issue #14 round 4)
    for what in ("TO.QM1.B", "TO.QM2.B", "CONNAME('qm1(1420)')", "REPOS(' ')", 'action = "stop"',
                 "PSCLUS(DISABLED)", "ALTER QMGR REPOS(C1)\nDEFINE CHANNEL(TO.QM3)"):
        assert any(what in t for t in membership), what
    # seven foci since session 33's "coverage": 60 draws at this seed missed two of them
    assert all(f"focus:{f}" in " ".join(draw_texts(15, 120)) for f in FOCI if f != "free")


# the witnesses a whole-catalogue `mqcheck fuzz` never reached before the "witnesses" focus
# (docs/decisions.md, "Session 29: a whole-catalogue fuzz run reaches the rare witnesses")
RARE_WITNESSES = ("WL-USEQ-ANY-OPENED", "WL-MRUC-CUT", "WL-WEIGHTED-CYCLE", "WL-GATEWAY-HOP", "PS-REPUBLISH-LOOP")


def test_the_witnesses_focus_reaches_the_rare_witnesses():
    from checker.cli import fuzz_target
    from checker.explore import explore
    from checker.model import Status

    from spec.strategies import WITNESS_RECIPES, _witnesses_focus

    build = fuzz_target().build
    reached: dict[str, int] = dict.fromkeys(RARE_WITNESSES, 0)

    # session 29's five recipes (what configurations(foci=("witnesses",)) draws with the
    # default budgets, less session 30's two, which
    # test_each_publish_subscribe_witness_recipe_exercises_its_property holds to theirs):
    # with more recipes to draw from, 30 examples at a seed may miss one of the five
    @seed(29)
    @settings(max_examples=30, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(_witnesses_focus(3, 5, True, recipes=WITNESS_RECIPES[:5]))
    def explore_one(configuration):
        result = explore(build(configuration), max_states=300, property_ids=list(RARE_WITNESSES), workers=1)
        for pid, verdict in result.verdicts.items():
            reached[pid] += verdict.status is Status.WITNESSED

    explore_one()
    assert all(reached.values()), reached
    # and a run over the whole catalogue draws from that focus (its foci default to FOCI)
    assert "focus:witnesses" in " ".join(draw_texts(29, 60))


# session 30's recipes, each held to its own witness in every configuration it draws
# (docs/decisions.md, "Session 30: recipes for the four never-exercised publish/subscribe
# properties"): the witness is reached and the property it makes non-vacuous holds; where
# the publisher subscribes too, the no_fingerprint_check mutant violates PS-LOOP-DUPLICATES
# within the same bound
RECIPE_TARGETS = {"wildcard_block": ("PS-BLOCK-MATTERS", "PS-WILDCARD-BLOCK"),
                  "two_paths": ("PS-DUPLICATES-DELIVERED", "PS-LOOP-DUPLICATES")}


def test_each_publish_subscribe_witness_recipe_exercises_its_property():
    from checker.cli import fuzz_target
    from checker.explore import explore
    from checker.model import Status
    from spec.network import Mutations
    from spec.strategies import WITNESS_RECIPES, _witnesses_focus

    build = fuzz_target().build
    build_mutant = fuzz_target(mutations=Mutations(no_fingerprint_check=True)).build
    assert set(RECIPE_TARGETS) <= set(WITNESS_RECIPES)
    seen: list[tuple] = []
    caught: list[str] = []
    for recipe, (witness, prop) in RECIPE_TARGETS.items():

        @seed(30)
        @settings(max_examples=12, deadline=None, database=None, suppress_health_check=list(HealthCheck))
        @given(_witnesses_focus(3, 5, True, recipes=(recipe,)))
        def explore_one(configuration):
            # the bound `mqcheck fuzz` explores a configuration to (--bound, default 1000)
            result = explore(build(configuration), max_states=1000, property_ids=[prop, witness], workers=1)
            seen.append((configuration.faults, configuration.to_toml()))
            assert result.verdicts[witness].status is Status.WITNESSED, configuration.to_toml()
            assert result.verdicts[prop].status is Status.HOLDS, configuration.to_toml()
            if prop == "PS-LOOP-DUPLICATES" and len(configuration.steps) == 3:
                # the publisher subscribed too: without fingerprints a copy goes round again
                mutant = explore(build_mutant(configuration), max_states=1000, property_ids=[prop], workers=1)
                assert mutant.verdicts[prop].status is Status.VIOLATED, configuration.to_toml()
                caught.append("cluster" if "CLUSTER(C1)" in configuration.to_toml() else "loop")

        explore_one()
    assert any(faults for faults, _ in seen) and not all(faults for faults, _ in seen)  # with and without [check] faults
    assert set(caught) == {"cluster", "loop"}  # in both shapes (a hierarchy loop; a cluster bridged by a hierarchy)
    # what each recipe is built from turns up
    texts = [c for r in RECIPE_TARGETS for c in _recipe_texts(r)]
    for what in ("TOPICSTR('a') WILDCARD(BLOCK)", "TOPICSTR('a/b') CLUSTER(C1) WILDCARD(BLOCK)", 'scheme = "char"',
                 "ALTER QMGR PARENT(QM3)", "DEFINE TOPIC(T1) TOPICSTR('a') CLUSTER(C1)", 'name = "S2", topic = "a/#"'):
        assert any(what in t for t in texts), what


def _recipe_texts(recipe: str, n: int = 20) -> list[str]:
    from spec.strategies import _witnesses_focus

    texts: list[str] = []

    @seed(31)
    @settings(max_examples=n, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(_witnesses_focus(3, 5, True, recipes=(recipe,)))
    def collect(configuration):
        texts.append(configuration.to_toml())

    collect()
    return texts


def test_the_witness_recipes_fit_the_step_budget():
    # the WILDCARD(BLOCK) recipe needs three steps and the republishing loop five: smaller
    # budgets leave them out rather than cut a step the witness needs
    from spec.strategies import _witnesses_focus

    for budget, most in ((2, 2), (3, 3), (4, 3)):
        @seed(budget)
        @settings(max_examples=40, deadline=None, database=None, suppress_health_check=list(HealthCheck))
        @given(_witnesses_focus(3, budget, False))
        def within(configuration):
            assert len(configuration.steps) <= most

        within()


# session 33's "coverage" focus (spec/strategies_coverage.py): each recipe holds its
# properties to account in the configurations it draws (docs/decisions.md, "Session 33: the
# fuzz generator exercises the re-drive, retained and termination properties")
def _explored_recipe(recipe: str, n: int, property_ids: list[str]):
    from checker.cli import fuzz_target
    from checker.explore import explore

    from spec.strategies import _coverage_focus

    build, excused = fuzz_target().build, fuzz_target().excused
    out: list[tuple] = []

    @seed(33)
    @settings(max_examples=n, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(_coverage_focus(3, 5, True, recipes=(recipe,)))
    def explore_one(configuration):
        # the bound `mqcheck fuzz` explores a configuration to (--bound, default 1000)
        result = explore(build(configuration), max_states=1000, property_ids=property_ids, workers=1)
        out.append((configuration, {pid: v.status for pid, v in result.verdicts.items()}, set(excused(configuration))))

    explore_one()
    return out


def test_the_redrive_recipe_redrives_not_fixed_messages():
    from checker.model import Status

    seen = _explored_recipe("redrive", 15, ["BD-NOT-FIXED-REDRIVE", "BD-REDRIVEN", "WL-PUT-INHIBITED"])
    for configuration, verdicts, excused in seen:
        assert "BD-NOT-FIXED-REDRIVE" not in excused  # NOT_FIXED only: never the excused stuck-message case
        assert verdicts["BD-NOT-FIXED-REDRIVE"] is not Status.VIOLATED, configuration.to_toml()
        assert verdicts["WL-PUT-INHIBITED"] is not Status.VIOLATED, configuration.to_toml()
    assert sum(v["BD-REDRIVEN"] is Status.WITNESSED for _, v, _ in seen) >= 12
    texts = [c.to_toml() for c, _, _ in seen]
    for what in ('status = "RETRYING"', 'status = "RUNNING"', "PUT(DISABLED)", "faults = true"):
        assert any(what in t for t in texts), what
    assert not all("faults = true" in t for t in texts)


def test_the_retained_recipe_delivers_retained_publications_to_later_subscriptions():
    from checker.model import Status

    seen = _explored_recipe("retained", 15, ["PS-RETAINED-NEW-ONLY", "PS-RETAINED-REMOTE"])
    assert all(v["PS-RETAINED-NEW-ONLY"] is not Status.VIOLATED for _, v, _ in seen)
    assert sum(v["PS-RETAINED-REMOTE"] is Status.WITNESSED for _, v, _ in seen) >= 8
    texts = [c.to_toml() for c, _, _ in seen]
    for what in ("new_only = true", "PARENT(QM1)", "DEFINE TOPIC(T1) TOPICSTR('a') CLUSTER(C1)", 'name = "S2"'):
        assert any(what in t for t in texts), what
    for t in texts:  # the retained publication comes before the subscriptions
        assert t.index("retain = true") < t.index("subscribe = {")


def test_the_loop_recipe_decides_termination_where_publications_go_round():
    from checker.model import Status
    from spec.strategies_coverage import pubsub_loop

    seen = _explored_recipe("loop", 15, ["PS-TERMINATION", "PS-PUB-FORWARDED"])
    assert all(pubsub_loop(c) for c, _, _ in seen)
    decided = [c for c, v, _ in seen if v["PS-TERMINATION"] is Status.HOLDS and v["PS-PUB-FORWARDED"] is Status.WITNESSED]
    assert len(decided) >= 8
    texts = [c.to_toml() for c in decided]
    for what in ('action = "FORWARD"', "PARENT(QM3)", "PARENT(QM1)"):
        assert any(what in t for t in texts), what


def test_the_coverage_recipes_fit_the_step_budget():
    from spec.strategies import _coverage_focus

    for budget in (2, 3, 4):
        @seed(budget)
        @settings(max_examples=40, deadline=None, database=None, suppress_health_check=list(HealthCheck))
        @given(_coverage_focus(3, budget, True))
        def within(configuration):
            assert len(configuration.steps) <= budget

        within()
