"""Hidden information as card games need it: a zone everyone sees but its owner (`others`), the order
of revealed cards, and facts told about cards (`tell ... which of ... have FIELD VALUE`).

The game is tests/games/told_hand.rules: six coloured, numbered cards, four to each hand, each
hand `others` visible. With seed 3 and two players, hand[P2] holds (top first) red 2, red 1,
blue 1, blue 4, and the deck holds four cards (P2 sees neither).
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
import rulecraft
from rulecraft.authoring.explain import explain
from rulecraft.authoring.fmt import format_text
from rulecraft.cli import main
from rulecraft.errors import RulebookError
from rulecraft.language.values import CardRef, Player
from rulecraft.records import record_of, write_record
from rulecraft.render import trace_lines, view_text
from rulecraft.runtime import knowledge
from rulecraft.runtime.determinize import Determinizer
from rulecraft.runtime.information import hidden_positions, permute_hidden, sample_hidden
from rulecraft.tools import soak

TOLD = Path(__file__).resolve().parent / "games" / "told_hand.rules"
P1, P2 = Player(0), Player(1)
FACTS = {"card 4": ["colour red"], "card 3": ["colour red"], "card 2": ["not colour red"], "card 1": ["not colour red"]}


def told(players: int = 2, seed: int = 3, text: str | None = None) -> rulecraft.Game:
    rb = rulecraft.load(TOLD) if text is None else rulecraft.load_text(text, "variant.rules")
    return rb.new_game(players=players, seed=seed, trace=True)


def tell_red(game: rulecraft.Game) -> None:
    """P1 tells P2 which of P2's cards are red."""
    game.apply("Tell a colour")
    game.apply("red")


def holds_every_fact(game: rulecraft.Game, who: Player) -> bool:
    facts = knowledge.facts_of(game, who)
    return all(knowledge.fits(game.state.cards[cid], held) for cid, held in facts.items())


def test_others_see_an_others_zone_in_order_and_its_owner_sees_how_many() -> None:
    game = told()
    everything = game.view(None)["zones"]
    assert everything["hand[P2]"] == ["red 2", "red 1", "blue 1", "blue 4"]
    assert game.view(P1)["zones"]["hand[P2]"] == everything["hand[P2]"]  # in order, top first
    assert game.view(P2)["zones"]["hand[P2]"] == {"count": 4}
    assert game.view(P2)["zones"]["hand[P1]"] == everything["hand[P1]"]
    # Hidden from its owner alone: the owner's hidden places are its hand and the deck; P1's, P1's.
    assert {k for k, _ in hidden_positions(game, P2)} == {"hand[P2]", "deck"}
    assert {k for k, _ in hidden_positions(game, P1)} == {"hand[P1]", "deck"}


def test_the_owner_plays_its_cards_by_their_places_and_the_others_read_the_card() -> None:
    game = told()
    game.apply("Play")
    assert game.legal_answers() == [f"card {i} of hand[P1]" for i in (1, 2, 3, 4)]
    game.apply("card 4 of hand[P1]")
    line = "choose  P1 {}  [Play which card?]  @ told_hand.rules:39:11"
    assert line.format("card 4 of hand[P1]") in trace_lines(game, viewer=P1)
    assert line.format("blue 3 (card 4 of hand[P1])") in trace_lines(game, viewer=P2)


def test_a_fact_told_shows_in_the_owners_view_by_place_and_in_the_trace() -> None:
    game = told()
    tell_red(game)
    assert game.view(P2)["zones"]["hand[P2]"] == {"count": 4, "told": FACTS}
    assert game.view(P1)["zones"]["hand[P2]"] == ["red 2", "red 1", "blue 1", "blue 4"]  # no facts: P1 sees the cards
    assert "told you: card 4: colour red; card 3: colour red; card 2: not colour red" in view_text(game, P2)
    line = "tell    to P2: card 3 of hand[P2], card 4 of hand[P2]: colour red; card 1 of hand[P2], card 2 of hand[P2]: not colour red  @ told_hand.rules:31:11"
    assert line in trace_lines(game, viewer=P2)
    assert line in trace_lines(game, viewer=P1)


def test_replay_as_the_told_player_shows_the_facts(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    game = told()
    tell_red(game)
    path = tmp_path / "told.json"
    write_record(record_of(game, rulebook_file=str(TOLD)), path)
    capsys.readouterr()
    assert main(["replay", str(path), "--trace", "--as", "P2"]) == 0
    out = capsys.readouterr().out
    assert "tell    to P2: card 3 of hand[P2], card 4 of hand[P2]: colour red;" in out
    assert main(["replay", str(path), "--as", "P2"]) == 0
    out = capsys.readouterr().out
    assert "hand[P2]: 4 cards (hidden), told you: card 4: colour red; card 3: colour red;" in out


def test_facts_told_of_a_zone_nobody_sees_are_hidden_from_the_others() -> None:
    """With hands nobody sees, P3 reads that P2 was told of four cards, not what."""
    game = told(players=3, text=TOLD.read_text().replace("Card others", "Card hidden"))
    for answer in ("Tell a colour", "P2", "red"):
        game.apply(answer)
    assert "told" in game.view(P2)["zones"]["hand[P2]"]
    lines = trace_lines(game, viewer=Player(2))
    assert "tell    P2 told of 4 cards (hand[P2])  @ variant.rules:31:11" in lines
    assert not any("colour red" in line for line in lines)
    assert "told" not in json.dumps(game.view(Player(2)))
    assert any("colour red" in line for line in trace_lines(game, viewer=P2))


def test_a_fact_is_forgotten_when_its_card_moves_or_its_field_is_set() -> None:
    game = told()
    tell_red(game)
    game.apply("Play")
    top = game.state.zones["hand[P2]"][-1]
    game.apply("card 4 of hand[P2]")  # P2 plays red 2 (told red) and draws a card nobody told it of
    assert top not in knowledge.facts_of(game, P2)
    assert game.view(P2)["zones"]["hand[P2]"]["told"] == {
        "card 3": ["colour red"],
        "card 2": ["not colour red"],
        "card 1": ["not colour red"],
    }
    another = game.state.zones["hand[P2]"][0]
    game.set_field(CardRef(another), "colour", game.state.cards[top].colour, game.current_decision().span)
    assert another not in knowledge.facts_of(game, P2)
    assert len(knowledge.facts_of(game, P2)) == 2


def test_facts_are_plain_data_round_tripped_and_copied() -> None:
    game = told()
    tell_red(game)
    conv = game.rulebook.converter
    data = conv.unstructure(game.state)
    assert data["format"] == 3 and len(data["told"]["P2"]) == 4
    again = conv.structure(json.loads(json.dumps(data)))
    assert again == game.state and again.told == game.state.told
    twin = game.clone()
    twin.state.told["P2"].clear()
    assert len(game.state.told["P2"]) == 4
    fresh = told()
    assert "told" not in conv.unstructure(fresh.state) and conv.unstructure(fresh.state)["format"] == 2


def test_every_world_an_agent_samples_agrees_with_every_fact_the_seat_holds() -> None:
    """Determinize, the greedy agent's sample and the soak's exchange deal only consistent cards;
    dealt without the facts, about one world in six would agree (two reds among eight cards)."""
    game = told()
    tell_red(game)
    worlds = Determinizer(game, P2)
    drawn = set()
    for seed in range(200):
        for world in (worlds.draw(seed), sample_hidden(game, P2, seed), permute_hidden(game, P2, random.Random(seed))):
            assert holds_every_fact(world, P2), seed
        drawn.add(tuple(worlds.draw(seed).view(None)["zones"]["hand[P2]"]))
    assert len(drawn) > 10  # the worlds differ: the cards the facts allow are dealt at random


def test_a_world_with_a_fact_that_only_one_card_fits_deals_that_card() -> None:
    game = told()
    game.apply("Tell a number")
    game.apply("4")  # P2 learns that card 1 (blue 4) has value 4, the others not: blue 4 is the only 4 left
    assert game.view(P2)["zones"]["hand[P2]"]["told"]["card 1"] == ["value 4"]
    for seed in range(50):
        world = Determinizer(game, P2).draw(seed)
        cid = world.state.zones["hand[P2]"][0]
        assert world.state.cards[cid].value == 4
        assert holds_every_fact(world, P2)


def test_the_soak_finds_no_leak_in_the_game(capsys: pytest.CaptureFixture[str]) -> None:
    for players in ("2", "3"):
        assert main(["soak", str(TOLD), "--players", players, "--games", "6", "--hidden-every", "1"]) == 0
        assert ", 0 violations" in capsys.readouterr().out


def test_the_soak_catches_a_choice_that_counts_the_owners_hidden_cards(capsys: pytest.CaptureFixture[str]) -> None:
    """An option offered only to an owner holding a red card tells the owner it does: the soak says so."""
    text = TOLD.read_text().replace('option "Play" {', 'option "Play" when len(hand[p] where it.colour == red) > 0 {')
    assert text != TOLD.read_text()
    found = []
    rb = rulecraft.load_text(text, "leak.rules")
    for seed in range(6):
        game = rb.new_game(players=2, seed=seed)
        while not game.over and not found:
            found = [f for f in [soak.hidden_leak(game, random.Random(seed))] if f]
            game.apply(game.legal_answers()[-1])
        if found:
            break
    assert found and "depends on what the player cannot see" in found[0]


def test_others_is_refused_for_a_variable_and_for_a_zone_with_no_owner() -> None:
    head = "game G players 2..2\ncard C { v: int }\n"
    with pytest.raises(RulebookError, match="'others' is a visibility of zones"):
        rulecraft.load_text(head + "var x: int = 0 others\nplay { end game }\n", "v.rules")
    with pytest.raises(RulebookError, match="zone pile is 'others' visible but has no Player key"):
        rulecraft.load_text(head + "zone pile: C others\nplay { end game }\n", "z.rules")


def test_tell_names_a_field_of_the_cards_and_a_value_of_its_type() -> None:
    head = "game G players 2..2\ncard C { v: int }\nzone hand[Player]: C others\n"
    with pytest.raises(RulebookError, match="card type C has no field 'colour'"):
        rulecraft.load_text(head + "play { tell players[0] which of hand[players[0]] have colour 1 }\n", "f.rules")
    with pytest.raises(RulebookError, match="the value of field v"):
        rulecraft.load_text(head + 'play { tell players[0] which of hand[players[0]] have v "x" }\n', "t.rules")
    with pytest.raises(RulebookError, match="facts are told to a player"):
        rulecraft.load_text(head + "play { tell 3 which of hand[players[0]] have v 1 }\n", "p.rules")


def test_the_game_is_in_canonical_form_and_explained() -> None:
    """`rulecraft fmt` keeps `tell` and `others` as written; `explain` renders them in words."""
    text = TOLD.read_text()
    assert format_text(text, "told_hand.rules") == text
    words = explain(rulecraft.load(TOLD).program)
    assert "seen by everyone but its owner (who sees how many)" in words
    assert "whether its colour is c (until it moves)" in words


def test_a_failed_attempt_undoes_a_tell_and_a_forgetting() -> None:
    text = TOLD.read_text().replace(
        "tell q which of hand[q] have colour c",
        'tell q which of hand[q] have value 1  attempt { tell q which of hand[q] have colour c  move first(hand[q]) to played  fail "no" }',
    )
    game = told(text=text)
    tell_red(game)
    assert game.view(P2)["zones"]["hand[P2]"]["told"] == {
        "card 4": ["not value 1"],
        "card 3": ["value 1"],
        "card 2": ["value 1"],
        "card 1": ["not value 1"],
    }


def test_facts_without_end_are_refused_as_a_runaway() -> None:
    """Facts told in a loop (a new value each time) stop at a budget, with a located error."""
    text = TOLD.read_text().replace(
        "tell q which of hand[q] have colour c",
        "let n = 0  while true { tell q which of hand[q] have value n  n += 1 }",
    )
    game = told(text=text)
    with pytest.raises(RulebookError, match=r"variant.rules:31:35: error: P2 would hold more than 2000 facts told"):
        tell_red(game)
