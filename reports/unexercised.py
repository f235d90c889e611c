"""Property families a run never exercised, so that `check`'s table and the HTML report
can show their vacuous verdicts in one line instead of one row each (session 33).

A plain workload scenario has no topic and no subscription, so the catalogue's
publish/subscribe properties (PS-) hold only vacuously there, and their witnesses are never
reached: some 30 rows of ~100 that say nothing about the scenario. A *family* — the
catalogue's prefix before the first "-" (:data:`FAMILIES`) — counts as not exercised when
none of its ``sometimes`` properties was witnessed, none of its verdicts is anything but
holds / never reached (up to a bound or not), and at least one of its properties held
vacuously. Its vacuous verdicts and its unreached witnesses are grouped; a property of the
family that holds without a witness to need (PS-TERMINATION) keeps its row. A family with a
single witness reached is shown row by row: there the scenario does exercise it, and a
vacuous verdict beside a reached one is worth reading.

Scenario claims (EXPECT, EXPECT-END) are never grouped: the user wrote them.
Plain data only (``verdicts``: property id -> ``{"kind", "status", "vacuous"}``, as
``check --json`` prints them), so that ``checker`` and ``reports`` share it.
"""

from __future__ import annotations

from typing import Any, Mapping

FAMILIES = ("RP", "WL", "BD", "PS")   # the property catalogue's prefixes (properties/)
QUIET = ("holds", "holds up to bound", "never reached", "not reached up to bound")
UNREACHED = ("never reached", "not reached up to bound")


def family(pid: str) -> str:
    """``"PS-SCOPE"`` -> ``"PS"``.

    >>> family("BD-ON-OPEN-FIXED"), family("EXPECT")
    ('BD', 'EXPECT')
    """
    return pid.split("-", 1)[0]


def unexercised(verdicts: Mapping[str, Mapping[str, Any]]) -> dict[str, list[str]]:
    """Family -> the ids of its grouped verdicts (in ``verdicts``' order), for each family
    the run never exercised (module docstring); families in the order they first appear.

    >>> unexercised({"PS-A": {"kind": "always", "status": "holds", "vacuous": True},
    ...              "PS-A-SEEN": {"kind": "sometimes", "status": "never reached"},
    ...              "PS-T": {"kind": "eventually", "status": "holds"},
    ...              "WL-B": {"kind": "always", "status": "holds", "vacuous": True},
    ...              "WL-C": {"kind": "sometimes", "status": "witnessed"}})
    {'PS': ['PS-A', 'PS-A-SEEN']}
    """
    by_family: dict[str, list[tuple[str, Mapping[str, Any]]]] = {}
    for pid, v in verdicts.items():
        if isinstance(v, Mapping) and family(str(pid)) in FAMILIES:
            by_family.setdefault(family(str(pid)), []).append((str(pid), v))
    out = {}
    for fam, items in by_family.items():
        if not all(v.get("status") in QUIET for _, v in items):
            continue   # a witness reached, a violation, an unknown: the family is exercised
        if not any(v.get("vacuous") is True for _, v in items):
            continue
        grouped = [pid for pid, v in items
                   if v.get("vacuous") is True or (v.get("kind") == "sometimes" and v.get("status") in UNREACHED)]
        out[fam] = grouped
    return out


def summary(verdicts: Mapping[str, Mapping[str, Any]], groups: Mapping[str, list[str]]) -> list[tuple[str, str, list[str]]]:
    """The grouped verdicts as ``(label, what, ids)`` lines: per family, the vacuous ones
    (label ``VACUOUS``, or ``possibly VACUOUS`` after an incomplete run) and the unreached
    witnesses (label: their status), never one without the other's label.

    >>> v = {"PS-A": {"kind": "always", "status": "holds", "vacuous": True},
    ...      "PS-A-SEEN": {"kind": "sometimes", "status": "never reached"}}
    >>> summary(v, {"PS": ["PS-A", "PS-A-SEEN"]})
    [('VACUOUS', 'PS: 1 held only vacuously', ['PS-A']), ('never reached', 'PS: 1 sometimes property', ['PS-A-SEEN'])]
    """
    lines = []
    for fam, ids in groups.items():
        vac = [p for p in ids if verdicts[p].get("vacuous") is True]
        possibly = any(verdicts[p].get("status") == "holds up to bound" for p in vac)
        unreached = [p for p in ids if p not in vac]
        if vac:
            lines.append(("possibly VACUOUS" if possibly else "VACUOUS",
                          f"{fam}: {len(vac)} held only vacuously" + (" up to bound" if possibly else ""), vac))
        for status in UNREACHED:
            these = [p for p in unreached if verdicts[p].get("status") == status]
            if these:
                lines.append((status, f"{fam}: {len(these)} sometimes propert{'ies' if len(these) != 1 else 'y'}",
                              these))
    return lines
