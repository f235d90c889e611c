"""Shared pytest configuration.

Hypothesis runs real examples everywhere; under CI (CI=true) it is derandomized so a CI
run is reproducible, and there is no per-example deadline (the machine has 2 cores shared
with Spark tests, and tests never assert wall-clock times — STYLE.md habit 10).
"""

import os
import signal
import warnings

import pytest
from hypothesis import HealthCheck, settings

# A suite started as a background job of a non-interactive shell (`bash .ci/run &`) inherits
# SIGINT ignored, and mqcheck keeps an ignored SIGINT ignored (as a user's background job
# wants): the tests that send Ctrl-C, in-process or to the subprocesses they start, would
# then test nothing. They are about a terminal's Ctrl-C, so the suite starts from the
# default handler; tests of the ignored case set it themselves (session 29).
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

# Every Spark JVM the suite starts lives for seconds: C1 alone and the serial collector
# halve its CPU time on the 2-core machine (test_spark_resume_bounds.py: 235 CPU s to 121;
# benchmarks/RESULTS.md, "Session 37"), which the other pytest worker gets back. mqcheck
# gives the JVM it launches these options itself (checker.spark_session.JVM_OPTIONS); the
# JVMs it does not launch take them here: spark-submit's (SPARK_SUBMIT_OPTS, read by
# spark-class), the standalone cluster's master and workers (SPARK_DAEMON_JAVA_OPTS) and
# its executors (spark.executor.extraJavaOptions, test_spark_standalone.py). A value
# already in the environment wins.
SHORT_LIVED_JVM = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"
os.environ.setdefault("SPARK_SUBMIT_OPTS", SHORT_LIVED_JVM)
os.environ.setdefault("SPARK_DAEMON_JAVA_OPTS", SHORT_LIVED_JVM)

settings.register_profile(
    "ci", derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile("dev", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "dev"))


# The slowest test files first (seconds in one process, session 34's suite under load;
# benchmarks/RESULTS.md, "Session 28"). pyproject's addopts run the suite on two xdist workers, a file per worker
# at a time (--dist loadfile), in collection order (--no-loadscope-reorder): a worker that
# finishes a file takes the next one, so the long files start first and the many short
# ones fill the gaps, instead of a long file starting last while the other worker idles.
SLOWEST_FIRST = (
    "test_spark.py",                 # 643 s
    "test_fuzz_mutants.py",          # 291 s
    "test_spark_resume_bounds.py",   # 234 s
    "test_property_views.py",        # 159 s
    "test_spark_interrupt.py",       # 123 s
    "test_delivery_memo.py",         # 123 s
    "test_spark_standalone.py",      # 113 s
    "test_prove_hierarchy.py",       # 80 s
    "test_uniform_network.py",       # 73 s
    "test_workload_network.py",      # 59 s
)


def pytest_collection_modifyitems(session, config, items):
    rank = {name: i for i, name in enumerate(SLOWEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(SLOWEST_FIRST)))  # stable: files keep their order


@pytest.fixture(autouse=True)
def _signals_as_found():
    """Each test leaves the worker's SIGINT, SIGTERM and SIGALRM handlers and its real-time
    timer as it found them. A test that does not (a shield against a repeated Ctrl-C left
    up, a stop timer left running) is named in a warning and the handlers are given back:
    a later test in the same worker would otherwise see SIGINT ignored (and so would the
    subprocesses it starts, which inherit it) or SIGALRM taken. Session 29's CI run failed
    three signal tests on one worker that way."""
    signums = (signal.SIGINT, signal.SIGTERM, signal.SIGALRM)
    before = {n: signal.getsignal(n) for n in signums}
    timer = signal.getitimer(signal.ITIMER_REAL)
    yield
    left = {n: signal.getsignal(n) for n in signums}
    changed = [signal.Signals(n).name for n in signums if left[n] is not before[n]]
    running = signal.getitimer(signal.ITIMER_REAL) != (0.0, 0.0) and timer == (0.0, 0.0)
    if running:
        signal.setitimer(signal.ITIMER_REAL, 0)
        changed.append("ITIMER_REAL")
    for n in signums:
        if left[n] is not before[n] and before[n] is not None:
            signal.signal(n, before[n])
    if changed:
        warnings.warn(f"the test left {', '.join(changed)} changed; given back", RuntimeWarning, stacklevel=1)
