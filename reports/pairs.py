"""Publisher -> subscriber pairs in a few words, for `mqcheck prove SCENARIO`'s reachability.

A scenario of n queue managers has n² pairs; a session 32 user trial with a 30-queue-manager
cluster got one 12,000-character line of them. Up to ``LIMIT`` pairs are listed as before
("QMA -> QMB, QMB -> QMA"); beyond that they are said per publisher ("P1 -> every other"),
or for the whole set ("every queue manager -> every other (870 pairs)").
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

LIMIT = 12


def pair_list(pairs: Sequence[tuple[str, str]], everyone: Iterable[str], limit: int = LIMIT) -> str:
    """``pairs`` (publisher, subscriber) in words; ``everyone``: every queue manager of the
    scenario, which "every other" is relative to.

    >>> pair_list([("A", "B"), ("B", "A")], "AB")
    'A -> B, B -> A'
    >>> names = [f"Q{i}" for i in range(5)]
    >>> pair_list([(p, s) for p in names for s in names if p != s], names)
    'every queue manager -> every other (20 pairs)'
    >>> pair_list([(p, p) for p in names], names, limit=4)
    'each queue manager -> itself (5 pairs)'
    >>> pair_list([("Q0", s) for s in names if s != "Q0"] + [("Q1", "Q2"), ("Q1", "Q3")] + [(p, p) for p in names[2:]],
    ...           names, limit=4)
    'Q0 -> every other; Q1 -> Q2, Q3; Q2 -> itself; Q3 -> itself; Q4 -> itself'
    """
    if len(pairs) <= limit:
        return ", ".join(f"{p} -> {s}" for p, s in pairs)
    everyone = set(everyone)
    subscribers: dict[str, list[str]] = {}
    for p, s in pairs:
        subscribers.setdefault(p, []).append(s)
    words = {}
    for p, subs in subscribers.items():
        got = set(subs)
        if got == everyone - {p}:
            words[p] = "every other"
        elif got == everyone:
            words[p] = "every queue manager"
        elif got == {p}:
            words[p] = "itself"
        else:
            words[p] = ", ".join(subs)
    if set(subscribers) == everyone and len(set(words.values())) == 1:
        only = next(iter(words.values()))
        if only in ("every other", "every queue manager"):
            return f"every queue manager -> {only} ({len(pairs)} pairs)"
        if only == "itself":
            return f"each queue manager -> itself ({len(pairs)} pairs)"
    return "; ".join(f"{p} -> {w}" for p, w in words.items())


def route_lines(members: Sequence[dict], show=str) -> list[str]:
    """The multi-hop routes of a group of reachability pairs (``via``: the queue managers
    between), one a line, as ``mqcheck prove`` and the HTML report say them (session 33);
    ``show`` renders a name (the CLI escapes control characters).

    >>> route_lines([{"publisher": "LON", "subscriber": "SF", "via": ["UK", "EU", "HQ", "US"]},
    ...              {"publisher": "LON", "subscriber": "UK", "via": []}])
    ['LON -> SF via UK, EU, HQ, US']
    """
    return [f"{show(p['publisher'])} -> {show(p['subscriber'])} via {', '.join(show(v) for v in p['via'])}"
            for p in members if p.get("via")]
