"""A checked rulebook's expressions and functions as the source of one Python module.

Each `fn` becomes a Python function `(game, k, *args)` (k: the calling node) that charges the call,
looks in the memo and computes its body inline, its parameters Python parameters (a remembered one's
body is a function of its own, and a call in generated code charges and looks in the memo where it
stands: calls.py, `remembered_call`, so that a value found costs no Python call); and each expression
that a statement, a declaration or a rule reads (a *root*: an expression whose parent is not an
expression) a function `(game, env) -> value`, where `env` holds the statement's local names.
Inside, an expression is straight-line Python: a comprehension or a `where` a loop, a field read
a read of the card's attribute, a constant written as a literal, a local name a Python local, a
call of a `fn` a call of its Python function (its memo read, or a small one's body written, where the
call stands: calls.py). What each name means was decided by the checker
(check/resolve.py); the generator only reads it.

The common case of each operation is done inline; anything unusual (a value of the wrong kind,
an index out of range, a number too large) is handed, with the operands' values already computed,
to the operation's one definition in runtime/operations.py (`_index(g, _N[k], seq, i)`, `_compare`,
`_binary`, ...), which gives the same value or the same located error; no operand is evaluated twice.

Safe generation: no text of the rulebook reaches the source except as a `repr()` literal. Every
Python name in the source is made here (`t3`, `v12`, `c4`); a rulebook's names, texts and field
names appear only as quoted literals, and spans only as numbers in the line table.

The generated module reads the names in `RUNTIME_NAMES` from the namespace it is run in, which
the runtime provides (runtime/compiled.py); `_N` is the tuple of the program's expression nodes
in the order of `expression_nodes`, which both sides compute from the program alone.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import attrs

from ..check.program import Program, reached
from ..syntax import ast as s
from .body import BOOLEAN, Body
from .calls import MemoCall
from .memo import memo_layout, rule_memo_name, worth_remembering
from .source import CARD_PICKING

# What generated code reads from its namespace (runtime/compiled.py provides each).
RUNTIME_NAMES = (
    "_N",  # the program's expression nodes, by number
    "_program",
    "_M",  # "missing"
    # (game, node, operands' values): what an operation does once its operands are evaluated, for the
    # unusual case and its located error (runtime/operations.py)
    "_index",
    "_field_of",
    "_compare",
    "_binary",
    "_member",
    "_negate",
    "_span",
    "_builtin",
    "_not_taken",  # (game, node, values): the error of a built-in that cannot take them (raised)
    "_query_error",  # (game, node): the error of a query whose keys cannot be ordered (raised)
    "_unknown",  # (game, node): raises the error of a call of an unknown function
    "_probe",  # (game, k, value, env): value of node k, checked (only in code generated to be checked)
    "_ZoneRef",
    "_CardRef",
    "_Record",
    "_EnumValue",
    "_Player",
    "_zone_key",
    "_card_refs",
    "_contains",
    "_query_by_keys",
    "_field",  # (game, value, name, having, node): a field read that is not a card of a class seen before
    "_same",
    "_INTERNED",  # the classes of values that are one object per value (values.py): same is `is`
    "_flatten",  # (game, list, node): `flatten` of a list of lists, charged and bounded; else _M
    "_BUILTINS",
    "_VALUE_ERRORS",
    "_NO_ATTRIBUTE",  # AttributeError: a field read of what is not a card that has the field (body.py)
    "_INT_BUDGET",
    "_TEXT_BUDGET",
    "_LIST_BUDGET",
    "_FN_DEPTH_BUDGET",
    "_MEMO_BUDGET",
    "_EMPTY_MEMO",  # the empty dict a game's memo holds for a part until a value is kept there
    "_fn_cost",  # (fn name): the work one call of it costs (Game.charge)
    "_cost_of",  # (node number): the work a call of a function of that expression would cost
    "_sort_work",
    "_field_index",  # (cards, ids, getter): how many of the cards hold each value of the fields read; else None
    "_attrgetter",  # operator.attrgetter: the fields an index counts by (loops.py's `indexed_count`)
    "_count_into",  # (dict, keys): each key's count added to the dict's, in C: a query's groups' sizes (`group_sizes`)
    "_id",  # Python's `id`: a card's entry in the label cache is found by its card's identity (calls.py)
)

EXPRESSIONS = (
    s.IntLit,
    s.StrLit,
    s.Template,
    s.BoolLit,
    s.NoneLit,
    s.Name,
    s.ListLit,
    s.Comprehension,
    s.RecordLit,
    s.FieldAccess,
    s.Index,
    s.Call,
    s.Neg,
    s.Binary,
    s.RangeOp,
    s.Compare,
    s.In,
    s.Not,
    s.And,
    s.Or,
    s.Query,
    s.CondExpr,
)


def _declarations(program: Program) -> Iterator[Any]:
    yield from program.consts.values()
    yield from program.vars.values()
    yield from program.fns.values()
    yield from program.procs.values()
    yield from program.abilities.values()
    yield from program.rules
    yield from program.invariants
    yield from program.setup
    if program.play is not None:
        yield program.play


def expression_nodes(program: Program) -> tuple[list[Any], list[int]]:
    """Every expression node of the program in one fixed order, and the numbers of the roots among them."""
    nodes: list[Any] = []
    roots: list[int] = []
    seen: set[int] = set()
    # (node, whether an ancestor is an expression), depth first, children in field order
    stack: list[tuple[Any, bool]] = [(d, False) for d in reversed(list(_declarations(program)))]
    while stack:
        node, inside = stack.pop()
        if isinstance(node, tuple):
            stack.extend((n, inside) for n in reversed(node))
            continue
        if not attrs.has(node.__class__):
            continue
        if node.__class__ is s.Let and node.value.__class__ is s.Call and node.value.name in program.procs:
            # `let x = proc(...)`: a procedure's call, not an expression; its code (compile/blocks.py)
            # reads each argument, a root
            stack.extend((a, False) for a in reversed(node.value.args))
            continue
        is_expr = isinstance(node, EXPRESSIONS)
        if is_expr:
            if id(node) in seen:
                continue
            seen.add(id(node))
            if not inside:
                roots.append(len(nodes))
            nodes.append(node)
        children = [getattr(node, f.name) for f in attrs.fields(node.__class__) if f.name != "span"]
        stack.extend((c, inside or is_expr) for c in reversed(children))
    return nodes, roots


@attrs.frozen
class Generated:
    """A rulebook's generated module: its source, its root and fn functions' names, and its line table."""

    source: str
    roots: dict[int, str]  # node number -> name of its function (game, env)
    fns: dict[str, str]  # fn name -> name of its call function (game, k, *args)
    lines: dict[int, int]  # line of the source -> number of the node it computes


def generate(program: Program, probe: bool = False) -> Generated:
    """The module of a checked program. With `probe`, each node's value is also passed to `_probe` (tests)."""
    return Generator(program, probe).module()


def calls_no_function(program: Program, e: Any) -> bool:
    """Whether evaluating an expression calls no function of the rulebook: not itself, nor through a
    constant computed when first read or a keyed variable's initial value (`reached`). A function whose
    body calls none needs no count of the depth of calls (`Game.fn_depth`): only a call reads the count,
    so its runaway errors are raised where they were. The name of a zone or keyed variable read at its
    keys (`pile` in `pile[p]`) and of an enumeration (`E` in `E.m`) is not resolved on its
    own: its node (reached after the node that reads it) is read by name, never evaluated."""
    named: set[int] = set()  # the names that a resolved `x[...]` or `E.m` reads by name
    for node in reached(program, e):
        cls = node.__class__
        if cls is s.Call or cls is s.Name:
            binding = program.resolution.of(node)
            if (cls is s.Call and (binding is None or binding.kind != "builtin_fn")) or (
                cls is s.Name and binding is None and id(node) not in named
            ):
                return False
        elif cls is s.Index or cls is s.FieldAccess:
            binding = program.resolution.of(node)
            if binding is not None and binding.kind in ("zone", "keyed_var", "enum_member"):
                named.add(id(node.obj))
    return True


INLINED_SIZE = 16  # the most nodes a function's body has for its calls to be written with the body


def _size(e: Any) -> int:
    """The number of nodes of an expression."""
    if e.__class__ is tuple:
        return sum(_size(x) for x in e)
    if not attrs.has(e.__class__):
        return 0
    return 1 + sum(_size(getattr(e, f.name)) for f in attrs.fields(e.__class__) if f.name != "span")


def _keep(indent: str, slot: str, value: str) -> list[str]:
    """The lines that keep `value` under `key` in the memo's dict `slot` (`Game.memo`)."""
    return [
        f"{indent}memo = g.memo[{slot}]",
        f"{indent}if memo is _EMPTY_MEMO:  # the part's first value: its own dict (Game.memo)",
        f"{indent}    memo = g.memo[{slot}] = {{}}",
        f"{indent}elif len(memo) >= _MEMO_BUDGET:  # budget: the memo starts afresh rather than grow",
        f"{indent}    memo.clear()",
        f"{indent}memo[key] = {value}",
    ]


class Generator:
    def __init__(self, program: Program, probe: bool):
        self.program = program
        self.resolution = program.resolution
        self.probe = probe
        self.nodes, self.root_numbers = expression_nodes(program)
        self.number = {id(n): k for k, n in enumerate(self.nodes)}
        # The fields a record of this program may have: its record literals' (body.py reads a field of
        # no record by the card's attribute first)
        self.record_fields = frozenset(i.name for n in self.nodes if n.__class__ is s.RecordLit for i in n.inits)
        self.lines: list[tuple[int, str, int]] = []  # (indent, text, node number or -1)
        self.prologue: list[str] = []
        self.constants: dict[tuple[str, str, str], str] = {}  # module-level values, made once
        self.fn_names = {name: f"c{i}" for i, name in enumerate(program.fns)}  # the call function of each `fn`
        self.memo = memo_layout(program)
        # the remembered functions: where each keeps its values, and the names of its code
        self.memo_calls = {
            name: self._memo_call(i, name)
            for i, (name, fn) in enumerate(program.fns.items())
            if worth_remembering(program, fn)
        }
        # the functions whose body a call writes where it stands (`inlined_call`): small, not remembered,
        # calling no function (so that no count of the depth of calls and no recursion is left out)
        self.inlined = frozenset(
            name
            for name, fn in program.fns.items()
            if name not in self.memo_calls and _size(fn.body) <= INLINED_SIZE and calls_no_function(program, fn.body)
        )
        # the functions whose value is a boolean by construction: their body is one, or a call of one
        self.boolean_fns: set[str] = set()
        grown = True
        while grown:  # (a function that calls one found boolean is one: found on the next pass)
            found = {n for n, fn in program.fns.items() if isinstance(fn.body, BOOLEAN) or self.returns_bool(fn.body)}
            grown, self.boolean_fns = len(found) > len(self.boolean_fns), found
        # the functions whose value is a number by construction: their body is a length, a number written in
        # the text, a product, quotient or remainder, a sum or difference of two such, or a call of one such
        self.int_fns: set[str] = set()
        grown = True
        while grown:
            found = {n for n, fn in program.fns.items() if self._is_int(fn.body)}
            grown, self.int_fns = len(found) > len(self.int_fns), found
        # the functions whose value is a tuple of cards by construction: their body picks cards of a zone
        # (`where`, `sorted by`, `max by`, `min by` over a zone, or over a call of one such function)
        self.card_list_fns: set[str] = set()
        grown = True
        while grown:
            found = {n for n, fn in program.fns.items() if self._picks_cards(fn.body)}
            grown, self.card_list_fns = len(found) > len(self.card_list_fns), found
        # the root numbers of the rule conditions kept in the memo
        self.remembered_rules = {
            self.number[id(rule.when)]: rule
            for rule in program.rules
            if rule_memo_name(rule) in self.memo.slots and not probe
        }

    # ------------------------------------------------------------ the module

    def module(self) -> Generated:
        fns: dict[str, str] = {}
        for name, fn in self.program.fns.items():
            fns[name] = self._fn(name, fn)
        roots = {k: self._root(k) for k in self.root_numbers}
        out = [
            "# Generated by rulecraft from a checked rulebook (rulecraft compile). Do not edit: rulecraft",
            "# makes it again from the rulebook. _index(g, _N[k], ...) and the like: operations.py.",
            "",
            *self.prologue,
            "",
        ]
        table: dict[int, int] = {}
        for indent, text, k in self.lines:
            out.append("    " * indent + text)
            if k >= 0:
                table[len(out)] = k
        out += ["", f"LINES = {table!r}", ""]
        return Generated("\n".join(out), roots, fns, table)

    def constant(self, kind: str, a: str, b: str, make: str) -> str:
        """A module-level value made once when the module runs (an enumeration value, a built-in)."""
        key = (kind, a, b)
        if key not in self.constants:
            name = self.constants[key] = f"k{len(self.constants)}"
            self.prologue.append(f"{name} = {make}")
        return self.constants[key]

    def _picks_cards(self, e: Any) -> bool:
        """Whether a function's body is a query that picks cards of a zone (`card_list_fns`)."""
        if e.__class__ is not s.Query or e.op not in CARD_PICKING:
            return False
        source = e.source
        binding = self.resolution.of(source)
        if source.__class__ is s.Index and binding is not None and binding.kind == "zone":
            return True  # (a function's body has no local name to hide the zone: `Body.shadowed`)
        return self.returns_cards(source) or self._picks_cards(source)

    def returns_cards(self, e: Any) -> bool:
        """Whether an expression is a call of a function whose value is a tuple of cards by construction."""
        binding = self.resolution.of(e) if e.__class__ is s.Call else None
        return binding is not None and binding.kind == "fn" and e.name in self.card_list_fns

    def returns_bool(self, e: Any) -> bool:
        """Whether an expression is a call of a function whose value is a boolean by construction (its
        value is its body's, found in the memo or computed; a runaway call raises)."""
        binding = self.resolution.of(e) if e.__class__ is s.Call else None
        return binding is not None and binding.kind == "fn" and e.name in self.boolean_fns

    def returns_int(self, e: Any) -> bool:
        """Whether an expression is a call of a function whose value is a number by construction (`int_fns`;
        its value is its body's, found in the memo or computed; a runaway call raises)."""
        binding = self.resolution.of(e) if e.__class__ is s.Call else None
        return binding is not None and binding.kind == "fn" and e.name in self.int_fns

    def _is_int(self, e: Any) -> bool:
        """Whether an expression's value is a number by construction, as its generated code gives it (a
        length is one or the built-in's error; `*`, `//` and `%` take numbers only: `operators.binary`)."""
        if e.__class__ is s.IntLit:
            return True
        if e.__class__ is s.Call:
            binding = self.resolution.of(e)
            if binding is not None and binding.kind == "builtin_fn" and e.name in ("len", "count") and len(e.args) == 1:
                return True
            return self.returns_int(e)
        if e.__class__ is s.Binary:
            return e.op in ("*", "//", "%") or (e.op in ("+", "-") and self._is_int(e.left) and self._is_int(e.right))
        return False

    def _memo_call(self, i: int, name: str) -> MemoCall:
        """Where remembered function `name` (the i-th) keeps its values, and the names of its code."""
        slot, seat, by_seat = self.memo.slots.get(name, 0), self.memo.seat_params.get(name, -1), None
        if seat >= 0:  # a dict per seat of the player argument (MemoLayout)
            make = f"{{_Player(i): {slot} + i for i in range({self.memo.seats})}}"
            by_seat = self.constant("seats", name, "", make)
        cost = self.constant("cost", name, "", f"_fn_cost({name!r})")
        return MemoCall(name, self.fn_names[name], f"f{i}", cost, slot, by_seat, seat)

    def _fn(self, name: str, fn: s.FnDecl) -> str:
        """The function `(game, k, *args)` that a call of the `fn` at node k runs: the budgets and the memo,
        then the body, written inside it (one Python call per call of the `fn`, not two). A remembered
        function's body is a function of its own (`MemoCall.miss`), which a call of it runs only when its
        value is not in the memo (a call in generated code does the rest where it stands: `remembered_call`)."""
        params = [f"a{i}" for i in range(len(fn.params))]
        call = self.fn_names[name]
        args = ", ".join(params)
        cost = self.constant("cost", name, "", f"_fn_cost({name!r})")
        head = [
            f"# fn {name!r}, line {fn.span.line}",
            f"def {call}(g, k{', ' if params else ''}{args}):",
            "    if g.fn_depth >= _FN_DEPTH_BUDGET:",
            f"        return g.call_fn({name!r}, ({args}{',' if params else ''}), _N[k].span)  # the runaway error",
            f"    g.work_left -= {cost}  # budget: each call, remembered or not",
            "    if g.work_left < 0:",
            "        g.charge(0, _N[k])",
        ]
        memo = self.memo_calls.get(name)
        if memo is not None:
            if memo.by_seat is not None:
                head.append(f"    slot = {memo.by_seat}.get({params[memo.seat]}, 0)")
            slot, key = memo.slot_key(params, "slot")
            head += [
                f"    key = {key}",
                "    try:",
                f"        v = g.memo[{slot}].get(key, _M)",
                "    except TypeError:  # an argument that cannot be a key: computed each time",
                "        v = _M",
                f"    return v if v is not _M else {memo.miss}(g, {', '.join([*params, slot, 'key'])})",
                "",
                f"def {memo.miss}(g, {', '.join([*params, 'slot', 'key'])}):",
            ]
        counted = not calls_no_function(self.program, fn.body)  # (a body that calls no function: no count)
        if counted:
            head += ["    g.fn_depth += 1", "    try:"]
        self.lines += [(0, line, -1) for line in head]
        body = Body(self, env=False, scope={p.name: a for p, a in zip(fn.params, params, strict=True)})
        body.indent = 2 if counted else 1
        if memo is not None:
            body.memo_part = "slot"
            if memo.by_seat is not None:  # (`slot` is not 0 only for a seat of the tables: `seats_known`)
                body.seats_known[params[memo.seat]] = "slot"
        result = body.value(fn.body)
        self.lines += body.lines
        tail = [f"    v = {result}"]
        if counted:
            tail = [f"        v = {result}", "    finally:", "        g.fn_depth -= 1"]
        if memo is not None:
            tail += ["    try:", *_keep("        ", "slot", "v"), "    except TypeError:", "        pass"]
        tail += ["    return v", ""]
        self.lines += [(0, line, -1) for line in tail]
        return call

    def _root(self, k: int) -> str:
        name = f"r{k}"
        span = self.nodes[k].span
        self.lines.append((0, f"# line {span.line}, column {span.column}", -1))
        self.lines.append((0, f"def {name}(g, env):", -1))
        rule = self.remembered_rules.get(k)
        if rule is not None:
            self._remembered_condition(k, rule)
            return name
        body = Body(self, env=True, scope={})
        result = body.value(self.nodes[k])
        self._flush(body, result)
        return name

    def _remembered_condition(self, k: int, rule: s.RuleDecl) -> None:
        """A rule's condition kept in the memo by the player it is checked for (`memo_layout`): a
        value found charges what a call of a function of the condition would (`_cost_of`)."""
        memo_name = rule_memo_name(rule)
        first, seats = self.memo.slots[memo_name], self.memo.seats
        by_seat = self.constant("seats", memo_name, "", f"{{_Player(i): {first} + i for i in range({seats})}}")
        cost = self.constant("cost", memo_name, "", f"_cost_of({k})")
        self.lines += [
            (1, f"key = ({memo_name!r}, env.get({rule.bindings[0].name!r}, _M))", -1),
            (1, "try:", -1),
            (1, f"    slot = {by_seat}.get(key[1], 0)", -1),
            (1, "    v = g.memo[slot].get(key, _M)", -1),
            (1, "except TypeError:  # a value that cannot be a key: computed each time", -1),
            (1, "    key, slot, v = None, 0, _M", -1),
            (1, "if v is not _M:", -1),
            (1, f"    g.work_left -= {cost}", -1),
            (1, "    if g.work_left < 0:", -1),
            (1, f"        g.charge(0, _N[{k}])", -1),
            (1, "    return v", -1),
        ]
        body = Body(self, env=True, scope={})
        result = body.value(self.nodes[k])
        for name, local in body.hoisted.items():
            self.lines.append((1, f"{local} = env.get({name!r}, _M)", -1))
        self.lines += body.lines
        self.lines.append((1, "if key is not None:", -1))
        self.lines += [(1, line, -1) for line in _keep("    ", "slot", result)]
        self.lines += [(1, f"return {result}", -1), (0, "", -1)]

    def _flush(self, body: Body, result: str) -> None:
        for name, local in body.hoisted.items():
            self.lines.append((1, f"{local} = env.get({name!r}, _M)", -1))
        self.lines += body.lines
        self.lines.append((1, f"return {result}", -1))
        self.lines.append((0, "", -1))
