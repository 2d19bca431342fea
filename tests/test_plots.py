"""`simulate --plot FILE.png|svg`: one figure of a run, drawn with matplotlib (an optional extra)."""

from __future__ import annotations

import importlib
import os
from pathlib import Path
from types import ModuleType

import pytest
from rulecraft.cli import main
from rulecraft.tools.simulate import simulate

TUTORIAL = str(Path(__file__).resolve().parent.parent / "examples" / "tutorial.rules")


def needs(module: str) -> ModuleType:
    """An optional dependency: skipped where it is not installed, required where CI installed it."""
    if os.environ.get("RULECRAFT_EXTRAS_REQUIRED"):
        return importlib.import_module(module)
    return pytest.importorskip(module)


def test_the_figure_has_every_plot() -> None:
    """Win rate by seat and by agent, game length, score over the game, abilities offered and chosen,
    and the choosers' win rate: one panel each, with something drawn in it."""
    needs("matplotlib")
    from rulecraft.tools.plots import TITLES, figure

    fig = figure(simulate(TUTORIAL, 6, agents=["greedy", "random"], seed=3))
    axes = {ax.get_title(): ax for ax in fig.axes}
    assert set(axes) == set(TITLES)
    assert all(ax.has_data() for ax in axes.values())


@pytest.mark.parametrize("suffix", [".png", ".svg"])
def test_the_command_draws_a_png_or_an_svg(tmp_path: Path, suffix: str) -> None:
    """`--plot run.png` writes a PNG image; `--plot run.svg` an SVG whose panel titles are text."""
    needs("matplotlib")
    from rulecraft.tools.plots import TITLES

    path = tmp_path / f"run{suffix}"
    assert main(["simulate", TUTORIAL, "-n", "4", "--agents", "greedy,random", "--plot", str(path), "--quiet"]) == 0
    data = path.read_bytes()
    if suffix == ".png":
        assert data.startswith(b"\x89PNG\r\n\x1a\n")
    else:
        text = data.decode("utf-8")
        assert text.lstrip().startswith("<?xml") and all(title in text for title in TITLES)


def test_a_plot_of_another_format_is_refused_before_any_game(capsys: pytest.CaptureFixture[str]) -> None:
    """`--plot run.pdf` is a usage error (exit 2), checked before the games are played."""
    needs("matplotlib")
    assert main(["simulate", TUTORIAL, "-n", "1", "--plot", "run.pdf"]) == 2
    assert "draws a .png or an .svg file" in capsys.readouterr().err
