"""Errors that teach: a table of bad inputs, each with its exact located message and hint.

Syntax errors name what was expected (families of tokens as a whole: "a statement", "an
expression", "an operator") and recognise common slips with a hint line; check errors say "did
you mean" and what the construct is for. The cases here are new; tests/test_syntax.py and
tests/test_check.py hold the first tables.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import rulecraft
from rulecraft.authoring.scenario import run_scenario
from rulecraft.cli import main
from rulecraft.errors import RulebookError

from .test_check import HEAD  # the same six declarations as the first table

# Line numbers below count from line 7, the first line after HEAD.

ERRORS = [
    (
        "proc f(p: Player) { if true { } else if false { } }",
        "t.rules:7:38: error: unexpected 'if'; expected '{'",
        "write 'elif' for another condition: } elif x > 1 { ... }",
    ),
    (
        "proc f(p: Player) { for c of hand[p] { } }",
        "t.rules:7:27: error: unexpected 'of'; expected 'in'",
        "write 'for x in ...'",
    ),
    (
        "proc f(p: Player) { let c == 1 }",
        "t.rules:7:28: error: unexpected '='; expected an expression or 'choose'",
        "'=' binds or sets a value; '==' compares two values",
    ),
    (
        "var n: int public",
        "t.rules:7:12: error: unexpected 'public'; expected '='",
        "a variable needs an initial value: var n: int = 0 public",
    ),
    (
        "var n: int = 0",
        "t.rules:8:1: error: unexpected 'play'; expected a visibility (public, owner, others, hidden, top, count)",
        None,
    ),
    (
        "game H players 2-4",
        "t.rules:7:17: error: unexpected '-'; expected '..'",
        "write the number of players as a range: players 2..4",
    ),
    (
        "fn f(p: Player) { return 1 }",
        "t.rules:7:17: error: unexpected '{'; expected '='",
        "a fn is one expression: fn f(p: Player) = ...; write a proc for a block of statements",
    ),
    (
        "proc f(p) { }",
        "t.rules:7:9: error: unexpected ')'; expected ':'",
        "every parameter has a type: (p: Player, n: int)",
    ),
    (
        "proc f(p: Player) { choose one from hand[p] }",
        "t.rules:7:28: error: unexpected 'one'; expected one of 'by', 'prompt', '{'",
        "a choice of values is bound to a name: let c = choose one from ...",
    ),
    (
        "proc f(p: Player) { say 'hello' }",
        't.rules:7:25: error: unexpected character "\'"',
        'strings are written in double quotes: "..."',
    ),
    (
        "proc f(p: Player) { use sell(p) }",
        "t.rules:7:33: error: unexpected '}'; expected 'upto'",
        "'use' names the highest tier offered: use name(p) upto 2",
    ),
    (
        'ability a(p: Player) { tier 0 "x" { } }',
        "t.rules:7:22: error: unexpected '{'; expected a string",
        'an ability has a text before its tiers: ability name(p: Player) "What it does" { tier ... }',
    ),
    (
        'ability a(p: Player) "x" { tier "y" { } }',
        't.rules:7:33: error: unexpected string "y"; expected a number',
        'a tier has a level and a text: tier 1 "Gain 1 point" { ... }',
    ),
    (
        "rule r(p in players) { }",
        "t.rules:7:22: error: unexpected '{'; expected 'when'",
        "a rule has a condition: rule name(p in players) when ... { ... }",
    ),
    (
        "proc f(p: Player) { let x = [1, 2,] }",
        "t.rules:7:35: error: unexpected ']'; expected an expression",
        "no comma after the last element of a list",
    ),
    (
        "proc f(p: Player) { n++ }",
        "t.rules:7:22: error: unexpected '+'; expected '(' or an assignment ('=', '+=', '-=')",
        "to add or take away 1 write 'n += 1'",
    ),
    (
        'proc f(p: Player) { say "hello }',
        "t.rules:7:25: error: unexpected character '\"'",
        "this string is not closed on its line: end it with '\"'",
    ),
    ("const X := 3", "t.rules:7:9: error: unexpected ':'; expected '='", "write '=' (':=' is not rulecraft)"),
    (
        "proc f(c: Ware) { match c.colour { red: { } } }",
        "t.rules:7:39: error: unexpected ':'; expected one of an operator, '(', '{'",
        "blocks are written in braces: { ... }",
    ),
    (
        "proc f(c: Ware, p: Player) { move c to hnd[p] }",
        "t.rules:7:40: error: unknown name 'hnd' (did you mean 'hand'?)",
        None,
    ),
    (
        "proc f() { create 1 Wre { colour: red, value: 1 } in deck }",
        "t.rules:7:12: error: unknown card type 'Wre' (did you mean 'Ware'?)",
        None,
    ),
    (
        "proc f() { create 1 Ware { color: red, value: 1 } in deck }",
        "t.rules:7:28: error: card type Ware has no field 'color' (did you mean 'colour'?)",
        None,
    ),
    (
        'ability sell(p: Player) "Sell" { tier 0 "x" { } }\nproc f(p: Player) { sell(p) }',
        "t.rules:8:21: error: 'sell' is an ability: it is resolved with 'use'",
        "write 'use sell(...) upto N' to offer its tiers up to N",
    ),
    (
        "proc g(p: Player) { }\nproc f(p: Player) { use g(p) upto 1 }",
        "t.rules:8:21: error: 'g' is a procedure, not an ability",
        "call it as 'g(...)'; 'use' offers the tiers of an ability",
    ),
    (
        "const X = 1\nproc f() { set X = 2 }",
        "t.rules:8:12: error: 'X' is a constant: it cannot be set",
        "declare it as a variable to change it: var X: ... = ... public",
    ),
    ('proc f() { let x = 1 + "a" }', "t.rules:7:24: error: a side of '+' must be int, not str", None),
    ("proc f() { let x = len(deck, deck) }", "t.rules:7:20: error: len takes 1 argument(s), not 2", None),
    (
        "proc f() { let x = it.colour }",
        "t.rules:7:20: error: 'it' names an element only inside where, sorted by, max by, min by, group by, map",
        None,
    ),
    (
        "proc f(p: Player) { end game winners p }",
        "t.rules:7:38: error: the winners must be list of Player, not Player",
        None,
    ),
    ("proc f(p: Player) { set gold[p] = true }", "t.rules:7:35: error: the value of gold must be int, not bool", None),
    ("proc f(p: Player) { move hand to deck }", "t.rules:7:26: error: zone hand takes 1 key(s): hand[Player]", None),
    (
        'proc f(p: Player) { draw "two" from deck to hand[p] }',
        "t.rules:7:26: error: the number of cards to draw must be int, not str",
        None,
    ),
    (
        "proc f(p: Player) { let c = choose one from 3 by p }",
        "t.rules:7:45: error: what is chosen from must be a list or a zone, not int",
        None,
    ),
    ('proc f(p: Player) { repeat "x" { } }', "t.rules:7:28: error: the number of repeats must be int, not str", None),
    (
        "proc f(p: Player) { if gold[p] = 2 { } }",
        "t.rules:7:32: error: unexpected '='; expected an operator or '{'",
        "to compare two values write '=='",
    ),
    ("proc f(p: Player) { while gold[p] { } }", "t.rules:7:27: error: a condition must be bool, not int", None),
    ("proc f(p: Player) { let x = gold }", "t.rules:7:29: error: variable gold takes 1 key(s): gold[Player]", None),
    (
        "proc f(p: Player) { let x = hand[p].colour }",
        "t.rules:7:29: error: zone of Ware has no fields",
        "a zone holds cards: take one first, e.g. top(...).colour, or write '... map it.colour'",
    ),
    (
        "proc f(p: Player) { let x = deck[0].colour }",
        "t.rules:7:29: error: zone deck takes no keys",
        "to read a card of it write top(deck), bottom(deck) or first(deck)",
    ),
    (
        "proc f(p: Player) { return 1 }\nproc g(p: Player) { let y = f(p) + 1 }",
        "t.rules:8:29: error: procedure 'f' changes the game and cannot be used inside an expression",
        "call it as a statement: 'let x = f(...)'",
    ),
    ('proc f(p: Player) { say "{q} wins" }', "t.rules:7:27: error: unknown name 'q'", None),
    (
        "zone z: Ware public\nzone z: Ware public",
        "t.rules:8:1: error: 'z' is already declared as a zone at t.rules:7:1",
        None,
    ),
    ("proc f(p: Player) { let x = red.colour }", "t.rules:7:29: error: Colour has no fields", None),
    ("proc f(p: Player) { if p == red { } }", "t.rules:7:24: error: Player and Colour are never equal", None),
    # A '}' missing in the middle of a file is noticed only at the next declaration: the hint names
    # the '{' left open and, by the indentation, the block whose '}' went missing.
    (
        'proc a(p: Player) {\n  if true {\n    say "x"\n\n}\n\nproc b() { }',
        "t.rules:13:1: error: unexpected 'proc'; expected one of a statement, 'elif', 'else', '}'",
        "the '{' at line 7 is never closed; by the indentation, the '}' of the '{' at line 8 is missing before line 11",
    ),
    (
        'proc a(p: Player) {\n  say "{ not a brace }"  # nor { this\n\nproc b() { }',
        "t.rules:10:6: error: unexpected 'b'; expected '(' or an assignment ('=', '+=', '-=')",
        "the '{' at line 7 is never closed",
    ),
    # A match over an enumeration without `else` has an arm for each value (an extension's new
    # value would otherwise run nothing, silently).
    (
        "proc f(c: Ware) { match c.colour { red { } } }",
        "t.rules:7:19: error: this match has no arm for blue of Colour",
        "add an arm for each, or an 'else { }' arm if nothing is to happen",
    ),
    (  # a number a game could not compute is refused where it is written (no int() of 5,000 digits)
        "const BIG = 99999999999999999999",
        "t.rules:7:13: error: the number 99999999999999999999 is beyond 9223372036854775808, the largest a game computes",
        None,
    ),
    (
        "const BIG = " + "9" * 5000,
        "t.rules:7:13: error: the number 99999999999999999999… (5000 digits) is beyond 9223372036854775808, "
        "the largest a game computes",
        None,
    ),
    (
        'proc f(p: Player) { say "n {99999999999999999999}" }',
        "t.rules:7:29: error: the number 99999999999999999999 is beyond 9223372036854775808, the largest a game computes",
        None,
    ),
    (  # a raw CR (a line ending of another system, or pasted) has its own message, not the NUL one
        'proc f(p: Player) { say "a\rb" }',
        "t.rules:7:25: error: a carriage return inside a string: a string stands on one line",
        "write \\r for the character",
    ),
]


@pytest.mark.parametrize(("source", "message", "hint"), ERRORS, ids=[m.split("error: ")[1][:50] for _, m, _ in ERRORS])
def test_error_message_and_hint(source: str, message: str, hint: str | None) -> None:
    """Each mistake gives this first message, located, and this hint (or none)."""
    with pytest.raises(RulebookError) as info:
        rulecraft.load_text(HEAD + source + "\nplay { }\n", "t.rules")
    assert info.value.messages[0] == message
    assert info.value.diagnostics[0].hint == hint
    rendered = str(info.value).splitlines()
    assert rendered[0] == message and rendered[2].strip().startswith("^")
    if hint is not None:
        assert rendered[3] == f"    hint: {hint}"


SCENARIO_ERRORS = [
    (
        'players 2\nmov "1 of coins" to hand[P1]\n',
        "s.scenario:2:1: error: unknown scenario line 'mov' (did you mean 'move'?)",
        "a scenario line starts with one of: game, players, seed, move, set, next, answer, expect",
    ),
    (
        'players 2\nmove "9 of coins" to hand[P1]\n',
        "s.scenario:2:6: error: no card is labelled '9 of coins' (did you mean '5 of coins'?)",
        None,
    ),
    ("players two\n", "s.scenario:1:1: error: 'players' takes a number, not 'two'", None),
    (
        'players 2\nanswer "Sell"\n',
        "s.scenario:2:1: error: 'Sell' is not a legal answer to \"Your turn\" (by P1); legal: Stock a ware, Pass",
        None,
    ),
    (
        "players 2\nanswer Pass\n",
        's.scenario:2:1: error: an answer is the label of an option, in quotes: answer "Pass"',
        None,
    ),
    (
        "players 2\nset gold[P1] == 2\n",
        "s.scenario:2:15: error: unexpected '='; expected an expression",
        "'=' binds or sets a value; '==' compares two values",
    ),
    (
        "players 2\nset gold[P1] = 2\nexpect gold[P1] > 2\n",
        "s.scenario:3:8: error: expected gold[P1] > 2, but gold[P1] is 2",
        None,
    ),
    # A scenario's lines are checked as the rulebook's are (check/fragment.py), before the game is set up.
    (
        "players 2\nset gold[P1] = 5\nexpect gold == 0\n",
        "s.scenario:3:8: error: variable gold takes 1 key(s): gold[Player]",
        None,
    ),
    ("players 2\nexpect len(hand) == 0\n", "s.scenario:2:12: error: zone hand takes 1 key(s): hand[Player]", None),
    ("players 2\nset gold = 7\n", "s.scenario:2:1: error: variable gold takes 1 key(s): gold[Player]", None),
    ('players 2\nmove "1 of cups" to hand\n', "s.scenario:2:21: error: zone hand takes 1 key(s): hand[Player]", None),
    ("players 2\nset purse[P1] = 7\n", "s.scenario:2:1: error: unknown variable 'purse'", None),
    (
        'players 2\nset turns_left = "six"\n',
        "s.scenario:2:18: error: the value of turns_left must be int, not str",
        None,
    ),
    ("players 2\nexpect gold[P1]\n", "s.scenario:2:8: error: an 'expect' line's condition must be bool, not int", None),
    (
        "players 2\nexpect gold[P3] == 0\n",
        "s.scenario:2:13: error: unknown seat 'P3'",
        "the seats of this game are P1, P2",
    ),
    (
        'players 2\nnext draws from stall: "1 of cups"\n',
        "s.scenario:2:17: error: zone stall takes 1 key(s): stall[Player]",
        None,
    ),
    (
        "game tutorial\nplayers 2\ngame guildhall\n",
        "s.scenario:3:1: error: a second 'game' line (the first is at s.scenario:1:1)",
        None,
    ),
    ("players 2\nplayers 3\n", "s.scenario:2:1: error: a second 'players' line (the first is at s.scenario:1:1)", None),
]


@pytest.mark.parametrize(
    ("text", "message", "hint"), SCENARIO_ERRORS, ids=[m.split("error: ")[1][:40] for _, m, _ in SCENARIO_ERRORS]
)
def test_scenario_error(tmp_path: Path, text: str, message: str, hint: str | None) -> None:
    """A mistake in a scenario file is located in that file, with the same care as a rulebook's."""
    path = tmp_path / "s.scenario"
    path.write_text(text, encoding="utf-8")
    tutorial = str(Path(__file__).resolve().parent.parent / "examples" / "tutorial.rules")
    with pytest.raises(RulebookError) as info:
        run_scenario(tutorial, path)
    assert [m.replace(str(tmp_path) + "/", "") for m in info.value.messages] == [message]
    assert info.value.diagnostics[0].hint == hint


COMMAND_ERRORS = [
    (["fmt", "no/such.rules"], 1, "no such file or folder: no/such.rules"),
    (["explain", "no_such_game"], 1, "no rulebook 'no_such_game': not a file, nor a bundled rulebook (bundled: "),
    (["fuzz", "--corpus", "no/such.rules"], 1, "--corpus no/such.rules: cannot read the file: No such file"),
    (["soak", "--totals", "no/such.jsonl"], 1, "no/such.jsonl: No such file or directory"),
    (
        ["simulate", "examples/tutorial.rules", "-n", "0"],
        2,
        "usage: rulecraft simulate",  # argparse's usage, then the one line naming the flag
    ),
    (
        ["simulate", "examples/tutorial.rules", "-n", "1", "--agents", "greedyy"],
        2,
        "rulecraft simulate: error: --agents: unknown agent 'greedyy': choose from random, greedy, human, mcts",
    ),
    (
        ["simulate", "examples/tutorial.rules", "-n", "1", "--players", "9"],
        2,
        "rulecraft simulate: error: --players 9: Market is played by 2 to 4 players",
    ),
    (["soak", "examples/tutorial.rules", "--players", "9"], 2, "rulecraft soak: error: --players 9: Market is played"),
    (["play"], 2, "rulecraft play: error: name a game to play: "),
    (["trace"], 2, "rulecraft trace: error: name a game to trace: "),
    (["play", "examples/tutorial.rules", "--resume", "r.json"], 2, "rulecraft play: error: --resume goes on with"),
    (["replay", "r.json", "--until", "-1"], 2, "usage: rulecraft replay"),
]


@pytest.mark.parametrize(
    ("argv", "code", "message"), COMMAND_ERRORS, ids=[" ".join(a[:2]) + " " + m[:20] for a, _, m in COMMAND_ERRORS]
)
def test_command_error(
    argv: list[str], code: int, message: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Bad input exits 1 and bad usage exits 2, with a plain message, never a traceback."""
    monkeypatch.chdir(Path(__file__).resolve().parent.parent)
    assert main(argv) == code
    err = capsys.readouterr().err
    assert err.startswith(message) and "Traceback" not in err
