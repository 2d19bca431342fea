"""The record of a live game, kept on disk as it is played: valid, with every answer, at every instant.

`RecordWriter` is what `rulecraft play --record` and `--resume` write with (docs/RECORDS.md,
*Writing, measured*); reading, checking and replaying a record are records.py's.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import Any

import attrs

from . import records
from .errors import RecordError
from .inputs import clip
from .outputs import WriteFailed, lock_record, real_path, unlock_record, write_atomically
from .records import Answer, GameRecord, answer_line, record_of, record_text
from .runtime.game import Game

PAGE = 4096
_TAIL = b"\n ]\n}\n"  # what follows the last answer while the game is not over
RESERVE = 4 * PAGE  # the least room a live record keeps for its next answers


class RecordWriter:
    """Keeps a record file up to date during a live game: valid, with every answer, at every instant.

    The file of a live game keeps room for the answers to come: spaces (JSON's whitespace) before
    the closing `]}`. An answer is one `write` into that room, inside one 4 KiB page of the file
    (the kernel copies it whole or not at all, even when the process is killed), so it costs what
    it writes, and the file neither grows nor is ever half written. When the room is used up the
    file is replaced (renamed over, atomic) with as much room again: log n replacements for n
    answers. The first and the last write replace it too, the last with no room.

    No record is written larger than records.MAX_RECORD_BYTES, what `read_record` reads. An answer that
    would pass it, and a write that fails (a full disk, a quota, a file-size limit, a short write),
    stop the writer with a RecordError of one line, the file left the record of the answers before.
    See docs/RECORDS.md, *Writing, measured*.
    """

    def __init__(
        self,
        path: str | Path,
        game: Game,
        *,
        rulebook_file: str | None = None,
        options: dict[str, Any] | None = None,
        resumed: GameRecord | None = None,
        lock: int | None = None,
    ):
        self.path = Path(path)
        self.target = real_path(self.path)  # a record named through a symlink: the link stays
        # One game writes a record at a time (`lock`: the lock of this path, taken already).
        self.lock: int | None = lock if lock is not None else lock_record(self.path)
        self.template = record_of(game, rulebook_file=rulebook_file, options=options)
        self.lines: list[str] = []
        if resumed is not None:  # a resumed record keeps its notes (its answers are the game's first ones)
            self.template.note = resumed.note
            self.lines = [answer_line(a) for a in resumed.answers]
        self.written: tuple[int, bool] | None = None
        self.end = -1  # byte offset in the file where the next answer goes, when there is room
        self.room_end = -1  # where the room ends (the closing `]}` begins)
        self.fd: int | None = None
        self.rewrites = 0
        self.stopped = False  # a write failed or was refused: nothing more is written
        try:
            self.update(game)
        except BaseException:
            self._unlock()
            raise

    def update(self, game: Game, sync: bool = False) -> None:
        """Write the record if the game has moved since the last write."""
        if self.stopped or (self.written == (len(game.answers), game.over) and not sync):
            return
        new = [answer_line(Answer(by, label)) for by, label in game.answers[len(self.lines) :]]
        try:
            if sync or game.over or not new or self.fd is None or not self._append(new):
                self._rewrite(game, [*self.lines, *new], sync)
                self.lines.extend(new)
        except RecordError:
            self.stopped = True
            raise
        self.written = (len(game.answers), game.over)

    def _append(self, new: list[str]) -> bool:
        """Write the answers into the room, each inside one page; False (and nothing written) when they do not fit."""
        chunks = [f",\n  {line}".encode() for line in new]
        places, at = [], self.end
        for chunk in chunks:
            if len(chunk) > PAGE:
                return False
            if at // PAGE != (at + len(chunk) - 1) // PAGE:
                at = (at // PAGE + 1) * PAGE  # the spaces left in this page stay spaces
            places.append(at)
            at += len(chunk)
        if at > self.room_end:
            return False
        for line, chunk, place in zip(new, chunks, places, strict=True):
            self._write_in_room(chunk, place)
            self.lines.append(line)
            self.end = place + len(chunk)
        return True

    def _write_in_room(self, chunk: bytes, place: int) -> None:
        """One answer's write; if it fails or is short, the spaces are put back (the record before it)."""
        assert self.fd is not None
        try:
            done = os.pwrite(self.fd, chunk, place)
            problem = None if done == len(chunk) else f"only {done} of {len(chunk)} bytes were written"
        except OSError as exc:
            done, problem = len(chunk), exc.strerror or str(exc)
        if problem is None:
            return
        try:
            if os.pwrite(self.fd, b" " * done, place) != done:
                raise OSError("a short write")
        except OSError:  # the spaces cannot be put back: the record of the answers before, whole
            self._close_fd()
            with contextlib.suppress(RecordError):
                write_atomically(self.target, self._text(self.lines))
        raise RecordError(self._stopped(f"cannot write the record: {problem}"))

    def _text(self, lines: list[str], result: dict[str, Any] | None = None) -> bytes:
        record = attrs.evolve(self.template, answers=[], result=result)
        return record_text(record, lines).encode()

    def _rewrite(self, game: Game, lines: list[str], sync: bool) -> None:
        self._close_fd()
        data = self._text(lines, game.result() if game.over else None)
        if len(data) > records.MAX_RECORD_BYTES:
            raise RecordError(
                self._stopped(
                    f"the record would be {len(data)} bytes, more than a record may be ({records.MAX_RECORD_BYTES}, "
                    "what rulecraft reads)",
                    full=True,
                )
            )
        room = 0
        if lines and not (game.over or sync) and data.endswith(_TAIL):
            room = min(max(RESERVE, len(data)), records.MAX_RECORD_BYTES - len(data))
        try:
            self._replace(data, room, sync)
        except WriteFailed as exc:
            if room == 0:
                raise RecordError(self._stopped(exc.why)) from None
            try:  # no room for the answers to come: at least the record of these
                room = 0
                self._replace(data, room, sync)
            except WriteFailed as again:
                raise RecordError(self._stopped(again.why)) from None
        self.rewrites += 1
        self.end = self.room_end = -1
        if room:
            try:
                self.fd = os.open(self.target, os.O_WRONLY | os.O_NOFOLLOW)
            except OSError:  # no room then: the next answer replaces the file
                return
            self.end = len(data) - len(_TAIL)
            self.room_end = self.end + room

    def _replace(self, data: bytes, room: int, sync: bool) -> None:
        if room:
            data = data[: -len(_TAIL)] + b" " * room + _TAIL
        write_atomically(self.target, data, sync=sync)

    def _stopped(self, why: str, *, full: bool = False) -> str:
        """One line: what happened, and what the file holds now (and how to go on, unless it is full)."""
        kept = len(self.lines)
        return (
            f"{clip(str(self.path))}: {why}; the game stops here, and the record keeps the {kept} "
            f"answer{'' if kept == 1 else 's'} before"
            + ("" if full else f" (go on with: rulecraft play --resume {clip(str(self.path))})")
        )

    def _close_fd(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None

    def close(self, game: Game) -> None:
        """Write the last answers, durably, and let another game write the record."""
        try:
            if self.stopped and self.fd is not None:  # the record as it was before the failure, durably
                with contextlib.suppress(OSError):
                    os.fsync(self.fd)
            self.update(game, sync=True)
        finally:
            self.stopped = True  # closed: a second close writes nothing again
            self._close_fd()
            self._unlock()

    def _unlock(self) -> None:
        if self.lock is not None:
            unlock_record(self.path, self.lock)
            self.lock = None
