"""Uniform clusters in the network model (issue #19): the glue between :mod:`spec.uniform`
(the pure balancing protocol) and the network's queue managers and channels.

The network state's ``uniform`` field holds a :class:`spec.uniform.UniformState`, or None
when the scenario declares no uniform cluster and no CCDT (then nothing here runs and the
states, their encodings and fingerprints are those of a network without this feature).

- The protocol's messages (``ApplStatusMsg``, ``DonationRequest``, ``DonationAnswer``) travel
  on the cluster channels like repository messages and are handled on arrival
  (:func:`receive_uniform_message`).
- After every action (:func:`uniform_after`, called by the model's ``next_state``): queue
  managers that stopped or started since the action began move their clients (004: client
  auto-reconnect through the CCDT group on failure; rebalancing on recovery), then every
  running member announces changed counts and looks for imbalances (``spec.uniform.reconcile``).
- Steps: ``connect``, ``disconnect``, ``join_uniform`` (:data:`UNIFORM_STEP_HANDLERS`).
- Views: :func:`apstatus_of` (DISPLAY APSTATUS for ``mqcheck run``) and
  :func:`apstatus_failures` (``[[expect]] apstatus``).

The CCDT's addresses are resolved to queue managers through their CLUSRCVR CONNAMEs at each
use, so a queue manager defined or changed by a step is found as it is then.
"""

from __future__ import annotations

from typing import Any

from spec import uniform as uc
from spec.network.channels import send
from spec.network.state import LogEntry, add_log
from spec.network.topology import resolve_conname
from spec.uniform_scenario import (
    ConnectStep,
    DisconnectStep,
    ExpectedApstatus,
    JoinUniformStep,
)
from spec.values import replace

__all__ = [
    "UNIFORM_MESSAGE_HANDLERS",
    "UNIFORM_STEP_HANDLERS",
    "apstatus_failures",
    "apstatus_of",
    "ccdt_findings",
    "describe_uniform_step",
    "receive_uniform_message",
    "uniform_after",
    "uniform_context",
    "uniform_initial",
]


def uniform_initial(scenario: Any, state: Any, rules: uc.Rules = uc.DEFAULT_RULES) -> Any:
    """The initial network state with its uniform clusters (unchanged when there are none)."""
    members = [(q.name, q.uniform_cluster) for q in scenario.qmgrs if q.uniform_cluster]
    ccdt = getattr(scenario, "ccdt", None)
    if not members and ccdt is None:
        return state
    entries: dict[str, list[str]] = {}
    for e in (ccdt.entries if ccdt is not None else ()):
        entries.setdefault(e.queue_manager, []).extend(e.addresses)
    u = uc.UniformState(rules=rules, ccdt=tuple((name, tuple(addrs)) for name, addrs in entries.items()))
    for name, cluster in sorted(members):
        u = uc.join(u, name, cluster)
    return replace(state, uniform=u)


def uniform_context(state: Any) -> uc.Context:
    """What the protocol needs to know of the network now (``spec.uniform.Context``).

    A member's peers are the other members of its uniform cluster that its repository for
    the MQ cluster of that name holds queue-manager records of, or that a full repository it
    holds the record of holds them of. The members are "All members of an MQ Cluster" and
    "MQ will automatically share application connectivity knowledge between queue managers"
    (004 §the "uniform cluster" pattern): a partial repository holds records only of the
    queue managers it dealt with, yet learns of every other member through the full
    repositories, which hold them all. A full repository that stopped keeps its repository,
    and the members keep what they learnt through it (docs/decisions.md, session 29)."""
    u = state.uniform
    running = frozenset(q.name for q in state.qmgrs if q.running)
    peers = {}
    for m in u.members:
        q = state.find(m.name)
        cache = q.cache(m.cluster) if q is not None else None
        same = {x.name for x in u.members if x.cluster == m.cluster and x.name != m.name}
        known = {r.owner_name for r in cache.qmgr_records()} if cache is not None else set()
        for fr in (cache.full_repositories() if cache is not None else ()):
            fq = state.find(fr.owner_name)
            fcache = fq.cache(m.cluster) if fq is not None and fq.name != m.name else None
            if fcache is not None and fcache.full:
                known |= {r.owner_name for r in fcache.qmgr_records()}
        peers[m.name] = tuple(sorted(known & same))
    return uc.Context(running, peers, _reach(state, u.ccdt))


_REACH: dict[tuple, tuple[tuple, dict]] = {}  # memo: the same definitions resolve the same way


def _reach(state: Any, ccdt: tuple) -> dict[str, tuple[str, ...]]:
    """CCDT name -> the queue managers its entries' addresses lead to (file order), through
    their CLUSRCVR CONNAMEs. Memoised by the identity of the definitions it reads (kept
    alive in the memo, so an identity is not reused while cached)."""
    key = (id(ccdt),) + tuple(id(q.defs) for q in state.qmgrs)
    hit = _REACH.get(key)
    if hit is not None and hit[0][0] is ccdt and all(a is q.defs for a, q in zip(hit[0][1:], state.qmgrs)):
        return hit[1]
    reach = {}
    for name, addresses in ccdt:
        found: list[str] = []
        for address in addresses:
            owner = resolve_conname(state, address, "")
            if owner is not None and owner not in found:
                found.append(owner)
        reach[name] = tuple(found)
    if len(_REACH) > 10_000:
        _REACH.clear()
    _REACH[key] = ((ccdt,) + tuple(q.defs for q in state.qmgrs), reach)
    return reach


def _apply(state: Any, u: uc.UniformState, fx: uc.Effects, step: int) -> Any:
    state = replace(state, uniform=u)
    for src, dst, msg in fx.sends:
        state = send(state, src, dst, msg)
    return add_log(state, [LogEntry(q, code, detail, step) for q, code, detail in fx.logs])


def uniform_after(before: Any, after: Any) -> Any:
    """The protocol's reaction to whatever the last action did (module docstring)."""
    u = getattr(after, "uniform", None)
    if u is None:
        return after
    ctx = uniform_context(after)
    fx = uc.Effects()
    was = frozenset(q.name for q in before.qmgrs if q.running)
    for name in sorted(was - ctx.running):
        u = uc.member_stopped(u, ctx, name, fx)
    for name in sorted(ctx.running - was):
        u = uc.member_started(u, ctx, name)
    u = uc.reconcile(u, ctx, fx)
    if u is after.uniform and not fx.sends and not fx.logs:
        return after
    return _apply(after, u, fx, after.next_step - 1)


def receive_uniform_message(state: Any, dst: str, msg: Any, step: int, mut: Any = None) -> Any:
    """A uniform-cluster message arrives at ``dst`` (a channel handler)."""
    if getattr(state, "uniform", None) is None:
        return state
    fx = uc.Effects()
    u = uc.receive(state.uniform, uniform_context(state), dst, msg, fx)
    return _apply(state, u, fx, step)


UNIFORM_MESSAGE_HANDLERS = {
    uc.ApplStatusMsg: receive_uniform_message,
    uc.DonationRequest: receive_uniform_message,
    uc.DonationAnswer: receive_uniform_message,
}


# --------------------------------------------------------------------------- steps
def _step_connect(state: Any, step: ConnectStep, mut: Any = None) -> Any:
    fx = uc.Effects()
    u = uc.connect(state.uniform, uniform_context(state), step.app, step.count, step.via, step.reconnect, fx)
    return _apply(state, u, fx, step.index)


def _step_disconnect(state: Any, step: DisconnectStep, mut: Any = None) -> Any:
    return replace(state, uniform=uc.disconnect(state.uniform, step.app, step.count, step.qmgr))


def _step_join_uniform(state: Any, step: JoinUniformStep, mut: Any = None) -> Any:
    return replace(state, uniform=uc.join(state.uniform, step.qmgr, step.cluster, added=True))


UNIFORM_STEP_HANDLERS = {
    ConnectStep: _step_connect,
    DisconnectStep: _step_disconnect,
    JoinUniformStep: _step_join_uniform,
}


def describe_uniform_step(step: Any) -> str | None:
    if isinstance(step, ConnectStep):
        how = "with auto-reconnect" if step.reconnect else "without auto-reconnect"
        return f"connect {step.count} x {step.app} to {step.via} {how}"
    if isinstance(step, DisconnectStep):
        which = "every" if step.count is None else f"the newest {step.count}"
        return f"disconnect {which} {step.app}{' at ' + step.qmgr if step.qmgr else ''}"
    if isinstance(step, JoinUniformStep):
        return f"add {step.qmgr} to uniform cluster {step.cluster}"
    return None


# --------------------------------------------------------------------------- views
def apstatus_of(state: Any) -> dict | None:
    """DISPLAY APSTATUS(*) TYPE(APPL) and TYPE(QMGR) (004 §View application status), or None
    without a uniform cluster."""
    u = getattr(state, "uniform", None)
    if u is None:
        return None
    running = frozenset(q.name for q in state.qmgrs if q.running)
    return {"appl": uc.apstatus_appl(u, running), "qmgr": uc.apstatus_qmgr(u, running)}


def apstatus_failures(expected: tuple[ExpectedApstatus, ...], state: Any) -> list[str]:
    """What an ``[[expect]] apstatus`` block finds wrong (empty when it holds)."""
    view = apstatus_of(state) or {"appl": [], "qmgr": []}
    failures = []
    for e in expected:
        rows = [r for r in view["appl"] if r["APPLNAME"] == e.app]
        got = {"COUNT": sum(r["COUNT"] for r in rows), "MOVCOUNT": sum(r["MOVCOUNT"] for r in rows),
               "BALANCED": rows[0]["BALANCED"] if len(rows) == 1 else ("NO" if any(
                   r["BALANCED"] == "NO" for r in rows) else "YES" if rows else "NOTAPPLIC")}
        for key, want in (("COUNT", e.count), ("MOVCOUNT", e.movcount), ("BALANCED", e.balanced)):
            if want is not None and got[key] != want:
                failures.append(f"APSTATUS({e.app}) TYPE(APPL) {key}: expected {want}, got {got[key]}")
        for qmgr, count, movcount, balstate in e.qmgrs:
            row = next((r for r in view["qmgr"] if r["APPLNAME"] == e.app and r["QMNAME"] == qmgr), None)
            row = row or {"COUNT": 0, "MOVCOUNT": 0, "BALSTATE": "NOTAPPLIC"}
            for key, want in (("COUNT", count), ("MOVCOUNT", movcount), ("BALSTATE", balstate)):
                if want is not None and row[key] != want:
                    failures.append(f"APSTATUS({e.app}) TYPE(QMGR) {qmgr} {key}: expected {want}, got {row[key]}")
    return failures


def ccdt_findings(scenario: Any) -> list[str]:
    """Notes for ``mqcheck run``: uniform-cluster members the CCDT has no real-name entry for."""
    from spec.ccdt import missing_real_name_entries

    ccdt = getattr(scenario, "ccdt", None)
    if ccdt is None:
        return []
    members = [q.name for q in scenario.qmgrs if q.uniform_cluster]
    members += [s.qmgr for s in scenario.steps if isinstance(s, JoinUniformStep)]
    return [f"the CCDT {ccdt.file} has no entry under {m}'s real name: applications cannot be directed to {m} "
            "(004 §Configuring the CCDT for application balancing in a Uniform Cluster)"
            for m in missing_real_name_entries(ccdt, members)]
