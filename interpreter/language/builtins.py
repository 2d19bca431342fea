"""The one table of built-in functions and names: what the checker, the runtime, explain, fuzz and
the editor know of each.

Each built-in function is one `Builtin` row: its arity, its type rule (what the checker gives a
call), its implementation (what the runtime computes), a line of documentation (editor hover)
and the English words `rulecraft explain` reads a call as. A new built-in is one row here and a
line in docs/LANGUAGE.md (`tests/test_builtins.py` checks both, and that no other table exists).

The rules and implementations see the checker and the game through the small protocols below
(`Typer`, `Machine`): the public methods this table needs, so this module imports neither.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from typing import Any, Protocol

import attrs

from ..errors import Span
from ..syntax import ast as s
from . import types as t
from .values import CardRef, EnumValue, Player, Record, ZoneRef, contains, ordered, same, sort_key, value_key

LIST_BUDGET = 100_000  # elements of one list value (ranges, concatenations, flattenings)
# An implementation charges the work it is about to do (`Machine.charge`, in the units of
# runtime/machine.py's WORK_BUDGET) before doing it: one unit for each element it reads or makes,
# and for what compares or hashes values, their weight (`weight`: a list counts its elements, a
# shared one each time it appears) and n log2 n comparisons for a sort.
# Weights are counted no further than this, more than the runtime's whole budget of work
# (runtime/machine.py, WORK_BUDGET): a weight past it always runs the budget out.
WORK_CAP = 10_000_000


def weight(value: Any, cap: int = WORK_CAP) -> int:
    """The number of elements comparing, hashing or writing a value walks: 1 for a plain value; for
    a list or record, one for itself and each element, nested ones counted each time they appear
    (so a list that holds the same large list many times weighs what it would written out). The
    walk stops past `cap`, so it costs at most `cap` steps, and the answer is then some number
    above `cap`."""
    cls = value.__class__
    if cls is not tuple and cls is not Record:
        return 1
    total, stack = 0, [value]
    while stack:
        v = stack.pop()
        items = v if v.__class__ is tuple else tuple([x for _, x in v.items()])
        total += 1 + len(items)
        if total > cap:
            return total
        stack.extend([x for x in items if x.__class__ is tuple or x.__class__ is Record])
    return total


def weights(items: Sequence[Any], cap: int = WORK_CAP) -> tuple[int, int]:
    """The total weight of these values (what reading, hashing or comparing each once walks) and the
    largest; the count stops once the total passes `cap`."""
    # (values that are neither lists nor records, the keys of most queries (an enumeration value, a number),
    # weigh 1 each: found by one pass in C, without the walk below)
    kinds = set(map(type, items))
    if tuple not in kinds and Record not in kinds:
        n = len(items)
        return (n, 1) if 0 < n <= cap else (0, 0) if n == 0 else (cap + 1, 1)
    if len(kinds) == 1 and Record not in kinds:  # (lists of plain values, as `group by [it.a, it.b]` makes)
        lengths = list(map(len, items))
        total = len(items) + sum(lengths)
        # (within the cap only: a list holding one large list many times is weighed by the walk, which stops)
        if total <= cap:
            inner = set(map(type, itertools.chain.from_iterable(items)))
            if tuple not in inner and Record not in inner:
                return total, 1 + max(lengths)
    largest = total = 0
    for v in items:
        cls = v.__class__
        if cls is tuple:  # a list of plain values (a query's key `[it.a, it.b]`) weighs 1 + its length
            w = 1 + len(v)
            for x in v:
                if x.__class__ is tuple or x.__class__ is Record:
                    w = weight(v, cap - total)
                    break
        elif cls is Record:
            w = weight(v, cap - total)
        else:
            w = 1
        total += w
        if w > largest:
            largest = w
        if total > cap:
            break
    return total, largest


def sort_work(items: Sequence[Any]) -> int:
    """The work of sorting these values: reading each, and n log2 n comparisons each as costly as
    the largest value."""
    # (values that are neither lists nor records, the keys of most queries, weigh 1 each: `weights`' first
    # case, without its call: a `group by` or `sorted by` charges its keys at every evaluation)
    kinds = set(map(type, items))
    if tuple not in kinds and Record not in kinds:
        n = len(items)
        if n <= WORK_CAP:
            return n + n * n.bit_length()
    total, largest = weights(items)
    return total + len(items) * len(items).bit_length() * largest


def _read(g: Machine, values: list[Any], e: s.Call) -> tuple[Any, ...]:
    """The first argument as a list, its reading (one unit an element) charged."""
    seq = g.as_list(values[0], e.args[0])
    g.charge(len(seq), e)
    return seq


class Typer(Protocol):
    """What a type rule asks of the checker."""

    def error(self, span: Span, message: str, hint: str | None = None) -> None: ...

    def expect(self, have: t.T, want: t.T, span: Span, what: str) -> None: ...

    def collection(self, have: t.T, span: Span, what: str = "this") -> t.T: ...


class Machine(Protocol):
    """What an implementation asks of the running game."""

    work_left: int  # what is left of the budget of work (`charge` counts it down)

    @property
    def state(self) -> Any: ...

    @property
    def program(self) -> Any: ...

    @property
    def players(self) -> tuple[Player, ...]: ...

    def label(self, v: Any) -> str: ...

    def as_list(self, v: Any, e: s.Expr) -> tuple[Any, ...]: ...

    def zone_value(self, v: Any, e: s.Expr) -> ZoneRef: ...

    def zone_of_card(self, card: CardRef) -> ZoneRef: ...

    def number(self, value: int, e: s.Expr | s.Stmt) -> int: ...

    def bounded(self, value: tuple[Any, ...] | None, e: s.Expr | s.Stmt, size: int) -> tuple[Any, ...]: ...

    def charge(self, work: int, at: Any) -> None: ...

    def runtime_error(self, span: Span, message: str, hint: str | None = None) -> Exception: ...

    def failure(self, span: Span, reason: str) -> Exception: ...


# A type rule: the checker, the call, its arguments' types (arity already checked) -> the call's type.
TypeRule = Callable[[Typer, s.Call, list[t.T]], t.T]
# An implementation: the game, the call, its arguments' values -> the call's value. A TypeError (or
# the like) it raises is reported by the caller as values the built-in cannot take.
Implementation = Callable[[Machine, s.Call, list[Any]], Any]


@attrs.frozen
class Builtin:
    """A built-in function: its arity, type rule, implementation, documentation and English words."""

    min_args: int
    max_args: int
    doc: str
    words: str  # how a call reads in `explain` ({0}, {1}: the arguments' readings)
    type_rule: TypeRule
    run: Implementation
    words_two: str | None = None  # how a call with two arguments reads, if not as `words`


@attrs.frozen
class BuiltinName:
    """A built-in name (not a function): its type and documentation."""

    type: t.T
    doc: str


BUILTIN_NAMES: dict[str, BuiltinName] = {
    "players": BuiltinName(t.list_of(t.PLAYER), "all the players, in seat order (a list of Player)"),
    "table": BuiltinName(t.TABLE, "the table: the one who answers chance decisions (`by table`)"),
    "player_count": BuiltinName(t.INT, "the number of players in this game (an int)"),
}


# ---------------------------------------------------------------------------- type rules


def _int(ck: Typer, e: s.Call, types: list[t.T]) -> t.T:
    return t.INT


def _bool(ck: Typer, e: s.Call, types: list[t.T]) -> t.T:
    return t.BOOL


def _counted(ck: Typer, e: s.Call, types: list[t.T]) -> t.T:
    ck.collection(types[0], e.args[0].span, f"what {e.name} counts")
    return t.INT


def _extreme(ck: Typer, e: s.Call, types: list[t.T]) -> t.T:
    if len(types) == 1:
        ck.collection(types[0], e.args[0].span, f"what {e.name} reads")
    return t.INT


def _end_card(ck: Typer, e: s.Call, types: list[t.T]) -> t.T:
    first = types[0]
    if first.kind not in ("zone", "any"):
        ck.error(e.args[0].span, f"{e.name} reads a zone, not {first}")
    card = first.element or t.ANY if first.kind == "zone" else t.ANY
    return t.list_of(card) if len(types) == 2 else card


def _element(ck: Typer, e: s.Call, types: list[t.T]) -> t.T:
    return ck.collection(types[0], e.args[0].span, f"what {e.name} reads")


def _same_list(ck: Typer, e: s.Call, types: list[t.T]) -> t.T:
    return t.list_of(ck.collection(types[0], e.args[0].span, f"what {e.name} reads"))


def _flattened(ck: Typer, e: s.Call, types: list[t.T]) -> t.T:
    inner = ck.collection(types[0], e.args[0].span, "what flatten reads")
    return t.list_of(t.element_of(inner) or t.ANY)


def _cyclic(ck: Typer, e: s.Call, types: list[t.T]) -> t.T:
    first = types[0]
    if first.kind not in ("player", "enum", "any"):
        ck.error(e.args[0].span, f"{e.name} takes a player or an enumeration value, not {first}")
    return first


def _seat_order(ck: Typer, e: s.Call, types: list[t.T]) -> t.T:
    ck.expect(types[0], t.PLAYER, e.args[0].span, "the first player")
    return t.list_of(t.PLAYER)


def _zone(ck: Typer, e: s.Call, types: list[t.T]) -> t.T:
    return t.zone_of(t.ANY_CARD)


def _anything(ck: Typer, e: s.Call, types: list[t.T]) -> t.T:
    return t.ANY


def _text(ck: Typer, e: s.Call, types: list[t.T]) -> t.T:
    return t.STR


# ---------------------------------------------------------------------------- implementations


def _len(g: Machine, e: s.Call, values: list[Any]) -> Any:
    first = values[0]
    if isinstance(first, ZoneRef):
        return len(g.state.zones.get(first.key, ()))
    return len(g.as_list(first, e.args[0]))


def _sum(g: Machine, e: s.Call, values: list[Any]) -> Any:
    return g.number(sum(_read(g, values, e)), e)


_INTS = frozenset((int,))


def _min_max(g: Machine, e: s.Call, values: list[Any]) -> Any:
    seq = g.as_list(values[0], e.args[0]) if len(values) == 1 else tuple(values)
    if set(map(type, seq)) <= _INTS:  # (the commonest: whole numbers, each of weight 1, in Python's order)
        g.work_left -= 2 * len(seq)  # (`charge`, written out)
        if g.work_left < 0:
            g.charge(0, e)
        return (min if e.name == "min" else max)(seq) if seq else 0
    g.charge(2 * weights(seq)[0], e)  # each compared once or twice
    if not seq:
        return 0
    return ordered(min if e.name == "min" else max, seq)


def _abs(g: Machine, e: s.Call, values: list[Any]) -> Any:
    return abs(values[0])


def _top_bottom(g: Machine, e: s.Call, values: list[Any]) -> Any:
    zone = g.zone_value(values[0], e.args[0])
    if g.program.zones[zone.name].shuffled:
        raise g.runtime_error(e.span, f"{zone.key} is shuffled: it has no {e.name}; draw from it instead")
    ids = g.state.zones.get(zone.key, [])
    if len(values) == 2:
        n = values[1]
        return tuple(CardRef(i) for i in reversed(ids[max(0, len(ids) - n) :])) if n > 0 else ()
    if not ids:
        return None
    return CardRef(ids[-1] if e.name == "top" else ids[0])


def _first(g: Machine, e: s.Call, values: list[Any]) -> Any:
    seq = g.as_list(values[0], e.args[0])
    return seq[0] if seq else None


def _last(g: Machine, e: s.Call, values: list[Any]) -> Any:
    seq = g.as_list(values[0], e.args[0])
    return seq[-1] if seq else None


def _unique(g: Machine, e: s.Call, values: list[Any]) -> Any:
    seq = g.as_list(values[0], e.args[0])
    return seq[0] if len(seq) == 1 else None


def _distinct(g: Machine, e: s.Call, values: list[Any]) -> Any:
    # Linear: each value is looked up by its key (hashing charged as a sort's reading of the values);
    # only values that cannot be a key are compared with those kept before them.
    seq = g.as_list(values[0], e.args[0])
    g.charge(weights(seq)[0], e)
    seen: set[Any] = set()
    unkeyed: list[Any] = []
    out: list[Any] = []
    for v in seq:
        k = value_key(v)
        if k is None:
            if contains(unkeyed, v):
                continue
            unkeyed.append(v)
        elif k in seen:
            continue
        else:
            seen.add(k)
        out.append(v)
    return tuple(out)


def _sorted(g: Machine, e: s.Call, values: list[Any]) -> Any:
    seq = g.as_list(values[0], e.args[0])
    g.charge(sort_work(seq), e)
    return tuple(sorted(seq, key=sort_key))


def _reversed(g: Machine, e: s.Call, values: list[Any]) -> Any:
    return tuple(reversed(_read(g, values, e)))


def _flatten(g: Machine, e: s.Call, values: list[Any]) -> Any:
    seqs = [g.as_list(seq, e.args[0]) for seq in _read(g, values, e)]
    size = sum(len(seq) for seq in seqs)
    g.charge(size, e)
    return g.bounded(tuple(x for seq in seqs for x in seq) if size <= LIST_BUDGET else None, e, size)


def _any(g: Machine, e: s.Call, values: list[Any]) -> Any:
    return any(_read(g, values, e))


def _all(g: Machine, e: s.Call, values: list[Any]) -> Any:
    return all(_read(g, values, e))


def _next_prev(g: Machine, e: s.Call, values: list[Any]) -> Any:
    first = values[0]
    step = values[1] if len(values) == 2 else 1
    if e.name == "prev":
        step = -step
    if isinstance(first, Player):
        players = g.players
        return players[(first.index + step) % len(players)]
    if isinstance(first, EnumValue):
        members = g.program.enums[first.enum]
        return members[(first.index + step) % len(members)]
    raise g.runtime_error(e.span, f"{e.name} takes a player or an enumeration value")


def _seat(g: Machine, e: s.Call, values: list[Any]) -> Any:
    if not isinstance(values[0], Player):
        raise TypeError("seat takes a player")
    return values[0].index + 1


def _players_from(g: Machine, e: s.Call, values: list[Any]) -> Any:
    if not isinstance(values[0], Player):
        raise TypeError("players_from takes a player")
    i, players = values[0].index, g.players
    return players[i:] + players[:i]


def _zone_of(g: Machine, e: s.Call, values: list[Any]) -> Any:
    if not isinstance(values[0], CardRef):
        raise g.failure(e.span, "zone_of needs a card")
    return g.zone_of_card(values[0])


def _key_of(g: Machine, e: s.Call, values: list[Any]) -> Any:
    return g.zone_value(values[0], e.args[0]).keys[values[1]]


def _label(g: Machine, e: s.Call, values: list[Any]) -> Any:
    return g.label(values[0])


def _index_of(g: Machine, e: s.Call, values: list[Any]) -> Any:
    seq = g.as_list(values[0], e.args[0])
    g.charge(len(seq) * weight(values[1]), e)
    for i, v in enumerate(seq):
        if same(v, values[1]):
            return i
    return -1


def _ord(g: Machine, e: s.Call, values: list[Any]) -> Any:
    if not isinstance(values[0], EnumValue):
        raise TypeError("ord takes an enumeration value")
    return values[0].index


# ---------------------------------------------------------------------------- the table

B = Builtin
BUILTINS: dict[str, Builtin] = {
    "len": B(1, 1, "number of elements of a list or cards in a zone", "the number of {0}", _counted, _len),
    "count": B(1, 1, "same as len", "the number of {0}", _counted, _len),
    "sum": B(1, 1, "sum of a list of numbers", "the total of {0}", _int, _sum),
    "min": B(1, 9, "smallest of a list, or of the arguments", "the smallest of {0}", _extreme, _min_max),
    "max": B(1, 9, "largest of a list, or of the arguments", "the largest of {0}", _extreme, _min_max),
    "abs": B(1, 1, "absolute value", "the absolute value of {0}", _int, _abs),
    "top": B(
        1,
        2,
        "the top card of a zone (none if empty), or a list of its top n cards",
        "the top card of {0}",
        _end_card,
        _top_bottom,
        words_two="the top {1} cards of {0}",
    ),
    "bottom": B(1, 1, "the bottom card of a zone (none if empty)", "the bottom card of {0}", _end_card, _top_bottom),
    "first": B(1, 1, "the first element of a list (none if empty)", "the first of {0}", _element, _first),
    "last": B(1, 1, "the last element of a list (none if empty)", "the last of {0}", _element, _last),
    "unique": B(1, 1, "the only element of a list of one, else none", "the only one of {0}", _element, _unique),
    "distinct": B(1, 1, "a list without repeats, first occurrence kept", "{0} without repeats", _same_list, _distinct),
    "sorted": B(1, 1, "a list in ascending order", "{0} in order", _same_list, _sorted),
    "reversed": B(1, 1, "a list in reverse order", "{0} in reverse order", _same_list, _reversed),
    "flatten": B(1, 1, "a list of lists joined into one list", "all of {0} together", _flattened, _flatten),
    "any": B(1, 1, "whether some element of a list is true", "any of {0} holds", _bool, _any),
    "all": B(1, 1, "whether every element of a list is true", "all of {0} hold", _bool, _all),
    "next": B(
        1,
        2,
        "the next player clockwise, or the next value of an enumeration (cyclic); optional step",
        "the one after {0}",
        _cyclic,
        _next_prev,
        words_two="the {1}th after {0}",
    ),
    "prev": B(
        1,
        1,
        "the previous player, or the previous enumeration value (cyclic)",
        "the one before {0}",
        _cyclic,
        _next_prev,
    ),
    "seat": B(1, 1, "a player's seat number, 1 for P1", "the seat of {0}", _int, _seat),
    "players_from": B(
        1,
        1,
        "all players in seat order, starting with the given one",
        "the players in seat order from {0}",
        _seat_order,
        _players_from,
    ),
    "zone_of": B(1, 1, "the zone a card is in", "the zone {0} is in", _zone, _zone_of),
    "key_of": B(
        2, 2, "the i-th key (from 0) of a zone, e.g. the owner of hand[p]", "key {1} of {0}", _anything, _key_of
    ),
    "label": B(1, 1, "the label of a value as a string", "the name of {0}", _text, _label),
    "index_of": B(
        2, 2, "position (from 0) of a value in a list, -1 if absent", "the position of {1} in {0}", _int, _index_of
    ),
    "ord": B(1, 1, "the position (from 0) of an enumeration value in its declaration", "the rank of {0}", _int, _ord),
}
del B


# What a call gives, by its type rule (compile/depth.py bounds a value's depth with it): no list
# ("scalar"), a zone's cards or the players ("cards"), an element of its list or one of its arguments
# ("element"), a list of its list's elements ("same"), the elements of its list's lists ("flatten").
_SHAPES: dict[TypeRule, str] = {
    _int: "scalar",
    _bool: "scalar",
    _counted: "scalar",
    _text: "scalar",
    _cyclic: "scalar",
    _end_card: "cards",
    _seat_order: "cards",
    _zone: "cards",
    _extreme: "element",
    _element: "element",
    _same_list: "same",
    _flattened: "flatten",
}


def result_shape(builtin: Builtin) -> str | None:
    """What a built-in's value is made of (`_SHAPES`), or None where nothing is said (`key_of`)."""
    return _SHAPES.get(builtin.type_rule)


def arity_text(builtin: Builtin) -> str:
    """`1`, or `1 to 2`: how many arguments a built-in takes."""
    if builtin.min_args == builtin.max_args:
        return str(builtin.min_args)
    return f"{builtin.min_args} to {builtin.max_args}"


def call_words(name: str, texts: Sequence[str]) -> str | None:
    """How a call of a built-in reads in English, its arguments read as `texts` (None: no words for it)."""
    builtin = BUILTINS.get(name)
    if builtin is None or len(texts) > 2:
        return None
    if name in ("min", "max") and len(texts) > 1:
        return builtin.words.format(" and ".join(texts))
    if len(texts) == 2 and builtin.words_two is not None:
        return builtin.words_two.format(*texts)
    return builtin.words.format(*texts)
