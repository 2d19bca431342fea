"""Game records: what was answered, in order, so that a game can be replayed, checked and resumed.

A record is one JSON object (see docs/RECORDS.md). Answers are stored as labels, the same text
a person reads and types, so a record can be read and written by hand: a game played on a real
table is written down as the answers given and the cards revealed, with no seed.

- `read_record` / `parse_record` turn a file into a `GameRecord`; every problem is a
  `RecordError` that says what is wrong, never a traceback.
- `replay` re-runs a record against a rulebook and names the first step where the two part ways.
- `record_text` and `write_record` write one (the writer of a live game is recording.py).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import attrs
import cattrs
from cattrs.gen import make_dict_structure_fn, make_dict_unstructure_fn

from .check.program import MAX_PLAYERS
from .errors import GameError, RecordError, RulecraftError
from .inputs import InputProblem, clip, decode, position, read_regular, within
from .language.values import CardRef
from .outputs import write_atomically
from .rulebook import Rulebook, bundled_names, load
from .runtime.asks import ChooseAsk, DrawAsk, MenuAsk, UseAsk
from .runtime.basics import splitmix
from .runtime.game import Decision, Game

FORMAT = 1
# JSON parses into objects of up to some 40 times the size of its text (a record of `[[]]`
# answers), so this bounds reading a record to some 320 MB, measured; a game of 6000 answers is
# 200 KB. RecordWriter writes no record larger: what rulecraft writes, it reads.
MAX_RECORD_BYTES = 8_000_000
MAX_DIGITS = 40  # digits of a number in a record: a 128-bit seed has 39
MAX_NESTING = 16  # of the free-form fields (options, result)
MAX_ERRORS = 3  # a record's answers are checked up to this many wrong ones
_SEAT = re.compile(r"P[1-9][0-9]*")


@attrs.define
class Answer:
    """One answered decision: who answered (P1…, or `table` for chance) and the label answered."""

    by: str
    answer: str
    note: str | None = None  # free text for a person; replay ignores it


@attrs.define
class RulebookRef:
    """Which rulebook: a bundled name, or a file (relative to the record's folder); its text's hash."""

    name: str
    file: str | None = None
    hash: str | None = None  # None (hand-written records): replay against whatever text is there


@attrs.define
class GameRecord:
    """A whole record: enough to re-run a game exactly."""

    format: int
    rulebook: RulebookRef
    players: int
    seed: int | None = None  # None: a game played on a real table, every chance outcome is written down
    options: dict[str, Any] = attrs.Factory(dict)  # how the game was played: agents, agent_seed
    note: str | None = None
    answers: list[Answer] = attrs.Factory(list)
    result: dict[str, Any] | None = None  # present once the game is over


def _shown(value: Any) -> str:
    return clip(json.dumps(value, ensure_ascii=False), 40)


def _strict(kind: type, what: str) -> Callable[[Any, type], Any]:
    def structure(value: Any, _: type) -> Any:
        if not isinstance(value, kind) or isinstance(value, bool):
            raise ValueError(f"{what} expected, not {_shown(value)}")
        return value

    return structure


_converter = cattrs.Converter(forbid_extra_keys=True)
_converter.register_structure_hook(str, _strict(str, "text"))
_converter.register_structure_hook(int, _strict(int, "a whole number"))


def _object(cls: type) -> Callable[[Any, type], Any]:
    fields: Callable[[Any, type], Any] = make_dict_structure_fn(cls, _converter, _cattrs_forbid_extra_keys=True)

    def structure(value: Any, _: type) -> Any:
        if not isinstance(value, dict):
            raise ValueError(f"an object expected, not {_shown(value)}")
        return fields(value, cls)

    return structure


def _list_of(cls: type) -> Callable[[Any, type], Any]:
    def structure(value: Any, _: type) -> Any:
        if not isinstance(value, list):
            raise ValueError(f"a list expected, not {_shown(value)}")
        errors: list[Exception] = []
        items: list[Any] = []
        for i, item in enumerate(value):
            try:
                items.append(_converter.structure(item, cls))
            except Exception as exc:
                exc.__notes__ = [
                    *getattr(exc, "__notes__", []),
                    cattrs.errors.IterableValidationNote(f"Structuring {cls.__name__} @ index {i}", i, cls),
                ]
                errors.append(exc)
                if len(errors) == MAX_ERRORS:  # enough to say what is wrong; the rest is not read
                    break
        if errors:
            raise cattrs.IterableValidationError(f"While structuring a list of {cls.__name__}", errors, list)
        return items

    return structure


_converter.register_structure_hook_func(lambda t: t == list[Answer], _list_of(Answer))
for _cls in (Answer, RulebookRef, GameRecord):
    _converter.register_unstructure_hook(_cls, make_dict_unstructure_fn(_cls, _converter, _cattrs_omit_if_default=True))
    _converter.register_structure_hook(_cls, _object(_cls))


# ---------------------------------------------------------------------------- reading


def read_record(path: str | Path) -> GameRecord:
    """Read and validate a record file; every problem is a RecordError naming what is wrong."""
    path = Path(path)
    try:
        text = decode(read_regular(path, MAX_RECORD_BYTES, "a record"), str(path), "a record")
    except InputProblem as exc:
        raise RecordError(f"{exc.span or path}: {exc.message}") from None
    if not text.strip():
        raise RecordError(f"{path}: not a record: the file is empty")
    try:
        data = json.loads(text, parse_int=_whole_number)
    except RecursionError:
        raise RecordError(f"{path}: not a record: JSON nested too deeply") from None
    except _HugeNumber as exc:
        line, column = position(text, max(text.find(exc.digits), 0))
        raise RecordError(
            f"{path}:{line}:{column}: a number of {len(exc.digits)} digits is larger than a record holds "
            f"(at most {MAX_DIGITS})"
        ) from None
    except json.JSONDecodeError as exc:
        if not text[exc.pos :].strip() or not text.rstrip().endswith("}"):
            raise RecordError(
                f"{path}:{exc.lineno}:{exc.colno}: the record ends too early (a truncated file?)"
            ) from None
        raise RecordError(f"{path}:{exc.lineno}:{exc.colno}: not a valid record (corrupt JSON): {exc.msg}") from None
    lone = _lone_surrogate(text) if not _encodable(data) else None
    if lone is not None:
        line, column = position(text, lone)
        raise RecordError(
            f"{path}:{line}:{column}: a text holds a lone surrogate ({text[lone : lone + 6]}), not a character"
        )
    return parse_record(data, str(path))


class _HugeNumber(Exception):
    def __init__(self, digits: str):
        self.digits = digits


def _whole_number(digits: str) -> int:
    """A JSON integer; one longer than any record needs is refused before Python converts it."""
    if len(digits.lstrip("-")) > MAX_DIGITS:
        raise _HugeNumber(digits)
    return int(digits)


def _encodable(data: Any) -> bool:
    """Whether every text in the data is UTF-8 (JSON's \\ud800 escapes can make texts that are not)."""
    try:
        json.dumps(data, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return False
    except RecursionError:  # nested deeper than a record is read (parse_record says so)
        return True
    return True


_SURROGATE = re.compile(r"\\u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}|\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


def _lone_surrogate(text: str) -> int | None:
    """The offset of the first escape of half a surrogate pair (a pair of halves is one character)."""
    for m in _SURROGATE.finditer(text):
        if len(m.group()) == 6:
            return m.start()
    return None


def parse_record(data: Any, where: str = "record") -> GameRecord:
    """Structure a record from JSON data, checking every field's type and the seats that answer."""
    if not isinstance(data, dict):
        raise RecordError(f"{where}: not a record: a record is a JSON object, not {type(data).__name__}")
    if data.get("format") != FORMAT:
        raise RecordError(
            f"{where}: record format {json.dumps(data.get('format'))} is not supported "
            f"(this rulecraft reads format {FORMAT})"
        )
    try:
        record = _converter.structure(data, GameRecord)
    except cattrs.BaseValidationError as exc:
        details = cattrs.transform_error(exc, path="$")
        more = f" (and {len(details) - 1} more)" if len(details) > 1 else ""
        raise RecordError(f"{where}: not a valid record: {details[0]}{more}") from None
    except (AttributeError, TypeError, ValueError) as exc:  # a list where an object belongs, and the like
        raise RecordError(f"{where}: not a valid record: {exc}") from None
    for key in ("options", "result"):  # free-form fields: written back as they were read, so bounded
        if _deeper_than(data.get(key), MAX_NESTING):
            raise RecordError(f"{where}: not a valid record: {key} nested more than {MAX_NESTING} deep")
    if not 1 <= record.players <= MAX_PLAYERS:
        raise RecordError(f"{where}: not a valid record: {record.players} players (a game seats 1 to {MAX_PLAYERS})")
    for step, answer in enumerate(record.answers, 1):
        if answer.by != "table" and not (
            len(answer.by) <= 5 and _SEAT.fullmatch(answer.by) and int(answer.by[1:]) <= record.players
        ):
            raise RecordError(
                f"{where}: step {step}: '{clip(answer.by)}' is not a seat of this {record.players}-player "
                "game (P1, P2, … or table)"
            )
    return record


def _deeper_than(value: Any, limit: int) -> bool:
    """Whether JSON data nests lists and objects more than `limit` deep (looked at without recursion)."""
    level, depth = [value], 0
    while level:
        level = [x for v in level if isinstance(v, list | dict) for x in (v.values() if isinstance(v, dict) else v)]
        depth += 1
        if depth >= limit and any(isinstance(v, list | dict) for v in level):
            return True
    return False


def rulebook_of(record: GameRecord, base: Path | None = None) -> Rulebook:
    """The rulebook a record names: its file (relative to the record's folder), else the bundled name.

    A record is data from anywhere: it may name a bundled rulebook or a `.rules` file, nothing else
    (a symlink named `.rules` must lead to a `.rules` file: its real path counts), and the file must
    lie, symlinks resolved, inside the working folder or beside the record's folder (`../x.rules`),
    as a scenario's `game` line must, unless the record's hash is that rulebook's: a record cannot
    make the game show a file farther away that its author did not already know (`_confined`).
    """
    ref, base = record.rulebook, base or Path(".")
    if ref.file is not None:
        if not _is_rules_file(base / ref.file, ref.file):
            raise RecordError(
                f"the record names rulebook file '{clip(ref.file)}', which is not a .rules file "
                "(give the rulebook with --rulebook)"
            )
        if _there(base / ref.file):  # a file, or a pipe or a folder, which loading names as such
            return _confined(base, ref.file, ref.hash)
    if ref.name in bundled_names():
        return load(ref.name)
    if _is_rules_file(base / ref.name, ref.name) and _there(base / ref.name):
        return _confined(base, ref.name, ref.hash)
    if ref.file is not None:
        raise RecordError(
            f"the record's rulebook file {clip(str(base / ref.file))} is not found, and '{clip(ref.name)}' is not "
            "bundled (give the rulebook with --rulebook)"
        )
    raise RecordError(
        f"the record names rulebook '{clip(ref.name)}', which is neither bundled nor a .rules file "
        "(give the rulebook with --rulebook)"
    )


def startable(record: GameRecord, base: Path | None = None) -> Rulebook:
    """The record's rulebook, once the record's player count is one it seats (checked before anything is built)."""
    rb = rulebook_of(record, base)
    program = rb.program
    if not program.min_players <= record.players <= program.max_players:
        raise RecordError(
            f"the record cannot start: {program.name} is played by {program.min_players} to "
            f"{program.max_players} players, not {record.players}"
        )
    return rb


def _confined(base: Path, named: str, digest: str | None) -> Rulebook:
    """The rulebook file a record names, loaded when its real path lies inside the folders a record
    may name (the working folder, and the record's folder's parent). A file farther away is loaded
    only to compare its digest with the record's hash, and kept only if they agree (a record that
    `play --record` wrote of a rulebook elsewhere replays anywhere): the hash shows that the
    record's author knew the file already. Otherwise a RecordError that names the file as the
    record does and shows nothing of it, not even why it did not load."""
    try:
        roots = [Path.cwd(), base.resolve().parent]
    except (OSError, RuntimeError):
        roots = [Path.cwd()]
    if within(base / named, roots):
        return load(base / named)
    if digest is not None:
        try:
            rb = load(base / named)
        except RulecraftError:
            rb = None
        if rb is not None and rb.digest == digest:
            return rb
    raise RecordError(
        f"the record names rulebook file '{clip(named)}', which lies outside the folders a record may name "
        f"({', '.join(str(r) for r in roots)}) and is not the rulebook of the record's hash: "
        "give the rulebook with --rulebook"
    )


def _there(path: Path) -> bool:
    """Whether something is at the path: a file, or anything else (a pipe, a folder) that is not "not found"."""
    try:
        return path.exists()
    except (OSError, ValueError):
        return False


def _is_rules_file(path: Path, named: str) -> bool:
    """Whether a record's name for a rulebook, and the file it leads to, both end in .rules."""
    if not named.endswith(".rules") or "\0" in named:
        return False
    try:
        return not path.exists() or path.resolve().name.endswith(".rules")
    except (OSError, RuntimeError, ValueError):  # a symlink loop, a name too long
        return False


# ---------------------------------------------------------------------------- replaying

OnStep = Callable[[Game, Decision, Answer], None]


def replay(
    record: GameRecord,
    rulebook: Rulebook | None = None,
    until: int | None = None,
    *,
    trace: bool = True,
    check_hash: bool = True,
    base: Path | None = None,
    on_step: OnStep | None = None,
) -> Game:
    """Re-run a record; raise RecordError naming the first step where it and the rules part ways.

    `until` stops after that many answers. `on_step` sees each decision before its recorded
    answer is applied (resuming uses it to bring agents' own generators up to date).
    """
    rb = rulebook or rulebook_of(record, base)
    if check_hash and record.rulebook.hash and record.rulebook.hash != rb.digest:
        raise RecordError(
            f"the record was made with a different text of rulebook '{clip(record.rulebook.name)}' "
            f"(hash {clip(record.rulebook.hash)}, this text has {rb.digest}); "
            "replay with --ignore-hash to try its answers on this text"
        )
    try:
        game = rb.new_game(players=record.players, seed=record.seed, trace=trace, auto_chance=False)
    except GameError as exc:
        raise RecordError(f"the record cannot start: {exc}") from None
    for step, answer in enumerate(record.answers, 1):
        if until is not None and step > until:
            break
        decision = game.current_decision()
        if decision is None:
            raise RecordError(
                f"step {step}: the record has {answer.by} answering '{clip(answer.answer)}', "
                "but the game is already over"
            )
        if decision.by != answer.by:
            raise RecordError(
                f"step {step}: the game asks {_asked(game, decision)}, but the record has "
                f"{answer.by} answering '{clip(answer.answer)}'"
            )
        if answer.answer not in decision.labels:
            raise RecordError(f"step {step}: {_why_not(game, decision, answer.answer)}")
        if on_step is not None:
            on_step(game, decision, answer)
        try:
            game.apply(answer.answer)
        except RulecraftError as exc:
            raise RecordError(
                f"step {step}: after {answer.by} answered '{clip(answer.answer)}', the rules fail:\n{exc}"
            ) from None
    if until is None and record.result is not None:
        pending = game.current_decision()
        if pending is not None:
            raise RecordError(
                f"step {len(record.answers) + 1}: the record ends as if the game were over, but the "
                f"game still asks {_asked(game, pending)}"
            )
        if game.result() != record.result:
            raise RecordError(
                f"the replay ends with {_result_text(game.result())}, but the record says {_result_text(record.result)}"
            )
    return game


def roll(game: Game) -> None:
    """Answer a pending chance decision from the game's seeded generator, exactly as a live game does."""
    game.apply(chance_answer(game))


def chance_answer(game: Game) -> str:
    """The label the game's seeded generator gives the pending chance decision (what `roll` answers)."""
    decision = game.current_decision()
    assert decision is not None and decision.player is None and game.seed is not None
    _, bits = splitmix(game.state.rng)  # `apply` advances the generator by this same step
    weights = decision.chance_weights or (1,) * len(decision.options)
    r = bits % sum(weights) if decision.chance_weights else bits % len(decision.options)
    chosen = 0
    while r >= weights[chosen]:
        r -= weights[chosen]
        chosen += 1
    return decision.options[chosen].label


def pending_draw(game: Game) -> tuple[str, str] | None:
    """(source zone, destination zone) when the pending decision is a draw, else None."""
    ask = game.pending_ask()
    return (ask.source, ask.destination) if isinstance(ask, DrawAsk) else None


def _owner(zone_key: str) -> str | None:
    m = re.search(r"\[(P[1-9][0-9]*)[],]", zone_key)
    return m.group(1) if m else None


def _asked(game: Game, decision: Decision) -> str:
    draw = pending_draw(game)
    if draw is not None:
        src, dst = draw
        return f"the table for a card drawn from {src} to {dst}"
    who = "the table" if decision.player is None else decision.by
    return f'{who} "{decision.prompt}"'


def _why_not(game: Game, decision: Decision, label: str) -> str:
    """Why an answer is not one of the pending decision's options, as one sentence."""
    shown = clip(label)
    draw = pending_draw(game)
    if draw is not None:
        src, dst = draw
        drawer = _owner(dst)
        who = f"{drawer} drew '{shown}' from {src}" if drawer else f"the table drew '{shown}' from {src} to {dst}"
        left = len(game.state.zones.get(src, []))
        where = sorted(
            {game.state.location[i] for i in range(len(game.state.cards)) if game.label(CardRef(i)) == label}
        )
        elsewhere = f"; '{shown}' is in {', '.join(where)}" if where else ""
        return (
            f"{who}, but no '{shown}' is left in {src} ({left} card{' is' if left == 1 else 's are'} left{elsewhere})"
        )
    ask = game.pending_ask()
    asked = f'"{decision.prompt}"'
    if decision.player is None:
        return (
            f"the table revealed '{shown}' for {asked}, but that is not possible now; possible: {_few(decision.labels)}"
        )
    reason = "which is not legal"
    if isinstance(ask, MenuAsk):
        for option in ask.menu.options:
            if option.label == label and option.when is not None:
                reason = f"which is not legal now: its condition (at {option.span}) does not hold"
    elif isinstance(ask, UseAsk) and ask.names_a_tier(label):
        reason = "which is not legal now: that tier is above the count or its condition does not hold"
    elif isinstance(ask, ChooseAsk):
        reason = f"which is not among the {len(decision.options)} choices"
    return f"{decision.by} answered '{shown}' to {asked}, {reason}; legal answers: {_few(decision.labels)}"


def _few(labels: list[str], n: int = 12) -> str:
    shown = ", ".join(f"'{clip(x)}'" for x in labels[:n])
    return shown + (f" and {len(labels) - n} more" if len(labels) > n else "")


def _result_text(result: dict[str, Any]) -> str:
    listed, scored = result.get("winners", []), result.get("scores", {})
    if not (isinstance(listed, list) and isinstance(scored, dict)):  # a record's result is data from anywhere
        return clip(json.dumps(result, ensure_ascii=False), 200)
    winners = " ".join(str(w) for w in listed) or "none"
    scores = ", ".join(f"{p} {v}" for p, v in scored.items() if v is not None)
    ending = f"unfinished ({result['unfinished']})" if "unfinished" in result else f"winners {winners}"
    if "together" in result and "unfinished" not in result:
        team = result.get("team_score")
        ending = f"together {result['together']}" + (f" (team score {team})" if team is not None else "")
    return clip(ending + (f" (scores {scores})" if scores else ""), 200)


# ---------------------------------------------------------------------------- writing


def record_of(game: Game, *, rulebook_file: str | None = None, options: dict[str, Any] | None = None) -> GameRecord:
    """The record of a game so far."""
    return GameRecord(
        format=FORMAT,
        rulebook=RulebookRef(game.rulebook.name, rulebook_file, game.rulebook.digest),
        players=game.state.players,
        seed=game.seed,
        options=dict(options or {}),
        answers=[Answer(by, label) for by, label in game.answers],
        result=game.result() if game.over else None,
    )


def answer_line(answer: Answer) -> str:
    """An answer as the one line of JSON a record holds it in."""
    return json.dumps(_converter.unstructure(answer), ensure_ascii=False)


def record_text(record: GameRecord, answer_lines: list[str] | None = None) -> str:
    """The JSON text of a record: one field per line, one answer per line, pleasant to read and edit."""
    data = _converter.unstructure(record)
    lines = []
    for field in attrs.fields(GameRecord):
        key = field.name
        if key == "answers":
            body = answer_lines if answer_lines is not None else [answer_line(a) for a in record.answers]
            lines.append(' "answers": [' + ("\n  " + ",\n  ".join(body) + "\n ]" if body else "]"))
        elif key in data:
            lines.append(f" {json.dumps(key)}: {json.dumps(data[key], ensure_ascii=False)}")
    return "{\n" + ",\n".join(lines) + "\n}\n"


def write_record(record: GameRecord | Game, path: str | Path) -> None:
    """Write a whole record (or the record of a game so far) atomically, and durably: it is synced to disk."""
    if isinstance(record, Game):
        record = record_of(record)
    write_atomically(Path(path), record_text(record), sync=True)
