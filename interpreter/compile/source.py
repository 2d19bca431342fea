"""The Python text that generated code spells for a rulebook's names, keys and literals.

Safe generation (compile/generate.py): no text of a rulebook reaches the generated source except as a
`repr()` literal or, here, as an attribute name that can be read as nothing else.
"""

from __future__ import annotations

import keyword
import re
from collections.abc import Callable, Sequence
from typing import Any

from ..language.values import Player, zone_key
from ..syntax import ast as s

GENERATED_NAME = re.compile(r"[a-z][0-9]+")  # a local the generator made (`t3`, `v12`, `a0`)
CARD_PICKING = frozenset({"where", "sorted", "max", "min"})  # the queries whose value is some of their list's elements
KEY_TABLE = 64  # numbers 0 .. 63 as a zone's or variable's one key: their texts are made once (`typed_key`)
KEY_INTS = "#numbers of the key table"  # what a number known to be one of them is known as (body.py's `members`)
# How a key of each declared kind is tested and spelled in a state key, as `zone_key` spells it.
_SPELL = {
    "player": ("_Player", "P{{{}.index + 1}}"),
    "int": ("int", "{{{}}}"),
    "enum": ("_EnumValue", "{{{}.key}}"),
    "card": ("_CardRef", "#{{{}.id}}"),
}


def attribute(obj: str, name: str) -> str:
    """Python reading the attribute `name` of `obj`: `obj.name` when the name can only be read as that
    attribute (an ASCII identifier, not a keyword, no leading underscore), which is a quarter of the cost
    of `getattr`, else `getattr(obj, 'name')`, so no other name reaches the source as code."""
    if name.isascii() and name.isidentifier() and not keyword.iskeyword(name) and not name.startswith("_"):
        return f"{obj}.{name}"
    return f"getattr({obj}, {name!r})"


def plain_field(name: str) -> bool:
    """Whether a card's attribute `name` can only be one of its declared fields: a name read as
    `obj.name` (`attribute`) other than `id`, the one attribute every card class has besides its
    fields (runtime/state.py `card_class`)."""
    return name != "id" and attribute("c", name) == f"c.{name}"


def literal_value(e: Any) -> tuple[bool, Any]:
    """Whether an expression is a literal, and its value."""
    if e.__class__ in (s.IntLit, s.StrLit, s.BoolLit):
        return True, e.value
    if e.__class__ is s.NoneLit:
        return True, None
    return False, None


def typed_key(
    name: str,
    keys: Sequence[str],
    kinds: Sequence[str],
    max_players: int,
    table: Callable[[str], str],
    enum_values: str | None = None,
    known: str | None = None,
) -> tuple[str, str] | None:
    """The test that each key (a Python expression) has its declared kind (a player, a number, an
    enumeration value, a card) and the state key of zone or variable `name` then, spelled as `zone_key`
    spells it; None if a key's kind is another. `table(text)` makes a module constant of that text;
    `enum_values`, the module's expression of the members of a one key's enumeration; `known`, a test under
    which the one key is known to be a key of its table ("True": always), which stands for the test of its kind."""
    if len(kinds) != len(keys) or any(kind not in _SPELL for kind in kinds):
        return None
    if len(keys) == 1 and kinds[0] == "enum" and enum_values is not None:
        # One member of the declared enumeration: its key's text read from a table made once (by the
        # member, whose hash is its identity), where making it anew (an f-string, then hashing the new
        # text) costs more. A member not in it (none is) is spelled as below.
        (k,) = keys
        by_member = table(f"{{v: _zone_key({name!r}, (v,)) for v in {enum_values}}}")
        return known or f"{k}.__class__ is _EnumValue and {k} in {by_member}", f"{by_member}[{k}]"
    if len(keys) == 1 and kinds[0] in ("int", "player"):
        # One number or seat: the key's text read from a table made once (`KEY_TABLE` of them), where
        # making it anew (an f-string, then hashing the new text) costs three times as much.
        (k,) = keys
        if kinds[0] == "int":
            texts = tuple(zone_key(name, (i,)) for i in range(KEY_TABLE))
            index = k
        else:
            texts = tuple(zone_key(name, (Player(i),)) for i in range(max(max_players, 1)))
            index = f"{k}.index"
        test = known or f"{k}.__class__ is {_SPELL[kinds[0]][0]} and -1 < {index} < {len(texts)}"
        return test, f"{table(repr(texts))}[{index}]"
    tests = " and ".join(f"{k}.__class__ is {_SPELL[kind][0]}" for k, kind in zip(keys, kinds, strict=True))
    parts = ",".join(_SPELL[kind][1].format(k) for k, kind in zip(keys, kinds, strict=True))
    # one f-string (a number, a seat, an enumeration value's key, a card's `#id`, as `zone_key` spells them),
    # after the zone's name as a quoted literal: Python joins the two when it compiles them
    return tests, f"{name + '['!r} f'{parts}]'"
