"""Check expressions: each name resolves, each operand has the type its operator needs.

The lowest layer of `Checker` (checker.py), which holds what the declarations gathered; the
statements (statements.py) are checked on top of it."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import assert_never

from ..errors import Diagnostic, Span, did_you_mean
from ..language import types as t
from ..language.builtins import BUILTIN_NAMES, BUILTINS, arity_text
from ..language.values import EnumValue
from ..syntax import ast as s
from .program import (
    BASIC_TYPES,
    CardType,
)
from .resolve import Resolution
from .scope import Scope


class ExpressionChecker:
    """Check expressions: each name resolves, each operand has the type its operator needs."""

    # Declared here, set by `Checker.__init__`: what the declarations gathered, which every layer reads.
    files: list[tuple[str, s.Rulebook]]
    sources: dict[str, str]
    diagnostics: list[Diagnostic]
    globals: dict[str, tuple[str, Span]]
    enums: dict[str, tuple[EnumValue, ...]]
    members: dict[str, list[EnumValue]]
    cards: dict[str, CardType]
    zones: dict[str, s.ZoneDecl]
    vars: dict[str, s.VarDecl]
    var_types: dict[str, t.T]
    consts: dict[str, s.ConstDecl]
    const_types: dict[str, t.T]
    fns: dict[str, s.FnDecl]
    fn_types: dict[str, t.T]
    procs: dict[str, s.ProcDecl]
    abilities: dict[str, s.AbilityDecl]
    rules: list[s.RuleDecl]
    invariants: list[s.InvariantDecl]
    resolution: Resolution
    setup: list[s.Block]
    play: s.Block | None
    game: s.GameDecl | None
    scope: Scope

    def error(self, span: Span, message: str, hint: str | None = None) -> None:
        self.diagnostics.append(Diagnostic(span, message, hint=hint))

    def _type(self, type_: s.TypeExpr) -> t.T:
        match type_:
            case s.NamedType(name):
                if name in BASIC_TYPES:
                    return BASIC_TYPES[name]
                if name in self.enums:
                    return t.T("enum", name)
                if name in self.globals and self.globals[name][0] == "card type":
                    return t.T("card", name)
                known = [*BASIC_TYPES, *self.enums, *(n for n, (k, _) in self.globals.items() if k == "card type")]
                self.error(type_.span, f"unknown type '{name}'{did_you_mean(name, known)}")
                return t.ANY
            case s.ListType(element):
                return t.list_of(self._type(element))
            case _:
                assert_never(type_)

    def _check_template(self, text: str, span: Span, names: Iterable[str]) -> None:

        allowed = set(names)
        for m in re.finditer(r"\{([A-Za-z_][A-Za-z0-9_]*)(?:\.[A-Za-z_][A-Za-z0-9_]*)?\}", text):
            if m.group(1) not in allowed:
                self.error(span, f"unknown name '{m.group(1)}' in text \"{text}\"{did_you_mean(m.group(1), allowed)}")

    def expect(self, have: t.T, want: t.T, span: Span, what: str) -> None:
        if not t.compatible(have, want):
            self.error(span, f"{what} must be {want}, not {have}")

    def collection(self, have: t.T, span: Span, what: str = "this") -> t.T:
        elem = t.element_of(have)
        if elem is None:
            self.error(span, f"{what} must be a list or a zone, not {have}")
            return t.ANY
        return elem

    def _cond(self, e: s.Expr) -> None:
        self.expect(self.expr(e), t.BOOL, e.span, "a condition")

    def _zone(self, e: s.Expr) -> t.T:
        zt = self.expr(e)
        if zt.kind not in ("zone", "any"):
            self.error(e.span, f"a zone is needed here, not {zt}")
        return zt

    def _keys(self, decl: s.ZoneDecl | s.VarDecl, keys: tuple[s.Expr, ...], span: Span) -> None:
        kind = "zone" if isinstance(decl, s.ZoneDecl) else "variable"
        if len(keys) != len(decl.keys):
            if decl.keys:
                shape = ", ".join(str(self._type(k)) for k in decl.keys)
                self.error(span, f"{kind} {decl.name} takes {len(decl.keys)} key(s): {decl.name}[{shape}]")
            else:
                hint = (
                    f"to read a card of it write top({decl.name}), bottom({decl.name}) or first({decl.name})"
                    if kind == "zone"
                    else None
                )
                self.error(span, f"{kind} {decl.name} takes no keys", hint=hint)
            for k in keys:
                self.expr(k)
            return
        for k, want in zip(keys, decl.keys, strict=True):
            self.expect(self.expr(k), self._type(want), k.span, f"this key of {decl.name}")

    def _call_args(self, name: str, params: tuple[s.Param, ...], args: tuple[s.Expr, ...], span: Span) -> None:
        if len(args) != len(params):
            self.error(span, f"{name} takes {len(params)} argument(s), not {len(args)}")
            for a in args:
                self.expr(a)
            return
        for a, p in zip(args, params, strict=True):
            self.expect(self.expr(a), self._type(p.type), a.span, f"argument {p.name} of {name}")

    def _field_type(self, ot: t.T, field: str, span: Span) -> t.T | None:
        if ot.kind == "card" and ot.name is not None:
            ct = self.cards.get(ot.name)
            if ct is None:
                return t.ANY
            ft = ct.field_type(field)
            if ft is None:
                self.error(
                    span, f"card type {ot.name} has no field '{field}'{did_you_mean(field, [f for f, _ in ct.fields])}"
                )
            return ft
        if ot.kind in ("card", "any", "record"):
            return t.ANY
        hint = None
        if ot.kind == "zone":
            hint = f"a zone holds cards: take one first, e.g. top(...).{field}, or write '... map it.{field}'"
        elif ot.kind == "list":
            hint = f"for the {field} of each element write '... map it.{field}'"
        self.error(span, f"{ot} has no fields", hint=hint)
        return None

    def expr(self, e: s.Expr) -> t.T:
        match e:
            case s.CondExpr(cond, then, otherwise):
                self._cond(cond)
                return t.join(self.expr(then), self.expr(otherwise))
            case s.Query(op, source, key):
                elem = self.collection(self.expr(source), source.span, f"what '{op}' reads")
                self.scope.push()
                self.scope.bind("it", elem)
                kt = self.expr(key)
                self.scope.pop()
                if op == "where":
                    self.expect(kt, t.BOOL, key.span, "a 'where' condition")
                    return t.list_of(elem)
                if op in ("max", "min"):
                    self.expect(kt, t.INT, key.span, f"a '{op} by' key")
                    return t.list_of(elem)
                if op == "sorted":
                    return t.list_of(elem)
                if op == "group":
                    return t.list_of(t.list_of(elem))
                return t.list_of(kt)
            case s.Or(left, right) | s.And(left, right):
                self._cond(left)
                self._cond(right)
                return t.BOOL
            case s.Not(operand):
                self._cond(operand)
                return t.BOOL
            case s.Compare(op, left, right):
                lt, rt = self.expr(left), self.expr(right)
                if op in ("<", ">", "<=", ">="):
                    self.expect(lt, t.INT, left.span, f"a side of '{op}'")
                    self.expect(rt, t.INT, right.span, f"a side of '{op}'")
                elif not (t.compatible(lt, rt) or t.compatible(rt, lt)):
                    self.error(e.span, f"{lt} and {rt} are never equal")
                return t.BOOL
            case s.In(item, collection, _):
                it = self.expr(item)
                elem = self.collection(self.expr(collection), collection.span, "the right side of 'in'")
                if not (t.compatible(it, elem) or t.compatible(elem, it)):
                    self.error(e.span, f"a {it} is never in a collection of {elem}")
                return t.BOOL
            case s.RangeOp(low, high):
                self.expect(self.expr(low), t.INT, low.span, "a range's start")
                self.expect(self.expr(high), t.INT, high.span, "a range's end")
                return t.list_of(t.INT)
            case s.Binary(op, left, right):
                lt, rt = self.expr(left), self.expr(right)
                if op == "+" and (lt.kind in ("list", "zone") or rt.kind in ("list", "zone")):
                    return t.list_of(t.join(t.element_of(lt) or t.ANY, t.element_of(rt) or t.ANY))
                if op == "-" and lt.kind in ("list", "zone"):
                    self.collection(rt, right.span, "the right side of '-' on a list")
                    return t.list_of(t.element_of(lt) or t.ANY)
                if op == "+" and lt.kind == "str":
                    return t.STR
                self.expect(lt, t.INT, left.span, f"a side of '{op}'")
                self.expect(rt, t.INT, right.span, f"a side of '{op}'")
                return t.INT
            case s.Neg(operand):
                self.expect(self.expr(operand), t.INT, operand.span, "a negated value")
                return t.INT
            case s.FieldAccess(obj, name):
                if isinstance(obj, s.Name) and obj.id in self.enums and self.scope.lookup(obj.id) is None:
                    self.resolution.bind(e, "enum_member", obj.id)
                    if name not in {v.name for v in self.enums[obj.id]}:
                        self.error(
                            e.span,
                            f"enumeration {obj.id} has no value '{name}'"
                            f"{did_you_mean(name, [v.name for v in self.enums[obj.id]])}",
                        )
                    return t.T("enum", obj.id)
                ot = self.expr(obj)
                return self._field_type(ot, name, e.span) or t.ANY
            case s.Index(obj, args):
                return self._index(e, obj, args)
            case s.Call(name, args):
                return self._call(e, name, args)
            case s.IntLit():
                return t.INT
            case s.StrLit():
                return t.STR
            case s.Template(parts):
                for part in parts:
                    if not isinstance(part, str):
                        self.expr(part)  # any value is written as its label
                return t.STR
            case s.BoolLit():
                return t.BOOL
            case s.NoneLit():
                return t.NONE
            case s.Name(id):
                return self._name(e, id)
            case s.ListLit(items):
                result = t.NONE
                for item in items:
                    result = t.join(result, self.expr(item))
                return t.list_of(result if result != t.NONE else t.ANY)
            case s.Comprehension(element, var, source, cond, flat):
                elem = self.collection(self.expr(source), source.span, "what a comprehension walks")
                self.scope.push()
                self.scope.bind(var, elem)
                if cond is not None:
                    self._cond(cond)
                et = self.expr(element)
                self.scope.pop()
                return et if flat else t.list_of(et)  # a flat one's element is the inner comprehension
            case s.RecordLit(inits):
                seen: set[str] = set()
                for init in inits:
                    if init.name in seen:
                        self.error(init.span, f"field '{init.name}' is given twice")
                    seen.add(init.name)
                    self.expr(init.value)
                return t.RECORD
            case _:
                assert_never(e)

    def _name(self, e: s.Name, name: str) -> t.T:
        local = self.scope.lookup(name)
        if local is not None:
            self.resolution.bind(e, "local", name)
            self.resolution.note_body(e, self.scope.unchecked)
            return local
        if name in self.consts:
            self.resolution.bind(e, "const", name)
            return self.const_types.get(name, t.ANY)
        if name in BUILTIN_NAMES:
            self.resolution.bind(e, "builtin", name)
            return BUILTIN_NAMES[name].type
        if name in self.members:
            self.resolution.bind(e, "member", name)
            values = self.members[name]
            if len(values) > 1:
                enums = " or ".join(f"{v.enum}.{name}" for v in values)
                self.error(e.span, f"'{name}' is a value of more than one enumeration: write {enums}")
            return t.T("enum", values[0].enum)
        if name in self.enums:
            self.resolution.bind(e, "enum", name)
            return t.list_of(t.T("enum", name))
        if name in self.zones:
            self.resolution.bind(e, "zone", name)
            zone = self.zones[name]
            if zone.keys:
                self._keys(zone, (), e.span)
            return t.zone_of(self._card_type(zone.card_type))
        if name in self.vars:
            self.resolution.bind(e, "var", name)
            var = self.vars[name]
            if var.keys:
                self._keys(var, (), e.span)
            return self.var_types[name]
        if name in self.fns or name in self.procs:
            self.error(e.span, f"'{name}' must be called: {name}(...)")
            return t.ANY
        if name == "it":
            self.error(e.span, "'it' names an element only inside where, sorted by, max by, min by, group by, map")
            return t.ANY
        candidates = [
            *self.scope.names(),
            *self.consts,
            *self.members,
            *self.enums,
            *self.zones,
            *self.vars,
            *BUILTIN_NAMES,
        ]
        self.error(e.span, f"unknown name '{name}'{did_you_mean(name, candidates)}")
        return t.ANY

    def _card_type(self, name: str) -> t.T:
        return t.T("card", name) if name in self.cards else t.ANY_CARD

    def _index(self, e: s.Index, obj: s.Expr, args: tuple[s.Expr, ...]) -> t.T:
        if isinstance(obj, s.Name) and self.scope.lookup(obj.id) is None:
            if obj.id in self.zones:
                self.resolution.bind(e, "zone", obj.id)
                zone = self.zones[obj.id]
                self._keys(zone, args, e.span)
                return t.zone_of(self._card_type(zone.card_type))
            if obj.id in self.vars and self.vars[obj.id].keys:
                self.resolution.bind(e, "keyed_var", obj.id)
                self._keys(self.vars[obj.id], args, e.span)
                return self.var_types[obj.id]
            # a variable without keys is indexed as the value it holds: `xs[0]` of a list
        ot = self.expr(obj)
        if len(args) != 1:
            self.error(e.span, "a list takes one index")
            return t.ANY
        self.expect(self.expr(args[0]), t.INT, args[0].span, "a list index")
        elem = t.element_of(ot)
        if elem is None or ot.kind == "zone":
            if ot.kind == "zone":
                return ot.element or t.ANY
            self.error(obj.span, f"only lists can be indexed, not {ot}")
            return t.ANY
        return elem

    def _call(self, e: s.Call, name: str, args: tuple[s.Expr, ...]) -> t.T:
        if name in self.fns:
            self.resolution.bind(e, "fn", name)
            fn = self.fns[name]
            self._call_args(name, fn.params, args, e.span)
            return self.fn_types.get(name, t.ANY)
        if name in self.procs:
            self.error(
                e.span,
                f"procedure '{name}' changes the game and cannot be used inside an expression",
                hint=f"call it as a statement: 'let x = {name}(...)'",
            )
            return t.ANY
        builtin = BUILTINS.get(name)
        if builtin is None:
            known = [*self.fns, *BUILTINS]
            self.error(e.span, f"unknown function '{name}'{did_you_mean(name, known)}")
            for a in args:
                self.expr(a)
            return t.ANY
        if not builtin.min_args <= len(args) <= builtin.max_args:
            self.error(e.span, f"{name} takes {arity_text(builtin)} argument(s), not {len(args)}")
            return t.ANY
        self.resolution.bind(e, "builtin_fn", name)
        return builtin.type_rule(self, e, [self.expr(a) for a in args])
