"""Check text written against a checked program from outside it (a scenario's `expect`, `set`,
`move` and `next draws` lines): the same expression and statement checks as the rulebook's own
bodies, with the program's declarations in scope, so a keyed name without its key, an undeclared
variable or zone, a type error, is a located error before anything runs.

The names it resolves are noted in a resolution of its own, not the program's (a program is
shared by every game of its rulebook): the runtime resolves such text by name, with
`unchecked_binding` below, in the checker's order.
"""

from __future__ import annotations

from ..errors import Diagnostic
from ..language import types as t
from ..language.builtins import BUILTIN_NAMES, BUILTINS
from ..syntax import ast as s
from .program import SEAT, Program
from .resolve import Binding, Resolution
from .scope import Scope
from .statements import StatementChecker


class FragmentChecker(StatementChecker):
    """Check expressions and simple statements against `program`, with `names` bound as locals."""

    def __init__(self, program: Program, names: dict[str, t.T]):
        self.files = []
        self.sources = program.sources
        self.diagnostics = []
        self.globals = {name: ("card type", card.decl.span) for name, card in program.cards.items()}
        self.enums = program.enums
        # Every value of every enumeration by its name (the program keeps only the unambiguous ones).
        self.members = {}
        for values in program.enums.values():
            for v in values:
                self.members.setdefault(v.name, []).append(v)
        self.cards = program.cards
        self.zones = program.zones
        self.vars = program.vars
        self.var_types = program.var_types
        self.consts = program.consts
        self.const_types = program.const_types
        self.fns = program.fns
        self.fn_types = program.fn_types
        self.procs = program.procs
        self.abilities = program.abilities
        self.rules = program.rules
        self.invariants = program.invariants
        self.setup = program.setup
        self.play = program.play
        self.game = None
        self.resolution = Resolution()
        self.scope = Scope("setup", self.resolution)
        self.names = names

    def _name(self, e: s.Name, name: str) -> t.T:
        """A seat the game does not have (`P3` of two players) says which seats there are."""
        if SEAT.fullmatch(name) and self.scope.lookup(name) is None and name not in self.members:
            seats = [n for n in self.names if SEAT.fullmatch(n)]
            if seats:
                self.error(e.span, f"unknown seat '{name}'", hint=f"the seats of this game are {', '.join(seats)}")
                return t.PLAYER
        return super()._name(e, name)

    def _fresh_scope(self) -> None:
        self.scope = Scope("setup", self.resolution)
        for name, type_ in self.names.items():
            self.scope.bind(name, type_)

    def condition(self, e: s.Expr) -> None:
        """A condition (an `expect` line): a bool."""
        self._fresh_scope()
        self.expect(self.expr(e), t.BOOL, e.span, "an 'expect' line's condition")

    def zone(self, e: s.Expr) -> None:
        """An expression that names a zone."""
        self._fresh_scope()
        self._zone(e)

    def statement(self, st: s.Stmt) -> None:
        """One simple statement (a `set` or `move` line)."""
        self._fresh_scope()
        self.stmt(st)

    @property
    def problems(self) -> list[Diagnostic]:
        return sorted(self.diagnostics, key=lambda d: (d.span.file, d.span.line, d.span.column))


def unchecked_binding(program: Program, e: s.Expr) -> Binding | None:
    """The binding of a node the checker never resolved (an expression made outside the checked program: a
    scenario's `expect`, a test's), found by name in the checker's order (check/expressions.py `_name`,
    `_index`, `_call`): the one place the runtime looks a name up. Locals come first, from the caller's env."""
    match e:
        case s.Name(id=name):
            if name in program.consts:
                return Binding("const", name)
            if name in BUILTIN_NAMES:
                return Binding("builtin", name)
            if name in program.members:
                return Binding("member", name)
            if name in program.enums:
                return Binding("enum", name)
            if name in program.zones:
                return Binding("zone", name)
            if name in program.vars:
                return Binding("var", name)
        case s.FieldAccess(obj=s.Name(id=name)) if name in program.enums:
            return Binding("enum_member", name)
        case s.Index(obj=s.Name(id=name)):
            if name in program.zones:
                return Binding("zone", name)
            if name in program.vars and program.vars[name].keys:
                return Binding("keyed_var", name)
        case s.Call(name=name):
            if name in program.fns:
                return Binding("fn", name)
            if name in BUILTINS:
                return Binding("builtin_fn", name)
    return None
