"""Scenario files (spec/scenario.py, DESIGN §2.2): good files, every error, fuzzing."""

from __future__ import annotations

import dataclasses
import json
import re
import string
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from spec.errors import InputError
from spec.scenario import (
    AdvanceStep, ChannelStep, CheckOptions, CloseStep, Expect, ExpectedDeliveries,
    ExpectedError, ExpectedMessages, ExpectedRepository, MqscStep, OpenStep, PublishStep,
    PutStep, QmgrStep, RepublishStep, Scenario, SubscribeStep, UnsubscribeStep,
    load_scenario, parse_scenario,
)

DATA = Path(__file__).parent / "data" / "scenarios"
QMS = "[qmgrs.QMA]\n[qmgrs.QMB]\n"


def parse(text: str, **kw) -> Scenario:
    return parse_scenario(text, file="s.toml", **kw)


def error_of(text: str, **kw) -> str:
    with pytest.raises(InputError) as info:
        parse(text, **kw)
    return str(info.value)


def without_commands(step):
    return dataclasses.replace(step, commands=()) if isinstance(step, MqscStep) else step


# ============================================================================ good files

EVERY_STEP = '''\
name = "every step"
description = "one of each"

[qmgrs.qma]
[qmgrs.QMB]

[[steps]]
mqsc = { qmgr = "QMB", commands = "DEFINE QLOCAL(Q1)" }
[[steps]]
subscribe = { qmgr = "qmb", name = "s1", topic = "Sports/#", scheme = "TOPIC", scope = "all", group = "G1", dest = "q1", new_only = true, durable = true }
[[steps]]
subscribe = { qmgr = "QMA", name = "C1", topic = "IBM/*/Results", scheme = "char", topicobj = "SPORTS" }
[[steps]]
publish = { qmgr = "QMA", topic = "Sports/Rugby/Leeds", retain = true, scope = "QMGR", action = "forward", count = 3 }
[[steps]]
publish = { qmgr = "QMA", topicobj = "SPORTS" }
[[steps]]
republish = { qmgr = "QMB", subscription = "S1", action = "FORWARD", topic = "Loop/Back" }
[[steps]]
unsubscribe = { qmgr = "QMB", name = "S1" }
[[steps]]
open = { qmgr = "QMA", handle = "h1", queue = "cq1", target_qmgr = "qmb", bind = "ON_OPEN" }
[[steps]]
open = { qmgr = "QMA", handle = "H1", queue = "CQ1" }
[[steps]]
put = { handle = "h1", count = 10, group = "g1" }
[[steps]]
close = { handle = "h1" }
[[steps]]
channel = { qmgr = "QMA", to = "QMB", status = "retrying" }
[[steps]]
qmgr = { name = "QMB", action = "Stop" }
[[steps]]
advance = { days = 31 }

[[expect]]
deliveries = { qmb = { s1 = ["b", "a", "b"] }, QMA = { C1 = [] } }
messages = { h1 = { QMB = 5, qma = 5 } }
errors = [{ qmgr = "QMA", code = "loop_detected" }]

[[expect]]
no_errors = true
repositories = { QMA = { cl1 = { qmgrs = ["QMA", "qmb", "SYSTEM.TEMPQMGR.localhost(1420)"], queues = { cq1 = ["QMB"] }, topics = ["Sports"] } }, QMB = { CL1 = { topics = [] } } }

[check]
faults = true
max_states = 5000
max_depth = 40
'''


def test_every_step_kind_parses_to_its_dataclass():
    s = parse(EVERY_STEP)
    assert (s.name, s.description, s.file) == ("every step", "one of each", "s.toml")
    assert [(q.name, q.mqsc, q.commands, q.line) for q in s.qmgrs] == [("QMA", "", (), 4), ("QMB", "", (), 5)]
    assert [without_commands(step) for step in s.steps] == [
        MqscStep(0, 8, "QMB", "DEFINE QLOCAL(Q1)", ()),
        SubscribeStep(1, 10, "QMB", "S1", "Sports/#", "topic", "ALL", "G1", "Q1", True, True),
        SubscribeStep(2, 12, "QMA", "C1", "IBM/*/Results", "char", topicobj="SPORTS"),
        PublishStep(3, 14, "QMA", "Sports/Rugby/Leeds", True, "QMGR", "FORWARD", count=3),
        PublishStep(4, 16, "QMA", "", topicobj="SPORTS"),
        RepublishStep(5, 18, "QMB", "S1", "FORWARD", "Loop/Back"),
        UnsubscribeStep(6, 20, "QMB", "S1"),
        OpenStep(7, 22, "QMA", "h1", "CQ1", "QMB", "ON_OPEN"),
        OpenStep(8, 24, "QMA", "H1", "CQ1", "", "AS_Q_DEF"),
        PutStep(9, 26, "h1", 10, "g1"),
        CloseStep(10, 28, "h1"),
        ChannelStep(11, 30, "QMA", "QMB", "RETRYING"),
        QmgrStep(12, 32, "QMB", "stop"),
        AdvanceStep(13, 34, 31),
    ]
    assert s.expects == (
        Expect(0, 36,
               deliveries=(ExpectedDeliveries("QMB", "S1", ("a", "b", "b")),
                           ExpectedDeliveries("QMA", "C1", ())),
               messages=(ExpectedMessages("h1", (("QMA", 5), ("QMB", 5))),),
               errors=(ExpectedError("QMA", "LOOP_DETECTED"),)),
        Expect(1, 41, no_errors=True, repositories=(
            ExpectedRepository("QMA", "CL1", frozenset({"QMA", "QMB", "SYSTEM.TEMPQMGR.localhost(1420)"}), (("CQ1", frozenset({"QMB"})),),
                               frozenset({"Sports"})),
            ExpectedRepository("QMB", "CL1", topics=frozenset()),
        )),
    )
    assert s.check == CheckOptions(faults=True, max_states=5000, max_depth=40)


def test_scenario_is_frozen_and_hashable():
    s = parse(EVERY_STEP)
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.name = "other"  # type: ignore[misc]
    assert hash(s.steps) == hash(parse(EVERY_STEP).steps)


def test_defaults_name_from_file_no_steps_no_expect_no_check():
    s = parse_scenario("[qmgrs.QMA]\n", file="dir/two_qmgrs.toml")
    assert (s.name, s.description, s.steps, s.expects, s.check) == ("two_qmgrs", "", (), (), CheckOptions())


def test_inline_qmgrs_table_and_dotted_keys():
    s = parse('qmgrs = { QMA = {}, qmb = { mqsc = "" } }\n')
    assert [q.name for q in s.qmgrs] == ["QMA", "QMB"]
    s = parse('qmgrs.QMA.mqsc = ""\n')
    assert [q.name for q in s.qmgrs] == ["QMA"]


def test_load_scenario_reads_mqsc_file_relative_to_the_scenario():
    s = load_scenario(DATA / "sports.toml")
    assert s.name == "Sports publish/subscribe cluster"
    cl1a, qma, qmb = s.qmgrs
    assert (cl1a.name, cl1a.source, cl1a.line) == ("CL1A", str(DATA / "sports.toml"), 4)
    assert cl1a.mqsc.startswith("ALTER QMGR REPOS(CL1)\n")  # TOML trims the newline after '''
    assert (qma.name, qma.source) == ("QMA", str(DATA / "qma.mqsc"))
    assert qma.mqsc == (DATA / "qma.mqsc").read_text()
    assert (qmb.name, qmb.mqsc, qmb.commands) == ("QMB", "", ())
    assert s.steps[0] == SubscribeStep(0, 16, "QMB", "S1", "Sports/#")
    assert s.expects[0].deliveries == (ExpectedDeliveries("QMB", "S1", ("Sports/Rugby/Leeds",)),)
    assert s.check == CheckOptions(faults=True, max_states=5000)


def test_read_file_is_injected_in_the_pure_core():
    seen = []

    def read_file(name: str) -> str:
        seen.append(name)
        return "* nothing\n"

    s = parse_scenario('[qmgrs.QMA]\nmqsc_file = "sub/qma.mqsc"\n', file="top/s.toml", read_file=read_file)
    assert seen == ["sub/qma.mqsc"]
    assert (s.qmgrs[0].mqsc, s.qmgrs[0].source) == ("* nothing\n", "top/sub/qma.mqsc")


def test_a_subscription_name_can_be_reused_after_unsubscribe():
    s = parse(QMS + '[[steps]]\nsubscribe = { qmgr = "QMA", name = "S1", topic = "a" }\n'
              '[[steps]]\nunsubscribe = { qmgr = "QMA", name = "s1" }\n'
              '[[steps]]\nsubscribe = { qmgr = "QMA", name = "S1", topic = "b" }\n'
              '[[steps]]\nsubscribe = { qmgr = "QMB", name = "S1", topic = "b" }\n')
    assert [step.topic for step in s.steps if isinstance(step, SubscribeStep)] == ["a", "b", "b"]


# ============================================================================ locating keys

def test_headers_and_keys_inside_strings_and_comments_do_not_confuse_the_locator():
    text = ("description = '''\n[[steps]]\npublish = 3\n'''\n" + QMS
            + "# [[steps]] publish = { qmgr = 1 }\n"
            + '[qmgrs.QMC]\nmqsc = "* days = 1"\n'
            + '[[steps]]\nadvance = { days = "x" }   # days = 3\n')
    assert error_of(text) == "s.toml:11:13: steps[0].advance.days: expected an integer, got a string ('x')"


def test_quoted_keys_are_located():
    text = '[qmgrs."QM.A"]\n[[steps]]\npublish = { "qmgr" = "QMX", topic = "a" }\n'
    assert error_of(text) == ("s.toml:3:13: steps[0].publish.qmgr: unknown queue manager QMX; "
                              "expected one of QM.A (declare it with a [qmgrs.QMX] table)")


def test_crlf_line_endings():
    text = QMS.replace("\n", "\r\n") + '[[steps]]\r\nadvance = { days = 0 }\r\n'
    assert error_of(text) == "s.toml:4:13: steps[0].advance.days: expected an integer from 1 to 3650, got 0"


def test_elements_of_inline_arrays_are_located():
    assert error_of('steps = [{ advance = { days = 1 } }, { advance = { days = 0 } }]\n' + QMS) == (
        "s.toml:1:52: steps[1].advance.days: expected an integer from 1 to 3650, got 0")
    assert error_of('steps = [\n  { advance = { days = 1 } },\n  { publish = 3 },\n]\n' + QMS) == (
        "s.toml:3:5: steps[1].publish: expected a table, got an integer (3) (write it as publish = { ... })")
    assert error_of(QMS + '[[expect]]\nrepositories = { QMA = { CL = { qmgrs = ["QMA", "a b"] } } }\n') == (
        "s.toml:4:49: expect[0].repositories.QMA.CL.qmgrs[1]: invalid queue manager name 'a b': "
        "expected 1 to 48 characters from A-Z a-z 0-9 . / _ %")


# ============================================================================ errors
# One table row per error kind: (id, scenario text, the exact one-line message).

ERRORS = [
    # -- TOML syntax: tomllib's own position
    ("toml_unterminated", 'name = "x', 's.toml:1:8: invalid TOML: Unterminated string: the string opened here is never closed (see https://toml.io for the syntax)'),
    ("toml_statement", '[qmgrs.QMA]\nfoo bar', "s.toml:2:5: invalid TOML: Expected '=' after a key in a key/value pair (see https://toml.io for the syntax)"),
    ("toml_end_of_document", '[qmgrs.QMA]\nx = [1,\n\n', 's.toml:2:5: invalid TOML: Invalid value: the array opened here is never closed (see https://toml.io for the syntax)'),
    ("toml_unterminated_mqsc", '[qmgrs.QMA]\nmqsc = \'\'\'\nDEFINE QLOCAL(Q)\n\n', "s.toml:2:8: invalid TOML: Expected \"'''\": the string opened here is never closed (see https://toml.io for the syntax)"),
    ("toml_header_not_closed", '[qmgrs.QMA]\n[check\n', "s.toml:2:7: invalid TOML: Expected ']' at the end of a table declaration (see https://toml.io for the syntax)"),
    ("toml_no_value_at_end", '[qmgrs.QMA]\nx = ', 's.toml:2:4: invalid TOML: Invalid value (see https://toml.io for the syntax)'),
    ("dotted_header_unknown_key", '[qmgrs.QMA]\n[a.a.a]\nb = 1\n', 's.toml:2:2: a: unknown key; expected one of name, description, qmgrs, steps, expect, check, pytest, lint, ccdt, prove'),
    ("dotted_header_unknown_check_key", '[qmgrs.QMA]\n[check.x.y]\n', 's.toml:2:8: check.x: unknown key; expected one of faults, max_states, max_depth, explore_initial'),
    ("toml_duplicate_key", 'name = "a"\nname = "b"\n', 's.toml:2:11: invalid TOML: Cannot overwrite a value (see https://toml.io for the syntax)'),
    # -- top level and [qmgrs]
    ("unknown_top_key", 'qmgr = {}\n', "s.toml:1:1: qmgr: unknown key; expected one of name, description, qmgrs, steps, expect, check, pytest, lint, ccdt, prove (did you mean 'qmgrs'?)"),
    ("missing_qmgrs", 'name = "x"\n', 's.toml:1:1: qmgrs: required key is missing (add a [qmgrs.NAME] table for each queue manager)'),
    ("empty_qmgrs", 'qmgrs = {}\n', 's.toml:1:1: qmgrs: expected at least one queue manager, as a [qmgrs.NAME] table'),
    ("name_type", 'name = 3\n' + QMS, 's.toml:1:1: name: expected a string, got an integer (3)'),
    ("steps_not_array", 'steps = 3\n' + QMS, 's.toml:1:1: steps: expected an array of tables ([[steps]] blocks), got an integer'),
    ("unknown_qmgr_key", '[qmgrs.QMA]\nmqcs = "DEFINE QLOCAL(Q1)"\n', "s.toml:2:1: qmgrs.QMA.mqcs: unknown key; expected one of mqsc, mqsc_file, uniform_cluster (did you mean 'mqsc'?)"),
    ("both_mqsc", '[qmgrs.QMA]\nmqsc = ""\nmqsc_file = "a.mqsc"\n', 's.toml:1:1: qmgrs.QMA: give mqsc or mqsc_file, not both'),
    ("qmgr_not_table", 'qmgrs = { QMA = 1 }\n', 's.toml:1:11: qmgrs.QMA: expected a table, got an integer (1) (write it as [qmgrs.NAME] with mqsc = \'\'\'...\'\'\' or mqsc_file = "x.mqsc")'),
    ("duplicate_qmgr", '[qmgrs.qma]\n[qmgrs.QMA]\n', 's.toml:2:1: qmgrs.QMA: duplicate queue manager QMA (names fold to upper case; qmgrs.qma declares it too)'),
    ("bad_qmgr_name", '[qmgrs."QM A"]\n', 's.toml:1:1: qmgrs."QM A": invalid queue manager name \'QM A\': expected 1 to 48 characters from A-Z a-z 0-9 . / _ %'),
    ("long_qmgr_name", f'[qmgrs.{"Q" * 49}]\n', f"s.toml:1:1: qmgrs.{'Q' * 49}: invalid queue manager name '{'Q' * 30}'... (49 characters): expected 1 to 48 characters from A-Z a-z 0-9 . / _ %"),
    ("mqsc_file_no_reader", '[qmgrs.QMA]\nmqsc_file = "qma.mqsc"\n', "s.toml:2:1: qmgrs.QMA.mqsc_file: cannot read 'qma.mqsc': no file reader was given (use load_scenario to read scenario files)"),
    # -- [[steps]]: shape
    ("step_none", QMS + '[[steps]]\n', 's.toml:3:1: steps[0]: expected exactly one of mqsc, publish, subscribe, unsubscribe, republish, open, put, close, channel, qmgr, advance, wait, connect, disconnect, join_uniform; found none'),
    ("step_two", QMS + '[[steps]]\npublish = { qmgr = "QMA", topic = "a" }\nclose = { handle = "h" }\n', 's.toml:3:1: steps[0]: expected exactly one of mqsc, publish, subscribe, unsubscribe, republish, open, put, close, channel, qmgr, advance, wait, connect, disconnect, join_uniform; found publish and close (split them into separate [[steps]] blocks)'),
    ("step_unknown_kind", QMS + '[[steps]]\npublsh = { qmgr = "QMA", topic = "a" }\n', "s.toml:4:1: steps[0].publsh: unknown key; expected one of mqsc, publish, subscribe, unsubscribe, republish, open, put, close, channel, qmgr, advance, wait, connect, disconnect, join_uniform (did you mean 'publish'?)"),
    ("step_not_table", QMS + '[[steps]]\npublish = "Sports"\n', "s.toml:4:1: steps[0].publish: expected a table, got a string ('Sports') (write it as publish = { ... })"),
    # -- [[steps]]: keys, types, ranges
    ("publish_unknown_key", QMS + '[[steps]]\npublish = { qmgr = "QMA", topc = "a" }\n', "s.toml:4:27: steps[0].publish.topc: unknown key; expected one of qmgr, topic, retain, scope, action, topicobj, count (did you mean 'topic'?)"),
    ("publish_missing_qmgr", QMS + '[[steps]]\npublish = { topic = "a" }\n', 's.toml:4:1: steps[0].publish.qmgr: required key is missing'),
    ("publish_missing_topic", QMS + '[[steps]]\npublish = { qmgr = "QMA" }\n', 's.toml:4:1: steps[0].publish.topic: required key is missing (or give topicobj)'),
    ("publish_unknown_qmgr", QMS + '[[steps]]\npublish = { qmgr = "QMAA", topic = "a" }\n', 's.toml:4:13: steps[0].publish.qmgr: unknown queue manager QMAA; expected one of QMA, QMB (did you mean QMA?)'),
    ("publish_undeclared_qmgr", QMS + '[[steps]]\npublish = { qmgr = "ZZZ", topic = "a" }\n', 's.toml:4:13: steps[0].publish.qmgr: unknown queue manager ZZZ; expected one of QMA, QMB (declare it with a [qmgrs.ZZZ] table)'),
    ("publish_empty_topic", QMS + '[[steps]]\npublish = { qmgr = "QMA", topic = "" }\n', 's.toml:4:27: steps[0].publish.topic: invalid topic string: a topic string must not be empty (002 §Topic strings)'),
    ("publish_count_zero", QMS + '[[steps]]\npublish = { qmgr = "QMA", topic = "a", count = 0 }\n', 's.toml:4:40: steps[0].publish.count: expected an integer from 1 to 1000, got 0'),
    ("publish_count_big", QMS + '[[steps]]\npublish = { qmgr = "QMA", topic = "a", count = 1001 }\n', 's.toml:4:40: steps[0].publish.count: expected an integer from 1 to 1000, got 1001'),
    ("publish_count_string", QMS + '[[steps]]\npublish = { qmgr = "QMA", topic = "a", count = "3" }\n', "s.toml:4:40: steps[0].publish.count: expected an integer, got a string ('3')"),
    ("publish_count_bool", QMS + '[[steps]]\npublish = { qmgr = "QMA", topic = "a", count = true }\n', 's.toml:4:40: steps[0].publish.count: expected an integer, got a boolean (True)'),
    ("publish_retain_int", QMS + '[[steps]]\npublish = { qmgr = "QMA", topic = "a", retain = 1 }\n', 's.toml:4:40: steps[0].publish.retain: expected true or false, got an integer (1)'),
    ("publish_bad_scope", QMS + '[[steps]]\npublish = { qmgr = "QMA", topic = "a", scope = "QMG" }\n', "s.toml:4:40: steps[0].publish.scope: expected one of ALL, QMGR, got 'QMG' (did you mean QMGR?)"),
    ("publish_bad_topicobj", QMS + '[[steps]]\npublish = { qmgr = "QMA", topicobj = "St$1" }\n', "s.toml:4:27: steps[0].publish.topicobj: invalid topic object name 'St$1': expected 1 to 48 characters from A-Z a-z 0-9 . / _ % and embedded blanks"),
    ("publish_topicobj_leading_blank", QMS + '[[steps]]\npublish = { qmgr = "QMA", topicobj = " St" }\n', "s.toml:4:27: steps[0].publish.topicobj: invalid topic object name ' St': expected 1 to 48 characters from A-Z a-z 0-9 . / _ % and embedded blanks"),
    ("publish_qmgr_not_string", QMS + '[[steps]]\npublish = { qmgr = ["QMA"], topic = "a" }\n', "s.toml:4:13: steps[0].publish.qmgr: expected a string, got an array (['QMA'])"),
    ("subscribe_bad_escape", QMS + '[[steps]]\nsubscribe = { qmgr = "QMA", name = "S1", topic = "a%b", scheme = "char" }\n', "s.toml:4:42: steps[0].subscribe.topic: invalid topic string: invalid escape at character 2 of 'a%b': '%' must be followed by '*', '?' or '%', not 'b' (002 §Character-based wildcard scheme) (write %% for a literal %)"),
    ("subscribe_bad_scheme", QMS + '[[steps]]\nsubscribe = { qmgr = "QMA", name = "S1", topic = "a", scheme = "chars" }\n', "s.toml:4:55: steps[0].subscribe.scheme: expected one of topic, char, got 'chars' (did you mean char?)"),
    ("subscribe_empty_name", QMS + '[[steps]]\nsubscribe = { qmgr = "QMA", name = "", topic = "a" }\n', "s.toml:4:29: steps[0].subscribe.name: invalid subscription name '': expected 1 to 48 characters from A-Z a-z 0-9 . / _ %"),
    ("open_bad_bind", QMS + '[[steps]]\nopen = { qmgr = "QMA", handle = "h1", queue = "Q1", bind = "ON_OPN" }\n', "s.toml:4:53: steps[0].open.bind: expected one of AS_Q_DEF, ON_OPEN, NOT_FIXED, ON_GROUP, got 'ON_OPN' (did you mean ON_OPEN?)"),
    ("open_bad_queue", QMS + '[[steps]]\nopen = { qmgr = "QMA", handle = "h1", queue = "my queue" }\n', "s.toml:4:39: steps[0].open.queue: invalid queue name 'my queue': expected 1 to 48 characters from A-Z a-z 0-9 . / _ %"),
    ("open_empty_handle", QMS + '[[steps]]\nopen = { qmgr = "QMA", handle = "", queue = "Q1" }\n', 's.toml:4:24: steps[0].open.handle: expected a non-empty handle name'),
    ("channel_to_self", QMS + '[[steps]]\nchannel = { qmgr = "QMA", to = "qma", status = "RETRYING" }\n', 's.toml:4:27: steps[0].channel.to: a channel goes to another queue manager, not QMA itself'),
    ("channel_bad_status", QMS + '[[steps]]\nchannel = { qmgr = "QMA", to = "QMB", status = "RETRY" }\n', "s.toml:4:39: steps[0].channel.status: expected one of INACTIVE, RUNNING, BINDING, INITIALIZING, STARTING, STOPPING, RETRYING, REQUESTING, PAUSED, STOPPED, SWITCHING, got 'RETRY' (did you mean RETRYING?)"),
    ("qmgr_bad_action", QMS + '[[steps]]\nqmgr = { name = "QMA", action = "restart" }\n', "s.toml:4:24: steps[0].qmgr.action: expected one of stop, start, delete, recreate, got 'restart' (did you mean start?)"),
    ("advance_zero", QMS + '[[steps]]\nadvance = { days = 0 }\n', 's.toml:4:13: steps[0].advance.days: expected an integer from 1 to 3650, got 0'),
    ("advance_float", QMS + '[[steps]]\nadvance = { days = 1.5 }\n', 's.toml:4:13: steps[0].advance.days: expected an integer, got a float (1.5)'),
    ("advance_date", QMS + '[[steps]]\nadvance = { days = 2024-01-01 }\n', 's.toml:4:13: steps[0].advance.days: expected an integer, got a date (datetime.date(2024, 1, 1))'),
    # -- [[steps]]: names that must exist (or must not)
    ("subscribe_duplicate", QMS + '[[steps]]\nsubscribe = { qmgr = "QMA", name = "S1", topic = "a" }\n[[steps]]\nsubscribe = { qmgr = "QMA", name = "s1", topic = "b" }\n', 's.toml:6:29: steps[1].subscribe.name: subscription S1 already exists at QMA (made by steps[0]) (unsubscribe it first or choose another name)'),
    ("unsubscribe_unknown", QMS + '[[steps]]\nsubscribe = { qmgr = "QMA", name = "S1", topic = "a" }\n[[steps]]\nunsubscribe = { qmgr = "QMA", name = "S2" }\n', 's.toml:6:31: steps[1].unsubscribe.name: unknown subscription S2 at QMA; expected one of S1'),
    ("unsubscribe_twice", QMS + '[[steps]]\nsubscribe = { qmgr = "QMA", name = "S1", topic = "a" }\n[[steps]]\nunsubscribe = { qmgr = "QMA", name = "S1" }\n[[steps]]\nunsubscribe = { qmgr = "QMA", name = "S1" }\n', 's.toml:8:31: steps[2].unsubscribe.name: unknown subscription S1 at QMA; none exists at this point'),
    ("republish_empty_topic", QMS + '[[steps]]\nsubscribe = { qmgr = "QMA", name = "S1", topic = "a" }\n[[steps]]\nrepublish = { qmgr = "QMA", subscription = "S1", action = "NEW", topic = "" }\n', 's.toml:6:66: steps[1].republish.topic: invalid topic string: a topic string must not be empty (002 §Topic strings) (leave topic out to publish again under the topic received)'),
    ("prove_empty_topic", QMS + '[[prove]]\nname = "x"\ntopic = ""\nexpect = "never"\n', 's.toml:5:1: prove[0].topic: invalid topic string: a topic string must not be empty (002 §Topic strings) (leave topic out for every topic string ("#"))'),
    ("republish_other_qmgr", QMS + '[[steps]]\nsubscribe = { qmgr = "QMA", name = "S1", topic = "a" }\n[[steps]]\nrepublish = { qmgr = "QMB", subscription = "S1", action = "FORWARD" }\n', 's.toml:6:29: steps[1].republish.subscription: unknown subscription S1 at QMB; none exists at this point'),
    ("republish_missing_action", QMS + '[[steps]]\nsubscribe = { qmgr = "QMA", name = "S1", topic = "a" }\n[[steps]]\nrepublish = { qmgr = "QMA", subscription = "S1" }\n', 's.toml:6:1: steps[1].republish.action: required key is missing'),
    ("open_duplicate_handle", QMS + '[[steps]]\nopen = { qmgr = "QMA", handle = "h1", queue = "Q1" }\n[[steps]]\nclose = { handle = "h1" }\n[[steps]]\nopen = { qmgr = "QMB", handle = "h1", queue = "Q1" }\n', "s.toml:8:24: steps[2].open.handle: handle 'h1' is already used by steps[0] (choose another name)"),
    ("put_before_open", QMS + '[[steps]]\nput = { handle = "h1" }\n', "s.toml:4:9: steps[0].put.handle: unknown handle 'h1' (open it first with an open step)"),
    ("put_misspelt_handle", QMS + '[[steps]]\nopen = { qmgr = "QMA", handle = "h1", queue = "Q1" }\n[[steps]]\nput = { handle = "H1" }\n', "s.toml:6:9: steps[1].put.handle: unknown handle 'H1' (did you mean 'h1'?)"),
    ("put_after_close", QMS + '[[steps]]\nopen = { qmgr = "QMA", handle = "h1", queue = "Q1" }\n[[steps]]\nclose = { handle = "h1" }\n[[steps]]\nput = { handle = "h1", count = 2 }\n', "s.toml:8:9: steps[2].put.handle: handle 'h1' was closed by steps[1]"),
    ("close_twice", QMS + '[[steps]]\nopen = { qmgr = "QMA", handle = "h1", queue = "Q1" }\n[[steps]]\nclose = { handle = "h1" }\n[[steps]]\nclose = { handle = "h1" }\n', "s.toml:8:11: steps[2].close.handle: handle 'h1' was closed by steps[1]"),
    # -- [[expect]]
    ("expect_empty", QMS + '[[expect]]\n', 's.toml:3:1: expect[0]: expected at least one of deliveries, messages, errors, no_errors, repositories, apstatus, absent_errors; found none'),
    ("expect_unknown_key", QMS + '[[expect]]\ndelivery = {}\n', "s.toml:4:1: expect[0].delivery: unknown key; expected one of deliveries, messages, errors, no_errors, repositories, apstatus, absent_errors (did you mean 'deliveries'?)"),
    ("expect_absent_and_expected", QMS + '[[expect]]\nerrors = [{ qmgr = "QMA", code = "LOOP_DETECTED" }]\nabsent_errors = [{ qmgr = "QMA", code = "loop_detected" }]\n', "s.toml:5:1: expect[0].absent_errors: LOOP_DETECTED at QMA is both expected and absent in the same block (drop it from one of errors and absent_errors)"),
    ("expect_absent_unknown_qmgr", QMS + '[[expect]]\nabsent_errors = [{ qmgr = "QMZ", code = "LOOP_DETECTED" }]\n', "s.toml:4:20: expect[0].absent_errors[0].qmgr: unknown queue manager QMZ; expected one of QMA, QMB (declare it with a [qmgrs.QMZ] table)"),
    ("expect_unknown_qmgr", QMS + '[[expect]]\ndeliveries = { QMC = {} }\n', 's.toml:4:16: expect[0].deliveries.QMC: unknown queue manager QMC; expected one of QMA, QMB (declare it with a [qmgrs.QMC] table)'),
    ("expect_unknown_sub", QMS + '[[steps]]\nsubscribe = { qmgr = "QMA", name = "S1", topic = "a" }\n[[expect]]\ndeliveries = { QMA = { S2 = [] } }\n', 's.toml:6:24: expect[0].deliveries.QMA.S2: unknown subscription S2 at QMA; expected one of S1'),
    ("expect_no_sub_at_qmgr", QMS + '[[expect]]\ndeliveries = { QMA = { S2 = [] } }\n', 's.toml:4:24: expect[0].deliveries.QMA.S2: unknown subscription S2 at QMA; no step or MQSC makes one there'),
    ("expect_topics_not_list_unknown_sub", QMS + '[[expect]]\ndeliveries = { QMA = { S = "x" } }\n', "s.toml:4:24: expect[0].deliveries.QMA.S: expected an array of topic strings, got a string ('x')"),
    ("expect_topics_not_list", QMS + '[[steps]]\nsubscribe = { qmgr = "QMA", name = "S1", topic = "a" }\n[[expect]]\ndeliveries = { QMA = { S1 = "a" } }\n', "s.toml:6:24: expect[0].deliveries.QMA.S1: expected an array of topic strings, got a string ('a')"),
    ("expect_bad_topic", QMS + '[[steps]]\nsubscribe = { qmgr = "QMA", name = "S1", topic = "a" }\n[[expect]]\ndeliveries = { QMA = { S1 = ["a", ""] } }\n', 's.toml:6:35: expect[0].deliveries.QMA.S1[1]: invalid topic string: a topic string must not be empty (002 §Topic strings)'),
    ("expect_unknown_handle", QMS + '[[expect]]\nmessages = { h1 = { QMA = 1 } }\n', "s.toml:4:14: expect[0].messages.h1: unknown handle 'h1'; no open step opens it"),
    ("expect_negative_count", QMS + '[[steps]]\nopen = { qmgr = "QMA", handle = "h1", queue = "Q1" }\n[[expect]]\nmessages = { h1 = { QMA = -1 } }\n', 's.toml:6:21: expect[0].messages.h1.QMA: expected an integer of at least 0, got -1'),
    ("expect_bad_code", QMS + '[[expect]]\nerrors = [{ qmgr = "QMA", code = "loop detected" }]\n', "s.toml:4:27: expect[0].errors[0].code: expected an error code such as LOOP_DETECTED, got 'LOOP DETECTED'"),
    ("expect_second_error_bad", QMS + '[[expect]]\nerrors = [{ qmgr = "QMA", code = "LOOP_DETECTED" },\n  { qmgr = "QMA", code = "bad code" }]\n', "s.toml:5:19: expect[0].errors[1].code: expected an error code such as LOOP_DETECTED, got 'BAD CODE'"),
    ("expect_error_missing_code", QMS + '[[expect]]\nerrors = [{ qmgr = "QMA" }]\n', 's.toml:4:11: expect[0].errors[0].code: required key is missing'),
    ("expect_errors_not_array", QMS + '[[expect]]\nerrors = "LOOP_DETECTED"\n', 's.toml:4:1: expect[0].errors: expected an array of { qmgr, code } tables, got a string'),
    ("expect_contradiction", QMS + '[[expect]]\nerrors = [{ qmgr = "QMA", code = "LOOP_DETECTED" }]\nno_errors = true\n', 's.toml:5:1: expect[0].no_errors: no_errors = true contradicts errors in the same block (put them in separate [[expect]] blocks or drop one)'),
    ("expect_repo_unknown_part", QMS + '[[expect]]\nrepositories = { QMA = { CL1 = { queue = {} } } }\n', "s.toml:4:34: expect[0].repositories.QMA.CL1.queue: unknown key; expected one of qmgrs, queues, topics (did you mean 'queues'?)"),
    # -- [check]
    ("check_zero", QMS + '[check]\nmax_states = 0\n', 's.toml:4:1: check.max_states: expected an integer of at least 1, got 0'),
    ("check_unknown", QMS + '[check]\nfault = true\n', "s.toml:4:1: check.fault: unknown key; expected one of faults, max_states, max_depth, explore_initial (did you mean 'faults'?)"),
    ("check_faults_string", QMS + '[check]\nfaults = "yes"\n', "s.toml:4:1: check.faults: expected true, false or a count of faults (as --faults N), got a string ('yes')"),
    ("check_faults_negative", QMS + '[check]\nfaults = -1\n', "s.toml:4:1: check.faults: expected an integer of at least 0, got -1"),
]


@pytest.mark.parametrize("text, message", [row[1:] for row in ERRORS], ids=[row[0] for row in ERRORS])
def test_every_error_names_file_line_and_key_path(text, message):
    assert error_of(text) == message


def test_error_ids_are_unique():
    assert len({row[0] for row in ERRORS}) == len(ERRORS)


# -- MQSC is parsed at load time; its errors point into the file the user edits
BAD_MQSC = "DEFINE QLOCAL(Q2) CLUSTR(DEMO)"
MQSC_SAYS = "DEFINE QLOCAL(Q2): CLUSTR is not an attribute of QLOCAL (did you mean CLUSTER?)"

MQSC_ERRORS = [
    ("multiline_inline", f"[qmgrs.QMA]\nmqsc = '''\nDEFINE QLOCAL(Q1)\n{BAD_MQSC}\n'''\n", f"s.toml:4:19: qmgrs.QMA.mqsc: {MQSC_SAYS}"),
    ("multiline_same_line", f"[qmgrs.QMA]\nmqsc = '''{BAD_MQSC}'''\n", f"s.toml:2:29: qmgrs.QMA.mqsc: {MQSC_SAYS}"),
    ("single_line", f"[qmgrs.QMA]\nmqsc = '{BAD_MQSC}'\n", f"s.toml:2:27: qmgrs.QMA.mqsc: {MQSC_SAYS}"),
    ("step_inline", f"[qmgrs.QMA]\n[[steps]]\nmqsc = {{ qmgr = 'QMA', commands = '{BAD_MQSC}' }}\n", f"s.toml:3:54: steps[0].mqsc.commands: {MQSC_SAYS}"),
    ("step_multiline", f"[qmgrs.QMA]\n[[steps]]\nmqsc = {{ qmgr = 'QMA', commands = '''\nDEFINE QLOCAL(Q1)\n{BAD_MQSC}''' }}\n", f"s.toml:5:19: steps[0].mqsc.commands: {MQSC_SAYS}"),
    # escapes in basic strings: the MQSC line 2 is still on TOML line 2, further right
    ("basic_newline_escape", f'[qmgrs.QMA]\nmqsc = "DEFINE QLOCAL(Q1)\\n{BAD_MQSC}"\n', f"s.toml:2:46: qmgrs.QMA.mqsc: {MQSC_SAYS}"),
    ("basic_unicode_escape", f'[qmgrs.QMA]\nmqsc = "\\u0044{BAD_MQSC[1:]}"\n', f"s.toml:2:32: qmgrs.QMA.mqsc: {MQSC_SAYS}"),
    ("step_newline_escape", f'[qmgrs.QMA]\n[[steps]]\nmqsc = {{ qmgr = "QMA", commands = "DEFINE QLOCAL(Q1)\\n\\t{BAD_MQSC}" }}\n', f"s.toml:3:75: steps[0].mqsc.commands: {MQSC_SAYS}"),
    ("line_ending_backslash", f'[qmgrs.QMA]\nmqsc = """DEFINE QLOCAL(Q1) \\\n   DESCR(x)\n{BAD_MQSC}"""\n', f"s.toml:4:19: qmgrs.QMA.mqsc: {MQSC_SAYS}"),
    ("crlf_multiline", f"[qmgrs.QMA]\r\nmqsc = '''\r\nDEFINE QLOCAL(Q1)\r\n{BAD_MQSC}\r\n'''\r\n", f"s.toml:4:19: qmgrs.QMA.mqsc: {MQSC_SAYS}"),
]


@pytest.mark.parametrize("text, message", [row[1:] for row in MQSC_ERRORS], ids=[row[0] for row in MQSC_ERRORS])
def test_mqsc_errors_point_into_the_scenario_file(text, message):
    assert error_of(text) == message


def test_mqsc_file_errors_point_into_the_mqsc_file():
    text = f"DEFINE QLOCAL(Q1)\n\n{BAD_MQSC}\n"
    with pytest.raises(InputError) as info:
        parse_scenario("[qmgrs.QMA]\nmqsc_file = 'qma.mqsc'\n", file="dir/s.toml", read_file=lambda name: text)
    assert str(info.value) == f"dir/qma.mqsc:3:19: qmgrs.QMA.mqsc_file: {MQSC_SAYS}"


def test_parsed_mqsc_is_kept_with_the_queue_manager_and_the_step():
    s = parse("[qmgrs.QMA]\nmqsc = '''\nDEF QL(q1)\n'''\n[[steps]]\nmqsc = { qmgr = 'QMA', commands = 'DELETE QLOCAL(Q1)' }\n")
    assert [c.title() for c in s.qmgrs[0].commands] == ["DEFINE QLOCAL(Q1)"]
    assert [c.title() for c in s.steps[0].commands] == ["DELETE QLOCAL(Q1)"]


def test_subscriptions_defined_and_deleted_in_mqsc_are_known_to_later_steps():
    text = ("[qmgrs.QMA]\nmqsc = '''\nDEFINE SUB(FLEEDS) TOPICSTR('Sports/Rugby/Leeds') DEST(Q1)\n"
            "DEFINE SUB(S2) TOPICSTR('a') DEST(Q1)\n'''\n"
            "[[steps]]\nrepublish = { qmgr = 'QMA', subscription = 'fleeds', action = 'NEW' }\n"
            "[[steps]]\nmqsc = { qmgr = 'QMA', commands = 'DELETE SUB(S2)' }\n"
            "[[expect]]\ndeliveries = { QMA = { S2 = [], FLEEDS = ['Sports/Rugby/Leeds'] } }\n")
    s = parse(text)
    assert s.steps[0] == RepublishStep(0, 7, "QMA", "FLEEDS", "NEW")
    assert [d.subscription for d in s.expects[0].deliveries] == ["S2", "FLEEDS"]  # S2 existed once
    assert error_of(text + "[[steps]]\nunsubscribe = { qmgr = 'QMA', name = 'S2' }\n") == (
        "s.toml:13:31: steps[2].unsubscribe.name: unknown subscription S2 at QMA; expected one of FLEEDS")


@pytest.mark.parametrize("text, message", [
    (QMS + "x = " + "9" * 5000, r"^s\.toml:3:5: invalid TOML: a number with more digits than mqcheck reads \(4300 at most\)$"),
    (QMS + "x = " + "[" * 5000 + "]" * 5000, r"^s\.toml:3:105: invalid TOML: arrays and inline tables nested too deeply \(more than 100 levels here\)$"),
    (QMS + "[[steps]]\nadvance = { days = " + "9" * 100 + " }", r"^s\.toml:4:13: steps\[0\]\.advance\.days: expected an integer from 1 to 3650, got 9{57}\.\.\.$"),
    (QMS + "[[steps]]\nadvance = { days = inf }", r"^s\.toml:4:13: steps\[0\]\.advance\.days: expected an integer, got a float \(inf\)$"),
], ids=["digits", "nesting", "huge", "inf"])
def test_pathological_values_are_input_errors(text, message):
    assert re.search(message, error_of(text))


def test_missing_mqsc_file_names_the_file():
    with pytest.raises(InputError) as info:
        load_scenario(DATA / "missing_mqsc_file.toml")
    assert str(info.value) == (f"{DATA / 'missing_mqsc_file.toml'}:2:1: qmgrs.QMA.mqsc_file: file not found: "
                               f"{DATA / 'nowhere.mqsc'} (mqsc_file is relative to the scenario file)")


def test_unreadable_scenario_files(tmp_path):
    with pytest.raises(InputError, match=r"absent\.toml: cannot read the scenario file: No such file"):
        load_scenario(tmp_path / "absent.toml")
    latin1 = tmp_path / "latin1.toml"
    latin1.write_bytes(b'name = "caf\xe9"\n')
    with pytest.raises(InputError, match=r"latin1\.toml:1:12: not UTF-8 text: byte 0xe9 cannot start or continue a character here \(TOML files are UTF-8; save the file as UTF-8\)$"):
        load_scenario(latin1)


def test_mqsc_file_that_is_not_utf8(tmp_path):
    (tmp_path / "s.toml").write_text('[qmgrs.QMA]\nmqsc_file = "qma.mqsc"\n')
    (tmp_path / "qma.mqsc").write_bytes(b"* caf\xe9\n")
    with pytest.raises(InputError, match=r"qma\.mqsc:1:6: not UTF-8 text: byte 0xe9 .*\(read as qmgrs\.QMA\.mqsc_file of .*s\.toml\)"):
        load_scenario(tmp_path / "s.toml")


# -- what mqsc_file may name: a regular UTF-8 file of sane size, nothing else
@pytest.mark.parametrize("name,message", [
    ("\\u0000x", r"s\.toml:2:1: qmgrs\.QMA\.mqsc_file: cannot read .*\\x00x: the file name contains a NUL character$"),
    ("adir", r"s\.toml:2:1: qmgrs\.QMA\.mqsc_file: cannot read .*adir: it is a directory, not a file$"),
    ("/dev/zero", r"s\.toml:2:1: qmgrs\.QMA\.mqsc_file: cannot read /dev/zero: not a regular file"),
    ("big.mqsc", r"s\.toml:2:1: qmgrs\.QMA\.mqsc_file: cannot read .*big\.mqsc: larger than 16 MiB"),
])
def test_mqsc_file_must_be_a_regular_file_of_sane_size(tmp_path, name, message):
    from spec.scenario import MAX_FILE_BYTES

    (tmp_path / "adir").mkdir()
    with open(tmp_path / "big.mqsc", "wb") as f:
        f.truncate(MAX_FILE_BYTES + 1)  # sparse: nothing written
    (tmp_path / "s.toml").write_text(f'[qmgrs.QMA]\nmqsc_file = "{name}"\n')
    with pytest.raises(InputError) as info:
        load_scenario(tmp_path / "s.toml")
    assert re.search(message, info.value.one_line()), info.value.one_line()
    assert "\n" not in info.value.one_line() and "\x00" not in info.value.one_line()


def test_scenario_file_must_be_a_regular_file(tmp_path):
    with pytest.raises(InputError, match=r"^/dev/zero: cannot read the scenario file: not a regular file"):
        load_scenario("/dev/zero")
    with pytest.raises(InputError, match=r"cannot read the scenario file: it is a directory"):
        load_scenario(tmp_path)


def test_byte_order_marks_are_accepted(tmp_path):
    # Windows editors save UTF-8 with a BOM; both the scenario and its mqsc_file may have one
    (tmp_path / "s.toml").write_bytes('\ufeff[qmgrs.QMA]\nmqsc_file = "qma.mqsc"\n'.encode())
    (tmp_path / "qma.mqsc").write_bytes("\ufeffDEFINE QLOCAL(Q1)\n".encode())
    s = load_scenario(tmp_path / "s.toml")
    assert [(c.verb, c.objtype, c.name) for c in s.qmgrs[0].commands] == [("DEFINE", "QLOCAL", "Q1")]


# ============================================================================ fuzzing
# Whatever the text, the result is a Scenario or an InputError, never another exception.

def _fake_read_file(name: str) -> str:
    if name.startswith("missing"):
        raise FileNotFoundError(name)
    return ""


def _scenario_or_input_error(text: str) -> None:
    try:
        result = parse_scenario(text, file="fuzz.toml", read_file=_fake_read_file)
    except InputError as e:
        assert e.file == "fuzz.toml" and str(e).startswith("fuzz.toml")
    else:
        assert isinstance(result, Scenario)


@given(st.text())
def test_arbitrary_text_gives_a_scenario_or_an_input_error(text):
    _scenario_or_input_error(text)


FRAGMENTS = [
    "[qmgrs.QMA]", "[qmgrs.qmb]", '[qmgrs."Q M"]', "[qmgrs]", "QMC = {}", "[[steps]]", "[[expect]]",
    "[check]", "steps = []", "expect = 3", 'mqsc = """\nDEFINE QLOCAL(Q1)\n"""', "mqsc = '''[[steps]]'''",
    'mqsc_file = "qma.mqsc"', 'mqsc_file = "missing.mqsc"', 'publish = { qmgr = "QMA", topic = "a/b" }',
    'publish = { qmgr = "QMB", topicobj = "T" }', 'publish = { qmgr = "QMA", topic = "" }',
    'subscribe = { qmgr = "QMB", name = "S1", topic = "#" }', 'subscribe = { qmgr = "QMA", name = "S1", topic = "%", scheme = "char" }',
    'unsubscribe = { qmgr = "QMB", name = "S1" }', 'republish = { qmgr = "QMB", subscription = "s1", action = "NEW" }',
    'open = { qmgr = "QMA", handle = "h", queue = "Q" }', 'put = { handle = "h", count = 2 }', 'close = { handle = "h" }',
    'channel = { qmgr = "QMA", to = "QMB", status = "STOPPED" }', 'qmgr = { name = "QMA", action = "delete" }',
    "advance = { days = 31 }", "advance = { days = -1 }", 'deliveries = { QMB = { S1 = ["a/b"] } }',
    "messages = { h = { QMA = 1 } }", 'errors = [{ qmgr = "QMA", code = "X" }]', "no_errors = true",
    'repositories = { QMA = { CL = { qmgrs = ["QMA"], queues = { Q = ["QMA"] }, topics = ["a"] } } }',
    "faults = 1", "max_states = 10", 'name = "n"', "# comment", "", "x = [", "publish = {}",
    'errors = [{ qmgr = "QMA" }, 3]', "steps = [{ advance = { days = 0 } }, [1]]", 'deliveries = { QMB = { S1 = ["", 3] } }',
]


@given(st.lists(st.sampled_from(FRAGMENTS), max_size=12))
def test_assembled_fragments_give_a_scenario_or_an_input_error(lines):
    _scenario_or_input_error("\n".join(lines) + "\n")


@given(st.integers(0, len(EVERY_STEP)), st.integers(0, 40), st.text(max_size=5))
def test_damaged_scenarios_give_a_scenario_or_an_input_error(at, cut, insert):
    _scenario_or_input_error(EVERY_STEP[:at] + insert + EVERY_STEP[at + cut:])


# ============================================================================ round trip
# Random valid scenarios, rendered to TOML: parsing gives back the same values and lines.

NAMES = st.text(alphabet=string.ascii_letters + string.digits + "._/%", min_size=1, max_size=6)
TOPICS = st.text(min_size=1, max_size=8)
CHAR_TOPICS = st.text(alphabet="ab/*?", min_size=1, max_size=6)
IDENTS = st.text(min_size=1, max_size=4)


def toml_value(value) -> str:
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False).replace("\x7f", "\\u007f")
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    assert isinstance(value, dict)
    return "{ " + ", ".join(f"{toml_value(k)} = {toml_value(v)}" for k, v in value.items()) + " }"


def any_case(draw, name: str) -> str:
    return draw(st.sampled_from([name, name.lower(), name.upper()]))


@st.composite
def valid_scenarios(draw):
    """(scenario TOML text, expected qmgr names, expected steps)."""
    qmgrs = [q.upper() for q in draw(st.lists(NAMES, min_size=1, max_size=3, unique_by=str.upper))]
    lines = [f"name = {toml_value(draw(st.text(max_size=5)))}"]
    lines += [f"[qmgrs.{toml_value(any_case(draw, q))}]" for q in qmgrs]
    steps, handles, closed, subs = [], [], set(), {q: [] for q in qmgrs}
    for index in range(draw(st.integers(0, 8))):
        kinds = ["publish", "subscribe", "open", "advance", "qmgr"]
        kinds += ["channel"] if len(qmgrs) > 1 else []
        kinds += ["put", "close"] if set(handles) - closed else []
        kinds += ["unsubscribe", "republish"] if any(subs.values()) else []
        kind = draw(st.sampled_from(kinds))
        body: dict = {}
        line = len(lines) + 2
        if kind in ("publish", "subscribe", "open", "channel", "unsubscribe", "republish"):
            qmgr = draw(st.sampled_from([q for q in qmgrs if subs[q]] if kind in ("unsubscribe", "republish") else qmgrs))
            body["qmgr"] = any_case(draw, qmgr)
        if kind == "publish":
            body["topic"] = draw(TOPICS)
            options = draw(st.fixed_dictionaries({}, optional={
                "retain": st.booleans(), "scope": st.sampled_from(["ALL", "QMGR"]),
                "action": st.sampled_from(["NEW", "FORWARD"]), "topicobj": NAMES, "count": st.integers(1, 1000)}))
            body.update(options)
            step = PublishStep(index, line, qmgr, body["topic"], **{k: v for k, v in options.items()})
        elif kind == "subscribe":
            name = draw(NAMES.filter(lambda n: n.upper() not in subs[qmgr]))
            scheme = draw(st.sampled_from(["topic", "char"]))
            body.update(name=any_case(draw, name), topic=draw(TOPICS if scheme == "topic" else CHAR_TOPICS), scheme=scheme)
            options = draw(st.fixed_dictionaries({}, optional={
                "scope": st.sampled_from(["ALL", "QMGR"]), "group": IDENTS, "dest": NAMES,
                "new_only": st.booleans(), "durable": st.booleans(), "topicobj": NAMES}))
            body.update(options)
            folded = {k: (v.upper() if k == "dest" else v) for k, v in options.items()}
            step = SubscribeStep(index, line, qmgr, name.upper(), body["topic"], scheme, **folded)
            subs[qmgr].append(name.upper())
        elif kind in ("unsubscribe", "republish"):
            name = draw(st.sampled_from(subs[qmgr]))
            if kind == "unsubscribe":
                body["name"] = any_case(draw, name)
                step = UnsubscribeStep(index, line, qmgr, name)
                subs[qmgr].remove(name)
            else:
                action = draw(st.sampled_from(["NEW", "FORWARD"]))
                topic = draw(st.one_of(st.just(""), TOPICS))
                body.update(subscription=any_case(draw, name), action=action, **({"topic": topic} if topic else {}))
                step = RepublishStep(index, line, qmgr, name, action, topic)
        elif kind == "open":
            handle = draw(IDENTS.filter(lambda h: h not in handles))
            queue, target = draw(NAMES), draw(st.one_of(st.just(""), NAMES))
            bind = draw(st.sampled_from(["AS_Q_DEF", "ON_OPEN", "NOT_FIXED", "ON_GROUP"]))
            body.update(handle=handle, queue=queue, target_qmgr=target, bind=bind)
            step = OpenStep(index, line, qmgr, handle, queue.upper(), target.upper(), bind)
            handles.append(handle)
        elif kind in ("put", "close"):
            handle = draw(st.sampled_from(sorted(set(handles) - closed)))
            body["handle"] = handle
            if kind == "put":
                count, group = draw(st.integers(1, 1000)), draw(st.one_of(st.just(""), IDENTS))
                body.update(count=count, group=group)
                step = PutStep(index, line, handle, count, group)
            else:
                step = CloseStep(index, line, handle)
                closed.add(handle)
        elif kind == "channel":
            to = draw(st.sampled_from([q for q in qmgrs if q != qmgr]))
            status = draw(st.sampled_from(["RUNNING", "RETRYING", "STOPPED", "INACTIVE"]))
            body.update(to=any_case(draw, to), status=status.lower())
            step = ChannelStep(index, line, qmgr, to, status)
        elif kind == "qmgr":
            name, action = draw(st.sampled_from(qmgrs)), draw(st.sampled_from(["stop", "start", "delete", "recreate"]))
            body.update(name=any_case(draw, name), action=action)
            step = QmgrStep(index, line, name, action)
        else:
            days = draw(st.integers(1, 3650))
            body["days"] = days
            step = AdvanceStep(index, line, days)
        lines += ["[[steps]]", f"{kind} = {toml_value(body)}"]
        steps.append(step)
    return "\n".join(lines) + "\n", qmgrs, steps


@settings(max_examples=60)
@given(valid_scenarios())
def test_valid_scenarios_round_trip(case):
    text, qmgrs, steps = case
    s = parse(text)
    assert [q.name for q in s.qmgrs] == qmgrs
    assert list(s.steps) == steps


def test_a_topic_object_name_may_have_embedded_blanks():
    # 002's Figure 7 (topics.tst) defines TOPIC('St. Helens'); a step can name it
    scenario = parse_scenario(QMS + "[[steps]]\npublish = { qmgr = \"QMA\", topicobj = \"St. Helens\" }\n", "s.toml")
    assert scenario.steps[0].topicobj == "St. Helens"


@pytest.mark.parametrize("written, budget", [("true", 1), ("false", 0), ("2", 2), ("0", 0)])
def test_check_faults_is_a_budget_as_the_flag_is(written, budget):
    """`[check] faults = 2` was refused ("expected true or false") though --faults takes a count."""
    from spec.network import MQNetwork

    s = parse_scenario(f"[qmgrs.QMA]\n[check]\nfaults = {written}\n", file="s.toml")
    assert s.check.faults == budget
    assert MQNetwork(s, ()).faults == budget
