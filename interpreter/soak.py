"""Invariants at scale: many seeded random games, every promise checked after every decision.

After every decision (each time a game waits, and when it ends) a soak run checks:
- **conservation**: every card ever created is in exactly one zone, once; `location` agrees;
  a card's id is its place in the state; a zone holds only cards of its declared type (cards
  appear only by `create`, and never vanish or double);
- the rulebook's **declared invariants** (`invariant ...`, the game runs in checking mode);
- the state **round-trips** through the rulebook's cattrs converter and JSON, unchanged;
- the **view** of every player (and the full view) round-trips through JSON unchanged;
- at sampled decisions, **hidden information**: see `hidden_leak`.

A violation prints the rulebook, seed and step, and writes a record that replays the game up
to it (`rulecraft replay FILE`).

    rulecraft soak tutorial.rules --games 10000     # or: python -m rulecraft.soak ...
"""

from __future__ import annotations

import argparse
import json
import random
import signal
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import attrs

from .errors import RulebookError, RulecraftError
from .records import write_record
from .rulebook import Rulebook, bundled_names, load
from .runtime import AskFrame, Game
from .values import CardRef, Player, Record

# ---------------------------------------------------------------------------- the checks


def conservation(game: Game) -> str | None:
    """Why the cards are not conserved, or None: each created card is in exactly one zone, once."""
    st = game.state
    where: dict[int, str] = {}
    for key, ids in st.zones.items():
        name = key.split("[", 1)[0]
        decl = game.program.zones.get(name)
        if decl is None:
            return f"a zone {key} that the rulebook does not declare"
        for cid in ids:
            if not isinstance(cid, int) or not 0 <= cid < len(st.cards):
                return f"{key} holds a card #{cid} that was never created"
            if cid in where:
                return f"card #{cid} is in {where[cid]} and in {key}"
            where[cid] = key
            card_type = type(st.cards[cid]).__name__
            if decl.card_type != "any" and card_type != decl.card_type:
                return f"{key} (of {decl.card_type}) holds card #{cid}, a {card_type}"
    if len(where) != len(st.cards):
        missing = sorted(set(range(len(st.cards))) - set(where))
        return f"cards {', '.join(f'#{i}' for i in missing[:5])} are in no zone"
    if len(st.location) != len(st.cards):
        return f"{len(st.cards)} cards but {len(st.location)} locations"
    for cid, card in enumerate(st.cards):
        if card.id != cid:
            return f"the card at #{cid} has id {card.id}"
        if st.location[cid] != where[cid]:
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
    for who in (None, *game.players):
        view = game.view(who)
        if json.loads(json.dumps(view)) != view:
            return f"the view of {who or 'all'} changes through JSON"
    return None


def hidden_positions(game: Game, viewer: Player) -> list[tuple[str, int]]:
    """The places (zone key, index) whose card `viewer` cannot identify now.

    The cards of another player's `owner` zone, of a `hidden` or `count` zone, and of a `top`
    zone below its top (a batch of cards landing on such a pile shows others only the new top).
    Not hidden: `public` zones (shuffled or not), the viewer's own zones, the top of a `top`
    zone, the cards named by a variable the viewer sees (its value shows in the view), and the
    cards the pending decision of `viewer` offers (a search shows the searcher what it offers).
    """
    shown: set[int] = set()
    decision = game.current_decision()
    frame = game.frames[-1] if game.frames else None
    if decision is not None and decision.player == viewer and isinstance(frame, AskFrame):
        shown = {v.id for v in (*frame.pool, *frame.picked) if isinstance(v, CardRef)}
    for key, value in game.state.vars.items():
        vdecl = game.program.vars[key.split("[", 1)[0]]
        if vdecl.visibility == "public" or (vdecl.visibility == "owner" and game._owned_by(key, viewer)):
            shown |= _cards_in(value)
    out: list[tuple[str, int]] = []
    for key in sorted(game.state.zones):
        ids = game.state.zones[key]
        decl = game.program.zones[key.split("[", 1)[0]]
        if decl.visibility == "public" or (decl.visibility == "owner" and game._owned_by(key, viewer)):
            continue
        below = len(ids) - 1 if decl.visibility == "top" else len(ids)
        out.extend((key, i) for i in range(below) if ids[i] not in shown)
    return out


def _cards_in(value: Any) -> set[int]:
    if isinstance(value, CardRef):
        return {value.id}
    if isinstance(value, tuple | list):
        return set().union(*(_cards_in(v) for v in value)) if value else set()
    if isinstance(value, Record):
        return set().union(*(_cards_in(v) for _, v in value.items()))
    return set()


def permute_hidden(game: Game, viewer: Player, rng: random.Random) -> Game:
    """A clone whose state differs from the game's only in what `viewer` cannot see.

    The *contents* of the cards at the hidden positions are shuffled among themselves (within
    each card type); card ids, zones, sizes and everything the viewer sees stay as they are.
    """
    twin = game.clone()
    by_type: dict[type, list[int]] = {}
    for key, i in hidden_positions(game, viewer):
        cid = game.state.zones[key][i]
        by_type.setdefault(type(game.state.cards[cid]), []).append(cid)
    for cids in by_type.values():
        contents = [game.state.cards[c] for c in cids]
        rng.shuffle(contents)
        for cid, card in zip(cids, contents, strict=True):
            twin.state.cards[cid] = attrs.evolve(card, id=cid)
    return twin


def _ask_again(game: Game) -> None:
    """Ask the pending decision again from the (changed) state, as the rules would have."""
    frame = game.frames[-1]
    assert isinstance(frame, AskFrame)
    game.pending = None
    frame.step(game)


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
        _ask_again(twin)
        again = twin.current_decision()
        twin_asked = (again.prompt, again.labels) if again is not None and again.player == viewer else None
        if twin_asked != asked:
            return (f"{viewer} is asked {asked} but, with the hidden cards exchanged, {twin_asked}: the decision "
                    "depends on what the player cannot see")
        if twin.view(viewer) != view:
            diff = _first_difference(view, twin.view(viewer))
            return f"{viewer}'s view changes when only hidden cards are exchanged: {diff}"
    return None


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
    games: int = 0
    finished: int = 0
    decisions: int = 0
    hidden_checks: int = 0
    findings: list[Finding] = attrs.Factory(list)
    interrupted: bool = False


def soak_game(rb: Rulebook, name: str, seed: int, players: int, summary: SoakSummary, *, max_decisions: int = 3000,
              hidden_every: int = 10, out_dir: Path | None = None) -> Finding | None:
    """Play one seeded random game, checking after every decision; the first violation is returned."""
    rng = random.Random(f"{name}:{seed}:{players}")
    game: Game | None = None
    step = 0

    def found(problem: str) -> Finding:
        finding = Finding(name, seed, players, step, problem)
        if out_dir is not None and game is not None:
            out_dir.mkdir(parents=True, exist_ok=True)
            path = out_dir / f"{Path(name).stem}-p{players}-seed{seed}-step{step}.json"
            try:
                write_record(game, path)
                finding.record = str(path)
            except (OSError, RulecraftError):
                pass
        summary.findings.append(finding)
        return finding

    summary.games += 1
    try:
        game = rb.new_game(players=players, seed=seed, trace=False, check_invariants=True)
        while True:
            for check in (conservation, round_trip):
                problem = check(game)
                if problem:
                    return found(problem)
            if game.over:
                summary.finished += 1
                return None
            if step >= max_decisions:
                return None
            if hidden_every and step % hidden_every == 0:
                summary.hidden_checks += 1
                problem = hidden_leak(game, rng)
                if problem:
                    return found(problem)
            labels = game.legal_answers()
            step += 1  # the step is the number of the answer being given, counting from 1
            summary.decisions += 1
            game.apply(labels[rng.randrange(len(labels))])
    except RulebookError as exc:
        return found(exc.messages[0] if exc.messages else str(exc))
    except Exception as exc:  # a crash of the core is a finding too, with its record
        return found(f"{type(exc).__name__}: {exc}")


def soak(name: str, games: int, seed: int = 0, players: Sequence[int] | None = None, *, max_decisions: int = 3000,
         hidden_every: int = 10, out_dir: Path | None = None,
         progress: Callable[[int, SoakSummary], None] | None = None) -> SoakSummary:
    """Play `games` seeded games of a rulebook (player counts in turn), checking every decision."""
    rb = load(name)
    counts = list(players or range(rb.program.min_players, rb.program.max_players + 1))
    summary = SoakSummary()
    for k in range(games):
        try:
            finding = soak_game(rb, name, seed + k, counts[k % len(counts)], summary, max_decisions=max_decisions,
                                hidden_every=hidden_every, out_dir=out_dir)
        except KeyboardInterrupt:  # stop early and report the games played so far (the last one is not counted)
            summary.games -= 1
            summary.interrupted = True
            break
        if finding is not None:
            print(f"VIOLATION {finding.rulebook} players {finding.players} seed {finding.seed} step {finding.step}: "
                  f"{finding.problem}" + (f"\n  record: {finding.record}" if finding.record else ""), file=sys.stderr)
        if progress is not None:
            progress(k, summary)
    return summary


# ---------------------------------------------------------------------------- the command


def register(sub: Any) -> None:
    """Add `rulecraft soak` to the command line."""
    p = sub.add_parser("soak", help="play many seeded random games, checking every invariant at every decision",
                       description="Conservation of cards, declared invariants, state and view round-trips and "
                       "hidden information, after every decision of many seeded random games.")
    _arguments(p)
    p.set_defaults(func=_command)


def _arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("games", nargs="*", help="bundled rulebooks or paths (default: every bundled one)")
    p.add_argument("--games", dest="count", type=int, default=100, help="games per rulebook (default 100)")
    p.add_argument("--seed", type=int, default=0, help="first seed (game k has seed + k)")
    p.add_argument("--players", type=int, nargs="*", help="player counts to cycle through (default: all allowed)")
    p.add_argument("--max-decisions", type=int, default=3000, help="stop a game after this many decisions")
    p.add_argument("--hidden-every", type=int, default=10, help="check hidden information every N decisions (0: "
                   "never)")
    p.add_argument("--out", default="soak-findings", help="folder for records of violations")


def _stop(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt


def _command(args: argparse.Namespace) -> int:
    signal.signal(signal.SIGTERM, _stop)  # `kill` stops a long run early and still prints its figures
    names = args.games or bundled_names()
    failed = False
    for name in names:
        start = time.monotonic()

        def progress(k: int, summary: SoakSummary, name: str = name) -> None:
            if (k + 1) % 50 == 0:
                print(f"  {name}: {k + 1} games, {summary.decisions} decisions, {len(summary.findings)} violations",
                      file=sys.stderr)

        summary = soak(name, args.count, args.seed, args.players, max_decisions=args.max_decisions,
                       hidden_every=args.hidden_every, out_dir=Path(args.out), progress=progress)
        failed = failed or bool(summary.findings)
        print(f"soak {name}: {summary.games} games ({summary.finished} finished), {summary.decisions} decisions, "
              f"{summary.hidden_checks} hidden-information checks, {len(summary.findings)} violations "
              f"in {time.monotonic() - start:.0f}s" + (" (interrupted)" if summary.interrupted else ""))
    return 1 if failed else 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m rulecraft.soak", description=__doc__.split("\n")[0])
    _arguments(parser)
    return _command(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())


__all__ = ["conservation", "hidden_leak", "hidden_positions", "permute_hidden", "round_trip", "soak"]
