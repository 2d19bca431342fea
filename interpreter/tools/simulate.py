"""Many seeded games and their statistics: `rulecraft simulate`.

Game i is played with seed `game_seeds(master, n)[i]` (a splitmix sequence from the master seed),
so the results are the same whatever the number of worker processes. With several kinds of
agent, seats rotate between games (game i gives seat s the agent `agents[(s + i) % len(agents)]`),
so that a win rate by agent is not a win rate by seat in disguise.

Card use is counted generically, by card label: how often a player's answer named a card (the
answer is the card's label, as in a `choose` among cards, or holds it as words, as in a menu
option "play red 1"), and how many times a card moved from one zone to another.

Abilities are counted from the `use` decisions: how often each tier was among the options
(offered), how often the chooser took it (chosen), and whether a player who took it went on to
win. The rulebook's `score(p)`, if it declares one, is read at eleven points of each game (its
start, each tenth of the decisions, its end), so games of different lengths can be averaged.

The games run in this process, in `workers` local processes, or as Ray tasks
(`backend="ray"`, `rulecraft.tools.distributed`); each game's result depends only on its seed and
seats, so the statistics are the same on every backend.
"""

from __future__ import annotations

import contextlib
import gc
import math
import re
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

import attrs

from ..agents import Agent, make_agents, play
from ..errors import RulebookError
from ..language.values import CardRef, Player, ZoneRef
from ..rulebook import Rulebook, load
from ..runtime.game import MASK64, Decision, Game, splitmix
from ..runtime.observe import Observer
from ..syntax import ast as s
from .workers import worker_map

SCORE_POINTS = 11  # the score is read at the start, at each tenth of a game, and at its end


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
    # "ability" or "ability tier N" -> (times offered, times chosen); an ability is offered when its
    # `use` asks, and chosen when a tier (not "no ability") is the answer.
    abilities: dict[str, tuple[int, int]] = attrs.Factory(dict)
    choosers: dict[str, tuple[int, ...]] = attrs.Factory(dict)  # the same keys -> the seats that chose it
    scores: tuple[tuple[int, ...], ...] = ()  # SCORE_POINTS rows of every seat's score; () without `score`
    together: str | None = None  # "won" or "lost": a cooperative end (`end game together`), else None
    team_score: int | None = None  # `team_score()` at a cooperative end, None without one

    def share(self) -> float:
        """What one winning seat counts: a shared win is a share, a cooperative win a whole win for each."""
        return 1.0 if self.together == "won" else 1 / len(self.winners)


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
                wins[w] += r.share()
        return {str(Player(i)): wins[i] / len(self.results) for i in range(self.players)}

    def win_rate_by_agent(self) -> dict[str, tuple[float, int]]:
        """Per kind of agent: the share of its seats that won, and how many seats it had."""
        wins: dict[str, float] = {}
        seats: Counter[str] = Counter()
        for r in self.results:
            for i, name in enumerate(r.agents):
                seats[name] += 1
                if i in r.winners:
                    wins[name] = wins.get(name, 0.0) + r.share()
        return {name: (wins.get(name, 0.0) / seats[name], seats[name]) for name in sorted(seats)}

    def unfinished(self) -> Counter[str]:
        """The games a guard stopped unfinished (no winner), counted by the reason the rulebook gives."""
        return Counter(r.unfinished for r in self.results if r.unfinished is not None)

    def cooperative(self) -> bool:
        """A run of a cooperative game: some game ended with the players' common result."""
        return any(r.together is not None for r in self.results)

    def team(self) -> dict[str, Any]:
        """A cooperative game's results: how many games the team won, lost, or ended otherwise, and
        the distribution of the team score (games without one left out): mean, sd, quantiles, counts."""
        won = sum(r.together == "won" for r in self.results)
        lost = sum(r.together == "lost" for r in self.results)
        xs = sorted(r.team_score for r in self.results if r.together is not None and r.team_score is not None)
        out: dict[str, Any] = {"won": won, "lost": lost, "other": len(self.results) - won - lost, "scored": len(xs)}
        if xs:
            mean = sum(xs) / len(xs)
            spread = math.sqrt(sum((x - mean) ** 2 for x in xs) / len(xs))
            quantiles = {f"q{q}": xs[min(len(xs) - 1, q * len(xs) // 100)] for q in (10, 25, 50, 75, 90)}
            counts = {str(k): v for k, v in sorted(Counter(xs).items())}
            out["score"] = {"mean": mean, "sd": spread, "min": xs[0], "max": xs[-1], **quantiles, "counts": counts}
        return out

    def lengths(self) -> tuple[float, float, int, int]:
        """Decisions taken by players per game: mean, standard deviation, min, max."""
        xs = [r.decisions for r in self.results]
        mean = sum(xs) / len(xs)
        spread = math.sqrt(sum((x - mean) ** 2 for x in xs) / len(xs))
        return mean, spread, min(xs), max(xs)

    def length_counts(self) -> Counter[int]:
        """How many games took each number of decisions (the distribution of game length)."""
        return Counter(r.decisions for r in self.results)

    def ability_use(self) -> list[tuple[str, int, int, float, int]]:
        """(ability or tier, times offered, times chosen, the choosers' win rate, how many choosers),
        by ability name, each ability before its tiers. A chooser is a seat of a game that chose it at
        least once (a shared win counts as a share), so one player taking a tier ten times is one chooser."""
        offered: Counter[str] = Counter()
        chosen: Counter[str] = Counter()
        wins: dict[str, float] = {}
        choosers: Counter[str] = Counter()
        for r in self.results:
            for key, (o, c) in r.abilities.items():
                offered[key] += o
                chosen[key] += c
            for key, seats in r.choosers.items():
                choosers[key] += len(seats)
                wins[key] = wins.get(key, 0.0) + sum(r.share() for seat in seats if seat in r.winners)
        rows = []
        for key in sorted(offered, key=_ability_order):
            n = choosers[key]
            rows.append((key, offered[key], chosen[key], wins.get(key, 0.0) / n if n else 0.0, n))
        return rows

    def score_curve(self) -> list[list[tuple[float, float, float]]]:
        """Per seat, at each of SCORE_POINTS points of the game: the mean score and its 95 % interval
        (mean ± 1.96 standard errors). Empty when the rulebook declares no `score`."""
        games = [r.scores for r in self.results if r.scores]
        if not games:
            return []
        curves = []
        for seat in range(self.players):
            points = []
            for k in range(SCORE_POINTS):
                xs = [g[k][seat] for g in games]
                mean = sum(xs) / len(xs)
                sd = math.sqrt(sum((x - mean) ** 2 for x in xs) / max(len(xs) - 1, 1))
                half = 1.96 * sd / math.sqrt(len(xs))
                points.append((mean, mean - half, mean + half))
            curves.append(points)
        return curves

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


class MoveCounter(Observer):
    """A sink that counts, by label, the cards that move between zones (see runtime/observe.py)."""

    def __init__(self) -> None:
        self.moved: Counter[str] = Counter()

    def on_move(self, game: Game, cards: Sequence[CardRef], zone: ZoneRef) -> None:
        for card in cards:
            if game.state.location[card.id] != zone.key:
                self.moved[game.label(card)] += 1


def label_pattern(game: Game) -> re.Pattern[str]:
    """What finds the labels of a game's cards in an answer (the longest label first)."""
    labels = sorted({game.label(CardRef(i)) for i in range(len(game.state.cards))}, key=len, reverse=True)
    alternatives = "|".join(re.escape(label) for label in labels) or "(?!)"
    return re.compile(rf"(?<!\S)(?:{alternatives})(?!\S)")


def cards_named(answer: str, pattern: re.Pattern[str]) -> list[str]:
    """The card labels an answer names (`pattern`: `label_pattern`): the whole answer ("red 1"), or
    words of it ("play red 1")."""
    return pattern.findall(answer)


def _ability_order(key: str) -> tuple[str, int]:
    """An ability first, then its tiers by level ("trade", "trade tier 0", "trade tier 1", ...)."""
    name, _, level = key.partition(" tier ")
    return name, int(level) + 1 if level else 0


def _tier_names(program: Any) -> dict[int, str]:
    """Each tier of the rulebook (by identity: the options of a `use` decision hold them) -> its ability."""
    return {id(tier): name for name, ability in program.abilities.items() for tier in ability.tiers}


class _Watched:
    """An agent whose answers to `use` decisions are counted (offered, chosen, and by which seat)."""

    def __init__(
        self,
        agent: Agent,
        seat: int,
        tiers: dict[int, str],
        abilities: dict[str, list[int]],
        choosers: dict[str, set[int]],
    ):
        self.agent, self.seat, self.tiers = agent, seat, tiers
        self.abilities, self.choosers = abilities, choosers

    def choose(self, game: Game, decision: Decision) -> str:
        answer = self.agent.choose(game, decision)
        offered = [o for o in decision.options if isinstance(o.value, s.Tier)]
        if offered and len(offered) + 1 == len(decision.options):  # the options of a `use`: "no ability" and tiers
            ability = self.tiers.get(id(offered[0].value))
            if ability is not None:
                self._count(ability, answer != "no ability")
                for option in offered:
                    self._count(f"{ability} tier {option.value.level}", option.label == answer)
        return answer

    def _count(self, key: str, chosen: bool) -> None:
        counts = self.abilities.setdefault(key, [0, 0])
        counts[0] += 1
        if chosen:
            counts[1] += 1
            self.choosers.setdefault(key, set()).add(self.seat)


def _scores(game: Game) -> tuple[int, ...] | None:
    """Every seat's `score(p)`, or None if the rulebook declares none or it cannot be computed now."""
    try:
        values = [game.score(p) for p in game.players]
    except RulebookError:  # a score that needs the end of the game (a field of `none`, ...): not plotted
        return None
    return None if None in values else tuple(v for v in values if v is not None)


def _sampled(rows: list[tuple[int, ...] | None]) -> tuple[tuple[int, ...], ...]:
    """SCORE_POINTS rows, evenly spread over the game (from its start to its end); () if any is missing."""
    if not rows or any(row is None for row in rows):
        return ()
    last = len(rows) - 1
    return tuple(rows[round(k * last / (SCORE_POINTS - 1))] for k in range(SCORE_POINTS))  # type: ignore[misc]


_RULEBOOKS: dict[str, Rulebook] = {}
_TIERS: dict[str, dict[int, str]] = {}


# Whether `play_one` freezes the collector once a rulebook is loaded (`gc.freeze`: +3 % greedy games per
# CPU second). It freezes everything the process holds then, so only the command sets it, for as long as
# it runs (`collector_frozen`; its forked workers inherit it), never a program that calls `simulate`.
FREEZE_AFTER_LOAD = False

# Allocations between two collections of the youngest generation while the command runs (Python's default
# is 700): a search makes and drops clones by the thousand, and each young collection walks them. 5,000
# made the collector 1.7 % of a bundled card game's greedy games instead of 5 % (+4 % games per CPU
# second; random games unchanged within the noise: examples/benchmarks/RESULTS.md).
YOUNG_COLLECTION_AT = 5_000


@contextlib.contextmanager
def collector_frozen() -> Iterator[None]:
    """While `rulecraft simulate` runs: the rulebook and its code, which live as long as the process, are
    left out of the collector's full walks (`FREEZE_AFTER_LOAD`), and the youngest generation is
    collected less often (`YOUNG_COLLECTION_AT`); after, the collector is as it was."""
    global FREEZE_AFTER_LOAD
    FREEZE_AFTER_LOAD = True
    thresholds = gc.get_threshold()
    gc.set_threshold(max(YOUNG_COLLECTION_AT, thresholds[0]), *thresholds[1:])
    try:
        yield
    finally:
        FREEZE_AFTER_LOAD = False
        gc.set_threshold(*thresholds)
        gc.unfreeze()


def play_one(task: tuple[str, int, tuple[str, ...], int, int]) -> GameResult:
    """Play game `index` (run in a worker process; the rulebook is loaded once per process)."""
    name, players, agents, seed, index = task
    rb = _RULEBOOKS.get(name)
    if rb is None:
        rb = _RULEBOOKS[name] = load(name)
        _TIERS[name] = _tier_names(rb.program)
        if FREEZE_AFTER_LOAD:
            # The rulebook and its code live as long as the process: the collector need not walk them
            # again at each full collection (a search's clones make many).
            gc.freeze()
    counter = MoveCounter()
    game = Game(rb, players, seed, trace=False, observers=[counter])
    abilities: dict[str, list[int]] = {}
    choosers: dict[str, set[int]] = {}
    seats = [
        _Watched(a, i, _TIERS[name], abilities, choosers)
        for i, a in enumerate(make_agents(list(agents), players, seed))
    ]
    scored = "score" in rb.program.fns
    scores = [_scores(game)] if scored else []
    # A failed answer ends the whole simulation with its error, and this game is never looked at
    # again: nothing need be kept to put it back.
    play(game, list(seats), on_answer=(lambda g: scores.append(_scores(g))) if scored else None, atomic=False)
    by_players = [label for by, label in game.answers if by != "table"]
    pattern = label_pattern(game)
    chosen = Counter(name for answer in by_players for name in cards_named(answer, pattern))
    return GameResult(
        index,
        seed,
        agents,
        tuple(game.state.winners or ()),
        len(by_players),
        dict(chosen),
        dict(counter.moved),
        game.state.unfinished,
        {key: (o, c) for key, (o, c) in abilities.items()},
        {key: tuple(sorted(seats)) for key, seats in choosers.items()},
        _sampled(scores),
        game.state.together,
        game.team_score() if game.state.together is not None else None,
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
    *,
    backend: str = "local",
    address: str | None = None,
    batch: int | None = None,
) -> Stats:
    """Play n games and gather their statistics; `progress(done)` after each game.

    `backend` "local": in `workers` processes of this machine; "ray": as Ray tasks of `batch` games
    each, on the Ray cluster at `address`, else on a local Ray instance of `workers` CPUs.
    """
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
    if backend == "ray":
        from .distributed import ray_map

        for result in ray_map(play_one, tasks, address=address, cpus=workers if workers > 0 else None, batch=batch):
            results.append(result)
            show(len(results))
    elif workers <= 1:
        for task in tasks:
            results.append(play_one(task))
            show(len(results))
    else:
        for result in worker_map(play_one, tasks, workers, ordered=False, chunk=max(1, n // (workers * 8))):
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
    ]
    if stats.cooperative():
        lines += _team_lines(stats.team(), n)
    else:
        lines += ["win rate by seat (a shared win counts as a share):"]
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
    abilities = stats.ability_use()
    if abilities:
        lines += [
            "",
            "abilities and tiers: offered, chosen, and the win rate of the players who chose it:",
            f"  {'ability / tier':<32} {'offered':>8} {'chosen':>8}  {'choosers won':>12}",
        ]
        lines += [
            f"  {key:<32} {offered:>8} {chosen:>8}  "
            + (f"{rate:6.1%}  {_interval(rate, n)}  of {n}" if n else f"{'-':>12}")
            for key, offered, chosen, rate, n in abilities
        ]
    curves = stats.score_curve()
    if curves:
        lines += ["", "mean score (95 % interval) at the start, the middle and the end of the game:"]
        lines += [
            f"  {Player(seat)}  "
            + "   ".join(
                f"{mean:7.1f} [{low:.1f} .. {high:.1f}]" for mean, low, high in (c[0], c[SCORE_POINTS // 2], c[-1])
            )
            for seat, c in enumerate(curves)
        ]
    use = stats.card_use()
    lines += [
        "",
        f"card use, by label (the {min(top, len(use))} most used of {len(use)}):",
        f"  {'card':<32} {'chosen':>7} {'moved':>7}",
    ]
    lines += [f"  {label:<32} {chosen:>7} {moved:>7}" for label, chosen, moved in use[:top]]
    return "\n".join(lines) + "\n"


def _team_lines(team: dict[str, Any], n: int) -> list[str]:
    """A cooperative game's part of the report: the team's win rate and its score's distribution."""
    rate = team["won"] / n
    lines = [
        "the players win or lose together (a cooperative game):",
        f"  team won   {rate:6.1%}  {_interval(rate, n)}  ({team['won']} of {n} games)",
        f"  team lost  {team['lost'] / n:6.1%}  ({team['lost']} of {n} games)",
    ]
    if team["other"]:
        lines += [f"  ended otherwise (not together): {team['other']} of {n} games"]
    score = team.get("score")
    if score is None:
        return [*lines, "team score: none (the rulebook declares no team_score())"]
    lines += [
        f"team score ({team['scored']} games): mean {score['mean']:.1f}, sd {score['sd']:.1f}, "
        f"min {score['min']}, max {score['max']}",
        "  quantiles: " + ", ".join(f"{q}% {score[f'q{q}']}" for q in (10, 25, 50, 75, 90)),
        "  games by team score:",
    ]
    widest = max(score["counts"].values())
    lines += [
        f"  {value:>6} {count:>6}  " + "#" * max(1, round(40 * count / widest))
        for value, count in score["counts"].items()
    ]
    return lines


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

    if stats.cooperative():  # one result for all the players: the team's, instead of each seat's
        team = stats.team()
        won: dict[str, Any] = {"team": {**team, "won_rate": rate(team["won"] / n, n)}}
    else:
        won = {
            "win_rate_by_seat": {seat: rate(r, n) for seat, r in stats.win_rate_by_seat().items()},
            "win_rate_by_agent": {
                name: {**rate(r, seats), "seats": seats} for name, (r, seats) in stats.win_rate_by_agent().items()
            },
        }
    return {
        "game": stats.game,
        "games": n,
        "players": stats.players,
        "agents": list(stats.agents),
        "master_seed": stats.seed,
        **won,
        "unfinished": dict(sorted(stats.unfinished().items())),
        "length": {"mean": mean, "sd": spread, "min": low, "max": high, **_mean_interval(mean, spread, n)},
        "length_counts": {str(k): v for k, v in sorted(stats.length_counts().items())},
        "ability_use": [
            {
                "ability": key,
                "offered": offered,
                "chosen": chosen,
                "chosen_share": rate(chosen / offered if offered else 0.0, offered),
                "choosers": n,
                "choosers_won": rate(won, n),
            }
            for key, offered, chosen, won, n in stats.ability_use()
        ],
        "score_over_game": {
            str(Player(seat)): [
                {"at": k / (SCORE_POINTS - 1), "mean": m, "low": lo, "high": hi} for k, (m, lo, hi) in enumerate(c)
            ]
            for seat, c in enumerate(stats.score_curve())
        },
        "card_use": [
            {"card": label, "chosen": chosen, "moved": moved} for label, chosen, moved in stats.card_use()[:top]
        ],
        "cards_used": len(stats.card_use()),
    }


def _mean_interval(mean: float, sd: float, n: int) -> dict[str, float]:
    """The 95 % interval of a mean (±1.96 standard errors; sd is the population's, made the sample's)."""
    half = 1.96 * sd * math.sqrt(n / max(n - 1, 1)) / math.sqrt(n) if n else 0.0
    return {"mean_low": mean - half, "mean_high": mean + half}


def timed(fn: Callable[[], Any]) -> tuple[Any, float]:
    start = time.perf_counter()
    value = fn()
    return value, time.perf_counter() - start
