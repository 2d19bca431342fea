"""The game's public hooks: the typed pending ask, and editing a position before play."""

from __future__ import annotations

import rulecraft
from rulecraft.errors import NO_SPAN
from rulecraft.language.values import CardRef, ZoneRef
from rulecraft.runtime.asks import ChooseAsk, DrawAsk, MenuAsk, UseAsk
from rulecraft.runtime.game import Game

from .test_runtime import load


def test_a_choice_is_a_choose_ask_offering_its_values() -> None:
    """`choose one from row` is a ChooseAsk whose offered values are the cards of the row."""
    rb = load("""
setup { create 1 Chip { colour: red, n: 1 } in row  create 1 Chip { colour: blue, n: 2 } in row }
play { let c = choose one from row by players[0] move c to hand[players[0]] }
""")
    ask = rb.new_game(players=1).pending_ask()
    assert isinstance(ask, ChooseAsk)
    assert ask.offered == (CardRef(0), CardRef(1))


def test_a_menu_is_a_menu_ask_with_its_options() -> None:
    """`choose by p { option … }` is a MenuAsk that carries the menu, conditions and all."""
    rb = load("""
play {
  choose by players[0] {
    option "Pass" { }
    option "Score" when false { set points[players[0]] = 1 }
    option "Wait" { }
  }
}
""")
    ask = rb.new_game(players=1).pending_ask()
    assert isinstance(ask, MenuAsk)
    assert [o.label for o in ask.menu.options] == ["Pass", "Score", "Wait"]
    assert ask.decision.labels == ["Pass", "Wait"]


def test_an_ability_is_a_use_ask_that_knows_a_tier_answer() -> None:
    """`use` is a UseAsk; an answer written as a tier's option is recognised as naming a tier."""
    rb = load("""
ability take(p: Player) "Take chips" { tier 1 "Score" { set points[p] += 1 } tier 2 "More" { } }
play { use take(players[0]) upto 1 }
""")
    ask = rb.new_game(players=1).pending_ask()
    assert isinstance(ask, UseAsk)
    assert ask.decision.labels == ["no ability", "tier 1: Score"]
    assert ask.names_a_tier("tier 2: More") and not ask.names_a_tier("no ability")


def test_a_draw_the_table_answers_is_a_draw_ask_from_and_to() -> None:
    """Without a seed, a draw waits on the table: a DrawAsk naming its source and destination zones."""
    rb = load("""
setup { create 1 Chip { colour: red, n: 1 } in bag  create 1 Chip { colour: blue, n: 2 } in bag }
play { draw 1 from bag to hand[players[0]] }
""")
    ask = rb.new_game(players=1, seed=None).pending_ask()
    assert isinstance(ask, DrawAsk)
    assert (ask.source, ask.destination) == ("bag", "hand[P1]")


def test_no_ask_when_the_game_is_over() -> None:
    """A game that is over asks nothing."""
    rb = load("play { }")
    assert rb.new_game(players=1).pending_ask() is None


def test_before_play_edits_the_position_between_setup_and_play() -> None:
    """`before_play` runs after setup and before play: the card it moves is the one play offers,
    and the rules fire after the edit as after any step."""
    rb: rulecraft.Rulebook = load("""
setup {
  create 1 Chip { colour: green, n: 3 } in row
  create 1 Chip { colour: red, n: 1 } in bag
  create 1 Chip { colour: blue, n: 2 } in bag
}
rule scored() when len(row) > 1 and points[players[0]] == 0 { set points[players[0]] = 7 }
play { let c = choose one from row by players[0] move c to hand[players[0]] }
""")
    seen: list[int] = []

    def edit(g: Game) -> None:
        seen.append(len(g.state.zones.get("bag", [])))
        g.move_cards([CardRef(2)], ZoneRef("row", ()), bottom=False, span=NO_SPAN)

    game = Game(rb, 1, 0, before_play=edit)
    assert seen == [2]
    assert game.current_decision() is not None and game.current_decision().labels == ["green 3", "blue 2"]
    assert game.state.vars["points[P1]"] == 7
