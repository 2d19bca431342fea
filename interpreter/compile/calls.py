"""The code of a call: of a built-in function, its common case inline, charged as the built-in charges;
of a remembered `fn`, its budgets and its memo's look-up inline (`MemoCall`); of a small `fn` that is not
remembered and calls none, its budgets and its body inline (`inlined_call`).

`any` and `all` of a list, `sum` and `flatten` of a list, `min` and `max` of numbers (a list written
out, `max([0, n - k])`, or arguments, `min(a, b)`), `ord` of an enumeration value, `first` and `last` of
a list or a zone are spelled out in generated code; anything else, and any value of another kind, is the built-in itself
(language/builtins.py), whose errors, when it cannot take the values, are the definition's.
"""

from __future__ import annotations

import re
from typing import Any, Protocol

import attrs

from ..syntax import ast as s


class Body(Protocol):
    """What a built-in's code needs of the function being generated (body.py's `Body` is one): the
    calls know it by these members alone, so that the two modules import each other in one way."""

    indent: int
    loops: list[Any]  # the loops open where the next line goes, innermost last (loops.py's `Loop`s)
    gen: Any  # the module being generated (body.py's `Generator`)
    lines: list[tuple[int, str, int]]
    count: int
    known: dict[str, str]

    def tmp(self) -> str: ...
    def value(self, e: Any) -> str: ...
    def emit(self, text: str) -> None: ...
    def charge(self, work: str, k: int) -> None: ...
    def builtin(self, t: str, name: str, args: list[str], k: int) -> None: ...
    def ints(self, *values: str) -> str: ...


_PARAMETER = re.compile(r"a[0-9]+")  # a function's parameter in generated code (generate.py): never assigned


@attrs.frozen
class MemoCall:
    """Where a remembered `fn` keeps its values in the memo (`MemoLayout`), and the names of its code.

    A call of it is written where it is made: the depth budget's check, the charge and the look-up in
    the memo, so that a value found costs no Python call; only a value not found calls `miss`, which
    computes the body and keeps the value (`Generator._fn`). The function `call` (`(g, k, *args)`) does
    the same in one function."""

    name: str
    call: str  # `(g, k, *args)`: the whole call, in one function
    miss: str  # `(g, *args, slot, key)`: the body computed, its value kept under `key` in dict `slot`
    cost: str  # the constant that holds the work a call costs
    slot: int  # its dict of the memo (0: the shared one), or the first of its dicts by seat
    by_seat: str | None  # the constant that gives a seat's player its dict, for a function of a player by seat
    seat: int  # the index of that player's parameter (-1: none)

    def slot_key(self, args: list[str], slot: str) -> tuple[str, str]:
        """The dict (`slot`, a local, where it is by seat) and the key of a call's value, given its arguments.

        A dict of its own holds this function's values alone: its arguments are the key (one alone as
        itself: it finds what the tuple of it would, as a tuple's `==` is its elements' with the same
        identity shortcut as a dict's, without a tuple made and hashed at each call). A seat's dict
        holds that player's alone: the other arguments are the key there. A value of no seat's player,
        and any function of the shared dict, keeps its values in dict 0 under the function's name."""
        named = f"({', '.join([repr(self.name), *args])},)"
        if self.slot == 0:
            return "0", named
        if self.seat < 0:
            return str(self.slot), _arguments(args)
        own = _arguments(args[: self.seat] + args[self.seat + 1 :])
        return slot, f"{own} if {slot} else {named}"


def _arguments(args: list[str]) -> str:
    if len(args) == 1:
        return args[0]
    return f"({', '.join(args)},)" if args else "()"


def _kept(body: Body, value: str, what: str) -> str | None:
    """The local that keeps `what` of `value` through the innermost loop, if `value` is a local the loop
    does not change (a function's parameter, an outer loop's element), else None. It is `_M` when the
    loop starts (loops.py, `Loop.kept`)."""
    if not body.loops:
        return None
    loop = body.loops[-1]
    if not (_PARAMETER.fullmatch(value) or value in {outer.var for outer in body.loops[:-1]}):
        return None
    if (value, what) not in loop.kept:
        loop.kept[value, what] = body.tmp()
    kept: str = loop.kept[value, what]
    return kept


def depth_reached(body: Body) -> str:
    """The test, at a call, of whether calls are already as deep as the budget allows: inside a loop, the
    local the loop reads as it starts (loops.py's `Loop.deep`), else the game's count."""
    if not body.loops:
        return "g.fn_depth >= _FN_DEPTH_BUDGET"
    loop = body.loops[0]  # (the outermost: the depth is the same all through the function's code)
    if loop.deep is None:
        loop.deep = body.tmp()
    return loop.deep


def remembered_call(body: Body, memo: MemoCall, k: int, args: list[str]) -> str:
    """The value of a call at node k of a remembered `fn`: its budgets and its memo's look-up inline, as
    the function `memo.call` has them (the same checks in the same order, at the same node)."""
    t, key = body.tmp(), body.tmp()
    listed = f"({', '.join(args)}{',' if args else ''})"
    body.emit(f"if {depth_reached(body)}:")
    body.emit(f"    {t} = g.call_fn({memo.name!r}, {listed}, _N[{k}].span)  # the runaway error")
    body.emit("else:")
    body.indent += 1
    body.charge(memo.cost, k)  # budget: each call, remembered or not
    slot = body.tmp()
    if memo.by_seat is not None:
        player = args[memo.seat]
        kept = _kept(body, player, f"seat {memo.by_seat}")
        if kept is None:
            body.emit(f"{slot} = {memo.by_seat}.get({player}, 0)")
        else:  # the same player at each element of the loop: its dict found at the first call, then kept
            slot = kept
            body.emit(f"if {slot} is _M:")
            body.emit(f"    {slot} = {memo.by_seat}.get({player}, 0)")
    slot, key_value = memo.slot_key(args, slot)
    body.emit(f"{key} = {key_value}")
    body.emit("try:")
    body.emit(f"    {t} = g.memo[{slot}].get({key}, _M)")
    body.emit("except TypeError:  # an argument that cannot be a key: computed each time")
    body.emit(f"    {t} = _M")
    body.emit(f"if {t} is _M:")
    body.emit(f"    {t} = {memo.miss}(g, {', '.join([*args, slot, key])})")
    body.indent -= 1
    return t


def fn_call(body: Body, name: str, k: int, args: list[str]) -> str:
    """The value of a call at node k of the rulebook's function `name`, given its arguments' values."""
    gen = body.gen
    if name in gen.memo_calls:  # its budgets and memo where it stands, its body a call away
        return remembered_call(body, gen.memo_calls[name], k, args)
    if name in gen.inlined:  # small, not remembered, calling none: its body where it stands
        return inlined_call(body, gen.program.fns[name], k, args)
    return f"{gen.fn_names[name]}(g, {', '.join([str(k), *args])})"


def inlined_call(body: Body, fn: s.FnDecl, k: int, args: list[str]) -> str:
    """The value of a call at node k of a small function that is not remembered and calls none, its body
    written where the call stands: the depth budget's check and the charge as its function `(g, k, *args)`
    has them, at the same node, then the body's own code (its nodes, its errors and their places, its
    local names its parameters alone), without a Python call."""
    t = body.tmp()
    body.emit(f"if {depth_reached(body)}:")
    listed = f"({', '.join(args)}{',' if args else ''})"
    body.emit(f"    {t} = g.call_fn({fn.name!r}, {listed}, _N[{k}].span)  # the runaway error")
    body.emit("else:")
    body.indent += 1
    body.charge(body.gen.constant("cost", fn.name, "", f"_fn_cost({fn.name!r})"), k)
    make: Any = type(body)  # (a function's code of its own: body.py's `Body`, its names the parameters alone)
    inner = make(body.gen, False, {p.name: a for p, a in zip(fn.params, args, strict=True)})
    inner.count, inner.indent = body.count, body.indent
    inner.known = {a: body.known[a] for a in args if a in body.known}  # (an argument's kind, as here)
    result = inner.value(fn.body)
    body.lines += inner.lines
    body.count = inner.count
    if result in inner.known:  # (the runaway branch raises: `t` holds the body's value)
        body.known[t] = inner.known[result]
    body.emit(f"{t} = {result}")
    body.indent -= 1
    return t


def builtin_call(body: Body, e: s.Call, k: int) -> str:
    """The value of a call of a built-in function other than `len` (`Body._length`)."""
    name = e.name
    t = body.tmp()  # (the value's local, named before its operands')
    if name in ("any", "all") and len(e.args) == 1:
        v = body.value(e.args[0])
        body.emit(f"if {v}.__class__ is tuple:")
        body.indent += 1
        body.charge(f"len({v})", k)  # each element read
        body.emit(f"{t} = {name}({v})")
        body.indent -= 1
        body.emit("else:")
        body.emit(f"    {t} = _builtin(g, _N[{k}], [{v}])")
        return t
    if name in ("min", "max") and len(e.args) == 1 and e.args[0].__class__ is s.ListLit and e.args[0].items:
        items = [body.value(i) for i in e.args[0].items]
        return _min_max(body, t, name, items, k, [f"({', '.join(items)},)"])
    if name in ("min", "max") and len(e.args) > 1:  # `min(a, b)`: the built-in's values are the arguments
        items = [body.value(a) for a in e.args]
        return _min_max(body, t, name, items, k, items)
    args = [body.value(a) for a in e.args]
    if name in ("sum", "flatten") and len(args) == 1:
        return _over_list(body, t, name, args[0], k)
    # the common case of a few built-ins that charge nothing, inline: `ord` of an enumeration
    # value, `first` and `last` of a list; anything else by the built-in itself
    fast = (
        {
            "ord": (f"{args[0]}.__class__ is _EnumValue", f"{args[0]}.index"),
            "first": (f"{args[0]}.__class__ is tuple", f"{args[0]}[0] if {args[0]} else None"),
            "last": (f"{args[0]}.__class__ is tuple", f"{args[0]}[-1] if {args[0]} else None"),
        }.get(name)
        if len(args) == 1
        else None
    )
    if name == "label" and len(args) == 1:
        # a card's label, kept for it in the label cache (`evaluate.label`), read without the built-in's calls
        a, card, entry = args[0], body.tmp(), body.tmp()
        card_test = "" if body.known.get(a) == "card" else f"{a}.__class__ is _CardRef and "
        body.emit(
            f"if {card_test}({entry} := g.code.card_labels.get(_id({card} := g.state.cards[{a}.id])))"
            f" is not None and {entry}[0] is {card}:"
        )
        body.emit(f"    {t} = {entry}[1]")
        body.emit("else:")
        body.indent += 1
        body.builtin(t, name, args, k)
        body.indent -= 1
        body.known[t] = "str"  # (a text, or the built-in's error)
        return t
    if fast is not None:
        body.emit(f"if {fast[0]}:")
        body.emit(f"    {t} = {fast[1]}")
        if name in ("first", "last"):  # a zone's first or last card, as `as_list` lists the zone's cards
            a, ids = args[0], body.tmp()
            end = "[:1]" if name == "first" else "[-1:]"
            body.emit(f"elif {a}.__class__ is _ZoneRef:")
            body.emit(f"    {ids} = g.state.zones.get({a}.key)")
            body.emit(f"    {t} = _card_refs({ids}{end})[0] if {ids} else None")
        body.emit("else:")
        body.indent += 1
    body.builtin(t, name, args, k)
    if fast is not None:
        body.indent -= 1
    return t


def _min_max(body: Body, t: str, name: str, items: list[str], k: int, values: list[str]) -> str:
    """`t = max([a, b])` (or `max(a, b)`) of numbers, inline, charged as the built-in charges (two units an
    element); the built-in itself, given `values` (the call's argument values), for anything else."""
    body.emit(f"if {body.ints(*items)}:")
    body.indent += 1
    body.charge(str(2 * len(items)), k)
    body.emit(f"{t} = {name}({', '.join(items)})" if len(items) > 1 else f"{t} = {items[0]}")
    body.indent -= 1
    body.emit("else:")
    body.indent += 1
    body.builtin(t, name, values, k)
    body.indent -= 1
    return t


def _over_list(body: Body, t: str, name: str, v: str, k: int) -> str:
    """`t = sum(xs)` and `flatten(xss)` of a list, charged as the built-in charges (builtins.py): its
    reading, then, for `flatten`, the elements it makes. Anything else by the built-in itself."""
    if name == "sum":
        body.emit(f"if {v}.__class__ is tuple:")
        body.indent += 1
        body.emit("try:")
        body.indent += 1
        body.charge(f"len({v})", k)
        body.emit(f"{t} = sum({v})")
        body.emit(f"if not -_INT_BUDGET <= {t} <= _INT_BUDGET:")
        body.emit(f"    {t} = g.number({t}, _N[{k}])  # the located error")
        body.indent -= 1
        body.emit("except _VALUE_ERRORS:")
        body.emit(f"    raise _not_taken(g, _N[{k}], [{v}]) from None  # names the values it could not take")
        body.indent -= 1
        body.emit("else:")
    else:  # a list of lists: `_flatten` charges and bounds it as the built-in does; anything else: `_M`
        body.emit(f"{t} = _flatten(g, {v}, _N[{k}]) if {v}.__class__ is tuple else _M")
        body.emit(f"if {t} is _M:")
    body.indent += 1
    body.builtin(t, name, [v], k)
    body.indent -= 1
    return t
