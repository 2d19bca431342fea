"""Which functions' values a game keeps until the state changes, and where in its memo (`Game.memo`,
a list of dicts): the layout the generator writes its calls for and the runtime empties by, each
computed from the checked program alone, so that both sides agree.

A function is remembered when it does real work (`worth_remembering`); its dict is chosen by what it
reads (`memo_layout`): one shared by every change, one of its own, or one per seat for a function of
a player that reads some zone only at that player's keys (`seat_reads`). A state-based rule's
condition may be kept the same way (`remembered_rule`).
"""

from __future__ import annotations

from typing import Any

import attrs

from ..check.contents import content_readers, field_readers
from ..check.program import Program, may_hold_zone, named_within, reads_of, reads_of_declarations
from ..syntax import ast as s


def worth_remembering(program: Program, fn: s.FnDecl) -> bool:
    """Whether a function's values are kept until the state changes: it does real work, and its arguments
    are typed, so that equal keys mean equal arguments (as keys, Python's `true` and `1` are one)."""
    if any(named_within(p.type, {"any"}) for p in fn.params):
        return False
    return _does_work(program, fn.body)


def _does_work(program: Program, e: Any, calling: frozenset[str] = frozenset()) -> bool:
    """Whether an expression has a comprehension, a query, a call of a built-in function or a call of a
    function that does work in it. A function that only reads fields and compares them, as a test of
    two cards is, costs less to compute than to look up by its arguments (a record's hash and equality
    are Python calls); a call back into a function being looked at (`calling`) is work."""
    stack: list[Any] = [e]
    while stack:
        node = stack.pop()
        if isinstance(node, s.Comprehension | s.Query):
            return True
        if isinstance(node, s.Call):
            callee = program.fns.get(node.name)
            binding = program.resolution.of(node)
            if callee is None or binding is None or binding.kind != "fn" or node.name in calling:
                return True
            if _does_work(program, callee.body, calling | {node.name}):
                return True
        if isinstance(node, tuple):
            stack.extend(node)
        elif attrs.has(node.__class__):
            stack.extend(getattr(node, f.name) for f in attrs.fields(node.__class__) if f.name != "span")
    return False


@attrs.frozen
class MemoLayout:
    """Where each remembered function keeps its values in a game's memo (`Game.memo`, a list of dicts).

    Dict 0 is emptied by every change of the state: the views' labels and the functions whose
    reads cannot be told apart keep theirs there. A function whose reads are known (the zones and
    variables it reads, through functions and constants: `reads_of`) has a dict of its own, emptied
    only by a change to one of them (`readers`), so its values outlive the changes it does not read.

    A function of a player that reads some zone or variable only at that player's keys (`tableau[p]`,
    `slot[p, k, i]`, or through functions it passes `p` to: `seat_reads`) has a dict per seat
    instead, its values by that argument's seat: a change at one player's key of such a zone (a
    card into `tableau[P1]`) empties that player's dict alone (`seat_readers`); any other change to
    what it reads empties them all. In a game of several players, what one player does then no
    longer makes the functions of the others' positions be computed again.
    """

    slots: dict[str, int]  # fn name -> its dict (0: the shared one), or the first of its dicts by seat
    seat_params: dict[str, int]  # fn name -> the index of the parameter whose seat picks its dict
    readers: dict[str, tuple[int, ...]]  # zone or variable name -> the dicts a change to it empties
    seat_readers: dict[str, tuple[int, ...]]  # zone or variable name -> the first dicts by seat of its readers by seat
    seats: int  # dicts by seat of each such function: the rulebook's most players
    size: int  # dicts in all
    # zone name -> the dict of its zones' labels by key (`evaluate.zone_labels`), emptied by a change to it
    label_slots: dict[str, int] = attrs.field(factory=dict)
    # the dicts of functions whose values depend on which card is where, never on what a card is
    # (`content_readers`): right still in a world of the same game with hidden cards dealt anew
    by_place: frozenset[int] = frozenset()
    # the dicts of functions that read no card's field or label (`field_readers`): right still after
    # a card's field changes (`Game.set_field`)
    field_free: frozenset[int] = frozenset()


def memo_layout(program: Program) -> MemoLayout:
    """The memo layout of a checked program (the same for the generator and the runtime)."""
    # A field may change wherever its card is, and a zone held in a field may be any zone: a
    # change of a field empties every dict (Game.set_field), and a field that may hold a zone
    # leaves no function with reads of its own.
    zone_in_field = any(may_hold_zone(ft) for card in program.cards.values() for _, ft in card.fields)
    plain = {"Player", "int", "bool", "text", *program.enums, *program.cards}
    seats = max(program.max_players, 1)
    slots: dict[str, int] = {}
    seat_params: dict[str, int] = {}
    readers: dict[str, list[int]] = {}
    seat_readers: dict[str, list[int]] = {}
    size = 1
    sets = _ReadSets(program)
    by_content = content_readers(program)
    by_place: set[int] = set()
    by_fields = field_readers(program)
    field_free: set[int] = set()
    for name, fn in program.fns.items():
        if not worth_remembering(program, fn):
            continue
        reads = sets.fn(name)
        if zone_in_field or "*" in reads or not all(named_within(p.type, plain) for p in fn.params):
            slots[name] = 0  # (a zone passed in may be any zone)
            continue
        slots[name] = size
        by_seat = seat_reads(program, name, sets)
        parts = 1 if by_seat is None else seats
        if name not in by_content:
            by_place.update(range(size, size + parts))
        if name not in by_fields:
            field_free.update(range(size, size + parts))
        if by_seat is None:
            for read in reads:
                readers.setdefault(read, []).append(size)
        else:
            seat_params[name], keyed = by_seat
            _add_seat_readers(reads, keyed, size, seats, readers, seat_readers)
        size += parts
    # A state-based rule is checked only after something it reads changed, so its condition's value
    # can be used again only for another player: kept for a rule over the players whose condition
    # reads some zone or variable at the player's keys alone (a player's dict kept through the
    # changes of the others' keys), under the name `rule_memo_name` gives it.
    for rule in program.rules:
        if not remembered_rule(program, rule) or zone_in_field:
            continue
        reads = reads_of(program, [rule.when])
        player = rule.bindings[0].name
        keyed = reads - _unkeyed_in(program, rule.when, {player}, player, sets)
        if "*" in reads or not keyed:
            continue
        name = rule_memo_name(rule)
        slots[name], seat_params[name] = size, 0
        _add_seat_readers(reads, keyed, size, seats, readers, seat_readers)
        size += seats
    # The labels of each zone's cards, kept until a change to the zone (a draw from a deck of a
    # hundred cards labels them all; the views of every player show them).
    label_slots: dict[str, int] = {}
    for zone in program.zones:
        label_slots[zone] = size
        readers.setdefault(zone, []).append(size)
        size += 1
    return MemoLayout(
        slots,
        seat_params,
        {name: tuple(s) for name, s in readers.items()},
        {name: tuple(s) for name, s in seat_readers.items()},
        seats,
        size,
        label_slots,
        frozenset(by_place),
        frozenset(field_free),
    )


def _add_seat_readers(
    reads: frozenset[str],
    keyed: frozenset[str],
    first: int,
    seats: int,
    readers: dict[str, list[int]],
    seat_readers: dict[str, list[int]],
) -> None:
    """Record the dicts by seat from `first` on as readers of `reads`: a change to a name read at the
    player's keys alone (`keyed`) empties one seat's dict, a change to any other all of them."""
    for read in reads:
        if read in keyed:
            seat_readers.setdefault(read, []).append(first)
        else:
            readers.setdefault(read, []).extend(range(first, first + seats))


def readers_for(layout: MemoLayout, players: int) -> tuple[dict[str, tuple[int, ...]], dict[str, tuple[int, ...]]]:
    """What a change to each zone or variable empties in a game of this many players: the dicts any
    change to it empties, and the first dicts by seat of its readers by seat (`MemoLayout`). The
    dicts of seats beyond the game's players never hold a value, so no change empties them; in a
    game of one player every change is that player's."""
    unused = unused_seat_dicts(layout, players)
    readers = {name: tuple(i for i in parts if i not in unused) for name, parts in layout.readers.items()}
    if players > 1:
        return readers, dict(layout.seat_readers)
    for name, firsts in layout.seat_readers.items():
        readers[name] = (*readers.get(name, ()), *firsts)
    return readers, {}


def unused_seat_dicts(layout: MemoLayout, players: int) -> set[int]:
    """The dicts by seat of the seats beyond a game's players: they never hold a value."""
    firsts_by_seat = {layout.slots[name] for name in layout.seat_params}
    return {i for first in firsts_by_seat for i in range(first + players, first + layout.seats)}


class _ReadSets:
    """`reads_of` of each function and constant, and the reads of each function other than at its
    player's keys, each computed once: the layout asks for them again and again."""

    def __init__(self, program: Program):
        self.program = program
        self.reads = reads_of_declarations(program)
        self.unkeyed: dict[tuple[str, int | None], frozenset[str]] = {}

    def fn(self, name: str) -> frozenset[str]:
        return self.reads["fn", name]

    def const(self, name: str) -> frozenset[str]:
        return self.reads["const", name]


def seat_reads(program: Program, name: str, sets: _ReadSets | None = None) -> tuple[int, frozenset[str]] | None:
    """The index of function `name`'s first parameter of type Player, and the zones and variables
    the function reads only at that player's keys (their first key is the parameter itself, here
    or in a function it passes the parameter to); None when there is no such parameter or read."""
    fn = program.fns[name]
    j = next((i for i, p in enumerate(fn.params) if _is_player(p.type)), None)
    if j is None:
        return None
    sets = sets or _ReadSets(program)
    keyed = sets.fn(name) - _unkeyed_reads(program, name, j, sets)
    return (j, keyed) if keyed else None


def _is_player(type_: Any) -> bool:
    return isinstance(type_, s.NamedType) and type_.name == "Player"


def _unkeyed_reads(program: Program, name: str, j: int | None, sets: _ReadSets) -> frozenset[str]:
    """The zones and variables function `name` reads other than at the keys of its parameter j
    (every read, when j is None): a bare `hand`, `tableau[q]` for another `q`, a constant's reads."""
    seen = sets.unkeyed
    if (name, j) in seen:
        return seen[(name, j)]
    fn = program.fns[name]
    seen[(name, j)] = sets.fn(name)  # while it is walked (a recursion): every read counts
    player = fn.params[j].name if j is not None else None
    seen[(name, j)] = result = _unkeyed_in(program, fn.body, {p.name for p in fn.params}, player, sets)
    return result


def _unkeyed_in(
    program: Program,
    body: Any,
    params: set[str],
    player: str | None,
    sets: _ReadSets,
) -> frozenset[str]:
    """The zones and variables an expression whose local names are `params` reads other than at the
    keys of the local `player` (every read, when it is None)."""
    found: set[str] = set()

    def state_name(id_: str, bound: frozenset[str]) -> bool:
        return id_ not in params and id_ not in bound and (id_ in program.zones or id_ in program.vars)

    def is_player(e: Any, bound: frozenset[str]) -> bool:
        # the parameter itself, not a local of a comprehension or query of the same name
        return player is not None and isinstance(e, s.Name) and e.id == player and player not in bound

    def walk(node: Any, bound: frozenset[str]) -> None:
        match node:
            case s.Name(id=id_):
                if state_name(id_, bound):
                    found.add(id_)
                elif id_ not in params and id_ not in bound and id_ in program.consts:
                    found.update(sets.const(id_))
            case s.Index(obj=s.Name(id=id_), args=args) if state_name(id_, bound):
                if args and is_player(args[0], bound):
                    walk(args[1:], bound)  # read at the player's own key
                else:
                    found.add(id_)
                    walk(args, bound)
            case s.Comprehension(element=element, var=var, source=source, condition=condition):
                walk(source, bound)
                walk((element, condition), bound | {var})
            case s.Query(source=source, key=key):
                walk(source, bound)
                walk(key, bound | {"it"})
            case s.Call(name=callee, args=args) if callee in program.fns:
                walk(args, bound)
                callee_params = program.fns[callee].params
                i = next(
                    (i for i, a in enumerate(args) if is_player(a, bound) and _is_player(callee_params[i].type)), None
                )
                found.update(_unkeyed_reads(program, callee, i, sets))
            case tuple():
                for item in node:
                    walk(item, bound)
            case _ if attrs.has(node.__class__):
                for f in attrs.fields(node.__class__):
                    walk(getattr(node, f.name), bound)

    walk(body, frozenset())
    return frozenset(found)


def rule_memo_name(rule: s.RuleDecl) -> str:
    """The memo's name for a rule's condition (no function is named with a space)."""
    return f"rule {rule.name}"


def remembered_rule(program: Program, rule: s.RuleDecl) -> bool:
    """Whether a rule's condition may be kept by the player it is checked for: one binding, over
    the players in seat order, and a condition that does real work."""
    if len(rule.bindings) != 1:
        return False
    source = rule.bindings[0].source
    binding = program.resolution.of(source)
    return (
        isinstance(source, s.Name)
        and source.id == "players"
        and binding is not None
        and binding.kind == "builtin"
        and _does_work(program, rule.when)
    )
