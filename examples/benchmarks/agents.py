"""How strong the agents are: seeded matches between two kinds of agent, seats alternated.

    python examples/benchmarks/agents.py GAME -n GAMES --agents mcts,greedy [--players N]
        [--agent-option mcts.iterations=64 ...] [--seed S] [--jsonl FILE]
    python examples/benchmarks/agents.py --summary FILE     # the totals of the games in FILE

Game i is played with seed S + i; in even games the first agent sits in the first seat, in odd
games in the second (with more seats, the seats rotate by i). Each game's result is printed (and
appended to `--jsonl FILE` as it ends, so an interrupted run keeps its games); then the totals:
the first agent's wins, losses and draws (a shared win counts as a draw; a game stopped by a
guard as unfinished), and the seconds per decision of each agent (mean and largest, wall clock
and of CPU).
A solo game (one player) counts the first agent's wins alone. `rulecraft simulate GAME --agents
mcts,greedy` reports win rates too; this script adds the time per decision and keeps every game.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from rulecraft.agents import Agent, make_agent, with_options
from rulecraft.rulebook import load
from rulecraft.runtime.game import Decision, Game


class Timed:
    """An agent whose decisions are timed."""

    def __init__(self, agent: Agent, name: str):
        self.agent, self.name, self.times, self.cpu = agent, name, [], []  # type: ignore[var-annotated]

    def choose(self, game: Game, decision: Decision) -> str:
        start, cpu = time.perf_counter(), time.process_time()
        answer = self.agent.choose(game, decision)
        if len(decision.options) > 1:
            self.times.append(time.perf_counter() - start)
            self.cpu.append(time.process_time() - cpu)  # the machine's load aside
        return answer


def match(game_name: str, players: int, specs: list[str], seed: int, index: int) -> dict[str, Any]:
    """Play game `index`: the kinds of agent take their seats rotated by `index`."""
    rb = load(game_name)
    seats = [specs[(i + index) % len(specs)] if players > 1 else specs[0] for i in range(players)]
    agents = [Timed(make_agent(spec, seed * 7919 + i * 104729 + 1), spec) for i, spec in enumerate(seats)]
    game = rb.new_game(players=players, seed=seed, trace=False)
    decisions = 0
    while not game.over:
        decision = game.current_decision()
        assert decision is not None and decision.player is not None
        game.apply(agents[decision.player.index].choose(game, decision))
        decisions += 1
    return {
        "game": game_name,
        "seed": seed,
        "seats": seats,
        "winners": list(game.state.winners or []),
        "unfinished": game.state.unfinished,
        "decisions": decisions,
        "scores": game.result()["scores"],
        "sizes": {key: len(ids) for key, ids in game.state.zones.items() if ids},  # what each seat holds at the end
        "times": {spec: [t for a in agents if a.name == spec for t in a.times] for spec in set(seats)},
        "cpu": {spec: [t for a in agents if a.name == spec for t in a.cpu] for spec in set(seats)},
    }


def outcome(result: dict[str, Any], first: str) -> str:
    """The first agent's result in a game: win, loss, draw (a shared win too) or unfinished."""
    mine = [seat for seat, spec in enumerate(result["seats"]) if spec == first]
    winners = result["winners"]
    if result["unfinished"] is not None:
        return "unfinished"
    if any(s in winners for s in mine) and (len(winners) == 1 or len(result["seats"]) == 1):
        return "win"
    if any(s in winners for s in mine) or (not winners and len(result["seats"]) > 1):
        return "draw"
    return "loss"


def summary(results: list[dict[str, Any]], first: str) -> list[str]:
    """The totals of games: the first agent's outcomes (with a 95 % Wilson interval of its win
    rate) and each agent's seconds per decision."""
    from rulecraft.tools.simulate import wilson

    n = len(results)
    tally = {"win": 0, "loss": 0, "draw": 0, "unfinished": 0}
    times: dict[str, list[float]] = {}
    cpu: dict[str, list[float]] = {}
    for result in results:
        tally[outcome(result, first)] += 1
        for key, sums in (("seconds", times), ("cpu_seconds", cpu)):
            for spec, (count, total, largest) in result.get(key, {}).items():
                sums.setdefault(spec, [0, 0.0, 0.0])
                sums[spec][0] += count
                sums[spec][1] += total
                sums[spec][2] = max(sums[spec][2], largest)
    low, high = wilson(tally["win"] / n, n) if n else (0.0, 1.0)
    lines = [
        f"{n} games: " + ", ".join(f"{k} {v} ({100 * v / max(n, 1):.0f} %)" for k, v in tally.items()),
        f"  {first} wins {100 * tally['win'] / max(n, 1):.0f} % "
        f"[{100 * low:.0f} % .. {100 * high:.0f} %] (95 % Wilson)",
    ]
    for spec, (count, total, largest) in sorted(times.items()):
        if count:
            lines.append(f"  {spec}: {count} decisions, {total / count:.3f} s mean, {largest:.3f} s largest")
            if spec in cpu and cpu[spec][0]:
                count, total, largest = cpu[spec]
                lines.append(f"    of CPU: {count} decisions, {total / count:.3f} s mean, {largest:.3f} s largest")
    return lines


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("game", nargs="?")
    p.add_argument("-n", type=int, default=10)
    p.add_argument("--players", type=int)
    p.add_argument("--agents", default="mcts,greedy")
    p.add_argument("--agent-option", action="append", default=[])
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--start", type=int, default=0, help="play games START .. START+N-1 of the series (to go on)")
    p.add_argument("--jsonl", help="append each game's result to this file as it ends")
    p.add_argument("--summary", metavar="JSONL", help="print the totals of the games in this file; play nothing")
    args = p.parse_args(argv)
    if args.summary:
        results = [json.loads(line) for line in Path(args.summary).read_text(encoding="utf-8").splitlines() if line]
        first = results[0]["seats"][0] if results else ""
        print("\n".join(summary(results, first)))
        return 0
    if not args.game:
        p.error("name a game (or give --summary FILE)")
    players = args.players or load(args.game).program.min_players
    specs = with_options([a.strip() for a in args.agents.split(",")], args.agent_option)
    results = []
    for i in range(args.start, args.start + args.n):
        result = match(args.game, players, specs, args.seed + i, i)
        times, cpu = result.pop("times"), result.pop("cpu")
        result["seconds"] = {spec: (len(ts), sum(ts), max(ts, default=0.0)) for spec, ts in times.items()}
        result["cpu_seconds"] = {spec: (len(ts), sum(ts), max(ts, default=0.0)) for spec, ts in cpu.items()}
        results.append(result)
        print(f"game {i} seed {result['seed']} seats {result['seats']}: {outcome(result, specs[0])} {result['scores']}")
        if args.jsonl:
            with Path(args.jsonl).open("a", encoding="utf-8") as f:
                f.write(json.dumps(result) + "\n")
    print(f"{args.game}, {players} players, {specs[0]} against {specs[1:] or 'itself'}:")
    print("\n".join(summary(results, specs[0])))
    return 0


if __name__ == "__main__":
    sys.exit(main())
