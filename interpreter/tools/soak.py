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

    rulecraft soak tutorial.rules --games 10000     # or: python -m rulecraft.tools.soak ...
"""

from __future__ import annotations

import argparse
import itertools
import json
import multiprocessing
import random
import signal
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import attrs

from ..console import PLAYERS, SEED, WORKERS, add_quiet, players_for, progress, whole, workers_for
from ..errors import RulebookError, RulecraftError
from ..language.values import Player
from ..records import Answer, record_of, write_record
from ..render import where
from ..rulebook import Rulebook, bundled_names, load
from ..runtime.game import Decision, Event, Game, SecretRun
from ..runtime.information import ask_again, hidden_positions, permute_hidden
from ..runtime.machine import SECRET_TEXT
from .distributed import add_backend, backend_for

# ---------------------------------------------------------------------------- the checks


def conservation(game: Game) -> str | None:
    """Why the cards are not conserved, or None: each created card is in exactly one zone, once."""
    st = game.state
    cards = st.cards
    where: list[str | None] = [None] * len(cards)  # card id -> the zone found holding it
    decls = game.program.zones
    for key, ids in st.zones.items():
        decl = decls.get(key.split("[", 1)[0])
        if decl is None:
            return f"a zone {key} that the rulebook does not declare"
        card_type = decl.card_type
        for cid in ids:
            if not isinstance(cid, int) or not 0 <= cid < len(cards):
                return f"{key} holds a card #{cid} that was never created"
            if where[cid] is not None:
                return f"card #{cid} is in {where[cid]} and in {key}"
            where[cid] = key
            if card_type != "any" and type(cards[cid]).__name__ != card_type:
                return f"{key} (of {card_type}) holds card #{cid}, a {type(cards[cid]).__name__}"
    if None in where:
        missing = [i for i, key in enumerate(where) if key is None]
        return f"cards {', '.join(f'#{i}' for i in missing[:5])} are in no zone"
    if len(st.location) != len(cards):
        return f"{len(cards)} cards but {len(st.location)} locations"
    for cid, card in enumerate(cards):
        if card.id != cid:
            return f"the card at #{cid} has id {card.id}"
    if st.location != where:
        cid = next(i for i, (a, b) in enumerate(zip(st.location, where, strict=True)) if a != b)
        return f"card #{cid} is in {where[cid]}, but its location says {st.location[cid]}"
    return None


def round_trip(game: Game) -> str | None:
    """Why the state or a view does not survive cattrs and JSON, or None."""
    conv = game.rulebook.converter
    data = conv.unstructure(game.state)
    again = conv.structure(json.loads(json.dumps(data)))
    if again != game.state:
        return "the state changes through the converter and JSON"
    if conv.unstructure(again) != data:
        return "the state's data changes through the converter and JSON"
    return views_round_trip(game)


def views_round_trip(game: Game) -> str | None:
    """Why a player's view (or the full view) does not survive JSON, or None."""
    viewers = (None, *game.players)
    views = [game.view(who) for who in viewers]
    # One text for all the views (JSON is compositional); views are fresh trees, so no cycle to look for.
    back = json.loads(json.dumps(views, check_circular=False))
    if back != views:
        who = next(w for w, v, b in zip(viewers, views, back, strict=True) if v != b)
        return f"the view of {who or 'all'} changes through JSON"
    return None


class RoundTrip:
    """`round_trip` for every decision of one game, made cheap by remembering the cards it has checked.

    The state's converter (un)structures `cards` one card at a time (the codec's card functions)
    and JSON text is compositional, so the state survives exactly when each card survives on its
    own and the rest of the state (with no cards) survives. A card is a frozen object holding
    immutable values, and most cards do not change from one decision to the next: a card that
    survived is remembered by identity, with the card that came back, and checked again only if
    it is a new object or no longer equal to what came back. Views are built afresh every time.
    `soak_game` checks the first and the last state whole (`round_trip`), which also confirms
    that the converter (un)structures the cards one by one.
    """

    def __init__(self, game: Game):
        self.codec = game.rulebook.converter
        self.seen: dict[int, tuple[Any, Any]] = {}

    def __call__(self, game: Game) -> str | None:
        codec, seen, st = self.codec, self.seen, game.state
        for cid, card in enumerate(st.cards):
            known = seen.get(id(card))
            if known is not None and known[0] is card and card == known[1]:
                continue
            data = codec.unstructure_card(card)
            again = codec.structure_card(json.loads(json.dumps(data, check_circular=False)))
            if again != card:
                return f"the state changes through the converter and JSON (card #{cid})"
            if codec.unstructure_card(again) != data:
                return f"the state's data changes through the converter and JSON (card #{cid})"
            seen[id(card)] = (card, again)  # holding the card keeps its id from being reused
        rest = attrs.evolve(st, cards=[])
        data = codec.unstructure(rest)
        again = codec.structure(json.loads(json.dumps(data, check_circular=False)))
        if again != rest:
            return "the state changes through the converter and JSON"
        if codec.unstructure(again) != data:
            return "the state's data changes through the converter and JSON"
        return views_round_trip(game)


def hidden_leak(game: Game, rng: random.Random, tries: int = 3) -> str | None:
    """Whether the player deciding now could tell apart states that differ only in what they cannot see.

    Two states *differ only in what A cannot see* when one is the other with the contents of the
    cards at A's hidden positions (`hidden_positions`) exchanged among themselves. The promise:
    A's view, and the decision A is asked (prompt and legal answers, re-asked from the changed
    state at the same point of the rules), are the same in both. What A remembers from earlier
    (the trace) is not part of the comparison; nor are other players' `owner` variables.
    """
    decision = game.current_decision()
    if decision is None or decision.player is None:
        return None
    viewer = decision.player
    view = game.view(viewer)
    asked = (decision.prompt, decision.labels)
    for _ in range(tries):
        twin = permute_hidden(game, viewer, rng)
        ask_again(twin)
        again = twin.current_decision()
        twin_asked = (again.prompt, again.labels) if again is not None and again.player == viewer else None
        if twin_asked != asked:
            return (
                f"{viewer} is asked {asked} but, with the hidden cards exchanged, {twin_asked}: the decision "
                "depends on what the player cannot see"
            )
        if twin.view(viewer) != view:
            diff = _first_difference(view, twin.view(viewer))
            return f"{viewer}'s view changes when only hidden cards are exchanged: {diff}"
    return None


def shape_leak(game: Game, rng: random.Random) -> str | None:
    """Whether what a player is shown of the next step depends on what they cannot see.

    For each player V: the game, and a twin with the cards V cannot see exchanged
    (`permute_hidden`), answer the pending decision (the same option, or its counterpart among
    the exchanged cards: V cannot tell which was taken) and run on to the next decision. The lines of
    the trace V is shown of that step must match, line for line, up to the first pair of lines
    that both show V something of what happened (not only their hidden text) and that differ (a
    card or a `say` V sees tells V the games apart from then on, as it may). Any other difference
    (a line one shows and the other does not, a hidden line against another) is information in
    the shape of the trace: a decision taken at once because it had one option, a hidden step in
    a branch on a hidden card. If the decision was taken at once in the twin, the game may answer
    it any way: the check fails only if no answer shows V what the twin shows.
    """
    decision = game.current_decision()
    if decision is None:
        return None
    index = rng.randrange(len(decision.options))
    for viewer in game.players:
        twin = permute_hidden(game, viewer, rng, trace=True)
        twin_start = len(twin.events)
        try:
            same = twin.ask_again(go_on=True)
            again = twin.current_decision()
            answers = [index]
            if same and again is not None and again.prompt == decision.prompt:
                twin.apply(_counterpart(decision, again, index))
            else:  # taken at once in the twin: any answer here may be the one that matches it
                answers = list(range(len(decision.options)))[:12]
        except RulebookError:
            continue  # a failing answer is the soak's own finding, when it plays it
        told = _shown(twin, twin.events[twin_start:], viewer)
        problems = []
        for answer in answers:
            ours = game.clone(trace=True)
            start = len(ours.events)
            try:
                ours.apply(answer)
            except RulebookError:
                continue
            problems.append(_compare(viewer, _shown(ours, ours.events[start:], viewer), told))
        if problems and all(problems):
            return problems[0]
    return None


def _compare(viewer: Player, seen: list[tuple[str, bool]], told: list[tuple[str, bool]]) -> str | None:
    for (a, full_a), (b, full_b) in zip(seen, told, strict=False):
        if a == b:
            continue
        if full_a and full_b:
            break  # what the viewer sees in full tells the two games apart from here on
        return (
            f"what {viewer} is shown depends on what they cannot see: {a!r} but, with the hidden cards exchanged, {b!r}"
        )
    return None


def _counterpart(decision: Decision, again: Decision, index: int) -> int:
    """The twin's answer to option `index`: the same label if offered, else an option of the same
    kind (a card for a card, "done" for "done"), one only the twin offers first (the hidden
    cards were exchanged: a card of the one for a card of the other), else the one at that place."""
    chosen = decision.options[index]
    labels = again.labels
    if chosen.label in labels:
        return labels.index(chosen.label)
    kind = type(chosen.value)
    alike = [i for i, o in enumerate(again.options) if type(o.value) is kind]
    only = [i for i in alike if labels[i] not in decision.labels] or alike
    return only[index % len(only)] if only else index % len(labels)


def _shown(game: Game, events: list[Event], viewer: Player) -> list[tuple[str, bool]]:
    """The lines of the trace `viewer` is shown of `events` (a run of another player's secret
    block as one line, as render.trace_lines folds it), each with whether it shows V something
    of its cards or answer (in full, or the top card it leaves face up) or only its hidden text."""
    out: list[tuple[str, bool]] = []
    last: SecretRun | None = None
    for event in events:
        if not game.shown_to(event, viewer):
            continue
        text = game.visible_to(event, viewer)
        if event.secret is not None and text == SECRET_TEXT:
            if event.secret != last:
                last = event.secret
                out.append((f"choose  {SECRET_TEXT}  @ {where(event.secret.span)}", False))
            continue
        shows = text not in (event.hidden_text, "(hidden)")  # in full, or the top card it left face up
        out.append((f"{event.verb:<7} {event.actor} {text}  @ {where(event.span)}", shows))
    return out


def _first_difference(a: Any, b: Any, path: str = "") -> str:
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b), key=str):
            if a.get(k) != b.get(k):
                return _first_difference(a.get(k), b.get(k), f"{path}.{k}" if path else str(k))
    return f"{path}: {a!r} vs {b!r}"


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
) -> Finding | None:
    """Play one seeded random game, checking after every decision; the first violation is returned."""
    rng = random.Random(f"{name}:{seed}:{players}")
    game: Game | None = None
    step = 0

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


def _one(task: tuple[str, int, int, int, int, Path | None]) -> SoakSummary:
    """Soak the game of one seed: its own summary (run in a worker process, or in this one)."""
    name, seed, players, max_decisions, hidden_every, out_dir = task
    rb = _RULEBOOKS.get(name)
    if rb is None:
        rb = _RULEBOOKS[name] = load(name)
    one = SoakSummary(first_seed=seed)
    soak_game(rb, name, seed, players, one, max_decisions=max_decisions, hidden_every=hidden_every, out_dir=out_dir)
    return one


def _worker_init() -> None:
    """Workers leave Ctrl-C to the parent (which stops them) and die on the pool's SIGTERM."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


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
    tasks = [(name, seed + k, players_of(seed + k, counts), max_decisions, hidden_every, out_dir) for k in range(games)]

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
            with multiprocessing.Pool(workers, initializer=_worker_init) as pool:
                for k, one in enumerate(pool.imap(_one, tasks)):
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
    with path.open("a", encoding="utf-8") as out:
        out.write(json.dumps(line, sort_keys=True) + "\n")


def totals(lines: Sequence[dict[str, Any]]) -> list[str]:
    """The totals of appended runs, one line per rulebook and settings; overlapping seed ranges are an error."""
    groups: dict[tuple[Any, ...], list[dict[str, Any]]] = {}
    for run in lines:
        key = (run["rulebook"], tuple(run["players"]), run["max_decisions"], run["hidden_every"])
        groups.setdefault(key, []).append(run)
    out = []
    for (name, counts, max_decisions, hidden_every), runs in groups.items():
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
        out.append(
            f"{name} (players {' '.join(map(str, counts))}, max {max_decisions} decisions, hidden every "
            f"{hidden_every}): {len(runs)} runs, seeds {seeds}: {figures['games']} games "
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


def main(argv: Sequence[str] | None = None) -> int:
    """`python -m rulecraft.tools.soak ...` is `rulecraft soak ...` (the same errors and exit codes)."""
    from ..cli import main as cli_main

    return cli_main(["soak", *(sys.argv[1:] if argv is None else argv)])


if __name__ == "__main__":
    sys.exit(main())


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
