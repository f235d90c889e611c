"""Uniform-cluster properties (issue #19): automatic application balancing, 004.

They read the network state's ``uniform`` field (a :class:`spec.uniform.UniformState`, or
None when the scenario has no uniform cluster — ``checker.cli`` adds these properties only
to scenarios that declare one, so other scenarios' verdicts are unchanged). Balance is what
004's DISPLAY APSTATUS calls BALANCED(YES): the instances of an application name that has
movable instances are within one of even across the running members of its uniform cluster.
Ghost events (``UniformState.events``) record donations, directed reconnects, refusals for
want of a CCDT entry, restarts and joins, for the witnesses.
"""

from __future__ import annotations

from checker.model import Property
from spec import uniform as uc
from spec.network.views import READS_QMGRS

CITE_BALANCING = "004 §Automatic Application balancing"
CITE_FEATURES = "004 §Uniform Cluster features"
CITE_CCDT = "004 §Configuring the CCDT for application balancing in a Uniform Cluster"
CITE_APSTATUS = "004 §View application status"


def _uniform(state) -> uc.UniformState | None:
    return getattr(state, "uniform", None)


def _running(state) -> frozenset[str]:
    return frozenset(q.name for q in state.qmgrs if q.running)


def _events(state) -> tuple[str, ...]:
    u = _uniform(state)
    return () if u is None else u.events


def _rows(state) -> tuple[list[dict], list[dict]]:
    u = _uniform(state)
    if u is None:
        return [], []
    running = _running(state)
    return uc.apstatus_appl(u, running), uc.apstatus_qmgr(u, running)


# --- UC-BALANCED --------------------------------------------------------------------------
def balanced(model, state) -> bool:
    # 004 §Automatic Application balancing: members "keep matching application instances
    # balanced across the queue managers"; §Balancing by application name: per name
    return all(r["BALANCED"] != "NO" for r in _rows(state)[0])


def balanced_after_donation(model, state) -> bool:
    return uc.DONATED in _events(state) and any(
        r["BALANCED"] == "YES" and r["COUNT"] >= 2 for r in _rows(state)[0])


# --- UC-NON-RECONNECTABLE-STAY -----------------------------------------------------------
def fixed_instances_stay(model, state) -> bool:
    # 004 §Uniform Cluster features: "Only applications that connect with the auto-reconnect
    # option are eligible for rebalancing"
    u = _uniform(state)
    return u is None or all(i.reconnect or i.qmgr == i.home for i in u.instances)


def fixed_instance_at_donor(model, state) -> bool:
    return uc.FIXED_SEEN in _events(state)


# --- UC-RECOVERY / UC-SCALE-OUT -----------------------------------------------------------
def _has_share(state, marker: str) -> bool:
    """Every member marked ``marker`` ("RESTARTED"/"JOINED") that runs holds at least the
    floor of the even share of each application it can be balanced for (BALSTATE not LOW)."""
    marked = {e.split(" ", 1)[1] for e in _events(state) if e.startswith(marker + " ")}
    return all(not (r["QMNAME"] in marked and r["BALSTATE"] == "LOW") for r in _rows(state)[1])


def _share_seen(state, marker: str) -> bool:
    marked = {e.split(" ", 1)[1] for e in _events(state) if e.startswith(marker + " ")}
    return any(r["QMNAME"] in marked and r["COUNT"] > 0 and r["BALSTATE"] == "OK" and r["MOVCOUNT"] > 0
               for r in _rows(state)[1])


def recovered(model, state) -> bool:
    # 004 §Automatic Application balancing: "Uniform Cluster rebalancing will enable automatic
    # rebalancing on recovery"
    return _has_share(state, uc.RESTARTED)


def recovered_seen(model, state) -> bool:
    return _share_seen(state, uc.RESTARTED)


def scaled_out(model, state) -> bool:
    # 004 §Automatic Application balancing: "The new queue manager will detect an imbalance
    # of applications and request its fair share"
    return _has_share(state, uc.JOINED)


def scaled_out_seen(model, state) -> bool:
    return _share_seen(state, uc.JOINED)


# --- UC-NO-CCDT-ENTRY ----------------------------------------------------------------------
def _real_names(model) -> frozenset[str]:
    ccdt = getattr(getattr(model, "scenario", None), "ccdt", None)
    return frozenset() if ccdt is None else frozenset(ccdt.names())


def directed_only_with_entry(model, state) -> bool:
    # 004 §Configuring the CCDT...: a client is directed to a queue manager through the
    # entry under its real name; without one it cannot be
    names = _real_names(model)
    return all(e.split(" ", 1)[1] in names for e in _events(state) if e.startswith(uc.DIRECTED + " "))


def directed_seen(model, state) -> bool:
    return any(e.startswith(uc.DIRECTED + " ") for e in _events(state))


def no_ccdt_entry_seen(model, state) -> bool:
    return uc.NO_CCDT_ENTRY in _events(state)


PROPERTIES = (
    Property.at_quiescence(
        "UC-BALANCED", "once settled, every application name with movable instances is within one of even across "
        "the running members of its uniform cluster (DISPLAY APSTATUS BALANCED is never NO)", balanced,
        citation=f"{CITE_BALANCING}; 004 §Balancing by application name; {CITE_APSTATUS}",
        witness="UC-BALANCED-AFTER-DONATION", reads=READS_QMGRS),
    Property.sometimes(
        "UC-BALANCED-AFTER-DONATION", "instances are donated and an application is balanced over its members",
        balanced_after_donation, citation=CITE_BALANCING, reads=READS_QMGRS),
    Property.always(
        "UC-NON-RECONNECTABLE-STAY", "an instance without auto-reconnect is never moved from the queue manager it "
        "connected to", fixed_instances_stay, citation=CITE_FEATURES, witness="UC-FIXED-AT-DONOR", reads=READS_QMGRS),
    Property.sometimes(
        "UC-FIXED-AT-DONOR", "a member asked to donate hosts instances of that application that cannot move",
        fixed_instance_at_donor, citation=CITE_FEATURES, reads=READS_QMGRS),
    Property.at_quiescence(
        "UC-RECOVERY", "once settled, a member that restarted holds its share of every balanced application "
        "(BALSTATE not LOW)", recovered, citation=CITE_BALANCING, witness="UC-RECOVERED", reads=READS_QMGRS),
    Property.sometimes(
        "UC-RECOVERED", "a restarted member hosts its share of movable instances again", recovered_seen,
        citation=CITE_BALANCING, reads=READS_QMGRS),
    Property.at_quiescence(
        "UC-SCALE-OUT", "once settled, a queue manager added to a uniform cluster holds its fair share "
        "(BALSTATE not LOW)", scaled_out, citation=CITE_BALANCING, witness="UC-SCALED-OUT", reads=READS_QMGRS),
    Property.sometimes(
        "UC-SCALED-OUT", "an added member hosts its share of movable instances", scaled_out_seen,
        citation=CITE_BALANCING, reads=READS_QMGRS),
    Property.always(
        "UC-DIRECTED-HAS-ENTRY", "an instance is directed only to a member the CCDT has an entry for under its "
        "real name", directed_only_with_entry, citation=CITE_CCDT, witness="UC-DIRECTED", reads=READS_QMGRS),
    Property.sometimes(
        "UC-DIRECTED", "a donor directs an instance to another member", directed_seen, citation=CITE_BALANCING, reads=READS_QMGRS),
    Property.sometimes(
        "UC-NO-CCDT-ENTRY", "a member cannot be given an instance: the CCDT has no entry under its real name "
        "(the misconfiguration's witness)", no_ccdt_entry_seen, citation=CITE_CCDT, reads=READS_QMGRS),
    Property.eventually(
        "UC-TERMINATION", "rebalancing settles: no cycle of status messages, donation requests and moves "
        "(every execution of internal actions ends)", citation=f"{CITE_BALANCING}; docs/decisions.md #19"),
)


def uniform_properties(scenario, faults: int | None = None) -> tuple[Property, ...]:
    """The UC- properties that apply to ``scenario``: none without a uniform cluster or a
    CCDT; UC-RECOVERY only when a queue manager can restart (a ``qmgr`` step, or faults:
    ``faults`` as ``check --faults`` gives it, else ``[check] faults``), UC-SCALE-OUT only
    with a ``join_uniform`` step — elsewhere they could only hold vacuously."""
    from spec.uniform_scenario import JoinUniformStep

    if scenario.ccdt is None and not any(q.uniform_cluster for q in scenario.qmgrs):
        return ()
    skip = set()
    with_faults = scenario.check.faults if faults is None else faults > 0
    if not (with_faults or any(type(s).__name__ == "QmgrStep" for s in scenario.steps)):
        skip |= {"UC-RECOVERY", "UC-RECOVERED"}
    if not any(isinstance(s, JoinUniformStep) for s in scenario.steps):
        skip |= {"UC-SCALE-OUT", "UC-SCALED-OUT"}
    return tuple(p for p in PROPERTIES if p.id not in skip)
