"""The anchor games side by side in calls: how many Python functions and C functions a game calls on each side.

    pip install -e '.[bench]'        # open_spiel and pyminion (the reference engines)
    python examples/benchmarks/calls.py [--games N] [--top K] [--json] [--bytecodes | --purposes | --modules] [GAME ...]

`compare_instructions.py` counts instructions; this script counts what the instructions are made of
at Python's level: the calls of Python functions (each a frame pushed, its locals set up, its
bytecodes run by the interpreter's loop) and of C functions (built-ins and methods), per game, over
the seeded games of `compare.py` (seeds 0 .. N-1, its policies), counted with `sys.setprofile`. A
Python call and the bytecodes around it are the dear part of an instruction count: under valgrind's
cachegrind (`--cache-sim=yes --branch-sim=yes`) half of a rulecraft game's instructions are the
interpreter's loop, which takes most of its mispredicted branches and about half of its data misses
(examples/benchmarks/RESULTS.md, "Why time moves less than instructions"). So a change that removes
calls moves the clock more than one that removes as many instructions in C: count both.

With `--bytecodes` it counts, instead, the bytecodes each Python function runs a game (`sys.settrace`'s
opcode events): where the interpreter's loop spends its work, function by function, which a profile
of time overstates for a function called often (its timer's cost on every call) and callgrind cannot
name (its functions are the interpreter's own). A bytecode is not a fixed cost: one that calls,
allocates or hashes costs more than a comparison, so a function's share of bytecodes is not its share
of instructions; a change is judged by `compare_instructions.py` or `instructions.py`.

With `--purposes` (rulecraft's side only: the references have no generated code) it counts the bytecodes
the rulebook's generated code runs a game line by line, and sums them by what each line is for (`PURPOSES`,
read from the line's text: the first pattern that matches names it): the rules' own work, their loops and
card fields, and the engine's promises and machinery around them (the budget of work, the depth of calls,
the memo of functions' values, the tests of a value's kind, the frames). It says how much of the generated
code a change of the generator or of a promise could reach.

With `--modules` (rulecraft's side only) it measures time instead of counting: the CPU time of a game by the
module whose code runs, sampled (a profiling timer, `signal.ITIMER_PROF`, fires every millisecond of the
process's CPU time, which the kernel rounds up to its tick, some 4 ms here; each firing is charged to the
module of the Python code running then, the rulebook's generated code as one, a C function to the module
that called it). Where the bytecodes say what the interpreter's loop does, this says where the time goes,
each call's and allocation's cost included; it is a sample, so a share moves by a per cent or so between
runs (some 2,000 samples for 400 Guildhall games).

The other counts are exact (no timing is involved): two runs give the same figures. As
`compare_instructions.py` counts a second pass over the games, so does this script: the first pass
(imports, the code made when a block is first reached, the caches the games fill) is left out.
"""

from __future__ import annotations

import argparse
import json
import linecache
import re
import signal
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from compare import ANCHORS, available, make_runner  # noqa: E402 -- the anchors are compare.py's

# Games counted per side by default: the short games vary in length, the long ones are long enough.
GAMES = {"tic_tac_toe": 200, "kuhn_poker": 200, "dominion_first_game": 4, "guildhall": 4}
# Games sampled by default (`--modules`): some 2,000 samples of the clock's 4 ms each, some 8 s a game's kind.
SAMPLED_GAMES = {"tic_tac_toe": 60_000, "kuhn_poker": 200_000, "dominion_first_game": 3_000, "guildhall": 400}


def _second_pass(game: str, side: str, games: int, listen: Callable[[], None], stop: Callable[[], None]) -> None:
    """Play `games` seeded games of an anchor on one side twice, heard (`listen` ... `stop`) the second time
    only: the first pass's imports, code made on first use and caches filled fall out of the count."""
    run = make_runner(game, side)
    for seed in range(games):
        run(seed)
    listen()
    try:
        for seed in range(games):
            run(seed)
    finally:
        stop()


def count_calls(game: str, side: str, games: int) -> tuple[Counter[tuple[str, str]], int]:
    """The calls made by `games` seeded games of an anchor on one side (`rulecraft` or `reference`),
    each as (file name or "C", function name) -> count; and the number of games."""
    counts: Counter[tuple[str, str]] = Counter()

    def hear(frame: Any, event: str, arg: Any) -> None:
        if event == "call":
            counts[(Path(frame.f_code.co_filename).name, frame.f_code.co_name)] += 1
        elif event == "c_call":
            counts[("C", getattr(arg, "__qualname__", repr(arg)))] += 1

    _second_pass(game, side, games, lambda: sys.setprofile(hear), lambda: sys.setprofile(None))
    return counts, games


def _count_opcodes(
    game: str, side: str, games: int, key: Callable[[Any], Any], by_line: bool = False
) -> tuple[Counter[Any], int]:
    """The bytecodes `games` seeded games of an anchor run on one side (`sys.settrace`'s opcode events, the
    second pass: `_second_pass`), each counted under its frame's `key(frame)`, found once a frame (None: not
    counted apart), and with `by_line` under (that key, the line); and the number of all of them."""
    counts: Counter[Any] = Counter()
    every = [0]

    def enter(frame: Any, event: str, arg: Any) -> Any:
        frame.f_trace_opcodes, frame.f_trace_lines = True, False
        k = key(frame)

        def step(frame: Any, event: str, arg: Any) -> Any:
            if event == "opcode":
                every[0] += 1
                if k is not None:
                    counts[(k, frame.f_lineno or 0) if by_line else k] += 1
            return step

        return step

    _second_pass(game, side, games, lambda: sys.settrace(enter), lambda: sys.settrace(None))
    return counts, every[0]


def count_bytecodes(game: str, side: str, games: int) -> tuple[Counter[tuple[str, str]], int]:
    """The bytecodes run by `games` seeded games of an anchor on one side, by the Python function that ran
    them, each as (file name, function name) -> count; and the number of games (see the module)."""
    counts, _ = _count_opcodes(
        game, side, games, lambda frame: (Path(frame.f_code.co_filename).name, frame.f_code.co_name)
    )
    return counts, games


# What a line of generated code is for, read from its text: the first pattern that matches names it (a line
# that reads a local and tests it against the memo's marker `_M` is a read of a local, a seat's test that makes a
# zone's reference a test of kind). What no pattern names is the rules' own work.
PURPOSES: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (name, re.compile(pattern))
    for name, pattern in (
        ("budget of work", r"work_left|g\.charge\("),
        ("depth of calls", r"fn_depth|_FN_DEPTH_BUDGET|inline_depth|_DEPTH_BUDGET|_INLINE_DEPTH"),
        ("locals, zones and variables read", r"env\.get|global_value|zones\.get|state\.vars|_zone_key|as_list"),
        (
            "memo of functions' values",
            r"g\.memo|memo\[|memo = |_EMPTY_MEMO|_MEMO_BUDGET|memo\.clear|^slot = |^key = |is _M\b|is not _M"
            r"|^except TypeError|^pass$|= _M$|k\d+\.get\(a\d+, 0\)|\(\) if t\d+ else|v\d+ if t\d+ else",
        ),
        (
            "kind and range tests, fall-backs",
            r"__class__|_INTERNED|_INT_BUDGET|_LIST_BUDGET|_TEXT_BUDGET|_binary\(|_compare\(|_same\(|_NO_ATTRIBUTE"
            r"|_VALUE_ERRORS|_query_error|_field\(|None in \(",
        ),
        ("card fields and labels", r"\]\.\w+$|\.id\]\.|card_labels|_card_refs"),
        ("frames and steps", r"frames|g\.pending|state\.over|g\.steps|_ENDED|g\.push|^depth = |r is None|^at = "),
        ("loops and branches", r"^for |^while |\.append\(|^try:$|^if t\d+:$|^if not t\d+:$|^else:$|^elif "),
        ("returns", r"^return\b"),
    )
)
RULES_OWN = "the rules' own work"
ENTRIES = "functions' entries"


def purpose_of(line: str) -> str:
    """What a line of generated code is for (`PURPOSES`; the rules' own work where no pattern matches)."""
    text = line.strip()
    if not text:  # (a bytecode run before a function's first line: its entry)
        return ENTRIES
    for name, pattern in PURPOSES:
        if pattern.search(text):
            return name
    return RULES_OWN


def count_generated_lines(game: str, games: int) -> tuple[Counter[tuple[str, int]], int, int]:
    """The bytecodes `games` seeded rulecraft games of an anchor run, each line of generated code's apart
    ((module, line) -> count), the number of all the bytecodes they run, and the number of games."""

    def generated(frame: Any) -> str | None:
        module = frame.f_code.co_filename
        return module if module.startswith("<generated") else None

    lines, every = _count_opcodes(game, "rulecraft", games, generated, by_line=True)
    return lines, every, games


def purpose_summary(lines: Counter[tuple[str, int]], every: int, games: int, top: int) -> dict[str, Any]:
    """Bytecodes a game, the generated code's, and theirs by purpose (a game each), the most run first; for
    each purpose its `top` lines, their variables' numbers blanked so that alike lines count as one."""
    by_purpose: Counter[str] = Counter()
    texts: dict[str, Counter[str]] = {}
    for (module, number), n in lines.items():
        text = linecache.getline(module, number).strip()
        purpose = purpose_of(text)
        by_purpose[purpose] += n
        texts.setdefault(purpose, Counter())[re.sub(r"\b([tvak])\d+\b", r"\1#", text)] += n
    generated = sum(lines.values())
    return {
        "games": games,
        "bytecodes": every / games,
        "generated": generated / games,
        "purposes": [
            [purpose, n / games, [[text, m / games] for text, m in texts[purpose].most_common(top)]]
            for purpose, n in by_purpose.most_common()
        ],
    }


GENERATED = "the rulebook's generated code"


def module_of(filename: str) -> str:
    """The module a code object's file name belongs to, for `sample_modules`: the rulebook's generated code as
    one (every module and block of it), attrs' generated methods as attrs, else the file's name."""
    if filename.startswith("<generated"):
        return GENERATED
    if filename.startswith("<attrs generated"):
        return "attrs"
    return Path(filename).name


def sample_modules(game: str, games: int, every: float = 0.001) -> tuple[Counter[str], int]:
    """CPU-time samples of `games` seeded rulecraft games of an anchor (the second pass), each charged to the
    module whose Python code was running when the profiling timer fired (`module_of`), and the number of
    games. The timer fires every `every` seconds of the process's CPU time, rounded up to the kernel's tick."""
    counts: Counter[str] = Counter()

    def hear(signum: int, frame: Any) -> None:
        if frame is not None:
            counts[module_of(frame.f_code.co_filename)] += 1

    before = signal.signal(signal.SIGPROF, hear)
    try:
        _second_pass(
            game,
            "rulecraft",
            games,
            lambda: signal.setitimer(signal.ITIMER_PROF, every, every),
            lambda: signal.setitimer(signal.ITIMER_PROF, 0, 0),
        )
    finally:
        signal.signal(signal.SIGPROF, before)
    return counts, games


def module_summary(counts: Counter[str], games: int, top: int) -> dict[str, Any]:
    """The samples taken, and the `top` modules' shares of them (per cent), the largest first."""
    total = sum(counts.values())
    return {
        "games": games,
        "samples": total,
        "modules": [[module, 100 * n / total] for module, n in counts.most_common(top)] if total else [],
    }


def bytecode_summary(counts: Counter[tuple[str, str]], games: int, top: int) -> dict[str, Any]:
    """Bytecodes a game, and the `top` functions that run most of them, a game each."""
    return {
        "games": games,
        "bytecodes": sum(counts.values()) / games,
        "most_run": [[where, name, n / games] for (where, name), n in counts.most_common(top)],
    }


def summary(counts: Counter[tuple[str, str]], games: int, top: int) -> dict[str, Any]:
    """Calls a game, Python and C, and the `top` functions called most, a game each."""
    python = sum(n for (where, _), n in counts.items() if where != "C")
    c = sum(n for (where, _), n in counts.items() if where == "C")
    return {
        "games": games,
        "python_calls": python / games,
        "c_calls": c / games,
        "most_called": [[where, name, n / games] for (where, name), n in counts.most_common(top)],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("games", nargs="*", default=list(ANCHORS), help=f"anchors (default: {', '.join(ANCHORS)})")
    parser.add_argument("--games", dest="count", type=int, help="seeded games per side (default: per anchor)")
    parser.add_argument("--top", type=int, default=12, help="functions listed per side (default 12)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--bytecodes", action="store_true", help="count each function's bytecodes, not the calls")
    parser.add_argument(
        "--purposes", action="store_true", help="the generated code's bytecodes by what each line is for (rulecraft)"
    )
    parser.add_argument(
        "--modules", action="store_true", help="CPU time by the module running, sampled (rulecraft): not a count"
    )
    args = parser.parse_args(argv)
    if args.bytecodes + args.purposes + args.modules > 1:
        parser.error("--bytecodes, --purposes and --modules are different measures: name one")
    unknown = [g for g in args.games if g not in ANCHORS]
    if unknown:
        parser.error(f"unknown anchor {', '.join(unknown)}: one of {', '.join(ANCHORS)}")
    out: dict[str, Any] = {}
    for game in args.games:
        n = args.count or (SAMPLED_GAMES if args.modules else GAMES).get(game, 20)
        if args.purposes:  # (rulecraft's side alone: no reference engine needed)
            out[game] = {"rulecraft": purpose_summary(*count_generated_lines(game, n), args.top)}
            continue
        if args.modules:  # (likewise)
            out[game] = {"rulecraft": module_summary(*sample_modules(game, n), args.top)}
            continue
        why = available(game)
        if why is not None:
            out[game] = {"skipped": why}
            continue
        if args.bytecodes:
            out[game] = {
                side: bytecode_summary(*count_bytecodes(game, side, n), args.top) for side in ("rulecraft", "reference")
            }
        else:
            out[game] = {side: summary(*count_calls(game, side, n), args.top) for side in ("rulecraft", "reference")}
        out[game]["reference_name"] = ANCHORS[game]["reference"]
    if args.json:
        print(json.dumps(out, indent=2))
        return 0
    for game, figures in out.items():
        if "skipped" in figures:
            print(f"{game}: skipped ({figures['skipped']})")
            continue
        if args.purposes:
            _print_purposes(game, figures["rulecraft"])
            continue
        if args.modules:
            mine = figures["rulecraft"]
            print(f"{game} ({mine['games']} games): {mine['samples']} samples of CPU time, by the module running:")
            for module, share in mine["modules"]:
                print(f"  {share:5.1f} %  {module}")
            continue
        mine, theirs = figures["rulecraft"], figures["reference"]
        # (what each count prints: its totals, by kind, and its list of the functions that did most)
        what, totals, listed, most = (
            ("bytecodes", [("", "bytecodes")], "most run", "most_run")
            if args.bytecodes
            else ("calls", [("Python  ", "python_calls"), ("C       ", "c_calls")], "most called", "most_called")
        )
        print(f"{game} against {figures['reference_name']} ({mine['games']} games each), {what} a game:")
        for kind, key in totals:
            print(f"  {kind}rulecraft {mine[key]:12.1f}   reference {theirs[key]:12.1f}")
        for side in ("rulecraft", "reference"):
            print(f"  {listed}, {side}:")
            for where, name, n in figures[side][most]:
                print(f"    {n:12.1f}  {where}: {name}")
    return 0


def _print_purposes(game: str, mine: dict[str, Any]) -> None:
    generated = mine["generated"]
    print(
        f"{game} ({mine['games']} games): {mine['bytecodes']:,.0f} bytecodes a game, {generated:,.0f} "
        f"({100 * generated / mine['bytecodes']:.1f} %) in its generated code, by what each line is for:"
    )
    for purpose, n, most in mine["purposes"]:
        print(f"  {n:12,.0f} {100 * n / generated:5.1f} %  {purpose}")
        for text, m in most:
            print(f"      {m:12,.0f}  {text[:100]}")


if __name__ == "__main__":
    raise SystemExit(main())
