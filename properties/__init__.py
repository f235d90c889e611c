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
