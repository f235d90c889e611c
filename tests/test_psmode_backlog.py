"""Session 36: a queue manager with PSMODE(DISABLED) leaves arriving publish/subscribe
messages unprocessed on its system queues.

002 (002_b356d92d3ce416e5.txt, "Plan - WebSphere MQ v7.5") §Subscription performance
considerations: "Any significant message backlog on these queues implies that either the
rate of subscription change is too great for the system or a queue manager is not correctly
functioning in the cluster. Either due to having publish/subscribe support disabled (see
PSMODE in ALTER QMGR) or a problem occurring that requires further investigation". 002
§Balancing producers and consumers: publications "are targeted at the SYSTEM.INTER.QMGR.PUBS
queue on the remote queue managers. Each queue manager processes messages arriving on that
queue". 002 §Distributed publish/subscribe system queues: the four queues, DEFPSIST Yes.

The channel still delivers such a message (it is on the receiver's system queue); the
receiver keeps it unprocessed (``LocalPubSub.backlog``) and processes the backlog in arrival
order once PSMODE is ENABLED (or COMPAT) again. docs/decisions.md, "Session 36".
"""

from __future__ import annotations

import hashlib
import textwrap

import pytest

from checker.explore import explore
from spec.encoding import canonical_bytes
from spec.network import MQNetwork, deliveries_of, run_scenario
from spec.network.pubsub import backlog_of
from spec.pubsub import LocalPubSub, PublicationMsg, ProxySubMsg
from spec.scenario import parse_scenario


def scenario(text: str):
    return parse_scenario(textwrap.dedent(text), "psmode-backlog.toml")


def run_text(text: str):
    report = run_scenario(scenario(text))
    return report, report.final


def codes(final) -> list[tuple[str, str]]:
    return [(e.qmgr, e.code) for e in final.log]


# ---------------------------------------------------------------------------------------
# The review's case (docs/decisions.md, "Session 35: review of 002"): QM2 is QM1's child and
# holds a subscription; its channel to QM1 is STOPPED, so the cancellation its
# PSMODE(DISABLED) sends waits; QM1 still holds QM2's proxy subscription and forwards its
# publications to QM2's SYSTEM.INTER.QMGR.PUBS, where they wait.
# ---------------------------------------------------------------------------------------
HIERARCHY = """
    [qmgrs.QM1]
    [qmgrs.QM2]
    mqsc = "ALTER QMGR PARENT(QM1)"
    [[steps]]
    subscribe = {{ qmgr = "QM2", name = "S2", topic = "Sport/#" }}
    [[steps]]
    channel = {{ qmgr = "QM2", to = "QM1", status = "STOPPED" }}
    [[steps]]
    mqsc = {{ qmgr = "QM2", commands = "ALTER QMGR PSMODE(DISABLED)" }}
    [[steps]]
    publish = {{ qmgr = "QM1", topic = "Sport/Soccer" }}
    [[steps]]
    publish = {{ qmgr = "QM1", topic = "Sport/Tennis" }}
    {more}
"""


def test_a_publication_reaching_a_disabled_queue_manager_waits_unprocessed():
    report, final = run_text(HIERARCHY.format(more=""))
    # the cancellation waits on the stopped channel, so QM1 still forwards both publications
    assert final.qmgr("QM1").pubsub.proxies == (("QM2", "", "Sport/#"),)
    assert deliveries_of(final)["QM2"] == {"S2": []}  # not delivered: the review's mismatch
    assert backlog_of(final) == {"QM2": {"SYSTEM.INTER.QMGR.PUBS": [
        str(m) for m in final.qmgr("QM2").pubsub.backlog]}}
    assert [(type(m), m.topic) for m in final.qmgr("QM2").pubsub.backlog] == [
        (PublicationMsg, "Sport/Soccer"), (PublicationMsg, "Sport/Tennis")]
    # nothing is refused or logged: the queue manager does not read its queues at all
    assert codes(final) == []
    # what `mqcheck run` shows (only when a backlog exists: other reports do not change)
    assert report.to_json()["pubsub_backlog"] == backlog_of(final)


def test_after_psmode_enabled_the_backlog_is_processed_in_arrival_order():
    _, final = run_text(HIERARCHY.format(more="""
    [[steps]]
    mqsc = { qmgr = "QM2", commands = "ALTER QMGR PSMODE(ENABLED)" }
    """))
    assert deliveries_of(final)["QM2"] == {"S2": ["Sport/Soccer", "Sport/Tennis"]}
    assert [d.topic for d in final.qmgr("QM2").pubsub.deliveries] == ["Sport/Soccer", "Sport/Tennis"]
    assert final.qmgr("QM2").pubsub.backlog == () and backlog_of(final) == {}
    assert "pubsub_backlog" not in run_scenario(scenario(HIERARCHY.format(more="""
    [[steps]]
    mqsc = { qmgr = "QM2", commands = "ALTER QMGR PSMODE(ENABLED)" }
    """))).to_json()


def test_psmode_compat_processes_the_backlog_too():
    # decided: the model keeps publish/subscribe running under COMPAT (the API and cluster
    # links; not hierarchy links, 002 §Publish/subscribe hierarchies); 002 says no more
    _, final = run_text(HIERARCHY.format(more="""
    [[steps]]
    mqsc = { qmgr = "QM2", commands = "ALTER QMGR PSMODE(COMPAT)" }
    """))
    assert deliveries_of(final)["QM2"] == {"S2": ["Sport/Soccer", "Sport/Tennis"]}
    assert final.qmgr("QM2").pubsub.backlog == ()


def test_the_backlog_survives_a_restart():
    # 002 §Distributed publish/subscribe system queues, Table 2: DEFPSIST Yes — the
    # messages on the system queues are persistent, so a restart keeps them (a durable
    # subscription, so that S2 outlives the restart: 002 §Subscription durability)
    durable = HIERARCHY.replace('topic = "Sport/#" }}', 'topic = "Sport/#", durable = true }}')
    restart = """
    [[steps]]
    qmgr = { name = "QM2", action = "stop" }
    [[steps]]
    qmgr = { name = "QM2", action = "start" }
    """
    _, final = run_text(durable.format(more=restart))
    assert [m.topic for m in final.qmgr("QM2").pubsub.backlog] == ["Sport/Soccer", "Sport/Tennis"]
    assert deliveries_of(final)["QM2"] == {"S2": []}
    _, final = run_text(durable.format(more=restart + """
    [[steps]]
    mqsc = { qmgr = "QM2", commands = "ALTER QMGR PSMODE(ENABLED)" }
    """))
    assert deliveries_of(final)["QM2"] == {"S2": ["Sport/Soccer", "Sport/Tennis"]}


# ---------------------------------------------------------------------------------------
# A proxy subscription (SYSTEM.INTER.QMGR.CONTROL) arriving while disabled, at a member of a
# publish/subscribe cluster that has PSMODE(DISABLED) from the start: QM1's proxy
# subscription is sent to every member it knows (002 §Subscription performance
# considerations: "the queue manager creates and sends a proxy subscription message to
# every other queue manager in the cluster").
# ---------------------------------------------------------------------------------------
CLUSTER = """
    [qmgrs.QM1]
    mqsc = '''
    ALTER QMGR REPOS(CL)
    DEFINE CHANNEL(TO.QM1) CHLTYPE(CLUSRCVR) CONNAME('qm1(1414)') CLUSTER(CL)
    DEFINE TOPIC(SPORT) TOPICSTR('Sport') CLUSTER(CL)
    '''
    [qmgrs.QM2]
    mqsc = '''
    ALTER QMGR PSMODE(DISABLED)
    DEFINE CHANNEL(TO.QM2) CHLTYPE(CLUSRCVR) CONNAME('qm2(1414)') CLUSTER(CL)
    DEFINE CHANNEL(TO.QM1) CHLTYPE(CLUSSDR) CONNAME('qm1(1414)') CLUSTER(CL)
    '''
    [qmgrs.QM3]
    mqsc = '''
    DEFINE CHANNEL(TO.QM3) CHLTYPE(CLUSRCVR) CONNAME('qm3(1414)') CLUSTER(CL)
    DEFINE CHANNEL(TO.QM1) CHLTYPE(CLUSSDR) CONNAME('qm1(1414)') CLUSTER(CL)
    '''
    [[steps]]
    subscribe = {{ qmgr = "QM1", name = "S1", topic = "Sport/Soccer" }}
    [[steps]]
    publish = {{ qmgr = "QM2", topic = "Sport/Soccer" }}
    [[steps]]
    publish = {{ qmgr = "QM3", topic = "Sport/Soccer" }}
    {more}
"""


def test_a_proxy_subscription_reaching_a_disabled_cluster_member_waits_unprocessed():
    report, final = run_text(CLUSTER.format(more=""))
    assert final.qmgr("QM3").pubsub.proxies == (("QM1", "CL", "Sport/Soccer"),)
    assert final.qmgr("QM2").pubsub.proxies == ()   # not registered
    (waiting,) = final.qmgr("QM2").pubsub.backlog
    assert isinstance(waiting, ProxySubMsg) and (waiting.sender, waiting.topic) == ("QM1", "Sport/Soccer")
    assert backlog_of(final) == {"QM2": {"SYSTEM.INTER.QMGR.CONTROL": [str(waiting)]}}
    # its own applications are refused (session 34), QM3's publication arrives
    assert ("QM2", "MQRC_PUBSUB_INHIBITED") in codes(final)
    assert deliveries_of(final)["QM1"] == {"S1": ["Sport/Soccer"]}
    assert report.to_json()["pubsub_backlog"] == backlog_of(final)


def test_a_cluster_member_enabled_again_registers_the_waiting_proxy_subscription():
    # QM1 sent its proxy subscription once and does not send it again; without the backlog
    # QM2 would never hold it, and its publications would never reach S1
    _, final = run_text(CLUSTER.format(more="""
    [[steps]]
    mqsc = { qmgr = "QM2", commands = "ALTER QMGR PSMODE(ENABLED)" }
    [[steps]]
    publish = { qmgr = "QM2", topic = "Sport/Soccer" }
    """))
    assert final.qmgr("QM2").pubsub.proxies == (("QM1", "CL", "Sport/Soccer"),)
    assert final.qmgr("QM2").pubsub.backlog == ()
    assert sorted(d.origin for d in final.qmgr("QM1").pubsub.deliveries) == ["QM2", "QM3"]


def test_a_disabled_cluster_member_leaves_forwarded_publications_and_cancellations_unprocessed():
    # QM2 subscribed while ENABLED; its channels stopped, PSMODE(DISABLED) (its
    # cancellations wait); QM3's publication reaches QM2's SYSTEM.INTER.QMGR.PUBS; QM1's own
    # subscription, made after, reaches its SYSTEM.INTER.QMGR.CONTROL. ENABLED again: the two
    # are processed in arrival order, the publication delivered to S2
    text = CLUSTER.replace("ALTER QMGR PSMODE(DISABLED)\n", "").format(more="")
    text = text.split("[[steps]]")[0] + textwrap.dedent("""
    [[steps]]
    subscribe = { qmgr = "QM2", name = "S2", topic = "Sport/#" }
    [[steps]]
    channel = { qmgr = "QM2", to = "QM3", status = "STOPPED" }
    [[steps]]
    channel = { qmgr = "QM2", to = "QM1", status = "STOPPED" }
    [[steps]]
    mqsc = { qmgr = "QM2", commands = "ALTER QMGR PSMODE(DISABLED)" }
    [[steps]]
    publish = { qmgr = "QM3", topic = "Sport/Golf" }
    [[steps]]
    subscribe = { qmgr = "QM1", name = "S1", topic = "Sport/Soccer" }
    """)
    _, final = run_text(text)
    assert [type(m) for m in final.qmgr("QM2").pubsub.backlog] == [PublicationMsg, ProxySubMsg]
    assert set(backlog_of(final)["QM2"]) == {"SYSTEM.INTER.QMGR.PUBS", "SYSTEM.INTER.QMGR.CONTROL"}
    assert deliveries_of(final)["QM2"] == {"S2": []}
    _, final = run_text(text + 'mqsc = { qmgr = "QM2", commands = "ALTER QMGR PSMODE(ENABLED)" }\n'
                        .join(["[[steps]]\n", ""]))
    assert deliveries_of(final)["QM2"] == {"S2": ["Sport/Golf"]}
    assert ("QM1", "CL", "Sport/Soccer") in final.qmgr("QM2").pubsub.proxies
    assert final.qmgr("QM2").pubsub.backlog == ()


# ---------------------------------------------------------------------------------------
# The encoding, the checker, the memo
# ---------------------------------------------------------------------------------------
def test_an_empty_backlog_encodes_as_before_the_field_existed():
    # the digest of LocalPubSub() before session 36 (no pinned count, fingerprint or
    # encoding moves: tests/test_uniform_network.py pins three whole states)
    assert hashlib.blake2b(canonical_bytes(LocalPubSub()), digest_size=16).hexdigest() == \
        hashlib.blake2b(b"D11:LocalPubSub{(0)(0)(0)i0;(0)(0)(0)(0)(0)(0)(0)s0:}", digest_size=16).hexdigest()
    msg = ProxySubMsg("SUBSCRIBE", "t", "QM1", "")
    assert canonical_bytes(LocalPubSub(backlog=(msg,))) != canonical_bytes(LocalPubSub())
    assert LocalPubSub(backlog=(msg,)) != LocalPubSub()


@pytest.mark.parametrize("name,text", [
    ("hierarchy", HIERARCHY.format(more="""
    [[steps]]
    mqsc = { qmgr = "QM2", commands = "ALTER QMGR PSMODE(ENABLED)" }
    """)),
    ("cluster", CLUSTER.format(more="""
    [[steps]]
    mqsc = { qmgr = "QM2", commands = "ALTER QMGR PSMODE(ENABLED)" }
    [[steps]]
    publish = { qmgr = "QM2", topic = "Sport/Soccer" }
    """)),
    # left DISABLED, with a second child QM3 subscribing: the last step's publications are
    # in flight into QM2 (to its backlog) and QM3 at once
    ("hierarchy-left-disabled", HIERARCHY.replace('[qmgrs.QM2]', '''[qmgrs.QM3]
    mqsc = "ALTER QMGR PARENT(QM1)"
    [qmgrs.QM2]''').format(more="").replace('[[steps]]', '''[[steps]]
    subscribe = { qmgr = "QM3", name = "S3", topic = "Sport/#" }
    [[steps]]''', 1)),
])
def test_every_interleaving_replays_exactly_and_with_reduction_keeps_the_settled_states(name, text):
    """The delivery memo (``verify``: every replay recomputed) and the partial-order
    reduction (docs/por.md: a delivery into d reads and writes only d's state; a message
    left in the backlog is one) on both scenarios, every interleaving."""
    sc = scenario(text)
    off = explore(MQNetwork(sc, [], memo="off"), workers=1)
    on = explore(MQNetwork(sc, [], memo="verify"), workers=1)
    assert (on.statistics.distinct_states, on.statistics.max_depth) == \
        (off.statistics.distinct_states, off.statistics.max_depth)

    def settled_states(model, por):
        seen, frontier, out = set(), list(model.init_states()), set()
        while frontier:
            nxt = []
            for s in frontier:
                if s in seen:
                    continue
                seen.add(s)
                acts = model.actions(s)
                chosen = model.ample(s, acts, frozenset()) if por else None
                if chosen is not None:
                    acts = [acts[i] for i in chosen]
                succ = [t for a in acts if (t := model.next_state(s, a)) is not None]
                if not any(model.is_internal(a) for a in model.actions(s)) and s.next_step == len(sc.steps):
                    out.add(s)
                nxt.extend(succ)
            frontier = nxt
        return out

    model = MQNetwork(sc, [], memo="off")
    full = settled_states(model, False)
    # (the reduction finds no persistent set here: a publish/subscribe message counts as one
    # that may send, docs/por.md condition 4, wherever it lands; the comparison guards it)
    assert full and settled_states(model, True) == full
    if name == "hierarchy-left-disabled":
        # (steps do not wait for the network here: QM3's proxy subscription may reach QM2
        # after it disabled, QM2's may not have reached QM1 before the channel stopped)
        backlogs = {tuple(m.topic for m in s.qmgr("QM2").pubsub.backlog) for s in full}
        assert ("Sport/Soccer", "Sport/Tennis") in backlogs and ("Sport/#", "Sport/#") in backlogs
    else:   # in every settled end state the backlog was processed
        assert all(q.pubsub.backlog == () for s in full for q in s.qmgrs)


@pytest.mark.parametrize("text", [HIERARCHY.format(more="""
    [[steps]]
    mqsc = { qmgr = "QM2", commands = "ALTER QMGR PSMODE(ENABLED)" }
    """), CLUSTER.format(more="""
    [[steps]]
    mqsc = { qmgr = "QM2", commands = "ALTER QMGR PSMODE(COMPAT)" }
    """)], ids=["hierarchy", "cluster"])
def test_only_a_disabled_queue_manager_holds_a_backlog_in_any_reachable_state(text):
    """The premise that keeps a memoised MQSC step exact (memo.py): after any transition,
    ``pubsub_after_step``'s processing of backlogs is a no-op for every queue manager the
    step did not alter, because only one with PSMODE(DISABLED) holds a backlog."""
    sc = scenario(text)
    model = MQNetwork(sc, [], memo="off", explore_initial=True)
    seen, frontier, held = set(), list(model.init_states()), 0
    while frontier:
        nxt = []
        for s in frontier:
            if s in seen:
                continue
            seen.add(s)
            for q in s.qmgrs:
                if q.pubsub.backlog:
                    held += 1
                    assert q.defs.psmode == "DISABLED", q.name
            nxt.extend(t for a in model.actions(s) if (t := model.next_state(s, a)) is not None)
        frontier = nxt
    assert held


def test_mqcheck_run_shows_the_backlog_as_the_system_queues_hold_it(tmp_path, capsys):
    from checker.cli import main

    path = tmp_path / "h.toml"
    path.write_text(textwrap.dedent(HIERARCHY.format(more="")))
    main(["run", str(path)])
    out = capsys.readouterr().out
    assert "Publish/subscribe messages left unprocessed (PSMODE(DISABLED))" in out
    rows = [line.split() for line in out.splitlines() if "SYSTEM.INTER.QMGR.PUBS" in line]
    assert [(r[0], r[2], r[3], r[4], r[5]) for r in rows] == [
        ("QM2", "1", "of", "2", "publication"), ("QM2", "2", "of", "2", "publication")]
    assert "'Sport/Soccer'" in " ".join(rows[0]) and "'Sport/Tennis'" in " ".join(rows[1])
    path.write_text(textwrap.dedent(HIERARCHY.format(more="""
    [[steps]]
    mqsc = { qmgr = "QM2", commands = "ALTER QMGR PSMODE(ENABLED)" }
    """)))
    main(["run", str(path)])
    assert "left unprocessed" not in capsys.readouterr().out
