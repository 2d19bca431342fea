"""`Game.apply` is all or nothing, wherever on its way to the next decision it breaks off.

A sink that raises at its k-th call (an event of the trace, a move, a frame pushed) stops an
`apply` at that point of a real game; afterwards the game must equal a clone taken before the
answer: its state as data (in order), answers, trace, pending decision, frames and their local
names, counters and journal, and it must then play the same answers to the same end as the clone.
"""

from __future__ import annotations

import contextlib
import json
import random
from typing import Any

import pytest
import rulecraft
from rulecraft.errors import NO_SPAN
from rulecraft.language.values import ZoneRef
from rulecraft.runtime.context import _slots_of
from rulecraft.runtime.game import Game
from rulecraft.runtime.observe import Observer


class Injected(Exception):
    """The failure a `Breaker` raises."""


class Breaker(Observer):
    """Raises at its `left`-th call from now (0: never), a KeyboardInterrupt when `interrupt`; counts its calls."""

    def __init__(self) -> None:
        self.left = 0
        self.interrupt = False
        self.calls = 0

    def _tick(self) -> None:
        self.calls += 1
        if self.left:
            self.left -= 1
            if not self.left:
                raise KeyboardInterrupt if self.interrupt else Injected

    def on_event(self, game: Any, event: Any) -> None:
        self._tick()

    def on_move(self, game: Any, cards: Any, zone: Any) -> None:
        self._tick()


class PushBreaker(Breaker):
    """A `Breaker` that hears every frame pushed too (so blocks run as frames, not inline)."""

    def on_push(self, game: Any, frame: Any) -> None:
        self._tick()


def _value(v: Any, envs: dict[int, int], stand_ins: dict[int, dict[str, Any]]) -> Any:
    """A frame's slot as plain data: an env (a dict) by its contents and by which env it is, as
    frames that share an env must share it still. An env of a frame the game still shares with a
    clone is the game's copy of it where it made one (`stand_ins`: `machine.Sharing.envs`): the env
    the frame will have once the game touches it."""
    if isinstance(v, dict):
        v = stand_ins.get(id(v), v)
        number = envs.setdefault(id(v), len(envs))
        return ("env", number, sorted((k, repr(x)) for k, x in v.items()))
    if isinstance(v, tuple):
        return tuple(_value(x, envs, stand_ins) for x in v)
    return repr(v) if not isinstance(v, (set, frozenset)) else sorted(v)


def _whole(game: Game) -> dict[str, Any]:
    """Everything `apply` promises to put back, as data to compare."""
    envs: dict[int, int] = {}
    stand_ins = game.sharing.envs if game.sharing is not None else {}
    frames = [
        (
            type(f).__name__,
            [(slot, _value(getattr(f, slot), envs, stand_ins)) for slot in _slots_of(type(f)) if slot != "code"],
        )
        for f in game.frames
    ]
    return {
        "state": json.dumps(game.rulebook.converter.unstructure(game.state)),  # in order, as a save writes it
        "answers": list(game.answers),
        "events": list(game.events),
        "pending": repr(game.current_decision()),
        "frames": frames,
        "counters": (game.attempts, game.together, game.secret, repr(game.secret_run), game.rule_frames, game.steps),
        "dirty": sorted(game.dirty),
        "journal": repr(game.journal),
        "held_views": {p: json.dumps(held.view(), default=repr) for p, held in game.information.held_views.items()},
        "next_draws": dict(game.decisions.next_draws),
    }


CASES = [(name, breaker) for name in ("guildhall", "renaissance_man", "valdora") for breaker in (Breaker, PushBreaker)]


@pytest.mark.parametrize(("name", "breaker"), CASES, ids=[f"{n}-{b.__name__}" for n, b in CASES])
def test_apply_broken_off_anywhere_leaves_the_game_as_it_was(name: str, breaker: type[Breaker]) -> None:
    """At each of the first decisions of a seeded random game, `apply` is made to fail at its k-th
    event, move (or push), k drawn among the calls the answer makes (or one past them: no failure);
    the game must then be its clone's equal, answer alike, and play on to the same end (the last
    answer broken off first at the end of the game)."""
    rb = rulecraft.load(name)
    rng = random.Random(name)
    live = Game(rb, 3 if name != "guildhall" else 2, seed=1)
    sink = breaker()
    live.observe(sink)
    broken = 0
    for n in range(BROKEN_OFF):
        copy = live.clone(trace=True)
        counter = breaker()
        copy.observe(counter)  # (the same sinks: a sink of pushes makes blocks run as frames)
        label = rng.choice(live.legal_answers())
        before = _whole(copy)
        assert _whole(live) == before
        copy.apply(label)  # the answer's calls of the sink, counted: broken off at one of them
        sink.left, sink.interrupt = rng.randint(1, counter.calls + 1), rng.random() < 0.2
        try:
            live.apply(label)
        except (Injected, KeyboardInterrupt):
            broken += 1
            assert _whole(live) == before, f"answer {n}: not put back"
            live.apply(label)
        sink.left = 0
        assert _whole(live) == _whole(copy), f"answer {n}: played on otherwise"
    assert broken > BROKEN_OFF // 2
    while not live.over:  # the rest of the game: the same answers, the same end
        label = rng.choice(live.legal_answers())
        counter.calls = 0
        copy.apply(label)
        if copy.over:  # the last answer: broken off at its last call, the end of the game, first
            before = _whole(live)
            sink.left, sink.interrupt = counter.calls, False
            with pytest.raises(Injected):
                live.apply(label)
            assert _whole(live) == before and not live.over
        live.apply(label)
    assert _whole(live) == _whole(copy)
    assert live.result() == copy.result()


BROKEN_OFF = 60  # the decisions at which `apply` is broken off, in each game


ELSE_WRITES_AN_OLDER_ENV = """game T players 1..1
card Chip { n: int } label "chip {n}"
zone row: Chip public
zone hand[Player]: Chip owner
var points[Player]: int = 0 public
proc ask_then_fail(p: Player) {
  choose by p { option "a" { } option "b" { } }
  fail "no"
}
play {
  let p = players[0]
  attempt { ask_then_fail(p) } else { let y = 5  set points[p] += y }
  move top(hand[p]) to row
}
"""


def test_an_attempts_else_that_names_a_local_of_the_frame_below_is_undone_with_the_apply() -> None:
    """The decision waits inside a procedure called in an attempt: the answer makes the procedure
    fail, the attempt's `else` names a local in the env of the frames below the call (none of them
    touched yet), and an error after it breaks the apply off: that env is put back too."""
    game = rulecraft.load_text(ELSE_WRITES_AN_OLDER_ENV, "t.rules").new_game(players=1)
    before = _whole(game)
    with pytest.raises(rulecraft.RulebookError, match="there is no card to move"):
        game.apply("a")
    assert _whole(game) == before
    assert all("y" not in f.env for f in game.frames)


KNOWING = """game T players 2..2
card Chip { n: int } label "chip {n}"
zone row: Chip public
zone bin: Chip public
zone hand[Player]: Chip owner
var points[Player]: int = 0 public
setup { create 1 Chip { n: 1 } in hand[players[0]]  create 1 Chip { n: 2 } in hand[players[1]] }
proc ask_then_fail(p: Player) {
  choose by p { option "a" { } option "b" { } }
  fail "no"
}
play {
  let p = players[0]
  let q = players[1]
  reveal hand[q] to p
  reveal hand[p] to q
  tell p which of hand[q] have n 2
  choose by p { option "go" { } option "stay" { } }
  move top(hand[q]) to row
  attempt { set points[p] += 1  move top(hand[p]) to row  ask_then_fail(p) } else { let y = 5  set points[p] += y  move top(row) to bin }
  move top(hand[q]) to bin
}
"""


@pytest.mark.parametrize("breaker", [Breaker, PushBreaker])
def test_apply_broken_off_at_each_point_puts_back_what_the_seats_know_and_an_older_attempt(
    breaker: type[Breaker],
) -> None:
    """Each answer is broken off at each of its calls of a sink in turn (on a clone each time): the
    first forgets what two seats were shown and told (the journal would put their seats back in
    another order), the second makes an attempt opened before it fail (its undo goes past what the
    answer changed, into what came before), whose `else` runs, and then breaks off by itself."""
    game = rulecraft.load_text(KNOWING, "t.rules").new_game(players=2)
    assert game.state.known and game.state.told
    for label in ("go", "a"):
        before = _whole(game)
        counter = breaker()
        trial = game.clone(trace=True)
        trial.observe(counter)
        with contextlib.suppress(rulecraft.RulebookError):  # (the second answer breaks off by itself)
            trial.apply(label)
        assert counter.calls > 3
        for k in range(1, counter.calls + 1):
            trial, sink = game.clone(trace=True), breaker()
            trial.observe(sink)
            sink.left = k
            with pytest.raises((Injected, rulecraft.RulebookError)):
                trial.apply(label)
            assert _whole(trial) == before, f"{label}: broken off at call {k}"
        if label == "go":
            game.apply(label)
    with pytest.raises(rulecraft.RulebookError, match="there is no card to move"):
        game.apply("a")
    assert _whole(game) == before


NAMED_DRAW_THEN_FAIL = """game T players 1..1
card Chip { n: int } label "chip {n}"
zone deck: Chip hidden shuffled
zone hand[Player]: Chip owner
setup { for n in 1..3 { create 1 Chip { n: n } in deck } }
play {
  choose by players[0] { option "draw" { } option "wait" { } }
  draw 1 from deck to hand[players[0]]
  fail "no"
}
"""


def test_a_named_draw_an_answer_takes_is_named_again_when_the_answer_fails() -> None:
    """`draw_next` names the next card of a shuffled zone (a scenario's, a replayed table's draw); an
    answer that draws it and then fails is undone whole: the name is there for the next try."""
    game = rulecraft.load_text(NAMED_DRAW_THEN_FAIL, "t.rules").new_game(players=1)
    game.draw_next(ZoneRef("deck"), [("chip 2", NO_SPAN)])
    before = _whole(game)
    with pytest.raises(rulecraft.RulebookError, match="no"):
        game.apply("draw")
    assert _whole(game) == before
