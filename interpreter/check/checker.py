"""Check a parsed rulebook: names resolve, types agree, arities match.

The checker walks every declaration once, collects *all* problems as located diagnostics
(never only the first), and builds the `Program` the runtime executes.
"""

from __future__ import annotations

import keyword
import re
from collections.abc import Iterable, Iterator
from typing import Any, Protocol, assert_never

import attrs

from ..errors import Diagnostic, RulebookError, Span, did_you_mean
from ..language import types as t
from ..language.builtins import BUILTIN_NAMES, BUILTINS, arity_text
from ..language.values import EnumValue
from ..syntax import ast as s
from .resolve import Resolution

MAX_PLAYERS = 1000  # seats a game may declare: each seat has its own zones and variables
MAX_FIELDS = 200  # fields of one card type: each is an attribute of every card
MAX_CARD_TYPES = 1000  # card types of one rulebook: each is a Python class, made in about a millisecond
_SEAT = re.compile(r"P[1-9][0-9]*")  # how a seat is written; an enumeration value so named is qualified in keys
BASIC_TYPES = {
    "int": t.INT,
    "bool": t.BOOL,
    "str": t.STR,
    "Player": t.PLAYER,
    "any": t.ANY,
    "record": t.RECORD,
    "card": t.ANY_CARD,
}


@attrs.frozen
class CardType:
    """A declared card type: its fields in order, its label template and its attrs class."""

    name: str
    fields: tuple[tuple[str, t.T], ...]
    label: str | None
    decl: s.CardDecl

    def field_type(self, name: str) -> t.T | None:
        for field, type_ in self.fields:
            if field == name:
                return type_
        return None


@attrs.define
class Program:
    """A checked rulebook: the declarations by kind, ready to run."""

    name: str
    min_players: int
    max_players: int
    enums: dict[str, tuple[EnumValue, ...]]
    members: dict[str, EnumValue]
    cards: dict[str, CardType]
    zones: dict[str, s.ZoneDecl]
    vars: dict[str, s.VarDecl]
    var_types: dict[str, t.T]
    consts: dict[str, s.ConstDecl]
    fns: dict[str, s.FnDecl]
    procs: dict[str, s.ProcDecl]
    abilities: dict[str, s.AbilityDecl]
    rules: list[s.RuleDecl]
    rule_reads: dict[str, frozenset[str]]
    setup: list[s.Block]
    play: s.Block | None
    sources: dict[str, str]
    files: list[str]
    invariants: list[s.InvariantDecl] = attrs.Factory(list)
    resolution: Resolution = attrs.Factory(Resolution)  # every name's binding (resolve.py)

    def enum_value(self, enum: str, name: str) -> EnumValue:
        for value in self.enums[enum]:
            if value.name == name:
                return value
        raise KeyError(f"{enum}.{name}")


class _Scope:
    """Local names of a body being checked: a chain of dicts, innermost last."""

    def __init__(self, kind: str, resolution: Resolution | None = None):
        self.kind = kind  # proc | fn | ability | rule | setup | play
        self.frames: list[dict[str, t.T]] = [{}]
        self.resolution = resolution  # where the names it binds are noted (resolve.py)

    def lookup(self, name: str) -> t.T | None:
        for frame in reversed(self.frames):
            if name in frame:
                return frame[name]
        return None

    def bind(self, name: str, type_: t.T) -> None:
        self.frames[-1][name] = type_
        if self.resolution is not None:
            self.resolution.local(name)

    def names(self) -> Iterator[str]:
        for frame in self.frames:
            yield from frame

    def push(self) -> None:
        self.frames.append({})

    def pop(self) -> None:
        self.frames.pop()


class Checker:
    """Check a list of parsed files (the rulebook and its includes) and build a Program."""

    def __init__(self, files: list[tuple[str, s.Rulebook]], sources: dict[str, str]):
        self.files = files
        self.sources = sources
        self.diagnostics: list[Diagnostic] = []
        self.globals: dict[str, tuple[str, Span]] = {}
        self.enums: dict[str, tuple[EnumValue, ...]] = {}
        self.members: dict[str, list[EnumValue]] = {}
        self.cards: dict[str, CardType] = {}
        self.zones: dict[str, s.ZoneDecl] = {}
        self.vars: dict[str, s.VarDecl] = {}
        self.var_types: dict[str, t.T] = {}
        self.consts: dict[str, s.ConstDecl] = {}
        self.const_types: dict[str, t.T] = {}
        self.fns: dict[str, s.FnDecl] = {}
        self.fn_types: dict[str, t.T] = {}
        self.procs: dict[str, s.ProcDecl] = {}
        self.abilities: dict[str, s.AbilityDecl] = {}
        self.rules: list[s.RuleDecl] = []
        self.invariants: list[s.InvariantDecl] = []
        self.setup: list[s.Block] = []
        self.play: s.Block | None = None
        self.game: s.GameDecl | None = None
        self.resolution = Resolution()
        self.scope = _Scope("setup", self.resolution)

    # ------------------------------------------------------------ reporting

    def _field_name(self, card: str, f: s.FieldDecl, before: list[tuple[str, t.T]]) -> None:
        """A card's fields become attributes of a Python object: a name Python reserves is refused."""
        if any(name == f.name for name, _ in before):
            self.error(f.span, f"card type {card} has two fields named '{f.name}'")
        elif f.name in ("id", "self") or f.name.startswith("_") or keyword.iskeyword(f.name):
            self.error(
                f.span,
                f"a card field may not be named '{f.name}'",
                hint="'id' and 'self' are taken, and a field name may not start with _ nor be a word "
                "of Python (class, lambda, None, …)",
            )

    def error(self, span: Span, message: str, hint: str | None = None) -> None:
        self.diagnostics.append(Diagnostic(span, message, hint=hint))

    # ------------------------------------------------------------ entry

    def check(self) -> Program:
        """Check everything; raise RulebookError listing every problem, else return the Program."""
        decls = [d for _, rb in self.files for d in rb.decls]
        self._declare(decls)
        for decl in decls:
            self._check_decl(decl)
        if self.game is None:
            first = self.files[0][1].span if self.files else Span("<string>", 1, 1)
            self.error(Span(first.file, 1, 1), "the rulebook declares no game (write e.g. 'game Name players 2..4')")
        if self.play is None:
            self.error(
                Span(self.files[0][0] if self.files else "<string>", 1, 1),
                "the rulebook has no 'play { ... }' block: nothing would happen",
            )
        if self.diagnostics:
            self.diagnostics.sort(key=lambda d: (d.span.file, d.span.line, d.span.column))
            raise RulebookError(self.diagnostics, self.sources)
        assert self.game is not None
        return Program(
            name=self.game.name,
            min_players=self.game.min_players,
            max_players=self.game.max_players,
            enums=self.enums,
            members={k: v[0] for k, v in self.members.items() if len(v) == 1},
            cards=self.cards,
            zones=self.zones,
            vars=self.vars,
            var_types=self.var_types,
            consts=self.consts,
            fns=self.fns,
            procs=self.procs,
            abilities=self.abilities,
            rules=self.rules,
            rule_reads={r.name: reads_of(self, (r.when, *(b.source for b in r.bindings))) for r in self.rules},
            invariants=self.invariants,
            setup=self.setup,
            play=self.play,
            sources=self.sources,
            files=[f for f, _ in self.files],
            resolution=self._resolution(),
        )

    def _resolution(self) -> Resolution:
        """The names' bindings, with the key types of every keyed zone and variable."""
        keyed: list[tuple[str, s.ZoneDecl | s.VarDecl]] = [*self.zones.items(), *self.vars.items()]
        for name, decl in keyed:
            if decl.keys:
                self.resolution.keys[name] = tuple(self._type(k) for k in decl.keys)
        return self.resolution

    # ------------------------------------------------------------ pass 1: declare names

    def _claim(self, name: str, kind: str, span: Span) -> bool:
        if name in self.globals:
            other_kind, other = self.globals[name]
            self.error(span, f"'{name}' is already declared as a {other_kind} at {other}")
            return False
        if name in BASIC_TYPES or name in BUILTIN_NAMES or name in BUILTINS:
            self.error(span, f"'{name}' is a built-in name and cannot be declared again")
            return False
        self.globals[name] = (kind, span)
        return True

    def _declare(self, decls: list[s.Decl]) -> None:
        card_types = 0
        for d in decls:
            match d:
                case s.EnumDecl(name, members, extends=True):
                    self._extend_enum(d)
                case s.EnumDecl(name, members):
                    if self._claim(name, "enumeration", d.span):
                        values = tuple(EnumValue(name, i, m) for i, m in enumerate(members))
                        self.enums[name] = values
                        seen: set[str] = set()
                        for v in values:
                            if v.name in seen:
                                self.error(d.span, f"enumeration {name} lists '{v.name}' twice")
                            seen.add(v.name)
                            self.members.setdefault(v.name, []).append(v)
                case s.CardDecl(name):
                    if self._claim(name, "card type", d.span):
                        card_types += 1
                        if card_types == MAX_CARD_TYPES + 1:
                            self.error(
                                d.span, f"more than {MAX_CARD_TYPES} card types is more than a rulebook may declare"
                            )
                case s.ZoneDecl(name):
                    if self._claim(name, "zone", d.span):
                        self.zones[name] = d
                case s.VarDecl(name):
                    if self._claim(name, "variable", d.span):
                        self.vars[name] = d
                case s.ConstDecl(name):
                    if self._claim(name, "constant", d.span):
                        self.consts[name] = d
                case s.FnDecl(name, override=True):
                    self._override(d, self.fns, "function")
                case s.FnDecl(name):
                    if self._claim(name, "function", d.span):
                        self.fns[name] = d
                case s.ProcDecl(name, override=True):
                    self._override(d, self.procs, "procedure")
                case s.ProcDecl(name):
                    if self._claim(name, "procedure", d.span):
                        self.procs[name] = d
                case s.AbilityDecl(name):
                    if self._claim(name, "ability", d.span):
                        self.abilities[name] = d
                case s.GameDecl():
                    if self.game is not None:
                        self.error(d.span, f"a second game declaration (the first is at {self.game.span})")
                    else:
                        self.game = d
                        if not 1 <= d.min_players <= d.max_players:
                            self.error(d.span, f"players {d.min_players}..{d.max_players} is not a range of seats")
                        elif d.max_players > MAX_PLAYERS:
                            self.error(
                                d.span, f"a game of more than {MAX_PLAYERS} players is more than a game may seat"
                            )
                case s.SetupDecl() | s.PlayDecl() | s.RuleDecl() | s.IncludeDecl() | s.InvariantDecl():
                    pass
                case _:
                    assert_never(d)
        for name, same_name in self.members.items():
            if name in self.globals:
                kind, span = self.globals[name]
                self.error(span, f"'{name}' is both a {kind} and a value of enumeration {same_name[0].enum}")
        self._qualify_keys()
        # Card types after enums, since fields name enums and other card types.
        for d in decls:
            if isinstance(d, s.CardDecl) and self.globals.get(d.name, ("", None))[1] == d.span:
                fields: list[tuple[str, t.T]] = []
                if len(d.fields) > MAX_FIELDS:
                    self.error(
                        d.span,
                        f"card type {d.name} has {len(d.fields)} fields, more than a card may have ({MAX_FIELDS})",
                    )
                for f in d.fields[:MAX_FIELDS]:
                    self._field_name(d.name, f, fields)
                    fields.append((f.name, self._type(f.type)))
                self.cards[d.name] = CardType(d.name, tuple(fields), d.label, d)
                if d.label:
                    self._check_template(d.label, d.span, {f for f, _ in fields})
        for name, decl in self.vars.items():
            self.var_types[name] = self._type(decl.type)
        for name in self.fns:
            self.fn_types[name] = t.ANY  # refined when its body is checked

    def _qualify_keys(self) -> None:
        """Write an enumeration value as `Enum.name` in zone and variable keys where its name alone could
        be read as another value: a value of another enumeration, a seat (`P1`), or `true`/`false`/`none`."""
        for enum, values in self.enums.items():
            self.enums[enum] = tuple(
                attrs.evolve(v, key=f"{enum}.{v.name}")
                if len(self.members[v.name]) > 1 or v.name in ("true", "false", "none") or _SEAT.fullmatch(v.name)
                else v
                for v in values
            )
        self.members = {}
        for values in self.enums.values():
            for v in values:
                self.members.setdefault(v.name, []).append(v)

    def _extend_enum(self, d: s.EnumDecl) -> None:
        """`extend enum E { ... }`: new values after E's own, in E's cyclic order."""
        base = self.enums.get(d.name)
        if base is None:
            self.error(
                d.span,
                f"no enumeration '{d.name}' to extend{did_you_mean(d.name, self.enums)}",
                hint="an extension extends an enumeration that an included rulebook declares",
            )
            return
        known = {v.name for v in base}
        names = []
        for member in d.members:
            if member in known:
                self.error(d.span, f"enumeration {d.name} already has '{member}'")
                continue
            known.add(member)
            names.append(member)
        added = [EnumValue(d.name, len(base) + k, name) for k, name in enumerate(names)]
        self.enums[d.name] = base + tuple(added)
        for value in added:
            self.members.setdefault(value.name, []).append(value)

    def _override(self, d: s.ProcDecl | s.FnDecl, registry: dict[str, Any], kind: str) -> None:
        """`override proc|fn name(...)`: replace an included one that takes the same parameters."""
        base = registry.get(d.name)
        if base is None:
            self.error(
                d.span,
                f"no {kind} '{d.name}' to override{did_you_mean(d.name, registry)}",
                hint=f"an extension overrides a {kind} that an included rulebook declares",
            )
            return

        def shape(params: tuple[s.Param, ...]) -> str:
            return ", ".join(f"{p.name}: {_type_text(p.type)}" for p in params)

        if shape(base.params) != shape(d.params):
            self.error(
                d.span, f"override of {d.name} must take the same parameters as at {base.span}: ({shape(base.params)})"
            )
            return
        registry[d.name] = d

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
        import re

        allowed = set(names)
        for m in re.finditer(r"\{([A-Za-z_][A-Za-z0-9_]*)(?:\.[A-Za-z_][A-Za-z0-9_]*)?\}", text):
            if m.group(1) not in allowed:
                self.error(span, f"unknown name '{m.group(1)}' in text \"{text}\"{did_you_mean(m.group(1), allowed)}")

    # ------------------------------------------------------------ pass 2: bodies

    def _check_decl(self, d: s.Decl) -> None:
        registries: dict[type, dict[str, Any]] = {
            s.ZoneDecl: self.zones,
            s.VarDecl: self.vars,
            s.ConstDecl: self.consts,
            s.FnDecl: self.fns,
            s.ProcDecl: self.procs,
            s.AbilityDecl: self.abilities,
        }
        registry = registries.get(type(d))
        if registry is not None and registry.get(getattr(d, "name", "")) is not d:
            return  # a duplicate or a clash with a built-in name, already reported
        match d:
            case s.GameDecl() | s.IncludeDecl() | s.EnumDecl() | s.CardDecl():
                pass
            case s.ZoneDecl():
                for k in d.keys:
                    self._check_key_type(k)
                if d.card_type not in self.cards:
                    self.error(d.span, f"unknown card type '{d.card_type}'{did_you_mean(d.card_type, self.cards)}")
                if d.visibility == "owner" and not any(
                    isinstance(k, s.NamedType) and k.name == "Player" for k in d.keys
                ):
                    self.error(d.span, f"zone {d.name} is 'owner' visible but has no Player key to say who owns it")
            case s.VarDecl():
                for k in d.keys:
                    self._check_key_type(k)
                self.scope = _Scope("var", self.resolution)
                have = self.expr(d.init)
                self.expect(have, self.var_types[d.name], d.init.span, f"the initial value of {d.name}")
            case s.ConstDecl():
                self.scope = _Scope("const", self.resolution)
                self.const_types[d.name] = self.expr(d.value)
            case s.FnDecl():
                self.scope = _Scope("fn", self.resolution)
                for p in d.params:
                    self.scope.bind(p.name, self._type(p.type))
                self.fn_types[d.name] = self.expr(d.body)
            case s.ProcDecl():
                self.scope = _Scope("proc", self.resolution)
                for p in d.params:
                    self.scope.bind(p.name, self._type(p.type))
                self.block(d.body)
            case s.AbilityDecl():
                levels: set[int] = set()
                for tier in d.tiers:
                    if tier.level in levels:
                        self.error(tier.span, f"ability {d.name} has two tiers {tier.level}")
                    levels.add(tier.level)
                    self.scope = _Scope("ability", self.resolution)
                    for p in d.params:
                        self.scope.bind(p.name, self._type(p.type))
                    if tier.when is not None:
                        self.expect(self.expr(tier.when), t.BOOL, tier.when.span, "a tier's condition")
                    self.block(tier.body)
            case s.RuleDecl():
                self.rules.append(d)
                self.scope = _Scope("rule", self.resolution)
                for b in d.bindings:
                    elem = self.collection(self.expr(b.source), b.source.span)
                    self.scope.bind(b.name, elem)
                self.expect(self.expr(d.when), t.BOOL, d.when.span, "a rule's condition")
                self.block(d.body)
            case s.InvariantDecl():
                for other in self.invariants:
                    if other.name == d.name:
                        self.error(d.span, f"a second invariant '{d.name}' (the first is at {other.span})")
                self.invariants.append(d)
                self.scope = _Scope("rule", self.resolution)
                for b in d.bindings:
                    elem = self.collection(self.expr(b.source), b.source.span)
                    self.scope.bind(b.name, elem)
                self.expect(self.expr(d.condition), t.BOOL, d.condition.span, "an invariant")
            case s.SetupDecl():
                self.scope = _Scope("setup", self.resolution)
                self.setup.append(d.body)
                self.block(d.body)
            case s.PlayDecl():
                if self.play is not None:
                    self.error(d.span, f"a second 'play' block (the first is at {self.play.span})")
                self.play = d.body
                self.scope = _Scope("play", self.resolution)
                self.block(d.body)
            case _:
                assert_never(d)

    def _check_key_type(self, k: s.TypeExpr) -> None:
        kt = self._type(k)
        if kt.kind not in ("player", "enum", "int", "card", "str", "any"):
            self.error(k.span, f"a zone or variable cannot be keyed by {kt}")

    def expect(self, have: t.T, want: t.T, span: Span, what: str) -> None:
        if not t.compatible(have, want):
            self.error(span, f"{what} must be {want}, not {have}")

    def _compound(self, target: t.T, op: str, vt: t.T, changed: tuple[Span, str], value: tuple[Span, str]) -> None:
        """`x += v`, `x -= v`: numbers add and subtract, lists take `+` and `-`, texts take `+`.

        `changed` and `value` locate and name the thing changed and the value, for the messages.
        """
        if target.kind == "list":
            verb = "added to" if op == "+=" else "taken from"
            self.expect(vt, target, value[0], f"the value {verb} {value[1]}")
        elif target.kind == "str" and op == "+=":
            self.expect(vt, t.STR, value[0], f"the value added to {value[1]}")
        else:
            self.expect(target, t.INT, changed[0], f"{changed[1]} used with {op}")
            self.expect(vt, t.INT, value[0], f"the value added to {value[1]}")

    def collection(self, have: t.T, span: Span, what: str = "this") -> t.T:
        elem = t.element_of(have)
        if elem is None:
            self.error(span, f"{what} must be a list or a zone, not {have}")
            return t.ANY
        return elem

    # ------------------------------------------------------------ statements

    def block(self, b: s.Block) -> None:
        self.scope.push()
        for stmt in b.stmts:
            self.stmt(stmt)
        self.scope.pop()

    def stmt(self, st: s.Stmt) -> None:
        match st:
            case s.Let(name, value):
                if isinstance(value, s.Call) and value.name in self.procs:
                    self._call_args(value.name, self.procs[value.name].params, value.args, value.span)
                    self.scope.bind(name, t.ANY)
                else:
                    vt = self.expr(value)
                    # A local name holds a zone's cards as they are now, not the zone (LANGUAGE.md).
                    self.scope.bind(name, t.list_of(vt.element or t.ANY) if vt.kind == "zone" else vt)
            case s.Assign(name, op, value):
                have = self.scope.lookup(name)
                vt = self.expr(value)
                if have is None:
                    hint = f"declare it first with 'let {name} = ...'"
                    if name in self.vars:
                        hint = f"{name} is a game variable: write 'set {name} {op} ...'"
                    self.error(
                        st.span, f"unknown local name '{name}'{did_you_mean(name, self.scope.names())}", hint=hint
                    )
                elif op != "=":
                    self._compound(have, op, vt, (st.span, f"'{name}'"), (value.span, f"'{name}'"))
            case s.SetVar(name, keys, op, value):
                if name not in self.vars and name in self.consts:
                    self.error(
                        st.span,
                        f"'{name}' is a constant: it cannot be set",
                        hint=f"declare it as a variable to change it: var {name}: ... = ... public",
                    )
                    self.expr(value)
                    return
                if name not in self.vars:
                    local = self.scope.lookup(name) is not None
                    self.error(
                        st.span,
                        f"unknown variable '{name}'{did_you_mean(name, self.vars)}",
                        hint=f"'{name}' is a local name: write '{name} {op} ...' without 'set'" if local else None,
                    )
                    self.expr(value)
                    return
                self._keys(self.vars[name], keys, st.span)
                vt = self.expr(value)
                want = self.var_types[name]
                if op != "=":
                    self._compound(want, op, vt, (st.span, f"variable {name}"), (value.span, name))
                else:
                    self.expect(vt, want, value.span, f"the value of {name}")
            case s.SetField(obj, field, op, value):
                ot = self.expr(obj)
                vt = self.expr(value)
                ft = self._field_type(ot, field, st.span)
                if ft is not None and op == "=":
                    self.expect(vt, ft, value.span, f"the value of field {field}")
                elif ft is not None:
                    self._compound(ft, op, vt, (st.span, f"field {field}"), (value.span, f"field {field}"))
            case s.Move(what, to, _):
                wt = self.expr(what)
                if wt.kind not in ("card", "any", "list", "zone"):
                    self.error(what.span, f"only cards move: this is {wt}")
                elif wt.kind in ("list", "zone"):
                    el = wt.element or t.ANY
                    if el.kind not in ("card", "any"):
                        self.error(what.span, f"only cards move: this is {wt}")
                self._zone(to)
            case s.Draw(count, source, to):
                self.expect(self.expr(count), t.INT, count.span, "the number of cards to draw")
                self._zone(source)
                self._zone(to)
            case s.Create(count, card_type, inits, zone):
                self.expect(self.expr(count), t.INT, count.span, "the number of cards to create")
                ct = self.cards.get(card_type)
                if ct is None:
                    self.error(st.span, f"unknown card type '{card_type}'{did_you_mean(card_type, self.cards)}")
                for init in inits:
                    vt = self.expr(init.value)
                    if ct is not None:
                        ft = ct.field_type(init.name)
                        if ft is None:
                            self.error(
                                init.span,
                                f"card type {card_type} has no field '{init.name}'"
                                f"{did_you_mean(init.name, [f for f, _ in ct.fields])}",
                            )
                        else:
                            self.expect(vt, ft, init.value.span, f"field {init.name}")
                self._zone(zone)
            case s.If(cond, then, elifs, otherwise):
                self._cond(cond)
                self.block(then)
                for e in elifs:
                    self._cond(e.condition)
                    self.block(e.body)
                if otherwise is not None:
                    self.block(otherwise)
            case s.For(var, source, body):
                elem = self.collection(self.expr(source), source.span, "what a 'for' walks")
                self.scope.push()
                self.scope.bind(var, elem)
                self.block(body)
                self.scope.pop()
            case s.While(cond, body):
                self._cond(cond)
                self.block(body)
            case s.Repeat(count, body):
                self.expect(self.expr(count), t.INT, count.span, "the number of repeats")
                self.block(body)
            case s.Match(subject, cases, otherwise):
                subject_type = self.expr(subject)
                for case in cases:
                    case_type = self.expr(case.value)
                    if not t.compatible(case_type, subject_type) and not t.compatible(subject_type, case_type):
                        self.error(case.value.span, f"this case is {case_type} but the value matched is {subject_type}")
                    self.block(case.body)
                if otherwise is not None:
                    self.block(otherwise)
            case s.Attempt(body, otherwise):
                self.block(body)
                if otherwise is not None:
                    self.block(otherwise)
            case s.Together(body):
                self.block(body)
            case s.Secret(body):
                self.block(body)
            case s.Fail():
                pass
            case s.Require(cond, _):
                self._cond(cond)
            case s.Choose(target, quantity, count, source, by, prompt):
                # While several values are chosen, the name holds those picked so far (the list
                # chosen from is read again before each pick, so it may depend on them).
                self.scope.push()
                if quantity != "one":
                    self.scope.bind(target, t.list_of(t.ANY))
                st_type = self.expr(source)
                self.scope.pop()
                elem = self.collection(st_type, source.span, "what is chosen from")
                if quantity in ("exactly", "upto") and count is None:
                    self.error(st.span, f"'choose {quantity}' needs a number: choose {quantity} 2 from ...")
                if quantity in ("one", "any", "order") and count is not None:
                    self.error(count.span, f"'choose {quantity}' takes no number")
                if count is not None:
                    self.expect(self.expr(count), t.INT, count.span, "the number of choices")
                self._by(by)
                if prompt is not None:  # filled in before the name is bound
                    self.expr(prompt)
                self.scope.bind(target, elem if quantity == "one" else t.list_of(elem))
            case s.Menu(by, prompt, options):
                self._by(by)
                if prompt is not None:
                    self.expr(prompt)
                labels: set[str] = set()
                for opt in options:
                    if opt.label in labels:
                        self.error(opt.span, f'two options are labelled "{opt.label}"')
                    labels.add(opt.label)
                    if opt.when is not None:
                        self._cond(opt.when)
                    self.block(opt.body)
            case s.Use(ability, args, upto, by):
                ab = self.abilities.get(ability)
                if ab is None and ability in self.procs:
                    self.error(
                        st.span,
                        f"'{ability}' is a procedure, not an ability",
                        hint=f"call it as '{ability}(...)'; 'use' offers the tiers of an ability",
                    )
                    for a in args:
                        self.expr(a)
                elif ab is None:
                    self.error(st.span, f"unknown ability '{ability}'{did_you_mean(ability, self.abilities)}")
                    for a in args:
                        self.expr(a)
                else:
                    self._call_args(ability, ab.params, args, st.span)
                    if by is None and first_player_param(ab) is None:
                        self.error(
                            st.span,
                            f"ability {ability} has no Player parameter to choose its tier",
                            hint=f"say who chooses: use {ability}(...) upto ... by PLAYER",
                        )
                self.expect(self.expr(upto), t.INT, upto.span, "the tier count")
                if by is not None:
                    bt = self.expr(by)
                    if bt.kind not in ("player", "any"):
                        self.error(by.span, f"a tier is chosen by a player, not by {bt}")
            case s.CallStmt(name, args):
                if name in self.procs:
                    self._call_args(name, self.procs[name].params, args, st.span)
                elif name in self.fns:
                    self.error(
                        st.span,
                        f"'{name}' is a function: it computes a value and changes nothing",
                        hint=f"use its value, e.g. 'let x = {name}(...)', or make it a proc",
                    )
                elif name in self.abilities:
                    self.error(
                        st.span,
                        f"'{name}' is an ability: it is resolved with 'use'",
                        hint=f"write 'use {name}(...) upto N' to offer its tiers up to N",
                    )
                    for a in args:
                        self.expr(a)
                else:
                    self.error(st.span, f"unknown procedure '{name}'{did_you_mean(name, self.procs)}")
                    for a in args:
                        self.expr(a)
            case s.Return(value):
                if self.scope.kind not in ("proc", "ability"):
                    self.error(st.span, "'return' outside a proc")
                if value is not None:
                    self.expr(value)
            case s.EndGame(winners):
                if winners is not None:
                    self.expect(self.expr(winners), t.list_of(t.PLAYER), winners.span, "the winners")
            case s.EndUnfinished(text) | s.Say(text):
                self.expr(text)
            case _:
                assert_never(st)

    def _cond(self, e: s.Expr) -> None:
        self.expect(self.expr(e), t.BOOL, e.span, "a condition")

    def _by(self, by: s.Expr | None) -> None:
        if by is not None:
            bt = self.expr(by)
            if bt.kind not in ("player", "table", "any"):
                self.error(by.span, f"a decision is made by a player or by the table, not by {bt}")

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

    # ------------------------------------------------------------ expressions

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
            case s.Comprehension(element, var, source, cond):
                elem = self.collection(self.expr(source), source.span, "what a comprehension walks")
                self.scope.push()
                self.scope.bind(var, elem)
                if cond is not None:
                    self._cond(cond)
                et = self.expr(element)
                self.scope.pop()
                return t.list_of(et)
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

    # ------------------------------------------------------------ rule dependencies


class Declarations(Protocol):
    """What a read-set needs of a rulebook: the checker while it checks, the Program afterwards."""

    zones: dict[str, s.ZoneDecl]
    vars: dict[str, s.VarDecl]
    var_types: dict[str, t.T]
    consts: dict[str, s.ConstDecl]
    fns: dict[str, s.FnDecl]


def reads_of(decls: Declarations, nodes: Iterable[Any]) -> frozenset[str]:
    """Names of the zones and variables these expressions may read (through functions and
    constants too); "*" when any zone may be the one read (a zone or card held in a variable, `zone_of`)."""
    seen_fns: set[str] = set()
    seen_consts: set[str] = set()
    found: set[str] = set()
    reads_fields = False

    def walk(node: Any) -> None:
        nonlocal reads_fields
        if isinstance(node, s.Name):
            if node.id in decls.zones or node.id in decls.vars:
                found.add(node.id)
            if node.id in decls.vars and _may_hold_zone(decls.var_types[node.id]):
                found.add("*")  # a zone held in a variable: any zone may be the one read
            if node.id in decls.vars and _may_hold_card(decls.var_types[node.id]):
                found.add("~card")  # a card held in a variable: its fields change in its zone
            if node.id in decls.consts and node.id not in seen_consts:
                seen_consts.add(node.id)
                walk(decls.consts[node.id].value)
        elif isinstance(node, s.FieldAccess):
            reads_fields = True
        elif isinstance(node, s.Call) and node.name in decls.fns and node.name not in seen_fns:
            seen_fns.add(node.name)
            walk(decls.fns[node.name].body)
        elif isinstance(node, s.Call) and node.name == "zone_of":
            found.add("*")
        if attrs.has(type(node)):
            for f in attrs.fields(type(node)):
                walk(getattr(node, f.name))
        elif isinstance(node, tuple):
            for item in node:
                walk(item)

    for node in nodes:
        walk(node)
    if "~card" in found:
        found.discard("~card")
        if reads_fields:  # a field of a card named by a variable: a change in any zone may be it
            found.add("*")
    return frozenset(found)


def first_player_param(ability: s.AbilityDecl) -> str | None:
    """The name of an ability's first parameter of type Player: who chooses its tier unless `use ... by` says."""
    for p in ability.params:
        if isinstance(p.type, s.NamedType) and p.type.name == "Player":
            return p.name
    return None


def _may_hold_zone(type_: t.T | None) -> bool:
    """Whether a value of this type may be (or hold) a zone."""
    if type_ is None or type_.kind in ("any", "zone", "record"):
        return True
    return type_.kind == "list" and _may_hold_zone(type_.element)


def _may_hold_card(type_: t.T | None) -> bool:
    """Whether a value of this type may be (or hold) a card."""
    if type_ is None or type_.kind in ("any", "card", "record"):
        return True
    return type_.kind == "list" and _may_hold_card(type_.element)


def _type_text(type_: s.TypeExpr) -> str:
    return type_.name if isinstance(type_, s.NamedType) else f"list of {_type_text(type_.element)}"
