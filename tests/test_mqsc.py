"""The MQSC reader: tables of valid commands, lexical rules, synonyms and errors, the seeds'
MQSC examples, and Hypothesis round-trips and fuzzing (the reader raises InputError or
returns commands, never anything else)."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from spec.errors import InputError
from spec.mqsc import Command, parse, render, render_command

SEED_LINES_FILE = Path(__file__).resolve().parent / "data" / "seed_mqsc_lines.tsv"


def one(text: str) -> Command:
    (cmd,) = parse(text)
    return cmd


# ============================================================================ valid commands

VALID = [
    # (MQSC, verb, object type, name, attributes)
    ("DEFINE QLOCAL(PAYROLLQ) CLUSTER(DEMO)", "DEFINE", "QLOCAL", "PAYROLLQ",
     {"CLUSTER": "DEMO"}),
    ("DEFINE QREMOTE(LOCALQMGR) RNAME(' ') RQMNAME(QMB)", "DEFINE", "QREMOTE", "LOCALQMGR",
     {"RNAME": "", "RQMNAME": "QMB"}),
    ("DEFINE QALIAS(ACQ1) TARGQ(CQ1) CLUSTER(BLUE)", "DEFINE", "QALIAS", "ACQ1",
     {"TARGET": "CQ1", "CLUSTER": "BLUE"}),
    ("DEFINE QLOCAL(Q) DEFBIND(NOTFIXED) PUT(DISABLED) CLWLRANK(9) CLWLPRTY(0) CLWLUSEQ(ANY)",
     "DEFINE", "QLOCAL", "Q", {"DEFBIND": "NOTFIXED", "PUT": "DISABLED", "CLWLRANK": 9,
                               "CLWLPRTY": 0, "CLWLUSEQ": "ANY"}),
    ("DEFINE CHANNEL(TO.QM1) CHLTYPE(CLUSRCVR) CONNAME('host(1414)') CLUSTER(DEMO) "
     "CLWLWGHT(99) CLWLRANK(7) CLWLPRTY(3) NETPRTY(9)", "DEFINE", "CHANNEL", "TO.QM1",
     {"CHLTYPE": "CLUSRCVR", "CONNAME": "host(1414)", "CLUSTER": "DEMO", "CLWLWGHT": 99,
      "CLWLRANK": 7, "CLWLPRTY": 3, "NETPRTY": 9}),
    ("DEFINE TOPIC(SPORTS) TOPICSTR('Sports') CLUSTER(CL1) PUBSCOPE(ALL) SUBSCOPE(QMGR) "
     "PROXYSUB(FORCE) WILDCARD(BLOCK) DURSUB(NO) PUB(DISABLED) SUB(ASPARENT) TOPICTYPE(LOCAL)",
     "DEFINE", "TOPIC", "SPORTS",
     {"TOPICSTR": "Sports", "CLUSTER": "CL1", "PUBSCOPE": "ALL", "SUBSCOPE": "QMGR",
      "PROXYSUB": "FORCE", "WILDCARD": "BLOCK", "DURSUB": "NO", "PUB": "DISABLED",
      "SUB": "ASPARENT", "TOPICTYPE": "LOCAL"}),
    ("DEFINE SUB(S1) TOPICOBJ(FOOTBALL) TOPICSTR('Arsenal') DEST(Q1) DESTQMGR(QM2) "
     "WSCHEMA(CHAR) SUBSCOPE(QMGR)", "DEFINE", "SUB", "S1",
     {"TOPICOBJ": "FOOTBALL", "TOPICSTR": "Arsenal", "DEST": "Q1", "DESTQMGR": "QM2",
      "WSCHEMA": "CHAR", "SUBSCOPE": "QMGR"}),
    ("DEFINE NAMELIST(CLNL) NAMES(BLUE, RED ,'green')", "DEFINE", "NAMELIST", "CLNL",
     {"NAMES": ("BLUE", "RED", "green")}),
    ("DEFINE NAMELIST(EMPTY) NAMES()", "DEFINE", "NAMELIST", "EMPTY", {"NAMES": ()}),
    ("ALTER QMGR REPOS(CL1) CLWLUSEQ(ANY) CLWLMRUC(999999999) PSMODE(COMPAT) PSCLUS(DISABLED)",
     "ALTER", "QMGR", "", {"REPOS": "CL1", "CLWLUSEQ": "ANY", "CLWLMRUC": 999999999,
                           "PSMODE": "COMPAT", "PSCLUS": "DISABLED"}),
    ("ALTER QMGR PARENT('')", "ALTER", "QMGR", "", {"PARENT": ""}),
    ("ALTER QMGR REPOSNL(NL1) DEADQ(SYSTEM.DEAD.LETTER.QUEUE)", "ALTER", "QMGR", "",
     {"REPOSNL": "NL1", "DEADQ": "SYSTEM.DEAD.LETTER.QUEUE"}),
    ("ALTER TOPIC(SYSTEM.BASE.TOPIC) PUBSCOPE(QMGR)", "ALTER", "TOPIC", "SYSTEM.BASE.TOPIC",
     {"PUBSCOPE": "QMGR"}),
    ("ALTER CHL(TO.SERVER2) CHLTYPE(CLUSRCVR) CLWLWGHT(20)", "ALTER", "CHANNEL", "TO.SERVER2",
     {"CHLTYPE": "CLUSRCVR", "CLWLWGHT": 20}),
    ("DELETE QLOCAL(Q1) NOPURGE", "DELETE", "QLOCAL", "Q1", {"PURGE": False}),
    ("ALTER QLOCAL(Q1) PUT(DISABLED) FORCE", "ALTER", "QLOCAL", "Q1",
     {"PUT": "DISABLED", "FORCE": True}),
    ("DELETE SUB(SPORTS)", "DELETE", "SUB", "SPORTS", {}),
    ("SUSPEND QMGR CLUSTER(DEMO) MODE(FORCE)", "SUSPEND", "QMGR", "",
     {"CLUSTER": "DEMO", "MODE": "FORCE"}),
    ("RESUME QMGR CLUSNL(CLNL)", "RESUME", "QMGR", "", {"CLUSNL": "CLNL"}),
    ("REFRESH CLUSTER(DEMO) REPOS(YES)", "REFRESH", "CLUSTER", "DEMO", {"REPOS": "YES"}),
    ("REFRESH CLUSTER(*)", "REFRESH", "CLUSTER", "*", {}),
    ("RESET CLUSTER(DEMO) ACTION(FORCEREMOVE) QMNAME(QM1) QUEUES(YES)", "RESET", "CLUSTER",
     "DEMO", {"ACTION": "FORCEREMOVE", "QMNAME": "QM1", "QUEUES": "YES"}),
    ("RESET CLUSTER(DEMO) ACTION(FORCEREMOVE) QMID('QM1_2012-01-01_10.00.00')", "RESET",
     "CLUSTER", "DEMO", {"ACTION": "FORCEREMOVE", "QMID": "QM1_2012-01-01_10.00.00"}),
    ("REFRESH QMGR TYPE(PROXYSUB)", "REFRESH", "QMGR", "", {"TYPE": "PROXYSUB"}),
    ("CLEAR TOPICSTR('USA/Alabama') CLTRTYPE(RETAINED)", "CLEAR", "TOPICSTR", "USA/Alabama",
     {"CLTRTYPE": "RETAINED"}),
    ("START CHANNEL('QM1.TO.QM2')", "START", "CHANNEL", "QM1.TO.QM2", {}),
    ("STOP CHANNEL(TO.QM2)", "STOP", "CHANNEL", "TO.QM2", {}),
    # object names: A-Z a-z 0-9 . / _ % ("Rules for naming IBM MQ objects"); lower case
    # survives only when quoted; a blank CLUSTER is "no cluster"
    ("DEFINE QLOCAL('my.queue') CLUSTER(DEMO)", "DEFINE", "QLOCAL", "my.queue",
     {"CLUSTER": "DEMO"}),
    ("DEFINE QLOCAL(PAY%ROLL/Q_1.A) CLUSTER('')", "DEFINE", "QLOCAL", "PAY%ROLL/Q_1.A",
     {"CLUSTER": ""}),
    ("ALTER QLOCAL(Q1) CLUSNL(' ')", "ALTER", "QLOCAL", "Q1", {"CLUSNL": ""}),
    ("DEFINE QREMOTE('r/q%1') RNAME('a_b.C') RQMNAME('qm_1') XMITQ(X.Q)", "DEFINE", "QREMOTE",
     "r/q%1", {"RNAME": "a_b.C", "RQMNAME": "qm_1", "XMITQ": "X.Q"}),
    # topic strings and text attributes are not object names: any characters
    ("DEFINE TOPIC(T1) TOPICSTR('Sports/St. Helens $1') DESCR('a $ b')", "DEFINE", "TOPIC",
     "T1", {"TOPICSTR": "Sports/St. Helens $1", "DESCR": "a $ b"}),
    # a topic object name may have embedded blanks: 002's Figure 7 defines 'St. Helens'
    ("DEFINE TOPIC ('St. Helens') TOPICSTR('Sports/Rugby/St. Helens')", "DEFINE", "TOPIC",
     "St. Helens", {"TOPICSTR": "Sports/Rugby/St. Helens"}),
    ("DEFINE SUB(S1) TOPICOBJ('St. Helens') DEST(Q1)", "DEFINE", "SUB", "S1",
     {"TOPICOBJ": "St. Helens", "DEST": "Q1"}),
    ("DEFINE SUB(S1) TOPICSTR('price $/big deal') DEST(Q1)", "DEFINE", "SUB", "S1",
     {"TOPICSTR": "price $/big deal", "DEST": "Q1"}),
    ("CLEAR TOPICSTR('a b/$c') CLTRTYPE(RETAINED)", "CLEAR", "TOPICSTR", "a b/$c",
     {"CLTRTYPE": "RETAINED"}),
    # subscription names are strings, not object names (JMS makes 'JMS:QM1:client:name')
    ("DEFINE SUB('JMS:QM1:client:my sub') TOPICSTR('x') DEST(Q1)", "DEFINE", "SUB",
     "JMS:QM1:client:my sub", {"TOPICSTR": "x", "DEST": "Q1"}),
    ("REFRESH CLUSTER(DEMO*)", "REFRESH", "CLUSTER", "DEMO*", {}),
]


@pytest.mark.parametrize("text, verb, objtype, name, attrs", VALID)
def test_valid_command(text, verb, objtype, name, attrs):
    cmd = one(text)
    assert (cmd.verb, cmd.objtype, cmd.name, dict(cmd.attrs)) == (verb, objtype, name, attrs)
    assert cmd.modelled


def test_attributes_come_in_canonical_order():
    a = one("DEFINE QLOCAL(Q) PUT(DISABLED) CLUSTER(C) DEFBIND(GROUP)")
    b = one("DEFINE QLOCAL(Q) DEFBIND(GROUP) CLUSTER(C) PUT(DISABLED)")
    assert a == b and [kw for kw, _ in a.attrs] == ["CLUSTER", "DEFBIND", "PUT"]


IGNORED = [
    # accepted and recorded as no-ops: change nothing mqcheck models
    "DISPLAY SUB(*) SUBTYPE(PROXY) ALL",
    "DIS TOPIC(FOOTBALL) TYPE(ALL) CLUSINFO",
    "DISPLAY QMGR",
    "DISPLAY PUBSUB TYPE(ALL)",
    "DISPLAY CHSTATUS('QM1.TO.QM2')",
    "DEFINE LISTENER(LST1) TRPTYPE(TCP) PORT(1414) CONTROL(QMGR) REPLACE",
    "START LISTENER(LST1)",
    "CLEAR QLOCAL(QSPORTS)",
    "DEFINE QMODEL(M1)",
    "SET CHLAUTH('*') TYPE(BLOCKUSER) USERLIST('nobody')",
    # DISPLAY's real forms: every object and status type, WHERE(keyword operator value)
    "DIS CLUSQMGR(*) WHERE(STATUS EQ RUNNING)",
    "DIS CLUSQMGR(*) QMID STATUS SUSPEND WHERE(QMTYPE EQ REPOS)",
    "DIS QCLUSTER(*)",
    "DIS QC(PAYROLL) CLUSQMGR",
    "DISPLAY QLOCAL(*) WHERE(CURDEPTH GT 0)",
    "DIS QL(*) WHERE(CURDEPTH GT 0)",
    "DIS Q(*) WHERE(CLUSTER LK 'CL*')",
    "DIS CHANNEL(*) WHERE(CHLTYPE EQ CLUSRCVR)",
    "DIS CHS(TO.*) WHERE(STATUS NE RUNNING)",
    "DISPLAY CHSTATUS(*) ALL",
    "DIS SUB(*) SUBID",
    "DIS SBSTATUS(*)",
    "DIS TOPIC(*) TYPE(ALL)",
    "DIS TPSTATUS('#') TYPE(SUB)",
    "DISPLAY PUBSUB ALL",
    "DISPLAY QMGR ALL",
    "DIS QMGR CLWLUSEQ",
    "DIS QSTATUS(Q1) TYPE(HANDLE)",
    "DIS QMSTATUS ALL",
    "DIS NAMELIST(*) WHERE(NAMES CT CL1)",
    "DIS QREMOTE(*) WHERE(RQMNAME EQ 'QM1')",
]


def test_display_where_keeps_the_filter():
    assert one("DIS QL(*) WHERE(CURDEPTH GT 0)").attrs == (("WHERE", ("CURDEPTH", "GT", "0")),)
    assert one("DIS Q(*) WHERE(DESCR EQ 'two words')").attrs == (("WHERE", ("DESCR", "EQ", "two words")),)


@pytest.mark.parametrize("text", IGNORED)
def test_accepted_and_ignored(text):
    assert not one(text).modelled


# ============================================================================ lexical rules

LEXICAL = [
    # (MQSC, expected name, expected attributes) — continuation, quoting and case folding
    ("define qlocal(payroll) cluster(demo)", "PAYROLL", {"CLUSTER": "DEMO"}),
    ("DEFINE QLOCAL('payroll') CLUSTER('demo')", "payroll", {"CLUSTER": "demo"}),
    # (a quote is not allowed in an object name; a subscription name is a plain string)
    ("DEFINE SUB('It''s') TOPICSTR('a''b')", "It's", {"TOPICSTR": "a'b"}),
    # unquoted values fold, even topic strings (000 §Pub/sub: TOPICSTR(/global/sports))
    ("DEFINE TOPIC(SPORTS) TOPICSTR(/global/sports)", "SPORTS", {"TOPICSTR": "/GLOBAL/SPORTS"}),
    # blanks between a keyword and its parenthesis (002: DEFINE TOPIC ('Sports'), CLUSTER (DEMO))
    ("DEFINE TOPIC ('Sports')     TOPICSTR('Sports')  CLUSTER (CL1)", "Sports",
     {"TOPICSTR": "Sports", "CLUSTER": "CL1"}),
    ("DEFINE QLOCAL( Q1 ) CLWLRANK( 3 )", "Q1", {"CLWLRANK": 3}),
    # '+': the next line continues from its first non-blank character
    ("DEFINE QLOCAL(Q1) +\n      CLUSTER(DEMO)", "Q1", {"CLUSTER": "DEMO"}),
    ("DEFINE QLOCAL(AB+\n     CD)", "ABCD", {}),
    ("DEFINE QLOCAL(Q1) DESCR('two +\n    words')", "Q1", {"DESCR": "two words"}),
    # '-': the next line continues from column 1
    ("DEFINE QLOCAL(Q1) DESCR('two -\n    words')", "Q1", {"DESCR": "two     words"}),
    ("DEFINE QLOCAL(AB-\nCD)", "ABCD", {}),
    # trailing blanks after the continuation character do not matter
    ("DEFINE QLOCAL(Q1) +   \nCLUSTER(DEMO)", "Q1", {"CLUSTER": "DEMO"}),
    # comment lines and blank lines around a command; CRLF line ends
    ("* a comment\n\n   * indented comment\nDEFINE QLOCAL(Q1)\r\n\r\n", "Q1", {}),
    ("\tDEFINE\tQLOCAL(Q1)\tPUT(DISABLED)", "Q1", {"PUT": "DISABLED"}),
    # names are blank-padded in MQ: trailing blanks are not part of the name
    ("DEFINE QLOCAL('Q1  ') CLUSTER(' ')", "Q1", {"CLUSTER": ""}),
    # enumerations and numbers are case-insensitive and may be quoted
    ("define qlocal(q1) put(disabled) clwlrank('5')", "Q1", {"PUT": "DISABLED", "CLWLRANK": 5}),
]


@pytest.mark.parametrize("text, name, attrs", LEXICAL)
def test_lexical_rules(text, name, attrs):
    cmd = one(text)
    assert (cmd.name, dict(cmd.attrs)) == (name, attrs)


def test_several_commands_with_positions():
    cmds = parse("* header\nDEFINE QLOCAL(A)\n\n  DEFINE QLOCAL(B) +\n CLUSTER(X)\nALTER QMGR REPOS(X)")
    assert [(c.title(), c.line, c.column) for c in cmds] == [
        ("DEFINE QLOCAL(A)", 2, 1), ("DEFINE QLOCAL(B)", 4, 3), ("ALTER QMGR", 6, 1)]
    assert cmds[1].where("CLUSTER") == (5, 2)


def test_end_stops_reading():
    assert [c.name for c in parse("DEFINE QLOCAL(A)\nEND\nthis is not MQSC")] == ["A"]


def test_empty_text_has_no_commands():
    assert parse("") == () and parse("\n* only a comment\n   \n") == ()


# ============================================================================ synonyms

SYNONYMS = [
    ("DEF QL(Q1)", "DEFINE QLOCAL(Q1)"),
    ("DEF QR(Q1) RQMNAME(QM2)", "DEFINE QREMOTE(Q1) RQMNAME(QM2)"),
    ("DEF QA(Q1) TARGQ(Q2)", "DEFINE QALIAS(Q1) TARGET(Q2)"),
    ("DEF CHL(C1) CHLTYPE(RCVR)", "DEFINE CHANNEL(C1) CHLTYPE(RCVR)"),
    ("DEF NL(N1) NAMES(A)", "DEFINE NAMELIST(N1) NAMES(A)"),
    ("DEF SUB(S1) TOPICSTR('x')", "DEFINE SUB(S1) TOPICSTR('x')"),
    ("DEF TOPIC(T1) TOPICSTR('x')", "DEFINE TOPIC(T1) TOPICSTR('x')"),
    ("ALT QL(Q1) PUT(DISABLED)", "ALTER QLOCAL(Q1) PUT(DISABLED)"),
    ("ALT QMGR REPOS(C)", "ALTER QMGR REPOS(C)"),
    ("DELETE QL(Q1)", "DELETE QLOCAL(Q1)"),
    ("DELETE QA(Q1)", "DELETE QALIAS(Q1)"),
    ("DELETE QR(Q1)", "DELETE QREMOTE(Q1)"),
    ("DELETE CHL(C1)", "DELETE CHANNEL(C1)"),
    ("DELETE NL(N1)", "DELETE NAMELIST(N1)"),
    ("REF CLUSTER(C)", "REFRESH CLUSTER(C)"),
    ("STA CHL(C1)", "START CHANNEL(C1)"),
    ("DIS QL(*)", "DISPLAY QLOCAL(*)"),
    ("DEF QL(Q1) NOREPLACE", "DEFINE QLOCAL(Q1) NOREPLACE"),
]


@pytest.mark.parametrize("short, long", SYNONYMS)
def test_synonyms(short, long):
    assert one(short) == one(long)


# ============================================================================ errors

ERRORS = [
    # (MQSC, message fragment, line, column, suggestion fragment)
    ("DEFINE QLOCAL(Q1) CLUSTR(DEMO)", "CLUSTR is not an attribute of QLOCAL", 1, 19,
     "did you mean CLUSTER?"),
    ("DEFINE QLOCAL(Q1) CLWLWEIGHT(5)", "CLWLWEIGHT is not an attribute of QLOCAL", 1, 19,
     "CLWLWGHT is an attribute of CHANNEL"),
    ("DEFINE CHANNEL(C) CHLTYPE(CLUSRCVR) CLWLWGHT(100)", "CLWLWGHT(100) is out of range", 1,
     46, ""),
    ("DEFINE CHANNEL(C) CHLTYPE(CLUSRCVR) CLWLWGHT(0)", "expected 1 to 99", 1, 46, ""),
    ("DEFINE QLOCAL(Q) CLWLRANK(10)", "CLWLRANK(10) is out of range", 1, 27, ""),
    ("DEFINE QLOCAL(Q) CLWLPRTY(-1)", "is not a number", 1, 27, ""),
    ("DEFINE CHANNEL(C) CHLTYPE(CLUSRCVR) NETPRTY(10)", "expected 0 to 9", 1, 45, ""),
    ("ALTER QMGR CLWLMRUC(0)", "expected 1 to 999999999", 1, 21, ""),
    ("ALTER QMGR CLWLMRUC(1000000000)", "out of range", 1, 21, ""),
    ("DEFINE TOPIC(T) TOPICSTR('x') PUBSCOPE(EVERYONE)",
     "PUBSCOPE(EVERYONE) is not valid; expected PUBSCOPE(QMGR|ALL|ASPARENT)", 1, 40, ""),
    ("DEFINE TOPIC(T) TOPICSTR('x') WILDCARD(BLOKC)", "WILDCARD(BLOCK|PASSTHRU)", 1, 40,
     "did you mean BLOCK?"),
    ("DEFINE TOPIC(T) TOPICSTR('x') PROXYSUB(ALWAYS)", "PROXYSUB(FIRSTUSE|FORCE)", 1, 40, ""),
    ("DEFINE SUB(S) TOPICSTR('x') SUBSCOPE(ASPARENT)", "SUBSCOPE(ALL|QMGR)", 1, 38, ""),
    ("ALTER QMGR CLWLUSEQ(QMGR)", "CLWLUSEQ(LOCAL|ANY)", 1, 21, ""),
    ("ALTER QMGR PSMODE(ON)", "PSMODE(ENABLED|DISABLED|COMPAT)", 1, 19, ""),
    ("DEFINE QLOCAL(Q) DEFBIND(ONOPEN)", "DEFBIND(OPEN|NOTFIXED|GROUP)", 1, 26, ""),
    # 002 §Overlapping cluster support prose: CLUSTER without a value is not MQSC
    ("DEFINE TOPIC(A) TOPICSTR('Football/result/') CLUSTER SUBSCOPE(ALL)",
     "CLUSTER needs a value in parentheses", 1, 46, "CLUSTER(NAME)"),
    # 000 §Channel configurations slide: "DEF CHL(Q1) CLUSNL(CLNL)" has no CHLTYPE
    ("DEF CHL(Q1) CLUSNL(CLNL)", "CHLTYPE(...) is required", 1, 1, ""),
    ("DEFINE TOPIC(APPLES)", "TOPICSTR(...) is required", 1, 1, ""),
    ("DEFINE SUB(S1) DEST(Q1)", "TOPICSTR(...) or TOPICOBJ(...) is required", 1, 1, ""),
    ("RESET CLUSTER(DEMO) ACTION(FORCEREMOVE)", "QMNAME(...) or QMID(...) is required", 1, 1,
     ""),
    ("RESET CLUSTER(DEMO) ACTION(FORCEREMOVE) QMNAME(A) QMID(B)", "give QMNAME or QMID", 1, 51,
     ""),
    ("SUSPEND QMGR", "CLUSTER(...) or CLUSNL(...) is required", 1, 1, ""),
    ("REFRESH QMGR", "TYPE(...) is required", 1, 1, ""),
    ("CLEAR TOPICSTR('a/b')", "CLTRTYPE(...) is required", 1, 1, ""),
    ("DEFINE QLOCAL(Q) CLUSTER(A) CLUSNL(B)", "give CLUSTER or CLUSNL, not both", 1, 29, ""),
    ("DEFINE CHANNEL(C) CHLTYPE(SDR) CLUSTER(X)",
     "CLUSTER is not an attribute of a CHLTYPE(SDR) channel", 1, 32, "CLUSSDR/CLUSRCVR"),
    ("DEFINE CHANNEL(C) CHLTYPE(CLUSSDR) NETPRTY(1)", "NETPRTY is not an attribute", 1, 36,
     "CLUSRCVR"),
    ("DEFINE CHANNEL(C) CHLTYPE(CLUSRECV)", "CHLTYPE(CLUSRECV) is not valid", 1, 27,
     "did you mean CLUSRCVR?"),
    ("DEFINE CHANNEL(A.NAME.LONGER.THAN.20) CHLTYPE(RCVR)", "MQ allows at most 20", 1, 16, ""),
    ("DEFINE QLOCAL(Q1) PUT(ENABLED) PUT(DISABLED)", "PUT is given twice", 1, 32, ""),
    ("DEFINE QLOCAL(Q1) REPLACE NOREPLACE", "REPLACE is given twice", 1, 27, ""),
    ("DEFINE QLOCAL(Q1) REPLACE(YES)", "REPLACE takes no value", 1, 19, ""),
    ("DEFINE QLOCAL(Q1) PUT", "PUT needs a value", 1, 19, "PUT(ENABLED)"),
    ("DEFINE QLOCAL(Q1) PUT(ENABLED,DISABLED)", "PUT takes one value, found 2", 1, 19, ""),
    ("DEFINE QLOCAL()", "the name must not be blank", 1, 8, ""),
    ("DEFINE QLOCAL(' ')", "the name must not be blank", 1, 15, ""),
    ("DEFINE QLOCAL", "expected (a name) after QLOCAL", 1, 8, ""),
    ("DEFINE QLOCAL(A,B)", "expected one name, found 2", 1, 8, ""),
    ("DEFINE QLOCAL(Q*)", "contains '*'", 1, 15, ""),
    # object names: only A-Z a-z 0-9 . / _ % (IBM MQ, "Rules for naming IBM MQ objects")
    ("DEFINE QLOCAL('C Q$1') CLUSTER(DEMO)", "DEFINE QLOCAL: invalid queue name 'C Q$1': "
     "expected 1 to 48 characters from A-Z a-z 0-9 . / _ %", 1, 15, "e.g. C_Q_1"),
    ("DEFINE QLOCAL(Q$X)", "invalid queue name 'Q$X'", 1, 15, "e.g. Q_X"),
    ("DEFINE QLOCAL('Q\x1b[31m1')", "invalid queue name 'Q\\x1b[31m1'", 1, 15, "e.g. 'Q__31m1'"),
    ("DEFINE QLOCAL(' Q1')", "invalid queue name ' Q1'", 1, 15, "e.g. Q1"),
    ("DEFINE QALIAS(A-B) TARGET(Q1)", "invalid queue name 'A-B'", 1, 15, ""),
    ("ALTER QALIAS(A) TARGQ('Q$1')", "TARGQ: invalid queue or topic object name 'Q$1'", 1, 23,
     ""),
    ("DEFINE TOPIC(T#1) TOPICSTR('x')", "invalid topic object name 'T#1': expected 1 to 48 "
     "characters from A-Z a-z 0-9 . / _ % and embedded blanks", 1, 14, ""),
    ("DEFINE TOPIC(' St') TOPICSTR('x')", "invalid topic object name ' St'", 1, 14, "e.g. 'St'"),
    ("DEFINE SUB(S) TOPICOBJ('St$1') DEST(Q)", "TOPICOBJ: invalid topic object name 'St$1'", 1, 24,
     ""),
    ("DEFINE CHANNEL('TO QM1') CHLTYPE(CLUSRCVR)",
     "invalid channel name 'TO QM1': expected 1 to 20 characters", 1, 16, "e.g. TO_QM1"),
    ("DEFINE NAMELIST(NL@1) NAMES(A)", "invalid namelist name 'NL@1'", 1, 17, ""),
    ("DEFINE QLOCAL(Q1) CLUSTER('DE MO')", "DEFINE QLOCAL(Q1): CLUSTER: invalid cluster name "
     "'DE MO': expected 1 to 48 characters from A-Z a-z 0-9 . / _ %", 1, 27, "e.g. DE_MO"),
    ("DEFINE QLOCAL(Q1) CLUSTER(DEMO$)", "CLUSTER: invalid cluster name 'DEMO$'", 1, 27, ""),
    ("DEFINE QLOCAL(Q1) CLUSNL(NL$1)", "CLUSNL: invalid namelist name 'NL$1'", 1, 26, ""),
    ("DEFINE CHANNEL(C) CHLTYPE(CLUSRCVR) CLUSTER('A,B')", "invalid cluster name 'A,B'", 1,
     45, ""),
    ("DEFINE QREMOTE(R) RQMNAME(QM-B)", "RQMNAME: invalid queue manager name 'QM-B'", 1, 27,
     ""),
    ("DEFINE SUB(S) TOPICSTR('x') DEST('my queue')", "DEST: invalid queue name 'my queue'", 1,
     34, ""),
    ("DEFINE NAMELIST(NL) NAMES(A,'B C')", "NAMES entry: invalid object name 'B C'", 1, 29, ""),
    ("ALTER QMGR REPOS(CL$1)", "REPOS: invalid cluster name 'CL$1'", 1, 18, ""),
    ("ALTER QMGR PARENT('QM 1')", "PARENT: invalid queue manager name 'QM 1'", 1, 19, ""),
    ("SUSPEND QMGR CLUSTER('A B')", "invalid cluster name 'A B'", 1, 22, ""),
    ("RESET CLUSTER(DEMO) ACTION(FORCEREMOVE) QMNAME('QM 2')",
     "QMNAME: invalid queue manager name 'QM 2'", 1, 48, ""),
    ("REFRESH CLUSTER('DE MO*')", "invalid cluster name 'DE MO*'", 1, 17, "e.g. 'DE_MO*'"),
    ("DEFINE QLOCAL(Q1", "expected ')' to close", 1, 14, "closing ')'"),
    ("DEFINE QLOCAL(Q1) DESCR('unterminated)", "quoted string is not closed", 1, 25, ""),
    ("DEFINE QLOCAL(Q1) DESCR(two words)", "expected ',' or ')' before 'words'", 1, 29,
     "quote values"),
    ("DEFINE CHANNEL(C) CHLTYPE(SDR) CONNAME(host(1414))", "unexpected '(' inside a value", 1,
     44, "CONNAME('host(1414)')"),
    ("DEFINE QLOCAL(Q1) 'x'", "expected a keyword, found a quoted string", 1, 19, ""),
    ("DEFINE", "expected an object type", 1, 1, ""),
    ("DEFINE(Q1)", "DEFINE: expected an object type before '('", 1, 1, "QLOCAL(name)"),
    ("DEFINE QUEUE(Q1)", "DEFINE QUEUE: not a command mqcheck reads", 1, 8, ""),
    ("DEFINE QLOCL(Q1)", "not a command mqcheck reads", 1, 8, "did you mean QLOCAL?"),
    ("DEFIEN QLOCAL(Q1)", "'DEFIEN' is not an MQSC command", 1, 1, "did you mean DEFINE?"),
    ("DEL QL(Q1)", "'DEL' is not an MQSC command", 1, 1, "did you mean DELETE?"),
    ("ALTER QMGR(QM1) REPOS(X)", "takes no name in parentheses", 1, 7, ""),
    ("ALTER QMGR REPOSITORY(X)", "REPOSITORY is not a ALTER QMGR keyword", 1, 12, ""),
    ("ALTER TOPIC(T) TOPICSTR('x')", "TOPICSTR cannot be altered", 1, 16, "DELETE TOPIC(T)"),
    ("ALTER SUB(S) TOPICOBJ(T)", "TOPICOBJ cannot be altered", 1, 14, ""),
    ("ALT SUB(S) SUBSCOPE(QMGR)", "SUBSCOPE cannot be altered", 1, 12, ""),
    ("ALTER SUB(S) SELECTOR('a > 1')", "SELECTOR cannot be altered", 1, 14, ""),
    ("DELETE QLOCAL(Q1) CLUSTER(X)", "DELETE takes only the name", 1, 19, ""),
    ("DEFINE TOPIC(T) TOPICSTR('')", "a topic string must not be empty", 1, 17, ""),
    ("DEFINE SUB(S) TOPICSTR(' x')", "MQRC_UNKNOWN_OBJECT_NAME", 1, 15, ""),
    ("DEFINE SUB(S) TOPICSTR('50%') WSCHEMA(CHAR)", "invalid escape", 1, 15, "%%"),
    ("CLEAR TOPICSTR('') CLTRTYPE(RETAINED)", "a topic string must not be empty", 1, 1, ""),
    # values runmqsc refuses on queue attributes the model keeps as raw text (a user trial)
    ("DEFINE QLOCAL(Q1) DEFPSIST(MAYBE)", "DEFPSIST(MAYBE) is not valid; expected DEFPSIST(YES|NO)", 1, 28, ""),
    ("DEFINE QLOCAL(Q1) MAXMSGL(-1)", "MAXMSGL(-1) is not a number; expected MAXMSGL(0-104857600)", 1, 27, ""),
    ("DEFINE QLOCAL(Q1) MAXDEPTH(1000000000)", "MAXDEPTH(1000000000) is out of range", 1, 28, ""),
    ("DEFINE QLOCAL(Q1) SHARE(7)", "SHARE takes no value", 1, 19, "write SHARE alone"),
    ("DEFINE QALIAS(A) TARGET(Q1) GET(MAYBE)", "GET(MAYBE) is not valid", 1, 33, ""),
    ("DEFINE QLOCAL(Q1) DESCR('" + "x" * 65 + "')", "DESCR is 65 characters; MQ allows at most 64", 1, 25, ""),
    ("DEFINE CHANNEL(C) CHLTYPE(SDR) CONNAME('x') XMITQ(T) DESCR('" + "x" * 65 + "')", "DESCR is 65", 1, 60, ""),
    # errors point into the right physical line after continuations
    ("DEFINE QLOCAL(Q1) +\n   PUT(DISABLED) +\n   CLWLRANK(12)", "out of range", 3, 13, ""),
    ("* comment\nDEFINE QLOCAL(Q1)\nALTER QLOCAL(Q1) -\n  GET(DISABLED) PUTT(ENABLED)",
     "PUTT is not an attribute", 4, 17, "did you mean PUT?"),
    ("DEFINE QLOCAL(Q1) +", "ends with a continuation character", 1, 19, ""),
    ("DEFINE QLOCAL(Q1) -\n  DESCR('x') +", "ends with a continuation character", 2, 14, ""),
    # ... also when the file (or TOML string) ends with a newline or blank lines, as files do
    ("DEFINE QLOCAL(Q1) +\n", "ends with a continuation character", 1, 19, ""),
    ("DEFINE QLOCAL(Q1) -\n", "ends with a continuation character", 1, 19, ""),
    ("ALTER QMGR REPOS(DEMO)\nDEFINE CHANNEL(TO.FR1) CHLTYPE(CLUSRCVR) CONNAME('fr1(1414)') +\n",
     "ends with a continuation character", 2, 63, ""),
    ("DEFINE QLOCAL(Q1) +\n\n  \n", "ends with a continuation character", 1, 19, ""),
    # DISPLAY ... WHERE(filter-keyword operator filter-value)
    ("DIS QL(*) WHERE()", "WHERE: expected a filter keyword", 1, 17, "WHERE(CURDEPTH GT 0)"),
    ("DIS QL(*) WHERE(CURDEPTH)", "WHERE: expected an operator after CURDEPTH", 1, 25, "EQ"),
    ("DIS QL(*) WHERE(CURDEPTH XX 0)", "WHERE: expected an operator after CURDEPTH", 1, 26, "GT"),
    ("DIS QL(*) WHERE(CURDEPTH GT 0 1)", "expected one value and ')'", 1, 31, "quote values"),
    ("DIS QL(*) WHERE(CURDEPTH GT", "expected one value and ')'", 1, 26, ""),
    ("DEFINE QLOCAL(Q1) WHERE(CURDEPTH GT 0)", "WHERE is not an attribute of QLOCAL", 1, 19, ""),
    ("DEFINE QCLUSTER(Q1)", "DEFINE QCLUSTER: not a command mqcheck reads", 1, 8, ""),
]


@pytest.mark.parametrize("text, message, line, column, suggestion", ERRORS)
def test_error(text, message, line, column, suggestion):
    with pytest.raises(InputError) as caught:
        parse(text, file="qm.mqsc")
    err = caught.value
    assert message in err.message
    assert (err.file, err.line, err.column) == ("qm.mqsc", line, column)
    assert suggestion in err.suggestion


def test_a_bad_name_is_reported_like_a_scenario_name_and_escaped():
    # the wording matches spec/scenario.py's [[expect]] error for the same name
    with pytest.raises(InputError) as caught:
        parse("DEFINE QLOCAL('C Q$1') CLUSTER(DEMO)", file="qma.mqsc")
    assert str(caught.value) == ("qma.mqsc:1:15: DEFINE QLOCAL: invalid queue name 'C Q$1': "
                                 "expected 1 to 48 characters from A-Z a-z 0-9 . / _ % "
                                 "(e.g. C_Q_1)")
    # control characters never reach the terminal raw
    with pytest.raises(InputError) as caught:
        parse("DEFINE QLOCAL('Q\x1b[2J\x9b1') CLUSTER('C\x0bL')", file="qma.mqsc")
    assert "\x1b" not in str(caught.value) and "\x9b" not in str(caught.value)
    assert "'Q\\x1b[2J\\x9b1'" in str(caught.value)
    with pytest.raises(InputError) as caught:
        parse("DEFINE QLOCAL(Q1) CLUSTER('C\x0bL')", file="qma.mqsc")
    assert "\x0b" not in str(caught.value) and "'C\\x0bL'" in str(caught.value)
    # a bare CR ends the line (session 29), as LF does: the quoted string is left open
    with pytest.raises(InputError) as caught:
        parse("DEFINE QLOCAL(Q1) CLUSTER('C\rL')", file="qma.mqsc")
    assert str(caught.value).startswith("qma.mqsc:1:27: a quoted string is not closed")


def test_error_names_the_command():
    with pytest.raises(InputError, match=r"qm.mqsc:2:19: DEFINE QLOCAL\(Q2\): CLUSTR"):
        parse("DEFINE QLOCAL(Q1)\nDEFINE QLOCAL(Q2) CLUSTR(X)", file="qm.mqsc")


# ============================================================================ seed examples

# Multi-line examples the seeds print without continuation characters (slides and prose
# wrap lines); joined here with '+' as an administrator would type them.
SEED_MULTILINE = [
    # 000 §Resource definition for a Partial Repository
    ("DEFINE CHANNEL(TO.QM1) CHLTYPE(CLUSRCVR) TRPTYPE(TCP) +\nCONNAME(MACHINE1.IBM.COM) "
     "CLUSTER(DEMO)", {"CONNAME": "MACHINE1.IBM.COM", "CLUSTER": "DEMO"}),
    ("DEFINE CHANNEL(TO.QM2) CHLTYPE(CLUSSDR) TRPTYPE(TCP) +\nCONNAME(MACHINE2.IBM.COM) "
     "CLUSTER(DEMO)", {"CHLTYPE": "CLUSSDR"}),
    # 000 §Channel Rank example, §Queue Rank example, §Channel Weight example
    ("ALTER CHL(TO.SERVER2) +\n CHLTYPE(CLUSRCVR) CLWLRANK(7)", {"CLWLRANK": 7}),
    ("ALTER CHL(TO.SERVER4) +\n CHLTYPE(CLUSRCVR) +\n CLWLRANK(3)", {"CLWLRANK": 3}),
    ("ALTER QL(DEMOQ) +\n CLWLRANK(6)", {"CLWLRANK": 6}),
    ("ALTER CHL(TO.SERVER4) +\n CHLTYPE(CLUSRCVR) +\n CLWLWGHT(10)", {"CLWLWGHT": 10}),
    # 000 §Pub/sub cluster proxy subscriptions (the slide's leading blank kept as printed)
    ("DEFINE TOPIC(APPLES) +\nTOPICSTR(' Price/Fruit/Apples') +\nCLUSTER(DEMO)",
     {"TOPICSTR": " Price/Fruit/Apples", "CLUSTER": "DEMO"}),
    # 002 §Administrative topic objects
    ("DEFINE TOPIC(FOOTBALL.EUROPEAN) +\n       TOPICSTR('Sport/Soccer') +\n       DURSUB(NO) +\n"
     "       DESCR('Administrative topic object to disallow durable subscriptions')",
     {"TOPICSTR": "Sport/Soccer", "DURSUB": "NO"}),
    # 002 §Reconnectable client samples (already uses '+')
    ("DEFINE CHANNEL(CHANNEL1) CHLTYPE(CLNTCONN)  TRPTYPE(TCP) +\n"
     "      CONNAME('server1(2345),server2(2345)') QMNAME(QM1) REPLACE",
     {"CONNAME": "server1(2345),server2(2345)", "REPLACE": True}),
]


@pytest.mark.parametrize("text, attrs", SEED_MULTILINE)
def test_seed_multiline_examples(text, attrs):
    cmd = one(text)
    assert attrs.items() <= dict(cmd.attrs).items()


_VERB = r"(?:DEFINE|DEF|ALTER|ALT|DELETE|REFRESH|RESET|SUSPEND|RESUME|CLEAR|START|STOP|DISPLAY|DIS)"
_TYPE = (r"(?:QLOCAL|QL|QREMOTE|QR|QALIAS|QA|TOPIC|SUB|CHANNEL|CHL|NAMELIST|NL|CLUSTER|"
         r"TOPICSTR|LISTENER|CLUSQMGR|CHSTATUS|QMGR\s+[A-Z]+)")
# A line that is an MQSC command, possibly behind a list marker, "E.g.", "QMA - ", a
# runmqsc prompt number or a batch file's "echo ... | runmqsc %1".
_SEED_COMMAND = re.compile(
    rf"^(?:[-*`\s]|E\.g\.|\d+\.|\d+ :|QM[A-Z0-9]+ -|if full==%4|echo)*"
    rf"({_VERB}\s+{_TYPE}\s*\(.*?)[`*\s]*(?:\| runmqsc %1)?$")
# 002 §...create qmgrs.bat: batch variables, as the script sets them for CL1A
_BATCH = {"%p%": "1420", "%1": "CL1A", "%2": "CL1B", "%3": "1421"}

# Seed lines that are not runnable MQSC, each with why; the reader must reject them.
SEED_NOT_MQSC = {
    ("000", 328): "placeholder <partial repos qmgr name>",
    ("000", 469): "slide typo: DEF CHL(Q1) for a queue, no CHLTYPE",
    **{("000", n): "slide shows the keyword with empty parentheses" for n in (860, 864, 879,
                                                                               883, 910)},
    **{("000", n): "slide elides attributes with '...'" for n in (907, 1002)},
    **{("000", n): "continues on the next lines (see SEED_MULTILINE)" for n in (
        944, 948, 953, 1011, 1016, 1021, 1150)},
    ("002", 824): "continues on the next lines (see SEED_MULTILINE)",
    **{("002", n): "prose: CLUSTER without a cluster name" for n in (2834, 2838, 2843)},
    **{("002", n): "procedure elides attributes with '...'" for n in (3078, 3079)},
    **{("002", n): "continues on the next line with '+' (see SEED_MULTILINE)" for n in (4181,
                                                                                     4186)},
}


def scan_seed_documents(directory: Path) -> list[tuple[str, int, str]]:
    """(seed, line number, command) for every one-line MQSC command in IBM's documents."""
    found = []
    for path in sorted(directory.glob("00*.txt")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            match = _SEED_COMMAND.match(line)
            if match:
                text = match.group(1)
                for var, value in _BATCH.items():
                    text = text.replace(var, value)
                found.append((path.name[:3], number, text))
    return found


def read_seed_lines(path: Path = SEED_LINES_FILE) -> list[tuple[str, int, str]]:
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            seed, number, text = line.split("\t", 2)
            rows.append((seed, int(number), text))
    return rows


def write_seed_lines(rows, path: Path = SEED_LINES_FILE) -> None:
    head = ("# Every one-line MQSC command in IBM's documents (seed, line number, command), as\n"
            "# scanned by tests/test_mqsc.py; regenerate with\n"
            "#   python tests/test_mqsc.py --extract DIRECTORY_OF_THE_SEED_DOCUMENTS\n")
    path.write_text(head + "".join(f"{s}\t{n}\t{text}\n" for s, n, text in rows), encoding="utf-8")


SEED_LINES = read_seed_lines()


def test_every_mqsc_line_in_the_seeds_is_read():
    """Every MQSC command printed on one line in the seeds parses, unless listed above.

    The lines come from tests/data/seed_mqsc_lines.tsv, extracted from IBM's documents
    (which are not part of this repository). With MQCHECK_SEEDS naming a directory of
    the documents, the file is also checked to be what a fresh scan finds."""
    assert len(SEED_LINES) > 200  # the scan itself found the examples
    if os.environ.get("MQCHECK_SEEDS"):
        assert scan_seed_documents(Path(os.environ["MQCHECK_SEEDS"])) == SEED_LINES, (
            "tests/data/seed_mqsc_lines.tsv is out of date: python tests/test_mqsc.py --extract $MQCHECK_SEEDS")
    unexpected = []
    for seed, number, text in SEED_LINES:
        try:
            parse(text)
            if (seed, number) in SEED_NOT_MQSC:
                unexpected.append((seed, number, "parsed but listed as not MQSC"))
        except InputError as err:
            if (seed, number) not in SEED_NOT_MQSC:
                unexpected.append((seed, number, err.one_line()))
    assert unexpected == []
    assert {(s, n) for s, n, _ in SEED_LINES} >= set(SEED_NOT_MQSC)


SEED_FIGURES = {
    # 002 §Controlling wildcard usage with the WILDCARD property, Figure 7 and Figure 9
    "topics.tst": """\
 DELETE TOPIC ('Sports')
DEFINE TOPIC ('Sports')     TOPICSTR('Sports')
DEFINE TOPIC ('Football')   TOPICSTR('Sports/Football') CLUSTER(CL1) WILDCARD(BLOCK)
DEFINE TOPIC ('Arsenal')    TOPICSTR('Sports/Football/Arsenal')
DEFINE TOPIC ('Rugby')      TOPICSTR('Sports/Rugby')    CLUSTER(CL1)
DEFINE TOPIC ('St. Helens') TOPICSTR('Sports/Rugby/St. Helens')
""",
    "fullsubs.tst": """\
 DEFINE QLOCAL(QFARSENAL) REPLACE
CLEAR  QLOCAL(QFARSENAL)
DELETE SUB  (FARSENAL)
DEFINE SUB   (FARSENAL) TOPICOBJ('Football') TOPICSTR('Arsenal') DEST(QFARSENAL)
DEFINE SUB   (RLEEDS)   TOPICOBJ('Rugby')    TOPICSTR('Leeds')   DEST(QRLEEDS)
""",
    # 002 §Connect a queue manager to a broker hierarchy / §Create a cluster example
    "hierarchy": """\
     DEFINE QLOCAL(QM1.XMITQ) USAGE(XMITQ)
    DEFINE QREMOTE (QM1) RNAME('') RQMNAME(QM1) XMITQ(QM1.XMITQ)
    DEFINE CHANNEL('QM2.TO.QM1') CHLTYPE(SDR) CONNAME('localhost(9999)') XMITQ(QM1.XMITQ) TRPTYPE(TCP)
    DEFINE CHANNEL('QM1.TO.QM2') CHLTYPE(RCVR) TRPTYPE(TCP)
       START CHANNEL('QM1.TO.QM2')
     ALTER QMGR PARENT (QM1)
     DISPLAY PUBSUB TYPE(ALL)
""",
}


@pytest.mark.parametrize("figure", sorted(SEED_FIGURES))
def test_seed_figures_parse_as_scripts(figure):
    cmds = parse(SEED_FIGURES[figure], file=figure)
    assert len(cmds) == len([l for l in SEED_FIGURES[figure].splitlines() if l.strip()])


def test_seed_figure_names_keep_their_case():
    topics = parse(SEED_FIGURES["topics.tst"])
    assert [c.name for c in topics] == ["Sports", "Sports", "Football", "Arsenal", "Rugby",
                                        "St. Helens"]
    sub = parse(SEED_FIGURES["fullsubs.tst"])[3]
    assert (sub.name, sub.get("TOPICOBJ"), sub.get("TOPICSTR")) == ("FARSENAL", "Football",
                                                                    "Arsenal")


# ============================================================================ rendering

RENDER = [
    ("def ql(q1) cluster(demo) put(disabled)", "DEFINE QLOCAL(Q1) CLUSTER(DEMO) PUT(DISABLED)"),
    ("DEFINE TOPIC('Sports') TOPICSTR('Sports') WILDCARD(BLOCK)",
     "DEFINE TOPIC('Sports') TOPICSTR('Sports') WILDCARD(BLOCK)"),
    ("DEFINE NAMELIST(N) NAMES(A,'b')", "DEFINE NAMELIST(N) NAMES(A,'b')"),
    ("DEFINE QLOCAL(Q) NOREPLACE DESCR('it''s')", "DEFINE QLOCAL(Q) DESCR('it''s') NOREPLACE"),
    ("ALTER QMGR REPOS(CL1)", "ALTER QMGR REPOS(CL1)"),
    ("REFRESH CLUSTER(CL1) REPOS(YES)", "REFRESH CLUSTER(CL1) REPOS(YES)"),
    ("CLEAR TOPICSTR('USA/Alabama') CLTRTYPE(RETAINED)",
     "CLEAR TOPICSTR('USA/Alabama') CLTRTYPE(RETAINED)"),
]


@pytest.mark.parametrize("text, rendered", RENDER)
def test_render(text, rendered):
    assert render_command(one(text)) == rendered
    assert one(rendered) == one(text)


# ============================================================================ properties

_name = st.text(st.sampled_from("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                 "0123456789./_%"), min_size=1, max_size=12)
_sub_name = st.text(st.characters(min_codepoint=32, max_codepoint=0x2FF,
                                  blacklist_characters="*"), min_size=1, max_size=12).filter(
    lambda s: s.rstrip(" ") == s)
_topic = st.text(st.characters(min_codepoint=32, max_codepoint=0x2FF), min_size=1,
                 max_size=20).filter(lambda s: s[0] != " ")


@st.composite
def _commands(draw):
    kind = draw(st.sampled_from(["QLOCAL", "TOPIC", "CHANNEL", "SUB", "NAMELIST", "QMGR"]))
    if kind == "QLOCAL":
        attrs = {"CLUSTER": draw(_name), "CLWLRANK": draw(st.integers(0, 9)),
                 "DEFBIND": draw(st.sampled_from(["OPEN", "NOTFIXED", "GROUP"])),
                 "DESCR": draw(st.text(max_size=10).filter(lambda s: "\n" not in s and "\r" not in s))}  # line ends
        return Command("DEFINE", "QLOCAL", draw(_name), tuple(sorted(attrs.items())))
    if kind == "TOPIC":
        attrs = {"TOPICSTR": draw(_topic),
                 "PUBSCOPE": draw(st.sampled_from(["QMGR", "ALL", "ASPARENT"])),
                 "REPLACE": draw(st.booleans())}
        return Command("DEFINE", "TOPIC", draw(_name), tuple(sorted(attrs.items())))
    if kind == "CHANNEL":
        attrs = {"CHLTYPE": "CLUSRCVR", "CONNAME": draw(_topic),
                 "CLWLWGHT": draw(st.integers(1, 99)), "NETPRTY": draw(st.integers(0, 9))}
        name = draw(_name.filter(lambda s: len(s) <= 20))
        return Command("DEFINE", "CHANNEL", name, tuple(sorted(attrs.items())))
    if kind == "SUB":
        attrs = {"TOPICSTR": draw(_topic), "DEST": draw(_name),
                 "SUBSCOPE": draw(st.sampled_from(["ALL", "QMGR"]))}
        return Command("DEFINE", "SUB", draw(_sub_name), tuple(sorted(attrs.items())))
    if kind == "NAMELIST":
        names = tuple(draw(st.lists(_name, max_size=3)))
        return Command("DEFINE", "NAMELIST", draw(_name), (("NAMES", names),))
    attrs = {"CLWLMRUC": draw(st.integers(1, 999999999)), "PARENT": draw(_name | st.just(""))}
    return Command("ALTER", "QMGR", "", tuple(sorted(attrs.items())))


@given(st.lists(_commands(), max_size=5))
def test_render_then_parse_round_trips(commands):
    assert parse(render(commands)) == tuple(commands)


@settings(max_examples=300)
@given(st.text(max_size=200))
def test_arbitrary_text_is_read_or_rejected_as_input_error(text):
    try:
        result = parse(text)
    except InputError:
        return
    assert isinstance(result, tuple) and all(isinstance(c, Command) for c in result)


_PIECES = st.sampled_from([
    "DEFINE", "DEF", "ALTER", "DELETE", "DISPLAY", "REFRESH", "RESET", "SUSPEND", "CLEAR",
    "START", "QLOCAL", "QL", "TOPIC", "SUB", "CHANNEL", "CHL", "NAMELIST", "QMGR", "CLUSTER",
    "TOPICSTR", "(", ")", ",", "'", "''", " ", "\n", "+\n", "-\n", "*", "Q1", "x/y",
    "CHLTYPE", "CLUSRCVR", "SDR", "CLWLWGHT", "99", "100", "REPLACE", "NAMES", "TOPICOBJ",
    "TYPE", "PROXYSUB", "ACTION", "FORCEREMOVE", "QMNAME", "WSCHEMA", "CHAR", "%", "#",
    "WHERE", "EQ", "GT", "QCLUSTER",
])


@settings(max_examples=400)
@given(st.lists(_PIECES, max_size=30))
def test_mqsc_like_text_is_read_or_rejected_as_input_error(pieces):
    text = "".join(pieces)
    try:
        result = parse(text)
    except InputError as err:
        assert err.line >= 1 or text.strip() == ""
        return
    for cmd in result:
        assert parse(render_command(cmd)) == (cmd,)


if __name__ == "__main__":
    if sys.argv[1:2] != ["--extract"] or len(sys.argv) != 3:
        sys.exit("usage: python tests/test_mqsc.py --extract DIRECTORY_OF_THE_SEED_DOCUMENTS")
    rows = scan_seed_documents(Path(sys.argv[2]))
    write_seed_lines(rows)
    print(f"{len(rows)} lines written to {SEED_LINES_FILE}")


@pytest.mark.parametrize("text, kept", [
    ("DEFINE QLOCAL(Q1) DEFPSIST(yes) DEFPRTY(9) SHARE NOTRIGGER HARDENBO MAXDEPTH(999999999) MAXMSGL(104857600) "
     "DEFSOPT(SHARED) MSGDLVSQ(FIFO) TRIGTYPE(NONE) DEFREADA(DISABLED) DEFPRESP(ASYNC) SCOPE(QMGR) GET(DISABLED)",
     {"DEFPSIST": "YES", "DEFPRTY": "9", "SHARE": True, "NOTRIGGER": True, "MAXDEPTH": "999999999", "GET": "DISABLED"}),
    ("DEFINE QLOCAL(Q1) DESCR('" + "x" * 64 + "')", {"DESCR": "x" * 64}),
    # the same keywords on a topic also take ASPARENT: not checked there
    ("DEFINE TOPIC(T) TOPICSTR('a') DEFPSIST(ASPARENT) DEFPRTY(ASPARENT)", {"DEFPSIST": "ASPARENT", "DEFPRTY": "ASPARENT"}),
    ("ALTER QMGR MAXMSGL(4194304)", {"MAXMSGL": "4194304"}),
])
def test_valid_values_of_unmodelled_attributes_are_kept_as_written(text, kept):
    cmd = one(text)
    assert {kw: cmd.get(kw) for kw in kept} == kept
