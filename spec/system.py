"""The whole network of queue managers as one transition system (DESIGN §1, §2.1, §2.3).

State (:class:`NetworkState`): per queue manager its object definitions
(``spec.objects.QueueManagerDef``) and its publish/subscribe state (``spec.pubsub``); the
index of the next scenario step; the error log. Actions: ``ScenarioStep(i)`` — the
scenario's steps, taken in order (external actions: an administrator or an application
acts). :class:`MQNetwork` implements the ``checker.model.Model`` protocol structurally
(``spec`` imports nothing from ``checker``), with a canonical ``encode``.

What this version models: every queue manager's MQSC (topics, subscriptions, queues,
channels, namelists, queue-manager attributes, with MQ's acceptance rules) and
publish/subscribe at each queue manager: publishing, subscribing, WILDCARD, grouped
subscriptions, retained publications (DESIGN §3.2, §3.3 step 2). Not yet modelled, and
reported as such in every run rather than silently ignored (:attr:`RunReport.unmodelled`):
channels and message delivery between queue managers, cluster repositories, proxy
subscriptions and publication forwarding, the workload algorithm and bind options, faults
and the clock — so each queue manager behaves here as if it stood alone.

:func:`run_scenario` is the deterministic scheduler of ``mqcheck run``: the initial MQSC of
every queue manager (in name order), then each step in turn.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from spec import objects, pubsub, scenario as sc
from spec.encoding import canonical_bytes
from spec.pubsub import LocalPubSub, Publication
from spec.topic_tree import TopicSpace
from spec.topics import TopicStringError, join_topic

INITIAL = -1  # the step index of log entries made by the initial MQSC


@dataclass(frozen=True, slots=True)
class LogEntry:
    """An error-log entry or a failed call: ``step`` is the scenario step (INITIAL for the
    queue managers' initial MQSC), ``code`` an AMQ message number or an MQRC reason."""

    qmgr: str
    code: str
    detail: str
    step: int


@dataclass(frozen=True, slots=True)
class QmgrState:
    """One queue manager: its definitions, its publish/subscribe state, and how many
    publications its applications have made (the serial number of the next one)."""

    name: str
    defs: objects.QueueManagerDef
    pubsub: LocalPubSub
    published: int = 0


@dataclass(frozen=True, slots=True)
class NetworkState:
    """Every queue manager (sorted by name), the next scenario step, and the error log."""

    qmgrs: tuple[QmgrState, ...]
    next_step: int = 0
    log: tuple[LogEntry, ...] = ()

    def qmgr(self, name: str) -> QmgrState:
        for q in self.qmgrs:
            if q.name == name:
                return q
        raise KeyError(name)


@dataclass(frozen=True, slots=True)
class ScenarioStep:
    """Action: an administrator or application performs scenario step ``index``."""

    index: int

    def __str__(self) -> str:
        return f"ScenarioStep({self.index})"


# Step kinds whose behaviour needs parts of the network this version does not model yet.
_UNMODELLED_STEPS = {
    sc.RepublishStep: "republishing applications (distributed publish/subscribe)",
    sc.OpenStep: "opening cluster queues (workload management and bind options)",
    sc.PutStep: "putting messages to cluster queues (workload management)",
    sc.CloseStep: "closing queue handles (bind options)",
    sc.ChannelStep: "channel status faults (the channel network)",
    sc.QmgrStep: "stopping, starting, deleting and recreating queue managers (the channel network)",
    sc.AdvanceStep: "the repository clock (cluster repositories)",
}
_UNMODELLED_OPERATIONS = {
    objects.SuspendCluster: "SUSPEND QMGR (cluster repositories)",
    objects.ResumeCluster: "RESUME QMGR (cluster repositories)",
    objects.RefreshCluster: "REFRESH CLUSTER (cluster repositories)",
    objects.ResetCluster: "RESET CLUSTER (cluster repositories)",
    objects.RefreshProxySubscriptions: "REFRESH QMGR TYPE(PROXYSUB) (proxy subscriptions)",
    objects.StartChannel: "START CHANNEL (the channel network)",
    objects.StopChannel: "STOP CHANNEL (the channel network)",
}


def topic_space(q: QmgrState) -> TopicSpace:
    """A queue manager's topic space: its local topic objects (cluster topic records join
    when repositories are modelled)."""
    return TopicSpace(q.defs.topics)


def _amq_code(message: str) -> str:
    head = message.split(":", 1)[0].strip()
    return head if head.startswith("AMQ") else "MQSC_REJECTED"


def _log(state: NetworkState, entries: Sequence[LogEntry]) -> NetworkState:
    return replace(state, log=state.log + tuple(entries)) if entries else state


def _put_qmgr(state: NetworkState, q: QmgrState) -> NetworkState:
    return replace(state, qmgrs=tuple(q if old.name == q.name else old for old in state.qmgrs))


def _admin_subscription(defn: objects.Subscription) -> pubsub.Subscription:
    return pubsub.Subscription(
        name=defn.name,
        topic=defn.topicstr,
        scheme=defn.wschema.lower(),
        scope=defn.subscope,
        dest=defn.dest,
        durable=True,
        admin=True,
    )


def apply_mqsc(q: QmgrState, commands: Sequence[Any], step: int) -> tuple[QmgrState, tuple[LogEntry, ...]]:
    """Run MQSC commands at one queue manager, as runmqsc would.

    Rejected commands change nothing and are logged with the AMQ message MQ prints. A
    DEFINE SUB creates the durable subscription at once (its WILDCARD blocking set is
    captured now); DELETE SUB removes it; CLEAR TOPICSTR removes a retained publication.
    """
    log: list[LogEntry] = []
    for cmd in commands:
        defs, outcome = objects.apply_command(q.defs, cmd)
        if not outcome.accepted:
            log.append(LogEntry(q.name, _amq_code(outcome.message), outcome.message, step))
            continue
        ps = q.pubsub
        if cmd.verb == "DEFINE" and cmd.objtype == "SUB" and ps.subscription(cmd.name) is None:
            space = TopicSpace(defs.topics)
            ps, errors = pubsub.subscribe(space, ps, _admin_subscription(defs.subscription(cmd.name)))
            if errors:  # MQ refuses the DEFINE SUB as a whole
                log.extend(LogEntry(q.name, e.code, e.detail, step) for e in errors)
                continue
        elif cmd.verb == "DELETE" and cmd.objtype == "SUB":
            ps, _ = pubsub.unsubscribe(ps, cmd.name)
        if isinstance(outcome.operation, objects.ClearRetained):
            ps = pubsub.clear_retained(ps, outcome.operation.topicstr)
        q = replace(q, defs=defs, pubsub=ps)
    return q, tuple(log)


def _full_topic(q: QmgrState, topicobj: str, topic: str, step: int) -> tuple[str | None, tuple[LogEntry, ...]]:
    # 002 §Constructing topic names: TOPICSTR of the named object joined with the string
    if not topicobj:
        return topic, ()
    obj = q.defs.topic(topicobj)
    if obj is None:
        return None, (LogEntry(q.name, "MQRC_UNKNOWN_OBJECT_NAME", f"topic object {topicobj} not found", step),)
    try:
        return join_topic(obj.topicstr, topic), ()
    except TopicStringError as err:
        return None, (LogEntry(q.name, err.reason, err.message, step),)


def _publish(q: QmgrState, step: sc.PublishStep) -> tuple[QmgrState, tuple[LogEntry, ...]]:
    topic, log = _full_topic(q, step.topicobj, step.topic, step.index)
    if topic is None:
        return q, log
    space, ps, published, out = topic_space(q), q.pubsub, q.published, list(log)
    for _ in range(step.count):
        ps, errors = pubsub.publish(space, ps, Publication(topic, q.name, published, retain=step.retain))
        out.extend(LogEntry(q.name, e.code, e.detail, step.index) for e in errors)
        published += 1
    return replace(q, pubsub=ps, published=published), tuple(out)


def _subscribe(q: QmgrState, step: sc.SubscribeStep) -> tuple[QmgrState, tuple[LogEntry, ...]]:
    topic, log = _full_topic(q, step.topicobj, step.topic, step.index)
    if topic is None:
        return q, log
    sub = pubsub.Subscription(
        name=step.name, topic=topic, scheme=step.scheme, scope=step.scope, group=step.group,
        dest=step.dest, durable=step.durable,
    )
    ps, errors = pubsub.subscribe(topic_space(q), q.pubsub, sub, step.new_only)
    return replace(q, pubsub=ps), tuple(LogEntry(q.name, e.code, e.detail, step.index) for e in errors)


def _unsubscribe(q: QmgrState, step: sc.UnsubscribeStep) -> tuple[QmgrState, tuple[LogEntry, ...]]:
    ps, errors = pubsub.unsubscribe(q.pubsub, step.name)
    return replace(q, pubsub=ps), tuple(LogEntry(q.name, e.code, e.detail, step.index) for e in errors)


def unmodelled_in(scenario: sc.Scenario) -> tuple[str, ...]:
    """What the scenario asks for that this version does not model, one line each."""
    notes: list[str] = []
    for step in scenario.steps:
        why = _UNMODELLED_STEPS.get(type(step))
        if why:
            notes.append(f"steps[{step.index}] (line {step.line}): {why} is not modelled yet; the step has no effect")
    sources = [(f"qmgrs.{q.name}", q.name, q.commands) for q in scenario.qmgrs]
    sources += [(f"steps[{s.index}]", s.qmgr, s.commands) for s in scenario.steps if isinstance(s, sc.MqscStep)]
    for where, qmgr, commands in sources:
        for cmd in commands:
            probe, outcome = objects.apply_command(objects.QueueManagerDef(qmgr), cmd)
            why = _UNMODELLED_OPERATIONS.get(type(outcome.operation))
            if why:
                notes.append(f"{where} (line {cmd.line}): {why} is not modelled yet; the command changes no modelled state")
    return tuple(notes)


class MQNetwork:
    """A scenario as a Model: its states are :class:`NetworkState` values.

    ``properties`` come from the composition root (``checker.cli``), which may import the
    property catalogue; ``spec`` does not.
    """

    def __init__(self, scenario: sc.Scenario, properties: Sequence[Any] = ()) -> None:
        self.scenario = scenario
        self.name = scenario.name or "scenario"
        self._properties = tuple(properties)

    # --- the Model protocol ---------------------------------------------------------
    def init_states(self) -> Sequence[NetworkState]:
        qmgrs, log = [], []
        for spec_ in sorted(self.scenario.qmgrs, key=lambda q: q.name):
            q = QmgrState(spec_.name, objects.QueueManagerDef(spec_.name), LocalPubSub())
            q, entries = apply_mqsc(q, spec_.commands, INITIAL)
            qmgrs.append(q)
            log.extend(entries)
        return (NetworkState(tuple(qmgrs), 0, tuple(log)),)

    def actions(self, state: NetworkState) -> Sequence[ScenarioStep]:
        return (ScenarioStep(state.next_step),) if state.next_step < len(self.scenario.steps) else ()

    def next_state(self, state: NetworkState, action: ScenarioStep) -> NetworkState | None:
        if action.index != state.next_step or action.index >= len(self.scenario.steps):
            return None
        step = self.scenario.steps[action.index]
        state = replace(state, next_step=state.next_step + 1)
        handler = _STEP_HANDLERS.get(type(step))
        if handler is None:  # an unmodelled step: reported by unmodelled_in, no effect
            return state
        q, entries = handler(state.qmgr(step.qmgr), step)
        return _log(_put_qmgr(state, q), entries)

    def properties(self) -> Sequence[Any]:
        return self._properties

    def encode(self, state: NetworkState) -> bytes:
        return canonical_bytes(state)

    # --- optional parts of the protocol ---------------------------------------------
    def is_internal(self, action: Any) -> bool:
        return not isinstance(action, ScenarioStep)

    def describe_action(self, action: Any) -> str:
        if isinstance(action, ScenarioStep):
            step = self.scenario.steps[action.index]
            return f"steps[{action.index}] {describe_step(step)}"
        return str(action)

    def describe_state(self, state: NetworkState) -> dict:
        return {
            "next_step": state.next_step,
            "deliveries": deliveries_of(state),
            "retained": {q.name: [p.topic for p in q.pubsub.retained] for q in state.qmgrs if q.pubsub.retained},
            "errors": [{"qmgr": e.qmgr, "code": e.code} for e in state.log],
        }


def _mqsc_step(q: QmgrState, step: sc.MqscStep) -> tuple[QmgrState, tuple[LogEntry, ...]]:
    return apply_mqsc(q, step.commands, step.index)


_STEP_HANDLERS = {
    sc.MqscStep: _mqsc_step,
    sc.PublishStep: _publish,
    sc.SubscribeStep: _subscribe,
    sc.UnsubscribeStep: _unsubscribe,
}


def describe_step(step: Any) -> str:
    """A one-line description of a scenario step for traces and tables."""
    if isinstance(step, sc.PublishStep):
        topic = f"{step.topicobj}:{step.topic}" if step.topicobj else step.topic
        extra = " retained" if step.retain else ""
        times = f" x{step.count}" if step.count != 1 else ""
        return f"publish {topic!r} at {step.qmgr}{extra}{times}"
    if isinstance(step, sc.SubscribeStep):
        return f"subscribe {step.name} to {step.topic!r} ({step.scheme}) at {step.qmgr}"
    if isinstance(step, sc.UnsubscribeStep):
        return f"unsubscribe {step.name} at {step.qmgr}"
    if isinstance(step, sc.MqscStep):
        return f"MQSC at {step.qmgr}: {len(step.commands)} command(s)"
    return type(step).__name__


def deliveries_of(state: NetworkState) -> dict[str, dict[str, list[str]]]:
    """Per queue manager and subscription, the topic of each publication delivered, in
    arrival order, duplicates included (DESIGN §2.3 ``deliveries``). Every current
    subscription is listed, including those that received nothing."""
    out: dict[str, dict[str, list[str]]] = {}
    for q in state.qmgrs:
        per_sub: dict[str, list[str]] = {s.name: [] for s in q.pubsub.subscriptions}
        for d in q.pubsub.deliveries:
            per_sub.setdefault(d.subscription, []).append(d.topic)
        if per_sub:
            out[q.name] = per_sub
    return out


@dataclass(frozen=True, slots=True)
class ExpectationResult:
    index: int
    ok: bool
    failures: tuple[str, ...] = ()


def check_expectations(scenario: sc.Scenario, state: NetworkState) -> tuple[ExpectationResult, ...]:
    """Check every ``[[expect]]`` block against a final state.

    Deliveries compare as multisets (duplicates matter, order does not). Expectations
    about parts this version does not model (messages, repositories) fail with the reason,
    never pass by default.
    """
    delivered = deliveries_of(state)
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
        if expect.no_errors and state.log:
            failures.append(f"expected no errors; {len(state.log)} logged ({state.log[0].code} first)")
        if expect.messages:
            failures.append("message counts are not modelled yet (workload management)")
        if expect.repositories:
            failures.append("repository views are not modelled yet (cluster repositories)")
        results.append(ExpectationResult(expect.index, not failures, tuple(failures)))
    return tuple(results)


@dataclass(frozen=True, slots=True)
class RunReport:
    """What ``mqcheck run`` shows: the final state, the steps taken, expectation results,
    and what the scenario asked for that was not modelled."""

    scenario: str
    final: NetworkState
    expectations: tuple[ExpectationResult, ...]
    unmodelled: tuple[str, ...]

    def to_json(self) -> dict:
        return {
            "scenario": self.scenario,
            "deliveries": deliveries_of(self.final),
            "errors": [
                {"qmgr": e.qmgr, "code": e.code, "detail": e.detail, "step": e.step} for e in self.final.log
            ],
            "expectations": [
                {"index": r.index, "ok": r.ok, **({"failures": list(r.failures)} if r.failures else {})}
                for r in self.expectations
            ],
            "unmodelled": list(self.unmodelled),
        }


def run_scenario(scenario: sc.Scenario) -> RunReport:
    """The deterministic scheduler of ``mqcheck run`` (DESIGN §2.3): the initial MQSC, then
    each step in order (and, once channels are modelled, every in-flight message in a
    fixed FIFO order until quiescent after each)."""
    model = MQNetwork(scenario)
    (state,) = model.init_states()
    while actions := model.actions(state):
        nxt = model.next_state(state, actions[0])
        assert nxt is not None
        state = nxt
    return RunReport(scenario.name, state, check_expectations(scenario, state), unmodelled_in(scenario))
