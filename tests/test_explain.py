"""`rulecraft explain`: rules and abilities rendered back to English, one template per construct.

The snapshots (`tests/__snapshots__/test_explain/*.txt`) are read like a rulebook: where the
English reads wrong, the rulebook or the renderer is wrong. A game that lands in `rulebooks/`
gets its snapshot with `pytest tests/test_explain.py --snapshot-update` (then read it!).
"""

from __future__ import annotations

from pathlib import Path

import pytest
import rulecraft
from rulecraft.authoring.explain import explain
from rulecraft.cli import main

ROOT = Path(__file__).resolve().parent.parent
GAMES = [
    str(ROOT / "examples" / "tutorial.rules"),
    str(ROOT / "tests" / "authoring" / "every_construct.rules"),
    *rulecraft.bundled_names(),
]


@pytest.mark.parametrize("game", GAMES, ids=lambda g: Path(g).stem)
def test_explain_whole_rulebook(game: str, text_snapshot) -> None:  # type: ignore[no-untyped-def]
    """The whole rulebook reads as English: components, setup, play, procedures, abilities, rules, functions."""
    assert explain(rulecraft.load(game).program) == text_snapshot


@pytest.mark.parametrize("game", GAMES, ids=lambda g: Path(g).stem)
def test_every_ability_reads_like_a_card(game: str) -> None:
    """Each ability renders alone: its text, then each tier with its level and its steps."""
    program = rulecraft.load(game).program
    for name, ability in program.abilities.items():
        lines = explain(program, name).splitlines()
        assert lines[0].endswith(f"“{ability.text}”")
        assert [line.split(":")[0].strip() for line in lines if line.startswith("  Tier")] == [
            f"Tier {t.level}" for t in ability.tiers
        ]


def test_explain_one_tier_reads_close_to_the_printed_card() -> None:
    """A tier's steps read as sentences a player would find on a card."""
    text = explain(rulecraft.load(ROOT / "examples" / "tutorial.rules").program, "sell")
    assert text.splitlines()[3:] == [
        "  Tier 2: “Discard 2 wares of the suit from your stall and gain 5 gold”",
        "    - p chooses exactly 2 of p's stall whose suit is suit (“Sell which wares?”); call that sold.",
        "    - Move sold to the discard.",
        "    - Add 5 to p's gold.",
    ]


def test_explain_unknown_name_suggests_the_closest(capsys: pytest.CaptureFixture[str]) -> None:
    """Asking for a name the rulebook does not declare exits 1 with a suggestion."""
    assert main(["explain", str(ROOT / "examples" / "tutorial.rules"), "sel"]) == 1
    assert capsys.readouterr().err.strip() == "Market declares nothing called 'sel' (did you mean 'sell'?)"
