"""Text for a terminal: the control characters of text that a rulebook or a record wrote, escaped.

The one helper every place that writes such text to a terminal goes through (render.py for the
traces and views, the human's questions in agents.py, explain, the reports, the error messages of
errors.py and cli.py). It imports nothing of rulecraft, so the lowest layer may use it.
"""

from __future__ import annotations

import re

# The control characters (C0, DEL, C1): in text a rulebook or a record wrote (a label, a prompt, a
# `say`), a terminal would obey them (clear the screen, set its title, move to the start of the
# line and write over it, start a new line that looks like the program's own).
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")
_CONTROL_BUT_NEWLINE = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(match: re.Match[str]) -> str:
    c = match.group()
    return _NAMED.get(c) or f"\\x{ord(c):02x}"


def printable(text: str, newlines: bool = False) -> str:
    """The text with each control character written as a visible escape (`\\x1b`, `\\r`, `\\n`), so
    that text from a rulebook or a record cannot drive the terminal it is shown on. With `newlines`,
    a newline is kept (text of several lines that the program itself wrote: a report, an error)."""
    return (_CONTROL_BUT_NEWLINE if newlines else _CONTROL).sub(_escape, text)
