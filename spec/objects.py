"""A queue manager's object definitions, and what MQSC commands do to them.

:class:`QueueManagerDef` is one queue manager's configuration as immutable values: its
topic objects (SYSTEM.BASE.TOPIC always among them), administrative (durable)
subscriptions, queues, channels, namelists and the queue-manager attributes the cluster and
publish/subscribe semantics read (DESIGN §3.2-§3.6). :func:`apply_command` is a pure
function ``(definitions, command) -> (definitions, Outcome)``: the outcome says whether MQ
would accept the command and, if not, the message runmqsc would print; a rejected command
changes nothing. Runtime operations (SUSPEND/RESUME, REFRESH CLUSTER, RESET CLUSTER,
REFRESH QMGR TYPE(PROXYSUB), CLEAR TOPICSTR, START/STOP CHANNEL) change no definition: the
outcome carries them as an ``operation`` for the network model (spec.network) to perform.

Abstracted away: attributes nothing here reads (DESCR, MAXDEPTH, ...), object types we do
not model (LISTENER, QMODEL, ...), authorities, z/OS queue-sharing groups, and checks that
need the running network (a subscription's effective DURSUB/SUB via cluster topics, DEST
queues existing, channels being in use). Every tuple is sorted by name so equal
configurations encode equally (STYLE habit 5).
"""

from __future__ import annotations

import functools
from bisect import bisect_left
from dataclasses import field, fields
from operator import attrgetter
from typing import Union

from spec import lookup
from spec.default_objects import (  # noqa: F401 (re-exported: objects.SYSTEM_DEFAULTS, ...)
    CLUSTER_QUEUES, DEFAULT_OBJECTS as _DEFAULT_OBJECTS, PUBSUB_QUEUES, ROOT_TOPICS, SYSTEM_DEFAULTS, SYSTEM_QUEUES,
)
from spec.mqsc import Command
from spec.topics import TopicStringError, compile_subscription, join_topic
from spec.values import replace, value

__all__ = [
    "ASPARENT", "BASE_TOPIC", "BASE_TOPIC_OBJECT",
    "TopicObject", "Subscription", "Queue", "Channel", "Namelist", "QueueManagerDef",
    "Outcome", "Operation", "AlterDefaultObject", "SuspendCluster", "ResumeCluster", "RefreshCluster",
    "ResetCluster", "RefreshProxySubscriptions", "ClearRetained", "StartChannel",
    "StopChannel",
    "apply_command", "apply_commands", "clusters_of", "repos_clusters", "definitions",
    "conname_key", "shares_address",
    "AMQ8147", "AMQ8150", "AMQ8151",
]

ASPARENT = "ASPARENT"
BASE_TOPIC = "SYSTEM.BASE.TOPIC"


# --------------------------------------------------------------------------- objects

@value
class TopicObject:
    """An administrative topic object (002 §Administrative topic objects).

    Defaults are SYSTEM.DEFAULT.TOPIC's: every inheritable attribute ASPARENT, CLUSTER
    blank (inherit), PROXYSUB(FIRSTUSE), WILDCARD(PASSTHRU). ``cluster`` ``""`` is blank.
    """

    name: str
    topicstr: str
    cluster: str = ""
    pubscope: str = ASPARENT  # QMGR | ALL | ASPARENT  (002 §Cluster topic attributes)
    subscope: str = ASPARENT  # QMGR | ALL | ASPARENT
    proxysub: str = "FIRSTUSE"  # FIRSTUSE | FORCE  (002 §... PROXYSUB)
    wildcard: str = "PASSTHRU"  # BLOCK | PASSTHRU  (002 §Controlling wildcard usage)
    dursub: str = ASPARENT  # YES | NO | ASPARENT
    pub: str = ASPARENT  # ENABLED | DISABLED | ASPARENT
    sub: str = ASPARENT  # ENABLED | DISABLED | ASPARENT


# DESIGN §3.2 / 002 §Administrative topic objects: the root of every topic tree.
BASE_TOPIC_OBJECT = TopicObject(
    BASE_TOPIC, "", cluster="", pubscope="ALL", subscope="ALL", proxysub="FIRSTUSE",
    wildcard="PASSTHRU", dursub="YES", pub="ENABLED", sub="ENABLED",
)


@value
class Subscription:
    """A durable administrative subscription (DEFINE SUB).

    ``topicstr`` is the full topic string, joined from TOPICOBJ's TOPICSTR and TOPICSTR
    when it was defined (002 §Constructing topic names); ``topicobj`` is kept for display
    only: "the subscription, when created, no longer refers to the topic object" (002).
    ``order`` is the creation order number (grouped-subscription tie break, DESIGN §3.3).
    """

    name: str
    topicstr: str
    topicobj: str = ""
    wschema: str = "TOPIC"  # TOPIC | CHAR  (002 §Wildcard schemes: topic is the default)
    dest: str = ""
    destqmgr: str = ""
    subscope: str = "ALL"  # ALL | QMGR
    durable: bool = True
    order: int = 0


@value
class Queue:
    """A local queue, remote queue (or queue manager alias) or alias queue.

    Attributes another type does not have stay at their defaults. A QREMOTE with a blank
    RNAME is a queue manager alias (000 §Routing into and out of clusters).
    """

    name: str
    qtype: str  # QLOCAL | QREMOTE | QALIAS
    cluster: str = ""
    clusnl: str = ""
    defbind: str = "OPEN"  # OPEN | NOTFIXED | GROUP  (000 §DEFBIND Queue attribute)
    put: str = "ENABLED"
    clwlrank: int = 0
    clwlprty: int = 0
    clwluseq: str = "QMGR"  # QLOCAL: QMGR | LOCAL | ANY  (001: QMGR defers to the qmgr)
    usage: str = "NORMAL"  # QLOCAL: NORMAL | XMITQ
    rname: str = ""  # QREMOTE
    rqmname: str = ""
    xmitq: str = ""
    target: str = ""  # QALIAS (TARGET, formerly TARGQ)
    targtype: str = "QUEUE"
    _digest: bytes | None = field(default=None, init=False, repr=False, compare=False)  # spec.encoding.DIGEST_FIELD

    @property
    def is_qmgr_alias(self) -> bool:
        return self.qtype == "QREMOTE" and not self.rname


@value
class Channel:
    """A channel definition; CLUSRCVR/CLUSSDR carry the cluster workload attributes."""

    name: str
    chltype: str  # CLUSRCVR | CLUSSDR | SDR | RCVR | ... (others kept, not modelled)
    conname: str = ""
    cluster: str = ""
    clusnl: str = ""
    clwlwght: int = 50  # 000 §Channel Weight: 1-99, default 50
    clwlrank: int = 0
    clwlprty: int = 0
    netprty: int = 0
    xmitq: str = ""


@value
class Namelist:
    name: str
    names: tuple[str, ...] = ()


@value
class QueueManagerDef:
    """Everything one queue manager has been told by MQSC. Tuples are sorted by name."""

    name: str
    repos: str = ""  # 003 §Queue managers and repositories: full repository for REPOS
    reposnl: str = ""
    clwluseq: str = "LOCAL"  # LOCAL | ANY
    clwlmruc: int = 999999999
    parent: str = ""  # 002 §Connect a queue manager to a broker hierarchy
    psmode: str = "ENABLED"  # ENABLED | DISABLED | COMPAT
    psclus: str = "ENABLED"
    topics: tuple[TopicObject, ...] = (BASE_TOPIC_OBJECT,)
    subscriptions: tuple[Subscription, ...] = ()
    queues: tuple[Queue, ...] = ()
    channels: tuple[Channel, ...] = ()
    namelists: tuple[Namelist, ...] = ()
    next_order: int = 0  # the order number the next DEFINE SUB gets
    _digest: bytes | None = field(default=None, init=False, repr=False, compare=False)  # spec.encoding.DIGEST_FIELD

    def topic(self, name: str) -> TopicObject | None:
        return _find(self.topics, name)

    def subscription(self, name: str) -> Subscription | None:
        return _find(self.subscriptions, name)

    def queue(self, name: str) -> Queue | None:
        return _find(self.queues, name)

    def channel(self, name: str) -> Channel | None:
        return _find(self.channels, name)

    def namelist(self, name: str) -> Namelist | None:
        return _find(self.namelists, name)

    def topic_by_string(self, topicstr: str) -> TopicObject | None:
        # a table lookup, not a scan: DEFINE TOPIC checks every new TOPICSTR against the
        # others, and 10^4 topic objects must still load in seconds (spec.lookup)
        return lookup.first(self.topics, "topicstr", topicstr)


_NAME = attrgetter("name")


def _index(objects: tuple, name: str) -> int:
    """Where ``name`` is, or would be inserted, in ``objects`` (sorted by name): a binary
    search, so a lookup by name costs log n, not a scan (10^4 definitions load in seconds)."""
    return bisect_left(objects, name, key=_NAME)


def _find(objects: tuple, name: str):
    i = _index(objects, name)
    return objects[i] if i < len(objects) and objects[i].name == name else None


def _put(objects: tuple, obj) -> tuple:
    """``objects`` with ``obj`` added or replacing the one of the same name, sorted."""
    i = _index(objects, obj.name)
    after = i + 1 if i < len(objects) and objects[i].name == obj.name else i
    return objects[:i] + (obj,) + objects[after:]


def _drop(objects: tuple, name: str) -> tuple:
    i = _index(objects, name)
    if i < len(objects) and objects[i].name == name:
        return objects[:i] + objects[i + 1:]
    return objects


# --------------------------------------------------------------------------- namelists

def clusters_of(obj, qm: QueueManagerDef) -> tuple[str, ...]:
    """The clusters a queue, channel or topic object is in: CLUSTER, or CLUSNL's names.

    A missing namelist names no cluster (MQ resolves CLUSNL when it is used).

    >>> from spec.mqsc import parse
    >>> qm, _ = apply_commands(QueueManagerDef("QM1"), parse(
    ...     "DEF NAMELIST(CLNL) NAMES(BLUE,RED)\\nDEF CHL(TO.QM1) CHLTYPE(CLUSRCVR) CLUSNL(CLNL)"))
    >>> clusters_of(qm.channel("TO.QM1"), qm)
    ('BLUE', 'RED')
    """
    if getattr(obj, "cluster", ""):
        return (obj.cluster,)
    return _expand(getattr(obj, "clusnl", ""), qm)


def repos_clusters(qm: QueueManagerDef) -> tuple[str, ...]:
    """The clusters ``qm`` is a full repository for (REPOS or REPOSNL's names).

    >>> repos_clusters(replace(QueueManagerDef("QM1"), repos="CL1"))
    ('CL1',)
    """
    return (qm.repos,) if qm.repos else _expand(qm.reposnl, qm)


def _expand(namelist: str, qm: QueueManagerDef) -> tuple[str, ...]:
    nl = qm.namelist(namelist) if namelist else None
    if nl is None:
        return ()
    return tuple(dict.fromkeys(n for n in nl.names if n))


# A CLUSRCVR's CONNAME left blank (a user trial, session 32: reported where a CLUSSDR then
# reaches nothing, by `run`'s "Not joined" and by lint's CLUSSDR-TARGET).
BLANK_CONNAME = ("has a blank CONNAME, which MQ fills in at run time from its machine's IP address; "
                 "mqcheck cannot know that address: write it in the CLUSRCVR's CONNAME")


@functools.lru_cache(maxsize=4096)  # pure, and asked for the same few CONNAMEs at every state
def conname_key(conname: str) -> tuple[tuple[str, str], ...]:
    """CONNAME as comparable (host, port) pairs: host names ignore case and blanks, the
    port defaults to 1414, and a comma-separated list keeps its order.

    DESIGN §3.4: a CLUSSDR's CONNAME must equal some CLUSRCVR's CONNAME (or share an
    address with it: :func:`shares_address`); 002 writes the same address as
    'LOCALHOST(1421)' and 'localhost(9999)' style, so compare keys.

    >>> conname_key("LOCALHOST(1421)") == conname_key(" localhost (1421) ")
    True
    >>> conname_key("server1(2345),server2")
    (('server1', '2345'), ('server2', '1414'))
    """
    pairs = []
    for entry in conname.split(","):
        text = "".join(entry.split()).casefold()
        host, _, rest = text.partition("(")
        port = rest.rstrip(")") or "1414"
        pairs.append((host, port.lstrip("0") or "0"))
    return tuple(pairs)


def shares_address(a: str, b: str) -> bool:
    """Whether two CONNAMEs name a common address (``conname_key``'s pairs; blank hosts never
    match). A multi-instance queue manager's CLUSRCVR lists each instance's address, and a
    CLUSSDR naming any one of them reaches it (the instance running there); two single
    addresses share one only when equal.

    >>> shares_address("fr1a(1414),fr1b(1414)", "FR1B")
    True
    >>> shares_address("fr1a(1414)", "fr1a(1415)")
    False
    """
    return bool({p for p in conname_key(a) if p[0]} & set(conname_key(b)))


# --------------------------------------------------------------------------- outcomes

@value
class SuspendCluster:
    """SUSPEND QMGR CLUSTER(..)|CLUSNL(..) (000 §Workload management features)."""

    clusters: tuple[str, ...]
    mode: str = "QUIESCE"


@value
class ResumeCluster:
    clusters: tuple[str, ...]


@value
class RefreshCluster:
    """REFRESH CLUSTER(..) [REPOS(YES)]: discard what was learnt of the cluster and rebuild
    it from the full repositories (000 §Refreshing repository information). ``cluster``
    may be generic (``*``)."""

    cluster: str
    repos: bool = False


@value
class ResetCluster:
    """RESET CLUSTER(..) ACTION(FORCEREMOVE) QMNAME(..)|QMID(..) [QUEUES(YES)], at a full
    repository (000 §Incorrectly deleted queue managers)."""

    cluster: str
    qmname: str = ""
    qmid: str = ""
    queues: bool = False


@value
class RefreshProxySubscriptions:
    """REFRESH QMGR TYPE(PROXYSUB) (002 §Resynchronization of proxy subscriptions)."""


@value
class ClearRetained:
    """CLEAR TOPICSTR(..) CLTRTYPE(RETAINED): remove the retained publication (002 §Retained
    publications)."""

    topicstr: str


@value
class StartChannel:
    name: str


@value
class StopChannel:
    name: str


@value
class AlterDefaultObject:
    """ALTER of one of MQ's default objects (:data:`SYSTEM_DEFAULTS`) this queue manager did
    not define: accepted, as MQ does, and not modelled (it sets what later DEFINEs start
    from); ``spec.network.steps.unmodelled_in`` says so."""

    name: str


Operation = Union[SuspendCluster, ResumeCluster, RefreshCluster, ResetCluster,
                  RefreshProxySubscriptions, ClearRetained, StartChannel, StopChannel, AlterDefaultObject]


@value
class Outcome:
    """What a queue manager made of one command.

    ``accepted`` False: ``message`` is what runmqsc would print (an AMQ message where we
    know its number, else the PCF reason and the seed it comes from) and nothing changed.
    ``operation`` is set for runtime operations. ``modelled`` False: accepted and ignored.
    """

    command: Command
    accepted: bool
    message: str = ""
    operation: Operation | None = None
    modelled: bool = True


def AMQ8147(name: str) -> str:
    return f"AMQ8147: IBM MQ object {name} not found."


def AMQ8150(name: str) -> str:
    return f"AMQ8150: IBM MQ object {name} already exists."


def AMQ8151(name: str) -> str:
    return f"AMQ8151: IBM MQ object {name} has different type."


class _Rejected(Exception):
    """Internal: a command MQ would reject; never escapes this module."""


# --------------------------------------------------------------------------- applying

def apply_commands(qm: QueueManagerDef, commands) -> tuple[QueueManagerDef, tuple[Outcome, ...]]:
    """Apply commands in order, like one runmqsc session; rejected ones change nothing."""
    outcomes = []
    for cmd in commands:
        qm, outcome = apply_command(qm, cmd)
        outcomes.append(outcome)
    return qm, tuple(outcomes)


def apply_command(qm: QueueManagerDef, cmd: Command, cluster_topics: tuple = ()) -> tuple[QueueManagerDef, Outcome]:
    """One command's effect on ``qm`` and what runmqsc would say. ``cluster_topics``: the
    cluster topic definitions known at the queue manager, which DEFINE SUB TOPICOBJ may
    name (:func:`resolve_topicobj`).

    >>> from spec.mqsc import parse
    >>> qm, out = apply_command(QueueManagerDef("QM1"), parse("ALTER QLOCAL(Q1) PUT(DISABLED)")[0])
    >>> out.accepted, out.message
    (False, 'AMQ8147: IBM MQ object Q1 not found.')
    """
    if not cmd.modelled:
        return qm, Outcome(cmd, True, modelled=False)
    handler = _HANDLERS.get((cmd.verb, cmd.objtype))
    assert handler is not None, f"mqsc.MODELLED_TYPES has no handler for {cmd.title()}"
    if cmd.verb == "ALTER" and cmd.name in _DEFAULT_OBJECTS and not _defines(qm, cmd.name):
        return qm, Outcome(cmd, True, operation=AlterDefaultObject(cmd.name))
    try:
        if handler is _define_sub or handler is _alter_qmgr:  # they read what the network knows
            new_qm, operation = handler(qm, cmd, cluster_topics)
        else:
            new_qm, operation = handler(qm, cmd)
    except _Rejected as rejected:
        return qm, Outcome(cmd, False, str(rejected))
    return new_qm, Outcome(cmd, True, operation=operation)


def _field_values(cmd: Command, cls, skip: tuple[str, ...] = ()) -> dict:
    """The command's attributes that are fields of ``cls`` (``CLWLWGHT`` -> ``clwlwght``)."""
    names = {f.name for f in fields(cls) if f.init}
    return {kw.lower(): value for kw, value in cmd.attrs
            if kw.lower() in names and kw not in skip and kw.lower() != "name"}


# MQ's default objects and the system queues every queue manager has: spec/default_objects.py


def _defines(qm: QueueManagerDef, name: str) -> bool:
    """Whether this queue manager's MQSC defined an object called ``name`` (of any type)."""
    return any(find(name) is not None for find in (qm.queue, qm.channel, qm.topic, qm.subscription, qm.namelist))


def _base_for_define(existing, like, default, cmd: Command, kind: str):
    """Where a DEFINE of type ``kind`` (a key of :data:`SYSTEM_DEFAULTS`) starts from:
    LIKE's object, else the type's defaults.

    MQ: REPLACE is "similar to ALTER ... with all the other parameters specified", so a
    replaced definition starts from the defaults too, not from the old definition.
    """
    if (existing is not None or _DEFAULT_OBJECTS.get(cmd.name) == kind) and cmd.get("REPLACE") is not True:
        raise _Rejected(AMQ8150(cmd.name))  # a default object exists unless replaced (003, above)
    if cmd.has("LIKE"):
        name = str(cmd.get("LIKE"))
        if like is None and _DEFAULT_OBJECTS.get(name) == kind:
            return replace(default, usage=SYSTEM_QUEUES[name]) if name in SYSTEM_QUEUES else default
        if like is None and name in _DEFAULT_OBJECTS:
            raise _Rejected(AMQ8151(name))
        if like is None:
            raise _Rejected(AMQ8147(name))
        return replace(like, name=cmd.name)
    return default


def _check_cluster_pair(obj, what: str) -> None:
    if getattr(obj, "cluster", "") and getattr(obj, "clusnl", ""):
        raise _Rejected(f"MQRCCF_CLUSTER_NAME_CONFLICT: {what}: only one of the resultant "
                        f"values of CLUSTER or CLUSNL can be nonblank.")


# -- queues

def _define_queue(qm: QueueManagerDef, cmd: Command):
    existing = qm.queue(cmd.name)
    if existing is not None and existing.qtype != cmd.objtype and cmd.get("REPLACE") is True:
        raise _Rejected(AMQ8151(cmd.name))
    like = qm.queue(str(cmd.get("LIKE", "")))
    if like is not None and like.qtype != cmd.objtype:
        raise _Rejected(AMQ8151(like.name))
    base = _base_for_define(existing, like, Queue(cmd.name, cmd.objtype), cmd, cmd.objtype)
    queue = replace(base, **_field_values(cmd, Queue))
    _check_cluster_pair(queue, f"{cmd.objtype}({cmd.name})")
    return replace(qm, queues=_put(qm.queues, queue)), None


def _existing_queue(qm: QueueManagerDef, cmd: Command) -> Queue:
    queue = qm.queue(cmd.name)
    if queue is None:
        raise _Rejected(AMQ8147(cmd.name))
    if queue.qtype != cmd.objtype:
        raise _Rejected(AMQ8151(cmd.name))
    return queue


def _alter_queue(qm: QueueManagerDef, cmd: Command):
    queue = replace(_existing_queue(qm, cmd), **_field_values(cmd, Queue))
    _check_cluster_pair(queue, f"{cmd.objtype}({cmd.name})")
    return replace(qm, queues=_put(qm.queues, queue)), None


def _delete_queue(qm: QueueManagerDef, cmd: Command):
    _existing_queue(qm, cmd)
    return replace(qm, queues=_drop(qm.queues, cmd.name)), None


# -- topics

def _define_topic(qm: QueueManagerDef, cmd: Command):
    existing = qm.topic(cmd.name)
    topicstr = str(cmd.get("TOPICSTR"))
    like = qm.topic(str(cmd.get("LIKE", "")))
    base = _base_for_define(existing, like, TopicObject(cmd.name, topicstr), cmd, "TOPIC")
    if existing is not None and existing.topicstr != topicstr:
        # 002 §...Figure 7 note: "The REPLACE option does not replace the TOPICSTR
        # properties of a topic. ... To change topics, delete the topic first."
        raise _Rejected(f"TOPIC({cmd.name}) REPLACE: the REPLACE option does not replace the "
                        f"TOPICSTR of a topic ({existing.topicstr!r} stays, {topicstr!r} was "
                        f"given); delete the topic first (002).")
    other = qm.topic_by_string(topicstr)
    if other is not None and other.name != cmd.name:
        raise _Rejected(f"MQRCCF_TOPICSTR_ALREADY_EXISTS: the topic string {topicstr!r} "
                        f"already exists in another topic object ({other.name}).")
    topic = replace(base, **_field_values(cmd, TopicObject))
    _check_base_topic(topic)
    _check_psclus(qm, topic)
    return replace(qm, topics=_put_topic(qm.topics, topic, existing)), None


def _put_topic(topics: tuple, topic: TopicObject, existing: TopicObject | None) -> tuple:
    """``_put`` for topic objects, keeping the topic-string table (spec.lookup)."""
    return lookup.handed_over(topics, _put(topics, topic), "topicstr", topic, existing)


def _check_psclus(qm: QueueManagerDef, topic: TopicObject) -> None:
    # 002 §Inhibiting clustered publish/subscribe in a cluster: PSCLUS(DISABLED) stops the
    # creation of a publish/subscribe cluster "by accidentally ... defining a clustered topic"
    if qm.psclus == "DISABLED" and topic.cluster:
        raise _Rejected(f"TOPIC({topic.name}) CLUSTER({topic.cluster}): clustered topics cannot "
                        f"be defined while the queue manager's PSCLUS is DISABLED (002 "
                        f"§Inhibiting clustered publish/subscribe in a cluster).")


def _check_base_topic(topic: TopicObject) -> None:
    if topic.name != BASE_TOPIC:
        return
    for attr in ("pubscope", "subscope", "dursub", "pub", "sub"):
        if getattr(topic, attr) == ASPARENT:
            raise _Rejected(f"TOPIC({BASE_TOPIC}): {attr.upper()}(ASPARENT) is not allowed on "
                            f"the root of the topic tree, which has no parent.")


def _alter_topic(qm: QueueManagerDef, cmd: Command):
    existing = qm.topic(cmd.name)
    if existing is None:
        raise _Rejected(AMQ8147(cmd.name))
    topic = replace(existing, **_field_values(cmd, TopicObject))
    _check_base_topic(topic)
    if topic.cluster != existing.cluster:
        _check_psclus(qm, topic)
    return replace(qm, topics=_put_topic(qm.topics, topic, existing)), None


def _delete_topic(qm: QueueManagerDef, cmd: Command):
    if qm.topic(cmd.name) is None:
        raise _Rejected(AMQ8147(cmd.name))
    if cmd.name == BASE_TOPIC:
        raise _Rejected(f"TOPIC({BASE_TOPIC}): mqcheck does not model a queue manager "
                        f"without the root topic object; ALTER it instead.")
    # subscriptions made with TOPICOBJ keep their topic string (002: "no longer refers")
    return replace(qm, topics=_drop(qm.topics, cmd.name)), None


# -- subscriptions

def resolve_topicobj(qm: QueueManagerDef, name: str, cluster_topics: tuple = ()) -> TopicObject | None:
    """The topic object a TOPICOBJ names: a local one first, else the most recent cluster
    topic definition of that name known here (``cluster_topics``, oldest first). 002 §Topic
    spaces, Case 1 item 3: "An application or administrator, anywhere in the cluster, can
    create a subscription to USA/Alabama by referring to the Alabama topic object."

    >>> from spec.mqsc import parse
    >>> qm, _ = apply_commands(QueueManagerDef("QM1"), parse("DEFINE TOPIC(A) TOPICSTR('a')"))
    >>> resolve_topicobj(qm, "A").topicstr, resolve_topicobj(qm, "B")
    ('a', None)
    >>> resolve_topicobj(qm, "B", (TopicObject("B", "b", cluster="CL"),)).topicstr
    'b'
    """
    obj = qm.topic(name)
    if obj is not None:
        return obj
    found = None
    for record in cluster_topics:
        if record.name == name:
            found = record
    return found


def _subscription_topic(qm: QueueManagerDef, cmd: Command, cluster_topics: tuple = ()) -> tuple[str, str]:
    """(full topic string, TOPICOBJ name) for a DEFINE SUB (002 §Constructing topic names);
    TOPICOBJ may name a cluster topic known here (:func:`resolve_topicobj`)."""
    objname = str(cmd.get("TOPICOBJ", ""))
    topicstr = str(cmd.get("TOPICSTR", ""))
    head = ""
    if objname:
        obj = resolve_topicobj(qm, objname, cluster_topics)
        if obj is None:
            raise _Rejected(AMQ8147(objname))
        head = obj.topicstr
    try:
        full = join_topic(head, topicstr)
        compile_subscription(full, "char" if cmd.get("WSCHEMA") == "CHAR" else "topic")
    except TopicStringError as err:
        raise _Rejected(f"{err.reason}: {err.message}") from None
    return full, objname


def _define_sub(qm: QueueManagerDef, cmd: Command, cluster_topics: tuple = ()):
    existing = qm.subscription(cmd.name)
    full, objname = _subscription_topic(qm, cmd, cluster_topics)
    like = qm.subscription(str(cmd.get("LIKE", "")))
    order = existing.order if existing is not None else qm.next_order
    default = Subscription(cmd.name, full, objname, order=order)
    base = _base_for_define(existing, like, default, cmd, "SUB")
    if existing is not None and (existing.topicstr, existing.topicobj) != (full, objname):
        # 002: "The REPLACE option does not replace TOPICOBJ or TOPICSTR properties of a
        # subscription. ... To change them, delete the subscription first."
        raise _Rejected(f"SUB({cmd.name}) REPLACE: the REPLACE option does not replace "
                        f"TOPICOBJ or TOPICSTR of a subscription; delete the subscription "
                        f"first (002).")
    values = _field_values(cmd, Subscription, skip=("TOPICSTR", "TOPICOBJ"))
    sub = replace(base, topicstr=full, topicobj=objname, order=order, **values)
    if existing is not None:
        _check_unalterable_sub(existing, sub)
    next_order = qm.next_order if existing is not None else qm.next_order + 1
    return replace(qm, subscriptions=_put(qm.subscriptions, sub), next_order=next_order), None


def _check_unalterable_sub(existing: Subscription, sub: Subscription) -> None:
    # REPLACE is "similar to ALTER ... with all the other parameters specified", and ALTER
    # SUB cannot change WSCHEMA or SUBSCOPE (the ALTER SUB usage notes encoded in
    # spec.mqsc.NOT_ALTERABLE): MQ refuses the command rather than keep the old value
    for attr in ("wschema", "subscope"):
        old, new = getattr(existing, attr), getattr(sub, attr)
        if old != new:
            raise _Rejected(f"SUB({sub.name}) REPLACE: {attr.upper()} of an existing subscription "
                            f"cannot be changed ({old} -> {new}); delete the subscription first.")


def _alter_sub(qm: QueueManagerDef, cmd: Command):
    existing = qm.subscription(cmd.name)
    if existing is None:
        raise _Rejected(AMQ8147(cmd.name))
    sub = replace(existing, **_field_values(cmd, Subscription))
    return replace(qm, subscriptions=_put(qm.subscriptions, sub)), None


def _delete_sub(qm: QueueManagerDef, cmd: Command):
    if qm.subscription(cmd.name) is None:
        raise _Rejected(AMQ8147(cmd.name))
    return replace(qm, subscriptions=_drop(qm.subscriptions, cmd.name)), None


# -- channels

def _define_channel(qm: QueueManagerDef, cmd: Command):
    existing = qm.channel(cmd.name)
    chltype = str(cmd.get("CHLTYPE"))
    if existing is not None and existing.chltype != chltype and cmd.get("REPLACE") is True:
        raise _Rejected(AMQ8151(cmd.name))
    like = qm.channel(str(cmd.get("LIKE", "")))
    if like is not None and like.chltype != chltype:
        raise _Rejected(AMQ8151(like.name))
    base = _base_for_define(existing, like, Channel(cmd.name, chltype), cmd, chltype)
    channel = replace(base, **_field_values(cmd, Channel))
    _check_cluster_pair(channel, f"CHANNEL({cmd.name})")
    return replace(qm, channels=_put(qm.channels, channel)), None


def _existing_channel(qm: QueueManagerDef, cmd: Command) -> Channel:
    channel = qm.channel(cmd.name)
    if channel is None:
        raise _Rejected(AMQ8147(cmd.name))
    if cmd.has("CHLTYPE") and cmd.get("CHLTYPE") != channel.chltype:
        raise _Rejected(AMQ8151(cmd.name))
    return channel


def _alter_channel(qm: QueueManagerDef, cmd: Command):
    channel = replace(_existing_channel(qm, cmd), **_field_values(cmd, Channel))
    _check_cluster_pair(channel, f"CHANNEL({cmd.name})")
    return replace(qm, channels=_put(qm.channels, channel)), None


def _delete_channel(qm: QueueManagerDef, cmd: Command):
    _existing_channel(qm, cmd)
    return replace(qm, channels=_drop(qm.channels, cmd.name)), None


# -- namelists

def _define_namelist(qm: QueueManagerDef, cmd: Command):
    existing = qm.namelist(cmd.name)
    like = qm.namelist(str(cmd.get("LIKE", "")))
    base = _base_for_define(existing, like, Namelist(cmd.name), cmd, "NAMELIST")
    namelist = replace(base, **_field_values(cmd, Namelist))
    return replace(qm, namelists=_put(qm.namelists, namelist)), None


def _alter_namelist(qm: QueueManagerDef, cmd: Command):
    existing = qm.namelist(cmd.name)
    if existing is None:
        raise _Rejected(AMQ8147(cmd.name))
    namelist = replace(existing, **_field_values(cmd, Namelist))
    return replace(qm, namelists=_put(qm.namelists, namelist)), None


def _delete_namelist(qm: QueueManagerDef, cmd: Command):
    if qm.namelist(cmd.name) is None:
        raise _Rejected(AMQ8147(cmd.name))
    return replace(qm, namelists=_drop(qm.namelists, cmd.name)), None


# -- the queue manager and runtime operations

def _alter_qmgr(qm: QueueManagerDef, cmd: Command, cluster_topics: tuple = ()):
    """ALTER QMGR; ``cluster_topics``: the cluster topic definitions known here (records
    from the other queue managers of its clusters)."""
    new = replace(qm, **_field_values(cmd, QueueManagerDef))
    if new.repos and new.reposnl:
        raise _Rejected("MQRCCF_REPOS_NAME_CONFLICT: only one of the resultant values of "
                        "REPOS or REPOSNL can be nonblank.")
    clustered = [t.name for t in qm.topics if t.cluster]
    # 002 §Inhibiting clustered publish/subscribe in a cluster: "No clustered topic objects
    # can exist in any cluster of which this queue manager is a member when modifying from
    # ENABLED to DISABLED. Any such topics (even remotely defined ones) must be deleted
    # before disabling this function" — the cluster topic records known here are those of
    # its clusters (the network model passes them)
    clustered += [f"{t.name} (cluster {t.cluster}, defined elsewhere)" for t in cluster_topics
                  if t.cluster and t.name not in clustered]
    if qm.psclus == "ENABLED" and new.psclus == "DISABLED" and clustered:
        raise _Rejected(f"PSCLUS(DISABLED): delete the clustered topic objects first "
                        f"({', '.join(dict.fromkeys(clustered))}) (002 §Inhibiting clustered "
                        f"publish/subscribe in a cluster).")
    return new, None


def _named_clusters(qm: QueueManagerDef, cmd: Command) -> tuple[str, ...]:
    if cmd.has("CLUSNL"):
        nl = qm.namelist(str(cmd.get("CLUSNL")))
        if nl is None:
            raise _Rejected(AMQ8147(str(cmd.get("CLUSNL"))))
        return tuple(dict.fromkeys(n for n in nl.names if n))
    return (str(cmd.get("CLUSTER")),)


def _suspend(qm: QueueManagerDef, cmd: Command):
    return qm, SuspendCluster(_named_clusters(qm, cmd), str(cmd.get("MODE", "QUIESCE")))


def _resume(qm: QueueManagerDef, cmd: Command):
    return qm, ResumeCluster(_named_clusters(qm, cmd))


def _refresh_cluster(qm: QueueManagerDef, cmd: Command):
    repos = cmd.get("REPOS") == "YES"
    if repos and cmd.name in repos_clusters(qm):
        # MQSC reference, REFRESH CLUSTER: REPOS(YES) on a full repository "will fail with an
        # error AMQ9406/CSQX406E logged"
        raise _Rejected(f"AMQ9406: REFRESH CLUSTER({cmd.name}) REPOS(YES) cannot be issued on a full "
                        f"repository of the cluster; alter it to a partial repository first.")
    return qm, RefreshCluster(cmd.name, repos)


def _reset_cluster(qm: QueueManagerDef, cmd: Command):
    if cmd.name not in repos_clusters(qm):
        # 000 §Incorrectly deleted queue managers: "It has to be run on a Full Repository"
        raise _Rejected(f"RESET CLUSTER({cmd.name}) must be issued on a full repository of "
                        f"{cmd.name} (000 §Incorrectly deleted queue managers).")
    return qm, ResetCluster(cmd.name, str(cmd.get("QMNAME", "")), str(cmd.get("QMID", "")),
                            cmd.get("QUEUES") == "YES")


def _refresh_qmgr(qm: QueueManagerDef, cmd: Command):
    return qm, RefreshProxySubscriptions() if cmd.get("TYPE") == "PROXYSUB" else None


def _clear_topicstr(qm: QueueManagerDef, cmd: Command):
    return qm, ClearRetained(cmd.name)


def _start_channel(qm: QueueManagerDef, cmd: Command):
    return qm, StartChannel(cmd.name)


def _stop_channel(qm: QueueManagerDef, cmd: Command):
    return qm, StopChannel(cmd.name)


_HANDLERS = {
    **{("DEFINE", t): _define_queue for t in ("QLOCAL", "QREMOTE", "QALIAS")},
    **{("ALTER", t): _alter_queue for t in ("QLOCAL", "QREMOTE", "QALIAS")},
    **{("DELETE", t): _delete_queue for t in ("QLOCAL", "QREMOTE", "QALIAS")},
    ("DEFINE", "TOPIC"): _define_topic, ("ALTER", "TOPIC"): _alter_topic,
    ("DELETE", "TOPIC"): _delete_topic,
    ("DEFINE", "SUB"): _define_sub, ("ALTER", "SUB"): _alter_sub, ("DELETE", "SUB"): _delete_sub,
    ("DEFINE", "CHANNEL"): _define_channel, ("ALTER", "CHANNEL"): _alter_channel,
    ("DELETE", "CHANNEL"): _delete_channel,
    ("DEFINE", "NAMELIST"): _define_namelist, ("ALTER", "NAMELIST"): _alter_namelist,
    ("DELETE", "NAMELIST"): _delete_namelist,
    ("ALTER", "QMGR"): _alter_qmgr,
    ("SUSPEND", "QMGR"): _suspend, ("RESUME", "QMGR"): _resume,
    ("REFRESH", "CLUSTER"): _refresh_cluster, ("RESET", "CLUSTER"): _reset_cluster,
    ("REFRESH", "QMGR"): _refresh_qmgr, ("CLEAR", "TOPICSTR"): _clear_topicstr,
    ("START", "CHANNEL"): _start_channel, ("STOP", "CHANNEL"): _stop_channel,
}


# --------------------------------------------------------------------------- back to MQSC

def _changed(obj, default, skip: tuple[str, ...] = ("name",)) -> list[tuple[str, object]]:
    return [(f.name.upper(), getattr(obj, f.name)) for f in fields(obj)
            if f.init and f.name not in skip and getattr(obj, f.name) != getattr(default, f.name)]


def _cmd(verb: str, objtype: str, name: str, attrs) -> Command:
    return Command(verb, objtype, name, tuple(sorted(attrs)))


def definitions(qm: QueueManagerDef) -> tuple[Command, ...]:
    """Commands that rebuild ``qm`` on a new queue manager of the same name.

    Order: the queue manager, namelists, queues, topic objects, channels, then
    subscriptions in creation order. A subscription made with TOPICOBJ is written with its
    full TOPICSTR (it "no longer refers to the topic object").
    ``render(definitions(qm))`` is how a configuration is shown to users.

    >>> from spec.mqsc import parse, render
    >>> qm, _ = apply_commands(QueueManagerDef("QM1"), parse(
    ...     "DEFINE TOPIC(F) TOPICSTR('Sports/Football') CLUSTER(CL1)\\n"
    ...     "DEFINE SUB(S) TOPICOBJ(F) TOPICSTR('Arsenal') DEST(Q)"))
    >>> print(render(definitions(qm)), end="")
    DEFINE TOPIC(F) CLUSTER(CL1) TOPICSTR('Sports/Football')
    DEFINE SUB(S) DEST(Q) TOPICSTR('Sports/Football/Arsenal')
    """
    out: list[Command] = []
    qm_attrs = _changed(qm, QueueManagerDef(qm.name),
                        skip=("name", "topics", "subscriptions", "queues", "channels",
                              "namelists", "next_order"))
    if qm_attrs:
        out.append(_cmd("ALTER", "QMGR", "", qm_attrs))
    for nl in qm.namelists:
        out.append(_cmd("DEFINE", "NAMELIST", nl.name, [("NAMES", nl.names)]))
    for q in qm.queues:
        out.append(_cmd("DEFINE", q.qtype, q.name,
                        _changed(q, Queue(q.name, q.qtype), skip=("name", "qtype"))))
    for t in qm.topics:
        if t.name == BASE_TOPIC:
            changed = _changed(t, BASE_TOPIC_OBJECT, skip=("name", "topicstr"))
            if changed:
                out.append(_cmd("ALTER", "TOPIC", t.name, changed))
            continue
        out.append(_cmd("DEFINE", "TOPIC", t.name,
                        [("TOPICSTR", t.topicstr)] + _changed(t, TopicObject(t.name, t.topicstr),
                                                              skip=("name", "topicstr"))))
    for c in qm.channels:
        out.append(_cmd("DEFINE", "CHANNEL", c.name,
                        [("CHLTYPE", c.chltype)] + _changed(c, Channel(c.name, c.chltype),
                                                            skip=("name", "chltype"))))
    for s in sorted(qm.subscriptions, key=lambda s: s.order):
        out.append(_cmd("DEFINE", "SUB", s.name,
                        [("TOPICSTR", s.topicstr)] + _changed(
                            s, Subscription(s.name, s.topicstr),
                            skip=("name", "topicstr", "topicobj", "durable", "order"))))
    return tuple(out)
