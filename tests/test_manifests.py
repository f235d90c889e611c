"""Pinned results of `mqcheck check` on the bundled examples (DESIGN §5 "Manifests").

Publish/subscribe (ps-*), workload (wl-*) and uniform-cluster (uc-*) examples are pinned by
their own areas (tests/manifests/pubsub.json, workload.json, uniform.json); this file pins
the rest.
tests/manifests/examples.json records, per example, the distinct-state count, the depth
and every property's verdict status under the default settings. Every backend must
reproduce them exactly; a change to the spec that moves a number must say so by
regenerating the file (reviewed like code):

    python tests/test_manifests.py --update [EXAMPLE ...]
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
MANIFEST = ROOT / "tests" / "manifests" / "examples.json"

sys.path.insert(0, str(ROOT))


def check_example(path: Path):
    from explored import explore_example_at_its_bounds

    return explore_example_at_its_bounds(path.name)  # one exploration per session (tests/explored.py)


def summary(result) -> dict:
    return {
        "distinct_states": result.statistics.distinct_states,
        "max_depth": result.statistics.max_depth,
        "complete": result.statistics.complete,
        "verdicts": {pid: v.status.value for pid, v in sorted(result.verdicts.items())},
    }


def load() -> dict:
    return json.loads(MANIFEST.read_text()) if MANIFEST.exists() else {}


ENTRIES = sorted(load().items())


@pytest.mark.parametrize("name,expected", ENTRIES, ids=[name for name, _ in ENTRIES])
def test_example_matches_manifest(name, expected):
    assert summary(check_example(ROOT / "examples" / name)) == expected


def test_manifest_names_existing_examples():
    assert ENTRIES, "tests/manifests/examples.json is empty"
    for name, _ in ENTRIES:
        assert (ROOT / "examples" / name).exists(), name


if __name__ == "__main__":
    if "--update" not in sys.argv:
        sys.exit(__doc__)
    names = [a for a in sys.argv[1:] if a != "--update"] or sorted(
        p.name for p in (ROOT / "examples").glob("*.toml") if not p.name.startswith(("ps-", "wl-", "uc-")))
    manifest = {k: v for k, v in load().items() if not k.startswith(("ps-", "wl-", "uc-"))}
    for name in names:
        manifest[name] = summary(check_example(ROOT / "examples" / name))
        print(name, manifest[name]["distinct_states"], manifest[name]["max_depth"])
    MANIFEST.write_text(json.dumps(dict(sorted(manifest.items())), indent=2) + "\n")
