"""`rulecraft lsp`: the language server, spoken to over JSON-RPC on a real subprocess's stdio."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from lsprotocol import types as lsp
from pygls.lsp.client import LanguageClient

ROOT = Path(__file__).resolve().parent.parent
EVERY_CONSTRUCT = ROOT / "tests" / "authoring" / "every_construct.rules"

BROKEN = """game Broken players 2..2
var points[Player]: int = 0 public
const LIMIT = 3
play {
  for p in players { set pointz[p] += 1 }
  set LIMIT = 4
}
"""

SMALL = """game Small players 2..2
enum Colour { red, blue }
card Chip { colour: Colour, n: int }
zone hand[Player]: Chip owner
var points[Player]: int = 0 public
fn score(p: Player) = points[p] + len(hand[p] where it.colour == red)
ability bonus(p: Player) "Score" {
  tier 1 "Score 1" { set points[p] += 1 }
}
play {
  for p in players { use bonus(p) upto 1 }
}
"""

Body = Callable[[LanguageClient, dict[str, list[lsp.Diagnostic]], Callable[[str], Awaitable[None]]], Awaitable[Any]]


def session(body: Body, timeout: float = 60) -> Any:
    """Start `rulecraft lsp`, initialize, run the body, shut the server down; return the body's value."""

    async def run() -> Any:
        client = LanguageClient("rulecraft-tests", "1")
        published: dict[str, list[lsp.Diagnostic]] = {}
        arrived: dict[str, asyncio.Event] = {}

        @client.feature(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def on_diagnostics(params: lsp.PublishDiagnosticsParams) -> None:
            published[params.uri] = params.diagnostics
            arrived.setdefault(params.uri, asyncio.Event()).set()

        async def wait_for(uri: str) -> None:
            await asyncio.wait_for(arrived.setdefault(uri, asyncio.Event()).wait(), timeout)
            arrived[uri].clear()

        await client.start_io(sys.executable, "-m", "rulecraft", "lsp")
        try:
            result = await client.initialize_async(
                lsp.InitializeParams(capabilities=lsp.ClientCapabilities(), root_uri=ROOT.as_uri())
            )
            assert result.server_info is not None and result.server_info.name == "rulecraft"
            client.initialized(lsp.InitializedParams())
            return await asyncio.wait_for(body(client, published, wait_for), timeout)
        finally:
            await client.shutdown_async(None)
            client.exit(None)
            await client.stop()

    return asyncio.run(run())


def open_doc(client: LanguageClient, uri: str, text: str, version: int = 1) -> None:
    client.text_document_did_open(
        lsp.DidOpenTextDocumentParams(
            lsp.TextDocumentItem(uri=uri, language_id="rulecraft", version=version, text=text)
        )
    )


def doc(uri: str) -> lsp.TextDocumentIdentifier:
    return lsp.TextDocumentIdentifier(uri=uri)


def at(text: str, needle: str, nth: int = 0, offset: int = 0) -> lsp.Position:
    """The 0-based position of the nth occurrence of `needle` in text (plus offset characters)."""
    start = -1
    for _ in range(nth + 1):
        start = text.index(needle, start + 1)
    line = text.count("\n", 0, start)
    return lsp.Position(line, start - (text.rfind("\n", 0, start) + 1) + offset)


def test_diagnostics_locate_a_checker_error_with_its_hint_and_clear_when_fixed(tmp_path: Path) -> None:
    """Every checker error is published where it stands, with its hint; fixing them clears the list."""
    uri = (tmp_path / "broken.rules").as_uri()

    async def body(client: LanguageClient, published: dict[str, Any], wait_for: Any) -> Any:
        open_doc(client, uri, BROKEN)
        await wait_for(uri)
        first = published[uri]
        fixed = BROKEN.replace("pointz", "points").replace("  set LIMIT = 4\n", "")
        client.text_document_did_change(
            lsp.DidChangeTextDocumentParams(
                text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=2),
                content_changes=[lsp.TextDocumentContentChangeWholeDocument(text=fixed)],
            )
        )
        await wait_for(uri)
        return first, published[uri]

    first, after = session(body)
    unknown, constant = first
    assert unknown.range.start == at(BROKEN, "set pointz")
    assert unknown.range.end == at(BROKEN, "set pointz[p] += 1", offset=len("set pointz[p] += 1"))
    assert unknown.message == "unknown variable 'pointz' (did you mean 'points'?)"
    assert unknown.severity == lsp.DiagnosticSeverity.Error and unknown.source == "rulecraft"
    assert constant.range.start == at(BROKEN, "set LIMIT")
    assert constant.message == (
        "'LIMIT' is a constant: it cannot be set\nhint: declare it as a variable to change it: var LIMIT: ... = ... public"
    )
    assert list(after) == []


def test_diagnostics_of_a_syntax_error_carry_the_parsers_hint(tmp_path: Path) -> None:
    """`fn f(p: Player) { … }` is a syntax error; its hint says a fn is one expression."""
    uri = (tmp_path / "syntax.rules").as_uri()
    text = "game G players 2..2\nfn f(p: Player) { return 1 }\nplay { }\n"

    async def body(client: LanguageClient, published: dict[str, Any], wait_for: Any) -> Any:
        open_doc(client, uri, text)
        await wait_for(uri)
        return published[uri]

    (d,) = session(body)
    assert d.range.start.line == 1
    assert "hint: a fn is one expression" in d.message


def test_hover_definition_references_completion_symbols_and_formatting(tmp_path: Path) -> None:
    """One session over a small rulebook asks every request the server answers."""
    path = tmp_path / "small.rules"
    path.write_text(SMALL, encoding="utf-8")
    uri = path.as_uri()
    messy = SMALL.replace("game Small players 2..2", "game   Small players 2..2")

    async def body(client: LanguageClient, published: dict[str, Any], wait_for: Any) -> dict[str, Any]:
        open_doc(client, uri, SMALL)
        await wait_for(uri)
        out: dict[str, Any] = {"diagnostics": published[uri]}
        use = at(SMALL, "bonus(p) upto")
        out["hover"] = await client.text_document_hover_async(lsp.HoverParams(doc(uri), use))
        out["hover_builtin"] = await client.text_document_hover_async(lsp.HoverParams(doc(uri), at(SMALL, "len(")))
        out["definition"] = await client.text_document_definition_async(lsp.DefinitionParams(doc(uri), use))
        out["param"] = await client.text_document_definition_async(
            lsp.DefinitionParams(doc(uri), at(SMALL, "p] +", nth=0))
        )
        out["references"] = await client.text_document_references_async(
            lsp.ReferenceParams(
                text_document=doc(uri),
                position=at(SMALL, "points", nth=0),
                context=lsp.ReferenceContext(include_declaration=True),
            )
        )
        out["completion"] = await client.text_document_completion_async(
            lsp.CompletionParams(doc(uri), at(SMALL, "it.colour", offset=3))
        )
        out["members"] = await client.text_document_completion_async(lsp.CompletionParams(doc(uri), at(SMALL, "red)")))
        out["symbols"] = await client.text_document_document_symbol_async(lsp.DocumentSymbolParams(doc(uri)))
        client.text_document_did_change(
            lsp.DidChangeTextDocumentParams(
                text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=2),
                content_changes=[lsp.TextDocumentContentChangeWholeDocument(text=messy)],
            )
        )
        await wait_for(uri)
        out["formatting"] = await client.text_document_formatting_async(
            lsp.DocumentFormattingParams(doc(uri), lsp.FormattingOptions(tab_size=2, insert_spaces=True))
        )
        return out

    out = session(body)
    assert list(out["diagnostics"]) == []
    # Hover: what `rulecraft explain small.rules bonus` says.
    explained = subprocess.run(
        [sys.executable, "-m", "rulecraft", "explain", str(path), "bonus"], capture_output=True, text=True, check=True
    ).stdout
    assert "Tier 1" in explained
    assert out["hover"].contents.value == f"```text\n{explained.rstrip()}\n```"
    assert "number of elements" in out["hover_builtin"].contents.value
    # Definition: the ability's name in its declaration; a parameter's in the parameter list.
    assert out["definition"].uri == uri and out["definition"].range.start == at(SMALL, "bonus(p: Player)")
    assert out["param"].range.start == at(SMALL, "p: Player", nth=0)
    # References: the declaration of points and its two uses.
    starts = [loc.range.start for loc in out["references"]]
    assert starts == [at(SMALL, "points", nth=i) for i in range(3)]
    # Completion: names in scope and keywords; after `it.`, the fields.
    labels = {item.label for item in out["completion"].items}
    assert {"colour", "n"} <= labels and "score" not in labels
    names = {item.label: item.detail for item in out["members"].items}
    assert names["points"] == "var" and names["bonus"] == "ability" and names["red"] == "member"
    assert names["p"] == "param" and names["choose"] == "keyword" and names["len"] == "builtin"
    # Document symbols: every declaration, an ability's tiers and a card's fields beneath it.
    symbols = {sym.name: sym for sym in out["symbols"]}
    assert list(symbols) == ["Small", "Colour", "Chip", "hand", "points", "score", "bonus", "play"]
    assert [c.name for c in symbols["Chip"].children] == ["colour", "n"]
    assert [c.name for c in symbols["bonus"].children] == ["tier 1"]
    assert symbols["bonus"].kind == lsp.SymbolKind.Method
    # Formatting: one edit, to the canonical text.
    (edit,) = out["formatting"]
    assert edit.new_text == SMALL


def test_navigation_across_every_construct() -> None:
    """In every_construct.rules, a local `let` and an enumeration member lead to where they are bound."""
    text = EVERY_CONSTRUCT.read_text(encoding="utf-8")
    uri = EVERY_CONSTRUCT.as_uri()

    async def body(client: LanguageClient, published: dict[str, Any], wait_for: Any) -> Any:
        open_doc(client, uri, text)
        await wait_for(uri)
        lucky = await client.text_document_definition_async(lsp.DefinitionParams(doc(uri), at(text, "lucky == p")))
        blue = await client.text_document_definition_async(
            lsp.DefinitionParams(doc(uri), at(text, "Colour.blue", offset=len("Colour.")))
        )
        return published[uri], lucky, blue

    diagnostics, lucky, blue = session(body)
    assert list(diagnostics) == []
    assert lucky.range.start == at(text, "lucky = choose")
    assert blue.range.start == at(text, "blue, green")


def test_definition_and_hover_reach_into_an_included_bundled_rulebook(tmp_path: Path) -> None:
    """In an extension, a name the included game declares leads to its line in the bundled file."""
    path = tmp_path / "longer.rules"
    text = 'include "valdora.rules"\n\nrule longer() when round > 99 {\n  set round = 0\n}\n'
    path.write_text(text, encoding="utf-8")
    uri = path.as_uri()

    async def body(client: LanguageClient, published: dict[str, Any], wait_for: Any) -> Any:
        open_doc(client, uri, text)
        await wait_for(uri)
        where = at(text, "round > 99")
        found = await client.text_document_definition_async(lsp.DefinitionParams(doc(uri), where))
        hover = await client.text_document_hover_async(lsp.HoverParams(doc(uri), where))
        return published[uri], found, hover

    diagnostics, found, hover = session(body)
    assert list(diagnostics) == []
    bundled = (ROOT / "rulebooks" / "valdora.rules").read_text(encoding="utf-8")
    assert found.uri == (ROOT / "rulebooks" / "valdora.rules").resolve().as_uri()
    assert found.range.start == at(bundled, "round: int")
    assert hover.contents.value.startswith("```text\nVariable round:")


def test_without_pygls_the_command_says_what_to_install(monkeypatch: Any, capsys: Any) -> None:
    """`rulecraft lsp` with the editor extra missing exits 1 with the pip command, not a traceback."""
    from rulecraft.cli import main

    monkeypatch.setitem(sys.modules, "pygls.lsp.server", None)  # import fails as if not installed
    assert main(["lsp"]) == 1
    assert "pip install 'rulecraft[editor]'" in capsys.readouterr().err
