"""What every command shares: range-checked numbers for argparse, usage errors, progress on stderr.

Every numeric flag of every command is typed with `whole(low, high)`, so that a value out of
range is a usage error (exit 2) naming the flag and the range, before any work starts. Errors
that depend on a rulebook (a player count the game does not allow) are `UsageError`s too.
"""

from __future__ import annotations

import argparse
import shutil
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, TextIO

from .check.program import MAX_PLAYERS
from .errors import RulecraftError

if TYPE_CHECKING:
    from .rulebook import Rulebook

SEED_MAX = 2**128 - 1  # a seed drawn from the operating system has 128 bits
PLAYERS_MAX = MAX_PLAYERS  # as many seats as a game may declare
WORKERS_MAX = 256


class UsageError(RulecraftError):
    """The command line asks for something the command cannot do: exit 2, as argparse does."""


class Whole:
    """An argparse type: a whole number from `low` to `high`; anything else is a usage error."""

    def __init__(self, low: int, high: int):
        self.low, self.high = low, high

    def __call__(self, text: str) -> int:
        try:
            value = int(text.strip(), 10) if len(text) <= 100 else None  # int() of 5,000 digits raises
        except ValueError:
            value = None
        if value is None or not self.low <= value <= self.high:
            shown = repr(text) if len(text) <= 40 else repr(text[:40]) + "…"
            raise argparse.ArgumentTypeError(f"{shown} is not a whole number from {self.low} to {self.high:,}")
        return value

    def __repr__(self) -> str:
        return f"whole({self.low}, {self.high})"


def whole(low: int, high: int) -> Whole:
    """The type of a numeric flag: `p.add_argument("--repeats", type=whole(1, 1000))`."""
    return Whole(low, high)


SEED = whole(0, SEED_MAX)
PLAYERS = whole(1, PLAYERS_MAX)
WORKERS = whole(1, WORKERS_MAX)


def players_for(rb: Rulebook, requested: int | None, flag: str = "--players") -> int:
    """The player count of a game of `rb`: the one requested, checked against the rulebook, or its fewest."""
    program = rb.program
    if requested is None:
        return program.min_players
    if not program.min_players <= requested <= program.max_players:
        raise UsageError(
            f"{flag} {requested}: {program.name} is played by {program.min_players} to {program.max_players} players"
        )
    return requested


def workers_for(requested: int, tasks: int, stream: TextIO | None = None) -> int:
    """No more worker processes than there are tasks (one for each), with a note when clamped."""
    if requested > max(tasks, 1):
        print(f"note: --workers {requested}: {tasks} games need only {max(tasks, 1)}", file=stream or sys.stderr)
        return max(tasks, 1)
    return requested


def add_quiet(p: argparse.ArgumentParser) -> None:
    p.add_argument("--quiet", "-q", action="store_true", help="no progress bar on stderr")


def shows_progress(quiet: bool = False, stream: TextIO | None = None) -> bool:
    """A progress bar goes to a terminal only: never into a log, a pipe or a test's captured stderr."""
    stream = stream or sys.stderr
    return not quiet and stream.isatty()


@contextmanager
def progress(total: int, unit: str, what: str, quiet: bool = False) -> Iterator[Callable[[int], None]]:
    """A bar on stderr while long work runs; yields `advance(n)`. Quiet unless stderr is a terminal."""
    if not shows_progress(quiet):
        yield _nothing
        return
    from tqdm import tqdm  # type: ignore[import-untyped]  # tqdm ships no type information

    # `delay`: work that ends within a second never draws a bar; `leave=False`: a finished bar is erased.
    # A terminal that does not know its size (0 x 0: a new pseudo-terminal) is taken as 80 x 24 (tqdm
    # would hide the bar below a screen of 0 lines).
    size = shutil.get_terminal_size((80, 24))
    bar = tqdm(
        total=total,
        unit=f" {unit}",
        desc=what,
        file=sys.stderr,
        leave=False,
        ncols=size.columns,
        nrows=size.lines,
        delay=1.0,
    )

    def advance(n: int = 1) -> None:
        bar.update(n)

    try:
        yield advance
    finally:
        bar.close()


def _nothing(n: int = 1) -> None:
    pass
