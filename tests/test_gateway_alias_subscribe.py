"""A gateway that is a partial repository of two overlapping clusters (docs/decisions.md,
"Session 32: an MQOPEN through a queue alias subscribes for the target").

GW is a partial repository of SALES and STOCK and holds 000 Scenario 4's clustered
``QALIAS(ACQ1) TARGQ(CQ1) CLUSTER(SALES)``; CQ1 is hosted by HOST in STOCK. An MQOPEN of
ACQ1 at GW resolves the alias to CQ1, a cluster queue GW does not host, so GW's repository
examines its cache for CQ1 and, knowing nothing of it, subscribes for it at the full
repositories (000 §First MQOPEN of a Queue). Before the fix the open saw the local QALIAS and
subscribed for nothing, and every message for the alias was dead-lettered at GW.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from spec import repository as rp  # noqa: E402
from spec.network.run import run_scenario  # noqa: E402
from spec.scenario import parse_scenario  # noqa: E402


def clusters(alias: str = "DEFINE QALIAS(ACQ1) TARGQ(CQ1) CLUSTER(SALES)", host_queue: str = "CQ1") -> str:
    """SALES (full repository FRS) and STOCK (full repository FRT) joined by GW, a partial
    repository of both; HOST hosts ``host_queue`` in STOCK; APP is a partial repository of
    SALES only."""
    return f"""
name = "gateway, a partial repository of both clusters"

[qmgrs.FRS]
mqsc = '''
ALTER QMGR REPOS(SALES)
DEFINE CHANNEL(TO.FRS) CHLTYPE(CLUSRCVR) CONNAME('frs(1414)') CLUSTER(SALES)
'''

[qmgrs.FRT]
mqsc = '''
ALTER QMGR REPOS(STOCK)
DEFINE CHANNEL(TO.FRT) CHLTYPE(CLUSRCVR) CONNAME('frt(1414)') CLUSTER(STOCK)
'''

[qmgrs.GW]
mqsc = '''
DEFINE CHANNEL(TO.GW.SALES) CHLTYPE(CLUSRCVR) CONNAME('gw(1414)') CLUSTER(SALES)
DEFINE CHANNEL(TO.GW.STOCK) CHLTYPE(CLUSRCVR) CONNAME('gw(1414)') CLUSTER(STOCK)
DEFINE CHANNEL(TO.FRS) CHLTYPE(CLUSSDR) CONNAME('frs(1414)') CLUSTER(SALES)
DEFINE CHANNEL(TO.FRT) CHLTYPE(CLUSSDR) CONNAME('frt(1414)') CLUSTER(STOCK)
{alias}
'''

[qmgrs.HOST]
mqsc = '''
DEFINE CHANNEL(TO.HOST) CHLTYPE(CLUSRCVR) CONNAME('host(1414)') CLUSTER(STOCK)
DEFINE CHANNEL(TO.FRT) CHLTYPE(CLUSSDR) CONNAME('frt(1414)') CLUSTER(STOCK)
DEFINE QLOCAL({host_queue}) CLUSTER(STOCK)
'''

[qmgrs.APP]
mqsc = '''
DEFINE CHANNEL(TO.APP) CHLTYPE(CLUSRCVR) CONNAME('app(1414)') CLUSTER(SALES)
DEFINE CHANNEL(TO.FRS) CHLTYPE(CLUSSDR) CONNAME('frs(1414)') CLUSTER(SALES)
'''
"""


def run(text: str):
    return run_scenario(parse_scenario(text))


def interests(report, qmgr: str, cluster: str) -> set[tuple[str, str]]:
    return set(report.final.qmgr(qmgr).cache(cluster).interests)


def hosts_known(report, qmgr: str, cluster: str, queue: str) -> set[str]:
    cache = report.final.qmgr(qmgr).cache(cluster)
    return {r.owner_name for r in cache.records
            if not r.deleted and r.kind == rp.QUEUE and r.key == queue}


OPEN_AT_GW = """
[[steps]]
open = { qmgr = "GW", handle = "gw", queue = "ACQ1", bind = "NOT_FIXED" }
"""


def test_an_open_of_the_alias_at_the_gateway_subscribes_for_the_target_queue():
    report = run(clusters() + OPEN_AT_GW)
    assert (rp.QUEUE, "CQ1") in interests(report, "GW", "STOCK")
    assert hosts_known(report, "GW", "STOCK", "CQ1") == {"HOST"}


def test_a_put_through_the_gateway_handle_reaches_the_host():
    report = run(clusters() + OPEN_AT_GW + """
[[steps]]
put = { handle = "gw", count = 2 }

[[expect]]
messages = { gw = { HOST = 2 } }
no_errors = true
""")
    assert all(e.ok for e in report.expectations), report.expectations


def test_after_an_open_at_the_gateway_the_other_clusters_messages_reach_the_host():
    """The trial's configuration with an application's MQOPEN at the gateway: APP's
    messages for ACQ1 go to GW's alias, and GW now knows CQ1's host."""
    report = run(clusters() + OPEN_AT_GW + """
[[steps]]
open = { qmgr = "APP", handle = "app", queue = "ACQ1", bind = "NOT_FIXED" }
[[steps]]
put = { handle = "app", count = 2 }

[[expect]]
messages = { app = { HOST = 2 } }
no_errors = true
""")
    assert all(e.ok for e in report.expectations), report.expectations


def test_a_same_named_gateway_alias_subscribes_for_the_cluster_queue():
    """The trial's own alias, QALIAS(STOCK.REQUEST) TARGET(STOCK.REQUEST) CLUSTER(SALES):
    it names the cluster queue of the same name, which GW does not host."""
    text = clusters("DEFINE QALIAS(STOCK.REQUEST) TARGET(STOCK.REQUEST) CLUSTER(SALES)", "STOCK.REQUEST")
    report = run(text + """
[[steps]]
open = { qmgr = "GW", handle = "gw", queue = "STOCK.REQUEST", bind = "NOT_FIXED" }
[[steps]]
put = { handle = "gw", count = 1 }
[[steps]]
open = { qmgr = "APP", handle = "app", queue = "STOCK.REQUEST", bind = "NOT_FIXED" }
[[steps]]
put = { handle = "app", count = 1 }

[[expect]]
messages = { gw = { HOST = 1 }, app = { HOST = 1 } }
no_errors = true
""")
    assert (rp.QUEUE, "STOCK.REQUEST") in interests(report, "GW", "STOCK")
    assert all(e.ok for e in report.expectations), report.expectations


def test_an_alias_of_a_local_queue_subscribes_for_nothing():
    """A QALIAS whose target is a plain local queue resolves here: no cluster queue, no
    subscription."""
    text = clusters("DEFINE QALIAS(ACQ1) TARGQ(LQ1) CLUSTER(SALES)\nDEFINE QLOCAL(LQ1)")
    report = run(text + OPEN_AT_GW)
    assert not {k for k in interests(report, "GW", "STOCK") | interests(report, "GW", "SALES")
                if k[0] == rp.QUEUE}


def test_an_open_of_a_hosted_cluster_queue_still_subscribes_only_with_clwluseq_any():
    """The exception kept: a clustered local queue is its own instance (CLWLUSEQ(LOCAL), the
    default) unless CLWLUSEQ(ANY) makes the remote instances candidates too."""
    plain = run(clusters() + """
[[steps]]
open = { qmgr = "HOST", handle = "h", queue = "CQ1" }
""")
    assert (rp.QUEUE, "CQ1") not in interests(plain, "HOST", "STOCK")
    text = clusters().replace("DEFINE QLOCAL(CQ1) CLUSTER(STOCK)", "DEFINE QLOCAL(CQ1) CLUSTER(STOCK) CLWLUSEQ(ANY)")
    anyq = run(text + """
[[steps]]
open = { qmgr = "HOST", handle = "h", queue = "CQ1" }
""")
    assert (rp.QUEUE, "CQ1") in interests(anyq, "HOST", "STOCK")


# --- a message arriving over a channel for the alias (the receiving channel's MQOPEN) ---

def test_the_first_message_for_the_alias_makes_the_gateway_subscribe_and_later_ones_arrive():
    """No application opens anything at GW. APP's first message for ACQ1 reaches GW, whose
    receiving channel opens ACQ1 like any MQOPEN: the alias resolves to CQ1, unknown at GW,
    so GW subscribes for it (000 §First MQOPEN of a Queue). That first message is still
    dead-lettered (the seeds do not say otherwise); the next one, put once the cluster has
    settled, reaches CQ1 on HOST."""
    report = run(clusters() + """
[[steps]]
open = { qmgr = "APP", handle = "app", queue = "ACQ1", bind = "NOT_FIXED" }
[[steps]]
put = { handle = "app", count = 1 }
[[steps]]
put = { handle = "app", count = 1 }

[[expect]]
messages = { app = { HOST = 1 } }
""")
    assert all(e.ok for e in report.expectations), report.expectations
    errors = [(e.qmgr, e.code, e.step) for e in report.final.log]
    assert errors == [("GW", "MQRC_UNKNOWN_OBJECT_NAME", 1)], errors
    assert (rp.QUEUE, "CQ1") in interests(report, "GW", "STOCK")


def test_a_message_resolved_to_a_local_queue_at_the_gateway_subscribes_for_nothing():
    text = clusters("DEFINE QALIAS(ACQ1) TARGQ(LQ1) CLUSTER(SALES)\nDEFINE QLOCAL(LQ1)")
    report = run(text + """
[[steps]]
open = { qmgr = "APP", handle = "app", queue = "ACQ1", bind = "NOT_FIXED" }
[[steps]]
put = { handle = "app", count = 1 }
""")
    assert not [e for e in report.final.log], report.final.log
    assert not {k for k in interests(report, "GW", "STOCK") | interests(report, "GW", "SALES")
                if k[0] == rp.QUEUE}


def test_the_arrivals_subscription_leaves_the_reduction_sound():
    """A delivery at the gateway now also sends subscriptions: the partial-order reduction
    (docs/por.md) must give the same verdicts and settled states as the full exploration."""
    from checker.cli import _check_properties
    from checker.explore import explore
    from checker.model import Property
    from spec.network import MQNetwork
    from spec.scenario import load_scenario

    scenario = load_scenario(ROOT / "tests" / "regressions" / "real-partial-gateway-alias.toml")
    out = []
    for por in (True, False):
        seen: set = set()

        def record(model, state, seen=seen) -> bool:
            seen.add(model.encode(state))
            return True
        model = MQNetwork(scenario, _check_properties(scenario)
                          + (Property.at_quiescence("SETTLED-STATES", "records settled states", record),))
        result = explore(model, workers=1, por=por, property_ids=["EXPECT", "SETTLED-STATES"], max_states=5000)
        assert result.complete
        out.append(({p: v.status for p, v in result.verdicts.items()}, seen))
    assert out[0] == out[1]
    assert out[0][0]["EXPECT"].value == "holds"


def test_a_scenario_5_queue_manager_alias_at_a_partial_gateway_subscribes_on_arrival():
    """000 Scenario 5 (QREMOTE(CQM) RNAME(' ') RQMNAME(' ') CLUSTER(BLUE) at the gateway):
    the message for CQ1 at CQM resolves at GW to the cluster queue CQ1, and GW subscribes."""
    report = run(clusters("DEFINE QREMOTE(CQM) RNAME(' ') RQMNAME(' ') CLUSTER(SALES)") + """
[[steps]]
open = { qmgr = "APP", handle = "app", queue = "CQ1", target_qmgr = "CQM", bind = "NOT_FIXED" }
[[steps]]
put = { handle = "app", count = 1 }
[[steps]]
wait = { until = "settled" }
[[steps]]
put = { handle = "app", count = 1 }

[[expect]]
messages = { app = { HOST = 1 } }
""")
    assert all(e.ok for e in report.expectations), report.expectations
    assert [(e.qmgr, e.code) for e in report.final.log] == [("GW", "MQRC_UNKNOWN_OBJECT_NAME")]
