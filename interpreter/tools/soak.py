"""Invariants at scale: many seeded random games, every promise checked after every decision.

After every decision (each time a game waits, and when it ends) a soak run checks:
- **conservation**: every card ever created is in exactly one zone, once; `location` agrees;
  a card's id is its place in the state; a zone holds only cards of its declared type (cards
  appear only by `create`, and never vanish or double);
- the rulebook's **declared invariants** (`invariant ...`, the game runs in checking mode);
- the state **round-trips** through the rulebook's cattrs converter and JSON, unchanged;
- the **view** of every player (and the full view) round-trips through JSON unchanged;
- at sampled decisions, **hidden information**: see `hidden_leak` and `shape_leak`.

A violation prints the rulebook, seed and step, and writes a record that replays the game up
to it (`rulecraft replay FILE`).

    rulecraft soak tutorial.rules --games 10000
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import signal
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import attrs

from ..agents import make_agents, parse_agent, with_options
from ..console import PLAYERS, SEED, WORKERS, UsageError, add_quiet, players_for, progress, whole, workers_for
from ..errors import GameError, RulebookError, RulecraftError
from ..records import Answer, record_of, write_record
from ..rulebook import Rulebook, bundled_names, load
from ..runtime.game import Game
from ..runtime.information import hidden_positions, permute_hidden
from .distributed import add_backend, backend_for
from .soak_checks import RoundTrip, conservation, hidden_leak, round_trip, shape_leak, views_round_trip
from .workers import worker_map

# ---------------------------------------------------------------------------- many games


@attrs.define
class Finding:
    rulebook: str
    seed: int
    players: int
    step: int
    problem: str
    record: str | None = None


@attrs.define
class SoakSummary:
    """What a run played: the games of seeds `first_seed` to `first_seed + games - 1`, and what it found."""

    games: int = 0
    finished: int = 0  # ended by the rules
    unfinished: int = 0  # stopped by a guard (`end game unfinished`): over, with no winner
    decisions: int = 0
    hidden_checks: int = 0
    findings: list[Finding] = attrs.Factory(list)
    interrupted: bool = False
    first_seed: int = 0

    def add(self, other: SoakSummary) -> None:
        """Count in the games of another summary (the next seeds)."""
        self.games += other.games
        self.finished += other.finished
        self.unfinished += other.unfinished
        self.decisions += other.decisions
        self.hidden_checks += other.hidden_checks
        self.findings.extend(other.findings)

    @property
    def seeds(self) -> str:
        """The seeds covered, as text: `0-9999`, `5`, or `none`."""
        if not self.games:
            return "none"
        last = self.first_seed + self.games - 1
        return str(last) if last == self.first_seed else f"{self.first_seed}-{last}"


def soak_game(
    rb: Rulebook,
    name: str,
    seed: int,
    players: int,
    summary: SoakSummary,
    *,
    max_decisions: int = 3000,
    hidden_every: int = 10,
    out_dir: Path | None = None,
    agents: Sequence[str] = (),
) -> Finding | None:
    """Play one seeded game, checking after every decision; the first violation is returned.

    The answers are uniformly random, or, with `agents` (one spelling a seat, as `--agents`
    gives them), the seats' agents' answers."""
    rng = random.Random(f"{name}:{seed}:{players}")
    game: Game | None = None
    step = 0
    seats = make_agents(list(agents), players, seed) if agents else []

    def found(problem: str, last: Answer | None = None) -> Finding:
        finding = Finding(name, seed, players, step, problem)
        if out_dir is not None and game is not None:
            out_dir.mkdir(parents=True, exist_ok=True)
            path = out_dir / f"{Path(name).stem}-p{players}-seed{seed}-step{step}.json"
            record = record_of(game)
            if last is not None:  # `apply` undid the answer that broke the rules: the record keeps it
                record.answers.append(last)
            try:
                write_record(record, path)
                finding.record = str(path)
            except (OSError, RulecraftError):
                pass
        summary.findings.append(finding)
        return finding

    summary.games += 1
    try:
        game = rb.new_game(players=players, seed=seed, trace=False, check_invariants=True)
        cheap_round_trip = RoundTrip(game)
        while True:
            problem = conservation(game)
            if problem:
                return found(problem)
            # The first and the last state are checked whole; the ones between, card by card (same promise).
            whole = step == 0 or game.over or step >= max_decisions
            problem = round_trip(game) if whole else cheap_round_trip(game)
            if problem:
                return found(problem)
            if game.over:
                if game.state.unfinished is None:
                    summary.finished += 1
                else:
                    summary.unfinished += 1
                return None
            if step >= max_decisions:
                return None
            if hidden_every and step % hidden_every == 0:
                summary.hidden_checks += 1
                problem = hidden_leak(game, rng) or shape_leak(game, rng)
                if problem:
                    return found(problem)
            decision = game.current_decision()
            assert decision is not None  # the game is not over
            labels = decision.labels
            step += 1  # the step is the number of the answer being given, counting from 1
            summary.decisions += 1
            if seats and decision.player is not None:
                label = seats[decision.player.index].choose(game, decision)
            else:
                label = labels[rng.randrange(len(labels))]
            try:
                game.apply(label)
            except RulebookError as exc:
                return found(exc.messages[0] if exc.messages else str(exc), Answer(decision.by, label))
    except RulebookError as exc:
        return found(exc.messages[0] if exc.messages else str(exc))
    except Exception as exc:  # a crash of the core is a finding too, with its record
        return found(f"{type(exc).__name__}: {exc}")


def players_of(seed: int, counts: Sequence[int]) -> int:
    """The player count of the game of a seed: the counts in turn, by seed (so split runs add up)."""
    return counts[seed % len(counts)]


# Rulebooks loaded in this process (worker processes inherit the parent's, or load their own once).
_RULEBOOKS: dict[str, Rulebook] = {}


def _one(task: tuple[str, int, int, int, int, Path | None, tuple[str, ...]]) -> SoakSummary:
    """Soak the game of one seed: its own summary (run in a worker process, or in this one)."""
    name, seed, players, max_decisions, hidden_every, out_dir, agents = task
    rb = _RULEBOOKS.get(name)
    if rb is None:
        rb = _RULEBOOKS[name] = load(name)
    one = SoakSummary(first_seed=seed)
    soak_game(
        rb,
        name,
        seed,
        players,
        one,
        max_decisions=max_decisions,
        hidden_every=hidden_every,
        out_dir=out_dir,
        agents=agents,
    )
    return one


def soak(
    name: str,
    games: int,
    seed: int = 0,
    players: Sequence[int] | None = None,
    *,
    max_decisions: int = 3000,
    hidden_every: int = 10,
    out_dir: Path | None = None,
    progress: Callable[[int, SoakSummary], None] | None = None,
    workers: int = 1,
    backend: str = "local",
    address: str | None = None,
    batch: int | None = None,
    agents: Sequence[str] = (),
) -> SoakSummary:
    """Play the games of seeds `seed` .. `seed + games - 1` of a rulebook, checking every decision.

    The game of seed s has `players_of(s, counts)` players. With `workers` > 1 the games are played
    in that many processes; the summary (counts, findings and their order) is the same for any
    number of workers, and on Ray (`backend="ray"`: batches of `batch` games as Ray tasks, on the
    cluster at `address` or on a local Ray instance of `workers` CPUs; see `rulecraft.tools.distributed`;
    the records of violations are written by the worker that found them, on its node).
    Interrupted (Ctrl-C, SIGTERM), the summary covers the games of the first seeds that were
    played to their end, with no gap: a later run can start at the next seed.
    """
    rb = _RULEBOOKS[name] = load(name)
    counts = list(players or range(rb.program.min_players, rb.program.max_players + 1))
    summary = SoakSummary(first_seed=seed)
    seat_agents = tuple(agents)
    tasks = [
        (name, seed + k, players_of(seed + k, counts), max_decisions, hidden_every, out_dir, seat_agents)
        for k in range(games)
    ]

    def count_in(k: int, one: SoakSummary) -> None:
        summary.add(one)
        for finding in one.findings:
            print(
                f"VIOLATION {finding.rulebook} players {finding.players} seed {finding.seed} step {finding.step}: "
                f"{finding.problem}" + (f"\n  record: {finding.record}" if finding.record else ""),
                file=sys.stderr,
            )
        if progress is not None:
            progress(k, summary)

    try:
        if backend == "ray":
            from .distributed import ray_map

            # In seed order too: a batch that comes back early waits for the ones before it.
            cpus = workers if workers > 0 else None
            for k, one in enumerate(ray_map(_one, tasks, address=address, cpus=cpus, batch=batch, ordered=True)):
                count_in(k, one)
        elif workers <= 1:
            for k, task in enumerate(tasks):
                count_in(k, _one(task))  # a game interrupted is not counted
        else:
            # In seed order (imap, not imap_unordered): the games counted are always the first seeds.
            for k, one in enumerate(worker_map(_one, tasks, workers, ordered=True)):
                count_in(k, one)
    except KeyboardInterrupt:  # stop early and report the games played so far
        summary.interrupted = True
    return summary


# ---------------------------------------------------------------------------- the command


def register(sub: Any) -> None:
    """Add `rulecraft soak` to the command line."""
    p = sub.add_parser(
        "soak",
        help="play many seeded random games, checking every invariant at every decision",
        description="Conservation of cards, declared invariants, state and view round-trips and "
        "hidden information, after every decision of many seeded random games.",
    )
    _arguments(p)
    p.set_defaults(func=_command)


def _arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("games", nargs="*", help="bundled rulebooks or paths (default: every bundled one)")
    p.add_argument(
        "--games", dest="count", type=whole(1, 100_000_000), default=100, help="games per rulebook (default 100)"
    )
    p.add_argument("--seed", type=SEED, default=0, help="first seed (game k has seed + k)")
    p.add_argument(
        "--players",
        type=PLAYERS,
        nargs="*",
        help="player counts to cycle through, by seed (default: all allowed; the game of seed s has the (s mod n)th)",
    )
    p.add_argument(
        "--max-decisions",
        type=whole(1, 10_000_000),
        default=3000,
        help="stop a game after this many decisions (default 3000)",
    )
    p.add_argument(
        "--hidden-every",
        type=whole(0, 1_000_000),
        default=10,
        help="check hidden information every N decisions (0: never; default 10)",
    )
    p.add_argument("--out", default="soak-findings", help="folder for records of violations")
    p.add_argument(
        "--agents",
        help="comma-separated agents per seat (random, greedy, mcts; the last repeats) "
        "instead of the soak's own uniformly random answers",
    )
    p.add_argument(
        "--agent-option",
        action="append",
        default=[],
        metavar="AGENT.OPTION=VALUE",
        help="an option of an agent, repeatable, as in mcts.iterations=50 (docs/AGENTS.md)",
    )
    p.add_argument(
        "--workers",
        type=WORKERS,
        help="processes to use, at most one a game (the games, findings and figures do not depend on it); "
        "with --backend ray and no --address: the CPUs of the local Ray instance (default: all)",
    )
    add_backend(p)
    p.add_argument(
        "--json",
        metavar="FILE",
        help="append each rulebook's figures to FILE as a line of JSON "
        "(runs of other seed ranges can append to the same file; see --totals)",
    )
    p.add_argument(
        "--totals",
        metavar="FILE",
        help="print the totals of the runs appended to FILE by --json, "
        "by rulebook and settings, and refuse overlapping seed ranges; play nothing",
    )
    add_quiet(p)


def _stop(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt


def _command(args: argparse.Namespace) -> int:
    if args.totals:
        return _print_totals(Path(args.totals))
    names = args.games or bundled_names()
    agents: list[str] = []
    if args.agents or args.agent_option:
        agents = [a.strip() for a in (args.agents or "random").split(",") if a.strip()] or ["random"]
        try:
            agents = with_options(agents, args.agent_option)
        except GameError as exc:
            raise UsageError(f"--agents: {exc}") from None
        if any(parse_agent(spec)[0] == "human" for spec in agents):
            raise UsageError("--agents: a soak run plays by itself, with no human agent")
    for name in names:  # every rulebook and player count is checked before the first game
        rb = load(name)
        for count in args.players or ():
            players_for(rb, count)
    backend_for(args)
    if args.backend == "local" or args.workers:
        workers = args.workers = workers_for(args.workers or 1, args.count)
    else:
        workers = args.workers = 0  # a local Ray instance of all the machine's CPUs
    signal.signal(signal.SIGTERM, _stop)  # `kill` stops a long run early and still prints its figures
    failed = False
    for name in names:
        start = time.monotonic()
        with progress(args.count, "games", f"soak {Path(name).name}", args.quiet) as advance:
            summary = soak(
                name,
                args.count,
                args.seed,
                args.players,
                max_decisions=args.max_decisions,
                hidden_every=args.hidden_every,
                out_dir=Path(args.out),
                progress=lambda k, summary: advance(1),
                workers=workers,
                backend=args.backend,
                address=args.address,
                batch=args.batch,
                agents=agents,
            )
        seconds = time.monotonic() - start
        failed = failed or bool(summary.findings)
        print(
            f"soak {name}: {summary.games} games ({summary.finished} finished, {summary.unfinished} unfinished), "
            f"{summary.decisions} decisions, "
            f"{summary.hidden_checks} hidden-information checks, {len(summary.findings)} violations "
            f"in {seconds:.0f}s" + (" (interrupted)" if summary.interrupted else "")
        )
        where = (
            f"{workers} worker(s)"
            if args.backend == "local"
            else "on Ray" + (f" at {args.address}" if args.address else "")
        )
        print(f"  seeds {summary.seeds}, {where}")
        if args.json:
            _append_json(Path(args.json), name, summary, args, seconds)
        if summary.interrupted:
            break
    return 1 if failed else 0


def _append_json(path: Path, name: str, summary: SoakSummary, args: argparse.Namespace, seconds: float) -> None:
    """Append a run's figures as one line of JSON: the line is written whole or not at all."""
    rb = _RULEBOOKS.get(name) or load(name)
    counts = list(args.players or range(rb.program.min_players, rb.program.max_players + 1))
    line = {
        "rulebook": name,
        "players": counts,
        "max_decisions": args.max_decisions,
        "hidden_every": args.hidden_every,
        "first_seed": summary.first_seed,
        "games": summary.games,
        "finished": summary.finished,
        "unfinished": summary.unfinished,
        "decisions": summary.decisions,
        "hidden_checks": summary.hidden_checks,
        "violations": [attrs.asdict(f) for f in summary.findings],
        "interrupted": summary.interrupted,
        "workers": args.workers,
        "backend": args.backend,
        "seconds": round(seconds, 1),
    }
    if args.agents or args.agent_option:
        line["agents"] = [a.strip() for a in (args.agents or "random").split(",") if a.strip()] + args.agent_option
    with path.open("a", encoding="utf-8") as out:
        out.write(json.dumps(line, sort_keys=True) + "\n")


def totals(lines: Sequence[dict[str, Any]]) -> list[str]:
    """The totals of appended runs, one line per rulebook and settings; overlapping seed ranges are an error."""
    groups: dict[tuple[Any, ...], list[dict[str, Any]]] = {}
    for run in lines:
        key = (
            run["rulebook"],
            tuple(run["players"]),
            run["max_decisions"],
            run["hidden_every"],
            *run.get("agents", ()),  # runs of the soak's own random answers name none
        )
        groups.setdefault(key, []).append(run)
    out = []
    for (name, counts, max_decisions, hidden_every, *agents), runs in groups.items():
        ranges = sorted((r["first_seed"], r["first_seed"] + r["games"]) for r in runs if r["games"])
        for (a, b), (c, d) in itertools.pairwise(ranges):
            if c < b:
                raise RulecraftError(
                    f"{name}: the runs of seeds {a}-{b - 1} and {c}-{d - 1} overlap: their games would be counted twice"
                )
        spans: list[list[int]] = []
        for a, b in ranges:
            if spans and spans[-1][1] == a:
                spans[-1][1] = b
            else:
                spans.append([a, b])
        seeds = ", ".join(f"{a}-{b - 1}" for a, b in spans) or "none"
        figures = {k: sum(r[k] for r in runs) for k in ("games", "finished", "decisions", "hidden_checks")}
        # Runs written before games could end unfinished have no such count (they counted them finished).
        figures["unfinished"] = sum(r.get("unfinished", 0) for r in runs)
        found = sum(len(r["violations"]) for r in runs)
        by = f", agents {' '.join(agents)}" if agents else ""
        out.append(
            f"{name} (players {' '.join(map(str, counts))}, max {max_decisions} decisions, hidden every "
            f"{hidden_every}{by}): {len(runs)} runs, seeds {seeds}: {figures['games']} games "
            f"({figures['finished']} finished, {figures['unfinished']} unfinished), {figures['decisions']} decisions, "
            f"{figures['hidden_checks']} hidden-information checks, {found} violations"
        )
    return out


def _print_totals(path: Path) -> int:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise RulecraftError(f"{path}: {exc.strerror}") from None
    runs = []
    for number, line in enumerate(text.splitlines(), 1):  # each line is its own JSON text: count the lines here
        if not line.strip():
            continue
        try:
            runs.append(json.loads(line))
        except json.JSONDecodeError as exc:
            raise RulecraftError(f"{path}:{number}:{exc.colno}: not a line of JSON: {exc.msg}") from None
    try:
        print("\n".join(totals(runs)))
    except (KeyError, TypeError) as exc:
        raise RulecraftError(f"{path}: not the figures of a soak run ({exc})") from None
    return 0


__all__ = [
    "RoundTrip",
    "conservation",
    "hidden_leak",
    "hidden_positions",
    "permute_hidden",
    "round_trip",
    "shape_leak",
    "soak",
    "totals",
    "views_round_trip",
]
