"""The anchor games side by side in instructions: rulecraft against the reference engines, counted by callgrind.

    pip install -e '.[bench]'        # open_spiel and pyminion (the reference engines)
    python examples/benchmarks/compare_instructions.py [--games N] [--json] [GAME ...]

`compare.py` gives each anchor's speed ratio in time, one process per core; on a shared host that
ratio moves by a fifth from one run to the next, and from one machine to the next by more (the
same tic-tac-toe code measured 0.9 and then 0.8 of OpenSpiel's games/s on two machines). This
script counts instead, with valgrind's callgrind, the instructions the same seeded games (seeds
0 .. N-1, the policies of `compare.py`) take on each side: a figure the host cannot move, so that a
target stated as a ratio of instructions stays put. As `instructions.py` does, the count of one
pass over the games is that of a process playing them twice less one playing them once (imports,
parsing and the code made on first use fall out); the disk cache is off and the hash seed fixed.

The two sides play the same seeds but not the same games (each draws its own way), so a ratio
holds to within the spread of the games' lengths: with the default numbers of games two runs of
Guildhall gave 187.9 and 187.0 M (the first before the collector was frozen), while Kuhn poker's
figure moved by 8 % from 200 games to 1,000 (`--games` sets one number for all). Counting is slow
(some 50 times the time): some ten minutes for the four anchors.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from compare import ANCHORS, available  # noqa: E402 -- the anchors are compare.py's
from instructions import collected, per_game  # noqa: E402 -- counted as instructions.py counts

# Games counted per side by default: enough that the mean length of the games played agrees to a
# few per cent between the two sides (tic-tac-toe and Kuhn poker games are short and vary much).
GAMES = {"tic_tac_toe": 1000, "kuhn_poker": 1000, "dominion_first_game": 20, "guildhall": 20}

# A game played first (imports, caches), then what is alive frozen out of the collector's reach: a full
# collection walks every object alive, some hundred million instructions after OpenSpiel's imports, and
# whether one falls in the first pass or the second would else decide a small game's figure.
PLAY = """
import gc, sys
sys.path.insert(0, sys.argv[1])
import compare
run = compare.make_runner(sys.argv[2], sys.argv[3])
run(10_000)
gc.collect()
gc.freeze()
games, passes = int(sys.argv[4]), int(sys.argv[5])
played = []
for _ in range(passes):
    for seed in range(games):
        played.append(run(seed)[0])
"""


def command(game: str, side: str, games: int, passes: int) -> list[str]:
    """The valgrind command that counts a process playing the anchor's games `passes` times on one side."""
    counted = [sys.executable, "-c", PLAY, str(HERE), game, side, str(games), str(passes)]
    return ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *counted]


def count(game: str, side: str, games: int, passes: int) -> int:
    env = {**os.environ, "RULECRAFT_CACHE_DIR": "off", "PYTHONHASHSEED": "0"}
    run = subprocess.run(command(game, side, games, passes), env=env, capture_output=True, text=True, check=False)
    if run.returncode != 0:
        raise RuntimeError(f"the counted run of {game} ({side}) failed:\n{run.stderr[-2000:]}")
    return collected(run.stderr)


def instructions_a_game(game: str, side: str, games: int) -> float:
    return per_game(count(game, side, games, 1), count(game, side, games, 2), games)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "anchors", nargs="*", metavar="GAME", default=list(ANCHORS), help=f"anchors (default: {', '.join(ANCHORS)})"
    )
    parser.add_argument("--games", type=int, metavar="N", help="games per side (default: each anchor's own)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if shutil.which("valgrind") is None:
        print("compare_instructions.py needs valgrind (Debian's package valgrind)", file=sys.stderr)
        return 2
    unknown = [g for g in args.anchors if g not in ANCHORS]
    if unknown:
        print(
            f"compare_instructions.py: no anchor {', '.join(unknown)}; anchors: {', '.join(ANCHORS)}", file=sys.stderr
        )
        return 2
    report: dict[str, dict[str, object]] = {}
    for game in args.anchors:
        why = available(game)
        if why is not None:
            report[game] = {"skipped": why}
            if not args.json:
                print(f"{game}: skipped ({why})")
            continue
        n = args.games or GAMES[game]
        try:
            ours, theirs = (instructions_a_game(game, side, n) for side in ("rulecraft", "reference"))
        except RuntimeError as error:
            print(f"compare_instructions.py: {error}", file=sys.stderr)
            return 1
        report[game] = {
            "reference": ANCHORS[game]["reference"],
            "games": n,
            "rulecraft_instructions": ours,
            "reference_instructions": theirs,
            "times_the_reference": ours / theirs,
        }
        if not args.json:
            print(
                f"{game} against {ANCHORS[game]['reference']} ({n} games each): rulecraft {ours / 1e6:.4g} M, "
                f"reference {theirs / 1e6:.4g} M instructions a game: x{ours / theirs:.2f} "
                f"(speed ratio {theirs / ours:.2f})"
            )
    if args.json:
        print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
