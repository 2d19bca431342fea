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

import sys
from importlib import resources
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

import attrs

from ..check.program import Program
from ..errors import Diagnostic, RulebookError, RulecraftError, Span, source_lines
from ..language.builtins import BUILTIN_NAMES, BUILTINS
from ..rulebook import load_text, remember_parse
from ..syntax import ast as s
from ..syntax.parser import parse_lexemes
from .index import LOCAL_KINDS, NameIndex, Symbol
from .words import words

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
    out.others = {}
    for file, source in rulebook.program.sources.items():
        if file != path:
            try:
                out.others[file] = NameIndex(file, *parse_lexemes(source, file))
            except RulebookError:
                continue
    return out


# ---------------------------------------------------------------- positions


def _line_length(text: str, line: int) -> int:
    lines = source_lines(text)
    return len(lines[line - 1]) if 0 < line <= len(lines) else 0


def span_range(span: Span, text: str | None = None) -> Any:
    """The LSP range of a span (0-based); a span with no end covers the word at its start."""
    from lsprotocol import types as lsp

    line, column = max(span.line, 1) - 1, max(span.column, 1) - 1
    if span.end_line > 0 and (span.end_line, span.end_column) > (span.line, span.column):
        end = lsp.Position(span.end_line - 1, max(span.end_column, 1) - 1)
    else:
        width = 1
        if text is not None:
            lines = source_lines(text)
            rest = lines[line][column:] if line < len(lines) else ""
            word = len(rest) - len(rest.lstrip("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_"))
            width = max(word, 1)
        end = lsp.Position(line, column + width)
    return lsp.Range(lsp.Position(line, column), end)


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
    lines = source_lines(text)
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
    from pygls.lsp.server import LanguageServer
    from pygls.uris import to_fs_path

    try:
        own_version = version("rulecraft")
    except PackageNotFoundError:  # running from a checkout that is not installed
        own_version = "0"
    ls = LanguageServer("rulecraft", own_version)
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

    def refresh(uri: str) -> None:
        doc = ls.workspace.get_text_document(uri)
        path = path_of(uri)
        if path.endswith(".scenario"):  # a scenario is lines of its own, not a rulebook: no diagnostics
            documents[uri] = Analysis()
            return
        analysis = documents[uri] = analyse(path, doc.source, documents.get(uri))
        found = []
        for d in analysis.diagnostics:
            message = d.message + (f"\nhint: {d.hint}" if d.hint else "")
            span = d.span
            if span.file != path or span.line < 1:  # in an included file: shown at the top, named
                message = f"{span}: {message}"
                span = Span(path, 1, 1)
            found.append(
                lsp.Diagnostic(
                    range=span_range(span, doc.source),
                    message=message,
                    severity=lsp.DiagnosticSeverity.Error
                    if d.severity == "error"
                    else lsp.DiagnosticSeverity.Information,
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
        pos = params.position
        found = hover_text(analysis_of(params.text_document.uri), pos.line + 1, pos.character + 1)
        if found is None:
            return None
        return lsp.Hover(contents=lsp.MarkupContent(kind=lsp.MarkupKind.Markdown, value=found))

    def target_at(uri: str, pos: lsp.Position) -> Symbol | None:
        analysis = analysis_of(uri)
        if analysis.index is None:
            return None
        occurrence = analysis.index.at(pos.line + 1, pos.character + 1)
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
            range=span_range(target.span),
        )

    @ls.feature(lsp.TEXT_DOCUMENT_REFERENCES)
    def references(params: lsp.ReferenceParams) -> list[lsp.Location]:
        uri = params.text_document.uri
        target = target_at(uri, params.position)
        analysis = analysis_of(uri)
        if target is None or analysis.index is None:
            return []
        include = params.context.include_declaration
        found = [lsp.Location(uri=uri, range=span_range(sp)) for sp in analysis.index.references_to(target, include)]
        for file, index in analysis.others.items():
            if target.span.file == file:
                found += [
                    lsp.Location(uri=uri_of(file, uri), range=span_range(sp))
                    for sp in index.references_to(target, include)
                ]
        if target.span.file != path_of(uri):  # uses in this document of a name an included file declares
            found += [
                lsp.Location(uri=uri, range=span_range(o.span))
                for o in analysis.index.occurrences
                if o.target is None and o.name == target.name
            ]
        return found

    @ls.feature(lsp.TEXT_DOCUMENT_COMPLETION, lsp.CompletionOptions(trigger_characters=["."]))
    def completion(params: lsp.CompletionParams) -> lsp.CompletionList:
        uri = params.text_document.uri
        text = ls.workspace.get_text_document(uri).source
        pos = params.position
        items = [
            lsp.CompletionItem(
                label=label, kind=completion_kinds.get(kind, lsp.CompletionItemKind.Variable), detail=kind
            )
            for label, kind in completions(analysis_of(uri), text, pos.line + 1, pos.character + 1)
        ]
        return lsp.CompletionList(is_incomplete=False, items=items)

    @ls.feature(lsp.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
    def document_symbol(params: lsp.DocumentSymbolParams) -> list[lsp.DocumentSymbol]:
        analysis = analysis_of(params.text_document.uri)
        index = analysis.index
        if index is None:
            return []
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
        text = ls.workspace.get_text_document(uri).source
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
