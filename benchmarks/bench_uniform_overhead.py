"""Issue #19: does the uniform-cluster hook and the encoding's omit_if_none field cost
scenarios that have no uniform cluster anything? Explores one example with the current
spec/encoding.py ("new") or with the encoding of commit 7b581b2 ("old", before issue #19)
and prints the CPU seconds. Run each variant in its own process, alternating:

    git show 7b581b2:spec/encoding.py > /tmp/encoding_old.py
    for i in 1 2; do for v in old new; do
      python benchmarks/bench_uniform_overhead.py $v examples/ps-hierarchy-loop.toml /tmp/encoding_old.py
    done; done
"""
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
variant = sys.argv[1]
if variant == "old":
    import importlib.util

    spec = importlib.util.spec_from_file_location("spec.encoding", sys.argv[3])
    mod = importlib.util.module_from_spec(spec)
    sys.modules["spec.encoding"] = mod
    spec.loader.exec_module(mod)
from checker.cli import _check_properties  # noqa: E402
from checker.explore import explore  # noqa: E402
from spec.network import MQNetwork  # noqa: E402
from spec.scenario import load_scenario  # noqa: E402

s = load_scenario(sys.argv[2])
t = time.process_time()
r = explore(MQNetwork(s, _check_properties(s)), workers=1, max_states=s.check.max_states)
print(variant, sys.argv[2].split("/")[-1], r.statistics.distinct_states, f"{time.process_time() - t:.2f} CPU s")
