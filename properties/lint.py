"""Lint rules: static checks of queue managers' definitions (DESIGN §4 "Lint", issue 16).

Each rule reads the definitions the scenario's (or the MQSC files') initial MQSC leaves
behind — :func:`spec.objects.apply_commands`, the same function the network model starts
from — and never runs the model. A finding points at the MQSC command (file, line, column of
the offending keyword) that made the definition, cites the document section that advises
against it, suggests the fix and, where the model can show the consequence, names the
``mqcheck`` command that does.

What is linted: the initial configuration only (``[qmgrs.*]``), not MQSC run by later
``[[steps]]`` (a step is something the scenario does on purpose). A scenario is a closed
world: every queue manager of the network is in it, so a CLUSSDR that reaches none of
them is an error. Loose MQSC files (``qma.mqsc``; the queue manager is named by the file
name) are an open world: a CONNAME may point at a queue manager that was not given, so the
rules that need the whole network (targets, counts, meshes) stay silent there, unless
``--whole-network`` says the files given are every queue manager of the network.
"""

from __future__ import annotations

import os
import re
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field, replace

from checker.lint import Finding, Location, Rule, Severity
from spec import objects
from spec.errors import near_miss
from spec.mqsc import Command
from spec.topic_tree import TopicSpace
from spec.objects import (BLANK_CONNAME, QueueManagerDef, clusters_of, conname_key, repos_clusters,
                          shares_address)

__all__ = ["RULES", "RULE_IDS", "LintConfig", "LintQmgr", "config_of_mqsc", "config_of_scenario"]

ERROR, WARNING, INFO = Severity.ERROR, Severity.WARNING, Severity.INFO


# --------------------------------------------------------------------------- the configuration
@dataclass(frozen=True)
class LintQmgr:
    """One queue manager's definitions and, per object, the MQSC command that last defined
    or altered it (for locations). ``objects`` keys: ("QUEUE"|"TOPIC"|"CHANNEL"|"NAMELIST"|
    "SUB", name); ``qmgr_attrs``: ALTER QMGR keyword -> the command that set it last."""

    name: str
    defs: QueueManagerDef
    header: Location
    objects: dict[tuple[str, str], Command] = field(default_factory=dict)
    qmgr_attrs: dict[str, Command] = field(default_factory=dict)
    rejected: tuple[tuple[Command, str], ...] = ()  # (command, what runmqsc prints)

    def at(self, kind: str, name: str, keyword: str = "") -> Location:
        cmd = self.objects.get((kind, name))
        return _at(cmd, keyword) if cmd is not None else self.header

    def at_qmgr(self, keyword: str) -> Location:
        cmd = self.qmgr_attrs.get(keyword)
        return _at(cmd, keyword) if cmd is not None else self.header


@dataclass(frozen=True)
class LintConfig:
    """What one lint pass sees: a scenario (``closed``) or a set of MQSC files."""

    file: str
    qmgrs: tuple[LintQmgr, ...]
    closed: bool
    scenario: bool = True

    @property
    def confirm_file(self) -> str:
        """The scenario ``mqcheck check``/``run`` can confirm findings on ("" for MQSC files,
        which those commands do not read)."""
        return self.file if self.scenario else ""


def _at(cmd: Command, keyword: str = "", note: str = "") -> Location:
    line, column = cmd.where(keyword)
    return Location(cmd.file, line, column, note)


def _rel(loc: Location, note: str) -> Location:
    """``loc`` as a related location that says what is there."""
    return replace(loc, note=note)


_KIND = {"QLOCAL": "QUEUE", "QREMOTE": "QUEUE", "QALIAS": "QUEUE", "TOPIC": "TOPIC",
         "CHANNEL": "CHANNEL", "NAMELIST": "NAMELIST", "SUB": "SUB"}


def lint_qmgr(name: str, commands: tuple[Command, ...], header: Location) -> LintQmgr:
    """Apply the MQSC as runmqsc would (rejected commands change nothing) and remember the
    command behind each object and queue-manager attribute."""
    defs = QueueManagerDef(name)
    where: dict[tuple[str, str], Command] = {}
    qmgr_attrs: dict[str, Command] = {}
    rejected: list[tuple[Command, str]] = []
    for cmd in commands:
        defs, outcome = objects.apply_command(defs, cmd)
        if not outcome.accepted and not (cmd.objtype == "SUB" and cmd.has("TOPICOBJ")):
            # a DEFINE SUB TOPICOBJ may name a cluster topic known only on the network
            rejected.append((cmd, outcome.message))
        if not outcome.accepted or not cmd.modelled:
            continue
        kind = _KIND.get(cmd.objtype)
        if kind and cmd.verb in ("DEFINE", "ALTER"):
            where[(kind, cmd.name)] = cmd
        elif kind and cmd.verb == "DELETE":
            where.pop((kind, cmd.name), None)
        elif (cmd.verb, cmd.objtype) == ("ALTER", "QMGR"):
            for kw, _ in cmd.attrs:
                qmgr_attrs[kw] = cmd
    return LintQmgr(name, defs, header, where, qmgr_attrs, tuple(rejected))


def config_of_scenario(scenario) -> LintConfig:
    """A scenario's initial configuration (``spec.scenario.Scenario``)."""
    qmgrs = tuple(lint_qmgr(q.name, q.commands, Location(scenario.file, q.line, 1)) for q in scenario.qmgrs)
    return LintConfig(scenario.file, qmgrs, closed=True)


def qmgr_name_of_file(path: str) -> str:
    """``qma.mqsc`` -> ``QMA``: an MQSC file's queue manager is named by its file name."""
    return os.path.splitext(os.path.basename(path))[0].upper()


def config_of_mqsc(files: list[tuple[str, tuple[Command, ...]]], whole_network: bool = False) -> LintConfig:
    """MQSC files given together: one queue manager per file; an open world unless the
    user says they are the whole network (``mqcheck lint --whole-network``)."""
    qmgrs = tuple(lint_qmgr(qmgr_name_of_file(path), commands, Location(path, 1, 1)) for path, commands in files)
    return LintConfig(files[0][0] if files else "", qmgrs, closed=whole_network, scenario=False)


# --------------------------------------------------------------------------- cluster facts
@dataclass(frozen=True)
class _Chl:
    qm: LintQmgr
    channel: objects.Channel
    clusters: tuple[str, ...]

    @property
    def key(self) -> tuple[tuple[str, str], ...]:
        return conname_key(self.channel.conname)

    def at(self, keyword: str = "") -> Location:
        return self.qm.at("CHANNEL", self.channel.name, keyword)


def _channels(cfg: LintConfig, chltype: str) -> list[_Chl]:
    return [_Chl(q, c, clusters_of(c, q.defs)) for q in cfg.qmgrs for c in q.defs.channels if c.chltype == chltype]


def _host_port(conname: str) -> tuple[str, str | None]:
    """The first CONNAME entry as (host, port or None when none is written)."""
    entry = "".join(conname.split(",")[0].split()).casefold()
    host, paren, rest = entry.partition("(")
    return host, (rest.rstrip(")") or None) if paren else None


def _targets(cfg: LintConfig, sdr: _Chl) -> tuple[list[_Chl], list[_Chl]]:
    """The CLUSRCVRs a CLUSSDR's CONNAME reaches exactly, and those on the same host whose
    CONNAME has no port while the CLUSSDR's has one (003 §Auto-definition of channels)."""
    rcvrs = [r for r in _channels(cfg, "CLUSRCVR") if r.channel.conname]
    exact = [r for r in rcvrs if shares_address(sdr.channel.conname, r.channel.conname)]
    host, port = _host_port(sdr.channel.conname)
    portless = [r for r in rcvrs if r not in exact and port is not None
                and _host_port(r.channel.conname) == (host, None)]
    return exact, portless


def _members(cfg: LintConfig) -> dict[str, list[LintQmgr]]:
    """Cluster -> queue managers with a CLUSRCVR in it (membership needs one, DESIGN §3.4)."""
    out: dict[str, list[LintQmgr]] = defaultdict(list)
    for r in _channels(cfg, "CLUSRCVR"):
        for c in r.clusters:
            if r.qm not in out[c]:
                out[c].append(r.qm)
    return out


def _frs(cfg: LintConfig) -> dict[str, list[LintQmgr]]:
    out: dict[str, list[LintQmgr]] = defaultdict(list)
    for q in cfg.qmgrs:
        for c in repos_clusters(q.defs):
            out[c].append(q)
    return out


def _repos_at(q: LintQmgr) -> Location:
    return q.at_qmgr("REPOS") if "REPOS" in q.qmgr_attrs else q.at_qmgr("REPOSNL")


# --------------------------------------------------------------------------- repository rules
def fr_mesh(cfg: LintConfig) -> Iterator[Finding]:
    """000 §Resource definition for Full Repositories: "The Full Repositories must form a
    fully connected set using manually defined cluster sender channels"."""
    if not cfg.closed:
        return
    sdrs = _channels(cfg, "CLUSSDR")
    for cluster, frs in sorted(_frs(cfg).items()):
        for a in frs:
            reached = {t.qm.name for s in sdrs if s.qm is a and cluster in s.clusters
                       for t in _targets(cfg, s)[0] if cluster in t.clusters}
            for b in frs:
                if b is a or b.name in reached:
                    continue
                rcvr = next((r for r in _channels(cfg, "CLUSRCVR") if r.qm is b and cluster in r.clusters), None)
                conname = rcvr.channel.conname.strip() or f"<{b.name}'s address>(1414)" if rcvr else ""
                hint = (f"DEFINE CHANNEL({rcvr.channel.name}) CHLTYPE(CLUSSDR) CONNAME('{conname}') "
                        f"CLUSTER({cluster})" if rcvr else f"a CLUSSDR to {b.name}'s CLUSRCVR in {cluster}")
                yield Finding("", ERROR, f"full repository {a.name} has no manual CLUSSDR to full repository "
                              f"{b.name} of cluster {cluster}: updates it receives from partial repositories "
                              f"never reach {b.name}", _repos_at(a), f"on {a.name}: {hint}",
                              related=(_rel(_repos_at(b), f"{b.name} is a full repository of {cluster}"),))


def fr_count(cfg: LintConfig) -> Iterator[Finding]:
    """003 §Queue managers and repositories: "Every cluster should have at least two queue
    managers holding full repositories"."""
    if not cfg.closed:
        return
    frs = _frs(cfg)
    for cluster, members in sorted(_members(cfg).items()):
        n = len(frs.get(cluster, []))
        if n >= 2:
            continue
        first = members[0]
        rcvr = next(r for r in _channels(cfg, "CLUSRCVR") if r.qm is first and cluster in r.clusters)
        if n == 0:
            yield Finding("", ERROR, f"cluster {cluster} has no full repository: no member can learn of another",
                          rcvr.at("CLUSTER"), f"ALTER QMGR REPOS({cluster}) on two of its queue managers")
        else:
            fr = frs[cluster][0]
            yield Finding("", WARNING, f"cluster {cluster} has one full repository ({fr.name}); while it is "
                          "unavailable no cluster change reaches anyone", _repos_at(fr),
                          f"ALTER QMGR REPOS({cluster}) on a second queue manager and connect the two with "
                          "manual CLUSSDRs both ways")


def mqsc_rejected(cfg: LintConfig) -> Iterator[Finding]:
    """A command runmqsc rejects changes nothing: the object it defines, or the change it
    makes, is missing, and the other rules see the configuration without it (their findings
    may follow from this one). Said at the command (at its LIKE when that names the missing
    object), with runmqsc's message."""
    for q in cfg.qmgrs:
        for cmd, message in q.rejected:
            if not cfg.closed and message.startswith("AMQ8147"):
                continue  # MQSC files on their own: the object may exist on the queue manager already
            like = str(cmd.get("LIKE", "")) if cmd.has("LIKE") else ""
            keyword = "LIKE" if like and like in message else ""
            yield Finding("", ERROR, f"{q.name} rejects this command, so it changes nothing: {message}",
                          _at(cmd, keyword),
                          "correct the command (this is what runmqsc would print for it)")


def fr_without_clusrcvr(cfg: LintConfig) -> Iterator[Finding]:
    """000 §Resource definition for Full Repositories: the FR's cluster receiver "provides the
    information required by other queue managers in the cluster to talk to" it."""
    for q in cfg.qmgrs:
        have = {c for r in _channels(cfg, "CLUSRCVR") if r.qm is q for c in r.clusters}
        for cluster in repos_clusters(q.defs):
            if cluster not in have:
                yield Finding("", ERROR, f"{q.name} is a full repository of {cluster} but has no CLUSRCVR in "
                              f"{cluster}: no queue manager can be told how to reach it", _repos_at(q),
                              f"on {q.name}: DEFINE CHANNEL(TO.{q.name}) CHLTYPE(CLUSRCVR) CONNAME('host(port)') "
                              f"CLUSTER({cluster})")


def no_clussdr(cfg: LintConfig) -> Iterator[Finding]:
    """003 §Cluster channels: "First each queue manager must manually define a cluster-sender
    channel. This definition enables the queue manager to make its initial contact with the
    cluster" (000 §Initial definitions: the join needs both, for the same cluster)."""
    for r in _channels(cfg, "CLUSRCVR"):
        for cluster in r.clusters:
            if cluster in repos_clusters(r.qm.defs):
                continue  # a lone FR needs none; FR-MESH covers FRs that do
            if not any(s.qm is r.qm and cluster in s.clusters for s in _channels(cfg, "CLUSSDR")):
                yield Finding("", ERROR, f"{r.qm.name} has a CLUSRCVR in {cluster} but no manual CLUSSDR to a full "
                              f"repository of {cluster}: it never joins the cluster", r.at("CLUSTER"),
                              f"on {r.qm.name}: DEFINE CHANNEL(<the FR's CLUSRCVR name>) CHLTYPE(CLUSSDR) "
                              f"CONNAME('<the FR's CLUSRCVR CONNAME>') CLUSTER({cluster})")


def cluster_pair(cfg: LintConfig) -> Iterator[Finding]:
    """000 §Initial definitions: "Once both a cluster sender channel and a cluster receiver
    channel for the same cluster are defined, the repository task starts the cluster sender
    channel" (000 §Checking initial definitions): a manual CLUSSDR in a cluster where its
    queue manager has no CLUSRCVR never starts."""
    for s in _channels(cfg, "CLUSSDR"):
        own = {c for r in _channels(cfg, "CLUSRCVR") if r.qm is s.qm for c in r.clusters}
        for cluster in s.clusters:
            if cluster in own:
                continue
            differ = f" (its CLUSRCVR is in {', '.join(sorted(own))}: the cluster names differ)" if own else ""
            fix = (f"on {s.qm.name}: DEFINE CHANNEL(TO.{s.qm.name}) CHLTYPE(CLUSRCVR) CONNAME('host(port)') "
                   f"CLUSTER({cluster})" + (", or give both channels the same CLUSTER" if own else ""))
            rcvrs = [r for r in _channels(cfg, "CLUSRCVR") if r.qm is s.qm and r.channel.cluster]
            sdr_clusters = {c for o in _channels(cfg, "CLUSSDR") if o.qm is s.qm for c in o.clusters}
            typo = [r for r in rcvrs if near_miss(r.channel.cluster, [cluster]) and r.channel.cluster not in sdr_clusters]
            if typo:  # a misspelt cluster name on the CLUSRCVR (000 §Checking initial definitions)
                r = typo[0]
                differ = f" (its CLUSRCVR {r.channel.name} is in {r.channel.cluster}: a misspelling of {cluster}?)"
                fix = f"on {s.qm.name}: ALTER CHANNEL({r.channel.name}) CHLTYPE(CLUSRCVR) CLUSTER({cluster})"
            yield Finding("", ERROR, f"CLUSSDR {s.channel.name} on {s.qm.name} is in cluster {cluster} but "
                          f"{s.qm.name} has no CLUSRCVR in {cluster}{differ}: the channel never starts",
                          s.at("CLUSTER" if s.channel.cluster else "CLUSNL"), fix)


def cluster_member(cfg: LintConfig) -> Iterator[Finding]:
    """003 §Queues: "A queue manager that hosts cluster queues must advertise its queues to
    the cluster" (000 §Initial definitions: it is a member of a cluster through its CLUSRCVR
    there). A queue or topic shared in a cluster its queue manager has no CLUSRCVR in is
    advertised to no full repository of it: no other queue manager learns of it (a misspelt
    cluster name is the usual cause). An error when it is shared in no cluster of its queue
    manager's, a warning when a namelist also names one it is in."""
    for q in cfg.qmgrs:
        own = sorted({c for r in _channels(cfg, "CLUSRCVR") if r.qm is q for c in r.clusters})
        shared = [("QUEUE", obj.qtype, obj) for obj in q.defs.queues] + \
                 [("TOPIC", "TOPIC", obj) for obj in q.defs.topics if obj.cluster]
        for kind, label, obj in shared:
            clusters = clusters_of(obj, q.defs)
            outside = [c for c in clusters if c not in own]
            if not outside:
                continue
            keyword = "CLUSTER" if obj.cluster else "CLUSNL"
            hint = next((h for h in (near_miss(c, own) for c in outside) if h), "")
            where = f"{q.name}'s CLUSRCVRs are in {', '.join(own)}" if own else f"{q.name} has no CLUSRCVR"
            meant = hint[len("did you mean "):-1]
            if meant and obj.cluster:
                fix = f"on {q.name}: ALTER {label}({obj.name}) CLUSTER({meant})"
            elif meant:
                fix = f"on {q.name}: correct NAMELIST({obj.clusnl}): {meant}, not {outside[0]}"
            else:
                fix = (f"on {q.name}: a CLUSRCVR in {', '.join(outside)} (and a manual CLUSSDR to a full repository "
                       f"of it), or a {keyword} that names a cluster {q.name} is in")
            yield Finding("", WARNING if len(outside) < len(clusters) else ERROR,
                          f"{label} {obj.name} on {q.name} is shared in cluster {', '.join(outside)}, which {q.name} is "
                          f"not a member of ({where}{'; ' + hint if hint else ''}): no queue manager of "
                          f"{', '.join(outside)} learns of it", q.at(kind, obj.name, keyword), fix)


def alias_target(cfg: LintConfig) -> Iterator[Finding]:
    """000 §Routing messages in and out of clusters: an alias queue resolves to its TARGET,
    a queue on its own queue manager or a cluster queue (Scenario 4's QALIAS(ACQ1)
    TARGQ(CQ1)). In a scenario, every queue manager is given: a TARGET no queue manager
    defines is usually a misspelling, and an MQOPEN of the alias fails
    (MQRC_UNKNOWN_OBJECT_NAME) until a step defines it."""
    if not cfg.closed:
        return
    names = sorted({queue.name for q in cfg.qmgrs for queue in q.defs.queues})
    for q in cfg.qmgrs:
        for alias in q.defs.queues:
            if alias.qtype != "QALIAS" or alias.targtype != "QUEUE" or not alias.target or alias.target in names:
                continue
            hint = near_miss(alias.target, [n for n in names if n != alias.name])
            yield Finding("", WARNING, f"QALIAS {alias.name} on {q.name}: its TARGET {alias.target} is a queue no "
                          f"queue manager of this configuration defines{' (' + hint + ')' if hint else ''}: "
                          "an MQOPEN of the alias fails (MQRC_UNKNOWN_OBJECT_NAME) until one does",
                          q.at("QUEUE", alias.name, "TARGET"),
                          f"on {q.name}: ALTER QALIAS({alias.name}) TARGET(" +
                          (hint[len("did you mean "):-1] if hint else "<the queue meant>") + ")")


def clussdr_target(cfg: LintConfig) -> Iterator[Finding]:
    """DESIGN §3.4 (003 §Cluster channels; 000 §Initial definitions): a manual CLUSSDR makes
    the initial contact through the CONNAME of a full repository's CLUSRCVR, whose name it
    carries; the cluster names of the pair must agree."""
    for s in _channels(cfg, "CLUSSDR"):
        exact, portless = _targets(cfg, s)
        reached = exact or portless
        if not reached:
            if cfg.closed and s.channel.conname:
                blank = next((r for r in _channels(cfg, "CLUSRCVR") if not r.channel.conname.strip()
                              and set(r.clusters) & set(s.clusters)), None)
                yield Finding("", ERROR, f"CLUSSDR {s.channel.name} on {s.qm.name}: CONNAME "
                              f"'{s.channel.conname}' reaches no CLUSRCVR of this configuration"
                              + (f" ({blank.qm.name}'s CLUSRCVR {blank.channel.name} {BLANK_CONNAME})"
                                 if blank else ""),
                              s.at("CONNAME"), "set CONNAME to the full repository's CLUSRCVR CONNAME, exactly")
            continue
        named = [r for r in reached if r.channel.name == s.channel.name] or reached
        r = named[0]
        if s.clusters and r.clusters and not set(s.clusters) & set(r.clusters):
            yield Finding("", ERROR, f"CLUSSDR {s.channel.name} on {s.qm.name} is in cluster "
                          f"{', '.join(s.clusters)} but the CLUSRCVR it reaches on {r.qm.name} is in "
                          f"{', '.join(r.clusters)}: no cluster has both ends", s.at("CLUSTER"),
                          f"give both channels the same CLUSTER (or CLUSNL) — {', '.join(r.clusters)}?",
                          related=(_rel(r.at("CLUSTER"), f"the CLUSRCVR on {r.qm.name}"),))
            continue
        # 000 §Resource definition for a Partial Repository: the "CLUSSDR definition must direct
        # the queue manager to a Full Repository" (a partial repository ignores the join:
        # `mqcheck run` logs NOT_A_FULL_REPOSITORY)
        frs = _frs(cfg) if cfg.closed else {}
        for cluster in [c for c in s.clusters if c in r.clusters and frs.get(c) and r.qm not in frs[c]]:
            names = ", ".join(f.name for f in frs[cluster])
            yield Finding("", ERROR, f"CLUSSDR {s.channel.name} on {s.qm.name} reaches {r.qm.name}, which is not a full "
                          f"repository of {cluster} (its full repositories: {names}): {r.qm.name} ignores the "
                          f"join, so {s.qm.name} never joins {cluster} through it", s.at("CONNAME"),
                          f"point the CLUSSDR at a full repository's CLUSRCVR: {names}",
                          related=(_rel(r.at(), f"the CLUSRCVR on {r.qm.name}"),))


def clussdr_name(cfg: LintConfig) -> Iterator[Finding]:
    """003 §Cluster channels defers to the Intercommunication book for how channels work: the
    two ends of a channel are one channel definition name, so a manual CLUSSDR must carry the
    name of the CLUSRCVR it contacts. (mqcheck's model finds a CLUSSDR's target by CONNAME
    only, DESIGN §3.4, so ``check`` cannot show this one; docs/decisions.md, issue 16.)"""
    for s in _channels(cfg, "CLUSSDR"):
        exact, portless = _targets(cfg, s)
        reached = exact or portless
        if reached and not any(r.channel.name == s.channel.name for r in reached):
            r = reached[0]
            yield Finding("", ERROR, f"CLUSSDR {s.channel.name} on {s.qm.name} reaches {r.qm.name}, whose "
                          f"CLUSRCVR is named {r.channel.name}: a channel's two ends have one name, so this "
                          "channel does not start", s.at(),
                          f"on {s.qm.name}: DEFINE CHANNEL({r.channel.name}) CHLTYPE(CLUSSDR) "
                          f"CONNAME('{s.channel.conname}') CLUSTER({', '.join(s.clusters) or '...'}) and "
                          f"DELETE CHANNEL({s.channel.name})",
                          related=(_rel(r.at(), f"the CLUSRCVR of {r.qm.name}"),))


def conname_port(cfg: LintConfig) -> Iterator[Finding]:
    """003 §Auto-definition of channels: "suppose ... you define a CLUSRCVR without specifying
    a port number in the CONNAME parameter, and manually define a CLUSSDR that does specify a
    port number. When the auto-defined CLUSSDR replaces the manually defined one, the port
    number (taken from the CLUSRCVR) becomes blank. The default port number is used and the
    channel fails." """
    for s in _channels(cfg, "CLUSSDR"):
        _, portless = _targets(cfg, s)
        for r in portless:  # a port other than the default 1414 (equal CONNAME keys match exactly)
            port = _host_port(s.channel.conname)[1]
            yield Finding("", ERROR, f"CLUSSDR {s.channel.name} on {s.qm.name} gives port {port} but "
                          f"{r.qm.name}'s CLUSRCVR {r.channel.name} CONNAME '{r.channel.conname}' has none: "
                          "the auto-defined CLUSSDR replaces it with the default port 1414 and the channel fails",
                          r.at("CONNAME"), f"on {r.qm.name}: ALTER CHANNEL({r.channel.name}) CHLTYPE(CLUSRCVR) "
                          f"CONNAME('{_host_port(r.channel.conname)[0]}({port})')",
                          related=(_rel(s.at("CONNAME"), f"the manual CLUSSDR on {s.qm.name}"),))


SCTQ = "SYSTEM.CLUSTER.TRANSMIT.QUEUE"


def cluster_xmitq(cfg: LintConfig) -> Iterator[Finding]:
    """003 §Cluster transmission queue: "Applications must not write directly to the cluster
    transmission queue ... not specify the cluster transmission queue as a named
    transmission queue in a remote queue definition, or specify it as the queue manager's
    default transmission queue." """
    for q in cfg.qmgrs:
        cmd = q.qmgr_attrs.get("DEFXMITQ")
        if cmd is not None and str(cmd.get("DEFXMITQ")) == SCTQ:
            yield Finding("", ERROR, f"{q.name} has DEFXMITQ({SCTQ}): the cluster transmission queue must not be "
                          "the default transmission queue", _at(cmd, "DEFXMITQ"),
                          f"on {q.name}: ALTER QMGR DEFXMITQ(' ') (or a transmission queue of your own)")
        for queue in q.defs.queues:
            if queue.qtype == "QREMOTE" and queue.xmitq == SCTQ:
                yield Finding("", ERROR, f"QREMOTE({queue.name}) on {q.name} names XMITQ({SCTQ}): the cluster "
                              "transmission queue must not be a remote queue definition's transmission queue",
                              q.at("QUEUE", queue.name, "XMITQ"),
                              f"on {q.name}: ALTER QREMOTE({queue.name}) XMITQ(' ') (a cluster queue needs no remote "
                              "queue definition; otherwise name a transmission queue of your own)")


def duplicate_qmgrs(cfg: LintConfig) -> Iterator[Finding]:
    """000 §Incorrectly deleted queue managers / DESIGN §3.3: the cluster tells queue managers
    apart by name and address; two with one name, or two CLUSRCVRs claiming one address,
    make the repositories' records ambiguous."""
    seen: dict[str, LintQmgr] = {}
    for q in cfg.qmgrs:
        if q.name in seen:
            yield Finding("", ERROR, f"queue manager name {q.name} is used twice (also {seen[q.name].header.file})",
                          q.header, "give every queue manager of a network a unique name",
                          related=(_rel(seen[q.name].header, "the other one"),))
        seen.setdefault(q.name, q)
    seen_rcvrs: list[_Chl] = []
    for r in _channels(cfg, "CLUSRCVR"):
        if not r.channel.conname:
            continue
        # any address in common (a multi-instance CONNAME lists several: objects.shares_address)
        other = next((o for o in seen_rcvrs if o.qm is not r.qm
                      and shares_address(o.channel.conname, r.channel.conname)), None)
        if other is not None:
            yield Finding("", ERROR, f"{r.qm.name}'s CLUSRCVR {r.channel.name} has the CONNAME of "
                          f"{other.qm.name}'s CLUSRCVR {other.channel.name} ('{r.channel.conname}'): two queue "
                          "managers cannot listen at one address", r.at("CONNAME"),
                          "give each queue manager's CLUSRCVR its own host(port)",
                          related=(_rel(other.at("CONNAME"), f"{other.qm.name}'s CLUSRCVR"),))
        seen_rcvrs.append(r)


def shared_frs(cfg: LintConfig) -> Iterator[Finding]:
    """002 §Inhibiting clustered publish/subscribe in a cluster: "When overlapping a
    traditional point to point cluster with a publish subscribe cluster, it is important to
    use a separate set of full repositories in each"."""
    pubsub = {c for _, t in _cluster_topics(cfg) for c in (t.cluster,)}
    for q in cfg.qmgrs:
        clusters = repos_clusters(q.defs)
        ps = [c for c in clusters if c in pubsub]
        pp = [c for c in clusters if c not in pubsub]
        if ps and pp:
            yield Finding("", WARNING, f"{q.name} is a full repository of the publish/subscribe cluster "
                          f"{ps[0]} and of the point-to-point cluster {pp[0]}: topic definitions and "
                          f"'all queue manager' information reach it for both", _repos_at(q),
                          f"use separate full repositories for {ps[0]} and {pp[0]}")


# --------------------------------------------------------------------------- publish/subscribe rules
def _cluster_topics(cfg: LintConfig) -> list[tuple[LintQmgr, objects.TopicObject]]:
    return [(q, t) for q in cfg.qmgrs for t in q.defs.topics if t.cluster]


def _topic_at(q: LintQmgr, t: objects.TopicObject, keyword: str = "") -> Location:
    return q.at("TOPIC", t.name, keyword)


def _below(parent: str, child: str) -> bool:
    """``child`` is strictly below ``parent`` in the topic tree (the root "" is above all)."""
    return parent != child and (parent == "" or child.startswith(parent + "/"))


def topic_conflict(cfg: LintConfig) -> Iterator[Finding]:
    """002 §Multiple cluster topic definitions: several definitions of one cluster topic make
    it "hard to determine the expected behavior"; with differing attributes AMQ5465/AMQ5466
    are logged and the most recently received definition is used (002 §Cluster topics in a
    cluster: "define cluster topics only on one queue manager")."""
    groups: dict[tuple[str, str], list[tuple[LintQmgr, objects.TopicObject]]] = defaultdict(list)
    for q, t in _cluster_topics(cfg):
        groups[(t.cluster, t.topicstr)].append((q, t))
    for (cluster, topicstr), defs in sorted(groups.items()):
        if len(defs) < 2:
            continue
        (q0, t0), rest = defs[0], defs[1:]
        for q, t in rest:
            differ = [f for f in ("name", "pubscope", "subscope", "proxysub", "wildcard", "dursub", "pub", "sub")
                      if getattr(t, f) != getattr(t0, f)]
            if differ:
                what = (f"with different {', '.join(f.upper() for f in differ)}): which definition a queue manager "
                        "uses depends on arrival order")
            else:   # 000 §Cluster Topic Hosts recommends two identical hosts for availability
                what = ("identically): no difference today, but an ALTER on one host leaves queue managers using "
                        "whichever definition arrived last")
            yield Finding("", ERROR if differ else WARNING,
                          f"cluster topic '{topicstr}' of {cluster} is defined on {q0.name} and again on {q.name} "
                          f"({what}", _topic_at(q, t, "CLUSTER"),
                          f"define cluster topic '{topicstr}' on one queue manager (the cluster topic host) "
                          f"only: delete TOPIC({t.name}) on {q.name} or make it a local topic"
                          + ("" if differ else "; or, to keep two identical hosts for availability (000 §Cluster "
                             "Topic Hosts), alter both together and disable this rule with a reason"),
                          confirm="mqcheck run {file}  (the conflict is logged)" if differ else "",
                          related=(_rel(_topic_at(q0, t0, "CLUSTER"), f"the definition on {q0.name}"),))


def overlapping_clusters(cfg: LintConfig) -> Iterator[Finding]:
    """002 §Overlapping cluster support, and publish/subscribe ("Overlapping clusters, single
    topic tree"): clustered topics with one topic string in two clusters conflict on the
    queue managers in the overlap; ("... wildcarded subscriptions"): cluster topics of
    different clusters nested one below the other make wildcard subscriptions hard to
    predict."""
    topics = _cluster_topics(cfg)
    members = _members(cfg)
    for i, (qa, ta) in enumerate(topics):
        for qb, tb in topics[i + 1:]:
            if ta.cluster == tb.cluster:
                continue
            overlap = [q for q in members.get(ta.cluster, []) if q in members.get(tb.cluster, [])]
            if not overlap:
                continue  # clusters joined only by a hierarchy repeat their topics on purpose (002 §Combine ...)
            if ta.topicstr == tb.topicstr:
                yield Finding("", WARNING, f"topic string '{ta.topicstr}' is a cluster topic of {ta.cluster} "
                              f"(TOPIC({ta.name}) on {qa.name}) and of {tb.cluster} (TOPIC({tb.name}) on "
                              f"{qb.name}): {overlap[0].name}, in both clusters, sees conflicting definitions",
                              _topic_at(qb, tb, "TOPICSTR"),
                              "treat the topic namespace as spanning all clusters: one cluster per topic string",
                              related=(_rel(_topic_at(qa, ta, "TOPICSTR"), f"TOPIC({ta.name}) on {qa.name}"),))
            elif _below(ta.topicstr, tb.topicstr) or _below(tb.topicstr, ta.topicstr):
                (qu, tu), (ql, tl) = ((qa, ta), (qb, tb)) if _below(ta.topicstr, tb.topicstr) else ((qb, tb), (qa, ta))
                yield Finding("", WARNING, f"cluster topic '{tl.topicstr}' of {tl.cluster} (on {ql.name}) is below "
                              f"cluster topic '{tu.topicstr}' of {tu.cluster} (on {qu.name}): a wildcard "
                              f"subscription above both resolves to one cluster and misses the other's publications",
                              _topic_at(ql, tl, "CLUSTER"),
                              "keep each cluster's topics in a subtree of their own (no nesting across clusters)",
                              confirm="mqcheck run {file}  (compare the wildcard subscriptions' deliveries)",
                              related=(_rel(_topic_at(qu, tu, "CLUSTER"), f"TOPIC({tu.name}) on {qu.name}"),))
            elif (common := _common_ancestor(ta.topicstr, tb.topicstr)) and not any(
                    t.topicstr == common for _, t in topics):
                yield Finding("", INFO, f"{overlap[0].name} is in {ta.cluster} and {tb.cluster}, whose cluster topics "
                              f"'{ta.topicstr}' and '{tb.topicstr}' share the parent '{common}': a subscription to "
                              f"'{common}/#' there resolves to no cluster topic and gets no remote publications",
                              _topic_at(qb, tb, "TOPICSTR"),
                              "on the overlap, subscribe to each cluster's topic explicitly (or define the parent "
                              "as a cluster topic in one cluster)",
                              confirm="mqcheck run {file}  (compare the wildcard subscriptions' deliveries)",
                              related=(_rel(_topic_at(qa, ta, "TOPICSTR"), f"TOPIC({ta.name}) on {qa.name}"),))


def _common_ancestor(a: str, b: str) -> str:
    """The deepest topic string strictly above both (``""`` = only the root).

    >>> _common_ancestor("/Sport/Football", "/Sport/Tennis"), _common_ancestor("A/B", "C")
    ('/Sport', '')
    """
    la, lb = a.split("/"), b.split("/")
    n = 0
    while n < min(len(la), len(lb)) - 1 and la[n] == lb[n]:
        n += 1
    common = "/".join(la[:n])
    return common if common.strip("/") else ""


def _topic_space(cfg: LintConfig, q: LintQmgr) -> list[tuple[LintQmgr, objects.TopicObject]]:
    """A queue manager's topic objects: its own plus the cluster topics of the clusters it
    is in (DESIGN §3.2), as (defining queue manager, object)."""
    mine = {c for r in _channels(cfg, "CLUSRCVR") if r.qm is q for c in r.clusters}
    own = [(q, t) for t in q.defs.topics]
    local_strings = {t.topicstr for t in q.defs.topics}
    remote = [(o, t) for o, t in _cluster_topics(cfg) if o is not q and t.cluster in mine
              and t.topicstr not in local_strings]
    return own + remote


def proxysub_force(cfg: LintConfig) -> Iterator[Finding]:
    """002 §Publish everywhere: "No topic objects below a topic with PROXYSUB set to FORCE
    must be in a different cluster or hierarchy stream to the node where PROXYSUB is set to
    FORCE. Similarly, lower topic objects must not set their WILDCARD attribute to BLOCK. In
    both cases this can result in published messages not flowing"."""
    for q in cfg.qmgrs:
        space = _topic_space(cfg, q)
        for fq, force in space:
            if force.proxysub != "FORCE" or fq is not q:
                continue  # a cluster topic's FORCE is reported at the queue manager defining it
            for bq, below in space:
                if not _below(force.topicstr, below.topicstr):
                    continue
                problem = ""
                keyword = ""
                if below.wildcard == "BLOCK":
                    problem, keyword = "sets WILDCARD(BLOCK)", "WILDCARD"
                elif below.cluster and below.cluster != force.cluster:
                    problem, keyword = f"is in cluster {below.cluster}", "CLUSTER"
                if not problem:
                    continue
                yield Finding("", WARNING, f"TOPIC({below.name}) '{below.topicstr}' {problem} below TOPIC({force.name}) "
                              f"'{force.topicstr}' with PROXYSUB(FORCE) on {q.name}: publications can stop "
                              "flowing between queue managers", _topic_at(bq, below, keyword),
                              f"remove {keyword}({'BLOCK' if keyword == 'WILDCARD' else below.cluster}) from "
                              f"TOPIC({below.name}) or PROXYSUB(FORCE) from TOPIC({force.name})",
                              confirm="mqcheck check {file} --property PS-FORCE-NO-MISS",
                              related=(_rel(_topic_at(q, force, "PROXYSUB"), "the PROXYSUB(FORCE) topic"),))


def _parents(cfg: LintConfig) -> dict[str, LintQmgr]:
    return {q.name: q for q in cfg.qmgrs}


def hierarchy(cfg: LintConfig) -> Iterator[Finding]:
    """002 §How loop detection works: a loop in a hierarchy delivers every publication
    around it in both directions (duplicates) until the origin discards it; a PARENT that
    names the queue manager itself or no queue manager of a closed configuration never
    connects."""
    by_name = _parents(cfg)
    reported: set[frozenset[str]] = set()
    for q in cfg.qmgrs:
        parent = q.defs.parent
        if not parent:
            continue
        if parent == q.name:
            yield Finding("", ERROR, f"{q.name} names itself as its PARENT", q.at_qmgr("PARENT"),
                          f"on {q.name}: ALTER QMGR PARENT(' ') or name its real parent")
            continue
        if cfg.closed and parent not in by_name:
            yield Finding("", ERROR, f"{q.name}'s PARENT({parent}) is no queue manager of this configuration",
                          q.at_qmgr("PARENT"), f"declare [qmgrs.{parent}] or fix the name")
            continue
        seen = [q.name]
        cur = by_name.get(parent)
        while cur is not None and cur.defs.parent and cur.name not in seen:
            seen.append(cur.name)
            cur = by_name.get(cur.defs.parent)
        if cur is not None and cur.name == q.name:
            cycle = frozenset(seen)
            if cycle in reported:
                continue
            reported.add(cycle)
            path = " -> ".join(seen + [q.name])
            yield Finding("", WARNING, f"the PARENT chain {path} is a loop: every publication travels it in both "
                          "directions and subscribers receive duplicates", q.at_qmgr("PARENT"),
                          f"break the loop: ALTER QMGR PARENT(' ') on one of {', '.join(sorted(cycle))}",
                          confirm="mqcheck check {file} --property PS-LOOP-DUPLICATES")


def cluster_and_hierarchy(cfg: LintConfig) -> Iterator[Finding]:
    """002 §Combine the topic spaces of multiple clusters: a hierarchy joins *different*
    clusters. Members of one publish/subscribe cluster that a hierarchy also connects:
    - through queue managers outside the cluster (TOP the parent of two members): a
      warning. A queue manager in a cluster and a hierarchy relays between them
      (``spec.pubsub.forward_targets``), so a publication reaches the other member both
      directly and through the outside one: a loop, and its subscribers receive duplicates
      (002 §How loop detection works; ``mqcheck run`` shows two deliveries);
    - only through PARENT links between members: information. 002 §Topic spaces: a queue
      manager in a cluster and a hierarchy gets proxy subscriptions "by both mechanisms
      without delivering duplicate publications to the subscriber", and the model delivers
      once (tests/test_pubsub_audit.py): for the cluster's topics the links only add a
      second path for proxy subscriptions.
    (The rule called both a loop with duplicates until a user trial, session 37, found the
    second delivered once.)"""
    by_name = _parents(cfg)
    links = [(q.name, q.defs.parent) for q in cfg.qmgrs if q.defs.parent in by_name and q.defs.parent != q.name]
    pubsub = sorted({t.cluster for _, t in _cluster_topics(cfg)})
    members = _members(cfg)
    for cluster in pubsub:
        inside = {m.name for m in members.get(cluster, [])}
        every = _components(cfg, links)
        # what still connects two members once the links between members are left out:
        # a path through a queue manager outside the cluster
        outside = _components(cfg, [(a, b) for a, b in links if not (a in inside and b in inside)])
        groups: dict[str, list[LintQmgr]] = defaultdict(list)
        for m in members.get(cluster, []):
            groups[every[m.name]].append(m)
        for group in groups.values():
            if len(group) < 2:
                continue
            linked = next((m for m in group if m.defs.parent in by_name), group[0])
            names = ", ".join(m.name for m in group)
            looped: dict[str, list[str]] = defaultdict(list)
            for m in group:
                looped[outside[m.name]].append(m.name)
            loop = next((g for g in looped.values() if len(g) > 1), None)
            if loop:
                yield Finding("", WARNING, f"{', '.join(loop)} are members of the publish/subscribe cluster {cluster} "
                              "and are also connected by a hierarchy through queue managers outside it, which "
                              "relay between the two: publications reach them both through the cluster and "
                              "through the hierarchy (a loop: duplicates)", linked.at_qmgr("PARENT"),
                              f"link different clusters with the hierarchy, or connect members of {cluster} by "
                              "PARENT links between members only", confirm="mqcheck run {file}  (the deliveries)")
            else:
                yield Finding("", INFO, f"{names} are members of the publish/subscribe cluster {cluster} and are "
                              "also connected by PARENT links between them: for the cluster's topics these only "
                              "add a second path for proxy subscriptions, and each publication is delivered once "
                              "(002: \"propagated by both mechanisms without delivering duplicate publications\")",
                              linked.at_qmgr("PARENT"),
                              f"keep the PARENT links for topics outside {cluster}, or use a hierarchy to join "
                              "different clusters, as 002 does",
                              confirm="mqcheck check {file} --property PS-EXACTLY-ONCE-ACYCLIC")


def _components(cfg: LintConfig, links: list[tuple[str, str]]) -> dict[str, str]:
    """Each queue manager's component (a representative's name) in the graph of ``links``."""
    root = {q.name: q.name for q in cfg.qmgrs}

    def find(n: str) -> str:
        while root[n] != n:
            root[n] = root[root[n]]
            n = root[n]
        return n

    for a, b in links:
        root[find(a)] = find(b)
    return {n: find(n) for n in root}


def psclus_disabled(cfg: LintConfig) -> Iterator[Finding]:
    """002 §Inhibiting clustered publish/subscribe in a cluster: "No clustered topic objects
    can exist in any cluster of which this queue manager is a member" when PSCLUS is
    DISABLED; and it "is not intended to selectively disable publish/subscribe in a subset of
    queue managers in the cluster"."""
    members = _members(cfg)
    for q in cfg.qmgrs:
        if q.defs.psclus != "DISABLED":
            continue
        for oq, t in _cluster_topics(cfg):
            if q in members.get(t.cluster, []) and oq is not q:
                yield Finding("", ERROR, f"{q.name} has PSCLUS(DISABLED) but {oq.name} defines cluster topic "
                              f"TOPIC({t.name}) in {t.cluster}, of which {q.name} is a member: its definition and "
                              f"proxy subscriptions are rejected there (errors logged)", q.at_qmgr("PSCLUS"),
                              f"PSCLUS(DISABLED) consistently on every member of {t.cluster} and no cluster topics, "
                              f"or PSCLUS(ENABLED) on {q.name}",
                              related=(_rel(_topic_at(oq, t, "CLUSTER"), f"the cluster topic on {oq.name}"),))
                break


def psmode_links(cfg: LintConfig) -> Iterator[Finding]:
    """PSMODE other than ENABLED where publish/subscribe needs it. 002 §Publish/subscribe
    hierarchies: "WebSphere MQ hierarchical connections require that the queue manager
    attribute PSMODE is set to ENABLED" — a PARENT link with DISABLED or COMPAT at either end
    is never made (``topology.pubsub_links``). 002 §Subscription performance considerations:
    a backlog on the publish/subscribe system queues means a queue manager "having
    publish/subscribe support disabled (see PSMODE in ALTER QMGR)" — a member of a
    publish/subscribe cluster with PSMODE(DISABLED) is still counted by the others, and what
    they send it waits there unprocessed (``pubsub._left_unprocessed``)."""
    by_name = _parents(cfg)
    for q in cfg.qmgrs:
        parent = by_name.get(q.defs.parent) if q.defs.parent and q.defs.parent != q.name else None
        if parent is None:
            continue
        off = [m for m in (q, parent) if m.defs.psmode != "ENABLED"]
        if off:
            m = off[0]
            yield Finding("", WARNING, f"the hierarchy link from {q.name} to its PARENT({parent.name}) is never made: "
                          f"{m.name} has PSMODE({m.defs.psmode}), and hierarchical connections require "
                          "PSMODE(ENABLED) at both ends", m.at_qmgr("PSMODE"),
                          f"on {m.name}: ALTER QMGR PSMODE(ENABLED)",
                          related=() if m is q else (_rel(q.at_qmgr("PARENT"), f"the PARENT on {q.name}"),))
    members = _members(cfg)
    pubsub = sorted({t.cluster for _, t in _cluster_topics(cfg)})
    for q in cfg.qmgrs:
        if q.defs.psmode != "DISABLED":
            continue
        clusters = [c for c in pubsub if q in members.get(c, [])]
        if clusters:
            yield Finding("", WARNING, f"{q.name} has PSMODE(DISABLED) but is a member of the publish/subscribe "
                          f"cluster {', '.join(clusters)}: the proxy subscriptions and publications the other "
                          "members send it wait unprocessed on its SYSTEM.INTER.QMGR queues, and its own "
                          "subscribers receive nothing from the cluster", q.at_qmgr("PSMODE"),
                          f"on {q.name}: ALTER QMGR PSMODE(ENABLED), or take it out of {', '.join(clusters)}",
                          confirm="mqcheck run {file}  (Publish/subscribe messages left unprocessed)")


def psclus_partial(cfg: LintConfig) -> Iterator[Finding]:
    """002 §Inhibiting clustered publish/subscribe in a cluster: PSCLUS "is not intended to
    selectively disable publish/subscribe in a subset of queue managers in the cluster ...
    Ideally, when using this option, consistently set all queue managers in the cluster to
    disabled", except that a queue manager also in a publish/subscribe cluster "must be set to
    ENABLED"; and "setting PSCLUS to DISABLED on all full repository queue managers in the
    cluster prevents any clustered topic definition on an incorrectly configured partial
    repository from affecting other queue managers". So: a cluster without cluster topics
    (those are PSCLUS-DISABLED's) with PSCLUS(DISABLED) on some members while a full
    repository, not bound to keep ENABLED, has it enabled."""
    members = _members(cfg)
    pubsub = {t.cluster for _, t in _cluster_topics(cfg)}
    for cluster in sorted(members):
        if cluster in pubsub:
            continue
        off = [q for q in members[cluster] if q.defs.psclus == "DISABLED"]
        # a member of a publish/subscribe cluster keeps PSCLUS(ENABLED), as it must
        on = [q for q in members[cluster] if q.defs.psclus != "DISABLED"
              and not any(q in members.get(c, []) for c in pubsub)]
        frs = [q for q in on if cluster in repos_clusters(q.defs)]
        if not off or not frs:   # every full repository disabled: the protection 002 describes
            continue
        names = ", ".join(q.name for q in on)
        yield Finding("", WARNING, f"PSCLUS(DISABLED) on {', '.join(q.name for q in off)} but not on {names} of "
                      f"cluster {cluster}: a cluster topic defined later on {'one of them' if len(on) > 1 else names} "
                      f"spreads through the full repositor{'ies' if len(frs) > 1 else 'y'} "
                      f"{', '.join(q.name for q in frs)}, and is rejected, with errors logged, only where "
                      "PSCLUS is disabled", off[0].at_qmgr("PSCLUS"),
                      f"ALTER QMGR PSCLUS(DISABLED) on every member of {cluster}, at least on its full repositories "
                      f"{', '.join(q.name for q in frs)} (that keeps a cluster topic defined on a partial repository "
                      "from reaching the others), or PSCLUS(ENABLED) everywhere",
                      related=tuple(_rel(q.at_qmgr("PSCLUS"), f"PSCLUS(DISABLED) on {q.name}") for q in off[1:]))


def local_override(cfg: LintConfig) -> Iterator[Finding]:
    """002 §Overriding a cluster topic definition locally: a local topic object with a
    cluster topic's topic string overrides it on this queue manager, but the queue manager
    "continue[s] to receive proxy subscriptions from other members of the cluster using the
    clustered topic definition. By default, messages published locally continue to be sent to
    the remote queue managers ... If this arrangement is not required, specify PUBSCOPE(QMGR)
    on the local topic object". A warning when the override's effective PUBSCOPE is not QMGR."""
    members = _members(cfg)
    for oq, t in _cluster_topics(cfg):
        for q in members.get(t.cluster, []):
            if q is oq:
                continue
            for lt in q.defs.topics:
                if lt.cluster or lt.topicstr != t.topicstr:
                    continue
                if TopicSpace(q.defs.topics).effective(lt.topicstr, "pubscope") == "QMGR":
                    continue
                yield Finding("", WARNING, f"TOPIC({lt.name}) on {q.name} overrides the cluster topic TOPIC({t.name}) "
                              f"of {t.cluster} for '{t.topicstr}' there, but publications made on {q.name} still go "
                              f"to subscribers elsewhere in {t.cluster}: their proxy subscriptions still arrive",
                              _topic_at(q, lt, "TOPICSTR"),
                              f"ALTER TOPIC({lt.name}) PUBSCOPE(QMGR) on {q.name} to publish only to its own "
                              f"subscribers, or delete TOPIC({lt.name}) there to use the cluster topic",
                              confirm="mqcheck run {file}",
                              related=(_rel(_topic_at(oq, t, "CLUSTER"), f"the cluster topic on {oq.name}"),))


def _keyword_value(text: str, keyword: str) -> re.Match | None:
    """``KEYWORD(value`` in a command's text, outside quoted strings (a DESCR may quote the
    keyword): group 1 is the opening quote or "", group 2 the value up to ``)`` or a quote."""
    pattern = re.compile(rf"{keyword}\s*\(\s*('?)([^)']*)", re.IGNORECASE)
    quoted, i = False, 0
    while i < len(text):
        if text[i] == "'":
            quoted = not quoted
        elif not quoted and (m := pattern.match(text, i)) is not None and (i == 0 or not text[i - 1].isalnum()):
            return m
        i += 1
    return None


def topicstr_text(cfg: LintConfig) -> Iterator[Finding]:
    """002 §Topics: "You can use any characters you like when you construct a topic
    string" — every character counts, case and blanks included, while runmqsc folds an
    unquoted value to upper case. A TOPICSTR written without quotes in lower or mixed case
    (as 000's slides show them), or quoted with a leading or trailing blank, names another
    topic than the one the applications use, and their subscriptions silently get nothing."""
    for q in cfg.qmgrs:
        for (kind, name), cmd in sorted(q.objects.items()):
            if kind not in ("TOPIC", "SUB") or not cmd.has("TOPICSTR"):
                continue
            value = str(cmd.get("TOPICSTR"))
            raw = _keyword_value(cmd.text, "TOPICSTR")
            if raw is not None and not raw.group(1) and raw.group(2).strip() != raw.group(2).strip().upper():
                written = raw.group(2).strip()
                yield Finding("", WARNING, f"{kind}({name}) TOPICSTR({written}) is not quoted, so runmqsc folds it to "
                              f"{value!r}: topic strings are case-sensitive, and applications using {written!r} "
                              "do not match it", _at(cmd, "TOPICSTR"), f"TOPICSTR('{written}')")
            elif value != value.strip():
                yield Finding("", WARNING, f"{kind}({name}) TOPICSTR({value!r}) starts or ends with a blank, which is part "
                              "of the topic string", _at(cmd, "TOPICSTR"), f"TOPICSTR('{value.strip()}')")


# --------------------------------------------------------------------------- workload rules
def _instances(cfg: LintConfig) -> dict[tuple[str, str], list[tuple[LintQmgr, objects.Queue]]]:
    """(cluster, queue name) -> its cluster queue instances (local queues only)."""
    out: dict[tuple[str, str], list] = defaultdict(list)
    for q in cfg.qmgrs:
        for queue in q.defs.queues:
            if queue.qtype != "QLOCAL":
                continue
            for c in clusters_of(queue, q.defs):
                out[(c, queue.name)].append((q, queue))
    return out


def _channel_rank(cfg: LintConfig, q: LintQmgr, cluster: str) -> int:
    """The highest CLWLRANK of ``q``'s CLUSRCVRs in ``cluster`` (what others' auto-defined
    CLUSSDRs to it carry, 003 §Auto-definition of channels)."""
    return max((r.channel.clwlrank for r in _channels(cfg, "CLUSRCVR") if r.qm is q and cluster in r.clusters),
               default=0)


def rank_shadows(cfg: LintConfig) -> Iterator[Finding]:
    """001 rules 3-4: channels, then queues, with a CLWLRANK below the highest are eliminated
    before channel status is looked at; 004 §Channel availability routing lists "cluster
    workload rank" among the things that prevent routing around a failed channel."""
    for (cluster, name), inst in sorted(_instances(cfg).items(), key=lambda kv: kv[0]):
        if len(inst) < 2:
            continue
        ranked = [(_channel_rank(cfg, q, cluster), queue.clwlrank, q, queue) for q, queue in inst]
        top = max((c, r) for c, r, _, _ in ranked)
        high = next(q for c, r, q, _ in ranked if (c, r) == top)
        for c, r, q, queue in ranked:
            if (c, r) >= top:
                continue
            if c < top[0]:
                what, at = f"its CLUSRCVR has CLWLRANK({c}), below {high.name}'s CLWLRANK({top[0]})", next(
                    ch.at("CLWLRANK") for ch in _channels(cfg, "CLUSRCVR") if ch.qm is q and cluster in ch.clusters)
            else:
                what, at = f"it has CLWLRANK({r}), below {high.name}'s CLWLRANK({top[1]})", q.at("QUEUE", name, "CLWLRANK")
            yield Finding("", INFO, f"instance of {name} on {q.name}: {what}: it receives nothing while "
                          f"{high.name}'s instance exists, even when the channel to it is down (messages wait)", at,
                          "use CLWLPRTY (checked after channel status) for a standby that takes over on failure",
                          confirm="mqcheck check {file} --faults 1 --property WL-RANK")


def _useq(q: LintQmgr, queue: objects.Queue) -> str:
    """A queue's effective CLWLUSEQ: its own, or the queue manager's for QMGR (001 rule 6)."""
    return q.defs.clwluseq if queue.clwluseq == "QMGR" else queue.clwluseq


def useq_local_priority(cfg: LintConfig) -> Iterator[Finding]:
    """001 rule 6 comes before rules 13-14: with the effective CLWLUSEQ LOCAL the local
    instance is used whenever it remains, so a remote instance given a higher CLWLPRTY is
    never reached by the local applications of a queue manager hosting an instance (004
    §Channel workload balancing: "By default, a matching queue on the same queue manager
    ... will be prioritized over all others ... look at CLWLUSEQ")."""
    for (cluster, name), inst in sorted(_instances(cfg).items(), key=lambda kv: kv[0]):
        for q, queue in inst:
            if _useq(q, queue) != "LOCAL":
                continue
            better = [(o, oq) for o, oq in inst if o is not q and oq.clwlprty > queue.clwlprty
                      and oq.clwlrank >= queue.clwlrank]
            if not better:
                continue
            o, oq = better[0]
            source = "its CLWLUSEQ(LOCAL)" if queue.clwluseq == "LOCAL" else \
                f"the queue manager's CLWLUSEQ({q.defs.clwluseq})"
            yield Finding("", WARNING, f"{o.name}'s instance of {name} has CLWLPRTY({oq.clwlprty}) above "
                          f"{q.name}'s CLWLPRTY({queue.clwlprty}), but applications on {q.name} always get the "
                          f"local instance ({source}): the priority never applies to them",
                          q.at("QUEUE", name, "CLWLUSEQ" if queue.clwluseq == "LOCAL" else ""),
                          f"on {q.name}: ALTER QLOCAL({name}) CLWLUSEQ(ANY), or use CLWLRANK to prefer {o.name}",
                          confirm="mqcheck run {file} --explain",
                          related=(_rel(o.at("QUEUE", name, "CLWLPRTY"), f"the instance on {o.name}"),))


def put_disabled_everywhere(cfg: LintConfig) -> Iterator[Finding]:
    """001 rule 5, note: "If only put disabled instances remain then only inquire operations
    will succeed, all other operations will fail with MQRC_CLUSTER_PUT_INHIBITED". "Every
    instance" needs the whole network: a queue manager not given may host an enabled one (an
    administrator drains one instance with PUT(DISABLED), as 004's amqsclm does)."""
    if not cfg.closed:
        return
    for (cluster, name), inst in sorted(_instances(cfg).items(), key=lambda kv: kv[0]):
        if inst and all(queue.put == "DISABLED" for _, queue in inst):
            q, _ = inst[0]
            yield Finding("", WARNING, f"every instance of cluster queue {name} in {cluster} is PUT(DISABLED): "
                          "every put to it fails with MQRC_CLUSTER_PUT_INHIBITED", q.at("QUEUE", name, "PUT"),
                          f"ALTER QLOCAL({name}) PUT(ENABLED) on at least one host",
                          confirm="mqcheck check {file} --property WL-PUT-INHIBITED",
                          related=tuple(_rel(o.at("QUEUE", name, "PUT"), f"the instance on {o.name}")
                                        for o, _ in inst[1:]))


def gateway_bounce(cfg: LintConfig) -> Iterator[Finding]:
    """000 §Rank and Overlapping Clusters (DESIGN §3.5): a message reaching a gateway through
    a clustered QALIAS runs the algorithm again there for the alias's TARGET; when another
    gateway's alias of that name is as good (rank) as the real queue, it can go back and forth
    between the gateways. A higher CLWLRANK on the real queue (001 rule 4) settles it."""
    clustered: dict[str, list[tuple[LintQmgr, objects.Queue, tuple[str, ...]]]] = defaultdict(list)
    for q in cfg.qmgrs:
        for queue in q.defs.queues:
            cl = clusters_of(queue, q.defs)
            if cl and queue.qtype in ("QLOCAL", "QALIAS"):
                clustered[queue.name].append((q, queue, cl))
    for g in cfg.qmgrs:
        mine = {c for r in _channels(cfg, "CLUSRCVR") if r.qm is g for c in r.clusters}
        for alias in g.defs.queues:
            if alias.qtype != "QALIAS" or not clusters_of(alias, g.defs) or alias.targtype != "QUEUE":
                continue
            target = alias.target or alias.name
            seen = [(o, oq, cl) for o, oq, cl in clustered.get(target, []) if o is not g and set(cl) & mine]
            real = [(o, oq) for o, oq, cl in seen if oq.qtype == "QLOCAL"]
            others = [(o, oq) for o, oq, cl in seen if oq.qtype == "QALIAS"]
            if not real or not others:
                continue
            top_real = max(oq.clwlrank for _, oq in real)
            back = [(o, oq) for o, oq in others if oq.clwlrank >= top_real]
            if not back:
                continue
            o, oq = back[0]
            ro, rq = max(real, key=lambda x: x[1].clwlrank)
            yield Finding("", WARNING, f"a message for {target} arriving at gateway {g.name} through its alias "
                          f"{alias.name} can be sent on to {o.name}'s alias {oq.name} (CLWLRANK({oq.clwlrank})) as "
                          f"well as to {ro.name}'s {target} (CLWLRANK({rq.clwlrank})): messages can bounce between "
                          "the gateways", g.at("QUEUE", alias.name),
                          f"on {ro.name}: ALTER QLOCAL({target}) CLWLRANK({oq.clwlrank + 1}) so the real queue "
                          "beats the gateways' aliases",
                          confirm="mqcheck check {file} --property WL-NO-BOUNCE-WITH-RANK",
                          related=(_rel(o.at("QUEUE", oq.name), f"the alias on {o.name}"),
                                   _rel(ro.at("QUEUE", target), f"the queue on {ro.name}")))


def defbind_open(cfg: LintConfig) -> Iterator[Finding]:
    """004 §Pros and cons of binding: "Bind on open is the default"; 004 §Channel
    availability routing: binding messages to a target prevents re-routing queued messages
    when a channel is retried. A cluster queue with several instances and DEFBIND(OPEN)
    strands a handle's messages behind a failed channel."""
    for (cluster, name), inst in sorted(_instances(cfg).items(), key=lambda kv: kv[0]):
        bound = [(q, queue) for q, queue in inst if queue.defbind == "OPEN"]
        if len(inst) < 2 or not bound:
            continue
        (q, _), rest = bound[0], bound[1:]
        hosts = ", ".join(b.name for b, _ in bound)
        yield Finding("", INFO, f"cluster queue {name} has {len(inst)} instances in {cluster}, DEFBIND(OPEN) on "
                      f"{hosts}: applications opening it with MQOO_BIND_AS_Q_DEF stay bound to one instance "
                      "even when its channel fails", q.at("QUEUE", name, "DEFBIND"),
                      f"ALTER QLOCAL({name}) DEFBIND(NOTFIXED) on {hosts}, unless message order matters",
                      confirm="mqcheck check {file} --faults 1 --property BD-NOT-FIXED-REDRIVE",
                      related=tuple(_rel(b.at("QUEUE", name, "DEFBIND"), f"the instance on {b.name}")
                                    for b, _ in rest))


# --------------------------------------------------------------------------- the catalogue
RULES: tuple[Rule, ...] = (
    Rule("MQSC-REJECTED", "an MQSC command runmqsc rejects (its object or change is missing)", ERROR,
         "runmqsc (the AMQ message it prints)", mqsc_rejected, "mqcheck run {file}  (Errors logged: ...)"),
    Rule("FR-MESH", "full repositories not fully connected by manual CLUSSDRs", ERROR,
         "000 §Resource definition for Full Repositories", fr_mesh,
         "mqcheck check {file} --property RP-FR-CONVERGENCE"),
    Rule("FR-COUNT", "a cluster with fewer than two full repositories", WARNING,
         "003 §Queue managers and repositories", fr_count),
    Rule("FR-NO-CLUSRCVR", "a full repository without a CLUSRCVR in its cluster", ERROR,
         "000 §Resource definition for Full Repositories", fr_without_clusrcvr),
    Rule("NO-CLUSSDR", "a cluster member without a manual CLUSSDR", ERROR,
         "003 §Cluster channels", no_clussdr, "mqcheck run {file}  (the full repositories do not list it)"),
    Rule("CLUSTER-PAIR", "a manual CLUSSDR in a cluster its queue manager has no CLUSRCVR in", ERROR,
         "000 §Initial definitions", cluster_pair, "mqcheck run {file}  (Not joined: ...)"),
    Rule("CLUSTER-MEMBER", "a queue or topic shared in a cluster its queue manager has no CLUSRCVR in", ERROR,
         "003 §Queues", cluster_member, "mqcheck run {file}  (Repositories: the object is in no view)"),
    Rule("ALIAS-TARGET", "a QALIAS whose TARGET no queue manager of the scenario defines", WARNING,
         "000 §Routing messages in and out of clusters", alias_target, "mqcheck run {file}  (MQRC_UNKNOWN_OBJECT_NAME)"),
    Rule("CLUSSDR-TARGET", "a CLUSSDR whose CONNAME reaches no CLUSRCVR, one in another cluster, or one of a "
         "queue manager that is no full repository of the cluster",
         ERROR, "003 §Cluster channels", clussdr_target, "mqcheck run {file}  (Not joined: ...)"),
    Rule("CLUSSDR-NAME", "a CLUSSDR whose name is not the name of the CLUSRCVR it reaches", ERROR,
         "003 §Cluster channels", clussdr_name),
    Rule("CONNAME-PORT", "a CLUSRCVR CONNAME without a port beside a manual CLUSSDR with one", ERROR,
         "003 §Auto-definition of channels", conname_port),
    Rule("CLUSTER-XMITQ", "SYSTEM.CLUSTER.TRANSMIT.QUEUE as the default transmission queue or a QREMOTE's XMITQ",
         ERROR, "003 §Cluster transmission queue", cluster_xmitq),
    Rule("DUP-QMGR", "duplicate queue manager names or CLUSRCVR addresses", ERROR,
         "000 §Incorrectly deleted queue managers", duplicate_qmgrs),
    Rule("SHARED-FRS", "one full repository for a publish/subscribe and a point-to-point cluster", WARNING,
         "002 §Inhibiting clustered publish/subscribe in a cluster", shared_frs),
    Rule("TOPIC-CONFLICT", "one cluster topic defined on several queue managers", WARNING,
         "002 §Multiple cluster topic definitions", topic_conflict),
    Rule("TOPIC-OVERLAP", "cluster topics of different clusters with one topic string or nested", WARNING,
         "002 §Overlapping cluster support, and publish/subscribe", overlapping_clusters),
    Rule("PROXYSUB-FORCE", "PROXYSUB(FORCE) above WILDCARD(BLOCK) or another cluster", WARNING,
         "002 §Publish everywhere", proxysub_force),
    Rule("HIERARCHY", "a hierarchy loop or a PARENT that cannot connect", WARNING,
         "002 §How loop detection works", hierarchy),
    Rule("CLUSTER-AND-HIERARCHY", "a hierarchy link inside one publish/subscribe cluster", WARNING,
         "002 §Combine the topic spaces of multiple clusters", cluster_and_hierarchy),
    Rule("TOPICSTR-TEXT", "a TOPICSTR that runmqsc folds to upper case (unquoted) or that starts or ends with a "
         "blank", WARNING, "002 §Topics", topicstr_text, "mqcheck run {file}  (cluster topics and deliveries)"),
    Rule("PSCLUS-DISABLED", "PSCLUS(DISABLED) beside cluster topics", ERROR,
         "002 §Inhibiting clustered publish/subscribe in a cluster", psclus_disabled),
    Rule("PSMODE-LINK", "PSMODE not ENABLED on an end of a PARENT link, or DISABLED on a publish/subscribe "
         "cluster member", WARNING, "002 §Publish/subscribe hierarchies; 002 §Subscription performance "
         "considerations", psmode_links),
    Rule("PSCLUS-PARTIAL", "PSCLUS(DISABLED) on some members of a cluster only", WARNING,
         "002 §Inhibiting clustered publish/subscribe in a cluster", psclus_partial),
    Rule("LOCAL-OVERRIDE", "a local topic overriding a cluster topic still publishes to the cluster", WARNING,
         "002 §Overriding a cluster topic definition locally", local_override),
    Rule("RANK-SHADOWS", "lower-ranked cluster queue instances unreachable while a higher one exists", INFO,
         "001 §The cluster workload management algorithm (rules 3-4); 004 §Channel availability routing",
         rank_shadows),
    Rule("CLWLUSEQ-PRIORITY", "a higher CLWLPRTY elsewhere that local applications never reach (CLWLUSEQ LOCAL)",
         WARNING, "001 §The cluster workload management algorithm (rules 6, 14); 004 §Channel workload balancing",
         useq_local_priority),
    Rule("PUT-DISABLED", "a cluster queue whose every instance is PUT(DISABLED)", WARNING,
         "001 §The cluster workload management algorithm (rule 5)", put_disabled_everywhere),
    Rule("GATEWAY-BOUNCE", "clustered aliases on overlapping-cluster gateways ranked like the real queue",
         WARNING, "000 §Rank and Overlapping Clusters", gateway_bounce),
    Rule("DEFBIND-OPEN", "DEFBIND(OPEN) on a cluster queue with several instances", INFO,
         "004 §Pros and cons of binding; 000 §Implementation recommendations (continued)", defbind_open),
)
RULE_IDS: tuple[str, ...] = tuple(r.id for r in RULES)
