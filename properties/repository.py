"""Repository properties (DESIGN §4, RP-…): what the cluster repository protocol promises.

Each property reads ``spec.network.NetworkState`` and cites its seed section; each
``always``/``at_quiescence`` property names a ``sometimes`` witness so that a pass cannot
be vacuous (STYLE habit 4). "Settled" means no message is in flight to a running queue
manager: the convergence properties speak of settled states only, because while updates
travel the repositories legitimately differ. Stopped queue managers are left out of both
sides — what they hold is not compared, and messages waiting for them wait for their
restart — so one stopped queue manager does not stop the rest of the cluster being judged. Witnesses need a scenario step taken: the initial
state is settled by construction and proves nothing.
"""

from __future__ import annotations

from checker.model import Property
from properties import once_per_part, scenario_steps, stable_under
from spec import repository as rp
from spec import objects
from spec import scenario as sc
from spec.network import NetworkState, resolve_conname
from spec.network.views import READS_FLOW, READS_QMGRS, STABLE_LANDING


def _running(state: NetworkState) -> frozenset[str]:
    return frozenset(q.name for q in state.qmgrs if q.running)


def settled(state: NetworkState) -> bool:
    """No message in flight to a running queue manager, whatever the channel's status or
    the sender's: a message held on a RETRYING or STOPPED channel, or in a stopped queue
    manager's transmission queue, is delayed, not lost. Messages for a stopped queue
    manager wait for its restart (its own view is not compared meanwhile)."""
    running = _running(state)
    return not any(ch.messages and ch.dst in running for ch in state.channels)


def settled_after_step(state: NetworkState) -> bool:
    """Settled, after at least one scenario step (a witness's precondition)."""
    return state.next_step > 0 and settled(state)


def _caches(state: NetworkState):
    """(queue manager, cache) of every running queue manager."""
    for q in state.qmgrs:
        if not q.running:
            continue
        for cache in q.caches:
            yield q, cache


def _live_idents(cache: rp.ClusterCache) -> frozenset:
    return frozenset((r.ident, r.seq) for r in cache.live())


def _frs(state: NetworkState) -> dict[str, list[tuple]]:
    by_cluster: dict[str, list[tuple]] = {}
    for q, cache in _caches(state):
        if cache.full and q.running:
            by_cluster.setdefault(cache.cluster, []).append((q, cache))
    return by_cluster


# --- RP-NO-STALE-APPLY ------------------------------------------------------------------
@once_per_part
def _no_stale_record(cache: rp.ClusterCache) -> bool:
    return all(r.seq >= cache.seen(r.ident) for r in cache.records)


def no_stale_apply(model, state: NetworkState) -> bool:
    # 003 §Queue managers and repositories: duplicates are identified by sequence number;
    # a repository never replaces a record with an older copy.
    return all(_no_stale_record(cache) for _, cache in _caches(state))


def stale_discarded(model, state: NetworkState) -> bool:
    return any(cache.discarded for _, cache in _caches(state))


# --- RP-TWO-FRS -------------------------------------------------------------------------
def publishes_to_two_frs(model, state: NetworkState) -> bool:
    # 003: "this information is sent to the chosen repository and also to one other
    # repository (if there is one)"
    for _, cache in _caches(state):
        targets, known = cache.last_publish
        if not cache.full and targets and len(targets) != min(2, known):
            return False
    return True


def published_to_two(model, state: NetworkState) -> bool:
    return any(len(cache.last_publish[0]) == 2 for _, cache in _caches(state) if not cache.full)


# --- RP-TEMPQMGR ------------------------------------------------------------------------
@once_per_part
def _tempqmgr_unanswered(cache: rp.ClusterCache) -> bool:
    return not any(rp.answers_tempqmgr(cache, r) for r in cache.qmgr_records())


def tempqmgr_until_answered(model, state: NetworkState) -> bool:
    # 000 §Initial definitions: SYSTEM.TEMPQMGR is shown until the FR's own record arrives
    # (CONNAMEs compared as addresses: 'FR1' and 'fr1(1414)' are one listener)
    return all(_tempqmgr_unanswered(cache) for _, cache in _caches(state))


def tempqmgr_shown(model, state: NetworkState) -> bool:
    return any(cache.tempqmgr for _, cache in _caches(state))


# --- RP-FR-CONVERGENCE / RP-FR-MESH-NEEDED ---------------------------------------------
def fr_disagreement(state: NetworkState) -> str:
    for cluster, frs in sorted(_frs(state).items()):
        views = {q.name: _live_idents(c) for q, c in frs}
        if len(set(views.values())) > 1:
            return cluster
    return ""


def frs_converge(model, state: NetworkState) -> bool:
    # 000 §Considerations for Full Repositories: FRs "must be fully inter-connected";
    # then every FR of a cluster holds the same records once updates have flowed.
    return not settled(state) or not fr_disagreement(state)


def frs_settled_together(model, state: NetworkState) -> bool:
    return settled_after_step(state) and any(len(frs) >= 2 for frs in _frs(state).values())


def fr_mesh_loses_update(model, state: NetworkState) -> bool:
    return settled(state) and bool(fr_disagreement(state))


# --- RP-PR-CONVERGENCE ------------------------------------------------------------------
def _reference_fr(state: NetworkState, cluster: str):
    frs = _frs(state).get(cluster, [])
    return frs[0][1] if frs else None


def prs_converge(model, state: NetworkState) -> bool:
    # 000 §First MQOPEN of a Queue: FRs notify subscribers of every change, so a PR's view
    # of what it subscribed for matches the FRs' once updates have flowed — from the FRs
    # holding its subscription. 000 §Considerations for Full Repositories: "if the 2 Full
    # Repositories to which a queue manager subscribed for a queue are both off-line, then
    # that queue manager will not find out about administrative changes to the queue, even
    # if there are other Full Repositories available": while none of them is running, the
    # PR is not expected to have converged (issue #18; it does once one is back).
    if not settled(state) or fr_disagreement(state):
        return True  # FR disagreement is RP-FR-CONVERGENCE's finding
    for q, cache in _caches(state):
        if cache.full or cache.tempqmgr:
            continue
        running = _frs(state).get(cache.cluster, [])
        for key in cache.interests:
            holders = [fr for _, fr in running
                       if any(s[0] == q.qmid and (s[2], s[3]) == key for s in fr.subscribers)]
            if not holders:
                continue
            mine = {(r.ident, r.seq) for r in rp.records_for(cache, key)}
            theirs = {(r.ident, r.seq) for r in rp.records_for(holders[0], key)}
            if mine != theirs:
                return False
    return True


def pr_hosts_current(model, state: NetworkState) -> bool:
    # 003 §Queue managers and repositories: partial repositories make inquiries "when they
    # first need to access another queue or queue manager", and request "that thereafter they
    # be notified of any new information concerning that queue or queue manager". So a
    # settled partial repository's records of the queue managers hosting a queue it
    # subscribed to are the full repositories' ones — also for a host it knew before, such
    # as the full repository it joined through (a SUSPEND there must reach it). Judged from
    # the full repositories' view of the hosts, not from the PR's own subscriptions. The
    # same exemptions as RP-PR-CONVERGENCE.
    if not settled(state) or fr_disagreement(state):
        return True
    for q, cache in _caches(state):
        if cache.full or cache.tempqmgr:
            continue
        running = _frs(state).get(cache.cluster, [])
        for key in cache.interests:
            if key[0] != rp.QUEUE:
                continue
            holders = [fr for _, fr in running
                       if any(s[0] == q.qmid and (s[2], s[3]) == key for s in fr.subscribers)]
            if not holders:
                continue
            for host in sorted({r.owner_name for r in rp.records_for(holders[0], key)} - {q.name}):
                mine = {(r.ident, r.seq) for r in rp.records_for(cache, (rp.QMGR, host))}
                theirs = {(r.ident, r.seq) for r in rp.records_for(holders[0], (rp.QMGR, host))}
                if mine != theirs:
                    return False
    return True


def pr_holds_subscribed(model, state: NetworkState) -> bool:
    return settled_after_step(state) and any(not c.full and c.interests for _, c in _caches(state))


def pr_holds_queue_subscribed(model, state: NetworkState) -> bool:
    # RP-PR-HOSTS-CURRENT's witness: it judges only subscriptions for cluster queues. Every
    # partial repository that joined now holds its subscription for the full repositories'
    # records (session 29), so RP-PR-SUBSCRIBED no longer says that one for a queue was made.
    return settled_after_step(state) and any(not c.full and any(k[0] == rp.QUEUE for k in c.interests)
                                             for _, c in _caches(state))


# --- RP-FR-HOLDS-MEMBERS ----------------------------------------------------------------
def _reset_clusters(state: NetworkState) -> set[str]:
    """Clusters where RESET CLUSTER removed a queue manager (``ClusterCache.removed``): what
    the full repositories then hold is RP-RESET-REMOVES's business."""
    return {c.cluster for q in state.qmgrs for c in q.caches if c.removed}


def _joins(state: NetworkState, q, cluster: str, frs: set[str]) -> bool:
    """Whether ``q`` reaches a running full repository of ``cluster`` over a manual CLUSSDR
    (000 §Initial definitions), CONNAMEs compared as addresses (a CLUSRCVR CONNAME without
    a port is reached by a CLUSSDR naming the host with one: 003 §Auto-definition of
    channels)."""
    for ch in q.defs.channels:
        if ch.chltype == "CLUSSDR" and cluster in objects.clusters_of(ch, q.defs):
            if resolve_conname(state, ch.conname, cluster) in frs - {q.name}:
                return True
    return False


def frs_hold_members(model, state: NetworkState) -> bool:
    # 003 §Queue managers and repositories: a full repository "holds a complete set of
    # information about every queue manager and object in the cluster"; a member's
    # information reaches it from the member's manual CLUSSDR's full repository (000
    # §Initial definitions), one record per CLUSRCVR of the cluster (001 rule 12 chooses
    # between a queue manager's routes). Judged for running members that reach a running
    # full repository; FR disagreement is RP-FR-CONVERGENCE's finding
    if not settled(state) or fr_disagreement(state):
        return True
    reset = _reset_clusters(state)
    for cluster, holders in _frs(state).items():
        if cluster in reset:
            continue
        names = {f.name for f, _ in holders}
        for q in state.qmgrs:
            cache = q.cache(cluster) if q.running else None
            if cache is None or not (cache.full or _joins(state, q, cluster, names)):
                continue
            channels = [ch.name for ch in q.defs.channels
                        if ch.chltype == "CLUSRCVR" and cluster in objects.clusters_of(ch, q.defs)]
            for f, fc in holders:
                if f.name == q.name:
                    continue
                held = {r.info.channel for r in fc.qmgr_records() if r.owner == q.qmid}
                if not set(channels) <= held:
                    return False
    return True


def members_held(model, state: NetworkState) -> bool:
    return settled_after_step(state) and any(
        not c.full and any(r.owner != q.qmid for r in c.qmgr_records()) for q, c in _caches(state))


# --- RP-MANUAL-CLUSSDR-JOINS --------------------------------------------------------------
# Where each manual CLUSSDR leads depends on the queue managers' channels and namelists
# alone, which most transitions keep (the same tuples): kept per tuple of them, by identity
# (the entry holds them, so their ids cannot be reused while cached). Changes how fast,
# never what is found.
_REACH: dict[tuple[int, ...], tuple[tuple, tuple]] = {}


def _manual_targets(state: NetworkState) -> tuple:
    """(queue manager, cluster, manual CLUSSDR, the queue manager it reaches, whether that
    one's CLUSRCVR CONNAME there has no port) for every manual CLUSSDR that reaches another
    queue manager's CLUSRCVR, as addresses (``resolve_conname``: a CLUSRCVR CONNAME without
    a port is reached by a CLUSSDR naming its host with one)."""
    parts = tuple((q.defs.channels, q.defs.namelists) for q in state.qmgrs)
    key = tuple(q.name for q in state.qmgrs) + tuple(id(x) for part in parts for x in part)
    hit = _REACH.get(key)
    if hit is not None:
        return hit[1]
    out = []
    for q in state.qmgrs:
        for ch in q.defs.channels:
            if ch.chltype != "CLUSSDR":
                continue
            for cluster in objects.clusters_of(ch, q.defs):
                target = resolve_conname(state, ch.conname, cluster)
                far = state.find(target) if target not in (None, q.name) else None
                if far is not None:
                    portless = any(r.chltype == "CLUSRCVR" and "(" not in r.conname
                                   and cluster in objects.clusters_of(r, far.defs) for r in far.defs.channels)
                    out.append((q.name, cluster, ch, target, portless))
    if len(_REACH) >= 4096:
        _REACH.clear()
    _REACH[key] = (parts, tuple(out))
    return _REACH[key][1]


def manual_clussdrs_join(model, state: NetworkState) -> bool:
    # 000 §Initial definitions: a member's records go to the full repository over its
    # manual CLUSSDR (SYSTEM.TEMPQMGR until the answer); 003 §Auto-definition of channels:
    # with a CLUSRCVR CONNAME that has no port, that initial contact works — only the
    # auto-defined CLUSSDR made from it fails. So a running member's manual CLUSSDR that
    # reaches a listener has carried its JOIN (``ClusterCache.joined``), once the member
    # has a CLUSRCVR of its own published in that cluster (something to join with)
    for name, cluster, ch, _, _ in _manual_targets(state):
        q = state.find(name)
        cache = q.cache(cluster) if q.running else None
        if cache is None or ch.conname in cache.joined:
            continue
        if any(r.kind == rp.QMGR and r.owner == q.qmid and not r.deleted for r in cache.records):
            return False
    return True


def _joined(state: NetworkState, portless_only: bool) -> bool:
    """A running member's manual CLUSSDR has carried its JOIN (to a CLUSRCVR whose CONNAME
    has no port, with ``portless_only``)."""
    for name, cluster, ch, _, portless in _manual_targets(state):
        if portless or not portless_only:
            q = state.find(name)
            cache = q.cache(cluster) if q.running else None
            if cache is not None and ch.conname in cache.joined:
                return True
    return False


def joined(model, state: NetworkState) -> bool:
    return _joined(state, portless_only=False)


def joined_portless(model, state: NetworkState) -> bool:
    return _joined(state, portless_only=True)


# --- RP-PARTIAL-NO-SUBSCRIBERS / RP-SUBSCRIBE-AVAILABLE --------------------------------
def partial_no_subscribers(model, state: NetworkState) -> bool:
    # 000 §Considerations for Full Repositories: "altering the Full Repositories to be
    # Partial Repositories before taking them off-line ... will cause the queue managers
    # within the cluster to remake their subscriptions elsewhere": a queue manager that is
    # not a full repository of a cluster serves no subscriptions there (000 §First MQOPEN of
    # a Queue: subscriptions are held by full repositories) — a demoted one has told its
    # subscribers and let go of them
    return not any(c.subscribers for q in state.qmgrs for c in q.caches if not c.full)


def demoted(model, state: NetworkState) -> bool:
    """A full repository was altered to a partial one by a step taken (ALTER QMGR with a
    blank REPOS or REPOSNL) and is partial now."""
    steps = scenario_steps(model)
    for step in steps[:state.next_step]:
        if not isinstance(step, sc.MqscStep):
            continue
        q = state.find(step.qmgr)
        if q is None or all(c.full for c in q.caches):
            continue
        if any(c.verb == "ALTER" and c.objtype == "QMGR" and any(
                c.has(kw) and not str(c.get(kw)).strip() for kw in ("REPOS", "REPOSNL")) for c in step.commands):
            return True
    return False


def subscribe_available(model, state: NetworkState) -> bool:
    # 000 §Considerations for Full Repositories: the manual CLUSSDR's full repository is
    # tried first, "but if that Full Repository is unavailable, it will then use any other
    # Full Repositories that it knows about"; 003: sent "also to one other repository (if
    # there is one)" — so an MQOPEN's subscription goes to two available full repositories
    # when it knows two, to the one when it knows one (``ClusterCache.last_subscribe``:
    # where it went, and which of those it knew were available then)
    for q in state.qmgrs:
        for cache in q.caches:
            targets, available = cache.last_subscribe
            if targets and len(set(targets) & set(available)) < min(2, len(available)):
                return False
    return True


def subscribed_at_open(model, state: NetworkState) -> bool:
    return any(c.last_subscribe[0] for q in state.qmgrs for c in q.caches)


def subscribed_past_unavailable(model, state: NetworkState) -> bool:
    return any(c.last_subscribe[0] and set(c.last_subscribe[0]) - set(c.last_subscribe[1])
               for q in state.qmgrs for c in q.caches)


# --- RP-TOPIC-EVERYWHERE ----------------------------------------------------------------
def topics_everywhere(model, state: NetworkState) -> bool:
    # 002 §Cluster topics: "Information about cluster topics is pushed to all members of a
    # cluster"
    if not settled(state) or fr_disagreement(state):
        return True
    for q, cache in _caches(state):
        ref = _reference_fr(state, cache.cluster)
        if ref is None or cache.tempqmgr:
            continue
        if not cache.full and not {r.owner_name for r in cache.full_repositories()} & {
                fq.name for fq, _ in _frs(state)[cache.cluster]}:
            # 000 §Considerations for Full Repositories: with the full repositories it uses
            # off-line, a queue manager "will not find out about administrative changes ...
            # even if there are other Full Repositories available" — a partial repository
            # that knows no running full repository is not expected to hold what the others
            # do (Session 28: its only one stopped, unreachable since its CLUSRCVR CONNAME
            # has no port, 003 §Auto-definition of channels)
            continue
        # equality, not inclusion: a deleted (or expired, or removed) topic must go too.
        # Full repositories with PSCLUS(DISABLED) refuse cluster topics, so a member's own
        # are then held by it alone (002 §Inhibiting clustered publish/subscribe in a cluster)
        refused = _frs(state)[cache.cluster][0][0].defs.psclus == "DISABLED"
        want = {(r.ident, r.seq) for r in ref.live() if r.kind == rp.TOPIC}
        have = {(r.ident, r.seq) for r in cache.live() if r.kind == rp.TOPIC and not (refused and r.owner == q.qmid)}
        if want != have:
            return False
    return True


def topic_at_member(model, state: NetworkState) -> bool:
    # heard of: a live topic, or the tombstone of a deleted one (the comparison is then not
    # between two empty sets by default)
    return settled_after_step(state) and any(not c.full and any(r.kind == rp.TOPIC for r in c.records)
                                             for _, c in _caches(state))


# --- RP-REFRESH-RESTORES ----------------------------------------------------------------
def refresh_restores(model, state: NetworkState) -> bool:
    # 000 §Refreshing repository information: the information "will then be rebuilt over
    # time, by requesting it from the Full Repositories"; a refreshed full repository is
    # rebuilt from the other full repositories (002 §REFRESH CLUSTER considerations), so it
    # then holds exactly what they hold.
    if not settled(state):
        return True
    frs = _frs(state)
    for q, cache in _caches(state):
        if not cache.refreshed:
            continue
        others = [c for fq, c in frs.get(cache.cluster, []) if fq.name != q.name]
        if not others:
            # nothing to rebuild from: no other full repository is running (_frs), so the
            # rebuilding "over time" has not begun — checked before SYSTEM.TEMPQMGR, which a
            # partial repository shows while its full repository is stopped (issue #14's fuzzing)
            continue
        if cache.tempqmgr and not any(_reachable(cache, fq, c) for fq, c in frs.get(cache.cluster, [])
                                      if fq.name != q.name):
            # the rebuilding goes "by requesting it from the Full Repositories" (000 §Refreshing
            # repository information), and a refreshed queue manager that knows no full
            # repository by record can only ask those its manual CLUSSDRs name: while all of
            # them are stopped it has not begun (issue #14 round 2's fuzzing: the PR's manual
            # CLUSSDR named an FR that stopped; the cluster's other FR ran, unknown to it)
            continue
        if _answerable_tempqmgr(cache, [(fq, c) for fq, c in frs.get(cache.cluster, []) if fq.name != q.name]):
            return False
        ref = others[0]
        if cache.full:
            if _live_idents(cache) != _live_idents(ref):
                return False
            continue
        if fr_disagreement(state):
            continue  # FR disagreement is RP-FR-CONVERGENCE's finding
        frs_there = {r.ident for r in ref.full_repositories()}
        frs_here = {r.ident for r in cache.full_repositories()}
        if not frs_there <= frs_here:
            return False
        for key in cache.interests:
            if {(r.ident, r.seq) for r in rp.records_for(cache, key)} != {(r.ident, r.seq) for r in rp.records_for(ref, key)}:
                return False
    return True


def _answerable_tempqmgr(cache: rp.ClusterCache, frs) -> bool:
    """Whether a SYSTEM.TEMPQMGR entry of ``cache`` names the listener of one of ``frs``
    (running full repositories, with their caches): only such an entry is one that the
    rebuilding should have answered. 000 §Initial definitions shows the entry until the full
    repository "has communicated" with the partial repository. A manual CLUSSDR naming a
    full repository that is not running (deleted, or stopped) has no one to answer it yet:
    its entry stays, whatever the running full repositories send (the session-32 fuzz finding, seed
    9209: a partial repository refreshed after its manual CLUSSDR's full repository was
    deleted and removed by RESET CLUSTER; docs/decisions.md)."""
    return any(rp.answers_tempqmgr(cache, r) for fq, c in frs for r in c.qmgr_records()
               if r.owner == fq.qmid)


def _reachable(cache: rp.ClusterCache, fq, fr_cache: rp.ClusterCache) -> bool:
    """Whether the queue manager holding ``cache`` can ask full repository ``fq`` for the
    cluster: it knows ``fq`` by a record, or a manual CLUSSDR of its names ``fq``'s listener
    (an unanswered SYSTEM.TEMPQMGR entry, 000 §Initial definitions)."""
    if any(r.owner == fq.qmid for r in cache.qmgr_records()):
        return True
    return any(rp.answers_tempqmgr(cache, r) for r in fr_cache.qmgr_records() if r.owner == fq.qmid)


def refreshed_and_settled(model, state: NetworkState) -> bool:
    return settled(state) and any(c.refreshed for _, c in _caches(state))


# --- RP-RESET-REMOVES -------------------------------------------------------------------
def reset_removes(model, state: NetworkState) -> bool:
    # 000 §Incorrectly deleted queue managers: RESET CLUSTER "can be used to force a queue
    # managers definitions to be deleted from the cluster ... and can then inform the other
    # queue managers in the cluster to delete them"
    if not settled(state):
        return True
    running = {q.qmid for q in state.qmgrs if q.running}
    removed = {(c.cluster, qmid) for _, c in _caches(state) for qmid in c.removed if qmid not in running}
    return not any((cache.cluster, r.owner) in removed for _, cache in _caches(state) for r in cache.live())


def reset_happened(model, state: NetworkState) -> bool:
    return settled(state) and any(c.removed for _, c in _caches(state))


PROPERTIES = (
    Property.always("RP-NO-STALE-APPLY", "a repository never replaces a record with an older or duplicate copy",
                    no_stale_apply, citation="003 §Queue managers and repositories", witness="RP-STALE-DISCARDED", reads=READS_QMGRS),
    Property.sometimes("RP-STALE-DISCARDED", "a duplicate or stale copy arrives and is discarded", stale_discarded,
                       citation="003 §Queue managers and repositories", reads=READS_QMGRS),
    Property.always("RP-TWO-FRS", "a partial repository publishes its changes to two full repositories when it knows two",
                    publishes_to_two_frs, citation="003 §Queue managers and repositories", witness="RP-TWO-FRS-WITNESS", reads=READS_QMGRS),
    Property.sometimes("RP-TWO-FRS-WITNESS", "a partial repository publishes to two full repositories", published_to_two,
                       citation="003 §Queue managers and repositories", reads=READS_QMGRS),
    Property.always("RP-TEMPQMGR", "SYSTEM.TEMPQMGR is shown only until the full repository answers",
                    tempqmgr_until_answered, citation="000 §Initial definitions", witness="RP-TEMPQMGR-SHOWN", reads=READS_QMGRS),
    Property.sometimes("RP-TEMPQMGR-SHOWN", "a manual CLUSSDR is shown as SYSTEM.TEMPQMGR", tempqmgr_shown,
                       citation="000 §Checking initial definitions", reads=READS_QMGRS),
    Property.at_quiescence("RP-FR-CONVERGENCE", "settled full repositories of a cluster hold the same records",
                           frs_converge, citation="000 §Considerations for Full Repositories",
                           witness="RP-FRS-SETTLED", reads=READS_FLOW),
    Property.sometimes("RP-FRS-SETTLED", "two or more full repositories settle", frs_settled_together,
                       citation="000 §Considerations for Full Repositories", reads=READS_FLOW),
    Property.sometimes("RP-FR-MESH-NEEDED", "full repositories not fully connected lose an update (witness)",
                       fr_mesh_loses_update, citation="000 §Resource definition for Full Repositories", reads=READS_FLOW),
    Property.at_quiescence("RP-PR-CONVERGENCE", "a settled partial repository holds what the full repositories hold "
                           "for what it subscribed to", prs_converge, citation="000 §First MQOPEN of a Queue",
                           witness="RP-PR-SUBSCRIBED", reads=READS_FLOW),
    Property.sometimes("RP-PR-SUBSCRIBED", "a partial repository with subscriptions settles", pr_holds_subscribed,
                       citation="000 §First MQOPEN of a Queue", reads=READS_FLOW),
    Property.at_quiescence("RP-PR-HOSTS-CURRENT", "a settled partial repository holds the full repositories' "
                           "records of the queue managers hosting the queues it subscribed to", pr_hosts_current,
                           citation="003 §Queue managers and repositories; 000 §First MQOPEN of a Queue",
                           witness="RP-PR-QUEUE-SUBSCRIBED", reads=READS_FLOW),
    Property.sometimes("RP-PR-QUEUE-SUBSCRIBED", "a partial repository subscribed for a cluster queue settles",
                       pr_holds_queue_subscribed, citation="000 §First MQOPEN of a Queue", reads=READS_FLOW),
    Property.at_quiescence("RP-FR-HOLDS-MEMBERS", "settled full repositories hold a record of every CLUSRCVR of "
                           "every member that reaches one of them", frs_hold_members,
                           citation="003 §Queue managers and repositories; 000 §Initial definitions",
                           witness="RP-MEMBERS-HELD", reads=READS_FLOW),
    Property.sometimes("RP-MEMBERS-HELD", "a settled partial repository knows another queue manager",
                       members_held, citation="003 §Queue managers and repositories", reads=READS_FLOW),
    Property.always("RP-MANUAL-CLUSSDR-JOINS", "a member's manual CLUSSDR that reaches a listener carries its JOIN, "
                    "even to a CLUSRCVR whose CONNAME has no port", manual_clussdrs_join,
                    citation="000 §Initial definitions; 003 §Auto-definition of channels",
                    witness="RP-JOINED", reads=READS_QMGRS),
    Property.sometimes("RP-JOINED", "a member's manual CLUSSDR carries its JOIN", joined,
                       citation="000 §Initial definitions", reads=READS_QMGRS),
    Property.sometimes("RP-JOINED-PORTLESS", "a member joins over a manual CLUSSDR to a CLUSRCVR whose CONNAME "
                       "has no port", joined_portless, citation="003 §Auto-definition of channels", reads=READS_QMGRS),
    Property.always("RP-PARTIAL-NO-SUBSCRIBERS", "a queue manager that is not a full repository serves no "
                    "subscriptions (a demoted one makes its subscribers subscribe elsewhere)", partial_no_subscribers,
                    citation="000 §Considerations for Full Repositories; 000 §First MQOPEN of a Queue",
                    witness="RP-FR-DEMOTED", reads=READS_QMGRS),
    Property.sometimes("RP-FR-DEMOTED", "a full repository is altered to a partial repository", demoted,
                       citation="000 §Considerations for Full Repositories", reads=READS_QMGRS),
    Property.always("RP-SUBSCRIBE-AVAILABLE", "an MQOPEN's subscription goes to two available full repositories "
                    "when it knows two", subscribe_available,
                    citation="000 §Considerations for Full Repositories; 003 §Queue managers and repositories",
                    witness="RP-SUBSCRIBED-AT-OPEN", reads=READS_QMGRS),
    Property.sometimes("RP-SUBSCRIBED-AT-OPEN", "a partial repository's MQOPEN subscribes at full repositories",
                       subscribed_at_open, citation="000 §First MQOPEN of a Queue", reads=READS_QMGRS),
    Property.sometimes("RP-SUBSCRIBED-PAST-DOWN", "a subscription is sent to a full repository that is down, as "
                       "fewer than two are up", subscribed_past_unavailable,
                       citation="000 §Considerations for Full Repositories", reads=READS_QMGRS),
    Property.at_quiescence("RP-TOPIC-EVERYWHERE", "every member holds every cluster topic the full repositories hold",
                           topics_everywhere, citation="002 §Cluster topics", witness="RP-TOPIC-AT-MEMBER", reads=READS_FLOW),
    Property.sometimes("RP-TOPIC-AT-MEMBER", "a settled partial repository has heard of a cluster topic", topic_at_member,
                       citation="002 §Cluster topics", reads=READS_FLOW),
    Property.at_quiescence("RP-REFRESH-RESTORES", "after REFRESH CLUSTER the repository is rebuilt from the full "
                           "repositories", refresh_restores, citation="000 §Refreshing repository information",
                           witness="RP-REFRESHED", reads=READS_FLOW),
    Property.sometimes("RP-REFRESHED", "a queue manager refreshes and settles", refreshed_and_settled,
                       citation="000 §Refreshing repository information", reads=READS_FLOW),
    Property.at_quiescence("RP-RESET-REMOVES", "after RESET CLUSTER no repository holds the removed queue manager's "
                           "records", reset_removes, citation="000 §Incorrectly deleted queue managers",
                           witness="RP-RESET-HAPPENED", reads=READS_FLOW),
    Property.sometimes("RP-RESET-HAPPENED", "a queue manager is forcibly removed and the cluster settles",
                       reset_happened, citation="000 §Incorrectly deleted queue managers", reads=READS_FLOW),
)


# Stable under landings (spec.network.views.LANDING: an application message on its first
# hop, in no group, put to a local queue where its handle is bound if it is, over a route of
# the best status class; it changes only that route's messages and status — INACTIVE or
# RUNNING to RUNNING —, the receiver's ``arrivals`` and the handle's ``arrived``), with why.
_CACHES = "reads caches, definitions and running flags only: a landing changes none of them"
_SETTLED = ("holds only in a settled state (no message in flight to a running queue manager), where no "
            "landing is enabled: a witnessing state has no landing to take")
PROPERTIES = stable_under(PROPERTIES, STABLE_LANDING, {
    "RP-NO-STALE-APPLY": _CACHES,
    "RP-STALE-DISCARDED": _CACHES,
    "RP-TWO-FRS": _CACHES,
    "RP-TWO-FRS-WITNESS": _CACHES,
    "RP-TEMPQMGR": _CACHES,
    "RP-TEMPQMGR-SHOWN": _CACHES,
    "RP-FRS-SETTLED": _SETTLED,
    "RP-FR-MESH-NEEDED": _SETTLED,
    "RP-PR-SUBSCRIBED": _SETTLED,
    "RP-PR-QUEUE-SUBSCRIBED": _SETTLED,
    "RP-MEMBERS-HELD": _SETTLED,
    "RP-MANUAL-CLUSSDR-JOINS": _CACHES + " (the manual CLUSSDRs' targets: definitions and CONNAMEs)",
    "RP-JOINED": _CACHES,
    "RP-JOINED-PORTLESS": _CACHES,
    "RP-PARTIAL-NO-SUBSCRIBERS": _CACHES,
    "RP-FR-DEMOTED": "reads the steps taken and caches: a landing takes no step and changes no cache",
    "RP-SUBSCRIBE-AVAILABLE": _CACHES + " (the ghost last_subscribe)",
    "RP-SUBSCRIBED-AT-OPEN": _CACHES + " (the ghost last_subscribe)",
    "RP-SUBSCRIBED-PAST-DOWN": _CACHES + " (the ghost last_subscribe)",
    "RP-TOPIC-AT-MEMBER": _SETTLED,
    "RP-REFRESHED": _SETTLED,
    "RP-RESET-HAPPENED": _SETTLED,
})
