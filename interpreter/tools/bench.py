"""`rulecraft bench`: throughput figures of the interpreter on rulebooks.

For each game: parse+check time (cold: the rulebook cache emptied first; cached: loaded again),
games per second and decisions per second with seeded random agents (tracing on and off), the
cost of cloning a game at a decision, the CPU time of a search agent's decision (`MctsAgent` at
its default budget, the agents' own figure: see docs/AGENTS.md), and the peak memory of one game
(tracemalloc). Every figure is measured several times; the report gives the median and the
spread (lowest, highest). Times are the CPU time of this process (`time.process_time`), so that
other work on a busy machine disturbs them less than it would wall-clock time (for changes of a
few per cent, count instructions instead: examples/benchmarks/instructions.py).

Decisions are the answers a game records: the players' and the table's (chance). A decision with
one option is taken at once and is not counted.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Callable
from typing import Any

from .. import rulebook as rulebook_mod
from ..agents import RandomAgent, play
from ..console import PLAYERS, add_quiet, players_for, progress, whole
from ..mcts import MctsAgent
from ..runtime.game import Game


def _summary(samples: list[float]) -> dict[str, float]:
    return {"median": statistics.median(samples), "min": min(samples), "max": max(samples), "n": len(samples)}


def _agents(game: Game, seed: int) -> list[RandomAgent]:
    return [RandomAgent(seed * 7919 + i * 104729 + 1) for i in range(game.state.players)]


def play_random(rb: rulebook_mod.Rulebook, players: int, seed: int, trace: bool) -> Game:
    """One whole game with seeded random agents, played as `rulecraft simulate` plays it.

    So answers are not applied all or nothing (`atomic=False`): a simulation throws a game away
    when an answer fails, and does not pay to keep what would put it back.
    """
    game = rb.new_game(players=players, seed=seed, trace=trace)
    return play(game, _agents(game, seed), atomic=False)  # type: ignore[arg-type]


def _time(fn: Callable[[], Any]) -> float:
    start = time.process_time()
    fn()
    return time.process_time() - start


Advance = Callable[[int], None]


def _nothing(n: int = 1) -> None:
    pass


def measure_load(name: str, repeats: int, advance: Advance = _nothing) -> dict[str, Any]:
    """Seconds to parse and check a rulebook: cold (cache emptied) and cached."""
    rulebook_mod.load(name)  # the parser generator itself is built once per process: not counted
    cold, cached = [], []
    for _ in range(repeats):
        rulebook_mod.clear_cache()
        cold.append(_time(lambda: rulebook_mod.load(name)))
        cached.append(_time(lambda: rulebook_mod.load(name)))
        advance(1)
    return {"cold_s": _summary(cold), "cached_s": _summary(cached)}


def measure_play(
    rb: rulebook_mod.Rulebook,
    players: int,
    games: int,
    repeats: int,
    trace: bool,
    first_seed: int = 0,
    advance: Advance = _nothing,
) -> dict[str, Any]:
    """Games and decisions per second over `repeats` runs of `games` seeded games each."""
    games_per_s, decisions_per_s = [], []
    decisions = 0
    for _ in range(repeats):
        decisions = 0
        start = time.process_time()
        for seed in range(first_seed, first_seed + games):
            decisions += len(play_random(rb, players, seed, trace).answers)
            advance(1)
        elapsed = time.process_time() - start
        games_per_s.append(games / elapsed)
        decisions_per_s.append(decisions / elapsed)
    return {
        "games_per_s": _summary(games_per_s),
        "decisions_per_s": _summary(decisions_per_s),
        "decisions_per_game": decisions / games,
    }


def decision_positions(rb: rulebook_mod.Rulebook, players: int, count: int) -> list[Game]:
    """`count` positions of a seeded random game (seed 0) at which a player decides, spread evenly
    over it: the first player's decision at or after each of `count` evenly spaced answers (one:
    the decision halfway through); none in a game in which no player decides."""
    total = len(play_random(rb, players, 0, False).answers)
    marks = [total * (j + 1) // (count + 1) for j in range(count)]
    game = rb.new_game(players=players, seed=0, trace=False)
    agents = _agents(game, 0)
    positions: list[Game] = []
    while len(positions) < count and not game.over:
        decision = game.current_decision()
        if decision is None or decision.player is None:  # (the table is answered at once)
            break
        if len(game.answers) >= marks[len(positions)]:
            positions.append(game.clone())
        game.apply(agents[decision.player.index].choose(game, decision), atomic=False)
    return positions


def measure_clone(rb: rulebook_mod.Rulebook, players: int, repeats: int, clones: int = 200) -> dict[str, Any]:
    """Microseconds to clone a game paused at a decision halfway through a seeded random game."""
    positions = decision_positions(rb, players, 1)
    if not positions:
        return {"clone_us": None, "at_answer": None}
    game = positions[0]
    samples = []
    for _ in range(repeats):
        start = time.process_time()
        for _ in range(clones):
            game.clone()
        samples.append((time.process_time() - start) / clones * 1e6)
    return {"clone_us": _summary(samples), "at_answer": len(game.answers)}


def measure_search(
    rb: rulebook_mod.Rulebook, players: int, repeats: int, decisions: int, advance: Advance = _nothing
) -> dict[str, Any]:
    """Seconds of CPU an MCTS agent at its default budget takes to decide, over `decisions` positions
    of a seeded random game (`decision_positions`), each searched with the same seed in every run: the
    figure a search agent's strength is bought with (docs/AGENTS.md). Each run gives the mean over
    the positions; the iterations are those of a decision, on average."""
    positions = decision_positions(rb, players, decisions)
    if not positions:
        return {"decision_s": None, "positions": 0, "iterations": None}
    samples: list[float] = []
    iterations = 0
    for _ in range(repeats):
        iterations = 0
        start = time.process_time()
        for i, position in enumerate(positions):
            game = position.clone()
            agent = MctsAgent(seed=i + 1)
            decision = game.current_decision()
            assert decision is not None and decision.player is not None
            agent.choose(game, decision)
            iterations += agent.last_iterations
        samples.append((time.process_time() - start) / len(positions))
        advance(1)
    return {"decision_s": _summary(samples), "positions": len(positions), "iterations": iterations / len(positions)}


def measure_memory(rb: rulebook_mod.Rulebook, players: int) -> dict[str, Any]:
    """Peak memory (KiB) allocated while one seeded random game is played, with its trace and without."""
    out = {}
    for trace in (True, False):
        tracemalloc.start()
        try:
            play_random(rb, players, 0, trace)
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        out["trace" if trace else "no_trace"] = round(peak / 1024, 1)
    return {"peak_kib": out}


def steps(games: int, repeats: int, search: int = 0) -> int:
    """The units of work of `bench_game`, for a progress bar: loads, the warm-up, games with and
    without trace, then the runs of the search (if any)."""
    return repeats + games + 2 * games * repeats + (repeats if search else 0)


def bench_game(
    name: str,
    players: int | None = None,
    games: int = 20,
    repeats: int = 5,
    advance: Advance = _nothing,
    search: int = 0,
) -> dict[str, Any]:
    """Every figure for one rulebook (a bundled name or a path); `search`: the positions at which an
    MCTS decision is timed (0: none)."""
    if games < 1 or repeats < 1:
        raise ValueError("bench at least one game, at least once")
    load = measure_load(name, repeats, advance)
    rb = rulebook_mod.load(name)
    n = players_for(rb, players)
    # Warm-up, not timed: the first games of a rulebook compile the code they reach (generated
    # functions and blocks are made on first use), which would count against whichever is
    # measured first (the trace).
    for seed in range(games):
        play_random(rb, n, seed, True)
        advance(1)
    return {
        "game": name,
        "players": n,
        "games_per_run": games,
        "repeats": repeats,
        "load": load,
        "play_trace": measure_play(rb, n, games, repeats, True, advance=advance),
        "play_no_trace": measure_play(rb, n, games, repeats, False, advance=advance),
        "clone": measure_clone(rb, n, repeats),
        "search": measure_search(rb, n, repeats, search, advance) if search else None,
        "memory": measure_memory(rb, n),
    }


_FRESH = """
import sys, time
start = time.perf_counter()
import rulecraft
for name in sys.argv[1:]:
    rulecraft.load(name)
print(time.perf_counter() - start)
"""


def fresh_process_load(names: list[str]) -> float | None:
    """Seconds a new Python process takes to import rulecraft and load the rulebooks (the grammar's
    cache as configured): what `rulecraft play` pays before the first move. Wall-clock time."""
    try:
        out = subprocess.run(
            [sys.executable, "-c", _FRESH, *names], capture_output=True, text=True, check=True, timeout=120
        )
        return float(out.stdout.strip().splitlines()[-1])
    except (OSError, subprocess.SubprocessError, ValueError, IndexError):
        return None


def bench_all_loads(names: list[str], repeats: int) -> dict[str, Any]:
    """Parse+check of all the named rulebooks together: cold, cached, and in a fresh process."""
    for name in names:
        rulebook_mod.load(name)
    cold, cached = [], []
    for _ in range(repeats):
        rulebook_mod.clear_cache()
        cold.append(_time(lambda: [rulebook_mod.load(n) for n in names]))
        cached.append(_time(lambda: [rulebook_mod.load(n) for n in names]))
    fresh = [t for t in (fresh_process_load(names) for _ in range(repeats)) if t is not None]
    return {
        "games": names,
        "cold_s": _summary(cold),
        "cached_s": _summary(cached),
        "fresh_process_s": _summary(fresh) if fresh else None,
    }


def _fmt(summary: dict[str, float] | None, scale: float = 1.0, unit: str = "") -> str:
    if summary is None:
        return "-"
    return f"{summary['median'] * scale:,.1f}{unit} [{summary['min'] * scale:,.1f}..{summary['max'] * scale:,.1f}]"


def text_report(report: dict[str, Any]) -> str:
    lines = []
    for g in report["games"]:
        lines.append(
            f"{g['game']} ({g['players']} players, {g['games_per_run']} games x {g['repeats']} runs; median [min..max])"
        )
        rows = [
            ("parse+check cold", _fmt(g["load"]["cold_s"], 1000, " ms")),
            ("parse+check cached", _fmt(g["load"]["cached_s"], 1000, " ms")),
        ]
        for key, what in (("play_no_trace", "no trace"), ("play_trace", "trace")):
            p = g[key]
            rows.append((f"games/s ({what})", _fmt(p["games_per_s"])))
            per_game = f"({p['decisions_per_game']:.1f} per game)"
            rows.append((f"decisions/s ({what})", f"{_fmt(p['decisions_per_s'])}  {per_game}"))
        rows.append(("clone at a decision", _fmt(g["clone"]["clone_us"], 1, " us")))
        search = g.get("search")
        if search is not None and search["positions"] == 0:
            rows.append(("MCTS decision (CPU)", "-  (no player decides in the game)"))
        elif search is not None:
            note = f"  ({search['positions']} positions, {search['iterations']:,.0f} iterations each)"
            rows.append(("MCTS decision (CPU)", _fmt(search["decision_s"], 1000, " ms") + note))
        mem = g["memory"]["peak_kib"]
        rows.append(("peak memory", f"{mem['trace']:,.1f} KiB (trace), {mem['no_trace']:,.1f} KiB (no trace)"))
        lines.extend(f"  {label:<24}{value}" for label, value in rows)
    total = report.get("all_loads")
    if total:
        lines.append(
            f"all ({', '.join(total['games'])}): parse+check cold {_fmt(total['cold_s'], 1000, ' ms')}, "
            f"cached {_fmt(total['cached_s'], 1000, ' ms')}, "
            f"fresh process (import + load) {_fmt(total['fresh_process_s'], 1000, ' ms')}"
        )
    return "\n".join(lines)


def cmd_bench(args: argparse.Namespace) -> int:
    names = args.games or rulebook_mod.bundled_names()
    if not names:
        print("no rulebooks to measure: name a rulebook path", file=sys.stderr)
        return 2
    for name in names:  # every rulebook and player count is checked before the first measure
        players_for(rulebook_mod.load(name), args.players)
    report: dict[str, Any] = {"python": sys.version.split()[0], "games": []}
    total = len(names) * steps(args.games_per_run, args.repeats, args.search)
    with progress(total, "steps", "bench", args.quiet) as advance:
        for name in names:
            figures = bench_game(name, args.players, args.games_per_run, args.repeats, advance, args.search)
            report["games"].append(figures)
    report["all_loads"] = bench_all_loads(names, args.repeats)
    if args.json:
        print(json.dumps(report, indent=1, sort_keys=True))
    else:
        print(text_report(report))
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    """Add the `bench` command to the command line."""
    p = sub.add_parser(
        "bench",
        help="throughput figures: games/s, decisions/s, parse+check time",
        description="Measure parse+check time (cold and cached), games/s and decisions/s with "
        "seeded random agents (trace on and off), clone cost, the CPU time of an MCTS decision "
        "and peak memory, for each game (default: every bundled rulebook).",
    )
    p.add_argument("games", nargs="*", metavar="GAME", help="bundled rulebook names or paths")
    p.add_argument("--players", type=PLAYERS, help="number of players (default: the fewest each game allows)")
    p.add_argument(
        "--games-per-run", type=whole(1, 100_000), default=20, metavar="N", help="games per timed run (default 20)"
    )
    p.add_argument("--repeats", type=whole(1, 1000), default=5, metavar="R", help="timed runs per figure (default 5)")
    p.add_argument(
        "--search",
        type=whole(0, 100),
        default=3,
        metavar="K",
        help="positions of a seeded random game at which an MCTS decision (default budget) is timed "
        "in each run (default 3; 0: no search figure)",
    )
    p.add_argument("--json", action="store_true", help="print the figures as JSON (machine-readable)")
    add_quiet(p)
    p.set_defaults(func=cmd_bench)
