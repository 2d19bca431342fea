"""The `rulecraft` command line. Exit codes: 0 success, 1 a rulebook or input error, 2 bad usage."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from . import agents as agents_mod
from .errors import RulecraftError
from .records import read_record, replay, write_record
from .render import result_lines, trace_text, view_text
from .rulebook import bundled_names, load
from .runtime import Game
from .values import Player


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="rulecraft",
        description="Rules as data: check, play, trace and replay tabletop games written as rulebooks.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("check", help="parse and check rulebook files", description="Parse and check rulebooks; "
                       "errors print as file:line:col with the line and a caret.")
    p.add_argument("files", nargs="*", metavar="FILE", help="rulebook files or bundled names (default: all bundled)")

    p = sub.add_parser("play", help="play a whole game", description="Play a whole game with agents; prints the "
                       "scores and, last, 'winner: P2' or 'winners: P1 P3'.")
    p.add_argument("game", nargs="?", help=f"a bundled rulebook ({', '.join(bundled_names())}) or a path")
    p.add_argument("--players", type=int, help="number of players (default: the fewest the game allows)")
    p.add_argument("--seed", type=int, default=0, help="seed of the game's chance (default 0)")
    p.add_argument("--agents", default="random", help="comma-separated agents per seat: random, greedy, human")
    p.add_argument("--record", metavar="FILE", help="write a record of the game, kept valid after every answer")
    p.add_argument("--resume", metavar="FILE", help="continue the game saved in a record")
    p.add_argument("--trace", action="store_true", help="print the whole trace")

    p = sub.add_parser("replay", help="re-run a record and verify it")
    p.add_argument("record", help="a record file (JSON)")
    p.add_argument("--trace", action="store_true", help="print the trace")
    p.add_argument("--until", type=int, metavar="STEP", help="stop after this many answers")
    p.add_argument("--as", dest="as_player", metavar="P", help="show the game as this player sees it")
    p.add_argument("--rulebook", metavar="FILE", help="the rulebook to use instead of the one the record names")

    p = sub.add_parser("trace", help="print the resolution trace of a game")
    p.add_argument("game", help="a bundled rulebook or a path")
    p.add_argument("--scenario", metavar="FILE", help="a scenario file (state and scripted answers)")
    p.add_argument("--players", type=int)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--agents", default="random")

    _extend(sub)
    return parser


def _extend(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Commands that live in their own modules register here."""
    try:
        from . import authoring

        authoring.register(sub)
    except ImportError:
        pass


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) if hasattr(args, "func") else COMMANDS[args.command](args))
    except RulecraftError as exc:
        print(str(exc), file=sys.stderr)
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
            print(str(exc), file=sys.stderr)
            failed = True
            continue
        program = rb.program
        print(f"{name}: ok ({program.name}, {program.min_players}-{program.max_players} players, "
              f"{len(program.cards)} card types, {len(program.zones)} zones, {len(program.procs)} procedures, "
              f"{len(program.abilities)} abilities, {len(program.rules)} rules)")
    return 1 if failed else 0


def _new_game(args: argparse.Namespace) -> Game:
    if not args.game:
        raise RulecraftError(f"name a game to play: {', '.join(bundled_names())}, or a rulebook path")
    rb = load(args.game)
    return rb.new_game(players=args.players or rb.program.min_players, seed=args.seed)


def cmd_play(args: argparse.Namespace) -> int:
    if args.resume:
        record = read_record(args.resume)
        game = replay(record, trace=args.trace)
        game.auto_chance = record.seed is not None
        game._run()
        seed = record.seed or 0
        record_path = args.record or args.resume
    else:
        game = _new_game(args)
        seed = args.seed
        record_path = args.record
    agents = agents_mod.make_agents([a.strip() for a in args.agents.split(",") if a.strip()],
                                    game.state.players, seed)
    on_answer = (lambda g: write_record(g, record_path)) if record_path else None
    if record_path:
        write_record(game, record_path)
    try:
        agents_mod.play(game, agents, on_answer)
    finally:
        if record_path:
            write_record(game, record_path)
    if args.trace:
        sys.stdout.write(trace_text(game, {"players": game.state.players, "seed": seed}))
    else:
        print("\n".join(result_lines(game)))
    return 0


def cmd_replay(args: argparse.Namespace) -> int:
    record = read_record(args.record)
    rb = load(args.rulebook) if args.rulebook else None
    game = replay(record, rulebook=rb, until=args.until, trace=True)
    viewer = None
    if args.as_player:
        from .runtime import _as_player

        viewer = _as_player(args.as_player)
        if viewer is not None and viewer.index >= game.state.players:
            raise RulecraftError(f"there is no {args.as_player} in a game of {game.state.players}")
    if args.trace:
        sys.stdout.write(trace_text(game, {"players": record.players, "seed": record.seed,
                                           "answers": len(record.answers)}, viewer=viewer))
    elif viewer is not None:
        print(view_text(game, viewer))
    if game.over and not args.trace:
        print("\n".join(result_lines(game)))
    elif not game.over:
        d = game.current_decision()
        print(f"replayed {min(len(record.answers), args.until or len(record.answers))} answers; "
              f"the game waits on {d.by if d else '?'}: {d.prompt if d else ''}")
    return 0


def cmd_trace(args: argparse.Namespace) -> int:
    if args.scenario:
        from .scenario import run_scenario

        sys.stdout.write(run_scenario(args.game, Path(args.scenario)))
        return 0
    rb = load(args.game)
    game = rb.new_game(players=args.players or rb.program.min_players, seed=args.seed)
    agents = agents_mod.make_agents(args.agents.split(","), game.state.players, args.seed)
    agents_mod.play(game, agents)
    sys.stdout.write(trace_text(game, {"players": game.state.players, "seed": args.seed, "agents": args.agents}))
    return 0


COMMANDS = {"check": cmd_check, "play": cmd_play, "replay": cmd_replay, "trace": cmd_trace}


def _print_json(data: object) -> None:
    print(json.dumps(data, indent=1, sort_keys=True))


if __name__ == "__main__":
    sys.exit(main())


__all__ = ["Player", "main"]
