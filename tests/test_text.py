"""Text everywhere: `{expr}` placeholders are filled in every string that is filled in (string
expressions, prompts, `say`, `end game unfinished`), checked once, and printed back by fmt."""

from __future__ import annotations

import pytest
import rulecraft
from rulecraft.authoring.explain import explain
from rulecraft.authoring.fmt import format_text
from rulecraft.errors import RulebookError
from rulecraft.syntax import parser

HEAD = """game T players 2..2
card Chip { n: int } label "chip {n}"
zone hand[Player]: Chip owner
var points[Player]: int = 0 public
setup { for p in players { create 1 Chip { n: 1 } in hand[p]  create 1 Chip { n: 2 } in hand[p] } }
"""


def said(body: str) -> list[str]:
    game = rulecraft.load_text(HEAD + body, "t.rules").new_game(players=2, seed=1)
    return [e.text for e in game.events if e.verb == "say"]


def test_a_string_expression_is_filled_in_where_it_is_evaluated() -> None:
    """`let t = "{q} holds {c}"` fills the placeholders at once: the text keeps the values of then."""
    assert said('play { let q = players[0]  let t = "{q} holds {len(hand[q])}"  set points[q] = 5  say "{t}" }') == [
        "P1 holds 2"
    ]


def test_any_expression_may_stand_in_a_placeholder() -> None:
    """A placeholder holds any expression: arithmetic, calls, an index, a conditional, a list."""
    body = (
        'play { let q = players[1]  say "{points[q] + 3} {len(hand[q])} {hand[q]} '
        '{if points[q] > 0 then \\"some\\" else \\"none\\"} {[1, 2]}" }'
    )
    assert said(body) == ["3 2 hand[P2] none [1, 2]"]


def test_double_braces_are_braces() -> None:
    """`{{` and `}}` write one brace each, in templates and in plain strings alike."""
    assert said('play { let q = players[0]  say "{{q}} is {q}"  say "{{}}" }') == ["{q} is P1", "{}"]


def test_a_prompt_is_filled_in() -> None:
    """The prompt of a choice and of a menu names the values of the moment."""
    game = rulecraft.load_text(
        HEAD
        + """play {
  for q in players {
    let c = choose one from hand[q] by q prompt "{q}: keep one of {len(hand[q])}"
    choose by q prompt "{q} has {points[q]} points" { option "Pass" { }  option "Score" { set points[q] += 1 } }
  }
}""",
        "t.rules",
    ).new_game(players=2, seed=1)
    first = game.current_decision()
    assert first is not None and first.prompt == "P1: keep one of 2"
    game.apply(first.options[0].label)
    menu = game.current_decision()
    assert menu is not None and menu.prompt == "P1 has 0 points"


def test_the_reason_a_game_stops_unfinished_is_filled_in() -> None:
    """`end game unfinished` fills its text as `say` does, with any expression."""
    game = rulecraft.load_text(HEAD + 'play { end game unfinished "after {len(players) * 2} turns" }', "t.rules")
    assert game.new_game(players=2, seed=1).result()["unfinished"] == "after 4 turns"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('say "{q} holds"', "t.rules:6:14: error: unknown name 'q'"),
        ('say "{len(hand[q])}"', "t.rules:6:23: error: unknown name 'q'"),
        ('let x = "a {points}"', "t.rules:6:20: error: variable points takes 1 key(s): points[Player]"),
        ('say "{1 +}"', "t.rules:6:17: error: in this placeholder: unexpected end of the placeholder"),
        ('say "{q"', "t.rules:6:13: error: this placeholder is not closed"),
        ('say "a } b"', "t.rules:6:15: error: a '}' that closes no placeholder"),
        ('say "a { } b"', "t.rules:6:15: error: an empty placeholder"),
    ],
)
def test_a_placeholder_that_cannot_be_filled_is_a_located_error(text: str, message: str) -> None:
    """Unknown names, wrong keys and syntax errors inside a placeholder point inside the string, with a caret."""
    with pytest.raises(RulebookError) as info:
        rulecraft.load_text(HEAD + "play { " + text + " }", "t.rules")
    first, source, caret = str(info.value).splitlines()[:3]
    assert first.startswith(message)
    column = int(message.split(":")[2])
    assert caret.index("^") - (len(source) - len(source.lstrip())) == column - 1


def test_a_template_is_parsed_once_with_spans_inside_the_string() -> None:
    """The parser gives a template of text and expressions, each expression located where it is written."""
    rb = parser.parse('play { say "a {x + 1} b" }', "t.rules")
    [play] = rb.decls
    [say] = play.body.stmts  # type: ignore[attr-defined]
    parts = say.text.parts
    assert parts[0] == "a " and parts[2] == " b"
    assert (parts[1].span.line, parts[1].span.column, parts[1].span.end_column) == (1, 16, 21)


def test_fmt_prints_templates_back_as_they_read() -> None:
    """fmt keeps placeholders, escapes inside them and double braces; its output formats to itself."""
    text = (
        HEAD + 'play {\n  let t = "{{x}} {len(hand[players[0]])} {if true then \\"a\\" else \\"b\\"}"\n'
        '  say "{t}{points[players[1]] + 1}"\n  end game unfinished "{{{len(players)}}}"\n}\n'
    )
    assert "play {" + text.split("play {")[1] in format_text(text) and format_text(format_text(text)) == format_text(
        text
    )
    game = rulecraft.load_text(text, "t.rules").new_game(players=2, seed=1)
    assert [e.text for e in game.events if e.verb == "say"] == ["{x} 2 a1"]
    assert game.result()["unfinished"] == "{2}"


def test_explain_shows_placeholders_as_written() -> None:
    """explain quotes a text with its placeholders as the author wrote them."""
    program = rulecraft.load_text(HEAD + 'play { say "{players[0]} has {len(hand[players[0]])}" }', "t.rules").program
    assert "“{players[0]} has {len(hand[players[0]])}”" in explain(program)
