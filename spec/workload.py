"""IBM MQ's cluster workload management algorithm as a pure function.

Source: 001_409bb33830e2113c.txt (all of it; its rule numbering is authoritative), 000 §Workload
management features, §Utilising remote destinations, §Rank - basics, §Channel Rank example,
§Queue Rank example, §Channel Weight example, §Cluster Workload Algorithm, §Routing messages
in and out of clusters; 004 §Channel workload balancing, §Channel availability routing,
§AMQSCLM Logic; DESIGN §3.5 and §3.7.

:func:`choose` takes the putting queue manager's view (:class:`QmgrView`: its cluster cache,
its own CLUSRCVR channels and local instance, channel statuses, CLWLUSEQ, CLWLMRUC), the put
(:class:`Put`: object name, optional target queue manager, arrived over a cluster channel?)
and the channel history (:class:`History`), and returns a :class:`Choice`: a destination
plus the *new* history, or an MQRC reason, with the rules applied in order and what each
eliminated. Nothing is mutated; the caller threads the history.

A destination is a *route*: an instance (a queue, or a queue manager alias, or just a queue
manager when one is named) reached through one channel. Remote instances are reached through
the CLUSSDR channel auto-defined from each CLUSRCVR record of the hosting queue manager, whose
workload attributes come from that CLUSRCVR (DESIGN §3.4); the local instance competes through
the putting queue manager's own CLUSRCVR channels in the queue's clusters (001 rule 6: that
is why four CLUSRCVRs against one remote CLUSSDR give 80% local under CLWLUSEQ(ANY)). Every
channel rule (3, 7, 8-11, 12, 13, 15 and the final choice) treats local routes like remote
ones, with the local CLUSRCVR's attributes and status.

Modelling choices (each argued where it is implemented):
- 001's order is kept where 000's older list differs: rank (rules 3-4) and PUT (rule 5) come
  before the local instance (rule 6), so a higher-ranked remote queue beats CLWLUSEQ(LOCAL)
  (001 rule 6 applies "if the resulting set of queues contains the local instance"). A
  message arriving over a cluster channel for a queue with a local instance never reaches
  this function: the network model puts it to that instance (DESIGN §3.5; 000 §Utilising
  remote destinations, "to avoid looping round the cluster"; spec/binding.py). ``Put``'s
  ``via_cluster_channel`` matters only where the far end runs the algorithm again: a
  gateway's alias, or no local instance.
- The channel statuses are a cascade to the best non-empty class (DESIGN §3.7).
- The final choice has 001's two modes: every remaining channel at the default CLWLWGHT(50),
  the least recently used channel (lowest DestSeqNumber); any other weight, the lowest
  DestSeqFactor ("the total number of times each channel has previously been chosen"). The
  two differ when channels are shared by several queues (001: "it is the historic use of
  each cluster sender channel ... that is being balanced").
- DestSeqFactor grows by exactly ``Fraction(1000, CLWLWGHT)`` where 001 says "approximately
  1000/CLWLWGHT": the counts are then exactly proportional to the weights at the end of every
  full weight cycle (:func:`weight_cycle`), and mid-cycle no channel is more than one pick
  ahead of another, weighted.
- Ties the documents leave open ("one of the channels with the lowest DestSeqNumber", and
  which of equally-old channels CLWLMRUC drops) go to the lowest (queue manager, channel)
  name, so the choice never depends on input order.
- Only the workload attributes of *channels* (CLWLWGHT, CLWLRANK, CLWLPRTY, NETPRTY) and a
  channel becoming available reset the factors (001); 000's "attributes of available
  destinations" would also count queue attributes. The reset happens when the next choice
  *observes* the change; the network model can call :meth:`History.reset_factors` at the
  event itself if an interleaving needs it.

Abstracted away: the cluster workload exit (001 rule 2 note), topic host routing (001's
fourth bullet), cluster control (PCF) messages (000 §Cluster Workload Algorithm rules 4 and
10), administrative traffic that makes real distributions inexact (001's closing paragraph).

The network model (spec/network/) supplies, per choice: the view built from the putting
queue manager's repository (records of the clusters it is in; SUSPEND QMGR CLUSTER(X) set
on the records of cluster X), the statuses of its CLUSSDRs and own CLUSRCVRs, and its
history; it does the name resolution around the algorithm *before* calling :func:`choose`
(local QALIAS/QREMOTE and queue manager aliases, 000 Scenarios 1-5: the gateway's
``QREMOTE(CQM) RNAME(' ') RQMNAME(' ')`` turns a put to (CQ1, CQM) into a put to
(CQ1, blank); a non-clustered local queue never reaches the algorithm) and *after* it (what
a chosen alias resolves to at its host, which re-runs the algorithm there: DESIGN §3.5's
re-run at each hop). Bind options (when to call) live in spec/binding.py.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from enum import StrEnum
from fractions import Fraction
from spec.values import replace, value


__all__ = [
    "CLWLWGHT_DEFAULT",
    "CLWLMRUC_DEFAULT",
    "ChannelStatus",
    "STATUS_CLASSES",
    "Reason",
    "ClusterReceiver",
    "QueueInstance",
    "QmgrAlias",
    "ChannelState",
    "QmgrView",
    "Put",
    "ChannelUse",
    "History",
    "Destination",
    "RuleStep",
    "Choice",
    "Distribution",
    "choose",
    "distribute",
    "weight_cycle",
]

CLWLWGHT_DEFAULT = 50  # 000 §Utilising processing power: "Range 1 – 99, Default 50"
CLWLMRUC_DEFAULT = 999_999_999  # ALTER QMGR CLWLMRUC default (as spec/objects.py)
USEQ_VALUES = ("LOCAL", "ANY", "QMGR")  # 000 §Utilising remote destinations
DEFBIND_VALUES = ("OPEN", "NOTFIXED", "GROUP")  # 000 §Workload balancing - Bind Options


class ChannelStatus(StrEnum):
    """Channel states the algorithm distinguishes (001 rules 8-11; MQCHS_* without the prefix)."""

    INACTIVE = "INACTIVE"
    RUNNING = "RUNNING"
    BINDING = "BINDING"
    INITIALIZING = "INITIALIZING"
    STARTING = "STARTING"
    STOPPING = "STOPPING"
    RETRYING = "RETRYING"
    REQUESTING = "REQUESTING"
    PAUSED = "PAUSED"
    STOPPED = "STOPPED"
    SWITCHING = "SWITCHING"


# 001 rules 8, 9, 10, 11 (best first); DESIGN §3.7: a cascade to the best non-empty class.
STATUS_CLASSES: tuple[frozenset[ChannelStatus], ...] = tuple(
    frozenset(ChannelStatus(name) for name in names.split())
    for names in ("INACTIVE RUNNING", "BINDING INITIALIZING STARTING STOPPING", "RETRYING",
                  "REQUESTING PAUSED STOPPED SWITCHING")
)
_CLASS_NAMES = ("INACTIVE/RUNNING", "BINDING/INITIALIZING/STARTING/STOPPING", "RETRYING",
                "REQUESTING/PAUSED/STOPPED/SWITCHING")


def _status_class(status: ChannelStatus) -> int:
    return next(i for i, members in enumerate(STATUS_CLASSES) if status in members)


class Reason(StrEnum):
    """The outcome of a choice, as the MQ reason code an application would see."""

    MQRC_NONE = "MQRC_NONE"  # 0
    MQRC_UNKNOWN_OBJECT_NAME = "MQRC_UNKNOWN_OBJECT_NAME"  # 2085
    MQRC_UNKNOWN_REMOTE_Q_MGR = "MQRC_UNKNOWN_REMOTE_Q_MGR"  # 2087
    MQRC_CLUSTER_PUT_INHIBITED = "MQRC_CLUSTER_PUT_INHIBITED"  # 2268, 001 rule 5 note


def _check_range(owner: str, name: str, value: int, low: int, high: int) -> None:
    if not low <= value <= high:
        raise ValueError(f"{owner}: {name}({value}) is out of range; use {low} to {high}")


# ---------------------------------------------------------------------------------------
# Inputs: the putting queue manager's view
# ---------------------------------------------------------------------------------------
@value
class ClusterReceiver:
    """One CLUSRCVR channel of a queue manager: its cluster queue-manager record.

    Remote ones come from the cache (the auto-defined CLUSSDR to ``qmgr`` takes these
    attributes, DESIGN §3.4); the putting queue manager's own ones are in
    :attr:`QmgrView.local_receivers`. ``suspended`` is SUSPEND QMGR as carried by the records;
    ``suspended_in`` names the clusters it is suspended from, since SUSPEND QMGR CLUSTER(X) is
    per cluster (000 §Workload management features: "suspended from the cluster"). A channel
    in several clusters (CLUSNL) can be suspended from some only; ``suspended=True`` alone
    means from all of its clusters. Rule 7 asks :meth:`suspended_from` about the clusters a
    route uses.
    """

    qmgr: str  # queue manager that owns the CLUSRCVR
    channel: str  # channel name (the auto-defined CLUSSDR has the same name)
    clusters: tuple[str, ...]  # CLUSTER or the names of CLUSNL
    clwlwght: int = CLWLWGHT_DEFAULT  # 1-99
    clwlrank: int = 0  # 0-9
    clwlprty: int = 0  # 0-9
    netprty: int = 0  # 0-9
    suspended: bool = False
    suspended_in: tuple[str, ...] = ()  # the clusters it is suspended from (empty: see suspended)

    def __post_init__(self) -> None:
        owner = f"CHANNEL({self.channel}) of {self.qmgr}"
        _check_range(owner, "CLWLWGHT", self.clwlwght, 1, 99)
        for name in ("clwlrank", "clwlprty", "netprty"):
            _check_range(owner, name.upper(), getattr(self, name), 0, 9)
        stray = [c for c in self.suspended_in if c not in self.clusters]
        if stray:
            raise ValueError(f"{owner}: suspended from {', '.join(stray)}, which its clusters do not include")
        # one meaning, two spellings: suspended=True alone is suspended from every cluster
        if self.suspended_in:
            object.__setattr__(self, "suspended", True)
        elif self.suspended:
            object.__setattr__(self, "suspended_in", self.clusters)

    def suspended_from(self, clusters: Iterable[str]) -> bool:
        """Whether the queue manager is suspended from every one of ``clusters`` that this
        channel is in: a route through a cluster it is not suspended from is available
        (001 rule 7 with SUSPEND QMGR CLUSTER(X) per cluster)."""
        via = set(clusters) & set(self.clusters)
        if not via:
            return self.suspended
        return via <= set(self.suspended_in)

    @property
    def key(self) -> tuple[str, str]:
        return (self.qmgr, self.channel)

    def workload_attributes(self) -> tuple[int, int, int, int]:
        """CLWLWGHT, CLWLRANK, CLWLPRTY, NETPRTY: the attributes whose change resets history."""
        return (self.clwlwght, self.clwlrank, self.clwlprty, self.netprty)

    def with_suspended(self, suspended: bool) -> ClusterReceiver:
        """Suspended from (or resumed in) every one of its clusters."""
        return replace(self, suspended=suspended, suspended_in=self.clusters if suspended else ())

    def with_clusters(self, clusters: tuple[str, ...]) -> ClusterReceiver:
        kept = tuple(c for c in self.suspended_in if c in clusters)
        return replace(self, clusters=clusters, suspended=bool(kept), suspended_in=kept)


@value
class QueueInstance:
    """A cluster queue instance: a clustered QLOCAL, or a clustered QALIAS/QREMOTE, which
    the rest of the cluster sees as an instance of a queue of that name (000 Scenario 4).

    ``clwluseq`` matters only for the local instance (001 rule 6); ``defbind`` is carried
    for spec/binding.py (BIND_AS_Q_DEF) and not used here.
    """

    qmgr: str  # hosting queue manager
    name: str
    clusters: tuple[str, ...]
    put_enabled: bool = True  # PUT(ENABLED)
    clwlrank: int = 0
    clwlprty: int = 0
    clwluseq: str = "QMGR"  # LOCAL | ANY | QMGR
    defbind: str = "OPEN"  # OPEN | NOTFIXED | GROUP

    def __post_init__(self) -> None:
        owner = f"QUEUE({self.name}) on {self.qmgr}"
        _check_range(owner, "CLWLRANK", self.clwlrank, 0, 9)
        _check_range(owner, "CLWLPRTY", self.clwlprty, 0, 9)
        if self.clwluseq not in USEQ_VALUES:
            raise ValueError(f"{owner}: CLWLUSEQ({self.clwluseq}) is not one of {', '.join(USEQ_VALUES)}")
        if self.defbind not in DEFBIND_VALUES:
            raise ValueError(f"{owner}: DEFBIND({self.defbind}) is not one of {', '.join(DEFBIND_VALUES)}")

    def with_put(self, enabled: bool) -> QueueInstance:
        return replace(self, put_enabled=enabled)


@value
class QmgrAlias:
    """A clustered queue manager alias record: ``DEFINE QREMOTE(name) RNAME(' ')
    RQMNAME(...) CLUSTER(...)`` on ``qmgr`` (000 Scenarios 2 and 5). A put naming ``name``
    as its queue manager can go to any hosting ``qmgr``; what the alias resolves to there is
    the network model's business."""

    qmgr: str  # hosting queue manager
    name: str  # the alias (queue manager name it stands for)
    clusters: tuple[str, ...]
    put_enabled: bool = True
    clwlrank: int = 0
    clwlprty: int = 0

    def __post_init__(self) -> None:
        owner = f"QREMOTE({self.name}) on {self.qmgr}"
        _check_range(owner, "CLWLRANK", self.clwlrank, 0, 9)
        _check_range(owner, "CLWLPRTY", self.clwlprty, 0, 9)


@value
class ChannelState:
    """The status of the channel to ``qmgr`` named ``channel`` (for a local CLUSRCVR,
    ``qmgr`` is the putting queue manager). A channel without a state is INACTIVE."""

    qmgr: str
    channel: str
    status: ChannelStatus

    def __post_init__(self) -> None:
        # accept the MQSC spelling ("RETRYING"); an unknown status is a ValueError
        object.__setattr__(self, "status", ChannelStatus(self.status))


@value
class QmgrView:
    """What the putting queue manager ``qmgr`` knows when it chooses (DESIGN §3.5).

    ``receivers``, ``queues`` and ``aliases`` are its cluster cache (remote records only; a
    record owned by ``qmgr`` itself belongs in ``local_receivers``/``local_queues``);
    ``clwluseq`` and ``clwlmruc`` are its ALTER QMGR attributes. The clusters it is a member
    of are those of its own CLUSRCVRs (DESIGN §3.4: membership needs a CLUSRCVR).
    """

    qmgr: str
    local_receivers: tuple[ClusterReceiver, ...]
    receivers: tuple[ClusterReceiver, ...] = ()
    queues: tuple[QueueInstance, ...] = ()
    aliases: tuple[QmgrAlias, ...] = ()
    local_queues: tuple[QueueInstance, ...] = ()  # its own clustered queues (QLOCAL, QALIAS, QREMOTE)
    statuses: tuple[ChannelState, ...] = ()
    clwluseq: str = "LOCAL"  # ALTER QMGR CLWLUSEQ: LOCAL | ANY
    clwlmruc: int = CLWLMRUC_DEFAULT

    def __post_init__(self) -> None:
        if self.clwluseq not in ("LOCAL", "ANY"):
            raise ValueError(f"QMGR {self.qmgr}: CLWLUSEQ({self.clwluseq}) must be LOCAL or ANY")
        _check_range(f"QMGR {self.qmgr}", "CLWLMRUC", self.clwlmruc, 1, 999_999_999)
        for r in self.local_receivers:
            if r.qmgr != self.qmgr:
                raise ValueError(f"local CLUSRCVR {r.channel} belongs to {r.qmgr}, not {self.qmgr}")
        for r in self.receivers:
            if r.qmgr == self.qmgr:
                raise ValueError(f"CLUSRCVR {r.channel} is {self.qmgr}'s own: put it in local_receivers")
        for q in self.local_queues:
            if q.qmgr != self.qmgr:
                raise ValueError(f"local queue {q.name} is hosted by {q.qmgr}, not {self.qmgr}")
        names = [q.name for q in self.local_queues]
        if len(names) != len(set(names)):
            raise ValueError(f"QMGR {self.qmgr}: a local queue name appears twice in local_queues")

    def local_queue(self, name: str) -> QueueInstance | None:
        """The local instance of the cluster queue ``name``, if this queue manager hosts one."""
        return next((q for q in self.local_queues if q.name == name), None)

    @property
    def clusters(self) -> frozenset[str]:
        return frozenset(c for r in self.local_receivers for c in r.clusters)

    def status(self, qmgr: str, channel: str) -> ChannelStatus:
        for s in self.statuses:
            if s.qmgr == qmgr and s.channel == channel:
                return s.status
        return ChannelStatus.INACTIVE  # an auto-defined CLUSSDR that never started

    def all_receivers(self) -> tuple[ClusterReceiver, ...]:
        return self.local_receivers + self.receivers


@value
class Put:
    """The MQOPEN/MQPUT being placed: ObjectName, ObjectQmgrName (blank = none), and whether
    the message arrived over a cluster channel rather than from a local application."""

    object_name: str
    target_qmgr: str = ""
    via_cluster_channel: bool = False


# ---------------------------------------------------------------------------------------
# History: MQWDR.DestSeqFactor and DestSeqNumber per channel (001 final choice)
# ---------------------------------------------------------------------------------------
@value
class ChannelUse:
    """MQWDR.DestSeqFactor and MQWDR.DestSeqNumber of one channel (0 = never chosen)."""

    qmgr: str
    channel: str
    factor: Fraction = Fraction(0)
    number: int = 0


@value
class History:
    """The putting queue manager's workload history: per channel, not per queue (001: "it is
    the historic use of each cluster sender channel from this queue manager that is being
    balanced"; 004 §Channel workload balancing: "Channel traffic to all queues").

    ``channels`` is sorted by (qmgr, channel); ``last_number`` is the DestSeqNumber of the
    previous choice; ``observed`` is each available channel with its workload attributes as
    seen at the previous choice, to detect the changes that reset the factors.
    """

    channels: tuple[ChannelUse, ...] = ()
    last_number: int = 0
    observed: tuple[tuple[str, str, tuple[int, int, int, int]], ...] = ()

    def _use(self, qmgr: str, channel: str) -> ChannelUse:
        for u in self.channels:
            if u.qmgr == qmgr and u.channel == channel:
                return u
        return ChannelUse(qmgr, channel)

    def factor(self, qmgr: str, channel: str) -> Fraction:
        return self._use(qmgr, channel).factor

    def number(self, qmgr: str, channel: str) -> int:
        return self._use(qmgr, channel).number

    def most_recently_used(self) -> tuple[tuple[str, str], ...]:
        """Channels ever chosen, most recent first (the MRU list CLWLMRUC cuts)."""
        used = sorted((u for u in self.channels if u.number), key=lambda u: -u.number)
        return tuple((u.qmgr, u.channel) for u in used)

    def reset_factors(self) -> History:
        """Every DestSeqFactor back to zero; DestSeqNumbers are kept (000 §Cluster Workload
        Algorithm rule 12: "The destination sequence factors of all destinations are reset")."""
        return replace(self, channels=tuple(replace(u, factor=Fraction(0)) for u in self.channels))

    def charged(self, qmgr: str, channel: str, clwlwght: int) -> History:
        """History after choosing the channel: factor += 1000/CLWLWGHT, number = last + 1."""
        use = self._use(qmgr, channel)
        number = self.last_number + 1
        new = replace(use, factor=use.factor + Fraction(1000, clwlwght), number=number)
        rest = [u for u in self.channels if (u.qmgr, u.channel) != (qmgr, channel)]
        return replace(self, channels=tuple(sorted(rest + [new], key=lambda u: (u.qmgr, u.channel))),
                       last_number=number)


# ---------------------------------------------------------------------------------------
# Output
# ---------------------------------------------------------------------------------------
@value
class Destination:
    """Where the message goes: ``qmgr`` through ``channel`` (a CLUSSDR, or for ``local`` the
    local CLUSRCVR it competed through; ``""`` when rule 6 put it locally without
    competing). ``object`` is the queue or queue manager alias chosen, ``""`` when a named
    queue manager was chosen directly."""

    qmgr: str
    channel: str
    local: bool = False
    object: str = ""

    def __str__(self) -> str:
        where = f"{self.qmgr} (local instance)" if self.local else self.qmgr
        return f"{where} via {self.channel}" if self.channel else where


@value
class RuleStep:
    """One line of the explanation: a rule (001's ``"1"``..``"15"``, or ``"resolve"``,
    ``"reset"``, ``"choice"``, ``"result"``), what it did, and the routes it eliminated."""

    rule: str
    title: str
    detail: str = ""
    eliminated: tuple[str, ...] = ()

    def __str__(self) -> str:
        head = f"rule {self.rule}" if self.rule.isdigit() else self.rule
        text = f"{head} ({self.title})"
        if self.detail:
            text += f": {self.detail}"
        if self.eliminated:
            text += f"; eliminated {', '.join(self.eliminated)}"
        elif self.rule.isdigit() and not self.detail.startswith("not applicable"):
            text += "; nothing eliminated"
        return text


@value
class Choice:
    """The result of :func:`choose`: a destination and the new history (``reason`` is
    MQRC_NONE), or a reason and no destination. ``finalists`` are the routes left after
    rule 15, among which the least-recently-used choice was made."""

    reason: Reason
    destination: Destination | None
    history: History
    explanation: tuple[RuleStep, ...]
    finalists: tuple[Destination, ...] = ()

    def lines(self) -> tuple[str, ...]:
        """The explanation as human-readable lines (what ``mqcheck run --explain`` prints)."""
        return tuple(str(step) for step in self.explanation)


# ---------------------------------------------------------------------------------------
# The algorithm
# ---------------------------------------------------------------------------------------
@value
class _Route:
    """A candidate: an instance (queue, alias, or a named queue manager) through one channel."""

    receiver: ClusterReceiver
    status: ChannelStatus
    local: bool = False
    queue: QueueInstance | None = None
    alias: QmgrAlias | None = None

    @property
    def key(self) -> tuple[str, str]:
        return self.receiver.key

    @property
    def qmgr(self) -> str:
        return self.receiver.qmgr

    @property
    def object(self) -> str:
        return self.queue.name if self.queue else self.alias.name if self.alias else ""

    def destination(self) -> Destination:
        return Destination(self.qmgr, self.receiver.channel, self.local, self.object)

    def label(self) -> str:
        if self.alias:
            return f"alias {self.alias.name} on {self.qmgr} via {self.receiver.channel}"
        return str(self.destination())


Routes = tuple[_Route, ...]


@value
class _Outcome:
    """What one rule did: the routes it kept, its explanation line, and — for rules 5 and 6
    only — a verdict that ends the algorithm (a reason, or the local destination)."""

    routes: Routes
    step: RuleStep
    stop: Reason | Destination | None = None


@value
class _Context:
    view: QmgrView
    put: Put
    history: History
    choosing_queue: bool


def _sorted(routes: Iterable[_Route]) -> Routes:
    return tuple(sorted(routes, key=lambda r: (r.key, r.object, r.local)))


def _eliminate(rule: str, title: str, before: Routes, kept: Iterable[_Route], detail: str = "") -> _Outcome:
    kept = _sorted(kept)
    gone = tuple(r.label() for r in before if r not in kept)
    return _Outcome(kept, RuleStep(rule, title, detail, gone))


def _keep_max(rule: str, title: str, routes: Routes, value: Callable[[_Route], int], what: str) -> _Outcome:
    top = max(value(r) for r in routes)
    return _eliminate(rule, title, routes, (r for r in routes if value(r) == top), f"highest {what} is {top}")


def _candidates(ctx: _Context) -> tuple[Routes, RuleStep]:
    """001's two procedures building the list of possible destinations."""
    view, put = ctx.view, ctx.put
    if put.target_qmgr:
        # 001: "Matching the target ObjectName and ObjectQmgrName with queue manager alias
        # definitions"; a queue manager named directly fixes the destination (DESIGN §3.6).
        routes = [_Route(r, view.status(*r.key), alias=a)
                  for a in view.aliases if a.name == put.target_qmgr
                  for r in view.receivers if r.qmgr == a.qmgr]
        routes += [_Route(r, view.status(*r.key)) for r in view.receivers if r.qmgr == put.target_qmgr]
        step = RuleStep("resolve", "possible destinations",
                        f"queue manager {put.target_qmgr} named: {len(routes)} route(s) to it or its aliases")
        return _sorted(routes), step
    # 001: "Finding unique routes (that is, channels) to a queue manager that hosts a queue
    # with the name ObjectName"
    routes = [_Route(r, view.status(*r.key), queue=q)
              for q in view.queues if q.name == put.object_name and q.qmgr != view.qmgr
              for r in view.receivers if r.qmgr == q.qmgr]
    local = view.local_queue(put.object_name)
    if local is not None:
        routes += [_Route(r, view.status(*r.key), local=True, queue=local) for r in view.local_receivers]
    hosts = sorted({q.qmgr for q in view.queues if q.name == put.object_name and q.qmgr != view.qmgr})
    unreachable = [h for h in hosts if not any(r.qmgr == h for r in view.receivers)]
    detail = f"queue {put.object_name}: {len(routes)} route(s)"
    if unreachable:
        detail += f" (no CLUSRCVR record known for {', '.join(unreachable)}: not a destination)"
    return _sorted(routes), RuleStep("resolve", "possible destinations", detail)


def _rule_1(routes: Routes, ctx: _Context) -> _Outcome:
    # 001 rule 1: remote instances or remote CLUSRCVR channels that share no cluster with
    # the local queue manager are eliminated.
    mine = ctx.view.clusters
    def shares(r: _Route) -> bool:
        if r.local:
            return True
        thing = r.queue or r.alias
        return bool(mine & set(r.receiver.clusters)) and (thing is None or bool(mine & set(thing.clusters)))
    return _eliminate("1", "shares a cluster with this queue manager", routes, filter(shares, routes),
                      f"{ctx.view.qmgr} is in {', '.join(sorted(mine)) or 'no cluster'}")


def _rule_2(routes: Routes, ctx: _Context) -> _Outcome:
    # 001 rule 2: if a queue name is specified, CLUSRCVR channels not in the same cluster as
    # the queue are eliminated. Applied to the local CLUSRCVRs too (001 rule 6: "locally-
    # defined CLUSRCVR channels in the same cluster as the queue").
    if not ctx.choosing_queue:
        return _Outcome(routes, RuleStep("2", "channel in the queue's cluster", "not applicable: a queue manager is being chosen"))
    kept = (r for r in routes if set(r.receiver.clusters) & set(r.queue.clusters))
    return _eliminate("2", "channel in the queue's cluster", routes, kept)


def _rule_3(routes: Routes, ctx: _Context) -> _Outcome:
    # 001 rule 3: channels (and queue manager aliases) below the maximum CLWLRANK go. For an
    # alias route the alias's own CLWLRANK stands for it, as in rule 13 ("If any queue
    # manager aliases remain, channels to the queue manager are kept").
    return _keep_max("3", "channel CLWLRANK", routes,
                     lambda r: r.alias.clwlrank if r.alias else r.receiver.clwlrank, "CLWLRANK")


def _rule_4(routes: Routes, ctx: _Context) -> _Outcome:
    # 001 rule 4: queues (not queue manager aliases) below the maximum queue CLWLRANK go;
    # 000 §Rank - basics: "Channel rank checked before queue rank".
    if not ctx.choosing_queue:
        return _Outcome(routes, RuleStep("4", "queue CLWLRANK", "not applicable: a queue manager is being chosen"))
    return _keep_max("4", "queue CLWLRANK", routes, lambda r: r.queue.clwlrank, "queue CLWLRANK")


def _rule_5(routes: Routes, ctx: _Context) -> _Outcome:
    # 001 rule 5: if any instance is put enabled, the put-disabled ones go; if only
    # put-disabled instances remain: MQRC_CLUSTER_PUT_INHIBITED (the rule 5 note).
    title = "PUT(ENABLED) instances"
    def enabled(r: _Route) -> bool:
        thing = r.queue or r.alias
        return thing is None or thing.put_enabled  # a queue manager named directly has no PUT
    kept = tuple(filter(enabled, routes))
    if not kept:
        step = RuleStep("5", title, f"only PUT(DISABLED) instances remain: {Reason.MQRC_CLUSTER_PUT_INHIBITED}",
                        tuple(r.label() for r in routes))
        return _Outcome((), step, Reason.MQRC_CLUSTER_PUT_INHIBITED)
    return _eliminate("5", title, routes, kept)


def _rule_6(routes: Routes, ctx: _Context) -> _Outcome:
    # 001 rule 6: the local instance, when it is still in the set.
    title = "local instance, CLWLUSEQ"
    if not ctx.choosing_queue:
        return _Outcome(routes, RuleStep("6", title, "not applicable: a queue manager is being chosen"))
    local = ctx.view.local_queue(ctx.put.object_name)
    if local is None:
        return _Outcome(routes, RuleStep("6", title, f"no local instance on {ctx.view.qmgr}"))
    if not any(r.local for r in routes):
        return _Outcome(routes, RuleStep("6", title, "the local instance was eliminated by an earlier rule"))
    useq = ctx.view.clwluseq if local.clwluseq == "QMGR" else local.clwluseq
    source = f"queue CLWLUSEQ({local.clwluseq})" + (f", queue manager CLWLUSEQ({useq})" if local.clwluseq == "QMGR" else "")
    if ctx.put.via_cluster_channel or useq == "LOCAL":
        why = "the message arrived over a cluster channel" if ctx.put.via_cluster_channel else f"{source}: LOCAL"
        outcome = _eliminate("6", title, routes, (r for r in routes if r.local), f"{why}: the local instance is used")
        # no channel is involved or charged (the local instance is not competing)
        return replace(outcome, stop=Destination(ctx.view.qmgr, "", True, local.name))
    n = sum(1 for r in routes if r.local)
    return _Outcome(routes, RuleStep("6", title, f"{source}: ANY: the local instance competes through {n} local CLUSRCVR channel(s)"))


def _route_clusters(r: _Route, ctx: _Context) -> frozenset[str]:
    """The clusters a route goes through: its channel's, shared with the queue or alias it
    reaches (rule 2) and, for a remote route, with this queue manager (rule 1)."""
    clusters = frozenset(r.receiver.clusters)
    thing = r.queue or r.alias
    if thing is not None:
        clusters &= frozenset(thing.clusters)
    if not r.local:
        clusters &= ctx.view.clusters
    return clusters


def _rule_7(routes: Routes, ctx: _Context) -> _Outcome:
    # 001 rule 7: if more than one queue manager remains and any is not suspended, the
    # suspended ones go (000: if all are suspended "they are all equally 'good'").
    # SUSPEND QMGR CLUSTER(X) is per cluster (000 §Workload management features: "suspended
    # from the cluster"): a route is suspended when its queue manager is suspended from every
    # cluster the route goes through, so suspension from X leaves its queues in Y alone.
    title = "SUSPEND"
    if len({r.qmgr for r in routes}) < 2:
        return _Outcome(routes, RuleStep("7", title, "one queue manager remains"))
    suspended = {r: r.receiver.suspended_from(_route_clusters(r, ctx)) for r in routes}
    if all(suspended.values()):
        return _Outcome(routes, RuleStep("7", title, "every remaining queue manager is suspended: all are equally good"))
    return _eliminate("7", title, routes, (r for r in routes if not suspended[r]))


def _rules_8_to_11(routes: Routes, ctx: _Context) -> _Outcome:
    # 001 rules 8-11 as a cascade to the best non-empty status class (DESIGN §3.7; 000:
    # "'Bad' channel status ... makes that queue manager a worse choice"; 004 §Channel
    # availability routing: "messages will be routed to those targets with a working channel").
    best = min(_status_class(r.status) for r in routes)
    kept = (r for r in routes if _status_class(r.status) == best)
    better = "" if best == 0 else " (no channel in a better status)"
    kept = _sorted(kept)
    gone = tuple(f"{r.label()} ({r.status})" for r in routes if r not in kept)
    return _Outcome(kept, RuleStep(str(8 + best), "channel status", f"kept channels in {_CLASS_NAMES[best]}{better}", gone))


def _rule_12(routes: Routes, ctx: _Context) -> _Outcome:
    # 001 rule 12: the channels with the highest NETPRTY for each queue manager (000: "The
    # higher network priority route is always used when it's channel is in a good state").
    top = {q: max(r.receiver.netprty for r in routes if r.qmgr == q) for q in {r.qmgr for r in routes}}
    return _eliminate("12", "NETPRTY per queue manager", routes, (r for r in routes if r.receiver.netprty == top[r.qmgr]))


def _rule_13(routes: Routes, ctx: _Context) -> _Outcome:
    # 001 rule 13: channels and queue manager aliases below the highest CLWLPRTY go; "If any
    # queue manager aliases remain, channels to the queue manager are kept" (the alias's
    # priority stands for its routes).
    return _keep_max("13", "channel CLWLPRTY", routes,
                     lambda r: r.alias.clwlprty if r.alias else r.receiver.clwlprty, "CLWLPRTY")


def _rule_14(routes: Routes, ctx: _Context) -> _Outcome:
    # 001 rule 14: if a queue is being chosen, queues below the highest CLWLPRTY go;
    # 004 §AMQSCLM Logic switches instances between CLWLPRTY 0 and 1 this way.
    if not ctx.choosing_queue:
        return _Outcome(routes, RuleStep("14", "queue CLWLPRTY", "not applicable: a queue manager is being chosen"))
    return _keep_max("14", "queue CLWLPRTY", routes, lambda r: r.queue.clwlprty, "queue CLWLPRTY")


def _rule_15(routes: Routes, ctx: _Context) -> _Outcome:
    # 001 rule 15: at most CLWLMRUC channels, eliminating those with the lowest DestSeqNumber
    # (equally old channels: the later names go first, so the result is order-independent).
    limit = ctx.view.clwlmruc
    channels = sorted({r.key for r in routes}, key=lambda k: (-ctx.history.number(*k), k))
    keep = set(channels[:limit])
    return _eliminate("15", "CLWLMRUC most recently used", routes, (r for r in routes if r.key in keep),
                      f"CLWLMRUC({limit}), {len(channels)} channel(s)")


def _observe(view: QmgrView, history: History) -> tuple[History, RuleStep | None]:
    """Reset the factors if the workload attributes of an available channel changed or a
    channel became available since the previous choice (001: "The historic data that is
    used to balance the channels is reset if any cluster workload attributes of available
    cluster receiver channels are altered or the status of a cluster receiver channel
    becomes available"). Manual CLUSSDR attributes never reach the view, so their changes
    cannot reset anything (001: they do not)."""
    now = tuple(sorted((r.qmgr, r.channel, r.workload_attributes()) for r in view.all_receivers()
                       if _status_class(view.status(*r.key)) == 0))
    before = {(q, c): attrs for q, c, attrs in history.observed}
    changes = []
    for qmgr, channel, attrs in now:
        if (qmgr, channel) not in before:
            changes.append(f"{channel} to {qmgr} became available")
        elif before[(qmgr, channel)] != attrs:
            changes.append(f"workload attributes of {channel} to {qmgr} changed")
    history = replace(history, observed=now)
    if not changes or not any(u.factor for u in history.channels):
        return history, None
    return history.reset_factors(), RuleStep("reset", "DestSeqFactor history reset", "; ".join(changes))


def _final(routes: Routes, ctx: _Context, history: History) -> tuple[_Route, History, RuleStep]:
    # 001 final choice. Every remaining channel at the default CLWLWGHT(50): "the least
    # recently used channel is chosen" (lowest DestSeqNumber, then name, our tie). Any other
    # weight "(even if they all have a matching non-default value)": routing depends on "the
    # relative weightings of each channel and the total number of times each channel has
    # previously been chosen" — lowest DestSeqFactor, then lowest DestSeqNumber, then name.
    # Either way the factor grows by 1000/CLWLWGHT and the number becomes the previous
    # choice's plus one (000 §Cluster Workload Algorithm rule 12).
    lru = all(r.receiver.clwlwght == CLWLWGHT_DEFAULT for r in routes)
    if lru:
        chosen = min(routes, key=lambda r: (history.number(*r.key), r.key, r.object))
    else:
        chosen = min(routes, key=lambda r: (history.factor(*r.key), history.number(*r.key), r.key, r.object))
    factor, number = history.factor(*chosen.key), history.number(*chosen.key)
    weight = chosen.receiver.clwlwght
    new = history.charged(chosen.qmgr, chosen.receiver.channel, weight)
    why = (f"every CLWLWGHT is 50: {chosen.label()} is the least recently used (DestSeqNumber {number})" if lru else
           f"{chosen.label()} has the lowest DestSeqFactor {_num(factor)} (DestSeqNumber {number})")
    detail = (f"{why}; DestSeqFactor += 1000/CLWLWGHT({weight}) -> {_num(new.factor(*chosen.key))}, "
              f"DestSeqNumber -> {new.last_number}")
    return chosen, new, RuleStep("choice", "least recently used" if lru else "weighted", detail)


def _num(x: Fraction) -> str:
    return str(x.numerator) if x.denominator == 1 else f"{float(x):.4g}"


def choose(view: QmgrView, put: Put, history: History = History()) -> Choice:
    """Run 001's cluster workload management algorithm once.

    Returns the destination and the new history, or a reason (MQRC_UNKNOWN_OBJECT_NAME,
    MQRC_UNKNOWN_REMOTE_Q_MGR, MQRC_CLUSTER_PUT_INHIBITED) with the history unchanged but
    for what was observed. ``history`` is not mutated.

    >>> view = QmgrView("QMAPP", local_receivers=(ClusterReceiver("QMAPP", "TO.QMAPP", ("C",)),),
    ...     receivers=(ClusterReceiver("QMB", "TO.QMB", ("C",)), ClusterReceiver("QMC", "TO.QMC", ("C",), clwlrank=1)),
    ...     queues=(QueueInstance("QMB", "DEMOQ", ("C",)), QueueInstance("QMC", "DEMOQ", ("C",))))
    >>> c = choose(view, Put("DEMOQ"))
    >>> str(c.destination), c.history.factor("QMC", "TO.QMC")
    ('QMC via TO.QMC', Fraction(20, 1))
    >>> print(c.lines()[3])
    rule 3 (channel CLWLRANK): highest CLWLRANK is 1; eliminated QMB via TO.QMB
    >>> choose(view, Put("NOSUCH")).reason
    <Reason.MQRC_UNKNOWN_OBJECT_NAME: 'MQRC_UNKNOWN_OBJECT_NAME'>
    """
    history, reset = _observe(view, history)
    steps: list[RuleStep] = [reset] if reset else []

    def fail(reason: Reason, detail: str) -> Choice:
        return Choice(reason, None, history, tuple(steps) + (RuleStep("result", str(reason), detail),))

    if put.target_qmgr == view.qmgr:
        # naming this queue manager is name resolution, not a cluster choice
        if view.local_queue(put.object_name) is not None:
            steps.append(RuleStep("resolve", "target is this queue manager", "the local queue is used"))
            return Choice(Reason.MQRC_NONE, Destination(view.qmgr, "", True, put.object_name), history, tuple(steps))
        return fail(Reason.MQRC_UNKNOWN_OBJECT_NAME, f"no queue {put.object_name} on {view.qmgr}")
    ctx = _Context(view, put, history, choosing_queue=not put.target_qmgr)
    routes, step = _candidates(ctx)
    steps.append(step)
    if not routes:
        if put.target_qmgr:
            return fail(Reason.MQRC_UNKNOWN_REMOTE_Q_MGR, f"no route to queue manager {put.target_qmgr}")
        return fail(Reason.MQRC_UNKNOWN_OBJECT_NAME, f"no instance of {put.object_name} reachable")
    for rule in _RULES:
        outcome = rule(routes, ctx)
        steps.append(outcome.step)
        if isinstance(outcome.stop, Reason):  # rule 5: only put-disabled instances remain
            return fail(outcome.stop, "only inquire operations succeed")
        if isinstance(outcome.stop, Destination):  # rule 6: the local instance is used
            steps.append(RuleStep("choice", "local instance",
                                  f"put to {put.object_name} on {view.qmgr}; no channel is charged"))
            return Choice(Reason.MQRC_NONE, outcome.stop, history, tuple(steps), (outcome.stop,))
        routes = outcome.routes
        if not routes:  # only rules 1-2 can empty the list; later rules keep the best
            reason = Reason.MQRC_UNKNOWN_REMOTE_Q_MGR if put.target_qmgr else Reason.MQRC_UNKNOWN_OBJECT_NAME
            return fail(reason, "no destination shares a cluster with this queue manager")
    chosen, new_history, step = _final(routes, ctx, history)
    steps.append(step)
    finalists = tuple(r.destination() for r in routes)
    return Choice(Reason.MQRC_NONE, chosen.destination(), new_history, tuple(steps), finalists)


# 001's elimination rules in 001's order (rules 8-11 are one cascade, DESIGN §3.7)
_RULES: tuple[Callable[[Routes, _Context], _Outcome], ...] = (
    _rule_1, _rule_2, _rule_3, _rule_4, _rule_5, _rule_6, _rule_7, _rules_8_to_11,
    _rule_12, _rule_13, _rule_14, _rule_15)


# ---------------------------------------------------------------------------------------
# Repeated choices (tests, examples, WL-ROUND-ROBIN / WL-WEIGHTS)
# ---------------------------------------------------------------------------------------
@value
class Distribution:
    """Where ``n`` successive BIND_NOT_FIXED puts went, and the history afterwards."""

    counts: tuple[tuple[Destination, int], ...]  # sorted by destination
    failures: tuple[tuple[Reason, int], ...]
    history: History

    def counts_by_destination(self) -> dict[Destination, int]:
        return dict(self.counts)

    def by_qmgr(self) -> dict[str, int]:
        """Messages per destination queue manager (local ones under the local name)."""
        out: dict[str, int] = {}
        for dest, n in self.counts:
            out[dest.qmgr] = out.get(dest.qmgr, 0) + n
        return dict(sorted(out.items()))


def distribute(view: QmgrView, put: Put, n_puts: int, history: History = History()) -> Distribution:
    """Choose ``n_puts`` times in a row, threading the history (a static view).

    >>> view = QmgrView("QMAPP", local_receivers=(ClusterReceiver("QMAPP", "TO.QMAPP", ("C",)),),
    ...     receivers=(ClusterReceiver("QMB", "TO.QMB", ("C",), clwlwght=20), ClusterReceiver("QMC", "TO.QMC", ("C",))),
    ...     queues=(QueueInstance("QMB", "Q", ("C",)), QueueInstance("QMC", "Q", ("C",))))
    >>> distribute(view, Put("Q"), 7).by_qmgr()
    {'QMB': 2, 'QMC': 5}
    """
    counts: dict[Destination, int] = {}
    failures: dict[Reason, int] = {}
    for _ in range(n_puts):
        c = choose(view, put, history)
        history = c.history
        if c.destination is None:
            failures[c.reason] = failures.get(c.reason, 0) + 1
        else:
            counts[c.destination] = counts.get(c.destination, 0) + 1
    order = lambda d: (d.qmgr, d.channel, d.object, d.local)  # noqa: E731
    return Distribution(tuple(sorted(counts.items(), key=lambda kv: order(kv[0]))),
                        tuple(sorted(failures.items())), history)


def weight_cycle(weights: Sequence[int]) -> int:
    """Puts in one full weight cycle: after each such cycle (from all factors zero, on a
    static view) every channel has been chosen exactly ``cycles * weight * cycle / sum``
    times. The cycle ends when every DestSeqFactor reaches P, the least common multiple of
    the strides 1000/CLWLWGHT; it holds ``P * sum(weights) / 1000`` puts.

    >>> weight_cycle((20, 50, 20, 10))   # 000 §Channel Weight example: 2 + 5 + 2 + 1
    10
    >>> weight_cycle((50, 50, 50))       # default weights: round robin
    3
    """
    strides = [Fraction(1000, w) for w in weights]
    p = Fraction(math.lcm(*(s.numerator for s in strides)), math.gcd(*(s.denominator for s in strides)))
    n = p * sum(weights) / 1000
    assert n.denominator == 1, n
    return int(n)
