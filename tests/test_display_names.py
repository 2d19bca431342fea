"""Display names: a zone or a variable may carry a name for people (`zone vp_cards[Player]: Vp public
"VP cards"`), which explain, human play and the viewer show in place of the name the rules use; the
trace keeps the rules' names, so a rulebook's traces do not change when it gains display names."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest
import rulecraft
from rulecraft.authoring.explain import explain
from rulecraft.authoring.fmt import format_text
from rulecraft.cli import main
from rulecraft.render import display_key

NAMED = """game Named players 2..2
card Chip { value: int } label "chip {value}"
zone vp_cards[Player]: Chip public "VP cards"
zone bag: Chip hidden shuffled "the bag"
var tokens[Player]: int = 0 public "VP tokens"
var turns: int = 0 public
setup {
  create 3 Chip { value: 1 } in bag
  draw 1 from bag to vp_cards[players[0]]
  set tokens[players[0]] += 2
}
play {
  let c = choose one from ["keep", "pass"] by players[0] prompt "Keep the chip?"
  set turns += 1
  end game winners []
}
"""


def test_a_zone_and_a_variable_carry_their_display_names() -> None:
    """The display name is the declaration's last word; fmt keeps it; one without it has none."""
    program = rulecraft.load_text(NAMED, "named.rules").program
    assert program.zones["vp_cards"].display == "VP cards"
    assert program.zones["bag"].display == "the bag"
    assert program.vars["tokens"].display == "VP tokens"
    assert program.vars["turns"].display is None
    assert format_text(NAMED) == NAMED


def test_explain_reads_the_display_names() -> None:
    """explain names a zone and a variable by their display names, with the rules' name beside the declaration."""
    text = explain(rulecraft.load_text(NAMED, "named.rules").program)
    assert "Zone VP cards (vp_cards), one per Player: Chip cards, seen by everyone." in text
    assert "Variable VP tokens (tokens), one per Player" in text
    assert "Draw 1 card from the bag into the VP cards of the first of the players." in text
    assert "Add 2 to the VP tokens of the first of the players." in text


def test_human_play_shows_the_display_names_in_the_view(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A person at the terminal reads `VP cards (P1)`, not `vp_cards[P1]`; the trace lines keep the rules' names."""
    rules = tmp_path / "named.rules"
    rules.write_text(NAMED, encoding="utf-8")
    monkeypatch.setattr(sys, "stdin", io.StringIO("1\n"))
    assert main(["play", str(rules), "--seed", "1", "--agents", "human,random"]) == 0
    out = capsys.readouterr().out
    view = out.split("-- view of P1 --", 1)[1].split("P1: Keep the chip?", 1)[0]
    assert "  VP cards (P1): chip 1\n" in view
    assert "  the bag: 2 cards (hidden)\n" in view
    assert "  VP tokens (P1) = 2\n" in view
    assert "  turns = 0\n" in view
    assert "vp_cards[P1]" in out.split("-- view of P1 --", 1)[0]  # the trace's move line


def test_a_key_reads_by_its_display_name() -> None:
    """`display_key`: the display name and the key's values; a key with no display name as it is."""
    game = rulecraft.load_text(NAMED, "named.rules").new_game(players=2, seed=1)
    assert display_key(game, "vp_cards[P1]") == "VP cards (P1)"
    assert display_key(game, "bag") == "the bag"
    assert display_key(game, "turns") == "turns"
