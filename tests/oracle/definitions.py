"""The oracle: the meaning of each kind of expression, node by node, as a tree-walk, which the tests compare
the generated code with (tests/test_generated.py, tests/test_compile.py). The runtime never reaches it:
every expression runs as generated code (runtime/compiled.py), which hands the unusual case of an
operation to runtime/operations.py, as this walk does once it has the operands' values.

One function a kind of node, `eval_<kind>(g, e, env)`, over the game as the `Defining` protocol; an
operand is evaluated by the walk again (`EVAL[node.__class__]`, `walk`, `holds`). What lies outside the
expression is the game's: a `fn`'s body (`Game.call_fn`), a constant, a variable's initial value.
"""

from __future__ import annotations

from typing import Any, Protocol

from rulecraft.check.resolve import Binding
from rulecraft.language.builtins import BUILTINS, sort_work
from rulecraft.language.values import CardRef, Record, ZoneRef, zone_key
from rulecraft.runtime import operations
from rulecraft.runtime.basics import VALUE_ERRORS, query_by_keys
from rulecraft.runtime.context import Context
from rulecraft.runtime.core import MISSING, restore_local
from rulecraft.syntax import ast as s


class Defining(Context, Protocol):
    """A game as the definitions read it (`Game` has it all): its `Context`, with the value of an
    expression by its generated code and what the checker resolved a node to."""

    def evaluate(self, e: s.Expr, env: dict[str, Any]) -> Any: ...

    def binding(self, e: s.Expr, checked: s.Expr | None = None) -> Binding | None: ...

    def zone_of_card(self, card: CardRef) -> ZoneRef: ...  # (what a built-in reads: builtins.py `Machine`)


def eval_name(g: Defining, e: s.Name, env: dict[str, Any]) -> Any:
    id = e.id
    if id in env:  # a local; or a global hidden at run time by a local of the statement (resolve.py)
        return env[id]
    return g.global_value(id, e)


def eval_literal(g: Defining, e: s.IntLit | s.StrLit | s.BoolLit, env: dict[str, Any]) -> Any:
    return e.value


def eval_template(g: Defining, e: s.Template, env: dict[str, Any]) -> str:
    """The text with each placeholder's value written as its label (each label bounded as it is
    written, the whole checked and charged before it is joined)."""
    parts = [p if isinstance(p, str) else g.label(walk(g, p, env)) for p in e.parts]
    return g.text(parts, e)


def eval_field(g: Defining, e: s.FieldAccess, env: dict[str, Any]) -> Any:
    obj, name = e.obj, e.name
    if obj.__class__ is s.Name:  # the common `it.colour`, `c.value`, `Colour.red`
        id = obj.id
        if id in env:
            v = env[id]
        else:
            binding = g.binding(e, obj)
            if binding is not None and binding.kind == "enum_member":
                return g.program.enum_value(binding.name, name)
            v = g.global_value(id, obj)
    else:
        v = EVAL[obj.__class__](g, obj, env)
    return operations.field(g, e, v)


def eval_index(g: Defining, e: s.Index, env: dict[str, Any]) -> Any:
    obj, args = e.obj, e.args
    if obj.__class__ is s.Name and obj.id not in env:
        binding = g.binding(e, obj)
        if binding is not None and binding.kind == "zone":
            return ZoneRef(binding.name, tuple([EVAL[a.__class__](g, a, env) for a in args]))
        if binding is not None and binding.kind == "keyed_var":  # else `xs[0]` of its list
            key = zone_key(binding.name, tuple([EVAL[a.__class__](g, a, env) for a in args]))
            return g.variable(binding.name, key)
    seq = g.as_list(EVAL[obj.__class__](g, obj, env), obj)
    return operations.index(g, e, seq, walk(g, args[0], env))


def eval_call(g: Defining, e: s.Call, env: dict[str, Any]) -> Any:
    name = e.name
    binding = g.binding(e)
    if binding is not None and binding.kind == "fn":
        return g.call_fn(name, tuple([EVAL[a.__class__](g, a, env) for a in e.args]), e.span)
    if name not in BUILTINS:
        raise operations.unknown_function(g, e)
    return operations.builtin(g, e, [walk(g, a, env) for a in e.args])


def eval_compare(g: Defining, e: s.Compare, env: dict[str, Any]) -> Any:
    a, b = EVAL[e.left.__class__](g, e.left, env), EVAL[e.right.__class__](g, e.right, env)
    return operations.compare(g, e, a, b)


def eval_and(g: Defining, e: s.And, env: dict[str, Any]) -> Any:
    return holds(g, e.left, env) and holds(g, e.right, env)


def eval_or(g: Defining, e: s.Or, env: dict[str, Any]) -> Any:
    return holds(g, e.left, env) or holds(g, e.right, env)


def eval_not(g: Defining, e: s.Not, env: dict[str, Any]) -> Any:
    return not holds(g, e.operand, env)


def eval_binary(g: Defining, e: s.Binary, env: dict[str, Any]) -> Any:
    left, right = e.left, e.right
    return operations.binary(g, e, EVAL[left.__class__](g, left, env), EVAL[right.__class__](g, right, env))


def eval_in(g: Defining, e: s.In, env: dict[str, Any]) -> Any:
    v = EVAL[e.item.__class__](g, e.item, env)
    return operations.member(g, e, v, EVAL[e.collection.__class__](g, e.collection, env))


def eval_query(g: Defining, e: s.Query, env: dict[str, Any]) -> Any:
    items = g.as_list(EVAL[e.source.__class__](g, e.source, env), e.source)
    try:
        return _query(g, e.op, items, e.key, env)
    except VALUE_ERRORS:
        raise operations.query_error(g, e) from None


def eval_list(g: Defining, e: s.ListLit, env: dict[str, Any]) -> Any:
    return tuple([EVAL[i.__class__](g, i, env) for i in e.items])


def eval_comprehension(g: Defining, e: s.Comprehension, env: dict[str, Any]) -> Any:
    element, var, source, cond = e.element, e.var, e.source, e.condition
    out: list[Any] = []
    add = out.extend if e.flat else out.append  # a flat one joins its inner comprehension's lists
    saved = env.get(var, MISSING)
    items = g.as_list(EVAL[source.__class__](g, source, env), source)
    g.charge(len(items), e)
    try:  # a failure inside leaves the locals as they were: an attempt's `else` runs with them
        for v in items:
            env[var] = v
            if cond is None or holds(g, cond, env):
                add(EVAL[element.__class__](g, element, env))
    finally:
        restore_local(env, var, saved)
    return tuple(out)


def eval_range(g: Defining, e: s.RangeOp, env: dict[str, Any]) -> Any:
    lo, hi = EVAL[e.low.__class__](g, e.low, env), EVAL[e.high.__class__](g, e.high, env)
    return operations.span(g, e, lo, hi)


def eval_neg(g: Defining, e: s.Neg, env: dict[str, Any]) -> Any:
    return operations.negate(g, e, EVAL[e.operand.__class__](g, e.operand, env))


def eval_cond(g: Defining, e: s.CondExpr, env: dict[str, Any]) -> Any:
    branch = e.then if holds(g, e.condition, env) else e.otherwise
    return EVAL[branch.__class__](g, branch, env)


def eval_record(g: Defining, e: s.RecordLit, env: dict[str, Any]) -> Any:
    return Record({i.name: EVAL[i.value.__class__](g, i.value, env) for i in e.inits})


def eval_none(g: Defining, e: s.NoneLit, env: dict[str, Any]) -> Any:
    return None


def _query(g: Defining, op: str, items: tuple[Any, ...], key: s.Expr, env: dict[str, Any]) -> Any:
    g.charge(len(items), key)
    saved = env.get("it", MISSING)
    try:
        if op == "where":
            out = []
            for v in items:
                env["it"] = v
                if holds(g, key, env):
                    out.append(v)
            return tuple(out)
        keys = []
        for v in items:
            env["it"] = v
            keys.append(walk(g, key, env))
    finally:
        restore_local(env, "it", saved)
    if op != "map":
        g.charge(sort_work(keys), key)
    return query_by_keys(op, items, keys)


def walk(g: Defining, e: s.Expr, env: dict[str, Any]) -> Any:
    """The value of an expression by the walk."""
    return EVAL[e.__class__](g, e, env)


def holds(g: Defining, e: s.Expr, env: dict[str, Any]) -> bool:
    """The value of a condition by the walk: true or false, else the located error (`Game.truth_of`)."""
    v = EVAL[e.__class__](g, e, env)
    return v if v.__class__ is bool else g.truth_of(v, e)


def evaluate(g: Any, e: s.Expr, env: dict[str, Any]) -> Any:
    """The value of an expression by the definition alone, without generated code (but for what lies
    outside it: a `fn`'s body, a constant): what the tests compare the generated code with."""
    method = EVAL.get(e.__class__)
    if method is None:
        raise TypeError(f"not an expression: {e!r}")
    return method(g, e, env)


# The definition of each kind of expression.
EVAL: dict[type, Any] = {
    s.IntLit: eval_literal,
    s.StrLit: eval_literal,
    s.Template: eval_template,
    s.BoolLit: eval_literal,
    s.NoneLit: eval_none,
    s.Name: eval_name,
    s.ListLit: eval_list,
    s.Comprehension: eval_comprehension,
    s.RecordLit: eval_record,
    s.FieldAccess: eval_field,
    s.Index: eval_index,
    s.Call: eval_call,
    s.Neg: eval_neg,
    s.Binary: eval_binary,
    s.RangeOp: eval_range,
    s.Compare: eval_compare,
    s.In: eval_in,
    s.Not: eval_not,
    s.And: eval_and,
    s.Or: eval_or,
    s.Query: eval_query,
    s.CondExpr: eval_cond,
}
