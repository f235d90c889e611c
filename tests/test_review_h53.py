"""Review of the engine's caches (helper-53): an MQSC step replayed from the delivery memo
must be the step the specification takes, also where the step lets another queue manager
send a JOIN it could not send before (``retry_joins``), which the memo's key cannot see."""

from __future__ import annotations

from checker.explore import explore
from spec.network import MQNetwork
from spec.scenario import parse_scenario

# B's manual CLUSSDR names 'x(1414)'. C's CLUSRCVR listens there for steps 0-1 only; A's from
# step 2. Where B ran through steps 0-1, B has joined over 'x(1414)' (to C), and A's step
# makes no JOIN; where a fault stopped B meanwhile, B restarts not joined, and A's step lets
# B send its JOIN to A (``retry_joins``). The step's key (A whole; of B its name,
# definitions, incarnation, running flag and handles) is the same in both, with the fault
# budget spent either way.
REJOIN = """
name = "a manual CLUSSDR that finds its listener again"
[qmgrs.A]
[qmgrs.B]
mqsc = '''
DEFINE CHANNEL(TO.B) CHLTYPE(CLUSRCVR) CONNAME('b(1414)') CLUSTER(CL)
DEFINE CHANNEL(TO.X) CHLTYPE(CLUSSDR) CONNAME('x(1414)') CLUSTER(CL)
'''
[qmgrs.C]

[[steps]]
mqsc = { qmgr = "C", commands = "DEFINE CHANNEL(TO.C) CHLTYPE(CLUSRCVR) CONNAME('x(1414)') CLUSTER(CL)" }
[[steps]]
mqsc = { qmgr = "C", commands = "DELETE CHANNEL(TO.C)" }
[[steps]]
mqsc = { qmgr = "A", commands = "DEFINE CHANNEL(TO.A) CHLTYPE(CLUSRCVR) CONNAME('x(1414)') CLUSTER(CL)" }

[check]
faults = true
"""


def _counts(memo: str):
    model = MQNetwork(parse_scenario(REJOIN, "rejoin.toml"), [], memo=memo)
    st = explore(model, workers=1).statistics
    return st.distinct_states, st.generated_states, st.max_depth, st.levels


def test_a_step_that_lets_another_queue_manager_join_is_replayed_exactly():
    """``--memo verify`` raised MemoMismatch here, and ``--memo on`` explored 93 states
    against the specification's 92 (a replay without B's JOIN)."""
    off = _counts("off")
    assert _counts("verify") == off
    assert _counts("on") == off
