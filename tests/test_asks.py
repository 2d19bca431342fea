"""A decision's operands (a menu's or a choose's prompt and chooser, a choose's pool and count) read by
their code kept once for each statement (`CodeCache.menus`, `CodeCache.chooses`; a literal prompt taken
as written), held to the general path that evaluates each through `Game.evaluate`."""

from __future__ import annotations

from typing import Any

import pytest
import rulecraft
from rulecraft.agents import RandomAgent, play
from rulecraft.errors import RulebookError
from rulecraft.runtime.codecache import CodeCache
from rulecraft.runtime.game import Game

RULES = """game T players 2..2
card Chip { n: int } label "chip {n}"
zone row: Chip public
zone hand[Player]: Chip owner
var round: int = 0 public
var many: int = 2 public

setup { for n in 1..6 { create 1 Chip { n: n } in row } }

play {
  while round < 3 {
    set round += 1
    let p = players[round % 2]
    choose by p prompt "Round {round}: which?" {
      option "one" { let c = choose one from row by p  move c to hand[p] }
      option "two" { let cs = choose exactly many from row by next(p) prompt ""  for c in cs { move c to hand[p] } }
      option "some" {
        let cs = choose upto round from row where it.n > round by p prompt "Up to {round}"
        for c in cs { move c to hand[p] }
      }
      option "any" { let cs = choose any from hand[p] prompt "Give back"  for c in cs { move c to row } }
    }
    choose prompt "" { option "go on" { } option "stop" { set round = 3 } }
    let coin = choose one from [0, 1] by table prompt "Coin"
    set many = 1 + coin
  }
}
"""


def played(rb: rulecraft.Rulebook) -> list[Any]:
    out = []
    for seed in range(10):
        game = Game(rb, 2, seed)
        play(game, [RandomAgent(seed), RandomAgent(seed + 100)], atomic=False)
        events = [(e.verb, e.text, e.hidden_text) for e in game.events]
        out.append((game.answers, game.state, events, game.steps))
    return out


def test_a_decisions_operands_read_by_their_kept_code_are_those_the_general_path_evaluates(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    rb = rulecraft.load_text(RULES, "t.rules")
    kept = played(rb)
    lines = {text for *_, events, _steps in kept for _verb, text, _hidden in events}
    # The prompts as written, computed from the state, and the default of an empty one.
    assert any(text.endswith("[Round 2: which?]") for text in lines)
    assert any(text.endswith("[Choose (1 of 2)]") for text in lines)
    assert any(text.endswith("[Choose]") for text in lines)
    assert any("[Up to " in text for text in lines)
    # The general path: every operand its expression's function, evaluated through `Game.evaluate`.
    monkeypatch.setattr(CodeCache, "operand", lambda self, e: None if e is None else self.value(e))
    assert played(rulecraft.load_text(RULES, "t.rules")) == kept


@pytest.mark.parametrize(
    ("statement", "message"),
    [
        (
            'choose by first(who) { option "a" { } option "b" { } }',
            "t.rules:5:13: error: a decision is made by a player, not none",
        ),
        (
            'let c = choose one from [1, 2] by first(who) prompt "x"',
            "t.rules:5:37: error: a decision is made by a player, not none",
        ),
        (
            "let c = choose exactly first(ns) from [1, 2] by players[0]",
            "t.rules:5:26: error: a number is needed here, not none",
        ),
    ],
)
def test_a_decisions_operand_of_the_wrong_kind_is_named_where_it_is_written(statement: str, message: str) -> None:
    text = "game T players 1..2\nvar who: list of Player = [] public\nvar ns: list of int = [] public\nplay {\n  "
    with pytest.raises(RulebookError) as caught:
        rulecraft.load_text(text + statement + "\n}\n", "t.rules").new_game(players=1, seed=0)
    assert str(caught.value).startswith(message + "\n")


ONE = """game T players 2..2
card Chip { n: int } label "chip {n}"
zone row: Chip public
zone hand[Player]: Chip owner
var got: list of int = [] public
setup { for n in [1, 1, 2, 3] { create 1 Chip { n: n } in row } }
play {
  let p = players[0]
  let a = choose one from [4, 5, 5, 6] by table prompt "Die"
  let b = choose one from [7] by p prompt "Only"
  let c = choose one from row by next(p)
  move c to hand[next(p)]
  let d = choose one from row by table
  let e = choose one from [x * 2 for x in [a, b]] by p prompt "Pick {a}"
  attempt { let f = choose one from [] by p } else { set got = got + [0] }
  set got = got + [a, b, c.n, d.n, e]
}
"""


@pytest.mark.parametrize(
    ("seed", "answers", "got", "lines"),
    [
        (
            0,
            [("table", "6"), ("P2", "chip 3"), ("table", "chip 1"), ("P1", "14")],
            (0, 6, 7, 3, 1, 14),
            ["6  [Die]", "7  [Only]", "chip 3  [Choose]", "chip 1  [Choose]", "14  [Pick 6]"],
        ),
        (
            2,
            [("table", "5"), ("P2", "chip 1"), ("table", "chip 3"), ("P1", "10")],
            (0, 5, 7, 1, 3, 10),
            ["5  [Die]", "7  [Only]", "chip 1  [Choose]", "chip 3  [Choose]", "10  [Pick 5]"],
        ),
    ],
)
def test_a_choice_of_one_asks_draws_and_fails_as_before(
    seed: int, answers: list[tuple[str, str]], got: tuple[int, ...], lines: list[str]
) -> None:
    """`choose one` (asked by `Decisions._choose_one`, apart from the other quantities): the table's
    choice weighted by the values' labels (two 5s, two chips 1), one value taken at once unrecorded, a
    player's options by label, the prompt computed at the ask, and a choice from nothing a failure that
    an attempt undoes: the same answers, values and trace as before it was apart (these were played so)."""
    game = rulecraft.load_text(ONE, "t.rules").new_game(2, seed)
    play(game, [RandomAgent(seed), RandomAgent(seed + 1)], atomic=False)
    assert game.answers == answers
    assert game.state.vars["got"] == got
    undo = "attempt fails: cannot choose one: only 0 to choose from; nothing it did stands"
    assert [e.text for e in game.events if e.verb in ("choose", "reveal", "undo")] == [*lines, undo]


NUMBERS = """game N players 2..2
var picked: int = 0 public
play {
  let a = choose one from [3, 1, 3, 2] by players[0] prompt "Which?"
  let bs = choose upto 2 from [1, 2, 3] by players[1] prompt "Some?"
  let c = choose one from [2, 1, 3] by players[0] prompt "Again?"
  set picked = a + c
}
"""


def test_numbers_offered_to_a_player_are_labelled_by_their_digits_alike_numbers_one_option() -> None:
    # Distinct numbers share their options between decisions (decisions.py, `_options`): a choice's
    # own "done" and the merging of alike numbers stay the choice's own, in the order offered.
    game = rulecraft.load_text(NUMBERS, "n.rules").new_game(players=2, seed=1)
    assert game.legal_answers() == ["3", "1", "2"]
    game.apply("1")
    assert game.legal_answers() == ["1", "2", "3", "done"]
    game.apply("done")
    assert game.legal_answers() == ["2", "1", "3"]
    assert [o.value for o in game.current_decision().options] == [2, 1, 3]
    game.apply("3")
    assert game.over and game.state.vars["picked"] == 4
