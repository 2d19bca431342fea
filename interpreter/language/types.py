"""The static types the checker gives expressions."""

from __future__ import annotations

import attrs


@attrs.frozen
class T:
    """A type: a kind (int, bool, str, none, player, enum, card, list, zone, record, table, any)
    with a name (enum or card type) and an element type (list, zone)."""

    kind: str
    name: str | None = None
    element: T | None = None

    def __str__(self) -> str:
        if self.kind == "list":
            return f"list of {self.element}"
        if self.kind == "zone":
            return f"zone of {self.element}"
        if self.kind in ("enum", "card") and self.name:
            return self.name
        if self.kind == "card":
            return "card"
        return {"player": "Player"}.get(self.kind, self.kind)


ANY = T("any")
INT = T("int")
BOOL = T("bool")
STR = T("str")
NONE = T("none")
PLAYER = T("player")
TABLE = T("table")
RECORD = T("record")
ANY_CARD = T("card")


def list_of(element: T) -> T:
    return T("list", element=element)


def zone_of(element: T) -> T:
    return T("zone", element=element)


def element_of(t: T) -> T | None:
    """The element type of a collection (list or zone), ANY for ANY, None if not a collection."""
    if t.kind in ("list", "zone"):
        return t.element or ANY
    if t.kind == "any":
        return ANY
    return None


def compatible(have: T, want: T) -> bool:
    """Whether a value of type `have` may stand where `want` is expected."""
    if have.kind == "any" or want.kind == "any" or have.kind == "none":
        return True
    if have.kind == "zone" and want.kind == "list":
        return compatible(have.element or ANY, want.element or ANY)
    if have.kind != want.kind:
        return False
    if have.kind in ("enum", "card"):
        return have.name is None or want.name is None or have.name == want.name
    if have.kind in ("list", "zone"):
        return compatible(have.element or ANY, want.element or ANY)
    return True


def join(a: T, b: T) -> T:
    """The type of a value that is either an `a` or a `b`."""
    if a.kind == "none":
        return b
    if b.kind == "none" or a == b:
        return a
    if a.kind == b.kind == "card":
        return ANY_CARD
    if a.kind == b.kind and a.kind in ("list", "zone"):
        return T(a.kind, element=join(a.element or ANY, b.element or ANY))
    if {a.kind, b.kind} == {"list", "zone"}:
        return list_of(join(a.element or ANY, b.element or ANY))
    return ANY
