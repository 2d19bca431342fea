"""What a player has been shown of cards hidden from them (`reveal CARDS to PLAYERS`), and the facts
they were told of cards (`tell PLAYERS which of CARDS have FIELD VALUE`).

The state keeps, for each player, the ids of the cards revealed to that player (`State.known`,
keyed by seat, `P1`). A player knows such a card while it stays where it was revealed: any move
of it (to another hand, onto a pile, into a shuffled deck, back into the same zone) makes every
player forget it, since a card that lands where the player sees it is seen there anyway, and one
that lands out of sight is no longer known (its place among the others is lost). The views
show a known card in its zone (`Game.view`), the trace shows the reveal in full to those players
and as a count to the others, and the agents' sampling and the soak leave known cards in place
(`information.hidden_positions`).

A fact told is kept the same way (`State.told`, by seat: card id, field, value, whether the
card's field holds it): any move of the card forgets it, and so does a `set` of that field of
the card, so that every fact a player holds is true of the state. The views show the facts by
place (`told_in_zones`), and a world drawn for a player deals only cards that agree with them
(`information.consistent_order`).

Inside an attempt, revealing, telling and forgetting are journalled like any change, so that a
failure undoes them with the rest (`Game.undo`: entries `known`, `forgot`, `told`, `untold`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..errors import Span
from ..language.values import CardRef, EnumValue, Player, Record, ZoneRef
from .asks import Decision
from .basics import OPTION_BUDGET, Event
from .context import Context, Frame
from .core import DONE
from .machine import AskFrame

VERB = "show"  # the trace's verb for a reveal (`reveal` is the table's answer to chance)


def reveal(game: Context, cards: Sequence[CardRef], players: Sequence[Player], span: Span) -> None:
    """Show `cards` to `players`: each of them knows those cards until they move."""
    if not cards or not players:
        return
    known = game.state.known
    journal = game.journal if game.attempts else None
    for player in players:
        ids = known.setdefault(str(player), [])
        for card in cards:
            if card.id not in ids:
                ids.append(card.id)
                if journal is not None:
                    journal.append(("known", str(player), card.id))
    if game.sinks.events:
        location = game.state.location
        sources = list(dict.fromkeys(location[c.id] for c in cards))
        names = list(dict.fromkeys(str(p) for p in players))
        where, whom = " + ".join(sources), ", ".join(names)
        n = len(cards)
        game.emit(
            Event(
                VERB,
                f"{', '.join(game.label(c) for c in cards)} ({where}) to {whom}",
                span,
                zones=tuple(sources),
                hidden_text=f"{n} card{'s' if n != 1 else ''} ({where}) to {whom}",
                secret=game.secret_run,
                to=tuple(names),
            )
        )


TELL_VERB = "tell"  # the trace's verb for facts told
FACT_BUDGET = 2_000  # facts a player may hold at once (a game tells a few of each card it hides)


def tell(
    game: Context, players: Sequence[Player], cards: Sequence[CardRef], field: str, value: Any, span: Span
) -> None:
    """Tell `players`, of each of `cards`, whether its `field` holds `value`: a fact each of them
    keeps until the card moves or the rules set that field (see the module's docstring)."""
    if not cards or not players:
        return
    st = game.state
    journal = game.journal if game.attempts else None
    facts = [(c.id, field, value, getattr(st.cards[c.id], field) == value) for c in cards]
    for player in dict.fromkeys(players):
        held = st.told.setdefault(str(player), [])
        if len(held) + len(facts) > FACT_BUDGET:
            raise game.runaway(span, f"{player} would hold more than {FACT_BUDGET} facts told: a runaway computation?")
        for fact in facts:
            if fact not in held:
                held.append(fact)
                if journal is not None:
                    journal.append(("told", str(player), fact))
    if game.sinks.events:
        sources = list(dict.fromkeys(st.location[c.id] for c in cards))
        names = list(dict.fromkeys(str(p) for p in players))
        said = game.label(value)
        has = [place_of(game, c.id) for c, f in zip(cards, facts, strict=True) if f[3]]
        not_ = [place_of(game, c.id) for c, f in zip(cards, facts, strict=True) if not f[3]]
        parts = ([f"{', '.join(has)}: {field} {said}"] if has else []) + (
            [f"{', '.join(not_)}: not {field} {said}"] if not_ else []
        )
        n = len(cards)
        game.emit(
            Event(
                TELL_VERB,
                f"to {', '.join(names)}: {'; '.join(parts)}",
                span,
                zones=tuple(sources),
                hidden_text=f"{', '.join(names)} told of {n} card{'s' if n != 1 else ''} ({' + '.join(sources)})",
                secret=game.secret_run,
                to=tuple(names),
            )
        )


def place_of(game: Context, cid: int) -> str:
    """A card's place as the options of a choice name it: `card 2 of hand[P1]` (card 1 is the zone's `first`)."""
    key = game.state.location[cid]
    return f"card {game.state.zones[key].index(cid) + 1} of {key}"


def forget_field(game: Context, cid: int, field: str) -> None:
    """The rules set a field of card `cid`: every fact told about that field of it is forgotten."""
    _drop(game, lambda fact: fact[0] == cid and fact[1] == field)


def _drop(game: Context, gone: Any) -> None:
    told = game.state.told
    journal = game.journal if game.attempts else None
    for seat in list(told):
        held = told[seat]
        for index in range(len(held) - 1, -1, -1):
            if gone(held[index]):
                if journal is not None:
                    journal.append(("untold", seat, held[index], index))
                del held[index]
        if not held:
            del told[seat]


def facts_of(game: Context, who: Player) -> dict[int, list[tuple[str, Any, bool]]]:
    """The facts `who` holds, by card id: (field, value, whether the card's field holds it)."""
    out: dict[int, list[tuple[str, Any, bool]]] = {}
    for cid, field, value, has in game.state.told.get(str(who), ()):
        out.setdefault(cid, []).append((field, value, has))
    return out


def fits(card: Any, facts: Sequence[tuple[str, Any, bool]]) -> bool:
    """Whether `card` agrees with every fact of `facts` (as `facts_of` gives them for one card)."""
    return all((getattr(card, field) == value) == has for field, value, has in facts)


def forget(game: Context, ids: Sequence[int]) -> None:
    """The cards moved: no player knows them any more, nor any fact told of them (see the module's docstring)."""
    if game.state.told:
        moved = set(ids)
        _drop(game, lambda fact: fact[0] in moved)
    known = game.state.known
    journal = game.journal if game.attempts else None
    for seat in list(known):
        held = known[seat]
        for cid in ids:
            if cid in held:
                index = held.index(cid)
                del held[index]
                if journal is not None:
                    journal.append(("forgot", seat, cid, index))
        if not held:
            del known[seat]


def undo(game: Context, entry: tuple[Any, ...]) -> None:
    """Undo one journal entry of `reveal`, `tell` or `forget`."""
    known = game.state.known
    if entry[0] == "told":
        _, seat, fact = entry
        game.state.told[seat].remove(fact)
        if not game.state.told[seat]:
            del game.state.told[seat]
    elif entry[0] == "untold":
        _, seat, fact, index = entry
        game.state.told.setdefault(seat, []).insert(index, fact)
    elif entry[0] == "known":
        _, seat, cid = entry
        known[seat].remove(cid)
        if not known[seat]:
            del known[seat]
    else:
        _, seat, cid, index = entry
        known.setdefault(seat, []).insert(index, cid)


def known_to(game: Context, who: Player) -> set[int]:
    """The ids of the cards revealed to `who` that have not moved since."""
    return set(game.state.known.get(str(who), ()))


def seen_anyway(game: Context, who: Player) -> set[int]:
    """The ids of cards `who` identifies wherever they lie: revealed to `who` and not moved since,
    or named by a variable `who` sees (its value shows in the view)."""
    seen = known_to(game, who)
    program = game.program
    for key, value in game.state.vars.items():
        decl = program.vars[key.split("[", 1)[0]]
        if decl.visibility == "public" or (decl.visibility == "owner" and game.information.owned_by(game, key, who)):
            seen |= cards_in(value)
    return seen


def offered_by_place(game: Context, who: Player, cards: Sequence[CardRef]) -> dict[int, str]:
    """The cards among `cards` that a choice by `who` offers by their place, not by their label,
    each with the label of its option (`card 2 of hand[P1]`): the cards `who` may not identify.

    Those are the cards of a zone `who` does not see (another player's `owner` zone, a `hidden` or
    `count` zone), unless revealed to `who` and still there or named by a variable `who` sees. A
    card of a `top` pile is named: choosing among a face-up pile's cards is a search through it,
    and a search shows the searcher what it offers. A place counts as the rules list a zone
    (`card 1` is its `first`, the top its last); everyone may know it, and exchanging the cards
    `who` cannot see keeps it, so the options read alike in every world `who` cannot tell apart.
    """
    location, zones, out = game.state.location, game.program.zones, {}
    seen: set[int] | None = None
    hidden: dict[str, bool] = {}  # by zone key, decided once: a choice offers many cards of few zones
    for card in cards:
        key = location[card.id]
        unseen = hidden.get(key)
        if unseen is None:
            visibility = zones[key.split("[", 1)[0]].visibility
            unseen = hidden[key] = not (
                visibility == "top" or game.information.zone_seen_by(game, visibility, key, who)
            )
        if not unseen:
            continue
        if seen is None:
            seen = seen_anyway(game, who)
        if card.id not in seen:
            ids = game.state.zones[key]
            out[card.id] = f"card {ids.index(card.id) + 1} of {key}"
    return out


def cards_in(value: Any) -> set[int]:
    """The ids of the cards in a value (a card, a list or a record of them, nested)."""
    if isinstance(value, CardRef):
        return {value.id}
    if isinstance(value, tuple | list):
        return set().union(*(cards_in(v) for v in value)) if value else set()
    if isinstance(value, Record):
        return set().union(*(cards_in(v) for _, v in value.items()))
    return set()


def shown_in_zones(game: Context, who: Player) -> dict[str, dict[str, str]]:
    """The labels of the cards revealed to `who`, by the zone they are in, each by its place
    (`card 2`, as a choice's options name it), top first: a reveal shows the cards where they lie,
    and `who` knows their order while they stay there."""
    ids = game.state.known.get(str(who))
    if not ids:
        return {}
    places: dict[str, list[tuple[int, str]]] = {}
    location, zones = game.state.location, game.state.zones
    for cid in ids:
        key = location[cid]
        places.setdefault(key, []).append((zones[key].index(cid) + 1, game.label(CardRef(cid))))
    return {key: {f"card {n}": label for n, label in sorted(found, reverse=True)} for key, found in places.items()}


def told_in_zones(game: Context, who: Player) -> dict[str, dict[str, list[str]]]:
    """The facts `who` was told (`tell`), by the zone their cards are in, each card by its place
    (`card 2`), top first: `colour red`, `not value 3`."""
    facts = facts_of(game, who)
    if not facts:
        return {}
    places: dict[str, list[tuple[int, list[str]]]] = {}
    location, zones = game.state.location, game.state.zones
    for cid, held in facts.items():
        key = location[cid]
        texts = [f"{'' if has else 'not '}{field} {game.label(value)}" for field, value, has in held]
        places.setdefault(key, []).append((zones[key].index(cid) + 1, texts))
    return {key: {f"card {n}": texts for n, texts in sorted(found, reverse=True)} for key, found in places.items()}


def visible_text(game: Context, event: Event, who: Player | None) -> str:
    """A reveal's line names its cards to the players it was for, and to those who see the cards
    where they are anyway (the owner of the hand); the others see how many, from where, to whom."""
    if who is None or str(who) in event.to or all(game.information.sees_cards_of(game, k, who) for k in event.zones):
        return event.text
    return event.hidden_text or event.text


def two_options(g: Context, values: Sequence[Any]) -> bool:
    """Whether a player's choice among `values` surely offers two options or more (not more than a
    decision may), told without labelling them all: the first value and another that no labelling
    merges with it (two values but cards of different labels; two cards of different labels or places,
    their labels such that no option's text of one can be the other's: no " in ", no "card ..."). False
    when that is not sure: the options are then made as usual."""
    if len(values) < 2 or len(values) > OPTION_BUDGET:
        return False
    first = values[0]
    cls = first.__class__
    if cls is str or cls is int:
        return any(v.__class__ is cls and v != first for v in values)
    label, location = g.label, g.state.location
    if cls is not CardRef:  # (any other value's option is its label, as it is)
        text = label(first)
        return any(v.__class__ is not CardRef and label(v) != text for v in values)
    text, where = label(first), location[first.id]
    if " in " in text or text.startswith("card "):
        return False
    for v in values:
        if v.__class__ is CardRef:
            other = label(v)
            if (other != text or location[v.id] != where) and " in " not in other and not other.startswith("card "):
                return True
    return False


def public_zones(frame: Frame, decision: Decision, location: Sequence[str]) -> tuple[str, ...] | None:
    """The zone keys of the cards a choice offers, when every option is a value others may
    see (a menu's labels, an ability's tiers, players, enum values, numbers, zones, or cards);
    None otherwise."""
    if not isinstance(frame, AskFrame) or decision.player is None:
        return None
    if frame.kind in ("menu", "use"):
        return ()  # fixed labels: a menu's options, an ability's tiers
    # What the choice first offered and has picked counts too: a last "done" alone is as
    # hidden as the cards it stands for (nothing of a hand fits any more).
    values = [o.value for o in decision.options if o.value is not DONE] + [*frame.pool, *frame.picked]
    if not values:
        return None
    zones: set[str] = set()
    for value in values:
        cls = value.__class__
        if cls is CardRef:  # (the common cases, without a call)
            zones.add(location[value.id])
        elif cls is EnumValue or cls is int or cls is Player:
            continue
        elif not _public_value(value, zones, location):
            return None
    return tuple(sorted(zones))


def _public_value(value: Any, zones: set[str], location: Sequence[str]) -> bool:
    if isinstance(value, CardRef):
        zones.add(location[value.id])
        return True
    if isinstance(value, tuple | list):
        return all(_public_value(v, zones, location) for v in value)
    # Not a text: it may be made of a hidden card's name ("play " + label(c)).
    return value is None or isinstance(value, Player | EnumValue | ZoneRef | int)
