"""The canonical layout of rulebook text: `rulecraft fmt`.

The formatter prints the AST back as text, so formatting can never change meaning (the AST,
spans aside, is equal before and after). What the AST does not hold is recovered from the
source lines:
- comments: an own-line comment is printed before the declaration, statement, list item or
  closing brace that follows it; a comment at the end of a line stays at the end of the first
  line printed for the outermost node that starts on that line (else it moves to its own line);
- blank lines: one blank line is kept wherever the source had one or more between two items;
- the author's line breaks in lists, records, card fields and enumerations: a literal written
  over several lines (or too long for one) is printed one item per line; a block written on one
  line with one statement stays on one line (`setup { for p in players { refill(p) } }`).

Everything else is canonical: two spaces of indent, one statement per line, single spaces
around operators and after commas, no trailing commas, parentheses only where needed.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, assert_never

from ..check.reach import nodes
from ..errors import source_lines
from ..syntax import ast as s
from ..syntax.parser import parse
from .layout import (
    ALIGN,
    AND,
    COMPARE,
    NOT,
    OR,
    POSTFIX,
    QUERY,
    QUERY_WORDS,
    RANGE,
    TERNARY,
    UNARY,
    Comment,
    align_comments,
    filled,
    find_comments,
    level,
    quote,
    type_text,
)

INDENT = "  "
WIDTH = 100


class _Comments:
    """The comments not yet printed, in source order."""

    def __init__(self, comments: list[Comment]):
        self.left = list(comments)

    def before(self, line: int) -> list[Comment]:
        """Take every comment on a line before `line`."""
        taken = [c for c in self.left if c.line < line]
        if taken:
            self.left = [c for c in self.left if c.line >= line]
        return taken

    def trailing_at(self, line: int) -> Comment | None:
        """Take the end-of-line comment on `line`, if any."""
        for c in self.left:
            if c.line == line and c.trailing:
                self.left.remove(c)
                return c
        return None

    def rest(self) -> list[Comment]:
        taken, self.left = self.left, []
        return taken


class Formatter:
    """Print one file's AST in canonical layout, with the comments of its source."""

    def __init__(self, source: str, tree: s.Rulebook):
        self.tree = tree
        self.lines = source_lines(source)
        self.comments = _Comments(find_comments(source))
        self.breaking = False  # break the next whole expression that is a chain (the line is too long)
        self.no_inline = False  # the statement's line is too long: no block of it on one line
        self.depth = 0  # how deep inside an expression the printer is
        self.cont: str | None = None  # the indent of continuation lines, when not the usual

    # ------------------------------------------------------------ helpers

    def _comment_lines(
        self, comments: Sequence[Comment], indent: str, last: int | None, first: bool = False
    ) -> tuple[list[str], int | None]:
        """Own-line comments, keeping one blank line where the source had a gap (not at the top)."""
        out: list[str] = []
        for c in comments:
            if last is not None and c.line - last > 1 and (out or not first):
                out.append("")
            out.append(indent + c.text)
            last = c.line
        return out, last

    def _items(self, nodes: Sequence[Any], indent: str, render: Any, last: int | None, end_line: int) -> list[str]:
        """Lines of a sequence of nodes with their comments and kept blank lines, then the
        comments before `end_line` (the closing brace)."""
        out: list[str] = []
        for node in nodes:
            line = node.span.line
            lines, last = self._comment_lines(self.comments.before(line), indent, last, not out)
            out.extend(lines)
            if last is not None and line - last > 1 and out:
                out.append("")
            trailing = self.comments.trailing_at(line)
            text = indent + self._render_within_width(node, indent, render)
            kept = self._authors_lines(node, indent, text)
            if kept is not None:
                text = kept  # its comments are in its lines
            elif trailing is not None:
                head, sep, tail = text.partition("\n")
                text = f"{head}{ALIGN}{trailing.text}{sep}{tail}"
            out.extend(text.split("\n"))
            last = max(node.span.end_line, line)
        if end_line:
            lines, last = self._comment_lines(self.comments.before(end_line), indent, last, not out)
            out.extend(lines)
        return out

    def _authors_lines(self, node: Any, indent: str, text: str) -> str | None:
        """The author's own lines for a statement or declaration without a block that the canonical
        layout cannot fit in WIDTH where its author broke it to fit: fmt never makes a line longer
        than the input's. Re-indented to `indent`, its inner lines kept where they stood against its
        first; None where the canonical text fits, or the author's lines do not either."""
        first, last = node.span.line, node.span.end_line
        if last <= first or all(len(row) <= WIDTH for row in text.split("\n")) or _has_block(node):
            return None
        rows = self.lines[first - 1 : last]
        base = len(rows[0]) - len(rows[0].lstrip(" "))
        kept = [indent + rows[0].strip()]
        for row in rows[1:]:
            lead = len(row) - len(row.lstrip(" "))
            kept.append((indent + " " * max(lead - base, 0) + row.strip()) if row.strip() else "")
        if any(len(row) > WIDTH for row in kept):
            return None
        self.comments.left = [c for c in self.comments.left if not first <= c.line <= last]
        return "\n".join(kept)

    def _render_within_width(self, node: Any, indent: str, render: Any) -> str:
        """Render a node; if its first line is too long, render it again with its blocks one
        statement per line, and if that is still too long, breaking its outermost chain of `+`,
        `-`, `and` or `or` before each operator."""
        saved = list(self.comments.left)
        text = render(node, indent)
        if len(indent) + len(text.partition("\n")[0]) <= WIDTH:
            return text
        for breaking in (False, True):
            self.comments.left = list(saved)
            self.no_inline, self.breaking = True, breaking
            try:
                text = render(node, indent)
            finally:
                self.no_inline = self.breaking = False
            if len(indent) + len(text.partition("\n")[0]) <= WIDTH:
                break
        return text

    def _value_below(self, head: str, e: s.Expr, indent: str) -> str:
        """`head value` on one line if it fits; else the value on the next line, indented, and
        broken if it is still too long."""
        saved = list(self.comments.left)
        one = f"{head} {self.expr(e, indent)}"
        if len(indent) + len(one) <= WIDTH or "\n" in one:
            return one
        inner = indent + INDENT
        self.comments.left = list(saved)
        text = self.expr(e, inner)
        if len(inner) + len(text.partition("\n")[0]) > WIDTH:
            self.comments.left = list(saved)
            self.breaking, self.cont = True, inner
            try:
                text = self.expr(e, inner)
            finally:
                self.breaking, self.cont = False, None
        return f"{head}\n{inner}{text}"

    def _broken(self, e: s.Expr, indent: str) -> str | None:
        """The statement's whole value, broken over lines (None: this form does not break)."""
        cont = self.cont or indent + INDENT * 2
        x = self.expr
        match e:
            case s.And() | s.Or() | s.Binary("+" | "-"):
                return self._chain(e, indent)
            case s.CondExpr(condition, then, otherwise):
                self.breaking = False
                self.depth += 1
                text = f"if {x(condition, cont, QUERY)} then {x(then, cont, QUERY)}"
                while isinstance(otherwise, s.CondExpr):  # `else if` chains: one branch per line
                    cond, then, otherwise = otherwise.condition, otherwise.then, otherwise.otherwise
                    text += f"\n{cont}else if {x(cond, cont, QUERY)} then {x(then, cont, QUERY)}"
                text += f"\n{cont}else {x(otherwise, cont)}"
                self.depth -= 1
                return text
            case s.Comprehension():
                self.breaking = False
                self.depth += 1
                more = (self.cont or indent) + INDENT * 2
                element, clauses = comprehension_clauses(e)
                text = f"[{x(element, more)}"
                for name, walked, only in clauses:
                    text += f"\n{more}for {name} in {x(walked, more)}"
                    text += f"\n{more}if {x(only, more)}" if only is not None else ""
                self.depth -= 1
                return text + "]"
            case s.Call(name, (arg,)):
                return f"{name}({x(arg, indent)})"  # the break goes inside: `flatten([... for ...])`
        return None

    def _chain(self, e: s.Expr, indent: str) -> str:
        """`a + b - c` as `a` then `+ b`, `- c` on continuation lines."""
        self.breaking = False
        self.depth += 1
        lv = level(e)
        rest: list[tuple[str, s.Expr]] = []
        while level(e) == lv and isinstance(e, s.Binary | s.And | s.Or):
            op = e.op if isinstance(e, s.Binary) else ("and" if isinstance(e, s.And) else "or")
            rest.append((op, e.right))
            e = e.left
        cont = self.cont or indent + INDENT * 2
        text = self.expr(e, cont, lv)
        for op, right in reversed(rest):
            text += f"\n{cont}{op} {self.expr(right, cont, lv + 1)}"
        self.depth -= 1
        return text

    def _seq(self, items: Sequence[Any], render: Any, open_: str, close: str, indent: str, node_span: Any) -> str:
        """A bracketed, comma-separated sequence: on one line, or one item per line when the
        source wrote it over several lines, it holds comments, or one line is too long."""
        saved = list(self.comments.left)
        breaking, self.breaking = self.breaking, False  # a chain inside a literal stays on one line
        one_line = open_ + ", ".join(render(i, indent) for i in items) + close
        if open_ == "{" and items:
            one_line = "{ " + one_line[1:-1] + " }"
        elif open_ == "{":
            one_line = "{ }"
        # The author's line breaks are kept for a literal that is (an element of) a statement's value.
        multi = node_span.end_line > node_span.line and node_span.line > 0 and self.depth <= 2
        has_comment = any(node_span.line <= c.line < node_span.end_line for c in self.comments.left)
        too_long = len(indent) + len(one_line) > WIDTH and self.depth <= 2  # deeper: a line of its own
        if not items or (not multi and not has_comment and not too_long and "\n" not in one_line):
            self.breaking = breaking
            return one_line
        self.comments.left = saved  # what the one-line attempt took is printed below instead
        inner = indent + INDENT
        out = [open_]
        last: int | None = None
        row: list[str] = []  # the items of the current line: the author's rows are kept

        def end_row(comment: Comment | None = None) -> None:
            if row:
                out.append(inner + " ".join(row) + (ALIGN + comment.text if comment is not None else ""))
                row.clear()

        for n, item in enumerate(items):
            line = item.span.line
            comments = self.comments.before(line)
            if comments or (last is not None and line > last):
                end_row()
            lines, last = self._comment_lines(comments, inner, last)
            out.extend(lines)
            text = render(item, inner) + ("," if n < len(items) - 1 else "")
            if "\n" in text or (row and len(inner) + len(" ".join([*row, text])) > WIDTH):
                end_row()
            row.append(text)
            if "\n" in text:
                end_row()
            same_line = n + 1 < len(items) and items[n + 1].span.line == (item.span.end_line or line)
            trailing = None if same_line else self.comments.trailing_at(item.span.end_line or line)
            if trailing is not None:
                end_row(trailing)
            last = max(item.span.end_line, line)
        end_row()
        lines, _ = self._comment_lines(self.comments.before(node_span.end_line), inner, last)
        out.extend(lines)
        out.append(indent + close)
        self.breaking = breaking
        return "\n".join(out)

    # ------------------------------------------------------------ expressions

    def expr(self, e: s.Expr, indent: str, need: int = TERNARY) -> str:
        broken = self._broken(e, indent) if self.breaking and self.depth == 0 else None
        if broken is not None:
            text = broken
        else:
            self.depth += 1
            try:
                text = self._expr(e, indent)
            finally:
                self.depth -= 1
        return f"({text})" if level(e) < need else text

    def _expr(self, e: s.Expr, indent: str) -> str:
        x = self.expr
        match e:
            case s.IntLit(value):
                return str(value)
            case s.StrLit(value):
                return filled(value)
            case s.Template(parts):
                return (
                    '"'
                    + "".join(
                        filled(p)[1:-1] if isinstance(p, str) else "{" + quote(x(p, indent))[1:-1] + "}" for p in parts
                    )
                    + '"'
                )
            case s.BoolLit(value):
                return "true" if value else "false"
            case s.NoneLit():
                return "none"
            case s.Name(id):
                return id
            case s.ListLit(items):
                return self._seq(items, lambda i, ind: x(i, ind), "[", "]", indent, e.span)
            case s.Comprehension():
                element, clauses = comprehension_clauses(e)
                text = f"[{x(element, indent)}"
                for var, source, condition in clauses:
                    text += f" for {var} in {x(source, indent)}"
                    text += f" if {x(condition, indent)}" if condition is not None else ""
                return text + "]"
            case s.RecordLit(inits):
                if not inits:
                    return "{}"
                text = self._seq(inits, self.init, "{", "}", indent, e.span)
                return "{" + text[2:-2] + "}" if "\n" not in text else text
            case s.FieldAccess(obj, name):
                return f"{x(obj, indent, POSTFIX)}.{name}"
            case s.Index(obj, args):
                return f"{x(obj, indent, POSTFIX)}[{', '.join(x(a, indent) for a in args)}]"
            case s.Call(name, args):
                return f"{name}({', '.join(x(a, indent) for a in args)})"
            case s.Neg(operand):
                return f"-{x(operand, indent, UNARY)}"
            case s.Binary(op, left, right):
                lv = level(e)
                return f"{x(left, indent, lv)} {op} {x(right, indent, lv + 1)}"
            case s.RangeOp(low, high):
                return f"{x(low, indent, POSTFIX)}..{x(high, indent, POSTFIX)}"  # `1..(n - 1)` reads better
            case s.Compare(op, left, right):
                return f"{x(left, indent, COMPARE)} {op} {x(right, indent, RANGE)}"
            case s.In(item, collection, negated):
                word = "not in" if negated else "in"
                return f"{x(item, indent, COMPARE)} {word} {x(collection, indent, RANGE)}"
            case s.Not(operand):
                return f"not {x(operand, indent, NOT)}"
            case s.And(left, right):
                return f"{x(left, indent, AND)} and {x(right, indent, NOT)}"
            case s.Or(left, right):
                # `a or (b and c)`: an `and` inside an `or` is parenthesised, though it binds tighter
                return f"{x(left, indent, NOT if isinstance(left, s.And) else OR)} or {x(right, indent, NOT)}"
            case s.Query(op, source, key):
                # A query's source is parenthesised unless it is a name, a call, an index or a field:
                # `(hand[p] group by it.v) where len(it) > 1` reads as it runs.
                return f"{x(source, indent, POSTFIX)} {QUERY_WORDS[op]} {x(key, indent, OR)}"
            case s.CondExpr(condition, then, otherwise):
                return (
                    f"if {x(condition, indent, QUERY)} then {x(then, indent, QUERY)} "
                    f"else {x(otherwise, indent, TERNARY)}"
                )
            case _:
                assert_never(e)

    def init(self, i: s.Init, indent: str) -> str:
        return f"{i.name}: {self.expr(i.value, indent)}"

    # ------------------------------------------------------------ statements

    def block(self, b: s.Block, indent: str) -> str:
        """`{ stmt }` on one line when the source did so with one statement, else one per line."""
        self.breaking = False  # a long header line breaks in the header, not in the body
        if not b.stmts:
            inner_comments = any(b.span.line <= c.line < b.span.end_line for c in self.comments.left)
            if not inner_comments:
                return "{ }"
        no_inline, self.no_inline = self.no_inline, False  # the statements inside decide for themselves
        try:
            if len(b.stmts) == 1 and b.span.line == b.span.end_line and b.span.line > 0 and not no_inline:
                saved = list(self.comments.left)
                text = "{ " + self.stmt(b.stmts[0], indent) + " }"
                if "\n" not in text and len(indent) + len(text) <= WIDTH:
                    return text
                self.comments.left = saved
            lines = self._items(b.stmts, indent + INDENT, self.stmt, b.span.line, b.span.end_line)
            return "{\n" + "\n".join(lines) + "\n" + indent + "}"
        finally:
            self.no_inline = no_inline

    def stmt(self, st: s.Stmt, indent: str) -> str:
        x = self.expr
        match st:
            case s.Let(name, value):
                return f"let {name} = {x(value, indent)}"
            case s.Assign(name, op, value):
                return f"{name} {op} {x(value, indent)}"
            case s.SetVar(name, keys, op, value):
                target = name + (f"[{', '.join(x(k, indent) for k in keys)}]" if keys else "")
                return f"set {target} {op} {x(value, indent)}"
            case s.SetField(obj, field, op, value):
                return f"set {x(obj, indent, POSTFIX)}.{field} {op} {x(value, indent)}"
            case s.Move(what, to, bottom):
                return f"move {x(what, indent)} to {'bottom of ' if bottom else ''}{x(to, indent)}"
            case s.Draw(count, source, to):
                return f"draw {x(count, indent)} from {x(source, indent)} to {x(to, indent)}"
            case s.Reveal(what, to):
                return f"reveal {x(what, indent)} to {x(to, indent)}"
            case s.Tell(to, what, field, value):
                return f"tell {x(to, indent)} which of {x(what, indent)} have {field} {x(value, indent)}"
            case s.Create(count, card_type, inits, zone):
                fields = self._seq(inits, self.init, "{", "}", indent, _inits_span(st))
                return f"create {x(count, indent)} {card_type} {fields} in {x(zone, indent)}"
            case s.If(condition, then, elifs, otherwise):
                text = f"if {x(condition, indent)} {self.block(then, indent)}"
                for clause in elifs:
                    text += f" elif {x(clause.condition, indent)} {self.block(clause.body, indent)}"
                if otherwise is not None:
                    text += f" else {self.block(otherwise, indent)}"
                return text
            case s.For(var, source, body):
                return f"for {var} in {x(source, indent)} {self.block(body, indent)}"
            case s.While(condition, body):
                return f"while {x(condition, indent)} {self.block(body, indent)}"
            case s.Repeat(count, body):
                return f"repeat {x(count, indent)} {self.block(body, indent)}"
            case s.Match(subject, cases, otherwise):
                inner = indent + INDENT
                lines = self._items(
                    cases, inner, lambda c, ind: f"{x(c.value, ind)} {self.block(c.body, ind)}", st.span.line, 0
                )
                if otherwise is not None:
                    lines.extend(self._items([otherwise], inner, lambda b, ind: f"else {self.block(b, ind)}", None, 0))
                lines.extend(self._comment_lines(self.comments.before(st.span.end_line), inner, None)[0])
                return f"match {x(subject, indent)} {{\n" + "\n".join(lines) + f"\n{indent}}}"
            case s.Attempt(body, otherwise):
                text = f"attempt {self.block(body, indent)}"
                return text + (f" else {self.block(otherwise, indent)}" if otherwise is not None else "")
            case s.Together(body):
                return f"together {self.block(body, indent)}"
            case s.Secret(body):
                return f"secret {self.block(body, indent)}"
            case s.Fail(message):
                return f"fail {quote(message)}"
            case s.Require(condition, message):
                return f"require {x(condition, indent)} else {quote(message)}"
            case s.Choose(target, quantity, count, source, by, prompt):
                text = f"let {target} = choose {quantity}"
                if count is not None:
                    text += f" {x(count, indent)}"
                text += f" from {x(source, indent)}"
                if by is not None:
                    text += f" by {x(by, indent)}"
                if prompt is not None:
                    text += f" prompt {x(prompt, indent)}"
                return text
            case s.Menu(by, prompt, options):
                head = "choose"
                if by is not None:
                    head += f" by {x(by, indent)}"
                if prompt is not None:
                    head += f" prompt {x(prompt, indent)}"
                inner = indent + INDENT
                lines = self._items(options, inner, self.option, st.span.line, st.span.end_line)
                return f"{head} {{\n" + "\n".join(lines) + f"\n{indent}}}"
            case s.Use(ability, args, upto, by):
                text = f"use {ability}({', '.join(x(a, indent) for a in args)}) upto {x(upto, indent)}"
                return text + (f" by {x(by, indent)}" if by is not None else "")
            case s.CallStmt(name, args):
                return f"{name}({', '.join(x(a, indent) for a in args)})"
            case s.Return(value):
                return "return" + (f" {x(value, indent)}" if value is not None else "")
            case s.EndGame(winners):
                return "end game" + (f" winners {x(winners, indent)}" if winners is not None else "")
            case s.EndUnfinished(text):
                return f"end game unfinished {x(text, indent)}"
            case s.EndTogether(won):
                return "end game together " + ("won" if won else "lost")
            case s.Say(text):
                return f"say {x(text, indent)}"
            case _:
                assert_never(st)

    def option(self, o: s.Option, indent: str) -> str:
        when = f" when {self.expr(o.when, indent)}" if o.when is not None else ""
        return f"option {quote(o.label)}{when} {self.block(o.body, indent)}"

    def tier(self, t: s.Tier, indent: str) -> str:
        when = f" when {self.expr(t.when, indent)}" if t.when is not None else ""
        return f"tier {t.level} {quote(t.text)}{when} {self.block(t.body, indent)}"

    # ------------------------------------------------------------ declarations

    def params(self, params: Sequence[s.Param]) -> str:
        return ", ".join(f"{p.name}: {type_text(p.type)}" for p in params)

    def decl(self, d: s.Decl, indent: str) -> str:
        x = self.expr
        match d:
            case s.GameDecl(name, lo, hi):
                return f"game {name} players {lo}..{hi}"
            case s.IncludeDecl(path):
                return f"include {quote(path)}"
            case s.EnumDecl(name, _):
                spans = _member_spans(d, self.lines)
                text = self._seq(spans, lambda m, ind: m.text, "{", "}", indent, _braces_span(d, self.lines))
                return f"{'extend ' if d.extends else ''}enum {name} {text}"
            case s.CardDecl(name, fields, label):
                text = self._seq(
                    fields,
                    lambda f, ind: f"{f.name}: {type_text(f.type)}",
                    "{",
                    "}",
                    indent,
                    _braces_span(d, self.lines),
                )
                return f"card {name} {text}" + (f" label {quote(label)}" if label is not None else "")
            case s.ZoneDecl(name, keys, card_type, visibility, shuffled, display):
                key_text = f"[{', '.join(type_text(k) for k in keys)}]" if keys else ""
                shown = f" {quote(display)}" if display is not None else ""
                return f"zone {name}{key_text}: {card_type} {visibility}" + (" shuffled" if shuffled else "") + shown
            case s.VarDecl(name, keys, type_, init, visibility, display):
                key_text = f"[{', '.join(type_text(k) for k in keys)}]" if keys else ""
                shown = f" {quote(display)}" if display is not None else ""
                return f"var {name}{key_text}: {type_text(type_)} = {x(init, indent)} {visibility}{shown}"
            case s.ConstDecl(name, value):
                return self._value_below(f"const {name} =", value, indent)
            case s.FnDecl(name, params, body):
                keyword = "override fn" if d.override else "fn"
                return self._value_below(f"{keyword} {name}({self.params(params)}) =", body, indent)
            case s.ProcDecl(name, params, body):
                keyword = "override proc" if d.override else "proc"
                return f"{keyword} {name}({self.params(params)}) {self.block(body, indent)}"
            case s.AbilityDecl(name, params, text, tiers):
                inner = indent + INDENT
                lines = self._items(tiers, inner, self.tier, d.span.line, d.span.end_line)
                return f"ability {name}({self.params(params)}) {quote(text)} {{\n" + "\n".join(lines) + f"\n{indent}}}"
            case s.RuleDecl(name, bindings, when, body):
                binds = ", ".join(f"{b.name} in {x(b.source, indent)}" for b in bindings)
                return f"rule {name}({binds}) when {x(when, indent)} {self.block(body, indent)}"
            case s.InvariantDecl(name, bindings, condition):
                binds = f"({', '.join(f'{b.name} in {x(b.source, indent)}' for b in bindings)})" if bindings else ""
                return f"invariant {name}{binds}: {x(condition, indent)}"
            case s.SetupDecl(body):
                return f"setup {self.block(body, indent)}"
            case s.PlayDecl(body):
                return f"play {self.block(body, indent)}"
            case s.LayoutDecl(enum, places, links):
                text = self._seq(
                    places, lambda p, ind: f"{p.name}: {p.x} {p.y}", "{", "}", indent, _braces_span(d, self.lines)
                )
                return f"layout {enum} {text}" + (f" links {links}" if links is not None else "")
            case _:
                assert_never(d)

    def rulebook(self) -> str:
        lines = self._items(self.tree.decls, "", self.decl, None, 0)
        lines.extend(self._comment_lines(self.comments.rest(), "", (lines and self._last_line()) or None)[0])
        text = "\n".join(align_comments(lines)).strip("\n")
        return text + "\n" if text else ""

    def _last_line(self) -> int | None:
        return max((d.span.end_line for d in self.tree.decls), default=None)


# ---------------------------------------------------------------- spans the AST does not keep


class _Member:
    """An enumeration member with the line it was written on (the AST keeps names only)."""

    def __init__(self, text: str, line: int):
        from ..errors import Span

        self.text = text
        self.span = Span("", line, 1, line, 1)


def _member_spans(d: s.EnumDecl, lines: list[str]) -> list[_Member]:
    """Find on which source line each member of an enumeration stands."""
    members = []
    line = d.span.line
    for name in d.members:
        for candidate in range(line, max(d.span.end_line, line) + 1):
            text = lines[candidate - 1] if 0 < candidate <= len(lines) else ""
            code = text.split("#", 1)[0]
            if candidate == d.span.line:
                code = code.split("{", 1)[1] if "{" in code else ""
            if re.search(rf"\b{re.escape(name)}\b", code):
                line = candidate
                break
        members.append(_Member(name, line))
    return members


def _braces_span(d: s.EnumDecl | s.CardDecl | s.LayoutDecl, lines: list[str]) -> Any:
    """The span from `{` to `}` of an enumeration, card or layout: the declaration's, without the label
    (or the links)."""
    from ..errors import Span

    end = d.span.end_line
    if (isinstance(d, s.CardDecl) and d.label is not None) or (isinstance(d, s.LayoutDecl) and d.links is not None):
        for candidate in range(end, d.span.line - 1, -1):
            text = lines[candidate - 1] if 0 < candidate <= len(lines) else ""
            if "}" in text.split("#", 1)[0]:
                end = candidate
                break
    return Span(d.span.file, d.span.line, d.span.column, end, 0)


def _inits_span(c: s.Create) -> Any:
    from ..errors import Span

    first = c.inits[0].span.line if c.inits else c.span.line
    last = c.inits[-1].span.end_line if c.inits else c.span.line
    start = c.span.line if first == c.span.line else first - 1
    return Span(c.span.file, start, 0, last if last > start else start, 0)


def _has_block(node: Any) -> bool:
    """Whether a statement or declaration holds a block of statements (its lines are laid out
    statement by statement, never kept as written)."""
    return any(isinstance(n, s.Block) for n in nodes(node))


def format_text(text: str, file: str = "<string>") -> str:
    """Return the canonical layout of a rulebook's text (raises RulebookError if it does not parse)."""
    return Formatter(text, parse(text, file)).rulebook()


def comprehension_clauses(e: s.Comprehension) -> tuple[s.Expr, list[tuple[str, s.Expr, s.Expr | None]]]:
    """A comprehension's element and its `for … in … if …` clauses, outermost first (a flat one
    holds the next clause as its element)."""
    clauses = [(e.var, e.source, e.condition)]
    while e.flat and isinstance(e.element, s.Comprehension):
        e = e.element
        clauses.append((e.var, e.source, e.condition))
    return e.element, clauses
