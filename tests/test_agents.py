"""Agents decide from what their seat may know: never from another hand or the order of a deck."""

from __future__ import annotations

import copy
import random

import pytest
import rulecraft
from rulecraft.agents import GreedyAgent
from rulecraft.runtime import information
from rulecraft.runtime.game import Game

GUESS = """game Guess players 2..2
enum Colour { red, blue }
card Chip { colour: Colour } label "{colour}"
zone deck: Chip hidden shuffled
zone hand[Player]: Chip owner
proc judge(guess: Colour) {
  if first(hand[players[0]]).colour == guess { end game winners [players[1]] } else { end game winners [players[0]] }
}
setup {
  create 1 Chip { colour: red } in deck  create 1 Chip { colour: blue } in deck
  draw 1 from deck to hand[players[0]]
}
play {
  choose by players[1] prompt "Guess P1's colour" {
    option "red" { judge(red) }
    option "blue" { judge(blue) }
  }
}
"""


def test_a_greedy_guess_of_a_hidden_card_is_a_guess() -> None:
    """P2 guessing the colour of P1's face-down chip is right about half the time, not every time."""
    rb = rulecraft.load_text(GUESS, "guess.rules")
    hits = 0
    for seed in range(60):
        game = rb.new_game(players=2, seed=seed)
        decision = game.current_decision()
        assert decision is not None
        (truth,) = game.view(None)["zones"]["hand[P1]"]
        hits += GreedyAgent(seed).choose(game, decision) == truth
    # A peeking agent scores 60 of 60; these seeded guesses score 29 (a blind guess: 30 on average).
    assert 15 <= hits <= 45


def _twin(game: Game, rng: random.Random) -> Game:
    """The game with the cards its deciding player cannot see exchanged among their places."""
    decision = game.current_decision()
    assert decision is not None and decision.player is not None
    twin = information.permute_hidden(game, decision.player, rng)
    twin.ask_again()
    return twin


GAMES = ["examples/tutorial.rules", "guildhall", "renaissance_man", "valdora"]


@pytest.mark.parametrize("name", GAMES)
def test_greedy_decides_alike_when_hidden_cards_are_exchanged(name: str) -> None:
    """At decisions along a seeded game, exchanging what the decider cannot see leaves the greedy answer as it was."""
    rb = rulecraft.load(name)
    rng = random.Random(name)
    compared = 0
    for seed in range(3):
        game = rb.new_game(players=rb.program.min_players + seed % 2, seed=seed, trace=False)
        for step in range(400):
            if game.over:
                break
            decision = game.current_decision()
            assert decision is not None
            if decision.player is not None and step % 23 == 5 and len(decision.options) > 1:
                agent = GreedyAgent(seed * 1000 + step)
                twin = _twin(game, rng)
                twin_decision = twin.current_decision()
                assert twin_decision is not None and twin_decision.labels == decision.labels
                assert copy.deepcopy(agent).choose(twin, twin_decision) == agent.choose(game, decision)
                compared += 1
            game.apply(decision.options[rng.randrange(len(decision.options))].label)
    assert compared >= 3


@pytest.mark.parametrize("name", GAMES)
def test_a_sampled_world_looks_the_same_to_its_player(name: str) -> None:
    """`sample_hidden` changes nothing its player can see: their view is the same in the sampled world."""
    rb = rulecraft.load(name)
    rng = random.Random(name)
    game = rb.new_game(players=rb.program.max_players, seed=3, trace=False)
    for step in range(150):
        if game.over:
            break
        decision = game.current_decision()
        assert decision is not None
        if decision.player is not None and step % 10 == 0:
            world = information.sample_hidden(game, decision.player, step)
            assert world.view(decision.player) == game.view(decision.player)
        game.apply(decision.options[rng.randrange(len(decision.options))].label)


# P2 may take P1's chip only when it is red: the option shows that it is, but a world sampled
# from P2's seat may deal P1 the blue chip, where taking a red one fails.
TAKE = """game Take players 2..2
enum Colour { red, blue }
card Chip { colour: Colour } label "{colour}"
zone deck: Chip hidden shuffled
zone hand[Player]: Chip owner
setup {
  create 1 Chip { colour: red } in deck  create 1 Chip { colour: blue } in deck
  draw 1 from deck to hand[players[0]]
}
play {
  choose by players[1] prompt "Take?" {
    option "take the red chip" when len(hand[players[0]] where it.colour == red) > 0 {
      let c = choose one from hand[players[0]] where it.colour == red by players[1] prompt "Which?"
      move c to hand[players[1]]
      end game winners [players[1]]
    }
    option "pass" { end game winners [players[0]] }
  }
}
"""


def test_greedy_ranks_an_answer_its_sampled_world_cannot_go_on_from_last() -> None:
    """An option that fails in the world greedy sampled is not taken there, and stops nothing."""
    rb = rulecraft.load_text(TAKE, "take.rules")
    answers = set()
    for seed in range(12):
        game = rb.new_game(players=2, seed=seed)
        decision = game.current_decision()
        if decision is None or len(decision.options) < 2:
            continue
        answers.add(GreedyAgent(seed).choose(game, decision))
    assert answers == {"take the red chip", "pass"}
