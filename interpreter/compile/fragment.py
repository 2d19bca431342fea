"""The code of an expression from outside the program (a scenario's `expect` or edit, a test's): a module of
one function `r(g, env)`, generated as a root's is (compile/body.py), its names resolved as the runtime
resolves such an expression's (`Game.binding`: by name, `unchecked_binding`). runtime/compiled.py runs
it (`Compiled.fragment`)."""

from __future__ import annotations

import copy
from typing import Any

import attrs

from ..check.fragment import unchecked_binding
from ..check.program import Program
from ..syntax import ast as s
from .body import Body
from .generate import EXPRESSIONS, Generator


class _Everywhere:
    """Every name: in an expression from outside the program, a local of the caller's `env` may hide any global."""

    def __contains__(self, name: object) -> bool:
        return True


class _Unchecked:
    """The resolution an expression from outside the program is generated with (a scenario's `expect`, a
    test's): a node of the program as the checker resolved it, any other as the runtime resolves it by
    name (`unchecked_binding`, as `Game.binding` does); a name unresolved is a local, read from `env`
    first and else by name (`Game.global_value`), as the definition reads a name."""

    def __init__(self, program: Program):
        self.program = program
        self.resolution = program.resolution
        self.keys = program.resolution.keys
        self.locals = _Everywhere()

    def of(self, e: Any) -> Any:
        found = self.resolution.of(e)
        if found is not None or e.__class__ is s.Name:
            return found
        if (e.__class__ is s.Index or e.__class__ is s.FieldAccess) and self.resolution.of(e.obj) is not None:
            return None  # (`xs[0]`, `c.n` of a program's local: a list's element, a field)
        return unchecked_binding(self.program, e)


def fragment(base: Generator, e: Any) -> tuple[str, tuple[Any, ...]]:
    """The source of a module of one function `r(g, env)`, the value of expression `e`, which is not a root
    of the program (made outside it: a scenario's `expect`, a test's), and its expression nodes (its `_N`).
    `base` is a generator of the program (read, never changed). A call of a `fn` in it is `c<i>(g, k,
    *args)`, which the runtime gives as `Game.call_fn` (its charge, its depth, its body's root)."""
    nodes: list[Any] = []
    stack = [e]
    while stack:
        node = stack.pop()
        if isinstance(node, tuple):
            stack.extend(reversed(node))
        elif attrs.has(node.__class__):
            if isinstance(node, EXPRESSIONS):
                nodes.append(node)
            stack.extend(reversed([getattr(node, f.name) for f in attrs.fields(node.__class__) if f.name != "span"]))
    gen = copy.copy(base)
    gen.resolution = _Unchecked(base.program)  # type: ignore[assignment]  # (a resolution's reading)
    gen.probe, gen.nodes = False, nodes
    gen.number = {id(n): k for k, n in enumerate(nodes)}
    gen.record_fields = base.record_fields | {i.name for n in nodes if n.__class__ is s.RecordLit for i in n.inits}
    gen.lines, gen.prologue, gen.constants = [], [], {}
    gen.memo_calls, gen.inlined, gen.remembered_rules = {}, frozenset(), {}
    body = Body(gen, env=True, scope={})
    result = body.value(e)
    lines = [f"    {local} = env.get({name!r}, _M)" for name, local in body.hoisted.items()]
    lines += ["    " * indent + text for indent, text, _ in body.lines]
    return "\n".join([*gen.prologue, "def r(g, env):", *lines, f"    return {result}", ""]), tuple(nodes)
