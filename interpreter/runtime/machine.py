"""The parts of the machine below the game: budgets, trace events, the run-time failure, and the
frames, each a piece of work in progress held as plain data, with the keep that puts them back.

A frame's `step` does the next part of its work on the game it is given; the game's step loop
(`Game._run`, runtime.py) steps the top frame until a decision is pending or the game is over.
Frames hold the statements left, a position and their local names, never a Python generator or
call stack, so a game paused at a decision can be cloned (`Frame.copy`) and resumed anywhere.
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Callable, Mapping, Sequence
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

import attrs

from ..errors import Diagnostic, GameError, RulebookError, Span
from ..language.values import CardRef, ordered, sort_key
from ..syntax import ast as s
from .asks import Decision

if TYPE_CHECKING:
    from .game import Game

MASK64 = (1 << 64) - 1
STEP_BUDGET = 200_000  # statements between two decisions before a rulebook is called runaway
DEPTH_BUDGET = 400  # nested frames (calls, loops, blocks) before recursion is called runaway
RULE_BUDGET = 1_000  # rule firings after one change
FN_DEPTH_BUDGET = 100  # nested calls of functions (`fn`) inside one expression
TEXT_BUDGET = 100_000  # characters of one text value
INT_BUDGET = s.MAX_NUMBER  # the magnitude of a number (as large as a literal may be written)
OPTION_BUDGET = 10_000  # options of one decision
CARD_BUDGET = 100_000  # cards in a game
# Lists and records nested in a value the state holds: views, the converter and JSON recurse
# into them (JSON cannot do otherwise), so the state holds none deeper than this.
VALUE_DEPTH = 100
LABEL_CACHE_SIZE = 100_000  # card labels kept per rulebook before the cache starts afresh
# Work inside expressions, counted by `Game.charge` between two decisions (the same span as
# STEP_BUDGET): one unit for each element a range, comprehension, query, concatenation or
# built-in produces or reads, each comparison of a sort (n log2 n, times the size of the largest
# key), each character of a text built, and WORK_PER_CALL for each call of a function (`fn`) and
# each binding a rule or invariant tries. A unit is about a tenth of a microsecond: the budget is
# a second or so of work, far above what the bundled rulebooks do between two decisions
# (examples/benchmarks/RELIABILITY-RUNS.md has the figures), and it also bounds what one decision can build in memory.
WORK_BUDGET = 5_000_000
WORK_PER_CALL = 20
# Elements of one value the state holds, counting a shared part each time it appears (what a
# view, a label or the JSON of the state walks).
VALUE_SIZE = 1_000_000
LABEL_BUDGET = 1_000_000  # characters of one label: a value written as text (traces, views, `say`)
# Characters of the labels of one view (`Game.view`): many values each within LABEL_BUDGET would
# otherwise make a view of hundreds of megabytes.
VIEW_BUDGET = 10_000_000
MEMO_BUDGET = 10_000  # values kept in a game's memo (functions' values, zones' labels) before it starts afresh


# What a game's memo holds for a part that keeps no value (Game.memo): read-only and shared, so
# that a new game or a clone starts its memo without making a dict per part, and forgetting a
# part is putting this back.
EMPTY_MEMO: Mapping[Any, Any] = MappingProxyType({})


def splitmix(state: int) -> tuple[int, int]:
    """Advance a splitmix64 generator; return (new state, 64 random bits)."""
    state = (state + 0x9E3779B97F4A7C15) & MASK64
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return state, z ^ (z >> 31)


@attrs.frozen
class SecretRun:
    """One run of an outermost `secret` block: the game's step count when it began (which tells
    one run from the next) and where the block is written."""

    step: int
    span: Span


DEPTH_MESSAGE = f"more than {DEPTH_BUDGET} nested steps: runaway recursion?"


class TooDeep(Exception):
    """The depth budget ran out inside a block running inline (compile/blocks.py): the block that runs
    the statement which went too deep makes it the located runaway error, naming that statement."""


class Returned:
    """What a `return` gives back: to the procedure call running it inline (compile/blocks.py), or, from
    a block that is a frame, to the call's frame (`Game.return_from_call`)."""

    __slots__ = ("span", "value")

    def __init__(self, value: Any, span: Span):
        self.value, self.span = value, span


# What a player sees of an event in another player's `secret` block (see Game.visible_to).
SECRET_TEXT = "[a secret choice]"


# Declared mutable (never changed once made): a frozen class sets each field through
# `object.__setattr__`, which made an event of eleven fields cost 2.5 times as much, and a trace
# makes one for each of a game's thousands of lines.
@attrs.define(eq=True)
class Event:
    """One line of the trace: what happened, to what, and the rule that did it.

    `zones` lists the zone keys a move read from and wrote to (the destination last), so that a
    player's view of the trace can show `hidden_text` instead of what that player may not see;
    `top_text` is what everyone sees when cards land on a pile whose top card alone is face up;
    `secret` is the run of a `secret` block the event happened in.

    A decision's event (`choose`, `reveal`) may carry two facts more. `public_zones`, when not
    None, says that every option of the choice was a value others may see (a label, a player, an
    enum value, a number, or a card in one of these zone keys): a viewer who sees the cards of
    those zones sees the choice. `forced` marks a decision with one legal option, taken at once:
    it is shown only to the viewers from whom the choice is hidden (as its hidden text), so that
    a hidden decision looks the same to them whether it had one option or many, while the full
    trace, and the player who decided, show no line for it.

    A reveal's event (`show`, see knowledge.py) names in `to` the seats it showed its cards to.
    A choice among cards its chooser may not identify (offered by their places, `PlacedOption`)
    has `own_text`, what the chooser reads (the place), while `text` names the card too and `to`
    names the other seats that identify the card (a player it was revealed to) and read it.
    """

    verb: str
    text: str
    span: Span
    actor: str = ""
    zones: tuple[str, ...] = ()
    hidden_text: str | None = None
    top_text: str | None = None
    secret: SecretRun | None = None
    public_zones: tuple[str, ...] | None = None
    forced: bool = False
    to: tuple[str, ...] = ()
    own_text: str | None = None


class RuntimeFailure(RulebookError):
    """A step of the rules that cannot be carried out, with its place.

    A `fail`, a `require` that does not hold, a choice with too few options, and every value that
    is not there or not of the kind a step needs (no card to move, an index outside a list, a
    field of `none`, division by zero, ...). Inside an `attempt` or an ability's tier it unwinds
    as `fail` does (`Game._unwind`): the changes are undone and the `else` runs, or the tier is
    withdrawn; `reason` is what the trace's undo line says. Outside both it is this located error.
    A budget (steps, nesting, sizes) is not a failure but a plain RulebookError: a rulebook that
    runs away is broken, so it stops the game wherever it happens.
    """

    def __init__(self, reason: str, diagnostic: Diagnostic, sources: dict[str, str]):
        # Made often (every failure undone inside a tier), so the text is rendered only when shown.
        Exception.__init__(self, reason)
        self.reason, self.span = reason, diagnostic.span
        self.diagnostics = [diagnostic]
        self.sources = sources

    def __str__(self) -> str:
        return self.render()

    def __reduce__(self) -> tuple[Any, ...]:  # crosses process boundaries (simulate's workers) intact
        return (RuntimeFailure, (self.reason, self.diagnostics[0], self.sources))


# What a failure outside any attempt or ability suggests.
FAIL_HINT = "wrap the steps in 'attempt { ... }', or check with 'when' first"


# ---------------------------------------------------------------------------- frames

_SLOTS: dict[type, tuple[str, ...]] = {}  # every slot of a frame class, its bases' included (see Frame.copy)


class Frame:
    """One piece of work in progress; `step` does the next part of it."""

    __slots__ = ("env",)
    env: dict[str, Any]
    # The slots that stepping or answering changes after the frame is made (what `Keep` saves), each
    # given a new value, never changed in place: a clone's frames share the values (`copy`).
    changing: tuple[str, ...] = ()

    def step(self, g: Game) -> None:
        raise NotImplementedError

    def answer(self, g: Game, value: Any) -> None:
        raise GameError("this frame asked nothing")

    def unwind(self, g: Game) -> None:
        """Called when a failure pops this frame without finishing it."""

    def copy(self, envs: dict[int, dict[str, Any]]) -> Frame:
        cls = type(self)
        new = object.__new__(cls)
        _copier(cls)(self, new)  # (every frame sets all its slots when made)
        new.env = copied_env(self.env, envs)
        return new


class BlockFrame(Frame):
    # `code`: the block's code (`CodeCache.block`, a `codecache.Body`), once looked up: the same for every
    # game of the rulebook, so neither kept by `Keep` nor told apart in a clone.
    __slots__ = ("code", "i", "stmts")
    changing = ("i",)

    def __init__(self, stmts: tuple[s.Stmt, ...], env: dict[str, Any], i: int = 0, code: Any = None):
        self.stmts, self.i, self.env, self.code = stmts, i, env, code

    def step(self, g: Game) -> None:
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

    def step(self, g: Game) -> None:
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

    def step(self, g: Game) -> None:
        if g.holds(self.node.condition, self.env):
            g.push(BlockFrame(self.node.body.stmts, self.env))
        else:
            g.frames.pop()


class RepeatFrame(Frame):
    __slots__ = ("body", "left")
    changing = ("left",)

    def __init__(self, left: int, body: s.Block, env: dict[str, Any]):
        self.left, self.body, self.env = left, body, env

    def step(self, g: Game) -> None:
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

    def step(self, g: Game) -> None:
        g.frames.pop()
        self.finish(g, None)

    def finish(self, g: Game, value: Any) -> None:
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

    def step(self, g: Game) -> None:
        g.frames.pop()
        g.attempts -= 1
        if g.attempts == 0:
            g.journal.clear()


class TogetherFrame(Frame):
    __slots__ = ()

    def __init__(self, env: dict[str, Any]):
        self.env = env

    def step(self, g: Game) -> None:
        g.frames.pop()
        g.together -= 1
        if g.together == 0 and g.dirty and not g.rule_frames:
            g.check_rules(set())

    def unwind(self, g: Game) -> None:
        g.together -= 1


class SecretFrame(Frame):
    __slots__ = ()

    def __init__(self, env: dict[str, Any]):
        self.env = env

    def step(self, g: Game) -> None:
        g.frames.pop()
        self.unwind(g)

    def unwind(self, g: Game) -> None:
        g.secret -= 1
        if g.secret == 0:
            g.secret_run = None


class RuleFrame(Frame):
    """Check the state-based rules until none applies (each firing runs the rule's body)."""

    __slots__ = ("firings", "pending")
    changing = ("firings", "pending")

    def __init__(self, pending: set[str]):
        self.pending, self.firings, self.env = set(pending), 0, {}

    def step(self, g: Game) -> None:
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

    def unwind(self, g: Game) -> None:
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

    def step(self, g: Game) -> None:
        g.ask(self)

    def answer(self, g: Game, value: Any) -> None:
        g.answered(self, value)


class BeforePlayFrame(Frame):
    """Edit the position between setup and play (`Game(before_play=…)`), as one step."""

    __slots__ = ("edit",)

    def __init__(self, edit: Callable[[Game], None]):
        self.edit, self.env = edit, {}

    def step(self, g: Game) -> None:
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


def _slots_of(cls: type) -> tuple[str, ...]:
    """Every slot of a frame class, its bases' included."""
    slots = _SLOTS.get(cls)
    if slots is None:
        slots = _SLOTS[cls] = tuple(slot for c in cls.__mro__ for slot in getattr(c, "__slots__", ()))
    return slots


_COPIERS: dict[type, Callable[[Any, Any], None]] = {}  # by frame class: what sets a copy's slots (Frame.copy)


def _copier(cls: type) -> Callable[[Any, Any], None]:
    """A function `(old, new)` that sets every slot of `new` to `old`'s, written out for the class: a clone
    copies every frame of the stack, and a loop over the slots asking `hasattr` and `getattr` of each was
    most of a clone. (The text is made of the class's own slot names, which are Python identifiers.)"""
    copier = _COPIERS.get(cls)
    if copier is None:
        body = "".join(f"    new.{slot} = old.{slot}\n" for slot in _slots_of(cls)) or "    pass\n"
        namespace: dict[str, Any] = {}
        exec(f"def copier(old, new):\n{body}", namespace)
        copier = _COPIERS[cls] = namespace["copier"]
    return copier


def copied_env(env: dict[str, Any], envs: dict[int, dict[str, Any]]) -> dict[str, Any]:
    """The copy of a frame's local names in a clone: made once for all the frames that share them."""
    copy = envs.get(id(env))
    if copy is None:
        copy = envs[id(env)] = dict(env)
    return copy


def node_count(node: Any) -> int:
    """The nodes of a statement's or an expression's own text, not those of the blocks it holds
    (they count when they run): what evaluating its expressions once costs at least, in units of
    the budget of work. Walked without recursion; computed once per node (the callers keep it)."""
    count, todo = 0, [node]
    while todo:
        n = todo.pop()
        if n.__class__ is tuple:
            todo.extend(n)
        elif attrs.has(n.__class__) and n.__class__ is not s.Block:
            count += 1
            todo.extend(getattr(n, f.name) for f in attrs.fields(n.__class__))
    return count


def call_cost(body: Any) -> int:
    """What one call of a function with this body charges the budget of work: the call, and the
    nodes of its body (`node_count`; callers keep it, as a long body takes long to count)."""
    return WORK_PER_CALL + node_count(body)


# What Python raises when a built-in gets values of the wrong kind (which `any` lets through the checker).
VALUE_ERRORS = (TypeError, AttributeError, IndexError, KeyError, ValueError, OverflowError)


@functools.cache
def attrs_fields(cls: type) -> frozenset[str]:
    """The declared fields of a card class (never a Python attribute such as `__class__`)."""
    return frozenset(f.name for f in attrs.fields(cls)) if attrs.has(cls) else frozenset()


def query_by_keys(op: str, items: tuple[Any, ...], keys: list[Any]) -> tuple[Any, ...]:
    """The result of `items map/sorted by/max by/min by/group by` given each item's key (`it`'s value)."""
    if op == "map":
        return tuple(keys)
    if op == "sorted":
        order = sorted(range(len(items)), key=lambda i: sort_key(keys[i]))
        return tuple(items[i] for i in order)
    if op in ("max", "min"):
        if not items:
            return ()
        best = ordered(max if op == "max" else min, keys)
        return tuple(v for v, k in zip(items, keys, strict=True) if k == best)
    groups: dict[Any, list[Any]] = {}
    for v, k in zip(items, keys, strict=True):
        groups.setdefault(k, []).append(v)
    return tuple(tuple(g) for g in groups.values())


_CARD_REFS: list[CardRef] = []  # CardRef(i) at index i: a card reference is a plain value, shared freely
_card_ref = _CARD_REFS.__getitem__


def card_refs(ids: Sequence[int]) -> tuple[CardRef, ...]:
    """The cards of a zone as values (the same as `tuple(CardRef(i) for i in ids)`, without making them anew)."""
    try:
        return tuple(map(_card_ref, ids))  # (a loop in C: a zone is read this way at every look at it)
    except IndexError:  # a card made since the last look: its reference first
        refs = _CARD_REFS
        refs.extend(CardRef(i) for i in range(len(refs), max(ids) + 1))
        return tuple(map(_card_ref, ids))
