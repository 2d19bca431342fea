"""The machine: the frames, each a piece of work in progress held as plain data, and the keep that
puts them back.

A frame's `step` does the next part of its work on the game it is given (a `Context`, context.py);
the game's step loop (`Game._run`, game.py) steps the top frame until a decision is pending or the
game is over. Frames hold the statements left, a position and their local names, never a Python
generator or call stack, so a game paused at a decision can be cloned (`Frame.copy`) and resumed
anywhere.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from typing import Any

from ..errors import Span
from ..syntax import ast as s
from .asks import Decision
from .basics import RULE_BUDGET, Event
from .context import Context, Frame, copied_env


class BlockFrame(Frame):
    # `code`: the block's code (`CodeCache.block`, a `codecache.Body`), once looked up: the same for every
    # game of the rulebook, so neither kept by `Keep` nor told apart in a clone.
    __slots__ = ("code", "i", "stmts")
    changing = ("i",)

    def __init__(self, stmts: tuple[s.Stmt, ...], env: dict[str, Any], i: int = 0, code: Any = None):
        self.stmts, self.i, self.env, self.code = stmts, i, env, code

    def step(self, g: Context) -> None:
        # Statements run one after another in this one step until one of them starts other work
        # (pushes or pops a frame), asks a decision or ends the game: the block's generated `step`
        # (compile/blocks.py). A statement that ends the step itself leaves the work it did not do
        # in frames above this one, or its frames are gone, or it returned a value.
        code = self.code
        if code is None:
            code = self.code = g.code.block(self.stmts)
        code.step(g, self)


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
        if g.holds(self.node.condition, self.env):
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

    def __init__(self, name: str, env: dict[str, Any], caller_env: dict[str, Any] | None, target: str | None):
        self.name, self.env, self.caller_env, self.target = name, env, caller_env, target

    def step(self, g: Context) -> None:
        g.frames.pop()
        self.finish(g, None)

    def finish(self, g: Context, value: Any) -> None:
        if self.target is not None and self.caller_env is not None:
            if g.keep is not None:
                g.keep.touch_env(self.caller_env)
            self.caller_env[self.target] = value

    def copy(self, envs: dict[int, dict[str, Any]]) -> Frame:
        new = super().copy(envs)
        assert isinstance(new, CallFrame)
        if self.caller_env is not None:
            new.caller_env = copied_env(self.caller_env, envs)
        return new


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

    A frame is touched when it is stepped or answered; an env when a frame using it is stepped, or
    when a procedure's return writes into its caller's env (`CallFrame`). New frames and envs,
    made after the keep, need nothing: the old stack is put back.

    The state is kept alike: `apply` keeps a copy that shares the lists of the zones' cards
    (`State.snapshot`), and `zones` names the zones whose list the game has since replaced by a
    copy of its own, as it does before it first changes one (`Store.zone_list`).
    """

    __slots__ = ("envs", "frames", "saved_envs", "saved_frames", "zones")

    def __init__(self, frames: Sequence[Frame]):
        self.zones: set[str] = set()
        self.frames: set[int] = set(map(id, frames))  # not saved yet
        self.envs: set[int] = {id(f.env) for f in frames}
        for f in frames:
            if isinstance(f, CallFrame):
                if f.caller_env is not None:
                    self.envs.add(id(f.caller_env))
            elif isinstance(f, AttemptFrame) and f.retry is not None:
                self.envs.add(id(f.retry[1]))
        self.saved_frames: list[tuple[Frame, Any]] = []
        self.saved_envs: list[tuple[dict[str, Any], dict[str, Any]]] = []

    def touch(self, frame: Frame) -> None:
        fid = id(frame)
        if fid in self.frames:
            self.frames.discard(fid)
            if frame.changing:
                get = _GETTERS.get(frame.__class__)
                if get is None:
                    get = _GETTERS[frame.__class__] = operator.attrgetter(*frame.changing)
                # (one slot: its value; more: a tuple of them). No frame changes a slot's value in
                # place, so the values themselves are kept, uncopied.
                self.saved_frames.append((frame, get(frame)))
        self.touch_env(frame.env)

    def touch_env(self, env: dict[str, Any]) -> None:
        if id(env) in self.envs:
            self.envs.discard(id(env))
            self.saved_envs.append((env, dict(env)))

    def put_back(self) -> None:
        for frame, values in self.saved_frames:
            slots = frame.changing
            if len(slots) == 1:
                object.__setattr__(frame, slots[0], values)
            else:
                for slot, value in zip(slots, values, strict=True):
                    object.__setattr__(frame, slot, value)
        for env, copy in self.saved_envs:
            env.clear()
            env.update(copy)


_GETTERS: dict[type, Callable[[Any], Any]] = {}  # by frame class: what reads its `changing` slots at once
