"""A setup's settled prefix (runtime/prefix.py): run once for a rulebook, copied by the games nobody hears,
which end exactly as games that run their whole setup (state, steps, answers, budget of work, generator)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import rulecraft
from rulecraft.agents import RandomAgent, play
from rulecraft.errors import RulebookError
from rulecraft.runtime import game as game_module
from rulecraft.runtime.game import Game
from rulecraft.runtime.prefix import settled_end

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = sorted(
    str(p.relative_to(ROOT)) for d in ("games", "extensions") for p in (ROOT / "examples" / d).glob("*.rules")
)
RULEBOOKS = [*rulecraft.bundled_names(), *EXAMPLES, "examples/tutorial.rules"]


def _load(name: str) -> rulecraft.Rulebook:
    return rulecraft.load(str(ROOT / name) if name.endswith(".rules") else name)


def _now(rb: rulecraft.Rulebook, game: Game) -> tuple[Any, ...]:
    """What a game is at this moment: steps, answers, state, the budget of work left, the generator."""
    return game.steps, list(game.answers), rb.converter.unstructure(game.state), game.work_left, game.state.rng


def _whole(rb: rulecraft.Rulebook, players: int, seed: int | None, **options: Any) -> Game:
    """A game of no trace that runs its whole setup, as before prefixes: the reference. (Each is compared
    from a rulebook's first game on: the first game computes the pure constants, apart: `context.apart`.)"""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(game_module, "prefix_for", lambda *_: None)
        return rb.new_game(players=players, seed=seed, trace=False, **options)


def _played(rb: rulecraft.Rulebook, players: int, seed: int, copied: bool) -> tuple[Any, ...]:
    game = rb.new_game(players=players, seed=seed, trace=False) if copied else _whole(rb, players, seed)
    first = _now(rb, game)
    play(game, [RandomAgent(seed * 7919 + i * 104729 + 1) for i in range(players)], atomic=False)
    return first, _now(rb, game), game.result()


def _prefixes(rb: rulecraft.Rulebook) -> dict[Any, Any]:
    return getattr(rb, "setup_prefixes", {})


@pytest.mark.parametrize("name", RULEBOOKS)
def test_a_game_from_the_prefix_is_the_game_that_runs_its_whole_setup(name: str) -> None:
    rb = _load(name)
    program = rb.program
    for players, seeds in {program.max_players: 1, program.min_players: 2}.items():
        for seed in range(seeds):
            assert _played(rb, players, seed, True) == _played(rb, players, seed, False)
    made = [p is not None for p in _prefixes(rb).values()]
    assert made == [settled_end(program) > 0] * len(made)  # (each game copied one where its setup begins settled)


# The settled prefix ends with a `let` (it only computes: the block's code has no arm after it); a draw,
# which no prefix takes, comes next.
ENDS_IN_LET = """
game Ends players 2..2
card Card { rank: int }
zone deck: Card hidden shuffled
zone hand[Player]: Card owner
var n: int = 0 public
fn score(p: Player) = len(hand[p])
setup {
  create 3 Card { rank: 1 } in deck
  let x = 2
  draw 1 from deck to hand[players[0]]
  set n = x
}
play {
  choose by players[0] prompt "Go?" {
    option "Go" { end game winners [players[0]] }
  }
}
"""


def test_a_prefix_that_ends_inside_an_arm_of_the_setups_code_goes_on_from_where_it_ended() -> None:
    rb = rulecraft.load_text(ENDS_IN_LET, "ends.rules")
    copied, run = rb.new_game(players=2, seed=3, trace=False), _whole(rb, 2, 3)
    assert len(copied.state.zones["hand[P1]"]) == 1 and copied.state.vars["n"] == 2
    assert _now(rb, copied) == _now(rb, run)


REMEMBERS = """
game Remembers players 2..3
card Card { rank: int }
zone deck: Card hidden shuffled
zone pile: Card hidden shuffled
zone hand[Player]: Card owner
var n: int = 0 public
var m: int = 0 public
fn above(k: int) = len([c for c in deck if c.rank > k])
fn score(p: Player) = len(hand[p]) + m
setup {
  for r in 1..4 { create 1 Card { rank: r } in deck }
  create 2 Card { rank: 0 } in pile
  set n = above(1)
  draw 1 from pile to hand[players[0]]
}
play {
  choose by players[0] prompt "Again?" {
    option "Again" { set m = above(2) }
    option "Stop" { end game winners [players[0]] }
  }
  choose by players[0] prompt "End?" {
    option "End" { end game winners [players[0]] }
  }
}
"""


def test_a_game_never_changes_the_prefix_the_next_game_copies() -> None:
    rb = rulecraft.load_text(REMEMBERS, "remembers.rules")
    first = rb.new_game(players=2, seed=1, trace=False)
    (prefix,) = _prefixes(rb).values()
    assert any(prefix.memo)  # (the prefix's end remembers `above(1)`: its memo has a value)
    kept = (rb.converter.unstructure(prefix.state), [dict(m) for m in prefix.memo], dict(prefix.env))
    first.apply("Again")  # it remembers `above(2)` beside `above(1)`, and sets a variable
    first.state.vars["m"] = 99
    assert (rb.converter.unstructure(prefix.state), [dict(m) for m in prefix.memo], dict(prefix.env)) == kept
    assert all(a is not b for a, b in zip(first.memo, prefix.memo, strict=True) if b)
    second, run = rb.new_game(players=2, seed=2, trace=False), _whole(rb, 2, 2)
    assert _now(rb, second) == _now(rb, run)
    second.apply("Again"), run.apply("Again")
    assert _now(rb, second) == _now(rb, run)


def test_the_prefix_is_made_once_for_each_players_and_switches_never_for_each_seed() -> None:
    rb = rulecraft.load_text(REMEMBERS, "remembers.rules")
    games = [rb.new_game(players=2, seed=seed, trace=False) for seed in (0, 1, 12345)]
    assert len(_prefixes(rb)) == 1  # one prefix, whatever the seed: the setup's first statements drew nothing
    assert len({g.state.rng for g in games}) == 3  # (each game its own generator)
    for game, seed in zip(games, (0, 1, 12345), strict=True):
        assert _now(rb, game) == _now(rb, _whole(rb, 2, seed))
    rb.new_game(players=3, seed=0, trace=False)
    rb.new_game(players=2, seed=0, trace=False, check_invariants=True)
    rb.new_game(players=2, seed=None, trace=False)  # no seed: chance is answered from outside
    keys = set(_prefixes(rb))
    assert len(keys) == 4 and {k[0] for k in keys} == {2, 3}
    for players, seed, options in ((3, 4, {}), (2, None, {}), (2, 4, {"check_invariants": True})):
        copied = rb.new_game(players=players, seed=seed, trace=False, **options)
        assert _now(rb, copied) == _now(rb, _whole(rb, players, seed, **options))


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


FAILS = """
game Fails players 2..2
card Card { rank: int }
zone deck: Card hidden shuffled
var n: int = 0 public
fn score(p: Player) = n
setup {
  create 2 Card { rank: 1 } in deck
  WHAT
}
play { end game winners [players[0]] }
"""


@pytest.mark.parametrize(
    "what",
    [
        "set n = [1, 2][5]",  # a failure
        "for i in 1..100000000 { set n = n + i }",  # the budget of work
    ],
)
def test_a_prefix_that_would_fail_fails_each_game_as_a_whole_setup_does(what: str) -> None:
    rb = rulecraft.load_text(FAILS.replace("WHAT", what), "fails.rules")
    messages = []
    for trace in (False, True, False):
        with pytest.raises(RulebookError) as error:
            rb.new_game(players=2, seed=0, trace=trace)
        messages.append(str(error.value))
    assert len(set(messages)) == 1 and "fails.rules:9:" in messages[0]
    assert list(_prefixes(rb).values()) == [None]  # not made: each game runs its setup


def test_a_rulebook_edited_and_loaded_again_makes_its_own_prefix(tmp_path: Path) -> None:
    path = tmp_path / "edited.rules"
    path.write_text(REMEMBERS)
    before = rulecraft.load(str(path)).new_game(players=2, seed=0, trace=False)
    assert len(before.state.cards) == 6
    path.write_text(REMEMBERS.replace("for r in 1..4", "for r in 1..6"))
    rb = rulecraft.load(str(path))
    after = rb.new_game(players=2, seed=0, trace=False)
    assert len(after.state.cards) == 8
    assert _now(rb, after) == _now(rb, _whole(rb, 2, 0))
