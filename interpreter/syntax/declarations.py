"""The AST of declarations and of a whole file (see ast.py)."""

from __future__ import annotations

import attrs

from ..errors import NO_SPAN, Span
from .expressions import Expr, TypeExpr
from .statements import Block

# ---------------------------------------------------------------- declarations


@attrs.frozen
class GameDecl:
    """`game Tutorial players 2..4`"""

    name: str
    min_players: int
    max_players: int
    span: Span = attrs.field(default=NO_SPAN, kw_only=True, eq=False, repr=False)


@attrs.frozen
class IncludeDecl:
    """`include "base.rules"`"""

    path: str
    span: Span = attrs.field(default=NO_SPAN, kw_only=True, eq=False, repr=False)


@attrs.frozen
class EnumDecl:
    """`enum Colour { red, blue, green }` (the order is the cyclic order of `next`);
    `extend enum Colour { white }` adds values to an enumeration an included file declares."""

    name: str
    members: tuple[str, ...]
    extends: bool = False
    span: Span = attrs.field(default=NO_SPAN, kw_only=True, eq=False, repr=False)


@attrs.frozen
class FieldDecl:
    """`colour: Colour`"""

    name: str
    type: TypeExpr
    span: Span = attrs.field(default=NO_SPAN, kw_only=True, eq=False, repr=False)


@attrs.frozen
class CardDecl:
    """`card Ware { suit: Suit, value: int } label "{value} of {suit}"`"""

    name: str
    fields: tuple[FieldDecl, ...]
    label: str | None
    span: Span = attrs.field(default=NO_SPAN, kw_only=True, eq=False, repr=False)


@attrs.frozen
class ZoneDecl:
    """`zone hand[Player]: Ware owner`, `zone deck: Ware hidden shuffled`, `zone vp[Player]: Vp public "VP cards"`"""

    name: str
    keys: tuple[TypeExpr, ...]
    card_type: str
    visibility: str
    shuffled: bool
    display: str | None = None  # the name shown to people (the viewer, explain, play), if the rules give one
    span: Span = attrs.field(default=NO_SPAN, kw_only=True, eq=False, repr=False)


@attrs.frozen
class VarDecl:
    """`var tokens[Player]: int = 0 public`, `var tokens[Player]: int = 0 public "VP tokens"`"""

    name: str
    keys: tuple[TypeExpr, ...]
    type: TypeExpr
    init: Expr
    visibility: str
    display: str | None = None  # the name shown to people, as a zone's
    span: Span = attrs.field(default=NO_SPAN, kw_only=True, eq=False, repr=False)


@attrs.frozen
class ConstDecl:
    """`const HAND = 6`"""

    name: str
    value: Expr
    span: Span = attrs.field(default=NO_SPAN, kw_only=True, eq=False, repr=False)


@attrs.frozen
class Param:
    """`p: Player`"""

    name: str
    type: TypeExpr
    span: Span = attrs.field(default=NO_SPAN, kw_only=True, eq=False, repr=False)


@attrs.frozen
class FnDecl:
    """`fn score(p: Player) = tokens[p]`"""

    name: str
    params: tuple[Param, ...]
    body: Expr
    override: bool = False
    span: Span = attrs.field(default=NO_SPAN, kw_only=True, eq=False, repr=False)


@attrs.frozen
class ProcDecl:
    """`proc refill(p: Player) { ... }`; `override proc ...` replaces an included procedure."""

    name: str
    params: tuple[Param, ...]
    body: Block
    override: bool = False
    span: Span = attrs.field(default=NO_SPAN, kw_only=True, eq=False, repr=False)


@attrs.frozen
class Tier:
    """`tier 2 "Exchange 2 for 1" when len(hand[p]) >= 2 { ... }`"""

    level: int
    text: str
    when: Expr | None
    body: Block
    span: Span = attrs.field(default=NO_SPAN, kw_only=True, eq=False, repr=False)


@attrs.frozen
class AbilityDecl:
    """`ability sell(p: Player) "Sell wares" { tier 0 "..." { ... } }`"""

    name: str
    params: tuple[Param, ...]
    text: str
    tiers: tuple[Tier, ...]
    span: Span = attrs.field(default=NO_SPAN, kw_only=True, eq=False, repr=False)


@attrs.frozen
class Binding:
    """`p in players`"""

    name: str
    source: Expr
    span: Span = attrs.field(default=NO_SPAN, kw_only=True, eq=False, repr=False)


@attrs.frozen
class RuleDecl:
    """`rule spoil(p in players) when len(stall[p]) > 9 { ... }`: checked after every change."""

    name: str
    bindings: tuple[Binding, ...]
    when: Expr
    body: Block
    span: Span = attrs.field(default=NO_SPAN, kw_only=True, eq=False, repr=False)


@attrs.frozen
class InvariantDecl:
    """`invariant hand_limit(p in players): len(hand[p]) <= 6`: holds whenever the game waits."""

    name: str
    bindings: tuple[Binding, ...]
    condition: Expr
    span: Span = attrs.field(default=NO_SPAN, kw_only=True, eq=False, repr=False)


@attrs.frozen
class SetupDecl:
    """`setup { ... }`"""

    body: Block
    span: Span = attrs.field(default=NO_SPAN, kw_only=True, eq=False, repr=False)


@attrs.frozen
class PlayDecl:
    """`play { ... }`"""

    body: Block
    span: Span = attrs.field(default=NO_SPAN, kw_only=True, eq=False, repr=False)


@attrs.frozen
class Place:
    """`A: 2 8`: where a value of an enumeration stands on its board, column and row."""

    name: str
    x: int
    y: int
    span: Span = attrs.field(default=NO_SPAN, kw_only=True, eq=False, repr=False)


@attrs.frozen
class LayoutDecl:
    """`layout Space { A: 0 0, B: 4 0 } links ROADS`: the board of an enumeration's values, for people to see
    (the viewer draws it as a map): where each value stands, and the constant that lists the links."""

    enum: str
    places: tuple[Place, ...]
    links: str | None
    span: Span = attrs.field(default=NO_SPAN, kw_only=True, eq=False, repr=False)


Decl = (
    GameDecl
    | IncludeDecl
    | EnumDecl
    | CardDecl
    | ZoneDecl
    | VarDecl
    | ConstDecl
    | FnDecl
    | ProcDecl
    | AbilityDecl
    | RuleDecl
    | InvariantDecl
    | SetupDecl
    | PlayDecl
    | LayoutDecl
)


@attrs.frozen
class Rulebook:
    """A whole file: a sequence of declarations."""

    decls: tuple[Decl, ...]
    span: Span = attrs.field(default=NO_SPAN, kw_only=True, eq=False, repr=False)
