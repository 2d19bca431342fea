"""`rulecraft.env`: any rulebook as a PettingZoo AEC environment. Without the `[rl]` extra the
module is skipped, except in CI (`RULECRAFT_EXTRAS_REQUIRED`), which installs it and must run it."""

from __future__ import annotations

import importlib
import os
import warnings
from types import ModuleType

import pytest


def needs(module: str) -> ModuleType:
    """An optional dependency: skipped where it is not installed, required where CI installed it."""
    if os.environ.get("RULECRAFT_EXTRAS_REQUIRED"):
        return importlib.import_module(module)
    return pytest.importorskip(module)


needs("pettingzoo")
from pettingzoo.test import api_test  # noqa: E402
from rulecraft.env import RulecraftEnv  # noqa: E402

TIC_TAC_TOE = "examples/games/tic_tac_toe.rules"


@pytest.mark.parametrize(
    ("name", "players"),
    [
        ("guildhall", 2),
        ("renaissance_man", 1),
        ("valdora", 3),
        ("examples/tutorial.rules", None),
        (TIC_TAC_TOE, 2),
        ("examples/games/kuhn_poker.rules", 2),
    ],
)
def test_a_rulebook_passes_the_pettingzoo_api_test(name: str, players: int | None) -> None:
    """PettingZoo's own API test passes (a few cycles of random masked actions, twice).

    (examples/games/dominion_first_game.rules is not here: its bots are written into the rules, so
    it asks no player anything and is over at reset, which an environment may not be.)"""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # its advice on dict observations, which masked environments all get
        api_test(RulecraftEnv(name, players), num_cycles=5)


def _episode(env: RulecraftEnv, seed: int) -> list[tuple[str, list[float], int]]:
    """The agents, observations and actions of one game, always answering with the last legal option."""
    env.reset(seed=seed)
    out = []
    for agent in env.agent_iter():
        observation, _, terminated, truncated, _ = env.last()
        action = None if terminated or truncated else int(observation["action_mask"].nonzero()[0][-1])
        out.append((agent, observation["observation"].tolist(), -1 if action is None else action))
        env.step(action)
    return out


def test_a_seeded_reset_replays_the_game() -> None:
    """The same seed gives the same observations (Kuhn poker deals at random); another seed another deal."""
    env = RulecraftEnv("examples/games/kuhn_poker.rules", 2)
    assert _episode(env, 3) == _episode(env, 3)
    assert any(_episode(env, 3) != _episode(env, s) for s in range(4, 10))


def test_an_action_is_the_option_of_that_index_and_the_winner_is_rewarded() -> None:
    """In tic-tac-toe action i marks the i-th free cell that `info["labels"]` lists; x's top row earns
    x +1 and o -1, and both agents are then done."""
    env = RulecraftEnv(TIC_TAC_TOE, 2)
    env.reset(seed=0)
    assert env.agent_selection == "player_0"
    assert env.infos["player_0"]["labels"] == [str(c) for c in range(9)]
    for cell in ["0", "3", "1", "4", "2"]:
        env.step(env.infos[env.agent_selection]["labels"].index(cell))
    assert env.terminations == {"player_0": True, "player_1": True}
    assert env.rewards == {"player_0": 1.0, "player_1": -1.0}
    assert env.infos["player_0"]["view"]["vars"]["cell[2]"] == "1"


def test_a_cooperative_end_rewards_every_player_alike() -> None:
    """Players who win together (`end game together won`) are each rewarded +1 (not a share of it)."""
    env = RulecraftEnv("tests/games/coop.rules", 2)
    env.reset(seed=0)
    while not all(env.terminations.values()):
        env.step(env.infos[env.agent_selection]["labels"].index("Pass"))
    assert env.rewards == {"player_0": 1.0, "player_1": 1.0}


def test_the_observation_follows_the_game_and_the_mask_the_decision() -> None:
    """A mark changes what the other seat observes; the mask offers o its 8 free cells (the first 8
    actions) and x nothing while o decides."""
    env = RulecraftEnv(TIC_TAC_TOE, 2)
    env.reset(seed=0)
    start = env.observe("player_0")["observation"]
    env.step(0)
    assert (env.observe("player_1")["observation"] != start).any()
    mask = env.observe("player_1")["action_mask"]
    assert mask.sum() == 8 and mask[:8].all() and not mask[8:].any()
    assert not env.observe("player_0")["action_mask"].any()  # not x's turn
