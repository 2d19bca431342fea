"""Blocks of statements as generated code (compile/blocks.py): safe generation, what it shares, and
`rulecraft compile --blocks`, which shows it.

What the generated code does is tested where authors meet it: every snapshot, the fast paths
(tests/test_fast_paths.py, which compares the code run inline with the frame machine) and the
runtime's tests of each statement run through it.
"""

from __future__ import annotations

import ast
import linecache
import re
from typing import Any

import pytest
import rulecraft
from rulecraft.cli import main
from rulecraft.errors import RulebookError
from rulecraft.runtime import codecache
from rulecraft.tools.coverage import Structure

# Names built to break out of generated code, in every place a block names something: procedures,
# parameters, locals, loop variables, a `let` of a call, an assignment, a `set` of a keyed variable,
# a `create`, a `move` and a `draw`, and texts with quotes, newlines and comment signs.
HOSTILE = r"""game Evil players 1..2
card Bit { x: int } label "{x}"
zone pile: Bit public
zone getattr_: Bit hidden shuffled
zone __class__[Player]: Bit public
var __builtins__: int = 0 public
var None_[Player]: int = 0 public
proc __import__(__class__: int, lambda_: list of int) {
  for __dict__ in lambda_ {
    if __dict__ > __class__ { set __builtins__ += __dict__ } elif __dict__ == 0 { say "zero')#\n" } else { }
  }
}
proc exec_(_x: int) {
  let yield_ = _x
  yield_ += 1
  yield_ -= 2
  return yield_
}
play {
  __import__(1, [0, 1, 2, 3])
  let eval_ = exec_(4)
  create 2 Bit { x: eval_ } in pile
  move pile to __class__[players[0]]
  set None_[players[0]] += len(__class__[players[0]])
  create 3 Bit { x: 1 } in getattr_
  draw eval_ - 1 from getattr_ to __class__[players[0]]
  say "{__builtins__} {eval_} \"');import os# {None_[players[0]]}"
}
"""

# The names a block's code may hold: its locals and arguments, its constants (c0, c1, ...), the runtime's
# helpers (leading underscore, from codecache._BASE) and the functions it defines.
LOCALS = {"g", "env", "frame", "frames", "state", "depth", "at", "i", "r", "v", "w", "old", "d", "k", "key", "n"}
LOCALS |= {"body", "items", "item", "j", "new", "cards", "to", "src", "run", "do"}
LOCALS |= {"len", "enumerate", "int", "bool"}  # the built-ins it may call
CONSTANT = re.compile(r"c[0-9]+")
ATTRIBUTES = {"frames", "state", "over", "pending", "work_left", "charge", "runaway", "span", "inline_depth"}
ATTRIBUTES |= {"sinks", "pushes", "push", "insert", "pop", "run", "stmts", "held", "env", "i", "value"}
ATTRIBUTES |= {"number", "arith", "as_list", "__class__", "index", "variable", "set_var", "cards_of", "zone_value"}
ATTRIBUTES |= {"move", "create", "number_of", "get", "nested", "keys", "draw_cards", "code", "end", "vars", "truth_of"}


def _blocks_run(rb: rulecraft.Rulebook) -> list[tuple[str, dict[str, object]]]:
    """The source (its one function, `run`) and namespace of every block a game of `rb` ran."""
    rb.new_game(players=1, trace=True)
    cache = rb.code_cache
    assert cache is not None
    made = [codecache.generated_block(stmts, cache) for stmts, _body in cache.blocks.values()]
    return [(run, namespace) for run, namespace, _owners in made]


def test_no_name_or_text_of_a_rulebook_reaches_a_blocks_source() -> None:
    """Every name in a block's source is one the generator made or the runtime gives; the rulebook's names
    and texts are constants of the namespace, never source: the source holds no string at all."""
    rb = rulecraft.load_text(HOSTILE, "evil.rules")
    blocks = _blocks_run(rb)
    assert len(blocks) >= 6  # play, both procedures, the loop's body, the if's three arms
    for source, namespace in blocks:
        tree = ast.parse(source)
        for node in ast.walk(tree):
            if isinstance(node, ast.Name):
                assert node.id in LOCALS or CONSTANT.fullmatch(node.id) or node.id in codecache._BASE, node.id
            elif isinstance(node, ast.Attribute):
                assert node.attr in ATTRIBUTES, node.attr
            elif isinstance(node, ast.Constant):
                assert not isinstance(node.value, str), node.value
        assert set(namespace["__builtins__"]) == {"len", "enumerate", "int", "bool"}  # type: ignore[arg-type]
    constants = {repr(v) for _source, namespace in blocks for v in namespace.values()}
    assert {"'__import__'", "'__class__'", "'__dict__'", "'yield_'", "'exec_'", "'None_'"} <= constants


def test_a_rulebook_with_hostile_names_runs_its_blocks_as_written() -> None:
    """The hostile rulebook plays: the loop, the branches, the assignments and the returned value."""
    game = rulecraft.load_text(HOSTILE, "evil.rules").new_game(players=1, trace=True)
    said = [e.text for e in game.events if e.verb == "say"]
    assert said == ["zero')#\n", "5 3 \"');import os# 2"]


def test_blocks_of_the_same_shape_share_one_compiled_source() -> None:
    """Two blocks that differ only in their names and expressions have the same source, compiled once."""
    rb = rulecraft.load_text(
        """game T players 1..1
var a: int = 0 public
var b: int = 0 public
play {
  if a == 0 { set a = 1 }
  if b < 3 { set b = 2 }
  say "{a} {b}"
}
""",
        "t.rules",
    )
    codecache._COMPILED.clear()  # (a cache: what other tests compiled would hide what this game compiles)
    sources = {}
    for source, namespace in _blocks_run(rb):
        sources.setdefault(source, []).append(namespace)
    shapes = sorted(len(namespaces) for namespaces in sources.values())
    assert shapes == [1, 2]  # the play block; the two branches, one shape
    # Each block is one function, whether it runs as a frame's step (the play block) or inline (the
    # branches): the two branches share their compiled `run`, and nothing else was compiled.
    cache = rb.code_cache
    assert cache is not None
    made = {len(stmts): codecache.generated_block(stmts, cache) for stmts, _body in cache.blocks.values()}
    (play_run, _, _), (branch_run, _, _) = made[3], made[1]
    assert set(codecache._COMPILED) == {play_run, branch_run}


def test_compile_blocks_shows_the_code_of_every_block_with_its_constants(capsys: Any) -> None:
    """`rulecraft compile GAME --blocks` prints the code of every block of statements, headed by where it
    stands and what its constants are; the listing is Python."""
    assert main(["compile", "valdora", "--blocks"]) == 0
    out = capsys.readouterr().out
    ast.parse(out)
    blocks = Structure(rulecraft.load("valdora").program).blocks
    headers = [line for line in out.splitlines() if line.startswith("# ---- ")]
    assert len(headers) == len(blocks) > 50
    assert headers[0] == "# ---- setup (valdora.rules:335)"
    assert out.count("\ndef run(g, env, i=0, frame=None):\n") == len(blocks)
    assert "def step" not in out
    assert "#   c1 = this block's code (the frame of what is left)" in out
    assert "#   c5 = the node `GEMS` (line 337), which its errors name" in out
    assert "#   c6 = the value of `GEMS` (line 337)" in out


def test_a_traceback_through_a_blocks_code_shows_its_generated_lines() -> None:
    """Each shape is compiled under a name of its own (profiles tell shapes apart), whose lines a traceback
    can show: they are in linecache."""
    rb = rulecraft.load_text(HOSTILE, "evil.rules")
    rb.new_game(players=1)
    assert rb.code_cache is not None and rb.program.play is not None
    run = rb.code_cache.block(rb.program.play.stmts).run
    filename = run.__code__.co_filename
    assert re.fullmatch(r"<generated block [0-9a-f]{12}>", filename)
    assert linecache.getline(filename, 1) == "def run(g, env, i=0, frame=None):\n"


def test_a_let_of_a_value_proved_shallow_skips_the_depth_check(tmp_path: Any, capsys: Any) -> None:
    """What the text proves of a `let`'s value reaches the generated code (compile/depth.py): a zone's
    cards, a list of numbers, a list of lists written out are held without the run-time check of
    their depth (`Game.nested`); a list holding a local, which may be as deep as a local may be, with it."""
    path = tmp_path / "flat.rules"
    path.write_text(
        "game F players 1..1\n"
        "card Chip { n: int }\n"
        "zone pile: Chip public\n"
        "var v: int = 0 public\n"
        "play {\n"
        "  let cards = pile where it.n > 0\n"
        "  let numbers = [1, 2, 3]\n"
        "  let listed = [[1], [2]]\n"
        "  let nested = [numbers]\n"
        "  set v = len(cards) + len(numbers) + len(listed) + len(nested)\n"
        "}\n"
    )
    assert main(["compile", str(path), "--blocks"]) == 0
    out = capsys.readouterr().out
    lets = [line.strip() for line in out.splitlines() if line.strip().startswith("env[c")]
    assert len(lets) == 4  # each once, in the block's one function
    assert ["nested" in line for line in lets] == [False, False, False, True]


def test_a_frame_put_back_by_a_failed_answer_goes_on_from_where_it_was() -> None:
    """A block's frame whose step reached the block's end takes the code that only ends it; when the answer
    fails afterwards (a rule's `fail`) and `apply` puts the game back, the frame is where it was before
    the answer, and the next answer runs the rest of its block: the game is the one answered right."""
    rb = rulecraft.load_text(
        """game T players 1..1
var v: int = 0 public
rule boom() when v == 2 { fail "two is refused" }
play {
  let n = choose one from [1, 2] by players[0]
  set v = n
}
""",
        "t.rules",
    )
    game, right = rb.new_game(players=1, seed=0), rb.new_game(players=1, seed=0)
    with pytest.raises(RulebookError, match="'two is refused' failed outside any attempt"):
        game.apply("2")
    assert game.state.vars["v"] == 0 and game.pending is not None
    game.apply("1")
    right.apply("1")
    assert game.state.vars["v"] == right.state.vars["v"] == 1
    assert game.state.over and right.state.over and game.steps == right.steps


COUNTS = """game T players 1..1
var n[int]: int = 5 public
var m[Player]: int = 1 public
var q[int]: int = 2 + 3 public
play {
  set q[1] += 1
  set n[3] = 1
  set n[3] += 2
  set n[64] += 1
  set n[0 - 1] += 4
  set m[players[0]] += 6
  let t = 9223372036854775800
  t += 8
  LAST
}
"""


@pytest.mark.parametrize("last", ["set n[2] += 9223372036854775804", "t += 1", "set n[2] += 0 - 9223372036854775808"])
def test_a_count_keeps_its_key_and_its_bound_as_the_definitions_do(last: str) -> None:
    """`set x[k] += v` and `t += v` in a block's code: the key of a small number, of a larger or a negative
    one and of a seat as `zone_key` spells it, the value read before it is set its initial value (written as
    a literal or not), and a
    count past the bound of numbers the located runaway error of `Game.number`."""
    rb = rulecraft.load_text(COUNTS.replace("LAST", last), "t.rules")
    beyond = last != "set n[2] += 0 - 9223372036854775808"
    if beyond:
        with pytest.raises(RulebookError, match=r"t.rules:14:3: .*a number beyond \d+ in size"):
            rb.new_game(players=1)
        return
    v = rb.new_game(players=1).state.vars
    assert (v["n[3]"], v["n[64]"], v["n[-1]"], v["m[P1]"], v["q[1]"], v["n[2]"]) == (3, 6, 9, 7, 6, 5 - (1 << 63))
