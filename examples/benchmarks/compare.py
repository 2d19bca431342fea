"""The anchor games side by side: rulecraft against reference engines written in plain Python.

    pip install -e '.[bench]'        # open_spiel and pyminion (the reference engines)
    python examples/benchmarks/compare.py [--quick] [--json] [GAME ...]

| anchor                                   | reference                                              |
|------------------------------------------|--------------------------------------------------------|
| examples/games/tic_tac_toe.rules         | OpenSpiel `python_tic_tac_toe` (pure Python)           |
| examples/games/kuhn_poker.rules          | OpenSpiel `python_kuhn_poker` (pure Python)            |
| examples/games/dominion_first_game.rules | pyminion `Game` with two `BigMoney` bots               |
| rulebooks/guildhall.rules                | tests/reference/guildhall.py (hand-written Python)     |

First it shows that the games are the same: over 10,000 seeded games per engine and game (a
full run takes some 15 minutes on two cores, most of it rulecraft's Guildhall; `--quick` plays a
tenth, `--stat-games N` sets the number) with the same policy on both
sides (uniformly random answers; Big Money bots), the outcome statistics (first player's win
rate, draws, mean length; for Guildhall also the mean number of rounds and the mean winning
score) must agree within sampling error (|difference| < 4 standard errors).
Then it measures speed: for each game, both engines run at the same time, one process per core,
each playing seeded games for a few timed runs of the same CPU time (so the two run side by side
throughout); the report gives the median games/s, the ratio rulecraft / reference, and its
inverse, the time rulecraft takes per game in times the reference's.

Guildhall is played by 2 players; its length is the number of decisions the players answer (the
table's draws not counted), the same count on both sides.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import os
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
GAMES_DIR = ROOT / "examples" / "games"

# One outcome: (winner seat index or None for a draw, length, first player's return or None), and
# for some games a fourth element: more statistics by name ({"rounds": 23.0, ...}).
Outcome = tuple[int | None, int, float | None] | tuple[int | None, int, float | None, dict[str, float]]


# ------------------------------------------------------------------ rulecraft side


def _rulecraft_runner(path: str) -> Callable[[int], Outcome]:
    import rulecraft
    from rulecraft.agents import RandomAgent, play

    rb = rulecraft.load(path)
    name = Path(path).stem

    def run(seed: int) -> Outcome:
        game = rb.new_game(players=2, seed=seed, trace=False)
        play(game, [RandomAgent(seed * 7919 + i * 104729 + 1) for i in range(2)], atomic=False)  # as simulate plays
        winners = game.state.winners or []
        winner = winners[0] if len(winners) == 1 else None
        v = game.state.vars
        if name == "tic_tac_toe":
            return winner, sum(1 for k, x in v.items() if k.startswith("cell[") and x != 0), None
        if name == "kuhn_poker":  # the length is the number of bets and passes
            return winner, sum(1 for by, _ in game.answers if by != "table"), float(v["won[P1]"])
        if name == "dominion_first_game":
            return winner, v["turns[P1]"] + v["turns[P2]"], float(game.score(game.players[0]) or 0)
        if name == "guildhall":
            top = max(game.score(p) or 0 for p in game.players)
            return (
                winner,
                sum(1 for by, _ in game.answers if by != "table"),
                None,
                {"rounds": float(v["rounds"]), "winning_score": float(top)},
            )
        return winner, len(game.answers), None

    return run


# ------------------------------------------------------------------ reference side


def _openspiel_runner(short_name: str) -> Callable[[int], Outcome]:
    import pyspiel
    from open_spiel.python.games import kuhn_poker, tic_tac_toe  # noqa: F401 -- registers the python_ games

    game = pyspiel.load_game(short_name)

    def run(seed: int) -> Outcome:
        rng = random.Random(seed)
        state = game.new_initial_state()
        moves = 0
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(outcomes[rng.randrange(len(outcomes))][0])  # uniform in both games
            else:
                actions = state.legal_actions()
                state.apply_action(actions[rng.randrange(len(actions))])
                moves += 1
        returns = state.returns()
        winner = 0 if returns[0] > returns[1] else 1 if returns[1] > returns[0] else None
        return winner, moves, float(returns[0]) if short_name == "python_kuhn_poker" else None

    return run


def _pyminion_runner() -> Callable[[int], Outcome]:
    import logging

    from pyminion.bots.examples import BigMoney
    from pyminion.expansions import base
    from pyminion.game import Game

    logging.getLogger().setLevel(logging.WARNING)
    kingdom = [
        base.cellar,
        base.market,
        base.merchant,
        base.militia,
        base.mine,
        base.moat,
        base.remodel,
        base.smithy,
        base.village,
        base.workshop,
    ]

    def run(seed: int) -> Outcome:
        random.seed(seed)  # pyminion draws from the global generator
        bots = [BigMoney(player_id="P1"), BigMoney(player_id="P2")]
        game = Game(
            players=bots, expansions=[base.base_set], kingdom_cards=kingdom, random_order=False, log_stdout=False
        )
        result = game.play()
        winners = [game.players.index(p) for p in result.winners]
        return (
            winners[0] if len(winners) == 1 else None,
            sum(p.turns for p in game.players),
            float(game.players[0].get_victory_points()),
        )

    return run


def _guildhall_runner() -> Callable[[int], Outcome]:
    sys.path.insert(0, str(ROOT / "tests" / "reference"))
    import guildhall  # type: ignore[import-not-found]

    return guildhall.run  # type: ignore[no-any-return]


ANCHORS: dict[str, dict[str, Any]] = {
    "tic_tac_toe": {
        "rules": str(GAMES_DIR / "tic_tac_toe.rules"),
        "reference": "OpenSpiel python_tic_tac_toe",
        "ref": lambda: _openspiel_runner("python_tic_tac_toe"),
        "same": 10000,
    },
    "kuhn_poker": {
        "rules": str(GAMES_DIR / "kuhn_poker.rules"),
        "reference": "OpenSpiel python_kuhn_poker",
        "ref": lambda: _openspiel_runner("python_kuhn_poker"),
        "same": 10000,
    },
    "dominion_first_game": {
        "rules": str(GAMES_DIR / "dominion_first_game.rules"),
        "reference": "pyminion BigMoney x2",
        "ref": _pyminion_runner,
        "same": 10000,
    },
    "guildhall": {
        "rules": "guildhall",
        "reference": "tests/reference/guildhall.py",
        "ref": _guildhall_runner,
        "same": 10000,
    },
}


def make_runner(game: str, side: str) -> Callable[[int], Outcome]:
    anchor = ANCHORS[game]
    return _rulecraft_runner(anchor["rules"]) if side == "rulecraft" else anchor["ref"]()


# ------------------------------------------------------------------ statistics


def outcome_stats(outcomes: list[Outcome]) -> dict[str, Any]:
    n = len(outcomes)
    first = sum(1 for o in outcomes if o[0] == 0) / n
    draws = sum(1 for o in outcomes if o[0] is None) / n
    lengths = [o[1] for o in outcomes]
    stats: dict[str, Any] = {
        "games": n,
        "first_player_win_rate": first,
        "first_se": math.sqrt(first * (1 - first) / n),
        "draw_rate": draws,
        "draw_se": math.sqrt(draws * (1 - draws) / n),
        "mean_length": statistics.fmean(lengths),
        "length_se": statistics.stdev(lengths) / math.sqrt(n),
    }
    returns = [o[2] for o in outcomes if o[2] is not None]
    if returns:
        stats["mean_first_return"] = statistics.fmean(returns)
        stats["return_se"] = statistics.stdev(returns) / math.sqrt(n)
    for key in EXTRA_STATS:
        values = [o[3][key] for o in outcomes if len(o) > 3 and key in o[3]]
        if values:
            stats[f"mean_{key}"] = statistics.fmean(values)
            stats[f"{key}_se"] = statistics.stdev(values) / math.sqrt(len(values))
    return stats


EXTRA_STATS = ("rounds", "winning_score")  # the names an Outcome's fourth element may give


def agree(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    """For each statistic: the difference in standard errors (of the difference), and whether it is < 4."""
    out = {}
    for key, se in (
        ("first_player_win_rate", "first_se"),
        ("draw_rate", "draw_se"),
        ("mean_length", "length_se"),
        ("mean_first_return", "return_se"),
        *((f"mean_{k}", f"{k}_se") for k in EXTRA_STATS),
    ):
        if key not in a or key not in b:
            continue
        spread = math.hypot(a[se], b[se])
        z = 0.0 if spread == 0 and a[key] == b[key] else abs(a[key] - b[key]) / spread if spread else math.inf
        out[key] = {"rulecraft": a[key], "reference": b[key], "z": z, "agrees": z < 4}
    return out


# ------------------------------------------------------------------ workers (one process per core)


def _same_worker(task: tuple[str, str, int]) -> tuple[str, str, list[Outcome]]:
    game, side, n = task
    run = make_runner(game, side)
    return game, side, [run(seed) for seed in range(n)]


def _speed_worker(task: tuple[str, str, float, int]) -> tuple[str, str, list[float]]:
    game, side, seconds, repeats = task
    run = make_runner(game, side)
    run(10_000)  # warm up: imports, caches
    rates = []
    seed = 0
    for _ in range(repeats):
        # Each run lasts the same CPU time on both sides, so that the two engines of a game run
        # side by side for the whole measurement (one process per core).
        games, start = 0, time.process_time()
        while (elapsed := time.process_time() - start) < seconds:
            run(seed)
            seed += 1
            games += 1
        rates.append(games / elapsed)
    return game, side, rates


def available(game: str) -> str | None:
    """None if both sides of the anchor can run here, else why not."""
    try:
        make_runner(game, "rulecraft")
    except Exception as exc:  # e.g. the rulebook is not bundled yet
        return f"rulebook cannot load: {str(exc).splitlines()[0]}"
    if game == "guildhall" and not (ROOT / "tests" / "reference" / "guildhall.py").exists():
        return "no hand-written reference: tests/reference/guildhall.py is missing (run compare.py from a checkout)"
    try:
        make_runner(game, "reference")
    except ImportError as exc:
        return f"reference engine missing ({exc.name}): pip install -e '.[bench]'"
    except Exception as exc:
        return f"reference cannot start: {exc}"
    return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("games", nargs="*", default=list(ANCHORS), help=f"anchors (default: {', '.join(ANCHORS)})")
    parser.add_argument("--quick", action="store_true", help="a tenth of the games (a smoke run)")
    parser.add_argument(
        "--stat-games", type=int, metavar="N", help="games per engine for the statistics (default: each anchor's own)"
    )
    parser.add_argument("--repeats", type=int, default=5, help="timed runs per engine (default 5)")
    parser.add_argument("--seconds", type=float, default=2.0, help="CPU seconds per timed run (default 2)")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="processes (default: one per core)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    scale = 0.1 if args.quick else 1.0
    report: dict[str, Any] = {"cores": os.cpu_count(), "workers": args.workers, "games": {}}
    games = []
    for game in args.games:
        why = available(game)
        if why is not None:
            report["games"][game] = {"skipped": why}
        else:
            games.append(game)
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(args.workers) as pool:
        same_tasks = [
            (g, side, args.stat_games or max(50, int(ANCHORS[g]["same"] * scale)))
            for g in games
            for side in ("rulecraft", "reference")
        ]
        outcomes: dict[tuple[str, str], list[Outcome]] = {}
        for g, side, result in pool.imap_unordered(_same_worker, same_tasks):
            outcomes[(g, side)] = result
        speed_tasks = [
            (g, side, args.seconds * scale, args.repeats) for g in games for side in ("rulecraft", "reference")
        ]
        rates: dict[tuple[str, str], list[float]] = {}
        for g, side, result in pool.imap_unordered(_speed_worker, speed_tasks):
            rates[(g, side)] = result
    for g in games:
        a, b = outcome_stats(outcomes[(g, "rulecraft")]), outcome_stats(outcomes[(g, "reference")])
        ra, rb = statistics.median(rates[(g, "rulecraft")]), statistics.median(rates[(g, "reference")])
        report["games"][g] = {
            "reference": ANCHORS[g]["reference"],
            "same_game": agree(a, b),
            "rulecraft_stats": a,
            "reference_stats": b,
            "games_per_s": {
                "rulecraft": ra,
                "reference": rb,
                "ratio": ra / rb,
                "time_per_game_ratio": rb / ra,
                "rulecraft_runs": rates[(g, "rulecraft")],
                "reference_runs": rates[(g, "reference")],
            },
        }
    if args.json:
        print(json.dumps(report, indent=1, sort_keys=True))
        return 0
    print(f"{report['cores']} cores, {args.workers} worker processes")
    for g, r in report["games"].items():
        if "skipped" in r:
            print(f"{g}: skipped: {r['skipped']}")
            continue
        print(f"{g} against {r['reference']} ({r['rulecraft_stats']['games']} games each)")
        for key, c in r["same_game"].items():
            verdict = "agree" if c["agrees"] else "DIFFER"
            print(
                f"  {key:<22} rulecraft {c['rulecraft']:8.3f}   reference {c['reference']:8.3f}   "
                f"z {c['z']:4.1f}  {verdict}"
            )
        s = r["games_per_s"]
        print(
            f"  games/s                rulecraft {s['rulecraft']:8.1f}   reference {s['reference']:8.1f}   "
            f"ratio {s['ratio']:.2f} (time per game x{s['time_per_game_ratio']:.1f})"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
