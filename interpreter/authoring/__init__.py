"""Authoring commands: `explain`, `fmt` and `simulate` (`trace --scenario` is in `rulecraft.scenario`).

`cli.py` calls `register(subparsers)`; each command sets its own `func`.
"""

from __future__ import annotations

import argparse
import difflib
import sys
from pathlib import Path

from ..errors import RulecraftError


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
        description="Rewrite rulebook files in the canonical layout (comments kept). With --check, "
        "change nothing and exit 1 if a file is not in canonical form.",
    )
    p.add_argument("files", nargs="+", metavar="FILE", help="rulebook files, or folders of them")
    p.add_argument("--check", action="store_true", help="only report files that would change (exit 1)")
    p.add_argument("--diff", action="store_true", help="with --check, show the changes as a diff")
    p.set_defaults(func=cmd_fmt)

    p = sub.add_parser(
        "simulate",
        help="play many seeded games and print statistics",
        description="Play N games (seeds derived from one master seed), then print win rates by "
        "seat and by agent, game length and how often each card is chosen or moved.",
    )
    p.add_argument("game", help="a bundled rulebook or a path")
    p.add_argument("-n", type=int, default=100, help="number of games (default 100)")
    p.add_argument("--players", type=int, help="players per game (default: the fewest the game allows)")
    p.add_argument(
        "--agents", default="random", help="comma-separated agents; with several kinds, seats rotate between games"
    )
    p.add_argument("--seed", type=int, default=0, help="the master seed (default 0)")
    p.add_argument("--workers", type=int, default=1, help="processes to use (results do not depend on it)")
    p.add_argument("--top", type=int, default=15, help="how many cards to list (default 15)")
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
    from .fmt import format_text

    changed = []
    for path in rulebook_files(args.files):
        text = path.read_text(encoding="utf-8")
        formatted = format_text(text, str(path))
        if formatted == text:
            continue
        changed.append(path)
        if args.check:
            print(f"{path}: not in canonical form (run: rulecraft fmt {path})")
            if args.diff:
                sys.stdout.writelines(
                    difflib.unified_diff(
                        text.splitlines(True), formatted.splitlines(True), str(path), f"{path} (formatted)"
                    )
                )
        else:
            path.write_text(formatted, encoding="utf-8")
            print(f"formatted {path}")
    return 1 if args.check and changed else 0


def cmd_simulate(args: argparse.Namespace) -> int:
    from .simulate import report, simulate, timed

    if args.n < 1:
        raise RulecraftError("simulate at least one game (-n 1 or more)")
    stats, seconds = timed(
        lambda: simulate(
            args.game, args.n, players=args.players, agents=args.agents.split(","), seed=args.seed, workers=args.workers
        )
    )
    sys.stdout.write(report(stats, top=args.top))
    # Timing goes to stderr: the report on stdout does not depend on the machine or on --workers.
    print(
        f"simulate: {args.n} games in {seconds:.2f} s with {args.workers} worker(s), {args.n / seconds:.1f} games/s",
        file=sys.stderr,
    )
    return 0
