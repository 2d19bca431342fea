"""Seeded greedy and MCTS games pinned to the answers they gave on main 9fc61d4 (issue 40): making a
search cheaper (its trials, clones, sampled worlds, the collector) must not change one answer."""

from __future__ import annotations

import hashlib

import pytest
import rulecraft
from rulecraft.agents import GreedyAgent, play
from rulecraft.mcts import MctsAgent
from rulecraft.runtime.game import Game


def _digest(game: Game) -> str:
    """The game's answers, steps and winners, in 16 hex digits."""
    return hashlib.sha256(repr((list(game.answers), game.steps, game.state.winners)).encode()).hexdigest()[:16]


@pytest.mark.parametrize(
    ("name", "players", "seed", "digest"),
    [
        ("guildhall", 2, 1, "ef9bf7f4f06d7f7c"),
        ("guildhall", 2, 2, "d42ce6bf38691098"),
        ("valdora", 3, 1, "830b753c75dbd418"),
        ("renaissance_man", 2, 1, "bd0185857e297335"),
    ],
)
def test_greedy_game_as_on_main(name: str, players: int, seed: int, digest: str) -> None:
    rb = rulecraft.load(name)
    game = play(rb.new_game(players=players, seed=seed, trace=False), [GreedyAgent(seed + i) for i in range(players)])
    assert _digest(game) == digest


@pytest.mark.parametrize(
    ("name", "players", "seed", "playout", "digest"),
    [
        ("guildhall", 2, 1, "greedy", "8ef38320091f35e3"),
        ("guildhall", 2, 1, "random", "05952d1be0543e85"),
        ("valdora", 3, 2, "greedy", "bfd4db54afda0a5f"),
    ],
)
def test_mcts_decisions_as_on_main(name: str, players: int, seed: int, playout: str, digest: str) -> None:
    """Twelve decisions of seeded MCTS seats (20 iterations each)."""
    game = rulecraft.load(name).new_game(players=players, seed=seed, trace=False)
    agents = [MctsAgent(seed + i, iterations=20, playout=playout) for i in range(players)]
    for _ in range(12):
        decision = game.current_decision()
        if decision is None:
            break
        assert decision.player is not None
        game.apply(agents[decision.player.index].choose(game, decision))
    assert _digest(game) == digest
