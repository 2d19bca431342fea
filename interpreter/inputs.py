"""Reading files that come from anywhere (rulebooks, records, scenarios) safely.

An input file is data from a stranger: it may be a pipe that never ends, a device, a folder, a
symlink to a file that is not a rulebook, far too large, or not UTF-8. Everything here reads
in bounded time and memory and says what is wrong in words; what it echoes of the input is
bounded too (`clip`).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from .errors import Span

# What an error message shows of a piece of input (an answer, a label, a name): a 19 MB answer
# must not become 38 MB on stderr.
CLIP = 80


def clip(text: str, n: int = CLIP) -> str:
    """The text, or its first `n` characters and how long it is: how an error message echoes input."""
    if len(text) <= n:
        return text
    return f"{text[:n]}… ({len(text)} characters)"


class InputProblem(Exception):
    """A file that cannot be read as input (the message does not name it); `span` (line ≥ 1) when
    a place in it is to blame."""

    def __init__(self, message: str, span: Span | None = None, *, too_large: bool = False):
        super().__init__(message)
        self.message, self.span, self.too_large = message, span, too_large


def read_regular(path: str | Path, limit: int, what: str) -> bytes:
    """The bytes of a regular file of at most `limit` bytes; anything else is an InputProblem.

    The file is opened without blocking (a pipe named as input must not hang the open) and
    checked to be a regular file before a byte is read; the read is bounded even so.
    """
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY)
    except OSError as exc:
        raise InputProblem(f"cannot read {_the(what)}: {exc.strerror or exc}") from None
    except ValueError:  # a NUL in the name
        raise InputProblem(f"cannot read {_the(what)}: its name holds a NUL") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            mode = info.st_mode
            kind = (
                "a folder"
                if stat.S_ISDIR(mode)
                else "a pipe"
                if stat.S_ISFIFO(mode)
                else "a device"
                if stat.S_ISCHR(mode) or stat.S_ISBLK(mode)
                else "not a file"
            )
            raise InputProblem(f"{what} must be a regular file, and this is {kind}")
        if info.st_size > limit:
            raise InputProblem(f"{info.st_size} bytes is larger than {what} may be ({limit})", too_large=True)
        with os.fdopen(fd, "rb", closefd=False) as f:
            data = f.read(limit + 1)
    except OSError as exc:
        raise InputProblem(f"cannot read {_the(what)}: {exc.strerror or exc}") from None
    finally:
        os.close(fd)
    if len(data) > limit:
        raise InputProblem(f"larger than {what} may be ({limit} bytes)", too_large=True)
    return data


def _the(what: str) -> str:
    return "the " + what[2:] if what.startswith("a ") else what


def decode(data: bytes, file: str, what: str) -> str:
    """UTF-8 text; a byte that is not UTF-8 is an InputProblem located at its line and column."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise InputProblem(
            f"{what} is UTF-8 text, and byte 0x{data[exc.start]:02x} is not UTF-8 here",
            Span(file, line, column, line, column + 1),
        ) from None


def position(text: str, offset: int) -> tuple[int, int]:
    """Line and column (from 1) of a character offset in a text."""
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


def within(path: Path, roots: list[Path]) -> bool:
    """Whether the real path (symlinks resolved) of `path` lies inside one of the real `roots`."""
    try:
        real = path.resolve()
    except (OSError, RuntimeError):  # a symlink loop, a name too long
        return False
    return any(real == root or root in real.parents for root in (r.resolve() for r in roots))
