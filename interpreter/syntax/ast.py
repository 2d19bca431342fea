"""The typed AST of the rulebook language: frozen attrs nodes, one class per grammar alias.

Each class's docstring shows the syntax it holds. Every node has a keyword-only `span`
(excluded from equality and repr), so two parses of the same text compare equal whatever
their layout, which is what `rulecraft fmt` relies on.
"""

from __future__ import annotations

import attrs

from ..errors import NO_SPAN, Span

# ---------------------------------------------------------------- types


@attrs.frozen
class NamedType:
    """`int`, `Player`, `Colour`, `Ware`"""

    name: str
    span: Span = attrs.field(default=NO_SPAN, kw_only=True, eq=False, repr=False)


@attrs.frozen
class ListType:
    """`list of Ware`"""

    element: TypeExpr
    span: Span = attrs.field(default=NO_SPAN, kw_only=True, eq=False, repr=False)


TypeExpr = NamedType | ListType


# ---------------------------------------------------------------- expressions


@attrs.frozen
class IntLit:
    """`3`"""

    value: int
    span: Span = attrs.field(default=NO_SPAN, kw_only=True, eq=False, repr=False)


@attrs.frozen
class StrLit:
    """`"Draw a card"`"""

    value: str
    span: Span = attrs.field(default=NO_SPAN, kw_only=True, eq=False, repr=False)


@attrs.frozen
class Template:
    """`"{p} holds {len(hand[p])} cards"`: a string with placeholders, parsed once.

    `parts` alternates literal text (`str`, with `{{` and `}}` already read as braces) and the
    expression of each placeholder, whose spans point inside the string."""

    parts: tuple[str | Expr, ...]
    span: Span = attrs.field(default=NO_SPAN, kw_only=True, eq=False, repr=False)


@attrs.frozen
class BoolLit:
    """`true`"""

    value: bool
    span: Span = attrs.field(default=NO_SPAN, kw_only=True, eq=False, repr=False)


@attrs.frozen
class NoneLit:
    """`none`"""

    span: Span = attrs.field(default=NO_SPAN, kw_only=True, eq=False, repr=False)


@attrs.frozen
class Name:
    """`hand`"""

    id: str
    span: Span = attrs.field(default=NO_SPAN, kw_only=True, eq=False, repr=False)


@attrs.frozen
class ListLit:
    """`[1, 2, 3]`"""

    items: tuple[Expr, ...]
    span: Span = attrs.field(default=NO_SPAN, kw_only=True, eq=False, repr=False)


@attrs.frozen
class Comprehension:
    """`[c.colour for c in hand[p] if c.value > 1]`"""

    element: Expr
    var: str
    source: Expr
    condition: Expr | None
    span: Span = attrs.field(default=NO_SPAN, kw_only=True, eq=False, repr=False)


@attrs.frozen
class RecordLit:
    """`{kind: steal, vp: 2}`"""

    inits: tuple[Init, ...]
    span: Span = attrs.field(default=NO_SPAN, kw_only=True, eq=False, repr=False)


@attrs.frozen
class FieldAccess:
    """`card.colour`"""

    obj: Expr
    name: str
    span: Span = attrs.field(default=NO_SPAN, kw_only=True, eq=False, repr=False)


@attrs.frozen
class Index:
    """`hand[p]`, `slot[p, 1, 2]`, `xs[0]`"""

    obj: Expr
    args: tuple[Expr, ...]
    span: Span = attrs.field(default=NO_SPAN, kw_only=True, eq=False, repr=False)


@attrs.frozen
class Call:
    """`len(hand[p])`"""

    name: str
    args: tuple[Expr, ...]
    span: Span = attrs.field(default=NO_SPAN, kw_only=True, eq=False, repr=False)


@attrs.frozen
class Neg:
    """`-x`"""

    operand: Expr
    span: Span = attrs.field(default=NO_SPAN, kw_only=True, eq=False, repr=False)


@attrs.frozen
class Binary:
    """`a + b`, `a - b`, `a * b`, `a // b`, `a % b`"""

    op: str
    left: Expr
    right: Expr
    span: Span = attrs.field(default=NO_SPAN, kw_only=True, eq=False, repr=False)


@attrs.frozen
class RangeOp:
    """`1..4` (both ends included)"""

    low: Expr
    high: Expr
    span: Span = attrs.field(default=NO_SPAN, kw_only=True, eq=False, repr=False)


@attrs.frozen
class Compare:
    """`a == b`, `a < b`"""

    op: str
    left: Expr
    right: Expr
    span: Span = attrs.field(default=NO_SPAN, kw_only=True, eq=False, repr=False)


@attrs.frozen
class In:
    """`c in hand[p]`, `c not in hand[p]`"""

    item: Expr
    collection: Expr
    negated: bool
    span: Span = attrs.field(default=NO_SPAN, kw_only=True, eq=False, repr=False)


@attrs.frozen
class Not:
    """`not x`"""

    operand: Expr
    span: Span = attrs.field(default=NO_SPAN, kw_only=True, eq=False, repr=False)


@attrs.frozen
class And:
    """`a and b`"""

    left: Expr
    right: Expr
    span: Span = attrs.field(default=NO_SPAN, kw_only=True, eq=False, repr=False)


@attrs.frozen
class Or:
    """`a or b`"""

    left: Expr
    right: Expr
    span: Span = attrs.field(default=NO_SPAN, kw_only=True, eq=False, repr=False)


@attrs.frozen
class Query:
    """`xs where it.v > 1`, `xs sorted by it.v`, `xs max by f(it)`, `xs group by it.v`, `xs map it.v`

    `it` names each element of `source` while `key` is evaluated.
    """

    op: str  # where | sorted | max | min | group | map
    source: Expr
    key: Expr
    span: Span = attrs.field(default=NO_SPAN, kw_only=True, eq=False, repr=False)


@attrs.frozen
class CondExpr:
    """`if a then b else c`"""

    condition: Expr
    then: Expr
    otherwise: Expr
    span: Span = attrs.field(default=NO_SPAN, kw_only=True, eq=False, repr=False)


Expr = (
    IntLit
    | StrLit
    | Template
    | BoolLit
    | NoneLit
    | Name
    | ListLit
    | Comprehension
    | RecordLit
    | FieldAccess
    | Index
    | Call
    | Neg
    | Binary
    | RangeOp
    | Compare
    | In
    | Not
    | And
    | Or
    | Query
    | CondExpr
)


# ---------------------------------------------------------------- statements


@attrs.frozen
class Init:
    """`colour: red`"""

    name: str
    value: Expr
    span: Span = attrs.field(default=NO_SPAN, kw_only=True, eq=False, repr=False)


@attrs.frozen
class Block:
    """`{ stmt stmt ... }`"""

    stmts: tuple[Stmt, ...]
    span: Span = attrs.field(default=NO_SPAN, kw_only=True, eq=False, repr=False)


@attrs.frozen
class Let:
    """`let n = len(hand[p])`"""

    name: str
    value: Expr
    span: Span = attrs.field(default=NO_SPAN, kw_only=True, eq=False, repr=False)


@attrs.frozen
class Assign:
    """`n = n + 1`, `n += 1`"""

    name: str
    op: str
    value: Expr
    span: Span = attrs.field(default=NO_SPAN, kw_only=True, eq=False, repr=False)


@attrs.frozen
class SetVar:
    """`set tokens[p] += 2`"""

    name: str
    keys: tuple[Expr, ...]
    op: str
    value: Expr
    span: Span = attrs.field(default=NO_SPAN, kw_only=True, eq=False, repr=False)


@attrs.frozen
class SetField:
    """`set card.side = back`"""

    obj: Expr
    field: str
    op: str
    value: Expr
    span: Span = attrs.field(default=NO_SPAN, kw_only=True, eq=False, repr=False)


@attrs.frozen
class Move:
    """`move c to stall[p]`, `move cs to bottom of deck`"""

    what: Expr
    to: Expr
    bottom: bool
    span: Span = attrs.field(default=NO_SPAN, kw_only=True, eq=False, repr=False)


@attrs.frozen
class Draw:
    """`draw 2 from deck to hand[p]`"""

    count: Expr
    source: Expr
    to: Expr
    span: Span = attrs.field(default=NO_SPAN, kw_only=True, eq=False, repr=False)


@attrs.frozen
class Reveal:
    """`reveal top(deck) to p`, `reveal hand[q] to [p, r]`: those players see those cards."""

    what: Expr
    to: Expr
    span: Span = attrs.field(default=NO_SPAN, kw_only=True, eq=False, repr=False)


@attrs.frozen
class Create:
    """`create 4 Ware { suit: s, value: v } in deck`"""

    count: Expr
    card_type: str
    inits: tuple[Init, ...]
    zone: Expr
    span: Span = attrs.field(default=NO_SPAN, kw_only=True, eq=False, repr=False)


@attrs.frozen
class Elif:
    """`elif x == 1 { ... }`"""

    condition: Expr
    body: Block
    span: Span = attrs.field(default=NO_SPAN, kw_only=True, eq=False, repr=False)


@attrs.frozen
class If:
    """`if x > 1 { ... } elif x == 1 { ... } else { ... }`"""

    condition: Expr
    then: Block
    elifs: tuple[Elif, ...]
    otherwise: Block | None
    span: Span = attrs.field(default=NO_SPAN, kw_only=True, eq=False, repr=False)


@attrs.frozen
class For:
    """`for c in hand[p] { ... }`"""

    var: str
    source: Expr
    body: Block
    span: Span = attrs.field(default=NO_SPAN, kw_only=True, eq=False, repr=False)


@attrs.frozen
class While:
    """`while len(hand[p]) < 6 { ... }`"""

    condition: Expr
    body: Block
    span: Span = attrs.field(default=NO_SPAN, kw_only=True, eq=False, repr=False)


@attrs.frozen
class Repeat:
    """`repeat 3 { ... }`"""

    count: Expr
    body: Block
    span: Span = attrs.field(default=NO_SPAN, kw_only=True, eq=False, repr=False)


@attrs.frozen
class Case:
    """`coins { ... }` inside a match"""

    value: Expr
    body: Block
    span: Span = attrs.field(default=NO_SPAN, kw_only=True, eq=False, repr=False)


@attrs.frozen
class Match:
    """`match c.suit { coins { ... } else { ... } }`"""

    subject: Expr
    cases: tuple[Case, ...]
    otherwise: Block | None
    span: Span = attrs.field(default=NO_SPAN, kw_only=True, eq=False, repr=False)


@attrs.frozen
class Attempt:
    """`attempt { ... } else { ... }`: a `fail` inside undoes everything the block did."""

    body: Block
    otherwise: Block | None
    span: Span = attrs.field(default=NO_SPAN, kw_only=True, eq=False, repr=False)


@attrs.frozen
class Together:
    """`together { ... }`: rules are checked once, after the whole block."""

    body: Block
    span: Span = attrs.field(default=NO_SPAN, kw_only=True, eq=False, repr=False)


@attrs.frozen
class Secret:
    """`secret { ... }`: other players see only that a secret choice was made, not its steps."""

    body: Block
    span: Span = attrs.field(default=NO_SPAN, kw_only=True, eq=False, repr=False)


@attrs.frozen
class Fail:
    """`fail "no card to place"`"""

    message: str
    span: Span = attrs.field(default=NO_SPAN, kw_only=True, eq=False, repr=False)


@attrs.frozen
class Require:
    """`require len(hand[p]) > 0 else "your hand is empty"`"""

    condition: Expr
    message: str
    span: Span = attrs.field(default=NO_SPAN, kw_only=True, eq=False, repr=False)


@attrs.frozen
class Choose:
    """`let c = choose one from hand[p] by p prompt "Discard a card"`

    quantity: one | exactly N | upto N | any | order.
    """

    target: str
    quantity: str
    count: Expr | None
    source: Expr
    by: Expr | None
    prompt: StrLit | Template | None
    span: Span = attrs.field(default=NO_SPAN, kw_only=True, eq=False, repr=False)


@attrs.frozen
class Option:
    """`option "Buy a card" when len(row) > 0 { ... }`"""

    label: str
    when: Expr | None
    body: Block
    span: Span = attrs.field(default=NO_SPAN, kw_only=True, eq=False, repr=False)


@attrs.frozen
class Menu:
    """`choose by p prompt "Your action" { option ... option ... }`"""

    by: Expr | None
    prompt: StrLit | Template | None
    options: tuple[Option, ...]
    span: Span = attrs.field(default=NO_SPAN, kw_only=True, eq=False, repr=False)


@attrs.frozen
class Use:
    """`use sell(p) upto n by p`: offer every tier up to n (and none) to `by` (None: the ability's first
    Player parameter); the chosen tier is all or nothing."""

    ability: str
    args: tuple[Expr, ...]
    upto: Expr
    by: Expr | None = None
    span: Span = attrs.field(default=NO_SPAN, kw_only=True, eq=False, repr=False)


@attrs.frozen
class CallStmt:
    """`draw_up_to(p, 6)`"""

    name: str
    args: tuple[Expr, ...]
    span: Span = attrs.field(default=NO_SPAN, kw_only=True, eq=False, repr=False)


@attrs.frozen
class Return:
    """`return`, `return x`"""

    value: Expr | None
    span: Span = attrs.field(default=NO_SPAN, kw_only=True, eq=False, repr=False)


@attrs.frozen
class EndGame:
    """`end game`, `end game winners [p]`"""

    winners: Expr | None
    span: Span = attrs.field(default=NO_SPAN, kw_only=True, eq=False, repr=False)


@attrs.frozen
class EndUnfinished:
    """`end game unfinished "stopped after {round} rounds"`"""

    text: StrLit | Template
    span: Span = attrs.field(default=NO_SPAN, kw_only=True, eq=False, repr=False)


@attrs.frozen
class Say:
    """`say "{p} passes"`"""

    text: StrLit | Template
    span: Span = attrs.field(default=NO_SPAN, kw_only=True, eq=False, repr=False)


Stmt = (
    Let
    | Assign
    | SetVar
    | SetField
    | Move
    | Draw
    | Reveal
    | Create
    | If
    | For
    | While
    | Repeat
    | Match
    | Attempt
    | Together
    | Secret
    | Fail
    | Require
    | Choose
    | Menu
    | Use
    | CallStmt
    | Return
    | EndGame
    | EndUnfinished
    | Say
)


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
    """`zone hand[Player]: Ware owner`, `zone deck: Ware hidden shuffled`"""

    name: str
    keys: tuple[TypeExpr, ...]
    card_type: str
    visibility: str
    shuffled: bool
    span: Span = attrs.field(default=NO_SPAN, kw_only=True, eq=False, repr=False)


@attrs.frozen
class VarDecl:
    """`var tokens[Player]: int = 0 public`"""

    name: str
    keys: tuple[TypeExpr, ...]
    type: TypeExpr
    init: Expr
    visibility: str
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
)


@attrs.frozen
class Rulebook:
    """A whole file: a sequence of declarations."""

    decls: tuple[Decl, ...]
    span: Span = attrs.field(default=NO_SPAN, kw_only=True, eq=False, repr=False)
