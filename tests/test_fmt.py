"""`rulecraft fmt`: one canonical layout, the same meaning, every comment kept."""

from __future__ import annotations

import re
from collections import Counter
from importlib import resources
from pathlib import Path

import pytest
import rulecraft
from hypothesis import given, settings
from hypothesis import strategies as st
from rulecraft.authoring.fmt import find_comments, format_text
from rulecraft.cli import main
from rulecraft.errors import RulebookError
from rulecraft.syntax import ast as s
from rulecraft.syntax.parser import parse

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = sorted((ROOT / "examples").rglob("*.rules")) + sorted((ROOT / "tests").rglob("*.rules"))


def _bundled() -> list[tuple[str, str]]:
    root = resources.files("rulecraft.rulebooks")
    return [(f"{n}.rules", root.joinpath(f"{n}.rules").read_text(encoding="utf-8")) for n in rulecraft.bundled_names()]


SOURCES = [(p.relative_to(ROOT).as_posix(), p.read_text(encoding="utf-8")) for p in EXAMPLES] + _bundled()


@pytest.mark.parametrize(("name", "text"), SOURCES, ids=[n for n, _ in SOURCES])
def test_shipped_rulebooks_are_in_canonical_form(name: str, text: str) -> None:
    """Every bundled rulebook and example is already formatted (run `rulecraft fmt FILE` to fix one)."""
    assert format_text(text, name) == text, f"{name} is not in canonical form: run `rulecraft fmt` on it"


MESSY = """# header

# about the game
game   M players 2..4   # seats
enum Colour {
  red,   # first
  blue,
}
card Chip { colour: Colour,
  n: int } label "{colour} {n}"
zone bag: Chip hidden shuffled
const ROWS = [
  # rows
  {kind: 1, vp: 1},  # one
  {kind: 2, vp: (1 + 2) * 3}]
var points[Player]: int = -(1 - -2) public
fn score(p: Player) = points[p] + len(bag where (it.n > 1) and not (it.colour == red))
proc x(p: Player) {

  let a = 1   # trailing
  if a > 1 {  # on the header
    say "say \\"hi\\""
  }
  elif a == 0 { say "zero" } else { }
  # last in the block
}
play { x(players[0]) x(players[0]) }  # two calls
# the end
"""

MESSY_FORMATTED = """# header

# about the game
game M players 2..4  # seats
enum Colour {
  red,  # first
  blue
}
card Chip {
  colour: Colour,
  n: int
} label "{colour} {n}"
zone bag: Chip hidden shuffled
const ROWS = [
  # rows
  {kind: 1, vp: 1},  # one
  {kind: 2, vp: (1 + 2) * 3}
]
var points[Player]: int = -(1 - -2) public
fn score(p: Player) = points[p] + len(bag where it.n > 1 and not it.colour == red)
proc x(p: Player) {
  let a = 1   # trailing
  if a > 1 {  # on the header
    say "say \\"hi\\""
  } elif a == 0 { say "zero" } else { }
  # last in the block
}
play {  # two calls
  x(players[0])
  x(players[0])
}
# the end
"""


def test_messy_layout_becomes_canonical() -> None:
    """Indent, spacing, brace placement, line breaks and redundant parentheses are normalised; comments stay."""
    assert format_text(MESSY) == MESSY_FORMATTED
    assert parse(MESSY_FORMATTED) == parse(MESSY)


def test_one_line_blocks_and_lists_stay_on_one_line() -> None:
    """A short block of one statement and a short list written on one line are kept on one line."""
    text = 'game G players 1..2\nconst XS = [1, 2, 3]\nsetup { for p in players { say "{p}" } }\nplay { }\n'
    assert format_text(text) == text


def test_formatting_an_unparsable_file_reports_the_syntax_error() -> None:
    """fmt does not touch a file that does not parse; it reports the located syntax error."""
    with pytest.raises(RulebookError) as info:
        format_text("game G players 1..2\nplay { let = 1 }\n", "bad.rules")
    assert info.value.messages[0].startswith("bad.rules:2:12: error: unexpected '='")


def test_fmt_check_reports_and_fmt_rewrites(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`fmt --check` exits 1 naming the file and changes nothing; `fmt` rewrites it; then --check passes."""
    path = tmp_path / "m.rules"
    path.write_text(MESSY, encoding="utf-8")
    assert main(["fmt", "--check", str(tmp_path)]) == 1
    assert f"{path}: not in canonical form" in capsys.readouterr().out
    assert path.read_text(encoding="utf-8") == MESSY
    assert main(["fmt", str(path)]) == 0
    assert path.read_text(encoding="utf-8") == MESSY_FORMATTED
    assert main(["fmt", "--check", str(path)]) == 0


# ---------------------------------------------------------------- properties over the shipped rulebooks

_WHITESPACE = re.compile(r"[ \t]+|\n[ \t\n]*")


def _layout_points(text: str) -> list[tuple[int, int, bool]]:
    """Whitespace runs outside strings and comments: (start, end, holds a newline)."""
    commented = {c.line for c in find_comments(text)}
    points = []
    line_starts = [0] + [m.end() for m in re.finditer("\n", text)]
    in_string = False
    i = 0
    while i < len(text):
        ch = text[i]
        if in_string:
            i += 2 if ch == "\\" else 1
            in_string = in_string and ch != '"'
            continue
        if ch == '"':
            in_string = True
        elif ch == "#":
            i = text.find("\n", i)
            if i < 0:
                break
            continue
        elif ch in " \t\n":
            m = _WHITESPACE.match(text, i)
            assert m is not None
            line = sum(1 for s in line_starts if s <= i)
            if "\n" not in m.group() or line not in commented:
                points.append((m.start(), m.end(), "\n" in m.group()))
            i = m.end()
            continue
        i += 1
    return points


@st.composite
def relaid(draw: st.DrawFn) -> tuple[str, str]:
    """A shipped rulebook with some of its whitespace changed (spaces, newlines, blank lines)."""
    name, text = draw(st.sampled_from(SOURCES))
    points = _layout_points(text)
    chosen = draw(st.lists(st.sampled_from(points), max_size=12, unique=True)) if points else []
    for start, end, newline in sorted(chosen, reverse=True):
        spaces = ["\n", "\n\n\n  "] if newline else [" ", "   ", "\n", "\n\n    "]
        text = text[:start] + draw(st.sampled_from(spaces)) + text[end:]
    return name, text


@settings(max_examples=25, deadline=None)
@given(relaid())
def test_fmt_keeps_meaning_and_comments_and_is_idempotent(case: tuple[str, str]) -> None:
    """Whatever the layout: the AST (spans aside) is unchanged, every comment survives, and fmt(fmt(x)) == fmt(x)."""
    name, text = case
    once = format_text(text, name)
    assert parse(once, name) == parse(text, name)
    assert Counter(c.text for c in find_comments(once)) == Counter(c.text for c in find_comments(text))
    assert format_text(once, name) == once


LONG = """game G players 1..2
enum Space { a, b, c,
  d, e }
var points[Player]: int = 0 public
const ROADS = [[a, b], [b, c],
  [c, d], [d, e]]
fn total(p: Player) = points[p] * 100 + len(players where points[it] > points[p]) + len(players where points[it] == 0) + 1
fn busy(p: Player) = if points[p] > 10 then "many points for this player" else if points[p] > 5 then "some points" else "few"
fn mixed(p: Player) = points[p] > 0 or points[p] < 0 and true
rule r(p in players) when points[p] > 1000 and len(players where points[it] > 1000) > 1 and points[p] != 5000 { }
play { }
"""

LONG_FORMATTED = """game G players 1..2
enum Space {
  a, b, c,
  d, e
}
var points[Player]: int = 0 public
const ROADS = [
  [a, b], [b, c],
  [c, d], [d, e]
]
fn total(p: Player) =
  points[p] * 100
  + len(players where points[it] > points[p])
  + len(players where points[it] == 0)
  + 1
fn busy(p: Player) =
  if points[p] > 10 then "many points for this player"
  else if points[p] > 5 then "some points"
  else "few"
fn mixed(p: Player) = points[p] > 0 or (points[p] < 0 and true)
rule r(p in players) when points[p] > 1000
    and len(players where points[it] > 1000) > 1
    and points[p] != 5000 { }
play { }
"""


def test_long_lines_break_canonically() -> None:
    """The author's rows of a list are kept; a long fn value goes on the next line and a long chain of
    `+`, `and`, `or` or `else if` breaks before each operator; an `and` inside an `or` gets parentheses."""
    assert format_text(LONG) == LONG_FORMATTED
    assert format_text(LONG_FORMATTED) == LONG_FORMATTED
    assert parse(LONG_FORMATTED) == parse(LONG)


def test_a_layout_keeps_its_rows_and_comments() -> None:
    """A board's layout keeps the author's rows of places and the comments among them; spacing is normalised."""
    text = (
        "game G players 1..2\nenum Spot { a, b, c }\nconst LINKS = [[a, b]]\n"
        "layout Spot {\n  a:0 0,b: 2  0,  # the top row\n  c: 1 1\n}   links LINKS\nplay { }\n"
    )
    formatted = (
        "game G players 1..2\nenum Spot { a, b, c }\nconst LINKS = [[a, b]]\n"
        "layout Spot {\n  a: 0 0, b: 2 0,  # the top row\n  c: 1 1\n} links LINKS\nplay { }\n"
    )
    assert format_text(text) == formatted
    assert format_text(formatted) == formatted
    layout = parse(formatted).decls[3]
    assert layout == s.LayoutDecl("Spot", (s.Place("a", 0, 0), s.Place("b", 2, 0), s.Place("c", 1, 1)), "LINKS")
