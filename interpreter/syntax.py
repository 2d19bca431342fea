"""The typed AST of the rulebook language: frozen attrs nodes, one class per grammar alias.

Each class's docstring shows the syntax it holds. Every node has a keyword-only `span`
(excluded from equality and repr), so two parses of the same text compare equal whatever
their layout, which is what `rulecraft fmt` relies on.
"""

from __future__ import annotations

from typing import Union

import attrs

from .errors import NO_SPAN, Span


def _span() -> Span:
    return attrs.field(default=NO_SPAN, kw_only=True, eq=False, repr=False)  # type: ignore[no-any-return]


node = attrs.frozen(slots=True)


# ---------------------------------------------------------------- types


@node
class NamedType:
    """`int`, `Player`, `Colour`, `Ware`"""

    name: str
    span: Span = _span()


@node
class ListType:
    """`list of Ware`"""

    element: TypeExpr
    span: Span = _span()


TypeExpr = Union[NamedType, ListType]


# ---------------------------------------------------------------- expressions


@node
class IntLit:
    """`3`"""

    value: int
    span: Span = _span()


@node
class StrLit:
    """`"Draw a card"`"""

    value: str
    span: Span = _span()


@node
class BoolLit:
    """`true`"""

    value: bool
    span: Span = _span()


@node
class NoneLit:
    """`none`"""

    span: Span = _span()


@node
class Name:
    """`hand`"""

    id: str
    span: Span = _span()


@node
class ListLit:
    """`[1, 2, 3]`"""

    items: tuple[Expr, ...]
    span: Span = _span()


@node
class Comprehension:
    """`[c.colour for c in hand[p] if c.value > 1]`"""

    element: Expr
    var: str
    source: Expr
    condition: Expr | None
    span: Span = _span()


@node
class RecordLit:
    """`{kind: steal, vp: 2}`"""

    inits: tuple[Init, ...]
    span: Span = _span()


@node
class FieldAccess:
    """`card.colour`"""

    obj: Expr
    name: str
    span: Span = _span()


@node
class Index:
    """`hand[p]`, `slot[p, 1, 2]`, `xs[0]`"""

    obj: Expr
    args: tuple[Expr, ...]
    span: Span = _span()


@node
class Call:
    """`len(hand[p])`"""

    name: str
    args: tuple[Expr, ...]
    span: Span = _span()


@node
class Neg:
    """`-x`"""

    operand: Expr
    span: Span = _span()


@node
class Binary:
    """`a + b`, `a - b`, `a * b`, `a // b`, `a % b`"""

    op: str
    left: Expr
    right: Expr
    span: Span = _span()


@node
class RangeOp:
    """`1..4` (both ends included)"""

    low: Expr
    high: Expr
    span: Span = _span()


@node
class Compare:
    """`a == b`, `a < b`"""

    op: str
    left: Expr
    right: Expr
    span: Span = _span()


@node
class In:
    """`c in hand[p]`, `c not in hand[p]`"""

    item: Expr
    collection: Expr
    negated: bool
    span: Span = _span()


@node
class Not:
    """`not x`"""

    operand: Expr
    span: Span = _span()


@node
class And:
    """`a and b`"""

    left: Expr
    right: Expr
    span: Span = _span()


@node
class Or:
    """`a or b`"""

    left: Expr
    right: Expr
    span: Span = _span()


@node
class Query:
    """`xs where it.v > 1`, `xs sorted by it.v`, `xs max by f(it)`, `xs group by it.v`, `xs map it.v`

    `it` names each element of `source` while `key` is evaluated.
    """

    op: str  # where | sorted | max | min | group | map
    source: Expr
    key: Expr
    span: Span = _span()


@node
class CondExpr:
    """`if a then b else c`"""

    condition: Expr
    then: Expr
    otherwise: Expr
    span: Span = _span()


Expr = Union[
    IntLit, StrLit, BoolLit, NoneLit, Name, ListLit, Comprehension, RecordLit, FieldAccess,
    Index, Call, Neg, Binary, RangeOp, Compare, In, Not, And, Or, Query, CondExpr,
]


# ---------------------------------------------------------------- statements


@node
class Init:
    """`colour: red`"""

    name: str
    value: Expr
    span: Span = _span()


@node
class Block:
    """`{ stmt stmt ... }`"""

    stmts: tuple[Stmt, ...]
    span: Span = _span()


@node
class Let:
    """`let n = len(hand[p])`"""

    name: str
    value: Expr
    span: Span = _span()


@node
class Assign:
    """`n = n + 1`, `n += 1`"""

    name: str
    op: str
    value: Expr
    span: Span = _span()


@node
class SetVar:
    """`set tokens[p] += 2`"""

    name: str
    keys: tuple[Expr, ...]
    op: str
    value: Expr
    span: Span = _span()


@node
class SetField:
    """`set card.side = back`"""

    obj: Expr
    field: str
    op: str
    value: Expr
    span: Span = _span()


@node
class Move:
    """`move c to stall[p]`, `move cs to bottom of deck`"""

    what: Expr
    to: Expr
    bottom: bool
    span: Span = _span()


@node
class Draw:
    """`draw 2 from deck to hand[p]`"""

    count: Expr
    source: Expr
    to: Expr
    span: Span = _span()


@node
class Create:
    """`create 4 Ware { suit: s, value: v } in deck`"""

    count: Expr
    card_type: str
    inits: tuple[Init, ...]
    zone: Expr
    span: Span = _span()


@node
class Elif:
    """`elif x == 1 { ... }`"""

    condition: Expr
    body: Block
    span: Span = _span()


@node
class If:
    """`if x > 1 { ... } elif x == 1 { ... } else { ... }`"""

    condition: Expr
    then: Block
    elifs: tuple[Elif, ...]
    otherwise: Block | None
    span: Span = _span()


@node
class For:
    """`for c in hand[p] { ... }`"""

    var: str
    source: Expr
    body: Block
    span: Span = _span()


@node
class While:
    """`while len(hand[p]) < 6 { ... }`"""

    condition: Expr
    body: Block
    span: Span = _span()


@node
class Repeat:
    """`repeat 3 { ... }`"""

    count: Expr
    body: Block
    span: Span = _span()


@node
class Case:
    """`coins { ... }` inside a match"""

    value: Expr
    body: Block
    span: Span = _span()


@node
class Match:
    """`match c.suit { coins { ... } else { ... } }`"""

    subject: Expr
    cases: tuple[Case, ...]
    otherwise: Block | None
    span: Span = _span()


@node
class Attempt:
    """`attempt { ... } else { ... }`: a `fail` inside undoes everything the block did."""

    body: Block
    otherwise: Block | None
    span: Span = _span()


@node
class Together:
    """`together { ... }`: rules are checked once, after the whole block."""

    body: Block
    span: Span = _span()


@node
class Fail:
    """`fail "no card to place"`"""

    message: str
    span: Span = _span()


@node
class Require:
    """`require len(hand[p]) > 0 else "your hand is empty"`"""

    condition: Expr
    message: str
    span: Span = _span()


@node
class Choose:
    """`let c = choose one from hand[p] by p prompt "Discard a card"`

    quantity: one | exactly N | upto N | any | order.
    """

    target: str
    quantity: str
    count: Expr | None
    source: Expr
    by: Expr | None
    prompt: str | None
    span: Span = _span()


@node
class Option:
    """`option "Buy a card" when len(row) > 0 { ... }`"""

    label: str
    when: Expr | None
    body: Block
    span: Span = _span()


@node
class Menu:
    """`choose by p prompt "Your action" { option ... option ... }`"""

    by: Expr | None
    prompt: str | None
    options: tuple[Option, ...]
    span: Span = _span()


@node
class Use:
    """`use sell(p) upto n`: offer every tier up to n (and none); the chosen tier is all or nothing."""

    ability: str
    args: tuple[Expr, ...]
    upto: Expr
    span: Span = _span()


@node
class CallStmt:
    """`draw_up_to(p, 6)`"""

    name: str
    args: tuple[Expr, ...]
    span: Span = _span()


@node
class Return:
    """`return`, `return x`"""

    value: Expr | None
    span: Span = _span()


@node
class EndGame:
    """`end game`, `end game winners [p]`"""

    winners: Expr | None
    span: Span = _span()


@node
class Say:
    """`say "{p} passes"`"""

    text: str
    span: Span = _span()


Stmt = Union[
    Let, Assign, SetVar, SetField, Move, Draw, Create, If, For, While, Repeat, Match, Attempt,
    Together, Fail, Require, Choose, Menu, Use, CallStmt, Return, EndGame, Say,
]


# ---------------------------------------------------------------- declarations


@node
class GameDecl:
    """`game Tutorial players 2..4`"""

    name: str
    min_players: int
    max_players: int
    span: Span = _span()


@node
class IncludeDecl:
    """`include "base.rules"`"""

    path: str
    span: Span = _span()


@node
class EnumDecl:
    """`enum Colour { red, blue, green }` (the order is the cyclic order of `next`)"""

    name: str
    members: tuple[str, ...]
    span: Span = _span()


@node
class FieldDecl:
    """`colour: Colour`"""

    name: str
    type: TypeExpr
    span: Span = _span()


@node
class CardDecl:
    """`card Ware { suit: Suit, value: int } label "{value} of {suit}"`"""

    name: str
    fields: tuple[FieldDecl, ...]
    label: str | None
    span: Span = _span()


@node
class ZoneDecl:
    """`zone hand[Player]: Ware owner`, `zone deck: Ware hidden shuffled`"""

    name: str
    keys: tuple[TypeExpr, ...]
    card_type: str
    visibility: str
    shuffled: bool
    span: Span = _span()


@node
class VarDecl:
    """`var tokens[Player]: int = 0 public`"""

    name: str
    keys: tuple[TypeExpr, ...]
    type: TypeExpr
    init: Expr
    visibility: str
    span: Span = _span()


@node
class ConstDecl:
    """`const HAND = 6`"""

    name: str
    value: Expr
    span: Span = _span()


@node
class Param:
    """`p: Player`"""

    name: str
    type: TypeExpr
    span: Span = _span()


@node
class FnDecl:
    """`fn score(p: Player) = tokens[p]`"""

    name: str
    params: tuple[Param, ...]
    body: Expr
    span: Span = _span()


@node
class ProcDecl:
    """`proc refill(p: Player) { ... }`"""

    name: str
    params: tuple[Param, ...]
    body: Block
    span: Span = _span()


@node
class Tier:
    """`tier 2 "Exchange 2 for 1" when len(hand[p]) >= 2 { ... }`"""

    level: int
    text: str
    when: Expr | None
    body: Block
    span: Span = _span()


@node
class AbilityDecl:
    """`ability sell(p: Player) "Sell wares" { tier 0 "..." { ... } }`"""

    name: str
    params: tuple[Param, ...]
    text: str
    tiers: tuple[Tier, ...]
    span: Span = _span()


@node
class Binding:
    """`p in players`"""

    name: str
    source: Expr
    span: Span = _span()


@node
class RuleDecl:
    """`rule spoil(p in players) when len(stall[p]) > 9 { ... }`: checked after every change."""

    name: str
    bindings: tuple[Binding, ...]
    when: Expr
    body: Block
    span: Span = _span()


@node
class InvariantDecl:
    """`invariant hand_limit(p in players): len(hand[p]) <= 6`: holds whenever the game waits."""

    name: str
    bindings: tuple[Binding, ...]
    condition: Expr
    span: Span = _span()


@node
class SetupDecl:
    """`setup { ... }`"""

    body: Block
    span: Span = _span()


@node
class PlayDecl:
    """`play { ... }`"""

    body: Block
    span: Span = _span()


Decl = Union[
    GameDecl, IncludeDecl, EnumDecl, CardDecl, ZoneDecl, VarDecl, ConstDecl, FnDecl, ProcDecl,
    AbilityDecl, RuleDecl, InvariantDecl, SetupDecl, PlayDecl,
]


@node
class Rulebook:
    """A whole file: a sequence of declarations."""

    decls: tuple[Decl, ...]
    span: Span = _span()
