"""A setup's settled prefix (runtime/prefix.py): run once for a rulebook, copied by the games nobody hears,
which end exactly as games that run their whole setup (state, steps, answers, budget of work)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import rulecraft
from rulecraft.agents import RandomAgent, play
from rulecraft.runtime.game import Game

ROOT = Path(__file__).resolve().parent.parent


def _played(rb: rulecraft.Rulebook, players: int, seed: int, trace: bool) -> tuple[Any, ...]:
    game = Game(rb, players, seed, trace=trace)  # (a traced game hears its setup: it runs it all)
    first = (game.steps, list(game.answers), rb.converter.unstructure(game.state))
    play(game, [RandomAgent(seed * 7919 + i * 104729 + 1) for i in range(players)], atomic=False)
    return first, game.steps, list(game.answers), rb.converter.unstructure(game.state), game.result()


@pytest.mark.parametrize(
    ("name", "players"),
    [("examples/games/kuhn_poker.rules", 2), ("examples/games/dominion_first_game.rules", 2), ("guildhall", 3)],
)
def test_a_game_from_the_prefix_is_the_game_that_runs_its_whole_setup(name: str, players: int) -> None:
    rb = rulecraft.load(str(ROOT / name) if name.endswith(".rules") else name)
    for seed in range(3):
        assert _played(rb, players, seed, False) == _played(rb, players, seed, True)


def test_the_settled_statements_of_a_setup_run_once_for_a_rulebook(monkeypatch: pytest.MonkeyPatch) -> None:
    rb = rulecraft.load(str(ROOT / "examples/games/kuhn_poker.rules"))
    rb.new_game(players=2, seed=0, trace=False)
    created: list[str] = []
    original = Game.create

    def create(self: Game, card_type: str, *args: Any) -> None:
        created.append(card_type)
        original(self, card_type, *args)

    monkeypatch.setattr(Game, "create", create)
    game = rb.new_game(players=2, seed=1, trace=False)
    assert created == []  # the three cards were created once, by the prefix
    assert len(game.state.cards) == 3 and game.pending is not None
    rb.new_game(players=2, seed=1, trace=True)  # a traced game hears its setup: it runs it
    assert created == ["Card", "Card", "Card"]
