"""The property catalogue (DESIGN.md §4): one module per area, each property cites its seed."""


def scenario_steps(model) -> tuple:
    """The steps of the model's scenario (``()`` for a model without one): for properties
    that judge what a step asked for against what the network did."""
    return getattr(getattr(model, "scenario", None), "steps", ())
