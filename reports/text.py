"""Making user strings visible: nothing a user wrote can act on the reader.

Jinja2's autoescape (on for every template) stops markup such as ``<script>``; this module
stops the rest: control characters (C0, C1 — an ANSI escape starts with ESC or CSI),
line and paragraph separators, and format characters such as the bidi overrides
(U+202E RIGHT-TO-LEFT OVERRIDE) that make text read differently from what it is. Each
becomes a visible ``\\uXXXX`` escape, as ``mqcheck run --json`` prints them.
"""

from __future__ import annotations

from markupsafe import Markup, escape


def visible(value: object, *, keep_newlines: bool = False) -> str:
    """``value`` as text with every non-printable character shown as a ``\\u`` escape.

    >>> visible("a\\x1b[31mred\\u202e")
    'a\\\\u001b[31mred\\\\u202e'
    >>> visible("line 1\\nline 2", keep_newlines=True)
    'line 1\\nline 2'
    >>> visible("Sports/Rugby")
    'Sports/Rugby'
    """
    text = value if isinstance(value, str) else str(value)
    if text.isprintable():
        return text
    out = []
    for ch in text:
        if ch.isprintable() or (keep_newlines and ch == "\n"):
            out.append(ch)
        elif ord(ch) > 0xFFFF:
            out.append(f"\\U{ord(ch):08x}")
        else:
            out.append(f"\\u{ord(ch):04x}")
    return "".join(out)


def html_text(value: object, *, keep_newlines: bool = False) -> Markup:
    """``value`` made visible, then HTML-escaped (safe in element content and attributes)."""
    return escape(visible(value, keep_newlines=keep_newlines))


def shorten(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters with an ellipsis (for labels in diagrams; the full
    text is always in a ``<title>`` or the tables beside them).

    >>> shorten("abcdef", 4)
    'abc…'
    """
    return text if len(text) <= limit else text[: max(limit - 1, 0)] + "…"
