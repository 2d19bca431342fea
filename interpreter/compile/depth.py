"""How deep a value an expression can give, proved from the checked text: the generated code skips the
depth check (`Game.nested`) of a local name, a parameter or a `return` where the proof says the value is
no deeper than the state may hold.

A value's depth: 0 for a number, a text, a card, ...; 1 + its elements' deepest for a list or a record;
a zone, as a local name holds it, is the list of its cards (1). What the proof trusts, and why:

- the text's own construction: a literal, a comparison or a `len` is no list at all, `[a, b]` is one
  deeper than its deepest element, `xs where c` no deeper than `xs`, `xs[i]` one less than `xs`;
- a local name whose body binds it only by `let`, a procedure's parameter or `choose one`
  (`Resolution.held`): each of those refuses a value deeper than the state's limit, so what it holds
  is no deeper than that (`HELD`) whatever its declared type said;
- a variable's value: a `set` refuses a value deeper than the state's limit, and its initial value
  is bounded as written;
- a function's body, with its parameters as deep as the call's arguments.

The checker's types are not trusted for depth: `none` and `any` stand for any type, an assignment
keeps the name's type whatever it assigns, and a variable's or a card field's initial value is not
checked; so a name typed `list of int` may hold lists. A bound is an int: an exact depth up to `_EXACT`,
or `HELD + k`, no deeper than the state's limit plus k; None when nothing is proved.
"""

from __future__ import annotations

import weakref
from typing import Any

from ..check.program import Program
from ..language.builtins import BUILTINS, result_shape
from ..syntax import ast as s

HELD = 1 << 20  # stands for the state's depth limit (runtime VALUE_DEPTH, far above _EXACT)
_EXACT = 16  # exact depths proved up to here (a deeper literal is proved nothing)
_MARGIN = 16  # HELD + k for k up to here


def _up(b: int | None) -> int | None:
    """A list or record holding a value of bound b."""
    if b is None or b == _EXACT or b == HELD + _MARGIN:
        return None
    return b + 1


def _down(b: int | None) -> int | None:
    """An element of a list of bound b (a zone's card: 0)."""
    if b is None:
        return None
    return b - 1 if b > HELD or 0 < b <= _EXACT else b


def _max(*bs: int | None) -> int | None:
    return None if None in bs else max(b for b in bs if b is not None)


def depths(program: Program) -> Depths:
    """The program's `Depths`, made once (kept while its resolution lives)."""
    made = _MADE.get(program.resolution)
    if made is None or made.program is not program:
        made = _MADE[program.resolution] = Depths(program)
    return made


class Depths:
    """The bounds of a program's expressions (`of`), each function's body bounded once for each
    bounds of its arguments."""

    def __init__(self, program: Program):
        self.program = program
        self.resolution = program.resolution
        self._fns: dict[tuple[str, tuple[int | None, ...]], int | None] = {}
        self._consts: dict[str, int | None] = {}
        self._vars: dict[str, int | None] = {}

    def of(self, e: Any, names: dict[str, int | None] | None = None) -> int | None:
        """A bound on the depth of e's value; `names` the bounds of the names a query, a
        comprehension or a function's parameters bind around it."""
        return self._of(e, names or {})

    def within(self, e: Any) -> bool:
        """Whether e's value is proved no deeper than a local name may hold (`Game.nested` at depth 1)."""
        b = self.of(e)
        return b is not None and (b <= _EXACT or b == HELD)

    def _shadowed(self, name: str) -> bool:
        return name in self.resolution.locals  # a local of the same name may hide the global (resolve.py)

    def _of(self, e: Any, names: dict[str, int | None]) -> int | None:
        match e:
            case s.IntLit() | s.StrLit() | s.BoolLit() | s.NoneLit() | s.Template():
                return 0
            case s.Compare() | s.In() | s.Not() | s.And() | s.Or() | s.Neg():
                return 0
            case s.RangeOp():
                return 1
            case s.Name(name):
                return self._name(e, name, names)
            case s.ListLit(items):
                return _up(_max(0, *(self._of(i, names) for i in items)))
            case s.RecordLit(inits):
                return _up(_max(0, *(self._of(i.value, names) for i in inits)))
            case s.CondExpr(_, then, otherwise):
                return _max(self._of(then, names), self._of(otherwise, names))
            case s.Binary(_, left, right):  # numbers, texts, or a list of both sides' elements
                return _max(self._of(left, names), self._of(right, names))
            case s.Index(obj, args):
                binding = self.resolution.of(e)
                if binding is not None and binding.kind == "zone":
                    return None if self._shadowed(binding.name) else 1
                if binding is not None:  # a keyed variable
                    return None if self._shadowed(binding.name) else self._var(binding.name)
                return _down(self._of(obj, names)) if len(args) == 1 else None
            case s.FieldAccess():
                binding = self.resolution.of(e)
                if binding is not None and binding.kind == "enum_member" and not self._shadowed(binding.name):
                    return 0
                return None  # a card's field (its initial value is not checked) or a record's
            case s.Query(op, source, key):
                b = _max(self._of(source, names), 1)
                if op == "map":
                    return _up(_max(0, self._of(key, {**names, "it": _down(b)})))
                return _up(b) if op == "group" else b
            case s.Comprehension(element, var, source, _, flat):
                inner = self._of(element, {**names, var: _down(_max(self._of(source, names), 1))})
                return _max(inner, 1) if flat else _up(_max(0, inner))
            case s.Call(name, args):
                return self._call(e, name, args, names)
            case _:
                return None

    def _name(self, e: s.Name, name: str, names: dict[str, int | None]) -> int | None:
        binding = self.resolution.of(e)
        if binding is None:
            return None
        if binding.kind == "local":
            if name in names:
                return names[name]
            return HELD if self.resolution.held(e) else None
        if self._shadowed(name):
            return None
        match binding.kind:
            case "zone" | "enum":
                return 1
            case "member":
                return 0
            case "builtin":
                return 1 if name == "players" else 0
            case "const":
                if name not in self._consts:
                    self._consts[name] = None  # (while it is worked out: a cycle proves nothing)
                    self._consts[name] = self._of(self.program.consts[name].value, {})
                return self._consts[name]
            case "var":
                return self._var(name)
            case _:
                return None

    def _var(self, name: str) -> int | None:
        """A variable's value: one a `set` gave it, checked (`store.set_var`), or its initial value,
        which is not (evaluated as it is written, with no local names)."""
        if name not in self._vars:
            self._vars[name] = None  # (while it is worked out: a cycle proves nothing)
            self._vars[name] = _max(HELD, self._of(self.program.vars[name].init, {}))
        return self._vars[name]

    def _call(self, e: s.Call, name: str, args: tuple[Any, ...], names: dict[str, int | None]) -> int | None:
        binding = self.resolution.of(e)
        if binding is None:
            return None
        bounds = tuple(self._of(a, names) for a in args)
        if binding.kind == "fn":
            fn = self.program.fns[name]
            key = (name, bounds)
            if key not in self._fns:
                self._fns[key] = None  # (while it is worked out: a recursion proves nothing)
                params = {p.name: b for p, b in zip(fn.params, bounds, strict=True)}
                self._fns[key] = self._of(fn.body, params)
            return self._fns[key]
        builtin = BUILTINS.get(name)
        if binding.kind != "builtin_fn" or not bounds or builtin is None:
            return None
        shape = result_shape(builtin)
        if shape == "scalar":
            return 0
        if shape == "cards":  # (a zone, as a local holds it: its cards)
            return 1
        first = _max(bounds[0], 1)  # (a zone read as its cards)
        if shape == "element":
            return _down(first) if len(bounds) == 1 else _max(*bounds)
        if shape == "same":
            return first
        if shape == "flatten":
            return _max(_down(first), 1)
        return None


_MADE: weakref.WeakKeyDictionary[Any, Depths] = weakref.WeakKeyDictionary()
