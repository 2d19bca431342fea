"""Writing record files safely: replaced whole at once (atomically), and locked against a second writer.

(Moved out of records.py, which re-exports these for its users.)
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import stat
import tempfile
from pathlib import Path

from .errors import RecordError
from .inputs import clip


class WriteFailed(RecordError):
    """A file that could not be written (the old one is left as it was); `why` says why, without the name."""

    def __init__(self, path: Path, what: str, why: str):
        super().__init__(f"{clip(str(path))}: cannot write {what}: {why}")
        self.why = f"cannot write {what}: {why}"


def write_atomically(path: Path, text: str | bytes, sync: bool = False, *, what: str = "the record") -> None:
    """Replace the file at once: a reader, or a crash at any instant, sees the old text or the new.

    The name itself is replaced: a symlink there is replaced by the file, never written through
    (a caller that means the link's target names it: `real_path`). A write that fails (a full
    disk, a quota, a file-size limit) leaves the old file as it was and is a RecordError of one
    line naming the file and why (WriteFailed).
    """
    data = text.encode("utf-8") if isinstance(text, str) else text
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    except OSError as exc:
        raise WriteFailed(path, what, exc.strerror or str(exc)) from None
    try:
        os.fchmod(fd, _file_mode(path))
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            if sync:
                os.fsync(f.fileno())
        os.replace(tmp, path)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        raise WriteFailed(path, what, exc.strerror or str(exc)) from None
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def real_path(path: Path) -> Path:
    """The file a name leads to (the target of a symlink, followed to the end): what a record
    named through a link is written as, so that the link stays and leads to the new record."""
    try:
        return Path(os.path.realpath(path))
    except (OSError, ValueError):
        return path


def _file_mode(path: Path) -> int:
    """The mode a new file would get (mkstemp makes private files; a record is an ordinary one)."""
    try:
        info = path.lstat()  # a symlink replaced is not its target: its target's mode is not the new file's
        if stat.S_ISREG(info.st_mode):
            return info.st_mode & 0o777
    except OSError:
        pass
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def _lock_path(path: Path) -> Path:
    """The lock beside the record's real file: two names of one record (a symlink) share it."""
    path = real_path(path)
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
