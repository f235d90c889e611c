"""Workload management and bind-option properties (DESIGN §4, WL-… and BD-…).

Every run of the algorithm in the network leaves a ghost :class:`spec.binding.Decision` at
the queue manager where it ran: the routes that survived 001 rules 1-2 (computed by
``spec.binding.candidates``, apart from ``spec.workload``) and what was chosen. The WL-
properties check each decision against a naive reading of 001's later rules, so a choice
that breaks a rule is caught in the state right after it is made; the BD- properties read
the handles and the messages waiting on the channels. Each ``always`` property names a
``sometimes`` witness (STYLE habit 4).

WL-ROUND-ROBIN and WL-WEIGHTS are exact counting statements over a put sequence: from a
fresh history (no channel used yet) over a static set of finalists, after n choices with
counts cnt_c and weights w_c, (1) no channel is more than one pick ahead of another,
weighted: (cnt_c - 1) * w_j <= cnt_j * w_c for every pair, and (2) at the end of every full
weight cycle (``spec.workload.weight_cycle``) cnt_c = n * w_c / sum(w) exactly. (A bound
"within ±1 of n * w_c / sum(w) at every n" is false mid-cycle: a heavy channel's first pick
comes late; (1) is the statement that holds.)

WL-NO-BOUNCE-WITH-RANK: no application message goes back to a queue manager it passed
(000's "bounce between the alias queues on SERVERB and SERVERC" is B -> C -> B); the queue
manager it was first put at is passed only once the message is sent on from there again. On 000's
overlapping-cluster gateways it fails without rank (the trace shows the bounce) and holds
with rank; a chain of gateways through several clusters, each passed once, holds. The algorithm's history grows with every choice, so a bounce
is finite and the explorer's termination check (no cycle of internal actions) cannot see
it: the property states the termination 000 asks for — one gateway hop, then the queue.
"""

from __future__ import annotations

from collections import Counter

from checker.model import Property
from properties import in_flight, once_per_part, scenario_steps, stable_under
from spec import binding as bd
from spec import objects
from spec import repository as rp
from spec import scenario as sc
from spec import workload as wl
from spec.network import NO_MUTATIONS, ChannelRetry, NetworkState, channel_statuses, moves_to, retries
from spec.network.views import READS_LOGS, READS_QMGRS, STABLE_LANDING

CITE_001 = "001 The cluster workload management algorithm"


def _decisions(state: NetworkState):
    for q in state.qmgrs:
        yield from q.decisions


def _chosen_routes(d: bd.Decision) -> list[bd.Candidate]:
    """The candidates the choice stands for (a local choice without a channel — rule 6 —
    stands for every local route)."""
    qmgr, channel, local = d.chosen
    if local and not channel:
        return [c for c in d.candidates if c.local]
    return [c for c in d.candidates if (c.qmgr, c.channel, c.local) == (qmgr, channel, local)]


def _rank_survivors(d: bd.Decision) -> list[bd.Candidate]:
    # 001 rules 3 and 4: channel rank first, then queue rank among what is left
    top = max(c.channel_rank for c in d.candidates)
    kept = [c for c in d.candidates if c.channel_rank == top]
    qtop = max(c.queue_rank for c in kept)
    return [c for c in kept if c.queue_rank == qtop]


def _enabled(cands: list[bd.Candidate]) -> list[bd.Candidate]:
    # 001 rule 5
    on = [c for c in cands if c.put_enabled]
    return on or cands


def _local_used(d: bd.Decision) -> bool:
    # 001 rule 6: the local instance is used (CLWLUSEQ LOCAL, or arrived over a channel) —
    # if rule 5 left any instance: "If only put disabled instances remain then ... all
    # other operations will fail with MQRC_CLUSTER_PUT_INHIBITED" (rule 5's note), and rule
    # 6 never applies (WL-PUT-INHIBITED's case; issue #18)
    survivors = [c for c in _rank_survivors(d) if c.put_enabled]
    return any(c.local for c in survivors) and (d.useq == "LOCAL" or d.via_cluster_channel)


def _every_decision(ok, judged: bool = False):
    """The predicate "``ok(d)`` for every ghost decision of the state" (with ``judged``:
    every decision with candidates and no queue manager named). A decision
    never changes once recorded, so each is judged once, and each queue manager's history
    once (``once_per_part``): a state costs a look-up per queue manager, not a pass over
    every choice made so far (issue #17: this was most of a workload example's time).
    The catalogue's predicates stay module-level functions that call the result: the Spark
    backend ships the model to its executors with cloudpickle, which pickles a module
    function by reference but a closure by value, cache included."""
    if judged:
        inner = ok
        ok = lambda d: not d.candidates or d.named or inner(d)  # noqa: E731
    one = once_per_part(ok)
    history = once_per_part(lambda decisions: all(one(d) for d in decisions))
    return lambda state: all(history(q.decisions) for q in state.qmgrs)


def _some_decision(p):
    """The predicate "``p(d)`` for some ghost decision of the state" (as _every_decision)."""
    none = _every_decision(lambda d: not p(d))
    return lambda state: not none(state)


# --- WL-SHARED-CLUSTER --------------------------------------------------------------------
def _shares_a_cluster(d: bd.Decision) -> bool:
    # 001 rules 1-2: only routes sharing a cluster (and the queue's cluster) can be chosen
    if d.chosen is None or (d.chosen[2] and not d.chosen[1] and not any(c.local for c in d.candidates)):
        return True
    return bool(_chosen_routes(d))


_all_share_a_cluster = _every_decision(_shares_a_cluster)
_remote_choice = _some_decision(lambda d: bool(d.chosen and not d.chosen[2]))


def chosen_shares_a_cluster(model, state: NetworkState) -> bool:
    return _all_share_a_cluster(state)


def remote_choice_made(model, state: NetworkState) -> bool:
    return _remote_choice(state)


# --- WL-PUT-INHIBITED ---------------------------------------------------------------------
def _put_inhibited_ok(d: bd.Decision) -> bool:
    # 001 rule 5 and its note: a PUT(DISABLED) instance is chosen only when no enabled one
    # survives rank; only disabled ones: MQRC_CLUSTER_PUT_INHIBITED. A re-drive that leaves
    # the message waiting made no choice (``_waits``: its pick was no better than the RETRYING
    # channel, 000 §Workload management features: the messages "will have to wait on the
    # transmission queue"): its ``chosen`` is where an earlier choice sent the message, whose
    # queue may have become PUT(DISABLED) since (found by session 33's redrive recipe,
    # docs/decisions.md "Session 33"; tests/regressions/real-put-inhibited-redrive-waits.toml)
    if _waits(d):
        return True
    survivors = _rank_survivors(d)
    if not any(c.put_enabled for c in survivors):
        return d.reason == str(wl.Reason.MQRC_CLUSTER_PUT_INHIBITED)
    return d.chosen is not None and any(c.put_enabled for c in _chosen_routes(d))


_all_put_inhibited_ok = _every_decision(_put_inhibited_ok, judged=True)
_put_disabled = _some_decision(lambda d: any(not c.put_enabled for c in d.candidates))


def put_inhibited_respected(model, state: NetworkState) -> bool:
    return _all_put_inhibited_ok(state)


def put_disabled_seen(model, state: NetworkState) -> bool:
    return _put_disabled(state)


# --- WL-RANK ------------------------------------------------------------------------------
def _highest_rank_ok(d: bd.Decision) -> bool:
    # 001 rules 3-4, before status: "destinations with the highest rank will be chosen
    # regardless of the channel status" (000 §Queue Rank example)
    if d.chosen is None:
        return True
    survivors = {(c.qmgr, c.channel, c.local) for c in _rank_survivors(d)}
    return any((c.qmgr, c.channel, c.local) in survivors for c in _chosen_routes(d))


_all_highest_rank = _every_decision(_highest_rank_ok, judged=True)
_ranks_differ = _some_decision(lambda d: len({(c.channel_rank, c.queue_rank) for c in d.candidates}) > 1)


def highest_rank_chosen(model, state: NetworkState) -> bool:
    return _all_highest_rank(state)


def ranks_differ(model, state: NetworkState) -> bool:
    return _ranks_differ(state)


# --- WL-STATUS ----------------------------------------------------------------------------
def _best_status_ok(d: bd.Decision) -> bool:
    # 001 rules 7-11: among what rank, PUT and SUSPEND leave, the best status class
    if d.chosen is None or _local_used(d):
        return True
    kept = _enabled(_rank_survivors(d))
    if len({c.qmgr for c in kept}) > 1 and not all(c.suspended for c in kept):
        kept = [c for c in kept if not c.suspended]  # rule 7
    best = min(c.status_class for c in kept)
    return any(c.status_class == best for c in _chosen_routes(d))


_all_best_status = _every_decision(_best_status_ok, judged=True)
_statuses_differ = _some_decision(lambda d: len({c.status_class for c in d.candidates}) > 1)


def best_status_chosen(model, state: NetworkState) -> bool:
    return _all_best_status(state)


def statuses_differ(model, state: NetworkState) -> bool:
    return _statuses_differ(state)


# --- WL-LOCAL-USEQ ------------------------------------------------------------------------
# 001 rule 6 / 000 §Utilising remote destinations
_all_local_used = _every_decision(lambda d: not _local_used(d) or (d.chosen is not None and d.chosen[2]), judged=True)
_local_candidate = _some_decision(lambda d: any(c.local for c in d.candidates))


def local_instance_used(model, state: NetworkState) -> bool:
    return _all_local_used(state)


def local_candidate_seen(model, state: NetworkState) -> bool:
    return _local_candidate(state)


# --- WL-MRUC ------------------------------------------------------------------------------
def _waits(d: bd.Decision) -> bool:
    """A re-drive whose pick was no better than the RETRYING channel the message waits for:
    ``chosen`` is where it waits, not a final choice (000 §Workload management features:
    with all channels in RETRY the messages "will have to wait on the transmission queue")."""
    return d.redrive and d.reason == bd.REDRIVE_WAITS


def _mruc_ok(d: bd.Decision) -> bool:
    # 001 rule 15: at most CLWLMRUC channels reach the final choice, and the choice is one.
    # A re-drive that leaves the message waiting made no final choice: only the cut is judged
    # (the waiting channel may be one rule 12's NETPRTY removed; fuzz --seed 5, Session 28)
    if d.chosen is None or not d.finalists:
        return True
    if _waits(d):
        return len(d.finalists) <= d.clwlmruc
    return len(d.finalists) <= d.clwlmruc and (d.chosen[0], d.chosen[1]) in {(q, c) for q, c, _ in d.finalists}


_all_mruc = _every_decision(_mruc_ok)
_mruc_cut = _some_decision(lambda d: bool(d.finalists) and len({(c.qmgr, c.channel) for c in d.candidates}) > d.clwlmruc)


def mruc_respected(model, state: NetworkState) -> bool:
    return _all_mruc(state)


def mruc_cut(model, state: NetworkState) -> bool:
    return _mruc_cut(state)


# --- WL-ROUND-ROBIN / WL-WEIGHTS -----------------------------------------------------------
def _runs(decisions: tuple[bd.Decision, ...]):
    """One queue manager's runs of choices from a fresh history over one finalist set."""
    run: list[bd.Decision] = []
    for d in decisions:
        if _waits(d):
            continue  # no pick: the history is untouched, the run goes on
        if d.fresh or (run and d.finalists != run[0].finalists):
            if run:
                yield run
            run = []
        if d.fresh or run:
            if d.chosen is None or not d.finalists:
                if run:
                    yield run
                run = []
                continue
            run.append(d)
    if run:
        yield run


def _every_history(ok):
    """The predicate "``ok(decisions)`` for every queue manager's decision history",
    judged once per history (``once_per_part``)."""
    one = once_per_part(ok)
    return lambda state: all(one(q.decisions) for q in state.qmgrs)


def _counts_ok(run: list[bd.Decision], equal_weights: bool) -> bool:
    weights = {(q, c): w for q, c, w in run[0].finalists}
    if equal_weights != (len(set(weights.values())) == 1):
        return True  # the other property's business
    counts = Counter((d.chosen[0], d.chosen[1]) for d in run)
    for c, wc in weights.items():
        for j, wj in weights.items():
            if (counts[c] - 1) * wj > counts[j] * wc:
                return False
    n = len(run)
    if n % wl.weight_cycle(tuple(weights.values())) == 0:
        total = sum(weights.values())
        return all(counts[c] * total == n * w for c, w in weights.items())
    return True


_round_robin = _every_history(lambda ds: all(_counts_ok(run, True) for run in _runs(ds)))
_weighted = _every_history(lambda ds: all(_counts_ok(run, False) for run in _runs(ds)))
_no_balanced_run = _every_history(lambda ds: not any(len(run) >= 2 and len(run[0].finalists) >= 2 for run in _runs(ds)))


def _no_weighted_cycle(decisions) -> bool:
    # WL-WEIGHTS' own witness: equal weights make it trivially true, so it needs unequal
    # CLWLWGHTs chosen over at least one full weight cycle
    for run in _runs(decisions):
        weights = tuple(w for _, _, w in run[0].finalists)
        if len(set(weights)) > 1 and len(run) >= wl.weight_cycle(weights):
            return False
    return True


_no_weighted_cycles = _every_history(_no_weighted_cycle)


def round_robin(model, state: NetworkState) -> bool:
    # 001: all CLWLWGHT equal: "the least recently used channel is chosen ... round-robin"
    return _round_robin(state)


def weighted(model, state: NetworkState) -> bool:
    # 001 final choice: DestSeqFactor += 1000/CLWLWGHT; 000 §Channel Weight example
    return _weighted(state)


def balanced_run_seen(model, state: NetworkState) -> bool:
    return not _no_balanced_run(state)


def weighted_cycle_seen(model, state: NetworkState) -> bool:
    return not _no_weighted_cycles(state)


# --- WL-NO-BOUNCE-WITH-RANK ---------------------------------------------------------------
# (channel, application message) in flight
_app_messages = in_flight(bd.AppMessage)


def _bounces(state: NetworkState, ch, m: bd.AppMessage) -> bool:
    """The message is on its way back to a queue manager it passed (arrived at and was sent
    on from: 000's B -> C -> B), or is sent on again from the queue manager its application
    put it at. A chain of gateways through several clusters (QMA -> G1 -> G2 -> QMT) passes
    each once and is not a bounce. Nor is going back to that first queue manager to be put
    to its queue: QM1 -> G -> QM1, the application naming gateway G whose clustered alias
    sends the message to the only instance, on QM1, is one gateway hop and then the queue."""
    return ch.dst in m.hops[1:] or m.hops[0] in m.hops[1:]


def no_bounce(model, state: NetworkState) -> bool:
    # 000 §Rank and Overlapping Clusters: "Without using rank, messages put to CLUSQ ... could
    # bounce between the alias queues on SERVERB and SERVERC"; with rank they do not
    return not any(_bounces(state, ch, m) for ch, m in _app_messages(state))


def gateway_hop(model, state: NetworkState) -> bool:
    return any(len(m.hops) >= 2 for _, m in _app_messages(state))


# --- BD-ON-OPEN-FIXED / BD-ON-GROUP -------------------------------------------------------
def _handles(state: NetworkState):
    for q in state.qmgrs:
        yield from q.handles


def _first_hop(state: NetworkState, handle: bd.Handle):
    for ch, m in _app_messages(state):
        if m.handle == handle.name and m.hops == (handle.qmgr,) and ch.src == handle.qmgr:
            yield ch.dst, m


def _arrived_at(state: NetworkState, handle: str) -> set[str]:
    """The queue managers where messages of ``handle`` were put to a local queue."""
    return {q.name for q in state.qmgrs for hn, _queue, _group, n in q.arrivals if hn == handle and n}


def _gateway_reran(state: NetworkState, h: bd.Handle, at: str) -> bool:
    """The algorithm ran at ``at`` for the messages of ``h`` that arrived there over a cluster
    channel legitimately: each time because the name they carried is an alias (a QALIAS, or
    a QREMOTE) at ``at`` (``Decision.through_alias``), a gateway between overlapping clusters
    (000 §Routing messages in and out of clusters, Scenario 4), and with no local route a
    candidate (DESIGN §3.5; spec/binding.py docstring). Finding no local instance is no
    excuse: a bound message whose queue went on the way is dead-lettered there, never
    balanced again (004 §Pros and cons of binding: "it won't be rebalanced, but it could be
    DLQd"; docs/decisions.md "Session 34: BD-ON-OPEN-FIXED excuses only an alias")."""
    far = [d for d in state.qmgr(at).decisions if d.handle == h.name and d.via_cluster_channel and not d.redrive]
    return bool(far) and all(d.through_alias for d in far) and not any(c.local for d in far for c in d.candidates)


def _left(state: NetworkState, h: bd.Handle, at: str):
    """Messages of ``h`` that arrived at ``at`` over a channel and are on their way on."""
    for ch, m in _app_messages(state):
        if m.handle == h.name and len(m.hops) >= 2 and ch.src == at:
            yield ch, m


def on_open_fixed(model, state: NetworkState) -> bool:
    # 000 §Workload balancing - Bind Options: "All messages put using open handle are bound
    # to same destination"; 004: "Once a target has been chosen it cannot change". Checked
    # at the first hop and where the messages ARRIVE: the far end must not send them on,
    # unless the bound destination is a gateway whose alias re-runs the algorithm (000
    # §Routing messages in and out of clusters, Scenarios 4 and 5). A destination that
    # lacks the queue dead-letters them (004: "it won't be rebalanced, but it could be DLQd").
    for h in _handles(state):
        if h.bind == bd.BIND_ON_OPEN and h.bound is not None:
            at = h.bound.qmgr
            if any(dst != at for dst, _ in _first_hop(state, h)):
                return False
            if (_arrived_at(state, h.name) - {at} or next(_left(state, h, at), None)) \
                    and not _gateway_reran(state, h, at):
                return False
    return True


def on_open_bound(model, state: NetworkState) -> bool:
    return any(h.bind == bd.BIND_ON_OPEN and h.bound is not None and h.puts >= 2 for h in _handles(state))


def on_open_arrived(model, state: NetworkState) -> bool:
    return any(h.bind == bd.BIND_ON_OPEN and h.bound is not None and not h.bound.local
               and sum(n for q in state.qmgrs for hn, _q, _g, n in q.arrivals if hn == h.name) >= 2
               for h in _handles(state))


# --- BD-TARGET-FIXED ----------------------------------------------------------------------
def _named(state: NetworkState):
    """(handle, the queue manager it names) for handles whose ObjectQmgrName resolves, at the
    opening queue manager, to a queue manager of the network (a clustered queue manager
    alias stands for several, 000 Scenario 2, so it is not checked here)."""
    for h in _handles(state):
        if not h.target_qmgr:
            continue
        q = state.qmgr(h.qmgr)
        res = bd.resolve_local(q.defs, q.name, h.queue, h.target_qmgr, frozenset(c.cluster for c in q.caches))
        if res.kind == "local" and h.target_qmgr == h.qmgr:
            yield h, h.qmgr
        elif res.kind in ("cluster", "xmitq") and res.target_qmgr and state.find(res.target_qmgr) is not None:
            yield h, res.target_qmgr


def target_fixed(model, state: NetworkState) -> bool:
    # DESIGN §3.6 "Naming a target queue manager fixes the destination"; 000 Scenario 1
    # "Now our app can put to CQ1 on QMB"; 004 §Channel availability routing ("Applications
    # targeting messages at a specific queue manager"): a message naming X arrives at X, or
    # arrives nowhere (its failure is logged); it is never sent on from X, unless the name
    # resolves at X through an alias (``Decision.through_alias``), which re-runs the
    # algorithm there as it does for a message the algorithm chose X for (000 §Routing
    # messages in and out of clusters, Scenario 4; the transmission header names X either
    # way), as BD-ON-OPEN-FIXED allows; X lacking the queue is no excuse
    for h, target in _named(state):
        if (_arrived_at(state, h.name) - {target} or next(_left(state, h, target), None)) \
                and not _gateway_reran(state, h, target):
            return False
    return True


def target_reached(model, state: NetworkState) -> bool:
    return any(target != h.qmgr and target in _arrived_at(state, h.name) for h, target in _named(state))


def on_group_fixed(model, state: NetworkState) -> bool:
    # 001: the algorithm runs "each time a new message group is started"; 004 §Pros and cons
    # of binding: the bind context is the logical group
    for h in _handles(state):
        if h.bind != bd.BIND_ON_GROUP:
            continue
        by_group: dict[str, set[str]] = {}
        for dst, m in _first_hop(state, h):
            if m.group:
                by_group.setdefault(m.group, set()).add(dst)
        arrived: dict[str, set[str]] = {}
        for q in state.qmgrs:
            for handle, _queue, group, n in q.arrivals:
                if handle == h.name and group and n:
                    arrived.setdefault(group, set()).add(q.name)
        if any(len(v) > 1 for v in by_group.values()) or any(len(v) > 1 for v in arrived.values()):
            return False
        # the current group's destination is known (``Handle.bound``): as for BIND_ON_OPEN,
        # its messages arrive there and are not sent on, unless the name went through an
        # alias there; a destination that lost the queue dead-letters them (004 §Pros and
        # cons of binding: "it won't be rebalanced, but it could be DLQd")
        if h.group and h.bound is not None:
            at = h.bound.qmgr
            if (arrived.get(h.group, set()) - {at} or by_group.get(h.group, set()) - {at}
                    or any(m.group == h.group for _ch, m in _left(state, h, at))) and not _gateway_reran(state, h, at):
                return False
    return True


def group_bound(model, state: NetworkState) -> bool:
    return any(h.bind == bd.BIND_ON_GROUP and h.group and h.puts >= 2 for h in _handles(state))


# --- BD-NOT-FIXED-REDRIVE -----------------------------------------------------------------
def stuck_messages(state: NetworkState):
    """Messages waiting for a RETRYING channel although the algorithm, run for them now,
    would choose another available destination (004 §Channel availability routing;
    ``spec.network.workload.moves_to``)."""
    for ch, m, _dest in _stuck(state):
        yield ch, m


def _stuck(state: NetworkState):
    """``stuck_messages``, each with the destination the algorithm chooses for it now."""
    for ch, m in _app_messages(state):
        # the status of the route the message waits for (its own, on a separate route)
        if state.route_status(ch.src, ch.dst, m.route) != "RETRYING" or m.p2p:  # p2p: one route
            continue
        q = state.find(ch.src)
        if q is None or not q.running:
            continue
        obj = q.defs.queue(m.queue)
        view = bd.view_of(q, channel_statuses(state, q), obj is not None and obj.qtype != "QLOCAL")
        choice = wl.choose(view, wl.Put(m.queue, m.target_qmgr, len(m.hops) > 1), bd.thaw_history(q.wl_history))
        if moves_to(state, ch.src, ch.dst, m.route, choice.destination):
            yield ch, m, choice.destination


def not_fixed_redriven(model, state: NetworkState) -> bool:
    # 000 §When does workload balancing occur?: "any bind_not_fixed messages waiting to be
    # sent down that channel will go through workload balancing again"; bound messages do
    # not (004: "Things that can prevent routing ... Binding messages to a target"), so a
    # bound handle's message violates this: the stuck-message counterexample.
    # The re-balancing happens when the channel "goes into retry" (000) and again "every time
    # the channel is retried" (004 §Channel availability routing): a NOT_FIXED message whose
    # last run of the algorithm at the sender already saw that channel out of service (the
    # re-drive when it went into retry or at a retry, or a put while it was in retry) and chose
    # it, for want of a better destination known then, waits only until the channel's next
    # retry — so that retry must be on offer (a ChannelRetry that moves it): it never stays
    # for good while another destination is available (issue #14 round 2 item 8 excused it
    # for good; the retry made that excuse wrong). A destination whose queue manager does not
    # run is not available in fact, whatever its channel's status says: a move there goes
    # straight back into retry, and no retry is offered for it.
    stuck = list(_stuck(state))
    if not stuck:
        return True
    offered = set(retries(state, getattr(model, "mutations", NO_MUTATIONS)))
    runs = {q.name for q in state.qmgrs if q.running}
    last: dict[tuple[str, str, int], bd.Decision] = {}
    for d in _decisions(state):
        last[(d.qmgr, d.handle, d.serial)] = d
    running = bd.status_class("RUNNING")

    def balanced_in_retry(ch, m) -> bool:
        d = last.get((ch.src, m.handle, m.serial))
        if d is None:
            return False
        if d.redrive and not d.chosen and d.away_from == ch.dst:
            # The re-drive ran the algorithm and found no destination at all (every known
            # instance PUT(DISABLED): 001 "If only put disabled instances remain ... all other
            # operations will fail with MQRC_CLUSTER_PUT_INHIBITED"), so the message stayed on
            # the channel it was re-driven from. It has been balanced in retry as much as one
            # that chose this channel: a destination learnt later is for the channel's next
            # retry (004 §Channel availability routing: "every time the channel is retried"),
            # which must be on offer (tests/regressions/real-not-fixed-redrive-put-inhibited.toml;
            # docs/decisions.md, session 30).
            return True
        if not d.chosen or d.chosen[0] != ch.dst:
            return False
        return d.redrive or any(c.qmgr == ch.dst and c.status_class > running for c in d.candidates)

    return all(not m.bound and balanced_in_retry(ch, m)
               and (ChannelRetry(ch.src, ch.dst, m.route) in offered or not (dest.local or dest.qmgr in runs))
               for ch, m, dest in stuck)


_redriven_elsewhere = _some_decision(lambda d: bool(d.redrive and d.chosen and d.chosen[0] != d.away_from))


def redriven_elsewhere(model, state: NetworkState) -> bool:
    return _redriven_elsewhere(state)


# --- BD-AS-Q-DEF --------------------------------------------------------------------------
def _defbind(h: bd.Handle) -> str:
    """The DEFBIND MQOO_BIND_AS_Q_DEF reads, among those the handle could read when its bind
    was resolved (its ghost ``defbinds``): the local definition the name resolved through
    (an alias's own: 004 "don't forget aliases"), else the first instance known."""
    local = [d for src, d in h.defbinds if not src]
    instances = [d for src, d in h.defbinds if src]
    return (local or instances or [""])[0]


def as_q_def(model, state: NetworkState) -> bool:
    # 000 §Workload balancing - Bind Options: the DEFBIND of the object opened, as it was when
    # the bind was resolved (the bind is an MQOPEN option, "chosen at MQOPEN"; a DEFBIND
    # changed later, or learnt later, does not move it: tests/regressions/
    # real-as-q-def-defbind-changed.toml; docs/decisions.md, Session 31). Not judged for a
    # handle that names its target queue manager: that fixes the destination, so the bind
    # option chooses nothing, and the open needs no record of the queue, whose DEFBIND may
    # arrive later than the MQOPEN that decided the bind with the default, OPEN
    # (tests/regressions/real-as-q-def-named-target.toml; docs/decisions.md, session 29)
    for h in _handles(state):
        if h.option == bd.BIND_AS_Q_DEF and h.bind and not h.target_qmgr:
            defbind = _defbind(h)
            if defbind and bd.bind_from_defbind(defbind) != h.bind:
                return False
    return True


def as_q_def_resolved(model, state: NetworkState) -> bool:
    return any(h.option == bd.BIND_AS_Q_DEF and h.bind for h in _handles(state))


# --- WL-USEQ-ANY-SUBSCRIBED / WL-LOCAL-CLUSRCVR-STOPPED ---------------------------------------
# Both judge what a scenario step did, in the states whose last step it was (later steps may
# change the definitions they are judged against): the step's input against the network.
def _last_step(model, state: NetworkState):
    """The last scenario step taken, unless its queue manager was stopped or deleted then
    (the step failed with MQRC_Q_MGR_NOT_AVAILABLE and changed nothing)."""
    i = state.next_step - 1
    steps = scenario_steps(model)
    step = steps[i] if 0 <= i < len(steps) else None
    qmgr = getattr(step, "qmgr", "")
    if qmgr and any(e.step == i and e.code == "MQRC_Q_MGR_NOT_AVAILABLE" for e in dict(state.logs).get(qmgr, ())):
        return None
    return step


def _competing_open(model, state: NetworkState):
    """(queue manager, handle, partial caches in the queue's clusters) when the last step
    was an MQOPEN, without a target queue manager, of a clustered local queue whose
    effective CLWLUSEQ is ANY: the local instance competes with the remote ones (001 rule 6;
    000 §Utilising remote destinations)."""
    step = _last_step(model, state)
    if not isinstance(step, sc.OpenStep) or step.target_qmgr:
        return None
    q = state.find(step.qmgr)
    h = next((h for h in q.handles if h.name == step.handle), None) if q else None
    local = q.defs.queue(step.queue) if q else None
    if h is None or h.failed or local is None or local.qtype != "QLOCAL":
        return None
    useq = local.clwluseq if local.clwluseq != "QMGR" else q.defs.clwluseq
    clusters = objects.clusters_of(local, q.defs)
    if useq != "ANY" or not clusters:
        return None
    return q, h, [c for c in q.caches if c.cluster in clusters and not c.full]


def useq_any_subscribed(model, state: NetworkState) -> bool:
    # 000 §Utilising remote destinations: under CLWLUSEQ(ANY) the algorithm may "choose
    # either local or remote queues", and 000 §First MQOPEN of a Queue: the first MQOPEN of
    # a cluster queue subscribes for it at the full repositories. So opening a local
    # instance that competes subscribes for the others, or they are never candidates
    found = _competing_open(model, state)
    if found is None:
        return True
    _, h, partial = found
    return not partial or any((rp.QUEUE, h.queue) in c.interests for c in partial)


def useq_any_opened(model, state: NetworkState) -> bool:
    found = _competing_open(model, state)
    return found is not None and bool(found[2])


def _stopped_own_receivers(model, state: NetworkState):
    """(queue manager, CLUSRCVR) for each of the queue manager's own CLUSRCVRs that the last
    step, an MQSC step, left stopped: its last START/STOP CHANNEL naming it was a STOP, and
    no sender at the queue manager carries that name (STOP CHANNEL then means the sender)."""
    step = _last_step(model, state)
    if not isinstance(step, sc.MqscStep):
        return
    q = state.find(step.qmgr)
    if q is None or not q.running:
        return
    last: dict[str, str] = {}
    for c in step.commands:
        if c.objtype == "CHANNEL" and c.verb in ("START", "STOP"):
            last[c.name] = c.verb
    for name, verb in sorted(last.items()):
        chl = q.defs.channel(name)
        if verb != "STOP" or chl is None or chl.chltype != "CLUSRCVR":
            continue
        if any(ch.name == name and ch.chltype in ("CLUSSDR", "SDR") for ch in q.defs.channels):
            continue
        if any(r.info.channel == name and r.owner != q.qmid and state.find(r.owner_name)
               for c in q.caches for r in c.qmgr_records()):
            continue  # an auto-defined CLUSSDR of that name: STOP CHANNEL stops the sender
        yield q, name


def own_receiver_stopped(model, state: NetworkState) -> bool:
    # 001 rule 6: under CLWLUSEQ(ANY) "the local queue is chosen, based on the status of the
    # locally-defined CLUSRCVR channels in the same cluster as the queue" — so STOP CHANNEL
    # of a queue manager's own CLUSRCVR is a status the algorithm sees (STOPPED until START)
    for q, name in _stopped_own_receivers(model, state):
        ch = state.channel(q.name, bd.local_receiver_key(q.name, name))
        if ch is None or ch.status != "STOPPED":
            return False
    return True


def own_receiver_stop_seen(model, state: NetworkState) -> bool:
    return any(True for _ in _stopped_own_receivers(model, state))


PROPERTIES = (
    Property.always("WL-SHARED-CLUSTER", "every choice is a route sharing a cluster with the chooser and the queue",
                    chosen_shares_a_cluster, citation=f"{CITE_001}, rules 1-2", witness="WL-REMOTE-CHOICE", reads=READS_QMGRS),
    Property.sometimes("WL-REMOTE-CHOICE", "a remote destination is chosen", remote_choice_made,
                       citation=CITE_001, reads=READS_QMGRS),
    Property.always("WL-PUT-INHIBITED", "PUT(DISABLED) instances are chosen never while an enabled one survives "
                    "rank; only disabled ones give MQRC_CLUSTER_PUT_INHIBITED", put_inhibited_respected,
                    citation=f"{CITE_001}, rule 5", witness="WL-PUT-DISABLED-SEEN", reads=READS_QMGRS),
    Property.sometimes("WL-PUT-DISABLED-SEEN", "a choice sees a PUT(DISABLED) instance", put_disabled_seen,
                       citation=f"{CITE_001}, rule 5", reads=READS_QMGRS),
    Property.always("WL-RANK", "the choice has the highest channel rank, then the highest queue rank, whatever the "
                    "channel status", highest_rank_chosen, citation=f"{CITE_001}, rules 3-4; 000 §Queue Rank example",
                    witness="WL-RANKS-DIFFER", reads=READS_QMGRS),
    Property.sometimes("WL-RANKS-DIFFER", "a choice among routes of different ranks", ranks_differ,
                       citation="000 §Rank - basics", reads=READS_QMGRS),
    Property.always("WL-STATUS", "among what rank, PUT and SUSPEND leave, a channel of the best status class is chosen",
                    best_status_chosen, citation=f"{CITE_001}, rules 7-11; DESIGN §3.7",
                    witness="WL-STATUSES-DIFFER", reads=READS_QMGRS),
    Property.sometimes("WL-STATUSES-DIFFER", "a choice among channels in different status classes", statuses_differ,
                       citation="004 §Channel availability routing", reads=READS_QMGRS),
    Property.always("WL-LOCAL-USEQ", "the local instance is used under CLWLUSEQ(LOCAL) or for a message that arrived "
                    "over a cluster channel", local_instance_used,
                    citation=f"{CITE_001}, rule 6; 000 §Utilising remote destinations",
                    witness="WL-LOCAL-CANDIDATE", reads=READS_QMGRS),
    Property.sometimes("WL-LOCAL-CANDIDATE", "a choice where a local instance competes", local_candidate_seen,
                       citation=f"{CITE_001}, rule 6", reads=READS_QMGRS),
    Property.always("WL-USEQ-ANY-SUBSCRIBED", "MQOPEN of a clustered CLWLUSEQ(ANY) queue with a local instance "
                    "subscribes for the queue at the full repositories, so the remote instances compete",
                    useq_any_subscribed, citation="000 §Utilising remote destinations; 000 §First MQOPEN of a Queue",
                    witness="WL-USEQ-ANY-OPENED", reads=READS_LOGS),
    Property.sometimes("WL-USEQ-ANY-OPENED", "a partial repository opens a CLWLUSEQ(ANY) queue it hosts",
                       useq_any_opened, citation="000 §Utilising remote destinations", reads=READS_LOGS),
    Property.always("WL-LOCAL-CLUSRCVR-STOPPED", "STOP CHANNEL of a queue manager's own CLUSRCVR leaves it STOPPED "
                    "for the algorithm's local-instance comparison", own_receiver_stopped,
                    citation=f"{CITE_001}, rule 6", witness="WL-LOCAL-CLUSRCVR-STOP", reads=READS_LOGS),
    Property.sometimes("WL-LOCAL-CLUSRCVR-STOP", "a queue manager stops its own CLUSRCVR", own_receiver_stop_seen,
                       citation=f"{CITE_001}, rule 6", reads=READS_LOGS),
    Property.always("WL-MRUC", "at most CLWLMRUC channels reach the final choice, and the choice is one of them",
                    mruc_respected, citation=f"{CITE_001}, rule 15", witness="WL-MRUC-CUT", reads=READS_QMGRS),
    Property.sometimes("WL-MRUC-CUT", "CLWLMRUC cuts the channels", mruc_cut, citation=f"{CITE_001}, rule 15", reads=READS_QMGRS),
    Property.always("WL-ROUND-ROBIN", "equal weights: no channel is more than one pick ahead of another, and every "
                    "full cycle is exactly even", round_robin, citation=f"{CITE_001}, final choice",
                    witness="WL-BALANCED", reads=READS_QMGRS),
    Property.always("WL-WEIGHTS", "counts follow CLWLWGHT: no channel more than one weighted pick ahead, exactly "
                    "proportional at every full weight cycle", weighted,
                    citation=f"{CITE_001}, final choice; 000 §Channel Weight example", witness="WL-WEIGHTED-CYCLE", reads=READS_QMGRS),
    Property.sometimes("WL-BALANCED", "two or more puts are balanced over two or more channels", balanced_run_seen,
                       citation=f"{CITE_001}, final choice", reads=READS_QMGRS),
    Property.sometimes("WL-WEIGHTED-CYCLE", "a full weight cycle is chosen over channels of unequal CLWLWGHT",
                       weighted_cycle_seen, citation="000 §Channel Weight example", reads=READS_QMGRS),
    Property.always("WL-NO-BOUNCE-WITH-RANK", "no message comes back to a queue manager it passed",
                    no_bounce, citation="000 §Rank and Overlapping Clusters", witness="WL-GATEWAY-HOP"),
    Property.sometimes("WL-GATEWAY-HOP", "a message goes on from the queue manager it arrived at", gateway_hop,
                       citation="000 §Routing messages in and out of clusters"),
    Property.always("BD-ON-OPEN-FIXED", "every message of a BIND_ON_OPEN handle goes to, and arrives at, the "
                    "destination chosen at MQOPEN, even when its channel fails", on_open_fixed,
                    citation="000 §Workload balancing - Bind Options; 004 §Pros and cons of binding",
                    witness="BD-ON-OPEN-ARRIVED"),
    Property.sometimes("BD-ON-OPEN-BOUND", "a BIND_ON_OPEN handle puts two or more messages", on_open_bound,
                       citation="000 §Workload balancing - Bind Options", reads=READS_QMGRS),
    Property.sometimes("BD-ON-OPEN-ARRIVED", "two or more messages of a BIND_ON_OPEN handle bound to a remote "
                       "instance have arrived", on_open_arrived, citation="000 §Workload balancing - Bind Options", reads=READS_QMGRS),
    Property.always("BD-TARGET-FIXED", "a message naming a target queue manager arrives there (or nowhere, its "
                    "failure logged), whatever rank, status or weights say", target_fixed,
                    citation="DESIGN §3.6; 000 §Routing messages in and out of clusters, Scenario 1; "
                    "004 §Channel availability routing", witness="BD-TARGET-REACHED"),
    Property.sometimes("BD-TARGET-REACHED", "a message naming another queue manager arrives there", target_reached,
                       citation="000 §Routing messages in and out of clusters, Scenario 1", reads=READS_QMGRS),
    Property.always("BD-ON-GROUP", "the messages of one logical group go to one destination", on_group_fixed,
                    citation="001 (MQOO_BIND_ON_GROUP); 004 §Pros and cons of binding", witness="BD-GROUP-BOUND"),
    Property.sometimes("BD-GROUP-BOUND", "a BIND_ON_GROUP handle puts a group of two or more", group_bound,
                       citation="004 §Channel workload balancing", reads=READS_QMGRS),
    Property.always("BD-NOT-FIXED-REDRIVE", "no message waits for a RETRYING channel when the algorithm would now "
                    "choose elsewhere (bound messages do: the stuck-message trace)", not_fixed_redriven,
                    citation="000 §When does workload balancing occur?; 004 §Channel availability routing",
                    witness="BD-REDRIVEN"),
    Property.sometimes("BD-REDRIVEN", "a message waiting for a RETRYING channel is re-driven elsewhere",
                       redriven_elsewhere, citation="000 §When does workload balancing occur?", reads=READS_QMGRS),
    Property.always("BD-AS-Q-DEF", "MQOO_BIND_AS_Q_DEF binds as the DEFBIND of the object opened (an alias's own)",
                    as_q_def, citation="000 §Workload balancing - Bind Options; 004 §Pros and cons of binding",
                    witness="BD-AS-Q-DEF-RESOLVED", reads=READS_QMGRS),
    Property.sometimes("BD-AS-Q-DEF-RESOLVED", "a BIND_AS_Q_DEF handle's binding is resolved", as_q_def_resolved,
                       citation="000 §Workload balancing - Bind Options", reads=READS_QMGRS),
)


# Stable under landings (spec.network.views.LANDING: an application message on its first
# hop — ``hops`` is its sender alone —, in no logical group, put to a local queue at the
# queue manager its handle is bound to if it is bound, over a route whose status is INACTIVE
# or RUNNING; it changes only that route's messages and status (to RUNNING: the same status
# class), the receiver's ``arrivals`` and the handle's ``arrived``), with why. Handles'
# bindings change only in steps, and a landing is offered only when every step is taken.
_DECISIONS = "reads the ghost decisions (and histories) only: a landing records none"
_ARRIVALS_GROW = ("witnessed by arrivals, which a landing only adds to (the handles it reads change only in "
                  "steps)")
PROPERTIES = stable_under(PROPERTIES, STABLE_LANDING, {
    "WL-SHARED-CLUSTER": _DECISIONS,
    "WL-REMOTE-CHOICE": _DECISIONS,
    "WL-PUT-INHIBITED": _DECISIONS,
    "WL-PUT-DISABLED-SEEN": _DECISIONS,
    "WL-RANK": _DECISIONS,
    "WL-RANKS-DIFFER": _DECISIONS,
    "WL-STATUS": _DECISIONS,
    "WL-STATUSES-DIFFER": _DECISIONS,
    "WL-LOCAL-USEQ": _DECISIONS,
    "WL-LOCAL-CANDIDATE": _DECISIONS,
    "WL-USEQ-ANY-SUBSCRIBED": ("reads the last step, its queue manager's definitions, caches, log and the "
                               "handle's name and failure: a landing changes none of them"),
    "WL-USEQ-ANY-OPENED": "as WL-USEQ-ANY-SUBSCRIBED",
    "WL-LOCAL-CLUSRCVR-STOPPED": ("reads the last step, definitions, caches, log and the status of the queue "
                                  "manager's own CLUSRCVR entry (local_receiver_key), which no delivery lands on"),
    "WL-LOCAL-CLUSRCVR-STOP": "as WL-LOCAL-CLUSRCVR-STOPPED, without the status",
    "WL-MRUC": _DECISIONS,
    "WL-MRUC-CUT": _DECISIONS,
    "WL-ROUND-ROBIN": _DECISIONS,
    "WL-WEIGHTS": _DECISIONS,
    "WL-BALANCED": _DECISIONS,
    "WL-WEIGHTED-CYCLE": _DECISIONS,
    "WL-NO-BOUNCE-WITH-RANK": ("judges each message in flight alone; the one a landing takes is on its first "
                               "hop (hops = its sender), which never bounces"),
    "WL-GATEWAY-HOP": ("witnessed by a message in flight with two or more hops; the one a landing takes has "
                       "one"),
    "BD-ON-OPEN-FIXED": ("a landing of a bound handle's message is at its bound queue manager: it takes a first "
                         "hop that went there and adds an arrival there, neither of which the predicate "
                         "counts; it takes no message with two hops (_left) and records no decision "
                         "(_gateway_reran). Not under a landing elsewhere: a wrong first hop that lands "
                         "becomes an arrival that a gateway's rerun excuses (docs/por.md)"),
    "BD-ON-OPEN-BOUND": "reads handles' bind, binding and puts only, which change only in steps",
    "BD-ON-OPEN-ARRIVED": _ARRIVALS_GROW,
    "BD-TARGET-FIXED": ("violated by an arrival away from the target or a message with two hops leaving it "
                        "(not excused by decisions): arrivals only grow, a landing takes a first hop and "
                        "records no decision"),
    "BD-TARGET-REACHED": _ARRIVALS_GROW,
    "BD-ON-GROUP": ("reads first hops and arrivals in a group only (group != ''): a landing's message is in "
                    "none, and its arrival is counted in group ''"),
    "BD-GROUP-BOUND": "reads handles' bind, group and puts only, which change only in steps",
    "BD-NOT-FIXED-REDRIVE": ("judges messages on RETRYING routes, with choices that read status classes only: a "
                             "landing takes a message from an INACTIVE or RUNNING route, leaves it RUNNING (the "
                             "same class) and records no decision"),
    "BD-REDRIVEN": _DECISIONS,
    "BD-AS-Q-DEF": "reads handles' bind options, binds and DEFBIND ghosts only, which change only in steps",
    "BD-AS-Q-DEF-RESOLVED": "as BD-AS-Q-DEF",
})
