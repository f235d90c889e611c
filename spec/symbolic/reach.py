"""A publication at queue manager P reaching a subscription at queue manager S, in Z3.

P and S are members of one publish/subscribe cluster CL1 (cluster topic records defined at
a third queue manager, so both hold the same records; their local topic objects differ).
Mirrors ``spec.pubsub`` (DESIGN §3.3) for one publication and two subscriptions at S —
``s1``, whose delivery is in question, and ``s2``, any other subscription there (present
or not): a publication reaches S when *some* subscription there pulled it over with a
proxy subscription, and then every matching eligible subscription receives it (002's
"unexpected result" in §Wildcards and cluster topics).

- ``demand_sources``: a subscription whose effective scope is ALL (no MQSO_SCOPE_QMGR, the
  effective SUBSCOPE at its topic object) creates demand (002 §Subscription scope);
- ``_may_send``: the proxy subscription goes to the cluster's members when its topic
  resolves at S to a cluster topic of that cluster with SUBSCOPE ALL (002 §Topic spaces);
- ``route_publication`` step 3: P forwards when the effective PUBSCOPE at P is ALL and no
  MQPMO_SCOPE_QMGR (002 §Publication scope), to S when S's proxy subscription matches and
  is not blocked by WILDCARD at P (``forward_targets``);
- step 2 at S: a remote publication reaches a matching subscription not blocked by
  WILDCARD whose effective scope is ALL (``_eligible``).

A multi-hop hierarchy route P = x0, ..., xk = S (``mids``: the topic spaces of x1 ..
x(k-1); spec/symbolic/scenario.py's ``route``): S's proxy subscription is relayed towards P
by each queue manager between whose effective SUBSCOPE for it is ALL (``relayed``); each
x(j) sends the publication on to x(j+1) when it holds a matching proxy subscription from it
not blocked by its WILDCARD (``hop``: any of S's subscriptions may serve any hop, as
forwarding looks only at the proxy subscriptions held there); the publication leaves P as
in the one-hop case and each x(j) between forwards it when its effective PUBSCOPE is ALL
(``relays_publication``). Other subscriptions are quantified at S only (``s2``), as in
the one-hop case.

Topic-scheme subscriptions only (a character-scheme subscription's proxy is its
``char_to_topic_wildcard``, covered by spec/topics.py's tests). Variant:
``ignore_subscope_remote`` (DESIGN §5 mutant "ignoring SUBSCOPE").
"""

from __future__ import annotations

from dataclasses import dataclass

import z3

from spec.symbolic.topic_tree import SCOPES, SymTree
from spec.symbolic.topics import (
    SymSubscription,
    SymTopic,
    matches,
    sym_subscription,
    sym_topic,
)

ALL = SCOPES.index("ALL")
CL1 = 1  # SymTree.clusters index of the cluster P and S share
CL2 = 2  # a cluster neither is a member of


@dataclass
class Sub:
    sub: SymSubscription
    present: z3.BoolRef
    scope_qmgr: z3.BoolRef  # MQSO_SCOPE_QMGR / DEFINE SUB SUBSCOPE(QMGR)


@dataclass
class ReachProblem:
    names: tuple[str, ...]
    records: SymTree | None  # the cluster topic records both hold (bounded claims), else None
    pub_tree: SymTree  # P's topic space
    sub_tree: SymTree  # S's topic space
    topic: SymTopic
    pmo_scope_qmgr: z3.BoolRef
    subs: list[Sub]    # subs[0] is s1, the one observed
    links: dict[str, z3.BoolRef] = None  # link kind ("" hierarchy, or a cluster name) -> P, S neighbours
    same_qmgr: bool = False  # P is S: local delivery
    # a multi-hop hierarchy route P = x0, x1, ..., xk = S: the topic spaces of x1 .. x(k-1)
    # and every name on it (``links[""]`` then says each hop is a hierarchy link)
    mids: tuple[SymTree, ...] = ()
    hops: tuple[str, ...] = ()

    def domain(self) -> list[z3.BoolRef]:
        out = self.pub_tree.domain() + self.sub_tree.domain() + self.topic.domain()
        for tree in self.mids:
            out += tree.domain()
        if self.records is not None:
            out += self.records.domain()
            for tree in (self.pub_tree, self.sub_tree):
                # a local object names no cluster, or CL2, a cluster P and S do not share (002
                # §Resynchronization of proxy subscriptions: "the wrong cluster name"); naming CL1
                # would make it a definition of CL1, which every member holds as a record
                out += [z3.Or(v.local_attrs["cluster"] == 0, v.local_attrs["cluster"] == CL2)
                        for v in tree.nodes.values()]
            out += [z3.Implies(v.record, v.record_attrs["cluster"] == CL1) for v in self.records.nodes.values()]
            out += [t.nodes[()].local_attrs["cluster"] == 0 for t in (self.pub_tree, self.sub_tree)]
        for s in self.subs:
            out += s.sub.domain()
        out.append(self.subs[0].present)
        return out

    def linked(self) -> z3.BoolRef:
        """P and S are publish/subscribe neighbours: CL1 has a cluster topic (002 §Cluster topics)."""
        return z3.Or([v.record for n, v in self.records.nodes.items() if n != ()])

    def route(self, s: Sub) -> z3.BoolRef:
        """``_may_send``'s link test for ``s``'s proxy subscription: over a hierarchy link
        always; over a cluster link when it resolves at S to a cluster topic of that cluster."""
        if self.links is None:
            return z3.And(self.sub_tree.effective_for_subscription("cluster", s.sub) == CL1, self.linked())
        options = []
        for via, linked in sorted(self.links.items()):
            if via == "":
                options.append(linked)
            else:
                code = self.sub_tree.clusters.index(via)
                options.append(z3.And(linked, self.sub_tree.effective_for_subscription("cluster", s.sub) == code))
        return z3.Or(options) if options else z3.BoolVal(False)

    def effective_scope_all(self, s: Sub) -> z3.BoolRef:
        return z3.And(z3.Not(s.scope_qmgr), self.sub_tree.effective_for_subscription("subscope", s.sub) == ALL)

    def proxy_sent(self, s: Sub) -> z3.BoolRef:
        """S holds demand for ``s`` and sends its proxy subscription over the CL1 link."""
        return z3.And(s.present, self.effective_scope_all(s), self.route(s))

    def pulled(self, s: Sub) -> z3.BoolRef:
        """P holds ``s``'s proxy and it matches the publication, not blocked at P."""
        return z3.And(self.proxy_sent(s), matches(s.sub, self.topic),
                      z3.Not(self.pub_tree.blocked(s.sub, self.topic)))

    def forwardable(self) -> z3.BoolRef:
        return z3.And(z3.Not(self.pmo_scope_qmgr), self.pub_tree.effective("pubscope", self.topic) == ALL)

    def trees(self) -> tuple[SymTree, ...]:
        """The topic spaces along the route, P's first, S's last."""
        return (self.pub_tree, *self.mids, self.sub_tree)

    def relayed(self, s: Sub, j: int) -> z3.BoolRef:
        """``s``'s proxy subscription is held at the route's ``j``-th queue manager (0 = P):
        S sent it, and each queue manager between S and that one relayed it, which needs its
        effective SUBSCOPE ALL for the proxy's topic string (002 §Subscription scope: "The
        scope of a subscription controls whether a queue manager forwards a subscription to
        remote queue managers"; ``spec.pubsub._may_send`` with a neighbour as the source)."""
        relays = [t.effective_for_subscription("subscope", s.sub) == ALL for t in self.mids[j:]]
        return z3.And(self.proxy_sent(s), *relays)

    def hop(self, j: int) -> z3.BoolRef:
        """The route's ``j``-th queue manager sends the publication on to the next: it holds a
        matching proxy subscription from it (any subscription at S's, relayed) that its
        WILDCARD does not block (``spec.pubsub.forward_targets``; 002 §Proxy subscription
        aggregation and publication aggregation: one copy per neighbour)."""
        tree = self.trees()[j]
        return z3.Or([z3.And(self.relayed(s, j), matches(s.sub, self.topic), z3.Not(tree.blocked(s.sub, self.topic)))
                      for s in self.subs])

    def relays_publication(self) -> z3.BoolRef:
        """Every intermediate queue manager forwards the publication it received: its effective
        PUBSCOPE is ALL there (002 §Publication scope: "The scope of a publication controls
        whether queue managers forward a publication to remote queue managers";
        ``spec.pubsub.route_publication`` step 3 for an arrived publication)."""
        return z3.And([t.effective("pubscope", self.topic) == ALL for t in self.mids])

    def eligible(self, s: Sub, variant: str = "") -> z3.BoolRef:
        local = z3.And(matches(s.sub, self.topic), z3.Not(self.sub_tree.blocked(s.sub, self.topic)))
        if variant == "ignore_subscope_remote":
            return local
        return z3.And(local, self.effective_scope_all(s))


def reach_problem(depth: int, names: tuple[str, ...] = ("a", "b"), subs: int = 2) -> ReachProblem:
    clusters = ("CL1", "CL2")
    records = SymTree("records", names, depth, clusters)
    pub_tree = SymTree("P", names, depth, clusters, records_of=records)
    sub_tree = SymTree("S", names, depth, clusters, records_of=records)
    topic = sym_topic("topic", names, depth + 1)
    out = [Sub(sym_subscription(f"s{i + 1}", names, depth + 1), z3.Bool(f"s{i + 1}.present"),
               z3.Bool(f"s{i + 1}.scope_qmgr")) for i in range(subs)]
    return ReachProblem(names, records, pub_tree, sub_tree, topic, z3.Bool("pmo_scope_qmgr"), out)


def rules(rp: ReachProblem, sent: z3.BoolRef, reached: z3.BoolRef, variant: str = "") -> dict[str, z3.BoolRef]:
    """Named facts defining ``sent`` (P forwards to S) and ``reached`` (s1 receives)."""
    if rp.same_qmgr:
        local = z3.And(matches(rp.subs[0].sub, rp.topic), z3.Not(rp.sub_tree.blocked(rp.subs[0].sub, rp.topic)))
        return {"002 §Controlling wildcard usage with the WILDCARD property: a local publication reaches every "
                "matching subscription that WILDCARD does not block": z3.And(sent, reached == local)}
    if rp.mids:
        via = ", ".join(rp.hops[1:-1])
        return {
            f"002 §Publication scope, §Subscription scope, §Combine and isolate topic spaces in multiple clusters: "
            f"along the hierarchy route via {via}, P forwards a publication when its effective PUBSCOPE is ALL and no "
            "MQPMO_SCOPE_QMGR, each queue manager between relays it when its own effective PUBSCOPE is ALL, and each "
            "one sends it on to the next when it holds a matching proxy subscription from it that WILDCARD does not "
            "block there, a proxy subscription that S sent (effective scope ALL) and every queue manager between "
            "relayed (its effective SUBSCOPE ALL)":
                sent == z3.And(rp.forwardable(), rp.relays_publication(), *[rp.hop(j) for j in range(len(rp.mids) + 1)]),
            "002 §Subscription scope, §Controlling wildcard usage with the WILDCARD property: a publication that "
            "arrived reaches a matching, unblocked subscription whose effective scope is ALL":
                reached == z3.And(sent, rp.eligible(rp.subs[0], variant)),
        }
    # the link the proxy subscription took, as ``route`` has it (a scenario's own cluster, not CL1)
    over = "a cluster topic of CL1 at S" if rp.links is None else "; ".join(
        "over the hierarchy link, any topic" if via == "" else f"a cluster topic of {via} at S"
        for via in sorted(rp.links))
    return {
        "002 §Publication scope, §Proxy subscriptions: P forwards a publication to S when its effective PUBSCOPE "
        "is ALL, no MQPMO_SCOPE_QMGR, and some subscription at S sent a matching proxy subscription "
        f"({over}, effective scope ALL) that WILDCARD does not block at P":
            sent == z3.And(rp.forwardable(), z3.Or([rp.pulled(s) for s in rp.subs])),
        "002 §Subscription scope, §Controlling wildcard usage with the WILDCARD property: a publication that "
        "arrived reaches a matching, unblocked subscription whose effective scope is ALL":
            reached == z3.And(sent, rp.eligible(rp.subs[0], variant)),
    }
