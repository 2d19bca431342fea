"""The code of an operator: a comparison (`compare`), an operation of two values (`binary`) and a test
that a value is in a list (`member`), each its common case inline and anything unusual handed, with
its operands' values, to the operation's definition (runtime/operations.py)."""

from __future__ import annotations

import re
from typing import Protocol

from ..syntax import ast as s
from .loops import Body as LoopBody
from .loops import kept_list
from .source import GENERATED_NAME

_NAME = GENERATED_NAME
_INT = re.compile(r"\(-?[0-9]+\)")  # a number written in the text, as generated
_SMALL = 1 << 31  # products of numbers below this in size are far inside the number budget


class Body(LoopBody, Protocol):
    """What an operator's code needs of the function being generated (body.py's `Body` is one): a loop's
    needs (a list tested with `in` inside a loop is kept through it: `kept_list`), and these."""

    interned: dict[str, str]  # a field kept through a loop -> the local saying its value is interned

    def ints(self, *values: str) -> str: ...


def compare(body: Body, e: s.Compare, k: int) -> str:
    """A comparison: `==` and `!=` as `same` (interned values by `is`), the order of numbers, else the definition."""
    op, t = e.op, body.tmp()
    a = body.value(e.left)
    if e.right.__class__ is s.IntLit:  # `x == 0`, `len(xs) > 2`: a number written in the text
        b = repr(e.right.value)
        if body.known.get(a) == "int":
            body.emit(f"{t} = {a} {op} {b}")
        elif op in ("==", "!="):  # a value of another kind is never equal to a number
            body.emit(
                f"{t} = {a} {op} {b} if {a}.__class__ is int else "
                f"{op == '!='} if {a}.__class__ is not bool else _compare(g, _N[{k}], {a}, {b})"
            )
        else:
            body.emit(f"{t} = {a} {op} {b} if {a}.__class__ is int else _compare(g, _N[{k}], {a}, {b})")
        return t
    b = body.value(e.right)
    plain = all(x == "None" or _NAME.fullmatch(x) for x in (a, b))  # names or none: no literal to warn of
    if op in ("==", "!=") and "None" in (a, b) and plain:
        # `x == none`: only none is the same as none (`same`), and is not a list (a literal other than
        # none is left to `_same`: Python warns of `is` with one)
        body.emit(f"{t} = {a} is {'' if op == '==' else 'not '}{b}")
        return t
    if op in ("==", "!=") and plain and "card" in (body.known.get(a), body.known.get(b)):
        # (a card is the same as a value only if it is it: cards are interned)
        body.emit(f"{t} = {a} is {'' if op == '==' else 'not '}{b}")
        return t
    if op in ("==", "!=") and "str" in (body.known.get(a), body.known.get(b)):
        # (a text is the same as a value exactly when Python's `==` says so: no value of another kind equals it)
        body.emit(f"{t} = {a} {op} {b}")
        return t
    if op in ("==", "!=") and body.known.get(a) == "int" and body.known.get(b) == "int":
        body.emit(f"{t} = {a} {op} {b}")  # (two numbers the code made: `same` is Python's `==`)
        return t
    if op in ("==", "!="):
        # `same`, inline: an interned value (a player, a card, an enumeration value: values.py) is the same
        # as another only if it is it; two lists: the definition, which charges their weight; two values
        # of one class are the same exactly when `==` says so (Python's own for numbers and texts)
        no = "" if op == "==" else "not "
        if _INT.fullmatch(a) or a == "()" or b == "()":  # (`is` of a literal: a warning)
            two = f"{a}.__class__ is tuple and {b}.__class__ is tuple"
            body.emit(f"{t} = _compare(g, _N[{k}], {a}, {b}) if {two} else {no}_same({a}, {b})")
            return t
        kept = body.interned.get(b) or body.interned.get(a)
        if kept is not None:  # (a field kept through the loop, its class tested once: see `_field`)
            body.emit(f"if {kept} or {a}.__class__ in _INTERNED:")
        else:
            body.emit(f"if {a}.__class__ in _INTERNED:")
        body.emit(f"    {t} = {a} is {no}{b}")
        body.emit(f"elif {a}.__class__ is tuple and {b}.__class__ is tuple:")
        body.emit(f"    {t} = _compare(g, _N[{k}], {a}, {b})")
        body.emit("else:")
        same = f"{a} == {b} if {a}.__class__ is {b}.__class__ else _same({a}, {b})"
        body.emit(f"    {t} = {no}({a} is {b} or ({same}))")
        return t
    body.emit(f"{t} = {a} {op} {b} if {body.ints(a, b)} else _compare(g, _N[{k}], {a}, {b})")
    return t


def binary(body: Body, e: s.Binary, k: int) -> str:
    """An operation of two values: numbers within the budget, two texts or two lists joined, else the definition."""
    op, t = e.op, body.tmp()
    a, b = body.value(e.left), body.value(e.right)
    if op == "+" and "str" in (body.known.get(a), body.known.get(b)):
        # a text and something: two texts joined, or the operation's error (Python's `+` of a text and
        # anything else is the definition's `_binary`, as in the general case below)
        unknown = [f"{x}.__class__ is str" for x in (a, b) if body.known.get(x) != "str"]
        body.emit(f"{t} = _M")
        if unknown:
            body.emit(f"if {' and '.join(unknown)}:")
            body.indent += 1
        _joined(body, t, a, b, "_TEXT_BUDGET", k)
        body.indent -= 1 if unknown else 0
        body.emit(f"if {t} is _M:")
        body.emit(f"    {t} = _binary(g, _N[{k}], {a}, {b})")
        if not unknown:
            body.known[t] = "str"
        return t
    if op == "+" and all(x in body.cards or body.known.get(x) in ("zone", "tuple") for x in (a, b)):
        # two lists or zones (`hand[p] + pile`: the cards of each; `[a for ...] + ["done"]`): a tuple, of
        # cards where both sides are cards
        body.emit(f"{t} = _M")
        x, y = (_zone_cards(body, v) for v in (a, b))
        _joined(body, t, x, y, "_LIST_BUDGET", k)
        body.emit(f"if {t} is _M:")
        body.emit(f"    {t} = _binary(g, _N[{k}], {a}, {b})")
        body.known[t] = "tuple"
        if all(x in body.cards or body.known.get(x) == "zone" for x in (a, b)):
            body.cards.add(t)  # (or the operation's error)
        return t
    if op in ("+", "-") and body.ints(a, b) == "True":  # two numbers: a number, or the operation's error
        body.known[t] = "int"
        body.emit(f"{t} = {a} {op} {b}")
        if not (_small(body, a) and _small(body, b)):  # (two small numbers: far inside the budget)
            body.emit(f"if not -_INT_BUDGET <= {t} <= _INT_BUDGET:")
            body.emit(f"    {t} = _binary(g, _N[{k}], {a}, {b})")
        return t
    if op in ("+", "-"):
        body.emit(f"{t} = _M")
        body.emit(f"if {body.ints(a, b)}:")
        body.emit(f"    {t} = {a} {op} {b}")
        if not (_small(body, a) and _small(body, b)):  # (two small numbers: far inside the budget)
            body.emit(f"    if not -_INT_BUDGET <= {t} <= _INT_BUDGET:")
            body.emit(f"        {t} = _M")
        if op == "+":
            body.emit(f"elif {a}.__class__ is str and {b}.__class__ is str:")
            body.indent += 1
            _joined(body, t, a, b, "_TEXT_BUDGET", k)
            body.indent -= 1
            body.emit(
                f"elif ({a}.__class__ is tuple or {a}.__class__ is _ZoneRef)"
                f" and ({b}.__class__ is tuple or {b}.__class__ is _ZoneRef):"
            )
            # lists and zones (`hand[p] + in_play[p]`): the cards of a zone as a list
            x, y = body.tmp(), body.tmp()
            # (`g.as_list` of a zone, written out: its cards)
            body.emit(f"    {x} = {a} if {a}.__class__ is tuple else _card_refs(g.state.zones.get({a}.key, ()))")
            body.emit(f"    {y} = {b} if {b}.__class__ is tuple else _card_refs(g.state.zones.get({b}.key, ()))")
            body.indent += 1
            _joined(body, t, x, y, "_LIST_BUDGET", k)
            body.indent -= 1
        body.emit(f"if {t} is _M:")
        body.emit(f"    {t} = _binary(g, _N[{k}], {a}, {b})")
        return t
    body.known[t] = "int"  # (`*`, `//`, `%` of numbers only: a number, or the operation's error)
    if op == "*":  # (numbers of the text and small locals need no test of their size)
        sizes = [f"-{_SMALL} < {x} < {_SMALL}" for x in (a, b) if not _small(body, x)]
        test = " and ".join(x for x in (body.ints(a, b), *sizes) if x != "True") or "True"
    else:  # (a divisor written in the text, other than 0, needs no test)
        nonzero = _INT.fullmatch(b) is not None and int(b[1:-1]) != 0
        test = " and ".join(x for x in (body.ints(a, b), "True" if nonzero else f"{b} != 0") if x != "True") or "True"
    if test == "True":  # (two small numbers: their product, far inside the budget)
        body.emit(f"{t} = {a} {op} {b}")
    else:
        body.emit(f"{t} = {a} {op} {b} if {test} else _binary(g, _N[{k}], {a}, {b})")
    return t


def _zone_cards(body: Body, v: str) -> str:
    """`v`, a tuple (of cards, or of values the code made), or the cards of `v`, a zone (`g.as_list` of it,
    written out)."""
    if v in body.cards or body.known.get(v) == "tuple":
        return v
    t = body.tmp()
    body.emit(f"{t} = _card_refs(g.state.zones.get({v}.key, ()))")
    return t


def _small(body: Body, v: str) -> bool:
    """Whether `v`, generated code, is a number below `_SMALL` in size: one written in the text, or a local
    known to hold one (`Body.small`)."""
    return v in body.small or (_INT.fullmatch(v) is not None and abs(int(v[1:-1])) < _SMALL)


def _joined(body: Body, t: str, a: str, b: str, budget: str, k: int) -> None:
    """`t = a + b` of two texts or two lists within `budget` (their characters or elements), each
    charged one unit of work; past the budget `t` is left as it was (`_M`: the definition's error)."""
    n = body.tmp()  # (the two lengths added once: tested against the budget, then charged)
    body.emit(f"if ({n} := len({a}) + len({b})) <= {budget}:")
    body.indent += 1
    body.charge(n, k)
    body.emit(f"{t} = {a} + {b}")
    body.indent -= 1


def member(body: Body, e: s.In, k: int) -> str:
    """`x in xs` (`not in`): Python's `in` over a tuple where it means `contains`, else the definition."""
    v, seq, t = body.value(e.item), body.value(e.collection), body.tmp()
    card = body.known.get(v) == "card"  # (no list in a list to charge by its weight, nor `true` and 1 apart)
    in_list = "" if card else f" or {v}.__class__ is tuple:  # (a list in a list: charged by its weight)"
    kept = kept_list(body, seq)
    if kept is not None:  # a list the loop does not change, made a tuple (or None: `_member`'s) once
        body.emit(f"if {kept} is _M:")
        body.emit(
            f"    {kept} = {seq} if {seq}.__class__ is tuple else _card_refs(g.state.zones.get({seq}.key, ())) "
            f"if {seq}.__class__ is _ZoneRef and None not in {seq}.keys else None"
        )
        body.emit(f"{t} = {kept}")
        body.emit(f"if {t} is None{in_list or ':'}")
        body.emit(f"    {t} = _member(g, _N[{k}], {v}, {seq})")
    else:
        body.emit(f"{t} = {seq}")
    if kept is None and body.known.get(seq) != "tuple":
        body.emit(f"if {t}.__class__ is not tuple:")
        body.emit(f"    if {t}.__class__ is _ZoneRef and None not in {t}.keys:")
        body.emit(f"        {t} = _card_refs(g.state.zones.get({t}.key, ()))")
        body.emit("    else:")
        body.emit(f"        {t} = _M")
    if kept is None:
        body.emit(f"if {t} is _M{in_list or ':'}")
        body.emit(f"    {t} = _member(g, _N[{k}], {v}, {seq})")
    body.emit("else:")
    body.indent += 1
    body.charge(f"len({t})", k)  # each element compared
    body.indent -= 1
    # Python's `in` where it means `contains`: only 0 and 1 can be `==` to a boolean (true is not 1),
    # so one of them or a boolean that Python finds is looked for again by `contains`; one it does not
    # find is in no list (a value `contains` finds, `==` finds), which Python's own loop says at once.
    if card:
        body.emit(f"    {t} = {'not ' if e.negated else ''}({v} in {t})")
        return t
    body.emit(
        f"    {t} = {'not ' if e.negated else ''}({v} in {t}"
        f" if {v}.__class__ is not int and {v}.__class__ is not bool"
        f" else {v} in {t} and ({v}.__class__ is int and not -1 < {v} < 2 or _contains({t}, {v})))"
    )
    return t
