"""Syntax errors in the author's words: what was expected, what was found, and a hint where one helps."""

from __future__ import annotations

import re

from lark import Token, Tree
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from ..errors import Diagnostic, RulebookError, Span, source_lines
from .grammar import grammar_parser

_TOKEN_WORDS = {
    "NAME": "a name",
    "INT": "a number",
    "STRING": "a string",
    "VISIBILITY": "a visibility (public, owner, hidden, top, count)",
    "QUANTITY": "one, exactly, upto, any or order",
    "COMP_OP": "a comparison",
    "ADD_OP": "'+' or '-'",
    "MUL_OP": "'*', '//' or '%'",
    "ASSIGN_OP": "an assignment ('=', '+=', '-=')",
    "$END": "the end of the file",
    "SHUFFLED": "'shuffled'",
    "BOTTOM_OF": "'bottom of'",
}


def _describe(terminal: str) -> str:
    if terminal in _TOKEN_WORDS:
        return _TOKEN_WORDS[terminal]
    try:
        pattern = grammar_parser().get_terminal(terminal).pattern
    except KeyError:
        return terminal
    if pattern.type == "str":
        return f"'{pattern.value}'"
    return {r"\.\.": "'..'"}.get(pattern.value, terminal)


def _found(token: Token) -> str:
    if token.type == "$END":
        return "end of file"
    if token.type in ("NAME", "INT", "STRING"):
        kind = {"INT": "number", "STRING": "string"}.get(token.type)
        return f"{kind} {token.value!s}" if kind else f"'{token.value}'"
    return f"'{token.value}'"


def syntax_diagnostic(file: str, exc: UnexpectedInput) -> Diagnostic:
    line, column = max(exc.line, 1), max(exc.column, 1)
    if isinstance(exc, UnexpectedToken):
        acceptable = set(exc.expected)
        if exc.interactive_parser is not None:
            try:
                acceptable = set(exc.interactive_parser.accepts())
            except Exception:
                acceptable = set(exc.expected)
        expected = sorted({_describe(t) for t in acceptable if not t.startswith("__") or t.startswith("__ANON")})
        message = f"unexpected {_found(exc.token)}"
        if exc.token.type == "$END":
            line, column = _end_position(exc)
        width = len(str(exc.token.value)) if exc.token.type != "$END" else 1
        span = Span(file, line, column, line, column + width)
        hint = _hint_for(exc.token, expected, _line_before(exc, line, column))
        shown = _summarise(expected)
        if shown:
            message += "; expected " + (" or ".join(shown) if len(shown) <= 2 else "one of " + ", ".join(shown))
        return Diagnostic(span, message, hint=hint)
    if isinstance(exc, UnexpectedCharacters):
        char = exc.char if hasattr(exc, "char") else "?"
        hint = "statements need no ';' in rulecraft: put each on its own line" if char == ";" else None
        if char in "&|!":
            hint = "write 'and', 'or', 'not'"
        elif char == "'":
            hint = 'strings are written in double quotes: "..."'
        elif char == '"':
            hint = "this string is not closed on its line: end it with '\"'"
        elif char == "-" and re.search(r"\bplayers\s+\d+$", _line_before(exc, line, column).rstrip()):
            hint = "write the number of players as a range: players 2..4"
        return Diagnostic(Span(file, line, column, line, column + 1), f"unexpected character {char!r}", hint=hint)
    if isinstance(exc, UnexpectedEOF):
        return Diagnostic(Span(file, line, column), "unexpected end of the file")
    return Diagnostic(Span(file, line, column), str(exc).splitlines()[0])


# Long lists of what may come next read badly: a family of tokens is named as a whole when
# most of it is expected (the grammar's expression and statement starts, and operators).
_FAMILIES = [
    (
        "a statement",
        {
            "'attempt'",
            "'choose'",
            "'create'",
            "'draw'",
            "'end'",
            "'fail'",
            "'for'",
            "'if'",
            "'let'",
            "'match'",
            "'move'",
            "'repeat'",
            "'require'",
            "'return'",
            "'reveal'",
            "'say'",
            "'secret'",
            "'set'",
            "'together'",
            "'use'",
            "'while'",
            "a name",
        },
    ),
    (
        "an expression",
        {"'('", "'-'", "'['", "'false'", "'if'", "'none'", "'not'", "'true'", "'{'", "a name", "a number", "a string"},
    ),
    (
        "an operator",
        {
            "'*', '//' or '%'",
            "'+' or '-'",
            "'.'",
            "'['",
            "'and'",
            "'group'",
            "'in'",
            "'map'",
            "'max'",
            "'min'",
            "'not'",
            "'or'",
            "'sorted'",
            "'where'",
            "a comparison",
            "'..'",
        },
    ),
]


def _summarise(expected: list[str]) -> list[str]:
    """Name a family of expected tokens as a whole when more than half of it is expected."""
    left = set(expected)
    named = []
    for name, family in _FAMILIES:
        if len(left & family) * 2 > len(family):
            named.append(name)
            left -= family
    return named + sorted(left)


def _end_position(exc: UnexpectedToken) -> tuple[int, int]:
    text: str = getattr(exc, "_source_text", "") or ""
    lines = source_lines(text) or [""]
    return len(lines), len(lines[-1]) + 1


def _line_before(exc: UnexpectedInput, line: int, column: int) -> str:
    """The text of the error's line before the error's column (what the writer just wrote)."""
    text: str = getattr(exc, "_source_text", "") or ""
    lines = source_lines(text)
    return lines[line - 1][: column - 1] if 0 < line <= len(lines) else ""


_HINTS_AFTER = [  # (the text before ends with this pattern, the unexpected token, the hint)
    (r"\belse\s*$", "if", "write 'elif' for another condition: } elif x > 1 { ... }"),
    (r"\bfor\s+\w+\s*$", "of", "write 'for x in ...'"),
    (r"=\s*$", "=", "'=' binds or sets a value; '==' compares two values"),
    (r"\bchoose\s*$", "*quantity", "a choice of values is bound to a name: let c = choose one from ..."),
    (
        r"\bfn\s+\w+\s*\(.*\)\s*$",
        "{",
        "a fn is one expression: fn f(p: Player) = ...; write a proc for a block of statements",
    ),
    (
        r"\bability\s+\w+\s*\(.*\)\s*$",
        "{",
        'an ability has a text before its tiers: ability name(p: Player) "What it does" { tier ... }',
    ),
    (r"\btier\s*$", "*any", 'a tier has a level and a text: tier 1 "Gain 1 point" { ... }'),
    (r"\brule\s+\w+\s*\(.*\)\s*$", "{", "a rule has a condition: rule name(p in players) when ... { ... }"),
    (r",\s*$", "]", "no comma after the last element of a list"),
]


def _hint_for(token: Token, expected: list[str], before: str = "") -> str | None:
    """Recognise common slips and say what to write instead."""
    value = str(token.value)
    for pattern, unexpected, hint in _HINTS_AFTER:
        if not re.search(pattern, before):
            continue
        if (
            unexpected == value
            or unexpected == "*any"
            or (unexpected == "*quantity" and value in ("one", "exactly", "upto", "any", "order"))
        ):
            return hint
    if token.type == "VISIBILITY" and expected == ["'='"]:
        return "a variable needs an initial value: var n: int = 0 public"
    if expected == ["'upto'"]:
        return "'use' names the highest tier offered: use name(p) upto 2"
    if expected == ["'to'"] and re.search(r"\breveal\s*\(", before):
        return "'reveal' is a statement (reveal CARDS to PLAYERS): give a procedure named reveal another name"
    if value in ("+", "-") and "an assignment ('=', '+=', '-=')" in expected:
        return f"to add or take away 1 write 'n {value}= 1'"
    if value == ":" and expected == ["'='"]:
        return "write '=' (':=' is not rulecraft)"
    if value == "-" and re.search(r"\bplayers\s+\d+\s*$", before):
        return "write the number of players as a range: players 2..4"
    if value == ")" and expected == ["':'"]:
        return "every parameter has a type: (p: Player, n: int)"
    if token.type == "$END" and "'}'" in expected:
        return "a '{' is never closed"
    if value == "=" and "'=='" not in expected and "a comparison" in expected:
        return "to compare two values write '=='"
    if value in ("&&", "||", "!"):
        return "write 'and', 'or', 'not'"
    if token.type == "NAME" and value in ("else", "elif"):
        return "'else' and 'elif' follow the closing '}' of an 'if'"
    if value == ":" and "'{'" in expected:
        return "blocks are written in braces: { ... }"
    return None


MAX_NESTING = 100  # levels of nested blocks and expressions; deeper text is refused, not recursed into


def check_nesting(tree: Tree[Token], file: str, text: str) -> None:
    """Refuse text nested deeper than MAX_NESTING (the later stages recurse once per level)."""
    stack: list[tuple[Tree[Token], int]] = [(tree, 0)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_NESTING:
            meta = node.meta
            span = Span(
                file,
                getattr(meta, "line", 1),
                getattr(meta, "column", 1),
                getattr(meta, "end_line", 0),
                getattr(meta, "end_column", 0),
            )
            raise RulebookError(
                [
                    Diagnostic(
                        span,
                        f"nested more than {MAX_NESTING} levels deep: split it into procedures, functions or constants",
                    )
                ],
                {file: text},
            )
        stack.extend((child, depth + 1) for child in node.children if isinstance(child, Tree))
