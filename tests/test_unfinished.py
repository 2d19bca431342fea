"""A game stopped by a guard is over but unfinished: no winner, and every tool says so."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import rulecraft
from rulecraft.authoring.explain import explain
from rulecraft.authoring.fmt import format_text
from rulecraft.cli import main
from rulecraft.errors import RulebookError
from rulecraft.records import read_record, replay
from rulecraft.tools import soak
from rulecraft.tools.simulate import report, simulate

# A race to 3 points that a guard stops after 4 rounds: a coin (the table) gives a point, or not.
RACE = """game Race players 2..2
var points[Player]: int = 0 public
var round: int = 0 public
const ROUND_LIMIT = 4
fn score(p: Player) = points[p]
play {
  while round < ROUND_LIMIT {
    set round += 1
    for p in players {
      let coin = choose one from [0, 1] by table
      set points[p] += coin
      if points[p] >= 3 { end game winners [p] }
    }
  }
  end game unfinished "stopped after {round} rounds"
}
"""


def _race(tmp_path: Path) -> str:
    path = tmp_path / "race.rules"
    path.write_text(RACE, encoding="utf-8")
    return str(path)


def _seed(unfinished: bool) -> int:
    rb = rulecraft.load_text(RACE, "race.rules")
    return next(s for s in range(100) if (rb.new_game(players=2, seed=s).state.unfinished is not None) == unfinished)


def test_a_guard_ends_the_game_unfinished_with_no_winner() -> None:
    """`end game unfinished` ends the game; its result has no winner and says why, in the rulebook's words."""
    game = rulecraft.load_text(RACE, "race.rules").new_game(players=2, seed=_seed(True))
    assert game.over
    result = game.result()
    assert result["winners"] == [] and result["unfinished"] == "stopped after 4 rounds"
    assert set(result["scores"]) == {"P1", "P2"}
    end = game.events[-1]
    assert (end.verb, end.text, end.span.line) == ("end", "unfinished: stopped after 4 rounds", 15)


def test_a_game_won_by_the_rules_has_no_unfinished_entry() -> None:
    """A game that ends by its rules keeps the result it always had: scores and winners."""
    game = rulecraft.load_text(RACE, "race.rules").new_game(players=2, seed=_seed(False))
    assert sorted(game.result()) == ["scores", "winners"] and game.result()["winners"]


def test_the_reason_is_checked_like_a_say() -> None:
    """A name in the reason that means nothing is a located check error."""
    with pytest.raises(RulebookError) as info:
        rulecraft.load_text('game G players 1..1\nplay { end game unfinished "after {rounds}" }\n', "g.rules")
    assert info.value.messages == ["g.rules:2:36: error: unknown name 'rounds'"]


def test_play_prints_unfinished_and_the_record_and_replay_keep_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`play` ends with `unfinished: …`; the record's result says so; `replay` checks it and prints it."""
    race, record = _race(tmp_path), tmp_path / "r.json"
    seed = str(_seed(True))
    assert main(["play", race, "--seed", seed, "--agents", "random", "--record", str(record)]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "unfinished: stopped after 4 rounds"
    data = json.loads(record.read_text(encoding="utf-8"))
    assert data["result"]["winners"] == [] and data["result"]["unfinished"] == "stopped after 4 rounds"
    game = replay(read_record(record), rulebook=rulecraft.load(race))
    assert game.result() == data["result"]
    assert main(["replay", str(record), "--trace"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[-1] == "unfinished: stopped after 4 rounds"
    assert any(line.startswith("end     unfinished: stopped after 4 rounds  @ ") for line in out)


def test_a_record_that_claims_a_winner_for_an_unfinished_game_is_refused(tmp_path: Path) -> None:
    """Replay compares the whole result: a winner where the game stopped unfinished is a mismatch."""
    race, record = _race(tmp_path), tmp_path / "r.json"
    assert main(["play", race, "--seed", str(_seed(True)), "--agents", "random", "--record", str(record)]) == 0
    data = json.loads(record.read_text(encoding="utf-8"))
    data["result"] = {"scores": data["result"]["scores"], "winners": ["P1"]}
    record.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(rulecraft.errors.RecordError, match=r"ends with unfinished \(stopped after 4 rounds\)"):
        replay(read_record(record), rulebook=rulecraft.load(race))


def test_simulate_counts_unfinished_games_apart(tmp_path: Path) -> None:
    """Unfinished games are counted by reason; they give no seat a win."""
    stats = simulate(_race(tmp_path), 20, agents=["random"], progress=lambda done: None)
    unfinished = stats.unfinished()
    assert 0 < unfinished["stopped after 4 rounds"] < 20 and set(unfinished) == {"stopped after 4 rounds"}
    won = sum(1 for r in stats.results if r.winners)
    assert won + unfinished["stopped after 4 rounds"] == 20
    assert sum(stats.win_rate_by_seat().values()) == pytest.approx(won / 20)
    text = report(stats)
    assert f"unfinished (stopped by a guard, no winner): {20 - won} of 20 games" in text
    assert f"  {20 - won} stopped after 4 rounds" in text


def test_soak_counts_unfinished_games_apart(tmp_path: Path) -> None:
    """A soak run tells games that ended by the rules from games a guard stopped."""
    summary = soak.soak(_race(tmp_path), games=20, seed=0)
    assert summary.findings == []
    assert summary.finished > 0 and summary.unfinished > 0 and summary.finished + summary.unfinished == 20


def test_fmt_and_explain_know_the_construct() -> None:
    """The canonical layout keeps `end game unfinished`; explain says the game stops with no winner."""
    assert format_text(RACE, "race.rules") == RACE
    text = explain(rulecraft.load_text(RACE, "race.rules").program)
    assert "The game stops unfinished, with no winner: \u201cstopped after {round} rounds\u201d" in text


def test_a_random_renaissance_man_game_stops_unfinished_after_60_rounds(capsys: pytest.CaptureFixture[str]) -> None:
    """Random players never make a Master: the guard stops the game, and `play` says so, with no winner."""
    assert main(["play", "renaissance_man", "--players", "2", "--seed", "7", "--agents", "random"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "unfinished: stopped after 60 rounds"


@pytest.mark.parametrize(
    ("game", "guard"),
    [
        ("guildhall", 'end game unfinished "stopped after {rounds} rounds"'),
        ("renaissance_man", 'end game unfinished "stopped after {round} rounds"'),
        ("valdora", 'if not ending { end game unfinished "stopped after {round} rounds" }'),
    ],
)
def test_each_bundled_round_guard_stops_its_game_unfinished(game: str, guard: str) -> None:
    """Guildhall (200 rounds), Renaissance Man (60) and Valdora (100) stop a game unfinished, not won."""
    source = rulecraft.load(game).program.sources
    text = next(body for name, body in source.items() if name.endswith(f"{game}.rules"))
    assert [line.strip() for line in text.splitlines() if "end game unfinished" in line] == [guard]
