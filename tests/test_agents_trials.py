"""A greedy agent's trials (`Decisions.trial`, set on the clones the agent alone makes) stop at a decision of
two options or more without labelling its options: they reach the same position, in the same steps, as a
trial that labels them, and a decision of one option is still taken at once."""

from __future__ import annotations

import pytest
import rulecraft
from rulecraft.agents import GreedyAgent
from rulecraft.runtime.game import Game

RULEBOOKS = {
    "guildhall": 2,
    "renaissance_man": 3,
    "valdora": 3,
    "examples/games/clues.rules": 3,
}


def _tried(world: Game, i: int, salt: int, trial: bool) -> Game | str:
    game = world.clone()
    game.reseed(salt)
    game.decisions.trial = trial
    try:
        game.apply(i, atomic=False)
    except rulecraft.RulebookError as error:
        return str(error)
    return game


@pytest.mark.parametrize("name", RULEBOOKS)
def test_a_trial_stops_where_a_labelled_trial_stops(name: str) -> None:
    rb = rulecraft.load(name)
    n = RULEBOOKS[name]
    game = rb.new_game(players=n, seed=5, trace=False)
    agents = [GreedyAgent(11 + i) for i in range(n)]
    unlabelled = 0
    for _ in range(14):
        decision = game.current_decision()
        if decision is None:
            break
        for i in range(len(decision.options)):
            quick, full = _tried(game, i, 77, True), _tried(game, i, 77, False)
            if isinstance(full, str):
                assert quick == full
                continue
            assert isinstance(quick, Game)
            assert (quick.steps, quick.answers, quick.state) == (full.steps, full.answers, full.state)
            if full.pending is None or full.pending.player is None:
                assert quick.pending == full.pending
            elif quick.pending is not None and not quick.pending.options:  # stopped, unlabelled
                assert len(full.pending.options) >= 2 and quick.pending.player == full.pending.player
                unlabelled += 1
            else:
                assert quick.pending == full.pending
            # The agent's judgement of the position is the same.
            me = decision.player or game.players[0]
            assert agents[0]._value(quick, me) == agents[0]._value(full, me)
        player = decision.player
        game.apply(agents[player.index].choose(game, decision) if player else decision.options[0].label)
    assert unlabelled > 0


def test_a_real_game_labels_every_decision() -> None:
    """A game (and its clone) is no trial: each decision it waits on has its options, a greedy game's too."""
    rb = rulecraft.load("guildhall")
    game = rb.new_game(players=2, seed=3, trace=False)
    agents = [GreedyAgent(1), GreedyAgent(2)]
    for _ in range(20):
        decision = game.current_decision()
        assert decision is not None and len(decision.options) >= 2
        assert not game.decisions.trial and not game.clone().decisions.trial
        assert decision.player is not None
        game.apply(agents[decision.player.index].choose(game, decision))
