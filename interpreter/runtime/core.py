"""The data of a game and the errors raised while it runs: `GameCore`, the only base of `Game`.

`Game` (game.py: the public API) is `GameCore` (here) and methods; no chain of layers. The values (an
expression's, a name's, a label: evaluate.py) and the changes (a move, a `set`, a creation, undo:
store.py) are functions over the game, which `Game` also has as methods (the functions themselves,
its class attributes: `g.move(...)` is one attribute read, as a method's); so are the statements a
block's code does not spell out (statements.py) and the machine's step loop, unwinding, attempts and
returns (machine.py). Besides, `Game` owns parts, objects with one job each that `Game.__init__`
makes, whose methods it gives the game (a part holds no reference to it: no cycle): `Decisions`
(decisions.py), `Information` (views.py) and the sinks (`Sinks`, observe.py). `GameCore` is never
instantiated alone: every object is a whole `Game`. The frames (machine.py), the generated code
(codecache.py), the functions and the parts take the game as a protocol (`Context`, context.py, or
an extension of it: evaluate.py's `Valued`, store.py's `Stored`, a part's), never as a class of
runtime/'s.

The frames and the generated code reach the game through public members only (tests/test_interfaces.py):
the members `Context` lists (context.py), besides the public API of `Game`, are that interface.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from typing import Any

import attrs

from ..check.program import Program
from ..errors import NO_SPAN, Diagnostic, GameError, RulebookError, Span
from ..inputs import clip
from ..language.values import (
    Player,
    Record,
    same,
    value_key,
)
from .asks import Decision
from .basics import (
    DEPTH_BUDGET,
    DEPTH_MESSAGE,
    FAIL_HINT,
    MASK64,
    VALUE_DEPTH,
    VALUE_SIZE,
    WORK_BUDGET,
    Event,
    RuntimeFailure,
    SecretRun,
    TooDeep,
    shared_dict,
)
from .codecache import CodeCache
from .context import Frame
from .machine import BlockFrame, Keep, positions_now
from .observe import NO_SINKS, Observer, Sinks, Trace
from .state import State


@attrs.frozen
class Switches:
    """How a game was asked to run, fixed when it starts: invariants checked at every decision;
    every decision asked, a decision of one possible answer too (`ask_forced`: the game's positions
    are then every decision's, as OpenSpiel counts them; its records hold those answers too)."""

    check_invariants: bool = False
    ask_forced: bool = False


class GameCore:
    """The state of a game in progress and what every layer above needs of it: its frames, its budgets' errors."""

    # Declared here, set by `Game.__init__` (and copied by `clone`): what every layer reads.
    rulebook: Any
    program: Program
    state: State
    seed: int | None
    sinks: Sinks  # who hears the game, by hook (observe.py)
    answers: list[tuple[str, str]]
    frames: list[Frame]
    journal: list[tuple[Any, ...]]
    attempts: int
    together: int
    secret: int
    secret_run: SecretRun | None
    rule_frames: int
    dirty: set[str]
    pending: Decision | None
    steps: int
    work_left: int  # units of work inside expressions left before the next decision (`charge`)
    switches: Switches  # how this game was asked to run (`Game(check_invariants=..., ask_forced=...)`)
    code: CodeCache
    keep: Keep | None
    fn_depth: int
    inline_depth: int  # the frames that the blocks running inline (codecache.py) stand for, in this step
    memo: list[Mapping[tuple[Any, ...], Any]]  # by the rulebook's MemoLayout (compile/memo.py); EMPTY_MEMO: none
    consts: dict[str, Any]
    players: tuple[Player, ...]  # the seats, in order

    # A game keeps at most 28 attributes of its own: CPython 3.11 keeps an instance's attributes in a key
    # table shared by the instances of its class, which each new instance leaves less room to grow; past it
    # an object has every attribute read the slow way. A game's 29th (`sharing`, 2026-12-06) made the reads
    # of every game some 25 % slower (5 % of a greedy game's instructions), and the cache of card labels,
    # the rulebook's like its code, went to the code then (`CodeCache.card_labels`). tests/test_observe.py
    # counts them; what can be derived is a property.

    @property
    def check_invariants(self) -> bool:
        """Whether the declared invariants are checked at every decision (`Game(check_invariants=True)`)."""
        return self.switches.check_invariants

    @property
    def classes(self) -> dict[str, type]:
        """The card classes of the rulebook, by name."""
        return self.rulebook.card_classes

    @property
    def key_info(self) -> dict[str, tuple[Any, str | None]]:
        """What a zone or variable key is (its declaration, the seat that owns it), shared by the rulebook's games."""
        return shared_dict(self.rulebook, "key_info")

    @property
    def trace(self) -> Trace | None:
        """The game's own trace (`Game(trace=True)`), or None."""
        return self.sinks.trace

    @property
    def events(self) -> list[Event]:
        """The trace so far (see observe.py): empty when the game does not trace."""
        trace = self.sinks.trace
        return trace.events if trace is not None else []

    def observe(self, sink: Observer) -> None:
        """Let `sink` hear this game from now on (see observe.py)."""
        if self.sinks is NO_SINKS:  # (shared by the games nobody hears: this one's own from now on)
            self.sinks = Sinks()
        self.sinks.add(sink)

    def emit(self, event: Event) -> None:
        """Tell the sinks that listen for events (the trace among them) of one (only made when `sinks.events`)."""
        log = self.sinks.log
        if log is not None:  # the trace alone: its `on_event`, without the calls
            log.append(event)
            return
        for sink in self.sinks.events:
            sink.on_event(self, event)

    def push(self, frame: Frame) -> None:
        self.frames.append(frame)
        if len(self.frames) + self.inline_depth > DEPTH_BUDGET:
            if self.inline_depth:
                raise TooDeep  # the statement that pushed runs inline: its block names it (codecache.Body.run)
            raise self.runaway(self.current_span(), DEPTH_MESSAGE)
        if self.sinks.pushes:
            for sink in self.sinks.pushes:
                sink.on_push(self, frame)

    def current_span(self) -> Span:
        now = positions_now()  # (a frame's step keeps its `i` only where the step ends)
        for frame in reversed(self.frames):
            if isinstance(frame, BlockFrame):
                i = now.get(id(frame), frame.i)
                if i > 0:
                    return span_of(frame.stmts[i - 1])
        return NO_SPAN

    def shallow(self, value: Any, span: Span) -> None:
        """Refuse a value nested deeper than VALUE_DEPTH, or of more than VALUE_SIZE elements (a
        shared part counted each time it appears), before the state holds it (looked at level by
        level, without recursion, and never past VALUE_SIZE elements). The elements looked at are
        charged as work (`charge`), level by level: a loop setting a variable to a large value
        again and again runs out the budget of work, not the step budget minutes later."""
        level, depth, size, charged = [value], 1, 0, 0
        while level:
            if depth > VALUE_DEPTH:
                raise self.runaway(span, DEEP_MESSAGE)
            inner: list[Any] = []
            for v in level:
                items = [x for _, x in v.items()] if v.__class__ is Record else v
                size += 1 + len(items)
                if size > VALUE_SIZE:
                    raise self.runaway(
                        span,
                        f"a value of more than {VALUE_SIZE} elements (counting a list each time it appears) "
                        "is more than a game may hold: a runaway computation?",
                    )
                kinds = set(map(type, items))
                if tuple in kinds or Record in kinds:
                    inner.extend(x for x in items if x.__class__ is tuple or x.__class__ is Record)
            self.charge(size - charged, span)
            level, depth, charged = inner, depth + 1, size

    def nested(self, value: Any, at: Any, depth: int = 1) -> Any:
        """`value` (a list or a record), refused if nested deeper than VALUE_DEPTH (the state's limit,
        `shallow`) where a local name, a procedure's parameter, a `return` or a decision's options
        take it: views, labels, records and agents go into values, so a value deeper than the state
        may hold would otherwise reach them from a local (`v = [v]` in a loop). `depth` is the depth
        `value` itself is at (0: a list whose elements are the values, as a decision's options). Each
        list or record is looked at once a level, however often it appears, its elements charged as work."""
        if depth <= 1 and value.__class__ is tuple:  # the common case: a flat list, at once (as the walk below)
            kinds = set(map(type, value))
            if tuple not in kinds and Record not in kinds:
                self.work_left -= 1 + len(value)
                if self.work_left < 0:
                    self.charge(0, at)
                return value
        level = [value]
        while True:
            if depth > VALUE_DEPTH:
                raise self.runaway(at if isinstance(at, Span) else span_of(at), DEEP_MESSAGE)
            inner: dict[int, Any] = {}
            work = 0
            for v in level:
                items = v if v.__class__ is tuple else [x for _, x in v.items()]
                work += 1 + len(items)
                kinds = set(map(type, items))
                if tuple in kinds or Record in kinds:
                    for x in items:
                        if x.__class__ is tuple or x.__class__ is Record:
                            inner[id(x)] = x
            self.work_left -= work  # (as `charge` counts it: a local is made often)
            if self.work_left < 0:
                self.charge(0, at)
            if not inner:
                return value
            level, depth = list(inner.values()), depth + 1

    def located(self, span: Span, message: str) -> RulebookError:
        """A located error that stops the game wherever it happens (never undone by an attempt)."""
        return RulebookError([Diagnostic(span, message)], self.program.sources)

    def runaway(self, span: Span, message: str) -> RulebookError:
        """A budget ran out: the rulebook runs away, which no attempt can make right."""
        return self.located(span, message)

    def charge(self, work: int, at: Any) -> None:
        """Count `work` units (machine.py, WORK_BUDGET) against the budget of work inside expressions,
        before doing it; past the budget, the located error of a runaway at `at` (a node or a span).
        Every range, comprehension, query, concatenation, built-in over a list, sort, text, call of
        a function and binding of a rule charges here; the budget starts afresh with each run of
        the step loop (`Game._run`), as the step budget does."""
        self.work_left -= work
        if self.work_left < 0:
            span = at if isinstance(at, Span) else span_of(at)
            raise self.runaway(
                span if span is not NO_SPAN else self.current_span(),
                f"more than {WORK_BUDGET} units of work without a decision (elements built or read, "
                "comparisons, characters, calls, bindings): a runaway computation?",
            )

    def runtime_error(self, span: Span, message: str, hint: str | None = None) -> RuntimeFailure:
        """A step that cannot be carried out: undone inside an attempt or a tier, else this located error."""
        return RuntimeFailure(message, Diagnostic(span, message, hint=hint), self.program.sources)

    def failure(self, span: Span, reason: str) -> RuntimeFailure:
        """A `fail` (or the like): outside any attempt or ability, its reason is quoted as having failed."""
        diagnostic = Diagnostic(span, f"'{reason}' failed outside any attempt or ability", hint=FAIL_HINT)
        return RuntimeFailure(reason, diagnostic, self.program.sources)


DEEP_MESSAGE = f"a value nested more than {VALUE_DEPTH} deep is more than a game may hold: a runaway computation?"
PLAIN_KINDS = frozenset({"int", "bool", "str", "player", "enum"})


def plain_card(cls: type, program: Program, labels: dict[Any, Any]) -> bool:
    """Whether cards of this class hold only plain values, so that their label depends on the card alone.

    The answer is kept in the label cache itself, under the class.
    """
    plain = labels.get(cls)
    if plain is None:
        card_type = program.cards.get(cls.__name__)
        plain = labels[cls] = card_type is not None and all(ft.kind in PLAIN_KINDS for _, ft in card_type.fields)
    return bool(plain)


@functools.cache
def seats(players: int) -> tuple[Player, ...]:
    """The seats of a game of so many players (players are values: every game shares them)."""
    return tuple(Player(i) for i in range(players))


DONE = object()
MISSING = object()
NO_FIELD = Record({"?": None})  # what a template shows for a name that is not a declared field
MANY = object()
TEMPLATE = re.compile(r"\{([A-Za-z_][A-Za-z0-9_.]*)\}")


def restore_local(env: dict[str, Any], name: str, saved: Any) -> None:
    if saved is MISSING:
        env.pop(name, None)
    else:
        env[name] = saved


def without(xs: tuple[Any, ...], ys: tuple[Any, ...]) -> tuple[Any, ...]:
    """`xs - ys` on lists: `xs` in its order with each element of `ys` taken out once (if it is there),
    in time linear in both (each value counted by its `value_key`, which equals as `same` does)."""
    left: dict[Any, int] = {}
    rest: list[Any] = []  # values that cannot be a key: compared one by one
    for y in ys:
        k = value_key(y)
        if k is None:
            rest.append(y)
        else:
            left[k] = left.get(k, 0) + 1
    out = []
    for x in xs:
        k = value_key(x)
        if k is not None and left.get(k, 0) > 0:
            left[k] -= 1
            continue
        if k is None:
            i = next((i for i, y in enumerate(rest) if same(x, y)), None)
            if i is not None:
                del rest[i]
                continue
        out.append(x)
    return tuple(out)


def span_of(node: Any) -> Span:
    return getattr(node, "span", NO_SPAN)


def fold_seed(seed: int) -> int:
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
