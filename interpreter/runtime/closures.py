"""Expressions compiled once into Python closures, so that running a rule does not walk its AST.

`Game._eval(e, env)` is the meaning of an expression; the methods `Game._eval_*` spell it out
node by node. This module turns each expression node, the first time it is evaluated, into a
closure `code(game, env) -> value` that does the same with the decisions that depend only on the
text taken once: which kind of node, which operator, whether a name is a zone, a variable, a
constant or an enumeration, which function a call reaches, and the closures of its operands.

Every closure does the common case inline and hands anything unusual (a value of the wrong kind,
an index out of range, a number too large) to the node's `Game._eval_*` method, which evaluates
the node again and reports the located error. Expressions have no effects, so evaluating one
twice changes nothing; the slow path is therefore the definition, and the closures only a
faster way to the same value. `tests/test_closures.py` checks the two against each other.

Statements have one definition each. The common ones (`let`, `x = ...`, `set`, `move`,
`create`, `if`, `for`, a procedure call) are defined here, as closures; the others (those that
ask, push a frame of their own or end the game) by their `Game._exec_*` method, which their
closure calls. `_compile_stmt` is one `match` over every kind of statement, so a forgotten one is
a type error. A block's closures are run one after another by its frame (see `BlockFrame.step`).

A function whose body does real work (a comprehension, a query or a call) keeps its values in
the game's memo, by arguments, until the state next changes: every change goes through the
runtime's `_move`, `_set_var`, `_set_field`, `_create`, `_undo` or `arrange`, which empty it, and
code that changes a state from outside says so with `Game.state_changed()`. Functions cannot
change the state, so within one state a call with the same arguments has the same value. (One
difference from evaluating anew: a value remembered from a shallow call is reused by a deeper
one, so a recursion that would pass the function-depth budget only when called deep may finish.)

The closures of a rulebook are kept with it (`code_cache`), shared by all its games, keyed by
node identity (each entry holds its node, so an identity is never reused while its entry lives).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, assert_never

import attrs

from ..language.builtins import BUILTINS, LIST_BUDGET
from ..language.values import CardRef, EnumValue, Player, Record, ZoneRef, contains, zone_key
from ..syntax import ast as s
from . import compiled
from .machine import (
    FN_DEPTH_BUDGET,
    INT_BUDGET,
    TEXT_BUDGET,
    VALUE_ERRORS,
    BlockFrame,
    CallFrame,
    ForFrame,
    attrs_fields,
    card_refs,
    query_by_keys,
)

if TYPE_CHECKING:
    from ..check.checker import Program
    from .game import Game

Code = Callable[["Game", dict[str, Any]], Any]

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


_MISSING = object()
_SMALL = 1 << 31  # products of numbers below this in size are far inside the number budget


class CodeCache:
    """The closures of one rulebook's expressions: values, and truths (values that must be booleans)."""

    def __init__(self, program: Program, digest: str | None = None, probe: Code | None = None):
        self.program = program
        self.compiled = compiled.compile_program(program, digest, probe)
        self.values: dict[int, tuple[Any, Code]] = {}
        self.truths: dict[int, tuple[Any, Code]] = {}
        self.blocks: dict[int, tuple[Any, tuple[Code, ...]]] = {}

    def value(self, e: Any) -> Code:
        entry = self.values.get(id(e))
        if entry is None or entry[0] is not e:
            entry = self.values[id(e)] = (e, self.compiled.root(e) or _compile(e, self))
        return entry[1]

    def truth(self, e: Any) -> Code:
        entry = self.truths.get(id(e))
        if entry is None or entry[0] is not e:
            entry = self.truths[id(e)] = (e, _compile_truth(e, self))
        return entry[1]

    def statement(self, st: s.Stmt) -> Code:
        """The closure of one statement run on its own (not kept: a scenario's edit runs once)."""
        return _compile_stmt(st, self)

    def block(self, stmts: tuple[Any, ...]) -> tuple[Code, ...]:
        """The closures of a block's statements, in order."""
        entry = self.blocks.get(id(stmts))
        if entry is None or entry[0] is not stmts:
            entry = self.blocks[id(stmts)] = (stmts, tuple(_compile_stmt(st, self) for st in stmts))
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


def _compile_truth(e: Any, cache: CodeCache) -> Code:
    """A closure for a condition: its value, which must be a boolean (else the located error of `_truth`)."""
    if isinstance(e, s.Compare | s.In | s.Not | s.And | s.Or | s.BoolLit):
        return cache.value(e)  # these are booleans by construction
    code = cache.value(e)

    def truth(g: Game, env: dict[str, Any]) -> Any:
        v = code(g, env)
        if v.__class__ is not bool:
            return g._truth_of(v, e)
        return v

    return truth


def _compile(e: Any, cache: CodeCache) -> Code:
    cls = e.__class__
    if cls in (s.IntLit, s.StrLit, s.BoolLit):
        value = e.value
        return lambda g, env: value
    if cls is s.NoneLit:
        return lambda g, env: None
    if cls is s.Name:
        return _name(e, cache.program)
    if cls is s.Index:
        return _index(e, cache)
    if cls is s.FieldAccess:
        return _field(e, cache)
    if cls is s.Call:
        return _call(e, cache)
    if cls is s.Compare:
        return _compare(e, cache)
    if cls is s.Binary:
        return _binary(e, cache)
    if cls is s.And:
        left, right = cache.truth(e.left), cache.truth(e.right)
        return lambda g, env: left(g, env) and right(g, env)
    if cls is s.Or:
        left, right = cache.truth(e.left), cache.truth(e.right)
        return lambda g, env: left(g, env) or right(g, env)
    if cls is s.Not:
        operand = cache.truth(e.operand)
        return lambda g, env: not operand(g, env)
    if cls is s.In:
        return _in(e, cache)
    if cls is s.Comprehension:
        return _comprehension(e, cache)
    if cls is s.ListLit:
        items = tuple(cache.value(i) for i in e.items)
        return lambda g, env: tuple([item(g, env) for item in items])
    if cls is s.CondExpr:
        cond, then, otherwise = cache.truth(e.condition), cache.value(e.then), cache.value(e.otherwise)
        return lambda g, env: then(g, env) if cond(g, env) else otherwise(g, env)
    if cls is s.Query:
        return _query(e, cache)
    if cls is s.Neg:
        return _neg(e, cache)
    if cls is s.RangeOp:
        return _range(e, cache)
    if cls is s.Template:
        return _template(e, cache)
    return _slow(e)  # record literals: rare, and cheap enough as they are


def _template(e: s.Template, cache: CodeCache) -> Code:
    parts = tuple(p if isinstance(p, str) else cache.value(p) for p in e.parts)

    def text(g: Game, env: dict[str, Any]) -> str:
        return "".join(p if p.__class__ is str else g.label(p(g, env)) for p in parts)  # type: ignore[operator]

    return text


def _range(e: s.RangeOp, cache: CodeCache) -> Code:

    low, high, slow = cache.value(e.low), cache.value(e.high), _slow(e)

    def range_(g: Game, env: dict[str, Any]) -> Any:
        lo, hi = low(g, env), high(g, env)
        if lo.__class__ is int and hi.__class__ is int and hi - lo < LIST_BUDGET:
            return tuple(range(lo, hi + 1))
        return slow(g, env)

    return range_


def _name(e: s.Name, program: Program) -> Code:
    name = e.id
    missing = _MISSING
    if name in program.consts:

        def const(g: Game, env: dict[str, Any]) -> Any:
            v = env.get(name, missing)
            if v is not missing:
                return v
            consts = g._consts
            if name in consts:
                return consts[name]
            return g._global(name, e)

        return const
    if name == "players":

        def players(g: Game, env: dict[str, Any]) -> Any:
            v = env.get(name, missing)
            return g._players if v is missing else v

        return players
    if (
        name in program.vars
        and not program.vars[name].keys
        and name not in program.members
        and name not in program.enums
        and name not in program.zones
        and name not in ("player_count", "table")
    ):

        def var(g: Game, env: dict[str, Any]) -> Any:
            v = env.get(name, missing)
            if v is not missing:
                return v
            vars_ = g.state.vars
            return vars_[name] if name in vars_ else g._global(name, e)

        return var

    if not _is_global(name, program):

        def local(g: Game, env: dict[str, Any]) -> Any:
            try:
                return env[name]
            except KeyError:
                return g._global(name, e)  # its located error

        return local

    def local_or_global(g: Game, env: dict[str, Any]) -> Any:
        v = env.get(name, missing)
        return g._global(name, e) if v is missing else v

    return local_or_global


def _is_global(name: str, program: Program) -> bool:
    """Whether a name means something outside a body (else it can only be a local name)."""
    return (
        name in program.consts
        or name in program.vars
        or name in program.zones
        or name in program.enums
        or name in program.members
        or name in ("players", "player_count", "table")
    )


def _index(e: s.Index, cache: CodeCache) -> Code:
    obj, program, slow = e.obj, cache.program, _slow(e)
    args = tuple(cache.value(a) for a in e.args)
    missing = _MISSING
    if obj.__class__ is s.Name and obj.id in program.zones:
        name = obj.id

        def zone(g: Game, env: dict[str, Any]) -> Any:
            if name in env:
                return slow(g, env)
            return ZoneRef(name, tuple([a(g, env) for a in args]))

        return zone
    if obj.__class__ is s.Name and obj.id in program.vars and program.vars[obj.id].keys:
        # a keyed variable's value (a variable without keys is indexed as its list, below)
        name = obj.id
        init = program.vars[name].init
        # A keyed variable reads its initial value until first set: a literal one is known now.
        default = (
            init.value
            if init.__class__ in (s.IntLit, s.StrLit, s.BoolLit)
            else None
            if init.__class__ is s.NoneLit
            else missing
        )
        if len(args) == 1:
            at = args[0]

            def var1(g: Game, env: dict[str, Any]) -> Any:
                if name in env:
                    return slow(g, env)
                k = at(g, env)
                cls = k.__class__
                # zone_key's own spelling of one key, inline
                key = (
                    f"{name}[{k}]"
                    if cls is int
                    else f"{name}[P{k.index + 1}]"
                    if cls is Player
                    else f"{name}[{k.key}]"
                    if cls is EnumValue
                    else zone_key(name, (k,))
                )
                v = g.state.vars.get(key, missing)
                if v is not missing:
                    return v
                return default if default is not missing else g._var(name, key)

            return var1

        def var(g: Game, env: dict[str, Any]) -> Any:
            if name in env:
                return slow(g, env)
            key = zone_key(name, tuple([a(g, env) for a in args]))
            v = g.state.vars.get(key, missing)
            if v is not missing:
                return v
            return default if default is not missing else g._var(name, key)

        return var
    seq_code = cache.value(obj)
    at = args[0]

    def item(g: Game, env: dict[str, Any]) -> Any:
        seq = seq_code(g, env)
        i = at(g, env)
        if seq.__class__ is tuple and i.__class__ is int and -len(seq) <= i < len(seq):
            return seq[i]
        return slow(g, env)

    return item


def _field(e: s.FieldAccess, cache: CodeCache) -> Code:
    obj, name, program, slow = e.obj, e.name, cache.program, _slow(e)
    missing = _MISSING
    having: set[type] = set()  # the card classes seen here that declare the field
    if obj.__class__ is s.Name:
        oid = obj.id
        member = None
        if oid in program.enums:
            with contextlib.suppress(KeyError):
                member = program.enum_value(oid, name)
        if member is not None:

            def enum_member(g: Game, env: dict[str, Any]) -> Any:
                return member if oid not in env else slow(g, env)

            return enum_member

        def of_local(g: Game, env: dict[str, Any]) -> Any:
            v = env.get(oid, missing)
            if v.__class__ is CardRef:
                card = g.state.cards[v.id]
                if card.__class__ in having or _has_field(card.__class__, name, having):
                    return getattr(card, name)
            elif v.__class__ is Record and v.has(name):
                return v.get(name)
            return slow(g, env)

        return of_local
    code = cache.value(obj)

    def of_value(g: Game, env: dict[str, Any]) -> Any:
        v = code(g, env)
        if v.__class__ is CardRef:
            card = g.state.cards[v.id]
            if card.__class__ in having or _has_field(card.__class__, name, having):
                return getattr(card, name)
        elif v.__class__ is Record and v.has(name):
            return v.get(name)
        return slow(g, env)

    return of_value


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


def _worth_remembering(fn: s.FnDecl) -> bool:
    """Whether a function's values are kept until the state changes: it does real work, and its arguments
    are typed, so that equal keys mean equal arguments (as keys, Python's `true` and `1` are one)."""
    if any(_holds_any(p.type) for p in fn.params):
        return False
    work = (s.Comprehension, s.Query, s.Call)
    stack: list[Any] = [fn.body]
    while stack:
        node = stack.pop()
        if isinstance(node, work):
            return True
        if isinstance(node, tuple):
            stack.extend(node)
        elif attrs.has(node.__class__):
            stack.extend(getattr(node, f.name) for f in attrs.fields(node.__class__) if f.name != "span")
    return False


def _holds_any(type_: Any) -> bool:
    """Whether a parameter's type is `any` or a list of it."""
    if isinstance(type_, s.ListType):
        return _holds_any(type_.element)
    return isinstance(type_, s.NamedType) and type_.name == "any"


def _has_field(cls: type, name: str, having: set[type]) -> bool:
    """Whether cards of this class declare the field (remembered in `having` if so)."""

    if name in attrs_fields(cls):
        having.add(cls)
        return True
    return False


def _call(e: s.Call, cache: CodeCache) -> Code:

    name, program = e.name, cache.program
    args = tuple(cache.value(a) for a in e.args)
    if name in program.fns:
        fn = program.fns[name]
        params = tuple(p.name for p in fn.params)
        body: list[Code] = []  # compiled at the first call: a function may call itself

        make_env = _arguments(params, args)
        if not _worth_remembering(fn):

            def call_fn(g: Game, env: dict[str, Any]) -> Any:
                new_env = make_env(g, env)
                if g._fn_depth >= FN_DEPTH_BUDGET:
                    return g._call_fn(name, tuple(new_env.values()), e.span)  # the runaway error
                if not body:
                    body.append(cache.value(fn.body))
                g._fn_depth += 1
                try:
                    return body[0](g, new_env)
                finally:
                    g._fn_depth -= 1

            return call_fn
        missing = _MISSING

        def call_remembered(g: Game, env: dict[str, Any]) -> Any:
            new_env = make_env(g, env)
            if g._fn_depth >= FN_DEPTH_BUDGET:
                return g._call_fn(name, tuple(new_env.values()), e.span)  # the runaway error
            key = (name, *new_env.values())
            memo = g._memo
            try:
                v = memo.get(key, missing)
            except TypeError:  # an argument that cannot be a key: compute it each time
                memo, v = {}, missing
            if v is not missing:
                return v
            if not body:
                body.append(cache.value(fn.body))
            g._fn_depth += 1
            try:
                v = body[0](g, new_env)
            finally:
                g._fn_depth -= 1
            with contextlib.suppress(TypeError):
                memo[key] = v
            return v

        return call_remembered
    slow = _slow(e)
    if name in ("len", "count") and len(args) == 1:
        arg, node = args[0], e.args[0]
        if (
            node.__class__ is s.Index
            and node.obj.__class__ is s.Name
            and node.obj.id in program.zones
            and len(node.args) > 1
        ):
            zone_name, keys = node.obj.id, tuple(cache.value(a) for a in node.args)

            def zone_size_keyed(g: Game, env: dict[str, Any]) -> Any:
                values = tuple([k(g, env) for k in keys])
                if zone_name in env or None in values:
                    return slow(g, env)
                return len(g.state.zones.get(zone_key(zone_name, values), ()))

            return zone_size_keyed
        if (
            node.__class__ is s.Index
            and node.obj.__class__ is s.Name
            and node.obj.id in program.zones
            and len(node.args) == 1
        ):
            # `len(hand[p])`: the size of a zone, without making a reference to it
            zone_name, at = node.obj.id, cache.value(node.args[0])

            def zone_size(g: Game, env: dict[str, Any]) -> Any:
                k = at(g, env)
                cls = k.__class__
                if zone_name in env or k is None:
                    return slow(g, env)
                key = (
                    f"{zone_name}[{k}]"
                    if cls is int
                    else f"{zone_name}[P{k.index + 1}]"
                    if cls is Player
                    else f"{zone_name}[{k.key}]"
                    if cls is EnumValue
                    else zone_key(zone_name, (k,))
                )
                return len(g.state.zones.get(key, ()))

            return zone_size

        def length(g: Game, env: dict[str, Any]) -> Any:
            v = arg(g, env)
            if v.__class__ is ZoneRef:
                if None not in v.keys:
                    return len(g.state.zones.get(v.key, ()))
            elif v.__class__ is tuple:
                return len(v)
            return slow(g, env)

        return length
    if name in ("any", "all") and len(args) == 1:
        arg, test = args[0], any if name == "any" else all

        def quantifier(g: Game, env: dict[str, Any]) -> Any:
            v = arg(g, env)
            if v.__class__ is tuple:
                return test(v)
            return slow(g, env)

        return quantifier

    found = BUILTINS.get(name)
    if found is None:
        return slow  # the evaluator names the unknown function
    run = found.run

    def builtin(g: Game, env: dict[str, Any]) -> Any:
        values = [a(g, env) for a in args]
        try:
            return run(g, e, values)
        except VALUE_ERRORS:
            return slow(g, env)  # evaluates again and names the values it could not take

    return builtin


def _compare(e: s.Compare, cache: CodeCache) -> Code:
    op, slow = e.op, _slow(e)
    left, right = cache.value(e.left), cache.value(e.right)
    if e.right.__class__ is s.IntLit and op in ("==", "!=", "<", ">", "<=", ">="):
        return _compare_number(e, left, e.right.value, slow)
    if op in ("==", "!="):
        equal = op == "=="

        def same(g: Game, env: dict[str, Any]) -> Any:  # `same`, inline
            a, b = left(g, env), right(g, env)
            if a is b:
                return equal
            ca, cb = a.__class__, b.__class__
            if ca is EnumValue and cb is EnumValue:
                return (a.index == b.index and a.enum == b.enum) is equal
            if (ca is bool) is not (cb is bool):
                return not equal
            return bool(a == b) is equal

        return same
    if op == "<":

        def lt(g: Game, env: dict[str, Any]) -> Any:
            a, b = left(g, env), right(g, env)
            return a < b if a.__class__ is int and b.__class__ is int else slow(g, env)

        return lt
    if op == ">":

        def gt(g: Game, env: dict[str, Any]) -> Any:
            a, b = left(g, env), right(g, env)
            return a > b if a.__class__ is int and b.__class__ is int else slow(g, env)

        return gt
    if op == "<=":

        def le(g: Game, env: dict[str, Any]) -> Any:
            a, b = left(g, env), right(g, env)
            return a <= b if a.__class__ is int and b.__class__ is int else slow(g, env)

        return le

    def ge(g: Game, env: dict[str, Any]) -> Any:
        a, b = left(g, env), right(g, env)
        return a >= b if a.__class__ is int and b.__class__ is int else slow(g, env)

    return ge


def _compare_number(e: s.Compare, left: Code, b: int, slow: Code) -> Code:
    """`x == 0`, `len(xs) > 2`: a comparison with a number written in the text."""
    import operator

    compare = {
        "==": operator.eq,
        "!=": operator.ne,
        "<": operator.lt,
        ">": operator.gt,
        "<=": operator.le,
        ">=": operator.ge,
    }[e.op]
    equality = e.op in ("==", "!=")

    def with_number(g: Game, env: dict[str, Any]) -> Any:
        a = left(g, env)
        if a.__class__ is int:
            return compare(a, b)
        if equality and a.__class__ is not bool:  # a value of another kind is never equal to a number
            return e.op == "!="
        return slow(g, env)

    return with_number


def _binary(e: s.Binary, cache: CodeCache) -> Code:

    op, slow = e.op, _slow(e)
    left, right = cache.value(e.left), cache.value(e.right)
    if op in ("+", "-"):
        plus = op == "+"

        def additive(g: Game, env: dict[str, Any]) -> Any:
            a, b = left(g, env), right(g, env)
            if a.__class__ is int and b.__class__ is int:
                v = a + b if plus else a - b
                if -INT_BUDGET <= v <= INT_BUDGET:
                    return v
            elif plus and a.__class__ is str and b.__class__ is str and len(a) + len(b) <= TEXT_BUDGET:
                return a + b
            elif (
                plus
                and (a.__class__ is tuple or a.__class__ is ZoneRef)
                and (b.__class__ is tuple or b.__class__ is ZoneRef)
            ):
                # lists and zones (`hand[p] + in_play[p]`): the cards of a zone as a list
                xs = a if a.__class__ is tuple else g.as_list(a, e.left)
                ys = b if b.__class__ is tuple else g.as_list(b, e.right)
                if len(xs) + len(ys) <= LIST_BUDGET:
                    return xs + ys
            return slow(g, env)

        return additive
    if op == "*":

        def times(g: Game, env: dict[str, Any]) -> Any:
            a, b = left(g, env), right(g, env)
            if a.__class__ is int and b.__class__ is int and -_SMALL < a < _SMALL and -_SMALL < b < _SMALL:
                return a * b
            return slow(g, env)

        return times
    floor = op == "//"

    def division(g: Game, env: dict[str, Any]) -> Any:
        a, b = left(g, env), right(g, env)
        if a.__class__ is int and b.__class__ is int and b != 0:
            return a // b if floor else a % b
        return slow(g, env)

    return division


def _neg(e: s.Neg, cache: CodeCache) -> Code:
    operand, slow = cache.value(e.operand), _slow(e)

    def neg(g: Game, env: dict[str, Any]) -> Any:
        v = operand(g, env)
        return -v if v.__class__ is int else slow(g, env)

    return neg


def _in(e: s.In, cache: CodeCache) -> Code:

    item, collection, negated, slow = cache.value(e.item), cache.value(e.collection), e.negated, _slow(e)

    def member(g: Game, env: dict[str, Any]) -> Any:
        v = item(g, env)
        seq = collection(g, env)
        if seq.__class__ is not tuple:
            if seq.__class__ is not ZoneRef or None in seq.keys:
                return slow(g, env)
            seq = card_refs(g.state.zones.get(seq.key, ()))
        found = contains(seq, v)
        return not found if negated else found

    return member


def _items(source: Code, e: Any, cache: CodeCache) -> Code:
    """A closure for a list operand: its value as a tuple (a zone's cards, none as empty), via `as_list`."""

    program = cache.program
    if e.__class__ is s.Index and e.obj.__class__ is s.Name and e.obj.id in program.zones:
        # `slot[p, 1, 2]` as a list: the zone's cards, without making a reference to the zone
        name, keys = e.obj.id, tuple(cache.value(a) for a in e.args)

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


def _comprehension(e: s.Comprehension, cache: CodeCache) -> Code:
    element, var = cache.value(e.element), e.var
    source = _items(cache.value(e.source), e.source, cache)
    cond = cache.truth(e.condition) if e.condition is not None else None
    missing = _MISSING

    def comprehension(g: Game, env: dict[str, Any]) -> Any:
        saved = env.get(var, missing)
        out = []
        try:  # a failure inside leaves the locals as they were: an attempt's `else` runs with them
            for v in source(g, env):
                env[var] = v
                if cond is None or cond(g, env):
                    out.append(element(g, env))
        finally:
            if saved is missing:
                env.pop(var, None)
            else:
                env[var] = saved
        return tuple(out)

    return comprehension


def _query(e: s.Query, cache: CodeCache) -> Code:

    source = _items(cache.value(e.source), e.source, cache)
    slow = _slow(e)
    if e.op != "where":
        op, key_of = e.op, cache.value(e.key)
        missing_ = _MISSING

        def query(g: Game, env: dict[str, Any]) -> Any:
            items = source(g, env)
            saved = env.get("it", missing_)
            keys = []
            try:
                for v in items:
                    env["it"] = v
                    keys.append(key_of(g, env))
                return query_by_keys(op, items, keys)
            except VALUE_ERRORS:
                return slow(g, env)  # its message names the query
            finally:
                if saved is missing_:
                    env.pop("it", None)
                else:
                    env["it"] = saved

        return query
    key = cache.truth(e.key)
    missing = _MISSING

    def where(g: Game, env: dict[str, Any]) -> Any:
        items = source(g, env)
        saved = env.get("it", missing)
        out = []
        try:
            for v in items:
                env["it"] = v
                if key(g, env):
                    out.append(v)
        except VALUE_ERRORS:
            return slow(g, env)  # its message names the query
        finally:
            if saved is missing:
                env.pop("it", None)
            else:
                env["it"] = saved
        return tuple(out)

    return where


# ---------------------------------------------------------------------------- statements


def _compile_stmt(st: s.Stmt, cache: CodeCache) -> Code:
    """A closure doing one statement: the common statements are compiled here (their one definition),
    the others call their `Game._exec_*` method (`runtime._EXEC`)."""

    match st:
        case s.Let(name=name, value=value) if not (value.__class__ is s.Call and value.name in cache.program.procs):
            code = cache.value(value)

            def let(g: Game, env: dict[str, Any]) -> None:
                v = code(g, env)
                env[name] = v if v.__class__ is not ZoneRef else g._held(v, value)

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
        case s.CallStmt():
            return _call_proc(st, cache)
        case (
            s.Let()
            | s.SetField()
            | s.Draw()
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
            | s.Return()
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

    def set_var(g: Game, env: dict[str, Any]) -> None:
        key = zone_key(name, tuple([k(g, env) for k in keys]))
        v = value(g, env)
        if holds_list and v.__class__ is ZoneRef:
            v = g.as_list(v, node)  # a list variable holds the cards, not the zone (Game._held)
        if op != "=":
            v = g._arith(op[0], g._var(name, key), v, st.value, st.value, st)
        g._set_var(name, key, v, span)

    return set_var


def _if(st: s.If, cache: CodeCache) -> Code:

    branches = (
        (cache.truth(st.condition), st.then.stmts),
        *((cache.truth(e.condition), e.body.stmts) for e in st.elifs),
    )
    otherwise = st.otherwise.stmts if st.otherwise is not None else None

    def if_(g: Game, env: dict[str, Any]) -> None:
        for cond, stmts in branches:
            if cond(g, env):
                g._push(BlockFrame(stmts, env))
                return
        if otherwise is not None:
            g._push(BlockFrame(otherwise, env))

    return if_


def _call_proc(st: s.CallStmt, cache: CodeCache) -> Code:

    name = st.name
    proc = cache.program.procs[name]
    params = tuple(p.name for p in proc.params)
    args = tuple(cache.value(a) for a in st.args)
    body = proc.body.stmts

    make_env = _arguments(params, args)
    # A zone passed as a `list of T` is its cards at the call (Game._argument).
    lists = tuple((p.name, a) for p, a in zip(proc.params, st.args, strict=True) if p.type.__class__ is s.ListType)

    def call(g: Game, env: dict[str, Any]) -> None:
        new_env = make_env(g, env)
        for param, arg in lists:
            if new_env[param].__class__ is ZoneRef:
                new_env[param] = g.as_list(new_env[param], arg)
        g._push(CallFrame(name, new_env, env, None))
        g._push(BlockFrame(body, new_env))

    return call


def _assign(st: s.Assign, cache: CodeCache) -> Code:
    name, op, value, node = st.name, st.op, cache.value(st.value), st.value

    def assign(g: Game, env: dict[str, Any]) -> None:
        v = value(g, env)
        if v.__class__ is ZoneRef:
            v = g._held(v, node)
        env[name] = v if op == "=" else g._arith(op[0], env[name], v, node, node, st)

    return assign


def _move(st: s.Move, cache: CodeCache) -> Code:
    what_node, to_node, bottom, span = st.what, st.to, st.bottom, st.span
    what, to = cache.value(what_node), cache.value(to_node)

    def move(g: Game, env: dict[str, Any]) -> None:
        v = what(g, env)
        cards = [v] if v.__class__ is CardRef else g._cards(v, what_node)
        g._move(cards, g.zone_value(to(g, env), to_node), bottom, span)

    return move


def _create(st: s.Create, cache: CodeCache) -> Code:
    card_type, span, zone_node, count_node = st.card_type, st.span, st.zone, st.count
    count, zone = cache.value(count_node), cache.value(zone_node)
    inits = tuple((i.name, cache.value(i.value)) for i in st.inits)

    def create(g: Game, env: dict[str, Any]) -> None:
        n = count(g, env)
        if n.__class__ is not int:
            n = g._number_of(count_node, env)  # its located error
        values = {name: value(g, env) for name, value in inits}
        g._create(card_type, n, values, g.zone_value(zone(g, env), zone_node), span)

    return create


def _for(st: s.For, cache: CodeCache) -> Code:

    var, body = st.var, st.body
    source = _items(cache.value(st.source), st.source, cache)

    def for_(g: Game, env: dict[str, Any]) -> None:
        g._push(ForFrame(var, source(g, env), body, env))

    return for_
