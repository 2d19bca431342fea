"""A search's sampled worlds and their trials: what a world keeps of its game's remembered values,
and what its trials share."""

from __future__ import annotations

import rulecraft
from rulecraft.runtime.game import Game


def test_a_sampled_world_keeps_the_values_that_depend_only_on_where_cards_are() -> None:
    """A world dealt for a seat (`sample_hidden`) keeps its game's remembered values of the functions
    that read which card is where, never what a card is (`MemoLayout.by_place`): the world deals
    identities and leaves every id at its place, so they are right in it; it forgets the others, into
    empty dicts of its own that its clones share."""
    from rulecraft.agents import RandomAgent
    from rulecraft.errors import NO_SPAN
    from rulecraft.language.values import Player
    from rulecraft.runtime.basics import EMPTY_MEMO
    from rulecraft.runtime.information import sample_hidden

    game = Game(rulecraft.load("guildhall"), 2, seed=3, trace=False)
    agent = RandomAgent(3)
    for _ in range(12):
        game.apply(agent.choose(game, game.current_decision()), atomic=False)
    for p in game.players:
        game.heuristic(p)
    layout = game.code.memo_layout
    world = sample_hidden(game, Player(0), 5)
    kept = [i for i in range(layout.size) if world.memo[i] is game.memo[i] and game.memo[i] is not EMPTY_MEMO]
    assert kept and all(i in layout.by_place for i in kept)
    others = [i for i in range(layout.size) if i not in layout.by_place]
    assert any(game.memo[i] is not EMPTY_MEMO for i in others)
    assert all(world.memo[i] is not game.memo[i] and not world.memo[i] for i in others)
    # What a trial finds before it changes anything goes into the world's own dicts, which the trials
    # cloned after it share.
    found = sum(map(len, world.memo))
    trial = world.clone()
    trial.call_fn("moves", (Player(1),), NO_SPAN)  # (it calls `playable`, remembered by seat, not by place)
    trial.heuristic(Player(1))  # (its functions by place, not remembered by the game yet)
    assert any(world.memo[i] for i in others) and sum(map(len, world.memo)) > found + 2
    fresh = world.clone()
    fresh.state_changed()  # (everything forgotten: computed anew)
    for p in game.players:
        assert world.heuristic(p) == fresh.heuristic(p)
