"""`simulate --plot FILE.png|svg`: the statistics of a run as one figure (matplotlib).

Six panels: win rate by seat and by agent (bars with their 95 % Wilson intervals), the
distribution of game length, the mean score of each seat over the game (with its 95 % band),
and, for each ability and tier, how often it was offered and chosen beside the win rate of the
players who chose it (the choosers' win rate, with its interval). matplotlib is an optional dependency
(`pip install 'rulecraft[plot]'`); the figure is drawn without pyplot (no global state, no
window), and an SVG keeps its text as text (searchable, and smaller).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..console import UsageError
from ..errors import RulecraftError
from ..language.values import Player
from .simulate import SCORE_POINTS, Stats, wilson

FORMATS = (".png", ".svg")
TITLES = (
    "win rate by seat",
    "win rate by agent",
    "game length",
    "mean score over the game",
    "abilities and tiers: offered and chosen",
    "choosers' win rate",
)


def check_plot_file(name: str) -> None:
    """Refuse, before any game is played, a file of another format or a missing matplotlib."""
    if Path(name).suffix.lower() not in FORMATS:
        raise UsageError(f"--plot {name}: draws a .png or an .svg file")
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise UsageError("--plot needs matplotlib: pip install 'rulecraft[plot]'") from None


def figure(stats: Stats) -> Any:
    """The figure of a run's statistics (a matplotlib Figure; its axes carry the TITLES)."""
    from matplotlib.figure import Figure

    abilities = stats.ability_use()  # every one: a rulebook has a few abilities, not hundreds like cards
    rows = max(len(abilities), 1)
    fig = Figure(figsize=(11, 6 + rows * 0.2), layout="constrained")
    grid = fig.add_gridspec(3, 3, height_ratios=[3, 3, max(2.0, rows * 0.2)])
    n = len(stats.results)
    unfinished = sum(stats.unfinished().values())
    fig.suptitle(
        f"{stats.game}: {n} games ({unfinished} unfinished: no winner), {stats.players} players, "
        f"agents {', '.join(stats.agents)}, master seed {stats.seed}"
    )

    seats = stats.win_rate_by_seat()
    _rates(fig.add_subplot(grid[0, 0]), TITLES[0], [(seat, rate, n) for seat, rate in seats.items()])
    agents = stats.win_rate_by_agent()
    _rates(fig.add_subplot(grid[0, 1]), TITLES[1], [(name, rate, k) for name, (rate, k) in agents.items()])

    ax = fig.add_subplot(grid[0, 2])
    counts = stats.length_counts()
    ax.hist([r.decisions for r in stats.results], bins=min(30, max(len(counts), 1)), color="tab:gray")
    ax.set_title(TITLES[2])
    ax.set_xlabel("decisions by players")
    ax.set_ylabel("games")

    ax = fig.add_subplot(grid[1, :])
    ax.set_title(TITLES[3])
    curves = stats.score_curve()
    at = [100 * k / (SCORE_POINTS - 1) for k in range(SCORE_POINTS)]
    for seat, curve in enumerate(curves):
        ax.plot(at, [m for m, _, _ in curve], marker="o", label=str(Player(seat)))
        ax.fill_between(at, [lo for _, lo, _ in curve], [hi for _, _, hi in curve], alpha=0.2)
    if curves:
        ax.legend(loc="upper left")
    else:
        _empty(ax, "the rulebook declares no score(p)")
    ax.set_xlabel("% of the game's decisions")
    ax.set_ylabel("score(p)")

    use = fig.add_subplot(grid[2, :2])
    won = fig.add_subplot(grid[2, 2], sharey=use)
    use.set_title(TITLES[4])
    won.set_title(TITLES[5])
    if abilities:
        ys = list(range(len(abilities)))
        use.barh([y + 0.2 for y in ys], [o for _, o, _, _, _ in abilities], height=0.4, label="offered")
        use.barh([y - 0.2 for y in ys], [c for _, _, c, _, _ in abilities], height=0.4, label="chosen")
        use.set_yticks(ys, [key for key, *_ in abilities], fontsize=8)
        use.invert_yaxis()
        use.legend(loc="lower right")
        use.set_xlabel("times")
        shown = [(y, rate, k) for y, (_, _, _, rate, k) in zip(ys, abilities, strict=True) if k]
        lows = [rate - wilson(rate, k)[0] for _, rate, k in shown]
        highs = [wilson(rate, k)[1] - rate for _, rate, k in shown]
        won.errorbar(
            [rate for _, rate, _ in shown], [y for y, _, _ in shown], xerr=[lows, highs], fmt="o", color="tab:green"
        )
        won.axvline(1 / stats.players, color="gray", linestyle=":", label="1 / players")
        won.set_xlim(0, 1)
        won.set_xlabel("share of choosers who won (95 % interval)")
        won.tick_params(labelleft=False)
    else:
        _empty(use, "no ability was offered")
        won.set_axis_off()
    return fig


def _empty(ax: Any, why: str) -> None:
    ax.text(0.5, 0.5, why, ha="center", va="center", transform=ax.transAxes)
    ax.set_xticks([])
    ax.set_yticks([])


def _rates(ax: Any, title: str, rows: list[tuple[str, float, int]]) -> None:
    """Bars of rates, each with its 95 % Wilson interval."""
    names = [name for name, _, _ in rows]
    rates = [rate for _, rate, _ in rows]
    bounds = [wilson(rate, k) for _, rate, k in rows]
    ax.bar(names, rates, color="tab:blue", alpha=0.7)
    ax.errorbar(
        names,
        rates,
        yerr=[
            [r - lo for r, (lo, _) in zip(rates, bounds, strict=True)],
            [hi - r for r, (_, hi) in zip(rates, bounds, strict=True)],
        ],
        fmt="none",
        color="black",
        capsize=4,
    )
    ax.set_ylim(0, 1)
    ax.set_title(title)
    ax.set_ylabel("share of games won")


def plot(stats: Stats, path: Path) -> None:
    """Draw the figure into a .png or .svg file."""
    import matplotlib

    check_plot_file(str(path))
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "rulecraft"}):
        try:
            figure(stats).savefig(path, dpi=72, metadata={"Date": None} if path.suffix.lower() == ".svg" else None)
        except OSError as exc:
            raise RulecraftError(f"{path}: cannot write the file: {exc.strerror or exc}") from None
