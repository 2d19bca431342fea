"""Runtime values of the rulebook language and their Python representation.

| language            | Python                                  |
|---------------------|-----------------------------------------|
| int, bool, str      | int, bool, str                          |
| none                | None                                    |
| a player            | `Player` (a seat, interned; P1, P2…)    |
| an enumeration value| `EnumValue` (interned)                  |
| a card              | `CardRef` (a card's id, interned)       |
| a list              | tuple (lists are immutable values)      |
| a record            | `Record`                                |
| a zone              | `ZoneRef` (name and keys)               |
| the table (chance)  | `TABLE`                                 |
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

import attrs

# Players and cards are interned: there is one object per seat and one per card id, made in `__new__`
# (which cattrs, `attrs.evolve`, pickle and copy all go through). Equality is then identity and the hash
# is object's, both done in C, where attrs' generated `__eq__` and `__hash__` were a Python call each:
# players and cards are the commonest parts of dictionary and memo keys (`('occupied', P1, 1, 2)`), so
# those calls were several percent of a game. Being objects of their own class, a player or a card still
# equals no number or other value. The hash varies from process to process (as attrs' did, which mixes
# in a string's hash): no set of players or cards is ever iterated where the order could be seen
# (tests/test_values.py plays seeded games under two opposite hash orders and compares them).
# Nor do they order themselves with `<`: a class with a comparison method written in Python has all six
# comparisons done by a slow general path, `==` too (some 100 ns where object's own takes 10), and `==`
# is what `in`, `list.index` and a memo key's comparison ask of every element. Sorting, `min` and `max`
# order them by `order_key` instead: a player by seat, a card by id, an enumeration value by enumeration
# and declaration, and never one kind against another (a TypeError, as `<` gave).
_PLAYERS: dict[int, Player] = {}
_CARDS: dict[int, CardRef] = {}


def _intern(cls: type[Any], made: dict[int, Any], field: str, value: int) -> Any:
    """The one object of `cls` whose `field` is `value`, made and kept in `made` on first use."""
    new = object.__new__(cls)
    object.__setattr__(new, field, value)
    return made.setdefault(value, new)


@attrs.frozen(slots=True, eq=False, init=False)
class Player:
    """A seat; P1 is seat 0."""

    index: int

    def __new__(cls, index: int) -> Player:
        made = _PLAYERS.get(index)
        return made if made is not None else _intern(cls, _PLAYERS, "index", index)

    def __reduce__(self) -> tuple[type[Player], tuple[int]]:  # unpickled and copied through `__new__`
        return Player, (self.index,)

    def __str__(self) -> str:
        return f"P{self.index + 1}"

    __repr__ = __str__


_ENUM_VALUES: dict[tuple[str, int, str, str], EnumValue] = {}


@attrs.frozen(slots=True, eq=False, init=False)
class EnumValue:
    """A member of a declared enumeration; ordered by declaration (`order_key`).

    Interned like `Player`: one object per enumeration, position, name and key, so that equality
    is identity and the hash object's (enumeration values are the commonest `group by` keys)."""

    enum: str
    index: int
    name: str
    # How the value is written in a zone or variable key: its name, or `Enum.name` where the name
    # alone could be read as something else (set by the checker, see `zone_key`).
    key: str

    def __new__(cls, enum: str, index: int, name: str, key: str | None = None) -> EnumValue:
        whole = (enum, index, name, name if key is None else key)
        made = _ENUM_VALUES.get(whole)
        if made is None:
            made = object.__new__(cls)
            for field, value in zip(("enum", "index", "name", "key"), whole, strict=True):
                object.__setattr__(made, field, value)
            made = _ENUM_VALUES.setdefault(whole, made)
        return made

    def __reduce__(self) -> tuple[type[EnumValue], tuple[str, int, str, str]]:  # copied through `__new__`
        return EnumValue, (self.enum, self.index, self.name, self.key)

    def __str__(self) -> str:
        return self.name

    __repr__ = __str__


@attrs.frozen(slots=True, eq=False, init=False)
class CardRef:
    """A card, by its id in the state (ids are given in creation order); interned like `Player`."""

    id: int

    def __new__(cls, id: int) -> CardRef:
        made = _CARDS.get(id)
        return made if made is not None else _intern(cls, _CARDS, "id", id)

    def __reduce__(self) -> tuple[type[CardRef], tuple[int]]:  # unpickled and copied through `__new__`
        return CardRef, (self.id,)

    def __repr__(self) -> str:
        return f"#{self.id}"


@attrs.define(unsafe_hash=True, init=False)
class ZoneRef:
    """A zone: its declared name and its keys (`hand[P1]` is ZoneRef("hand", (P1,))).

    A value, never changed once made, though not declared frozen: statements make one at every
    move, and attrs' frozen initializer costs nearly three times as much. Equal and hashed by both.
    `key`, the zone's key in the state (`hand[P1]`), is written when it is made: every move, draw
    and creation reads it, most of them of references made once for every game (compile/body.py)."""

    name: str
    keys: tuple[Any, ...] = ()
    key: str = attrs.field(default="", eq=False, hash=False, repr=False)

    def __init__(self, name: str, keys: tuple[Any, ...] = ()):
        self.name, self.keys, self.key = name, keys, zone_key(name, keys)

    def __str__(self) -> str:
        return self.key


def zone_key(name: str, keys: tuple[Any, ...]) -> str:
    """Render a zone or variable with its keys as a stable string: `slot[P1,2,3]`.

    The text is the zone's (or variable's) key in the state and what traces and views show. Each
    kind of value is written so that no two values share a text, and `parse_key` reads the values
    back: a number `2`, a player `P1`, a card `#12`, an enumeration value `red` (`Colour.red` when
    the name alone could be read as another value), a text in quotes `"P1"`, `true`, `false`,
    `none`, and lists and records of these.
    """
    if not keys:
        return name
    if len(keys) == 1:  # the common case, spelled out for speed: the same text as below
        k = keys[0]
        cls = k.__class__
        if cls is Player:
            return f"{name}[P{k.index + 1}]"
        if cls is EnumValue:
            return f"{name}[{k.key}]"
        if cls is int:
            return f"{name}[{k}]"
    return f"{name}[{','.join([_key_text(k) for k in keys])}]"


def _key_text(k: Any) -> str:
    """How one key value is written in `zone_key`, the common kinds first."""
    cls = k.__class__
    if cls is int:
        return str(k)
    if cls is Player:
        return f"P{k.index + 1}"
    if cls is EnumValue:
        return str(k.key)
    if cls is str:
        return json.dumps(k, ensure_ascii=False)
    if cls is tuple:
        return "[" + ", ".join(_key_text(x) for x in k) + "]"
    if cls is Record:
        return "{" + ", ".join(f"{f}: {_key_text(x)}" for f, x in k.items()) + "}"
    return label_of_plain(k)  # a card (#12), true, false, none


_KEY_WORD = re.compile(r"-?[0-9]+|#[0-9]+|[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)?")
_SEAT = re.compile(r"P[1-9][0-9]*")


@functools.lru_cache(maxsize=4096)
def seat_of_key(key: str) -> int | None:
    """The seat (0 for P1) of a zone or variable key written by `zone_key` whose first key value is a
    player (`tableau[P1]`, `slot[P2,1,3]`); None for any other key."""
    _, bracket, rest = key.partition("[")
    first = rest.split(",", 1)[0]
    if first.endswith("]") and "," not in rest:
        first = first[:-1]
    digits = first[1:]
    if not bracket or first[:1] != "P" or not digits.isdigit() or digits[0] == "0":
        return None
    return int(digits) - 1


def parse_key(key: str, enum_value: Any) -> tuple[str, tuple[Any, ...]]:
    """The name and the key values of a zone or variable key written by `zone_key` (`slot[P1,2,3]`).

    `enum_value(text)` is the enumeration value a word names (`red`, `Colour.red`), or None.
    """
    name, bracket, rest = key.partition("[")
    if not bracket:
        return name, ()
    values: list[Any] = []
    i = 0
    try:
        while True:
            value, i = _parse_key_value(rest, i, enum_value)
            values.append(value)
            if rest[i] == "]" and i == len(rest) - 1:
                return name, tuple(values)
            if rest[i] != ",":
                raise ValueError(f"not a key: {key!r}")
            i += 1  # the comma between keys
    except IndexError:
        raise ValueError(f"not a key: {key!r}") from None


def _parse_key_value(text: str, i: int, enum_value: Any) -> tuple[Any, int]:
    """One value written by `_key_text`, from text[i]; the value and the index after it."""
    ch = text[i]
    if ch == '"':
        return json.JSONDecoder().raw_decode(text, i)
    if ch in "[{":
        close, items, fields = ("]" if ch == "[" else "}"), [], {}
        i += 1
        while text[i] != close:
            if close == "}":
                field, _, _ = text[i:].partition(": ")
                i += len(field) + 2
            value, i = _parse_key_value(text, i, enum_value)
            if close == "}":
                fields[field] = value
            else:
                items.append(value)
            if text.startswith(", ", i):
                i += 2
        return (tuple(items) if close == "]" else Record(fields)), i + 1
    m = _KEY_WORD.match(text, i)
    if m is None:
        raise ValueError(f"not a key: {text!r}")
    word = m.group()
    literal: Any
    if word[0] == "#":
        literal = CardRef(int(word[1:]))
    elif word[0] == "-" or word[0].isdigit():
        literal = int(word)
    elif word in _WORDS:
        literal = _WORDS[word]
    elif _SEAT.fullmatch(word):
        literal = Player(int(word[1:]) - 1)
    else:
        literal = enum_value(word)
        if literal is None:
            raise ValueError(f"not a key: {word!r}")
    return literal, m.end()


_WORDS = {"true": True, "false": False, "none": None}


class Record:
    """An immutable record value: `{kind: steal, vp: 2}`."""

    __slots__ = ("_fields", "_hash")
    _fields: dict[str, Any]
    _hash: int | None

    def __init__(self, fields: dict[str, Any]):
        # (plain stores to the slots: half the cost of `object.__setattr__`, and a record is made for each
        # record literal a rulebook's expressions compute)
        self._fields = dict(fields)
        self._hash = None

    def get(self, name: str) -> Any:
        return self._fields[name]

    def has(self, name: str) -> bool:
        return name in self._fields

    def items(self) -> Iterator[tuple[str, Any]]:
        return iter(self._fields.items())

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Record) and self._fields == other._fields

    def __hash__(self) -> int:
        h = self._hash
        if h is None:  # a record never changes: its hash is computed once
            h = hash(tuple(sorted(self._fields.items(), key=lambda kv: kv[0])))
            self._hash = h
        return h

    def __repr__(self) -> str:
        return "{" + ", ".join(f"{k}: {label_of_plain(v)}" for k, v in self._fields.items()) + "}"


class _Table:
    """The table: who answers chance decisions."""

    def __repr__(self) -> str:
        return "table"


TABLE = _Table()


def label_of_plain(value: Any) -> str:
    """Label a value that needs no state to be read (players, enum values, numbers, lists)."""
    if value is None:
        return "none"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, tuple):
        return "[" + ", ".join(label_of_plain(v) for v in value) + "]"
    return str(value)


FLAT = 64  # a list or record of at most this many elements, none a list or record, is written at once


def flat_label(value: tuple[Any, ...] | Record, label: Callable[[Any], str]) -> str | None:
    """The label of a short list or record holding no list or record (most values a trace writes), written
    at once, as evaluate.py (`_label_of_value`) writes it piece by piece; None for any other value."""
    if isinstance(value, tuple):
        if len(value) > FLAT:
            return None
        parts = []
        for v in value:
            if v.__class__ is tuple or v.__class__ is Record:
                return None
            parts.append(label(v))
        return "[" + ", ".join(parts) + "]"
    fields = list(value.items())
    if len(fields) > FLAT:
        return None
    parts = []
    for name, v in fields:
        if v.__class__ is tuple or v.__class__ is Record:
            return None
        parts.append(f"{name}: {label(v)}")
    return "{" + ", ".join(parts) + "}"


def same(a: Any, b: Any) -> bool:
    """Whether two values are equal in the language: as in Python, but `true` is not `1`."""
    if a is b:  # every value equals itself (players, cards and enumeration values are interned)
        return True
    if (a.__class__ is bool) is not (b.__class__ is bool):  # true is not 1 (bool has no subclasses)
        return False
    return bool(a == b)


def contains(seq: Iterable[Any], v: Any) -> bool:
    """Whether a value is in a sequence, by `same`."""
    is_bool = v.__class__ is bool
    for x in seq:  # noqa: SIM110 -- `same(x, v)` inlined: a loop is faster than any() over a generator
        if x is v or ((x.__class__ is bool) is is_bool and x == v):
            return True
    return False


def value_key(v: Any) -> Any:
    """A dictionary key that equals another value's key exactly when the values are `same` (true is
    not 1), or None for a value that cannot be a key: what lets `distinct` and `-` on lists run in
    linear time rather than compare every pair."""
    try:
        hash(v)
    except TypeError:
        return None
    return (v.__class__ is bool, v)


def kept_among(values: Sequence[Any], among: Sequence[Any], without: Sequence[Any]) -> list[Any]:
    """The values, in order, that are in `among` and not in `without`, by `same` (as `contains` tests
    them): by sets of their `value_key`s when every value has one, else one by one."""
    kinds = set(map(type, values))
    kinds.update(map(type, among), map(type, without))
    if bool not in kinds:  # (no boolean, so no `true` beside a 1: a value is its own key, if it has one)
        try:
            pool, out = set(among), set(without)
            return [v for v in values if v in pool and v not in out]
        except TypeError:  # (a value that cannot be a key: as below)
            pass
    keys = [value_key(v) for v in values]
    pool, out = {value_key(v) for v in among}, {value_key(v) for v in without}
    if None in pool or None in out or None in keys:  # a value that cannot be a key
        return [v for v in values if contains(among, v) and not contains(without, v)]
    return [v for v, k in zip(values, keys, strict=True) if k in pool and k not in out]


def sort_key(v: Any) -> Any:
    """The key `sorted` orders values by: none first, then players, enumeration values and cards, then the rest."""
    if isinstance(v, tuple):
        return tuple(sort_key(x) for x in v)
    if isinstance(v, Player | EnumValue | CardRef):
        return (1, order_key(v))
    if v is None:
        return (0, 0)
    return (2, v)


def order_key(v: Any) -> Any:
    """What orders a value with `<` (`min`, `max`, `max by`): a player, a card or an enumeration value by
    its rank among its kind (`_Rank`), a list by its elements' keys, anything else itself."""
    cls = v.__class__
    if cls is Player:
        return _Rank(0, v.index)
    if cls is CardRef:
        return _Rank(1, v.id)
    if cls is EnumValue:
        return _Rank(2, (v.enum, v.index))
    if cls is tuple:
        return tuple([order_key(x) for x in v])
    return v


def ordered(pick: Callable[..., Any], values: Iterable[Any]) -> Any:
    """`min` or `max` of language values: Python's own order, and players, cards and enumeration values
    by `order_key` (which Python's order refuses: they have no `<`)."""
    values = tuple(values)
    try:
        return pick(values)
    except TypeError:
        return pick(values, key=order_key)


@functools.total_ordering
class _Rank:
    """A player's, a card's or an enumeration value's place among its kind (`order_key`); not comparable
    with another kind's, as the values were not."""

    __slots__ = ("kind", "rank")

    def __init__(self, kind: int, rank: Any):
        self.kind, self.rank = kind, rank

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Rank) and other.kind == self.kind and other.rank == self.rank

    def __hash__(self) -> int:
        return hash((self.kind, self.rank))

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, _Rank) or other.kind != self.kind:
            return NotImplemented
        return bool(self.rank < other.rank)
