"""Rule coverage: which statements, arms, tiers, rules and options of a rulebook a set of games ran.

`rulecraft coverage GAME [--scenarios DIR] [--games N]` runs the scenarios of the rulebook and N
seeded games and reports, as coverage.py does for Python: the statements (by line) that ran; the
arms of every `if`/`elif`/`else` and `match` (and the fall-through of an `if` with no `else`);
the tiers of each ability that were chosen and resolved; the rules that fired; the options of
each menu that were chosen; the procedures that were called; the lines never run as `file:line`;
and, with `--html DIR`, each rulebook file annotated line by line.

The recorder is a sink of the runtime's observer (runtime/observe.py) that hears every frame
pushed: every block that starts to run (a rule's body, a tier, an option, an arm, a loop's body, a
procedure) is pushed as a `BlockFrame`, which the recorder gives its block's counted code
(`CodeCache.counted`: the same code, keeping the frame's position before each statement), so the
frame's position `i` says how many of its statements have started. `observe()` adds the recorder
to every game made while it lasts (not to the clones an agent's look-ahead makes), so the runtime
carries no coverage code and pays one test of an empty tuple per frame when coverage is off. An
empty block `{ }` is one shared empty tuple, so it is told apart only when the statement that runs
it has a single empty arm.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import html
import sys
from collections import Counter
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs

from ..check.program import Program
from ..console import PLAYERS, SEED, UsageError, players_for, whole
from ..errors import RulecraftError, source_lines
from ..inputs import clip
from ..runtime.context import Frame
from ..runtime.game import Game
from ..runtime.machine import BlockFrame, CallFrame
from ..runtime.observe import Observer, observing
from ..syntax import ast as s
from ..terminal import printable

if TYPE_CHECKING:
    from ..rulebook import Rulebook

Key = tuple[str, int, int]  # file, line, column of a node
# A place as counted: the hash of its file's text (not the file's name, which depends on the path it was
# loaded by), then the line and column (and an arm's kind). Two texts under one name never mix.
Tagged = tuple[Any, ...]


def _key(node: Any) -> Key:
    return (node.span.file, node.span.line, node.span.column)


@attrs.frozen
class Arm:
    """A block that may or may not run: its kind, a label for people, and where its header stands."""

    kind: str  # setup play proc tier rule then elif else fallthrough case option body
    label: str
    file: str
    line: int
    column: int
    owner: str = ""  # the ability, rule or procedure it belongs to

    @property
    def key(self) -> tuple[str, str, int, int]:
        return (self.kind, self.file, self.line, self.column)


class Structure:
    """The statements and arms of one checked Program, and how to find them from a running frame."""

    def __init__(self, program: Program):
        self.program = program  # kept alive: the ids below are of its nodes
        self.statements: dict[int, Key] = {}  # id(stmt) -> its place
        self.arms: list[Arm] = []
        self.by_block: dict[int, Arm] = {}  # id(block.stmts) -> the arm it is
        self.blocks: list[tuple[Arm, tuple[s.Stmt, ...]]] = []  # every block with statements, in the source's order
        self.empty: dict[int, list[Arm]] = {}  # id(stmt) -> its arms with an empty block
        self.falls: dict[Key, tuple[Arm, list[Arm]]] = {}  # an `if` with no else: its fall-through, its arms
        self.empty_procs: dict[str, Arm] = {}  # a procedure with an empty body, by name
        self.lines = {file: source_lines(text) for file, text in program.sources.items()}
        self.tags = {file: hashlib.sha256(text.encode()).hexdigest()[:16] for file, text in program.sources.items()}
        for block in program.setup:
            self._arm(block, Arm("setup", "setup", *_key(block)), None)
        if program.play is not None:
            self._arm(program.play, Arm("play", "play", *_key(program.play)), None)
        for name, proc in program.procs.items():
            self._arm(proc.body, Arm("proc", f"proc {name}", *_key(proc), name), None)
            if not proc.body.stmts:
                self.empty_procs[name] = self.arms[-1]
        for name, ability in program.abilities.items():
            for tier in ability.tiers:
                self._arm(tier.body, Arm("tier", f"{name} tier {tier.level}", *_key(tier), name), None)
        for rule in program.rules:
            self._arm(rule.body, Arm("rule", f"rule {rule.name}", *_key(rule), rule.name), None)

    def _arm(self, block: s.Block, arm: Arm, parent: s.Stmt | None, owner: str = "") -> None:
        self.arms.append(arm)
        if block.stmts:
            self.by_block[id(block.stmts)] = arm
            self.blocks.append((arm, block.stmts))
        elif parent is not None:
            self.empty.setdefault(id(parent), []).append(arm)
        for st in block.stmts:
            self._stmt(st, arm.owner or owner)

    def _stmt(self, st: s.Stmt, owner: str) -> None:
        self.statements[id(st)] = _key(st)
        file, line, column = _key(st)
        match st:
            case s.If(_, then, elifs, otherwise):
                arms = [Arm("then", self.head(st), file, line, column, owner)]
                self._arm(then, arms[0], st, owner)
                for e in elifs:
                    arms.append(Arm("elif", self.head(e), *_key(e), owner))
                    self._arm(e.body, arms[-1], st, owner)
                if otherwise is not None:
                    self._arm(otherwise, Arm("else", f"else of {self.head(st)}", *_key(otherwise), owner), st, owner)
                else:
                    fall = Arm("fallthrough", f"no arm of {self.head(st)}", file, line, column, owner)
                    self.arms.append(fall)
                    self.falls[_key(st)] = (fall, arms)
            case s.Match(_, cases, otherwise):
                for case in cases:
                    self._arm(case.body, Arm("case", f"case {self.head(case)}", *_key(case), owner), st, owner)
                if otherwise is not None:
                    self._arm(otherwise, Arm("else", f"else of {self.head(st)}", *_key(otherwise), owner), st, owner)
            case s.Attempt(body, otherwise):
                self._arm(body, Arm("body", "attempt", file, line, column, owner), st, owner)
                if otherwise is not None:
                    self._arm(otherwise, Arm("else", "attempt else", *_key(otherwise), owner), st, owner)
            case s.Menu(_, _, options):
                for option in options:
                    self._arm(option.body, Arm("option", f'option "{option.label}"', *_key(option), owner), st, owner)
            case s.For(_, _, body) | s.While(_, body) | s.Repeat(_, body) | s.Together(body) | s.Secret(body):
                name = type(st).__name__.lower()
                self._arm(body, Arm("body", name, file, line, column, owner), st, owner)
            case _:
                pass

    def head(self, node: Any) -> str:
        """The source of a node's first line, up to its block: `if len(hand[p]) > 2`."""
        lines = self.lines.get(node.span.file, [])
        text = lines[node.span.line - 1][node.span.column - 1 :] if 0 < node.span.line <= len(lines) else "?"
        text = text.split("{")[0].strip() or text.strip()
        return text if len(text) <= 60 else text[:57] + "..."

    def at(self, key: Key) -> Tagged:
        """Where a statement stands, as counted."""
        return (self.tags.get(key[0], ""), key[1], key[2])

    def of(self, arm: Arm) -> Tagged:
        """An arm, as counted."""
        return (self.tags.get(arm.file, ""), arm.kind, arm.line, arm.column)

    def arm_of_empty(self, g: Game) -> Arm | None:
        """The arm an empty block belongs to: the procedure just called, or the one empty arm of the
        statement running now (if it has one only)."""
        below = g.frames[-2] if len(g.frames) > 1 else None
        if isinstance(below, CallFrame):
            return self.empty_procs.get(below.name)
        for frame in reversed(g.frames[:-1]):
            if isinstance(frame, BlockFrame):
                if frame.i == 0:
                    return None
                arms = self.empty.get(id(frame.stmts[frame.i - 1]), [])
                return arms[0] if len(arms) == 1 else None
        return None


class Recorder(Observer):
    """What ran: statement runs and arm entries, gathered from the frames it hears pushed (a sink: see
    runtime/observe.py)."""

    def __init__(self) -> None:
        self.structures: dict[int, Structure] = {}
        self.statement_runs: Counter[Tagged] = Counter()
        self.arm_runs: Counter[Tagged] = Counter()
        self.pending: list[list[Any]] = []  # [structure, frame, statements already counted]

    def structure(self, program: Program) -> Structure:
        found = self.structures.get(id(program))
        if found is None:
            found = self.structures[id(program)] = Structure(program)
        return found

    def on_push(self, g: Game, frame: Frame) -> None:
        if frame.__class__ is BlockFrame:
            self.pushed(g, frame)

    def pushed(self, g: Game, frame: BlockFrame) -> None:
        st = self.structure(g.program)
        arm = st.by_block.get(id(frame.stmts)) if frame.stmts else st.arm_of_empty(g)
        if arm is not None:
            self.arm_runs[st.of(arm)] += 1
        if frame.stmts:
            # The block's counted code: it keeps the frame's position before each statement, which
            # `flush` reads (a block's own code keeps it only where its step ends).
            frame.code = g.code.counted(frame.stmts)
            self.pending.append([st, frame, 0])

    KEEP = 100_000  # unfinished frames kept between partial flushes (a game left waiting is dropped first)

    def flush(self, final: bool = True) -> None:
        """Count the statements the frames seen so far have started (a frame's `i` only grows).

        `final=False` keeps the frames that have statements left, for a game that goes on later
        (a test fixture's game); the games that `rulecraft coverage` plays are over when it flushes.
        """
        kept = []
        for entry in self.pending:
            st, frame, counted = entry
            for stmt in frame.stmts[counted : frame.i]:
                key = st.statements.get(id(stmt))
                if key is not None:
                    self.statement_runs[st.at(key)] += 1
            entry[2] = frame.i
            if not final and frame.i < len(frame.stmts):
                kept.append(entry)
        self.pending = kept[-self.KEEP :]


@contextlib.contextmanager
def observe(recorder: Recorder) -> Iterator[Recorder]:
    """Record every block pushed by a game made while the context lasts (not by the clones agents make)."""
    try:
        with observing(recorder):
            yield recorder
    finally:
        recorder.flush()


# ---------------------------------------------------------------------------- the report


@attrs.define
class Report:
    """Coverage of one rulebook's files: what ran and what did not."""

    name: str
    sources: dict[str, str]
    lines: dict[str, dict[int, int]]  # file -> line -> runs of the statements starting there (0: never)
    arms: list[tuple[Arm, int]]  # every arm and how often it ran

    def counted(self, kinds: Sequence[str]) -> tuple[int, int]:
        chosen = [n for arm, n in self.arms if arm.kind in kinds]
        return sum(1 for n in chosen if n), len(chosen)

    def line_totals(self) -> tuple[int, int]:
        every = [n for lines in self.lines.values() for n in lines.values()]
        return sum(1 for n in every if n), len(every)

    def missing(self) -> dict[str, list[int]]:
        return {f: sorted(n for n, runs in lines.items() if not runs) for f, lines in self.lines.items()}


BRANCHES = ("then", "elif", "else", "fallthrough", "case")
SUMMARY = (
    ("statements (lines)", None),
    ("branches (if/elif/else, match)", BRANCHES),
    ("ability tiers resolved", ("tier",)),
    ("rules fired", ("rule",)),
    ("menu options chosen", ("option",)),
    ("procedures called", ("proc",)),
)


def report(recorder: Recorder, program: Program, name: str) -> Report:
    """What the recorder saw of a rulebook's files.

    Counts are kept by place in a file's text (by a hash of that text), so what every game ran
    there counts: a Program loaded again from the same text (by another path), and an extension
    that includes it.
    """
    recorder.flush()
    st = Structure(program)
    lines: dict[str, dict[int, int]] = {f: {} for f in program.sources}
    for key in st.statements.values():
        file, line, _ = key
        lines[file][line] = lines[file].get(line, 0) + recorder.statement_runs[st.at(key)]
    arms: list[tuple[Arm, int]] = []
    for arm in st.arms:
        runs = recorder.arm_runs[st.of(arm)]
        if arm.kind == "fallthrough":
            where = (arm.file, arm.line, arm.column)
            _, taken = st.falls[where]
            runs = max(0, recorder.statement_runs[st.at(where)] - sum(recorder.arm_runs[st.of(a)] for a in taken))
        arms.append((arm, runs))
    return Report(name, dict(program.sources), lines, arms)


def _ranges(numbers: list[int]) -> str:
    """`3, 4, 5, 9` reads `3-5, 9`."""
    runs: list[list[int]] = []
    for n in numbers:
        if runs and runs[-1][-1] == n - 1:
            runs[-1].append(n)
        else:
            runs.append([n])
    return ", ".join(str(r[0]) if len(r) == 1 else f"{r[0]}-{r[-1]}" for r in runs)


def text_report(rep: Report, heading: str) -> str:
    """The summary, per ability and rule, what never ran, and the uncovered lines as file:line."""
    out = [heading, ""]
    for title, kinds in SUMMARY:
        done, total = rep.line_totals() if kinds is None else rep.counted(kinds)
        share = f"{100 * done / total:5.1f}%" if total else "    -"
        out.append(f"  {title:<32} {done:>5} / {total:<5} {share}")
    tiers: dict[str, list[str]] = {}
    for arm, runs in rep.arms:
        if arm.kind == "tier":
            level = arm.label.rsplit(" ", 1)[-1]
            tiers.setdefault(arm.owner, []).append(f"{level}:{runs}")
    if tiers:
        out += ["", "abilities (tier: times resolved)"]
        width = max(len(n) for n in tiers)
        out += [f"  {n:<{width}}  {'  '.join(ts)}" for n, ts in tiers.items()]
    rules = [(arm, runs) for arm, runs in rep.arms if arm.kind == "rule"]
    if rules:
        out += ["", "rules (times fired)"]
        width = max(len(a.owner) for a, _ in rules)
        out += [f"  {a.owner:<{width}}  {runs}" for a, runs in rules]
    never = sorted(
        ((arm, runs) for arm, runs in rep.arms if not runs and arm.kind != "body"), key=lambda a: a[0].key[1:]
    )
    if never:
        out += ["", "never run"]
        out += [f"  {a.file}:{a.line}: {a.label}{f'  (in {a.owner})' if a.owner else ''}" for a, _ in never]
    missing = {f: ns for f, ns in rep.missing().items() if ns}
    if missing:
        out += ["", "statements never run (file:line)"]
        out += [f"  {f}:{_ranges(ns)}" for f, ns in missing.items()]
    return "\n".join(out) + "\n"


_CSS = """body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}
td,th{padding:0 .6em;text-align:left}pre{margin:0}.src td{font-family:monospace;white-space:pre}
.run{background:#dfd}.miss{background:#fdd}.n{color:#888;text-align:right}.arm{color:#a00}"""


def html_report(rep: Report, heading: str, folder: Path) -> Path:
    """Write index.html (the summary) and one annotated page per rulebook file; return the index."""
    folder.mkdir(parents=True, exist_ok=True)
    arms_at: dict[tuple[str, int], list[str]] = {}
    for arm, runs in rep.arms:
        if not runs and arm.kind != "body":
            arms_at.setdefault((arm.file, arm.line), []).append(f"never: {arm.label}")
    rows = []
    for i, (file, source) in enumerate(rep.sources.items()):
        page = f"file{i}.html"
        lines = rep.lines[file]
        body = []
        for n, text in enumerate(source_lines(source), 1):
            ran = lines.get(n)
            cls = "" if ran is None else ("run" if ran else "miss")
            note = "; ".join(arms_at.get((file, n), []))
            body.append(
                f'<tr class="{cls}"><td class="n">{n}</td><td class="n">{"" if ran is None else ran}</td>'
                f'<td>{html.escape(text)}</td><td class="arm">{html.escape(note)}</td></tr>'
            )
        done, total = sum(1 for r in lines.values() if r), len(lines)
        (folder / page).write_text(
            f"<!doctype html><meta charset=utf-8><title>{html.escape(file)}</title><style>{_CSS}</style>"
            f'<h1>{html.escape(file)}</h1><p>{done} of {total} statement lines ran. <a href="index.html">back</a></p>'
            f'<table class="src">{"".join(body)}</table>\n',
            encoding="utf-8",
        )
        rows.append(f'<tr><td><a href="{page}">{html.escape(file)}</a></td><td>{done} / {total}</td></tr>')
    summary = html.escape(text_report(rep, heading))
    index = folder / "index.html"
    index.write_text(
        f"<!doctype html><meta charset=utf-8><title>coverage of {html.escape(rep.name)}</title><style>{_CSS}</style>"
        f"<h1>coverage of {html.escape(rep.name)}</h1><table><tr><th>file</th><th>statement lines</th></tr>"
        f"{''.join(rows)}</table><pre>{summary}</pre>\n",
        encoding="utf-8",
    )
    return index


# ---------------------------------------------------------------------------- the command


def register(sub: argparse._SubParsersAction) -> None:
    """Add `rulecraft coverage` to the command line."""
    p = sub.add_parser(
        "coverage",
        help="which rules, tiers, arms and lines scenarios and games exercise",
        description="Run a rulebook's scenarios and N seeded games and report which statements, if/else and "
        "match arms, ability tiers, rules, menu options and procedures ran, and the lines that never did.",
    )
    p.add_argument("game", help="a bundled rulebook or a path")
    p.add_argument(
        "--scenarios",
        metavar="DIR",
        help="run the scenario files (*.scenario) in this folder that play this game or an extension of it",
    )
    p.add_argument(
        "--games", type=whole(0, 1_000_000), default=0, metavar="N", help="also play N seeded games (default 0)"
    )
    p.add_argument("--agents", default="random", help="comma-separated agents for the games (default random)")
    p.add_argument("--players", type=PLAYERS, help="players per game (default: every count the game allows, in turn)")
    p.add_argument("--seed", type=SEED, default=0, help="the first game's seed; game i has seed S+i (default 0)")
    p.add_argument("--html", metavar="DIR", help="also write an annotated HTML report in this folder")
    p.set_defaults(func=cmd_coverage)


def scenarios_of(folder: Path, program: Program) -> tuple[list[tuple[Path, Rulebook]], list[Path]]:
    """The scenario files in a folder that play this rulebook, or an extension that includes it
    (each with the rulebook it names), and the others."""
    from ..authoring.scenario import read_scenario
    from ..rulebook import load

    mine: list[tuple[Path, Rulebook]] = []
    others: list[Path] = []
    for path in sorted(folder.rglob("*.scenario")):
        sc = read_scenario(path)
        name = sc.game or ""
        if name.endswith(".rules") and not Path(name).is_absolute():
            name = str(path.parent / name)
        try:
            rb = load(name) if name else None
        except RulecraftError:
            rb = None
        texts = set(rb.program.sources.values()) if rb is not None else set()
        if rb is not None and set(program.sources.values()) <= texts:
            mine.append((path, rb))
        else:
            others.append(path)
    return mine, others


def cmd_coverage(args: argparse.Namespace) -> int:
    from .. import agents as agents_mod
    from ..authoring.scenario import read_scenario, start
    from ..rulebook import load

    rb = load(args.game)
    program = rb.program
    names = [a.strip() for a in args.agents.split(",") if a.strip()] or ["random"]
    for agent in names:
        if agent not in agents_mod.AGENTS or agent == "human":
            raise UsageError(f"--agents: unknown agent '{clip(agent)}': choose from random, greedy")
    if args.players:
        counts = [players_for(rb, args.players)]
    else:
        counts = list(range(program.min_players, program.max_players + 1))
    recorder = Recorder()
    ran: list[Path] = []
    skipped: list[Path] = []
    with observe(recorder):
        if args.scenarios:
            folder = Path(args.scenarios)
            if not folder.is_dir():
                raise RulecraftError(f"--scenarios {args.scenarios}: not a folder")
            found, skipped = scenarios_of(folder, program)
            for path, its_rulebook in found:
                start(read_scenario(path), its_rulebook)
                recorder.flush()
            ran = [path for path, _ in found]
        for i in range(args.games):
            players = counts[i % len(counts)]
            seed = args.seed + i
            game = rb.new_game(players=players, seed=seed)
            agents_mod.play(game, agents_mod.make_agents(names, players, seed))
            recorder.flush()
    parts = [f"{len(ran)} scenario(s)"] if args.scenarios else []
    if args.games:
        last = args.seed + args.games - 1
        seeds = f"seed {args.seed}" if args.games == 1 else f"seeds {args.seed}-{last}"
        players_text = "-".join(str(c) for c in (counts if len(counts) == 1 else [counts[0], counts[-1]]))
        parts.append(f"{args.games} game(s) ({','.join(names)}, {seeds}, {players_text} players)")
    heading = f"coverage of {rb.name} by {' and '.join(parts) or 'nothing (give --scenarios or --games)'}"
    if skipped:
        heading += f"\n({len(skipped)} scenario(s) in {args.scenarios} play another rulebook: not run)"
    rep = report(recorder, program, rb.name)
    sys.stdout.write(printable(text_report(rep, heading), newlines=True))
    if args.html:
        index = html_report(rep, heading, Path(args.html))
        print(f"\nwrote {index}")
    return 0
