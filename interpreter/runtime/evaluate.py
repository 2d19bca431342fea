"""Expressions: what a node of the AST is worth in a state, by its generated code, and the values' labels."""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from typing import Any, assert_never

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
from .core import (
    NO_FIELD,
    TEMPLATE,
    GameCore,
    plain_card,
    span_of,
    without,
)


class Evaluator(GameCore):
    """The meaning of each kind of expression, node by node, and the values' labels."""

    def rule_match(self, rule: s.RuleDecl) -> dict[str, Any] | None:
        """The first binding (in declaration order) for which the rule's condition holds, or None."""
        match = self.code.matcher(rule)
        if match is None:  # (several bindings)
            return self._first_binding(rule.bindings, lambda env: self._truth(rule.when, env))
        return match(self)  # type: ignore[arg-type]  # a layer of Game (see core.py)

    def _first_binding(self, bindings: tuple[s.Binding, ...], holds: Any) -> dict[str, Any] | None:
        """The first binding (in declaration order) for which `holds(env)` is true, or None."""

        def search(i: int, env: dict[str, Any]) -> dict[str, Any] | None:
            if i == len(bindings):
                return dict(env) if holds(env) else None
            binding = bindings[i]
            for v in self.as_list(self._eval(binding.source, env), binding.source):
                self.charge(WORK_PER_CALL, binding.span)  # a product of bindings over long lists runs away here
                env[binding.name] = v
                found = search(i + 1, env)
                if found is not None:
                    return found
            env.pop(binding.name, None)
            return None

        return search(0, {})

    def _truth(self, e: s.Expr, env: dict[str, Any]) -> bool:
        """The value of a condition: true or false, else a located error."""
        entry = self.code.truths.get(id(e))  # (the code cache's entry read here: one call fewer, as `_eval`)
        if entry is not None and entry[0] is e:
            return bool(entry[1](self, env))  # type: ignore[arg-type]  # a layer of Game (see core.py)
        return bool(self.code.truth(e)(self, env))  # type: ignore[arg-type]  # a layer of Game (see core.py)

    def truth_of(self, v: Any, e: s.Expr) -> bool:
        if v.__class__ is not bool:
            raise self.runtime_error(span_of(e), f"a condition must be true or false, not {self.label(v)}")
        return bool(v)

    def _eval(self, e: s.Expr, env: dict[str, Any]) -> Any:
        """The value of an expression, by its generated function (see codecache.py): a root's, or for an
        expression made outside the program (a scenario's `expect`) one generated for it. The unusual case
        of an operation and its located error are runtime/operations.py's."""
        # (CodeCache.value's entry read here: a statement's operands, a decision's chooser and prompt come
        # this way, and the call of `value` was a third of the cost of a constant's)
        entry = self.code.values.get(id(e))
        if entry is not None and entry[0] is e:
            return entry[1](self, env)  # type: ignore[arg-type]  # a layer of Game (see core.py)
        return self.code.value(e)(self, env)  # type: ignore[arg-type]  # a layer of Game (see core.py)

    # Their public names (a scenario's edits, the parts, the frames): the same functions, one call.
    evaluate = _eval
    holds = _truth

    def binding(self, e: s.Expr, checked: s.Expr | None = None) -> Binding | None:
        """What the checker resolved the node to (check/resolve.py): a `Name`, a `Call`, an `Index` of a zone
        or keyed variable, an `Enum.member`. A node the checker never saw (a scenario's `expect`, a test's
        expression) is resolved by name instead (`unchecked_binding`); `checked` is the part of the node the
        checker resolves when the node itself means nothing of its own (the `obj` of `c.value`, `xs[0]`)."""
        resolution = self.program.resolution
        found = resolution.of(e)
        if found is not None or (checked is not None and resolution.of(checked) is not None):
            return found
        return unchecked_binding(self.program, e)

    def text(self, parts: list[str], e: s.Expr) -> str:
        """The parts of a text joined, once their size is charged and within TEXT_BUDGET."""
        size = sum(map(len, parts))
        self.charge(size, e)
        if size > TEXT_BUDGET:
            raise self.runaway(
                span_of(e),
                f"a text of {size} characters is more than a rulebook may build ({TEXT_BUDGET}): "
                "a runaway computation?",
            )
        return "".join(parts)

    def arith(self, op: str, a: Any, b: Any, left: s.Expr, right: s.Expr, e: s.Expr | s.Stmt) -> Any:
        """`a op b`, for the expression `e` and for `set x op= b` alike (`e` locates the errors)."""
        if op in ("+", "-") and (isinstance(a, tuple | ZoneRef) or isinstance(b, tuple | ZoneRef)):
            xs, ys = self.as_list(a, left), self.as_list(b, right)
            size = len(xs) + len(ys)
            if op == "-":
                self.charge(sort_work(xs + ys), e)  # hashing each element, as a sort would
                return without(xs, ys)
            self.charge(size, e)
            return self.bounded(xs + ys if size <= LIST_BUDGET else None, e, size)
        if op == "+" and isinstance(a, str) and isinstance(b, str):
            self.charge(len(a) + len(b), e)
            if len(a) + len(b) > TEXT_BUDGET:
                raise self.runaway(
                    e.span,
                    f"a text of {len(a) + len(b)} characters is more than a "
                    f"rulebook may build ({TEXT_BUDGET}): a runaway computation?",
                )
            return a + b
        if not isinstance(a, int) or not isinstance(b, int) or isinstance(a, bool) or isinstance(b, bool):
            raise self.runtime_error(e.span, f"cannot compute {self.label(a)} {op} {self.label(b)}")
        if op == "+":
            return self.number(a + b, e)
        if op == "-":
            return self.number(a - b, e)
        if op == "*":
            if a.bit_length() + b.bit_length() > 2 * INT_BUDGET.bit_length():
                return self.number(INT_BUDGET + 1, e)
            return self.number(a * b, e)
        if b == 0:
            raise self.runtime_error(e.span, "division by zero")
        return a // b if op == "//" else a % b

    def number_of(self, e: s.Expr, env: dict[str, Any]) -> int:
        """A count (of cards, repeats, choices, a tier): a number, or a located error."""
        v = self._eval(e, env)
        if not isinstance(v, int) or isinstance(v, bool):
            raise self.runtime_error(span_of(e), f"a number is needed here, not {self.label(v)}")
        return v

    def bounded(self, value: tuple[Any, ...] | None, e: s.Expr | s.Stmt, size: int) -> tuple[Any, ...]:
        """The list, or a located error if it is longer than a rulebook may build (`value` None: too long)."""
        if value is None or len(value) > LIST_BUDGET:
            raise self.runaway(
                span_of(e),
                f"a list of {size} elements is more than a rulebook may build ({LIST_BUDGET}): a runaway computation?",
            )
        return value

    def number(self, value: int, e: s.Expr | s.Stmt) -> int:
        if -INT_BUDGET <= value <= INT_BUDGET:
            return value
        raise self.runaway(span_of(e), f"a number beyond {INT_BUDGET} in size: a runaway computation?")

    def global_value(self, name: str, e: s.Expr) -> Any:
        """The value of the name `e` (not held by a local) as the checker resolved it."""
        binding = self.binding(e)
        if binding is not None and binding.kind == "local":
            # A name the checker saw bound locally but no local holds here: by name, as the definition
            # always read it (the generated code hands such a read to this method too).
            binding = unchecked_binding(self.program, e)
        if binding is None:
            raise self.runtime_error(span_of(e), f"unknown name '{name}'")
        program, bound = self.program, binding.name
        match binding.kind:
            case "const":
                if bound not in self.consts:
                    value = self.consts[bound] = self._eval(program.consts[bound].value, {})
                    if bound in self.code.pure_consts:  # the same in every game of as many players
                        self.code.const_values.setdefault(len(self.players), {})[bound] = value
                return self.consts[bound]
            case "builtin":
                return self.players if bound == "players" else len(self.players) if bound == "player_count" else TABLE
            case "member":
                return program.members[bound]
            case "enum":
                return program.enums[bound]
            case "zone":
                return ZoneRef(bound, ())
            case "var":
                return self.variable(bound, bound)
            case "local" | "keyed_var" | "enum_member" | "fn" | "builtin_fn":
                raise AssertionError(f"a name bound as {binding.kind}: {name}")  # kinds of other nodes
            case _:
                assert_never(binding.kind)

    def variable(self, name: str, key: str) -> Any:
        vars_ = self.state.vars
        if key in vars_:
            return vars_[key]
        decl = self.program.vars[name]
        return self._eval(decl.init, {})

    def _init_vars(self) -> None:
        """Variables without keys start at their initial value; keyed ones read it until first set."""
        for name, decl in self.program.vars.items():
            if not decl.keys:
                self.state.vars[name] = self._eval(decl.init, {})

    def call_fn(self, name: str, args: tuple[Any, ...], span: Span) -> Any:
        fn = self.program.fns[name]
        env = {p.name: a for p, a in zip(fn.params, args, strict=True)}
        if self.fn_depth >= FN_DEPTH_BUDGET:
            raise self.runaway(
                span if span is not NO_SPAN else fn.span,
                f"functions called {FN_DEPTH_BUDGET} deep (in {name}): runaway recursion?",
            )
        self.charge(self.code.fn_cost(name), span if span is not NO_SPAN else fn.span)
        self.fn_depth += 1
        try:
            return self._eval(fn.body, env)
        finally:
            self.fn_depth -= 1

    def zone_of_card(self, card: CardRef) -> ZoneRef:
        return ZoneRef(*self.split_key(self.state.location[card.id]))

    def split_key(self, key: str) -> tuple[str, tuple[Any, ...]]:
        """The name and the key values (each of its own type) of a zone or variable key such as `slot[P1,2,3]`."""
        return parse_key(key, self._enum_word)

    def _enum_word(self, word: str) -> EnumValue | None:
        """The enumeration value a word of a key names: `red`, or `Colour.red`."""
        enum, _, name = word.rpartition(".")
        if not enum:
            return self.program.members.get(word)
        with contextlib.suppress(KeyError):
            return self.program.enum_value(enum, name)
        return None

    def held(self, v: Any, e: s.Expr) -> Any:
        """The value a local name holds: a zone's cards as they are now (a list that later moves do not
        change), else the value itself (docs/LANGUAGE.md, "A zone as a value"); a list or record
        nested deeper than the state may hold is refused here, where it is made (`nested`)."""
        if v.__class__ is ZoneRef:
            return self.as_list(v, e)
        if v.__class__ is tuple or v.__class__ is Record:
            return self.nested(v, e)
        return v

    def argument(self, param: s.Param, v: Any, e: s.Expr) -> Any:
        """The value a procedure's or ability's parameter holds: a zone passed as a `list of T` is its
        cards as they are at the call; a parameter of another type (`any`) takes the zone itself."""
        if v.__class__ is ZoneRef and param.type.__class__ is s.ListType:
            return self.as_list(v, e)
        return v

    def as_list(self, v: Any, e: s.Expr) -> tuple[Any, ...]:
        if isinstance(v, tuple):
            return v
        if isinstance(v, ZoneRef):
            return card_refs(self.state.zones.get(v.key, ()))
        if v is None:
            return ()
        raise self.runtime_error(span_of(e), f"a list is needed here, not {self.label(v)}")

    def cards_of(self, v: Any, e: s.Expr) -> list[CardRef]:
        if isinstance(v, CardRef):
            return [v]
        if v is None:
            raise self.failure(span_of(e), "there is no card to move")
        items = self.as_list(v, e)
        out = []
        for item in items:
            if not isinstance(item, CardRef):
                raise self.runtime_error(span_of(e), f"only cards move, not {self.label(item)}")
            out.append(item)
        return out

    def zone_value(self, v: Any, e: s.Expr) -> ZoneRef:
        if not isinstance(v, ZoneRef):
            raise self.runtime_error(span_of(e), f"a zone is needed here, not {self.label(v)}")
        if None in v.keys:
            raise self.failure(span_of(e), f"there is no zone {v.key}")
        return v

    def label(self, v: Any) -> str:
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
            card = self.state.cards[v.id]
            # Cards are immutable: a card object keeps its label, found by identity (the entry
            # holds the object, so the identity cannot be reused while the entry lives).
            labels = self._labels
            entry = labels.get(id(card))
            if entry is not None and entry[0] is card:
                return entry[1]
            text = self._card_label(card)
            if plain_card(card.__class__, self.program, labels):
                if len(labels) > LABEL_CACHE_SIZE:
                    labels.clear()
                labels[id(card)] = (card, text)
            return text
        if isinstance(v, tuple | Record):
            return self._label_of_value(v)
        return label_of_plain(v)

    def share_label(self, card: Any, like: Any) -> None:
        """Give `card`, which differs from the card `like` only in its id, the label `like` has (a
        label reads declared fields, never the id). Determinizations deal a card's contents to another
        id on every draw: labelling each copy anew took a tenth of a search in a game of many cards."""
        labels = self._labels
        entry = labels.get(id(like))
        if entry is not None and entry[0] is like and len(labels) <= LABEL_CACHE_SIZE:
            labels[id(card)] = (card, entry[1])

    def _label_of_value(self, value: tuple[Any, ...] | Record) -> str:
        """The label of a list or record, written piece by piece without recursion and refused (at the
        statement running) as soon as it passes LABEL_BUDGET characters: a list holding one large
        list many times would otherwise write it out in full each time."""
        flat = flat_label(value, self.label)
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
                piece = self.label(v)
            size += len(piece)
            if size > LABEL_BUDGET:
                raise self.runaway(
                    self.current_span(),
                    f"a value written as text of more than {LABEL_BUDGET} characters is more than a game may "
                    "show: a runaway computation?",
                )
            out.append(piece)
        return "".join(out)

    def _card_label(self, card: Any) -> str:
        template = self.rulebook.labels.get(type(card).__name__)
        if template is None:
            return (
                f"{type(card).__name__}("
                + ", ".join(self.label(getattr(card, f.name)) for f in attrs.fields(type(card))[1:])
                + ")"
            )
        return TEMPLATE.sub(lambda m: self.label(self._template_value(card, m.group(1))), template)

    def _template_value(self, card: Any, path: str) -> Any:
        """The value a label template names (`{colour}`, `{owner.name}`), through declared fields only."""
        v = card
        for part in path.split("."):
            v = self._field_of(v, part)
        return v

    def _field_of(self, v: Any, name: str) -> Any:
        """A declared field of a card or a record, else NO_FIELD: text never reaches other attributes."""
        if isinstance(v, CardRef):
            v = self.state.cards[v.id]
        if isinstance(v, Record):
            return v.get(name) if v.has(name) else NO_FIELD
        cls: type = type(v)  # typed as a plain class: mypy does not see type[Any] as Hashable for the cache
        if cls.__name__ in self.program.cards and name in attrs_fields(cls):
            return getattr(v, name)
        return NO_FIELD

    def zone_labels(self, name: str, key: str, ids: Sequence[int]) -> tuple[str, ...]:
        """The labels of the cards `ids` of zone `key` (of the zone declared as `name`), kept in the
        memo until a change to the zone (MemoLayout.label_slots; a change of a card's field empties
        every part)."""
        part = self.code.memo_layout.label_slots.get(name, 0)
        labels: tuple[str, ...] | None = self.memo[part].get(("#labels", key))  # (no function is named with '#')
        if labels is None:
            labels = tuple(self.labels_of(ids))
            self.keep_zone_labels(name, key, labels)
        return labels

    def keep_zone_labels(self, name: str, key: str, labels: tuple[str, ...]) -> None:
        """Keep the labels of zone `key`'s cards as they are now (`zone_labels`)."""
        part = self.code.memo_layout.label_slots.get(name, 0)
        memo = self.memo[part]
        if memo is EMPTY_MEMO:
            memo = self.memo[part] = {}
        elif len(memo) >= MEMO_BUDGET:  # budget: the part starts afresh rather than grow
            memo.clear()  # type: ignore[attr-defined]  # a dict of its own, not EMPTY_MEMO
        memo[("#labels", key)] = labels  # type: ignore[index]  # a dict of its own, not EMPTY_MEMO

    def labels_of(self, ids: Sequence[int]) -> list[str]:
        """The labels of cards by id (the label cache read directly, as `label` does)."""
        cards, labels = self.state.cards, self._labels
        out = []
        for i in ids:
            card = cards[i]
            entry = labels.get(id(card))
            out.append(entry[1] if entry is not None and entry[0] is card else self.label(CardRef(i)))
        return out


# The method that evaluates each kind of expression (in grammar order of the AST classes).


@attrs.frozen
class _Piece:
    """Punctuation between the elements of a label being written (`Evaluator._label_of_value`)."""

    text: str


_COMMA, _CLOSE_LIST, _CLOSE_RECORD = _Piece(", "), _Piece("]"), _Piece("}")
