"""The machine: the frames, each a piece of work in progress held as plain data, the keep that puts
them back, and what runs them: the step loop (`run`), the one way failures unwind (`unwind`) and
the end of a game (`finish`).

A frame's `step` does the next part of its work on the game it is given (a `Context`, context.py);
`run` steps the top frame until a decision is pending or the game is over (`Game._run`). The
machine is a part without data of its own: the stack, the step count and the journal are the
game's (the `Context` names them), so its functions take the game (`Running`).

Frames hold the statements left, a position and their local names, never a Python generator or
call stack, so a game paused at a decision can be cloned (`Frame.copy`) and resumed anywhere.
"""

from __future__ import annotations

import inspect
import operator
from collections.abc import Callable, Sequence
from types import FrameType
from typing import Any, Protocol, cast

from ..errors import NO_SPAN, RulebookError, Span
from ..language.values import Player, ordered
from ..syntax import ast as s
from .asks import Decision
from .basics import RULE_BUDGET, STEP_BUDGET, WORK_BUDGET, Event, Returned, RuntimeFailure
from .context import FRAME_COPIES, Context, Frame, copied_env, copy_frames, frame_copier
from .state import State


class BlockFrame(Frame):
    # `code`: the block's code (`CodeCache.block`, a `codecache.Body`), once looked up: the same for every
    # game of the rulebook, so neither kept by `Keep` nor told apart in a clone.
    __slots__ = ("code", "i", "stmts")
    changing = ("i",)

    def __init__(self, stmts: tuple[s.Stmt, ...], env: dict[str, Any], i: int = 0, code: Any = None):
        self.stmts, self.i, self.env, self.code = stmts, i, env, code

    def step(self, g: Context) -> None:
        # Statements run one after another in this one step until one of them starts other work
        # (pushes or pops a frame), asks a decision or ends the game: the block's code (compile/blocks.py),
        # the same that runs it inline, from this frame's position. A statement that ends the step
        # itself leaves the work it did not do in frames above this one (the frame keeps where the
        # block goes on), or its frames are gone, or it returned a value; at the block's end, the
        # frame is done.
        code = self.code
        if code is None:  # (`CodeCache.block`, its common case written out: a block seen before)
            stmts = self.stmts
            entry = g.code.blocks.get(id(stmts))
            code = self.code = entry[1] if entry is not None and entry[0] is stmts else g.code.block(stmts)
        elif code.end is code and self.i == len(self.stmts):
            # At the block's end (`Body.end`): the step only ends the frame, without a call (a quarter of a
            # card game's steps). A frame `apply` put back before its end runs that code, which goes on.
            g.frames.pop()
            return
        r = code.run(g, self.env, self.i, self)
        if r is None:
            g.frames.pop()
        elif r.__class__ is Returned:  # a `return`: it unwinds to its call's frame (other work is above it)
            return_from_call(cast(Running, g), r.value, r.span)  # (the game, which runs the machine)


# The generated code of each shape of block, by its file name (codecache.py): the statement each of its
# lines belongs to (-1: none), which `BlockFrame.position` reads.
STATEMENT_LINES: dict[str, tuple[int, ...]] = {}


def positions_now() -> dict[int, int]:
    """Where the block frames whose step runs now are, by the frame's id: how many of the block's statements
    have started (the statement running and those before it). A frame's step keeps its `i` only where the
    step ends; while it runs, its code knows where it is (the line it runs, which the generated code's
    table names: `STATEMENT_LINES`), so a located error raised inside it (the depth budget, a text too
    long, ...: `Context.current_span`) names the statement running. Only error paths ask."""
    found: dict[int, int] = {}
    python: FrameType | None = inspect.currentframe()
    while python is not None:
        owners = STATEMENT_LINES.get(python.f_code.co_filename)
        if owners is not None:
            frame = python.f_locals.get("frame")
            k = owners[python.f_lineno - 1] if 0 < python.f_lineno <= len(owners) else -1
            if frame is not None and k >= 0:
                found.setdefault(id(frame), k + 1)
        python = python.f_back
    return found


class ForFrame(Frame):
    __slots__ = ("body", "i", "items", "var")
    changing = ("i",)

    def __init__(self, var: str, items: tuple[Any, ...], body: s.Block, env: dict[str, Any], i: int = 0):
        self.var, self.items, self.body, self.i, self.env = var, items, body, i, env

    def step(self, g: Context) -> None:
        if self.i >= len(self.items):
            g.frames.pop()
            return
        self.env[self.var] = self.items[self.i]
        self.i += 1
        g.push(BlockFrame(self.body.stmts, self.env))


class WhileFrame(Frame):
    __slots__ = ("node",)

    def __init__(self, node: s.While, env: dict[str, Any]):
        self.node, self.env = node, env

    def step(self, g: Context) -> None:
        condition = self.node.condition
        entry = g.code.truths.get(id(condition))  # (`holds`, its common case written out: a condition seen before)
        if entry[1](g, self.env) if entry is not None and entry[0] is condition else g.holds(condition, self.env):
            g.push(BlockFrame(self.node.body.stmts, self.env))
        else:
            g.frames.pop()


class RepeatFrame(Frame):
    __slots__ = ("body", "left")
    changing = ("left",)

    def __init__(self, left: int, body: s.Block, env: dict[str, Any]):
        self.left, self.body, self.env = left, body, env

    def step(self, g: Context) -> None:
        if self.left <= 0:
            g.frames.pop()
            return
        self.left -= 1
        g.push(BlockFrame(self.body.stmts, self.env))


class CallFrame(Frame):
    """The boundary of a procedure call; `return` unwinds to it."""

    __slots__ = ("caller_env", "name", "target")
    env_slots = ("caller_env",)  # (copied by a clone as the frame's env is: `Frame.copy`)

    def __init__(self, name: str, env: dict[str, Any], caller_env: dict[str, Any] | None, target: str | None):
        self.name, self.env, self.caller_env, self.target = name, env, caller_env, target

    def step(self, g: Context) -> None:
        g.frames.pop()
        self.finish(g, None)

    def finish(self, g: Context, value: Any) -> None:
        if self.target is not None and self.caller_env is not None:
            keep = g.keep  # (a kept call's frame saves the caller's env when first touched: see Keep)
            if keep is not None and keep.kept(len(g.frames), self):
                keep.touch_env(self.caller_env)
            self.caller_env[self.target] = value


class AttemptFrame(Frame):
    """All or nothing: on a failure below it, the journal is undone back to `mark`."""

    __slots__ = ("mark", "otherwise", "retry", "span", "what")

    def __init__(
        self,
        mark: int,
        otherwise: s.Block | None,
        env: dict[str, Any],
        span: Span,
        what: str,
        retry: tuple[s.Use, dict[str, Any], tuple[int, ...]] | None = None,
    ):
        self.mark, self.otherwise, self.env, self.span, self.what = mark, otherwise, env, span, what
        # For an ability's tier: the `use` to ask again, without the tiers that failed (§ all or nothing).
        self.retry = retry

    def copy(self, envs: dict[int, dict[str, Any]]) -> Frame:
        new = super().copy(envs)
        assert isinstance(new, AttemptFrame)
        if self.retry is not None:
            node, env, failed = self.retry
            new.retry = (node, copied_env(env, envs), failed)
        return new

    def step(self, g: Context) -> None:
        g.frames.pop()
        g.attempts -= 1
        if g.attempts == 0:
            g.journal.clear()


class TogetherFrame(Frame):
    __slots__ = ()

    def __init__(self, env: dict[str, Any]):
        self.env = env

    def step(self, g: Context) -> None:
        g.frames.pop()
        g.together -= 1
        if g.together == 0 and g.dirty and not g.rule_frames:
            g.check_rules(set())

    def unwind(self, g: Context) -> None:
        g.together -= 1


class SecretFrame(Frame):
    __slots__ = ()

    def __init__(self, env: dict[str, Any]):
        self.env = env

    def step(self, g: Context) -> None:
        g.frames.pop()
        self.unwind(g)

    def unwind(self, g: Context) -> None:
        g.secret -= 1
        if g.secret == 0:
            g.secret_run = None


class RuleFrame(Frame):
    """Check the state-based rules until none applies (each firing runs the rule's body)."""

    __slots__ = ("firings", "pending")
    changing = ("firings", "pending")

    def __init__(self, pending: set[str]):
        self.pending, self.firings, self.env = set(pending), 0, {}

    def step(self, g: Context) -> None:
        # A new set, never this one changed in place: a clone's frame and `Keep` hold the old one.
        self.pending = self.pending | g.dirty
        g.dirty = set()
        for rule in g.program.rules:
            reads = g.program.rule_reads[rule.name]
            if "*" not in reads and not (reads & self.pending):
                continue
            env = g.rule_match(rule)
            if env is not None:
                self.firings += 1
                if self.firings > RULE_BUDGET:
                    raise g.runaway(
                        rule.span,
                        f"rule {rule.name} fired {RULE_BUDGET} times after one change: "
                        "its body must make its condition false",
                    )
                if g.sinks.events:
                    g.emit(Event("rule", rule.name, rule.span, secret=g.secret_run))
                g.push(BlockFrame(rule.body.stmts, env))
                return
        g.frames.pop()
        g.rule_frames -= 1

    def unwind(self, g: Context) -> None:
        g.rule_frames -= 1


class AskFrame(Frame):
    """A decision in progress. `kind` says what to do with the answer."""

    __slots__ = ("chance_pool", "count", "decision", "kind", "node", "picked", "pool")
    changing = ("chance_pool", "count", "decision", "picked", "pool")

    def __init__(self, kind: str, node: Any, env: dict[str, Any]):
        self.kind, self.node, self.env = kind, node, env
        self.decision: Decision | None = None
        self.pool: tuple[Any, ...] = ()
        self.picked: tuple[Any, ...] = ()
        self.count = 0
        self.chance_pool: tuple[Any, ...] | None = None

    def step(self, g: Context) -> None:
        g.decisions.ask(g, self)

    def answer(self, g: Context, value: Any) -> None:
        g.decisions.answered(g, self, value)


class BeforePlayFrame(Frame):
    """Edit the position between setup and play (`Game(before_play=…)`), as one step."""

    __slots__ = ("edit",)

    def __init__(self, edit: Callable[[Any], None]):
        self.edit, self.env = edit, {}

    def step(self, g: Context) -> None:
        g.frames.pop()
        g.together += 1
        try:
            self.edit(g)
        finally:
            g.together -= 1
        if g.together == 0 and g.dirty and not g.rule_frames:
            g.check_rules(set())


class Keep:
    """What `apply` needs to put a game back as it was, gathered lazily: the frames and local names
    (envs) of the stack are saved only when a step first touches them, since most of a deep stack
    is never touched before the next decision (copying it all would cost a quarter of a step).

    Made in O(1), whatever the depth of the stack: `frames` is the stack as it was (what `apply`
    puts back), and the frames in it that are not saved yet are those below `low`. A frame of the
    stack stays at its place until it is popped, and a popped frame never comes back (work is
    pushed on top, or inserted above the frame that steps), so the top frame at place `i` is one
    of the kept stack not saved yet exactly when `i < low` and `frames[i]` is it (`reach`); after
    that every kept frame from `i` up is saved or gone, and `low` drops to `i`. New frames need
    nothing: the old stack is put back.

    A frame is touched when it is stepped (the top of the stack) or answered. An env is saved when
    a kept frame that holds it is first touched (its `env`, a call's `caller_env`, a tier's env to
    ask again): a new frame that uses an older env got it from the frame that made it, touched as
    it stepped, or from `machine.unwind` (an attempt's `else`, a tier asked again) or a call's
    return (`CallFrame.finish`), which save it themselves (`touch_env`). Saving an env made after
    the keep costs a copy and nothing else: no kept frame holds it.

    The state is put back from the journal: `apply` is an attempt around the whole answer (it
    counts in `attempts`, so every change is journalled from `mark` on), undone to `mark` on a
    failure; what the journal does not hold is kept here: the generator (`rng`), the end of the
    game (`ends`) and the knowledge of the seats (`known`, `told`, copied when there is some: the
    journal puts back its facts, not always the order of its seats). An attempt open before the
    answer that fails during it undoes past `mark`, which the answer must put back too: the state
    as it was is then copied once (`store.undo`: `state`, `journal`).
    """

    __slots__ = ("ends", "envs", "frames", "journal", "known", "low", "mark", "rng", "saved_frames", "state", "told")

    def __init__(self, frames: Sequence[Frame], state: State, journal: list[tuple[Any, ...]]):
        self.frames = list(frames)  # the stack as it was
        self.low = len(frames)  # the kept frames below it are not saved yet
        self.saved_frames: list[tuple[Frame, Any]] = []
        self.envs: dict[int, tuple[dict[str, Any], dict[str, Any]]] = {}  # saved: by id, the env and its copy
        self.mark = len(journal)
        self.rng = state.rng
        self.ends = (state.over, state.winners, state.unfinished, state.together)
        self.known = {k: list(v) for k, v in state.known.items()} if state.known else None
        self.told = {k: list(v) for k, v in state.told.items()} if state.told else None
        self.state: State | None = None  # the state as it was, once an older attempt undid past `mark`
        self.journal: list[tuple[Any, ...]] | None = None  # and the journal as it was

    def reach(self, frames: list[Frame]) -> None:
        """The top frame is about to be stepped or answered, and `len(frames) <= low`: save it if
        it is a kept frame (not saved yet, then), with the envs it holds."""
        i = len(frames) - 1
        frame = frames[i]
        self.low = i
        if self.frames[i] is not frame:
            return  # a new frame: every kept frame from here up is gone
        if frame.changing:
            get = _GETTERS.get(frame.__class__)
            if get is None:
                get = _GETTERS[frame.__class__] = operator.attrgetter(*frame.changing)
            # (one slot: its value; more: a tuple of them). No frame changes a slot's value in
            # place, so the values themselves are kept, uncopied.
            self.saved_frames.append((frame, get(frame)))
        env = frame.env
        envs = self.envs
        if id(env) not in envs:  # (`touch_env`, written out: a few times every answer)
            envs[id(env)] = (env, dict(env))
        if frame.__class__ in _HOLDING_ENVS:
            self._touch_held(frame)

    def touch_copy(self, frame: Frame) -> None:
        """Save the envs of `frame`, a copy of a shared frame just made to be touched (`Sharing`): new to
        the stack, but its envs may be copies the game made before this answer, which it changes."""
        self.touch_env(frame.env)
        if frame.__class__ in _HOLDING_ENVS:
            self._touch_held(frame)

    def _touch_held(self, frame: Frame) -> None:
        """Save the envs a frame holds besides its own: a call's caller's, an attempt's retry's."""
        if isinstance(frame, CallFrame):
            if frame.caller_env is not None:
                self.touch_env(frame.caller_env)
        elif isinstance(frame, AttemptFrame) and frame.retry is not None:
            self.touch_env(frame.retry[1])

    def kept(self, i: int, frame: Frame) -> bool:
        """Whether `frame`, just popped from place `i` untouched, is a kept frame not saved yet."""
        return i < self.low and self.frames[i] is frame

    def touch_env(self, env: dict[str, Any]) -> None:
        """Save `env` as it is now, unless it is saved already."""
        key = id(env)
        if key not in self.envs:
            self.envs[key] = (env, dict(env))

    def put_back_state(self, state: State) -> None:
        """What the journal does not hold, put back into `state` (the journal undone, or the copy)."""
        state.rng = self.rng
        state.over, state.winners, state.unfinished, state.together = self.ends
        state.known = self.known if self.known is not None else {}
        state.told = self.told if self.told is not None else {}

    def put_back(self) -> None:
        """The frames' slots and the envs as they were."""
        for frame, values in self.saved_frames:
            slots = frame.changing
            if len(slots) == 1:
                object.__setattr__(frame, slots[0], values)
            else:
                for slot, value in zip(slots, values, strict=True):
                    object.__setattr__(frame, slot, value)
        for env, copy in self.envs.values():
            env.clear()
            env.update(copy)


class Sharing:
    """The frames a clone and its game share, each copied by the game that first touches it.

    A clone at a decision shares its game's stack (`Game.clone`): both games then hold the same frames
    and envs, and neither changes a shared one; a game copies a shared frame when it is about to step or
    answer it (`own_top`), or when it takes a popped shared frame's envs to use (`own_popped`: a call's
    return writes its caller's env, a failed attempt goes on with its env). A search clones a game at
    every answer it tries, and each trial touches a few of the some fifteen frames of a card game's stack
    before its next decision (4.8 of 15.4 in a bundled card game): the rest are never copied.

    As `Keep` (whose reasoning this follows), made in O(1): `frames` is the stack as it was shared, and
    the shared frames still on the stack are those below `low` that are still there (`frames[i] is
    g.frames[i]`): a frame stays at its place until it is popped, a popped frame never comes back, and new
    work is pushed on top or inserted above the frame that steps. `envs` maps each shared env the game
    has copied (by its id: the shared frames keep it alive) to the game's copy, so that the frames that
    share an env share its copy, as a clone's copies do (`copy_frames`)."""

    __slots__ = ("envs", "frames", "low")

    def __init__(self, frames: tuple[Frame, ...]):
        self.frames = frames
        self.low = len(frames)
        self.envs: dict[int, dict[str, Any]] = {}

    def own_top(self, g: Context) -> None:
        """The top frame is about to be stepped or answered, and `len(g.frames) <= low`: put the game's
        own copy in its place if it is shared, unless its step only pops it (half the shared frames a search's
        trial steps, a block at its end the commonest)."""
        frames = g.frames
        i = len(frames) - 1
        self.low = i
        frame = frames[i]
        if self.frames[i] is not frame:
            return
        # Not a frame whose step only pops it, changing neither the frame nor an env it holds (what else it
        # changes is the game's): a block at its end (`BlockFrame.step`), a call's end whose value goes
        # nowhere, an attempt's, a `together`'s or a `secret`'s end. (An AskFrame is answered: copied.)
        cls = frame.__class__
        if cls is BlockFrame:
            code = frame.code  # type: ignore[attr-defined]
            if code is not None and code.end is code and frame.i == len(frame.stmts):  # type: ignore[attr-defined]
                return
        elif cls is CallFrame:
            if frame.target is None or frame.caller_env is None:  # type: ignore[attr-defined]
                return
        elif cls in _ENDS_ONLY:
            return
        frame = frames[i] = (FRAME_COPIES.get(cls) or frame_copier(cls))(frame, self.envs)
        keep = g.keep
        if keep is not None:
            keep.touch_copy(frame)

    def mark(self) -> tuple[int, int]:
        """What `put_back` needs (`Game.apply`, all or nothing): the mark, and how many envs were copied."""
        return self.low, len(self.envs)

    def put_back(self, mark: tuple[int, int]) -> None:
        """The sharing as at `mark`, the stack as it was put back: the shared frames it holds again are as
        they were (no game changes one), and the envs copied since go."""
        self.low, copied = mark
        for key in list(self.envs)[copied:]:
            del self.envs[key]

    def own_popped(self, g: Context, i: int, frame: Frame) -> Frame:
        """`frame`, just popped from place `i` untouched, or the game's copy of it if it is shared, to
        take its envs from."""
        if i < self.low and self.frames[i] is frame:
            frame = (FRAME_COPIES.get(frame.__class__) or frame_copier(frame.__class__))(frame, self.envs)
            keep = g.keep
            if keep is not None:
                keep.touch_copy(frame)
        return frame


def clone_stack(g: Running) -> tuple[list[Frame], Sharing | None]:
    """A clone's stack, and what it shares of it with `g`. At a decision, with no sink holding the game's
    frames (rule coverage reads the frames it heard pushed as they go on), and no copy of the game's own
    standing in for an env shared frames hold: the game's very frames, which both games then share (`g`'s
    sharing made anew too). Else (made during an `apply`, by a sink) a copy of each frame, the envs that
    copies stand in for copied as the copies."""
    sharing = g.sharing
    if g.pending is not None and g.keep is None and not g.sinks.pushes and not (sharing and sharing.envs):
        shared = tuple(g.frames)
        g.sharing = Sharing(shared)
        return list(shared), Sharing(shared)
    return copy_frames(g.frames, sharing.envs if sharing is not None else None), None


_ENDS_ONLY = frozenset((AttemptFrame, TogetherFrame, SecretFrame))  # frames whose every step pops them, changing none
_HOLDING_ENVS = frozenset((CallFrame, AttemptFrame))  # the frames that hold an env besides their own
_GETTERS: dict[type, Callable[[Any], Any]] = {}  # by frame class: what reads its `changing` slots at once


# ---------------------------------------------------------------------------- the machine


class Running(Context, Protocol):
    """A game as the machine runs it (`Game` has it all): its `Context`, with the step count, what
    `apply` keeps, the undo of the journal and the trace's lines."""

    steps: int
    sharing: Sharing | None  # the frames it shares with a clone or the game it was cloned from

    @property
    def keep(self) -> Keep | None: ...

    def current_span(self) -> Span: ...

    def undo(self, mark: int) -> None: ...

    def note_event(self, verb: str, text: str, span: Span) -> None: ...

    def located(self, span: Span, message: str) -> RulebookError: ...


def run(g: Running, work: int = WORK_BUDGET) -> None:
    """Step the top frame until a decision is pending or the game is over: the step budget counted
    (afresh, as the budget of work), each frame `apply` keeps saved as it is first touched (`Keep.reach`), and a
    failure unwound (`unwind`); an empty stack ends the game (`finish`). (`work`: what is left of the budget of
    work, less than all of it for a game whose first step goes on from its setup's prefix: prefix.py.)"""
    budget = g.steps + STEP_BUDGET
    g.work_left = work
    frames = g.frames
    keep = g.keep
    sharing = g.sharing  # (only a clone made at a decision shares frames: none is made while this runs)
    state = g.state  # (no step replaces the state: only `Game`'s setup and an undone `apply` do, outside this loop)
    try:
        if keep is None and sharing is None:
            # A game played on its own: the loop below without its looks at the frames kept and shared (those
            # two tests, even behind one flag, cost a random game 0.2 % of its instructions).
            while g.pending is None and not state.over:
                if not frames:
                    finish(g, None, NO_SPAN)
                    break
                try:
                    frames[-1].step(g)
                except RuntimeFailure as failure:
                    unwind(g, failure)
                g.steps += 1
                if g.steps > budget:
                    raise _endless(g)
            return
        low = sharing.low if sharing is not None else -1  # (only `own_top` lowers it)
        while g.pending is None and not state.over:
            if not frames:
                finish(g, None, NO_SPAN)
                break
            if len(frames) <= low:
                sharing.own_top(g)  # type: ignore[union-attr]  # (low is -1 without sharing)
                low = sharing.low  # type: ignore[union-attr]
            if keep is not None and len(frames) <= keep.low:
                keep.reach(frames)
            try:
                frames[-1].step(g)
            except RuntimeFailure as failure:
                unwind(g, failure)
            g.steps += 1
            if g.steps > budget:
                raise _endless(g)
    except RecursionError:
        raise g.runaway(g.current_span(), "the rules nest too deeply: runaway recursion?") from None


def _endless(g: Running) -> RulebookError:
    """The error of a run that took more steps than a decision may."""
    message = f"{STEP_BUDGET} steps without a decision: the rules never stop (an endless loop?)"
    return g.runaway(g.current_span(), message)


def unwind(g: Running, failure: RuntimeFailure) -> None:
    """Undo back to the innermost attempt (or tier) and go on with its `else` (or ask again
    without the tier); outside both, raise the failure, a located error.

    Every failure goes this one way, whatever raised it: a `fail`, a `require`, or a step that
    cannot be carried out (see RuntimeFailure).
    """
    message, span = failure.reason, failure.span
    while g.frames:
        frame = g.frames[-1]
        if isinstance(frame, AttemptFrame):
            g.frames.pop()
            if g.sharing is not None:  # (its envs go on in the work that follows: the game's own)
                frame = g.sharing.own_popped(g, len(g.frames), frame)
                assert isinstance(frame, AttemptFrame)
            g.undo(frame.mark)
            g.attempts -= 1
            if g.attempts == 0:
                g.journal.clear()
            if g.sinks.events:
                g.note_event("undo", f"{frame.what} fails: {message}; nothing it did stands", span)
            keep = g.keep  # (the work that follows uses the attempt's envs, which `apply` may keep: see Keep)
            if frame.retry is not None:
                # A tier that cannot be completed cannot be chosen: ask again without it.
                node, env, failed = frame.retry
                if keep is not None:
                    keep.touch_env(env)
                again = AskFrame("use", node, env)
                again.picked = failed
                g.push(again)
            elif frame.otherwise is not None:
                if keep is not None:
                    keep.touch_env(frame.env)
                g.push(BlockFrame(frame.otherwise.stmts, frame.env))
            return
        g.frames.pop()
        frame.unwind(g)
    raise failure


def open_attempt(
    g: Context,
    otherwise: s.Block | None,
    env: dict[str, Any],
    span: Span,
    what: str,
    retry: tuple[s.Use, dict[str, Any], tuple[int, ...]] | None = None,
) -> None:
    """Open an attempt (or an ability's tier, with the `use` to ask again: `retry`): its frame
    marks the journal, so that a failure below it undoes what was done since."""
    g.attempts += 1
    g.push(AttemptFrame(len(g.journal), otherwise, env, span, what, retry))


def return_from_call(g: Running, result: Any, span: Span) -> None:
    """`return`: unwind the frames to the innermost call's frame, which takes the value."""
    frames = g.frames
    while frames:
        frame = frames.pop()
        if isinstance(frame, CallFrame):
            if g.sharing is not None:  # (the value goes into its caller's env: the game's own)
                frame = g.sharing.own_popped(g, len(frames), frame)
                assert isinstance(frame, CallFrame)
            frame.finish(g, result)
            return
        frame.unwind(g)
        if isinstance(frame, AttemptFrame):
            g.attempts -= 1
            if g.attempts == 0:
                g.journal.clear()
    raise g.located(span, "'return' outside a procedure")


def finish(g: Context, winners: Sequence[Player] | None, span: Span) -> None:
    """End the game: these `winners`, else the players of the best `score` (`default_winners`)."""
    if winners is None:
        winners = default_winners(g)
    g.state.over = True
    g.state.winners = [winners[0].index] if len(winners) == 1 else sorted([p.index for p in winners])
    g.frames.clear()
    g.pending = None
    if g.sinks.events:
        g.emit(Event("end", "winners " + " ".join(str(Player(i)) for i in g.state.winners), span))


def default_winners(g: Context) -> list[Player]:
    """The players of the best `score` (ties broken by `tiebreak`), or none without a `score`."""
    if "score" not in g.program.fns:
        return []
    keyed = []
    for p in g.players:
        key = [g.call_fn("score", (p,), NO_SPAN)]
        if "tiebreak" in g.program.fns:
            key.append(g.call_fn("tiebreak", (p,), NO_SPAN))
        keyed.append((tuple(key), p))
    best = ordered(max, (k for k, _ in keyed))
    return [p for k, p in keyed if k == best]
