"""What three of the engine's promises cost a game, in instructions: each one taken out of the same games.

    python examples/benchmarks/promises.py GAME [--games N] [--players N] [--promises budget,depth,hidden,calls]
    python examples/benchmarks/promises.py GAME --check [--games N]    # the games unchanged, no valgrind

Issue 40 asks, where a target is missed, for the measured ceiling of the design. A rulebook's game keeps
promises that a hand-written reference does not: every expression is charged to a budget of work, so that
a runaway rule stops with an error at the rulebook line where the budget ran out (`budget`); every call of
a function counts the depth of calls, so that endless recursion stops the same way (`depth`); and a choice
among cards its chooser may not identify offers them by their places (`hidden`, `knowledge.offered_by_place`).
This script counts (as instructions.py does: callgrind, a second pass over seeded random games less the
first) the same games played with some of them taken out: the charges and the depth counts removed from the
generated code (each such line made a `pass`, each test of them `if False:`), the cards offered by their
labels; and, named alone (`calls`), the part of the budget charged for each call of a function. None of
them changes a game that keeps within its budgets and identifies what it is offered by its labels alone
(`--check` plays the games each way and compares their answers, steps and states), so the difference of
two counts is what the promise costs.

This is a measurement, never a way to play: without them a runaway rule hangs, and a choice tells a seat
what it may not see. Nothing here changes rulecraft: the script patches the process it counts.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import instructions  # noqa: E402 -- a sibling script, found by the line above

PROMISES = ("budget", "depth", "hidden")
# Part of one, taken out only when named (`--promises calls`): the budget's charge for each call of a function
# (its cost, a constant `k`, charged found in the memo or not), the rest of the budget kept.
PARTS = ("calls",)

# The lines of generated code each promise adds (compile/body.py, calls.py, blocks.py), by their text.
_CHARGE = re.compile(r"g\.work_left -= .+")
_DEPTH_TEST = re.compile(r"(t[0-9]+) = g\.fn_depth >= _FN_DEPTH_BUDGET")
_CALL_CHARGE = re.compile(r"g\.work_left -= k[0-9]+(  #.*)?")


def rewrite(source: str, without: frozenset[str]) -> tuple[str, int]:
    """Generated code without the promises named: each line that keeps one made a `pass` (a test of one,
    `if False:`), so that the lines keep their numbers. Also the count of lines rewritten."""
    out, changed, after_call = [], 0, False
    for line in source.split("\n"):
        text = line.strip()
        indent = line[: len(line) - len(line.lstrip())]
        new = line
        if "calls" in without:  # (a call's charge, and the test right after it)
            if _CALL_CHARGE.fullmatch(text):
                new = indent + "pass"
            elif after_call and text == "if g.work_left < 0:":
                new = indent + "if False:"
            after_call = new != line and new.endswith("pass")
        if "budget" in without:
            if _CHARGE.fullmatch(text):
                new = indent + "pass"
            elif text == "if g.work_left < 0:":
                new = indent + "if False:"
        if "depth" in without:
            if text in ("g.fn_depth += 1", "g.fn_depth -= 1"):
                new = indent + "pass"
            elif text in ("if g.fn_depth >= _FN_DEPTH_BUDGET:", "if len(frames) + d > _DEPTH_BUDGET:"):
                new = indent + "if False:"
            elif (found := _DEPTH_TEST.fullmatch(text)) is not None:
                new = f"{indent}{found.group(1)} = False"
        changed += new != line
        out.append(new)
    return "\n".join(out), changed


def take_out(without: frozenset[str]) -> dict[str, int]:
    """Patch this process so that the games it plays from now on keep none of the promises named (before
    the rulebook is loaded: its code is generated when first used). Gives what the patches did, counted as
    they do it: the lines of generated code rewritten, and the choices that offered cards by their labels
    (no line rewritten with `budget` or `depth` named: the generated code no longer has the form this script
    removes, and its figures would mean nothing)."""
    from rulecraft.runtime import codecache, compiled, information, knowledge

    done = {"lines": 0, "offers": 0}

    def rewritten(source: str) -> str:
        new, changed = rewrite(source, without)
        done["lines"] += changed
        return new

    if without & {"budget", "depth", "calls"}:
        init = compiled.Compiled.__init__

        def patched_init(self: Any, program: Any, generated: Any, *args: Any, **kwargs: Any) -> None:
            import attrs

            init(self, program, attrs.evolve(generated, source=rewritten(generated.source)), *args, **kwargs)

        compiled.Compiled.__init__ = patched_init  # type: ignore[method-assign]
        run_source = codecache._run_source

        def patched_run(source: str, namespace: dict[str, Any], owners: Any = None) -> None:
            run_source(rewritten(source), namespace, owners)

        codecache._run_source = patched_run
    if "hidden" in without:

        def by_labels(*_: Any) -> dict[int, str]:
            done["offers"] += 1
            return {}

        knowledge.offered_by_place = by_labels
        information.offered_by_place = by_labels  # type: ignore[attr-defined]
    return done


def played(game: str, players: int, games: int, without: frozenset[str]) -> tuple[dict[str, int], list[Any]]:
    """The seeded random games (as instructions.py plays them) played without the promises named, in a
    fresh process: what the patches did (`take_out`), and each game's answers' count, steps, winners and
    a digest of its state."""
    import json
    import subprocess

    code = (
        "import sys, hashlib, json\n"
        f"sys.path.insert(0, {str(HERE)!r})\n"
        "import promises\n"
        f"done = promises.take_out(frozenset({sorted(without)!r}))\n"
        "from rulecraft import rulebook\n"
        "from rulecraft.agents import RandomAgent, play\n"
        f"rb = rulebook.load({game!r})\n"
        "out = []\n"
        f"for seed in range({games}):\n"
        f"    g = rb.new_game(players={players}, seed=seed, trace=False)\n"
        f"    play(g, [RandomAgent(seed * 7919 + i * 104729 + 1) for i in range({players})], atomic=False)\n"
        "    state = hashlib.sha256(repr((g.state.zones, g.state.vars, g.state.location)).encode()).hexdigest()\n"
        "    out.append([len(g.answers), g.steps, g.state.winners, state])\n"
        "print(json.dumps({'games': out, 'done': done}))\n"
    )
    env = {**os.environ, "RULECRAFT_CACHE_DIR": "off", "PYTHONHASHSEED": "0"}
    run = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=False)
    if run.returncode != 0:
        raise RuntimeError(f"the games without {sorted(without)} failed:\n{run.stderr[-2000:]}")
    found = json.loads(run.stdout)
    if without & {"budget", "depth", "calls"} and found["done"]["lines"] == 0:
        raise RuntimeError("no line of generated code was rewritten: the script no longer matches the generator")
    return found["done"], [tuple(tuple(x) if isinstance(x, list) else x for x in g) for g in found["games"]]


def count(game: str, players: int, games: int, without: frozenset[str]) -> float:
    """Instructions a game (instructions.py's method) without the promises named."""
    prefix = (
        f"import sys; sys.path.insert(0, {str(HERE)!r}); import promises\n"
        f"promises.take_out(frozenset({sorted(without)!r}))\n"
    )
    counts = []
    for passes in (1, 2):
        cmd = instructions.command(sys.executable, game, players, games, passes, False)
        cmd[cmd.index("-c") + 1] = prefix + instructions.PLAY
        counts.append(instructions.count(cmd))
    return instructions.per_game(counts[0], counts[1], games)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("game", help="a bundled rulebook or a path")
    p.add_argument("--players", type=int, default=2)
    p.add_argument("--games", type=int, default=20, help="seeded random games per pass (default 20)")
    p.add_argument(
        "--promises", default=",".join(PROMISES), help="the promises to take out, one at a time and all together"
    )
    p.add_argument("--check", action="store_true", help="only play the games each way and compare them (no valgrind)")
    args = p.parse_args(argv)
    named = [x for x in args.promises.split(",") if x]
    unknown = sorted(set(named) - set(PROMISES) - set(PARTS))
    if unknown:
        known = ", ".join(PROMISES + PARTS)
        print(f"promises.py: no promise {', '.join(unknown)} (known: {known})", file=sys.stderr)
        return 2
    variants = [frozenset(), *(frozenset([x]) for x in named)]
    if len(named) > 1:
        variants.append(frozenset(named))
    try:
        if args.check:
            _, kept = played(args.game, args.players, args.games, frozenset())
            for without in variants[1:]:
                done, games = played(args.game, args.players, args.games, without)
                same = games == kept
                print(
                    f"without {' + '.join(sorted(without))}: {'the same games' if same else 'OTHER GAMES'}"
                    f" ({done['lines']} lines of generated code rewritten, {done['offers']} choices of cards"
                    " offered by their labels)"
                )
                if not same:
                    return 1
            return 0
        if shutil.which("valgrind") is None:
            print("promises.py needs valgrind (Debian's package valgrind)", file=sys.stderr)
            return 2
        with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:  # (each count a process of its own)
            figures = list(pool.map(lambda w: count(args.game, args.players, args.games, w), variants))
    except RuntimeError as error:
        print(f"promises.py: {error}", file=sys.stderr)
        return 1
    full = figures[0]
    print(f"{args.game} ({args.players} players, {args.games} seeded random games): instructions a game")
    for without, n in zip(variants, figures, strict=True):
        what = "every promise kept" if not without else "without " + " + ".join(sorted(without))
        share = "" if not without else f"  ({100 * (full - n) / full:.1f} % of the game)"
        print(f"  {what:<40} {n / 1e6:8.2f} M{share}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
