"""The AST of statements (see ast.py)."""

from __future__ import annotations

import attrs

from ..errors import NO_SPAN, Span
from .expressions import Expr, Init, StrLit, Template

# ---------------------------------------------------------------- statements


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
class Tell:
    """`tell q which of hand[q] have colour c`: those players learn, of each of those cards, whether
    the field holds the value (a fact kept until the card moves)."""

    to: Expr
    what: Expr
    field: str
    value: Expr
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
class EndTogether:
    """`end game together won`, `end game together lost` (a cooperative game: one result for all)"""

    won: bool
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
    | Tell
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
    | EndTogether
    | Say
)
