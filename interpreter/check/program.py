"""The checked program: what the checker builds and the runtime reads, and the limits on its size."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import Any, Protocol

import attrs

from ..errors import Diagnostic
from ..language import types as t
from ..language.values import EnumValue
from ..syntax import ast as s
from .resolve import Resolution

MAX_PLAYERS = 1000  # seats a game may declare: each seat has its own zones and variables
MAX_FIELDS = 200  # fields of one card type: each is an attribute of every card
MAX_CARD_TYPES = 1000  # card types of one rulebook: each is a Python class, made in about a millisecond
SEAT = re.compile(r"P[1-9][0-9]*")  # how a seat is written; an enumeration value so named is qualified in keys
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
    layouts: dict[str, s.LayoutDecl] = attrs.Factory(dict)  # a board to draw as a map, by its enumeration
    resolution: Resolution = attrs.Factory(Resolution)  # every name's binding (resolve.py)
    # Declarations nothing reaches (reach.py): warnings, which `check` prints and `--strict` refuses.
    warnings: list[Diagnostic] = attrs.Factory(list)
    # The type of each constant's value and function's body, as the checker found them (for the checks
    # of text written against the program afterwards: a scenario's lines, check/fragment.py).
    const_types: dict[str, t.T] = attrs.Factory(dict)
    fn_types: dict[str, t.T] = attrs.Factory(dict)

    def enum_value(self, enum: str, name: str) -> EnumValue:
        for value in self.enums[enum]:
            if value.name == name:
                return value
        raise KeyError(f"{enum}.{name}")


class Declarations(Protocol):
    """What a read-set needs of a rulebook: the checker while it checks, the Program afterwards."""

    zones: dict[str, s.ZoneDecl]
    vars: dict[str, s.VarDecl]
    var_types: dict[str, t.T]
    consts: dict[str, s.ConstDecl]
    fns: dict[str, s.FnDecl]


def reached(program: Program, e: Any) -> Iterator[Any]:
    """Every node of an expression and of the constants' values and keyed variables' initial values it
    reads, each of those walked once however often it is read (so a value that reads itself ends the
    walk): what evaluating the expression may evaluate, the bodies of the functions it calls apart."""
    seen: set[tuple[str, str]] = set()
    stack: list[Any] = [e]
    while stack:
        node = stack.pop()
        cls = node.__class__
        if cls is tuple:
            stack.extend(node)
            continue
        if not attrs.has(cls):
            continue
        yield node
        if cls is s.Name or cls is s.Index:
            binding = program.resolution.of(node)
            if (
                binding is not None
                and binding.kind in ("const", "keyed_var")
                and (binding.kind, binding.name) not in seen
            ):
                seen.add((binding.kind, binding.name))
                value = (
                    program.consts[binding.name].value if binding.kind == "const" else program.vars[binding.name].init
                )
                if value is not None:
                    stack.append(value)
        stack.extend(getattr(node, f.name) for f in attrs.fields(cls) if f.name != "span")


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
            if node.id in decls.vars and may_hold_zone(decls.var_types[node.id]):
                found.add("*")  # a zone held in a variable: any zone may be the one read
            if node.id in decls.vars and may_hold_card(decls.var_types[node.id]):
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


def reads_of_declarations(decls: Declarations) -> dict[tuple[str, str], frozenset[str]]:
    """`reads_of` of every function's body and constant's value at once, by ("fn", name) and
    ("const", name): each walked once for what it reads itself, then the reads of the functions and
    constants it reaches added (what `reads_of` finds by walking through them, again for each)."""
    own: dict[tuple[str, str], tuple[set[str], bool, set[tuple[str, str]]]] = {}
    for kind, table in (("fn", decls.fns), ("const", decls.consts)):
        for name, decl in table.items():
            own[kind, name] = _own_reads(decls, decl.body if kind == "fn" else decl.value)  # type: ignore[union-attr]
    result: dict[tuple[str, str], frozenset[str]] = {}
    for start in own:
        found: set[str] = set()
        reads_fields = False
        reached, stack = {start}, [start]
        while stack:
            names, fields, refs = own[stack.pop()]
            found |= names
            reads_fields = reads_fields or fields
            for ref in refs - reached:
                reached.add(ref)
                stack.append(ref)
        if "~card" in found:  # as in reads_of
            found.discard("~card")
            if reads_fields:
                found.add("*")
        result[start] = frozenset(found)
    return result


def _own_reads(decls: Declarations, body: Any) -> tuple[set[str], bool, set[tuple[str, str]]]:
    """What an expression reads itself (as `reads_of` marks it), whether it reads a field, and the
    functions it calls and constants it names."""
    found: set[str] = set()
    reads_fields = False
    refs: set[tuple[str, str]] = set()
    stack: list[Any] = [body]
    while stack:
        node = stack.pop()
        if isinstance(node, s.Name):
            if node.id in decls.zones or node.id in decls.vars:
                found.add(node.id)
            if node.id in decls.vars and may_hold_zone(decls.var_types[node.id]):
                found.add("*")
            if node.id in decls.vars and may_hold_card(decls.var_types[node.id]):
                found.add("~card")
            if node.id in decls.consts:
                refs.add(("const", node.id))
        elif isinstance(node, s.FieldAccess):
            reads_fields = True
        elif isinstance(node, s.Call) and node.name in decls.fns:
            refs.add(("fn", node.name))
        elif isinstance(node, s.Call) and node.name == "zone_of":
            found.add("*")
        if attrs.has(type(node)):
            stack.extend(getattr(node, f.name) for f in attrs.fields(type(node)) if f.name != "span")
        elif isinstance(node, tuple):
            stack.extend(node)
    return found, reads_fields, refs


def first_player_param(ability: s.AbilityDecl) -> str | None:
    """The name of an ability's first parameter of type Player: who chooses its tier unless `use ... by` says."""
    for p in ability.params:
        if isinstance(p.type, s.NamedType) and p.type.name == "Player":
            return p.name
    return None


def may_hold_zone(type_: t.T | None) -> bool:
    """Whether a value of this type may be (or hold) a zone."""
    if type_ is None or type_.kind in ("any", "zone", "record"):
        return True
    return type_.kind == "list" and may_hold_zone(type_.element)


def may_hold_card(type_: t.T | None) -> bool:
    """Whether a value of this type may be (or hold) a card."""
    if type_ is None or type_.kind in ("any", "card", "record"):
        return True
    return type_.kind == "list" and may_hold_card(type_.element)


def named_within(type_: Any, names: set[str]) -> bool:
    """Whether a declared type is one of the types `names`, or a list of (lists of) one."""
    if isinstance(type_, s.ListType):
        return named_within(type_.element, names)
    return isinstance(type_, s.NamedType) and type_.name in names


def type_text(type_: s.TypeExpr) -> str:
    return type_.name if isinstance(type_, s.NamedType) else f"list of {type_text(type_.element)}"
