"""The workload algorithm's first choice among <= K instances, in Z3 (mirrors ``spec.workload.choose``).

The putting queue manager QMAPP may host a local instance of the queue (reached through
its own CLUSRCVR TO.QMAPP); queue managers QM1..QMK may each host a remote instance,
reached through the channel auto-defined from their CLUSRCVR TO.QMi. Everything is in one
cluster. Symbolic: which instances exist, each channel's CLWLRANK, CLWLPRTY, CLWLWGHT,
status class and SUSPEND; each queue's PUT, CLWLRANK, CLWLPRTY; the local queue's and
QMAPP's CLWLUSEQ. History is fresh (every DestSeqFactor 0): the final choice is then the
lowest (queue manager, channel) name — QM1 < ... < QMK < QMAPP.

Mirrored: 001 rules 3 (channel rank), 4 (queue rank), 5 (PUT; MQRC_CLUSTER_PUT_INHIBITED
when only disabled instances remain), 6 (the local instance under CLWLUSEQ LOCAL), 7
(SUSPEND), 8-11 (the best status class, DESIGN §3.7), 13 and 14 (priorities), the final
choice. Trivial here and left out: rules 1-2 (one cluster), 12 (one channel per queue
manager), 15 (default CLWLMRUC). Status classes used: 0 (RUNNING), 2 (RETRYING), 3 (STOPPED).

Variant ``rank_after_status`` (DESIGN §5 mutant, as ``spec.network``'s
``Mutations.rank_after_status``): remote channels outside the best status class are
dropped before the rank rules.
"""

from __future__ import annotations

from dataclasses import dataclass

import z3

from spec.symbolic.base import ticking

STATUS_CODES = (0, 2, 3)
STATUS_NAMES = {0: "RUNNING", 2: "RETRYING", 3: "STOPPED"}
USEQ = ("QMGR", "LOCAL", "ANY")  # the queue's CLWLUSEQ codes


@dataclass
class Route:
    qmgr: str
    channel: str
    local: bool
    exists: z3.BoolRef
    ch_rank: z3.ArithRef
    ch_prty: z3.ArithRef
    weight: z3.ArithRef
    status: z3.ArithRef
    suspended: z3.BoolRef
    put: z3.BoolRef
    q_rank: z3.ArithRef
    q_prty: z3.ArithRef


@dataclass
class Selection:
    routes: list[Route]            # remote QM1..QMK, then the local route (key order)
    local_useq: z3.ArithRef        # the local queue's CLWLUSEQ (USEQ index)
    qmgr_useq_local: z3.BoolRef    # ALTER QMGR CLWLUSEQ(LOCAL) (else ANY)

    @property
    def local(self) -> Route:
        return self.routes[-1]

    def domain(self) -> list[z3.BoolRef]:
        out = [z3.And(self.local_useq >= 0, self.local_useq < len(USEQ))]
        for r in ticking(self.routes):
            out += [z3.And(r.ch_rank >= 0, r.ch_rank <= 9), z3.And(r.ch_prty >= 0, r.ch_prty <= 9),
                    z3.And(r.weight >= 1, r.weight <= 99), z3.Or([r.status == c for c in STATUS_CODES]),
                    z3.And(r.q_rank >= 0, r.q_rank <= 9), z3.And(r.q_prty >= 0, r.q_prty <= 9)]
            if r.local:
                out += [r.status == 0, z3.Not(r.suspended)]  # QMAPP's own CLUSRCVR runs
        return out

    def effective_useq_local(self) -> z3.BoolRef:
        """001 rule 6: the queue's CLWLUSEQ, or QMAPP's when the queue says QMGR."""
        return z3.If(self.local_useq == USEQ.index("QMGR"), self.qmgr_useq_local,
                     self.local_useq == USEQ.index("LOCAL"))


def selection(k: int) -> Selection:
    def route(qmgr: str, local: bool) -> Route:
        t = f"{qmgr}"
        return Route(qmgr, f"TO.{qmgr}", local, z3.Bool(f"{t}.instance"), z3.Int(f"{t}.channel.CLWLRANK"),
                     z3.Int(f"{t}.channel.CLWLPRTY"), z3.Int(f"{t}.channel.CLWLWGHT"), z3.Int(f"{t}.channel.status"),
                     z3.Bool(f"{t}.SUSPEND"), z3.Bool(f"{t}.queue.PUT"), z3.Int(f"{t}.queue.CLWLRANK"),
                     z3.Int(f"{t}.queue.CLWLPRTY"))
    routes = [route(f"QM{i + 1}", False) for i in ticking(range(k))] + [route("QMAPP", True)]
    return Selection(routes, z3.Int("QMAPP.queue.CLWLUSEQ"), z3.Bool("QMAPP.CLWLUSEQ_LOCAL"))


def _keep_max(live: list[z3.BoolRef], values: list[z3.ArithRef]) -> list[z3.BoolRef]:
    """Keep the live routes whose value is the largest among the live ones."""
    return [z3.And(l_i, *[z3.Implies(l_j, v_j <= v_i) for l_j, v_j in zip(live, values)])
            for l_i, v_i in ticking(zip(live, values))]


def _keep_min(live: list[z3.BoolRef], values: list[z3.ArithRef]) -> list[z3.BoolRef]:
    return [z3.And(l_i, *[z3.Implies(l_j, v_j >= v_i) for l_j, v_j in zip(live, values)])
            for l_i, v_i in ticking(zip(live, values))]


@dataclass
class Outcome:
    chosen: list[z3.BoolRef]   # chosen[i]: route i is the destination
    inhibited: z3.BoolRef      # MQRC_CLUSTER_PUT_INHIBITED
    no_instance: z3.BoolRef    # MQRC_UNKNOWN_OBJECT_NAME


def choose(sel: Selection, variant: str = "") -> Outcome:
    """The algorithm's outcome as terms over the selection's variables."""
    rs = sel.routes
    live = [r.exists for r in rs]
    if variant == "rank_after_status":
        remote = [(l, r) for l, r in zip(live, rs) if not r.local]
        best = _keep_min([l for l, _ in remote], [r.status for _, r in remote])
        live = best + [live[-1]]
    live = _keep_max(live, [r.ch_rank for r in rs])                       # rule 3
    live = _keep_max(live, [r.q_rank for r in rs])                        # rule 4
    any_live = z3.Or(live)
    enabled = [z3.And(l, r.put) for l, r in zip(live, rs)]                # rule 5
    inhibited = z3.And(any_live, z3.Not(z3.Or(enabled)))
    live = enabled
    local_stop = z3.And(live[-1], sel.effective_useq_local())             # rule 6
    several = z3.Sum([z3.If(l, 1, 0) for l in live]) >= 2                 # rule 7
    some_running = z3.Or([z3.And(l, z3.Not(r.suspended)) for l, r in zip(live, rs)])
    drop = z3.And(several, some_running)
    live = [z3.And(l, z3.Or(z3.Not(drop), z3.Not(r.suspended))) for l, r in zip(live, rs)]
    live = _keep_min(live, [r.status for r in rs])                        # rules 8-11
    live = _keep_max(live, [r.ch_prty for r in rs])                       # rule 13
    live = _keep_max(live, [r.q_prty for r in rs])                        # rule 14
    first = [z3.And(l, *[z3.Not(e) for e in live[:i]]) for i, l in ticking(enumerate(live))]  # final choice
    chosen = [z3.And(z3.Not(inhibited), z3.If(local_stop, z3.BoolVal(r.local), f)) for r, f in zip(rs, first)]
    return Outcome(chosen, inhibited, z3.Not(z3.Or([r.exists for r in rs])))


def decode(sel: Selection, model: z3.ModelRef) -> dict:
    def val(x):
        v = model.eval(x, model_completion=True)
        return z3.is_true(v) if z3.is_bool(v) else v.as_long()
    routes = []
    for r in ticking(sel.routes):
        routes.append({"qmgr": r.qmgr, "channel": r.channel, "local": r.local, "instance": val(r.exists),
                       "CLWLRANK": val(r.ch_rank), "CLWLPRTY": val(r.ch_prty), "CLWLWGHT": val(r.weight),
                       "status": STATUS_NAMES[val(r.status)], "suspended": val(r.suspended), "PUT": val(r.put),
                       "queue CLWLRANK": val(r.q_rank), "queue CLWLPRTY": val(r.q_prty)})
    return {"routes": routes, "local CLWLUSEQ": USEQ[val(sel.local_useq)],
            "QMGR CLWLUSEQ": "LOCAL" if val(sel.qmgr_useq_local) else "ANY"}
