"""``mqcheck prove SCENARIO`` on publish/subscribe hierarchies (session 33): routes through
queue managers between the publisher and the subscriber.

The symbolic answer to "does subscription S1 at S receive the publication made at P" is
checked against what ``mqcheck run`` of the concrete scenario delivers, for chains and trees
of depth 2-3 with topic objects (PUBSCOPE, SUBSCOPE, WILDCARD) at the ends and between, and
concrete subscriptions and topics. The seed's worked example first: 002 §Publish/subscribe
hierarchy example: Scenario 1 (examples/ps-hierarchy-three.toml), a publication at child QM2
reaching a subscriber at child QM3 through the parent QM1.
"""

from __future__ import annotations

import itertools
import json
import os
from pathlib import Path

import pytest
import z3
from hypothesis import given, settings
from hypothesis import strategies as st

from checker.cli import main
from spec.network import deliveries_of, run_scenario
from spec.scenario import parse_scenario
from spec.symbolic import reach as sym_reach
from spec.symbolic import scenario as sym_sc

ROOT = Path(__file__).resolve().parent.parent
THREE = ROOT / "examples" / "ps-hierarchy-three.toml"
DEPTH3 = ROOT / "tests" / "data" / "scenarios" / "ps-hierarchy-depth3.toml"
SLOW_BOUND = int(os.environ.get("MQCHECK_SLOW_BOUND", "6"))


def _config(text: str) -> sym_sc.Configuration:
    return sym_sc.configuration(run_scenario(parse_scenario(text, "hierarchy.toml")).final)


def predicted(config: sym_sc.Configuration, publisher: str, subscriber: str, sub: str, topic: str,
              other: str | None = None, names: tuple[str, ...] = ("a", "b", "c"), bound: int = 3) -> bool:
    """The encoding's answer, with everything fixed: S1 ``sub`` (and S2 ``other``, if any) at
    the subscriber, no MQSO/MQPMO scope options, a publication on ``topic``. The answer must
    be determined (reached and not reached cannot both be satisfiable)."""
    rp, facts = sym_sc.reach_problem(config, publisher, subscriber, bound, names)
    sent, reached = z3.Bools("P.forwards_to_S s1.receives")
    facts.update(sym_reach.rules(rp, sent, reached))
    solver = z3.Solver()
    solver.add(*rp.domain(), *facts.values(), *rp.topic.fix(topic), *rp.subs[0].sub.fix(sub),
               z3.Not(rp.pmo_scope_qmgr), z3.Not(rp.subs[0].scope_qmgr), z3.Not(rp.subs[1].scope_qmgr),
               rp.subs[1].present == (other is not None))
    if other is not None:
        solver.add(*rp.subs[1].sub.fix(other))
    yes, no = solver.check(reached) == z3.sat, solver.check(z3.Not(reached)) == z3.sat
    assert yes != no, (publisher, subscriber, sub, topic, other)
    return yes


def delivered(qmgrs_text: str, publisher: str, subscriber: str, sub: str, topic: str, other: str | None = None) -> bool:
    """What ``mqcheck run`` delivers to S1 with the same steps."""
    steps = f'[[steps]]\nsubscribe = {{ qmgr = "{subscriber}", name = "S1", topic = "{sub}" }}\n'
    if other is not None:
        steps += f'[[steps]]\nsubscribe = {{ qmgr = "{subscriber}", name = "S2", topic = "{other}" }}\n'
    steps += f'[[steps]]\npublish = {{ qmgr = "{publisher}", topic = "{topic}" }}\n'
    final = run_scenario(parse_scenario(qmgrs_text + "\n" + steps, "hierarchy.toml")).final
    return topic in deliveries_of(final).get(subscriber, {}).get("S1", [])


def _qmgrs(parents: dict[str, str], mqsc: dict[str, str]) -> str:
    out = ['name = "hierarchy"\n']
    for q, parent in parents.items():
        lines = ["ALTER QMGR PSMODE(ENABLED)"] + ([f"ALTER QMGR PARENT({parent})"] if parent else [])
        lines += [line for line in mqsc.get(q, "").splitlines() if line.strip()]
        out.append(f'[qmgrs.{q}]\nmqsc = """\n' + "\n".join(lines) + '\n"""\n')
    return "\n".join(out)


# ------------------------------------------------------------------ the seed's worked example
def test_seed_hierarchy_scenario_1_routes_through_the_parent():
    """002 §Publish/subscribe hierarchy example: Scenario 1 part 4: "amqspub Sport/Soccer QM2",
    "amqssub Sport/Soccer QM3": the subscriber at QM3 receives what QM2 publishes, through
    their parent QM1."""
    text = THREE.read_text().split("[[steps]]")[0]
    config = _config(text)
    route = sym_sc.route(config, "QM2", "QM3")
    assert route.hops == ("QM2", "QM1", "QM3") and route.describe() == "QM2 -> QM3 via QM1"
    names = ("Sport", "Soccer")
    assert predicted(config, "QM2", "QM3", "Sport/Soccer", "Sport/Soccer", names=names)
    assert delivered(text, "QM2", "QM3", "Sport/Soccer", "Sport/Soccer")


def test_seed_example_table_says_the_route(capsys, tmp_path):
    assert main(["prove", "--json", "--out", str(tmp_path), str(THREE)]) == 0
    data = json.loads(capsys.readouterr().out)
    pairs = {(p["publisher"], p["subscriber"]): p for p in data["reachability"]["pairs"]}
    assert pairs[("QM2", "QM3")]["linked"] and pairs[("QM2", "QM3")]["via"] == ["QM1"]
    rows = {r["topics"]: r for r in pairs[("QM2", "QM3")]["rows"]}
    assert rows["Sport/Soccer/#"]["any"] == "yes"
    assert main(["prove", "--out", str(tmp_path), str(THREE)]) == 0
    out = capsys.readouterr().out
    assert "  QM2 -> QM3 via QM1\n" in out and "not publish/subscribe neighbours" not in out
    report = tmp_path / "prove.html"
    assert main(["prove", "--out", str(tmp_path), "--report", str(report), str(THREE)]) == 0
    assert "routes: QM2 -&gt; QM3 via QM1; QM3 -&gt; QM2 via QM1" in report.read_text()


# ------------------------------------------------------------------ the user trial: depth 3
def test_depth_three_trial_lon_to_sf(capsys, tmp_path):
    """The session 33 user trial: LON -> SF was "not publish/subscribe neighbours"."""
    config = _config(DEPTH3.read_text().split("[[steps]]")[0])
    assert sym_sc.route(config, "LON", "SF").describe() == "LON -> SF via UK, EU, HQ, US"
    assert main(["prove", "--out", str(tmp_path), str(DEPTH3)]) == 0
    out = capsys.readouterr().out
    assert "  LON -> SF via UK, EU, HQ, US\n" in out
    assert "not publish/subscribe neighbours" not in out and "VACUOUS" not in out
    assert "3 proved, 0 counterexample(s), 0 unknown" in out
    # the "possible" claim's witness is a scenario whose delivery mqcheck run reproduces
    (witness,) = tmp_path.glob("prove-0-*.toml")
    assert main(["run", str(witness)]) == 0
    assert "Expectations: 1 of 1 hold" in capsys.readouterr().out


def test_depth_three_trial_agrees_with_the_network():
    text = DEPTH3.read_text().split("[[steps]]")[0]
    config = _config(text)
    names = ("Prices", "Local", "Internal", "Gold")
    cases = [("LON", "SF", "Prices/#", "Prices/Gold"), ("LON", "SF", "Prices/Local", "Prices/Local"),
             ("LON", "SF", "#", "Prices/Local"), ("LON", "DE", "Prices/Internal", "Prices/Internal"),
             ("DE", "LON", "Prices/#", "Prices/Internal"), ("NY", "MAN", "+/Gold", "Prices/Gold")]
    for p, s, sub, topic in cases:
        want = delivered(text, p, s, sub, topic)
        assert predicted(config, p, s, sub, topic, names=names) == want, (p, s, sub, topic, want)


# ------------------------------------------------------------------ chains: every attribute choice
CHAIN = {"A": "", "B": "A", "C": "B"}   # C's parent is B, B's is A: C -> A via B
OBJECTS = ["", "PUBSCOPE(QMGR)", "SUBSCOPE(QMGR)", "WILDCARD(BLOCK)"]
SUBS = ["a/b", "a/#", "#", "a/+", "+/b"]


def _chain_cases():
    yield {}
    for where, attrs, node in itertools.product(("A", "B", "C"), OBJECTS[1:], ("a", "a/b")):
        yield {where: f"DEFINE TOPIC(T) TOPICSTR('{node}') {attrs}"}


@pytest.mark.parametrize("mqsc", list(_chain_cases()), ids=lambda m: ",".join(f"{k}:{v}" for k, v in m.items()) or "none")
def test_chain_agrees_with_the_network(mqsc):
    text = _qmgrs(CHAIN, mqsc)
    config = _config(text)
    assert sym_sc.route(config, "C", "A").via == ("B",)
    cases = [(p, s, sub, topic) for p, s in (("C", "A"), ("A", "C")) for sub in SUBS for topic in ("a/b", "a")]
    for p, s, sub, topic in cases[: SLOW_BOUND * 4 or None]:
        want = delivered(text, p, s, sub, topic)
        assert predicted(config, p, s, sub, topic) == want, (mqsc, p, s, sub, topic, want)


def test_another_subscription_pulls_over_a_hop_the_first_cannot():
    """B's SUBSCOPE(QMGR) at a/b keeps S1 'a/b''s proxy subscription at B; S2 'a/#' (resolved
    at a, SUBSCOPE ALL) is relayed to C and pulls the publication over every hop, and S1 then
    receives it at A (002 §Wildcards and cluster topics' "unexpected result", in a hierarchy)."""
    text = _qmgrs(CHAIN, {"B": "DEFINE TOPIC(T) TOPICSTR('a/b') SUBSCOPE(QMGR)"})
    config = _config(text)
    assert not predicted(config, "C", "A", "a/b", "a/b") and not delivered(text, "C", "A", "a/b", "a/b")
    assert predicted(config, "C", "A", "a/b", "a/b", "a/#") and delivered(text, "C", "A", "a/b", "a/b", "a/#")


# ------------------------------------------------------------------ trees of depth 3: random attributes
TREE = {"R": "", "L": "R", "M": "R", "LL": "L", "MM": "M"}   # LL -> MM via L, R, M
ATTRS = st.sampled_from(["PUBSCOPE(QMGR)", "SUBSCOPE(QMGR)", "WILDCARD(BLOCK)", "PUBSCOPE(ALL) SUBSCOPE(ALL)", ""])


@settings(max_examples=int(os.environ.get("MQCHECK_HIERARCHY_EXAMPLES", "10")), deadline=None)
@given(st.data())
def test_tree_agrees_with_the_network(data):
    objects = data.draw(st.lists(st.tuples(st.sampled_from(sorted(TREE)), st.sampled_from(["a", "a/b", "c"]), ATTRS),
                                 max_size=3, unique_by=lambda t: (t[0], t[1])))
    mqsc: dict[str, str] = {}
    for i, (q, node, attrs) in enumerate(objects):
        mqsc[q] = mqsc.get(q, "") + f"DEFINE TOPIC(T{i}) TOPICSTR('{node}') {attrs}\n"
    text = _qmgrs(TREE, mqsc)
    config = _config(text)
    p, s = data.draw(st.sampled_from([("LL", "MM"), ("MM", "LL"), ("LL", "M"), ("R", "MM")]))
    sub = data.draw(st.sampled_from(SUBS + ["c", "a/b/#"]))
    topic = data.draw(st.sampled_from(["a/b", "a", "a/c", "c"]))
    other = data.draw(st.sampled_from([None, "#", "a/#"]))
    assert sym_sc.route(config, p, s).via
    want = delivered(text, p, s, sub, topic, other)
    assert predicted(config, p, s, sub, topic, other) == want, (mqsc, p, s, sub, topic, other, want)


# ------------------------------------------------------------------ what stays out, and why
def test_a_hierarchy_loop_is_not_covered():
    config = _config(_qmgrs({"A": "C", "B": "A", "C": "B", "D": "C"}, {}))
    route = sym_sc.route(config, "D", "B")
    assert not route.covered and "loop" in route.reason


def test_a_route_mixing_cluster_and_hierarchy_links_is_not_covered():
    config = _config((ROOT / "examples" / "ps-clusters-joined.toml").read_text().split("[[steps]]")[0])
    route = sym_sc.route(config, "PA", "PB")
    assert not route.covered and "mixing" in route.reason


def test_a_claims_pairs_not_covered_are_said_with_its_verdict(capsys, tmp_path):
    """002's bridged clusters: FRA -> FRB runs through the hierarchy (via BRIDGE), PA -> FRB
    needs a cluster hop too; the verdict is over FRA -> FRB and says PA -> FRB is left out."""
    head = (ROOT / "examples" / "ps-clusters-bridged.toml").read_text().split("[[steps]]")[0]
    path = tmp_path / "bridged.toml"
    path.write_text(head + '\n[[prove]]\nname = "USA flows to FRB"\npublisher = ["FRA", "PA"]\nsubscriber = "FRB"\n'
                    'topic = "USA/#"\nexpect = "possible"\n')
    assert main(["prove", "--out", str(tmp_path), str(path)]) == 0
    out = capsys.readouterr().out
    assert "FRA -> FRB via BRIDGE" in out
    assert ("    not covered, so not part of this verdict: PA -> FRB (connected only through both hierarchy and "
            "cluster links: a route mixing them is not covered)\n") in out
