"""Blocks of statements as generated code (compile/blocks.py); expressions as the rulebook's generated code
(compile/generate.py); the code of a rulebook kept with it (`CodeCache`).

`Game.evaluate(e, env)` is the meaning of an expression. Each expression that a statement, a declaration
or a rule reads (a root) runs as its function in the rulebook's generated module (runtime/compiled.py),
which does the common case inline and hands anything unusual, with the operands' values, to the
operation's one definition in operations.py, which reports the located error. An expression that is
not a root of the program (one a scenario or a test makes) runs as a function generated for it
(`Compiled.fragment`). `tests/test_generated.py` checks the generated code against the tree-walking
definition of each kind of expression (tests/oracle/), node by node.

Statements have one definition each. Each block of the rulebook becomes one generated function
(compile/blocks.py, made on the block's first run: `Body`): `run(g, env, i=0, frame=None)`, which
does the block inline from its start, or from its frame's position as the frame's step
(`BlockFrame.step`). `let`, `x = ...`, `set`, `move`, `create`, `if`,
`for`, a procedure call and `return` are spelled out in that code; the others (those that ask, push
a frame of their own or end the game) are their function in statements.py, which the code calls. The
generator is one `match` over every kind of statement, so a forgotten one is a type error.
Statements stay stepped by frames, so that a game waiting on a decision is data and clones
without replay (docs/ARCHITECTURE.md).

Frames are made only when work has to wait. An `if`, a `for` and a procedure call run their blocks
at once, inline (their `Body.run`), as their frames would run them, and go on to the next statement
in the same step. Only when something inside has to wait (it pushes a frame: a decision, a `while`,
an `attempt`, a check of the state-based rules after a change, ...) does the work left over become
frames: each block, loop and call still under way puts its frame, at the point it reached, below the
new work, innermost on top, just as the machine would have had them (`_stop`). So between two
decisions a block is one Python call, while a game waiting on a decision is the same data as
before. What a statement's code gives says whether its block goes on (None) or the step ends here
(SUSPENDED, ENDED, or a `return`'s `Returned` value, which the call running inline takes, or else
the call's frame). The depth budget counts the frames that inline work stands for
(`Game.inline_depth`), so it stops a runaway recursion where the machine did, naming the same
statement. Nothing runs inline while a sink hears every frame pushed (rule coverage counts them),
nor past INLINE_DEPTH (which bounds Python's own recursion): such work makes its frames.
`tests/test_fast_paths.py` compares games both ways.

A function whose body does real work (a comprehension, a query, a call of a built-in or of a
function doing such work: `worth_remembering`) keeps its values in
the game's memo, by arguments, until something it reads changes (compile/memo.py,
`MemoLayout`): every change goes through the runtime's `move`, `set_var`, `set_field`, `create`,
`undo` or `arrange`, which forget what was derived from what they change (`Game.forget`), and
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
import hashlib
import linecache
from collections.abc import Callable, Mapping
from typing import Any

from ..check.program import Program, reads_of
from ..compile.blocks import block_source, statement_source
from ..compile.body import BOOLEAN
from ..compile.memo import MemoLayout, memo_layout, readers_for
from ..compile.source import literal_value
from ..language.values import CardRef, Player, Record, ZoneRef, seat_of_key, zone_key
from ..syntax import ast as s
from . import compiled
from .basics import (
    DEPTH_BUDGET,
    DEPTH_MESSAGE,
    EMPTY_MEMO,
    INT_BUDGET,
    WORK_PER_CALL,
    Returned,
    TooDeep,
    call_cost,
    card_refs,
    node_count,
    shared_dict,
)
from .context import Context
from .machine import STATEMENT_LINES, BlockFrame, CallFrame, ForFrame

Code = Callable[[Context, dict[str, Any]], Any]

# What a statement's code returns when the step must end (None: its block goes on), besides the
# value of a `return` (machine.Returned), which goes to the call running inline or to the call's frame.
SUSPENDED = "suspended"  # it pushed work that must wait; what was under way inline is now frames below it
ENDED = "ended"  # the game ended (its frames are gone)
# Frames that the blocks running inline may stand for before a block makes its frame: it bounds
# Python's own recursion (two Python calls a level), well below its limit.
INLINE_DEPTH = 100

# The definitions a block's code falls back on: a function of statements.py for each statement it does
# not spell out (and the draw's, which takes its operands evaluated). game.py fills them when it
# defines `Game` (`define`), so that this module, below the game, does not import it.
_EXEC: dict[type, Callable[..., Any]] = {}


def define(execute: dict[type, Callable[..., Any]]) -> None:
    """Take the game's definitions of statements (called once, by game.py)."""
    _EXEC.update(execute)


_PLANS_KEPT = 4096  # the state keys whose plan of forgetting a code cache keeps, for each number of players


class CodeCache:
    """The code of one rulebook: its expressions' functions (values, and truths: values that must be booleans),
    and its blocks of statements' generated code."""

    def __init__(self, program: Program, digest: str | None = None, probe: Code | None = None):
        self.program = program
        # Labels of cards whose fields are plain values depend on the card alone: computed once, shared by every
        # game of the rulebook (evaluate.py's `label`; `code_cache` gives it the rulebook's own).
        self.card_labels: dict[Any, Any] = {}
        self.compiled = compiled.compile_program(program, digest, probe)
        self.probed = probe is not None  # (then blocks call each expression's function: the probe hears every node)
        self.memo_layout: MemoLayout = memo_layout(program)
        self.empty_memo: list[Mapping[Any, Any]] = [EMPTY_MEMO] * self.memo_layout.size  # a game's memo, new
        # the dicts a change of a card's field empties: all but those of functions that read no field
        self.field_dicts = tuple(i for i in range(self.memo_layout.size) if i not in self.memo_layout.field_free)
        # What a change to each zone or variable empties, by the number of players (`readers_for`).
        self.memo_readers = {n: readers_for(self.memo_layout, n) for n in range(self.memo_layout.seats + 1)}
        # By players and state key: the dicts of the memo a change at that key empties (`forget_plan`).
        self.forgetting: dict[int, dict[str, tuple[int, ...]]] = {n: {} for n in self.memo_readers}
        # By players and (source key, destination key): what a move between the two zones empties and the
        # zones' names a rule reads (`move_plan`).
        self.moving: dict[int, dict[tuple[str, str], tuple[tuple[int, ...], tuple[str, ...]]]] = {
            n: {} for n in self.memo_readers
        }
        # Constants that read no zone or variable (`reads_of`) have the same value in every game of
        # as many players: computed once, by the first game that needs each, then shared.
        self.pure_consts = frozenset(name for name, c in program.consts.items() if not reads_of(program, [c.value]))
        self.const_values: dict[int, dict[str, Any]] = {}  # players -> pure constant -> value
        self.values: dict[int, tuple[Any, Code]] = {}
        self.truths: dict[int, tuple[Any, Code]] = {}
        # By a block's identity (each entry holds its block): its generated code.
        self.blocks: dict[int, tuple[Any, Body]] = {}
        self.counted_blocks: dict[int, tuple[Any, Body]] = {}  # the same, as rule coverage runs them
        self.fn_costs: dict[str, int] = {}  # by function name: what one call charges the budget of work
        self.entries: dict[str, tuple[Callable[..., Any], int, int] | None] = {}  # by function name: `entry`
        # By a menu's identity (each entry holds its menu): each option as a decision offers it, with the
        # truth of its `when` (None: always), made once, then its prompt's and chooser's code (`operand`;
        # runtime/decisions.py, `ask`) and its options when none has a `when` (else None); by a choose's:
        # its operands' code, its pool's first.
        self.menus: dict[int, tuple[Any, tuple[tuple[Any, Code | None], ...], Any, Any, Any]] = {}
        self.chooses: dict[int, tuple[Any, Code, Any, Any, Any]] = {}
        # By a rule's identity (each entry holds its rule): the search for its first binding that holds.
        self.matchers: dict[int, tuple[Any, Callable[[Context], dict[str, Any] | None] | None]] = {}
        # The zones and variables that some state-based rule reads (None: a rule may read any), so
        # that a change of another one checks no rule.
        reads = frozenset().union(*program.rule_reads.values())
        self.rule_reads: frozenset[str] | None = None if "*" in reads else reads

    def forget_plan(self, players: int, name: str, key: str) -> tuple[int, ...]:
        """The dicts of the memo that a change of zone or variable `name` at `key` empties (Game.forget):
        dict 0, those of the functions that read it, and of a function that reads it only at its
        player's keys the dict of the key's player alone (all of its players' if the key has none)."""
        readers, seat_readers = self.memo_readers[players]
        plan = [0, *readers.get(name, ())]
        seat = seat_of_key(key)
        for first in seat_readers.get(name, ()):
            plan += [first + seat] if seat is not None and seat < players else range(first, first + players)
        kept = self.forgetting[players]
        if key.split("[", 1)[0] == name:  # (a key names its zone or variable: the plan is the key's)
            if len(kept) >= _PLANS_KEPT:
                kept.clear()
            kept[key] = tuple(plan)
        return tuple(plan)

    def move_plan(self, players: int, src: str, dst: str, dst_name: str) -> tuple[tuple[int, ...], tuple[str, ...]]:
        """For a move of cards from zone `src` to zone `dst` (keys; `dst_name` the destination's zone): the
        dicts of the memo it empties (both zones' `forget_plan`, each dict once), and the names of the two
        zones that a state-based rule reads (`rule_reads`), sorted, each once: what `store.move` forgets
        and tells the rules of, made once for the pair."""
        plan = self.forgetting[players].get(dst) or self.forget_plan(players, dst_name, dst)
        names = {dst_name}
        if src != dst:
            src_name = src.split("[", 1)[0]
            names.add(src_name)
            plan = tuple(
                dict.fromkeys(plan + (self.forgetting[players].get(src) or self.forget_plan(players, src_name, src)))
            )
        watched = self.rule_reads
        told = tuple(sorted(n for n in names if watched is None or n in watched)) if self.program.rules else ()
        kept = self.moving[players]
        if len(kept) >= _PLANS_KEPT:
            kept.clear()
        made = kept[src, dst] = (plan, told)
        return made

    def fn_cost(self, name: str) -> int:
        """What one call of the function `name` charges the budget of work (`call_cost`), kept: counting
        the nodes of its body took most of the time of a call of a long `heuristic`."""
        cost = self.fn_costs.get(name)
        if cost is None:
            cost = self.fn_costs[name] = call_cost(self.program.fns[name].body)
        return cost

    def entry(self, name: str) -> tuple[Callable[..., Any], int, int] | None:
        """The generated call of `fn name` (`(game, k, *args)`: the budget of work charged, the memo read,
        else the body run: compile/generate.py `_fn`), the number of the function's body among the
        program's expressions (`k`: where an error of the call itself would be located), and what one
        call costs (`fn_cost`): a call from outside the rules (`Game.ask_fn`). None for a body that is
        not a root of the program (one node shared with another place): `call_fn` then."""
        if name in self.entries:
            return self.entries[name]
        compiled, body = self.compiled, self.program.fns[name].body
        k = next((k for k in compiled.generated.roots if compiled.nodes[k] is body), None)
        made = None if k is None else (compiled.function(compiled.generated.fns[name]), k, self.fn_cost(name))
        self.entries[name] = made
        return made

    def value(self, e: Any) -> Code:
        entry = self.values.get(id(e))
        if entry is None or entry[0] is not e:
            entry = self.values[id(e)] = (e, self.compiled.root(e) or self.compiled.fragment(e))
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

        def truth(g: Context, env: dict[str, Any]) -> Any:
            v = code(g, env)
            if v.__class__ is not bool:
                return g.truth_of(v, e)
            return v

        return truth

    def matcher(self, rule: s.RuleDecl) -> Callable[[Context], dict[str, Any] | None] | None:
        """The rule's search for its first binding (in declaration order) whose condition holds
        (`evaluate.rule_match`), for a rule of no binding or one: a loop over the source's values with
        the condition's function called directly, doing what the general search does (the same
        charges, values and errors) without its calls per value. None for a rule of several bindings
        (the general search's)."""
        entry = self.matchers.get(id(rule))
        if entry is None or entry[0] is not rule:
            entry = self.matchers[id(rule)] = (rule, _matcher(rule, self.truth(rule.when), self))
        return entry[1]

    def operand(self, e: Any) -> Any:
        """What a decision evaluates an operand by (runtime/decisions.py): a literal's value itself where
        no probe listens, else the expression's function (`value`), called without `Game.evaluate`'s
        look-up; None for no operand."""
        if e is None:
            return None
        is_literal, v = literal_value(e)
        return v if is_literal and not self.probed else self.value(e)

    def statement(self, st: s.Stmt) -> Code:
        """The code of one simple statement run on its own (not kept: a scenario's edit runs once)."""
        return _statement(st, self)

    def block(self, stmts: tuple[Any, ...]) -> Body:
        """A block's code (`Body`: generated when it first runs), one for each block of the rulebook."""
        entry = self.blocks.get(id(stmts))
        if entry is None or entry[0] is not stmts:
            entry = self.blocks[id(stmts)] = (stmts, Body(stmts, self))
        return entry[1]

    def counted(self, stmts: tuple[Any, ...]) -> Body:
        """A block's code as rule coverage runs it (tools/coverage.py): the same code, which keeps its frame's
        position before each statement (`BlockFrame.i`), as coverage counts the statements that started."""
        entry = self.counted_blocks.get(id(stmts))
        if entry is None or entry[0] is not stmts:
            entry = self.counted_blocks[id(stmts)] = (stmts, Body(stmts, self, counted=True))
        return entry[1]


def code_cache(rulebook: Any, program: Program) -> CodeCache:
    """The rulebook's code, made on first use (a rulebook-like object without one gets a new one)."""
    cache = getattr(rulebook, "code_cache", None)
    if cache is None or cache.program is not program:
        cache = CodeCache(program, getattr(rulebook, "digest", None))
        cache.card_labels = shared_dict(rulebook, "label_cache")
        with contextlib.suppress(AttributeError):
            rulebook.code_cache = cache
    return cache


# ---------------------------------------------------------------------------- compiling


def _matcher(rule: s.RuleDecl, holds: Code, cache: CodeCache) -> Callable[[Context], dict[str, Any] | None] | None:
    """`CodeCache.matcher`, made."""
    bindings = rule.bindings
    if not bindings:

        def match_none(g: Context) -> dict[str, Any] | None:
            env: dict[str, Any] = {}
            return env if holds(g, env) else None

        return match_none
    if len(bindings) > 1:
        return None
    (binding,) = bindings
    name, node, span, source = binding.name, binding.source, binding.span, cache.value(binding.source)

    def match_one(g: Context) -> dict[str, Any] | None:
        env: dict[str, Any] = {}
        items = source(g, env)
        if items.__class__ is not tuple:
            items = g.as_list(items, node)
        for v in items:
            # (`g.charge(WORK_PER_CALL, span)`, as the general search charges each value bound, written out)
            g.work_left -= WORK_PER_CALL
            if g.work_left < 0:
                g.charge(0, span)
            env[name] = v
            if holds(g, env):
                return dict(env)
        return None

    return match_one


def _zone_items(source: Code, e: Any, cache: CodeCache) -> Code | None:
    """For a list operand naming a keyed zone (`slot[p, 1, 2]`), a closure giving the zone's cards from
    the zone its function gives (a zone of one seat or number read from the module's table of them:
    compile/body.py `_zone_ref`), as `Game.as_list` does; None for any other operand."""
    binding = cache.program.resolution.of(e)
    if binding is None or binding.kind != "zone" or e.__class__ is not s.Index:
        return None

    def zone_cards(g: Context, env: dict[str, Any]) -> Any:
        ref = source(g, env)
        if ref.__class__ is ZoneRef:
            return card_refs(g.state.zones.get(ref.key, ()))
        return g.as_list(ref, e)  # (a local hiding the zone)

    return zone_cards


# ---------------------------------------------------------------------------- blocks


class Body:
    """A block's generated code (compile/blocks.py): `run(g, env, i=0, frame=None)` runs it from statement
    `i`, inline (from its start) or as its frame's step (`BlockFrame.step`, from where the frame is). It is
    made on first use (a procedure's body calls procedures, itself among them; a game runs a part of its
    rules), then the attribute is the generated function. `counted` is rule coverage's build of it
    (`CodeCache.counted`), which keeps its frame's position statement by statement; `end` is the code of
    its frame once at its end (`_stop`)."""

    __slots__ = ("cache", "counted", "end", "run", "stmts")

    def __init__(self, stmts: tuple[s.Stmt, ...], cache: CodeCache, counted: bool = False):
        self.stmts, self.cache, self.counted = stmts, cache, counted
        self.run: Callable[..., Any] = self._first_run
        self.end = _End(self)

    def _first_run(self, g: Context, env: dict[str, Any], i: int = 0, frame: BlockFrame | None = None) -> Any:
        source, namespace, owners = generated_block(self.stmts, self.cache, counted=self.counted)
        _run_source(source, namespace, owners)
        self.run = namespace["run"]
        return self.run(g, env, i, frame)


class _End:
    """The code of a block's frame at the block's end (`_stop`): its step only ends it. (A block with no
    resume point but its start has no arm to skip, so its own code would run it again from there.)"""

    __slots__ = ("body", "end")

    def __init__(self, body: Body):
        self.body, self.end = body, self

    def run(self, g: Context, env: dict[str, Any], i: int, frame: BlockFrame) -> Any:
        # At the block's end the frame's step only pops it, without this call (`BlockFrame.step`); here is a
        # frame `apply` put back before its end (`Keep` keeps a frame's position, not its code): it goes on.
        return self.body.run(g, env, i, frame)


def _stop(g: Context, r: Any, depth: int, body: Body, env: dict[str, Any], i: int) -> Any:
    """A block running inline ends the step after its statement `i - 1`: that statement returned `r`, or
    started work that must wait (the rest of the block becomes a frame below it, which at the block's end
    only ends: `Body.end`) or ended the game. (As its frame's step, the frame keeps where it goes on.)"""
    if r is None:
        r = ENDED if g.state.over else SUSPENDED
    if r is SUSPENDED:  # (done or not: the machine's frame stays until its next step, and counts)
        stmts = body.stmts
        # (`BlockFrame(stmts, env, i, ...)`, its initializer written out: a few times every decision)
        frame = _new_frame(BlockFrame)
        frame.stmts, frame.i, frame.env, frame.code = stmts, i, env, body if i < len(stmts) else body.end
        g.frames.insert(depth, frame)
    return r


_new_frame = object.__new__


# What every block's generated code reads besides its own constants, and the only built-ins it may call.
_BASE: dict[str, Any] = {
    "__builtins__": {"len": len, "enumerate": enumerate, "int": int, "bool": bool},
    "_stop": _stop,
    "_TooDeep": TooDeep,
    "_DEPTH_MESSAGE": DEPTH_MESSAGE,
    "_DEPTH_BUDGET": DEPTH_BUDGET,
    "_INT_BUDGET": INT_BUDGET,
    "_INLINE_DEPTH": INLINE_DEPTH,
    "_ZoneRef": ZoneRef,
    "_CardRef": CardRef,
    "_Player": Player,
    "_zone_key": zone_key,
    "_Returned": Returned,
    "_BlockFrame": BlockFrame,
    "_ForFrame": ForFrame,
    "_CallFrame": CallFrame,
    "_SUSPENDED": SUSPENDED,
    "_ENDED": ENDED,
    "_tuple": tuple,
    "_Record": Record,
    "_HELD": frozenset({ZoneRef, tuple, Record}),  # what a local holds only through `Game.held`
    "_M": object(),  # (what no local name holds: `env.get`'s default)
}
# The compiled source of each shape of block: blocks of the same shape (their constants aside) share it.
_COMPILED: dict[str, Any] = {}
_COMPILED_MAX = 4096


class _Parts:
    """The constants of one block's generated code (compile/blocks.py, `Parts`), and what each was made
    of (`asked`: the kind of code and its node, which `rulecraft compile --blocks` describes)."""

    def __init__(self, cache: CodeCache):
        self.cache = cache
        self.namespace = dict(_BASE)
        self.bodies: dict[int, str] = {}
        self.asked: dict[str, tuple[str, Any]] = {}
        self.reads_in_place = not cache.probed

    def const(self, value: Any, kind: str = "constant", of: Any = None) -> str:
        name = f"c{len(self.namespace) - len(_BASE)}"
        self.namespace[name] = value
        self.asked[name] = (kind, value if of is None else of)
        return name

    def value(self, e: s.Expr) -> str:
        return self.const(self.cache.value(e), "value", e)

    def truth(self, e: s.Expr) -> str:
        return self.const(self.cache.truth(e), "truth", e)

    def items(self, e: s.Expr) -> str | None:
        zone = _zone_items(self.cache.value(e), e, self.cache)
        return self.const(zone, "items", e) if zone is not None else None

    def body(self, stmts: tuple[s.Stmt, ...]) -> str:
        name = self.bodies.get(id(stmts))
        if name is None:
            name = self.bodies[id(stmts)] = self.const(self.cache.block(stmts), "block", stmts)
        return name

    def method(self, st: s.Stmt) -> str:
        return self.const(_EXEC[st.__class__], "method", st)

    def local(self, e: s.Expr) -> bool:
        binding = self.cache.program.resolution.of(e)
        return binding is not None and binding.kind == "local"


def generated_block(
    stmts: tuple[s.Stmt, ...],
    cache: CodeCache,
    asked: dict[str, tuple[str, Any]] | None = None,
    counted: bool = False,
) -> tuple[str, dict[str, Any], tuple[int, ...]]:
    """A block's generated source, of its `run` (compile/blocks.py), the namespace it runs in (its
    constants) and the statement each of its lines belongs to; `asked`, if given, gets what each constant
    was made of (`_Parts.asked`); `counted`: rule coverage's build (`Body.counted`)."""
    parts = _Parts(cache)
    costs = tuple(node_count(st) for st in stmts)
    run, owners = block_source(stmts, costs, cache.program, parts, counted)
    if asked is not None:
        asked.update(parts.asked)
    return run, parts.namespace, owners


def _run_source(source: str, namespace: dict[str, Any], owners: tuple[int, ...] | None = None) -> None:
    code = _COMPILED.get(source)
    if code is None:
        if len(_COMPILED) >= _COMPILED_MAX:
            for old in _COMPILED.values():
                linecache.cache.pop(old.co_filename, None)
                STATEMENT_LINES.pop(old.co_filename, None)
            _COMPILED.clear()
        # Named by its shape, so that a profile or a traceback tells the shapes apart (a profiler keys
        # functions by file, line and name: one name for them all would merge them); a traceback
        # shows its lines (`rulecraft compile --blocks` shows which block is which).
        name = f"<generated block {hashlib.sha1(source.encode()).hexdigest()[:12]}>"
        code = _COMPILED[source] = compile(source, name, "exec")
        linecache.cache[name] = (len(source), None, source.splitlines(True), name)
        if owners is not None:
            STATEMENT_LINES[name] = owners
    exec(code, namespace)


def _statement(st: s.Stmt, cache: CodeCache) -> Code:
    """A `set`, `move` or `create` alone, as generated code (`Game.execute`: a scenario's edits)."""
    if not isinstance(st, (s.SetVar, s.Move, s.Create)):
        raise TypeError(f"not a set, move or create: {st!r}")
    parts = _Parts(cache)
    _run_source(statement_source(st, cache.program, parts), parts.namespace)
    do: Code = parts.namespace["do"]
    return do
