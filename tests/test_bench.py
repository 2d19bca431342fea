"""The anchor games, the rulebook cache, `rulecraft bench` and the side-by-side comparison script."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import rulecraft
from rulecraft import rulebook as rulebook_mod
from rulecraft.cli import main

from tests.scripts import BENCHMARKS, load_script

from .conftest import run_script

ROOT = Path(__file__).resolve().parents[1]
GAMES = ROOT / "examples" / "games"


def test_tic_tac_toe_line_wins_and_full_board_draws() -> None:
    """x (P1) wins with a line of three; a full board without a line ends with no winner."""
    rb = rulecraft.load(GAMES / "tic_tac_toe.rules")
    game = run_script(rb.new_game(players=2), ["0", "3", "4", "5", "8"])
    assert game.over and game.result()["winners"] == ["P1"]
    # x o x / x o o / o x x: the ninth cell is the only option left and is taken at once.
    game = run_script(rb.new_game(players=2), ["0", "1", "2", "4", "3", "5", "7", "6"])
    assert game.over and game.result()["winners"] == []
    assert game.state.vars["cell[8]"] == 1


@pytest.mark.parametrize(
    ("deal", "bets", "winner", "won"),
    [
        (["2", "0"], ["Bet", "Pass"], "P1", 1),  # P2 folds: P1 wins P2's ante
        (["0", "2"], ["Pass", "Bet", "Pass"], "P2", 1),  # P1 folds after P2's bet
        (["0", "2"], ["Bet", "Bet"], "P2", 2),  # both bet: the higher card wins the bets
        (["1", "0"], ["Pass", "Pass"], "P1", 1),  # both pass: the higher card wins the antes
    ],
)
def test_kuhn_poker_showdown_and_folds(deal: list[str], bets: list[str], winner: str, won: int) -> None:
    """Kuhn poker pays as OpenSpiel's returns: the smaller contribution goes to the winner."""
    rb = rulecraft.load(GAMES / "kuhn_poker.rules")
    game = run_script(rb.new_game(players=2, seed=None), deal + bets)
    assert game.over
    assert game.result()["winners"] == [winner]
    assert game.result()["scores"][winner] == won


def test_dominion_big_money_game_ends_by_the_rules() -> None:
    """A seeded Big Money game ends when the Provinces are gone (or three piles); the most VP wins."""
    rb = rulecraft.load(GAMES / "dominion_first_game.rules")
    game = rb.new_game(players=2, seed=3)
    assert game.over
    zones = game.view(None)["zones"]
    empty = [k for k in zones if k.startswith("supply[") and not zones[k]]
    assert "supply[province]" in empty or len(empty) >= 3
    turns = [game.state.vars["turns[P1]"], game.state.vars["turns[P2]"]]
    assert turns[0] - turns[1] in (0, 1)
    scores = game.result()["scores"]
    best = max(scores.values())
    assert all(scores[w] == best for w in game.result()["winners"])
    # 250 cards in the supply of two players, 10 in each starting deck; at most one buy a turn.
    owned = sum(len(v) if isinstance(v, list) else v["count"] for k, v in zones.items() if "[P" in k)
    supply = sum(len(v) for k, v in zones.items() if k.startswith("supply["))
    assert owned + supply == 250 + 20
    assert 20 < owned <= 20 + turns[0] + turns[1]


def test_loading_the_same_text_again_comes_from_the_cache() -> None:
    """A rulebook loaded twice is parsed and checked once; a changed text is parsed again."""
    text = "game T players 1..1\nplay { }\n"
    first = rulecraft.load_text(text, "cached.rules")
    assert rulecraft.load_text(text, "cached.rules") is first
    assert rulecraft.load_text(text + "# changed\n", "cached.rules") is not first
    rulebook_mod.clear_cache()
    assert rulecraft.load_text(text, "cached.rules") is not first


def test_bench_prints_every_figure_as_json(capsys: pytest.CaptureFixture[str]) -> None:
    """`rulecraft bench --json` gives load times, games/s with and without trace, clone cost, the CPU
    time of an MCTS decision and memory."""
    path = str(GAMES / "kuhn_poker.rules")
    assert main(["bench", path, "--json", "--repeats", "1", "--games-per-run", "2", "--search", "1"]) == 0
    report = json.loads(capsys.readouterr().out)
    (game,) = report["games"]
    assert game["game"] == path and game["players"] == 2
    assert set(game) >= {"load", "play_trace", "play_no_trace", "clone", "memory"}
    assert set(game["load"]) == {"cold_s", "cached_s"}
    assert game["play_trace"]["decisions_per_game"] == game["play_no_trace"]["decisions_per_game"] > 0
    assert game["clone"]["clone_us"]["n"] == 1
    search = game["search"]
    assert search["positions"] == 1 and search["decision_s"]["n"] == 1 and search["decision_s"]["min"] > 0
    assert search["iterations"] > 1  # a search, not an answer taken at once
    assert set(game["memory"]["peak_kib"]) == {"trace", "no_trace"}
    assert report["all_loads"]["games"] == [path]
    assert set(report["all_loads"]) == {"games", "cold_s", "cached_s", "fresh_process_s"}


def test_bench_warms_up_untimed_before_the_trace_is_timed(monkeypatch: pytest.MonkeyPatch) -> None:
    """The first games of a rulebook compile the code they reach: `bench` plays a run of them untimed
    before it times the games with the trace, then without; its progress counts every game."""
    from rulecraft.tools import bench

    played: list[bool] = []
    real = bench.play_random

    def play_random(rb, players, seed, trace):  # type: ignore[no-untyped-def]
        played.append(trace)
        return real(rb, players, seed, trace)

    monkeypatch.setattr(bench, "play_random", play_random)
    units: list[int] = []
    bench.bench_game(str(GAMES / "kuhn_poker.rules"), games=2, repeats=1, advance=units.append)
    assert played[:6] == [True, True, True, True, False, False]  # warm-up, timed with trace, without
    assert sum(units) == bench.steps(2, 1)


def test_bench_times_a_search_at_positions_where_a_player_decides() -> None:
    """The positions of the search figure are spread over a seeded random game, each a decision of
    a player with a choice; the same search runs in every run (the agent is seeded by position),
    and `--search 0` leaves the figure out."""
    from rulecraft.tools import bench

    rb = rulecraft.load("guildhall")
    positions = bench.decision_positions(rb, 2, 3)
    answered = [len(p.answers) for p in positions]
    assert len(positions) == 3 and answered == sorted(set(answered))
    total = len(bench.play_random(rb, 2, 0, False).answers)
    assert answered[0] >= total // 4 and answered[-1] < total
    for p in positions:
        decision = p.current_decision()
        assert decision is not None and decision.player is not None and len(decision.options) > 1
    units: list[int] = []
    figures = bench.measure_search(rb, 2, repeats=2, decisions=1, advance=units.append)
    assert figures["positions"] == 1 and figures["decision_s"]["n"] == 2 and units == [1, 1]
    assert bench.measure_search(rb, 2, repeats=1, decisions=1)["iterations"] == figures["iterations"]
    assert bench.bench_game("guildhall", games=1, repeats=1)["search"] is None


def test_bench_says_so_where_no_player_decides(capsys: pytest.CaptureFixture[str]) -> None:
    """Dominion's first game is played by bots written in the rulebook: no position to search."""
    path = str(GAMES / "dominion_first_game.rules")
    assert main(["bench", path, "--repeats", "1", "--games-per-run", "1", "--search", "2", "-q"]) == 0
    assert "MCTS decision (CPU)     -  (no player decides in the game)" in capsys.readouterr().out


def _instructions_module() -> Any:
    return load_script(BENCHMARKS / "instructions.py", "instructions")


def test_the_instruction_count_takes_the_second_pass_over_the_games() -> None:
    """examples/benchmarks/instructions.py: the program callgrind counts plays the seeded games the
    given number of times (here without valgrind), with `--atomic` and greedy agents too, and a game's
    figure is the second pass alone."""
    import subprocess
    import sys

    counter = _instructions_module()
    cmd = counter.command(sys.executable, str(GAMES / "kuhn_poker.rules"), 2, 3, 2, False)
    assert cmd[:3] == ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null"]
    played = subprocess.run(cmd[3:], capture_output=True, text=True, check=False)
    assert played.returncode == 0, played.stderr
    atomic = counter.command(sys.executable, str(GAMES / "kuhn_poker.rules"), 2, 3, 1, False, True)
    assert atomic[-2:] == ["1", "random"]  # `--atomic`: the same games, every answer applied all or nothing
    played = subprocess.run(atomic[3:], capture_output=True, text=True, check=False)
    assert played.returncode == 0, played.stderr
    greedy = counter.command(sys.executable, str(GAMES / "kuhn_poker.rules"), 2, 2, 1, False, False, "greedy")
    assert greedy[-1] == "greedy"  # `--agent greedy`: the games of `simulate --agents greedy`
    played = subprocess.run(greedy[3:], capture_output=True, text=True, check=False)
    assert played.returncode == 0, played.stderr
    nobody = subprocess.run([*greedy[3:-1], "nobody"], capture_output=True, text=True, check=False)
    assert nobody.returncode != 0 and "nobody" in nobody.stderr  # the agent named is the one that plays
    # without --players, a game of the fewest players its rulebook allows (Valdora is played by 3 to 5)
    assert counter.fewest_players("valdora") == 3 and counter.fewest_players(str(GAMES / "kuhn_poker.rules")) == 2
    assert counter.collected("==1== Events    : Ir\n==1== Collected : 5347906123\n") == 5347906123
    assert counter.per_game(5_000, 8_000, 3) == 1_000
    with pytest.raises(RuntimeError, match="no count"):
        counter.collected("valgrind: not found")


def _compare_module() -> Any:
    return load_script(BENCHMARKS / "compare.py", "compare")


def test_comparison_script_plays_the_rulecraft_side_and_compares_statistics() -> None:
    """The comparison script's rulecraft side plays an anchor; equal statistics agree, distant ones do not."""
    compare = _compare_module()
    outcomes = [compare.make_runner("kuhn_poker", "rulecraft")(seed) for seed in range(20)]
    assert all(w in (0, 1) and length in (2, 3) and r in (-2.0, -1.0, 1.0, 2.0) for w, length, r in outcomes)
    stats = compare.outcome_stats(outcomes)
    assert all(c["agrees"] for c in compare.agree(stats, stats).values())
    half = compare.outcome_stats([(0, 5, None)] * 50 + [(1, 5, None)] * 50)
    never = compare.outcome_stats([(1, 5, None)] * 99 + [(0, 5, None)])
    assert not compare.agree(half, never)["first_player_win_rate"]["agrees"]


def test_user_cache_is_private_and_can_be_turned_off(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Cached files are written whole in a private folder; a folder others may write is not used."""
    from rulecraft import cache

    monkeypatch.setenv("RULECRAFT_CACHE_DIR", str(tmp_path / "c"))
    path = cache.file("x.bin")
    assert path is not None
    cache.store("x.bin", b"data")
    assert path.read_bytes().endswith(b"data") and cache.readable(path) and cache.load("x.bin") == b"data"
    assert list(path.parent.iterdir()) == [path]  # no temporary file left behind
    path.chmod(0o666)
    assert not cache.readable(path) and cache.load("x.bin") is None
    (tmp_path / "c").chmod(0o777)
    assert cache.directory() is None
    monkeypatch.setenv("RULECRAFT_CACHE_DIR", "off")
    assert cache.file("x.bin") is None


def test_the_anchors_counted_in_instructions_play_each_side_the_given_times() -> None:
    """examples/benchmarks/compare_instructions.py: the program callgrind counts plays the anchor's seeded
    games on one side the given number of times (here without valgrind: the rulecraft side, which needs
    no reference engine installed)."""
    import subprocess

    module = load_script(BENCHMARKS / "compare_instructions.py", "compare_instructions")
    cmd = module.command("kuhn_poker", "rulecraft", 3, 2)
    assert cmd[:3] == ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null"]
    played = subprocess.run(
        [*cmd[3:5], cmd[5] + "\nprint(played)", *cmd[6:]], capture_output=True, text=True, check=False
    )
    assert played.returncode == 0, played.stderr
    winners = json.loads(played.stdout.replace("None", "null"))  # the winner of each game played, pass by pass
    assert len(winners) == 6 and winners[:3] == winners[3:] and set(winners) <= {0, 1, None}
    assert set(module.GAMES) == set(module.ANCHORS)
