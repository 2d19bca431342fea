"""Guildhall on rulecraft and on the hand-written reference, answer for answer.

A rulecraft game is played with seeded random agents; every decision is taken down (who is asked,
the question, the option labels in order, the answer given), the table's chance decisions
included (drawn from the game's own seeded generator, exactly as a live game draws them). Then
the reference replays the same answers, and at every step it must ask the same player the same
question with the same options in the same order; at the end both games must be over with the same
scores and winners. The first difference is reported with its step and both sides' options.

    python tests/reference/differential.py [SEEDS] [FIRST_SEED]   # a big run: 2, 3 and 4 players
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import rulecraft
from rulecraft.agents import RandomAgent
from rulecraft.records import roll

sys.path.insert(0, str(Path(__file__).resolve().parent))
import guildhall

# One decision: who answers ("P1", ..., "table"), the question, the options in order, the answer,
# and for the table's draws the odds of each option (how many cards carry its label).
Step = tuple[str, str, list[str], str, list[int] | None]


def rulecraft_game(players: int, seed: int, rulebook: Any = None) -> tuple[list[Step], dict[str, Any]]:
    """Every decision of a seeded rulecraft game with random agents, and its result."""
    rb = rulebook or rulecraft.load("guildhall")
    game = rb.new_game(players=players, seed=seed, trace=False, auto_chance=False)
    agents = [RandomAgent(seed * 7919 + i * 104729 + 1) for i in range(players)]
    steps: list[Step] = []
    while not game.over:
        decision = game.current_decision()
        assert decision is not None
        if decision.player is None:
            roll(game)  # what a live game of this seed draws
            answer = game.answers[-1][1]
        else:
            answer = agents[decision.player.index].choose(game, decision)
            game.apply(answer)
        weights = list(decision.chance_weights) if decision.chance_weights is not None else None
        steps.append((decision.by, decision.prompt, decision.labels, answer, weights))
    return steps, game.result()


def _asks(by: str, prompt: str, labels: list[str]) -> str:
    return f'{by} "{prompt}" with options {labels}'


def _how(ours: tuple[str, str, list[str]], theirs: tuple[str, str, list[str]]) -> str:
    if ours[0] != theirs[0]:
        return "a different player is asked"
    if ours[1] != theirs[1]:
        return "the question differs"
    a, b = ours[2], theirs[2]
    for i, (x, y) in enumerate(zip(a, b, strict=False), 1):
        if x != y:
            return f"option {i} differs: '{x}' in rulecraft, '{y}' in the reference"
    return f"rulecraft offers {len(a)} options, the reference {len(b)}"


def first_difference(players: int, steps: list[Step], result: dict[str, Any]) -> tuple[str | None, guildhall.Game]:
    """Replay `steps` on the reference: None if it agrees throughout, else where and how it does not."""
    ref = guildhall.Game(players, auto_chance=False)
    for i, (by, prompt, labels, answer, weights) in enumerate(steps, 1):
        decision = ref.current_decision()
        if decision is None:
            return (
                f"step {i}: rulecraft asks {_asks(by, prompt, labels)}; the reference's game is over ({ref.result()})"
            ), ref
        theirs = (decision.by, decision.prompt, decision.labels)
        if (by, prompt, labels) != theirs:
            return (
                f"step {i}: rulecraft asks {_asks(by, prompt, labels)}; the reference asks "
                f"{_asks(*theirs)} ({_how((by, prompt, labels), theirs)})"
            ), ref
        if weights != decision.weights:
            return (
                f'step {i}: the table\'s odds for "{prompt}" differ: {weights} in rulecraft, '
                f"{decision.weights} in the reference (options {labels})"
            ), ref
        ref.apply(answer)
    decision = ref.current_decision()
    if decision is not None:
        return (
            f"after step {len(steps)}: rulecraft's game is over ({result}); the reference asks "
            f"{_asks(decision.by, decision.prompt, decision.labels)}"
        ), ref
    if ref.result() != result:
        return f"after step {len(steps)}: rulecraft ends with {result}, the reference with {ref.result()}", ref
    return None, ref


def main(argv: list[str]) -> int:
    seeds = int(argv[0]) if argv else 100
    first = int(argv[1]) if len(argv) > 1 else 0
    rb = rulecraft.load("guildhall")
    games = steps_total = undone = 0
    failures = 0
    for players in (2, 3, 4):
        for seed in range(first, first + seeds):
            steps, result = rulecraft_game(players, seed, rb)
            why, ref = first_difference(players, steps, result)
            games += 1
            steps_total += len(steps)
            undone += ref.undone
            if why is not None:
                failures += 1
                print(f"{players} players, seed {seed}: {why}")
    print(f"{games} games, {steps_total} decisions ({undone} tiers undone): {failures} differ")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
