"""Distributed publish/subscribe on the network model (DESIGN §3.3): 002's worked
examples as scenarios with exact expected deliveries, the RFH2 fingerprint folder, and
the proxy-subscription data model."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from checker.cli import main
from spec import pubsub
from spec.scenario import load_scenario, parse_scenario
from spec.network import deliveries_of, run_scenario

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"


def run_json(capsys, name: str) -> tuple[int, dict]:
    code = main(["run", str(EXAMPLES / name), "--json"])
    return code, json.loads(capsys.readouterr().out)


# ---------------------------------------------------------------------------------------
# 002 §Wildcards and cluster topics: the Sport cluster, both phases, QMA and QMB
# ---------------------------------------------------------------------------------------
QMA_TABLE = {  # "Publications received on QMA"
    "SPORTS": ["Sports", "Sports/Rugby", "Sports/Rugby/Leeds"],
    "SARSENAL": [],
    "SLEEDS": ["Sports/Rugby/Leeds"],
}
QMB_BEFORE = {"SPORTS": [], "SARSENAL": [], "SLEEDS": []}  # "QMB received no publications"
QMB_AFTER = {  # "Publications received on QMB"
    "SPORTS": ["Sports/Rugby/Leeds"],
    "SARSENAL": [],
    "SLEEDS": ["Sports/Rugby/Leeds"],
    "FARSENAL": ["Sports/Football/Arsenal"],
    "FLEEDS": ["Sports/Rugby/Leeds"],
}


def test_sports_cluster_before_the_cluster_topic_subscriptions(capsys):
    code, data = run_json(capsys, "ps-sports-cluster-before.toml")
    assert code == 0
    assert data["deliveries"] == {"QMA": QMA_TABLE, "QMB": QMB_BEFORE}
    assert data["errors"] == [] and data["unmodelled"] == []


def test_sports_cluster_after_the_cluster_topic_subscriptions(capsys):
    code, data = run_json(capsys, "ps-sports-cluster.toml")
    assert code == 0
    qma_after = dict(QMA_TABLE, FARSENAL=["Sports/Football/Arsenal"], FLEEDS=["Sports/Rugby/Leeds"])
    assert data["deliveries"] == {"QMA": qma_after, "QMB": QMB_AFTER}
    assert data["errors"] == []


def test_sports_cluster_proxy_subscriptions_are_the_cluster_topic_ones():
    # "QMB forwarded proxy subscriptions for Sports/Football/Arsenal and Sports/Rugby/Leeds
    # to QMA"; the wildcard subscriptions resolve to SYSTEM.BASE.TOPIC and send none
    final = run_scenario(load_scenario(EXAMPLES / "ps-sports-cluster.toml")).final
    qma = final.qmgr("QMA").pubsub
    from_qmb = sorted(t for n, v, t in qma.proxies if n == "QMB")
    assert from_qmb == ["Sports/Football/Arsenal", "Sports/Rugby/Leeds"]
    assert all(v == "CL1" for _, v, _ in qma.proxies)


# ---------------------------------------------------------------------------------------
# 002 §Publish/subscribe hierarchies and §How loop detection works
# ---------------------------------------------------------------------------------------
def test_hierarchy_scenario_1(capsys):
    code, data = run_json(capsys, "ps-hierarchy-three.toml")
    assert code == 0
    assert data["deliveries"] == {"QM1": {"SUB1": ["Sport/Soccer"]}, "QM3": {"SUB3": ["Sport/Soccer"]}}


def test_hierarchy_loop_duplicates_and_origin_discards(capsys):
    code, data = run_json(capsys, "ps-hierarchy-loop.toml")
    assert code == 0
    assert data["deliveries"] == {
        "QM1": {"S1": ["Price/Fruit"]},
        "QM2": {"S2": ["Price/Fruit", "Price/Fruit"]},
        "QM3": {"S3": ["Price/Fruit", "Price/Fruit"]},
    }
    assert [(e["qmgr"], e["code"]) for e in data["errors"]] == [("QM1", "LOOP_DETECTED")] * 2


# ---------------------------------------------------------------------------------------
# 002 §Loop detection fingerprint format: the RFH2 <ibm> folder
# ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("fps", [(), ("QMA_1",), ("QMA_1", "QMB_2", "QMC_1")])
def test_rfp_folder_round_trip(fps):
    folder = pubsub.encode_rfp_folder(fps)
    assert pubsub.decode_rfp_folder(folder) == fps
    assert pubsub.parse_rfh2(pubsub.rfh2_bytes(fps)) == fps
    raw = pubsub.rfh2_bytes(fps)
    assert raw[:4] == b"RFH " and len(raw) % 4 == 0


def test_rfp_folder_as_002_prints_it():
    text = " <ibm>\n  <Rfp>uuid1</Rfp>\n  <Rfp>uuid2</Rfp>\n  <Rfp>uuid3</Rfp>\n</ibm>"
    assert pubsub.decode_rfp_folder(text) == ("uuid1", "uuid2", "uuid3")


@pytest.mark.parametrize("bad", ["", "<ibm>", "<ibm><Rfp>x</ibm>", "<ibm><Rfp></Rfp></ibm>", "<mcd></mcd>",
                                 "<ibm>junk</ibm>"])
def test_rfp_folder_refuses_malformed(bad):
    with pytest.raises(ValueError):
        pubsub.decode_rfp_folder(bad)


def run_text(text: str) -> dict:
    report = run_scenario(parse_scenario(textwrap.dedent(text), "t.toml"))
    return {"deliveries": deliveries_of(report.final), "errors": [(e.qmgr, e.code) for e in report.final.log],
            "final": report.final}


# ---------------------------------------------------------------------------------------
# 002 §Publish/subscribe hierarchy example: Scenario 3 (the hierarchy's channels are
# cluster channels of DEMO; FOOTBALL is not a cluster topic, so only the hierarchy carries it)
# ---------------------------------------------------------------------------------------
def test_hierarchy_scenario_3_over_cluster_channels():
    got = run_text("""
        [qmgrs.QM1]
        mqsc = '''
        ALTER QMGR PSMODE(ENABLED) REPOS(DEMO)
        DEFINE CHANNEL(TO.QM1) CHLTYPE(CLUSRCVR) TRPTYPE(TCP) CONNAME('localhost(9999)') CLUSTER(DEMO)
        DEFINE CHANNEL(TO.QM2) CHLTYPE(CLUSSDR) TRPTYPE(TCP) CONNAME('localhost(7777)') CLUSTER(DEMO)
        DEFINE TOPIC(FOOTBALL) TOPICSTR('Sport/Soccer')
        '''
        [qmgrs.QM2]
        mqsc = '''
        ALTER QMGR PSMODE(ENABLED) REPOS(DEMO) PARENT(QM1)
        DEFINE CHANNEL(TO.QM2) CHLTYPE(CLUSRCVR) TRPTYPE(TCP) CONNAME('localhost(7777)') CLUSTER(DEMO)
        DEFINE CHANNEL(TO.QM1) CHLTYPE(CLUSSDR) TRPTYPE(TCP) CONNAME('localhost(9999)') CLUSTER(DEMO)
        '''
        [qmgrs.QM3]
        mqsc = '''
        ALTER QMGR PSMODE(ENABLED) PARENT(QM1)
        DEFINE CHANNEL(TO.QM3) CHLTYPE(CLUSRCVR) TRPTYPE(TCP) CONNAME('localhost(8888)') CLUSTER(DEMO)
        DEFINE CHANNEL(TO.QM1) CHLTYPE(CLUSSDR) TRPTYPE(TCP) CONNAME('localhost(9999)') CLUSTER(DEMO)
        '''
        [[steps]]
        subscribe = { qmgr = "QM1", name = "SUB1", topic = "Sport/Soccer" }
        [[steps]]
        subscribe = { qmgr = "QM3", name = "SUB3", topic = "Sport/Soccer" }
        [[steps]]
        publish = { qmgr = "QM2", topic = "Sport/Soccer" }
    """)
    assert got["deliveries"] == {"QM1": {"SUB1": ["Sport/Soccer"]}, "QM3": {"SUB3": ["Sport/Soccer"]}}
    assert got["errors"] == []


# ---------------------------------------------------------------------------------------
# 002 §Combining publication and subscription scopes, §Publication scope, §Subscription
# scope; §Combine and isolate topic spaces in multiple clusters; §Overlapping cluster support
# ---------------------------------------------------------------------------------------
def test_football_results_service(capsys):
    code, data = run_json(capsys, "ps-football-results.toml")
    assert code == 0
    assert data["deliveries"] == {
        "LEEDS": {"ALLRESULTS": ["Football/result/Leeds/Wigan", "Football/result/Wigan/Leeds"],
                  "HOMERESULTS": ["Football/result/Leeds/Wigan"], "MYTEAM": ["Football/myteam/Leeds/Wigan"]},
        "WIGAN": {"ALLRESULTS": ["Football/result/Leeds/Wigan", "Football/result/Wigan/Leeds"],
                  "MYTEAM": ["Football/myteam/Wigan/Leeds"]},
    }


def test_clusters_joined_by_a_hierarchy(capsys):
    code, data = run_json(capsys, "ps-clusters-joined.toml")
    assert code == 0 and data["deliveries"] == {"PB": {"TEXAS": ["USA/Texas"]}}


def test_clusters_isolated_by_a_bridge(capsys):
    code, data = run_json(capsys, "ps-clusters-bridged.toml")
    assert code == 0 and data["deliveries"] == {"PB": {"TEXAS": ["USA/Texas"], "TIMES": []}}


def test_overlapping_clusters_sport_wildcard(capsys):
    code, data = run_json(capsys, "ps-overlapping-sport.toml")
    assert code == 0
    assert data["deliveries"] == {
        "QM3": {"SPORT": ["/Sport/Football", "/Sport/Tennis"], "FOOTBALL": ["/Sport/Football"],
                "TENNIS": ["/Sport/Tennis"]},
        "QM4": {"SPORTONLY": []},
    }


HIER = """
    [qmgrs.QM1]
    mqsc = '''{qm1}'''
    [qmgrs.QM2]
    mqsc = '''ALTER QMGR PARENT(QM1)
    {qm2}'''
"""


@pytest.mark.parametrize("qm1,qm2,steps,expected", [
    # MQPMO_SCOPE_QMGR overrides PUBSCOPE(ALL): only local subscribers
    ("", "", '[[steps]]\nsubscribe = { qmgr = "QM2", name = "S", topic = "a/b" }\n'
             '[[steps]]\npublish = { qmgr = "QM1", topic = "a/b", scope = "QMGR" }\n', {"QM2": {"S": []}}),
    # PUBSCOPE(QMGR) at the publisher, inherited through ASPARENT below it
    ("DEFINE TOPIC(A) TOPICSTR('a') PUBSCOPE(QMGR)\nDEFINE TOPIC(AB) TOPICSTR('a/b')", "",
     '[[steps]]\nsubscribe = { qmgr = "QM2", name = "S", topic = "a/b" }\n'
     '[[steps]]\npublish = { qmgr = "QM1", topic = "a/b" }\n', {"QM2": {"S": []}}),
    # SUBSCOPE(QMGR) at the subscriber: no proxy subscription, only local publications
    ("", "DEFINE TOPIC(A) TOPICSTR('a') SUBSCOPE(QMGR)",
     '[[steps]]\nsubscribe = { qmgr = "QM2", name = "S", topic = "a/b" }\n'
     '[[steps]]\npublish = { qmgr = "QM1", topic = "a/b" }\n[[steps]]\npublish = { qmgr = "QM2", topic = "a/b" }\n',
     {"QM2": {"S": ["a/b"]}}),
    # MQSO_SCOPE_QMGR beside an ALL subscription: the publication arrives, only ALL gets it
    ("", "", '[[steps]]\nsubscribe = { qmgr = "QM2", name = "ALL", topic = "a/b" }\n'
             '[[steps]]\nsubscribe = { qmgr = "QM2", name = "LOCAL", topic = "a/b", scope = "QMGR" }\n'
             '[[steps]]\npublish = { qmgr = "QM1", topic = "a/b" }\n', {"QM2": {"ALL": ["a/b"], "LOCAL": []}}),
    # a character-scheme subscription's proxy subscription is converted to 'IBM/#' (002 §Wildcard rules)
    ("", "", '[[steps]]\nsubscribe = { qmgr = "QM2", name = "C", topic = "IBM/*/Results", scheme = "char" }\n'
             '[[steps]]\npublish = { qmgr = "QM1", topic = "IBM/Patents/Software/Results" }\n'
             '[[steps]]\npublish = { qmgr = "QM1", topic = "IBM/Other" }\n',
     {"QM2": {"C": ["IBM/Patents/Software/Results"]}}),
    # WILDCARD(BLOCK) at the publishing queue manager applies to a wildcard proxy subscription
    ("DEFINE TOPIC(FB) TOPICSTR('Sports/Football') WILDCARD(BLOCK)", "",
     '[[steps]]\nsubscribe = { qmgr = "QM2", name = "ALL", topic = "Sports/#" }\n'
     '[[steps]]\npublish = { qmgr = "QM1", topic = "Sports/Football/Arsenal" }\n'
     '[[steps]]\npublish = { qmgr = "QM1", topic = "Sports/Rugby" }\n', {"QM2": {"ALL": ["Sports/Rugby"]}}),
    # grouped subscriptions with a remote publication: the most specific one, if eligible
    ("", "", '[[steps]]\nsubscribe = { qmgr = "QM2", name = "WIDE", topic = "a/#", group = "G" }\n'
             '[[steps]]\nsubscribe = { qmgr = "QM2", name = "NARROW", topic = "a/b", group = "G" }\n'
             '[[steps]]\npublish = { qmgr = "QM1", topic = "a/b" }\n'
             '[[steps]]\npublish = { qmgr = "QM1", topic = "a/c" }\n', {"QM2": {"WIDE": ["a/c"], "NARROW": ["a/b"]}}),
], ids=["mqpmo-scope-qmgr", "pubscope-asparent", "subscope-qmgr", "mqso-scope-qmgr", "char-wildcard-proxy",
        "wildcard-block-proxy", "grouped-remote"])
def test_scopes_and_wildcards_between_queue_managers(qm1, qm2, steps, expected):
    got = run_text(HIER.format(qm1=qm1, qm2=qm2) + "\n" + steps)
    assert got["deliveries"] == expected


def test_retained_publications_from_two_queue_managers(capsys):
    # 002 §Retained publications in a distributed publish/subscribe topology
    code, data = run_json(capsys, "ps-retained-hierarchy.toml")
    assert code == 0 and data["deliveries"] == {"QM1": {"LATEST": ["Weather/Leeds", "Weather/Leeds"]}}


def test_psclus_disabled_member_takes_no_part():
    # 002 §Inhibiting clustered publish/subscribe in a cluster: WIGAN ignores the cluster
    # topics and rejects the proxy subscriptions other members send it
    text = (EXAMPLES / "ps-football-results.toml").read_text().replace(
        "DEFINE CHANNEL(TO.WIGAN)", "ALTER QMGR PSCLUS(DISABLED)\nDEFINE CHANNEL(TO.WIGAN)")
    report = run_scenario(parse_scenario(text, "psclus.toml"))
    got = deliveries_of(report.final)
    assert got["LEEDS"]["ALLRESULTS"] == ["Football/result/Leeds/Wigan"]
    assert got["WIGAN"]["ALLRESULTS"] == ["Football/result/Wigan/Leeds"]
    assert got["WIGAN"]["MYTEAM"] == ["Football/myteam/Wigan/Leeds"]
    assert ("WIGAN", "PSCLUS_DISABLED") in {(e.qmgr, e.code) for e in report.final.log}


def test_refresh_proxysub_resends_lost_proxy_subscriptions():
    # 002 §Resynchronization of proxy subscriptions: a proxy subscription lost from the
    # transmission queue is sent again by REFRESH QMGR TYPE(PROXYSUB); the publication
    # missed meanwhile is not recovered
    got = run_text(HIER.format(qm1="", qm2="") + """
    [[steps]]
    channel = { qmgr = "QM2", to = "QM1", status = "STOPPED" }
    [[steps]]
    subscribe = { qmgr = "QM2", name = "S", topic = "a/b" }
    [[steps]]
    mqsc = { qmgr = "QM2", commands = "CLEAR QLOCAL(SYSTEM.CLUSTER.TRANSMIT.QUEUE)" }
    [[steps]]
    channel = { qmgr = "QM2", to = "QM1", status = "RUNNING" }
    [[steps]]
    publish = { qmgr = "QM1", topic = "a/b" }
    [[steps]]
    mqsc = { qmgr = "QM2", commands = "REFRESH QMGR TYPE(PROXYSUB)" }
    [[steps]]
    publish = { qmgr = "QM1", topic = "a/b" }
    """)
    assert got["deliveries"] == {"QM2": {"S": ["a/b"]}}
    assert got["final"].qmgr("QM1").pubsub.proxies == (("QM2", "", "a/b"),)


def test_unsubscribe_cancels_the_proxy_subscription_along_the_hierarchy():
    got = run_text("""
        [qmgrs.QM1]
        [qmgrs.QM2]
        mqsc = "ALTER QMGR PARENT(QM1)"
        [qmgrs.QM3]
        mqsc = "ALTER QMGR PARENT(QM2)"
        [[steps]]
        subscribe = { qmgr = "QM3", name = "S", topic = "a/#" }
        [[steps]]
        unsubscribe = { qmgr = "QM3", name = "S" }
    """)
    assert all(q.pubsub.proxies == () and q.pubsub.proxies_sent == () for q in got["final"].qmgrs)


RING = """
    [qmgrs.QM1]
    mqsc = "ALTER QMGR PARENT(QM2)"
    [qmgrs.QM2]
    mqsc = "ALTER QMGR PARENT(QM3)"
    [qmgrs.QM3]
    mqsc = "ALTER QMGR PARENT(QM1)"
    [[steps]]
    subscribe = { qmgr = "QM1", name = "S1", topic = "Price/#" }
"""
# 002 §How loop detection works: aggregation "does not prevent the formation of a loop,
# although it will prevent the perpetual looping of proxy subscriptions". In the ring each
# proxy subscription carries the demand paths behind it; none is offered back to a queue
# manager it already went through.
RING_HELD = {  # queue manager -> {(sender, topic): demand paths}
    "QM1": {},
    "QM2": {("QM1", "Price/#"): (("QM1",),), ("QM3", "Price/#"): (("QM1", "QM3"),)},
    "QM3": {("QM1", "Price/#"): (("QM1",),), ("QM2", "Price/#"): (("QM1", "QM2"),)},
}


def test_ring_proxy_subscriptions_carry_loop_free_demand_paths():
    final = run_text(RING)["final"]
    for q in final.qmgrs:
        assert {(n, t): paths for (n, _, t), paths in q.pubsub.proxy_paths} == RING_HELD[q.name]
        assert q.pubsub.proxies == tuple(k for k, _ in q.pubsub.proxy_paths)


def test_ring_proxy_subscriptions_all_go_when_the_last_subscriber_leaves():
    final = run_text(RING + '[[steps]]\nunsubscribe = { qmgr = "QM1", name = "S1" }\n')["final"]
    assert all(q.pubsub.proxy_paths == () and q.pubsub.proxies == () and q.pubsub.sent_paths == ()
               for q in final.qmgrs)


@pytest.mark.parametrize("paths,held", [
    ((("QM1",),), (("QM1",),)),
    ((("QM1",), ("QM3", "QM2")), (("QM1",),)),  # a path through the receiver QM3 is dropped
    ((("QM3",),), None),  # nothing left: as good as cancelled
])
def test_receive_proxy_drops_paths_through_the_receiver(paths, held):
    msg = pubsub.ProxySubMsg(pubsub.SUBSCRIBE, "a/#", "QM2", "", paths)
    ps, new = pubsub.receive_proxy(pubsub.LocalPubSub(), msg, "QM3")
    assert ps.proxy_paths == (((("QM2", "", "a/#"), held),) if held else ())
    assert new is bool(held)


def test_receive_proxy_update_replaces_the_paths_and_is_not_new():
    first = pubsub.ProxySubMsg(pubsub.SUBSCRIBE, "a/#", "QM2", "", (("QM1",),))
    again = pubsub.ProxySubMsg(pubsub.SUBSCRIBE, "a/#", "QM2", "", (("QM4", "QM2"),))
    ps, _ = pubsub.receive_proxy(pubsub.LocalPubSub(), first, "QM3")
    ps, new = pubsub.receive_proxy(ps, again, "QM3")
    assert not new and ps.proxy_paths == ((("QM2", "", "a/#"), (("QM4", "QM2"),)),)
    ps, _ = pubsub.receive_proxy(ps, pubsub.ProxySubMsg(pubsub.UNSUBSCRIBE, "a/#", "QM2", ""), "QM3")
    assert ps.proxies == () and ps.proxy_paths == ()


def test_refresh_cluster_discards_proxy_subscriptions_until_resynchronised():
    # 002 §REFRESH CLUSTER considerations: the refreshing queue manager discards "any cluster
    # topics and their associated proxy subscriptions"; REFRESH QMGR TYPE(PROXYSUB) on the
    # subscribers' queue manager resynchronises (publications missed meanwhile stay missed)
    text = (EXAMPLES / "ps-football-results.toml").read_text()
    text = text[:text.index("# the home grounds")] + """
[[steps]]
mqsc = { qmgr = "WIGAN", commands = "REFRESH CLUSTER(LEAGUE)" }
[[steps]]
publish = { qmgr = "WIGAN", topic = "Football/result/Wigan/Leeds" }
[[steps]]
mqsc = { qmgr = "LEEDS", commands = "REFRESH QMGR TYPE(PROXYSUB)" }
[[steps]]
publish = { qmgr = "WIGAN", topic = "Football/result/Wigan/Bolton" }
[[steps]]
publish = { qmgr = "LEEDS", topic = "Football/result/Leeds/Wigan" }
"""
    got = deliveries_of(run_scenario(parse_scenario(text, "refresh.toml")).final)
    assert got["LEEDS"]["ALLRESULTS"] == ["Football/result/Wigan/Bolton", "Football/result/Leeds/Wigan"]
    assert got["WIGAN"]["ALLRESULTS"] == ["Football/result/Wigan/Leeds", "Football/result/Wigan/Bolton",
                                          "Football/result/Leeds/Wigan"]
