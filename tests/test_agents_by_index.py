"""Agents answer their trials by index (`apply(i)`) where the label would name the same option: a
seeded agent plays exactly the game it played when every trial was answered by its label."""

from __future__ import annotations

import math

import pytest
import rulecraft
from rulecraft.agents import GreedyAgent, play
from rulecraft.language.values import Player
from rulecraft.mcts import MctsAgent, _Search
from rulecraft.runtime import information
from rulecraft.runtime.game import Decision, Game
from rulecraft.runtime.information import sample_hidden
from rulecraft.runtime.state import card_with

RULEBOOKS = {"guildhall": 2, "renaissance_man": 2, "valdora": 3}  # each with a number of players it takes


class LabelGreedy(GreedyAgent):
    """The greedy agent as it was: each trial answered by its option's label."""

    def _one_world(self, game: Game, decision: Decision, me: Player) -> list[float]:
        salt = self._below(1 << 62)
        world = sample_hidden(game, me, salt)
        values = []
        for option in decision.options:
            trial = world.clone()
            trial.reseed(salt)
            try:
                trial.apply(option.label, atomic=False)
            except rulecraft.RulebookError:
                values.append(float("-inf"))
            else:
                values.append(self._value(trial, me))
        return values


def _label_greedy_playout(self: _Search, world: Game, decision: Decision) -> str:
    """MCTS's greedy playout step as it was: each trial answered by its option's label."""
    assert decision.player is not None
    who = decision.player
    best: list[str] = []
    best_value = -math.inf
    for option in decision.options:
        trial = world.clone()
        trial.apply(option.label, atomic=False)
        if trial.over and trial.state.unfinished is None:
            value = math.inf if who.index in (trial.state.winners or []) else -math.inf
        else:
            value = float(trial.heuristic(who))
        if value > best_value:
            best, best_value = [option.label], value
        elif value == best_value:
            best.append(option.label)
    return best[self.rng.randrange(len(best))] if best else decision.options[0].label


def _answers(rb: rulecraft.Rulebook, agents: list, seed: int, decisions: int) -> list[tuple[str, str]]:
    game = rb.new_game(players=len(agents), seed=seed, trace=False)
    for _ in range(decisions):
        decision = game.current_decision()
        if decision is None:
            break
        assert decision.player is not None
        game.apply(agents[decision.player.index].choose(game, decision))
    return list(game.answers)


@pytest.mark.parametrize("name", RULEBOOKS)
def test_greedy_answers_as_by_label(name: str) -> None:
    """Seeded greedy games (the whole game) take the same answers as by label, the caches of the
    sampled worlds (`information.content_key`, `with_id`) warm or not."""
    rb = rulecraft.load(name)
    for seed in (1,):
        information._CONTENT_KEYS.clear()
        information._WITH_ID.clear()
        n = RULEBOOKS[name]
        by_index = play(rb.new_game(players=n, seed=seed, trace=False), [GreedyAgent(seed + i) for i in range(n)])
        by_label = play(rb.new_game(players=n, seed=seed, trace=False), [LabelGreedy(seed + i) for i in range(n)])
        assert by_index.answers == by_label.answers
        assert by_index.state == by_label.state


@pytest.mark.parametrize("name", RULEBOOKS)
def test_mcts_greedy_playouts_answer_as_by_label(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Seeded MCTS agents with greedy playouts take the same answers as by label."""
    rb = rulecraft.load(name)
    agents = lambda: [MctsAgent(7 + i, decisions=12, playout="greedy") for i in range(RULEBOOKS[name])]  # noqa: E731
    by_index = _answers(rb, agents(), seed=3, decisions=6)
    monkeypatch.setattr(_Search, "_greedy", _label_greedy_playout)
    by_label = _answers(rb, agents(), seed=3, decisions=6)
    assert by_index == by_label
    assert len(by_index) >= 6


def test_a_kept_card_copy_is_the_copy_made_anew() -> None:
    """`with_id` returns what `card_with(card, id=...)` makes, kept or made anew; `content_key` alike."""
    game = rulecraft.load("guildhall").new_game(players=2, seed=4, trace=False)
    for card in game.state.cards[:20]:
        for cid in (0, 5, card.id):
            assert information.with_id(card, cid) == card_with(card, id=cid)
            assert information.with_id(card, cid) == card_with(card, id=cid)  # (kept)
        information._CONTENT_KEYS.clear()
        fresh = information.content_key(card)
        assert information.content_key(card) == fresh == information._content_text(card)


def test_cards_that_hold_the_same_share_their_copy_at_a_place() -> None:
    """A sampled world deals a card to a new place by a copy kept for what the card holds: two cards
    alike (a deck's copies of one card) share one copy at each place, equal to the one made anew,
    while a card that holds something else has its own."""
    game = rulecraft.load("guildhall").new_game(players=2, seed=4, trace=False)
    cards = game.state.cards
    alike = next((a, b) for a in cards for b in cards if a.id < b.id and card_with(a, id=0) == card_with(b, id=0))
    other = next(c for c in cards if card_with(c, id=0) != card_with(alike[0], id=0))
    a, b = alike
    information._WITH_ID.clear()
    information._CONTENT_KEYS.clear()
    copy = information.with_id(a, 3)
    assert copy == card_with(a, id=3) and copy.id == 3
    assert information.with_id(b, 3) is copy  # (kept for what the card holds, not for the card)
    assert information.with_id(other, 3) == card_with(other, id=3) != copy
