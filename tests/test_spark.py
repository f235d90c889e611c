"""The Spark backend reproduces the local engine (issue #8): distinct and generated state
counts, depth, verdicts and shortest-trace lengths — on the FingerprintFlood manifest and
the test models, under two partition counts and two PYTHONHASHSEED values (the
spark-submit test runs in a subprocess with another seed) — and a resumed run equals an
uninterrupted one.

The driver threshold is set low so that the levels really run on Spark. One SparkSession
(local[2]) serves the whole file.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from checker.explore import explore
from checker.model import Result, Status, format_verdict
from checker.spark import RunDirError, explore_spark, make_session, parse_conf
from checker.test_util import (
    BoundedCounters,
    DoubleOrIncrement,
    PingPongLivelock,
    VacuousInvariant,
)

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

from ff_model import FingerprintFlood  # noqa: E402

MANIFEST = json.loads((ROOT / "tests" / "manifests" / "ff.json").read_text())

pytestmark = pytest.mark.spark


def summary(r: Result, skip: tuple[str, ...] = ()) -> dict:
    """What both engines must agree on: counts, depth, completeness, and per property the
    status, trace length and vacuity flag (not the trace itself: ties between parents may
    be broken differently)."""
    s = r.statistics
    return {
        "counts": (s.distinct_states, s.generated_states, s.max_depth),
        "complete": (s.complete, s.stop_reason),
        "verdicts": {
            pid: (v.status.value, v.trace.length if v.trace else None, v.vacuous)
            for pid, v in r.verdicts.items()
            if pid not in skip
        },
    }


@pytest.fixture(scope="session")
def spark():
    session = make_session(
        "local[2]", ["spark.ui.enabled=false", "spark.sql.shuffle.partitions=2"], "mqcheck-tests"
    )
    session.sparkContext.addPyFile(str(ROOT / "benchmarks" / "ff_model.py"))
    yield session
    session.stop()


# ---------------------------------------------------------------------------------------
# Same answers as the local engine
# ---------------------------------------------------------------------------------------

ACYCLIC = [
    pytest.param(lambda: BoundedCounters(2), 1, id="BoundedCounters(2)"),
    pytest.param(lambda: DoubleOrIncrement(), 1, id="DoubleOrIncrement"),
    pytest.param(lambda: VacuousInvariant(), 0, id="VacuousInvariant"),
]


@pytest.mark.parametrize(("make", "threshold"), ACYCLIC)
def test_spark_matches_local(spark, make, threshold):
    model = make()
    local = explore(model)
    remote = explore_spark(model, spark=spark, driver_threshold=threshold, partitions=3)
    assert remote.backend == "spark"
    assert summary(remote) == summary(local)
    for verdict in remote.verdicts.values():  # traces replay to the state they claim
        if verdict.trace is not None:
            assert verdict.trace.steps[0].action is None


def test_ff_violation_matches_manifest(spark):
    entry = MANIFEST["FF(tree,8,cap=1)"]
    r = explore_spark(FingerprintFlood("tree", 8, cap=1), spark=spark, driver_threshold=16)
    s = r.statistics
    assert (s.distinct_states, s.generated_states, s.max_depth) == (
        entry["distinct_states"], entry["generated_states"], entry["max_depth"],
    )
    assert {pid: format_verdict(v) for pid, v in r.verdicts.items()} == entry["verdicts"]
    assert r.exit_status() == 1


def test_partition_count_does_not_matter(spark):
    model = BoundedCounters(2)
    one = explore_spark(model, spark=spark, driver_threshold=1, partitions=1)
    five = explore_spark(model, spark=spark, driver_threshold=1, partitions=5)
    assert summary(one) == summary(five)
    # the same parent rule everywhere: identical traces, not only equal lengths
    assert one.verdicts["SUM-SMALL"].trace == five.verdicts["SUM-SMALL"].trace


def test_termination_on_a_cycle_is_not_checked_never_passed(spark):
    model = PingPongLivelock()
    local = explore(model)
    remote = explore_spark(model, spark=spark, driver_threshold=0)
    assert summary(remote, skip=("CONVERSATION-ENDS",)) == summary(
        local, skip=("CONVERSATION-ENDS",)
    )
    assert local.verdicts["CONVERSATION-ENDS"].status is Status.VIOLATED
    verdict = remote.verdicts["CONVERSATION-ENDS"]
    assert verdict.status is Status.NOT_CHECKED
    assert "--backend local" in verdict.note


def test_driver_only_run_needs_no_spark():
    """Below the threshold the whole search stays in plain Python (no session started)."""
    for model in (BoundedCounters(3), DoubleOrIncrement(), PingPongLivelock()):
        local = explore(model)
        remote = explore_spark(model, spark=None, driver_threshold=10**9)
        skip = ("CONVERSATION-ENDS",)
        assert summary(remote, skip) == summary(local, skip)


# ---------------------------------------------------------------------------------------
# Bounds and resume
# ---------------------------------------------------------------------------------------


def test_bounds_are_incomplete_like_the_local_engine(spark):
    model = FingerprintFlood("complete", 3)
    for bounds in ({"max_depth": 4}, {"max_states": 9}):
        local = explore(model, **bounds)
        remote = explore_spark(model, spark=spark, driver_threshold=2, **bounds)
        assert summary(remote) == summary(local)
        assert not remote.complete and remote.exit_status() == 3


def test_resume_after_a_depth_bound_equals_one_run(spark, tmp_path):
    model = DoubleOrIncrement()
    whole = explore_spark(model, spark=spark, driver_threshold=1)
    first = explore_spark(model, spark=spark, driver_threshold=1, max_depth=3, run_dir=tmp_path)
    assert first.statistics.stop_reason == "max_depth reached"
    rest = explore_spark(model, spark=spark, driver_threshold=1, run_dir=tmp_path, resume=True)
    assert summary(rest) == summary(whole)


class Crash(Exception):
    pass


def test_resume_after_a_crash_mid_level_equals_one_run(spark, tmp_path):
    """Crash after level 3 is written but before the manifest says so: resume discards
    the half-committed level and redoes it."""
    model = BoundedCounters(2)

    def crash(event, level):
        if event == "written" and level == 3:
            raise Crash

    with pytest.raises(Crash):
        explore_spark(model, spark=spark, driver_threshold=1, run_dir=tmp_path, _on_level=crash)
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    assert manifest["progress"]["level"] == 2
    rest = explore_spark(model, spark=spark, driver_threshold=1, run_dir=tmp_path, resume=True)
    assert summary(rest) == summary(explore(model))


def test_resume_refuses_another_model(tmp_path):
    explore_spark(DoubleOrIncrement(), driver_threshold=10**9, max_depth=2, run_dir=tmp_path)
    with pytest.raises(RunDirError, match="fresh --run-dir"):
        explore_spark(BoundedCounters(3), driver_threshold=10**9, run_dir=tmp_path, resume=True)
    with pytest.raises(RunDirError, match="already holds a run"):
        explore_spark(DoubleOrIncrement(), driver_threshold=10**9, run_dir=tmp_path)


def test_parse_conf_names_the_fix():
    assert parse_conf(["a=b=c"]) == {"a": "b=c"}
    with pytest.raises(ValueError, match="KEY=VALUE"):
        parse_conf(["spark.ui.enabled"])


# ---------------------------------------------------------------------------------------
# spark-submit, with the package shipped as a --py-files zip, under another hash seed
# ---------------------------------------------------------------------------------------


def _spark_submit() -> str:
    found = shutil.which("spark-submit")
    if found:
        return found
    import pyspark

    return str(Path(pyspark.__file__).parent / "bin" / "spark-submit")


def test_spark_submit_ff_matches_local(tmp_path):
    bundle = tmp_path / "mqcheck.zip"
    with zipfile.ZipFile(bundle, "w") as z:
        for package in ("checker", "spec"):
            for f in (ROOT / package).rglob("*.py"):
                z.write(f, f.relative_to(ROOT))
        z.write(ROOT / "benchmarks" / "ff_model.py", "ff_model.py")
    env = dict(os.environ, PYTHONHASHSEED="4242")
    proc = subprocess.run(
        [
            _spark_submit(), "--master", "local[2]", "--py-files", str(bundle),
            "--conf", "spark.ui.enabled=false",
            str(ROOT / "checker" / "spark_submit.py"),
            "--ff", "ring:3", "--driver-threshold", "1", "--json",
        ],
        capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    # spark-submit merges the Python driver's stderr into stdout: the JSON starts at "{".
    data, _ = json.JSONDecoder().raw_decode(proc.stdout[proc.stdout.index("{\n"):])
    remote = Result.from_dict(data)
    assert remote.backend == "spark"
    assert summary(remote) == summary(explore(FingerprintFlood("ring", 3)))


# ---------------------------------------------------------------------------------------
# Example scenarios (issue #8: "on every example scenario's manifest")
# ---------------------------------------------------------------------------------------
def _example_model(name: str):
    from checker.cli import _check_properties
    from spec.scenario import load_scenario
    from spec.system import MQNetwork

    scenario = load_scenario(ROOT / "examples" / name)
    return MQNetwork(scenario, _check_properties(scenario))


def _example_summary(result: Result, expected: dict) -> dict:
    """The manifest's fields of a Spark result. A termination (``eventually``) verdict the
    Spark backend cannot decide must say so — "not checked on this backend", never a pass —
    and is then compared as the manifest's value (issue #8)."""
    verdicts = {}
    for pid, v in sorted(result.verdicts.items()):
        if v.kind == "eventually" and v.status is Status.NOT_CHECKED:
            verdicts[pid] = expected["verdicts"][pid]
        else:
            verdicts[pid] = v.status.value
    return {
        "distinct_states": result.statistics.distinct_states,
        "max_depth": result.statistics.max_depth,
        "complete": result.statistics.complete,
        "verdicts": verdicts,
    }


EXAMPLE_MANIFEST = json.loads((ROOT / "tests" / "manifests" / "examples.json").read_text())


@pytest.mark.parametrize("name", sorted(EXAMPLE_MANIFEST))
def test_example_manifest_on_the_spark_backend_driver_levels(name):
    # levels below the driver threshold run in plain Python inside the Spark backend
    result = explore_spark(_example_model(name), driver_threshold=10**9)
    assert result.backend == "spark"
    assert _example_summary(result, EXAMPLE_MANIFEST[name]) == EXAMPLE_MANIFEST[name]


def test_example_on_spark_jobs_matches_manifest_and_local_trace(spark):
    # every level a Spark job: JVM deduplication against the Parquet seen set
    name = "fr-mesh-broken.toml"
    remote = explore_spark(_example_model(name), spark=spark, driver_threshold=0, partitions=3)
    assert _example_summary(remote, EXAMPLE_MANIFEST[name]) == EXAMPLE_MANIFEST[name]
    local = explore(_example_model(name))
    for pid in ("RP-FR-CONVERGENCE", "EXPECT-END"):
        assert remote.verdicts[pid].trace.length == local.verdicts[pid].trace.length
