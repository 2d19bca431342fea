"""Check errors: names resolve, types agree, arities match; every error of a file is reported."""

from __future__ import annotations

import pytest
import rulecraft
from rulecraft.errors import RulebookError

HEAD = """game G players 2..4
enum Colour { red, blue }
card Ware { colour: Colour, value: int } label "{colour} {value}"
zone hand[Player]: Ware owner
zone deck: Ware hidden shuffled
var gold[Player]: int = 0 public
"""
# Line numbers below count from line 7, the first line after HEAD.

CHECK_ERRORS = [
    ('proc f(p: Player) { set gold[p] += "two" }', "t.rules:7:36: error: the value added to gold must be int, not str"),
    (
        "proc f(c: Ware) { let v = c.colur }",
        "t.rules:7:27: error: card type Ware has no field 'colur' (did you mean 'colour'?)",
    ),
    ("proc f(c: Ware, p: Player) { move c to gold[p] }", "t.rules:7:40: error: a zone is needed here, not int"),
    ("proc f(p: Player) { set golds[p] = 1 }", "t.rules:7:21: error: unknown variable 'golds' (did you mean 'gold'?)"),
    ("proc f(p: Player) { refil(p) }", "t.rules:7:21: error: unknown procedure 'refil'"),
    ("proc f(p: Player) { f(p, 2) }", "t.rules:7:21: error: f takes 1 argument(s), not 2"),
    ("proc f() { let x = hand }", "t.rules:7:20: error: zone hand takes 1 key(s): hand[Player]"),
    ("proc f(p: Player) { if len(hand[p]) { } }", "t.rules:7:24: error: a condition must be bool, not int"),
    ("proc f() { let y = redd }", "t.rules:7:20: error: unknown name 'redd' (did you mean 'red'?)"),
    ("proc f() { let y = hand[red] }", "t.rules:7:25: error: this key of hand must be Player, not Colour"),
    ("zone pile: Wares public", "t.rules:7:1: error: unknown card type 'Wares' (did you mean 'Ware'?)"),
    ("var n: nt = 0 public", "t.rules:7:8: error: unknown type 'nt' (did you mean 'int'?)"),
    (
        "proc f(p: Player) { let c = choose exactly from hand[p] }",
        "t.rules:7:21: error: 'choose exactly' needs a number: choose exactly 2 from ...",
    ),
    ("proc f(p: Player) { use sel(p) upto 2 }", "t.rules:7:21: error: unknown ability 'sel'"),
    (
        "fn f(p: Player) = gold[p]\nproc g(p: Player) { f(p) }",
        "t.rules:8:21: error: 'f' is a function: it computes a value and changes nothing",
    ),
    ("proc f(p: Player) { n = 1 }", "t.rules:7:21: error: unknown local name 'n'"),
    ("enum Colour { green }", "t.rules:7:1: error: 'Colour' is already declared as a enumeration at t.rules:2:1"),
    (
        "extend enum Colours { white }",
        "t.rules:7:1: error: no enumeration 'Colours' to extend (did you mean 'Colour'?)",
    ),
    ("extend enum Colour { red }", "t.rules:7:1: error: enumeration Colour already has 'red'"),
    ("proc f(p: Player) { }\noverride proc g(p: Player) { }", "t.rules:8:1: error: no procedure 'g' to override"),
    (
        "proc f(p: Player) { }\noverride proc f(n: int) { }",
        "t.rules:8:1: error: override of f must take the same parameters as at t.rules:7:1: (p: Player)",
    ),
    (
        "fn f(p: Player) = 1\noverride fn f(p: Player, n: int) = 2",
        "t.rules:8:1: error: override of f must take the same parameters as at t.rules:7:1: (p: Player)",
    ),
    ("override fn scor(p: Player) = 2", "t.rules:7:1: error: no function 'scor' to override"),
    ("var last: int = 0 public", "t.rules:7:1: error: 'last' is a built-in name and cannot be declared again"),
    ("proc f() { let x = len(1) }", "t.rules:7:24: error: what len counts must be a list or a zone, not int"),
    ("proc f() { let x = next(3) }", "t.rules:7:25: error: next takes a player or an enumeration value, not int"),
    ("proc f() { let x = top(players) }", "t.rules:7:24: error: top reads a zone, not list of Player"),
    ('proc f() { let x = [1, 2] where it > "a" }', "t.rules:7:38: error: a side of '>' must be int, not str"),
    (
        "layout Color { red: 0 0 }",
        "t.rules:7:1: error: layout of 'Color', which is not an enumeration (did you mean 'Colour'?)",
    ),
    (
        "layout Colour { red: 0 0, bleu: 1 0 }",
        "t.rules:7:27: error: 'bleu' is not a value of enumeration Colour (did you mean 'blue'?)",
    ),
    ("layout Colour { red: 0 0, red: 1 0 }", "t.rules:7:27: error: layout of Colour places 'red' twice"),
    ("layout Colour { red: 0 0 } links ROADS", "t.rules:7:1: error: links ROADS: no constant of that name"),
    (
        "layout Colour { red: 0 0 }\nlayout Colour { blue: 0 0 }",
        "t.rules:8:1: error: a second layout of Colour (the first is at t.rules:7:1)",
    ),
]


@pytest.mark.parametrize(("source", "message"), CHECK_ERRORS, ids=[m.split("error: ")[1][:40] for _, m in CHECK_ERRORS])
def test_check_error_message(source: str, message: str) -> None:
    """Each mistake is reported with its place and this exact message."""
    with pytest.raises(RulebookError) as info:
        rulecraft.load_text(HEAD + source + "\nplay { }\n", "t.rules")
    assert message in info.value.messages


def test_all_errors_of_a_file_are_reported() -> None:
    """The checker does not stop at the first error."""
    source = HEAD + "proc f(p: Player) {\n  set golds[p] = 1\n  refil(p)\n  let y = redd\n}\nplay { }\n"
    with pytest.raises(RulebookError) as info:
        rulecraft.load_text(source, "t.rules")
    assert [m.split(": error")[0] for m in info.value.messages] == ["t.rules:8:3", "t.rules:9:3", "t.rules:10:11"]


def test_missing_game_and_play() -> None:
    """A rulebook without a game declaration or a play block says so."""
    with pytest.raises(RulebookError) as info:
        rulecraft.load_text("enum C { a }\n", "t.rules")
    assert info.value.messages == [
        "t.rules:1:1: error: the rulebook declares no game (write e.g. 'game Name players 2..4')",
        "t.rules:1:1: error: the rulebook has no 'play { ... }' block: nothing would happen",
    ]


def test_a_match_over_an_enumeration_covers_every_value_or_has_else() -> None:
    """A match with an arm for each value, or with `else`, checks; one without a value is an error."""
    rulecraft.load_text(HEAD + "proc f(c: Ware) { match c.colour { red { } blue { } } }\nplay { }\n", "t.rules")
    rulecraft.load_text(HEAD + "proc f(c: Ware) { match c.colour { red { } else { } } }\nplay { }\n", "t.rules")
    with pytest.raises(RulebookError, match="this match has no arm for blue of Colour"):
        rulecraft.load_text(HEAD + "proc f(c: Ware) { match c.colour { red { } } }\nplay { }\n", "t.rules")


def test_a_new_card_kind_without_its_match_arm_is_caught_at_check(tmp_path) -> None:
    """A newcomer's slip: a new kind of VP card added to Guildhall's enumeration, without an arm in
    `buy`'s match, would be bought and never resolve; `check` names the value and the match."""
    path = tmp_path / "patronage.rules"
    path.write_text('include "guildhall.rules"\nextend enum VpKind { patronage }\n')
    with pytest.raises(RulebookError) as info:
        rulecraft.load(str(path))
    (message,) = [m for m in info.value.messages if "no arm" in m]
    assert message.startswith("guildhall.rules:")
    assert message.endswith("error: this match has no arm for patronage of VpKind")


UNREACHED = """game G players 2..2
card Ware { value: int } label "{value}"
card Relic { age: int } label "age {age}"
zone hand[Player]: Ware owner
zone vault: Ware public
zone spare: Ware public  # allow-unused: a place for a later expansion
var gold[Player]: int = 0 public
fn score(p: Player) = gold[p]
fn twice(n: int) = n * 2
fn used(n: int) = n + 1
proc helper(p: Player) { set gold[p] += used(1) }
proc forgotten(p: Player) { set gold[p] += twice(1) }
ability bonus(p: Player) "Gain 1 gold" { tier 1 "Gain 1 gold" { set gold[p] += 1 } }
setup { for p in players { create 2 Ware { value: 1 } in hand[p] } }
play { for p in players { helper(p) } }
"""


def test_declarations_nothing_reaches_are_located_warnings() -> None:
    """An ability never used, a procedure or function never called (from what the game reaches),
    a card type never created and a zone nothing moves into are warnings, in the file's order; the
    engine's own functions (score) are reached, and a comment 'allow-unused' silences one."""
    program = rulecraft.load_text(UNREACHED, "t.rules").program
    assert [(d.severity, f"{d.span}: {d.message}") for d in program.warnings] == [
        ("warning", "t.rules:3:1: card type Relic is never created: no 'create ... Relic' the game reaches"),
        (
            "warning",
            "t.rules:5:1: zone vault never receives a card: nothing the game reaches moves, draws or creates into it",
        ),
        ("warning", "t.rules:9:1: function twice is never called by anything the game reaches"),
        ("warning", "t.rules:12:1: procedure forgotten is never called by anything the game reaches"),
        ("warning", "t.rules:13:1: ability bonus is never used: no statement the game reaches says 'use bonus(...)'"),
    ]


def test_check_prints_warnings_and_strict_refuses_them(tmp_path, capsys) -> None:
    """`rulecraft check` prints each warning with its line and caret and still says ok (exit 0);
    with --strict the rulebook is refused (exit 1)."""
    from rulecraft.cli import main

    path = tmp_path / "t.rules"
    path.write_text(UNREACHED)
    assert main(["check", str(path)]) == 0
    out, err = capsys.readouterr()
    assert f"{path}: ok (G," in out
    assert f"{path}:12:1: warning: procedure forgotten is never called by anything the game reaches" in err
    assert "    proc forgotten(p: Player) { set gold[p] += twice(1) }\n    ^" in err
    assert "hint: a comment '# allow-unused' silences it" in err
    assert main(["check", "--strict", str(path)]) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert err.endswith(f"{path}: 5 warning(s), refused by --strict\n")
