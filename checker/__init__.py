"""Generic model-checking machinery: knows the Model protocol, never spec internals.

Only the composition roots, ``checker.cli`` and ``checker.pytest_plugin``, import ``spec``,
``properties`` or ``reports`` (DESIGN.md §1).
"""
