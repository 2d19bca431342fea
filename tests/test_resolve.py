"""The resolver: the checker records what every name of a rulebook means, once, in the checked program."""

from __future__ import annotations

from typing import Any

import rulecraft
from rulecraft.language import types as t
from rulecraft.syntax import ast as s

from .test_runtime import load


def _bindings(rb: rulecraft.Rulebook, node: Any) -> list[tuple[str, str, str]]:
    """Each name, index, call and `Enum.member` under a node, with the kind of its binding."""
    found = []
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, tuple):
            stack.extend(reversed(n))
            continue
        if isinstance(n, s.Name | s.Index | s.Call | s.FieldAccess):
            binding = rb.program.resolution.of(n)
            if binding is not None:
                found.append((type(n).__name__, binding.name, binding.kind))
        if hasattr(n, "__attrs_attrs__"):
            stack.extend(reversed([getattr(n, f.name) for f in n.__attrs_attrs__ if f.name != "span"]))
    return found


RULES = """
enum Size { small, big }
const LIMIT = 3
var turns: int = 0 public
fn total(p: Player) = points[p] + len(hand[p]) + LIMIT
fn biggest(xs: list of int) = [x for x in xs if x > turns]
play {
  let who = players[0]
  let k = Size.big
  if total(who) > player_count and k == big and max([1]) > 0 { }
}
"""


def test_every_name_has_the_binding_the_checker_gave_it() -> None:
    """A local, a constant, a variable, a keyed variable, a zone, a member and a built-in each resolve once."""
    rb = load(RULES)
    program = rb.program
    assert _bindings(rb, program.fns["total"].body) == [
        ("Index", "points", "keyed_var"),
        ("Name", "p", "local"),
        ("Call", "len", "builtin_fn"),
        ("Index", "hand", "zone"),
        ("Name", "p", "local"),
        ("Name", "LIMIT", "const"),
    ]
    assert _bindings(rb, program.fns["biggest"].body) == [
        ("Name", "x", "local"),
        ("Name", "xs", "local"),
        ("Name", "x", "local"),
        ("Name", "turns", "var"),
    ]
    assert program.play is not None
    assert _bindings(rb, program.play.stmts) == [
        ("Name", "players", "builtin"),
        ("FieldAccess", "Size", "enum_member"),
        ("Call", "total", "fn"),
        ("Name", "who", "local"),
        ("Name", "player_count", "builtin"),
        ("Name", "k", "local"),
        ("Name", "big", "member"),
        ("Call", "max", "builtin_fn"),
    ]


def test_a_local_gets_a_slot_and_keyed_state_its_key_types() -> None:
    """Each local name has one slot for the whole program; each keyed zone and variable has its key types."""
    rb = load(RULES)
    resolution = rb.program.resolution
    assert {"p", "xs", "x", "who", "k"} <= set(resolution.locals)
    assert len(set(resolution.locals.values())) == len(resolution.locals)
    assert resolution.keys["points"] == (t.PLAYER,)
    assert resolution.keys["hand"] == (t.PLAYER,)


def test_a_local_hides_a_global_of_the_same_name() -> None:
    """A local named like a variable is the local wherever it is in scope, the variable elsewhere."""
    rb = load("""
var turns: int = 0 public
fn f(turns: int) = turns + 1
play { if f(turns) > 0 { } }
""")
    assert _bindings(rb, rb.program.fns["f"].body) == [("Name", "turns", "local")]
    assert rb.program.play is not None
    assert ("Name", "turns", "var") in _bindings(rb, rb.program.play.stmts)
