"""Which catalogue properties a whole-catalogue ``mqcheck fuzz`` run exercises *non-vacuously*.

``mqcheck fuzz`` reports, per property, ``exercised``: for an ``always`` property the
examples that reached its witness, for an ``eventually`` one the examples where it was
decided. That count can hide a vacuous check (docs/decisions.md, "Session 33: the fuzz
generator exercises the re-drive, retained and termination properties"):

- an ``always`` property whose witness was reached only in examples where the property was
  violated and excused (BD-NOT-FIXED-REDRIVE is excused wherever a handle may be bound:
  ``checker.cli.FUZZ_BOUND_EXCUSES``) was never held to account;
- PS-TERMINATION is decided in every small configuration whose exploration completes; it
  can only fail where publications can go round (002 §How loop detection works), so it is
  counted here only where the configuration has a publish/subscribe loop — a cycle of
  hierarchy links (a publish/subscribe cluster counted as one node: one hop within it, 002
  §Overlapping cluster support) or a republishing application — and a publication was
  forwarded (PS-PUB-FORWARDED reached).

Per property it prints ``exercised`` (as the report counts it) and ``non-vacuous``::

    python benchmarks/fuzz_exercised.py --seed 0 --examples 200 [--max-qmgrs 3] [--json]

The run itself is ``mqcheck fuzz --seed S --max-qmgrs K --examples N --no-database`` (the
same examples: the explorer is only observed).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import checker.explore as explore_module  # noqa: E402
from checker import fuzz as fuzz_module  # noqa: E402
from checker.cli import fuzz_target  # noqa: E402
from checker.model import Kind  # noqa: E402
from spec.strategies_coverage import pubsub_loop  # noqa: E402


def measure(seed: int, examples: int, max_qmgrs: int) -> dict:
    target = fuzz_target("configs", max_qmgrs)
    last: dict = {}
    build = target.build

    def building(configuration):
        last["configuration"] = configuration
        return build(configuration)

    real_explore = explore_module.explore

    def observed(model, **kw):
        result = real_explore(model, **kw)
        last["result"] = result
        return result

    info: dict[int, tuple] = {}
    real_record = fuzz_module._Run.record
    non_vacuous: dict[str, int] = {}

    def record(self, checked, reached, violated, excused, decided):
        if id(checked) not in info:
            info[id(checked)] = (checked, pubsub_loop(last["configuration"]))
        loop = info[id(checked)][1]
        for p in self.props:
            if p.kind is Kind.SOMETIMES:
                hit = p.id in reached
            elif p.kind is Kind.EVENTUALLY:
                hit = p.id in decided and (p.id != "PS-TERMINATION" or (loop and "PS-PUB-FORWARDED" in reached))
            else:
                hit = ((p.witness in reached) if p.witness else (p.id in checked)) and p.id not in excused
            non_vacuous[p.id] = non_vacuous.get(p.id, 0) + int(hit)
        return real_record(self, checked, reached, violated, excused, decided)

    explore_module.explore = observed
    fuzz_module._Run.record = record
    from dataclasses import replace
    target = replace(target, build=building)
    try:
        report = fuzz_module.fuzz_configs(target, examples=examples, seed=seed, max_states=1000)
    finally:
        explore_module.explore = real_explore
        fuzz_module._Run.record = real_record
    rows = {pid: {"exercised": c.exercised, "non_vacuous": non_vacuous.get(pid, 0), "checked": c.checked}
            for pid, c in report.properties.items()}
    return {"seed": seed, "examples": report.examples, "stop_reason": report.stop_reason,
            "counterexample": report.counterexample.property_id if report.counterexample else None,
            "never_exercised": report.never_exercised(),
            "never_non_vacuous": [pid for pid, r in rows.items() if r["non_vacuous"] == 0],
            "properties": rows}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--examples", type=int, default=200)
    ap.add_argument("--max-qmgrs", type=int, default=3)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--only", nargs="*", default=None, help="print only these properties")
    args = ap.parse_args(argv)
    out = measure(args.seed, args.examples, args.max_qmgrs)
    if args.json:
        print(json.dumps(out, indent=2))
        return 0
    print(f"seed {out['seed']}: {out['examples']} examples ({out['stop_reason']})")
    for pid, r in out["properties"].items():
        if args.only is None or pid in args.only:
            print(f"  {pid:32} exercised {r['exercised']:4}  non-vacuous {r['non_vacuous']:4}")
    print("never exercised:", ", ".join(out["never_exercised"]) or "-")
    print("never non-vacuous:", ", ".join(out["never_non_vacuous"]) or "-")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
