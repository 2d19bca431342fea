"""Run a checked program: a game is a state plus a stack of frames, advanced by answers.

How the language maps onto Python here:
- a statement is run by its closure (`closures._compile_stmt`: the common statements defined
  there, the others by a `Game._exec_*` method here); a compound statement pushes a *frame*
  (machine.py; plain data: the statements left, a loop position, the local names) instead of recursing, so
  a game paused at a decision is only data: it can be cloned, and resumed, at any decision; a
  block runs its statements one after another within one step until one starts other work;
- an expression's meaning is spelled out by the `Game._eval_*` methods, but it is run by a
  closure made once per node (`runtime/closures.py`), which falls back on those methods for anything
  unusual; a built-in function is a row of the table in `language/builtins.py`;
- every choice (a player's or the table's) is a `Decision` with a list of labelled options
  (`runtime/asks.py`); the frame that asked stays on top of the stack until `apply` answers it, and
  `pending_ask` describes it to the tools without showing them the frame;
- every change of the state goes through `_move`, `_set_var`, `_set_field`, `_create`, which emit a
  trace event with the span of the rule that caused it, and journal the old value while an
  `attempt` is open so that a failure can undo everything the attempt did;
- every failure at run time (a `fail`, a card that is not there, a value of the wrong kind, ...)
  is a `RuntimeFailure`, raised where it happens and unwound in one place, `_unwind`: to the
  innermost attempt or tier, else out of the game as a located error. A budget is not a failure;
- `apply` is all or nothing: it keeps what it needs to put the game back (see `Keep`).
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import attrs

from ..check.checker import Program, first_player_param
from ..errors import NO_SPAN, Diagnostic, GameError, RulebookError, Span
from ..inputs import clip
from ..language.builtins import BUILTINS, LIST_BUDGET
from ..language.values import (
    TABLE,
    CardRef,
    EnumValue,
    Player,
    Record,
    ZoneRef,
    contains,
    label_of_plain,
    parse_key,
    same,
    zone_key,
)
from ..syntax import ast as s
from . import closures
from .asks import Ask, ChooseAsk, Decision, DrawAsk, MenuAsk, Option, UseAsk, tier_label
from .closures import CodeCache, code_cache
from .machine import (
    CARD_BUDGET,
    DEPTH_BUDGET,
    FAIL_HINT,
    FN_DEPTH_BUDGET,
    INT_BUDGET,
    LABEL_CACHE_SIZE,
    MASK64,
    OPTION_BUDGET,
    SECRET_TEXT,
    STEP_BUDGET,
    TEXT_BUDGET,
    VALUE_DEPTH,
    VALUE_ERRORS,
    AskFrame,
    AttemptFrame,
    BeforePlayFrame,
    BlockFrame,
    CallFrame,
    Event,
    Frame,
    Keep,
    RepeatFrame,
    RuleFrame,
    RuntimeFailure,
    SecretFrame,
    SecretRun,
    TogetherFrame,
    WhileFrame,
    attrs_fields,
    card_refs,
    query_by_keys,
    splitmix,
)
from .state import State, make_converter

# ---------------------------------------------------------------------------- the game


class Game:
    """A game in progress: the OpenSpiel shape (pending / legal_answers / apply / view / over / result)."""

    def __init__(
        self,
        rulebook: Any,
        players: int,
        seed: int | None = 0,
        *,
        trace: bool = True,
        auto_chance: bool = True,
        check_invariants: bool = False,
        before_play: Callable[[Game], None] | None = None,
        _blank: bool = False,
    ):
        """A new game, set up and run to its first decision.

        `before_play` edits the position between setup and play (a scenario's `move` and `set`
        lines): it is called once, as one step, with the game; it changes the state through
        `evaluate`, `execute` and `move_cards`, and the rules fire after it as after any step.
        """
        self.rulebook = rulebook
        self.program: Program = rulebook.program
        # Labels of cards whose fields are plain values depend on the card alone: computed once,
        # shared by every game of the rulebook (see `label`).
        self._labels: dict[Any, Any] = _label_cache(rulebook)
        # Each expression is compiled once into a closure, shared by every game of the rulebook.
        self._code: CodeCache = code_cache(rulebook, self.program)
        # What a zone or variable key is (its declaration, the seat that owns it), shared like the labels.
        self._key_info: dict[str, tuple[Any, str | None]] = _shared_dict(rulebook, "key_info")
        if _blank:
            return
        if not self.program.min_players <= players <= self.program.max_players:
            raise GameError(
                f"{self.program.name} is played by {self.program.min_players} to "
                f"{self.program.max_players} players, not {players}"
            )
        self.classes: dict[str, type] = rulebook.card_classes
        self.state = State(players=players, rng=_fold(seed or 0))
        self.seed = seed
        self.auto_chance = auto_chance and seed is not None
        self.tracing = trace
        self.events: list[Event] = []
        self.answers: list[tuple[str, str]] = []
        self.frames: list[Frame] = []
        self.journal: list[tuple[Any, ...]] = []
        self.attempts = 0
        self.together = 0
        self.secret = 0  # how many `secret` blocks are open; events inside carry secret_run
        self.secret_run: SecretRun | None = None
        self.rule_frames = 0
        self.dirty: set[str] = set()
        self.pending: Decision | None = None
        self.steps = 0
        self._keep: Keep | None = None  # while `apply` runs: what it needs to undo itself
        self._fn_depth = 0
        self.work = 0  # elements that generated code walked since the rules last started running (WORK_BUDGET)
        # What was derived from the state since it last changed: functions' values (closures.py)
        # and zones' labels (views); every change of the state empties it.
        self._memo: dict[tuple[Any, ...], Any] = {}
        self.check_invariants = check_invariants
        # The next draws of shuffled zones, set from outside (`draw_next`): zone key -> (label, span), in order.
        self.next_draws: dict[str, tuple[tuple[str, Span], ...]] = {}
        self._consts: dict[str, Any] = {}
        self._players = tuple(Player(i) for i in range(players))
        self._init_vars()
        if self.program.play is not None:
            self._push(BlockFrame(self.program.play.stmts, {}))
            if before_play is not None:
                self._push(BeforePlayFrame(before_play))
        for block in reversed(self.program.setup):
            self._push(BlockFrame(block.stmts, {}))
        self._run()

    # ---------------------------------------------------------------- public API

    def current_decision(self) -> Decision | None:
        """The decision the game waits on, or None when it is over."""
        return self.pending

    def pending_ask(self) -> Ask | None:
        """The pending decision with what kind of statement asks it and what it offers (None: none)."""
        frame = self.frames[-1] if self.frames else None
        if self.pending is None or not isinstance(frame, AskFrame):
            return None
        offered = (*frame.pool, *frame.picked)
        match frame.kind:
            case "choose":
                return ChooseAsk(self.pending, offered)
            case "menu":
                return MenuAsk(self.pending, offered, frame.node)
            case "use":
                return UseAsk(self.pending, offered)
            case "draw":
                src, dst = frame.chance_pool or frame.pool
                return DrawAsk(self.pending, offered, src.key, dst.key)
        raise AssertionError(f"an ask of kind {frame.kind}")

    def evaluate(self, e: s.Expr, env: dict[str, Any]) -> Any:
        """The value of an expression (checked against this rulebook) with local names `env`."""
        return self._eval(e, env)

    def holds(self, e: s.Expr, env: dict[str, Any]) -> bool:
        """Whether a condition holds, with local names `env`."""
        return self._truth(e, env)

    def execute(self, st: s.Stmt, env: dict[str, Any]) -> None:
        """Do one simple statement (`set`, `move`, `create`: no decision, no block) with local names `env`."""
        self._code.statement(st)(self, env)

    def move_cards(self, cards: Sequence[CardRef], zone: ZoneRef, *, bottom: bool, span: Span) -> None:
        """Move cards to a zone, as a `move` statement at `span` does."""
        self._move(cards, zone, bottom, span)

    def draw_next(self, zone: ZoneRef, labels: Sequence[tuple[str, Span]]) -> None:
        """Make the next draws from a shuffled zone take the cards of these labels, in order (each
        label with the place that names it); the draws after them are chance as usual."""
        self.next_draws[zone.key] = (*self.next_draws.get(zone.key, ()), *labels)

    def ask_again(self, go_on: bool = False) -> None:
        """Ask the pending decision again from the (changed) state, as the rules would have.

        If the decision now has one option, it is taken at once; with `go_on` the game then runs
        on to its next decision, as it would have in play.
        """
        frame = self.frames[-1]
        assert isinstance(frame, AskFrame)
        self.pending = None
        frame.step(self)
        if go_on and self.pending is None and not self.state.over:
            self._run()

    def legal_answers(self) -> list[str]:
        """The labels of the options of the pending decision."""
        return self.pending.labels if self.pending is not None else []

    @property
    def over(self) -> bool:
        return self.state.over

    def apply(self, answer: str | int | Option, *, atomic: bool = True) -> None:
        """Answer the pending decision with a label, an option, or an option's index.

        All or nothing: if the rules stop with an error on the way to the next decision, the game
        is exactly as it was before the call (state, answers, trace, pending decision). The
        bookkeeping costs a tenth to a fifth of a step; `atomic=False` skips it for a game that
        is thrown away on an error anyway (an agent's lookahead on a clone).
        """
        decision = self.pending
        if decision is None:
            raise GameError("the game is over: no decision is pending")
        option = self._find_option(decision, answer)
        if not atomic:
            self._apply(decision, option)
            return
        saved = self._snapshot()
        try:
            self._apply(decision, option)
        except BaseException:
            self._restore(saved)
            raise
        finally:
            self._keep = None

    def _snapshot(self) -> tuple[Any, ...]:
        """What `_restore` needs to put the game back as it is now: the state, the stack (its frames
        and envs kept as they are touched: see Keep), and the rest of what a step changes."""
        self._keep = Keep(self.frames)
        return (
            self.state.copy(),
            list(self.frames),
            len(self.answers),
            len(self.events),
            list(self.journal),
            (self.attempts, self.together, self.secret, self.secret_run, self.rule_frames),
            set(self.dirty),
            self.pending,
            self.steps,
        )

    def _restore(self, saved: tuple[Any, ...]) -> None:
        state, frames, answers, events, journal, counts, dirty, pending, steps = saved
        if self._keep is not None:
            self._keep.put_back()
            self._keep = None
        self.state = state
        self.frames[:] = frames
        del self.answers[answers:]
        del self.events[events:]
        self.journal[:] = journal
        self.attempts, self.together, self.secret, self.secret_run, self.rule_frames = counts
        self.dirty = dirty
        self.pending = pending
        self.steps = steps
        self._fn_depth = 0
        self._memo.clear()

    def _apply(self, decision: Decision, option: Option) -> None:
        self.pending = None
        if decision.player is None:
            # Keep the generator where a live game would have it, so a replayed game resumes alike.
            self.state.rng, _ = splitmix(self.state.rng)
        self.answers.append((decision.by, option.label))
        frame = self.frames[-1]
        if self.tracing and not (isinstance(frame, AskFrame) and frame.kind == "draw"):
            verb = "reveal" if decision.player is None else "choose"
            text = f"{option.label}" + (f"  [{decision.prompt}]" if decision.prompt else "")
            self.events.append(
                Event(
                    verb,
                    text,
                    decision.span,
                    decision.by,
                    hidden_text=f"[{decision.prompt}]" if decision.prompt else "",
                    secret=self.secret_run,
                    public_zones=self._public_zones(frame, decision),
                )
            )
        value = option.value
        if self._keep is not None:
            self._keep.touch(frame)
        try:
            frame.answer(self, value)
        except RuntimeFailure as failure:  # an answer's first step failed: undone as in `_run`
            self._unwind(failure)
        self._run()

    def _find_option(self, decision: Decision, answer: str | int | Option) -> Option:
        if isinstance(answer, Option):
            answer = answer.label
        if isinstance(answer, int) and not isinstance(answer, bool):
            if 0 <= answer < len(decision.options):
                return decision.options[answer]
            raise GameError(f"answer {answer} is out of range: {len(decision.options)} options")
        for option in decision.options:
            if option.label == answer:
                return option
        legal = ", ".join(clip(label) for label in decision.labels[:12])
        more = f" and {len(decision.labels) - 12} more" if len(decision.labels) > 12 else ""
        raise GameError(
            f"'{clip(str(answer))}' is not a legal answer to \"{clip(decision.prompt)}\" "
            f"(by {decision.by}); legal: {legal}{more}"
        )

    def result(self) -> dict[str, Any]:
        """Scores and winners of a game that is over; a game a guard stopped also says why
        (`unfinished`), and has no winner."""
        if not self.state.over:
            raise GameError("the game is not over")
        scores = {str(p): self.score(p) for p in self._players}
        winners = [str(Player(i)) for i in (self.state.winners or [])]
        if self.state.unfinished is not None:
            return {"scores": scores, "winners": winners, "unfinished": self.state.unfinished}
        return {"scores": scores, "winners": winners}

    def score(self, player: Player) -> int | None:
        """The rulebook's `score(p)` for a player, or None if it declares none."""
        if "score" not in self.program.fns:
            return None
        value = self._call_fn("score", (player,), NO_SPAN)
        return value if isinstance(value, int) else None

    def heuristic(self, player: Player) -> int:
        """The rulebook's `heuristic(p)` (else `score(p)`, else 0): what greedy agents maximise."""
        for name in ("heuristic", "score"):
            if name in self.program.fns:
                value = self._call_fn(name, (player,), NO_SPAN)
                return value if isinstance(value, int) else 0
        return 0

    @property
    def players(self) -> tuple[Player, ...]:
        return self._players

    def clone(self, *, trace: bool = False) -> Game:
        """An independent copy of this game at this decision (tracing off unless asked)."""
        new = Game(self.rulebook, self.state.players, _blank=True)
        new.classes = self.classes
        new._labels = self._labels
        new._code = self._code
        new._key_info = self._key_info
        new.state = self.state.copy()
        new.seed = self.seed
        new.auto_chance = self.auto_chance
        new.next_draws = dict(self.next_draws)
        new.tracing = trace
        new.events = list(self.events) if trace else []
        new.answers = list(self.answers)
        envs: dict[int, dict[str, Any]] = {}
        new.frames = [f.copy(envs) for f in self.frames]
        new.journal = list(self.journal)
        new.attempts, new.together, new.rule_frames = self.attempts, self.together, self.rule_frames
        new.secret, new.secret_run = self.secret, self.secret_run
        new.dirty = set(self.dirty)
        new.pending = self.pending
        new.steps = self.steps
        new._keep = None
        new._fn_depth = 0
        new.work = 0
        new._memo = {}
        new.check_invariants = self.check_invariants
        new._consts = self._consts
        new._players = self._players
        return new

    def state_changed(self) -> None:
        """Say that `state` was changed from outside the rules (the game forgets what it derived from it)."""
        self._memo.clear()

    def reseed(self, seed: int) -> None:
        """Replace the chance generator (lookahead agents do, so they cannot peek at the real draws)."""
        self.state.rng = seed & MASK64

    def arrange(self, zone: str, labels: Sequence[str], source: str | None = None, *, ask: bool = True) -> None:
        """Move cards, found by label, onto the top of `zone` (the last label on top), outside the rules.

        For tests and scenarios that start from a given position: each label takes the topmost
        card with that label from `source` (a zone key such as `deck`), or else from the first
        zone, in key order, that holds one. No rule fires and no answer is recorded; the trace
        shows an `arrange` line. The pending decision is asked again (unless `ask` is false, when
        more arrangements follow), so that its options reflect the new position; a decision left
        with one option is then taken at once, as always.
        """
        self._memo.clear()
        st = self.state
        if self.attempts or self.together or self.rule_frames:
            raise GameError("cards can be arranged only between steps, at a decision")
        try:
            name, values = self._parse_key(zone)
        except ValueError:
            raise GameError(f"no zone '{zone}'") from None
        if name not in self.program.zones:
            raise GameError(f"no zone '{zone}'")
        zone = zone_key(name, values)  # as the rules write it (`bin[Colour.red]` is `bin[red]` where red is one value)
        moved: list[CardRef] = []
        for label in labels:
            keys = [source] if source is not None else sorted(k for k in st.zones if k != zone)
            found = next(
                (
                    CardRef(cid)
                    for key in keys
                    for cid in reversed(st.zones.get(key, []))
                    if self.label(CardRef(cid)) == label
                ),
                None,
            )
            if found is None:
                raise GameError(f"no card '{label}' in {source or 'any zone'} to arrange into {zone}")
            card_type = type(st.cards[found.id]).__name__
            if card_type != self.program.zones[name].card_type:
                raise GameError(f"'{label}' is a {card_type}: {zone} holds {self.program.zones[name].card_type} cards")
            src = st.location[found.id]
            st.zones[src].remove(found.id)
            st.zones.setdefault(zone, []).append(found.id)
            st.location[found.id] = zone
            moved.append(found)
        if self.tracing and moved:
            self._event(
                "arrange",
                f"{', '.join(labels)} -> {zone}",
                NO_SPAN,
                zones=(zone,),
                hidden_text=f"{len(moved)} cards -> {zone}",
            )
        if ask:
            self._reask()

    def _reask(self) -> None:
        """Ask the pending decision again (after the position changed outside the rules)."""
        if self.pending is None or not self.frames or not isinstance(self.frames[-1], AskFrame):
            return
        frame = self.frames[-1]
        if frame.kind == "choose":
            if frame.picked:
                raise GameError("cards cannot be arranged in the middle of a choice of several")
            frame.pool, frame.count = (), 0
        frame.decision = None
        self.pending = None
        self._run()

    # ---------------------------------------------------------------- the loop

    def _run(self) -> None:
        budget = self.steps + STEP_BUDGET
        self.work = 0
        frames = self.frames
        keep = self._keep
        try:
            while self.pending is None and not self.state.over:
                if not frames:
                    self._finish(None, NO_SPAN)
                    break
                frame = frames[-1]
                if keep is not None and (id(frame) in keep.frames or id(frame.env) in keep.envs):
                    keep.touch(frame)
                try:
                    frame.step(self)
                except RuntimeFailure as failure:
                    self._unwind(failure)
                self.steps += 1
                if self.steps > budget:
                    span = self._current_span()
                    raise self._runaway(
                        span, f"{STEP_BUDGET} steps without a decision: the rules never stop (an endless loop?)"
                    )
        except RecursionError:
            raise self._runaway(self._current_span(), "the rules nest too deeply: runaway recursion?") from None
        if (
            self.check_invariants
            and self.program.invariants
            and (self.state.over or not (self.rule_frames or self.attempts or self.together))
        ):
            broken = self.invariant_violations()
            if broken:
                decl, where = broken[0]
                raise self._located(decl.span, f"invariant {decl.name} does not hold{where}")

    def invariant_violations(self) -> list[tuple[s.InvariantDecl, str]]:
        """The declared invariants that do not hold now, each with the binding that breaks it."""
        broken = []
        for decl in self.program.invariants:
            env = self._first_binding(decl.bindings, lambda env, d=decl: not self._truth(d.condition, env))
            if env is not None:
                where = ", ".join(f"{b.name} = {self.label(env[b.name])}" for b in decl.bindings)
                broken.append((decl, f" ({where})" if where else ""))
        return broken

    def _push(self, frame: Frame) -> None:
        self.frames.append(frame)
        if len(self.frames) > DEPTH_BUDGET:
            raise self._runaway(self._current_span(), f"more than {DEPTH_BUDGET} nested steps: runaway recursion?")

    def _current_span(self) -> Span:
        for frame in reversed(self.frames):
            if isinstance(frame, BlockFrame) and frame.i > 0:
                return _span_of(frame.stmts[frame.i - 1])
        return NO_SPAN

    def _shallow(self, value: Any, span: Span) -> None:
        """Refuse a value nested deeper than VALUE_DEPTH before the state holds it (looked at level
        by level, without recursion; a level of plain values costs one pass in C)."""
        level, depth = [value], 1
        while level:
            if depth > VALUE_DEPTH:
                raise self._runaway(
                    span,
                    f"a value nested more than {VALUE_DEPTH} deep is more than a game may hold: a runaway computation?",
                )
            inner: list[Any] = []
            for v in level:
                items = [x for _, x in v.items()] if v.__class__ is Record else v
                kinds = set(map(type, items))
                if tuple in kinds or Record in kinds:
                    inner.extend(x for x in items if x.__class__ is tuple or x.__class__ is Record)
            level, depth = inner, depth + 1

    def _located(self, span: Span, message: str) -> RulebookError:
        """A located error that stops the game wherever it happens (never undone by an attempt)."""
        return RulebookError([Diagnostic(span, message)], self.program.sources)

    def _runaway(self, span: Span, message: str) -> RulebookError:
        """A budget ran out: the rulebook runs away, which no attempt can make right."""
        return self._located(span, message)

    def runtime_error(self, span: Span, message: str, hint: str | None = None) -> RuntimeFailure:
        """A step that cannot be carried out: undone inside an attempt or a tier, else this located error."""
        return RuntimeFailure(message, Diagnostic(span, message, hint=hint), self.program.sources)

    def failure(self, span: Span, reason: str) -> RuntimeFailure:
        """A `fail` (or the like): outside any attempt or ability, its reason is quoted as having failed."""
        diagnostic = Diagnostic(span, f"'{reason}' failed outside any attempt or ability", hint=FAIL_HINT)
        return RuntimeFailure(reason, diagnostic, self.program.sources)

    def _finish(self, winners: Sequence[Player] | None, span: Span) -> None:
        if winners is None:
            winners = self._default_winners()
        self.state.over = True
        self.state.winners = sorted(p.index for p in winners)
        self.frames.clear()
        self.pending = None
        if self.tracing:
            self.events.append(Event("end", "winners " + " ".join(str(Player(i)) for i in self.state.winners), span))

    def _default_winners(self) -> list[Player]:
        if "score" not in self.program.fns:
            return []
        keyed = []
        for p in self._players:
            key = [self._call_fn("score", (p,), NO_SPAN)]
            if "tiebreak" in self.program.fns:
                key.append(self._call_fn("tiebreak", (p,), NO_SPAN))
            keyed.append((key, p))
        best = max(k for k, _ in keyed)
        return [p for k, p in keyed if k == best]

    # ---------------------------------------------------------------- statements

    # A statement runs as its closure (closures.py, `_compile_stmt`); the statements below are
    # those whose closure calls the method here (`_EXEC`).

    def _exec_let_call(self, st: s.Let, env: dict[str, Any]) -> None:
        """`let x = proc(...)`: call the procedure; its `return` gives x its value."""
        value = st.value
        assert isinstance(value, s.Call)
        self._call_proc(value.name, value.args, env, st.name, st.span)

    def _exec_set_field(self, st: s.SetField, env: dict[str, Any]) -> None:
        obj, field, op, value = st.obj, st.field, st.op, st.value
        card = self._eval(obj, env)
        v = self._eval(value, env)
        if not isinstance(card, CardRef):
            raise self.failure(st.span, f"no card to set {field} on")
        if op != "=":
            v = self._arith(op[0], getattr(self.state.cards[card.id], field), v, value, value, st)
        self._set_field(card, field, v, st.span)

    def _exec_draw(self, st: s.Draw, env: dict[str, Any]) -> None:
        count, source, to = st.count, st.source, st.to
        n = self._number_of(count, env)
        src = self.zone_value(self._eval(source, env), source)
        dst = self.zone_value(self._eval(to, env), to)
        if self.program.zones[src.name].shuffled:
            frame = AskFrame("draw", st, env)
            frame.count = n
            frame.pool = (src, dst)
            self._push(frame)
        else:
            ids = self.state.zones.get(src.key, [])
            taken = [CardRef(i) for i in reversed(ids[max(0, len(ids) - n) :])] if n > 0 else []
            self._move(taken, dst, False, st.span)

    def _exec_while(self, st: s.While, env: dict[str, Any]) -> None:
        self._push(WhileFrame(st, env))

    def _exec_repeat(self, st: s.Repeat, env: dict[str, Any]) -> None:
        count, body = st.count, st.body
        self._push(RepeatFrame(self._number_of(count, env), body, env))

    def _exec_match(self, st: s.Match, env: dict[str, Any]) -> None:
        subject, cases, otherwise = st.subject, st.cases, st.otherwise
        v = self._eval(subject, env)
        for case in cases:
            if self._eval(case.value, env) == v:
                self._push(BlockFrame(case.body.stmts, env))
                return
        if otherwise is not None:
            self._push(BlockFrame(otherwise.stmts, env))

    def _exec_attempt(self, st: s.Attempt, env: dict[str, Any]) -> None:
        body, otherwise = st.body, st.otherwise
        self._open_attempt(otherwise, env, st.span, "attempt")
        self._push(BlockFrame(body.stmts, env))

    def _exec_together(self, st: s.Together, env: dict[str, Any]) -> None:
        body = st.body
        self.together += 1
        self._push(TogetherFrame(env))
        self._push(BlockFrame(body.stmts, env))

    def _exec_secret(self, st: s.Secret, env: dict[str, Any]) -> None:
        if self.secret == 0:
            self.secret_run = SecretRun(self.steps, st.span)
        self.secret += 1
        self._push(SecretFrame(env))
        self._push(BlockFrame(st.body.stmts, env))

    def _exec_fail(self, st: s.Fail, env: dict[str, Any]) -> None:
        message = st.message
        raise self.failure(st.span, message)

    def _exec_require(self, st: s.Require, env: dict[str, Any]) -> None:
        cond, message = st.condition, st.message
        if not self._truth(cond, env):
            raise self.failure(st.span, message)

    def _exec_choose(self, st: s.Choose, env: dict[str, Any]) -> None:
        self._push(AskFrame("choose", st, env))

    def _exec_menu(self, st: s.Menu, env: dict[str, Any]) -> None:
        self._push(AskFrame("menu", st, env))

    def _exec_use(self, st: s.Use, env: dict[str, Any]) -> None:
        self._push(AskFrame("use", st, env))

    def _exec_return(self, st: s.Return, env: dict[str, Any]) -> None:
        value = st.value
        result = self._held(self._eval(value, env), value) if value is not None else None
        while self.frames:
            frame = self.frames.pop()
            if isinstance(frame, CallFrame):
                frame.finish(self, result)
                return
            frame.unwind(self)
            if isinstance(frame, AttemptFrame):
                self.attempts -= 1
                if self.attempts == 0:
                    self.journal.clear()
        raise self._located(st.span, "'return' outside a procedure")

    def _exec_end_game(self, st: s.EndGame, env: dict[str, Any]) -> None:
        winners = st.winners
        chosen = None
        if winners is not None:
            chosen = [p for p in self.as_list(self._eval(winners, env), winners) if isinstance(p, Player)]
        self._finish(chosen, st.span)

    def _exec_end_unfinished(self, st: s.EndUnfinished, env: dict[str, Any]) -> None:
        why = self._eval(st.text, env)
        self.state.unfinished = why
        self.state.over = True
        self.state.winners = []
        self.frames.clear()
        self.pending = None
        if self.tracing:
            self.events.append(Event("end", f"unfinished: {why}", st.span))

    def _exec_say(self, st: s.Say, env: dict[str, Any]) -> None:
        text = st.text
        if self.tracing:
            self._event("say", self._eval(text, env), st.span)

    def _call_proc(
        self, name: str, args: tuple[s.Expr, ...], env: dict[str, Any], target: str | None, span: Span
    ) -> None:
        proc = self.program.procs[name]
        new_env = {p.name: self._argument(p, self._eval(a, env), a) for p, a in zip(proc.params, args, strict=True)}
        self._push(CallFrame(name, new_env, env, target))
        self._push(BlockFrame(proc.body.stmts, new_env))

    def _open_attempt(
        self,
        otherwise: s.Block | None,
        env: dict[str, Any],
        span: Span,
        what: str,
        retry: tuple[s.Use, dict[str, Any], tuple[int, ...]] | None = None,
    ) -> None:
        self.attempts += 1
        self._push(AttemptFrame(len(self.journal), otherwise, env, span, what, retry))

    def _unwind(self, failure: RuntimeFailure) -> None:
        """Undo back to the innermost attempt (or tier) and go on with its `else` (or ask again
        without the tier); outside both, raise the failure, a located error.

        Every failure goes this one way, whatever raised it: a `fail`, a `require`, or a step that
        cannot be carried out (see RuntimeFailure).
        """
        message, span = failure.reason, failure.span
        while self.frames:
            frame = self.frames[-1]
            if isinstance(frame, AttemptFrame):
                self.frames.pop()
                self._undo(frame.mark)
                self.attempts -= 1
                if self.attempts == 0:
                    self.journal.clear()
                if self.tracing:
                    self._event("undo", f"{frame.what} fails: {message}; nothing it did stands", span)
                if frame.retry is not None:
                    # A tier that cannot be completed cannot be chosen: ask again without it.
                    node, env, failed = frame.retry
                    again = AskFrame("use", node, env)
                    again.picked = failed
                    self._push(again)
                elif frame.otherwise is not None:
                    self._push(BlockFrame(frame.otherwise.stmts, frame.env))
                return
            self.frames.pop()
            frame.unwind(self)
        raise failure

    def _undo(self, mark: int) -> None:
        self._memo.clear()
        st = self.state
        while len(self.journal) > mark:
            entry = self.journal.pop()
            kind = entry[0]
            if kind == "move":
                _, cid, src, index, dst = entry
                st.zones[dst].remove(cid)
                st.zones.setdefault(src, []).insert(index, cid)
                st.location[cid] = src
            elif kind == "var":
                _, key, old, existed = entry
                if existed:
                    st.vars[key] = old
                else:
                    st.vars.pop(key, None)
            elif kind == "field":
                _, cid, old_card = entry
                st.cards[cid] = old_card
            elif kind == "create":
                _, cid, zone = entry
                st.zones[zone].remove(cid)
                st.cards.pop()
                st.location.pop()
            elif kind == "zone":
                _, key = entry
                del st.zones[key]

    # ---------------------------------------------------------------- state changes

    def _event(
        self,
        verb: str,
        text: str,
        span: Span,
        zones: tuple[str, ...] = (),
        hidden_text: str | None = None,
        top_text: str | None = None,
    ) -> None:
        self.events.append(
            Event(verb, text, span, zones=zones, hidden_text=hidden_text, top_text=top_text, secret=self.secret_run)
        )

    def _changed(self, name: str) -> None:
        if not self.program.rules:
            return
        if self.together or self.rule_frames:
            self.dirty.add(name)
        else:
            self._check_rules({name})

    def _check_rules(self, names: set[str]) -> None:
        names |= self.dirty
        self.dirty = set()
        self.rule_frames += 1
        self._push(RuleFrame(names))

    def _move(self, cards: Sequence[CardRef], zone: ZoneRef, bottom: bool, span: Span) -> None:
        self._memo.clear()
        if not cards:
            return
        st = self.state
        dst_key = zone.key
        dst = st.zones.get(dst_key)
        if dst is None:
            dst = st.zones[dst_key] = []
            if self.attempts:  # undone, the zone is gone again: the state is as if the attempt had not begun
                self.journal.append(("zone", dst_key))
        sources: list[str] = []
        for card in cards:
            cid = card.id
            src_key = st.location[cid]
            src = st.zones[src_key]
            index = src.index(cid)
            del src[index]
            if bottom:
                dst.insert(0, cid)
            else:
                dst.append(cid)
            st.location[cid] = dst_key
            if self.attempts:
                self.journal.append(("move", cid, src_key, index, dst_key))
            if src_key not in sources:
                sources.append(src_key)
        if self.tracing:
            labels = ", ".join(self.label(c) for c in cards)
            where = "bottom of " if bottom else ""
            text = f"{labels}: {' + '.join(sources)} -> {where}{dst_key}"
            hidden = f"{len(cards)} card{'s' if len(cards) != 1 else ''}: {' + '.join(sources)} -> {where}{dst_key}"
            top = None if bottom else f"{hidden} (top: {self.label(cards[-1])})"
            self._event("move", text, span, zones=(*sources, dst_key), hidden_text=hidden, top_text=top)
        if self.program.rules:  # else `_changed` does nothing
            changed = {k.split("[", 1)[0] for k in sources}
            changed.add(zone.name)
            for name in sorted(changed):
                self._changed(name)

    def _set_var(self, name: str, key: str, value: Any, span: Span) -> None:
        self._memo.clear()
        st = self.state
        if self.attempts:
            self.journal.append(("var", key, st.vars.get(key), key in st.vars))
        old = st.vars.get(key)
        if value.__class__ is tuple or value.__class__ is Record:
            self._shallow(value, span)
        st.vars[key] = value
        if self.tracing and old != value:
            self._event("set", f"{key} = {self.label(value)}", span, zones=(key,))
        self._changed(name)

    def _set_field(self, card: CardRef, field: str, value: Any, span: Span) -> None:
        self._memo.clear()
        st = self.state
        old = st.cards[card.id]
        if self.attempts:
            self.journal.append(("field", card.id, old))
        # The trace names the card as it was, since the change may alter its label.
        before = self.label(card) if self.tracing else ""
        if value.__class__ is tuple or value.__class__ is Record:
            self._shallow(value, span)
        st.cards[card.id] = attrs.evolve(old, **{field: value})
        if self.tracing:
            self._event("set", f"{before}.{field} = {self.label(value)}", span, zones=(st.location[card.id],))
        self._changed(st.location[card.id].split("[", 1)[0])

    def _create(self, card_type: str, n: int, values: dict[str, Any], zone: ZoneRef, span: Span) -> None:
        self._memo.clear()
        st = self.state
        if len(st.cards) + max(n, 0) > CARD_BUDGET:
            raise self._runaway(
                span, f"{len(st.cards) + n} cards is more than a game may hold ({CARD_BUDGET}): a runaway computation?"
            )
        for value in values.values():
            if value.__class__ is tuple or value.__class__ is Record:
                self._shallow(value, span)
        cls = self.classes[card_type]
        key = zone.key
        dst = st.zones.get(key)
        if dst is None:
            dst = st.zones[key] = []
            if self.attempts:
                self.journal.append(("zone", key))
        for _ in range(n):
            cid = len(st.cards)
            st.cards.append(cls(id=cid, **values))
            st.location.append(key)
            dst.append(cid)
            if self.attempts:
                self.journal.append(("create", cid, key))
        if n > 0 and _plain_card(cls, self.program, self._labels):
            self._label_new_cards(st.cards[-n:], cls, values)
        if self.tracing and n:
            text = f"{n} x {self.label(CardRef(len(st.cards) - 1))} in {key}"
            self._event("create", text, span, zones=(key,), hidden_text=f"{n} x {card_type} in {key}")
        self._changed(zone.name)

    def _label_new_cards(self, cards: list[Any], cls: type, values: dict[str, Any]) -> None:
        """Put new cards of a plain class in the label cache: one label for them all, known from their fields.

        (The label of a plain card depends on its fields alone, so the same fields in a later game
        find it without rendering the template again.)
        """
        labels = self._labels
        by_fields = (cls, tuple(values.items()))
        try:
            text = labels.get(by_fields)
        except TypeError:  # a value that cannot be a key (a checker-approved `any`): label as usual
            return
        if text is None:
            text = self._card_label(cards[0])
            if len(labels) > LABEL_CACHE_SIZE:
                labels.clear()
            labels[by_fields] = text
        for card in cards:
            labels[id(card)] = (card, text)

    # ---------------------------------------------------------------- decisions

    def _ask(self, frame: AskFrame) -> None:
        node, env = frame.node, frame.env
        if frame.kind == "menu":
            menu: s.Menu = node
            options = [Option(o.label, o) for o in menu.options if o.when is None or self._truth(o.when, env)]
            if not options:
                raise self.failure(menu.span, "no option of this choice is possible")
            prompt = (self._eval(menu.prompt, env) if menu.prompt is not None else "") or "Choose"
            self._decide(frame, self._who(menu.by, env), prompt, options, menu.span)
        elif frame.kind == "use":
            use: s.Use = node
            ability = self.program.abilities[use.ability]
            upto = self._number_of(use.upto, env)
            ability_env = {
                p.name: self._argument(p, self._eval(a, env), a) for p, a in zip(ability.params, use.args, strict=True)
            }
            frame.pool = (ability_env,)
            options = [Option("no ability", None)]
            for tier in ability.tiers:
                if (
                    tier.level <= upto
                    and tier.level not in frame.picked
                    and (tier.when is None or self._truth(tier.when, ability_env))
                ):
                    options.append(Option(tier_label(tier), tier))
            chooser = self._tier_chooser(use, ability, env, ability_env)
            self._decide(frame, chooser, f"{ability.text}: which tier? (count {upto})", options, use.span)
        elif frame.kind == "draw":
            draw: s.Draw = node
            src, dst = frame.pool
            if self.next_draws.get(src.key) and self._draw_named(frame, src, dst):
                return
            if self.auto_chance and self._draw_at_once(frame, src, dst, draw.span):
                return
            ids = self.state.zones.get(src.key, [])
            if frame.count <= 0 or not ids:
                self.frames.pop()
                return
            options, weights = self._zone_chance_options(ids)
            frame.chance_pool = (src, dst)
            self._decide(frame, None, f"draw from {src.key}", options, draw.span, weights)
        else:
            choose: s.Choose = node
            several = choose.quantity != "one"
            if several:  # while several values are chosen, the name holds those picked so far
                env[choose.target] = tuple(frame.picked)
            # (Not again after a "done" to an empty choice: frame.decision says it was asked.)
            if not frame.picked and frame.count == 0 and not frame.pool and frame.decision is None:
                source = self.as_list(self._eval(choose.source, env), choose.source)
                frame.pool = source
                if choose.quantity in ("exactly", "upto"):
                    frame.count = self._number_of(choose.count, env) if choose.count is not None else 1
                elif choose.quantity == "one":
                    frame.count = 1
                elif choose.quantity == "any":
                    # One more than it can pick: only "done" ends it (alone, taken at once, when all
                    # are picked), so that how many fitted does not show by where the lines stop.
                    frame.count = len(source) + 1
                else:
                    frame.count = len(source)
                if choose.quantity in ("one", "exactly") and len(source) < frame.count:
                    what = "one" if choose.quantity == "one" else str(frame.count)
                    raise self.failure(choose.span, f"cannot choose {what}: only {len(source)} to choose from")
                if choose.quantity in ("order",) and not source:
                    frame.pool = ()
            done = len(frame.picked) >= frame.count
            if done:
                remaining = []
            elif several and frame.picked:  # read again (it may depend on the picks), among the values first offered
                again = self.as_list(self._eval(choose.source, env), choose.source)
                remaining = [v for v in again if contains(frame.pool, v) and not contains(frame.picked, v)]
            else:
                remaining = [v for v in frame.pool if not contains(frame.picked, v)]
            if not done and not remaining and choose.quantity == "exactly":
                raise self.failure(choose.span, f"cannot choose {frame.count}: only {len(frame.picked)} fit")
            # `upto` and `any` with nothing left that fits still ask, with "done" alone: taken at once,
            # it shows the others the same line as a free "done" (the shape of the trace tells nothing).
            done = done or (not remaining and choose.quantity not in ("upto", "any"))
            if done:
                self.frames.pop()
                env[choose.target] = (
                    frame.picked[0]
                    if choose.quantity == "one" and frame.picked
                    else (None if choose.quantity == "one" else tuple(frame.picked))
                )
                return
            who = self._who(choose.by, env)
            options = self._options(remaining)
            if choose.quantity in ("upto", "any"):
                options.append(Option("done", _DONE))
            prompt = (self._eval(choose.prompt, env) if choose.prompt is not None else "") or "Choose"
            if frame.count > 1 or choose.quantity in ("upto", "any", "order"):
                total = "" if choose.quantity in ("any", "order") else f" of {frame.count}"
                prompt = f"{prompt} ({len(frame.picked) + 1}{total})"
            if who is None and choose.quantity == "one":
                opts, weights = self._chance_options(remaining)
                self._decide(frame, None, prompt, opts, choose.span, weights)
                return
            self._decide(frame, who, prompt, options, choose.span)

    def _draw_named(self, frame: AskFrame, src: ZoneRef, dst: ZoneRef) -> bool:
        """Draw the next card named by `draw_next` for this zone, as the table would have drawn it
        (True); False when the frame has nothing left to draw."""
        ids = self.state.zones.get(src.key, [])
        if frame.count <= 0 or not ids:
            return False
        (label, span), *rest = self.next_draws[src.key]
        first, _counts = self._label_counts(ids)
        if label not in first:
            raise self._located(span, f"the next draw from {src.key} is to be '{label}', which is not in {src.key}")
        self.next_draws = {**self.next_draws, src.key: tuple(rest)}
        self.answers.append(("table", label))
        frame.count -= 1
        self._move([CardRef(first[label])], dst, False, frame.node.span)
        return True

    def _draw_at_once(self, frame: AskFrame, src: ZoneRef, dst: ZoneRef, span: Span) -> bool:
        """Draw with the game's own generator, card after card, without making decisions of the table.

        The same draws, answers and moves as asking the table (`_zone_chance_options`, then
        `_decide`) with less work; it stops when the drawing is done (True), when a move started
        other work such as a rule (True: the frame draws on when it is stepped again), or when a
        draw would offer more options than a decision may (False: asking reports it).
        """
        st, frames = self.state, self.frames
        while True:
            ids = st.zones.get(src.key, [])
            if frame.count <= 0 or not ids:
                frames.pop()
                return True
            first, counts = self._label_counts(ids)
            if len(counts) > OPTION_BUDGET:
                return False
            if len(counts) == 1:  # one option: taken at once, unrecorded, as `_decide` does
                chosen = next(iter(first))
            else:
                st.rng, bits = splitmix(st.rng)
                r = bits % len(ids)
                for chosen, w in counts.items():  # noqa: B007 -- the loop finds `chosen`
                    if r < w:
                        break
                    r -= w
                self.answers.append(("table", chosen))
            frame.count -= 1
            self._move([CardRef(first[chosen])], dst, False, span)
            if frames[-1] is not frame or self.pending is not None or st.over:
                return True

    def _decide(
        self,
        frame: AskFrame,
        who: Player | None,
        prompt: str,
        options: list[Option],
        span: Span,
        weights: tuple[int, ...] | None = None,
    ) -> None:
        if len(options) > OPTION_BUDGET:
            raise self._runaway(
                span,
                f"a decision of {len(options)} options is more than a decision may offer "
                f"({OPTION_BUDGET}): choose in steps instead",
            )
        decision = Decision(who, prompt, tuple(options), span, weights)
        frame.decision = decision
        if len(options) == 1:
            if self.tracing and frame.kind != "draw":
                # Taken at once, unrecorded; its line is shown only to those it is hidden from.
                self.events.append(
                    Event(
                        "choose" if who is not None else "reveal",
                        options[0].label + (f"  [{prompt}]" if prompt else ""),
                        span,
                        decision.by,
                        hidden_text=f"[{prompt}]" if prompt else "",
                        secret=self.secret_run,
                        public_zones=self._public_zones(frame, decision),
                        forced=True,
                    )
                )
            frame.answer(self, options[0].value)
            return
        if who is None and self.auto_chance:
            self.state.rng, bits = splitmix(self.state.rng)
            if weights is not None:
                r = bits % sum(weights)
                for option, w in zip(options, weights, strict=True):  # noqa: B007 -- the option drawn is the one the loop stops at
                    if r < w:
                        break
                    r -= w
            else:
                option = options[bits % len(options)]
            self.answers.append(("table", option.label))
            if self.tracing and frame.kind != "draw":
                self.events.append(
                    Event(
                        "reveal",
                        option.label + (f"  [{prompt}]" if prompt else ""),
                        span,
                        "table",
                        hidden_text=f"[{prompt}]",
                        secret=self.secret_run,
                    )
                )
            frame.answer(self, option.value)
            return
        self.pending = decision

    def _public_zones(self, frame: Frame, decision: Decision) -> tuple[str, ...] | None:
        """The zone keys of the cards a choice offers, when every option is a value others may
        see (a menu's labels, an ability's tiers, players, enum values, numbers, zones, or cards);
        None otherwise."""
        if not isinstance(frame, AskFrame) or decision.player is None:
            return None
        if frame.kind in ("menu", "use"):
            return ()  # fixed labels: a menu's options, an ability's tiers
        # What the choice first offered and has picked counts too: a last "done" alone is as
        # hidden as the cards it stands for (nothing of a hand fits any more).
        values = [o.value for o in decision.options if o.value is not _DONE] + [*frame.pool, *frame.picked]
        if not values:
            return None
        zones: set[str] = set()
        for value in values:
            if not self._public_value(value, zones):
                return None
        return tuple(sorted(zones))

    def _public_value(self, value: Any, zones: set[str]) -> bool:
        if isinstance(value, CardRef):
            zones.add(self.state.location[value.id])
            return True
        if isinstance(value, tuple | list):
            return all(self._public_value(v, zones) for v in value)
        # Not a text: it may be made of a hidden card's name ("play " + label(c)).
        return value is None or isinstance(value, Player | EnumValue | ZoneRef | int)

    def _answered(self, frame: AskFrame, value: Any) -> None:
        env = frame.env
        if frame.kind == "menu":
            self.frames.pop()
            option: s.Option = value
            self._push(BlockFrame(option.body.stmts, env))
        elif frame.kind == "use":
            self.frames.pop()
            if value is None:
                return
            tier: s.Tier = value
            ability = self.program.abilities[frame.node.ability]
            ability_env = dict(frame.pool[0])
            if self.tracing:
                self._event("use", f"{ability.name} tier {tier.level}: {tier.text}", tier.span)
            self._open_attempt(
                None,
                ability_env,
                tier.span,
                f"{ability.name} tier {tier.level}",
                retry=(frame.node, env, (*frame.picked, tier.level)),
            )
            self._push(CallFrame(ability.name, ability_env, None, None))
            self._push(BlockFrame(tier.body.stmts, ability_env))
        elif frame.kind == "draw":
            _src, dst = frame.chance_pool or frame.pool
            frame.count -= 1
            self._move([value], dst, False, frame.node.span)
        else:
            if value is _DONE:
                frame.count = len(frame.picked)
            else:
                frame.picked = (*frame.picked, value)

    def _who(self, by: s.Expr | None, env: dict[str, Any]) -> Player | None:
        if by is None:
            return self._first_player(env)
        who = self._eval(by, env)
        if who is TABLE:
            return None
        if not isinstance(who, Player):
            raise self.runtime_error(_span_of(by), f"a decision is made by a player, not {self.label(who)}")
        return who

    def _tier_chooser(
        self, use: s.Use, ability: s.AbilityDecl, env: dict[str, Any], ability_env: dict[str, Any]
    ) -> Player:
        """Who chooses the tier of a `use`: its `by`, else the ability's first Player parameter."""
        if use.by is not None:
            who = self._eval(use.by, env)
            where = _span_of(use.by)
        else:
            param = first_player_param(ability)
            who = ability_env.get(param) if param is not None else None
            where = use.span
        if not isinstance(who, Player):
            raise self.runtime_error(where, f"a tier is chosen by a player, not by {self.label(who)}")
        return who

    def _first_player(self, env: dict[str, Any]) -> Player | None:
        for value in env.values():
            if isinstance(value, Player):
                return value
        return self._players[0]

    def _options(self, values: Iterable[Any]) -> list[Option]:
        """Label the values; identical cards in one zone are one option (choosing either is the same)."""
        return self._labelled_options(values)[0]

    def _labelled_options(self, values: Iterable[Any]) -> tuple[list[Option], list[tuple[str, Any]]]:
        """The options of `_options`, and each value with its own label."""
        label, location = self.label, self.state.location
        labelled: list[tuple[str, Any]] = [(label(v), v) for v in values]
        if not any(v.__class__ is CardRef for _, v in labelled):
            # No card, so no label needs its zone: one option per distinct label, in order.
            seen_plain: set[str] = set()
            plain = []
            for text, v in labelled:
                if text not in seen_plain:
                    seen_plain.add(text)
                    plain.append(Option(text, v))
            return plain, labelled
        # Where the values of each label are: one place, or _MANY (then a card's option names its zone).
        places: dict[str, Any] = {}
        for text, v in labelled:
            where = location[v.id] if v.__class__ is CardRef else ""
            known = places.get(text, _MISSING)
            if known is _MISSING:
                places[text] = where
            elif known is not _MANY and known != where:
                places[text] = _MANY
        seen: set[str] = set()
        options = []
        for text, v in labelled:
            if places[text] is _MANY and v.__class__ is CardRef:
                text = f"{text} in {location[v.id]}"
            if text in seen:
                continue
            seen.add(text)
            options.append(Option(text, v))
        return options, labelled

    def _zone_chance_options(self, ids: Sequence[int]) -> tuple[list[Option], tuple[int, ...]]:
        """`_chance_options` of the cards of one zone (so no option needs the name of a zone), faster."""
        first, counts = self._label_counts(ids)
        return [Option(text, CardRef(i)) for text, i in first.items()], tuple(counts.values())

    def _label_counts(self, ids: Sequence[int]) -> tuple[dict[str, int], dict[str, int]]:
        """For each distinct label among the cards, in order: its first card's id, and how many carry it."""
        first: dict[str, int] = {}
        counts: dict[str, int] = {}
        for i, text in zip(ids, self._labels_of(ids), strict=True):
            if text in counts:
                counts[text] += 1
            else:
                counts[text] = 1
                first[text] = i
        return first, counts

    def _chance_options(self, values: Sequence[Any]) -> tuple[list[Option], tuple[int, ...]]:
        """Options of a chance decision: one per distinct label, weighted by how many values carry it."""
        options, labelled = self._labelled_options(values)
        index = {o.label: i for i, o in enumerate(options)}
        weights = [0] * len(options)
        location = self.state.location
        for text, v in labelled:
            if text not in index and v.__class__ is CardRef:
                text = f"{text} in {location[v.id]}"
            weights[index[text]] += 1
        return options, tuple(weights)

    # ---------------------------------------------------------------- rules

    def _rule_match(self, rule: s.RuleDecl) -> dict[str, Any] | None:
        """The first binding (in declaration order) for which the rule's condition holds, or None."""
        return self._first_binding(rule.bindings, lambda env: self._truth(rule.when, env))

    def _first_binding(self, bindings: tuple[s.Binding, ...], holds: Any) -> dict[str, Any] | None:
        """The first binding (in declaration order) for which `holds(env)` is true, or None."""

        def search(i: int, env: dict[str, Any]) -> dict[str, Any] | None:
            if i == len(bindings):
                return dict(env) if holds(env) else None
            binding = bindings[i]
            for v in self.as_list(self._eval(binding.source, env), binding.source):
                env[binding.name] = v
                found = search(i + 1, env)
                if found is not None:
                    return found
            env.pop(binding.name, None)
            return None

        return search(0, {})

    # ---------------------------------------------------------------- expressions

    def _truth(self, e: s.Expr, env: dict[str, Any]) -> bool:
        """The value of a condition: true or false, else a located error."""
        return bool(self._code.truth(e)(self, env))

    def _truth_of(self, v: Any, e: s.Expr) -> bool:
        if v.__class__ is not bool:
            raise self.runtime_error(_span_of(e), f"a condition must be true or false, not {self.label(v)}")
        return bool(v)

    def _eval(self, e: s.Expr, env: dict[str, Any]) -> Any:
        """The value of an expression, by its compiled closure (see closures.py).

        The methods `_eval_*` below define each kind of expression; they evaluate their operands
        with `_EVAL[node.__class__]`, the definition again, and are what a closure falls back on
        for the unusual case and its located error.
        """
        return self._code.value(e)(self, env)

    def _eval_slow(self, e: s.Expr, env: dict[str, Any]) -> Any:
        """The value of an expression by the definition alone, without closures (tests compare the two)."""
        method = _EVAL.get(e.__class__)
        if method is None:
            raise TypeError(f"not an expression: {e!r}")
        return method(self, e, env)

    def _eval_name(self, e: s.Name, env: dict[str, Any]) -> Any:
        id = e.id
        if id in env:
            return env[id]
        return self._global(id, e)

    def _eval_literal(self, e: s.IntLit | s.StrLit | s.BoolLit, env: dict[str, Any]) -> Any:
        return e.value

    def _eval_template(self, e: s.Template, env: dict[str, Any]) -> str:
        """The text with each placeholder's value written as its label."""
        return "".join(p if isinstance(p, str) else self.label(self._eval(p, env)) for p in e.parts)

    def _eval_field(self, e: s.FieldAccess, env: dict[str, Any]) -> Any:
        obj, name = e.obj, e.name
        if obj.__class__ is s.Name:  # the common `it.colour`, `c.value`, `Colour.red`
            id = obj.id
            if id in env:
                v = env[id]
            elif id in self.program.enums:
                return self.program.enum_value(id, name)
            else:
                v = self._global(id, obj)
        else:
            v = _EVAL[obj.__class__](self, obj, env)
        if v.__class__ is CardRef:
            card = self.state.cards[v.id]
            if name not in attrs_fields(card.__class__):
                raise self.runtime_error(e.span, f"{self.label(v)} has no field '{name}'")
            return getattr(card, name)
        if isinstance(v, Record):
            if not v.has(name):
                raise self.runtime_error(e.span, f"the record has no field '{name}'")
            return v.get(name)
        if v is None:
            raise self.failure(e.span, f"no card to read {name} of")
        raise self.runtime_error(e.span, f"{self.label(v)} has no field '{name}'")

    def _eval_index(self, e: s.Index, env: dict[str, Any]) -> Any:
        obj, args = e.obj, e.args
        if obj.__class__ is s.Name and obj.id not in env:
            if obj.id in self.program.zones:
                return ZoneRef(obj.id, tuple([_EVAL[a.__class__](self, a, env) for a in args]))
            if obj.id in self.program.vars and self.program.vars[obj.id].keys:  # else `xs[0]` of its list
                key = zone_key(obj.id, tuple([_EVAL[a.__class__](self, a, env) for a in args]))
                return self._var(obj.id, key)
        seq = self.as_list(_EVAL[obj.__class__](self, obj, env), obj)
        i = self._eval(args[0], env)
        if not isinstance(i, int) or not -len(seq) <= i < len(seq):
            raise self.failure(e.span, f"index {i} is outside a list of {len(seq)}")
        return seq[i]

    def _eval_call(self, e: s.Call, env: dict[str, Any]) -> Any:
        name = e.name
        if name in self.program.fns:
            return self._call_fn(name, tuple([_EVAL[a.__class__](self, a, env) for a in e.args]), e.span)
        try:
            return self._builtin(name, e.args, env, e)
        except VALUE_ERRORS:
            # The arguments are pure expressions: evaluating them again only names them.
            shown = ", ".join(self.label(self._eval(a, env)) for a in e.args)
            raise self.runtime_error(e.span, f"{name}({shown}): not values {name} can take") from None

    def _eval_compare(self, e: s.Compare, env: dict[str, Any]) -> Any:
        op = e.op
        a, b = _EVAL[e.left.__class__](self, e.left, env), _EVAL[e.right.__class__](self, e.right, env)
        if op == "==":
            return same(a, b)
        if op == "!=":
            return not same(a, b)
        if not isinstance(a, int) or not isinstance(b, int):
            raise self.runtime_error(e.span, f"cannot compare {self.label(a)} {op} {self.label(b)}")
        return a < b if op == "<" else a > b if op == ">" else a <= b if op == "<=" else a >= b

    def _eval_and(self, e: s.And, env: dict[str, Any]) -> Any:
        return self._truth(e.left, env) and self._truth(e.right, env)

    def _eval_or(self, e: s.Or, env: dict[str, Any]) -> Any:
        return self._truth(e.left, env) or self._truth(e.right, env)

    def _eval_not(self, e: s.Not, env: dict[str, Any]) -> Any:
        return not self._truth(e.operand, env)

    def _eval_binary(self, e: s.Binary, env: dict[str, Any]) -> Any:
        op, left, right = e.op, e.left, e.right
        a, b = _EVAL[left.__class__](self, left, env), _EVAL[right.__class__](self, right, env)
        return self._arith(op, a, b, left, right, e)

    def _arith(self, op: str, a: Any, b: Any, left: s.Expr, right: s.Expr, e: s.Expr | s.Stmt) -> Any:
        """`a op b`, for the expression `e` and for `set x op= b` alike (`e` locates the errors)."""
        if op in ("+", "-") and (isinstance(a, tuple | ZoneRef) or isinstance(b, tuple | ZoneRef)):
            xs, ys = self.as_list(a, left), self.as_list(b, right)
            if op == "-":
                return _without(xs, ys)
            size = len(xs) + len(ys)
            return self.bounded(xs + ys if size <= LIST_BUDGET else None, e, size)
        if op == "+" and isinstance(a, str) and isinstance(b, str):
            if len(a) + len(b) > TEXT_BUDGET:
                raise self._runaway(
                    e.span,
                    f"a text of {len(a) + len(b)} characters is more than a "
                    f"rulebook may build ({TEXT_BUDGET}): a runaway computation?",
                )
            return a + b
        if not isinstance(a, int) or not isinstance(b, int) or isinstance(a, bool) or isinstance(b, bool):
            raise self.runtime_error(e.span, f"cannot compute {self.label(a)} {op} {self.label(b)}")
        if op == "+":
            return self.number(a + b, e)
        if op == "-":
            return self.number(a - b, e)
        if op == "*":
            if a.bit_length() + b.bit_length() > 2 * INT_BUDGET.bit_length():
                return self.number(INT_BUDGET + 1, e)
            return self.number(a * b, e)
        if b == 0:
            raise self.runtime_error(e.span, "division by zero")
        return a // b if op == "//" else a % b

    def _eval_in(self, e: s.In, env: dict[str, Any]) -> Any:
        v = _EVAL[e.item.__class__](self, e.item, env)
        found = contains(self.as_list(_EVAL[e.collection.__class__](self, e.collection, env), e.collection), v)
        return not found if e.negated else found

    def _eval_query(self, e: s.Query, env: dict[str, Any]) -> Any:
        items = self.as_list(_EVAL[e.source.__class__](self, e.source, env), e.source)
        try:
            return self._query(e.op, items, e.key, env)
        except VALUE_ERRORS:
            raise self.runtime_error(
                e.span,
                f"cannot order by these keys: {e.op} by needs keys of one kind "
                "(numbers, or values of one enumeration, ...)",
            ) from None

    def _eval_list(self, e: s.ListLit, env: dict[str, Any]) -> Any:
        return tuple([_EVAL[i.__class__](self, i, env) for i in e.items])

    def _eval_comprehension(self, e: s.Comprehension, env: dict[str, Any]) -> Any:
        element, var, source, cond = e.element, e.var, e.source, e.condition
        out = []
        saved = env.get(var, _MISSING)
        try:  # a failure inside leaves the locals as they were (see closures.py)
            for v in self.as_list(_EVAL[source.__class__](self, source, env), source):
                env[var] = v
                if cond is None or self._truth(cond, env):
                    out.append(_EVAL[element.__class__](self, element, env))
        finally:
            _restore(env, var, saved)
        return tuple(out)

    def _eval_range(self, e: s.RangeOp, env: dict[str, Any]) -> Any:
        lo, hi = _EVAL[e.low.__class__](self, e.low, env), _EVAL[e.high.__class__](self, e.high, env)
        if not isinstance(lo, int) or not isinstance(hi, int):
            raise self.runtime_error(e.span, f"a range needs numbers, not {self.label(lo)}..{self.label(hi)}")
        return self.bounded(tuple(range(lo, hi + 1)) if hi - lo < LIST_BUDGET else None, e, hi - lo + 1)

    def _eval_neg(self, e: s.Neg, env: dict[str, Any]) -> Any:
        v = _EVAL[e.operand.__class__](self, e.operand, env)
        if not isinstance(v, int) or isinstance(v, bool):
            raise self.runtime_error(e.span, f"cannot negate {self.label(v)}")
        return -v

    def _number_of(self, e: s.Expr, env: dict[str, Any]) -> int:
        """A count (of cards, repeats, choices, a tier): a number, or a located error."""
        v = self._eval(e, env)
        if not isinstance(v, int) or isinstance(v, bool):
            raise self.runtime_error(_span_of(e), f"a number is needed here, not {self.label(v)}")
        return v

    def bounded(self, value: tuple[Any, ...] | None, e: s.Expr | s.Stmt, size: int) -> tuple[Any, ...]:
        """The list, or a located error if it is longer than a rulebook may build (`value` None: too long)."""
        if value is None or len(value) > LIST_BUDGET:
            raise self._runaway(
                _span_of(e),
                f"a list of {size} elements is more than a rulebook may build ({LIST_BUDGET}): a runaway computation?",
            )
        return value

    def number(self, value: int, e: s.Expr | s.Stmt) -> int:
        if -INT_BUDGET <= value <= INT_BUDGET:
            return value
        raise self._runaway(_span_of(e), f"a number beyond {INT_BUDGET} in size: a runaway computation?")

    def _eval_cond(self, e: s.CondExpr, env: dict[str, Any]) -> Any:
        branch = e.then if self._truth(e.condition, env) else e.otherwise
        return _EVAL[branch.__class__](self, branch, env)

    def _eval_record(self, e: s.RecordLit, env: dict[str, Any]) -> Any:
        return Record({i.name: _EVAL[i.value.__class__](self, i.value, env) for i in e.inits})

    def _eval_none(self, e: s.NoneLit, env: dict[str, Any]) -> Any:
        return None

    def _query(self, op: str, items: tuple[Any, ...], key: s.Expr, env: dict[str, Any]) -> Any:
        saved = env.get("it", _MISSING)
        try:
            if op == "where":
                out = []
                for v in items:
                    env["it"] = v
                    if self._truth(key, env):
                        out.append(v)
                return tuple(out)
            keys = []
            for v in items:
                env["it"] = v
                keys.append(self._eval(key, env))
        finally:
            _restore(env, "it", saved)
        return query_by_keys(op, items, keys)

    def _global(self, name: str, e: s.Expr) -> Any:
        program = self.program
        if name in program.consts:
            if name not in self._consts:
                self._consts[name] = self._eval(program.consts[name].value, {})
            return self._consts[name]
        if name == "players":
            return self._players
        if name == "player_count":
            return len(self._players)
        if name == "table":
            return TABLE
        if name in program.members:
            return program.members[name]
        if name in program.enums:
            return program.enums[name]
        if name in program.zones:
            return ZoneRef(name, ())
        if name in program.vars:
            return self._var(name, name)
        raise self.runtime_error(_span_of(e), f"unknown name '{name}'")

    def _var(self, name: str, key: str) -> Any:
        vars_ = self.state.vars
        if key in vars_:
            return vars_[key]
        decl = self.program.vars[name]
        return self._eval(decl.init, {})

    def _init_vars(self) -> None:
        """Variables without keys start at their initial value; keyed ones read it until first set."""
        for name, decl in self.program.vars.items():
            if not decl.keys:
                self.state.vars[name] = self._eval(decl.init, {})

    def _call_fn(self, name: str, args: tuple[Any, ...], span: Span) -> Any:
        fn = self.program.fns[name]
        env = {p.name: a for p, a in zip(fn.params, args, strict=True)}
        if self._fn_depth >= FN_DEPTH_BUDGET:
            raise self._runaway(
                span if span is not NO_SPAN else fn.span,
                f"functions called {FN_DEPTH_BUDGET} deep (in {name}): runaway recursion?",
            )
        self._fn_depth += 1
        try:
            return self._eval(fn.body, env)
        finally:
            self._fn_depth -= 1

    def _builtin(self, name: str, args: tuple[s.Expr, ...], env: dict[str, Any], e: s.Call) -> Any:
        """A built-in function (docs/LANGUAGE.md; the table in builtins.py) applied to its arguments."""
        builtin = BUILTINS.get(name)
        if builtin is None:
            raise self.runtime_error(e.span, f"unknown function '{name}'")
        return builtin.run(self, e, [self._eval(a, env) for a in args])

    def zone_of_card(self, card: CardRef) -> ZoneRef:
        return ZoneRef(*self._parse_key(self.state.location[card.id]))

    def _parse_key(self, key: str) -> tuple[str, tuple[Any, ...]]:
        """The name and the key values (each of its own type) of a zone or variable key such as `slot[P1,2,3]`."""
        return parse_key(key, self._enum_word)

    def _enum_word(self, word: str) -> EnumValue | None:
        """The enumeration value a word of a key names: `red`, or `Colour.red`."""
        enum, _, name = word.rpartition(".")
        if not enum:
            return self.program.members.get(word)
        with contextlib.suppress(KeyError):
            return self.program.enum_value(enum, name)
        return None

    # ---------------------------------------------------------------- values

    def _held(self, v: Any, e: s.Expr) -> Any:
        """The value a local name holds: a zone's cards as they are now (a list that later moves do not
        change), else the value itself (docs/LANGUAGE.md, "A zone as a value")."""
        return self.as_list(v, e) if v.__class__ is ZoneRef else v

    def _argument(self, param: s.Param, v: Any, e: s.Expr) -> Any:
        """The value a procedure's or ability's parameter holds: a zone passed as a `list of T` is its
        cards as they are at the call; a parameter of another type (`any`) takes the zone itself."""
        if v.__class__ is ZoneRef and param.type.__class__ is s.ListType:
            return self.as_list(v, e)
        return v

    def as_list(self, v: Any, e: s.Expr) -> tuple[Any, ...]:
        if isinstance(v, tuple):
            return v
        if isinstance(v, ZoneRef):
            return card_refs(self.state.zones.get(v.key, ()))
        if v is None:
            return ()
        raise self.runtime_error(_span_of(e), f"a list is needed here, not {self.label(v)}")

    def _cards(self, v: Any, e: s.Expr) -> list[CardRef]:
        if isinstance(v, CardRef):
            return [v]
        if v is None:
            raise self.failure(_span_of(e), "there is no card to move")
        items = self.as_list(v, e)
        out = []
        for item in items:
            if not isinstance(item, CardRef):
                raise self.runtime_error(_span_of(e), f"only cards move, not {self.label(item)}")
            out.append(item)
        return out

    def zone_value(self, v: Any, e: s.Expr) -> ZoneRef:
        if not isinstance(v, ZoneRef):
            raise self.runtime_error(_span_of(e), f"a zone is needed here, not {self.label(v)}")
        if None in v.keys:
            raise self.failure(_span_of(e), f"there is no zone {v.key}")
        return v

    def label(self, v: Any) -> str:
        """The stable, readable label of a value: what traces print and records store."""
        if v is _NO_FIELD:
            return "?"
        if v.__class__ is CardRef:
            card = self.state.cards[v.id]
            # Cards are immutable: a card object keeps its label, found by identity (the entry
            # holds the object, so the identity cannot be reused while the entry lives).
            labels = self._labels
            entry = labels.get(id(card))
            if entry is not None and entry[0] is card:
                return entry[1]
            text = self._card_label(card)
            if _plain_card(card.__class__, self.program, labels):
                if len(labels) > LABEL_CACHE_SIZE:
                    labels.clear()
                labels[id(card)] = (card, text)
            return text
        if isinstance(v, tuple):
            return "[" + ", ".join(self.label(x) for x in v) + "]"
        if isinstance(v, Record):
            return "{" + ", ".join(f"{k}: {self.label(x)}" for k, x in v.items()) + "}"
        return label_of_plain(v)

    def _card_label(self, card: Any) -> str:
        template = self.rulebook.labels.get(type(card).__name__)
        if template is None:
            return (
                f"{type(card).__name__}("
                + ", ".join(self.label(getattr(card, f.name)) for f in attrs.fields(type(card))[1:])
                + ")"
            )
        return _TEMPLATE.sub(lambda m: self.label(self._template_value(card, m.group(1))), template)

    def _template_value(self, card: Any, path: str) -> Any:
        """The value a label template names (`{colour}`, `{owner.name}`), through declared fields only."""
        v = card
        for part in path.split("."):
            v = self._field_of(v, part)
        return v

    def _field_of(self, v: Any, name: str) -> Any:
        """A declared field of a card or a record, else _NO_FIELD: text never reaches other attributes."""
        if isinstance(v, CardRef):
            v = self.state.cards[v.id]
        if isinstance(v, Record):
            return v.get(name) if v.has(name) else _NO_FIELD
        cls: type = type(v)  # typed as a plain class: mypy does not see type[Any] as Hashable for the cache
        if cls.__name__ in self.program.cards and name in attrs_fields(cls):
            return getattr(v, name)
        return _NO_FIELD

    # ---------------------------------------------------------------- views

    def view(self, player: Player | int | str | None) -> dict[str, Any]:
        """What `player` may see (None: everything), as plain data; hidden cards become counts."""
        who = as_player(player)
        if who is not None and who.index >= self.state.players:
            raise GameError(f"there is no {who} in a game of {self.state.players} players")
        owner = str(who) if who is not None else None
        info = self._key_info
        zones: dict[str, Any] = {}
        state_zones = self.state.zones
        for key in sorted(state_zones):
            ids = state_zones[key]
            decl, owned_by = info[key] if key in info else self._info_of(key)
            visibility = decl.visibility
            if who is None or visibility == "public":
                labels = self._zone_labels(key, ids)
                zones[key] = list(reversed(labels)) if not decl.shuffled else sorted(labels)
            elif visibility == "owner" and owned_by == owner:
                zones[key] = list(reversed(self._zone_labels(key, ids)))
            elif visibility == "top":
                zones[key] = {"top": self.label(CardRef(ids[-1])) if ids else None, "count": len(ids)}
            else:
                zones[key] = {"count": len(ids)}
        vars_: dict[str, Any] = {}
        state_vars = self.state.vars
        for key in sorted(state_vars):
            var_decl, owned_by = info[key] if key in info else self._info_of(key)
            visibility = var_decl.visibility
            if who is None or visibility == "public" or (visibility == "owner" and owned_by == owner):
                vars_[key] = self.label(state_vars[key])
            elif visibility == "count":
                vars_[key] = "?"
        pending = None
        if self.pending is not None and (who is None or self.pending.player == who):
            pending = {"by": self.pending.by, "prompt": self.pending.prompt, "options": self.pending.labels}
        elif self.pending is not None:
            pending = {"by": self.pending.by, "prompt": "(waiting)"}
        return {
            "as": "all" if who is None else str(who),
            "zones": zones,
            "vars": vars_,
            "pending": pending,
            "over": self.state.over,
        }

    def _info_of(self, key: str) -> tuple[Any, str | None]:
        """The declaration of a zone or variable key, and the text of its first Player key (kept per rulebook).

        (`slot[2,P1]`: P1. A player owns the key when that text is its seat, as `owned_by` says.)
        """
        name = key.split("[", 1)[0]
        try:
            _, keys = self._parse_key(key)
        except ValueError:  # not a key the rules wrote (a state changed from outside): no owner
            keys = ()
        decl = self.program.zones.get(name) or self.program.vars[name]
        owner = None
        for type_, value in zip(decl.keys, keys, strict=False):
            if isinstance(type_, s.NamedType) and type_.name == "Player":
                owner = str(value) if isinstance(value, Player) else None
                break
        entry = self._key_info[key] = (decl, owner)
        return entry

    def _zone_labels(self, key: str, ids: list[int]) -> tuple[str, ...]:
        """The labels of a zone's cards, kept until the state changes (the views of all players share them)."""
        memo_key = ("#labels", key)  # no function is named with '#': no clash with their values
        labels = self._memo.get(memo_key)
        if labels is None:
            labels = self._memo[memo_key] = tuple(self._labels_of(ids))
        return labels

    def _labels_of(self, ids: Sequence[int]) -> list[str]:
        """The labels of cards by id (the label cache read directly, as `label` does)."""
        cards, labels = self.state.cards, self._labels
        out = []
        for i in ids:
            card = cards[i]
            entry = labels.get(id(card))
            out.append(entry[1] if entry is not None and entry[0] is card else self.label(CardRef(i)))
        return out

    def owned_by(self, key: str, who: Player) -> bool:
        """Whether `who` is the player named by the first Player key of a zone or variable key (`slot[2,P1]`)."""
        name = key.split("[", 1)[0]
        if name not in self.program.zones and name not in self.program.vars:
            return False
        _, owner = self._key_info[key] if key in self._key_info else self._info_of(key)
        return owner == str(who)

    def choice_public_to(self, who: Player) -> bool:
        """Whether `who` will see the answer to the pending decision, as a trace's `choose` line
        shows it (see visible_to): its options are values `who` sees, outside a `secret` block."""
        if self.pending is None or self.pending.player is None or self.secret_run is not None or not self.frames:
            return False
        zones = self._public_zones(self.frames[-1], self.pending)
        return zones is not None and all(self._sees_cards_of(k, who) for k in zones)

    def shown_to(self, event: Event, who: Player | None) -> bool:
        """Whether `who`'s trace has a line for the event: a forced decision's line is shown only
        to those who may not see the choice, so that its shape tells them nothing."""
        return not event.forced or (who is not None and self.visible_to(event, who) != event.text)

    def visible_to(self, event: Event, who: Player | None) -> str:
        """The text of a trace event as `who` may see it.

        Inside a `secret` block, an event that `who` may not see in full, and any decision that
        another player (or the table) answered, is only SECRET_TEXT: neither its prompt nor its
        answer shows (the trace folds a run's secret lines into one, see render.trace_lines).
        """
        text = self._visible_text(event, who)
        if (
            event.secret is not None
            and who is not None
            and (text != event.text or (event.verb in ("choose", "reveal") and event.actor != str(who)))
        ):
            return SECRET_TEXT
        return text

    def _visible_text(self, event: Event, who: Player | None) -> str:
        if who is None or not event.zones:
            if event.verb in ("choose",) and who is not None and event.actor not in (str(who), "table"):
                if event.public_zones is not None and all(self._sees_cards_of(k, who) for k in event.public_zones):
                    return event.text  # a choice among values the viewer sees is public
                return event.hidden_text or event.text
            if event.verb == "reveal" and who is not None:
                return event.hidden_text or event.text
            return event.text
        if event.verb == "move":
            return self._move_visible_to(event, who)
        for key in event.zones:
            name = key.split("[", 1)[0]
            if name in self.program.zones:
                decl = self.program.zones[name]
                if decl.visibility == "public" and not decl.shuffled:
                    continue
                if decl.visibility == "owner" and self.owned_by(key, who):
                    continue
                if decl.visibility == "top":
                    continue  # the card passed the face-up top of the pile
            elif name in self.program.vars:
                vdecl = self.program.vars[name]
                if vdecl.visibility == "public" or (vdecl.visibility == "owner" and self.owned_by(key, who)):
                    continue
            elif name == key:
                continue
            else:
                continue
            if name in self.program.zones and self._moved_between_visible(event, who):
                continue
            return event.hidden_text or "(hidden)"
        return event.text

    def _move_visible_to(self, event: Event, who: Player) -> str:
        """A move names its cards to `who` if `who` saw them where they were or sees them where they land."""
        *sources, dst = event.zones
        if all(self._sees_cards_of(key, who, as_source=True) for key in sources) or self._sees_cards_of(dst, who):
            return event.text
        decl = self.program.zones.get(dst.split("[", 1)[0])
        if decl is not None and decl.visibility == "top" and event.top_text:
            return event.top_text
        return event.hidden_text or "(hidden)"

    def _sees_cards_of(self, key: str, who: Player, as_source: bool = False) -> bool:
        decl = self.program.zones.get(key.split("[", 1)[0])
        if decl is None or decl.shuffled:
            return False
        if decl.visibility == "public" or (decl.visibility == "owner" and self.owned_by(key, who)):
            return True
        # A card taken from a pile whose top is face up is (normally) that top card.
        return as_source and decl.visibility == "top"

    def _moved_between_visible(self, event: Event, who: Player) -> bool:
        # A card that lands somewhere `who` sees is seen, wherever it came from.
        dst = event.zones[-1]
        name = dst.split("[", 1)[0]
        decl = self.program.zones.get(name)
        if decl is None:
            return False
        return (decl.visibility in ("public", "top") and not decl.shuffled) or (
            decl.visibility == "owner" and self.owned_by(dst, who)
        )


# The method that does each kind of statement that is not compiled (see closures._compile_stmt).
_EXEC: dict[type, Any] = {
    s.Let: Game._exec_let_call,  # the other `let`s are compiled
    s.SetField: Game._exec_set_field,
    s.Draw: Game._exec_draw,
    s.While: Game._exec_while,
    s.Repeat: Game._exec_repeat,
    s.Match: Game._exec_match,
    s.Attempt: Game._exec_attempt,
    s.Together: Game._exec_together,
    s.Secret: Game._exec_secret,
    s.Fail: Game._exec_fail,
    s.Require: Game._exec_require,
    s.Choose: Game._exec_choose,
    s.Menu: Game._exec_menu,
    s.Use: Game._exec_use,
    s.Return: Game._exec_return,
    s.EndGame: Game._exec_end_game,
    s.EndUnfinished: Game._exec_end_unfinished,
    s.Say: Game._exec_say,
}

# The method that evaluates each kind of expression (in grammar order of the AST classes).
_EVAL: dict[type, Any] = {
    s.IntLit: Game._eval_literal,
    s.StrLit: Game._eval_literal,
    s.Template: Game._eval_template,
    s.BoolLit: Game._eval_literal,
    s.NoneLit: Game._eval_none,
    s.Name: Game._eval_name,
    s.ListLit: Game._eval_list,
    s.Comprehension: Game._eval_comprehension,
    s.RecordLit: Game._eval_record,
    s.FieldAccess: Game._eval_field,
    s.Index: Game._eval_index,
    s.Call: Game._eval_call,
    s.Neg: Game._eval_neg,
    s.Binary: Game._eval_binary,
    s.RangeOp: Game._eval_range,
    s.Compare: Game._eval_compare,
    s.In: Game._eval_in,
    s.Not: Game._eval_not,
    s.And: Game._eval_and,
    s.Or: Game._eval_or,
    s.Query: Game._eval_query,
    s.CondExpr: Game._eval_cond,
}
closures.define(_EVAL, _EXEC)

_PLAIN_KINDS = frozenset({"int", "bool", "str", "player", "enum"})


def _plain_card(cls: type, program: Program, labels: dict[Any, Any]) -> bool:
    """Whether cards of this class hold only plain values, so that their label depends on the card alone.

    The answer is kept in the label cache itself, under the class.
    """
    plain = labels.get(cls)
    if plain is None:
        card_type = program.cards.get(cls.__name__)
        plain = labels[cls] = card_type is not None and all(ft.kind in _PLAIN_KINDS for _, ft in card_type.fields)
    return bool(plain)


def _label_cache(rulebook: Any) -> dict[Any, Any]:
    return _shared_dict(rulebook, "label_cache")


def _shared_dict(rulebook: Any, name: str) -> dict[Any, Any]:
    """A dictionary kept on the rulebook and shared by its games (made on first use)."""
    cache = getattr(rulebook, name, None)
    if cache is None:
        cache = {}
        with contextlib.suppress(AttributeError):
            setattr(rulebook, name, cache)
    return cache


_DONE = object()
_MISSING = object()
_NO_FIELD = Record({"?": None})  # what a template shows for a name that is not a declared field
_MANY = object()
_TEMPLATE = re.compile(r"\{([A-Za-z_][A-Za-z0-9_.]*)\}")


def _restore(env: dict[str, Any], name: str, saved: Any) -> None:
    if saved is _MISSING:
        env.pop(name, None)
    else:
        env[name] = saved


def _without(xs: tuple[Any, ...], ys: tuple[Any, ...]) -> tuple[Any, ...]:
    """`xs - ys` on lists: `xs` in its order with each element of `ys` taken out once (if it is there)."""
    left = list(ys)
    out = []
    for x in xs:
        i = next((i for i, y in enumerate(left) if same(x, y)), None)
        if i is None:
            out.append(x)
        else:
            del left[i]
    return tuple(out)


def _span_of(node: Any) -> Span:
    return getattr(node, "span", NO_SPAN)


def _fold(seed: int) -> int:
    """The chance generator's 64-bit state from a seed: a seed of more bits (play draws 128) is
    folded in whole, so that every bit of it counts; a seed of 64 bits or fewer is its own state."""
    state = seed & MASK64
    if seed > MASK64:
        seed >>= 64
        while seed:
            state ^= seed & MASK64
            seed >>= 64
    return state


def as_player(player: Player | int | str | None) -> Player | None:
    if player is None or isinstance(player, Player):
        return player
    if isinstance(player, str):
        if not re.fullmatch(r"P[1-9][0-9]{0,5}", player):
            raise GameError(f"'{clip(player)}' is not a seat: seats are P1, P2, ...")
        return Player(int(player[1:]) - 1)
    if not isinstance(player, int) or isinstance(player, bool) or player < 0:
        raise GameError(
            f"a seat is 'P1', 'P2', ... (or its index 0, 1, ..., or None for everything), not {clip(repr(player))}"
        )
    return Player(player)


__all__ = ["Decision", "Event", "Game", "Option", "State", "make_converter"]
