"""`rulecraft lsp`: a language server for rulebooks over standard input and output (pygls).

What it offers an editor, for `.rules` files:
- diagnostics as the author types: every located error of the parser and the checker, with its
  hint (the same messages as `rulecraft check`);
- hover: what `rulecraft explain` says of the name under the cursor (an ability and its tiers, a
  rule, a card type, a zone), a builtin's description, a field's or a local's type;
- go to definition and find references, from the name index of `index.py`;
- completion of the names in scope, of a card's fields and an enumeration's members after `.`,
  and of the keywords of the grammar;
- document symbols (setup, play, rules, abilities and their tiers, cards and their fields, zones,
  variables, functions, procedures);
- formatting by `rulecraft fmt`.

A document that does not parse or check still has its diagnostics; hover, navigation and
completion then use the last version of it that did.
"""

from __future__ import annotations

import asyncio
import logging
import sys
from importlib import resources
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from threading import Event
from typing import Any
from urllib.parse import unquote

import attrs

from ..check.program import Program
from ..errors import Diagnostic, RulebookError, RulecraftError, Span, source_lines
from ..inputs import InputProblem, decode, read_regular
from ..language.builtins import BUILTIN_NAMES, BUILTINS
from ..rulebook import MAX_RULEBOOK_BYTES, load_text, remember_parse
from ..syntax import ast as s
from ..syntax.parser import parse_lexemes
from .index import LOCAL_KINDS, NameIndex, Symbol
from .words import words

logger = logging.getLogger(__name__)

# `it` is a word of the language, not a built-in name: its hover text lives here.
IT_DOC = "each element in turn, in the key of `where`, `sorted by`, `max by`, `min by`, `group by` and `map`"


@attrs.define
class Analysis:
    """What the server knows of one document: its diagnostics, and the last parse and check that worked."""

    diagnostics: list[Diagnostic] = attrs.Factory(list)
    index: NameIndex | None = None  # the last version that parsed
    program: Program | None = None  # the last version that checked
    others: dict[str, NameIndex] = attrs.Factory(dict)  # included files, by file name


def analyse(path: str, text: str, previous: Analysis | None = None) -> Analysis:
    """Parse and check a document's text (its includes read from disk next to `path`)."""
    out = Analysis(index=previous.index if previous else None, program=previous.program if previous else None)
    out.others = dict(previous.others) if previous else {}
    try:
        tree, lexemes = parse_lexemes(text, path)
    except RulebookError as exc:
        out.diagnostics = exc.diagnostics
        return out
    out.index = NameIndex(path, tree, lexemes)
    remember_parse(path, text, tree)  # load_text below checks it without parsing it again
    try:
        rulebook = load_text(text, path)
    except RulebookError as exc:
        out.diagnostics = exc.diagnostics
        return out
    except RulecraftError as exc:
        out.diagnostics = [Diagnostic(Span(path, 1, 1), str(exc))]
        return out
    out.program = rulebook.program
    # Declarations nothing reaches (check/reach.py), in this document: an included file's are its own.
    out.diagnostics = [w for w in rulebook.program.warnings if w.span.file == path]
    out.others = {}
    for file, source in rulebook.program.sources.items():
        if file != path:
            try:
                out.others[file] = NameIndex(file, *parse_lexemes(source, file))
            except RulebookError:
                continue
    return out


def too_large(size: int | None) -> str:
    """The diagnostic of a document larger than a rulebook may be (of `size` bytes in UTF-8, if known)."""
    what = f"{size} bytes" if size is not None else f"more than {MAX_RULEBOOK_BYTES} bytes"
    return f"this document is {what}, more than a rulebook may be ({MAX_RULEBOOK_BYTES} bytes): it is not read"


# ---------------------------------------------------------------- positions

# The server counts columns in code points (as the parser does); a client counts them in the units
# of the position encoding agreed at initialize (pygls takes the client's first choice among utf-8,
# utf-16 and utf-32; utf-16 if it offers none, as LSP says). Every position sent or received is
# converted, against the text of its line.
UTF32 = "utf-32"


def _units(char: str, encoding: str) -> int:
    if encoding == "utf-16":
        return 2 if ord(char) > 0xFFFF else 1
    if encoding == "utf-8":
        return len(char.encode("utf-8", "surrogatepass"))
    return 1


def to_client(line_text: str, column: int, encoding: str) -> int:
    """A 0-based column in code points, in the client's units (past the end of the line: one each)."""
    if encoding == UTF32:
        return column
    head = line_text[:column]
    return sum(_units(c, encoding) for c in head) + max(column - len(head), 0)


def from_client(line_text: str, units: int, encoding: str) -> int:
    """A 0-based column in the client's units, in code points (a place inside a character: its start)."""
    if encoding == UTF32:
        return units
    count = 0
    head = line_text[:units]  # a code point is at least one unit
    for i, char in enumerate(head):
        width = _units(char, encoding)
        if count + width > units:
            return i
        count += width
    return len(head) + units - count


def span_range(span: Span, lines: list[str] | None = None, encoding: str = UTF32) -> Any:
    """The LSP range of a span (0-based, in the client's units); a span with no end covers the word at its start.

    `lines` are the lines of the span's file (without conversion, the columns stay code points).
    """
    from lsprotocol import types as lsp

    def place(line: int, column: int) -> Any:
        text = lines[line] if lines is not None and 0 <= line < len(lines) else ""
        return lsp.Position(line, to_client(text, column, encoding) if lines is not None else column)

    line, column = max(span.line, 1) - 1, max(span.column, 1) - 1
    if span.end_line > 0 and (span.end_line, span.end_column) > (span.line, span.column):
        end = place(span.end_line - 1, max(span.end_column, 1) - 1)
    else:
        width = 1
        if lines is not None:
            rest = lines[line][column:] if line < len(lines) else ""
            word = len(rest) - len(rest.lstrip("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_"))
            width = max(word, 1)
        end = place(line, column + width)
    return lsp.Range(place(line, column), end)


# ---------------------------------------------------------------- hover


def hover_text(analysis: Analysis, line: int, column: int) -> str | None:
    """What to show for the name at a 1-based place, as Markdown."""
    from ..authoring.explain import explain

    index = analysis.index
    if index is None:
        return None
    occurrence = index.at(line, column)
    if occurrence is None:
        return None
    target = occurrence.target or _elsewhere(analysis, occurrence.name)
    name = occurrence.name
    if target is None:
        if name in BUILTINS:
            return f"`{name}` (builtin): {BUILTINS[name].doc}"
        if name in BUILTIN_NAMES:
            return f"`{name}` (builtin): {BUILTIN_NAMES[name].doc}"
        if name == "it":
            return f"`{name}` (builtin): {IT_DOC}"
        return None
    if target.kind in LOCAL_KINDS:
        return f"`{name}`: {_local_text(target)}"
    if target.kind == "field":
        return f"`{name}`: a field of card {target.container}{_field_type(target)}"
    if target.kind == "member":
        head = f"`{name}`: a value of {target.container}"
        return head if analysis.program is None else head + "\n\n" + _block(explain(analysis.program, target.container))
    if target.kind == "game" and analysis.program is not None:
        p = analysis.program
        return f"game {p.name}, for {p.min_players} to {p.max_players} players"
    if analysis.program is None:
        return f"`{name}`: {target.kind}"
    try:
        return _block(explain(analysis.program, name))
    except RulecraftError:
        return f"`{name}`: {target.kind}"


def _block(text: str) -> str:
    """`explain`'s English as it prints (its indentation is meaningful, Markdown would eat it)."""
    return f"```text\n{text.rstrip()}\n```"


def _local_text(sym: Symbol) -> str:
    node = sym.node
    if sym.kind == "param" and isinstance(node, s.FnDecl | s.ProcDecl | s.AbilityDecl):
        from ..authoring.fmt import type_text

        for param in node.params:
            if param.name == sym.name:
                return f"{type_text(param.type)}, a parameter of {_decl_words(node)}"
    where = f" in {_decl_words(node)}" if node is not None else ""
    return {
        "binding": f"bound by the rule{where}",
        "let": f"a local{where} (let)",
        "for": f"a loop variable{where}",
        "param": f"a parameter{where}",
    }[sym.kind]


def _decl_words(node: Any) -> str:
    kind = type(node).__name__.removesuffix("Decl").lower()
    name = getattr(node, "name", "")
    return f"{kind} {name}".strip()


def _field_type(sym: Symbol) -> str:
    from ..authoring.fmt import type_text

    if isinstance(sym.node, s.CardDecl):
        for field in sym.node.fields:
            if field.name == sym.name:
                return f", {type_text(field.type)}"
    return ""


def _elsewhere(analysis: Analysis, name: str) -> Symbol | None:
    """The declaration of a name in an included file."""
    for index in analysis.others.values():
        found = index.globals.get(name) or index.members.get(name)
        if found:
            return found[0]
    return None


# ---------------------------------------------------------------- completion


def completions(analysis: Analysis, text: str, line: int, column: int) -> list[tuple[str, str]]:
    """(label, kind) of what may be written at a 1-based place.

    After `.`: an enumeration's members or the cards' fields; else the names in scope and keywords.
    """
    index = analysis.index
    lines = text.split("\n")
    before = lines[line - 1][: column - 1] if 0 < line <= len(lines) else ""
    stem = before.rstrip("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")
    indexes = [i for i in [index, *analysis.others.values()] if i is not None]
    if stem.endswith("."):
        owner = stem[:-1].split()[-1] if stem[:-1].split() else ""
        owner = owner.rsplit("(", 1)[-1].rsplit("[", 1)[-1]
        members = [(m.name, "member") for i in indexes for ms in i.members.values() for m in ms if m.container == owner]
        if members:
            return sorted(set(members))
        return sorted({(f, "field") for i in indexes for f in i.fields})
    out: set[tuple[str, str]] = set()
    if index is not None:
        out |= {(sym.name, sym.kind) for sym in index.locals_before(line, column)}
    for i in indexes:
        out |= {(sym.name, sym.kind) for syms in i.globals.values() for sym in syms if sym.kind != "game"}
        out |= {(sym.name, "member") for syms in i.members.values() for sym in syms}
    w = words()
    out |= {(b, "builtin") for b in w.builtins} | {(t, "type") for t in w.types} | {("it", "builtin")}
    out |= {(k, "keyword") for k in w.reserved()}
    return sorted(out)


# ---------------------------------------------------------------- the server


def server() -> Any:
    """The language server, its features registered (pygls and lsprotocol are imported only here)."""
    from lsprotocol import types as lsp
    from pygls.io_ import StdoutWriter, run_async
    from pygls.lsp.server import LanguageServer
    from pygls.uris import to_fs_path

    from .framing import GuardedReader

    try:
        own_version = version("rulecraft")
    except PackageNotFoundError:  # running from a checkout that is not installed
        own_version = "0"

    class Server(LanguageServer):
        def start_io(self, stdin: Any = None, stdout: Any = None) -> None:
            """pygls's `start_io`, with its reading of the message framing guarded (framing.py)."""
            self._stop_event = Event()  # what pygls's shutdown sets to end the loop
            self.protocol.set_writer(StdoutWriter(stdout or sys.stdout.buffer))
            try:
                asyncio.run(
                    run_async(
                        stop_event=self._stop_event,
                        reader=GuardedReader(stdin or sys.stdin.buffer, self.thread_pool),
                        protocol=self.protocol,
                        logger=logger,
                        error_handler=self.report_server_error,
                    )
                )
            except BrokenPipeError:
                logger.error("the client is gone: the server stops")
            except (KeyboardInterrupt, SystemExit):
                pass
            finally:
                self.shutdown()

    ls = Server("rulecraft", own_version)
    documents: dict[str, Analysis] = {}

    symbol_kinds = {
        "game": lsp.SymbolKind.Namespace,
        "enum": lsp.SymbolKind.Enum,
        "member": lsp.SymbolKind.EnumMember,
        "card": lsp.SymbolKind.Struct,
        "field": lsp.SymbolKind.Field,
        "zone": lsp.SymbolKind.Array,
        "var": lsp.SymbolKind.Variable,
        "const": lsp.SymbolKind.Constant,
        "fn": lsp.SymbolKind.Function,
        "proc": lsp.SymbolKind.Function,
        "ability": lsp.SymbolKind.Method,
        "tier": lsp.SymbolKind.Method,
        "rule": lsp.SymbolKind.Event,
        "invariant": lsp.SymbolKind.Boolean,
        "setup": lsp.SymbolKind.Module,
        "play": lsp.SymbolKind.Module,
    }
    completion_kinds = {
        "keyword": lsp.CompletionItemKind.Keyword,
        "builtin": lsp.CompletionItemKind.Function,
        "type": lsp.CompletionItemKind.TypeParameter,
        "member": lsp.CompletionItemKind.EnumMember,
        "field": lsp.CompletionItemKind.Field,
        "enum": lsp.CompletionItemKind.Enum,
        "card": lsp.CompletionItemKind.Struct,
        "fn": lsp.CompletionItemKind.Function,
        "proc": lsp.CompletionItemKind.Function,
        "ability": lsp.CompletionItemKind.Method,
        "const": lsp.CompletionItemKind.Constant,
    }

    def path_of(uri: str) -> str:
        return to_fs_path(uri) or uri

    def uri_of(file: str, fallback: str) -> str:
        """The URI of a file a span names: a path, or a bundled rulebook (named without a folder)."""
        if Path(file).exists():
            return Path(file).resolve().as_uri()
        bundled = resources.files("rulecraft.rulebooks").joinpath(file)
        return Path(str(bundled)).resolve().as_uri() if bundled.is_file() else fallback

    def text_of(uri: str) -> tuple[str, Diagnostic | None]:
        """A document's text: as the editor sent it, else read from disk as `check` reads a rulebook
        (a regular file of a bounded size: a pipe or a device named by a request must not block or
        fill memory). The diagnostic says why there is no text."""
        opened = ls.workspace.text_documents.get(unquote(uri))
        if opened is not None:
            return opened.source, None
        path = path_of(uri)
        try:
            return decode(read_regular(path, MAX_RULEBOOK_BYTES, "a rulebook"), path, "a rulebook"), None
        except InputProblem as exc:
            message = too_large(None) if exc.too_large else exc.message
            return "", Diagnostic(exc.span or Span(path, 1, 1), message)

    def encoding() -> str:
        return str(ls.workspace.position_encoding or "utf-16")

    def lines_of(file: str, uri: str, analysis: Analysis) -> list[str] | None:
        """The lines of a file a span names: the document's, or an included file's."""
        if file == path_of(uri):
            return text_of(uri)[0].split("\n")
        source = analysis.program.sources.get(file) if analysis.program is not None else None
        return source.split("\n") if source is not None else None

    def client_range(span: Span, uri: str, analysis: Analysis, lines: list[str] | None = None) -> lsp.Range:
        if lines is None:
            lines = lines_of(span.file, uri, analysis)
        return span_range(span, lines, encoding() if lines is not None else UTF32)

    def place(uri: str, pos: lsp.Position) -> tuple[int, int]:
        """The 1-based line and column (in code points) of a place the client names."""
        lines = text_of(uri)[0].split("\n")
        text = lines[pos.line] if 0 <= pos.line < len(lines) else ""
        return pos.line + 1, from_client(text, pos.character, encoding()) + 1

    def refresh(uri: str) -> None:
        path = path_of(uri)
        if path.endswith(".scenario"):  # a scenario is lines of its own, not a rulebook: no diagnostics
            documents[uri] = Analysis()
            return
        text, unread = text_of(uri)
        if unread is not None:
            analysis = documents[uri] = Analysis(diagnostics=[unread])
        elif (size := len(text.encode("utf-8", "surrogatepass"))) > MAX_RULEBOOK_BYTES:
            # Refused before a token is read, as `check` refuses it: parsing it would hold the server
            # for minutes. What was known of an earlier version is dropped (its places are stale).
            analysis = documents[uri] = Analysis(diagnostics=[Diagnostic(Span(path, 1, 1), too_large(size))])
        else:
            analysis = documents[uri] = analyse(path, text, documents.get(uri))
        lines = text.split("\n")
        found = []
        severities = {"error": lsp.DiagnosticSeverity.Error, "warning": lsp.DiagnosticSeverity.Warning}
        for d in analysis.diagnostics:
            message = d.message + (f"\nhint: {d.hint}" if d.hint else "")
            span = d.span
            if span.file != path or span.line < 1:  # in an included file: shown at the top, named
                message = f"{span}: {message}"
                span = Span(path, 1, 1)
            found.append(
                lsp.Diagnostic(
                    range=client_range(span, uri, analysis, lines),
                    message=message,
                    severity=severities.get(d.severity, lsp.DiagnosticSeverity.Information),
                    source="rulecraft",
                )
            )
        ls.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(uri=uri, diagnostics=found))

    @ls.feature(lsp.TEXT_DOCUMENT_DID_OPEN)
    def did_open(params: lsp.DidOpenTextDocumentParams) -> None:
        refresh(params.text_document.uri)

    @ls.feature(lsp.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(params: lsp.DidChangeTextDocumentParams) -> None:
        refresh(params.text_document.uri)

    @ls.feature(lsp.TEXT_DOCUMENT_DID_SAVE)
    def did_save(params: lsp.DidSaveTextDocumentParams) -> None:
        refresh(params.text_document.uri)

    @ls.feature(lsp.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(params: lsp.DidCloseTextDocumentParams) -> None:
        documents.pop(params.text_document.uri, None)
        ls.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(uri=params.text_document.uri, diagnostics=[]))

    def analysis_of(uri: str) -> Analysis:
        if uri not in documents:
            refresh(uri)
        return documents[uri]

    @ls.feature(lsp.TEXT_DOCUMENT_HOVER)
    def hover(params: lsp.HoverParams) -> lsp.Hover | None:
        uri = params.text_document.uri
        analysis = analysis_of(uri)
        if analysis.index is None:
            return None
        found = hover_text(analysis, *place(uri, params.position))
        if found is None:
            return None
        return lsp.Hover(contents=lsp.MarkupContent(kind=lsp.MarkupKind.Markdown, value=found))

    def target_at(uri: str, pos: lsp.Position) -> Symbol | None:
        analysis = analysis_of(uri)
        if analysis.index is None:
            return None
        occurrence = analysis.index.at(*place(uri, pos))
        if occurrence is None:
            return None
        return occurrence.target or _elsewhere(analysis, occurrence.name)

    @ls.feature(lsp.TEXT_DOCUMENT_DEFINITION)
    def definition(params: lsp.DefinitionParams) -> lsp.Location | None:
        uri = params.text_document.uri
        target = target_at(uri, params.position)
        if target is None:
            return None
        return lsp.Location(
            uri=uri_of(target.span.file, uri) if target.span.file != path_of(uri) else uri,
            range=client_range(target.span, uri, analysis_of(uri)),
        )

    @ls.feature(lsp.TEXT_DOCUMENT_REFERENCES)
    def references(params: lsp.ReferenceParams) -> list[lsp.Location]:
        uri = params.text_document.uri
        target = target_at(uri, params.position)
        analysis = analysis_of(uri)
        if target is None or analysis.index is None:
            return []
        include = params.context.include_declaration
        here = lines_of(path_of(uri), uri, analysis)
        found = [
            lsp.Location(uri=uri, range=client_range(sp, uri, analysis, here))
            for sp in analysis.index.references_to(target, include)
        ]
        for file, index in analysis.others.items():
            if target.span.file == file:
                there = lines_of(file, uri, analysis)
                found += [
                    lsp.Location(uri=uri_of(file, uri), range=client_range(sp, uri, analysis, there))
                    for sp in index.references_to(target, include)
                ]
        if target.span.file != path_of(uri):  # uses in this document of a name an included file declares
            found += [
                lsp.Location(uri=uri, range=client_range(o.span, uri, analysis, here))
                for o in analysis.index.occurrences
                if o.target is None and o.name == target.name
            ]
        return found

    @ls.feature(lsp.TEXT_DOCUMENT_COMPLETION, lsp.CompletionOptions(trigger_characters=["."]))
    def completion(params: lsp.CompletionParams) -> lsp.CompletionList:
        uri = params.text_document.uri
        analysis = analysis_of(uri)
        text = text_of(uri)[0]
        if len(text) > MAX_RULEBOOK_BYTES:
            return lsp.CompletionList(is_incomplete=False, items=[])
        items = [
            lsp.CompletionItem(
                label=label, kind=completion_kinds.get(kind, lsp.CompletionItemKind.Variable), detail=kind
            )
            for label, kind in completions(analysis, text, *place(uri, params.position))
        ]
        return lsp.CompletionList(is_incomplete=False, items=items)

    @ls.feature(lsp.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
    def document_symbol(params: lsp.DocumentSymbolParams) -> list[lsp.DocumentSymbol]:
        uri = params.text_document.uri
        analysis = analysis_of(uri)
        index = analysis.index
        if index is None:
            return []
        lines = lines_of(path_of(uri), uri, analysis)

        def span_range(span: Span) -> lsp.Range:
            return client_range(span, uri, analysis, lines)

        names = {id(sym.node): sym for sym in index.symbols()}
        out = []
        for decl in index.tree.decls:
            sym = names.get(id(decl))
            whole = span_range(decl.span)
            if sym is not None:
                kind, name, pick = sym.kind, sym.name, span_range(sym.span)
            elif isinstance(decl, s.SetupDecl | s.PlayDecl):
                kind = name = "setup" if isinstance(decl, s.SetupDecl) else "play"
                pick = span_range(
                    Span(decl.span.file, decl.span.line, decl.span.column, decl.span.line, decl.span.column + len(kind))
                )
            else:
                continue
            children = []
            if isinstance(decl, s.EnumDecl | s.CardDecl):
                pool = index.members if isinstance(decl, s.EnumDecl) else index.fields
                for syms in pool.values():
                    for child in syms:
                        if child.node is decl:
                            r = span_range(child.span)
                            children.append(
                                lsp.DocumentSymbol(
                                    name=child.name, kind=symbol_kinds[child.kind], range=r, selection_range=r
                                )
                            )
            if isinstance(decl, s.AbilityDecl):
                for tier in decl.tiers:
                    r = span_range(tier.span)
                    children.append(
                        lsp.DocumentSymbol(
                            name=f"tier {tier.level}",
                            detail=tier.text,
                            kind=symbol_kinds["tier"],
                            range=r,
                            selection_range=r,
                        )
                    )
            children.sort(key=lambda c: (c.range.start.line, c.range.start.character))
            out.append(
                lsp.DocumentSymbol(
                    name=name,
                    kind=symbol_kinds[kind],
                    range=whole,
                    selection_range=pick,
                    children=children or None,
                    detail=kind,
                )
            )
        return out

    @ls.feature(lsp.TEXT_DOCUMENT_FORMATTING)
    def formatting(params: lsp.DocumentFormattingParams) -> list[lsp.TextEdit] | None:
        from ..authoring.fmt import format_text

        uri = params.text_document.uri
        text, unread = text_of(uri)
        if unread is not None or len(text) > MAX_RULEBOOK_BYTES:
            return None  # the diagnostics say why
        try:
            formatted = format_text(text, path_of(uri))
        except RulebookError:
            return None  # the diagnostics say why
        if formatted == text:
            return []
        end = lsp.Position(len(source_lines(text)) + 1, 0)
        return [lsp.TextEdit(range=lsp.Range(lsp.Position(0, 0), end), new_text=formatted)]

    return ls


def register(sub: Any) -> None:
    """Add `rulecraft lsp` to the command line."""
    p = sub.add_parser(
        "lsp",
        help="run the language server (for editors; see docs/EDITORS.md)",
        description="Run the rulecraft language server over standard input and output: diagnostics, hover, "
        "definition, references, completion, symbols and formatting for .rules files.",
    )
    p.set_defaults(func=cmd_lsp)


def cmd_lsp(args: Any) -> int:
    try:
        ls = server()
    except ImportError as exc:
        raise RulecraftError(
            f"the language server needs pygls and lsprotocol ({exc.name} is missing): pip install 'rulecraft[editor]'"
        ) from None
    ls.start_io(sys.stdin.buffer, sys.stdout.buffer)
    return 0
