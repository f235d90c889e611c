"""Session 35: distributed publish/subscribe rules of 002 that no other test states.

Each test is one of 002's rules or examples, with the seed section in its comment or
docstring (002 = 002_b356d92d3ce416e5.txt, "Plan - WebSphere MQ v7.5"). Session 27's review
is in tests/test_pubsub_seed_review.py; what it and the other tests pin is not repeated.
"""

from __future__ import annotations

import textwrap

import pytest

from spec import objects
from spec.mqsc import parse
from spec.network import deliveries_of, run_scenario
from spec.network.steps import unmodelled_in
from spec.scenario import parse_scenario

PUBSUB_QUEUES = ("SYSTEM.INTER.QMGR.CONTROL", "SYSTEM.INTER.QMGR.FANREQ", "SYSTEM.INTER.QMGR.PUBS",
                 "SYSTEM.HIERARCHY.STATE")
ROOT_TOPICS = ("SYSTEM.BROKER.DEFAULT.STREAM", "SYSTEM.BROKER.DEFAULT.SUBPOINT")


def scenario(text: str):
    return parse_scenario(textwrap.dedent(text), "review35.toml")


def run_text(text: str) -> dict:
    final = run_scenario(scenario(text)).final
    return {"deliveries": deliveries_of(final), "errors": [(e.qmgr, e.code) for e in final.log], "final": final}


def one(command: str) -> tuple[objects.QueueManagerDef, objects.Outcome]:
    qm, (outcome,) = objects.apply_commands(objects.QueueManagerDef("QMA"), parse(command))
    return qm, outcome


def proxies_at(final, qmgr: str) -> list[tuple[str, str, str]]:
    return sorted(final.qmgr(qmgr).pubsub.proxies)


# ---------------------------------------------------------------------------------------
# 002 §Distributed publish/subscribe system queues: "Four system queues are used by queue
# managers for publish/subscribe messaging" (SYSTEM.INTER.QMGR.CONTROL, .FANREQ, .PUBS and
# SYSTEM.HIERARCHY.STATE, with MAXDEPTH 999999999 by default). 002 §Streams and topics
# ("Authorities"): "By default, at the root of the topic tree there are multiple topic
# objects: SYSTEM.BASE.TOPIC, SYSTEM.BROKER.DEFAULT.STREAM, and SYSTEM.BROKER.DEFAULT.SUBPOINT."
# ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", PUBSUB_QUEUES)
def test_the_publish_subscribe_system_queues_exist_so_altering_one_is_accepted(name):
    # it was AMQ8147 ("not found"), which a queue manager never says of these queues
    _, out = one(f"ALTER QLOCAL({name}) MAXDEPTH(999999999)")
    assert out.accepted, out.message
    assert isinstance(out.operation, objects.AlterDefaultObject)


@pytest.mark.parametrize("name", PUBSUB_QUEUES)
def test_the_publish_subscribe_system_queues_exist_so_defining_one_again_is_refused(name):
    qm, out = one(f"DEFINE QLOCAL({name})")
    assert (out.accepted, out.message) == (False, objects.AMQ8150(name))
    assert qm.queue(name) is None


def test_like_a_publish_subscribe_system_queue_is_a_local_queue():
    qm, out = one("DEFINE QLOCAL(MYPUBS) LIKE(SYSTEM.INTER.QMGR.PUBS)")
    assert out.accepted and qm.queue("MYPUBS").usage == "NORMAL"


@pytest.mark.parametrize("name", ROOT_TOPICS)
def test_the_root_topic_objects_exist(name):
    _, out = one(f"ALTER TOPIC({name}) PUBSCOPE(QMGR)")
    assert out.accepted and isinstance(out.operation, objects.AlterDefaultObject), out.message
    qm, out = one(f"DEFINE TOPIC({name}) TOPICSTR('x')")
    assert (out.accepted, out.message) == (False, objects.AMQ8150(name))
    assert qm.topic(name) is None


def test_altering_the_system_objects_in_a_scenario_logs_nothing_and_changes_no_route():
    """The root's attributes stay SYSTEM.BASE.TOPIC's: altering SYSTEM.BROKER.DEFAULT.STREAM
    does not keep QM2's publication at QM2 (002 §Streams and topics: authorities "on
    SYSTEM.BROKER.DEFAULT.STREAM or SYSTEM.BROKER.DEFAULT.SUBPOINT are ignored"), and the
    run says the ALTERs are not modelled."""
    text = """
        [qmgrs.QM1]
        [qmgrs.QM2]
        mqsc = '''
        ALTER QMGR PARENT(QM1)
        ALTER QLOCAL(SYSTEM.INTER.QMGR.PUBS) MAXDEPTH(5000)
        ALTER TOPIC(SYSTEM.BROKER.DEFAULT.STREAM) PUBSCOPE(QMGR)
        '''
        [[steps]]
        subscribe = { qmgr = "QM1", name = "S1", topic = "Sport/Soccer" }
        [[steps]]
        publish = { qmgr = "QM2", topic = "Sport/Soccer" }
        """
    got = run_text(text)
    assert got["errors"] == []
    assert got["deliveries"] == {"QM1": {"S1": ["Sport/Soccer"]}}
    notes = unmodelled_in(scenario(text))
    assert len(notes) == 2 and all("altering one of MQ's default objects" in n for n in notes)


# ---------------------------------------------------------------------------------------
# 002 §Inhibiting clustered publish/subscribe in a cluster: PSCLUS "is not intended to
# selectively disable publish/subscribe in a subset of queue managers in the cluster. Apart
# from anything else, this method would cause frequent error messages to be seen as proxy
# subscriptions and topic definitions would constantly be seen and rejected."
# ---------------------------------------------------------------------------------------
PSCLUS_PR = """
    [qmgrs.FR1]
    mqsc = '''
    ALTER QMGR REPOS(C)
    DEFINE CHANNEL(TO.FR1) CHLTYPE(CLUSRCVR) CONNAME('fr1(1414)') CLUSTER(C)
    '''
    [qmgrs.PR2]
    mqsc = '''
    ALTER QMGR PSCLUS(DISABLED)
    DEFINE CHANNEL(TO.PR2) CHLTYPE(CLUSRCVR) CONNAME('pr2(1414)') CLUSTER(C)
    DEFINE CHANNEL(TO.FR1) CHLTYPE(CLUSSDR) CONNAME('fr1(1414)') CLUSTER(C)
    '''
    [qmgrs.PR3]
    mqsc = '''
    DEFINE CHANNEL(TO.PR3) CHLTYPE(CLUSRCVR) CONNAME('pr3(1414)') CLUSTER(C)
    DEFINE CHANNEL(TO.FR1) CHLTYPE(CLUSSDR) CONNAME('fr1(1414)') CLUSTER(C)
    '''
    [[steps]]
    mqsc = { qmgr = "FR1", commands = "DEFINE TOPIC(T) TOPICSTR('t') CLUSTER(C)" }
    [[steps]]
    subscribe = { qmgr = "PR2", name = "S2", topic = "t/x" }
    [[steps]]
    publish = { qmgr = "FR1", topic = "t/x" }
"""


def test_a_partial_repository_with_psclus_disabled_logs_the_topic_definitions_it_rejects():
    got = run_text(PSCLUS_PR)
    seen = [e for e in got["final"].log if e.qmgr == "PR2" and e.code == "PSCLUS_DISABLED"]
    assert len(seen) == 1 and "cluster topic" in seen[0].detail and "FR1" in seen[0].detail, got["final"].log
    # rejected: publish/subscribe at PR2 does not use it (no proxy subscription, no publication)
    assert got["deliveries"] == {"PR2": {"S2": []}}
    assert proxies_at(got["final"], "FR1") == []
    # the members with PSCLUS(ENABLED) log nothing
    assert not [e for e in got["final"].log if e.qmgr != "PR2"]


def test_the_topic_definition_is_rejected_again_each_time_it_is_seen():
    """"constantly be seen and rejected": the host re-publishes its record (every 30 days)
    and PR2 logs it again; a copy already held (the same sequence number) is no new sight."""
    later = PSCLUS_PR + "[[steps]]\nadvance = { days = 31 }\n"
    got = run_text(later)
    seen = [e for e in got["final"].log if e.qmgr == "PR2" and e.code == "PSCLUS_DISABLED"]
    assert len(seen) == 2


# ---------------------------------------------------------------------------------------
# 002 §Topic spaces, Case 1, item 2: "If Alabama is a local definition, the cluster topic
# object Alabama is added. Unless the local definition is deleted, the remotely defined
# cluster topic object is ignored. The queue manager retains both definitions."
# ---------------------------------------------------------------------------------------
ALABAMA = """
    [qmgrs.QM1]
    mqsc = '''
    ALTER QMGR REPOS(C)
    DEFINE CHANNEL(TO.QM1) CHLTYPE(CLUSRCVR) CONNAME('qm1(1414)') CLUSTER(C)
    DEFINE TOPIC(ALABAMA) TOPICSTR('USA/Alabama') CLUSTER(C)
    '''
    [qmgrs.QM2]
    mqsc = '''
    DEFINE CHANNEL(TO.QM2) CHLTYPE(CLUSRCVR) CONNAME('qm2(1414)') CLUSTER(C)
    DEFINE CHANNEL(TO.QM1) CHLTYPE(CLUSSDR) CONNAME('qm1(1414)') CLUSTER(C)
    DEFINE TOPIC(ALABAMA) TOPICSTR('USA/Alabama')
    '''
    [[steps]]
    subscribe = { qmgr = "QM2", name = "S2", topic = "USA/Alabama/News" }
    [[steps]]
    publish = { qmgr = "QM1", topic = "USA/Alabama/News" }
    [[steps]]
    mqsc = { qmgr = "QM2", commands = "DELETE TOPIC(ALABAMA)" }
    [[steps]]
    publish = { qmgr = "QM1", topic = "USA/Alabama/News" }
"""


def test_deleting_the_local_definition_brings_the_retained_cluster_definition_into_use():
    got = run_text(ALABAMA)
    # before the DELETE the local ALABAMA governs and no proxy subscription went out; after
    # it the cluster ALABAMA (kept all along) does, so QM2's demand reaches QM1
    assert proxies_at(got["final"], "QM1") == [("QM2", "C", "USA/Alabama/News")]
    assert got["deliveries"] == {"QM2": {"S2": ["USA/Alabama/News"]}}
    assert got["errors"] == []


# ---------------------------------------------------------------------------------------
# 002 §More on routing mechanisms: "Even when PROXYSUB is set to FORCE, a proxy subscription
# for each individual topic string that is subscribed to continues to be propagated."
# ---------------------------------------------------------------------------------------
def test_force_does_not_stop_the_individual_proxy_subscriptions():
    got = run_text("""
        [qmgrs.QM1]
        mqsc = "DEFINE TOPIC(SPORT) TOPICSTR('Sport') PROXYSUB(FORCE)"
        [qmgrs.QM2]
        mqsc = "ALTER QMGR PARENT(QM1)"
        [[steps]]
        subscribe = { qmgr = "QM1", name = "S1", topic = "Sport/Soccer" }
        """)
    assert proxies_at(got["final"], "QM2") == [("QM1", "", "Sport/#"), ("QM1", "", "Sport/Soccer")]


# ---------------------------------------------------------------------------------------
# 002 §Proxy subscription aggregation and publication aggregation: "If a message is
# published on a queue manager that matches two or more proxy subscriptions created by a
# single connected queue manager, only one copy of the publication is forwarded to the
# remote queue manager to satisfy the multiple proxy subscriptions."
# ---------------------------------------------------------------------------------------
def test_one_copy_for_two_matching_wildcard_proxy_subscriptions_of_one_neighbour():
    got = run_text("""
        [qmgrs.QM1]
        [qmgrs.QM2]
        mqsc = "ALTER QMGR PARENT(QM1)"
        [[steps]]
        subscribe = { qmgr = "QM2", name = "HASH", topic = "a/#" }
        [[steps]]
        subscribe = { qmgr = "QM2", name = "PLUS", topic = "+/b" }
        [[steps]]
        publish = { qmgr = "QM1", topic = "a/b" }
        """)
    assert proxies_at(got["final"], "QM1") == [("QM2", "", "+/b"), ("QM2", "", "a/#")]
    # "On arrival of the message, the local queue manager delivers a copy of the message to
    # each matching subscription": one copy each, not two
    assert got["deliveries"] == {"QM2": {"HASH": ["a/b"], "PLUS": ["a/b"]}}


# ---------------------------------------------------------------------------------------
# 002 §Combining publication and subscription scopes: "If a publisher and a subscriber are
# both connected to the same queue manager, scope settings do not affect which publications
# the subscriber receives from that publisher."
# ---------------------------------------------------------------------------------------
def test_scopes_do_not_affect_a_publisher_and_subscriber_on_one_queue_manager():
    got = run_text("""
        [qmgrs.QM1]
        mqsc = "DEFINE TOPIC(A) TOPICSTR('a') PUBSCOPE(QMGR) SUBSCOPE(QMGR)"
        [[steps]]
        subscribe = { qmgr = "QM1", name = "TOPIC", topic = "a/b" }
        [[steps]]
        subscribe = { qmgr = "QM1", name = "OPTION", topic = "a/b", scope = "QMGR" }
        [[steps]]
        publish = { qmgr = "QM1", topic = "a/b", scope = "QMGR" }
        [[steps]]
        publish = { qmgr = "QM1", topic = "a/b" }
        """)
    assert got["deliveries"] == {"QM1": {"TOPIC": ["a/b", "a/b"], "OPTION": ["a/b", "a/b"]}}


# ---------------------------------------------------------------------------------------
# 002 §Publish/subscribe hierarchies: "WebSphere MQ hierarchical connections require that
# the queue manager attribute PSMODE is set to ENABLED"; §Disconnect a queue manager from a
# broker hierarchy: "ALTER QMGR PARENT('')".
# ---------------------------------------------------------------------------------------
HIERARCHY = """
    [qmgrs.QM1]
    mqsc = "ALTER QMGR PSMODE({parent})"
    [qmgrs.QM2]
    mqsc = '''
    ALTER QMGR PSMODE({child})
    ALTER QMGR PARENT(QM1)
    '''
    [[steps]]
    subscribe = {{ qmgr = "QM1", name = "S1", topic = "Sport/Soccer" }}
    [[steps]]
    subscribe = {{ qmgr = "QM2", name = "S2", topic = "Sport/Soccer" }}
    [[steps]]
    publish = {{ qmgr = "QM2", topic = "Sport/Soccer" }}
    [[steps]]
    publish = {{ qmgr = "QM1", topic = "Sport/Soccer" }}
"""


@pytest.mark.parametrize("parent,child,linked", [
    ("ENABLED", "ENABLED", True), ("COMPAT", "ENABLED", False), ("ENABLED", "COMPAT", False),
])
def test_a_hierarchy_link_needs_psmode_enabled_at_both_ends(parent, child, linked):
    got = run_text(HIERARCHY.format(parent=parent, child=child))
    each = ["Sport/Soccer"] * (2 if linked else 1)  # the other's publication too, when linked
    assert got["deliveries"] == {"QM1": {"S1": each}, "QM2": {"S2": each}}
    assert proxies_at(got["final"], "QM2") == ([("QM1", "", "Sport/Soccer")] if linked else [])
    assert proxies_at(got["final"], "QM1") == ([("QM2", "", "Sport/Soccer")] if linked else [])


def test_disconnecting_a_child_cancels_the_proxy_subscriptions_both_ways():
    got = run_text("""
        [qmgrs.QM1]
        [qmgrs.QM2]
        mqsc = "ALTER QMGR PARENT(QM1)"
        [[steps]]
        subscribe = { qmgr = "QM1", name = "S1", topic = "Sport/Soccer" }
        [[steps]]
        subscribe = { qmgr = "QM2", name = "S2", topic = "Sport/Soccer" }
        [[steps]]
        mqsc = { qmgr = "QM2", commands = "ALTER QMGR PARENT('')" }
        [[steps]]
        publish = { qmgr = "QM2", topic = "Sport/Soccer" }
        [[steps]]
        publish = { qmgr = "QM1", topic = "Sport/Soccer" }
        """)
    assert proxies_at(got["final"], "QM1") == [] and proxies_at(got["final"], "QM2") == []
    assert got["deliveries"] == {"QM1": {"S1": ["Sport/Soccer"]}, "QM2": {"S2": ["Sport/Soccer"]}}


# ---------------------------------------------------------------------------------------
# 002 §Multicast and subscription latency: "If PROXYSUB(FORCE) is set, a proxy subscription
# might be sent before the first local subscription or received proxy subscription, and
# will not be canceled even after the last local subscription or received proxy
# subscription is canceled."
# ---------------------------------------------------------------------------------------
def test_a_forced_proxy_subscription_comes_before_the_first_subscriber_and_outlives_the_last():
    base = """
        [qmgrs.QM1]
        [qmgrs.QM2]
        mqsc = '''
        ALTER QMGR PARENT(QM1)
        DEFINE TOPIC(SPORT) TOPICSTR('Sport') PROXYSUB(FORCE)
        '''
        """
    assert proxies_at(run_text(base)["final"], "QM1") == [("QM2", "", "Sport/#")]
    later = base + """
        [[steps]]
        subscribe = { qmgr = "QM2", name = "S2", topic = "Sport/Soccer" }
        [[steps]]
        unsubscribe = { qmgr = "QM2", name = "S2" }
        [[steps]]
        publish = { qmgr = "QM1", topic = "Sport/Rugby" }
        """
    got = run_text(later)
    assert proxies_at(got["final"], "QM1") == [("QM2", "", "Sport/#")]
    assert got["deliveries"] == {}


# ---------------------------------------------------------------------------------------
# 002 §Overlapping topics, "Cluster topics in a cluster": "If the topic is defined as a
# cluster topic on another queue manager in the cluster, it is an error. An error message is
# written to the error log of the queue manager that has an existing cluster definition."
# (Identical definitions are no error: 002 §Multiple cluster topic definitions limits it to
# definitions that "have differing attributes or exist in more than one cluster"; see
# tests/test_pubsub_seed_review.py.)
# ---------------------------------------------------------------------------------------
def test_the_host_with_the_existing_definition_logs_a_differing_second_definition():
    from test_pubsub_seed_review import two_hosts
    got = run_text(two_hosts(" PUBSCOPE(QMGR)"))
    assert ("HOST1", "TOPIC_CONFLICT") in got["errors"]


def test_a_newer_definition_elsewhere_does_not_override_the_hosts_own():
    """002 §Overlapping topics: "If you define a cluster topic on multiple queue managers in
    the cluster with different attributes, the latest definition does not override any
    earlier local definitions." (002 §Topic spaces, Case 1: "The locally defined topic is
    used, even if the object defined elsewhere is more recent.") HOST1 keeps its own
    PUBSCOPE; the others use HOST2's newer PUBSCOPE(QMGR)."""
    from test_pubsub_seed_review import two_hosts
    from spec.network.topology import pubsub_space
    final = run_text(two_hosts(" PUBSCOPE(QMGR)"))["final"]
    got = {q: pubsub_space(final.qmgr(q)).effective("News/Today", "pubscope") for q in ("HOST1", "HOST2", "PR3")}
    assert got == {"HOST1": "ALL", "HOST2": "QMGR", "PR3": "QMGR"}
