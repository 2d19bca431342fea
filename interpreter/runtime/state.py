"""The state of a game: plain attrs data that the one cattrs converter round-trips.

Cards are instances of attrs classes made from the rulebook's card types (frozen: a field
change replaces the card, so a clone copies lists, not cards). Zones are ordered lists of
card ids, the last element on top. Variables map a key string such as `tokens[P2]` to a value.
"""

from __future__ import annotations

from typing import Any

import attrs
import cattrs

from ..check.program import CardType, Program
from ..language.values import TABLE, CardRef, EnumValue, Player, Record, ZoneRef

# The version of a state's JSON. 1 (no "format" key): before `reveal`; 2: with "known"; 3: with
# "told" (written only by a state that holds facts: the others keep writing 2). A state of format
# 1 is read as one in which nothing was revealed, one of format 2 as one in which nothing was told.
STATE_FORMAT = 3


@attrs.define
class State:
    """Everything that is true of a game between two steps."""

    players: int
    cards: list[Any] = attrs.Factory(list)
    location: list[str] = attrs.Factory(list)
    zones: dict[str, list[int]] = attrs.Factory(dict)
    vars: dict[str, Any] = attrs.Factory(dict)
    rng: int = 0
    over: bool = False
    winners: list[int] | None = None
    unfinished: str | None = None  # why a guard stopped the game (`end game unfinished "..."`): no winner
    together: str | None = None  # "won" or "lost": a cooperative end (`end game together won`), one result for all
    # What each player was shown of cards hidden from them (`reveal`): seat (`P1`) -> card ids,
    # each kept until the card moves (runtime/knowledge.py).
    known: dict[str, list[int]] = attrs.Factory(dict)
    # The facts each player was told of cards (`tell`): seat -> (card id, field, value, whether the
    # card's field holds the value), each kept until the card moves or the field is set
    # (runtime/knowledge.py).
    told: dict[str, list[tuple[int, str, Any, bool]]] = attrs.Factory(dict)
    # Each card as its `create` made it (by id), before the rules `set` any field on it: a search's
    # world deals hidden cards anew by what they were created as and leaves what the rules changed
    # at its place (determinize.py). Its first len(cards) entries are the state's (`created_card`);
    # entries are only ever appended, never changed, so copies share the list (a copy costs
    # nothing more) and `add_created` copies it only when another copy has appended past this
    # state's cards. Not part of equality: it is the history of the cards, not what they are.
    created: list[Any] = attrs.field(factory=list, eq=False, repr=False)

    def created_card(self, cid: int) -> Any:
        """Card `cid` as it was created (as it is now in a state that does not know: read from an
        older state's JSON)."""
        created = self.created
        return created[cid] if cid < len(created) else self.cards[cid]

    def add_created(self, card: Any) -> None:
        """Note the card just created (the last of `cards`) as it was created."""
        cid = card.id
        if len(self.created) != cid:  # another copy appended past this state's cards: a list of our own
            # (`created_card` of each card before this one, taken by slices: a copy made by C)
            created = self.created[:cid]
            if len(created) < cid:
                created += self.cards[len(created) : cid]
            self.created = created
        self.created.append(card)

    def created_list(self) -> list[Any]:
        """A list of this state's own of the cards as created, one per card (to change some)."""
        n = len(self.cards)
        created = self.created[:n]
        if len(created) < n:
            created += self.cards[len(created) :]
        return created

    def copy(self) -> State:
        """A copy that shares nothing mutable with this one but the cards as created (see `created`)."""
        new = object.__new__(State)  # (every field is set below: attrs' initializer was half the cost)
        new.players = self.players
        new.cards = list(self.cards)
        new.location = list(self.location)
        zones = self.zones  # (each list copied by C's map, not a comprehension: a copy is made at every clone)
        new.zones = dict(zip(zones, map(list, zones.values()), strict=True))
        new.vars = dict(self.vars)
        new.rng = self.rng
        new.over = self.over
        new.winners = None if self.winners is None else list(self.winners)
        new.unfinished = self.unfinished
        new.together = self.together
        new.known = {k: list(v) for k, v in self.known.items()} if self.known else {}
        new.told = {k: list(v) for k, v in self.told.items()} if self.told else {}
        new.created = self.created  # only ever appended to: shared (see `created`)
        return new


def _known(d: dict[str, Any]) -> dict[str, list[int]]:
    """What the players know, from a state's JSON of any format up to this one."""
    version = d.get("format", 1)
    if not isinstance(version, int) or version > STATE_FORMAT:
        raise ValueError(f"a state of format {version!r}: this rulecraft reads formats 1 to {STATE_FORMAT}")
    return {k: list(v) for k, v in d.get("known", {}).items()}


def _created(d: dict[str, Any], cards: list[Any], card: Any) -> list[Any]:
    """The cards as created, from a state's JSON (absent from older states: the cards as they are)."""
    created = list(cards)
    for c in d.get("created", []):
        again = card(c)
        created[again.id] = again
    return created


def card_class(card_type: CardType) -> type:
    """Make the frozen attrs class that holds cards of a declared card type."""
    fields: dict[str, Any] = {"id": attrs.field()}
    for name, _ in card_type.fields:
        fields[name] = attrs.field(default=None)
    cls = attrs.make_class(card_type.name, fields, frozen=True, slots=True)
    _CARD_FIELDS[cls] = (tuple(fields), frozenset(fields))
    return cls


_CARD_FIELDS: dict[type, tuple[tuple[str, ...], frozenset[str]]] = {}  # a card class's fields, in order and as a set


def card_with(card: Any, **changes: Any) -> Any:
    """A copy of a card with some fields changed: `attrs.evolve` for the classes `card_class` makes,
    at half its cost (they have no validators or converters to run). Searches deal thousands a decision."""
    cls = card.__class__
    fields = _CARD_FIELDS.get(cls)
    if fields is None or not changes.keys() <= fields[1]:
        return attrs.evolve(card, **changes)  # another class, or a field it lacks: evolve's own error
    names = fields[0]
    new = object.__new__(cls)
    for name in names:
        object.__setattr__(new, name, changes[name] if name in changes else getattr(card, name))
    return new


@attrs.frozen
class Codec:
    """The one cattrs converter for a rulebook's states, and its card (un)structuring functions."""

    converter: cattrs.Converter
    # A state's cards are (un)structured one by one, each by these (a soak run checks them so).
    unstructure_card: Any = None
    structure_card: Any = None

    def unstructure(self, state: State) -> Any:
        return self.converter.unstructure(state)

    def structure(self, data: Any) -> State:
        return self.converter.structure(data, State)


def make_converter(program: Program, classes: dict[str, type]) -> Codec:
    """The converter that (un)structures states of games of this program as JSON-ready data."""
    conv = cattrs.Converter()

    def unvalue(v: Any) -> Any:
        if v is None or isinstance(v, bool | int | str):
            return v
        if isinstance(v, Player):
            return {"player": v.index}
        if isinstance(v, EnumValue):
            return {"enum": v.enum, "value": v.name}
        if isinstance(v, CardRef):
            return {"card": v.id}
        if isinstance(v, tuple | list):
            return [unvalue(x) for x in v]
        if isinstance(v, Record):
            return {"record": {k: unvalue(x) for k, x in v.items()}}
        if isinstance(v, ZoneRef):
            return {"zone": v.name, "keys": [unvalue(k) for k in v.keys]}
        if v is TABLE:
            return {"table": True}
        raise TypeError(f"not a rulebook value: {v!r}")

    def value(d: Any) -> Any:
        if d is None or isinstance(d, bool | int | str):
            return d
        if isinstance(d, list):
            return tuple(value(x) for x in d)
        if "player" in d:
            return Player(d["player"])
        if "enum" in d:
            return program.enum_value(d["enum"], d["value"])
        if "card" in d:
            return CardRef(d["card"])
        if "record" in d:
            return Record({k: value(x) for k, x in d["record"].items()})
        if "zone" in d:
            return ZoneRef(d["zone"], tuple(value(k) for k in d["keys"]))
        if "table" in d:
            return TABLE
        raise ValueError(f"not a rulebook value: {d!r}")

    def uncard(card: Any) -> dict[str, Any]:
        out = {"type": type(card).__name__}
        for f in attrs.fields(type(card)):
            out[f.name] = unvalue(getattr(card, f.name))
        return out

    def card(d: dict[str, Any]) -> Any:
        cls = classes[d["type"]]
        return cls(**{f.name: value(d[f.name]) for f in attrs.fields(cls)})

    conv.register_unstructure_hook(
        State,
        lambda st: {
            "players": st.players,
            "cards": [uncard(c) for c in st.cards],
            "location": list(st.location),
            "zones": {k: list(v) for k, v in st.zones.items()},
            "vars": {k: unvalue(v) for k, v in st.vars.items()},
            "rng": st.rng,
            "over": st.over,
            "winners": st.winners,
            "unfinished": st.unfinished,
            # Written only for a cooperative end, so the states of every other game read as before.
            **({"together": st.together} if st.together is not None else {}),
            "known": {k: list(v) for k, v in st.known.items()},
            # The cards a `set` has changed, as they were created (the others were created as they are).
            "created": [uncard(st.created_card(i)) for i, c in enumerate(st.cards) if st.created_card(i) != c],
            **(
                {"told": {k: [[c, f, unvalue(v), h] for c, f, v, h in fs] for k, fs in st.told.items()}, "format": 3}
                if st.told
                else {"format": 2}
            ),
        },
    )

    def state(d: dict[str, Any], _: Any) -> State:
        cards = [card(c) for c in d["cards"]]
        return State(
            players=d["players"],
            cards=cards,
            location=list(d["location"]),
            zones={k: list(v) for k, v in d["zones"].items()},
            vars={k: value(v) for k, v in d["vars"].items()},
            rng=d["rng"],
            over=d["over"],
            winners=d["winners"],
            unfinished=d.get("unfinished"),  # absent from the states of games before the construct
            together=d.get("together"),  # present only for a cooperative end
            known=_known(d),
            told={k: [(c, f, value(v), h) for c, f, v, h in fs] for k, fs in d.get("told", {}).items()},
            created=_created(d, cards, card),
        )

    conv.register_structure_hook(State, state)
    return Codec(conv, uncard, card)
