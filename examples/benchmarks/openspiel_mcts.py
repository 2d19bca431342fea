"""OpenSpiel's MCTS bot plays every seat of a rulebook's game through rulecraft's OpenSpiel adapter.

    python examples/benchmarks/openspiel_mcts.py GAME [--players N] [--simulations S] [--games G] [--seed S]

Needs `pip install -e '.[openspiel]'`. Prints each game's returns, decisions and CPU time: the
larger run beside tests/test_openspiel.py's (which lets MCTS play one seat with two simulations).
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pyspiel
import rulecraft.openspiel  # noqa: F401  (registers the game "rulecraft")
from open_spiel.python.algorithms import mcts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game")
    parser.add_argument("--players", type=int, default=0)
    parser.add_argument("--simulations", type=int, default=10)
    parser.add_argument("--games", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    game = pyspiel.load_game("rulecraft", {"rulebook": args.game, "players": args.players})
    rng = np.random.RandomState(args.seed)
    bot = mcts.MCTSBot(game, 2.0, args.simulations, mcts.RandomRolloutEvaluator(1, rng), random_state=rng)
    for number in range(args.games):
        state = game.new_initial_state()
        start, decisions = time.process_time(), 0
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probabilities = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(int(rng.choice(outcomes, p=probabilities)))
            else:
                state.apply_action(bot.step(state))
                decisions += 1
        cpu = time.process_time() - start
        print(f"game {number}: returns {state.returns()}, {decisions} decisions, {cpu:.1f} s CPU")


if __name__ == "__main__":
    main()
