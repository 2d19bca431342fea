"""The server's data folder (`--data`): the index of games in SQLite, the records, the host's secret.

    DATA/index.sqlite3      one row a game (store.Index)
    DATA/records/ID.json    each game's record, written after every answer (recording.RecordWriter)
    DATA/host-secret        the secret of the lobby's link

The folder is made readable by its owner only: the index and the host's secret hold the
capabilities of every seat. SQLite commits each change durably before it returns (its journal),
and a record is valid at every instant, so a server killed at any moment loses no answer that a
seat was told of.
"""

from __future__ import annotations

import hmac
import json
import os
import sqlite3
from pathlib import Path

from ..errors import RulecraftError
from ..inputs import clip
from .table import Meta, new_secret

_SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
  id TEXT PRIMARY KEY,
  rulebook TEXT NOT NULL,
  players INTEGER NOT NULL,
  seats TEXT NOT NULL,      -- JSON: the agent of each seat, "human" for a person
  secrets TEXT NOT NULL,    -- JSON: each seat's secret
  spectator TEXT NOT NULL,
  record TEXT NOT NULL,
  status TEXT NOT NULL,     -- playing, over, stopped
  created REAL NOT NULL,
  note TEXT NOT NULL DEFAULT ''
)
"""


def open_folder(data: Path) -> Path:
    """Make the data folder (owner only) and its records folder; one line of error if it cannot be."""
    try:
        data.mkdir(mode=0o700, parents=True, exist_ok=True)
        (data / "records").mkdir(mode=0o700, exist_ok=True)
        os.chmod(data, 0o700)
    except OSError as exc:
        raise RulecraftError(f"{clip(str(data))}: cannot use it as the data folder: {exc.strerror or exc}") from None
    return data


def same(given: str, secret: str) -> bool:
    """Whether a secret given is the one kept, compared in constant time."""
    return hmac.compare_digest(given.encode(), secret.encode())


def host_secret(data: Path) -> str:
    """The secret of the lobby's link: made once, kept in DATA/host-secret (owner only)."""
    path = data / "host-secret"
    try:
        text = path.read_text(encoding="ascii").strip()
        if len(text) >= 22:
            return text
    except FileNotFoundError:
        pass
    except (OSError, UnicodeDecodeError) as exc:
        raise RulecraftError(f"{clip(str(path))}: cannot read the host's secret: {exc}") from None
    secret = new_secret()
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
        with os.fdopen(fd, "w", encoding="ascii") as out:
            out.write(secret + "\n")
            out.flush()
            os.fsync(out.fileno())
    except OSError as exc:
        raise RulecraftError(f"{clip(str(path))}: cannot write the host's secret: {exc.strerror or exc}") from None
    return secret


class Index:
    """The games, one row each (their state between answers is in their records)."""

    def __init__(self, data: Path):
        path = data / "index.sqlite3"
        try:
            self.db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=FULL")
            self.db.execute(_SCHEMA)
            os.chmod(path, 0o600)
        except (sqlite3.Error, OSError) as exc:
            raise RulecraftError(f"{clip(str(path))}: cannot open the index of games: {exc}") from None

    def add(self, meta: Meta) -> None:
        self.db.execute(
            "INSERT INTO games VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                meta.id,
                meta.rulebook,
                meta.players,
                json.dumps(meta.seats),
                json.dumps(meta.secrets),
                meta.spectator,
                meta.record,
                meta.status,
                meta.created,
                meta.note,
            ),
        )

    def set_status(self, meta: Meta) -> None:
        self.db.execute("UPDATE games SET status = ?, note = ? WHERE id = ?", (meta.status, meta.note, meta.id))

    def games(self) -> list[Meta]:
        rows = self.db.execute(
            "SELECT id, rulebook, players, seats, secrets, spectator, record, status, created, note "
            "FROM games ORDER BY created"
        ).fetchall()
        return [
            Meta(
                id=row[0],
                rulebook=row[1],
                players=row[2],
                seats=json.loads(row[3]),
                secrets=json.loads(row[4]),
                spectator=row[5],
                record=row[6],
                status=row[7],
                created=row[8],
                note=row[9],
            )
            for row in rows
        ]

    def close(self) -> None:
        self.db.close()
