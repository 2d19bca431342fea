"""The code of a loop over a list: a comprehension, a query (`where`, `map`, `sort by`, `group by`, ...)
and a count of the elements that pass (`len(xs where c)`).

Each loop charges its elements to the work budget at once, before its `for`, and holds the rulebook's
name of the element in a new Python local for the loop's body; the fields its body reads of a name
bound outside it are kept through the loop (`Loop.kept`, body.py's `_invariant`), each read once.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

import attrs

from ..check.program import reached
from ..syntax import ast as s
from .source import CARD_PICKING, GENERATED_NAME, KEY_INTS, attribute, plain_field


@attrs.define
class Loop:
    """A loop being generated: its element's Python local, where its `for` stands, and the fields it keeps."""

    var: str
    start: int  # the index of its `for` in the lines
    indent: int
    # What the loop keeps -> the local keeping it: (local, field name) a field read (body.py's `_invariant`),
    # ("var", name) a variable read, ("in", local) a list made a tuple for `in` (`kept_list`)
    kept: dict[tuple[str, str], str] = attrs.Factory(dict)
    cards: str | None = None  # the local holding the state's cards through the loop (body.py's `_read_field`)
    # The local holding whether calls are as deep as the budget allows (`Game.fn_depth`), read as the loop
    # starts: no call inside the loop changes the depth it finds (each puts it back), so each call of a
    # function inside it tests the local (calls.py's `depth_reached`).
    deep: str | None = None


class Body(Protocol):
    """What a loop's code needs of the function being generated (body.py's `Body` is one): the loops know
    it by these members alone, so that the two modules import each other in one way."""

    indent: int
    at: int
    loops: list[Loop]
    scope: dict[str, str]
    lines: list[tuple[int, str, int]]
    known: dict[str, str]
    cards: set[str]  # the locals known to hold a tuple of cards
    members: dict[str, str]  # the names known to hold a member of an enumeration -> the enumeration
    member_lists: dict[str, str]  # the names known to hold all an enumeration's members -> the enumeration
    small: set[str]  # the locals known to hold a number below 2**31 in size
    sizes: set[str]  # the locals holding the size of a group where the rulebook's name holds the group
    gen: Any  # the module being generated (body.py's `Generator`)
    memo_part: str | None  # the local holding the memo's dict of the remembered function being generated

    def zone_read(self, e: Any) -> str | None: ...
    def zone_cards_key(self, e: Any) -> tuple[str, list[str]] | None: ...
    def zone_lookup(self, name: str, keys: list[str], found: Callable[[str], str], missing: str) -> None: ...

    def tmp(self) -> str: ...
    def local(self) -> str: ...
    def value(self, e: Any) -> str: ...
    def truth(self, e: Any) -> str: ...
    def items(self, e: Any) -> str: ...
    def emit(self, text: str) -> None: ...
    def charge(self, work: str, k: int) -> None: ...


def open_loop(body: Body, var: str, items: str, charged: bool = False) -> tuple[str, str | None]:
    """Open `for` over items with a new Python local for the rulebook's `var`; the previous holder of the name.

    The elements are charged to the work budget first, all at once: one addition per loop, not per element
    (unless the caller `charged` them already)."""
    if not charged:
        body.charge(f"len({items})", body.at)
    py = body.local()
    saved = body.scope.get(var)
    body.scope[var] = py
    body.loops.append(Loop(py, len(body.lines), body.indent))
    body.emit(f"for {py} in {items}:")
    body.indent += 1
    if items in body.cards:
        body.known[py] = "card"
    if items in body.member_lists:
        body.members[py] = body.member_lists[items]
        if body.members[py] == KEY_INTS:
            body.known[py] = "int"
    return py, saved


def close_loop(body: Body, var: str, saved: str | None) -> None:
    body.indent -= 1
    loop = body.loops.pop()
    # the fields kept through the loop (`_invariant`) are unread when it starts
    body.lines[loop.start : loop.start] = [(loop.indent, f"{kept} = _M", body.at) for kept in loop.kept.values()]
    if loop.cards is not None:
        body.lines.insert(loop.start, (loop.indent, f"{loop.cards} = g.state.cards", body.at))
    if loop.deep is not None:
        body.lines.insert(loop.start, (loop.indent, f"{loop.deep} = g.fn_depth >= _FN_DEPTH_BUDGET", body.at))
    if saved is None:
        del body.scope[var]
    else:
        body.scope[var] = saved


def kept_list(body: Body, seq: str) -> str | None:
    """The local that keeps `seq` made a tuple through the innermost loop (operators.py's `member`), if `seq` is a
    local the loop does not change (bound outside it, or a value kept through it) not known to be a tuple."""
    if not body.loops or body.known.get(seq) == "tuple" or not GENERATED_NAME.fullmatch(seq):
        return None
    loop = body.loops[-1]
    if seq == loop.var or (seq not in body.scope.values() and seq not in loop.kept.values()):
        return None
    return loop.kept.setdefault(("in", seq), body.tmp())


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


def _matched_fields(body: Body, test: Any) -> list[tuple[str, tuple[str, str | None]]] | None:
    """The element's fields and the keys they are compared with, if the test of a loop's element is
    `it.f == k` (either way round, or several joined by `and`), each `k` a local name the loop does not
    bind or a field of one: [(f, (the local, the key's field or None))]. Else None."""
    if body.gen.probe:  # (a probe counts each node's value: the element's loop reads them all)
        return None
    if test.__class__ is s.And:
        left, right = _matched_fields(body, test.left), _matched_fields(body, test.right)
        return None if left is None or right is None else left + right
    if test.__class__ is not s.Compare or test.op != "==":
        return None
    for mine, other in ((test.left, test.right), (test.right, test.left)):
        field = _element_field(body, mine)
        key = None if field is None else _key(body, other)
        if field is not None and key is not None:
            return [(field, key)]
    return None


def _element_field(body: Body, e: Any) -> str | None:
    """`f` if `e` is `it.f`, `f` a card's field that only a card can have (source.py's `plain_field`)."""
    if e.__class__ is not s.FieldAccess or e.obj.__class__ is not s.Name or e.obj.id != "it":
        return None
    return e.name if plain_field(e.name) and e.name not in body.gen.record_fields else None


def _key(body: Body, e: Any) -> tuple[str, str | None] | None:
    """A key the loop cannot change: a local name other than the element's, or a card's field of one."""
    field = None
    if e.__class__ is s.FieldAccess and plain_field(e.name) and e.name not in body.gen.record_fields:
        field, e = e.name, e.obj
    if e.__class__ is not s.Name or e.id == "it" or e.id not in body.scope:
        return None
    binding = body.gen.resolution.of(e)
    if binding is not None and binding.kind != "local":
        return None
    return body.scope[e.id], field


def matching_loop(body: Body, items: str, test: Any, then: Callable[[str], str], reset: str) -> str | None:
    """The loop of a `where` whose test only compares the element's fields with keys it does not change
    (`_matched_fields`), written for the common case: every key an interned value (a player, a card, an
    enumeration value: `same` is then `is`) and every element a card with the fields. The keys are read
    first, and the elements tested by `is` alone (`then(element)` for each that passes). Anything else (a
    key not interned or not there, an element without a field, no element at all) leaves the returned
    flag false, for the loop as the definition writes it, which reads the same values and so gives the
    same answer, or the same error (`reset` first undoes what the fast loop did before it stopped). The
    caller charges the elements first, for both loops.

    None if the test is not of this form: then there is only the general loop."""
    fields = _matched_fields(body, test)
    if fields is None:
        return None
    fast = body.tmp()
    keys = _read_keys(body, fields, fast, items)
    body.emit(f"if {fast}:")
    body.indent += 1
    cards, element, card = body.tmp(), body.local(), body.tmp()
    body.emit(f"{cards} = g.state.cards")
    body.emit("try:")
    body.indent += 1
    body.emit(f"for {element} in {items}:")
    body.indent += 1
    body.emit(f"{card} = {cards}[{element}.id]")
    for (field, _), k in zip(fields, keys, strict=True):  # one inside the other, as `and` evaluates
        body.emit(f"if {attribute(card, field)} is {k}:")
        body.indent += 1
    body.emit(then(element))
    body.indent -= len(fields) + 2
    body.emit("except _NO_ATTRIBUTE:")
    body.emit(f"    {fast} = False")
    body.emit(f"    {reset}")
    body.indent -= 1
    return fast


def _read_keys(body: Body, fields: list[tuple[str, tuple[str, str | None]]], fast: str, guard: str) -> list[str]:
    """Where `guard` holds, read the keys of `fields` (`_matched_fields`) into new locals, returned, and set
    `fast` to whether each is an interned value (`same` is then `is`); else, or where a key's card lacks
    the field, `fast` is false."""
    body.emit(f"{fast} = False")
    body.emit(f"if {guard}:")
    body.indent += 1
    body.emit("try:")
    body.indent += 1
    keys = []
    for _, (name, field) in fields:
        k = body.tmp()
        body.emit(f"{k} = {name if field is None else attribute(f'g.state.cards[{name}.id]', field)}")
        keys.append(k)
    body.emit(f"{fast} = {' and '.join(f'{k}.__class__ in _INTERNED' for k in keys)}")
    body.indent -= 1
    body.emit("except _NO_ATTRIBUTE:")
    body.emit("    pass")
    body.indent -= 1
    return keys


def _passing(body: Body, q: s.Query, items: str, then: Callable[[str], str], reset: str, sizes: bool = False) -> None:
    """The loop of `q`, a `where` over `items`: `then(element)` for each element that passes, charged first;
    the loop of `is` tests where the test allows it (`matching_loop`), else, or where it cannot go on, the
    loop as the definition writes it (`reset` undoing the first's work). With `sizes`, `items` are the sizes
    of the groups of `q`'s source, which its test reads only by their lengths (`group_sizes`)."""
    body.charge(f"len({items})", body.at)
    fast = matching_loop(body, items, q.key, then, reset)
    if fast is not None:
        body.emit(f"if not {fast}:")
        body.indent += 1
    py, saved = open_loop(body, "it", items, charged=True)
    if sizes:
        _sized(body, py)
    elif q.source.__class__ is s.Query and q.source.op == "group":
        body.known[py] = "tuple"  # (each element a group, a list the query's own code made)
    when(body, q.key, then(py))
    close_loop(body, "it", saved)
    if fast is not None:
        body.indent -= 1


def comprehension(body: Body, e: s.Comprehension) -> str:
    sizes = read_by_size(body, e.source, e.var, e.element, e.condition)
    items, out = group_sizes(body, e.source) if sizes else body.items(e.source), body.tmp()
    body.emit(f"{out} = []")
    py, saved = open_loop(body, e.var, items)
    if sizes:
        _sized(body, py)
    elif e.source.__class__ is s.Query and e.source.op == "group":
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


def read_by_size(body: Body, source: Any, var: str, *reads: Any) -> bool:
    """Whether a loop of `var` over `source` may run over the sizes of its groups instead of the groups: the
    source is a `group by`, and the expressions `reads` (the loop's body) read `var` only as `len(var)` or
    `count(var)`, with no comprehension or query inside them (one could bind the name again), nor in the
    constants they read (`reached`). Not in a probe: it checks the value of each node, the groups' too."""
    if body.gen.probe or source.__class__ is not s.Query or source.op != "group":
        return False
    program, names, sized = body.gen.program, 0, 0
    for node in (n for r in reads if r is not None for n in reached(program, r)):
        if isinstance(node, s.Comprehension | s.Query):
            return False
        if node.__class__ is s.Name and node.id == var:
            names += 1
        elif node.__class__ is s.Call and node.name in ("len", "count") and len(node.args) == 1:
            arg, binding = node.args[0], program.resolution.of(node)
            if arg.__class__ is s.Name and arg.id == var and binding is not None and binding.kind == "builtin_fn":
                sized += 1
    return names == sized  # (each time the name is read, it is read by its size)


def group_sizes(body: Body, e: Any) -> str:
    """The sizes of the groups of `e`, a `group by`, in the groups' order (`read_by_size`): its keys made and
    charged as its own code makes them, and counted by one C call, the groups never made."""
    k = body.gen.number[id(e)]
    outer, body.at = body.at, k
    try:
        return query(body, e, k, sizes=True)
    finally:
        body.at = outer


def _sized(body: Body, py: str) -> None:
    """Say that the loop's element `py` is the size of a group: a number, its `len` itself (body.py's
    `_length`)."""
    body.sizes.add(py)
    body.known[py] = "int"
    body.small.add(py)


def query(body: Body, e: s.Query, k: int, count_groups: bool = False, sizes: bool = False) -> str:
    """`xs where c`, `xs map f`, `xs sorted by f`, ...: the list; with `count_groups`, of a `group by`, the
    number of its groups (the keys made and charged alike, and counted as the query's dict finds them);
    with `sizes`, the size of each of its groups (`group_sizes`)."""
    items, out = body.items(e.source), body.tmp()
    body.emit(f"{out} = []")
    body.emit("try:")
    body.indent += 1
    if e.op == "where":
        _passing(body, e, items, lambda element: f"{out}.append({element})", f"{out} = []")
    else:
        _, saved = open_loop(body, "it", items)
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
        if count_groups and e.op == "group":
            body.emit(f"{out} = len(set({out}))")  # (a key that cannot be one: the query's own TypeError)
            body.known[out] = "int"
            body.small.add(out)
        elif sizes and e.op == "group":  # (in the order the keys first come, as the groups are)
            counts = body.tmp()  # (`Counter(keys).values()`, without its two Python calls)
            body.emit(f"{counts} = {{}}")
            body.emit(f"_count_into({counts}, {out})")  # (a key that cannot be one: the same TypeError)
            body.emit(f"{out} = tuple({counts}.values())")
        else:
            body.emit(f"{out} = _query_by_keys({e.op!r}, {items}, {out})")
    body.indent -= 1
    body.emit("except _VALUE_ERRORS:")
    body.emit(f"    raise _query_error(g, _N[{k}]) from None  # its message names the query")
    if items in body.cards and e.op in CARD_PICKING:  # (some of the cards, or the query's error)
        body.cards.add(out)
    return out


def count(body: Body, q: s.Query) -> str:
    """`len(xs where c)`: the elements that pass counted, not gathered into a list. Every element is
    tested and charged as the query's own loop does, in the same order, and anything unusual is the
    definition's `len`, which evaluates the query again and names it in its message."""
    if body.memo_part is not None and body.zone_read(q.source) is not None:
        fields = _matched_fields(body, q.key)
        if fields is not None:
            return indexed_count(body, q, fields)
    sizes = read_by_size(body, q.source, "it", q.key)
    items, n = group_sizes(body, q.source) if sizes else body.items(q.source), body.tmp()
    body.known[n] = "int"  # (a number, or the definition's error)
    body.small.add(n)  # (no more than the elements)
    body.emit(f"{n} = 0")
    body.emit("try:")
    body.indent += 1
    outer, body.at = body.at, body.gen.number[id(q)]  # the loop is the query's: charged at it
    _passing(body, q, items, lambda _: f"{n} += 1", f"{n} = 0", sizes)
    body.at = outer
    body.indent -= 1
    body.emit("except _VALUE_ERRORS:")
    body.emit(f"    raise _query_error(g, _N[{body.gen.number[id(q)]}]) from None")
    return n


def indexed_count(body: Body, q: s.Query, fields: list[tuple[str, tuple[str, str | None]]]) -> str:
    """`len(zone[k] where it.f == x and ...)` in a remembered function (the test as `matching_loop` takes
    it): the count read from an index of the zone's cards by the fields compared, made once by C calls
    (`_field_index`) and kept in the function's dict of the memo, keyed by the fields' getter and the
    zone. That dict is emptied by every change to what the function reads, the zone among them, so the
    index is right for as long as it is kept, and the function's other calls before the zone changes
    look their counts up (a test of whether a card's twin is in a player's area, asked of each card of a
    hand in turn, builds the index once for all of them).

    The same work is charged, first, as the query's loop charges it. Where the keys are not all
    interned values (whose `same` is `is`, and a dict's look-up then finds what `is` would), a card
    lacks a field, or a value cannot be a key, the count is the definition's loop, which reads the
    same values and so gives the same answer, or the same error."""
    name, keys = body.zone_cards_key(q.source)  # type: ignore[misc]  # (`zone_read` found it a zone)
    k = body.gen.number[id(q)]
    zone, ids, n, fast = body.tmp(), body.tmp(), body.tmp(), body.tmp()
    body.known[n] = "int"
    body.small.add(n)  # (no more than the zone's cards)
    body.emit(f"{n} = 0")
    body.zone_lookup(name, keys, lambda key: f"{zone} = {key}", f"{zone} = None")
    body.emit(f"if {zone} is None:  # (a key that is none: the zone's cards as the definition reads them)")
    body.emit(f"    {ids} = g.as_list(_ZoneRef({name!r}, ({', '.join(keys)},)), _N[{body.gen.number[id(q.source)]}])")
    body.emit("else:")
    body.emit(f"    {ids} = g.state.zones.get({zone}, ())")
    body.emit("try:")
    body.indent += 1
    outer, body.at = body.at, k  # the loop is the query's: charged at it
    body.charge(f"len({ids})", k)
    values = _read_keys(body, fields, fast, f"{zone} is not None and {ids}")
    getter = body.gen.constant(
        "getter", ",".join(f for f, _ in fields), "", f"_attrgetter({', '.join(repr(f) for f, _ in fields)})"
    )
    index, part = body.tmp(), body.tmp()
    body.emit(f"if {fast}:")
    body.indent += 1
    body.emit(f"{index} = g.memo[{body.memo_part}].get(({getter}, {zone}))")
    body.emit(f"if {index} is None:")
    body.emit(f"    {index} = _field_index(g.state.cards, {ids}, {getter})")
    body.emit(f"    if {index} is not None:")
    body.emit(f"        {part} = g.memo[{body.memo_part}]")
    body.emit(f"        if {part} is _EMPTY_MEMO:  # (the dict's first entry: its own dict, as a value's is kept)")
    body.emit(f"            {part} = g.memo[{body.memo_part}] = {{}}")
    body.emit(f"        elif len({part}) >= _MEMO_BUDGET:")
    body.emit(f"            {part}.clear()")
    body.emit(f"        {part}[{getter}, {zone}] = {index}")
    body.emit(f"if {index} is None:")
    body.emit(f"    {fast} = False")
    body.emit("else:")
    key = values[0] if len(values) == 1 else f"({', '.join(values)})"
    body.emit(f"    {n} = {index}.get({key}, 0)")
    body.indent -= 1
    body.emit(f"if not {fast}:")
    body.indent += 1
    items = body.tmp()
    body.emit(f"{items} = {ids} if {zone} is None else _card_refs({ids}) if {ids} else ()")
    body.known[items] = "tuple"
    body.cards.add(items)
    _, saved = open_loop(body, "it", items, charged=True)
    when(body, q.key, f"{n} += 1")
    close_loop(body, "it", saved)
    body.indent -= 1
    body.at = outer
    body.indent -= 1
    body.emit("except _VALUE_ERRORS:")
    body.emit(f"    raise _query_error(g, _N[{k}]) from None")
    return n
