"""Scenarios: a partial state by card labels and scripted answers; `rulecraft trace GAME --scenario F`.

A scenario file is a list of lines (see docs/SCENARIOS.md):

    game tutorial                      # a bundled name, or a path relative to this file
    players 2
    seed 1                             # `seed none`: chance is answered by `answer` lines too
    move ["2 of coins", "4 of coins"] to stall[P1]
    set points[P1] = 1
    answer "Stock a ware"
    expect points[P1] == 6

The game is set up as usual (with its seed); then the `move` and `set` lines change the state,
all at once (state-based rules are checked after the last of them, as after a `together`);
then play starts and the `answer` lines answer its decisions in order; each `expect` line is
checked where it stands among them (after the answers above it). `next draws from ZONE: "A", "B"`
makes the next draws from a shuffled zone take those cards (after setup, like `move`), the rest
being chance. `move`, `set` and `expect` are written in the rulebook language, with the
seats named `P1`, `P2`, …; a card is named by its label and taken from wherever it is (of
several copies, the first created that is not already where it goes), or, with
`move "A" from ZONE to ZONE`, the top-most copy in that zone.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import attrs

from ..check.fragment import FragmentChecker
from ..check.program import Program
from ..errors import Diagnostic, GameError, RulebookError, RulecraftError, Span, did_you_mean
from ..inputs import InputProblem, clip, decode, read_regular, within
from ..language import types as t
from ..language.values import CardRef, Player
from ..render import trace_lines, trace_text, where
from ..rulebook import Rulebook, bundled_names, load
from ..runtime.game import Game
from ..syntax import ast as s
from ..syntax.parser import comment_start, parse
from ..terminal import printable

KEYWORDS = ("game", "players", "seed", "move", "set", "next", "answer", "expect")
MAX_SCENARIO_BYTES = 200_000  # a scenario is a position and a few answers: a page, not a book
MAX_SCENARIO_LINES = 5_000
MAX_DIGITS = 40  # of a player count or a seed (a 128-bit seed has 39)
_NUMBER = re.compile("[0-9]+")  # ASCII digits (str.isdigit takes '²' too)


@attrs.frozen
class Line:
    """One line of a scenario: its keyword, the rest of the line and where it stands."""

    keyword: str
    rest: str
    span: Span


@attrs.frozen
class Scenario:
    """A parsed scenario file."""

    file: str
    text: str
    game: str | None
    players: int | None
    seed: int | None
    edits: tuple[tuple[Line, s.Stmt], ...]
    answers: tuple[tuple[Line, str], ...]
    expects: tuple[tuple[Line, s.Expr], ...]
    game_line: Line | None = None
    # For each `expect`, how many answers come before it: it checks the state at that point.
    expect_at: tuple[int, ...] = ()
    # `next draws from ZONE: "A", "B"`: the zone, then the labels its next draws take, in order.
    draws: tuple[tuple[Line, s.Expr, tuple[s.StrLit, ...]], ...] = ()

    def error(self, span: Span, message: str, hint: str | None = None) -> RulebookError:
        return RulebookError([Diagnostic(span, message, hint=hint)], {self.file: self.text})


def _strip_comment(line: str) -> str:
    i = comment_start(line)
    return line if i < 0 else line[:i]


def _statement(file: str, text: str, line: Line, raw: str, source: str, lead: str = "", tail: str = "") -> s.Stmt:
    """Parse `lead source tail` as one statement of the rulebook language, with `source` located
    at its place in the scenario file (newlines carry no meaning, so `lead` goes on the line before).

    `raw` is the scenario's line that holds `source`."""
    column = raw.index(source) if source in raw else line.span.column - 1
    # The statement's own line must hold nothing before it but spaces, so that its columns are the
    # file's; the opening (`proc _scenario() {` and `lead`) goes on the lines before. A statement on
    # the file's first line has none: it is parsed one line down, and its places moved back up.
    down = 1 if line.span.line == 1 else 0
    padded = (
        "proc _scenario() {" + "\n" * (line.span.line + down - 2) + lead + "\n" + " " * column + source + tail + "\n}\n"
    )
    try:
        tree = parse(padded, file)
    except RulebookError as exc:
        raise RulebookError([_moved_up(d, down) for d in exc.diagnostics], {file: text}) from None
    decl = tree.decls[0]
    # A line may not close the statement and go on (`answer "a"] + ["b"`, `expect 1 } play { ... `).
    if len(tree.decls) != 1 or not isinstance(decl, s.ProcDecl) or len(decl.body.stmts) != 1:
        raise RulebookError([Diagnostic(line.span, f"one statement per '{line.keyword}' line")], {file: text})
    return _moved_up(decl.body.stmts[0], down)


def _moved_up(node: Any, lines: int) -> Any:
    """`node` (a statement, a diagnostic, any of their parts) with every place `lines` lines higher."""
    if not lines:
        return node
    if isinstance(node, Span):
        return (
            attrs.evolve(node, line=max(node.line - lines, 1), end_line=max(node.end_line - lines, 1))
            if node.line
            else node
        )
    if isinstance(node, tuple):
        return tuple(_moved_up(part, lines) for part in node)
    if attrs.has(type(node)):
        fields = [f for f in attrs.fields(type(node)) if f.init]
        return attrs.evolve(node, **{(f.alias or f.name): _moved_up(getattr(node, f.name), lines) for f in fields})
    return node


def read_scenario(path: Path) -> Scenario:
    """Parse a scenario file; errors are located in it."""
    file = str(path)
    try:
        text = decode(read_regular(path, MAX_SCENARIO_BYTES, "a scenario"), file, "a scenario")
    except InputProblem as exc:
        if exc.span is not None:
            raise RulebookError([Diagnostic(exc.span, exc.message)]) from None
        raise RulecraftError(f"{clip(file)}: {exc.message}") from None
    lines = [raw.rstrip("\r") for raw in text.split("\n")]  # lines as the parser counts them
    if len(lines) > MAX_SCENARIO_LINES:
        raise RulecraftError(
            f"{clip(file)}: {len(lines)} lines is more than a scenario may have ({MAX_SCENARIO_LINES})"
        )
    game = players = None
    game_line: Line | None = None
    seed: int | None = 0
    edits: list[tuple[Line, s.Stmt]] = []
    answers: list[tuple[Line, str]] = []
    expects: list[tuple[Line, s.Expr]] = []
    expect_at: list[int] = []
    draws: list[tuple[Line, s.Expr, tuple[s.StrLit, ...]]] = []
    firsts: dict[str, Span] = {}  # where the `game`, `players` and `seed` lines stand (one of each)
    for number, raw in enumerate(lines, 1):
        code = _strip_comment(raw).rstrip()
        if not code.strip():
            continue
        column = len(code) - len(code.lstrip()) + 1
        keyword, _, rest = code.strip().partition(" ")
        line = Line(keyword, rest.strip(), Span(file, number, column, number, column + len(keyword)))
        where = line.span

        def fail(message: str, hint: str | None = None, where: Span = where) -> RulebookError:
            return RulebookError([Diagnostic(where, message, hint=hint)], {file: text})

        if keyword in ("game", "players", "seed"):
            if keyword in firsts:
                raise fail(f"a second '{keyword}' line (the first is at {firsts[keyword]})")
            firsts[keyword] = line.span
        match keyword:
            case "game":
                game, game_line = line.rest.strip('"'), line
            case "players" | "seed":
                value = line.rest
                if keyword == "seed" and value == "none":
                    seed = None
                elif not _NUMBER.fullmatch(value):
                    raise fail(f"'{keyword}' takes a number, not '{clip(value)}'")
                elif len(value) > MAX_DIGITS:
                    raise fail(f"'{keyword}' takes a number of at most {MAX_DIGITS} digits, not {len(value)}")
                elif keyword == "players":
                    players = int(value)
                else:
                    seed = int(value)
            case "move" | "set":
                st = _edit(file, text, line, raw, code.strip())
                if not isinstance(st, s.Move | s.SetVar | s.SetField | s.Draw):
                    raise fail(f"a '{keyword}' line must be a {keyword} statement")
                if isinstance(st, s.Draw) and _labels(st.count) is None:
                    raise fail(
                        "a 'move … from' line names cards by their labels: move \"1 of cups\" from deck to hand[P1]"
                    )
                edits.append((line, st))
            case "next":
                draws.append(_next_draws(file, text, line, raw, fail))
            case "answer":
                for item in _labels_of_line(file, text, line, raw, line.rest):
                    if item is None:
                        raise fail('an answer is the label of an option, in quotes: answer "Pass"')
                    answers.append((line, item.value))
            case "expect":
                st = _statement(file, text, line, raw, line.rest, "let _expect =")
                if not isinstance(st, s.Let):
                    raise fail("an 'expect' line holds one condition: expect points[P1] == 6")
                expects.append((line, st.value))
                expect_at.append(len(answers))
            case _:
                shown = clip(keyword, 40)
                raise fail(
                    f"unknown scenario line '{shown}'{did_you_mean(shown, KEYWORDS)}",
                    hint="a scenario line starts with one of: " + ", ".join(KEYWORDS),
                )
    return Scenario(
        file,
        text,
        game,
        players,
        seed,
        tuple(edits),
        tuple(answers),
        tuple(expects),
        game_line,
        tuple(expect_at),
        tuple(draws),
    )


NEXT_DRAWS = 'next draws from ZONE: "label", …'


_FROM = re.compile(r"\bfrom\b")


def _edit(file: str, text: str, line: Line, raw: str, code: str) -> s.Stmt:
    """A `move` or `set` line as a statement. `move LABELS from ZONE to ZONE` is read as the `draw`
    statement of the same shape (`draw` is as long as `move`: every column stays where it is), whose
    count holds the labels: the cards are taken from that zone (see `_cards_from`)."""
    try:
        return _statement(file, text, line, raw, code)
    except RulebookError:
        if line.keyword != "move" or not _FROM.search(code):
            raise
    drawn = "draw" + code[len("move") :]
    return _statement(file, text, line, raw.replace(code, drawn, 1), drawn)


def _labels_of_line(file: str, text: str, line: Line, raw: str, source: str) -> list[s.StrLit | None]:
    """The quoted labels of `"A", "B"` (None for an item that is not a string), located in the file."""
    st = _statement(file, text, line, raw, source, "let _labels = [", "]")
    if not (isinstance(st, s.Let) and isinstance(st.value, s.ListLit)):
        return [None]
    return [item if isinstance(item, s.StrLit) else None for item in st.value.items]


def _next_draws(file: str, text: str, line: Line, raw: str, fail: Any) -> tuple[Line, s.Expr, tuple[s.StrLit, ...]]:
    """`next draws from deck: "5 of coins", "1 of cups"`: the zone and the labels, in order."""
    words, _, rest = line.rest.partition(" from ")
    zone, colon, labels = rest.partition(":")
    if words.strip() != "draws" or not colon or not zone.strip() or not labels.strip():
        raise fail(f"a 'next' line reads: {NEXT_DRAWS}")
    st = _statement(file, text, line, raw, zone.strip(), "let _zone =")
    if not isinstance(st, s.Let):
        raise fail(f"a 'next' line reads: {NEXT_DRAWS}")
    items = _labels_of_line(file, text, line, raw, labels.strip())
    if any(item is None for item in items):
        raise fail(f"the next draws are labels of cards, in quotes: {NEXT_DRAWS}")
    return line, st.value, tuple(item for item in items if item is not None)


def seats(players: int) -> dict[str, Any]:
    """The names a scenario uses for the seats: P1, P2, …"""
    return {str(Player(i)): Player(i) for i in range(players)}


def _apply_edits(sc: Scenario, g: Game) -> None:
    env = seats(g.state.players)
    for _line, zone_expr, labels in sc.draws:
        zone = g.zone_value(g.evaluate(zone_expr, dict(env)), zone_expr)
        if not g.program.zones[zone.name].shuffled:
            raise sc.error(zone_expr.span, f"{zone.key} is not shuffled: its draws are not chance")
        known = list(dict.fromkeys(g.label(CardRef(i)) for i in range(len(g.state.cards))))
        for lit in labels:
            if lit.value not in known:
                raise sc.error(lit.span, f"no card is labelled '{lit.value}'{did_you_mean(lit.value, known)}")
        g.draw_next(zone, [(lit.value, lit.span) for lit in labels])
    for line, st in sc.edits:
        if isinstance(st, s.Move) and _labels(st.what) is not None:
            cards = _cards_by_label(sc, g, st, env)
            g.move_cards(cards, g.zone_value(g.evaluate(st.to, env), st.to), bottom=st.bottom, span=line.span)
        elif isinstance(st, s.Draw):  # `move LABELS from ZONE to ZONE`
            cards = _cards_from(sc, g, st, env)
            g.move_cards(cards, g.zone_value(g.evaluate(st.to, env), st.to), bottom=False, span=line.span)
        else:
            g.execute(st, dict(env))


def _labels(what: s.Expr) -> list[s.StrLit] | None:
    if isinstance(what, s.StrLit):
        return [what]
    if isinstance(what, s.ListLit) and what.items and all(isinstance(i, s.StrLit) for i in what.items):
        return list(what.items)  # type: ignore[arg-type]
    return None


def _cards_by_label(sc: Scenario, g: Game, st: s.Move, env: dict[str, Any]) -> list[CardRef]:
    """The cards a `move "label", …` line names: for each label, a card not yet taken, preferring
    one that is not already where it is going."""
    labels = _labels(st.what) or []
    destination = g.zone_value(g.evaluate(st.to, env), st.to).key
    every = [CardRef(i) for i in range(len(g.state.cards))]
    names = {c.id: g.label(c) for c in every}
    taken: list[CardRef] = []
    for lit in labels:
        candidates = [c for c in every if names[c.id] == lit.value and c not in taken]
        if not candidates:
            raise sc.error(lit.span, f"no card is labelled '{lit.value}'{did_you_mean(lit.value, names.values())}")
        elsewhere = [c for c in candidates if g.state.location[c.id] != destination]
        taken.append((elsewhere or candidates)[0])
    return [c for c in taken if g.state.location[c.id] != destination]


def _cards_from(sc: Scenario, g: Game, st: s.Draw, env: dict[str, Any]) -> list[CardRef]:
    """The cards a `move "label", … from ZONE to …` line names: for each label, the top-most card of
    that label in ZONE not yet taken (so `"A", "A"` takes its two top-most copies)."""
    zone = g.zone_value(g.evaluate(st.source, env), st.source)
    held = [CardRef(i) for i in reversed(g.state.zones.get(zone.key, []))]  # top first
    taken: list[CardRef] = []
    for lit in _labels(st.count) or []:
        found = next((c for c in held if g.label(c) == lit.value and c not in taken), None)
        if found is None:
            inside = [g.label(c) for c in held]
            elsewhere = sorted(
                {g.state.location[i] for i in range(len(g.state.cards)) if g.label(CardRef(i)) == lit.value}
            )
            hint = (
                f"; a card of that label is in {', '.join(elsewhere)}" if elsewhere else did_you_mean(lit.value, inside)
            )
            more = " (every one is taken by this line)" if any(g.label(c) == lit.value for c in held) else ""
            raise sc.error(lit.span, f"no card is labelled '{lit.value}' in {zone.key}{more}{hint}")
        taken.append(found)
    return taken


class ScenarioFailure(RulebookError):
    """An `answer` or `expect` line that fails, with the trace up to that point (what the author needs to see)."""

    def __init__(self, error: RulebookError, trace: str):
        super().__init__(error.diagnostics, error.sources)
        self.trace = trace


def start(sc: Scenario, rb: Rulebook) -> Game:
    """Set up a game, apply the scenario's changes before play, and answer its scripted answers."""
    game = set_up(sc, rb)
    answer(sc, game)
    return game


def check_lines(sc: Scenario, program: Program, players: int) -> None:
    """Check the scenario's `move`, `set`, `next draws` and `expect` lines against the rulebook, as
    the rulebook's own statements and expressions are checked (check/fragment.py), the seats named
    as locals: every problem is a located error in the scenario file before the game is set up."""
    checker = FragmentChecker(program, dict.fromkeys(seats(players), t.PLAYER))
    for _line, zone, _names in sc.draws:
        checker.zone(zone)
    for _line, st in sc.edits:
        if isinstance(st, s.Move) and _labels(st.what) is not None:
            checker.zone(st.to)  # the cards are named by their labels, found when the line runs
        elif isinstance(st, s.Draw):  # `move LABELS from ZONE to ZONE`: two zones, the labels found when it runs
            checker.zone(st.source)
            checker.zone(st.to)
        else:
            checker.statement(st)
    for _line, e in sc.expects:
        checker.condition(e)
    if checker.diagnostics:
        raise RulebookError(checker.problems, {sc.file: sc.text})


def set_up(sc: Scenario, rb: Rulebook) -> Game:
    """Check the scenario's lines, set up a game and apply the scenario's changes before play."""
    players = sc.players or rb.program.min_players
    check_lines(sc, rb.program, players)

    try:
        game = Game(rb, players, sc.seed, before_play=lambda g: _apply_edits(sc, g))
    except GameError as exc:
        raise RulecraftError(f"{sc.file}: {exc}") from None
    except RulebookError as exc:
        raise _with_source(sc, exc) from None
    return game


def _with_source(sc: Scenario, exc: RulebookError) -> RulebookError:
    """The error with the scenario's text beside the rulebook's (a `next draws` label that is
    not in its zone when drawn is located in the scenario, by the game)."""
    if sc.file in exc.sources or all(d.span.file != sc.file for d in exc.diagnostics):
        return exc
    return RulebookError(exc.diagnostics, {**exc.sources, sc.file: sc.text})


def answer(sc: Scenario, game: Game, check: Callable[[Line, s.Expr], None] | None = None) -> None:
    """Answer the scenario's scripted answers in order; `check` each `expect` that stands between
    them when its turn comes (those after the last answer are the caller's)."""
    for i, (line, answer) in enumerate(sc.answers):
        if check is not None:
            for (expect_line, expr), at in zip(sc.expects, sc.expect_at, strict=True):
                if at == i:
                    check(expect_line, expr)
        decision = game.current_decision()
        if decision is None:
            raise sc.error(line.span, f"the game is over; nothing asks for '{answer}'")
        try:
            game.apply(answer)
        except GameError as exc:
            guess = did_you_mean(answer, decision.labels) if len(answer) <= 200 else ""
            raise sc.error(line.span, f"{exc}{guess}") from None
        except RulebookError as exc:
            raise _with_source(sc, exc) from None


def run_scenario(game_name: str | None, path: Path) -> str:
    """Run a scenario file and return its trace (and the checks of its `expect` lines)."""
    sc = read_scenario(path)
    name = game_name or sc.game
    if not name:
        raise RulecraftError(f"{sc.file}: name the game: a 'game NAME' line, or `rulecraft trace GAME --scenario`")
    if game_name is None and sc.game is not None:
        name = _game_file(sc, path)
    rb = load(name)
    game = set_up(sc, rb)
    header = {"scenario": path.name, "players": game.state.players, "seed": sc.seed, "answers": len(sc.answers)}
    lines: list[str] = []
    # The `expect` lines between answers: how many events came before each, and its line.
    marks: list[tuple[int, str]] = []

    def text() -> str:
        body = trace_text(game, header)
        if marks:  # each mid-script check goes in the trace at the point where it was made
            rows = body.split("\n")
            start = 2 + len(header)  # the header's lines and the blank line after them
            for shift, (events, mark) in enumerate(marks):
                rows.insert(start + shift + len(trace_lines(game, game.events[:events])), mark)
            body = "\n".join(rows)
        return body + ("\n" + "\n".join(lines) + "\n" if lines else "")

    env = seats(game.state.players)

    def check(line: Line, expr: s.Expr) -> str:
        if not game.holds(expr, dict(env)):
            told = _why_not(sc, game, expr, env)
            shown = ", but " + " and ".join(dict.fromkeys(told)) if told else ""
            raise ScenarioFailure(sc.error(expr.span, f"expected {line.rest}{shown}"), text())
        return printable(f"expect  {line.rest}: holds  @ {where(line.span)}")

    try:
        answer(sc, game, lambda line, expr: marks.append((len(game.events), check(line, expr))))
    except ScenarioFailure:
        raise
    except RulebookError as exc:  # a failing line still shows the trace up to it
        raise ScenarioFailure(exc, text()) from None
    decision = game.current_decision()
    if decision is not None:
        lines.append(printable(f"pending {decision.by}: {decision.prompt} [{' | '.join(decision.labels)}]"))
    for (line, expr), at in zip(sc.expects, sc.expect_at, strict=True):
        if at == len(sc.answers):
            lines.append(check(line, expr))
    return text()


def _game_file(sc: Scenario, path: Path) -> str:
    """The rulebook a `game` line names: a bundled name, or a `.rules` file relative to the scenario.

    A scenario is data from anywhere, so the file must really be a `.rules` file (a symlink's
    target counts) inside the current folder or the folder that holds the scenario's folder
    (`game ../tutorial.rules` from examples/scenarios/): nothing that is not a rulebook is read.
    """
    assert sc.game is not None and sc.game_line is not None
    name, span = sc.game, sc.game_line.span
    if name in bundled_names():
        return name
    if not name.endswith(".rules") or "\0" in name or Path(name).is_absolute():
        raise sc.error(
            span,
            f"the game is a bundled rulebook ({', '.join(bundled_names())}) or a relative path to a .rules file, "
            f"not '{clip(name)}'",
        )
    file = path.parent / name
    try:
        real = file.resolve()
        ok = real.is_file()
    except (OSError, RuntimeError):
        ok = False
    if not ok:
        raise sc.error(span, f"no rulebook file '{clip(name)}' beside this scenario")
    if not real.name.endswith(".rules"):
        raise sc.error(span, f"'{clip(name)}' leads to {clip(real.name)}, which is not a .rules file")
    roots = [Path.cwd(), path.resolve().parent.parent]
    if not within(real, roots):
        raise sc.error(
            span, f"'{clip(name)}' lies outside the folders a scenario may name ({', '.join(str(r) for r in roots)})"
        )
    return str(file)


_LITERALS = (s.IntLit, s.StrLit, s.BoolLit, s.NoneLit)


def _why_not(sc: Scenario, game: Game, e: s.Expr, env: dict[str, Any]) -> list[str]:
    """The values that make a condition false: `points[P1] is 4` for a comparison (its right side too
    when it is not written as a value), each false part of an `and`, each part of an `or`."""
    if isinstance(e, s.And | s.Or):
        told: list[str] = []
        for side in (e.left, e.right):
            try:
                false = not game.holds(side, dict(env))
            except RulecraftError:  # a part the `and` never reaches (`x != none and x.v > 1`)
                false = False
            if false:
                told += _why_not(sc, game, side, env)
        return told
    if not isinstance(e, s.Compare):
        return []
    told = []
    for side in (e.left, e.right):
        if side is e.left or not isinstance(side, _LITERALS):
            try:
                value = game.label(game.evaluate(side, dict(env)))
            except RulecraftError:
                continue
            if side is e.left or value != _source(sc, side):  # `red is red` tells nothing
                told.append(f"{_source(sc, side)} is {value}")
    return told


def _source(sc: Scenario, e: s.Expr) -> str:
    line = sc.text.split("\n")[e.span.line - 1]
    if e.span.end_line == e.span.line:
        return line[e.span.column - 1 : e.span.end_column - 1]
    return "it"
