"""What each operation of an expression does once its operands are evaluated: the one definition of it.

The generated code (compile/body.py, compile/calls.py) does the common case of each operation inline
and hands anything unusual (a value of another kind, an index out of range, a number too large, a
field of a card class not seen before) to the function here, with the operands' values it has
already computed: the function gives the same value, or raises the same located error, and charges
what the operation charges, never the operands again. The tests' tree-walk (tests/oracle/) evaluates the
operands and calls the same functions, so the two cannot disagree about an operation.

Each function takes the game (the `Context` protocol: `Game` has it all), the node
(which locates its errors and names its operator) and the operands' values.
"""

from __future__ import annotations

from typing import Any

from ..language.builtins import BUILTINS, LIST_BUDGET, weight
from ..language.values import CardRef, Record, contains, same
from ..syntax import ast as s
from .basics import VALUE_ERRORS, attrs_fields
from .context import Context


def field(g: Context, e: s.FieldAccess, v: Any) -> Any:
    """`v.name`: a declared field of a card, a record's field, else the located error."""
    name = e.name
    if v.__class__ is CardRef:
        card = g.state.cards[v.id]
        if name not in attrs_fields(card.__class__):
            raise g.runtime_error(e.span, f"{g.label(v)} has no field '{name}'")
        return getattr(card, name)
    if isinstance(v, Record):
        if not v.has(name):
            raise g.runtime_error(e.span, f"the record has no field '{name}'")
        return v.get(name)
    if v is None:
        raise g.failure(e.span, f"no card to read {name} of")
    raise g.runtime_error(e.span, f"{g.label(v)} has no field '{name}'")


def index(g: Context, e: s.Index, v: Any, i: Any) -> Any:
    """`v[i]` of a list (a zone's cards, none as empty); an index outside it fails."""
    seq = g.as_list(v, e.obj)
    if not isinstance(i, int) or not -len(seq) <= i < len(seq):
        raise g.failure(e.span, f"index {i} is outside a list of {len(seq)}")
    return seq[i]


def unknown_function(g: Context, e: s.Call) -> Exception:
    """The located error of a call of a function that is neither the rulebook's nor built in."""
    return g.runtime_error(e.span, f"unknown function '{e.name}'")


def builtin(g: Context, e: s.Call, values: list[Any]) -> Any:
    """A built-in function (docs/LANGUAGE.md; the table in builtins.py) applied to its arguments' values."""
    found = BUILTINS.get(e.name)
    if found is None:
        raise unknown_function(g, e)
    try:
        return found.run(g, e, values)  # type: ignore[arg-type]  # the game, which builtins.py knows as its `Machine` protocol
    except VALUE_ERRORS:
        raise not_taken(g, e, values) from None


def not_taken(g: Context, e: s.Call, values: list[Any]) -> Exception:
    """The located error of a built-in that cannot take these values (it raised a Python error)."""
    shown = ", ".join(g.label(v) for v in values)
    return g.runtime_error(e.span, f"{e.name}({shown}): not values {e.name} can take")


def compare(g: Context, e: s.Compare, a: Any, b: Any) -> bool:
    """`a op b`: `==` and `!=` of any values (two lists charged by their weight), an order of numbers."""
    op = e.op
    if op in ("==", "!="):
        if a.__class__ is tuple and b.__class__ is tuple:
            g.charge(min(weight(a), weight(b)), e)
        return same(a, b) is (op == "==")
    if not isinstance(a, int) or not isinstance(b, int):
        raise g.runtime_error(e.span, f"cannot compare {g.label(a)} {op} {g.label(b)}")
    return a < b if op == "<" else a > b if op == ">" else a <= b if op == "<=" else a >= b


def binary(g: Context, e: s.Binary, a: Any, b: Any) -> Any:
    """`a op b` of numbers, texts (`+`), lists and zones (`+`, `-`): `Game.arith`, at the expression."""
    return g.arith(e.op, a, b, e.left, e.right, e)


def member(g: Context, e: s.In, v: Any, collection: Any) -> bool:
    """`v in collection` (or `not in`): each element compared, charged by the value's weight."""
    items = g.as_list(collection, e.collection)
    g.charge(len(items) * weight(v), e)
    found = contains(items, v)
    return not found if e.negated else found


def query_error(g: Context, e: s.Query) -> Exception:
    """The located error of a query whose keys cannot be ordered (a Python error while it ran)."""
    return g.runtime_error(
        e.span,
        f"cannot order by these keys: {e.op} by needs keys of one kind (numbers, or values of one enumeration, ...)",
    )


def span(g: Context, e: s.RangeOp, lo: Any, hi: Any) -> tuple[Any, ...]:
    """`lo..hi`: the numbers from lo to hi, charged before the list is made and bounded."""
    if not isinstance(lo, int) or not isinstance(hi, int):
        raise g.runtime_error(e.span, f"a range needs numbers, not {g.label(lo)}..{g.label(hi)}")
    if hi - lo < LIST_BUDGET:
        g.charge(max(hi - lo + 1, 0), e)
    return g.bounded(tuple(range(lo, hi + 1)) if hi - lo < LIST_BUDGET else None, e, hi - lo + 1)


def negate(g: Context, e: s.Neg, v: Any) -> int:
    """`-v` of a number."""
    if not isinstance(v, int) or isinstance(v, bool):
        raise g.runtime_error(e.span, f"cannot negate {g.label(v)}")
    return -v
