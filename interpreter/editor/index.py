"""Where each name of a rulebook is declared and used: the language server's interim name index.

This is not a resolver. It reads the tokens the parser reads (every NAME with its exact place)
and decides, for each, what it names with a few rules that hold for well-formed rulebooks:

1. a name after a declaration word (`card Chip`, `fn score`), an enumeration's members, a card's
   fields, and the names bound by parameters, rule bindings, `let`, `for` and choices are
   *declarations*;
2. a name after `.` is a card field (every card type's field of that name), or a member when
   what stands before the dot is an enumeration (`Colour.red`);
3. any other name is the latest binding of that name earlier in the same top-level declaration
   (block nesting is ignored: a `let` inside an `if` is seen after the `if` too), else the
   top-level declaration or enumeration member of that name, else nothing (a builtin, `it`, or a
   name the checker reports as unknown); a name before `:` in a record or `create` is a field.

The resolver planned in the architecture issue will replace rules 2 and 3 with the checker's own
bindings; the language server asks only `at`, `definition_of` and `references_to`, so the swap
will not touch it.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterator

import attrs

from ..errors import Span
from ..syntax import ast as s
from ..syntax.parser import Lexeme

# The kind of what the NAME after each declaration word declares.
DECLARATION_WORDS = {
    "GAME": "game",
    "ENUM": "enum",
    "CARD": "card",
    "ZONE": "zone",
    "VAR": "var",
    "CONST": "const",
    "FN": "fn",
    "PROC": "proc",
    "ABILITY": "ability",
    "RULE": "rule",
    "INVARIANT": "invariant",
}
LOCAL_KINDS = frozenset({"param", "binding", "let", "for"})


@attrs.frozen
class Symbol:
    """A declaration: the name, what kind of thing it is, where the name stands, and its declaration."""

    name: str
    kind: str  # game enum member card field zone var const fn proc ability rule invariant param binding let for
    span: Span
    container: str | None = None  # the enclosing top-level declaration (a field's card, a member's enum)
    node: object = attrs.field(default=None, eq=False, repr=False)


@attrs.frozen
class Occurrence:
    """One NAME token: where it stands and the symbol it names (None: a builtin or unknown)."""

    name: str
    span: Span
    target: Symbol | None


class NameIndex:
    """Declarations and uses of names in one parsed file (see the module docstring for the rules)."""

    def __init__(self, file: str, tree: s.Rulebook, tokens: list[Lexeme]):
        """Index a parsed file from its AST and the tokens the parser read (`parser.parse_lexemes`)."""
        self.file = file
        self.tree = tree
        self._decl_starts = [(d.span.line, d.span.column) for d in tree.decls]
        self.globals: dict[str, list[Symbol]] = {}
        self.fields: dict[str, list[Symbol]] = {}
        self.members: dict[str, list[Symbol]] = {}  # by member name
        self.locals: list[Symbol] = []
        self.occurrences: list[Occurrence] = []
        self._index(tokens)
        self.occurrences.sort(key=lambda o: (o.span.line, o.span.column))
        self._starts = [(o.span.line, o.span.column) for o in self.occurrences]

    def _decl_of(self, tok: Lexeme) -> s.Decl | None:
        """The top-level declaration a token stands in (declarations are in file order)."""
        k = bisect.bisect_right(self._decl_starts, (tok.span.line, tok.span.column)) - 1
        if k >= 0:
            decl = self.tree.decls[k]
            if (tok.span.line, tok.span.column) < (decl.span.end_line, decl.span.end_column):
                return decl
        return None

    def _index(self, tokens: list[Lexeme]) -> None:
        declared: dict[int, Symbol] = {}  # token index -> the symbol it declares
        container: str | None = None
        enum_name: str | None = None
        card_name: str | None = None
        depth = 0  # braces inside the current enum or card declaration
        for i, tok in enumerate(tokens):
            prev = tokens[i - 1] if i else None
            nxt = tokens[i + 1] if i + 1 < len(tokens) else None
            if tok.type == "LBRACE":
                depth += 1
            elif tok.type == "RBRACE":
                depth -= 1
                if depth == 0:
                    enum_name = card_name = None
            if tok.type != "NAME":
                continue
            name, span = tok.text, tok.span
            decl = self._decl_of(tok)
            if prev is not None and prev.type in DECLARATION_WORDS:
                kind = DECLARATION_WORDS[prev.type]
                sym = Symbol(name, kind, span, None, decl)
                self.globals.setdefault(name, []).append(sym)
                declared[i] = sym
                container = name
                if kind == "enum":
                    enum_name, depth = name, 0
                elif kind == "card":
                    card_name, depth = name, 0
                continue
            if enum_name is not None and depth == 1:
                sym = Symbol(name, "member", span, enum_name, decl)
                self.members.setdefault(name, []).append(sym)
                declared[i] = sym
                continue
            if card_name is not None and depth == 1 and nxt is not None and nxt.type == "COLON":
                sym = Symbol(name, "field", span, card_name, decl)
                self.fields.setdefault(name, []).append(sym)
                declared[i] = sym
                continue
            local = self._binding_kind(prev, nxt, decl)
            if local is not None:
                sym = Symbol(name, local, span, container, decl)
                self.locals.append(sym)
                declared[i] = sym
        # Uses: every NAME token, resolved by the rules of the module docstring.
        for i, tok in enumerate(tokens):
            if tok.type != "NAME":
                continue
            if i in declared:
                self.occurrences.append(Occurrence(tok.text, tok.span, declared[i]))
                continue
            self.occurrences.append(Occurrence(tok.text, tok.span, self._resolve(tokens, i, tok.span)))

    @staticmethod
    def _binding_kind(prev: Lexeme | None, nxt: Lexeme | None, decl: s.Decl | None) -> str | None:
        """Whether this NAME binds a local: a parameter, a rule binding, `let`, `for` (and `[x for x in …]`)."""
        if prev is None or nxt is None:
            return None
        if prev.type == "LET":
            return "let"
        if prev.type == "FOR":
            return "for"
        if (
            prev.type in ("LPAR", "COMMA")
            and nxt.type == "COLON"
            and isinstance(decl, s.FnDecl | s.ProcDecl | s.AbilityDecl)
        ):
            return "param"
        if prev.type in ("LPAR", "COMMA") and nxt.type == "IN" and isinstance(decl, s.RuleDecl | s.InvariantDecl):
            return "binding"
        return None

    def _resolve(self, tokens: list[Lexeme], i: int, span: Span) -> Symbol | None:
        name = tokens[i].text
        if i >= 2 and tokens[i - 1].type == "DOT":
            before = tokens[i - 2].text
            for member in self.members.get(name, []):
                if member.container == before:
                    return member
            fields = self.fields.get(name, [])
            return fields[0] if len(fields) == 1 else (fields[0] if fields else None)
        decl = self._decl_of(tokens[i])
        best: Symbol | None = None
        for sym in self.locals:
            if sym.name == name and sym.node is decl and (sym.span.line, sym.span.column) < (span.line, span.column):
                best = sym
        if best is None:  # `[x * 2 for x in xs]`: a comprehension binds its name after the element
            best = next(
                (
                    sym
                    for sym in self.locals
                    if sym.name == name and sym.node is decl and sym.kind == "for" and sym.span.line == span.line
                ),
                None,
            )
        if best is not None:
            return best
        if i + 1 < len(tokens) and tokens[i + 1].type == "COLON":  # `{colour: red}`: a field named in a literal
            named = self.fields.get(name)
            if named:
                return named[0]
        found = self.globals.get(name) or self.members.get(name)
        return found[0] if found else None

    # ---------------------------------------------------------------- queries

    def at(self, line: int, column: int) -> Occurrence | None:
        """The name at a 1-based line and column (a column just after the name counts too)."""
        k = bisect.bisect_right(self._starts, (line, column)) - 1
        if k >= 0:
            o = self.occurrences[k]
            if o.span.line == line and o.span.column <= column <= o.span.end_column:
                return o
        return None

    def definition_of(self, line: int, column: int) -> Symbol | None:
        o = self.at(line, column)
        return o.target if o else None

    def references_to(self, symbol: Symbol, include_declaration: bool = True) -> list[Span]:
        """Every place that names the symbol, in file order."""
        return [
            o.span for o in self.occurrences if o.target == symbol and (include_declaration or o.span != symbol.span)
        ]

    def symbols(self) -> Iterator[Symbol]:
        """Every top-level declaration, in file order."""
        every = [sym for syms in self.globals.values() for sym in syms]
        yield from sorted(every, key=lambda sym: (sym.span.line, sym.span.column))

    def locals_before(self, line: int, column: int) -> list[Symbol]:
        """The locals bound earlier in the top-level declaration that holds this place."""
        for decl in self.tree.decls:
            sp = decl.span
            if (sp.line, sp.column) <= (line, column) <= (sp.end_line, sp.end_column):
                return [
                    sym for sym in self.locals if sym.node is decl and (sym.span.line, sym.span.column) < (line, column)
                ]
        return []
