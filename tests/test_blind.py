"""A choice among cards its chooser may not see offers them by their places, and tells nobody more.

The game is tests/games/blind_hand.rules: each player holds four cards they cannot see
(`zone hand[Player]: Card hidden`), revealed to the others, and plays one a turn with
`choose one from hand[p] by p`. With seed 3 and two players, hand[P1] holds 1, 3, 9, 8 (in the
zone's order) and hand[P2] holds 4, 7, 2, 5. P1 is offered the places of its cards, never their
ranks; P2, who was shown them, reads which card P1 played; the soak's checks hold the promise.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
import rulecraft
from rulecraft.cli import main
from rulecraft.errors import GameError
from rulecraft.language.values import Player
from rulecraft.records import record_of, write_record
from rulecraft.render import trace_lines
from rulecraft.runtime import decisions
from rulecraft.tools import soak, soak_checks

BLIND = Path(__file__).resolve().parent / "games" / "blind_hand.rules"
P1, P2 = Player(0), Player(1)
PLACES = [f"card {i} of hand[P1]" for i in (1, 2, 3, 4)]
# An owner hand: P1 sees its own cards, P2 does not (item 12: the error of a wrong answer).
OWN_HAND = """game OwnHand players 2..2

card Card { rank: int } label "{rank}"

zone deck: Card hidden shuffled
zone hand[Player]: Card owner
zone played: Card public

setup {
  for r in 1..9 { create 1 Card { rank: r } in deck }
  for p in players { draw 3 from deck to hand[p] }
}

play {
  for p in players {
    let c = choose one from hand[p] by p prompt "Play which card?"
    move c to played
  }
  end game winners []
}
"""


def blind(seed: int = 3) -> rulecraft.Game:
    return rulecraft.load(BLIND).new_game(players=2, seed=seed, trace=True)


def test_a_player_is_offered_their_own_unseen_cards_by_their_places() -> None:
    """The issue's game: P1's decision listed 1, 3, 9, 8 while P1's view showed a count."""
    game = blind()
    assert game.view(P1)["zones"]["hand[P1]"] == {"count": 4}
    shown = {"card 4": "8", "card 3": "9", "card 2": "3", "card 1": "1"}  # by place, top first
    assert game.view(P2)["zones"]["hand[P1]"] == {"count": 4, "shown": shown}
    assert game.legal_answers() == PLACES
    assert game.view(P1)["pending"] == {"by": "P1", "prompt": "Play which card?", "options": PLACES}
    game.apply("card 3 of hand[P1]")
    assert game.view(None)["zones"]["played"] == ["9"]


def test_alike_unseen_cards_are_not_merged_into_one_option() -> None:
    """Identical cards the chooser can see are one option; unseen, their number would tell them apart."""
    rulebook = rulecraft.load_text(BLIND.read_text().replace('label "{rank}"', 'label "a card"'), "alike.rules")
    game = rulebook.new_game(players=2, seed=3)
    assert game.legal_answers() == PLACES


def test_the_trace_names_the_card_to_those_shown_it_and_the_place_to_the_chooser() -> None:
    game = blind()
    game.apply("card 3 of hand[P1]")
    line = "choose  P1 {}  [Play which card?]  @ blind_hand.rules:28:7"
    assert line.format("9 (card 3 of hand[P1])") in trace_lines(game, viewer=None)
    assert line.format("card 3 of hand[P1]") in trace_lines(game, viewer=P1)
    assert line.format("9 (card 3 of hand[P1])") in trace_lines(game, viewer=P2)


def test_a_record_of_places_replays_and_replay_as_shows_each_seat_what_it_may_see(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Records keep the labels answered (the places); `replay --as P2 --trace` shows P2 the card."""
    game = blind()
    while not game.over:
        game.apply(game.legal_answers()[-1])
    path = tmp_path / "blind.json"
    write_record(record_of(game, rulebook_file=str(BLIND)), path)
    answers = [a["answer"] for a in json.loads(path.read_text())["answers"] if a["by"] != "table"]
    assert answers[0] == "card 4 of hand[P1]" and all(a.startswith("card ") for a in answers)
    capsys.readouterr()
    assert main(["replay", str(path)]) == 0
    assert main(["replay", str(path), "--trace", "--as", "P2"]) == 0
    out = capsys.readouterr().out
    assert "choose  P1 8 (card 4 of hand[P1])  [Play which card?]" in out
    assert "choose  P2 card 4 of hand[P2]  [Play which card?]" in out
    assert main(["replay", str(path), "--trace", "--as", "P1"]) == 0
    out = capsys.readouterr().out
    assert "choose  P1 card 4 of hand[P1]  [Play which card?]" in out
    assert "8 (card 4 of hand[P1])" not in out
    assert "choose  P2 5 (card 4 of hand[P2])  [Play which card?]" in out


def test_the_soak_finds_no_leak_in_the_game(capsys: pytest.CaptureFixture[str]) -> None:
    """`rulecraft soak … --hidden-every 1`: every check at every decision, none reports."""
    assert main(["soak", str(BLIND), "--players", "2", "--games", "4", "--hidden-every", "1"]) == 0
    assert ", 0 violations" in capsys.readouterr().out


def test_the_hidden_information_checks_catch_cards_offered_by_their_labels(monkeypatch: pytest.MonkeyPatch) -> None:
    """With the labels of before (no card offered by its place), the checks report the leak."""
    monkeypatch.setattr(decisions.knowledge, "offered_by_place", lambda game, who, cards: {})
    game = blind()
    assert game.legal_answers() == ["1", "3", "9", "8"]
    assert soak_checks.names_hidden(game) == "P1 is offered '1', which names a card P1 cannot see"
    found = soak.hidden_leak(game, random.Random(1))
    assert found is not None and "the decision depends on what the player cannot see" in found


def test_an_answer_sent_by_another_seat_is_refused_without_the_legal_answers() -> None:
    """Hardening item 12: a server relaying the error to whoever sent the answer shows them no card."""
    game = rulecraft.load_text(OWN_HAND, "own.rules").new_game(players=2, seed=1)
    hand = game.view(P1)["zones"]["hand[P1]"]
    with pytest.raises(GameError) as wrong:
        game.apply("x", by="P2")
    assert str(wrong.value) == "P2 may not answer: the pending decision is P1's"
    with pytest.raises(GameError) as own:
        game.apply("x", by=P1)  # the chooser is told its legal answers, as without `by`
    assert all(label in str(own.value) for label in hand)
    with pytest.raises(GameError, match="there is no P3 in a game of 2 players"):
        game.apply(hand[0], by="P3")
    game.apply(hand[0], by="P1")
    assert game.current_decision().player == P2


def test_the_error_check_catches_an_error_that_lists_the_choosers_cards(monkeypatch: pytest.MonkeyPatch) -> None:
    """`soak_checks.error_leak` reports an `apply` that answers every seat with the chooser's labels (as before `by`)."""
    game = rulecraft.load_text(OWN_HAND, "own.rules").new_game(players=2, seed=1)
    assert soak_checks.error_leak(game, random.Random(1)) is None
    apply = rulecraft.Game.apply
    monkeypatch.setattr(rulecraft.Game, "apply", lambda self, answer, by=None, **kw: apply(self, answer, **kw))
    found = soak_checks.error_leak(game, random.Random(1))
    assert found is not None and found.startswith("the error P2 is sent for an answer that is not legal depends")


def test_the_shape_check_catches_a_choosers_line_that_names_their_unseen_card(monkeypatch: pytest.MonkeyPatch) -> None:
    """With the labels of before, what P1 reads of its own answer differs with its cards exchanged."""
    assert soak.shape_leak(blind(), random.Random(1)) is None
    monkeypatch.setattr(decisions.knowledge, "offered_by_place", lambda game, who, cards: {})
    found = soak.shape_leak(blind(), random.Random(1))
    assert found is not None and found.startswith("what P1 reads of their own answer depends on what they cannot see")
