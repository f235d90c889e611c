"""Generic model-checking machinery: knows the Model protocol, never spec internals.

Only ``checker.cli`` (the composition root) imports ``spec``, ``properties`` or ``reports``
(DESIGN.md §1).
"""
