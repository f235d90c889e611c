"""Exhaustive exploration on Apache Spark: the local engine's breadth-first search, one
level at a time, on DataFrames (DESIGN §1, issue #8).

Per level d the frontier (the states first reached at depth d) is expanded in Python with
``mapInArrow``; each frontier state's properties are checked there, exactly once, and the
results come back through an accumulator. Every state has a position in its level: the
local engine's discovery order (the position of the parent that first found it, then the
action's position in ``actions(parent)``). Successors ``(fp, parent, ppos, action,
state)`` are deduplicated inside each task, then inside the JVM: grouped by fingerprint
keeping the first discoverer, the smallest ``(ppos, action)`` (the local engine's parent
rule, so traces do not depend on partitioning or hash seeds), and joined (``left_anti``,
or ``left`` when termination needs back edges) against every fingerprint seen so far.
A level's positions are ranks of ``(ppos, action)``, computed when it is read back: up
to ``RANK_IN_ONE_TASK`` states by the driver from the level's seen rows (20 bytes a
state, broadcast to the tasks), above by bucket sizes to the driver and a window inside
each bucket: the driver holds at most that many positions, and no state.
``max_states`` keeps exactly the local engine's states: the level
is cut after the chunk of ``CHUNK`` parents in which the bound is passed, and its first
states in discovery order are kept.

The run directory holds, as Parquet, ``levels/table=seen/level=d`` (fp, parent, ppos,
action: kept for traces and the order), ``levels/table=frontier/level=d`` (fp, ppos,
action, state: written by Spark levels and once when Spark takes over; deleted once
expanded), ``levels/table=backedge/level=d`` (old states reached by an internal action,
with the first parent position reaching them), ``levels.jsonl`` (per-level statistics,
one appended line a level) and ``manifest.json`` (identity, totals and the last complete
level: constant size, replaced atomically after each complete level). Reading each
level back from Parquet keeps query plans small and makes ``resume`` possible after a
crash or Ctrl-C: the run continues from the last complete level. The run directory must
be a filesystem path the driver can write (local for ``local[*]``; a shared mount on a
cluster).

Small levels run on the driver in plain Python until a frontier exceeds
``driver_threshold`` states; from then on every level runs on Spark. Driver levels keep
their states in memory and write only the seen table (a resume in the driver phase
rebuilds the frontier by replaying parent pointers). Both phases apply the same parent
rule, so the trace does not depend on the threshold.

Termination (``eventually``): when no internal action leads back into an explored level,
no cycle exists (the local engine's first pass). Otherwise, if every level ran on the
driver, the local engine's second pass runs there (re-expansion along the parent tree,
internal edges among visited states, ``checker.explore._lasso``): the same verdict and
lasso shape as the local engine. If levels ran on Spark, the verdict is "not checked on
this backend", never a pass. Fingerprints are 64-bit only (Spark ``bigint``).
"""

from __future__ import annotations

import contextlib
import gc
import itertools
import json
import logging
import os
import pickle
import re
import shutil
import signal
import sys
import threading
import time
import warnings
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from hashlib import blake2b
from pathlib import Path
from typing import Any

DEFAULT_DRIVER_THRESHOLD = 20_000
"""Frontier size above which levels move from the driver to Spark (benchmarks/RESULTS.md)."""

PICKLE_PROTOCOL = 5
MANIFEST_FORMAT = "mqcheck-spark-run/1"

# Rows leaving the expansion: kind 0 is a successor; kinds 1 and 2 are observations of
# the expanded state `fp` about property number `action`.
KIND_SUCCESSOR = 0
KIND_FALSIFIED = 1  # an always (or at_quiescence, at a quiescent state) predicate is false
KIND_WITNESS = 2  # a sometimes predicate is true


# ---------------------------------------------------------------------------------------
# Session configuration
# ---------------------------------------------------------------------------------------

PANDAS_NOTICE = "PySpark does not yet fully support pandas"

DEFAULT_CONF: dict[str, str] = {
    # 2 cores / 24 GiB: the driver is also the executor in local mode.
    "spark.driver.memory": "8g",
    "spark.sql.shuffle.partitions": "4",
    "spark.sql.adaptive.enabled": "true",
    "spark.sql.parquet.compression.codec": "zstd",
    "spark.ui.showConsoleProgress": "false",
    # No spark.executorEnv.PYTHONHASHSEED: pyspark replaces it with the driver's own
    # PYTHONHASHSEED (or "0") when the context starts (pyspark/core/context.py), and
    # nothing here depends on hash(): fingerprints are blake2b, every dict is iterated in
    # insertion order, ties are broken by (parent position, action).
    # pyspark's notice that pandas >= 3 is not fully supported: this backend uses Arrow.
    "spark.executorEnv.PYTHONWARNINGS": f"ignore:{PANDAS_NOTICE}:FutureWarning",
    "spark.python.worker.reuse": "true",
}

# Only errors from the JVM mqcheck starts (Spark's bundled log4j2-defaults.properties logs
# at INFO and prints some eight lines of start-up warnings on every run). Applies when this
# process starts the JVM; under spark-submit, pass --driver-java-options the same way.
LOG4J2_CONFIG = Path(__file__).with_name("log4j2.properties")


def _java_options() -> str:
    return f"-Dlog4j2.configurationFile={LOG4J2_CONFIG.as_uri()}"


def parse_conf(pairs: Iterable[str]) -> dict[str, str]:
    """Parse ``KEY=VALUE`` strings (the CLI's ``--conf``), keeping their order.

    >>> parse_conf(["spark.ui.enabled=false", "spark.sql.shuffle.partitions=8"])
    {'spark.ui.enabled': 'false', 'spark.sql.shuffle.partitions': '8'}
    """
    out: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise ValueError(
                f"--conf {pair!r}: expected KEY=VALUE, e.g. --conf spark.sql.shuffle.partitions=8"
            )
        out[key.strip()] = value
    return out


MASTER_FORMS = ("local, local[N], local[*], local[N,F], local-cluster[N,C,M], "
                "spark://HOST:PORT[,HOST:PORT...], yarn or k8s://...")
"""The master URLs Spark 4 takes (``SparkSubmit`` and ``SparkMasterRegex``); Spark 3 also
took ``mesos://...``."""

_MASTER_PATTERNS = (
    re.compile(r"local"),
    re.compile(r"local\[(?:[1-9][0-9]*|\*)\]"),
    re.compile(r"local\[(?:[1-9][0-9]*|\*)\s*,\s*[1-9][0-9]*\]"),
    re.compile(r"local-cluster\[\s*[1-9][0-9]*\s*,\s*[1-9][0-9]*\s*,\s*[1-9][0-9]*\s*\]"),
    re.compile(r"yarn"),
    re.compile(r"k8s://\S+"),
)
_SPARK_HOST_PORT = re.compile(r"(?:\[[0-9A-Fa-f:.]+\]|[^\s/:,\[\]]+):([0-9]{1,5})")


def check_master(master: str, option: str = "--master") -> None:
    """Raise ValueError unless ``master`` has a form Spark takes (:data:`MASTER_FORMS`).

    Checked before anything is explored, whether or not Spark will start: a run whose levels
    all stay on the driver never starts Spark, and a misspelt master would go unnoticed.

    >>> check_master("local[2]"); check_master("spark://h1:7077,h2:7077"); check_master("yarn")
    >>> check_master("bogus://x")
    Traceback (most recent call last):
    ...
    ValueError: --master 'bogus://x': expected local, local[N], local[*], local[N,F], local-cluster[N,C,M], spark://HOST:PORT[,HOST:PORT...], yarn or k8s://...
    """
    if any(p.fullmatch(master) for p in _MASTER_PATTERNS):
        return
    if master.startswith("spark://"):
        hosts = master[len("spark://"):].split(",")
        if all((m := _SPARK_HOST_PORT.fullmatch(h)) and 0 < int(m.group(1)) < 65536 for h in hosts):
            return
        raise ValueError(f"{option} {master!r}: expected spark://HOST:PORT[,HOST:PORT...] (a port from 1 to 65535 "
                         "after each host), e.g. spark://master:7077")
    if master.startswith("mesos://") and len(master) > len("mesos://"):
        if _spark_major() < 4:
            return
        raise ValueError(f"{option} {master!r}: Spark {_spark_major()} has no Mesos support (removed in Spark 4.0); "
                         f"expected {MASTER_FORMS}")
    if re.fullmatch(r"local\[\s*0+\s*(,.*)?\]", master):
        raise ValueError(f"{option} {master!r}: local[N] needs at least one thread (N >= 1), or local[*] for one "
                         "per core")
    raise ValueError(f"{option} {master!r}: expected {MASTER_FORMS}")


def _spark_major() -> int:
    """The installed Spark's major version (pyspark's), without importing pyspark."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return int(version("pyspark").split(".")[0])
    except (PackageNotFoundError, ValueError):
        return 4


def _spark_defaults_keys() -> set[str]:
    """Keys the user set in ``$SPARK_CONF_DIR/spark-defaults.conf`` (Spark's own file)."""
    conf_dir = os.environ.get("SPARK_CONF_DIR") or (
        os.path.join(os.environ["SPARK_HOME"], "conf") if "SPARK_HOME" in os.environ else None
    )
    if not conf_dir:
        return set()
    path = os.path.join(conf_dir, "spark-defaults.conf")
    keys: set[str] = set()
    try:
        with open(path, encoding="utf-8") as fh:
            for line in fh:
                line = line.strip()
                if line and not line.startswith("#"):
                    keys.add(line.split(None, 1)[0].split("=", 1)[0])
    except OSError:
        pass
    return keys


def make_session(
    master: str | None = None,
    conf: Iterable[str] | dict[str, str] = (),
    app_name: str = "mqcheck",
):
    """Return a SparkSession configured for exploration.

    Precedence, lowest first: ``DEFAULT_CONF`` (tuned for 2 cores / 24 GiB), then what the
    user configured for Spark itself (``spark-defaults.conf`` in ``SPARK_CONF_DIR``, or
    ``spark-submit --conf``/``--master``, which this never overrides), then ``master`` and
    ``conf`` given here. Without any master, ``local[*]``. Driver memory only takes effect
    when this call starts the JVM (a plain ``python`` process); under ``spark-submit`` pass
    ``--driver-memory`` instead. A session that cannot start raises :class:`SparkStartError`
    (one line: the option to blame and the JVM's own explanation), and the JVM it started
    is gone by then.
    """
    return _start_session(master, conf, app_name)[0]


class SparkStartError(ValueError):
    """Spark did not start: ``option`` is what the user gave that it names (or ""), ``line``
    the JVM's first meaningful error line."""

    def __init__(self, option: str, line: str, hint: str = "") -> None:
        self.option, self.line, self.hint = option, line, hint
        text = f"Spark did not start: {line}"
        super().__init__((f"{option}: " if option else "") + text + (f" ({hint})" if hint else ""))

    def with_hint(self, hint: str) -> "SparkStartError":
        return SparkStartError(self.option, self.line, hint)


def _start_session(master, conf, app_name, interrupts: "_Interrupts | None" = None):
    """(SparkSession, the :class:`_Jvm` this call started or None). ``interrupts``: the run's
    signal handling, which ends a JVM still starting when Ctrl-C or SIGTERM comes."""
    explicit = dict(conf) if isinstance(conf, dict) else parse_conf(conf)
    if master is not None:
        check_master(master)
    if "spark.master" in explicit:
        check_master(explicit["spark.master"], "--conf spark.master")
    jvm = None
    box: dict[str, Any] = {}
    cancel = threading.Event()   # the run stopped: launch no JVM

    def start() -> None:
        try:
            with warnings.catch_warnings():
                # pyspark's notice that the installed pandas is not fully supported: this
                # backend uses Arrow; keep it off the CLI's stderr (and spark-submit's stdout)
                warnings.filterwarnings("ignore", PANDAS_NOTICE, FutureWarning)
                box["session"] = _make_session(master, explicit, app_name, interrupts, cancel)
        except BaseException as err:
            box["error"] = err

    # The session starts in a thread of its own: pyspark then installs no SIGINT handler of
    # its own (it does in the main thread, for the seconds the SparkContext takes to start),
    # and the main thread, never inside a py4j call meanwhile, takes Ctrl-C and SIGTERM.
    starter = threading.Thread(target=start, name="mqcheck-spark-start", daemon=True)
    try:
        starter.start()
        while starter.is_alive():
            starter.join(0.05)
        if "error" in box:
            raise box["error"]
        session, jvm = box["session"]
        if jvm is not None:
            jvm.output.started()
        return session, jvm   # interrupts.starting stays set until the caller holds the JVM
    except BaseException as err:
        with _START_LOCK:   # from here the starter launches no JVM, or this one sees it
            cancel.set()
            if jvm is None and _JVM_STARTING:
                jvm = _JVM_STARTING[-1]
        if interrupts is not None:
            interrupts.starting = None
        signalled = isinstance(err, KeyboardInterrupt) or (interrupts is not None and interrupts.requested)
        # the Java exception's causes, while the JVM can still be asked, and whether it had ended
        told = _exception_line(err) if isinstance(err, Exception) else ""
        gone = jvm.exited() if jvm is not None else ""
        if jvm is not None:
            if signalled:
                jvm.terminate()
                starter.join(2.0)   # its calls fail once the JVM is gone
            # a signal gets the run's result within seconds; a failure, the JVM's explanation
            # (which it has finished writing once it is gone)
            jvm.stop(seconds=JVM_KILL_SECONDS if signalled else JVM_STOP_SECONDS,
                     hurried=(lambda: interrupts.hurried) if interrupts is not None else (lambda: False))
            starter.join(2.0)
            _forget_gateway(jvm.gateway)   # if it set the gateway after the JVM was stopped
        if isinstance(err, Exception) and not (interrupts is not None and interrupts.requested):
            line = (_first_error_line(jvm.output.held) if jvm is not None else "") or gone or told
            raise SparkStartError(_blame(line, master, explicit), line) from None
        if isinstance(err, Exception):
            raise KeyboardInterrupt from None   # the signal killed the JVM being started
        raise
    finally:
        _JVM_STARTING.clear()


def _make_session(master, explicit, app_name, interrupts, cancel):
    from pyspark import SparkConf
    from pyspark.core.context import SparkContext
    from pyspark.sql import SparkSession

    under_submit = "PYSPARK_GATEWAY_PORT" in os.environ  # the JVM is already running
    # Spark starts its Python workers with PYSPARK_PYTHON, else "python3" from PATH: run as
    # .venv/bin/mqcheck without the virtualenv activated, that is a Python with neither
    # mqcheck nor pyarrow, and every level failed in an executor. This interpreter has both
    # (it is running mqcheck); a PYSPARK_PYTHON the user set still wins.
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    user_keys = _spark_defaults_keys()
    if under_submit:
        SparkContext._ensure_initialized()
        user_keys |= {k for k, _ in SparkConf().getAll()}
    options: dict[str, str] = {"spark.app.name": app_name}
    for key, value in DEFAULT_CONF.items():
        if key not in user_keys:
            options[key] = value
    if not under_submit and "spark.driver.extraJavaOptions" not in user_keys | set(explicit):
        options["spark.driver.extraJavaOptions"] = _java_options()
    if master is not None:
        options["spark.master"] = master
    elif not under_submit and "spark.master" not in user_keys:
        options["spark.master"] = "local[*]"
    options.update(explicit)
    jvm = None
    if not under_submit:
        jvm = _launch_gateway_in_own_session(options, interrupts, cancel)
    builder = SparkSession.builder
    for key, value in options.items():
        builder = builder.config(key, value)
    session = builder.getOrCreate()
    _quiet_accumulator_server(session.sparkContext)
    # SQL settings are read when the session state is first built (lazily, at the first
    # query): build it now, so that a bad value fails here, as Spark not starting
    session.conf.get("spark.sql.shuffle.partitions")
    session.sparkContext.setLogLevel("ERROR")
    return session, jvm


def _quiet_accumulator_server(sc: Any) -> None:
    """pyspark's accumulator server (a thread of this process) prints an EOFError traceback
    when the JVM closes its connection: when the session stops, or the JVM dies. That is the
    end of a connection, not an error of the run (a lost JVM fails the run's own call)."""
    server = getattr(sc, "_accumulatorServer", None)
    if server is None or getattr(server, "_mqcheck_quiet", False):
        return
    loud = server.handle_error

    def handle_error(request: Any, client_address: Any) -> None:
        if not isinstance(sys.exc_info()[1], (EOFError, ConnectionError)):
            loud(request, client_address)

    server.handle_error = handle_error
    server._mqcheck_quiet = True


_JVM_STARTING: list["_Jvm"] = []
"""The JVM being started by ``_launch_gateway_in_own_session`` (until it answers)."""
_START_LOCK = threading.RLock()
"""Orders a JVM's launch (in the thread that starts the session) against the run stopping
(the main thread, a signal handler included): either the launch sees the stop and does not
happen, or the stop sees the JVM and ends it, as soon as its process exists."""


def _launch_gateway_in_own_session(options: dict[str, str], interrupts: "_Interrupts | None" = None,
                                   cancel: threading.Event | None = None):
    """Start the JVM as pyspark would, but in a session of its own, so a Ctrl-C at the
    terminal reaches only this process (:class:`_Interrupts`), not the JVM's Python workers
    (pyspark.daemon gives them Python's default SIGINT handler: each would print a
    KeyboardInterrupt traceback and the JVM the failed task's stack trace), with its stdout
    and stderr in one pipe that a thread of ours reads (:class:`_JvmOutput`). Returns the
    :class:`_Jvm`, or None when the JVM was already running. The JVM still ends with this
    process: it exits when its stdin, a pipe from here, closes."""
    from pyspark import SparkConf, java_gateway
    from pyspark.core.context import SparkContext

    import subprocess

    with SparkContext._lock:
        if SparkContext._gateway is not None:
            return None
        conf = SparkConf(loadDefaults=False).setAll(list(options.items()))
        with _START_LOCK:
            if (cancel is not None and cancel.is_set()) or (interrupts is not None and interrupts.requested):
                raise KeyboardInterrupt   # the run stopped before its JVM was launched
            read, write = os.pipe()
            jvm = _Jvm(_JvmOutput(read))
            _JVM_STARTING.append(jvm)
            if interrupts is not None:
                interrupts.starting = jvm   # a signal from here on ends this JVM (_Interrupts.handler)

        class Recorded(subprocess.Popen):
            """pyspark's Popen, with the process kept for us as soon as it exists."""

            def __init__(self, *args: Any, **kwargs: Any) -> None:
                super().__init__(*args, **kwargs)
                with _START_LOCK:
                    jvm.proc = self
                    if jvm.cancelled:   # the run stopped while the process was being made
                        jvm.terminate()

        popen, java_gateway.Popen = java_gateway.Popen, Recorded
        try:
            gateway = java_gateway.launch_gateway(
                conf, popen_kwargs={"start_new_session": True, "stdout": write, "stderr": write})
        finally:
            java_gateway.Popen = popen
            os.close(write)   # the JVM holds the pipe now: it ends when the JVM does
        jvm.gateway = gateway
        SparkContext._gateway = gateway
        SparkContext._jvm = gateway.jvm
        _JVM_STARTING.clear()
        _JVM_STARTING.append(jvm)   # until the session answers
        return jvm


# What the JVM writes to stderr itself, outside log4j, on every run: Spark 4 starts Java
# with --add-modules=jdk.incubator.vector and the JVM says so; Spark's Logging prints the
# level it gives a pyspark-shell driver (the interpreter case), whatever log4j2 says.
_JVM_NOTICES = (
    b"WARNING: Using incubator modules:",
    b'Setting default log level to "',
    b"To adjust logging level use sc.setLogLevel(newLevel).",
    b"Using Spark's default log4j profile:",
)

JVM_STOP_SECONDS = 5.0
"""How long a JVM this process started gets to end by itself (its stdin closed: Spark's own
shutdown, which also ends its Python workers) before it and they are killed."""
JVM_KILL_SECONDS = 1.0
"""The same, for a JVM a signal interrupted while it was starting (SIGTERM, then SIGKILL)."""


class _JvmOutput:
    """The JVM's stdout and stderr (one pipe), copied to our stderr by a thread, without its
    start-up notices (errors still show). While the JVM starts, lines are held: if it does
    not start, the first meaningful one becomes the error (:func:`_first_error_line`), and
    nothing else is printed. Muted once a run is being stopped (a signal, or the end of the
    run): what the JVM and its Python workers print while they are cancelled or shut down
    (a worker writing to a socket the JVM closed prints a BrokenPipeError traceback) is
    theirs, not an error of the run."""

    def __init__(self, fd: int) -> None:
        self.held: list[str] = []
        self.holding = True
        self.muted = False   # set from signal handlers: a plain attribute, no lock
        self.lock = threading.Lock()
        self.stream = os.fdopen(fd, "rb")
        self.thread = threading.Thread(target=self._relay, name="mqcheck-jvm-stderr", daemon=True)
        self.thread.start()

    def _relay(self) -> None:
        with self.stream:
            for line in iter(self.stream.readline, b""):
                with self.lock:
                    if self.holding:
                        self.held.append(line.decode("utf-8", "replace"))
                        continue
                self._write(line)

    def _write(self, line: bytes) -> None:
        if self.muted or line.startswith(_JVM_NOTICES):
            return
        try:
            if hasattr(sys.stderr, "buffer"):
                sys.stderr.buffer.write(line)
            else:
                sys.stderr.write(line.decode("utf-8", "replace"))
            sys.stderr.flush()
        except (OSError, ValueError):   # our stderr is gone or closed: nothing to tell
            pass

    def started(self) -> None:
        """The session answers: what the JVM wrote while it started goes out, and the rest as it comes."""
        with self.lock:
            self.holding = False
            held, self.held = self.held, []
            for line in held:
                self._write(line.encode("utf-8"))

    def mute(self) -> None:
        self.muted = True

    def closed(self, timeout: float) -> bool:
        """Wait until the JVM's end of the pipe is closed and every line has been read."""
        self.thread.join(timeout)
        return not self.thread.is_alive()


def _descendants(pid: int) -> dict[int, int]:
    """{pid: start time} of the processes below ``pid`` (Linux /proc; elsewhere none)."""
    children: dict[int, list[tuple[int, int]]] = {}
    try:
        entries = os.listdir("/proc")
    except OSError:
        return {}
    for name in entries:
        if not name.isdigit():
            continue
        stat = _proc_stat(int(name))
        if stat is not None:
            children.setdefault(stat[1], []).append((int(name), stat[2]))
    found: dict[int, int] = {}
    todo = [pid]
    while todo:
        for child, started in children.get(todo.pop(), ()):
            if child not in found:
                found[child] = started
                todo.append(child)
    return found


def _proc_stat(pid: int) -> tuple[str, int, int] | None:
    """(state, parent pid, start time) of a process, None when it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            fields = fh.read().rsplit(b")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return fields[0].decode(), int(fields[1]), int(fields[19])


def _running(processes: dict[int, int]) -> dict[int, int]:
    """Those of ``processes`` still running (the same process: same start time; not a zombie)."""
    out = {}
    for pid, started in processes.items():
        stat = _proc_stat(pid)
        if stat is not None and stat[2] == started and stat[0] != "Z":
            out[pid] = started
    return out


class _Jvm:
    """A JVM this process started for Spark (pyspark's gateway, in a session of its own),
    and how to end it with its Python workers: no process of a run outlives it."""

    def __init__(self, output: _JvmOutput) -> None:
        self.output = output
        self.proc: Any = None   # the subprocess.Popen, once it exists
        self.gateway: Any = None
        self.cancelled = False   # ended before its process existed: end it when it does
        self.family: dict[int, int] = {}   # its processes seen so far ({pid: start time})

    def note_family(self) -> None:
        """Note the processes below the JVM (pyspark.daemon and its workers), so that they
        are ended even if the JVM dies first (they are then no longer below it)."""
        if self.proc is not None and self.proc.poll() is None:
            self.family.update(_descendants(self.proc.pid))

    def terminate(self) -> None:
        """SIGTERM to the JVM's process group, at once, or as soon as it exists (also from a
        signal handler: the lock is re-entrant, and the thread that may hold it only
        records the process)."""
        global _PY4J_QUIET
        _PY4J_QUIET = True
        self.output.mute()
        with _START_LOCK:
            self.cancelled = True
            if self.proc is not None:
                with contextlib.suppress(OSError):
                    os.killpg(self.proc.pid, signal.SIGTERM)

    def stop(self, session: Any = None, seconds: float = JVM_STOP_SECONDS, hurried=lambda: False) -> None:
        """End the JVM and its Python workers, and wait (at most about ``seconds``) until they
        are gone: first as Spark ends itself (``session.stop()``, then the JVM's stdin
        closed), past the time by SIGKILL. pyspark then forgets the gateway, so that a
        later session starts a JVM of its own. ``hurried()`` true: kill now."""
        global _PY4J_QUIET
        _PY4J_QUIET = True   # py4j's complaints about a connection closing under it
        self.output.mute()
        deadline = time.monotonic() + seconds
        proc = self.proc
        self.note_family()
        family = dict(self.family)
        try:
            if session is not None and not hurried() and proc is not None and proc.poll() is None:
                stopper = threading.Thread(target=_quietly, args=(session.stop,), name="mqcheck-spark-stop",
                                           daemon=True)
                stopper.start()
                while stopper.is_alive() and time.monotonic() < deadline and not hurried():
                    stopper.join(0.05)
            if proc is not None:
                self.note_family()
                family.update(self.family)
                with contextlib.suppress(OSError, ValueError):
                    proc.stdin.close()   # the JVM's signal to end (pyspark's PythonGatewayServer)
                while proc.poll() is None and time.monotonic() < deadline and not hurried():
                    time.sleep(0.05)
                # past the time (or hurried): SIGTERM (Spark's shutdown hooks still remove its
                # temporary files), then SIGKILL
                for sig, wait in ((signal.SIGTERM, 0.5 if hurried() else 1.0), (signal.SIGKILL, 5.0)):
                    if proc.poll() is not None:
                        break
                    with contextlib.suppress(OSError):
                        os.killpg(proc.pid, sig)
                    with contextlib.suppress(Exception):
                        proc.wait(wait)
            while _running(family) and time.monotonic() < deadline and not hurried():
                time.sleep(0.05)
            left = _running(family)
            for pid in left:   # the workers (pyspark.daemon's group) that outlived the time
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
            end = time.monotonic() + 2.0
            while _running(left) and time.monotonic() < end:
                time.sleep(0.02)
        finally:
            if self.gateway is not None:
                _quietly(self.gateway.close)
            self.output.closed(1.0)
            _forget_gateway(self.gateway)

    def exited(self, wait: float = 0.0) -> str:
        """How the JVM ended ("" while it runs), waiting up to ``wait`` seconds for it to end
        (a JVM killed closes its sockets before it is gone)."""
        if self.proc is None:
            return ""
        with contextlib.suppress(Exception):
            self.proc.wait(wait)
        code = self.proc.poll()
        if code is None:
            return ""
        if code < 0:
            try:
                return f"the JVM was killed by {signal.Signals(-code).name}"
            except ValueError:
                return f"the JVM was killed by signal {-code}"
        return f"the JVM exited with status {code}"


def _quietly(fn) -> None:
    with contextlib.suppress(Exception):
        fn()


def _forget_gateway(gateway: Any) -> None:
    """pyspark's globals after the JVM behind ``gateway`` ended: none, so the next session
    starts a JVM (rather than calling a dead one)."""
    from pyspark.core.context import SparkContext
    from pyspark.sql import SparkSession

    if gateway is None:   # it never answered: pyspark never knew it
        return
    with SparkContext._lock:
        if SparkContext._gateway is gateway:
            SparkContext._gateway = None
            SparkContext._jvm = None
            SparkContext._active_spark_context = None
            SparkSession._instantiatedSession = None
            SparkSession._activeSession = None


_PY4J_QUIET = False
"""True once this process is ending a JVM it started: py4j's log records (a call cut short,
a connection refused) are not errors of the run then."""


class _QuietPy4J(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return not (_PY4J_QUIET and f"{os.sep}py4j{os.sep}" in (record.pathname or ""))


for _logger in (logging.getLogger(), logging.getLogger("py4j"), logging.getLogger("py4j.clientserver"),
                logging.getLogger("py4j.java_gateway")):
    _logger.addFilter(_QuietPy4J())
del _logger


_LOG_LINE = re.compile(r"^\d\d/\d\d/\d\d \d\d:\d\d:\d\d (TRACE|DEBUG|INFO|WARN|ERROR|FATAL) [^:]*: (.*)$")
_EXCEPTION_LINE = re.compile(
    r"^(?:Exception in thread \"[^\"]*\" )?(?:Caused by: )?"
    r"((?:[A-Za-z_$][\w$]*\.)+[A-Za-z_$][\w$]*(?:Exception|Error|Throwable)[\w$]*)(?:: (.*))?$")


def _first_error_line(lines: Sequence[str]) -> str:
    """The JVM's first meaningful error line in what it wrote: the first error, as the message
    of a log line at ERROR or above, of an exception, or a line of its own (Java's "Invalid
    maximum heap size: ..."); an exception logged with a message stands for it, and the
    deepest cause for an exception. Notices, stack frames and lower log levels are skipped.

    >>> _first_error_line(["26/01/01 10:00:00 ERROR SparkContext: Error initializing SparkContext.",
    ...     "io.fabric8.kubernetes.client.KubernetesClientException: An error has occurred.",
    ...     "\tat io.fabric8.Foo.bar(Foo.java:1)", "Caused by: java.net.UnknownHostException: foo"])
    'UnknownHostException: foo'
    """
    found, refine = "", ""   # "log": an exception line next is the one logged; "exc": its causes
    for raw in lines:
        line = raw.rstrip("\r\n")
        if not line.strip() or line[0] in " \t" or line.encode().startswith(_JVM_NOTICES):
            continue
        log = _LOG_LINE.match(line)
        exc = None if log else _EXCEPTION_LINE.match(line)
        if found:
            if exc and (refine == "log" or (refine == "exc" and line.startswith("Caused by: "))):
                found, refine = _java_text(exc.group(1), exc.group(2) or ""), "exc"
                continue
            break
        if log:
            if log.group(1) in ("ERROR", "FATAL"):
                found, refine = log.group(2).strip(), "log"
        elif exc:
            found, refine = _java_text(exc.group(1), exc.group(2) or ""), "exc"
        else:
            found = line.strip()
    return found


def _java_text(name: str, message: str) -> str:
    """An exception as one line: Spark's own by their message (they name the setting and
    what it should be), others with their short class name."""
    message = message.strip().splitlines()[0].strip() if message.strip() else ""
    if name.startswith("org.apache.spark.") and message:
        return message
    short = name.rsplit(".", 1)[-1]
    return f"{short}: {message}" if message else short


def _exception_line(err: BaseException) -> str:
    """The deepest cause with a message of a Java exception behind ``err`` (through py4j), or
    ``err``'s own first line."""
    java = getattr(err, "java_exception", None) or getattr(err, "_origin", None)
    try:
        chain = []
        while java is not None and len(chain) < 20:
            chain.append((str(java.getClass().getName()), str(java.getMessage() or "")))
            java = java.getCause()
        for name, message in reversed(chain):
            if message.strip():
                return _java_text(name, message)
    except Exception:   # the JVM is gone
        pass
    try:
        text = str(err).strip()
    except Exception:   # pyspark's exceptions ask the JVM for their text
        text = ""
    first = text.splitlines()[0].strip() if text else ""
    return f"{type(err).__name__}: {first}" if first else type(err).__name__


def _blame(line: str, master: str | None, explicit: dict[str, str]) -> str:
    """The option a start-up error names: a ``--conf`` whose key (or value) it quotes, else
    ``--master`` when it is about the master; else every Spark option given; else none."""
    for key, value in explicit.items():
        if key in line:
            return f"--conf {key}={value}"
    for key, value in explicit.items():
        if len(value) >= 3 and value in line:
            return f"--conf {key}={value}"
    if master is not None and (master in line or "master" in line.lower()):
        return f"--master {master}"
    given = ([f"--master {master}"] if master is not None else []) + [f"--conf {k}={v}" for k, v in explicit.items()]
    return ", ".join(given)



# ---------------------------------------------------------------------------------------
# States as bytes, fingerprints, and the property checks of one expanded state
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Codec:
    """How states travel: ``model.encode`` bytes when the model can ``decode`` them,
    otherwise a pickle with a fixed protocol. Fingerprints always hash ``encode``."""

    model: Any
    bits: int = 64

    @property
    def ships_encoding(self) -> bool:
        return callable(getattr(self.model, "decode", None))

    def fingerprint_of(self, encoded: bytes) -> int:
        digest = blake2b(encoded, digest_size=self.bits // 8).digest()
        return int.from_bytes(digest, "little", signed=True)  # checker.explore's, as int64

    def pack(self, state: Any) -> tuple[int, bytes]:
        """(fingerprint, bytes to ship) of a state."""
        encoded = self.model.encode(state)
        if self.ships_encoding:
            return self.fingerprint_of(encoded), encoded
        ship = getattr(self.model, "ship", None)
        shipped = pickle.dumps(state, PICKLE_PROTOCOL) if ship is None else ship(state)
        return self.fingerprint_of(encoded), shipped

    def unpack(self, shipped: bytes) -> Any:
        if self.ships_encoding:
            return self.model.decode(shipped)
        unship = getattr(self.model, "unship", None)
        return pickle.loads(shipped) if unship is None else unship(shipped)


def _is_internal(model: Any, action: Any) -> bool:
    fn = getattr(model, "is_internal", None)  # checker.model.is_internal, inlined for workers
    return True if fn is None else bool(fn(action))


@dataclass(frozen=True)
class _Checks:
    """The state properties checked while expanding: (index into the property list, prop)."""

    always: tuple[tuple[int, Any], ...]
    sometimes: tuple[tuple[int, Any], ...]
    at_quiescence: tuple[tuple[int, Any], ...]
    run: str = ""  # which run these checks belong to (unique in the driver's application)

    @classmethod
    def of(cls, properties: Sequence[Any], run: str = "") -> _Checks:
        def pick(kind: str) -> tuple[tuple[int, Any], ...]:
            return tuple((i, p) for i, p in enumerate(properties) if _kind(p) == kind)

        return cls(pick("always"), pick("sometimes"), pick("at_quiescence"), run)

    def observe(self, model: Any, state: Any, quiescent: bool) -> Iterator[tuple[int, int]]:
        """(row kind, property index) observations of one state, in property order: judged
        as the local engine judges (checker.model.Judge, once per view where the model has
        views), by judges kept for this model in this process (not pickled). A task gets
        its own copy of the model and the checks; the judges of the run's earlier tasks in
        this process, with what they learnt, serve it (``_RUN_JUDGES``)."""
        judges = self.__dict__.get("_judges")
        if judges is None or judges[0] is not model:
            judges = _RUN_JUDGES.get(self.run) if self.run else None
            if judges is None:
                judges = self._judges(model)
                if self.run:
                    _RUN_JUDGES.clear()  # one run at a time
                    _RUN_JUDGES[self.run] = judges
            self.__dict__["_judges"] = judges = (model, *judges[1:])
        _, new, quiet, rows = judges
        for pid in new.hits(state):
            yield rows[pid]
        if quiescent:
            for pid in quiet.hits(state):
                yield rows[pid]

    def _judges(self, model: Any) -> tuple:
        from checker.model import Judge

        rows = {p.id: (KIND_WITNESS if _kind(p) == "sometimes" else KIND_FALSIFIED, i)
                for i, p in self.always + self.sometimes + self.at_quiescence}
        return (model, Judge(model, [p for _, p in self.always + self.sometimes]),
                Judge(model, [p for _, p in self.at_quiescence]), rows)

    def __getstate__(self) -> dict:
        return {k: v for k, v in self.__dict__.items() if k != "_judges"}


_RUN_JUDGES: dict[str, tuple] = {}
"""An executor process's judges (``_Checks.observe``) for the run whose tasks it runs."""
_RUNS = itertools.count()


def _kind(prop: Any) -> str:
    return str(getattr(prop.kind, "value", prop.kind))


def _observe_and_expand(model, codec: _Codec, checks: _Checks, state: Any, check_only: bool = False):
    """(observations, successors) of one frontier state: observations are (row kind,
    property index) in property order; successors (action index, next state, internal)
    in action order. ``check_only``: only the always/sometimes observations (a state that
    will not be expanded)."""
    if check_only:
        return list(checks.observe(model, state, quiescent=False)), []
    successors = []
    internal_enabled = False
    for index, action in enumerate(model.actions(state)):
        nxt = model.next_state(state, action)
        if nxt is not None:
            internal = _is_internal(model, action)
            internal_enabled = internal_enabled or internal
            successors.append((index, nxt, internal))
    return list(checks.observe(model, state, quiescent=not internal_enabled)), successors


EXPANSION_SCHEMA = "fp bigint, parent bigint, ppos bigint, action int, state binary, internal boolean"
"""Successor rows: fingerprint, the parent's fingerprint and position in its level (the
local engine's discovery order), the action's position in ``actions(parent)``."""

CHUNK = 2048
"""Parents per chunk, as in ``checker.explore.CHUNK``: a ``max_states`` cut takes effect
after the chunk of parents in which the bound is passed (generated successors, quiescence
checks and back edges count up to that chunk), exactly as the local engine does."""

RANK_BUCKET = 65536
"""Parent positions per bucket when ranking a large level (positions are dense)."""

RANK_IN_ONE_TASK = 262_144
"""Levels up to this many states are ranked on the driver from their seen rows
(``_positions``); larger ones per bucket of parent positions, in Spark."""

OUTPUT_BATCH_ROWS = 65536
OUTPUT_BATCH_BYTES = 16 << 20
"""A successor batch ends at this many rows or at this many bytes of states, whichever
comes first (the JVM holds a batch whole while it converts it)."""

SPLIT_FRONTIER_AT = 4096
"""Frontiers at least this large are spread over all expansion tasks (repartitioned, unless
their files already make that many tasks)."""

ROWS_PER_TASK = 64
"""At most one expansion task per this many frontier states (overridable for tests)."""


def _arrow_expander(model, codec: _Codec, checks: _Checks, tally, check_only: bool = False,
                    positions=None, keep: int | None = None):
    """The function ``mapInArrow`` runs on executors: frontier batches (fp, pos, state) in,
    successor batches out; observations and counts go to the `tally` accumulator, keyed by
    chunk of parent positions where a ``max_states`` cut needs them. The model travels
    inside this closure (cloudpickle). ``positions``: None, or a broadcast of
    ``_positions`` (then batches are (fp, state)). ``keep``: only the states at
    positions below it (a cut level's first states)."""

    def expand(batches):
        # States are acyclic trees of values: the cyclic collector would only walk the
        # task's successors over and over (the local engine turns it off for its run too)
        enabled = gc.isenabled()
        # (loading a broadcast turns the collector on: PySpark's Broadcast.load)
        table = None if positions is None else positions.value
        gc.disable()
        try:
            yield from _expand(batches, table)
        finally:
            if enabled:
                gc.enable()

    def _expand(batches, positions):
        import pyarrow as pa
        from pyspark import TaskContext

        schema = pa.schema(
            [
                ("fp", pa.int64()),
                ("parent", pa.int64()),
                ("ppos", pa.int64()),
                ("action", pa.int32()),
                ("state", pa.binary()),
                ("internal", pa.bool_()),
            ]
        )
        started = time.process_time()
        quiet = {i for i, _ in checks.at_quiescence}
        observed: dict[tuple, int] = {}
        generated: dict[int, int] = {}
        # Successors are deduplicated within the task first, by the state itself (as the
        # local engine does within a level), so each distinct one is encoded and hashed
        # once; then by fingerprint, keeping the first discoverer — the smallest (parent
        # position, action), the local engine's rule and the JVM's.
        by_state: dict[Any, list] = {}
        for batch in batches:
            fps = batch.column("fp")
            if positions is None:
                poss = batch.column("pos").to_pylist()
            else:
                poss = _position_of(positions, fps.to_numpy())
            blobs = batch.column("state").to_pylist()
            for fp, pos, blob in zip(fps.to_pylist(), poss, blobs):
                if keep is not None and pos >= keep:
                    continue
                state = codec.unpack(blob)
                obs, successors = _observe_and_expand(model, codec, checks, state, check_only)
                chunk = pos // CHUNK
                for kind, index in obs:
                    key = ("qobs", kind, index, chunk) if index in quiet else ("obs", kind, index)
                    observed[key] = min(observed.get(key, fp), fp)
                if successors:
                    generated[chunk] = generated.get(chunk, 0) + len(successors)
                for index, nxt, internal in successors:
                    row = by_state.get(nxt)
                    if row is None:
                        by_state[nxt] = [fp, pos, index, internal]
                    else:
                        if (pos, index) < (row[1], row[2]):
                            row[0], row[1], row[2] = fp, pos, index
                        row[3] = row[3] or internal
        best: dict[int, list] = {}
        for nxt, (parent, ppos, action, internal) in by_state.items():
            child, shipped = codec.pack(nxt)
            row = best.get(child)
            if row is None:
                best[child] = [parent, ppos, action, shipped, internal]
            else:
                if (ppos, action) < (row[1], row[2]):
                    row[0], row[1], row[2] = parent, ppos, action
                row[4] = row[4] or internal
        del by_state
        chunk_fps, rows, size = [], [], 0
        for child, row in best.items():
            chunk_fps.append(child)
            rows.append(row)
            size += len(row[3])
            if len(rows) == OUTPUT_BATCH_ROWS or size >= OUTPUT_BATCH_BYTES:
                yield _successor_batch(pa, schema, chunk_fps, rows)
                chunk_fps, rows, size = [], [], 0
        if rows:
            yield _successor_batch(pa, schema, chunk_fps, rows)
        part = TaskContext.get().partitionId()
        counts = {("gen", part, c): n for c, n in generated.items()}
        tally.add(observed | counts | {("cpu", part): time.process_time() - started})

    return expand


def _successor_batch(pa, schema, fps: list, rows: list):
    cols = [fps] + [[r[i] for r in rows] for i in range(5)]
    return pa.RecordBatch.from_arrays([pa.array(c, type=f.type) for c, f in zip(cols, schema)], schema=schema)


def _positions(seen_path: str):
    """A level's discovery positions from its seen rows: (fingerprints sorted, the
    position of each), the position being the rank of (parent position, action)."""
    import numpy as np
    import pyarrow.parquet as pq

    table = pq.read_table(seen_path, columns=["fp", "ppos", "action"])
    fps = table.column("fp").to_numpy()
    ranked = np.lexsort((table.column("action").to_numpy(), table.column("ppos").to_numpy()))
    pos = np.empty(len(fps), dtype=np.int64)
    pos[ranked] = np.arange(len(fps), dtype=np.int64)
    by_fp = np.argsort(fps, kind="stable")
    return fps[by_fp], pos[by_fp]


def _position_of(positions, fps) -> list[int]:
    """The positions (``_positions``) of a batch's fingerprints."""
    import numpy as np

    known, pos = positions
    at = np.searchsorted(known, fps)
    if len(fps) and (at.max() >= len(known) or not np.array_equal(known[at], fps)):
        raise RunDirError("a frontier state is missing from its level's seen table")
    return pos[at].tolist()


class _TallyParam:
    """Accumulator merge for expansion tallies: min for observations (fingerprints), and
    for per-partition entries the same value again on a retry (max keeps one copy)."""

    def zero(self, value: dict) -> dict:
        return {}

    def addInPlace(self, acc: dict, more: dict) -> dict:
        for key, value in more.items():
            if key in acc:
                acc[key] = min(acc[key], value) if key[0] in ("obs", "qobs") else max(acc[key], value)
            else:
                acc[key] = value
        return acc


# ---------------------------------------------------------------------------------------
# The run directory: Parquet levels, a levels log, and an atomically replaced manifest
# ---------------------------------------------------------------------------------------


class RunDirError(ValueError):
    """A run directory that cannot be resumed (missing, or made for another check)."""


@dataclass
class _Progress:
    """Everything a resumed run needs besides the Parquet levels (manifest.json). Per-level
    statistics go to ``levels.jsonl`` (appended once per level), not the manifest."""

    level: int = 0  # last complete level: seen/frontier level=`level` written, not expanded
    last_new: int = 0  # states in level `level`
    distinct: int = 0
    generated: int = 0
    phase: str = "driver"
    # property index -> [level, fp] of the first falsifying / witnessing state (min fp)
    falsified: dict[int, list[int]] = field(default_factory=dict)
    witnessed: dict[int, list[int]] = field(default_factory=dict)
    back_edges: int = 0  # internal actions leading back into an explored level
    finished: bool = False
    seconds: float = 0.0  # wall time of the run up to the last commit, across resumes
    # not in the manifest: this process's view
    levels: list[dict] = field(default_factory=list)  # per-level statistics
    depth: int = 0
    expanded: int = 0  # levels 0..expanded-1 were expanded (the last maybe cut)

    def note(self, kind: int, index: int, level: int, fp: int) -> None:
        table = self.falsified if kind == KIND_FALSIFIED else self.witnessed
        if index not in table or [level, fp] < table[index]:
            table[index] = [level, fp]

    def to_json(self) -> dict:
        return {
            "level": self.level,
            "last_new": self.last_new,
            "distinct": self.distinct,
            "generated": self.generated,
            "phase": self.phase,
            "falsified": {str(k): v for k, v in sorted(self.falsified.items())},
            "witnessed": {str(k): v for k, v in sorted(self.witnessed.items())},
            "back_edges": self.back_edges,
            "finished": self.finished,
            "seconds": round(self.seconds, 6),
        }

    @classmethod
    def from_json(cls, data: dict) -> _Progress:
        return cls(
            level=data["level"],
            last_new=data["last_new"],
            distinct=data["distinct"],
            generated=data["generated"],
            phase=data["phase"],
            falsified={int(k): v for k, v in data["falsified"].items()},
            witnessed={int(k): v for k, v in data["witnessed"].items()},
            back_edges=data["back_edges"],
            finished=data["finished"],
            seconds=data.get("seconds", 0.0),
            expanded=data["level"],
        )


TABLES = ("seen", "frontier", "backedge")


class _RunDir:
    """Paths: ``levels/table=seen/level=d`` and ``levels/table=frontier/level=d`` (one
    Spark write produces both), ``levels.jsonl`` and ``manifest.json``."""

    def __init__(self, root: str | os.PathLike):
        self.root = Path(root)
        self.recorded_bounds: dict | None = None  # the manifest's "bounds" (None: an older manifest)

    @property
    def levels_root(self) -> str:
        return str(self.root / "levels")

    @property
    def seen_root(self) -> str:
        return str(self.root / "levels" / "table=seen")

    def seen(self, level: int) -> str:
        return str(self.root / "levels" / "table=seen" / f"level={level}")

    def frontier(self, level: int) -> str:
        return str(self.root / "levels" / "table=frontier" / f"level={level}")

    def backedge(self, level: int) -> str:
        return str(self.root / "levels" / "table=backedge" / f"level={level}")

    def clear_level(self, level: int) -> None:
        for table in TABLES:
            shutil.rmtree(self.root / "levels" / f"table={table}" / f"level={level}", ignore_errors=True)

    def count(self, level: int, table: str = "seen") -> int:
        """Rows of a level's table, from the Parquet footers (no Spark job)."""
        import pyarrow.parquet as pq

        base = self.root / "levels" / f"table={table}" / f"level={level}"
        if not base.is_dir():
            return 0
        return sum(pq.read_metadata(f).num_rows for f in base.glob("*.parquet"))

    @property
    def manifest(self) -> Path:
        return self.root / "manifest.json"

    @property
    def levels_log(self) -> Path:
        return self.root / "levels.jsonl"

    def append_level(self, stats: dict) -> None:
        """One line per complete level (statistics only: resume does not need them)."""
        with open(self.levels_log, "a", encoding="utf-8") as fh:
            fh.write(json.dumps(stats, sort_keys=True) + "\n")

    def read_levels(self, upto: int) -> list[dict]:
        try:
            lines = self.levels_log.read_text(encoding="utf-8").splitlines()
        except FileNotFoundError:
            return []
        out = []
        for line in lines:
            try:
                stats = json.loads(line)
            except ValueError:  # a line cut short by a crash
                continue
            if isinstance(stats, dict) and isinstance(stats.get("level"), int) and stats["level"] <= upto:
                out.append(stats)
        return out

    def write_manifest(self, identity: dict, progress: _Progress) -> None:
        """Totals and the last complete level only (constant size), replaced atomically."""
        data = {"format": MANIFEST_FORMAT, **identity, "progress": progress.to_json()}
        tmp = self.root / "manifest.json.tmp"
        with open(tmp, "w", encoding="utf-8") as fh:
            json.dump(data, fh, indent=1, sort_keys=True)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, self.manifest)  # atomic: a reader sees the old or the new manifest

    def read_manifest(self, identity: dict) -> _Progress:
        try:
            data = json.loads(self.manifest.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise RunDirError(
                f"{self.root}: no manifest.json, so nothing to resume; "
                "start a new run with --run-dir instead of --resume"
            ) from None
        except OSError as err:   # a directory named manifest.json, no permission
            raise RunDirError(f"{self.manifest}: cannot read: {err.strerror}") from None
        except ValueError as err:   # not JSON, not UTF-8: damaged, or not written by mqcheck
            raise RunDirError(f"{self.manifest}: not a mqcheck Spark run ({err}); use a fresh --run-dir") from None
        if not isinstance(data, dict):
            kind = {list: "an array", str: "a string", bool: "a boolean", int: "a number", float: "a number"}
            raise RunDirError(f"{self.manifest}: not a mqcheck Spark run ({kind.get(type(data), 'null')}, not an "
                              "object); use a fresh --run-dir")
        if data.get("format") != MANIFEST_FORMAT:
            raise RunDirError(f"{self.manifest}: not a mqcheck Spark run ({data.get('format')!r})")
        for key, value in identity.items():
            if data.get(key) != value:
                was = data.get(key)
                if key == "properties" and isinstance(was, list):
                    gone = [x for x in was if x not in value]
                    new = [x for x in value if x not in was]
                    change = "; ".join(
                        f"{label} {_few(ids)}" for label, ids in (("not checked now:", gone), ("new:", new)) if ids
                    ) or "same properties, another order"
                    detail = f"the properties differ from when this run started ({change})"
                elif key == "init_fingerprints":
                    detail = (
                        "the initial state differs from the interrupted run's: the scenario, --faults or "
                        f"--explore-initial changed since it started (init_fingerprints {_brief(was)} "
                        f"then, now {_brief(value)})"
                    )
                else:
                    detail = f"{key} {_brief(was)} when this run started, now {_brief(value)}"
                raise RunDirError(
                    f"{self.manifest}: {detail}; resume with the same check (same scenario, "
                    "--property and options), or use a fresh --run-dir"
                )
        bounds = data.get("bounds")
        self.recorded_bounds = dict(bounds) if isinstance(bounds, dict) else None
        try:
            if any(not (v is None or type(v) is int and v >= 0) for v in (self.recorded_bounds or {}).values()):
                raise ValueError(f"bounds {bounds!r}: a bound that is not a whole number")
            progress = _Progress.from_json(data["progress"])
            if not all(type(getattr(progress, k)) is int and getattr(progress, k) >= 0
                       for k in ("level", "last_new", "distinct", "generated")):
                raise ValueError("a level or count that is not a whole number")
        except (KeyError, TypeError, AttributeError, ValueError) as err:   # edited by hand, or damaged
            raise RunDirError(f"{self.manifest}: its progress cannot be read ({type(err).__name__}: {err}); "
                              "use a fresh --run-dir") from None
        progress.levels = self.read_levels(progress.level)
        return progress

    def discard_after(self, level: int) -> None:
        """Remove what a crashed run wrote beyond the last complete level."""
        for table in TABLES:
            base = self.root / "levels" / f"table={table}"
            if base.is_dir():
                for child in base.iterdir():
                    if child.name.startswith("level=") and int(child.name[6:]) > level:
                        shutil.rmtree(child)
        shutil.rmtree(self.root / "levels" / "_temporary", ignore_errors=True)
        kept = self.read_levels(level)
        with open(self.levels_log, "w", encoding="utf-8") as fh:
            fh.writelines(json.dumps(s, sort_keys=True) + "\n" for s in kept)

    def drop_frontier(self, level: int) -> None:
        shutil.rmtree(self.frontier(level), ignore_errors=True)

    def disk_bytes(self) -> int:
        return sum(p.stat().st_size for p in self.root.rglob("*") if p.is_file())


_MISSING = object()

BOUNDS = ("max_states", "max_depth")
"""The exploration bounds a run directory's manifest records (``"bounds"``): a resume
explores under the same ones. (The property selection is part of the identity.)"""


def _resume_bounds(root: Path, recorded: dict | None, given: dict, model: Any) -> tuple[dict, list[str]]:
    """The bounds a resumed run explores under, and what to tell the user about them.

    A bound not given now is the recorded one: None, or the scenario's own ``[check]``
    default (which the command line passes when the user gives no ``--max-states`` or
    ``--max-depth``), means "not given". So a run interrupted under ``--max-states 3000``
    resumes under 3000, never silently under the scenario's 5000. A bound given now that
    differs from the recorded one is the user's choice, e.g. to take a bounded run
    further. It is used, said in a note, and recorded for the next resume. A manifest from
    before bounds were recorded: the bounds given now, as before."""
    if recorded is None:
        return dict(given), []
    defaults = getattr(getattr(model, "scenario", None), "check", None)
    out, notes = {}, []
    for key in BOUNDS:
        value, was = given.get(key), recorded.get(key, given.get(key))
        if value is None or value == was or value == getattr(defaults, key, _MISSING):
            out[key] = was
            continue
        started = f"with {key} {was}" if was is not None else f"without {key}"
        notes.append(f"--resume {root}: the run was started {started}; it goes on with {key} {value}")
        out[key] = value
    return out, notes


def _few(ids: list) -> str:
    return ", ".join(map(str, ids[:3])) + (f" and {len(ids) - 3} more" if len(ids) > 3 else "")


def _brief(value: Any) -> str:
    """A manifest value for an error message: lists by their length and first items."""
    if isinstance(value, list) and len(value) > 4:
        head = ", ".join(map(str, value[:3]))
        return f"had {len(value)} entries ({head}, ...)"
    return f"was {value!r}"


def _write_level_locally(run: _RunDir, level: int, rows: Sequence[tuple], frontier: bool = True) -> None:
    """Driver phase: write one level's seen (and, with ``frontier``, frontier) Parquet
    files with pyarrow. ``rows``: (fp, parent fp, parent position, action, state bytes or
    None) in discovery order."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    cols = list(zip(*rows)) if rows else [(), (), (), (), ()]
    fp = pa.array(cols[0], pa.int64())
    ppos = pa.array(cols[2], pa.int64())
    action = pa.array(cols[3], pa.int32())
    tables = [(pa.table({"fp": fp, "parent": pa.array(cols[1], pa.int64()), "ppos": ppos, "action": action}),
               run.seen(level))]
    if frontier:
        tables.append((pa.table({"fp": fp, "ppos": ppos, "action": action,
                                 "state": pa.array(cols[4], pa.binary())}), run.frontier(level)))
    for table, path in tables:
        shutil.rmtree(path, ignore_errors=True)
        os.makedirs(path)
        pq.write_table(table, os.path.join(path, "part-00000.parquet"), compression="zstd")


def _read_ordered(path: str, columns: Sequence[str]) -> dict[str, list]:
    """A driver-sized level's columns, in discovery order (parent position, action)."""
    import pyarrow.parquet as pq

    names = list(dict.fromkeys([*columns, "ppos", "action"]))
    t = pq.read_table(path, columns=names).sort_by([("ppos", "ascending"), ("action", "ascending")])
    return {c: t.column(c).to_pylist() for c in columns}


# ---------------------------------------------------------------------------------------
# The search
# ---------------------------------------------------------------------------------------


@dataclass
class _Search:
    """One exploration: the model, its checks, the run directory and the progress so far."""

    model: Any
    properties: tuple
    checks: _Checks
    codec: _Codec
    rundir: _RunDir
    identity: dict
    progress: _Progress
    spark: Any = None
    partitions: int | None = None
    on_level: Any = None  # test hook: called as on_level(event, level)
    session_args: tuple = (None, ())  # make_session(master, conf) when Spark is first needed
    interrupts: Any = None  # the run's _Interrupts (Ctrl-C handling), set by explore_spark
    jvm: Any = None  # the _Jvm this run started (stopped when the run ends), or None
    rows_per_task: int = ROWS_PER_TASK
    graph_checked: bool = False  # the driver's termination pass ran
    # The internal edges of the driver levels, recorded as they are expanded (as the local
    # engine records its edges): per level, where its edges start; per edge, the parent's
    # position in its level, the target's fingerprint and the action's index. None when
    # they are not all here (a resumed run, a cut level, past EDGE_LIMIT): find_lasso then
    # expands the levels again.
    edges: Any = None
    split_timing: bool = False  # benchmarks: time expand, dedup and write separately
    started: float = field(default_factory=time.perf_counter)
    prior_seconds: float = 0.0  # what earlier processes of a resumed run spent

    def elapsed(self) -> float:
        return self.prior_seconds + time.perf_counter() - self.started

    @property
    def track_back_edges(self) -> bool:
        return any(_kind(p) == "eventually" for p in self.properties)

    # -- driver phase ------------------------------------------------------------------

    def init_level(self) -> tuple[list[tuple], int]:
        """Level 0 in the order of ``init_states()`` (action = position there)."""
        rows: list[tuple] = []
        seen: set[int] = set()
        generated = 0
        for i, state in enumerate(self.model.init_states()):
            generated += 1
            fp, shipped = self.codec.pack(state)
            if fp not in seen:
                seen.add(fp)
                rows.append((fp, 0, -1, i, shipped))
        return rows, generated

    def driver_level(self, seen: set[int], frontier: list[tuple[int, Any]], level: int,
                     room: int | None = None):
        """Expand one level in plain Python, in discovery order: (next level's rows in
        discovery order, generated successors, internal edges back into explored levels,
        whether a ``max_states`` cut happened, timings). ``room``: how many more states
        ``max_states`` allows; the level is cut after the chunk of parents that passes it
        (the remaining parents are only checked, as the local engine checked them when
        it found them)."""
        started = time.perf_counter()
        best: dict[int, list] = {}
        children: dict[Any, int] = {}  # state -> fp, within the level (the local engine's dict)
        generated = back = 0
        cut = False
        note = self.progress.note
        model, codec, checks = self.model, self.codec, self.checks
        edges = self.edges
        if edges is not None:
            edges.starts.append(len(edges.src))
        for pos, (fp, state) in enumerate(frontier):
            obs, successors = _observe_and_expand(model, codec, checks, state, check_only=cut)
            for kind, index in obs:
                note(kind, index, level, fp)
            for action, nxt, internal in successors:
                generated += 1
                child = children.get(nxt)
                if child is None:
                    child = children[nxt] = codec.fingerprint_of(model.encode(nxt))
                if child in seen:
                    back += internal
                elif child not in best:
                    best[child] = [fp, pos, action, nxt]
                if internal and edges is not None:
                    edges.add(pos, child, action)
            if room is not None and not cut and ((pos + 1) % CHUNK == 0 or pos + 1 == len(frontier)):
                cut = len(best) > room
        if cut or (edges is not None and len(edges.src) > _edge_limit()):
            self.edges = None  # the termination pass expands the levels again
        return list(best.items()), generated, back, cut, {"expand": time.perf_counter() - started}

    # -- Spark phase -------------------------------------------------------------------

    def ranked_frontier(self, level: int):
        """(frontier `level`, positions): each state's position is its place in the local
        engine's discovery order (rank of (parent position, action)). Up to
        ``RANK_IN_ONE_TASK`` states, the driver ranks the level's seen rows (fp, parent
        position, action: 20 bytes a state) and the positions travel to the expansion
        tasks as a broadcast (fingerprints sorted, positions): the frontier is (fp, state)
        as written, and its states are not sorted. Above, the frontier carries a ``pos``
        column, ranked per bucket of parent positions: bucket sizes come to the driver (a
        few numbers, one small job), the rank inside a bucket is a window function."""
        from pyspark.sql import Window
        from pyspark.sql import functions as F

        spark, run = self.spark, self.rundir
        if run.count(level) <= RANK_IN_ONE_TASK:
            frontier = spark.read.parquet(run.frontier(level)).select("fp", "state")
            return frontier, spark.sparkContext.broadcast(_positions(run.seen(level)))
        frontier = spark.read.parquet(run.frontier(level)).select("fp", "ppos", "action", "state")
        bucket = F.floor(F.col("ppos") / RANK_BUCKET).cast("long")
        sizes = sorted(
            (r[0], r[1]) for r in spark.read.parquet(run.seen(level)).groupBy(bucket.alias("b")).count().collect()
        )
        offsets, total = [], 0
        for b, n in sizes:
            offsets.append((b, total))
            total += n
        table = spark.createDataFrame(offsets, "b long, offset long")
        window = Window.partitionBy("b").orderBy("ppos", "action")
        ranked = (
            frontier.withColumn("b", bucket)
            .join(F.broadcast(table), "b")
            .withColumn("pos", F.row_number().over(window) - 1 + F.col("offset"))
            .select("fp", "pos", "state")
        )
        return ranked, None

    def spark_level(self, level: int, check_only: bool = False, keep: int | None = None):
        """Expand frontier `level` and write level+1 in one Spark job: (new states, the
        expansion tally, timings). ``check_only`` only checks the level's first ``keep``
        states (discovery order) against always/sometimes (a cut last level).
        Observations and per-task counts come back through an accumulator whose merge is
        idempotent (min of fingerprints; per-partition counts keyed by partition), so a
        retried task cannot double-count."""
        spark = self.spark
        size = self.progress.last_new if keep is None else keep
        parts = self.partitions or max(2, 2 * spark.sparkContext.defaultParallelism)
        tally = spark.sparkContext.accumulator({}, _TallyParam())
        t0 = time.perf_counter()
        frontier, positions = self.ranked_frontier(level)
        try:
            expander = _arrow_expander(self.model, self.codec, self.checks, tally, check_only, positions, keep)
            return self._spark_level(level, check_only, frontier, positions is not None, expander, tally,
                                     size, parts, t0)
        finally:
            if positions is not None:
                positions.destroy()

    def _spark_level(self, level: int, check_only: bool, frontier: Any, scan: bool, expander: Any,
                     tally: Any, size: int, parts: int, t0: float):
        """``spark_level`` from its expansion on; ``scan``: the frontier is read as written."""
        from pyspark.sql import functions as F

        spark, run = self.spark, self.rundir
        if size >= SPLIT_FRONTIER_AT or self.partitions:
            tasks = min(parts, max(1, size // max(1, self.rows_per_task)))
            # A level Spark wrote is in files of fp-hashed rows (one per shuffle partition):
            # where reading them already makes a task per core, its states are not
            # shuffled again (fewer, larger tasks also ship fewer duplicate successors)
            if not (scan and self.partitions is None
                    and min(tasks, spark.sparkContext.defaultParallelism) <= frontier.rdd.getNumPartitions() <= tasks):
                frontier = frontier.repartition(tasks)
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", PANDAS_NOTICE, FutureWarning)
            successors = frontier.mapInArrow(expander, EXPANSION_SCHEMA)
        if check_only:
            successors.write.format("noop").mode("overwrite").save()
            return 0, dict(tally.value), {"wall": time.perf_counter() - t0}
        seen = spark.read.parquet(run.seen_root).where(F.col("level") <= level).select("fp")
        best = F.struct("ppos", "action", "parent", "state")  # first discoverer first
        if self.track_back_edges:
            # Old states carry no payload into the aggregation; an old state reached by an
            # internal action leaves a back-edge row with the first parent position that
            # reaches it (termination needs to know of any, and a cut needs the position).
            joined = successors.join(seen.withColumn("old", F.lit(True)), "fp", "left")
            grouped = joined.groupBy("fp").agg(
                F.min(F.when(F.col("old").isNull(), best)).alias("best"),
                F.max("old").alias("old"),
                F.min(F.when(F.col("internal") & F.col("old"), F.col("ppos"))).alias("back_pos"),
            )
            tables = (
                F.when(F.col("old").isNull(), F.array(F.lit("seen"), F.lit("frontier")))
                .when(F.col("back_pos").isNotNull(), F.array(F.lit("backedge")))
                .otherwise(F.array().cast("array<string>"))
            )
            ppos = F.coalesce(F.col("best.ppos"), F.col("back_pos"))
        else:
            grouped = successors.join(seen, "fp", "left_anti").groupBy("fp").agg(F.min(best).alias("best"))
            tables = F.array(F.lit("seen"), F.lit("frontier"))
            ppos = F.col("best.ppos")
        # One write, up to three tables: a new state's seen row (fp, parent, position of
        # the parent, action: kept for traces and discovery order) and its frontier row
        # (with the state), and the back-edge rows.
        out = grouped.select(
            "fp", "best.parent", ppos.alias("ppos"), "best.action", "best.state",
            F.explode(tables).alias("table"),
        )
        out = out.withColumn("state", F.when(F.col("table") == "frontier", F.col("state")))
        out = out.withColumn("level", F.lit(level + 1))
        run.clear_level(level + 1)
        t1 = time.perf_counter()
        split = {}
        if self.split_timing:
            # Benchmarks only: the same plan up to the expansion, then up to the
            # deduplication, each into Spark's no-op sink, then the real job; the
            # differences are measured wall times. The tally merge is idempotent
            # (min / max per partition), so the repeated expansions do not double-count.
            successors.write.format("noop").mode("overwrite").save()
            t_expand = time.perf_counter()
            out.write.format("noop").mode("overwrite").save()
            t_dedup = time.perf_counter()
            split = {"expand_s": t_expand - t1, "dedup_s": (t_dedup - t_expand) - (t_expand - t1)}
            t1 = time.perf_counter()
        out.write.mode("append").partitionBy("table", "level").parquet(run.levels_root)
        t2 = time.perf_counter()
        tally_value = dict(tally.value)
        cpu = sum(v for k, v in tally_value.items() if k[0] == "cpu")
        tasks = len({k[1] for k in tally_value if k[0] == "cpu"})
        times = {"prepare_s": t1 - t0, "job_s": t2 - t1, "python_task_s": cpu, "tasks": tasks}
        if split:
            split["write_s"] = (t2 - t1) - (split["expand_s"] + split["dedup_s"])
            times |= split
        return run.count(level + 1), tally_value, times

    def absorb(self, tally: dict, level: int, upto_chunk: int | None = None) -> int:
        """Record a level's observations; return its number of generated successors.
        ``upto_chunk``: a cut level: quiescence observations and generated successors of
        parents in chunks after this one do not count (they were not expanded locally)."""
        generated = 0
        for key, value in tally.items():
            if key[0] == "obs":
                self.progress.note(key[1], key[2], level, value)
            elif key[0] == "qobs":
                if upto_chunk is None or key[3] <= upto_chunk:
                    self.progress.note(key[1], key[2], level, value)
            elif key[0] == "gen":
                if upto_chunk is None or key[2] <= upto_chunk:
                    generated += value
        return generated

    def spark_cut_chunk(self, level: int, room: int) -> int:
        """The chunk of parents (of frontier `level`) after which the local engine cuts
        level+1: the first whose new states, with all earlier chunks', exceed `room`."""
        from pyspark.sql import functions as F

        chunk = F.floor(F.col("ppos") / CHUNK).cast("long")
        rows = self.spark.read.parquet(self.rundir.seen(level + 1)).groupBy(chunk.alias("c")).count().collect()
        total = 0
        for c, n in sorted((r[0], r[1]) for r in rows):
            total += n
            if total > room:
                return c
        raise AssertionError("a cut level without a chunk past the bound")  # pragma: no cover

    def spark_back_edges(self, level: int, upto_chunk: int | None) -> int:
        import pyarrow.parquet as pq

        path = self.rundir.backedge(level + 1)
        if not os.path.isdir(path):
            return 0
        if upto_chunk is None:
            return self.rundir.count(level + 1, "backedge")
        limit = (upto_chunk + 1) * CHUNK
        return pq.read_table(path, columns=["ppos"], filters=[("ppos", "<", limit)]).num_rows

    def _event(self, event: str, level: int) -> None:
        if self.on_level is not None:
            self.on_level(event, level)

    # -- the level loop ----------------------------------------------------------------

    def run(self, max_states, max_depth, driver_threshold, keep_frontiers) -> str:
        """Explore until done or a bound stops it; returns "" (complete) or the reason, in
        the local engine's words. Only complete levels are committed to the manifest."""
        p = self.progress
        seen_mem: set[int] | None = None
        frontier_mem: list | None = None
        if p.phase == "driver":
            seen_mem, frontier_mem = self.load_driver_levels(p.level)
            # edges are recorded from a fresh start only (a resumed run did not see the
            # levels before it expanded); they matter to termination only
            self.edges = _Edges() if p.level == 0 and self.track_back_edges else None
        while True:
            if self.interrupts is not None:
                self.interrupts.check()
            level = p.level
            p.depth = level if p.last_new else max(level - 1, 0)
            if p.last_new == 0:
                p.finished = True
                self.commit()
                return ""
            if p.phase == "driver" and p.last_new > driver_threshold:
                # Spark takes over: the frontier goes to Parquet once, here (driver levels
                # keep their states in memory and write only the seen table)
                cols = _read_ordered(self.rundir.seen(level), ("fp", "parent", "ppos", "action"))
                rows = [(fp, r[0], r[1], r[2], self._ship(s))
                        for (fp, s), r in zip(frontier_mem, zip(cols["parent"], cols["ppos"], cols["action"]))]
                _write_level_locally(self.rundir, level, rows)
                p.phase = "spark"
                seen_mem = frontier_mem = None
                self.edges = None  # termination is then judged from the back-edge rows
            last = max_depth is not None and level >= max_depth
            room = None if max_states is None or last else max_states - p.distinct
            cut_chunk = None
            if p.phase == "spark":
                if self.spark is None:
                    self.start_spark()
                new, tally, times = self.spark_level(level)
                if self.jvm is not None:
                    self.jvm.note_family()   # its Python workers, which the level's tasks started
                if room is not None and new > room:
                    cut_chunk = self.spark_cut_chunk(level, room)
                generated = self.absorb(tally, level, cut_chunk)
                back = self.spark_back_edges(level, cut_chunk)
                cut = cut_chunk is not None
            else:
                rows, generated, back, cut, times = self.driver_level(seen_mem, frontier_mem, level, room)
                new = len(rows)
            p.generated += generated
            p.back_edges += back
            p.expanded = level + 1
            if last:
                return "max_depth reached" if new else ""
            if cut:  # the level is cut: check what is kept, commit nothing
                keep = max(room, 0)
                p.distinct += keep
                if keep:
                    p.depth = level + 1
                p.levels.append({"level": level + 1, "new": keep, "truncated_from": new})
                if p.phase == "spark":
                    _, tally, _ = self.spark_level(level + 1, check_only=True, keep=keep)
                    self.absorb(tally, level + 1)
                else:
                    kept = rows[:keep]
                    _write_level_locally(self.rundir, level + 1, self._packed(kept, False), frontier=False)
                    for fp, r in kept:  # checked when found, as the local engine does
                        for kind, index in self.checks.observe(self.model, r[3], quiescent=False):
                            p.note(kind, index, level + 1, fp)
                return "max_states reached"
            if p.phase == "driver":
                t = time.perf_counter()
                _write_level_locally(self.rundir, level + 1, self._packed(rows, False), frontier=False)
                times["write"] = time.perf_counter() - t
            self._event("written", level + 1)
            stats = {"level": level + 1, "new": new, "generated": generated, "phase": p.phase}
            stats |= {k: round(v, 4) if isinstance(v, float) else v for k, v in times.items()}
            self.rundir.append_level(stats)
            p.levels.append(stats)
            p.level = level + 1
            p.last_new = new
            p.distinct += new
            self.commit()
            if p.phase == "driver":
                seen_mem.update(fp for fp, _ in rows)
                frontier_mem = [(fp, r[3]) for fp, r in rows]
            if not keep_frontiers:
                self.rundir.drop_frontier(level)
            self._event("committed", level + 1)

    def start_spark(self) -> None:
        """Start the session when the first level goes to Spark. Until it answers, a signal
        ends the JVM being started (:class:`_Interrupts`); a session that cannot start is a
        :class:`SparkStartError`."""
        interrupts = self.interrupts
        self.spark, self.jvm = _start_session(*self.session_args, "mqcheck", interrupts)
        if interrupts is not None:
            interrupts.starting = None   # self.jvm is stopped with the run from here on
            interrupts.reinstall()

    def _packed(self, rows: list, with_states: bool = True) -> list[tuple]:
        """Driver rows (fp, [parent, ppos, action, state]) as rows to write."""
        ship = self._ship if with_states else (lambda s: None)
        return [(fp, parent, ppos, action, ship(s)) for fp, (parent, ppos, action, s) in rows]

    def _ship(self, state: Any) -> bytes:
        return self.codec.pack(state)[1]

    def load_driver_levels(self, level: int) -> tuple[set[int], list[tuple[int, Any]]]:
        """Driver phase, on start or resume: every seen fingerprint and the states of
        frontier `level` in discovery order. Driver levels do not write their states, so
        they are rebuilt by replaying the parent pointers level by level (one more
        expansion of what was explored: the price of not writing every state)."""
        import pyarrow.parquet as pq

        seen: set[int] = set()
        for d in range(level + 1):
            seen.update(pq.read_table(self.rundir.seen(d), columns=["fp"]).column("fp").to_pylist())
        model = self.model
        cols = _read_ordered(self.rundir.seen(0), ("fp", "action"))
        inits = list(model.init_states())
        states = [inits[a] for a in cols["action"]]
        fps = cols["fp"]
        for d in range(1, level + 1):
            cols = _read_ordered(self.rundir.seen(d), ("fp", "ppos", "action"))
            nxt = []
            for fp, ppos, action in zip(cols["fp"], cols["ppos"], cols["action"]):
                parent = states[ppos]
                state = model.next_state(parent, list(model.actions(parent))[action])
                if state is None or self.codec.fingerprint_of(model.encode(state)) != fp:
                    raise RunDirError(
                        f"{self.rundir.root}: replaying level {d} did not reach the recorded "
                        "state: the model is not the one that wrote this run directory, or "
                        "it is not deterministic"
                    )
                nxt.append(state)
            states, fps = nxt, cols["fp"]
        return seen, list(zip(fps, states))

    def commit(self) -> None:
        self.progress.seconds = self.elapsed()
        self.rundir.write_manifest(self.identity, self.progress)

    # -- termination, when the whole graph fits on the driver ---------------------------

    def find_lasso(self, visited_levels: int, expanded_levels: int):
        """The local engine's termination check (``checker.explore``): every internal edge
        between visited states (global index = level start + discovery position, as
        there), as recorded by the driver levels or else found by expanding the levels
        again along the parent tree, handed to its ``_lasso``: the smallest-index state on
        a cycle, its BFS prefix, a shortest cycle. Returns a lasso ``Trace`` or None."""
        import numpy as np

        from checker.explore import _lasso

        model = self.model
        index: dict[int, int] = {}
        order: list[dict[str, list]] = []
        for d in range(visited_levels):
            cols = _read_ordered(self.rundir.seen(d), ("fp", "parent", "ppos", "action"))
            base = len(index)
            for k, fp in enumerate(cols["fp"]):
                index[fp] = base + k
            order.append(cols)
        if self.edges is not None and len(self.edges.starts) >= expanded_levels:
            src, dst, act = self.edges.resolved(index, order, expanded_levels)
        else:
            src, dst, act = self.reexpanded_edges(index, order, expanded_levels)
        found = _lasso(len(index), np.array(src, np.uint32), np.array(dst, np.uint32))
        if found is None:
            return None
        entry, cycle = found
        starts = [index[o["fp"][0]] if o["fp"] else len(index) for o in order]
        entry_level = max(d for d, s in enumerate(starts) if s <= entry and order[d]["fp"])
        steps = self.replay(self.path_to(entry_level, order[entry_level]["fp"][entry - starts[entry_level]]))
        loop_start = len(steps) - 1
        edge_action: dict = {}
        for u, v, a in zip(src, dst, act):
            edge_action.setdefault((u, v), a)
        s = entry_state = steps[-1][1]
        pack = self.codec.pack
        for u, v in zip(cycle, cycle[1:] + cycle[:1]):
            a = list(model.actions(s))[edge_action[(u, v)]]
            s = model.next_state(s, a)
            # the cycle was found among fingerprints: each step of its replay must reach the
            # state recorded there, by an internal action, and the last must be the very state
            # it left — as the local engine checks (checker.explore, _find_cycle)
            if s is None or index.get(pack(s)[0]) != v or not _is_internal(model, a):
                raise AssertionError(
                    "replaying a lasso's cycle did not follow the recorded edges: the model is not "
                    "deterministic (actions() order or next_state() depends on something other "
                    "than the state)")
            steps.append((a, s))
        if model.encode(s) != model.encode(entry_state):
            raise AssertionError(
                f"the cycle found does not replay as a cycle: two states share a {self.codec.bits}-bit "
                "fingerprint (a collision; run again with 128-bit fingerprints)")
        return self.make_trace(steps, loop_start)

    def reexpanded_edges(self, index: dict[int, int], order: list[dict[str, list]], expanded_levels: int):
        """The internal edges among the visited states (``index``: fingerprint to global
        index), found by expanding the levels again along the parent tree."""
        model, codec = self.model, self.codec
        inits = list(model.init_states())
        level = [inits[a] for a in order[0]["action"]] if order else []
        src: list[int] = []
        dst: list[int] = []
        act: list[int] = []
        for d in range(expanded_levels):
            base = index[order[d]["fp"][0]] if order[d]["fp"] else len(index)
            child_at: dict[tuple[int, int], int] = {}
            if d + 1 < len(order):
                nxt_cols = order[d + 1]
                child_at = {(pp, a): k for k, (pp, a) in enumerate(zip(nxt_cols["ppos"], nxt_cols["action"]))}
            nxt: list = [None] * len(child_at)
            for k, s in enumerate(level):
                for ai, a in enumerate(model.actions(s)):
                    t = model.next_state(s, a)
                    if t is None:
                        continue
                    v = index.get(codec.fingerprint_of(model.encode(t)))
                    if v is None:
                        continue
                    if _is_internal(model, a):
                        src.append(base + k)
                        dst.append(v)
                        act.append(ai)
                    j = child_at.get((k, ai))
                    if j is not None:
                        nxt[j] = t
            level = nxt
        return src, dst, act

    # -- traces ------------------------------------------------------------------------

    def path_to(self, level: int, fp: int) -> list[tuple[int, int]]:
        """(fp, action index) from an initial state (action -1) to `fp` at `level`."""
        import pyarrow.parquet as pq

        chain = []
        for d in range(level, 0, -1):
            table = pq.read_table(self.rundir.seen(d), filters=[("fp", "=", fp)])
            assert table.num_rows == 1, f"fingerprint {fp} missing from seen level {d}"
            chain.append((fp, table.column("action")[0].as_py()))
            fp = table.column("parent")[0].as_py()
        chain.append((fp, -1))
        chain.reverse()
        return chain

    def trace(self, level: int, fp: int):
        """The ``checker.model.Trace`` from an initial state to `fp` at `level`."""
        return self.make_trace(self.replay(self.path_to(level, fp)))

    def make_trace(self, steps: list[tuple[Any, Any]], loop_start: int | None = None):
        """A ``checker.model.Trace`` in the local engine's format (changed top-level keys
        only after the first step)."""
        from checker.model import Trace, TraceStep, describe_action, describe_state

        out = []
        prev: dict = {}
        for action, state in steps:
            cur = json.loads(json.dumps(describe_state(self.model, state), default=str))
            fp_hex = format(self.codec.pack(state)[0] & 0xFFFFFFFFFFFFFFFF, "x")
            if action is None:
                out.append(TraceStep(None, cur, fp_hex))
            else:
                changed = {k: v for k, v in cur.items() if prev.get(k, _MISSING) != v}
                changed.update({k: None for k in prev if k not in cur})
                out.append(TraceStep(describe_action(self.model, action), changed, fp_hex,
                                     _is_internal(self.model, action)))
            prev = cur
        return Trace(out, loop_start)

    def replay(self, chain: list[tuple[int, int]]) -> list[tuple[Any, Any]]:
        """Re-run next_state on the driver: [(None, init), (action, state), ...]."""
        root_fp = chain[0][0]
        state = next(s for s in self.model.init_states() if self.codec.pack(s)[0] == root_fp)
        steps: list[tuple[Any, Any]] = [(None, state)]
        for fp, index in chain[1:]:
            actions = list(self.model.actions(state))
            nxt = self.model.next_state(state, actions[index]) if 0 <= index < len(actions) else None
            if nxt is None or self.codec.pack(nxt)[0] != fp:
                raise AssertionError(
                    f"replaying a trace: action {index} does not lead to fingerprint {fp}; the "
                    "model is not deterministic (actions() order or next_state() depends on "
                    "something other than the state)"
                )
            steps.append((actions[index], nxt))
            state = nxt
        return steps


def model_identity(model: Any, properties: Sequence[Any], bits: int) -> dict:
    """What a resumed run must share with the run that wrote the directory."""
    from checker.model import model_name

    codec = _Codec(model, bits)
    return {
        "model": f"{type(model).__module__}.{type(model).__qualname__}",
        "model_name": model_name(model),
        "init_fingerprints": sorted({codec.pack(s)[0] for s in model.init_states()}),
        "properties": [str(getattr(p, "id", i)) for i, p in enumerate(properties)],
        "fingerprint": f"blake2b-{bits} of Model.encode, read as a signed little-endian int64",
        "state_bytes": "Model.encode/decode" if codec.ships_encoding else f"pickle protocol {PICKLE_PROTOCOL}",
        "order": "parent position in its level, then action position (the local engine's)",
    }


# ---------------------------------------------------------------------------------------
# The entry point
# ---------------------------------------------------------------------------------------


def explore_spark(
    model: Any,
    *,
    spark: Any = None,
    run_dir: str | os.PathLike | None = None,
    resume: bool = False,
    max_states: int | None = None,
    max_depth: int | None = None,
    partitions: int | None = None,
    driver_threshold: int = DEFAULT_DRIVER_THRESHOLD,
    fingerprint_bits: int = 64,
    property_ids: Sequence[str] | None = None,
    keep_frontiers: bool = False,
    master: str | None = None,
    conf: Iterable[str] | dict[str, str] = (),
    rows_per_task: int = ROWS_PER_TASK,
    _on_level: Any = None,
    _split_timing: bool = False,
):
    """Explore every reachable state of ``model`` breadth-first on Spark; return a
    ``checker.model.Result`` with ``backend="spark"``.

    Same contract as ``checker.explore.explore``: the same distinct-state count, depth,
    verdicts and shortest-trace lengths, under any ``PYTHONHASHSEED`` and partition count;
    under ``max_states`` the same states are kept (discovery order: parent position, then
    action). ``run_dir`` keeps the levels (a temporary directory, removed afterwards,
    when None); ``resume=True`` continues the run recorded there from its last complete
    level, under the bounds it was started with (the manifest records them: a bound given
    now must be the same, else RunDirError; None, or the scenario's ``[check]`` default
    that the command line passes for no option, means the recorded one; a manifest from
    before bounds were recorded takes the ones given now) (the statistics' seconds and states/s cover the
    whole run: the manifest keeps the time spent up to its last complete level). ``spark`` defaults to ``make_session(master, conf)``, started
    only when a frontier first exceeds ``driver_threshold`` states (small models never
    start a JVM). ``partitions`` is the number of expansion tasks per level (default:
    twice the default parallelism), at most one per ``rows_per_task`` frontier states.
    """
    import tempfile

    if fingerprint_bits != 64:
        raise ValueError(
            f"fingerprint_bits={fingerprint_bits}: the Spark backend stores fingerprints as "
            "64-bit integers; use fingerprint_bits=64 (or the local engine for wider ones)"
        )
    properties = _select(model, property_ids)
    if resume and run_dir is None:
        raise RunDirError("resume needs the run directory of the interrupted run (--resume DIR)")
    temporary = run_dir is None
    root = Path(tempfile.mkdtemp(prefix="mqcheck-spark-") if temporary else run_dir)
    run = _RunDir(root)
    codec = _Codec(model, fingerprint_bits)
    identity = model_identity(model, properties, fingerprint_bits)
    # The cyclic garbage collector is off for the run, as in the local engine: states are
    # acyclic, and it would only walk the driver's levels over and over.
    collecting = gc.isenabled()
    gc.disable()
    closing = contextlib.ExitStack()   # what an interrupted run holds until it returns
    search = None
    try:
        if resume:
            progress = run.read_manifest(identity)
            bounds, notes = _resume_bounds(root, run.recorded_bounds,
                                           {"max_states": max_states, "max_depth": max_depth}, model)
            max_states, max_depth = bounds["max_states"], bounds["max_depth"]
            for note in notes:
                sys.stderr.write(f"mqcheck: note: {note}\n")
            run.discard_after(progress.level)
            progress.finished = False
        else:
            if run.manifest.exists():
                raise RunDirError(
                    f"{root} already holds a run (manifest.json); resume it with --resume "
                    f"{root}, or choose an empty --run-dir"
                )
            progress = _Progress()
        recorded = {**identity, "bounds": {"max_states": max_states, "max_depth": max_depth}}
        search = _Search(
            model, properties, _Checks.of(properties, f"{os.getpid()}.{next(_RUNS)}"), codec, run, recorded, progress,
            spark=spark, partitions=partitions, on_level=_on_level,
            session_args=(master, dict(conf) if isinstance(conf, dict) else parse_conf(conf)),
            rows_per_task=rows_per_task, prior_seconds=progress.seconds,
            split_timing=_split_timing,
        )
        if resume and run.recorded_bounds != recorded["bounds"]:  # an older manifest, or new bounds
            run.write_manifest(recorded, progress)
        if not resume:
            try:
                root.mkdir(parents=True, exist_ok=True)
            except OSError as err:   # a file of that name, a place no directory can be made
                why = "it is a file" if root.is_file() else err.strerror
                raise RunDirError(f"--run-dir {root}: cannot make the run directory: {why}") from None
            run.levels_log.unlink(missing_ok=True)
            rows, generated = search.init_level()
            keep = len(rows) if max_states is None else min(len(rows), max_states)
            for fp, _, _, _, blob in rows[:keep]:
                for kind, index in _observe_and_expand(model, codec, search.checks,
                                                       codec.unpack(blob), check_only=True)[0]:
                    progress.note(kind, index, 0, fp)
            _write_level_locally(run, 0, rows[:keep])
            progress.distinct = progress.last_new = keep
            progress.generated = generated
            stats = {"level": 0, "new": keep, "generated": generated, "phase": "driver"}
            run.append_level(stats)
            progress.levels.append(stats)
            search.commit()
        lasso = None
        failure = ""
        interrupts = search.interrupts = _Interrupts(search)
        try:
            with interrupts:
                try:
                    stop = search.run(max_states, max_depth, driver_threshold, keep_frontiers)
                    interrupts.check()
                    if (progress.phase == "driver" and progress.back_edges and search.track_back_edges):
                        visited = progress.depth + 1 if progress.distinct else 0
                        lasso = search.find_lasso(visited, min(progress.expanded, visited))
                        search.graph_checked = True
                    interrupts.check()
                except SparkStartError as err:
                    if interrupts.requested:
                        raise KeyboardInterrupt from None
                    if temporary:
                        raise
                    raise err.with_hint(f"{root} keeps level {search.progress.level}: --resume {root} "
                                        "goes on from there") from None
                except Exception as err:
                    if interrupts.requested:
                        raise KeyboardInterrupt from None  # a Spark call failed because Ctrl-C cancelled it
                    failure = _spark_failure(err, search)
                    if not failure:
                        raise
                    stop = f"Spark failed: {failure}"
        except KeyboardInterrupt:
            # Ctrl-C or SIGTERM: report what the last complete level established; resume continues.
            # From here to the end of the clean-up below, a repeat only cuts the wait for the
            # cancelled tasks (or for the JVM's end) short (reporting).
            closing.enter_context(interrupts.reporting())
            if search.jvm is not None:
                search.jvm.output.mute()
            interrupts.cancel_jobs()
            if search.jvm is None:   # a JVM this run started is stopped below, quiet already
                interrupts.settle()
            stop = "terminated (SIGTERM)" if interrupts.terminated else "interrupted"
            failure = stop
        if failure:
            # a signal, or Spark failed after it started: what the last complete level
            # established, as after a bound (the run directory can be resumed)
            search.progress = run.read_manifest(identity)
            search.progress.depth = (search.progress.level if search.progress.last_new
                                     else max(search.progress.level - 1, 0))
            lasso = None
        return _result(search, stop, search.elapsed(), lasso)
    finally:
        _RUN_JUDGES.clear()  # the driver's (local mode runs the driver levels here)
        if collecting:
            gc.enable()
        jvm = search.jvm if search is not None else None
        if jvm is None and search is not None and search.interrupts is not None:
            jvm = search.interrupts.starting   # started, but the run stopped before it took it
        if jvm is not None:
            # no process of the run outlives it: the JVM this run started and its Python
            # workers end before it returns (a repeated signal only hurries them)
            interrupts = search.interrupts
            with interrupts.reporting() if interrupts is not None else contextlib.nullcontext():
                jvm.stop(search.spark, hurried=lambda: interrupts is not None and interrupts.hurried)
        if temporary:
            shutil.rmtree(root, ignore_errors=True)
        closing.close()


def _spark_failure(err: Exception, search: "_Search") -> str:
    """What to report when ``err`` is Spark failing under a run that had started it (the
    JVM gone, a job aborted, the connection lost): one line; "" for anything else, which
    is raised as it is (mqcheck's own errors: a Python exception in a task, a query that
    does not analyse)."""
    if search.spark is None or type(err).__name__ in ("PythonException", "AnalysisException"):
        return ""
    try:
        from py4j.protocol import Py4JError
    except ImportError:   # pragma: no cover - pyspark brings py4j
        Py4JError = ()
    tb = err.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    where = tb.tb_frame.f_code.co_filename if tb is not None else ""
    inside = any(f"{os.sep}{package}{os.sep}" in where for package in ("py4j", "pyspark"))
    if not (isinstance(err, Py4JError) or inside):
        return ""
    gone = search.jvm.exited(wait=1.0) if search.jvm is not None else ""
    return gone or _exception_line(err)


class _Interrupts:
    """Ctrl-C during a run: the honest incomplete result, and nothing else on the terminal.

    pyspark's own SIGINT handler calls ``cancelAllJobs`` from inside the signal handler,
    re-entering py4j while the interrupted call is still reading its socket: py4j then logs
    tracebacks ("reentrant call", "KeyboardInterrupt while sending command") and the JVM
    logs the cancelled jobs with a stack trace. Here, while a run is under way, SIGINT in
    the middle of a py4j call only asks for the interruption: another thread cancels the
    jobs with the JVM's logging off, the call returns or fails as cancelled, and the run
    stops as interrupted (:meth:`check`); anywhere else it raises KeyboardInterrupt at
    once. A repeat in the middle of a py4j call is ignored too (the cancelled call returns,
    and the run stops then); once the run has stopped and its result is being built
    (:meth:`reporting`), a repeat only cuts the wait for the cancelled tasks short, so that
    the result is still printed.

    SIGTERM (``kill``, ``timeout``) is handled the same way (issue #17), when its action was
    the default; ``terminated`` says it was SIGTERM, for the result's stop reason.
    """

    def __init__(self, search: "_Search") -> None:
        self.search = search
        self.requested = False
        self.previous: Any = None
        self.previous_term: Any = None
        self.terminated = False
        self.hurried = False   # a repeat after the run stopped: the result now, without waiting
        self.starting: _Jvm | None = None   # a JVM being started for the run (_start_session)
        self.active = threading.current_thread() is threading.main_thread()

    def __enter__(self) -> "_Interrupts":
        if self.active:
            self.previous = signal.getsignal(signal.SIGINT)
            if self.previous is not signal.SIG_IGN:   # an ignored SIGINT (a background job) stays ignored
                signal.signal(signal.SIGINT, self.handler)
            self.previous_term = signal.getsignal(signal.SIGTERM)
            if self.previous_term is signal.SIG_DFL:
                signal.signal(signal.SIGTERM, self.handler)
        return self

    def __exit__(self, *exc: object) -> None:
        if self.active:
            signal.signal(signal.SIGINT, self.previous)
            if self.previous_term is signal.SIG_DFL:
                signal.signal(signal.SIGTERM, signal.SIG_DFL)

    @contextlib.contextmanager
    def reporting(self) -> Iterator[None]:
        """While an interrupted run cancels its jobs and builds its result: a repeated Ctrl-C
        or SIGTERM no longer raises (that would lose the result) but stops the wait for the
        cancelled tasks (:meth:`settle`). An ignored SIGINT stays ignored; a caller's own
        SIGTERM handler stays."""
        installed = []
        if self.active:
            previous = signal.getsignal(signal.SIGINT)
            if previous is not signal.SIG_IGN and previous is not None:
                installed.append((signal.SIGINT, signal.signal(signal.SIGINT, self.hurry)))
            if signal.getsignal(signal.SIGTERM) is signal.SIG_DFL:
                installed.append((signal.SIGTERM, signal.signal(signal.SIGTERM, self.hurry)))
        try:
            yield
        finally:
            for signum, previous in reversed(installed):
                signal.signal(signum, previous)

    def hurry(self, signum: int, frame: Any) -> None:
        """A repeated Ctrl-C or SIGTERM while the result is built: stop waiting (:meth:`settle`)."""
        self.hurried = True

    def reinstall(self) -> None:
        """After a SparkContext starts: it installs pyspark's handler in place of ours (and in
        place of an ignored SIGINT, which is ignored again)."""
        if self.active:
            signal.signal(signal.SIGINT, signal.SIG_IGN if self.previous is signal.SIG_IGN else self.handler)

    def handler(self, signum: int, frame: Any) -> None:
        self.terminated = self.terminated or signum == signal.SIGTERM
        first = not self.requested
        self.requested = True
        jvm = getattr(self.search, "jvm", None)
        if jvm is not None:
            jvm.output.mute()   # what the cancelled tasks' workers print is not the run's
        if not first:
            # the first signal already stops the run; a repeat only hurries what is left
            # (raising again could cut short the ending of the JVM or of a py4j call)
            self.hurried = True
            return
        if self.starting is not None:
            # the JVM is still starting (seconds): end it, and the run with it, now
            self.starting.terminate()
            raise KeyboardInterrupt
        if self.search.spark is not None and _inside_py4j(frame):
            threading.Thread(target=self.cancel_jobs, name="mqcheck-cancel", daemon=True).start()
            # raising inside py4j would break its connection (tracebacks on stderr); the run
            # stops when the cancelled call returns
            return
        raise KeyboardInterrupt

    def check(self) -> None:
        """Raise KeyboardInterrupt if an interruption was asked for."""
        if self.requested:
            raise KeyboardInterrupt

    def cancel_jobs(self) -> None:
        """Cancel every running job, the JVM's logging off (its cancellations are not errors)."""
        spark = self.search.spark
        if spark is None:
            return
        try:
            spark.sparkContext.setLogLevel("OFF")
            spark.sparkContext.cancelAllJobs()
        except Exception:  # the JVM may be going away; nothing left to cancel then
            pass

    def settle(self, timeout: float = 30.0) -> None:
        """Turn the JVM's errors back on once the cancelled tasks have ended.

        A job is cancelled at once, but its tasks are killed asynchronously: a task thread
        interrupted while it reads shuffle blocks logs "ERROR ShuffleBlockFetcherIterator:
        Error occurred while fetching local blocks" when it notices, up to seconds later.
        Those lines are the cancellation's, not errors of the run, so logging stays off
        until no executor runs a task; if they do not end within ``timeout`` seconds it
        stays off (the process is about to report the interrupted run and exit).
        """
        spark = self.search.spark
        if spark is None:
            return
        deadline = time.monotonic() + timeout
        try:
            tracker = spark.sparkContext.statusTracker()
            while time.monotonic() < deadline and not self.hurried:
                if not any(e.numRunningTasks for e in tracker.getExecutorInfos()):
                    spark.sparkContext.setLogLevel("ERROR")
                    return
                time.sleep(0.05)
        except Exception:  # the JVM is going away: nothing left to log
            pass


def _edge_limit() -> int:
    """The local engine's bound on recorded edges (``checker.explore.EDGE_LIMIT``)."""
    from checker.explore import EDGE_LIMIT

    return EDGE_LIMIT


class _Edges:
    """The internal edges of the driver levels as they are expanded, in the order the
    termination pass would find them again: level by level, parent by parent, action by
    action (so the lasso and its trace are the same either way)."""

    def __init__(self) -> None:
        from array import array

        self.starts: list[int] = []  # per level, the index of its first edge
        self.src = array("I")  # the parent's position in its level
        self.dst = array("q")  # the target's fingerprint
        self.act = array("H")  # the action's index in actions(parent)

    def add(self, pos: int, fp: int, action: int) -> None:
        self.src.append(pos)
        self.dst.append(fp)
        self.act.append(action)

    def resolved(self, index: dict[int, int], order: list[dict[str, list]], levels: int):
        """(src, dst, act) in global indices (``index``: fingerprint to global index; a
        level's base is its first state's), the edges of the first ``levels`` levels whose
        target was visited."""
        src: list[int] = []
        dst: list[int] = []
        act: list[int] = []
        ends = self.starts[1:levels] + [self.starts[levels] if levels < len(self.starts) else len(self.src)]
        for d in range(levels):
            base = index[order[d]["fp"][0]] if order[d]["fp"] else len(index)
            for k in range(self.starts[d], ends[d]):
                v = index.get(self.dst[k])
                if v is not None:
                    src.append(base + self.src[k])
                    dst.append(v)
                    act.append(self.act[k])
        return src, dst, act


def _inside_py4j(frame: Any) -> bool:
    """Is the interrupted Python code in the middle of a call to the JVM?"""
    marker = f"{os.sep}py4j{os.sep}"
    while frame is not None:
        if marker in frame.f_code.co_filename:
            return True
        frame = frame.f_back
    return False


def _select(model: Any, property_ids: Iterable[str] | None) -> tuple:
    """The properties to check, witnesses included (the one rule of checker.model)."""
    from checker.model import select_properties

    return tuple(select_properties(model, property_ids))


# ---------------------------------------------------------------------------------------
# Verdicts
# ---------------------------------------------------------------------------------------


def _result(search: _Search, stop: str, seconds: float, lasso=None):
    """The ``checker.model.Result``, with the local engine's verdict rules."""
    from checker.model import (
        Kind,
        Result,
        Statistics,
        Status,
        Verdict,
        collision_probability,
        model_name,
    )

    p = search.progress
    complete = not stop
    depth = p.depth
    seen_bytes = sum(f.stat().st_size for f in Path(search.rundir.seen_root).rglob("*.parquet"))
    bits = search.codec.bits
    stats = Statistics(
        distinct_states=p.distinct,
        generated_states=p.generated,
        max_depth=depth,
        seconds=round(seconds, 6),
        states_per_second=round(p.distinct / seconds, 1) if seconds > 0 else 0.0,
        fingerprint_bits=bits,
        collision_probability=collision_probability(p.distinct, p.generated, bits),
        visited_bytes_per_state=round(seen_bytes / p.distinct, 2) if p.distinct else 0.0,
        complete=complete,
        stop_reason=stop,
        # new distinct states per level, as the local engine counts them (a level cut to 0 is none)
        levels=[int(lv["new"]) for lv in sorted(p.levels, key=lambda lv: lv["level"]) if lv["new"]],
    )
    verdicts: dict = {}
    graph_checked = search.graph_checked
    for i, prop in enumerate(search.properties):
        v = Verdict(
            prop.id, prop.kind.value, Status.HOLDS, title=prop.title, citation=prop.citation,
            distinct_states=p.distinct, depth=depth, reason=stop,
        )
        bounded = Status.HOLDS if complete else Status.HOLDS_UP_TO_BOUND
        if prop.kind is Kind.CONFIG:
            v.status = Status.NOT_CHECKED
            v.note = "config properties are proved with Z3 (mqcheck prove)"
        elif prop.kind is Kind.EVENTUALLY:
            if lasso is not None:
                v.status, v.trace = Status.VIOLATED, lasso
            elif p.back_edges == 0 or graph_checked:
                # no edge into an explored level: no cycle; or the driver's second pass
                # (the local engine's) found none
                v.status = bounded
            else:
                v.status = Status.NOT_CHECKED
                v.note = (
                    f"{p.back_edges} internal action(s) lead back into explored levels and "
                    "levels ran on Spark: deciding whether they close a cycle needs the "
                    "whole graph (the local engine's second pass), which the Spark backend "
                    "only runs when every level stayed on the driver: use --backend local "
                    "or a larger --driver-threshold"
                )
        elif prop.kind is Kind.SOMETIMES:
            if i in p.witnessed:
                v.status, v.trace = Status.WITNESSED, search.trace(*p.witnessed[i])
            else:
                v.status = Status.NEVER_REACHED if complete else Status.NOT_REACHED_UP_TO_BOUND
        elif i in p.falsified:
            v.status, v.trace = Status.VIOLATED, search.trace(*p.falsified[i])
        else:
            v.status = bounded
        if v.status not in (Status.HOLDS_UP_TO_BOUND, Status.NOT_REACHED_UP_TO_BOUND):
            v.reason = ""
        verdicts[prop.id] = v
    for prop in search.properties:
        v = verdicts[prop.id]
        if prop.witness and v.status is not Status.VIOLATED:
            v.witness = prop.witness
            v.vacuous = verdicts[prop.witness].status is not Status.WITNESSED
    return Result(model_name(search.model), "spark", stats, verdicts)
