"""A search's sampled worlds and their trials: what a world keeps of its game's remembered values,
what its trials share, and where a trial stops."""

from __future__ import annotations

import pytest
import rulecraft
from rulecraft.agents import GreedyAgent
from rulecraft.runtime import information
from rulecraft.runtime.game import Game
from rulecraft.runtime.information import sample_hidden


def test_a_sampled_world_keeps_the_values_that_depend_only_on_where_cards_are() -> None:
    """A world dealt for a seat (`sample_hidden`) keeps its game's remembered values of the functions
    that read which card is where, never what a card is (`MemoLayout.by_place`): the world deals
    identities and leaves every id at its place, so they are right in it; it forgets the others, into
    empty dicts of its own that its clones share."""
    from rulecraft.agents import RandomAgent
    from rulecraft.compile.memo import unused_seat_dicts
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
    unused = unused_seat_dicts(layout, 2)  # (the dicts of seats 3 and 4: never a value, left empty)
    assert unused and all(world.memo[i] is EMPTY_MEMO for i in unused)
    others = [i for i in range(layout.size) if i not in layout.by_place and i not in unused]
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


# A greedy agent's trials (`Decisions.trial`, set on the clones the agent alone makes) stop at a decision
# of two options or more without labelling its options: they reach the same position, in the same steps,
# as a trial that labels them, and a decision of one option is still taken at once.
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
    """Each answer tried at a seeded game's first decisions, by a trial and by a clone that labels its
    decisions: the same steps, answers, state and value to the agent, the same error; some trials stop
    at a decision left unlabelled (its options are two or more where labelled)."""
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


def test_a_world_deals_alike_whether_its_sorted_cards_were_kept_or_not() -> None:
    """The cards as created are ranked by content once (`information._RANKS`), while the game's list of them
    holds them all, the cards of a group of hidden places sorted by their ranks and kept by the places
    (`information._SORTED`): a world sampled with them kept, made anew, or from a copy of that list is the
    same world."""
    rb = rulecraft.load("guildhall")
    game = rb.new_game(players=2, seed=6, trace=False)
    agents = [GreedyAgent(3), GreedyAgent(4)]
    for n in range(12):
        decision = game.current_decision()
        assert decision is not None and decision.player is not None
        for p in game.players:
            information._SORTED.clear()
            information._RANKS.clear()
            cold = sample_hidden(game, p, 40 + n)
            assert information._SORTED and information._RANKS  # kept
            warm = sample_hidden(game, p, 40 + n)
            apart = game.clone()
            apart.state.created = list(game.state.created)  # (another list: nothing kept for it)
            other = sample_hidden(apart, p, 40 + n)
            assert cold.state == warm.state == other.state
            assert cold.state.created == warm.state.created == other.state.created
        game.apply(agents[decision.player.index].choose(game, decision))


def test_a_search_with_greedy_playouts_plays_alike_with_its_trials_unlabelled(monkeypatch: pytest.MonkeyPatch) -> None:
    """The MCTS agent's greedy playouts judge each answer on a trial (a clone thrown away once judged, as the
    greedy agent's), which stops at its next decision of two options or more unlabelled: the seeded game is
    the one its trials play when every decision of theirs is labelled, and some of them did stop."""
    from rulecraft.agents import make_agents, play
    from rulecraft.runtime.decisions import Decisions

    stopped = [0]
    stop = Decisions._stop_trial

    def counted(self: Decisions, *args: object) -> None:
        stopped[0] += 1
        stop(self, *args)  # type: ignore[arg-type]

    def played(rb: rulecraft.Rulebook) -> tuple[object, ...]:
        game = rb.new_game(players=3, seed=4, trace=True)
        play(game, make_agents(["mcts:iterations=4:playout=greedy"], 3, 4), atomic=False)
        return game.answers, [repr(e) for e in game.events], game.steps, game.state

    rb = rulecraft.load("examples/games/clues.rules")
    monkeypatch.setattr(Decisions, "_stop_trial", counted)
    quick = played(rb)
    assert stopped[0] > 0
    monkeypatch.setattr("rulecraft.runtime.knowledge.two_options", lambda g, values: False)
    stopped[0] = 0
    assert played(rb) == quick
    assert stopped[0] == 0
