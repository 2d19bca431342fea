"""A world a player could be in: everything hidden from them drawn anew, everything they see kept.

Search agents (MCTS) look ahead in such worlds, one per iteration, so that they decide from what
their seat may know and never from the real order of a deck or another player's hand. What is
hidden follows the rulebook's visibility declarations alone (`information.hidden_positions`):

- the cards at the places the player cannot identify (another player's `owner` zone, the player's
  own `others` zone, a `hidden` zone, a `top` pile below its top, unless a variable the player
  sees names the card or their own pending decision offers it) are dealt anew among those
  places, within each card type: a card's identity moves, what the rules changed on it stays at
  its place (below);
- the order of a `public shuffled` zone (its view shows which cards, sorted, not their order) is
  drawn anew within the zone, each card moving whole (the view shows all of it);
- a variable the player does not see (another player's `owner` variable, a `hidden` or `count`
  one: a secret commitment) goes back to its declared initial value, unless it names cards
  (those stay, and the cards they name were dealt anew above), so that a search cannot read
  another player's secret plan;
- the facts the player was told (`tell`) are kept: a place the player holds facts of is dealt only
  a card that agrees with them (`information.consistent_order`), so a world never contradicts what
  the player knows (facts another player holds of a card dealt anew may not hold in it);
- the game's chance generator is reseeded from `rng`: with it, every future draw.

What is drawn depends only on what the player sees and on `rng`: the cards of each group of
places are put in a canonical order (by content) before the shuffle, and the initial values and
the new seed do not depend on the hidden state. So two games that look the same to the player
give the same world for the same `rng` state. What the player saw of a card that has since gone
out of sight is not kept (the world knows less than the player might, never more), and a reset
secret is the player's least informed guess, not a draw among the plans that fit: both are
simplifications of an exact posterior that a generic interpreter cannot compute.

**Identity and changes.** The state keeps each card as its `create` made it (`State.created`).
A hidden card is that, its identity, with the changes the rules made to it since (`set`: the
fields whose value now differs from the created one, `information.changes`). The identities of
a group are dealt among its places, and each place keeps its own changes on top of the identity
it receives (`information.deal`). So a card the rules drew face down and marked as such stays
face down at its place, as some other card, and a card dealt to a clean place in a deck arrives
clean: the world is one the rules could have made. (Dealing whole cards put a face-down card in
the deck and a face-up one in its place, which no rule does, and every such world failed;
dealing only cards whose changes are alike would never redraw a card the rules changed, and the
search would know what it is.) A field set back to its created value is no change: a card turned
face up again moves freely.

A known limitation: a change is kept as the value the field holds, not as the rule that computed
it. A field the rules derive from the card's own printed fields keeps, at its place, the value
derived from the card that was there: a card below the top of a pile, turned to its other side
by a rule that sets both the side and a text read from the side's printed face, is dealt another
card that shows the side set at the place and the old card's text. The world then holds the real
card's derived value, but only in what the rules never read: they compute every effect from the
side and the identity's own printed fields (the text is for the card's label), so what the search
plays out follows the card drawn, and no reward depends on the text left behind. Strictly, two
games that look the same but hold different cards at such a place give different worlds. So do
two such games where one card there was created holding the value the rules set on the other (a
page turned to a text the other card's first side has: no change at that place, so the dealt card
keeps its own). The property tests make look-alike games by dealing the hidden cards anew, which
keeps the values at their places, and leave out those whose changes then differ (hypothesis found
one in a bundled rulebook). Re-deriving the value would need the rule that set it, evaluated again on the new
card, which is sound only for a rule that reads the card's printed fields alone.
"""

from __future__ import annotations

import random
from typing import Any, Generic, Protocol, TypeVar

from ..language.values import CardRef, Player
from .basics import EMPTY_MEMO, LABEL_CACHE_SIZE, shared_dict
from .codecache import CodeCache
from .information import Copyable, cards_in, changes, consistent_order, content_key, hidden_groups, shuffle
from .knowledge import facts_of, fits
from .state import card_with


class Drawable(Copyable, Protocol):
    """A game as a determinizer reads it: a `Copyable` whose code says where its memo keeps what."""

    @property
    def code(self) -> CodeCache: ...


D = TypeVar("D", bound=Drawable)  # the game's own class (a world of a `Game` is a `Game`)


DEALT_CACHE_SIZE = LABEL_CACHE_SIZE  # clean cards dealt to clean places, kept per rulebook


def determinize(game: D, player: Player, rng: random.Random | int) -> D:
    """A clone of `game` in which everything hidden from `player` is drawn anew from `rng`.

    `rng` is a `random.Random` (advanced by the draw) or a seed. The clone's chance is reseeded
    from it, so a caller may play on in the clone at once; `game` is left as it is.
    """
    return Determinizer(game, player).draw(rng)


class Determinizer(Generic[D]):
    """Worlds of one game as one player sees it: what is hidden is worked out once, then each
    `draw` deals it anew (a search draws a world per iteration from the same position)."""

    def __init__(self, game: D, player: Player):
        self.game = game
        st = game.state
        # Each group of places, with its cards in canonical order (the draw must not depend on
        # which card is where, only on which cards are in the group): each as created, with the
        # changes it carries along; and the changes that stay at each place. At a place the player
        # cannot see, a card's identity moves and what the rules changed stays (`information.deal`);
        # in a public shuffled zone the player sees each card whole, only not the order: it moves whole.
        self.groups: list[tuple[list[int], list[tuple[Any, dict[str, Any]]], list[dict[str, Any]]]] = []
        for cids, whole in _groups(game, player):
            changed = [changes(st, c) for c in cids]
            none: list[dict[str, Any]] = [{} for _ in cids]
            carried, stay = (changed, none) if whole else (none, changed)
            items = sorted(
                zip((st.created_card(c) for c in cids), carried, strict=True),
                key=lambda item: (content_key(card_with(item[0], **item[1])), content_key(item[0])),
            )
            self.groups.append((cids, items, stay))
        # By group: for each place of which the player was told facts (`tell`), the cards (their
        # indexes in canonical order) that agree with them, dealt there: a world deals no other.
        facts = facts_of(game, player)
        self.allowed: list[dict[int, set[int]]] = []
        for cids, items, stay in self.groups:
            allowed = {}
            for place, cid in enumerate(cids):
                if cid in facts:
                    allowed[place] = {
                        k
                        for k, (card, carried) in enumerate(items)
                        if fits(card_with(card, **(carried | stay[place])), facts[cid])
                    }
            self.allowed.append(allowed)
        self.resets: list[tuple[str, object]] = []
        for key in sorted(st.vars):
            decl = game.program.vars[key.split("[", 1)[0]]
            if not (_sees_var(game, decl.visibility, key, player) or cards_in(st.vars[key])):
                self.resets.append((key, game.evaluate(decl.init, {})))
        self.kept = _kept_memo(game, {key.split("[", 1)[0] for key, _ in self.resets})
        # By group: the id each card was created with, in canonical order; and, by card (that order)
        # and place, that card as created at that place and as it is there, made at its first deal
        self._ids = [[card.id for card, _ in items] for _, items, _ in self.groups]
        self._as: list[list[list[tuple[Any, Any] | None] | None]] = [[None] * len(items) for _, items, _ in self.groups]
        # A card as created, dealt clean to a clean place: the same for every position of the game
        # (and every game of the rulebook holding that card object), so made once for all of them:
        # by (the created card's identity, the place's id), the created card and the copy.
        self._clean = shared_dict(game.rulebook, "dealt_cards")

    def draw(self, rng: random.Random | int) -> D:
        if not isinstance(rng, random.Random):
            rng = random.Random(rng)
        twin = self.game.clone()
        st = twin.state
        cards = st.cards
        created = None
        for (cids, items, stay), created_ids, made, allowed in zip(
            self.groups, self._ids, self._as, self.allowed, strict=True
        ):
            n = len(cids)
            if allowed:
                order = consistent_order(n, allowed, rng)
            else:
                order = list(range(n))
                # (the same draws as shuffling the cards: a shuffle reads only the length; `shuffle`:
                # `rng.shuffle`, each index drawn inline, as a search draws a world at every playout)
                shuffle(rng, order)
            for place in range(n):
                k, cid = order[place], cids[place]
                if created_ids[k] == cid:  # the card created there is back: the clone's card as it is
                    continue
                row = made[k]
                if row is None:
                    row = made[k] = [None] * n
                moved = row[place]
                if moved is None:
                    card, carried = items[k]
                    change = stay[place]
                    if not carried and not change:
                        moved = self._dealt_clean(card, cid)
                    else:
                        fresh = card_with(card, id=cid)
                        changed = carried | change
                        dealt = card_with(fresh, **changed) if changed else fresh
                        if not change:
                            # It holds what a card of the game holds, but for its id: that card's label.
                            twin.share_label(dealt, self.game.state.cards[card.id])
                        moved = (fresh, dealt)
                    row[place] = moved
                if created is None:
                    created = st.created_list()
                created[cid], cards[cid] = moved
        if created is not None:
            st.created = created
        for key, value in self.resets:
            st.vars[key] = value
        twin.reseed(rng.getrandbits(64))
        # Changed outside the rules: the clone keeps only the values derived before that are still
        # right (shared with the game, as a clone's are: `Game.clone`).
        twin.memo = [part if keep else EMPTY_MEMO for part, keep in zip(twin.memo, self.kept, strict=True)]
        return twin

    def _dealt_clean(self, card: Any, cid: int) -> tuple[Any, Any]:
        """`card` as created, at place `cid`: made once per rulebook, with the label `card` has."""
        clean = self._clean
        entry = clean.get((id(card), cid))
        if entry is not None and entry[0] is card:  # (the entry holds the card: its identity is not reused)
            return entry[1]
        fresh = card_with(card, id=cid)
        self.game.share_label(fresh, card)
        if len(clean) > DEALT_CACHE_SIZE:
            clean.clear()
        clean[id(card), cid] = (card, (fresh, fresh))
        return fresh, fresh


def _kept_memo(game: Drawable, reset: set[str]) -> list[bool]:
    """Which dicts of the memo stay right in every world of `game`: those of the functions whose
    values depend on which card is where, never on what a card is (`MemoLayout.by_place`; a world
    deals identities and leaves every card id where it was), and read no variable a world resets."""
    layout = game.code.memo_layout
    kept = [i in layout.by_place for i in range(layout.size)]
    readers, seat_readers = game.code.memo_readers[len(game.players)]
    for name in reset:
        for i in readers.get(name, ()):
            kept[i] = False
        for first in seat_readers.get(name, ()):
            kept[first : first + layout.seats] = [False] * layout.seats
    return kept


def _groups(game: Drawable, player: Player) -> list[tuple[list[int], bool]]:
    """The groups of card ids whose cards may be dealt anew among themselves, in a fixed order, each
    with whether its cards move whole (a public shuffled zone) or without what the rules changed."""
    cards = game.state.cards
    hidden = sorted(hidden_groups(game, player), key=lambda cids: type(cards[cids[0]]).__name__)
    groups = [(cids, False) for cids in hidden]
    named = _named_cards(game, player)
    for key in sorted(game.state.zones):
        decl = game.program.zones[key.split("[", 1)[0]]
        if decl.visibility == "public" and decl.shuffled:
            ids = [cid for cid in game.state.zones[key] if cid not in named]
            if len(ids) > 1:
                groups.append((ids, True))
    return groups


def _named_cards(game: Drawable, player: Player) -> set[int]:
    """The cards that a variable `player` sees names, or that `player`'s pending decision offers."""
    named: set[int] = set()
    ask = game.pending_ask()
    if ask is not None and ask.decision.player == player:
        named = {v.id for v in ask.offered if isinstance(v, CardRef)}
    for key, value in game.state.vars.items():
        decl = game.program.vars[key.split("[", 1)[0]]
        if _sees_var(game, decl.visibility, key, player):
            named |= cards_in(value)
    return named


def _sees_var(game: Drawable, visibility: str, key: str, player: Player) -> bool:
    return visibility == "public" or (visibility == "owner" and game.information.owned_by(game, key, player))
