"""Draws from a shuffled zone done at once, without a frame (`Game.draw_cards`, `Decisions.draw_at_once`),
held to the general path: the same games as when the table is asked for every card (the frame pushed,
`_decide` drawing), and as when a sink hears every frame pushed (the frame made at every draw).

The cases where a fast path could go wrong silently: a draw that must wait (a rule asks between two
cards), a draw from an empty zone or of more cards than the zone holds, none or fewer than none, a
draw back into its own zone, a draw inside an attempt that fails, and cards whose labels repeat.
"""

from __future__ import annotations

from typing import Any

import pytest
import rulecraft
from hypothesis import given
from hypothesis import strategies as st
from rulecraft.agents import RandomAgent, play
from rulecraft.runtime.decisions import Decisions
from rulecraft.runtime.game import Game
from rulecraft.runtime.observe import Observer
from rulecraft.runtime.tally import label_tally, tally_after_draw

RULES = """game T players 1..2
card Chip { n: int } label "chip {n}"
zone bag: Chip hidden shuffled
zone same: Chip hidden shuffled
zone empty: Chip hidden shuffled
zone hand[Player]: Chip owner
zone pile: Chip public
var asked: int = 0 public
var kept: int = 0 public

# Asks between two cards of a draw: the draw waits, and draws on after the answer.
rule midway() when asked == 0 and len(hand[players[0]]) == 2 {
  set asked = 1
  choose by players[0] prompt "Keep?" { option "yes" { set kept = 1 } option "no" { } }
}

setup {
  for n in 1..6 { create 1 Chip { n: n } in bag }
  create 5 Chip { n: 7 } in same
  create 3 Chip { n: 8 } in same
  create 1 Chip { n: 9 } in same
}

play {
  let p = players[0]
  draw 0 from bag to pile
  draw 0 - 2 from bag to pile
  draw 2 from empty to pile
  draw 3 from bag to hand[p]
  draw 2 from bag to bag
  attempt {
    draw 2 from bag to pile
    draw 3 from same to pile
    fail "undone"
  } else { say "the attempt failed" }
  draw 4 from same to hand[p]
  draw 2 from same to same
  draw 20 from bag to pile
  choose by p prompt "Last?" { option "a" { draw 1 from same to pile } option "b" { } }
}
"""


class EveryFrame(Observer):
    """Hears every frame pushed: every draw then makes its frame and asks through it."""

    def on_push(self, game: Game, frame: Any) -> None:
        pass


def played(rb: rulecraft.Rulebook, observers: tuple[Observer, ...] = ()) -> list[Any]:
    out = []
    for seed in range(12):
        game = Game(rb, 1, seed, observers=observers)
        play(game, [RandomAgent(seed)], atomic=False)
        events = [(e.verb, e.text, e.hidden_text) for e in game.events]
        out.append((game.answers, game.state, events, game.steps, game.state.vars["kept"]))
    return out


def test_a_draw_at_once_is_the_draw_that_asks_the_table_and_the_draw_that_makes_its_frame(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    rb = rulecraft.load_text(RULES, "t.rules")
    at_once = played(rb)
    assert {kept for *_, kept in at_once} == {0, 1}  # the rule asked midway, and both answers were given
    assert all(("say", "the attempt failed", None) in events for _, _, events, *_ in at_once)
    assert len({tuple(answers) for answers, *_ in at_once}) > 1  # (the seeds draw differently)
    # The steps counted as before the draw made no frame (counted then: a draw done at once is no step).
    assert [steps for *_, steps, _kept in at_once] == [29] * 12
    # The frame made and pushed at every draw, and the table asked for every card: the same games (the
    # steps aside: a frame is then stepped for every block, or for every card).
    assert [game[:3] for game in played(rb, (EveryFrame(),))] == [game[:3] for game in at_once]
    monkeypatch.setattr(Decisions, "draw_at_once", lambda *_: False)
    assert [game[:3] for game in played(rb)] == [game[:3] for game in at_once]


def test_a_draw_that_waits_is_the_decision_its_frame_asks() -> None:
    """A draw from a zone of too many labels to draw at once asks the table through its frame, and
    a draw without the game's generator (auto_chance off) waits on the table's answer, as before."""
    rb = rulecraft.load_text(RULES, "t.rules")
    game = Game(rb, 1, 3, auto_chance=False)
    ask = game.pending_ask()
    assert ask is not None and ask.decision.player is None and ask.decision.prompt == "draw from bag"
    assert game.legal_answers() == [f"chip {n}" for n in range(1, 7)]
    game.apply("chip 4")
    assert game.state.zones["hand[P1]"] == [3]


# A deck of repeated labels, mixed (a draw of a label's first card moves the label after others), drawn card
# by card by separate draws (the tally kept between them), and a draw of several, then the deck drawn out.
ONE_BY_ONE = """game T players 1..1
card Chip { n: int } label "{n}"
zone deck: Chip hidden shuffled
zone hand: Chip public
setup {
  for k in 1..3 { for n in 1..5 { create 1 Chip { n: n } in deck } }
  create 2 Chip { n: 9 } in deck
  create 1 Chip { n: 1 } in deck
  create 2 Chip { n: 9 } in deck
}
play {
  repeat 7 { draw 1 from deck to hand }
  draw 3 from deck to hand
  repeat 20 { draw 1 from deck to hand }
}
"""


def test_draws_one_by_one_from_a_deck_of_alike_cards_are_the_table_s_draws(monkeypatch: pytest.MonkeyPatch) -> None:
    """Separate draws from one deck weigh its labels by the tally the draw before kept (`tally_after_draw`):
    the same cards drawn as when the table is asked for every card, which counts the labels anew."""
    rb = rulecraft.load_text(ONE_BY_ONE, "t.rules")

    def games() -> list[Any]:
        return [(g.answers, g.state) for g in (Game(rb, 1, seed) for seed in range(30))]

    at_once = games()
    assert len({tuple(answers) for answers, _ in at_once}) > 20
    monkeypatch.setattr(Decisions, "draw_at_once", lambda *_: False)
    assert games() == at_once


def _counted(labels: list[str]) -> tuple[tuple[str, ...], dict[str, int]]:
    """The labels in the order they first come, and each one's count, by the definition."""
    counts = {text: labels.count(text) for text in labels}
    return tuple(counts), counts


@given(st.lists(st.sampled_from("abcdef"), max_size=30), st.lists(st.integers(min_value=0), max_size=30))
def test_a_tally_after_a_draw_is_the_tally_of_the_labels_left(labels: list[str], picks: list[int]) -> None:
    """`label_tally` counts a zone's labels in the order they first come (None where no two are alike), and
    `tally_after_draw` (a draw's tally brought up to date) is the tally of the labels left, draw after draw,
    whichever label each draw takes (its first card: the card a draw takes)."""
    labels = list(labels)
    tally = _counted(labels)
    assert label_tally(labels) == (None if len(set(labels)) == len(labels) else tally)
    for pick in picks:
        if not labels:
            break
        order = tally[0]
        place = pick % len(order)
        chosen = order[place]
        drawn = labels.index(chosen)
        del labels[drawn]
        tally = tally_after_draw(tally, labels, chosen, place, drawn)
        assert tally == _counted(labels)  # (the order of the labels, and each label's count)
