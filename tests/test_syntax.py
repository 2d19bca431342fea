"""Syntax errors: each bad input gives exactly this located message (and a caret, never a traceback)."""

from __future__ import annotations

import pytest
import rulecraft
from rulecraft.errors import RulebookError, Span
from rulecraft.syntax import ast as s
from rulecraft.syntax.parser import parse

SYNTAX_ERRORS = [
    (
        "game G players 2..4\nenum C { a, b }\nproc x() { let y = = 2 }\n",
        "bad.rules:3:20: error: unexpected '='; expected an expression or 'choose'",
    ),
    ("proc x() {\n let y = 2;\n}\n", "bad.rules:2:11: error: unexpected character ';'"),
    ("proc x() {\n  let y = 2\n", "bad.rules:2:12: error: unexpected end of file; expected a statement or '}'"),
    (
        "zone hand[Player]: Card secret\n",
        "bad.rules:1:25: error: unexpected 'secret'; expected a visibility (public, owner, others, hidden, top, count)",
    ),
    ("game G players two..4\n", "bad.rules:1:16: error: unexpected 'two'; expected a number"),
    ("proc x() { y := 1 }\n", "bad.rules:1:14: error: unexpected ':'; expected '(' or an assignment ('=', '+=', '-=')"),
    ("proc x() { if a && b { } }\n", "bad.rules:1:17: error: unexpected character '&'"),
]


@pytest.mark.parametrize(("source", "message"), SYNTAX_ERRORS)
def test_syntax_error_message(source: str, message: str) -> None:
    """A syntax error names file:line:col and what was expected."""
    with pytest.raises(RulebookError) as info:
        parse(source, "bad.rules")
    assert info.value.messages == [message]


def test_syntax_error_shows_line_and_caret() -> None:
    """The rendered error shows the offending line and a caret under the column."""
    with pytest.raises(RulebookError) as info:
        parse("game G players 2..4\n\nproc x() { move to deck }\n", "bad.rules")
    lines = str(info.value).splitlines()
    # Keywords are not reserved: `to` is read as the name of what moves, so `deck` is the surprise.
    assert lines[0] == "bad.rules:3:20: error: unexpected 'deck'; expected 'to'"
    assert lines[1] == "    proc x() { move to deck }"
    assert lines[2] == "    " + " " * 19 + "^^^^"


def test_hint_for_assignment_in_condition() -> None:
    """Writing '=' where a comparison belongs gets a hint."""
    with pytest.raises(RulebookError) as info:
        parse("proc x() {\n if a = 2 { }\n}\n", "bad.rules")
    assert "hint: to compare two values write '=='" in str(info.value)


def test_ast_carries_spans_but_compares_without_them() -> None:
    """Spans locate nodes yet do not take part in equality, so layout does not change meaning."""
    a = parse("game G players 1..2\nconst X = 1 + 2\n", "a.rules")
    b = parse("game G players 1..2\n\n\nconst   X=1+2", "b.rules")
    assert a == b
    const = a.decls[1]
    assert isinstance(const, s.ConstDecl)
    assert (const.span.line, const.span.column) == (2, 1)
    assert const.value == s.Binary("+", s.IntLit(1), s.IntLit(2))


def test_span_is_keyword_only_and_outside_eq_and_repr() -> None:
    """A node's span is keyword-only and takes part in neither equality nor repr."""
    here = Span("x.rules", 3, 4, 3, 5)
    assert s.IntLit(1) == s.IntLit(1, span=here)
    assert repr(s.IntLit(1, span=here)) == "IntLit(value=1)"
    assert s.IntLit(1, span=here).span == here
    with pytest.raises(TypeError):
        s.IntLit(1, here)  # type: ignore[call-arg]


def test_a_rule_without_bindings_needs_no_parentheses() -> None:
    """`rule storm when …` reads as `rule storm() when …`, and runs the same."""
    head = "game G players 1..1\nvar alarms: int = 0 public\nvar armed: int = 0 public\n"
    play = "play { set armed = 1 }\n"
    bare = rulecraft.load_text(
        head + "rule storm when armed > 0 and alarms == 0 { set alarms = 1 }\n" + play, "g.rules"
    )
    paren = rulecraft.load_text(
        head + "rule storm() when armed > 0 and alarms == 0 { set alarms = 1 }\n" + play, "g.rules"
    )
    assert bare.program.rules == paren.program.rules and bare.program.rules[0].bindings == ()
    assert bare.new_game(players=1, seed=0).state.vars["alarms"] == 1
