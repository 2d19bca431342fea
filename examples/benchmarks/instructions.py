"""Instructions per game, counted by valgrind's callgrind: a figure the host's noise cannot move.

    python examples/benchmarks/instructions.py GAME [--players N] [--games N] [--trace] [--atomic] [--agent greedy]

On a shared machine the CPU time of the same run moves by up to 1.5x between rounds, so a change
of a few per cent cannot be seen in `rulecraft bench`. Callgrind counts the instructions the
interpreter executes, which are the same from run to run for the same code and input (seen here:
two counts of the same Guildhall games agree to 0.02 %). It is slow (some 50 times), so the
figure comes from a few games.

The count of one pass over the seeded random games (seeds 0 .. N-1, played as `rulecraft bench`
plays them) is the count of a process that plays them twice less that of one that plays them
once: everything else (start-up, parsing, the code made on first use) is the same in both and
falls out. The disk cache is off and the hash seed fixed, so that both processes do the same work.
The games are played as `simulate` plays them (`atomic=False`); `--atomic` plays the same games
with every answer applied all or nothing, as a live table, a replay or a tool applies them, to
count what `apply` keeps; `--agent greedy` plays them with greedy agents (one ply of search in a
sampled world at each decision: the games of `simulate --agents greedy`).
Compare two checkouts by running the script with each one's Python (`--python`); a checkout from
before the tools package plays its games as its own `bench` did (RESULTS.md compares the engine of
issue 17's day, e67ca25, so).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys

PLAY = """
import sys
from rulecraft import rulebook
try:
    from rulecraft.tools.bench import play_random
except ImportError:  # a checkout from before the tools package (2026-11-30 and earlier)
    from rulecraft.bench import play_random
name, players, games, passes, trace, atomic = sys.argv[1], *map(int, sys.argv[2:7])
agent = sys.argv[7] if len(sys.argv) > 7 else "random"
rb = rulebook.load(name)
if atomic or agent != "random":  # bench's play_random with the agents named, all or nothing with --atomic
    from rulecraft.agents import GreedyAgent, RandomAgent, play

    make = {"random": RandomAgent, "greedy": GreedyAgent}[agent]

    def play_random(rb, players, seed, trace):
        game = rb.new_game(players=players, seed=seed, trace=trace)
        play(game, [make(seed * 7919 + i * 104729 + 1) for i in range(players)], atomic=atomic == 1)
for _ in range(passes):
    for seed in range(games):
        play_random(rb, players, seed, trace == 1)
"""

_COLLECTED = re.compile(r"Collected : (\d+)")


def command(
    python: str,
    game: str,
    players: int,
    games: int,
    passes: int,
    trace: bool,
    atomic: bool = False,
    agent: str = "random",
) -> list[str]:
    """The valgrind command that counts a process playing the games `passes` times."""
    return [
        "valgrind",
        "--tool=callgrind",
        "--callgrind-out-file=/dev/null",
        python,
        "-c",
        PLAY,
        game,
        str(players),
        str(games),
        str(passes),
        "1" if trace else "0",
        "1" if atomic else "0",
        agent,
    ]


def collected(output: str) -> int:
    """The instructions callgrind reports having counted."""
    found = _COLLECTED.search(output)
    if found is None:
        raise RuntimeError(f"callgrind reported no count:\n{output[-2000:]}")
    return int(found.group(1))


def per_game(once: int, twice: int, games: int) -> float:
    """Instructions of one game: the second pass over the games, divided among them."""
    return (twice - once) / games


def count(cmd: list[str]) -> int:
    """The instructions of a counted run (`command`)."""
    env = {**os.environ, "RULECRAFT_CACHE_DIR": "off", "PYTHONHASHSEED": "0"}
    run = subprocess.run(
        cmd,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if run.returncode != 0:  # valgrind passes on the program's exit code
        raise RuntimeError(f"the counted run failed:\n{run.stderr[-2000:]}")
    return collected(run.stderr)


def fewest_players(game: str) -> int:
    """The fewest players `game` allows (Guildhall 2, Valdora 3): the players of a game when none are given."""
    import rulecraft

    return int(rulecraft.load(game).program.min_players)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("game", help="a bundled rulebook or a path")
    p.add_argument("--players", type=int, help="players a game (default: the fewest the game allows)")
    p.add_argument("--games", type=int, default=2, help="seeded random games per pass (default 2)")
    p.add_argument("--trace", action="store_true", help="play with the trace on")
    p.add_argument("--atomic", action="store_true", help="apply every answer all or nothing (simulate does not)")
    p.add_argument(
        "--agent",
        choices=("random", "greedy"),
        default="random",
        help="who plays every seat (default random; greedy: a search, as `simulate --agents greedy` plays)",
    )
    p.add_argument("--python", default=sys.executable, help="the Python whose rulecraft is counted")
    args = p.parse_args(argv)
    if shutil.which("valgrind") is None:
        print("instructions.py needs valgrind (Debian's package valgrind)", file=sys.stderr)
        return 2
    if args.players is None:
        args.players = fewest_players(args.game)
    try:
        once, twice = (
            count(command(args.python, args.game, args.players, args.games, n, args.trace, args.atomic, args.agent))
            for n in (1, 2)
        )
    except RuntimeError as error:
        print(f"instructions.py: {error}", file=sys.stderr)
        return 1
    figure = per_game(once, twice, args.games) / 1e6
    digits = 2 if figure >= 10 else 4  # (a small game's figure, to the thousand)
    what = f"{args.players} players{', trace' if args.trace else ''}{', atomic' if args.atomic else ''}"
    what += ", greedy" if args.agent == "greedy" else ""
    print(f"{args.game} ({what}): {figure:.{digits}f} M instructions a game")
    return 0


if __name__ == "__main__":
    sys.exit(main())
