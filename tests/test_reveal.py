"""`reveal CARDS to PLAYERS`: those players see those cards, the others see that they were shown.

The game is examples/games/peek.rules: each player holds one numbered card; a turn looks at
another player's card (`reveal hand[q] to p`) or guesses it (a wrong guess shuffles the card
back into the deck and draws again). With seed 1 and three players, P1 holds 2, P2 holds 1 and
P3 holds 3 (the card of number n has id n - 1); the deck holds 4 to 8.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import rulecraft
from rulecraft.agents import GreedyAgent
from rulecraft.authoring.explain import explain
from rulecraft.authoring.fmt import format_text
from rulecraft.cli import main
from rulecraft.editor.words import words
from rulecraft.errors import RulebookError
from rulecraft.language.values import Player
from rulecraft.records import record_of, write_record
from rulecraft.render import trace_lines, trace_text
from rulecraft.runtime.information import hidden_positions, sample_hidden
from rulecraft.tools import soak

from .conftest import run_script

ROOT = Path(__file__).resolve().parent.parent
PEEK = ROOT / "examples" / "games" / "peek.rules"
P1, P2, P3 = Player(0), Player(1), Player(2)

# P1 looks at P2's card, P2 looks at P1's, then P3 guesses P2's card wrong: P2 shuffles it back
# into the deck and draws again.
LOOKS = ["P2", "Look", "P1", "Look"]
WRONG_GUESS = ["P2", "Guess", "5"]


def peek(answers: list[str]) -> rulecraft.Game:
    return run_script(rulecraft.load(PEEK).new_game(players=3, seed=1), answers)


def zones(game: rulecraft.Game, viewer: Player | None) -> dict:
    return game.view(viewer)["zones"]


def test_the_player_a_card_is_revealed_to_sees_it_in_their_view_and_the_others_do_not() -> None:
    """After P1 looks at P2's card, P1's view shows it in P2's hand; P3's view shows only the count."""
    game = peek(LOOKS[:2])
    assert zones(game, P1)["hand[P2]"] == {"count": 1, "shown": {"card 1": "1"}}
    assert zones(game, P3)["hand[P2]"] == {"count": 1}
    assert zones(game, P2)["hand[P2]"] == ["1"]  # the owner sees the hand as always
    assert game.state.known == {"P1": [0]}


def test_a_revealed_card_that_moves_out_of_sight_is_no_longer_shown() -> None:
    """P2's card goes back into the deck after a wrong guess: P1 no longer sees it, nor P2's new card."""
    game = peek(LOOKS)
    assert zones(game, P1)["hand[P2]"]["shown"] == {"card 1": "1"}
    run_script(game, WRONG_GUESS)
    assert zones(game, P1)["hand[P2]"] == {"count": 1}
    assert "shown" not in zones(game, P1)["deck"]
    assert zones(game, P2)["hand[P1]"] == {"count": 1, "shown": {"card 1": "2"}}  # P1's card did not move
    assert game.state.known == {"P2": [1]}


def test_each_player_is_shown_the_reveal_as_their_seat_may_see_it(trace_snapshot) -> None:  # type: ignore[no-untyped-def]
    """The player shown the card reads it, the holder reads it, the third reads only `1 card (hand[P2]) to P1`."""
    game = peek(LOOKS + WRONG_GUESS)
    traces = [trace_text(game, {"answers": LOOKS + WRONG_GUESS}, viewer=v) for v in (None, P1, P2, P3)]
    names = ["all", "P1", "P2", "P3"]
    assert "\n".join(f"######## as {n}\n{t}" for n, t in zip(names, traces, strict=True)) == trace_snapshot
    assert "show    1 card (hand[P2]) to P1  @ peek.rules:24:21" in trace_lines(game, viewer=P3)
    assert "show    1 (hand[P2]) to P1  @ peek.rules:24:21" in trace_lines(game, viewer=P1)


def test_the_trace_lines_of_language_md_are_those_of_the_game() -> None:
    """docs/LANGUAGE.md shows the two `show` lines of P1's look at P2's card: P1's and P3's."""
    doc = (ROOT / "docs" / "LANGUAGE.md").read_text(encoding="utf-8")
    block = doc.split("P1 and P2 read the first line, P3 the second")[1].split("```text\n")[1].split("```")[0]
    game = peek(LOOKS[:2])
    shown = [line for line in trace_lines(game, viewer=P1) if line.startswith("show")]
    assert trace_lines(game, viewer=P2)[-1] == trace_lines(game)[-1] == shown[0]
    assert block.splitlines() == [shown[0], trace_lines(game, viewer=P3)[-1]]


def test_a_record_replays_its_reveals_and_replay_as_a_player_shows_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A reveal is no decision: the record holds only the answers, and `replay --as P2` shows P2 the card."""
    game = peek(LOOKS)
    path = tmp_path / "peek.json"
    write_record(record_of(game, rulebook_file=str(PEEK)), path)
    assert [a for a in json.loads(path.read_text())["answers"] if a["by"] != "table"] == [
        {"by": by, "answer": a} for by, a in zip(["P1", "P1", "P2", "P2"], LOOKS, strict=True)
    ]
    capsys.readouterr()
    assert main(["replay", str(path), "--trace", "--as", "P2"]) == 0
    out = capsys.readouterr().out
    assert "show    2 (hand[P1]) to P2  @ peek.rules:24:21" in out
    assert "show    1 card (hand[P2]) to P1  @ peek.rules:24:21" not in out  # P2 holds hand[P2]: it reads the card
    assert "show    1 (hand[P2]) to P1  @ peek.rules:24:21" in out
    assert main(["replay", str(path), "--as", "P2"]) == 0
    assert "  hand[P1]: 1 card (hidden), shown to you: card 1: 2" in capsys.readouterr().out
    assert main(["replay", str(path), "--trace", "--as", "P3"]) == 0
    out = capsys.readouterr().out
    assert "show    1 card (hand[P1]) to P2  @ peek.rules:24:21" in out
    assert "show    2 (hand[P1]) to P2" not in out


def test_an_agent_sampling_what_it_cannot_see_keeps_a_card_revealed_to_it() -> None:
    """P1's samples of the hidden cards always leave the 1 in P2's hand; P3's samples move it about."""
    game = peek(LOOKS[:2])
    assert ("hand[P2]", 0) not in hidden_positions(game, P1)
    assert ("hand[P2]", 0) in hidden_positions(game, P3)
    assert {sample_hidden(game, P1, seed).view(None)["zones"]["hand[P2]"][0] for seed in range(20)} == {"1"}
    assert len({sample_hidden(game, P3, seed).view(None)["zones"]["hand[P2]"][0] for seed in range(20)}) > 1


def test_a_greedy_agent_that_looked_at_a_card_names_it() -> None:
    """Having looked at P2's card, a greedy P1 guesses it every time; P3, who did not look, guesses."""
    game = peek([*LOOKS, "P1", "Look", "P2", "Guess"])  # P3 looks at P1's card; P1 is to name P2's
    decision = game.current_decision()
    assert decision is not None and decision.prompt == "Which number?"
    assert {GreedyAgent(seed).choose(game, decision) for seed in range(12)} == {"1"}
    blind = peek([*LOOKS, "P1", "Guess"])  # P3 is to name P1's card (a 2), which only P2 has seen
    decision = blind.current_decision()
    assert decision is not None and decision.player == P3
    assert len({GreedyAgent(seed).choose(blind, decision) for seed in range(12)}) > 1


def test_soak_finds_no_leak_in_the_example() -> None:
    """Views, decisions and the shape of the trace, checked at every decision of a few games of Peek."""
    rb = rulecraft.load(PEEK)
    summary = soak.SoakSummary()
    for seed in range(6):
        assert soak.soak_game(rb, "peek", seed, 2 + seed % 3, summary, hidden_every=1) is None
    assert summary.hidden_checks > 30 and not summary.findings


def test_what_players_know_is_part_of_the_state_and_survives_clone_and_json() -> None:
    """A clone knows what the game knows; the state's JSON carries it, and an older state without it reads."""
    game = peek(LOOKS)
    twin = game.clone()
    assert twin.state.known == {"P1": [0], "P2": [1]}
    twin.state.known["P1"].clear()
    assert game.state.known["P1"] == [0]
    codec = game.rulebook.converter
    data = json.loads(json.dumps(codec.unstructure(game.state)))
    assert data["format"] == 2 and data["known"] == {"P1": [0], "P2": [1]}
    assert codec.structure(data).known == game.state.known
    old = {k: v for k, v in data.items() if k not in ("format", "known")}
    assert codec.structure(old).known == {}


# A tiny table to undo a reveal: P1 is shown the top of a face-down pile inside an attempt.
PILE = """game T players 2..2
card C { v: int } label "c{v}"
zone pile: C hidden
zone hand[Player]: C owner
setup { for v in 1..3 { create 1 C { v: v } in pile } }
play {
  let p = players[0]
  STEPS
}
"""


def pile(steps: str) -> rulecraft.Game:
    return rulecraft.load_text(PILE.replace("STEPS", steps), "t.rules").new_game(players=2)


def test_a_failed_attempt_undoes_a_reveal_and_a_forgetting() -> None:
    """A reveal inside a failing attempt is undone; so is a move that made P1 forget a card."""
    game = pile('attempt { reveal top(pile) to p  fail "no" }  reveal top(pile, 2) to [p]')
    assert game.state.known == {"P1": [2, 1]}
    game = pile('reveal top(pile) to p  attempt { move top(pile) to bottom of pile  fail "no" }')
    assert game.state.known == {"P1": [2]}
    assert zones(game, P1)["pile"] == {"count": 3, "shown": {"card 3": "c3"}}


def test_a_card_moved_within_its_zone_is_forgotten() -> None:
    """Put at the bottom of the pile it was seen on top of, the card is no longer known: the pile is
    rearranged. Revealing nothing (the top of an empty zone) shows nothing."""
    game = pile("reveal top(pile) to p  move top(pile) to bottom of pile  reveal top(hand[p]) to p")
    assert game.state.known == {}
    assert [line for line in trace_lines(game) if line.startswith("show")] == ["show    c3 (pile) to P1  @ t.rules:8:3"]


REVEAL_ERRORS = [
    (
        "reveal 3 to p",
        "t.rules:8:10: error: only cards are revealed: this is int\n      reveal 3 to p\n             ^",
    ),
    (
        "reveal pile to 2",
        "t.rules:8:18: error: cards are revealed to a player or a list of players, not to int\n"
        "      reveal pile to 2\n"
        "                     ^",
    ),
    (
        "reveal top(pile) to [1, 2]",
        "t.rules:8:23: error: cards are revealed to a player or a list of players, not to list of int\n"
        "      reveal top(pile) to [1, 2]\n"
        "                          ^^^^^^",
    ),
    (
        "reveal top(pile)",
        "t.rules:9:1: error: unexpected '}'; expected 'to'\n    }\n    ^",
    ),
]


@pytest.mark.parametrize(("steps", "message"), REVEAL_ERRORS, ids=[s for s, _ in REVEAL_ERRORS])
def test_bad_operands_of_reveal_are_located_errors(steps: str, message: str) -> None:
    """What is revealed must be cards, to a player or players: the checker says where it is not."""
    with pytest.raises(RulebookError) as info:
        pile(steps)
    assert str(info.value).startswith(message)


def test_a_procedure_called_reveal_gets_a_hint() -> None:
    """`reveal` is a statement now: a call of a procedure so named says so."""
    with pytest.raises(RulebookError) as info:
        rulecraft.load_text(
            'game T players 2..2\nproc reveal(p: Player) { say "{p}" }\nplay { reveal(players[0]) }', "t.rules"
        )
    assert "hint: 'reveal' is a statement (reveal CARDS to PLAYERS)" in str(info.value)


def test_explain_fmt_and_the_editor_know_reveal() -> None:
    """`explain` says who is shown the cards, `fmt` keeps the statement, the editors' words hold the keyword."""
    program = rulecraft.load(PEEK).program
    assert "      - Show q's hand to p (to them alone, until the cards move).\n" in explain(program)
    text = PEEK.read_text(encoding="utf-8")
    assert "reveal hand[q] to p" in text
    assert format_text(text, str(PEEK)) == text
    assert format_text("play {  reveal   top(pile)to [ p,q ] }\n", "t.rules") == "play { reveal top(pile) to [p, q] }\n"
    assert "reveal" in words().keywords
