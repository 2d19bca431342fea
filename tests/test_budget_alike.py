"""The budget of work (docs/RELIABILITY.md, "Budgets") charges a game alike whatever ran before it in the
process and whether or not someone hears it: work that only some games do (a pure constant, computed by the
first game of a rulebook and kept for the games after it; a `say`'s text, computed only for a game someone
hears) is done apart, with a budget of work and a memo of its own (`context.apart`). So a game near its
budget meets a runaway at the same place in a record and in its replay, traced or not."""

from __future__ import annotations

import pytest
import rulecraft
from rulecraft.agents import RandomAgent

# `total` is remembered (the memo): where a constant or a `say` computed it, the game would find it kept and
# charge less for it later.
ALIKE = """
game Alike players 2..2
var turn: int = 0 public
var sum_of[Player]: int = 0 public
fn total(n: int) = sum([k * k for k in 1..n])
const BIG = total(300) + total(250)
fn score(p: Player) = sum_of[p]
play {
  while turn < 4 {
    say "turn {turn}: {total(200 + turn)} {total(260)}"
    for p in players {
      choose by p prompt "How much?" {
        option "Little" { set sum_of[p] += total(200 + turn) }
        option "Much" { set sum_of[p] += total(250) + BIG }
      }
    }
    set turn += 1
  }
}
"""


def _fresh(tag: str) -> rulecraft.Rulebook:
    """The rulebook loaded anew, its constants not yet computed (a text loaded before is found kept)."""
    return rulecraft.load_text(f"{ALIKE}# {tag}\n", "alike.rules")


def _work_left(rb: rulecraft.Rulebook, trace: bool) -> list[int]:
    game = rb.new_game(players=2, seed=1, trace=trace)
    agent, left = RandomAgent(7), []
    while (decision := game.current_decision()) is not None:
        left.append(game.work_left)
        game.apply(agent.choose(game, decision))
    return [*left, game.work_left]


@pytest.mark.parametrize("trace", [False, True])
def test_the_first_game_of_a_rulebook_is_charged_as_the_games_after_it(trace: bool) -> None:
    rb = _fresh(f"first {trace}")
    first = _work_left(rb, trace)
    assert first == _work_left(rb, trace) == _work_left(rb, trace)
    assert len(first) > 8 and min(first) < 5_000_000 - 500  # (the games did charge work)


def test_a_traced_game_is_charged_as_a_game_nobody_hears() -> None:
    rb = _fresh("traced")
    heard = _work_left(rb, True)
    assert heard == _work_left(rb, False)
    game = rb.new_game(players=2, seed=1, trace=True)
    assert any(e.verb == "say" for e in game.events)  # (the traced game computed the text the other did not)


@pytest.mark.parametrize(("name", "players"), [("guildhall", 2), ("renaissance_man", 3), ("valdora", 3)])
def test_the_bundled_rulebooks_charge_a_traced_game_as_one_nobody_hears(name: str, players: int) -> None:
    rb = rulecraft.load(name)

    def left(trace: bool) -> list[int]:
        game = rb.new_game(players=players, seed=3, trace=trace)
        agent, out = RandomAgent(3), []
        while (decision := game.current_decision()) is not None and len(out) < 120:
            out.append(game.work_left)
            game.apply(agent.choose(game, decision))
        return out

    first = left(False)
    assert first == left(False) == left(True)


RUNAWAY_SAY = """
game Loud players 2..2
var said: int = 0 public
fn score(p: Player) = said
play {
  say "{sum([len([k for k in 1..90000]) for j in 1..60])}"
  choose by players[0] prompt "Go?" {
    option "Go" { set said += 1 }
    option "Stay" { set said += 2 }
  }
}
"""


def test_a_say_that_runs_away_stops_where_it_is_heard() -> None:
    """A `say`'s text has a budget of work of its own, not none: more work than a budget holds stops the
    traced game at the `say`, with the located runaway error; a game nobody hears never computes it."""
    rb = rulecraft.load_text(RUNAWAY_SAY, "loud.rules")
    with pytest.raises(rulecraft.RulebookError) as caught:
        rb.new_game(players=2, seed=1, trace=True)
    assert "units of work without a decision" in str(caught.value)
    assert "loud.rules:6:" in str(caught.value)
    assert rb.new_game(players=2, seed=1, trace=False).current_decision() is not None
