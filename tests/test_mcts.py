"""MCTS plays through the rules alone: it sees a win and a threat, decides from what its seat may
know, and a game of seeded MCTS agents replays exactly."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import rulecraft
from rulecraft.agents import make_agent, play
from rulecraft.cli import main
from rulecraft.mcts import DECISIONS, DECISIONS_SECRET, MctsAgent

from tests.conftest import run_script
from tests.test_agents import GUESS

TIC_TAC_TOE = "examples/games/tic_tac_toe.rules"


def _answer(moves: list[str], seed: int) -> str:
    game = rulecraft.load(TIC_TAC_TOE).new_game(players=2, seed=0)
    run_script(game, moves)
    decision = game.current_decision()
    assert decision is not None
    return MctsAgent(seed).choose(game, decision)


@pytest.mark.parametrize("seed", range(4))
def test_mcts_takes_an_immediate_win(seed: int) -> None:
    """x on 0 and 1, o on 3 and 4: x completes the top row on 2 (rather than block o's row on 5)."""
    assert _answer(["0", "3", "1", "4"], seed) == "2"


@pytest.mark.parametrize("seed", range(4))
def test_mcts_blocks_an_immediate_loss(seed: int) -> None:
    """x on 0 and 8, o on 4 and 1: o threatens the middle column, so x plays 7."""
    assert _answer(["0", "4", "8", "1"], seed) == "7"


def test_mcts_never_loses_tic_tac_toe_to_random_in_a_few_games() -> None:
    """Seats alternated over 4 seeded games: MCTS wins or draws every one."""
    rb = rulecraft.load(TIC_TAC_TOE)
    for seed in range(4):
        mcts_seat = seed % 2
        game = rb.new_game(players=2, seed=seed, trace=False)
        agents = [make_agent("mcts" if i == mcts_seat else "random", seed * 10 + i) for i in range(2)]
        play(game, agents)
        assert game.state.winners in ([], [mcts_seat]), f"seed {seed}: MCTS in seat {mcts_seat} lost"


def test_a_finished_line_is_proved_and_the_search_stops() -> None:
    """Two cells left: every answer's result is proved within a few iterations (MCTS-Solver), so
    the search stops long before its budget, with x taking the cell that completes its row."""
    game = rulecraft.load(TIC_TAC_TOE).new_game(players=2, seed=0)
    run_script(game, ["0", "4", "8", "2", "6", "3", "5"])  # x: 0 8 6 5; o: 4 2 3; left: 1 and 7
    decision = game.current_decision()
    assert decision is not None
    agent = MctsAgent(1)
    assert agent.choose(game, decision) == "7"
    assert agent.last_iterations <= 4


COIN = """game Coin players 2..2
play {
  choose by players[0] prompt "Play it safe, or roll?" {
    option "safe" { end game winners [] }
    option "roll" {
      let side = choose one from [1, 2, 3] by table prompt "The die"
      if side == 1 { end game winners [players[0]] } else { end game winners [players[1]] }
    }
  }
}
"""


@pytest.mark.parametrize("seed", range(8))
def test_a_win_a_die_gave_once_is_not_proved(seed: int) -> None:
    """Only a position every world shares is proved: a roll that won once is a 1-in-3 chance, so
    P1 takes the sure draw (1/2) over it."""
    game = rulecraft.load_text(COIN, "coin.rules").new_game(players=2, seed=seed)
    decision = game.current_decision()
    assert decision is not None
    assert MctsAgent(seed).choose(game, decision) == "safe"


STUCK = """game Stuck players 2..2
play {
  choose by players[0] prompt "Which way?" {
    option "left" { let step = choose one from [1, 2] where it > 2 by players[0] prompt "Step" }
    option "right" { let step = choose one from [1, 2] where it > 2 by players[0] prompt "Step" }
  }
  end game winners []
}
"""


def test_a_search_whose_worlds_all_fail_stops_at_its_budget() -> None:
    """Each way leads to a choice from nothing: every iteration fails before it takes a decision,
    and the search stops after as many failures as its budget has decisions."""
    game = rulecraft.load_text(STUCK, "stuck.rules").new_game(players=2, seed=0)
    decision = game.current_decision()
    assert decision is not None
    agent = MctsAgent(0, decisions=50)
    assert agent.choose(game, decision) in ("left", "right")
    assert agent.last_iterations == 50


def test_a_guess_of_a_hidden_card_is_a_guess() -> None:
    """P2 guessing the colour of P1's face-down chip searches worlds its seat could be in: right about
    half the time, where a peeking search would be right every time."""
    rb = rulecraft.load_text(GUESS, "guess.rules")
    hits = 0
    for seed in range(40):
        game = rb.new_game(players=2, seed=seed)
        decision = game.current_decision()
        assert decision is not None
        (truth,) = game.view(None)["zones"]["hand[P1]"]
        hits += MctsAgent(seed, iterations=8).choose(game, decision) == truth
    assert 8 <= hits <= 32


# Five rounds of a race for points, judged by the points (the rulebooks below add a round's choices).
RACE = """var points[Player]: int = 0 public
var round: int = 0 public
fn heuristic(p: Player) = points[p]
play {
  while round < 5 {
    set round += 1
"""
DETOUR = (
    "game Detour players 2..3\n"
    + RACE
    + """    for p in players {
      choose by p prompt "Which way?" {
        option "short" { set points[p] += 1 }
        option "long" {
          let steps = 0
          while steps < 5 {
            choose by p prompt "Step" {
              option "left" { }
              option "right" { }
            }
            steps += 1
          }
          set points[p] += 3
        }
      }
    }
  }
  end game winners []
}
"""
)


def _first_answers(rb: rulecraft.Rulebook, players: int, options: dict) -> list[str]:  # type: ignore[type-arg]
    """MCTS's answer to the first decision of games of seeds 0, 1 and 2."""
    answers = []
    for seed in range(3):
        game = rb.new_game(players=players, seed=seed)
        decision = game.current_decision()
        assert decision is not None
        answers.append(MctsAgent(seed, **options).choose(game, decision))
    return answers


@pytest.mark.parametrize(
    ("players", "options", "way"),
    [(3, {}, "long"), (3, {"cut": "decisions"}, "short"), (2, {}, "short"), (2, {"cut": "turn"}, "long")],
)
def test_with_three_players_a_turn_is_judged_when_it_is_over(players: int, options: dict, way: str) -> None:  # type: ignore[type-arg]
    """The long way's 3 points come after five steps of the player's own turn. With three players a
    position is judged when the searcher's turn is over, so MCTS takes the long way; with two (or
    `cut=decisions`) it is judged after 4 decisions, in the middle of the steps, and the short
    way's 1 point looks better."""
    assert _first_answers(rulecraft.load_text(DETOUR, "detour.rules"), players, options) == [way] * 3


# P1 takes the short way (a point at once) or the long one (3 points after two more steps of its
# own); P2 only waits. Judged 4 decisions on, the long way's points are in; judged 2 on, not yet.
LONG_WAY = (
    "game LongWay players 2..2\n"
    + RACE
    + """    SECRET{
      choose by players[0] prompt "Which way?" {
        option "short" { set points[players[0]] += 1 }
        option "long" {
          for step in 1..2 {
            choose by players[0] prompt "Step" {
              option "left" { }
              option "right" { }
            }
          }
          set points[players[0]] += 3
        }
      }
    }
    SECRET{
      choose by players[1] prompt "Wait" {
        option "a" { }
        option "b" { }
      }
    }
  }
  end game winners []
}
"""
)


@pytest.mark.parametrize(
    ("secret", "options", "way"), [(False, {}, "long"), (True, {}, "short"), (True, {"depth": 4}, "long")]
)
def test_two_players_choosing_in_secret_are_judged_two_decisions_on(secret: bool, options: dict, way: str) -> None:  # type: ignore[type-arg]
    """Where the players choose in `secret` blocks, a two-player search judges a position 2
    decisions on (further on lies mostly the other player's secret choice, which cannot answer the
    searcher's): the long way's points are not in yet, and MCTS takes the short way. The same game
    without `secret`, or with `depth=4`, is judged 4 decisions on, and the long way wins."""
    text = LONG_WAY.replace("SECRET", "secret " if secret else "together ")  # a block alike, not secret
    assert _first_answers(rulecraft.load_text(text, "long_way.rules"), 2, options) == [way] * 3


def test_two_players_choosing_in_secret_get_the_larger_budget() -> None:
    """Where two players choose in `secret` blocks the default budget is DECISIONS_SECRET decisions,
    elsewhere DECISIONS: the same search (depth 2 in both) runs more iterations in the secret game."""
    iterations = {}
    for secret in (True, False):
        text = LONG_WAY.replace("SECRET", "secret " if secret else "together ")
        game = rulecraft.load_text(text, "long_way.rules").new_game(players=2, seed=0)
        decision = game.current_decision()
        assert decision is not None
        agent = MctsAgent(0, depth=2)
        agent.choose(game, decision)
        iterations[secret] = agent.last_iterations
    assert DECISIONS_SECRET > 2 * DECISIONS and iterations[True] > 2 * iterations[False]


SPITE = """game Spite players 3..3
var points[Player]: int = 0 public
fn heuristic(p: Player) = points[p]
setup { set points[players[1]] = 10 }
play {
  choose by players[0] prompt "Grow or spite?" {
    option "grow" { set points[players[0]] += 2 }
    option "spite" { set points[players[1]] -= 3 }
  }
  for p in players + players {
    choose by p prompt "Wait" {
      option "a" { }
      option "b" { }
    }
  }
  end game winners []
}
"""


@pytest.mark.parametrize(("options", "answer"), [({}, "grow"), ({"judge": "lead"}, "spite")])
def test_with_three_players_each_is_judged_by_its_own_gain(options: dict, answer: str) -> None:  # type: ignore[type-arg]
    """P2 leads with 10 points. With three players P1 judges a position by its own gain and takes 2
    points for itself; judged by its lead over the best other (`judge=lead`), taking 3 from P2 is worth more."""
    game = rulecraft.load_text(SPITE, "spite.rules").new_game(players=3, seed=0)
    decision = game.current_decision()
    assert decision is not None
    assert MctsAgent(0, **options).choose(game, decision) == answer


@pytest.mark.parametrize("rulebook", ["guildhall", "renaissance_man"])
def test_the_same_seed_gives_the_same_moves(rulebook: str) -> None:
    """Two games of seeded MCTS agents (a small budget) take the same answers; another agent seed
    does not."""
    rb = rulecraft.load(rulebook)

    def answers(agent_seed: int) -> list[tuple[str, str]]:
        game = rb.new_game(players=2, seed=5, trace=False)
        agents = [make_agent("mcts:decisions=40", agent_seed + i) for i in range(2)]
        for _ in range(8):
            decision = game.current_decision()
            assert decision is not None and decision.player is not None
            game.apply(agents[decision.player.index].choose(game, decision))
        return game.answers

    assert answers(1) == answers(1)
    assert answers(1) != answers(2)


def test_a_game_of_mcts_agents_replays_from_its_record(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    """`play --agents mcts,greedy --record` writes a record that `replay` verifies, and playing it
    again with the same seed writes the same answers."""
    argv = ["play", TIC_TAC_TOE, "--seed", "4", "--agents", "mcts,greedy", "--agent-option", "mcts.iterations=30"]
    assert main([*argv, "--record", str(tmp_path / "a.json")]) == 0
    assert main([*argv, "--record", str(tmp_path / "b.json")]) == 0
    a, b = (json.loads((tmp_path / f"{n}.json").read_text()) for n in "ab")
    assert a["answers"] == b["answers"] and len(a["answers"]) >= 5
    assert a["options"]["agents"] == ["mcts:iterations=30", "greedy"]
    played = capsys.readouterr().out.splitlines()[-1]
    assert main(["replay", str(tmp_path / "a.json")]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == played


def test_simulate_seats_mcts_with_its_options(capsys) -> None:  # type: ignore[no-untyped-def]
    """`simulate --agents mcts,random --agent-option mcts.iterations=20` reports the agent by its spelling."""
    argv = ["simulate", TIC_TAC_TOE, "-n", "2", "--agents", "mcts,random", "--agent-option", "mcts.iterations=20"]
    assert main([*argv, "--quiet"]) == 0
    assert "mcts:iterations=20 " in capsys.readouterr().out


def test_soak_checks_games_of_mcts_agents(capsys) -> None:  # type: ignore[no-untyped-def]
    """`soak --agents mcts` plays its seeded games with MCTS seats and checks them as it checks random ones."""
    argv = ["soak", TIC_TAC_TOE, "--games", "2", "--agents", "mcts", "--agent-option", "mcts.iterations=10"]
    assert main([*argv, "--quiet"]) == 0
    assert "2 games (2 finished, 0 unfinished)" in capsys.readouterr().out
    assert main(["soak", TIC_TAC_TOE, "--games", "1", "--agents", "human", "--quiet"]) == 2


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--agents", "mcts", "--agent-option", "mcts.depth=deep"], "option depth must be a whole number, not 'deep'"),
        (["--agents", "mcts", "--agent-option", "mcts.width=3"], "unknown option 'width=3'"),
        (["--agents", "greedy", "--agent-option", "mcts.iterations=3"], "no seat is played by mcts"),
        (["--agents", "mcts:playout=smart"], "mcts.playout must be one of random, greedy, not 'smart'"),
        (["--agents", "mcts:cut=round"], "mcts.cut must be one of decisions, turn, not 'round'"),
        (["--agents", "mcts:judge=score"], "mcts.judge must be one of lead, gain, not 'score'"),
        (["--agents", "mcts", "--agent-option", "iterations"], "is not AGENT.OPTION=VALUE"),
    ],
)
def test_a_bad_agent_option_is_a_usage_error(argv: list[str], message: str, capsys) -> None:  # type: ignore[no-untyped-def]
    """A bad option of an agent stops `play` before the game starts, with exit 2 and what is wrong."""
    assert main(["play", TIC_TAC_TOE, "--seed", "1", *argv]) == 2
    assert message in capsys.readouterr().err


def test_the_agents_benchmark_sums_the_recorded_guildhall_games(tmp_path: Path) -> None:
    """`examples/benchmarks/agents.py --summary` reads the games kept in examples/benchmarks/agents-runs.jsonl and counts
    the first agent's wins as the games say them (the figures docs/AGENTS.md quotes)."""
    root = Path(__file__).resolve().parent.parent
    rows = [
        line
        for line in (root / "examples" / "benchmarks" / "agents-runs.jsonl").read_text().splitlines()
        if '"guildhall"' in line
    ]
    played = [json.loads(row) for row in rows]
    won = sum(1 for g in played if g["winners"] == [g["seats"].index("mcts")])
    games = tmp_path / "guildhall.jsonl"
    games.write_text("\n".join(rows) + "\n")
    done = subprocess.run(
        [sys.executable, str(root / "examples" / "benchmarks" / "agents.py"), "--summary", str(games)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert all(g["seats"][0] == "mcts" or g["seats"][1] == "mcts" for g in played)
    assert f"{len(rows)} games: win {won} (" in done.stdout
