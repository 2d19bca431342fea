"""Records: play → record → replay, resume, damaged records, views, human play, table records, kills.

Every game is covered: the tutorial and each bundled rulebook (`rulecraft.bundled_names()`), with
a few seeds, so a game that lands in rulebooks/ is tested here without a line of change.
"""

from __future__ import annotations

import contextlib
import functools
import io
import json
import os
import random
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import attrs
import pytest
import rulecraft
from rulecraft.cli import main
from rulecraft.language.values import Player
from rulecraft.recording import RecordWriter
from rulecraft.records import (
    Answer,
    GameRecord,
    parse_record,
    read_record,
    record_of,
    record_text,
    replay,
    write_record,
)

ROOT = Path(__file__).resolve().parent.parent
TUTORIAL = str(ROOT / "examples" / "tutorial.rules")
TABLE_RECORDS = sorted((ROOT / "examples" / "records").glob("*.json"))

# (game, seed, agents): the tutorial with several seeds and greedy agents; each bundled game with
# one seed and random agents (a greedy game of a real rulebook takes tens of seconds: too slow for CI;
# `rulecraft play GAME --seed 7 --agents greedy --record r.json && rulecraft replay r.json` is the
# command that checks it).
CASES = [
    (TUTORIAL, seed, agents) for seed, agents in ((1, "greedy"), (2, "random"), (3, "greedy,random"), (7, "greedy"))
]
CASES += [(name, 7, "random") for name in rulecraft.bundled_names()]
TRACE_CASES = CASES + [(name, 1, "random") for name in rulecraft.bundled_names()]  # one more seed: cheap here
GAMES = [TUTORIAL, *rulecraft.bundled_names()]


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test runs in its own folder, so messages name plain `r.json`."""
    monkeypatch.chdir(tmp_path)


def case_id(case: object) -> str:
    return Path(str(case)).stem if isinstance(case, str) else str(case)


def run(capsys: pytest.CaptureFixture[str], *argv: object) -> tuple[int, str, str]:
    """Run the command line in this process; return (exit code, stdout, stderr)."""
    capsys.readouterr()
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


_PLAYED: dict[tuple[str, int, str], tuple[dict, str]] = {}


def play(game: str, seed: int, agents: str) -> tuple[dict, str]:
    """Play a game once per test session with --record and --trace: (the record's JSON, the printed trace).

    A real rulebook's game takes seconds; every test of it shares this one game.
    """
    key = (game, seed, agents)
    if key not in _PLAYED:
        path = Path(f"played-{len(_PLAYED)}.json").resolve()
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            assert (
                main(
                    [
                        "play",
                        game,
                        "--seed",
                        str(seed),
                        "--agents",
                        agents,
                        "--players",
                        str(two_or_more(game)),
                        "--record",
                        str(path),
                        "--trace",
                    ]
                )
                == 0
            )
        _PLAYED[key] = (load_json(path), out.getvalue())
    return _PLAYED[key]


def play_record(tmp_path: Path, game: str, seed: int, agents: str) -> Path:
    """The record of `play(game, seed, agents)` as `r.json` in this test's folder."""
    data = json.loads(json.dumps(play(game, seed, agents)[0]))
    if "file" in data["rulebook"]:
        data["rulebook"]["file"] = Path(os.path.relpath(game, tmp_path)).as_posix()
    return save_json(tmp_path / "r.json", data)


@functools.cache
def two_or_more(game: str) -> int:
    """Two players if the game allows it (a view of P2 needs a P2), else its fewest."""
    program = rulecraft.load(game).program
    return max(2, program.min_players) if program.max_players >= 2 else program.min_players


def load_json(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def save_json(path: Path, data: dict) -> Path:
    path.write_text(json.dumps(data, indent=1), encoding="utf-8")
    return path


# ---------------------------------------------------------------------------- play, replay, resume


@pytest.mark.parametrize(("game", "seed", "agents"), TRACE_CASES, ids=case_id)
def test_replay_of_a_recorded_game_prints_the_same_trace(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], game: str, seed: int, agents: str
) -> None:
    """Playing with --record and replaying the record give the same trace, byte for byte, and exit 0."""
    record = play_record(tmp_path, game, seed, agents)
    played = play(game, seed, agents)[1]
    code, replayed, err = run(capsys, "replay", record, "--trace")
    assert (code, err) == (0, "")
    assert replayed == played
    # A game ends with its winners, or stopped unfinished by a round guard (random players, bundled games).
    assert re.search(r"^(winners?|unfinished): ", replayed.splitlines()[-1])
    data = load_json(record)
    names = agents.split(",")
    seats = names + names[-1:] * (data["players"] - len(names))
    assert data["seed"] == seed and data["options"] == {"agents": seats, "agent_seed": seed}
    assert data["result"]["winners"] or data["result"]["unfinished"]


@pytest.mark.parametrize(("game", "seed", "agents"), CASES, ids=case_id)
def test_resuming_from_the_middle_ends_as_the_game_played_straight_through(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], game: str, seed: int, agents: str
) -> None:
    """A record cut in the middle and resumed ends with the same answers and result as the whole game.

    The cut falls on an answer of the table as well as of a player: the seeded chance and the agents'
    own generators continue as in the uninterrupted game.
    """
    whole = load_json(play_record(tmp_path, game, seed, agents))
    n = len(whole["answers"])
    chance = [i for i, a in enumerate(whole["answers"]) if a["by"] == "table" and i > n // 3]
    # In the middle, and right before a card is drawn (when there is one); one cut for a long game.
    cuts = sorted({n // 2, *chance[:1]}) if game == TUTORIAL else (chance[:1] or [n // 2])
    for cut in cuts:
        partial = {k: v for k, v in whole.items() if k != "result"}
        partial["answers"] = whole["answers"][:cut]
        path = save_json(tmp_path / f"cut{cut}.json", partial)
        code, out, _ = run(capsys, "play", "--resume", path)
        assert code == 0
        assert load_json(path) == whole, f"resumed after {cut} of {n} answers"
        assert re.search(r"^(winners?|unfinished): ", out.splitlines()[-1])


def test_resuming_a_finished_game_changes_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--resume of a finished game replays it and prints the result; the record stays as it was."""
    path = play_record(tmp_path, TUTORIAL, 2, "random")
    before = load_json(path)
    code, out, _ = run(capsys, "play", "--resume", path)
    assert code == 0
    assert out.splitlines()[-1].startswith("winner")
    assert load_json(path) == before


# ---------------------------------------------------------------------------- damaged records


def _remove(i: int):  # type: ignore[no-untyped-def]
    return lambda d: d["answers"].pop(i)


def _set(i: int, key: str, value: object):  # type: ignore[no-untyped-def]
    return lambda d: d["answers"][i].__setitem__(key, value)


# The tutorial, seed 7, greedy agents (its answers are in test_damaged_record_table's docstring).
DAMAGES = [
    (
        "answer removed",
        _remove(15),
        "r.json: step 16: the game asks the table for a card drawn from deck to hand[P2], "
        "but the record has P1 answering 'Stock a ware'",
    ),
    (
        "answer illegal",
        _set(8, "answer", "Sell"),
        "r.json: step 9: P1 answered 'Sell' to \"Your turn\", which is not legal; "
        "legal answers: 'Stock a ware', 'Pass'",
    ),
    (
        "choice not offered",
        _set(9, "answer", "3 of coins"),
        "r.json: step 10: P1 answered '3 of coins' to \"Stock which ware?\", which is not among the 3 choices; "
        "legal answers: '3 of swords', '1 of swords', '5 of cups'",
    ),
    (
        "tier above the count",
        _set(10, "answer", "tier 2: Discard 2 wares of the suit from your stall and gain 5 gold"),
        "r.json: step 11: P1 answered 'tier 2: Discard 2 wares of the suit from your stall and gain 5 gold' to "
        '"Sell wares of one suit: which tier? (count 0)", which is not legal now: that tier is above the count or '
        "its condition does not hold; legal answers: 'no ability', 'tier 0: Gain 1 gold'",
    ),
    (
        "card drawn that is elsewhere",
        _set(11, "answer", "5 of cups"),
        "r.json: step 12: P1 drew '5 of cups' from deck, but no '5 of cups' is left in deck "
        "(9 cards are left; '5 of cups' is in stall[P1])",
    ),
    (
        "card drawn that does not exist",
        _set(11, "answer", "9 of cups"),
        "r.json: step 12: P1 drew '9 of cups' from deck, but no '9 of cups' is left in deck (9 cards are left)",
    ),
    (
        "wrong seat",
        _set(6, "by", "P2"),
        "r.json: step 7: the game asks P1 \"Your turn\", but the record has P2 answering 'Pass'",
    ),
    (
        "no such seat",
        _set(3, "by", "P7"),
        "r.json: step 4: 'P7' is not a seat of this 2-player game (P1, P2, … or table)",
    ),
    (
        "last answer removed",
        _remove(-1),
        "r.json: step 30: the record ends as if the game were over, but the game still asks the table for a card "
        "drawn from deck to hand[P2]",
    ),
    (
        "answer after the end",
        lambda d: d["answers"].append({"by": "P1", "answer": "Pass"}),
        "r.json: step 31: the record has P1 answering 'Pass', but the game is already over",
    ),
    (
        "result changed",
        lambda d: d["result"].__setitem__("winners", ["P2"]),
        "r.json: the replay ends with winners P1 (scores P1 11, P2 10), but the record says winners P2 "
        "(scores P1 11, P2 10)",
    ),
    (
        "wrong format",
        lambda d: d.__setitem__("format", 2),
        "r.json: record format 2 is not supported (this rulecraft reads format 1)",
    ),
    ("field missing", lambda d: d.pop("players"), "r.json: not a valid record: required field missing @ $.players"),
    (
        "field of the wrong type",
        lambda d: d.__setitem__("players", "2"),
        "r.json: not a valid record: invalid value for type, expected int @ $.players",
    ),
    (
        "answer of the wrong type",
        _set(2, "answer", 3),
        "r.json: not a valid record: invalid value for type, expected str @ $.answers[2].answer",
    ),
    (
        "unknown field",
        lambda d: d.__setitem__("seeed", 3),
        "r.json: not a valid record: extra fields found (seeed) @ $",
    ),
    (
        "unknown rulebook",
        lambda d: d.__setitem__("rulebook", {"name": "nowhere"}),
        "r.json: the record names rulebook 'nowhere', which is neither bundled nor a .rules file "
        "(give the rulebook with --rulebook)",
    ),
    (
        "rulebook file gone",
        lambda d: d.__setitem__("rulebook", {"name": "nowhere", "file": "gone/x.rules"}),
        "r.json: the record's rulebook file gone/x.rules is not found, and 'nowhere' is not bundled "
        "(give the rulebook with --rulebook)",
    ),
    (
        "rulebook file not a rulebook",
        lambda d: d.__setitem__("rulebook", {"name": "x", "file": "/etc/passwd"}),
        "r.json: the record names rulebook file '/etc/passwd', which is not a .rules file "
        "(give the rulebook with --rulebook)",
    ),
    (
        "too many players",
        lambda d: d.__setitem__("players", 9),
        "r.json: the record cannot start: Market is played by 2 to 4 players, not 9",
    ),
]


@pytest.mark.parametrize(("damage", "expected"), [(d, m) for _, d, m in DAMAGES], ids=[n for n, _, _ in DAMAGES])
def test_damaged_record_table(tmp_path: Path, capsys: pytest.CaptureFixture[str], damage, expected: str) -> None:  # type: ignore[no-untyped-def]
    """A damaged record exits 1 with a message naming the step, what was asked, what was answered, and why.

    The record is the tutorial, seed 7, greedy: 6 cards dealt, then P1 Pass, P2 Pass, P1 Stock a
    ware / 5 of cups / tier 0, a draw for P1 (step 12), ...; 30 answers, P1 wins 11 to 10.
    """
    data = load_json(play_record(tmp_path, TUTORIAL, 7, "greedy"))
    damage(data)
    save_json(tmp_path / "r.json", data)
    code, out, err = run(capsys, "replay", "r.json")
    assert (code, out, err) == (1, "", expected + "\n")


def test_a_record_of_another_rulebook_text_is_reported_as_such(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A record whose hash is not the rulebook's is refused, naming both hashes; --ignore-hash replays it."""
    data = load_json(play_record(tmp_path, TUTORIAL, 7, "greedy"))
    # The rulebook beside the record: one farther away is taken only under the record's hash.
    (tmp_path / "tutorial.rules").write_bytes(Path(TUTORIAL).read_bytes())
    data["rulebook"]["file"] = "tutorial.rules"
    data["rulebook"]["hash"] = "0123456789abcdef"
    save_json(tmp_path / "r.json", data)
    digest = rulecraft.load(TUTORIAL).digest
    assert run(capsys, "replay", "r.json") == (
        1,
        "",
        (
            f"r.json: the record was made with a different text of rulebook 'tutorial' (hash 0123456789abcdef, this "
            f"text has {digest}); replay with --ignore-hash to try its answers on this text\n"
        ),
    )
    code, out, _ = run(capsys, "replay", "r.json", "--ignore-hash")
    assert (code, out.splitlines()[-1]) == (0, "winner: P1")


CORRUPT = [
    ("truncated", lambda t: t[: len(t) // 2], r"r\.json:\d+:\d+: the record ends too early \(a truncated file\?\)"),
    (
        "cut after the answers",
        lambda t: t[: t.index('"result"')],
        r"r\.json:\d+:\d+: the record ends too early \(a truncated file\?\)",
    ),
    (
        "corrupt",
        lambda t: t.replace('"by": "P2"', '"by" "P2"', 1),
        r"r\.json:\d+:\d+: not a valid record \(corrupt JSON\): Expecting ':' delimiter",
    ),
    ("empty", lambda t: "", r"r\.json: not a record: the file is empty"),
    ("not text", lambda t: "\udcff", r"r\.json:1:1: a record is UTF-8 text, and byte 0xff is not UTF-8 here"),
    ("a list", lambda t: "[1, 2]", r"r\.json: not a record: a record is a JSON object, not list"),
    (
        "answers not a list",
        lambda t: json.dumps({**json.loads(t), "answers": {"by": "P1"}}),
        r"r\.json: not a valid record: invalid value for type, expected list @ \$\.answers",
    ),
    (
        "an answer not an object",
        lambda t: json.dumps(
            {
                **json.loads(t),
                "answers": [
                    a if i not in (7, 9) else f"{a['by']} {a['answer']}" for i, a in enumerate(json.loads(t)["answers"])
                ],
            }
        ),
        r"r\.json: not a valid record: invalid value for type, expected Answer @ \$\.answers\[7\] \(and 1 more\)",
    ),
]


@pytest.mark.parametrize(("damage", "pattern"), [(d, p) for _, d, p in CORRUPT], ids=[n for n, _, _ in CORRUPT])
def test_a_corrupt_record_file_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], damage, pattern: str
) -> None:  # type: ignore[no-untyped-def]
    """A truncated or corrupt file gets one clear line and exit 1, never a traceback."""
    text = play_record(tmp_path, TUTORIAL, 7, "greedy").read_text(encoding="utf-8")
    (tmp_path / "r.json").write_bytes(damage(text).encode("utf-8", "surrogateescape"))
    code, out, err = run(capsys, "replay", "r.json")
    assert (code, out) == (1, "")
    assert re.fullmatch(pattern + "\n", err), err


def test_a_missing_record_file_is_a_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Replaying a file that is not there says so."""
    assert run(capsys, "replay", "gone.json") == (
        1,
        "",
        "gone.json: cannot read the record: No such file or directory\n",
    )


@pytest.mark.parametrize("game", GAMES, ids=case_id)
def test_removing_an_answer_from_the_middle_names_the_step(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], game: str
) -> None:
    """For every game: an answer removed from the middle of a record makes replay exit 1 naming the step."""
    data = load_json(play_record(tmp_path, game, 7, "greedy" if game == TUTORIAL else "random"))
    data["answers"].pop(len(data["answers"]) // 2)
    save_json(tmp_path / "r.json", data)
    code, _, err = run(capsys, "replay", tmp_path / "r.json")
    assert code == 1
    assert re.match(r".*r\.json: step \d+: ", err), err
    assert "Traceback" not in err


# ---------------------------------------------------------------------------- --until and --as


def test_until_stops_after_that_many_answers(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--until STEP replays that many answers and says what the game waits on."""
    path = play_record(tmp_path, TUTORIAL, 7, "greedy")
    assert run(capsys, "replay", path, "--until", 8) == (
        0,
        "replayed and verified 8 answers; the game waits on P1: Your turn\n",
        "",
    )
    assert run(capsys, "replay", path, "--until", 8, "--as", "P2") == (
        0,
        (
            "-- view of P2 --\n"
            "  deck: 9 cards (hidden)\n"
            "  hand[P1]: 3 cards (hidden)\n"
            "  hand[P2]: 2 of cups, 4 of cups, 4 of coins\n"
            "  turns_left = 5\n"
            "replayed and verified 8 answers; the game waits on P1\n"
        ),
        "",
    )


def test_replay_of_a_whole_game_says_it_verified_every_answer(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A good record's replay says that it checked every answer, then the result."""
    path = play_record(tmp_path, TUTORIAL, 7, "greedy")
    answers = len(json.loads(Path(path).read_text())["answers"])
    code, out, err = run(capsys, "replay", path)
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert lines[0] == f"replayed and verified {answers} answers"
    assert lines[-1].startswith(("winner: ", "winners: "))


def _seen_by(game_name: str, record: GameRecord, viewer: str, at: set[int]) -> tuple[set[str], set[str], dict]:
    """Replay step by step: every card label of the game, the labels `viewer` could see at some
    decision or was told, and the full view and `viewer`'s view after each step in `at`."""
    rb = rulecraft.load(game_name)
    game = replay(attrs.evolve(record, answers=[], result=None), rb)
    every: set[str] = set()
    seen: set[str] = set()
    views = {}

    def look(step: int) -> None:
        full, mine = game.view(None), game.view(viewer)
        for zone in full["zones"].values():
            every.update(zone if isinstance(zone, list) else [])
        for zone in mine["zones"].values():
            seen.update(zone if isinstance(zone, list) else [zone.get("top")] if zone.get("top") else [])
        if step in at:
            views[step] = (full, mine)

    look(0)
    for step, answer in enumerate(record.answers, 1):
        game.apply(answer.answer)
        look(step)
    # What the rulebook says aloud (`say`) is public: a card it names has been shown to everyone.
    said = "\n".join(game.visible_to(e, Player(1)) for e in game.events if e.verb == "say")
    seen.update(label for label in every if _mentions(said, label))
    return every, seen, views


def _mentions(text: str, label: str) -> bool:
    return re.search(r"(?<![\w])" + re.escape(label) + r"(?![\w])", text) is not None


@pytest.mark.parametrize("game", GAMES, ids=case_id)
def test_a_players_view_never_shows_another_players_hand(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], game: str
) -> None:
    """replay --as P2 (views at two steps, and the whole trace) shows no card P2 may not see.

    Checked against the full state: each zone P2 may not see is shown as its count of cards; and
    every card of the game, minus those P2's own view showed at some decision (its hand, public
    zones, the tops of piles) or the rules said aloud, is absent from all P2 is shown.
    """
    path = play_record(tmp_path, game, *((2, "random") if game == TUTORIAL else (7, "random")))
    record = read_record(path)
    n = len(record.answers)
    every, seen, views = _seen_by(game, record, "P2", {0, n // 2})
    shown = []
    for k in (0, n // 2):
        code, text, _ = run(capsys, "replay", path, "--as", "P2", "--until", k)
        assert code == 0
        shown.append(text)
        full, mine = views[k]
        for key, cards in full["zones"].items():  # a zone P2 may not see is a count, whoever holds it
            if not isinstance(mine["zones"][key], list) and "top" not in mine["zones"][key]:
                assert f"\n  {key}: {len(cards)} cards (hidden)\n" in text, key
    code, trace, _ = run(capsys, "replay", path, "--as", "P2", "--trace")
    assert code == 0
    shown.append(trace)
    assert "# seed" not in trace and "# answers" not in trace
    secret = every - seen  # empty when every card has a twin P2 did see: then the counts above are the check
    for text in shown:
        leaked = sorted(label for label in secret if _mentions(text, label))
        assert not leaked, f"P2 is shown {leaked}"
    if game == TUTORIAL:  # the check has teeth: the whole trace does show the cards P2 must not see
        full_trace = run(capsys, "replay", path, "--trace")[1]
        assert secret and any(_mentions(full_trace, label) for label in secret)


def test_as_names_a_seat_of_the_game(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--as must be a seat of the recorded game: another is bad usage (exit 2)."""
    path = play_record(tmp_path, TUTORIAL, 7, "greedy")
    error = "rulecraft replay: error: "
    assert run(capsys, "replay", path, "--as", "P5") == (2, "", error + "--as P5: there is no P5 in a game of 2\n")
    assert run(capsys, "replay", path, "--as", "me") == (
        2,
        "",
        error + "--as me: 'me' is not a seat: seats are P1, P2, ...\n",
    )


# ---------------------------------------------------------------------------- games on a real table


@pytest.mark.parametrize("path", TABLE_RECORDS, ids=lambda p: p.name)
def test_table_records_replay(capsys: pytest.CaptureFixture[str], path: Path) -> None:
    """Every record in examples/records/ (games written down at a real table) replays, exit 0."""
    code, out, err = run(capsys, "replay", path)
    assert (code, err) == (0, "")
    assert out.strip()


def test_the_tutorial_table_record_has_no_seed_and_reaches_the_end() -> None:
    """The shipped table record names every card revealed instead of a seed, and plays a whole game."""
    record = read_record(ROOT / "examples" / "records" / "tutorial_table.json")
    assert record.seed is None and record.rulebook.hash is None
    game = replay(record, base=ROOT / "examples" / "records")
    assert game.over and game.result() == record.result


TABLE_GAME = """game Cards players 2..2
enum Colour { red, blue }
card Chip { colour: Colour, n: int } label "{colour} {n}"
zone bag: Chip hidden shuffled
zone hand[Player]: Chip owner
setup { create 1 Chip { colour: red, n: 1 } in bag  create 2 Chip { colour: blue, n: 2 } in bag
        create 1 Chip { colour: red, n: 3 } in bag }
play { for p in players { draw 1 from bag to hand[p] } draw 1 from bag to hand[players[0]] }
"""


@pytest.mark.parametrize(
    ("draws", "message"),
    [
        (["red 1", "blue 2", "blue 2"], None),
        (
            ["red 1", "red 1", "blue 2"],
            "step 2: P2 drew 'red 1' from bag, but no 'red 1' is left in bag "
            "(3 cards are left; 'red 1' is in hand[P1])",
        ),
        (
            ["blue 2", "blue 2", "blue 2"],
            "step 3: P1 drew 'blue 2' from bag, but no 'blue 2' is left in bag "
            "(2 cards are left; 'blue 2' is in hand[P1], hand[P2])",
        ),
        (
            ["red 1", "blue 2", "green 5"],
            "step 3: P1 drew 'green 5' from bag, but no 'green 5' is left in bag (2 cards are left)",
        ),
    ],
)
def test_a_table_record_checks_each_revealed_card_against_what_is_left(draws: list[str], message: str | None) -> None:
    """With no seed, each draw is what was revealed; the first impossible one is named with zone and player."""
    rb = rulecraft.load_text(TABLE_GAME, "cards.rules")
    record = parse_record(
        {
            "format": 1,
            "rulebook": {"name": "cards"},
            "players": 2,
            "answers": [{"by": "table", "answer": d} for d in draws],
        }
    )
    if message is None:
        assert replay(record, rb).over
    else:
        with pytest.raises(rulecraft.RecordError) as err:
            replay(record, rb)
        assert str(err.value) == message


# ---------------------------------------------------------------------------- writing


def test_the_writer_leaves_the_whole_record_on_disk_after_every_answer(tmp_path: Path) -> None:
    """After each answer the file holds exactly the record of the game so far, and the room kept for the
    answers to come (spaces before the closing, and where an answer starts on the next page); at the end
    the record alone. It is rewritten only rarely: answers are written into the room."""
    rb = rulecraft.load_text(LONG_GAME.replace("TURNS", "2000"), "long.rules")
    game = rb.new_game(seed=5)
    path = tmp_path / "r.json"
    writer = RecordWriter(path, game)
    from rulecraft.agents import RandomAgent

    agent = RandomAgent(5)
    while not game.over:
        game.apply(agent.choose(game, game.current_decision()))  # type: ignore[arg-type]
        writer.update(game)
        text = path.read_text(encoding="utf-8")
        room = re.compile(r" +(?=,\n  \{|\n \]\n\}\n$)")
        assert room.sub("", text) == record_text(record_of(game))
    writer.close(game)
    assert path.read_text(encoding="utf-8") == record_text(record_of(game))
    assert read_record(path).result == game.result()
    assert len(game.answers) == 2000 and writer.rewrites <= 8  # the first, log2(66 KB / 16 KB) more, the last


def test_record_text_is_one_answer_per_line_and_round_trips() -> None:
    """The JSON has one field per line and one answer per line, and reads back to the same record."""
    game = rulecraft.load(TUTORIAL).new_game(seed=7)
    game.apply("Pass")
    record = record_of(game, options={"agents": ["human", "greedy"]})
    text = record_text(record)
    assert text.splitlines()[:4] == [
        "{",
        ' "format": 1,',
        f' "rulebook": {{"name": "tutorial", "hash": "{game.rulebook.digest}"}},',
        ' "players": 2,',
    ]
    assert ' {"by": "P1", "answer": "Pass"}' in text.replace("  {", " {")
    assert parse_record(json.loads(text)) == record


LONG_GAME = """game Long players 1..1
var n: int = 0 public
var turns: int = TURNS public
fn score(p: Player) = n
play {
  while turns > 0 {
    choose by players[0] prompt "Which way?" { option "up" { set n += 1 } option "down" { set n -= 1 } }
    set turns -= 1
  }
}
"""


def test_a_killed_game_leaves_a_valid_record_that_replays_to_where_it_was(tmp_path: Path) -> None:
    """SIGKILL at random moments of `play --record`: the record on disk is valid and replays to its last step."""
    rules = tmp_path / "long.rules"
    rules.write_text(LONG_GAME.replace("TURNS", "30000"), encoding="utf-8")
    rb = rulecraft.load(rules)
    chooser = random.Random(20261129)
    reached = []
    for attempt in range(3):
        path = tmp_path / f"r{attempt}.json"
        proc = subprocess.Popen(
            [sys.executable, "-m", "rulecraft", "play", str(rules), "--seed", str(attempt), "--record", str(path)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        try:
            for _ in range(400):  # wait (at most 20 s) until the record exists, then a random moment more
                if path.exists() or proc.poll() is not None:
                    break
                time.sleep(0.05)
            time.sleep(chooser.uniform(0.0, 0.5))
            proc.send_signal(signal.SIGKILL)
        finally:
            proc.wait()
        assert proc.returncode == -signal.SIGKILL, "the game ended before it was killed: make it longer"
        record = read_record(path)
        game = replay(record, rb)
        assert [Answer(by, a) for by, a in game.answers] == record.answers
        assert not game.over and record.result is None
        reached.append(len(record.answers))
    assert len(set(reached)) > 1, f"the kills all came at the same step: {reached}"


# ---------------------------------------------------------------------------- a person at the terminal


def _human(tmp_path: Path, lines: list[str], *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "rulecraft",
            "play",
            TUTORIAL,
            "--seed",
            "3",
            "--agents",
            "human,greedy",
            "--record",
            str(tmp_path / "h.json"),
            *extra,
        ],
        input="".join(line + "\n" for line in lines),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_a_person_plays_at_the_terminal_and_the_game_is_recorded(tmp_path: Path) -> None:
    """A human seat sees its view and numbered options, is asked again after a bad answer, and is recorded."""
    done = _human(tmp_path, ["sell everything", "7", "Pass", *["1"] * 60])
    assert (done.returncode, done.stderr) == (0, "")
    out = done.stdout
    first = out.index("P1: Your turn")
    assert "-- view of P1 --" in out[:first]
    assert "  hand[P2]: 3 cards (hidden)" in out[:first]
    assert out[first:].startswith("P1: Your turn\n  1. Stock a ware\n  2. Pass\n> ")
    assert "'sell everything' is not an answer: type a number from 1 to 2, or an option's label (? for help)\n> " in out
    assert "'7' is not an answer" in out
    assert re.search(r"^winners?: ", out.splitlines()[-1], re.M)
    record = read_record(tmp_path / "h.json")
    assert record.options == {"agents": ["human", "greedy"], "agent_seed": 3}
    mine = [a.answer for a in record.answers if a.by == "P1"]
    assert mine[0] == "Pass" and mine[1] == "Stock a ware"
    assert replay(record, base=tmp_path).over


def test_a_person_who_stops_typing_leaves_a_record_to_resume(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """When input ends mid-game, play exits 1 and the record holds every answer so far, ready to --resume."""
    done = _human(tmp_path, ["2", "1", "1"])
    assert (done.returncode, done.stderr) == (1, "no more input: the game is left unfinished\n")
    record = read_record(tmp_path / "h.json")
    assert [a.answer for a in record.answers if a.by == "P1"] == ["Pass", "Stock a ware", record.answers[-1].answer]
    assert record.result is None
    code, out, _ = run(capsys, "play", "--resume", tmp_path / "h.json", "--agents", "greedy")
    assert code == 0 and re.search(r"^winners?: ", out.splitlines()[-1])
    assert read_record(tmp_path / "h.json").answers[: len(record.answers)] == record.answers


def test_the_example_in_the_records_doc_replays(capsys: pytest.CaptureFixture[str]) -> None:
    """The record shown in docs/RECORDS.md is a valid record of the tutorial that replays as the doc says."""
    doc = (ROOT / "docs" / "RECORDS.md").read_text(encoding="utf-8")
    example = re.search(r"```json\n(.*?)```", doc, re.S)
    assert example is not None
    record = parse_record(json.loads(example.group(1)), "RECORDS.md")
    assert record_text(record) == example.group(1)
    # The hash in the doc is the tutorial's when the doc was written; the answers are what must hold.
    game = replay(record, base=ROOT / "docs", check_hash=False)
    decision = game.current_decision()
    assert decision is not None and len(game.answers) == 14
    assert f"the game waits on {decision.by}: {decision.prompt}".startswith("the game waits on P2: ")


def _table_record_cut_before_a_draw(tmp_path: Path) -> Path:
    data = load_json(ROOT / "examples" / "records" / "tutorial_table.json")
    # The rulebook beside the record (one farther away is taken only under the record's hash).
    (tmp_path / "tutorial.rules").write_bytes(Path(TUTORIAL).read_bytes())
    data["rulebook"]["file"] = "tutorial.rules"
    data["answers"] = data["answers"][:10]  # P2's first turn is done: the table refills P2's hand next
    del data["result"]
    return save_json(tmp_path / "t.json", data)


PLAY_ERRORS = [
    (
        lambda tmp: ["play", TUTORIAL, "--record", "nowhere/r.json"],
        "nowhere/r.json: cannot write the record: No such file or directory",
    ),
    (
        lambda tmp: ["play", TUTORIAL, "--agents", "greedy,robot"],
        "rulecraft play: error: --agents: unknown agent 'robot': choose from random, greedy, human, mcts",
    ),
    (
        lambda tmp: ["play", "--resume", _table_record_cut_before_a_draw(tmp)],
        'the game waits on the table ("draw from deck") and has no seed to draw with: go on with --table, and '
        "type what was revealed",
    ),
    (
        lambda tmp: ["play", TUTORIAL, "--table", "--seed", "3"],
        "rulecraft play: error: --table is a game with no seed: every chance outcome is typed in",
    ),
    (
        lambda tmp: ["play", "--resume", play_record(tmp, TUTORIAL, 7, "greedy"), "--seed", "3"],
        "rulecraft play: error: --resume goes on with the record's game: its rulebook, players and seed come from "
        "the record (give only "
        "--agents, --record, --trace, --table)",
    ),
    (
        lambda tmp: ["replay", play_record(tmp, TUTORIAL, 7, "greedy"), "--until", "-1"],
        "rulecraft replay: error: argument --until: '-1' is not a whole number from 0 to 1,000,000,000",
    ),
]


@pytest.mark.parametrize(
    ("argv", "expected"),
    PLAY_ERRORS,
    ids=["unwritable", "agent", "no seed", "table and seed", "resume and seed", "until"],
)
def test_play_and_replay_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str], argv, expected: str) -> None:  # type: ignore[no-untyped-def]
    """Bad input to play and replay is one clear line and exit 1; bad usage exits 2 (after argparse's usage)."""
    code, _, err = run(capsys, *argv(tmp_path))
    usage = expected.startswith("rulecraft ")
    assert (code, err.splitlines(True)[-1] if usage else err) == (2 if usage else 1, expected + "\n")


def test_a_table_record_stopped_early_keeps_its_answers(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Resuming a table record that needs a revealed card stops, and leaves the record's answers (and notes) alone."""
    path = _table_record_cut_before_a_draw(tmp_path)
    before = load_json(path)["answers"]
    assert run(capsys, "play", "--resume", path)[0] == 1
    assert load_json(path)["answers"] == before


WHY_GAME = """game Why players 2..2
var n: int = 0 public
play {
  choose by players[0] prompt "Move" { option "walk" { } option "fly" when n > 0 { } option "rest" { } }
  let w = choose one from ["rain", "sun"] by table
  choose by players[1] prompt "Then" { option "a" { } option "b" { fail "the bridge is out" } }
}
"""

WHY = [
    (
        ["fly"],
        "step 1: P1 answered 'fly' to \"Move\", which is not legal now: its condition (at why.rules:4:58) "
        "does not hold; legal answers: 'walk', 'rest'",
    ),
    (["swim"], "step 1: P1 answered 'swim' to \"Move\", which is not legal; legal answers: 'walk', 'rest'"),
    (
        ["walk", "snow"],
        "step 2: the table revealed 'snow' for \"Choose\", but that is not possible now; possible: 'rain', 'sun'",
    ),
    (["walk", "P1:rain"], None),
]


@pytest.mark.parametrize(("answers", "message"), WHY, ids=["condition", "unknown", "chance", "seat"])
def test_why_an_answer_is_not_possible(answers: list[str], message: str | None) -> None:
    """The message says why: an option whose condition fails, an unknown option, an impossible chance outcome."""
    rb = rulecraft.load_text(WHY_GAME, "why.rules")
    entries = [{"by": "P1", "answer": answers[0]}]
    entries += [
        {"by": a.split(":")[0], "answer": a.split(":")[1]} if ":" in a else {"by": "table", "answer": a}
        for a in answers[1:]
    ]
    record = parse_record({"format": 1, "rulebook": {"name": "why"}, "players": 2, "answers": entries})
    with pytest.raises(rulecraft.RecordError) as err:
        replay(record, rb)
    if message is None:
        assert str(err.value) == "step 2: the game asks the table \"Choose\", but the record has P1 answering 'rain'"
    else:
        assert str(err.value) == message


def test_a_rule_that_fails_during_replay_names_the_step(tmp_path: Path) -> None:
    """A recorded answer after which the rules fail is reported at its step, with the rulebook's located error."""
    rb = rulecraft.load_text(WHY_GAME, "why.rules")
    record = parse_record(
        {
            "format": 1,
            "rulebook": {"name": "why"},
            "players": 2,
            "answers": [{"by": "P1", "answer": "walk"}, {"by": "table", "answer": "sun"}, {"by": "P2", "answer": "b"}],
        }
    )
    with pytest.raises(rulecraft.RecordError) as err:
        replay(record, rb)
    assert str(err.value).startswith("step 3: after P2 answered 'b', the rules fail:\nwhy.rules:6:")


def test_a_record_cut_at_any_byte_is_an_error_or_a_shorter_game(tmp_path: Path) -> None:
    """Whatever byte a record file is cut at, reading and replaying it gives a RecordError, never a traceback."""
    text = play_record(tmp_path, TUTORIAL, 7, "greedy").read_text(encoding="utf-8")
    rb = rulecraft.load(TUTORIAL)
    path = tmp_path / "cut.json"
    outcomes = set()
    for end in range(0, len(text), 7):
        path.write_text(text[:end], encoding="utf-8")
        try:
            replay(read_record(path), rb)
            outcomes.add("replayed")
        except rulecraft.RecordError as exc:
            outcomes.add(str(exc).split(": ", 1)[1].split(" (")[0].split(":")[0])
    assert outcomes == {"not a record", "the record ends too early"}


@pytest.mark.parametrize("seed", range(3))
def test_random_damage_to_a_record_is_an_error_or_a_game(tmp_path: Path, seed: int) -> None:
    """Bytes of a record changed at random: reading and replaying give a RecordError or a game, nothing else."""
    text = play_record(tmp_path, TUTORIAL, 7, "greedy").read_bytes()
    rb = rulecraft.load(TUTORIAL)
    chooser = random.Random(seed)
    path = tmp_path / "bad.json"
    for _ in range(60):
        data = bytearray(text)
        for _ in range(chooser.randint(1, 4)):
            data[chooser.randrange(len(data))] = chooser.choice(b'{}[]",:0123456789abcPtx \n\xff')
        path.write_bytes(bytes(data))
        with contextlib.suppress(rulecraft.RecordError):  # anything else fails the test
            replay(read_record(path), rb, check_hash=False)


def test_a_game_on_a_real_table_is_recorded_as_it_is_played(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """play --table has no seed: each card drawn is asked at the terminal and recorded as what was revealed.

    The record stops when input ends, and `--resume` (still at the table) goes on with it.
    """
    lines = ["9 of cups", "3 of swords", *["1"] * 14]
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "rulecraft",
            "play",
            TUTORIAL,
            "--table",
            "--agents",
            "human,greedy",
            "--record",
            "t.json",
        ],
        input="".join(x + "\n" for x in lines),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        cwd=tmp_path,
    )
    assert (done.returncode, done.stderr) == (1, "no more input: the game is left unfinished\n")
    assert done.stdout.startswith("table: a card drawn from deck to hand[P1]: what was revealed?\n  1. 1 of coins\n")
    assert (
        "'9 of cups' is not an answer: type a number from 1 to 15, or an option's label (? for help)\n" in done.stdout
    )
    record = read_record(tmp_path / "t.json")
    assert record.seed is None and record.options["table"] is True
    assert [a.answer for a in record.answers[:3]] == ["3 of swords", "1 of coins", "2 of coins"]
    rest = "".join("1\n" for _ in range(200))
    done = subprocess.run(
        [sys.executable, "-m", "rulecraft", "play", "--resume", "t.json"],
        input=rest,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        cwd=tmp_path,
    )
    assert (done.returncode, done.stderr) == (0, "")
    finished = read_record(tmp_path / "t.json")
    assert finished.answers[: len(record.answers)] == record.answers and finished.result is not None
    assert run(capsys, "replay", tmp_path / "t.json")[0] == 0


def test_write_record_writes_a_record_or_the_record_of_a_game(tmp_path: Path) -> None:
    """write_record takes a GameRecord or a Game, and the file reads back as the same record."""
    game = rulecraft.load(TUTORIAL).new_game(seed=2)
    game.apply("Pass")
    write_record(game, tmp_path / "a.json")
    write_record(record_of(game), tmp_path / "b.json")
    assert read_record(tmp_path / "a.json") == read_record(tmp_path / "b.json") == record_of(game)


def test_the_hash_of_a_rulebook_is_of_its_text_not_of_where_it_was_read(tmp_path: Path) -> None:
    """The same text read by another path has the same hash (records replay from any folder); a changed text not."""
    text = Path(TUTORIAL).read_text(encoding="utf-8")
    digest = rulecraft.load(TUTORIAL).digest
    assert rulecraft.load(os.path.relpath(TUTORIAL)).digest == digest
    (tmp_path / "tutorial.rules").write_text(text, encoding="utf-8")
    assert rulecraft.load(tmp_path / "tutorial.rules").digest == digest
    (tmp_path / "tutorial.rules").write_text(text.replace("const HAND = 3", "const HAND = 4"), encoding="utf-8")
    assert rulecraft.load(tmp_path / "tutorial.rules").digest != digest


@pytest.mark.parametrize("command", ["replay", "play --resume", "view"])
def test_a_pipe_named_as_a_records_rulebook_is_named_as_a_pipe(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    """A FIFO where the record's rulebook file is: "not a regular file, a pipe", never "not found" (and never a hang)."""
    os.mkfifo("pipe.rules")
    Path("r.json").write_text(
        '{"format": 1, "rulebook": {"name": "pipe.rules", "file": "pipe.rules"}, "players": 1, "answers": []}\n'
    )
    code, _, err = run(capsys, *command.split(), "r.json")
    assert (code, err) == (1, "pipe.rules:1:1: error: a rulebook must be a regular file, and this is a pipe\n")
