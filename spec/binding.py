"""Bind options, handles, application messages and the network side of workload management.

Sources: 000 §Workload balancing - Bind Options, §When does workload balancing occur?,
§Utilising remote destinations, §Routing messages in and out of clusters (Scenarios 1-5),
§Rank and Overlapping Clusters; 001 (when the algorithm runs); 004 §Pros and cons of
binding, §Channel availability routing; DESIGN §3.5, §3.6.

Everything here is a pure function of plain values; ``spec.network`` moves the messages over
channels and keeps the values in its state. What this module supplies:

- :func:`view_of`: a queue manager's :class:`spec.workload.QmgrView`, built from its cluster
  caches (the records of every cluster it has joined), its own CLUSRCVRs and clustered local
  queues, and the statuses of its channels;
- :func:`resolve_local`: name resolution *before* the algorithm (local QALIAS, QREMOTE and
  queue manager aliases; 000 Scenarios 1-5), which also yields the DEFBIND that
  MQOO_BIND_AS_Q_DEF reads (an alias's own DEFBIND counts: 004 "don't forget aliases");
- :class:`Handle`: an open queue and its binding (MQOO_BIND_ON_OPEN: one choice per handle;
  MQOO_BIND_ON_GROUP: one per logical group; MQOO_BIND_NOT_FIXED: one per put; a named
  target queue manager fixes the destination, 004 "Unless it's fixed for another reason");
- :class:`AppMessage`: a message on a cluster transmission queue, with whether it is bound
  (bound messages are never re-driven) and the queue managers it has passed (a ghost);
- :class:`Decision`: a ghost record of each run of the algorithm — the routes that survived
  001 rules 1-2, computed here independently of ``spec.workload``, and what was chosen — so
  the WL-/BD- properties can check every choice against a naive reference;
- :func:`freeze_history`/:func:`thaw_history`: the algorithm's history as canonical values
  (DestSeqFactor is a Fraction, which the state encoding does not take).

Modelling choices, argued:
- An MQOPEN whose queue is not yet in the cache (a partial repository's first open: 000
  §First MQOPEN of a Queue) does not fail: MQ lets the open succeed and resolves it when the
  repository answers. The ON_OPEN/ON_GROUP choice (and AS_Q_DEF's DEFBIND) is then made at
  the first put. ``mqcheck run`` settles between steps, so the view is complete by then.
- A put through a handle whose queue is still unknown waits while the queue manager's
  repository is exchanging messages (the subscription and its answer); once nothing is in
  flight and the queue is still unknown, it fails with MQRC_UNKNOWN_OBJECT_NAME (logged).
- MQOO_BIND_ON_GROUP for a message outside any group behaves as MQOO_BIND_NOT_FIXED (the
  MQI reference; the seeds say only "one choice per logical message group").
- A message arriving over a cluster channel for a queue the receiving queue manager hosts
  as a QLOCAL is put to it, whatever rank says (DESIGN §3.5; 000 §Utilising remote
  destinations: "Any messages received by a cluster channel will be put to a local queue
  if one exists in order to avoid looping round the cluster"); if that queue is
  PUT(DISABLED) the message is dead-lettered and MQRC_PUT_INHIBITED logged. A message
  naming the receiving queue manager is put to its local queue the same way (DESIGN §3.6);
  if it defines no object of that name the message is dead-lettered
  (MQRC_UNKNOWN_OBJECT_NAME), never sent on, and an MQOPEN naming the opening queue
  manager itself fails the same way. Only when the name goes through an alias here (a
  queue manager alias, a clustered QALIAS or QREMOTE) or no local instance exists does the
  algorithm run again, with "arrived over a cluster channel", the alias itself not being
  a local instance (000 §Rank and Overlapping Clusters: gateways with alias queues can
  bounce a message between them unless rank settles it); "no local instance" applies to a
  message that does not name the receiving queue manager and is not bound: a bound one that
  finds nothing of its queue's name (deleted on the way) is dead-lettered
  (MQRC_UNKNOWN_OBJECT_NAME; 004 §Pros and cons of binding: "it won't be rebalanced, but it
  could be DLQd"). So a bound or named message never changes destination at the far end.
- A channel that has to start for a message towards a stopped or deleted queue manager
  cannot connect and enters RETRYING (until a ``channel`` step or the checker's recovery
  sets it running). Re-driving happens when a channel *enters* RETRYING (that, a fault or
  a ``channel`` step), as 000 §When does workload balancing occur? describes: its unbound
  messages run through the algorithm again, which now sees the channel RETRYING.
- A message that has passed ``hop_limit`` queue managers is dead-lettered and logged
  (HOP_LIMIT): MQ has no such limit, but an exploration needs every path to be finite; the
  limit is far above any path a settled configuration takes.
"""

from __future__ import annotations

from dataclasses import field
from fractions import Fraction
from typing import Any

from spec import objects, repository as rp
from spec import workload as wl
from spec.values import replace, value

__all__ = [
    "BIND_ON_OPEN", "BIND_NOT_FIXED", "BIND_ON_GROUP", "BIND_AS_Q_DEF",
    "Handle", "AppMessage", "Candidate", "Decision", "Resolved",
    "bind_from_defbind", "resolve_local", "view_of", "candidates", "decide",
    "freeze_history", "thaw_history", "FrozenHistory", "status_class",
    "route_key", "split_route_key", "separate_routes",
]

BIND_ON_OPEN, BIND_NOT_FIXED, BIND_ON_GROUP, BIND_AS_Q_DEF = "ON_OPEN", "NOT_FIXED", "ON_GROUP", "AS_Q_DEF"
_DEFBIND_TO_BIND = {"OPEN": BIND_ON_OPEN, "NOTFIXED": BIND_NOT_FIXED, "GROUP": BIND_ON_GROUP}


def bind_from_defbind(defbind: str) -> str:
    """MQOO_BIND_AS_Q_DEF: the queue's DEFBIND as a bind option (000 §Workload balancing -
    Bind Options: DEFBIND OPEN is the default).

    >>> bind_from_defbind("NOTFIXED"), bind_from_defbind("OPEN")
    ('NOT_FIXED', 'ON_OPEN')
    """
    return _DEFBIND_TO_BIND[defbind]


def status_class(status: str) -> int:
    """0 for INACTIVE/RUNNING ... 3 for REQUESTING/PAUSED/STOPPED/SWITCHING (001 rules 8-11)."""
    s = wl.ChannelStatus(status)
    return next(i for i, members in enumerate(wl.STATUS_CLASSES) if s in members)


# ---------------------------------------------------------------------------------------
# History as canonical values
# ---------------------------------------------------------------------------------------
@value
class FrozenHistory:
    """:class:`spec.workload.History` with each DestSeqFactor as (numerator, denominator)."""

    channels: tuple[tuple[str, str, int, int, int], ...] = ()  # qmgr, channel, num, den, DestSeqNumber
    last_number: int = 0
    observed: tuple[tuple[str, str, tuple[int, int, int, int]], ...] = ()


def freeze_history(h: wl.History) -> FrozenHistory:
    return FrozenHistory(tuple((u.qmgr, u.channel, u.factor.numerator, u.factor.denominator, u.number)
                               for u in h.channels), h.last_number, h.observed)


def thaw_history(f: FrozenHistory) -> wl.History:
    return wl.History(tuple(wl.ChannelUse(q, c, Fraction(n, d), number) for q, c, n, d, number in f.channels),
                      f.last_number, f.observed)


# ---------------------------------------------------------------------------------------
# Handles and messages
# ---------------------------------------------------------------------------------------
@value
class Handle:
    """An open queue at ``qmgr`` (the scenario's ``handle`` id).

    ``option`` is what the application asked (AS_Q_DEF, ON_OPEN, NOT_FIXED, ON_GROUP);
    ``bind`` what it means once resolved ("" until the first choice: see the module
    docstring); ``bound`` the destination of an ON_OPEN handle or of the current group of an
    ON_GROUP handle (``group``); ``puts`` how many messages were put (the next serial)."""

    name: str
    qmgr: str
    queue: str  # the object name opened
    target_qmgr: str = ""
    option: str = BIND_AS_Q_DEF
    bind: str = ""
    bound: wl.Destination | None = None
    group: str = ""
    puts: int = 0
    closed: bool = False
    failed: str = ""  # the MQOPEN failed with this reason: the handle is not valid (puts fail)
    arrived: tuple[tuple[str, int], ...] = ()  # (queue manager, count) of its messages put to local queues, ever
    # a ghost for BD-AS-Q-DEF: the DEFBINDs MQOO_BIND_AS_Q_DEF could read when the bind was
    # resolved, ("", DEFBIND) of the local definition the name resolved through first, then
    # (queue manager, DEFBIND) of each instance known; later changes do not move the bind
    defbinds: tuple[tuple[str, str], ...] = ()


@value
class AppMessage:
    """An application message on a cluster transmission queue.

    ``queue``/``target_qmgr`` are the names it is addressed to after resolution at the
    queue manager that sent it; ``bound``: its destination may not change (ON_OPEN, a
    group, or a named queue manager) so it is never re-driven; ``hops``: the queue managers
    it has been put at, in order (a ghost for WL-NO-BOUNCE-WITH-RANK)."""

    handle: str
    serial: int
    queue: str
    target_qmgr: str = ""
    bound: bool = False
    group: str = ""
    hops: tuple[str, ...] = ()
    p2p: bool = False  # on a point-to-point (SDR/RCVR) channel, not a cluster channel
    # the route chosen, when it is one of several to its destination (:func:`separate_routes`):
    # the name of that route's CLUSSDR; "" for the pair's channel (the only route of a queue
    # manager with one CLUSRCVR in the cluster)
    route: str = ""
    _digest: bytes | None = field(default=None, init=False, repr=False, compare=False)  # spec.encoding.DIGEST_FIELD

    def __str__(self) -> str:
        to = f"{self.queue}@{self.target_qmgr}" if self.target_qmgr else self.queue
        via = f" on route {self.route}" if self.route else ""
        return (f"MSG {self.handle}#{self.serial} to {to}{' (bound)' if self.bound else ''}"
                f" via {'>'.join(self.hops)}{via}")


@value
class Candidate:
    """A route that survived 001 rules 1-2 (a ghost, computed independently of
    ``spec.workload``) with the attributes the later rules read."""

    qmgr: str
    channel: str
    local: bool
    channel_rank: int
    queue_rank: int
    put_enabled: bool
    status_class: int
    suspended: bool
    channel_prty: int
    queue_prty: int
    weight: int


# The ``reason`` of a re-drive's ghost decision when the algorithm's pick is no better than
# the RETRYING channel the message waits for (000 §Workload management features: with all
# channels in RETRY the messages "will have to wait on the transmission queue"): ``chosen``
# is where it waits, ``finalists`` what the algorithm picked among; nothing was chosen,
# sent or charged (``spec.network.workload._waits_after_redrive``).
REDRIVE_WAITS = "no available destination: it waits for its channel"


@value
class Decision:
    """A ghost record of one run of the algorithm at ``qmgr`` for a message of ``handle``.

    ``chosen`` is (queue manager, channel, local) or None with ``reason``; ``finalists`` the
    (queue manager, channel, CLWLWGHT) left after rule 15; ``redrive``: the message was on a
    transmission queue whose channel entered RETRYING; ``fresh``: the history had no use of
    any channel before this choice (for WL-WEIGHTS' exact counts)."""

    handle: str
    serial: int
    qmgr: str
    queue: str
    bind: str
    via_cluster_channel: bool
    useq: str  # the effective CLWLUSEQ of the local instance ("" when there is none)
    clwlmruc: int
    candidates: tuple[Candidate, ...]
    chosen: tuple[str, str, bool] | None
    reason: str
    finalists: tuple[tuple[str, str, int], ...] = ()
    redrive: bool = False
    fresh: bool = False
    named: bool = False  # a queue manager was named (rank, status and USEQ checks do not apply)
    away_from: str = ""  # redrive: the queue manager the RETRYING channel leads to
    # the message arrived over a channel and a name it carried is an alias here (its queue a
    # QALIAS or QREMOTE, 000 §Routing messages in and out of clusters Scenario 4; the queue
    # manager it names a queue manager alias, Scenario 5): name resolution, not a put that
    # found no queue, ran the algorithm again (BD-ON-OPEN-FIXED, BD-TARGET-FIXED excuse only this)
    through_alias: bool = False


@value
class Resolved:
    """What a name resolves to at one queue manager: ``local`` (put to ``queue`` here),
    ``cluster`` (run the algorithm for ``queue``/``target_qmgr``), ``xmitq`` (put to the
    transmission queue ``xmitq`` with a header naming ``queue`` at ``target_qmgr``: a
    point-to-point route, 000 Scenarios 1-3), or ``error`` (``reason``). ``defbind`` is the DEFBIND of the object opened (its first local
    definition, an alias's own); "" when no local object was involved."""

    kind: str
    queue: str
    target_qmgr: str = ""
    defbind: str = ""
    reason: str = ""
    exclude_local: bool = False  # an alias resolved to its own name: it is not the local instance
    xmitq: str = ""  # kind "xmitq": put to this transmission queue, addressed (queue, target_qmgr)


def resolve_local(defs: objects.QueueManagerDef, qmgr: str, queue: str, target_qmgr: str = "",
                  joined: frozenset[str] | None = None) -> Resolved:
    """Local name resolution at ``qmgr`` before the algorithm (000 §Routing messages in
    and out of clusters; 'Name resolution' in the MQ manuals). ``joined``: the clusters
    ``qmgr`` is a member of (None: all its queues' clusters); a QLOCAL in none of them is
    just a local queue. A name that resolves to ``qmgr`` itself (ObjectQmgrName is ``qmgr``,
    or a queue manager alias here maps it to ``qmgr``) fixes the destination: a clustered
    QLOCAL reached that way is ``local``, not an instance competing in the algorithm
    (DESIGN §3.6; 000 Scenario 1 "Now our app can put to CQ1 on QMB").

    >>> from spec.mqsc import parse
    >>> qm, _ = objects.apply_commands(objects.QueueManagerDef("QMA"), parse(
    ...     "DEFINE QREMOTE(CQM) RNAME(' ') RQMNAME(' ')\\nDEFINE QALIAS(A1) TARGET(CQ1) DEFBIND(NOTFIXED)"))
    >>> resolve_local(qm, "QMA", "CQ1", "CQM")           # 000 Scenario 3: the name goes
    Resolved(kind='cluster', queue='CQ1', target_qmgr='', defbind='', reason='', exclude_local=False, xmitq='')
    >>> resolve_local(qm, "QMA", "A1").defbind          # an alias's own DEFBIND
    'NOTFIXED'
    """
    defbind = ""
    seen: set[tuple[str, str, bool]] = set()
    exclude = False
    here = False  # the name resolved to this queue manager: its destination is fixed here
    while True:
        if (queue, target_qmgr, exclude) in seen:
            return Resolved("error", queue, target_qmgr, defbind, "MQRC_ALIAS_BASE_Q_TYPE_ERROR")
        seen.add((queue, target_qmgr, exclude))
        if target_qmgr == qmgr:
            # DESIGN §3.6 "Naming a target queue manager fixes the destination"; 000
            # Scenario 1 "Now our app can put to CQ1 on QMB": a local queue, no algorithm
            target_qmgr, here = "", True
        if target_qmgr:
            # MQ name resolution of ObjectQmgrName X (000 §Routing messages in and out of
            # clusters): a queue manager alias or remote queue manager definition QREMOTE(X),
            # else a transmission queue named X, else the cluster
            alias = defs.queue(target_qmgr)
            if alias is not None and alias.is_qmgr_alias:
                # QREMOTE(X) RNAME(' ') RQMNAME(Y) [XMITQ(T)] maps X to Y (blank: none) and,
                # with XMITQ, sends through T (000 Scenario 1: QREMOTE(QMB) ... XMITQ(QMA))
                if alias.xmitq:
                    return Resolved("xmitq", queue, alias.rqmname or target_qmgr, defbind, xmitq=alias.xmitq)
                if alias.rqmname != target_qmgr:
                    target_qmgr = alias.rqmname
                    continue
            elif alias is not None and alias.qtype == "QLOCAL" and alias.usage == "XMITQ":
                return Resolved("xmitq", queue, target_qmgr, defbind, xmitq=alias.name)
            return Resolved("cluster", queue, target_qmgr, defbind)
        obj = defs.queue(queue)
        if obj is None and here and not exclude:
            # ObjectQmgrName names this queue manager (or an alias of it) and no object of
            # that name is defined here: name resolution looks only at this queue manager's
            # own definitions, so the cluster's instances elsewhere are not candidates
            # (MQRC_UNKNOWN_OBJECT_NAME; at the far end the receiving channel puts the
            # message to the dead-letter queue). The seeds are silent on the failure; they
            # fix the destination: 000 §Routing messages in and out of clusters Scenario 1
            # ("Now our app can put to CQ1 on QMB") and DESIGN §3.6. Without this a message
            # named for QM1 was sent on to another queue manager's clustered alias — back
            # to where it came from (docs/decisions.md "Session 30: a message named for a
            # queue manager that lacks the queue").
            return Resolved("error", queue, "", defbind, "MQRC_UNKNOWN_OBJECT_NAME")
        if obj is None or (exclude and obj.qtype != "QLOCAL"):
            return Resolved("cluster", queue, "", defbind, exclude_local=exclude)
        defbind = defbind or obj.defbind
        if obj.qtype == "QLOCAL":
            if obj.usage == "XMITQ":
                return Resolved("error", queue, "", defbind, "MQRC_UNKNOWN_OBJECT_NAME")
            clusters = set(objects.clusters_of(obj, defs))
            if not here and (clusters if joined is None else clusters & joined):
                return Resolved("cluster", queue, "", defbind)  # the local instance competes (rule 6)
            return Resolved("local", queue, "", defbind)
        if obj.qtype == "QALIAS":
            if obj.target == queue:
                # a gateway's clustered alias for the cluster queue of the same name: the
                # name goes on to the cluster (000 §Rank and Overlapping Clusters)
                exclude = True
                continue
            queue = obj.target
            continue
        # QREMOTE with RNAME: a remote queue definition
        if not obj.rname:
            return Resolved("error", queue, "", defbind, "MQRC_UNKNOWN_OBJECT_NAME")
        if obj.rname == queue and not obj.rqmname:
            exclude = True
            continue
        if obj.xmitq:  # a remote queue definition with its own transmission queue
            return Resolved("xmitq", obj.rname, obj.rqmname, defbind, xmitq=obj.xmitq)
        queue, target_qmgr = obj.rname, obj.rqmname


# ---------------------------------------------------------------------------------------
# The view (DESIGN §3.5: what the network model supplies to the algorithm)
# ---------------------------------------------------------------------------------------
def local_receiver_key(qmgr: str, channel: str) -> str:
    """Where the network keeps the status of ``qmgr``'s own CLUSRCVR ``channel`` (STOP/START
    CHANNEL at ``qmgr``) among its channels' statuses: ``:`` is not allowed in MQ names,
    so the key cannot be a queue manager's."""
    return f"{qmgr}:{channel}"


def route_key(qmgr: str, channel: str) -> str:
    """Where the network keeps the status of a separate route (:func:`separate_routes`):
    the CLUSSDR ``channel`` to ``qmgr``, among the sender's channels' statuses. ``>`` is
    not allowed in MQ names, so the key is neither a queue manager's nor a
    :func:`local_receiver_key`."""
    return f"{qmgr}>{channel}"


def split_route_key(key: str) -> tuple[str, str]:
    """(queue manager, channel) of a :func:`route_key`; (key, "") for a plain destination."""
    qmgr, _, channel = key.partition(">")
    return qmgr, channel


def separate_routes(q: Any) -> frozenset[tuple[str, str]]:
    """The routes from ``q`` that have a channel status of their own: (queue manager,
    channel) of every further CLUSRCVR of another queue manager that ``q``'s caches hold a
    record of (keyed by its channel name, ``spec.repository.ClusterCache.qmgr_record_of``)
    and that is not the queue manager's own record (its first CLUSRCVR) in any cluster.
    Every other route to a queue manager — its first CLUSRCVR's auto-defined CLUSSDR, a
    manual CLUSSDR — is the pair's channel (``spec.network.state.Channel``): so a queue
    manager with one CLUSRCVR per cluster has no separate route, and nothing changes for
    it (docs/decisions.md, Issue #18 (round 2))."""
    keyed: set[tuple[str, str]] = set()
    primary: set[tuple[str, str]] = set()
    for cache in q.caches:
        for r in cache.qmgr_records():
            if r.owner_name != q.name:
                (keyed if r.key else primary).add((r.owner_name, r.info.channel))
    return frozenset(keyed - primary)


def view_of(q: Any, status_of: dict[str, str], exclude_local: bool = False) -> wl.QmgrView:
    """The view of queue manager ``q`` (a ``spec.network.QmgrState``): its cluster caches'
    live records of others, its own CLUSRCVRs and clustered QLOCALs, and ``status_of``
    (destination queue manager -> status of q's channel to it; :func:`route_key` -> status
    of a separate route; missing = INACTIVE)."""
    defs = q.defs
    joined = {c.cluster for c in q.caches}
    own_suspended = set()
    for c in q.caches:
        rec = c.get((rp.QMGR, c.cluster, q.qmid, ""))
        if rec is not None and not rec.deleted and rec.info.suspended:
            own_suspended.add(c.cluster)
    local_receivers = []
    for ch in defs.channels:
        if ch.chltype != "CLUSRCVR":
            continue
        clusters = tuple(c for c in objects.clusters_of(ch, defs) if c in joined)
        if clusters:
            # SUSPEND QMGR CLUSTER(X) is per cluster (spec/workload.py ClusterReceiver)
            off = tuple(c for c in clusters if c in own_suspended)
            local_receivers.append(wl.ClusterReceiver(q.name, ch.name, clusters, ch.clwlwght, ch.clwlrank,
                                                      ch.clwlprty, ch.netprty, bool(off), off))
    receivers: dict[tuple[str, str], wl.ClusterReceiver] = {}
    queues: dict[tuple[str, str], wl.QueueInstance] = {}
    aliases: dict[tuple[str, str], wl.QmgrAlias] = {}
    for cache in q.caches:
        for r in cache.live():
            if r.owner_name == q.name:
                continue
            if r.kind == rp.QMGR:
                i = r.info
                key = (r.owner_name, i.channel)
                old = receivers.get(key)
                # one record per cluster, each with its own SUSPEND flag: SUSPEND QMGR
                # CLUSTER(X) suspends it from X only (001 rule 7 reads it per route)
                off = (cache.cluster,) if i.suspended else ()
                if old is None:
                    receivers[key] = wl.ClusterReceiver(r.owner_name, i.channel, (cache.cluster,), i.clwlwght,
                                                        i.clwlrank, i.clwlprty, i.netprty, i.suspended, off)
                else:
                    receivers[key] = replace(old, clusters=old.clusters + (cache.cluster,),
                                             suspended=old.suspended or i.suspended,
                                             suspended_in=old.suspended_in + off)
            elif r.kind == rp.QUEUE:
                i = r.info
                key = (r.owner_name, r.key)
                put = i.put == "ENABLED"
                if getattr(i, "qmgr_alias", False):
                    old = aliases.get(key)
                    aliases[key] = (replace(old, clusters=old.clusters + (cache.cluster,)) if old else
                                    wl.QmgrAlias(r.owner_name, r.key, (cache.cluster,), put, i.clwlrank, i.clwlprty))
                else:
                    old = queues.get(key)
                    queues[key] = (replace(old, clusters=old.clusters + (cache.cluster,)) if old else
                                   wl.QueueInstance(r.owner_name, r.key, (cache.cluster,), put, i.clwlrank,
                                                    i.clwlprty, defbind=i.defbind))
    local_queues = []
    if not exclude_local:
        for queue in defs.queues:
            clusters = tuple(c for c in objects.clusters_of(queue, defs) if c in joined)
            if queue.qtype == "QLOCAL" and clusters:
                local_queues.append(wl.QueueInstance(q.name, queue.name, clusters, queue.put == "ENABLED",
                                                     queue.clwlrank, queue.clwlprty, queue.clwluseq, queue.defbind))
    # a separate route has its own status (000 §Workload management features: "The higher
    # network priority route is always used when it's channel is in a good state"); every
    # other route to a queue manager is the pair's channel
    separate = separate_routes(q)
    statuses = tuple(wl.ChannelState(r.qmgr, r.channel,
                                     status_of.get(route_key(r.qmgr, r.channel), "INACTIVE") if r.key in separate
                                     else status_of.get(r.qmgr, "INACTIVE"))
                     for r in sorted(receivers.values(), key=lambda r: r.key))
    # 001 rule 6: with CLWLUSEQ(ANY) "the local queue is chosen, based on the status of the
    # locally-defined CLUSRCVR channels in the same cluster as the queue"
    statuses += tuple(wl.ChannelState(r.qmgr, r.channel, status_of[local_receiver_key(r.qmgr, r.channel)])
                      for r in local_receivers if local_receiver_key(r.qmgr, r.channel) in status_of)
    return wl.QmgrView(q.name, tuple(local_receivers), tuple(sorted(receivers.values(), key=lambda r: r.key)),
                       tuple(sorted(queues.values(), key=lambda x: (x.qmgr, x.name))),
                       tuple(sorted(aliases.values(), key=lambda x: (x.qmgr, x.name))),
                       tuple(local_queues), statuses, defs.clwluseq, defs.clwlmruc)


def candidates(view: wl.QmgrView, put: wl.Put) -> tuple[Candidate, ...]:
    """The routes that survive 001 rules 1-2: a naive reference, written apart from
    ``spec.workload``, for the WL- properties (queue puts only; a named queue manager gives
    its routes with queue attributes at their defaults)."""
    mine = view.clusters
    out = []
    if put.target_qmgr:
        for r in view.receivers:
            named = r.qmgr == put.target_qmgr or any(a.qmgr == r.qmgr and a.name == put.target_qmgr
                                                      for a in view.aliases)
            if named and mine & set(r.clusters):
                out.append(_candidate(view, r, None, False))
        return tuple(out)
    for qi in view.queues:
        if qi.name != put.object_name or qi.qmgr == view.qmgr or not mine & set(qi.clusters):
            continue
        for r in view.receivers:
            if r.qmgr == qi.qmgr and mine & set(r.clusters) and set(r.clusters) & set(qi.clusters):
                out.append(_candidate(view, r, qi, False))
    local = view.local_queue(put.object_name)
    if local is not None:
        for r in view.local_receivers:
            if set(r.clusters) & set(local.clusters):
                out.append(_candidate(view, r, local, True))
    return tuple(sorted(out, key=lambda c: (c.qmgr, c.channel, c.local)))


def _candidate(view: wl.QmgrView, r: wl.ClusterReceiver, qi: wl.QueueInstance | None, local: bool) -> Candidate:
    # suspended: from every cluster this route goes through (the channel's, the queue's, and
    # for a remote route the putting queue manager's); SUSPEND QMGR CLUSTER(X) is per cluster
    via = set(r.clusters) & (set(qi.clusters) if qi else set(r.clusters))
    if not local:
        via &= view.clusters
    suspended = set(via) <= set(r.suspended_in) if via else r.suspended
    return Candidate(r.qmgr, r.channel, local, r.clwlrank, qi.clwlrank if qi else 0,
                     qi.put_enabled if qi else True, status_class(view.status(*r.key)), suspended,
                     r.clwlprty, qi.clwlprty if qi else 0, r.clwlwght)


def decide(view: wl.QmgrView, put: wl.Put, history: wl.History, handle: str, serial: int, bind: str,
           redrive: bool = False, choose_view: wl.QmgrView | None = None, away_from: str = ""
           ) -> tuple[wl.Choice, Decision]:
    """Run the algorithm once and record the ghost :class:`Decision` beside it (from
    ``view``; ``choose_view`` is what a mutant algorithm sees instead, tests only)."""
    choice = wl.choose(choose_view or view, put, history)
    local = view.local_queue(put.object_name)
    useq = "" if local is None else (view.clwluseq if local.clwluseq == "QMGR" else local.clwluseq)
    d = choice.destination
    decision = Decision(
        handle, serial, view.qmgr, put.object_name, bind, put.via_cluster_channel, useq, view.clwlmruc,
        candidates(view, put), None if d is None else (d.qmgr, d.channel, d.local), str(choice.reason),
        tuple((f.qmgr, f.channel, _weight(view, f.qmgr, f.channel)) for f in choice.finalists),
        redrive, not any(u.number for u in history.channels), bool(put.target_qmgr), away_from)
    return choice, decision


def _weight(view: wl.QmgrView, qmgr: str, channel: str) -> int:
    for r in view.all_receivers():
        if r.key == (qmgr, channel):
            return r.clwlwght
    return wl.CLWLWGHT_DEFAULT
