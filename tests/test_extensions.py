"""New card effects in examples/extensions/: each extends a game by include, and a scenario shows it."""

from __future__ import annotations

from pathlib import Path

import pytest
import rulecraft
from rulecraft.authoring.scenario import read_scenario, run_scenario

ROOT = Path(__file__).resolve().parent.parent
EXTENSIONS = sorted((ROOT / "examples" / "extensions").glob("*.rules"))
SCENARIOS = sorted((ROOT / "examples" / "scenarios").glob("*.scenario"))


@pytest.mark.parametrize("path", EXTENSIONS, ids=lambda p: p.stem)
def test_extension_brings_a_rule_and_an_ability_to_an_included_game(path: Path) -> None:
    """An extension includes the game it extends and changes play through its own rules, abilities
    or overrides of the game's procedures and functions."""
    rb = rulecraft.load(path)
    assert len(rb.program.files) > 1
    program = rb.program
    overrides = [d for d in [*program.procs.values(), *program.fns.values()] if d.override]
    hooks = [*program.rules, *program.abilities.values(), *overrides]
    assert any(Path(h.span.file).name == path.name for h in hooks)


@pytest.mark.parametrize("path", EXTENSIONS, ids=lambda p: p.stem)
def test_a_scenario_shows_the_extension_at_work(path: Path) -> None:
    """Some scenario runs on the extension; in its trace a rule or an ability of the extension acts,
    or (an extension by overrides alone) a step of the extension's file runs and the scenario's
    expectations, which only the extension can meet, hold."""
    mine = [s for s in SCENARIOS if read_scenario(s).game == f"../extensions/{path.name}"]
    assert mine, f"write a scenario for {path.name} in examples/scenarios/"
    program = rulecraft.load(path).program
    own = {d.name for d in [*program.rules, *program.abilities.values()] if Path(d.span.file).name == path.name}
    lines = run_scenario(None, mine[0]).splitlines()
    if own:
        acted = {line.split()[1] for line in lines if line.startswith(("rule ", "use "))}
        assert acted & own, f"none of {sorted(own)} acts in {mine[0].name}"
    else:
        assert any(f"@ {path.name}:" in line for line in lines)
        expectations = [line for line in lines if line.startswith("expect ")]
        assert expectations and all(": holds" in line for line in expectations)
