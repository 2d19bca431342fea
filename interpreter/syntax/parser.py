"""Parse rulebook text into the AST of `syntax`. Lark never leaves this module."""

from __future__ import annotations

import ast as _pyast
import re
from importlib import resources
from typing import Any

import attrs
import lark
from lark import Token, Transformer, Tree, v_args
from lark.exceptions import UnexpectedInput, VisitError

from ..errors import Diagnostic, RulebookError, Span
from . import ast as s
from .grammar import grammar_parser
from .problems import check_nesting, syntax_diagnostic


class _SyntaxProblem(Exception):
    def __init__(self, span: Span, message: str, hint: str | None = None):
        self.span, self.message, self.hint = span, message, hint


_SURROGATE = re.compile("[\ud800-\udfff]")


def _unquote(token: Token) -> str:
    """The text of a string token; an escape that cannot be read (or a NUL) is a located error."""
    span = Span("", token.line or 0, token.column or 0, token.end_line or 0, token.end_column or 0)
    return _unquote_raw(str(token)[1:-1], span)


def _unquote_raw(raw: str, span: Span) -> str:
    """The text of what stands between a string's quotes, escapes read."""
    if "\r" in raw:  # literal_eval reads a raw CR as a line break, and would say "NUL": its own message
        raise _SyntaxProblem(
            span,
            "a carriage return inside a string: a string stands on one line",
            hint="write \\r for the character",
        )
    try:
        text = str(_pyast.literal_eval(f'"{raw}"'))
    except (SyntaxError, ValueError) as exc:  # what literal_eval says of a NUL or a broken escape
        raise _SyntaxProblem(span, "this string holds a NUL or an escape that cannot be read") from exc
    try:  # a pair of surrogate escapes is one character; half a pair ("\ud800") is none, and could be
        # neither printed nor saved
        return text.encode("utf-16", "surrogatepass").decode("utf-16") if _SURROGATE.search(text) else text
    except UnicodeDecodeError as exc:
        raise _SyntaxProblem(
            span, "this string holds half a surrogate pair (an escape \\ud800 to \\udfff), not a character"
        ) from exc


# A placeholder's expression is parsed as the value of a constant: the grammar has one start.
_WRAP = "const t = "


def _closing(raw: str, start: int) -> int:
    """Where the placeholder opened at `start` closes (braces nest: a record literal), or -1."""
    depth, i = 0, start
    while i < len(raw):
        c = raw[i]
        if c == "\\":
            i += 2
            continue
        depth += {"{": 1, "}": -1}.get(c, 0)
        if depth == 0:
            return i
        i += 1
    return -1


@v_args(meta=True, inline=True)
class _Builder(Transformer[Token, s.Rulebook]):
    """Build one AST node per alias; the method name is the alias in grammar/rules.lark."""

    def __init__(
        self, file: str, shift: tuple[int, int] | None = None, places: dict[int, tuple[int, int]] | None = None
    ):
        super().__init__()
        self.file = file
        self.shift = shift  # inside a placeholder: its line, and how far its columns lie to the right
        # The nesting at which each string that may hold placeholders stands (check_nesting), by token:
        # a placeholder's expression is nested that deep already.
        self.places = places or {}

    def _number(self, tok: Token) -> int:
        """The value of a number written in the text: at most MAX_NUMBER, the largest a game computes
        (a longer one is refused where it stands, before int() reads thousands of digits)."""
        digits = str(tok).lstrip("0") or "0"
        if len(digits) > len(str(s.MAX_NUMBER)) or int(digits) > s.MAX_NUMBER:
            shown = digits if len(digits) <= 30 else f"{digits[:20]}… ({len(digits)} digits)"
            span = self._at(tok.line or 0, tok.column or 0, tok.end_line or 0, tok.end_column or 0)
            raise _SyntaxProblem(span, f"the number {shown} is beyond {s.MAX_NUMBER}, the largest a game computes")
        return int(digits)

    def _span(self, meta: Any) -> Span:
        if getattr(meta, "empty", True):
            return Span(self.file, 0, 0)
        return self._at(meta.line, meta.column, meta.end_line, meta.end_column)

    def _at(self, line: int, column: int, end_line: int, end_column: int) -> Span:
        if self.shift is None:
            return Span(self.file, line, column, end_line, end_column)
        at, right = self.shift
        return Span(self.file, at, column + right, at, end_column + right)

    def _text(self, tok: Token) -> s.StrLit | s.Template:
        """A string that is filled in: plain text, or a template of text and placeholders.

        `{expr}` is a placeholder; `{{` and `}}` are braces; a lone `}` is an error.
        """
        span = self._at(tok.line or 0, tok.column or 0, tok.end_line or 0, tok.end_column or 0)
        raw = str(tok)[1:-1]
        if "{" not in raw and "}" not in raw:
            return s.StrLit(_unquote_raw(raw, span), span=span)
        parts: list[str | s.Expr] = []
        literal: list[str] = []

        def flush() -> None:
            if literal:
                parts.append(_unquote_raw("".join(literal), span))
                literal.clear()

        i = 0
        while i < len(raw):
            c = raw[i]
            at = span.column + 1 + i  # the column of raw[i]
            if c == "\\":
                literal.append(raw[i : i + 2])
                i += 2
            elif raw.startswith("{{", i) or raw.startswith("}}", i):
                literal.append(c)
                i += 2
            elif c == "}":
                raise _SyntaxProblem(
                    Span(self.file, span.line, at, span.line, at + 1),
                    "a '}' that closes no placeholder",
                    hint="write '}}' for a brace in a string",
                )
            elif c == "{":
                end = _closing(raw, i)
                if end < 0:
                    raise _SyntaxProblem(
                        Span(self.file, span.line, at, span.line, at + 1),
                        "this placeholder is not closed",
                        hint="end it with '}', or write '{{' for a brace in a string",
                    )
                flush()
                parts.append(self._placeholder(raw[i + 1 : end], span.line, at + 1, self.places.get(id(tok), (0, 0))))
                i = end + 1
            else:
                literal.append(c)
                i += 1
        flush()
        if all(isinstance(p, str) for p in parts):
            return s.StrLit("".join(p for p in parts if isinstance(p, str)), span=span)
        return s.Template(tuple(parts), span=span)

    def _placeholder(self, raw: str, line: int, column: int, nesting: tuple[int, int]) -> s.Expr:
        """The expression of a placeholder whose text starts at `line`:`column`, parsed by the grammar;
        `nesting` is how deep its string stands (the limits count the placeholder's levels on from there)."""
        here = Span(self.file, line, column - 1, line, column + len(raw) + 1)
        inner = _unquote_raw(raw, here)
        if not inner.strip():
            raise _SyntaxProblem(here, "an empty placeholder", hint="write '{{}}' for braces in a string")
        right = column - 1 - len(_WRAP)
        wrapped = _WRAP + inner
        try:
            tree = grammar_parser().parse(wrapped)
        except UnexpectedInput as exc:
            setattr(exc, "_source_text", wrapped)  # noqa: B010 -- lets the EOF case find the end
            found = syntax_diagnostic(self.file, exc)
            at = Span(self.file, line, found.span.column + right, line, found.span.end_column + right)
            raise _SyntaxProblem(
                at,
                "in this placeholder: " + found.message.replace("end of file", "end of the placeholder"),
                hint=found.hint,
            ) from None
        try:
            places = check_nesting(tree, self.file, wrapped, nesting)
        except RulebookError as exc:
            deep = exc.diagnostics[0].span
            start, end = deep.column + right, max(deep.end_column, deep.column + 1) + right
            raise _SyntaxProblem(Span(self.file, line, start, line, end), exc.diagnostics[0].message) from None
        try:
            rulebook = _Builder(self.file, (line, right), places).transform(tree)
        except VisitError as exc:  # a problem inside the placeholder (a number too large): where it stands
            if isinstance(exc.orig_exc, _SyntaxProblem):
                raise exc.orig_exc from None
            raise
        decl = rulebook.decls[0]
        assert isinstance(decl, s.ConstDecl)
        return decl.value

    # declarations
    def rulebook(self, meta: Any, *decls: Any) -> s.Rulebook:
        return s.Rulebook(tuple(decls), span=self._span(meta))

    def game_decl(self, meta: Any, name: Token, lo: Token, hi: Token) -> s.GameDecl:
        return s.GameDecl(str(name), self._number(lo), self._number(hi), span=self._span(meta))

    def include_decl(self, meta: Any, path: Token) -> s.IncludeDecl:
        return s.IncludeDecl(_unquote(path), span=self._span(meta))

    def enum_decl(self, meta: Any, name: Token, *members: Token) -> s.EnumDecl:
        return s.EnumDecl(str(name), tuple(str(m) for m in members), span=self._span(meta))

    def enum_extension(self, meta: Any, name: Token, *members: Token) -> s.EnumDecl:
        return s.EnumDecl(str(name), tuple(str(m) for m in members), True, span=self._span(meta))

    def card_decl(self, meta: Any, name: Token, *rest: Any) -> s.CardDecl:
        label = rest[-1]
        fields = tuple(f for f in rest[:-1] if f is not None)
        return s.CardDecl(str(name), fields, _unquote(label) if label is not None else None, span=self._span(meta))

    def field(self, meta: Any, name: Token, type_: s.TypeExpr) -> s.FieldDecl:
        return s.FieldDecl(str(name), type_, span=self._span(meta))

    def named_type(self, meta: Any, name: Token) -> s.NamedType:
        return s.NamedType(str(name), span=self._span(meta))

    def list_type(self, meta: Any, element: s.TypeExpr) -> s.ListType:
        return s.ListType(element, span=self._span(meta))

    def keys(self, meta: Any, *types: s.TypeExpr) -> tuple[s.TypeExpr, ...]:
        return tuple(types)

    def zone_decl(
        self,
        meta: Any,
        name: Token,
        keys: Any,
        card_type: Token,
        visibility: Token,
        shuffled: Token | None,
        display: Token | None,
    ) -> s.ZoneDecl:
        return s.ZoneDecl(
            str(name),
            keys or (),
            str(card_type),
            str(visibility),
            shuffled is not None,
            _unquote(display) if display is not None else None,
            span=self._span(meta),
        )

    def var_decl(
        self,
        meta: Any,
        name: Token,
        keys: Any,
        type_: s.TypeExpr,
        init: s.Expr,
        visibility: Token,
        display: Token | None,
    ) -> s.VarDecl:
        display_text = _unquote(display) if display is not None else None
        return s.VarDecl(str(name), keys or (), type_, init, str(visibility), display_text, span=self._span(meta))

    def by_clause(self, meta: Any, who: s.Expr) -> s.Expr:
        return who

    def prompt_clause(self, meta: Any, text: Token) -> s.StrLit | s.Template:
        return self._text(text)

    def const_decl(self, meta: Any, name: Token, value: s.Expr) -> s.ConstDecl:
        return s.ConstDecl(str(name), value, span=self._span(meta))

    def param(self, meta: Any, name: Token, type_: s.TypeExpr) -> s.Param:
        return s.Param(str(name), type_, span=self._span(meta))

    def fn_decl(self, meta: Any, name: Token, *rest: Any) -> s.FnDecl:
        *params, body = rest
        return s.FnDecl(str(name), tuple(p for p in params if p is not None), body, span=self._span(meta))

    def fn_override(self, meta: Any, name: Token, *rest: Any) -> s.FnDecl:
        *params, body = rest
        return s.FnDecl(str(name), tuple(p for p in params if p is not None), body, True, span=self._span(meta))

    def proc_decl(self, meta: Any, name: Token, *rest: Any) -> s.ProcDecl:
        *params, body = rest
        return s.ProcDecl(str(name), tuple(p for p in params if p is not None), body, span=self._span(meta))

    def proc_override(self, meta: Any, name: Token, *rest: Any) -> s.ProcDecl:
        *params, body = rest
        return s.ProcDecl(str(name), tuple(p for p in params if p is not None), body, True, span=self._span(meta))

    def ability_decl(self, meta: Any, name: Token, *rest: Any) -> s.AbilityDecl:
        params = tuple(r for r in rest if isinstance(r, s.Param))
        text = next(r for r in rest if isinstance(r, Token))
        tiers = tuple(r for r in rest if isinstance(r, s.Tier))
        return s.AbilityDecl(str(name), params, _unquote(text), tiers, span=self._span(meta))

    def tier(self, meta: Any, level: Token, text: Token, when: s.Expr | None, body: s.Block) -> s.Tier:
        return s.Tier(self._number(level), _unquote(text), when, body, span=self._span(meta))

    def binding(self, meta: Any, name: Token, source: s.Expr) -> s.Binding:
        return s.Binding(str(name), source, span=self._span(meta))

    def rule_decl(self, meta: Any, name: Token, *rest: Any) -> s.RuleDecl:
        *bindings, when, body = rest
        return s.RuleDecl(str(name), tuple(b for b in bindings if b is not None), when, body, span=self._span(meta))

    def invariant_decl(self, meta: Any, name: Token, *rest: Any) -> s.InvariantDecl:
        *bindings, condition = rest
        return s.InvariantDecl(str(name), tuple(b for b in bindings if b is not None), condition, span=self._span(meta))

    def setup_decl(self, meta: Any, body: s.Block) -> s.SetupDecl:
        return s.SetupDecl(body, span=self._span(meta))

    def play_decl(self, meta: Any, body: s.Block) -> s.PlayDecl:
        return s.PlayDecl(body, span=self._span(meta))

    def layout_decl(self, meta: Any, enum: Token, *rest: Any) -> s.LayoutDecl:
        links = str(rest[-1]) if rest[-1] is not None else None
        return s.LayoutDecl(str(enum), tuple(rest[:-1]), links, span=self._span(meta))

    def place(self, meta: Any, name: Token, x: Token, y: Token) -> s.Place:
        return s.Place(str(name), int(x), int(y), span=self._span(meta))

    # statements
    def block(self, meta: Any, *stmts: s.Stmt) -> s.Block:
        return s.Block(tuple(stmts), span=self._span(meta))

    def let_stmt(self, meta: Any, name: Token, value: s.Expr) -> s.Let:
        return s.Let(str(name), value, span=self._span(meta))

    def assign_stmt(self, meta: Any, name: Token, op: Token, value: s.Expr) -> s.Assign:
        return s.Assign(str(name), str(op), value, span=self._span(meta))

    def set_stmt(self, meta: Any, target: Any, op: Token, value: s.Expr) -> s.SetVar | s.SetField:
        kind, a, b = target
        if kind == "var":
            return s.SetVar(a, b, str(op), value, span=self._span(meta))
        return s.SetField(a, b, str(op), value, span=self._span(meta))

    def var_target(self, meta: Any, name: Token, *keys: s.Expr) -> tuple[str, str, tuple[s.Expr, ...]]:
        return ("var", str(name), tuple(k for k in keys if k is not None))

    def field_target(self, meta: Any, obj: s.Expr, name: Token) -> tuple[str, s.Expr, str]:
        return ("field", obj, str(name))

    def move_stmt(self, meta: Any, what: s.Expr, bottom: Token | None, to: s.Expr) -> s.Move:
        return s.Move(what, to, bottom is not None, span=self._span(meta))

    def draw_stmt(self, meta: Any, count: s.Expr, source: s.Expr, to: s.Expr) -> s.Draw:
        return s.Draw(count, source, to, span=self._span(meta))

    def reveal_stmt(self, meta: Any, what: s.Expr, to: s.Expr) -> s.Reveal:
        return s.Reveal(what, to, span=self._span(meta))

    def tell_stmt(self, meta: Any, to: s.Expr, what: s.Expr, field: Token, value: s.Expr) -> s.Tell:
        return s.Tell(to, what, str(field), value, span=self._span(meta))

    def create_stmt(self, meta: Any, count: s.Expr, card_type: Token, *rest: Any) -> s.Create:
        *inits, zone = rest
        return s.Create(count, str(card_type), tuple(i for i in inits if i is not None), zone, span=self._span(meta))

    def init(self, meta: Any, name: Token, value: s.Expr) -> s.Init:
        return s.Init(str(name), value, span=self._span(meta))

    def if_stmt(self, meta: Any, cond: s.Expr, then: s.Block, *rest: Any) -> s.If:
        *elifs, otherwise = rest
        return s.If(cond, then, tuple(elifs), otherwise, span=self._span(meta))

    def elif_clause(self, meta: Any, cond: s.Expr, body: s.Block) -> s.Elif:
        return s.Elif(cond, body, span=self._span(meta))

    def for_stmt(self, meta: Any, var: Token, source: s.Expr, body: s.Block) -> s.For:
        return s.For(str(var), source, body, span=self._span(meta))

    def while_stmt(self, meta: Any, cond: s.Expr, body: s.Block) -> s.While:
        return s.While(cond, body, span=self._span(meta))

    def repeat_stmt(self, meta: Any, count: s.Expr, body: s.Block) -> s.Repeat:
        return s.Repeat(count, body, span=self._span(meta))

    def match_stmt(self, meta: Any, subject: s.Expr, *rest: Any) -> s.Match:
        *cases, otherwise = rest
        return s.Match(subject, tuple(cases), otherwise, span=self._span(meta))

    def case(self, meta: Any, value: s.Expr, body: s.Block) -> s.Case:
        return s.Case(value, body, span=self._span(meta))

    def attempt_stmt(self, meta: Any, body: s.Block, otherwise: s.Block | None) -> s.Attempt:
        return s.Attempt(body, otherwise, span=self._span(meta))

    def together_stmt(self, meta: Any, body: s.Block) -> s.Together:
        return s.Together(body, span=self._span(meta))

    def secret_stmt(self, meta: Any, body: s.Block) -> s.Secret:
        return s.Secret(body, span=self._span(meta))

    def fail_stmt(self, meta: Any, message: Token) -> s.Fail:
        return s.Fail(_unquote(message), span=self._span(meta))

    def require_stmt(self, meta: Any, cond: s.Expr, message: Token) -> s.Require:
        return s.Require(cond, _unquote(message), span=self._span(meta))

    def choose_stmt(
        self,
        meta: Any,
        target: Token,
        quantity: Token,
        count: s.Expr | None,
        source: s.Expr,
        by: s.Expr | None,
        prompt: s.StrLit | s.Template | None,
    ) -> s.Choose:
        return s.Choose(str(target), str(quantity), count, source, by, prompt, span=self._span(meta))

    def menu_stmt(
        self, meta: Any, by: s.Expr | None, prompt: s.StrLit | s.Template | None, *options: s.Option
    ) -> s.Menu:
        return s.Menu(by, prompt, tuple(options), span=self._span(meta))

    def option(self, meta: Any, label: Token, when: s.Expr | None, body: s.Block) -> s.Option:
        return s.Option(_unquote(label), when, body, span=self._span(meta))

    def use_stmt(self, meta: Any, name: Token, *rest: Any) -> s.Use:
        *args, upto, by = rest
        return s.Use(str(name), tuple(a for a in args if a is not None), upto, by, span=self._span(meta))

    def call_stmt(self, meta: Any, name: Token, *args: Any) -> s.CallStmt:
        return s.CallStmt(str(name), tuple(a for a in args if a is not None), span=self._span(meta))

    def return_stmt(self, meta: Any, value: s.Expr | None) -> s.Return:
        return s.Return(value, span=self._span(meta))

    def end_stmt(self, meta: Any, winners: s.Expr | None) -> s.EndGame:
        return s.EndGame(winners, span=self._span(meta))

    def end_unfinished(self, meta: Any, text: Token) -> s.EndUnfinished:
        return s.EndUnfinished(self._text(text), span=self._span(meta))

    def end_together(self, meta: Any, outcome: Token) -> s.EndTogether:
        return s.EndTogether(str(outcome) == "won", span=self._span(meta))

    def say_stmt(self, meta: Any, text: Token) -> s.Say:
        return s.Say(self._text(text), span=self._span(meta))

    # expressions
    def cond_expr(self, meta: Any, cond: s.Expr, then: s.Expr, otherwise: s.Expr) -> s.CondExpr:
        return s.CondExpr(cond, then, otherwise, span=self._span(meta))

    def _query(self, op: str, meta: Any, source: s.Expr, key: s.Expr) -> s.Query:
        return s.Query(op, source, key, span=self._span(meta))

    def where_op(self, meta: Any, source: s.Expr, key: s.Expr) -> s.Query:
        return self._query("where", meta, source, key)

    def sorted_op(self, meta: Any, source: s.Expr, key: s.Expr) -> s.Query:
        return self._query("sorted", meta, source, key)

    def max_by_op(self, meta: Any, source: s.Expr, key: s.Expr) -> s.Query:
        return self._query("max", meta, source, key)

    def min_by_op(self, meta: Any, source: s.Expr, key: s.Expr) -> s.Query:
        return self._query("min", meta, source, key)

    def group_by_op(self, meta: Any, source: s.Expr, key: s.Expr) -> s.Query:
        return self._query("group", meta, source, key)

    def map_op(self, meta: Any, source: s.Expr, key: s.Expr) -> s.Query:
        return self._query("map", meta, source, key)

    def or_op(self, meta: Any, left: s.Expr, right: s.Expr) -> s.Or:
        return s.Or(left, right, span=self._span(meta))

    def and_op(self, meta: Any, left: s.Expr, right: s.Expr) -> s.And:
        return s.And(left, right, span=self._span(meta))

    def not_op(self, meta: Any, operand: s.Expr) -> s.Not:
        return s.Not(operand, span=self._span(meta))

    def compare(self, meta: Any, left: s.Expr, op: Token, right: s.Expr) -> s.Compare:
        return s.Compare(str(op), left, right, span=self._span(meta))

    def in_op(self, meta: Any, item: s.Expr, coll: s.Expr) -> s.In:
        return s.In(item, coll, False, span=self._span(meta))

    def not_in_op(self, meta: Any, item: s.Expr, coll: s.Expr) -> s.In:
        return s.In(item, coll, True, span=self._span(meta))

    def range_op(self, meta: Any, low: s.Expr, high: s.Expr) -> s.RangeOp:
        return s.RangeOp(low, high, span=self._span(meta))

    def binary(self, meta: Any, left: s.Expr, op: Token, right: s.Expr) -> s.Binary:
        return s.Binary(str(op), left, right, span=self._span(meta))

    def neg(self, meta: Any, operand: s.Expr) -> s.Neg:
        return s.Neg(operand, span=self._span(meta))

    def field_op(self, meta: Any, obj: s.Expr, name: Token) -> s.FieldAccess:
        return s.FieldAccess(obj, str(name), span=self._span(meta))

    def index_op(self, meta: Any, obj: s.Expr, *args: s.Expr) -> s.Index:
        return s.Index(obj, tuple(args), span=self._span(meta))

    def call(self, meta: Any, name: Token, *args: Any) -> s.Call:
        return s.Call(str(name), tuple(a for a in args if a is not None), span=self._span(meta))

    def int_lit(self, meta: Any, tok: Token) -> s.IntLit:
        return s.IntLit(self._number(tok), span=self._span(meta))

    def str_lit(self, meta: Any, tok: Token) -> s.StrLit | s.Template:
        return self._text(tok)

    def true_lit(self, meta: Any) -> s.BoolLit:
        return s.BoolLit(True, span=self._span(meta))

    def false_lit(self, meta: Any) -> s.BoolLit:
        return s.BoolLit(False, span=self._span(meta))

    def none_lit(self, meta: Any) -> s.NoneLit:
        return s.NoneLit(span=self._span(meta))

    def name(self, meta: Any, tok: Token) -> s.Name:
        return s.Name(str(tok), span=self._span(meta))

    def list_lit(self, meta: Any, *items: Any) -> s.ListLit:
        return s.ListLit(tuple(i for i in items if i is not None), span=self._span(meta))

    def comprehension(self, meta: Any, element: s.Expr, *clauses: Any) -> s.Comprehension:
        # `for a in A if c for b in B`: each later clause is a loop inside the earlier ones.
        span = self._span(meta)
        var, source, cond = clauses[-3:]
        made = s.Comprehension(element, str(var), source, cond, span=span)
        for at in range(len(clauses) - 6, -1, -3):
            var, source, cond = clauses[at : at + 3]
            made = s.Comprehension(made, str(var), source, cond, flat=True, span=span)
        return made

    def record_lit(self, meta: Any, *inits: Any) -> s.RecordLit:
        return s.RecordLit(tuple(i for i in inits if i is not None), span=self._span(meta))


def comment_start(line: str) -> int:
    """The index of the `#` that starts a comment on this line (outside any string), or -1."""
    in_string, escaped = False, False
    for i, ch in enumerate(line):
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch == "#":
            return i
    return -1


def parse(text: str, file: str = "<string>") -> s.Rulebook:
    """Parse rulebook text; raise RulebookError with a located message on a syntax error."""
    try:
        tree = grammar_parser().parse(text)
    except UnexpectedInput as exc:
        setattr(exc, "_source_text", text)  # noqa: B010 -- lets the EOF case find the last line
        raise RulebookError([syntax_diagnostic(file, exc)], {file: text}) from None
    return _ast(tree, file, text)


@attrs.frozen
class Lexeme:
    """A token the parser read: its terminal's name in the grammar (`NAME`, `LBRACE`, `GAME`), its text and place."""

    type: str
    text: str
    span: Span


def parse_lexemes(text: str, file: str = "<string>") -> tuple[s.Rulebook, list[Lexeme]]:
    """Parse as `parse` does, and also return every token the parser read (for the editor tools).

    The tokens are the parser's own (its lexer is contextual: `order` in `let order = …` is a NAME,
    in `choose order from …` a keyword), so a tool that reads them agrees with the parser.
    """
    interactive = grammar_parser().parse_interactive(text)
    lexemes: list[Lexeme] = []
    try:
        for tok in interactive.iter_parse():
            span = Span(file, tok.line or 0, tok.column or 0, tok.end_line or 0, tok.end_column or 0)
            lexemes.append(Lexeme(tok.type, str(tok), span))
        tree = interactive.feed_eof()
    except UnexpectedInput:
        return parse(text, file), []  # raises the located syntax error
    return _ast(tree, file, text), lexemes


def grammar_words() -> list[tuple[str, str, bool, bool]]:
    """Every word the grammar spells, where: (word, alias of the rule, first symbols of the rule?, named terminal?).

    `extend enum` gives ("extend", "enum_extension", True, False) and ("enum", …, True, False);
    `zone … hidden` gives ("hidden", "zone_decl", False, True). The editor tools sort words by it.
    """
    parser = grammar_parser()
    patterns = {t.name: t.pattern for t in parser.terminals}
    grammar = resources.files("rulecraft.grammar").joinpath("rules.lark").read_text(encoding="utf-8")
    named = set(re.findall(r"^([A-Z_][A-Z0-9_]*)(?:\.\d+)?\s*:", grammar, re.MULTILINE))
    out: list[tuple[str, str, bool, bool]] = []
    for rule in parser.rules:
        alias = str(rule.alias or rule.origin.name)
        leading = True
        for symbol in rule.expansion:
            pattern = patterns.get(symbol.name) if symbol.is_term else None
            found = _words_of(pattern) if pattern is not None else []
            if not found:
                leading = False
                continue
            out.extend((word, alias, leading, symbol.name in named) for word in found)
    return out


def _words_of(pattern: Any) -> list[str]:
    """The words a terminal matches: `"game"`, or the alternatives of `"public" | "owner"`."""
    if isinstance(pattern, lark.lexer.PatternStr):
        return [pattern.value] if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", pattern.value) else []
    if "[" in pattern.value:  # a character class: NAME, INT, STRING, COMMENT, WS are not words
        return []
    return re.findall(r"[A-Za-z_][A-Za-z0-9_]*", re.sub(r"\\.", " ", pattern.value))


def _ast(tree: Tree[Token], file: str, text: str) -> s.Rulebook:
    """The AST of a parse tree (deep nesting refused first)."""
    places = check_nesting(tree, file, text)
    try:
        return _Builder(file, places=places).transform(tree)
    except VisitError as exc:
        problem = exc.orig_exc
        if isinstance(problem, _SyntaxProblem):
            span = problem.span if problem.span.file else attrs.evolve(problem.span, file=file)
            raise RulebookError([Diagnostic(span, problem.message, hint=problem.hint)], {file: text}) from None
        meta = getattr(exc.obj, "meta", None)
        span = Span(file, getattr(meta, "line", 1), getattr(meta, "column", 1))
        raise RulebookError(
            [Diagnostic(span, f"cannot read this {exc.rule or 'text'}: {problem}")], {file: text}
        ) from None
