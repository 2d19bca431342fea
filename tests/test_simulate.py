"""`rulecraft simulate`: many seeded games, statistics that do not depend on the number of workers."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from rulecraft.cli import main
from rulecraft.tools.simulate import game_seeds, report, seat_agents, simulate, wilson

TUTORIAL = str(Path(__file__).resolve().parent.parent / "examples" / "tutorial.rules")


def test_results_do_not_depend_on_the_number_of_workers() -> None:
    """Two worker processes give the same report as one: seeds come from the master seed, not the worker."""
    one = simulate(TUTORIAL, 6, agents=["greedy", "random"], seed=4, workers=1, progress=lambda done: None)
    two = simulate(TUTORIAL, 6, agents=["greedy", "random"], seed=4, workers=2, progress=lambda done: None)
    assert report(one) == report(two)
    assert [r.seed for r in one.results] == game_seeds(4, 6)


def test_statistics_add_up() -> None:
    """Seat win rates sum to one; each agent kind sits in half the seats; every game has a length."""
    stats = simulate(TUTORIAL, 4, players=2, agents=["greedy", "random"], progress=lambda done: None)
    assert sum(stats.win_rate_by_seat().values()) == pytest.approx(1.0)
    assert {name: seats for name, (_, seats) in stats.win_rate_by_agent().items()} == {"greedy": 4, "random": 4}
    mean, spread, low, high = stats.lengths()
    assert 0 < low <= mean <= high and spread >= 0
    assert all(moved > 0 for _, _, moved in stats.card_use())


def test_seats_rotate_between_games_when_agents_differ() -> None:
    """Game i gives seat s the agent (s + i) mod the number of agent kinds."""
    assert [seat_agents(["greedy", "random"], 3, i) for i in range(2)] == [
        ("greedy", "random", "greedy"),
        ("random", "greedy", "random"),
    ]


def test_seeds_differ_and_are_stable() -> None:
    """The master seed gives a fixed list of distinct game seeds."""
    seeds = game_seeds(0, 50)
    assert len(set(seeds)) == 50 and seeds[:3] == game_seeds(0, 3)


def test_a_win_rate_comes_with_its_wilson_interval() -> None:
    """The 95 % Wilson interval: 8 wins in 10 games is 49.0 % to 94.3 %; it stays within 0 and 1."""
    low, high = wilson(0.8, 10)
    assert (round(low, 3), round(high, 3)) == (0.49, 0.943)
    assert wilson(0.0, 5)[0] == 0.0 and wilson(1.0, 5)[1] == 1.0
    assert wilson(0.5, 1000)[1] - wilson(0.5, 1000)[0] < wilson(0.5, 10)[1] - wilson(0.5, 10)[0]


def test_command_line_report(capsys: pytest.CaptureFixture[str]) -> None:
    """The command prints the report on stdout and the timing on stderr."""
    assert main(["simulate", TUTORIAL, "-n", "3", "--top", "2"]) == 0
    out, err = capsys.readouterr()
    assert out.splitlines()[0] == "tutorial: 3 games, 2 players, agents random, master seed 0"
    assert "card use, by label (the 2 most used of 15):" in out
    assert re.search(r"^  P1 +\d+\.\d% +\[ *\d+\.\d% \.\. *\d+\.\d%\]$", out, re.M)
    assert "simulate: 3 games in " in err


def test_command_line_json(capsys: pytest.CaptureFixture[str]) -> None:
    """`--json` prints the statistics as JSON: each rate with the bounds of its interval."""
    assert main(["simulate", TUTORIAL, "-n", "4", "--top", "1", "--json", "--quiet"]) == 0
    out, err = capsys.readouterr()
    data = json.loads(out)
    assert data["games"] == 4 and set(data["win_rate_by_seat"]) == {"P1", "P2"}
    assert all(r["low"] <= r["rate"] <= r["high"] for r in data["win_rate_by_seat"].values())
    assert sum(r["rate"] for r in data["win_rate_by_seat"].values()) == pytest.approx(1.0)
    assert len(data["card_use"]) == 1 and data["cards_used"] == 15
    assert err == ""


def test_abilities_are_counted_when_offered_and_when_chosen() -> None:
    """Each `use` offers its ability and the tiers the rules allow; a tier chosen counts for the ability too."""
    stats = simulate(TUTORIAL, 6, agents=["greedy", "random"], seed=2)
    rows = {key: (offered, chosen, n) for key, offered, chosen, _, n in stats.ability_use()}
    assert list(rows) == ["sell", *(key for key in rows if key.startswith("sell tier "))]
    offered, chosen, _ = rows["sell"]
    assert 0 < chosen <= offered
    assert chosen == sum(c for key, (_, c, _) in rows.items() if key != "sell")
    assert all(rows[key][0] <= offered for key in rows)  # a tier is offered only when its ability is
    assert all(n <= 2 * 6 for _, _, n in rows.values())  # a chooser is a seat of a game


def test_score_over_the_game_runs_from_the_start_to_the_end() -> None:
    """The score is read at eleven points: the first is the opening score, the last the final one."""
    stats = simulate(TUTORIAL, 5, seed=1)
    assert all(len(r.scores) == 11 for r in stats.results)
    curves = stats.score_curve()
    assert [c[0][0] for c in curves] == [0.0, 0.0]  # no one has sold anything yet
    finals = [sum(r.scores[-1][seat] for r in stats.results) / 5 for seat in range(2)]
    assert [c[-1][0] for c in curves] == pytest.approx(finals)
    assert all(low <= mean <= high for c in curves for mean, low, high in c)


def test_json_to_a_file_keeps_the_report_on_stdout(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`--json FILE` writes the figures, each with its 95 % interval, and the report still prints."""
    out_file = tmp_path / "run.json"
    assert main(["simulate", TUTORIAL, "-n", "4", "--json", str(out_file), "--quiet"]) == 0
    assert capsys.readouterr().out.startswith("tutorial: 4 games")
    data = json.loads(out_file.read_text(encoding="utf-8"))
    assert data["length"]["mean_low"] <= data["length"]["mean"] <= data["length"]["mean_high"]
    assert sum(data["length_counts"].values()) == 4
    use = data["ability_use"][0]
    assert use["ability"] == "sell" and use["choosers_won"]["low"] <= use["choosers_won"]["rate"]
    assert set(data["score_over_game"]) == {"P1", "P2"} and len(data["score_over_game"]["P1"]) == 11
    assert main(["simulate", TUTORIAL, "-n", "1", "--json", "-", "--quiet"]) == 0
    assert json.loads(capsys.readouterr().out)["games"] == 1


def test_the_collector_is_frozen_only_while_the_command_runs(tmp_path: Path) -> None:
    """`rulecraft simulate` leaves the rulebook out of the collector's full walks while it runs, and
    collects the youngest generation less often (`collector_frozen`), and gives the collector back as
    it was after; a program calling `simulate` changes neither (each rulebook a new file, loaded
    afresh by the games)."""
    import gc

    from rulecraft.tools import simulate as simulation

    frozen: list[int] = []
    young: list[int] = []
    simulate_one = simulation.play_one

    def play_one(task: Any) -> Any:
        result = simulate_one(task)
        frozen.append(gc.get_freeze_count())
        young.append(gc.get_threshold()[0])
        return result

    text = Path(TUTORIAL).read_text(encoding="utf-8")
    before, thresholds = gc.get_freeze_count(), gc.get_threshold()
    library, command = tmp_path / "library.rules", tmp_path / "command.rules"
    library.write_text(text, encoding="utf-8")
    command.write_text(text, encoding="utf-8")
    simulation.play_one = play_one  # (the games run in this process: one worker)
    try:
        simulate(str(library), 2)
        assert frozen and set(frozen) == {before}  # a library call freezes nothing
        assert set(young) == {thresholds[0]}  # nor changes when the collector runs
        frozen.clear()
        young.clear()
        assert main(["simulate", str(command), "-n", "2", "--quiet"]) == 0
    finally:
        simulation.play_one = simulate_one
    assert frozen and min(frozen) > before  # the command's games ran with the rulebook frozen
    assert set(young) == {max(simulation.YOUNG_COLLECTION_AT, thresholds[0])}
    assert gc.get_freeze_count() == before  # and the collector has it all back after
    assert gc.get_threshold() == thresholds
