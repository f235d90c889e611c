"""A real standalone Spark cluster (issue #17): a master and two workers started through
the pyspark package's bundled ``spark-class`` on 127.0.0.1 (loopback only:
``SPARK_LOCAL_IP`` binds the web UIs there too), and ``spark-submit --master
spark://127.0.0.1:PORT`` running ``mqcheck check`` on a bundled example end to end with
every level a Spark job on the cluster's executors: the same counts, verdicts and trace
lengths as the local engine. Master and workers are stopped by PID in a ``finally``, even
on failure, and afterwards no process of the cluster (master, workers, executors, their
Python workers) is left: each is found by its working directory under this test's
temporary directory.

One test: a cluster costs three JVMs plus two executors (about a minute of CPU).
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest

from checker.explore import explore
from checker.model import Result, Status

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = "ps-proxy-race.toml"   # 7 states, depth 4: few levels, each a job on the cluster

pytestmark = pytest.mark.spark


def _pyspark_bin(name: str) -> str:
    import pyspark

    return str(Path(pyspark.__file__).parent / "bin" / name)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _processes_under(directory: Path) -> list[int]:
    """PIDs of the processes whose working directory is inside ``directory``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cwd = os.readlink(entry / "cwd")
        except OSError:
            continue
        if cwd == str(directory) or cwd.startswith(str(directory) + os.sep):
            found.append(int(entry.name))
    return found


def _stop(pid: int) -> None:
    """SIGTERM (Spark's shutdown hooks stop a worker's executors), SIGKILL after 20 s."""
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        if os.waitpid(pid, os.WNOHANG) != (0, 0):
            return
        time.sleep(0.1)
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)


def _wait_for(path: Path, text: str, count: int, proc: subprocess.Popen, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        log = path.read_text(errors="replace") if path.exists() else ""
        if log.count(text) >= count:
            return
        if proc.poll() is not None:
            raise AssertionError(f"{path.name} exited with {proc.returncode}:\n{log[-3000:]}")
        time.sleep(0.2)
    raise AssertionError(f"{path.name}: no {count}x {text!r} in {timeout} s:\n{log[-3000:]}")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="finds the cluster's processes in /proc")
def test_spark_submit_to_a_standalone_cluster_gives_the_local_verdicts(tmp_path):
    home = tmp_path / "cluster"
    home.mkdir()
    env = dict(os.environ, SPARK_LOCAL_IP="127.0.0.1", SPARK_LOG_DIR=str(home / "logs"),
               SPARK_WORKER_DIR=str(home / "work"), SPARK_LOCAL_DIRS=str(home / "tmp"),
               PYSPARK_PYTHON=sys.executable, PYSPARK_DRIVER_PYTHON=sys.executable)
    env.pop("SPARK_CONF_DIR", None)
    port, ui = _free_port(), _free_port()
    master_url = f"spark://127.0.0.1:{port}"
    started: list[subprocess.Popen] = []
    logs: list = []

    def start(name: str, *argv: str) -> subprocess.Popen:
        log = open(home / f"{name}.log", "w")   # noqa: SIM115 - closed in finally
        logs.append(log)
        proc = subprocess.Popen([_pyspark_bin("spark-class"), *argv], cwd=home, env=env,
                                stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        started.append(proc)
        return proc

    try:
        master = start("master", "org.apache.spark.deploy.master.Master",
                       "--host", "127.0.0.1", "--port", str(port), "--webui-port", str(ui))
        _wait_for(home / "master.log", "I have been elected leader", 1, master)
        for k in (1, 2):
            start(f"worker{k}", "org.apache.spark.deploy.worker.Worker", "--host", "127.0.0.1",
                  "--webui-port", str(_free_port()), "--cores", "1", "--memory", "1g",
                  "--work-dir", str(home / "work"), master_url)
        bundle = tmp_path / "mqcheck.zip"
        with zipfile.ZipFile(bundle, "w") as z:
            for package in ("checker", "spec", "properties", "reports"):
                for f in sorted((ROOT / package).rglob("*.py")):
                    z.write(f, f.relative_to(ROOT))
        # spark-submit starts while the workers' JVMs are still starting, so that its own JVM
        # start overlaps theirs instead of following it (about 20 s of the test's wall time):
        # the application waits for executors, and the master gives it one on each worker
        # as that worker registers (a core each, --total-executor-cores 2)
        out_file, err_file = home / "submit.out", home / "submit.err"
        with open(out_file, "w") as out_log, open(err_file, "w") as err_log:
            submit = subprocess.Popen(
                [_pyspark_bin("spark-submit"), "--master", master_url, "--py-files", str(bundle),
                 "--driver-memory", "1g", "--executor-memory", "512m", "--total-executor-cores", "2",
                 "--conf", "spark.ui.enabled=false", "--conf", "spark.driver.host=127.0.0.1",
                 "--conf", "spark.driver.bindAddress=127.0.0.1",
                 "--conf", f"spark.executor.extraJavaOptions={os.environ.get('SPARK_DAEMON_JAVA_OPTS', '')}",
                 str(ROOT / "checker" / "spark_submit.py"), str(ROOT / "examples" / EXAMPLE),
                 "--driver-threshold", "0", "--partitions", "2", "--run-dir", str(home / "run"), "--json"],
                stdout=out_log, stderr=err_log, stdin=subprocess.DEVNULL, cwd=home, env=env,
            )
            try:
                _wait_for(home / "master.log", "Registering worker", 2, master)
                submit.wait(timeout=600)
            finally:
                if submit.poll() is None:
                    submit.kill()
                    submit.wait()
        proc = subprocess.CompletedProcess(submit.args, submit.returncode,
                                           out_file.read_text(errors="replace"), err_file.read_text(errors="replace"))
        out = proc.stdout
        assert "{\n" in out, (proc.returncode, proc.stderr[-3000:], out[-3000:])
        data, _ = json.JSONDecoder().raw_decode(out[out.index("{\n"):])
        remote = Result.from_dict(data)
        levels = [json.loads(line) for line in (home / "run" / "levels.jsonl").read_text().splitlines()]
    finally:
        for p in reversed(started):      # workers first (they stop their executors), then the master
            _stop(p.pid)
        for log in logs:
            log.close()
        deadline = time.monotonic() + 20
        while _processes_under(home) and time.monotonic() < deadline:
            time.sleep(0.2)
        left = _processes_under(home)
        for pid in left:                 # never leave one behind, even when the test fails
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
    assert not left, f"processes of the cluster outlived it: {left}"

    from checker.cli import _check_properties
    from spec.scenario import load_scenario
    from spec.network import MQNetwork

    scenario = load_scenario(ROOT / "examples" / EXAMPLE)
    local = explore(MQNetwork(scenario, _check_properties(scenario)), workers=1)
    assert remote.backend == "spark"
    assert proc.returncode == local.exit_status(), proc.stderr[-3000:]
    assert any(level.get("phase") == "spark" for level in levels), "no level ran on the cluster"
    s, t = remote.statistics, local.statistics
    assert (s.distinct_states, s.generated_states, s.max_depth, s.complete) == \
           (t.distinct_states, t.generated_states, t.max_depth, t.complete)
    for pid, v in local.verdicts.items():
        got = remote.verdicts[pid]
        if v.kind == "eventually" and got.status.value == "not checked":
            continue   # back edges into explored levels: Spark jobs leave termination to --backend local
        assert (got.status, got.trace.length if got.trace else None) == \
               (v.status, v.trace.length if v.trace else None), pid
