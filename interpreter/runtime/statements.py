"""Statements that a block's generated code does not spell out, the return to a call's frame, attempts,
and unwinding."""

from __future__ import annotations

from typing import Any

from ..errors import Span
from ..language.values import (
    CardRef,
    Player,
    ZoneRef,
)
from ..syntax import ast as s
from . import knowledge
from .basics import DEPTH_BUDGET, Event, SecretRun
from .decisions import Decisions
from .machine import (
    AskFrame,
    AttemptFrame,
    BlockFrame,
    CallFrame,
    RepeatFrame,
    SecretFrame,
    TogetherFrame,
    WhileFrame,
    finish,
)
from .store import Store


class Statements(Store):
    """The statements defined here rather than in a block's generated code, the return to a call's frame, and
    the one unwind path."""

    decisions: Decisions  # the game's Decisions part (decisions.py), set by `Game.__init__`

    # A statement runs in its block's generated code (compile/blocks.py); the statements below are
    # those whose code calls the method here (`_EXEC`).

    def _exec_set_field(self, st: s.SetField, env: dict[str, Any]) -> None:
        obj, field, op, value = st.obj, st.field, st.op, st.value
        card = self._eval(obj, env)
        v = self._eval(value, env)
        if not isinstance(card, CardRef):
            raise self.failure(st.span, f"no card to set {field} on")
        if op != "=":
            v = self.arith(op[0], getattr(self.state.cards[card.id], field), v, value, value, st)
        self._set_field(card, field, v, st.span)

    def draw_cards(self, st: s.Draw, n: int, src: ZoneRef, dst: ZoneRef, env: dict[str, Any]) -> None:
        """`draw n from src to dst`, its operands evaluated (by the block's generated code, compile/blocks.py)."""
        if self.program.zones[src.name].shuffled:
            decisions = self.decisions
            if decisions.auto_chance and not decisions.next_draws:
                if (
                    not self.sinks.pushes  # (a sink that hears every frame pushed hears the frame)
                    # (else a push, its own or a rule's after a move, names the runaway)
                    and len(self.frames) + self.inline_depth + 2 <= DEPTH_BUDGET
                    and decisions.draw_at_once(self, None, st, env, n, src, dst, len(self.frames))  # type: ignore[arg-type]  # a layer of Game (see core.py)
                ):
                    return  # drawn without a frame: one is made only if a move started other work first
                frame = _draw_frame(st, env, n, src, dst)
                self.push(frame)
                # Drawn now, as the machine would step the frame next: done, it is gone, and the
                # block runs on in this step (a move that started a rule leaves it for later).
                decisions.ask(self, frame)  # type: ignore[arg-type]  # a layer of Game (see core.py)
            else:
                self.push(_draw_frame(st, env, n, src, dst))
        else:
            ids = self.state.zones.get(src.key, [])
            taken = [CardRef(i) for i in reversed(ids[max(0, len(ids) - n) :])] if n > 0 else []
            self.move(taken, dst, False, st.span)

    def _exec_reveal(self, st: s.Reveal, env: dict[str, Any]) -> None:
        v = self._eval(st.what, env)
        cards = [v] if isinstance(v, CardRef) else list(self.as_list(v, st.what))  # none (an empty pile's top): nothing
        if not all(isinstance(c, CardRef) for c in cards):
            raise self.runtime_error(st.what.span, f"only cards are revealed, not {self.label(v)}")
        to = self._eval(st.to, env)
        players = [to] if isinstance(to, Player) else list(self.as_list(to, st.to))
        if not all(isinstance(p, Player) for p in players):
            raise self.runtime_error(st.to.span, f"cards are revealed to players, not to {self.label(to)}")
        knowledge.reveal(self, cards, players, st.span)  # type: ignore[arg-type]  # a layer of Game (see core.py)

    def _exec_tell(self, st: s.Tell, env: dict[str, Any]) -> None:
        to = self._eval(st.to, env)
        players = [to] if isinstance(to, Player) else list(self.as_list(to, st.to))
        if not all(isinstance(p, Player) for p in players):
            raise self.runtime_error(st.to.span, f"facts are told to players, not to {self.label(to)}")
        v = self._eval(st.what, env)
        cards = [v] if isinstance(v, CardRef) else list(self.as_list(v, st.what))
        if not all(isinstance(c, CardRef) for c in cards):
            raise self.runtime_error(st.what.span, f"facts are told about cards, not {self.label(v)}")
        for c in cards:
            if not hasattr(self.state.cards[c.id], st.field):
                raise self.runtime_error(st.span, f"{self.label(c)} has no field '{st.field}'")
        value = self._eval(st.value, env)
        knowledge.tell(self, players, cards, st.field, value, st.span)  # type: ignore[arg-type]  # a layer of Game (see core.py)

    def _exec_while(self, st: s.While, env: dict[str, Any]) -> None:
        self.push(WhileFrame(st, env))

    def _exec_repeat(self, st: s.Repeat, env: dict[str, Any]) -> None:
        count, body = st.count, st.body
        self.push(RepeatFrame(self.number_of(count, env), body, env))

    def _exec_match(self, st: s.Match, env: dict[str, Any]) -> None:
        subject, cases, otherwise = st.subject, st.cases, st.otherwise
        v = self._eval(subject, env)
        for case in cases:
            if self._eval(case.value, env) == v:
                self.push(BlockFrame(case.body.stmts, env))
                return
        if otherwise is not None:
            self.push(BlockFrame(otherwise.stmts, env))

    def _exec_attempt(self, st: s.Attempt, env: dict[str, Any]) -> None:
        body, otherwise = st.body, st.otherwise
        self.open_attempt(otherwise, env, st.span, "attempt")
        self.push(BlockFrame(body.stmts, env))

    def open_attempt(
        self,
        otherwise: s.Block | None,
        env: dict[str, Any],
        span: Span,
        what: str,
        retry: tuple[s.Use, dict[str, Any], tuple[int, ...]] | None = None,
    ) -> None:
        """Open an attempt (or an ability's tier, with the `use` to ask again: `retry`): its frame
        marks the journal, so that a failure below it undoes what was done since."""
        self.attempts += 1
        self.push(AttemptFrame(len(self.journal), otherwise, env, span, what, retry))

    def _exec_together(self, st: s.Together, env: dict[str, Any]) -> None:
        body = st.body
        self.together += 1
        self.push(TogetherFrame(env))
        self.push(BlockFrame(body.stmts, env))

    def _exec_secret(self, st: s.Secret, env: dict[str, Any]) -> None:
        if self.secret == 0:
            self.secret_run = SecretRun(self.steps, st.span)
        self.secret += 1
        self.push(SecretFrame(env))
        self.push(BlockFrame(st.body.stmts, env))

    def _exec_fail(self, st: s.Fail, env: dict[str, Any]) -> None:
        message = st.message
        raise self.failure(st.span, message)

    def _exec_require(self, st: s.Require, env: dict[str, Any]) -> None:
        cond, message = st.condition, st.message
        if not self._truth(cond, env):
            raise self.failure(st.span, message)

    def _exec_choose(self, st: s.Choose, env: dict[str, Any]) -> None:
        self.push(AskFrame("choose", st, env))

    def _exec_menu(self, st: s.Menu, env: dict[str, Any]) -> None:
        self.push(AskFrame("menu", st, env))

    def _exec_use(self, st: s.Use, env: dict[str, Any]) -> None:
        self.push(AskFrame("use", st, env))

    def return_from_call(self, result: Any, span: Span) -> None:
        """`return`: unwind the frames to the innermost call's frame, which takes the value."""
        while self.frames:
            frame = self.frames.pop()
            if isinstance(frame, CallFrame):
                frame.finish(self, result)  # type: ignore[arg-type]  # a layer of Game (see core.py)
                return
            frame.unwind(self)  # type: ignore[arg-type]  # a layer of Game (see core.py)
            if isinstance(frame, AttemptFrame):
                self.attempts -= 1
                if self.attempts == 0:
                    self.journal.clear()
        raise self.located(span, "'return' outside a procedure")

    def _exec_end_game(self, st: s.EndGame, env: dict[str, Any]) -> None:
        winners = st.winners
        chosen = None
        if winners is not None:
            chosen = [p for p in self.as_list(self._eval(winners, env), winners) if isinstance(p, Player)]
        finish(self, chosen, st.span)  # type: ignore[arg-type]  # a layer of Game (see core.py)

    def _exec_end_unfinished(self, st: s.EndUnfinished, env: dict[str, Any]) -> None:
        why = self._eval(st.text, env)
        self.state.unfinished = why
        self.state.over = True
        self.state.winners = []
        self.frames.clear()
        self.pending = None
        if self.sinks.events:
            self.emit(Event("end", f"unfinished: {why}", st.span))

    def _exec_end_together(self, st: s.EndTogether, env: dict[str, Any]) -> None:
        # A cooperative end: every player won (all are winners) or every player lost (none is).
        outcome = "won" if st.won else "lost"
        self.state.together = outcome
        self.state.over = True
        self.state.winners = [p.index for p in self.players] if st.won else []
        self.frames.clear()
        self.pending = None
        if self.sinks.events:
            self.emit(Event("end", f"together {outcome}", st.span))

    def _exec_say(self, st: s.Say, env: dict[str, Any]) -> None:
        text = st.text
        if self.sinks.events:
            self.note_event("say", self._eval(text, env), st.span)


def _draw_frame(st: s.Draw, env: dict[str, Any], n: int, src: ZoneRef, dst: ZoneRef) -> AskFrame:
    """The frame of a draw from a shuffled zone that asks the table (or waits), `n` cards left."""
    frame = AskFrame("draw", st, env)
    frame.count = n
    frame.pool = (src, dst)
    return frame


# The method that does each kind of statement that a block's code does not spell out (compile/blocks.py).
EXEC: dict[type, Any] = {
    s.SetField: Statements._exec_set_field,
    s.Reveal: Statements._exec_reveal,
    s.Tell: Statements._exec_tell,
    s.While: Statements._exec_while,
    s.Repeat: Statements._exec_repeat,
    s.Match: Statements._exec_match,
    s.Attempt: Statements._exec_attempt,
    s.Together: Statements._exec_together,
    s.Secret: Statements._exec_secret,
    s.Fail: Statements._exec_fail,
    s.Require: Statements._exec_require,
    s.Choose: Statements._exec_choose,
    s.Menu: Statements._exec_menu,
    s.Use: Statements._exec_use,
    s.EndGame: Statements._exec_end_game,
    s.EndUnfinished: Statements._exec_end_unfinished,
    s.EndTogether: Statements._exec_end_together,
    s.Say: Statements._exec_say,
}
