"""The cooperative example in the manner of Hanabi (examples/games/clues.rules) and the greedy
agent's options that make it use what clues told: `lookahead` (an answer judged through the
same player's next decision) and `samples` (several worlds the seat could be in).

The game's rules are held by its scenarios (examples/scenarios/clues_*.scenario, run by
tests/test_scenarios.py); here: no leak of what a player cannot see, the agents' options, and
the benchmark script of docs/AGENTS.md's figures.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import rulecraft
from rulecraft.agents import GreedyAgent, make_agent
from rulecraft.cli import main
from rulecraft.errors import GameError
from rulecraft.language.values import Player

ROOT = Path(__file__).resolve().parent.parent
CLUES = ROOT / "examples" / "games" / "clues.rules"


def test_the_soak_finds_no_leak_in_the_game(capsys: pytest.CaptureFixture[str]) -> None:
    """Every decision of seeded games is checked: what a player may do depends only on what it sees and was told."""
    assert main(["soak", str(CLUES), "--players", "3", "--games", "4", "--hidden-every", "1"]) == 0
    assert ", 0 violations" in capsys.readouterr().out


def test_greedy_takes_lookahead_and_samples_and_refuses_bad_values() -> None:
    agent = make_agent("greedy:lookahead=2:samples=3", 0)
    assert isinstance(agent, GreedyAgent) and (agent.lookahead, agent.samples) == (2, 3)
    with pytest.raises(GameError, match="option samples must be a whole number, not '0'"):
        make_agent("greedy:samples=0", 0)
    with pytest.raises(GameError, match=r"unknown option 'depth=1'.*takes lookahead, samples"):
        make_agent("greedy:depth=1", 0)


def told_a_one(seed: int) -> rulecraft.Game:
    """A game at P2's first turn, after P1 told P2 which of its cards are 1s (any 1 plays first)."""
    game = rulecraft.load(CLUES).new_game(players=3, seed=seed)
    game.apply("Clue a number")
    game.apply("P2")
    game.apply("1")
    return game


def test_greedy_with_lookahead_plays_the_card_it_was_told_can_be_played() -> None:
    """P2 knows one of its cards is a 1, which every world it could be in makes playable: the
    menu's "Play a card" is judged by the card it then plays, so greedy plays that 1."""
    for seed in range(3):
        game = told_a_one(seed)
        ones = [c for c in game.state.zones["hand[P2]"] if game.state.cards[c].value == 1]
        assert ones
        agent = make_agent("greedy:lookahead=1:samples=4", seed)
        decision = game.current_decision()
        assert decision is not None and decision.player == Player(1)
        answer = agent.choose(game, decision)
        assert answer == "Play a card"
        game.apply(answer)
        decision = game.current_decision()
        assert decision is not None
        game.apply(agent.choose(game, decision))
        assert game.state.vars["burnt"] == 0 and game.call_fn("team_score", (), None) == 1


def test_plain_greedy_sees_the_menu_options_as_equal() -> None:
    """Without lookahead, no option of the menu changes the state before P2's next decision:
    greedy ranks them alike and its seeded tie-break decides (it does not always play)."""
    answers = set()
    for seed in range(12):
        game = told_a_one(0)
        decision = game.current_decision()
        assert decision is not None
        answers.add(make_agent("greedy", seed).choose(game, decision))
    assert len(answers) > 1


def test_the_team_benchmark_plays_two_games() -> None:
    script = ROOT / "examples" / "benchmarks" / "team.py"
    done = subprocess.run(
        [sys.executable, str(script), str(CLUES), "-n", "2", "--players", "3", "--agents", "greedy:lookahead=3:samples=2"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    lines = done.stdout.splitlines()
    assert lines[0].startswith("game 0 seed 0: ") and lines[1].startswith("game 1 seed 1: ")
    assert lines[-1].startswith("2 games: team score mean ") and "(95 %)" in lines[-1]


def test_greedy_options_are_given_on_the_command_line(capsys: pytest.CaptureFixture[str]) -> None:
    """`--agent-option greedy.samples=2` reaches every greedy seat; a bad value is refused before any game."""
    args = ["simulate", str(CLUES), "-n", "1", "--players", "3", "--agents", "greedy", "--workers", "1"]
    assert main([*args, "--agent-option", "greedy.lookahead=2", "--agent-option", "greedy.samples=2"]) == 0
    assert "greedy:lookahead=2:samples=2" in capsys.readouterr().out
    assert main([*args, "--agent-option", "greedy.samples=x"]) == 2
    assert "option samples must be a whole number, not 'x'" in capsys.readouterr().err
