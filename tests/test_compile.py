"""Rulebooks compiled to Python: safe generation, `rulecraft compile`, the disk cache and the line table."""

from __future__ import annotations

import ast
import re
import warnings
from pathlib import Path
from typing import Any

import attrs
import pytest
import rulecraft
from rulecraft.authoring.fmt import format_text
from rulecraft.cli import main
from rulecraft.compile.generate import RUNTIME_NAMES, Generator, generate
from rulecraft.compile.source import attribute
from rulecraft.errors import RulebookError
from rulecraft.language.builtins import BUILTINS
from rulecraft.language.values import CardRef, Player
from rulecraft.runtime import compiled, core
from rulecraft.runtime import game as game_module
from rulecraft.runtime.basics import RuntimeFailure
from rulecraft.runtime.evaluate import first_binding
from rulecraft.syntax import ast as s

from .oracle import evaluate as _oracle
from .test_generated import Differential
from .test_runtime import load

# Names, texts and numbers built to break out of generated code: quotes, a newline and a comment
# sign in a text, `__import__`, dunder and Python-keyword-like names, `_x` beside `x`.
HOSTILE = r"""game Evil players 1..2
enum Kind { __class__, None_, lam }
card Bit { x: int, y: int, kind: Kind } label "{x}"
zone pile: Bit public
zone __import__[Player]: Bit public
var __builtins__: int = 1 public
var _x: int = 2 public
var x: int = 3 public
const self = "a'b\"c\\\n');import os#"
fn __init__(__class__: int, _x: int) = __class__ * 10 + _x
fn lambda_(class_: list of int) = [__dict__ + x for __dict__ in class_ where it > _x]
setup { create 2 Bit { x: 4, y: 5, kind: __class__ } in pile }
play {
  let yield_ = __init__(x, _x) + __builtins__
  let exec = "{self} }}{{"
  say "{yield_} {lambda_([1, 2, 3, 4])} {exec} {[b.y + b.x for b in pile]} {len(__import__[players[0]])} {Kind.None_}"
}
"""
SAID = "33 [6, 7] a'b\"c\\\n');import os# }{ [9, 9] 0 None_"

# What generated code may name: its own made-up names, what the runtime gives it, the built-ins it is
# allowed, and the attributes of the game and of values that it reads.
GENERATED_NAME = re.compile(r"[tvakfcr][0-9]+|g|k|env|key|memo|slot|v")
ALLOWED_NAMES = {
    *RUNTIME_NAMES,
    "len",
    "tuple",
    "range",
    "getattr",
    "any",
    "all",
    "bool",
    "set",
    "int",
    "str",
    "max",
    "min",
    "sum",
}
ALLOWED_NAMES |= {"TypeError", "LINES"}
ALLOWED_ATTRIBUTES = {
    *("state", "vars", "zones", "cards", "index", "key", "keys", "enum", "id", "has", "get", "append", "span"),
    *("memo", "fn_depth", "call_fn", "global_value", "variable", "consts", "players", "truth_of", "label"),
    *(
        "as_list",
        "left",
        "right",
        "enums",
        "members",
        "enum_value",
        "run",
        "__class__",
        "work_left",
        "charge",
        "text",
        "clear",
        "_fields",  # a record's fields (values.Record), read where the record has the field
    ),
}


def _names_in(source: str) -> tuple[set[str], set[str], list[str]]:
    """The names, the attributes and the texts a module's source spells out."""
    tree = ast.parse(source)
    names, attributes, texts = set(), set(), []
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            names.add(node.id)
        elif isinstance(node, ast.FunctionDef):
            names.add(node.name)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, ast.Attribute):
            attributes.add(node.attr)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            texts.append(node.value)
    return names, attributes, texts


def _said(game: rulecraft.Game) -> list[str]:
    return [e.text for e in game.events if e.verb == "say"]


def test_hostile_names_and_texts_reach_generated_code_only_as_quoted_literals() -> None:
    """No name or text of a rulebook becomes Python code: every name in the generated module is one the
    generator made or the runtime gives, and the rulebook's texts are string literals."""
    rb = rulecraft.load_text(HOSTILE, "evil.rules")
    source = generate(rb.program).source
    names, attributes, texts = _names_in(source)
    assert {n for n in names if not GENERATED_NAME.fullmatch(n)} <= ALLOWED_NAMES
    # A card's field is read as its attribute (the checker keeps field names to plain identifiers that
    # are no word of Python and start with no underscore: `attribute` checks again).
    fields = {f for card in rb.program.cards.values() for f, _type in card.fields}
    assert fields == {"x", "y", "kind"}
    assert attributes <= ALLOWED_ATTRIBUTES | fields
    assert {"x", "y"} <= attributes
    assert "a'b\"c\\\n');import os#" in texts
    assert {"__import__", "__init__", "lambda_", "_x", "__builtins__"} <= set(texts)


@pytest.mark.parametrize(
    ("name", "code"),
    [
        ("colour", "c.colour"),
        ("lambda", "getattr(c, 'lambda')"),
        ("__class__", "getattr(c, '__class__')"),
        ("_x", "getattr(c, '_x')"),
        ("\ufb01eld", "getattr(c, '\ufb01eld')"),  # "ﬁeld", which Python would read as "field"
        ("x.y", "getattr(c, 'x.y')"),
    ],
)
def test_a_field_is_read_as_an_attribute_only_when_its_name_can_be_nothing_else(name: str, code: str) -> None:
    """Generated code reads a card's field as `card.name` only for a plain ASCII identifier that is no word
    of Python and starts with no underscore; any other name is a quoted literal given to `getattr`."""
    assert attribute("c", name) == code


def test_a_rulebook_with_hostile_names_plays_as_the_definition_says(monkeypatch: pytest.MonkeyPatch) -> None:
    """The hostile rulebook runs: its functions, locals, texts and zones have their values, checked node by
    node against the definition."""
    rb = rulecraft.load_text(HOSTILE, "evil.rules")
    assert _said(rb.new_game(players=1, trace=True)) == [SAID]
    diff = Differential(monkeypatch, rb)
    assert _said(rb.new_game(players=1, trace=True)) == [SAID]
    assert diff.compared > 20


def test_generated_code_cannot_reach_python_builtins_it_does_not_use() -> None:
    """The module runs with only the built-ins it needs: no `__import__`, `open` or `eval`."""
    rb = rulecraft.load_text(HOSTILE, "evil.rules")
    names = compiled.namespace((), rb.program)
    assert "__import__" not in names["__builtins__"] and "open" not in names["__builtins__"]


# ---------------------------------------------------------------- rulecraft compile


def test_compile_writes_the_module_and_refuses_to_replace_a_file(tmp_path: Path, capsys: Any) -> None:
    """`rulecraft compile GAME -o FILE.py` writes the module; a second time it needs --force."""
    out = tmp_path / "guildhall.py"
    assert main(["compile", "guildhall", "-o", str(out)]) == 0
    assert out.read_text(encoding="utf-8") == generate(rulecraft.load("guildhall").program).source
    compile(out.read_text(encoding="utf-8"), str(out), "exec")  # a valid Python module
    assert main(["compile", "guildhall", "-o", str(out)]) == 2
    assert "give --force to replace it" in capsys.readouterr().err
    assert main(["compile", "guildhall", "-o", str(out), "--force"]) == 0


@pytest.mark.parametrize(
    ("where", "message"),
    [("missing/x.py", "cannot write the file: No such file or directory"), (".", "is a folder, not a file")],
)
def test_compile_to_a_bad_path_is_a_clear_error(where: str, message: str, tmp_path: Path, capsys: Any) -> None:
    """A folder, or a file in a folder that is not there, is named in a one-line error (exit 1)."""
    assert main(["compile", "guildhall", "-o", str(tmp_path / where)]) == 1
    assert message in capsys.readouterr().err


def test_compile_prints_the_module_without_a_file(capsys: Any) -> None:
    """Without -o the module goes to standard output."""
    assert main(["compile", "examples/games/tic_tac_toe.rules"]) == 0
    assert capsys.readouterr().out.startswith("# Generated by rulecraft")


# ---------------------------------------------------------------- the cache and the line table


def test_generated_code_is_cached_on_disk_by_the_rulebook_and_version(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first load of a rulebook writes its compiled module to the cache; the next reads it, not generating."""
    monkeypatch.setenv("RULECRAFT_CACHE_DIR", str(tmp_path))
    rb = rulecraft.load_text(HOSTILE, "evil.rules")
    first = compiled.compile_program(rb.program, rb.digest)
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith("compiled-")] != []

    def no_generation(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("generated again")

    monkeypatch.setattr(compiled, "generate", no_generation)
    again = compiled.compile_program(rb.program, rb.digest)
    assert again.generated.source == first.generated.source
    for cached in tmp_path.glob("compiled-*"):
        cached.write_bytes(b"damaged")
    monkeypatch.undo()
    monkeypatch.setenv("RULECRAFT_CACHE_DIR", str(tmp_path))
    assert compiled.compile_program(rb.program, rb.digest).generated.source == first.generated.source


def test_a_python_error_in_generated_code_points_at_the_rulebook_line(monkeypatch: pytest.MonkeyPatch) -> None:
    """The line table maps the generated line where an error passed back to the expression's span."""
    rb = rulecraft.load_text(HOSTILE.replace("{len(__import__", "{max(__import__"), "evil.rules")
    game = rb.new_game(players=1)
    code = game.code.compiled

    def broken(*args: Any) -> Any:
        raise ZeroDivisionError("a bug")

    monkeypatch.setitem(BUILTINS, "max", attrs.evolve(BUILTINS["max"], run=broken))
    call = next(n for n in code.nodes if isinstance(n, s.Call) and n.name == "max")
    root = next(n for n in code.nodes if code.root(n) is not None and call in _below(n))
    fresh = compiled.compile_program(rb.program, None)
    with pytest.raises(ZeroDivisionError) as caught:
        fresh.root(root)(game, {"yield_": 32, "exec": "x"})  # type: ignore[misc]
    span = fresh.rulebook_span(caught.value.__traceback__)
    assert span is not None and (span.line, span.column) == (call.span.line, call.span.column)


def _below(node: Any) -> list[Any]:
    found, stack = [], [node]
    while stack:
        n = stack.pop()
        found.append(n)
        if isinstance(n, tuple):
            stack.extend(n)
        elif hasattr(n, "__attrs_attrs__"):
            stack.extend(getattr(n, f.name) for f in n.__attrs_attrs__ if f.name != "span")
    return found


def test_a_runaway_comprehension_stops_at_the_work_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    """Generated code charges what it builds and walks to the budget of work (Game.charge); the error names the
    expression that passed it."""
    monkeypatch.setattr(game_module, "WORK_BUDGET", 50_000)
    monkeypatch.setattr(core, "WORK_BUDGET", 50_000)
    rb = load("var v: int = 0 public\nplay { while true { set v = len([[j for j in 1..999] for i in 1..999]) } }")
    with pytest.raises(RulebookError, match="more than 50000 units of work without a decision") as caught:
        rb.new_game(players=1)
    assert "t.rules:11:46" in str(caught.value)  # the inner range, charged before it is built


# `width` calls no function; `f` calls none by name but reaches itself through `C`, and `g` through
# the initial value of `seen`: only `width` may skip the count of the depth of calls.
THROUGH_A_CONSTANT = """
var v: int = 0 public
var seen[Player]: int = g(0) public
fn width(k: int) = 6 - k
fn f(x: int) = C + x
const C = f(1)
fn g(x: int) = seen[players[0]] + x
"""


def _counted(source: str, name: str) -> bool:
    """Whether the generated function of `fn name` counts the depth of calls."""
    body = source.split(f"# fn {name!r}")[1].split("\n# ")[0]
    return "g.fn_depth += 1" in body


@pytest.mark.parametrize(
    ("play", "where"), [("set v = f(2)", "t.rules:15:11"), ("set v = seen[players[0]]", "t.rules:12:25")]
)
def test_a_function_that_calls_none_counts_no_depth_and_one_that_reaches_itself_still_does(
    play: str, where: str
) -> None:
    """A function whose body calls no function of the rulebook runs without counting the depth of calls
    (`calls_no_function`); one that reaches itself through a constant or a keyed variable's initial value
    counts it, so its runaway recursion stops with the error it always did."""
    rb = load(THROUGH_A_CONSTANT + f"play {{ set v = width(2) {play} }}")
    source = generate(rb.program).source
    assert [_counted(source, name) for name in ("width", "f", "g")] == [False, True, True]
    with pytest.raises(RulebookError) as caught:
        rb.new_game(players=1)
    assert str(caught.value).startswith(f"{where}: error: functions called 100 deep (in ")


DEEP_IN_A_LOOP = """
var v: int = 0 public
fn down(x: int) = if x <= 0 then 0 else x + sum([down(x - k) for k in 1..1])
fn twice(x: int) = len([k for k in 1..2 where down(x) > 0])
"""


@pytest.mark.parametrize(
    ("play", "said"),
    [
        ("set v = down(5) + twice(3)", None),
        ("set v = down(200)", "t.rules:12:50"),
        ("set v = twice(200)", "t.rules:12:50"),
    ],
)
def test_a_call_inside_a_loop_tests_the_depth_read_as_the_loop_starts(play: str, said: str | None) -> None:
    """Calls inside a loop test whether calls are as deep as the budget allows by a local read as the loop
    starts (loops.py's `Loop.deep`): a call inside the loop puts the depth back, so the local holds at every
    element. A recursion through a loop stops where it always did (main at 64cfbf4 said the same)."""
    rb = load(DEEP_IN_A_LOOP + f"play {{ {play} }}")
    source = generate(rb.program).source
    down = source.split("# fn 'down'")[1].split("\n# ")[0]
    assert re.search(r"(t\d+) = g\.fn_depth >= _FN_DEPTH_BUDGET\n +for .*\n( .*\n)* +if \1:", down)
    if said is None:
        assert rb.new_game(players=1).state.vars["v"] == 17
        return
    with pytest.raises(RulebookError) as caught:
        rb.new_game(players=1)
    assert str(caught.value).startswith(f"{said}: error: functions called 100 deep (in down)")


ZONES_BY_NAME = """
var v: int = 0 public
setup { create 2 Chip { colour: red, n: 1 } in hand[players[0]] }
fn reds(p: Player) = len(hand[p] where it.colour == Colour.red) + points[p]
fn f(x: int) = if x <= 0 then 0 else reds(players[0]) + f(x - 1)
"""


@pytest.mark.parametrize(("play", "said"), [("set v = f(3)", None), ("set v = f(200)", "t.rules:14:38")])
def test_a_function_that_reads_zones_and_variables_at_keys_counts_no_depth(play: str, said: str | None) -> None:
    """A zone or keyed variable read at its keys (`pile[p]`, `score[p]`) and an enumeration's value
    (`Colour.red`) call no function: a function that reads only such names counts no depth of calls,
    and a runaway recursion through it stops where it did, at the call of the function that recurses."""
    rb = load(ZONES_BY_NAME + f'play {{ {play} say "{{v}}" }}')
    source = generate(rb.program).source
    assert [_counted(source, name) for name in ("reds", "f")] == [False, True]
    if said is None:
        assert _said(rb.new_game(players=1, trace=True)) == ["6"]
        return
    with pytest.raises(RulebookError) as caught:
        rb.new_game(players=1)
    assert str(caught.value).startswith(f"{said}: error: functions called 100 deep (in reds)")


@pytest.mark.parametrize(
    "inits",
    [
        "var x[Player]: int = x[players[0]] + 1 public",
        "var x[Player]: int = y[players[0]] public\nvar y[Player]: int = x[players[0]] public",
    ],
)
def test_an_initial_value_that_reads_itself_is_the_runaway_error_not_a_crash(inits: str) -> None:
    """The walks that decide how a function's code is generated follow the keyed variables' initial values
    it reads (`reached`); one that reads itself, directly or through another, is walked once, and the game
    stops with the located runaway error."""
    rb = load(f'{inits}\nfn f(p: Player) = x[p]\nplay {{ say "{{f(players[0])}}" }}')
    generate(rb.program)  # (the walk ends: it once went on until Python's recursion limit)
    with pytest.raises(RulebookError, match="the rules nest too deeply: runaway recursion"):
        rb.new_game(players=1)


@pytest.mark.parametrize(
    "name", ["guildhall", "renaissance_man", "valdora", "examples/tutorial.rules", "examples/games/tic_tac_toe.rules"]
)
def test_a_generated_module_compiles_without_a_warning(name: str) -> None:
    """Python compiles the module of each bundled rulebook and example without a warning."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        compile(generate(rulecraft.load(name).program).source, name, "exec")


def test_a_number_or_an_empty_list_on_the_left_of_a_comparison_is_compared_without_is() -> None:
    """`1 == x` and `[] == xs` are compared by value (Python warns of `is` with a literal)."""
    rb = load('var n: int = 1 public\nplay { say "{1 == n} {[] == [n]} {2 != n} {[] != []}" }')
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        compile(generate(rb.program).source, "t", "exec")
    assert _said(rb.new_game(players=1, trace=True)) == ["true false true false"]


# Expressions the generator writes in a form of its own (a count, a built-in inline, a zone's key, a
# record's field, a test against none, a field kept through a loop), each charging the work its
# definition charges.
SHORTCUTS = [
    "len(hand[P1] where it.n > 1)",
    "len([1, 5, 3, 7] where it > 2 and it not in [7, 9])",
    "sum([len(1..k) for k in 1..9])",
    "flatten([[j for j in 1..i] for i in 1..9])",
    "flatten([[1], hand[P1]])",
    "first([4, 5, 6] where it > 4)",
    "last([4, 5, 6] where it > 4)",
    "ord(blue)",
    "[{a: 1, b: c.colour}.b for c in hand[P1]]",
    "[c.n for c in hand[P1] if c != none and none != c.colour]",
    "[[c.n + d.n for d in hand[P1] where it.n > c.n - 1] for c in hand[P1]]",
    "[[x + c.n for x in 1..2] for c in [first(hand[P1]), first(row)]]",
    "max([first(hand[P1]).n, 1, 3]) - min([len(row), 2]) + max([5])",
    "max([blue, red])",
    "min(first(hand[P1]).n, len(row), 3) + max(2, len(hand[P1]))",
    "[k for k in 1..3][0] + [k for k in 1..3][2] + [k for k in 1..3][-1] + [k for k in 1..3][-3]",
    "[k for k in 0..8 if k > 3] + [k for k in 5..2] + [k for k in -2..-1] + [len(0..299)]",
    "[first(hand[P1]), last(hand[P1]), first(row), last(row), first(hand[P1] where it.n > 1)]",
    "[c == first(hand[P1]) for c in hand[P1]] + [blue == red, {a: 1} == {a: 1}, players[0] != players[0], red != none]",
    '[{a: 1, b: red} == {b: red, a: it.n} for it in hand[P1]] + ["ab" == "a" + "b", first(row) == none]',
    "[[c == d, c != d, c.colour == d.colour, c.colour != red] for c in hand[P1] for d in hand[P1]]",
    "[P1 == players[0], P1 != players[0], red != blue, red == red, P1 == none, red != none, [red] == [red]]",
    # the matching loop (loops.py): keys interned, then a key that is not (a number), and none as the key's card
    "[len(hand[P1] where it.colour == c.colour) for c in hand[P1]] + [len(hand[P1] where k == it.colour) for k in [red]]",
    "[hand[P1] where it.colour == k and it.colour == c.colour for k in [red, blue] for c in hand[P1]]",
    "[len(hand[P1] where it.n == c.n and c.colour == it.colour) for c in hand[P1]]",
    "[len(hand[P1] where it.colour == c.colour) for c in [first(row)]]",
    # a variable and a list the loop does not change, read once (loops.py's `kept_list`)
    "[[c.n + V2 for c in hand[P1] if c in xs and c.n not in ns] for xs in [hand[P1], row] for ns in [[1], [2]]]",
    # a label read from the cache (calls.py), and texts joined where one side is known to be a text
    '["take " + label(c) for c in hand[P1]] + [label(c) + "!" for c in hand[P1] + [red]] + [label(2) + label(none)]',
    '[label(c) + label(c) for c in hand[P1]] + ["a" + "b"] + [label([1, red]) + ""]',
    # a count of groups (their keys counted, no group made), and a query over groups (each a list)
    "[len(hand[P1] group by it.colour), len(hand[P1] group by [it.colour, it.n]), len(row group by it.n)]",
    "[len([1, 2, 1, none, [1], [1]] group by it), len(([3, 1, 3] group by it) where len(it) > 1)]",
    "[([3, 1, 3] group by it) where len(it) > 1]",
    # lengths and counts known small (body.py's `Body.small`): multiplied and added without a test of their size
    "[len(hand[P1]) * len(row), len(hand[P1] where it.n > 1) * 3, 3 * len(hand[P1] group by it.colour)]",
    "[len(hand[P1]) + len(row) - len(0..4), 2147483647 * len(hand[P1]), len(hand[P1]) * -2147483647]",
    "sum([len(g) * len(g) for g in hand[P1] group by it.n]) + len([1, 2]) * len([k for k in 1..3])",
    # groups read only by their sizes (loops.py's `read_by_size`), and groups read otherwise
    "[len(g) for g in hand[P1] + row group by it.colour if len(g) > 1] + [count(g) * 2 for g in [1, 2, 1] group by it]",
    "[len(([3, 1, 3, 3] group by it) where len(it) > 1 and count(it) < 3), len([g for g in [1] group by it])]",
    "[first(g).n + len(g) for g in hand[P1] group by it.n] + [len([x for x in g]) for g in [1, 2, 1] group by it]",
]


def _walked(game: Any) -> Any:
    """`evaluate(node, env)` by the tree-walking definition (tests/oracle/), for `_charged`."""
    return lambda node, env: _oracle(game, node, env)


def _charged(game: Any, evaluate: Any, node: Any, work: int) -> tuple[Any, int]:
    """What evaluating gives (a value or an error's message) and the work it charged, from `work` left.
    (Where a runaway query points differs: generated code charges its loop at the query, the definition
    at its key; the units are the same.)"""
    game.work_left = work
    try:
        outcome: Any = evaluate(node, {})
    except RulebookError as error:
        outcome = str(error).splitlines()[0].partition(" error: ")[2]
    return outcome, work - game.work_left


def _as_the_definition(rb: rulecraft.Rulebook) -> int:
    """Hold the generated code of the rulebook's constant `X` to the definition: the same value (or error) and
    the same work charged, in full and wherever the budget runs out part of the way; the work it charges."""
    game = rb.new_game(players=1)
    node = rb.program.consts["X"].value
    fast, charged = _charged(game, game.evaluate, node, 10_000)
    assert (fast, charged) == _charged(game, _walked(game), node, 10_000)
    for work in range(charged):  # every place the budget can run out
        assert _charged(game, game.evaluate, node, work) == _charged(game, _walked(game), node, work)
    return int(charged)


@pytest.mark.parametrize("expr", SHORTCUTS)
def test_generated_code_charges_the_work_of_the_definition(expr: str) -> None:
    """Generated code gives the value the definition gives and charges the same work to the budget, in
    full and when the budget runs out part of the way (the same error)."""
    setup = "setup { create 3 Chip { colour: red, n: 2 } in hand[P1] }"
    rb = load(f"const P1 = players[0]\nvar V2: int = 3 public\nconst X = {expr}\n{setup}\nplay {{ }}\n")
    assert _as_the_definition(rb) > 0 or expr == "ord(blue)"


# The unusual case of each operation (a value of another kind, an index out of range, two lists compared, a
# built-in that cannot take its values), with operands that charge work: `V` is none, of type `any`.
UNUSUAL = [
    "[k * 2 for k in 1..3] + V",
    "[k for k in 1..3][len([k for k in 1..3]) + 2]",
    "[k for k in 1..3] == [k * 1 for k in 1..3]",
    "[1] in [[k] for k in 1..2]",
    'sum(V + [k for k in 1..3] + ["a"])',
    'max(V + [k for k in 1..3] + ["a", 1])',
    "len([k for k in 1..3]) < V",
    "len([k for k in 1..3]) * V",
    "len(V + [k for k in 1..3])",
    "any([k for k in 1..3] + V)",
    "first([c for c in hand[P1]] + V).n",
    "min(len([k for k in 1..3]), V)",
    "max(V, len([k for k in 1..3]), 2)",
    "[k for k in 1..3][3]",
    "[k for k in 1..0][0]",
    "[k for k in 1..3][-4]",
    "V[0]",
    "[len(hand[P1] + [V] where it.colour == c.colour) for c in hand[P1]]",
    "[hand[P1] + [V] where it.colour == k for k in [red]]",
    "[len(hand[V] where it.colour == c.colour) for c in hand[P1]]",
    "[x in V for x in 1..3]",
    "[[x] in [[1], [2]] and x in V for x in 1..3]",
    '["x" + V for x in 1..2]',
    "[label(c) + c.n for c in hand[P1]]",
    # a text known to be one (a label, a text joined) compared with a value of any kind: Python's `==`
    '[[label(c) == V, V != "x" + label(c), label(c) == label(c) + ""] for c in hand[P1]]',
    # a small number times one written in the text too large to leave untested: the operation's error
    "len(hand[P1]) * 4611686018427387904",
    "[len([k for k in 1..3]) * -2147483648 * 4294967296 * 2]",
]


@pytest.mark.parametrize("expr", UNUSUAL)
def test_the_unusual_case_charges_its_operands_once_as_the_definition_does(expr: str) -> None:
    """Generated code hands the unusual case to the operation with the operands' values it computed
    (runtime/operations.py), never evaluating an operand again: the same value or error as the
    definition, and the same work charged, in full and wherever the budget runs out."""
    setup = "setup { create 3 Chip { colour: red, n: 2 } in hand[P1] }"
    rb = load(f"const P1 = players[0]\nvar V: any = none public\nconst X = {expr}\n{setup}\nplay {{ }}\n")
    _as_the_definition(rb)


REMEMBERED = """
const P1 = players[0]
fn reds(p: Player) = len(hand[p] where it.colour == red)
fn upto(p: Player, n: int) = [reds(p) + k for k in 1..n]
fn total(xs: list of int) = sum([x * 2 for x in xs])
const X = [reds(P1), reds(P1), total(upto(P1, 3)), total(upto(P1, 3)), total([reds(P1)]), len(upto(P1, 2))]
setup { create 3 Chip { colour: red, n: 2 } in hand[P1] }
play { }
"""


# Where the budget runs out in REMEMBERED's X, with the memo empty (cold) and full (warm): the first budget
# at which each place is reached, and the work charged when it is (as the whole call in one function,
# main at 9fc61d4, charged it).
REMEMBERED_RUNS_OUT = {
    ("cold", "t.rules:15:12"): (0, 38),
    ("cold", "t.rules:12:26"): (38, 41),
    ("cold", "t.rules:15:22"): (41, 79),
    ("cold", "t.rules:15:38"): (79, 115),
    ("cold", "t.rules:13:52"): (115, 118),
    ("cold", "t.rules:13:30"): (118, 121),
    ("cold", "t.rules:13:31"): (121, 159),
    ("cold", "t.rules:15:32"): (235, 267),
    ("cold", "t.rules:14:33"): (267, 270),
    ("cold", "t.rules:14:29"): (270, 273),
    ("cold", "t.rules:15:58"): (273, 309),
    ("cold", "t.rules:15:52"): (309, 341),
    ("cold", "t.rules:15:79"): (341, 379),
    ("cold", "t.rules:15:72"): (379, 411),
    ("cold", "t.rules:15:95"): (413, 449),
    ("cold", "ok"): (529, 529),
    ("warm", "t.rules:15:12"): (0, 38),
    ("warm", "t.rules:15:22"): (38, 76),
    ("warm", "t.rules:15:38"): (76, 112),
    ("warm", "t.rules:15:32"): (112, 144),
    ("warm", "t.rules:15:58"): (144, 180),
    ("warm", "t.rules:15:52"): (180, 212),
    ("warm", "t.rules:15:79"): (212, 250),
    ("warm", "t.rules:15:72"): (250, 282),
    ("warm", "t.rules:15:95"): (282, 318),
    ("warm", "ok"): (318, 318),
}


def test_a_call_of_a_remembered_function_charges_each_call_found_or_not_and_runs_out_where_it_did() -> None:
    """A call of a remembered function looks in the memo where it stands (`remembered_call`): found or
    computed, each call charges the function's cost as the call in one function did, the budget runs out
    at the same calls with the same error, and the values are the same, the memo empty or full."""
    rb = load(REMEMBERED)
    node = rb.program.consts["X"].value
    warm = rb.new_game(players=1)
    assert _charged(warm, warm.evaluate, node, 10_000) == ((3, 3, 30, 30, 6, 2), 529)
    found: dict[tuple[str, str], tuple[int, int]] = {}
    for work in range(530):
        for tag, game in (("cold", rb.new_game(players=1)), ("warm", warm)):
            game.work_left, where = work, "ok"
            try:
                assert game.evaluate(node, {}) == (3, 3, 30, 30, 6, 2)
            except RulebookError as error:
                where = str(error).partition(": error: more than ")[0]
            found.setdefault((tag, where), (work, work - game.work_left))
    assert found == REMEMBERED_RUNS_OUT


INLINED = """
const P1 = players[0]
var v: int = 0 public
fn small(a: int, b: int) = if a > b then a - b else b * 2
fn alike(c: Chip, d: Chip) = c.colour == d.colour and c.n == d.n
fn deep(x: int) = if x <= 0 then 0 else small(x, 1) + deep(x - 1)
const X = [small(3, 1), small(1, 3), len([c for c in hand[P1] if alike(c, first(hand[P1]))]), small(1, 0) + small(0, 1)]
setup { create 3 Chip { colour: red, n: 2 } in hand[P1] }
"""


def test_a_call_of_a_small_function_is_its_body_where_it_stands_charged_as_the_call() -> None:
    """A call of a small function that is not remembered and calls none is its body written where the call
    stands (`inlined_call`): the value the definition gives, the same work charged and the same located
    error wherever the budget runs out, and the depth budget checked at the call as before."""
    rb = load(INLINED + "play { }")
    assert {"small", "alike"} <= Generator(rb.program, False).inlined
    game = rb.new_game(players=1)
    node = rb.program.consts["X"].value
    fast, charged = _charged(game, game.evaluate, node, 10_000)
    assert fast == (2, 6, 3, 3)
    for work in range(charged + 1):
        assert _charged(game, game.evaluate, node, work) == _charged(game, _walked(game), node, work)
    with pytest.raises(RulebookError) as caught:
        load(INLINED + "play { set v = deep(200) }").new_game(players=1)
    assert str(caught.value).startswith("t.rules:15:41: error: functions called 100 deep (in small)")


BOOLEANS = """
fn pos(n: int) = n > 0
fn via(n: int) = pos(n)
fn same(x: any) = x
var v: int = 0 public
play {
  set v = len([x for x in [1, 2, 3] if via(x) and not pos(x - 2)])
  say "{v}"
  set v = len([x for x in [1, 2] if same(x)])
}
"""


def test_a_call_of_a_function_whose_value_is_a_boolean_is_a_condition_without_a_check() -> None:
    """A function whose body is a boolean by construction (a comparison, or a call of such a function)
    gives a boolean: its call is a condition without a check of its value's kind; a call of any other
    function is still checked, its error located at the call."""
    rb = load(BOOLEANS)
    source = generate(rb.program).source
    assert source.count("g.truth_of(") == 1  # `same(x)`'s alone
    with pytest.raises(RulebookError) as caught:
        rb.new_game(players=1)
    assert str(caught.value).startswith("t.rules:18:37: error: a condition must be true or false, not 1")


# Rules of no, one and two bindings, over players and over a zone's cards (none holds while the game
# runs: `armed` is 0); `odd` fails when it is checked.
RULES = """
var armed: int = 0 public
setup { create 1 Chip { colour: red, n: 1 } in row  create 1 Chip { colour: blue, n: 7 } in row }
rule none_bound() when armed > 0 and len(row) > 1 { }
rule by_player(p in players) when armed > 0 and points[p] > 2 { }
rule by_card(c in row) when armed > 0 and c.n > 5 { }
rule two(p in players, c in row) when armed > 0 and points[p] + c.n > 8 { }
rule odd(c in row) when armed > 0 and [1][c.n] > 0 { }
play { }
"""


def test_a_rules_search_for_its_binding_is_the_general_search() -> None:
    """The search made for each rule (`CodeCache.matcher`) finds the binding the general search finds
    (`evaluate.first_binding`), charges the same work, and fails with the same located error."""
    rb = load(RULES)
    game = rb.new_game(players=3)
    game.state.vars["points[P2]"] = 3
    game.state.vars["armed"] = 1
    game.state_changed()
    rules = {rule.name: rule for rule in rb.program.rules}
    made = [game.code.matcher(rules[name]) is not None for name in ("none_bound", "by_player", "by_card", "two", "odd")]
    assert made == [True, True, True, False, True]  # (several bindings: the general search)

    def both(rule: s.RuleDecl) -> list[Any]:
        found = []
        for search in (
            lambda: game.rule_match(rule),
            lambda: first_binding(game, rule.bindings, lambda env: game.holds(rule.when, env)),
        ):
            game.work_left = 1000
            try:
                found.append((search(), 1000 - game.work_left))
            except RuntimeFailure as error:
                found.append((str(error), 1000 - game.work_left))
        return found

    row = game.state.zones["row"]
    expected = {
        "none_bound": ({}, 0),
        "by_player": ({"p": Player(1)}, 40),
        "by_card": ({"c": CardRef(row[1])}, 40),
        "two": ({"p": Player(1), "c": CardRef(row[1])}, 120),
    }
    for name, (env, work) in expected.items():
        mine, general = both(rules[name])
        assert mine == general == (env, work), name
    mine, general = both(rules["odd"])
    assert mine == general
    assert mine[0].startswith("t.rules:17:39: error: 'index 1 is outside a list of 1'"), mine[0]


NESTED = """game G players 2..3
var pairs: list of int = [] public
var total: int = 0 public
fn flat_sum() = sum([i * 10 + seat(p) for p in players if seat(p) != 1 for i in 0..2 if i != 1])
play {
  set pairs = [seat(p) * 10 + i for p in players for i in 0..4]
  set total = flat_sum()
  say "{[[i, j] for i in 1..2 for j in 1..i]}"
}
"""


def test_nested_comprehensions_loop_as_written(monkeypatch: pytest.MonkeyPatch) -> None:
    """`[x for p in players for i in 0..4]`: the later `for` is the inner loop, each `if` filters the
    loop it follows, the lists are joined; compiled code and the definition agree, and fmt keeps it."""
    rb = rulecraft.load_text(NESTED, "nested.rules")
    game = rb.new_game(players=2, trace=True)
    assert game.state.vars["pairs"] == (10, 11, 12, 13, 14, 20, 21, 22, 23, 24)
    assert game.state.vars["total"] == 2 + 22  # P2 only; i in 0 and 2
    assert _said(game) == ["[[1, 1], [2, 1], [2, 2]]"]
    diff = Differential(monkeypatch, rb)
    again = rb.new_game(players=2, trace=True)
    assert again.state.vars == game.state.vars and diff.compared > 5
    assert format_text(NESTED, "nested.rules") == NESTED


EVERY_ROOT = """
const P1 = players[0]
zone slot[Player, int]: Chip public
proc best(xs: list of int, k: int) { return max(xs) + k }
play {
  for c in slot[P1, 1] { set v = v + c.n }
  let m = best([v, len(slot[P1, 1])], len(slot[P1, 2]))
  set v = v + m
}
var v: int = 0 public
setup { create 3 Chip { colour: red, n: 2 } in slot[P1, 1] }
"""


def test_every_expression_a_statement_reads_is_a_root_of_generated_code(monkeypatch: pytest.MonkeyPatch) -> None:
    """A procedure's arguments in `let x = proc(...)` and the keys of a zone a `for` goes over are read by
    generated functions of their own (roots), never by code generated for an expression from outside the
    program (`Compiled.fragment`), as the tree-walking definition once read them."""
    rb = load(EVERY_ROOT)

    def outside(self: Any, e: Any) -> Any:
        raise AssertionError(f"not a root: {e!r}")

    monkeypatch.setattr(compiled.Compiled, "fragment", outside)
    game = rb.new_game(players=1)
    assert game.state.vars["v"] == 6 + (max(6, 3) + 0)


BY_KIND = """game Piles players 1..1
enum Kind { red, blue }
enum Mark { red }
card Chip { kind: Kind } label "{kind}"
zone pile[Kind]: Chip public
var seen[Kind]: int = 0 public
setup {
  create 1 Chip { kind: Kind.red } in pile[Kind.red]
  create 2 Chip { kind: Kind.blue } in pile[Kind.blue]
}
fn size(k: Kind) = len(pile[k]) + seen[k]
play {
  set seen[Kind.blue] = 10
  say "{[size(k) for k in Kind]}"
}
"""


def test_a_zone_or_variable_keyed_by_an_enumeration_value_reads_its_key_from_a_table() -> None:
    """A zone or variable keyed by an enumeration's member is read at its key as `zone_key` spells it
    (`Kind.red` where `red` alone could be another enumeration's), the text taken from a table of the
    enumeration's members made once."""
    rb = rulecraft.load_text(BY_KIND, "piles.rules")
    source = generate(rb.program).source
    assert "{v: _zone_key('pile', (v,)) for v in _program.enums['Kind']}" in source
    assert "{v: _zone_key('seen', (v,)) for v in _program.enums['Kind']}" in source
    game = rb.new_game(players=1, trace=True)
    assert sorted(game.state.zones) == ["pile[Kind.red]", "pile[blue]"]
    assert _said(game) == ["[1, 12]"]


def test_a_zone_keyed_by_an_enumeration_value_as_a_value_is_the_zone_at_that_key() -> None:
    """A zone keyed by an enumeration's member, taken as a value (`top(pile[k])`, a zone moved), is the
    zone at that key, `Kind.red` as `blue`, taken from a table of the enumeration's members made once."""
    rb = rulecraft.load_text(
        BY_KIND.replace("play {", 'fn top_of(k: Kind) = top(pile[k])\nplay {\n  say "{top_of(Kind.red)}"'),
        "piles.rules",
    )
    assert "{v: _ZoneRef('pile', (v,)) for v in _program.enums['Kind']}" in generate(rb.program).source
    game = rb.new_game(players=1, trace=True)
    assert _said(game) == ["red", "[1, 12]"]


def test_two_zones_joined_move_their_cards_in_the_join_s_order() -> None:
    """Cards moved as a join of zones (`a + b`) or a zone alone go in their order, each taken from
    where it stands, and leave their zones empty."""
    rb = rulecraft.load_text(
        BY_KIND.replace("zone pile[Kind]: Chip public", "zone pile[Kind]: Chip public\nzone heap: Chip public").replace(
            "play {", 'play {\n  move pile[Kind.blue] + pile[Kind.red] to heap\n  say "{heap map it.kind}"'
        ),
        "piles.rules",
    )
    game = rb.new_game(players=1, trace=True)
    assert _said(game)[0] == "[blue, blue, red]"
    assert [len(game.state.zones.get(k, [])) for k in ("pile[blue]", "pile[Kind.red]", "heap")] == [0, 0, 3]
    assert game.state.zones["heap"] == [1, 2, 0]


MATCHING = """
const P1 = players[0]
fn twins(p: Player, c: Chip) = len(hand[p] where it.colour == c.colour and c.n == it.n)
fn of_colour(p: Player, k: Colour) = hand[p] where k == it.colour
fn above(p: Player, c: Chip) = len(hand[p] where it.n > c.n)
setup { create 2 Chip { colour: red, n: 1 } in hand[P1]  create 1 Chip { colour: blue, n: 1 } in hand[P1] }
play { say "{[twins(P1, c) for c in hand[P1]]} {len(of_colour(P1, blue))} {above(P1, first(hand[P1]))}" }
"""


def test_a_where_that_matches_fields_with_kept_keys_is_a_loop_of_is_tests() -> None:
    """A `where` whose test only compares the element's fields with values the loop does not change
    (`it.colour == c.colour`, either way round, joined by `and`) gets a loop of `is` tests beside the
    general one (loops.py's `matching_loop`); any other test has the general loop alone. Either gives
    the definition's answers (SHORTCUTS and UNUSUAL above hold them to it, work and errors too). A count
    of a zone's cards so tested in a remembered function is read from an index of the zone instead
    (`indexed_count`, below), beside the general loop."""
    rb = load(MATCHING)
    source = generate(rb.program).source
    fns = {name: source[source.index(f"# fn {name!r}") :].split("\n# ")[0] for name in ("twins", "of_colour", "above")}
    assert "_field_index(" in fns["twins"] and "_attrgetter('colour', 'n')" in source
    assert not re.search(r"if t\d+\.colour is t\d+:\n +if t\d+\.n is t\d+:", fns["twins"])
    assert re.search(r"if t\d+\.colour is t\d+:", fns["of_colour"])
    assert " is t" not in fns["above"].split("def f")[1].replace(" is _M", "")
    assert _said(rb.new_game(players=1, trace=True)) == ["[2, 2, 1] 1 0"]


# A count of a zone's cards whose test compares their fields with values the count does not change, in a
# remembered function (loops.py's `indexed_count`): read from an index of the zone kept in the function's
# dict of the memo, made at the first call after a change and looked up by the calls that follow.
INDEXED = """
const P1 = players[0]
card Gem { shade: Colour } label "{shade} gem"
zone mixed: Chip public
fn same_colour(p: Player, c: Chip) = len(hand[p] where it.colour == c.colour)
fn twin(p: Player, c: Chip) = len(hand[p] where it.colour == c.colour and c.n == it.n)
fn of(p: Player, k: Colour) = len(hand[p] where k == it.colour)
fn piled(k: Colour) = len(pile where it.colour == k)
fn in_mixed(k: Colour) = len(mixed where it.colour == k)
setup {
  create 2 Chip { colour: red, n: 2 } in hand[P1]
  create 1 Chip { colour: blue, n: 2 } in hand[P1]
  create 1 Chip { colour: blue, n: 3 } in row
  create 1 Chip { colour: red, n: 1 } in pile
  create 1 Chip { colour: red, n: 1 } in mixed
  create 1 Gem { shade: red } in mixed  # (a card without the field: the checker lets it into the zone)
}
"""
INDEXED_COUNTS = {
    # (no call twice with the same arguments: a value found in the memo charges the call alone, the definition
    # computes it again)
    "[same_colour(P1, c) for c in hand[P1] + row] + [of(P1, k) for k in [red, blue, green]]": (2, 2, 1, 1, 2, 1, 0),
    # a key that is a number, not an interned value: the general loop
    "[twin(P1, c) for c in hand[P1] + row]": (2, 2, 1, 0),
    "[piled(k) for k in [red, blue]] + [of(P1, red) * 10]": (1, 0, 20),
    # a card without the field: the definition's error
    "[piled(red), in_mixed(red)]": None,
    # a zone's key that is none: the zone as the definition reads it
    "[of(none, red)]": None,
}


def _cold(rb: rulecraft.Rulebook, work: int, walked: bool) -> tuple[Any, int]:
    """`_charged` of the constant `X` in a new game (its memo empty), by generated code or the definition."""
    game = rb.new_game(players=1)
    evaluate = _walked(game) if walked else game.evaluate
    return _charged(game, evaluate, rb.program.consts["X"].value, work)


@pytest.mark.parametrize("expr", INDEXED_COUNTS)
def test_a_count_of_a_zone_s_matching_cards_in_a_remembered_function_is_read_from_an_index(expr: str) -> None:
    """The index gives the definition's count, charges the work its loop would, and runs out of the budget
    where the definition does, the memo empty at every run; a key not interned, a card without the field
    or a zone key that is none is the definition's loop (its value or its error)."""
    rb = load(f"{INDEXED}const X = {expr}\nplay {{ }}\n")
    value, charged = _cold(rb, 10_000, False)
    assert (value, charged) == _cold(rb, 10_000, True)
    if INDEXED_COUNTS[expr] is not None:
        assert value == INDEXED_COUNTS[expr]
    for work in range(charged):
        assert _cold(rb, work, False) == _cold(rb, work, True)
    assert "_field_index(" in generate(rb.program).source


def test_a_count_read_from_an_index_is_made_anew_after_each_change_to_what_it_counts() -> None:
    """The index lives in the function's dict of the memo, which a change to the zone or to a card's field
    empties: counts after a move, a card's change and an undone attempt are the state's, and a clone and
    the game it was cloned from each count their own zone once they differ."""
    rb = load(
        INDEXED
        + """
play {
  say "{[same_colour(P1, c) for c in hand[P1] + row]}"
  move first(row) to hand[P1]
  say "{[same_colour(P1, c) for c in hand[P1]]} {of(P1, blue)}"
  set first(hand[P1]).colour = green
  say "{[same_colour(P1, c) for c in hand[P1]]} {of(P1, green)} {of(P1, red)}"
  attempt { move first(hand[P1]) to row  say "{of(P1, green)}"  fail "no" }
  say "{of(P1, green)} {piled(red)}"
  let c = choose one from hand[P1] by P1
  move c to row
  say "{of(P1, red)} {of(P1, blue)} {of(P1, green)}"
}
"""
    )
    game = rb.new_game(players=1, trace=True)
    assert _said(game) == ["[2, 2, 1, 1]", "[2, 2, 2, 2] 2", "[1, 1, 2, 2] 1 1", "0", "1 1"]
    other = game.clone(trace=True)
    game.apply("red 2")
    other.apply("green 2")
    assert _said(game)[-1] == "0 2 1" and _said(other)[-1] == "1 2 0"


def test_groups_read_only_by_their_sizes_are_counted_not_made() -> None:
    """A loop over a `group by` whose body reads each group only by `len` (or `count`) runs over the sizes of
    the groups, counted by their keys (loops.py's `group_sizes`): no group is made. A body that reads a
    group otherwise, or holds a comprehension or query that could name it again, gets the groups.
    (SHORTCUTS holds both to the definition, value, work and errors.)"""
    rb = load(
        "const P1 = players[0]\n"
        "fn spread(p: Player) = sum([len(g) * len(g) for g in hand[p] group by it.colour])\n"
        "fn full(p: Player) = len((hand[p] group by it.n) where len(it) == 2)\n"
        "fn firsts(p: Player) = [first(g).n for g in hand[p] group by it.n]\n"
        "fn nested(p: Player) = [len([c for c in g]) for g in hand[p] group by it.n]\n"
        "setup { create 2 Chip { colour: red, n: 2 } in hand[P1]  create 1 Chip { colour: blue, n: 3 } in hand[P1] }\n"
        'play { say "{spread(P1)} {full(P1)} {firsts(P1)} {nested(P1)}" }\n'
    )
    source = generate(rb.program).source
    fns = {
        name: source[source.index(f"# fn {name!r}") :].split("\n# ")[0]
        for name in ("spread", "full", "firsts", "nested")
    }
    assert "_count_into(" in fns["spread"] and "_count_into(" in fns["full"]
    assert "_query_by_keys('group'" in fns["firsts"] and "_query_by_keys('group'" in fns["nested"]
    assert _said(rb.new_game(players=1, trace=True)) == ["5 1 [2, 3] [2, 1]"]


# Cards known to be cards (body.py's `Body.cards`): the elements of a zone, of the cards of one that pass a
# `where` or are sorted, and of a call of a function whose body picks them (`Generator.card_list_fns`).
KNOWN_CARDS = """
const P1 = players[0]
var V: any = none public
fn big(p: Player) = hand[p] where it.n > 1
fn ranked(p: Player) = big(p) sorted by it.n
fn highest(p: Player) = ranked(p) max by it.n
setup {
  create 2 Chip { colour: red, n: 2 } in hand[P1]
  create 1 Chip { colour: blue, n: 1 } in hand[P1]
  create 1 Chip { colour: blue, n: 3 } in row
}
"""
CARD_EXPRESSIONS = [
    "[[c in [true, 1, none, [c]], c in [c], c not in [0, 1, false], c in hand[P1], c in row] for c in hand[P1]]",
    "[c in V for c in hand[P1]]",
    "[c not in V for c in hand[P1] where it.n > 1]",
    "[[c == none, c == c, c != first(row), none == c, c == V] for c in hand[P1]]",
    "[[c == d, c != d, c in hand[P1], label(c)] for c in hand[P1] where it.n > 1 for d in row + hand[P1]]",
    "[[c in row, c == first(hand[P1])] for c in (hand[P1] where it.n > 1) sorted by it.n]",
    "[label(c) + label(c) for c in (hand[P1] + row) max by it.n] + [label(c) for c in hand[P1] min by it.n]",
    "[c in row for c in (hand[P1] where it.n > 1) + (row where it.n > 1) + hand[P1]]",
    '["take " + label(c) for c in (hand[P1] where it.colour == blue) sorted by it.n]',
]


# (Calls of the functions are held to the definition by their values below: a call found in the memo charges
# less work than the definition's evaluation of it, as REMEMBERED_RUNS_OUT shows.)
@pytest.mark.parametrize("expr", CARD_EXPRESSIONS)
def test_a_value_known_to_be_a_card_is_compared_and_looked_for_as_the_definition_does(expr: str) -> None:
    """A card is the same as another value only if it is it, and is in a list only as itself: where the
    generated code knows a value is a card, it tests `is` and Python's `in` without a test of its class,
    and reads its label from the cache without one; the values, the work charged and the errors are the
    definition's, wherever the budget runs out."""
    rb = load(f"{KNOWN_CARDS}const X = {expr}\nplay {{ }}\n")
    _as_the_definition(rb)


def test_a_product_of_lengths_is_made_without_a_test_of_their_size() -> None:
    """A length or a count is below 2**31 (no list, text or zone is that long), so a product of two, or of one
    and a number of the text below that, is within the number budget: no test of their size is generated,
    while a number of the text above it, or a value of unknown size, is still tested."""
    rb = load(
        "const P1 = players[0]\n"
        "fn area(p: Player) = len(hand[p]) * len(hand[p] where it.n > 1) + 3 * len(row)\n"
        "fn scaled(p: Player, k: int) = len(hand[p]) * 4294967296 + k * len(row)\n"
        'play { say "{area(P1)} {scaled(P1, 2)}" }\n'
    )
    source = generate(rb.program).source
    area = source[source.index("# fn 'area'") :].split("\n# ")[0]
    scaled = source[source.index("# fn 'scaled'") :].split("\n# ")[0]
    assert "2147483648" not in area and area.count("_INT_BUDGET") == 2  # (the sum of the products: tested)
    assert scaled.count("-2147483648 <") == 2  # (4294967296, and the parameter `k`: each tested)


def test_the_elements_of_a_zone_and_of_a_function_that_picks_its_cards_are_known_cards() -> None:
    """Where the generator knows the cards (`KNOWN_CARDS`'s functions): a membership test of a card is Python's
    `in` alone, and a function whose body picks cards of a zone, or of a call of one, is known to."""
    more = "fn mine(p: Player) = [[c in ranked(p), c == first(row), label(c)] for c in big(p) + highest(p)]\n"
    more += "fn any_of(xs: list of Chip) = xs where it.n > 1\n"
    rb = load(f'{KNOWN_CARDS}{more}play {{ say "{{mine(P1)}} {{[c in ranked(P1) for c in highest(P1)]}}" }}\n')
    assert Generator(rb.program, False).card_list_fns == {
        "big",
        "ranked",
        "highest",
    }  # (`any_of`: its list may hold anything)
    source = generate(rb.program).source
    mine = source[source.index("# fn 'mine'") :].split("\n# ")[0]
    assert re.search(r"t\d+ = \(v\d+ in t\d+\)", mine) and ".__class__ is not int" not in mine
    assert re.search(r"t\d+ = v\d+ is t\d+", mine) and "__class__ is _CardRef" not in mine
    said = "[[true, false, red 2], [true, false, red 2], [true, false, red 2], [true, false, red 2]] [true, true]"
    assert _said(rb.new_game(players=1, trace=True)) == [said]  # (as main at ce04519, before cards were known, said)
