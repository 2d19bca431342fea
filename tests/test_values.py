"""Values behave as values: a zone kept in a name is its cards at that moment, a list in a variable
is indexed like any list, keys keep their type, and a `use` names who chooses the tier."""

from __future__ import annotations

import copy
import os
import pickle
import subprocess
import sys
from typing import Any

import attrs
import cattrs
import pytest
import rulecraft
from hypothesis import given
from hypothesis import strategies as st
from rulecraft.authoring.explain import explain
from rulecraft.authoring.fmt import format_text
from rulecraft.errors import GameError, RulebookError
from rulecraft.language.values import (
    CardRef,
    EnumValue,
    Player,
    Record,
    ZoneRef,
    kept_among,
    order_key,
    zone_key,
)
from rulecraft.language.values import same as same_value
from rulecraft.runtime.basics import card_refs
from rulecraft.syntax.parser import parse

from .conftest import run_script
from .test_generated import Differential
from .test_runtime import load


def said(game: rulecraft.Game) -> list[str]:
    """The lines the game's `say` statements wrote."""
    return [e.text for e in game.events if e.verb == "say"]


# ---------------------------------------------------------------- a zone as a value

ROW = """
const P1 = players[0]
setup {
  create 1 Chip { colour: red, n: 1 } in row
  create 1 Chip { colour: blue, n: 2 } in row
}
"""


def test_a_zone_bound_by_let_keeps_the_cards_it_had() -> None:
    """`let x = row` holds the cards of row at that moment; moving one away later leaves x as it was."""
    game = load(ROW + 'play { let before = row  move top(row) to pile  say "{before}" }').new_game(players=1)
    assert said(game) == ["[red 1, blue 2]"]


def test_a_zone_assigned_to_a_name_keeps_the_cards_it_had() -> None:
    """`x = row` holds the cards of row at that moment, as `let` does."""
    rb = load(ROW + 'play { let before = [] before = row  move top(row) to pile  say "{before}" }')
    assert said(rb.new_game(players=1)) == ["[red 1, blue 2]"]


def test_a_zone_passed_as_a_list_is_its_cards_at_the_call() -> None:
    """A procedure's `list of T` parameter holds the zone's cards at the call, not a view of the zone."""
    rb = load(
        ROW
        + """
proc show(xs: list of Chip) { move top(row) to pile  say "{xs}" }
play { show(row) }
"""
    )
    assert said(rb.new_game(players=1)) == ["[red 1, blue 2]"]


def test_a_zone_passed_to_an_ability_as_a_list_is_its_cards_at_the_use() -> None:
    """An ability's `list of T` parameter holds the zone's cards when its tiers are offered."""
    rb = load(
        ROW
        + """
ability look(p: Player, xs: list of Chip) "Look" { tier 1 "move, then look" { move top(row) to pile  say "{xs}" } }
play { use look(P1, row) upto 1 }
"""
    )
    game = run_script(rb.new_game(players=1), ["tier 1: move, then look"])
    assert said(game) == ["[red 1, blue 2]"]


def test_a_zone_passed_as_any_stays_the_zone() -> None:
    """A parameter of type `any` takes the zone itself: cards can be moved to it."""
    rb = load(ROW + "proc put(z: any) { move top(row) to z }\nplay { put(pile) }")
    assert rb.new_game(players=1).view(None)["zones"]["pile"] == ["blue 2"]


def test_a_list_variable_set_to_a_zone_holds_its_cards() -> None:
    """A variable of type `list of T` set to a zone holds the cards, not the zone."""
    rb = load(ROW + "var kept: list of Chip = [] public\nplay { set kept = row  move top(row) to pile }")
    game = rb.new_game(players=1)
    assert game.view(None)["vars"]["kept"] == "[red 1, blue 2]"
    assert game.state.vars["kept"].__class__ is tuple


def test_a_procedure_returns_the_cards_of_a_zone() -> None:
    """`return row` gives the cards of row at the return."""
    rb = load(ROW + 'proc cards() { return row }\nplay { let xs = cards()  move top(row) to pile  say "{xs}" }')
    assert said(rb.new_game(players=1)) == ["[red 1, blue 2]"]


def test_a_name_bound_to_a_zone_is_a_list_to_the_checker() -> None:
    """A name bound to a zone holds a list: moving cards to it is refused before the game starts."""
    with pytest.raises(RulebookError, match="a zone is needed here, not list of Chip"):
        load(ROW + "play { let z = pile  move top(row) to z }")


# ---------------------------------------------------------------- a list held in a variable

LISTS = """
const P1 = players[0]
var xs: list of int = [4, 5, 6] public
var ys[Player]: list of int = [7, 8] public
"""


def test_an_element_of_a_list_held_in_a_variable() -> None:
    """`xs[0]` is the first element of the list a variable holds; `xs[-1]` its last; keyed ones too."""
    game = load(LISTS + "play { set points[P1] = xs[0] * 100 + xs[-1] * 10 + ys[P1][1] }").new_game(players=1)
    assert game.view(None)["vars"]["points[P1]"] == "468"


def test_a_variable_that_holds_no_list_cannot_be_indexed() -> None:
    """Indexing a number held in a variable is a located error."""
    with pytest.raises(RulebookError, match="only lists can be indexed, not int"):
        load("var n: int = 3 public\nplay { set n = n[0] }")


# ---------------------------------------------------------------- who chooses a tier

STEAL = """
const P1 = players[0]
const P2 = players[1]
ability steal(thief: Player, p: Player) "Steal a point" {
  tier 1 "Take a point" { set points[p] -= 1  set points[thief] += 1 }
}
"""


def test_the_first_player_parameter_chooses_the_tier_whatever_its_name() -> None:
    """Without `by`, the player passed as the ability's first Player parameter chooses (not one named p)."""
    game = load(STEAL + "play { use steal(P2, P1) upto 1 }").new_game(players=2)
    assert game.current_decision().by == "P2"


def test_use_by_names_who_chooses_the_tier() -> None:
    """`use ... by q` asks q for the tier."""
    game = load(STEAL + "play { use steal(P2, P1) upto 1 by P1 }").new_game(players=2)
    assert game.current_decision().by == "P1"
    game.apply("tier 1: Take a point")
    assert game.view(None)["vars"]["points[P2]"] == "1"


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (
            'ability tally(n: int) "Tally" { tier 1 "one" { } }\nplay { use tally(1) upto 1 }',
            "t.rules:17:8: error: ability tally has no Player parameter to choose its tier",
        ),
        ("play { use steal(P2, P1) upto 1 by 3 }", "t.rules:16:36: error: a tier is chosen by a player, not by int"),
        (
            "var who: any = none public\nplay { use steal(P2, P1) upto 1 by who }",
            "t.rules:17:36: error: a tier is chosen by a player, not by none",
        ),
    ],
)
def test_a_tier_is_chosen_by_a_player(body: str, message: str) -> None:
    """An ability without a Player parameter needs `by`; `by` names a player, else a located error."""
    with pytest.raises(RulebookError) as error:
        load(STEAL + body).new_game(players=2)
    assert str(error.value).startswith(message)


def test_use_by_is_formatted_and_explained() -> None:
    """`fmt` keeps `by` (the same syntax tree) and `explain` says who chooses."""
    text = (
        "game T players 2..2\nvar points[Player]: int = 0 public\n"
        + STEAL
        + "play { use steal(P2, P1) upto 1 by P1 }\n"
    )
    formatted = format_text(text, "t.rules")
    assert "use steal(P2, P1) upto 1 by P1" in formatted
    assert parse(formatted, "t.rules") == parse(text, "t.rules")
    english = explain(rulecraft.load_text(text, "t.rules").program)
    assert "any tier up to 1, or none (P1 chooses)" in english


# ---------------------------------------------------------------- keys keep their type

KEYS = """
enum Suit { red, P2 }
zone box[any]: Chip public
zone shelf[str, Player]: Chip owner
var mark[any]: int = 0 public
const P1 = players[0]
"""


def keyed(body: str) -> rulecraft.Game:
    return load(KEYS + "play {\n" + body + "\n}\n").new_game(players=2)


def test_a_text_key_and_a_number_key_name_two_zones() -> None:
    """The text "1" and the number 1 key two zones, each shown as it is written."""
    game = keyed('create 1 Chip { colour: blue, n: 1 } in box["1"]  create 1 Chip { colour: blue, n: 2 } in box[1]')
    zones = game.view(None)["zones"]
    assert zones['box["1"]'] == ["blue 1"]
    assert zones["box[1]"] == ["blue 2"]


def test_a_text_key_and_a_player_key_name_two_variables() -> None:
    """The text "P1" and the player P1 key two variables."""
    game = keyed('set mark["P1"] = 5  set mark[P1] = 7')
    assert game.view(None)["vars"] == {'mark["P1"]': "5", "mark[P1]": "7"}


def test_values_of_two_enumerations_with_one_name_key_two_variables() -> None:
    """Colour.red and Suit.red key two variables; so do Suit.P2 and the player P2."""
    game = keyed("set mark[Colour.red] = 1  set mark[Suit.red] = 2  set mark[Suit.P2] = 3  set mark[players[1]] = 4")
    assert game.view(None)["vars"] == {
        "mark[Colour.red]": "1",
        "mark[Suit.red]": "2",
        "mark[Suit.P2]": "3",
        "mark[P2]": "4",
    }


def test_the_keys_of_a_zone_are_read_back_with_their_type() -> None:
    """`key_of(zone_of(c), i)` gives the key as it was given: a text, a number, a player."""
    game = keyed("""
create 1 Chip { colour: blue, n: 1 } in box["1"]
create 1 Chip { colour: blue, n: 2 } in box[1]
create 1 Chip { colour: blue, n: 3 } in shelf["a,b", players[1]]
create 1 Chip { colour: blue, n: 4 } in box[[1, "x"]]
say "{P1}"
if key_of(zone_of(top(box["1"])), 0) == "1" { say "text" }
if key_of(zone_of(top(box[1])), 0) == 1 { say "number" }
if key_of(zone_of(top(shelf["a,b", players[1]])), 1) == players[1] { say "player" }
if key_of(zone_of(top(box[[1, "x"]])), 0) == [1, "x"] { say "list" }
""")
    assert said(game) == ["P1", "text", "number", "player", "list"]


def test_a_text_key_with_a_comma_leaves_the_owner_key_in_place() -> None:
    """An `owner` zone keyed by a text and a player is seen by that player, whatever the text holds."""
    game = keyed('create 1 Chip { colour: blue, n: 3 } in shelf["a,P1", players[1]]')
    assert game.view("P2")["zones"]['shelf["a,P1",P2]'] == ["blue 3"]
    assert game.view("P1")["zones"]['shelf["a,P1",P2]'] == {"count": 1}


def test_keys_read_the_same_by_generated_code_and_by_the_definition(monkeypatch: pytest.MonkeyPatch) -> None:
    """Keys of every kind name the same zone or variable when compiled as when evaluated by the definition."""
    rb = load(
        KEYS
        + """
play {
  create 1 Chip { colour: blue, n: 1 } in box["1"]
  set mark["P1"] = 5  set mark[P1] = 7  set mark[Suit.red] = 2
  set points[P1] = mark["P1"] * 1000 + mark[P1] * 100 + mark[Suit.red] * 10 + len(box["1"]) + len(box[1])
}
"""
    )
    diff = Differential(monkeypatch, rb)
    game = rb.new_game(players=2)
    assert game.view(None)["vars"]["points[P1]"] == "5721"
    assert diff.compared >= 10


def test_arrange_names_a_zone_by_its_typed_key() -> None:
    """`arrange` takes a key as traces write it: `box["1"]` is the text key, `box[1]` the number."""
    game = load(
        KEYS + 'play { create 1 Chip { colour: blue, n: 1 } in box[1]  choose by P1 { option "a" { } option "b" { } } }'
    ).new_game(players=2)
    game.arrange('box["1"]', ["blue 1"])
    assert game.view(None)["zones"] == {'box["1"]': ["blue 1"], "box[1]": []}
    with pytest.raises(GameError, match="no zone 'box\\[one\\]'"):
        game.arrange("box[one]", ["blue 1"])


# ---------------------------------------------------------------- players and cards as Python values

P1, P2 = Player(0), Player(1)


def test_a_player_or_a_card_equals_no_number() -> None:
    """P1 is not seat number 0 and card #0 is not 0: as keys (of a memo, say) they stay apart."""
    assert P1 != 0 and CardRef(0) != 0 and CardRef(0) != P1
    memo = {("fn", P1): "player", ("fn", 0): "number", ("fn", CardRef(0)): "card"}
    assert [memo[("fn", k)] for k in (Player(0), 0, CardRef(0))] == ["player", "number", "card"]


def test_a_player_or_a_card_is_one_object_however_it_is_made() -> None:
    """Made anew, unpickled, copied, evolved or structured, a player or a card is the one object for its seat or id."""
    conv = cattrs.Converter()
    for value, made in (
        (P2, Player(1)),
        (P2, pickle.loads(pickle.dumps(P2))),
        (P2, copy.deepcopy([P2])[0]),
        (P2, attrs.evolve(P1, index=1)),
        (P2, conv.structure(conv.unstructure(P2), Player)),
        (CardRef(7), copy.copy(CardRef(7))),
        (CardRef(7), pickle.loads(pickle.dumps(CardRef(7)))),
        (CardRef(7), conv.structure({"id": 7}, CardRef)),
    ):
        assert made is value


def test_an_enumeration_value_is_one_object_however_it_is_made() -> None:
    """Made anew, unpickled, copied or evolved, an enumeration value is the one object for its
    enumeration, position, name and key (so `==` is `is`); values are ordered by declaration
    (`order_key`: they have no `<` of their own)."""
    red = EnumValue("Colour", 0, "red")
    for made in (
        EnumValue("Colour", 0, "red", "red"),
        pickle.loads(pickle.dumps(red)),
        copy.deepcopy([red])[0],
        attrs.evolve(EnumValue("Colour", 1, "blue"), index=0, name="red", key="red"),
    ):
        assert made is red
    qualified = EnumValue("Colour", 0, "red", "Colour.red")  # the key the checker writes where "red" alone is ambiguous
    assert qualified is not red and qualified.key == "Colour.red" and red.key == "red"
    assert sorted([EnumValue("Colour", 2, "green"), red], key=order_key) == [red, EnumValue("Colour", 2, "green")]
    text = "game T players 1..2\nenum Colour { red, blue }\nplay { }\n"
    first, second = (rulecraft.load_text(text, name).program.enums["Colour"] for name in ("a.rules", "b.rules"))
    assert first[0] is second[0] is red and first[1] is second[1]


def test_players_and_cards_are_ordered_by_seat_and_id() -> None:
    """Players sort by seat, cards by id (`order_key`); a player and a card are not compared."""
    key = order_key
    assert sorted([Player(2), P1, P2], key=key) == [P1, P2, Player(2)] and max(P1, P2, key=key) is P2
    assert key(P1) <= key(P1) < key(P2) and sorted([CardRef(3), CardRef(1)], key=key) == [CardRef(1), CardRef(3)]
    for a, b in ((CardRef(1), P1), (P1, P2), (CardRef(1), CardRef(2))):
        with pytest.raises(TypeError):
            assert a > b  # (no `<` of their own: `order_key` orders them)
    with pytest.raises(TypeError):
        assert key(CardRef(1)) > key(P1)


# Plays the bundled games a while with seeded agents and prints traces (whole and one player's),
# a view, the state and a determinization of it; argv[1] says in which order hashes put players and cards.
SAME_GAMES = """
import json, sys
from rulecraft import agents, rulebook
from rulecraft.language.values import CardRef, Player
from rulecraft.render import trace_text

sign = 1 if sys.argv[1] == "up" else -1
Player.__hash__ = lambda p: sign * (p.index + 2)
CardRef.__hash__ = lambda c: sign * (c.id + 2)
for name, players, names in (("guildhall", 2, "greedy,random"), ("renaissance_man", 2, "random,greedy"),
                             ("valdora", 3, "greedy,random")):
    rb = rulebook.load(name)
    game = rb.new_game(players=players, seed=3)
    seats = agents.make_agents(names.split(","), players, 3)
    for _ in range(120):
        decision = game.current_decision()
        if decision is None:
            break
        game.apply(seats[decision.player.index].choose(game, decision))
    print(trace_text(game), trace_text(game, viewer=Player(1)), json.dumps(game.view(Player(0))))
    print(json.dumps(rb.converter.unstructure(game.state)))
    print(json.dumps(rb.converter.unstructure(game.determinize(Player(1), 5).state)))
"""


def test_seeded_games_are_the_same_in_every_process() -> None:
    """A player's or card's hash is its address, which differs from process to process: seeded games
    trace, show, save and determinize the same whatever order hashes put players and cards in."""
    runs = [
        subprocess.Popen(
            [sys.executable, "-c", SAME_GAMES, order],
            stdout=subprocess.PIPE,
            text=True,
            env={**os.environ, "PYTHONHASHSEED": seed},
        )
        for order, seed in (("up", "1"), ("down", "2"))
    ]
    outputs = [run.communicate(timeout=300)[0] for run in runs]
    assert [run.returncode for run in runs] == [0, 0]
    assert outputs[0].count("# rulebook:") == 6
    assert outputs[0] == outputs[1]


def test_the_values_left_to_choose_are_told_apart_as_same_tells_them() -> None:
    """`kept_among` (what a choice of several still offers) keeps, in order, the values in one list and
    not in another by `same`: true is not 1, two records with the same fields are one; a value that
    cannot be a key is compared one by one."""
    red, blue = Record({"colour": "red"}), Record({"colour": "blue"})
    assert kept_among([1, True, 2, 0, False], [True, 1, 0, 2, False], [1, False]) == [True, 2, 0]
    assert kept_among([red, blue, (1, 2)], [Record({"colour": "blue"}), (1, 2)], [(1, 2)]) == [blue]
    assert kept_among([{"a": 1}, 1], [{"a": 1}, True], []) == [{"a": 1}]
    assert kept_among([{"a": 1}, 1, 2], [1, 2], [2]) == [1]  # (no boolean: the sets' way, then one by one)


_PLAIN = st.sampled_from([0, 1, 2, True, False, "a", (1,), (True,), Record({"n": 1}), Record({"n": True}), None])


@given(st.lists(_PLAIN, max_size=6), st.lists(_PLAIN, max_size=6), st.lists(_PLAIN, max_size=4))
def test_the_values_left_to_choose_are_those_same_finds(values: list[Any], among: list[Any], out: list[Any]) -> None:
    """Whichever way `kept_among` takes (a value its own key, keys that tell true from 1, one by one), it
    keeps what a walk with `same` keeps."""
    walked = [v for v in values if any(same_value(v, a) for a in among) and not any(same_value(v, o) for o in out)]
    assert kept_among(values, among, out) == walked


@given(st.lists(st.integers(min_value=0, max_value=5000), max_size=40))
def test_a_zone_s_cards_are_the_references_of_its_ids(ids: list[int]) -> None:
    """`card_refs` (every look at a zone's cards) gives the interned reference of each id, in order, for
    none, one and many ids, and for ids of cards made since the last look (a reference made first)."""
    assert card_refs(ids) == tuple(CardRef(i) for i in ids)
    assert all(a is b for a, b in zip(card_refs(tuple(ids)), map(CardRef, ids), strict=True))


def test_a_choice_of_several_offers_true_and_1_apart() -> None:
    """Picking 1 from a list holding 1 and true leaves true to pick, and the reverse (the path a card
    author meets: `choose exactly`, read again after each pick)."""
    rb = load(
        "var got: list of any = [] public\nplay { let xs = choose exactly 2 from [1, true, 2] by players[0]\n set got = xs }"
    )
    for first, second in (("1", ["true", "2"]), ("true", ["1", "2"])):
        game = rb.new_game(players=1)
        game.apply(first)
        assert game.legal_answers() == second
        game.apply(second[0])
        assert game.state.vars["got"] == ((1, True) if first == "1" else (True, 1))


ORDERED = {
    "max([blue, red, green])": "green",
    "sorted([green, red, blue])": "[red, blue, green]",
    "min(reversed(players))": "P1",
    "[[2, red], [2, blue], [1, green]] sorted by it": "[[1, green], [2, red], [2, blue]]",
    "max([[2, red], [2, blue]])": "[2, blue]",
    "max(hand[P1])": "red 2",
    "hand[P1] sorted by [it.colour, it]": "[red 2, green 1]",
    "sorted([none, 2, 1])": "[none, 1, 2]",
    "max([red, 1])": "error: max([red, 1]): not values max can take",
    "sorted([red, players[1]])": "error: sorted([red, P2]): not values sorted can take",
}


@pytest.mark.parametrize(("expr", "shown"), ORDERED.items())
def test_players_cards_and_members_order_without_a_comparison_of_their_own(expr: str, shown: str) -> None:
    """Players, cards and enumeration values have no `<` (so their `==` is object's, done in C), yet
    `sorted`, `min`, `max` and `sorted by` order them as before: by seat, id, declaration; a list by its
    elements; and never one kind against another."""
    assert not any(m in cls.__dict__ for cls in (Player, CardRef, EnumValue) for m in ("__lt__", "__eq__"))
    rb = load(
        "const P1 = players[0]\nsetup { create 1 Chip { colour: green, n: 1 } in hand[P1]\n"
        f'  create 1 Chip {{ colour: red, n: 2 }} in hand[P1] }}\nplay {{ say "{{{expr}}}" }}'
    )
    try:
        said_ = said(rb.new_game(players=3, trace=True))
    except RulebookError as error:
        said_ = ["error: " + str(error).splitlines()[0].partition(" error: ")[2]]
    assert said_ == [shown]


@pytest.mark.parametrize("keys", [(), (Player(1),), (3,), (Player(0), 2, "a b"), (CardRef(4), (1, 2))])
def test_a_zone_keeps_the_key_its_name_and_keys_spell_however_it_is_made_or_copied(keys: tuple[object, ...]) -> None:
    """A zone's `key` is written when it is made (moves, draws and creations read it, no longer spelled
    at each read): it is `zone_key`'s text, for a zone made, copied or pickled alike, and two zones are
    equal, and hash alike, by name and keys alone."""
    zone = ZoneRef("hand", keys)
    for same in (zone, copy.copy(zone), copy.deepcopy(zone), pickle.loads(pickle.dumps(zone)), ZoneRef("hand", keys)):
        assert same.key == zone_key("hand", keys) == str(same)
        assert same == zone and hash(same) == hash(zone)
    assert ZoneRef("hand", keys) != ZoneRef("deck", keys)
    assert repr(zone) == f"ZoneRef(name='hand', keys={keys!r})"
