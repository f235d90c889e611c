"""Matches per second: compiled subscriptions versus uncompiled matching.

Reproduce:  python benchmarks/bench_topics.py  [--rounds N]

Workload: every subscription of a fixed, seeded set (literal, trailing '#', '+' in the
middle, '#' in the middle, character-scheme) against every topic of a fixed set — the
shape of the checker's hot path, where each publication of each explored state is
matched against each subscription. Three ways:
  naive     level-by-level recursion (the reference matcher of tests/test_topics.py)
  uncached  spec.topics compile + match on every call (what a matcher without a cache does)
  compiled  spec.topics.compile_subscription once, then Matcher.matches
"""

from __future__ import annotations

import argparse
import platform
import random
import re
import time

from spec.topics import _compile_char_scheme, _compile_topic_scheme, compile_subscription


def naive_topic(sub: list[str], topic: list[str]) -> bool:
    if not sub:
        return not topic
    head, rest = sub[0], sub[1:]
    if head == "#":
        return any(naive_topic(rest, topic[i:]) for i in range(len(topic) + 1))
    if not topic:
        return False
    return (head == "+" or head == topic[0]) and naive_topic(rest, topic[1:])


def naive_char(sub: str, topic: str) -> bool:
    pattern = "".join(".*" if c == "*" else "." if c == "?" else re.escape(c) for c in sub)
    return re.fullmatch(pattern, topic, re.DOTALL) is not None


def workload(seed: int = 7) -> tuple[list[tuple[str, str]], list[str]]:
    rng = random.Random(seed)
    words = ["Sports", "Rugby", "Football", "Leeds", "Arsenal", "Results", "USA", "Alabama"]
    topics = ["/".join(rng.choice(words) for _ in range(rng.randint(1, 5))) for _ in range(200)]
    subs = [
        ("Sports/Rugby/Leeds", "topic"),
        ("Sports/#", "topic"),
        ("Sports/+/Leeds", "topic"),
        ("Sports/#/Leeds", "topic"),
        ("#/Results", "topic"),
        ("+/+/+", "topic"),
        ("Sports/*/Leeds", "char"),
        ("USA/Ala*", "char"),
    ]
    return subs, topics


def rate(fn, subs, topics, rounds: int) -> float:
    start = time.perf_counter()
    n = 0
    for _ in range(rounds):
        for sub, scheme in subs:
            for topic in topics:
                fn(sub, scheme, topic)
                n += 1
    return n / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=20)
    args = parser.parse_args()
    subs, topics = workload()

    def naive(sub, scheme, topic):
        return naive_topic(sub.split("/"), topic.split("/")) if scheme == "topic" else naive_char(sub, topic)

    def uncached(sub, scheme, topic):
        compiled = _compile_topic_scheme(sub) if scheme == "topic" else _compile_char_scheme(sub)
        return compiled.matches(topic)

    def compiled(sub, scheme, topic):
        return compile_subscription(sub, scheme).matches(topic)

    matchers = {m: compile_subscription(s, sc) for s, sc in subs for m in [(s, sc)]}

    def precompiled(sub, scheme, topic):
        return matchers[(sub, scheme)].matches(topic)

    # all four agree on every pair before anything is timed
    for sub, scheme in subs:
        for topic in topics:
            assert naive(sub, scheme, topic) == uncached(sub, scheme, topic) == compiled(sub, scheme, topic)

    print(f"machine: {platform.machine()}, {platform.python_implementation()} {platform.python_version()}")
    print(f"pairs per round: {len(subs) * len(topics)}, rounds: {args.rounds}")
    print("| matcher | matches/s |")
    print("|---|---|")
    for name, fn in [("naive (level recursion / regex per call)", naive), ("uncached compile + match", uncached),
                     ("compile_subscription (lru cache) + match", compiled), ("pre-compiled Matcher.matches", precompiled)]:
        print(f"| {name} | {rate(fn, subs, topics, args.rounds):,.0f} |")


if __name__ == "__main__":
    main()
