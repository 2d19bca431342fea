"""The team's score in a cooperative game: seeded games with one kind of agent in every seat.

    python examples/benchmarks/team.py GAME -n GAMES --agents greedy:lookahead=3:samples=8 [--players N]
        [--seed S] [--jsonl FILE]

Game i is played with seed S + i, every seat played by the same kind of agent (each seeded as
`agents.py` seeds them). Each game's team score and length is printed (and appended to `--jsonl
FILE` as it ends); then the mean team score with its 95 % interval (the normal approximation,
mean +- 1.96 sd / sqrt(n)), how often the team won, and the mean number of decisions.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
from pathlib import Path
from typing import Any

from rulecraft.agents import make_agent, play, with_options
from rulecraft.rulebook import load


def team_game(game_name: str, players: int, spec: str, seed: int) -> dict[str, Any]:
    """One game of `spec` agents in every seat: its team score, result and length."""
    game = load(game_name).new_game(players=players, seed=seed, trace=False)
    agents = [make_agent(spec, seed * 7919 + i * 104729 + 1) for i in range(players)]
    play(game, agents)
    decisions = sum(1 for by, _ in game.answers if by != "table")
    result = game.result()
    return {"game": game_name, "agents": spec, "players": players, "seed": seed, "together": result["together"],
            "team_score": result["team_score"], "decisions": decisions}  # fmt: skip


def summary(results: list[dict[str, Any]]) -> str:
    """The mean team score with its 95 % interval, the team's wins and the mean length."""
    scores = [r["team_score"] for r in results]
    n = len(scores)
    mean = statistics.fmean(scores)
    half = 1.96 * statistics.stdev(scores) / math.sqrt(n) if n > 1 else float("inf")
    won = sum(r["together"] == "won" for r in results)
    length = statistics.fmean(r["decisions"] for r in results)
    return (
        f"{n} games: team score mean {mean:.2f} [{mean - half:.2f} .. {mean + half:.2f}] (95 %), "
        f"won {won} of {n}, {length:.1f} decisions a game"
    )


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("game")
    p.add_argument("-n", type=int, default=10)
    p.add_argument("--players", type=int)
    p.add_argument("--agents", default="greedy")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--jsonl", help="append each game's result to this file as it ends")
    args = p.parse_args(argv)
    players = args.players or load(args.game).program.min_players
    (spec,) = with_options([args.agents.strip()], [])
    results = []
    for i in range(args.n):
        result = team_game(args.game, players, spec, args.seed + i)
        results.append(result)
        print(f"game {i} seed {result['seed']}: {result['together']}, score {result['team_score']}, "
              f"{result['decisions']} decisions", flush=True)  # fmt: skip
        if args.jsonl:
            with Path(args.jsonl).open("a", encoding="utf-8") as f:
                f.write(json.dumps(result) + "\n")
    print(f"{args.game}, {players} players, {spec} in every seat:")
    print(summary(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
