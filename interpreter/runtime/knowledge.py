"""What a player has been shown of cards hidden from them: `reveal CARDS to PLAYERS`.

The state keeps, for each player, the ids of the cards revealed to that player (`State.known`,
keyed by seat, `P1`). A player knows such a card while it stays where it was revealed: any move
of it (to another hand, onto a pile, into a shuffled deck, back into the same zone) makes every
player forget it, since a card that lands where the player sees it is seen there anyway, and one
that lands out of sight is no longer known (its place among the others is lost). The views
show a known card in its zone (`Game.view`), the trace shows the reveal in full to those players
and as a count to the others, and the agents' sampling and the soak leave known cards in place
(`information.hidden_positions`).

Inside an attempt, revealing and forgetting are journalled like any change, so that a failure
undoes them with the rest (`Game._undo`: entries `known` and `forgot`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..errors import Span
from ..language.values import CardRef, Player
from .machine import Event

if TYPE_CHECKING:
    from .store import Store
    from .views import Views

VERB = "show"  # the trace's verb for a reveal (`reveal` is the table's answer to chance)


def reveal(game: Store, cards: Sequence[CardRef], players: Sequence[Player], span: Span) -> None:
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
    if game.event_sinks:
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


def forget(game: Store, ids: Sequence[int]) -> None:
    """The cards moved: no player knows them any more (see the module's docstring)."""
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


def undo(game: Store, entry: tuple[Any, ...]) -> None:
    """Undo one journal entry of `reveal` or `forget`."""
    known = game.state.known
    if entry[0] == "known":
        _, seat, cid = entry
        known[seat].remove(cid)
        if not known[seat]:
            del known[seat]
    else:
        _, seat, cid, index = entry
        known.setdefault(seat, []).insert(index, cid)


def known_to(game: Views, who: Player) -> set[int]:
    """The ids of the cards revealed to `who` that have not moved since."""
    return set(game.state.known.get(str(who), ()))


def shown_in_zones(game: Views, who: Player) -> dict[str, list[str]]:
    """The labels of the cards revealed to `who`, by the zone they are in (each list sorted:
    a reveal tells which cards a zone holds, not where in it they lie)."""
    ids = game.state.known.get(str(who))
    if not ids:
        return {}
    out: dict[str, list[str]] = {}
    location = game.state.location
    for cid in ids:
        out.setdefault(location[cid], []).append(game.label(CardRef(cid)))
    return {key: sorted(labels) for key, labels in out.items()}


def visible_text(game: Views, event: Event, who: Player | None) -> str:
    """A reveal's line names its cards to the players it was for, and to those who see the cards
    where they are anyway (the owner of the hand); the others see how many, from where, to whom."""
    if who is None or str(who) in event.to or all(game.sees_cards_of(k, who) for k in event.zones):
        return event.text
    return event.hidden_text or event.text
