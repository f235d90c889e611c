"""Workload management and bind options on the network (DESIGN §3.5, §3.6): MQOPEN, MQPUT
and MQCLOSE make handles and put messages, ``spec.workload`` chooses where they go under the
bind options of ``spec.binding``, they travel as ``AppMessage`` on the same channels as
repository messages, and the receiving queue manager puts them to its local queue or runs
the algorithm again (gateways, aliases). A channel entering RETRYING re-drives its unbound
messages (004 §Channel availability routing), and so does every later retry of it that
would move one (``ChannelRetry``). Each queue manager threads its own workload
history (MQWDR DestSeqFactor/DestSeqNumber).
"""

from __future__ import annotations

from operator import attrgetter
from typing import Any

from spec import binding as bd, objects, repository as rp, scenario as sc, workload as wl
from spec.network.channels import channel_statuses, route_for, routes_waiting, send, set_channel, set_route_status
from spec.network.opens import subscribe_for_queue
from spec.network.repositories import Outbox, two_frs
from spec.network.state import (
    FLOWING, INITIAL, NO_MUTATIONS, ChannelRetry, LogEntry, Mutations, NetworkState, QmgrState, add_log, put_cache,
    put_qmgr,
)
from spec.values import replace

_STATUS = attrgetter("status")

# The glue between the network and spec/binding.py + spec/workload.py: handles live in the
# opening queue manager's state, application messages travel as bd.AppMessage on the same
# channels as repository messages, each queue manager threads its own workload history.
HOP_LIMIT_PER_QMGR = 4  # bd module docstring: a modelling bound, far above any settled path


def handle_qmgr(state: NetworkState, handle: str) -> str:
    for q in state.qmgrs:
        if any(h.name == handle for h in q.handles):
            return q.name
    return ""


def _joined(q: QmgrState) -> frozenset[str]:
    return frozenset(c.cluster for c in q.caches)


def _handle(q: QmgrState, name: str) -> bd.Handle | None:
    return next((h for h in q.handles if h.name == name), None)


def _put_handle(q: QmgrState, handle: bd.Handle) -> QmgrState:
    rest = tuple(h for h in q.handles if h.name != handle.name)
    return replace(q, handles=tuple(sorted(rest + (handle,), key=lambda h: h.name)))


def _mutated(view: wl.QmgrView, put: wl.Put, mut: Mutations) -> wl.QmgrView:
    """The view a mutant algorithm sees (DESIGN §5 mutants; never used unmutated)."""
    if mut.weight_ignored:
        view = replace(view, receivers=tuple(replace(r, clwlwght=wl.CLWLWGHT_DEFAULT) for r in view.receivers),
                       local_receivers=tuple(replace(r, clwlwght=wl.CLWLWGHT_DEFAULT) for r in view.local_receivers))
    if mut.rank_after_status:
        hosts = {x.qmgr for x in view.queues if x.name == put.object_name} | {put.target_qmgr}
        routes = [r for r in view.receivers if r.qmgr in hosts]
        if routes:
            best = min(bd.status_class(view.status(*r.key)) for r in routes)
            view = replace(view, receivers=tuple(r for r in view.receivers if r.qmgr not in hosts
                                                 or bd.status_class(view.status(*r.key)) == best))
    return view


def _choose(state: NetworkState, qname: str, put: wl.Put, handle: str, serial: int, bind: str, step: int,
               mut: Mutations, redrive: str = "", exclude_local: bool = False, through_alias: bool = False
               ) -> tuple[NetworkState, wl.Choice]:
    """Run the algorithm at ``qname``, thread its history, record the ghost decision
    (``through_alias``: an arriving message's name resolved here through an alias)."""
    q = state.qmgr(qname)
    view = bd.view_of(q, channel_statuses(state, q), exclude_local)
    history = bd.thaw_history(q.wl_history)
    choice, decision = bd.decide(view, put, history, handle, serial, bind, bool(redrive), _mutated(view, put, mut),
                                 redrive)
    if through_alias:
        decision = replace(decision, through_alias=True)
    explained = q.explained
    if mut.explain:
        order = sum(len(x.decisions) for x in state.qmgrs)  # the choices' global order
        what = put.object_name + (f" (queue manager {put.target_qmgr})" if put.target_qmgr else "")
        what += f", re-driven from the RETRYING channel to {redrive}" if redrive else ""
        what += ", arrived over a cluster channel" if put.via_cluster_channel and not redrive else ""
        explained += ((order, step, handle, serial, qname, what, choice.lines()),)
    q = replace(q, wl_history=bd.freeze_history(choice.history), decisions=q.decisions + (decision,),
                explained=explained)
    return put_qmgr(state, q), choice


def _arrive(state: NetworkState, qname: str, handle: str, queue: str, group: str) -> NetworkState:
    """A message is put to the local queue ``queue`` at ``qname``."""
    q = state.qmgr(qname)
    counts = {(h, qu, g): n for h, qu, g, n in q.arrivals}
    key = (handle, queue, group)
    counts[key] = counts.get(key, 0) + 1
    state = put_qmgr(state, replace(q, arrivals=tuple(sorted((*k, n) for k, n in counts.items()))))
    # the run's record, kept with the handle: deleting the queue manager the message arrived
    # at later does not erase that it arrived (messages_of)
    opener = handle_qmgr(state, handle)
    if not opener:
        return state
    o = state.qmgr(opener)
    h = _handle(o, handle)
    per = dict(h.arrived)
    per[qname] = per.get(qname, 0) + 1
    return put_qmgr(state, _put_handle(o, replace(h, arrived=tuple(sorted(per.items())))))


def _send_or_arrive(state: NetworkState, qname: str, dest: wl.Destination, msg: bd.AppMessage,
                       step: int = INITIAL, mut: Mutations = NO_MUTATIONS) -> NetworkState:
    """Put the message to the local queue, or on the transmission queue for ``dest``. A
    channel that must start for it towards a stopped or deleted queue manager cannot
    connect: it enters RETRYING and its unbound messages are re-driven (spec/binding.py)."""
    if dest.local or dest.qmgr == qname:
        return _arrive(state, qname, msg.handle, msg.queue, msg.group)
    # the route chosen is recorded: the message leaves by that route's channel only
    route = "" if msg.p2p else route_for(state, qname, dest.qmgr, dest.channel)
    state = send(state, qname, dest.qmgr, replace(msg, route=route))
    far = state.find(dest.qmgr)
    if (far is None or not far.running) and state.route_status(qname, dest.qmgr, route) in FLOWING:
        state = set_route_status(state, qname, dest.qmgr, route, "RETRYING")
        state = redrive_channel(state, qname, dest.qmgr, step, mut, route)
    return state


def open_step(state: NetworkState, step: sc.OpenStep, mut: Mutations) -> NetworkState:
    """MQOPEN: a handle; with MQOO_BIND_ON_OPEN (asked, or AS_Q_DEF with DEFBIND(OPEN)) the
    algorithm chooses now, when the queue is known (001: "used at the point a cluster queue
    is opened"); otherwise at the first put (spec/binding.py docstring)."""
    q = state.qmgr(step.qmgr)
    handle = bd.Handle(step.handle, q.name, step.queue, step.target_qmgr, step.bind)
    res = bd.resolve_local(q.defs, q.name, step.queue, step.target_qmgr, _joined(q))
    if res.kind == "cluster" and all(c.full for c in q.caches) and not bd.candidates(
            bd.view_of(q, {}, res.exclude_local), wl.Put(res.queue, res.target_qmgr)):
        # 000 §First MQOPEN of a Queue: only a partial repository subscribes and waits; a
        # full repository of every cluster it is in (or a queue manager in none) knows now
        reason = wl.Reason.MQRC_UNKNOWN_REMOTE_Q_MGR if res.target_qmgr else wl.Reason.MQRC_UNKNOWN_OBJECT_NAME
        res = replace(res, kind="error", reason=str(reason))
    if res.kind == "error":
        # the handle is kept, invalid, so that its puts fail visibly (MQRC_HOBJ_ERROR)
        state = put_qmgr(state, _put_handle(q, replace(handle, failed=res.reason)))
        return add_log(state, [LogEntry(q.name, res.reason, f"MQOPEN {step.queue}: {res.reason}", step.index)])
    state = put_qmgr(state, _put_handle(q, handle))
    if res.kind == "cluster" and res.target_qmgr:
        state = _subscribe_target(state, q.name, res.target_qmgr, mut)
    if res.kind == "cluster":
        state, handle = _resolve_bind(state, handle, res, step.index, mut, serial=0, at_open=True)
    return state


def _subscribe_target(state: NetworkState, name: str, target: str, mut: Mutations) -> NetworkState:
    """A partial repository that opens a queue on a named queue manager subscribes for that
    name as a queue manager and as a queue manager alias (a clustered QREMOTE record), as
    subscribe_on_open does for the queue (000 §First MQOPEN of a Queue)."""
    q = state.qmgr(name)
    out = Outbox()
    for cache in q.caches:
        keys = tuple(k for k in ((rp.QMGR, target), (rp.QUEUE, target)) if k not in cache.interests)
        if cache.full or not keys:
            continue
        for key in keys:
            cache = rp.subscribe_interest(cache, key)
        targets, _ = two_frs(state, q, cache, mut)
        for fr in targets:
            out.send(fr, rp.RepoMsg(rp.SUBSCRIBE, cache.cluster, q.qmid, q.name, False, keys=keys))
        q = put_cache(q, cache)
    state = put_qmgr(state, q)
    return out.flush(state, q)


def _resolve_bind(state: NetworkState, handle: bd.Handle, res: bd.Resolved, step: int, mut: Mutations,
                     serial: int, at_open: bool = False) -> tuple[NetworkState, bd.Handle]:
    """Settle what the handle's bind option means, and bind an ON_OPEN handle (``at_open``:
    in the MQOPEN itself, whose failure leaves the handle invalid)."""
    q = state.qmgr(handle.qmgr)
    view = bd.view_of(q, channel_statuses(state, q), res.exclude_local)
    known = bool(bd.candidates(view, wl.Put(res.queue, res.target_qmgr)))
    if not handle.bind:
        if handle.option != bd.BIND_AS_Q_DEF:
            handle = replace(handle, bind=handle.option)
        elif res.defbind:
            handle = replace(handle, bind=bd.bind_from_defbind(res.defbind))
        elif known:
            # 000 §Workload balancing - Bind Options: the DEFBIND of the cluster queue opened
            instances = [x for x in view.queues if x.name == res.queue]
            defbind = instances[0].defbind if instances else "OPEN"
            handle = replace(handle, bind=bd.bind_from_defbind(defbind))
        if handle.option == bd.BIND_AS_Q_DEF and handle.bind:  # resolved now: BD-AS-Q-DEF's ghost
            handle = replace(handle, defbinds=(("", res.defbind),) * bool(res.defbind) + tuple(
                (x.qmgr, x.defbind) for x in view.queues if x.name == res.queue))
    if handle.bind == bd.BIND_ON_OPEN and handle.bound is None and known:
        state, choice = _choose(state, q.name, wl.Put(res.queue, res.target_qmgr), handle.name, serial,
                                   handle.bind, step, mut, exclude_local=res.exclude_local)
        if choice.destination is None:
            state = add_log(state, [LogEntry(q.name, str(choice.reason), f"MQOPEN {handle.queue}: {choice.reason}", step)])
            if at_open:
                # 001 rule 5 note: with only put-disabled instances "only inquire operations
                # will succeed, all other operations will fail with MQRC_CLUSTER_PUT_INHIBITED",
                # and with MQOO_BIND_ON_OPEN the choice is part of the MQOPEN (001: the
                # algorithm "is used at the point a cluster queue is opened"): the MQOPEN
                # fails, so the handle is invalid and its puts fail (decisions "MQOPEN failures")
                handle = replace(handle, failed=str(choice.reason))
        handle = replace(handle, bound=choice.destination)
    state = put_qmgr(state, _put_handle(state.qmgr(q.name), handle))
    return state, handle


def put_step(state: NetworkState, step: sc.PutStep, mut: Mutations) -> NetworkState | None:
    """MQPUT ``count`` times. While the queue is still unknown here and the repository is
    still exchanging messages (the first MQOPEN's subscription, 000 §First MQOPEN of a
    Queue), the put waits: ``None``, the step is not enabled yet. ``run`` settles before
    every step, so it never waits there."""
    qname = handle_qmgr(state, step.handle)
    if not qname:  # MQNetwork.next_state calls without_handle instead
        return state
    failed = _handle(state.qmgr(qname), step.handle).failed
    if failed:  # the MQOPEN failed: every MQPUT through the handle fails
        return add_log(state, [LogEntry(qname, "MQRC_HOBJ_ERROR", f"MQPUT through {step.handle} (message {i}): "
                                     f"MQRC_HOBJ_ERROR, its MQOPEN failed with {failed}", step.index)
                            for i in range(step.count)])
    if _waits_for_repository(state, qname, step.handle):
        return None
    for _ in range(step.count):
        state = _put_one(state, qname, step.handle, step.group, step.index, mut)
    return state


def _waits_for_repository(state: NetworkState, qname: str, name: str) -> bool:
    q = state.qmgr(qname)
    handle = _handle(q, name)
    res = bd.resolve_local(q.defs, qname, handle.queue, handle.target_qmgr, _joined(q))
    if res.kind != "cluster" or handle.bound is not None:
        return False
    if bd.candidates(bd.view_of(q, {}, res.exclude_local), wl.Put(res.queue, res.target_qmgr)):
        return False
    return any(isinstance(m, rp.RepoMsg) for ch in state.channels if qname in (ch.src, ch.dst) for m in ch.messages)


def _put_one(state: NetworkState, qname: str, name: str, group: str, step: int, mut: Mutations) -> NetworkState:
    """One MQPUT through a handle (000 §When does workload balancing occur?; 004 §Pros and
    cons of binding)."""
    q = state.qmgr(qname)
    handle = _handle(q, name)
    serial = handle.puts
    handle = replace(handle, puts=serial + 1)
    state = put_qmgr(state, _put_handle(q, handle))
    res = bd.resolve_local(q.defs, qname, handle.queue, handle.target_qmgr, _joined(q))
    if res.kind == "error":
        return add_log(state, [LogEntry(qname, res.reason, f"MQPUT {handle.queue}: {res.reason}", step)])
    msg = bd.AppMessage(name, serial, res.queue, res.target_qmgr, False, group, (qname,))
    if res.kind == "local":
        if q.defs.queue(res.queue).put == "DISABLED":
            return add_log(state, [LogEntry(qname, "MQRC_PUT_INHIBITED", f"MQPUT {handle.queue}: MQRC_PUT_INHIBITED", step)])
        return _arrive(state, qname, name, res.queue, group)
    if res.kind == "xmitq":
        return _send_p2p(state, qname, res, msg, step, mut)
    state, handle = _resolve_bind(state, handle, res, step, mut, serial=serial)
    grouped = handle.bind == bd.BIND_ON_GROUP and bool(group)
    if handle.bind == bd.BIND_ON_OPEN or (grouped and handle.group == group):
        dest = handle.bound  # chosen at MQOPEN / at the group's first message
    else:
        dest = None
    if dest is None:
        bind = handle.bind or bd.BIND_NOT_FIXED
        state, choice = _choose(state, qname, wl.Put(res.queue, res.target_qmgr), name, serial, bind, step, mut,
                                   exclude_local=res.exclude_local)
        dest = choice.destination
        if dest is None:
            return add_log(state, [LogEntry(qname, str(choice.reason), f"MQPUT {handle.queue}: {choice.reason}", step)])
        if handle.bind == bd.BIND_ON_OPEN or grouped:
            handle = replace(handle, bound=dest, group=group)
            state = put_qmgr(state, _put_handle(state.qmgr(qname), handle))
    # 004 §Pros and cons of binding: bound messages cannot change target; nor can those
    # naming a queue manager ("Unless it's fixed for another reason")
    bound = handle.bind == bd.BIND_ON_OPEN or grouped or bool(res.target_qmgr)
    return _send_or_arrive(state, qname, dest, replace(msg, bound=bound), step, mut)


def close_step(state: NetworkState, step: sc.CloseStep, mut: Mutations) -> NetworkState:
    qname = handle_qmgr(state, step.handle)
    if not qname:  # MQNetwork.next_state calls without_handle instead
        return state
    q = state.qmgr(qname)
    handle = _handle(q, step.handle)
    state = put_qmgr(state, _put_handle(q, replace(handle, closed=True)))
    if handle.failed:
        return add_log(state, [LogEntry(qname, "MQRC_HOBJ_ERROR", f"MQCLOSE {step.handle}: MQRC_HOBJ_ERROR, "
                                        f"its MQOPEN failed with {handle.failed}", step.index)])
    return state


def without_handle(state: NetworkState, step: sc.PutStep | sc.CloseStep, qname: str) -> NetworkState:
    """MQPUT or MQCLOSE through a handle that the running ``qname`` does not hold: its MQOPEN
    never got one (the queue manager was stopped or deleted then), or the queue manager was
    deleted and created again since. The object handle is not valid: MQRC_HOBJ_ERROR for each
    call, as for a handle whose MQOPEN failed (docs/decisions.md "MQOPEN failures")."""
    why = f"{qname} holds no handle {step.handle} (its MQOPEN did not succeed, or {qname} was recreated since)"
    if isinstance(step, sc.CloseStep):
        return add_log(state, [LogEntry(qname, "MQRC_HOBJ_ERROR", f"MQCLOSE {step.handle}: MQRC_HOBJ_ERROR, {why}",
                                        step.index)])
    return add_log(state, [LogEntry(qname, "MQRC_HOBJ_ERROR", f"MQPUT through {step.handle} (message {i}): "
                                    f"MQRC_HOBJ_ERROR, {why}", step.index) for i in range(step.count)])


def _bound_and_gone(defs: objects.QueueManagerDef, msg: bd.AppMessage, res: bd.Resolved) -> bool:
    """A bound message (bind on open or on group, over a cluster channel, naming no queue
    manager) that arrives where nothing of its queue's name is defined any more: its queue
    was deleted on the way. 004 §Pros and cons of binding: "Once a target has been chosen it
    cannot change - Whether it's available or not", and "While a route is known by the
    source queue manager, it won't be rebalanced, but it could be DLQd"; 000 §When does
    workload balancing occur?: with bind_on_open "no more workload balancing will occur on
    the message". So the receiving channel dead-letters it (MQRC_UNKNOWN_OBJECT_NAME, as for
    a message naming this queue manager: docs/decisions.md "Session 30: a message named for
    a queue manager that lacks the queue") and does not run the algorithm again, as it does
    for a NOT_FIXED message ("Session 34: review of 003 and 004")."""
    return (msg.bound and not msg.p2p and not msg.target_qmgr and res.kind == "cluster"
            and defs.queue(msg.queue) is None)


def arrives_silently(state: NetworkState, dst: str, msg: Any) -> bool:
    """Would delivering ``msg`` at the running ``dst`` send nothing (``arrive_message``
    unmutated: the hop limit or a resolution error logs it, a local queue — or a cluster
    queue with a local instance — takes it)? What decides it is ``dst``'s definitions and
    the clusters it has joined, which no such delivery changes (partial-order reduction,
    docs/por.md). Anything but an application message: False."""
    if not isinstance(msg, bd.AppMessage):
        return False
    q = state.find(dst)
    if q is None:
        return False
    if len(msg.hops) + 1 > HOP_LIMIT_PER_QMGR * len(state.qmgrs):
        return True
    res = bd.resolve_local(q.defs, dst, msg.queue, msg.target_qmgr, _joined(q))
    if res.kind == "error" or _bound_and_gone(q.defs, msg, res):
        return True
    if res.kind == "xmitq":
        return False
    obj = q.defs.queue(msg.queue)
    direct = (not msg.p2p and res.kind == "cluster" and not msg.target_qmgr and obj is not None
              and obj.qtype == "QLOCAL")
    return res.kind == "local" or direct


def lands_locally(state: NetworkState, dst: str, msg: Any) -> bool:
    """Would delivering ``msg`` at ``dst`` be a *landing* (spec.network.views.LANDING):
    ``arrive_message`` unmutated puts it to a local queue of the running ``dst`` — a local
    queue, or a cluster queue's local instance, that is not PUT(DISABLED) — through
    ``_put_local``'s ``_arrive``, which sends nothing and logs nothing? Not the hop limit,
    a resolution error or a bound message whose queue went (those dead-letter it: a
    landing must keep a message that went the wrong way arrived somewhere, docs/por.md).
    Like ``arrives_silently``, decided by ``dst``'s definitions and joined clusters, which
    no landing changes. Anything but an application message: False."""
    if not isinstance(msg, bd.AppMessage):
        return False
    q = state.find(dst)
    if q is None or not q.running or len(msg.hops) + 1 > HOP_LIMIT_PER_QMGR * len(state.qmgrs):
        return False
    res = bd.resolve_local(q.defs, dst, msg.queue, msg.target_qmgr, _joined(q))
    if res.kind == "error" or res.kind == "xmitq" or _bound_and_gone(q.defs, msg, res):
        return False
    obj = q.defs.queue(msg.queue)
    direct = (not msg.p2p and res.kind == "cluster" and not msg.target_qmgr and obj is not None
              and obj.qtype == "QLOCAL")
    if not (res.kind == "local" or direct):
        return False
    target = q.defs.queue(res.queue)
    return target is None or target.put != "DISABLED"


def arrive_message(state: NetworkState, dst: str, msg: bd.AppMessage, step: int, mut: Mutations) -> NetworkState:
    """The receiving channel puts the message (000 §When does workload balancing occur?:
    "at the far end the channel code issues an MQPUT ... and the workload algorithm will be
    called"): name resolution here, then the local queue or the algorithm again."""
    q = state.qmgr(dst)
    msg = replace(msg, hops=msg.hops + (dst,))
    if len(msg.hops) > HOP_LIMIT_PER_QMGR * len(state.qmgrs):
        return add_log(state, [LogEntry(dst, "HOP_LIMIT", f"{msg}: dead-lettered after {len(msg.hops)} hops", step)])
    res = bd.resolve_local(q.defs, dst, msg.queue, msg.target_qmgr, _joined(q))
    # the mutant (before Session 34's review): the algorithm runs again for it instead
    if res.kind == "error" or (_bound_and_gone(q.defs, msg, res) and not mut.bound_rebalanced_when_gone):
        reason = res.reason if res.kind == "error" else "MQRC_UNKNOWN_OBJECT_NAME"
        return add_log(state, [LogEntry(dst, reason, f"{msg}: put to the dead-letter queue", step)])
    if res.kind == "xmitq":
        return _send_p2p(state, dst, res, msg, step, mut)
    obj = q.defs.queue(msg.queue)
    # 000 §Utilising remote destinations: "Any messages received by a cluster channel will be
    # put to a local queue if one exists in order to avoid looping round the cluster" (DESIGN
    # §3.5); a name resolving here is fixed (DESIGN §3.6). Only aliases re-run the algorithm.
    # A message from a RCVR channel is resolved as an application's put would be (000
    # Scenario 3: the gateway's QREMOTE(CQM) RNAME(' ') RQMNAME(' ') lets the algorithm run).
    direct = (not msg.p2p and res.kind == "cluster" and not msg.target_qmgr and obj is not None
              and obj.qtype == "QLOCAL")
    if mut.far_end_reruns and (direct or res.kind == "local" and objects.clusters_of(q.defs.queue(res.queue), q.defs)):
        res, direct = replace(res, kind="cluster"), False  # the mutant: rule 3 may send it on
    if res.kind == "local" or direct:
        return _put_local(state, dst, msg, res.queue, step)
    if not res.target_qmgr:
        # The receiving channel's MQPUT opens the queue like any MQOPEN (000 §When does
        # workload balancing occur?: "the channel code issues an MQPUT ... and the workload
        # algorithm will be called"), so a name resolving to a cluster queue this partial
        # repository knows nothing of makes it subscribe for that queue (000 §First MQOPEN
        # of a Queue: "the repository cache is examined to see if the queue is known
        # about"): a partial-repository gateway's alias (000 Scenario 4) then learns the
        # other cluster's instances. The message in hand does not wait for the answer: the
        # seeds say nothing of what happens to it, and the model keeps dead-lettering it
        # below when no instance is known (docs/decisions.md, "Session 32: an MQOPEN
        # through a queue alias subscribes for the target").
        state = subscribe_for_queue(state, dst, res.queue, mut)
    put = wl.Put(res.queue, res.target_qmgr, via_cluster_channel=not msg.p2p)
    # the names it carried went through an alias here — its queue is a QALIAS or a QREMOTE
    # (000 Scenario 4), or the queue manager it names is a queue manager alias (Scenario 5):
    # the one way a bound or named message legitimately meets the algorithm again
    through_alias = (obj is not None and obj.qtype in ("QALIAS", "QREMOTE")) or res.target_qmgr != msg.target_qmgr
    state, choice = _choose(state, dst, put, msg.handle, msg.serial, "", step, mut, exclude_local=res.exclude_local,
                            through_alias=through_alias)
    if choice.destination is None:
        return add_log(state, [LogEntry(dst, str(choice.reason), f"{msg}: put to the dead-letter queue", step)])
    # a message from a RCVR channel is put by the MCA like a NOT_FIXED put unless it names a
    # queue manager (the p2p leg bound it to this gateway only)
    bound = (msg.bound and not msg.p2p) or bool(res.target_qmgr)
    onward = replace(msg, queue=res.queue, target_qmgr=res.target_qmgr, bound=bound, p2p=False)
    return _send_or_arrive(state, dst, choice.destination, onward, step, mut)


def _p2p_peer(state: NetworkState, qname: str, xmitq: str) -> str:
    """The queue manager a message on transmission queue ``xmitq`` at ``qname`` goes to: the
    one defining the RCVR channel named like a SDR channel of ``qname`` that serves
    ``xmitq`` (000 Scenario 1: QMX's SDR QMX.TO.QMA XMITQ(QMA), QMA's RCVR QMX.TO.QMA);
    "" when there is none."""
    for ch in state.qmgr(qname).defs.channels:
        if ch.chltype == "SDR" and ch.xmitq == xmitq:
            for other in state.qmgrs:
                if other.name != qname and any(c.chltype == "RCVR" and c.name == ch.name for c in other.defs.channels):
                    return other.name
    return ""


def _send_p2p(state: NetworkState, qname: str, res: bd.Resolved, msg: bd.AppMessage, step: int,
                 mut: Mutations) -> NetworkState:
    """Put the message to transmission queue ``res.xmitq`` addressed to (queue, queue manager):
    it flows over the point-to-point channel serving that queue (reusing the pair's FIFO),
    bound (no workload choice is involved: one route). Without such a channel it waits on
    the transmission queue for ever, which is logged (XMITQ_NO_CHANNEL)."""
    msg = replace(msg, queue=res.queue, target_qmgr=res.target_qmgr, bound=True, p2p=True)
    peer = _p2p_peer(state, qname, res.xmitq)
    if not peer:
        return add_log(state, [LogEntry(qname, "XMITQ_NO_CHANNEL", f"{msg}: waits on transmission queue {res.xmitq}: "
                                     f"no SDR channel with XMITQ({res.xmitq}) reaches a RCVR of its name", step)])
    return _send_or_arrive(state, qname, wl.Destination(peer, "", False), msg, step, mut)


def _put_local(state: NetworkState, dst: str, msg: bd.AppMessage, queue: str, step: int) -> NetworkState:
    """The receiving channel puts the message to the local queue ``queue``; a PUT(DISABLED)
    queue sends it to the dead-letter queue, logged MQRC_PUT_INHIBITED (the channel's MQPUT
    fails as an application's would; decisions-D: MQ's MCA dead-letters it)."""
    obj = state.qmgr(dst).defs.queue(queue)
    if obj is not None and obj.put == "DISABLED":
        return add_log(state, [LogEntry(dst, "MQRC_PUT_INHIBITED", f"{msg}: {queue} is PUT(DISABLED); put to the "
                                     "dead-letter queue", step)])
    return _arrive(state, dst, msg.handle, queue, msg.group)


def redrive_channel(state: NetworkState, src: str, dst: str, step: int, mut: Mutations,
                    route: str = "") -> NetworkState:
    """A channel (a separate ``route``'s) entered RETRYING: its unbound application
    messages go through the algorithm again and move if another destination is chosen (000
    §When does workload balancing occur?; 004 §Channel availability routing) — another
    queue manager, or another route to the same one. Bound messages stay."""
    ch = state.channel(src, dst)
    q = state.find(src)
    if ch is None or state.route_status(src, dst, route) != "RETRYING" or q is None or not q.running:
        return state
    if not any(isinstance(m, bd.AppMessage) and m.route == route for m in ch.messages):
        return state
    keep: list[Any] = []
    moved: list[tuple[wl.Destination, bd.AppMessage]] = []
    for m in ch.messages:
        if (not isinstance(m, bd.AppMessage) or m.route != route
                or (m.bound and not mut.redrive_bound_messages)):
            keep.append(m)
            continue
        obj = state.qmgr(src).defs.queue(m.queue)
        exclude = obj is not None and obj.qtype != "QLOCAL"
        put = wl.Put(m.queue, m.target_qmgr, via_cluster_channel=len(m.hops) > 1)
        chosen, choice = _choose(state, src, put, m.handle, m.serial, "REDRIVE", step, mut, redrive=dst,
                                 exclude_local=exclude)
        dest = choice.destination
        if moves_to(chosen, src, dst, route, dest):
            state = chosen
            moved.append((dest, m))
            continue
        keep.append(m)
        if dest is None or (dest.qmgr == dst and not dest.local and route_for(chosen, src, dst, dest.channel) == route):
            state = chosen  # the algorithm chose where it waits: as ever
        else:  # its pick is no better than RETRYING: the message waits, nothing is sent or counted
            state = _waits_after_redrive(state, chosen, src, dst, route)
    state = set_channel(state, replace(state.channel(src, dst), messages=tuple(keep)))
    for dest, m in moved:
        state = _send_or_arrive(state, src, dest, m, step, mut)
    return state


def retry_channel(state: NetworkState, src: str, dst: str, step: int, mut: Mutations,
                  route: str = "") -> NetworkState | None:
    """``ChannelRetry``: the RETRYING channel (a separate ``route``'s) from ``src`` to ``dst``
    is retried and its unbound messages are re-driven — the same ``redrive_channel`` as on
    entering retry, workload history and ghost decisions alike. 004 §Channel availability
    routing: "Routing of messages based on availability doesn't just happen when they're
    first put, it also occurs for queued transmission messages every time the channel is
    retried. So blocked messages can be re-routed, if they're not prevented" (bound ones,
    or a named target queue manager, are). The retry interval is the environment's timing,
    so a retry may come at any time; one that moves no message to where it is taken changes
    nothing MQ shows (only its own history and decisions would be re-run), so it is not a
    step: None."""
    ch = state.channel(src, dst)
    if ch is None or state.route_status(src, dst, route) != "RETRYING":
        return None
    if not any(isinstance(m, bd.AppMessage) and m.route == route and (not m.bound or mut.redrive_bound_messages)
               for m in ch.messages):
        return None
    after = redrive_channel(state, src, dst, step, mut, route)
    left = after.channel(src, dst)
    still = {(m.handle, m.serial) for m in (left.messages if left is not None else ())
             if isinstance(m, bd.AppMessage) and m.route == route}
    moved = {(m.handle, m.serial) for m in ch.messages if isinstance(m, bd.AppMessage) and m.route == route} - still
    # A move counts when the message left for a destination that takes it: the local queue,
    # or a route that is not RETRYING afterwards. One chosen through a channel that looks
    # available (RUNNING or INACTIVE since before its partner stopped: not tried since) but
    # leads to a queue manager that does not run goes straight back into retry
    # (_send_or_arrive): that is no re-routing. (A channel in retry never connects to a
    # stopped queue manager: ``channels.recoverable``.)
    queued = {}
    for c in after.channels:
        if c.src == src:
            for m in c.messages:
                if isinstance(m, bd.AppMessage) and (m.handle, m.serial) in moved:
                    queued[(m.handle, m.serial)] = after.route_status(src, c.dst, m.route)
    if any(queued.get(k) != "RETRYING" for k in moved):
        return after
    return None


def retries(state: NetworkState, mut: Mutations = NO_MUTATIONS) -> tuple[ChannelRetry, ...]:
    """The enabled ``ChannelRetry`` actions: every RETRYING channel or separate route with
    waiting application messages of which a retry would move one (``retry_channel``). A
    scenario step that set a channel RETRYING holds its status, not its retries."""
    if "RETRYING" not in map(_STATUS, state.channels):  # the common case: nothing retries (looked at in C)
        return ()
    out = []
    for ch in state.channels:
        for r in routes_waiting(ch) if ch.messages else ():
            if (state.route_status(ch.src, ch.dst, r) == "RETRYING"
                    and retry_channel(state, ch.src, ch.dst, state.next_step - 1, mut, r) is not None):
                out.append(ChannelRetry(ch.src, ch.dst, r))
    return tuple(out)


def _waits_after_redrive(before: NetworkState, chosen: NetworkState, src: str, dst: str, route: str) -> NetworkState:
    """The re-drive ran the algorithm and its pick is not available (``moves_to``): the
    message stays for ``dst``. The workload history is the one before (nothing was sent);
    the ghost decision records the re-drive as keeping the message where it waits, so the
    properties see no move that did not happen; ``--explain`` says so."""
    q0, q1 = before.qmgr(src), chosen.qmgr(src)
    decision = q1.decisions[-1]
    channel = route or next((c.channel for c in decision.candidates if c.qmgr == dst and not c.local), "")
    kept = replace(decision, chosen=(dst, channel, False), reason=bd.REDRIVE_WAITS)
    explained = q1.explained
    if len(explained) > len(q0.explained):  # --explain: the algorithm's lines, then what happened
        *rest, last = explained
        explained = (*rest, (*last[:-1], (*last[-1], f"no destination is available: the message waits for {dst}")))
    return put_qmgr(before, replace(q0, decisions=q0.decisions + (kept,), explained=explained))


def moves_to(state: NetworkState, src: str, dst: str, route: str, dest: wl.Destination | None) -> bool:
    """Whether a message waiting at ``src`` for the RETRYING ``route`` to ``dst`` goes to
    ``dest``, the algorithm's choice for it now: a different destination (the local queue,
    another queue manager, another route to ``dst``) that is available. 000 §When does
    workload balancing occur?: the messages go through the algorithm again "to see if there
    is a different destination that is available"; 000 §Workload management features: with
    all channels in RETRY, "where-ever the messages are targeted, they will have to wait on
    the transmission queue" — so not from one RETRYING channel to another (a user trial)."""
    if dest is None:
        return False
    if dest.local:
        return True
    chosen = route_for(state, src, dest.qmgr, dest.channel)
    if dest.qmgr == dst and chosen == route:
        return False
    return bd.status_class(state.route_status(src, dest.qmgr, chosen)) < bd.status_class("RETRYING")


def messages_of(state: NetworkState) -> dict[str, dict[str, int]]:
    """Per open handle, how many of its messages arrived on each queue manager's local
    queue (DESIGN §2.3 ``messages``); every handle is listed, queue managers that got none
    are not. Arrivals at a queue manager deleted later still count (the handle keeps them)."""
    out: dict[str, dict[str, int]] = {h.name: dict(h.arrived) for q in state.qmgrs for h in q.handles}
    for q in state.qmgrs:  # handles whose own queue manager was deleted: what is left
        for handle, _queue, _group, n in q.arrivals:
            if handle_qmgr(state, handle):
                continue
            per = out.setdefault(handle, {})
            per[q.name] = per.get(q.name, 0) + n
    return {h: dict(sorted(per.items())) for h, per in sorted(out.items())}


def explanations_of(state: NetworkState) -> list[dict]:
    """Every recorded workload choice (``run_scenario(..., explain=True)``), in step order:
    where it ran, for which message, and the rules' lines (``Choice.lines()``)."""
    rows = sorted((order, {"step": s, "handle": h, "message": n, "qmgr": qm, "put": what, "rules": list(lines)})
                  for q in state.qmgrs for order, s, h, n, qm, what, lines in q.explained)
    return [row for _, row in rows]
