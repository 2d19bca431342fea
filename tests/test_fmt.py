"""`rulecraft fmt`: one canonical layout, the same meaning, every comment kept."""

from __future__ import annotations

import os
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


# ---------------------------------------------------------------- lines as the parser counts them

# What `str.splitlines` breaks a line at besides "\n": the parser reads each as a character of a
# string or a comment (a form feed as white space too; a lone "\r" in a comment or as white space).
BREAKS = ["\x0c", "\x0b", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029"]


@st.composite
def broken_lines(draw: st.DrawFn) -> tuple[str, list[tuple[str, str]]]:
    """A rulebook whose strings and comments hold line breaks other than "\\n", and where a form feed
    (a page break) may stand between declarations; and (marker of each comment, code of its line,
    or for an own-line comment the code of the line after it)."""
    breaks = st.sampled_from([*BREAKS, "\r"])  # in comments
    out = ["game M players 1..1", f"var v: int = 0 public # d{draw(breaks)}z"]
    pairs: list[tuple[str, str]] = [("# d", "var v: int = 0 public")]
    if draw(st.booleans()):
        out.append(draw(st.sampled_from(["\x0c", "\x0c ", "\r", ""])))
    out.append(f"# section{draw(breaks)}z")
    out.append("play {")
    pairs.append(("# section", "play {"))
    for i in range(draw(st.integers(1, 6))):
        if draw(st.booleans()):
            out.append(f"  # o{i}{draw(breaks)}z")
            pairs.append((f"# o{i}", f"s{i}" if i % 2 else f"set v = {i}"))
        code = f'say "s{i}{draw(st.sampled_from(BREAKS))}t"' if i % 2 else f"set v = {i}"
        out.append(f"  {code} # c{i}{draw(breaks)}z")
        pairs.append((f"# c{i}", f"s{i}" if i % 2 else f"set v = {i}"))
    out.append("  end game # last")
    pairs.append(("# last", "end game"))
    out.append("}")
    return "\n".join(out) + "\n", pairs


@settings(max_examples=40, deadline=None)
@given(broken_lines())
def test_every_comment_stays_by_its_line_whatever_breaks_strings_and_comments_hold(
    case: tuple[str, list[tuple[str, str]]],
) -> None:
    """fmt splits the source into lines at "\\n" only, as the parser counts them: a form feed, a
    U+2028 or another break of `str.splitlines` in a string or a comment (or a form feed between
    declarations) neither loses a comment nor moves it to another line."""
    text, pairs = case
    once = format_text(text, "b.rules")
    assert parse(once, "b.rules") == parse(text, "b.rules")
    lines = once.split("\n")
    for marker, code in pairs:
        (at,) = [n for n, line in enumerate(lines) if re.search(re.escape(marker) + r"(?!\d)", line)]
        own_line = lines[at].lstrip().startswith("#")  # then it stands before the code that followed it
        assert code in (lines[at + 1] if own_line else lines[at].split("#", 1)[0]), (marker, once)
    assert Counter(c.text for c in find_comments(once)) == Counter(c.text for c in find_comments(text))
    assert format_text(once, "b.rules") == once


def test_fmt_of_the_issue_keeps_each_comment_on_its_statement(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The example of the report: a form feed in a string no longer loses `# c1` nor moves `# c2`, `# c3`."""
    text = 'game M players 1..1\nvar v: int = 0 public\nplay {\n  say "page\x0cbreak" # c1\n  set v = 1 # c2\n'
    text += "  end game # c3\n}\n"
    path, kept = tmp_path / "sf.rules", tmp_path / "kept.rules"
    path.write_text(text, encoding="utf-8")
    kept.write_text(text, encoding="utf-8")
    assert main(["fmt", str(path)]) == 0
    assert path.read_text(encoding="utf-8").split("\n")[3:7] == [
        '  say "page\\x0cbreak"  # c1',
        "  set v = 1            # c2",
        "  end game             # c3",
        "}",
    ]
    # `compile --blocks` quotes the statements of lines 4 and 6 from those lines
    assert main(["compile", str(kept), "--blocks"]) == 0
    out = capsys.readouterr().out
    assert 'the node `say "page\x0cbreak"` (line 4)' in out
    assert "the endgame statement `end game # c3` (line 6)" in out


# ---------------------------------------------------------------- reading: the rules `check` reads by


@pytest.mark.parametrize("flags", [[], ["--check"], ["--diff"]])
def test_fmt_refuses_a_device_a_pipe_and_a_large_file_as_check_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], flags: list[str]
) -> None:
    """`fmt` reads a rulebook as `check` does: a device or a named pipe is refused before it is opened
    for reading (nothing hangs, nothing fills memory), a file over the size limit too; one line, exit 1."""
    from rulecraft.rulebook import MAX_RULEBOOK_BYTES

    fifo = tmp_path / "pipe.rules"
    os.mkfifo(fifo)
    big = tmp_path / "big.rules"
    big.write_text("game G players 1..2\n" + "#" * MAX_RULEBOOK_BYTES + "\nplay { }\n", encoding="utf-8")
    bad = tmp_path / "bad.rules"
    bad.write_bytes(b"game G players 1..2\n\xff\n")
    expected = {
        "/dev/zero": "/dev/zero:1:1: error: a rulebook must be a regular file, and this is a device",
        str(fifo): f"{fifo}:1:1: error: a rulebook must be a regular file, and this is a pipe",
        str(big): f"{big}: more than {MAX_RULEBOOK_BYTES} bytes is more than a rulebook may be",
        str(bad): f"{bad}:2:1: error: a rulebook is UTF-8 text, and byte 0xff is not UTF-8 here",
    }
    for file, message in expected.items():
        assert main(["fmt", *flags, file]) == 1
        assert main(["check", file]) == 1
        captured = capsys.readouterr()
        assert captured.err == f"{message}\n{message}\n"
        assert captured.out == ""
    assert big.read_text(encoding="utf-8").endswith("play { }\n")  # nothing written


# ---------------------------------------------------------------- an author's breaks

AUTHORS_BREAKS = """game G players 2..4
card Ware { value: int, colour: int } label "{value}"
zone hand[Player]: Ware owner
zone deck: Ware hidden shuffled
var gold[Player]: int = 0 public
var silver[Player]: int = 0 public
invariant enough(p in players): gold[p] + silver[p] + len(hand[p]) + gold[p] * 2 + silver[p] * 3
  + len(deck) + len(hand[p]) * 2 >= 0  # broken by hand
fn score(p: Player) = gold[p]
setup { for p in players { create 3 Ware { value: 1, colour: 2 } in hand[p] } }
play {
  for p in players {
    let c = choose one from hand[p] where it.value > 0 and it.colour != 3 and it.value < 10
      by p prompt "Play which ware now, and why not the other one?"
    move c to deck
  }
}
"""


def _long_lines(text: str) -> list[str]:
    return [line for line in text.split("\n") if len(line) > 100]


def test_fmt_keeps_an_authors_breaks_where_its_layout_would_not_fit() -> None:
    """A statement or declaration its author broke over lines to fit, which the canonical layout
    would join into a line over 100 columns (an invariant's sum, a choose with `where`, `by` and
    `prompt`), keeps the author's lines; the result is stable and means the same."""
    formatted = format_text(AUTHORS_BREAKS)
    assert _long_lines(formatted) == []
    assert "  + len(deck) + len(hand[p]) * 2 >= 0  # broken by hand\n" in formatted
    assert '      by p prompt "Play which ware now, and why not the other one?"\n' in formatted
    assert format_text(formatted) == formatted
    assert parse(formatted) == parse(AUTHORS_BREAKS)


BROKEN_BY_HAND = [
    "fn big(p: Player) = gold[p] * 1000 + silver[p] * 100 + len(hand[p]) * 10 + len(deck)\n"
    "  + gold[p] * silver[p] + len(hand[p]) * len(deck)",
    "const LIMITS = [100000, 200000, 300000, 400000, 500000, 600000, 700000, 800000, 900000, 1000000,\n  1100000]",
    "proc f(p: Player) {\n"
    "  if gold[p] > 0 and silver[p] > 0 and len(hand[p]) > 2 and len(deck) == 0 and gold[p] < 100\n"
    "      and silver[p] < 1000 {\n"
    "    set gold[p] += 1\n"
    "  }\n"
    "}",
    "proc f(p: Player) {\n"
    "  set gold[p] = gold[p] * 1000 + silver[p] * 100 + len(hand[p]) * 10 + len(deck) + gold[p]\n"
    "    * silver[p] + 1\n"
    "}",
]


@pytest.mark.parametrize("decl", BROKEN_BY_HAND)
def test_fmt_makes_no_line_over_the_limit_from_lines_that_fit(decl: str) -> None:
    """A declaration written in lines that fit comes out in lines that fit (as laid out canonically,
    or as its author broke it), stable and with the same meaning."""
    text = AUTHORS_BREAKS.split("fn score")[0] + decl + "\nfn score(p: Player) = gold[p]\nplay { }\n"
    assert _long_lines(text) == []
    formatted = format_text(text)
    assert _long_lines(formatted) == []
    assert format_text(formatted) == formatted
    assert parse(formatted) == parse(text)


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
