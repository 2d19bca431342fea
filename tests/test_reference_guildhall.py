"""Guildhall on rulecraft against the hand-written reference in tests/reference/: the same game.

Seeded rulecraft games with random agents are replayed, answer for answer (the table's draws
included), on the reference; every decision must be the same question to the same player with
the same options in the same order, and the games must end alike. A big run is a command:
`python tests/reference/differential.py 500`.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import Any

import pytest
import rulecraft

from tests.scripts import BENCHMARKS, load_script

HERE = Path(__file__).resolve().parent
SEEDS = range(8)
GAMES = [(players, seed) for players in (2, 3, 4) for seed in SEEDS]


@functools.cache
def _differential() -> Any:
    return load_script(HERE / "reference" / "differential.py", "differential")


@functools.cache
def _rulebook() -> rulecraft.Rulebook:
    return rulecraft.load("guildhall")


@functools.cache
def _game(players: int, seed: int) -> tuple[Any, ...]:
    """The decisions and result of one rulecraft game, and the reference's verdict and replayed game."""
    diff = _differential()
    steps, result = diff.rulecraft_game(players, seed, _rulebook())
    why, ref = diff.first_difference(players, steps, result)
    return steps, result, why, ref


@pytest.mark.parametrize(("players", "seed"), GAMES)
def test_the_reference_asks_the_same_questions_and_ends_alike(players: int, seed: int) -> None:
    """With rulecraft's answers, the reference asks the same player the same question with the same
    options in the same order at every step (the table's draws with the same odds), and ends with
    the same scores and winners."""
    _, result, why, ref = _game(players, seed)
    assert why is None, f"{players} players, seed {seed}: {why}"
    assert ref.over and result["winners"]


def _question(prompt: str) -> str:
    """A question without its running count: "Place which cards? (2 of 2)" is "Place which cards?"."""
    return re.sub(r" \((\d+|\d+ of \d+|count \d+)\)$", "", prompt)


def test_the_games_ask_every_question_and_undo_failed_tiers() -> None:
    """Together the compared games ask every question of the rulebook and choose every tier of every
    ability (so every path of the reference is compared), and undo no tier: every pick offered can
    complete its tier (§5, A17; only a Historian's search can fail, and none does in these games)."""
    questions: set[str] = set()
    tiers: set[str] = set()
    undone = 0
    for players, seed in GAMES:
        steps, _, _, ref = _game(players, seed)
        undone += ref.undone
        for _, prompt, _, answer, _ in steps:
            questions.add(_question(prompt))
            if answer.startswith("tier "):
                tiers.add(f"{_question(prompt)} {answer}")
    rulebook = (HERE.parent / "rulebooks" / "guildhall.rules").read_text(encoding="utf-8")
    prompts = {_question(p) for p in re.findall(r'prompt "([^"]*)"', rulebook)}
    abilities = re.findall(r'^ability \w+\([^)]*\) "([^"]*)"', rulebook, re.M)
    tier_texts = re.findall(r'^  tier (\d+) "([^"]*)"', rulebook, re.M)
    assert len(abilities) == 13 and len(tier_texts) == 22
    assert prompts | {f"{a}: which tier?" for a in abilities} | {"draw from deck", "draw from vp_deck"} <= questions
    assert len(tiers) == len(tier_texts)
    assert undone == 0


def test_a_difference_names_its_step_and_both_sides() -> None:
    """A replay that differs from the reference names the first differing step, both questions with
    their options, and how they differ (or both odds of a draw); a different ending is named after
    the last step."""
    diff = _differential()
    steps, result, _, _ = _game(2, 0)
    k = next(i for i, (by, prompt, *_) in enumerate(steps) if by == "P1" and prompt == "Your action")
    by, prompt, labels, answer, _ = steps[k]
    swapped = [labels[1], labels[0], *labels[2:]]
    t = next(i for i, (who, _, options, *_) in enumerate(steps) if who == "table" and len(options) > 2)
    _, draw, drawn, card, odds = steps[t]
    assert odds is not None
    cases = [
        (
            [*steps[:k], (by, prompt, swapped, answer, None), *steps[k + 1 :]],
            result,
            f'step {k + 1}: rulecraft asks P1 "Your action" with options {swapped}; the reference asks '
            f"P1 \"Your action\" with options {labels} (option 1 differs: '{labels[1]}' in rulecraft, "
            f"'{labels[0]}' in the reference)",
        ),
        (
            [*steps[:k], ("P2", prompt, labels, answer, None), *steps[k + 1 :]],
            result,
            f'step {k + 1}: rulecraft asks P2 "Your action" with options {labels}; the reference asks '
            f'P1 "Your action" with options {labels} (a different player is asked)',
        ),
        (
            [*steps[:k], (by, "Act", labels, answer, None), *steps[k + 1 :]],
            result,
            f'step {k + 1}: rulecraft asks P1 "Act" with options {labels}; the reference asks '
            f'P1 "Your action" with options {labels} (the question differs)',
        ),
        (
            [*steps[:k], (by, prompt, [*labels, "pass"], answer, None), *steps[k + 1 :]],
            result,
            f'step {k + 1}: rulecraft asks P1 "Your action" with options {[*labels, "pass"]}; the reference '
            f'asks P1 "Your action" with options {labels} (rulecraft offers {len(labels) + 1} options, '
            f"the reference {len(labels)})",
        ),
        (
            [*steps[:t], ("table", draw, drawn, card, [1] * len(drawn)), *steps[t + 1 :]],
            result,
            f'step {t + 1}: the table\'s odds for "{draw}" differ: {[1] * len(drawn)} in rulecraft, {odds} in the '
            f"reference (options {drawn})",
        ),
        (steps, {**result, "winners": ["P1", "P2"]}, None),
    ]
    for tampered, claimed, expected in cases:
        why, ref = diff.first_difference(2, tampered, claimed)
        if expected is None:
            expected = f"after step {len(steps)}: rulecraft ends with {claimed}, the reference with {ref.result()}"
        assert why == expected
    why, _ = diff.first_difference(2, steps[:-1], result)
    assert why is not None and why.startswith(f"after step {len(steps) - 1}: rulecraft's game is over ")


def test_the_comparison_script_plays_guildhall_on_both_engines_with_the_same_statistics() -> None:
    """examples/benchmarks/compare.py plays Guildhall on rulecraft and on the reference, and both
    sides give the same statistics: the sole winner, the players' decisions, rounds, winning score."""
    compare = load_script(BENCHMARKS / "compare.py", "compare")
    stats = {}
    for side in ("rulecraft", "reference"):
        outcomes = [compare.make_runner("guildhall", side)(seed) for seed in range(3)]
        for winner, decisions, first_return, more in outcomes:
            assert winner in (0, 1, None) and decisions > 50 and first_return is None
            assert 1 <= more["rounds"] <= 200 and more["winning_score"] >= 20
        stats[side] = compare.outcome_stats(outcomes)
    assert set(compare.agree(stats["rulecraft"], stats["reference"])) == {
        "first_player_win_rate",
        "draw_rate",
        "mean_length",
        "mean_rounds",
        "mean_winning_score",
    }
