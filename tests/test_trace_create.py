"""The trace's `create` line: the creates of one statement run several times (a loop) are one line
that counts the cards they made, in the trace, in a person's play and in the viewer alike."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
import rulecraft
from rulecraft.agents import HumanAgent
from rulecraft.cli import main
from rulecraft.records import record_of
from rulecraft.viewer import build

RULES = """game C players 1..1
card K { n: int } label "k{n}"
zone deck: K public
setup { for i in 1..4 { create 3 K { n: i } in deck } }
play { choose by players[0] { option "a" { } option "b" { } } }
"""
LINE = "create  12 cards in deck"  # four runs of `create 3`: 12 cards, not 4


def test_the_create_line_of_a_loop_counts_its_cards(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`rulecraft trace` says how many cards a statement run in a loop created."""
    (tmp_path / "c.rules").write_text(RULES, encoding="utf-8")
    assert main(["trace", str(tmp_path / "c.rules"), "--players", "1", "--seed", "1"]) == 0
    assert f"\n{LINE}  @ c.rules:4:25\n" in capsys.readouterr().out


def test_a_person_and_the_viewer_see_the_same_count() -> None:
    """Human play shows the count before the first question; the viewer's first step has it."""
    game = rulecraft.load_text(RULES, "c.rules").new_game(players=1, seed=1)
    out = io.StringIO()
    HumanAgent(stdin=io.StringIO("1\n"), stdout=out).choose(game, game.current_decision())  # type: ignore[arg-type]
    assert LINE in out.getvalue().splitlines()
    steps = build(record_of(game), rulebook=game.rulebook, check_hash=False)["steps"]
    assert ["create", "12 cards in deck", [0, 4, 25]] in steps[0]["trace"]
