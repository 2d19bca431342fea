"""The code of a call of a built-in function: its common case inline, charged as the built-in charges.

`any` and `all` of a list, `sum` and `flatten` of a list, `min` and `max` of a list written out of
numbers (`max([0, n - k])`), `ord` of an enumeration value, `first` and `last` of a list are spelled
out in generated code; anything else, and any value of another kind, is the built-in itself
(language/builtins.py), whose errors, when it cannot take the values, are the definition's.
"""

from __future__ import annotations

from typing import Any, Protocol

from ..syntax import ast as s


class Body(Protocol):
    """What a built-in's code needs of the function being generated (body.py's `Body` is one): the
    calls know it by these members alone, so that the two modules import each other in one way."""

    indent: int

    def tmp(self) -> str: ...
    def value(self, e: Any) -> str: ...
    def emit(self, text: str) -> None: ...
    def charge(self, work: str, k: int) -> None: ...
    def slow(self, k: int) -> str: ...
    def builtin(self, t: str, name: str, args: list[str], k: int) -> None: ...
    def ints(self, *values: str) -> str: ...


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
        body.emit(f"    {t} = {body.slow(k)}")
        return t
    if name in ("min", "max") and len(e.args) == 1 and e.args[0].__class__ is s.ListLit and e.args[0].items:
        return _min_max(body, t, name, [body.value(i) for i in e.args[0].items], k)
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
    if fast is not None:
        body.emit(f"if {fast[0]}:")
        body.emit(f"    {t} = {fast[1]}")
        body.emit("else:")
        body.indent += 1
    body.builtin(t, name, args, k)
    if fast is not None:
        body.indent -= 1
    return t


def _min_max(body: Body, t: str, name: str, items: list[str], k: int) -> str:
    """`t = max([a, b])` of numbers, inline, charged as the built-in charges (two units an element); the
    built-in itself for anything else."""
    body.emit(f"if {body.ints(*items)}:")
    body.indent += 1
    body.charge(str(2 * len(items)), k)
    body.emit(f"{t} = {name}({', '.join(items)})" if len(items) > 1 else f"{t} = {items[0]}")
    body.indent -= 1
    body.emit("else:")
    body.indent += 1
    body.builtin(t, name, [f"({', '.join(items)},)"], k)
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
        body.emit(f"    {t} = {body.slow(k)}  # evaluates again and names the values it could not take")
        body.indent -= 1
        body.emit("else:")
    else:  # a list of lists: `_flatten` charges and bounds it as the built-in does; anything else: `_M`
        body.emit(f"{t} = _flatten(g, {v}, _N[{k}]) if {v}.__class__ is tuple else _M")
        body.emit(f"if {t} is _M:")
    body.indent += 1
    body.builtin(t, name, [v], k)
    body.indent -= 1
    return t
