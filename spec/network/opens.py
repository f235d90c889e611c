"""What an MQOPEN asks of the repository (000 §First MQOPEN of a Queue): the first open of a
cluster queue a queue manager knows nothing of — by an application, or by a receiving
channel's MQPUT of an arriving message (000 §When does workload balancing occur?) — makes
its repository subscribe for the queue at two full repositories. The name opened is
resolved first (``spec.binding.resolve_local``), so an alias subscribes for its target.
Split from ``spec.network.repositories`` (session 32), which moves the records.
"""

from __future__ import annotations

from spec import binding as bd, objects, repository as rp, scenario as sc
from spec.network.repositories import Outbox, available_frs, two_frs
from spec.network.state import Mutations, NetworkState, QmgrState, put_cache, put_qmgr
from spec.values import replace


def subscribe_on_open(state: NetworkState, step: sc.OpenStep, mut: Mutations) -> NetworkState:
    """MQOPEN of a queue: the first open of a cluster queue this queue manager knows nothing
    of makes its repository subscribe for it at two full repositories (000 §First MQOPEN
    of a Queue). Where messages then go is the workload algorithm's part."""
    q = state.qmgr(step.qmgr)
    name = _opened_cluster_queue(q, step, mut)
    if not name:
        return state
    return subscribe_for_queue(state, q.name, name, mut)


def subscribe_for_queue(state: NetworkState, qname: str, name: str, mut: Mutations) -> NetworkState:
    """``qname``'s repository subscribes for the cluster queue ``name`` at two full
    repositories in every cluster it is a partial repository of and has not subscribed
    for it yet (000 §First MQOPEN of a Queue)."""
    q = state.qmgr(qname)
    key = (rp.QUEUE, name)
    out = Outbox()
    for cache in q.caches:
        if cache.full or key in cache.interests:
            continue
        cache = rp.subscribe_interest(cache, key)
        targets, _ = two_frs(state, q, cache, mut)
        for fr in targets:
            out.send(fr, rp.RepoMsg(rp.SUBSCRIBE, cache.cluster, q.qmid, q.name, False, keys=(key,)))
        cache = replace(cache, last_subscribe=(targets, available_frs(state, q, cache)))
        q = put_cache(q, cache)
    state = put_qmgr(state, q)
    return out.flush(state, q)


def _opened_cluster_queue(q: QmgrState, step: sc.OpenStep, mut: Mutations) -> str:
    """The cluster queue whose records an MQOPEN of ``step.queue`` at ``q`` looks for in
    the repository cache ("the repository cache is examined to see if the queue is known
    about", 000 §First MQOPEN of a Queue); "" when the open needs none.

    The name is resolved first, by the model's own name resolution (spec/binding.py
    resolve_local): a local QALIAS (or a QREMOTE without a queue manager) whose target is a
    cluster queue not hosted here makes the repository look for, and subscribe for, the
    *target*, as a gateway's 000 Scenario 4 alias ``QALIAS(ACQ1) TARGQ(CQ1) CLUSTER(BLUE)``
    needs ("Now our app can put to any CQ1 in cluster RED"); before, the local alias alone
    stopped the subscription and a partial-repository gateway dead-lettered every message
    (docs/decisions.md, "Session 32: an MQOPEN through a queue alias subscribes for the
    target"). A name that resolves to a local queue, a transmission queue or an error needs
    no record; one naming a queue manager is subscribed for by the workload module's
    _subscribe_target."""
    local = q.defs.queue(step.queue)
    if local is None or step.target_qmgr:
        return step.queue
    if local.qtype == "QLOCAL":
        return "" if mut.useq_any_no_subscribe or not _competes_with_remote(q, local) else step.queue
    res = bd.resolve_local(q.defs, q.name, step.queue, "", frozenset(c.cluster for c in q.caches))
    if res.kind != "cluster" or res.target_qmgr:
        return ""
    target = q.defs.queue(res.queue)
    if (target is not None and target.qtype == "QLOCAL"
            and (mut.useq_any_no_subscribe or not _competes_with_remote(q, target))):
        return ""  # the alias's target is hosted here and is its own instance (CLWLUSEQ(LOCAL))
    return res.queue


def _competes_with_remote(q: QmgrState, queue: objects.Queue) -> bool:
    """A clustered local queue with CLWLUSEQ(ANY) (its own, or QMGR and the queue manager's)
    lets the algorithm "choose either local or remote queues" (000 §Utilising remote
    destinations; 001 rule 6), which presumes the remote instances are known: so its first
    MQOPEN subscribes for the queue at the full repositories (000 §First MQOPEN of a Queue)
    even though its own instance is in the cache."""
    useq = queue.clwluseq if queue.clwluseq != "QMGR" else q.defs.clwluseq
    return queue.qtype == "QLOCAL" and useq == "ANY" and bool(objects.clusters_of(queue, q.defs))
