"""Pinned results of `mqcheck check` on the publish/subscribe examples (DESIGN §5
"Manifests"): distinct states, depth, completeness and every property's verdict under
each example's own [check] bounds. Regenerate (and review the diff like code) with

    python tests/test_pubsub_manifest.py --update
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
MANIFEST = ROOT / "tests" / "manifests" / "pubsub.json"

sys.path.insert(0, str(ROOT))


def check_example(path: Path):
    from explored import explore_example_at_its_bounds

    return explore_example_at_its_bounds(path.name)  # one exploration per session (tests/explored.py)


def summary(result) -> dict:
    return {
        "distinct_states": result.statistics.distinct_states,
        "max_depth": result.statistics.max_depth,
        "complete": result.statistics.complete,
        "verdicts": {pid: v.status.value for pid, v in sorted(result.verdicts.items())
                     if pid.startswith(("PS-", "EXPECT"))},
    }


def load() -> dict:
    return json.loads(MANIFEST.read_text()) if MANIFEST.exists() else {}


ENTRIES = sorted(load().items())


@pytest.mark.parametrize("name,expected", ENTRIES, ids=[name for name, _ in ENTRIES])
def test_example_matches_manifest(name, expected):
    assert summary(check_example(ROOT / "examples" / name)) == expected


def test_manifest_covers_every_ps_example():
    assert sorted(p.name for p in (ROOT / "examples").glob("ps-*.toml")) == [name for name, _ in ENTRIES]


if __name__ == "__main__":
    if sys.argv[1:2] != ["--update"]:
        sys.exit(__doc__)
    data = {p.name: summary(check_example(p)) for p in sorted((ROOT / "examples").glob("ps-*.toml"))}
    MANIFEST.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n")
    print(f"wrote {MANIFEST} ({len(data)} examples)")
