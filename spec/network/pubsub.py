"""Distributed publish/subscribe on the network (DESIGN §3.3): proxy subscriptions and
publications moving over the channels, and the scenario's publish/subscribe steps.

The rules are pure functions of one queue manager in ``spec.pubsub``; this module finds
each queue manager's links (``topology.pubsub_links``), sends what they produce, and
receives what arrives. After every step and every delivery the queue managers concerned
re-compute their demand and send what changed (``pubsub_after``): that single rule gives
proxy subscribe/unsubscribe, aggregation, the synchronisation when a child connects to
its parent or a member learns of a new member of a publish/subscribe cluster, and
PROXYSUB(FORCE). Sources: 002 §How does distributed publish/subscribe work?, §Proxy
subscription aggregation and publication aggregation, §How loop detection works,
§Retained publications in a distributed publish/subscribe topology, §Inhibiting clustered
publish/subscribe in a cluster.
"""

from __future__ import annotations

from typing import Any

from spec import objects, pubsub, repository as rp, scenario as sc
from spec.network.channels import send
from spec.network.state import (
    NO_MUTATIONS, ChannelDeliver, LogEntry, Mutations, NetworkState, QmgrState, ScenarioStep, add_log, put_qmgr,
)
from spec.network.topology import pubsub_links, pubsub_space
from spec.pubsub import Publication
from spec.topic_tree import subscriptions_after_restart
from spec.topics import TopicStringError, join_topic
from spec.values import replace

def admin_subscription(defn: objects.Subscription) -> pubsub.Subscription:
    return pubsub.Subscription(name=defn.name, topic=defn.topicstr, scheme=defn.wschema.lower(),
                               scope=defn.subscope, dest=defn.dest, durable=True, admin=True)


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


def _no_demand(q: QmgrState) -> bool:
    """True if ``q`` has no source of demand (``pubsub.demand_sources``) and holds no proxy
    subscription anywhere: no subscription, no proxy subscription registered here or sent,
    no PROXYSUB(FORCE) topic object and no PROXYSUB(FORCE) cluster topic record (the
    attribute is not inherited: ``pubsub._forced_topics``). Then ``pubsub.reconcile`` wants
    nothing and has sent nothing, so it sends nothing, whatever the links: a queue manager
    that takes no part in publish/subscribe (every repository message on a plain cluster,
    and every member of a publish/subscribe cluster before its first subscription) skips
    computing its topic space and links (issue #17; session 33: a member of a cluster
    with a cluster topic has a link to every other member)."""
    ps = q.pubsub
    if ps.subscriptions or ps.proxy_paths or ps.sent_paths:
        return False
    if any(t.proxysub == "FORCE" for t in q.defs.topics):
        return False
    return not any(r.info.proxysub == "FORCE" for c in q.caches for r in c.live_of(rp.TOPIC))


def _ps_reconcile(state: NetworkState, name: str, mut: Mutations) -> NetworkState:
    q = state.find(name)
    if q is None or not q.running or _no_demand(q):
        return state
    ps, sends = pubsub.reconcile(pubsub_space(q), q.pubsub, pubsub_links(state, q), q.name,
                                 lambda n: state.find(n) is not None, aggregate=not mut.no_proxy_aggregation,
                                 relay_within_cluster=mut.relay_within_cluster)
    if ps is q.pubsub:
        return state
    state = put_qmgr(state, replace(q, pubsub=ps))
    for dst, msg in sends:
        state = send(state, name, dst, msg)
    return state


def pubsub_after_step(state: NetworkState, step: int, mut: Mutations = NO_MUTATIONS) -> NetworkState:
    """After a step: stamp new subscriptions with the step (a ghost for the properties),
    then every running queue manager sends what changed in its demand."""
    for q in state.qmgrs:
        if any(s.created == pubsub.UNSTAMPED for s in q.pubsub.subscriptions):
            subs = tuple(replace(s, created=step) if s.created == pubsub.UNSTAMPED else s for s in q.pubsub.subscriptions)
            state = put_qmgr(state, replace(q, pubsub=replace(q.pubsub, subscriptions=subs)))
    for q in state.qmgrs:
        if q.defs.parent != q.pubsub.parent_judged:
            state = _judge_parent(state, q, step)
    for name in [q.name for q in state.qmgrs if q.pubsub.backlog and q.running and q.defs.psmode != "DISABLED"]:
        state = process_backlog(state, name, step, mut)
    for q in state.qmgrs:
        state = _ps_reconcile(state, q.name, mut)
    return state


def _left_unprocessed(state: NetworkState, dst: str, msg: Any) -> NetworkState | None:
    """002 §Subscription performance considerations: "Any significant message backlog on
    these queues implies that ... a queue manager is not correctly functioning in the
    cluster. Either due to having publish/subscribe support disabled (see PSMODE in ALTER
    QMGR) or a problem". A queue manager with PSMODE(DISABLED) does not process what other
    queue managers send to its publish/subscribe system queues (a proxy subscription or its
    cancellation, a publication, a retained answer): the channel delivers it, and it waits
    there (``LocalPubSub.backlog``) until PSMODE is ENABLED or COMPAT again
    (:func:`process_backlog`). It is not refused, logged or acted on: no PSCLUS check, no
    registration, no delivery, no answer. The delivery reads and writes ``dst``'s own state
    only (docs/por.md, the delivery memo)."""
    q = state.qmgr(dst)
    if q.defs.psmode != "DISABLED":
        return None
    return put_qmgr(state, replace(q, pubsub=replace(q.pubsub, backlog=q.pubsub.backlog + (msg,))))


def process_backlog(state: NetworkState, name: str, step: int, mut: Mutations = NO_MUTATIONS) -> NetworkState:
    """A queue manager whose PSMODE is no longer DISABLED processes what waited on its
    publish/subscribe system queues, in arrival order, each message as if it had just
    arrived (its handler, then the demand it changed is sent, as after a delivery). Called
    after every step (``pubsub_after_step``): the step that set PSMODE(ENABLED) or
    PSMODE(COMPAT) is the only one that finds a backlog at such a queue manager. COMPAT
    processes it too: the model keeps publish/subscribe running under COMPAT but for the
    hierarchy links (``topology.pubsub_links``), and 002 says no more of COMPAT."""
    q = state.qmgr(name)
    waiting = q.pubsub.backlog
    state = put_qmgr(state, replace(q, pubsub=replace(q.pubsub, backlog=())))
    for msg in waiting:
        handler = receive_publication if isinstance(msg, pubsub.PublicationMsg) else receive_proxy_subscription
        state = pubsub_after_delivery(handler(state, name, msg, step, mut), name, mut)
    return state


def _judge_parent(state: NetworkState, q: QmgrState, step: int) -> NetworkState:
    """A new PARENT that names no queue manager of the scenario, or the queue manager
    itself, connects nothing (002 §Publish/subscribe hierarchies: "Use the ALTER QMGR PARENT
    (PARENT_NAME) runmqsc command to connect children to parents"); it is logged once."""
    state = put_qmgr(state, replace(q, pubsub=replace(q.pubsub, parent_judged=q.defs.parent)))
    parent = q.defs.parent
    if parent == q.name:
        return add_log(state, [LogEntry(q.name, "PARENT_SELF", f"PARENT({parent}) names this queue manager; "
                                     "no hierarchy link", step)])
    if parent and state.find(parent) is None:
        return add_log(state, [LogEntry(q.name, "PARENT_UNKNOWN", f"PARENT({parent}) names no queue manager of the "
                                     "scenario; no hierarchy link", step)])
    return state


def pubsub_after_delivery(after: NetworkState, dst: str, mut: Mutations) -> NetworkState:
    """After a delivery at ``dst``: ``dst`` sends what changed in its demand."""
    return _ps_reconcile(after, dst, mut)


def pubsub_after(before: NetworkState, action: Any, after: NetworkState, mut: Mutations) -> NetworkState:
    if isinstance(action, ScenarioStep):
        return pubsub_after_step(after, action.index, mut)
    if isinstance(action, ChannelDeliver):
        return pubsub_after_delivery(after, action.dst, mut)
    return pubsub_after_step(after, after.next_step - 1, mut)


def _ps_route(state: NetworkState, name: str, pub: Publication, came_from: str | None, came_via: str | None,
              scope_qmgr: bool, step: int, mut: Mutations) -> NetworkState:
    q = state.qmgr(name)
    r = pubsub.route_publication(
        pubsub_space(q), q.pubsub, pub, me=q.name, qmid=q.qmid, came_from=came_from, came_via=came_via,
        scope_qmgr=scope_qmgr, step=step, next_serial=q.published, check_fingerprints=not mut.no_fingerprint_check,
        aggregate=not mut.no_proxy_aggregation, relay_within_cluster=mut.relay_within_cluster,
        ignore_subscope_remote=mut.ignore_subscope_remote, links=pubsub_links(state, q))
    state = put_qmgr(state, replace(q, pubsub=r.ps, published=max(q.published, r.published)))
    for dst, msg in r.sends:
        state = send(state, name, dst, msg)
    return add_log(state, [LogEntry(name, e.code, e.detail, step) for e in r.errors])


def _ps_refused_by_psclus(state: NetworkState, dst: str, msg: Any, step: int) -> NetworkState | None:
    # 002 §Inhibiting clustered publish/subscribe in a cluster: with PSCLUS(DISABLED) proxy
    # subscriptions and publications from the cluster are "seen and rejected"
    if msg.via and state.qmgr(dst).defs.psclus == "DISABLED":
        return add_log(state, [LogEntry(dst, "PSCLUS_DISABLED", f"{msg} rejected: PSCLUS(DISABLED)", step)])
    return None


def receive_proxy_subscription(state: NetworkState, dst: str, msg: pubsub.ProxySubMsg, step: int,
                               mut: Mutations = NO_MUTATIONS) -> NetworkState:
    """``dst`` registers or cancels a neighbour's proxy subscription; a new one is answered
    with the matching retained publications (002 §Retained publications in a distributed
    publish/subscribe topology)."""
    waiting = _left_unprocessed(state, dst, msg)
    if waiting is not None:
        return waiting
    refused = _ps_refused_by_psclus(state, dst, msg, step)
    if refused is not None:
        return refused
    q = state.qmgr(dst)
    ps, new = pubsub.receive_proxy(q.pubsub, msg, q.name, aggregate=not mut.no_proxy_aggregation,
                                   space=pubsub_space(q))
    state = put_qmgr(state, replace(q, pubsub=ps))
    if new:
        sender = state.find(msg.sender)
        for pm in pubsub.retained_for(pubsub_space(q), ps, msg.topic, q.name, q.qmid, msg.via,
                                      sender.qmid if sender is not None else "",
                                      sender="" if mut.relay_within_cluster else msg.sender,
                                      links=pubsub_links(state, q)):
            state = send(state, dst, msg.sender, pm)
    return state


def receive_publication(state: NetworkState, dst: str, msg: pubsub.PublicationMsg, step: int,
                        mut: Mutations = NO_MUTATIONS) -> NetworkState:
    """``dst`` receives a forwarded publication: fingerprints are decoded from the RFH2
    folder and the publication is routed (DESIGN §3.3 steps 1-3)."""
    waiting = _left_unprocessed(state, dst, msg)
    if waiting is not None:
        return waiting
    refused = _ps_refused_by_psclus(state, dst, msg, step)
    if refused is not None:
        return refused
    pub = Publication(msg.topic, msg.origin, msg.serial, msg.retain, msg.fingerprints, msg.lineage,
                      came_from=msg.sender if msg.retain else "", came_via=msg.via if msg.retain else "")
    if msg.answers:
        # 002 §Retained publications in a distributed publish/subscribe topology: an answer
        # to a new proxy subscription is for the subscriptions that proxy carries
        q = state.qmgr(dst)
        r = pubsub.receive_retained_answer(
            pubsub_space(q), q.pubsub, pub, msg.answers, me=q.name, qmid=q.qmid, came_from=msg.sender,
            came_via=msg.via, check_fingerprints=not mut.no_fingerprint_check,
            relay_within_cluster=mut.relay_within_cluster, links=pubsub_links(state, q))
        state = put_qmgr(state, replace(q, pubsub=r.ps))
        for to, out in r.sends:
            state = send(state, dst, to, out)
        return add_log(state, [LogEntry(dst, e.code, e.detail, step) for e in r.errors])
    return _ps_route(state, dst, pub, msg.sender, msg.via, False, step, mut)


def _inhibited(state: NetworkState, q: QmgrState, step: Any) -> NetworkState | None:
    """PSMODE(DISABLED): the queue manager's publish/subscribe support is disabled (002
    §Subscription performance considerations: "having publish/subscribe support disabled
    (see PSMODE in ALTER QMGR)"), so an application's MQSUB, or MQPUT to a topic, fails
    with MQRC_PUBSUB_INHIBITED and changes nothing. PSMODE(COMPAT) keeps the API."""
    if q.defs.psmode != "DISABLED":
        return None
    return add_log(state, [LogEntry(q.name, "MQRC_PUBSUB_INHIBITED", f"{q.name} has PSMODE(DISABLED): "
                                    "publish/subscribe is not available", step.index)])


def publish_step(state: NetworkState, step: sc.PublishStep, mut: Mutations) -> NetworkState:
    """An application publishes ``count`` times; ``scope = "QMGR"`` is MQPMO_SCOPE_QMGR."""
    q = state.qmgr(step.qmgr)
    if (refused := _inhibited(state, q, step)) is not None:
        return refused
    topic, log = _full_topic(q, step.topicobj, step.topic, step.index)
    state = add_log(state, log)
    if topic is None:
        return state
    for _ in range(step.count):
        q = state.qmgr(step.qmgr)
        pub = Publication(topic, q.name, q.published, retain=step.retain)
        state = put_qmgr(state, replace(q, published=q.published + 1))
        state = _ps_route(state, q.name, pub, None, None, step.scope == "QMGR", step.index, mut)
    return state


# a subscribe step's scope: none given (the topic's SUBSCOPE decides), MQSO_SCOPE_ALL
# (overrides SUBSCOPE(QMGR)) or MQSO_SCOPE_QMGR (002 §Subscription scope)
_SUBSCRIBE_SCOPES = {"": pubsub.SCOPE_ALL, "ALL": pubsub.SCOPE_OPTION_ALL, "QMGR": pubsub.SCOPE_QMGR}


def subscribe_step(state: NetworkState, step: sc.SubscribeStep, mut: Mutations) -> NetworkState:
    q = state.qmgr(step.qmgr)
    if (refused := _inhibited(state, q, step)) is not None:
        return refused
    topic, log = _full_topic(q, step.topicobj, step.topic, step.index)
    if topic is None:
        return add_log(state, log)
    scope = _SUBSCRIBE_SCOPES["" if mut.scope_all_ignored and step.scope == "ALL" else step.scope]
    sub = pubsub.Subscription(name=step.name, topic=topic, scheme=step.scheme, scope=scope, group=step.group,
                              dest=step.dest, durable=step.durable, created=step.index)
    ps, errors = pubsub.subscribe(pubsub_space(q), q.pubsub, sub, step.new_only)
    return add_log(put_qmgr(state, replace(q, pubsub=ps)), [LogEntry(q.name, e.code, e.detail, step.index) for e in errors])


def remove_subscription(ps: pubsub.LocalPubSub, name: str) -> pubsub.LocalPubSub:
    """The subscription is gone, and with it the republishing application reading it."""
    ps, _ = pubsub.unsubscribe(ps, name)
    return replace(ps, republishers=tuple(r for r in ps.republishers if r.subscription != name))


def is_api_subscription(q: QmgrState, cmd: Any) -> bool:
    """Does a DEFINE/ALTER/DELETE SUB name a subscription an application made (MQSUB)? MQ
    keeps one subscription namespace per queue manager: DISPLAY SUB lists both kinds and
    DELETE SUB removes either (002 §Subscribers and subscriptions; §Subscription durability)."""
    return (cmd.objtype == "SUB" and cmd.verb in ("DEFINE", "ALTER", "DELETE")
            and q.defs.subscription(cmd.name) is None and q.pubsub.subscription(cmd.name) is not None)


def mqsc_on_api_subscription(state: NetworkState, name: str, cmd: Any, step: int) -> NetworkState:
    # DELETE SUB removes it; DEFINE SUB finds the name taken (AMQ8150, with or without
    # REPLACE: turning an API subscription into an administrative one is not modelled);
    # ALTER SUB is not modelled for API subscriptions and is refused the same way
    q = state.qmgr(name)
    if cmd.verb == "DELETE":
        return put_qmgr(state, replace(q, pubsub=remove_subscription(q.pubsub, cmd.name)))
    detail = objects.AMQ8150(cmd.name) + " (a subscription made by an application)"
    return add_log(state, [LogEntry(name, "AMQ8150", detail, step)])


def unsubscribe_step(state: NetworkState, step: sc.UnsubscribeStep, mut: Mutations) -> NetworkState:
    """MQCLOSE with MQCO_REMOVE_SUB: any subscription of that name, an administrative one
    (DEFINE SUB) included — one namespace per queue manager."""
    q = state.qmgr(step.qmgr)
    if q.pubsub.subscription(step.name) is None:
        _, errors = pubsub.unsubscribe(q.pubsub, step.name)
        return add_log(state, [LogEntry(q.name, e.code, e.detail, step.index) for e in errors])
    defs = replace(q.defs, subscriptions=tuple(s for s in q.defs.subscriptions if s.name != step.name))
    return put_qmgr(state, replace(q, defs=defs, pubsub=remove_subscription(q.pubsub, step.name)))


def republish_step(state: NetworkState, step: sc.RepublishStep, mut: Mutations) -> NetworkState:
    """From now on an application gets each publication delivered to ``subscription`` and
    publishes it again with action NEW or FORWARD (002 §Loop detection fingerprint format)."""
    q = state.qmgr(step.qmgr)
    if (refused := _inhibited(state, q, step)) is not None:
        return refused
    if q.pubsub.subscription(step.subscription) is None:
        return add_log(state, [LogEntry(q.name, "MQRC_NO_SUBSCRIPTION", f"no subscription named {step.subscription}",
                                     step.index)])
    rep = pubsub.Republisher(step.subscription, step.action, step.topic)
    reps = tuple(sorted(set(q.pubsub.republishers) | {rep}, key=lambda r: (r.subscription, r.action, r.topic)))
    return put_qmgr(state, replace(q, pubsub=replace(q.pubsub, republishers=reps)))


def refresh_proxy_subscriptions(state: NetworkState, name: str) -> NetworkState:
    """REFRESH QMGR TYPE(PROXYSUB): every proxy subscription is sent again (002 §Resynchronization
    of proxy subscriptions); the neighbours already holding one keep one (aggregation), with
    the demand paths it carries now."""
    q = state.qmgr(name)
    return put_qmgr(state, replace(q, pubsub=replace(q.pubsub, proxies_sent=(), sent_paths=())))


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
                 proxy_blocking=tuple(b for b in q.pubsub.proxy_blocking if not hit(b[0][1])),
                 sent_paths=tuple(h for h in q.pubsub.sent_paths if not hit(h[0][1])))
    return put_qmgr(state, replace(q, pubsub=ps))


def restarted(q: QmgrState) -> QmgrState:
    """A stopped queue manager starts again: its non-durable subscriptions ended with their
    connections and the rest get their WILDCARD(BLOCK) sets re-evaluated, and so do the
    proxy subscriptions held here (002 §Subscription durability; §Controlling wildcard usage
    with the WILDCARD property). The demand change is sent by ``pubsub_after_step`` after
    the step, as for any other step."""
    ended = {s.name for s in q.pubsub.subscriptions if not s.durable}
    space = pubsub_space(q)
    ps = replace(q.pubsub, subscriptions=subscriptions_after_restart(space, q.pubsub.subscriptions),
                 republishers=tuple(r for r in q.pubsub.republishers if r.subscription not in ended))
    ps = pubsub.proxies_after_restart(space, ps)
    return replace(q, running=True, pubsub=ps)


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


def backlog_of(state: NetworkState) -> dict[str, dict[str, list[str]]]:
    """Per queue manager with PSMODE(DISABLED) and messages waiting, per publish/subscribe
    system queue, the messages left unprocessed there in arrival order (what DISPLAY
    QLOCAL(SYSTEM.INTER.QMGR.*) CURDEPTH would count; ``_left_unprocessed``)."""
    out: dict[str, dict[str, list[str]]] = {}
    for q in state.qmgrs:
        for msg in q.pubsub.backlog:
            out.setdefault(q.name, {}).setdefault(pubsub.system_queue(msg), []).append(str(msg))
    return out


def proxy_subscriptions_of(state: NetworkState) -> dict[str, list[str]]:
    """Per queue manager, the proxy subscriptions neighbours hold there ("QM2 (CL1): topic")."""
    return {q.name: [f"{n}{' (' + v + ')' if v else ''}: {t}" for n, v, t in q.pubsub.proxies]
            for q in state.qmgrs if q.pubsub.proxies}
