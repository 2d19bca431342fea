"""The resolver: the checker records what every name of a rulebook means, once, in the checked program."""

from __future__ import annotations

import copy
from typing import Any

import pytest
import rulecraft
from rulecraft.errors import RulebookError
from rulecraft.language import types as t
from rulecraft.runtime import evaluate
from rulecraft.syntax import ast as s

from .test_generated import _compare_over_games
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


def _no_lookup_by_name(program: Any, e: Any) -> Any:
    raise AssertionError(f"the evaluator looked up {e!r} by name")


def test_the_evaluator_reads_each_names_binding_and_never_looks_a_name_up(monkeypatch: pytest.MonkeyPatch) -> None:
    """Over seeded games, every expression the definition evaluates (each compared with its generated code)
    finds what its names mean in the checker's bindings: the lookup by name is never used."""
    monkeypatch.setattr(evaluate, "unchecked_binding", _no_lookup_by_name)
    for name, players, games in [("renaissance_man", 2, 1), ("examples/games/kuhn_poker.rules", 2, 10)]:
        diff = _compare_over_games(name, players, games, monkeypatch)
        assert diff.compared > 500
        assert {s.Name, s.Index, s.Call, s.FieldAccess} <= diff.kinds


def test_the_binding_decides_what_a_name_is() -> None:
    """The evaluator reads a name as its binding says, whatever the name: a constant bound as a zone is the zone."""
    rb = load(RULES)
    game = rb.new_game(players=2)
    node = rb.program.consts["LIMIT"].value
    limit = s.Name("hand", span=node.span)  # a name the checker never saw, bound here by hand as a constant
    rb.program.resolution.bind(limit, "const", "LIMIT")
    assert game.evaluate(limit, {}) == 3


@pytest.mark.parametrize(
    "text",
    [
        "LIMIT",
        "turns",
        "big",
        "Size",
        "Size.big",
        "players",
        "player_count",
        "points[who]",
        "len(hand[who])",
        "total(who)",
        "biggest([1, 2])",
    ],
)
def test_an_expression_made_outside_the_checked_program_is_resolved_by_name(text: str) -> None:
    """An expression the checker never saw (a scenario's `expect`, a test's) has the value it has in the rulebook:
    its names are looked up in the checker's order."""
    rb = load(RULES + f"const SHOWN = {text.replace('who', 'players[0]')}\n")
    game = rb.new_game(players=2)
    checked = rb.program.consts["SHOWN"].value
    unchecked = copy.deepcopy(checked)  # the same expression, not of the checked program
    assert rb.program.resolution.of(unchecked) is None
    assert game.evaluate(unchecked, {}) == game.evaluate(checked, {})


def test_a_name_outside_the_checked_program_that_means_nothing_is_a_located_error() -> None:
    """An unchecked name the rulebook does not define is reported where it stands."""
    rb = load(RULES)
    game = rb.new_game(players=2)
    node = rb.program.consts["LIMIT"].value
    with pytest.raises(RulebookError, match="unknown name 'nothing'"):
        game.evaluate(s.Name("nothing", span=node.span), {})
    with pytest.raises(RulebookError, match="unknown function 'nothing'"):
        game.evaluate(s.Call("nothing", (), span=node.span), {})
