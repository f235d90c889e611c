"""The network's state and the actions that change it (DESIGN §2.1): plain immutable values.

State (:class:`NetworkState`):
- ``qmgrs`` (sorted by name): per queue manager its object definitions (``spec.objects``), whether it is
  running, its incarnation (QMID = name + incarnation: a deleted and recreated queue
  manager is a different queue manager to the cluster — 000 §Incorrectly deleted queue
  managers), its publish/subscribe state (``spec.pubsub``), its cluster caches
  (``spec.repository``), one per cluster, and its application handles (``spec.binding``);
- ``channels`` (sorted by source, then destination): one FIFO per directed queue-manager pair, the contents of the sender's
  SYSTEM.CLUSTER.TRANSMIT.QUEUE for that destination (003 §Cluster transmission queue),
  with the channel's status; and status-only entries: a queue manager's own CLUSRCVR
  (``bd.local_receiver_key``) and each separate route to a queue manager with several
  CLUSRCVRs in a cluster (``bd.route_key``; the route's messages wait on the pair's FIFO,
  tagged with it: ``AppMessage.route``);
- ``clock``: scenario days (for republishing and expiry); ``next_step``: the next scenario
  step; ``logs``: the error log; ``faults``: the fault budget left.

Actions, named actor-then-verb:
- ``ScenarioStep(i)`` — an administrator or application performs step ``i`` (external; in
  order);
- ``ChannelDeliver(src, dst, route)`` — the first message of a route of a channel arrives and the receiving
  queue manager processes it (internal);
- ``ChannelFail(src, dst)`` / ``ChannelRecover(src, dst)`` — a fault: the channel goes to
  RETRYING and back; ``QmgrStop(name)`` / ``QmgrStart(name)`` — a queue manager stops and
  restarts (only when the scenario's ``[check] faults`` or ``--faults N`` allows: each
  failure spends one unit of the budget, recoveries spend none).

The helpers at the end (``add_log``, ``put_qmgr``, ``put_cache``) are the only ways the
other modules of the package rebuild a state; everything else is a function of the state.
"""

from __future__ import annotations

import io
import pickle
from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import field
from operator import attrgetter
from typing import Any

from spec import binding as bd, objects, repository as rp
from spec.encoding import canonical_bytes, inline_bytes
from spec.pubsub import LocalPubSub
from spec.values import replace, value

INITIAL = -1  # the step index of log entries made before the first scenario step


FLOWING = ("RUNNING", "INACTIVE", "BINDING", "INITIALIZING", "STARTING")  # a message can move


@value
class LogEntry:
    """An error-log entry or a failed call: ``step`` is the scenario step (INITIAL before
    the first), ``code`` an AMQ message number, an MQRC reason, or a short name."""

    qmgr: str
    code: str
    detail: str
    step: int


@value
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
    # ghost (PS-PSCLUS-REFUSED): the clustered topic objects it knew when an ALTER QMGR last asked
    # to take PSCLUS from ENABLED to DISABLED
    psclus_asked: tuple[str, ...] = ()
    # how it appears in a parent's encoding, kept on the object (spec.encoding.DIGEST_FIELD),
    # and how it appears in another queue manager's delivery-memo key (memo.py): not part
    # of the value
    _digest: bytes | None = field(default=None, init=False, repr=False, compare=False)
    _outside: bytes | None = field(default=None, init=False, repr=False, compare=False)

    @property
    def qmid(self) -> str:
        return f"{self.name}_{self.incarnation}"

    def cache(self, cluster: str) -> rp.ClusterCache | None:
        for c in self.caches:
            if c.cluster == cluster:
                return c
        return None


@value
class Channel:
    """The messages waiting from ``src`` for ``dst`` (FIFO), and the channel's status."""

    src: str
    dst: str
    status: str = "INACTIVE"
    messages: tuple[Any, ...] = ()
    _digest: bytes | None = field(default=None, init=False, repr=False, compare=False)  # QmgrState's


@value(eq=False)
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
    # uniform clusters (issue #19; spec.uniform.UniformState): None without one
    uniform: Any = None
    # the canonical encoding, computed once per state (spec.encoding.canonical_bytes): not
    # part of the value (not an __init__ argument, so spec.values.replace starts it afresh)
    _encoded: bytes | None = field(default=None, init=False, repr=False, compare=False)

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
        q = self.find(name)
        if q is None:
            raise KeyError(name)
        return q

    def find(self, name: str) -> QmgrState | None:
        qmgrs = self.qmgrs
        i = qmgr_position(qmgrs, name)
        return qmgrs[i] if i >= 0 else None

    def channel(self, src: str, dst: str) -> Channel | None:
        channels = self.channels
        i = channel_position(channels, src, dst)
        return channels[i] if i >= 0 else None

    def route_status(self, src: str, dst: str, route: str = "") -> str:
        """The status of the route from ``src`` to ``dst``: the pair's channel for ``""``,
        else the separate route's own entry (``Channel(src, bd.route_key(dst, route))``,
        status only: its messages wait on the pair's FIFO, tagged with the route)."""
        ch = self.channel(src, bd.route_key(dst, route) if route else dst)
        return "INACTIVE" if ch is None else ch.status

    def running_names(self) -> set[str]:
        """The names of the queue managers that run (all of them, as a rule: then the set is
        built in C)."""
        qmgrs = self.qmgrs
        if all(map(_RUNNING, qmgrs)):
            return set(map(_NAME, qmgrs))
        return {q.name for q in qmgrs if q.running}

    def in_flight(self) -> int:
        return sum(len(ch.messages) for ch in self.channels)

    def settled(self) -> bool:
        """No message in flight can move without another scenario step: each waits for or at
        a queue manager a step stopped or deleted, or on a channel a step left stopped or
        retrying. One whose ends run or were stopped by a fault (which may restart), on a
        route that flows or is RETRYING by a fault (which may recover), can still move. The
        scenario's ``wait`` step, and the end of a scenario for ``[[expect]]`` in ``check``."""
        live = self.running_names() | set(self.stopped_by_fault)
        for ch in self.channels:
            if not ch.messages or ch.src not in live or ch.dst not in live:
                continue
            for m in ch.messages:
                route = getattr(m, "route", "")
                status = self.route_status(ch.src, ch.dst, route)
                held = (ch.src, bd.route_key(ch.dst, route) if route else ch.dst) in self.held_by_step
                if status in FLOWING or (status == "RETRYING" and not held):
                    return False
        return True


@value
class ScenarioStep:
    """An administrator or application performs scenario step ``index``."""

    index: int

    def __str__(self) -> str:
        return f"ScenarioStep({self.index})"


def _via(route: str) -> str:
    return f" route {route}" if route else ""


def route_of(msg: Any) -> str:
    """The route a message travels on: an application message's separate route, else ""
    (the pair's channel: repository, publish/subscribe and point-to-point messages)."""
    return msg.route if isinstance(msg, bd.AppMessage) else ""


@value
class ChannelDeliver:
    """The first message of ``route`` on the channel from ``src`` to ``dst`` arrives and is
    processed (the head message, for a queue manager with one route)."""

    src: str
    dst: str
    route: str = ""  # a separate route's CLUSSDR name (spec.binding.separate_routes); "" the pair's channel

    def __str__(self) -> str:
        return f"ChannelDeliver({self.src}->{self.dst}{_via(self.route)})"


@value
class ChannelFail:
    """Fault: the channel from ``src`` to ``dst`` (its separate ``route``) goes into RETRYING."""

    src: str
    dst: str
    route: str = ""  # a separate route's CLUSSDR name (spec.binding.separate_routes); "" the pair's channel

    def __str__(self) -> str:
        return f"ChannelFail({self.src}->{self.dst}{_via(self.route)})"


@value
class ChannelRecover:
    """The channel from ``src`` to ``dst`` leaves RETRYING and runs again (the retry that
    connects: only while both ends run, ``channels.recoverable``)."""

    src: str
    dst: str
    route: str = ""  # a separate route's CLUSSDR name (spec.binding.separate_routes); "" the pair's channel

    def __str__(self) -> str:
        return f"ChannelRecover({self.src}->{self.dst}{_via(self.route)})"


@value
class ChannelRetry:
    """The RETRYING channel from ``src`` to ``dst`` (its separate ``route``) is retried: its
    waiting unbound messages go through the workload algorithm again and those for which it
    now chooses another available destination move (004 §Channel availability routing:
    "every time the channel is retried"). Enabled only when one would move; the channel stays
    RETRYING (``ChannelRecover`` is the retry that connects)."""

    src: str
    dst: str
    route: str = ""  # a separate route's CLUSSDR name (spec.binding.separate_routes); "" the pair's channel

    def __str__(self) -> str:
        return f"ChannelRetry({self.src}->{self.dst}{_via(self.route)})"


@value
class QmgrStop:
    """Fault: queue manager ``name`` stops (endmqm); its channels stop with it."""

    name: str

    def __str__(self) -> str:
        return f"QmgrStop({self.name})"


@value
class QmgrStart:
    """Queue manager ``name``, stopped by a fault, starts again (strmqm)."""

    name: str

    def __str__(self) -> str:
        return f"QmgrStart({self.name})"


# A mutant switch for tests: each flag breaks one documented rule on purpose, so tests can
# show the checker catches it (DESIGN §5 "Mutants"). Never set outside tests.
@value
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
    bound_rebalanced_when_gone: bool = False  # bind: a bound message whose queue went on the way is balanced again at the far end
    # issue #18's fidelity defects, re-introduced (issue #14 item 5; docs/decisions.md)
    useq_any_no_subscribe: bool = False  # 1: MQOPEN of a CLWLUSEQ(ANY) local instance learns no remote ones
    local_clusrcvr_status_ignored: bool = False  # 2: STOP CHANNEL of its own CLUSRCVR is ignored (001 rule 6)
    first_clusrcvr_only: bool = False  # 3: only a queue manager's first CLUSRCVR per cluster is published
    demotion_untold: bool = False  # 4: a full repository altered to partial tells nobody
    unavailable_frs_chosen: bool = False  # 5: a partial repository ignores whether a full repository is up
    portless_conname_unreached: bool = False  # 6: a manual CLUSSDR misses a CLUSRCVR whose CONNAME has no port
    psclus_remote_topics_ignored: bool = False  # 7: PSCLUS(DISABLED) accepted beside remotely defined cluster topics
    scope_all_ignored: bool = False  # 8: MQSO_SCOPE_ALL does not override SUBSCOPE(QMGR)
    explain: bool = False  # not a mutant: record each choice's explanation (mqcheck run --explain)


NO_MUTATIONS = Mutations()


# Parts of states met in this process, by how they encode (spec.encoding.inline_bytes; a
# QmgrState or Channel keeps it on the object), and each tuple of parts by the parts'
# identities (the parts are kept alive by the table). Cleared when full, like
# spec.encoding's memo.
_SHARED: dict[Any, Any] = {}
_SHARED_LIMIT = 20_000

# Each queue manager and channel pickled once per process, kept by identity with the part
# (so its id is not reused while cached): (part, (its inline bytes, its pickle)).
_PICKLED: dict[int, tuple[Any, tuple[bytes, bytes]]] = {}
_PICKLED_LIMIT = 20_000
_PARTS = (QmgrState, Channel)
PROTOCOL = 5


def _met(key: Any, make: Any) -> Any:
    """The object this process met under ``key``, else ``make()`` remembered under it."""
    known = _SHARED.get(key)
    if known is None:
        if len(_SHARED) >= _SHARED_LIMIT:
            _SHARED.clear()
        known = _SHARED[key] = make()
    return known


class _Shipper(pickle.Pickler):
    """A state's pickle in which each queue manager and channel is its inline bytes and
    its own pickle (a persistent id), made once per part object."""

    def persistent_id(self, obj: Any) -> Any:
        if type(obj) not in _PARTS:
            return None
        hit = _PICKLED.get(id(obj))
        if hit is None or hit[0] is not obj:
            if len(_PICKLED) >= _PICKLED_LIMIT:
                _PICKLED.clear()
            hit = _PICKLED[id(obj)] = (obj, (obj._digest or inline_bytes(obj), pickle.dumps(obj, PROTOCOL)))
        return hit[1]


class _Unshipper(pickle.Unpickler):
    """Loads what :class:`_Shipper` wrote, building only the parts not met before."""

    def persistent_load(self, pid: Any) -> Any:
        key, data = pid
        return _met(key, lambda: pickle.loads(data))


def ship(state: NetworkState) -> bytes:
    """The bytes a state travels as between processes (the Spark backend's frontier and
    successors): a pickle whose queue managers and channels are each their encoding's
    digest and their own pickle, made once per part object in this process. A receiver
    (:func:`unship`) builds only the parts it has not met, and shares the rest."""
    out = io.BytesIO()
    _Shipper(out, PROTOCOL).dump(state)
    return out.getvalue()


def unship(data: bytes) -> NetworkState:
    """The state :func:`ship` made (or a plain pickle of one: run directories written
    before states were shipped this way), with its queue managers and channels, and their
    tuples, the objects this process met before wherever they encode alike.

    A state unpickled on a Spark executor would otherwise be a tree of fresh objects, on
    which every identity cache misses: the encoding's memo, the delivery memo's keys, the
    property views. Its value, encoding and fingerprint do not change; the state is fresh
    (nothing else holds it yet), so its two tuples are replaced in place."""
    state = _Unshipper(io.BytesIO(data)).load()
    for name in ("qmgrs", "channels"):
        parts = [_met(part._digest or inline_bytes(part), lambda part=part: part) for part in getattr(state, name)]
        # keyed by the parts' ids: a tuple in the table keeps its parts alive, so an id
        # there cannot belong to another object
        object.__setattr__(state, name, _met((name, *map(id, parts)), lambda: tuple(parts)))
    return state


def add_log(state: NetworkState, entries: Sequence[LogEntry]) -> NetworkState:
    """The state with ``entries`` appended to their queue managers' error logs."""
    if not entries:
        return state
    logs = dict(state.logs)
    for e in entries:
        logs[e.qmgr] = logs.get(e.qmgr, ()) + (e,)
    return replace(state, logs=tuple(sorted(logs.items())))


def put_qmgr(state: NetworkState, q: QmgrState) -> NetworkState:
    """The state with queue manager ``q.name`` replaced by ``q``."""
    qmgrs = state.qmgrs
    i = qmgr_position(qmgrs, q.name)
    return replace(state, qmgrs=qmgrs if i < 0 else qmgrs[:i] + (q,) + qmgrs[i + 1:])


# A state keeps its queue managers sorted by name and its channels by (source, destination)
# (``NetworkState``), so one is found by binary search: settling a cluster of hundreds of
# queue managers looks one up several times per delivery. The keys are built in C.
_NAME = attrgetter("name")
_RUNNING = attrgetter("running")
_ENDS = attrgetter("src", "dst")


def qmgr_position(qmgrs: tuple[QmgrState, ...], name: str) -> int:
    """The index of queue manager ``name`` in ``qmgrs`` (sorted by name; -1: none)."""
    i = bisect_left(qmgrs, name, key=_NAME)
    return i if i < len(qmgrs) and qmgrs[i].name == name else -1


def channel_position(channels: tuple[Channel, ...], src: str, dst: str) -> int:
    """The index of the channel from ``src`` to ``dst`` in ``channels`` (sorted by
    (src, dst); -1: none)."""
    i = bisect_left(channels, (src, dst), key=_ENDS)
    return i if i < len(channels) and channels[i].dst == dst and channels[i].src == src else -1


def put_cache(q: QmgrState, cache: rp.ClusterCache) -> QmgrState:
    """The queue manager with its cache for ``cache.cluster`` replaced (or added)."""
    rest = tuple(c for c in q.caches if c.cluster != cache.cluster)
    return replace(q, caches=tuple(sorted(rest + (cache,), key=lambda c: c.cluster)))
