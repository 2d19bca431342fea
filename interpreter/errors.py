"""Located errors: every stage detects them, one place renders them.

A `Span` is where a piece of rulebook text stands; a `RulebookError` carries one or more
`Diagnostic`s (span + message) and renders them as ``file:line:col: error: message``, then the
source line and a caret under the column.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import attrs

from .terminal import printable


@attrs.frozen
class Span:
    """Where a node stands: file name (package-relative), 1-based line and column."""

    file: str
    line: int
    column: int
    end_line: int = 0
    end_column: int = 0

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"


NO_SPAN = Span("<builtin>", 0, 0)


@attrs.frozen
class Diagnostic:
    """One located message: an error, or a note attached to one."""

    span: Span
    message: str
    severity: str = "error"
    hint: str | None = None


class RulecraftError(Exception):
    """Every error rulecraft reports to a user; the CLI prints it and exits 1."""


class RulebookError(RulecraftError):
    """One or more located problems in rulebook text (syntax, check or runtime)."""

    def __init__(self, diagnostics: Sequence[Diagnostic], sources: dict[str, str] | None = None):
        self.diagnostics = list(diagnostics)
        self.sources = dict(sources or {})
        super().__init__(self.render())

    def render(self) -> str:
        """Render every diagnostic with its source line and a caret."""
        return "\n".join(render_diagnostic(d, self.sources.get(d.span.file)) for d in self.diagnostics)

    @property
    def messages(self) -> list[str]:
        """The first lines only (`file:line:col: error: message`), for tables of expected errors."""
        return [f"{d.span}: {d.severity}: {d.message}" for d in self.diagnostics]


class GameError(RulecraftError):
    """A misuse of a game (an illegal answer, a question asked of a finished game)."""


class RecordError(RulecraftError):
    """A record that cannot be read or does not hold against the rules."""


MAX_MESSAGE = 1000  # characters of a message shown
MAX_SHOWN = 160  # characters of a source line shown under a message


def source_lines(text: str, keepends: bool = False) -> list[str]:
    """The lines of rulebook text as the parser counts them: split at "\n" only (not at the form
    feeds, U+2028 and the other breaks `str.splitlines` also takes, which the grammar reads as
    characters of a string, a comment or white space), a "\r" before the "\n" dropped unless
    `keepends`. As with `str.splitlines`, a final newline starts no line."""
    lines = text.split("\n")
    if keepends:
        return [line + "\n" for line in lines[:-1]] + ([lines[-1]] if lines[-1] else [])
    if not lines[-1]:
        lines.pop()
    return [line[:-1] if line.endswith("\r") else line for line in lines]


def _source_line(source: str, number: int) -> str | None:
    """Line `number` (from 1) of a text, found without splitting the whole text."""
    start = 0
    for _ in range(number - 1):
        start = source.find("\n", start) + 1
        if start == 0:
            return None
    if start >= len(source):  # after the last newline, as source_lines has it: no line
        return None
    end = source.find("\n", start)
    line = source[start:] if end < 0 else source[start:end]
    return line.rstrip("\r")


def render_diagnostic(diag: Diagnostic, source: str | None) -> str:
    """Render one diagnostic as `file:line:col: severity: message`, the line and a caret."""
    message = diag.message
    if len(message) > MAX_MESSAGE:  # a message that quotes a huge token or answer: its head says enough
        message = f"{message[:MAX_MESSAGE]}… ({len(message)} characters)"
    # The message may quote the text (a `fail`, a label) and the line is the text: their control
    # characters are escaped (terminal.py), the caret moved past the escapes before the column.
    head = printable(f"{diag.span}: {diag.severity}: {message}")
    lines = [head]
    if source is not None and diag.span.line > 0:
        line = _source_line(source, diag.span.line)
        if line is not None:
            line = line.replace("\t", " ")
            column = max(diag.span.column, 1)
            width = 1
            if diag.span.end_line == diag.span.line and diag.span.end_column > diag.span.column:
                width = len(printable(line[column - 1 : diag.span.end_column - 1]))
            column, line = len(printable(line[: column - 1])) + 1, printable(line)
            if len(line) > MAX_SHOWN:  # a window of a long line around the column, so the caret still points
                start = max(0, min(column - 1 - MAX_SHOWN // 3, len(line) - MAX_SHOWN))
                line = (
                    ("…" if start else "")
                    + line[start : start + MAX_SHOWN]
                    + ("…" if start + MAX_SHOWN < len(line) else "")
                )
                column -= start - (1 if start else 0)
            lines.append(f"    {line}")
            lines.append("    " + " " * (column - 1) + "^" * max(1, min(width, 60, len(line) - column + 1)))
    if diag.hint:
        lines.append(printable(f"    hint: {diag.hint}"))
    return "\n".join(lines)


def closest(name: str, candidates: Iterable[str]) -> str | None:
    """Return the candidate a misspelled `name` most likely meant, or None."""
    import difflib

    matches = difflib.get_close_matches(name, sorted(set(candidates)), n=1, cutoff=0.6)
    if not matches:
        lowered = {c.lower(): c for c in candidates}
        return lowered.get(name.lower())
    return matches[0]


def did_you_mean(name: str, candidates: Iterable[str]) -> str:
    """Return ` (did you mean 'x'?)` for a misspelled name, or an empty string."""
    guess = closest(name, candidates)
    return f" (did you mean '{guess}'?)" if guess and guess != name else ""
