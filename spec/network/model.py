"""``MQNetwork``: a scenario as a Model (``checker.model.Model``, satisfied structurally),
and ``settle``, the deterministic scheduler ``mqcheck run`` uses.

``actions`` lists channel deliveries, the next scenario step, recoveries and (within the
fault budget) faults; ``next_state`` dispatches a delivery to the handler of the message's
kind and a step to its handler (steps.py), then lets publish/subscribe re-compute demand.

Modelling choices, argued: a channel delivers only when both ends run and its status lets
messages flow; a repository message is processed as soon as it arrives
(SYSTEM.CLUSTER.COMMAND.QUEUE is read at once); the repository cache survives a stop and
start. Faults and recoveries are the environment's doing, like scenario steps (external):
quiescence and termination are about message deliveries only, so a settled state is
judged even while a fault could still be injected, and a fail/recover cycle is not an
endless run. A RETRYING channel recovers by itself (a fault's, or one that could not reach
a stopped queue manager) once both its ends run, except when a scenario step set its
status: that stays until a later step changes it (``mqcheck run`` and ``check`` agree). Every RETRYING channel, a
step's too, is retried, and a retry re-routes its waiting unbound messages when another
destination is now available (``ChannelRetry``, 004 §Channel availability routing).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from itertools import compress
from operator import attrgetter
from typing import Any

from spec import binding as bd, objects, pubsub, repository as rp, scenario as sc
from spec.encoding import canonical_bytes
from spec.network.channels import (
    first_on, reconnectable, recoverable, routes_waiting, set_channel, set_route_status,
)
from spec.network.memo import DeliveryMemo, executor_memo
from spec.network.pubsub import (
    backlog_of, deliveries_of, proxy_subscriptions_of, pubsub_after, pubsub_after_delivery, pubsub_after_step,
    receive_proxy_subscription, receive_publication,
)
from spec.network.repositories import advance_clock, process_repo_message, repositories_of
from spec.network.state import (
    FLOWING, INITIAL, NO_MUTATIONS, ChannelDeliver, ChannelFail, ChannelRecover, ChannelRetry, LogEntry, Mutations,
    NetworkState, QmgrStart, QmgrState, QmgrStop, ScenarioStep, add_log, put_qmgr, ship, unship,
)
from spec.network.steps import (
    STEP_HANDLERS, apply_mqsc, channel_step, describe_step, qmgr_started, qmgr_step, require_running,
)
from spec.network.topology import manual_clussdrs
from spec.network.uniform import UNIFORM_MESSAGE_HANDLERS, UNIFORM_STEP_HANDLERS, apstatus_of, uniform_after, uniform_initial
from spec.network.views import LANDING, view_key
from spec.network.workload import (
    arrive_message, arrives_silently, handle_qmgr, lands_locally, messages_of, redrive_channel, retries, retry_channel, without_handle,
)
from spec.pubsub import LocalPubSub
from spec.values import replace

_MESSAGES = attrgetter("messages")
_STATUS = attrgetter("status")


class MQNetwork:
    """A scenario as a Model over :class:`NetworkState`.

    ``properties`` come from the composition root (``checker.cli``), which may import the
    property catalogue; ``spec`` does not. ``faults`` is how many channel failures the
    checker may inject (``[check] faults = true`` means one); ``mutations`` exist for tests.
    """

    def __init__(self, scenario: sc.Scenario, properties: Sequence[Any] = (), faults: int | None = None,
                 mutations: Mutations = NO_MUTATIONS, explore_initial: bool | None = None,
                 memo: str = "on") -> None:
        self.scenario = scenario
        self.name = scenario.name or "scenario"
        self._properties = tuple(properties)
        self.faults = scenario.check.faults if faults is None else faults
        self.mutations = mutations
        self.explore_initial = scenario.check.explore_initial if explore_initial is None else explore_initial
        self._opened_at = {s.handle: s.qmgr for s in scenario.steps if isinstance(s, sc.OpenStep)}
        # MQSC steps taken through the delivery memo (memo.py): not one with ALTER QMGR,
        # which may change another queue manager's publish/subscribe neighbours (PARENT,
        # PSMODE), so that its reconciling after the step is not the no-op it is otherwise
        self._memo_steps = frozenset(
            s.index for s in scenario.steps
            if type(s) is sc.MqscStep and not any(c.verb == "ALTER" and c.objtype == "QMGR" for c in s.commands))
        # deliveries computed once per local situation (memo.py); not with --explain, whose
        # explanations are numbered across every queue manager
        if memo not in ("on", "off", "verify"):
            raise ValueError(f"memo {memo!r}: expected 'on', 'off' or 'verify'")
        self.memo = None if memo == "off" or mutations.explain else DeliveryMemo(memo)
        # properties judged once per view (views.py; checker.model.Judge): with the memo on,
        # and every cached verdict judged again with ``verify``
        self.memo_mode = memo
        self.verify_views = memo == "verify"
        # init_states() computed once: every trace is replayed from it, and settling a large
        # cluster's joining takes seconds (settle_limit's table) — a check of a 62-member
        # cluster replayed it for each of its twelve traces, 40 of its 45 CPU seconds
        self._initial: tuple[NetworkState, ...] | None = None

    def __getstate__(self) -> dict:
        # the memo is not shipped: an unpickled model (a Spark task) uses its process's
        # (memo.executor_memo), which outlives the task
        state = dict(self.__dict__)
        if state.get("memo") is not None:
            state["memo"] = state["memo"].mode
        state["_initial"] = None   # nor the initial state: recomputed where it is needed
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        if isinstance(self.memo, str):
            self.memo = executor_memo(self.memo, self.mutations)

    # --- the Model protocol ---------------------------------------------------------
    def init_states(self) -> Sequence[NetworkState]:
        """The queue managers after their initial MQSC. Unless ``explore_initial``, the
        network is then settled with the deterministic scheduler, so exploration starts
        from the configuration as the administrator has it running and explores every
        interleaving of what the scenario's steps do (the joining of the initial
        configuration is otherwise most of the state space). Computed once per model (the
        states are immutable)."""
        if self._initial is None:
            self._initial = (self._initial_state(),)
        return self._initial

    def _initial_state(self) -> NetworkState:
        qmgrs = tuple(QmgrState(s.name, objects.QueueManagerDef(s.name), LocalPubSub())
                      for s in sorted(self.scenario.qmgrs, key=lambda q: q.name))
        state = NetworkState(qmgrs, faults=self.faults)
        for spec_ in sorted(self.scenario.qmgrs, key=lambda q: q.name):
            state = apply_mqsc(state, spec_.name, spec_.commands, INITIAL, self.mutations)
        state = pubsub_after_step(state, INITIAL, self.mutations)
        state = uniform_initial(self.scenario, state)  # issue #19 (unchanged without a uniform cluster)
        if not self.explore_initial:
            state = settle(self, state)
        return state

    @staticmethod
    def deliveries(state: NetworkState) -> Iterator[ChannelDeliver]:
        """The enabled deliveries, in the order :meth:`actions` lists them (first)."""
        for ch in compress(state.channels, map(_MESSAGES, state.channels)):   # those with messages, in C
            src, dst = state.find(ch.src), state.find(ch.dst)
            if src is not None and src.running and dst is not None and dst.running:
                # each route leaves by its own channel (one route: the pair's, as ever)
                yield from (ChannelDeliver(ch.src, ch.dst, r) for r in routes_waiting(ch)
                            if (state.route_status(ch.src, ch.dst, r) if r else ch.status) in FLOWING)

    def actions(self, state: NetworkState) -> Sequence[Any]:
        acts: list[Any] = list(self.deliveries(state))
        # the scenario's next step before any fault, so that of two equally short traces the
        # checker reports the one without a fault
        if state.next_step < len(self.scenario.steps):
            acts.append(ScenarioStep(state.next_step))
        acts.extend(recoverable(state))
        acts.extend(retries(state, self.mutations))  # 004 §Channel availability routing
        acts.extend(QmgrStart(name) for name in state.stopped_by_fault)
        if state.faults > 0:
            acts.extend(ChannelFail(ch.src, ch.dst, r) for ch in state.channels if ch.messages
                        for r in routes_waiting(ch)
                        if (state.route_status(ch.src, ch.dst, r) if r else ch.status) in FLOWING)
            acts.extend(QmgrStop(q.name) for q in state.qmgrs if q.running and q.name not in state.stopped_by_fault)
        return tuple(acts)

    def next_state(self, state: NetworkState, action: Any) -> NetworkState | None:
        if self.memo is not None and state.uniform is None:
            if isinstance(action, ChannelDeliver):
                return self._deliver(state, action)
            if isinstance(action, ScenarioStep) and action.index == state.next_step and action.index in self._memo_steps:
                step = self.scenario.steps[action.index]
                # runmqsc ends with every queue manager retrying its unsent JOINs
                # (retry_joins): another one's caches decide that, which the key leaves out
                if not _joins_unsent(state, step.qmgr):
                    return self.memo.deliver(state, step.qmgr, step, lambda s: self._unmemoised(s, action))
        return self._unmemoised(state, action)

    def _unmemoised(self, state: NetworkState, action: Any) -> NetworkState | None:
        after = self._next_state(state, action)
        if after is None:
            return None
        return uniform_after(state, pubsub_after(state, action, after, self.mutations))

    def _deliver(self, state: NetworkState, action: ChannelDeliver) -> NetworkState | None:
        """``next_state`` of a delivery through the memo (memo.py): the message taken off
        its channel here, then what the receiving queue manager does with it — handler and
        publish/subscribe's reaction (``pubsub_after``) — replayed when this local
        situation was seen before."""
        taken = _take(state, action)
        if taken is None:
            return None
        state, msg = taken
        dst, mut = action.dst, self.mutations
        if state.find(dst) is None:
            return state
        handler = _MESSAGE_HANDLERS[type(msg)]

        def process(s: NetworkState) -> NetworkState | None:
            after = handler(s, dst, msg, s.next_step - 1, mut)
            return None if after is None else pubsub_after_delivery(after, dst, mut)

        return self.memo.deliver(state, dst, msg, process)

    def _next_state(self, state: NetworkState, action: Any) -> NetworkState | None:
        if isinstance(action, ChannelDeliver):
            taken = _take(state, action)
            if taken is None:
                return None
            state, msg = taken
            if state.find(action.dst) is None:
                return state
            handler = _MESSAGE_HANDLERS[type(msg)]
            return handler(state, action.dst, msg, state.next_step - 1, self.mutations)
        if isinstance(action, ChannelFail):
            ch = state.channel(action.src, action.dst)
            if ch is None or state.faults <= 0:
                return None
            key = bd.route_key(action.dst, action.route) if action.route else action.dst
            state = replace(set_route_status(state, action.src, action.dst, action.route, "RETRYING"),
                            faults=state.faults - 1,
                            held_by_step=tuple(p for p in state.held_by_step if p != (action.src, key)))
            return redrive_channel(state, action.src, action.dst, state.next_step - 1, self.mutations, action.route)
        if isinstance(action, QmgrStop):
            q = state.find(action.name)
            if q is None or not q.running or state.faults <= 0:
                return None
            return replace(put_qmgr(state, replace(q, running=False)), faults=state.faults - 1,
                           stopped_by_fault=tuple(sorted(state.stopped_by_fault + (q.name,))))
        if isinstance(action, QmgrStart):
            q = state.find(action.name)
            if q is None or action.name not in state.stopped_by_fault:
                return None
            state = replace(state, stopped_by_fault=tuple(n for n in state.stopped_by_fault if n != action.name))
            # the same restart as a scenario's `qmgr` start step (decisions-A: ends
            # non-durable subscriptions, re-evaluates WILDCARD(BLOCK))
            return qmgr_started(state, action.name, state.next_step - 1, self.mutations)
        if isinstance(action, ChannelRecover):
            key = bd.route_key(action.dst, action.route) if action.route else action.dst
            ch = state.channel(action.src, key)
            if ch is None or ch.status != "RETRYING" or (ch.src, ch.dst) in state.held_by_step:
                return None
            if not all((q := state.find(n)) is not None and q.running for n in (action.src, action.dst)):
                return None  # no channel runs to or from a stopped queue manager (recoverable)
            return set_channel(state, replace(ch, status="RUNNING"))
        if isinstance(action, ChannelRetry):
            return retry_channel(state, action.src, action.dst, state.next_step - 1, self.mutations, action.route)
        if not isinstance(action, ScenarioStep) or action.index != state.next_step:
            return None
        if action.index >= len(self.scenario.steps):
            return None
        step = self.scenario.steps[action.index]
        state = replace(state, next_step=state.next_step + 1)
        if isinstance(step, sc.QmgrStep):
            return qmgr_step(state, step, self.mutations, self.scenario)
        if isinstance(step, sc.ChannelStep):
            return channel_step(state, step, self.mutations)
        if isinstance(step, sc.AdvanceStep):
            return advance_clock(state, step, self.mutations)
        if isinstance(step, sc.WaitStep):  # taken only once the network has settled
            return state if self.settled(state) else None
        handler = STEP_HANDLERS.get(type(step))
        if handler is None:  # an unmodelled step: reported by unmodelled_in, no effect
            return state
        if type(step) in UNIFORM_STEP_HANDLERS:  # client applications: no one queue manager acts
            return handler(state, step, self.mutations)
        qmgr = getattr(step, "qmgr", None) or handle_qmgr(state, step.handle)  # put/close: the handle's
        held = bool(qmgr)
        if not held:  # put/close through a handle no queue manager holds: where its MQOPEN was
            qmgr = self._opened_at[step.handle]
        blocked = require_running(state, qmgr, step.index)
        if blocked is not None:
            return blocked
        if not held:
            return without_handle(state, step, qmgr)
        return handler(state, step, self.mutations)

    def settled(self, state: NetworkState) -> bool:
        """``NetworkState.settled`` and no retry would re-route a waiting message
        (``ChannelRetry``): such a message does not wait for good."""
        return state.settled() and not retries(state, self.mutations)

    def properties(self) -> Sequence[Any]:
        return self._properties

    def encode(self, state: NetworkState) -> bytes:
        return canonical_bytes(state)

    # --- optional parts of the protocol ---------------------------------------------
    def ship(self, state: NetworkState) -> bytes:
        """The bytes a state travels as between processes (state.ship)."""
        return ship(state)

    def unship(self, data: bytes) -> NetworkState:
        """The state ``ship`` made, its parts this process's earlier ones where they encode
        alike (state.unship): a state shipped to a Spark executor then hits the identity
        caches again."""
        return unship(data)

    def views(self, reads: frozenset[str] | None) -> Callable[[NetworkState], Any] | None:
        """The key of what a property reading ``reads`` sees of a state (views.py), or None:
        judge it on every state (``reads`` is not within the views, or ``--memo off``)."""
        return None if self.memo_mode == "off" else view_key(reads)

    def ample(self, state: NetworkState, actions: Sequence[Any], reads: frozenset[str] | None,
              stable: frozenset[str] = frozenset()) -> tuple[int, ...] | None:
        """Partial-order reduction (docs/por.md, where each condition is argued): the
        positions in ``actions`` of the enabled deliveries into one queue manager ``d``
        when they form a persistent set, else None (expand fully).

        Only in the last phase of a run — every scenario step taken, no fault left to
        inject or undo, no uniform cluster, no mutant — where the only actions are
        deliveries and channel recoveries; only when the checked always/sometimes
        properties read nothing a delivery changes (``reads`` within :data:`POR_INVISIBLE`:
        empty; the checker leaves out properties judged only in settled states) — or, when
        every one of them that reads anything is stable under landings (``LANDING`` in
        ``stable``: ``Property.stable_under``), only a set of landings (``lands_locally``:
        application messages ``d`` puts to a local queue, sending and logging nothing).
        ``d`` qualifies when every other running queue manager has messages waiting for
        ``d`` on a RUNNING channel, on the pair's route, and no message to ``d`` can take a
        separate route (so no path outside the set can start a new delivery into ``d``:
        whatever it sends there queues behind a delivery of the set), every route out of
        ``d`` that delivers outside the set is RUNNING (a delivery sets RUNNING: no
        change that ``d``'s workload choice could read), no recovery of a channel into or
        out of ``d`` is enabled, no auto-defined channel can fail on a port mismatch, and no
        retry (``ChannelRetry``, a workload decision like the re-drive) is enabled or could
        become so: no unbound application message waits on a RETRYING channel."""
        # condition 1: every delivery may be offered, or landings only
        landings_only = reads is None or not reads <= POR_INVISIBLE
        if landings_only and LANDING not in stable:
            return None
        if (state.uniform is not None or self.mutations != NO_MUTATIONS
                or state.next_step < len(self.scenario.steps) or state.faults or state.stopped_by_fault):
            return None
        if any(isinstance(m, bd.AppMessage) and not m.bound and state.route_status(c.src, c.dst, m.route) == "RETRYING"
               for c in state.channels for m in c.messages):
            return None  # a recovery elsewhere could enable a ChannelRetry that sends into d (docs/por.md)
        dests = []
        for a in actions:
            if isinstance(a, ChannelDeliver):
                if a.dst not in dests:
                    dests.append(a.dst)
            elif not isinstance(a, ChannelRecover):
                # a ChannelRetry (a workload decision, like the re-drive of a ChannelFail)
                # among them: expand fully (docs/por.md)
                return None
        if len(dests) < 2 and len(dests) == len(actions):
            return None
        if landings_only:
            # condition 1's second form: only a d whose enabled deliveries are all landings
            # (looked at first: it is cheaper than the conditions below)
            dests = [d for d in dests if all(self._lands(state, a) for a in actions
                                             if isinstance(a, ChannelDeliver) and a.dst == d)]
            if not dests:
                return None
        running = [q.name for q in state.qmgrs if q.running]
        chans = {(c.src, c.dst): c for c in state.channels}
        # queue managers with a message waiting for them (on any channel, whatever its
        # status) whose delivery may send something
        loud = {c.dst for c in state.channels if c.dst in running
                and any(not arrives_silently(state, c.dst, m) for m in c.messages)}
        mismatch: bool | None = None
        for d in sorted(dests):
            if any(isinstance(a, ChannelRecover) and d in (a.src, a.dst) for a in actions):
                continue
            # no path outside the set may start a new delivery into d: either nothing that
            # can happen elsewhere sends at all, or whatever is sent to d queues behind a
            # delivery of the set. A message waits behind another only on the same route:
            # so one on the pair's own route, and no separate route to d (a message on one
            # would start a delivery of its own, docs/por.md condition 4)
            if (loud - {d}) and (not all((c := chans.get((e, d))) is not None and first_on(c, "") >= 0
                                         and c.status == "RUNNING" for e in running if e != d)
                                 or _separate_routes_possible(state, d)):
                continue
            # every route out of d with a message waiting is RUNNING: a separate route's own
            # status too (condition 5), which d's workload algorithm reads as well
            if any(c.src == d and c.dst in running
                   and any((st := state.route_status(d, c.dst, r)) in FLOWING and st != "RUNNING"
                           for r in routes_waiting(c))
                   for c in state.channels if c.messages):
                continue
            if mismatch is None:
                mismatch = _port_mismatch_possible(state)
            if mismatch:
                return None
            chosen = tuple(i for i, a in enumerate(actions) if isinstance(a, ChannelDeliver) and a.dst == d)
            if len(chosen) < len(actions):
                return chosen
        return None

    @staticmethod
    def _lands(state: NetworkState, action: ChannelDeliver) -> bool:
        """Is the delivery a *landing* (spec.network.views.LANDING)? Its message — the
        first on its route — is an application message on its first hop (put at the
        sender: ``hops`` is the sender alone), in no logical group, that ``d`` puts to a
        local queue (``lands_locally``; ``ample`` runs only with no mutant set, so
        ``arrive_message`` is unmutated), at the queue manager its handle is bound to if the
        handle is bound (``Handle.bound``), over a route whose status is of the best class
        (INACTIVE or RUNNING: the RUNNING the delivery sets changes no status class, so no
        workload choice anywhere). Each clause is what a catalogue declaration's argument
        needs (properties/*.py, ``stable_under``; docs/por.md)."""
        ch = state.channel(action.src, action.dst)
        i = -1 if ch is None else first_on(ch, action.route)
        if i < 0:
            return False
        msg = ch.messages[i]
        if not isinstance(msg, bd.AppMessage) or msg.hops != (action.src,) or msg.group:
            return False
        if state.route_status(action.src, action.dst, action.route) not in ("INACTIVE", "RUNNING"):
            return False
        if not lands_locally(state, action.dst, msg):
            return False
        opener = handle_qmgr(state, msg.handle)
        if opener:
            h = next(h for h in state.qmgr(opener).handles if h.name == msg.handle)
            if h.bound is not None and h.bound.qmgr != action.dst:
                return False
        return True

    def is_internal(self, action: Any) -> bool:
        # deliveries only: faults and recoveries are the environment's (module docstring)
        return isinstance(action, ChannelDeliver)

    def describe_action(self, action: Any) -> str:
        if isinstance(action, ScenarioStep):
            return f"steps[{action.index}] {describe_step(self.scenario.steps[action.index])}"
        return str(action)

    def describe_action_in(self, state: NetworkState, action: Any) -> str:
        """``describe_action`` with the message a delivery carries (for traces)."""
        if isinstance(action, ChannelDeliver):
            ch = state.channel(action.src, action.dst)
            i = -1 if ch is None else first_on(ch, action.route)
            if i >= 0:
                return f"{action}: {ch.messages[i]}"
        return self.describe_action(action)

    def describe_state(self, state: NetworkState) -> dict:
        return {
            "next_step": state.next_step,
            "clock": state.clock,
            "in_flight": {f"{c.src}->{c.dst}": [str(m) for m in c.messages] for c in state.channels if c.messages},
            "channels": {f"{c.src}->{c.dst}": c.status for c in state.channels if c.status != "INACTIVE"},
            "stopped": [q.name for q in state.qmgrs if not q.running],
            "deliveries": deliveries_of(state),
            "proxy_subscriptions": proxy_subscriptions_of(state),
            # PSMODE(DISABLED): publish/subscribe messages left unprocessed (only when any)
            **({"pubsub_backlog": backlog} if (backlog := backlog_of(state)) else {}),
            "messages": messages_of(state),
            "repositories": repositories_of(state),
            "errors": [f"{e.qmgr} {e.code}" for e in state.log],
            **({} if state.uniform is None else {"applications": apstatus_of(state)["qmgr"]}),
        }


def _take(state: NetworkState, action: ChannelDeliver) -> tuple[NetworkState, Any] | None:
    """The first message of the action's route taken off its channel, which runs; None if
    there is none."""
    ch = state.channel(action.src, action.dst)
    i = -1 if ch is None else first_on(ch, action.route)
    if i < 0:
        return None
    msg, rest = ch.messages[i], ch.messages[:i] + ch.messages[i + 1:]
    if action.route:  # a separate route: its own status runs, the pair's is untouched
        state = set_route_status(set_channel(state, replace(ch, messages=rest)), action.src, action.dst,
                                 action.route, "RUNNING")
    else:
        state = set_channel(state, replace(ch, messages=rest, status="RUNNING"))
    return state, msg


# What the receiving queue manager does with each kind of message a channel carries:
# handler(state, destination, message, step index, mutations) -> state.
_MESSAGE_HANDLERS = {
    rp.RepoMsg: process_repo_message,
    bd.AppMessage: arrive_message,
    pubsub.ProxySubMsg: receive_proxy_subscription,
    pubsub.PublicationMsg: receive_publication,
    **UNIFORM_MESSAGE_HANDLERS,
}


# What a checked property may read (``Property.reads``, as the checker passes it to
# ``ample``) and still let ``ample`` reduce: nothing a delivery could change. Properties
# judged only in settled states ("settled") are left out by the checker (docs/por.md).
POR_INVISIBLE: frozenset[str] = frozenset()


def _joins_unsent(state: NetworkState, name: str) -> bool:
    """Does a running queue manager other than ``name`` hold a manual CLUSSDR, in a cluster
    whose cache it has, whose JOIN it has not sent? Only then can ``retry_joins``, with
    which runmqsc at ``name`` ends, make another queue manager act: a CLUSRCVR the step
    defines may be the listener its CONNAME names. The delivery memo's key leaves out those
    caches, so such a step is not memoised (memo.py)."""
    return any(q.name != name and q.running and any(ch.conname not in cache.joined for cache in q.caches
                                                     for ch in manual_clussdrs(q, cache.cluster))
               for q in state.qmgrs)


def _separate_routes_possible(state: NetworkState, name: str) -> bool:
    """Can a message to ``name`` take a separate route (``spec.binding.separate_routes``),
    now or later in the last phase? Only through a record of one of its further CLUSRCVRs
    (a QMGR record keyed by channel name): held in a cache or in flight, or to be published
    from its definitions (two CLUSRCVRs in one cluster), which no delivery changes. A
    message on a separate route does not queue behind the pair's messages: it starts a
    delivery of its own (docs/por.md condition 4)."""
    q = state.find(name)
    if q is not None:
        clusters = [set(objects.clusters_of(ch, q.defs)) for ch in q.defs.channels if ch.chltype == "CLUSRCVR"]
        if any(a & b for i, a in enumerate(clusters) for b in clusters[i + 1:]):
            return True
    for other in state.qmgrs:
        for c in other.caches:
            if any(r.kind == rp.QMGR and r.key and r.owner_name == name for r in c.records):
                return True
    return any(isinstance(m, rp.RepoMsg) and any(r.kind == rp.QMGR and r.key and r.owner_name == name
                                                 for r in m.records)
               for ch in state.channels for m in ch.messages)


def _port_mismatch_possible(state: NetworkState) -> bool:
    """Could a delivery make an auto-defined CLUSSDR fail (``_auto_defined_fails``: it
    sets another channel's status and holds it), or release one that failed (the record it
    failed on, port-less, is held in a cache)? Only for a CONNAME without a port
    (``listener_port_mismatch``); the CONNAMEs records can carry come from CLUSRCVR
    definitions, which no delivery changes — so: any portless one defined, in a cache or in
    flight."""
    def portless(conname: str) -> bool:
        return bool(conname.strip()) and "(" not in conname

    for q in state.qmgrs:
        if any(ch.chltype == "CLUSRCVR" and portless(ch.conname) for ch in q.defs.channels):
            return True
        for c in q.caches:
            if any(portless(getattr(r.info, "conname", "") or "") for r in c.records if r.kind == rp.QMGR):
                return True
    for ch in state.channels:
        for m in ch.messages:
            if isinstance(m, rp.RepoMsg) and any(
                    portless(getattr(r.info, "conname", "") or "") for r in m.records if r.kind == rp.QMGR):
                return True
    return False


SETTLE_LIMIT = 2000  # the fewest deliveries one settling may take before it is called endless


def settle_limit(state: NetworkState) -> int:
    """How many deliveries :func:`settle` makes before it calls the network endless: at least
    :data:`SETTLE_LIMIT`, more for a large network. A cluster's joining takes deliveries in
    proportion to the queue managers times their cluster memberships (002 §Cluster topics:
    information about cluster topics "is pushed to all members of a cluster", so with a
    cluster topic every member learns of every other), times the full repositories of a
    cluster, each of which forwards every record to the others (000 §WMQ Cluster
    Architecture). Measured with the deterministic scheduler: 2 full repositories and 60
    partial ones with a cluster topic take 3,854 deliveries, 80 take 6,734; two overlapping
    clusters over 64 queue managers 7,690; a full mesh of 30 full repositories 13,949 — all
    far more than 2,000, which a publication loop between two queue managers reaches in
    well under a second (examples/ps-republish-new.toml). The limit here is at least twice
    each of those."""
    n = len(state.qmgrs)
    memberships = sum(len(q.caches) for q in state.qmgrs)
    frs: dict[str, int] = {}
    for q in state.qmgrs:
        for c in q.caches:
            if c.full:
                frs[c.cluster] = frs.get(c.cluster, 0) + 1
    return max(SETTLE_LIMIT, 2 * n * max(n, memberships) * max(frs.values(), default=1))


def settle(model: MQNetwork, state: NetworkState) -> NetworkState:
    """Deliver every in-flight message in a fixed order until nothing can move: the first
    deliverable channel in (source, destination) order, one message at a time. A network
    that is still busy after :func:`settle_limit` deliveries (a publication loop that no
    fingerprint stops, e.g. republishing with MQACTP_NEW) is left as it is, with a
    NOT_SETTLED entry in the log. Before each delivery, channels that can reconnect do
    (:func:`reconnectable`), then RETRYING channels whose retry would re-route a waiting
    message are retried (``ChannelRetry``)."""
    limit = settle_limit(state)
    # One path, which never comes back to a local situation it has left: the delivery memo
    # would only pay for its keys (about an eighth of settling 130 queue managers).
    step = model._unmemoised
    for _ in range(limit):
        if "RETRYING" in map(_STATUS, state.channels):   # else neither recovers nor retries anything
            for recover in reconnectable(state):
                state = step(state, recover)
            for retry in retries(state, model.mutations):
                after = step(state, retry)  # None: an earlier retry already moved them
                state = state if after is None else after
        delivery = next(model.deliveries(state), None)   # the first of actions()'s deliveries
        if delivery is None:
            return state
        state = step(state, delivery)
    if not any(isinstance(a, (ChannelDeliver, ChannelRetry)) for a in model.actions(state)):
        return state
    first = state.qmgrs[0].name if state.qmgrs else ""
    return add_log(state, [LogEntry(first, "NOT_SETTLED", f"messages still in flight after {limit} deliveries "
                                                      f"(an endless publication loop?)", state.next_step - 1)])
