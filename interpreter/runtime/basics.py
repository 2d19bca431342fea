"""What every part of the runtime shares, below them all: the budgets, the chance generator's step,
the trace's events, a `secret` block's run, the run-time failure, and the small functions over
values that the frames, the generated code and the game use alike.

Nothing here knows a game: the interface of a game to its frames and generated code is `Context`
(context.py, above this module), the frames are machine.py.
"""

from __future__ import annotations

import contextlib
import functools
from collections import _count_elements  # type: ignore[attr-defined]  # (`count_into`, below)
from collections.abc import Callable, Iterable, Mapping, Sequence
from operator import itemgetter
from types import MappingProxyType
from typing import Any

import attrs

from ..errors import Diagnostic, RulebookError, Span
from ..language.values import CardRef, ordered, sort_key
from ..syntax import ast as s

MASK64 = (1 << 64) - 1
STEP_BUDGET = 200_000  # statements between two decisions before a rulebook is called runaway
DEPTH_BUDGET = 400  # nested frames (calls, loops, blocks) before recursion is called runaway
RULE_BUDGET = 1_000  # rule firings after one change
FN_DEPTH_BUDGET = 100  # nested calls of functions (`fn`) inside one expression
TEXT_BUDGET = 100_000  # characters of one text value
INT_BUDGET = s.MAX_NUMBER  # the magnitude of a number (as large as a literal may be written)
OPTION_BUDGET = 10_000  # options of one decision
CARD_BUDGET = 100_000  # cards in a game
# Lists and records nested in a value the state holds: views, the converter and JSON recurse
# into them (JSON cannot do otherwise), so the state holds none deeper than this.
VALUE_DEPTH = 100
LABEL_CACHE_SIZE = 100_000  # card labels kept per rulebook before the cache starts afresh
# Work inside expressions, counted by `Game.charge` between two decisions (the same span as
# STEP_BUDGET): one unit for each element a range, comprehension, query, concatenation or
# built-in produces or reads, each comparison of a sort (n log2 n, times the size of the largest
# key), each character of a text built, and WORK_PER_CALL for each call of a function (`fn`) and
# each binding a rule or invariant tries. A unit is about a tenth of a microsecond: the budget is
# a second or so of work, far above what the bundled rulebooks do between two decisions
# (examples/benchmarks/RELIABILITY-RUNS.md has the figures), and it also bounds what one decision can build in memory.
WORK_BUDGET = 5_000_000
WORK_PER_CALL = 20
# Elements of one value the state holds, counting a shared part each time it appears (what a
# view, a label or the JSON of the state walks).
VALUE_SIZE = 1_000_000
LABEL_BUDGET = 1_000_000  # characters of one label: a value written as text (traces, views, `say`)
# Characters of the labels of one view (`Game.view`): many values each within LABEL_BUDGET would
# otherwise make a view of hundreds of megabytes.
VIEW_BUDGET = 10_000_000
MEMO_BUDGET = 10_000  # values kept in a game's memo (functions' values, zones' labels) before it starts afresh

# `Counter`'s own counting loop, in C: `count_into(counts, items)` adds one to `counts[item]` for each item, in
# the order the items first come (a key that cannot be one: TypeError). A `Counter` made instead costs two
# Python calls more (its `__init__` and `update`: some 6,500 instructions a time, measured), and a `group by`
# counts its keys at every evaluation (compile/loops.py `group_sizes`), a draw its zone's labels.
count_into: Callable[[dict[Any, int], Iterable[Any]], None] = _count_elements


# What a game's memo holds for a part that keeps no value (Game.memo): read-only and shared, so
# that a new game or a clone starts its memo without making a dict per part, and forgetting a
# part is putting this back.
EMPTY_MEMO: Mapping[Any, Any] = MappingProxyType({})


def splitmix(state: int) -> tuple[int, int]:
    """Advance a splitmix64 generator; return (new state, 64 random bits)."""
    state = (state + 0x9E3779B97F4A7C15) & MASK64
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return state, z ^ (z >> 31)


@attrs.frozen
class SecretRun:
    """One run of an outermost `secret` block: the game's step count when it began (which tells
    one run from the next) and where the block is written."""

    step: int
    span: Span


DEPTH_MESSAGE = f"more than {DEPTH_BUDGET} nested steps: runaway recursion?"


class TooDeep(Exception):
    """The depth budget ran out inside a block running inline (compile/blocks.py): the block that runs
    the statement which went too deep makes it the located runaway error, naming that statement."""


class Returned:
    """What a `return` gives back: to the procedure call running it inline (compile/blocks.py), or, from
    a block that is a frame, to the call's frame (`machine.return_from_call`)."""

    __slots__ = ("span", "value")

    def __init__(self, value: Any, span: Span):
        self.value, self.span = value, span


# What a player sees of an event in another player's `secret` block (see Game.visible_to).
SECRET_TEXT = "[a secret choice]"


# Declared mutable (never changed once made): a frozen class sets each field through
# `object.__setattr__`, which made an event of eleven fields cost 2.5 times as much, and a trace
# makes one for each of a game's thousands of lines.
@attrs.define(eq=True)
class Event:
    """One line of the trace: what happened, to what, and the rule that did it.

    `zones` lists the zone keys a move read from and wrote to (the destination last), so that a
    player's view of the trace can show `hidden_text` instead of what that player may not see;
    `top_text` is what everyone sees when cards land on a pile whose top card alone is face up;
    `secret` is the run of a `secret` block the event happened in.

    A decision's event (`choose`, `reveal`) may carry two facts more. `public_zones`, when not
    None, says that every option of the choice was a value others may see (a label, a player, an
    enum value, a number, or a card in one of these zone keys): a viewer who sees the cards of
    those zones sees the choice. `forced` marks a decision with one legal option, taken at once:
    it is shown only to the viewers from whom the choice is hidden (as its hidden text), so that
    a hidden decision looks the same to them whether it had one option or many, while the full
    trace, and the player who decided, show no line for it.

    A reveal's event (`show`, see knowledge.py) names in `to` the seats it showed its cards to.
    A choice among cards its chooser may not identify (offered by their places, `PlacedOption`)
    has `own_text`, what the chooser reads (the place), while `text` names the card too and `to`
    names the other seats that identify the card (a player it was revealed to) and read it.
    """

    verb: str
    text: str
    span: Span
    actor: str = ""
    zones: tuple[str, ...] = ()
    hidden_text: str | None = None
    top_text: str | None = None
    secret: SecretRun | None = None
    public_zones: tuple[str, ...] | None = None
    forced: bool = False
    to: tuple[str, ...] = ()
    own_text: str | None = None


class RuntimeFailure(RulebookError):
    """A step of the rules that cannot be carried out, with its place.

    A `fail`, a `require` that does not hold, a choice with too few options, and every value that
    is not there or not of the kind a step needs (no card to move, an index outside a list, a
    field of `none`, division by zero, ...). Inside an `attempt` or an ability's tier it unwinds
    as `fail` does (`machine.unwind`): the changes are undone and the `else` runs, or the tier is
    withdrawn; `reason` is what the trace's undo line says. Outside both it is this located error.
    A budget (steps, nesting, sizes) is not a failure but a plain RulebookError: a rulebook that
    runs away is broken, so it stops the game wherever it happens.
    """

    def __init__(self, reason: str, diagnostic: Diagnostic, sources: dict[str, str]):
        # Made often (every failure undone inside a tier), so the text is rendered only when shown.
        Exception.__init__(self, reason)
        self.reason, self.span = reason, diagnostic.span
        self.diagnostics = [diagnostic]
        self.sources = sources

    def __str__(self) -> str:
        return self.render()

    def __reduce__(self) -> tuple[Any, ...]:  # crosses process boundaries (simulate's workers) intact
        return (RuntimeFailure, (self.reason, self.diagnostics[0], self.sources))


# What a failure outside any attempt or ability suggests.
FAIL_HINT = "wrap the steps in 'attempt { ... }', or check with 'when' first"


def node_count(node: Any) -> int:
    """The nodes of a statement's or an expression's own text, not those of the blocks it holds
    (they count when they run): what evaluating its expressions once costs at least, in units of
    the budget of work. Walked without recursion; computed once per node (the callers keep it)."""
    count, todo = 0, [node]
    while todo:
        n = todo.pop()
        if n.__class__ is tuple:
            todo.extend(n)
        elif attrs.has(n.__class__) and n.__class__ is not s.Block:
            count += 1
            todo.extend(getattr(n, f.name) for f in attrs.fields(n.__class__))
    return count


def call_cost(body: Any) -> int:
    """What one call of a function with this body charges the budget of work: the call, and the
    nodes of its body (`node_count`; callers keep it, as a long body takes long to count)."""
    return WORK_PER_CALL + node_count(body)


# What Python raises when a built-in gets values of the wrong kind (which `any` lets through the checker).
VALUE_ERRORS = (TypeError, AttributeError, IndexError, KeyError, ValueError, OverflowError)


@functools.cache
def attrs_fields(cls: type) -> frozenset[str]:
    """The declared fields of a card class (never a Python attribute such as `__class__`)."""
    return frozenset(f.name for f in attrs.fields(cls)) if attrs.has(cls) else frozenset()


def query_by_keys(op: str, items: tuple[Any, ...], keys: list[Any]) -> tuple[Any, ...]:
    """The result of `items map/sorted by/max by/min by/group by` given each item's key (`it`'s value)."""
    if op == "map":
        return tuple(keys)
    if op == "sorted":
        order = sorted(range(len(items)), key=lambda i: sort_key(keys[i]))
        return tuple(items[i] for i in order)
    if op in ("max", "min"):
        if not items:
            return ()
        best = ordered(max if op == "max" else min, keys)
        return tuple(v for v, k in zip(items, keys, strict=True) if k == best)
    # (a group for each distinct key, in the order the keys first come: all distinct in most groupings of
    # a game (one item a group) made by one C call, the others with a C call for each repeated key only)
    if len(dict.fromkeys(keys)) == len(items):
        return tuple(zip(items))
    groups: dict[Any, list[Any]] = {}
    for v, k in zip(items, keys, strict=True):
        if k in groups:
            groups[k].append(v)
        else:
            groups[k] = [v]
    return tuple(map(tuple, groups.values()))


def field_index(cards: Sequence[Any], ids: Sequence[int], getter: Callable[[Any], Any]) -> dict[Any, int] | None:
    """How many of the cards `ids` (a zone's) hold each value of the fields `getter` reads (one field's value,
    or a tuple of several), counted by C calls alone; None where a card lacks a field or holds a value that
    cannot be a key: its count is then the definition's loop, which reads the same fields and so gives the
    same answer or the same error (loops.py's `indexed_count`)."""
    counts: dict[Any, int] = {}
    try:
        count_into(counts, map(getter, map(cards.__getitem__, ids)))
    except (AttributeError, TypeError):
        return None
    return counts


CARD_REFS: list[CardRef] = []  # CardRef(i) at index i: a card reference is a plain value, shared freely
_card_ref = CARD_REFS.__getitem__


def card_refs(ids: Sequence[int]) -> tuple[CardRef, ...]:
    """The cards of a zone as values (the same as `tuple(CardRef(i) for i in ids)`, without making them anew)."""
    try:
        # (one C call makes the tuple: a zone is read this way at every look at it, and `tuple(map(...))`
        # took some 1.7 times as long for a zone of 15 cards; `itemgetter` of one index gives the item)
        return itemgetter(*ids)(CARD_REFS) if len(ids) > 1 else (CARD_REFS[ids[0]],) if ids else ()
    except IndexError:  # a card made since the last look: its reference first
        refs = CARD_REFS
        refs.extend(CardRef(i) for i in range(len(refs), max(ids) + 1))
        return tuple(map(_card_ref, ids))


def shared_dict(rulebook: Any, name: str) -> dict[Any, Any]:
    """A dictionary kept on the rulebook and shared by its games (made on first use)."""
    cache = getattr(rulebook, name, None)
    if cache is None:
        cache = {}
        with contextlib.suppress(AttributeError):
            setattr(rulebook, name, cache)
    return cache
