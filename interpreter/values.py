"""Runtime values of the rulebook language and their Python representation.

| language            | Python                                  |
|---------------------|-----------------------------------------|
| int, bool, str      | int, bool, str                          |
| none                | None                                    |
| a player            | `Player` (seat index; labelled P1, P2…) |
| an enumeration value| `EnumValue` (interned per rulebook)     |
| a card              | `CardRef` (the card's id in the state)  |
| a list              | tuple (lists are immutable values)      |
| a record            | `Record`                                |
| a zone              | `ZoneRef` (name and keys)               |
| the table (chance)  | `TABLE`                                 |
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import attrs


@attrs.frozen(slots=True, order=True)
class Player:
    """A seat; P1 is seat 0."""

    index: int

    def __str__(self) -> str:
        return f"P{self.index + 1}"

    __repr__ = __str__


@attrs.frozen(slots=True, order=True)
class EnumValue:
    """A member of a declared enumeration; ordered by declaration."""

    enum: str
    index: int
    name: str = attrs.field(eq=False, order=False)

    def __str__(self) -> str:
        return self.name

    __repr__ = __str__


@attrs.frozen(slots=True, order=True)
class CardRef:
    """A card, by its id in the state (ids are given in creation order)."""

    id: int

    def __repr__(self) -> str:
        return f"#{self.id}"


@attrs.frozen(slots=True)
class ZoneRef:
    """A zone: its declared name and its keys (`hand[P1]` is ZoneRef("hand", (P1,)))."""

    name: str
    keys: tuple[Any, ...] = ()

    @property
    def key(self) -> str:
        """The zone's key in the state, e.g. `hand[P1]`."""
        return zone_key(self.name, self.keys)

    def __str__(self) -> str:
        return self.key


def zone_key(name: str, keys: tuple[Any, ...]) -> str:
    """Render a zone or variable with its keys as a stable string: `slot[P1,2,3]`."""
    if not keys:
        return name
    if len(keys) == 1:  # the common case, spelled out for speed: the same text as below
        k = keys[0]
        cls = k.__class__
        if cls is Player:
            return f"{name}[P{k.index + 1}]"
        if cls is EnumValue:
            return f"{name}[{k.name}]"
        if cls is int:
            return f"{name}[{k}]"
    return f"{name}[{','.join([_key_text(k) for k in keys])}]"


def _key_text(k: Any) -> str:
    """`label_of_plain` of one key, the common kinds first."""
    cls = k.__class__
    if cls is int:
        return str(k)
    if cls is Player:
        return f"P{k.index + 1}"
    if cls is EnumValue:
        return str(k.name)
    return label_of_plain(k)


class Record:
    """An immutable record value: `{kind: steal, vp: 2}`."""

    __slots__ = ("_fields", "_hash")
    _fields: dict[str, Any]
    _hash: int | None

    def __init__(self, fields: dict[str, Any]):
        object.__setattr__(self, "_fields", dict(fields))
        object.__setattr__(self, "_hash", None)

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
            object.__setattr__(self, "_hash", h)
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
