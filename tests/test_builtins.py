"""The table of built-ins is the only one, and the language reference documents every row."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
import rulecraft
from hypothesis import given
from hypothesis import strategies as st
from rulecraft.language import builtins
from rulecraft.language.builtins import BUILTIN_NAMES, BUILTINS, call_words
from rulecraft.language.values import Record

ROOT = Path(__file__).resolve().parent.parent
TABLE = ROOT / "interpreter" / "language" / "builtins.py"


def _section(text: str, heading: str) -> str:
    start = text.index(heading)
    end = text.find("\n#", start + len(heading))
    return text[start : end if end != -1 else len(text)]


def test_every_builtin_function_is_documented_in_the_language_reference() -> None:
    """Each built-in function is named, in backquotes, under "Built-in functions" in docs/LANGUAGE.md."""
    section = _section((ROOT / "docs" / "LANGUAGE.md").read_text(), "### Built-in functions")
    documented = set(re.findall(r"`([a-z_]+)[(`/]", section))
    assert sorted(set(BUILTINS) - documented) == []


def test_every_builtin_name_is_documented_in_the_language_reference() -> None:
    """`players`, `table` and `player_count` each appear, in backquotes, in docs/LANGUAGE.md."""
    text = (ROOT / "docs" / "LANGUAGE.md").read_text()
    assert [name for name in BUILTIN_NAMES if f"`{name}`" not in text] == []


def test_no_other_module_lists_the_builtins() -> None:
    """No collection literal outside builtins.py is a list of built-in functions (five or more, and most of
    its items), nor does a `match` case list three or more of them: there is one table."""
    names = set(BUILTINS)
    found = []
    for path in sorted((ROOT / "interpreter").rglob("*.py")):
        if path == TABLE:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Tuple | ast.List | ast.Set | ast.Dict):
                items = node.keys if isinstance(node, ast.Dict) else node.elts
                hits = {i.value for i in items if isinstance(i, ast.Constant) and i.value in names}
                if len(hits) >= 5 and 2 * len(hits) > len(items):
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
            if isinstance(node, ast.MatchOr):
                hits = {
                    p.value.value
                    for p in node.patterns
                    if isinstance(p, ast.MatchValue) and isinstance(p.value, ast.Constant) and p.value.value in names
                }
                if len(hits) >= 3 and len(hits) == len(node.patterns):
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert found == []


def test_every_builtin_reads_in_english() -> None:
    """Each built-in has words for explain, taking as many arguments as it may be given (two at most)."""
    for name, builtin in BUILTINS.items():
        for n in range(builtin.min_args, min(builtin.max_args, 2) + 1):
            text = call_words(name, [f"<{i}>" for i in range(n)])
            assert text is not None and all(f"<{i}>" in text for i in range(n)), (name, n, text)


MIN_MAX = """game M players 2..2
var a: int = 0 public
var b: int = 0 public
var c: int = 0 public
var d: int = 0 public
play {
  set a = min(3, 1 + 1, 7)
  set b = max([4, 9, 2])
  set c = min([n for n in [1, 2] if n > 5]) + max(a, b)
  set d = seat(max(players))
  choose by players[0] prompt "Go?" { option "go" { set a = max(a, b, c, d) } option "stay" { } }
}
"""


def test_min_and_max_of_whole_numbers_give_and_charge_what_the_general_path_does(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Whole numbers take a shorter way (builtins.py, `_min_max`): the same values and the same work
    # charged as the general one (weights, charge, ordered), which the test forces by emptying `_INTS`.
    def played() -> tuple[dict[str, object], int, int]:
        game = rulecraft.load_text(MIN_MAX, "m.rules").new_game(players=2, seed=0)
        left = game.work_left
        game.apply("go")
        return dict(game.state.vars), left, game.work_left

    short = played()
    monkeypatch.setattr(builtins, "_INTS", frozenset())
    assert played() == short
    assert short[0] == {"a": 9, "b": 9, "c": 9, "d": 2}


def _weights_walked(items, cap):
    """`builtins.weights` as it walks every value (the definition its shortcuts for plain values and
    lists of plain values must agree with)."""
    largest = total = 0
    for v in items:
        w = builtins.weight(v, cap - total)
        total += w
        largest = max(largest, w)
        if total > cap:
            break
    return total, largest


_plain = st.one_of(st.integers(-3, 3), st.text(max_size=2), st.booleans(), st.none())
_values = st.recursive(
    _plain,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4).map(tuple),
        st.dictionaries(st.sampled_from("abc"), inner, max_size=3).map(Record),
    ),
    max_leaves=12,
)


@given(
    st.one_of(
        st.lists(_plain, max_size=8),
        st.lists(st.lists(_plain, max_size=4).map(tuple), min_size=1, max_size=6),
        st.lists(_values, max_size=6),
    ),
    st.integers(0, 40),
)
def test_weights_of_plain_values_and_lists_of_them_are_those_of_the_walk(items, cap):
    # The keys of most queries are plain values, or lists of them (`group by [it.a, it.b]`): weighed
    # in C, they must weigh what walking each gives, a cap passed included.
    assert builtins.weights(items, cap) == _weights_walked(items, cap)


@given(
    st.one_of(
        st.lists(_plain, max_size=40),
        st.lists(st.lists(_plain, max_size=4).map(tuple), min_size=1, max_size=6),
        st.lists(_values, max_size=6),
    )
)
def test_the_work_of_a_sort_is_that_of_its_definition(items):
    # `sort_work` weighs keys that are neither lists nor records without `weights` (one each): what it
    # charges must be the definition's, the values read and n log2 n comparisons of the largest.
    total, largest = _weights_walked(items, builtins.WORK_CAP)
    assert builtins.sort_work(items) == total + len(items) * len(items).bit_length() * largest
