"""``mqcheck prove``: the claims, their broken variants, and the encodings against the network.

- every claim is proved at a small bound by the real Z3 (CI keeps bounds small: the
  bound-5 timings are in benchmarks/RESULTS.md);
- every claim is refuted under its broken rule, and the counterexample scenario it writes
  states what the broken rule predicts: `mqcheck run` on it exits 1 (the real rules do
  otherwise, and the failing expectation shows what they do), the network with the same
  rule broken (``spec.network.Mutations``, DESIGN §5) satisfies it — the differential test
  catches the same broken rule;
- the repository, loop and reach encodings agree with the network model itself on small
  configurations (exhaustive where cheap, Hypothesis otherwise).
"""

from __future__ import annotations

import itertools
import os

import pytest
import z3
from hypothesis import given, settings
from hypothesis import strategies as st

from checker.prove import COUNTEREXAMPLE, PROVED, UNKNOWN, prove
from properties import claims as claims_mod
from properties.claims import BROKEN, CLAIMS
from spec.network import (
    NO_MUTATIONS,
    MQNetwork,
    Mutations,
    ScenarioStep,
    check_expectations,
    deliveries_of,
    repositories_of,
    settle,
)
from spec.scenario import parse_scenario
from spec.symbolic import loops as sym_loops
from spec.symbolic import reach as sym_reach
from spec.symbolic import repository as sym_repo

# slow tests: how many cases (0 = every one); CI sets a small bound
SLOW_BOUND = int(os.environ.get("MQCHECK_SLOW_BOUND", "6"))
BY_ID = {p.id: p for p in CLAIMS}
SMALL_BOUND = {"PS-CFG-WILDCARD-BLOCK": 2, "RP-CFG-FR-MESH": 4, "PS-CFG-LOOP-BOUND": 4, "PS-CFG-REACH": 2,
               "WL-CFG-SELECTION": 2, "WL-CFG-WEIGHTS": 2}


def run_text(text: str, mutations: Mutations = NO_MUTATIONS):
    """``mqcheck run``'s scheduler on a scenario text, optionally with a broken rule."""
    scenario = parse_scenario(text, "counterexample.toml")
    model = MQNetwork(scenario, faults=0, explore_initial=False, mutations=mutations)
    (state,) = model.init_states()
    while state.next_step < len(scenario.steps):
        state = settle(model, model.next_state(state, ScenarioStep(state.next_step)))
    return state, check_expectations(scenario, state)


# ============================================================ the claims
def test_every_claim_has_a_broken_variant_and_a_citation():
    assert set(BROKEN) == set(BY_ID)
    for p in CLAIMS:
        assert p.kind.value == "config" and p.citation.startswith(("000 §", "001 §", "002 §"))


@pytest.mark.parametrize("claim_id", sorted(SMALL_BOUND))
def test_claim_proved_at_a_small_bound(claim_id):
    verdict, detail = prove(BY_ID[claim_id].predicate, SMALL_BOUND[claim_id])
    assert verdict == PROVED, detail
    assert detail["facts"], "a proof names the facts it rests on"
    assert all(f in BY_ID[claim_id].predicate.encode(SMALL_BOUND[claim_id]).facts for f in detail["facts"])


def test_proof_rests_on_the_rule_it_is_about():
    _, detail = prove(BY_ID["PS-CFG-LOOP-BOUND"].predicate, 3)
    assert detail["facts"] == ["002 §How loop detection works: a queue manager discards a publication carrying "
                               "its own fingerprint"]
    _, detail = prove(BY_ID["RP-CFG-FR-MESH"].predicate, 3)
    assert any("does not re-forward" in f for f in detail["facts"])  # incomplete meshes lose records because of it


# DESIGN §5 mutants the network model has, by broken variant
NETWORK_MUTANT = {
    "fr_forwarding_swapped": Mutations(fr_forwarding_swapped=True),
    "no_fingerprint_check": Mutations(no_fingerprint_check=True),
    "ignore_subscope_remote": Mutations(ignore_subscope_remote=True),
    "rank_after_status": Mutations(rank_after_status=True),
    "weight_ignored": Mutations(weight_ignored=True),
}


# what `mqcheck run` prints for the real behaviour, per claim (the broken rule predicted otherwise)
REAL_SHOWN = {"PS-CFG-WILDCARD-BLOCK": "got []", "RP-CFG-FR-MESH": "queues: expected",
              "PS-CFG-LOOP-BOUND": "expected no error LOOP_DETECTED at", "PS-CFG-REACH": "got []",
              "WL-CFG-SELECTION": "", "WL-CFG-WEIGHTS": "messages of app: expected"}


@pytest.mark.parametrize("claim_id", sorted(SMALL_BOUND))
def test_broken_rule_is_refuted_and_mqcheck_run_reproduces_it(claim_id, tmp_path, capsys):
    """The done-when: the broken rule's counterexample is a scenario whose [[expect]] blocks
    state what the broken rule predicts; plain `mqcheck run` on the real spec exits 1 and its
    failing expectation shows the real behaviour; with the same rule broken in the network
    (tests only) every expectation holds — the differential evidence."""
    from checker.cli import main
    from checker.prove import write_counterexample

    variant = BROKEN[claim_id]
    verdict, detail = prove(BY_ID[claim_id].predicate.broken(variant), SMALL_BOUND[claim_id] + 1)
    assert verdict == COUNTEREXAMPLE
    cex = detail["counterexample"]
    assert variant in cex.summary
    assert cex.scenario_toml.startswith(f"# Counterexample of {claim_id} under the deliberately broken rule")
    assert f"# The broken variant {variant} predicts " in cex.scenario_toml
    assert "the executable spec disagrees" in cex.scenario_toml
    path = write_counterexample(cex, str(tmp_path), claim_id)
    capsys.readouterr()
    assert main(["run", path]) == 1, "the real rules do not do what the broken rule predicts"
    out = capsys.readouterr().out
    assert "FAILED" in out and REAL_SHOWN[claim_id] in out
    if variant in NETWORK_MUTANT:
        _, results = run_text(cex.scenario_toml, NETWORK_MUTANT[variant])
        assert all(r.ok for r in results), ("the network with the same rule broken does what it predicts", results)
    else:  # local_objects_only: the Python rule, applied to the local objects only
        from spec.topic_tree import TopicSpace, is_blocked
        from spec.topics import topic_matches
        d = cex.data
        local = tuple(o for o in _space_of(cex.scenario_toml).local)
        blocking = TopicSpace(local).blocking_nodes(d["sub"], d["scheme"])
        assert topic_matches(d["sub"], d["topic"], d["scheme"]) and not is_blocked(blocking, d["topic"])
        assert d["delivered"], "the broken rule delivers what the real one blocks"


def _space_of(text: str):
    from spec.network import topic_space
    state, _ = run_text(text)
    return topic_space(state.qmgr("QMA"))


def test_an_undecided_claim_is_unknown_never_proved():
    verdict, detail = prove(BY_ID["PS-CFG-WILDCARD-BLOCK"].predicate, 4, timeout=0.001)
    assert verdict == UNKNOWN and detail["reason"] == "timeout (0.001 s)"


def test_unknown_reasons_other_than_a_timeout_are_kept():
    from checker.prove import _unknown_reason

    assert _unknown_reason("canceled", 0.01) == "timeout (0.01 s)"
    assert _unknown_reason("timeout", 60.0) == "timeout (60 s)"
    assert _unknown_reason("canceled", None) == "canceled"
    assert _unknown_reason("(incomplete quantifiers)", 0.01) == "(incomplete quantifiers)"
    assert _unknown_reason("", 0.01) == "unknown"


def test_exit_status_of_a_broken_rule_run():
    """--broken inverts the expected verdict: 0 every broken rule refuted, 1 one proved (a
    surviving mutant: the claim does not detect it), 3 one unknown; plain runs as before."""
    from checker.prove import COUNTEREXAMPLE, PROVED, ProofRecord, exit_status, format_summary

    def rec(verdict, broken_rule=None, title="t"):
        return ProofRecord("X", title, "c", verdict, 3, "things", 0.1, broken_rule=broken_rule)

    assert exit_status([rec(COUNTEREXAMPLE, "m"), rec(COUNTEREXAMPLE, "n")]) == 0
    assert exit_status([rec(COUNTEREXAMPLE, "m"), rec(PROVED, "n")]) == 1
    assert exit_status([rec(COUNTEREXAMPLE, "m"), rec(UNKNOWN, "n")]) == 3
    assert exit_status([rec(PROVED, "m"), rec(UNKNOWN, "n")]) == 1
    assert exit_status([rec(PROVED), rec(PROVED)]) == 0
    assert exit_status([rec(PROVED), rec(COUNTEREXAMPLE)]) == 1
    assert exit_status([rec(PROVED), rec(UNKNOWN)]) == 3
    # the title suffix checker/cli.py appends under --broken marks the record too
    assert rec(PROVED, title="t [broken rule: m]").mutant() == "m"
    assert exit_status([rec(COUNTEREXAMPLE, title="t [broken rule: m]")]) == 0
    assert format_summary([rec(COUNTEREXAMPLE, "m"), rec(PROVED, "n")]) == \
        "1 proved, 1 counterexample(s), 0 unknown (1 of 2 broken rule(s) refuted as expected, 1 NOT refuted)"
    assert format_summary([rec(PROVED)]) == "1 proved, 0 counterexample(s), 0 unknown"


def test_same_claim_same_answer():
    """A fresh Z3 context per proof: the answer does not depend on what ran before."""
    claim = BY_ID["PS-CFG-REACH"].predicate.broken("ignore_subscope_remote")
    first = prove(claim, 2)[1]["counterexample"].scenario_toml
    prove(BY_ID["PS-CFG-LOOP-BOUND"].predicate, 3)
    assert prove(claim, 2)[1]["counterexample"].scenario_toml == first


# ============================================================ repositories: encoding vs network
def _graphs(n):
    pairs = [(i, j) for i in range(n) for j in range(n) if i != j]
    for chosen in itertools.product([False, True], repeat=len(pairs)):
        edges = [p for p, c in zip(pairs, chosen) if c]
        if all(any(i == a for a, _ in edges) for i in range(n)):  # every FR has a manual CLUSSDR
            yield edges


def _mesh_scenario(n, edges):
    fr = [f"FR{i + 1}" for i in range(n)]
    text = ""
    for i in range(n):
        mqsc = ["ALTER QMGR REPOS(DEMO)",
                f"DEFINE CHANNEL(TO.{fr[i]}) CHLTYPE(CLUSRCVR) CONNAME('{fr[i].lower()}(1414)') CLUSTER(DEMO)"]
        mqsc += [f"DEFINE CHANNEL({fr[i]}.TO.{fr[j]}) CHLTYPE(CLUSSDR) CONNAME('{fr[j].lower()}(1414)') CLUSTER(DEMO)"
                 for a, j in edges if a == i]
        text += f"[qmgrs.{fr[i]}]\nmqsc = '''\n" + "\n".join(mqsc) + "\n'''\n"
    for i in range(n):
        text += f'[[steps]]\nmqsc = {{ qmgr = "{fr[i]}", commands = "DEFINE QLOCAL(CQ{i + 1}) CLUSTER(DEMO)" }}\n'
    return text


def _mesh_agrees(n, edges, variant=""):
    state, _ = run_text(_mesh_scenario(n, edges), NETWORK_MUTANT.get(variant, Mutations()))
    repos = repositories_of(state)
    mesh = sym_repo.fr_mesh(n)
    fixes = [e == ((i, j) in edges) for (i, j), e in mesh.edge.items()] + [x for x in mesh.exists]
    fixes += list(sym_repo.rules(mesh, variant).values())
    solver = z3.Solver()
    solver.add(*mesh.domain(), *fixes)
    assert solver.check() == z3.sat
    m = solver.model()
    for owner in range(n):
        got = mesh.own_record_reaches(owner)
        for y in range(n):
            predicted = z3.is_true(m.eval(got[y], model_completion=True))
            held = f"CQ{owner + 1}" in repos[f"FR{y + 1}"]["DEMO"]["queues"]
            assert predicted == held, (edges, variant, owner, y)


@pytest.mark.parametrize("edges", [[(0, 1), (1, 0)], [(0, 1), (1, 2), (2, 0)], [(2, 0), (2, 1), (0, 1), (1, 0)],
                                   [(0, 1), (0, 2), (1, 0), (1, 2), (2, 0), (2, 1)]])
def test_fr_mesh_agrees_with_the_network(edges):
    n = 1 + max(max(e) for e in edges)
    _mesh_agrees(n, edges)


def test_fr_mesh_broken_rule_agrees_with_the_network_mutant():
    _mesh_agrees(3, [(0, 1), (0, 2), (1, 0), (1, 2), (2, 0), (2, 1)], "fr_forwarding_swapped")
    _mesh_agrees(3, [(0, 1), (1, 2), (2, 0)], "fr_forwarding_swapped")


@pytest.mark.slow
def test_fr_mesh_agrees_on_every_graph_of_three():
    """Exhaustive when MQCHECK_SLOW_BOUND=0 (27 graphs, each a network run)."""
    graphs = list(_graphs(3))
    assert len(graphs) == 27
    for edges in graphs[: SLOW_BOUND or None]:
        _mesh_agrees(3, edges)


# ============================================================ loops: encoding vs network
def _loop_reached(n, parents, members, origin):
    """QMs the encoding says a publication at ``origin`` is processed at."""
    g, p = sym_loops.graph(n), sym_loops.path(n)
    base = g.domain() + p.domain(g) + list(sym_loops.rules(g, p).values())
    base += [e for e in g.exists] + [g.parent[i] == parents[i] for i in range(n)]
    base += [g.member[i] == members[i] for i in range(n)] + [p.qmgr[0] == origin]
    out = set()
    for target in range(n):
        s = z3.Solver()
        s.add(*base, z3.Or([z3.And(p.length == k, p.qmgr[k] == target) for k in range(n + 1)]))
        if s.check() == z3.sat:
            out.add(target)
    return out


@pytest.mark.parametrize("parents, members", [
    ([1, 2, 0], [False, False, False]),        # a hierarchy loop (ps-hierarchy-loop.toml)
    ([-1, 0, 1], [False, False, False]),       # a chain
    ([-1, 0, -1], [True, False, True]),        # QM2 under QM1, QM1 and QM3 in a cluster
    ([1, -1, -1], [True, True, True]),         # a cluster with a hierarchy edge inside it
])
def test_loop_paths_agree_with_the_network(parents, members):
    n = len(parents)
    d = {"qmgrs": n, "parent": parents, "member": members, "path": [0], "via": []}
    text = claims_mod._loop_scenario(d, "").scenario_toml
    state, _ = run_text(text)
    got = {i for i in range(n) if deliveries_of(state).get(f"QM{i + 1}", {}).get(f"S{i + 1}")}
    assert got == _loop_reached(n, parents, members, 0) | {0}


# ============================================================ reach: encoding vs network
@settings(max_examples=int(os.environ.get("MQCHECK_REACH_EXAMPLES", "8")))
@given(st.data())
def test_reach_agrees_with_the_network(data):
    """Random two-level configurations and subscriptions: the encoding's answer to "does S1
    receive the publication" is what the network does with the decoded scenario."""
    rp = sym_reach.reach_problem(2)
    sent, reached = z3.Bools("P.forwards_to_S s1.receives")
    facts = sym_reach.rules(rp, sent, reached)
    solver = z3.Solver()
    solver.add(*rp.domain(), *facts.values())
    solver.set("random_seed", data.draw(st.integers(0, 10_000)))
    # steer the model somewhere random: a few random literals, kept when satisfiable
    choices = [rp.pmo_scope_qmgr, rp.subs[1].present, rp.subs[0].scope_qmgr, rp.subs[1].scope_qmgr, reached]
    for v in rp.records.nodes.values():
        choices += [v.record, v.record_attrs["wildcard"] == 1, v.record_attrs["subscope"] == 1]
    for tree in (rp.pub_tree, rp.sub_tree):
        for v in tree.nodes.values():
            choices += [v.local, v.local_attrs["pubscope"] == 1, v.local_attrs["wildcard"] == 1,
                        v.local_attrs["cluster"] == sym_reach.CL2]
    for c in data.draw(st.lists(st.sampled_from(range(len(choices))), max_size=8, unique=True)):
        literal = choices[c] if data.draw(st.booleans()) else z3.Not(choices[c])
        solver.push()
        solver.add(literal)
        if solver.check() != z3.sat:
            solver.pop()
    assert solver.check() == z3.sat
    model = solver.model()
    predicted = z3.is_true(model.eval(reached, model_completion=True))
    cex = claims_mod._reach_scenario(rp, model, "", predicted)
    _, results = run_text(cex.scenario_toml)
    assert all(r.ok for r in results), cex.scenario_toml


# ============================================================ workload: encoding vs spec.workload.choose
from spec import workload as wl
from spec.symbolic import workload as sym_wl


def _view(config: dict, k: int, mutated: bool = False) -> wl.QmgrView:
    routes = config["routes"]
    local = routes[-1]
    receivers, queues, statuses = [], [], []
    for r in routes[:-1]:
        receivers.append(wl.ClusterReceiver(r["qmgr"], r["channel"], ("DEMO",), r["CLWLWGHT"], r["CLWLRANK"],
                                            r["CLWLPRTY"], 0, r["suspended"]))
        statuses.append(wl.ChannelState(r["qmgr"], r["channel"], r["status"]))
        if r["instance"]:
            queues.append(wl.QueueInstance(r["qmgr"], "DEMOQ", ("DEMO",), r["PUT"], r["queue CLWLRANK"],
                                           r["queue CLWLPRTY"]))
    local_queues = ()
    if local["instance"]:
        local_queues = (wl.QueueInstance("QMAPP", "DEMOQ", ("DEMO",), local["PUT"], local["queue CLWLRANK"],
                                         local["queue CLWLPRTY"], config["local CLWLUSEQ"]),)
    if mutated:  # spec.network's Mutations.rank_after_status, applied to the view as the network does
        def status_class(x):
            status = next(s.status for s in statuses if s.qmgr == x.qmgr)
            return next(i for i, members in enumerate(wl.STATUS_CLASSES) if status in members)
        hosts = {q.qmgr for q in queues}
        present = [x for x in receivers if x.qmgr in hosts]
        if present:
            best = min(status_class(x) for x in present)
            receivers = [x for x in receivers if x.qmgr not in hosts or status_class(x) == best]
    mine = wl.ClusterReceiver("QMAPP", "TO.QMAPP", ("DEMO",), local["CLWLWGHT"], local["CLWLRANK"], local["CLWLPRTY"])
    return wl.QmgrView("QMAPP", (mine,), tuple(receivers), tuple(queues), (), local_queues, tuple(statuses),
                       config["QMGR CLWLUSEQ"])


def _selection_agrees(sel, out, config, variant="", solver=None):
    fixes = []
    for r, c in zip(sel.routes, config["routes"]):
        fixes += [r.exists == c["instance"], r.ch_rank == c["CLWLRANK"], r.ch_prty == c["CLWLPRTY"],
                  r.weight == c["CLWLWGHT"], r.status == {"RUNNING": 0, "RETRYING": 2, "STOPPED": 3}[c["status"]],
                  r.suspended == c["suspended"], r.put == c["PUT"], r.q_rank == c["queue CLWLRANK"],
                  r.q_prty == c["queue CLWLPRTY"]]
    fixes += [sel.local_useq == sym_wl.USEQ.index(config["local CLWLUSEQ"]),
              sel.qmgr_useq_local == (config["QMGR CLWLUSEQ"] == "LOCAL")]
    s = solver or z3.Solver()
    if solver is None:
        s.add(*sel.domain())
    s.push()
    s.add(*fixes)
    assert s.check() == z3.sat
    m = s.model()
    s.pop()
    choice = wl.choose(_view(config, len(sel.routes) - 1, bool(variant)), wl.Put("DEMOQ"))
    got = [r.qmgr for r, c in zip(sel.routes, out.chosen) if z3.is_true(m.eval(c, model_completion=True))]
    want = [choice.destination.qmgr] if choice.destination else []
    assert got == want, (config, choice.lines())
    assert z3.is_true(m.eval(out.inhibited, model_completion=True)) == \
        (choice.reason == wl.Reason.MQRC_CLUSTER_PUT_INHIBITED)


def _route(qmgr, local, instance=True, rank=0, put=True, status="RUNNING", **kw):
    return {"qmgr": qmgr, "channel": f"TO.{qmgr}", "local": local, "instance": instance, "CLWLRANK": rank,
            "CLWLPRTY": kw.get("prty", 0), "CLWLWGHT": kw.get("weight", 50), "status": status,
            "suspended": kw.get("suspended", False), "PUT": put, "queue CLWLRANK": kw.get("q_rank", 0),
            "queue CLWLPRTY": kw.get("q_prty", 0)}


def _remote_options(qmgr):
    yield _route(qmgr, False, instance=False)
    for rank, put, status in itertools.product((0, 1), (True, False), ("RUNNING", "RETRYING")):
        yield _route(qmgr, False, rank=rank, put=put, status=status)


def _local_options():
    """(local route, the queue's CLWLUSEQ, QMAPP's CLWLUSEQ)."""
    yield _route("QMAPP", True, instance=False), "QMGR", "LOCAL"
    for rank, put, (useq, qmgr_useq) in itertools.product((0, 1), (True, False), (
            ("QMGR", "LOCAL"), ("QMGR", "ANY"), ("LOCAL", "ANY"), ("ANY", "LOCAL"))):
        yield _route("QMAPP", True, rank=rank, put=put), useq, qmgr_useq


@pytest.mark.parametrize("variant", ["", "rank_after_status"])
def test_selection_agrees_exhaustively(variant):
    """Two remote instances and a local one over small attribute domains: every combination."""
    sel = sym_wl.selection(2)
    out = sym_wl.choose(sel, variant)
    solver = z3.Solver()
    solver.add(*sel.domain())
    for r1, r2, (local, useq, qmgr_useq) in itertools.product(list(_remote_options("QM1")), list(_remote_options("QM2")),
                                                              list(_local_options())):
        config = {"routes": [r1, r2, local], "local CLWLUSEQ": useq, "QMGR CLWLUSEQ": qmgr_useq}
        _selection_agrees(sel, out, config, variant, solver)


@settings(max_examples=40)
@given(st.data())
def test_selection_agrees_at_larger_bounds(data):
    k = 3
    sel = sym_wl.selection(k)
    out = sym_wl.choose(sel)
    digit = st.integers(0, 2)
    routes = []
    for i in range(k + 1):
        local = i == k
        routes.append(_route("QMAPP" if local else f"QM{i + 1}", local, instance=data.draw(st.booleans()),
                             rank=data.draw(digit), put=data.draw(st.booleans()),
                             status="RUNNING" if local else data.draw(st.sampled_from(["RUNNING", "RETRYING", "STOPPED"])),
                             prty=data.draw(digit), weight=data.draw(st.integers(1, 99)),
                             suspended=False if local else data.draw(st.booleans()), q_rank=data.draw(digit),
                             q_prty=data.draw(digit)))
    config = {"routes": routes, "local CLWLUSEQ": data.draw(st.sampled_from(sym_wl.USEQ)),
              "QMGR CLWLUSEQ": data.draw(st.sampled_from(["LOCAL", "ANY"]))}
    _selection_agrees(sel, out, config)


@pytest.mark.slow
def test_loop_paths_agree_on_every_graph_of_three():
    """Every hierarchy (each queue manager's parent: none or another) and cluster membership
    of three queue managers; MQCHECK_SLOW_BOUND=0 runs all 216 (each a network run)."""
    cases = [(list(p), list(m)) for p in itertools.product((-1, 0, 1, 2), repeat=3) if all(p[i] != i for i in range(3))
             for m in itertools.product((False, True), repeat=3)]
    for parents, members in cases[: SLOW_BOUND or None]:
        test_loop_paths_agree_with_the_network(parents, members)


@pytest.mark.slow
def test_reach_agrees_on_every_scope_choice():
    """A fixed small configuration (cluster topic 'a' from FR1; QMA and QMB members), every
    MQPMO/MQSO scope choice and subscription pair: the encoding against the network."""
    rp = sym_reach.reach_problem(1)
    sent, reached = z3.Bools("P.forwards_to_S s1.receives")
    base = rp.domain() + list(sym_reach.rules(rp, sent, reached).values())
    a = ("a",)
    base += [rp.records.nodes[a].record, rp.records.nodes[a].record_attrs["subscope"] == 0,
             rp.records.nodes[a].record_attrs["pubscope"] == 0, rp.records.nodes[a].record_attrs["wildcard"] == 0]
    base += [z3.Not(t.nodes[n].local) for t in (rp.pub_tree, rp.sub_tree) for n in t.nodes if n]
    base += [t.nodes[()].local_attrs[x] == 2 for t in (rp.pub_tree, rp.sub_tree) for x in ("pubscope", "subscope")]
    base += [t.nodes[()].local_attrs["cluster"] == 0 for t in (rp.pub_tree, rp.sub_tree)]
    base += [t.nodes[()].local_attrs["wildcard"] == 0 for t in (rp.pub_tree, rp.sub_tree)]
    base += rp.topic.fix("a")
    cases = list(itertools.product(("a", "#"), (None, "a"), (False, True), (False, True), (False, True)))
    for s1, s2, pq, sq1, sq2 in cases[: SLOW_BOUND or None]:
        s = z3.Solver()
        s.add(*base, *rp.subs[0].sub.fix(s1), rp.pmo_scope_qmgr == pq, rp.subs[0].scope_qmgr == sq1,
              rp.subs[1].present == (s2 is not None), rp.subs[1].scope_qmgr == sq2)
        if s2 is not None:
            s.add(*rp.subs[1].sub.fix(s2))
        assert s.check() == z3.sat
        m = s.model()
        predicted = z3.is_true(m.eval(reached, model_completion=True))
        _, results = run_text(claims_mod._reach_scenario(rp, m, "", predicted).scenario_toml)
        assert all(r.ok for r in results), (s1, s2, pq, sq1, sq2, predicted)


# ============================================================ Ctrl-C and SIGTERM (issue #17's honest-stop rule)
def test_an_interrupted_claim_is_unknown_whatever_z3_answers():
    """checker.prove.interrupt from another thread at any moment of a proof: the claim is
    unknown. Interrupting Z3 while the claim was being encoded once gave "counterexample:
    0 full repositories ..." for RP-CFG-FR-MESH, which is proved."""
    import threading
    import time

    from checker import prove as prove_mod

    claim = {c.id: c for c in claims_mod.claims()}["RP-CFG-FR-MESH"].predicate
    try:
        assert prove(claim, 5, 60)[0] == PROVED
        seen = []
        for delay in (0.0, 0.005, 0.02, 0.05, 0.1):
            prove_mod.reset_interrupt()
            box: dict = {}
            worker = threading.Thread(target=lambda: box.update(result=prove(claim, 5, 60)))
            worker.start()
            time.sleep(delay)
            prove_mod.interrupt("interrupted")
            worker.join(60)
            verdict, detail = box["result"]
            seen.append(verdict)
            assert verdict in (UNKNOWN, PROVED), (delay, verdict, detail)   # proved if it finished first
            if verdict == UNKNOWN:
                assert detail["reason"] == "interrupted" and detail["counterexample"] is None
        assert seen[0] == UNKNOWN   # interrupted at once: during the encoding or the check
        # and a claim after the interrupt is not attempted
        verdict, detail = prove(claim, 5, 60)
        assert verdict == UNKNOWN and detail["reason"] == "interrupted before it started"
    finally:
        prove_mod.reset_interrupt()


def test_prove_stopped_by_sigterm_prints_what_it_decided(tmp_path):
    """`timeout 5 mqcheck prove ...` printed nothing (the default SIGTERM) and Ctrl-C only
    "mqcheck: interrupted". Now the claims decided stand, the others are unknown, and the
    JSON says why (exit 3)."""
    import json
    import signal
    import subprocess
    import sys
    from pathlib import Path

    from checker.test_util import signal_twice

    root = Path(__file__).resolve().parent.parent
    proc = subprocess.Popen([sys.executable, "-m", "checker.cli", "prove", "--bound", "6", "--timeout", "300",
                             "--json", "--out", str(tmp_path)],
                            cwd=root, env=dict(os.environ, PYTHONPATH=str(root)),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    # after start-up and the first claims (bound 6 takes minutes in all); a repeat only asks again
    out, err = signal_twice(proc, signal.SIGTERM, 0.05, after_seconds=4.0)
    assert proc.returncode == 3, (proc.returncode, err[-2000:])
    data = json.loads(out)
    assert data["stop_reason"] == "terminated (SIGTERM)"
    verdicts = {c["id"]: (c["verdict"], c["reason"]) for c in data["claims"]}
    assert all(v in (PROVED, UNKNOWN) for v, _ in verdicts.values()), verdicts   # all are proved at bound 6
    stopped = [r for v, r in verdicts.values() if v == UNKNOWN]
    assert stopped and all(r.startswith("terminated (SIGTERM)") for r in stopped), verdicts
    assert "not proved" not in json.dumps(verdicts)   # said once, by the text output
    assert "Traceback" not in err


# ------------------------------------------------------------ the counterexample minimiser (session 27)
def _cost_encoding(cost):
    from types import SimpleNamespace

    return SimpleNamespace(cost=cost)


def test_the_minimiser_finds_the_lexicographic_minimum_in_order_of_the_terms():
    """A binary search per term, most important first, each later term searched with the
    earlier ones fixed at their minimum (it replaced z3.Optimize, which ignored Ctrl-C)."""
    import time

    from checker.prove import _minimised_model

    x, y, z = z3.Ints("x y z")
    constraints = [x >= 0, y >= 0, z >= 0, x + y >= 37, z * z >= x + 3]   # z*z: nonlinear, as WEIGHTS is
    deadline = time.monotonic() + 60
    model = _minimised_model(_cost_encoding([x, y, z]), constraints, deadline)
    assert [model.eval(t).as_long() for t in (x, y, z)] == [0, 37, 2]
    model = _minimised_model(_cost_encoding([y, z, x]), constraints, deadline)
    assert [model.eval(t).as_long() for t in (x, y, z)] == [37, 0, 7]
    assert _minimised_model(_cost_encoding([]), constraints, deadline) is None


def test_the_minimiser_keeps_the_plain_model_out_of_time_and_stops_on_a_stop():
    import time

    from checker.prove import Abandoned, _minimised_model

    x, y = z3.Ints("x y")
    constraints = [x >= 0, y >= 0, x + y >= 1000]
    assert _minimised_model(_cost_encoding([x, y]), constraints, time.monotonic() - 1) is None
    asked = []

    def check():
        asked.append(1)
        if len(asked) == 3:   # a stop between two steps of the search
            raise Abandoned("terminated (SIGTERM)")

    with pytest.raises(Abandoned):
        _minimised_model(_cost_encoding([x, y]), constraints, time.monotonic() + 60, check)
    assert len(asked) == 3
