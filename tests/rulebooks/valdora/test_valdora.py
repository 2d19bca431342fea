"""Valdora (rulebooks/valdora.rules): the rulebook's worked examples, every action, movement,
payments, refusals, the end of the game, and invariants over seeded games.

A scenario is a small rulebook that includes the bundled Valdora and adds a second `setup`
block arranging the table (setups run in order, so it runs after the real setup); the game
then starts at P1's first move. Gems and coins are only ever moved, never made, so the
scenarios keep the 78 gems and 30 silver.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import rulecraft
from rulecraft.agents import GreedyAgent, RandomAgent, play
from rulecraft.records import replay
from rulecraft.render import trace_lines



def run_script(game: rulecraft.Game, answers: list[str | int]) -> None:
    """Answer the pending decisions with the given labels (or option indexes, for card ids), in order."""
    for answer in answers:
        assert game.current_decision() is not None, f"the game asks nothing, but the script says {answer!r}"
        game.apply(answer)

ROOT = Path(__file__).resolve().parents[3]

PRELUDE = """
include "valdora.rules"
zone aside: Craftsman public   # craftsmen taken out of the guild to arrange a scenario
const P1 = players[0]
const P2 = players[1]
const P3 = players[2]
# A gem from a deposit other than `keep`; an equipment card from catalogue A by its code.
fn gem_from(g: Gem, keep: Space) = first(flatten([site[x] for x in Space if x != keep]) where it.gem == g)
fn catalogue(code: str) = first(eq_right[A] where it.code == code)
fn book_page(k: Craft) = first(co_right[C] where patron(it) == k)
proc give_coins(p: Player, n: int) {
  set bank += silver[p] - n
  set silver[p] = n
}
proc equip(p: Player, code: str, side: Side) {
  let c = catalogue(code)
  move c to gear[p]
  show_equipment(c, side)
}
proc leave_in_guild(k: Craft, n: int) {
  move top(guild[k], len(guild[k]) - n) to aside
}
"""


def scenario(setup: str, players: int = 3, seed: int = 1) -> rulecraft.Game:
    rb = rulecraft.load_text(PRELUDE + "setup {\n" + setup + "\n}\n", "scenario.rules")
    return rb.new_game(players=players, seed=seed)


def played(game: rulecraft.Game, answers: list[str | int], title: str) -> str:
    """Run the answers and render the trace from the first round on (the setup is not repeated)."""
    start = next(i for i, e in enumerate(game.events) if e.text == "round = 1")
    run_script(game, answers)
    lines = [f"# {title}", f"# players: {game.state.players}", f"# answers: {answers}", ""]
    lines += trace_lines(game, game.events[start:])
    return "\n".join(lines) + "\n"


def var(game: rulecraft.Game, key: str) -> str:
    return game.view(None)["vars"].get(key, "")


def zone(game: rulecraft.Game, key: str) -> list[str]:
    return game.view(None)["zones"].get(key, [])


# ---------------------------------------------------------------- the rulebook's worked examples

LOADING = """
  # §5.2 example: the deposit holds 2 gold, 1 ruby, 2 sapphires and 1 emerald; Andras (P1) has
  # a ruby card (pickaxe), a sapphire card (chisel), a cart loading for 2 silver, and a gold in his pan.
  move site[g9] to site[g1]
  for g in [gold, gold, ruby, sapphire, sapphire, emerald] { move gem_from(g, g9) to site[g9] }
  move gem_from(gold, g9) to load[first(gear[P1])]
  equip(P1, "E02", recto)
  equip(P1, "E04", recto)
  equip(P1, "E15", verso)
  give_coins(P1, 3)
"""


def test_loading_example(trace_snapshot) -> None:
    """Ruby and sapphire go on their tools, the emerald on the cart for 2 silver; no room for gold."""
    game = scenario(LOADING)
    text = played(game, ["g9", "Load gems", "ruby", "E02 pickaxe", "sapphire", "E04 chisel", "emerald"],
                  "§5.2 loading example")
    assert text == trace_snapshot
    assert zone(game, "site[g9]") == ["sapphire", "gold", "gold"], "the second sapphire has no card either"
    assert var(game, "silver[P1]") == "1"
    assert game.current_decision().by == "P2", "with no room for gold the loading ends by itself"


PAGES = """
  # §5.1 example: Andras (P1) in catalogue A with 2 gold (pan and cart) and 3 silver.
  equip(P1, "E10", verso)
  move gem_from(gold, g9) to load[first(gear[P1])]
  move gem_from(gold, g9) to load[first(gear[P1] where tool(it) == cart)]
  give_coins(P1, 3)
  set at[P1] = g11
"""


def test_page_turning_example(trace_snapshot) -> None:
    """Buy, turn (free), turn (1 silver), buy, turn twice (2 silver): 3 silver for 4 turns."""
    game = scenario(PAGES)
    book = game.view(None)["zones"]["eq_right[A]"]
    assert len(book) == 17
    answers = ["A", "Buy equipment", "Buy the right page", 0,
               "Turn a right page", "Turn a right page", "Buy the right page",
               "Turn a right page", "Turn a left page"]
    text = played(game, answers, "§5.1 page-turning example")
    assert text == trace_snapshot
    assert var(game, "silver[P1]") == "0"
    assert var(game, "bank") == str(30 - 2 - 3), "P2 and P3 hold 2 and 3; P1's 3 coins went to the bank"
    assert game.current_decision().by == "P2", "without silver or gold the book closes by itself"


WORKSHOP = """
  # §5.3 example: Bea (P1). The guild holds 1 purple, 0 red and 1 blue craftsman; Bea has a
  # purple and a blue craftsman, two purple commissions, an amethyst on her hammer and on her cart.
  leave_in_guild(purple, 1)
  leave_in_guild(red, 0)
  leave_in_guild(blue, 1)
  move last(aside where it.colour == purple) to hired[P1]
  move last(aside where it.colour == blue) to hired[P1]
  move book_page(purple) to held[P1]
  move book_page(purple) to held[P1]
  equip(P1, "E03", recto)
  equip(P1, "E15", verso)
  for e in gear[P1] where tool(it) in [hammer, cart] { move gem_from(amethyst, g9) to load[e] }
"""


def test_workshop_example(trace_snapshot) -> None:
    """Bea opens purple, earns a bonus with the second purple commission, gets blue and opens blue."""
    game = scenario(WORKSHOP)
    text = played(game, ["hf", "Fulfil commissions", "K24 purple [amethyst] 4 VP", 0,
                         "K10 purple [amethyst] 3 VP"], "§5.3 workshop example")
    assert text == trace_snapshot
    assert zone(game, "opened[P1]") == ["blue workshop (2 needed, 5 VP)", "purple workshop (2 needed, 5 VP)"]
    assert var(game, "bonus[P1]") == "1"
    assert zone(game, "guild[purple]") == [] and zone(game, "guild[blue]") == []


RED = """
  # §5.3 example: no red craftsman left, one blue and one green; Andras (P1) fulfils 2 red commissions.
  leave_in_guild(red, 0)
  leave_in_guild(blue, 1)
  leave_in_guild(green, 1)
  move book_page(red) to held[P1]
  move book_page(red) to held[P1]
  equip(P1, "E02", recto)
  equip(P1, "E05", recto)
  for e in gear[P1] where tool(it) in [pickaxe, horse] { move gem_from(ruby, g9) to load[e] }
  set at[P1] = g1
"""


def test_two_red_commissions_fall_back_to_blue_then_green(trace_snapshot) -> None:
    """The first craftsman is the next colour clockwise (blue); blue is then empty, so green."""
    game = scenario(RED)
    first, second = [c for c in zone(game, "held[P1]")]
    text = played(game, ["ha", "Fulfil commissions", second, 0, first],
                  "§5.3 fallback example")
    assert text == trace_snapshot
    assert zone(game, "hired[P1]") == ["green craftsman", "blue craftsman"]
