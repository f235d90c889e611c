"""A queue manager's topic space and local publish/subscribe, on 002's worked examples.

These drive spec.topic_tree and spec.pubsub directly with small topic objects; the same
examples run end to end from MQSC in tests/test_run.py.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from hypothesis import given, strategies as st

from spec.pubsub import LocalPubSub, Publication, Subscription, effective_scope, publish, recipients, subscribe, unsubscribe
from spec.topic_tree import TopicSpace, is_blocked, node_of
from spec.topics import topic_matches


@dataclass(frozen=True)
class T:
    """A topic object with MQ's defaults (DESIGN §3.2)."""

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

# 002 §Example: Create the Sport publish/subscribe cluster, Figure 7 topics.tst
SPORTS_TOPICS = (
    BASE,
    T("Sports", "Sports"),
    T("Football", "Sports/Football", cluster="CL1", wildcard="BLOCK"),
    T("Arsenal", "Sports/Football/Arsenal"),
    T("Blackburn", "Sports/Football/Blackburn"),
    T("Chelsea", "Sports/Football/Chelsea"),
    T("Rugby", "Sports/Rugby", cluster="CL1"),
    T("Leeds", "Sports/Rugby/Leeds"),
    T("Wigan", "Sports/Rugby/Wigan"),
    T("Warrington", "Sports/Rugby/Warrington"),
    T("St. Helens", "Sports/Rugby/St. Helens"),
)
SPORTS = TopicSpace(SPORTS_TOPICS)
# Figure 12 pub.bat publishes these five topics on QMA
SPORTS_PUBLICATIONS = ("Sports", "Sports/Football", "Sports/Football/Arsenal", "Sports/Rugby", "Sports/Rugby/Leeds")


def run_subs(space, subs, topics, new_only=False):
    ps = LocalPubSub()
    for sub in subs:
        ps, errs = subscribe(space, ps, sub, new_only)
        assert errs == ()
    for serial, topic in enumerate(topics):
        ps, errs = publish(space, ps, Publication(topic, "QMA", serial))
        assert errs == ()
    received: dict[str, list[str]] = {s.name: [] for s in subs}
    for d in ps.deliveries:
        received[d.subscription].append(d.topic)
    return received


# ---------------------------------------------------------------------------------------
# 002 §Controlling wildcard usage with the WILDCARD property — "Publications received on QMA"
# ---------------------------------------------------------------------------------------
QMA_TABLE = [
    # (subscription, topic string, publications received, note)
    ("SPORTS", "Sports/#", ["Sports", "Sports/Rugby", "Sports/Rugby/Leeds"],
     "All publications to Football subtree blocked by WILDCARD(BLOCK) on Sports/Football"),
    ("SARSENAL", "Sports/#/Arsenal", [], "WILDCARD(BLOCK) on Sports/Football prevents wildcard subscription on Arsenal"),
    ("SLEEDS", "Sports/#/Leeds", ["Sports/Rugby/Leeds"], "Default WILDCARD on Sports/Rugby does not prevent wildcard subscription on Leeds"),
    # second table (after upsubs): the subscriptions without wildcards
    ("FARSENAL", "Sports/Football/Arsenal", ["Sports/Football/Arsenal"], "Arsenal receives a publication because the subscription does not have a wildcard"),
    ("FLEEDS", "Sports/Rugby/Leeds", ["Sports/Rugby/Leeds"], "Leeds would receive a publication in any event"),
    # Figure 8 wildsubs.tst spells the wildcard subscriptions with '+': same results
    ("SARSENAL+", "Sports/+/Arsenal", [], "Figure 8 spelling"),
    ("SLEEDS+", "Sports/+/Leeds", ["Sports/Rugby/Leeds"], "Figure 8 spelling"),
    # §Controlling wildcard usage: "a subscription such as Sports/Football/# can receive publications"
    ("SFOOTBALL", "Sports/Football/#", ["Sports/Football", "Sports/Football/Arsenal"], "names the BLOCK topic explicitly"),
    # "A subscriber using the wildcard topic string # receives all publications to the Sport topic and the Sport/Rugby subtree"
    ("ALL", "#", ["Sports", "Sports/Rugby", "Sports/Rugby/Leeds"], "# is blocked below Sports/Football"),
]


@pytest.mark.parametrize("name,topic,expected,note", QMA_TABLE, ids=[r[0] for r in QMA_TABLE])
def test_sports_qma_table(name, topic, expected, note):
    got = run_subs(SPORTS, [Subscription(name, topic)], SPORTS_PUBLICATIONS)
    assert got[name] == expected, note


def test_sports_qma_all_subscriptions_together():
    subs = [Subscription(n, t) for n, t, *_ in QMA_TABLE[:5]]
    got = run_subs(SPORTS, subs, SPORTS_PUBLICATIONS)
    assert got == {n: e for n, _, e, _ in QMA_TABLE[:5]}


# ---------------------------------------------------------------------------------------
# Resolution (002 §Wildcards and cluster topics, §Topics, §Administrative topic objects)
# ---------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "subscription,scheme,object_name",
    [
        ("Sports/#/Leeds", "topic", "Sports"),  # truncated to Sports, which HAS an object here
        ("Sports/Football/Arsenal", "topic", "Arsenal"),
        ("Sports/Rugby/#", "topic", "Rugby"),
        ("#", "topic", "SYSTEM.BASE.TOPIC"),
        ("Sports/Rugby/Le*", "char", "Rugby"),
        ("Sports/Cricket/Lords", "topic", "Sports"),
    ],
)
def test_subscription_resolution(subscription, scheme, object_name):
    assert SPORTS.resolve_subscription(subscription, scheme).name == object_name


def test_sports_hash_leeds_resolves_to_base_without_a_sports_object():
    # 002: "the topic string after truncation is Sports, which has no topic object, and so
    # Sports/#/Leeds inherits from SYSTEM.BASE.TOPIC" (QMB has no topics.tst)
    space = TopicSpace((BASE, T("Rugby", "Sports/Rugby", cluster="CL1")))
    assert space.resolve_subscription("Sports/#/Leeds").name == "SYSTEM.BASE.TOPIC"
    assert space.cluster_of("Sports/Rugby/Leeds") == "CL1"
    assert space.cluster_of("Sports") == ""


def test_asparent_inheritance_dursub():
    # 002 §Administrative topic objects, "Inheriting attributes": FOOTBALL.EUROPEAN
    # (Sport/Soccer) DURSUB(NO); children inherit NO, Sport/Tennis inherits YES from the base.
    space = TopicSpace((BASE, T("FOOTBALL.EUROPEAN", "Sport/Soccer", dursub="NO")))
    assert space.effective("Sport/Soccer/TeamX/Results", "dursub") == "NO"
    assert space.effective("Sport/Tennis/PlayerB/Results", "dursub") == "YES"
    ps, errs = subscribe(space, LocalPubSub(), Subscription("D1", "Sport/Soccer/TeamX/Results", durable=True))
    assert [e.code for e in errs] == ["MQRC_DURABILITY_NOT_ALLOWED"]
    ps, errs = subscribe(space, ps, Subscription("D2", "Sport/Tennis/PlayerB/Results", durable=True))
    assert errs == ()
    ps, errs = subscribe(space, ps, Subscription("N1", "Sport/Soccer/TeamX/Results", durable=False))
    assert errs == ()


def test_local_object_beats_cluster_record_and_latest_cluster_record_wins():
    local = T("LOCAL.RUGBY", "Sports/Rugby", subscope="QMGR")
    old = T("RUGBY.V1", "Sports/Rugby", cluster="CL1", subscope="ALL")
    new = T("RUGBY.V2", "Sports/Rugby", cluster="CL1", subscope="QMGR")
    assert TopicSpace((BASE, local), (new,)).resolve_topic("Sports/Rugby").name == "LOCAL.RUGBY"
    space = TopicSpace((BASE,), (old, new))
    assert space.resolve_topic("Sports/Rugby/Leeds").name == "RUGBY.V2"
    (conflict,) = space.conflicts()
    assert conflict.topicstr == "Sports/Rugby" and conflict.winner == "RUGBY.V2"


def test_empty_first_level_is_not_the_root():
    space = TopicSpace((BASE, T("EMPTYROOT", "/Football", subscope="QMGR")))
    assert node_of("/Football") == ("", "Football")
    assert space.resolve_topic("/Football/Scores").name == "EMPTYROOT"
    assert space.resolve_topic("Football/Scores").name == "SYSTEM.BASE.TOPIC"


# ---------------------------------------------------------------------------------------
# WILDCARD is captured at subscription creation (002: "If you alter this attribute, the
# set of topics covered by existing subscriptions is not affected by the modification")
# ---------------------------------------------------------------------------------------
def test_wildcard_block_captured_at_creation():
    before = TopicSpace((BASE,))
    after = TopicSpace((BASE, T("Football", "Sports/Football", wildcard="BLOCK")))
    ps, _ = subscribe(before, LocalPubSub(), Subscription("EARLY", "Sports/#"))
    ps, _ = subscribe(after, ps, Subscription("LATE", "Sports/#"))
    assert [s.name for s in recipients(after, ps, "Sports/Football/Arsenal")] == ["EARLY"]
    assert [s.name for s in recipients(after, ps, "Sports/Rugby")] == ["EARLY", "LATE"]


def test_block_node_outside_the_subscription_prefix_is_not_captured():
    assert SPORTS.blocking_nodes("Sports/Rugby/#") == ()
    assert SPORTS.blocking_nodes("Sports/#") == (("Sports", "Football"),)
    assert SPORTS.blocking_nodes("Sports/Football/Arsenal") == ()


# ---------------------------------------------------------------------------------------
# Grouped subscriptions (002 §Overlapping topics; DESIGN §3.3 step 2)
# ---------------------------------------------------------------------------------------
def test_grouped_subscriptions_most_specific_wins():
    subs = [
        Subscription("B", "Football/#", group="G"),
        Subscription("C", "Football/result/Newport/Cardiff", group="G"),
        Subscription("X", "Football/matches/+/Cardiff", group="G"),  # longer literal prefix than B
    ]
    got = run_subs(TopicSpace((BASE,)), subs, ["Football/result/Newport/Cardiff", "Football/matches/Newport/Cardiff"])
    # C (no wildcard) beats B for the first publication: one copy only; X's two literal
    # levels beat B's one for the second
    assert got == {"B": [], "C": ["Football/result/Newport/Cardiff"], "X": ["Football/matches/Newport/Cardiff"]}


def test_grouped_most_specific_but_ineligible_gets_nothing():
    # "The more specific subscription wins, and the publication is discarded" (topic D case):
    # the most specific member is blocked, so nobody in the group receives it.
    space = TopicSpace((BASE, T("F", "Football/matches", wildcard="BLOCK")))
    subs = [Subscription("WIDE", "Football/#", group="G"), Subscription("NARROW", "Football/+/Newport", group="G")]
    got = run_subs(space, subs, ["Football/matches/Newport"])
    assert got == {"WIDE": [], "NARROW": []}
    ungrouped = [Subscription("WIDE", "Football/#"), Subscription("OTHER", "Football/matches/#")]
    assert run_subs(space, ungrouped, ["Football/matches/Newport"]) == {"WIDE": [], "OTHER": ["Football/matches/Newport"]}


def test_grouped_equal_literal_prefixes_go_to_definition_order():
    # DESIGN §3.3: no wildcard beats wildcard, longer literal prefix beats shorter, then
    # definition order — 'Football/#' and 'Football/+/x' both have one literal level.
    subs = [Subscription("HASH", "Football/#", group="G"), Subscription("PLUS", "Football/+/x", group="G")]
    assert run_subs(TopicSpace((BASE,)), subs, ["Football/a/x"]) == {"HASH": ["Football/a/x"], "PLUS": []}


def test_grouped_ties_go_to_definition_order():
    subs = [Subscription("FIRST", "a/+", group="G"), Subscription("SECOND", "a/+", group="G")]
    assert run_subs(TopicSpace((BASE,)), subs, ["a/b"]) == {"FIRST": ["a/b"], "SECOND": []}


# ---------------------------------------------------------------------------------------
# Retained publications (002 §Retained publications)
# ---------------------------------------------------------------------------------------
def test_retained_newest_per_topic_and_new_subscriptions_receive_it():
    space = TopicSpace((BASE,))
    ps = LocalPubSub()
    for serial, topic in enumerate(["Price/IBM", "Price/IBM", "Price/HP"]):
        ps, _ = publish(space, ps, Publication(topic, "QM1", serial, retain=True))
    assert [(p.topic, p.serial) for p in ps.retained] == [("Price/HP", 2), ("Price/IBM", 1)]
    ps, _ = subscribe(space, ps, Subscription("ALLPRICES", "Price/#"))
    assert [(d.topic, d.serial, d.retained) for d in ps.deliveries] == [("Price/HP", 2, True), ("Price/IBM", 1, True)]
    ps, _ = subscribe(space, ps, Subscription("NEWONLY", "Price/#"), new_publications_only=True)
    assert [d.subscription for d in ps.deliveries] == ["ALLPRICES", "ALLPRICES"]


def test_put_and_sub_inhibited():
    space = TopicSpace((BASE, T("NOPUB", "Closed", pub="DISABLED", sub="DISABLED")))
    _, errs = publish(space, LocalPubSub(), Publication("Closed/x", "QM1", 0))
    assert [e.code for e in errs] == ["MQRC_PUT_INHIBITED"]
    _, errs = subscribe(space, LocalPubSub(), Subscription("S", "Closed/#"))
    assert [e.code for e in errs] == ["MQRC_SUB_INHIBITED"]


def test_duplicate_name_and_unsubscribe():
    space = TopicSpace((BASE,))
    ps, _ = subscribe(space, LocalPubSub(), Subscription("S", "a"))
    _, errs = subscribe(space, ps, Subscription("S", "b"))
    assert [e.code for e in errs] == ["MQRC_SUB_ALREADY_EXISTS"]
    ps, errs = unsubscribe(ps, "S")
    assert errs == () and ps.subscriptions == ()
    _, errs = unsubscribe(ps, "S")
    assert [e.code for e in errs] == ["MQRC_NO_SUBSCRIPTION"]


def test_remote_publications_need_subscope_all():
    space = TopicSpace((BASE, T("LOCALONLY", "Results", subscope="QMGR")))
    ps = LocalPubSub()
    for sub in [Subscription("A", "Results/#"), Subscription("B", "Other/#"), Subscription("C", "Other/#", scope="QMGR")]:
        ps, _ = subscribe(space, ps, sub)
    assert effective_scope(space, ps.subscriptions[0]) == "QMGR"
    remote_names = lambda topic: [s.name for s in recipients(space, ps, topic, remote=True)]  # noqa: E731
    assert remote_names("Results/x") == []
    assert remote_names("Other/x") == ["B"]
    assert [s.name for s in recipients(space, ps, "Other/x")] == ["B", "C"]


# ---------------------------------------------------------------------------------------
# Hypothesis: ungrouped delivery is exactly "matches and not blocked"
# ---------------------------------------------------------------------------------------
LEVELS = st.sampled_from(["Sports", "Football", "Rugby", "Leeds", "Arsenal"])
topics = st.lists(LEVELS, min_size=1, max_size=4).map("/".join)
subs_text = st.lists(st.sampled_from(["Sports", "Football", "Rugby", "Leeds", "#", "+"]), min_size=1, max_size=4).map("/".join)


@given(st.lists(subs_text, min_size=1, max_size=5), st.lists(topics, min_size=1, max_size=5))
def test_ungrouped_delivery_is_match_minus_block(subs, pubs):
    subscriptions = [Subscription(f"S{i}", s) for i, s in enumerate(subs)]
    got = run_subs(SPORTS, subscriptions, pubs)
    for sub in subscriptions:
        blocking = SPORTS.blocking_nodes(sub.topic)
        expected = [t for t in pubs if topic_matches(sub.topic, t) and not is_blocked(blocking, t)]
        assert got[sub.name] == expected
