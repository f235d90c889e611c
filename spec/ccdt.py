"""JSON client channel definition tables (CCDTs): 004 §JSON CCDT.

A JSON CCDT is an object with a ``channel`` array; each entry (004 §Configuring the CCDT
for application balancing in a Uniform Cluster)::

    {"name": "SVRCONN.CHANNEL", "type": "clientConnection",
     "clientConnection": {"connection": [{"host": "host1", "port": 1414}],
                          "queueManager": "ANY_QM"}}

Channel names may repeat (004 §JSON CCDT: "multiple channels of the same name on different
queue managers"). ``queueManager`` is what an application asks for: a queue manager's real
name, or a queue-manager group name that the application names with a leading ``*``.

What is read: ``name``, ``type`` (only ``clientConnection``; default ``clientConnection``),
``clientConnection.connection[].host`` / ``.port`` (default 1414) and
``clientConnection.queueManager``. The other sections IBM defines (``connectionManagement``,
``general``, ``transmissionSecurity``, ``timestamps``) are accepted and not modelled.

Errors (:class:`~spec.errors.InputError`, ``file:line:column``): text that is not JSON
(strict JSON, as the client reads it: 004's slide itself leaves out commas, and such a file
is rejected at the first one), a wrong shape or type, an unknown key, an empty ``channel``
list. :func:`check_ccdt` checks a CCDT against a scenario: a group an application connects
through needs an entry, a named queue manager needs its real-name entry, and every address
must be a queue manager's listener. A uniform-cluster member WITHOUT an entry under its
real name is NOT an error: it is the misconfiguration 004 warns about, and the model shows
its consequence (UC-NO-CCDT-ENTRY); :func:`missing_real_name_entries` lists such members.

Pure: :func:`parse_ccdt` takes the text; only the scenario loader reads the file.
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Mapping, Sequence

from spec.errors import InputError, near_miss
from spec.objects import conname_key
from spec.values import value

__all__ = ["Ccdt", "CcdtEntry", "address_of", "check_ccdt", "missing_real_name_entries", "parse_ccdt"]

DEFAULT_PORT = 1414  # the MQ listener's default port
CHANNEL_KEYS = ("name", "type", "clientConnection", "connectionManagement", "general",
                "transmissionSecurity", "timestamps")
CLIENT_CONNECTION_KEYS = ("connection", "queueManager")
CONNECTION_KEYS = ("host", "port")
_QM_NAME = re.compile(r"[A-Za-z0-9._/%]{1,48}")


@value
class CcdtEntry:
    """One ``channel`` entry: the queue manager (or group) name it answers to, the
    addresses to try (``host(port)`` strings, in order), and where it is in the file."""

    channel: str
    queue_manager: str  # upper-cased, as queue manager names are
    addresses: tuple[str, ...]
    line: int
    column: int


@value
class Ccdt:
    file: str
    entries: tuple[CcdtEntry, ...]  # in file order: the order a client tries them

    def under(self, name: str) -> tuple[CcdtEntry, ...]:
        """The entries an application asking for ``name`` (a real name, or a group name
        without its ``*``) may use, in file order."""
        return tuple(e for e in self.entries if e.queue_manager == name.upper())

    def names(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(e.queue_manager for e in self.entries))


def address_of(host: str, port: int) -> str:
    """A CCDT connection as a CONNAME: ``address_of("host1", 1414) == "host1(1414)"``."""
    return f"{host}({port})"


# ----------------------------------------------------------------------------- parsing
@value
class _Node:
    """A JSON value with the position (1-based line and column) where it starts."""

    value: object  # dict[str, _Node] | list[_Node] | str | int | float | bool | None
    line: int
    column: int
    key_at: tuple[tuple[str, int, int], ...] = ()  # objects: (key, line, column) of each key


_WS = re.compile(r"[ \t\n\r]*")
_NUMBER = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?")


class _Positions:
    """Re-reads text that :func:`json.loads` accepted, keeping each value's position
    (``json`` reports positions only for syntax errors)."""

    def __init__(self, text: str, file: str = "<ccdt>") -> None:
        self.text = text
        self.file = file
        self.starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def where(self, i: int) -> tuple[int, int]:
        lo, hi = 0, len(self.starts) - 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if self.starts[mid] <= i:
                lo = mid
            else:
                hi = mid - 1
        return lo + 1, i - self.starts[lo] + 1

    def skip(self, i: int) -> int:
        return _WS.match(self.text, i).end()

    def value(self, i: int) -> tuple[_Node, int]:
        i = self.skip(i)
        line, col = self.where(i)
        ch = self.text[i]
        if ch == "{":
            items: dict[str, _Node] = {}
            keys = []
            i = self.skip(i + 1)
            if self.text[i] == "}":
                return _Node(items, line, col), i + 1
            while True:
                i = self.skip(i)
                kline, kcol = self.where(i)
                key, i = json.decoder.scanstring(self.text, i + 1)
                i = self.skip(i) + 1  # the ':'
                node, i = self.value(i)
                items[key] = node  # a repeated key: the last wins, as json.loads does
                keys.append((key, kline, kcol))
                i = self.skip(i)
                if self.text[i] == "}":
                    return _Node(items, line, col, tuple(keys)), i + 1
                i += 1  # the ','
        if ch == "[":
            elems = []
            i = self.skip(i + 1)
            if self.text[i] == "]":
                return _Node(elems, line, col), i + 1
            while True:
                node, i = self.value(i)
                elems.append(node)
                i = self.skip(i)
                if self.text[i] == "]":
                    return _Node(elems, line, col), i + 1
                i += 1
        if ch == '"':
            s, i = json.decoder.scanstring(self.text, i + 1)
            return _Node(s, line, col), i
        for word, val in (("true", True), ("false", False), ("null", None)):
            if self.text.startswith(word, i):
                return _Node(val, line, col), i + len(word)
        for word in ("NaN", "Infinity", "-Infinity"):   # json.loads takes them; strict JSON has no such numbers
            if self.text.startswith(word, i):
                raise InputError(f"invalid JSON: {word} is not a JSON value", file=self.file, line=line, column=col,
                                 suggestion="JSON CCDTs are strict JSON: a number is written in digits")
        m = _NUMBER.match(self.text, i)
        assert m is not None, "json.loads accepted the text"
        num = m.group()
        return _Node(float(num) if any(c in num for c in ".eE") else int(num), line, col), m.end()


def _key_hint(key: str, allowed: Sequence[str]) -> str:
    # JSON keys are case-sensitive: suggest them as spelt (spec.errors.near_miss upper-cases)
    close = difflib.get_close_matches(key, allowed, n=1, cutoff=0.6) or [
        a for a in allowed if a.casefold() == key.casefold()]
    return f"did you mean {json.dumps(close[0])}?" if close else ""


def _kind(value: object) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if value is None:
        return "null"
    return {dict: "an object", list: "an array", str: "a string", int: "a number",
            float: "a number"}.get(type(value), type(value).__name__)


class _Reader:
    def __init__(self, file: str) -> None:
        self.file = file

    def error(self, node: _Node, what: str, suggestion: str = "", at: tuple[int, int] | None = None) -> InputError:
        line, column = at or (node.line, node.column)
        return InputError(what, file=self.file, line=line, column=column, suggestion=suggestion)

    def obj(self, node: _Node, path: str, allowed: Sequence[str], required: Sequence[str]) -> dict[str, _Node]:
        if not isinstance(node.value, dict):
            raise self.error(node, f"{path}: expected an object, got {_kind(node.value)}")
        for key, kline, kcol in node.key_at:
            if key not in allowed:
                raise self.error(node, f"{path}: unknown key {json.dumps(key)}; expected one of "
                                 f"{', '.join(allowed)}", _key_hint(key, allowed), at=(kline, kcol))
        for key in required:
            if key not in node.value:
                raise self.error(node, f"{path}: required key {json.dumps(key)} is missing")
        return node.value

    def string(self, node: _Node, path: str) -> str:
        if not isinstance(node.value, str) or not node.value.strip():
            got = ("an empty string" if not node.value else "blanks only") if isinstance(node.value, str) else _kind(node.value)
            raise self.error(node, f"{path}: expected a non-empty string, got {got}")
        return node.value

    def entry(self, node: _Node, i: int) -> CcdtEntry:
        path = f"channel[{i}]"
        t = self.obj(node, path, CHANNEL_KEYS, ("name", "clientConnection"))
        name = self.string(t["name"], f"{path}.name")
        if "type" in t and t["type"].value != "clientConnection":
            raise self.error(t["type"], f"{path}.type: expected \"clientConnection\", got "
                             f"{json.dumps(t['type'].value)}", "a client reads only clientConnection channels")
        cc = self.obj(t["clientConnection"], f"{path}.clientConnection", CLIENT_CONNECTION_KEYS,
                      ("connection", "queueManager"))
        qm_node = cc["queueManager"]
        qm = self.string(qm_node, f"{path}.clientConnection.queueManager")
        if not _QM_NAME.fullmatch(qm):
            raise self.error(qm_node, f"{path}.clientConnection.queueManager: invalid queue manager or group name "
                             f"{json.dumps(qm)}: expected 1 to 48 characters from A-Z a-z 0-9 . / _ %",
                             "write the group name without its '*'" if qm.startswith("*") else "")
        conns = cc["connection"]
        if not isinstance(conns.value, list) or not conns.value:
            raise self.error(conns, f"{path}.clientConnection.connection: expected a non-empty array of "
                             "{\"host\", \"port\"} objects")
        addresses = []
        for j, c in enumerate(conns.value):
            cpath = f"{path}.clientConnection.connection[{j}]"
            ct = self.obj(c, cpath, CONNECTION_KEYS, ("host",))
            host = self.string(ct["host"], f"{cpath}.host")
            port = DEFAULT_PORT
            if "port" in ct:
                p = ct["port"]
                if not isinstance(p.value, int) or isinstance(p.value, bool) or not 1 <= p.value <= 65535:
                    raise self.error(p, f"{cpath}.port: expected an integer from 1 to 65535, got "
                                     f"{json.dumps(p.value)}")
                port = p.value
            addresses.append(address_of(host, port))
        return CcdtEntry(name, qm.upper(), tuple(addresses), node.line, node.column)


def parse_ccdt(text: str, file: str = "<ccdt>") -> Ccdt:
    """Read a JSON CCDT. Raises :class:`InputError` naming ``file:line:column``.

    >>> c = parse_ccdt('{"channel": [{"name": "SVRCONN.CHANNEL", "type": "clientConnection",'
    ...                ' "clientConnection": {"connection": [{"host": "host1", "port": 1414}],'
    ...                ' "queueManager": "ANY_QM"}}]}', file="ccdt.json")
    >>> c.entries[0].queue_manager, c.entries[0].addresses
    ('ANY_QM', ('host1(1414)',))
    >>> parse_ccdt('{"channel": [{"name": "A" "type": "clientConnection"}]}', file="ccdt.json")
    Traceback (most recent call last):
    ...
    spec.errors.InputError: ccdt.json:1:27: invalid JSON: Expecting ',' delimiter (JSON CCDTs are strict JSON: commas between members, none after the last)
    """
    try:
        json.loads(text)
    except json.JSONDecodeError as e:
        raise InputError(f"invalid JSON: {e.msg}", file=file, line=e.lineno, column=e.colno,
                         suggestion="JSON CCDTs are strict JSON: commas between members, none after the last"
                         ) from None
    except (ValueError, RecursionError) as e:
        raise InputError(f"invalid JSON: {e}", file=file) from None
    root, _ = _Positions(text, file).value(0)
    reader = _Reader(file)
    top = reader.obj(root, "the CCDT", ("channel",), ("channel",))
    channels = top["channel"]
    if not isinstance(channels.value, list) or not channels.value:
        raise reader.error(channels, "channel: expected a non-empty array of channel definitions")
    return Ccdt(file, tuple(reader.entry(node, i) for i, node in enumerate(channels.value)))


# ----------------------------------------------------------------------------- checking
def _listener(address: str, listeners: Mapping[str, Sequence[str]]) -> str | None:
    want = conname_key(address)
    for qmgr in sorted(listeners):
        if any(conname_key(c) == want for c in listeners[qmgr]):
            return qmgr
    return None


def check_ccdt(ccdt: Ccdt, listeners: Mapping[str, Sequence[str]], groups: Sequence[str] = (),
               named: Sequence[str] = ()) -> None:
    """Check a CCDT against a scenario (raises :class:`InputError` at the entry).

    ``listeners``: queue manager -> its CLUSRCVR CONNAMEs (where it listens). Every entry's
    addresses must be some queue manager's, and an entry under a real name must reach that
    queue manager. ``groups`` (names without ``*``) and ``named`` (real names) are what
    connect steps ask for: each needs at least one entry (a client finds no channel
    otherwise: MQRC_Q_MGR_NAME_ERROR).
    """
    for e in ccdt.entries:
        for address in e.addresses:
            owner = _listener(address, listeners)
            if owner is None:
                known = ", ".join(f"{c} ({q})" for q in sorted(listeners) for c in listeners[q]) or "none"
                raise InputError(f"channel entry for {e.queue_manager}: {address} is no queue manager's listener; "
                                 f"expected a CLUSRCVR CONNAME: {known}", file=ccdt.file, line=e.line,
                                 column=e.column)
            if e.queue_manager in listeners and owner != e.queue_manager:
                raise InputError(f"channel entry under the real name {e.queue_manager} connects to {address}, "
                                 f"which is {owner}'s listener", file=ccdt.file, line=e.line, column=e.column,
                                 suggestion=f"point it at {e.queue_manager}'s CONNAME")
    for g in groups:
        if not ccdt.under(g):
            raise InputError(f"no channel entry under the queue manager group {g} (applications connect as *{g})",
                             file=ccdt.file, suggestion=near_miss(g, ccdt.names()) or
                             f'add entries with "queueManager": "{g}"')
    for n in named:
        if not ccdt.under(n):
            raise InputError(f"no channel entry under the queue manager name {n}", file=ccdt.file,
                             suggestion=f'add an entry with "queueManager": "{n}"')


def missing_real_name_entries(ccdt: Ccdt, members: Sequence[str]) -> tuple[str, ...]:
    """Uniform-cluster members the CCDT has no entry for under their real name: 004 §Configuring
    the CCDT for application balancing in a Uniform Cluster asks for "two entries per queue
    manager", one under the group name and one under the real name. Applications cannot be
    told to reconnect to such a member (a finding, not an error).

    >>> c = parse_ccdt('{"channel": [{"name": "C", "clientConnection": {"connection": [{"host": "h1"}],'
    ...                ' "queueManager": "QM1"}}]}')
    >>> missing_real_name_entries(c, ["QM1", "QM2"])
    ('QM2',)
    """
    return tuple(m for m in members if not ccdt.under(m))
