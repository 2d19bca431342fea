"""How strong the agents are: seeded matches between two kinds of agent, seats alternated.

    python examples/benchmarks/agents.py GAME -n GAMES --agents mcts,greedy [--players N]
        [--agent-option mcts.iterations=64 ...] [--seed S] [--jsonl FILE]

Game i is played with seed S + i; in even games the first agent sits in the first seat, in odd
games in the second (with more seats, the seats rotate by i). Each game's result is printed (and
appended to `--jsonl FILE` as it ends, so an interrupted run keeps its games); then the totals:
the first agent's wins, losses and draws (a shared win counts as a draw; a game stopped by a
guard as unfinished), and the seconds per decision of each agent (mean and largest, wall clock).
A solo game (one player) counts the first agent's wins alone.
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
from rulecraft.runtime import Decision, Game


class Timed:
    """An agent whose decisions are timed."""

    def __init__(self, agent: Agent, name: str):
        self.agent, self.name, self.times = agent, name, []  # type: ignore[var-annotated]

    def choose(self, game: Game, decision: Decision) -> str:
        start = time.perf_counter()
        answer = self.agent.choose(game, decision)
        if len(decision.options) > 1:
            self.times.append(time.perf_counter() - start)
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
        "times": {spec: [t for a in agents if a.name == spec for t in a.times] for spec in set(seats)},
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("game")
    p.add_argument("-n", type=int, default=10)
    p.add_argument("--players", type=int)
    p.add_argument("--agents", default="mcts,greedy")
    p.add_argument("--agent-option", action="append", default=[])
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--jsonl")
    args = p.parse_args(argv)
    players = args.players or load(args.game).program.min_players
    specs = with_options([a.strip() for a in args.agents.split(",")], args.agent_option)
    first = specs[0]
    tally = {"win": 0, "loss": 0, "draw": 0, "unfinished": 0}
    times: dict[str, list[float]] = {}
    for i in range(args.n):
        result = match(args.game, players, specs, args.seed + i, i)
        mine = [seat for seat, spec in enumerate(result["seats"]) if spec == first]
        winners = result["winners"]
        if result["unfinished"] is not None:
            outcome = "unfinished"
        elif any(s in winners for s in mine) and (len(winners) == 1 or players == 1):
            outcome = "win"
        elif any(s in winners for s in mine) or (not winners and players > 1):
            outcome = "draw"
        else:
            outcome = "loss"
        tally[outcome] += 1
        for spec, ts in result["times"].items():
            times.setdefault(spec, []).extend(ts)
        result["outcome"] = outcome
        print(f"game {i} seed {result['seed']} seats {result['seats']}: {outcome} {result['scores']}", flush=True)
        if args.jsonl:
            with Path(args.jsonl).open("a", encoding="utf-8") as f:
                f.write(json.dumps({k: v for k, v in result.items() if k != "times"}) + "\n")
    n = args.n
    print(f"{args.game}, {players} players, {n} games, {first} against {specs[1:] or 'itself'}:")
    print("  " + ", ".join(f"{k} {v} ({100 * v / n:.0f} %)" for k, v in tally.items()))
    for spec, ts in sorted(times.items()):
        if ts:
            print(f"  {spec}: {len(ts)} decisions, {sum(ts) / len(ts):.3f} s mean, {max(ts):.3f} s largest")
    return 0


if __name__ == "__main__":
    sys.exit(main())
