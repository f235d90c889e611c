"""The whole network of queue managers as one transition system (DESIGN §1, §2.1, §2.3).

State (:class:`NetworkState`):
- ``qmgrs``: per queue manager its object definitions (``spec.objects``), whether it is
  running, its incarnation (QMID = name + incarnation: a deleted and recreated queue
  manager is a different queue manager to the cluster — 000 §Incorrectly deleted queue
  managers), its publish/subscribe state (``spec.pubsub``) and its cluster caches
  (``spec.repository``), one per cluster;
- ``channels``: one FIFO per directed queue-manager pair, the contents of the sender's
  SYSTEM.CLUSTER.TRANSMIT.QUEUE for that destination (003 §Cluster transmission queue),
  with the channel's status;
- ``clock``: scenario days (for republishing and expiry); ``next_step``: the next scenario
  step; ``log``: the error log; ``faults``: the fault budget left.

Actions, named actor-then-verb:
- ``ScenarioStep(i)`` — an administrator or application performs step ``i`` (external; in
  order);
- ``ChannelDeliver(src, dst)`` — the head message of a channel arrives and the receiving
  repository task processes it (internal);
- ``ChannelFail(src, dst)`` / ``ChannelRecover(src, dst)`` — a fault: the channel goes to
  RETRYING and back; ``QmgrStop(name)`` / ``QmgrStart(name)`` — a queue manager stops and
  restarts (only when the scenario's ``[check] faults`` or ``--faults N`` allows: each
  failure spends one unit of the budget, recoveries spend none). Faults and recoveries are
  the environment's doing, like scenario steps (external): quiescence and termination are
  about message deliveries only, so a settled state is judged even while a fault could
  still be injected, and a fail/recover cycle is not an endless run. A RETRYING channel
  recovers by itself (a fault's, or one that could not reach a stopped queue manager),
  except when a scenario step set its status: that stays until a later step changes it
  (``mqcheck run`` and ``check`` agree).

Modelling choices, argued: a channel delivers only when both ends run and its status
lets messages flow; messages are never lost in transit (MQ's assured delivery), only when
an administrator clears a transmission queue; a repository message is processed as soon as
it arrives (SYSTEM.CLUSTER.COMMAND.QUEUE is read at once); the repository cache survives a
stop and start. :class:`MQNetwork` implements ``checker.model.Model`` structurally.

Publish/subscribe between queue managers (proxy subscriptions, publication forwarding,
fingerprints, republishing applications) is the section "distributed publish/subscribe"
at the end, with its rules in ``spec.pubsub``.

Application messages are the section "workload management and bind options" at the end:
MQOPEN/MQPUT/MQCLOSE make handles and put messages, ``spec.workload`` chooses where they go
under the bind options of ``spec.binding``, they travel as ``AppMessage`` on the same
channels, and the receiving queue manager puts them to its local queue or runs the
algorithm again (gateways, aliases).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from spec import binding as bd, objects, pubsub, repository as rp, scenario as sc, workload as wl
from spec.encoding import canonical_bytes
from spec.pubsub import LocalPubSub, Publication
from spec.topic_tree import TopicSpace
from spec.topics import TopicStringError, join_topic

INITIAL = -1  # the step index of log entries made before the first scenario step
FLOWING = ("RUNNING", "INACTIVE", "BINDING", "INITIALIZING", "STARTING")  # a message can move


@dataclass(frozen=True, slots=True)
class LogEntry:
    """An error-log entry or a failed call: ``step`` is the scenario step (INITIAL before
    the first), ``code`` an AMQ message number, an MQRC reason, or a short name."""

    qmgr: str
    code: str
    detail: str
    step: int


@dataclass(frozen=True, slots=True)
class QmgrState:
    """One queue manager."""

    name: str
    defs: objects.QueueManagerDef
    pubsub: LocalPubSub
    published: int = 0  # publications its applications made (serial of the next)
    incarnation: int = 1
    running: bool = True
    seq: int = 0  # the sequence number of its last published cluster record
    caches: tuple[rp.ClusterCache, ...] = ()  # sorted by cluster
    # workload management and bind options (issue #7; spec/binding.py):
    handles: tuple[bd.Handle, ...] = ()  # queues its applications opened, sorted by handle name
    wl_history: bd.FrozenHistory = bd.FrozenHistory()  # MQWDR DestSeqFactor/DestSeqNumber per channel
    arrivals: tuple[tuple[str, str, str, int], ...] = ()  # (handle, queue, group, count) put to local queues here
    decisions: tuple[bd.Decision, ...] = ()  # ghost: every run of the algorithm here, in order
    explained: tuple[tuple[int, int, str, int, str, str, tuple[str, ...]], ...] = ()  # --explain: order, step, handle, serial, qmgr, what, lines

    @property
    def qmid(self) -> str:
        return f"{self.name}_{self.incarnation}"

    def cache(self, cluster: str) -> rp.ClusterCache | None:
        for c in self.caches:
            if c.cluster == cluster:
                return c
        return None


@dataclass(frozen=True, slots=True)
class Channel:
    """The messages waiting from ``src`` for ``dst`` (FIFO), and the channel's status."""

    src: str
    dst: str
    status: str = "INACTIVE"
    messages: tuple[Any, ...] = ()


@dataclass(frozen=True, slots=True, eq=False)
class NetworkState:
    """The network (see the module docstring). Equality and hashing go through the
    canonical encoding, which is memoised per object: checkers keep states in hashed
    sets, and hashing a deep tree of dataclasses field by field on every lookup costs more
    than the whole transition."""

    qmgrs: tuple[QmgrState, ...]
    channels: tuple[Channel, ...] = ()
    next_step: int = 0
    logs: tuple[tuple[str, tuple[LogEntry, ...]], ...] = ()  # per queue manager, sorted by name
    clock: int = 0
    faults: int = 0  # failures the checker may still inject
    stopped_by_fault: tuple[str, ...] = ()  # queue managers a fault stopped (they may restart)
    held_by_step: tuple[tuple[str, str], ...] = ()  # channels whose status a scenario step set (no auto-recovery)

    @property
    def log(self) -> tuple[LogEntry, ...]:
        """Every log entry, by step, then queue manager (each queue manager's in its order).

        Kept per queue manager in the state so that deliveries at different queue managers
        commute: the order in which two independent queue managers log does not make two
        states different."""
        entries = [e for _, per_qmgr in self.logs for e in per_qmgr]
        return tuple(sorted(entries, key=lambda e: e.step))

    def __hash__(self) -> int:
        return hash(canonical_bytes(self))

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if not isinstance(other, NetworkState):
            return NotImplemented
        return canonical_bytes(self) == canonical_bytes(other)

    def qmgr(self, name: str) -> QmgrState:
        for q in self.qmgrs:
            if q.name == name:
                return q
        raise KeyError(name)

    def find(self, name: str) -> QmgrState | None:
        for q in self.qmgrs:
            if q.name == name:
                return q
        return None

    def channel(self, src: str, dst: str) -> Channel | None:
        for ch in self.channels:
            if ch.src == src and ch.dst == dst:
                return ch
        return None

    def in_flight(self) -> int:
        return sum(len(ch.messages) for ch in self.channels)


# ---------------------------------------------------------------------------- actions
@dataclass(frozen=True, slots=True)
class ScenarioStep:
    """An administrator or application performs scenario step ``index``."""

    index: int

    def __str__(self) -> str:
        return f"ScenarioStep({self.index})"


@dataclass(frozen=True, slots=True)
class ChannelDeliver:
    """The head message on the channel from ``src`` to ``dst`` arrives and is processed."""

    src: str
    dst: str

    def __str__(self) -> str:
        return f"ChannelDeliver({self.src}->{self.dst})"


@dataclass(frozen=True, slots=True)
class ChannelFail:
    """Fault: the channel from ``src`` to ``dst`` goes into RETRYING."""

    src: str
    dst: str

    def __str__(self) -> str:
        return f"ChannelFail({self.src}->{self.dst})"


@dataclass(frozen=True, slots=True)
class ChannelRecover:
    """The channel from ``src`` to ``dst`` leaves RETRYING and runs again."""

    src: str
    dst: str

    def __str__(self) -> str:
        return f"ChannelRecover({self.src}->{self.dst})"


@dataclass(frozen=True, slots=True)
class QmgrStop:
    """Fault: queue manager ``name`` stops (endmqm); its channels stop with it."""

    name: str

    def __str__(self) -> str:
        return f"QmgrStop({self.name})"


@dataclass(frozen=True, slots=True)
class QmgrStart:
    """Queue manager ``name``, stopped by a fault, starts again (strmqm)."""

    name: str

    def __str__(self) -> str:
        return f"QmgrStart({self.name})"


# A mutant switch for tests: each flag breaks one documented rule on purpose, so tests can
# show the checker catches it (DESIGN §5 "Mutants"). Never set outside tests.
@dataclass(frozen=True, slots=True)
class Mutations:
    ignore_sequence_numbers: bool = False
    publish_to_one_fr: bool = False
    fr_forwarding_swapped: bool = False  # FRs re-forward records from FRs, not from PRs
    no_fingerprint_check: bool = False  # a publication that already visited a queue manager is accepted again
    relay_within_cluster: bool = False  # proxies/publications from a cluster member are relayed to its members
    ignore_subscope_remote: bool = False  # remote publications reach SUBSCOPE(QMGR) subscriptions
    no_proxy_aggregation: bool = False  # one proxy subscription per subscription, one copy per proxy
    rank_after_status: bool = False  # workload: channel status filters before rank (001 rules 3-4 vs 8-11)
    weight_ignored: bool = False  # workload: every CLWLWGHT treated as 50
    redrive_bound_messages: bool = False  # bind: bound messages re-driven when their channel retries
    far_end_reruns: bool = False  # workload: the receiving end runs the algorithm despite a local instance
    explain: bool = False  # not a mutant: record each choice's explanation (mqcheck run --explain)


NO_MUTATIONS = Mutations()

_UNMODELLED_STEPS = {
}
_UNMODELLED_OPERATIONS = {
}


# ------------------------------------------------------------------- small helpers
def _log(state: NetworkState, entries: Sequence[LogEntry]) -> NetworkState:
    if not entries:
        return state
    logs = dict(state.logs)
    for e in entries:
        logs[e.qmgr] = logs.get(e.qmgr, ()) + (e,)
    return replace(state, logs=tuple(sorted(logs.items())))


def _put_qmgr(state: NetworkState, q: QmgrState) -> NetworkState:
    return replace(state, qmgrs=tuple(q if old.name == q.name else old for old in state.qmgrs))


def _put_cache(q: QmgrState, cache: rp.ClusterCache) -> QmgrState:
    rest = tuple(c for c in q.caches if c.cluster != cache.cluster)
    return replace(q, caches=tuple(sorted(rest + (cache,), key=lambda c: c.cluster)))


def _send(state: NetworkState, src: str, dst: str, msg: Any) -> NetworkState:
    """Put a message on ``src``'s transmission queue for ``dst``."""
    if src == dst:
        return state
    ch = state.channel(src, dst)
    if ch is None:
        new = Channel(src, dst, "INACTIVE", (msg,))
        channels = tuple(sorted(state.channels + (new,), key=lambda c: (c.src, c.dst)))
        return replace(state, channels=channels)
    channels = tuple(replace(c, messages=c.messages + (msg,)) if c is ch else c for c in state.channels)
    return replace(state, channels=channels)


def _set_channel(state: NetworkState, ch: Channel) -> NetworkState:
    if state.channel(ch.src, ch.dst) is None:
        channels = tuple(sorted(state.channels + (ch,), key=lambda c: (c.src, c.dst)))
    else:
        channels = tuple(ch if (c.src, c.dst) == (ch.src, ch.dst) else c for c in state.channels)
    return replace(state, channels=channels)


def _amq_code(message: str) -> str:
    head = message.split(":", 1)[0].strip()
    return head if head.startswith("AMQ") else "MQSC_REJECTED"


def _norm_conname(conname: str) -> str:
    return objects.conname_key(conname)


# --------------------------------------------------------------- topic spaces
def cluster_topic_records(q: QmgrState) -> tuple[rp.Record, ...]:
    """Cluster topic records this queue manager has received from other owners, oldest
    first (the most recently published is last: it wins — 002 §Multiple cluster topic
    definitions: "the most recently received cluster topic definition is used")."""
    records = [r for c in q.caches for r in c.live() if r.kind == rp.TOPIC and r.owner != q.qmid]
    return tuple(sorted(records, key=lambda r: (r.published, r.seq, r.owner)))


def topic_space(q: QmgrState) -> TopicSpace:
    """A queue manager's topic space: its local topic objects plus the cluster topic
    definitions it has received (002 §Cluster topics; DESIGN §3.2)."""
    return TopicSpace(q.defs.topics, tuple(r.info for r in cluster_topic_records(q)))


# --------------------------------------------------------- cluster membership
def _clusrcvr(q: QmgrState, cluster: str) -> objects.Channel | None:
    for ch in q.defs.channels:
        if ch.chltype == "CLUSRCVR" and cluster in objects.clusters_of(ch, q.defs):
            return ch
    return None


def _member_clusters(q: QmgrState) -> tuple[str, ...]:
    """Clusters this queue manager has a CLUSRCVR for (003 §Cluster channels)."""
    found = {c for ch in q.defs.channels if ch.chltype == "CLUSRCVR" for c in objects.clusters_of(ch, q.defs)}
    return tuple(sorted(found))


def _manual_clussdrs(q: QmgrState, cluster: str) -> tuple[objects.Channel, ...]:
    return tuple(ch for ch in q.defs.channels
                 if ch.chltype == "CLUSSDR" and cluster in objects.clusters_of(ch, q.defs))


def resolve_conname(state: NetworkState, conname: str, cluster: str) -> str | None:
    """The queue manager listening at ``conname``: the one whose CLUSRCVR for ``cluster``
    has that CONNAME (falling back to a CLUSRCVR of any cluster)."""
    want = _norm_conname(conname)
    fallback = None
    for q in state.qmgrs:
        for ch in q.defs.channels:
            if ch.chltype == "CLUSRCVR" and _norm_conname(ch.conname) == want:
                if cluster in objects.clusters_of(ch, q.defs):
                    return q.name
                fallback = fallback or q.name
    return fallback


def why_not_joined(state: NetworkState, q: QmgrState) -> tuple[str, ...]:
    """Reasons a queue manager's manual CLUSSDRs have not taken it into their cluster
    (000 §Checking initial definitions), one line each, from the state as it is: a CLUSSDR
    whose full repository has answered (its record is held, no SYSTEM.TEMPQMGR entry) is
    not reported, whatever happened to that queue manager since."""
    reasons = []
    for ch in q.defs.channels:
        if ch.chltype != "CLUSSDR":
            continue
        for cluster in objects.clusters_of(ch, q.defs) or ("",):
            target_name = resolve_conname(state, ch.conname, cluster) if cluster else None
            cache = q.cache(cluster) if cluster else None
            waiting = cache is not None and any(_norm_conname(c) == _norm_conname(ch.conname) for c in cache.tempqmgr)
            if cache is not None and target_name and not waiting and cache.qmgr_record_of(target_name) is not None:
                continue  # joined
            if not cluster:
                reasons.append(f"CLUSSDR {ch.name} names no cluster")
            elif _clusrcvr(q, cluster) is None:
                if _member_clusters(q):
                    reasons.append(f"CLUSSDR {ch.name} is in cluster {cluster} but no CLUSRCVR of {q.name} is "
                                   f"(the CLUSRCVR and CLUSSDR cluster names differ)")
                else:
                    reasons.append(f"CLUSSDR {ch.name} is in cluster {cluster} but {q.name} has no CLUSRCVR for "
                                   f"cluster {cluster} (both are needed — 000 §Checking initial definitions)")
            elif target_name is None:
                reasons.append(f"CLUSSDR {ch.name} CONNAME('{ch.conname}') matches no queue manager's CLUSRCVR")
            else:
                target = state.qmgr(target_name)
                back = state.channel(target_name, q.name)
                if target.cache(cluster) is None:
                    reasons.append(f"CLUSSDR {ch.name} reaches {target.name}, which is not a member of cluster {cluster}")
                elif not target.cache(cluster).full:
                    reasons.append(f"CLUSSDR {ch.name} reaches {target.name}, which is not a full repository "
                                   f"for cluster {cluster}")
                elif not target.running or not q.running:
                    stopped = target.name if not target.running else q.name
                    reasons.append(f"CLUSSDR {ch.name}: {stopped} is stopped; SYSTEM.TEMPQMGR until {target.name} "
                                   f"answers")
                elif back is not None and back.status not in FLOWING:
                    # 000 §Checking initial definitions: "check channel status from the Full to
                    # the Partial"
                    reasons.append(f"CLUSSDR {ch.name}: {target.name} has not answered (SYSTEM.TEMPQMGR): the "
                                   f"channel from {target.name} back to {q.name} is {back.status} — check channel "
                                   f"status from the Full to the Partial")
                elif waiting:
                    reasons.append(f"CLUSSDR {ch.name}: {target.name} has not answered yet (SYSTEM.TEMPQMGR)")
    return tuple(reasons)


def _fr_targets_manual(state: NetworkState, q: QmgrState, cluster: str) -> tuple[str, ...]:
    """Queue managers reached by this queue manager's manual CLUSSDRs for ``cluster``."""
    out = []
    for ch in _manual_clussdrs(q, cluster):
        target = resolve_conname(state, ch.conname, cluster)
        if target and target != q.name and target not in out:
            out.append(target)
    return tuple(out)


def _own_records(q: QmgrState, cluster: str) -> dict[tuple[str, str], tuple[str, Any]]:
    """What this queue manager owns in ``cluster``: (kind, key) -> info."""
    own: dict[tuple[str, str], Any] = {}
    rcvr = _clusrcvr(q, cluster)
    if rcvr is None:
        return own
    suspended = cluster in _suspended(q)
    own[(rp.QMGR, "")] = rp.QmgrInfo(
        channel=rcvr.name, conname=rcvr.conname, full_repository=cluster in objects.repos_clusters(q.defs),
        suspended=suspended, clwlwght=rcvr.clwlwght, clwlrank=rcvr.clwlrank, clwlprty=rcvr.clwlprty,
        netprty=rcvr.netprty)
    for queue in q.defs.queues:
        if cluster in objects.clusters_of(queue, q.defs):
            own[(rp.QUEUE, queue.name)] = rp.QueueInfo(queue.put, queue.defbind, queue.clwlrank, queue.clwlprty,
                                                       queue.is_qmgr_alias)
    for topic in q.defs.topics:
        if topic.cluster == cluster:
            own[(rp.TOPIC, topic.name)] = topic
    return own


def _suspended(q: QmgrState) -> tuple[str, ...]:
    # the SUSPEND state lives in the queue manager's own QMGR records
    out = []
    for c in q.caches:
        rec = c.get((rp.QMGR, c.cluster, q.qmid, ""))
        if rec is not None and not rec.deleted and rec.info.suspended:
            out.append(c.cluster)
    return tuple(out)


# ------------------------------------------------------------ the repository protocol
class _Outbox:
    """Messages produced while processing one event, merged per destination so that one
    event sends at most one UPDATE per destination and cluster."""

    def __init__(self) -> None:
        self.updates: dict[tuple[str, str], list[rp.Record]] = {}
        self.reply: dict[tuple[str, str], bool] = {}
        self.other: list[tuple[str, Any]] = []

    def update(self, dst: str, cluster: str, records, reply: bool = False) -> None:
        bucket = self.updates.setdefault((dst, cluster), [])
        for r in records:
            if r not in bucket:
                bucket.append(r)
        self.reply[(dst, cluster)] = self.reply.get((dst, cluster), False) or reply

    def send(self, dst: str, msg: Any) -> None:
        self.other.append((dst, msg))

    def flush(self, state: NetworkState, q: QmgrState) -> NetworkState:
        for dst, msg in self.other:
            state = _send(state, q.name, dst, msg)
        for (dst, cluster), records in sorted(self.updates.items()):
            if records:
                cache = q.cache(cluster)
                msg = rp.RepoMsg(rp.UPDATE, cluster, q.qmid, q.name, bool(cache and cache.full),
                                 records=tuple(sorted(records, key=lambda r: r.ident)),
                                 reply=self.reply[(dst, cluster)])
                state = _send(state, q.name, dst, msg)
        return state


def _members(cache: rp.ClusterCache, *exclude: str) -> tuple[str, ...]:
    return tuple(sorted({r.owner_name for r in cache.qmgr_records()} - set(exclude)))


def _fr_after_apply(state: NetworkState, q: QmgrState, cache: rp.ClusterCache, applied: Sequence[rp.Record],
                    sender_name: str, sender_full: bool, out: _Outbox, mut: Mutations) -> None:
    """What a full repository does with records it has just applied (DESIGN §3.4)."""
    if not applied:
        return
    # 000 §Resource definition for Full Repositories / DESIGN §3.4: an FR forwards what it
    # receives from a non-FR to every FR it has a manual CLUSSDR to; it does not re-forward
    # what another FR sent it — which is why FRs must be fully connected.
    forward = sender_full if mut.fr_forwarding_swapped else not sender_full
    if forward:
        for fr in _fr_targets_manual(state, q, cache.cluster):
            if fr != sender_name:
                out.update(fr, cache.cluster, applied)
    was_pubsub = any(r.kind == rp.TOPIC for r in cache.live() if r not in applied)
    for record in applied:
        # subscribers of the changed queue or queue manager (000 §First MQOPEN of a Queue, (10))
        for _, name in rp.interested_in(cache, record):
            if name not in (sender_name, record.owner_name, q.name):
                out.update(name, cache.cluster, [record])
    # the deletion of the last cluster topic ends the pub/sub cluster, but it must still
    # reach every member that holds the topic (002 §Cluster topics)
    topic_deleted = any(r.kind == rp.TOPIC and r.deleted for r in applied)
    if cache.is_pubsub_cluster() or topic_deleted:
        # 002 §Cluster topics / 000 §Cluster Topics: cluster topic records, and then every
        # queue-manager record, are pushed to every member of a publish/subscribe cluster.
        pushed = [r for r in applied if r.kind in (rp.TOPIC, rp.QMGR)]
        if not was_pubsub and cache.is_pubsub_cluster():
            pushed = list(cache.qmgr_records()) + [r for r in cache.live() if r.kind == rp.TOPIC]
        for name in _members(cache, q.name, sender_name):
            out.update(name, cache.cluster, [r for r in pushed if r.owner_name != name])


def _fr_refuses_topics(q: QmgrState, cache: rp.ClusterCache, msg: rp.RepoMsg, step: int
                       ) -> tuple[tuple[rp.Record, ...], list[LogEntry]]:
    """The records of ``msg`` a full repository takes in, and the error-log entry for the
    cluster topic records it refuses under PSCLUS(DISABLED)."""
    # 002 §Inhibiting clustered publish/subscribe in a cluster: "setting PSCLUS to DISABLED
    # on all full repository queue managers in the cluster prevents any clustered topic
    # definition on an incorrectly configured partial repository from affecting other queue
    # managers in the cluster ... the inconsistency is reported in the error logs of the
    # full repository queue managers" — such an FR neither stores nor forwards them.
    if not cache.full or q.defs.psclus != "DISABLED":
        return msg.records, []
    refused = [r for r in msg.records if r.kind == rp.TOPIC]
    if not refused:
        return msg.records, []
    names = ", ".join(sorted({f"{r.owner_name}/{r.key}" for r in refused}))
    return (tuple(r for r in msg.records if r.kind != rp.TOPIC),
            [LogEntry(q.name, "PSCLUS_DISABLED",
                      f"cluster topic {names} (cluster {cache.cluster}) from {msg.sender_name} rejected: "
                      "PSCLUS(DISABLED) at this full repository; not stored or forwarded", step)])


def _apply_all(q: QmgrState, cache: rp.ClusterCache, records, step: int, mut: Mutations
               ) -> tuple[rp.ClusterCache, list[rp.Record], list[LogEntry]]:
    applied, log = [], []
    for record in records:
        cache, ok = rp.apply_record(cache, record, check_sequence=not mut.ignore_sequence_numbers)
        if ok:
            applied.append(record)
            if record.kind == rp.TOPIC and not record.deleted:
                log.extend(_topic_conflicts(q, cache, record, step))
    return cache, applied, log


def _topic_conflicts(q: QmgrState, cache: rp.ClusterCache, record: rp.Record, step: int) -> list[LogEntry]:
    # 002 §Multiple cluster topic definitions: "Where two or more cluster topic definitions,
    # for a single topic string, have differing attributes or exist in more than one
    # cluster, messages (AMQ5465 & AMQ5466) are written to the error log and the most
    # recently received cluster topic definition is used."
    others = [r for c in q.caches for r in c.live()
              if r.kind == rp.TOPIC and r.ident != record.ident and r.info.topicstr == record.info.topicstr
              and (r.cluster != record.cluster or replace(r.info, name="") != replace(record.info, name=""))]
    if not others:
        return []
    owners = ", ".join(sorted({r.owner_name for r in others}))
    return [LogEntry(q.name, "TOPIC_CONFLICT",
                     f"cluster topic {record.info.topicstr!r} from {record.owner_name} conflicts with the "
                     f"definition from {owners} (AMQ5465/AMQ5466); the most recent is used", step)]


def _pr_follow_up(state: NetworkState, q: QmgrState, cache: rp.ClusterCache, out: _Outbox, mut: Mutations
                  ) -> rp.ClusterCache:
    """A partial repository that learns of a queue's hosts subscribes for the hosts'
    queue-manager records (000 §First MQOPEN of a Queue: "more subscriptions would be made")."""
    if cache.full:
        return cache
    wanted = []
    for r in cache.live():
        if r.kind == rp.QUEUE and (rp.QUEUE, r.key) in cache.interests:
            key = (rp.QMGR, r.owner_name)
            if cache.qmgr_record_of(r.owner_name) is None and key not in cache.interests:
                wanted.append(key)
    for key in wanted:
        cache = rp.subscribe_interest(cache, key)
    if wanted:
        for fr in _two_frs(state, q, cache, mut)[0]:
            out.send(fr, rp.RepoMsg(rp.SUBSCRIBE, cache.cluster, q.qmid, q.name, False, keys=tuple(wanted)))
    return cache


def _two_frs(state: NetworkState, q: QmgrState, cache: rp.ClusterCache, mut: Mutations) -> tuple[tuple[str, ...], int]:
    """The full repositories a partial repository publishes and subscribes to: its manual
    CLUSSDR's FR first, then one other it knows (003: "sent to the chosen repository and
    also to one other repository (if there is one)"). Also returns how many it knows."""
    manual = _fr_targets_manual(state, q, cache.cluster)
    known = [r.owner_name for r in cache.full_repositories() if r.owner_name != q.name]
    ordered = list(dict.fromkeys([*manual[:1], *known]))
    limit = 1 if mut.publish_to_one_fr else 2
    return tuple(ordered[:limit]), len(set(known) | set(manual[:1]))


def _send_joins(state: NetworkState, q: QmgrState, cache: rp.ClusterCache, out: "_Outbox") -> rp.ClusterCache:
    """Send a JOIN, carrying this queue manager's own records, over every manual CLUSSDR
    whose far end exists and has not had one yet. A CLUSSDR whose CONNAME reaches no
    CLUSRCVR (yet) retries, as a channel in RETRYING does, and joins once its listener is
    there (000 §Checking initial definitions)."""
    own = tuple(r for r in cache.records if r.owner == q.qmid)
    if not any(r.kind == rp.QMGR and not r.deleted for r in own):
        return cache
    if cache.full:
        # 003 §Queue managers and repositories: "All repositories are kept in step with each
        # other by exchanging messages" — a full repository joining another hands over
        # everything it holds (and gets everything back: process_repo_message, JOIN)
        own = cache.records
    sent = set(cache.joined)
    for ch in _manual_clussdrs(q, cache.cluster):
        target = resolve_conname(state, ch.conname, cache.cluster)
        if target is None or target == q.name or ch.conname in sent:
            continue
        out.send(target, rp.RepoMsg(rp.JOIN, cache.cluster, q.qmid, q.name, cache.full, records=own))
        sent.add(ch.conname)
    return replace(cache, joined=tuple(sorted(sent))) if sent != set(cache.joined) else cache


def _retry_joins(state: NetworkState, step: int, mut: Mutations) -> NetworkState:
    """Queue managers whose manual CLUSSDRs can now reach a CLUSRCVR send their JOIN."""
    for q in state.qmgrs:
        if not q.running:
            continue
        for cache in q.caches:
            pending = [ch for ch in _manual_clussdrs(q, cache.cluster) if ch.conname not in cache.joined
                       and resolve_conname(state, ch.conname, cache.cluster) not in (None, q.name)]
            if pending:
                state = publish_own(state, q.name, step, mut)
                break
    return state


def publish_own(state: NetworkState, name: str, step: int, mut: Mutations = NO_MUTATIONS) -> NetworkState:
    """A queue manager compares what it owns with what it last published and publishes the
    differences (new sequence numbers), joining clusters it has just become able to join."""
    q = state.qmgr(name)
    if not q.running:
        return state
    log: list[LogEntry] = []
    out = _Outbox()
    clusters = sorted(set(_member_clusters(q)) | {c.cluster for c in q.caches})
    for cluster in clusters:
        q = state.qmgr(name)
        cache = q.cache(cluster)
        own = _own_records(q, cluster)
        joining = cache is None
        if joining:
            if not own:
                continue
            cache = rp.ClusterCache(cluster)
        cache = replace(cache, full=cluster in objects.repos_clusters(q.defs))
        changed: list[rp.Record] = []
        seq = q.seq
        held_own = {(r.kind, r.key): r for r in cache.records if r.owner == q.qmid}
        for (kind, key), info in sorted(own.items()):
            held = held_own.get((kind, key))
            if held is None or held.deleted or held.info != info:
                seq += 1
                changed.append(rp.Record(kind, cluster, key, q.qmid, q.name, seq, state.clock, False, info))
        for (kind, key), held in sorted(held_own.items()):
            if (kind, key) not in own and not held.deleted:
                seq += 1
                changed.append(replace(held, seq=seq, published=state.clock, deleted=True))
        if not changed:
            q = _put_cache(q, _send_joins(state, q, cache, out))
            state = _put_qmgr(state, q)
            continue
        cache, applied, entries = _apply_all(q, cache, changed, step, mut)
        log.extend(entries)
        q = replace(q, seq=seq)
        manual = _fr_targets_manual(state, q, cluster)
        if joining or (rp.QMGR, "") in {(r.kind, r.key) for r in changed if not r.deleted and held_own.get((r.kind, r.key)) is None}:
            # 000 §Initial definitions: the CLUSSDR shows SYSTEM.TEMPQMGR until the FR answers;
            # the queue manager's records go to the FR over the manual CLUSSDR.
            temp = tuple(sorted({ch.conname for ch in _manual_clussdrs(q, cluster)
                                 if cache.qmgr_record_of(resolve_conname(state, ch.conname, cluster) or "") is None}))
            cache = replace(cache, tempqmgr=tuple(sorted(set(cache.tempqmgr) | set(temp))), joined=())
            cache = _send_joins(state, q, cache, out)
            if cache.full:
                q = _put_cache(q, cache)
                _fr_after_apply(state, q, cache, applied, q.name, False, out, mut)
        elif cache.full:
            # an FR's own change: as if received from a non-FR (forward to its manual FRs)
            q = _put_cache(q, cache)
            _fr_after_apply(state, q, cache, applied, q.name, False, out, mut)
        else:
            targets, known = _two_frs(state, q, cache, mut)
            for fr in targets:
                out.update(fr, cluster, changed)
            cache = replace(cache, last_publish=(targets, known))
        q = _put_cache(q, cache)
        state = _put_qmgr(state, q)
    state = out.flush(state, state.qmgr(name))
    return _log(state, log)


def process_repo_message(state: NetworkState, dst: str, msg: rp.RepoMsg, step: int,
                         mut: Mutations = NO_MUTATIONS) -> NetworkState:
    """The repository task of ``dst`` processes one message from its command queue."""
    q = state.qmgr(dst)
    cache = q.cache(msg.cluster)
    if cache is None:
        return _log(state, [LogEntry(dst, "NOT_A_MEMBER",
                                     f"{msg.op} from {msg.sender_name} for cluster {msg.cluster}: "
                                     f"{dst} has no CLUSRCVR in that cluster; discarded", step)])
    out = _Outbox()
    log: list[LogEntry] = []
    if msg.op == rp.JOIN:
        if not cache.full:
            return _log(state, [LogEntry(dst, "NOT_A_FULL_REPOSITORY",
                                         f"{msg.sender_name}'s manual CLUSSDR for {msg.cluster} reaches {dst}, "
                                         "which is not a full repository; the join is ignored", step)])
        records, refused = _fr_refuses_topics(q, cache, msg, step)
        cache, applied, log = _apply_all(q, cache, records, step, mut)
        log = refused + log
        q = _put_cache(q, cache)
        # 000 §Initial definitions: the FR answers with its own CLUSRCVR information (and,
        # DESIGN §3.4, the other FRs it knows); in a pub/sub cluster, everything.
        answer = [r for r in cache.full_repositories() if r.owner_name != msg.sender_name]
        if msg.sender_full:
            # a full repository joining (or re-joining after REFRESH CLUSTER) is rebuilt from
            # the others: it gets every record held here, tombstones included (003 §Queue
            # managers and repositories; 002 §REFRESH CLUSTER considerations)
            answer = [r for r in cache.records if r.owner != msg.sender]
        elif cache.is_pubsub_cluster():
            answer += [r for r in cache.live() if r.kind in (rp.QMGR, rp.TOPIC) and r.owner_name != msg.sender_name]
        out.update(msg.sender_name, msg.cluster, answer, reply=True)
        _fr_after_apply(state, q, cache, applied, msg.sender_name, msg.sender_full, out, mut)
    elif msg.op == rp.UPDATE:
        records, refused = _fr_refuses_topics(q, cache, msg, step)
        cache, applied, log = _apply_all(q, cache, records, step, mut)
        log = refused + log
        q = _put_cache(q, cache)
        if cache.full:
            _fr_after_apply(state, q, cache, applied, msg.sender_name, msg.sender_full, out, mut)
        else:
            cache = _pr_follow_up(state, q, cache, out, mut)
            q = _put_cache(q, cache)
    elif msg.op == rp.SUBSCRIBE:
        if cache.full:
            answer: list[rp.Record] = []
            for key in msg.keys:
                cache = rp.add_subscriber(cache, msg.sender, msg.sender_name, key)
                answer += rp.records_for(cache, key)
            q = _put_cache(q, cache)
            out.update(msg.sender_name, msg.cluster, answer, reply=True)
    elif msg.op == rp.REMOVE:
        before = cache
        cache = rp.remove_owner(cache, msg.removed, msg.records)
        q = _put_cache(q, cache)
        if cache.full and cache != before and not msg.sender_full:
            for fr in _fr_targets_manual(state, q, msg.cluster):
                if fr != msg.sender_name:
                    out.send(fr, replace(msg, sender=q.qmid, sender_name=q.name, sender_full=True))
    state = _put_qmgr(state, q)
    state = out.flush(state, state.qmgr(dst))
    return _log(state, log)


def refresh_cluster(state: NetworkState, name: str, cluster: str, step: int, mut: Mutations) -> NetworkState:
    """REFRESH CLUSTER(C): discard what was learnt of C (cluster topics included) and rebuild
    it from the full repositories (000 §Refreshing repository information; 002 §REFRESH
    CLUSTER considerations): the queue manager joins again and re-subscribes."""
    q = state.qmgr(name)
    clusters = [c.cluster for c in q.caches] if cluster == "*" else [cluster]
    for cl in clusters:
        q = state.qmgr(name)
        cache = q.cache(cl)
        if cache is None:
            continue
        # the queue manager re-announces itself with new sequence numbers, so a repository
        # that forcibly removed it (RESET CLUSTER "issued in error" — 000 §Refreshing
        # repository information) takes it back instead of discarding a duplicate
        seq = q.seq
        own = []
        for r in cache.records:
            if r.owner == q.qmid:
                seq += 0 if r.deleted else 1
                own.append(r if r.deleted else replace(r, seq=seq, published=state.clock))
        q = replace(q, seq=seq)
        fresh = replace(cache, records=tuple(own), subscribers=() if not cache.full else cache.subscribers,
                        highest_seen=tuple(p for p in cache.highest_seen if p[0][2] == q.qmid))
        for r in own:
            fresh = rp.note_seen(fresh, r)
        q = _put_cache(q, fresh)
        state = _put_qmgr(state, q)
        out = _Outbox()
        temp = tuple(sorted({ch.conname for ch in _manual_clussdrs(q, cl)}))
        fresh = replace(fresh, tempqmgr=temp, refreshed=True, joined=())
        fresh = _send_joins(state, q, fresh, out)
        if fresh.interests and not fresh.full:
            # subscriptions go to two full repositories (000 §First MQOPEN of a Queue)
            for fr in _two_frs(state, q, cache, mut)[0]:
                out.send(fr, rp.RepoMsg(rp.SUBSCRIBE, cl, q.qmid, q.name, False, keys=fresh.interests))
        q = _put_cache(q, fresh)
        state = _put_qmgr(state, q)
        state = out.flush(state, q)
    return state


def reset_cluster(state: NetworkState, name: str, op: objects.ResetCluster, step: int) -> NetworkState:
    """RESET CLUSTER(C) ACTION(FORCEREMOVE) QMNAME(X)|QMID(X), at a full repository: X's
    records are deleted here and everywhere (000 §Incorrectly deleted queue managers)."""
    q = state.qmgr(name)
    cache = q.cache(op.cluster)
    if cache is None or not cache.full:
        return _log(state, [LogEntry(name, "NOT_A_FULL_REPOSITORY",
                                     f"RESET CLUSTER({op.cluster}) must be issued on a full repository for "
                                     f"{op.cluster}: {name} is not one (000 §Incorrectly deleted queue managers)",
                                     step)])
    if op.qmid:
        victims = sorted({r.owner for r in cache.qmgr_records() if r.owner == op.qmid})
        if not victims:
            victims = sorted({r.owner for r in cache.records if r.owner == op.qmid})
    else:
        victims = sorted({r.owner for r in cache.qmgr_records() if r.owner_name == op.qmname})
        if not victims:
            # a queue manager that already left (its CLUSRCVR deleted — 004 §Adding and
            # removing queue managers) is still known by its records here; the reset goes on
            withdrawn = sorted({r.owner for r in cache.records if r.owner_name == op.qmname})
            victims = withdrawn if len(withdrawn) == 1 else []
        if len(victims) > 1:
            return _log(state, [LogEntry(name, "QMNAME_AMBIGUOUS",
                                         f"RESET CLUSTER QMNAME({op.qmname}): {len(victims)} queue managers of that "
                                         f"name ({', '.join(victims)}); use QMID", step)])
    if not victims:
        return _log(state, [LogEntry(name, "AMQ8147", f"RESET CLUSTER: {op.qmid or op.qmname} not known in "
                                                     f"cluster {op.cluster}", step)])
    for victim in victims:
        tombstones = tuple(replace(r, deleted=True) for r in cache.records if r.owner == victim)
        msg = rp.RepoMsg(rp.REMOVE, op.cluster, q.qmid, q.name, False, records=tombstones, removed=victim)
        state = process_repo_message(state, name, msg, step)  # here, and forwarded to manual FRs
        q = state.qmgr(name)
        forwarded = set(_fr_targets_manual(state, q, op.cluster))
        # the FR "can then inform the other queue managers in the cluster to delete them"
        for member in _members(q.cache(op.cluster), name):
            target = state.find(member)
            if member in forwarded or target is None or target.qmid == victim:
                continue
            state = _send(state, name, member, replace(msg, sender_full=True))
    return state


# --------------------------------------------------------------------- steps
def _admin_subscription(defn: objects.Subscription) -> pubsub.Subscription:
    return pubsub.Subscription(name=defn.name, topic=defn.topicstr, scheme=defn.wschema.lower(),
                               scope=defn.subscope, dest=defn.dest, durable=True, admin=True)


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
        if _api_subscription_named(q, cmd):  # one subscription namespace per queue manager
            state = _mqsc_on_api_subscription(state, name, cmd, step)
            continue
        # DEFINE SUB TOPICOBJ may name a cluster topic known here (002 §Topic spaces, Case 1)
        defs, outcome = objects.apply_command(q.defs, cmd, pubsub_space(q).cluster)
        if not outcome.accepted:
            state = _log(state, [LogEntry(name, _amq_code(outcome.message), outcome.message + _mqsc_at(cmd), step)])
            continue
        ps = q.pubsub
        if cmd.verb == "DEFINE" and cmd.objtype == "SUB" and ps.subscription(cmd.name) is None:
            space = replace(topic_space(q), local=defs.topics)
            ps, errors = pubsub.subscribe(space, ps, _admin_subscription(defs.subscription(cmd.name)))
            if errors:  # MQ refuses the DEFINE SUB as a whole
                state = _log(state, [LogEntry(name, e.code, e.detail + _mqsc_at(cmd), step) for e in errors])
                continue
        elif cmd.verb == "DELETE" and cmd.objtype == "SUB":
            ps = _ps_remove_subscription(ps, cmd.name)
        op = outcome.operation
        if isinstance(op, objects.ClearRetained):
            ps = pubsub.clear_retained(ps, op.topicstr)
        if cmd.verb == "CLEAR" and cmd.objtype == "QLOCAL":
            ps = pubsub.clear_queue(ps, cmd.name)
        state = _put_qmgr(state, replace(q, defs=defs, pubsub=ps))
        if cmd.verb == "CLEAR" and cmd.objtype == "QLOCAL" and cmd.name == "SYSTEM.CLUSTER.TRANSMIT.QUEUE":
            state = replace(state, channels=tuple(replace(c, messages=()) if c.src == name else c
                                                  for c in state.channels))
        if isinstance(op, (objects.SuspendCluster, objects.ResumeCluster)):
            state = _suspend(state, name, op, step, mut)
        elif isinstance(op, objects.RefreshCluster):
            state = publish_own(state, name, step, mut)
            state = refresh_cluster(state, name, op.cluster, step, mut)
            state = pubsub_refresh_cluster(state, name, op.cluster)
        elif isinstance(op, objects.ResetCluster):
            state = reset_cluster(state, name, op, step)
        elif isinstance(op, objects.StopChannel):
            state = _channel_status_by_name(state, name, op.name, "STOPPED")
        elif isinstance(op, objects.StartChannel):
            state = _channel_status_by_name(state, name, op.name, "RUNNING")
        elif isinstance(op, objects.RefreshProxySubscriptions):
            state = refresh_proxy_subscriptions(state, name)
    state = publish_own(state, name, step, mut)
    return _retry_joins(state, step, mut)


def _suspend(state: NetworkState, name: str, op: Any, step: int, mut: Mutations) -> NetworkState:
    """SUSPEND/RESUME QMGR CLUSTER(C): the queue manager republishes its own record with the
    SUSPEND flag changed (000 §Workload management features)."""
    q = state.qmgr(name)
    suspend = isinstance(op, objects.SuspendCluster)
    for cluster in op.clusters:
        cache = q.cache(cluster)
        if cache is None:
            continue
        held = cache.get((rp.QMGR, cluster, q.qmid, ""))
        if held is None or held.deleted or held.info.suspended == suspend:
            continue
        seq = q.seq + 1
        record = replace(held, seq=seq, published=state.clock, info=replace(held.info, suspended=suspend))
        cache, _ = rp.apply_record(cache, record)
        q = replace(_put_cache(q, cache), seq=seq)
        state = _put_qmgr(state, q)
        out = _Outbox()
        if cache.full:
            _fr_after_apply(state, q, cache, [record], q.name, False, out, mut)
        else:
            targets, known = _two_frs(state, q, cache, mut)
            for fr in targets:
                out.update(fr, cluster, [record])
            q = _put_cache(q, replace(cache, last_publish=(targets, known)))
            state = _put_qmgr(state, q)
        state = out.flush(state, q)
    return state


def _channel_status_by_name(state: NetworkState, name: str, channel: str, status: str) -> NetworkState:
    """STOP/START CHANNEL of a sender: a manual CLUSSDR or SDR, or else an auto-defined
    CLUSSDR, which carries the name of the CLUSRCVR it was made from (003 §Auto-definition
    of channels)."""
    q = state.qmgr(name)
    targets = []
    for ch in q.defs.channels:
        if ch.name == channel and ch.chltype in ("CLUSSDR", "SDR"):
            target = resolve_conname(state, ch.conname, ch.cluster)
            if target:
                targets.append(target)
    if not targets:
        targets = sorted({r.owner_name for c in q.caches for r in c.qmgr_records()
                          if r.info.channel == channel and r.owner != q.qmid and state.find(r.owner_name)})
    if not targets and not any(ch.name == channel for ch in q.defs.channels):
        return _log(state, [LogEntry(name, "CHANNEL_NOT_FOUND", f"channel {channel} not found at {name} (no "
                                                                "manual or auto-defined sender of that name)",
                                     state.next_step - 1)])
    for target in targets:
        existing = state.channel(name, target) or Channel(name, target)
        state = _held_by_step(_set_channel(state, replace(existing, status=status)), name, target)
    return state


def _full_topic(q: QmgrState, topicobj: str, topic: str, step: int) -> tuple[str | None, tuple[LogEntry, ...]]:
    # 002 §Constructing topic names: TOPICSTR of the named object joined with the string;
    # 002 §Topic spaces Case 1 item 3: the object may be a cluster topic known here
    if not topicobj:
        return topic, ()
    obj = objects.resolve_topicobj(q.defs, topicobj, pubsub_space(q).cluster)
    if obj is None:
        return None, (LogEntry(q.name, "MQRC_UNKNOWN_OBJECT_NAME", f"topic object {topicobj} not found", step),)
    try:
        return join_topic(obj.topicstr, topic), ()
    except TopicStringError as err:
        return None, (LogEntry(q.name, err.reason, err.message, step),)


def _require_running(state: NetworkState, name: str, step: int) -> NetworkState | None:
    q = state.find(name)
    if q is None:
        return _log(state, [LogEntry(name, "MQRC_Q_MGR_NOT_AVAILABLE", f"{name} has been deleted", step)])
    if not q.running:
        return _log(state, [LogEntry(name, "MQRC_Q_MGR_NOT_AVAILABLE", f"{name} is stopped", step)])
    return None


def _step_mqsc(state: NetworkState, step: sc.MqscStep, mut: Mutations) -> NetworkState:
    return apply_mqsc(state, step.qmgr, step.commands, step.index, mut)


def _step_open(state: NetworkState, step: sc.OpenStep, mut: Mutations) -> NetworkState:
    """MQOPEN of a queue: the first open of a cluster queue this queue manager knows nothing
    of makes its repository subscribe for it at two full repositories (000 §First MQOPEN
    of a Queue). Where messages then go is the workload algorithm's part."""
    q = state.qmgr(step.qmgr)
    if q.defs.queue(step.queue) is not None and not step.target_qmgr:
        return state
    key = (rp.QUEUE, step.queue)
    out = _Outbox()
    for cache in q.caches:
        if cache.full or key in cache.interests:
            continue
        cache = rp.subscribe_interest(cache, key)
        targets, _ = _two_frs(state, q, cache, mut)
        for fr in targets:
            out.send(fr, rp.RepoMsg(rp.SUBSCRIBE, cache.cluster, q.qmid, q.name, False, keys=(key,)))
        q = _put_cache(q, cache)
    state = _put_qmgr(state, q)
    return out.flush(state, q)


def _step_channel(state: NetworkState, step: sc.ChannelStep, mut: Mutations) -> NetworkState:
    existing = state.channel(step.qmgr, step.to) or Channel(step.qmgr, step.to)
    state = _set_channel(state, replace(existing, status=step.status))
    # the administrator's status stays until a later step changes it (no automatic recovery)
    state = _held_by_step(state, step.qmgr, step.to)
    return _wl_redrive(state, step.qmgr, step.to, step.index, mut)


def _held_by_step(state: NetworkState, src: str, dst: str) -> NetworkState:
    if (src, dst) in state.held_by_step:
        return state
    return replace(state, held_by_step=tuple(sorted(state.held_by_step + ((src, dst),))))


def _restarted(q: QmgrState) -> QmgrState:
    """A stopped queue manager starts again: its non-durable subscriptions ended with their
    connections and the rest get their WILDCARD(BLOCK) sets re-evaluated (002 §Subscription
    durability; §Controlling wildcard usage with the WILDCARD property). The demand change
    is sent by ``pubsub_after_step`` after the step, as for any other step."""
    from spec.topic_tree import subscriptions_after_restart  # kept local: the import block is shared
    ended = {s.name for s in q.pubsub.subscriptions if not s.durable}
    ps = replace(q.pubsub, subscriptions=subscriptions_after_restart(pubsub_space(q), q.pubsub.subscriptions),
                 republishers=tuple(r for r in q.pubsub.republishers if r.subscription not in ended))
    return replace(q, running=True, pubsub=ps)


def _qmgr_started(state: NetworkState, name: str, step: int, mut: Mutations) -> NetworkState:
    """strmqm, by a scenario step or as a fault's recovery (``QmgrStart``) — one rule for
    both: a stopped queue manager restarts (``_restarted``), republishes records whose
    refresh fell due meanwhile and publishes what changed. A running one only publishes."""
    q = state.qmgr(name)
    state = _put_qmgr(state, _restarted(q) if not q.running else q)
    state = _republish_overdue(state, name, step, mut)
    return publish_own(state, name, step, mut)


def _step_qmgr(state: NetworkState, step: sc.QmgrStep, mut: Mutations, scenario: sc.Scenario) -> NetworkState:
    q = state.find(step.name)
    if step.action == "stop":
        return _put_qmgr(state, replace(q, running=False)) if q else state
    if step.action == "start":
        if q is None:
            return _log(state, [LogEntry(step.name, "AMQ7048", f"{step.name} does not exist (deleted)", step.index)])
        return _qmgr_started(state, step.name, step.index, mut)
    if step.action == "delete":
        if q is None:
            return state
        # dltmqm: its channels and queues go; what other queue managers know stays (000)
        return replace(state, qmgrs=tuple(x for x in state.qmgrs if x.name != step.name),
                       channels=tuple(c for c in state.channels if c.src != step.name))
    # recreate: a new queue manager with the same name and definitions, a new QMID
    if q is not None:  # crtmqm of a name that exists
        return _log(state, [LogEntry(step.name, "AMQ8110", f"queue manager {step.name} already exists; delete it "
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


def _step_advance(state: NetworkState, step: sc.AdvanceStep, mut: Mutations) -> NetworkState:
    """Time passes (DESIGN §3.4): owners republish records older than 30 days; records whose
    owner is gone are reported missing after 30 days and expire after 60 (topics) or 90
    (queue managers, queues) days (002 §Key roles; 000 §Incorrectly deleted queue managers)."""
    before = state.clock
    state = replace(state, clock=state.clock + step.days)
    for q in state.qmgrs:
        if not q.running:
            continue
        stale = any(r.owner == q.qmid and not r.deleted and state.clock - r.published >= rp.REPUBLISH_DAYS
                    for c in q.caches for r in c.records)
        if stale:
            state = _republish_all(state, q.name, step.index, mut)
    log: list[LogEntry] = []
    for q in state.qmgrs:
        if not q.running:
            continue
        q_new = q
        for cache in q.caches:
            records = []
            for r in cache.records:
                # refreshed = the owner's republished copy can reach this repository: a
                # stopped owner, or channels down on the way, mean no refresh arrives
                if r.deleted or r.owner == q.qmid or _republish_reaches(state, r.owner, q.name, cache.cluster):
                    records.append(r)
                    continue
                age, age_before = state.clock - r.published, before - r.published
                if age > rp.EXPIRY_DAYS[r.kind]:
                    records.append(replace(r, deleted=True))
                    log.append(LogEntry(q.name, "RECORD_EXPIRED",
                                        f"{r.kind} record {r.key or r.owner_name} from {r.owner_name} in "
                                        f"{r.cluster} expired after {rp.EXPIRY_DAYS[r.kind]} days", step.index))
                    continue
                if age > rp.REPUBLISH_DAYS >= age_before:
                    log.append(LogEntry(q.name, "REFRESH_MISSING",
                                        f"expected update of {r.kind} record {r.key or r.owner_name} from "
                                        f"{r.owner_name} in {r.cluster} not received", step.index))
                records.append(r)
            q_new = _put_cache(q_new, replace(cache, records=tuple(records)))
        state = _put_qmgr(state, q_new)
    return _log(state, log)


def _republish_reaches(state: NetworkState, owner: str, dst: str, cluster: str) -> bool:
    """Whether the 30-day republication of ``owner`` (a QMID) reaches ``dst`` now: the owner
    runs, and a path of running queue managers and channels that let messages flow leads
    from it to the full repositories it publishes to (itself, if it is one), on to the FRs
    they forward to, and from one of those to ``dst`` (DESIGN §3.4)."""
    o = next((q for q in state.qmgrs if q.qmid == owner and q.running), None)
    if o is None or o.cache(cluster) is None:
        return False
    if o.name == dst:
        return True
    running = {q.name for q in state.qmgrs if q.running}

    def up(a: str, b: str) -> bool:
        ch = state.channel(a, b)
        return a in running and b in running and (ch is None or ch.status in FLOWING)

    cache = o.cache(cluster)
    reached = {o.name} if cache.full else {f for f in _two_frs(state, o, cache, NO_MUTATIONS)[0] if up(o.name, f)}
    todo = list(reached)
    while todo:
        fr = state.find(todo.pop())
        for nxt in _fr_targets_manual(state, fr, cluster) if fr else ():
            if nxt not in reached and up(fr.name, nxt):
                reached.add(nxt)
                todo.append(nxt)
    return dst in reached or any(up(fr, dst) for fr in reached)


def _republish_overdue(state: NetworkState, name: str, step: int, mut: Mutations) -> NetworkState:
    """A queue manager that starts again republishes its records if their 30-day refresh
    fell due while it was stopped, so repositories that expired them learn it again
    (DESIGN §3.4; 000 §Incorrectly deleted queue managers)."""
    q = state.find(name)
    if q is None or not q.running:
        return state
    overdue = any(r.owner == q.qmid and not r.deleted and state.clock - r.published >= rp.REPUBLISH_DAYS
                  for c in q.caches for r in c.records)
    return _republish_all(state, name, step, mut) if overdue else state


def _republish_all(state: NetworkState, name: str, step: int, mut: Mutations) -> NetworkState:
    """Every 30 days an owner republishes its records with new sequence numbers."""
    q = state.qmgr(name)
    out = _Outbox()
    for cache in q.caches:
        own = [r for r in cache.records if r.owner == q.qmid and not r.deleted]
        fresh = []
        seq = q.seq
        for r in own:
            seq += 1
            fresh.append(replace(r, seq=seq, published=state.clock))
        cache, applied, _ = _apply_all(q, cache, fresh, step, mut)
        q = replace(_put_cache(q, cache), seq=seq)
        if cache.full:
            _fr_after_apply(state, q, cache, applied, q.name, False, out, mut)
        else:
            targets, known = _two_frs(state, q, cache, mut)
            for fr in targets:
                out.update(fr, cache.cluster, fresh)
            q = _put_cache(q, replace(cache, last_publish=(targets, known)))
    state = _put_qmgr(state, q)
    return out.flush(state, q)


# --------------------------------------------------------------------- the model
class MQNetwork:
    """A scenario as a Model over :class:`NetworkState`.

    ``properties`` come from the composition root (``checker.cli``), which may import the
    property catalogue; ``spec`` does not. ``faults`` is how many channel failures the
    checker may inject (``[check] faults = true`` means one); ``mutations`` exist for tests.
    """

    def __init__(self, scenario: sc.Scenario, properties: Sequence[Any] = (), faults: int | None = None,
                 mutations: Mutations = NO_MUTATIONS, explore_initial: bool | None = None) -> None:
        self.scenario = scenario
        self.name = scenario.name or "scenario"
        self._properties = tuple(properties)
        self.faults = (1 if scenario.check.faults else 0) if faults is None else faults
        self.mutations = mutations
        self.explore_initial = scenario.check.explore_initial if explore_initial is None else explore_initial

    # --- the Model protocol ---------------------------------------------------------
    def init_states(self) -> Sequence[NetworkState]:
        """The queue managers after their initial MQSC. Unless ``explore_initial``, the
        network is then settled with the deterministic scheduler, so exploration starts
        from the configuration as the administrator has it running and explores every
        interleaving of what the scenario's steps do (the joining of the initial
        configuration is otherwise most of the state space)."""
        qmgrs = tuple(QmgrState(s.name, objects.QueueManagerDef(s.name), LocalPubSub())
                      for s in sorted(self.scenario.qmgrs, key=lambda q: q.name))
        state = NetworkState(qmgrs, faults=self.faults)
        for spec_ in sorted(self.scenario.qmgrs, key=lambda q: q.name):
            state = apply_mqsc(state, spec_.name, spec_.commands, INITIAL, self.mutations)
        state = pubsub_after_step(state, INITIAL, self.mutations)
        if not self.explore_initial:
            state = settle(self, state)
        return (state,)

    def actions(self, state: NetworkState) -> Sequence[Any]:
        acts: list[Any] = []
        running = {q.name for q in state.qmgrs if q.running}
        for ch in state.channels:
            if ch.messages and ch.status in FLOWING and ch.src in running and ch.dst in running:
                acts.append(ChannelDeliver(ch.src, ch.dst))
        # the scenario's next step before any fault, so that of two equally short traces the
        # checker reports the one without a fault
        if state.next_step < len(self.scenario.steps):
            acts.append(ScenarioStep(state.next_step))
        acts.extend(ChannelRecover(ch.src, ch.dst) for ch in state.channels
                    if ch.status == "RETRYING" and (ch.src, ch.dst) not in state.held_by_step)
        acts.extend(QmgrStart(name) for name in state.stopped_by_fault)
        if state.faults > 0:
            acts.extend(ChannelFail(ch.src, ch.dst) for ch in state.channels
                        if ch.messages and ch.status in FLOWING)
            acts.extend(QmgrStop(q.name) for q in state.qmgrs if q.running and q.name not in state.stopped_by_fault)
        return tuple(acts)

    def next_state(self, state: NetworkState, action: Any) -> NetworkState | None:
        after = self._next_state(state, action)
        if after is None:
            return None
        return _pubsub_after(state, action, after, self.mutations)

    def _next_state(self, state: NetworkState, action: Any) -> NetworkState | None:
        if isinstance(action, ChannelDeliver):
            ch = state.channel(action.src, action.dst)
            if ch is None or not ch.messages:
                return None
            msg, rest = ch.messages[0], ch.messages[1:]
            state = _set_channel(state, replace(ch, messages=rest, status="RUNNING"))
            if state.find(action.dst) is None:
                return state
            handler = _MESSAGE_HANDLERS[type(msg)]
            return handler(state, action.dst, msg, state.next_step - 1, self.mutations)
        if isinstance(action, ChannelFail):
            ch = state.channel(action.src, action.dst)
            if ch is None or state.faults <= 0:
                return None
            state = replace(_set_channel(state, replace(ch, status="RETRYING")), faults=state.faults - 1,
                            held_by_step=tuple(p for p in state.held_by_step if p != (ch.src, ch.dst)))
            return _wl_redrive(state, action.src, action.dst, state.next_step - 1, self.mutations)
        if isinstance(action, QmgrStop):
            q = state.find(action.name)
            if q is None or not q.running or state.faults <= 0:
                return None
            return replace(_put_qmgr(state, replace(q, running=False)), faults=state.faults - 1,
                           stopped_by_fault=tuple(sorted(state.stopped_by_fault + (q.name,))))
        if isinstance(action, QmgrStart):
            q = state.find(action.name)
            if q is None or action.name not in state.stopped_by_fault:
                return None
            state = replace(state, stopped_by_fault=tuple(n for n in state.stopped_by_fault if n != action.name))
            # the same restart as a scenario's `qmgr` start step (decisions-A: ends
            # non-durable subscriptions, re-evaluates WILDCARD(BLOCK))
            return _qmgr_started(state, action.name, state.next_step - 1, self.mutations)
        if isinstance(action, ChannelRecover):
            ch = state.channel(action.src, action.dst)
            if ch is None or ch.status != "RETRYING" or (ch.src, ch.dst) in state.held_by_step:
                return None
            return _set_channel(state, replace(ch, status="RUNNING"))
        if not isinstance(action, ScenarioStep) or action.index != state.next_step:
            return None
        if action.index >= len(self.scenario.steps):
            return None
        step = self.scenario.steps[action.index]
        state = replace(state, next_step=state.next_step + 1)
        if isinstance(step, sc.QmgrStep):
            return _step_qmgr(state, step, self.mutations, self.scenario)
        if isinstance(step, sc.ChannelStep):
            return _step_channel(state, step, self.mutations)
        if isinstance(step, sc.AdvanceStep):
            return _step_advance(state, step, self.mutations)
        handler = _STEP_HANDLERS.get(type(step))
        if handler is None:  # an unmodelled step: reported by unmodelled_in, no effect
            return state
        qmgr = getattr(step, "qmgr", None) or _wl_handle_qmgr(state, step.handle)  # put/close: the handle's
        blocked = _require_running(state, qmgr, step.index) if qmgr else None
        if blocked is not None:
            return blocked
        return handler(state, step, self.mutations)

    def properties(self) -> Sequence[Any]:
        return self._properties

    def encode(self, state: NetworkState) -> bytes:
        return canonical_bytes(state)

    # --- optional parts of the protocol ---------------------------------------------
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
            if ch and ch.messages:
                return f"{action}: {ch.messages[0]}"
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
            "messages": messages_of(state),
            "repositories": repositories_of(state),
            "errors": [f"{e.qmgr} {e.code}" for e in state.log],
        }


# What the receiving queue manager does with each kind of message a channel carries:
# handler(state, destination, message, step index, mutations) -> state.
_MESSAGE_HANDLERS = {
    rp.RepoMsg: process_repo_message,
    bd.AppMessage: lambda state, dst, msg, step, mut: _wl_arrive_message(state, dst, msg, step, mut),
}

# Scenario steps that act at one running queue manager: handler(state, step, mutations).
_STEP_HANDLERS = {
    sc.MqscStep: _step_mqsc,
    sc.OpenStep: lambda state, step, mut: _wl_open(_step_open(state, step, mut), step, mut),
    sc.PutStep: lambda state, step, mut: _wl_put(state, step, mut),
    sc.CloseStep: lambda state, step, mut: _wl_close(state, step, mut),
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
        return f"channel {step.qmgr}->{step.to} {step.status}"
    if isinstance(step, sc.QmgrStep):
        return f"{step.action} queue manager {step.name}"
    if isinstance(step, sc.AdvanceStep):
        return f"advance the clock {step.days} day{'' if step.days == 1 else 's'}"
    if isinstance(step, sc.RepublishStep):
        return f"republish {step.subscription} at {step.qmgr} ({step.action}{', as ' + repr(step.topic) if step.topic else ''})"
    return type(step).__name__


# ------------------------------------------------------------------- reporting
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


def repositories_of(state: NetworkState) -> dict[str, dict[str, dict]]:
    """Per queue manager and cluster, what its repository holds (DESIGN §2.3)."""
    return {q.name: {c.cluster: rp.view(c) for c in q.caches} for q in state.qmgrs if q.caches}


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
            _, outcome = objects.apply_command(objects.QueueManagerDef(qmgr), cmd)
            why = _UNMODELLED_OPERATIONS.get(type(outcome.operation))
            if why:
                notes.append(f"{where} (line {cmd.line}): {why} is not modelled yet; the command changes no modelled state")
            why = _wl_unmodelled_routing(qmgr, cmd)
            if why:
                notes.append(f"{where} (line {cmd.line}): {why}")
    return tuple(notes)


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


@dataclass(frozen=True, slots=True)
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
        results.append(ExpectationResult(expect.index, not failures, tuple(failures)))
    return tuple(results)


@dataclass(frozen=True, slots=True)
class RunReport:
    """What ``mqcheck run`` shows: the final state, expectation results, and what the
    scenario asked for that was not modelled."""

    scenario: str
    final: NetworkState
    expectations: tuple[ExpectationResult, ...]
    unmodelled: tuple[str, ...]
    not_joined: tuple[tuple[str, str], ...] = ()

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
            "unmodelled": list(self.unmodelled),
        }


SETTLE_LIMIT = 2000  # deliveries one settling may take before it is called endless


def _reconnectable(state: NetworkState) -> tuple[ChannelRecover, ...]:
    """The deterministic scheduler's channel recovery (the checker's ``ChannelRecover``,
    taken at the first chance): a RETRYING channel whose two ends run reconnects, unless a
    scenario step set its status. 000 §Resource definition for Full Repositories: channels
    "in retry ... hit a retry interval"; 000 §Workload management features: messages "wait
    on the transmission queue for the network to come back up" (retry intervals abstracted
    to: at the next chance once the partner runs)."""
    running = {q.name for q in state.qmgrs if q.running}
    return tuple(ChannelRecover(ch.src, ch.dst) for ch in state.channels
                 if ch.status == "RETRYING" and (ch.src, ch.dst) not in state.held_by_step
                 and ch.src in running and ch.dst in running)


def settle(model: MQNetwork, state: NetworkState) -> NetworkState:
    """Deliver every in-flight message in a fixed order until nothing can move: the first
    deliverable channel in (source, destination) order, one message at a time. A network
    that is still busy after :data:`SETTLE_LIMIT` deliveries (a publication loop that no
    fingerprint stops, e.g. republishing with MQACTP_NEW) is left as it is, with a
    NOT_SETTLED entry in the log. Before each delivery, channels that can reconnect do
    (:func:`_reconnectable`)."""
    for _ in range(SETTLE_LIMIT):
        for recover in _reconnectable(state):
            state = model.next_state(state, recover)
        delivers = [a for a in model.actions(state) if isinstance(a, ChannelDeliver)]
        if not delivers:
            return state
        state = model.next_state(state, delivers[0])
    if not any(isinstance(a, ChannelDeliver) for a in model.actions(state)):
        return state
    first = state.qmgrs[0].name if state.qmgrs else ""
    return _log(state, [LogEntry(first, "NOT_SETTLED", f"messages still in flight after {SETTLE_LIMIT} deliveries "
                                                      f"(an endless publication loop?)", state.next_step - 1)])


def run_scenario(scenario: sc.Scenario, explain: bool = False) -> RunReport:
    """The deterministic scheduler of ``mqcheck run`` (DESIGN §2.3): the initial MQSC, let
    the network settle, then each step followed by settling. ``explain`` records each
    workload choice's explanation (:func:`explanations_of`)."""
    model = MQNetwork(scenario, faults=0, explore_initial=False, mutations=Mutations(explain=explain))
    (state,) = model.init_states()
    while state.next_step < len(scenario.steps):
        state = settle(model, model.next_state(state, ScenarioStep(state.next_step)))
    not_joined = tuple((q.name, why) for q in state.qmgrs for why in why_not_joined(state, q))
    return RunReport(scenario.name, state, check_expectations(scenario, state), unmodelled_in(scenario), not_joined)


# --- distributed publish/subscribe (issue #6) --------------------------------------------
# DESIGN §3.3. The rules are pure functions in spec.pubsub; this section finds each queue
# manager's links, moves proxy subscriptions and publications over the channels, and runs
# the scenario's publish/subscribe steps. After every step and every delivery the queue
# managers concerned re-compute their demand and send what changed (``_ps_reconcile``):
# that single rule gives proxy subscribe/unsubscribe, aggregation, the synchronisation
# when a child connects to its parent or a member learns of a new member of a pub/sub
# cluster, and PROXYSUB(FORCE).
def pubsub_space(q: QmgrState) -> TopicSpace:
    """The topic space publish/subscribe uses at ``q``: with PSCLUS(DISABLED) cluster topic
    definitions are not used (002 §Inhibiting clustered publish/subscribe in a cluster)."""
    if q.defs.psclus == "DISABLED":
        return TopicSpace(q.defs.topics)
    return topic_space(q)


def pubsub_links(state: NetworkState, q: QmgrState) -> tuple[pubsub.Link, ...]:
    """``q``'s publish/subscribe neighbours: its parent and children (002 §Publish/subscribe
    hierarchies: PSMODE(ENABLED) at both ends) and the other members it knows of each
    publish/subscribe cluster it belongs to (002 §Cluster topics; not with PSCLUS(DISABLED))."""
    links: set[pubsub.Link] = set()
    if q.defs.psmode == "ENABLED":
        parent = state.find(q.defs.parent) if q.defs.parent and q.defs.parent != q.name else None
        if parent is not None and parent.defs.psmode == "ENABLED":
            links.add(pubsub.Link(parent.name, pubsub.HIERARCHY))
        for other in state.qmgrs:
            if other.name != q.name and other.defs.parent == q.name and other.defs.psmode == "ENABLED":
                links.add(pubsub.Link(other.name, pubsub.HIERARCHY))
    if q.defs.psclus == "ENABLED" and q.defs.psmode != "DISABLED":
        for cache in q.caches:
            if cache.is_pubsub_cluster():
                for r in cache.qmgr_records():
                    if r.owner_name != q.name and state.find(r.owner_name) is not None:
                        links.add(pubsub.Link(r.owner_name, cache.cluster))
    return tuple(sorted(links))


def _ps_reconcile(state: NetworkState, name: str, mut: Mutations) -> NetworkState:
    q = state.find(name)
    if q is None or not q.running:
        return state
    ps, sends = pubsub.reconcile(pubsub_space(q), q.pubsub, pubsub_links(state, q), q.name,
                                 lambda n: state.find(n) is not None, aggregate=not mut.no_proxy_aggregation,
                                 relay_within_cluster=mut.relay_within_cluster)
    if ps is q.pubsub:
        return state
    state = _put_qmgr(state, replace(q, pubsub=ps))
    for dst, msg in sends:
        state = _send(state, name, dst, msg)
    return state


def pubsub_after_step(state: NetworkState, step: int, mut: Mutations = NO_MUTATIONS) -> NetworkState:
    """After a step: stamp new subscriptions with the step (a ghost for the properties),
    then every running queue manager sends what changed in its demand."""
    for q in state.qmgrs:
        if any(s.created == pubsub.UNSTAMPED for s in q.pubsub.subscriptions):
            subs = tuple(replace(s, created=step) if s.created == pubsub.UNSTAMPED else s for s in q.pubsub.subscriptions)
            state = _put_qmgr(state, replace(q, pubsub=replace(q.pubsub, subscriptions=subs)))
    for q in state.qmgrs:
        if q.defs.parent != q.pubsub.parent_judged:
            state = _judge_parent(state, q, step)
    for q in state.qmgrs:
        state = _ps_reconcile(state, q.name, mut)
    return state


def _judge_parent(state: NetworkState, q: QmgrState, step: int) -> NetworkState:
    """A new PARENT that names no queue manager of the scenario, or the queue manager
    itself, connects nothing (002 §Publish/subscribe hierarchies: "Use the ALTER QMGR PARENT
    (PARENT_NAME) runmqsc command to connect children to parents"); it is logged once."""
    state = _put_qmgr(state, replace(q, pubsub=replace(q.pubsub, parent_judged=q.defs.parent)))
    parent = q.defs.parent
    if parent == q.name:
        return _log(state, [LogEntry(q.name, "PARENT_SELF", f"PARENT({parent}) names this queue manager; "
                                     "no hierarchy link", step)])
    if parent and state.find(parent) is None:
        return _log(state, [LogEntry(q.name, "PARENT_UNKNOWN", f"PARENT({parent}) names no queue manager of the "
                                     "scenario; no hierarchy link", step)])
    return state


def _pubsub_after(before: NetworkState, action: Any, after: NetworkState, mut: Mutations) -> NetworkState:
    if isinstance(action, ScenarioStep):
        return pubsub_after_step(after, action.index, mut)
    if isinstance(action, ChannelDeliver):
        return _ps_reconcile(after, action.dst, mut)
    return pubsub_after_step(after, after.next_step - 1, mut)


def _ps_route(state: NetworkState, name: str, pub: Publication, came_from: str | None, came_via: str | None,
              scope_qmgr: bool, step: int, mut: Mutations) -> NetworkState:
    q = state.qmgr(name)
    r = pubsub.route_publication(
        pubsub_space(q), q.pubsub, pub, me=q.name, qmid=q.qmid, came_from=came_from, came_via=came_via,
        scope_qmgr=scope_qmgr, step=step, next_serial=q.published, check_fingerprints=not mut.no_fingerprint_check,
        aggregate=not mut.no_proxy_aggregation, relay_within_cluster=mut.relay_within_cluster,
        ignore_subscope_remote=mut.ignore_subscope_remote, links=pubsub_links(state, q))
    state = _put_qmgr(state, replace(q, pubsub=r.ps, published=max(q.published, r.published)))
    for dst, msg in r.sends:
        state = _send(state, name, dst, msg)
    return _log(state, [LogEntry(name, e.code, e.detail, step) for e in r.errors])


def _ps_refused_by_psclus(state: NetworkState, dst: str, msg: Any, step: int) -> NetworkState | None:
    # 002 §Inhibiting clustered publish/subscribe in a cluster: with PSCLUS(DISABLED) proxy
    # subscriptions and publications from the cluster are "seen and rejected"
    if msg.via and state.qmgr(dst).defs.psclus == "DISABLED":
        return _log(state, [LogEntry(dst, "PSCLUS_DISABLED", f"{msg} rejected: PSCLUS(DISABLED)", step)])
    return None


def receive_proxy_subscription(state: NetworkState, dst: str, msg: pubsub.ProxySubMsg, step: int,
                               mut: Mutations = NO_MUTATIONS) -> NetworkState:
    """``dst`` registers or cancels a neighbour's proxy subscription; a new one is answered
    with the matching retained publications (002 §Retained publications in a distributed
    publish/subscribe topology)."""
    refused = _ps_refused_by_psclus(state, dst, msg, step)
    if refused is not None:
        return refused
    q = state.qmgr(dst)
    ps, new = pubsub.receive_proxy(q.pubsub, msg, q.name, aggregate=not mut.no_proxy_aggregation)
    state = _put_qmgr(state, replace(q, pubsub=ps))
    if new:
        for pm in pubsub.retained_for(pubsub_space(q), ps, msg.topic, q.name, q.qmid, msg.via):
            state = _send(state, dst, msg.sender, pm)
    return state


def receive_publication(state: NetworkState, dst: str, msg: pubsub.PublicationMsg, step: int,
                        mut: Mutations = NO_MUTATIONS) -> NetworkState:
    """``dst`` receives a forwarded publication: fingerprints are decoded from the RFH2
    folder and the publication is routed (DESIGN §3.3 steps 1-3)."""
    refused = _ps_refused_by_psclus(state, dst, msg, step)
    if refused is not None:
        return refused
    pub = Publication(msg.topic, msg.origin, msg.serial, msg.retain, msg.fingerprints, msg.lineage)
    if msg.answers:
        # 002 §Retained publications in a distributed publish/subscribe topology: an answer
        # to a new proxy subscription is for the subscriptions that proxy carries
        q = state.qmgr(dst)
        r = pubsub.receive_retained_answer(
            pubsub_space(q), q.pubsub, pub, msg.answers, me=q.name, qmid=q.qmid, came_from=msg.sender,
            came_via=msg.via, check_fingerprints=not mut.no_fingerprint_check,
            relay_within_cluster=mut.relay_within_cluster, links=pubsub_links(state, q))
        state = _put_qmgr(state, replace(q, pubsub=r.ps))
        for to, out in r.sends:
            state = _send(state, dst, to, out)
        return _log(state, [LogEntry(dst, e.code, e.detail, step) for e in r.errors])
    return _ps_route(state, dst, pub, msg.sender, msg.via, False, step, mut)


def _step_publish(state: NetworkState, step: sc.PublishStep, mut: Mutations) -> NetworkState:
    """An application publishes ``count`` times; ``scope = "QMGR"`` is MQPMO_SCOPE_QMGR."""
    q = state.qmgr(step.qmgr)
    topic, log = _full_topic(q, step.topicobj, step.topic, step.index)
    state = _log(state, log)
    if topic is None:
        return state
    for _ in range(step.count):
        q = state.qmgr(step.qmgr)
        pub = Publication(topic, q.name, q.published, retain=step.retain)
        state = _put_qmgr(state, replace(q, published=q.published + 1))
        state = _ps_route(state, q.name, pub, None, None, step.scope == "QMGR", step.index, mut)
    return state


def _step_subscribe(state: NetworkState, step: sc.SubscribeStep, mut: Mutations) -> NetworkState:
    q = state.qmgr(step.qmgr)
    topic, log = _full_topic(q, step.topicobj, step.topic, step.index)
    if topic is None:
        return _log(state, log)
    sub = pubsub.Subscription(name=step.name, topic=topic, scheme=step.scheme, scope=step.scope, group=step.group,
                              dest=step.dest, durable=step.durable, created=step.index)
    ps, errors = pubsub.subscribe(pubsub_space(q), q.pubsub, sub, step.new_only)
    return _log(_put_qmgr(state, replace(q, pubsub=ps)), [LogEntry(q.name, e.code, e.detail, step.index) for e in errors])


def _ps_remove_subscription(ps: pubsub.LocalPubSub, name: str) -> pubsub.LocalPubSub:
    """The subscription is gone, and with it the republishing application reading it."""
    ps, _ = pubsub.unsubscribe(ps, name)
    return replace(ps, republishers=tuple(r for r in ps.republishers if r.subscription != name))


def _api_subscription_named(q: QmgrState, cmd: Any) -> bool:
    """Does a DEFINE/ALTER/DELETE SUB name a subscription an application made (MQSUB)? MQ
    keeps one subscription namespace per queue manager: DISPLAY SUB lists both kinds and
    DELETE SUB removes either (002 §Subscribers and subscriptions; §Subscription durability)."""
    return (cmd.objtype == "SUB" and cmd.verb in ("DEFINE", "ALTER", "DELETE")
            and q.defs.subscription(cmd.name) is None and q.pubsub.subscription(cmd.name) is not None)


def _mqsc_on_api_subscription(state: NetworkState, name: str, cmd: Any, step: int) -> NetworkState:
    # DELETE SUB removes it; DEFINE SUB finds the name taken (AMQ8150, with or without
    # REPLACE: turning an API subscription into an administrative one is not modelled);
    # ALTER SUB is not modelled for API subscriptions and is refused the same way
    q = state.qmgr(name)
    if cmd.verb == "DELETE":
        return _put_qmgr(state, replace(q, pubsub=_ps_remove_subscription(q.pubsub, cmd.name)))
    detail = objects.AMQ8150(cmd.name) + " (a subscription made by an application)"
    return _log(state, [LogEntry(name, "AMQ8150", detail, step)])


def _step_unsubscribe(state: NetworkState, step: sc.UnsubscribeStep, mut: Mutations) -> NetworkState:
    """MQCLOSE with MQCO_REMOVE_SUB: any subscription of that name, an administrative one
    (DEFINE SUB) included — one namespace per queue manager."""
    q = state.qmgr(step.qmgr)
    if q.pubsub.subscription(step.name) is None:
        _, errors = pubsub.unsubscribe(q.pubsub, step.name)
        return _log(state, [LogEntry(q.name, e.code, e.detail, step.index) for e in errors])
    defs = replace(q.defs, subscriptions=tuple(s for s in q.defs.subscriptions if s.name != step.name))
    return _put_qmgr(state, replace(q, defs=defs, pubsub=_ps_remove_subscription(q.pubsub, step.name)))


def _step_republish(state: NetworkState, step: sc.RepublishStep, mut: Mutations) -> NetworkState:
    """From now on an application gets each publication delivered to ``subscription`` and
    publishes it again with action NEW or FORWARD (002 §Loop detection fingerprint format)."""
    q = state.qmgr(step.qmgr)
    if q.pubsub.subscription(step.subscription) is None:
        return _log(state, [LogEntry(q.name, "MQRC_NO_SUBSCRIPTION", f"no subscription named {step.subscription}",
                                     step.index)])
    rep = pubsub.Republisher(step.subscription, step.action, step.topic)
    reps = tuple(sorted(set(q.pubsub.republishers) | {rep}, key=lambda r: (r.subscription, r.action, r.topic)))
    return _put_qmgr(state, replace(q, pubsub=replace(q.pubsub, republishers=reps)))


def refresh_proxy_subscriptions(state: NetworkState, name: str) -> NetworkState:
    """REFRESH QMGR TYPE(PROXYSUB): every proxy subscription is sent again (002 §Resynchronization
    of proxy subscriptions); the neighbours already holding one keep one (aggregation), with
    the demand paths it carries now."""
    q = state.qmgr(name)
    return _put_qmgr(state, replace(q, pubsub=replace(q.pubsub, proxies_sent=(), sent_paths=())))


def pubsub_refresh_cluster(state: NetworkState, name: str, cluster: str) -> NetworkState:
    """REFRESH CLUSTER discards "any cluster topics and their associated proxy subscriptions"
    (002 §REFRESH CLUSTER considerations): the proxy subscriptions held here from members of
    the cluster are gone (until they resynchronise: REFRESH QMGR TYPE(PROXYSUB)), and this
    queue manager's own are sent again once it knows the members again."""
    q = state.qmgr(name)
    hit = (lambda via: bool(via)) if cluster == "*" else (lambda via: via == cluster)
    ps = replace(q.pubsub, proxies=tuple(p for p in q.pubsub.proxies if not hit(p[1])),
                 proxies_sent=tuple(p for p in q.pubsub.proxies_sent if not hit(p[1])),
                 proxy_paths=tuple(h for h in q.pubsub.proxy_paths if not hit(h[0][1])),
                 sent_paths=tuple(h for h in q.pubsub.sent_paths if not hit(h[0][1])))
    return _put_qmgr(state, replace(q, pubsub=ps))


def proxy_subscriptions_of(state: NetworkState) -> dict[str, list[str]]:
    """Per queue manager, the proxy subscriptions neighbours hold there ("QM2 (CL1): topic")."""
    return {q.name: [f"{n}{' (' + v + ')' if v else ''}: {t}" for n, v, t in q.pubsub.proxies]
            for q in state.qmgrs if q.pubsub.proxies}


_MESSAGE_HANDLERS.update({
    pubsub.ProxySubMsg: receive_proxy_subscription,
    pubsub.PublicationMsg: receive_publication,
})
_STEP_HANDLERS.update({
    sc.PublishStep: _step_publish,
    sc.SubscribeStep: _step_subscribe,
    sc.UnsubscribeStep: _step_unsubscribe,
    sc.RepublishStep: _step_republish,
})


# --- workload management and bind options (issue #7) -----------------------------------
# The glue between the network and spec/binding.py + spec/workload.py: handles live in the
# opening queue manager's state, application messages travel as bd.AppMessage on the same
# channels as repository messages, each queue manager threads its own workload history.
HOP_LIMIT_PER_QMGR = 4  # bd module docstring: a modelling bound, far above any settled path


def _wl_handle_qmgr(state: NetworkState, handle: str) -> str:
    for q in state.qmgrs:
        if any(h.name == handle for h in q.handles):
            return q.name
    return ""


def _wl_joined(q: QmgrState) -> frozenset[str]:
    return frozenset(c.cluster for c in q.caches)


def _wl_handle(q: QmgrState, name: str) -> bd.Handle | None:
    return next((h for h in q.handles if h.name == name), None)


def _wl_put_handle(q: QmgrState, handle: bd.Handle) -> QmgrState:
    rest = tuple(h for h in q.handles if h.name != handle.name)
    return replace(q, handles=tuple(sorted(rest + (handle,), key=lambda h: h.name)))


def _wl_status_of(state: NetworkState, q: QmgrState) -> dict[str, str]:
    """Destination -> status of q's channel to it (a channel never used is INACTIVE)."""
    return {ch.dst: ch.status for ch in state.channels if ch.src == q.name}


def _wl_mutated(view: wl.QmgrView, put: wl.Put, mut: Mutations) -> wl.QmgrView:
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


def _wl_choose(state: NetworkState, qname: str, put: wl.Put, handle: str, serial: int, bind: str, step: int,
               mut: Mutations, redrive: str = "", exclude_local: bool = False
               ) -> tuple[NetworkState, wl.Choice]:
    """Run the algorithm at ``qname``, thread its history, record the ghost decision."""
    q = state.qmgr(qname)
    view = bd.view_of(q, _wl_status_of(state, q), exclude_local)
    history = bd.thaw_history(q.wl_history)
    choice, decision = bd.decide(view, put, history, handle, serial, bind, bool(redrive), _wl_mutated(view, put, mut),
                                 redrive)
    explained = q.explained
    if mut.explain:
        order = sum(len(x.decisions) for x in state.qmgrs)  # the choices' global order
        what = put.object_name + (f" (queue manager {put.target_qmgr})" if put.target_qmgr else "")
        what += f", re-driven from the RETRYING channel to {redrive}" if redrive else ""
        what += ", arrived over a cluster channel" if put.via_cluster_channel and not redrive else ""
        explained += ((order, step, handle, serial, qname, what, choice.lines()),)
    q = replace(q, wl_history=bd.freeze_history(choice.history), decisions=q.decisions + (decision,),
                explained=explained)
    return _put_qmgr(state, q), choice


def _wl_arrive(state: NetworkState, qname: str, handle: str, queue: str, group: str) -> NetworkState:
    """A message is put to the local queue ``queue`` at ``qname``."""
    q = state.qmgr(qname)
    counts = {(h, qu, g): n for h, qu, g, n in q.arrivals}
    key = (handle, queue, group)
    counts[key] = counts.get(key, 0) + 1
    state = _put_qmgr(state, replace(q, arrivals=tuple(sorted((*k, n) for k, n in counts.items()))))
    # the run's record, kept with the handle: deleting the queue manager the message arrived
    # at later does not erase that it arrived (messages_of)
    opener = _wl_handle_qmgr(state, handle)
    if not opener:
        return state
    o = state.qmgr(opener)
    h = _wl_handle(o, handle)
    per = dict(h.arrived)
    per[qname] = per.get(qname, 0) + 1
    return _put_qmgr(state, _wl_put_handle(o, replace(h, arrived=tuple(sorted(per.items())))))


def _wl_send_or_arrive(state: NetworkState, qname: str, dest: wl.Destination, msg: bd.AppMessage,
                       step: int = INITIAL, mut: Mutations = NO_MUTATIONS) -> NetworkState:
    """Put the message to the local queue, or on the transmission queue for ``dest``. A
    channel that must start for it towards a stopped or deleted queue manager cannot
    connect: it enters RETRYING and its unbound messages are re-driven (spec/binding.py)."""
    if dest.local or dest.qmgr == qname:
        return _wl_arrive(state, qname, msg.handle, msg.queue, msg.group)
    state = _send(state, qname, dest.qmgr, msg)
    far = state.find(dest.qmgr)
    ch = state.channel(qname, dest.qmgr)
    if (far is None or not far.running) and ch.status in FLOWING:
        state = _set_channel(state, replace(ch, status="RETRYING"))
        state = _wl_redrive(state, qname, dest.qmgr, step, mut)
    return state


def _wl_open(state: NetworkState, step: sc.OpenStep, mut: Mutations) -> NetworkState:
    """MQOPEN: a handle; with MQOO_BIND_ON_OPEN (asked, or AS_Q_DEF with DEFBIND(OPEN)) the
    algorithm chooses now, when the queue is known (001: "used at the point a cluster queue
    is opened"); otherwise at the first put (spec/binding.py docstring)."""
    q = state.qmgr(step.qmgr)
    handle = bd.Handle(step.handle, q.name, step.queue, step.target_qmgr, step.bind)
    res = bd.resolve_local(q.defs, q.name, step.queue, step.target_qmgr, _wl_joined(q))
    if res.kind == "cluster" and all(c.full for c in q.caches) and not bd.candidates(
            bd.view_of(q, {}, res.exclude_local), wl.Put(res.queue, res.target_qmgr)):
        # 000 §First MQOPEN of a Queue: only a partial repository subscribes and waits; a
        # full repository of every cluster it is in (or a queue manager in none) knows now
        reason = wl.Reason.MQRC_UNKNOWN_REMOTE_Q_MGR if res.target_qmgr else wl.Reason.MQRC_UNKNOWN_OBJECT_NAME
        res = replace(res, kind="error", reason=str(reason))
    if res.kind == "error":
        # the handle is kept, invalid, so that its puts fail visibly (MQRC_HOBJ_ERROR)
        state = _put_qmgr(state, _wl_put_handle(q, replace(handle, failed=res.reason)))
        return _log(state, [LogEntry(q.name, res.reason, f"MQOPEN {step.queue}: {res.reason}", step.index)])
    state = _put_qmgr(state, _wl_put_handle(q, handle))
    if res.kind == "cluster" and res.target_qmgr:
        state = _wl_subscribe_target(state, q.name, res.target_qmgr, mut)
    if res.kind == "cluster":
        state, handle = _wl_resolve_bind(state, handle, res, step.index, mut, serial=0)
    return state


def _wl_subscribe_target(state: NetworkState, name: str, target: str, mut: Mutations) -> NetworkState:
    """A partial repository that opens a queue on a named queue manager subscribes for that
    name as a queue manager and as a queue manager alias (a clustered QREMOTE record), as
    _step_open does for the queue (000 §First MQOPEN of a Queue)."""
    q = state.qmgr(name)
    out = _Outbox()
    for cache in q.caches:
        keys = tuple(k for k in ((rp.QMGR, target), (rp.QUEUE, target)) if k not in cache.interests)
        if cache.full or not keys:
            continue
        for key in keys:
            cache = rp.subscribe_interest(cache, key)
        targets, _ = _two_frs(state, q, cache, mut)
        for fr in targets:
            out.send(fr, rp.RepoMsg(rp.SUBSCRIBE, cache.cluster, q.qmid, q.name, False, keys=keys))
        q = _put_cache(q, cache)
    state = _put_qmgr(state, q)
    return out.flush(state, q)


def _wl_resolve_bind(state: NetworkState, handle: bd.Handle, res: bd.Resolved, step: int, mut: Mutations,
                     serial: int) -> tuple[NetworkState, bd.Handle]:
    """Settle what the handle's bind option means, and bind an ON_OPEN handle."""
    q = state.qmgr(handle.qmgr)
    view = bd.view_of(q, _wl_status_of(state, q), res.exclude_local)
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
    if handle.bind == bd.BIND_ON_OPEN and handle.bound is None and known:
        state, choice = _wl_choose(state, q.name, wl.Put(res.queue, res.target_qmgr), handle.name, serial,
                                   handle.bind, step, mut, exclude_local=res.exclude_local)
        if choice.destination is None:
            state = _log(state, [LogEntry(q.name, str(choice.reason), f"MQOPEN {handle.queue}: {choice.reason}", step)])
        handle = replace(handle, bound=choice.destination)
    state = _put_qmgr(state, _wl_put_handle(state.qmgr(q.name), handle))
    return state, handle


def _wl_put(state: NetworkState, step: sc.PutStep, mut: Mutations) -> NetworkState | None:
    """MQPUT ``count`` times. While the queue is still unknown here and the repository is
    still exchanging messages (the first MQOPEN's subscription, 000 §First MQOPEN of a
    Queue), the put waits: ``None``, the step is not enabled yet. ``run`` settles before
    every step, so it never waits there."""
    qname = _wl_handle_qmgr(state, step.handle)
    if not qname:  # its queue manager was deleted with the handle
        return state
    failed = _wl_handle(state.qmgr(qname), step.handle).failed
    if failed:  # the MQOPEN failed: every MQPUT through the handle fails
        return _log(state, [LogEntry(qname, "MQRC_HOBJ_ERROR", f"MQPUT through {step.handle} (message {i}): "
                                     f"MQRC_HOBJ_ERROR, its MQOPEN failed with {failed}", step.index)
                            for i in range(step.count)])
    if _wl_waits_for_repository(state, qname, step.handle):
        return None
    for _ in range(step.count):
        state = _wl_put_one(state, qname, step.handle, step.group, step.index, mut)
    return state


def _wl_waits_for_repository(state: NetworkState, qname: str, name: str) -> bool:
    q = state.qmgr(qname)
    handle = _wl_handle(q, name)
    res = bd.resolve_local(q.defs, qname, handle.queue, handle.target_qmgr, _wl_joined(q))
    if res.kind != "cluster" or handle.bound is not None:
        return False
    if bd.candidates(bd.view_of(q, {}, res.exclude_local), wl.Put(res.queue, res.target_qmgr)):
        return False
    return any(isinstance(m, rp.RepoMsg) for ch in state.channels if qname in (ch.src, ch.dst) for m in ch.messages)


def _wl_put_one(state: NetworkState, qname: str, name: str, group: str, step: int, mut: Mutations) -> NetworkState:
    """One MQPUT through a handle (000 §When does workload balancing occur?; 004 §Pros and
    cons of binding)."""
    q = state.qmgr(qname)
    handle = _wl_handle(q, name)
    serial = handle.puts
    handle = replace(handle, puts=serial + 1)
    state = _put_qmgr(state, _wl_put_handle(q, handle))
    res = bd.resolve_local(q.defs, qname, handle.queue, handle.target_qmgr, _wl_joined(q))
    if res.kind == "error":
        return _log(state, [LogEntry(qname, res.reason, f"MQPUT {handle.queue}: {res.reason}", step)])
    msg = bd.AppMessage(name, serial, res.queue, res.target_qmgr, False, group, (qname,))
    if res.kind == "local":
        if q.defs.queue(res.queue).put == "DISABLED":
            return _log(state, [LogEntry(qname, "MQRC_PUT_INHIBITED", f"MQPUT {handle.queue}: MQRC_PUT_INHIBITED", step)])
        return _wl_arrive(state, qname, name, res.queue, group)
    if res.kind == "xmitq":
        return _wl_send_p2p(state, qname, res, msg, step, mut)
    state, handle = _wl_resolve_bind(state, handle, res, step, mut, serial=serial)
    grouped = handle.bind == bd.BIND_ON_GROUP and bool(group)
    if handle.bind == bd.BIND_ON_OPEN or (grouped and handle.group == group):
        dest = handle.bound  # chosen at MQOPEN / at the group's first message
    else:
        dest = None
    if dest is None:
        bind = handle.bind or bd.BIND_NOT_FIXED
        state, choice = _wl_choose(state, qname, wl.Put(res.queue, res.target_qmgr), name, serial, bind, step, mut,
                                   exclude_local=res.exclude_local)
        dest = choice.destination
        if dest is None:
            return _log(state, [LogEntry(qname, str(choice.reason), f"MQPUT {handle.queue}: {choice.reason}", step)])
        if handle.bind == bd.BIND_ON_OPEN or grouped:
            handle = replace(handle, bound=dest, group=group)
            state = _put_qmgr(state, _wl_put_handle(state.qmgr(qname), handle))
    # 004 §Pros and cons of binding: bound messages cannot change target; nor can those
    # naming a queue manager ("Unless it's fixed for another reason")
    bound = handle.bind == bd.BIND_ON_OPEN or grouped or bool(res.target_qmgr)
    return _wl_send_or_arrive(state, qname, dest, replace(msg, bound=bound), step, mut)


def _wl_close(state: NetworkState, step: sc.CloseStep, mut: Mutations) -> NetworkState:
    qname = _wl_handle_qmgr(state, step.handle)
    if not qname:
        return state
    q = state.qmgr(qname)
    return _put_qmgr(state, _wl_put_handle(q, replace(_wl_handle(q, step.handle), closed=True)))


def _wl_arrive_message(state: NetworkState, dst: str, msg: bd.AppMessage, step: int, mut: Mutations) -> NetworkState:
    """The receiving channel puts the message (000 §When does workload balancing occur?:
    "at the far end the channel code issues an MQPUT ... and the workload algorithm will be
    called"): name resolution here, then the local queue or the algorithm again."""
    q = state.qmgr(dst)
    msg = replace(msg, hops=msg.hops + (dst,))
    if len(msg.hops) > HOP_LIMIT_PER_QMGR * len(state.qmgrs):
        return _log(state, [LogEntry(dst, "HOP_LIMIT", f"{msg}: dead-lettered after {len(msg.hops)} hops", step)])
    res = bd.resolve_local(q.defs, dst, msg.queue, msg.target_qmgr, _wl_joined(q))
    if res.kind == "error":
        return _log(state, [LogEntry(dst, res.reason, f"{msg}: put to the dead-letter queue", step)])
    if res.kind == "xmitq":
        return _wl_send_p2p(state, dst, res, msg, step, mut)
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
        return _wl_put_local(state, dst, msg, res.queue, step)
    put = wl.Put(res.queue, res.target_qmgr, via_cluster_channel=not msg.p2p)
    state, choice = _wl_choose(state, dst, put, msg.handle, msg.serial, "", step, mut, exclude_local=res.exclude_local)
    if choice.destination is None:
        return _log(state, [LogEntry(dst, str(choice.reason), f"{msg}: put to the dead-letter queue", step)])
    # a message from a RCVR channel is put by the MCA like a NOT_FIXED put unless it names a
    # queue manager (the p2p leg bound it to this gateway only)
    bound = (msg.bound and not msg.p2p) or bool(res.target_qmgr)
    onward = replace(msg, queue=res.queue, target_qmgr=res.target_qmgr, bound=bound, p2p=False)
    return _wl_send_or_arrive(state, dst, choice.destination, onward, step, mut)


def _wl_p2p_peer(state: NetworkState, qname: str, xmitq: str) -> str:
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


def _wl_send_p2p(state: NetworkState, qname: str, res: bd.Resolved, msg: bd.AppMessage, step: int,
                 mut: Mutations) -> NetworkState:
    """Put the message to transmission queue ``res.xmitq`` addressed to (queue, queue manager):
    it flows over the point-to-point channel serving that queue (reusing the pair's FIFO),
    bound (no workload choice is involved: one route). Without such a channel it waits on
    the transmission queue for ever, which is logged (XMITQ_NO_CHANNEL)."""
    msg = replace(msg, queue=res.queue, target_qmgr=res.target_qmgr, bound=True, p2p=True)
    peer = _wl_p2p_peer(state, qname, res.xmitq)
    if not peer:
        return _log(state, [LogEntry(qname, "XMITQ_NO_CHANNEL", f"{msg}: waits on transmission queue {res.xmitq}: "
                                     f"no SDR channel with XMITQ({res.xmitq}) reaches a RCVR of its name", step)])
    return _wl_send_or_arrive(state, qname, wl.Destination(peer, "", False), msg, step, mut)


def _wl_put_local(state: NetworkState, dst: str, msg: bd.AppMessage, queue: str, step: int) -> NetworkState:
    """The receiving channel puts the message to the local queue ``queue``; a PUT(DISABLED)
    queue sends it to the dead-letter queue, logged MQRC_PUT_INHIBITED (the channel's MQPUT
    fails as an application's would; decisions-D: MQ's MCA dead-letters it)."""
    obj = state.qmgr(dst).defs.queue(queue)
    if obj is not None and obj.put == "DISABLED":
        return _log(state, [LogEntry(dst, "MQRC_PUT_INHIBITED", f"{msg}: {queue} is PUT(DISABLED); put to the "
                                     "dead-letter queue", step)])
    return _wl_arrive(state, dst, msg.handle, queue, msg.group)


def _wl_redrive(state: NetworkState, src: str, dst: str, step: int, mut: Mutations) -> NetworkState:
    """A channel entered RETRYING: its unbound application messages go through the
    algorithm again and move if another destination is chosen (000 §When does workload
    balancing occur?; 004 §Channel availability routing). Bound messages stay."""
    ch = state.channel(src, dst)
    q = state.find(src)
    if ch is None or ch.status != "RETRYING" or q is None or not q.running:
        return state
    if not any(isinstance(m, bd.AppMessage) for m in ch.messages):
        return state
    keep: list[Any] = []
    moved: list[tuple[wl.Destination, bd.AppMessage]] = []
    for m in ch.messages:
        if not isinstance(m, bd.AppMessage) or (m.bound and not mut.redrive_bound_messages):
            keep.append(m)
            continue
        obj = state.qmgr(src).defs.queue(m.queue)
        exclude = obj is not None and obj.qtype != "QLOCAL"
        put = wl.Put(m.queue, m.target_qmgr, via_cluster_channel=len(m.hops) > 1)
        state, choice = _wl_choose(state, src, put, m.handle, m.serial, "REDRIVE", step, mut, redrive=dst,
                                   exclude_local=exclude)
        dest = choice.destination
        if dest is None or (dest.qmgr == dst and not dest.local):
            keep.append(m)
        else:
            moved.append((dest, m))
    state = _set_channel(state, replace(state.channel(src, dst), messages=tuple(keep)))
    for dest, m in moved:
        state = _wl_send_or_arrive(state, src, dest, m, step, mut)
    return state


def messages_of(state: NetworkState) -> dict[str, dict[str, int]]:
    """Per open handle, how many of its messages arrived on each queue manager's local
    queue (DESIGN §2.3 ``messages``); every handle is listed, queue managers that got none
    are not. Arrivals at a queue manager deleted later still count (the handle keeps them)."""
    out: dict[str, dict[str, int]] = {h.name: dict(h.arrived) for q in state.qmgrs for h in q.handles}
    for q in state.qmgrs:  # handles whose own queue manager was deleted: what is left
        for handle, _queue, _group, n in q.arrivals:
            if _wl_handle_qmgr(state, handle):
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
