"""Who a queue manager is connected to, read from the state: cluster membership (its
CLUSRCVRs and manual CLUSSDRs, 003 §Cluster channels), which queue manager a CONNAME
reaches, why a queue manager has not joined (000 §Checking initial definitions), its
topic space (local topic objects plus the cluster topics it has received, 002 §Cluster
topics) and its publish/subscribe neighbours (002 §Publish/subscribe hierarchies). Pure
queries: nothing here changes a state.
"""

from __future__ import annotations

from itertools import repeat
from operator import attrgetter

from spec import objects, pubsub, repository as rp
from spec.network.state import FLOWING, NetworkState, QmgrState
from spec.topic_tree import TopicSpace

def norm_conname(conname: str) -> str:
    return objects.conname_key(conname)


def cluster_topic_records(q: QmgrState) -> tuple[rp.Record, ...]:
    """Cluster topic records this queue manager has received from other owners, oldest
    first (the most recently published is last: it wins — 002 §Multiple cluster topic
    definitions: "the most recently received cluster topic definition is used")."""
    records = [r for c in q.caches for r in c.live_of(rp.TOPIC) if r.owner != q.qmid]
    return tuple(sorted(records, key=lambda r: (r.published, r.seq, r.owner)))


def topic_space(q: QmgrState) -> TopicSpace:
    """A queue manager's topic space: its local topic objects plus the cluster topic
    definitions it has received (002 §Cluster topics; DESIGN §3.2)."""
    return TopicSpace(q.defs.topics, tuple(r.info for r in cluster_topic_records(q)))


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


def clusrcvr(q: QmgrState, cluster: str) -> objects.Channel | None:
    for ch in q.defs.channels:
        if ch.chltype == "CLUSRCVR" and cluster in objects.clusters_of(ch, q.defs):
            return ch
    return None


def member_clusters(q: QmgrState) -> tuple[str, ...]:
    """Clusters this queue manager has a CLUSRCVR for (003 §Cluster channels)."""
    found = {c for ch in q.defs.channels if ch.chltype == "CLUSRCVR" for c in objects.clusters_of(ch, q.defs)}
    return tuple(sorted(found))


def manual_clussdrs(q: QmgrState, cluster: str) -> tuple[objects.Channel, ...]:
    return tuple(ch for ch in q.defs.channels
                 if ch.chltype == "CLUSSDR" and cluster in objects.clusters_of(ch, q.defs))


def resolve_conname(state: NetworkState, conname: str, cluster: str, portless: bool = True) -> str | None:
    """The queue manager listening at ``conname``: the one whose CLUSRCVR for ``cluster``
    has that CONNAME, else one sharing an address with it (falling back to a CLUSRCVR of any
    cluster). A CLUSRCVR CONNAME
    without a port says nothing of the listener's port: a manual CLUSSDR naming the host
    with a port reaches it (003 §Auto-definition of channels: initial contact works; the
    auto-defined CLUSSDR fails later, :func:`listener_port_mismatch`); ``portless=False``:
    the CONNAMEs must match (``Mutations.portless_conname_unreached``)."""
    want = norm_conname(conname)
    fallback = None
    # the same CONNAME first; then one sharing an address: a multi-instance queue manager's
    # CLUSRCVR lists its instances' addresses, a CLUSSDR may name one (objects.shares_address)
    for same in (lambda other: norm_conname(other) == want, lambda other: objects.shares_address(conname, other)):
        for q in state.qmgrs:
            for ch in q.defs.channels:
                if ch.chltype == "CLUSRCVR" and same(ch.conname):
                    if cluster in objects.clusters_of(ch, q.defs):
                        return q.name
                    fallback = fallback or q.name
        if fallback is not None:
            return fallback
    if "(" in conname and portless:
        hosts = tuple(host for host, _ in want)
        for q in state.qmgrs:
            for ch in q.defs.channels:
                if (ch.chltype == "CLUSRCVR" and "(" not in ch.conname and ch.conname.strip()
                        and tuple(host for host, _ in norm_conname(ch.conname)) == hosts
                        and cluster in objects.clusters_of(ch, q.defs)):
                    return q.name
    return fallback


def listener_port_mismatch(state: NetworkState, owner: str, conname: str) -> str:
    """Why a channel built from ``owner``'s CLUSRCVR CONNAME cannot connect, or "": the
    CONNAME gives no port, so the default one is used, while the manual CLUSSDRs that reach
    ``owner`` name its listener at another port. 003 §Auto-definition of channels: "When
    the auto-defined CLUSSDR replaces the manually defined one, the port number (taken from
    the CLUSRCVR) becomes blank. The default port number is used and the channel fails."
    The channel fails because nothing listens at the default port: when a manual CLUSSDR
    that reaches ``owner`` names its host at the default port (``resolve_conname`` matches
    'qm1(1414)' to CONNAME('qm1') as the same address), a listener is there too, and the
    auto-defined CLUSSDR connects like that manual one did (Session 28: one manual CLUSSDR
    naming another port no longer cuts off a full repository others reach at the default).
    """
    if "(" in conname or not conname.strip():
        return ""
    used = norm_conname(conname)
    elsewhere = None
    for q in state.qmgrs:
        for ch in q.defs.channels:
            if ch.chltype != "CLUSSDR" or "(" not in ch.conname:
                continue
            given = norm_conname(ch.conname)
            if (tuple(h for h, _ in given) == tuple(h for h, _ in used)
                    and resolve_conname(state, ch.conname, ch.cluster) == owner):
                if given == used:
                    return ""  # a listener at the default port: the auto-defined channel reaches it
                elsewhere = elsewhere or (q, ch)
    if elsewhere is None:
        return ""
    q, ch = elsewhere
    return (f"CONNAME('{conname}') from {owner}'s CLUSRCVR has no port: the default port is used, "
            f"but {owner} listens where {q.name}'s manual CLUSSDR {ch.name} reached it "
            f"('{ch.conname}') (003 §Auto-definition of channels)")


def blank_clusrcvr_hint(state: NetworkState, cluster: str) -> str:
    """Why a CLUSSDR may reach nothing: a CLUSRCVR of ``cluster`` with a blank CONNAME (a user
    trial, session 32: administrators leave it blank and let MQ generate it), which no
    CONNAME of the scenario can share an address with."""
    for o in state.qmgrs:
        for ch in o.defs.channels:
            if ch.chltype == "CLUSRCVR" and not ch.conname.strip() and cluster in objects.clusters_of(ch, o.defs):
                return f" ({o.name}'s CLUSRCVR {ch.name} {objects.BLANK_CONNAME})"
    return ""


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
            waiting = cache is not None and any(norm_conname(c) == norm_conname(ch.conname) for c in cache.tempqmgr)
            if cache is not None and target_name and not waiting and cache.qmgr_record_of(target_name) is not None:
                continue  # joined
            if not cluster:
                reasons.append(f"CLUSSDR {ch.name} names no cluster")
            elif clusrcvr(q, cluster) is None:
                if member_clusters(q):
                    reasons.append(f"CLUSSDR {ch.name} is in cluster {cluster} but no CLUSRCVR of {q.name} is "
                                   f"(the CLUSRCVR and CLUSSDR cluster names differ)")
                else:
                    reasons.append(f"CLUSSDR {ch.name} is in cluster {cluster} but {q.name} has no CLUSRCVR for "
                                   f"cluster {cluster} (both are needed — 000 §Checking initial definitions)")
            elif target_name is None:
                reasons.append(f"CLUSSDR {ch.name} CONNAME('{ch.conname}') matches no queue manager's CLUSRCVR"
                               + blank_clusrcvr_hint(state, cluster))
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


def fr_targets_manual(state: NetworkState, q: QmgrState, cluster: str) -> tuple[str, ...]:
    """Queue managers reached by this queue manager's manual CLUSSDRs for ``cluster``."""
    out = []
    for ch in manual_clussdrs(q, cluster):
        target = resolve_conname(state, ch.conname, cluster)
        if target and target != q.name and target not in out:
            out.append(target)
    return tuple(out)


_PARENT = attrgetter("defs.parent")
_NAME = attrgetter("name")
_OWNER_NAME = attrgetter("owner_name")


def pubsub_links(state: NetworkState, q: QmgrState) -> tuple[pubsub.Link, ...]:
    """``q``'s publish/subscribe neighbours: its parent and children (002 §Publish/subscribe
    hierarchies: PSMODE(ENABLED) at both ends) and the other members it knows of each
    publish/subscribe cluster it belongs to (002 §Cluster topics; not with PSCLUS(DISABLED))."""
    links: set[tuple[str, str]] = set()   # (neighbour, via), sorted as strings (not as Links)
    if q.defs.psmode == "ENABLED":
        parent = state.find(q.defs.parent) if q.defs.parent and q.defs.parent != q.name else None
        if parent is not None and parent.defs.psmode == "ENABLED":
            links.add((parent.name, pubsub.HIERARCHY))
        if q.name in map(_PARENT, state.qmgrs):   # a child (looked for in C: most have none)
            for other in state.qmgrs:
                if other.defs.parent == q.name and other.name != q.name and other.defs.psmode == "ENABLED":
                    links.add((other.name, pubsub.HIERARCHY))
    if q.defs.psclus == "ENABLED" and q.defs.psmode != "DISABLED":
        existing = None   # the names of the queue managers that exist, looked up once
        for cache in q.caches:
            if cache.is_pubsub_cluster():
                if existing is None:
                    existing = set(map(_NAME, state.qmgrs))
                members = existing.intersection(map(_OWNER_NAME, cache.qmgr_records()))
                members.discard(q.name)
                links.update(zip(members, repeat(cache.cluster)))
    return tuple(map(pubsub.Link._make, sorted(links)))
