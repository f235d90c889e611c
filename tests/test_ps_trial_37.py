"""Session 37: a user trial of a mixed publish/subscribe estate (002's worked
configurations: clusters combined through hierarchies, scoped topics, PROXYSUB(FORCE),
queue managers leaving a hierarchy, loops, retained publications).

Each test is a defect the trial found, written before its fix, with the seed section in its
comment (002 = "Plan - WebSphere MQ v7.5").
"""

from __future__ import annotations

import textwrap

from checker.cli import _check_properties
from checker.explore import explore
from checker.model import Status
from spec.network import MQNetwork, deliveries_of, run_scenario
from spec.scenario import parse_scenario


def scenario(text: str, file: str = "trial37.toml"):
    return parse_scenario(textwrap.dedent(text), file)


def check(text: str):
    s = scenario(text)
    return explore(MQNetwork(s, _check_properties(s)), workers=1)


# ---------------------------------------------------------------------------------------
# 002 §Publication scope: "The scope of a publication controls whether queue managers
# forward a publication to remote queue managers" — a relay's PUBSCOPE(QMGR) stops a
# publication, and 002 §Combine and isolate topic spaces in multiple clusters relies on it
# (the bridge filters "which publications and subscriptions can flow"). A subscription it
# never reaches has not raced anything, PROXYSUB(FORCE) or not.
# ---------------------------------------------------------------------------------------
RELAY_PUBSCOPE_QMGR = """
    name = "A relay's PUBSCOPE(QMGR) under PROXYSUB(FORCE)"
    [qmgrs.HQ]
    mqsc = "DEFINE TOPIC(PRICES) TOPICSTR('Prices') PROXYSUB(FORCE)"
    [qmgrs.BRANCH]
    mqsc = '''
    ALTER QMGR PARENT(HQ)
    DEFINE TOPIC(INTERNAL) TOPICSTR('Prices/Internal') PUBSCOPE(QMGR)
    '''
    [qmgrs.SHOP]
    mqsc = "ALTER QMGR PARENT(BRANCH)"

    [[steps]]
    subscribe = { qmgr = "HQ", name = "ALLPRICES", topic = "Prices/#" }
    [[steps]]
    publish = { qmgr = "SHOP", topic = "Prices/Fruit" }
    [[steps]]
    publish = { qmgr = "SHOP", topic = "Prices/Internal/Cost" }

    [[expect]]
    deliveries = { HQ = { ALLPRICES = ["Prices/Fruit"] } }
"""


def test_a_relay_with_pubscope_qmgr_stops_the_publication():
    final = run_scenario(scenario(RELAY_PUBSCOPE_QMGR)).final
    assert deliveries_of(final)["HQ"] == {"ALLPRICES": ["Prices/Fruit"]}


def test_force_no_miss_knows_a_relay_pubscope_qmgr():
    # was: PS-FORCE-NO-MISS violated (and PS-MISSED-BEFORE-PROXY witnessed) by SHOP's
    # Prices/Internal/Cost, which BRANCH's PUBSCOPE(QMGR) keeps from HQ by rule, not by race
    r = check(RELAY_PUBSCOPE_QMGR)
    assert r.complete
    assert r.verdicts["EXPECT"].status is Status.HOLDS
    assert r.verdicts["PS-MISSED-BEFORE-PROXY"].status is Status.NEVER_REACHED
    assert r.verdicts["PS-FORCE-NO-MISS"].status is Status.HOLDS and not r.verdicts["PS-FORCE-NO-MISS"].vacuous


# ---------------------------------------------------------------------------------------
# 002 §Disconnect a queue manager from a broker hierarchy: the way 002 gives is ALTER QMGR
# PARENT('') at the child. An administrator who removes a child from the parent's side
# with RESET QMGR TYPE(PUBSUB) CHILD(...) (not in 002) got no word that nothing changed:
# the link stays and publications still flow. Said in a note, as other accepted commands
# with a bearing on what is modelled are.
# ---------------------------------------------------------------------------------------
RESET_CHILD = """
    name = "RESET QMGR TYPE(PUBSUB) at the parent"
    [qmgrs.QM1]
    mqsc = "RESET QMGR TYPE(PUBSUB) CHILD(QM2)"
    [qmgrs.QM2]
    mqsc = "ALTER QMGR PARENT(QM1)"
    [[steps]]
    mqsc = { qmgr = "QM1", commands = "reset qmgr type(pubsub) parent(QM0)" }
    [[steps]]
    mqsc = { qmgr = "QM1", commands = "RESET QMGR TYPE(STATISTICS)" }
"""


def test_reset_qmgr_type_pubsub_is_said_to_be_unmodelled():
    from spec.network.steps import unmodelled_in

    notes = [n for n in unmodelled_in(scenario(RESET_CHILD)) if "RESET QMGR TYPE(PUBSUB)" in n]
    assert [n.split(" (line")[0] for n in notes] == ["qmgrs.QM1", "steps[0]"]  # not TYPE(STATISTICS)
    assert all("PARENT('')" in n and "002 §Disconnect a queue manager from a broker hierarchy" in n for n in notes)


# ---------------------------------------------------------------------------------------
# 002 §Retained publications in a distributed publish/subscribe topology (a new proxy
# subscription is answered with the matching retained publications, decision B3) and
# §How loop detection works (the error log entry is for a publication that "has fully
# circulated around a loop"). In a hierarchy without a loop, a queue manager answered a new
# proxy subscription with the retained publication it had received from that very
# neighbour; the neighbour found its own fingerprint and logged LOOP_DETECTED, and the
# administrator went looking for a loop that is not there. A retained publication is not
# sent back to the neighbour it came from, as a live one is not (DESIGN §3.3 step 3).
# ---------------------------------------------------------------------------------------
RETAINED_TREE = """
    name = "A retained publication and later subscribers in a hierarchy"
    [qmgrs.HUB]
    [qmgrs.EU]
    mqsc = "ALTER QMGR PARENT(HUB)"
    [qmgrs.US]
    mqsc = "ALTER QMGR PARENT(HUB)"

    [[steps]]
    publish = { qmgr = "US", topic = "Rates/USD", retain = true }
    [[steps]]
    subscribe = { qmgr = "HUB", name = "ALLRATES", topic = "Rates/#" }
    [[steps]]
    wait = { until = "settled" }
    [[steps]]
    subscribe = { qmgr = "US", name = "MINE", topic = "Rates/USD" }
    [[steps]]
    wait = { until = "settled" }
    [[steps]]
    subscribe = { qmgr = "EU", name = "THEIRS", topic = "Rates/USD" }

    [[expect]]
    no_errors = true
    deliveries = { HUB = { ALLRATES = ["Rates/USD"] }, US = { MINE = ["Rates/USD"] }, EU = { THEIRS = ["Rates/USD"] } }
"""


def test_a_retained_publication_is_not_sent_back_to_where_it_came_from():
    final = run_scenario(scenario(RETAINED_TREE)).final
    assert [(e.qmgr, e.code) for e in final.log] == []  # was: US and HUB logged LOOP_DETECTED
    assert deliveries_of(final) == {"HUB": {"ALLRATES": ["Rates/USD"]}, "US": {"MINE": ["Rates/USD"]},
                                    "EU": {"THEIRS": ["Rates/USD"]}}


def test_a_retained_answer_still_carries_the_rules_in_every_interleaving():
    r = check(RETAINED_TREE)
    assert r.complete and not r.violations()
    assert r.verdicts["PS-RETAINED-REMOTE"].status is Status.WITNESSED


# ---------------------------------------------------------------------------------------
# DESIGN §3.3 / 002 §Overlapping cluster support, and publish/subscribe (one hop in a
# cluster: what arrived from a member of C is never relayed to members of C) and 002 §Topic
# spaces ("without delivering duplicate publications to the subscriber"). FR2 kept PUB's
# retained publication, which reached it over the cluster (PROXYSUB(FORCE): every member
# holds Prices/#), and answered SUB's new proxy subscription with it: a second cluster hop.
# When PUB's own copy was still on its way, TICKS received the one publication twice in a
# cluster without a loop. A retained publication is answered with only where it could
# have been relayed (the relay rules of ``pubsub._relay_allowed``).
# ---------------------------------------------------------------------------------------
FORCE_RETAINED = """
    name = "A retained publication in a PROXYSUB(FORCE) cluster"
    [qmgrs.FR1]
    mqsc = '''
    ALTER QMGR REPOS(PX)
    DEFINE CHANNEL(TO.FR1) CHLTYPE(CLUSRCVR) CONNAME('fr1(1414)') CLUSTER(PX)
    DEFINE CHANNEL(TO.FR2) CHLTYPE(CLUSSDR) CONNAME('fr2(1414)') CLUSTER(PX)
    DEFINE TOPIC(PRICES) TOPICSTR('Prices') CLUSTER(PX) PROXYSUB(FORCE)
    '''
    [qmgrs.FR2]
    mqsc = '''
    ALTER QMGR REPOS(PX)
    DEFINE CHANNEL(TO.FR2) CHLTYPE(CLUSRCVR) CONNAME('fr2(1414)') CLUSTER(PX)
    DEFINE CHANNEL(TO.FR1) CHLTYPE(CLUSSDR) CONNAME('fr1(1414)') CLUSTER(PX)
    '''
    [qmgrs.PUB]
    mqsc = '''
    DEFINE CHANNEL(TO.PUB) CHLTYPE(CLUSRCVR) CONNAME('pub(1414)') CLUSTER(PX)
    DEFINE CHANNEL(TO.FR1) CHLTYPE(CLUSSDR) CONNAME('fr1(1414)') CLUSTER(PX)
    '''
    [qmgrs.SUB]
    mqsc = '''
    DEFINE CHANNEL(TO.SUB) CHLTYPE(CLUSRCVR) CONNAME('sub(1414)') CLUSTER(PX)
    DEFINE CHANNEL(TO.FR2) CHLTYPE(CLUSSDR) CONNAME('fr2(1414)') CLUSTER(PX)
    '''

    [[steps]]
    subscribe = { qmgr = "SUB", name = "TICKS", topic = "Prices/IBM" }
    [[steps]]
    publish = { qmgr = "PUB", topic = "Prices/IBM", retain = true }

    [[expect]]
    no_errors = true
    deliveries = { SUB = { TICKS = ["Prices/IBM"] } }
"""


def test_a_retained_answer_keeps_the_one_hop_rule():
    r = check(FORCE_RETAINED)
    assert r.complete
    assert r.verdicts["EXPECT"].status is Status.HOLDS  # was: TICKS got PUB#0 twice (FR2's answer, PUB's copy)
    assert r.verdicts["PS-ONE-HOP-CLUSTER"].status is Status.HOLDS


# ---------------------------------------------------------------------------------------
# An estate's MQSC from MQ 8 or later (dmpmqcfg writes every topic attribute) carries
# CLROUTE(DIRECT) on each DEFINE TOPIC; mqcheck called it "not an attribute of TOPIC (did
# you mean CLUSTER?)". 002 (v7.5) routes publications directly between members of a
# publish/subscribe cluster (§How does distributed publish/subscribe work?) and 001
# names topic host routing ("If the local queue manager is not a host for this topic, the
# algorithm is used to choose a host queue manager"), which is not modelled: DIRECT is what
# the model does, TOPICHOST is accepted with a note, anything else is refused as runmqsc does.
# ---------------------------------------------------------------------------------------
def test_clroute_direct_is_accepted():
    from spec.mqsc import parse

    (cmd,) = parse("DEFINE TOPIC(USA) TOPICSTR('USA') CLUSTER(C1) CLROUTE(DIRECT)")
    assert cmd.get("CLROUTE") == "DIRECT"


def test_clroute_topichost_is_accepted_with_a_note():
    from spec.network.steps import unmodelled_in

    s = scenario("""
        name = "topic host routing"
        [qmgrs.QM1]
        mqsc = '''
        DEFINE TOPIC(USA) TOPICSTR('USA') CLUSTER(C1) CLROUTE(TOPICHOST)
        DEFINE TOPIC(UK) TOPICSTR('UK') CLUSTER(C1) CLROUTE(DIRECT)
        '''
    """)
    notes = [n for n in unmodelled_in(s) if "CLROUTE" in n]
    assert len(notes) == 1 and notes[0].startswith("qmgrs.QM1 (line ") and "TOPIC(USA)" in notes[0]
    assert "routed directly" in notes[0]


def test_clroute_with_another_value_is_refused_at_its_line_and_column():
    import pytest

    from spec.errors import InputError
    from spec.mqsc import parse

    with pytest.raises(InputError) as e:
        parse("DEFINE TOPIC(USA) TOPICSTR('USA') CLROUTE(HOST)", file="t.mqsc")
    assert str(e.value).startswith("t.mqsc:1:43: DEFINE TOPIC(USA): CLROUTE(HOST) is not valid; "
                                   "expected CLROUTE(DIRECT|TOPICHOST)")


# ---------------------------------------------------------------------------------------
# 002 §Publication scope: PUBSCOPE "controls whether queue managers forward a publication to
# remote queue managers" (a relay's included, as the first test above). A retained answer
# relayed by BRANCH, whose PUBSCOPE for the topic is QMGR, reached HQ, though SHOP's live
# publication on the same topic never does: the answer is forwarded as a publication is.
# ---------------------------------------------------------------------------------------
RETAINED_THROUGH_PUBSCOPE_QMGR = """
    name = "A retained answer through a PUBSCOPE(QMGR) relay"
    [qmgrs.HQ]
    [qmgrs.BRANCH]
    mqsc = '''
    ALTER QMGR PARENT(HQ)
    DEFINE TOPIC(INTERNAL) TOPICSTR('Prices/Internal') PUBSCOPE(QMGR)
    '''
    [qmgrs.SHOP]
    mqsc = "ALTER QMGR PARENT(BRANCH)"

    [[steps]]
    publish = { qmgr = "SHOP", topic = "Prices/Internal/Cost", retain = true }
    [[steps]]
    subscribe = { qmgr = "BRANCH", name = "MID", topic = "Prices/Internal/#" }
    [[steps]]
    subscribe = { qmgr = "HQ", name = "TOP", topic = "Prices/Internal/#" }
    [[steps]]
    wait = { until = "settled" }
    [[steps]]
    publish = { qmgr = "SHOP", topic = "Prices/Internal/Cost", retain = true }

    [[expect]]
    no_errors = true
    deliveries = { BRANCH = { MID = ["Prices/Internal/Cost", "Prices/Internal/Cost"] }, HQ = { TOP = [] } }
"""


def test_a_retained_answer_is_not_relayed_past_pubscope_qmgr():
    final = run_scenario(scenario(RETAINED_THROUGH_PUBSCOPE_QMGR)).final
    assert deliveries_of(final) == {"BRANCH": {"MID": ["Prices/Internal/Cost", "Prices/Internal/Cost"]},
                                    "HQ": {"TOP": []}}  # was: TOP got SHOP's retained publication
    r = check(RETAINED_THROUGH_PUBSCOPE_QMGR)
    assert r.complete and r.verdicts["EXPECT"].status is Status.HOLDS


def test_only_a_retained_publication_that_came_from_the_requester_is_kept_from_it():
    # an MQACTP_FORWARD republication made here keeps the chain it continues (002 §Loop
    # detection fingerprint format): a requester whose fingerprint is in it is on a real loop
    from spec import objects, pubsub
    from spec.topic_tree import TopicSpace

    space = TopicSpace(objects.QueueManagerDef("HUB").topics)
    came = pubsub.Publication("Rates/USD", "US", 0, True, ("US_1",), came_from="US")
    republished = pubsub.Publication("Rates/USD", "HUB", 0, True, ("US_1",))
    for pub, sent in ((came, 0), (republished, 1)):
        ps = pubsub.retain(pubsub.LocalPubSub(), pub)
        assert len(pubsub.retained_for(space, ps, "Rates/#", "HUB", "HUB_1", "", "US_1", sender="US")) == sent
