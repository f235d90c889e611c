"""``mqcheck run``: the scenario under the deterministic scheduler (each step, then settle),
the report data it prints (``RunReport.to_json``, DESIGN §2.3), and the scenario's
``[[expect]]`` blocks checked against a settled state.
"""

from __future__ import annotations


from spec import scenario as sc
from spec.network.model import MQNetwork, settle
from spec.network.pubsub import backlog_of, deliveries_of
from spec.network.repositories import repositories_of
from spec.network.state import NO_MUTATIONS, LogEntry, Mutations, NetworkState, ScenarioStep, add_log
from spec.network.steps import describe_step, unmodelled_in
from spec.network.topology import why_not_joined
from spec.network.uniform import apstatus_failures
from spec.network.workload import handle_qmgr, messages_of
from spec.values import replace, value

@value
class ExpectationResult:
    index: int
    ok: bool
    failures: tuple[str, ...] = ()


def check_expectations(scenario: sc.Scenario, state: NetworkState) -> tuple[ExpectationResult, ...]:
    """Check every ``[[expect]]`` block against a settled state.

    Deliveries compare as multisets (duplicates matter, order does not); repository views
    compare as sets, each part only when given. Expectations about parts this version
    does not model (message counts) fail with the reason, never pass by default.
    """
    delivered = deliveries_of(state)
    repos = repositories_of(state)
    results = []
    for expect in scenario.expects:
        failures: list[str] = []
        for d in expect.deliveries:
            got = delivered.get(d.qmgr, {}).get(d.subscription)
            if got is None:
                failures.append(f"{d.qmgr} has no subscription {d.subscription}")
            elif sorted(got) != sorted(d.topics):
                failures.append(f"{d.qmgr} {d.subscription}: expected {sorted(d.topics)}, got {sorted(got)}")
        codes = {(e.qmgr, e.code) for e in state.log}
        for e in expect.errors:
            if (e.qmgr, e.code) not in codes:
                failures.append(f"expected error {e.code} at {e.qmgr}; not logged")
        for e in expect.absent_errors:
            if (e.qmgr, e.code) in codes:
                failures.append(f"expected no error {e.code} at {e.qmgr}; logged")
        if expect.no_errors and state.log:
            failures.append(f"expected no errors; {len(state.log)} logged ({state.log[0].code} first)")
        got_messages = messages_of(state)
        for m in expect.messages:
            got = {k: v for k, v in got_messages.get(m.handle, {}).items() if v}
            if got != dict(m.counts):
                failures.append(f"messages of {m.handle}: expected {dict(m.counts)}, got {got}")
        for r in expect.repositories:
            view = repos.get(r.qmgr, {}).get(r.cluster)
            if view is None:
                failures.append(f"{r.qmgr} has no repository for cluster {r.cluster}")
                continue
            if r.qmgrs is not None and set(view["qmgrs"]) != set(r.qmgrs):
                failures.append(f"{r.qmgr}/{r.cluster} queue managers: expected {sorted(r.qmgrs)}, got {view['qmgrs']}")
            if r.queues is not None:
                want = {name: sorted(hosts) for name, hosts in r.queues}
                if {k: sorted(v) for k, v in view["queues"].items()} != want:
                    failures.append(f"{r.qmgr}/{r.cluster} queues: expected {want}, got {view['queues']}")
            if r.topics is not None and set(view["topics"]) != set(r.topics):
                failures.append(f"{r.qmgr}/{r.cluster} topics: expected {sorted(r.topics)}, got {view['topics']}")
        failures.extend(apstatus_failures(expect.apstatus, state))  # issue #19
        results.append(ExpectationResult(expect.index, not failures, tuple(failures)))
    return tuple(results)


@value
class RunReport:
    """What ``mqcheck run`` shows: the final state, expectation results, and what the
    scenario asked for that was not modelled."""

    scenario: str
    final: NetworkState
    expectations: tuple[ExpectationResult, ...]
    unmodelled: tuple[str, ...]
    not_joined: tuple[tuple[str, str], ...] = ()
    blocked: str = ""  # a step that could never be taken (a deadlock before the scenario's end)

    def to_json(self) -> dict:
        return {
            "scenario": self.scenario,
            "deliveries": deliveries_of(self.final),
            "messages": messages_of(self.final),
            "repositories": repositories_of(self.final),
            "errors": [{"qmgr": e.qmgr, "code": e.code, "detail": e.detail, "step": e.step} for e in self.final.log],
            "expectations": [
                {"index": r.index, "ok": r.ok, **({"failures": list(r.failures)} if r.failures else {})}
                for r in self.expectations
            ],
            "not_joined": [{"qmgr": q, "reason": why} for q, why in self.not_joined],
            **({"blocked": self.blocked} if self.blocked else {}),
            # messages a PSMODE(DISABLED) queue manager left on its publish/subscribe system
            # queues (session 36): only when there are any, so other reports are unchanged
            **({"pubsub_backlog": backlog} if (backlog := backlog_of(self.final)) else {}),
            "unmodelled": list(self.unmodelled),
        }


def run_scenario(scenario: sc.Scenario, explain: bool = False, mutations: Mutations = NO_MUTATIONS) -> RunReport:
    """The deterministic scheduler of ``mqcheck run`` (DESIGN §2.3): the initial MQSC, let
    the network settle, then each step followed by settling. ``explain`` records each
    workload choice's explanation (:func:`explanations_of`); ``mutations``: a mutant's
    (tests show a fidelity defect re-introduced)."""
    model = MQNetwork(scenario, faults=0, explore_initial=False,
                      mutations=replace(mutations, explain=explain))
    (state,) = model.init_states()
    blocked = ""
    while state.next_step < len(scenario.steps):
        after = model.next_state(state, ScenarioStep(state.next_step))
        if after is None:
            # the network is settled and the step still waits (a put for a repository answer
            # that cannot come): it never will be taken. A finding, not a pass.
            state, blocked = _never_taken(state, scenario)
            break
        state = settle(model, after)
    not_joined = tuple((q.name, why) for q in state.qmgrs for why in why_not_joined(state, q))
    return RunReport(scenario.name, state, check_expectations(scenario, state), unmodelled_in(scenario), not_joined,
                     blocked)


def _never_taken(state: NetworkState, scenario: sc.Scenario) -> tuple[NetworkState, str]:
    index = state.next_step
    step = scenario.steps[index]
    qmgr = getattr(step, "qmgr", "") or handle_qmgr(state, getattr(step, "handle", ""))
    detail = (f"steps[{index}] {describe_step(step)} can never be taken: it waits for messages that cannot "
              f"arrive (e.g. a repository answer from full repositories that are not running); a deadlock "
              f"before the scenario's end, so steps[{index}:] were not run")
    return add_log(state, [LogEntry(qmgr, "STEP_NEVER_TAKEN", detail, index)]), detail
