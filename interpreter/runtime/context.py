"""The interface between a game and the work it runs: `Context`, what the frames (machine.py), the
generated code (codecache.py, compiled.py, compile/), the knowledge of the seats (knowledge.py) and
information.py use of a game, and `Frame`, the base of every piece of work in progress.

`Context` is a `typing.Protocol`: `Game` (game.py) has every member it names, and the modules below
the game take a `Context`, never the game's class, so that runtime/ imports one way, with no
circle even for a type (tests/test_layers.py). What the generated code reaches of a game is this
interface: the data it reads and sets, the stack, the values, the changes and the errors, each
one attribute read on the object it is given (a bound method or a slot of the game), as a call
from generated code is made millions of times a game.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, Protocol

from ..check.program import Program
from ..errors import GameError, RulebookError, Span
from ..language.values import CardRef, Player, ZoneRef
from ..syntax import ast as s
from .asks import Decision
from .basics import EMPTY_MEMO, WORK_BUDGET, Event, RuntimeFailure, SecretRun
from .observe import Sinks
from .state import State


class Blocks(Protocol):
    """The rulebook's code as the frames use it (`codecache.CodeCache`): a block's generated code."""

    # By a block's (a condition's) identity, the entry holding it and its code: what `block` (`truth`) reads.
    blocks: dict[int, tuple[Any, Any]]
    truths: dict[int, tuple[Any, Any]]

    def block(self, stmts: tuple[s.Stmt, ...]) -> Any:
        """The generated code of a block (a `codecache.Body`: `run(g, env, i=0, frame=None)`)."""
        ...


class Keeping(Protocol):
    """What `apply` keeps to put the game back (`machine.Keep`), as the frames tell it what they touch."""

    def kept(self, i: int, frame: Frame) -> bool: ...

    def touch_env(self, env: dict[str, Any]) -> None: ...

    def touch_copy(self, frame: Frame) -> None: ...


class Asks(Protocol):
    """The game's Decisions part as the frames use it (`decisions.Decisions`): a question and its answer."""

    # (`g`: the game, an `Asking`; `frame`: an AskFrame: decisions.py and machine.py, above this module)
    def ask(self, g: Any, frame: Any) -> None: ...

    def answered(self, g: Any, frame: Any, value: Any) -> None: ...


class Sees(Protocol):
    """The game's Information part as knowledge.py and information.py use it (`views.Information`)."""

    # (`g`: the game, a `Viewed`: views.py, above this module)
    def owned_by(self, g: Any, key: str, who: Player) -> bool: ...

    def sees_cards_of(self, g: Any, key: str, who: Player, as_source: bool = False) -> bool: ...

    def zone_seen_by(self, g: Any, visibility: str, key: str, who: Player) -> bool: ...


class Context(Protocol):
    """What the frames, the generated code, knowledge.py and information.py use of a game (`Game` has it all).

    - data: `state`, `program`, `frames`, `pending`, `journal`, `attempts`, `together`, `secret`,
      `secret_run`, `rule_frames`, `dirty`, `code` (the rulebook's code: codecache.py), `keep` (what
      `apply` puts back), `memo` (functions' values in this state) and `fn_depth`, `inline_depth`
      (the frames that blocks running inline stand for: codecache.py), `consts`, `players`,
      `work_left` (the budget of work), and the sinks (`sinks.events` and the others: observe.py);
    - the stack: `push` (the one door for new work), `check_rules`, `rule_match`;
    - the parts: `decisions` (`ask` and `answered`: an `AskFrame`'s question and its answer, also
      the game's own `ask` and `answered`), `information` (`owned_by`, `sees_cards_of`,
      `zone_seen_by`: what a seat sees, also the game's own), each one attribute read away;
    - values: `holds`, `truth_of`, `global_value`, `variable`, `call_fn`, `held`, `nested`, `arith`,
      `number`, `number_of`, `bounded`, `text`, `cards_of`, `zone_value`, `as_list`, `label`;
    - changes: `move`, `set_var`, `create`, each told to the sinks; `emit` tells them of an event;
    - errors: `runaway` (a budget ran out), `charge` (the budget of work), `runtime_error`, `failure`.
    """

    state: State
    frames: list[Frame]
    pending: Decision | None
    journal: list[tuple[Any, ...]]
    attempts: int
    together: int
    secret: int
    secret_run: SecretRun | None
    rule_frames: int
    dirty: set[str]
    memo: list[Mapping[tuple[Any, ...], Any]]
    fn_depth: int
    inline_depth: int
    work_left: int

    @property
    def program(self) -> Program: ...

    @property
    def code(self) -> Blocks: ...

    @property
    def keep(self) -> Keeping | None: ...

    @property
    def sinks(self) -> Sinks: ...

    @property
    def decisions(self) -> Asks: ...

    @property
    def information(self) -> Sees: ...

    @property
    def consts(self) -> dict[str, Any]: ...

    @property
    def players(self) -> tuple[Player, ...]: ...

    # the stack
    def push(self, frame: Frame) -> None: ...

    def check_rules(self, names: set[str]) -> None: ...

    def rule_match(self, rule: s.RuleDecl) -> dict[str, Any] | None: ...

    # values
    def holds(self, e: s.Expr, env: dict[str, Any]) -> bool: ...

    def truth_of(self, v: Any, e: s.Expr) -> bool: ...

    def global_value(self, name: str, e: s.Expr) -> Any: ...

    def variable(self, name: str, key: str) -> Any: ...

    def call_fn(self, name: str, args: tuple[Any, ...], span: Span) -> Any: ...

    def held(self, v: Any, e: s.Expr) -> Any: ...

    def nested(self, value: Any, at: Any, depth: int = 1) -> Any: ...

    def arith(self, op: str, a: Any, b: Any, left: s.Expr, right: s.Expr, e: s.Expr | s.Stmt) -> Any: ...

    def number(self, value: int, e: s.Expr | s.Stmt) -> int: ...

    def number_of(self, e: s.Expr, env: dict[str, Any]) -> int: ...

    def bounded(self, value: tuple[Any, ...] | None, e: s.Expr | s.Stmt, size: int) -> tuple[Any, ...]: ...

    def text(self, parts: list[str], e: s.Expr) -> str: ...

    def cards_of(self, v: Any, e: s.Expr) -> list[CardRef]: ...

    def zone_value(self, v: Any, e: s.Expr) -> ZoneRef: ...

    def as_list(self, v: Any, e: s.Expr) -> tuple[Any, ...]: ...

    def label(self, v: Any) -> str: ...

    # changes
    def move(self, cards: Sequence[CardRef], zone: ZoneRef, bottom: bool, span: Span) -> None: ...

    def set_var(self, name: str, key: str, value: Any, span: Span) -> None: ...

    def create(self, card_type: str, n: int, values: dict[str, Any], zone: ZoneRef, span: Span) -> None: ...

    def emit(self, event: Event) -> None: ...

    # errors
    def runaway(self, span: Span, message: str) -> RulebookError: ...

    def charge(self, work: int, at: Any) -> None: ...

    def runtime_error(self, span: Span, message: str, hint: str | None = None) -> RuntimeFailure: ...

    def failure(self, span: Span, reason: str) -> RuntimeFailure: ...


_SLOTS: dict[type, tuple[str, ...]] = {}  # every slot of a frame class, its bases' included (see Frame.copy)


@contextlib.contextmanager
def apart(g: Context) -> Iterator[None]:
    """Work that only some games do, done apart from the game's: charged to a budget of work of its own
    (as a question asked between decisions is) and with a memo of its own, so it neither charges the
    game nor leaves values in its memo that would spare the game work later. It is a pure constant's
    value, which the first game of a rulebook and players computes and the games after it find kept
    (`CodeCache.const_values`), and a `say`'s text, computed only in a game someone hears. So a game has
    the same work left whatever ran before it in the process and whether or not it is traced, and
    meets a runaway at the same place; a runaway inside the work itself still stops there."""
    left, memo = g.work_left, g.memo
    g.work_left, g.memo = WORK_BUDGET, [EMPTY_MEMO] * len(memo)
    try:
        yield
    finally:
        g.work_left, g.memo = left, memo


class Frame:
    """One piece of work in progress; `step` does the next part of it."""

    __slots__ = ("env",)
    env: dict[str, Any]
    # The slots that stepping or answering changes after the frame is made (what `Keep` saves), each
    # given a new value, never changed in place: a clone's frames share the values (`copy`).
    changing: tuple[str, ...] = ()
    # The slots besides `env` that hold an env of the stack or None (a call's caller's): a clone's
    # frame holds the clone's copy of it (`copy`).
    env_slots: tuple[str, ...] = ()

    def step(self, g: Context) -> None:
        raise NotImplementedError

    def answer(self, g: Context, value: Any) -> None:
        raise GameError("this frame asked nothing")

    def unwind(self, g: Context) -> None:
        """Called when a failure pops this frame without finishing it."""

    def copy(self, envs: dict[int, dict[str, Any]]) -> Frame:
        """This frame's copy in a clone: every slot the same value, its env the clone's copy of it
        (`copied_env`: `envs` maps each env of the stack to its copy, made once)."""
        return _copier(type(self))(self, envs)


def _slots_of(cls: type) -> tuple[str, ...]:
    """Every slot of a frame class, its bases' included."""
    slots = _SLOTS.get(cls)
    if slots is None:
        slots = _SLOTS[cls] = tuple(slot for c in cls.__mro__ for slot in getattr(c, "__slots__", ()))
    return slots


_COPIERS: dict[type, Callable[[Any, dict[int, dict[str, Any]]], Any]] = {}  # by frame class: `Frame.copy`'s work
# By frame class: what copies a frame of it (`frame_copier`, made once; the machine reads it as it copies a frame).
FRAME_COPIES: dict[type, Callable[[Any, dict[int, dict[str, Any]]], Any]] = {}


def _copier(cls: type) -> Callable[[Any, dict[int, dict[str, Any]]], Any]:
    """A function `(old, envs)` that makes `Frame.copy`'s copy of a frame of the class, written out for
    it: a new frame with every slot set to `old`'s and the env copied once per clone (`copied_env`,
    inline). A clone copies every frame of the stack, and a loop over the slots asking `hasattr` and
    `getattr` of each was most of a clone; the calls of a copy through its parts, a third of what
    was left. (The text is made of the class's own slot names, which are Python identifiers.)"""
    copier = _COPIERS.get(cls)
    if copier is None:
        held = cls.env_slots  # type: ignore[attr-defined]
        plain = [slot for slot in _slots_of(cls) if slot != "env" and slot not in held]
        body = "".join(f"    new.{slot} = old.{slot}\n" for slot in plain)
        for slot in held:  # (copied_env, inline, of an env that may be None)
            body += (
                f"    held = old.{slot}\n"
                "    if held is not None:\n"
                "        copy = envs.get(id(held))\n"
                "        held = copy if copy is not None else envs.setdefault(id(held), dict(held))\n"
                f"    new.{slot} = held\n"
            )
        namespace: dict[str, Any] = {"new_frame": object.__new__, "cls": cls}
        exec(
            "def copier(old, envs):\n"
            "    new = new_frame(cls)\n"
            f"{body}"
            "    env = old.env\n"
            "    copy = envs.get(id(env))\n"
            "    if copy is None:\n"
            "        copy = envs[id(env)] = dict(env)\n"
            "    new.env = copy\n"
            "    return new\n",
            namespace,
        )
        copier = _COPIERS[cls] = namespace["copier"]
    return copier


def copy_frames(frames: Sequence[Frame], replaced: Mapping[int, dict[str, Any]] | None = None) -> list[Frame]:
    """The stack of a clone: each frame's `copy`, the envs the frames share copied once and shared alike.

    `replaced`: the envs that the game's own copies stand in for, by the shared env's id (a game that
    still shares some of its frames: `machine.Sharing.envs`); a shared env and the copy that replaces
    it are copied as one."""
    envs: dict[int, dict[str, Any]] = {}
    if replaced:
        for key, env in replaced.items():
            envs[key] = envs[id(env)] = dict(env)
    copies = FRAME_COPIES
    return [(copies.get(f.__class__) or frame_copier(f.__class__))(f, envs) for f in frames]


def frame_copier(cls: type) -> Callable[[Any, dict[int, dict[str, Any]]], Any]:
    """What copies a frame of the class, `(frame, envs)`, its envs copied once among those of `envs` (by the
    env's id): its own `copy` where it has one (a frame that holds other envs), else `Frame.copy`'s copier,
    called without the method between."""
    own = cls.copy  # type: ignore[attr-defined]
    copy = FRAME_COPIES[cls] = _copier(cls) if own is Frame.copy else own
    return copy


def copied_env(env: dict[str, Any], envs: dict[int, dict[str, Any]]) -> dict[str, Any]:
    """The copy of a frame's local names in a clone: made once for all the frames that share them."""
    copy = envs.get(id(env))
    if copy is None:
        copy = envs[id(env)] = dict(env)
    return copy
