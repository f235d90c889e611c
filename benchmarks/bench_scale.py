"""A scale curve on the MQ network model (issue #17): scenario families that grow with k,
explored by `mqcheck check`'s engine with its whole property catalogue, until one run
passes a time cap.

Reproduce:  python benchmarks/bench_scale.py [--cap SECONDS] [--family NAME]... [--root DIR]

Families (each point is a generated scenario file, written to a temporary directory):

- ``fr-join``: two full repositories (manual CLUSSDRs both ways) and k partial
  repositories, each with a CLUSSDR to one of them (alternately), joining the cluster:
  the initial configuration's joining is explored (``explore_initial``).
- ``ps-cluster``: a publish/subscribe cluster: a full repository hosting the cluster
  topic SPORT and k members; every member subscribes to Sport/#, then the last member
  publishes on Sport/Football.
- ``hierarchy``: a publish/subscribe hierarchy of depth d (QM0 the root, QMi's PARENT
  QMi-1); every queue manager subscribes to Sport/#, then the leaf publishes.
- ``cluster-queue``: a cluster queue DEMOQ on k hosts (one of them a full repository with
  the application's queue manager); the application opens it BIND_NOT_FIXED and puts k
  messages.
- ``cluster-app`` (session 32; k doubles from 8): a cluster as an administrator has it
  running — two full repositories and k partial repositories, PR1 hosting a cluster topic
  and PR1-PR3 the cluster queue DEMOQ — joined by the deterministic scheduler, not explored
  (``mqcheck check``'s default); then PRk opens DEMOQ BIND_NOT_FIXED and puts three
  messages, which are explored. This is how far `check` goes in the number of queue
  managers, where the other families measure how far an explored joining or pattern goes.

Each point runs in a fresh subprocess (so its peak resident memory is its own), in one
process (``workers=1``: CPU seconds are the whole cost), capped at ``--cap`` CPU seconds
(not wall-clock: the machine is shared; the cap sends the run SIGTERM, which ends it with
an honest incomplete result). Reported per k: distinct states, CPU seconds to a complete verdict
(the subprocess's user+system time), states per CPU second, peak resident memory (MB),
and whether the run was complete. A family stops after its first incomplete point.
``BENCH_SCALE_AS_MB=N`` in the environment limits each point's address space to N MB
(an engine from before issue #17 has no memory guard: it then stops with MemoryError,
reported as such). ``--root DIR`` runs another checkout's engine (e.g. a ``git worktree`` of the commit
before a change) on the same generated scenarios, so before/after can be measured side
by side in one session.

Partial-order reduction (issue #17, docs/por.md): the engine runs as ``mqcheck check`` does,
reduction on (an engine from before it has none). ``--compare-por`` puts the same engine
without reduction in the "base" column instead. ``--property ID`` checks only these
properties (reduction applies only when no checked invariant reads everything: e.g.
``--property EXPECT``); ``--expect`` adds an ``[[expect]] no_errors = true`` block to every
family's scenario, so that EXPECT exists there.

The delivery memo (issue #17 round 8, spec/network/memo.py) is on as in ``mqcheck check``;
``--compare-memo`` puts the same engine without it in the "base" column.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


# --------------------------------------------------------------------------- scenario families
def _qmgr(name: str, mqsc: str) -> str:
    return f'[qmgrs.{name}]\nmqsc = """\n{mqsc.strip()}\n"""\n'


def _rcvr(name: str, cluster: str = "DEMO", extra: str = "") -> str:
    return (f"DEFINE CHANNEL(TO.{name}) CHLTYPE(CLUSRCVR) TRPTYPE(TCP) "
            f"CONNAME('{name.lower()}.example.com(1414)') CLUSTER({cluster}){extra}")


def _sdr(name: str, cluster: str = "DEMO") -> str:
    return (f"DEFINE CHANNEL(TO.{name}) CHLTYPE(CLUSSDR) TRPTYPE(TCP) "
            f"CONNAME('{name.lower()}.example.com(1414)') CLUSTER({cluster})")


def fr_join(k: int) -> str:
    parts = [f'name = "2 FRs + {k} partial repositories joining"\n']
    parts.append(_qmgr("FR1", f"ALTER QMGR REPOS(DEMO)\n{_rcvr('FR1')}\n{_sdr('FR2')}"))
    parts.append(_qmgr("FR2", f"ALTER QMGR REPOS(DEMO)\n{_rcvr('FR2')}\n{_sdr('FR1')}"))
    for i in range(1, k + 1):
        parts.append(_qmgr(f"PR{i}", f"{_rcvr(f'PR{i}')}\n{_sdr('FR1' if i % 2 else 'FR2')}"))
    parts.append("[check]\nexplore_initial = true\n")
    return "\n".join(parts)


def ps_cluster(k: int) -> str:
    parts = [f'name = "publish/subscribe cluster of {k} members"\n']
    parts.append(_qmgr("FR", f"ALTER QMGR REPOS(DEMO)\n{_rcvr('FR')}\n"
                             "DEFINE TOPIC(SPORT) TOPICSTR('Sport') CLUSTER(DEMO)"))
    for i in range(1, k + 1):
        parts.append(_qmgr(f"M{i}", f"{_rcvr(f'M{i}')}\n{_sdr('FR')}"))
    for i in range(1, k + 1):
        parts.append(f'[[steps]]\nsubscribe = {{ qmgr = "M{i}", name = "S{i}", topic = "Sport/#" }}\n')
    parts.append(f'[[steps]]\npublish = {{ qmgr = "M{k}", topic = "Sport/Football" }}\n')
    return "\n".join(parts)


def hierarchy(d: int) -> str:
    parts = [f'name = "publish/subscribe hierarchy of depth {d}"\n']
    parts.append(_qmgr("QM0", "ALTER QMGR PSMODE(ENABLED)"))
    for i in range(1, d + 1):
        parts.append(_qmgr(f"QM{i}", f"ALTER QMGR PSMODE(ENABLED)\nALTER QMGR PARENT(QM{i - 1})"))
    for i in range(d + 1):
        parts.append(f'[[steps]]\nsubscribe = {{ qmgr = "QM{i}", name = "S{i}", topic = "Sport/#" }}\n')
    parts.append(f'[[steps]]\npublish = {{ qmgr = "QM{d}", topic = "Sport/Soccer" }}\n')
    return "\n".join(parts)


def cluster_queue(k: int) -> str:
    parts = [f'name = "cluster queue on {k} hosts, {k} puts"\n']
    parts.append(_qmgr("QMAPP", f"ALTER QMGR REPOS(DEMO)\n{_rcvr('QMAPP')}\n{_sdr('HOST1')}"))
    for i in range(1, k + 1):
        repos = "ALTER QMGR REPOS(DEMO)\n" if i == 1 else ""
        parts.append(_qmgr(f"HOST{i}", f"{repos}{_rcvr(f'HOST{i}')}\n{_sdr('QMAPP')}\n"
                                       "DEFINE QLOCAL(DEMOQ) CLUSTER(DEMO)"))
    parts.append('[[steps]]\nopen = { qmgr = "QMAPP", handle = "app", queue = "DEMOQ", bind = "NOT_FIXED" }\n')
    parts.append(f'[[steps]]\nput = {{ handle = "app", count = {k} }}\n')
    return "\n".join(parts)


def cluster_app(k: int) -> str:
    parts = [f'name = "2 FRs + {k} partial repositories, joined; an application puts to a cluster queue"\n']
    parts.append(_qmgr("FR1", f"ALTER QMGR REPOS(DEMO)\n{_rcvr('FR1')}\n{_sdr('FR2')}"))
    parts.append(_qmgr("FR2", f"ALTER QMGR REPOS(DEMO)\n{_rcvr('FR2')}\n{_sdr('FR1')}"))
    for i in range(1, k + 1):
        extra = "\nDEFINE QLOCAL(DEMOQ) CLUSTER(DEMO)" if i <= 3 else ""
        extra += "\nDEFINE TOPIC(SPORT) TOPICSTR('Sport') CLUSTER(DEMO)" if i == 1 else ""
        parts.append(_qmgr(f"PR{i}", f"{_rcvr(f'PR{i}')}\n{_sdr('FR1' if i % 2 else 'FR2')}{extra}"))
    parts.append(f'[[steps]]\nopen = {{ qmgr = "PR{k}", handle = "app", queue = "DEMOQ", bind = "NOT_FIXED" }}\n')
    parts.append('[[steps]]\nput = { handle = "app", count = 3 }\n')
    return "\n".join(parts)


FAMILIES = {"fr-join": fr_join, "ps-cluster": ps_cluster, "hierarchy": hierarchy, "cluster-queue": cluster_queue,
            "cluster-app": cluster_app}
START = {"fr-join": 0, "ps-cluster": 1, "hierarchy": 1, "cluster-queue": 1, "cluster-app": 8}
DOUBLING = {"cluster-app"}   # k doubles from START instead of growing by one


def _ks(family: str, max_k: int):
    k = START[family]
    while k <= max_k:
        yield k
        k = k * 2 if family in DOUBLING else k + 1


# --------------------------------------------------------------------------- one point
POINT = r"""
import inspect, json, os, resource, signal, sys, threading, time
sys.path.insert(0, sys.argv[1])
from checker.cli import _check_properties
from checker.explore import explore
from spec.scenario import load_scenario
try:
    from spec.network import MQNetwork
except ImportError:          # a checkout from before the network package
    from spec.system import MQNetwork
extra = json.loads(sys.argv[4])
scenario = load_scenario(sys.argv[2])
initial = extra.pop("explore_initial", None)
memo = extra.pop("memo", None)   # an engine from before the delivery memo has none
kw = {"memo": memo} if memo and "memo" in inspect.signature(MQNetwork).parameters else {}
model = MQNetwork(scenario, _check_properties(scenario), explore_initial=initial or scenario.check.explore_initial or None,
                  **kw)
if extra.get("property_ids") is None:
    extra.pop("property_ids", None)
import checker.explore as engine
if "por" not in inspect.signature(explore).parameters:   # an engine from before the reduction
    extra.pop("por", None)
# an engine from before issue #17 handles only Ctrl-C: the cap sends it SIGINT instead
STOP = signal.SIGTERM if "SIGTERM" in inspect.getsource(engine) else signal.SIGINT
if STOP == signal.SIGINT:   # a job started in the background (nohup, &) has SIGINT ignored: that engine
    signal.signal(signal.SIGINT, signal.default_int_handler)   # then keeps it ignored and the cap never fires
cap = float(sys.argv[3])
capped = []
def watch():   # the CPU cap: SIGTERM (SIGINT) ends the run with an honest incomplete result
    while not capped:
        if time.process_time() > cap:
            capped.append(True)
            os.kill(os.getpid(), STOP)
            return
        time.sleep(0.2)
threading.Thread(target=watch, daemon=True).start()
limit_mb = int(os.environ.get("BENCH_SCALE_AS_MB") or 0)
if limit_mb:   # an address-space limit: an engine without a memory guard ends in MemoryError
    resource.setrlimit(resource.RLIMIT_AS, (limit_mb << 20, limit_mb << 20))
cpu = time.process_time()
try:
    result = explore(model, workers=1, **extra)
except MemoryError:
    capped.append(False)
    print(json.dumps({"states": 0, "generated": 0, "depth": 0, "complete": False,
                      "stop_reason": f"MemoryError at the {limit_mb} MB address-space limit",
                      "cpu": time.process_time() - cpu, "wall": 0.0,
                      "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, "verdicts": {}}))
    sys.exit(0)
cpu = time.process_time() - cpu
capped.append(False)
st = result.statistics
print(json.dumps({"states": st.distinct_states, "generated": st.generated_states, "depth": st.max_depth,
                  "complete": st.complete, "stop_reason": "CPU cap" if capped[0] and not st.complete else st.stop_reason, "cpu": cpu, "wall": st.seconds,
                  "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "verdicts": {p: v.status.value for p, v in result.verdicts.items()}}))
"""


def run_point(root: Path, scenario: Path, cap: float, extra: dict | None = None) -> dict:
    return _run_point(root, scenario, cap, extra)


def _run_point(root: Path, scenario: Path, cap: float, extra: dict | None = None) -> dict:
    """Explore one generated scenario with the engine of checkout ``root`` in a subprocess."""
    env = dict(os.environ, PYTHONPATH=str(root))
    try:   # the cap is CPU time; on a loaded machine wall time can be many times more
        proc = subprocess.run([sys.executable, "-c", POINT, str(root), str(scenario), str(cap), json.dumps(extra or {})],
                              capture_output=True, text=True, env=env, cwd=root, timeout=cap * 20 + 300)
    except subprocess.TimeoutExpired:
        return {"error": f"no result after {cap * 20 + 300:g} s of wall-clock time"}
    if proc.returncode != 0:
        return {"error": proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else f"exit {proc.returncode}"}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _stop(signum: int, frame: object) -> None:
    """SIGTERM ends the benchmark as Ctrl-C does: with an exception, on which
    ``subprocess.run`` kills the point running (a point otherwise outlived its parent:
    session 30)."""
    raise SystemExit(128 + signum)


def main() -> None:
    signal.signal(signal.SIGTERM, _stop)
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cap", type=float, default=600.0, help="CPU seconds per point (default 600)")
    parser.add_argument("--family", action="append", choices=sorted(FAMILIES), help="only these (repeatable)")
    parser.add_argument("--root", type=Path, default=ROOT, help="the checkout whose engine runs (default: this one)")
    parser.add_argument("--max-k", type=int, default=40, help="largest k tried (default 40; cluster-app doubles "
                                                             "k from 8, so e.g. --max-k 256)")
    parser.add_argument("--json", action="store_true", help="one JSON object per point instead of a table")
    parser.add_argument("--show", metavar="FAMILY:K", help="print the scenario file of one point and exit")
    parser.add_argument("--base", type=Path, help="also run this checkout's engine on every point, alternating "
                                                   "with --root, and print both with the CPU ratio")
    parser.add_argument("--compare-por", action="store_true",
                        help="base column: this engine without partial-order reduction (instead of --base)")
    parser.add_argument("--compare-memo", action="store_true",
                        help="base column: this engine without the delivery memo (instead of --base)")
    parser.add_argument("--property", action="append", metavar="ID", help="check only these properties")
    parser.add_argument("--expect", action="store_true", help="families: add [[expect]] no_errors = true")
    parser.add_argument("--example", action="append", metavar="FILE[:initial]",
                        help="instead of the families: these scenario files (':initial' explores the joining; "
                             "'@N' caps at N states, e.g. examples/wl-channel-weight.toml@5000)")
    args = parser.parse_args()
    if args.show:
        family, _, k = args.show.partition(":")
        print(FAMILIES[family](int(k)))
        return
    root = args.root.resolve()
    base = args.base.resolve() if args.base else (root if args.compare_por or args.compare_memo else None)
    for r in ([root, base] if base else [root]):
        head = subprocess.run(["git", "-C", str(r), "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
        print(f"engine: {r} ({head.stdout.strip() or 'not a git checkout'}), cap {args.cap:g} CPU s per point")
    if base is not None:
        print("| case | states (base) | states | CPU s (base) | CPU s | CPU ratio | states/CPU s (base) | "
              "states/CPU s | peak MB (base) | peak MB | complete (base / new) |")
        print("|---|---|---|---|---|---|---|---|---|---|---|")
    elif not args.json:
        print("| case | states | depth | CPU s | states/CPU s | peak MB | complete |")
        print("|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory(prefix="mqcheck-scale-") as tmp:
        for case, row, before in _cases(args, root, base, Path(tmp)):
            if args.json:
                print(json.dumps({"case": case, **row, **({"base": before} if before else {})}), flush=True)
            elif "error" in row or (before and "error" in before):
                print(f"| {case} | error: {row.get('error') or before.get('error')} |", flush=True)
            elif before is not None:
                print(f"| {case} | {before['states']:,} | {row['states']:,} | {before['cpu']:.1f} | {row['cpu']:.1f} | "
                      f"{before['cpu'] / max(row['cpu'], 1e-9):.2f} | {_rate(before):,.0f} | {_rate(row):,.0f} | "
                      f"{before['peak_mb']:,.0f} | {row['peak_mb']:,.0f} | {_done(before)} / {_done(row)} |", flush=True)
            else:
                print(f"| {case} | {row['states']:,} | {row['depth']} | {row['cpu']:.1f} | {_rate(row):,.0f} | "
                      f"{row['peak_mb']:,.0f} | {_done(row)} |", flush=True)


def _rate(row: dict) -> float:
    return row["states"] / row["cpu"] if row["cpu"] > 0 else 0.0


def _done(row: dict) -> str:
    return "yes" if row["complete"] else f"no ({row['stop_reason']})"


def _cases(args, root: Path, base: Path | None, work: Path):
    """(case name, row, base row or None) for the examples or the families."""
    common = {"property_ids": args.property} if args.property else {}
    new = {**common, "por": True}
    old = {**common, "por": False} if args.compare_por else {**common, "memo": "off"} if args.compare_memo else common

    def run_base(scenario: Path, cap: float, extra: dict | None = None) -> dict:
        return _run_point(base, scenario, cap, {**(extra or {}), **old})

    def run_new(scenario: Path, cap: float, extra: dict | None = None) -> dict:
        return _run_point(root, scenario, cap, {**(extra or {}), **new})

    if args.example:
        for spec in args.example:
            name, _, cap_states = spec.partition("@")
            path, _, initial = name.partition(":")
            extra = {"explore_initial": True} if initial == "initial" else {}
            if cap_states:
                extra["max_states"] = int(cap_states)
            scenario = Path(path).resolve()
            before = run_base(scenario, args.cap, dict(extra)) if base else None
            yield spec, run_new(scenario, args.cap, dict(extra)), before
        return
    for family in args.family or sorted(FAMILIES):
        stopped = {"new": False, "base": False}
        for k in _ks(family, args.max_k):
            path = work / f"{family}-{k}.toml"
            path.write_text(FAMILIES[family](k) + ("\n[[expect]]\nno_errors = true\n" if args.expect else ""))
            before = None
            if base is not None and not stopped["base"]:
                before = run_base(path, args.cap)
                stopped["base"] = "error" in before or not before["complete"]
            row = run_new(path, args.cap) if not stopped["new"] else dict(before or {}, skipped=True)
            if not stopped["new"]:
                stopped["new"] = "error" in row or not row["complete"]
            if base is not None and before is None:
                before = {"states": 0, "cpu": 0.0, "peak_mb": 0.0, "complete": False, "stop_reason": "stopped earlier"}
            yield f"{family} k={k}", row, before
            if all(stopped.values()) or (base is None and stopped["new"]):
                break


if __name__ == "__main__":
    main()
