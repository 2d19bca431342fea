"""Writing record files safely: replaced whole at once (atomically), and locked against a second writer.

(Moved out of records.py, which re-exports these for its users.)
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import tempfile
from pathlib import Path

from .errors import RecordError
from .inputs import clip


def write_atomically(path: Path, text: str, sync: bool = False) -> None:
    """Replace the file at once: a reader, or a crash at any instant, sees the old text or the new."""
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    except OSError as exc:
        raise RecordError(f"{path}: cannot write the record: {exc.strerror or exc}") from None
    try:
        os.fchmod(fd, _file_mode(path))
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            if sync:
                f.flush()
                os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _file_mode(path: Path) -> int:
    """The mode a new file would get (mkstemp makes private files; a record is an ordinary one)."""
    try:
        return path.stat().st_mode & 0o777
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def _lock_path(path: Path) -> Path:
    return path.with_name(f".{path.name}.lock")


def lock_record(path: Path) -> int:
    """Take the lock of a record (a file beside it, locked with flock): a second game that would
    write the same record is refused at once instead of overwriting the first one's answers.

    The lock file, not the record, is locked: the record is replaced by renames, so a lock on the
    record's file would be left behind on the old file. A lock dies with its process, so a killed
    game leaves no lock held.
    """
    lock = _lock_path(path)
    while True:
        try:
            fd = os.open(lock, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o666)
        except OSError as exc:
            raise RecordError(f"{clip(str(path))}: cannot write the record: {exc.strerror or exc}") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            raise RecordError(
                f"{clip(str(path))}: another game is writing this record (its lock {lock.name} is held): "
                "one game at a time plays into a record"
            ) from None
        try:  # the game that held the lock may have removed its file meanwhile: hold the one on disk
            if os.stat(lock).st_ino == os.fstat(fd).st_ino:
                return fd
        except FileNotFoundError:
            pass
        os.close(fd)


def unlock_record(path: Path, fd: int) -> None:
    """Give the lock of a record back, and remove its file (while still holding it)."""
    with contextlib.suppress(OSError):
        _lock_path(path).unlink()
    os.close(fd)
