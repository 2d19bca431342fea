"""Many seeded games and their statistics: `rulecraft simulate`.

Game i is played with seed `game_seeds(master, n)[i]` (a splitmix sequence from the master seed),
so the results are the same whatever the number of worker processes. With several kinds of
agent, seats rotate between games (game i gives seat s the agent `agents[(s + i) % len(agents)]`),
so that a win rate by agent is not a win rate by seat in disguise.

Card use is counted generically, by card label: how often a player's answer named a card (the
answer is the card's label, as in a `choose` among cards, or holds it as words, as in a menu
option "play red 1"), and how many times a card moved from one zone to another.
"""

from __future__ import annotations

import math
import multiprocessing
import re
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import attrs

from ..agents import make_agents, play
from ..rulebook import Rulebook, load
from ..runtime import MASK64, Game, splitmix
from ..values import CardRef, Player, ZoneRef


@attrs.frozen
class GameResult:
    """What one game contributes to the statistics."""

    index: int
    seed: int
    agents: tuple[str, ...]
    winners: tuple[int, ...]
    decisions: int
    chosen: dict[str, int]
    moved: dict[str, int]
    unfinished: str | None = None  # why a guard stopped the game (it has no winner), else None


@attrs.define
class Stats:
    """The statistics of a run of games."""

    game: str
    players: int
    agents: tuple[str, ...]
    seed: int
    results: list[GameResult]

    def win_rate_by_seat(self) -> dict[str, float]:
        wins = [0.0] * self.players
        for r in self.results:
            for w in r.winners:
                wins[w] += 1 / len(r.winners)
        return {str(Player(i)): wins[i] / len(self.results) for i in range(self.players)}

    def win_rate_by_agent(self) -> dict[str, tuple[float, int]]:
        """Per kind of agent: the share of its seats that won, and how many seats it had."""
        wins: dict[str, float] = {}
        seats: Counter[str] = Counter()
        for r in self.results:
            for i, name in enumerate(r.agents):
                seats[name] += 1
                if i in r.winners:
                    wins[name] = wins.get(name, 0.0) + 1 / len(r.winners)
        return {name: (wins.get(name, 0.0) / seats[name], seats[name]) for name in sorted(seats)}

    def unfinished(self) -> Counter[str]:
        """The games a guard stopped unfinished (no winner), counted by the reason the rulebook gives."""
        return Counter(r.unfinished for r in self.results if r.unfinished is not None)

    def lengths(self) -> tuple[float, float, int, int]:
        """Decisions taken by players per game: mean, standard deviation, min, max."""
        xs = [r.decisions for r in self.results]
        mean = sum(xs) / len(xs)
        spread = math.sqrt(sum((x - mean) ** 2 for x in xs) / len(xs))
        return mean, spread, min(xs), max(xs)

    def card_use(self) -> list[tuple[str, int, int]]:
        """(label, times chosen, times moved), most used first."""
        chosen: Counter[str] = Counter()
        moved: Counter[str] = Counter()
        for r in self.results:
            chosen.update(r.chosen)
            moved.update(r.moved)
        labels = set(chosen) | set(moved)
        return sorted(((lab, chosen[lab], moved[lab]) for lab in labels), key=lambda t: (-t[1] - t[2], t[0]))


def game_seeds(master: int, n: int) -> list[int]:
    """The seeds of n games, derived from one master seed."""
    state = master & MASK64
    seeds = []
    for _ in range(n):
        state, bits = splitmix(state)
        seeds.append(bits >> 33)
    return seeds


def seat_agents(agents: Sequence[str], players: int, index: int) -> tuple[str, ...]:
    """The agent of each seat in game `index`: rotated between games when there are several kinds."""
    return tuple(agents[(s + index) % len(agents)] for s in range(players))


class _CountingGame(Game):
    """A game that counts, by label, the cards that move between zones."""

    moved: Counter[str]

    def _move(self, cards: Sequence[CardRef], zone: ZoneRef, bottom: bool, span: Any) -> None:
        if cards:
            counts = getattr(self, "moved", None)
            if counts is None:
                counts = self.moved = Counter()
            for card in cards:
                if self.state.location[card.id] != zone.key:
                    counts[self.label(card)] += 1
        super()._move(cards, zone, bottom, span)


def cards_named(answer: str, game: Game) -> list[str]:
    """The card labels an answer names: the whole answer ("red 1"), or words of it ("play red 1")."""
    pattern = getattr(game, "_label_pattern", None)
    if pattern is None:
        labels = sorted({game.label(CardRef(i)) for i in range(len(game.state.cards))}, key=len, reverse=True)
        alternatives = "|".join(re.escape(label) for label in labels) or "(?!)"
        pattern = re.compile(rf"(?<!\S)(?:{alternatives})(?!\S)")
        game._label_pattern = pattern  # type: ignore[attr-defined]
    return pattern.findall(answer)


_RULEBOOKS: dict[str, Rulebook] = {}


def play_one(task: tuple[str, int, tuple[str, ...], int, int]) -> GameResult:
    """Play game `index` (run in a worker process; the rulebook is loaded once per process)."""
    name, players, agents, seed, index = task
    rb = _RULEBOOKS.get(name)
    if rb is None:
        rb = _RULEBOOKS[name] = load(name)
    game = _CountingGame(rb, players, seed, trace=False)
    play(game, make_agents(list(agents), players, seed))
    by_players = [label for by, label in game.answers if by != "table"]
    chosen = Counter(name for answer in by_players for name in cards_named(answer, game))
    return GameResult(
        index,
        seed,
        agents,
        tuple(game.state.winners or ()),
        len(by_players),
        dict(chosen),
        dict(getattr(game, "moved", {})),
        game.state.unfinished,
    )


def wilson(rate: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a proportion `rate` observed over `n` trials (95 % for z = 1.96).

    Unlike rate ± z·sd it stays within [0, 1] and is honest for rates near 0 or 1 and for few games.
    """
    if n <= 0:
        return 0.0, 1.0
    z2 = z * z
    centre = (rate + z2 / (2 * n)) / (1 + z2 / n)
    half = z / (1 + z2 / n) * math.sqrt(max(rate * (1 - rate), 0.0) / n + z2 / (4 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)


def simulate(
    game: str,
    n: int,
    players: int | None = None,
    agents: Iterable[str] = ("random",),
    seed: int = 0,
    workers: int = 1,
    progress: Callable[[int], None] | None = None,
) -> Stats:
    """Play n games (in `workers` processes) and gather their statistics; `progress(done)` after each game."""
    if n < 1:
        raise ValueError("simulate at least one game")
    rb = load(game)
    count = players or rb.program.min_players
    rb.new_game(players=count, seed=0, trace=False)  # fails early, in this process, on a bad player count
    names = tuple(a.strip() for a in agents if a.strip()) or ("random",)
    make_agents(list(names), 1, 0)  # an unknown agent is refused before any process starts
    tasks = [(game, count, seat_agents(names, count, i), s, i) for i, s in enumerate(game_seeds(seed, n))]
    show = progress or (lambda done: None)
    results: list[GameResult] = []
    if workers <= 1:
        for task in tasks:
            results.append(play_one(task))
            show(len(results))
    else:
        with multiprocessing.Pool(workers) as pool:
            for result in pool.imap_unordered(play_one, tasks, chunksize=max(1, n // (workers * 8))):
                results.append(result)
                show(len(results))
    results.sort(key=lambda r: r.index)
    return Stats(rb.name, count, names, seed, results)


def report(stats: Stats, top: int = 15) -> str:
    """The statistics as text (the same whatever the number of workers)."""
    n = len(stats.results)
    lines = [
        f"{stats.game}: {n} games, {stats.players} players, agents {','.join(stats.agents)}, master seed {stats.seed}",
        "",
        "win rate by seat (a shared win counts as a share):",
    ]
    lines += [f"  {seat}  {rate:6.1%}  {_interval(rate, n)}" for seat, rate in stats.win_rate_by_seat().items()]
    lines += ["win rate by agent (share of its seats that won):"]
    lines += [
        f"  {name:<8} {rate:6.1%}  {_interval(rate, seats)}  of {seats} seats"
        for name, (rate, seats) in stats.win_rate_by_agent().items()
    ]
    lines += ["(in brackets: the 95 % Wilson interval of each rate)"]
    unfinished = stats.unfinished()
    lines += [f"unfinished (stopped by a guard, no winner): {sum(unfinished.values())} of {n} games"]
    lines += [f"  {count} {why}" for why, count in sorted(unfinished.items())]
    mean, spread, low, high = stats.lengths()
    lines += [f"game length (decisions by players): mean {mean:.1f}, sd {spread:.1f}, min {low}, max {high}"]
    use = stats.card_use()
    lines += [
        "",
        f"card use, by label (the {min(top, len(use))} most used of {len(use)}):",
        f"  {'card':<32} {'chosen':>7} {'moved':>7}",
    ]
    lines += [f"  {label:<32} {chosen:>7} {moved:>7}" for label, chosen, moved in use[:top]]
    return "\n".join(lines) + "\n"


def _interval(rate: float, n: int) -> str:
    low, high = wilson(rate, n)
    return f"[{low:6.1%} ..{high:6.1%}]"


def report_data(stats: Stats, top: int = 15) -> dict[str, Any]:
    """The statistics as plain data (`simulate --json`): rates with their 95 % Wilson interval."""
    n = len(stats.results)
    mean, spread, low, high = stats.lengths()

    def rate(value: float, trials: int) -> dict[str, float]:
        lo, hi = wilson(value, trials)
        return {"rate": value, "low": lo, "high": hi}

    return {
        "game": stats.game,
        "games": n,
        "players": stats.players,
        "agents": list(stats.agents),
        "master_seed": stats.seed,
        "win_rate_by_seat": {seat: rate(r, n) for seat, r in stats.win_rate_by_seat().items()},
        "win_rate_by_agent": {
            name: {**rate(r, seats), "seats": seats} for name, (r, seats) in stats.win_rate_by_agent().items()
        },
        "unfinished": dict(sorted(stats.unfinished().items())),
        "length": {"mean": mean, "sd": spread, "min": low, "max": high},
        "card_use": [
            {"card": label, "chosen": chosen, "moved": moved} for label, chosen, moved in stats.card_use()[:top]
        ],
        "cards_used": len(stats.card_use()),
    }


def timed(fn: Callable[[], Any]) -> tuple[Any, float]:
    start = time.perf_counter()
    value = fn()
    return value, time.perf_counter() - start
