"""The AST of types and expressions (see ast.py)."""

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

# The magnitude of a number: the largest a literal may write (parser.py) and a game compute
# (runtime/machine.py `INT_BUDGET`, beyond which a computation is called runaway).
MAX_NUMBER = 1 << 63


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
    """`[c.colour for c in hand[p] if c.value > 1]`; `[x for p in players for x in hand[p]]` is
    `flat`: its element is the inner comprehension, whose lists are joined one after another."""

    element: Expr
    var: str
    source: Expr
    condition: Expr | None
    flat: bool = False
    span: Span = attrs.field(default=NO_SPAN, kw_only=True, eq=False, repr=False)


@attrs.frozen
class Init:
    """`colour: red`"""

    name: str
    value: Expr
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
