"""A search's trial (`Game.apply(trial=True)`): the game is only judged after the answer, so a
player's decision of several options is made with the first few, enough to know it has several;
the rules run as they would, and a decision of one option is taken at once as in any game."""

from __future__ import annotations

import rulecraft
from rulecraft.runtime.game import Game

RULES = """game T players 2..2
card Chip { n: int } label "chip {n}"
zone pile: Chip public
zone spare: Chip public
zone hand[Player]: Chip owner
var turn: int = 0 public

setup {
  create 3 Chip { n: 1 } in pile
  create 1 Chip { n: 1 } in spare
  create 1 Chip { n: 2 } in spare
  for n in 3..6 { create 1 Chip { n: n } in hand[players[0]] }
}

play {
  let a = players[0]
  let b = players[1]
  choose by a prompt "Start" {
    option "alike" { set turn = 1 }
    option "two zones" { set turn = 2 }
    option "by place" { set turn = 3 }
  }
  if turn == 1 { let c = choose one from pile by b  move c to hand[b] }
  if turn == 2 { let c = choose one from pile + spare by b  move c to hand[b] }
  if turn == 3 { let c = choose one from hand[a] by b  move c to hand[b] }
  choose by a prompt "End" { option "x" { } option "y" { } }
}
"""


def _both(game: Game, answer: int) -> tuple[Game, Game]:
    full, trial = game.clone(), game.clone()
    full.apply(answer, atomic=False)
    trial.apply(answer, atomic=False, trial=True)
    return full, trial


def test_a_trial_runs_the_rules_as_a_game_and_stops_where_it_would() -> None:
    game = Game(rulecraft.load_text(RULES, "t.rules"), 2, seed=1)
    offered = {}
    for i, option in enumerate(game.current_decision().options):
        full, trial = _both(game, i)
        assert (trial.state, trial.steps, trial.answers) == (full.state, full.steps, full.answers)
        f, t = full.current_decision(), trial.current_decision()
        assert (t.player, t.prompt) == (f.player, f.prompt)
        assert (len(t.options) > 1) == (len(f.options) > 1)
        offered[option.label] = (f.prompt, len(f.options), len(t.options))
    # Three chips alike in one zone are one option: taken at once, in the trial as in the game.
    assert offered["alike"] == ("End", 2, 2)
    # Alike chips in two zones are two options ('chip 1 in pile', 'chip 1 in spare'): all made.
    assert offered["two zones"] == ("Choose", 3, 3)
    # Four cards offered by their places: the trial made two of the four options.
    assert offered["by place"] == ("Choose", 4, 2)


def test_a_game_not_in_trial_makes_every_option() -> None:
    game = Game(rulecraft.load_text(RULES, "t.rules"), 2, seed=1)
    game.apply("by place")
    assert game.legal_answers() == [f"card {k} of hand[P1]" for k in (1, 2, 3, 4)]


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


def test_a_worlds_shuffle_is_the_generators_own() -> None:
    """`information.shuffle` (CPython's `Random.shuffle` written out) gives the order `Random.shuffle`
    gives, from the same state, and leaves the generator where it leaves it: if a Python changes its
    shuffle, this fails, and sampled worlds must go back to `rng.shuffle`."""
    import random

    from rulecraft.runtime.information import shuffle

    for seed in range(40):
        for n in (0, 1, 2, 3, 7, 64, 65, 101, 257):
            mine, its = random.Random(seed), random.Random(seed)
            a, b = list(range(n)), list(range(n))
            shuffle(a, mine)
            its.shuffle(b)
            assert a == b
            assert mine.getstate() == its.getstate()
