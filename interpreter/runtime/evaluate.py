"""Expressions: what a node of the AST is worth in a state, by its generated code, and the values' labels.

Functions over the game (a `Valued`: the `Context` and what labels need), not a layer of it: `Game`
has each public one as a method too (game.py, its facade), the function itself as a class attribute."""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Sequence
from typing import Any, Protocol, assert_never

import attrs

from ..check.fragment import unchecked_binding
from ..check.resolve import Binding
from ..errors import NO_SPAN, Span
from ..language.builtins import LIST_BUDGET, sort_work
from ..language.values import (
    TABLE,
    CardRef,
    EnumValue,
    Record,
    ZoneRef,
    flat_label,
    label_of_plain,
    parse_key,
)
from ..syntax import ast as s
from .basics import (
    EMPTY_MEMO,
    FN_DEPTH_BUDGET,
    INT_BUDGET,
    LABEL_BUDGET,
    LABEL_CACHE_SIZE,
    MEMO_BUDGET,
    TEXT_BUDGET,
    WORK_PER_CALL,
    attrs_fields,
    card_refs,
)
from .context import Context, apart
from .core import (
    NO_FIELD,
    TEMPLATE,
    plain_card,
    span_of,
    without,
)


class Valued(Context, Protocol):
    """A game as the functions of this module read it (`Game` has it all): a `Context`, its rulebook's
    label templates, the cache of cards' labels and the rulebook's code (codecache.py) in full."""

    rulebook: Any

    @property
    def code(self) -> Any: ...

    def current_span(self) -> Span: ...


def rule_match(g: Valued, rule: s.RuleDecl) -> dict[str, Any] | None:
    """The first binding (in declaration order) for which the rule's condition holds, or None."""
    match = g.code.matcher(rule)
    if match is None:  # (several bindings)
        return first_binding(g, rule.bindings, lambda env: holds(g, rule.when, env))
    return match(g)


def first_binding(g: Valued, bindings: tuple[s.Binding, ...], holds: Any) -> dict[str, Any] | None:
    """The first binding (in declaration order) for which `holds(env)` is true, or None."""

    def search(i: int, env: dict[str, Any]) -> dict[str, Any] | None:
        if i == len(bindings):
            return dict(env) if holds(env) else None
        binding = bindings[i]
        for v in as_list(g, evaluate(g, binding.source, env), binding.source):
            g.charge(WORK_PER_CALL, binding.span)  # a product of bindings over long lists runs away here
            env[binding.name] = v
            found = search(i + 1, env)
            if found is not None:
                return found
        env.pop(binding.name, None)
        return None

    return search(0, {})


def holds(g: Valued, e: s.Expr, env: dict[str, Any]) -> bool:
    """The value of a condition: true or false, else a located error."""
    entry = g.code.truths.get(id(e))  # (the code cache's entry read here: one call fewer, as `_eval`)
    if entry is not None and entry[0] is e:
        return bool(entry[1](g, env))
    return bool(g.code.truth(e)(g, env))


def truth_of(g: Valued, v: Any, e: s.Expr) -> bool:
    if v.__class__ is not bool:
        raise g.runtime_error(span_of(e), f"a condition must be true or false, not {label(g, v)}")
    return bool(v)


def evaluate(g: Valued, e: s.Expr, env: dict[str, Any]) -> Any:
    """The value of an expression, by its generated function (see codecache.py): a root's, or for an
    expression made outside the program (a scenario's `expect`) one generated for it. The unusual case
    of an operation and its located error are runtime/operations.py's."""
    # (CodeCache.value's entry read here: a statement's operands, a decision's chooser and prompt come
    # this way, and the call of `value` was a third of the cost of a constant's)
    entry = g.code.values.get(id(e))
    if entry is not None and entry[0] is e:
        return entry[1](g, env)
    return g.code.value(e)(g, env)


def binding(g: Valued, e: s.Expr, checked: s.Expr | None = None) -> Binding | None:
    """What the checker resolved the node to (check/resolve.py): a `Name`, a `Call`, an `Index` of a zone
    or keyed variable, an `Enum.member`. A node the checker never saw (a scenario's `expect`, a test's
    expression) is resolved by name instead (`unchecked_binding`); `checked` is the part of the node the
    checker resolves when the node itself means nothing of its own (the `obj` of `c.value`, `xs[0]`)."""
    resolution = g.program.resolution
    found = resolution.of(e)
    if found is not None or (checked is not None and resolution.of(checked) is not None):
        return found
    return unchecked_binding(g.program, e)


def text(g: Valued, parts: list[str], e: s.Expr) -> str:
    """The parts of a text joined, once their size is charged and within TEXT_BUDGET."""
    size = sum(map(len, parts))
    g.charge(size, e)
    if size > TEXT_BUDGET:
        raise g.runaway(
            span_of(e),
            f"a text of {size} characters is more than a rulebook may build ({TEXT_BUDGET}): a runaway computation?",
        )
    return "".join(parts)


def arith(g: Valued, op: str, a: Any, b: Any, left: s.Expr, right: s.Expr, e: s.Expr | s.Stmt) -> Any:
    """`a op b`, for the expression `e` and for `set x op= b` alike (`e` locates the errors)."""
    if op in ("+", "-") and (isinstance(a, tuple | ZoneRef) or isinstance(b, tuple | ZoneRef)):
        xs, ys = as_list(g, a, left), as_list(g, b, right)
        size = len(xs) + len(ys)
        if op == "-":
            g.charge(sort_work(xs + ys), e)  # hashing each element, as a sort would
            return without(xs, ys)
        g.charge(size, e)
        return bounded(g, xs + ys if size <= LIST_BUDGET else None, e, size)
    if op == "+" and isinstance(a, str) and isinstance(b, str):
        g.charge(len(a) + len(b), e)
        if len(a) + len(b) > TEXT_BUDGET:
            raise g.runaway(
                e.span,
                f"a text of {len(a) + len(b)} characters is more than a "
                f"rulebook may build ({TEXT_BUDGET}): a runaway computation?",
            )
        return a + b
    if not isinstance(a, int) or not isinstance(b, int) or isinstance(a, bool) or isinstance(b, bool):
        raise g.runtime_error(e.span, f"cannot compute {label(g, a)} {op} {label(g, b)}")
    if op == "+":
        return number(g, a + b, e)
    if op == "-":
        return number(g, a - b, e)
    if op == "*":
        if a.bit_length() + b.bit_length() > 2 * INT_BUDGET.bit_length():
            return number(g, INT_BUDGET + 1, e)
        return number(g, a * b, e)
    if b == 0:
        raise g.runtime_error(e.span, "division by zero")
    return a // b if op == "//" else a % b


def number_of(g: Valued, e: s.Expr, env: dict[str, Any]) -> int:
    """A count (of cards, repeats, choices, a tier): a number, or a located error."""
    v = evaluate(g, e, env)
    if not isinstance(v, int) or isinstance(v, bool):
        raise g.runtime_error(span_of(e), f"a number is needed here, not {label(g, v)}")
    return v


def bounded(g: Valued, value: tuple[Any, ...] | None, e: s.Expr | s.Stmt, size: int) -> tuple[Any, ...]:
    """The list, or a located error if it is longer than a rulebook may build (`value` None: too long)."""
    if value is None or len(value) > LIST_BUDGET:
        raise g.runaway(
            span_of(e),
            f"a list of {size} elements is more than a rulebook may build ({LIST_BUDGET}): a runaway computation?",
        )
    return value


def number(g: Valued, value: int, e: s.Expr | s.Stmt) -> int:
    if -INT_BUDGET <= value <= INT_BUDGET:
        return value
    raise g.runaway(span_of(e), f"a number beyond {INT_BUDGET} in size: a runaway computation?")


def global_value(g: Valued, name: str, e: s.Expr) -> Any:
    """The value of the name `e` (not held by a local) as the checker resolved it."""
    bound_to = binding(g, e)
    if bound_to is not None and bound_to.kind == "local":
        # A name the checker saw bound locally but no local holds here: by name, as the definition
        # always read it (the generated code hands such a read to this method too).
        bound_to = unchecked_binding(g.program, e)
    if bound_to is None:
        raise g.runtime_error(span_of(e), f"unknown name '{name}'")
    program, bound = g.program, bound_to.name
    match bound_to.kind:
        case "const":
            if bound not in g.consts:
                if bound in g.code.pure_consts:  # the same in every game of as many players: computed once
                    with apart(g):
                        value = g.consts[bound] = evaluate(g, program.consts[bound].value, {})
                    g.code.const_values.setdefault(len(g.players), {})[bound] = value
                else:
                    g.consts[bound] = evaluate(g, program.consts[bound].value, {})
            return g.consts[bound]
        case "builtin":
            return g.players if bound == "players" else len(g.players) if bound == "player_count" else TABLE
        case "member":
            return program.members[bound]
        case "enum":
            return program.enums[bound]
        case "zone":
            return ZoneRef(bound, ())
        case "var":
            return variable(g, bound, bound)
        case "local" | "keyed_var" | "enum_member" | "fn" | "builtin_fn":
            raise AssertionError(f"a name bound as {bound_to.kind}: {name}")  # kinds of other nodes
        case _:
            assert_never(bound_to.kind)


def variable(g: Valued, name: str, key: str) -> Any:
    vars_ = g.state.vars
    if key in vars_:
        return vars_[key]
    decl = g.program.vars[name]
    return evaluate(g, decl.init, {})


def init_vars(g: Valued) -> None:
    """Variables without keys start at their initial value; keyed ones read it until first set."""
    for name, decl in g.program.vars.items():
        if not decl.keys:
            g.state.vars[name] = evaluate(g, decl.init, {})


def call_fn(g: Valued, name: str, args: tuple[Any, ...], span: Span) -> Any:
    fn = g.program.fns[name]
    env = {p.name: a for p, a in zip(fn.params, args, strict=True)}
    if g.fn_depth >= FN_DEPTH_BUDGET:
        raise g.runaway(
            span if span is not NO_SPAN else fn.span,
            f"functions called {FN_DEPTH_BUDGET} deep (in {name}): runaway recursion?",
        )
    g.charge(g.code.fn_cost(name), span if span is not NO_SPAN else fn.span)
    g.fn_depth += 1
    try:
        return evaluate(g, fn.body, env)
    finally:
        g.fn_depth -= 1


def zone_of_card(g: Valued, card: CardRef) -> ZoneRef:
    return ZoneRef(*split_key(g, g.state.location[card.id]))


def split_key(g: Valued, key: str) -> tuple[str, tuple[Any, ...]]:
    """The name and the key values (each of its own type) of a zone or variable key such as `slot[P1,2,3]`."""
    return parse_key(key, lambda word: _enum_word(g, word))


def _enum_word(g: Valued, word: str) -> EnumValue | None:
    """The enumeration value a word of a key names: `red`, or `Colour.red`."""
    enum, _, name = word.rpartition(".")
    if not enum:
        return g.program.members.get(word)
    with contextlib.suppress(KeyError):
        return g.program.enum_value(enum, name)
    return None


def held(g: Valued, v: Any, e: s.Expr) -> Any:
    """The value a local name holds: a zone's cards as they are now (a list that later moves do not
    change), else the value itself (docs/LANGUAGE.md, "A zone as a value"); a list or record
    nested deeper than the state may hold is refused here, where it is made (`nested`)."""
    if v.__class__ is ZoneRef:
        return as_list(g, v, e)
    if v.__class__ is tuple or v.__class__ is Record:
        return g.nested(v, e)
    return v


def argument(g: Valued, param: s.Param, v: Any, e: s.Expr) -> Any:
    """The value a procedure's or ability's parameter holds: a zone passed as a `list of T` is its
    cards as they are at the call; a parameter of another type (`any`) takes the zone itg."""
    if v.__class__ is ZoneRef and param.type.__class__ is s.ListType:
        return as_list(g, v, e)
    return v


def as_list(g: Valued, v: Any, e: s.Expr) -> tuple[Any, ...]:
    if isinstance(v, tuple):
        return v
    if isinstance(v, ZoneRef):
        return card_refs(g.state.zones.get(v.key, ()))
    if v is None:
        return ()
    raise g.runtime_error(span_of(e), f"a list is needed here, not {label(g, v)}")


_CARD_REF_ONLY = frozenset({CardRef})


def cards_of(g: Valued, v: Any, e: s.Expr) -> list[CardRef]:
    # (the commonest, first: a zone's cards, or a list of cards alone (a join of zones, a `where`),
    # taken as they are by C; any other value is looked at item by item below)
    if v.__class__ is ZoneRef:
        return list(card_refs(g.state.zones.get(v.key, ())))
    if v.__class__ is tuple and {*map(type, v)} <= _CARD_REF_ONLY:
        return list(v)
    if isinstance(v, CardRef):
        return [v]
    if v is None:
        raise g.failure(span_of(e), "there is no card to move")
    items = as_list(g, v, e)
    out = []
    for item in items:
        if not isinstance(item, CardRef):
            raise g.runtime_error(span_of(e), f"only cards move, not {label(g, item)}")
        out.append(item)
    return out


def zone_value(g: Valued, v: Any, e: s.Expr) -> ZoneRef:
    if not isinstance(v, ZoneRef):
        raise g.runtime_error(span_of(e), f"a zone is needed here, not {label(g, v)}")
    if None in v.keys:
        raise g.failure(span_of(e), f"there is no zone {v.key}")
    return v


def label(g: Valued, v: Any) -> str:
    """The stable, readable label of a value: what traces print and records store."""
    cls = v.__class__
    # (texts, numbers, enumeration values: the commonest after cards, as `label_of_plain` writes them)
    if cls is str:
        return v
    if cls is int:
        return str(v)
    if cls is EnumValue:
        return v.name
    if cls is bool:  # (a flag the trace writes at each `set`: as `label_of_plain` writes it)
        return "true" if v else "false"
    if v is NO_FIELD:
        return "?"
    if cls is CardRef:
        card = g.state.cards[v.id]
        # Cards are immutable: a card object keeps its label, found by identity (the entry
        # holds the object, so the identity cannot be reused while the entry lives).
        labels = g.code.card_labels
        entry = labels.get(id(card))
        if entry is not None and entry[0] is card:
            return entry[1]
        text = card_label(g, card)
        if plain_card(card.__class__, g.program, labels):
            if len(labels) > LABEL_CACHE_SIZE:
                labels.clear()
            labels[id(card)] = (card, text)
        return text
    if isinstance(v, tuple | Record):
        return _label_of_value(g, v)
    return label_of_plain(v)


def share_label(g: Valued, card: Any, like: Any) -> None:
    """Give `card`, which differs from the card `like` only in its id, the label `like` has (a
    label reads declared fields, never the id). Determinizations deal a card's contents to another
    id on every draw: labelling each copy anew took a tenth of a search in a game of many cards."""
    labels = g.code.card_labels
    entry = labels.get(id(like))
    if entry is not None and entry[0] is like and len(labels) <= LABEL_CACHE_SIZE:
        labels[id(card)] = (card, entry[1])


def _label_of_value(g: Valued, value: tuple[Any, ...] | Record) -> str:
    """The label of a list or record, written piece by piece without recursion and refused (at the
    statement running) as soon as it passes LABEL_BUDGET characters: a list holding one large
    list many times would otherwise write it out in full each time."""
    flat = flat_label(value, functools.partial(label, g))
    if flat is not None and len(flat) <= LABEL_BUDGET:
        return flat
    out: list[str] = []
    size = 0
    # The work left: a value to write, or a piece of punctuation between its elements.
    todo: list[Any] = [value]
    while todo:
        v = todo.pop()
        if v.__class__ is _Piece:
            piece = v.text
        elif v.__class__ is tuple:
            todo.append(_CLOSE_LIST)
            for i in range(len(v) - 1, -1, -1):
                todo.append(v[i])
                if i:
                    todo.append(_COMMA)
            piece = "["
        elif v.__class__ is Record:
            todo.append(_CLOSE_RECORD)
            fields = list(v.items())
            for i in range(len(fields) - 1, -1, -1):
                todo.append(fields[i][1])
                todo.append(_Piece(f"{fields[i][0]}: "))
                if i:
                    todo.append(_COMMA)
            piece = "{"
        else:
            piece = label(g, v)
        size += len(piece)
        if size > LABEL_BUDGET:
            raise g.runaway(
                g.current_span(),
                f"a value written as text of more than {LABEL_BUDGET} characters is more than a game may "
                "show: a runaway computation?",
            )
        out.append(piece)
    return "".join(out)


def card_label(g: Valued, card: Any) -> str:
    template = g.rulebook.labels.get(type(card).__name__)
    if template is None:
        return (
            f"{type(card).__name__}("
            + ", ".join(label(g, getattr(card, f.name)) for f in attrs.fields(type(card))[1:])
            + ")"
        )
    return TEMPLATE.sub(lambda m: label(g, _template_value(g, card, m.group(1))), template)


def _template_value(g: Valued, card: Any, path: str) -> Any:
    """The value a label template names (`{colour}`, `{owner.name}`), through declared fields only."""
    v = card
    for part in path.split("."):
        v = _field_of(g, v, part)
    return v


def _field_of(g: Valued, v: Any, name: str) -> Any:
    """A declared field of a card or a record, else NO_FIELD: text never reaches other attributes."""
    if isinstance(v, CardRef):
        v = g.state.cards[v.id]
    if isinstance(v, Record):
        return v.get(name) if v.has(name) else NO_FIELD
    cls: type = type(v)  # typed as a plain class: mypy does not see type[Any] as Hashable for the cache
    if cls.__name__ in g.program.cards and name in attrs_fields(cls):
        return getattr(v, name)
    return NO_FIELD


def zone_labels(g: Valued, name: str, key: str, ids: Sequence[int]) -> tuple[str, ...]:
    """The labels of the cards `ids` of zone `key` (of the zone declared as `name`), kept in the
    memo until a change to the zone (MemoLayout.label_slots; a change of a card's field empties
    every part)."""
    part = g.code.memo_layout.label_slots.get(name, 0)
    labels: tuple[str, ...] | None = g.memo[part].get(("#labels", key))  # (no function is named with '#')
    if labels is None:
        labels = tuple(labels_of(g, ids))
        keep_zone_labels(g, name, key, labels)
    return labels


def keep_zone_labels(g: Valued, name: str, key: str, labels: tuple[str, ...]) -> None:
    """Keep the labels of zone `key`'s cards as they are now (`zone_labels`)."""
    part = g.code.memo_layout.label_slots.get(name, 0)
    memo = g.memo[part]
    if memo is EMPTY_MEMO:
        memo = g.memo[part] = {}
    elif len(memo) >= MEMO_BUDGET:  # budget: the part starts afresh rather than grow
        memo.clear()  # (a dict of its own, not EMPTY_MEMO)
    memo[("#labels", key)] = labels  # (a dict of its own, not EMPTY_MEMO)


def labels_of(g: Valued, ids: Sequence[int]) -> list[str]:
    """The labels of cards by id (the label cache read directly, as `label` does)."""
    cards, labels = g.state.cards, g.code.card_labels
    out = []
    for i in ids:
        card = cards[i]
        entry = labels.get(id(card))
        out.append(entry[1] if entry is not None and entry[0] is card else label(g, CardRef(i)))
    return out


# The method that evaluates each kind of expression (in grammar order of the AST classes).


@attrs.frozen
class _Piece:
    """Punctuation between the elements of a label being written (`_label_of_value`)."""

    text: str


_COMMA, _CLOSE_LIST, _CLOSE_RECORD = _Piece(", "), _Piece("]"), _Piece("}")
