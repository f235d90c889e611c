"""Topic strings and both wildcard schemes of IBM MQ publish/subscribe.

Source: 002_b356d92d3ce416e5.txt §Topic strings, §Wildcard schemes, §Topic-based wildcard
scheme, §Character-based wildcard scheme, §Constructing topic names, §Wildcard rules;
DESIGN.md §3.1 fixes the public names and signatures (other parts and tools rely on them).

Validity is kept separate from matching (as mosquitto's ``util_topic.c`` does), but the
rules are MQ's, not MQTT's: any non-empty Unicode string is a valid topic string, empty
levels are real levels, and ``#``/``+`` are wildcards only when they make up a whole level.

Abstracted away: MQ's maximum topic-string length and code-page conversion (a character
here is a Unicode code point).

The hot path is :func:`compile_subscription`: every publication in every explored state is
matched against every subscription, so a subscription is compiled once into a
:class:`Matcher` (a literal comparison, a prefix test, or a run of wildcard-free segments
placed without backtracking) and cached. The cache is an ``lru_cache`` over immutable inputs: it changes how fast an
answer comes, never which answer, so the spec stays a pure function of its inputs.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Literal

from spec.errors import InputError
from spec.values import value

__all__ = [
    "TopicStringError",
    "Matcher",
    "validate_topic_string",
    "topic_matches",
    "char_to_topic_wildcard",
    "join_topic",
    "compile_subscription",
    "split_levels",
    "is_wildcard",
    "fixed_prefix",
]

Scheme = Literal["topic", "char"]
SCHEMES: tuple[str, ...] = ("topic", "char")

LEVEL_SEPARATOR = "/"
MULTI_LEVEL = "#"  # 002 §Topic-based wildcard scheme: multilevel wildcard
SINGLE_LEVEL = "+"  # 002 §Topic-based wildcard scheme: single level wildcard
CHAR_ANY = "*"  # 002 §Character-based wildcard scheme: zero or more characters
CHAR_ONE = "?"  # exactly one character
CHAR_ESCAPE = "%"  # escape: must be followed by *, ? or %


class TopicStringError(InputError):
    """An invalid topic string or subscription (a ``ValueError``).

    ``reason`` is the MQ reason code the queue manager would return, e.g.
    ``MQRC_TOPIC_STRING_ERROR`` or ``MQRC_UNKNOWN_OBJECT_NAME``.
    """

    def __init__(self, message: str, *, reason: str = "MQRC_TOPIC_STRING_ERROR", **where) -> None:
        self.reason = reason
        super().__init__(message, **where)


def _check_scheme(scheme: str) -> None:
    if scheme not in SCHEMES:
        raise TopicStringError(
            f"unknown wildcard scheme {scheme!r}: expected 'topic' (MQSO_WILDCARD_TOPIC) "
            "or 'char' (MQSO_WILDCARD_CHAR)"
        )


def validate_topic_string(s: str) -> str:
    """Return ``s`` if it is a valid topic string; raise :class:`TopicStringError` if not.

    002 §Topic strings: any Unicode characters; "A null or zero length topic string is
    invalid". Leading, trailing or doubled ``/`` make empty levels, which are valid.

    >>> validate_topic_string("IBM/Business Area#/Results")
    'IBM/Business Area#/Results'
    >>> validate_topic_string("/leading//and trailing/")
    '/leading//and trailing/'
    >>> validate_topic_string("")
    Traceback (most recent call last):
    ...
    spec.topics.TopicStringError: a topic string must not be empty (002 §Topic strings)
    """
    if not isinstance(s, str):
        raise TopicStringError(f"a topic string must be text, not {type(s).__name__}")
    if s == "":
        raise TopicStringError("a topic string must not be empty (002 §Topic strings)")
    return s


def split_levels(topic: str) -> tuple[str, ...]:
    """The levels of a topic string; empty levels are real levels.

    >>> split_levels("/Football//Scores")
    ('', 'Football', '', 'Scores')
    """
    return tuple(topic.split(LEVEL_SEPARATOR))


def _char_tokens(sub: str) -> list[tuple[str, str]]:
    """Tokenise a character-scheme subscription into ('lit', c) / ('any', '*') / ('one', '?').

    002 §Character-based wildcard scheme, note 1: '%' must be followed by '*', '?' or '%'.
    """
    tokens: list[tuple[str, str]] = []
    i = 0
    while i < len(sub):
        c = sub[i]
        if c == CHAR_ESCAPE:
            if i + 1 >= len(sub) or sub[i + 1] not in (CHAR_ANY, CHAR_ONE, CHAR_ESCAPE):
                follow = "the end of the string" if i + 1 >= len(sub) else repr(sub[i + 1])
                raise TopicStringError(
                    f"invalid escape at character {i + 1} of {sub!r}: '%' must be followed by "
                    f"'*', '?' or '%', not {follow} (002 §Character-based wildcard scheme)",
                    suggestion="write %% for a literal %",
                )
            tokens.append(("lit", sub[i + 1]))
            i += 2
            continue
        if c == CHAR_ANY:
            tokens.append(("any", c))
        elif c == CHAR_ONE:
            tokens.append(("one", c))
        else:
            tokens.append(("lit", c))
        i += 1
    return tokens


def _collapse_multi(levels: tuple[str, ...]) -> tuple[str, ...]:
    """002 §Topic-based wildcard scheme note 2: several multi-level wildcards act as one."""
    out: list[str] = []
    for level in levels:
        if level == MULTI_LEVEL and out and out[-1] == MULTI_LEVEL:
            continue
        out.append(level)
    return tuple(out)


# A compiled wildcard pattern is a run of segments separated by "match anything" wildcards
# ('#' levels in the topic scheme, '*' in the character scheme). Inside a segment every
# element has a fixed width (a level, or a character), so the segments are placed left to
# right at their leftmost possible positions: the first at the start, the last at the end,
# each middle one at the first place it fits. Leftmost placement never loses a match (it
# leaves the most room for what follows), so there is no backtracking: a match costs at most
# (topic length x pattern length) comparisons, whatever the input — a regular expression
# such as (?:/[^/]*)*/a(?:/[^/]*)*/a... backtracks exponentially on adversarial topics.


@value
class _Segment:
    """A wildcard-free run: ``elements`` are levels (topic scheme) or characters (character
    scheme), ``None`` standing for ``+`` or ``?``. ``literal`` holds the elements when none
    is ``None`` (compared as a whole); ``pattern`` a fixed-width expression for character
    segments with ``?``, or the whole of a topic-scheme subscription with ``+`` but no
    ``#`` (no nested repetition in either, so neither can backtrack exponentially)."""

    elements: tuple[str | None, ...]
    literal: tuple[str, ...] | str | None
    pattern: re.Pattern[str] | None

    def fits_levels(self, levels: list[str], at: int) -> bool:
        """Does the segment match ``levels[at:at + len]``?"""
        if self.literal is not None:
            return tuple(levels[at:at + len(self.elements)]) == self.literal
        return all(e is None or e == levels[at + i] for i, e in enumerate(self.elements))

    def fits_chars(self, topic: str, at: int) -> bool:
        if self.pattern is None:
            return topic.startswith(self.literal, at)
        return self.pattern.match(topic, at) is not None

    def find_chars(self, topic: str, start: int, end: int) -> int:
        """The leftmost place in ``topic[start:end]`` where the segment fits, or -1."""
        if self.pattern is None:
            return topic.find(self.literal, start, end)
        found = self.pattern.search(topic, start, end)
        return -1 if found is None else found.start()


def _segments(elements: list[str | None], split: list[int], charwise: bool) -> tuple[_Segment, ...]:
    out = []
    for lo, hi in zip([0] + [i + 1 for i in split], split + [len(elements)]):
        part = tuple(elements[lo:hi])
        if None not in part:
            out.append(_Segment(part, "".join(part) if charwise else part, None))
        elif charwise:
            regex = "".join("." if e is None else re.escape(e) for e in part)
            out.append(_Segment(part, None, re.compile(regex, re.DOTALL)))
        else:
            out.append(_Segment(part, None, None))
    return tuple(out)


@value
class Matcher:
    """A subscription compiled once and matched against many topics.

    ``kind`` is how it matches: ``exact`` (no wildcard), ``prefix`` (fixed levels then one
    trailing ``#``), ``everything`` (``#`` alone, or ``*`` alone), or ``segments`` (the
    general case: runs separated by ``#`` or ``*``, placed leftmost, in time linear in
    topic length x pattern length — never backtracking).
    ``prefix`` holds the fixed levels before the first wildcard (all levels when there is
    none): the part of the topic tree a subscription resolves its topic object from and the
    part WILDCARD(BLOCK) is compared with (002 §Wildcards and cluster topics).
    ``proxy`` is the topic-scheme string a proxy subscription for it carries
    (002 §Wildcard rules).
    """

    subscription: str
    scheme: str
    kind: str
    prefix: tuple[str, ...]
    has_wildcard: bool
    proxy: str
    _literal: str
    _segments: tuple[_Segment, ...] = ()
    _anchored: bool = False  # no '#'/'*' at all: one segment covering the whole topic

    def matches(self, topic: str) -> bool:
        """Does a publication on ``topic`` (every character literal) match?"""
        if self.kind == "exact":
            return topic == self._literal
        if self.kind == "everything":
            return True
        if self.kind == "prefix":
            # fixed levels then '#': the topic is the prefix itself, or prefix + '/' + more
            return topic == self._literal or topic.startswith(self._literal + LEVEL_SEPARATOR)
        if self.scheme == "char":
            return self._match_chars(topic)
        if self._anchored:  # only '+': one level per element, a regex that cannot backtrack far
            return self._segments[0].pattern.fullmatch(LEVEL_SEPARATOR + topic) is not None
        return self._match_levels(topic.split(LEVEL_SEPARATOR))

    def _match_levels(self, levels: list[str]) -> bool:
        # 002 §Topic-based wildcard scheme: '#' zero or more levels, '+' exactly one
        segs = self._segments
        head, tail = segs[0], segs[-1]
        end = len(levels) - len(tail.elements)
        if end < len(head.elements) or not head.fits_levels(levels, 0) or not tail.fits_levels(levels, end):
            return False
        pos = len(head.elements)
        for seg in segs[1:-1]:
            width = len(seg.elements)
            while pos + width <= end and not seg.fits_levels(levels, pos):
                pos += 1
            if pos + width > end:
                return False
            pos += width
        return True

    def _match_chars(self, topic: str) -> bool:
        # 002 §Character-based wildcard scheme: '*' zero or more characters, '?' exactly one
        segs = self._segments
        if self._anchored:
            return len(topic) == len(segs[0].elements) and segs[0].fits_chars(topic, 0)
        head, tail = segs[0], segs[-1]
        end = len(topic) - len(tail.elements)
        if end < len(head.elements) or not head.fits_chars(topic, 0) or not tail.fits_chars(topic, end):
            return False
        pos = len(head.elements)
        for seg in segs[1:-1]:
            pos = seg.find_chars(topic, pos, end)
            if pos < 0:
                return False
            pos += len(seg.elements)
        return True


def _compile_topic_scheme(sub: str) -> Matcher:
    levels = _collapse_multi(split_levels(sub))
    wild = [i for i, level in enumerate(levels) if level in (MULTI_LEVEL, SINGLE_LEVEL)]
    prefix = levels[: wild[0]] if wild else levels
    if not wild:
        return Matcher(sub, "topic", "exact", prefix, False, sub, sub)
    if levels == (MULTI_LEVEL,):
        return Matcher(sub, "topic", "everything", (), True, sub, "")
    if wild == [len(levels) - 1] and levels[-1] == MULTI_LEVEL and len(levels) > 1:
        literal = LEVEL_SEPARATOR.join(levels[:-1])
        return Matcher(sub, "topic", "prefix", prefix, True, sub, literal)
    elements = [None if level == SINGLE_LEVEL else level for level in levels]
    multi = [i for i, level in enumerate(levels) if level == MULTI_LEVEL]
    segments = _segments(elements, multi, False)
    if not multi:  # '/L' per literal level, '/[^/]*' per '+': each level matches one way only
        regex = "".join("/[^/]*" if e is None else "/" + re.escape(e) for e in elements)
        segments = (_Segment(segments[0].elements, None, re.compile(regex, re.DOTALL)),)
    return Matcher(sub, "topic", "segments", prefix, True, sub, "", segments, not multi)


def _compile_char_scheme(sub: str) -> Matcher:
    tokens = _char_tokens(sub)
    first_wild = next((i for i, (kind, _) in enumerate(tokens) if kind != "lit"), None)
    literal_head = "".join(c for _, c in tokens[: first_wild if first_wild is not None else len(tokens)])
    if first_wild is None:
        return Matcher(sub, "char", "exact", split_levels(literal_head), False, literal_head, literal_head)
    # 002 §Wildcard rules: cut back to the nearest '/' before the first wildcard, end with '#'
    cut = literal_head.rfind(LEVEL_SEPARATOR)
    fixed = literal_head[:cut] if cut >= 0 else ""
    proxy = fixed + LEVEL_SEPARATOR + MULTI_LEVEL if cut >= 0 else MULTI_LEVEL
    prefix = split_levels(fixed) if cut >= 0 else ()
    if all(kind == "any" for kind, _ in tokens):
        return Matcher(sub, "char", "everything", prefix, True, proxy, "")
    # several '*' in a row act as one; '?' is one character of any kind ('/' included)
    merged = [t for i, t in enumerate(tokens) if not (t[0] == "any" and i and tokens[i - 1][0] == "any")]
    elements = [None if kind == "one" else c for kind, c in merged]
    anys = [i for i, (kind, _) in enumerate(merged) if kind == "any"]
    return Matcher(sub, "char", "segments", prefix, True, proxy, "", _segments(elements, anys, True), not anys)


@lru_cache(maxsize=65536)
def compile_subscription(sub: str, scheme: Scheme = "topic") -> Matcher:
    """Compile a subscription topic string once; cached (same inputs, same Matcher).

    Raises :class:`TopicStringError` for an empty string, an unknown scheme, or an invalid
    ``%`` escape in the character scheme.

    >>> m = compile_subscription("Sports/#/Leeds")
    >>> m.matches("Sports/Leeds"), m.matches("Sports/Rugby/Leeds"), m.prefix
    (True, True, ('Sports',))
    >>> compile_subscription("IBM/*ware/Results", "char").proxy
    'IBM/#'
    """
    _check_scheme(scheme)
    validate_topic_string(sub)
    return _compile_topic_scheme(sub) if scheme == "topic" else _compile_char_scheme(sub)


def topic_matches(subscription: str, topic: str, scheme: Scheme = "topic") -> bool:
    """Does a subscription (with wildcards of ``scheme``) match a published topic?

    Topic scheme (MQSO_WILDCARD_TOPIC): a level that is exactly ``#`` matches zero or more
    levels, exactly ``+`` one level (an empty one too); mixed with other characters they
    are literal. Character scheme (MQSO_WILDCARD_CHAR): ``*`` any characters (``/``
    included), ``?`` one character, ``%`` escapes. Every character of ``topic`` is literal.

    >>> topic_matches("USA/#", "USA")
    True
    >>> topic_matches("USA/+", "USA")
    False
    >>> topic_matches("IBM/*/Results", "IBM/Patents/Software/Results", "char")
    True
    >>> topic_matches("x/*/y", "x/y", "char")
    False
    """
    validate_topic_string(topic)
    return compile_subscription(subscription, scheme).matches(topic)


def is_wildcard(subscription: str, scheme: Scheme = "topic") -> bool:
    """Does the subscription contain a wildcard of its scheme?

    >>> is_wildcard("USA#/Alabama"), is_wildcard("USA/#"), is_wildcard("a%*b", "char")
    (False, True, False)
    """
    return compile_subscription(subscription, scheme).has_wildcard


def fixed_prefix(subscription: str, scheme: Scheme = "topic") -> tuple[str, ...]:
    """The levels of a subscription before its first wildcard (all of them if none).

    002 §Wildcards and cluster topics: "Truncate the topic string to the first wildcard";
    for the character scheme, back to the last ``/`` before it.

    >>> fixed_prefix("Sports/#/Leeds"), fixed_prefix("#"), fixed_prefix("Sports/Foot*", "char")
    (('Sports',), (), ('Sports',))
    """
    return compile_subscription(subscription, scheme).prefix


def char_to_topic_wildcard(s: str) -> str:
    """The topic-wildcard proxy subscription a character-scheme subscription converts to.

    002 §Wildcard rules: "If a character wildcard is found, it is replaced with a #
    character, back to the nearest /." The result over-approximates: whatever ``s``
    matches in the character scheme, the result matches in the topic scheme. Without a
    wildcard the result is ``s`` with its escapes removed.

    >>> char_to_topic_wildcard("/aaa/bbb/c*d")
    '/aaa/bbb/#'
    >>> char_to_topic_wildcard("ab*")
    '#'
    >>> char_to_topic_wildcard("100%%/done")
    '100%/done'
    """
    return compile_subscription(s, "char").proxy


def _present(field: str) -> bool:
    # 002 §Constructing topic names: "present if the first character of each field is not
    # a blank or null character, and the field length is greater than zero"
    return bool(field) and field[0] not in (" ", "\0")


def join_topic(topicstr: str, object_string: str) -> str:
    """The full topic name from a topic object's TOPICSTR and an application's ObjectString.

    002 §Constructing topic names: a field is present when non-empty and its first
    character is not a blank or NUL; one present: used unchanged; both: joined with one
    ``/`` inserted; neither: MQRC_UNKNOWN_OBJECT_NAME.

    >>> join_topic("Football", "/Scores")
    'Football//Scores'
    >>> join_topic("", "Football/Scores")
    'Football/Scores'
    >>> join_topic(" ", "")
    Traceback (most recent call last):
    ...
    spec.topics.TopicStringError: neither the topic object's TOPICSTR nor the topic string is present: MQRC_UNKNOWN_OBJECT_NAME (002 §Constructing topic names)
    """
    head, tail = _present(topicstr), _present(object_string)
    if head and tail:
        return topicstr + LEVEL_SEPARATOR + object_string
    if head:
        return topicstr
    if tail:
        return object_string
    raise TopicStringError(
        "neither the topic object's TOPICSTR nor the topic string is present: "
        "MQRC_UNKNOWN_OBJECT_NAME (002 §Constructing topic names)",
        reason="MQRC_UNKNOWN_OBJECT_NAME",
    )
