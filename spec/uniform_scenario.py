"""The uniform-cluster parts of scenario files (issue #19; 004 §Uniform Cluster features).

Keys (the rest of the format is in :mod:`spec.scenario`):

- top level ``ccdt = "ccdt.json"``: the JSON CCDT the applications use (relative to the
  scenario file; :mod:`spec.ccdt`).
- ``[qmgrs.NAME] uniform_cluster = "UNIDEMO"``: 004's qm.ini ``TuningParameters:
  UniformClusterName=UNIDEMO`` (qm.ini is not MQSC, so it is a scenario key).
- steps ``connect = {app, count? = 1, via, reconnect? = false}`` — ``via`` is ``"*GROUP"`` (a
  CCDT queue-manager group) or a queue manager's name; ``reconnect`` is MQCNO_RECONNECT
  (or DefRecon=YES); ``disconnect = {app, count?, qmgr?}`` — the newest ``count`` (default:
  all) instances of ``app`` (connected to ``qmgr`` when given) end; ``join_uniform = {qmgr,
  cluster}`` — a queue manager is added to a uniform cluster (004 §Automatic Application
  balancing: "Simply add a new queue manager to the uniform cluster").
- ``[[expect]] apstatus = {APP = {count?, movcount?, balanced?, qmgrs? = {QM = {count?,
  movcount?, balstate?}}}}`` — DISPLAY APSTATUS(APP) TYPE(APPL) and TYPE(QMGR) after the
  last step (004 §View application status); parts left out are not checked.

Checked at load time: the CCDT is JSON of 004's shape, each of its addresses is some queue
manager's CLUSRCVR CONNAME (in its MQSC or an ``mqsc`` step) and an entry under a real
name reaches that queue manager; ``connect`` needs a ``ccdt``, a group it names needs
entries under that group, a queue manager it names needs an entry under its real name;
application names are 1 to 28 characters (MQAPPLNAME). A uniform-cluster member without an
entry under its real name is allowed: the model shows what it does (UC-NO-CCDT-ENTRY).

:class:`UniformParsing` is a mixin of ``spec.scenario._Parser``: it uses its ``error``,
``string``, ``integer``, ``keyword``, ``qmgr_ref``, ``mq_name`` and ``read_file``.
"""

from __future__ import annotations

import os.path

from spec.ccdt import Ccdt, check_ccdt, parse_ccdt
from spec.errors import near_miss
from spec.values import value

__all__ = [
    "MAX_INSTANCES",
    "UNIFORM_STEP_KEYS",
    "ConnectStep",
    "DisconnectStep",
    "ExpectedApstatus",
    "JoinUniformStep",
    "UniformParsing",
]

MAX_INSTANCES = 64  # instances one connect step starts: keeps explored state spaces small
BALANCED = ("YES", "NO", "NOTAPPLIC")
BALSTATES = ("OK", "LOW", "HIGH", "NOTAPPLIC")


@value
class ConnectStep:
    index: int
    line: int
    app: str
    count: int
    via: str  # "*GROUP" or a queue manager name (upper case)
    reconnect: bool = False


@value
class DisconnectStep:
    index: int
    line: int
    app: str
    count: int | None = None  # None = every instance
    qmgr: str = ""  # "" = wherever they are


@value
class JoinUniformStep:
    index: int
    line: int
    qmgr: str
    cluster: str


@value
class ExpectedApstatus:
    """DISPLAY APSTATUS figures expected for application ``app``; None = not checked.
    ``qmgrs``: (queue manager, COUNT, MOVCOUNT, BALSTATE) rows, sorted."""

    app: str
    count: int | None = None
    movcount: int | None = None
    balanced: str | None = None
    qmgrs: tuple[tuple[str, int | None, int | None, str | None], ...] = ()


UNIFORM_STEP_KEYS = {
    "connect": (("app", "count", "via", "reconnect"), ("app", "via")),
    "disconnect": (("app", "count", "qmgr"), ("app",)),
    "join_uniform": (("qmgr", "cluster"), ("qmgr", "cluster")),
}


class UniformParsing:
    """Mixin for ``spec.scenario._Parser`` (see the module docstring)."""

    ccdt: Ccdt | None = None

    def uniform_start(self) -> None:
        self.apps: set[str] = set()
        self.uniform: dict[str, str] = {}  # qmgr -> uniform cluster (declared or joined so far)
        self.ccdt_groups: list[str] = []
        self.ccdt_named: list[str] = []

    # -- [qmgrs.NAME] uniform_cluster -------------------------------------------------
    def qmgr_uniform_cluster(self, table: dict, path: tuple, name: str) -> str:
        if "uniform_cluster" not in table:
            return ""
        cluster = self.mq_name(self.string(table, "uniform_cluster", path), path + ("uniform_cluster",),
                               "uniform cluster")
        self.uniform[name] = cluster
        return cluster

    # -- ccdt = "file.json" -------------------------------------------------------------
    def read_ccdt(self, doc: dict) -> Ccdt | None:
        if "ccdt" not in doc:
            return None
        path = ("ccdt",)
        name = self.string(doc, "ccdt", ())
        base = os.path.dirname(self.file) if not self.file.startswith("<") else ""
        shown = os.path.join(base, name) if base else name
        if not name:
            raise self.error(path, "expected a file name, got an empty string")
        if self.read_file is None:
            raise self.error(path, f"cannot read {shown!r}: no file reader was given (use load_scenario)")
        try:
            text = self.read_file(name)
        except FileNotFoundError:
            raise self.error(path, f"file not found: {shown}", "ccdt is relative to the scenario file") from None
        except UnicodeDecodeError:
            raise self.error(path, f"{shown} is not UTF-8 text") from None
        except OSError as e:
            raise self.error(path, f"cannot read {shown}: {e.strerror or e}") from None
        self.ccdt = parse_ccdt(text, file=shown)
        return self.ccdt

    def check_ccdt_uses(self, listeners: dict[str, list[str]]) -> None:
        if self.ccdt is not None:
            check_ccdt(self.ccdt, listeners, self.ccdt_groups, self.ccdt_named)

    # -- steps ----------------------------------------------------------------------
    def app_name(self, t: dict, path: tuple) -> str:
        app = self.string(t, "app", path)
        if not 1 <= len(app) <= 28 or not app.isprintable() or app != app.strip():
            raise self.error(path + ("app",), f"invalid application name {app!r}: expected 1 to 28 printable "
                             "characters without leading or trailing blanks (MQAPPLNAME)")
        return app

    def step_connect(self, t: dict, path: tuple, index: int, line: int) -> ConnectStep:
        app = self.app_name(t, path)
        count = self.integer(t.get("count", 1), path + ("count",), 1, MAX_INSTANCES)
        via = self.string(t, "via", path)
        if self.ccdt is None:
            raise self.error(path, "connect needs a CCDT: add ccdt = \"ccdt.json\" at the top of the scenario",
                             "004 §JSON CCDT")
        if via.startswith("*"):
            group = via[1:].upper()
            if not self.ccdt.under(group):
                raise self.error(path + ("via",), f"the CCDT has no entry under the queue manager group {group}; "
                                 f"it has {', '.join(self.ccdt.names())}", near_miss(group, self.ccdt.names()))
            self.ccdt_groups.append(group)
            via = "*" + group
        else:
            via = self.qmgr_ref(t, "via", path)
            if not self.ccdt.under(via):
                raise self.error(path + ("via",), f"the CCDT has no entry under the queue manager name {via}",
                                 "add one, or connect through a group: via = \"*GROUP\"")
            self.ccdt_named.append(via)
        self.apps.add(app)
        return ConnectStep(index, line, app, count, via, self.boolean(t, "reconnect", path))

    def step_disconnect(self, t: dict, path: tuple, index: int, line: int) -> DisconnectStep:
        app = self.app_name(t, path)
        if app not in self.apps:
            raise self.error(path + ("app",), f"no connect step before this one starts {app!r}",
                             _hint(app, self.apps))
        count = self.integer(t["count"], path + ("count",), 1, None) if "count" in t else None
        qmgr = self.qmgr_ref(t, "qmgr", path) if "qmgr" in t else ""
        return DisconnectStep(index, line, app, count, qmgr)

    def step_join_uniform(self, t: dict, path: tuple, index: int, line: int) -> JoinUniformStep:
        qmgr = self.qmgr_ref(t, "qmgr", path)
        cluster = self.mq_name(self.string(t, "cluster", path), path + ("cluster",), "uniform cluster")
        if qmgr in self.uniform:
            raise self.error(path + ("qmgr",), f"{qmgr} is already a member of uniform cluster {self.uniform[qmgr]}")
        self.uniform[qmgr] = cluster
        return JoinUniformStep(index, line, qmgr, cluster)

    # -- [[expect]] apstatus ----------------------------------------------------------
    def expected_apstatus(self, value: object, path: tuple) -> tuple[ExpectedApstatus, ...]:
        out = []
        example = '{ APP = { count = 8, movcount = 8, balanced = "YES", qmgrs = { QM1 = { count = 3 } } } }'
        for app, t in self.table(value, path, example).items():
            apath = path + (app,)
            if app not in self.apps:
                raise self.error(apath, f"unknown application {app!r}; no connect step starts it",
                                 _hint(app, self.apps))
            t = self.table(t, apath, "{ count = 8, movcount = 8, balanced = \"YES\", qmgrs = { ... } }")
            self.keys(t, apath, ("count", "movcount", "balanced", "qmgrs"))
            rows = []
            for raw_qm, r in self.table(t.get("qmgrs", {}), apath + ("qmgrs",), "{ QM = { count = 3 } }").items():
                qpath = apath + ("qmgrs", raw_qm)
                qm = self.qmgr_key(raw_qm, qpath)
                r = self.table(r, qpath, "{ count = 3, movcount = 3, balstate = \"OK\" }")
                self.keys(r, qpath, ("count", "movcount", "balstate"))
                rows.append((qm, self.opt_int(r, "count", qpath), self.opt_int(r, "movcount", qpath),
                             self.keyword(r, "balstate", qpath, BALSTATES, None) if "balstate" in r else None))
            out.append(ExpectedApstatus(
                app, self.opt_int(t, "count", apath), self.opt_int(t, "movcount", apath),
                self.keyword(t, "balanced", apath, BALANCED, None) if "balanced" in t else None, tuple(sorted(rows))))
        return tuple(out)

    def opt_int(self, t: dict, key: str, path: tuple) -> int | None:
        return self.integer(t[key], path + (key,), 0, None) if key in t else None


def _hint(word: str, choices) -> str:
    import difflib

    close = difflib.get_close_matches(word, sorted(choices), n=1, cutoff=0.6)
    return f"did you mean {close[0]!r}?" if close else ""


def listeners_of(qmgr_commands: dict[str, list]) -> dict[str, list[str]]:
    """queue manager -> CONNAMEs of the CLUSRCVR channels its MQSC defines (where it listens)."""
    out: dict[str, list[str]] = {}
    for qmgr, commands in qmgr_commands.items():
        for cmd in commands:
            if cmd.objtype == "CHANNEL" and cmd.verb in ("DEFINE", "ALTER") and cmd.get("CHLTYPE") == "CLUSRCVR":
                conname = cmd.get("CONNAME")
                if isinstance(conname, str) and conname:
                    out.setdefault(qmgr, []).append(conname)
    return out

