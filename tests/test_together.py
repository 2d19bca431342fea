"""A cooperative game: the players win or lose together (`end game together won`/`lost`), with a team
score (`fn team_score()`); every tool says so, and `simulate` reports the team's results."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
import rulecraft
from rulecraft.authoring.explain import explain
from rulecraft.authoring.fmt import format_text
from rulecraft.cli import main
from rulecraft.mcts import MctsAgent, _Search
from rulecraft.records import read_record, replay
from rulecraft.tools.simulate import report, report_data, simulate

COOP = Path(__file__).resolve().parent / "games" / "coop.rules"


def _played(players: int, seed: int, answer: str) -> rulecraft.Game:
    """A game of Coop in which every player gives the same answer until it ends."""
    game = rulecraft.load(str(COOP)).new_game(players=players, seed=seed)
    while not game.over:
        game.apply(answer)
    return game


def _lost() -> rulecraft.Game:
    """A solo game lost by drawing every turn (the pool goes over 6)."""
    return next(g for g in (_played(1, s, "Draw") for s in range(100)) if g.state.together == "lost")


def test_the_players_win_together_with_a_team_score() -> None:
    """`end game together won`: every player is a winner; the result says so, with `team_score()`."""
    game = _played(2, 0, "Pass")
    result = game.result()
    assert result == {"scores": {"P1": None, "P2": None}, "winners": ["P1", "P2"], "together": "won", "team_score": 10}
    end = game.events[-1]
    assert (end.verb, end.text) == ("end", "together won")


def test_the_players_lose_together() -> None:
    """`end game together lost`: no player is a winner; the team score is still counted."""
    game = _lost()
    result = game.result()
    assert result["together"] == "lost" and result["winners"] == []
    assert result["team_score"] == game.team_score() < 4  # the pool went over 6


def test_a_competitive_game_has_no_together_entry() -> None:
    """The result of a game without the construct is what it always was, and so is its state's JSON."""
    game = rulecraft.load("examples/tutorial.rules").new_game(players=2, seed=1)
    while not game.over:
        game.apply(0)
    assert sorted(game.result()) == ["scores", "winners"]
    assert "together" not in game.rulebook.converter.unstructure(game.state)


def test_play_prints_together_and_the_record_and_replay_keep_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`play` ends with `together: won, score N`; the record's result keeps it; `replay` checks it."""
    record = tmp_path / "r.json"
    assert (
        main(["play", str(COOP), "--players", "2", "--seed", "3", "--agents", "random", "--record", str(record)]) == 0
    )
    last = capsys.readouterr().out.splitlines()[-1]
    data = json.loads(record.read_text(encoding="utf-8"))
    outcome, team = data["result"]["together"], data["result"]["team_score"]
    assert last == f"together: {outcome}, score {team}"
    game = replay(read_record(record), rulebook=rulecraft.load(str(COOP)))
    assert game.result() == data["result"]
    assert main(["replay", str(record)]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == last
    # A record that claims another result is refused, and the message says what the replay found.
    data["result"] = {**data["result"], "together": "lost" if outcome == "won" else "won"}
    record.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(rulecraft.errors.RecordError, match=f"ends with together {outcome} \\(team score {team}\\)"):
        replay(read_record(record), rulebook=rulecraft.load(str(COOP)))


def test_without_a_team_score_the_last_line_says_only_the_outcome(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A cooperative rulebook without `team_score()` ends with `together: lost` (or won), team score None."""
    path = tmp_path / "unscored.rules"
    path.write_text(COOP.read_text(encoding="utf-8").replace("fn team_score()", "fn points()"), encoding="utf-8")
    game = rulecraft.load(str(path)).new_game(players=1, seed=0)
    while not game.over:
        game.apply("Draw")
    assert game.result()["team_score"] is None
    assert main(["play", str(path), "--players", "1", "--seed", "0", "--agents", "random"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] in ("together: lost", "together: won")


def test_simulate_reports_the_team_score_not_seat_win_rates(capsys: pytest.CaptureFixture[str]) -> None:
    """`simulate` on a cooperative rulebook: the team's win rate and its score's distribution, in text and JSON."""
    stats = simulate(str(COOP), 40, players=2, agents=["random"], progress=lambda done: None)
    team = stats.team()
    assert team["won"] + team["lost"] == 40 and 0 < team["won"] < 40 and team["other"] == 0
    scores = sorted(r.team_score for r in stats.results)
    assert team["score"]["min"] == scores[0] and team["score"]["max"] == scores[-1]
    assert team["score"]["q50"] == scores[20]
    assert sum(team["score"]["counts"].values()) == 40
    text = report(stats)
    assert "win rate by seat" not in text and "win rate by agent" not in text
    assert "  team won  " in text and f"({team['won']} of 40 games)" in text
    assert f"team score (40 games): mean {sum(scores) / 40:.1f}," in text
    data = report_data(stats)
    assert "win_rate_by_seat" not in data and data["team"]["won"] == team["won"]
    assert data["team"]["won_rate"]["rate"] == pytest.approx(team["won"] / 40)
    assert data["team"]["score"]["counts"] == team["score"]["counts"]
    # The user's path: the CLI prints the same report, and --json the same data.
    assert main(["simulate", str(COOP), "-n", "40", "--players", "2", "--agents", "random", "--quiet"]) == 0
    assert "the players win or lose together (a cooperative game):" in capsys.readouterr().out


def test_every_player_gets_the_same_return() -> None:
    """A cooperative end gives every player the same reward: MCTS backs up 1 each for a win, 0 for a loss."""
    won, lost = _played(3, 0, "Pass"), _lost()
    assert _Search(won, 0, random.Random(0), MctsAgent())._outcome(won) == [1.0, 1.0, 1.0]
    assert _Search(lost, 0, random.Random(0), MctsAgent())._outcome(lost) == [0.0]


def test_fmt_and_explain_know_the_construct() -> None:
    """The canonical layout keeps `end game together won`; explain says the players win together."""
    text = COOP.read_text(encoding="utf-8")
    assert format_text(text, "coop.rules") == text
    told = explain(rulecraft.load(str(COOP)).program)
    assert "The game ends: the players win together." in told and "the players lose together" in told


def test_won_and_lost_stay_names_elsewhere(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """`won` and `lost` are words of `end game together` only: a variable or a local may bear them."""
    path = tmp_path / "names.rules"
    path.write_text(
        "game G players 1..1\nvar won: int = 0 public\nfn team_score() = won\n"
        "play { let lost = 2  set won = lost  if won == 2 { end game together won } }\n",
        encoding="utf-8",
    )
    assert main(["play", str(path)]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "together: won, score 2"


def test_a_team_score_with_parameters_is_a_located_error() -> None:
    """`team_score` is asked of the whole team, with no arguments: a parameter is refused where it stands."""
    with pytest.raises(rulecraft.errors.RulebookError) as info:
        rulecraft.load_text(
            "game G players 1..2\nfn team_score(p: Player) = 1\nplay { end game together won }\n", "g.rules"
        )
    assert info.value.messages == [
        "g.rules:2:1: error: team_score() is the score of the whole team: it takes no parameters"
    ]


def test_a_cooperative_end_round_trips_through_the_state_and_a_clone() -> None:
    """The outcome is part of the state: its JSON keeps it (as `together`), and so does a clone."""
    game = _played(2, 0, "Pass")
    converter = game.rulebook.converter
    data = json.loads(json.dumps(converter.unstructure(game.state)))
    assert data["together"] == "won"
    again = converter.structure(data)
    assert again == game.state and again.together == "won"
    assert game.clone().result() == game.result()
