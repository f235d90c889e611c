"""The repository protocol on the network (DESIGN §3.4): a queue manager publishes its own
records, full repositories forward and push them, partial repositories subscribe at two
full repositories, REFRESH CLUSTER and RESET CLUSTER, SUSPEND/RESUME, and the 30-day
republishing and expiry of records as the clock advances.

The per-repository rules (applying a record, sequence numbers, subscriptions, views) are
pure functions of one cache in ``spec.repository``; this module moves records between
queue managers. Sources: 003 §Queue managers and repositories, §Auto-definition of
channels; 000 §Resource definition for Full Repositories, §Considerations for Full
Repositories, §Initial definitions, §First MQOPEN of a Queue, §Incorrectly deleted queue
managers, §Refreshing repository information; 002 §Cluster topics, §Key roles, §REFRESH
CLUSTER considerations.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from spec import objects, repository as rp, scenario as sc
from spec.network.channels import hold_channel, send, set_channel
from spec.network.state import (
    FLOWING, NO_MUTATIONS, Channel, LogEntry, Mutations, NetworkState, QmgrState, add_log, put_cache, put_qmgr,
)
from spec.network.topology import (
    clusrcvr, fr_targets_manual, listener_port_mismatch, manual_clussdrs, member_clusters, resolve_conname,
)
from spec.values import replace

def _own_records(q: QmgrState, cluster: str, mut: Mutations = NO_MUTATIONS
                 ) -> dict[tuple[str, str], Any]:
    """What this queue manager owns in ``cluster``: (kind, key) -> info (a
    ``QmgrInfo``, a ``QueueInfo``, or the topic object itself)."""
    own: dict[tuple[str, str], Any] = {}
    rcvr = clusrcvr(q, cluster)
    if rcvr is None:
        return own
    suspended = cluster in _suspended(q)
    # the first CLUSRCVR of the cluster is the queue manager's record (key ""); 001 rule 12
    # (NETPRTY) chooses between routes to one queue manager, so every further CLUSRCVR in
    # the cluster is a record too, keyed by its channel name (000: "the higher network
    # priority route is always used when its channel is in a good state")
    for rcvr_n in [ch for ch in q.defs.channels
                   if ch.chltype == "CLUSRCVR" and cluster in objects.clusters_of(ch, q.defs)
                   and (ch is rcvr or not mut.first_clusrcvr_only)]:
        own[(rp.QMGR, "" if rcvr_n is rcvr else rcvr_n.name)] = rp.QmgrInfo(
            channel=rcvr_n.name, conname=rcvr_n.conname,
            full_repository=cluster in objects.repos_clusters(q.defs), suspended=suspended,
            clwlwght=rcvr_n.clwlwght, clwlrank=rcvr_n.clwlrank, clwlprty=rcvr_n.clwlprty, netprty=rcvr_n.netprty)
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


class Outbox:
    """Messages produced while processing one event, merged per destination so that one
    event sends at most one UPDATE per destination and cluster."""

    def __init__(self) -> None:
        self.updates: dict[tuple[str, str], list[rp.Record]] = {}
        self._held: dict[tuple[str, str], set[rp.Record]] = {}   # each bucket's records, to drop equal ones
        self.reply: dict[tuple[str, str], bool] = {}
        self.other: list[tuple[str, Any]] = []

    def update(self, dst: str, cluster: str, records, reply: bool = False) -> None:
        bucket = self.updates.setdefault((dst, cluster), [])
        held = self._held.setdefault((dst, cluster), set())
        for r in records:
            if r not in held:   # a JOIN's answer in a large cluster holds hundreds
                held.add(r)
                bucket.append(r)
        self.reply[(dst, cluster)] = self.reply.get((dst, cluster), False) or reply

    def send(self, dst: str, msg: Any) -> None:
        self.other.append((dst, msg))

    def flush(self, state: NetworkState, q: QmgrState) -> NetworkState:
        for dst, msg in self.other:
            state = send(state, q.name, dst, msg)
        for (dst, cluster), records in sorted(self.updates.items()):
            if records:
                cache = q.cache(cluster)
                msg = rp.RepoMsg(rp.UPDATE, cluster, q.qmid, q.name, bool(cache and cache.full),
                                 records=tuple(sorted(records, key=lambda r: r.ident)),
                                 reply=self.reply[(dst, cluster)])
                state = send(state, q.name, dst, msg)
        return state


def _members(cache: rp.ClusterCache, *exclude: str) -> tuple[str, ...]:
    return tuple(sorted({r.owner_name for r in cache.qmgr_records()} - set(exclude)))


def _fr_after_apply(state: NetworkState, q: QmgrState, before: rp.ClusterCache, cache: rp.ClusterCache,
                    applied: Sequence[rp.Record], sender_name: str, sender_full: bool, out: Outbox,
                    mut: Mutations) -> None:
    """What a full repository does with records it has just applied (DESIGN §3.4)."""
    if not applied:
        return
    # 000 §Resource definition for Full Repositories / DESIGN §3.4: an FR forwards what it
    # receives from a non-FR to every FR it has a manual CLUSSDR to; it does not re-forward
    # what another FR sent it — which is why FRs must be fully connected.
    forward = sender_full if mut.fr_forwarding_swapped else not sender_full
    if forward:
        # over every manual CLUSSDR, also to one since altered to a partial repository: one
        # altered back is not resynchronised, and would miss what came meanwhile (a review
        # of session 20 found RP-FR-CONVERGENCE violated when forwarding followed the cache)
        for fr in fr_targets_manual(state, q, cache.cluster):
            if fr != sender_name:
                out.update(fr, cache.cluster, applied)
    was_pubsub = any(r not in applied for r in cache.live_of(rp.TOPIC))
    _tell_subscribers(cache, applied, sender_name, q.name, out)
    # 003 §Queue managers and repositories: a queue manager that joins "immediately learns
    # which other queue managers in the cluster hold full repositories". A full repository
    # that answers joins while it is itself still waiting for its manual CLUSSDR full
    # repositories to answer (SYSTEM.TEMPQMGR shown: after its REFRESH CLUSTER, or while it
    # joins) answered with what it had; when it learns a full repository it did not know,
    # it passes that on to the partial repositories it answered meanwhile (issue #14's
    # fuzzing: an FR and a PR refreshing in a row left the PR knowing one FR for good).
    # Only then: a full repository added to a settled cluster is not pushed to every member
    # (docs/decisions.md, "Session 12").
    if before.tempqmgr:
        new_frs = [r for r in applied if r.kind == rp.QMGR and r.key == "" and not r.deleted
                   and r.info.full_repository and not ((old := before.qmgr_record_of(r.owner_name)) is not None
                                                       and old.info.full_repository)]
        answered = {r.owner_name for r in before.qmgr_records() if not r.info.full_repository}
        if new_frs:
            for name in sorted(answered - {sender_name, q.name}):
                out.update(name, cache.cluster, [r for r in new_frs if r.owner_name != name])
    # the deletion of the last cluster topic ends the pub/sub cluster, but it must still
    # reach every member that holds the topic (002 §Cluster topics)
    topic_deleted = any(r.kind == rp.TOPIC and r.deleted for r in applied)
    if cache.is_pubsub_cluster() or topic_deleted:
        # 002 §Cluster topics / 000 §Cluster Topics: cluster topic records, and then every
        # queue-manager record, are pushed to every member of a publish/subscribe cluster.
        pushed = [r for r in applied if r.kind in (rp.TOPIC, rp.QMGR)]
        if not was_pubsub and cache.is_pubsub_cluster():
            pushed = list(cache.qmgr_records()) + list(cache.live_of(rp.TOPIC))
        for name in _members(cache, q.name, sender_name):
            out.update(name, cache.cluster, [r for r in pushed if r.owner_name != name])


def _tell_subscribers(cache: rp.ClusterCache, applied: Sequence[rp.Record], sender_name: str, me: str,
                      out: Outbox) -> None:
    """A full repository notifies the queue managers subscribed at it of changed records
    (000 §First MQOPEN of a Queue, (10); 000 §Considerations for Full Repositories: "the
    Full Repositories will notify the Partial Repositories that have subscribed for the
    information on the resource that is changing")."""
    for record in applied:
        for _, name in rp.interested_in(cache, record):
            if name not in (sender_name, record.owner_name, me):
                out.update(name, cache.cluster, [record])


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
                log.extend(_psclus_ignores_topic(q, record, step))
    return cache, applied, log


def _psclus_ignores_topic(q: QmgrState, record: rp.Record, step: int) -> list[LogEntry]:
    # 002 §Inhibiting clustered publish/subscribe in a cluster: with PSCLUS(DISABLED) at some
    # members only, "proxy subscriptions and topic definitions would constantly be seen and
    # rejected", with "frequent error messages". A partial repository keeps the record (its
    # repository still answers for it) but publish/subscribe does not use it (``pubsub_space``);
    # each new copy seen (a newer sequence number) is logged. A full repository refuses it
    # before this (``_fr_refuses_topics``).
    if q.defs.psclus != "DISABLED" or record.owner_name == q.name:
        return []
    return [LogEntry(q.name, "PSCLUS_DISABLED",
                     f"cluster topic {record.owner_name}/{record.key} ({record.info.topicstr!r}, cluster "
                     f"{record.cluster}) seen and rejected: PSCLUS(DISABLED); publish/subscribe does not use it", step)]


def _topic_conflicts(q: QmgrState, cache: rp.ClusterCache, record: rp.Record, step: int) -> list[LogEntry]:
    # 002 §Multiple cluster topic definitions: "Where two or more cluster topic definitions,
    # for a single topic string, have differing attributes or exist in more than one
    # cluster, messages (AMQ5465 & AMQ5466) are written to the error log and the most
    # recently received cluster topic definition is used."
    others = [r for c in q.caches for r in c.live_of(rp.TOPIC)
              if r.ident != record.ident and r.info.topicstr == record.info.topicstr
              and (r.cluster != record.cluster or replace(r.info, name="") != replace(record.info, name=""))]
    if not others:
        return []
    owners = ", ".join(sorted({r.owner_name for r in others}))
    return [LogEntry(q.name, "TOPIC_CONFLICT",
                     f"cluster topic {record.info.topicstr!r} from {record.owner_name} conflicts with the "
                     f"definition from {owners} (AMQ5465/AMQ5466); the most recent is used", step)]


def _pr_join_subscription(state: NetworkState, q: QmgrState, cache: rp.ClusterCache, msg: rp.RepoMsg,
                          out: Outbox, mut: Mutations) -> rp.ClusterCache:
    """A partial repository answered by a full repository lists the full repositories'
    records it was given and had not subscribed for (in practice: its JOIN's answer) among
    its own subscriptions, and subscribes for them at one more full repository.

    003 §Queue managers and repositories: the queue manager that joins "immediately learns
    which other queue managers in the cluster hold full repositories", and partial
    repositories request "that thereafter they be notified of any new information
    concerning that queue or queue manager": the subscription is the partial repository's
    own request (the answering full repository registered it: ``process_repo_message``,
    JOIN). 000 §Considerations for Full Repositories: "information is always published to
    and subscribed for from 2 Full Repositories". Being in ``interests``, it is made again
    where every subscription is: after REFRESH CLUSTER (``refresh_cluster``), at a demotion
    of a full repository holding it (``_resubscribe_after_demotion``: "remake their
    subscriptions elsewhere") and every 30 days (``_republish_all``). A full repository
    learnt later, not from an answer, is not subscribed for (as before: docs/decisions.md,
    "Session 12")."""
    if cache.full or not (msg.reply and msg.sender_full):
        return cache
    given = [(rp.QMGR, r.owner_name) for r in msg.records
             if r.kind == rp.QMGR and r.key == "" and not r.deleted and r.info.full_repository
             and r.owner != q.qmid]
    new = tuple(k for k in dict.fromkeys(given) if k not in cache.interests)
    if not new:
        return cache
    for key in new:
        cache = rp.subscribe_interest(cache, key)
    targets = two_frs(state, q, cache, mut)[0]
    # the full repository that answered holds it already: one more, when there are two
    for fr in [fr for fr in targets if fr != msg.sender_name][:len(targets) - 1]:
        out.send(fr, rp.RepoMsg(rp.SUBSCRIBE, cache.cluster, q.qmid, q.name, False, keys=new))
    return cache


def _pr_follow_up(state: NetworkState, q: QmgrState, cache: rp.ClusterCache, out: Outbox, mut: Mutations
                  ) -> rp.ClusterCache:
    """A partial repository that learns of a queue's hosts subscribes for the hosts'
    queue-manager records (000 §First MQOPEN of a Queue: "more subscriptions would be made"),
    also for a host whose record it already holds, such as the full repository it joined
    through: it asks "that thereafter they be notified of any new information concerning
    that queue or queue manager" (003 §Queue managers and repositories), so a later SUSPEND
    or CLUSRCVR change of that host reaches it (a user trial, session 20). A full repository
    whose record its JOIN's answer gave is subscribed for already (``_pr_join_subscription``)."""
    if cache.full:
        return cache
    wanted = []
    for r in cache.live():
        if r.kind == rp.QUEUE and (rp.QUEUE, r.key) in cache.interests and r.owner_name != q.name:
            key = (rp.QMGR, r.owner_name)
            if key not in cache.interests and key not in wanted:
                wanted.append(key)
    for key in wanted:
        cache = rp.subscribe_interest(cache, key)
    if wanted:
        for fr in two_frs(state, q, cache, mut)[0]:
            out.send(fr, rp.RepoMsg(rp.SUBSCRIBE, cache.cluster, q.qmid, q.name, False, keys=tuple(wanted)))
    return cache


def manual_frs(state: NetworkState, q: QmgrState, cache: rp.ClusterCache) -> list[str]:
    """The queue managers ``q``'s manual CLUSSDRs reach that are full repositories as far as
    ``cache`` knows (one it holds no record of yet counts, as while joining): not one since
    altered to a partial repository."""
    return [m for m in fr_targets_manual(state, q, cache.cluster)
            if (r := cache.qmgr_record_of(m)) is None or r.info.full_repository]


def two_frs(state: NetworkState, q: QmgrState, cache: rp.ClusterCache, mut: Mutations) -> tuple[tuple[str, ...], int]:
    """The full repositories a partial repository publishes and subscribes to: its manual
    CLUSSDR's FR first, then one other it knows (003: "sent to the chosen repository and
    also to one other repository (if there is one)"). Also returns how many it knows."""
    manual = manual_frs(state, q, cache)  # not a demoted one
    known = [r.owner_name for r in cache.full_repositories() if r.owner_name != q.name]
    ordered = list(dict.fromkeys([*manual[:1], *known]))
    limit = 1 if mut.publish_to_one_fr else 2
    # 000 §Considerations for Full Repositories: the manual CLUSSDR's FR is tried first,
    # "but if that Full Repository is unavailable, it will then use any other Full
    # Repositories that it knows about": available ones first; still two when two are
    # known (003: "also to one other repository (if there is one)", "to reduce the risk of
    # it being delayed if a repository queue manager is out of service"): what goes to an
    # unavailable one waits on the transmission queue
    available = [fr for fr in ordered if mut.unavailable_frs_chosen or _fr_available(state, q.name, fr)]
    chosen = (available + [fr for fr in ordered if fr not in available])[:limit]
    return tuple(chosen), len(set(known) | set(manual[:1]))


def available_frs(state: NetworkState, q: QmgrState, cache: rp.ClusterCache) -> tuple[str, ...]:
    """The full repositories :func:`two_frs` would consider that are available now (the
    ghost ``ClusterCache.last_subscribe`` keeps them, whatever a mutant chose)."""
    manual = manual_frs(state, q, cache)
    known = [r.owner_name for r in cache.full_repositories() if r.owner_name != q.name]
    return tuple(fr for fr in dict.fromkeys([*manual[:1], *known]) if _fr_available(state, q.name, fr))


def _fr_available(state: NetworkState, name: str, fr: str) -> bool:
    """A full repository is available when it is running and the channel to it can move
    messages (not RETRYING, STOPPED, ...)."""
    far = state.find(fr)
    if far is None or not far.running:
        return False
    ch = state.channel(name, fr)
    return ch is None or ch.status in FLOWING


def _send_joins(state: NetworkState, q: QmgrState, cache: rp.ClusterCache, out: "Outbox",
                mut: Mutations = NO_MUTATIONS) -> rp.ClusterCache:
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
    for ch in manual_clussdrs(q, cache.cluster):
        target = resolve_conname(state, ch.conname, cache.cluster, not mut.portless_conname_unreached)
        if target is None or target == q.name or ch.conname in sent:
            continue
        out.send(target, rp.RepoMsg(rp.JOIN, cache.cluster, q.qmid, q.name, cache.full, records=own))
        sent.add(ch.conname)
    return replace(cache, joined=tuple(sorted(sent))) if sent != set(cache.joined) else cache


def retry_joins(state: NetworkState, step: int, mut: Mutations) -> NetworkState:
    """Queue managers whose manual CLUSSDRs can now reach a CLUSRCVR send their JOIN."""
    for q in state.qmgrs:
        if not q.running:
            continue
        for cache in q.caches:
            pending = [ch for ch in manual_clussdrs(q, cache.cluster) if ch.conname not in cache.joined
                       and resolve_conname(state, ch.conname, cache.cluster, not mut.portless_conname_unreached)
                       not in (None, q.name)]
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
    out = Outbox()
    clusters = sorted(set(member_clusters(q)) | {c.cluster for c in q.caches})
    for cluster in clusters:
        q = state.qmgr(name)
        cache = q.cache(cluster)
        own = _own_records(q, cluster, mut)
        joining = cache is None
        if joining:
            if not own:
                continue
            cache = rp.ClusterCache(cluster)
        demoted = cache.full and cluster not in objects.repos_clusters(q.defs)
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
            q = put_cache(q, _send_joins(state, q, cache, out, mut))
            state = put_qmgr(state, q)
            continue
        before = cache
        cache, applied, entries = _apply_all(q, cache, changed, step, mut)
        log.extend(entries)
        q = replace(q, seq=seq)
        if joining or (rp.QMGR, "") in {(r.kind, r.key) for r in changed if not r.deleted and held_own.get((r.kind, r.key)) is None}:
            # 000 §Initial definitions: the CLUSSDR shows SYSTEM.TEMPQMGR until the FR answers;
            # the queue manager's records go to the FR over the manual CLUSSDR.
            temp = tuple(sorted({ch.conname for ch in manual_clussdrs(q, cluster)
                                 if cache.qmgr_record_of(resolve_conname(state, ch.conname, cluster) or "") is None}))
            cache = replace(cache, tempqmgr=tuple(sorted(set(cache.tempqmgr) | set(temp))), joined=())
            cache = _send_joins(state, q, cache, out, mut)
            if cache.full:
                q = put_cache(q, cache)
                _fr_after_apply(state, q, before, cache, applied, q.name, False, out, mut)
        elif cache.full:
            # an FR's own change: as if received from a non-FR (forward to its manual FRs)
            q = put_cache(q, cache)
            _fr_after_apply(state, q, before, cache, applied, q.name, False, out, mut)
        else:
            targets, known = two_frs(state, q, cache, mut)
            for fr in targets:
                out.update(fr, cluster, changed)
            cache = replace(cache, last_publish=(targets, known))
            if demoted and not mut.demotion_untold:
                cache = _tell_subscribers_of_demotion(cache, changed, out, q.name, targets)
        q = put_cache(q, cache)
        state = put_qmgr(state, q)
    state = out.flush(state, state.qmgr(name))
    return add_log(state, log)


def _tell_subscribers_of_demotion(cache: rp.ClusterCache, changed: Sequence[rp.Record], out: Outbox,
                                  me: str, told: Sequence[str]) -> rp.ClusterCache:
    """A full repository altered to a partial one tells the queue managers that subscribed
    at it, which remake their subscriptions at other full repositories
    (:func:`_resubscribe_after_demotion`); it holds subscriptions no more. 000
    §Considerations for Full Repositories: "altering the Full Repositories to be Partial
    Repositories before taking them off-line ... will cause the queue managers within the
    cluster to remake their subscriptions elsewhere." The other partial repositories it
    knows are told too (``told``: the full repositories it publishes to): they publish their
    own changes to two full repositories, and one that never subscribed kept publishing to
    it (a user trial, session 20)."""
    mine = [r for r in changed if r.kind == rp.QMGR and not r.deleted]
    partials = {r.owner_name for r in cache.qmgr_records() if not r.info.full_repository}
    for name in sorted(({s[1] for s in cache.subscribers} | partials) - {me} - set(told)):
        out.update(name, cache.cluster, mine)
    return replace(cache, subscribers=())


def _resubscribe_after_demotion(state: NetworkState, q: QmgrState, before: rp.ClusterCache,
                                cache: rp.ClusterCache, applied: Sequence[rp.Record], out: Outbox,
                                mut: Mutations) -> None:
    """A partial repository that learns a full repository became partial subscribes again,
    for everything it subscribed for, at the full repositories it now knows."""
    partial = [r for r in applied if r.kind == rp.QMGR and not r.deleted and not r.info.full_repository]
    if not partial:
        return
    # only a queue manager with a full repository's record here can have been demoted (one
    # pass over the cache, not one per record: a JOIN's answer in a large cluster holds hundreds)
    was_full = {r.owner_name for r in before.qmgr_records() if r.info.full_repository}
    demoted = [r for r in partial if r.owner_name in was_full
               and (old := before.qmgr_record_of(r.owner_name)) is not None and old.info.full_repository]
    if not demoted or not cache.interests:
        return
    for fr in two_frs(state, q, cache, mut)[0]:
        out.send(fr, rp.RepoMsg(rp.SUBSCRIBE, cache.cluster, q.qmid, q.name, False, keys=cache.interests))


def process_repo_message(state: NetworkState, dst: str, msg: rp.RepoMsg, step: int,
                         mut: Mutations = NO_MUTATIONS) -> NetworkState:
    """The repository task of ``dst`` processes one message from its command queue."""
    q = state.qmgr(dst)
    cache = q.cache(msg.cluster)
    cache_before = cache
    if cache is None:
        return add_log(state, [LogEntry(dst, "NOT_A_MEMBER",
                                     f"{msg.op} from {msg.sender_name} for cluster {msg.cluster}: "
                                     f"{dst} has no CLUSRCVR in that cluster; discarded", step)])
    out = Outbox()
    log: list[LogEntry] = []
    if msg.op == rp.JOIN:
        if not cache.full:
            return add_log(state, [LogEntry(dst, "NOT_A_FULL_REPOSITORY",
                                         f"{msg.sender_name}'s manual CLUSSDR for {msg.cluster} reaches {dst}, "
                                         "which is not a full repository; the join is ignored", step)])
        records, refused = _fr_refuses_topics(q, cache, msg, step)
        before_join = cache
        cache, applied, log = _apply_all(q, cache, records, step, mut)
        log = refused + log
        q = put_cache(q, cache)
        # 000 §Initial definitions: the FR answers with its own CLUSRCVR information (and,
        # DESIGN §3.4, the other FRs it knows); in a pub/sub cluster, everything.
        answer: list[rp.Record] = [r for r in cache.full_repositories() if r.owner_name != msg.sender_name]
        if msg.sender_full:
            # a full repository joining (or re-joining after REFRESH CLUSTER) is rebuilt from
            # the others: it gets every record held here, tombstones included (003 §Queue
            # managers and repositories; 002 §REFRESH CLUSTER considerations)
            answer = [r for r in cache.records if r.owner != msg.sender]
        else:
            # 003 §Queue managers and repositories: the joining queue manager "immediately
            # learns which other queue managers in the cluster hold full repositories", and a
            # partial repository asks "that thereafter they be notified of any new
            # information concerning that queue or queue manager": it is subscribed here to
            # the full repositories' records it is given, so an altered CLUSRCVR of one of
            # them reaches it (000 §Resource definition for Full Repositories: the
            # auto-defined CLUSSDRs "pick up the changes"; a review in session 28)
            # The answer is what a subscription for those records is answered with (every
            # record of each, a second CLUSRCVR's too: ``rp.records_for``); the joiner lists
            # the subscription among its own (``_pr_join_subscription``, session 29).
            for r in cache.full_repositories():
                if r.owner != msg.sender:
                    key = (rp.QMGR, r.owner_name)
                    cache = rp.add_subscriber(cache, msg.sender, msg.sender_name, key)
                    answer += [x for x in rp.records_for(cache, key) if x not in answer]
            q = put_cache(q, cache)
            if cache.is_pubsub_cluster():
                answer += [r for r in cache.live_of(rp.QMGR) + cache.live_of(rp.TOPIC)   # ident order
                           if r.owner_name != msg.sender_name]
        out.update(msg.sender_name, msg.cluster, answer, reply=True)
        _fr_after_apply(state, q, before_join, cache, applied, msg.sender_name, msg.sender_full, out, mut)
    elif msg.op == rp.UPDATE:
        before_update = cache
        records, refused = _fr_refuses_topics(q, cache, msg, step)
        cache, applied, log = _apply_all(q, cache, records, step, mut)
        log = refused + log
        q = put_cache(q, cache)
        if cache.full:
            _fr_after_apply(state, q, before_update, cache, applied, msg.sender_name, msg.sender_full, out, mut)
        else:
            _resubscribe_after_demotion(state, q, before_update, cache, applied, out, mut)
            cache = _pr_join_subscription(state, q, cache, msg, out, mut)
            cache = _pr_follow_up(state, q, cache, out, mut)
            q = put_cache(q, cache)
    elif msg.op == rp.SUBSCRIBE:
        if cache.full:
            answer = []
            for key in msg.keys:
                cache = rp.add_subscriber(cache, msg.sender, msg.sender_name, key)
                answer += rp.records_for(cache, key)
            q = put_cache(q, cache)
            out.update(msg.sender_name, msg.cluster, answer, reply=True)
    elif msg.op == rp.REMOVE:
        before = cache
        cache = rp.remove_owner(cache, msg.removed, msg.records)
        q = put_cache(q, cache)
        if cache.full and cache != before and not msg.sender_full:
            for fr in fr_targets_manual(state, q, msg.cluster):
                if fr != msg.sender_name:
                    out.send(fr, replace(msg, sender=q.qmid, sender_name=q.name, sender_full=True))
    state = put_qmgr(state, q)
    state = out.flush(state, state.qmgr(dst))
    state = _auto_defined_fails(state, dst, msg, step, before=cache_before)
    return add_log(state, log)


def _auto_defined_fails(state: NetworkState, dst: str, msg: rp.RepoMsg, step: int,
                        before: rp.ClusterCache | None = None) -> NetworkState:
    """Once ``dst`` holds another queue manager's record, its channel there is the
    auto-defined CLUSSDR, with the CLUSRCVR's CONNAME (even over a manual CLUSSDR: 003
    §Auto-definition of channels); a CONNAME without a port where the listener is on
    another port cannot connect: the channel goes into RETRYING and stays there — until a
    corrected record arrives. 000 §Resource definition for Full Repositories: "If you
    alter a cluster receiver channel, the changes are not immediately reflected in the
    corresponding automatically defined cluster sender channels. ... If the sender channels
    are in retry, the next time they hit a retry interval, they will pick up the changes."
    So when the record ``dst`` held (``before``) failed that way and the one it now holds
    does not, the channel is no longer held in retry: its next retry connects
    (``ChannelRecover``). A channel a scenario step set stays as the step left it: only a
    channel whose previous record failed is released, and only while RETRYING."""
    cache_now = state.qmgr(dst).cache(msg.cluster)
    for r in msg.records:
        if r.kind != rp.QMGR or r.deleted or r.owner_name == dst or state.find(r.owner_name) is None:
            continue
        why = listener_port_mismatch(state, r.owner_name, r.info.conname)
        ch = state.channel(dst, r.owner_name)
        if not why and ch is not None and ch.status == "RETRYING" and before is not None and cache_now is not None:
            old = before.get(r.ident)
            held = [h for h in cache_now.qmgr_records() if h.owner == r.owner]
            if (cache_now.get(r.ident) == r and old is not None and not old.deleted
                    and listener_port_mismatch(state, r.owner_name, old.info.conname)
                    and not any(listener_port_mismatch(state, r.owner_name, h.info.conname) for h in held)):
                state = replace(state, held_by_step=tuple(p for p in state.held_by_step
                                                          if p != (dst, r.owner_name)))
            continue
        if not why or (ch is not None and ch.status == "RETRYING"):
            continue
        state = set_channel(state, replace(ch or Channel(dst, r.owner_name), status="RETRYING"))
        state = hold_channel(state, dst, r.owner_name)
        state = add_log(state, [LogEntry(dst, "CHANNEL_RETRYING", f"auto-defined CLUSSDR {r.info.channel} to "
                                                                  f"{r.owner_name}: {why}", step)])
    return state


def refresh_cluster(state: NetworkState, name: str, cluster: str, step: int, mut: Mutations,
                    repos: bool = False) -> NetworkState:
    """REFRESH CLUSTER(C): discard what was learnt of C (cluster topics included) and rebuild
    it from the full repositories (000 §Refreshing repository information; 002 §REFRESH
    CLUSTER considerations): the queue manager joins again and re-subscribes.

    What is kept (the MQSC reference's REFRESH CLUSTER, whose usage notes the model already
    follows for REPOS(YES) on a full repository): its own records always; with REPOS(NO),
    the default, also the records of the queue managers that are full repositories of C,
    and at a full repository of C the records of every other queue manager of C, so that a
    partial repository whose manual CLUSSDR's full repository is down still rebuilds from
    the other one; with REPOS(YES) (partial repositories only) nothing else."""
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
        own, kept = [], []
        for r in cache.records:
            if r.owner == q.qmid:
                seq += 0 if r.deleted else 1
                own.append(r if r.deleted else replace(r, seq=seq, published=state.clock))
            elif not repos and r.kind == rp.QMGR and not r.deleted and (cache.full or r.info.full_repository):
                kept.append(r)
        q = replace(q, seq=seq)
        idents = {r.ident for r in kept}
        # ``records`` stay sorted by ident (rp.ClusterCache), which its lookups rely on
        fresh = replace(cache, records=tuple(sorted(own + kept, key=lambda r: r.ident)),
                        subscribers=() if not cache.full else cache.subscribers,
                        highest_seen=tuple(p for p in cache.highest_seen if p[0][2] == q.qmid or p[0] in idents))
        for r in own:
            fresh = rp.note_seen(fresh, r)
        q = put_cache(q, fresh)
        state = put_qmgr(state, q)
        out = Outbox()
        # a manual CLUSSDR whose full repository's record was kept (REPOS(NO)) needs no
        # SYSTEM.TEMPQMGR entry: it resolves to that queue manager
        temp = rp.unanswered(tuple(sorted({ch.conname for ch in manual_clussdrs(q, cl)})), tuple(kept))
        fresh = replace(fresh, tempqmgr=temp, refreshed=True, joined=())
        fresh = _send_joins(state, q, fresh, out, mut)
        if fresh.full:
            _tell_of_reannounced(fresh, cache.is_pubsub_cluster(), [r for r in own if not r.deleted], q.name, out)
        if fresh.interests and not fresh.full:
            # subscriptions go to two full repositories (000 §First MQOPEN of a Queue) among
            # those it still knows: after REPOS(YES), none but its manual CLUSSDR's (its
            # interests now include the full repositories' records, session 29)
            for fr in two_frs(state, q, fresh, mut)[0]:
                out.send(fr, rp.RepoMsg(rp.SUBSCRIBE, cl, q.qmid, q.name, False, keys=fresh.interests))
        q = put_cache(q, fresh)
        state = put_qmgr(state, q)
        state = out.flush(state, q)
    return state


def _tell_of_reannounced(fresh: rp.ClusterCache, was_pubsub: bool, reannounced: Sequence[rp.Record], me: str,
                         out: Outbox) -> None:
    """A full repository's REFRESH CLUSTER re-announces its own records with new sequence
    numbers; it tells of them as of any change to its own objects (``publish_own`` →
    ``_fr_after_apply``), except that its JOIN already carries them to its manual CLUSSDR
    full repositories. So the partial repositories that subscribed at it for its own queue
    manager or queues hear of the new copies from it, not only through the other full
    repository, which may be stopped (000 §Considerations for Full Repositories: "the Full
    Repositories will notify the Partial Repositories that have subscribed for the
    information on the resource that is changing"; the subscription is held here, and this
    full repository is running). In a publish/subscribe cluster its re-announced cluster
    topics and queue-manager record are pushed to every member (002 §Cluster topics:
    "Information about cluster topics is pushed to all members of a cluster").
    Found by fuzzing (docs/decisions.md, "Session 30: a refreshed full repository tells its
    subscribers of its re-announced records")."""
    _tell_subscribers(fresh, reannounced, me, me, out)
    if was_pubsub or fresh.is_pubsub_cluster():
        pushed = [r for r in reannounced if r.kind in (rp.TOPIC, rp.QMGR)]
        if pushed:
            for name in _members(fresh, me):
                out.update(name, fresh.cluster, pushed)


def reset_cluster(state: NetworkState, name: str, op: objects.ResetCluster, step: int) -> NetworkState:
    """RESET CLUSTER(C) ACTION(FORCEREMOVE) QMNAME(X)|QMID(X), at a full repository: X's
    records are deleted here and everywhere (000 §Incorrectly deleted queue managers)."""
    q = state.qmgr(name)
    cache = q.cache(op.cluster)
    if cache is None or not cache.full:
        return add_log(state, [LogEntry(name, "NOT_A_FULL_REPOSITORY",
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
            return add_log(state, [LogEntry(name, "QMNAME_AMBIGUOUS",
                                         f"RESET CLUSTER QMNAME({op.qmname}): {len(victims)} queue managers of that "
                                         f"name ({', '.join(victims)}); use QMID", step)])
    if not victims:
        return add_log(state, [LogEntry(name, "AMQ8147", f"RESET CLUSTER: {op.qmid or op.qmname} not known in "
                                                     f"cluster {op.cluster}", step)])
    for victim in victims:
        tombstones = tuple(replace(r, deleted=True) for r in cache.records if r.owner == victim)
        msg = rp.RepoMsg(rp.REMOVE, op.cluster, q.qmid, q.name, False, records=tombstones, removed=victim)
        state = process_repo_message(state, name, msg, step)  # here, and forwarded to manual FRs
        q = state.qmgr(name)
        forwarded = set(fr_targets_manual(state, q, op.cluster))
        # the FR "can then inform the other queue managers in the cluster to delete them"
        for member in _members(q.cache(op.cluster), name):
            target = state.find(member)
            if member in forwarded or target is None or target.qmid == victim:
                continue
            state = send(state, name, member, replace(msg, sender_full=True))
    return state


def suspend_or_resume(state: NetworkState, name: str, op: Any, step: int, mut: Mutations) -> NetworkState:
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
        before = cache
        cache, _ = rp.apply_record(cache, record)
        q = replace(put_cache(q, cache), seq=seq)
        state = put_qmgr(state, q)
        out = Outbox()
        if cache.full:
            _fr_after_apply(state, q, before, cache, [record], q.name, False, out, mut)
        else:
            targets, known = two_frs(state, q, cache, mut)
            for fr in targets:
                out.update(fr, cluster, [record])
            q = put_cache(q, replace(cache, last_publish=(targets, known)))
            state = put_qmgr(state, q)
        state = out.flush(state, q)
    return state


def advance_clock(state: NetworkState, step: sc.AdvanceStep, mut: Mutations) -> NetworkState:
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
                # the 30-day warning, also when one advance passes the expiry as well (the log
                # does not depend on how the days are split: a user trial, session 20)
                if age > rp.REPUBLISH_DAYS >= age_before:
                    log.append(LogEntry(q.name, "REFRESH_MISSING",
                                        f"expected update of {r.kind} record {r.key or r.owner_name} from "
                                        f"{r.owner_name} in {r.cluster} not received", step.index))
                if age > rp.EXPIRY_DAYS[r.kind]:
                    records.append(replace(r, deleted=True))
                    log.append(LogEntry(q.name, "RECORD_EXPIRED",
                                        f"{r.kind} record {r.key or r.owner_name} from {r.owner_name} in "
                                        f"{r.cluster} expired after {rp.EXPIRY_DAYS[r.kind]} days", step.index))
                    continue
                records.append(r)
            q_new = put_cache(q_new, replace(cache, records=tuple(records)))
        state = put_qmgr(state, q_new)
    return add_log(state, log)


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
    running = state.running_names()

    def up(a: str, b: str) -> bool:
        ch = state.channel(a, b)
        return a in running and b in running and (ch is None or ch.status in FLOWING)

    cache = o.cache(cluster)
    reached = {o.name} if cache.full else {f for f in two_frs(state, o, cache, NO_MUTATIONS)[0] if up(o.name, f)}
    todo = list(reached)
    while todo:
        fr = state.find(todo.pop())
        for nxt in fr_targets_manual(state, fr, cluster) if fr else ():
            if nxt not in reached and up(fr.name, nxt):
                reached.add(nxt)
                todo.append(nxt)
    return dst in reached or any(up(fr, dst) for fr in reached)


def republish_overdue(state: NetworkState, name: str, step: int, mut: Mutations) -> NetworkState:
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
    """Every 30 days an owner republishes its records with new sequence numbers, and a
    partial repository subscribes again for what it subscribed for. 000 §Considerations for
    Full Repositories: "Partial Repositories will re-subscribe for cluster queue and cluster
    queue manager information every 30 days"; the subscription goes where any other does
    (:func:`two_frs`: the available full repositories first, "if that Full Repository is
    unavailable, it will then use any other Full Repositories that it knows about"), so a
    partial repository whose two full repositories went off-line learns again, at its next
    cycle, what it missed (a review in session 28)."""
    q = state.qmgr(name)
    out = Outbox()
    for cache in q.caches:
        own = [r for r in cache.records if r.owner == q.qmid and not r.deleted]
        fresh = []
        seq = q.seq
        for r in own:
            seq += 1
            fresh.append(replace(r, seq=seq, published=state.clock))
        before = cache
        cache, applied, _ = _apply_all(q, cache, fresh, step, mut)
        q = replace(put_cache(q, cache), seq=seq)
        if cache.full:
            _fr_after_apply(state, q, before, cache, applied, q.name, False, out, mut)
        else:
            targets, known = two_frs(state, q, cache, mut)
            for fr in targets:
                out.update(fr, cache.cluster, fresh)
                if cache.interests:
                    out.send(fr, rp.RepoMsg(rp.SUBSCRIBE, cache.cluster, q.qmid, q.name, False,
                                            keys=cache.interests))
            q = put_cache(q, replace(cache, last_publish=(targets, known)))
    state = put_qmgr(state, q)
    return out.flush(state, q)


def repositories_of(state: NetworkState) -> dict[str, dict[str, dict]]:
    """Per queue manager and cluster, what its repository holds (DESIGN §2.3)."""
    return {q.name: {c.cluster: rp.view(c) for c in q.caches} for q in state.qmgrs if q.caches}
