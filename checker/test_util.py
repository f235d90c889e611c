"""Small models with known answers, for testing checkers (after Stateright's ``test_util``).

Every backend's tests pin their state counts and counterexamples (tests/test_explore.py
for the local explorer). Each model is tiny and documented with the answer it must give.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from checker.model import Property


class DirectedGraph:
    """States are graph nodes; an action is the target node (explicit edges).

    ``DirectedGraph({0: [1, 2], 1: [3], 2: [3]})`` has 4 states, 4 generated successors
    plus 1 initial state, depth 2. ``external`` lists edges (u, v) that are external
    actions; all others are internal. ``properties`` is passed through.
    """

    def __init__(self, edges: Mapping[int, Sequence[int]], init: Sequence[int] = (0,),
                 properties: Sequence[Property] = (), external: Sequence[tuple[int, int]] = ()) -> None:
        self.edges = {u: tuple(vs) for u, vs in edges.items()}
        self.init = tuple(init)
        self._props = list(properties)
        self.external = frozenset(external)
        self.name = "DirectedGraph"

    def init_states(self) -> list[int]:
        return list(self.init)

    def actions(self, state: int) -> list[tuple[int, int]]:
        return [(state, v) for v in self.edges.get(state, ())]

    def next_state(self, state: int, action: tuple[int, int]) -> int:
        return action[1]

    def properties(self) -> list[Property]:
        return self._props

    def encode(self, state: int) -> bytes:
        return state.to_bytes(8, "little", signed=True)

    def is_internal(self, action: tuple[int, int]) -> bool:
        return action not in self.external

    def describe_action(self, action: tuple[int, int]) -> str:
        return f"{action[0]}->{action[1]}"

    def describe_state(self, state: int) -> dict:
        return {"node": state}


class BoundedCounters:
    """Two counters ``(x, y)``, each incremented up to ``limit``: (limit+1)**2 states,
    depth 2*limit, 2*limit*(limit+1) + 1 generated. ``x + y <= 2*limit`` always holds
    (witness: both at the limit); ``x + y < limit + 1`` is violated by a trace of
    ``limit+1`` increments (x first: BFS takes actions in order)."""

    def __init__(self, limit: int = 3) -> None:
        self.limit = limit
        self.name = f"BoundedCounters({limit})"

    def init_states(self) -> list[tuple[int, int]]:
        return [(0, 0)]

    def actions(self, state: tuple[int, int]) -> list[str]:
        return ["IncX", "IncY"]

    def next_state(self, state: tuple[int, int], action: str) -> tuple[int, int] | None:
        x, y = state
        if action == "IncX":
            return (x + 1, y) if x < self.limit else None
        return (x, y + 1) if y < self.limit else None

    def properties(self) -> list[Property]:
        lim = self.limit
        return [
            Property.always("SUM-BOUNDED", "x + y never exceeds 2*limit",
                            lambda m, s: s[0] + s[1] <= 2 * lim, witness="BOTH-FULL"),
            Property.sometimes("BOTH-FULL", "both counters reach the limit",
                               lambda m, s: s == (lim, lim)),
            Property.always("SUM-SMALL", "x + y stays below limit+1 (false)",
                            lambda m, s: s[0] + s[1] < lim + 1),
            Property.at_quiescence("FULL-AT-REST", "at rest both counters are full",
                                   lambda m, s: s == (lim, lim), witness="BOTH-FULL"),
            Property.eventually("COUNTERS-STOP", "counting ends"),
            Property.config("SOME-CONFIG", "a configuration statement (Z3 only)", None),
        ]

    def encode(self, state: tuple[int, int]) -> bytes:
        return bytes(state)

    def describe_state(self, state: tuple[int, int]) -> dict:
        return {"x": state[0], "y": state[1]}


class DoubleOrIncrement:
    """From 1, ``Double`` (n*2) or ``Increment`` (n+1), values up to ``limit`` (default
    20). The invariant "never 10" is violated; the shortest trace has 4 actions:
    Double (1→2), Double (2→4), Increment (4→5), Double (5→10). (Increment 1→2 is a
    duplicate: BFS keeps the first action that reached a state.) 20 states, 30 generated
    (initial state included), depth 6."""

    def __init__(self, limit: int = 20, target: int = 10) -> None:
        self.limit, self.target = limit, target
        self.name = f"DoubleOrIncrement({limit})"

    def init_states(self) -> list[int]:
        return [1]

    def actions(self, state: int) -> list[str]:
        return ["Double", "Increment"]

    def next_state(self, state: int, action: str) -> int | None:
        t = state * 2 if action == "Double" else state + 1
        return t if t <= self.limit else None

    def properties(self) -> list[Property]:
        target = self.target
        return [Property.always("NEVER-TARGET", f"the value never reaches {target}",
                                lambda m, s: s != target)]

    def encode(self, state: int) -> bytes:
        return state.to_bytes(8, "little")

    def describe_state(self, state: int) -> dict:
        return {"value": state}


class PingPongLivelock:
    """An application ``Start``s a conversation (external); then two parties bounce a
    message forever (``Send`` 1→2, ``Bounce`` 2→1, both internal) unless it is
    ``Drop``ped (2→3). States 0..3, depth 3. Termination is violated by the lasso
    Start, then the cycle Send, Bounce (loop_start=1). The invariant "never 3" has a
    3-step trace."""

    name = "PingPongLivelock"

    def init_states(self) -> list[int]:
        return [0]

    def actions(self, state: int) -> list[str]:
        return {0: ["Start"], 1: ["Send"], 2: ["Bounce", "Drop"]}.get(state, [])

    def next_state(self, state: int, action: str) -> int:
        return {"Start": 1, "Send": 2, "Bounce": 1, "Drop": 3}[action]

    def is_internal(self, action: str) -> bool:
        return action != "Start"

    def properties(self) -> list[Property]:
        return [
            Property.eventually("CONVERSATION-ENDS", "the message does not bounce forever"),
            Property.at_quiescence("DROPPED-AT-REST", "at rest the message was dropped",
                                   lambda m, s: s in (0, 3)),
            Property.always("NEVER-DROPPED", "the message is never dropped",
                            lambda m, s: s != 3),
        ]

    def encode(self, state: int) -> bytes:
        return bytes([state])

    def describe_state(self, state: int) -> dict:
        return {"phase": ["idle", "at A", "at B", "dropped"][state]}


class VacuousInvariant:
    """A request that is never sent: ``ack`` can only be set after ``sent``, but the
    ``Send`` action is disabled (``can_send=False``). "an ack implies a send" holds
    because no ack ever happens; its witness "sometimes acked" is never reached, so the
    verdict is flagged vacuous. 2 states: (0, 0, 0) and, after ``Tick``, (0, 0, 1)."""

    name = "VacuousInvariant"

    def __init__(self, can_send: bool = False) -> None:
        self.can_send = can_send

    def init_states(self) -> list[tuple[int, int, int]]:
        return [(0, 0, 0)]   # (sent, acked, ticks)

    def actions(self, state: tuple[int, int, int]) -> list[str]:
        return ["Send", "Ack", "Tick"]

    def next_state(self, state: tuple[int, int, int], action: str) -> tuple[int, int, int] | None:
        sent, acked, ticks = state
        if action == "Send":
            return (1, acked, ticks) if self.can_send and not sent else None
        if action == "Ack":
            return (sent, 1, ticks) if sent and not acked else None
        return (sent, acked, 1) if not ticks else None

    def properties(self) -> list[Property]:
        return [
            Property.always("ACK-NEEDS-SEND", "an ack implies the request was sent",
                            lambda m, s: not s[1] or s[0], witness="ACKED"),
            Property.sometimes("ACKED", "some request is acknowledged", lambda m, s: s[1] == 1),
        ]

    def encode(self, state: tuple[int, int, int]) -> bytes:
        return bytes(state)


class InterruptAfter:
    """Wraps a model; the ``calls``-th call of ``next_state`` raises KeyboardInterrupt,
    once (simulates one Ctrl-C at a reproducible point; later calls, e.g. replaying a
    trace for the report, work normally)."""

    def __init__(self, model: Any, calls: int) -> None:
        self.model, self.calls, self.seen = model, calls, 0
        self.name = f"InterruptAfter({calls})"

    def __getattr__(self, item: str) -> Any:
        return getattr(self.model, item)

    def next_state(self, state: Any, action: Any) -> Any:
        self.seen += 1
        if self.seen == self.calls:
            raise KeyboardInterrupt
        return self.model.next_state(state, action)


class CounterRing:
    """A counter modulo ``n`` moved by +1, -1, +2 or -2 (all internal): a deep model with
    tiny levels (the explorer's per-level cost shows). ``n`` states, ``4n + 1`` generated
    (4 successors each, plus the initial state), depth ``ceil(floor(n/2) / 2)`` (the
    farthest value, n/2 away, takes that many ±2 steps). "below n" always holds.
    Termination is violated: 0 is on the 2-cycle +1, -1 — the shortest lasso has an
    empty prefix."""

    STEPS = (1, -1, 2, -2)

    def __init__(self, n: int) -> None:
        self.n = n
        self.name = f"CounterRing({n})"

    def init_states(self) -> list[int]:
        return [0]

    def actions(self, state: int) -> tuple[int, ...]:
        return self.STEPS

    def next_state(self, state: int, action: int) -> int:
        return (state + action) % self.n

    def properties(self) -> list[Property]:
        n = self.n
        return [Property.always("BELOW-N", "the counter stays below n", lambda m, s: 0 <= s < n),
                Property.eventually("RING-STOPS", "the counter stops (false)")]

    def encode(self, state: int) -> bytes:
        return state.to_bytes(8, "little")

    def describe_action(self, action: int) -> str:
        return f"{action:+d}"


class Grid:
    """``(x, y)`` in ``[0, L]²`` with ``IncX``, ``IncY``, ``DecX`` (all internal):
    ``(L+1)²`` states, depth ``2L``. Termination is violated; the initial state is on the
    2-cycle IncX, DecX, so the shortest lasso is the empty prefix and that cycle (states
    deeper in the grid lie on cycles too: a lasso through one of them is longer)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.name = f"Grid({limit})"

    def init_states(self) -> list[tuple[int, int]]:
        return [(0, 0)]

    def actions(self, state: tuple[int, int]) -> list[str]:
        return ["IncX", "IncY", "DecX"]

    def next_state(self, state: tuple[int, int], action: str) -> tuple[int, int] | None:
        x, y = state
        if action == "IncX":
            return (x + 1, y) if x < self.limit else None
        if action == "IncY":
            return (x, y + 1) if y < self.limit else None
        return (x - 1, y) if x > 0 else None

    def properties(self) -> list[Property]:
        return [Property.eventually("GRID-STOPS", "the walk stops (false)")]

    def encode(self, state: tuple[int, int]) -> bytes:
        return state[0].to_bytes(4, "little") + state[1].to_bytes(4, "little")

    def describe_state(self, state: tuple[int, int]) -> dict:
        return {"x": state[0], "y": state[1]}


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a running process (Linux /proc)."""
    from pathlib import Path
    import os

    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def signal_twice(proc: Any, signum: int, gap: float, *, after_cpu: float | None = None,
                 after_seconds: float | None = None, timeout: float = 120) -> tuple[str, str]:
    """Send ``signum`` to ``proc`` (a ``subprocess.Popen`` with text pipes) once it has used
    ``after_cpu`` CPU seconds (Linux) or after ``after_seconds`` of wall time, and again
    ``gap`` seconds later if it is still running; return its (stdout, stderr). The process
    is killed if it outlives ``timeout`` or the caller fails."""
    import time

    try:
        if after_cpu is not None:
            deadline = time.monotonic() + 300
            while proc.poll() is None and time.monotonic() < deadline and cpu_seconds(proc.pid) < after_cpu:
                time.sleep(0.1)
        else:
            time.sleep(after_seconds or 0.0)
        proc.send_signal(signum)
        time.sleep(gap)
        if proc.poll() is None:
            proc.send_signal(signum)
        return proc.communicate(timeout=timeout)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
