"""`secret { ... }`: the steps of a secret choice show to the other players as one line."""

from __future__ import annotations

import random

import pytest
import rulecraft
from rulecraft.authoring.fmt import format_text
from rulecraft.language.values import Player
from rulecraft.render import trace_lines
from rulecraft.runtime.basics import SECRET_TEXT
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


# ---------------------------------------------------------------------------- views hold still


def _hidden_steps_hold_the_view(game: rulecraft.Game, choices: random.Random, decisions: int) -> int:
    """Play `game` at random; at every step, taken while secret runs ask others than a player and
    leaving them asking others, that adds nothing to the player's trace but lines of secret runs
    already shown to them, check that the player's view is what it was. Returns how many such
    steps there were."""
    seats = [Player(i) for i in range(game.state.players)]
    shown: dict[Player, set[object]] = {p: set() for p in seats}  # secret runs each player's trace has a line for
    checked = 0
    for _ in range(decisions):
        if game.over:
            break
        before = {p: game.view(p) for p in seats}
        # Who waits on another's secret step now (a view may change when the waiting starts or ends).
        waiting = {p for p in seats if game.secret_run is not None and game.pending.player != p}
        mark = len(game.events)
        game.apply(choices.randrange(len(game.current_decision().options)))
        new = game.events[mark:]
        for p in seats:
            lines = [e for e in new if game.shown_to(e, p)]
            folded = all(e.secret in shown[p] and game.visible_to(e, p) == SECRET_TEXT for e in lines)
            still = not game.over and game.secret_run is not None and game.pending.player != p
            if folded and p in waiting and still:
                checked += 1
                assert game.view(p) == before[p], f"{p}'s view changed on a step hidden from {p}"
            shown[p] |= {e.secret for e in lines if e.secret is not None and game.visible_to(e, p) == SECRET_TEXT}
    return checked


@pytest.mark.parametrize("name", ["guildhall", "renaissance_man", "valdora"])
def test_a_view_does_not_change_on_a_step_the_player_cannot_see(name: str) -> None:
    """Over seeded random games of each bundled rulebook, a player's view after a step folded into
    one line of their trace (another player's secret steps) is the view before it."""
    rb = rulecraft.load(name)
    checked = 0
    for seed in range(3):
        game = rb.new_game(players=rb.program.max_players - seed % 2, seed=seed)
        checked += _hidden_steps_hold_the_view(game, random.Random(seed), 600)
    if name == "renaissance_man":  # its commitments are secret: the check is not vacuous there
        assert checked > 0


def test_a_secret_move_between_hidden_zones_holds_the_other_view() -> None:
    """P1 secretly moves two cards, one step each, from hand to a face-down pile: P2's view shows the
    counts as they were at the first step until the run ends, then as they are."""
    rb = rulecraft.load_text(
        'game H players 2..2\ncard C { n: int } label "c{n}"\nzone hand[Player]: C owner\nzone pile[Player]: C hidden\n'
        "play {\n  for i in 1..3 { create 1 C { n: i } in hand[players[0]] }\n  secret {\n"
        '    repeat 2 { let c = choose one from hand[players[0]] by players[0] prompt "Lay"\n'
        "      move c to pile[players[0]] }\n  }\n"
        '  choose by players[1] { option "a" { } option "b" { } }\n}\n',
        "h.rules",
    )
    game = rb.new_game(players=2)
    held = game.view("P2")
    assert held["zones"]["hand[P1]"] == {"count": 3}
    game.apply(0)
    assert game.view("P2") == held
    game.apply(0)
    assert game.view("P2")["zones"]["pile[P1]"] == {"count": 2}
