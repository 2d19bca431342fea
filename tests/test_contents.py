"""Which functions depend on what a card is (check/contents.py): the values a search's worlds keep."""

from __future__ import annotations

import rulecraft
from rulecraft.check.contents import ANYWHERE, NOWHERE, Origin, Summaries, content_readers, field_readers

HEAD = """game T players 2..2
card Chip { value: int } label "chip {value}"
card Tag { on: Chip, n: int }
zone row: Chip public
zone pile: Chip public shuffled
zone deck: Chip hidden shuffled
zone hand[Player]: Chip owner
zone tags: Tag public
var picked: Chip = none public
var turns: int = 0 public
"""

BODY = """
fn strength(c: Chip) = c.value
fn first_strength() = strength(first(row))
fn hand_strength(p: Player) = sum([strength(c) for c in hand[p]])
fn shuffled_strength() = strength(first(pile))
fn deck_size() = len(deck) + len([c for c in hand[players[0]]])
fn named() = label(first(row))
fn shown(p: Player) = "{first(hand[p])}"
fn plain_text(p: Player) = "seat {seat(p)}"
fn best_of(cs: list of Chip) = first(cs sorted by it.value)
fn best_in_row() = best_of(row).value
fn in_row(c: Chip) = c in row
fn picked_value() = picked.value
fn tagged() = first(tags).on.value
fn walk(xs: list of Chip, n: int) = if n == 0 then len(xs) else walk(row where it not in xs, n - 1)
fn walk_hand(p: Player, n: int) = if n == 0 then 0 else strength(first(hand[p])) + walk_hand(p, n - 1)
play { set turns = 1 }
"""


def _program() -> rulecraft.check.program.Program:
    return rulecraft.load_text(HEAD + BODY, "t.rules").program


def test_a_card_read_in_sight_is_no_content_read_and_one_read_where_a_world_deals_cards_is() -> None:
    """Reading a field of a card of a public zone that is not shuffled depends on which card is
    there only; of a card in a hand, a hidden deck or a public shuffled pile, on what it is."""
    readers = content_readers(_program())
    assert "first_strength" not in readers
    assert {"hand_strength", "shuffled_strength"} <= readers
    assert "deck_size" not in readers  # it counts cards: their ids, not what they are


def test_a_function_reading_its_parameter_is_judged_by_the_arguments_of_each_call() -> None:
    """`strength(c)` reads its parameter's contents: itself a reader, but not where the card given
    is in sight; a value passed through a function (`best_of`) keeps the origin of its argument."""
    summaries = Summaries(_program())
    assert summaries.fn("strength").reads == Origin(params=frozenset({0}))
    assert summaries.fn("best_of").reads == Origin(params=frozenset({0}))
    assert summaries.fn("best_of").gives == Origin(params=frozenset({0}))
    assert summaries.fn("best_in_row").reads == NOWHERE
    assert summaries.fn("in_row").reads == NOWHERE  # a card found in a list by its id
    assert "strength" in content_readers(_program())


def test_labels_texts_variables_and_fields_holding_cards_count_as_reading_a_card() -> None:
    """A label shows what a card is; a text's placeholder may be a card's label (a text of numbers
    and seats is still judged by its placeholders' origins); a card named by a variable or held in
    another card's field may be anywhere."""
    summaries = Summaries(_program())
    assert summaries.fn("named").reads == NOWHERE  # the label of a card in sight
    assert summaries.fn("shown").reads == ANYWHERE
    assert summaries.fn("plain_text").reads == NOWHERE
    assert summaries.fn("picked_value").reads == ANYWHERE
    assert summaries.fn("tagged").reads == ANYWHERE  # (a Tag's field holds a card: from anywhere)


def test_a_recursion_reads_what_its_calls_read_and_no_more() -> None:
    """A function that calls itself is summarised by what its body reads, found again until no
    summary changes, not by the worst: a walk over cards in sight reads nothing of them."""
    summaries = Summaries(_program())
    assert summaries.fn("walk").reads == NOWHERE
    assert summaries.fn("walk_hand").reads == ANYWHERE


FIELDS = """
fn ping(n: int) = if n == 0 then 0 else pong(n - 1)
fn pong(n: int) = if n == 0 then first(row).value else ping(n - 1)
fn through_const() = K + 1
const K = first(row).value
fn through_var(p: Player) = seen[p]
var seen[Player]: int = first(row).value public
play { set turns = 1 }
"""


def test_the_functions_that_read_a_field_are_those_that_may_read_one_anywhere() -> None:
    """`field_readers`: a field or label read of any card, in sight or not, through a called function
    (a recursion through another one too), a constant or a keyed variable's initial value; a function
    that only asks where cards are (`in_row`, `deck_size`, `walk`) reads none. A text with a placeholder
    counts as a read whatever it shows (`plain_text`: it might show a card's label)."""
    program = rulecraft.load_text(HEAD + BODY.replace("play { set turns = 1 }", "") + FIELDS, "t.rules").program
    readers = field_readers(program)
    assert {"in_row", "deck_size", "walk"}.isdisjoint(readers) and "plain_text" in readers
    assert {"strength", "first_strength", "best_in_row", "named", "shown", "walk_hand", "picked_value"} <= readers
    assert {"ping", "pong", "through_const", "through_var"} <= readers


def test_a_field_changed_forgets_the_values_that_read_it_and_keeps_the_others() -> None:
    """After `set c.value = ...`, a remembered function that reads the field through another function
    is computed again; one that only counts cards keeps its value, which is still right."""
    rb = rulecraft.load_text(
        HEAD
        + """
fn strength(c: Chip) = c.value
fn total(p: Player) = sum([strength(c) for c in hand[p]])
fn held(p: Player) = len([c for c in hand[p] if c != none])
setup { create 2 Chip { value: 1 } in hand[players[0]] }
play {
  say "{total(players[0])} {held(players[0])}"
  set first(hand[players[0]]).value = 5
  say "{total(players[0])} {held(players[0])}"
}
""",
        "t.rules",
    )
    game = rb.new_game(players=2, trace=True)
    layout = game.code.memo_layout
    assert layout.slots["held"] in layout.field_free and layout.slots["total"] not in layout.field_free
    assert [e.text for e in game.events if e.verb == "say"] == ["2 2", "6 2"]
