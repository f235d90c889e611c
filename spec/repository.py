"""Cluster repositories: records, sequence numbers, full and partial repositories.

Sources: 003 §Queue managers and repositories, §Cluster channels, §Auto-definition of
channels; 000 §WMQ Cluster Architecture, §Resource definition for a Partial Repository,
§Resource definition for Full Repositories, §Considerations for Full Repositories,
§Initial definitions, §Checking initial definitions, §First MQOPEN of a Queue,
§Incorrectly deleted queue managers, §Refreshing repository information, §Cluster Topic
Hosts; 002 §Cluster topics, §Key roles for publish/subscribe cluster queue managers,
§REFRESH CLUSTER considerations; DESIGN §3.4.

Each queue manager holds one :class:`ClusterCache` per cluster it takes part in. A record
(:class:`Record`) describes something a queue manager owns — itself (from its CLUSRCVR),
a cluster queue, a cluster topic — with the owner's QMID and a per-owner sequence number;
a cache applies a record only when its sequence number is newer than the one it holds
("the repositories have to discard duplicates. Each item of information carries a
sequence number" — 003). Deletions and forced removals are kept as tombstones so a late
copy of an older version is still recognised as stale.

The functions here are pure: given a cache and an incoming :class:`RepoMsg`, they return
the new cache, the messages to send (as ``(destination queue manager, message)``) and
log entries. ``spec.network`` moves the messages over channels.

Abstracted away: the repository task's internal queues (SYSTEM.CLUSTER.COMMAND.QUEUE is
read as soon as a message arrives; SYSTEM.CLUSTER.REPOSITORY.QUEUE is the cache itself and
survives a restart), channel attributes other than the workload ones, the expiry of
subscriptions at full repositories (a subscription stays until REFRESH CLUSTER or RESET
CLUSTER; partial repositories re-subscribe on the same 30-day cycle as they republish,
``spec.network.repositories._republish_all``), and the
"hourly" repetition of missing-refresh messages (one entry per missing record).
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from dataclasses import field
from operator import attrgetter
from typing import Any

from spec.objects import conname_key, shares_address
from spec.values import replace, value

QMGR, QUEUE, TOPIC = "QMGR", "QUEUE", "TOPIC"
TEMPQMGR_PREFIX = "SYSTEM.TEMPQMGR."

# 002 §Key roles ("at least 60 days") and 000 §Incorrectly deleted queue managers ("up to
# 90 days"); 002 (v7.5) wins where they differ (DESIGN §3.7). Owners republish every 30.
REPUBLISH_DAYS = 30
EXPIRY_DAYS = {TOPIC: 60, QMGR: 90, QUEUE: 90}

# Message operations
JOIN, UPDATE, SUBSCRIBE, REMOVE = "JOIN", "UPDATE", "SUBSCRIBE", "REMOVE"


@value
class QmgrInfo:
    """A queue-manager record's content: its CLUSRCVR channel, which auto-defined CLUSSDRs
    copy (003 §Auto-definition of channels), plus its role and SUSPEND state."""

    channel: str
    conname: str
    full_repository: bool
    suspended: bool = False
    clwlwght: int = 50
    clwlrank: int = 0
    clwlprty: int = 0
    netprty: int = 0


@value
class QueueInfo:
    """A cluster queue record's content: what other queue managers' workload algorithm and
    bind options read."""

    put: str = "ENABLED"
    defbind: str = "OPEN"
    clwlrank: int = 0
    clwlprty: int = 0
    qmgr_alias: bool = False  # a clustered QREMOTE with a blank RNAME (000 Scenarios 2 and 5)


@value
class Record:
    """One item of cluster information.

    ``key`` is the queue or topic object name ("" for a queue-manager record, whose key is
    its owner). ``published`` is the day (scenario clock) the owner published this
    version; ``deleted`` marks a tombstone (the object was deleted, or its owner forcibly
    removed).
    """

    kind: str
    cluster: str
    key: str
    owner: str  # QMID
    owner_name: str
    seq: int
    published: int = 0
    deleted: bool = False
    info: Any = None  # QmgrInfo | QueueInfo | spec.objects.TopicObject
    _digest: bytes | None = field(default=None, init=False, repr=False, compare=False)  # spec.encoding.DIGEST_FIELD

    @property
    def ident(self) -> tuple[str, str, str, str]:
        return (self.kind, self.cluster, self.owner, self.key)


@value
class RepoMsg:
    """A message between repository tasks (to SYSTEM.CLUSTER.COMMAND.QUEUE).

    JOIN: a queue manager's first contact over its manual CLUSSDR, carrying its own
    records. UPDATE: records (``reply`` when answering a JOIN or SUBSCRIBE). SUBSCRIBE: a
    partial repository asks for ``keys`` ((kind, key) pairs). REMOVE: RESET CLUSTER
    ACTION(FORCEREMOVE) of ``removed`` (a QMID).
    """

    op: str
    cluster: str
    sender: str  # QMID
    sender_name: str
    sender_full: bool
    records: tuple[Record, ...] = ()
    keys: tuple[tuple[str, str], ...] = ()
    reply: bool = False
    removed: str = ""
    _digest: bytes | None = field(default=None, init=False, repr=False, compare=False)  # spec.encoding.DIGEST_FIELD

    def __str__(self) -> str:
        parts = [f"{self.op}{'(reply)' if self.reply else ''}[{self.cluster}]"]
        if self.records and not self.removed:  # a REMOVE's tombstones are implied by removed=
            parts.append(",".join(f"{r.kind}:{r.owner_name}{'/' + r.key if r.key else ''}#{r.seq}"
                                  f"{'(del)' if r.deleted else ''}" for r in self.records))
        if self.keys:
            parts.append(f"keys={list(self.keys)}")
        if self.removed:
            parts.append(f"removed={self.removed}")
        return " ".join(parts)


@value
class ClusterCache:
    """One queue manager's repository for one cluster.

    ``records`` sorted by ident (tombstones included). ``tempqmgr``: CONNAMEs of manual
    CLUSSDRs whose full repository has not answered yet — shown as SYSTEM.TEMPQMGR entries
    (000 §Initial definitions). ``subscribers`` (full repositories): (subscriber QMID,
    subscriber name, kind, key) to notify of changes. ``interests`` (partial
    repositories): the (kind, key) pairs it subscribed for, the full repositories' records
    its JOIN's answer gave included (003 §Queue managers and repositories: it requests
    "that thereafter they be notified"). ``highest_seen``: a ghost
    variable for RP-NO-STALE-APPLY — the highest sequence number ever received per record.
    ``last_publish``: a ghost variable for RP-TWO-FRS — the full repositories this queue
    manager sent its last own update to, and how many it knew. ``last_subscribe``: a ghost
    variable for RP-SUBSCRIBE-AVAILABLE — the full repositories its last MQOPEN
    subscription went to, and those it knew that were available then.
    """

    cluster: str
    full: bool = False
    records: tuple[Record, ...] = ()
    tempqmgr: tuple[str, ...] = ()
    subscribers: tuple[tuple[str, str, str, str], ...] = ()
    interests: tuple[tuple[str, str], ...] = ()
    highest_seen: tuple[tuple[tuple[str, str, str, str], int], ...] = ()
    last_publish: tuple[tuple[str, ...], int] = ((), 0)
    last_subscribe: tuple[tuple[str, ...], tuple[str, ...]] = ((), ())
    discarded: bool = False  # ghost: a duplicate or stale copy was discarded here
    refreshed: bool = False  # ghost: REFRESH CLUSTER was issued here
    removed: tuple[str, ...] = ()  # ghost: QMIDs forcibly removed (RESET CLUSTER) here
    _digest: bytes | None = field(default=None, init=False, repr=False, compare=False)  # spec.encoding.DIGEST_FIELD
    joined: tuple[str, ...] = ()  # CONNAMEs of manual CLUSSDRs a JOIN has been sent over

    # --- views --------------------------------------------------------------------
    def live(self) -> tuple[Record, ...]:
        return tuple(r for r in self.records if not r.deleted)

    def get(self, ident: tuple[str, str, str, str]) -> Record | None:
        records = self.records
        i = bisect_left(records, ident, key=_IDENT)   # records are sorted by ident
        return records[i] if i < len(records) and _IDENT(records[i]) == ident else None

    def live_of(self, kind: str) -> tuple[Record, ...]:
        """The live records of one kind, in ident order: a slice of ``records``, which are
        sorted by ident and so by kind first."""
        records = self.records
        lo = bisect_left(records, kind, key=_KIND)
        hi = bisect_right(records, kind, lo=lo, key=_KIND)
        return tuple(r for r in records[lo:hi] if not r.deleted)

    def qmgr_records(self) -> tuple[Record, ...]:
        return self.live_of(QMGR)

    def full_repositories(self) -> tuple[Record, ...]:
        """Queue-manager records of the full repositories this cache knows, by name (one
        per queue manager: its first CLUSRCVR's)."""
        return tuple(sorted((r for r in self.qmgr_records() if r.info.full_repository and r.key == ""),
                            key=lambda r: (r.owner_name, r.owner)))

    def qmgr_record_of(self, name: str) -> Record | None:
        """The queue manager's record (its first CLUSRCVR's; further CLUSRCVRs of the
        cluster have records keyed by channel name)."""
        found = [r for r in self.qmgr_records() if r.owner_name == name]
        primary = [r for r in found if r.key == ""]
        return (primary or found)[-1] if found else None

    def is_pubsub_cluster(self) -> bool:
        """002 §Cluster topics / 000 §Cluster Topics: "Pub/Sub Cluster exists when there are
        one or more cluster topics"."""
        return bool(self.live_of(TOPIC))

    def seen(self, ident) -> int:
        seen = self.highest_seen
        i = bisect_left(seen, (ident,))   # sorted by ident; (ident,) sorts before (ident, seq)
        return seen[i][1] if i < len(seen) and seen[i][0] == ident else -1


# A record's ident as a tuple built in C, to keep ``records`` sorted by binary search (a
# cache of a large cluster holds hundreds of records, and each one applied was a sort).
_IDENT = attrgetter("kind", "cluster", "owner", "key")
_KIND = attrgetter("kind")


def _with_record(cache: ClusterCache, record: Record) -> ClusterCache:
    records, ident = cache.records, record.ident
    i = bisect_left(records, ident, key=_IDENT)
    j = i + 1 if i < len(records) and _IDENT(records[i]) == ident else i   # the held one is replaced
    return replace(cache, records=records[:i] + (record,) + records[j:])


def note_seen(cache: ClusterCache, record: Record) -> ClusterCache:
    """Ghost bookkeeping: the highest sequence number received for the record's ident."""
    if record.seq <= cache.seen(record.ident):
        return cache
    seen, ident = cache.highest_seen, record.ident
    i = bisect_left(seen, (ident,))
    j = i + 1 if i < len(seen) and seen[i][0] == ident else i
    return replace(cache, highest_seen=seen[:i] + ((ident, record.seq),) + seen[j:])


def apply_record(cache: ClusterCache, record: Record, check_sequence: bool = True) -> tuple[ClusterCache, bool]:
    """Apply one record if it is newer than the held one; return (cache, applied).

    003 §Queue managers and repositories: "Each item of information carries a sequence
    number, which the repositories use to identify duplicates." ``check_sequence=False``
    exists only for the mutant that ignores sequence numbers (tests/test_repository.py).
    """
    cache = note_seen(cache, record)
    held = cache.get(record.ident)
    if check_sequence and held is not None and held.seq >= record.seq:
        return (cache if cache.discarded else replace(cache, discarded=True)), False
    if held == record:
        return cache, False
    cache = _with_record(cache, record)
    if record.kind == QMGR and not record.deleted and answers_tempqmgr(cache, record):
        # 000 §Initial definitions: the TEMPQMGR name "will be changed when the Partial
        # Repository has communicated with the Full Repository and found out the real name"
        # (the CONNAMEs compared as addresses: 'FR1' is 'fr1(1414)' — DESIGN §3.4)
        cache = replace(cache, tempqmgr=tuple(c for c in cache.tempqmgr
                                              if not _same_listener(c, record.info.conname)))
    return cache, True


def answers_tempqmgr(cache: ClusterCache, record: Record) -> bool:
    """Whether a queue-manager record is the one a SYSTEM.TEMPQMGR entry waits for: its
    CLUSRCVR CONNAME is the manual CLUSSDR's, as an address (``objects.conname_key``), or
    names the same host without a port (003 §Auto-definition of channels: the manual
    CLUSSDR's port reached it)."""
    return any(_same_listener(c, record.info.conname) for c in cache.tempqmgr)


def unanswered(connames: tuple[str, ...], records: tuple[Record, ...]) -> tuple[str, ...]:
    """The manual CLUSSDR CONNAMEs that no held queue-manager record answers: those a
    SYSTEM.TEMPQMGR entry still stands for."""
    return tuple(c for c in connames if not any(_same_listener(c, r.info.conname) for r in records
                                                  if r.kind == QMGR and not r.deleted))


def _same_listener(manual: str, clusrcvr: str) -> bool:
    if shares_address(manual, clusrcvr):  # the same address, or one of a multi-instance list
        return True
    return ("(" not in clusrcvr and bool(clusrcvr.strip())
            and [h for h, _ in conname_key(manual)] == [h for h, _ in conname_key(clusrcvr)])


def remove_owner(cache: ClusterCache, qmid: str, tombstones: tuple[Record, ...] = ()) -> ClusterCache:
    """RESET CLUSTER ACTION(FORCEREMOVE): every record of ``qmid`` becomes a tombstone
    (000 §Incorrectly deleted queue managers), and its subscriptions are dropped.
    ``tombstones`` (the removing full repository's) are kept for records not held here, so
    a copy still on its way arrives stale and is discarded; only the owner's re-announcement
    with new sequence numbers (REFRESH CLUSTER) brings it back."""
    held = {r.ident for r in cache.records}
    upto = {t.ident: t.seq for t in tombstones if t.owner == qmid}
    for t in tombstones:
        if t.owner == qmid and t.ident not in held:
            cache = note_seen(_with_record(cache, replace(t, deleted=True)), t)
    # a record newer than the removal (the owner re-announced itself since) stays
    last = max(upto.values(), default=None)
    records = tuple(replace(r, deleted=True)
                    if r.owner == qmid and not r.deleted and (last is None or r.seq <= upto.get(r.ident, last)) else r
                    for r in cache.records)
    subscribers = tuple(s for s in cache.subscribers if s[0] != qmid)
    removed = cache.removed if qmid in cache.removed else tuple(sorted(cache.removed + (qmid,)))
    return replace(cache, records=records, subscribers=subscribers, removed=removed)


def subscribe_interest(cache: ClusterCache, key: tuple[str, str]) -> ClusterCache:
    if key in cache.interests:
        return cache
    return replace(cache, interests=tuple(sorted(cache.interests + (key,))))


def add_subscriber(cache: ClusterCache, qmid: str, name: str, key: tuple[str, str]) -> ClusterCache:
    entry = (qmid, name, key[0], key[1])
    if entry in cache.subscribers:
        return cache
    return replace(cache, subscribers=tuple(sorted(cache.subscribers + (entry,))))


def records_for(cache: ClusterCache, key: tuple[str, str]) -> tuple[Record, ...]:
    """What a full repository answers to a subscription: every live record of a queue
    (all its instances) or of a queue manager (000 §First MQOPEN of a Queue)."""
    kind, name = key
    if kind == QUEUE:
        return tuple(r for r in cache.live_of(QUEUE) if r.key == name)
    return tuple(r for r in cache.live_of(QMGR) if r.owner_name == name)


def interested_in(cache: ClusterCache, record: Record) -> tuple[tuple[str, str], ...]:
    """Subscribers (QMID, name) of a full repository to notify of a changed record."""
    if record.kind == QUEUE:
        wanted = (QUEUE, record.key)
    elif record.kind == QMGR:
        wanted = (QMGR, record.owner_name)
    else:
        return ()
    return tuple(sorted({(s[0], s[1]) for s in cache.subscribers if (s[2], s[3]) == wanted}))


def view(cache: ClusterCache) -> dict:
    """What ``mqcheck run --json`` shows of a cache (DESIGN §2.3 ``repositories``): the
    queue managers it knows (TEMPQMGR entries as such), each queue with its hosting queue
    managers, the cluster topics (topic strings), and, when any, the suspended queue
    managers."""
    # a name held under two QMIDs (a queue manager deleted and recreated without RESET
    # CLUSTER — 000 §Incorrectly deleted queue managers) is shown by its QMIDs instead
    owners: dict[str, set[str]] = {}
    for r in cache.qmgr_records():
        owners.setdefault(r.owner_name, set()).add(r.owner)
    names = {name if len(ids) == 1 else qmid for name, ids in owners.items() for qmid in ids}
    qmgrs = sorted(names | {TEMPQMGR_PREFIX + c for c in cache.tempqmgr})
    queues: dict[str, list[str]] = {}
    twice = {name for name, ids in owners.items() if len(ids) > 1}
    for r in cache.live():
        if r.kind == QUEUE:
            # a host whose name is held under two QMIDs is shown by QMID, as in "qmgrs"
            queues.setdefault(r.key, []).append(r.owner if r.owner_name in twice else r.owner_name)
    topics = sorted({r.info.topicstr for r in cache.live_of(TOPIC)})
    out = {
        "qmgrs": qmgrs,
        "queues": {q: sorted(set(h)) for q, h in sorted(queues.items())},
        "topics": topics,
    }
    # SUSPEND QMGR CLUSTER(C) as this cache holds it (000 §Workload management features;
    # 001 rule 7): shown only when some member is suspended, so a trace shows when the
    # SUSPEND (or RESUME) reached this queue manager
    suspended = sorted({r.owner_name if r.owner_name not in twice else r.owner
                        for r in cache.qmgr_records() if r.info.suspended})
    if suspended:
        out["suspended"] = suspended
    return out
