"""Authoring commands: `explain`, `fmt` and `simulate` (`trace --scenario` is in `rulecraft.authoring.scenario`).

`cli.py` calls `register(subparsers)`; each command sets its own `func`.
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import sys
import tempfile
from pathlib import Path

from ..console import PLAYERS, SEED, WORKERS, add_quiet, whole
from ..errors import RulecraftError, source_lines
from ..terminal import printable
from ..tools.distributed import add_backend


def register(sub: argparse._SubParsersAction) -> None:
    """Add the authoring commands to the `rulecraft` command line."""
    p = sub.add_parser(
        "explain",
        help="render rules and card abilities as English",
        description="Render a rulebook (or one declaration of it) from its AST as plain English.",
    )
    p.add_argument("game", help="a bundled rulebook or a path")
    p.add_argument("name", nargs="?", help="one declaration: an ability, rule, procedure, card type, zone, …")
    p.set_defaults(func=cmd_explain)

    p = sub.add_parser(
        "fmt",
        help="format rulebook files canonically",
        description="Rewrite rulebook files in the canonical layout (comments kept); each file is "
        "replaced at once (a new file renamed over it). With --check, change nothing and exit 1 if a "
        "file is not in canonical form; with --diff, change nothing and print the changes.",
    )
    p.add_argument("files", nargs="+", metavar="FILE", help="rulebook files, or folders of them")
    p.add_argument("--check", action="store_true", help="only report files that would change (exit 1)")
    p.add_argument(
        "--diff",
        action="store_true",
        help="print the changes as a unified diff and write nothing (with --check: exit 1)",
    )
    p.set_defaults(func=cmd_fmt)

    p = sub.add_parser(
        "simulate",
        help="play many seeded games and print statistics",
        description="Play N games (seeds derived from one master seed), in local processes or as Ray "
        "tasks, then print win rates by seat and by agent (of a cooperative game: the team's win rate and "
        "the distribution of its team score), game length, how often each ability and tier "
        "is offered and chosen (and how its choosers fare), the score over the game and how often each "
        "card is chosen or moved; as JSON and as a plot too.",
    )
    p.add_argument("game", help="a bundled rulebook or a path")
    p.add_argument("-n", type=whole(1, 10_000_000), default=100, help="number of games (default 100)")
    p.add_argument("--players", type=PLAYERS, help="players per game (default: the fewest the game allows)")
    p.add_argument(
        "--agents",
        default="random",
        help="comma-separated agents (random, greedy, mcts); with several kinds, seats rotate between games",
    )
    p.add_argument(
        "--agent-option",
        action="append",
        default=[],
        metavar="AGENT.OPTION=VALUE",
        help="an option of an agent, repeatable, as in mcts.iterations=200 (docs/AGENTS.md)",
    )
    p.add_argument("--seed", type=SEED, default=0, help="the master seed (default 0)")
    p.add_argument(
        "--workers",
        type=WORKERS,
        help="processes to use, at most one a game (results do not depend on it); "
        "with --backend ray and no --address: the CPUs of the local Ray instance (default: all)",
    )
    add_backend(p)
    p.add_argument("--top", type=whole(0, 100_000), default=15, help="how many cards to list (default 15)")
    p.add_argument(
        "--json",
        nargs="?",
        const="-",
        metavar="FILE",
        help="write the statistics as JSON to FILE (every rate with its 95 %% interval); "
        "without FILE (or -), print them on stdout instead of the report",
    )
    p.add_argument(
        "--plot",
        metavar="FILE",
        help="draw the statistics into FILE.png or FILE.svg (needs matplotlib: pip install 'rulecraft[plot]')",
    )
    add_quiet(p)
    p.set_defaults(func=cmd_simulate)


def cmd_explain(args: argparse.Namespace) -> int:
    from ..rulebook import load
    from .explain import explain

    sys.stdout.write(explain(load(args.game).program, args.name))
    return 0


def rulebook_files(items: list[str]) -> list[Path]:
    """The `.rules` files named, folders searched recursively, in a stable order."""
    out: list[Path] = []
    for item in items:
        path = Path(item)
        if path.is_dir():
            out.extend(sorted(path.rglob("*.rules")))
        elif path.exists():
            out.append(path)
        else:
            raise RulecraftError(f"no such file or folder: {item}")
    return out


def cmd_fmt(args: argparse.Namespace) -> int:
    """Format files in place; with --check or --diff (as black and ruff do) write nothing."""
    from ..rulebook import read_rulebook_file
    from .fmt import format_text

    changed = []
    for path in rulebook_files(args.files):
        text = read_rulebook_file(str(path))  # as `check` reads it: a regular file, bounded, UTF-8
        formatted = format_text(text, str(path))
        if formatted == text:
            continue
        changed.append(path)
        if args.check:
            print(f"{path}: not in canonical form (run: rulecraft fmt {path})")
        if args.diff:
            old, new = source_lines(text, keepends=True), source_lines(formatted, keepends=True)
            sys.stdout.writelines(difflib.unified_diff(old, new, str(path), f"{path} (formatted)"))
        elif not args.check:
            replace_text(path, formatted)
            print(f"formatted {path}")
    return 1 if args.check and changed else 0


def replace_text(path: Path, text: str) -> None:
    """Write a file's new text to a temporary file beside it, then rename it over the file: an
    interruption at any instant leaves the old text or the new, never half of one. The mode is kept."""
    try:
        mode = path.stat().st_mode & 0o7777
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    except OSError as exc:
        raise RulecraftError(f"{path}: cannot write the file: {exc.strerror or exc}") from None
    try:
        os.fchmod(fd, mode)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def cmd_simulate(args: argparse.Namespace) -> int:
    from ..agents import parse_agent, with_options
    from ..console import UsageError, players_for, progress, workers_for
    from ..errors import GameError
    from ..rulebook import load
    from ..tools import simulate as simulation
    from ..tools.distributed import backend_for
    from ..tools.simulate import report, report_data, simulate, timed

    players = players_for(load(args.game), args.players)
    names = [a.strip() for a in args.agents.split(",") if a.strip()] or ["random"]
    for name in names:
        try:
            parse_agent(name)
        except GameError as exc:
            raise UsageError(f"--agents: {exc}") from None
    try:
        names = with_options(names, args.agent_option)
    except GameError as exc:
        raise UsageError(f"--agent-option: {exc}") from None
    backend_for(args)
    if args.plot:
        from ..tools.plots import check_plot_file

        check_plot_file(args.plot)
    workers = workers_for(args.workers or 1, args.n) if args.backend == "local" or args.workers else 0
    with progress(args.n, "games", "simulate", args.quiet) as advance, simulation.collector_frozen():
        stats, seconds = timed(
            lambda: simulate(
                args.game,
                args.n,
                players=players,
                agents=names,
                seed=args.seed,
                workers=workers,
                progress=lambda done: advance(1),
                backend=args.backend,
                address=args.address,
                batch=args.batch,
            )
        )
    if args.json != "-":
        sys.stdout.write(printable(report(stats, top=args.top), newlines=True))  # card labels are the rulebook's
    if args.json is not None:
        text = json.dumps(report_data(stats, top=args.top), indent=1, sort_keys=True)
        if args.json == "-":
            print(text)
        else:
            try:
                Path(args.json).write_text(text + "\n", encoding="utf-8")
            except OSError as exc:
                raise RulecraftError(f"{args.json}: cannot write the file: {exc.strerror or exc}") from None
    if args.plot:
        from ..tools.plots import plot

        plot(stats, Path(args.plot))
    # Timing goes to stderr: the report on stdout does not depend on the machine or on --workers.
    if not args.quiet:
        where = (
            f"with {workers} worker(s)"
            if args.backend == "local"
            else "on Ray" + (f" at {args.address}" if args.address else "")
        )
        print(f"simulate: {args.n} games in {seconds:.2f} s {where}, {args.n / seconds:.1f} games/s", file=sys.stderr)
    return 0
