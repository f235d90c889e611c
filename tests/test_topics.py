"""Topic strings and wildcard schemes: the worked examples of 002, then Hypothesis properties.

Tables follow mosquitto's util_topic_test.c banners (valid matching, valid non-matching,
literal-not-wild, invalid) but with MQ's rules (002 §Topic strings, §Wildcard schemes,
§Topic-based wildcard scheme, §Character-based wildcard scheme, §Constructing topic names,
§Wildcard rules; DESIGN §3.1).
"""

from __future__ import annotations

import re

import pytest
from hypothesis import given, strategies as st

from spec.topics import (
    TopicStringError,
    char_to_topic_wildcard,
    compile_subscription,
    fixed_prefix,
    is_wildcard,
    join_topic,
    topic_matches,
    validate_topic_string,
)

# ---------------------------------------------------------------------------------------
# Valid, matching — topic scheme (002 §Topic-based wildcard scheme, §Wildcard schemes)
# ---------------------------------------------------------------------------------------
TOPIC_MATCHING = [
    # "IBM/+/Results selects all the topics IBM/Software/Results IBM/Services/Results ..."
    ("IBM/+/Results", "IBM/Software/Results"),
    ("IBM/+/Results", "IBM/Services/Results"),
    ("IBM/+/Results", "IBM/Hardware/Results"),
    # "if you subscribe to 'USA/Alaska/#', you receive messages on topics 'USA/Alaska' and 'USA/Alaska/Juneau'"
    ("USA/Alaska/#", "USA/Alaska"),
    ("USA/Alaska/#", "USA/Alaska/Juneau"),
    # "'USA/#' can also match the singular 'USA', where '#' represents zero levels"
    ("USA/#", "USA"),
    # "'USA/+' matches 'USA/Alabama'"
    ("USA/+", "USA/Alabama"),
    # Examples of §Wildcard schemes
    ("#/Results", "IBM/Software/Results"),
    ("#/Results", "Results"),
    ("IBM/Software/Results", "IBM/Software/Results"),
    # Only delimiters, note 6: '#' matches every topic; note 7: '+' every one-level topic
    ("#", "Sports"),
    ("#", "Sports/Rugby/Leeds"),
    ("#", "/"),
    ("+", "Sports"),
    ("+", "Sports#"),
    # Note: "'$/#/..' is an empty node at the root, followed by a multilevel wildcard"
    ("/#/x", "/x"),
    ("/#/x", "/a/b/x"),
    # Body delimiter notes: '//' is an empty topic level; '/+/' matches exactly one level
    ("a//b", "a//b"),
    ("a/+/b", "a//b"),  # an empty level is a level
    ("+/b", "/b"),
    # Body delimiter note 2: "Multiple multi-level match strings have the same effect as one"
    ("a/#/#/b", "a/b"),
    ("a/#/#/b", "a/x/y/b"),
    # DESIGN §3.1 (002 §Wildcards and cluster topics): Sports/#/Leeds matches Sports/Leeds
    ("Sports/#/Leeds", "Sports/Leeds"),
    ("Sports/#/Leeds", "Sports/Rugby/Leeds"),
    ("Sports/#/Arsenal", "Sports/Football/Arsenal"),
    ("Sports/#", "Sports"),
    ("Sports/+/+", "Sports/Rugby/Leeds"),
    # "/ with no wildcards matches a single empty topic"
    ("/", "/"),
    # "level0/level1/+/level4/#" — wildcards, valid in a subscription
    ("level0/level1/+/level4/#", "level0/level1/level2/level4"),
    ("level0/level1/+/level4/#", "level0/level1/level2/level4/level5/level6"),
]

# ---------------------------------------------------------------------------------------
# Valid, not matching — topic scheme
# ---------------------------------------------------------------------------------------
TOPIC_NOT_MATCHING = [
    # "'USA/+' matches 'USA/Alabama', but not 'USA/Alabama/Auburn'"
    ("USA/+", "USA/Alabama/Auburn"),
    # "Because the single-level wildcard matches only a single level, 'USA/+' does not match 'USA'"
    ("USA/+", "USA"),
    ("IBM/+/Results", "IBM/Patents/Software/Results"),
    ("+", "a/b"),
    ("/#/x", "x"),  # the root empty level is a real level
    ("#/Results", "IBM/Results/2024"),
    ("Sports/#/Leeds", "Sports/Rugby/Leeds/Extra"),
    ("Sports/#", "SportsX"),
    ("Sports/#", "Sport"),
    ("a//b", "a/b"),
    ("IBM/Software/Results", "ibm/software/results"),  # topic strings are case-sensitive
    ("/Football", "Football"),  # 002 §Constructing topic names: "/Football" is not "Football"
]

# ---------------------------------------------------------------------------------------
# Literal, not wild — '#' and '+' mixed with other characters in a level
# (002 §When topic-based wildcards are not wild)
# ---------------------------------------------------------------------------------------
TOPIC_LITERAL_NOT_WILD = [
    # (subscription, topic, matches?)
    ("USA#", "USA#", True),
    ("USA#", "USA", False),
    ("USA#", "USA/Alabama", False),
    ("USA+", "USA+", True),
    ("USA+", "USAX", False),
    ("level0/level1/#+/level4/level#", "level0/level1/#+/level4/level#", True),
    ("level0/level1/#+/level4/level#", "level0/level1/x/level4/level", False),
    ("IBM/Business Area#/Results", "IBM/Business Area#/Results", True),
    ("IBM/Business Area#/Results", "IBM/Business Area/Results", False),
    ("##", "##", True),
    ("##", "a", False),
    ("++/a", "++/a", True),
    ("++/a", "b/a", False),
]

# ---------------------------------------------------------------------------------------
# Character scheme (002 §Character-based wildcard scheme)
# ---------------------------------------------------------------------------------------
CHAR_CASES = [
    # (subscription, topic, matches?)
    # "'IBM/*/Results' would also select 'IBM/Patents/Software/Results'"
    ("IBM/*/Results", "IBM/Patents/Software/Results", True),
    ("IBM/*/Results", "IBM/Software/Results", True),
    # "The character based wildcard subscription 'IBM/*ware/Results' has no topic-based equivalent"
    ("IBM/*ware/Results", "IBM/Software/Results", True),
    ("IBM/*ware/Results", "IBM/Hardware/Results", True),
    ("IBM/*ware/Results", "IBM/Services/Results", False),
    # "'*' ... is equivalent to using the topic-based wildcard string '#'"
    ("*", "Sports/Rugby/Leeds", True),
    ("*", "/", True),
    # DESIGN §3.1: x/*/y does not match x/y (pure character matching)
    ("x/*/y", "x/y", False),
    ("x/*/y", "x/a/b/y", True),
    ("x/*/y", "x//y", True),
    # '?' exactly one character, '/' included
    ("a?c", "abc", True),
    ("a?c", "a/c", True),
    ("a?c", "ac", False),
    ("a?c", "abbc", False),
    # escapes: '%' followed by '*', '?' or '%' is a literal
    ("100%%", "100%", True),
    ("a%*b", "a*b", True),
    ("a%*b", "axb", False),
    ("what%?", "what?", True),
    ("what%?", "whatX", False),
    # topic-scheme wildcards are literal in the character scheme
    ("USA/#", "USA/#", True),
    ("USA/#", "USA/Alabama", False),
    ("USA/+", "USA/Alabama", False),
]

CHAR_TO_TOPIC = [
    # 002 §Wildcard rules: "/aaa/bbb/c*d is converted to /aaa/bbb/#"
    ("/aaa/bbb/c*d", "/aaa/bbb/#"),
    ("ab*", "#"),  # DESIGN §3.1
    ("*", "#"),
    ("IBM/*ware/Results", "IBM/#"),
    ("IBM/*/Results", "IBM/#"),
    ("Sports/Rugby/Le?ds", "Sports/Rugby/#"),
    ("/x?", "/#"),
    ("a%*b/c*", "a*b/#"),  # escapes before the wildcard are unescaped
    ("Sports/Rugby/Leeds", "Sports/Rugby/Leeds"),  # no wildcard: unchanged
    ("100%%/done", "100%/done"),
]

# ---------------------------------------------------------------------------------------
# Invalid
# ---------------------------------------------------------------------------------------
INVALID_TOPICS = [""]  # 002 §Topic-based wildcard scheme note 1: "A null or zero length topic string is invalid"

INVALID_CHAR_SUBSCRIPTIONS = [
    "",
    "abc%",  # '%' at the end
    "a%bc",  # '%' must be followed by '*', '?' or '%'
    "IBM/Diversity/%African American",  # a valid topic string (002 example), invalid as a char subscription
    "%/",
]

# 002 §Constructing topic names, "Topic string concatenation examples"
JOIN_TABLE = [
    ("Football/Scores", "", "Football/Scores"),  # The TOPICSTR is used alone
    ("", "Football/Scores", "Football/Scores"),  # The ObjectString is used alone
    ("Football", "Scores", "Football/Scores"),  # A '/' character is added
    ("Football", "/Scores", "Football//Scores"),  # An 'empty node' is produced
    ("/Football", "Scores", "/Football/Scores"),  # The topic starts with an 'empty node'
    (" leading blank", "Scores", "Scores"),  # a field starting with a blank is not present
    ("Football", "\0Scores", "Football"),  # nor one starting with NUL
]


@pytest.mark.parametrize("sub,topic", TOPIC_MATCHING)
def test_topic_scheme_matching(sub, topic):
    assert topic_matches(sub, topic)
    assert topic_matches(sub, topic, "topic")


@pytest.mark.parametrize("sub,topic", TOPIC_NOT_MATCHING)
def test_topic_scheme_not_matching(sub, topic):
    assert not topic_matches(sub, topic)


@pytest.mark.parametrize("sub,topic,expected", TOPIC_LITERAL_NOT_WILD)
def test_topic_scheme_literal_not_wild(sub, topic, expected):
    assert topic_matches(sub, topic) is expected
    assert not is_wildcard(sub)


@pytest.mark.parametrize("sub,topic,expected", CHAR_CASES)
def test_char_scheme(sub, topic, expected):
    assert topic_matches(sub, topic, "char") is expected


@pytest.mark.parametrize("sub,proxy", CHAR_TO_TOPIC)
def test_char_to_topic_wildcard(sub, proxy):
    assert char_to_topic_wildcard(sub) == proxy


@pytest.mark.parametrize("topic", INVALID_TOPICS)
def test_invalid_topic_strings(topic):
    with pytest.raises(TopicStringError):
        validate_topic_string(topic)
    with pytest.raises(TopicStringError):
        topic_matches("#", topic)
    with pytest.raises(TopicStringError):
        topic_matches(topic, "a")


@pytest.mark.parametrize("sub", INVALID_CHAR_SUBSCRIPTIONS)
def test_invalid_char_subscriptions(sub):
    with pytest.raises(TopicStringError) as err:
        topic_matches(sub, "anything", "char")
    assert isinstance(err.value, ValueError)
    with pytest.raises(TopicStringError):
        char_to_topic_wildcard(sub)


def test_invalid_escape_message_says_the_fix():
    with pytest.raises(TopicStringError) as err:
        topic_matches("a%bc", "x", "char")
    assert "'%' must be followed by '*', '?' or '%', not 'b'" in str(err.value)
    assert "%%" in str(err.value)


def test_percent_is_literal_in_the_topic_scheme():
    # 002 example topic string "IBM/Diversity/%African American" is valid and matchable
    assert topic_matches("IBM/Diversity/%African American", "IBM/Diversity/%African American")
    assert topic_matches("IBM/Diversity/+", "IBM/Diversity/%African American")


def test_unknown_scheme():
    with pytest.raises(TopicStringError, match="unknown wildcard scheme"):
        topic_matches("a", "a", "regex")


@pytest.mark.parametrize("topicstr,objstr,full", JOIN_TABLE)
def test_join_topic(topicstr, objstr, full):
    assert join_topic(topicstr, objstr) == full


@pytest.mark.parametrize("topicstr,objstr", [("", ""), (" ", ""), ("", " x"), ("\0", "\0")])
def test_join_topic_neither_present(topicstr, objstr):
    with pytest.raises(TopicStringError) as err:
        join_topic(topicstr, objstr)
    assert err.value.reason == "MQRC_UNKNOWN_OBJECT_NAME"


@pytest.mark.parametrize(
    "sub,scheme,prefix",
    [
        ("Sports/#/Leeds", "topic", ("Sports",)),  # 002 §Wildcards and cluster topics
        ("Sports/Football/#", "topic", ("Sports", "Football")),
        ("#", "topic", ()),
        ("+/x", "topic", ()),
        ("Sports/Rugby/Leeds", "topic", ("Sports", "Rugby", "Leeds")),
        ("USA#/x", "topic", ("USA#", "x")),
        ("Sports/Foot*", "char", ("Sports",)),
        ("Sports*", "char", ()),
        ("a%*/b", "char", ("a*", "b")),
    ],
)
def test_fixed_prefix(sub, scheme, prefix):
    assert fixed_prefix(sub, scheme) == prefix


def test_compiled_matchers_are_cached_and_equal():
    assert compile_subscription("Sports/#") is compile_subscription("Sports/#")
    assert compile_subscription("Sports/#", "char") != compile_subscription("Sports/#", "topic")


# =======================================================================================
# Hypothesis: agreement with naive reference implementations written here
# =======================================================================================


def ref_topic_match(sub_levels: list[str], topic_levels: list[str]) -> bool:
    """Level-by-level recursion, straight from 002's prose."""
    if not sub_levels:
        return not topic_levels
    head, rest = sub_levels[0], sub_levels[1:]
    if head == "#":
        return any(ref_topic_match(rest, topic_levels[i:]) for i in range(len(topic_levels) + 1))
    if not topic_levels:
        return False
    if head == "+" or head == topic_levels[0]:
        return ref_topic_match(rest, topic_levels[1:])
    return False


def ref_char_regex(sub: str) -> str:
    """Translate a char-scheme subscription to a regular expression, character by character."""
    out, i = [], 0
    while i < len(sub):
        c = sub[i]
        if c == "%":
            out.append(re.escape(sub[i + 1]))
            i += 2
            continue
        out.append({"*": ".*", "?": "."}.get(c, re.escape(c)))
        i += 1
    return "".join(out)


def ref_char_match(sub: str, topic: str) -> bool:
    return re.fullmatch(ref_char_regex(sub), topic, re.DOTALL) is not None


LEVEL = st.sampled_from(["", "a", "b", "ab", "#", "+", "a#", "+b", "é", " "])
levels = st.lists(LEVEL, min_size=1, max_size=6)
topic_strings = levels.map("/".join).filter(bool)
char_token = st.sampled_from(["a", "b", "/", "*", "?", "%*", "%?", "%%", "#", "ab/"])
char_subs = st.lists(char_token, min_size=1, max_size=8).map("".join)
char_topics = st.text(alphabet="ab/*?%#", min_size=1, max_size=10)


@given(topic_strings, topic_strings)
def test_topic_scheme_agrees_with_reference(sub, topic):
    assert topic_matches(sub, topic) == ref_topic_match(sub.split("/"), topic.split("/"))


@given(char_subs, char_topics)
def test_char_scheme_agrees_with_reference(sub, topic):
    assert topic_matches(sub, topic, "char") == ref_char_match(sub, topic)


# Patterns dense in wildcards against long topics over a two-letter alphabet: the cases
# where a backtracking matcher and a leftmost-placement matcher could disagree.
dense_topic_subs = st.lists(st.sampled_from(["#", "+", "a", "b"]), min_size=1, max_size=8).map("/".join)
dense_topics = st.lists(st.sampled_from(["a", "b", ""]), min_size=1, max_size=12).map("/".join).filter(bool)
dense_char_subs = st.lists(st.sampled_from(["*", "?", "a", "b", "ab", "%*"]), min_size=1, max_size=10).map("".join)
dense_char_topics = st.text(alphabet="ab*", min_size=1, max_size=16)


@given(dense_topic_subs, dense_topics)
def test_topic_scheme_agrees_with_reference_on_dense_wildcards(sub, topic):
    assert topic_matches(sub, topic) == ref_topic_match(sub.split("/"), topic.split("/"))


@given(dense_char_subs, dense_char_topics)
def test_char_scheme_agrees_with_reference_on_dense_wildcards(sub, topic):
    assert topic_matches(sub, topic, "char") == ref_char_match(sub, topic)


# Adversarial inputs that made a backtracking regular expression take seconds (exponential
# in the number of '#' or '*'); the answers follow from the rules: without a final 'b' level
# or character nothing can match the pattern's final 'b', with one everything fits.
ADVERSARIAL = [
    ("#/a/" * 7 + "b", "/".join(["a"] * 40), "topic", False),
    ("#/a/" * 7 + "b", "/".join(["a"] * 40 + ["b"]), "topic", True),
    ("#/a/" * 7 + "b", "/".join(["a"] * 6 + ["b"]), "topic", False),  # one 'a' level short
    ("#/a/" * 30 + "b", "/".join(["a"] * 400), "topic", False),
    ("+/#/a/" * 10 + "#/b/+", "/".join(["a"] * 300 + ["b", "c"]), "topic", True),
    ("*a" * 6 + "*b", "a" * 60, "char", False),
    ("*a" * 6 + "*b", "a" * 60 + "b", "char", True),
    ("*a" * 6 + "*b", "a" * 5 + "b", "char", False),  # one 'a' short
    ("*a?" * 40 + "*b", "ax" * 500, "char", False),
    ("*?a*" * 20 + "?", "ba" * 20 + "c", "char", True),
]


@pytest.mark.parametrize("sub,topic,scheme,expected", ADVERSARIAL)
def test_adversarial_patterns_get_the_right_answer(sub, topic, scheme, expected):
    assert topic_matches(sub, topic, scheme) is expected
    if len(topic) <= 20:  # small enough for the (exponential) references
        ref = ref_topic_match(sub.split("/"), topic.split("/")) if scheme == "topic" else ref_char_match(sub, topic)
        assert ref is expected


@given(char_subs, char_topics)
def test_char_to_topic_wildcard_over_approximates(sub, topic):
    if topic_matches(sub, topic, "char"):
        assert topic_matches(char_to_topic_wildcard(sub), topic, "topic")


@given(char_subs, char_topics | topic_strings)
def test_char_to_topic_wildcard_over_approximates_on_level_topics(sub, topic):
    if topic_matches(sub, topic, "char"):
        assert topic_matches(char_to_topic_wildcard(sub), topic)


@given(levels, st.integers(min_value=0, max_value=5), st.integers(min_value=2, max_value=4), topic_strings)
def test_consecutive_multi_level_wildcards_act_as_one(sub_levels, at, repeat, topic):
    at = min(at, len(sub_levels))
    one = sub_levels[:at] + ["#"] + sub_levels[at:]
    many = sub_levels[:at] + ["#"] * repeat + sub_levels[at:]
    assert topic_matches("/".join(many), topic) == topic_matches("/".join(one), topic)


@given(topic_strings)
def test_multi_level_wildcard_matches_every_valid_topic(topic):
    assert topic_matches("#", topic)


@given(topic_strings, topic_strings)
def test_subscription_without_wildcards_matches_exactly_itself(sub, topic):
    if not is_wildcard(sub):
        assert topic_matches(sub, sub)
        assert topic_matches(sub, topic) == (sub == topic)


@given(st.text(min_size=1, max_size=12))
def test_any_nonempty_unicode_is_a_valid_topic(topic):
    assert validate_topic_string(topic) == topic
    assert topic_matches("#", topic)
    assert topic_matches(topic.replace("%", "%%").replace("*", "%*").replace("?", "%?"), topic, "char")


@given(topic_strings, topic_strings)
def test_join_topic_inserts_exactly_one_separator(a, b):
    if a[0] != " " and b[0] != " ":
        assert join_topic(a, b) == a + "/" + b
