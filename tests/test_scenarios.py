"""Scenarios: a partial state by card labels and scripted answers, traced with the rule of every step.

Every file in examples/scenarios/ is run here. A new scenario gets its trace snapshot with
`pytest tests/test_scenarios.py --snapshot-update`; read the `.trace` line by line before keeping it.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from rulecraft.cli import main
from rulecraft.errors import RulebookError
from rulecraft.scenario import run_scenario

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = sorted((ROOT / "examples" / "scenarios").rglob("*.scenario"))


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_scenario_runs_and_its_expectations_hold(path: Path) -> None:
    """Each scenario sets up, applies its changes, takes every scripted answer and meets every `expect`."""
    text = run_scenario(None, path)
    expects = sum(1 for line in path.read_text(encoding="utf-8").splitlines() if line.startswith("expect "))
    assert text.count(": holds  @ ") == expects


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_scenario_trace(path: Path, trace_snapshot) -> None:  # type: ignore[no-untyped-def]
    """The trace of each scenario, each line with the rulebook (or scenario) line that caused it."""
    assert run_scenario(None, path) == trace_snapshot


def test_a_failed_expectation_is_located_and_shows_the_value(tmp_path: Path) -> None:
    """An `expect` that does not hold is an error at its place, showing the value of its left side."""
    scenario = tmp_path / "s.scenario"
    scenario.write_text("players 2\nset gold[P1] = 4\nexpect gold[P1] == 5\n", encoding="utf-8")
    with pytest.raises(RulebookError) as info:
        run_scenario(str(ROOT / "examples" / "tutorial.rules"), scenario)
    assert info.value.messages == [f"{scenario}:3:8: error: expected gold[P1] == 5, but gold[P1] is 4"]


def test_the_command_line_runs_a_scenario(capsys: pytest.CaptureFixture[str]) -> None:
    """`rulecraft trace --scenario F` takes the game from the scenario's `game` line."""
    assert main(["trace", "--scenario", str(ROOT / "examples" / "scenarios" / "tutorial_sell.scenario")]) == 0
    assert capsys.readouterr().out.startswith("# rulebook: tutorial (Market)\n# scenario: ")
