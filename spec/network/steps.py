"""Scenario steps and MQSC at a queue manager: runmqsc's effect (``apply_mqsc``, which
then lets the queue manager publish what changed in its clusters), queue manager stop,
start, delete and recreate, the ``channel`` step, the table of which module handles each
kind of step, their one-line descriptions for traces, and what a scenario asks for that
is not modelled.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from spec import objects, pubsub, scenario as sc
from spec.binding import route_key
from spec.network.channels import (
    hold_channel, known_routes, route_for, routes_waiting, set_route_status, set_status_by_name,
)
from spec.network.pubsub import (
    admin_subscription, is_api_subscription, mqsc_on_api_subscription, publish_step, pubsub_refresh_cluster,
    refresh_proxy_subscriptions, remove_subscription, republish_step, restarted, subscribe_step, unsubscribe_step,
)
from spec.network.opens import subscribe_on_open
from spec.network.repositories import (
    publish_own, refresh_cluster, republish_overdue, reset_cluster, retry_joins, suspend_or_resume,
)
from spec.network.state import NO_MUTATIONS, LogEntry, Mutations, NetworkState, QmgrState, add_log, put_qmgr
from spec.network.topology import pubsub_space, resolve_conname, topic_space
from spec.network.uniform import UNIFORM_STEP_HANDLERS, describe_uniform_step
from spec.network.workload import close_step, open_step, put_step, redrive_channel
from spec.pubsub import LocalPubSub
from spec.values import replace

def _amq_code(message: str) -> str:
    head = message.split(":", 1)[0].strip()
    return head if head.startswith("AMQ") else "MQSC_REJECTED"


def _mqsc_at(cmd: Any) -> str:
    """Where a rejected command is written, for its log entry (a long mqsc_file)."""
    return f" (at {cmd.file}:{cmd.line})" if getattr(cmd, "line", 0) else ""


def apply_mqsc(state: NetworkState, name: str, commands: Sequence[Any], step: int,
               mut: Mutations = NO_MUTATIONS) -> NetworkState:
    """Run MQSC commands at one queue manager, as runmqsc would, then let it publish what
    changed in its clusters.

    Rejected commands change nothing and are logged with the AMQ message MQ prints. A
    DEFINE SUB creates the durable subscription at once (its WILDCARD blocking set is
    captured now); DELETE SUB removes it; CLEAR TOPICSTR removes a retained publication;
    CLEAR QLOCAL(SYSTEM.CLUSTER.TRANSMIT.QUEUE) discards every message waiting to leave.
    """
    for cmd in commands:
        q = state.qmgr(name)
        if is_api_subscription(q, cmd):  # one subscription namespace per queue manager
            state = mqsc_on_api_subscription(state, name, cmd, step)
            continue
        # DEFINE SUB TOPICOBJ may name a cluster topic known here (002 §Topic spaces, Case 1)
        known = pubsub_space(q).cluster
        if cmd.verb == "ALTER" and cmd.objtype == "QMGR" and cmd.get("PSCLUS") == "DISABLED" and q.defs.psclus == "ENABLED":
            q = replace(q, psclus_asked=tuple(sorted({t.name for t in (*q.defs.topics, *known) if t.cluster})))
            state = put_qmgr(state, q)
        if mut.psclus_remote_topics_ignored and cmd.verb == "ALTER" and cmd.objtype == "QMGR":
            known = ()  # the old defect: only its own clustered topic objects count
        defs, outcome = objects.apply_command(q.defs, cmd, known)
        if not outcome.accepted:
            state = add_log(state, [LogEntry(name, _amq_code(outcome.message), outcome.message + _mqsc_at(cmd), step)])
            continue
        ps = q.pubsub
        if cmd.verb == "DEFINE" and cmd.objtype == "SUB" and ps.subscription(cmd.name) is None:
            space = replace(topic_space(q), local=defs.topics)
            ps, errors = pubsub.subscribe(space, ps, admin_subscription(defs.subscription(cmd.name)))
            if errors:  # MQ refuses the DEFINE SUB as a whole
                state = add_log(state, [LogEntry(name, e.code, e.detail + _mqsc_at(cmd), step) for e in errors])
                continue
        elif cmd.verb == "DELETE" and cmd.objtype == "SUB":
            ps = remove_subscription(ps, cmd.name)
        op = outcome.operation
        if isinstance(op, objects.ClearRetained):
            ps = pubsub.clear_retained(ps, op.topicstr)
        if cmd.verb == "CLEAR" and cmd.objtype == "QLOCAL":
            ps = pubsub.clear_queue(ps, cmd.name)
        state = put_qmgr(state, replace(q, defs=defs, pubsub=ps))
        if cmd.verb == "CLEAR" and cmd.objtype == "QLOCAL" and cmd.name == "SYSTEM.CLUSTER.TRANSMIT.QUEUE":
            state = replace(state, channels=tuple(replace(c, messages=()) if c.src == name else c
                                                  for c in state.channels))
        if isinstance(op, (objects.SuspendCluster, objects.ResumeCluster)):
            # the CLUSRCVRs defined before it in the same MQSC (its initial definitions) are
            # published first, so that there is a record to suspend (a user trial, session 20:
            # SUSPEND QMGR in the initial MQSC was otherwise lost)
            state = publish_own(state, name, step, mut)
            state = suspend_or_resume(state, name, op, step, mut)
        elif isinstance(op, objects.RefreshCluster):
            state = publish_own(state, name, step, mut)
            state = refresh_cluster(state, name, op.cluster, step, mut, op.repos)
            state = pubsub_refresh_cluster(state, name, op.cluster)
        elif isinstance(op, objects.ResetCluster):
            state = reset_cluster(state, name, op, step)
        elif isinstance(op, objects.StopChannel):
            state = set_status_by_name(state, name, op.name, "STOPPED", mut)
        elif isinstance(op, objects.StartChannel):
            state = set_status_by_name(state, name, op.name, "RUNNING", mut)
        elif isinstance(op, objects.RefreshProxySubscriptions):
            state = refresh_proxy_subscriptions(state, name)
    state = publish_own(state, name, step, mut)
    return retry_joins(state, step, mut)


def require_running(state: NetworkState, name: str, step: int) -> NetworkState | None:
    q = state.find(name)
    if q is None:
        return add_log(state, [LogEntry(name, "MQRC_Q_MGR_NOT_AVAILABLE", f"{name} has been deleted", step)])
    if not q.running:
        return add_log(state, [LogEntry(name, "MQRC_Q_MGR_NOT_AVAILABLE", f"{name} is stopped", step)])
    return None


def _names_sender(state: NetworkState, src: str, dst: str, name: str) -> bool:
    """Whether ``src`` has a sender channel called ``name`` that leads to ``dst``: a manual
    CLUSSDR or SDR, or the auto-defined CLUSSDR (named after ``dst``'s CLUSRCVR: 003
    §Auto-definition of channels)."""
    q = state.find(src)
    if q is None:
        return True  # require_running has said why nothing happens
    far = state.find(dst)
    for ch in q.defs.channels:
        if ch.name != name:
            continue
        if ch.chltype == "CLUSSDR" and resolve_conname(state, ch.conname, ch.cluster) == dst:
            return True
        # a SDR reaches the queue manager that defines the RCVR of its name (decision
        # "Point-to-point routing")
        if ch.chltype == "SDR" and far is not None and any(c.name == name and c.chltype == "RCVR"
                                                           for c in far.defs.channels):
            return True
    return any(r.info.channel == name and r.owner_name == dst for c in q.caches for r in c.qmgr_records())


def mqsc_step(state: NetworkState, step: sc.MqscStep, mut: Mutations) -> NetworkState:
    return apply_mqsc(state, step.qmgr, step.commands, step.index, mut)


def channel_step(state: NetworkState, step: sc.ChannelStep, mut: Mutations) -> NetworkState:
    """Set the status of every route from ``qmgr`` to ``to`` (the pair's channel, and each
    separate route: ``spec.binding.separate_routes``), or with ``name`` of the one route
    whose sender channel has that name (a separate route's, else the pair's)."""
    if step.name and not _names_sender(state, step.qmgr, step.to, step.name):
        # as STOP/START CHANNEL of an unknown name (channels.set_status_by_name): said, not
        # applied to the pair's channel instead (a user trial: a typo changed another route)
        return add_log(state, [LogEntry(step.qmgr, "CHANNEL_NOT_FOUND", f"channel {step.name}: no sender channel of "
                                        f"that name leads from {step.qmgr} to {step.to} (manual or auto-defined)",
                                        step.index)])
    routes = (route_for(state, step.qmgr, step.to, step.name),) if step.name else known_routes(state, step.qmgr, step.to)
    for route in routes:
        state = set_route_status(state, step.qmgr, step.to, route, step.status)
        # the administrator's status stays until a later step changes it (no automatic recovery)
        state = hold_channel(state, step.qmgr, route_key(step.to, route) if route else step.to)
        state = redrive_channel(state, step.qmgr, step.to, step.index, mut, route)
    return state


def qmgr_started(state: NetworkState, name: str, step: int, mut: Mutations) -> NetworkState:
    """strmqm, by a scenario step or as a fault's recovery (``QmgrStart``) — one rule for
    both: a stopped queue manager restarts (``restarted``), republishes records whose
    refresh fell due meanwhile and publishes what changed. A running one only publishes."""
    q = state.qmgr(name)
    was_stopped = not q.running
    state = put_qmgr(state, restarted(q) if was_stopped else q)
    if was_stopped:
        state = _redrive_on_restart(state, name, step, mut)
    state = republish_overdue(state, name, step, mut)
    return publish_own(state, name, step, mut)


def _redrive_on_restart(state: NetworkState, name: str, step: int, mut: Mutations) -> NetworkState:
    """A restarted queue manager's channels that are RETRYING (set so while it was stopped,
    when ``redrive_channel`` could not run: a stopped queue manager runs no algorithm) go
    into retry as they start: their unbound messages go through the algorithm then. 000
    §When does workload balancing occur?: "If a channel ... goes into retry, then any
    bind_not_fixed messages waiting to be sent down that channel will go through workload
    balancing again"; 004 §Channel availability routing: "every time the channel is
    retried" (found by session 33's redrive recipe, docs/decisions.md "Session 33";
    tests/regressions/real-not-fixed-redrive-after-restart.toml: without this the messages
    waited behind the RETRYING channel with no re-drive ever run for them)."""
    for ch in [c for c in state.channels if c.src == name and c.messages]:
        for route in routes_waiting(ch):
            if state.route_status(name, ch.dst, route) == "RETRYING":
                state = redrive_channel(state, name, ch.dst, step, mut, route)
    return state


def qmgr_step(state: NetworkState, step: sc.QmgrStep, mut: Mutations, scenario: sc.Scenario) -> NetworkState:
    q = state.find(step.name)
    if step.action == "stop":
        return put_qmgr(state, replace(q, running=False)) if q else state
    if step.action == "start":
        if q is None:
            return add_log(state, [LogEntry(step.name, "AMQ7048", f"{step.name} does not exist (deleted)", step.index)])
        return qmgr_started(state, step.name, step.index, mut)
    if step.action == "delete":
        if q is None:
            return state
        # dltmqm: its channels and queues go; what other queue managers know stays (000)
        return replace(state, qmgrs=tuple(x for x in state.qmgrs if x.name != step.name),
                       channels=tuple(c for c in state.channels if c.src != step.name))
    # recreate: a new queue manager with the same name and definitions, a new QMID
    if q is not None:  # crtmqm of a name that exists
        return add_log(state, [LogEntry(step.name, "AMQ8110", f"queue manager {step.name} already exists; delete it "
                                                           "before recreating it", step.index)])
    incarnation = (q.incarnation if q else _last_incarnation(state, step.name)) + 1
    spec_ = next(s for s in scenario.qmgrs if s.name == step.name)
    fresh = QmgrState(step.name, objects.QueueManagerDef(step.name), LocalPubSub(), incarnation=incarnation,
                      seq=0)
    qmgrs = tuple(sorted([x for x in state.qmgrs if x.name != step.name] + [fresh], key=lambda x: x.name))
    state = replace(state, qmgrs=qmgrs, channels=tuple(c for c in state.channels if c.src != step.name))
    return apply_mqsc(state, step.name, spec_.commands, step.index, mut)


def _last_incarnation(state: NetworkState, name: str) -> int:
    found = [int(r.owner.rsplit("_", 1)[1]) for q in state.qmgrs for c in q.caches for r in c.records
             if r.owner_name == name]
    return max(found, default=1)


# Scenario steps that act at one running queue manager: handler(state, step, mutations).
STEP_HANDLERS = {
    sc.MqscStep: mqsc_step,
    sc.OpenStep: lambda state, step, mut: open_step(subscribe_on_open(state, step, mut), step, mut),
    sc.PutStep: lambda state, step, mut: put_step(state, step, mut),
    sc.CloseStep: lambda state, step, mut: close_step(state, step, mut),
    sc.PublishStep: publish_step,
    sc.SubscribeStep: subscribe_step,
    sc.UnsubscribeStep: unsubscribe_step,
    sc.RepublishStep: republish_step,
    **UNIFORM_STEP_HANDLERS,  # issue #19: connect, disconnect, join_uniform (no queue manager must run)
}


def _topic_named(step: Any) -> str:
    """A step's topic as the application names it: the topic object (whose TOPICSTR the
    queue manager supplies when the step is taken) and the string appended to it."""
    if not step.topicobj:
        return repr(step.topic)
    return f"TOPICOBJ({step.topicobj})" + (f" + {step.topic!r}" if step.topic else "")


def describe_step(step: Any) -> str:
    """A one-line description of a scenario step for traces and tables."""
    if isinstance(step, sc.PublishStep):
        extra = " retained" if step.retain else ""
        times = f" x{step.count}" if step.count != 1 else ""
        return f"publish {_topic_named(step)} at {step.qmgr}{extra}{times}"
    if isinstance(step, sc.SubscribeStep):
        return f"subscribe {step.name} to {_topic_named(step)} ({step.scheme}) at {step.qmgr}"
    if isinstance(step, sc.UnsubscribeStep):
        return f"unsubscribe {step.name} at {step.qmgr}"
    if isinstance(step, sc.MqscStep):
        first = step.text.strip().splitlines()[0] if step.text.strip() else ""
        more = f" (+{len(step.commands) - 1} more)" if len(step.commands) > 1 else ""
        return f"MQSC at {step.qmgr}: {first}{more}"
    if isinstance(step, sc.OpenStep):
        target = f" (queue manager {step.target_qmgr})" if step.target_qmgr else ""
        return f"MQOPEN {step.queue}{target} at {step.qmgr} as {step.handle}, bind {step.bind}"
    if isinstance(step, sc.PutStep):
        group = f" in group {step.group}" if step.group else ""
        return f"MQPUT x{step.count} to {step.handle}{group}"
    if isinstance(step, sc.CloseStep):
        return f"MQCLOSE {step.handle}"
    if isinstance(step, sc.ChannelStep):
        return f"channel {step.qmgr}->{step.to}{' ' + step.name if step.name else ''} {step.status}"
    if isinstance(step, sc.QmgrStep):
        return f"{step.action} queue manager {step.name}"
    if isinstance(step, sc.WaitStep):
        return "wait until the network has settled"
    if isinstance(step, sc.AdvanceStep):
        return f"advance the clock {step.days} day{'' if step.days == 1 else 's'}"
    if isinstance(step, sc.RepublishStep):
        return f"republish {step.subscription} at {step.qmgr} ({step.action}{', as ' + repr(step.topic) if step.topic else ''})"
    return describe_uniform_step(step) or type(step).__name__


_UNMODELLED_STEPS = {
}


_UNMODELLED_OPERATIONS = {
    objects.AlterDefaultObject: "altering one of MQ's default objects (what later DEFINEs start from, a queue clustering "
                                "or publish/subscribe uses, or a topic object at the root)",
}

# Security commands that could stop a channel or an application (a user trial, session 32:
# dmpmqcfg output is full of them): accepted as no-ops (spec/mqsc.py IGNORED_TYPES), said once
# per MQSC source so that a rule meant to block something is not silently ignored.
_UNMODELLED_SECURITY = {
    ("SET", "CHLAUTH"): "channel authentication records are not modelled: every channel starts as if no rule "
                        "blocked it",
    ("SET", "AUTHREC"): "authority records are not modelled: every application may open, put, get and subscribe",
}


def unmodelled_in(scenario: sc.Scenario) -> tuple[str, ...]:
    """What the scenario asks for that this version does not model, one line each."""
    notes: list[str] = []
    for step in scenario.steps:
        why = _UNMODELLED_STEPS.get(type(step))
        if why:
            notes.append(f"steps[{step.index}] (line {step.line}): {why} is not modelled yet; the step has no effect")
    sources = [(f"qmgrs.{q.name}", q.name, q.commands) for q in scenario.qmgrs]
    sources += [(f"steps[{s.index}]", s.qmgr, s.commands) for s in scenario.steps if isinstance(s, sc.MqscStep)]
    defined_at: dict[str, set[str]] = {}
    for where, qmgr, commands in sources:  # initial MQSC first, then the steps, in order
        defined = defined_at.setdefault(qmgr, set())  # a default object's name defined before: that one is altered
        security = [[c for c in commands if (c.verb, c.objtype) == key] for key in _UNMODELLED_SECURITY]
        for key, found in zip(_UNMODELLED_SECURITY, security):
            if found:
                n = len(found)
                notes.append(f"{where} (line {found[0].line}): {' '.join(key)} ({n} command{'s' * (n > 1)}): "
                             f"{_UNMODELLED_SECURITY[key]}")
        for cmd in commands:
            _, outcome = objects.apply_command(objects.QueueManagerDef(qmgr), cmd)
            if cmd.verb == "DEFINE":
                defined.add(cmd.name)
            why = _UNMODELLED_OPERATIONS.get(type(outcome.operation))
            if isinstance(outcome.operation, objects.AlterDefaultObject) and cmd.name in defined:
                why = None
            if why:
                notes.append(f"{where} (line {cmd.line}): {why} is not modelled yet; the command changes no modelled state")
            why = _wl_unmodelled_routing(qmgr, cmd) or _ps_unmodelled_reset(cmd) or _ps_topic_host_routing(cmd)
            if why:
                notes.append(f"{where} (line {cmd.line}): {why}")
    return tuple(notes) + _channel_steps_without_channel(scenario, sources)


def _channel_steps_without_channel(scenario: sc.Scenario, sources: list) -> tuple[str, ...]:
    """A ``channel`` step between two queue managers that no MQSC of the scenario ever
    connects (no cluster both have a CLUSRCVR in, no PARENT between them, no SDR channel
    from the first) has no channel to set: the step changes nothing, which a user trial
    took for a stopped channel. Said in a note; queue managers that join a uniform cluster
    in a step are left out (their membership is not in the MQSC)."""
    steps = [s for s in scenario.steps if isinstance(s, sc.ChannelStep)]
    if not steps or any(q.uniform_cluster for q in scenario.qmgrs):
        return ()
    defs: dict[str, objects.QueueManagerDef] = {}
    clusters: dict[str, set[str]] = {}
    parents: set[tuple[str, str]] = set()
    senders: set[str] = set()
    for _, qmgr, commands in sources:
        qm, _ = objects.apply_commands(defs.get(qmgr, objects.QueueManagerDef(qmgr)), commands)
        defs[qmgr] = qm
        clusters.setdefault(qmgr, set()).update(c for ch in qm.channels if ch.chltype == "CLUSRCVR"
                                                for c in objects.clusters_of(ch, qm))
        if qm.parent:
            parents.add((qmgr, qm.parent))
        if any(ch.chltype == "SDR" for ch in qm.channels):
            senders.add(qmgr)
    notes = []
    for step in steps:
        a, b = step.qmgr, step.to
        if clusters.get(a, set()) & clusters.get(b, set()) or (a, b) in parents or (b, a) in parents or a in senders:
            continue
        notes.append(f"steps[{step.index}] (line {step.line}): no MQSC of the scenario connects {a} to {b} (no cluster "
                     f"with a CLUSRCVR on both, no PARENT between them, no SDR channel on {a}): there is no channel "
                     "whose status this step could set, and it changes nothing")
    return tuple(notes)


def _ps_unmodelled_reset(cmd: Any) -> str:
    """RESET QMGR TYPE(PUBSUB) is accepted as a no-op (spec/mqsc.py IGNORED_TYPES), but an
    administrator means it to end a hierarchy relationship, which 002 does only with ALTER
    QMGR PARENT('') at the child (002 §Disconnect a queue manager from a broker hierarchy):
    said, so that a link it was meant to end is not silently kept (a user trial, session 37)."""
    if (cmd.verb, cmd.objtype) != ("RESET", "QMGR") or dict(cmd.attrs).get("TYPE", "").upper() != "PUBSUB":
        return ""
    return ("RESET QMGR TYPE(PUBSUB) is not modelled (002 does not describe it): every hierarchy link stays "
            "as PARENT makes it; to disconnect a child, ALTER QMGR PARENT('') at the child "
            "(002 §Disconnect a queue manager from a broker hierarchy)")


def _ps_topic_host_routing(cmd: Any) -> str:
    """CLROUTE(TOPICHOST) on a topic object: 001 names topic host routing ("If the local queue
    manager is not a host for this topic, the algorithm is used to choose a host queue manager
    to route the message through"); 002 (v7.5) has only direct routing, which is what the
    model does (a user trial, session 37: an MQ 8 estate's MQSC)."""
    if cmd.objtype != "TOPIC" or cmd.verb not in ("DEFINE", "ALTER") or dict(cmd.attrs).get("CLROUTE") != "TOPICHOST":
        return ""
    return (f"TOPIC({cmd.name}) CLROUTE(TOPICHOST): topic host routing is not modelled; its publications are "
            "routed directly to the subscribers' queue managers, as 002 describes")


def _wl_unmodelled_routing(qmgr: str, cmd: Any) -> str:
    """Channels the workload model ignores: SDR/RCVR pairs and transmission queues are
    modelled (000 §Routing messages in and out of clusters, Scenarios 1-3), client channels
    carry no queue manager traffic, but SVR/RQSTR (and the like) are not: said, so that a
    scenario relying on them is not silently answered as if they did not exist."""
    defs, outcome = objects.apply_command(objects.QueueManagerDef(qmgr), cmd)
    if not outcome.accepted:
        return ""
    for ch in defs.channels:
        if ch.chltype not in ("CLUSSDR", "CLUSRCVR", "SDR", "RCVR", "SVRCONN", "CLNTCONN"):
            return (f"CHANNEL({ch.name}) CHLTYPE({ch.chltype}): point-to-point channels are not modelled; "
                    "no message flows over it")
    return ""
