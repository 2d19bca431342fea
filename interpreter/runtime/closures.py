"""Statements as Python closures; expressions as the rulebook's generated code (compile/generate.py).

`Game._eval(e, env)` is the meaning of an expression; the methods `Game._eval_*` spell it out
node by node. Each expression that a statement, a declaration or a rule reads (a root) runs as
its function in the rulebook's generated module (runtime/compiled.py), which does the common case
inline and hands anything unusual to the node's `Game._eval_*` method, the definition, which
reports the located error. An expression that is not a root of the program (one a scenario or a
test makes) is evaluated by the definition. `tests/test_generated.py` checks the generated code
against the definition, node by node.

Statements have one definition each. The common ones (`let`, `x = ...`, `set`, `move`,
`create`, `if`, `for`, a procedure call) are defined here, as closures; the others (those that
ask, push a frame of their own or end the game) by their `Game._exec_*` method, which their
closure calls. `_compile_stmt` is one `match` over every kind of statement, so a forgotten one is
a type error. A block's closures are run one after another by its frame (see `BlockFrame.step`).
Statements stay closures stepped by frames, so that a game waiting on a decision is data and
clones without replay (docs/ARCHITECTURE.md).

Frames are made only when work has to wait. An `if`, a `for` and a procedure call run their blocks
at once, inline (`run_block`), as their frames would run them, and go on to the next statement in
the same step. Only when something inside has to wait (it pushes a frame: a decision, a `while`, an
`attempt`, a check of the state-based rules after a change, ...) does the work left over become
frames: each block, loop and call still under way puts its frame, at the point it reached, below the
new work, innermost on top, just as the machine would have had them. So between two decisions the
common statements run as straight-line Python calls, while a game waiting on a decision is the same
data as before. What a statement's code returns says whether its block goes on (None) or the step
ends here (SUSPENDED, ENDED, or a `return`'s `Returned` value, which the call running inline takes,
or else the call's frame). The depth budget counts the frames that inline work stands for
(`Game.inline_depth`), so it stops a runaway recursion where the machine did, naming the same
statement. Nothing runs inline while a sink hears every frame pushed (rule coverage counts them),
nor past INLINE_DEPTH (which bounds Python's own recursion): such work makes its frames.
`tests/test_fast_paths.py` compares games both ways.

A function whose body does real work (a comprehension, a query, a call of a built-in or of a
function doing such work: `worth_remembering`) keeps its values in
the game's memo, by arguments, until something it reads changes (compile/generate.py,
`MemoLayout`): every change goes through the runtime's `move`, `set_var`, `_set_field`, `create`,
`_undo` or `arrange`, which forget what was derived from what they change (`Game.forget`), and
code that changes a state from outside says so with `Game.state_changed()`. Functions cannot
change the state, so while what a function reads stays, a call with the same arguments has the
same value. (One difference from evaluating anew: a value remembered from a shallow call is
reused by a deeper one, so a recursion that would pass the function-depth budget only when
called deep may finish.)

The code of a rulebook is kept with it (`code_cache`), shared by all its games, keyed by node
identity (each entry holds its node, so an identity is never reused while its entry lives).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, assert_never

from ..check.program import reads_of
from ..compile.body import BOOLEAN
from ..compile.generate import MemoLayout, memo_layout, readers_for
from ..language.values import CardRef, Player, ZoneRef, zone_key
from ..syntax import ast as s
from . import compiled
from .machine import (
    DEPTH_BUDGET,
    DEPTH_MESSAGE,
    EMPTY_MEMO,
    BlockFrame,
    CallFrame,
    ForFrame,
    Returned,
    TooDeep,
    call_cost,
    card_refs,
    node_count,
)

if TYPE_CHECKING:
    from ..check.program import Program
    from .game import Game

Code = Callable[["Game", dict[str, Any]], Any]
Block = tuple[tuple[Code, ...], tuple[int, ...]]  # a block's closures, and the work each charges when it runs

# What a statement's code returns when the step must end (None: its block goes on), besides the
# value of a `return` (machine.Returned), which goes to the call running inline or to the call's frame.
SUSPENDED = "suspended"  # it pushed work that must wait; what was under way inline is now frames below it
ENDED = "ended"  # the game ended (its frames are gone)
# Frames that the blocks running inline may stand for before a block makes its frame: it bounds
# Python's own recursion (two Python calls a level), well below its limit.
INLINE_DEPTH = 100

# The definitions the closures fall back on, one method of `Game` per kind of node: `_eval_*` for
# each expression, `_exec_*` for each statement not compiled here. runtime.py fills them when it
# defines `Game` (`define`), so that this module, below the game, does not import it.
_EVAL: dict[type, Callable[..., Any]] = {}
_EXEC: dict[type, Callable[..., Any]] = {}


def define(evaluate: dict[type, Callable[..., Any]], execute: dict[type, Callable[..., Any]]) -> None:
    """Take the game's definitions of expressions and statements (called once, by runtime.py)."""
    _EVAL.update(evaluate)
    _EXEC.update(execute)
    compiled.define(evaluate)


class CodeCache:
    """The code of one rulebook: its expressions' functions (values, and truths: values that must be booleans),
    and its statements' closures."""

    def __init__(self, program: Program, digest: str | None = None, probe: Code | None = None):
        self.program = program
        self.compiled = compiled.compile_program(program, digest, probe)
        self.memo_layout: MemoLayout = memo_layout(program)
        self.empty_memo: list[Mapping[Any, Any]] = [EMPTY_MEMO] * self.memo_layout.size  # a game's memo, new
        # What a change to each zone or variable empties, by the number of players (`readers_for`).
        self.memo_readers = {n: readers_for(self.memo_layout, n) for n in range(self.memo_layout.seats + 1)}
        # Constants that read no zone or variable (`reads_of`) have the same value in every game of
        # as many players: computed once, by the first game that needs each, then shared.
        self.pure_consts = frozenset(name for name, c in program.consts.items() if not reads_of(program, [c.value]))
        self.const_values: dict[int, dict[str, Any]] = {}  # players -> pure constant -> value
        self.values: dict[int, tuple[Any, Code]] = {}
        self.truths: dict[int, tuple[Any, Code]] = {}
        # By a block's identity (each entry holds its block): its statements' closures, and what
        # each charges the budget of work when it runs (`node_count`).
        self.blocks: dict[int, tuple[Any, Block]] = {}
        self.fn_costs: dict[str, int] = {}  # by function name: what one call charges the budget of work
        # By a menu's identity (each entry holds its menu): each option as a decision offers it, with the
        # truth of its `when` (None: always), made once (runtime/decisions.py, `ask`).
        self.menus: dict[int, tuple[Any, tuple[tuple[Any, Code | None], ...]]] = {}
        # The zones and variables that some state-based rule reads (None: a rule may read any), so
        # that a change of another one checks no rule.
        reads = frozenset().union(*program.rule_reads.values())
        self.rule_reads: frozenset[str] | None = None if "*" in reads else reads

    def fn_cost(self, name: str) -> int:
        """What one call of the function `name` charges the budget of work (`call_cost`), kept: counting
        the nodes of its body took most of the time of a call of a long `heuristic`."""
        cost = self.fn_costs.get(name)
        if cost is None:
            cost = self.fn_costs[name] = call_cost(self.program.fns[name].body)
        return cost

    def value(self, e: Any) -> Code:
        entry = self.values.get(id(e))
        if entry is None or entry[0] is not e:
            entry = self.values[id(e)] = (e, self.compiled.root(e) or _slow(e))
        return entry[1]

    def truth(self, e: Any) -> Code:
        entry = self.truths.get(id(e))
        if entry is None or entry[0] is not e:
            entry = self.truths[id(e)] = (e, self._truth(e))
        return entry[1]

    def _truth(self, e: Any) -> Code:
        """A condition's function: its value, which must be a boolean (else the located error of `_truth_of`)."""
        code = self.value(e)
        if isinstance(e, BOOLEAN):
            return code  # booleans by construction

        def truth(g: Game, env: dict[str, Any]) -> Any:
            v = code(g, env)
            if v.__class__ is not bool:
                return g.truth_of(v, e)
            return v

        return truth

    def statement(self, st: s.Stmt) -> Code:
        """The closure of one statement run on its own (not kept: a scenario's edit runs once)."""
        return _compile_stmt(st, self)

    def block(self, stmts: tuple[Any, ...]) -> Block:
        """The closures of a block's statements, in order, and the work each charges when it runs."""
        entry = self.blocks.get(id(stmts))
        if entry is None or entry[0] is not stmts:
            codes = tuple(_compile_stmt(st, self) for st in stmts)
            entry = self.blocks[id(stmts)] = (stmts, (codes, tuple(node_count(st) for st in stmts)))
        return entry[1]


def code_cache(rulebook: Any, program: Program) -> CodeCache:
    """The rulebook's cache of closures, made on first use (a rulebook-like object without one gets a new one)."""
    cache = getattr(rulebook, "code_cache", None)
    if cache is None or cache.program is not program:
        cache = CodeCache(program, getattr(rulebook, "digest", None))
        with contextlib.suppress(AttributeError):
            rulebook.code_cache = cache
    return cache


# ---------------------------------------------------------------------------- compiling


def _slow(e: Any) -> Code:
    """The node's own `Game._eval_*` method: the definition, and the way to its located errors."""

    method = _EVAL.get(e.__class__)
    if method is None:
        raise TypeError(f"not an expression: {e!r}")
    return lambda g, env: method(g, e, env)


def _arguments(params: tuple[str, ...], args: tuple[Code, ...]) -> Code:
    """A closure making the local names of a call from its arguments (one and two spelled out: the common calls)."""
    if len(params) == 1:
        (p0,), (a0,) = params, args

        def one(g: Game, env: dict[str, Any]) -> Any:
            return {p0: a0(g, env)}

        return one
    if len(params) == 2:
        (p0, p1), (a0, a1) = params, args

        def two(g: Game, env: dict[str, Any]) -> Any:
            return {p0: a0(g, env), p1: a1(g, env)}

        return two

    def many(g: Game, env: dict[str, Any]) -> Any:
        return dict(zip(params, [a(g, env) for a in args], strict=True))

    return many


def _items(source: Code, e: Any, cache: CodeCache) -> Code:
    """A closure for a list operand: its value as a tuple (a zone's cards, none as empty), via `as_list`."""

    binding = cache.program.resolution.of(e)
    if binding is not None and binding.kind == "zone" and e.__class__ is s.Index:
        # `slot[p, 1, 2]` as a list: the zone's cards, without making a reference to the zone
        name, keys = binding.name, tuple(cache.value(a) for a in e.args)

        def zone_cards(g: Game, env: dict[str, Any]) -> Any:
            values = tuple([k(g, env) for k in keys])
            if name in env or None in values:
                return g.as_list(source(g, env), e)
            return card_refs(g.state.zones.get(zone_key(name, values), ()))

        return zone_cards

    def items(g: Game, env: dict[str, Any]) -> Any:
        v = source(g, env)
        return v if v.__class__ is tuple else g.as_list(v, e)

    return items


# ---------------------------------------------------------------------------- running inline


def run_block(g: Game, stmts: tuple[s.Stmt, ...], block: Block, env: dict[str, Any]) -> Any:
    """Run a block's statements now, as its frame would (`BlockFrame.step`), without making the frame;
    `block` is their code (`CodeCache.block`, which the closure running the block keeps: `Body`).

    Returns None when the block is done. When a statement ends the step (it pushed work that must
    wait, or its own inline work did), the rest of the block becomes a frame, put below that work,
    and SUSPENDED is returned; ENDED and a `Returned` value are passed on as they come.
    """
    codes, costs = block
    frames = g.frames
    depth, i, n = len(frames), 0, len(codes)
    while i < n:
        g.work_left -= costs[i]
        if g.work_left < 0:
            g.charge(0, stmts[i])
        try:
            r = codes[i](g, env)
        except TooDeep:  # as the machine names it: the statement that went too deep
            raise g.runaway(stmts[i].span, DEPTH_MESSAGE) from None
        i += 1
        if r is None:
            if len(frames) == depth and g.pending is None and not g.state.over:
                continue
            r = ENDED if g.state.over else SUSPENDED
        if r is SUSPENDED:  # (done or not: the machine's frame stays until its next step, and counts)
            frames.insert(depth, BlockFrame(stmts, env, i, block))
        return r
    return None


class Body:
    """A block that a closure runs inline, and its code once first run (`code`): a block's closures are
    made on first use (a procedure's body calls procedures, itself among them), and looking them up in
    the cache by identity at every run was some 3 % of a bundled game of many small blocks."""

    __slots__ = ("block", "stmts")

    def __init__(self, stmts: tuple[s.Stmt, ...]):
        self.stmts = stmts
        self.block: Block | None = None

    def code(self, cache: CodeCache) -> Block:
        block = self.block
        if block is None:
            block = self.block = cache.block(self.stmts)
        return block


def _enter(g: Game, frames: int) -> bool:
    """Whether work that the machine would give `frames` frames runs inline now: not while a sink
    hears every frame pushed (rule coverage counts them), nor past INLINE_DEPTH. The depth budget
    counts the frames it stands for, as if they were made."""
    depth = g.inline_depth + frames
    if depth > INLINE_DEPTH or g.sinks.pushes:
        return False
    if len(g.frames) + depth > DEPTH_BUDGET:
        raise TooDeep
    return True


# ---------------------------------------------------------------------------- statements


def _compile_stmt(st: s.Stmt, cache: CodeCache) -> Code:
    """A closure doing one statement: the common statements are compiled here (their one definition),
    the others call their `Game._exec_*` method (`runtime._EXEC`)."""

    match st:
        case s.Let(name=name, value=value):
            if value.__class__ is s.Call and value.name in cache.program.procs:
                return _call(value.name, value.args, name, cache)  # its `return` gives the name its value
            code = cache.value(value)

            def let(g: Game, env: dict[str, Any]) -> None:
                v = code(g, env)
                env[name] = v if v.__class__ is not ZoneRef else g.held(v, value)

            return let
        case s.Assign():
            return _assign(st, cache)
        case s.SetVar():
            return _set_var(st, cache)
        case s.Move():
            return _move(st, cache)
        case s.Create():
            return _create(st, cache)
        case s.If():
            return _if(st, cache)
        case s.For():
            return _for(st, cache)
        case s.CallStmt(name=name, args=args):
            return _call(name, args, None, cache)
        case s.Return():
            return _return(st, cache)
        case (
            s.SetField()
            | s.Draw()
            | s.Reveal()
            | s.While()
            | s.Repeat()
            | s.Match()
            | s.Attempt()
            | s.Together()
            | s.Secret()
            | s.Fail()
            | s.Require()
            | s.Choose()
            | s.Menu()
            | s.Use()
            | s.EndGame()
            | s.EndUnfinished()
            | s.Say()
        ):
            method = _EXEC[st.__class__]
            return lambda g, env: method(g, st, env)
        case _:
            assert_never(st)


def _set_var(st: s.SetVar, cache: CodeCache) -> Code:
    name, op, span, node = st.name, st.op, st.span, st.value
    keys, value = tuple(cache.value(k) for k in st.keys), cache.value(st.value)
    holds_list = cache.program.var_types[name].kind == "list"

    key0 = keys[0] if len(keys) == 1 else None
    # A seat as the one key: its text made once for each seat of the rulebook (as generated code does).
    by_seat = tuple(zone_key(name, (Player(i),)) for i in range(max(cache.program.max_players, 1)))

    def set_var(g: Game, env: dict[str, Any]) -> None:
        # (a variable without keys is its name; one key, the common case, without the list)
        if not keys:
            key = name
        elif key0 is not None:
            k = key0(g, env)
            key = by_seat[k.index] if k.__class__ is Player and -1 < k.index < len(by_seat) else zone_key(name, (k,))
        else:
            key = zone_key(name, tuple([k(g, env) for k in keys]))
        v = value(g, env)
        if holds_list and v.__class__ is ZoneRef:
            v = g.as_list(v, node)  # a list variable holds the cards, not the zone (Game.held)
        if op != "=":
            old = g.variable(name, key)
            if op == "+=" and v.__class__ is int and old.__class__ is int:  # a count, as `arith` adds
                v = g.number(old + v, st)
            else:
                v = g.arith(op[0], old, v, st.value, st.value, st)
        g.set_var(name, key, v, span)

    return set_var


def _if(st: s.If, cache: CodeCache) -> Code:

    branches = (
        (cache.truth(st.condition), Body(st.then.stmts)),
        *((cache.truth(e.condition), Body(e.body.stmts)) for e in st.elifs),
    )
    otherwise = Body(st.otherwise.stmts) if st.otherwise is not None else None

    def if_(g: Game, env: dict[str, Any]) -> Any:
        for cond, body in branches:  # noqa: B007 -- the branch taken is the one the loop stops at
            if cond(g, env):
                break
        else:
            if otherwise is None:
                return None
            body = otherwise
        if not _enter(g, 1):
            g.push(BlockFrame(body.stmts, env))
            return None
        block = body.block or body.code(cache)
        g.inline_depth += 1
        try:
            return run_block(g, body.stmts, block, env)
        finally:
            g.inline_depth -= 1

    return if_


def _call(name: str, arg_nodes: tuple[s.Expr, ...], target: str | None, cache: CodeCache) -> Code:
    """A procedure call; with a `target`, `let target = name(...)`, which its `return` gives a value."""

    proc = cache.program.procs[name]
    params = tuple(p.name for p in proc.params)
    args = tuple(cache.value(a) for a in arg_nodes)
    body = Body(proc.body.stmts)

    make_env = _arguments(params, args)
    # A zone passed as a `list of T` is its cards at the call (Game._argument).
    lists = tuple((p.name, a) for p, a in zip(proc.params, arg_nodes, strict=True) if p.type.__class__ is s.ListType)

    def call(g: Game, env: dict[str, Any]) -> Any:
        new_env = make_env(g, env)
        for param, arg in lists:
            if new_env[param].__class__ is ZoneRef:
                new_env[param] = g.as_list(new_env[param], arg)
        if not _enter(g, 2):
            g.push(CallFrame(name, new_env, env, target))
            g.push(BlockFrame(body.stmts, new_env))
            return None
        block = body.block or body.code(cache)
        depth = len(g.frames)
        g.inline_depth += 2
        try:
            r = run_block(g, body.stmts, block, new_env)
        finally:
            g.inline_depth -= 2
        if r is SUSPENDED:
            g.frames.insert(depth, CallFrame(name, new_env, env, target))
            return r
        if r is ENDED:
            return r
        if target is not None:  # as `CallFrame.finish`: the value returned, or none
            env[target] = r.value if r is not None else None
        return None

    return call


def _return(st: s.Return, cache: CodeCache) -> Code:
    node, span = st.value, st.span
    value = cache.value(node) if node is not None else None

    def return_(g: Game, env: dict[str, Any]) -> Any:
        if node is None or value is None:
            return Returned(None, span)
        return Returned(g.held(value(g, env), node), span)

    return return_


def _assign(st: s.Assign, cache: CodeCache) -> Code:
    name, op, value, node = st.name, st.op, cache.value(st.value), st.value

    def assign(g: Game, env: dict[str, Any]) -> None:
        v = value(g, env)
        if op == "=":
            env[name] = v if v.__class__ is not ZoneRef else g.held(v, node)
        elif op == "+=" and v.__class__ is int and (old := env[name]).__class__ is int:  # a count, as `arith` adds
            env[name] = g.number(old + v, st)
        else:
            env[name] = g.arith(op[0], env[name], v if v.__class__ is not ZoneRef else g.held(v, node), node, node, st)

    return assign


def _move(st: s.Move, cache: CodeCache) -> Code:
    what_node, to_node, bottom, span = st.what, st.to, st.bottom, st.span
    what, to = cache.value(what_node), cache.value(to_node)

    def move(g: Game, env: dict[str, Any]) -> None:
        v = what(g, env)
        cards = [v] if v.__class__ is CardRef else g.cards_of(v, what_node)
        g.move(cards, g.zone_value(to(g, env), to_node), bottom, span)

    return move


def _create(st: s.Create, cache: CodeCache) -> Code:
    card_type, span, zone_node, count_node = st.card_type, st.span, st.zone, st.count
    count, zone = cache.value(count_node), cache.value(zone_node)
    inits = tuple((i.name, cache.value(i.value)) for i in st.inits)

    def create(g: Game, env: dict[str, Any]) -> None:
        n = count(g, env)
        if n.__class__ is not int:
            n = g.number_of(count_node, env)  # its located error
        values = {name: value(g, env) for name, value in inits}
        g.create(card_type, n, values, g.zone_value(zone(g, env), zone_node), span)

    return create


def _for(st: s.For, cache: CodeCache) -> Code:

    var, body = st.var, st.body
    stmts, code = body.stmts, Body(body.stmts)
    source = _items(cache.value(st.source), st.source, cache)

    def for_(g: Game, env: dict[str, Any]) -> Any:
        items = source(g, env)
        if not _enter(g, 2):
            g.push(ForFrame(var, items, body, env))
            return None
        block = code.block or code.code(cache)
        depth = len(g.frames)
        g.inline_depth += 2
        try:
            for i, item in enumerate(items):
                env[var] = item
                r = run_block(g, stmts, block, env)
                if r is not None:
                    if r is SUSPENDED:
                        g.frames.insert(depth, ForFrame(var, items, body, env, i + 1))
                    return r
        finally:
            g.inline_depth -= 2
        return None

    return for_
