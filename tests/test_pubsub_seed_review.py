"""Session 27: publish/subscribe worked examples of 002 that no other test states.

Each test is one of 002's examples or rules, written as the seed states it, with the seed
section in its docstring (002 = 002_b356d92d3ce416e5.txt, "Plan - WebSphere MQ v7.5").
The examples already covered elsewhere (the Sport cluster tables, the wildcard tables, the
football results service, overlapping topics A-D, the hierarchy loop, PROXYSUB(FORCE) in a
hierarchy) are not repeated here.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass

from spec import pubsub
from spec.network import deliveries_of, run_scenario
from spec.network.topology import pubsub_links, pubsub_space
from spec.pubsub import Subscription
from spec.scenario import parse_scenario
from spec.pubsub import LocalPubSub, Publication, publish, subscribe
from spec.topic_tree import TopicSpace


@dataclass(frozen=True)
class T:
    """A topic object with MQ's defaults (as in tests/test_topic_tree_pubsub.py)."""

    name: str
    topicstr: str
    cluster: str = ""
    pubscope: str = "ASPARENT"
    subscope: str = "ASPARENT"
    dursub: str = "ASPARENT"
    wildcard: str = "PASSTHRU"
    proxysub: str = "FIRSTUSE"
    pub: str = "ASPARENT"
    sub: str = "ASPARENT"


BASE = T("SYSTEM.BASE.TOPIC", "", pubscope="ALL", subscope="ALL", dursub="YES", pub="ENABLED", sub="ENABLED")


def run_subs(space, subs, topics):
    ps = LocalPubSub()
    for sub in subs:
        ps, errs = subscribe(space, ps, sub)
        assert errs == ()
    for serial, topic in enumerate(topics):
        ps, errs = publish(space, ps, Publication(topic, "QMA", serial))
        assert errs == ()
    received: dict[str, list[str]] = {s.name: [] for s in subs}
    for d in ps.deliveries:
        received[d.subscription].append(d.topic)
    return received


def run_text(text: str) -> dict:
    report = run_scenario(parse_scenario(textwrap.dedent(text), "review.toml"))
    return {"deliveries": deliveries_of(report.final), "errors": [(e.qmgr, e.code) for e in report.final.log],
            "final": report.final}


def proxies_at(final, qmgr: str) -> list[tuple[str, str, str]]:
    return sorted(final.qmgr(qmgr).pubsub.proxies)


# ---------------------------------------------------------------------------------------
# 002 §Wildcards and streams (and §Wildcards and subscription points): migration sets
# WILDCARD(BLOCK) on each top-level topic of a stream, so "a subscription to * receives no
# publications. To receive all the Sports publications you must subscribe to Sports/*, or
# Sports/#, and similarly for Business publications."
# ---------------------------------------------------------------------------------------
STREAMS = TopicSpace((BASE, T("Sports", "Sports", wildcard="BLOCK"), T("Business", "Business", wildcard="BLOCK")))
STREAM_PUBLICATIONS = ("Sports", "Sports/Rugby", "Sports/Rugby/Leeds", "Business", "Business/IBM")


def test_streams_a_subscription_to_star_receives_nothing_from_a_migrated_stream():
    """002 §Wildcards and streams: "the effect is that a subscription to * receives no
    publications" — in either wildcard scheme ('*' character, '#' topic)."""
    got = run_subs(STREAMS, [Subscription("STAR", "*", "char"), Subscription("HASH", "#"),
                             Subscription("PLUS", "+")], STREAM_PUBLICATIONS)
    assert got == {"STAR": [], "HASH": [], "PLUS": []}


def test_streams_subscribing_below_the_stream_topic_receives_its_publications():
    """002 §Wildcards and streams: "To receive all the Sports publications you must
    subscribe to Sports/*, or Sports/#, and similarly for Business publications." (By
    characters, 'Sports/*' needs the separator, so it leaves out a publication on 'Sports'
    itself: docs/decisions.md, "A second user trial".)"""
    got = run_subs(STREAMS, [Subscription("SPORTSHASH", "Sports/#"), Subscription("SPORTSSTAR", "Sports/*", "char"),
                             Subscription("BUSINESS", "Business/#")], STREAM_PUBLICATIONS)
    assert got == {"SPORTSHASH": ["Sports", "Sports/Rugby", "Sports/Rugby/Leeds"],
                   "SPORTSSTAR": ["Sports/Rugby", "Sports/Rugby/Leeds"],
                   "BUSINESS": ["Business", "Business/IBM"]}


# ---------------------------------------------------------------------------------------
# 002 §How does distributed publish/subscribe work?, Figures 1-3: HQ is the parent of Asia
# and Europe, Europe the parent of London.
# ---------------------------------------------------------------------------------------
FIGURES_1_TO_3 = """
    [qmgrs.HQ]
    [qmgrs.ASIA]
    mqsc = "ALTER QMGR PARENT(HQ)"
    [qmgrs.EUROPE]
    mqsc = "ALTER QMGR PARENT(HQ)"
    [qmgrs.LONDON]
    mqsc = "ALTER QMGR PARENT(EUROPE)"
    [[steps]]
    subscribe = { qmgr = "ASIA", name = "SUBSCRIBER1", topic = "Price/Fruit/Apples" }
    [[steps]]
    subscribe = { qmgr = "HQ", name = "SUBSCRIBER2", topic = "Price/Fruit/Apples" }
    [[steps]]
    publish = { qmgr = "EUROPE", topic = "Price/Fruit/Apples" }
"""


def test_figures_1_to_3_proxy_subscriptions_flow_to_every_queue_manager_once():
    """002 §How does distributed publish/subscribe work?: Subscriber 1's subscription at Asia
    "is forwarded to all other queue managers in the network (2,3,4)"; Subscriber 2's at HQ
    "is forwarded to the Asia queue manager (6)"; Europe holds one proxy subscription from HQ
    (aggregation), London one from Europe, and there is none "from London to Europe"."""
    final = run_text(FIGURES_1_TO_3)["final"]
    topic = "Price/Fruit/Apples"
    assert proxies_at(final, "HQ") == [("ASIA", "", topic)]
    assert proxies_at(final, "ASIA") == [("HQ", "", topic)]
    assert proxies_at(final, "EUROPE") == [("HQ", "", topic)]
    assert proxies_at(final, "LONDON") == [("EUROPE", "", topic)]


def test_figures_1_to_3_a_publication_at_europe_reaches_both_subscribers_and_not_london():
    """002 §How does distributed publish/subscribe work?, Figure 3: the publication at Europe
    "is forwarded to the HQ queue manager (8)... not forwarded to the London queue manager.
    The HQ queue manager sends the publication directly to subscriber 2 and to the Asia
    queue manager (9). The publication is forwarded to subscriber 1 from Asia (10)."""
    got = run_text(FIGURES_1_TO_3)
    assert got["deliveries"] == {"ASIA": {"SUBSCRIBER1": ["Price/Fruit/Apples"]},
                                 "HQ": {"SUBSCRIBER2": ["Price/Fruit/Apples"]}}
    assert got["errors"] == []
    final = got["final"]
    europe = final.qmgr("EUROPE")
    targets = pubsub.forward_targets(pubsub_space(europe), europe.pubsub, "Price/Fruit/Apples", None, None,
                                     links=pubsub_links(final, europe))
    assert [link.neighbour for link in targets] == ["HQ"]


# ---------------------------------------------------------------------------------------
# 002 §Overriding a cluster topic definition locally and §Cluster topic attributes
# (PUBSCOPE and SUBSCOPE): QM1 hosts cluster topic NEWS; QM2 overrides it with a local
# definition of the same topic string; QM3 subscribes through the cluster topic.
# ---------------------------------------------------------------------------------------
OVERRIDE = """
    [qmgrs.QM1]
    mqsc = '''
    ALTER QMGR REPOS(C)
    DEFINE CHANNEL(TO.QM1) CHLTYPE(CLUSRCVR) CONNAME('qm1(1414)') CLUSTER(C)
    DEFINE TOPIC(NEWS) TOPICSTR('News') CLUSTER(C)
    '''
    [qmgrs.QM2]
    mqsc = '''
    DEFINE CHANNEL(TO.QM2) CHLTYPE(CLUSRCVR) CONNAME('qm2(1414)') CLUSTER(C)
    DEFINE CHANNEL(TO.QM1) CHLTYPE(CLUSSDR) CONNAME('qm1(1414)') CLUSTER(C)
    DEFINE TOPIC(NEWS) TOPICSTR('News') {local}
    '''
    [qmgrs.QM3]
    mqsc = '''
    DEFINE CHANNEL(TO.QM3) CHLTYPE(CLUSRCVR) CONNAME('qm3(1414)') CLUSTER(C)
    DEFINE CHANNEL(TO.QM1) CHLTYPE(CLUSSDR) CONNAME('qm1(1414)') CLUSTER(C)
    '''
    [[steps]]
    subscribe = {{ qmgr = "QM3", name = "S3", topic = "News/Today" }}
    [[steps]]
    subscribe = {{ qmgr = "QM2", name = "S2", topic = "News/Today" }}
    [[steps]]
    publish = {{ qmgr = "QM2", topic = "News/Today" }}
    [[steps]]
    publish = {{ qmgr = "QM1", topic = "News/Today" }}
"""


def test_a_local_override_still_receives_proxy_subscriptions_and_honours_them():
    """002 §Overriding a cluster topic definition locally: "Even when a local definition of a
    topic is created to override a clustered topic on a queue manager the queue manager
    continue to receive proxy subscriptions from other members of the cluster using the
    clustered topic definition. By default, messages published locally continue to be sent
    to the remote queue managers to honor the proxy subscriptions." QM2's own subscription
    resolves to its local (not clustered) NEWS, so it receives only QM2's publication
    (002 §Topic spaces, Case 1: "you cannot subscribe to a topic defined on another queue
    manager, unless the topic you subscribe to resolves to a cluster topic object")."""
    got = run_text(OVERRIDE.format(local=""))
    assert ("QM3", "C", "News/Today") in proxies_at(got["final"], "QM2")
    assert got["deliveries"] == {"QM2": {"S2": ["News/Today"]}, "QM3": {"S3": ["News/Today", "News/Today"]}}
    assert got["errors"] == []


def test_a_local_override_with_pubscope_qmgr_publishes_only_locally():
    """002 §Overriding a cluster topic definition locally: "If this arrangement is not
    required, specify PUBSCOPE(QMGR) on the local topic object to ensure publisher
    applications connected to this queue manager publish only to local subscribers."
    002 §Cluster topic attributes: "Setting SUBSCOPE to QMGR on a local definition of a
    topic does not prevent other queue managers in the cluster from propagating their proxy
    subscriptions to the queue manager ... However, if the local definition also sets
    PUBSCOPE to QMGR those proxy subscriptions are not sent publications from this queue
    manager." """
    for local in ("PUBSCOPE(QMGR)", "PUBSCOPE(QMGR) SUBSCOPE(QMGR)"):
        got = run_text(OVERRIDE.format(local=local))
        assert ("QM3", "C", "News/Today") in proxies_at(got["final"], "QM2"), local
        assert got["deliveries"] == {"QM2": {"S2": ["News/Today"]}, "QM3": {"S3": ["News/Today"]}}, local
    got = run_text(OVERRIDE.format(local="SUBSCOPE(QMGR)"))
    assert ("QM3", "C", "News/Today") in proxies_at(got["final"], "QM2")
    assert got["deliveries"]["QM3"] == {"S3": ["News/Today", "News/Today"]}


# ---------------------------------------------------------------------------------------
# 002 §Overlapping cluster support, and publish/subscribe, "Overlapping clusters,
# wildcarded subscriptions": a cluster topic '/Sport/#' in CLUSTER1 only.
# ---------------------------------------------------------------------------------------
SPORT_HASH_IN_ONE_CLUSTER = """
    [qmgrs.QM1]
    mqsc = '''
    ALTER QMGR REPOS(CLUSTER1)
    DEFINE CHANNEL(TO.QM1) CHLTYPE(CLUSRCVR) CONNAME('qm1(1414)') CLUSTER(CLUSTER1)
    DEFINE TOPIC(FOOTBALL) TOPICSTR('/Sport/Football') CLUSTER(CLUSTER1)
    DEFINE TOPIC(SPORTS) TOPICSTR('/Sport/#') CLUSTER(CLUSTER1)
    '''
    [qmgrs.QM2]
    mqsc = '''
    DEFINE CHANNEL(TO.QM2) CHLTYPE(CLUSRCVR) CONNAME('qm2(1414)') CLUSTER(CLUSTER1)
    DEFINE CHANNEL(TO.QM1) CHLTYPE(CLUSSDR) CONNAME('qm1(1414)') CLUSTER(CLUSTER1)
    '''
    [qmgrs.QM3]
    mqsc = '''
    DEFINE NAMELIST(BOTH) NAMES(CLUSTER1, CLUSTER2)
    DEFINE CHANNEL(TO.QM3) CHLTYPE(CLUSRCVR) CONNAME('qm3(1414)') CLUSNL(BOTH)
    DEFINE CHANNEL(TO.QM1) CHLTYPE(CLUSSDR) CONNAME('qm1(1414)') CLUSTER(CLUSTER1)
    DEFINE CHANNEL(TO.QM4) CHLTYPE(CLUSSDR) CONNAME('qm4(1414)') CLUSTER(CLUSTER2)
    '''
    [qmgrs.QM4]
    mqsc = '''
    ALTER QMGR REPOS(CLUSTER2)
    DEFINE CHANNEL(TO.QM4) CHLTYPE(CLUSRCVR) CONNAME('qm4(1414)') CLUSTER(CLUSTER2)
    DEFINE TOPIC(TENNIS) TOPICSTR('/Sport/Tennis') CLUSTER(CLUSTER2)
    '''
    [qmgrs.QM5]
    mqsc = '''
    DEFINE CHANNEL(TO.QM5) CHLTYPE(CLUSRCVR) CONNAME('qm5(1414)') CLUSTER(CLUSTER2)
    DEFINE CHANNEL(TO.QM4) CHLTYPE(CLUSSDR) CONNAME('qm4(1414)') CLUSTER(CLUSTER2)
    '''
    [[steps]]
    subscribe = { qmgr = "QM3", name = "SPORT", topic = "/Sport/#" }
    [[steps]]
    publish = { qmgr = "QM5", topic = "/Sport/Tennis" }
    [[steps]]
    publish = { qmgr = "QM4", topic = "/Sport/Tennis" }
    [[steps]]
    publish = { qmgr = "QM2", topic = "/Sport/Football" }
"""


def test_a_wildcard_cluster_topic_in_one_cluster_sends_proxies_into_that_cluster_only():
    """002 §Overlapping cluster support, and publish/subscribe: "it is 'allowed' to create
    such a topic in just one of the clusters, say CLUSTER 1. Now a subscription to '/Sport/#'
    in QM3 would result in proxy subscriptions being sent to the queue managers in CLUSTER 1
    only, so still, publications to '/Sport/Tennis' from QM4 or QM5 would still fail to be
    received." """
    got = run_text(SPORT_HASH_IN_ONE_CLUSTER)
    final = got["final"]
    assert proxies_at(final, "QM1") == [("QM3", "CLUSTER1", "/Sport/#")]
    assert proxies_at(final, "QM2") == [("QM3", "CLUSTER1", "/Sport/#")]
    assert proxies_at(final, "QM4") == [] and proxies_at(final, "QM5") == []
    assert got["deliveries"] == {"QM3": {"SPORT": ["/Sport/Football"]}}
    assert got["errors"] == []


# ---------------------------------------------------------------------------------------
# 002 §Cluster topic attributes, PROXYSUB, and §Reducing proxy subscription traffic ("Note:
# Implication of setting PROXYSUB (to FORCE)"): FORCE on a cluster topic.
# ---------------------------------------------------------------------------------------
FORCE_IN_A_CLUSTER = """
    [qmgrs.QM1]
    mqsc = '''
    ALTER QMGR REPOS(C)
    DEFINE CHANNEL(TO.QM1) CHLTYPE(CLUSRCVR) CONNAME('qm1(1414)') CLUSTER(C)
    DEFINE TOPIC(NEWS) TOPICSTR('News') CLUSTER(C) PROXYSUB(FORCE)
    '''
    [qmgrs.QM2]
    mqsc = '''
    DEFINE CHANNEL(TO.QM2) CHLTYPE(CLUSRCVR) CONNAME('qm2(1414)') CLUSTER(C)
    DEFINE CHANNEL(TO.QM1) CHLTYPE(CLUSSDR) CONNAME('qm1(1414)') CLUSTER(C)
    '''
    [qmgrs.QM3]
    mqsc = '''
    DEFINE CHANNEL(TO.QM3) CHLTYPE(CLUSRCVR) CONNAME('qm3(1414)') CLUSTER(C)
    DEFINE CHANNEL(TO.QM1) CHLTYPE(CLUSSDR) CONNAME('qm1(1414)') CLUSTER(C)
    '''
    [[steps]]
    subscribe = { qmgr = "QM3", name = "S3", topic = "News/Today" }
    [[steps]]
    unsubscribe = { qmgr = "QM3", name = "S3" }
"""


def test_force_on_a_cluster_topic_makes_every_member_subscribe_at_every_other():
    """002 §Cluster topic attributes, PROXYSUB: "the PROXYSUB attribute is propagated to
    every queue manager in the cluster ... This instantly results in every queue manager in
    the cluster creating a wildcarded proxy subscription to every other queue manager";
    002 §Multicast and subscription latency: it "will not be canceled even after the last
    local subscription or received proxy subscription is canceled"."""
    final = run_text(FORCE_IN_A_CLUSTER)["final"]
    for me in ("QM1", "QM2", "QM3"):
        others = sorted({"QM1", "QM2", "QM3"} - {me})
        assert proxies_at(final, me) == [(n, "C", "News/#") for n in others], me


# ---------------------------------------------------------------------------------------
# 002 §Controlling wildcard usage with the WILDCARD property: "The value of this attribute
# is used when subscriptions are defined. If you alter this attribute, the set of topics
# covered by existing subscriptions is not affected by the modification. This scenario
# applies also if the topology is changed when topic objects are created or deleted ...
# To force the matching set of topics to be re-evaluated for existing subscriptions, you
# must restart the queue manager." 002 §Proxy subscription aggregation and publication
# aggregation: "A proxy subscription is a subscription made by one queue manager for topics
# published on another queue manager"; "You can also restrict the flow of proxy
# subscriptions containing wildcards by setting the Topic attribute WILDCARD to BLOCK".
# QM2 is QM1's child; QM2's 'Sports/#' is a proxy subscription at QM1 before QM1 defines
# Sports/Football with WILDCARD(BLOCK).
# ---------------------------------------------------------------------------------------
BLOCK_AFTER_PROXY = """
    [qmgrs.QM1]
    [qmgrs.QM2]
    mqsc = "ALTER QMGR PARENT(QM1)"
    [[steps]]
    subscribe = { qmgr = "QM2", name = "REMOTE", topic = "Sports/#" }
    [[steps]]
    subscribe = { qmgr = "QM1", name = "EARLY", topic = "Sports/#", durable = true }
    [[steps]]
    mqsc = { qmgr = "QM1", commands = "DEFINE TOPIC(FOOTBALL) TOPICSTR('Sports/Football') WILDCARD(BLOCK)" }
    [[steps]]
    subscribe = { qmgr = "QM1", name = "LATE", topic = "Sports/#" }
    [[steps]]
    publish = { qmgr = "QM1", topic = "Sports/Football/Arsenal" }
"""
RESTART_QM1 = """
    [[steps]]
    qmgr = { name = "QM1", action = "stop" }
    [[steps]]
    qmgr = { name = "QM1", action = "start" }
    [[steps]]
    publish = { qmgr = "QM1", topic = "Sports/Football/Arsenal" }
    [[steps]]
    publish = { qmgr = "QM1", topic = "Sports/Rugby" }
"""


def test_wildcard_block_defined_after_a_proxy_subscription_does_not_change_what_it_covers():
    """002 §Controlling wildcard usage with the WILDCARD property: a proxy subscription is a
    subscription at the publishing queue manager, and WILDCARD(BLOCK) defined after it was
    made does not change the topics it covers — as for QM1's own EARLY. (The spec used to
    look up the BLOCK nodes of a proxy subscription anew at every publication, so REMOTE
    lost what EARLY, made at the same moment, kept.)"""
    got = run_text(BLOCK_AFTER_PROXY)
    arsenal = "Sports/Football/Arsenal"
    assert got["deliveries"] == {"QM1": {"EARLY": [arsenal], "LATE": []}, "QM2": {"REMOTE": [arsenal]}}
    assert got["errors"] == []


def test_restart_re_evaluates_the_wildcard_block_of_held_proxy_subscriptions():
    """002 §Controlling wildcard usage with the WILDCARD property: "To force the matching
    set of topics to be re-evaluated for existing subscriptions, you must restart the queue
    manager" — after QM1 restarts, the proxy subscription it holds is blocked below
    Sports/Football like its local EARLY (LATE, non-durable, ended with the restart)."""
    got = run_text(BLOCK_AFTER_PROXY + RESTART_QM1)
    arsenal, rugby = "Sports/Football/Arsenal", "Sports/Rugby"
    assert got["deliveries"] == {"QM1": {"EARLY": [arsenal, rugby]}, "QM2": {"REMOTE": [arsenal, rugby]}}
    assert got["errors"] == []


def test_a_proxy_subscription_made_after_wildcard_block_is_blocked():
    """002 §Controlling wildcard usage with the WILDCARD property: "the set of topics
    matching subscriptions created following the modification of the WILDCARD attribute is
    created using the modified topology" — a proxy subscription that arrives after the BLOCK
    object exists is blocked below it."""
    text = BLOCK_AFTER_PROXY.replace(
        '    subscribe = { qmgr = "QM2", name = "REMOTE", topic = "Sports/#" }\n    [[steps]]\n', "")
    text += '    [[steps]]\n    subscribe = { qmgr = "QM2", name = "REMOTE", topic = "Sports/#" }\n' \
            '    [[steps]]\n    publish = { qmgr = "QM1", topic = "Sports/Football/Arsenal" }\n' \
            '    [[steps]]\n    publish = { qmgr = "QM1", topic = "Sports/Rugby" }\n'
    got = run_text(text)
    assert got["deliveries"]["QM2"] == {"REMOTE": ["Sports/Rugby"]}


# ---------------------------------------------------------------------------------------
# 002 §Controlling wildcard usage with the WILDCARD property with §Retained publications
# in a distributed publish/subscribe topology: the retained publications that answer a new
# proxy subscription are publications to that subscription, so WILDCARD(BLOCK) at the
# answering queue manager applies to them as it applies to live publications (and to the
# retained publications a new local subscription receives).
# ---------------------------------------------------------------------------------------
RETAINED_BELOW_BLOCK = """
    [qmgrs.QM1]
    mqsc = "DEFINE TOPIC(FOOTBALL) TOPICSTR('Sports/Football') WILDCARD(BLOCK)"
    [qmgrs.QM2]
    mqsc = "ALTER QMGR PARENT(QM1)"
    [qmgrs.QM3]
    mqsc = "ALTER QMGR PARENT(QM2)"
    [[steps]]
    publish = { qmgr = "QM1", topic = "Sports/Football/Arsenal", retain = true }
    [[steps]]
    publish = { qmgr = "QM1", topic = "Sports/Rugby/Leeds", retain = true }
    [[steps]]
    subscribe = { qmgr = "QM1", name = "LOCAL", topic = "Sports/#" }
    [[steps]]
    subscribe = { qmgr = "QM2", name = "CHILD", topic = "Sports/#" }
    [[steps]]
    publish = { qmgr = "QM1", topic = "Sports/Football/Arsenal" }
"""


def test_retained_answers_to_a_wildcard_proxy_subscription_respect_wildcard_block():
    """002 §Controlling wildcard usage with the WILDCARD property: "Subscriptions made to a
    wildcarded topic less specific than the topic string at this topic object do not receive
    publications made to this topic or to topic strings more specific than this topic";
    002 §Retained publications in a distributed publish/subscribe topology: a new proxy
    subscription is answered with the retained publications. QM2's Sports/# is a proxy
    subscription at QM1, blocked below Sports/Football there: it gets QM1's retained Leeds
    result and, like QM1's own LOCAL, neither the retained nor the live Arsenal one. (The
    spec used to answer it with every matching retained publication, BLOCK or not.)"""
    got = run_text(RETAINED_BELOW_BLOCK)
    assert got["deliveries"] == {"QM1": {"LOCAL": ["Sports/Rugby/Leeds"]}, "QM2": {"CHILD": ["Sports/Rugby/Leeds"]}}
    assert got["errors"] == []


def test_a_relayed_retained_answer_respects_wildcard_block_at_the_relay():
    """The same rule one hop further: QM2 defines the BLOCK object and relays QM1's answer
    to QM3's Sports/# (held at QM2, blocked below Sports/Football there) only as it would
    relay a live publication (002 §Controlling wildcard usage with the WILDCARD property)."""
    text = RETAINED_BELOW_BLOCK.replace(
        '[qmgrs.QM1]\n    mqsc = "DEFINE TOPIC(FOOTBALL) TOPICSTR(\'Sports/Football\') WILDCARD(BLOCK)"\n',
        "[qmgrs.QM1]\n").replace(
        'mqsc = "ALTER QMGR PARENT(QM1)"',
        "mqsc = '''\n    ALTER QMGR PARENT(QM1)\n"
        "    DEFINE TOPIC(FOOTBALL) TOPICSTR('Sports/Football') WILDCARD(BLOCK)\n    '''")
    text = text.replace('subscribe = { qmgr = "QM2", name = "CHILD", topic = "Sports/#" }',
                        'subscribe = { qmgr = "QM3", name = "GRANDCHILD", topic = "Sports/#" }')
    assert "GRANDCHILD" in text and "WILDCARD(BLOCK)\n    '''" in text
    got = run_text(text)
    # QM1 has no BLOCK: LOCAL gets both; QM3's demand reaches QM1 through QM2, whose proxy
    # Sports/# at QM1 is unblocked there, but QM2 passes on only the Leeds answer
    assert got["deliveries"] == {
        "QM1": {"LOCAL": ["Sports/Football/Arsenal", "Sports/Rugby/Leeds", "Sports/Football/Arsenal"]},
        "QM3": {"GRANDCHILD": ["Sports/Rugby/Leeds"]}}
    assert got["errors"] == []


# ---------------------------------------------------------------------------------------
# 002 §Combine the topic spaces of multiple clusters, "What to do next": clusters 1 and 3
# joined by a hierarchy (QM7's PARENT is QM3), the cluster topic USA defined only on QM7.
# ---------------------------------------------------------------------------------------
USA_ONLY_ON_QM7 = """
    [qmgrs.QM1]
    mqsc = '''
    ALTER QMGR REPOS(CLUSTER1)
    DEFINE CHANNEL(TO.QM1) CHLTYPE(CLUSRCVR) CONNAME('qm1(1414)') CLUSTER(CLUSTER1)
    '''
    [qmgrs.QM3]
    mqsc = '''
    DEFINE CHANNEL(TO.QM3) CHLTYPE(CLUSRCVR) CONNAME('qm3(1414)') CLUSTER(CLUSTER1)
    DEFINE CHANNEL(TO.QM1) CHLTYPE(CLUSSDR) CONNAME('qm1(1414)') CLUSTER(CLUSTER1)
    '''
    [qmgrs.QM7]
    mqsc = '''
    ALTER QMGR REPOS(CLUSTER3) PARENT(QM3)
    DEFINE CHANNEL(TO.QM7) CHLTYPE(CLUSRCVR) CONNAME('qm7(1414)') CLUSTER(CLUSTER3)
    DEFINE TOPIC(USA) TOPICSTR('USA') CLUSTER(CLUSTER3)
    '''
    [qmgrs.QM8]
    mqsc = '''
    DEFINE CHANNEL(TO.QM8) CHLTYPE(CLUSRCVR) CONNAME('qm8(1414)') CLUSTER(CLUSTER3)
    DEFINE CHANNEL(TO.QM7) CHLTYPE(CLUSSDR) CONNAME('qm7(1414)') CLUSTER(CLUSTER3)
    '''
    [[steps]]
    subscribe = { qmgr = "QM8", name = "S8", topic = "USA/Texas" }
    [[steps]]
    subscribe = { qmgr = "QM3", name = "S3", topic = "USA/Texas" }
    [[steps]]
    subscribe = { qmgr = "QM1", name = "S1", topic = "USA/Texas" }
    [[steps]]
    publish = { qmgr = "QM3", topic = "USA/Texas" }
    [[steps]]
    publish = { qmgr = "QM8", topic = "USA/Texas" }
    [[steps]]
    publish = { qmgr = "QM1", topic = "USA/Texas" }
"""


def test_a_cluster_topic_defined_in_one_cluster_is_shared_with_the_hierarchy_only():
    """002 §Combine the topic spaces of multiple clusters: "If USA is only defined on QM7,
    then publications and subscriptions to USA are exchanged between QM7, QM8, QM9, and
    QM3. Publishers and subscribers running on QM7, QM8, QM9 inherit the attributes of the
    administrative topic USA. Publishers and subscribers on QM3 inherit the attributes of
    SYSTEM.BASE.TOPIC on QM3." QM1, in cluster 1 beside QM3 but not in the hierarchy, is
    left out: USA is no cluster topic of cluster 1."""
    got = run_text(USA_ONLY_ON_QM7)
    final = got["final"]
    space = pubsub_space(final.qmgr("QM3"))
    assert space.resolve_topic("USA/Texas").name == "SYSTEM.BASE.TOPIC"
    assert pubsub_space(final.qmgr("QM8")).resolve_topic("USA/Texas").name == "USA"
    qm3, qm8, qm1 = ("QM3", 0), ("QM8", 0), ("QM1", 0)
    by_origin = {q: {s: [(d.origin, d.serial) for d in final.qmgr(q).pubsub.deliveries if d.subscription == s]
                     for s in (f"S{q[2]}",)} for q in ("QM1", "QM3", "QM8")}
    assert by_origin == {"QM8": {"S8": [qm3, qm8]}, "QM3": {"S3": [qm3, qm8]}, "QM1": {"S1": [qm1]}}
    assert got["errors"] == []


# ---------------------------------------------------------------------------------------
# 002 §Cluster topic attributes, PUBSCOPE and SUBSCOPE: "These two attributes are commonly
# used together to isolate a queue manager from interacting with other members of the
# cluster on particular topics ... This situation does not prevent publication or
# subscription if topic objects are defined on subtopics."
# ---------------------------------------------------------------------------------------
ISOLATED_WITH_SUBTOPIC = """
    [qmgrs.QM1]
    mqsc = '''
    ALTER QMGR REPOS(C)
    DEFINE CHANNEL(TO.QM1) CHLTYPE(CLUSRCVR) CONNAME('qm1(1414)') CLUSTER(C)
    DEFINE TOPIC(SPORT) TOPICSTR('Sport') CLUSTER(C) PUBSCOPE(QMGR) SUBSCOPE(QMGR)
    DEFINE TOPIC(TENNIS) TOPICSTR('Sport/Tennis') CLUSTER(C) PUBSCOPE(ALL) SUBSCOPE(ALL)
    '''
    [qmgrs.QM2]
    mqsc = '''
    DEFINE CHANNEL(TO.QM2) CHLTYPE(CLUSRCVR) CONNAME('qm2(1414)') CLUSTER(C)
    DEFINE CHANNEL(TO.QM1) CHLTYPE(CLUSSDR) CONNAME('qm1(1414)') CLUSTER(C)
    '''
    [[steps]]
    subscribe = { qmgr = "QM2", name = "TENNIS", topic = "Sport/Tennis/Wimbledon" }
    [[steps]]
    subscribe = { qmgr = "QM2", name = "GOLF", topic = "Sport/Golf/Open" }
    [[steps]]
    subscribe = { qmgr = "QM1", name = "LOCALGOLF", topic = "Sport/Golf/Open" }
    [[steps]]
    publish = { qmgr = "QM1", topic = "Sport/Tennis/Wimbledon" }
    [[steps]]
    publish = { qmgr = "QM1", topic = "Sport/Golf/Open" }
"""


def test_scopes_qmgr_on_a_cluster_topic_do_not_isolate_a_subtopic_with_scopes_all():
    """002 §Cluster topic attributes, PUBSCOPE and SUBSCOPE: SPORT, a cluster topic with
    PUBSCOPE(QMGR) SUBSCOPE(QMGR), keeps Sport/Golf local ("the scope of publications that
    are based on that topic is local only ... no proxy subscriptions are sent"), but its
    subtopic object TENNIS with PUBSCOPE(ALL) SUBSCOPE(ALL) is published and subscribed to
    across the cluster."""
    got = run_text(ISOLATED_WITH_SUBTOPIC)
    assert proxies_at(got["final"], "QM1") == [("QM2", "C", "Sport/Tennis/Wimbledon")]
    assert got["deliveries"] == {"QM1": {"LOCALGOLF": ["Sport/Golf/Open"]},
                                 "QM2": {"TENNIS": ["Sport/Tennis/Wimbledon"], "GOLF": []}}
    assert got["errors"] == []


def test_receive_proxy_captures_block_nodes_once_and_drops_them_with_the_proxy():
    """002 §Controlling wildcard usage with the WILDCARD property ("used when subscriptions
    are defined"): the capture is made when the proxy subscription is new, kept by an update
    of its demand paths (made after the BLOCK object went), and goes with its cancellation;
    a restart takes the nodes from the topic space as it is then."""
    blocked = TopicSpace((BASE, T("F", "Sports/Football", wildcard="BLOCK")))
    plain = TopicSpace((BASE,))
    key = ("QM2", "", "Sports/#")
    first = pubsub.ProxySubMsg(pubsub.SUBSCRIBE, "Sports/#", "QM2", "", (("QM2",),))
    ps, new = pubsub.receive_proxy(pubsub.LocalPubSub(), first, "QM1", space=blocked)
    assert new and ps.proxy_blocking == ((key, (("Sports", "Football"),)),)
    update = pubsub.ProxySubMsg(pubsub.SUBSCRIBE, "Sports/#", "QM2", "", (("QM2",), ("QM3", "QM2")))
    ps, new = pubsub.receive_proxy(ps, update, "QM1", space=plain)
    assert not new and ps.proxy_blocking == ((key, (("Sports", "Football"),)),)
    assert pubsub.forward_targets(plain, ps, "Sports/Football/Arsenal", None, None) == ()
    assert pubsub.proxies_after_restart(plain, ps).proxy_blocking == ()
    assert [link.neighbour for link in pubsub.forward_targets(
        plain, pubsub.proxies_after_restart(plain, ps), "Sports/Football/Arsenal", None, None)] == ["QM2"]
    ps, _ = pubsub.receive_proxy(ps, pubsub.ProxySubMsg(pubsub.UNSUBSCRIBE, "Sports/#", "QM2", ""), "QM1")
    assert ps.proxies == () and ps.proxy_blocking == ()


# ---------------------------------------------------------------------------------------
# 002 §Set up a publish/subscribe cluster: Scenario 1 and Scenario 2, with the seed's MQSC
# (listeners left out: the model has no listeners; CONNAMEs with a host for $HOSTNAME).
# ---------------------------------------------------------------------------------------
DEMO_SCENARIOS = """
    [qmgrs.QM1]
    mqsc = '''
    alter QMGR REPOS(DEMO)
    DEFINE CHANNEL(DEMO.QM1) CHLTYPE(CLUSRCVR) TRPTYPE(TCP) CONNAME('host(5000)') CLUSTER(DEMO) DESCR('TCP Cluster-receiver channel for queue manager QM1')
    DEFINE CHANNEL(DEMO.QM2) CHLTYPE(CLUSSDR) TRPTYPE(TCP) CONNAME('host(5001)') CLUSTER(DEMO) DESCR('TCP Cluster-sender channel from QM1 to  queue manager QM2')
    define topic(scores) TOPICSTR(/football) CLUSTER(DEMO)
    '''
    [qmgrs.QM2]
    mqsc = '''
    alter QMGR REPOS(DEMO)
    DEFINE CHANNEL(DEMO.QM2) CHLTYPE(CLUSRCVR) TRPTYPE(TCP) CONNAME('host(5001)') CLUSTER(DEMO) DESCR('TCP Cluster-receiver channel for queue manager QM2')
    DEFINE CHANNEL(DEMO.QM1) CHLTYPE(CLUSSDR) TRPTYPE(TCP) CONNAME('host(5000)') CLUSTER(DEMO) DESCR('TCP Cluster-sender channel from qm2 to qm1')
    '''
    [qmgrs.QM3]
    mqsc = '''
    DEFINE CHANNEL(DEMO.QM3) CHLTYPE(CLUSRCVR) TRPTYPE(TCP) CONNAME('host(5002)') CLUSTER (DEMO) DESCR('TCP Cluster-receiver channel for queue manager QM3')
    DEFINE CHANNEL(DEMO.QM1) CHLTYPE(CLUSSDR) TRPTYPE(TCP) CONNAME('host(5000)') CLUSTER(DEMO) DESCR('TCP Cluster-sender channel from qm3 to qm1')
    '''
    [[steps]]
    subscribe = { qmgr = "QM2", name = "AMQSSUB2", topic = "/FOOTBALL/scores" }
    [[steps]]
    publish = { qmgr = "QM1", topic = "/FOOTBALL/scores" }
    [[steps]]
    subscribe = { qmgr = "QM3", name = "AMQSSUB3", topic = "/FOOTBALL/scores" }
    [[steps]]
    publish = { qmgr = "QM2", topic = "/FOOTBALL/scores" }
"""


def test_publish_subscribe_cluster_scenarios_1_and_2():
    """002 §Set up a publish/subscribe cluster: Scenario 1 ("amqspub /FOOTBALL/scores QM1",
    "amqssub /FOOTBALL/scores QM2") and Scenario 2 (QM3 joins as a partial repository;
    "amqspub /FOOTBALL/scores QM2", "amqssub /FOOTBALL/scores QM3"). The unquoted
    TOPICSTR(/football) is folded to upper case by runmqsc, which is why the samples name
    /FOOTBALL."""
    got = run_text(DEMO_SCENARIOS)
    final = got["final"]
    assert [o.topicstr for o in final.qmgr("QM1").defs.topics if o.name == "SCORES"] == ["/FOOTBALL"]
    assert pubsub_space(final.qmgr("QM3")).cluster_of("/FOOTBALL/scores") == "DEMO"
    assert got["deliveries"] == {"QM2": {"AMQSSUB2": ["/FOOTBALL/scores", "/FOOTBALL/scores"]},
                                 "QM3": {"AMQSSUB3": ["/FOOTBALL/scores"]}}
    assert got["errors"] == []


# ---------------------------------------------------------------------------------------
# 002 §Key roles for publish/subscribe cluster queue managers, "Availability and
# management", and §Multiple cluster topic definitions: the same cluster topic defined on
# two hosts.
# ---------------------------------------------------------------------------------------
def two_hosts(second: str, tail: str = "") -> str:
    def member(name: str, via: str, extra: str = "", repos: bool = False) -> str:
        return (f"[qmgrs.{name}]\nmqsc = '''\n" + ("ALTER QMGR REPOS(DEMO)\n" if repos else "")
                + f"DEFINE CHANNEL(TO.{name}) CHLTYPE(CLUSRCVR) CONNAME('{name.lower()}(1414)') CLUSTER(DEMO)\n"
                + f"DEFINE CHANNEL(TO.{via}) CHLTYPE(CLUSSDR) CONNAME('{via.lower()}(1414)') CLUSTER(DEMO)\n"
                + extra + "'''\n")
    return (member("FR1", "FR2", repos=True) + member("FR2", "FR1", repos=True)
            + member("HOST1", "FR1", "DEFINE TOPIC(NEWS) TOPICSTR('News') CLUSTER(DEMO)\n")
            + member("HOST2", "FR2") + member("PR3", "FR1")
            + f'[[steps]]\nmqsc = {{ qmgr = "HOST2", commands = "DEFINE TOPIC(NEWS) TOPICSTR(\'News\') CLUSTER(DEMO){second}" }}\n'
            + tail)


def news_records(final, qmgr: str) -> list[tuple[str, str]]:
    space = pubsub_space(final.qmgr(qmgr))
    return sorted((r.name, r.pubscope) for r in space.cluster if r.topicstr == "News")


def test_identical_definitions_on_two_hosts_are_no_conflict_and_outlive_one_host():
    """002 §Availability and management: "You might adopt the practice of defining the same
    cluster topic object on other queue managers ... Now if a cluster topic host becomes
    unavailable for over 60 days, only its version of the cluster topic object is removed
    from the other hosts. The other versions of the cluster topic object remain." 002
    §Multiple cluster topic definitions: the error is for definitions that "have differing
    attributes or exist in more than one cluster"."""
    got = run_text(two_hosts(""))
    assert got["errors"] == []
    assert len(news_records(got["final"], "PR3")) == 2
    later = two_hosts("", '[[steps]]\nqmgr = { name = "HOST1", action = "stop" }\n'
                          '[[steps]]\nadvance = { days = 31 }\n[[steps]]\nadvance = { days = 31 }\n')
    final = run_text(later)["final"]
    space = pubsub_space(final.qmgr("PR3"))
    assert len(news_records(final, "PR3")) == 1 and space.cluster_of("News/Today") == "DEMO"


def test_a_newer_differing_definition_prevails_and_the_conflict_is_logged():
    """002 §Replacing a cluster topic definition on a failed queue manager: "it is possible
    to modify the version on QM2 in the knowledge that the QM2 definition is newer than the
    QM1 definition, and therefore prevails. However, during this period, errors are written
    to the error logs of the queue managers because there is a conflicting cluster topic
    definition." """
    got = run_text(two_hosts(" PUBSCOPE(QMGR)"))
    assert ("PR3", "TOPIC_CONFLICT") in got["errors"]
    assert pubsub_space(got["final"].qmgr("PR3")).effective("News/Today", "pubscope") == "QMGR"
