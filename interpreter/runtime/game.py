"""Run a checked program: a game is a state plus a stack of frames, advanced by answers.

How the language maps onto Python here:
- a block of statements is run by its generated code (compile/blocks.py, via `codecache.Body`: the
  common statements defined there, the others by a function of statements.py); a compound statement pushes a *frame*
  (machine.py; plain data: the statements left, a loop position, the local names) instead of recursing, so
  a game paused at a decision is only data: it can be cloned, and resumed, at any decision; a
  block runs its statements one after another within one step until one starts other work;
- an expression is run by a function generated once per node (`runtime/codecache.py`), which hands
  anything unusual to the operation's definition (runtime/operations.py); a built-in function is a
  row of the table in `language/builtins.py`;
- every choice (a player's or the table's) is a `Decision` with a list of labelled options
  (`runtime/asks.py`); the frame that asked stays on top of the stack until `apply` answers it, and
  `pending_ask` describes it to the tools without showing them the frame;
- every change of the state goes through `move`, `set_var`, `set_field`, `create` (store.py), which
  tell the sinks (observe.py: the trace among them) what changed, with the span of the rule that
  caused it, and journal the old value while an `attempt` (or an `apply`) is open so that a
  failure can undo everything the attempt did;
- every failure at run time (a `fail`, a card that is not there, a value of the wrong kind, ...)
  is a `RuntimeFailure`, raised where it happens and unwound in one place, `machine.unwind`: to the
  innermost attempt or tier, else out of the game as a located error. A budget is not a failure;
- `apply` is all or nothing: it keeps what it needs to put the game back (see `Keep`).

`Game` is the top of a chain of layers (see core.py), the facade of evaluate.py's functions (its
methods of the values) and the owner of the parts: `Decisions` (asking,
decisions.py), `Information` (what each seat sees, views.py) and the sinks (observe.py), each made
here, given the game at each call (never kept: no cycle); this module holds the public API, which
hands questions of visibility and the frames' questions to those parts, and the step loop.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..check.program import Program
from ..errors import NO_SPAN, GameError, Span
from ..language.values import (
    CardRef,
    Player,
    ZoneRef,
    zone_key,
)
from ..syntax import ast as s
from . import codecache, knowledge, machine, store
from . import evaluate as ev
from .asks import Ask, ChooseAsk, Decision, DrawAsk, MenuAsk, Option, UseAsk
from .basics import MASK64, WORK_BUDGET, Event, RuntimeFailure, SecretRun, splitmix
from .codecache import CodeCache, code_cache
from .context import Frame
from .core import (
    MISSING,
    GameCore,
    Switches,
    as_player,
    fold_seed,
    seats,
)
from .decisions import Decisions
from .determinize import determinize
from .machine import AskFrame, BeforePlayFrame, BlockFrame, Keep, Sharing
from .observe import EVERY_GAME, NO_SINKS, Observer, Sinks, Trace
from .prefix import prefix_for
from .state import State, make_converter
from .statements import EXEC
from .views import Information

_PLAIN_SWITCHES = Switches(False, False)


class Game(GameCore):
    """A game in progress: the OpenSpiel shape (pending / legal_answers / apply / view / over / result)."""

    # The values (evaluate.py's functions, the game their first argument) as methods of the game: the
    # public API, and what the frames, the generated code and the built-ins call (`Context`).
    rule_match = ev.rule_match
    holds = ev.holds
    evaluate = ev.evaluate
    truth_of = ev.truth_of
    binding = ev.binding
    text = ev.text
    arith = ev.arith
    number_of = ev.number_of
    bounded = ev.bounded
    number = ev.number
    global_value = ev.global_value
    variable = ev.variable
    call_fn = ev.call_fn
    zone_of_card = ev.zone_of_card
    split_key = ev.split_key
    held = ev.held
    argument = ev.argument
    as_list = ev.as_list
    cards_of = ev.cards_of
    zone_value = ev.zone_value
    label = ev.label
    share_label = ev.share_label
    zone_labels = ev.zone_labels
    keep_zone_labels = ev.keep_zone_labels
    labels_of = ev.labels_of
    # The changes (store.py's functions), likewise.
    forget = store.forget
    forget_all = store.forget_all
    undo = store.undo
    note_event = store.note_event
    check_rules = store.check_rules
    move = store.move
    set_var = store.set_var
    set_field = store.set_field
    create = store.create

    def __init__(
        self,
        rulebook: Any,
        players: int,
        seed: int | None = 0,
        *,
        trace: bool = True,
        auto_chance: bool = True,
        check_invariants: bool = False,
        ask_forced: bool = False,
        before_play: Callable[[Game], None] | None = None,
        observers: Sequence[Observer] = (),
        _blank: bool = False,
        _unrun: bool = False,
    ):
        """A new game, set up and run to its first decision.

        `trace` keeps the trace (`events`); `observers` hear the game from its setup on, after the
        sinks of `observing` (see observe.py). `check_invariants` checks the declared invariants at
        every decision; `ask_forced` asks every decision, one with a single possible answer too
        (which is otherwise taken at once and not recorded).

        `before_play` edits the position between setup and play (a scenario's `move` and `set`
        lines): it is called once, as one step, with the game; it changes the state through
        `evaluate`, `execute` and `move_cards`, and the rules fire after it as after any step.
        """
        self.rulebook = rulebook
        self.program: Program = rulebook.program
        # Each expression is compiled once into a closure, shared by every game of the rulebook, as are the
        # labels of its cards (`CodeCache.card_labels`).
        # (`code_cache`, its common case written out: the rulebook's own, made before)
        code = getattr(rulebook, "code_cache", None)
        self.code: CodeCache = (
            code if code is not None and code.program is self.program else code_cache(rulebook, self.program)
        )
        self.work_left = WORK_BUDGET  # units of work inside expressions left before the next decision (charge)
        self.sharing: Sharing | None = None  # the frames shared with a clone or the game cloned (`clone`)
        if _blank:  # a clone's: it copies the rest from its game (`clone`)
            return
        if not self.program.min_players <= players <= self.program.max_players:
            raise GameError(
                f"{self.program.name} is played by {self.program.min_players} to "
                f"{self.program.max_players} players, not {players}"
            )
        self.seed = seed
        # Asking and answering (decisions.py); the table answered by the seed unless `auto_chance` is off.
        self.decisions = Decisions(auto_chance and seed is not None)
        self.sinks = sinks = Sinks(Trace()) if trace else NO_SINKS
        if EVERY_GAME or observers:  # (the sinks of `observing`, and the game's own)
            for sink in (*EVERY_GAME, *observers):
                self.observe(sink)
            sinks = self.sinks
        self.answers: list[tuple[str, str]] = []
        self.frames: list[Frame] = []
        self.journal: list[tuple[Any, ...]] = []
        self.attempts = 0
        self.together = 0
        self.secret = 0  # how many `secret` blocks are open; events inside carry secret_run
        self.secret_run: SecretRun | None = None
        self.information = Information()  # what each seat may see (views.py)
        self.rule_frames = 0
        self.dirty: set[str] = set()
        self.pending: Decision | None = None
        self.steps = 0
        self.keep: Keep | None = None  # while `apply` runs: what it needs to undo itself
        self.fn_depth = 0
        self.inline_depth = 0
        # (the commonest switches one value that games share, as clones share theirs: frozen)
        self.switches = (
            _PLAIN_SWITCHES
            if check_invariants is False and ask_forced is False
            else Switches(check_invariants, ask_forced)
        )
        heard = trace or sinks.events or sinks.pushes or sinks.moves or self.code.probed or _unrun
        if not heard and self.program.setup:
            # Nobody hears the setup: a copy of the end of its settled prefix, run once (prefix.py), by a
            # game of the same key set up but not run (`_unrun`).
            key = (players, before_play is not None, check_invariants, ask_forced, self.decisions.auto_chance)
            # (`prefix_for`, its common case written out: the rulebook's prefix for the key, run before)
            prefixes = getattr(rulebook, "setup_prefixes", None)
            prefix: Any = prefixes.get(key, MISSING) if prefixes is not None else MISSING
            if prefix is MISSING or (prefix is not None and prefix.code is not self.code):
                prefix = prefix_for(self, key, lambda: _unrun_game(rulebook, key))
            if prefix is not None:
                self._push_frames(before_play)
                prefix.start(self, players, seed)
                self._run(prefix.work_left)
                return
        self.state = State(players=players, rng=fold_seed(seed or 0))
        # What was derived from the state: functions' values (codecache.py) and zones' labels (views),
        # in parts that a change empties when it changes what they were derived from (store.forget).
        self.memo: list[Mapping[tuple[Any, ...], Any]] = list(self.code.empty_memo)
        self.consts: dict[str, Any] = dict(self.code.const_values.get(players, {}))
        self.players = seats(players)
        ev.init_vars(self)
        self._push_frames(before_play)
        if not _unrun:
            self._run()

    def _push_frames(self, before_play: Callable[[Game], None] | None) -> None:
        """The frames of a new game: its play, the edits before play, and its setup's blocks on top."""
        program = self.program
        # (a new game's few frames cannot reach the depth budget: `push` only when a sink hears them)
        push = self.push if self.sinks.pushes else self.frames.append
        if program.play is not None:
            push(BlockFrame(program.play.stmts, {}))
            if before_play is not None:
                push(BeforePlayFrame(before_play))
        for block in reversed(program.setup):
            push(BlockFrame(block.stmts, {}))

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

    def execute(self, st: s.Stmt, env: dict[str, Any]) -> None:
        """Do one simple statement (`set`, `move`, `create`: no decision, no block) with local names `env`."""
        self.code.statement(st)(self, env)

    def move_cards(self, cards: Sequence[CardRef], zone: ZoneRef, *, bottom: bool, span: Span) -> None:
        """Move cards to a zone, as a `move` statement at `span` does."""
        self.move(cards, zone, bottom, span)

    def draw_next(self, zone: ZoneRef, labels: Sequence[tuple[str, Span]]) -> None:
        """Make the next draws from a shuffled zone take the cards of these labels, in order (each
        label with the place that names it); the draws after them are chance as usual."""
        # (a new dict, never this one changed: an `apply` under way keeps the one it started with)
        next_draws = self.decisions.next_draws
        self.decisions.next_draws = {**next_draws, zone.key: (*next_draws.get(zone.key, ()), *labels)}

    def ask_again(self, go_on: bool = False) -> bool:
        """Ask the pending decision again from the (changed) state, as the rules would have; return
        whether the game waits on the same statement's question again (False: it was taken at once).

        If the decision now has one option, it is taken at once; with `go_on` the game then runs
        on to its next decision, as it would have in play.
        """
        if self.sharing is not None and len(self.frames) <= self.sharing.low:
            self.sharing.own_top(self)
        frame = self.frames[-1]
        assert isinstance(frame, AskFrame)
        self.pending = None
        frame.step(self)
        if go_on and self.pending is None and not self.state.over:
            self._run()
        return self.pending is not None and bool(self.frames) and self.frames[-1] is frame

    def legal_answers(self) -> list[str]:
        """The labels of the options of the pending decision."""
        return self.pending.labels if self.pending is not None else []

    @property
    def over(self) -> bool:
        return self.state.over

    @property
    def auto_chance(self) -> bool:
        """Whether the table's decisions are answered by the game's generator (`Game(auto_chance=...)`,
        off without a seed); a replay sets it off while it plays the recorded answers."""
        return self.decisions.auto_chance

    @auto_chance.setter
    def auto_chance(self, on: bool) -> None:
        self.decisions.auto_chance = on

    # The frames' questions (machine.AskFrame), put to the Decisions part (decisions.py).

    def ask(self, frame: AskFrame) -> None:
        """Ask the frame's question (or take its answer at once: one option, or chance)."""
        self.decisions.ask(self, frame)

    def answered(self, frame: AskFrame, value: Any) -> None:
        """Take the answer to the frame's question."""
        self.decisions.answered(self, frame, value)

    # What each seat may see: the Information part (views.py) answers.

    def view(self, player: Player | int | str | None) -> dict[str, Any]:
        """What `player` may see (None: everything), as plain data; hidden cards become counts
        (`Information.view`: while a secret run asks others, the view they had when it began)."""
        return self.information.view(self, player)

    def visible_to(self, event: Event, who: Player | None) -> str:
        """The text of a trace event as `who` may see it (`Information.visible_to`)."""
        return self.information.visible_to(self, event, who)

    def shown_to(self, event: Event, who: Player | None) -> bool:
        """Whether `who`'s trace has a line for the event (`Information.shown_to`)."""
        return self.information.shown_to(self, event, who)

    def choice_public_to(self, who: Player) -> bool:
        """Whether `who` will see the answer to the pending decision (`Information.choice_public_to`)."""
        return self.information.choice_public_to(self, who)

    def owned_by(self, key: str, who: Player) -> bool:
        """Whether `who` is the player named by the first Player key of a zone or variable key (`slot[2,P1]`)."""
        return self.information.owned_by(self, key, who)

    def sees_cards_of(self, key: str, who: Player, as_source: bool = False) -> bool:
        """Whether `who` sees the cards of zone `key` (`Information.sees_cards_of`)."""
        return self.information.sees_cards_of(self, key, who, as_source)

    def zone_seen_by(self, visibility: str, key: str, who: Player) -> bool:
        """Whether `who` sees the cards of zone `key`, of that visibility, in order (`Information.zone_seen_by`)."""
        return self.information.zone_seen_by(self, visibility, key, who)

    def apply(self, answer: str | int | Option, *, atomic: bool = True, by: Player | int | str | None = None) -> None:
        """Answer the pending decision with a label, an option, or an option's index.

        All or nothing: if the rules stop with an error on the way to the next decision, the game
        is exactly as it was before the call (state, answers, trace, pending decision). The
        bookkeeping costs some 7 to 11 % of a game's instructions (the bundled rulebooks);
        `atomic=False` skips it for a game that is thrown away on an error anyway (an agent's
        lookahead on a clone).

        `by` names the seat that sent the answer (a server relaying a player's move): a decision
        that is not that seat's is refused, and an error then says no more than that seat may
        see (not the legal answers: they may name the chooser's cards). Without `by`, the error
        of an answer that is not legal lists the legal answers (the caller sees everything).
        """
        decision = self.pending
        if decision is None:
            raise GameError("the game is over: no decision is pending")
        if by is not None:
            sender = as_player(by)
            if sender is None or sender.index >= self.state.players:
                raise GameError(f"there is no {sender} in a game of {self.state.players} players")
            if decision.player != sender:
                raise GameError(f"{sender} may not answer: the pending decision is {decision.by}'s")
        if answer.__class__ is str:  # (the commonest answer, a label: found without a call)
            for option in decision.options:
                if option.label == answer:
                    break
            else:
                option = decision.option_for(answer)
        else:
            option = decision.option_for(answer)
        if not atomic:
            self._apply(decision, option)
            return
        saved = self._snapshot()
        try:
            self._apply(decision, option)
        except BaseException:
            self._restore(saved)
            raise
        self.keep = None
        self.attempts -= 1  # the answer's own attempt (see `_snapshot`)
        if not self.attempts:
            self.journal.clear()

    def _snapshot(self) -> tuple[Any, ...]:
        """What `_restore` needs to put the game back as it is now: the stack (its frames and envs
        kept as they are touched) and what the journal does not hold of the state (see Keep), and
        the rest of what a step changes. The answer is an attempt of its own: every change is
        journalled until it is done, and undone if it fails."""
        self.keep = Keep(self.frames, self.state, self.journal)
        saved = (
            len(self.answers),
            len(self.events),
            (self.attempts, self.together, self.secret, self.secret_run, self.rule_frames, self.information.held_views),
            set(self.dirty),
            self.pending,
            self.steps,
            self.decisions.next_draws,  # (replaced, never changed in place, by a draw and `draw_next`: kept as it is)
            self.sharing.mark() if self.sharing is not None else None,  # (the frames shared, see Sharing)
        )
        self.attempts += 1
        return saved

    def _restore(self, saved: tuple[Any, ...]) -> None:
        answers, events, counts, dirty, pending, steps, next_draws, shared = saved
        keep = self.keep
        assert keep is not None
        if keep.state is not None:  # an attempt older than the answer undid past its mark (store.undo)
            assert keep.journal is not None
            self.state = keep.state
            self.journal[:] = keep.journal
        else:
            self.undo(keep.mark)
        keep.put_back_state(self.state)
        keep.put_back()
        self.keep = None
        self.frames[:] = keep.frames
        if shared is not None:
            assert self.sharing is not None
            self.sharing.put_back(shared)
        del self.answers[answers:]
        del self.events[events:]
        self.attempts, self.together, self.secret, self.secret_run, self.rule_frames, held_views = counts
        self.information.held_views = held_views
        self.dirty = dirty
        self.pending = pending
        self.steps = steps
        self.decisions.next_draws = next_draws
        self.fn_depth = 0
        self.inline_depth = 0
        self.forget_all()

    def _apply(self, decision: Decision, option: Option) -> None:
        self.pending = None
        if decision.player is None:
            # Keep the generator where a live game would have it, so a replayed game resumes alike.
            self.state.rng, _ = splitmix(self.state.rng)
        player = decision.player
        self.answers.append(("table" if player is None else f"P{player.index + 1}", option.label))  # (`decision.by`)
        if self.sharing is not None and len(self.frames) <= self.sharing.low:
            self.sharing.own_top(self)
        frame = self.frames[-1]
        if self.sinks.events and not (isinstance(frame, AskFrame) and frame.kind == "draw"):
            self.emit(self.decisions.choice_event(self, frame, decision, option))
        value = option.value
        if self.keep is not None:
            self.keep.reach(self.frames)
        try:
            if frame.__class__ is AskFrame:  # (`AskFrame.answer`, without its call)
                self.decisions.answered(self, frame, value)
            else:
                frame.answer(self, value)
        except RuntimeFailure as failure:  # an answer's first step failed: undone as in `_run`
            machine.unwind(self, failure)
        machine.run(self, WORK_BUDGET)  # (`_run`, without its call in the common case: nothing to do after)
        if self.switches.check_invariants or (
            self.pending is not None and (self.secret_run is not None or self.information.held_views)
        ):
            self._after_run()

    def result(self) -> dict[str, Any]:
        """Scores and winners of a game that is over; a game a guard stopped also says why
        (`unfinished`), and has no winner. A cooperative end (`end game together won`) says
        `together` ("won": every player is a winner, "lost": none is) and the `team_score`
        (`team_score()`, None without one)."""
        if not self.state.over:
            raise GameError("the game is not over")
        scores = {str(p): self.score(p) for p in self.players}
        winners = [str(Player(i)) for i in (self.state.winners or [])]
        if self.state.unfinished is not None:
            return {"scores": scores, "winners": winners, "unfinished": self.state.unfinished}
        if self.state.together is not None:
            together = {"together": self.state.together, "team_score": self.team_score()}
            return {"scores": scores, "winners": winners, **together}
        return {"scores": scores, "winners": winners}

    def score(self, player: Player) -> int | None:
        """The rulebook's `score(p)` for a player, or None if it declares none."""
        if "score" not in self.program.fns:
            return None
        value = self.ask_fn("score", (player,))
        return value if isinstance(value, int) else None

    def team_score(self) -> int | None:
        """The rulebook's `team_score()` (a cooperative game's score), or None if it declares none."""
        fn = self.program.fns.get("team_score")
        if fn is None or fn.params:
            return None
        value = self.ask_fn("team_score", ())
        return value if isinstance(value, int) and not isinstance(value, bool) else None

    def heuristic(self, player: Player) -> int:
        """The rulebook's `heuristic(p)` (else `score(p)`, else 0): what greedy agents maximise."""
        for name in ("heuristic", "score"):
            if name in self.program.fns:
                value = self.ask_fn(name, (player,))
                return value if isinstance(value, int) else 0
        return 0

    def ask_fn(self, name: str, args: tuple[Any, ...]) -> Any:
        """The value of the rulebook's `fn name` for `args`, asked between decisions with a budget of work of
        its own: `call_fn(name, args, NO_SPAN)`, by the function's generated call (`CodeCache.entry`), so
        that a value kept in the memo is read, not computed again (a greedy agent asks the heuristic of
        every position it tries)."""
        self.work_left = WORK_BUDGET
        entry = self.code.entry(name)
        # (a game inside a call, or a call whose own charge spends the budget: `call_fn`, which locates
        # these errors at the declaration)
        if entry is None or self.fn_depth or entry[2] > WORK_BUDGET:
            return self.call_fn(name, args, NO_SPAN)
        return entry[0](self, entry[1], *args)

    def clone(self, *, trace: bool = False) -> Game:
        """An independent copy of this game at this decision, another history from here on.

        It has none of this game's sinks; with `trace` it has a trace of its own, which starts
        with a copy of this game's events (see observe.py).
        """
        new = Game(self.rulebook, self.state.players, _blank=True)
        new.code = self.code
        new.state = self.state.copy()
        new.seed = self.seed
        new.decisions = Decisions(self.decisions.auto_chance, dict(self.decisions.next_draws))
        new.sinks = Sinks(Trace(list(self.events))) if trace else NO_SINKS
        new.answers = list(self.answers)
        new.frames, new.sharing = machine.clone_stack(self)
        # (made while an answer is applied all or nothing, by a sink: without the answer's own attempt)
        new.attempts = self.attempts - (self.keep is not None)
        new.journal = list(self.journal) if new.attempts else []
        new.together, new.rule_frames = self.together, self.rule_frames
        new.secret, new.secret_run = self.secret, self.secret_run
        new.information = Information(self.information.held_views)
        new.dirty = set(self.dirty)
        new.pending = self.pending
        new.steps = self.steps
        new.keep = None
        new.fn_depth = 0
        new.inline_depth = 0
        # The functions' values, each dict shared until one of the two games changes what it
        # derives from (a change replaces the dict, never empties it in place: store.forget), so
        # that a value either game finds is right for both while they share it.
        new.memo = list(self.memo)
        new.switches = self.switches
        new.consts = self.consts
        new.players = self.players
        return new

    def still(self) -> Game:
        """A copy of this game as it is now, to read (its views, labels, values), not to play on:
        it has the state, the pending decision and the secret run, without frames, trace or sinks."""
        new = Game(self.rulebook, self.state.players, _blank=True)
        new.code = self.code
        new.state = self.state.copy()
        new.sinks = NO_SINKS
        new.frames = []
        new.secret, new.secret_run = self.secret, self.secret_run
        new.information = Information()
        new.pending = self.pending
        new.fn_depth = 0
        new.inline_depth = 0
        new.memo = list(self.code.empty_memo)
        new.consts = self.consts
        new.players = self.players
        return new

    def state_changed(self) -> None:
        """Say that `state` was changed from outside the rules (the game forgets what it derived from it)."""
        self.forget_all()

    def determinize(self, player: Player, rng: random.Random | int) -> Game:
        """A copy in which everything hidden from `player` is drawn anew at random, consistently
        with what `player` sees, and chance is reseeded (determinize.py says what is drawn)."""
        return determinize(self, player, rng)

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
        self.forget_all()
        st = self.state
        if self.attempts or self.together or self.rule_frames:
            raise GameError("cards can be arranged only between steps, at a decision")
        try:
            name, values = self.split_key(zone)
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
        if st.known or st.told:
            knowledge.forget(self, [c.id for c in moved])
        if self.sinks.events and moved:
            self.note_event(
                "arrange",
                f"{', '.join(labels)} -> {zone}",
                NO_SPAN,
                zones=(zone,),
                hidden_text=f"{len(moved)} card{'' if len(moved) == 1 else 's'} -> {zone}",
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

    def _run(self, work: int = WORK_BUDGET) -> None:
        """Run to the next decision or the end (`machine.run`, with `work` left of the budget of work),
        then hold the views a secret run holds and check the invariants (`Game(check_invariants=True)`)."""
        machine.run(self, work)
        if self.switches.check_invariants or (
            self.pending is not None and (self.secret_run is not None or self.information.held_views)
        ):
            self._after_run()

    def _after_run(self) -> None:
        """What `_run` does after the step loop: hold the views while a secret asks, check the invariants."""
        if self.pending is not None and (self.secret_run is not None or self.information.held_views):
            self.information.hold_views(self, self.pending)  # what the others see holds still while a secret asks
        if (
            self.switches.check_invariants  # (not the property: read after every answer)
            and self.program.invariants
            # (an answer applied all or nothing counts as an attempt of its own: see `_snapshot`)
            and (self.state.over or not (self.rule_frames or self.attempts > (self.keep is not None) or self.together))
        ):
            broken = self.invariant_violations()
            if broken:
                decl, where = broken[0]
                raise self.located(decl.span, f"invariant {decl.name} does not hold{where}")

    def invariant_violations(self) -> list[tuple[s.InvariantDecl, str]]:
        """The declared invariants that do not hold now, each with the binding that breaks it."""
        broken = []
        for decl in self.program.invariants:
            env = ev.first_binding(self, decl.bindings, lambda env, d=decl: not self.holds(d.condition, env))
            if env is not None:
                where = ", ".join(f"{b.name} = {self.label(env[b.name])}" for b in decl.bindings)
                broken.append((decl, f" ({where})" if where else ""))
        return broken


def _unrun_game(rulebook: Any, key: tuple[Any, ...]) -> Game:
    """A game of the prefix's `key` (players, edits before play or not, switches, chance answered by the
    seed), set up as `Game.__init__` sets it up, its frames pushed but not run: the one that runs a setup's
    settled prefix (prefix.py)."""
    players, before, check_invariants, ask_forced, auto_chance = key
    edits = _no_edits if before else None
    switches = {"check_invariants": check_invariants, "ask_forced": ask_forced, "auto_chance": auto_chance}
    return Game(rulebook, players, 0, trace=False, before_play=edits, _unrun=True, **switches)


def _no_edits(g: Game) -> None:
    """The edits before play of the game that runs a setup's prefix for games that have some (never called)."""


codecache.define(EXEC)


__all__ = ["Decision", "Event", "Game", "Option", "State", "make_converter"]
