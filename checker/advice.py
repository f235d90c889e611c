"""What to change so that an incomplete `mqcheck check` finishes.

A user trial with realistically sized clusters (docs/decisions.md, "Session 32: a user trial
with a larger cluster") found the incomplete footer saying only that the exploration stopped
at a bound. What decides whether a run finishes is rarely the number of queue managers (a
30-queue-manager cluster whose idle members exchange nothing explores the same 11,465 states
as a 10-queue-manager one) but how many things are in flight at once: the joining of every
queue manager (``--explore-initial``), steps taken while earlier steps' messages are still
travelling, many messages, injected faults. ``incomplete_advice`` names the levers the
scenario actually has, in the order they usually matter, and how the BFS levels were growing.

Duck-typed on the model (``explore_initial``, ``faults``, ``scenario.steps``) and the
statistics (``stop_reason``, ``levels``, ``max_depth``), so that it needs nothing from spec/.
"""

from __future__ import annotations

from typing import Any

HEADING = 'To finish (README, "Stopping a run, memory and progress"):'
# stop reasons of a bound (checker.cli.BOUND_STOPS) and of a signal, which the same advice fits
_ADVISED = ("max_states", "max_depth", "timeout", "memory limit", "out of memory", "interrupted", "terminated")


def _growth(levels: list[int], last_partial: bool) -> tuple[float, int] | None:
    """The ratio of the last complete BFS level to the one before it, and that level's depth
    (None: too few levels).
    ``last_partial``: the last recorded level was cut short (``--max-states`` stops within a
    level; a timeout, the memory guard or a signal drop the level being built)."""
    complete = levels[:-1] if last_partial else levels
    if len([n for n in complete if n > 0]) < 3 or not complete[-2]:
        return None
    return complete[-1] / complete[-2], len(complete) - 1


def incomplete_advice(model: Any, statistics: Any, looping: bool = False) -> list[str]:
    """Lines telling the user what to change so that the exploration finishes; [] when the
    run was complete or stopped for another reason (a violation, a backend failure).
    ``looping``: the output shows evidence of a loop (``Property.evidence`` witnessed), so no
    bound finishes it."""
    tips = incomplete_tips(model, statistics, looping)
    return [HEADING, *(f"  - {t}" for t in tips)] if tips else []


def looping(model: Any, result: Any) -> bool:
    """Does the result show evidence of a loop: a termination verdict left undecided whose
    ``Property.evidence`` witness was reached (what `check` prints as an Evidence trace)?"""
    for prop in model.properties():
        verdict, ref = result.verdicts.get(prop.id), getattr(prop, "evidence", None)
        status = getattr(getattr(verdict, "status", None), "value", None)
        if ref is None or status not in ("holds up to bound", "not checked on this backend"):
            continue
        evidence = result.verdicts.get(ref)
        if evidence is not None and evidence.status.value == "witnessed" and evidence.trace is not None:
            return True
    return False


def incomplete_tips(model: Any, statistics: Any, looping: bool = False) -> list[str]:
    """The tips of :func:`incomplete_advice`, one string each without heading or bullet
    (``check --json``'s ``"advice"``, the pytest plugin's failure message)."""
    reason = getattr(statistics, "stop_reason", "") or ""
    if getattr(statistics, "complete", True) or not reason.startswith(_ADVISED):
        return []
    scenario = getattr(model, "scenario", None)
    steps = tuple(getattr(scenario, "steps", ()) or ())
    kinds = [type(s).__name__ for s in steps]
    tips: list[str] = []
    if looping:
        tips.append("the Evidence trace above shows messages going round again: if nothing ends that loop, no bound "
                    "finishes this exploration; break the loop where the trace shows it, or read the verdicts as "
                    "bounded")
        return tips
    if getattr(model, "explore_initial", False):
        qmgrs = len(getattr(scenario, "qmgrs", ()) or ())
        tips.append(f"drop --explore-initial (or [check] explore_initial): every order in which the {qmgrs} queue "
                    "managers join is explored; without it the check starts from the settled cluster, as "
                    "`mqcheck run` shows it")
    acting = [s for s, k in zip(steps, kinds) if k not in ("WaitStep", "AdvanceStep")]
    if len(acting) >= 2 and kinds.count("WaitStep") < len(acting) - 1:
        tips.append("between steps whose messages need not overlap, add `[[steps]] wait = { until = \"settled\" }`: "
                    "the next step is then taken only once nothing is in flight, instead of in every interleaving "
                    "with the messages still travelling (keep the steps unseparated where the overlap is what you "
                    "want checked)")
    messages = sum(getattr(s, "count", 1) for s, k in zip(steps, kinds) if k in ("PutStep", "PublishStep"))
    if messages > 3:
        tips.append(f"fewer messages: the steps put or publish {messages} messages, and every one in flight "
                    "multiplies the interleavings (2-3 puts show a round-robin; a full CLWLWGHT cycle needs "
                    "sum(w)/gcd(w) puts)")
    faults = getattr(model, "faults", 0) or 0
    if faults:
        tips.append(f"fewer faults: --faults {faults} places each failure at every point of every interleaving")
    levels = list(getattr(statistics, "levels", None) or [])
    growth, depth = _growth(levels, reason.startswith("max_states")) or (None, 0)
    bound = ("a larger --timeout, --max-states, --max-depth or --memory-limit-mb (the [check] table's max_states "
             "and max_depth are defaults too)")
    if growth is not None and growth >= 2:
        tips.append(f"{bound}; but the last complete level was {growth:.1f} times the one before it (depth "
                    f"{depth}), and while the levels grow like that each further level costs more than all the "
                    "levels before it")
    elif growth is not None and growth < 1:
        tips.append(f"{bound}: the BFS levels were already shrinking (the last complete one was {growth:.2f} times "
                    "the one before), so a larger bound may finish it")
    else:
        tips.append(bound)
    return tips
