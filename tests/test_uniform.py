"""Uniform clusters (issue #19): the JSON CCDT reader, the balancing protocol, scenario keys.

Tables from 004 first (§View application status: the AMQSPHAC demo's DISPLAY APSTATUS
figures; §Configuring the CCDT...: the CCDT shape), then the protocol's rules run through a
small FIFO network (every message delivered in a fixed order until none is left), then the
scenario format's errors. The whole network model and `mqcheck check` are exercised by
tests/test_uniform_network.py.
"""

from __future__ import annotations

import json
from collections import deque
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from spec import uniform as uc
from spec.ccdt import check_ccdt, missing_real_name_entries, parse_ccdt
from spec.errors import InputError
from spec.scenario import parse_scenario

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"


def entry(qm: str, host: str, port: int = 1414) -> dict:
    return {"name": "SVRCONN.CHANNEL", "type": "clientConnection",
            "clientConnection": {"connection": [{"host": host, "port": port}], "queueManager": qm}}


# =============================================================================== JSON CCDT
# 004 §Configuring the CCDT for application balancing in a Uniform Cluster, as printed on
# the slide: the commas after "type": "clientConnection" are missing, so strict JSON (what
# the client reads) rejects it at the first one.
SEED_SLIDE = """{
  "channel":
  [
    {
      "name": "SVRCONN.CHANNEL",
      "type": "clientConnection"
      "clientConnection":
      {
        "connection":
        [
          {
            "host": "host1",
            "port": 1414
          }
        ],
        "queueManager": "ANY_QM"
      },
    }
  ]
}"""


def test_seed_slide_is_not_json_and_the_error_points_at_the_missing_comma():
    with pytest.raises(InputError) as e:
        parse_ccdt(SEED_SLIDE, file="ccdt.json")
    assert str(e.value).startswith("ccdt.json:7:7: invalid JSON: Expecting ',' delimiter")


def test_seed_ccdt_with_its_commas_reads_duplicate_channel_names():
    doc = {"channel": [entry("ANY_QM", "host1"), entry("ANY_QM", "host2"), entry("QMGR1", "host1"),
                       entry("QMGR2", "host2")]}
    ccdt = parse_ccdt(json.dumps(doc, indent=2), file="ccdt.json")
    assert [e.channel for e in ccdt.entries] == ["SVRCONN.CHANNEL"] * 4  # 004 §JSON CCDT: duplicates allowed
    assert [e.queue_manager for e in ccdt.under("ANY_QM")] == ["ANY_QM", "ANY_QM"]
    assert [e.addresses for e in ccdt.entries] == [("host1(1414)",), ("host2(1414)",), ("host1(1414)",),
                                                   ("host2(1414)",)]
    assert [(e.line, e.column) for e in ccdt.entries] == [(3, 5), (16, 5), (29, 5), (42, 5)]
    assert missing_real_name_entries(ccdt, ["QMGR1", "QMGR2", "QMGR3"]) == ("QMGR3",)


BAD_CCDTS = {
    "trailing comma": ('{"channel": [1,]}', "x.json:1:16: invalid JSON: Expecting value"),
    "no channel": ('{}', "x.json:1:1: the CCDT: required key \"channel\" is missing"),
    "empty channel": ('{"channel": []}', "x.json:1:13: channel: expected a non-empty array"),
    "unknown key": ('{"channel": [{"name": "C", "clientConection": {}}]}',
                    'x.json:1:28: channel[0]: unknown key "clientConection"'),
    "bad type": ('{"channel": [{"name": "C", "type": "serverConnection", "clientConnection": {}}]}',
                 'x.json:1:36: channel[0].type: expected "clientConnection"'),
    "missing queueManager": ('{"channel": [{"name": "C", "clientConnection": {"connection": [{"host": "h"}]}}]}',
                             'x.json:1:48: channel[0].clientConnection: required key "queueManager" is missing'),
    "star in name": ('{"channel": [{"name": "C", "clientConnection": {"connection": [{"host": "h"}], '
                     '"queueManager": "*ANY"}}]}', "x.json:1:96: channel[0].clientConnection.queueManager: "
                     "invalid queue manager or group name"),
    "bad port": ('{"channel": [{"name": "C", "clientConnection": {"connection": [{"host": "h", "port": 0}], '
                 '"queueManager": "Q"}}]}', "x.json:1:86: channel[0].clientConnection.connection[0].port: "
                 "expected an integer from 1 to 65535, got 0"),
    "no connection": ('{"channel": [{"name": "C", "clientConnection": {"connection": [], "queueManager": "Q"}}]}',
                      "x.json:1:63: channel[0].clientConnection.connection: expected a non-empty array"),
}


@pytest.mark.parametrize("text,message", BAD_CCDTS.values(), ids=list(BAD_CCDTS))
def test_bad_ccdts_name_file_line_and_column(text, message):
    with pytest.raises(InputError) as e:
        parse_ccdt(text, file="x.json")
    assert str(e.value).startswith(message), str(e.value)


def test_unknown_key_suggests_the_spelling():
    with pytest.raises(InputError) as e:
        parse_ccdt('{"channel": [{"name": "C", "clientConection": {}}]}', file="x.json")
    assert 'did you mean "clientConnection"?' in str(e.value)


def test_check_ccdt_addresses_and_names():
    ccdt = parse_ccdt(json.dumps({"channel": [entry("ANY_QM", "host1"), entry("QM2", "host1")]}), file="c.json")
    listeners = {"QM1": ["HOST1(1414)"], "QM2": ["host2(1414)"]}
    with pytest.raises(InputError, match=r"c.json:1:\d+: channel entry under the real name QM2 connects to "
                                         r"host1\(1414\), which is QM1's listener"):
        check_ccdt(ccdt, listeners)
    ccdt = parse_ccdt(json.dumps({"channel": [entry("ANY_QM", "host9")]}), file="c.json")
    with pytest.raises(InputError, match=r"host9\(1414\) is no queue manager's listener"):
        check_ccdt(ccdt, listeners)
    ccdt = parse_ccdt(json.dumps({"channel": [entry("ANY_QM", "host1")]}), file="c.json")
    check_ccdt(ccdt, listeners, groups=["ANY_QM"])
    with pytest.raises(InputError, match="no channel entry under the queue manager group ANY"):
        check_ccdt(ccdt, listeners, groups=["ANY"])


# =============================================================================== the protocol
THREE = ("UNID001", "UNID002", "UNID003")


def context(members=THREE, running=None, reach=None) -> uc.Context:
    running = frozenset(members if running is None else running)
    reach = reach if reach is not None else {"ANY_QM": tuple(members), **{q: (q,) for q in members}}
    return uc.Context(running, {q: tuple(p for p in members if p != q) for q in members}, reach)


def start(members=THREE, rules=uc.DEFAULT_RULES) -> uc.UniformState:
    u = uc.UniformState(rules=rules)
    for q in members:
        u = uc.join(u, q, "UNIDEMO")
    return u


def settle(u: uc.UniformState, ctx: uc.Context, fx: uc.Effects | None = None, limit: int = 5000):
    """Deliver every message, channel by channel in name order (FIFO per channel), running
    ``reconcile`` after each, until none is left. Returns the state and the log."""
    chans: dict[tuple[str, str], deque] = {}
    logs = []

    def flush(fx):
        logs.extend(fx.logs)
        for s, d, m in fx.sends:
            chans.setdefault((s, d), deque()).append(m)

    fx = fx or uc.Effects()
    u = uc.reconcile(u, ctx, fx)
    flush(fx)
    for _ in range(limit):
        live = sorted(k for k, v in chans.items() if v and k[0] in ctx.running and k[1] in ctx.running)
        if not live:
            return u, logs
        src, dst = live[0]
        fx = uc.Effects()
        u = uc.receive(u, ctx, dst, chans[(src, dst)].popleft(), fx)
        u = uc.reconcile(u, ctx, fx)
        flush(fx)
    raise AssertionError("did not settle")


def counts(u: uc.UniformState, app: str, members=THREE) -> tuple[int, ...]:
    return tuple(sum(i.app == app and i.qmgr == q for i in u.instances) for q in members)


# --- 004 §View application status: the AMQSPHAC demo -------------------------------------
def test_amqsphac_demo_reproduces_display_apstatus():
    ctx = context()
    fx = uc.Effects()
    u = uc.connect(start(), ctx, "AMQSPHAC", 8, "*ANY_QM", True, fx)
    u = uc.connect(u, ctx, "AMQSPUTC", 2, "UNID001", False, fx)
    assert counts(u, "AMQSPHAC") == (8, 0, 0)  # the client tries the CCDT entries in order
    u, logs = settle(u, ctx, fx)
    assert logs == []
    assert uc.apstatus_appl(u, ctx.running) == [
        {"APPLNAME": "AMQSPHAC", "CLUSTER": "UNIDEMO", "COUNT": 8, "MOVCOUNT": 8, "BALANCED": "YES"},
        {"APPLNAME": "AMQSPUTC", "CLUSTER": "", "COUNT": 2, "MOVCOUNT": 0, "BALANCED": "NOTAPPLIC"},
    ]
    assert uc.apstatus_qmgr(u, ctx.running) == [
        {"APPLNAME": "AMQSPHAC", "QMNAME": "UNID001", "ACTIVE": "YES", "COUNT": 3, "MOVCOUNT": 3, "BALSTATE": "OK"},
        {"APPLNAME": "AMQSPHAC", "QMNAME": "UNID002", "ACTIVE": "YES", "COUNT": 3, "MOVCOUNT": 3, "BALSTATE": "OK"},
        {"APPLNAME": "AMQSPHAC", "QMNAME": "UNID003", "ACTIVE": "YES", "COUNT": 2, "MOVCOUNT": 2, "BALSTATE": "OK"},
        {"APPLNAME": "AMQSPUTC", "QMNAME": "UNID001", "ACTIVE": "YES", "COUNT": 2, "MOVCOUNT": 0,
         "BALSTATE": "NOTAPPLIC"},
    ]


# --- balancing tables: n instances over m members settle within one of even -------------
@pytest.mark.parametrize("n,m,expected", [
    (8, 3, (3, 3, 2)), (6, 3, (2, 2, 2)), (1, 3, (1, 0, 0)), (2, 3, (1, 1, 0)), (7, 2, (4, 3)),
    (9, 4, (2, 2, 3, 2)), (0, 3, (0, 0, 0)),
])
def test_instances_settle_within_one_of_even(n, m, expected):
    members = tuple(f"QM{i}" for i in range(1, m + 1))
    ctx = context(members)
    u = uc.connect(start(members), ctx, "APP", n, "*ANY_QM", True, uc.Effects()) if n else start(members)
    u, _ = settle(u, ctx)
    assert counts(u, "APP", members) == expected


def test_application_names_balance_independently():
    # 004 §Balancing by application name
    ctx = context()
    fx = uc.Effects()
    u = uc.connect(start(), ctx, "A", 3, "*ANY_QM", True, fx)
    u = uc.connect(u, ctx, "B", 3, "*ANY_QM", True, fx)
    u, _ = settle(u, ctx, fx)
    assert counts(u, "A") == (1, 1, 1) and counts(u, "B") == (1, 1, 1)


def test_only_reconnectable_group_instances_move():
    # 004 §Uniform Cluster features: only auto-reconnect applications are eligible
    ctx = context()
    fx = uc.Effects()
    u = uc.connect(start(), ctx, "W", 4, "*ANY_QM", False, fx)
    u = uc.connect(u, ctx, "W", 2, "*ANY_QM", True, fx)
    u, _ = settle(u, ctx, fx)
    assert counts(u, "W") == (4, 1, 1)
    assert all(i.qmgr == i.home for i in u.instances if not i.reconnect)
    assert uc.apstatus_appl(u, ctx.running)[0]["BALANCED"] == "NO"
    assert uc.FIXED_SEEN in u.events


def test_named_queue_manager_connections_do_not_move():
    ctx = context()
    u = uc.connect(start(), ctx, "N", 4, "UNID002", True, uc.Effects())
    u, _ = settle(u, ctx)
    assert counts(u, "N") == (0, 4, 0)
    assert uc.apstatus_appl(u, ctx.running)[0]["BALANCED"] == "NOTAPPLIC"


def test_missing_real_name_entries_leave_the_application_unbalanced():
    # 004 §Configuring the CCDT...: the entry under the real name is what directs a client
    ctx = context(reach={"ANY_QM": THREE})
    u = uc.connect(start(), ctx, "R", 4, "*ANY_QM", True, uc.Effects())
    u, logs = settle(u, ctx)
    assert counts(u, "R") == (4, 0, 0)
    assert {code for _, code, _ in logs} == {uc.NO_CCDT_ENTRY}
    assert uc.NO_CCDT_ENTRY in u.events and uc.DONATED not in u.events


def test_outage_reconnects_through_the_group_and_recovery_rebalances():
    # 004 §Automatic Application balancing: re-connection on failure, rebalancing on recovery
    ctx = context()
    u, _ = settle(uc.connect(start(), ctx, "R", 6, "*ANY_QM", True, uc.Effects()), ctx)
    assert counts(u, "R") == (2, 2, 2)
    down = context(running=("UNID001", "UNID003"))
    fx = uc.Effects()
    u = uc.member_stopped(u, down, "UNID002", fx)
    assert counts(u, "R") == (4, 0, 2) and uc.OUTAGE_RECONNECT in u.events
    u, _ = settle(u, down, fx)
    assert counts(u, "R") == (3, 0, 3)
    assert uc.apstatus_appl(u, down.running)[0]["BALANCED"] == "YES"  # over the running members
    u = uc.member_started(u, ctx, "UNID002")
    u, _ = settle(u, ctx)
    assert counts(u, "R") == (2, 2, 2)
    assert "RESTARTED UNID002" in u.events


def test_a_request_to_a_donor_that_stops_does_not_block_rebalancing():
    """004 §Automatic Application balancing: "Automatically handle rebalancing following
    planned and unplanned queue manager outages"; "Every member of the uniform cluster will
    detect an imbalance and request other queue managers to donate". UNID002 and UNID003 ask
    UNID001 for instances; UNID001 stops before answering and its three instances reconnect
    through the group to UNID002. The unanswered requests must not stop UNID003 from asking
    UNID002 (it used to wait for UNID001's answer for ever: 0/3/0, BALANCED(NO))."""
    ctx = context()
    fx = uc.Effects()
    u = uc.reconcile(uc.connect(start(), ctx, "R", 3, "*ANY_QM", True, fx), ctx, fx)
    fx2 = uc.Effects()
    for src, dst, msg in fx.sends:
        if src == "UNID001":
            u = uc.receive(u, ctx, dst, msg, fx2)
    u = uc.reconcile(u, ctx, fx2)
    assert [m.pending for m in u.members] == [(), (("R", "UNID001"),), (("R", "UNID001"),)]
    down = context(running=("UNID002", "UNID003"))
    fx3 = uc.Effects()
    u = uc.member_stopped(u, down, "UNID001", fx3)
    assert counts(u, "R") == (0, 3, 0)
    u, _ = settle(u, down, fx3)
    assert counts(u, "R") == (0, 2, 1)
    assert uc.apstatus_appl(u, down.running)[0]["BALANCED"] == "YES"


def test_non_reconnectable_instances_are_lost_with_their_queue_manager():
    ctx = context()
    u = uc.connect(start(), ctx, "F", 2, "*ANY_QM", False, uc.Effects())
    fx = uc.Effects()
    u = uc.member_stopped(u, context(running=("UNID002", "UNID003")), "UNID001", fx)
    assert u.instances == () and [c for _, c, _ in fx.logs] == ["MQRC_CONNECTION_BROKEN"] * 2


def test_new_member_requests_its_fair_share():
    # 004 §Automatic Application balancing: scale out
    four = THREE + ("UNID004",)
    ctx3 = context(running=four, reach={"ANY_QM": four, **{q: (q,) for q in four}})
    ctx3 = uc.Context(ctx3.running, {q: tuple(p for p in THREE if p != q) for q in THREE}, ctx3.reach)
    u, _ = settle(uc.connect(start(), ctx3, "R", 8, "*ANY_QM", True, uc.Effects()), ctx3)
    assert counts(u, "R") == (3, 3, 2)
    u = uc.join(u, "UNID004", "UNIDEMO", added=True)
    u, _ = settle(u, context(four))
    assert counts(u, "R", four) == (2, 2, 2, 2)


def test_disconnect_removes_the_newest_instances():
    ctx = context()
    u = uc.connect(start(), ctx, "R", 3, "*ANY_QM", True, uc.Effects())
    u = uc.disconnect(u, "R", 2)
    assert [i.ident for i in u.instances] == [1]
    assert uc.disconnect(u, "R", None).instances == ()


def test_named_reconnectable_instances_wait_for_their_queue_manager():
    """004 §Automatic Application balancing: "Existing client auto-reconnect and CCDT queue
    manager groups will enable initial re-connection on failure" — through a group. An
    instance that named its queue manager (no group) and asked for auto-reconnect waits for
    that queue manager and reconnects to it when it runs again (docs/decisions.md #19.5, #19.8)."""
    ctx = context()
    u = uc.connect(start(), ctx, "N", 2, "UNID002", True, uc.Effects())
    down = context(running=("UNID001", "UNID003"))
    fx = uc.Effects()
    u = uc.member_stopped(u, down, "UNID002", fx)
    assert [i.qmgr for i in u.instances] == ["", ""] and fx.logs == []
    assert uc.OUTAGE_RECONNECT not in u.events
    u = uc.member_started(u, ctx, "UNID002")
    assert [i.qmgr for i in u.instances] == ["UNID002", "UNID002"]


def test_a_stopped_member_forgets_what_it_knew():
    """004 §Automatic Application balancing: a member recovering is rebalanced ("automatic
    rebalancing on recovery") from what its peers tell it then: the knowledge a member had
    is not kept across a stop (docs/decisions.md #19.2), so it cannot ask on counts that
    changed while it was down."""
    ctx = context()
    u, _ = settle(uc.connect(start(), ctx, "R", 6, "*ANY_QM", True, uc.Effects()), ctx)
    assert u.member("UNID002").view != ()
    u = uc.member_stopped(u, context(running=("UNID001", "UNID003")), "UNID002", uc.Effects())
    assert u.member("UNID002") == uc.Member("UNID002", "UNIDEMO")


def test_a_member_asks_only_a_peer_that_hosts_movable_instances():
    """004 §Uniform Cluster features: "Only applications that connect with the auto-reconnect
    option are eligible for rebalancing". UNID001 hosts four instances that cannot move and
    UNID002 two that can: UNID003 asks UNID002, the peer that can give, not UNID001, which
    hosts more but could only refuse."""
    ctx = context()
    fixed = [uc.Instance("W", i, "*ANY_QM", False, "UNID001", "UNID001") for i in (1, 2, 3, 4)]
    movable = [uc.Instance("W", i, "*ANY_QM", True, "UNID002", "UNID002") for i in (5, 6)]
    u = replace(start(), instances=tuple(fixed + movable), next_ident=7)
    u, _ = settle(u, ctx)
    assert counts(u, "W") == (4, 1, 1)
    assert uc.FIXED_SEEN not in u.events  # nobody asked UNID001


def test_a_donor_refuses_when_the_gap_has_closed():
    """004 §Automatic Application balancing: the hosting queue manager instigates the
    reconnect; it decides on what it hosts now. A request made when UNID001 hosted three
    more than UNID002 arrives when UNID001 hosts only one more: nothing moves (the gap of
    ``threshold`` is checked again by the donor, which keeps a move from making an imbalance
    the other way)."""
    ctx = context()
    u = replace(start(), instances=tuple(uc.Instance("R", i, "*ANY_QM", True, "UNID001", "UNID001")
                                         for i in (1, 2)), next_ident=3)
    fx = uc.Effects()
    u2 = uc.receive(u, ctx, "UNID001", uc.DonationRequest("UNIDEMO", "UNID002", "R", 1), fx)
    assert u2.instances == u.instances
    assert [str(m) for _, _, m in fx.sends] == ["DONATION[UNIDEMO] R from UNID001: refused"]


def test_no_instance_is_directed_to_a_requester_that_stopped():
    """004 §Automatic Application balancing: the client moves "to the indicated queue
    manager"; a requester that stopped before its request arrived cannot take the instance,
    so the donor keeps it."""
    u = replace(start(), instances=tuple(uc.Instance("R", i, "*ANY_QM", True, "UNID001", "UNID001")
                                         for i in (1, 2, 3)), next_ident=4)
    fx = uc.Effects()
    down = context(running=("UNID001", "UNID003"))
    u2 = uc.receive(u, down, "UNID001", uc.DonationRequest("UNIDEMO", "UNID002", "R", 0), fx)
    assert u2.instances == u.instances and uc.DONATED not in u2.events


def test_the_donor_moves_one_instance_the_oldest_by_default():
    """004 §Automatic Application balancing: the donor instigates "a client auto-reconnect"
    per request; which instance is 004's silence (docs/decisions.md #19.4): the oldest, or
    the newest with ``Rules(donation="newest")``."""
    insts = tuple(uc.Instance("R", i, "*ANY_QM", True, "UNID001", "UNID001") for i in (1, 2, 3))
    for rules, moved in ((uc.DEFAULT_RULES, 1), (uc.Rules(donation="newest"), 3)):
        u = replace(start(rules=rules), instances=insts, next_ident=4)
        u = uc.receive(u, context(), "UNID001", uc.DonationRequest("UNIDEMO", "UNID002", "R", 0), uc.Effects())
        assert [(i.ident, i.qmgr) for i in u.instances if i.qmgr != "UNID001"] == [(moved, "UNID002")]


def test_apstatus_qmgr_balstate_low_high_and_a_stopped_member():
    """004 §View application status: TYPE(QMGR) per application and queue manager; BALSTATE
    OK within one of the even share, LOW below and HIGH above (what UC-RECOVERY and
    UC-SCALE-OUT read); a member that is not running shows ACTIVE(NO) and BALSTATE(NOTAPPLIC)
    and does not count in BALANCED."""
    u = replace(start(), instances=tuple(uc.Instance("R", i, "*ANY_QM", True, "UNID001", "UNID001")
                                         for i in (1, 2, 3, 4)), next_ident=5)
    rows = uc.apstatus_qmgr(u, frozenset(THREE))
    assert [(r["QMNAME"], r["ACTIVE"], r["BALSTATE"]) for r in rows] == [
        ("UNID001", "YES", "HIGH"), ("UNID002", "YES", "LOW"), ("UNID003", "YES", "LOW")]
    two = replace(u, instances=u.instances[:2] + tuple(replace(i, qmgr="UNID002") for i in u.instances[2:]))
    rows = uc.apstatus_qmgr(two, frozenset(("UNID001", "UNID002")))
    assert [(r["QMNAME"], r["ACTIVE"], r["COUNT"], r["BALSTATE"]) for r in rows] == [
        ("UNID001", "YES", 2, "OK"), ("UNID002", "YES", 2, "OK"), ("UNID003", "NO", 0, "NOTAPPLIC")]
    assert uc.apstatus_appl(two, frozenset(("UNID001", "UNID002")))[0]["BALANCED"] == "YES"


def test_connecting_when_no_queue_manager_of_the_group_runs_fails():
    """004 §Automatic Application balancing: instances connect to "any member of the group";
    with none running the connect fails (MQRC_Q_MGR_NOT_AVAILABLE) and no instance exists."""
    fx = uc.Effects()
    u = uc.connect(start(), context(running=()), "R", 2, "*ANY_QM", True, fx)
    assert u.instances == () and [c for _, c, _ in fx.logs] == ["MQRC_Q_MGR_NOT_AVAILABLE"] * 2


def test_threshold_is_a_parameter():
    ctx = context()
    loose = uc.Rules(threshold=3)
    u, _ = settle(uc.connect(start(rules=loose), ctx, "R", 4, "*ANY_QM", True, uc.Effects()), ctx)
    assert max(counts(u, "R")) - min(counts(u, "R")) <= 2
    assert counts(u, "R") == (2, 1, 1)


# --- Hypothesis: any delivery order settles balanced (against the naive "within one") ----
@settings(max_examples=60, deadline=None)
@given(n=st.integers(0, 7), fixed=st.integers(0, 3), m=st.integers(2, 4), same=st.booleans(), data=st.data())
def test_any_delivery_order_settles_within_one_of_even(n, fixed, m, same, data):
    members = tuple(f"QM{i}" for i in range(1, m + 1))
    ctx = context(members)
    fx = uc.Effects()
    u = uc.connect(start(members), ctx, "R", n, "*ANY_QM", True, fx) if n else start(members)
    u = uc.connect(u, ctx, "R" if same else "F", fixed, "*ANY_QM", False, fx) if fixed else u
    chans: dict[tuple[str, str], deque] = {}

    def flush(fx):
        for s, d, msg in fx.sends:
            chans.setdefault((s, d), deque()).append(msg)

    fx2 = uc.Effects()
    u = uc.reconcile(u, ctx, fx2)
    flush(fx2)
    for _ in range(2000):
        live = sorted(k for k, v in chans.items() if v)
        if not live:
            break
        src, dst = live[data.draw(st.integers(0, len(live) - 1))]
        fx2 = uc.Effects()
        u = uc.receive(u, ctx, dst, chans[(src, dst)].popleft(), fx2)
        u = uc.reconcile(u, ctx, fx2)
        flush(fx2)
    else:
        raise AssertionError("rebalancing did not settle")
    got = counts(u, "R", members)
    if not same:
        assert sum(got) == n and max(got) - min(got) <= 1  # each name balances on its own
    else:  # fixed instances of the same name: no member that could give is two above another
        movable_at = {q for q in members if any(i.qmgr == q and i.reconnect for i in u.instances)}
        assert all(got[a] - got[b] <= 1 for a in range(m) for b in range(m) if members[a] in movable_at)
    assert all(i.qmgr == i.home == "QM1" for i in u.instances if not i.reconnect)  # fixed ones never move
    assert all(m.pending == () for m in u.members)


# =============================================================================== scenarios
def scenario_text(ccdt: str = "ccdt.json", steps: str = "", expect: str = "", extra_qm: str = "") -> str:
    qms = ""
    for i, q in enumerate(THREE, 1):
        qms += f"""
[qmgrs.{q}]
uniform_cluster = "UNIDEMO"
mqsc = "DEFINE CHANNEL(TO.{q}) CHLTYPE(CLUSRCVR) CONNAME('host{i}(1414)') CLUSTER(UNIDEMO)"
"""
    head = f'ccdt = "{ccdt}"\n' if ccdt else ""
    return head + qms + extra_qm + steps + expect


GOOD_CCDT = json.dumps({"channel": [entry("ANY_QM", f"host{i}") for i in (1, 2, 3)]
                        + [entry(q, f"host{i}") for i, q in enumerate(THREE, 1)]}, indent=1)


def load(text: str, files: dict[str, str] | None = None):
    files = {"ccdt.json": GOOD_CCDT} if files is None else files

    def read_file(name: str) -> str:
        if name not in files:
            raise FileNotFoundError(name)
        return files[name]

    return parse_scenario(text, file="s.toml", read_file=read_file)


def test_scenario_reads_uniform_keys():
    s = load(scenario_text(steps="""
[[steps]]
connect = { app = "AMQSPHAC", count = 8, via = "*any_qm", reconnect = true }
[[steps]]
disconnect = { app = "AMQSPHAC", count = 2 }
""", expect="""
[[expect]]
apstatus = { AMQSPHAC = { count = 6, balanced = "yes", qmgrs = { unid001 = { count = 2, balstate = "OK" } } } }
"""))
    assert [q.uniform_cluster for q in s.qmgrs] == ["UNIDEMO"] * 3
    assert s.steps[0].via == "*ANY_QM" and s.steps[0].count == 8 and s.steps[0].reconnect
    assert s.steps[1].count == 2
    exp = s.expects[0].apstatus[0]
    assert (exp.app, exp.count, exp.balanced, exp.qmgrs) == ("AMQSPHAC", 6, "YES", (("UNID001", 2, None, "OK"),))


SCENARIO_ERRORS = {
    "connect without ccdt": (
        scenario_text(ccdt="", steps='[[steps]]\nconnect = { app = "A", via = "*ANY_QM" }\n'),
        "s.toml:14:1: steps[0].connect: connect needs a CCDT"),
    "unknown group": (
        scenario_text(steps='[[steps]]\nconnect = { app = "A", via = "*ANY_Q" }\n'),
        "s.toml:15:24: steps[0].connect.via: the CCDT has no entry under the queue manager group ANY_Q"),
    "named without entry": (
        scenario_text(steps='[[steps]]\nconnect = { app = "A", via = "UNID001" }\n', ),
        None),  # fine: the good CCDT has the real-name entries
    "unknown qmgr": (
        scenario_text(steps='[[steps]]\nconnect = { app = "A", via = "UNID009" }\n'),
        "s.toml:15:24: steps[0].connect.via: unknown queue manager UNID009"),
    "count too big": (
        scenario_text(steps='[[steps]]\nconnect = { app = "A", via = "*ANY_QM", count = 65 }\n'),
        "s.toml:15:41: steps[0].connect.count: expected an integer from 1 to 64, got 65"),
    "disconnect unknown app": (
        scenario_text(steps='[[steps]]\ndisconnect = { app = "A" }\n'),
        "s.toml:15:16: steps[0].disconnect.app: no connect step before this one starts 'A'"),
    "apstatus unknown app": (
        scenario_text(expect='[[expect]]\napstatus = { B = { count = 1 } }\n'),
        "s.toml:15:14: expect[0].apstatus.B: unknown application 'B'"),
    "join twice": (
        scenario_text(steps='[[steps]]\njoin_uniform = { qmgr = "UNID001", cluster = "UNIDEMO" }\n'),
        "s.toml:15:18: steps[0].join_uniform.qmgr: UNID001 is already a member of uniform cluster UNIDEMO"),
    "ccdt missing file": (scenario_text(ccdt="nope.json"), "s.toml:1:1: ccdt: file not found: nope.json"),
}


@pytest.mark.parametrize("text,message", SCENARIO_ERRORS.values(), ids=list(SCENARIO_ERRORS))
def test_scenario_errors_name_file_line_and_column(text, message):
    if message is None:
        load(text)
        return
    with pytest.raises(InputError) as e:
        load(text)
    assert str(e.value).startswith(message), str(e.value)


def test_bad_ccdt_json_is_reported_in_the_ccdt_file():
    with pytest.raises(InputError) as e:
        load(scenario_text(), files={"ccdt.json": SEED_SLIDE})
    assert str(e.value).startswith("ccdt.json:7:7: invalid JSON: Expecting ',' delimiter")


def test_ccdt_address_must_be_a_listener():
    bad = json.dumps({"channel": [entry("ANY_QM", "host7")]})
    with pytest.raises(InputError, match=r"^ccdt.json:1:\d+: channel entry for ANY_QM: host7\(1414\) is no queue "
                                         r"manager's listener"):
        load(scenario_text(), files={"ccdt.json": bad})


def test_ccdt_without_real_name_entries_loads():
    groups = json.dumps({"channel": [entry("ANY_QM", f"host{i}") for i in (1, 2, 3)]})
    s = load(scenario_text(steps='[[steps]]\nconnect = { app = "A", via = "*ANY_QM" }\n'),
             files={"ccdt.json": groups})
    assert missing_real_name_entries(s.ccdt, [q.name for q in s.qmgrs]) == THREE


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("uc-*.toml")), ids=lambda p: p.name)
def test_examples_load(path):
    from spec.scenario import load_scenario

    s = load_scenario(path)
    assert s.ccdt is not None and any(q.uniform_cluster for q in s.qmgrs)
