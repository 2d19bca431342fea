"""Declared invariants: checked whenever the game waits, in checking mode; located when broken."""

from __future__ import annotations

from pathlib import Path

import pytest
import rulecraft
from rulecraft import cli
from rulecraft.errors import RulebookError

from .conftest import run_script

HEAD = """game T players 2..2
card Chip { n: int } label "chip {n}"
zone row: Chip public
zone hand[Player]: Chip owner
var points[Player]: int = 0 public
invariant hand_limit(p in players): len(hand[p]) <= 2
invariant non_negative: all([points[p] >= 0 for p in players])
setup { for n in 1..4 { create 1 Chip { n: n } in row } }
"""

PLAY = """play {
  repeat 4 {
    for p in players {
      choose by p prompt "Turn" {
        option "take" { let c = choose one from row by p  move c to hand[p] }
        option "lose" { set points[p] -= 1 }
        option "pass" { }
      }
    }
  }
}
"""


def test_a_broken_invariant_stops_a_checked_game_at_its_declaration() -> None:
    """In checking mode, the first wait after the state breaks an invariant names it and the binding."""
    rb = rulecraft.load_text(HEAD + PLAY, "t.rules")
    game = rb.new_game(players=2, seed=1, check_invariants=True)
    run_script(game, ["take", "chip 1", "pass", "take", "chip 2"])
    with pytest.raises(RulebookError) as info:
        run_script(game, ["pass", "take", "chip 3"])
    assert info.value.messages == ["t.rules:6:1: error: invariant hand_limit does not hold (p = P1)"]


def test_an_invariant_without_bindings_is_checked_too() -> None:
    """An invariant with no bindings is one condition over the whole state."""
    rb = rulecraft.load_text(HEAD + PLAY, "t.rules")
    game = rb.new_game(players=2, seed=1, check_invariants=True)
    with pytest.raises(RulebookError) as info:
        run_script(game, ["lose"])
    assert info.value.messages == ["t.rules:7:1: error: invariant non_negative does not hold"]


def test_without_checking_mode_invariants_are_reported_not_enforced() -> None:
    """A normal game goes on; `invariant_violations` lists what does not hold."""
    rb = rulecraft.load_text(HEAD + PLAY, "t.rules")
    game = rb.new_game(players=2, seed=1)
    run_script(game, ["lose", "pass"])
    assert [(d.name, where) for d, where in game.invariant_violations()] == [("non_negative", "")]


def test_an_invariant_is_not_checked_while_a_rule_resolves() -> None:
    """A bound restored by a state-based rule (with a decision of its own) is never reported broken."""
    rb = rulecraft.load_text(
        HEAD
        + """
rule overflow(p in players) when len(hand[p]) > 2 {
  let c = choose one from hand[p] by p prompt "Discard"
  move c to row
}
play { for p in players { repeat 3 { let c = choose one from row by p  move c to hand[p] } } }
""",
        "t.rules",
    )
    game = rb.new_game(players=2, seed=1, check_invariants=True)
    run_script(game, ["chip 1", "chip 2", "chip 3"])
    assert game.current_decision().prompt == "Discard"
    run_script(game, ["chip 1"])
    assert game.invariant_violations() == []


CHECK_ERRORS = [
    ("invariant big: 3", "t.rules:10:16: error: an invariant must be bool, not int"),
    (
        "invariant a: true\\ninvariant a: true",
        "t.rules:11:1: error: a second invariant 'a' (the first is at t.rules:10:1)",
    ),
    ("invariant c(p in players): len(hand[q]) > 0", "t.rules:10:37: error: unknown name 'q'"),
]


@pytest.mark.parametrize(("source", "message"), CHECK_ERRORS)
def test_invariant_check_errors(source: str, message: str) -> None:
    """An invariant is a true-or-false condition over declared names, and its name is unique."""
    with pytest.raises(RulebookError) as info:
        rulecraft.load_text(HEAD + "play { }\n" + source.replace("\\n", "\n"), "t.rules")
    assert message in info.value.messages


def test_fmt_and_explain_know_invariants(tmp_path: Path) -> None:
    """`rulecraft fmt` keeps an invariant as written; `rulecraft explain` says it in words."""
    path = tmp_path / "t.rules"
    path.write_text(HEAD + PLAY, encoding="utf-8")
    assert cli.main(["fmt", str(path)]) == 0
    text = path.read_text(encoding="utf-8")
    assert "invariant hand_limit(p in players): len(hand[p]) <= 2\n" in text
    assert "invariant non_negative: all([points[p] >= 0 for p in players])\n" in text
    from rulecraft.authoring.explain import explain

    said = explain(rulecraft.load(path).program, "hand_limit")
    assert said.startswith("Invariant hand limit: for every p in ")
