"""The command line as Python users expect it: usage errors exit 2 with one line, no file is lost,
progress stays off logs, help everywhere, and the seed of a game played without `--seed` is a secret."""

from __future__ import annotations

import argparse
import io
import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from importlib.metadata import version
from pathlib import Path

import pytest
import rulecraft
from rulecraft import cli
from rulecraft.authoring.fmt import format_text
from rulecraft.cli import main
from rulecraft.console import Whole, progress, shows_progress

ROOT = Path(__file__).resolve().parent.parent
TUTORIAL = str(ROOT / "examples" / "tutorial.rules")
MESSY = "game G players 1..2\nconst XS = [1,2]\nplay {   }\n"


def subcommands() -> dict[str, argparse.ArgumentParser]:
    """Every subcommand's parser, found in the command line's own parser (a new one is covered at once)."""
    parser = cli._parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(sub.choices)


def numeric_flags() -> Iterator[tuple[str, argparse.Action]]:
    for name, p in subcommands().items():
        for action in p._actions:
            if isinstance(action.type, Whole):
                yield name, action


def bad_values(action: argparse.Action) -> list[str]:
    assert isinstance(action.type, Whole)
    return [str(action.type.low - 1), str(action.type.high + 1), "many", "1.5", "9" * 5000]


def positionals(p: argparse.ArgumentParser) -> list[str]:
    """Placeholder values for the required positional arguments (the flag is refused before they are read)."""
    return ["x" for a in p._actions if not a.option_strings and a.nargs in (None, "+")]


CASES = [
    (name, action, value)
    for name, action in numeric_flags()
    for value in bad_values(action)
    if not (action.nargs == "*" and value.startswith("-"))  # `--players -1` reads as a flag, refused as such
]


def test_every_numeric_flag_is_range_checked() -> None:
    """No flag of any command takes a bare int or float: each numeric flag has a range."""
    loose = [
        f"{name} {'/'.join(a.option_strings)}"
        for name, p in subcommands().items()
        for a in p._actions
        if a.type in (int, float)
    ]
    assert loose == []
    assert len({(name, a.dest) for name, a in numeric_flags()}) >= 20


@pytest.mark.parametrize(
    ("command", "action", "value"), CASES, ids=[f"{n} {'/'.join(a.option_strings)} {v}" for n, a, v in CASES]
)
def test_a_numeric_flag_out_of_range_is_a_usage_error(
    command: str, action: argparse.Action, value: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Exit 2, and one line naming the flag and the range it allows; never a traceback."""
    flag = action.option_strings[0]
    assert main([command, *positionals(subcommands()[command]), flag, value]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert isinstance(action.type, Whole)
    shown = repr(value) if len(value) <= 40 else repr(value[:40]) + "…"
    assert err.splitlines()[-1] == (
        f"rulecraft {command}: error: argument {'/'.join(action.option_strings)}: "
        f"{shown} is not a whole number from {action.type.low} to {action.type.high:,}"
    )


@pytest.mark.parametrize(
    "argv",
    [
        ["bench", "--games-per-run", "0"],
        ["bench", "--repeats", "0"],
        ["soak", "--workers", "0"],
        ["fuzz", "--cases", "-3"],
    ],
)
def test_the_installed_command_exits_2_on_bad_usage(argv: list[str]) -> None:
    """The real entry point (a new process) exits 2 with argparse's message, before any work."""
    out = subprocess.run(
        [sys.executable, "-m", "rulecraft", *argv], capture_output=True, text=True, timeout=120, check=False
    )
    assert out.returncode == 2
    assert "Traceback" not in out.stderr
    assert f"error: argument {argv[1]}:" in out.stderr.splitlines()[-1]


def test_version() -> None:
    """`rulecraft --version` prints the installed version."""
    out = subprocess.run(
        [sys.executable, "-m", "rulecraft", "--version"], capture_output=True, text=True, timeout=60, check=False
    )
    assert out.returncode == 0
    assert out.stdout.strip() == f"rulecraft {version('rulecraft')}"


def test_every_command_and_argument_has_help() -> None:
    """`rulecraft COMMAND --help` describes the command and every one of its arguments."""
    parser = cli._parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    listed = {choice.dest for choice in sub._choices_actions if choice.help}
    assert listed == set(sub.choices)
    for name, p in sub.choices.items():
        assert p.description, name
        missing = [a.dest for a in p._actions if not a.help]
        assert missing == [], name


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["soak", TUTORIAL, "--players", "9", "--games", "2"], "--players 9: Market is played by 2 to 4 players"),
        (["bench", TUTORIAL, "--players", "1", "--games-per-run", "1"], "--players 1: Market is played by 2 to"),
        (["play", TUTORIAL, "--players", "5"], "--players 5: Market is played by 2 to 4 players"),
        (["trace", TUTORIAL, "--players", "5"], "--players 5: Market is played by 2 to 4 players"),
        (["play", TUTORIAL, "--agents", "greedy,wizard"], "--agents: unknown agent 'wizard'"),
        (["play", TUTORIAL, "--table", "--seed", "3"], "--table is a game with no seed"),
    ],
)
def test_a_player_count_or_agent_the_game_cannot_take_is_a_usage_error(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Checked against the rulebook before anything is played: exit 2, one line, not a violation."""
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert err == f"rulecraft {argv[0]}: error: " + err.split("error: ", 1)[1]
    assert message in err and len(err.splitlines()) == 1
    assert "VIOLATION" not in out + err


def test_more_workers_than_games_are_clamped_with_a_note(capsys: pytest.CaptureFixture[str]) -> None:
    """`simulate -n 2 --workers 100` uses 2 processes and says so."""
    assert main(["simulate", TUTORIAL, "-n", "2", "--workers", "100", "--top", "0"]) == 0
    err = capsys.readouterr().err
    assert "note: --workers 100: 2 games need only 2" in err
    assert "with 2 worker(s)" in err


# ---------------------------------------------------------------------------- no file is lost


def test_play_refuses_to_write_a_record_over_a_file_that_is_not_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--record tutorial.rules` leaves the rulebook as it is, even with --force."""
    rulebook = tmp_path / "tutorial.rules"
    rulebook.write_text(Path(TUTORIAL).read_text(encoding="utf-8"), encoding="utf-8")
    before = rulebook.read_bytes()
    for force in ([], ["--force"]):
        assert main(["play", str(rulebook), "--seed", "1", "--record", str(rulebook), *force]) == 2
        assert "is not a record; it is left as it is" in capsys.readouterr().err
    assert rulebook.read_bytes() == before


def test_play_replaces_a_record_of_the_game_only_with_force(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A record of the same game is replaced with --force, and kept without it; another game's never."""
    record = tmp_path / "game.json"
    assert main(["play", TUTORIAL, "--seed", "1", "--record", str(record)]) == 0
    first = record.read_bytes()
    assert main(["play", TUTORIAL, "--seed", "2", "--record", str(record)]) == 2
    assert "a record of this game is there already; give --force to replace it" in capsys.readouterr().err
    assert record.read_bytes() == first
    assert main(["play", TUTORIAL, "--seed", "2", "--record", str(record), "--force"]) == 0
    assert json.loads(record.read_text(encoding="utf-8"))["seed"] == 2
    assert main(["play", "guildhall", "--seed", "2", "--record", str(record), "--force"]) == 2
    assert "a record of another game (tutorial)" in capsys.readouterr().err


def test_fmt_diff_previews_and_writes_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`fmt --diff` (without --check) prints the changes, exits 0 and leaves the file as it is."""
    path = tmp_path / "messy.rules"
    path.write_text(MESSY, encoding="utf-8")
    before = path.read_bytes()
    assert main(["fmt", "--diff", str(path)]) == 0
    out = capsys.readouterr().out
    assert "-play {   }" in out and "+play { }" in out
    assert path.read_bytes() == before
    assert main(["fmt", "--diff", "--check", str(path)]) == 1
    assert path.read_bytes() == before


def test_fmt_replaces_a_file_at_once_and_keeps_its_mode(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The new text goes to a temporary file renamed over the old one: a failure leaves the old text."""
    path = tmp_path / "messy.rules"
    path.write_text(MESSY, encoding="utf-8")
    path.chmod(0o640)
    before = path.read_bytes()

    def fail(src: str, dst: str) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", fail)
    with pytest.raises(OSError):
        main(["fmt", str(path)])
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["messy.rules"]  # no temporary file left
    monkeypatch.undo()
    assert main(["fmt", str(path)]) == 0
    assert path.read_text(encoding="utf-8") == format_text(MESSY)
    assert path.stat().st_mode & 0o777 == 0o640


# ---------------------------------------------------------------------------- progress and output


def test_progress_shows_only_on_a_terminal_and_not_when_quiet() -> None:
    """Off a terminal (a log, a pipe) or with --quiet there is no bar."""

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    assert shows_progress(False, Terminal())
    assert not shows_progress(True, Terminal())
    assert not shows_progress(False, io.StringIO())


def test_progress_draws_on_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    """On a terminal the bar is drawn (tqdm) and erased at the end."""

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    screen = Terminal()
    monkeypatch.setattr(sys, "stderr", screen)
    monkeypatch.setattr("rulecraft.console.shows_progress", lambda quiet=False, stream=None: True)
    with progress(3, "games", "simulate") as advance:
        for _ in range(3):
            advance(1)
    # tqdm waits a second before it draws (`delay`), so a bar may or may not have been drawn: when
    # it was, it names the work; nothing else ever goes to stderr.
    assert screen.getvalue() == "" or "simulate" in screen.getvalue()


def test_long_commands_print_no_progress_into_a_log(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """soak, fuzz and simulate, with stderr captured (not a terminal), print their results only."""
    assert main(["soak", TUTORIAL, "--games", "2", "--out", str(tmp_path)]) == 0
    assert main(["fuzz", "--cases", "3", "--out", str(tmp_path)]) == 0
    assert main(["simulate", TUTORIAL, "-n", "2", "--quiet", "--top", "0"]) == 0
    err = capsys.readouterr().err
    assert err == ""


def test_bench_json_is_machine_readable(capsys: pytest.CaptureFixture[str]) -> None:
    """`bench --json` prints one JSON document with the figures of each game."""
    assert main(["bench", TUTORIAL, "--games-per-run", "1", "--repeats", "1", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    (game,) = data["games"]
    assert game["games_per_run"] == 1 and game["play_trace"]["games_per_s"]["median"] > 0


def test_soak_totals_names_the_line_of_bad_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A bad line in a file of runs is named by its number, not always line 1."""
    runs = tmp_path / "runs.jsonl"
    good = {"rulebook": "t", "players": [2], "max_decisions": 1, "hidden_every": 0, "first_seed": 0, "games": 1}
    runs.write_text(json.dumps(good) + "\n\n" + '{"rulebook": \n', encoding="utf-8")
    assert main(["soak", "--totals", str(runs)]) == 1
    assert capsys.readouterr().err.startswith(f"{runs}:3:")


def test_a_failing_expect_still_prints_the_trace(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The author sees what happened up to the line that fails, and the located error."""
    scenario = tmp_path / "s.scenario"
    (tmp_path / "tutorial.rules").write_bytes(Path(TUTORIAL).read_bytes())  # a scenario names a game beside it
    scenario.write_text(
        'game tutorial.rules\nplayers 2\nseed 1\nanswer "Stock a ware"\nexpect turns_left == 99\n', encoding="utf-8"
    )
    assert main(["trace", "--scenario", str(scenario)]) == 1
    out, err = capsys.readouterr()
    assert "choose  P1 Stock a ware  [Your turn]" in out
    assert out.rstrip().endswith("pending P1: Stock which ware? [1 of cups | 4 of cups | 2 of coins]")
    assert err.startswith(f"{scenario}:5:8: error: expected turns_left == 99, but turns_left is 6")


def test_a_failing_answer_still_prints_the_trace(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """An answer that is not an option shows the trace up to it, then the error."""
    scenario = tmp_path / "s.scenario"
    (tmp_path / "tutorial.rules").write_bytes(Path(TUTORIAL).read_bytes())
    scenario.write_text('game tutorial.rules\nseed 1\nanswer "Stock a ware", "9 of cups"\n', encoding="utf-8")
    assert main(["trace", "--scenario", str(scenario)]) == 1
    out, err = capsys.readouterr()
    assert "choose  P1 Stock a ware  [Your turn]" in out
    assert err.startswith(f"{scenario}:3:1: error:") and "9 of cups" in err


# ---------------------------------------------------------------------------- human play


def human(monkeypatch: pytest.MonkeyPatch, lines: list[str]) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("".join(f"{line}\n" for line in lines)))


def test_the_hand_is_listed_in_the_order_of_the_options(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """When the options are cards, the view lists them in the same order as the numbers."""
    human(monkeypatch, ["1", "quit"])
    assert main(["play", TUTORIAL, "--seed", "1", "--agents", "human,random"]) == 0
    out = capsys.readouterr().out
    question = out.split("P1: Stock which ware?\n", 1)[1]
    options = [line.split(". ", 1)[1] for line in question.splitlines()[:3]]
    view = out.split("P1: Stock which ware?")[0].rsplit("-- view of P1 --", 1)[1]
    hand = next(line for line in view.splitlines() if "hand[P1]:" in line).split(": ", 1)[1].split(", ")
    assert hand == options == ["1 of cups", "4 of cups", "2 of coins"]


def test_help_view_and_quit_work_at_any_prompt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`?` lists what may be typed, `view` shows the view again, `quit` stops with the record saved."""
    record = tmp_path / "game.json"
    human(monkeypatch, ["?", "help", "view", "Stock a ware", "view", "quit"])
    assert main(["play", TUTORIAL, "--seed", "1", "--agents", "human,random", "--record", str(record)]) == 0
    out = capsys.readouterr().out
    assert out.count("  view: show your view again") == 2
    assert f"quit: stop here; the record {record} keeps the game" in out
    assert out.count("-- view of P1 --") == 4  # two prompts, each shown once and once more on `view`
    saved = json.loads(record.read_text(encoding="utf-8"))
    assert [a["answer"] for a in saved["answers"] if a["by"] == "P1"] == ["Stock a ware"]
    assert "result" not in saved
    assert out.rstrip().endswith(
        f"quit: the game is saved in {record} ({len(saved['answers'])} answers so far); "
        f"go on with: rulecraft play --resume {record}"
    )
    human(monkeypatch, ["1", "1"])
    assert main(["play", "--resume", str(record), "--agents", "random"]) == 0
    assert capsys.readouterr().out.splitlines()[-1].startswith("winner")


def test_quit_without_a_record_says_the_game_is_not_kept(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    human(monkeypatch, ["quit"])
    assert main(["play", TUTORIAL, "--seed", "1", "--agents", "human"]) == 0
    assert "it was not recorded: play with --record FILE to keep it" in capsys.readouterr().out


# ---------------------------------------------------------------------------- the seed is a secret


def test_a_game_without_a_seed_draws_a_secret_one(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """128 bits from the operating system: kept in the record, different every game, never in a view."""
    seeds = []
    for k in range(2):
        record = tmp_path / f"g{k}.json"
        assert main(["play", TUTORIAL, "--record", str(record)]) == 0
        data = json.loads(record.read_text(encoding="utf-8"))
        seeds.append(data["seed"])
        assert data["options"]["agent_seed"] != data["seed"]
    assert seeds[0] != seeds[1] and all(s > 2**64 for s in seeds)  # 2**-64 chance of a false failure
    capsys.readouterr()
    assert main(["replay", str(tmp_path / "g0.json"), "--as", "P1", "--until", "3"]) == 0
    shown = capsys.readouterr().out
    assert str(seeds[0]) not in shown and str(seeds[0] & (2**64 - 1)) not in shown
    game = rulecraft.load(TUTORIAL).new_game(players=2, seed=seeds[0])
    for who in ("P1", "P2"):
        assert str(seeds[0]) not in json.dumps(game.view(who))


def test_every_bit_of_a_long_seed_counts() -> None:
    """Two seeds that differ only above the 64th bit deal differently (a 128-bit seed is not cut to 64)."""
    rb = rulecraft.load(TUTORIAL)
    low = 12345
    deals = {json.dumps(rb.new_game(players=2, seed=s).view(None)["zones"]) for s in (low, low + 2**64, low + 2**100)}
    assert len(deals) == 3


def test_play_shows_a_newcomer_what_the_game_was_and_how_to_see_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The README's first command says how many decisions each seat made and how to step through a
    game in the viewer, before the scores; the last line is still the winner. With --record it
    names the record to view."""
    assert main(["play", "examples/tutorial.rules", "--seed", "1", "--agents", "greedy"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert re.fullmatch(r"\d+ decisions \(P1 \d+, P2 \d+\)(, \d+ draws of the table)?", lines[0])
    assert lines[1] == "to step through a game in a browser: add --record game.json, then rulecraft view game.json"
    assert lines[-1].startswith(("winner: ", "winners: "))
    record = tmp_path / "g.json"
    assert main(["play", "examples/tutorial.rules", "--seed", "1", "--record", str(record)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1] == f"recorded in {record}: rulecraft view {record} steps through it in a browser"
