"""Errors for people: every problem in user input names where it is and what was expected.

STYLE.md habit 7: errors name the file, line and column, say what was expected and suggest
the fix; user input never reaches an ``assert``. Every error a user can cause derives from
:class:`InputError`, so the CLI needs one ``except`` to turn any of them into a one-line
message and exit status 2 (DESIGN §2.3) — never a traceback.
"""

from __future__ import annotations

import difflib
import unicodedata
from collections.abc import Iterable


class InputError(ValueError):
    """A problem in something the user wrote (MQSC, a scenario file, a command argument).

    ``file`` is a path or a label such as ``<command line>``; ``line``/``column`` are
    1-based (0 = unknown); ``suggestion`` is a hint such as ``did you mean CLWLWGHT?``.

    >>> str(InputError("expected ')'", file="qma.mqsc", line=3, column=17))
    "qma.mqsc:3:17: expected ')'"
    >>> str(InputError("unknown key 'qmgr'", file="s.toml", line=4, suggestion="did you mean 'qmgrs'?"))
    "s.toml:4: unknown key 'qmgr' (did you mean 'qmgrs'?)"
    """

    def __init__(
        self,
        message: str,
        *,
        file: str = "",
        line: int = 0,
        column: int = 0,
        suggestion: str = "",
    ) -> None:
        self.message = message
        self.file = file
        self.line = line
        self.column = column
        self.suggestion = suggestion
        super().__init__(self.one_line())

    def one_line(self) -> str:
        """``file:line:column: message (suggestion)`` with the unknown parts left out."""
        where = ":".join(
            part for part in (self.file, str(self.line) if self.line else "",
                              str(self.column) if self.line and self.column else "") if part
        )
        message = shorten_words(self.message)
        text = f"{where}: {message}" if where else message
        if self.suggestion:
            text += f" ({shorten_words(self.suggestion)})"
        return printable(text)

    def located(self, *, file: str = "", line_offset: int = 0) -> "InputError":
        """The same error re-anchored inside an enclosing file.

        Used when MQSC text embedded in a scenario file (a TOML multi-line string starting
        on line ``line_offset + 1``) reports an error: the user wants the scenario file's
        line, not the line inside the string.
        """
        err = type(self).__new__(type(self))
        err.__dict__.update(self.__dict__)
        err.file = file or self.file
        err.line = self.line + line_offset if self.line else self.line
        ValueError.__init__(err, err.one_line())
        return err


LONG_WORD = 100  # an error quotes a token of up to this many characters whole


def shorten_words(text: str, limit: int = LONG_WORD) -> str:
    """``text`` with every run of more than ``limit`` non-blank characters cut to its first
    60 and its length: an error quotes what the user wrote, and a 100,000-character token
    (a file of one long word, a binary file) must not become a 100,000-character line.

    >>> shorten_words("'" + "X" * 500 + "' is not an MQSC command")
    "'XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX... (502 characters) is not an MQSC command"
    >>> shorten_words("short words stay")
    'short words stay'
    """
    import re

    return re.sub(r"\S{%d,}" % (limit + 1), lambda m: f"{m.group()[:60]}... ({len(m.group()):,} characters)", text)


_NAMED_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _needs_escape(ch: str) -> bool:
    # C0/C1 controls and DEL (terminal escape sequences, carriage returns, newlines), line
    # and paragraph separators, bidirectional overrides that reorder what is shown, and lone
    # surrogates: the bytes of a file name that are not UTF-8 (PEP 383), which a UTF-8 stdout
    # with the strict error handler (an en_US.UTF-8 terminal) cannot write at all
    return unicodedata.category(ch) in ("Cc", "Zl", "Zp", "Cs") or "\u202a" <= ch <= "\u202e" or "\u2066" <= ch <= "\u2069"


def printable(text: str) -> str:
    r"""``text`` safe to show on a terminal: control characters become Python-style escapes,
    so a name or topic string the user wrote can neither drive the terminal nor pass for
    two lines of output. Everything else (any other Unicode, backslashes) is unchanged.

    >>> printable("Sports/Rugby"), printable("a\x1b[31mb"), printable("x\ny\r"), printable("caf\u00e9")
    ('Sports/Rugby', 'a\\x1b[31mb', 'x\\ny\\r', 'café')
    >>> printable("caf\udce9.toml")   # os.fsdecode of a Latin-1 file name
    'caf\\udce9.toml'
    """
    if text.isprintable():  # the common case: nothing to do
        return text
    out = []
    for ch in text:
        if not _needs_escape(ch):
            out.append(ch)
        elif ch in _NAMED_ESCAPES:
            out.append(_NAMED_ESCAPES[ch])
        else:
            code = ord(ch)
            out.append(f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}")
    return "".join(out)


def near_miss(word: str, choices: Iterable[str]) -> str:
    """A ``did you mean X?`` hint for a misspelt keyword, or ``""``.

    >>> near_miss("CLWLWEIGHT", ["CLWLWGHT", "CLWLRANK", "CLWLPRTY"])
    'did you mean CLWLWGHT?'
    >>> near_miss("ZZZ", ["CLWLWGHT"])
    ''
    """
    close = difflib.get_close_matches(word.upper(), sorted({c.upper() for c in choices}), n=1, cutoff=0.7)
    return f"did you mean {close[0]}?" if close else ""
