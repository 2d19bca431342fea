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
    "VISIBILITY": "a visibility (public, owner, others, hidden, top, count)",
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
        before = _line_before(exc, line, column)
        hint = _hint_for(exc.token, expected, before)
        # A declaration's word at the start of a line inside a block reads as a name (`proc b()`
        # as a call of `proc`): a '{' left open above is the likelier mistake.
        if ("'}'" in expected and (hint is None or exc.token.type == "$END")) or _DECLARATION_START.match(before):
            hint = unclosed_brace(getattr(exc, "_source_text", "") or "", line, column) or hint
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
            "'tell'",
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


_DECLARATION_START = re.compile(
    r"^(enum|card|zone|var|const|fn|proc|ability|rule|invariant|setup|play|include|extend|override)\s+\w*\s*$"
)


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


def unclosed_brace(text: str, line: int, column: int) -> str | None:
    """Name the '{' still open where a '}' was expected (at `line`:`column`), and where the
    indentation says its '}' went missing: the first '}' that closed a '{' of another indentation.

    A missing '}' in the middle of a file is only noticed at the next declaration, lines below;
    the braces' indentation usually shows where it belongs."""
    opened: list[tuple[int, int]] = []  # (line, indentation of its line) of each '{' still open
    misfit: tuple[int, int] | None = None  # (line of a '{', line of the '}' that closed it at another indentation)
    for number, row in enumerate(text.split("\n")[:line], 1):
        indent = len(row) - len(row.lstrip(" \t"))
        end = column - 1 if number == line else len(row)
        in_string = False
        i = 0
        while i < end:
            ch = row[i]
            if in_string:
                if ch == "\\":
                    i += 1
                elif ch == '"':
                    in_string = False
            elif ch == '"':
                in_string = True
            elif ch == "#":
                break
            elif ch == "{":
                opened.append((number, indent))
            elif ch == "}" and opened:
                start, start_indent = opened.pop()
                if misfit is None and row[:i].strip() == "" and indent != start_indent:
                    misfit = (start, number)
            i += 1
    if not opened:
        return None
    first = f"the '{{' at line {opened[-1][0]} is never closed"
    if misfit is not None:
        start, closed = misfit
        return f"{first}; by the indentation, the '}}' of the '{{' at line {start} is missing before line {closed}"
    return first


MAX_NESTING = 100  # levels of nested blocks and expressions; deeper text is refused, not recursed into
# Levels of the tree in all, each operator of a chain counted: the later stages recurse once per level of
# the tree (a chain `1 + 2 + 3` is a tree of `+` on the left), and keep well within Python's stack at this.
MAX_DEPTH = 200
# A left operand of the same kind as its operator continues a chain (`a + b - c`, `p and q and r`,
# `xs where ... map ...`): one level of nesting as it is written, however long the chain.
_QUERIES = frozenset({"where_op", "sorted_op", "max_by_op", "min_by_op", "group_by_op", "map_op"})
_CHAINS = {"binary": frozenset({"binary"}), "and_op": frozenset({"and_op"}), "or_op": frozenset({"or_op"})}
_CHAINS.update(dict.fromkeys(_QUERIES, _QUERIES))


def check_nesting(
    tree: Tree[Token], file: str, text: str, start: tuple[int, int] = (0, 0)
) -> dict[int, tuple[int, int]]:
    """Refuse text nested deeper than MAX_NESTING (the later stages recurse once per level), each
    chain of operators counted as one level, or deeper than MAX_DEPTH levels of the tree in all.

    `start` is the nesting and levels the tree stands at (a placeholder's expression stands inside its
    string); returns the same of each string token that may hold placeholders, by its id, so that
    the placeholders' expressions are counted on from there (parser.py)."""
    strings: dict[int, tuple[int, int]] = {}
    stack: list[tuple[Tree[Token], int, int]] = [(tree, *start)]
    while stack:
        node, depth, levels = stack.pop()
        if depth > MAX_NESTING or levels > MAX_DEPTH:
            meta = node.meta
            span = Span(
                file,
                getattr(meta, "line", 1),
                getattr(meta, "column", 1),
                getattr(meta, "end_line", 0),
                getattr(meta, "end_column", 0),
            )
            message = (
                f"nested more than {MAX_NESTING} levels deep: split it into procedures, functions or constants"
                if depth > MAX_NESTING
                else f"a chain of operators more than {MAX_DEPTH} levels deep in all: split it into constants "
                "or functions"
            )
            raise RulebookError([Diagnostic(span, message)], {file: text})
        chain = _CHAINS.get(node.data) if isinstance(node.data, str) else None
        for i, child in enumerate(node.children):
            if isinstance(child, Tree):
                same = i == 0 and chain is not None and child.data in chain
                stack.append((child, depth if same else depth + 1, levels + 1))
            elif isinstance(child, Token) and child.type == "STRING" and "{" in child:
                strings[id(child)] = (depth + 1, levels + 1)
    return strings
