"""MQSC, the administrators' command language, read into typed commands.

``parse(text, file)`` turns MQSC text into a tuple of :class:`Command` values; every
problem is an :class:`~spec.errors.InputError` naming the file, line and column — never any
other exception, whatever the text. ``render`` writes commands back as MQSC.

Lexical rules (runmqsc): keywords are case-insensitive; unquoted values are folded to upper
case; quoted values keep their case and ``''`` is a quote; a line ending in ``+`` continues
with the next line's first non-blank character, one ending in ``-`` with its column 1;
lines whose first non-blank character is ``*`` are comments; blank lines are ignored;
blanks may separate a keyword from its ``(``; ``END`` ends the input. A line ends at LF,
CRLF or a bare CR (classic Mac OS), mixed too, and line numbers count lines so.

What is modelled: the commands and attributes of queues (QLOCAL, QREMOTE, QALIAS), TOPIC,
SUB, CHANNEL, NAMELIST and the queue manager that the cluster and publish/subscribe
semantics read (DESIGN §3), plus the cluster operations SUSPEND/RESUME QMGR, REFRESH
CLUSTER, RESET CLUSTER, REFRESH QMGR TYPE(PROXYSUB), CLEAR TOPICSTR and START/STOP CHANNEL.
Abstracted away: attributes MQ knows that change nothing we model (DESCR, MAXDEPTH, DEADQ,
...) are accepted and kept as raw text; object types we do not model (LISTENER, QMODEL,
PROCESS, ...) and read-only or unmodelled commands (DISPLAY, SET, PING, ...) are accepted
with their keywords unchecked and recorded as no-ops. z/OS-only syntax is not read.
"""

from __future__ import annotations

import re
from dataclasses import field
from typing import Union

from spec.errors import InputError, near_miss
from spec.topics import TopicStringError, compile_subscription, join_topic, validate_topic_string
from spec.values import value

__all__ = [
    "Command",
    "Value",
    "parse",
    "render",
    "render_command",
    "VERBS",
    "OBJECT_TYPES",
    "MODELLED_TYPES",
    "attribute_keywords",
]

Value = Union[str, int, bool, tuple[str, ...]]


@value
class Command:
    """One MQSC command, typed.

    ``verb`` and ``objtype`` are canonical (``DEF QL`` -> ``DEFINE``, ``QLOCAL``);
    ``objtype`` is ``""`` for commands without one (none here). ``name`` is the object's
    name (``""`` for ``ALTER QMGR``), folded unless it was quoted. ``attrs`` holds
    ``(KEYWORD, value)`` pairs sorted by keyword: an ``int`` for numeric attributes, a
    ``str`` for names, enumerations and text, a ``tuple`` for lists (NAMES), ``True``/
    ``False`` for flag pairs (``REPLACE``/``NOREPLACE`` -> ``("REPLACE", True/False)``).
    ``modelled`` is False for commands accepted and ignored (DISPLAY, LISTENER, ...).
    ``line``/``column`` locate the verb; ``file``, ``positions`` (per keyword) and ``text``
    are for messages and do not take part in equality.
    """

    verb: str
    objtype: str
    name: str = ""
    attrs: tuple[tuple[str, Value], ...] = ()
    modelled: bool = True
    line: int = field(default=0, compare=False)
    column: int = field(default=0, compare=False)
    file: str = field(default="<mqsc>", compare=False)
    positions: tuple[tuple[str, int, int], ...] = field(default=(), compare=False, repr=False)
    text: str = field(default="", compare=False, repr=False)

    def get(self, keyword: str, default: Value | None = None) -> Value | None:
        """The value of ``keyword`` if the command gave it, else ``default``."""
        for kw, value in self.attrs:
            if kw == keyword:
                return value
        return default

    def has(self, keyword: str) -> bool:
        return any(kw == keyword for kw, _ in self.attrs)

    def where(self, keyword: str = "") -> tuple[int, int]:
        """(line, column) of ``keyword`` in the source, or of the command."""
        for kw, line, column in self.positions:
            if kw == keyword:
                return line, column
        return self.line, self.column

    def error(self, message: str, keyword: str = "", suggestion: str = "") -> InputError:
        """An :class:`InputError` located at ``keyword`` (or the command)."""
        line, column = self.where(keyword)
        return InputError(f"{self.title()}: {message}", file=self.file, line=line,
                          column=column, suggestion=suggestion)

    def title(self) -> str:
        """``DEFINE QLOCAL(Q1)`` — how messages name the command."""
        head = f"{self.verb} {self.objtype}".strip()
        return f"{head}({self.name})" if self.name else head


# --------------------------------------------------------------------------- vocabulary

# Verbs and their runmqsc synonyms (IBM MQ MQSC reference: "Synonym: DEF QL" etc.).
# DELETE has no synonym in MQSC.
VERBS: dict[str, str] = {
    "DEFINE": "DEFINE", "DEF": "DEFINE",
    "ALTER": "ALTER", "ALT": "ALTER",
    "DELETE": "DELETE",
    "DISPLAY": "DISPLAY", "DIS": "DISPLAY",
    "START": "START", "STA": "START",
    "STOP": "STOP",
    "CLEAR": "CLEAR",
    "REFRESH": "REFRESH", "REF": "REFRESH",
    "RESET": "RESET",
    "SUSPEND": "SUSPEND",
    "RESUME": "RESUME",
    "SET": "SET",
    "PING": "PING",
    "RESOLVE": "RESOLVE",
    "PURGE": "PURGE",
}

OBJECT_TYPES: dict[str, str] = {
    "QLOCAL": "QLOCAL", "QL": "QLOCAL",
    "QREMOTE": "QREMOTE", "QR": "QREMOTE",
    "QALIAS": "QALIAS", "QA": "QALIAS",
    "QMODEL": "QMODEL", "QM": "QMODEL",
    "QUEUE": "QUEUE", "Q": "QUEUE",
    "TOPIC": "TOPIC",
    "SUB": "SUB",
    "CHANNEL": "CHANNEL", "CHL": "CHANNEL",
    "NAMELIST": "NAMELIST", "NL": "NAMELIST",
    "LISTENER": "LISTENER", "LSTR": "LISTENER",
    "PROCESS": "PROCESS", "PRO": "PROCESS",
    "SERVICE": "SERVICE",
    "AUTHINFO": "AUTHINFO",
    "COMMINFO": "COMMINFO",
    "QMGR": "QMGR",
    "CLUSTER": "CLUSTER",
    "TOPICSTR": "TOPICSTR",
    "CLUSQMGR": "CLUSQMGR",
    "CHSTATUS": "CHSTATUS", "CHS": "CHSTATUS",
    "QSTATUS": "QSTATUS",
    "QMSTATUS": "QMSTATUS",
    "QCLUSTER": "QCLUSTER", "QC": "QCLUSTER",  # DISPLAY only
    "LSSTATUS": "LSSTATUS",
    "SVSTATUS": "SVSTATUS",
    "SBSTATUS": "SBSTATUS",
    "TPSTATUS": "TPSTATUS",
    "TCLUSTER": "TCLUSTER",
    "PUBSUB": "PUBSUB",
    "CHLAUTH": "CHLAUTH",
    "AUTHREC": "AUTHREC",
    "CONN": "CONN",
    "SECURITY": "SECURITY",
    "CHINIT": "CHINIT",
    "QSTATS": "QSTATS",
    "LOG": "LOG",
}

# (verb, object type) pairs whose effect mqcheck models (DESIGN §3).
DEFINABLE = ("QLOCAL", "QREMOTE", "QALIAS", "TOPIC", "SUB", "CHANNEL", "NAMELIST")
MODELLED_TYPES: frozenset[tuple[str, str]] = frozenset(
    {(verb, t) for verb in ("DEFINE", "ALTER", "DELETE") for t in DEFINABLE}
    | {("ALTER", "QMGR"), ("SUSPEND", "QMGR"), ("RESUME", "QMGR"), ("REFRESH", "CLUSTER"),
       ("RESET", "CLUSTER"), ("REFRESH", "QMGR"), ("CLEAR", "TOPICSTR"),
       ("START", "CHANNEL"), ("STOP", "CHANNEL")}
)
# Accepted and recorded as no-ops: their keywords are not checked.
IGNORED_TYPES: frozenset[tuple[str, str]] = frozenset(
    {(verb, t) for verb in ("DEFINE", "ALTER", "DELETE")
     for t in ("LISTENER", "QMODEL", "PROCESS", "SERVICE", "AUTHINFO", "COMMINFO")}
    | {("DISPLAY", t) for t in OBJECT_TYPES.values()}
    | {("SET", t) for t in ("CHLAUTH", "AUTHREC", "LOG")}
    | {("PING", "CHANNEL"), ("PING", "QMGR"), ("RESOLVE", "CHANNEL"), ("PURGE", "CHANNEL"),
       ("CLEAR", "QLOCAL"), ("START", "LISTENER"), ("STOP", "LISTENER"), ("START", "SERVICE"),
       ("STOP", "SERVICE"), ("START", "CHINIT"), ("STOP", "CHINIT"), ("STOP", "CONN"),
       ("RESET", "CHANNEL"), ("RESET", "QSTATS"), ("RESET", "QMGR"), ("REFRESH", "SECURITY"),
       ("DELETE", "AUTHREC"), ("DELETE", "CHLAUTH")}
)
# Commands that name no object in parentheses after the object type.
NAMELESS = {("ALTER", "QMGR"), ("SUSPEND", "QMGR"), ("RESUME", "QMGR"), ("REFRESH", "QMGR")}


@value
class Attr:
    """How one keyword's value is read.

    kind: ``name`` (an MQ name: folded unless quoted, trailing blanks dropped, at most
    ``maxlen``), ``text`` (kept as given), ``enum`` (one of ``choices``), ``int``
    (``lo``..``hi``), ``list`` (names), ``flag`` (no value; ``flag_of`` names the
    keyword it sets, ``flag_value`` the value), ``raw`` (known to MQ, not modelled: any
    value or none, kept as text).
    """

    kind: str
    choices: tuple[str, ...] = ()
    lo: int = 0
    hi: int = 0
    maxlen: int = 48
    flag_of: str = ""
    flag_value: bool = True
    chltypes: tuple[str, ...] = ()  # CHANNEL attributes: the CHLTYPEs that have it


NAME = Attr("name")
TEXT = Attr("text")
RAW = Attr("raw")
LIST = Attr("list")


def _enum(*choices: str) -> Attr:
    return Attr("enum", choices=choices)


def _int(lo: int, hi: int) -> Attr:
    return Attr("int", lo=lo, hi=hi)


def _flag(of: str, value: bool = True) -> Attr:
    return Attr("flag", flag_of=of, flag_value=value)


ENABLED_DISABLED = _enum("ENABLED", "DISABLED")
SCOPE = _enum("QMGR", "ALL", "ASPARENT")
PUBSUB_SWITCH = _enum("ENABLED", "DISABLED", "ASPARENT")
DEFINE_FLAGS = {"REPLACE": _flag("REPLACE"), "NOREPLACE": _flag("REPLACE", False), "LIKE": NAME}

# Attributes MQ has on every queue type that change nothing we model.
_QUEUE_RAW = ("DESCR", "DEFPRTY", "DEFPSIST", "DEFPRESP", "DEFREADA", "PROPCTL", "SCOPE",
              "CUSTOM", "ALTDATE", "ALTTIME", "CAPEXPRY")
_QLOCAL_RAW = ("MAXDEPTH", "MAXMSGL", "GET", "SHARE", "NOSHARE", "DEFSOPT", "MSGDLVSQ",
               "RETINTVL", "TRIGGER", "NOTRIGGER", "TRIGTYPE", "TRIGDPTH", "TRIGMPRI",
               "TRIGDATA", "INITQ", "PROCESS", "BOTHRESH", "BOQNAME", "HARDENBO", "NOHARDENBO",
               "QDEPTHHI", "QDEPTHLO", "QDPHIEV", "QDPLOEV", "QDPMAXEV", "QSVCIEV", "QSVCINT",
               "MONQ", "STATQ", "ACCTQ", "NPMCLASS", "DISTL", "IMGRCOVQ", "STREAMQ", "STRMQOS")
_CLUSTER_QUEUE = {
    "CLUSTER": NAME, "CLUSNL": NAME, "DEFBIND": _enum("OPEN", "NOTFIXED", "GROUP"),
    "PUT": ENABLED_DISABLED, "CLWLRANK": _int(0, 9), "CLWLPRTY": _int(0, 9),
}


# Values runmqsc checks on queue attributes the model does not read (IBM MQ MQSC reference,
# DEFINE queues): kept as raw text, but a value runmqsc refuses is refused here too, so a
# typo such as DEFPSIST(MAYBE) is not accepted in silence. Queues only: on TOPIC the same
# keywords also take ASPARENT, and on other objects their ranges differ.
QUEUE_RAW_VALUES: dict[str, Attr] = {
    "DEFPSIST": _enum("YES", "NO"), "DEFPRTY": _int(0, 9), "GET": ENABLED_DISABLED,
    "DEFPRESP": _enum("SYNC", "ASYNC"), "DEFREADA": _enum("NO", "YES", "DISABLED"),
    "DEFSOPT": _enum("EXCL", "SHARED"), "MSGDLVSQ": _enum("PRIORITY", "FIFO"),
    "TRIGTYPE": _enum("FIRST", "EVERY", "DEPTH", "NONE"), "SCOPE": _enum("QMGR", "CELL"),
    "MAXDEPTH": _int(0, 999_999_999), "MAXMSGL": _int(0, 104_857_600),
    "SHARE": _flag("SHARE"), "NOSHARE": _flag("SHARE", False), "TRIGGER": _flag("TRIGGER"),
    "NOTRIGGER": _flag("TRIGGER", False), "HARDENBO": _flag("HARDENBO"), "NOHARDENBO": _flag("HARDENBO", False),
}
DESCR_LENGTH = 64  # MQ_Q_DESC_LENGTH and the other objects' DESCR: at most 64 characters


def _with_raw(spec: dict[str, Attr], raw: tuple[str, ...]) -> dict[str, Attr]:
    merged = {kw: RAW for kw in raw}
    merged.update(spec)
    return merged


QLOCAL_ATTRS = _with_raw({
    **_CLUSTER_QUEUE,
    # 001 rule on CLWLUSEQ: a queue's QMGR defers to the queue manager's LOCAL|ANY
    "CLWLUSEQ": _enum("QMGR", "LOCAL", "ANY"),
    "USAGE": _enum("NORMAL", "XMITQ"),
}, _QUEUE_RAW + _QLOCAL_RAW)
QREMOTE_ATTRS = _with_raw({
    **_CLUSTER_QUEUE, "RNAME": NAME, "RQMNAME": NAME, "XMITQ": NAME,
}, _QUEUE_RAW)
QALIAS_ATTRS = _with_raw({
    **_CLUSTER_QUEUE, "TARGET": NAME, "TARGQ": NAME, "TARGTYPE": _enum("QUEUE", "TOPIC"),
    "GET": RAW,
}, _QUEUE_RAW)

TOPIC_ATTRS = _with_raw({
    # 002 §Administrative topic objects, §Cluster topic attributes
    "TOPICSTR": TEXT, "CLUSTER": NAME, "PUBSCOPE": SCOPE, "SUBSCOPE": SCOPE,
    "PROXYSUB": _enum("FIRSTUSE", "FORCE"), "WILDCARD": _enum("BLOCK", "PASSTHRU"),
    "DURSUB": _enum("YES", "NO", "ASPARENT"), "PUB": PUBSUB_SWITCH, "SUB": PUBSUB_SWITCH,
    "TOPICTYPE": _enum("LOCAL"),
    # MQ 8 and later (dmpmqcfg writes it on every topic): DIRECT is 002's routing, the one
    # modelled; TOPICHOST (001's topic host routing) is noted as not modelled (spec.network.steps)
    "CLROUTE": _enum("DIRECT", "TOPICHOST"),
}, ("DESCR", "DEFPRTY", "DEFPSIST", "DEFPRESP", "NPMSGDLV", "PMSGDLV", "MDURMDL", "MNDURMDL",
    "USEDLQ", "CUSTOM", "COMMINFO", "MCAST", "ALTDATE", "ALTTIME"))

SUB_ATTRS = _with_raw({
    # 002 §Wildcard schemes (WSCHEMA), §Subscription scope; DEFINE SUB
    "TOPICSTR": TEXT, "TOPICOBJ": NAME, "DEST": NAME, "DESTQMGR": NAME,
    "WSCHEMA": _enum("TOPIC", "CHAR"), "SUBSCOPE": _enum("ALL", "QMGR"),
}, ("SELECTOR", "USERDATA", "PSPROP", "PUBACCT", "PUBAPPID", "PUBPRTY", "DESTCORL",
    "DESTCLAS", "EXPIRY", "SUBLEVEL", "SUBUSER", "VARUSER", "REQONLY", "SUBID"))

_CLUS = ("CLUSSDR", "CLUSRCVR")
CHANNEL_TYPES = ("CLUSRCVR", "CLUSSDR", "SDR", "RCVR", "SVR", "RQSTR", "SVRCONN", "CLNTCONN",
                 "AMQP", "MQTT")
CHANNEL_ATTRS = _with_raw({
    "CHLTYPE": _enum(*CHANNEL_TYPES),
    "TRPTYPE": _enum("TCP", "LU62", "NETBIOS", "SPX"),
    "CONNAME": Attr("text", chltypes=_CLUS + ("SDR", "SVR", "RQSTR", "CLNTCONN")),
    "CLUSTER": Attr("name", chltypes=_CLUS), "CLUSNL": Attr("name", chltypes=_CLUS),
    # 000 §Channel Weight: range 1-99, default 50
    "CLWLWGHT": Attr("int", lo=1, hi=99, chltypes=_CLUS),
    "CLWLRANK": Attr("int", lo=0, hi=9, chltypes=_CLUS),
    "CLWLPRTY": Attr("int", lo=0, hi=9, chltypes=_CLUS),
    "NETPRTY": Attr("int", lo=0, hi=9, chltypes=("CLUSRCVR",)),
    "XMITQ": Attr("name", chltypes=("SDR", "SVR")),
    "QMNAME": Attr("raw", chltypes=("CLNTCONN",)),
}, ("DESCR", "BATCHSZ", "BATCHHB", "BATCHINT", "BATCHLIM", "COMPHDR", "COMPMSG", "CONVERT",
    "DISCINT", "HBINT", "KAINT", "LOCLADDR", "LONGRTY", "LONGTMR", "MAXMSGL", "MCANAME",
    "MCATYPE", "MCAUSER", "MODENAME", "MONCHL", "MRDATA", "MREXIT", "MRRTY", "MRTMR",
    "MSGDATA", "MSGEXIT", "NPMSPEED", "PASSWORD", "PROPCTL", "PUTAUT", "RCVDATA", "RCVEXIT",
    "SCYDATA", "SCYEXIT", "SENDDATA", "SENDEXIT", "SEQWRAP", "SHORTRTY", "SHORTTMR",
    "SSLCAUTH", "SSLCIPH", "SSLPEER", "STATCHL", "TPNAME", "USEDLQ", "USERID", "MAXINST",
    "MAXINSTC", "SHARECNV", "AFFINITY", "CLNTWGHT", "DEFRECON", "CERTLABL", "RESETSEQ",
    "STATCHL", "TMPMODEL", "TMPQPRFX", "PORT", "JAASCFG", "USECLTID", "TPROOT", "MCATYPE"))

NAMELIST_ATTRS = _with_raw({"NAMES": LIST}, ("DESCR", "NLTYPE", "ALTDATE", "ALTTIME"))

QMGR_ATTRS = _with_raw({
    # 003 §Queue managers and repositories; 000 §Resource definition for Full Repositories
    "REPOS": NAME, "REPOSNL": NAME,
    # 000 §Utilising remote destinations: ALTER QMGR CLWLUSEQ(LOCAL|ANY)
    "CLWLUSEQ": _enum("LOCAL", "ANY"),
    "CLWLMRUC": _int(1, 999999999),
    # 002 §Connect a queue manager to a broker hierarchy: ALTER QMGR PARENT(...)
    "PARENT": NAME,
    "PSMODE": _enum("ENABLED", "DISABLED", "COMPAT"),
    "PSCLUS": ENABLED_DISABLED,
    "FORCE": RAW,
}, ("DESCR", "DEADQ", "TREELIFE", "MAXMSGL", "MAXHANDS", "MAXUMSGS", "MAXPROPL", "MAXPRTY",
    "DEFXMITQ", "DEFCLXQ", "CLWLDATA", "CLWLEXIT", "CLWLLEN", "MONQ", "STATQ", "ACCTQ",
    "MONCHL", "STATCHL", "MONACLS", "STATACLS", "STATMQI", "STATINT", "ACCTMQI", "ACCTINT",
    "ACCTCONO", "MONCONO", "ROUTEREC", "ACTIVREC", "ACTVTRC", "ACTVCONO", "PSRTYCNT", "PSNPMSG",
    "PSNPRES", "PSSYNCPT", "CHLAUTH", "CONNAUTH", "SSLKEYR", "SSLCRLNL", "SSLRKEYC", "SSLEV",
    "SSLFIPS", "CERTLABL", "CCSID", "TRIGINT", "CHAD", "CHADEV", "CHADEXIT", "CHLEV", "CMDEV",
    "CONFIGEV", "INHIBTEV", "LOCALEV", "LOGGEREV", "PERFMEV", "REMOTEEV", "STRSTPEV",
    "AUTHOREV", "SCHINIT", "SCMDSERV", "CUSTOM", "SUITEB", "SPLCAP", "MARKINT", "IMGSCHED",
    "IMGINTVL", "IMGLOGLN", "IMGRCOVO", "IMGRCOVQ", "REVDNS", "IPADDRV", "PARENTCL",
    "CLCHNAME", "MAXCHL", "ACTCHL", "INITKEY", "XRCAP", "PUBSUB"))

DELETE_ATTRS: dict[str, dict[str, Attr]] = {
    "QLOCAL": {"PURGE": _flag("PURGE"), "NOPURGE": _flag("PURGE", False), "AUTHREC": RAW},
    "QREMOTE": {"AUTHREC": RAW}, "QALIAS": {"AUTHREC": RAW}, "TOPIC": {"AUTHREC": RAW},
    "SUB": {"SUBID": RAW}, "CHANNEL": {"CHLTABLE": RAW}, "NAMELIST": {},
}

# Keywords that cannot be altered. ALTER TOPIC has no TOPICSTR (002 Figure 7 note: "To
# change topics, delete the topic first"); ALTER SUB usage notes (IBM MQ MQSC reference):
# "you cannot alter ... TOPICOBJ, TOPICSTR, WSCHEMA, SELECTOR, SUBSCOPE, DESTCLAS, SUBLEVEL".
NOT_ALTERABLE: dict[str, tuple[str, ...]] = {
    "TOPIC": ("TOPICSTR",),
    "SUB": ("TOPICSTR", "TOPICOBJ", "WSCHEMA", "SELECTOR", "SUBSCOPE", "DESTCLAS", "SUBLEVEL"),
}

OBJECT_ATTRS: dict[str, dict[str, Attr]] = {
    "QLOCAL": QLOCAL_ATTRS, "QREMOTE": QREMOTE_ATTRS, "QALIAS": QALIAS_ATTRS,
    "TOPIC": TOPIC_ATTRS, "SUB": SUB_ATTRS, "CHANNEL": CHANNEL_ATTRS,
    "NAMELIST": NAMELIST_ATTRS,
}

OPERATION_ATTRS: dict[tuple[str, str], dict[str, Attr]] = {
    # 000 §Workload management features: SUSPEND/RESUME
    ("SUSPEND", "QMGR"): {"CLUSTER": NAME, "CLUSNL": NAME, "MODE": _enum("QUIESCE", "FORCE")},
    ("RESUME", "QMGR"): {"CLUSTER": NAME, "CLUSNL": NAME},
    # 000 §Refreshing repository information; 002 §REFRESH CLUSTER considerations
    ("REFRESH", "CLUSTER"): {"REPOS": _enum("YES", "NO")},
    # 000 §Incorrectly deleted queue managers
    ("RESET", "CLUSTER"): {"ACTION": _enum("FORCEREMOVE"), "QMNAME": NAME,
                           "QMID": Attr("text", maxlen=48), "QUEUES": _enum("YES", "NO")},
    # 002 §Resynchronization of proxy subscriptions
    ("REFRESH", "QMGR"): {"TYPE": _enum("PROXYSUB", "CONFIGEV", "EXPIRY", "EARLY"),
                          "NAME": RAW, "OBJECT": RAW, "INCLINT": RAW},
    # 002 §Retained publications: CLEAR TOPICSTR('USA/Alabama') CLTRTYPE(RETAINED)
    ("CLEAR", "TOPICSTR"): {"CLTRTYPE": _enum("RETAINED"), "CLRSCOPE": _enum("LOCAL")},
    ("START", "CHANNEL"): {"CHLTYPE": RAW},
    ("STOP", "CHANNEL"): {"MODE": RAW, "STATUS": RAW, "CONNAME": RAW, "QMNAME": RAW},
}

# Required keywords: at least one of each group must be given.
REQUIRED: dict[tuple[str, str], tuple[tuple[str, ...], ...]] = {
    ("DEFINE", "CHANNEL"): (("CHLTYPE",),),
    ("ALTER", "CHANNEL"): (("CHLTYPE",),),
    ("DEFINE", "TOPIC"): (("TOPICSTR",),),
    ("DEFINE", "SUB"): (("TOPICSTR", "TOPICOBJ"),),
    ("SUSPEND", "QMGR"): (("CLUSTER", "CLUSNL"),),
    ("RESUME", "QMGR"): (("CLUSTER", "CLUSNL"),),
    ("RESET", "CLUSTER"): (("ACTION",), ("QMNAME", "QMID")),
    ("REFRESH", "QMGR"): (("TYPE",),),
    ("CLEAR", "TOPICSTR"): (("CLTRTYPE",),),
}
# At most one keyword of each group.
EXCLUSIVE: tuple[tuple[str, str], ...] = (
    ("CLUSTER", "CLUSNL"), ("QMNAME", "QMID"),
)
# Keyword synonyms: MQ v7.1 renamed QALIAS TARGQ to TARGET and kept TARGQ.
SYNONYMS = {"TARGQ": "TARGET"}

CHANNEL_NAME_MAX = 20  # MQ channel names: at most 20 characters
SUB_NAME_MAX = 10240


def attribute_keywords(verb: str, objtype: str, chltype: str = "") -> dict[str, Attr]:
    """The keywords ``verb objtype`` accepts (besides the object name), with their kinds."""
    key = (verb, objtype)
    if key in OPERATION_ATTRS:
        return OPERATION_ATTRS[key]
    if objtype == "QMGR":
        return QMGR_ATTRS if verb == "ALTER" else {}
    if verb == "DELETE":
        return DELETE_ATTRS.get(objtype, {})
    spec = dict(OBJECT_ATTRS.get(objtype, {}))
    if verb == "DEFINE":
        spec.update(DEFINE_FLAGS)
    else:
        for kw in NOT_ALTERABLE.get(objtype, ()):
            spec.pop(kw, None)
        if objtype in ("QLOCAL", "QREMOTE", "QALIAS"):
            spec["FORCE"] = RAW  # ALTER queues: FORCE (changes nothing we model)
    if objtype == "CHANNEL" and chltype:
        spec = {kw: a for kw, a in spec.items() if not a.chltypes or chltype in a.chltypes}
    return spec


# --------------------------------------------------------------------------- lexing
# A line ends at LF, CRLF or a bare CR (the line end of classic Mac OS, and of files passed
# through `tr '\n' '\r'`): a file of bare CRs was read as one line, whose leading `*`
# comment swallowed every definition (session 29). Not str.splitlines(): it also ends lines
# at form feeds, vertical tabs and Unicode separators, which would move the columns reported.
_LINE_END = re.compile(r"\r\n|\r|\n")


def split_lines(text: str) -> list[str]:
    """The lines of MQSC text, without their line ends (LF, CRLF or a bare CR).

    >>> split_lines("A\\r\\nB\\rC\\nD")
    ['A', 'B', 'C', 'D']
    """
    return _LINE_END.split(text)


def line_starts(text: str) -> list[int]:
    """The offset in ``text`` where each line starts (line ``n`` at ``line_starts(text)[n - 1]``),
    lines ending as :func:`split_lines` ends them.

    >>> line_starts("AB\\r\\nC\\rD")
    [0, 4, 6]
    """
    return [0] + [m.end() for m in _LINE_END.finditer(text)]


@value
class _Token:
    kind: str  # word | quoted | ( | ) | ,
    text: str
    line: int
    column: int


@value
class _Item:
    """A keyword with its optional parenthesised values."""

    keyword: str
    token: _Token
    values: tuple[_Token, ...] | None  # None: no parentheses


def _logical_commands(text: str, file: str):
    """Yield each command as (characters, positions): continuation lines joined.

    ``positions[i]`` is the (line, column) of ``characters[i]`` in the source. As the MQSC
    reference's "MQSC input file syntax" has it: a comment line (``*`` first) or a blank
    line inside a continued command is discarded, the command going on at the next line
    that is neither; a ``;`` ends a command, even after a continuation character.
    """
    chars: list[str] = []
    where: list[tuple[int, int]] = []
    continuing = False
    strip_next = False
    marker = (0, 0)  # where the last continuation character was
    # blank lines at the end are no continuation: a file's final newline (or a TOML string's)
    # must not end "... +" as if an empty line had completed it
    lines = split_lines(text.rstrip())
    for lineno, raw in enumerate(lines, start=1):
        line = raw.rstrip()
        start = 0
        if continuing and (not line.strip() or line.startswith("*")):
            continue
        if continuing and strip_next:
            start = len(line) - len(line.lstrip())
        if not continuing:
            body = line.lstrip()
            if not body or body.startswith("*"):
                continue
            start = len(line) - len(body)
        content = line[start:]
        continuing = bool(content) and content[-1] in "+-"
        if continuing:
            strip_next = content[-1] == "+"
            content = content[:-1]
            marker = (lineno, start + len(content) + 1)
        elif content.endswith(";") and (chars.count("'") + content.count("'")) % 2 == 0:
            content = content[:-1].rstrip()   # the ';' that ends a command, outside a quoted string
        chars.extend(content)
        where.extend((lineno, start + i + 1) for i in range(len(content)))
        if not continuing:
            if chars:
                yield "".join(chars), tuple(where)
            chars, where = [], []
    if continuing:
        raise InputError("the last command ends with a continuation character (+ or -) and "
                         "no line follows", file=file, line=marker[0], column=marker[1],
                         suggestion="remove the trailing + or - or add the rest of the command")


def _tokens(cmd: str, where: tuple[tuple[int, int], ...], file: str) -> list[_Token]:
    tokens: list[_Token] = []
    i, n = 0, len(cmd)
    while i < n:
        c = cmd[i]
        line, column = where[i]
        if c.isspace():
            i += 1
        elif c in "(),":
            tokens.append(_Token(c, c, line, column))
            i += 1
        elif c == "'":
            j, parts = i + 1, []
            while True:
                if j >= n:
                    raise InputError("a quoted string is not closed", file=file, line=line,
                                     column=column,
                                     suggestion="end it with ' (write '' for a quote inside)")
                if cmd[j] == "'":
                    if j + 1 < n and cmd[j + 1] == "'":
                        parts.append("'")
                        j += 2
                        continue
                    break
                parts.append(cmd[j])
                j += 1
            tokens.append(_Token("quoted", "".join(parts), line, column))
            i = j + 1
        else:
            j = i
            while j < n and not cmd[j].isspace() and cmd[j] not in "(),'":
                j += 1
            tokens.append(_Token("word", cmd[i:j], line, column))
            i = j
    return tokens


def _items(tokens: list[_Token], file: str) -> list[_Item]:
    items: list[_Item] = []
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        if tok.kind == "," and items:   # after the verb a comma is a blank (MQSC reference, "Script (MQSC) commands")
            i += 1
            continue
        if tok.kind != "word":
            what = "a quoted string" if tok.kind == "quoted" else f"'{tok.text}'"
            raise InputError(f"expected a keyword, found {what}", file=file, line=tok.line,
                             column=tok.column,
                             suggestion="values go in parentheses after their keyword, "
                                        "e.g. DESCR('text')")
        i += 1
        values: tuple[_Token, ...] | None = None
        if i < len(tokens) and tokens[i].kind == "(":
            reader = _where_values if tok.text.upper() == "WHERE" else _values
            values, i = reader(tokens, i, tok, file)
        items.append(_Item(tok.text.upper(), tok, values))
    return items


# DISPLAY ... WHERE(filter-keyword operator filter-value) (IBM MQ MQSC reference, DISPLAY
# commands, "WHERE"): the operators a filter may use.
WHERE_OPERATORS = ("LT", "GT", "EQ", "NE", "LE", "GE", "LK", "NL", "CT", "EX", "CTG", "EXG")


def _where_values(tokens: list[_Token], i: int, kw: _Token, file: str) -> tuple[tuple[_Token, ...], int]:
    """Read ``WHERE(keyword operator value)`` starting at the ``(`` at index ``i``; the value
    is a word or a quoted string."""
    opening = tokens[i]
    got = tokens[i + 1:i + 5]
    kinds = [t.kind for t in got]
    if kinds[:1] != ["word"]:
        at = got[0] if got else opening
        raise InputError("WHERE: expected a filter keyword after '('", file=file, line=at.line,
                         column=at.column, suggestion="e.g. WHERE(CURDEPTH GT 0)")
    if kinds[1:2] != ["word"] or got[1].text.upper() not in WHERE_OPERATORS:
        at = got[1] if len(got) > 1 else got[0]
        raise InputError(f"WHERE: expected an operator after {got[0].text.upper()}", file=file,
                         line=at.line, column=at.column,
                         suggestion=f"one of {', '.join(WHERE_OPERATORS)}, e.g. WHERE(STATUS EQ RUNNING)")
    if kinds[2:3] not in (["word"], ["quoted"]) or kinds[3:4] != [")"]:
        at = got[3] if kinds[2:3] in (["word"], ["quoted"]) and len(got) > 3 else got[2] if len(got) > 2 else got[1]
        raise InputError("WHERE: expected one value and ')' after the operator", file=file,
                         line=at.line, column=at.column,
                         suggestion="quote values that contain blanks, e.g. WHERE(DESCR EQ 'two words')")
    return tuple(got[:3]), i + 5


def _values(tokens: list[_Token], i: int, kw: _Token, file: str) -> tuple[tuple[_Token, ...], int]:
    """Read ``( v1 , v2 ... )`` starting at the ``(`` at index ``i``."""
    opening = tokens[i]
    i += 1
    values: list[_Token] = []
    expect_value = True
    while True:
        if i >= len(tokens):
            raise InputError(f"{kw.text.upper()}: expected ')' to close the '(' here",
                             file=file, line=opening.line, column=opening.column,
                             suggestion="add the closing ')'; values with '(' or blanks "
                                        "must be quoted, e.g. CONNAME('host(1414)')")
        tok = tokens[i]
        if tok.kind == ")":
            return tuple(values), i + 1
        if tok.kind == ",":
            if expect_value:
                values.append(_Token("word", "", tok.line, tok.column))
            expect_value = True
        elif tok.kind in ("word", "quoted"):
            if not expect_value:
                raise InputError(f"{kw.text.upper()}: expected ',' or ')' before "
                                 f"{tok.text!r}", file=file, line=tok.line, column=tok.column,
                                 suggestion="quote values that contain blanks, e.g. "
                                            "DESCR('two words')")
            values.append(tok)
            expect_value = False
        else:  # a nested '('
            raise InputError(f"{kw.text.upper()}: unexpected '(' inside a value", file=file,
                             line=tok.line, column=tok.column,
                             suggestion="quote the value, e.g. CONNAME('host(1414)')")
        i += 1


# --------------------------------------------------------------------------- parsing

def parse(text: str, file: str = "<mqsc>") -> tuple[Command, ...]:
    """Read MQSC text into commands; raise :class:`InputError` for anything MQ would reject
    as syntax (or mqcheck cannot read), naming file, line and column.

    >>> [c.title() for c in parse("DEF QL(payroll) CLUSTER(demo)\\nALTER QMGR REPOS(DEMO)")]
    ['DEFINE QLOCAL(PAYROLL)', 'ALTER QMGR']
    >>> parse("DEFINE TOPIC('Sports') TOPICSTR('Sports') +\\n   CLUSTER(CL1)")[0].attrs
    (('CLUSTER', 'CL1'), ('TOPICSTR', 'Sports'))
    >>> parse("DEFINE QLOCAL(Q1) CLUSTR(DEMO)", file="qma.mqsc")
    Traceback (most recent call last):
    ...
    spec.errors.InputError: qma.mqsc:1:19: DEFINE QLOCAL(Q1): CLUSTR is not an attribute of QLOCAL (did you mean CLUSTER?)
    """
    if not isinstance(text, str):
        raise InputError(f"MQSC must be text, not {type(text).__name__}", file=file)
    commands: list[Command] = []
    for chars, where in _logical_commands(text, file):
        tokens = _tokens(chars, where, file)
        if not tokens:
            continue
        if tokens[0].kind == "word" and tokens[0].text.upper() == "END" and len(tokens) == 1:
            break  # runmqsc: END ends the input
        commands.append(_command(_items(tokens, file), chars, file))
    return tuple(commands)


def _command(items: list[_Item], text: str, file: str) -> Command:
    head = items[0]
    verb = VERBS.get(head.keyword)
    if verb is not None and head.values is not None:
        raise InputError(f"{verb}: expected an object type before '('", file=file,
                         line=head.token.line, column=head.token.column,
                         suggestion=f"e.g. {verb} QLOCAL(name)")
    if verb is None:
        raise InputError(f"{head.token.text!r} is not an MQSC command", file=file,
                         line=head.token.line, column=head.token.column,
                         suggestion=_verb_hint(head.keyword) or
                         "expected DEFINE, ALTER, DELETE, DISPLAY, START, STOP, CLEAR, "
                         "REFRESH, RESET, SUSPEND or RESUME")
    if len(items) < 2:
        raise InputError(f"{verb}: expected an object type after {head.token.text}", file=file,
                         line=head.token.line, column=head.token.column,
                         suggestion=f"e.g. {verb} QLOCAL(name)")
    second = items[1]
    objtype = OBJECT_TYPES.get(second.keyword)
    key = (verb, objtype or "")
    if objtype is None or (key not in MODELLED_TYPES and key not in IGNORED_TYPES):
        known = sorted({t for v, t in MODELLED_TYPES | IGNORED_TYPES if v == verb})
        raise InputError(f"{verb} {second.keyword}: not a command mqcheck reads", file=file,
                         line=second.token.line, column=second.token.column,
                         suggestion=near_miss(second.keyword, known) or
                         f"{verb} takes one of {', '.join(known)}")
    modelled = key in MODELLED_TYPES
    name = _object_name(verb, objtype, second, modelled, file)
    rest = items[2:]
    if not modelled:
        attrs = _raw_attrs(rest, verb, objtype, name, file)
        return _make(verb, objtype, name, attrs, False, head, rest, text, file)
    chltype = _chltype(rest, file) if objtype == "CHANNEL" and verb != "DELETE" else ""
    spec = attribute_keywords(verb, objtype, chltype)
    attrs = _typed_attrs(rest, spec, verb, objtype, name, chltype, file)
    cmd = _make(verb, objtype, name, attrs, True, head, rest, text, file)
    _check_required(cmd, head)
    _check_topics(cmd)
    return cmd


def _verb_hint(word: str) -> str:
    prefixed = sorted({v for v in VERBS.values() if word and v.startswith(word)})
    if len(prefixed) == 1:
        return f"did you mean {prefixed[0]}? (MQSC has no {word} synonym)"
    return near_miss(word, VERBS)


def _make(verb, objtype, name, attrs, modelled, head, rest, text, file) -> Command:
    return Command(verb, objtype, name, tuple(sorted(attrs.items())), modelled,
                   line=head.token.line, column=head.token.column, file=file,
                   positions=tuple((_canonical_kw(it.keyword), it.token.line, it.token.column)
                                   for it in rest),
                   text=text.strip())


def _canonical_kw(kw: str) -> str:
    return {"NOREPLACE": "REPLACE", "NOPURGE": "PURGE", **SYNONYMS}.get(kw, kw)


def _title(verb: str, objtype: str, name: str) -> str:
    return f"{verb} {objtype}({name})" if name else f"{verb} {objtype}"


def _object_name(verb: str, objtype: str, item: _Item, modelled: bool, file: str) -> str:
    tok = item.token
    if (verb, objtype) in NAMELESS or (not modelled and item.values is None):
        if item.values is not None and modelled:
            raise InputError(f"{verb} {objtype} takes no name in parentheses", file=file,
                             line=tok.line, column=tok.column,
                             suggestion=f"write {verb} {objtype} followed by its keywords")
        return ""
    if item.values is None:
        raise InputError(f"{verb} {objtype}: expected ({_what_name(objtype)}) after {tok.text}",
                         file=file, line=tok.line, column=tok.column,
                         suggestion=f"e.g. {verb} {objtype}(NAME)")
    if not item.values and objtype != "TOPICSTR":
        raise InputError(f"{verb} {objtype}: the name must not be blank", file=file,
                         line=tok.line, column=tok.column, suggestion=f"e.g. {verb} {objtype}(NAME)")
    if len(item.values) != 1:
        raise InputError(f"{verb} {objtype}: expected one {_what_name(objtype).split()[-1]}, "
                         f"found {len(item.values)}", file=file, line=tok.line, column=tok.column)
    value = item.values[0]
    if objtype == "TOPICSTR":
        return value.text if value.kind == "quoted" else value.text.upper()
    if not modelled:
        return _name_text(value)
    limit = CHANNEL_NAME_MAX if objtype == "CHANNEL" else SUB_NAME_MAX if objtype == "SUB" else 48
    return _check_name(_name_text(value), value, f"{verb} {objtype}", "the name", limit, file,
                       generic=(verb, objtype) == ("REFRESH", "CLUSTER"),
                       kind=_OBJECT_NAME_KIND.get(objtype, "object"))


def _what_name(objtype: str) -> str:
    return {"TOPICSTR": "a topic string", "CLUSTER": "a cluster name"}.get(objtype, "a name")


def _name_text(tok: _Token) -> str:
    """MQ names: unquoted folded to upper case; trailing blanks are padding."""
    text = tok.text if tok.kind == "quoted" else tok.text.upper()
    return text.rstrip(" ")


# IBM MQ documentation, "Rules for naming IBM MQ objects" (not among the seed documents):
# object names (queues, queue managers, channels, topic objects, namelists, processes,
# clusters, ...) may contain only A-Z, a-z, 0-9, '.', '/', '_' and '%', with no leading or
# embedded blanks. The scenario file's names follow the same rule (spec/scenario.py
# _Parser.mq_name), and this message is worded like that one. One exception, because the
# seed is the authority here: a topic object name may have embedded blanks, since 002
# §Controlling wildcard usage with the WILDCARD property (Figure 7, topics.tst) defines
# TOPIC('St. Helens') (docs/decisions.md, "Object names"). Subscription names are not object
# names (MQSD.SubName is a character string of up to 10240 characters, e.g. JMS's
# "JMS:QM1:client:name"), so only their length is checked.
NAME_CHARACTERS = "A-Z a-z 0-9 . / _ %"
TOPIC_OBJECT_KINDS = ("topic object", "queue or topic object")  # may hold embedded blanks
_NAME_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789./_%")
_QUEUE_KINDS = dict.fromkeys(("QLOCAL", "QREMOTE", "QALIAS"), "queue")
# What kind of object the name after ``verb objtype`` names ("" = not an MQ object name).
_OBJECT_NAME_KIND = {**_QUEUE_KINDS, "TOPIC": "topic object", "CHANNEL": "channel",
                     "NAMELIST": "namelist", "CLUSTER": "cluster", "SUB": ""}
# What kind of object a ``name``/``list`` attribute names.
_ATTR_NAME_KIND = {
    "CLUSTER": "cluster", "REPOS": "cluster", "CLUSNL": "namelist", "REPOSNL": "namelist",
    "RNAME": "queue", "XMITQ": "queue", "DEST": "queue", "TOPICOBJ": "topic object",
    "TARGET": "queue or topic object", "TARGQ": "queue or topic object",
    "RQMNAME": "queue manager", "DESTQMGR": "queue manager", "PARENT": "queue manager",
    "QMNAME": "queue manager", "LIKE": "object", "NAMES": "object",
}


def _check_name(name: str, tok: _Token, where: str, what: str, limit: int, file: str,
                generic: bool = False, allow_blank: bool = False, kind: str = "object") -> str:
    """``name`` if MQ allows it: not blank (unless ``allow_blank``), at most ``limit``
    characters, only :data:`NAME_CHARACTERS` (plus ``*`` when ``generic``) unless ``kind``
    is ``""``; else an :class:`InputError` at ``tok``.

    >>> parse("DEFINE QLOCAL('C Q$1') CLUSTER(DEMO)", file="qma.mqsc")
    Traceback (most recent call last):
    ...
    spec.errors.InputError: qma.mqsc:1:15: DEFINE QLOCAL: invalid queue name 'C Q$1': expected 1 to 48 characters from A-Z a-z 0-9 . / _ % (e.g. C_Q_1)
    >>> parse("DEFINE QLOCAL('my.queue') CLUSTER(DEMO)")[0].name
    'my.queue'
    """
    if not name and not allow_blank:
        raise InputError(f"{where}: {what} must not be blank", file=file, line=tok.line,
                         column=tok.column)
    if len(name) > limit:
        raise InputError(f"{where}: {what} {name[:20]!r}... is {len(name)} characters; MQ "
                         f"allows at most {limit}", file=file, line=tok.line, column=tok.column)
    if "*" in name and not generic:
        raise InputError(f"{where}: {what} {name!r} contains '*', which only generic names in "
                         f"DISPLAY and REFRESH CLUSTER may use", file=file, line=tok.line,
                         column=tok.column)
    allowed = _NAME_CHARS | {"*"} if generic else _NAME_CHARS
    blanks = kind in TOPIC_OBJECT_KINDS
    if blanks and not name.startswith(" "):
        allowed = allowed | {" "}   # embedded: trailing blanks were stripped as padding
    if kind and not set(name) <= allowed:
        # repr() escapes control characters (InputError also makes the line printable)
        of = "" if what == "the name" else f"{what}: "
        fixed = "".join(c if c in allowed else "_" for c in name.lstrip(" "))
        raise InputError(f"{where}: {of}invalid {kind} name {name!r}: expected 1 to {limit} "
                         f"characters from {NAME_CHARACTERS}"
                         + (" and embedded blanks" if blanks else "")
                         + (" (or a generic name with *)" if generic else ""),
                         file=file, line=tok.line, column=tok.column,
                         suggestion=f"e.g. {_render_name(fixed)}" if fixed else "")
    return name


def _raw_attrs(items: list[_Item], verb: str, objtype: str, name: str, file: str) -> dict:
    attrs: dict[str, Value] = {}
    for it in items:
        if it.keyword in attrs:
            raise _repeated(it, verb, objtype, name, file)
        attrs[it.keyword] = _raw_value(it)
    return attrs


def _raw_value(it: _Item) -> Value:
    if it.values is None:
        return True
    texts = tuple(v.text if v.kind == "quoted" else v.text.upper() for v in it.values)
    return texts[0] if len(texts) == 1 else texts


def _repeated(it: _Item, verb: str, objtype: str, name: str, file: str) -> InputError:
    return InputError(f"{_title(verb, objtype, name)}: {it.keyword} is given twice", file=file,
                      line=it.token.line, column=it.token.column,
                      suggestion="keep one of them")


def _chltype(items: list[_Item], file: str) -> str:
    for it in items:
        if it.keyword == "CHLTYPE" and it.values is not None and len(it.values) == 1:
            value = it.values[0].text.upper().strip()
            return value if value in CHANNEL_TYPES else ""
    return ""


def _typed_attrs(items: list[_Item], spec: dict[str, Attr], verb: str, objtype: str,
                 name: str, chltype: str, file: str) -> dict[str, Value]:
    attrs: dict[str, Value] = {}
    where = _title(verb, objtype, name)
    for it in items:
        attr = spec.get(it.keyword)
        if attr is None:
            raise _unknown_keyword(it, spec, verb, objtype, name, chltype, file)
        key = attr.flag_of if attr.kind == "flag" else SYNONYMS.get(it.keyword, it.keyword)
        if key in attrs:
            raise _repeated(it, verb, objtype, name, file)
        attrs[key] = _typed_value(it, attr, where, file)
        if attr.kind == "raw":
            _check_raw_value(it, objtype, where, file)
    for group in EXCLUSIVE:
        given = [kw for kw in group if kw in attrs]
        if len(given) > 1:
            line, column = _position(items, given[1])
            raise InputError(f"{where}: give {given[0]} or {given[1]}, not both", file=file,
                             line=line, column=column,
                             suggestion="MQ: only one of the resultant values can be nonblank")
    return attrs


def _position(items: list[_Item], keyword: str) -> tuple[int, int]:
    for it in items:
        if it.keyword == keyword:
            return it.token.line, it.token.column
    return 0, 0  # pragma: no cover - callers pass given keywords


def _unknown_keyword(it: _Item, spec: dict[str, Attr], verb: str, objtype: str, name: str,
                     chltype: str, file: str) -> InputError:
    where = _title(verb, objtype, name)
    line, column = it.token.line, it.token.column
    kw = it.keyword
    if kw in NOT_ALTERABLE.get(objtype, ()) and verb == "ALTER":
        return InputError(f"{where}: {kw} cannot be altered", file=file, line=line,
                          column=column, suggestion=f"DELETE {objtype}({name}) and DEFINE it "
                                                    f"again (002: REPLACE does not replace {kw})")
    full = OBJECT_ATTRS.get(objtype, {})
    if objtype == "CHANNEL" and kw in full and chltype:
        return InputError(f"{where}: {kw} is not an attribute of a CHLTYPE({chltype}) channel",
                          file=file, line=line, column=column,
                          suggestion=f"{kw} belongs to CHLTYPE "
                                     f"{'/'.join(full[kw].chltypes)}")
    if verb == "DELETE" and kw in full:
        return InputError(f"{where}: DELETE takes only the name", file=file, line=line,
                          column=column, suggestion=f"remove {kw}")
    thing = f"a {verb} {objtype} keyword" if objtype in ("QMGR", "CLUSTER", "TOPICSTR") or \
        (verb, objtype) in OPERATION_ATTRS else f"an attribute of {objtype}"
    return InputError(f"{where}: {kw} is not {thing}", file=file, line=line, column=column,
                      suggestion=near_miss(kw, spec) or _elsewhere(kw, objtype) or
                      (f"the modelled ones are {', '.join(_modelled(spec))}" if spec else
                       "this command takes no keywords"))


def _modelled(spec: dict[str, Attr]) -> list[str]:
    return sorted(kw for kw, a in spec.items() if a.kind != "raw")


def _elsewhere(kw: str, objtype: str) -> str:
    """A hint when ``kw`` (or a near miss of it) belongs to another object type."""
    for other, spec in (*OBJECT_ATTRS.items(), ("QMGR", QMGR_ATTRS)):
        if other == objtype:
            continue
        hint = near_miss(kw, _modelled(spec))
        if kw in spec or hint:
            name = kw if kw in spec else hint.removeprefix("did you mean ").rstrip("?")
            return f"{name} is an attribute of {other}, not of {objtype}"
    return ""


def _check_raw_value(it: _Item, objtype: str, where: str, file: str) -> None:
    """Refuse a value runmqsc refuses for an attribute kept as raw text (QUEUE_RAW_VALUES,
    DESCR's length); the value itself stays raw.

    >>> parse("DEFINE QLOCAL(Q1) DEFPSIST(MAYBE)", file="q.mqsc")
    Traceback (most recent call last):
    ...
    spec.errors.InputError: q.mqsc:1:28: DEFINE QLOCAL(Q1): DEFPSIST(MAYBE) is not valid; expected DEFPSIST(YES|NO)
    >>> parse("DEFINE QLOCAL(Q1) SHARE DEFPSIST(yes) MAXDEPTH(5000)")[0].get("DEFPSIST")
    'YES'
    """
    if it.keyword == "DESCR" and it.values is not None and len(it.values) == 1:
        text = it.values[0].text
        if len(text) > DESCR_LENGTH:
            raise InputError(f"{where}: DESCR is {len(text)} characters; MQ allows at most {DESCR_LENGTH}",
                             file=file, line=it.values[0].line, column=it.values[0].column,
                             suggestion="shorten the description")
        return
    rule = QUEUE_RAW_VALUES.get(it.keyword) if objtype in ("QLOCAL", "QREMOTE", "QALIAS") else None
    if rule is not None:
        _typed_value(it, rule, where, file)


def _typed_value(it: _Item, attr: Attr, where: str, file: str) -> Value:
    kw, tok = it.keyword, it.token
    if attr.kind == "flag":
        if it.values is not None:
            raise InputError(f"{where}: {kw} takes no value", file=file, line=tok.line,
                             column=tok.column, suggestion=f"write {kw} alone")
        return attr.flag_value
    if attr.kind == "raw":
        return _raw_value(it)
    if it.values is None:
        example = {"enum": attr.choices[0] if attr.choices else "X", "int": str(attr.lo),
                   "list": "A,B"}.get(attr.kind, "NAME")
        raise InputError(f"{where}: {kw} needs a value in parentheses", file=file,
                         line=tok.line, column=tok.column, suggestion=f"e.g. {kw}({example})")
    if attr.kind == "list":
        names = tuple(_name_text(v) for v in it.values)
        for v, n in zip(it.values, names):
            _check_name(n, v, where, f"{kw} entry", 48, file,
                        kind=_ATTR_NAME_KIND.get(kw, "object"))
        return names
    if len(it.values) != 1:
        raise InputError(f"{where}: {kw} takes one value, found {len(it.values)}", file=file,
                         line=tok.line, column=tok.column)
    value = it.values[0]
    if attr.kind == "name":
        return _check_name(_name_text(value), value, where, kw, attr.maxlen, file,
                           allow_blank=True, kind=_ATTR_NAME_KIND.get(kw, "object"))
    if attr.kind == "text":
        return value.text if value.kind == "quoted" else value.text.upper()
    word = value.text.strip().upper()
    if attr.kind == "enum":
        if word not in attr.choices:
            raise InputError(f"{where}: {kw}({value.text}) is not valid; expected "
                             f"{kw}({'|'.join(attr.choices)})", file=file, line=value.line,
                             column=value.column,
                             suggestion=near_miss(word, attr.choices))
        return word
    # int
    if not (word.isascii() and word.isdigit()) or len(word) > 12:
        raise InputError(f"{where}: {kw}({value.text}) is not a number; expected "
                         f"{kw}({attr.lo}-{attr.hi})", file=file, line=value.line,
                         column=value.column)
    number = int(word)
    if not attr.lo <= number <= attr.hi:
        raise InputError(f"{where}: {kw}({number}) is out of range; expected {attr.lo} to "
                         f"{attr.hi}", file=file, line=value.line, column=value.column)
    return number


def _check_required(cmd: Command, head: _Item) -> None:
    for group in REQUIRED.get((cmd.verb, cmd.objtype), ()):
        if not any(cmd.has(kw) for kw in group):
            need = " or ".join(f"{kw}(...)" for kw in group)
            raise InputError(f"{cmd.title()}: {need} is required", file=cmd.file,
                             line=head.token.line, column=head.token.column,
                             suggestion=f"add {group[0]}(...)")


def _check_topics(cmd: Command) -> None:
    """Topic strings must be valid where the command alone decides (002 §Topic strings)."""
    try:
        if cmd.verb == "DEFINE" and cmd.objtype == "TOPIC":
            validate_topic_string(str(cmd.get("TOPICSTR")))
        elif cmd.verb == "DEFINE" and cmd.objtype == "SUB" and not cmd.has("TOPICOBJ"):
            full = join_topic("", str(cmd.get("TOPICSTR")))
            compile_subscription(full, "char" if cmd.get("WSCHEMA") == "CHAR" else "topic")
        elif cmd.objtype == "TOPICSTR":
            validate_topic_string(cmd.name)
    except TopicStringError as err:
        keyword = "" if cmd.objtype == "TOPICSTR" else "TOPICSTR"
        raise cmd.error(f"TOPICSTR is not valid: {err.message}", keyword,
                        suggestion=err.suggestion) from None


# --------------------------------------------------------------------------- rendering

def _quote(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


_BARE_NAME = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._/%")


def _render_name(name: str) -> str:
    """A name bare when reading it back unquoted gives the same name, else quoted."""
    return name if name and set(name) <= _BARE_NAME else _quote(name)


def _render_value(value: Value) -> str:
    if isinstance(value, bool):  # pragma: no cover - flags are rendered by keyword
        return ""
    if isinstance(value, int):
        return str(value)
    if isinstance(value, tuple):
        return ",".join(_render_name(v) for v in value)
    return _quote(value)


_FLAG_NAMES = {"REPLACE": ("REPLACE", "NOREPLACE"), "PURGE": ("PURGE", "NOPURGE")}


def render_command(cmd: Command) -> str:
    """One command as one line of MQSC that :func:`parse` reads back to an equal command.

    >>> render_command(parse("def topic(sports) topicstr('Sports') cluster(cl1) replace")[0])
    "DEFINE TOPIC(SPORTS) CLUSTER(CL1) REPLACE TOPICSTR('Sports')"
    """
    chltype = str(cmd.get("CHLTYPE", "")) if cmd.objtype == "CHANNEL" else ""
    spec = attribute_keywords(cmd.verb, cmd.objtype, chltype) if cmd.modelled else {}
    parts = [cmd.verb, cmd.objtype]
    if cmd.name:
        shown = _quote(cmd.name) if cmd.objtype == "TOPICSTR" else _render_name(cmd.name)
        parts[-1] += f"({shown})"
    for kw, value in cmd.attrs:
        kind = spec[kw].kind if kw in spec else "raw"
        if kw in _FLAG_NAMES and isinstance(value, bool):
            parts.append(_FLAG_NAMES[kw][0 if value else 1])
        elif value is True:
            parts.append(kw)
        elif kw == "WHERE" and isinstance(value, tuple) and len(value) == 3:  # DISPLAY's filter
            parts.append(f"WHERE({value[0]} {value[1]} {_render_value(value[2])})")
        elif kind == "enum" or isinstance(value, int):
            parts.append(f"{kw}({value})")
        elif kind == "name" and isinstance(value, str):
            parts.append(f"{kw}({_render_name(value)})")
        else:
            parts.append(f"{kw}({_render_value(value)})")
    return " ".join(parts)


def render(commands) -> str:
    """Commands as an MQSC script, one command per line."""
    return "".join(render_command(c) + "\n" for c in commands)
