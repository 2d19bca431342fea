"""Pygments lexers for rulebooks (`.rules`) and scenarios (`.scenario`).

Registered by entry point (`pygments.lexers` in pyproject.toml), so `pygmentize -l rulecraft
FILE` and Sphinx or MkDocs code blocks marked `rulecraft` are highlighted once rulecraft is
installed with Pygments (`pip install 'rulecraft[editor]'`). The keywords come from the grammar
through `words.py`; nothing here lists a keyword of its own.
"""

from __future__ import annotations

from typing import Any, ClassVar

from pygments.lexer import RegexLexer, bygroups, inherit, words
from pygments.token import (
    Comment,
    Error,
    Keyword,
    Name,
    Number,
    Operator,
    Punctuation,
    String,
    Whitespace,
)

from ..authoring.scenario import KEYWORDS as SCENARIO_KEYWORDS
from .words import PSEUDO_NAMES
from .words import words as language_words

NAME = r"[A-Za-z_][A-Za-z0-9_]*"

# What the name after a declaration keyword is (for its colour); every key is a declaration word
# of the grammar (tests/test_editor.py checks it).
DECLARED: dict[str, Any] = {
    "game": Name.Class,
    "enum": Name.Class,
    "card": Name.Class,
    "zone": Name.Variable.Global,
    "var": Name.Variable.Global,
    "const": Name.Constant,
    "fn": Name.Function,
    "proc": Name.Function,
    "ability": Name.Function,
    "rule": Name.Function,
    "invariant": Name.Function,
}


def _tokens() -> dict[str, list[Any]]:
    w = language_words()
    reserved = set(w.reserved())
    not_reserved = rf"(?!(?:{'|'.join(sorted(reserved))})\b)"  # `end game winners` declares nothing
    declared = [
        (rf"\b({word})(\s+){not_reserved}({NAME})", bygroups(Keyword.Declaration, Whitespace, kind))
        for word, kind in DECLARED.items()
    ]
    return {
        "root": [
            (r"\s+", Whitespace),
            (r"#[^\n]*", Comment.Single),
            (r'"', String.Double, "string"),
            *declared,
            # `top(pile)`, `max(a, b)`: a builtin called, though the word is also a keyword.
            (words(w.builtins, prefix=r"\b", suffix=r"\b(?=\s*\()"), Name.Builtin),
            (words(w.declarations, prefix=r"\b", suffix=r"\b"), Keyword.Declaration),
            (words(w.constants, prefix=r"\b", suffix=r"\b"), Keyword.Constant),
            (words(w.operators, prefix=r"\b", suffix=r"\b"), Operator.Word),
            (words(w.keywords, prefix=r"\b", suffix=r"\b"), Keyword),
            (words(w.modifiers, prefix=r"\b", suffix=r"\b"), Keyword.Pseudo),
            (words(w.types, prefix=r"\b", suffix=r"\b"), Keyword.Type),
            (words(tuple(b for b in w.builtins if b not in reserved), prefix=r"\b", suffix=r"\b"), Name.Builtin),
            (words(PSEUDO_NAMES, prefix=r"\b", suffix=r"\b"), Name.Builtin.Pseudo),
            (rf"{NAME}(?=\s*\()", Name.Function),
            (NAME, Name),
            (r"[0-9]+", Number.Integer),
            (r"\.\.|==|!=|<=|>=|\+=|-=|//|[-+*%<>=.]", Operator),
            (r"[{}()\[\],:]", Punctuation),
        ],
        "string": [
            (r"\\.", String.Escape),
            (r"\{[^{}\"\n]*\}", String.Interpol),
            (r'[^"\\{\n]+', String.Double),
            (r"\{", String.Double),
            (r'"', String.Double, "#pop"),
            (r"\n", Error, "#pop"),
        ],
    }


class RulecraftLexer(RegexLexer):
    """A rulebook of the rulecraft language."""

    name = "Rulecraft"
    aliases: ClassVar[list[str]] = ["rulecraft", "rules"]
    filenames: ClassVar[list[str]] = ["*.rules"]
    mimetypes: ClassVar[list[str]] = ["text/x-rulecraft"]
    url = "https://github.com/rulecraft/rulecraft"
    tokens: ClassVar[dict[str, list[Any]]] = _tokens()


class RulecraftScenarioLexer(RulecraftLexer):
    """A scenario file: a line keyword (`move`, `answer`, `expect`, …), then rulebook language."""

    name = "Rulecraft scenario"
    aliases: ClassVar[list[str]] = ["rulecraft-scenario"]
    filenames: ClassVar[list[str]] = ["*.scenario"]
    mimetypes: ClassVar[list[str]] = ["text/x-rulecraft-scenario"]
    tokens: ClassVar[dict[str, list[Any]]] = {
        "root": [
            # `game ../tutorial.rules`: the rest of the line is a rulebook name or path.
            (r"^([ \t]*)(game)([ \t]+)([^\s#]+)", bygroups(Whitespace, Keyword.Declaration, Whitespace, String.Other)),
            (words(SCENARIO_KEYWORDS, prefix=r"^([ \t]*)", suffix=r"\b"), bygroups(Whitespace, Keyword.Declaration)),
            inherit,
        ]
    }
