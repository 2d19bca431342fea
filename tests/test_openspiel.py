"""`rulecraft.openspiel`: any rulebook as an OpenSpiel game, checked by OpenSpiel's own code (its
API test, CFR, exploitability, minimax, MCTS). Without the `[openspiel]` extra the module is
skipped, except in CI (`RULECRAFT_EXTRAS_REQUIRED`), which installs it and must run it."""

from __future__ import annotations

import importlib
import os
import pickle
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest


def needs(module: str) -> ModuleType:
    """An optional dependency: skipped where it is not installed, required where CI installed it."""
    if os.environ.get("RULECRAFT_EXTRAS_REQUIRED"):
        return importlib.import_module(module)
    return pytest.importorskip(module)


pyspiel = needs("pyspiel")
import numpy as np  # noqa: E402
from open_spiel.python.algorithms import cfr, expected_game_score, exploitability, mcts, minimax  # noqa: E402
from open_spiel.python.algorithms.get_all_states import get_all_states  # noqa: E402
from open_spiel.python.games import kuhn_poker as _registers_python_kuhn_poker  # noqa: E402, F401
from rulecraft.errors import GameError  # noqa: E402
from rulecraft.openspiel import information_of  # noqa: E402
from rulecraft.rulebook import load  # noqa: E402

KUHN = "examples/games/kuhn_poker.rules"
TIC_TAC_TOE = "examples/games/tic_tac_toe.rules"


def rulecraft_game(rulebook: str, **params: object) -> pyspiel.Game:
    return pyspiel.load_game("rulecraft", {"rulebook": rulebook, **params})


@pytest.mark.parametrize(
    ("rulebook", "players", "sims"),
    [
        ("guildhall", 2, 1),
        ("renaissance_man", 1, 1),
        ("valdora", 3, 1),
        ("examples/tutorial.rules", 2, 3),
        (KUHN, 2, 10),
        (TIC_TAC_TOE, 2, 10),
        ("examples/games/dominion_first_game.rules", 2, 1),
        ("examples/games/peek.rules", None, 5),
    ],
)
def test_every_rulebook_passes_openspiels_api_test(rulebook: str, players: int | None, sims: int) -> None:
    """OpenSpiel's own random-simulation test of a game's API (the one its Python games run)
    passes: legal actions, chance outcomes summing to 1, clones, returns, information state and
    observation strings and tensors at every state, and serialisation."""
    game = rulecraft_game(rulebook, **({"players": players} if players else {}))
    pyspiel.random_sim_test(game, num_sims=sims, serialize=rulebook in (KUHN, TIC_TAC_TOE), verbose=False)


def test_kuhn_poker_solved_by_openspiels_cfr() -> None:
    """OpenSpiel's CFR+ (open_spiel.python.algorithms.cfr) on the rulebook's Kuhn poker reaches a
    NashConv below 0.01 and the game's value, -1/18 for the first player, as on OpenSpiel's own
    `kuhn_poker`; the rulebook's game has OpenSpiel's number of information states."""
    game = rulecraft_game(KUHN, returns="score")
    solver = cfr.CFRPlusSolver(game)
    for _ in range(150):
        solver.evaluate_and_update_policy()
    policy = solver.average_policy()
    assert exploitability.nash_conv(game, policy) < 0.01
    value = expected_game_score.policy_value(game.new_initial_state(), [policy, policy])
    assert abs(value[0] - (-1 / 18)) < 0.005
    assert abs(value[1] - 1 / 18) < 0.005

    def information_states(g: pyspiel.Game) -> int:
        states = get_all_states(g, include_terminals=False, include_chance_states=False)
        return len({(s.current_player(), s.information_state_string()) for s in states.values()})

    assert information_states(game) == information_states(pyspiel.load_game("python_kuhn_poker")) == 12


def test_kuhn_poker_information_states_hide_the_others_card() -> None:
    """A player's information state and observation name their own card and never the other's."""
    game = rulecraft_game(KUHN, returns="score")
    state = game.new_initial_state()
    state.apply_action(0)  # P1 is dealt the first card of the deck's options, "0"
    state.apply_action(1)  # P2 the second of those left, "2"
    assert state.current_player() == 0
    assert '"hand[me]": ["0"]' in state.information_state_string(0)
    assert '"hand[me]": ["2"]' in state.information_state_string(1)
    assert '"2"' not in state.information_state_string(0)
    assert '"0"' not in state.observation_string(1)


def test_chance_outcomes_weigh_cards_by_their_share_of_labels() -> None:
    """A draw from a deck of three distinct cards has three outcomes of 1/3; the last card left is
    a chance node of one outcome, probability 1 (every decision is a node, as OpenSpiel counts)."""
    state = rulecraft_game(KUHN).new_initial_state()
    assert state.is_chance_node()
    assert state.chance_outcomes() == [(i, pytest.approx(1 / 3)) for i in range(3)]
    state.apply_action(2)
    assert [p for _, p in state.chance_outcomes()] == [pytest.approx(0.5)] * 2


def test_tic_tac_toe_has_openspiels_states_and_is_a_draw() -> None:
    """`get_all_states` finds OpenSpiel's 5,478 positions of tic-tac-toe (with `str`, as OpenSpiel's
    own test counts them), and OpenSpiel's alpha-beta search finds the game a draw."""
    game = rulecraft_game(TIC_TAC_TOE)
    assert game.get_type().information == pyspiel.GameType.Information.PERFECT_INFORMATION
    assert game.get_type().chance_mode == pyspiel.GameType.ChanceMode.DETERMINISTIC
    assert len(get_all_states(game, to_string=str)) == 5478
    value, _ = minimax.alpha_beta_search(game)
    assert value == 0.0


@pytest.mark.parametrize(("rulebook", "players"), [("guildhall", 2), ("renaissance_man", 1), ("valdora", 3)])
def test_openspiels_mcts_bot_plays_a_bundled_game_to_its_end(rulebook: str, players: int) -> None:
    """OpenSpiel's MCTS bot, with its random rollout evaluator, plays the first seat of a bundled
    game to its end through the adapter, OpenSpiel's uniform random bot the others, chance sampled
    by its outcomes' probabilities. (Every seat by MCTS, with more simulations:
    examples/benchmarks/openspiel_mcts.py.)"""
    game = rulecraft_game(rulebook, players=players)
    rng = np.random.RandomState(0)
    bots = [mcts.MCTSBot(game, 2.0, 2, mcts.RandomRolloutEvaluator(1, rng), random_state=rng)]
    bots += [pyspiel.make_uniform_random_bot(seat, 1) for seat in range(1, players)]
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probabilities = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rng.choice(outcomes, p=probabilities)))
        else:
            state.apply_action(bots[state.current_player()].step(state))
    returns = state.returns()
    winners = state.play.game.result()["winners"]
    if players == 1:
        assert returns == ([1.0] if winners else [-1.0])
    else:
        assert sum(returns) == pytest.approx(0.0)
        assert all(returns[int(w[1:]) - 1] > 0 for w in winners) or returns == [0.0] * players


def test_returns_by_winners_and_by_score() -> None:
    """`returns="win"`: the winner +1, the loser -1, a draw 0; `returns="score"`: the rulebook's scores."""
    state = rulecraft_game(TIC_TAC_TOE).new_initial_state()
    for cell in (0, 3, 0, 2, 0):  # x 0, o 4 (index 3 of 1..8), x 1, o 5, x 2: a line for x
        state.apply_action(cell)
    assert state.is_terminal()
    assert state.returns() == [1.0, -1.0]
    kuhn = rulecraft_game(KUHN, returns="score").new_initial_state()
    for action in (0, 1, 1, 0):  # deal "0", then "2" (the second of "1", "2"); P1 bets, P2 passes: P1 wins 1
        kuhn.apply_action(action)
    assert kuhn.is_terminal()
    assert kuhn.returns() == [1.0, -1.0]


def test_a_cooperative_end_gives_every_player_the_same_return() -> None:
    """Players who win together (`end game together won`) each get +1; such a rulebook is general-sum."""
    game = rulecraft_game("tests/games/coop.rules", players=2)
    assert game.get_type().utility == pyspiel.GameType.Utility.GENERAL_SUM
    state = game.new_initial_state()
    while not state.is_terminal():
        state.apply_action(1)  # "Pass" (after "Draw"), every turn: nothing is drawn, the team wins
    assert state.returns() == [1.0, 1.0]


def test_a_state_pickles_and_clones_as_its_history() -> None:
    """A pickled state is read back at the same position; a clone goes on alone."""
    state = rulecraft_game(TIC_TAC_TOE).new_initial_state()
    for action in (4, 2, 3):
        state.apply_action(action)
    again = pickle.loads(pickle.dumps(state))
    assert str(again) == str(state)
    assert again.history() == state.history()
    twin = state.clone()
    twin.apply_action(0)
    assert str(twin) != str(state)
    assert len(state.legal_actions()) == 6


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({}, "name the rulebook"),
        ({"rulebook": KUHN, "chance": "dice"}, "chance is 'explicit' or 'sampled'"),
        ({"rulebook": KUHN, "returns": "money"}, "returns is 'win' or 'score'"),
        ({"rulebook": KUHN, "players": 3}, "played by 2 to 2 players, not 3"),
    ],
)
def test_bad_parameters_say_what_is_wrong(params: dict[str, object], message: str) -> None:
    with pytest.raises(GameError, match=message):
        pyspiel.load_game("rulecraft", params)


def test_a_decision_beyond_the_action_space_says_how_to_load_the_game() -> None:
    """Tic-tac-toe's first decision has 9 options: an action space of 4 cannot answer it."""
    state = rulecraft_game(TIC_TAC_TOE, max_actions=4).new_initial_state()
    with pytest.raises(GameError, match="load it with max_actions=9 or more"):
        state.legal_actions()


def test_sampled_chance_lets_the_seed_deal() -> None:
    """With `chance="sampled"` the game has no chance node: the seed deals, as in `rulecraft play`."""
    game = rulecraft_game(KUHN, chance="sampled", seed=3)
    assert game.get_type().chance_mode == pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC
    state = game.new_initial_state()
    assert not state.is_chance_node()
    assert state.current_player() == 0


def test_what_a_rulebook_lets_players_see_and_leaves_to_chance() -> None:
    assert information_of(load(TIC_TAC_TOE).program) == (True, True)
    assert information_of(load(KUHN).program) == (False, False)
    assert information_of(load("guildhall").program) == (False, False)


def test_the_mcts_command_plays_every_seat() -> None:
    """examples/benchmarks/openspiel_mcts.py: MCTS at every seat, each game's returns and decisions."""
    script = Path(__file__).resolve().parent.parent / "examples" / "benchmarks" / "openspiel_mcts.py"
    run = subprocess.run(
        [sys.executable, str(script), "examples/tutorial.rules", "--simulations", "2", "--games", "2"],
        capture_output=True,
        text=True,
        check=True,
        cwd=script.parent.parent.parent,
    )
    lines = run.stdout.splitlines()
    assert [line.split(":")[0] for line in lines] == ["game 0", "game 1"]
    assert all(" decisions, " in line and "returns [" in line for line in lines)
