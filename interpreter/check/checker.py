"""Check a parsed rulebook: names resolve, types agree, arities match.

The checker walks every declaration once, collects *all* problems as located diagnostics
(never only the first), and builds the `Program` the runtime executes (program.py).

`Checker` is the top of three layers: `ExpressionChecker` (expressions.py, which holds what the
declarations gathered) <- `StatementChecker` (statements.py) <- `Checker` (here: the declarations).
"""

from __future__ import annotations

import keyword
from typing import Any, assert_never

from ..errors import Diagnostic, RulebookError, Span, did_you_mean
from ..language import types as t
from ..language.builtins import BUILTIN_NAMES, BUILTINS
from ..language.values import EnumValue
from ..syntax import ast as s
from .program import (
    BASIC_TYPES,
    MAX_CARD_TYPES,
    MAX_FIELDS,
    MAX_PLAYERS,
    SEAT,
    CardType,
    Program,
    reads_of,
    type_text,
)
from .reach import unreached
from .resolve import Resolution
from .scope import Scope
from .statements import StatementChecker


class Checker(StatementChecker):
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
        self.layouts: dict[str, s.LayoutDecl] = {}
        self.setup: list[s.Block] = []
        self.play: s.Block | None = None
        self.game: s.GameDecl | None = None
        self.resolution = Resolution()
        self.scope = Scope("setup", self.resolution)

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
        program = Program(
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
            layouts=self.layouts,
            setup=self.setup,
            play=self.play,
            sources=self.sources,
            files=[f for f, _ in self.files],
            resolution=self._resolution(),
            const_types=self.const_types,
            fn_types=self.fn_types,
        )
        program.warnings = unreached(program)
        return program

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
                case s.SetupDecl() | s.PlayDecl() | s.RuleDecl() | s.IncludeDecl() | s.InvariantDecl() | s.LayoutDecl():
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
                EnumValue(v.enum, v.index, v.name, f"{enum}.{v.name}")
                if len(self.members[v.name]) > 1 or v.name in ("true", "false", "none") or SEAT.fullmatch(v.name)
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
            return ", ".join(f"{p.name}: {type_text(p.type)}" for p in params)

        if shape(base.params) != shape(d.params):
            self.error(
                d.span, f"override of {d.name} must take the same parameters as at {base.span}: ({shape(base.params)})"
            )
            return
        registry[d.name] = d

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
                if d.visibility in ("owner", "others") and not any(
                    isinstance(k, s.NamedType) and k.name == "Player" for k in d.keys
                ):
                    self.error(
                        d.span, f"zone {d.name} is '{d.visibility}' visible but has no Player key to say who owns it"
                    )
            case s.VarDecl():
                if d.visibility == "others":
                    self.error(d.span, f"'others' is a visibility of zones: give variable {d.name} another")
                for k in d.keys:
                    self._check_key_type(k)
                self.scope = Scope("var", self.resolution)
                have = self.expr(d.init)
                self.expect(have, self.var_types[d.name], d.init.span, f"the initial value of {d.name}")
            case s.ConstDecl():
                self.scope = Scope("const", self.resolution)
                self.const_types[d.name] = self.expr(d.value)
            case s.FnDecl():
                self.scope = Scope("fn", self.resolution)
                for p in d.params:
                    self.scope.bind(p.name, self._type(p.type))
                self.fn_types[d.name] = self.expr(d.body)
                if d.name == "team_score" and d.params:  # the engine asks it of the whole team
                    self.error(d.span, "team_score() is the score of the whole team: it takes no parameters")
            case s.ProcDecl():
                self.scope = Scope("proc", self.resolution)
                for p in d.params:
                    self.scope.bind(p.name, self._type(p.type), checked=True)  # (checked at each call)
                self.block(d.body)
            case s.AbilityDecl():
                levels: set[int] = set()
                for tier in d.tiers:
                    if tier.level in levels:
                        self.error(tier.span, f"ability {d.name} has two tiers {tier.level}")
                    levels.add(tier.level)
                    self.scope = Scope("ability", self.resolution)
                    for p in d.params:
                        self.scope.bind(p.name, self._type(p.type))
                    if tier.when is not None:
                        self.expect(self.expr(tier.when), t.BOOL, tier.when.span, "a tier's condition")
                    self.block(tier.body)
            case s.RuleDecl():
                self.rules.append(d)
                self.scope = Scope("rule", self.resolution)
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
                self.scope = Scope("rule", self.resolution)
                for b in d.bindings:
                    elem = self.collection(self.expr(b.source), b.source.span)
                    self.scope.bind(b.name, elem)
                self.expect(self.expr(d.condition), t.BOOL, d.condition.span, "an invariant")
            case s.SetupDecl():
                self.scope = Scope("setup", self.resolution)
                self.setup.append(d.body)
                self.block(d.body)
            case s.PlayDecl():
                if self.play is not None:
                    self.error(d.span, f"a second 'play' block (the first is at {self.play.span})")
                self.play = d.body
                self.scope = Scope("play", self.resolution)
                self.block(d.body)
            case s.LayoutDecl():
                self._layout(d)
            case _:
                assert_never(d)

    def _layout(self, d: s.LayoutDecl) -> None:
        """A layout names an enumeration, places only its values, each once, and links by a constant."""
        if d.enum not in self.enums:
            self.error(d.span, f"layout of '{d.enum}', which is not an enumeration{did_you_mean(d.enum, self.enums)}")
            return
        if d.enum in self.layouts:
            self.error(d.span, f"a second layout of {d.enum} (the first is at {self.layouts[d.enum].span})")
            return
        self.layouts[d.enum] = d
        values = [v.name for v in self.enums[d.enum]]
        placed: set[str] = set()
        for place in d.places:
            if place.name not in values:
                why = did_you_mean(place.name, values)
                self.error(place.span, f"'{place.name}' is not a value of enumeration {d.enum}{why}")
            elif place.name in placed:
                self.error(place.span, f"layout of {d.enum} places '{place.name}' twice")
            placed.add(place.name)
        if d.links is not None and d.links not in self.consts:
            self.error(d.span, f"links {d.links}: no constant of that name{did_you_mean(d.links, self.consts)}")

    def _check_key_type(self, k: s.TypeExpr) -> None:
        kt = self._type(k)
        if kt.kind not in ("player", "enum", "int", "card", "str", "any"):
            self.error(k.span, f"a zone or variable cannot be keyed by {kt}")
