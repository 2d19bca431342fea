"""`secret { ... }`: the steps of a secret choice show to the other players as one line."""

from __future__ import annotations

import rulecraft
from rulecraft.authoring.fmt import format_text
from rulecraft.language.values import Player
from rulecraft.render import trace_lines
from rulecraft.syntax.parser import parse

from .conftest import run_script

# Each player secretly picks a colour: "Red" at once, or "Other" and then which other one.
SECRET = """game S players 2..3
enum Colour { red, blue, green }
var plan[Player]: Colour = none owner
var committed[Player]: bool = false public
proc commit(p: Player) {
  secret {
    choose by p prompt "Your secret colour" {
      option "Red" { set plan[p] = red }
      option "Other" {
        let c = choose one from [blue, green] by p prompt "Which other?"
        set plan[p] = c
      }
    }
  }
  set committed[p] = true
}
play {
  for p in players { commit(p) }
  for p in players {
    let c = plan[p]
    say "{p} reveals {c}"
  }
}
"""


def secret_game(answers: list[str], players: int = 2) -> rulecraft.Game:
    return run_script(rulecraft.load_text(SECRET, "s.rules").new_game(players=players), answers)


def lines(game: rulecraft.Game, viewer: Player | None) -> list[str]:
    return trace_lines(game, viewer=viewer)


def test_another_players_secret_choice_is_one_line_without_prompt_or_answer() -> None:
    """P2 sees P1's two secret steps as one line at the block; P1 and the full trace see every step."""
    game = secret_game(["Other", "green", "Red"])
    assert lines(game, Player(1)) == [
        "choose  P1 [a secret choice]  @ s.rules:6:3",
        "set     committed[P1] = true  @ s.rules:15:3",
        "choose  P2 Red  [Your secret colour]  @ s.rules:7:5",
        "set     plan[P2] = red  @ s.rules:8:22",
        "set     committed[P2] = true  @ s.rules:15:3",
        "say     P1 reveals green  @ s.rules:21:5",
        "say     P2 reveals red  @ s.rules:21:5",
        "end     winners ",
    ]
    mine = [
        "choose  P1 Other  [Your secret colour]  @ s.rules:7:5",
        "choose  P1 green  [Which other?]  @ s.rules:10:9",
        "set     plan[P1] = green  @ s.rules:11:9",
        "set     committed[P1] = true  @ s.rules:15:3",
    ]
    assert lines(game, Player(0))[:4] == mine
    assert lines(game, None)[:4] == mine
    assert lines(game, Player(0))[4] == "choose  P2 [a secret choice]  @ s.rules:6:3"
    assert lines(game, None)[4:6] == [
        "choose  P2 Red  [Your secret colour]  @ s.rules:7:5",
        "set     plan[P2] = red  @ s.rules:8:22",
    ]


def test_the_others_cannot_tell_a_one_step_secret_from_a_two_step_one() -> None:
    """P2's trace is the same whether P1 answered in one step or in two (before the reveal)."""
    one, two = secret_game(["Red"]), secret_game(["Other", "blue"])
    assert len(one.answers) != len(two.answers)
    assert (
        lines(one, Player(1))
        == lines(two, Player(1))
        == [
            "choose  P1 [a secret choice]  @ s.rules:6:3",
            "set     committed[P1] = true  @ s.rules:15:3",
        ]
    )


def test_consecutive_secret_blocks_of_two_players_are_two_lines() -> None:
    """A third player sees one line per block run, each naming the player who answered in it."""
    rb = rulecraft.load_text(SECRET.replace("  set committed[p] = true\n", ""), "s.rules")
    game = run_script(rb.new_game(players=3), ["Other", "blue", "Red"])
    assert lines(game, Player(2)) == [
        "choose  P1 [a secret choice]  @ s.rules:6:3",
        "choose  P2 [a secret choice]  @ s.rules:6:3",
    ]


def test_records_and_the_game_keep_every_secret_answer() -> None:
    """A secret block changes no record: every answer is kept, and replays to the same state."""
    game = secret_game(["Other", "green", "Red"])
    assert game.answers == [("P1", "Other"), ("P1", "green"), ("P2", "Red")]
    assert game.view(None)["vars"]["plan[P1]"] == "green"


# `fail` inside an attempt and `return` from a procedure leave a secret block halfway.
LEAVING = """game L players 2..2
enum Colour { red, blue, green }
var plan[Player]: Colour = none owner
proc pick(p: Player) {
  secret {
    let c = choose one from Colour by p prompt "Secret"
    if c == red { return c }
    set plan[p] = c
  }
  return none
}
play {
  let P1 = players[0]
  attempt {
    secret {
      choose by P1 prompt "Secret try" { option "a" { fail "no" } option "b" { } }
    }
  } else { say "failed" }
  let got = pick(P1)
  choose by P1 prompt "In the open" { option "x" { } option "y" { } }
}
"""


def test_fail_and_return_inside_secret_leave_it() -> None:
    """After a `fail` or a `return` out of a secret block, later events are public again."""
    for answers in (["a", "red"], ["a", "blue"], ["b", "red"]):
        game = run_script(rulecraft.load_text(LEAVING, "l.rules").new_game(players=2), answers)
        assert game.current_decision().prompt == "In the open"
        assert game.secret == 0 and game.secret_run is None, answers
        game.apply("x")
        # A menu's labels are public, so outside the block P2 sees which one P1 took.
        assert lines(game, Player(1))[-2] == "choose  P1 x  [In the open]  @ l.rules:20:3", answers


def test_a_clone_inside_a_secret_block_stays_inside_it() -> None:
    """A clone taken between two secret steps keeps the block open, and folds what follows into it."""
    game = secret_game(["Other"])
    assert game.secret == 1 and game.secret_run is not None
    copy = game.clone(trace=True)
    assert (copy.secret, copy.secret_run) == (game.secret, game.secret_run)
    copy.apply("green")
    assert lines(copy, Player(1)) == [
        "choose  P1 [a secret choice]  @ s.rules:6:3",
        "set     committed[P1] = true  @ s.rules:15:3",
    ]
    assert copy.current_decision().by == "P2" and copy.secret == 1 and copy.secret_run != game.secret_run


def test_fmt_lays_out_a_secret_block_and_keeps_its_meaning() -> None:
    """fmt writes `secret {` with its statements indented, and the AST is unchanged."""
    messy = 'game F players 1..1\nvar n: int = 0 public\nplay {\n  secret {   set n = 1\n say "x" }\n}\n'
    canonical = 'game F players 1..1\nvar n: int = 0 public\nplay {\n  secret {\n    set n = 1\n    say "x"\n  }\n}\n'
    assert format_text(messy) == canonical
    assert parse(canonical) == parse(messy)
    assert format_text(canonical) == canonical
