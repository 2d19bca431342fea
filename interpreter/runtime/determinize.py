"""A world a player could be in: everything hidden from them drawn anew, everything they see kept.

Search agents (MCTS) look ahead in such worlds, one per iteration, so that they decide from what
their seat may know and never from the real order of a deck or another player's hand. What is
hidden follows the rulebook's visibility declarations alone (`information.hidden_positions`):

- the cards at the places the player cannot identify (another player's `owner` zone, a `hidden`
  zone, a `top` pile below its top, unless a variable the player sees names the card or their own
  pending decision offers it) are dealt anew among those places, within each card type;
- the order of a `public shuffled` zone (its view shows which cards, sorted, not their order) is
  drawn anew within the zone;
- a variable the player does not see (another player's `owner` variable, a `hidden` or `count`
  one: a secret commitment) goes back to its declared initial value, unless it names cards
  (those stay, and the cards they name were dealt anew above), so that a search cannot read
  another player's secret plan;
- the game's chance generator is reseeded from `rng`: with it, every future draw.

What is drawn depends only on what the player sees and on `rng`: the cards of each group of
places are put in a canonical order (by content) before the shuffle, and the initial values and
the new seed do not depend on the hidden state. So two games that look the same to the player
give the same world for the same `rng` state. What the player saw of a card that has since gone
out of sight is not kept (the world knows less than the player might, never more), and a reset
secret is the player's least informed guess, not a draw among the plans that fit: both are
simplifications of an exact posterior that a generic interpreter cannot compute.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

import attrs

from ..language.values import CardRef, Player
from .information import cards_in, content_key, hidden_groups

if TYPE_CHECKING:
    from .game import Game


def determinize(game: Game, player: Player, rng: random.Random | int) -> Game:
    """A clone of `game` in which everything hidden from `player` is drawn anew from `rng`.

    `rng` is a `random.Random` (advanced by the draw) or a seed. The clone's chance is reseeded
    from it, so a caller may play on in the clone at once; `game` is left as it is.
    """
    return Determinizer(game, player).draw(rng)


class Determinizer:
    """Worlds of one game as one player sees it: what is hidden is worked out once, then each
    `draw` deals it anew (a search draws a world per iteration from the same position)."""

    def __init__(self, game: Game, player: Player):
        self.game = game
        st = game.state
        # Each group of places, with its cards in canonical order (the draw must not depend on
        # which card is where, only on which cards are in the group).
        self.groups = [(cids, sorted((st.cards[c] for c in cids), key=content_key)) for cids in _groups(game, player)]
        self.resets: list[tuple[str, object]] = []
        for key in sorted(st.vars):
            decl = game.program.vars[key.split("[", 1)[0]]
            if not (_sees_var(game, decl.visibility, key, player) or cards_in(st.vars[key])):
                self.resets.append((key, game.evaluate(decl.init, {})))
        self._as: dict[tuple[int, int], object] = {}  # (content, place) -> the card of that content at that place

    def draw(self, rng: random.Random | int) -> Game:
        if not isinstance(rng, random.Random):
            rng = random.Random(rng)
        twin = self.game.clone()
        st = twin.state
        made = self._as
        for cids, canonical in self.groups:
            contents = list(canonical)
            rng.shuffle(contents)
            for cid, card in zip(cids, contents, strict=True):
                if card.id != cid:
                    place = (id(card), cid)
                    moved = made.get(place)
                    if moved is None:
                        moved = made[place] = attrs.evolve(card, id=cid)
                        twin.share_label(moved, card)
                    card = moved
                st.cards[cid] = card
        for key, value in self.resets:
            st.vars[key] = value
        twin.reseed(rng.getrandbits(64))
        twin.state_changed()  # changed outside the rules: the clone must not reuse values derived before
        return twin


def _groups(game: Game, player: Player) -> list[list[int]]:
    """The groups of card ids whose contents may be exchanged among themselves, in a fixed order."""
    cards = game.state.cards
    groups = sorted(hidden_groups(game, player), key=lambda cids: type(cards[cids[0]]).__name__)
    named = _named_cards(game, player)
    for key in sorted(game.state.zones):
        decl = game.program.zones[key.split("[", 1)[0]]
        if decl.visibility == "public" and decl.shuffled:
            ids = [cid for cid in game.state.zones[key] if cid not in named]
            if len(ids) > 1:
                groups.append(ids)
    return groups


def _named_cards(game: Game, player: Player) -> set[int]:
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


def _sees_var(game: Game, visibility: str, key: str, player: Player) -> bool:
    return visibility == "public" or (visibility == "owner" and game.owned_by(key, player))
