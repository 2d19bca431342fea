"""The budget of work pinned (docs/RELIABILITY.md, "Budgets"): what each step of seeded games charges, and where a
step stops when the budget runs out, as snapshots. The budget's promise is that a runaway stops at the same
rulebook line whatever the engine's inside looks like; these figures move only when what a step charges moves:
a change of behaviour, made in its own commit and said why (the charges are the definition's: tests/oracle/,
held to the generated code by tests/test_generated.py)."""

from __future__ import annotations

import hashlib
from typing import Any

import pytest
import rulecraft
from rulecraft.agents import RandomAgent
from rulecraft.errors import RulebookError
from rulecraft.runtime import game as game_module
from rulecraft.runtime.basics import WORK_BUDGET

GAMES = [
    ("guildhall", 2),
    ("renaissance_man", 1),
    ("valdora", 3),
    ("examples/tutorial.rules", 2),
    ("examples/games/dominion_first_game.rules", 2),
    ("examples/games/kuhn_poker.rules", 2),
]


def _spent(name: str, players: int, seed: int, decisions: int) -> list[int]:
    """The work each step of a seeded random game charged (up to `decisions` steps)."""
    game = rulecraft.load(name).new_game(players=players, seed=seed, trace=False)
    agent, spent = RandomAgent(seed * 31 + 7), [WORK_BUDGET - game.work_left]
    while (decision := game.current_decision()) is not None and len(spent) <= decisions:
        game.apply(agent.choose(game, decision), atomic=False)
        spent.append(WORK_BUDGET - game.work_left)
    return spent


@pytest.mark.parametrize(("name", "players"), GAMES, ids=[g[0].split("/")[-1] for g in GAMES])
def test_the_work_each_step_charges(name: str, players: int, snapshot: Any) -> None:
    """Over two seeded games, the work of each step: their count, sum and largest, the first steps', and a digest
    of all of them (any step's work moved moves it)."""
    summary = {}
    for seed in (0, 1):
        spent = _spent(name, players, seed, 300)
        summary[f"seed {seed}"] = {
            "steps": len(spent),
            "total": sum(spent),
            "largest": max(spent),
            "first": spent[:12],
            "digest": hashlib.sha256(repr(spent).encode()).hexdigest()[:16],
        }
    assert all(s["total"] > 0 for s in summary.values())
    assert summary == snapshot


def test_where_a_step_stops_when_the_budget_runs_out(monkeypatch: pytest.MonkeyPatch, snapshot: Any) -> None:
    """A Guildhall step (the first of a seeded game, after its 30th decision, that takes more than 400 units of
    work, answered as a random agent answers it) with budgets from none to all but one of the work it takes:
    each stops with the runaway's error at the rulebook line where the budget ran out, always the same line
    for the same budget."""
    game = rulecraft.load("guildhall").new_game(players=2, seed=3, trace=False)
    agent, spent, n = RandomAgent(11), 0, 0
    while True:
        decision = game.current_decision()
        assert decision is not None
        answer = agent.choose(game, decision)
        after = game.clone()
        after.apply(answer, atomic=False)
        spent, n = WORK_BUDGET - after.work_left, n + 1
        if n > 30 and spent > 400:
            break
        game = after
    stops = {}
    for budget in sorted({spent * i // 40 for i in range(40)} | {spent - 1, spent - 2, 1, 0}):
        monkeypatch.setattr(game_module, "WORK_BUDGET", budget)
        tried = game.clone()
        with pytest.raises(RulebookError) as stopped:
            tried.apply(answer, atomic=False)
        where, message = str(stopped.value).splitlines()[0].split(": error: ")
        assert message.startswith("more than") and message.endswith("a runaway computation?")
        stops[budget] = where
    monkeypatch.undo()
    assert len(set(stops.values())) > 3  # (the budgets run out at several lines)
    assert {"spent": spent, "stops": stops} == snapshot
