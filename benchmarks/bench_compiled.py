"""What compiling the executable specification unchanged would buy (issue #17, round 7).

The 10x target of issue #17 needs the transition functions themselves several times faster
(benchmarks/RESULTS.md, "#17 (round 6)"). The cheapest way to get faster code from the same
source is an ahead-of-time compiler for Python: mypyc (from the ``mypy`` package, the
compiler mypy itself ships compiled with). This script measures it two ways. Nothing it
builds is used by mqcheck; it needs ``pip install mypy`` and a C compiler.

Reproduce:

    python benchmarks/bench_compiled.py --out /tmp/compiled [--module spec/encoding.py]...
    BENCH_SCALE_AS_MB=8192 python benchmarks/bench_scale.py --root /tmp/compiled --cap 600 \\
        --example examples/fr-mesh-broken.toml:initial &     # the compiled copy, one core
    BENCH_SCALE_AS_MB=8192 python benchmarks/bench_scale.py --cap 600 \\
        --example examples/fr-mesh-broken.toml:initial       # this checkout, the other core
    python benchmarks/bench_compiled.py --micro

``--out DIR`` copies this checkout's tracked files to DIR and compiles the ``--module``
files there (default: :data:`HOT`, the modules where the profile of fr-mesh-broken spends
most of its time: the canonical encoding, the cluster cache, the object definitions, the
network's state, channels and repository protocol). The compiled copy must encode the
initial state of every bundled example to the same bytes as this checkout does
(fingerprints stay the same on any build); the script checks that and stops otherwise.

mypyc compiles only what mypy accepts, and ``spec/`` is not written for mypy: the copy gets
a ``mypy.ini`` that turns the reported error codes off (most come from ``Optional`` values
the code has already tested, and from ``@value`` classes, which mypy reads as plain
classes). mypyc still checks every annotated argument and return value at run time: that is
how round 7 found a wrong return annotation in ``spec/network/repositories.py``. The value
classes stay ordinary Python classes (mypyc compiles only plain ``@dataclass`` classes as
native ones), which ``--micro`` measures separately.

``--micro`` times the pattern a transition repeats: build a queue manager with two fields
changed (14 fields, frozen), put it back into the state's tuple, count the running ones.
It runs as interpreted Python and compiled by mypyc into a native class, which is what a
compiled ``spec/`` could get at best without changing its data representation.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

HOT = ["spec/encoding.py", "spec/repository.py", "spec/objects.py", "spec/network/state.py",
       "spec/network/channels.py", "spec/network/repositories.py"]

# mypy's static findings on spec/ that are not errors at run time (see the docstring)
MYPY_INI = """[mypy]
ignore_missing_imports = True
disable_error_code = union-attr, arg-type, no-redef, attr-defined, misc, assignment, return-value, call-arg,
    index, operator, var-annotated, has-type, list-item, dict-item, call-overload, valid-type, name-defined,
    override, type-var, func-returns-value, str-bytes-safe, comparison-overlap, str-unpack
"""

MICRO = '''
from __future__ import annotations
from dataclasses import dataclass


@dataclass(frozen=True)
class Qmgr:
    name: str
    defs: tuple
    pubsub: tuple
    published: int = 0
    incarnation: int = 1
    running: bool = True
    seq: int = 0
    caches: tuple = ()
    handles: tuple = ()
    history: tuple = ()
    arrivals: tuple = ()
    decisions: tuple = ()
    explained: tuple = ()
    asked: tuple = ()


def bump(q: Qmgr) -> Qmgr:
    return Qmgr(q.name, q.defs, q.pubsub, q.published + 1, q.incarnation, q.running, q.seq + 1,
                q.caches, q.handles, q.history, q.arrivals, q.decisions, q.explained, q.asked)


def put(qmgrs: tuple, q: Qmgr) -> tuple:
    return tuple(q if old.name == q.name else old for old in qmgrs)


def work(n: int) -> int:
    qmgrs = tuple(Qmgr("QM%d" % i, (), ()) for i in range(5))
    total = 0
    for k in range(n):
        qmgrs = put(qmgrs, bump(qmgrs[k % 5]))
        total += sum(1 for q in qmgrs if q.running and q.seq > 0)
    return total
'''

CHECK = '''
import importlib, sys
from pathlib import Path
from spec.network import MQNetwork
from spec.scenario import load_scenario
for path in sorted(Path("examples").glob("*.toml")):
    model = MQNetwork(load_scenario(path), explore_initial=True)
    for state in model.init_states():
        sys.stdout.write(path.name + " " + model.encode(state).hex() + "\\n")
for name in sys.argv[1:]:
    sys.stdout.write("module " + importlib.import_module(name).__file__ + "\\n")
'''


def _mypyc(work: Path, modules: list[str]) -> None:
    """Compile ``modules`` (paths relative to ``work``) in place with mypyc."""
    if shutil.which("mypyc") is None and not _has_mypyc():
        sys.exit("bench_compiled: mypyc not found: pip install mypy (it ships mypyc), and a C compiler")
    proc = subprocess.run([sys.executable, "-m", "mypyc", *modules], cwd=work, capture_output=True, text=True)
    if proc.returncode != 0:
        tail = "\n".join((proc.stdout + proc.stderr).strip().splitlines()[-20:])
        sys.exit(f"bench_compiled: mypyc failed on {' '.join(modules)}:\n{tail}")


def _has_mypyc() -> bool:
    return subprocess.run([sys.executable, "-c", "import mypyc"], capture_output=True).returncode == 0


def _encodings(root: Path, modules: list[str]) -> list[str]:
    """The initial state of every bundled example, encoded; then where each of
    ``modules`` was imported from."""
    names = [m.removesuffix(".py").replace("/", ".") for m in modules]
    proc = subprocess.run([sys.executable, "-c", CHECK, *names], cwd=root, capture_output=True, text=True, check=True,
                          env={"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin"})
    return proc.stdout.splitlines()


def build(out: Path, modules: list[str]) -> None:
    files = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    if out.exists():
        shutil.rmtree(out)
    for name in filter(None, files.decode().split("\0")):
        target = out / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if (ROOT / name).is_file():
            shutil.copy2(ROOT / name, target)
    (out / "mypy.ini").write_text(MYPY_INI)
    _mypyc(out, modules)
    compiled, pure = _encodings(out, modules), _encodings(ROOT, modules)
    loaded = compiled[-len(modules):]
    del compiled[-len(modules):], pure[-len(modules):]
    interpreted = [m for m in loaded if not m.endswith(".so")]
    if interpreted:
        sys.exit(f"bench_compiled: the copy imported {', '.join(interpreted)} rather than its compiled module")
    if compiled != pure:
        sys.exit("bench_compiled: the compiled copy encodes some initial state differently")
    print(f"compiled {', '.join(modules)} in {out}; {len(pure)} initial states encode the same")


def micro(n: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        (work / "native.py").write_text(MICRO)
        (work / "interpreted.py").write_text(MICRO)
        _mypyc(work, ["native.py"])
        code = ("import sys, time, importlib\n"
                "m = importlib.import_module(sys.argv[1])\n"
                "t = time.process_time(); m.work(int(sys.argv[2])); print(time.process_time() - t)\n")
        cpu = {}
        for name in ("interpreted", "native"):
            runs = [float(subprocess.run([sys.executable, "-c", code, name, str(n)], cwd=work, capture_output=True,
                                         text=True, check=True).stdout) for _ in range(3)]
            cpu[name] = min(runs)
        print(f"{n:,} queue manager updates: interpreted {cpu['interpreted']:.3f} CPU s, "
              f"compiled (native class) {cpu['native']:.3f} CPU s: {cpu['interpreted'] / cpu['native']:.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, help="build a compiled copy of this checkout here")
    parser.add_argument("--module", action="append", help="a module to compile (repeatable; default: the HOT modules)")
    parser.add_argument("--micro", action="store_true", help="time the queue-manager update pattern, both ways")
    parser.add_argument("-n", type=int, default=300_000, help="updates in --micro")
    args = parser.parse_args()
    if not args.out and not args.micro:
        parser.error("give --out DIR, --micro, or both")
    if args.out:
        start = time.perf_counter()
        build(args.out.resolve(), args.module or HOT)
        print(f"built in {time.perf_counter() - start:.1f} s")
    if args.micro:
        micro(args.n)


if __name__ == "__main__":
    main()
