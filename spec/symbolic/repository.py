"""Record propagation among full repositories over a symbolic CLUSSDR graph, in Z3.

Mirrors the network model's repository rules (``spec.network``; DESIGN §3.4):
- 003 §Queue managers and repositories / ``_two_frs``: a partial repository publishes a
  changed record to two full repositories (its manual CLUSSDR's first; "for every PR's
  choice" = every ordered pair here);
- 000 §Resource definition for Full Repositories / ``_fr_after_apply``: an FR forwards what
  it received from a non-FR to every FR it has a manual CLUSSDR to, and does not
  re-forward what another FR sent it; an FR's own change goes out as if received from a
  non-FR.

The graph: at most N full repositories (the first ``k`` exist), ``edge[i, j]`` = FR i has a
manual CLUSSDR to FR j. Reception is unrolled N rounds (a fixpoint: N rounds reach every
FR that any chain of forwards reaches). Variants flip the rules (DESIGN §5 mutants):
``fr_forwarding_swapped`` (FRs forward what FRs sent, not what PRs sent) and
``publish_to_one_fr``.

Abstracted away: the JOIN handshake (FRs exchange everything when a manual CLUSSDR first
connects: records changed *after* the cluster settled are what can be lost), channels
failing, sequence numbers (every record here is new).
"""

from __future__ import annotations

from dataclasses import dataclass

import z3

from spec.symbolic.base import checkpoint, ticking


@dataclass
class FrMesh:
    n: int
    exists: list[z3.BoolRef]
    edge: dict[tuple[int, int], z3.BoolRef]
    forwards_from_pr: z3.BoolRef  # an FR forwards records a non-FR sent it (and its own)
    forwards_from_fr: z3.BoolRef  # an FR re-forwards records another FR sent it
    two_frs: z3.BoolRef           # a PR publishes to two FRs (else one)

    def domain(self) -> list[z3.BoolRef]:
        out = [self.exists[0], self.exists[1]]  # RP-TWO-FRS: a cluster has at least two FRs
        out += [z3.Implies(self.exists[i], self.exists[i - 1]) for i in range(1, self.n)]
        for (i, j), e in ticking(self.edge.items()):
            out.append(z3.Implies(e, z3.And(self.exists[i], self.exists[j])))
        for i in ticking(range(self.n)):
            # an FR joins the cluster through a manual CLUSSDR (003 §Cluster channels)
            out.append(z3.Implies(self.exists[i], z3.Or([self.edge[i, j] for j in range(self.n) if j != i])))
        return out

    def complete(self) -> z3.BoolRef:
        """000 §Considerations for Full Repositories: the FRs are a fully connected set."""
        return z3.And([z3.Implies(z3.And(self.exists[i], self.exists[j]), e)
                       for (i, j), e in ticking(self.edge.items())])

    def received(self, first: list[z3.BoolRef], from_pr: bool) -> list[z3.BoolRef]:
        """Which FRs end up holding a record that ``first[i]`` FRs got first — from a PR
        (``from_pr``) or as their own change (which counts as from a non-FR)."""
        got = list(first)
        via_fr = [z3.BoolVal(False)] * self.n
        for _ in range(self.n):
            checkpoint()
            forwards = [z3.Or(z3.And(first[i], self.forwards_from_pr), z3.And(via_fr[i], self.forwards_from_fr))
                        for i in range(self.n)]
            via_fr = [z3.Or([z3.And(forwards[i], self.edge[i, j]) for i in range(self.n) if i != j])
                      for j in ticking(range(self.n))]
            got = [z3.Or(got[j], via_fr[j]) for j in range(self.n)]
        return got

    def own_record_reaches(self, owner: int) -> list[z3.BoolRef]:
        return self.received([z3.BoolVal(i == owner) for i in range(self.n)], from_pr=False)

    def pr_record_reaches(self, a: int, b: int) -> list[z3.BoolRef]:
        first = [z3.Or(z3.BoolVal(i == a), z3.And(self.two_frs, z3.BoolVal(i == b))) for i in range(self.n)]
        return self.received(first, from_pr=True)


def fr_mesh(n: int) -> FrMesh:
    exists = [z3.Bool(f"FR{i + 1}.exists") for i in range(n)]
    edge = {(i, j): z3.Bool(f"CLUSSDR FR{i + 1}->FR{j + 1}") for i in ticking(range(n)) for j in range(n) if i != j}
    return FrMesh(n, exists, edge, z3.Bool("rule.forwards_from_pr"), z3.Bool("rule.forwards_from_fr"),
                  z3.Bool("rule.two_frs"))


def rules(mesh: FrMesh, variant: str = "") -> dict[str, z3.BoolRef]:
    """The named rule facts (the unsat core picks among these)."""
    swapped = variant == "fr_forwarding_swapped"
    return {
        "000 §Resource definition for Full Repositories: an FR forwards what a non-FR sent it (and its own "
        "changes) to every FR it has a manual CLUSSDR to": mesh.forwards_from_pr == (not swapped),
        "000 §Resource definition for Full Repositories: an FR does not re-forward what another FR sent it":
            mesh.forwards_from_fr == swapped,
        "003 §Queue managers and repositories: a partial repository publishes to two full repositories":
            mesh.two_frs == (variant != "publish_to_one_fr"),
    }


def decode_graph(mesh: FrMesh, model: z3.ModelRef) -> tuple[int, list[tuple[int, int]]]:
    """(number of FRs, manual CLUSSDR edges) of a model; FRs are numbered from 0."""
    k = sum(1 for e in mesh.exists if z3.is_true(model.eval(e, model_completion=True)))
    edges = sorted((i, j) for (i, j), e in ticking(mesh.edge.items())
                   if i < k and j < k and z3.is_true(model.eval(e, model_completion=True)))
    return k, edges
