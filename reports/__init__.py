"""HTML reports rendered from plain result data (never spec objects; DESIGN.md §1).

``render(sections)`` turns a list of results — each the ``--json`` output of one mqcheck
command, keyed by its ``"command"`` (docs/report-data.md) — into one self-contained HTML
page: inline CSS and SVG, no script, no external resource. ``write(path, sections)`` saves
it. Bad data raises :class:`ReportDataError`.
"""

from reports.render import ReportDataError, infer_command, render, target_problem, validate, verdict_text, write

__all__ = ["ReportDataError", "infer_command", "render", "target_problem", "validate", "verdict_text", "write"]
