"""Starting and stopping the Spark backend's session (``checker.spark``): the default
configuration, the checks of ``--master`` and ``--conf``, a JVM started in its own process
group and stopped by PID so that no process of a run outlives it, and the first useful line
of a JVM's error, worded for the user."""

from __future__ import annotations

import contextlib
import logging
import os
import re
import signal
import sys
import threading
import time
import warnings
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any


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
# process starts the JVM (with JVM_OPTIONS, below), unless the user sets
# spark.driver.extraJavaOptions; under spark-submit, pass --driver-java-options the same way.
LOG4J2_CONFIG = Path(__file__).with_name("log4j2.properties")


# The JVM's compiler and collector, for the JVM mqcheck starts (as LOG4J2_CONFIG): C1 alone
# (no C2 compiler threads) and the serial collector (no parallel or concurrent GC threads).
# The JVM's own work here is moving Arrow batches and shuffling bytes for Python workers that
# do the exploring; on two cores C2's and G1's threads took CPU from those workers for little
# return. A short run's JVM uses half the CPU; fr-join k=4's 284,694 states on local[2] took
# the same time (326 s against 328 s) with a quarter less CPU and a peak resident size of
# 3.1 GiB against 5.2 GiB (benchmarks/RESULTS.md, "Session 37: the JVM's compiler and collector").
JVM_OPTIONS = ("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC")


def _java_options() -> str:
    return " ".join((f"-Dlog4j2.configurationFile={LOG4J2_CONFIG.as_uri()}", *JVM_OPTIONS))


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


def _start_session(master, conf, app_name, interrupts: Any = None):
    """(SparkSession, the :class:`_Jvm` this call started or None). ``interrupts``: the run's
    signal handling (``checker.spark._Interrupts``), which ends a JVM still starting when
    Ctrl-C or SIGTERM comes."""
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


def _launch_gateway_in_own_session(options: dict[str, str], interrupts: Any = None,
                                   cancel: threading.Event | None = None):
    """Start the JVM as pyspark would, but in a session of its own, so a Ctrl-C at the
    terminal reaches only this process (``checker.spark._Interrupts``), not the JVM's Python workers
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
