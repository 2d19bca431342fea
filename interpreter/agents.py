"""Agents: they answer decisions through the same door as a person (labels of legal answers)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any, Protocol, TextIO

from .errors import GameError
from .runtime import MASK64, Decision, Game, splitmix
from .values import Player


class Agent(Protocol):
    def choose(self, game: Game, decision: Decision) -> str: ...


class RandomAgent:
    """Uniform over the legal answers, from its own seeded generator."""

    def __init__(self, seed: int = 0):
        self.rng = seed & MASK64

    def _below(self, n: int) -> int:
        self.rng, bits = splitmix(self.rng)
        return bits % n

    def choose(self, game: Game, decision: Decision) -> str:
        return decision.options[self._below(len(decision.options))].label


class GreedyAgent(RandomAgent):
    """One ply: try each answer on a clone (with its own chance), keep the best `heuristic(p)`.

    A finished game counts as a large win or loss. Ties go to a seeded random choice, so greedy
    players differ between seeds. The clone's chance is reseeded from the agent's own generator,
    so the agent cannot peek at the real order of a shuffled deck.
    """

    WIN = 1_000_000

    def choose(self, game: Game, decision: Decision) -> str:
        me = decision.player
        assert me is not None
        best: list[str] = []
        best_value: float = float("-inf")
        salt = self._below(1 << 62)
        for option in decision.options:
            trial = game.clone()
            trial.reseed(salt)
            trial.apply(option.label, atomic=False)  # a clone, thrown away: no need to keep it whole
            value = self._value(trial, me)
            if value > best_value:
                best, best_value = [option.label], value
            elif value == best_value:
                best.append(option.label)
        return best[self._below(len(best))]

    def _value(self, game: Game, me: Player) -> float:
        # A game a guard stopped unfinished has no winner: what counts there is the position.
        if game.over and game.state.unfinished is None:
            winners = game.state.winners or []
            if me.index in winners:
                return self.WIN / len(winners)
            return -self.WIN
        return game.heuristic(me)


class HumanAgent:
    """A person at a terminal: shows what happened since their last turn and their view, then the
    decision with numbered options; reads a number or a label and asks again until it is one."""

    def __init__(self, stdin: TextIO | None = None, stdout: TextIO | None = None):
        self.stdin = stdin or sys.stdin
        self.stdout = stdout or sys.stdout
        self.seen = 0  # events of the game already shown

    def choose(self, game: Game, decision: Decision) -> str:
        from .render import trace_lines, view_text

        out = self.stdout
        me = decision.player
        if me is None:  # the table: a person types what was revealed on the real table
            from .records import pending_draw

            draw = pending_draw(game)
            what = f"a card drawn from {draw[0]} to {draw[1]}" if draw else decision.prompt
            return self._ask(decision, f"table: {what}: what was revealed?")
        # What happened since this seat last answered, as it may see it (without the rule spans).
        news = [line.split("  @ ", 1)[0] for line in trace_lines(game, game.events[self.seen :], viewer=me)]
        self.seen = len(game.events)
        if news:
            out.write("\n" + "\n".join(news) + "\n")
        out.write("\n" + view_text(game, me) + "\n")
        return self._ask(decision, f"{decision.by}: {decision.prompt}")

    def _ask(self, decision: Decision, question: str) -> str:
        """Show the numbered options and read until the answer is one of them."""
        out = self.stdout
        out.write(question + "\n")
        for i, option in enumerate(decision.options, 1):
            out.write(f"  {i}. {option.label}\n")
        while True:
            out.write("> ")
            out.flush()
            line = self.stdin.readline()
            if not line:
                raise GameError("no more input: the game is left unfinished")
            text = line.strip()
            if text.isdigit() and 1 <= int(text) <= len(decision.options):
                return decision.options[int(text) - 1].label
            if text in decision.labels:
                return text
            out.write(
                f"'{text}' is not an answer: type a number from 1 to {len(decision.options)}, or an option's label\n"
            )


AGENTS: dict[str, Callable[[int], Any]] = {
    "random": RandomAgent,
    "greedy": GreedyAgent,
    "human": lambda seed: HumanAgent(),
}


def make_agents(names: list[str], players: int, seed: int) -> list[Agent]:
    """One agent per seat from names (the last name repeats for the remaining seats)."""
    if not names:
        names = ["random"]
    agents = []
    for i in range(players):
        name = names[min(i, len(names) - 1)]
        if name not in AGENTS:
            raise GameError(f"unknown agent '{name}': choose from {', '.join(AGENTS)}")
        agents.append(AGENTS[name]((seed * 7919 + i * 104729 + 1) & MASK64))
    return agents


def play(
    game: Game,
    agents: list[Agent],
    on_answer: Callable[[Game], None] | None = None,
    max_decisions: int = 100_000,
    table: Agent | None = None,
) -> Game:
    """Answer decisions with the agents (one per seat) until the game is over.

    A game without a seed asks chance of `table` (a person typing what was revealed), if given.
    """
    count = 0
    while not game.over:
        decision = game.current_decision()
        if decision is None:
            break
        if decision.player is None and table is None:
            raise GameError(
                f'the game waits on the table ("{decision.prompt}") and has no seed to draw with: '
                "go on with --table, and type what was revealed"
            )
        agent = table if decision.player is None else agents[decision.player.index]
        assert agent is not None
        game.apply(agent.choose(game, decision))
        count += 1
        if on_answer is not None:
            on_answer(game)
        if count > max_decisions:
            raise GameError(f"more than {max_decisions} decisions: the game does not end")
    return game
