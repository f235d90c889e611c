"""Uniform clusters: client application instances and automatic application balancing.

004 §the "uniform cluster" pattern, §Automatic Application balancing, §Uniform Cluster
features, §Balancing by application name. Queue managers declared uniform (qm.ini
``TuningParameters: UniformClusterName=...``; a scenario key here) are members of one MQ
cluster. Client application instances, identified by application name, connect through a
CCDT (:mod:`spec.ccdt`) to a queue-manager group (``*GROUP``) or to a named queue manager,
with or without auto-reconnect. The members share application connectivity knowledge as
messages over the cluster channels; each member detects an imbalance per application name
and asks a loaded member to donate; the donor instigates an auto-reconnect of one movable
instance, directed to the requester by the CCDT entry under the requester's real name.

This module is the pure protocol: a :class:`UniformState` and functions of it and a
:class:`Context` (what the network tells it: which queue managers run, which peers each
member knows through the cluster's repositories, where each CCDT name leads) that return
the new state, the messages to send (``(src, dst, msg)``) and the log entries to make
(``(qmgr, code, detail)``). ``spec.network.uniform`` is the glue to the network model.

Abstracted away: timers (a member re-evaluates after every change it sees, not
periodically), LMSGDATE/LMSGTIME, client weights and affinities (a client tries CCDT
entries in file order: the first running queue manager wins), and the client's reconnect
delay (a directed reconnect is atomic with the donor's decision; a client reconnecting after
an outage reconnects in the same transition as the outage). Where 004 is silent the
:class:`Rules` say what is chosen (docs/decisions.md, issue #19).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from spec.values import replace, value


__all__ = [
    "DEFAULT_RULES",
    "AppCount",
    "ApplStatusMsg",
    "Context",
    "DonationAnswer",
    "DonationRequest",
    "Effects",
    "Instance",
    "Member",
    "Rules",
    "UniformState",
    "apstatus_appl",
    "apstatus_qmgr",
    "balanced_counts",
    "connect",
    "disconnect",
    "join",
    "member_started",
    "member_stopped",
    "movable",
    "own_counts",
    "receive",
    "reconcile",
]

GROUP_PREFIX = "*"  # 004 §Configuring the CCDT...: "the queue manager group ... prefixed with an '*'"

# Event names kept in UniformState.events (ghosts for properties and their witnesses).
DONATED = "DONATED"
NO_CCDT_ENTRY = "UC_NO_CCDT_ENTRY"
FIXED_SEEN = "FIXED_AT_DONOR"  # a donor asked for an application it hosts non-movable instances of
OUTAGE_RECONNECT = "OUTAGE_RECONNECT"
DIRECTED = "DIRECTED"  # "DIRECTED QM": an instance was directed to QM by a donor
RESTARTED = "RESTARTED"  # "RESTARTED QM": QM started again after stopping
JOINED = "JOINED"  # "JOINED QM": QM was added to a uniform cluster by a step


@value
class Rules:
    """The choices 004 leaves open, as parameters (docs/decisions.md, issue #19).

    ``threshold``: a member asks for a donation when a peer hosting movable instances of an
    application has at least this many more instances of it than the member has; 2 = "within
    one of even" is balanced. ``donation``: which movable instance a donor gives, "oldest"
    (the lowest instance number) or "newest". The ``mutant_*`` flags break one documented rule
    each, for the tests that show the checker catches it; never set otherwise.
    """

    threshold: int = 2
    donation: str = "oldest"
    mutant_move_fixed: bool = False  # donate instances without auto-reconnect too
    mutant_ignore_ccdt: bool = False  # direct a client to a member the CCDT has no real-name entry for
    mutant_forget_asked: bool = False  # ask again on the same knowledge after a refusal


DEFAULT_RULES = Rules()

AppCount = tuple[str, int, int]  # (application name, COUNT, MOVCOUNT)


@value
class Instance:
    """One client application instance (a connection)."""

    app: str  # MQAPPLNAME, or the executable name (004 §Balancing by application name)
    ident: int  # 1, 2, ... in connect order: the instance's number in traces
    via: str  # what it connects to: "*GROUP" (a CCDT queue-manager group) or a real name
    reconnect: bool  # MQCNO_RECONNECT / DefRecon=YES (004 §Uniform Cluster features)
    qmgr: str  # the queue manager it is connected to; "" while waiting to reconnect
    home: str  # ghost: the queue manager of its first connection

    @property
    def label(self) -> str:
        return f"{self.app}#{self.ident}"


@value
class Member:
    """One uniform-cluster member's application knowledge (lost when it stops)."""

    name: str
    cluster: str  # UniformClusterName
    view: tuple[tuple[str, tuple[AppCount, ...]], ...] = ()  # peer -> the counts it last announced
    announced: tuple[AppCount, ...] = ()  # own counts last announced
    told: tuple[str, ...] = ()  # running peers that were sent ``announced``
    pending: tuple[tuple[str, str], ...] = ()  # (app, donor) requests not answered yet
    asked: tuple[tuple[str, str, int, int], ...] = ()  # per app: (app, donor, donor's count, own count) last asked


@value
class UniformState:
    """Every member's knowledge and every application instance (the clients' side)."""

    members: tuple[Member, ...] = ()  # sorted by name
    instances: tuple[Instance, ...] = ()  # sorted by ident
    next_ident: int = 1
    events: tuple[str, ...] = ()  # ghosts: sorted distinct event names seen
    rules: Rules = DEFAULT_RULES
    ccdt: tuple[tuple[str, tuple[str, ...]], ...] = ()  # CCDT name -> its entries' addresses, in file order

    def member(self, name: str) -> Member | None:
        for m in self.members:
            if m.name == name:
                return m
        return None


@dataclass(frozen=True)
class Context:
    """What the network tells the protocol (not part of the state).

    ``running``: running queue managers. ``peers``: member -> the other members of its
    uniform cluster it knows through the cluster's repositories (its own and those of the
    full repositories it knows; ``spec.network.uniform.uniform_context``). ``reach``: CCDT
    name (real or group, upper case, without ``*``) -> the queue managers its entries lead
    to, in file order.
    """

    running: frozenset[str]
    peers: Mapping[str, tuple[str, ...]]
    reach: Mapping[str, tuple[str, ...]]


# --------------------------------------------------------------------------- messages
@value
class ApplStatusMsg:
    """A member's application counts, for its peers (004 §Automatic Application balancing:
    "MQ will automatically share application connectivity knowledge between queue managers")."""

    cluster: str
    sender: str
    counts: tuple[AppCount, ...]

    def __str__(self) -> str:
        shown = ",".join(f"{a}={c}/{m}" for a, c, m in self.counts) or "none"
        return f"APPLSTATUS[{self.cluster}] {self.sender}: {shown}"


@value
class DonationRequest:
    """'Donate me an instance of ``app``' (004: members "request other queue managers to
    donate their applications")."""

    cluster: str
    requester: str
    app: str
    requester_count: int

    def __str__(self) -> str:
        return f"DONATE?[{self.cluster}] {self.app} to {self.requester} (has {self.requester_count})"


@value
class DonationAnswer:
    cluster: str
    donor: str
    app: str
    moved: str  # the instance moved ("APP#3"), or "" when none was

    def __str__(self) -> str:
        outcome = f"{self.moved} directed" if self.moved else "refused"
        return f"DONATION[{self.cluster}] {self.app} from {self.donor}: {outcome}"


@dataclass
class Effects:
    """What a protocol function asks the network to do."""

    sends: list[tuple[str, str, object]] = field(default_factory=list)
    logs: list[tuple[str, str, str]] = field(default_factory=list)


# --------------------------------------------------------------------------- small views
def movable(inst: Instance, rules: Rules = DEFAULT_RULES) -> bool:
    """Only auto-reconnectable instances connected through a queue-manager group can be
    moved (004 §Uniform Cluster features: "Only applications that connect with the
    auto-reconnect option are eligible for rebalancing"; §Configuring the CCDT...: they
    connect "using the queue manager group")."""
    return rules.mutant_move_fixed or (inst.reconnect and inst.via.startswith(GROUP_PREFIX))


def own_counts(u: UniformState, qmgr: str) -> tuple[AppCount, ...]:
    """(app, COUNT, MOVCOUNT) of the instances connected to ``qmgr``, by application name."""
    counts: dict[str, list[int]] = {}
    for inst in u.instances:
        if inst.qmgr == qmgr:
            c = counts.setdefault(inst.app, [0, 0])
            c[0] += 1
            c[1] += movable(inst, u.rules)
    return tuple((app, c[0], c[1]) for app, c in sorted(counts.items()))


def _count(counts: tuple[AppCount, ...], app: str) -> tuple[int, int]:
    for a, c, m in counts:
        if a == app:
            return c, m
    return 0, 0


def _put_member(u: UniformState, m: Member) -> UniformState:
    return replace(u, members=tuple(m if old.name == m.name else old for old in u.members))


def _put_instances(u: UniformState, changed: dict[int, Instance | None]) -> UniformState:
    kept = tuple(changed.get(i.ident, i) for i in u.instances)
    return replace(u, instances=tuple(i for i in kept if i is not None))


def _event(u: UniformState, name: str) -> UniformState:
    return u if name in u.events else replace(u, events=tuple(sorted(u.events + (name,))))


def _first_running(ctx: Context, via: str, exclude: str = "") -> str:
    """Where a client asking for ``via`` connects: the first CCDT entry (file order) whose
    queue manager runs. A named queue manager needs its own entry."""
    name = via[1:] if via.startswith(GROUP_PREFIX) else via
    for q in ctx.reach.get(name.upper(), ()):
        if q in ctx.running and q != exclude and (via.startswith(GROUP_PREFIX) or q == name.upper()):
            return q
    return ""


# --------------------------------------------------------------------------- the clients
def join(u: UniformState, name: str, cluster: str, added: bool = False) -> UniformState:
    """``name`` becomes a member of uniform cluster ``cluster``; ``added``: by a scenario step,
    after the start (004 §Automatic Application balancing: "Simply add a new queue manager to
    the uniform cluster")."""
    if added:
        u = _event(u, f"{JOINED} {name}")
    if u.member(name) is not None:
        return _put_member(u, Member(name, cluster))
    return replace(u, members=tuple(sorted(u.members + (Member(name, cluster),), key=lambda m: m.name)))


def connect(u: UniformState, ctx: Context, app: str, count: int, via: str, reconnect: bool,
            fx: Effects) -> UniformState:
    """``count`` instances of ``app`` connect through the CCDT to ``via``."""
    new = []
    ident = u.next_ident
    for _ in range(count):
        q = _first_running(ctx, via)
        if not q:
            fx.logs.append((via, "MQRC_Q_MGR_NOT_AVAILABLE", f"{app}#{ident} cannot connect to {via}: "
                            "no queue manager its CCDT entries lead to is running"))
        else:
            new.append(Instance(app, ident, via, reconnect, q, q))
        ident += 1
    return replace(u, instances=u.instances + tuple(new), next_ident=ident)


def disconnect(u: UniformState, app: str, count: int | None, qmgr: str = "") -> UniformState:
    """The newest ``count`` (all when None) instances of ``app`` (at ``qmgr`` when given) end."""
    chosen = [i for i in u.instances if i.app == app and (not qmgr or i.qmgr == qmgr)]
    gone = {i.ident for i in (chosen if count is None else chosen[len(chosen) - count:] if count else [])}
    return replace(u, instances=tuple(i for i in u.instances if i.ident not in gone))


def member_stopped(u: UniformState, ctx: Context, name: str, fx: Effects) -> UniformState:
    """``name`` stops (``ctx.running`` no longer holds it). Its members' knowledge is lost;
    its clients: reconnectable ones through a group reconnect at once through the CCDT group
    (004: "client auto-reconnect and CCDT queue manager groups will enable initial
    re-connection on failure"), reconnectable ones to a named queue manager wait for it,
    the others lose their connection. Its peers give up the donation requests they had
    outstanding with it."""
    changed: dict[int, Instance | None] = {}
    for inst in u.instances:
        if inst.qmgr != name:
            continue
        if not inst.reconnect:
            changed[inst.ident] = None
            fx.logs.append((name, "MQRC_CONNECTION_BROKEN", f"{inst.label} had no auto-reconnect"))
            continue
        target = _first_running(ctx, inst.via, exclude=name) if inst.via.startswith(GROUP_PREFIX) else ""
        changed[inst.ident] = replace(inst, qmgr=target)
        if target:
            u = _event(u, OUTAGE_RECONNECT)
    u = _put_instances(u, changed)
    m = u.member(name)
    if m is not None:
        u = _put_member(u, Member(m.name, m.cluster))
    # A request outstanding with the stopped member is given up by its requester, which sees
    # the stop at once (module docstring): otherwise the requester would wait for an answer
    # that only a restart brings, and never ask a running member, against 004 §Automatic
    # Application balancing: "Automatically handle rebalancing following planned and
    # unplanned queue manager outages" and "Every member ... will detect an imbalance and
    # request other queue managers to donate" (docs/decisions.md, session 29).
    for other in u.members:
        if any(donor == name for _, donor in other.pending):
            u = _put_member(u, replace(other, pending=tuple(p for p in other.pending if p[1] != name)))
    return u


def member_started(u: UniformState, ctx: Context, name: str) -> UniformState:
    """``name`` runs again: clients waiting to reconnect try their CCDT entries again."""
    if u.member(name) is not None:
        u = _event(u, f"{RESTARTED} {name}")
    changed = {}
    for inst in u.instances:
        if inst.qmgr == "":
            target = _first_running(ctx, inst.via)
            if target:
                changed[inst.ident] = replace(inst, qmgr=target)
    return _put_instances(u, changed)


# --------------------------------------------------------------------------- the members
def _view_of(m: Member, peer: str) -> tuple[AppCount, ...]:
    for p, counts in m.view:
        if p == peer:
            return counts
    return ()


def _donor_for(u: UniformState, ctx: Context, m: Member, app: str, own: int) -> tuple[str, int] | None:
    """The peer to ask: among running peers known to host movable instances of ``app``, the
    one with most instances (ties: the first by name), if it has ``threshold`` more."""
    best: tuple[int, str] | None = None
    for peer in ctx.peers.get(m.name, ()):
        if peer not in ctx.running:
            continue
        count, mov = _count(_view_of(m, peer), app)
        if mov > 0 and count - own >= u.rules.threshold and (best is None or count > best[0]):
            best = (count, peer)
    return None if best is None else (best[1], best[0])


def _announce(u: UniformState, ctx: Context, m: Member, fx: Effects) -> Member:
    counts = own_counts(u, m.name)
    peers = tuple(p for p in ctx.peers.get(m.name, ()) if p in ctx.running)
    if counts == m.announced and peers == m.told:
        return m
    told = () if counts != m.announced else tuple(p for p in m.told if p in peers)
    for p in peers:
        if p not in told:
            fx.sends.append((m.name, p, ApplStatusMsg(m.cluster, m.name, counts)))
    return replace(m, announced=counts, told=peers)


def _detect(u: UniformState, ctx: Context, m: Member, fx: Effects) -> Member:
    """004 §Automatic Application balancing: "Every member of the uniform cluster will detect
    an imbalance and request other queue managers to donate their applications", per
    application name independently (§Balancing by application name)."""
    apps = sorted({a for _, counts in m.view for a, _, _ in counts})
    mine = own_counts(u, m.name)
    for app in apps:
        if any(a == app for a, _ in m.pending):
            continue
        own = _count(mine, app)[0]
        donor = _donor_for(u, ctx, m, app, own)
        if donor is None:
            continue
        key = (app, donor[0], donor[1], own)
        if key in m.asked and not u.rules.mutant_forget_asked:
            continue  # asked already on the same knowledge: wait for a change
        fx.sends.append((m.name, donor[0], DonationRequest(m.cluster, m.name, app, own)))
        m = replace(m, pending=tuple(sorted(m.pending + ((app, donor[0]),))),
                    asked=tuple(sorted(tuple(a for a in m.asked if a[0] != app) + (key,))))
    return m


def reconcile(u: UniformState, ctx: Context, fx: Effects) -> UniformState:
    """After every change: each running member tells its peers its changed counts (and new
    or returning peers its current ones), then looks for imbalances."""
    for old in u.members:
        if old.name not in ctx.running:
            continue
        m = _detect(u, ctx, _announce(u, ctx, old, fx), fx)
        if m is not old:
            u = _put_member(u, m)
    return u


def _donate(u: UniformState, ctx: Context, donor: str, msg: DonationRequest, fx: Effects) -> tuple[UniformState, str]:
    """004: "Hosting queue managers will instigate a client auto-reconnect with instructions
    of where to reconnect to"; the client finds the target through the CCDT entry under its
    real name (§Configuring the CCDT...)."""
    mine = [i for i in u.instances if i.qmgr == donor and i.app == msg.app]
    if len(mine) - msg.requester_count < u.rules.threshold or msg.requester not in ctx.running:
        return u, ""
    can = [i for i in mine if movable(i, u.rules)]
    if len(can) < len(mine):
        u = _event(u, FIXED_SEEN)
    if not can:
        return u, ""
    inst = can[0] if u.rules.donation == "oldest" else can[-1]
    if msg.requester not in ctx.reach.get(msg.requester, ()) and not u.rules.mutant_ignore_ccdt:
        once = f"{NO_CCDT_ENTRY} {donor}>{msg.requester}"  # logged once per donor and target: a bounded log
        if once not in u.events:
            fx.logs.append((donor, NO_CCDT_ENTRY, f"{inst.label} cannot be directed to {msg.requester}: the CCDT "
                            f"has no entry under {msg.requester}'s real name"))
        return _event(_event(u, NO_CCDT_ENTRY), once), ""
    u = _put_instances(u, {inst.ident: replace(inst, qmgr=msg.requester)})
    return _event(_event(u, DONATED), f"{DIRECTED} {msg.requester}"), inst.label


def receive(u: UniformState, ctx: Context, dst: str, msg: object, fx: Effects) -> UniformState:
    """A member receives a uniform-cluster message (non-members ignore them)."""
    m = u.member(dst)
    if m is None or getattr(msg, "cluster", None) != m.cluster:
        return u
    if isinstance(msg, ApplStatusMsg):
        view = tuple(sorted(tuple(v for v in m.view if v[0] != msg.sender) + ((msg.sender, msg.counts),)))
        return _put_member(u, replace(m, view=view))
    if isinstance(msg, DonationRequest):
        u, moved = _donate(u, ctx, dst, msg, fx)
        fx.sends.append((dst, msg.requester, DonationAnswer(m.cluster, dst, msg.app, moved)))
        return u
    if isinstance(msg, DonationAnswer):
        return _put_member(u, replace(m, pending=tuple(p for p in m.pending if p != (msg.app, msg.donor))))
    return u


# --------------------------------------------------------------------------- DISPLAY APSTATUS
def _groups(u: UniformState) -> dict[tuple[str, str], list[Instance]]:
    cluster_of = {m.name: m.cluster for m in u.members}
    out: dict[tuple[str, str], list[Instance]] = {}
    for inst in u.instances:
        if inst.qmgr:
            out.setdefault((inst.app, cluster_of.get(inst.qmgr, "")), []).append(inst)
    return dict(sorted(out.items()))


def balanced_counts(counts: list[int]) -> bool:
    """Within one of even: 8 over three members as 3/3/2 is balanced (004 §View application status).

    >>> balanced_counts([3, 3, 2]), balanced_counts([4, 2, 2]), balanced_counts([])
    (True, False, True)
    """
    return not counts or max(counts) - min(counts) <= 1


def _active_members(u: UniformState, cluster: str, running: frozenset[str]) -> list[str]:
    return [m.name for m in u.members if m.cluster == cluster and m.name in running]


def apstatus_appl(u: UniformState, running: frozenset[str]) -> list[dict]:
    """DISPLAY APSTATUS(*) TYPE(APPL) (004 §View application status): per application name
    (and uniform cluster) COUNT, MOVCOUNT and BALANCED YES / NO / NOTAPPLIC (no movable
    instance; CLUSTER is then blank, as 004 shows for AMQSPUTC)."""
    rows = []
    for (app, cluster), insts in _groups(u).items():
        mov = sum(movable(i, u.rules) for i in insts)
        if mov == 0 or not cluster:
            balanced, shown = "NOTAPPLIC", ""
        else:
            counts = [sum(i.qmgr == q for i in insts) for q in _active_members(u, cluster, running)]
            balanced, shown = ("YES" if balanced_counts(counts) else "NO"), cluster
        rows.append({"APPLNAME": app, "CLUSTER": shown, "COUNT": len(insts), "MOVCOUNT": mov,
                     "BALANCED": balanced})
    return rows


def apstatus_qmgr(u: UniformState, running: frozenset[str]) -> list[dict]:
    """DISPLAY APSTATUS(*) TYPE(QMGR): per application name and queue manager, ACTIVE, COUNT,
    MOVCOUNT and BALSTATE — OK within one of the even share, LOW / HIGH below / above it,
    NOTAPPLIC when the application cannot be balanced or the member is not running. Balanced
    applications list every member of their uniform cluster; the others their hosts."""
    rows = []
    for (app, cluster), insts in _groups(u).items():
        mov_total = sum(movable(i, u.rules) for i in insts)
        active = _active_members(u, cluster, running)
        hosts = sorted({i.qmgr for i in insts})
        names = sorted({m.name for m in u.members if m.cluster == cluster} | set(hosts)) \
            if mov_total and cluster else hosts
        total = len(insts)
        lo, hi = (total // len(active), -(-total // len(active))) if active else (0, 0)
        for q in names:
            here = [i for i in insts if i.qmgr == q]
            count = len(here)
            if not mov_total or not cluster or q not in active:
                state = "NOTAPPLIC"
            else:
                state = "LOW" if count < lo else "HIGH" if count > hi else "OK"
            rows.append({"APPLNAME": app, "QMNAME": q, "ACTIVE": "YES" if q in running else "NO",
                         "COUNT": count, "MOVCOUNT": sum(movable(i, u.rules) for i in here), "BALSTATE": state})
    return rows
