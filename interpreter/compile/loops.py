"""The code of a loop over a list: a comprehension, a query (`where`, `map`, `sort by`, `group by`, ...)
and a count of the elements that pass (`len(xs where c)`).

Each loop charges its elements to the work budget at once, before its `for`, and holds the rulebook's
name of the element in a new Python local for the loop's body; the fields its body reads of a name
bound outside it are kept through the loop (`Loop.kept`, body.py's `_invariant`), each read once.
"""

from __future__ import annotations

from typing import Any, Protocol

import attrs

from ..syntax import ast as s


@attrs.define
class Loop:
    """A loop being generated: its element's Python local, where its `for` stands, and the fields it keeps."""

    var: str
    start: int  # the index of its `for` in the lines
    indent: int
    kept: dict[tuple[str, str], str] = attrs.Factory(dict)  # (local, field name) -> the local keeping it
    cards: str | None = None  # the local holding the state's cards through the loop (body.py's `_read_field`)


class Body(Protocol):
    """What a loop's code needs of the function being generated (body.py's `Body` is one): the loops know
    it by these members alone, so that the two modules import each other in one way."""

    indent: int
    at: int
    loops: list[Loop]
    scope: dict[str, str]
    lines: list[tuple[int, str, int]]
    known: dict[str, str]
    gen: Any  # the module being generated (body.py's `Generator`)

    def tmp(self) -> str: ...
    def local(self) -> str: ...
    def value(self, e: Any) -> str: ...
    def truth(self, e: Any) -> str: ...
    def items(self, e: Any) -> str: ...
    def emit(self, text: str) -> None: ...
    def charge(self, work: str, k: int) -> None: ...


def open_loop(body: Body, var: str, items: str) -> tuple[str, str | None]:
    """Open `for` over items with a new Python local for the rulebook's `var`; the previous holder of the name.

    The elements are charged to the work budget first, all at once: one addition per loop, not per element."""
    body.charge(f"len({items})", body.at)
    py = body.local()
    saved = body.scope.get(var)
    body.scope[var] = py
    body.loops.append(Loop(py, len(body.lines), body.indent))
    body.emit(f"for {py} in {items}:")
    body.indent += 1
    return py, saved


def close_loop(body: Body, var: str, saved: str | None) -> None:
    body.indent -= 1
    loop = body.loops.pop()
    # the fields kept through the loop (`_invariant`) are unread when it starts
    body.lines[loop.start : loop.start] = [(loop.indent, f"{kept} = _M", body.at) for kept in loop.kept.values()]
    if loop.cards is not None:
        body.lines.insert(loop.start, (loop.indent, f"{loop.cards} = g.state.cards", body.at))
    if saved is None:
        del body.scope[var]
    else:
        body.scope[var] = saved


def when(body: Body, e: Any, then: str) -> None:
    """`if e: then` for the test of an element: an `and` as tests one inside the other (its right side
    tested only where its left holds, as `and` does), without a local holding the conjunction."""
    if e.__class__ is s.And:
        body.emit(f"if {body.truth(e.left)}:")
        body.indent += 1
        when(body, e.right, then)
        body.indent -= 1
    else:
        body.emit(f"if {body.truth(e)}:")
        body.emit(f"    {then}")


def comprehension(body: Body, e: s.Comprehension) -> str:
    items, out = body.items(e.source), body.tmp()
    body.emit(f"{out} = []")
    py, saved = open_loop(body, e.var, items)
    if e.source.__class__ is s.Query and e.source.op == "group":
        body.known[py] = "tuple"  # (each element a group, a list the query's own code made)
    add = "extend" if e.flat else "append"  # a flat one joins its inner comprehension's lists
    if e.condition is not None:
        body.emit(f"if {body.truth(e.condition)}:")
        body.indent += 1
        body.emit(f"{out}.{add}({body.value(e.element)})")
        body.indent -= 1
    else:
        body.emit(f"{out}.{add}({body.value(e.element)})")
    close_loop(body, e.var, saved)
    body.emit(f"{out} = tuple({out})")
    return out


def query(body: Body, e: s.Query, k: int) -> str:
    items, out = body.items(e.source), body.tmp()
    body.emit(f"{out} = []")
    body.emit("try:")
    body.indent += 1
    py, saved = open_loop(body, "it", items)
    if e.op == "where":
        when(body, e.key, f"{out}.append({py})")
    else:
        body.emit(f"{out}.append({body.value(e.key)})")
    close_loop(body, "it", saved)
    if e.op == "where":
        body.emit(f"{out} = tuple({out})")
    else:
        if e.op != "map":
            # (`g.charge(_sort_work(...), node)`, its common case written out: within the budget)
            body.emit(f"g.work_left -= _sort_work({out})")
            body.emit("if g.work_left < 0:")
            body.emit(f"    g.charge(0, _N[{k}])")
        body.emit(f"{out} = _query_by_keys({e.op!r}, {items}, {out})")
    body.indent -= 1
    body.emit("except _VALUE_ERRORS:")
    body.emit(f"    raise _query_error(g, _N[{k}]) from None  # its message names the query")
    return out


def count(body: Body, q: s.Query) -> str:
    """`len(xs where c)`: the elements that pass counted, not gathered into a list. Every element is
    tested and charged as the query's own loop does, in the same order, and anything unusual is the
    definition's `len`, which evaluates the query again and names it in its message."""
    items, n = body.items(q.source), body.tmp()
    body.known[n] = "int"  # (a number, or the definition's error)
    body.emit(f"{n} = 0")
    body.emit("try:")
    body.indent += 1
    outer, body.at = body.at, body.gen.number[id(q)]  # the loop is the query's: charged at it
    _, saved = open_loop(body, "it", items)
    when(body, q.key, f"{n} += 1")
    close_loop(body, "it", saved)
    body.at = outer
    body.indent -= 1
    body.emit("except _VALUE_ERRORS:")
    body.emit(f"    raise _query_error(g, _N[{body.gen.number[id(q)]}]) from None")
    return n
