"""The statements that a block's generated code does not spell out, and the draw a block's code hands its
operands to: one function each, `f(g, st, env)` (a draw's `f(g, st, n, src, dst, env)`), over the game as
the `Doing` protocol. They are functions rather than a layer of `Game`: the generated code calls each as a
constant of its namespace (`EXEC`, given to codecache.py by game.py), and nothing here is a method."""

from __future__ import annotations

from typing import Any, Protocol

from ..errors import Span
from ..language.values import (
    CardRef,
    Player,
    ZoneRef,
)
from ..syntax import ast as s
from . import knowledge
from .basics import DEPTH_BUDGET, Event, SecretRun
from .context import apart
from .decisions import Asking, Decisions
from .machine import (
    AskFrame,
    BlockFrame,
    RepeatFrame,
    Running,
    SecretFrame,
    TogetherFrame,
    WhileFrame,
    finish,
    open_attempt,
)


class Doing(Running, Asking, Protocol):
    """A game as a statement's function uses it (`Game` has it all): the machine's `Running`, the
    decisions' `Asking` (a draw asks the table; expressions' values) and a card's field set."""

    @property
    def decisions(self) -> Decisions: ...

    def set_field(self, card: CardRef, field: str, value: Any, span: Span) -> None: ...


def exec_set_field(g: Doing, st: s.SetField, env: dict[str, Any]) -> None:
    obj, field, op, value = st.obj, st.field, st.op, st.value
    card = g.evaluate(obj, env)
    v = g.evaluate(value, env)
    if not isinstance(card, CardRef):
        raise g.failure(st.span, f"no card to set {field} on")
    if op != "=":
        v = g.arith(op[0], getattr(g.state.cards[card.id], field), v, value, value, st)
    g.set_field(card, field, v, st.span)


def draw_cards(g: Doing, st: s.Draw, n: int, src: ZoneRef, dst: ZoneRef, env: dict[str, Any]) -> None:
    """`draw n from src to dst`, its operands evaluated (by the block's generated code, compile/blocks.py)."""
    if g.program.zones[src.name].shuffled:
        decisions = g.decisions
        if decisions.auto_chance and not decisions.next_draws:
            if (
                not g.sinks.pushes  # (a sink that hears every frame pushed hears the frame)
                # (else a push, its own or a rule's after a move, names the runaway)
                and len(g.frames) + g.inline_depth + 2 <= DEPTH_BUDGET
                and decisions.draw_at_once(g, None, st, env, n, src, dst, len(g.frames))
            ):
                return  # drawn without a frame: one is made only if a move started other work first
            frame = _draw_frame(st, env, n, src, dst)
            g.push(frame)
            # Drawn now, as the machine would step the frame next: done, it is gone, and the
            # block runs on in this step (a move that started a rule leaves it for later).
            decisions.ask(g, frame)
        else:
            g.push(_draw_frame(st, env, n, src, dst))
    else:
        ids = g.state.zones.get(src.key, [])
        taken = [CardRef(i) for i in reversed(ids[max(0, len(ids) - n) :])] if n > 0 else []
        g.move(taken, dst, False, st.span)


def exec_reveal(g: Doing, st: s.Reveal, env: dict[str, Any]) -> None:
    v = g.evaluate(st.what, env)
    cards = [v] if isinstance(v, CardRef) else list(g.as_list(v, st.what))  # none (an empty pile's top): nothing
    if not all(isinstance(c, CardRef) for c in cards):
        raise g.runtime_error(st.what.span, f"only cards are revealed, not {g.label(v)}")
    to = g.evaluate(st.to, env)
    players = [to] if isinstance(to, Player) else list(g.as_list(to, st.to))
    if not all(isinstance(p, Player) for p in players):
        raise g.runtime_error(st.to.span, f"cards are revealed to players, not to {g.label(to)}")
    knowledge.reveal(g, cards, players, st.span)


def exec_tell(g: Doing, st: s.Tell, env: dict[str, Any]) -> None:
    to = g.evaluate(st.to, env)
    players = [to] if isinstance(to, Player) else list(g.as_list(to, st.to))
    if not all(isinstance(p, Player) for p in players):
        raise g.runtime_error(st.to.span, f"facts are told to players, not to {g.label(to)}")
    v = g.evaluate(st.what, env)
    cards = [v] if isinstance(v, CardRef) else list(g.as_list(v, st.what))
    if not all(isinstance(c, CardRef) for c in cards):
        raise g.runtime_error(st.what.span, f"facts are told about cards, not {g.label(v)}")
    for c in cards:
        if not hasattr(g.state.cards[c.id], st.field):
            raise g.runtime_error(st.span, f"{g.label(c)} has no field '{st.field}'")
    value = g.evaluate(st.value, env)
    knowledge.tell(g, players, cards, st.field, value, st.span)


def exec_while(g: Doing, st: s.While, env: dict[str, Any]) -> None:
    g.push(WhileFrame(st, env))


def exec_repeat(g: Doing, st: s.Repeat, env: dict[str, Any]) -> None:
    count, body = st.count, st.body
    g.push(RepeatFrame(g.number_of(count, env), body, env))


def exec_match(g: Doing, st: s.Match, env: dict[str, Any]) -> None:
    subject, cases, otherwise = st.subject, st.cases, st.otherwise
    v = g.evaluate(subject, env)
    for case in cases:
        if g.evaluate(case.value, env) == v:
            g.push(BlockFrame(case.body.stmts, env))
            return
    if otherwise is not None:
        g.push(BlockFrame(otherwise.stmts, env))


def exec_attempt(g: Doing, st: s.Attempt, env: dict[str, Any]) -> None:
    body, otherwise = st.body, st.otherwise
    open_attempt(g, otherwise, env, st.span, "attempt")
    g.push(BlockFrame(body.stmts, env))


def exec_together(g: Doing, st: s.Together, env: dict[str, Any]) -> None:
    body = st.body
    g.together += 1
    g.push(TogetherFrame(env))
    g.push(BlockFrame(body.stmts, env))


def exec_secret(g: Doing, st: s.Secret, env: dict[str, Any]) -> None:
    if g.secret == 0:
        g.secret_run = SecretRun(g.steps, st.span)
    g.secret += 1
    g.push(SecretFrame(env))
    g.push(BlockFrame(st.body.stmts, env))


def exec_fail(g: Doing, st: s.Fail, env: dict[str, Any]) -> None:
    message = st.message
    raise g.failure(st.span, message)


def exec_require(g: Doing, st: s.Require, env: dict[str, Any]) -> None:
    cond, message = st.condition, st.message
    if not g.holds(cond, env):
        raise g.failure(st.span, message)


def exec_choose(g: Doing, st: s.Choose, env: dict[str, Any]) -> None:
    frame = AskFrame("choose", st, env)
    frames = g.frames
    if g.sinks.pushes or len(frames) + g.inline_depth >= DEPTH_BUDGET:
        g.push(frame)
    else:  # (`push`, its common case written out: within the depth budget, nobody hears a push)
        frames.append(frame)


def exec_menu(g: Doing, st: s.Menu, env: dict[str, Any]) -> None:
    frame = AskFrame("menu", st, env)
    frames = g.frames
    if g.sinks.pushes or len(frames) + g.inline_depth >= DEPTH_BUDGET:
        g.push(frame)
    else:  # (`push`, its common case written out, as `exec_choose`)
        frames.append(frame)


def exec_use(g: Doing, st: s.Use, env: dict[str, Any]) -> None:
    g.push(AskFrame("use", st, env))


def exec_end_game(g: Doing, st: s.EndGame, env: dict[str, Any]) -> None:
    winners = st.winners
    chosen = None
    if winners is not None:
        named = g.evaluate(winners, env)
        if named.__class__ is tuple and len(named) == 1 and named[0].__class__ is Player:  # (one winner)
            chosen = [named[0]]
        else:
            chosen = [p for p in g.as_list(named, winners) if isinstance(p, Player)]
    finish(g, chosen, st.span)


def exec_end_unfinished(g: Doing, st: s.EndUnfinished, env: dict[str, Any]) -> None:
    why = g.evaluate(st.text, env)
    g.state.unfinished = why
    g.state.over = True
    g.state.winners = []
    g.frames.clear()
    g.pending = None
    if g.sinks.events:
        g.emit(Event("end", f"unfinished: {why}", st.span))


def exec_end_together(g: Doing, st: s.EndTogether, env: dict[str, Any]) -> None:
    # A cooperative end: every player won (all are winners) or every player lost (none is).
    outcome = "won" if st.won else "lost"
    g.state.together = outcome
    g.state.over = True
    g.state.winners = [p.index for p in g.players] if st.won else []
    g.frames.clear()
    g.pending = None
    if g.sinks.events:
        g.emit(Event("end", f"together {outcome}", st.span))


def exec_say(g: Doing, st: s.Say, env: dict[str, Any]) -> None:
    text = st.text
    if g.sinks.events:
        with apart(g):  # (computed only in a game someone hears)
            said = g.evaluate(text, env)
        g.note_event("say", said, st.span)


def _draw_frame(st: s.Draw, env: dict[str, Any], n: int, src: ZoneRef, dst: ZoneRef) -> AskFrame:
    """The frame of a draw from a shuffled zone that asks the table (or waits), `n` cards left."""
    frame = AskFrame("draw", st, env)
    frame.count = n
    frame.pool = (src, dst)
    return frame


# The function that does each kind of statement that a block's code does not spell out, and the draw's
# (compile/blocks.py: a block's code calls it, `Parts.method`).
EXEC: dict[type, Any] = {
    s.Draw: draw_cards,
    s.SetField: exec_set_field,
    s.Reveal: exec_reveal,
    s.Tell: exec_tell,
    s.While: exec_while,
    s.Repeat: exec_repeat,
    s.Match: exec_match,
    s.Attempt: exec_attempt,
    s.Together: exec_together,
    s.Secret: exec_secret,
    s.Fail: exec_fail,
    s.Require: exec_require,
    s.Choose: exec_choose,
    s.Menu: exec_menu,
    s.Use: exec_use,
    s.EndGame: exec_end_game,
    s.EndUnfinished: exec_end_unfinished,
    s.EndTogether: exec_end_together,
    s.Say: exec_say,
}
