"""Highlighting: the Pygments lexer and the TextMate grammar take their words from the Lark grammar."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from importlib import resources
from pathlib import Path

import pytest
import rulecraft
from pygments.token import Error, Keyword, Name, Operator, Token
from rulecraft.editor import textmate
from rulecraft.editor.lexer import DECLARED, RulecraftLexer, RulecraftScenarioLexer
from rulecraft.editor.words import words
from rulecraft.syntax.parser import parse_lexemes

ROOT = Path(__file__).resolve().parent.parent
EVERY_CONSTRUCT = ROOT / "tests" / "authoring" / "every_construct.rules"
RULEBOOKS = [EVERY_CONSTRUCT, *sorted((ROOT / "examples").rglob("*.rules"))]
SCENARIOS = sorted((ROOT / "examples").rglob("*.scenario"))


def _bundled() -> list[tuple[str, str]]:
    root = resources.files("rulecraft.rulebooks")
    return [(f"{n}.rules", root.joinpath(f"{n}.rules").read_text(encoding="utf-8")) for n in rulecraft.bundled_names()]


SOURCES = [(p.relative_to(ROOT).as_posix(), p.read_text(encoding="utf-8")) for p in RULEBOOKS] + _bundled()


def test_pygmentize_highlights_every_construct_without_an_error_token() -> None:
    """`pygmentize -l rulecraft FILE` finds the lexer by its entry point and lexes every construct."""
    out = subprocess.run(
        [sys.executable, "-m", "pygments", "-l", "rulecraft", "-f", "raw", str(EVERY_CONSTRUCT)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    kinds = {line.split("\t")[0] for line in out.splitlines() if line}
    assert "Token.Error" not in kinds
    assert {"Token.Keyword.Declaration", "Token.Keyword", "Token.Operator.Word", "Token.Name.Builtin"} <= kinds


def test_pygmentize_finds_the_scenario_lexer_by_file_name() -> None:
    """A `.scenario` file is highlighted by the scenario lexer (its line keywords, then the language)."""
    out = subprocess.run(
        [sys.executable, "-m", "pygments", "-N", "examples/scenarios/tutorial_sell.scenario"],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    ).stdout
    assert out.strip() == "rulecraft-scenario"


@pytest.mark.parametrize(("name", "text"), SOURCES, ids=[n for n, _ in SOURCES])
def test_every_token_of_the_parser_starts_a_highlighted_token(name: str, text: str) -> None:
    """Each token Lark reads starts a Pygments token; keywords are highlighted as keywords; no Error."""
    starts = {}
    for pos, kind, value in RulecraftLexer().get_tokens_unprocessed(text):
        assert kind is not Error, f"{name}: Error token {value!r} at offset {pos}"
        if value.strip():
            starts[pos] = kind
    reserved = set(words().reserved())
    offsets = [0]
    for line in text.splitlines(keepends=True):
        offsets.append(offsets[-1] + len(line))
    _, lexemes = parse_lexemes(text, name)
    for lexeme in lexemes:  # the tokens the parser reads
        where = offsets[lexeme.span.line - 1] + lexeme.span.column - 1
        assert where in starts, f"{lexeme.span}: {lexeme.text!r} is split differently"
        if lexeme.text in reserved and lexeme.type != "NAME":
            kind = starts[where]
            assert kind in Keyword or kind in Operator.Word or kind in Name.Builtin, (lexeme, kind)


@pytest.mark.parametrize("path", SCENARIOS, ids=[p.name for p in SCENARIOS])
def test_scenarios_lex_without_an_error_token(path: Path) -> None:
    """Scenario files (a `game` line with a path, `answer`, `expect`) lex cleanly."""
    tokens = list(RulecraftScenarioLexer().get_tokens(path.read_text(encoding="utf-8")))
    assert [v for k, v in tokens if k is Error] == []
    assert (Token.Keyword.Declaration, "expect") in tokens or (Token.Keyword.Declaration, "answer") in tokens


def test_a_character_outside_the_language_is_an_error_token() -> None:
    """The lexer flags what the grammar does not allow (so the test above can fail)."""
    tokens = list(RulecraftLexer().get_tokens('let x = a @ b\nsay "open\n'))
    assert (Error, "@") in tokens
    assert (Error, "\n") in tokens  # a string is never continued on the next line


def test_the_keywords_are_the_grammars() -> None:
    """Every word the grammar spells (anonymous strings and named terminals) has a kind, and no other word."""
    grammar = resources.files("rulecraft.grammar").joinpath("rules.lark").read_text(encoding="utf-8")
    code = "\n".join(line.split("//")[0] for line in grammar.splitlines())
    spelled = set(re.findall(r'"([A-Za-z_]+)"', code)) | {"bottom", "of"}  # BOTTOM_OF is a regular expression
    assert set(words().reserved()) == spelled
    assert set(DECLARED) <= set(words().declarations)


def test_the_textmate_grammar_is_generated_from_the_keyword_list() -> None:
    """editors/rulecraft.tmLanguage.json is what `python -m rulecraft.editor.textmate` writes now."""
    checked_in = (ROOT / "editors" / "rulecraft.tmLanguage.json").read_text(encoding="utf-8")
    assert checked_in == textmate.text(), (
        "regenerate: python -m rulecraft.editor.textmate editors/rulecraft.tmLanguage.json"
    )


def test_the_textmate_grammar_gives_every_grammar_word_one_keyword_scope() -> None:
    """Each reserved word matches exactly one of the grammar's keyword patterns, and the patterns compile."""
    grammar = json.loads((ROOT / "editors" / "rulecraft.tmLanguage.json").read_text(encoding="utf-8"))
    patterns = grammar["repository"]["keyword"]["patterns"]
    for word in words().reserved():
        scopes = [p["name"] for p in patterns if re.fullmatch(p["match"], word)]
        assert len(scopes) == 1, (word, scopes)
    assert not any(re.fullmatch(p["match"], "hand") for p in patterns)


def test_the_vscode_extension_uses_the_generated_grammar_and_the_language_server() -> None:
    """editors/vscode/ names the generated grammar's file and scope, and starts `rulecraft lsp`."""
    package = json.loads((ROOT / "editors" / "vscode" / "package.json").read_text(encoding="utf-8"))
    (grammar,) = package["contributes"]["grammars"]
    assert (ROOT / "editors" / Path(grammar["path"]).name).exists()  # copied beside package.json to install
    assert grammar["scopeName"] == textmate.grammar()["scopeName"]
    (language,) = package["contributes"]["languages"]
    assert {".rules", ".scenario"} == set(language["extensions"])
    assert package["contributes"]["configuration"]["properties"]["rulecraft.command"]["default"] == ["rulecraft", "lsp"]
