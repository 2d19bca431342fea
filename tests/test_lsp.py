"""`rulecraft lsp`: the language server, spoken to over JSON-RPC on a real subprocess's stdio."""

from __future__ import annotations

import asyncio
import json
import os
import queue
import subprocess
import sys
import threading
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
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
# allow-unused: a fixture of names, never played
card Chip { colour: Colour, n: int }
# allow-unused
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


def session(body: Body, timeout: float = 60, capabilities: lsp.ClientCapabilities | None = None) -> Any:
    """Start `rulecraft lsp`, initialize, run the body, shut the server down; return the body's value.

    Every wait is bounded: a server that hangs fails the test (and is killed), it does not block the suite.
    """

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
            result = await asyncio.wait_for(
                client.initialize_async(
                    lsp.InitializeParams(capabilities=capabilities or lsp.ClientCapabilities(), root_uri=ROOT.as_uri())
                ),
                timeout,
            )
            assert result.server_info is not None and result.server_info.name == "rulecraft"
            client.initialized(lsp.InitializedParams())
            return await asyncio.wait_for(body(client, published, wait_for), timeout)
        finally:
            try:
                await asyncio.wait_for(client.shutdown_async(None), timeout)
                client.exit(None)
            except TimeoutError:
                pass
            finally:
                process = client._server
                if process is not None and process.returncode is None:
                    try:
                        await asyncio.wait_for(process.wait(), 10)
                    except TimeoutError:
                        process.kill()  # the server this session started, hung
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


def test_declarations_nothing_reaches_are_published_as_warnings(tmp_path: Path) -> None:
    """A procedure nothing calls is a warning where it stands (check's warning, check/reach.py)."""
    uri = (tmp_path / "lonely.rules").as_uri()
    text = BROKEN.replace("pointz", "points").replace("  set LIMIT = 4\n", "") + "proc lonely() { }\n"

    async def body(client: LanguageClient, published: dict[str, Any], wait_for: Any) -> Any:
        open_doc(client, uri, text)
        await wait_for(uri)
        return published[uri]

    (warning,) = session(body)
    assert warning.severity == lsp.DiagnosticSeverity.Warning
    assert warning.range.start == at(text, "proc lonely")
    assert warning.message == (
        "procedure lonely is never called by anything the game reaches\nhint: a comment '# allow-unused' silences it"
    )


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
    assert [d for d in diagnostics if d.severity == lsp.DiagnosticSeverity.Error] == []
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


# ---------------------------------------------------------------- what must not hang or kill it


def test_a_document_above_the_rulebook_limit_gets_one_diagnostic_and_answers_at_once(tmp_path: Path) -> None:
    """A 4 MB document is refused before it is lexed (as `check` refuses it), so hover answers at once."""
    from rulecraft.rulebook import MAX_RULEBOOK_BYTES

    uri = (tmp_path / "big.rules").as_uri()
    text = "game Big players 2..2\n" + "".join(f"const C{i} = {i}\n" for i in range(250_000))
    assert len(text) > 30 * MAX_RULEBOOK_BYTES  # lexing it took minutes

    async def body(client: LanguageClient, published: dict[str, Any], wait_for: Any) -> Any:
        open_doc(client, uri, text)
        await wait_for(uri)
        hover = await client.text_document_hover_async(lsp.HoverParams(doc(uri), lsp.Position(1, 7)))
        symbols = await client.text_document_document_symbol_async(lsp.DocumentSymbolParams(doc(uri)))
        formatting = await client.text_document_formatting_async(
            lsp.DocumentFormattingParams(doc(uri), lsp.FormattingOptions(tab_size=2, insert_spaces=True))
        )
        return published[uri], hover, symbols, formatting

    (diagnostic,), hover, symbols, formatting = session(body, timeout=30)
    assert diagnostic.message == (
        f"this document is {len(text)} bytes, more than a rulebook may be ({MAX_RULEBOOK_BYTES} bytes): it is not read"
    )
    assert diagnostic.range.start == lsp.Position(0, 0)
    assert hover is None and list(symbols) == [] and formatting is None


@pytest.mark.parametrize("kind", ["pipe", "device", "missing"])
def test_a_request_for_a_document_never_opened_reads_only_a_regular_file(tmp_path: Path, kind: str) -> None:
    """A hover on a file the editor never opened: a pipe (which would block) or a device (which never
    ends) is not read; the server says why in a diagnostic and answers."""
    if kind == "pipe":
        path = tmp_path / "pipe.rules"
        os.mkfifo(path)
    else:
        path = Path("/dev/zero") if kind == "device" else tmp_path / "gone.rules"
    uri = path.as_uri()

    async def body(client: LanguageClient, published: dict[str, Any], wait_for: Any) -> Any:
        hover = await client.text_document_hover_async(lsp.HoverParams(doc(uri), lsp.Position(0, 0)))
        await wait_for(uri)
        return hover, published[uri]

    hover, (diagnostic,) = session(body, timeout=30)
    assert hover is None
    assert (
        diagnostic.message
        == {
            "pipe": "a rulebook must be a regular file, and this is a pipe",
            "device": "a rulebook must be a regular file, and this is a device",
            "missing": "cannot read the rulebook: No such file or directory",
        }[kind]
    )


EMOJI_LINE = 'ability bonus(p: Player) "😀😀" { tier 1 "x" { set pointz[p] += 1 } }'
EMOJI = f"game G players 2..2\nvar points[Player]: int = 0 public\n{EMOJI_LINE}\nplay {{ }}\n"


def utf16(needle: str) -> lsp.Position:
    """Where `needle` starts on the emoji line, in UTF-16 code units."""
    head = EMOJI_LINE[: EMOJI_LINE.index(needle)]
    return lsp.Position(2, len(head.encode("utf-16-le")) // 2)


def test_positions_are_utf16_units_for_a_client_that_offers_only_utf16(tmp_path: Path) -> None:
    """After an emoji on the same line, a diagnostic's caret and a hover's place are counted in
    UTF-16 code units (two for an emoji), the encoding the server announces."""
    uri = (tmp_path / "emoji.rules").as_uri()

    async def body(client: LanguageClient, published: dict[str, Any], wait_for: Any) -> Any:
        open_doc(client, uri, EMOJI)
        await wait_for(uri)
        hover = await client.text_document_hover_async(lsp.HoverParams(doc(uri), utf16("p] +")))
        references = await client.text_document_references_async(
            lsp.ReferenceParams(
                text_document=doc(uri), position=utf16("p] +"), context=lsp.ReferenceContext(include_declaration=True)
            )
        )
        return published[uri], hover, references

    general = lsp.GeneralClientCapabilities(position_encodings=[lsp.PositionEncodingKind.Utf16])
    (diagnostic,), hover, references = session(body, capabilities=lsp.ClientCapabilities(general=general))
    assert diagnostic.message.startswith("unknown variable 'pointz'")
    assert diagnostic.range.start == utf16("set pointz")
    assert diagnostic.range.end == utf16(" } }")
    assert hover.contents.value == "`p`: Player, a parameter of ability bonus"
    assert [r.range.start for r in references] == [utf16("p: Player"), utf16("p] +")]
    assert references[1].range.end.character == utf16("p] +").character + 1


def test_a_client_offering_utf32_gets_code_points(tmp_path: Path) -> None:
    """LSP 3.17: the server takes the client's utf-32 when offered (pygls negotiates it), and then
    counts in code points."""
    uri = (tmp_path / "emoji.rules").as_uri()

    async def body(client: LanguageClient, published: dict[str, Any], wait_for: Any) -> Any:
        open_doc(client, uri, EMOJI)
        await wait_for(uri)
        return published[uri]

    offered = [lsp.PositionEncodingKind.Utf32, lsp.PositionEncodingKind.Utf16]
    general = lsp.GeneralClientCapabilities(position_encodings=offered)
    (diagnostic,) = session(body, capabilities=lsp.ClientCapabilities(general=general))
    assert diagnostic.range.start == lsp.Position(2, EMOJI_LINE.index("set pointz"))


class RawServer:
    """`rulecraft lsp` spoken to in raw bytes: what a broken or hostile client may write."""

    def __init__(self) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "rulecraft", "lsp"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        self.answers: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self.errors: list[bytes] = []
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=lambda: self.errors.extend(self.process.stderr or []), daemon=True).start()

    def _read(self) -> None:
        out = self.process.stdout
        assert out is not None
        while True:
            length = 0
            while (line := out.readline()).strip():
                name, _, value = line.partition(b":")
                if name.strip().lower() == b"content-length":
                    length = int(value)
            if not line:
                self.answers.put(None)
                return
            self.answers.put(json.loads(out.read(length)))

    def write(self, data: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(data)
        self.process.stdin.flush()

    def send(self, message: dict[str, Any]) -> None:
        self.write(frame(message))

    def answer(self, ident: int, timeout: float = 30) -> dict[str, Any]:
        """The answer to request `ident` (a server that is silent for `timeout` seconds fails the test)."""
        while True:
            message = self.answers.get(timeout=timeout)
            assert message is not None, "the server ended"
            if message.get("id") == ident:
                return message

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()  # the server this test started
        self.process.wait(10)


def frame(message: dict[str, Any]) -> bytes:
    body = json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n%s" % (len(body), body)


def test_framing_that_is_not_a_message_is_skipped_and_the_next_message_answered(tmp_path: Path) -> None:
    """pygls trusts the Content-Length header; the server reads past a header block without one, one
    that is not a number, one far too large (refused unread) and bytes that are not a message, logs
    what it skipped, and answers the next request each time."""
    uri = (tmp_path / "small.rules").as_uri()
    where = at(SMALL, "bonus(p) upto")
    hover = {"textDocument": {"uri": uri}, "position": {"line": where.line, "character": where.character}}
    lost = json.dumps({"jsonrpc": "2.0", "id": 999, "method": "textDocument/hover", "params": hover}).encode()
    bad = {
        "no Content-Length": b"Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n" + lost,
        "not a number": b"Content-Length: twelve\r\n\r\n" + lost,
        "negative": b"Content-Length: -5\r\n\r\n" + lost,
        "a terabyte": b"Content-Length: 1000000000000\r\n\r\n" + lost,
        "no header at all": lost,
        "a long line": b"x" * 300_000 + b"\r\n",
        "no blank line": b"Content-Length: 5\r\n" + b"Content-Type: x\r\n" * 400,
    }
    server = RawServer()
    try:
        server.send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}})
        assert server.answer(1)["result"]["serverInfo"]["name"] == "rulecraft"
        server.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
        item = {"uri": uri, "languageId": "rulecraft", "version": 1, "text": SMALL}
        server.send({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": item}})
        for ident, (case, data) in enumerate(bad.items(), start=2):
            server.write(data)
            server.send({"jsonrpc": "2.0", "id": ident, "method": "textDocument/hover", "params": hover})
            assert "Tier 1" in server.answer(ident)["result"]["contents"]["value"], case
        server.send({"jsonrpc": "2.0", "id": 100, "method": "shutdown"})
        assert server.answer(100)["result"] is None
        server.send({"jsonrpc": "2.0", "method": "exit"})
        assert server.process.wait(30) == 0
    finally:
        server.close()
    log = b"".join(server.errors).decode()
    assert "refused a Content-Length that is not a number: twelve" in log
    assert "refused a message of 1000000000000 bytes, more than a message may be" in log
    assert "skipped" in log
