"""The code of one generated function, made node by node: the half of the generator that writes expressions."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, Protocol

from ..check.program import Program
from ..check.resolve import Resolution
from ..syntax import ast as s
from .calls import MemoCall, builtin_call, fn_call
from .loops import Loop, comprehension, count, query
from .operators import binary, compare, member
from .source import GENERATED_NAME, KEY_INTS, KEY_TABLE, attribute, literal_value, plain_field, typed_key


class Generator(Protocol):
    """What a function's code needs of the module being generated (generate.py's `Generator` is
    one): known by these members alone, so that the two modules import each other in one way."""

    program: Program
    resolution: Resolution
    probe: bool
    number: dict[int, int]
    record_fields: frozenset[str]
    fn_names: dict[str, str]
    memo_calls: dict[str, MemoCall]
    inlined: frozenset[str]

    def constant(self, kind: str, a: str, b: str, make: str) -> str: ...
    def returns_bool(self, e: Any) -> bool: ...
    def returns_cards(self, e: Any) -> bool: ...
    def returns_int(self, e: Any) -> bool: ...


_ATOM = re.compile(r"[a-z][0-9]+|True|False|None|\(-?[0-9]+\)|\(\)")  # a name or literal, cheap to read again
_NAME = GENERATED_NAME
_INT = re.compile(r"\(-?[0-9]+\)")  # a number written in the text, as generated
_KEPT_RANGE = 256  # a range of numbers written in the text up to this long is a constant of the module
BOOLEAN = (s.Compare, s.In, s.Not, s.And, s.Or, s.BoolLit)  # expressions that are booleans by construction
# Expressions whose generated code gives a tuple in every branch: its fast path builds one, and its
# fallback, the definition, gives one or raises (evaluate.py).
TUPLES = (s.ListLit, s.RangeOp, s.Comprehension, s.Query)


class Body:
    """The statements of one generated function, made node by node; `value` returns a Python expression."""

    def __init__(self, gen: Generator, env: bool, scope: dict[str, str]):
        self.gen = gen
        self.env = env  # whether the function has the statement's locals in `env` (a root's function)
        self.scope = dict(scope)  # local names held in Python locals: rulebook name -> Python name
        self.hoisted: dict[str, str] = {}  # locals read from `env`, once, at the top
        self.lines: list[tuple[int, str, int]] = []
        self.indent = 1
        self.count = 0
        self.at = -1  # the node being generated, for the line table
        self.loops: list[Loop] = []  # the loops open where the next line goes, innermost last
        # The generated locals known to hold an int, a tuple, a text, a card or a zone, whatever ran (`value`): a
        # check of their class is needless. (The checker's types prove no run-time kind: `none` and `any`
        # stand for any type and an assignment keeps a name's type; the generated code's own
        # construction does.)
        self.known: dict[str, str] = {}
        # A field kept through a loop (`_invariant`) -> the local saying whether its value is of an interned
        # class (`same` is then `is`), tested once when the field is read, not at each comparison in the loop.
        self.interned: dict[str, str] = {}
        # The generated locals known to hold a tuple of cards (a zone's cards; those of such a tuple that a
        # `where`, `sorted by`, `max by` or `min by` keeps; two such joined by `+`; the value of a function
        # that picks them: `Generator.card_list_fns`). An element of a loop over one is known to be a card
        # ("card" in `known`): it is the same as another value only if it is it, is in a list only as
        # itself, and has its label in the label cache without a test of its class.
        self.cards: set[str] = set()
        # The names known to hold a member of an enumeration (the member's constant, written by its name where no
        # local can hide it; an element of a loop over an enumeration's members) -> the enumeration, or a number
        # of the key table (`KEY_INTS`: an element of a loop over a range written in the text, within 0 .. 63);
        # and those known to hold the tuple of them all (`Kind` where no local can hide it, `0..8`) -> the same.
        # A key of that enumeration, or a number key, needs no test of its kind (`_key_known`).
        self.members: dict[str, str] = {}
        self.member_lists: dict[str, str] = {}
        # A local that is a seat of the key tables (a player whose index is below the rulebook's most players)
        # wherever a test of a local holds -> that test: in the body of a function remembered by seat, its seat
        # parameter where `slot` is not 0 (the callers find `slot` by that parameter in a dict of the seats). A
        # seat's key is then read from its table after that test, and where it fails, made as before.
        self.seats_known: dict[str, str] = {}
        # The generated locals known to hold a number below 2**31 in size (a length, a count of elements or
        # groups: no list, text or zone is that long): two such are multiplied or added within the number
        # budget, without a test of their size.
        self.small: set[str] = set()
        # The local holding the index of the memo's dict that the value of the function being generated is
        # kept in (`slot`, the body of a remembered function), else None: what the body derives from a zone it
        # reads may be kept there as well, for as long as the function's values are (loops.py's `indexed_count`).
        self.memo_part: str | None = None
        # The locals holding the size of a group where the rulebook's name holds the group: the element of a
        # loop over a `group by` that reads it only by its length (loops.py's `read_by_size`).
        self.sizes: set[str] = set()

    def emit(self, text: str) -> None:
        self.lines.append((self.indent, text, self.at))

    def tmp(self) -> str:
        self.count += 1
        return f"t{self.count}"

    def local(self) -> str:
        self.count += 1
        return f"v{self.count}"

    def env_dict(self) -> str:
        """The local names as the definition sees them: a dict."""
        held = ", ".join(f"{name!r}: {py}" for name, py in self.scope.items())
        if self.env:
            return f"{{**env, {held}}}" if held else "env"
        return f"{{{held}}}"

    def shadowed(self, name: str) -> bool:
        """Whether a global name may be hidden at run time by a local of the statement (see resolve.py)."""
        return self.env and name in self.gen.resolution.locals

    # ------------------------------------------------------------ expressions

    def value(self, e: Any) -> str:
        k = self.gen.number[id(e)]
        outer, self.at = self.at, k
        try:
            result = self._value(e, k)
            kind = "tuple" if isinstance(e, TUPLES) else "str" if e.__class__ is s.StrLit else self.known.get(result)
            if kind is None and self.zone_read(e) is not None:
                kind = "zone"  # (`hand[p]`: a zone's reference, whatever its keys: `_index`)
            if kind is None and e.__class__ is s.Call and self.gen.returns_int(e):
                kind = "int"  # (`twins(q, xs) == 0`: a number by construction, no test of its kind)
            cards = result in self.cards or (e.__class__ is s.Call and self.gen.returns_cards(e))
            if not _ATOM.fullmatch(result):  # computed once, whatever reads it
                t = self.tmp()
                self.emit(f"{t} = {result}")
                result = t
            if self.gen.probe:  # (a probe gives back the value it is given: the kind is kept)
                t = self.tmp()
                self.emit(f"{t} = _probe(g, {k}, {result}, {self.env_dict()})")
                result = t
            if cards:  # (a tuple of cards, or the call's error)
                kind = "tuple"
                self.cards.add(result)
            if kind is not None and _NAME.fullmatch(result):
                self.known[result] = kind
            return result
        finally:
            self.at = outer

    def charge(self, work: str, k: int) -> None:
        """Charge work to the budget (Game.charge), inline: its located error at node k when it runs out."""
        self.emit(f"g.work_left -= {work}")
        self.emit("if g.work_left < 0:")
        self.emit(f"    g.charge(0, _N[{k}])")

    def truth(self, e: Any) -> str:
        v = self.value(e)
        if isinstance(e, BOOLEAN) or self.gen.returns_bool(e):
            return v
        t = self.tmp()
        k = self.gen.number[id(e)]
        self.emit(f"{t} = {v}")
        self.emit(f"if {t}.__class__ is not bool:")
        self.emit(f"    {t} = g.truth_of({t}, _N[{k}])")
        return t

    def _guarded(self, name: str, fast: str, hidden: str) -> str:
        """A global's value, unless a local of the same name hides it at run time: then `hidden`, the
        operation on the local's value (`env[name]`)."""
        if not self.shadowed(name):
            return fast
        t = self.tmp()
        self.emit(f"{t} = {hidden} if {name!r} in env else {fast}")
        return t

    def _value(self, e: Any, k: int) -> str:
        match e:
            case s.IntLit(value):
                return f"({value!r})"  # `(5).__class__`, not `5.__class__`
            case s.StrLit(value) | s.BoolLit(value):
                return repr(value)
            case s.NoneLit():
                return "None"
            case s.Name(name):
                return self._name(e, name, k)
            case s.Index():
                return self._index(e, k)
            case s.FieldAccess():
                return self._field(e, k)
            case s.Call():
                return self._call(e, k)
            case s.Compare():
                return compare(self, e, k)
            case s.Binary():
                return binary(self, e, k)
            case s.And(left, right) | s.Or(left, right):
                t = self.tmp()
                self.emit(f"{t} = {self.truth(left)}")
                self.emit(f"if {'' if isinstance(e, s.And) else 'not '}{t}:")
                self.indent += 1
                self.emit(f"{t} = {self.truth(right)}")
                self.indent -= 1
                return t
            case s.Not(operand):
                return f"(not {self.truth(operand)})"
            case s.In():
                return member(self, e, k)
            case s.Comprehension():
                return comprehension(self, e)
            case s.ListLit(items):
                values = [self.value(i) for i in items]
                return f"({', '.join(values)},)" if values else "()"
            case s.CondExpr(condition, then, otherwise):
                t = self.tmp()
                self.emit(f"if {self.truth(condition)}:")
                self.indent += 1
                self.emit(f"{t} = {self.value(then)}")
                self.indent -= 1
                self.emit("else:")
                self.indent += 1
                self.emit(f"{t} = {self.value(otherwise)}")
                self.indent -= 1
                return t
            case s.Query():
                return query(self, e, k)
            case s.Neg(operand):
                v, t = self.value(operand), self.tmp()
                self.emit(f"{t} = {v}")
                self.emit(f"{t} = -{t} if {self.ints(v)} else _negate(g, _N[{k}], {t})")
                self.known[t] = "int"  # (a number, or the operation's error)
                return t
            case s.RangeOp(low, high):
                lo, hi, t = self.value(low), self.value(high), self.tmp()
                if _INT.fullmatch(lo) and _INT.fullmatch(hi) and int(hi[1:-1]) - int(lo[1:-1]) < _KEPT_RANGE:
                    # (a short one of numbers written in the text: charged as any range, its tuple made once)
                    self.charge(str(max(int(hi[1:-1]) - int(lo[1:-1]) + 1, 0)), k)
                    self.emit(f"{t} = {self.gen.constant('range', lo, hi, f'tuple(range({lo}, {hi} + 1))')}")
                    self.known[t] = "tuple"
                    if int(lo[1:-1]) >= 0 and int(hi[1:-1]) < KEY_TABLE:
                        self.member_lists[t] = KEY_INTS
                    return t
                self.emit(f"if {self.ints(lo, hi)} and {hi} - {lo} < _LIST_BUDGET:")
                self.indent += 1
                self.charge(f"max({hi} - {lo} + 1, 0)", k)  # a range is charged before it is built
                self.emit(f"{t} = tuple(range({lo}, {hi} + 1))")
                self.indent -= 1
                self.emit("else:")
                self.emit(f"    {t} = _span(g, _N[{k}], {lo}, {hi})")
                return t
            case s.Template(parts):
                pieces = [repr(p) if isinstance(p, str) else f"g.label({self.value(p)})" for p in parts]
                # budget: the text is charged and bounded before it is joined (Game.text)
                return f"g.text([{', '.join(pieces)}], _N[{k}])"
            case s.RecordLit(inits):
                fields = [f"{i.name!r}: {self.value(i.value)}" for i in inits]
                return f"_Record({{{', '.join(fields)}}})"
            case _:
                raise TypeError(f"not an expression: {e!r}")

    def _name(self, e: s.Name, name: str, k: int) -> str:
        binding = self.gen.resolution.of(e)
        if binding is None or binding.kind == "local":
            if name in self.scope:
                return self.scope[name]
            if not self.env:
                return f"g.global_value({name!r}, _N[{k}])"  # not a local of this function: its error
            if name not in self.hoisted:
                self.hoisted[name] = self.local()
            held = self.hoisted[name]
            return f"({held} if {held} is not _M else g.global_value({name!r}, _N[{k}]))"
        kind, bound = binding.kind, binding.name  # (the global it is bound to: written `name` here)
        program = self.gen.program
        if kind == "const":
            literal, v = literal_value(program.consts[bound].value)
            fast = (
                repr(v)
                if literal
                else f"(g.consts[{bound!r}] if {bound!r} in g.consts else g.global_value({name!r}, _N[{k}]))"
            )
            if not literal and self._a_seat(program.consts[bound].value) and not self.shadowed(name):
                t = self.tmp()  # (`const P1 = players[0]`: a seat of the tables whenever it has a value)
                self.emit(f"{t} = {fast}")
                self.seats_known[t] = "True"
                return t
        elif kind == "builtin":
            fast = (
                "g.players"
                if bound == "players"
                else "len(g.players)"
                if bound == "player_count"
                else f"g.global_value({name!r}, _N[{k}])"
            )
        elif kind == "member":
            fast = self._constant_member(bound)
            if not self.shadowed(name):
                self.members[fast] = program.members[bound].enum
        elif kind == "enum":
            fast = self.gen.constant("enum", bound, "", f"_program.enums[{bound!r}]")
            if not self.shadowed(name):
                self.member_lists[fast] = bound
                self.known[fast] = "tuple"
        elif kind == "zone":  # (a value never changed once made: one for every game, made when the module runs)
            fast = self.gen.constant("zone", bound, "", f"_ZoneRef({bound!r}, ())")
        elif kind == "var":
            if self.loops:  # read at its first use in the loop, then kept (see `_invariant`: the same value)
                t = self.loops[-1].kept.setdefault(("var", bound), self.tmp())
                self.emit(f"if {t} is _M:")
                self.indent += 1
            else:
                t = self.tmp()
            self.emit(f"{t} = g.state.vars.get({bound!r}, _M)")
            self.emit(f"if {t} is _M:")
            self.emit(f"    {t} = g.global_value({name!r}, _N[{k}])")
            if self.loops:
                self.indent -= 1
            fast = t
        else:
            fast = f"g.global_value({name!r}, _N[{k}])"
        return self._guarded(name, fast, f"env[{name!r}]")

    def _a_seat(self, e: Any) -> bool:
        """Whether an expression's value is a seat of the key tables whenever it has one: `players[i]`, i a
        number written in the text below the rulebook's fewest players (the seats of every game)."""
        if e.__class__ is not s.Index or len(e.args) != 1 or e.args[0].__class__ is not s.IntLit:
            return False
        binding = self.gen.resolution.of(e.obj)
        players = binding is not None and binding.kind == "builtin" and binding.name == "players"
        return players and 0 <= e.args[0].value < self.gen.program.min_players

    def _constant_member(self, name: str) -> str:
        return self.gen.constant("member", name, "", f"_program.members[{name!r}]")

    def _index(self, e: s.Index, k: int) -> str:
        binding = self.gen.resolution.of(e)
        if binding is not None and binding.kind == "zone":
            keys = [self.value(a) for a in e.args]
            hidden = f"_index(g, _N[{k}], env[{binding.name!r}], {keys[0]})"
            return self._guarded(binding.name, self._zone_ref(binding.name, keys), hidden)
        if binding is not None and binding.kind == "keyed_var":
            name = binding.name
            keys = [self.value(a) for a in e.args]
            t, key = self.tmp(), self.tmp()
            # A keyed variable reads its initial value until first set: a literal one is known now.
            literal, default = literal_value(self.gen.program.vars[name].init)
            if self.shadowed(name):
                self.emit(f"if {name!r} in env:")
                self.emit(f"    {t} = _index(g, _N[{k}], env[{name!r}], {keys[0]})")
                self.emit("else:")
                self.indent += 1
            self._key(key, name, keys)
            if literal:  # (read with its initial value as the default: no test of the value read)
                self.emit(f"{t} = g.state.vars.get({key}, {default!r})")
            else:
                self.emit(f"{t} = g.state.vars.get({key}, _M)")
                self.emit(f"if {t} is _M:")
                self.emit(f"    {t} = g.variable({name!r}, {key})")
            if self.shadowed(name):
                self.indent -= 1
            return t
        seq, i, t = self.value(e.obj), self.value(e.args[0]), self.tmp()
        self.emit(f"{t} = {seq}")
        tuple_ = "" if self.known.get(seq) == "tuple" else f"{t}.__class__ is tuple and "
        if _INT.fullmatch(i):  # an index written in the text: one bound to test, one `len` at most
            n = int(i[1:-1])
            bound = t if n == 0 else f"{i} < len({t})" if n > 0 else f"-len({t}) <= {i}"
            self.emit(f"if {tuple_}{bound}:")
        else:
            self.emit(f"if {tuple_}{self.ints(i)} and -len({t}) <= {i} < len({t}):")
        self.emit(f"    {t} = {t}[{i}]")
        self.emit("else:")
        self.emit(f"    {t} = _index(g, _N[{k}], {t}, {i})")
        return t

    def _field(self, e: s.FieldAccess, k: int) -> str:
        binding = self.gen.resolution.of(e)
        if binding is not None and binding.kind == "enum_member":
            enum = binding.name
            member = self.gen.constant("enum_value", enum, e.name, f"_program.enum_value({enum!r}, {e.name!r})")
            if not self.shadowed(enum):
                self.members[member] = enum
            return self._guarded(enum, member, f"_field_of(g, _N[{k}], env[{enum!r}])")
        cache = self._invariant(e)
        if cache is not None:  # read at its first use in the loop, then kept
            self.emit(f"if {cache} is _M:")
            self.indent += 1
            self._read_field(e, k, cache)
            flag = self.interned.setdefault(cache, self.tmp())
            self.emit(f"{flag} = {cache}.__class__ in _INTERNED")
            self.indent -= 1
            return cache
        t = self.tmp()
        self._read_field(e, k, t)
        return t

    def _invariant(self, e: s.FieldAccess) -> str | None:
        """The local that keeps `x.f` through the innermost loop, if `x` is a local name the loop does not
        bind (a parameter, an outer loop's element): the same card or record at each element, in a
        state that expressions do not change, so the same value or the same error; and reading a field
        charges nothing, so reading it once charges what reading it each time did."""
        obj = e.obj
        if not self.loops or obj.__class__ is not s.Name or obj.id not in self.scope:
            return None
        binding = self.gen.resolution.of(obj)
        if binding is not None and binding.kind != "local":
            return None
        loop = self.loops[-1]
        py = self.scope[obj.id]
        if py == loop.var:
            return None
        if (py, e.name) not in loop.kept:
            loop.kept[py, e.name] = self.tmp()
        return loop.kept[py, e.name]

    def _read_field(self, e: s.FieldAccess, k: int, t: str) -> None:
        v = self.value(e.obj)
        having = self.gen.constant("having", e.name, "", "set()")  # the card classes seen to have the field
        if plain_field(e.name) and (e.name not in self.gen.record_fields or self.known.get(v) == "card"):
            # Only a card reference has an `id`, and a card's class has no public attribute but `id`
            # and its fields: so the attribute is read exactly when the value is a card whose class
            # declares the field, and anything else (a card without it, `none`, a record from a
            # state written elsewhere) is left to `_field`, by the exception, which costs nothing
            # until raised. A field some record literal has is read as below (raising for each
            # record read costs more than the checks: a table of records read in a loop), unless
            # the value is known to be a card (an element of a loop over a zone's cards).
            self.emit("try:")
            self.emit(f"    {t} = {attribute(f'{self._cards()}[{v}.id]', e.name)}")
            self.emit("except _NO_ATTRIBUTE:")
            self.emit(f"    {t} = _field(g, {v}, {e.name!r}, {having}, _N[{k}])")
            return
        # a card of a class seen to have the field: its attribute; a record with the field: its value;
        # anything else: `_field`
        c = self.tmp()
        self.emit(f"if {v}.__class__ is _CardRef and ({c} := g.state.cards[{v}.id]).__class__ in {having}:")
        self.emit(f"    {t} = {attribute(c, e.name)}")
        self.emit(f"elif {v}.__class__ is _Record and {e.name!r} in {v}._fields:")
        self.emit(f"    {t} = {v}._fields[{e.name!r}]")
        self.emit("else:")
        self.emit(f"    {t} = _field(g, {v}, {e.name!r}, {having}, _N[{k}])")

    def _cards(self) -> str:
        """The state's cards, in a loop read once before the outermost loop: expressions change no
        state, so the list is the same throughout (two attribute reads less at each field read)."""
        if not self.loops:
            return "g.state.cards"
        outer = self.loops[0]
        if outer.cards is None:
            outer.cards = self.tmp()
        return outer.cards

    def _call(self, e: s.Call, k: int) -> str:
        binding = self.gen.resolution.of(e)
        name = e.name
        if binding is not None and binding.kind == "fn":
            return fn_call(self, name, k, [self.value(a) for a in e.args])
        if binding is None or binding.kind != "builtin_fn":
            return f"_unknown(g, _N[{k}])"  # the error that names the unknown function
        if name in ("len", "count") and len(e.args) == 1:
            return self._length(e, k)
        return builtin_call(self, e, k)

    def builtin(self, t: str, name: str, args: list[str], k: int) -> None:
        """`t = ` a built-in function's value, by its implementation (builtins.py)."""
        builtin = self.gen.constant("builtin", name, "", f"_BUILTINS[{name!r}].run")
        self.emit("try:")
        self.emit(f"    {t} = {builtin}(g, _N[{k}], [{', '.join(args)}])")
        self.emit("except _VALUE_ERRORS:")
        self.emit(f"    raise _not_taken(g, _N[{k}], [{', '.join(args)}]) from None  # names the values")

    def _zone_ref(self, name: str, keys: list[str]) -> str:
        """The zone `name[keys]` as a value: of one seat or number (of its declared kind), read from a table
        of the zone's values made once when the module runs (a zone is a value never changed once made),
        else made here."""
        made = f"_ZoneRef({name!r}, ({', '.join(keys)},))"
        types = self.gen.resolution.keys.get(name, ())
        kinds = [t.kind for t in types]
        enum = types[0].name if kinds == ["enum"] else None
        if len(keys) != 1 or (kinds not in (["player"], ["int"]) and enum not in self.gen.program.enums):
            return made
        t = keys[0]
        if not _NAME.fullmatch(t):  # (a name is read as it is: no copy)
            t = self.tmp()
            self.emit(f"{t} = {keys[0]}")
        known = self._key_known(t, kinds[0], enum)
        if enum is not None:  # a member of the declared enumeration: its zone, by the member (hashed by identity)
            make = f"{{v: _ZoneRef({name!r}, (v,)) for v in _program.enums[{enum!r}]}}"
            refs = self.gen.constant("zones", name, "", make)
            test, index = known or f"{t}.__class__ is _EnumValue and {t} in {refs}", t
        elif kinds == ["player"]:
            n = max(self.gen.program.max_players, 1)
            refs = self.gen.constant("zones", name, "", f"tuple(_ZoneRef({name!r}, (_Player(i),)) for i in range({n}))")
            test, index = known or f"{t}.__class__ is _Player and -1 < {t}.index < {n}", f"{t}.index"
        else:
            refs = self.gen.constant("zones", name, "", f"tuple(_ZoneRef({name!r}, (i,)) for i in range({KEY_TABLE}))")
            test, index = known or f"{t}.__class__ is int and -1 < {t} < {KEY_TABLE}", t
        if test == "True":  # (known to be a key of the table)
            return f"{refs}[{index}]"
        return f"({refs}[{index}] if {test} else _ZoneRef({name!r}, ({t},)))"

    def _key_known(self, key: str, kind: str, enum: str | None) -> str | None:
        """The test under which `key`, a zone's or variable's one key of declared `kind`, is known to be a key of
        its table ("True": always; `members`, `seats_known`); None: nothing known, its kind is tested."""
        if kind == "enum":
            return "True" if enum is not None and self.members.get(key) == enum else None
        if kind == "int":
            return "True" if self.members.get(key) == KEY_INTS else None
        if kind == "player":
            return self.seats_known.get(key)
        return None

    def _key(self, key: str, name: str, keys: list[str]) -> None:
        """`key = ` the state key of a keyed zone or variable: spelled inline when each key has its declared
        type (a player, a number, an enumeration value), as `zone_key` spells it, else by `zone_key`."""
        typed = self._typed_key(name, keys)
        if typed is None:
            self.emit(f"{key} = _zone_key({name!r}, ({', '.join(keys)},))")
            return
        if typed[0] == "True":  # (a key known to be of its type)
            self.emit(f"{key} = {typed[1]}")
            return
        self.emit(f"if {typed[0]}:")
        self.emit(f"    {key} = {typed[1]}")
        self.emit("else:")
        self.emit(f"    {key} = _zone_key({name!r}, ({', '.join(keys)},))")

    def _typed_key(self, name: str, keys: list[str]) -> tuple[str, str] | None:
        """The test that each key has its declared type and the state key then (`source.typed_key`)."""
        types = self.gen.resolution.keys.get(name, ())
        kinds = [t.kind for t in types]
        enum = types[0].name if len(types) == 1 and types[0].kind == "enum" else None
        members = f"_program.enums[{enum!r}]" if enum in self.gen.program.enums else None
        return typed_key(
            name,
            keys,
            kinds,
            self.gen.program.max_players,
            lambda texts: self.gen.constant("keys", name, "", texts),
            members,
            self._key_known(keys[0], kinds[0], enum) if len(keys) == 1 == len(kinds) else None,
        )

    def zone_lookup(self, name: str, keys: list[str], found: Callable[[str], str], missing: str) -> None:
        """Emit `found(key)` (given the zone's state key) where no key is none, else `missing`.
        Keys of their declared types are tested first: then none of them is none, with no tuple made to ask."""
        typed = self._typed_key(name, keys)
        if typed is not None and typed[0] == "True":  # (a key known to be of its type: never none)
            self.emit(found(typed[1]))
            return
        listed = f"({', '.join(keys)},)"
        test = f"None in {listed}"
        if typed is not None:
            self.emit(f"if {typed[0]}:")
            self.emit(f"    {found(typed[1])}")
            self.emit(f"elif {test}:")
        else:
            self.emit(f"if {test}:")
        self.emit(f"    {missing}")
        self.emit("else:")
        self.emit(f"    {found(f'_zone_key({name!r}, {listed})')}")

    def zone_read(self, e: Any) -> str | None:
        """The zone's name if the expression is a zone with keys (`hand[p]`), else None; no code made."""
        binding = self.gen.resolution.of(e)
        if (
            e.__class__ is s.Index
            and binding is not None
            and binding.kind == "zone"
            and not self.shadowed(binding.name)
        ):
            return binding.name
        return None

    def zone_cards_key(self, e: Any) -> tuple[str, list[str]] | None:
        """`hand[p]` as a zone's name and its keys' values, if the expression is a zone with keys."""
        name = self.zone_read(e)
        return None if name is None else (name, [self.value(a) for a in e.args])

    def _length(self, e: s.Call, k: int) -> str:
        t = self.tmp()
        self.small.add(t)  # (a length, or the built-in's error)
        zone = self.zone_cards_key(e.args[0])
        if zone is not None:  # `len(hand[p])`: the size of a zone, without making a reference to it
            name, keys = zone
            self.zone_lookup(
                name,
                keys,
                lambda key: f"{t} = len(g.state.zones.get({key}, ()))",
                f"{t} = _builtin(g, _N[{k}], [_ZoneRef({name!r}, ({', '.join(keys)},))])",
            )
            self.known[t] = "int"  # (a number, or the built-in's error: `len(deck) == 0` needs no test of its kind)
            return t
        q = e.args[0]
        if q.__class__ is s.Query and q.op == "where":
            return count(self, q)
        if q.__class__ is s.Query and q.op == "group" and not self.gen.probe:
            # `len(xs group by k)`: its distinct keys counted, the groups not made (a probe checks the groups)
            outer, self.at = self.at, self.gen.number[id(q)]
            try:
                return query(self, q, self.at, count_groups=True)
            finally:
                self.at = outer
        v = self.value(q)
        if v in self.sizes:  # the size of a group, its loop's element (loops.py's `read_by_size`)
            return v
        self.known[t] = "int"  # (a number, or the built-in's error)
        if self.known.get(v) == "tuple":
            self.emit(f"{t} = len({v})")
            return t
        self.emit(f"{t} = {v}")
        self.emit(f"if {t}.__class__ is tuple:")
        self.emit(f"    {t} = len({t})")
        self.emit(f"elif {t}.__class__ is _ZoneRef and None not in {t}.keys:")
        self.emit(f"    {t} = len(g.state.zones.get({t}.key, ()))")
        self.emit("else:")
        self.emit(f"    {t} = _builtin(g, _N[{k}], [{t}])")
        return t

    def ints(self, *values: str) -> str:
        """The test that values are numbers (a number written in the text is one, as is a local known to
        hold one: no test)."""
        tests = [f"{v}.__class__ is int" for v in values if not _INT.fullmatch(v) and self.known.get(v) != "int"]
        return " and ".join(tests) or "True"

    def items(self, e: Any) -> str:
        """A list operand's value as a tuple (a zone's cards, none as empty), as `Game.as_list` gives it."""
        t = self.tmp()
        zone = self.zone_cards_key(e)
        if zone is not None:  # `slot[p, 1, 2]` as a list: the zone's cards, without a reference to the zone
            name, keys = zone
            missing = f"{t} = g.as_list(_ZoneRef({name!r}, ({', '.join(keys)},)), _N[{self.gen.number[id(e)]}])"
            # an empty zone (a missing key reads as one) is no list of cards to make: no call of `_card_refs`
            self.zone_lookup(
                name, keys, lambda key: f"{t} = _card_refs({t}) if ({t} := g.state.zones.get({key})) else ()", missing
            )
            self.known[t] = "tuple"
            self.cards.add(t)
            return t
        v = self.value(e)
        if self.known.get(v) == "tuple":
            return v
        self.emit(
            f"{t} = {v} if {v}.__class__ is tuple else _card_refs(g.state.zones.get({v}.key, ())) "
            f"if {v}.__class__ is _ZoneRef else g.as_list({v}, _N[{self.gen.number[id(e)]}])"
        )  # (`g.as_list` of a zone, written out: its cards)
        return t
