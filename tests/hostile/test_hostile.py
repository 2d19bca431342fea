"""Hostile inputs: records, scenarios, rulebook files and API calls made to break the interpreter.

Every case ends with a located error (exit 1) in bounded time and memory, never a traceback and
never a kill. The cases that could exhaust memory, run for minutes or block run the command line
in a subprocess under an address-space limit of 1 GB and a timeout (a safety net: no test asserts
how long a case takes; examples/benchmarks/RELIABILITY-RUNS.md gives the times measured); the others run in this
process. The inputs are built by the table below (the large ones are too large to keep as files).
"""

from __future__ import annotations

import io
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import pytest
import rulecraft
from rulecraft.agents import HumanAgent
from rulecraft.authoring.scenario import run_scenario
from rulecraft.cli import main
from rulecraft.errors import GameError, RecordError, RulebookError
from rulecraft.language.values import Record
from rulecraft.outputs import lock_record, unlock_record
from rulecraft.records import read_record
from rulecraft.rulebook import MAX_RULEBOOK_BYTES
from rulecraft.runtime.basics import MEMO_BUDGET
from rulecraft.tools import fuzz
from rulecraft.tools.fuzz import CASE_MEMORY, CASE_TIMEOUT

ROOT = Path(__file__).resolve().parents[2]
TUTORIAL = ROOT / "examples" / "tutorial.rules"
# Bytes of address space a case may use, and seconds before it is killed (the machine may be loaded:
# this is no measure of speed): the limits `rulecraft fuzz --budgets` runs its cases under too.
MEMORY, TIMEOUT = CASE_MEMORY, CASE_TIMEOUT


def _limit() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))


def limited(folder: Path, *argv: str) -> tuple[int, str, str]:
    """Run the command line in a subprocess under the memory limit and the timeout."""
    done = subprocess.run(
        [sys.executable, "-m", "rulecraft", *argv],
        cwd=folder,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=TIMEOUT,
        preexec_fn=_limit,  # sets a resource limit only, before exec
        check=False,
    )
    return done.returncode, done.stdout.decode("utf-8", "replace"), done.stderr.decode("utf-8", "replace")


def record(players: object = 2, answers: str = "[]", name: str = "tutorial.rules", seed: str = "1") -> str:
    """The text of a record of the tutorial game (beside it in the case's folder) with these fields."""
    return (
        f'{{"format": 1, "rulebook": {{"name": "{name}"}}, "players": {players}, "seed": {seed}, '
        f'"answers": {answers}}}\n'
    )


def answers(item: str, count: int) -> str:
    return "[" + ",".join([item] * count) + "]"


def fifo(path: Path) -> None:
    os.mkfifo(path)


MISTYPED = record(answers=answers('{"by":1,"answer":2}', 800_000))  # 16 MB

# (case, files to make: {name: text | bytes | a function of the path}, argv, the whole of stderr)
CASES: list[tuple[str, dict[str, object], list[str], str]] = [
    (
        "a record of thirty million players is refused before a seat is built",
        {"r.json": record(players=30_000_000)},
        ["play", "--resume", "r.json"],
        "r.json: not a valid record: 30000000 players (a game seats 1 to 1000)\n",
    ),
    (
        "a record's player count is checked against its rulebook before anything is built",
        {"r.json": record(players=50)},
        ["play", "--resume", "r.json"],
        "r.json: the record cannot start: Market is played by 2 to 4 players, not 50\n",
    ),
    (
        "a 16 MB record of 800,000 mistyped answers is refused by its size",
        {"r.json": MISTYPED},
        ["replay", "r.json"],
        f"r.json: {len(MISTYPED)} bytes is larger than a record may be (8000000)\n",
    ),
    (
        "a record of 350,000 mistyped answers, within the size limit, stops at the first errors",
        {"r.json": record(answers=answers('{"by":1,"answer":2}', 350_000))},
        ["play", "--resume", "r.json"],
        "r.json: not a valid record: invalid value for type, expected str @ $.answers[0].by (and 5 more)\n",
    ),
    (
        "a record of 1.5 million answers that are lists, within the size limit, stops at the first errors",
        {"r.json": record(answers=answers("[[]]", 1_500_000))},
        ["replay", "r.json"],
        "r.json: not a valid record: invalid value for type, expected Answer @ $.answers[0] (and 2 more)\n",
    ),
    (
        "a record's 5,000-digit number is located, not converted",
        {"r.json": record(seed="9" * 5000)},
        ["replay", "r.json"],
        "r.json:1:77: a number of 5000 digits is larger than a record holds (at most 40)\n",
    ),
    (
        "a 5,000-digit number deep in a record's answers is located too",
        {"r.json": record(answers='[{"by": "P1", "answer": "Pass", "note": ' + "1" * 5000 + "}]")},
        ["replay", "r.json"],
        "r.json:1:131: a number of 5000 digits is larger than a record holds (at most 40)\n",
    ),
    (
        "half a surrogate pair in a record's answer is located",
        {"r.json": record(answers='[{"by": "table", "answer": "\\ud800 of cups"}]')},
        ["replay", "r.json"],
        "r.json:1:119: a text holds a lone surrogate (\\ud800), not a character\n",
    ),
    (
        "a 7 MB answer is echoed in a few characters",
        {"r.json": record(answers='[{"by": "table", "answer": "' + "x" * 7_000_000 + '"}]')},
        ["replay", "r.json"],
        "r.json: step 1: P1 drew '"
        + "x" * 80
        + "… (7000000 characters)' from deck, but no '"
        + "x" * 80
        + "… (7000000 characters)' is left in deck (15 cards are left)\n",
    ),
    (
        "a record naming a symlink to a file that is not a rulebook reads nothing",
        {"r.json": record(name="x.rules"), "x.rules": lambda p: p.symlink_to("/etc/passwd")},
        ["replay", "r.json"],
        "r.json: the record names rulebook 'x.rules', which is neither bundled nor a .rules file "
        "(give the rulebook with --rulebook)\n",
    ),
    (
        "a record naming a rulebook two folders up is refused, its file unread",
        {"r.json": record(name="../../far.rules")},
        ["replay", "r.json"],
        "r.json: the record names rulebook file '../../far.rules', which lies outside the folders a record may "
        "name ({here}, {parent}) and is not the rulebook of the record's hash: give the rulebook with --rulebook\n",
    ),
    (
        "a record naming a rulebook two folders up under another hash is refused, nothing of it shown",
        {"r.json": record(name="../../far.rules").replace('far.rules"', 'far.rules", "hash": "0123456789abcdef"')},
        ["replay", "r.json"],
        "r.json: the record names rulebook file '../../far.rules', which lies outside the folders a record may "
        "name ({here}, {parent}) and is not the rulebook of the record's hash: give the rulebook with --rulebook\n",
    ),
    (
        "a record naming a symlink to a rulebook outside the allowed folders is refused, its file unread",
        {"r.json": record(name="x.rules"), "x.rules": lambda p: p.symlink_to(p.parents[2] / "far.rules")},
        ["replay", "r.json"],
        "r.json: the record names rulebook file 'x.rules', which lies outside the folders a record may "
        "name ({here}, {parent}) and is not the rulebook of the record's hash: give the rulebook with --rulebook\n",
    ),
    (
        "a device as a scenario is refused before a byte is read",
        {},
        ["trace", "--scenario", "/dev/zero"],
        "/dev/zero: a scenario must be a regular file, and this is a device\n",
    ),
    (
        "a pipe as a scenario is refused without blocking",
        {"s.scenario": fifo},
        ["trace", "--scenario", "s.scenario"],
        "s.scenario: a scenario must be a regular file, and this is a pipe\n",
    ),
    (
        "a 30,000-line scenario is refused by its size",
        {"s.scenario": "game tutorial.rules\n" + "set turns_left = 1\n" * 30_000},
        ["trace", "--scenario", "s.scenario"],
        "s.scenario: 570020 bytes is larger than a scenario may be (200000)\n",
    ),
    (
        "a pipe as a rulebook is refused without blocking, at line 1",
        {"g.rules": fifo},
        ["check", "g.rules"],
        "g.rules:1:1: error: a rulebook must be a regular file, and this is a pipe\n",
    ),
    (
        "a folder as a rulebook is refused at line 1",
        {"g.rules": lambda p: p.mkdir()},
        ["check", "g.rules"],
        "g.rules:1:1: error: a rulebook must be a regular file, and this is a folder\n",
    ),
    (
        "a 960 KB list literal is refused by its size",
        {"g.rules": "game G players 1..1\nvar v: any = [" + ",".join(["1"] * 480_000) + "] public\nplay { }\n"},
        ["check", "g.rules"],
        f"g.rules: more than {MAX_RULEBOOK_BYTES} bytes is more than a rulebook may be\n",
    ),
    (
        "a card of 60,000 fields is refused by its size",
        {"g.rules": "game G players 1..1\ncard K {" + ", ".join(f"f{i}: int" for i in range(60_000)) + "}\n"},
        ["check", "g.rules"],
        f"g.rules: more than {MAX_RULEBOOK_BYTES} bytes is more than a rulebook may be\n",
    ),
    (
        "a game of ten million players is refused at its declaration",
        {"g.rules": "game G players 1..10000000\nplay { }\n"},
        ["play", "g.rules"],
        "g.rules:1:1: error: a game of more than 1000 players is more than a game may seat\n"
        "    game G players 1..10000000\n    ^^^^^^^^^^^^^^^^^^^^^^^^^^\n",
    ),
]


def _make(folder: Path, files: dict[str, object]) -> None:
    (folder / "tutorial.rules").write_bytes(TUTORIAL.read_bytes())
    for name, content in files.items():
        path = folder / name
        if callable(content):
            content(path)
        elif isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(str(content), encoding="utf-8")


@pytest.mark.parametrize(("files", "argv", "stderr"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_a_hostile_input_ends_in_a_located_error_within_limits(
    tmp_path: Path, files: dict[str, object], argv: list[str], stderr: str
) -> None:
    """Each hostile input ends with exit 1 and one clear message, under 1 GB and a timeout."""
    folder = tmp_path / "a" / "b"  # a rulebook far away: two folders up, beside no folder a record may name
    folder.mkdir(parents=True)
    (tmp_path / "far.rules").write_text('game Far players 1..1\nplay { say "the far file" }\n', encoding="utf-8")
    _make(folder, files)
    code, out, err = limited(folder, *argv)
    assert "Traceback" not in err and "the far file" not in out + err
    assert (code, err) == (1, stderr.replace("{here}", str(folder)).replace("{parent}", str(tmp_path / "a")))


@pytest.mark.parametrize(
    ("players", "message"),
    [
        ("1000", "rulecraft play: error: --players 1000: Market is played by 2 to 4 players"),
        ("100000000", "rulecraft play: error: argument --players: '100000000' is not a whole number from 1 to 1,000"),
    ],
)
def test_a_player_count_the_game_cannot_seat_is_refused_before_a_seat_is_built(
    tmp_path: Path, players: str, message: str
) -> None:
    """Too many players for the game, or for any game, is bad usage (exit 2), said in one line, under the limits."""
    _make(tmp_path, {})
    code, _, err = limited(tmp_path, "play", "tutorial.rules", "--players", players)
    assert "Traceback" not in err
    assert (code, err.splitlines()[-1]) == (2, message)


def test_the_largest_list_literal_a_rulebook_may_hold_loads_within_limits(tmp_path: Path) -> None:
    """A rulebook just under the size limit, of the slowest text to parse measured, loads."""
    items = (MAX_RULEBOOK_BYTES - 100) // 2
    text = "game G players 1..1\nvar v: any = [" + ",".join(["1"] * items) + "] public\nplay { }\n"
    (tmp_path / "g.rules").write_text(text, encoding="utf-8")
    code, out, err = limited(tmp_path, "check", "g.rules")
    assert (code, err) == (0, "") and out.startswith("g.rules: ok")


# ---------------------------------------------------------------------------- scenarios, in process

SCENARIOS = [
    (
        'answer "Pass"] + ["Pass"',
        's.scenario:2:1: error: an answer is the label of an option, in quotes: answer "Pass"',
    ),
    ('expect 1 == 1 } play { say "x"', "s.scenario:2:1: error: one statement per 'expect' line"),
    ("players ²", "s.scenario:2:1: error: 'players' takes a number, not '²'"),
    ("seed " + "9" * 5000, "s.scenario:2:1: error: 'seed' takes a number of at most 40 digits, not 5000"),
    (
        "answer " + '"' + "x" * 150_000 + '"',
        "s.scenario:2:1: error: '"
        + "x" * 80
        + '… (150000 characters)\' is not a legal answer to "Your turn" (by P1); legal: Stock a ware, Pass',
    ),
    ("x" * 100_000, "s.scenario:2:1: error: unknown scenario line '" + "x" * 40 + "… (100000 characters)'"),
]


@pytest.mark.parametrize(("line", "message"), SCENARIOS, ids=[m.split("error: ")[1][:40] for _, m in SCENARIOS])
def test_a_hostile_scenario_line_is_located(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, line: str, message: str
) -> None:
    """A scenario line that would assert, convert a huge number or echo a huge text is a located error."""
    monkeypatch.chdir(tmp_path)
    _make(tmp_path, {"s.scenario": f"game tutorial.rules\n{line}\n"})
    assert main(["trace", "--scenario", "s.scenario"]) == 1
    first = capsys.readouterr().err.splitlines()[0]
    assert first == message


@pytest.mark.parametrize(
    ("files", "message"),
    [
        (
            {"s.scenario": b"game tutorial.rules\n# caf\xe9\n"},
            "s.scenario:2:6: error: a scenario is UTF-8 text, and byte 0xe9 is not UTF-8 here",
        ),
        (
            {"s.scenario": "game ../../../../etc/passwd\n"},
            "s.scenario:1:1: error: the game is a bundled rulebook (guildhall, renaissance_man, valdora) "
            "or a relative path to a .rules file, not '../../../../etc/passwd'",
        ),
        (
            {"s.scenario": "game evil.rules\n", "evil.rules": lambda p: p.symlink_to("/etc/passwd")},
            "s.scenario:1:1: error: 'evil.rules' leads to passwd, which is not a .rules file",
        ),
    ],
    ids=["a Latin-1 byte", "a game outside", "a symlink to a file that is not a rulebook"],
)
def test_a_scenario_reads_nothing_but_a_rulebook(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    files: dict[str, object],
    message: str,
) -> None:
    """A scenario's bytes and its `game` line are checked; the content of a file that is not a rulebook never shows."""
    monkeypatch.chdir(tmp_path)
    _make(tmp_path, files)
    assert main(["trace", "--scenario", "s.scenario"]) == 1
    err = capsys.readouterr().err
    assert err.splitlines()[0] == message and "root:" not in err


def test_a_scenario_outside_the_folders_it_may_name_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A `game` line may reach beside the scenario's folder (`../game.rules`), not farther."""
    far = tmp_path / "far"
    (far / "a" / "b").mkdir(parents=True)
    (tmp_path / "away.rules").write_bytes(TUTORIAL.read_bytes())
    (far / "a" / "b" / "s.scenario").write_text("game ../../../away.rules\n", encoding="utf-8")
    monkeypatch.chdir(far)
    with pytest.raises(RulebookError) as info:
        run_scenario(None, Path("a/b/s.scenario"))
    assert info.value.messages == [
        f"a/b/s.scenario:1:1: error: '../../../away.rules' lies outside the folders a scenario may name "
        f"({far}, {far / 'a'})"
    ]


# ---------------------------------------------------------------------------- includes


def test_an_include_through_a_symlink_to_another_kind_of_file_is_refused(tmp_path: Path) -> None:
    """A symlink named .rules that leads to /etc/passwd is not read: its real name counts."""
    (tmp_path / "x.rules").symlink_to("/etc/passwd")
    main_file = tmp_path / "main.rules"
    main_file.write_text('include "x.rules"\ngame M players 1..1\nplay { }\n', encoding="utf-8")
    with pytest.raises(RulebookError) as info:
        rulecraft.load(main_file)
    assert info.value.messages == [f"{main_file}:1:1: error: 'x.rules' leads to passwd, which is not a .rules file"]
    assert "root:" not in str(info.value)


def test_an_include_outside_the_rulebook_s_folders_is_refused(tmp_path: Path) -> None:
    """An include reaches below its rulebook or beside its folder; a symlink farther away is refused."""
    (tmp_path / "secret.rules").write_text("game Secret players 1..1\n", encoding="utf-8")
    book = tmp_path / "a" / "b" / "book"
    book.mkdir(parents=True)
    (book / "x.rules").symlink_to(tmp_path / "secret.rules")
    main_file = book / "main.rules"
    main_file.write_text('include "x.rules"\ngame M players 1..1\nplay { }\n', encoding="utf-8")
    with pytest.raises(RulebookError) as info:
        rulecraft.load(main_file)
    message = info.value.messages[0]
    assert message.startswith(f"{main_file}:1:1: error: 'x.rules' lies outside the folders a rulebook may include")


# ---------------------------------------------------------------------------- names and strings

FIELDS = ["id", "self", "lambda", "None", "class", "_x"]


@pytest.mark.parametrize("name", FIELDS)
def test_a_card_field_named_as_python_reserves_is_refused(name: str) -> None:
    """A card field Python could not hold as an attribute is a located error, not a SyntaxError at check."""
    with pytest.raises(RulebookError) as info:
        rulecraft.load_text(f"game G players 1..1\ncard K {{ x: int, {name}: int }}\nplay {{ }}\n", "k.rules")
    assert info.value.messages == [f"k.rules:2:18: error: a card field may not be named '{name}'"]


def test_a_card_of_too_many_fields_is_refused() -> None:
    """A card type of more fields than a card may have is a located error."""
    fields = ", ".join(f"f{i}: int" for i in range(201))
    with pytest.raises(RulebookError) as info:
        rulecraft.load_text(f"game G players 1..1\ncard K {{ {fields} }}\nplay {{ }}\n", "k.rules")
    assert info.value.messages == ["k.rules:2:1: error: card type K has 201 fields, more than a card may have (200)"]


def test_half_a_surrogate_pair_in_a_string_is_located() -> None:
    """A label that could be neither printed nor saved (human play, --record, explain) is refused where it is written."""
    with pytest.raises(RulebookError) as info:
        rulecraft.load_text('game G players 1..1\ncard K { n: int } label "\\ud800 {n}"\nplay { }\n', "k.rules")
    assert info.value.messages == [
        "k.rules:2:25: error: this string holds half a surrogate pair (an escape \\ud800 to \\udfff), not a character"
    ]


def test_a_surrogate_pair_of_escapes_is_one_character() -> None:
    """The two halves written as escapes make one character, which prints."""
    rb = rulecraft.load_text('game G players 1..1\nplay { say "\\ud83d\\ude00" }\n', "k.rules")
    assert any(e.text == "\U0001f600" for e in rb.new_game().events)


# ---------------------------------------------------------------------------- one writer per record


def test_a_second_game_writing_a_record_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """While a game writes a record, `play --resume` of it is refused at once; afterwards it goes on."""
    monkeypatch.chdir(tmp_path)
    assert main(["play", str(TUTORIAL), "--seed", "3", "--agents", "greedy", "--record", "r.json"]) == 0
    data = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    del data["result"]
    data["answers"] = data["answers"][:10]
    (tmp_path / "r.json").write_text(json.dumps(data), encoding="utf-8")
    capsys.readouterr()
    lock = lock_record(tmp_path / "r.json")  # as a game playing into it holds it
    try:
        assert main(["play", "--resume", "r.json"]) == 1
        assert capsys.readouterr().err == (
            "r.json: another game is writing this record (its lock .r.json.lock is held): "
            "one game at a time plays into a record\n"
        )
        assert len(read_record(tmp_path / "r.json").answers) == 10
    finally:
        unlock_record(tmp_path / "r.json", lock)
    assert main(["play", "--resume", "r.json"]) == 0
    assert read_record(tmp_path / "r.json").result is not None
    assert not (tmp_path / ".r.json.lock").exists()


def test_two_resumes_at_once_leave_one_game_in_the_record(tmp_path: Path) -> None:
    """A `play --resume` of a record another `play --resume` is playing into is refused; the first plays on."""
    assert main(["play", str(TUTORIAL), "--seed", "4", "--agents", "greedy", "--record", str(tmp_path / "r.json")]) == 0
    data = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    del data["result"]
    data["answers"] = data["answers"][:6]
    (tmp_path / "r.json").write_text(json.dumps(data), encoding="utf-8")
    argv = [sys.executable, "-m", "rulecraft", "play", "--resume", "r.json", "--agents", "human"]
    # A human seat waits on its input, holding the game (and the record's lock) until the input comes.
    first = subprocess.Popen(argv, cwd=tmp_path, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        for _ in range(TIMEOUT * 10):
            if (tmp_path / ".r.json.lock").exists() or first.poll() is not None:
                break
            time.sleep(0.1)
        second = subprocess.run(argv, cwd=tmp_path, stdin=subprocess.DEVNULL, capture_output=True, timeout=TIMEOUT)
    finally:
        _, err = first.communicate("".join("1\n" for _ in range(300)).encode(), timeout=TIMEOUT)
    assert (second.returncode, second.stderr.decode()) == (
        1,
        "r.json: another game is writing this record (its lock .r.json.lock is held): "
        "one game at a time plays into a record\n",
    )
    assert (first.returncode, err.decode()) == (0, "")
    assert read_record(tmp_path / "r.json").result is not None


# ---------------------------------------------------------------------------- the API


@pytest.mark.parametrize(
    ("who", "message"),
    [
        ("P9", "there is no P9 in a game of 2 players"),
        (1.5, "a seat is 'P1', 'P2', ... (or its index 0, 1, ..., or None for everything), not 1.5"),
        (True, "a seat is 'P1', 'P2', ... (or its index 0, 1, ..., or None for everything), not True"),
        (-1, "a seat is 'P1', 'P2', ... (or its index 0, 1, ..., or None for everything), not -1"),
        (7, "there is no P8 in a game of 2 players"),
        ("me", "'me' is not a seat: seats are P1, P2, ..."),
    ],
)
def test_a_view_of_no_seat_is_an_api_error(who: object, message: str) -> None:
    """`view` of a seat the game does not have, or of no seat at all, says so in the API's words."""
    game = rulecraft.load(TUTORIAL).new_game(players=2, seed=1)
    with pytest.raises(GameError) as info:
        game.view(who)  # type: ignore[arg-type]
    assert str(info.value) == message


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"players": "3"}, "players is a whole number of seats (2 to 4), not '3'"),
        ({"players": 2.5}, "players is a whole number of seats (2 to 4), not 2.5"),
        ({"seed": "x"}, "seed is a whole number (or None: chance is answered from outside), not 'x'"),
        (
            {"players": 2, "colour": 1},
            "new_game has no option 'colour': its options are trace, auto_chance, check_invariants, ask_forced",
        ),
        ({"players": 2, "trace": "yes"}, "the option trace is True or False, not 'yes'"),
    ],
)
def test_new_game_with_arguments_of_the_wrong_kind_is_an_api_error(arguments: dict[str, object], message: str) -> None:
    """`new_game` checks its arguments and says what each one is, rather than raise a Python TypeError."""
    with pytest.raises(GameError) as info:
        rulecraft.load(TUTORIAL).new_game(**arguments)  # type: ignore[arg-type]
    assert str(info.value) == message


def test_a_value_nested_two_thousand_deep_never_reaches_the_state() -> None:
    """Views and the state's JSON recurse into lists: the state holds none nested over 100 deep."""
    rb = rulecraft.load_text(
        "game Deep players 1..1\nvar v: any = 0 public\n"
        'play {\n  repeat 2000 { set v = [v] }\n  choose by players[0] { option "a" { } option "b" { } }\n}\n',
        "deep.rules",
    )
    for trace in (False, True):
        with pytest.raises(RulebookError) as info:
            rb.new_game(trace=trace)
        assert info.value.messages == [
            "deep.rules:4:17: error: a value nested more than 100 deep is more than a game may hold: "
            "a runaway computation?"
        ]


def test_a_value_nested_a_hundred_deep_is_viewed_and_saved() -> None:
    """A value at the nesting limit shows in a view and survives the state's JSON."""
    rb = rulecraft.load_text(
        "game Deep players 1..1\nvar v: any = 0 public\n"
        'play {\n  repeat 99 { set v = [v] }\n  choose by players[0] { option "a" { } option "b" { } }\n}\n',
        "deep.rules",
    )
    game = rb.new_game()
    assert game.view("P1")["vars"]["v"] == "[" * 99 + "0" + "]" * 99
    assert rb.converter.structure(json.loads(json.dumps(rb.converter.unstructure(game.state)))) == game.state


# ---------------------------------------------------------------------------- a person at the terminal


@pytest.mark.parametrize(
    ("typed", "shown"),
    [
        ("²", "'²' is not an answer"),
        ("9" * 5000, "'" + "9" * 80 + "… (5000 characters)' is not an answer"),
        ("\udcff", "'\\udcff' is not an answer"),
    ],
    ids=["a superscript digit", "5,000 digits", "a byte that is not UTF-8"],
)
def test_what_a_person_types_is_asked_again(typed: str, shown: str) -> None:
    """A superscript digit, a 5,000-digit number or an undecodable byte is not an answer: asked again."""
    game = rulecraft.load(TUTORIAL).new_game(players=2, seed=1)
    out = io.StringIO()
    person = HumanAgent(io.StringIO(f"{typed}\n2\n"), out)
    assert person.choose(game, game.current_decision()) == "Pass"
    assert f"{shown}: type a number from 1 to 2, or an option's label" in out.getvalue()
    out.getvalue().encode("utf-8")  # it can be printed


def test_a_long_line_is_shown_as_a_window_around_the_caret() -> None:
    """An error on a 4,000-character line shows 160 characters of it, the caret under the culprit."""
    with pytest.raises(RulebookError) as info:
        rulecraft.load_text(
            "game G players 1..1\nvar v: any = [" + "1," * 2_000 + "oops] public\nplay { }\n", "w.rules"
        )
    head, line, caret = str(info.value).splitlines()[:3]
    assert head.startswith("w.rules:2:4015: error: unknown name 'oops'")
    assert len(line) <= 4 + 2 + 160 and line.startswith("    …1,1,")
    assert line[caret.index("^") :].startswith("oops]")


def test_a_record_s_free_form_fields_are_bounded_in_depth(tmp_path: Path) -> None:
    """Options nested 500 deep are refused: the record would be written back as it was read."""
    path = tmp_path / "r.json"
    path.write_text(
        record().replace('"answers"', '"options": ' + '{"a": ' * 500 + "1" + "}" * 500 + ', "answers"'), "utf-8"
    )
    with pytest.raises(RecordError) as info:
        read_record(path)
    assert str(info.value) == f"{path}: not a valid record: options nested more than 16 deep"


def test_a_record_s_result_of_another_shape_is_quoted_not_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A finished record whose result is not winners and scores is quoted, clipped, in the disagreement."""
    monkeypatch.chdir(tmp_path)
    assert main(["play", str(TUTORIAL), "--seed", "2", "--agents", "greedy", "--record", "r.json"]) == 0
    data = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    data["result"] = {"winners": 5, "scores": ["x" * 1000]}
    (tmp_path / "r.json").write_text(json.dumps(data), encoding="utf-8")
    capsys.readouterr()
    assert main(["replay", "r.json"]) == 1
    assert capsys.readouterr().err == (
        "r.json: the replay ends with winners P2 (scores P1 4, P2 17), but the record says "
        '{"winners": 5, "scores": ["' + "x" * 173 + "… (1030 characters)\n"
    )


# ---------------------------------------------------------------------------- work inside expressions

WORK = (
    "more than 5000000 units of work without a decision (elements built or read, comparisons, characters, "
    "calls, bindings): a runaway computation?"
)


def game_text(declarations: str, body: str) -> str:
    """A one-player game: the declarations, then a play block of `body`."""
    return f"game G players 1..1\nvar v: any = 0 public\n{declarations}\nplay {{\n{body}\n}}\n"


# (case, declarations, play block, the whole of stderr): each runs out a budget inside expressions.
BUDGETS: list[tuple[str, str, str, str]] = [
    (
        "a list of 99,999 lists of 99,999 numbers",
        "",
        "  set v = len([[j for j in 1..99999] for i in 1..99999])",
        f"g.rules:5:28: error: {WORK}\n"
        "      set v = len([[j for j in 1..99999] for i in 1..99999])\n"
        "                               ^^^^^^^^\n",
    ),
    (
        "a sort of one list shared 99,999 times",
        "",
        "  let b = 1..99999\n  set v = len(sorted([b for i in 1..99999]))",
        f"g.rules:6:15: error: {WORK}\n"
        "      set v = len(sorted([b for i in 1..99999]))\n"
        "                  ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n",
    ),
    (
        "distinct of one list shared 99,999 times",
        "",
        "  let b = 1..99999\n  set v = len(distinct([b for i in 1..99999]))",
        f"g.rules:6:15: error: {WORK}\n"
        "      set v = len(distinct([b for i in 1..99999]))\n"
        "                  ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n",
    ),
    (
        "two equal lists of shared lists compared",
        "",
        "  let b = 1..99999\n  let c = 1..99999\n  set v = [b for i in 1..99999] == [c for i in 1..99999]",
        f"g.rules:7:11: error: {WORK}\n"
        "      set v = [b for i in 1..99999] == [c for i in 1..99999]\n"
        "              ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n",
    ),
    (
        "a function calling itself twice, 40 deep, with new arguments each time",
        "fn f(n: int, k: int) = if n == 0 then k else f(n - 1, k * 2) + f(n - 1, k * 2 + 1)",
        "  set v = f(40, 1)",
        f"g.rules:3:64: error: {WORK}\n"
        "    fn f(n: int, k: int) = if n == 0 then k else f(n - 1, k * 2) + f(n - 1, k * 2 + 1)\n"
        "                                                                   ^^^^^^^^^^^^^^^^^^^\n",
    ),
    (
        "a text of one list shared 99,999 times, refused before it is written out",
        "",
        '  let b = 1..99999\n  say "{[b for i in 1..99999]}"',
        "g.rules:6:3: error: a value written as text of more than 1000000 characters is more than a game may show: "
        "a runaway computation?\n"
        '      say "{[b for i in 1..99999]}"\n'
        "      ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n",
    ),
    (
        "a rule of two bindings over 99,999 values each",
        "rule r(i in 1..99999, j in 1..99999) when v + i + j < 0 { set v = 1 }",
        "  set v = 2",
        f"g.rules:3:23: error: {WORK}\n"
        "    rule r(i in 1..99999, j in 1..99999) when v + i + j < 0 { set v = 1 }\n"
        "                          ^^^^^^^^^^^^^\n",
    ),
    (
        "an endless loop whose every step builds a range of 99,999",
        "",
        "  while true { set v = len(1..99999) }",
        f"g.rules:5:28: error: {WORK}\n"
        "      while true { set v = len(1..99999) }\n"
        "                               ^^^^^^^^\n",
    ),
    (
        "an endless loop calling a function of a long list literal",
        "fn big() = len([" + ", ".join(["1"] * 2000) + "])",
        "  while true { set v = big() }",
        f"g.rules:5:24: error: {WORK}\n      while true {{ set v = big() }}\n                           ^^^^^\n",
    ),
]


@pytest.mark.parametrize(("declarations", "body", "stderr"), [c[1:] for c in BUDGETS], ids=[c[0] for c in BUDGETS])
def test_work_inside_expressions_runs_out_a_budget_within_limits(
    tmp_path: Path, declarations: str, body: str, stderr: str
) -> None:
    """Each runaway computation inside expressions ends with exit 1 and one located message, under
    1 GB and a timeout: no MemoryError, no traceback."""
    (tmp_path / "g.rules").write_text(game_text(declarations, body), encoding="utf-8")
    code, _, err = limited(tmp_path, "play", "g.rules", "--seed", "1", "--agents", "random")
    assert "Traceback" not in err
    assert (code, err) == (1, stderr)


def test_an_invariant_of_two_bindings_over_long_lists_runs_out_the_budget() -> None:
    """An invariant checked over 99,999 by 99,999 bindings stops at the budget of work, located at a binding."""
    rb = rulecraft.load_text(
        game_text("invariant big(i in 1..99999, j in 1..99999): v + i + j > 0", "  set v = 2"), "g.rules"
    )
    with pytest.raises(RulebookError) as info:
        rb.new_game(check_invariants=True)
    assert info.value.messages == [f"g.rules:3:30: error: {WORK}"]


def test_a_value_of_a_list_shared_ever_deeper_is_refused_by_its_size() -> None:
    """`set v = [v, v]` forty times would hold 2^40 elements written out: refused at a million."""
    rb = rulecraft.load_text(game_text("", "  repeat 40 { set v = [v, v] }"), "g.rules")
    with pytest.raises(RulebookError) as info:
        rb.new_game(trace=False)
    assert info.value.messages == [
        "g.rules:5:15: error: a value of more than 1000000 elements (counting a list each time it appears) "
        "is more than a game may hold: a runaway computation?"
    ]


def test_the_function_memo_is_bounded() -> None:
    """A function remembered for 20,000 different arguments keeps at most MEMO_BUDGET values."""
    rb = rulecraft.load_text(
        game_text(
            "fn f(n: int) = len([n for i in 1..2])",
            "  let total = sum([f(i) for i in 1..20000])\n"
            '  choose by players[0] { option "a" { set v = total } option "b" { } }',
        ),
        "g.rules",
    )
    game = rb.new_game()
    assert 0 < sum(len(values) for values in game.memo) <= MEMO_BUDGET
    game.apply("a")
    assert game.view("P1")["vars"]["v"] == "40000"


def test_distinct_and_list_minus_compare_no_pair_of_values(monkeypatch: pytest.MonkeyPatch) -> None:
    """`distinct` and `-` of 3,000 records look each one up by its key: no record is compared with
    every other (3,000 times 3,000 / 2 comparisons before), and true stays apart from 1."""
    compared = [0]
    equal = Record.__eq__

    def counting(self: Record, other: object) -> bool:
        compared[0] += 1
        return equal(self, other)

    monkeypatch.setattr(Record, "__eq__", counting)
    rb = rulecraft.load_text(
        game_text(
            "",
            "  let rs = [{n: i % 1500} for i in 1..3000]\n"
            "  set v = [len(distinct(rs)), len(rs - rs), len(distinct([1, true, 1, false, 0]))]\n"
            '  choose by players[0] { option "a" { } option "b" { } }',
        ),
        "g.rules",
    )
    game = rb.new_game(trace=False)
    assert game.view("P1")["vars"]["v"] == "[1500, 0, 4]"
    assert compared[0] <= 4 * 3000  # each lookup compares with the one equal value found


def test_the_budget_fuzz_runs_its_cases_under_the_limits_without_a_crash() -> None:
    """A few `fuzz --budgets` cases, each in a child process under 1 GB and the timeout: each loads or
    ends with a located error."""
    summary = fuzz.fuzz(3, seed=22, budgets=True)
    assert summary.cases == 3 and summary.crashes == []
    assert summary.errors >= 1  # the seed's cases run a budget out: the limits were not idle


def test_a_budget_case_that_dies_in_its_child_process_is_a_crash(monkeypatch: pytest.MonkeyPatch) -> None:
    """A child that runs out of memory (or exits by any exception) is reported as a crash with its error."""
    monkeypatch.setattr(fuzz, "_CHILD", "raise MemoryError")
    outcome = fuzz.run_limited("game G players 1..1\nplay { }\n")
    assert outcome.kind == "crash" and "MemoryError" in outcome.detail
