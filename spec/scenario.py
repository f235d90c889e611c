"""Scenario files (TOML) -> queue managers' initial MQSC, application steps, expectations.

DESIGN §2.2. A scenario names a set of queue managers with their MQSC definitions, a
sequence of application steps (publish, subscribe, open/put/close, faults, clock) and the
expectations ``mqcheck run``/``check`` verify. Only :func:`load_scenario` touches the file
system (the scenario file and any ``mqsc_file`` it names); :func:`parse_scenario` is a
pure function of the text and an injected ``read_file``.

Every problem is an :class:`~spec.errors.InputError` whose one-line form is
``file:line:column: key.path: what was expected (suggestion)``.

Format reference
----------------
Top level: ``name`` (string; default: the file name without extension), ``description``
(string), ``[qmgrs.NAME]`` (at least one), ``[[steps]]``, ``[[expect]]``, ``[check]``,
``[pytest]`` (:class:`PytestOptions`, for checker/pytest_plugin.py) and ``[lint]``
(:class:`LintOptions`, for ``mqcheck lint``).

``[qmgrs.NAME]``: ``mqsc = '''...'''`` or ``mqsc_file = "x.mqsc"`` (relative to the
scenario file) or neither (an empty queue manager), never both.

``[[steps]]`` hold exactly one of (``?`` = optional, default after ``=``):

- ``mqsc = {qmgr, commands}``
- ``publish = {qmgr, topic, retain? = false, scope? = "ALL" | "QMGR", action? = "NEW" |
  "FORWARD", topicobj?, count? = 1}`` — ``topic`` may be left out when ``topicobj`` is
  given (002 §Constructing topic names); ``scope = "QMGR"`` is MQPMO_SCOPE_QMGR, ``"ALL"``
  means no such option (the topic's PUBSCOPE decides).
- ``subscribe = {qmgr, name, topic, scheme? = "topic" | "char", scope? = "ALL" | "QMGR",
  group?, dest?, new_only? = false, durable? = false, topicobj?}`` — ``durable`` defaults to
  the MQI's default, MQSO_NON_DURABLE; ``new_only`` is MQSO_NEW_PUBLICATIONS_ONLY; ``scope``
  left out is no scope option (the topic's SUBSCOPE decides), ``"ALL"``/``"QMGR"`` are
  MQSO_SCOPE_ALL/MQSO_SCOPE_QMGR, which override SUBSCOPE (002 §Subscription scope).
- ``unsubscribe = {qmgr, name}``
- ``republish = {qmgr, subscription, action = "NEW" | "FORWARD", topic?}`` — an application
  that gets the publications of ``subscription`` and publishes them again (under ``topic``
  when given, else under the topic received; an explicit ``topic = ""`` is an error).
- ``open = {qmgr, handle, queue, target_qmgr? = "", bind? = "AS_Q_DEF" | "ON_OPEN" |
  "NOT_FIXED" | "ON_GROUP"}``
- ``put = {handle, count? = 1, group?}``; ``close = {handle}``
- ``channel = {qmgr, to, status}`` with status one of :data:`CHANNEL_STATUSES`
- ``qmgr = {name, action = "stop" | "start" | "delete" | "recreate"}``
- ``advance = {days}``
- ``wait = {until = "settled"}`` — the next step waits until nothing is in flight to a
  running queue manager (:class:`WaitStep`)
- uniform clusters (issue #19): ``connect``, ``disconnect``, ``join_uniform``, the top-level
  ``ccdt`` key, ``[qmgrs.NAME] uniform_cluster`` and ``[[expect]] apstatus`` are described in
  :mod:`spec.uniform_scenario`.

``[[expect]]`` (checked after the last step, once the network is quiescent) holds any of:

- ``deliveries = {QM = {SUB = [topic, ...]}}`` — each listed subscription received exactly
  these publications, compared as multisets (duplicates count, order does not); ``[]``
  asserts it received none; subscriptions not listed are not checked.
- ``messages = {handle = {QM = count}}`` — the messages put through ``handle`` arrived
  exactly so: listed queue managers got ``count``, the others none.
- ``errors = [{qmgr, code}, ...]`` — each of these error codes was logged at least once.
- ``no_errors = true`` — no error at all was logged (not together with ``errors``).
- ``absent_errors = [{qmgr, code}, ...]`` — none of these error codes was logged at that
  queue manager (what a broken rule predicts, e.g. no LOOP_DETECTED: issue #13).
- ``repositories = {QM = {CLUSTER = {qmgrs = [...], queues = {Q = [QM, ...]}, topics =
  [...]}}}`` — what QM's repository holds for CLUSTER; each part given is compared as a
  set, parts left out are not checked (``qmgrs`` entries may be SYSTEM.TEMPQMGR names).

``[check]`` — defaults for ``mqcheck check`` (command-line flags win): ``faults`` (the
fault budget as ``--faults N`` gives it: a count of 0 or more, or true for 1 and false for
0; default 0: also explore up to N channel and queue-manager faults), ``max_states`` and
``max_depth`` (positive integers; default: unbounded), ``explore_initial`` (bool, default
false: ``check`` starts from the settled initial configuration, as ``run`` does; true also
explores every interleaving of the initial queue managers joining their clusters).

Names: queue manager names and MQ object names (queues, topic objects, subscriptions) fold
to upper case, as unquoted names in MQSC do (DESIGN §2.2), and must be 1-48 characters
from ``A-Z a-z 0-9 . / _ %``; two names that fold to the same one are duplicates. Handles
and group names are the scenario's own identifiers and are case-sensitive. Topic strings
keep their case. Keyword values (``bind``, ``status``, ``scope``, ``action``, ``scheme``)
are case-insensitive. ``steps[0]`` is the first ``[[steps]]`` block.

Checked at load time, in step order: every ``qmgr``/``to``/``name`` of a step names a
declared queue manager (``target_qmgr`` may name any queue manager, an alias included, so it
is not checked); a channel goes to another queue manager; handles are opened once per
scenario (a handle names one set of messages in ``messages``), and ``put``/``close`` need
an open handle; ``unsubscribe``/``republish`` need a live subscription at that queue
manager, made by an earlier ``subscribe`` or by ``DEFINE SUB`` in its MQSC or an ``mqsc``
step (``DELETE SUB`` removes it); ``subscribe`` may not reuse a live name; ``count`` is 1 to
:data:`MAX_COUNT`, ``days`` 1 to :data:`MAX_DAYS`; topic strings are valid
(``spec.topics``; ``scheme = "char"`` checks ``%`` escapes too); all MQSC is parsed with
``spec.mqsc`` and its errors point into the scenario file (inline ``mqsc``) or the
``.mqsc`` file; ``[[expect]]`` names declared queue managers, subscriptions that existed at
some point and opened handles; error codes look like ``LOOP_DETECTED``. An MQSC name
quoted in lower case (``DEFINE SUB('s1')``) keeps its case and so cannot be referred to
from the scenario, whose names fold to upper case.

Positions: tomllib reports positions only for syntax errors. For every other error the key
path is mapped back to the text (best effort) by :class:`_Locator`: it blanks out comments
and string contents, splits the text into sections at table headers (the Nth
``[[steps]]`` header is ``steps[N-1]``), then looks for the path's keys in order inside the
section. When it cannot find a key it reports the nearest enclosing one it found; the file
and the key path are always given.
"""

from __future__ import annotations

import difflib
import os.path
import re
import stat
import tomllib
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import date, datetime, time
from typing import Union

from spec.mqsc import Command
from spec.mqsc import line_starts, parse as read_mqsc
from spec.errors import InputError, near_miss
from spec.log_codes import unknown_code
from spec.topics import TopicStringError, compile_subscription, validate_topic_string
from spec.ccdt import Ccdt
from spec.uniform_scenario import (  # issue #19: uniform clusters
    UNIFORM_STEP_KEYS, ConnectStep, DisconnectStep, ExpectedApstatus, JoinUniformStep, UniformParsing, listeners_of,
)
from spec.values import replace, value

__all__ = [
    "Scenario",
    "QmgrSpec",
    "CheckOptions",
    "PytestOptions",
    "LintOptions",
    "MqscStep",
    "PublishStep",
    "SubscribeStep",
    "UnsubscribeStep",
    "RepublishStep",
    "OpenStep",
    "PutStep",
    "CloseStep",
    "ChannelStep",
    "QmgrStep",
    "AdvanceStep", "WaitStep",
    "Step",
    "Expect",
    "ExpectedDeliveries",
    "ExpectedMessages",
    "ExpectedError",
    "ExpectedRepository",
    "STEP_KINDS",
    "CHANNEL_STATUSES",
    "MAX_COUNT",
    "MAX_DAYS",
    "load_scenario",
    "parse_scenario",
]

MAX_COUNT = 1000  # publish/put count: keeps explored state spaces finite and small
MAX_DAYS = 3650  # advance: ten years of the abstract clock is plenty (expiry is 90 days)
BINDS = ("AS_Q_DEF", "ON_OPEN", "NOT_FIXED", "ON_GROUP")  # DESIGN §3.6
SCOPES = ("ALL", "QMGR")
ACTIONS = ("NEW", "FORWARD")  # MQACTP_NEW / MQACTP_FORWARD, 002 §How loop detection works
SCHEMES = ("topic", "char")
QMGR_ACTIONS = ("stop", "start", "delete", "recreate")
# DESIGN §3.5's status classes (001 rules 8-11), best first
CHANNEL_STATUSES = (
    "INACTIVE", "RUNNING", "BINDING", "INITIALIZING", "STARTING", "STOPPING",
    "RETRYING", "REQUESTING", "PAUSED", "STOPPED", "SWITCHING",
)
TEMPQMGR = "SYSTEM.TEMPQMGR"  # a repository's placeholder for an FR not heard from yet (000 §Initial definitions)
_MQ_NAME = re.compile(r"[A-Za-z0-9._/%]{1,48}")
# a topic object name may also have embedded blanks (spec.mqsc.TOPIC_OBJECT_KINDS: 002's
# Figure 7 defines TOPIC('St. Helens'))
_TOPIC_OBJECT_NAME = re.compile(r"(?=.{1,48}$)[A-Za-z0-9._/%]([A-Za-z0-9._/% ]*[A-Za-z0-9._/%])?")
_ERROR_CODE = re.compile(r"[A-Z][A-Z0-9_]*")

ReadFile = Callable[[str], str]
Path = tuple[Union[str, int], ...]


# ---------------------------------------------------------------------------------------
# Data model
# ---------------------------------------------------------------------------------------

@value
class CheckOptions:
    """``[check]``: defaults for ``mqcheck check``; ``None`` = not set (unbounded)."""

    faults: int = 0  # the fault budget (``--faults N``); true in the file is 1, false 0
    max_states: int | None = None
    max_depth: int | None = None
    explore_initial: bool = False  # explore the joining of the initial configuration too


@value
class PytestOptions:
    """``[pytest]``: how the pytest plugin (checker/pytest_plugin.py) runs this file.

    ``marks``: pytest mark names put on every item; ``xfail``/``skip``: (item, reason)
    pairs, item ``""`` = every item of the file, else ``run`` or a property id;
    ``check``: explore and make one item per property (default true); ``properties``:
    the property ids to make items for (``None``: every non-``sometimes`` property);
    ``backend``, ``max_states``, ``max_depth``, ``timeout``: as ``mqcheck check``'s options
    (``None``: the ``[check]`` table's or unbounded); ``accept_incomplete``: an exploration
    stopped by a bound passes instead of failing. Property ids are checked by the plugin
    (spec does not know the catalogue); ``line`` is the table's line, ``places`` (key, line,
    column) the positions of ``timeout`` and of each ``xfail``/``skip`` item (``xfail.ITEM``)
    and property (``properties.N``), for the plugin's messages (:meth:`at`).
    """

    marks: tuple[str, ...] = ()
    xfail: tuple[tuple[str, str], ...] = ()
    skip: tuple[tuple[str, str], ...] = ()
    check: bool = True
    properties: tuple[str, ...] | None = None
    backend: str = "local"
    max_states: int | None = None
    max_depth: int | None = None
    timeout: float | None = None
    accept_incomplete: bool = False
    line: int = 0
    places: tuple[tuple[str, int, int], ...] = ()

    def at(self, key: str) -> tuple[int, int]:
        """(line, column) of ``key`` in the table, else of the table's header."""
        return next(((line, column) for k, line, column in self.places if k == key), (self.line, 1))


@value
class LintOptions:
    """``[lint]``: ``disable = { RULE = "reason" }`` turns lint rules off for this file, each
    with the reason a reviewer reads; (rule, reason, line, column) with the key's position
    (rule ids are checked by ``mqcheck lint``, which knows them)."""

    disable: tuple[tuple[str, str, int, int], ...] = ()


@value
class QmgrSpec:
    """A queue manager: its initial MQSC text, parsed, and where that text lives.

    ``source`` is the file the MQSC came from (the scenario file or its ``mqsc_file``);
    ``line`` is the line of the ``[qmgrs.NAME]`` header in the scenario file.
    """

    name: str
    mqsc: str
    commands: tuple[Command, ...]
    source: str
    line: int
    uniform_cluster: str = ""  # issue #19: qm.ini TuningParameters UniformClusterName (004)


@value
class MqscStep:
    index: int
    line: int
    qmgr: str
    text: str
    commands: tuple[Command, ...]


@value
class PublishStep:
    index: int
    line: int
    qmgr: str
    topic: str  # "" when only topicobj is given
    retain: bool = False
    scope: str = "ALL"  # "QMGR" = MQPMO_SCOPE_QMGR
    action: str = "NEW"
    topicobj: str = ""
    count: int = 1


@value
class SubscribeStep:
    index: int
    line: int
    qmgr: str
    name: str
    topic: str  # "" when only topicobj is given
    scheme: str = "topic"
    scope: str = ""  # "" = no option (the topic's SUBSCOPE decides); "ALL"/"QMGR" = MQSO_SCOPE_ALL/_QMGR
    group: str = ""
    dest: str = ""
    new_only: bool = False
    durable: bool = False
    topicobj: str = ""


@value
class UnsubscribeStep:
    index: int
    line: int
    qmgr: str
    name: str


@value
class RepublishStep:
    index: int
    line: int
    qmgr: str
    subscription: str
    action: str
    topic: str = ""  # "" = the topic each publication arrived with


@value
class OpenStep:
    index: int
    line: int
    qmgr: str
    handle: str
    queue: str
    target_qmgr: str = ""
    bind: str = "AS_Q_DEF"


@value
class PutStep:
    index: int
    line: int
    handle: str
    count: int = 1
    group: str = ""


@value
class CloseStep:
    index: int
    line: int
    handle: str


@value
class ChannelStep:
    index: int
    line: int
    qmgr: str
    to: str
    status: str
    name: str = ""  # one route: the sender channel's name ("" every route from qmgr to to)


@value
class QmgrStep:
    index: int
    line: int
    name: str
    action: str


@value
class AdvanceStep:
    index: int
    line: int
    days: int


@value
class WaitStep:
    """``wait = { until = "settled" }``: the next step waits until nothing is in flight to a
    running queue manager, as an administrator waits (checking DISPLAY CLUSQMGR) before the
    next step of a procedure. ``run`` settles before every step anyway; in ``check`` the step
    is taken only in settled states."""

    index: int
    line: int
    until: str = "settled"


Step = Union[
    MqscStep, PublishStep, SubscribeStep, UnsubscribeStep, RepublishStep, OpenStep,
    PutStep, CloseStep, ChannelStep, QmgrStep, AdvanceStep, WaitStep,
    ConnectStep, DisconnectStep, JoinUniformStep,
]


@value
class ExpectedDeliveries:
    """Subscription ``subscription`` at ``qmgr`` received exactly ``topics`` (a multiset,
    kept sorted so equal multisets are equal tuples)."""

    qmgr: str
    subscription: str
    topics: tuple[str, ...]


@value
class ExpectedMessages:
    """The messages put through ``handle`` arrived ``counts`` (qmgr, count), sorted by
    queue manager; queue managers not listed received none."""

    handle: str
    counts: tuple[tuple[str, int], ...]


@value
class ExpectedError:
    qmgr: str
    code: str


@value
class ExpectedRepository:
    """What ``qmgr``'s repository holds for ``cluster``; ``None`` = not checked."""

    qmgr: str
    cluster: str
    qmgrs: frozenset[str] | None = None
    queues: tuple[tuple[str, frozenset[str]], ...] | None = None  # sorted by queue name
    topics: frozenset[str] | None = None


@value
class Expect:
    index: int
    line: int
    deliveries: tuple[ExpectedDeliveries, ...] = ()
    messages: tuple[ExpectedMessages, ...] = ()
    errors: tuple[ExpectedError, ...] = ()
    no_errors: bool = False
    repositories: tuple[ExpectedRepository, ...] = ()
    absent_errors: tuple[ExpectedError, ...] = ()  # issue #13: codes that must not be logged
    apstatus: tuple[ExpectedApstatus, ...] = ()  # issue #19


@value
class ProveClaim:
    """``[[prove]]`` (issue #13, ``mqcheck prove SCENARIO``): a claim over every publication
    at ``publishers`` on a topic matching ``topic`` and every subscription of kind
    ``subscription`` (any, wildcard, exact) at ``subscribers``; ``pulled``: other
    subscriptions there may pull publications over; ``expect``: never | possible."""

    index: int
    line: int
    name: str
    publishers: tuple[str, ...]
    subscribers: tuple[str, ...]
    topic: str = "#"
    subscription: str = "any"
    pulled: bool = True
    expect: str = "never"


@value
class Scenario:
    name: str
    description: str
    file: str
    qmgrs: tuple[QmgrSpec, ...]
    steps: tuple[Step, ...]
    expects: tuple[Expect, ...]
    check: CheckOptions = CheckOptions()
    pytest: PytestOptions = PytestOptions()
    lint: LintOptions = LintOptions()
    ccdt: Ccdt | None = None  # issue #19: the JSON CCDT client applications use
    proves: tuple[ProveClaim, ...] = ()  # issue #13: [[prove]] claims
    # the files it was read from (load_scenario): the scenario file, then each mqsc_file and
    # ccdt as read; a command that writes a file refuses to write over one of them
    files: tuple[str, ...] = ()


STEP_KINDS = (
    "mqsc", "publish", "subscribe", "unsubscribe", "republish", "open", "put", "close",
    "channel", "qmgr", "advance", "wait", "connect", "disconnect", "join_uniform",
)


# ---------------------------------------------------------------------------------------
# Entry points
# ---------------------------------------------------------------------------------------

# The largest scenario or MQSC file read: far above any real configuration, and a guard
# against pointing mqsc_file at something endless (/dev/zero, a huge log).
MAX_FILE_BYTES = 16 * 1024 * 1024


def _read_text(path: str) -> str:
    """A regular file's text, UTF-8 with an optional byte-order mark (Windows editors write
    one). Raises ``OSError`` (its ``strerror`` says what is wrong for people) or
    ``UnicodeDecodeError``."""
    if "\0" in path:
        raise OSError(0, "the file name contains a NUL character")
    if not path:   # os.stat("") says only "No such file or directory", and the error had no file to name
        raise OSError(0, "the file name is empty")
    st = os.stat(path)  # before open(): opening a FIFO would block
    if stat.S_ISDIR(st.st_mode):
        raise OSError(0, "it is a directory, not a file")
    if not stat.S_ISREG(st.st_mode):
        raise OSError(0, "not a regular file (a device, pipe or socket)")
    with open(path, "rb") as f:
        raw = f.read(MAX_FILE_BYTES + 1)
    if len(raw) > MAX_FILE_BYTES:
        raise OSError(0, f"larger than {MAX_FILE_BYTES // (1024 * 1024)} MiB; is it the right file?")
    return raw.decode("utf-8-sig")


def utf8_error_position(err: UnicodeDecodeError) -> tuple[int, int]:
    """(line, column), 1-based, of the first byte UTF-8 cannot decode: the column counts the
    characters before it on its line, as an editor shows them.

    >>> try:
    ...     b"ab\\nc\\xe9\\xff".decode("utf-8")
    ... except UnicodeDecodeError as e:
    ...     utf8_error_position(e)
    (2, 2)
    >>> try:
    ...     b"ab\\rc\\r\\nd\\xff".decode("utf-8")
    ... except UnicodeDecodeError as e:
    ...     utf8_error_position(e)
    (3, 2)
    """
    raw = bytes(err.object)
    before = raw[: err.start]
    ends = [m.end() for m in _LINE_END_BYTES.finditer(before)]   # LF, CRLF or a bare CR, as MQSC lines end
    line_start = ends[-1] if ends else 0
    column = len(before[line_start:].decode("utf-8-sig" if line_start == 0 else "utf-8", "replace")) + 1
    return len(ends) + 1, column


_LINE_END_BYTES = re.compile(rb"\r\n|\r|\n")


def utf8_problem(err: UnicodeDecodeError) -> str:
    """What is wrong with a file UTF-8 cannot decode: its first bad byte, or, for a file
    that starts with a UTF-16 byte-order mark (Windows PowerShell 5's ``>`` writes UTF-16),
    that it is UTF-16, which "byte 0xff cannot start a character" did not say.

    >>> utf8_problem(UnicodeDecodeError("utf-8", b"\\xff\\xfeD\\x00", 0, 1, "invalid start byte"))
    'not UTF-8 text: UTF-16 (the file starts with the byte-order mark 0xff 0xfe)'
    """
    raw = bytes(err.object)
    if err.start == 0 and raw[:2] in (b"\xff\xfe", b"\xfe\xff"):
        return f"not UTF-8 text: UTF-16 (the file starts with the byte-order mark 0x{raw[0]:02x} 0x{raw[1]:02x})"
    return f"not UTF-8 text: byte 0x{raw[err.start]:02x} cannot start or continue a character here"


def load_scenario(path: str | os.PathLike) -> Scenario:
    """Read a scenario file and the ``mqsc_file``s it names (the module's only I/O)."""
    path = os.fspath(path)
    base = os.path.dirname(path)
    try:
        text = _read_text(path)
    except OSError as e:
        raise InputError(f"cannot read the scenario file: {e.strerror or e}", file=path or "<command line>") from None
    except UnicodeDecodeError as e:
        line, column = utf8_error_position(e)
        raise InputError(utf8_problem(e), file=path, line=line, column=column,
                         suggestion="TOML files are UTF-8; save the file as UTF-8") from None

    read: list[str] = [path]

    def read_file(name: str) -> str:
        read.append(os.path.join(base, name))
        return _read_text(read[-1])

    scenario = parse_scenario(text, file=path, read_file=read_file)
    return replace(scenario, files=tuple(dict.fromkeys(read)))


def parse_scenario(text: str, file: str = "<scenario>", read_file: ReadFile | None = None) -> Scenario:
    """Parse and validate scenario ``text``; ``file`` names it in errors.

    ``read_file(name)`` returns the text of an ``mqsc_file`` (``name`` as written, relative
    to ``file``) or raises ``OSError``/``UnicodeDecodeError``; without it, ``mqsc_file`` is
    an error. Raises :class:`InputError` for every problem.

    >>> s = parse_scenario('''
    ... [qmgrs.qma]
    ... [[steps]]
    ... publish = { qmgr = "QMA", topic = "Sports/Rugby" }
    ... ''', file="s.toml")
    >>> s.name, [q.name for q in s.qmgrs], s.steps[0]
    ('s', ['QMA'], PublishStep(index=0, line=4, qmgr='QMA', topic='Sports/Rugby', retain=False, scope='ALL', action='NEW', topicobj='', count=1))
    >>> parse_scenario('[qmgrs.QMA]\\n[[steps]]\\nput = { handle = "h1" }', file="s.toml")
    Traceback (most recent call last):
    ...
    spec.errors.InputError: s.toml:3:9: steps[0].put.handle: unknown handle 'h1' (open it first with an open step)
    """
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise _toml_error(str(e), text, file) from None
    except ValueError as e:  # tomllib lets int()'s digit limit through
        line, column = _long_number_position(text)
        what = "a number with more digits than mqcheck reads (4300 at most)" if "digits" in str(e) else str(e)
        raise InputError(f"invalid TOML: {what}", file=file, line=line, column=column) from None
    except RecursionError:
        line, column = _deepest_nesting_position(text)
        raise InputError(f"invalid TOML: arrays and inline tables nested too deeply (more than "
                         f"{MAX_NESTING} levels here)", file=file, line=line, column=column) from None
    return _Parser(text, file, read_file).scenario(doc)


MAX_NESTING = 100  # where a nesting error is reported; tomllib's own limit is the recursion limit


def _deepest_nesting_position(text: str) -> tuple[int, int]:
    """Where arrays/inline tables first nest more than :data:`MAX_NESTING` deep (else where
    they nest deepest), outside strings and comments."""
    masked, _ = _scan(text)
    depth, deepest, at = 0, 0, 0
    for i, c in enumerate(masked):
        if c in "[{":
            depth += 1
            if depth > deepest:
                deepest, at = depth, i
            if depth > MAX_NESTING:
                break
        elif c in "]}":
            depth -= 1
    return _Locator(text).position(at)


def _long_number_position(text: str) -> tuple[int, int]:
    """Where the first number too long for Python's int() (4300 digits) starts."""
    masked, _ = _scan(text)
    m = re.search(r"[0-9][0-9_]{4299,}", masked)
    return _Locator(text).position(m.start()) if m else (0, 0)


_TOML_AT = re.compile(r"\s*\(at line (\d+), column (\d+)\)$")
_TOML_AT_END = re.compile(r"\s*\(at end of document\)$")


def _toml_error(message: str, text: str, file: str) -> InputError:
    """tomllib's message with its '(at line L, column C)' turned into our position."""
    line = column = 0
    m = _TOML_AT.search(message)
    if m:
        line, column = int(m.group(1)), int(m.group(2))
        message = message[: m.start()]
    elif _TOML_AT_END.search(message):
        message = message[: _TOML_AT_END.search(message).start()]
        line, column, message = _end_of_document_error(message, text)
    lines = text.split("\n")
    if 0 < line <= len(lines) and "\r" in lines[line - 1].removesuffix("\r"):
        # TOML ends lines at LF or CRLF only; MQSC files may end them with a bare CR too
        return InputError(f"invalid TOML: {message}", file=file, line=line, column=column,
                          suggestion="this line holds a bare carriage return (CR, as classic Mac OS ends "
                                     "lines), which TOML does not allow: end the lines with LF or CRLF")
    return InputError(f"invalid TOML: {message}", file=file, line=line, column=column,
                      suggestion="see https://toml.io for the syntax")


def _end_of_document_error(message: str, text: str) -> tuple[int, int, str]:
    """tomllib says "at end of document" when something opened earlier is never closed:
    point at what was opened (a string's quotes, an array's '[' or an inline table's '{'),
    else just after the last character written."""
    masked, unclosed = _scan(text)
    locator = _Locator(text)
    if unclosed is not None and ("string" in message.lower() or message.startswith("Expected \"")
                                 or message.startswith("Expected '")):
        line, column = locator.position(unclosed)
        return line, column, f"{message}: the string opened here is never closed"
    stack: list[int] = []
    for i, c in enumerate(masked):
        if c in "[{":
            stack.append(i)
        elif c in "]}" and stack:
            stack.pop()
    if stack:
        opener = stack[-1]
        what = "array" if masked[opener] == "[" else "inline table"
        line, column = locator.position(opener)
        if _line_is_header(masked, opener):
            return line, column, f"{message}: the table header opened here is never closed with ']'"
        return line, column, f"{message}: the {what} opened here is never closed"
    end = len(text.rstrip())
    line, column = locator.position(end - 1) if end else (1, 0)
    return line, column + 1, message


def _line_is_header(masked: str, offset: int) -> bool:
    start = masked.rfind("\n", 0, offset) + 1
    return masked[start:offset].strip() == "" or masked[start:offset].strip() == "["


# ---------------------------------------------------------------------------------------
# Locating key paths in the text
# ---------------------------------------------------------------------------------------

def _toml_key(part: str) -> str:
    """``part`` as a TOML key: bare when TOML allows it, else quoted (a dot would nest).

    >>> _toml_key("QM1"), _toml_key("QM1.PROD")
    ('QM1', '"QM1.PROD"')
    """
    return part if re.fullmatch(r"[A-Za-z0-9_-]+", part) else '"' + part.replace('"', '\\"') + '"'


def _render_path(path: Path) -> str:
    """A key path as the user reads it; indexes count from 0, odd keys are quoted.

    >>> _render_path(("steps", 3, "publish", "qmgr")), _render_path(("qmgrs", "QM A"))
    ('steps[3].publish.qmgr', 'qmgrs."QM A"')
    """
    out = ""
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            key = part if re.fullmatch(r"[A-Za-z0-9_-]+", part) else '"' + part.replace('"', '\\"') + '"'
            out += f".{key}" if out else key
    return out


def _mask(text: str) -> str:
    """``text`` with comments and the contents of strings blanked (newlines and string
    delimiters kept), so structural regexes cannot match inside them."""
    return _scan(text)[0]


def _scan(text: str) -> tuple[str, int | None]:
    """:func:`_mask`'s text, and the offset of the first string never closed (or None)."""
    out = list(text)
    i, n = 0, len(text)
    unclosed: int | None = None

    def blank(a: int, b: int) -> None:
        for k in range(a, min(b, n)):
            if out[k] != "\n":
                out[k] = " "

    while i < n:
        c = text[i]
        if c == "#":
            j = text.find("\n", i)
            j = n if j < 0 else j
            blank(i, j)
            i = j
        elif text.startswith("'''", i) or text.startswith('"""', i):
            delim = text[i:i + 3]
            j = i + 3
            while True:
                j = text.find(delim, j)
                if j < 0:
                    j = n
                    unclosed = i if unclosed is None else unclosed
                    break
                if delim == '"""' and _escaped(text, j):
                    j += 1
                    continue
                break
            while text.startswith(delim[0], j + 3) and j + 3 < n:  # up to two extra quotes
                j += 1
            blank(i + 3, j)
            i = j + 3
        elif c in "'\"":
            j = i + 1
            while j < n and text[j] != "\n":
                if text[j] == c and not (c == '"' and _escaped(text, j)):
                    break
                j += 1
            if (j >= n or text[j] == "\n") and unclosed is None:
                unclosed = i
            blank(i + 1, j)
            i = j + 1
        else:
            i += 1
    return "".join(out), unclosed


def _escaped(text: str, j: int) -> bool:
    k = j - 1
    while k >= 0 and text[k] == "\\":
        k -= 1
    return (j - 1 - k) % 2 == 1


_HEADER = re.compile(r"^[ \t]*(\[\[?)([^\]\n]*)\]\]?", re.MULTILINE)
_KEY_PART = re.compile(r"""\s*("(?:[^"\\]|\\.)*"|'[^']*'|[A-Za-z0-9_-]+)\s*(?:\.|$)""")


def _split_key(raw: str) -> tuple[str, ...]:
    return tuple(key for key, _ in _split_key_at(raw))


def _split_key_at(raw: str) -> list[tuple[str, int]]:
    """A dotted key's parts, each with its offset in ``raw``."""
    parts = []
    pos = 0
    while pos < len(raw):
        m = _KEY_PART.match(raw, pos)
        if not m or m.end() == pos:
            break
        key = m.group(1)
        parts.append((key[1:-1] if key[0] in "'\"" else key, m.start(1)))
        pos = m.end()
    return parts


class _Locator:
    """Best-effort mapping from a key path to (line, column) in the TOML text."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.masked = _mask(text)
        self.line_starts = [0] + [m.end() for m in re.finditer("\n", text)]
        self.sections: list[tuple[Path, int, int]] = []  # (path, header offset, body start)
        self.header_keys: list[tuple[tuple[str, ...], tuple[int, ...]]] = []  # each header's keys, offsets
        counts: dict[tuple[str, ...], int] = {}
        self.sections.append(((), 0, 0))
        for m in _HEADER.finditer(self.masked):
            parts = _split_key_at(self.text[m.start(2):m.end(2)])
            keys = tuple(k for k, _ in parts)
            # A header below an array of tables ([expect.repositories.QM.CL] after [[expect]])
            # is in that array's last element: its path has the element's index
            # (expect[0].repositories...), as the errors' paths do (session 36).
            indexed: list = []
            offsets: list[int] = []
            for i, (key, at) in enumerate(parts):
                indexed.append(key)
                offsets.append(m.start(2) + at)
                plain = keys[: i + 1]
                if plain in counts and (m.group(1) == "[" or i < len(parts) - 1):
                    indexed.append(counts[plain] - 1)
                    offsets.append(m.start(2) + at)
            self.header_keys.append((tuple(indexed), tuple(offsets)))
            if m.group(1) == "[[":
                index = counts.get(keys, 0)
                counts[keys] = index + 1
                self.sections.append((tuple(indexed) + (index,), m.start(1), m.end()))
            else:
                self.sections.append((tuple(indexed), m.start(1), m.end()))
        self.ends = [s[1] for s in self.sections[1:]] + [len(text)]

    def position(self, offset: int) -> tuple[int, int]:
        lo, hi = 0, len(self.line_starts) - 1
        while lo < hi:  # last line start <= offset
            mid = (lo + hi + 1) // 2
            if self.line_starts[mid] <= offset:
                lo = mid
            else:
                hi = mid - 1
        return lo + 1, offset - self.line_starts[lo] + 1

    def offset(self, path: Path) -> int | None:
        """Offset of the last key of ``path`` found, or ``None`` for nothing found."""
        best, best_len = 0, -1
        for k, (spath, _, _) in enumerate(self.sections):
            if len(spath) > best_len and path[: len(spath)] == spath:
                best, best_len = k, len(spath)
        spath, header, pos = self.sections[best]
        end = self.ends[best]
        if len(path) > len(spath):
            named = self._in_header(path)  # [a.b.c] defines a and a.b without a header of their own
            if named is not None:
                return named
        found = header if spath else None
        for part in path[len(spath):]:
            if isinstance(part, int):
                hit = self._nth_element(part, pos, end) if found is not None else None
            else:
                hit = self._find_key(part, pos, end)
            if hit is None:
                break
            found, pos = hit, hit + (0 if isinstance(part, int) else len(part))
        return found

    def _in_header(self, path: Path) -> int | None:
        """The offset of ``path``'s last key in the first table header whose dotted key
        starts with ``path`` (``[a.a.a]`` writes ``a`` and ``a.a``), or None."""
        for keys, offsets in self.header_keys:
            if len(keys) >= len(path) and keys[: len(path)] == path:
                return offsets[len(path) - 1]
        return None

    def _nth_element(self, n: int, start: int, end: int) -> int | None:
        """Offset of element ``n`` of the inline array that is the value of the key at
        ``start`` (``key = [a, b, ...]``)."""
        i = self.masked.find("=", start, end)
        while 0 <= i < end and self.masked[i] in "= \t\r\n":
            i += 1
        if i < 0 or i >= end or self.masked[i] != "[":
            return None
        depth, index, expecting = 0, -1, False
        for j in range(i, end):
            c = self.masked[j]
            if depth == 1 and expecting and c not in " \t\r\n,]":
                index, expecting = index + 1, False
                if index == n:
                    return j
            if c in "[{":
                depth += 1
                expecting = expecting or (depth == 1)
            elif c in "]}":
                depth -= 1
                if depth == 0:
                    return None
            elif c == "," and depth == 1:
                expecting = True
        return None

    def _find_key(self, key: str, start: int, end: int) -> int | None:
        bare = re.compile(r"(?<![A-Za-z0-9_\-])" + re.escape(key) + r"(?![A-Za-z0-9_\-])\s*[=.]")
        m = bare.search(self.masked, start, end)
        hits = [m.start()] if m else []
        for q in "\"'":
            quoted = re.compile(re.escape(q + key + q) + r"\s*[=.]")
            for m in quoted.finditer(self.text, start, end):
                if self.masked[m.start()] == q and self.masked[m.start() + 1: m.start() + 1 + len(key)].strip() == "":
                    hits.append(m.start())
                    break
        return min(hits) if hits else None

    def locate(self, path: Path) -> tuple[int, int]:
        """(line, column) of ``path`` or of the nearest enclosing key written; a path
        nothing of which is written (a missing top-level key) is the document: 1:1."""
        off = self.offset(path)
        return (1, 1) if off is None else self.position(off)

    def string_locator(self, path: Path, value: str) -> Callable[[int, int], tuple[int, int]] | None:
        """For the string ``value`` at ``path``: a function mapping a (line, column) inside
        the string to the (line, column) in the TOML file where that character is written
        (escapes such as ``\\n`` and line-ending backslashes included), or None if the
        string's source cannot be found."""
        off = self.offset(path)
        if off is None:
            return None
        eq = self.masked.find("=", off)
        p = eq + 1
        while p < len(self.text) and self.text[p] in " \t":
            p += 1
        sources = _string_sources(self.text, p, value)
        if sources is None:
            return None
        starts = line_starts(value)   # lines as the MQSC reader counts them (a bare CR ends one)

        def locate(line: int, column: int) -> tuple[int, int]:
            index = starts[min(line, len(starts)) - 1] + max(column, 1) - 1
            if index < len(sources):
                return self.position(sources[index])
            return self.position(sources[-1] + 1) if sources else self.position(p)

        return locate


_TOML_ESCAPES = {"b": "\b", "t": "\t", "n": "\n", "f": "\f", "r": "\r", '"': '"', "\\": "\\", "e": "\x1b"}


def _string_sources(text: str, p: int, value: str) -> list[int] | None:
    """The offset in ``text`` of each character of the TOML string ``value`` whose literal
    starts at ``p``; None if the source does not decode to ``value`` (then nobody can say
    where a character came from)."""
    for delim in ('"""', "'''", '"', "'"):
        if text.startswith(delim, p):
            break
    else:
        return None
    i = p + len(delim)
    multi, basic = len(delim) == 3, delim[0] == '"'
    if multi and text.startswith("\r\n", i):  # the newline right after the delimiter is trimmed
        i += 2
    elif multi and text.startswith("\n", i):
        i += 1
    out: list[int] = []
    while len(out) < len(value) and i < len(text):
        ch = text[i]
        if basic and ch == "\\":
            nxt = text[i + 1:i + 2]
            if nxt in _TOML_ESCAPES:
                out.append(i)
                i += 2
            elif nxt in ("u", "U"):
                out.append(i)
                i += 6 if nxt == "u" else 10
            elif multi:  # a line-ending backslash: whitespace and newlines up to the next text go
                i += 1
                while i < len(text) and text[i] in " \t\r\n":
                    i += 1
            else:
                return None
        elif multi and text.startswith("\r\n", i):
            out.append(i)
            i += 2
        else:
            out.append(i)
            i += 1
    if len(out) != len(value):
        return None
    return out


# ---------------------------------------------------------------------------------------
# Validation
# ---------------------------------------------------------------------------------------

def _type_name(value: object) -> str:
    if isinstance(value, bool):
        return "a boolean"
    for t, name in ((int, "an integer"), (float, "a float"), (str, "a string"), (list, "an array"),
                    (dict, "a table"), (datetime, "a date-time"), (date, "a date"), (time, "a time")):
        if isinstance(value, t):
            return name
    return type(value).__name__  # pragma: no cover - tomllib produces only the above


def _show(value: object) -> str:
    """A short repr for messages: long strings are cut and say how long they were."""
    if isinstance(value, str) and len(value) > 40:
        return f"{value[:30]!r}... ({len(value)} characters)"
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _suggest_key(word: str, choices: Sequence[str]) -> str:
    lower = {c.lower(): c for c in choices}
    close = difflib.get_close_matches(word.lower(), sorted(lower), n=1, cutoff=0.6)
    return f"did you mean '{lower[close[0]]}'?" if close else ""


class _Parser(UniformParsing):
    """Validates a parsed TOML document into a :class:`Scenario` (one use, not shared)."""

    def __init__(self, text: str, file: str, read_file: ReadFile | None) -> None:
        self.text = text
        self.file = file
        self.read_file = read_file
        self._locator: _Locator | None = None
        self.qmgr_names: tuple[str, ...] = ()
        self.handles: dict[str, tuple[int, int | None]] = {}  # handle -> (opened at, closed at)
        self.live_subs: dict[str, dict[str, str]] = {}  # qmgr -> sub name -> where made
        self.known_subs: dict[str, set[str]] = {}  # qmgr -> every sub name ever seen
        self.uniform_start()

    # -- errors ----------------------------------------------------------------------

    @property
    def locator(self) -> _Locator:
        if self._locator is None:
            self._locator = _Locator(self.text)
        return self._locator

    def error(self, path: Path, what: str, suggestion: str = "", at: Path | None = None) -> InputError:
        line, column = self.locator.locate(path if at is None else at)
        where = _render_path(path)
        return InputError(f"{where}: {what}" if where else what, file=self.file, line=line,
                          column=column, suggestion=suggestion)

    def line_of(self, path: Path) -> int:
        return self.locator.locate(path)[0]

    # -- typed getters ---------------------------------------------------------------

    def table(self, value: object, path: Path, example: str = "") -> dict:
        if not isinstance(value, dict):
            hint = f"write it as {example}" if example else ""
            raise self.error(path, f"expected a table, got {_type_name(value)} ({_show(value)})", hint)
        return value

    def keys(self, table: Mapping, path: Path, allowed: Sequence[str], required: Sequence[str] = (),
             named: str = "") -> None:
        """``named``: the kind of MQ name ``path[-1]`` is (a table keyed by a queue manager or
        cluster name), whose own dots TOML reads as nested tables when it is not quoted."""
        for key in table:
            if key not in allowed and named and isinstance(table[key], dict) and not _suggest_key(key, allowed):
                raise self.dotted_name(table, path, key, allowed, named)
            if key not in allowed:
                raise self.error(path + (key,), f"unknown key; expected one of {', '.join(allowed)}",
                                 _suggest_key(key, allowed))
        for key in required:
            if key not in table:
                raise self.error(path + (key,), "required key is missing", at=path)

    def dotted_name(self, table: Mapping, path: Path, key: str, allowed: Sequence[str], named: str) -> InputError:
        """``[qmgrs.QM1.PROD]``: MQ names may contain dots, but an unquoted dot in a TOML key
        makes a nested table, so the scenario got a queue manager QM1 with an unknown key
        PROD (session 36). Say so, with the quoted header."""
        parts = [str(path[-1]), key]
        sub = table[key]
        while isinstance(sub, dict) and len(sub) == 1:
            (inner, value), = sub.items()
            if inner in allowed or not isinstance(value, dict):
                break
            parts.append(inner)
            sub = value
        full = ".".join(parts)
        header = ".".join(_toml_key(p) for p in path[:-1] if isinstance(p, str)) + f'."{full}"'
        return self.error(path + (key,), f"{named} name {full} has dots, and TOML reads each unquoted dot in a "
                          f"table name as a nested table", f"quote the name: [{header}]", at=path)

    def string(self, table: Mapping, key: str, path: Path, default: str | None = None) -> str:
        if key not in table:
            if default is None:
                raise self.error(path + (key,), "required key is missing", at=path)
            return default
        value = table[key]
        if not isinstance(value, str):
            raise self.error(path + (key,), f"expected a string, got {_type_name(value)} ({_show(value)})")
        return value

    def boolean(self, table: Mapping, key: str, path: Path, default: bool = False) -> bool:
        value = table.get(key, default)
        if not isinstance(value, bool):
            raise self.error(path + (key,), f"expected true or false, got {_type_name(value)} ({_show(value)})")
        return value

    def integer(self, value: object, path: Path, lo: int, hi: int | None) -> int:
        if not isinstance(value, int) or isinstance(value, bool):
            raise self.error(path, f"expected an integer, got {_type_name(value)} ({_show(value)})")
        if value < lo or (hi is not None and value > hi):
            span = f"from {lo} to {hi}" if hi is not None else f"of at least {lo}"
            raise self.error(path, f"expected an integer {span}, got {_show(value)}")
        return value

    def keyword(self, table: Mapping, key: str, path: Path, choices: Sequence[str], default: str | None) -> str:
        value = self.string(table, key, path, default)
        for choice in choices:
            if value.lower() == choice.lower():
                return choice
        hint = near_miss(value, choices)
        if hint and choices[0].islower():
            hint = hint.lower()
        raise self.error(path + (key,), f"expected one of {', '.join(choices)}, got {_show(value)}", hint)

    def mq_name(self, value: str, path: Path, what: str) -> str:
        if not _MQ_NAME.fullmatch(value):
            raise self.error(path, f"invalid {what} name {_show(value)}: expected 1 to 48 characters "
                                   "from A-Z a-z 0-9 . / _ %")
        return value.upper()

    def qmgr_ref(self, table: Mapping, key: str, path: Path) -> str:
        name = self.mq_name(self.string(table, key, path), path + (key,), "queue manager")
        if name not in self.qmgr_names:
            raise self.error(path + (key,), f"unknown queue manager {name}; expected one of "
                             f"{', '.join(self.qmgr_names)}", self.declare_hint(name))
        return name

    def declare_hint(self, name: str) -> str:
        return near_miss(name, self.qmgr_names) or f"declare it with a [qmgrs.{_toml_key(name)}] table"

    def topic(self, table: Mapping, key: str, path: Path, scheme: str | None = None, required: bool = True,
              absent: str = "") -> str:
        """The topic string at ``key``. ``required=False``: the key may be left out (``""``).
        ``absent``: what leaving it out means, for keys where an explicit ``""`` is a mistake
        rather than 002's empty ObjectString (a claim's topic, a republished topic): the
        empty string is then refused with that as the hint."""
        if key not in table:
            if required:
                raise self.error(path + (key,), "required key is missing", "or give topicobj", at=path)
            return ""
        value = self.string(table, key, path)
        if not value and not required and not absent:  # 002 §Constructing topic names: an empty
            return ""                   # ObjectString is "not present"; the object's TOPICSTR alone is used
        try:
            if scheme is None:
                validate_topic_string(value)
            else:
                compile_subscription(value, scheme)
        except TopicStringError as e:
            raise self.error(path + (key,), f"invalid topic string: {e.message}",
                             e.suggestion or (absent if not value else "")) from None
        return value

    def handle(self, table: Mapping, path: Path) -> str:
        value = self.string(table, "handle", path)
        if not value:
            raise self.error(path + ("handle",), "expected a non-empty handle name")
        return value

    # -- the document ----------------------------------------------------------------

    def scenario(self, doc: dict) -> Scenario:
        self.keys(doc, (), ("name", "description", "qmgrs", "steps", "expect", "check", "pytest", "lint", "ccdt", "prove"))
        if not doc:   # an empty file, or comments only: say so rather than name one missing key
            raise self.error((), "the scenario file is empty (no table or key)",
                             "a scenario has a [qmgrs.NAME] table for each queue manager and [[steps]]; "
                             "see README, \"Scenario files\"")
        if "qmgrs" not in doc:
            raise self.error(("qmgrs",), "required key is missing",
                             "add a [qmgrs.NAME] table for each queue manager")
        default_name = os.path.splitext(os.path.basename(self.file))[0]
        name = self.string(doc, "name", (), default_name)
        description = self.string(doc, "description", (), "")
        qmgrs = self.qmgrs(doc["qmgrs"])
        ccdt = self.read_ccdt(doc)
        steps = tuple(self.step(s, i) for i, s in enumerate(self.array(doc, "steps")))
        self.check_ccdt_uses(listeners_of(_step_commands(qmgrs, steps)))
        expects = tuple(self.expect(e, i) for i, e in enumerate(self.array(doc, "expect")))
        check = self.check(doc.get("check", {}))
        proves = tuple(self.prove_claim(p, i) for i, p in enumerate(self.array(doc, "prove")))
        return Scenario(name, description, self.file, qmgrs, steps, expects, check,
                        self.pytest_options(doc["pytest"]) if "pytest" in doc else PytestOptions(),
                        self.lint_options(doc.get("lint", {})), ccdt, proves)

    def array(self, doc: dict, key: str) -> list:
        value = doc.get(key, [])
        if not isinstance(value, list):
            raise self.error((key,), f"expected an array of tables ([[{key}]] blocks), got {_type_name(value)}")
        return value

    def qmgrs(self, value: object) -> tuple[QmgrSpec, ...]:
        table = self.table(value, ("qmgrs",), "[qmgrs.NAME] tables")
        if not table:
            raise self.error(("qmgrs",), "expected at least one queue manager, as a [qmgrs.NAME] table")
        seen: dict[str, str] = {}
        for raw in table:
            name = self.mq_name(raw, ("qmgrs", raw), "queue manager")
            if name in seen:
                raise self.error(("qmgrs", raw), f"duplicate queue manager {name} (names fold to upper "
                                 f"case; qmgrs.{seen[name]} declares it too)")
            seen[name] = raw
        self.qmgr_names = tuple(seen)
        return tuple(self.qmgr(raw, name, table[raw]) for name, raw in seen.items())

    def qmgr(self, raw: str, name: str, value: object) -> QmgrSpec:
        path: Path = ("qmgrs", raw)
        table = self.table(value, path, "[qmgrs.NAME] with mqsc = '''...''' or mqsc_file = \"x.mqsc\"")
        self.keys(table, path, ("mqsc", "mqsc_file", "uniform_cluster"), named="queue manager")
        if "mqsc" in table and "mqsc_file" in table:
            raise self.error(path, "give mqsc or mqsc_file, not both")
        line = self.line_of(path)
        self.live_subs[name] = {}
        self.known_subs[name] = set()
        if "mqsc_file" in table:
            text, source = self.mqsc_file(table, path)
            commands = self.parse_mqsc(text, path + ("mqsc_file",), source, None)
        else:
            text, source = self.string(table, "mqsc", path, ""), self.file
            locate = self.locator.string_locator(path + ("mqsc",), text) if text else None
            commands = self.parse_mqsc(text, path + ("mqsc",), source, locate)
        self.note_mqsc_subs(name, commands, f"the MQSC of {name}")
        return QmgrSpec(name, text, commands, source, line, self.qmgr_uniform_cluster(table, path, name))

    def mqsc_file(self, table: Mapping, path: Path) -> tuple[str, str]:
        name = self.string(table, "mqsc_file", path)
        base = os.path.dirname(self.file) if not self.file.startswith("<") else ""
        shown = os.path.join(base, name) if base else name
        if self.read_file is None:
            raise self.error(path + ("mqsc_file",), f"cannot read {shown!r}: no file reader was given "
                             "(use load_scenario to read scenario files)")
        if not name:
            raise self.error(path + ("mqsc_file",), "expected a file name, got an empty string")
        try:
            return self.read_file(name), shown
        except FileNotFoundError:
            raise self.error(path + ("mqsc_file",), f"file not found: {shown}",
                             "mqsc_file is relative to the scenario file") from None
        except UnicodeDecodeError as e:
            line, column = utf8_error_position(e)
            raise InputError(f"{utf8_problem(e)} (read as {_render_path(path + ('mqsc_file',))} of {self.file})",
                             file=shown, line=line, column=column,
                             suggestion="MQSC files are read as UTF-8; save the file as UTF-8") from None
        except OSError as e:
            raise self.error(path + ("mqsc_file",), f"cannot read {shown}: {e.strerror or e}") from None

    def parse_mqsc(self, text: str, path: Path, source: str,
                   locate: Callable[[int, int], tuple[int, int]] | None) -> tuple[Command, ...]:
        """Parse MQSC now so bad MQSC is reported at load time, in the user's file:
        ``locate`` maps a position inside an embedded string to the scenario file."""
        if not text:
            return ()
        try:
            commands = read_mqsc(text, file=source)
            if locate is None:
                return commands
            return tuple(_relocated(cmd, locate) for cmd in commands)
        except InputError as e:
            err = e.located(file=source)
            if locate is not None and e.line:
                err.line, err.column = locate(e.line, e.column)
            elif source == self.file:  # the string's source was not found: point at its key
                err.line, err.column = self.locator.locate(path)
            err.message = f"{_render_path(path)}: {e.message}"
            ValueError.__init__(err, err.one_line())
            raise err from None

    def note_mqsc_subs(self, qmgr: str, commands: tuple[Command, ...], origin: str) -> None:
        """DEFINE SUB / DELETE SUB in MQSC make and remove subscriptions too."""
        for verb, name in _mqsc_sub_changes(commands):
            if verb == "DEFINE":
                self.live_subs[qmgr][name] = origin
                self.known_subs[qmgr].add(name)
            else:
                self.live_subs[qmgr].pop(name, None)

    # -- steps -----------------------------------------------------------------------

    def step(self, value: object, index: int) -> Step:
        path: Path = ("steps", index)
        table = self.table(value, path, "a [[steps]] block")
        self.keys(table, path, STEP_KINDS)
        kinds = [k for k in STEP_KINDS if k in table]
        if len(kinds) != 1:
            found = "none" if not kinds else " and ".join(kinds)
            raise self.error(path, f"expected exactly one of {', '.join(STEP_KINDS)}; found {found}",
                             "split them into separate [[steps]] blocks" if kinds else "")
        kind = kinds[0]
        body = self.table(table[kind], path + (kind,), f"{kind} = {{ ... }}")
        self.keys(body, path + (kind,), _STEP_KEYS[kind][0], _STEP_KEYS[kind][1])
        line = self.line_of(path + (kind,))
        return getattr(self, f"step_{kind}")(body, path + (kind,), index, line)

    def step_mqsc(self, t: dict, path: Path, index: int, line: int) -> MqscStep:
        qmgr = self.qmgr_ref(t, "qmgr", path)
        text = self.string(t, "commands", path)
        locate = self.locator.string_locator(path + ("commands",), text)
        commands = self.parse_mqsc(text, path + ("commands",), self.file, locate)
        self.note_mqsc_subs(qmgr, commands, f"steps[{index}]")
        return MqscStep(index, line, qmgr, text, commands)

    def topicobj(self, t: dict, path: Path) -> str:
        if "topicobj" not in t:
            return ""
        value = self.string(t, "topicobj", path)
        if not _TOPIC_OBJECT_NAME.fullmatch(value):
            raise self.error(path + ("topicobj",), f"invalid topic object name {_show(value)}: expected 1 to 48 "
                                                   "characters from A-Z a-z 0-9 . / _ % and embedded blanks")
        # An application names the object in MQOD.ObjectName exactly: the MQI does not fold
        # names (only MQSC folds unquoted ones), so DEFINE TOPIC('Football') is "Football".
        return value

    def topic_or_topicobj(self, t: dict, path: Path, scheme: str | None) -> tuple[str, str]:
        topicobj = self.topicobj(t, path)
        topic = self.topic(t, "topic", path, scheme, required=not topicobj)
        return topic, topicobj

    def step_publish(self, t: dict, path: Path, index: int, line: int) -> PublishStep:
        qmgr = self.qmgr_ref(t, "qmgr", path)
        topic, topicobj = self.topic_or_topicobj(t, path, None)
        return PublishStep(
            index, line, qmgr, topic,
            retain=self.boolean(t, "retain", path),
            scope=self.keyword(t, "scope", path, SCOPES, "ALL"),
            action=self.keyword(t, "action", path, ACTIONS, "NEW"),
            topicobj=topicobj,
            count=self.integer(t.get("count", 1), path + ("count",), 1, MAX_COUNT),
        )

    def step_subscribe(self, t: dict, path: Path, index: int, line: int) -> SubscribeStep:
        qmgr = self.qmgr_ref(t, "qmgr", path)
        name = self.mq_name(self.string(t, "name", path), path + ("name",), "subscription")
        scheme = self.keyword(t, "scheme", path, SCHEMES, "topic")
        topic, topicobj = self.topic_or_topicobj(t, path, scheme)
        if name in self.live_subs[qmgr]:
            raise self.error(path + ("name",), f"subscription {name} already exists at {qmgr} "
                             f"(made by {self.live_subs[qmgr][name]})",
                             "unsubscribe it first or choose another name")
        dest = self.string(t, "dest", path, "")
        step = SubscribeStep(
            index, line, qmgr, name, topic, scheme,
            scope=self.keyword(t, "scope", path, SCOPES, None) if "scope" in t else "",
            group=self.string(t, "group", path, ""),
            dest=self.mq_name(dest, path + ("dest",), "queue") if dest else "",
            new_only=self.boolean(t, "new_only", path),
            durable=self.boolean(t, "durable", path),
            topicobj=topicobj,
        )
        self.live_subs[qmgr][name] = f"steps[{index}]"
        self.known_subs[qmgr].add(name)
        return step

    def live_sub(self, t: dict, key: str, path: Path) -> tuple[str, str]:
        qmgr = self.qmgr_ref(t, "qmgr", path)
        name = self.mq_name(self.string(t, key, path), path + (key,), "subscription")
        live = self.live_subs[qmgr]
        if name not in live:
            known = f"expected one of {', '.join(sorted(live))}" if live else "none exists at this point"
            raise self.error(path + (key,), f"unknown subscription {name} at {qmgr}; {known}",
                             near_miss(name, live))
        return qmgr, name

    def step_unsubscribe(self, t: dict, path: Path, index: int, line: int) -> UnsubscribeStep:
        qmgr, name = self.live_sub(t, "name", path)
        del self.live_subs[qmgr][name]
        return UnsubscribeStep(index, line, qmgr, name)

    def step_republish(self, t: dict, path: Path, index: int, line: int) -> RepublishStep:
        qmgr, name = self.live_sub(t, "subscription", path)
        action = self.keyword(t, "action", path, ACTIONS, None)
        topic = self.topic(t, "topic", path, required=False,
                           absent="leave topic out to publish again under the topic received")
        return RepublishStep(index, line, qmgr, name, action, topic)

    def step_open(self, t: dict, path: Path, index: int, line: int) -> OpenStep:
        qmgr = self.qmgr_ref(t, "qmgr", path)
        handle = self.handle(t, path)
        if handle in self.handles:
            raise self.error(path + ("handle",), f"handle {handle!r} is already used by "
                             f"steps[{self.handles[handle][0]}]", "choose another name")
        queue = self.mq_name(self.string(t, "queue", path), path + ("queue",), "queue")
        target = self.string(t, "target_qmgr", path, "")
        step = OpenStep(
            index, line, qmgr, handle, queue,
            target_qmgr=self.mq_name(target, path + ("target_qmgr",), "queue manager") if target else "",
            bind=self.keyword(t, "bind", path, BINDS, "AS_Q_DEF"),
        )
        self.handles[handle] = (index, None)
        return step

    def open_handle(self, t: dict, path: Path) -> str:
        handle = self.handle(t, path)
        if handle not in self.handles:
            raise self.error(path + ("handle",), f"unknown handle {handle!r}",
                             _suggest_key(handle, list(self.handles)) or "open it first with an open step")
        opened, closed = self.handles[handle]
        if closed is not None:
            raise self.error(path + ("handle",), f"handle {handle!r} was closed by steps[{closed}]")
        return handle

    def step_put(self, t: dict, path: Path, index: int, line: int) -> PutStep:
        handle = self.open_handle(t, path)
        count = self.integer(t.get("count", 1), path + ("count",), 1, MAX_COUNT)
        return PutStep(index, line, handle, count, self.string(t, "group", path, ""))

    def step_close(self, t: dict, path: Path, index: int, line: int) -> CloseStep:
        handle = self.open_handle(t, path)
        self.handles[handle] = (self.handles[handle][0], index)
        return CloseStep(index, line, handle)

    def step_channel(self, t: dict, path: Path, index: int, line: int) -> ChannelStep:
        qmgr = self.qmgr_ref(t, "qmgr", path)
        to = self.qmgr_ref(t, "to", path)
        if to == qmgr:
            raise self.error(path + ("to",), f"a channel goes to another queue manager, not {qmgr} itself")
        status = self.keyword(t, "status", path, CHANNEL_STATUSES, None)
        name = self.mq_name(self.string(t, "name", path), path + ("name",), "channel") if "name" in t else ""
        return ChannelStep(index, line, qmgr, to, status, name)

    def step_qmgr(self, t: dict, path: Path, index: int, line: int) -> QmgrStep:
        name = self.qmgr_ref(t, "name", path)
        return QmgrStep(index, line, name, self.keyword(t, "action", path, QMGR_ACTIONS, None))

    def step_advance(self, t: dict, path: Path, index: int, line: int) -> AdvanceStep:
        return AdvanceStep(index, line, self.integer(t["days"], path + ("days",), 1, MAX_DAYS))

    def step_wait(self, t: dict, path: Path, index: int, line: int) -> WaitStep:
        return WaitStep(index, line, self.keyword(t, "until", path, ("settled",), None))

    # -- expectations ----------------------------------------------------------------

    def expect(self, value: object, index: int) -> Expect:
        path: Path = ("expect", index)
        t = self.table(value, path, "an [[expect]] block")
        self.keys(t, path, ("deliveries", "messages", "errors", "no_errors", "repositories", "apstatus",
                            "absent_errors"))
        if not t:
            raise self.error(path, "expected at least one of deliveries, messages, errors, no_errors, "
                             "repositories, apstatus, absent_errors; found none")
        no_errors = self.boolean(t, "no_errors", path)
        errors = self.expected_errors(t.get("errors", []), path + ("errors",))
        if no_errors and errors:
            raise self.error(path + ("no_errors",), "no_errors = true contradicts errors in the same block",
                             "put them in separate [[expect]] blocks or drop one")
        absent = self.expected_errors(t.get("absent_errors", []), path + ("absent_errors",))
        both = sorted(set(errors) & set(absent), key=lambda e: (e.qmgr, e.code))
        if both:
            raise self.error(path + ("absent_errors",), f"{both[0].code} at {both[0].qmgr} is both expected and "
                             "absent in the same block", "drop it from one of errors and absent_errors")
        return Expect(
            index, self.line_of(path),
            deliveries=self.expected_deliveries(t.get("deliveries", {}), path + ("deliveries",)),
            messages=self.expected_messages(t.get("messages", {}), path + ("messages",)),
            errors=errors,
            no_errors=no_errors,
            repositories=self.expected_repositories(t.get("repositories", {}), path + ("repositories",)),
            apstatus=self.expected_apstatus(t.get("apstatus", {}), path + ("apstatus",)),
            absent_errors=absent,
        )

    def qmgr_key(self, raw: str, path: Path) -> str:
        name = self.mq_name(raw, path, "queue manager")
        if name not in self.qmgr_names:
            raise self.error(path, f"unknown queue manager {name}; expected one of "
                             f"{', '.join(self.qmgr_names)}", self.declare_hint(name))
        return name

    def string_list(self, value: object, path: Path, what: str) -> list[str]:
        if not isinstance(value, list):
            raise self.error(path, f"expected an array of {what}, got {_type_name(value)} ({_show(value)})")
        for i, item in enumerate(value):
            if not isinstance(item, str):
                raise self.error(path + (i,), f"expected {what[:-1]}, got {_type_name(item)} ({_show(item)})")
        return value

    def expected_deliveries(self, value: object, path: Path) -> tuple[ExpectedDeliveries, ...]:
        out = []
        for raw_qm, subs in self.table(value, path, "{ QM = { SUB = [topics] } }").items():
            qm = self.qmgr_key(raw_qm, path + (raw_qm,))
            for raw_sub, topics in self.table(subs, path + (raw_qm,), "{ SUB = [topics] }").items():
                sub_path = path + (raw_qm, raw_sub)
                sub = self.mq_name(raw_sub, sub_path, "subscription")
                topics = self.string_list(topics, sub_path, "topic strings")  # the shape first
                if sub not in self.known_subs[qm]:
                    known = sorted(self.known_subs[qm])
                    raise self.error(sub_path, f"unknown subscription {sub} at {qm}; expected one of "
                                     f"{', '.join(known)}" if known else
                                     f"unknown subscription {sub} at {qm}; no step or MQSC makes one there",
                                     near_miss(sub, known))
                for i, topic in enumerate(topics):
                    try:
                        validate_topic_string(topic)
                    except TopicStringError as e:
                        raise self.error(sub_path + (i,), f"invalid topic string: {e.message}") from None
                out.append(ExpectedDeliveries(qm, sub, tuple(sorted(topics))))
        return tuple(out)

    def expected_messages(self, value: object, path: Path) -> tuple[ExpectedMessages, ...]:
        out = []
        for handle, counts in self.table(value, path, "{ handle = { QM = count } }").items():
            if handle not in self.handles:
                raise self.error(path + (handle,), f"unknown handle {handle!r}; no open step opens it",
                                 _suggest_key(handle, list(self.handles)))
            got: dict[str, int] = {}
            for raw_qm, count in self.table(counts, path + (handle,), "{ QM = count }").items():
                qm = self.qmgr_key(raw_qm, path + (handle, raw_qm))
                got[qm] = self.integer(count, path + (handle, raw_qm), 0, None)
            out.append(ExpectedMessages(handle, tuple(sorted(got.items()))))
        return tuple(out)

    def expected_errors(self, value: object, path: Path) -> tuple[ExpectedError, ...]:
        if not isinstance(value, list):
            raise self.error(path, f"expected an array of {{ qmgr, code }} tables, got {_type_name(value)}")
        out = []
        for i, item in enumerate(value):
            t = self.table(item, path + (i,), "{ qmgr = \"QMA\", code = \"LOOP_DETECTED\" }")
            self.keys(t, path + (i,), ("qmgr", "code"), ("qmgr", "code"))
            qmgr = self.qmgr_ref(t, "qmgr", path + (i,))
            code = self.string(t, "code", path + (i,)).upper()
            if not _ERROR_CODE.fullmatch(code):
                raise self.error(path + (i, "code"), f"expected an error code such as LOOP_DETECTED, got {code!r}")
            if why := unknown_code(code):   # a misspelt code: never logged, so never met or never failing
                raise self.error(path + (i, "code"), why)
            out.append(ExpectedError(qmgr, code))
        return tuple(out)

    def expected_repositories(self, value: object, path: Path) -> tuple[ExpectedRepository, ...]:
        out = []
        for raw_qm, clusters in self.table(value, path, "{ QM = { CLUSTER = { ... } } }").items():
            qm = self.qmgr_key(raw_qm, path + (raw_qm,))
            for raw_cl, held in self.table(clusters, path + (raw_qm,), "{ CLUSTER = { ... } }").items():
                cl_path = path + (raw_qm, raw_cl)
                cluster = self.mq_name(raw_cl, cl_path, "cluster")
                t = self.table(held, cl_path, "{ qmgrs = [...], queues = { Q = [QM...] }, topics = [...] }")
                self.keys(t, cl_path, ("qmgrs", "queues", "topics"), named="cluster")
                out.append(ExpectedRepository(
                    qm, cluster,
                    qmgrs=self.name_set(t["qmgrs"], cl_path + ("qmgrs",)) if "qmgrs" in t else None,
                    queues=self.queue_map(t["queues"], cl_path + ("queues",)) if "queues" in t else None,
                    topics=frozenset(self.string_list(t["topics"], cl_path + ("topics",), "topic strings"))
                    if "topics" in t else None,
                ))
        return tuple(out)

    def name_set(self, value: object, path: Path) -> frozenset[str]:
        names = self.string_list(value, path, "queue manager names")
        return frozenset(n if n.upper().startswith(TEMPQMGR) else self.mq_name(n, path + (i,), "queue manager")
                         for i, n in enumerate(names))

    def queue_map(self, value: object, path: Path) -> tuple[tuple[str, frozenset[str]], ...]:
        out = {}
        for raw_q, hosts in self.table(value, path, "{ Q = [QM, ...] }").items():
            out[self.mq_name(raw_q, path + (raw_q,), "queue")] = self.name_set(hosts, path + (raw_q,))
        return tuple(sorted(out.items()))

    # -- [[prove]] (issue #13) ---------------------------------------------------------

    def prove_claim(self, value: object, index: int) -> ProveClaim:
        path: Path = ("prove", index)
        t = self.table(value, path, "a [[prove]] block")
        self.keys(t, path, ("name", "publisher", "subscriber", "topic", "subscription", "pulled", "expect"),
                  ("expect",))
        known = sorted(self.qmgr_names)
        ends = []
        for key in ("publisher", "subscriber"):
            raw = t.get(key, known)
            if isinstance(raw, str):
                raw = [raw]
            names = self.string_list(raw, path + (key,), "queue manager names")
            ends.append(tuple(dict.fromkeys(self.qmgr_key(n, path + (key,)) for n in names)))
            if not ends[-1]:
                raise self.error(path + (key,), "expected at least one queue manager")
        topic = self.topic(t, "topic", path, "topic", required=False,
                           absent='leave topic out for every topic string ("#")') or "#"
        return ProveClaim(index, self.line_of(path), self.string(t, "name", path, f"prove[{index}]"), ends[0], ends[1],
                          topic, self.keyword(t, "subscription", path, ("any", "wildcard", "exact"), "any").lower(),
                          self.boolean(t, "pulled", path, True),
                          self.keyword(t, "expect", path, ("never", "possible"), None).lower())

    # -- [check] ---------------------------------------------------------------------

    def check(self, value: object) -> CheckOptions:
        path: Path = ("check",)
        t = self.table(value, path, "[check] with faults, max_states, max_depth, explore_initial")
        self.keys(t, path, ("faults", "max_states", "max_depth", "explore_initial"))
        bound = {k: self.integer(t[k], path + (k,), 1, None) if k in t else None
                 for k in ("max_states", "max_depth")}
        faults = t.get("faults", False)
        if not isinstance(faults, bool) and isinstance(faults, int):   # a budget, as --faults N
            faults = self.integer(faults, path + ("faults",), 0, None)
        elif not isinstance(faults, bool):
            raise self.error(path + ("faults",), f"expected true, false or a count of faults (as --faults N), got "
                                                 f"{_type_name(faults)} ({_show(faults)})")
        return CheckOptions(int(faults), bound["max_states"], bound["max_depth"],
                            self.boolean(t, "explore_initial", path))

    # -- [pytest] and [lint] (issue 16) -------------------------------------------------

    def pytest_options(self, value: object) -> PytestOptions:
        path: Path = ("pytest",)
        t = self.table(value, path, "[pytest] with marks, xfail, skip, check, properties, backend, ...")
        self.keys(t, path, ("marks", "xfail", "skip", "check", "properties", "backend", "max_states",
                            "max_depth", "timeout", "accept_incomplete"))
        marks = self.string_list(t.get("marks", []), path + ("marks",), "mark names")
        for i, mark in enumerate(marks):
            if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", mark):
                raise self.error(path + ("marks", i), f"expected a pytest mark name such as slow, got {_show(mark)}")
        props = t.get("properties")
        timeout = t.get("timeout")
        if timeout is not None and (isinstance(timeout, bool) or not isinstance(timeout, (int, float))
                                    or not 0 < timeout < float("inf")):
            raise self.error(path + ("timeout",), f"expected a positive number of seconds, got {_show(timeout)}")
        return PytestOptions(
            marks=tuple(marks),
            xfail=self.reasons(t.get("xfail"), path + ("xfail",)),
            skip=self.reasons(t.get("skip"), path + ("skip",)),
            check=self.boolean(t, "check", path, True),
            properties=None if props is None else tuple(self.string_list(props, path + ("properties",),
                                                                         "property ids")),
            backend=self.keyword(t, "backend", path, ("local", "spark"), "local"),
            max_states=self.integer(t["max_states"], path + ("max_states",), 1, None) if "max_states" in t else None,
            max_depth=self.integer(t["max_depth"], path + ("max_depth",), 0, None) if "max_depth" in t else None,
            timeout=None if timeout is None else float(timeout),
            accept_incomplete=self.boolean(t, "accept_incomplete", path),
            line=self.line_of(path),
            places=tuple(self._places(t, path)),
        )

    def _places(self, t: dict, path: Path) -> Iterable[tuple[str, int, int]]:
        """Where the keys the plugin checks are written (PytestOptions.at)."""
        keys: list[tuple[object, ...]] = [(key,) for key in ("timeout", "check") if key in t]
        if t.get("properties") == []:
            keys.append(("properties",))
        for what in ("xfail", "skip"):
            if what in t:
                keys.append((what,))
                keys += [(what, item) for item in t[what]] if isinstance(t[what], dict) else []
        if isinstance(t.get("properties"), list):
            keys += [("properties", i) for i in range(len(t["properties"]))]
        for key in keys:
            yield (".".join(map(str, key)), *self.locator.locate(path + key))

    def reasons(self, value: object, path: Path) -> tuple[tuple[str, str], ...]:
        """``"reason"`` (every item) or ``{ ITEM = "reason" }`` -> (item, reason) pairs."""
        if value is None:
            return ()
        if isinstance(value, str):
            pairs = [("", value, path)]
        else:
            pairs = [(k, v, path + (k,)) for k, v in self.table(value, path, '"reason" or { ITEM = "reason" }').items()]
        for _, reason, at in pairs:
            if not isinstance(reason, str) or not reason.strip():
                raise self.error(at, f"expected a non-empty reason string, got {_show(reason)}")
        return tuple((item, reason) for item, reason, _ in pairs)

    def lint_options(self, value: object) -> LintOptions:
        path: Path = ("lint",)
        t = self.table(value, path, '[lint] with disable = { RULE = "reason" }')
        self.keys(t, path, ("disable",))
        out = []
        for rule, reason in self.table(t.get("disable", {}), path + ("disable",), '{ RULE = "reason" }').items():
            if not isinstance(reason, str) or not reason.strip():
                raise self.error(path + ("disable", rule), f"expected the reason this rule is off, got {_show(reason)}",
                                 'write RULE = "why it does not apply here"')
            out.append((rule, reason) + self.locator.locate(path + ("disable", rule)))
        return LintOptions(tuple(out))


# kind -> (allowed keys, required keys)
_STEP_KEYS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "mqsc": (("qmgr", "commands"), ("qmgr", "commands")),
    "publish": (("qmgr", "topic", "retain", "scope", "action", "topicobj", "count"), ("qmgr",)),
    "subscribe": (("qmgr", "name", "topic", "scheme", "scope", "group", "dest", "new_only", "durable",
                   "topicobj"), ("qmgr", "name")),
    "unsubscribe": (("qmgr", "name"), ("qmgr", "name")),
    "republish": (("qmgr", "subscription", "action", "topic"), ("qmgr", "subscription", "action")),
    "open": (("qmgr", "handle", "queue", "target_qmgr", "bind"), ("qmgr", "handle", "queue")),
    "put": (("handle", "count", "group"), ("handle",)),
    "close": (("handle",), ("handle",)),
    "channel": (("qmgr", "to", "status", "name"), ("qmgr", "to", "status")),
    "qmgr": (("name", "action"), ("name", "action")),
    "advance": (("days",), ("days",)),
    "wait": (("until",), ("until",)),
    **UNIFORM_STEP_KEYS,
}


def _step_commands(qmgrs: tuple[QmgrSpec, ...], steps: tuple[Step, ...]) -> dict[str, list[Command]]:
    """Every queue manager's MQSC: its initial commands, then those of its mqsc steps."""
    out = {q.name: list(q.commands) for q in qmgrs}
    for s in steps:
        if isinstance(s, MqscStep):
            out[s.qmgr] = out.get(s.qmgr, []) + list(s.commands)
    return out


def _relocated(cmd: Command, locate: Callable[[int, int], tuple[int, int]]) -> Command:
    """A command read from a string embedded in the scenario file, with its positions
    (verb and keywords) mapped to the scenario file, so later messages point there too."""
    line, column = locate(cmd.line, cmd.column)
    positions = tuple((kw,) + locate(ln, col) for kw, ln, col in cmd.positions)
    return replace(cmd, line=line, column=column, positions=positions)


def _mqsc_sub_changes(commands: tuple[Command, ...]) -> list[tuple[str, str]]:
    """(verb, SUB name) for each DEFINE SUB / DELETE SUB among parsed MQSC commands."""
    return [(c.verb, c.name) for c in commands if c.objtype == "SUB" and c.verb in ("DEFINE", "DELETE")]
