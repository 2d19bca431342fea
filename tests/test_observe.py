"""The observer (runtime/observe.py): sinks hear a game's events, pushed frames and moves; the trace is one sink."""

from __future__ import annotations

import gc
from collections.abc import Sequence
from typing import Any

import rulecraft
from rulecraft.agents import RandomAgent
from rulecraft.runtime.basics import Event
from rulecraft.runtime.machine import BlockFrame
from rulecraft.runtime.observe import Observer, Trace, observing

TUTORIAL = rulecraft.load("examples/tutorial.rules")


class Everything(Observer):
    """Keeps what it hears."""

    def __init__(self) -> None:
        self.events: list[Event] = []
        self.pushed: list[Any] = []
        self.moves: list[tuple[list[str], str, str]] = []

    def on_event(self, game: Any, event: Event) -> None:
        self.events.append(event)

    def on_push(self, game: Any, frame: Any) -> None:
        assert game.frames[-1] is frame
        self.pushed.append(frame)

    def on_move(self, game: Any, cards: Sequence[Any], zone: Any) -> None:
        self.moves.append(([game.state.location[c.id] for c in cards], zone.key, game.label(cards[0])))


def play_out(game: rulecraft.Game) -> None:
    while not game.over:
        game.apply(0)


def test_a_sink_hears_what_the_trace_holds() -> None:
    """A sink of events hears the same lines as the game's trace, in the same order."""
    sink = Everything()
    game = rulecraft.Game(TUTORIAL, 2, seed=3, observers=[sink])
    play_out(game)
    assert sink.events == game.events
    assert len(game.events) > 20


def test_a_game_that_does_not_trace_makes_no_events() -> None:
    """Without a sink of events, no event is made: the trace of an untraced game stays empty (rules fired too)."""
    sink = Everything()
    game = rulecraft.Game(TUTORIAL, 2, seed=3, trace=False, observers=[sink])
    play_out(game)
    assert (game.events, game.trace, game.sinks.events) == ([], None, (sink,))
    quiet = rulecraft.Game(TUTORIAL, 2, seed=3, trace=False)
    play_out(quiet)
    assert (quiet.events, quiet.sinks.events, quiet.sinks.pushes, quiet.sinks.moves) == ([], (), (), ())
    assert quiet.answers == game.answers


def test_a_sink_added_to_a_game_nobody_heard_hears_that_game_alone() -> None:
    """Games that nobody hears (no trace, no observer) and their clones are heard by nobody; a sink added
    to one of them later (`observe`) hears that game from then on, and no other of them."""
    games = [rulecraft.Game(TUTORIAL, 2, seed=3, trace=False) for _ in range(2)]
    clone = games[0].clone()
    sink = Everything()
    games[1].observe(sink)
    for game in (*games, clone):
        play_out(game)
    assert sink.events and sink.moves and sink.events[-1].verb == "end"
    for quiet in (games[0], clone):
        assert (quiet.sinks.events, quiet.sinks.pushes, quiet.sinks.moves) == ((), (), ())
    assert games[0].answers == games[1].answers == clone.answers


def test_a_move_is_heard_before_it_happens() -> None:
    """`on_move` hears the cards while they are still where they were, and the zone they go to."""
    sink = Everything()
    rulecraft.Game(TUTORIAL, 2, seed=3, trace=False, observers=[sink])
    assert sink.moves
    assert all(dst not in sources for sources, dst, _ in sink.moves)


def test_a_sink_hears_only_its_hooks() -> None:
    """A sink is called only for the hooks it overrides; pushes are heard as every frame starts."""

    class Pushes(Observer):
        def __init__(self) -> None:
            self.blocks = 0

        def on_push(self, game: Any, frame: Any) -> None:
            self.blocks += frame.__class__ is BlockFrame

    pushes = Pushes()
    game = rulecraft.Game(TUTORIAL, 2, seed=3, trace=False, observers=[pushes])
    assert (game.sinks.events, game.sinks.pushes, game.sinks.moves) == ((), (pushes,), ())
    assert pushes.blocks > 0


def test_a_clone_starts_without_sinks() -> None:
    """A clone is another history: it has no sink of the game's, only a trace of its own when asked,
    which starts with a copy of the game's events."""
    sink = Everything()
    game = rulecraft.Game(TUTORIAL, 2, seed=3, observers=[sink])
    assert game.clone().sinks.all() == ()
    twin = game.clone(trace=True)
    assert twin.sinks.all() == (twin.trace,) and isinstance(twin.trace, Trace)
    assert twin.events == game.events and twin.events is not game.events
    heard = len(sink.events)
    twin.apply(0)
    assert len(sink.events) == heard
    assert len(twin.events) > len(game.events)


def test_observing_adds_a_sink_to_the_games_made_meanwhile() -> None:
    """`observing(sink)` adds the sink to every game made inside the context, from its setup on."""
    sink = Everything()
    with observing(sink):
        inside = rulecraft.Game(TUTORIAL, 2, seed=3, trace=False)
    after = rulecraft.Game(TUTORIAL, 2, seed=3, trace=False)
    assert sink in inside.sinks.all() and sink not in after.sinks.all()
    assert sink.pushed and sink.moves


def test_observe_adds_a_sink_from_now_on() -> None:
    """`game.observe(sink)` hears what happens after it, not what happened before (the trace alone
    had its events appended directly: from then on both hear them)."""
    game = rulecraft.Game(TUTORIAL, 2, seed=3)
    assert game.sinks.log is game.events
    sink = Everything()
    game.observe(sink)
    assert game.sinks.log is None
    before = len(game.events)
    assert sink.events == []
    game.apply(0)
    assert sink.events == game.events[before:] != []


def test_a_game_keeps_few_enough_attributes_for_fast_reads() -> None:
    """A game, its sinks and trace included, keeps at most 28 attributes of its own: CPython 3.11 keeps
    instance attributes in a key table its class's instances share, which each new instance leaves less
    room to grow, and reads every attribute of an object past it the slow way (a 29th made a game's reads
    some 25 % slower). A clone keeps the same attributes."""
    game = rulecraft.Game(TUTORIAL, 2, seed=3, observers=[Everything()])
    assert len(vars(game)) <= 28
    assert set(vars(game.clone(trace=True))) == set(vars(game))


def test_a_game_nobody_holds_is_freed_at_once() -> None:
    """A game, its clones and the still copies it makes while a secret run asks (Renaissance Man's
    secret phases) make no reference cycle with their parts (decisions, information, sinks): a game
    nobody holds is freed by its reference count at once, not left to the cyclic collector, which
    would walk every live game's state again and again (a few per cent of a simulation)."""

    def games() -> int:
        return sum(1 for o in gc.get_objects() if type(o) is rulecraft.Game)

    gc.collect()
    gc.disable()
    try:
        before = games()
        game = rulecraft.Game(rulecraft.load("renaissance_man"), 2, seed=3)
        agents = [RandomAgent(5), RandomAgent(6)]
        for _ in range(40):  # (into a secret phase: views held, still copies made)
            decision = game.pending
            game.apply(agents[decision.player.index if decision.player else 0].choose(game, decision))
        assert game.information.held_views  # (the position this test needs: views held in a secret run)
        twin = game.clone()
        twin.apply(0)
        assert games() > before + 2  # the game, its clone and the still copies of the held views
        del game, twin, decision
        assert games() == before
    finally:
        gc.enable()
