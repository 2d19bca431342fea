"""Which functions depend on what a card is, and on which cards: for the worlds a search deals.

A search's world (runtime/determinize.py) deals anew the identities of the cards its player
cannot see and leaves every card id where it was. A function's value stays right in such a world
unless it depends on what a dealt card is: it reads a field or the label of such a card (a text
with placeholders may show one). Only the cards of a `public` zone that is not `shuffled` are
never dealt: everyone sees them where they are (a public shuffled zone's cards move whole when its
order is drawn anew, and every other zone hides its cards from someone).

So each expression is given the origin of the cards its value may hold (`Origin`): none, some of
the function's parameters, or anywhere else (a zone that hides its cards, a variable, a card's
field that may hold a card). A field read from a value reads the contents of the cards of its
origin; a function's summary (`Summary`) says whose contents it reads and where the cards of its
value come from, in terms of its parameters, so that a call is judged by its arguments' origins:
with `zone row: Chip public`, `strength(first(row))` reads the contents of a card in sight only,
where `strength(c)` alone reads its parameter's.

A change of a card's field (`set c.f = ...`) is simpler: any card may be the one, so a function's
values stay right through it only if the function reads no field or label of any card at all
(`field_readers`), as a function that only asks which places hold a card, or how far apart two
places are, does.
"""

from __future__ import annotations

from typing import Any

import attrs

from ..syntax import ast as s
from .program import Program, may_hold_card, named_within, reached


@attrs.frozen
class Origin:
    """Where the cards of a value may come from."""

    anywhere: bool = False  # from a place a world may deal anew, or not known
    params: frozenset[int] = frozenset()  # from these parameters of the function being read

    def __or__(self, other: Origin) -> Origin:
        return Origin(self.anywhere or other.anywhere, self.params | other.params)

    def through(self, args: list[Origin]) -> Origin:
        """This origin, of a function's parameters, at a call with arguments of these origins."""
        out = Origin(self.anywhere)
        for i in self.params:
            out = out | args[i]
        return out


NOWHERE = Origin()
ANYWHERE = Origin(anywhere=True)
NUMBERS_AND_TRUTHS = (s.Neg, s.Not, s.Compare, s.In, s.And, s.Or, s.RangeOp)


@attrs.frozen
class Summary:
    """What a function depends on: the origin of the cards whose contents it reads, and of the
    cards its value may hold."""

    reads: Origin
    gives: Origin


def content_readers(program: Program) -> frozenset[str]:
    """The functions whose value may depend on what a card a world deals anew is (`Summary.reads`
    not `NOWHERE`): their values do not stay right in a world of the same game."""
    summaries = Summaries(program)
    return frozenset(name for name in program.fns if summaries.fn(name).reads != NOWHERE)


def field_readers(program: Program) -> frozenset[str]:
    """The functions that may read a field or the label of some card, wherever the card is (themselves,
    or through the functions, constants and keyed variables' initial values they read): the others'
    values stay right when a card's field changes (`Game.set_field`)."""
    direct: set[str] = set()
    callers: dict[str, set[str]] = {}  # function -> the functions that call it
    for name, fn in program.fns.items():
        reads, called = _reads_fields(program, fn.body)
        if reads:
            direct.add(name)
        for callee in called:
            callers.setdefault(callee, set()).add(name)
    found, todo = set(direct), list(direct)
    while todo:  # a caller of a reader reads what it reads
        for caller in callers.get(todo.pop(), ()):
            if caller not in found:
                found.add(caller)
                todo.append(caller)
    return frozenset(found)


def _reads_fields(program: Program, e: Any) -> tuple[bool, set[str]]:
    """Whether an expression reads a card's field or label itself (or through the constants and keyed
    variables' initial values it reads), and the functions it calls."""
    called: set[str] = set()
    for node in reached(program, e):
        cls = node.__class__
        binding = program.resolution.of(node) if cls is s.FieldAccess or cls is s.Call else None
        kind = binding.kind if binding is not None else None
        if cls is s.FieldAccess and kind != "enum_member":
            return True, called  # (a record's field too: what the value is is not known here)
        if cls is s.Template and any(not isinstance(part, str) for part in node.parts):
            return True, called  # (a card's placeholder shows its label)
        if cls is s.Call and node.name == "label" and kind != "fn":
            return True, called
        if kind == "fn":
            called.add(node.name)
    return False, called


class Summaries:
    """Each function's and constant's summary: the least that holds for all of them at once, found
    by walking every body again until none changes (a recursion, as a map's reach computed by a
    function that calls itself, starts from "reads nothing" and grows to what it does read)."""

    def __init__(self, program: Program):
        self.program = program
        # A card's field that may hold a card: what a field read gives may come from anywhere.
        self.fields_hold_cards = any(may_hold_card(ft) for card in program.cards.values() for _, ft in card.fields)
        bodies: dict[tuple[str, str], tuple[Any, dict[str, Origin]]] = {}
        plain = {"Player", "int", "bool", "text", *program.enums}  # (a record may hold a card)
        for name, fn in program.fns.items():
            env = {
                p.name: Origin(params=frozenset({i})) if not named_within(p.type, plain) else NOWHERE
                for i, p in enumerate(fn.params)
            }
            bodies["fn", name] = (fn.body, env)
        for name, const in program.consts.items():
            bodies["const", name] = (const.value, {})
        self.made = dict.fromkeys(bodies, Summary(NOWHERE, NOWHERE))
        changed = True
        while changed:  # (each pass only adds to a summary, and a summary has finitely many values)
            changed = False
            for key, (body, env) in bodies.items():
                walk = _Walk(self)
                gives = walk.origin(body, env)
                summary = Summary(walk.reads, gives)
                if summary != self.made[key]:
                    self.made[key], changed = summary, True

    def fn(self, name: str) -> Summary:
        return self.made["fn", name]

    def const(self, name: str) -> Summary:
        return self.made["const", name]


class _Walk:
    """The origins of one body's expressions, and the contents it reads (`reads`)."""

    def __init__(self, summaries: Summaries):
        self.summaries = summaries
        self.program = summaries.program
        self.reads = NOWHERE

    def read(self, origin: Origin) -> None:
        self.reads = self.reads | origin

    def origin(self, e: Any, env: dict[str, Origin]) -> Origin:
        if isinstance(e, s.IntLit | s.StrLit | s.BoolLit | s.NoneLit):
            return NOWHERE
        if isinstance(e, s.Name):
            return self._name(e.id, env)
        if isinstance(e, s.Template):
            for part in e.parts:
                if not isinstance(part, str):
                    self.read(self.origin(part, env))  # (a card's placeholder shows its label)
            return NOWHERE
        if isinstance(e, s.FieldAccess):
            of = self.origin(e.obj, env)
            self.read(of)
            if self.summaries.fields_hold_cards:  # (the field may hold a card from anywhere)
                return of | ANYWHERE
            return of
        if isinstance(e, s.Index):
            for key in e.args:
                self.origin(key, env)
            return self.origin(e.obj, env)
        if isinstance(e, s.Call):
            args = [self.origin(a, env) for a in e.args]
            if e.name in self.program.fns:
                summary = self.summaries.fn(e.name)
                self.read(summary.reads.through(args))
                return summary.gives.through(args)
            if e.name == "label":
                for given in args:
                    self.read(given)
                return NOWHERE
            out = NOWHERE  # a built-in: its value holds at most the cards of its arguments
            for given in args:
                out = out | given
            return out
        if isinstance(e, s.ListLit):
            out = NOWHERE
            for item in e.items:
                out = out | self.origin(item, env)
            return out
        if isinstance(e, s.RecordLit):
            out = NOWHERE
            for init in e.inits:
                out = out | self.origin(init.value, env)
            return out
        if isinstance(e, s.Comprehension):
            inner = {**env, e.var: self.origin(e.source, env)}
            if e.condition is not None:
                self.origin(e.condition, inner)
            return self.origin(e.element, inner)
        if isinstance(e, s.Query):
            elements = self.origin(e.source, env)
            by = self.origin(e.key, {**env, "it": elements})
            if e.op == "map":
                return by
            return elements | by if e.op == "group" else elements  # (a group holds its key)
        if isinstance(e, s.CondExpr):
            self.origin(e.condition, env)
            return self.origin(e.then, env) | self.origin(e.otherwise, env)
        if isinstance(e, s.Binary):  # (a list's concatenation holds both lists' cards)
            return self.origin(e.left, env) | self.origin(e.right, env)
        if isinstance(e, NUMBERS_AND_TRUTHS):  # their operands are read; their value holds no card
            for f in attrs.fields(type(e)):
                if f.name != "span" and f.name != "op" and f.name != "negated":
                    self.origin(getattr(e, f.name), env)
            return NOWHERE
        self.read(ANYWHERE)  # an expression this walk does not know: the worst
        return ANYWHERE

    def _name(self, name: str, env: dict[str, Origin]) -> Origin:
        if name in env:  # a local hides a global of the same name
            return env[name]
        program = self.program
        if name in program.zones:
            zone = program.zones[name]
            return NOWHERE if zone.visibility == "public" and not zone.shuffled else ANYWHERE
        if name in program.vars:
            return ANYWHERE if may_hold_card(program.var_types[name]) else NOWHERE
        if name in program.consts:
            summary = self.summaries.const(name)
            self.read(summary.reads)
            return summary.gives
        return NOWHERE  # an enumeration's value, a built-in name (`players`, ...)
