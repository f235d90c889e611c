"""The mutant catalogue of `mqcheck fuzz` (issue #14): for each mutant switch of the
network model (spec.network.Mutations), fuzz the mutated model with the real generator
and report whether it is found, after how many examples and CPU seconds, which property
catches it, and the size of the shrunk scenario; then check that the shrunk scenario is a
real witness: explored under the mutant it violates that property, explored under the
real spec it does not.

    python benchmarks/bench_fuzz_mutants.py [--examples N] [--seed S] [--mode configs|walks] [MUTANT...]

Prints a Markdown table (benchmarks/RESULTS.md, "Fuzzing: the mutant catalogue").
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from checker.cli import FUZZ_DEFAULTS, _check_properties, fuzz_target  # noqa: E402
from checker.explore import explore  # noqa: E402
from checker.fuzz import fuzz_configs, fuzz_walks, write_counterexample  # noqa: E402
from checker.model import Status  # noqa: E402
from spec.network import MQNetwork, Mutations  # noqa: E402
from spec.scenario import load_scenario  # noqa: E402

MUTANTS = [f.name for f in dataclasses.fields(Mutations) if f.name != "explain"]


def replay(path: Path, mutation: Mutations, prop: str, max_states: int) -> Status:
    """What `mqcheck check FILE --property PROP --max-states N` gives on the model (mutated or not)."""
    scenario = load_scenario(path)
    model = MQNetwork(scenario, _check_properties(scenario), mutations=mutation)
    return explore(model, max_states=max_states, property_ids=[prop], workers=1).verdicts[prop].status


# Properties the real spec violates in generated configurations (issue #14's findings, see
# benchmarks/RESULTS.md and tests/regressions/): left out, so a mutant is not credited with them.
KNOWN_REAL_FINDINGS: tuple[str, ...] = ()


def catalogue_properties() -> list[str]:
    from spec.scenario import parse_scenario

    ids = [p.id for p in _check_properties(parse_scenario('name = "x"\n[qmgrs.QM1]\n', "x.toml"))]
    return [pid for pid in ids if pid not in KNOWN_REAL_FINDINGS]


def hunt(name: str, examples: int, seed: int, mode: str = "configs", out: Path | None = None) -> dict:
    mutation = Mutations(**{name: True})
    fuzz = fuzz_target(mode, mutations=mutation)
    bound = FUZZ_DEFAULTS[mode]["bound"]
    cpu = time.process_time()
    ids = catalogue_properties()
    if mode == "configs":
        report = fuzz_configs(fuzz, examples=examples, seed=seed, max_states=bound, property_ids=ids)
    else:
        report = fuzz_walks(fuzz, examples=examples, seed=seed, max_steps=bound, property_ids=ids)
    row = {"mutant": name, "mode": mode, "seed": seed, "budget": examples, "found": report.counterexample is not None,
           "examples": report.examples, "cpu_s": round(time.process_time() - cpu, 1)}
    c = report.counterexample
    if c is None:
        return row
    out = out or Path(tempfile.mkdtemp(prefix="mqcheck-mutant-"))
    path = write_counterexample(report, fuzz, out)
    replay_bound = max(bound, 20000)
    row.update(property=c.property_id, size=c.size, trace=len(c.trace), file=str(path))
    if c.property_id != "CRASH":
        row["mutant_replay"] = replay(path, mutation, c.property_id, replay_bound).value
        row["real_spec_replay"] = replay(path, Mutations(), c.property_id, replay_bound).value
    return row


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("mutants", nargs="*", default=MUTANTS)
    ap.add_argument("--examples", type=int, default=300)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--mode", choices=("configs", "walks"), default="configs")
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args()
    print("| mutant | mode | seed | found | examples | CPU s | caught by | shrunk size (qmgrs/MQSC/steps) | trace |"
          " replay under mutant | replay under real spec |")
    print("|---|---|---:|---|---:|---:|---|---|---:|---|---|")
    for name in args.mutants:
        r = hunt(name, args.examples, args.seed, args.mode, args.out)
        size = r.get("size")
        size_text = f"{size['qmgrs']}/{size['mqsc_commands']}/{size['steps']}" if size else "-"
        print(f"| {name} | {r['mode']} | {r['seed']} | {'yes' if r['found'] else 'NO'} | {r['examples']} of "
              f"{r['budget']} | {r['cpu_s']} | {r.get('property', '-')} | {size_text} | {r.get('trace', '-')} | "
              f"{r.get('mutant_replay', '-')} | {r.get('real_spec_replay', '-')} |", flush=True)


if __name__ == "__main__":
    main()
