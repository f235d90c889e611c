"""Write `mqcheck run --json` and `mqcheck check --json` of every bundled example, timings
stripped, to one file per example and command — for before/after comparisons of a change
that must not alter behaviour (run it on the base commit in a `git worktree` and on the
change, then `diff -r`).

    python scripts/dump-example-outputs.py TREE OUTDIR [EXAMPLE.toml ...]

TREE is the checkout whose code and examples are used (its code is put first on
PYTHONPATH); paths inside the output are written relative to it, so two trees compare.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

TIMING = re.compile(r"(second|time|elapsed|rate|per_s|memory|rss)")


def strip_timings(value):
    if isinstance(value, dict):
        return {k: strip_timings(v) for k, v in value.items() if not TIMING.search(k)}
    if isinstance(value, list):
        return [strip_timings(v) for v in value]
    return value


def main(argv: list[str]) -> int:
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    tree, out = Path(argv[0]).resolve(), Path(argv[1])
    out.mkdir(parents=True, exist_ok=True)
    names = sorted(p.name for p in (tree / "examples").glob("*.toml"))
    if argv[2:]:
        names = [n for n in names if n in argv[2:]]
    env = dict(os.environ, PYTHONPATH=str(tree))
    for name in names:
        for command in ("run", "check"):
            proc = subprocess.run([sys.executable, "-m", "checker.cli", command, str(tree / "examples" / name), "--json"],
                                  cwd=tree, env=env, capture_output=True, text=True, check=False)
            try:
                data = strip_timings(json.loads(proc.stdout))
            except json.JSONDecodeError:
                data = {"stdout": proc.stdout, "stderr": proc.stderr}
            text = json.dumps({"exit": proc.returncode, "out": data}, indent=1, sort_keys=True)
            (out / f"{name}.{command}.json").write_text(text.replace(str(tree), "TREE") + "\n")
        print(name, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
