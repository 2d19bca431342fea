"""Compiled closures against the definition: every expression evaluated both ways gives the same value or error."""

from __future__ import annotations

from typing import Any

import pytest

import rulecraft
from rulecraft.agents import RandomAgent
from rulecraft.errors import RulebookError
from rulecraft.runtime import Game, RuntimeFailure

from .test_runtime import load

GAMES = [
    ("guildhall", 2, 2), ("renaissance_man", 2, 1), ("valdora", 3, 1), ("examples/tutorial.rules", 2, 3),
    ("examples/games/tic_tac_toe.rules", 2, 5), ("examples/games/kuhn_poker.rules", 2, 5),
    ("examples/games/dominion_first_game.rules", 2, 1),
]


def _outcome(f: Any) -> tuple[str, Any]:
    """What evaluating gives: ('value', v) or ('error', the kind and message)."""
    try:
        return "value", f()
    except (RulebookError, RuntimeFailure) as error:
        return "error", (type(error).__name__, str(error))


class Differential:
    """Evaluates each expression by its closure and by the definition (`_eval_slow`), and compares."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch):
        self.compared = 0
        self.nodes: set[type] = set()
        compiled = Game._eval

        def both(game: Game, e: Any, env: dict[str, Any]) -> Any:
            depth = game._fn_depth
            fast = _outcome(lambda: compiled(game, e, env))
            game._fn_depth = depth
            slow = _outcome(lambda: game._eval_slow(e, dict(env)))
            game._fn_depth = depth
            assert fast == slow, f"{e!r} at {e.span}: closure {fast}, definition {slow}"
            self.compared += 1
            self.nodes.add(type(e))
            if fast[0] == "error":
                return compiled(game, e, env)  # raise it again, as the game would
            return fast[1]

        monkeypatch.setattr(Game, "_eval", both)


@pytest.mark.parametrize(("name", "players", "games"), GAMES, ids=[g[0].split("/")[-1] for g in GAMES])
def test_closures_agree_with_the_definition_over_seeded_games(name: str, players: int, games: int,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """Over seeded random games, every expression a statement evaluates has the same value both ways."""
    diff = Differential(monkeypatch)
    rb = rulecraft.load(name)
    for seed in range(games):
        game = rb.new_game(players=players, seed=seed, trace=False)
        agents = [RandomAgent(seed * 31 + i) for i in range(players)]
        for _ in range(300):  # long enough to reach every phase of the bundled games
            decision = game.current_decision()
            if decision is None:
                break
            assert decision.player is not None
            game.apply(agents[decision.player.index].choose(game, decision))
    assert diff.compared > 100


def test_closures_give_the_same_located_errors() -> None:
    """A value of the wrong kind reaches the same located error by a closure as by the definition."""
    rb = load("""
var v: any = "x" public
play { if v + 1 > 0 { } }
""")
    with pytest.raises(RulebookError) as fast:
        rb.new_game(players=1)
    assert "cannot compute x + 1" in str(fast.value)
    assert "t.rules:" in str(fast.value)


@pytest.mark.parametrize(("expr", "value"), [
    ("1 + 2 * 3 - 8 // 3 % 2", 7), ("-(4)", -4), ("[1, 2] + [3]", (1, 2, 3)), ("0..3", (0, 1, 2, 3)),
    ("if 1 < 2 then 3 else 4", 3), ("2 in [1, 2]", True), ("3 not in [1, 2]", True),
    ("\"a\" == \"b\"", False), ("red == red", True), ("red != blue", True), ("len([1, 2, 3])", 3),
    ("any([false, true])", True), ("all([])", True), ("[x * x for x in 1..3 if x != 2]", (1, 9)),
    ("[1, 5, 3] where it > 2", (5, 3)), ("[1, 2][-1]", 2), ("len(row)", 0), ("points[P1]", 0),
])
def test_each_kind_of_expression_gives_the_value_of_its_definition(expr: str, value: Any) -> None:
    """Each compiled kind of expression has the value the definition gives it."""
    rb = load(f"const P1 = players[0]\nconst X = {expr}\nplay {{ }}\n")
    game = rb.new_game(players=1)
    node = rb.program.consts["X"].value
    assert game._eval(node, {}) == value
    assert game._eval_slow(node, {}) == value


def test_a_remembered_function_value_is_forgotten_when_the_state_changes() -> None:
    """A function's value is kept only until the state changes: by the rules, an undo, or from outside."""
    rb = load("""
const P1 = players[0]
fn reds(p: Player) = len(hand[p] where it.colour == red)
setup { create 3 Chip { colour: red, n: 1 } in row }
play {
  repeat 2 {
    choose by P1 prompt "Go on?" {
      option "take" { move first(row) to hand[P1] }
      option "try" { attempt { move first(row) to hand[P1]  fail "no" } }
    }
  }
}
""")
    game = rb.new_game(players=1)
    count = rulecraft.syntax.Call("reds", (rulecraft.syntax.Name("P1"),))
    assert game._eval(count, {}) == 0
    game.apply("take")
    assert game._eval(count, {}) == 1
    game.apply("try")  # moved, then undone
    assert game._eval(count, {}) == 1
    card = game.state.zones["row"].pop()  # from outside the rules
    game.state.zones["hand[P1]"].append(card)
    game.state.location[card] = "hand[P1]"
    game.state_changed()
    assert game._eval(count, {}) == 2
