"""The static rule engine behind ``mqcheck lint``: rules, findings, severities, output.

Generic (DESIGN §1): a :class:`Rule` is data — id, title, severity, citation, and a
``check(config)`` function yielding :class:`Finding` values — and this module never looks
inside ``config``; the MQ rules themselves live in ``properties/lint.py``. Lint never runs
a model: a finding that ``mqcheck check``/``prove`` can confirm says which command does.

Output formats: text (grouped by file, sorted by line), JSON (stable keys) and SARIF 2.1.0
(OASIS), so code-scanning tools show findings on the MQSC lines. Exit status
(:func:`exit_status`): 0 nothing at or above ``--fail-on``, 1 something is.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import Enum
from typing import Any

__all__ = [
    "SARIF_SCHEMA",
    "SARIF_VERSION",
    "Finding",
    "LintReport",
    "Location",
    "Rule",
    "Severity",
    "exit_status",
    "render_json",
    "render_sarif",
    "render_text",
    "run_rules",
]

SARIF_VERSION = "2.1.0"
SARIF_SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"


class Severity(str, Enum):
    """How bad a finding is; ordered ``info < warning < error``."""

    INFO = "info"        # worth knowing (a behaviour the documents call surprising)
    WARNING = "warning"  # the documents advise against it; it can lose or duplicate messages
    ERROR = "error"      # it cannot work as written (a channel that reaches nothing, ...)

    @property
    def rank(self) -> int:
        return ("info", "warning", "error").index(self.value)

    @property
    def sarif_level(self) -> str:
        return {"info": "note", "warning": "warning", "error": "error"}[self.value]


@dataclass(frozen=True, slots=True)
class Location:
    """A place in a file the user wrote (1-based line and column; 0 = unknown)."""

    file: str
    line: int = 0
    column: int = 0
    note: str = ""  # what is there, for related locations ("the CLUSRCVR it should match")


@dataclass(frozen=True, slots=True)
class Finding:
    """One problem: which rule, where, what, how to fix it, and how to confirm it."""

    rule: str
    severity: Severity
    message: str
    location: Location
    fix: str
    confirm: str = ""  # an mqcheck command that shows the consequence, "" = none can
    related: tuple[Location, ...] = ()
    citation: str = ""

    def sort_key(self) -> tuple:
        loc = self.location
        return (loc.file, loc.line, loc.column, self.rule, self.message)


@dataclass(frozen=True)
class Rule:
    """A lint rule as data. ``check(config)`` yields findings; the engine fills in the
    rule's id, severity and citation where a finding leaves them to the rule."""

    id: str
    title: str
    severity: Severity
    citation: str
    check: Callable[[Any], Iterable[Finding]]
    confirm: str = ""  # default confirming command; ``{file}`` is replaced by the file


@dataclass
class LintReport:
    """The findings of one ``lint`` run, sorted, and the rules turned off (with reasons)."""

    findings: list[Finding]
    rules: Sequence[Rule]
    disabled: dict[str, str] = field(default_factory=dict)  # rule id -> reason
    files: list[str] = field(default_factory=list)

    def counts(self) -> dict[str, int]:
        out = {s.value: 0 for s in Severity}
        for f in self.findings:
            out[f.severity.value] += 1
        return out


def run_rules(configs: Iterable[tuple[Any, Mapping[str, str]]], rules: Sequence[Rule],
              disabled: Mapping[str, str] | None = None, files: Sequence[str] = ()) -> LintReport:
    """Run every rule on every configuration. ``configs`` are ``(config, disabled here)``
    pairs (a scenario's own ``[lint]`` table); ``disabled`` applies to all (``--disable``).
    A configuration's ``confirm_file`` attribute names the file the rules' confirming
    commands run on (``{file}``); without one, findings name no confirming command.
    Findings come out sorted by file, line, column, rule — the same bytes every run."""
    disabled = dict(disabled or {})
    findings: list[Finding] = []
    for config, local in configs:
        off = {**local, **disabled}
        for rule in rules:
            if rule.id in off:
                continue
            target = getattr(config, "confirm_file", "")
            for f in rule.check(config):
                confirm = (f.confirm or rule.confirm).replace("{file}", _shell_word(target)) if target else ""
                findings.append(replace(f, rule=rule.id, citation=f.citation or rule.citation, confirm=confirm))
    unique = {(f.sort_key(), f.severity): f for f in findings}  # a rule seeing one object twice
    return LintReport(sorted(unique.values(), key=Finding.sort_key), rules, disabled, list(files))


def _shell_word(text: str) -> str:
    import shlex

    return shlex.quote(text)


def exit_status(report: LintReport, fail_on: Severity) -> int:
    """1 when a finding is at or above ``fail_on``, else 0."""
    return 1 if any(f.severity.rank >= fail_on.rank for f in report.findings) else 0


# --------------------------------------------------------------------------- text
def render_text(report: LintReport, printable: Callable[[str], str] = str) -> str:
    """Findings grouped by file, sorted by line: ``file:line:col: severity RULE: message``
    then the fix, the citation and the confirming command, indented. ``printable``
    escapes what the user wrote (names, topic strings) for the terminal."""
    p = printable
    lines: list[str] = []
    current = None
    for f in report.findings:
        if f.location.file != current:
            if current is not None:
                lines.append("")
            current = f.location.file
            lines.append(p(current))
        loc = f.location
        lines.append(f"  {loc.line}:{loc.column}: {f.severity.value} {f.rule}: {p(f.message)}")
        for rel in f.related:
            lines.append(f"      see {p(rel.file)}:{rel.line}:{rel.column}: {p(rel.note)}")
        lines.append(f"      fix: {p(f.fix)}")
        lines.append(f"      why: {p(f.citation)}")
        if f.confirm:
            lines.append(f"      confirm: {p(f.confirm)}")
    counts = report.counts()
    summary = ", ".join(f"{n} {sev}{'s' if n != 1 and sev != 'info' else ''}" for sev, n in
                        reversed(counts.items()))
    if lines:
        lines.append("")
    lines.append(f"{len(report.findings)} finding{'s' if len(report.findings) != 1 else ''} ({summary}) in "
                 f"{len(report.files)} file{'s' if len(report.files) != 1 else ''}")
    for rule, reason in sorted(report.disabled.items()):
        lines.append(f"disabled {rule}: {p(reason)}")
    return "\n".join(lines)


# --------------------------------------------------------------------------- JSON
def _location_dict(loc: Location) -> dict:
    d = {"file": loc.file, "line": loc.line, "column": loc.column}
    if loc.note:
        d["note"] = loc.note
    return d


def to_dict(report: LintReport) -> dict:
    """The JSON document: stable keys, findings in text order."""
    return {
        "files": list(report.files),
        "findings": [{
            "rule": f.rule, "severity": f.severity.value, "message": f.message,
            **_location_dict(f.location), "fix": f.fix, "citation": f.citation, "confirm": f.confirm,
            "related": [_location_dict(r) for r in f.related],
        } for f in report.findings],
        "counts": report.counts(),
        "disabled": dict(sorted(report.disabled.items())),
    }


def render_json(report: LintReport) -> str:
    return json.dumps(to_dict(report), ensure_ascii=False, indent=2)


# --------------------------------------------------------------------------- SARIF
def _sarif_location(loc: Location, message: str = "") -> dict:
    physical: dict = {"artifactLocation": {"uri": _uri(loc.file)}}
    if loc.line > 0:
        region = {"startLine": loc.line}
        if loc.column > 0:
            region["startColumn"] = loc.column
        physical["region"] = region
    out: dict = {"physicalLocation": physical}
    if message:
        out["message"] = {"text": message}
    return out


def _uri(path: str) -> str:
    """A path as a SARIF artifact URI: a relative reference for a relative path (code
    scanning resolves it against the checkout), a ``file://`` URI for an absolute one.

    >>> _uri("ops/qm 1.mqsc"), _uri("/srv/mq/qma.mqsc")
    ('ops/qm%201.mqsc', 'file:///srv/mq/qma.mqsc')

    A file name that is not UTF-8 (lone surrogates, PEP 383) is quoted by its bytes:

    >>> _uri("caf\\udce9.mqsc"), _uri("/srv/caf\\udce9.mqsc")
    ('caf%E9.mqsc', 'file:///srv/caf%E9.mqsc')
    """
    import os
    import pathlib
    from urllib.parse import quote

    if path.startswith("/"):
        return pathlib.PurePosixPath(path).as_uri()
    return quote(os.fsencode(path.replace("\\", "/")))


def to_sarif(report: LintReport, version: str = "") -> dict:
    """A SARIF 2.1.0 log with one run: every rule (with its default level, citation and
    help), one result per finding located at the offending MQSC/TOML line."""
    rules = list(report.rules)
    index = {r.id: i for i, r in enumerate(rules)}
    driver = {
        "name": "mqcheck lint",
        "rules": [{
            "id": r.id,
            "name": r.id.title().replace("-", ""),
            "shortDescription": {"text": r.title},
            "fullDescription": {"text": f"{r.title} ({r.citation})"},
            "help": {"text": f"{r.title}. Source: {r.citation}."},
            "defaultConfiguration": {"level": r.severity.sarif_level, "enabled": r.id not in report.disabled},
            "properties": {"citation": r.citation},
        } for r in rules],
    }
    if version:
        driver["version"] = version
    results = []
    for f in report.findings:
        text = f"{f.message} Fix: {f.fix} ({f.citation})"
        if f.confirm:
            text += f" Confirm with: {f.confirm}"
        result = {
            "ruleId": f.rule,
            "level": f.severity.sarif_level,
            "message": {"text": text},
            "locations": [_sarif_location(f.location)],
            "partialFingerprints": {"mqcheckFinding/v1": _fingerprint(f)},
        }
        if f.rule in index:
            result["ruleIndex"] = index[f.rule]
        if f.related:
            result["relatedLocations"] = [dict(_sarif_location(r, r.note), id=i + 1) for i, r in enumerate(f.related)]
        results.append(result)
    run = {"tool": {"driver": driver}, "results": results, "columnKind": "unicodeCodePoints"}
    if report.disabled:
        run["properties"] = {"disabledRules": dict(sorted(report.disabled.items()))}
    return {"$schema": SARIF_SCHEMA, "version": SARIF_VERSION, "runs": [run]}


def _fingerprint(f: Finding) -> str:
    """Stable across runs and line moves: rule + file + message (blake2b, never hash())."""
    import hashlib

    # surrogateescape: a file name that is not UTF-8 hashes as its bytes (UTF-8 text as before)
    text = f"{f.rule}\0{f.location.file}\0{f.message}".encode("utf-8", "surrogateescape")
    return hashlib.blake2b(text, digest_size=16).hexdigest()


def render_sarif(report: LintReport, version: str = "") -> str:
    return json.dumps(to_sarif(report, version), ensure_ascii=False, indent=2)
