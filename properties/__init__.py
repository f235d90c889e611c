"""The property catalogue (DESIGN.md §4): one module per area, each property cites its seed."""


def scenario_steps(model) -> tuple:
    """The steps of the model's scenario (``()`` for a model without one): for properties
    that judge what a step asked for against what the network did."""
    return getattr(getattr(model, "scenario", None), "steps", ())


def once_per_part(fn):
    """``fn``, a pure function of one immutable part of a state (a ghost decision, a
    queue manager's decision history), evaluated once per part object: a successor state
    shares its parent's unchanged parts, so a property that judges every recorded decision
    at every state judges each new decision once instead of the whole history again
    (issue #17). The cache is keyed by identity and keeps the part alive, so an id is not
    reused while cached; it is cleared when full. It changes how fast, never what, a
    predicate answers."""
    memo: dict[int, tuple] = {}

    def cached(part):
        hit = memo.get(id(part))
        if hit is not None and hit[0] is part:
            return hit[1]
        value = fn(part)
        if len(memo) >= 4_096:
            memo.clear()
        memo[id(part)] = (part, value)
        return value

    cached.__doc__, cached.__name__, cached.__wrapped__ = fn.__doc__, fn.__name__, fn
    return cached


def in_flight(kind: type):
    """A function of a network state: the (channel, message) pairs of the messages of
    ``kind`` in flight, in channel and queue order. Each channel's messages tuple is
    filtered once (``once_per_part``: successors share them), and the last state's answer
    is kept, since several predicates ask about each new state in turn (the entry keeps
    that state alive, so ``is`` cannot match a new state at a reused address). Issue #17
    round 9: on fr-mesh-broken nearly every message is a repository message, and each
    predicate that looked for application messages or publications walked all of them."""
    @once_per_part
    def of_kind(messages: tuple) -> tuple:
        return tuple(m for m in messages if isinstance(m, kind))

    last: list = [None, ()]

    def pairs(state) -> tuple:
        if last[0] is not state:
            last[1] = tuple((ch, m) for ch in state.channels if ch.messages for m in of_kind(ch.messages))
            last[0] = state
        return last[1]

    pairs.of_kind = of_kind   # the filter of one messages tuple
    return pairs


def stable_under(props: tuple, cls: frozenset, arguments: dict[str, str]) -> tuple:
    """``props`` with ``stable_under=cls`` (``checker.model.Property``) on each property
    named in ``arguments``, whose value is the one-line argument, from the predicate's code,
    that no action of the class turns a violating state into a satisfying one (``always``)
    or a witnessing state into one that is not (``sometimes``): docs/por.md, condition 1.
    tests/test_por_stable.py checks every declaration on explored states. A name that is
    not an ``always``/``sometimes`` property of ``props`` is an error."""
    from dataclasses import replace

    kinds = {p.id: p.kind.value for p in props}
    for pid in arguments:
        if kinds.get(pid) not in ("always", "sometimes"):
            raise ValueError(f"stable_under: {pid} is not an always/sometimes property here")
    return tuple(replace(p, stable_under=p.stable_under | cls) if p.id in arguments else p for p in props)
