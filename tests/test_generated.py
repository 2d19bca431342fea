"""Generated code against the definition: every expression evaluated both ways gives the same value or error."""

from __future__ import annotations

from typing import Any

import pytest
import rulecraft
from rulecraft.agents import RandomAgent
from rulecraft.errors import RulebookError
from rulecraft.runtime import codecache
from rulecraft.runtime.game import Game, RuntimeFailure
from rulecraft.syntax import ast as s

from .oracle import EVAL, evaluate
from .test_runtime import load

# (rulebook, players, games, decisions per game): enough to reach every phase, small enough for CI
GAMES = [
    ("guildhall", 2, 2, 150),
    ("renaissance_man", 2, 1, 60),
    ("valdora", 3, 1, 100),
    ("examples/tutorial.rules", 2, 3, 300),
    ("examples/games/tic_tac_toe.rules", 2, 5, 300),
    ("examples/games/kuhn_poker.rules", 2, 20, 300),
    ("examples/games/dominion_first_game.rules", 2, 1, 300),
]


def _outcome(f: Any) -> tuple[str, Any]:
    """What evaluating gives: ('value', v) or ('error', the kind and message)."""
    try:
        return "value", f()
    except (RulebookError, RuntimeFailure) as error:
        return "error", (type(error).__name__, str(error))


class Differential:
    """Runs the rulebook on code generated with probes, so that each expression is compared with the definition.

    Code generated with `probe` passes the value of every node it computes to `_probe`, with the
    node's local names; the node's definition (tests/oracle/) is then run on the same locals
    and must give the same value. Each root expression's function (what a statement calls) is wrapped too,
    and must give the same value or the same error as the definition.
    """

    def __init__(self, monkeypatch: pytest.MonkeyPatch, rb: rulecraft.Rulebook):
        self.compared = 0
        self.kinds: set[type] = set()
        self.defining = False
        cache = codecache.CodeCache(rb.program, None, probe=self._probe)
        self.nodes = cache.compiled.nodes
        for node, name in list(cache.compiled.roots.values()):
            cache.compiled.names[name] = self._checked(node, cache.compiled.function(name))
        monkeypatch.setattr(rb, "code_cache", cache)  # the probed code, for this test only

    def _definition(self, game: Game, e: Any, env: dict[str, Any]) -> tuple[str, Any]:
        depth, memo, work = game.fn_depth, game.memo, game.work_left
        game.memo = [{} for _ in memo]  # the definition computes everything anew
        self.defining = True
        try:
            return _outcome(lambda: EVAL[e.__class__](game, e, dict(env)))
        finally:
            self.defining = False
            # the budget of work counts the game's evaluation once, not the comparison's second one
            game.fn_depth, game.memo, game.work_left = depth, memo, work

    def _compared(self, e: Any, fast: tuple[str, Any], definition: tuple[str, Any]) -> None:
        assert fast == definition, f"{e!r} at {e.span}: generated {fast}, definition {definition}"
        self.compared += 1
        self.kinds.add(e.__class__)

    def _probe(self, game: Game, k: int, value: Any, env: dict[str, Any]) -> Any:
        if not self.defining:  # inside a definition: its functions run as in a game
            e = self.nodes[k]
            self._compared(e, ("value", value), self._definition(game, e, env))
        return value

    def _checked(self, e: Any, code: Any) -> Any:
        def checked(game: Game, env: dict[str, Any]) -> Any:
            if self.defining:
                return code(game, env)
            depth = game.fn_depth
            fast = _outcome(lambda: code(game, env))
            game.fn_depth = depth
            self._compared(e, fast, self._definition(game, e, env))
            if fast[0] == "error":
                return code(game, env)  # raise it again, as the game would
            return fast[1]

        return checked


# The kinds of expression compared in each game of GAMES (filled by the test below, read by the next).
COMPARED: dict[str, set[type]] = {}


def _compare_over_games(name: str, players: int, games: int, monkeypatch: pytest.MonkeyPatch) -> Differential:
    rb = rulecraft.load(name)
    diff = Differential(monkeypatch, rb)
    for seed in range(games):
        # the first game is traced: its `say` texts (templates) are filled in only then
        game = rb.new_game(players=players, seed=seed, trace=seed == 0)
        agents = [RandomAgent(seed * 31 + i) for i in range(players)]
        for _ in range(300):  # long enough to reach every phase of the bundled games
            decision = game.current_decision()
            if decision is None:
                break
            assert decision.player is not None
            game.apply(agents[decision.player.index].choose(game, decision))
    COMPARED[name] = diff.kinds
    return diff


@pytest.mark.parametrize(("name", "players", "games", "decisions"), GAMES, ids=[g[0].split("/")[-1] for g in GAMES])
def test_generated_code_agrees_with_the_definition_over_seeded_games(
    name: str, players: int, games: int, decisions: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Over seeded random games, every expression a statement evaluates has the same value both ways."""
    diff = _compare_over_games(name, players, games, monkeypatch)
    assert diff.compared > 500
    assert {s.Name, s.Call, s.Compare} <= diff.kinds


def test_every_kind_of_expression_was_compared(monkeypatch: pytest.MonkeyPatch) -> None:
    """Over the games above, every kind of expression the evaluator defines was compared with its generated code."""
    for name, players, games, _ in GAMES:
        if name not in COMPARED:  # this test run alone: play the games here
            _compare_over_games(name, players, games, monkeypatch)
            monkeypatch.undo()
    compared = set().union(*COMPARED.values())
    assert sorted(k.__name__ for k in set(EVAL) - compared) == []


def test_generated_code_gives_the_same_located_errors() -> None:
    """A value of the wrong kind reaches the same located error by generated code as by the definition."""
    rb = load("""
var v: any = "x" public
play { if v + 1 > 0 { } }
""")
    with pytest.raises(RulebookError) as fast:
        rb.new_game(players=1)
    assert "cannot compute x + 1" in str(fast.value)
    assert "t.rules:" in str(fast.value)


@pytest.mark.parametrize(
    ("expr", "value"),
    [
        ("1 + 2 * 3 - 8 // 3 % 2", 7),
        ("-(4)", -4),
        ("[1, 2] + [3]", (1, 2, 3)),
        ('"a" + "b"', "ab"),
        ("0..3", (0, 1, 2, 3)),
        ("if 1 < 2 then 3 else 4", 3),
        ("2 in [1, 2]", True),
        ("1 in [true, 2]", False),  # true is not 1, though Python's `in` finds it
        ("1 in [2, true, 1]", True),
        ("0 in [false, 2]", False),  # nor is false 0
        ("7 in [true, 7]", True),  # a number other than 0 and 1 is `==` to no boolean: Python's `in` says it
        ("1 not in [true, 2]", True),
        ("3 not in [1, 2]", True),
        ('"a" == "b"', False),
        ("red == red", True),
        ("red != blue", True),
        ("len([1, 2, 3])", 3),
        ("any([false, true])", True),
        ("all([])", True),
        ("[x * x for x in 1..3 if x != 2]", (1, 9)),
        ("[1, 5, 3] where it > 2", (5, 3)),
        ("[3, 1, 2] sorted by 0 - it", (3, 2, 1)),
        ("[1, 5, 5] max by it", (5, 5)),
        ("[1, 2, 3] map it * 2", (2, 4, 6)),
        ("[1, 2, 3] group by it % 2", ((1, 3), (2,))),
        ("[1, 2][-1]", 2),
        ("len(row)", 0),
        ("points[P1]", 0),
        # values the generated code knows the kind of, whatever ran (Body.known): no check of their class
        ("-(len([1, 2]))", -2),
        ("len([1, 2] where it > 1) + len(0..2) * 2", 7),
        ("len([1, 2]) == 2", True),
        ("([1, 5, 3] where it > 2)[1]", 3),
        ("2 in ([1, 2] map it)", True),
        ("len([[1], [2, 3]] map len(it)) - -(len([4]))", 3),
    ],
)
def test_each_kind_of_expression_gives_the_value_of_its_definition(expr: str, value: Any) -> None:
    """Each kind of expression, generated, has the value the definition gives it."""
    rb = load(f"const P1 = players[0]\nconst X = {expr}\nplay {{ }}\n")
    game = rb.new_game(players=1)
    node = rb.program.consts["X"].value
    assert game.evaluate(node, {}) == value
    assert evaluate(game, node, {}) == value


@pytest.mark.parametrize(
    "expr",
    ["([1, 5, 3] where it > 2)[2]", "len(0..2) // (len([1]) - 1)", "len([1]) + (1..2)", "-(len(b))"],
)
def test_a_value_of_a_known_kind_still_reaches_the_definition_s_error(expr: str) -> None:
    """Where the generated code skips a class check (the value is a tuple or a number whatever ran), what
    its fast path cannot do still falls back on the definition, with the definition's located error."""
    rb = load(f"var b: any = true public\nplay {{ let x = {expr} }}\n")
    with pytest.raises(RulebookError) as fast:
        rb.new_game(players=1)
    game = load("var b: any = true public\nplay { }\n").new_game(players=1)
    node = rb.program.play.stmts[0].value  # type: ignore[union-attr]
    with pytest.raises(RulebookError) as slow:
        evaluate(game, node, {})
    assert fast.value.messages == slow.value.messages
    assert len(fast.value.messages) == 1


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
    count = rulecraft.syntax.ast.Call("reds", (rulecraft.syntax.ast.Name("P1"),))
    assert game.evaluate(count, {}) == 0
    game.apply("take")
    assert game.evaluate(count, {}) == 1
    game.apply("try")  # moved, then undone
    assert game.evaluate(count, {}) == 1
    card = game.state.zones["row"].pop()  # from outside the rules
    game.state.zones["hand[P1]"].append(card)
    game.state.location[card] = "hand[P1]"
    game.state_changed()
    assert game.evaluate(count, {}) == 2


KEPT_ZONES = """
const P1 = players[0]
var kept: list of Chip = [] public
setup { for c in Colour { create 1 Chip { colour: c, n: 1 } in row } }
proc show(xs: list of Chip, z: any) { move top(row) to z  say "{xs}" }
proc cards() { return row }
play {
  let a = row
  let b = []
  b = row
  set kept = row
  let c = cards()
  show(row, pile)
  let now = row
  say "{a} {b} {kept} {c} {now}"
}
"""


def test_statements_keep_a_zones_cards_as_they_are_then() -> None:
    """`let`, `=`, `set` of a list variable and a list argument keep a zone's cards as they are at
    that moment: later moves do not change them (docs/LANGUAGE.md, "A zone as a value")."""
    events = [e.text for e in load(KEPT_ZONES).new_game(players=1).events]
    assert events[-3:-1] == [
        "[red 1, blue 1, green 1]",
        "[red 1, blue 1, green 1] [red 1, blue 1, green 1] [red 1, blue 1, green 1] [red 1, blue 1, green 1] [red 1, blue 1]",
    ]


FIELDS = """card A { f: int, h: int }
card B { g: int }
zone with_f: A public
zone without_f: B public
zone held[Player]: A public
var x: any = none public
const TABLE = [{f: 5, g: 6}]
const READ_F = x.f
const READ_H = x.h
const F_OF_ITS_CARDS = [c.f for c in held[players[0]]]
setup { create 1 A { f: 4, h: 8 } in with_f  create 1 B { g: 2 } in without_f  create 1 A { f: 3, h: 1 } in held[players[0]] }
play { }
"""


@pytest.mark.parametrize(
    "holder",
    ["card with both", "card with neither", "record with f", "record with h", "none", "number", "player", "list"],
)
def test_a_field_read_gives_what_the_definition_gives_whatever_holds_it(holder: str) -> None:
    """`x.f` and `x.h` where x is a card whose class declares the field, a card whose class does not,
    a record with it, `none`, a number, a player, a list: generated code gives the definition's value
    or located error. `h`, which no record literal of the rulebook has, is read by the card's
    attribute first, and a record with it (one from a state written elsewhere) by the exception."""
    from rulecraft.language.values import CardRef, Player, Record

    rb = load(FIELDS)
    game = rb.new_game(players=1)
    with_f, without_f = game.state.zones["with_f"][0], game.state.zones["without_f"][0]
    game.state.vars["x"] = {
        "card with both": CardRef(with_f),
        "card with neither": CardRef(without_f),
        "record with f": Record({"f": 5, "g": 6}),
        "record with h": Record({"h": 7}),
        "none": None,
        "number": 3,
        "player": Player(0),
        "list": (CardRef(with_f),),
    }[holder]
    for const, holds in (
        ("READ_F", ("card with both", "record with f")),
        ("READ_H", ("card with both", "record with h")),
    ):
        node = rb.program.consts[const].value
        generated = _outcome(lambda node=node: game.evaluate(node, {}))
        assert generated == _outcome(lambda node=node: evaluate(game, node, {}))
        assert generated[0] == ("value" if holder in holds else "error")
    source = rb.code_cache.compiled.generated.source
    assert ".h\n    except _NO_ATTRIBUTE:" in source  # h by the attribute first
    assert ".f\n    except _NO_ATTRIBUTE:" not in source  # f, which a record has, by the checks where it may be one
    assert "].f\n        except _NO_ATTRIBUTE:" in source  # (but by the attribute first where a card is known: below)


def test_a_field_of_a_zone_s_card_is_read_as_the_definition_reads_it() -> None:
    """`[c.f for c in held[P1]]`, where a record literal has a field `f` too: each element is a card (a zone holds
    nothing else), read by its attribute first; a card whose class has no `f` (put there by a state written
    elsewhere: the checker refuses it in the text) gives the definition's located error."""
    rb = load(FIELDS)
    game = rb.new_game(players=1)
    node = rb.program.consts["F_OF_ITS_CARDS"].value
    generated = _outcome(lambda: game.evaluate(node, {}))
    assert generated == _outcome(lambda: evaluate(game, node, {})) == ("value", (3,))
    without_f = game.state.zones["without_f"].pop()
    game.state.zones["held[P1]"].append(without_f)
    game.state.location[without_f] = "held[P1]"
    game.memo = list(rb.code_cache.empty_memo)  # (a state written elsewhere: nothing remembered of it)
    generated = _outcome(lambda: game.evaluate(node, {}))
    assert generated == _outcome(lambda: evaluate(game, node, {}))
    assert generated[0] == "error" and "f" in str(generated[1])


ENUM_KEYS = """game T players 1..2
enum Size { small, big }
card Token { size: Size }
zone pile[Size]: Token public
var empty_piles: int = 0 public
var seen: int = 0 public
fn empties() = len([k for k in Size if len(pile[k]) == 0])
fn bigs() = len(pile[big]) + len(pile[Size.big])
setup { create 2 Token { size: big } in pile[big] }
play {
  let big = small
  set seen = len(pile[big])
  set empty_piles = empties()
}
"""


def test_a_key_known_to_be_a_member_of_its_enumeration_reads_the_zone_the_definition_reads() -> None:
    """A zone keyed by an enumeration, read with a member written by its name (`pile[big]`, `pile[Size.big]`) or
    with an element of a loop over the enumeration's members (`for k in Size`), takes its key with no test of the
    key's kind: the generated functions hold none, and give the definition's values. Where a local may hide the
    member's name at run time (`let big = small`), the key is what the local holds, tested as before."""
    rb = rulecraft.load_text(ENUM_KEYS, "t.rules")
    game = rb.new_game(players=1)
    assert game.state.vars == {"seen": 0, "empty_piles": 1}  # (`big` is the local there: pile[small], empty)
    small = next(v for v in rb.program.enums["Size"] if v.name == "small")
    for name, env, value in (("empties", {}, 1), ("bigs", {}, 4), ("bigs", {"big": small}, 2)):
        node = rb.program.fns[name].body
        generated = _outcome(lambda node=node, env=env: game.evaluate(node, env))
        assert generated == _outcome(lambda node=node, env=env: evaluate(game, node, env)) == ("value", value)
    source = rb.code_cache.compiled.generated.source
    functions = {part.split("(", 1)[0]: part for part in source.split("\ndef ")[1:]}
    assert "_EnumValue" not in functions["f0"] + functions["f1"]  # empties, bigs: keys known to be members
    assert "for v4 in k2:" in functions["f0"]  # (the members' own tuple, with no test that it is a list)
    # where a local may hide the member's name (`bigs`'s body, compiled for a statement), the key is tested
    hidden = [part for part in functions.values() if "env['big'] if 'big' in env" in part and "zones.get" in part]
    assert hidden and all("_EnumValue" in part for part in hidden)


NUMBER_KEYS = """game T players 1..2
var cell[int]: int = 0 public
fn free() = [i for i in 0..8 if cell[i] == 0]
fn far() = [i for i in 60..70 if cell[i] == 0]
setup { set cell[3] = 1  set cell[65] = 1 }
play { }
"""


def test_a_number_key_known_to_be_in_the_key_table_reads_the_variable_the_definition_reads() -> None:
    """`cell[i]` with `i` an element of a range written in the text within 0 .. 63 (`for i in 0..8`) takes the
    variable's key with no test of the number; a range that leaves the table (`60..70`) keeps the test. Both
    give the definition's values."""
    rb = rulecraft.load_text(NUMBER_KEYS, "t.rules")
    game = rb.new_game(players=1)
    for name, value in (("free", (0, 1, 2, 4, 5, 6, 7, 8)), ("far", (60, 61, 62, 63, 64, 66, 67, 68, 69, 70))):
        node = rb.program.fns[name].body
        generated = _outcome(lambda node=node: game.evaluate(node, {}))
        assert generated == _outcome(lambda node=node: evaluate(game, node, {})) == ("value", value)
    source = rb.code_cache.compiled.generated.source
    functions = {part.split("(", 1)[0]: part for part in source.split("\ndef ")[1:]}
    assert "< 64" not in functions["f0"] and "< 64" in functions["f1"]  # free's keys known, far's tested


SEAT_KEYS = """game T players 1..2
card C { n: int }
zone hand[Player]: C public
var who: any = none public
fn held(p: Player) = len(hand[p])
const HELD_BY_WHO = held(who)
setup { create 2 C { n: 1 } in hand[players[0]] }
play { }
"""


@pytest.mark.parametrize("who", ["P1", "P2", "none", "number"])
def test_a_seat_parameter_of_a_function_remembered_by_seat_reads_the_zone_the_definition_reads(who: str) -> None:
    """In the body of a function remembered by seat, its seat parameter's zone is read from the table where the
    call found a seat's dict of the memo (`slot`), with no test of the parameter's kind; anything else (none, a
    number: no seat's dict) is read as before. Each gives the definition's value or located error."""
    from rulecraft.language.values import Player

    rb = rulecraft.load_text(SEAT_KEYS, "t.rules")
    game = rb.new_game(players=2)
    game.state.vars["who"] = {"P1": Player(0), "P2": Player(1), "none": None, "number": 7}[who]
    game.memo = list(rb.code_cache.empty_memo)  # (a state written here: nothing remembered of it)
    node = rb.program.consts["HELD_BY_WHO"].value
    generated = _outcome(lambda: game.evaluate(node, {}))
    assert generated == _outcome(lambda: evaluate(game, node, {}))
    assert generated == {"P1": ("value", 2), "P2": ("value", 0)}.get(who, generated)
    source = rb.code_cache.compiled.generated.source
    functions = {part.split("(", 1)[0]: part for part in source.split("\ndef ")[1:]}
    assert "    if slot:\n" in functions["f0"] and "_Player" not in functions["f0"]


SEAT_CONSTS = """game T players 2..3
card C { n: int }
zone hand[Player]: C public
const P1 = players[0]
const P3 = players[2]
fn first_hand() = len(hand[P1])
fn third_hand() = len(hand[P3])
setup { create 2 C { n: 1 } in hand[P1] }
play { }
"""


@pytest.mark.parametrize("players", [2, 3])
def test_a_constant_seat_of_every_game_reads_the_zone_the_definition_reads(players: int) -> None:
    """`hand[P1]` with `const P1 = players[0]` (a seat of every game: 0 is below the fewest players) takes the
    zone's key from its table with no test; `P3 = players[2]`, a seat of three-player games only, keeps the
    test. With two players P3 has no value: the definition's located error."""
    rb = rulecraft.load_text(SEAT_CONSTS, "t.rules")
    game = rb.new_game(players=players)
    for name in ("first_hand", "third_hand"):
        node = rb.program.fns[name].body
        generated = _outcome(lambda node=node: game.evaluate(node, {}))
        assert generated == _outcome(lambda node=node: evaluate(game, node, {}))
        assert generated == ("value", 2 if name == "first_hand" else 0) or (name, players) == ("third_hand", 2)
    source = rb.code_cache.compiled.generated.source
    functions = {part.split("(", 1)[0]: part for part in source.split("\ndef ")[1:]}
    assert "_Player" not in functions["f0"] and "_Player" in functions["f1"]


MAIN = """
var tally[Player]: int = 4 public
const P1 = players[0]
fn double(x: int) = x * 2
setup { create 3 Chip { colour: red, n: 2 } in hand[P1] }
play { }
"""

# Expressions from outside the program (as a scenario's `expect` is): each resolved by name at run time.
OUTSIDE = [
    "len(hand[P1])",
    "double(tally[P1]) + len([c.n for c in hand[P1] if c.colour == Colour.red]) + score(P1)",
    "hand[P1][0].n",
    "[k for k in 1..3][5]",
    "first(hand[P1]).colour == red",
    '"ab" + "c" + tally[players[0]]',
]


@pytest.mark.parametrize("expr", OUTSIDE)
@pytest.mark.parametrize("env", [{}, {"hand": (7, 8), "tally": (5,), "P1": 0, "Colour": None}], ids=["", "hidden"])
def test_an_expression_from_outside_the_program_runs_as_generated_code(expr: str, env: dict[str, Any]) -> None:
    """An expression the program does not have (made by a scenario or a test) runs as code generated for it
    (`Compiled.fragment`), never a tree-walk: the value or located error and the work the definition gives,
    its names resolved by name, a local of the caller's env hiding a global of the same name."""
    game = load(MAIN).new_game(players=1)
    outside = load(MAIN.replace("play { }", f"const X = {expr}\nplay {{ }}"))
    node = outside.program.consts["X"].value
    code = game.code.value(node)
    assert code.__code__.co_filename == "<generated fragment>"
    for work in (10_000, 5, 0):
        game.work_left = work
        generated = (_outcome(lambda: game.evaluate(node, dict(env))), game.work_left)
        game.work_left = work
        assert generated == (_outcome(lambda: evaluate(game, node, dict(env))), game.work_left)


JOINED = """const P1 = players[0]
fn joined(p: Player) = hand[p] + row
fn twice(p: Player) = (hand[p] + hand[p]) + (row + hand[p] where it.n > 1)
fn listed(p: Player) = [c.n for c in hand[p]] + [9] + [c.n * 10 for c in row]
setup { create 2 Chip { colour: red, n: 1 } in row  create 3 Chip { colour: blue, n: 2 } in hand[P1] }
play { }
"""


def test_two_zones_joined_are_their_cards_as_the_definition_joins_them() -> None:
    """`hand[p] + row`, zones known as zones by the generated code (no check of their class), joined with each
    other and with a list of cards, and lists the code made joined as tuples: the values the definition gives,
    in its order."""
    rb = load(JOINED)
    game = rb.new_game(players=1)
    for name in ("joined", "twice", "listed"):
        node = rb.program.fns[name].body
        env = {"p": game.players[0]}
        assert game.evaluate(node, env) == evaluate(game, node, env)
    assert [c.id for c in game.evaluate(rb.program.fns["joined"].body, env)] == [2, 3, 4, 0, 1]
    assert len(game.evaluate(rb.program.fns["twice"].body, env)) == 9  # (`where` takes `row + hand[p]`: 3 + 3 + 3)
    assert game.evaluate(rb.program.fns["listed"].body, env) == (2, 2, 2, 9, 10, 10)  # (lists joined as tuples)


NUMBERS = """const P1 = players[0]
fn size(p: Player) = len(hand[p])
fn fifths(p: Player) = size(p) // 5 + len(row) * 2
fn empty(p: Player) = size(p) == 0
fn fewer(p: Player) = fifths(p) - size(p) < len(row) % 2
fn same_size(p: Player) = size(p) == len(row)
setup { create 2 Chip { colour: red, n: 1 } in row  create 3 Chip { colour: blue, n: 2 } in hand[P1] }
play { }
"""


def test_numbers_by_construction_are_compared_as_the_definition_compares_them() -> None:
    """A length, a function whose value is one (`size`), and sums, products and quotients of such are numbers
    by construction: compared and joined by the generated code with no test of their kind, they give what the
    definition gives (the work too)."""
    rb = load(NUMBERS)
    game = rb.new_game(players=1)
    env = {"p": game.players[0]}
    for name in ("size", "fifths", "empty", "fewer", "same_size"):
        node = rb.program.fns[name].body
        game.work_left = 10_000
        generated = (game.evaluate(node, dict(env)), game.work_left)
        game.work_left = 10_000
        assert generated == (evaluate(game, node, dict(env)), game.work_left), name
    assert [game.evaluate(rb.program.fns[n].body, env) for n in ("size", "fifths", "empty", "fewer")] == [
        3,
        4,
        False,
        False,
    ]
    source = rb.code_cache.compiled.generated.source
    assert " == 0\n" in source  # `size(p) == 0`: no test that the size is a number
    assert " // (5)\n" in source  # a quotient by a number of the text: no test at all
