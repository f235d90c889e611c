"""The path of one publication through a hierarchy + cluster graph, in Z3.

Mirrors ``spec.pubsub.route_publication`` / ``forward_targets`` / ``_relay_allowed`` and the
network's links (``spec.network.pubsub_links``; DESIGN §3.3):
- links: hierarchy edges (ALTER QMGR PARENT) and every pair of members of the pub/sub
  cluster (the topic is a cluster topic there);
- a publication goes to each neighbour other than the one it came from (002 §How does
  distributed publish/subscribe work?);
- one hop in a cluster: what arrived over a cluster link never leaves over one, and what
  came from a member is never relayed to another member (002 §Overlapping cluster
  support, §Topic spaces);
- 002 §How loop detection works: a queue manager that finds its own fingerprint discards
  the publication — it is processed nowhere twice.

Every neighbour is assumed to hold a matching proxy subscription (demand everywhere):
that over-approximates forwarding, so a bound proved here holds for any demand. A path is
``q[0..len]``: processed at q[0] (published there), then at each q[k+1] it reached.

Variant: ``no_fingerprint_check`` (DESIGN §5 mutant) drops the discard rule.
"""

from __future__ import annotations

from dataclasses import dataclass

import z3

from spec.symbolic.base import ticking

HIERARCHY, CLUSTER = 0, 1
NO_PARENT = -1


@dataclass
class Graph:
    n: int
    exists: list[z3.BoolRef]
    parent: list[z3.ArithRef]     # index of the parent, NO_PARENT for none
    member: list[z3.BoolRef]      # member of the publish/subscribe cluster CL1

    def domain(self) -> list[z3.BoolRef]:
        out = [self.exists[0]]
        out += [z3.Implies(self.exists[i], self.exists[i - 1]) for i in range(1, self.n)]
        for i in ticking(range(self.n)):
            out.append(z3.Or(self.parent[i] == NO_PARENT,
                             z3.And(self.parent[i] >= 0, self.parent[i] < self.n, self.parent[i] != i)))
            out.append(z3.Implies(z3.Not(self.exists[i]), z3.And(self.parent[i] == NO_PARENT, z3.Not(self.member[i]))))
            for j in ticking(range(self.n)):
                out.append(z3.Implies(self.parent[i] == j, self.exists[j]))
        return out

    def _pick(self, arr, q: z3.ArithRef):
        out = arr[-1]
        for i in ticking(range(self.n - 2, -1, -1)):
            out = z3.If(q == i, arr[i], out)
        return out

    def hierarchy_link(self, a: z3.ArithRef, b: z3.ArithRef) -> z3.BoolRef:
        return z3.Or(self._pick(self.parent, a) == b, self._pick(self.parent, b) == a)

    def cluster_link(self, a: z3.ArithRef, b: z3.ArithRef) -> z3.BoolRef:
        return z3.And(a != b, self._pick(self.member, a), self._pick(self.member, b))

    def is_member(self, q: z3.ArithRef) -> z3.BoolRef:
        return self._pick(self.member, q)

    def exists_at(self, q: z3.ArithRef) -> z3.BoolRef:
        return self._pick(self.exists, q)


def graph(n: int) -> Graph:
    return Graph(n, [z3.Bool(f"QM{i + 1}.exists") for i in ticking(range(n))],
                 [z3.Int(f"QM{i + 1}.parent") for i in ticking(range(n))],
                 [z3.Bool(f"QM{i + 1}.member") for i in ticking(range(n))])


@dataclass
class Path:
    length: z3.ArithRef            # hops
    qmgr: list[z3.ArithRef]        # qmgr[k], k = 0..bound
    via: list[z3.ArithRef]         # via[k]: link type of hop k (qmgr[k] -> qmgr[k+1])

    def domain(self, g: Graph) -> list[z3.BoolRef]:
        out = [self.length >= 0, self.length <= len(self.via)]
        out += [z3.And(q >= 0, q < g.n, g.exists_at(q)) for q in ticking(self.qmgr)]
        out += [z3.Or(v == HIERARCHY, v == CLUSTER) for v in ticking(self.via)]
        return out


def path(bound: int) -> Path:
    return Path(z3.Int("path.hops"), [z3.Int(f"path.q{k}") for k in ticking(range(bound + 1))],
                [z3.Int(f"path.via{k}") for k in ticking(range(bound))])


def rules(g: Graph, p: Path, variant: str = "") -> dict[str, z3.BoolRef]:
    """The named rules each hop k < length obeys."""
    hops = range(len(p.via))
    def on(k, rule):
        return z3.Implies(k < p.length, rule)
    link = [on(k, z3.If(p.via[k] == HIERARCHY, g.hierarchy_link(p.qmgr[k], p.qmgr[k + 1]),
                        g.cluster_link(p.qmgr[k], p.qmgr[k + 1]))) for k in ticking(hops)]
    back = [on(k, p.qmgr[k + 1] != p.qmgr[k - 1]) for k in ticking(hops) if k >= 1]
    one_hop = [on(k, z3.Not(z3.And(p.via[k - 1] == CLUSTER, p.via[k] == CLUSTER))) for k in ticking(hops) if k >= 1]
    no_dup = [on(k, z3.Not(z3.And(g.is_member(p.qmgr[k - 1]), g.is_member(p.qmgr[k + 1]))))
              for k in ticking(hops) if k >= 1]
    fingerprint = [on(k, z3.And([p.qmgr[k + 1] != p.qmgr[j] for j in ticking(range(k + 1))])) for k in hops]
    out = {
        "002 §How does distributed publish/subscribe work?: publications travel over hierarchy links "
        "and between members of a publish/subscribe cluster": z3.And(link),
        "002 §How does distributed publish/subscribe work?: never back to the neighbour it came from": z3.And(back),
        "002 §Overlapping cluster support: what arrived over a cluster link never leaves over one": z3.And(one_hop),
        "002 §Topic spaces: what came from a member of the cluster is not relayed to another member": z3.And(no_dup),
    }
    if variant != "no_fingerprint_check":
        out["002 §How loop detection works: a queue manager discards a publication carrying its own "
            "fingerprint"] = z3.And(fingerprint)
    return out


def decode(g: Graph, p: Path, model: z3.ModelRef) -> dict:
    def val(x):
        return model.eval(x, model_completion=True)
    k = sum(1 for e in g.exists if z3.is_true(val(e)))
    hops = val(p.length).as_long()
    return {
        "qmgrs": k,
        "parent": [val(g.parent[i]).as_long() for i in range(k)],
        "member": [z3.is_true(val(g.member[i])) for i in range(k)],
        "path": [val(p.qmgr[j]).as_long() for j in range(hops + 1)],
        "via": ["cluster" if val(p.via[j]).as_long() == CLUSTER else "hierarchy" for j in range(hops)],
    }
