"""Game records: what was answered, in order, so that a game can be replayed, checked and resumed.

A record is one JSON object (see docs/RECORDS.md). Answers are stored as labels, the same
text a person reads, so records survive a person's typing and stay readable.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

import attrs
import cattrs

from .errors import GameError, RecordError
from .rulebook import Rulebook, load
from .runtime import Game

FORMAT = 1
MAX_RECORD_BYTES = 20_000_000


@attrs.define
class Answer:
    """One answered decision: who answered (P1…, or table for chance) and the label answered."""

    by: str
    answer: str


@attrs.define
class RulebookRef:
    name: str
    hash: str | None = None


@attrs.define
class GameRecord:
    """A whole record: enough to re-run a game exactly."""

    format: int
    rulebook: RulebookRef
    players: int
    answers: list[Answer] = attrs.Factory(list)
    seed: int | None = None
    options: dict[str, Any] = attrs.Factory(dict)
    result: dict[str, Any] | None = None


_converter = cattrs.Converter(forbid_extra_keys=True)
_converter.register_unstructure_hook(
    GameRecord,
    lambda r: {k: v for k, v in {
        "format": r.format,
        "rulebook": {"name": r.rulebook.name, "hash": r.rulebook.hash},
        "players": r.players,
        "seed": r.seed,
        "options": r.options,
        "answers": [{"by": a.by, "answer": a.answer} for a in r.answers],
        "result": r.result,
    }.items() if v is not None},
)


def record_of(game: Game) -> GameRecord:
    """The record of a game so far."""
    return GameRecord(
        format=FORMAT,
        rulebook=RulebookRef(game.rulebook.name, game.rulebook.digest),
        players=game.state.players,
        seed=game.seed,
        answers=[Answer(by, label) for by, label in game.answers],
        result=game.result() if game.over else None,
    )


def write_record(game: Game, path: str | Path) -> None:
    """Write the record atomically: a crash leaves the previous complete record, never half of one."""
    path = Path(path)
    data = json.dumps(_converter.unstructure(record_of(game)), indent=1, ensure_ascii=False) + "\n"
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent or ".")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def read_record(path: str | Path) -> GameRecord:
    """Read and validate a record file; every problem is a RecordError naming what is wrong."""
    path = Path(path)
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise RecordError(f"{path}: cannot read the record: {exc.strerror or exc}") from None
    if size > MAX_RECORD_BYTES:
        raise RecordError(f"{path}: {size} bytes is larger than a record may be ({MAX_RECORD_BYTES})")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError:
        raise RecordError(f"{path}: not a record: the file is not UTF-8 text") from None
    except json.JSONDecodeError as exc:
        raise RecordError(f"{path}:{exc.lineno}:{exc.colno}: not a valid record (truncated or corrupt JSON): "
                          f"{exc.msg}") from None
    return parse_record(data, str(path))


def parse_record(data: Any, where: str = "record") -> GameRecord:
    """Structure a record from JSON data."""
    if not isinstance(data, dict):
        raise RecordError(f"{where}: a record is a JSON object, not {type(data).__name__}")
    if data.get("format") != FORMAT:
        raise RecordError(f"{where}: record format {data.get('format')!r} is not supported (this rulecraft reads "
                          f"format {FORMAT})")
    try:
        return _converter.structure(data, GameRecord)
    except cattrs.BaseValidationError as exc:
        details = "; ".join(cattrs.transform_error(exc, path=where))
        raise RecordError(f"{where}: not a valid record: {details}") from None


def replay(record: GameRecord, rulebook: Rulebook | None = None, until: int | None = None,
           trace: bool = True, check_hash: bool = True) -> Game:
    """Re-run a record; raise RecordError naming the first step where it and the rules part ways."""
    rb = rulebook or load(record.rulebook.name)
    if check_hash and record.rulebook.hash and record.rulebook.hash != rb.digest:
        raise RecordError(f"the record was made with a different text of rulebook '{record.rulebook.name}' "
                          f"(hash {record.rulebook.hash}, this one is {rb.digest})")
    try:
        game = rb.new_game(players=record.players, seed=record.seed, trace=trace, auto_chance=False)
    except GameError as exc:
        raise RecordError(f"the record cannot start: {exc}") from None
    for step, answer in enumerate(record.answers, 1):
        if until is not None and step > until:
            break
        decision = game.current_decision()
        if decision is None:
            raise RecordError(f"step {step}: the record answers '{answer.answer}' (by {answer.by}), "
                              "but the game is already over")
        if decision.by != answer.by:
            raise RecordError(f"step {step}: the game asks {decision.by} \"{decision.prompt}\", but the record "
                              f"has {answer.by} answering '{answer.answer}'")
        if answer.answer not in decision.labels:
            if decision.player is None:
                raise RecordError(f"step {step}: the table revealed '{answer.answer}' for \"{decision.prompt}\", "
                                  f"but that is not possible now; possible: {_few(decision.labels)}")
            raise RecordError(f"step {step}: {answer.by} answered '{answer.answer}' to \"{decision.prompt}\", "
                              f"which is not legal; legal answers: {_few(decision.labels)}")
        game.apply(answer.answer)
    if until is None and not game.over and game.current_decision() is not None and record.result is not None:
        d = game.current_decision()
        assert d is not None
        raise RecordError(f"step {len(record.answers) + 1}: the record ends, but the game still asks {d.by} "
                          f"\"{d.prompt}\" (the record says the game was over)")
    if until is None and record.result is not None and game.over and game.result() != record.result:
        raise RecordError(f"the replay ends with {game.result()}, but the record says {record.result}")
    return game


def _few(labels: list[str], n: int = 12) -> str:
    shown = ", ".join(f"'{x}'" for x in labels[:n])
    return shown + (f" and {len(labels) - n} more" if len(labels) > n else "")
