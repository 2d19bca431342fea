"""The `rulecraft` command line. Exit codes: 0 success, 1 a rulebook or input error, 2 bad usage."""

from __future__ import annotations

import argparse
import os
import secrets
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from . import agents as agents_mod
from .console import PLAYERS, SEED, UsageError, add_quiet, players_for, progress, whole
from .errors import GameError, RecordError, RulecraftError, render_diagnostic
from .inputs import clip
from .language.values import Player
from .outputs import lock_record, unlock_record
from .recording import RecordWriter
from .records import Answer, read_record, replay, roll, startable
from .render import result_lines, trace_text, view_text
from .rulebook import bundled_names, load
from .runtime.core import as_player
from .runtime.game import Decision, Game
from .terminal import printable


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="rulecraft",
        description="Rules as data: check, play, trace and replay tabletop games written as rulebooks.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser(
        "check",
        help="parse and check rulebook files",
        description="Parse and check rulebooks; errors print as file:line:col with the line and a caret.",
    )
    p.add_argument("files", nargs="*", metavar="FILE", help="rulebook files or bundled names (default: all bundled)")
    p.add_argument(
        "--strict",
        action="store_true",
        help="treat warnings (declarations nothing reaches) as errors: exit 1 if there is any",
    )

    p = sub.add_parser(
        "play",
        help="play a whole game",
        description="Play a whole game with agents; prints the scores and, last, 'winner: P2' or 'winners: P1 P3' "
        "(a cooperative game: 'together: won, score 17').",
    )
    p.add_argument("game", nargs="?", help=f"a bundled rulebook ({', '.join(bundled_names())}) or a path")
    p.add_argument("--players", type=PLAYERS, help="number of players (default: the fewest the game allows)")
    p.add_argument(
        "--seed",
        type=SEED,
        help="seed of the game's chance, for tests and reproducible games (default: 128 random bits "
        "from the operating system, kept in the record; a small seed lets a player work out the deck)",
    )
    p.add_argument(
        "--agents",
        help="comma-separated agents per seat: random, greedy, mcts, human; the last repeats "
        "(default random; with --resume, the record's)",
    )
    _agent_option_argument(p)
    p.add_argument(
        "--record",
        metavar="FILE",
        help="write a record of the game, kept valid after every answer (an existing file is never "
        "replaced, unless it is a record of this game and --force is given)",
    )
    p.add_argument("--force", action="store_true", help="with --record: replace an existing record of this game")
    p.add_argument(
        "--resume",
        metavar="FILE",
        help="continue the game saved in a record (and keep recording into it, or into --record)",
    )
    p.add_argument(
        "--table",
        action="store_true",
        help="a game on a real table: no seed; each chance outcome "
        "(a card drawn) is asked at the terminal, and recorded as what was revealed",
    )
    p.add_argument(
        "--ignore-hash",
        action="store_true",
        help="with --resume: go on even if the rulebook's text has changed since the record was made",
    )
    p.add_argument("--trace", action="store_true", help="print the whole trace")

    p = sub.add_parser(
        "replay",
        help="re-run a record and verify it",
        description="Re-run a record and check "
        "every answer against the rules. Exit 0 with the result (or where the game waits); exit 1 "
        "with the step where the record and the rules disagree.",
    )
    p.add_argument("record", help="a record file (JSON)")
    p.add_argument("--trace", action="store_true", help="print the trace")
    p.add_argument("--until", type=whole(0, 10**9), metavar="STEP", help="stop after this many answers")
    p.add_argument("--as", dest="as_player", metavar="P", help="show the game as this player sees it")
    p.add_argument("--rulebook", metavar="FILE", help="the rulebook to use instead of the one the record names")
    p.add_argument("--ignore-hash", action="store_true", help="replay even if the rulebook's text has changed")
    add_quiet(p)

    p = sub.add_parser(
        "trace",
        help="print the resolution trace of a game",
        description="Play a seeded game with agents (or run a scenario) and print its trace: one line "
        "per event, each with the rulebook line that caused it.",
    )
    p.add_argument("game", nargs="?", help="a bundled rulebook or a path (with --scenario: default, its 'game' line)")
    p.add_argument("--scenario", metavar="FILE", help="a scenario file (state and scripted answers)")
    p.add_argument("--players", type=PLAYERS, help="number of players (default: the fewest the game allows)")
    p.add_argument("--seed", type=SEED, default=0, help="seed of the game's chance and of the agents (default 0)")
    p.add_argument(
        "--agents", default="random", help="comma-separated agents per seat: random, greedy, mcts (default random)"
    )
    _agent_option_argument(p)

    _extend(sub)
    return parser


def _agent_option_argument(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--agent-option",
        action="append",
        default=[],
        metavar="AGENT.OPTION=VALUE",
        help="an option of the seats played by an agent, repeatable (docs/AGENTS.md): "
        "mcts.iterations=N, mcts.decisions=N (default 600; 1600 with others choosing in secret blocks; "
        "6000 without a heuristic), "
        "mcts.seconds=X (not reproducible), mcts.depth=N (default 4; 2 with others choosing in secret blocks), "
        "mcts.playout=random|greedy, "
        "mcts.c=X (default 0.3; 0.7 with 3 players or more), mcts.cut=decisions|turn, mcts.judge=lead|gain "
        "(defaults by players: 2 decisions, lead; 3 or more turn, gain; alone decisions, gain); "
        "greedy.lookahead=N (default 0), greedy.samples=N (default 1)",
    )


def _extend(sub: argparse._SubParsersAction) -> None:
    """Commands that live in their own modules register here."""
    from .tools import bench, generated

    bench.register(sub)
    generated.register(sub)
    from . import authoring

    authoring.register(sub)
    from .tools import fuzz, soak

    fuzz.register(sub)
    soak.register(sub)
    from . import viewer
    from .editor import lsp
    from .tools import coverage

    viewer.register(sub)
    lsp.register(sub)
    coverage.register(sub)
    from . import serve

    serve.register(sub)


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("rulecraft")
    except PackageNotFoundError:  # run from a source tree that was never installed
        return "(not installed)"


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; return its exit code (argparse's exit for bad usage and --help is returned too)."""
    parser = _parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # bad usage (2), or --help/--version (0): argparse has printed why
        return exc.code if isinstance(exc.code, int) else 1
    try:
        return int(args.func(args) if hasattr(args, "func") else COMMANDS[args.command](args))
    except UsageError as exc:
        print(printable(f"{parser.prog} {args.command}: error: {exc}", newlines=True), file=sys.stderr)
        return 2
    except RulecraftError as exc:  # a message may quote the rulebook's text (a `fail`): escaped
        print(printable(str(exc), newlines=True), file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


def cmd_check(args: argparse.Namespace) -> int:
    files = args.files or bundled_names()
    failed = False
    for name in files:
        try:
            rb = load(name)
        except RulecraftError as exc:
            print(printable(str(exc), newlines=True), file=sys.stderr)
            failed = True
            continue
        program = rb.program
        for warning in program.warnings:
            print(render_diagnostic(warning, program.sources.get(warning.span.file)), file=sys.stderr)
        if args.strict and program.warnings:
            print(f"{name}: {len(program.warnings)} warning(s), refused by --strict", file=sys.stderr)
            failed = True
            continue
        print(
            f"{name}: ok ({program.name}, {program.min_players}-{program.max_players} players, "
            f"{len(program.cards)} card types, {len(program.zones)} zones, {len(program.procs)} procedures, "
            f"{len(program.abilities)} abilities, {len(program.rules)} rules)"
        )
    return 1 if failed else 0


def _agent_names(text: str | None, players: int, options: Sequence[str] = ()) -> list[str]:
    """One agent per seat, as spelt with its options (the last name given repeats for the remaining seats)."""
    names = [a.strip() for a in (text or "random").split(",") if a.strip()] or ["random"]
    for name in names:
        try:
            agents_mod.parse_agent(name)
        except GameError as exc:
            raise UsageError(f"--agents: {exc}") from None
    seats = [names[min(i, len(names) - 1)] for i in range(players)]
    try:
        return agents_mod.with_options(seats, list(options))
    except GameError as exc:
        raise UsageError(f"--agent-option: {exc}") from None


def _rulebook_file(game: str, record: str) -> str | None:
    """How a record names a rulebook that is a file: its path relative to the record's folder."""
    if game in bundled_names():
        return None
    return Path(os.path.relpath(Path(game).resolve(), Path(record).resolve().parent)).as_posix()


def cmd_play(args: argparse.Namespace) -> int:
    table = agents_mod.HumanAgent() if args.table else None
    if args.resume:
        if args.game or args.players is not None or args.seed is not None:
            raise UsageError(
                "--resume goes on with the record's game: its rulebook, players and seed come "
                "from the record (give only --agents, --record, --trace, --table)"
            )
        out = Path(args.record or args.resume)
        lock = lock_record(out)  # before the record is read: no other game writes it meanwhile
        try:
            game, agents, writer = _resume(args, lock)
        except BaseException:
            unlock_record(out, lock)
            raise
        if game.seed is None and writer.template.options.get("table"):
            table = table or agents_mod.HumanAgent()
    else:
        if not args.game:
            raise UsageError(f"name a game to play: {', '.join(bundled_names())}, or a rulebook path")
        if args.table and args.seed is not None:
            raise UsageError("--table is a game with no seed: every chance outcome is typed in")
        rb = load(args.game)
        players = players_for(rb, args.players)
        names = _agent_names(args.agents, players, args.agent_option)
        if args.record:
            _may_write_record(Path(args.record), rb.name, args.force)
        # Without --seed the seed is a secret: 128 bits from the operating system (a small seed can be
        # found by trying seeds against a player's view, and with it every hidden card). The agents get
        # their own random seed, so that their answers, which the other players see, do not reveal it.
        seed = args.seed if args.seed is not None else secrets.randbits(128)
        agent_seed = args.seed if args.seed is not None else secrets.randbits(64)
        game = rb.new_game(players=players, seed=None if args.table else seed)
        agents = agents_mod.make_agents(names, players, agent_seed)
        writer = None
        if args.record:
            options = {"agents": names, "agent_seed": agent_seed, **({"table": True} if args.table else {})}
            writer = RecordWriter(
                args.record, game, rulebook_file=_rulebook_file(args.game, args.record), options=options
            )
    for agent in agents:
        if isinstance(agent, agents_mod.HumanAgent):
            agent.record = str(writer.path) if writer is not None else None
    try:
        agents_mod.play(game, agents, writer.update if writer else None, table=table)
    except agents_mod.Quit:
        if writer is None:
            print("quit: the game is left unfinished (it was not recorded: play with --record FILE to keep it)")
        else:
            writer.close(game)
            print(
                f"quit: the game is saved in {writer.path} ({len(game.answers)} answers so far); "
                f"go on with: rulecraft play --resume {writer.path}"
            )
        return 0
    finally:
        if writer is not None:
            writer.close(game)
    if args.trace:
        # The same header as `replay --trace`, so the two traces of one game are equal byte for byte.
        sys.stdout.write(
            trace_text(
                game, {"players": game.state.players, "seed": _seed_text(game.seed), "answers": len(game.answers)}
            )
        )
    else:
        print(_summary(game, writer.path if writer is not None else None))
        print("\n".join(result_lines(game)))
    return 0


def _summary(game: Any, record: Path | None) -> str:
    """What a game was, in two lines before its result: who answered how often, and how to see it."""
    by: dict[str, int] = {}
    for who, _ in game.answers:
        by[who] = by.get(who, 0) + 1
    seats = ", ".join(f"{p} {by.get(str(p), 0)}" for p in game.players)
    chance = f", {by['table']} draws of the table" if by.get("table") else ""
    first = f"{sum(n for who, n in by.items() if who != 'table')} decisions ({seats}){chance}"
    if record is None:
        return f"{first}\nto step through a game in a browser: add --record game.json, then rulecraft view game.json"
    return f"{first}\nrecorded in {record}: rulecraft view {record} steps through it in a browser"


def _may_write_record(path: Path, rulebook: str, force: bool) -> None:
    """Refuse to replace a file that is not a record of this game, or a record without --force."""
    if not path.exists() and not path.is_symlink():
        return
    try:
        old = read_record(path)
    except RecordError:
        raise UsageError(
            f"--record {path}: the file exists and is not a record; it is left as it is (choose another name)"
        ) from None
    if old.rulebook.name != rulebook:
        raise UsageError(
            f"--record {path}: the file is a record of another game ({old.rulebook.name}); it is left as it is"
        )
    if not force:
        raise UsageError(f"--record {path}: a record of this game is there already; give --force to replace it")


def _seed_text(seed: int | None) -> str:
    return "none (a table record)" if seed is None else str(seed)


def _resume(args: argparse.Namespace, lock: int) -> tuple[Game, list[agents_mod.Agent], RecordWriter]:
    """Replay a record, bring the agents' own generators to where they were, and continue the game.

    Agents are seeded from the record's `agent_seed` and shown every recorded decision of their
    seat again (their answer is discarded, the recorded one applied): an agent draws from its own
    generator the same way whatever it decides, so afterwards each one is exactly where it was in
    the uninterrupted game, and the resumed game ends as that game would have.
    """
    path = Path(args.resume)
    record = read_record(path)
    try:  # every field of the record is checked before a seat's agent is built
        rulebook = startable(record, path.parent)
    except RecordError as exc:
        raise RecordError(f"{path}: {exc}") from None
    recorded = record.options.get("agents")
    if isinstance(recorded, list) and all(isinstance(a, str) for a in recorded):
        recorded = ",".join(recorded)
    elif recorded is not None and not isinstance(recorded, str):
        raise RulecraftError(f"{path}: options.agents is not a list of agent names")
    names = _agent_names(args.agents or recorded or None, record.players, args.agent_option)
    agent_seed = record.options.get("agent_seed", record.seed or 0)
    if not isinstance(agent_seed, int):
        raise RulecraftError(f"{path}: options.agent_seed is not a whole number")
    agents = agents_mod.make_agents(names, record.players, agent_seed)

    def catch_up(game: Game, decision: Decision, answer: Answer) -> None:
        # The agent is shown the game itself, as in a live game (which it does not change); a clone
        # of it at every step would cost the length of the game each time (a 120k-answer record: a minute).
        if decision.player is not None and not isinstance(agents[decision.player.index], agents_mod.HumanAgent):
            replaying, game.auto_chance = game.auto_chance, game.seed is not None
            try:
                agents[decision.player.index].choose(game, decision)
            finally:
                game.auto_chance = replaying

    try:
        game = replay(record, rulebook, base=path.parent, on_step=catch_up, check_hash=not args.ignore_hash)
    except RecordError as exc:
        raise RecordError(f"{path}: {exc}") from None
    if args.ignore_hash and record.rulebook.hash not in (None, rulebook.digest):
        print(
            f"{path}: note: the rulebook's text has changed since the record was made "
            f"(hash {clip(str(record.rulebook.hash))}); "
            f"the game goes on with this text, and the record now has its hash, {rulebook.digest} (--ignore-hash)",
            file=sys.stderr,
        )
    game.auto_chance = game.seed is not None
    pending = game.current_decision()
    if pending is not None and pending.player is None and game.seed is not None:
        roll(game)
    if args.table and game.seed is not None:
        raise RulecraftError(f"{path}: --table goes on a game with no seed; this record has seed {game.seed}")
    out = args.record or args.resume
    if args.record and Path(args.record).resolve() != path.resolve():
        _may_write_record(Path(args.record), game.rulebook.name, args.force)
    rulebook_file = None
    if record.rulebook.file is not None:
        rulebook_file = _rulebook_file(str(path.parent / record.rulebook.file), out)
    options = {**record.options, "agents": names, "agent_seed": agent_seed}
    return (
        game,
        agents,
        RecordWriter(out, game, rulebook_file=rulebook_file, options=options, resumed=record, lock=lock),
    )


def cmd_replay(args: argparse.Namespace) -> int:
    record = read_record(args.record)
    rb = load(args.rulebook) if args.rulebook else None
    viewer = None
    if args.as_player:
        try:
            viewer = as_player(args.as_player)
        except GameError as exc:
            raise UsageError(f"--as {args.as_player}: {exc}") from None
        if viewer is not None and viewer.index >= record.players:
            raise UsageError(f"--as {args.as_player}: there is no {args.as_player} in a game of {record.players}")
    total = len(record.answers) if args.until is None else min(args.until, len(record.answers))
    try:
        with progress(total, "answers", "replay", args.quiet) as advance:
            game = replay(
                record,
                rulebook=rb,
                until=args.until,
                trace=True,
                check_hash=not args.ignore_hash,
                base=Path(args.record).parent,
                on_step=lambda game, decision, answer: advance(1),
            )
    except RecordError as exc:
        raise RecordError(f"{args.record}: {exc}") from None
    done = min(len(record.answers), len(record.answers) if args.until is None else args.until)
    if args.trace:
        # A player's view leaves out the seed (with it, the order of every deck could be worked
        # out) and the number of answers (it counts the other players' secret steps).
        header: dict[str, Any] = (
            {"players": record.players}
            if viewer
            else {"players": record.players, "seed": _seed_text(record.seed), "answers": done}
        )
        if viewer is not None:
            header["as"] = str(viewer)
        sys.stdout.write(trace_text(game, header, viewer=viewer))
    elif viewer is not None:
        print(view_text(game, viewer))
    # Every answer was checked against the options the rules offered at its step (a divergence
    # stops the replay above with the step that diverged): say so.
    verified = f"replayed and verified {done} answers"
    if game.over:
        if not args.trace:
            print(verified)
            print("\n".join(result_lines(game)))
        return 0
    pending = game.current_decision()
    if pending is None:
        print(verified)
    elif viewer is None or pending.player == viewer:
        print(f"{verified}; the game waits on {pending.by}: {printable(pending.prompt)}")
    else:
        print(f"{verified}; the game waits on {pending.by}")
    return 0


def cmd_trace(args: argparse.Namespace) -> int:
    if args.scenario:
        from .authoring.scenario import ScenarioFailure, run_scenario

        try:
            sys.stdout.write(run_scenario(args.game, Path(args.scenario)))
        except ScenarioFailure as exc:
            sys.stdout.write(exc.trace)  # the trace up to the failing line, then the error on stderr
            sys.stdout.flush()
            raise
        return 0
    if not args.game:
        raise UsageError(f"name a game to trace: {', '.join(bundled_names())}, or a rulebook path")
    rb = load(args.game)
    game = rb.new_game(players=players_for(rb, args.players), seed=args.seed)
    names = _agent_names(args.agents, game.state.players, args.agent_option)
    agents = agents_mod.make_agents(names, game.state.players, args.seed)
    agents_mod.play(game, agents)
    sys.stdout.write(trace_text(game, {"players": game.state.players, "seed": args.seed, "agents": args.agents}))
    return 0


COMMANDS = {"check": cmd_check, "play": cmd_play, "replay": cmd_replay, "trace": cmd_trace}


if __name__ == "__main__":
    sys.exit(main())


__all__ = ["Player", "main"]
