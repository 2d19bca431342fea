"""Observers: what tools hear of a game as it runs, while the runtime knows none of them.

A sink is an `Observer` that overrides the hooks it needs (the others are never called):
- `on_event(game, event)`: a line of the trace (a move, a `set`, a choice, a rule that fired, ...).
  Events are made only while some sink listens for them: their texts name cards, which costs;
- `on_push(game, frame)`: a frame was pushed (a block, a loop, a call, a question, ...); rule
  coverage (tools/coverage.py) counts the blocks that start;
- `on_move(game, cards, zone)`: cards are about to move to a zone (`game.state.location` still
  says where they are); the simulator counts the cards that move.

`Game.observe(sink)` adds a sink to a game; `Game(..., observers=[sink])` adds it before the setup
runs; `observing(sink)` adds it to every game made while the context lasts (how the pytest plugin
sees the games a test suite makes). The game keeps, for each hook, the tuple of the sinks that
override it (`game.sinks`, a `Sinks`), so that a hook nobody listens to costs the test of an empty
tuple.

The trace, `game.events`, is one sink (`Trace`), installed by `Game(trace=True)`. A sink hears
every step, those of an `apply` that fails and is undone too; the game's own trace alone is put
back with the game.

A clone (`Game.clone`) is another history, not this one (an agent's look-ahead, a soak's twin): it
starts with no sink but its own trace when asked (`clone(trace=True)`, a copy of the events so
far). A tool that wants to hear a clone observes it.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from typing import Any

from ..language.values import CardRef, ZoneRef
from .basics import Event

HOOKS = ("on_event", "on_push", "on_move")


class Observer:
    """A sink for what happens in games: override the hooks you need.

    The hooks are given the game (a `Game`) and, for a push, the frame (a `machine.Frame`): typed
    `Any` here, as observe.py is below both (runtime/ imports one way), so that a sink may name
    the game's class, or the `Context` it uses, in its own hooks."""

    def on_event(self, game: Any, event: Event) -> None:
        """A line of the trace."""

    def on_push(self, game: Any, frame: Any) -> None:
        """A frame was pushed (it is on top of `game.frames`)."""

    def on_move(self, game: Any, cards: Sequence[CardRef], zone: ZoneRef) -> None:
        """Cards are about to move to `zone` (they are still where they were)."""


def listens(sink: Observer, hook: str) -> bool:
    """Whether a sink overrides a hook (a hook it does not override is never called)."""
    return getattr(type(sink), hook) is not getattr(Observer, hook)


class Trace(Observer):
    """The trace of a game: its events in order (`Game.events`)."""

    def __init__(self, events: list[Event] | None = None):
        self.events: list[Event] = events if events is not None else []

    def on_event(self, game: Any, event: Event) -> None:
        self.events.append(event)


class Sinks:
    """The sinks of one game, by hook (`game.sinks`): the game's fast path tests one of these tuples.

    `trace` is the game's own trace (`Game(trace=True)`), whose events `game.events` shows; `log` is
    its list of events while the trace is the only sink of events, so that `GameCore.emit` appends to
    it without calling the sink (a game traces thousands), else None."""

    __slots__ = ("events", "log", "moves", "pushes", "trace")

    def __init__(self, trace: Trace | None = None):
        self.events: tuple[Observer, ...] = ()
        self.pushes: tuple[Observer, ...] = ()
        self.moves: tuple[Observer, ...] = ()
        self.log: list[Event] | None = None
        self.trace = trace
        if trace is not None:
            self.add(trace)

    def add(self, sink: Observer) -> None:
        """Let `sink` hear the hooks it overrides."""
        if listens(sink, "on_event"):
            self.events = (*self.events, sink)
            trace = self.trace
            self.log = trace.events if trace is not None and type(trace) is Trace and self.events == (trace,) else None
        if listens(sink, "on_push"):
            self.pushes = (*self.pushes, sink)
        if listens(sink, "on_move"):
            self.moves = (*self.moves, sink)

    def all(self) -> tuple[Observer, ...]:
        """Every sink, once each."""
        return tuple(dict.fromkeys((*self.events, *self.pushes, *self.moves)))


# The sinks of a game that nobody hears (no trace, no observer), shared by every such game and never changed:
# `GameCore.observe` gives a game sinks of its own before it adds one.
NO_SINKS = Sinks()

# The sinks that every new game gets (`observing`), outermost first: `Game.__init__` reads the list itself,
# so that a new game tests it without a call; only `observing` changes it.
EVERY_GAME: list[Observer] = []


@contextlib.contextmanager
def observing(sink: Observer) -> Iterator[Observer]:
    """Add `sink` to every game made while the context lasts, from its setup on (not to clones)."""
    EVERY_GAME.append(sink)
    try:
        yield sink
    finally:
        EVERY_GAME.remove(sink)
