"""The measured ceiling of the engine's design (issue 40): Kuhn poker written by hand as the design generates it.

    pip install -e '.[bench]'        # open_spiel (the reference engine)
    python examples/benchmarks/ceiling_kuhn.py [--quick] [--json] [--instructions] [--stat-games N]

Issue 40 asks, where rulecraft misses a speed target, for the ceiling of its design: how fast an
engine keeping every promise of rulecraft could play, measured beside the reference. This script
plays examples/games/kuhn_poker.rules written by hand as docs/ENGINE.md would generate it, in four
variants, beside OpenSpiel's pure-Python `python_kuhn_poker` and rulecraft itself:

| side             | what it is |
|------------------|------------|
| `rulecraft`      | `rulecraft.load("examples/games/kuhn_poker.rules")`, random agents, as compare.py plays it |
| `openspiel`      | OpenSpiel's `python_kuhn_poker`, random actions, as compare.py plays it |
| `machine`        | the state machine keeping every promise: the state plain data (lists of ints, indexed by
|                  | slot), procedures resumable functions (an activation is a list: procedure, resume point,
|                  | locals, answer), `clone` a copy of that data at any decision, a work counter charged per
|                  | statement (checked against the budget at loops, as the step budget), a trace that can be
|                  | switched off, the answers logged, each decision with its options' labels, chance draws
|                  | labelled by the cards' labels and answered by the seeded splitmix64 generator as
|                  | rulecraft draws, or asked of the table in a game without a seed; answers by index |
| `machine_atomic` | the same with all-or-nothing `apply`: every write journalled, undone if the answer fails |
| `generic`        | the same promises in a generic layout: state in text-keyed dicts (`"pot[P1]"`, `"hand[P2]"`,
|                  | cards as dicts of fields), each decision rebuilt with its labels at every ask |
| `plain`          | plain code with no promises (no state object, no clone, no log, no counter) |

Every side but OpenSpiel draws chance and answers with the same generators as rulecraft (splitmix64;
the agents are compare.py's `RandomAgent(seed * 7919 + seat * 104729 + 1)`), so the same seed gives
the very same game on all of them: the script checks that the answers logged by rulecraft and by
each variant are equal, game for game. OpenSpiel draws with `random.Random(seed)`: for it the check
is statistical, as compare.py's (first player's win rate, mean length, mean return agree within 4
standard errors over `--stat-games` games, 10,000 by default).

Then the speed: in one process, rounds of the same CPU time per side, the sides interleaved and
each playing the seeds 0, 1, ... from the start of every round; the median games/s and its ratio to
OpenSpiel's. On a shared host that ratio moves by a fifth between runs; `--instructions` counts
instead, with valgrind's callgrind as compare_instructions.py does (a process playing the seeds
0 .. N-1 twice, less one playing them once), the instructions a game, and the instructions of a
clone at the first decision (P1's, after the deal): figures the load cannot move.
Figures: examples/benchmarks/CEILING.md.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
RULES = str(ROOT / "examples" / "games" / "kuhn_poker.rules")

MASK64 = (1 << 64) - 1


def splitmix(state: int) -> tuple[int, int]:
    """Advance a splitmix64 generator; return (new state, 64 random bits): rulecraft's, copied."""
    state = (state + 0x9E3779B97F4A7C15) & MASK64
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return state, z ^ (z >> 31)


def agent_seeds(seed: int) -> list[int]:
    """The generators of compare.py's two random agents for a game's seed."""
    return [(seed * 7919 + i * 104729 + 1) & MASK64 for i in range(2)]


class GameError(Exception):
    """A bad answer or a runaway game: what rulecraft's GameError and runtime errors say."""


# ------------------------------------------------------------------ the state machine (every promise)

SUSPEND, DONE = 0, 1
PLAYERS = ("P1", "P2")
STEP_BUDGET = 100_000  # statements between two decisions (rulecraft's step budget)

# The state's layout, as a generator numbers the rulebook's declarations: zones and keyed variables
# are slots of two lists.
DECK = 0  # zones: deck, hand[P1], hand[P2]
HAND = 1
ZONE_NAMES = ("deck", "hand[P1]", "hand[P2]")
POT = 0  # vars: pot[P1], pot[P2], won[P1], won[P2]
WON = 2
VAR_NAMES = ("pot[P1]", "pot[P2]", "won[P1]", "won[P2]")

# Journal entries (machine_atomic): what undoes a write.
J_SET, J_MOVE, J_CREATE, J_END = 0, 1, 2, 3


class Decision:
    """Who decides (a seat, or None for the table), the prompt, and the options' labels (answers are
    their indexes). Immutable: a decision whose options are written in the rulebook is made once."""

    __slots__ = ("by", "labels", "player", "prompt")

    def __init__(self, player: int | None, prompt: str, labels: tuple[str, ...]):
        self.player, self.prompt, self.labels = player, prompt, labels
        self.by = "table" if player is None else PLAYERS[player]


ASK = (Decision(0, "Pass or bet?", ("Pass", "Bet")), Decision(1, "Pass or bet?", ("Pass", "Bet")))


class Machine:
    """A game of Kuhn poker: plain data, and the machine that runs its procedures' activations."""

    __slots__ = (
        "answers",
        "auto_chance",
        "cards",
        "events",
        "journal",
        "labels",
        "limit",
        "over",
        "pending",
        "rng",
        "stack",
        "steps",
        "vars",
        "winners",
        "zones",
    )

    def __init__(self, seed: int | None = 0, trace: bool = False, atomic: bool = False):
        self.cards: list[int] = []  # each card's rank, by card id
        self.labels: list[str] = []  # each card's label ("{rank}"), made when it is created
        self.zones: list[list[int]] = [[], [], []]
        self.vars = [1, 1, 0, 0]
        self.over = False
        self.winners: list[int] | None = None
        self.auto_chance = seed is not None
        self.rng = (seed or 0) & MASK64
        self.steps = 0
        self.limit = STEP_BUDGET
        self.answers: list[tuple[str, str]] = []
        self.events: list[tuple[str, str]] | None = [] if trace else None
        self.journal: list[tuple[int, ...]] | None = [] if atomic else None
        self.pending: Decision | None = None
        # Activations: [procedure, resume point, locals, answer]; the top one runs.
        self.stack: list[list[Any]] = [[PLAY, 0, [], None], [SETUP, 0, [0], None]]
        self._run()
        if self.journal is not None:
            self.journal.clear()

    # -- the machine

    def _run(self) -> None:
        stack, procs = self.stack, PROCS
        while stack:
            act = stack[-1]
            if procs[act[0]](self, act) is SUSPEND:
                return
            stack.pop()
            if self.over:
                stack.clear()

    def apply(self, index: int) -> None:
        """Answer the pending decision with its option `index`; a bad answer changes nothing."""
        d = self.pending
        if d is None:
            raise GameError("the game is over: no decision is pending")
        if index.__class__ is not int or not 0 <= index < len(d.labels):
            raise GameError(f"no option {index!r}: the options are 0 .. {len(d.labels) - 1}")
        if self.journal is None:
            self._apply(d, index)
            return
        saved = (
            [[a[0], a[1], a[2][:], a[3]] for a in self.stack],
            self.rng,
            self.steps,
            self.limit,
            len(self.answers),
            -1 if self.events is None else len(self.events),
        )
        try:
            self._apply(d, index)
        except GameError:
            self._undo(0)
            self.stack, self.rng, self.steps, self.limit, answers, events = saved
            del self.answers[answers:]
            if self.events is not None:
                del self.events[events:]
            self.pending, self.over, self.winners = d, False, None
            raise
        self.journal.clear()

    def _apply(self, d: Decision, index: int) -> None:
        self.pending = None
        if d.player is None:  # keep the generator where a live game would have it (as rulecraft)
            self.rng = splitmix(self.rng)[0]
        label = d.labels[index]
        self.answers.append((d.by, label))
        if self.events is not None:
            self.events.append(("choose", f"{label}  [{d.prompt}]"))
        self.limit = self.steps + STEP_BUDGET
        self.stack[-1][3] = index
        self._run()

    def _undo(self, mark: int) -> None:
        journal = self.journal
        assert journal is not None
        while len(journal) > mark:
            entry = journal.pop()
            kind = entry[0]
            if kind == J_SET:
                self.vars[entry[1]] = entry[2]
            elif kind == J_MOVE:
                card = self.zones[entry[3]].pop()
                self.zones[entry[1]].insert(entry[2], card)
            elif kind == J_CREATE:
                self.zones[entry[1]].pop()
                self.cards.pop()
                self.labels.pop()
            else:
                self.over, self.winners = False, None

    def clone(self) -> Machine:
        """An independent copy at this decision: a copy of the data (activations included)."""
        new = Machine.__new__(Machine)
        new.cards = self.cards[:]
        new.labels = self.labels[:]
        new.zones = [z[:] for z in self.zones]
        new.vars = self.vars[:]
        new.over = self.over
        new.winners = None if self.winners is None else self.winners[:]
        new.auto_chance = self.auto_chance
        new.rng = self.rng
        new.steps = self.steps
        new.limit = self.limit
        new.answers = self.answers[:]
        new.events = None if self.events is None else self.events[:]
        new.journal = None if self.journal is None else []
        new.pending = self.pending
        new.stack = [[a[0], a[1], a[2][:], a[3]] for a in self.stack]
        return new

    def data(self) -> tuple[Any, ...]:
        """The whole state, for tests: equal data, equal games."""
        return (
            self.cards,
            self.zones,
            self.vars,
            self.over,
            self.winners,
            self.rng,
            self.steps,
            self.answers,
            self.events,
            [[*a[:2], a[2][:]] for a in self.stack],
            None if self.pending is None else (self.pending.player, self.pending.labels),
        )

    # -- the statements' shared mechanisms (a generator calls them from the procedures' code)

    def create(self, rank: int, zone: int) -> None:
        self.cards.append(rank)
        label = str(rank)  # the card's label: "{rank}"
        self.labels.append(label)
        self.zones[zone].append(len(self.cards) - 1)
        if self.journal is not None:
            self.journal.append((J_CREATE, zone))
        if self.events is not None:
            self.events.append(("create", f"1 x {label} in {ZONE_NAMES[zone]}"))

    def set_var(self, slot: int, value: int) -> None:
        vs = self.vars
        if self.journal is not None:
            self.journal.append((J_SET, slot, vs[slot]))
        vs[slot] = value
        if self.events is not None:
            self.events.append(("set", f"{VAR_NAMES[slot]} = {value}"))

    def move(self, src: int, k: int, dst: int) -> None:
        card = self.zones[src].pop(k)
        self.zones[dst].append(card)
        if self.journal is not None:
            self.journal.append((J_MOVE, src, k, dst))
        if self.events is not None:
            self.events.append(("move", f"{self.labels[card]}: {ZONE_NAMES[src]} -> {ZONE_NAMES[dst]}"))

    def draw(self, src: int, dst: int) -> bool:
        """Draw one card at random (chance) from `src` to `dst`; False if the table must answer.

        The options are the cards' labels; a label two cards share is one option weighted by its
        count, as rulecraft draws."""
        ids = self.zones[src]
        n = len(ids)
        if n == 0:
            return True
        labels = [self.labels[c] for c in ids]
        k = 0
        if n > 1:
            distinct = len(set(labels)) == n
            if not self.auto_chance:
                options = tuple(labels) if distinct else tuple(dict.fromkeys(labels))
                self.pending = Decision(None, f"draw from {ZONE_NAMES[src]}", options)
                return False
            self.rng, bits = splitmix(self.rng)
            if distinct:
                k = bits % n
            else:  # each label weighted by its cards, in the order the labels first come
                r = bits % n
                counts: dict[str, int] = {}
                for label in labels:
                    counts[label] = counts.get(label, 0) + 1
                for chosen, w in counts.items():  # noqa: B007 -- the loop finds `chosen`
                    if r < w:
                        break
                    r -= w
                k = labels.index(chosen)
            self.answers.append(("table", labels[k]))
        self.move(src, k, dst)
        return True

    def end_game(self, winner: int) -> None:
        if self.journal is not None:
            self.journal.append((J_END,))
        self.over, self.winners = True, [winner]
        if self.events is not None:
            self.events.append(("end", f"winners {PLAYERS[winner]}"))


# The procedures, as generated: `setup` and `play` may suspend (a draw the table answers, a
# choice), so they are resumable functions of an activation; `bet`, `settle` and `showdown` never
# suspend, so they are plain calls. `g.steps` is charged one per statement run.


def _setup(g: Machine, act: list[Any]) -> int:
    pc = act[1]
    if pc == 0:
        # for r in 0..2 { create 1 Card { rank: r } in deck }
        for r in range(3):
            g.steps += 2  # the loop's step, the create
            if g.steps > g.limit:
                raise GameError("kuhn_poker.rules:40:3: the step budget ran out: runaway loop?")
            g.create(r, DECK)
        pc = 1
    slots = act[2]
    while True:
        i = slots[0]
        if pc == 2:  # the table's answer to a draw: the card of that label
            k = [g.labels[c] for c in g.zones[DECK]].index(g.answers[-1][1])  # its first card
            g.move(DECK, k, HAND + i)
            slots[0] = i = i + 1
        # for p in players { draw 1 from deck to hand[p] }
        if i >= 2:
            return DONE
        g.steps += 2
        if g.steps > g.limit:
            raise GameError("kuhn_poker.rules:42:3: the step budget ran out: runaway loop?")
        if not g.draw(DECK, HAND + i):
            act[1] = 2
            return SUSPEND
        slots[0] = i + 1
        pc = 1


def _bet(g: Machine, p: int) -> None:
    g.steps += 1
    g.set_var(POT + p, g.vars[POT + p] + 1)


def _settle(g: Machine, w: int) -> None:
    g.steps += 3
    vs = g.vars
    m = min(vs[POT], vs[POT + 1])
    g.set_var(WON + w, m)
    g.set_var(WON + 1 - w, 0 - m)
    g.end_game(w)


def _showdown(g: Machine) -> None:
    g.steps += 2  # the if, the call
    z = g.zones
    if not z[HAND] or not z[HAND + 1]:
        raise GameError("kuhn_poker.rules:30:6: first of an empty list")
    _settle(g, 0 if g.cards[z[HAND][0]] > g.cards[z[HAND + 1][0]] else 1)


def _ask(g: Machine, act: list[Any], pc: int, decision: Decision) -> int:
    act[1] = pc
    g.pending = decision
    return SUSPEND


def _play(g: Machine, act: list[Any]) -> int:
    pc = act[1]
    g.steps += 1
    if pc == 0:  # choose by P1
        return _ask(g, act, 1, ASK[0])
    answer = act[3]
    if pc == 1:  # P1 passed or bet
        if answer == 0:
            return _ask(g, act, 2, ASK[1])
        _bet(g, 0)
        return _ask(g, act, 3, ASK[1])
    if pc == 2:  # P1 passed; P2 passed or bet
        if answer == 0:
            _showdown(g)
            return DONE
        _bet(g, 1)
        return _ask(g, act, 4, ASK[0])
    if pc == 3:  # P1 bet; P2 folds or calls
        if answer == 0:
            _settle(g, 0)
            return DONE
        _bet(g, 1)
        _showdown(g)
        return DONE
    # P1 passed, P2 bet; P1 folds or calls
    if answer == 0:
        _settle(g, 1)
        return DONE
    _bet(g, 0)
    _showdown(g)
    return DONE


SETUP, PLAY = 0, 1
PROCS: tuple[Callable[[Any, list[Any]], int], ...] = (_setup, _play)


def machine_outcome(g: Machine) -> tuple[int | None, int, float]:
    winners = g.winners or []
    return (
        winners[0] if len(winners) == 1 else None,
        sum(1 for by, _ in g.answers if by != "table"),
        float(g.vars[WON]),
    )


def play_random(g: Any, seed: int) -> Any:
    """Answer every decision of `g` with compare.py's random agents for `seed` (by index)."""
    rngs = agent_seeds(seed)
    while not g.over:
        d = g.pending
        p = d.player
        rngs[p], bits = splitmix(rngs[p])
        g.apply(bits % len(d.labels))
    return g


def machine_runner(atomic: bool = False) -> Callable[[int], tuple[int | None, int, float]]:
    def run(seed: int) -> tuple[int | None, int, float]:
        return machine_outcome(play_random(Machine(seed, atomic=atomic), seed))

    return run


# ------------------------------------------------------------------ the same promises, a generic layout


class GenericDecision:
    __slots__ = ("by", "labels", "player", "prompt", "values")

    def __init__(self, player: str | None, prompt: str, options: list[tuple[str, Any]]):
        self.player = player
        self.by = "table" if player is None else player
        self.prompt = prompt
        self.labels = tuple(label for label, _ in options)
        self.values = tuple(value for _, value in options)


class Generic:
    """The state machine's promises with the state a generic engine would hold: zones and variables
    in dicts keyed by text, cards as dicts of fields, activations as dicts of locals by name, each
    decision (its options and their labels) made anew every time it is asked."""

    __slots__ = ("answers", "auto_chance", "cards", "events", "limit", "over", "pending", "rng", "stack", "steps")
    __slots__ += ("vars", "winners", "zones")

    def __init__(self, seed: int | None = 0, trace: bool = False):
        self.cards: list[dict[str, Any]] = []
        self.zones: dict[str, list[int]] = {"deck": [], "hand[P1]": [], "hand[P2]": []}
        self.vars: dict[str, int] = {"pot[P1]": 1, "pot[P2]": 1, "won[P1]": 0, "won[P2]": 0}
        self.over = False
        self.winners: list[str] | None = None
        self.auto_chance = seed is not None
        self.rng = (seed or 0) & MASK64
        self.steps = 0
        self.limit = STEP_BUDGET
        self.answers: list[tuple[str, str]] = []
        self.events: list[tuple[str, str]] | None = [] if trace else None
        self.pending: GenericDecision | None = None
        self.stack: list[dict[str, Any]] = [
            {"proc": "play", "pc": 0, "locals": {}, "answer": None},
            {"proc": "setup", "pc": 0, "locals": {}, "answer": None},
        ]
        self._run()

    def _run(self) -> None:
        stack = self.stack
        while stack:
            act = stack[-1]
            if GENERIC_PROCS[act["proc"]](self, act) is SUSPEND:
                return
            stack.pop()
            if self.over:
                stack.clear()

    def apply(self, index: int) -> None:
        d = self.pending
        if d is None:
            raise GameError("the game is over: no decision is pending")
        if index.__class__ is not int or not 0 <= index < len(d.labels):
            raise GameError(f"no option {index!r}: the options are 0 .. {len(d.labels) - 1}")
        self.pending = None
        if d.player is None:
            self.rng = splitmix(self.rng)[0]
        label = d.labels[index]
        self.answers.append((d.by, label))
        if self.events is not None:
            self.events.append(("choose", f"{label}  [{d.prompt}]"))
        self.limit = self.steps + STEP_BUDGET
        self.stack[-1]["answer"] = d.values[index]
        self._run()

    def clone(self) -> Generic:
        new = Generic.__new__(Generic)
        new.cards = [dict(c) for c in self.cards]
        new.zones = {k: z[:] for k, z in self.zones.items()}
        new.vars = dict(self.vars)
        new.over, new.winners = self.over, None if self.winners is None else self.winners[:]
        new.auto_chance, new.rng, new.steps, new.limit = self.auto_chance, self.rng, self.steps, self.limit
        new.answers = self.answers[:]
        new.events = None if self.events is None else self.events[:]
        new.pending = self.pending
        new.stack = [{**a, "locals": dict(a["locals"])} for a in self.stack]
        return new

    def set_var(self, key: str, value: int) -> None:
        self.vars[key] = value
        if self.events is not None:
            self.events.append(("set", f"{key} = {value}"))

    def ask(self, act: dict[str, Any], pc: int, player: str, prompt: str, options: list[tuple[str, Any]]) -> int:
        act["pc"] = pc
        self.pending = GenericDecision(player, prompt, options)
        return SUSPEND


def _g_setup(g: Generic, act: dict[str, Any]) -> int:
    local = act["locals"]
    if act["pc"] == 0:
        for r in range(3):
            g.steps += 2
            if g.steps > g.limit:
                raise GameError("kuhn_poker.rules:40:3: the step budget ran out: runaway loop?")
            g.cards.append({"id": len(g.cards), "rank": r})
            g.zones["deck"].append(len(g.cards) - 1)
            if g.events is not None:
                g.events.append(("create", f"1 x {r} in deck"))
        local["players"], local["i"] = list(PLAYERS), 0
    elif act["pc"] == 1:  # the table's answer: the card drawn
        p = local["players"][local["i"]]
        _g_move(g, act["answer"], "deck", f"hand[{p}]")
        local["i"] += 1
    while local["i"] < len(local["players"]):
        p = local["players"][local["i"]]
        g.steps += 2
        if g.steps > g.limit:
            raise GameError("kuhn_poker.rules:42:3: the step budget ran out: runaway loop?")
        ids = g.zones["deck"]
        if ids:
            options = [(str(g.cards[c]["rank"]), k) for k, c in enumerate(ids)]  # distinct labels here
            if len(options) > 1:
                if not g.auto_chance:
                    act["pc"] = 1
                    g.pending = GenericDecision(None, "draw from deck", options)
                    return SUSPEND
                g.rng, bits = splitmix(g.rng)
                label, k = options[bits % len(options)]
                g.answers.append(("table", label))
            else:
                k = 0
            _g_move(g, k, "deck", f"hand[{p}]")
        local["i"] += 1
    return DONE


def _g_move(g: Generic, k: int, src: str, dst: str) -> None:
    card = g.zones[src].pop(k)
    g.zones[dst].append(card)
    if g.events is not None:
        g.events.append(("move", f"{g.cards[card]['rank']}: {src} -> {dst}"))


def _g_bet(g: Generic, p: str) -> None:
    g.steps += 1
    key = f"pot[{p}]"
    g.set_var(key, g.vars[key] + 1)


def _g_settle(g: Generic, w: str) -> None:
    g.steps += 3
    m = min(g.vars["pot[P1]"], g.vars["pot[P2]"])
    g.set_var(f"won[{w}]", m)
    g.set_var(f"won[{PLAYERS[1 - PLAYERS.index(w)]}]", 0 - m)
    g.over, g.winners = True, [w]
    if g.events is not None:
        g.events.append(("end", f"winners {w}"))


def _g_showdown(g: Generic) -> None:
    g.steps += 2
    h1, h2 = g.zones["hand[P1]"], g.zones["hand[P2]"]
    if not h1 or not h2:
        raise GameError("kuhn_poker.rules:30:6: first of an empty list")
    _g_settle(g, "P1" if g.cards[h1[0]]["rank"] > g.cards[h2[0]]["rank"] else "P2")


PASS_OR_BET = "Pass or bet?"


def _g_play(g: Generic, act: dict[str, Any]) -> int:
    pc = act["pc"]
    g.steps += 1
    if pc == 0:
        return g.ask(act, 1, "P1", PASS_OR_BET, [("Pass", "Pass"), ("Bet", "Bet")])
    answer = act["answer"]
    if pc == 1:
        if answer == "Pass":
            return g.ask(act, 2, "P2", PASS_OR_BET, [("Pass", "Pass"), ("Bet", "Bet")])
        _g_bet(g, "P1")
        return g.ask(act, 3, "P2", PASS_OR_BET, [("Pass", "Pass"), ("Bet", "Bet")])
    if pc == 2:
        if answer == "Pass":
            _g_showdown(g)
            return DONE
        _g_bet(g, "P2")
        return g.ask(act, 4, "P1", PASS_OR_BET, [("Pass", "Pass"), ("Bet", "Bet")])
    if pc == 3:
        if answer == "Pass":
            _g_settle(g, "P1")
            return DONE
        _g_bet(g, "P2")
        _g_showdown(g)
        return DONE
    if answer == "Pass":
        _g_settle(g, "P2")
        return DONE
    _g_bet(g, "P1")
    _g_showdown(g)
    return DONE


GENERIC_PROCS: dict[str, Callable[[Any, dict[str, Any]], int]] = {"setup": _g_setup, "play": _g_play}


def generic_runner() -> Callable[[int], tuple[int | None, int, float]]:
    def run(seed: int) -> tuple[int | None, int, float]:
        g = Generic(seed)
        rngs = agent_seeds(seed)
        while not g.over:
            d = g.pending
            assert d is not None and d.player is not None
            p = PLAYERS.index(d.player)
            rngs[p], bits = splitmix(rngs[p])
            g.apply(bits % len(d.labels))
        winners = g.winners or []
        return (
            PLAYERS.index(winners[0]) if len(winners) == 1 else None,
            sum(1 for by, _ in g.answers if by != "table"),
            float(g.vars["won[P1]"]),
        )

    return run


# ------------------------------------------------------------------ plain code, no promises


def plain_game(seed: int) -> tuple[int | None, int, float]:
    """One game as one writes it with no promise to keep: the same draws and answers."""
    rng = seed & MASK64
    deck = [0, 1, 2]
    rng, bits = splitmix(rng)
    c1 = deck.pop(bits % 3)
    rng, bits = splitmix(rng)
    c2 = deck.pop(bits % 2)
    agents = agent_seeds(seed)
    pot = [1, 1]
    agents[0], bits = splitmix(agents[0])
    if bits & 1:  # P1 bets
        pot[0] = 2
        agents[1], bits = splitmix(agents[1])
        if not bits & 1:
            return 0, 2, 1.0
        pot[1] = 2
        moves = 2
    else:
        agents[1], bits = splitmix(agents[1])
        if not bits & 1:
            moves = 2
        else:
            pot[1] = 2
            agents[0], bits = splitmix(agents[0])
            if not bits & 1:
                return 1, 3, -1.0
            pot[0] = 2
            moves = 3
    m = pot[0] if pot[0] < pot[1] else pot[1]
    return (0, moves, float(m)) if c1 > c2 else (1, moves, float(-m))


def plain_runner() -> Callable[[int], tuple[int | None, int, float]]:
    return plain_game


# ------------------------------------------------------------------ the sides


def _compare() -> Any:
    sys.path.insert(0, str(HERE))
    import compare  # the anchors' runners: rulecraft and OpenSpiel played as compare.py plays them

    return compare


SIDES = ("openspiel", "rulecraft", "machine", "machine_atomic", "generic", "plain")


def make_runner(side: str) -> Callable[[int], Any]:
    if side == "rulecraft":
        return _compare().make_runner("kuhn_poker", "rulecraft")  # type: ignore[no-any-return]
    if side == "openspiel":
        return _compare().make_runner("kuhn_poker", "reference")  # type: ignore[no-any-return]
    if side == "machine":
        return machine_runner()
    if side == "machine_atomic":
        return machine_runner(atomic=True)
    if side == "generic":
        return generic_runner()
    if side == "plain":
        return plain_runner()
    raise ValueError(f"no side {side!r}: sides are {', '.join(SIDES)}")


def openspiel_available() -> str | None:
    """None if OpenSpiel's Kuhn poker can run here, else why not."""
    try:
        make_runner("openspiel")
    except ImportError as exc:
        return f"OpenSpiel missing ({exc.name}): pip install -e '.[bench]'"
    return None


def rulecraft_answers(seed: int) -> list[tuple[str, str]]:
    """The answers rulecraft logs in the seeded random game `seed` (compare.py's agents)."""
    import rulecraft
    from rulecraft.agents import RandomAgent, play

    rb = rulecraft.load(RULES)
    game = rb.new_game(players=2, seed=seed, trace=False)
    play(game, [RandomAgent(s) for s in agent_seeds(seed)], atomic=False)
    return list(game.answers)


def same_games(seeds: range) -> dict[str, int]:
    """For each variant, how many of the seeded games differ from rulecraft's (answers logged, outcome)."""
    import rulecraft
    from rulecraft.agents import RandomAgent, play

    rb = rulecraft.load(RULES)
    outcome = _compare().make_runner("kuhn_poker", "rulecraft")
    generic = generic_runner()
    differ = {"machine": 0, "machine_atomic": 0, "generic": 0, "plain": 0}
    for seed in seeds:
        game = rb.new_game(players=2, seed=seed, trace=False)
        play(game, [RandomAgent(s) for s in agent_seeds(seed)], atomic=False)
        theirs = outcome(seed)
        for name, atomic in (("machine", False), ("machine_atomic", True)):
            g = play_random(Machine(seed, atomic=atomic), seed)
            if g.answers != game.answers or machine_outcome(g) != theirs:
                differ[name] += 1
        differ["generic"] += generic(seed) != theirs
        differ["plain"] += plain_game(seed) != theirs
    return differ


# ------------------------------------------------------------------ clones


def position(side: str) -> Any:
    """The game of seed 0 at its first decision (P1's, after the deal), on one side."""
    if side == "rulecraft":
        import rulecraft

        return rulecraft.load(RULES).new_game(players=2, seed=0, trace=False)
    if side == "openspiel":
        import pyspiel
        from open_spiel.python.games import kuhn_poker  # noqa: F401 -- registers python_kuhn_poker

        state = pyspiel.load_game("python_kuhn_poker").new_initial_state()
        state.apply_action(0)
        state.apply_action(2)
        return state
    if side == "machine":
        return Machine(0)
    raise ValueError(f"no clone on side {side!r}")


CLONE_SIDES = ("openspiel", "rulecraft", "machine")


def clone_workload(side: str) -> Callable[[int], None]:
    """n clones of the side's position."""
    pos = position(side)

    def work(n: int) -> None:
        for _ in range(n):
            pos.clone()

    return work


def playout_workload(side: str) -> Callable[[int], None]:
    """n clones of the side's position, each played on to the end with random answers (a search's unit)."""
    pos = position(side)
    if side == "openspiel":
        import random

        rng = random.Random(0)

        def work(n: int) -> None:
            for _ in range(n):
                state = pos.clone()
                while not state.is_terminal():
                    actions = state.legal_actions()
                    state.apply_action(actions[rng.randrange(len(actions))])

        return work
    if side == "rulecraft":
        from rulecraft.agents import RandomAgent, play

        agents = [RandomAgent(s) for s in agent_seeds(0)]

        def work(n: int) -> None:
            for _ in range(n):
                play(pos.clone(), agents, atomic=False)  # type: ignore[arg-type]

        return work

    def work(n: int) -> None:
        for seed in range(n):
            play_random(pos.clone(), seed)

    return work


def games_workload(side: str) -> Callable[[int], None]:
    """The seeded games 0 .. n-1 on one side."""
    run = make_runner(side)

    def work(n: int) -> None:
        for seed in range(n):
            run(seed)

    return work


# ------------------------------------------------------------------ measuring


def rates(sides: list[str], rounds: int, seconds: float, batch: int = 50) -> dict[str, list[float]]:
    """Games/s of each side, in rounds of `seconds` of CPU each, the sides interleaved in one process."""
    runners = {side: make_runner(side) for side in sides}
    for run in runners.values():
        run(10_000)  # warm up: imports, caches
    out: dict[str, list[float]] = {side: [] for side in sides}
    for r in range(rounds):
        order = sides[r % len(sides) :] + sides[: r % len(sides)]  # each side starts a round in turn
        for side in order:
            run = runners[side]
            games, start = 0, time.process_time()
            while (elapsed := time.process_time() - start) < seconds:
                for seed in range(games, games + batch):
                    run(seed)
                games += batch
            out[side].append(games / elapsed)
    return out


def clone_times(sides: list[str], n: int, rounds: int, make: Callable[[str], Any]) -> dict[str, float]:
    """Microseconds one unit of `make`'s work (a clone at the first decision, or a clone and its
    playout) takes on each side: the least of the rounds."""
    out: dict[str, float] = {}
    for side in sides:
        work = make(side)
        work(100)
        best = float("inf")
        for _ in range(rounds):
            start = time.process_time()
            work(n)
            best = min(best, (time.process_time() - start) / n * 1e6)
        out[side] = best
    return out


COUNTED = """
import gc, sys
sys.path.insert(0, sys.argv[1])
import ceiling_kuhn
make = getattr(ceiling_kuhn, sys.argv[3] + "_workload")
work = make(sys.argv[2])
work(50)
gc.collect()
gc.freeze()
n, passes = int(sys.argv[4]), int(sys.argv[5])
for _ in range(passes):
    work(n)
"""


def counted_command(side: str, kind: str, n: int, passes: int) -> list[str]:
    """The valgrind command that counts a process doing the side's `kind` of work (games or clones) `passes` times."""
    counted = [sys.executable, "-c", COUNTED, str(HERE), side, kind, str(n), str(passes)]
    return ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *counted]


def instructions(side: str, kind: str, n: int) -> float:
    """Instructions of one game (or clone): a process doing n of them twice, less one doing them once."""
    sys.path.insert(0, str(HERE))
    from instructions import collected, per_game

    env = {**os.environ, "RULECRAFT_CACHE_DIR": "off", "PYTHONHASHSEED": "0"}
    counts = []
    for passes in (1, 2):
        run = subprocess.run(
            counted_command(side, kind, n, passes), env=env, capture_output=True, text=True, check=False
        )
        if run.returncode != 0:
            raise RuntimeError(f"the counted run of {side} ({kind}) failed:\n{run.stderr[-2000:]}")
        counts.append(collected(run.stderr))
    return per_game(counts[0], counts[1], n)


STAT_KEYS = ("first_player_win_rate", "mean_length", "mean_first_return")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a smoke run: few games, short rounds")
    parser.add_argument("--stat-games", type=int, metavar="N", help="games per side for the statistics (10,000)")
    parser.add_argument("--rounds", type=int, default=5, help="timed rounds per side (default 5)")
    parser.add_argument("--seconds", type=float, default=1.0, help="CPU seconds per side and round (default 1)")
    parser.add_argument("--instructions", action="store_true", help="count instructions with callgrind too")
    parser.add_argument("--games", type=int, default=1000, help="games counted per side by callgrind (1,000)")
    parser.add_argument("--clones", type=int, default=1000, help="clones counted per side by callgrind (1,000)")
    parser.add_argument("--jobs", type=int, default=2, help="callgrind processes at a time (default 2)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    quick = args.quick
    stat_games = args.stat_games or (100 if quick else 10_000)
    why = openspiel_available()
    sides = [s for s in SIDES if why is None or s != "openspiel"]
    report: dict[str, Any] = {"openspiel": why or "ok", "stat_games": stat_games}

    report["differ_from_rulecraft"] = same_games(range(min(stat_games, 2_000)))
    compare = _compare()
    stats = {side: compare.outcome_stats([make_runner(side)(s) for s in range(stat_games)]) for side in sides}
    report["stats"] = stats
    if why is None:
        report["agree_with_openspiel"] = {
            side: {k: round(v["z"], 2) for k, v in compare.agree(stats[side], stats["openspiel"]).items()}
            for side in sides
            if side != "openspiel"
        }
    seconds = 0.02 if quick else args.seconds
    rounds = 1 if quick else args.rounds
    games_per_s = rates(sides, rounds, seconds, batch=10 if quick else 50)
    base = "openspiel" if why is None else "rulecraft"
    ref = statistics.median(games_per_s[base])
    report["games_per_s"] = {
        s: {"median": statistics.median(r), "runs": r, f"vs_{base}": statistics.median(r) / ref}
        for s, r in games_per_s.items()
    }
    clone_sides = [s for s in CLONE_SIDES if s in sides]
    report["clone_us"] = clone_times(clone_sides, 100 if quick else 20_000, 1 if quick else 5, clone_workload)
    report["clone_playout_us"] = clone_times(clone_sides, 100 if quick else 5_000, 1 if quick else 5, playout_workload)
    if args.instructions:
        tasks = [(s, "games", args.games) for s in sides]
        tasks += [(s, kind, args.clones) for kind in ("clone", "playout") for s in clone_sides]
        with ThreadPoolExecutor(args.jobs) as pool:
            counts = list(pool.map(lambda t: instructions(*t), tasks))
        found = dict(zip([(s, k) for s, k, _ in tasks], counts, strict=True))
        ref_ins = found[(base, "games")]
        report["instructions"] = {
            "games": args.games,
            "clones": args.clones,
            "a_game": {s: found[(s, "games")] for s in sides},
            f"speed_vs_{base}": {s: ref_ins / found[(s, "games")] for s in sides},
            "a_clone": {s: found[(s, "clone")] for s in clone_sides},
            "a_clone_and_playout": {s: found[(s, "playout")] for s in clone_sides},
        }
    if args.json:
        print(json.dumps(report, indent=1, sort_keys=True))
        return 0
    print(f"OpenSpiel: {report['openspiel']}")
    checked = min(stat_games, 2_000)
    print(f"games differing from rulecraft's (same seeds, {checked} games): {report['differ_from_rulecraft']}")
    for side, s in stats.items():
        z = report.get("agree_with_openspiel", {}).get(side, {})
        zs = "  z vs OpenSpiel " + " / ".join(f"{z[k]:.2f}" for k in STAT_KEYS) if z else ""
        print(
            f"  {side:<15} P1 wins {s['first_player_win_rate']:.3f}  length {s['mean_length']:.3f}  "
            f"P1 return {s['mean_first_return']:+.3f}{zs}"
        )
    for side, g in report["games_per_s"].items():
        line = f"  {side:<15} {g['median']:10.0f} games/s  x{g[f'vs_{base}']:.2f} of {base}"
        if side in report["clone_us"]:
            line += f"   clone {report['clone_us'][side]:.2f} us (and playout {report['clone_playout_us'][side]:.2f})"
        if "instructions" in report:
            ins = report["instructions"]
            line += f"   {ins['a_game'][side] / 1e3:.1f} k instructions a game (x{ins[f'speed_vs_{base}'][side]:.2f})"
            if side in ins["a_clone"]:
                line += f", {ins['a_clone'][side] / 1e3:.2f} k a clone"
                line += f", {ins['a_clone_and_playout'][side] / 1e3:.2f} k with its playout"
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
