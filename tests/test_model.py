"""checker.model: properties as data, verdict formatting, JSON round-trip of results."""

from __future__ import annotations

import pytest

from checker.model import (
    Kind,
    Model,
    Property,
    Result,
    Statistics,
    Status,
    Trace,
    TraceStep,
    Verdict,
    collision_probability,
    describe_action,
    describe_state,
    format_verdict,
    is_internal,
    model_name,
)
from checker.test_util import BoundedCounters, PingPongLivelock


# ============================================================ the protocol and its defaults
def test_test_models_satisfy_the_protocol_structurally():
    assert isinstance(BoundedCounters(), Model)
    assert isinstance(PingPongLivelock(), Model)


def test_optional_methods_have_documented_defaults():
    m = BoundedCounters()
    assert is_internal(m, "IncX") is True            # no is_internal: every action internal
    assert describe_action(m, "IncX") == "IncX"      # no describe_action: str(action)
    assert describe_state(m, (1, 2)) == {"x": 1, "y": 2}
    p = PingPongLivelock()
    assert is_internal(p, "Start") is False and is_internal(p, "Send") is True
    assert describe_state(object(), 5) == {"state": "5"}
    assert model_name(m) == "BoundedCounters(3)"
    assert model_name(object()) == "object"


# ============================================================ properties
def test_property_constructors_set_kinds_and_kind_strings_are_coerced():
    a = Property.always("A", "t", lambda m, s: True, citation="002 §X", witness="W")
    assert (a.kind, a.citation, a.witness) == (Kind.ALWAYS, "002 §X", "W")
    assert Property.sometimes("W", "t", lambda m, s: True).kind is Kind.SOMETIMES
    assert Property.at_quiescence("Q", "t", lambda m, s: True).kind is Kind.AT_QUIESCENCE
    assert Property.eventually("E", "t").predicate is None
    assert Property.config("C", "t", "z3 thing").kind is Kind.CONFIG
    assert Property("X", "t", "always", None).kind is Kind.ALWAYS
    with pytest.raises(ValueError):
        Property("X", "t", "often", None)


# ============================================================ verdict lines
def _v(status, **kw):
    return Verdict("P", "always", status, **kw)


STEPS = [TraceStep(None, {})] + [TraceStep(f"a{i}", {}) for i in range(4)]


@pytest.mark.parametrize("verdict, line", [
    (_v(Status.HOLDS, distinct_states=1234), "holds (complete: 1,234 states)"),
    (_v(Status.HOLDS_UP_TO_BOUND, distinct_states=5000, depth=7, reason="max_states reached"),
     "holds up to bound (incomplete: 5,000 states, depth 7, max_states reached)"),
    (_v(Status.VIOLATED, trace=Trace(STEPS)), "violated (trace of 4 steps)"),
    (_v(Status.VIOLATED, trace=Trace(STEPS, loop_start=1)), "violated (lasso: 1-step prefix, 3-step cycle)"),
    (_v(Status.WITNESSED, trace=Trace(STEPS[:2])), "witnessed (trace of 1 step)"),
    (_v(Status.NEVER_REACHED, distinct_states=9), "never reached (complete: 9 states)"),
    (_v(Status.NOT_REACHED_UP_TO_BOUND, distinct_states=9, depth=2, reason="timeout (1 s)"),
     "not reached up to bound (incomplete: 9 states, depth 2, timeout (1 s))"),
    (_v(Status.NOT_CHECKED, note="config properties are proved with Z3"),
     "not checked on this backend (config properties are proved with Z3)"),
    (_v(Status.PROVED, note="bound 4"), "proved (bound 4)"),
    (_v(Status.UNKNOWN, note="timeout"), "unknown (timeout)"),
    (_v(Status.HOLDS, distinct_states=2, vacuous=True, witness="W"),
     "holds (complete: 2 states) — VACUOUS: witness W never reached"),
    (_v(Status.HOLDS_UP_TO_BOUND, distinct_states=2, depth=1, reason="interrupted", vacuous=True, witness="W"),
     "holds up to bound (incomplete: 2 states, depth 1, interrupted) — possibly vacuous: "
     "witness W not reached up to bound"),
])
def test_verdict_lines(verdict, line):
    assert format_verdict(verdict) == line


@pytest.mark.parametrize("status", [Status.HOLDS_UP_TO_BOUND, Status.NOT_REACHED_UP_TO_BOUND])
def test_incomplete_verdicts_never_claim_completeness(status):
    text = format_verdict(_v(status, distinct_states=3, depth=1, reason="max_depth reached"))
    assert "holds (complete" not in text and "passed" not in text and "incomplete" in text


# ============================================================ results and JSON
def _result() -> Result:
    trace = Trace([TraceStep(None, {"x": 0, "y": [1, 2]}, "ab12"),
                   TraceStep("IncX", {"x": 1}, "cd34", True)], loop_start=None)
    lasso = Trace([TraceStep(None, {"p": "idle"}, "01"), TraceStep("Start", {"p": "a"}, "02", False),
                   TraceStep("Send", {"p": "b"}, "03", True), TraceStep("Bounce", {"p": "a"}, "02", True)],
                  loop_start=1)
    stats = Statistics(distinct_states=16, generated_states=25, max_depth=6, seconds=0.01,
                       states_per_second=1600.0, fingerprint_bits=64,
                       collision_probability=collision_probability(16, 25, 64),
                       visited_bytes_per_state=18.0, complete=False, stop_reason="max_states reached")
    return Result("BoundedCounters(3)", "local", stats, {
        "A": Verdict("A", "always", Status.VIOLATED, title="t", citation="c", trace=trace),
        "E": Verdict("E", "eventually", Status.VIOLATED, trace=lasso),
        "Q": Verdict("Q", "at_quiescence", Status.HOLDS_UP_TO_BOUND, vacuous=True, witness="W",
                     distinct_states=16, depth=6, reason="max_states reached"),
        "W": Verdict("W", "sometimes", Status.NOT_REACHED_UP_TO_BOUND),
        "C": Verdict("C", "config", Status.NOT_CHECKED, note="Z3"),
    })


def test_result_json_round_trip_is_exact():
    r = _result()
    text = r.to_json()
    back = Result.from_json(text)
    assert back == r
    assert back.to_json() == text
    assert back.verdicts["E"].trace.loop_start == 1
    assert back.verdicts["Q"].status is Status.HOLDS_UP_TO_BOUND


def test_the_stable_entry_point_names_are_on_the_result():
    # issue 4: explore() -> Result "with at least distinct_states, generated_states,
    # max_depth, complete, per-property verdicts and traces"
    r = _result()
    s = r.statistics
    assert (r.distinct_states, r.generated_states, r.max_depth, r.complete) == (
        s.distinct_states, s.generated_states, s.max_depth, s.complete)
    assert set(r.traces) == {pid for pid, v in r.verdicts.items() if v.trace is not None} != set()
    assert r.traces["E"] is r.verdicts["E"].trace
    assert "traces" not in r.to_dict() and Result.from_json(r.to_json()).traces == r.traces


def test_json_uses_plain_status_strings_and_backend():
    d = _result().to_dict()
    assert d["backend"] == "local"
    assert d["verdicts"]["W"]["status"] == "not reached up to bound"
    assert d["statistics"]["distinct_states"] == 16


def test_exit_status_follows_the_cli_contract():
    r = _result()
    assert r.exit_status() == 1                       # a violation wins
    for v in r.verdicts.values():
        v.status, v.trace = Status.HOLDS_UP_TO_BOUND, None
    assert r.exit_status() == 3                       # incomplete
    r.statistics.complete = True
    for v in r.verdicts.values():
        v.status = Status.HOLDS
    assert r.exit_status() == 0


def test_collision_probability_is_tlc_style_and_capped():
    assert collision_probability(0, 0, 64) == 0.0
    assert collision_probability(10**6, 5 * 10**6, 64) == pytest.approx(10**6 * 4 * 10**6 / 2**64)
    assert collision_probability(10**6, 5 * 10**6, 128) < collision_probability(10**6, 5 * 10**6, 64)
    assert collision_probability(2**40, 2**41, 64) == 1.0


# ============================================================ evidence for undecided termination
def _with(props):
    class M(BoundedCounters):
        def properties(self):
            return props
    return M()


def test_evidence_must_name_a_sometimes_property_and_is_kept_by_selection():
    from checker.model import select_properties

    loop = Property.sometimes("LOOP", "a loop went round again", lambda m, s: False)
    term = Property.eventually("TERM", "settles", evidence="LOOP")
    assert term.evidence == "LOOP" and term.witness is None  # never a vacuity witness
    assert [p.id for p in select_properties(_with([term, loop]), ["TERM"])] == ["TERM", "LOOP"]
    with pytest.raises(ValueError, match="evidence 'NOPE' is not a sometimes property"):
        select_properties(_with([Property.eventually("TERM", "settles", evidence="NOPE")]), None)
