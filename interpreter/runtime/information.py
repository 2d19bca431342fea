"""What a player cannot see: the places of the cards they cannot identify, and worlds that differ only there.

The soak's hidden-information check exchanges the cards at those places and asks whether the
player could tell; the agents sample such a world before they look ahead, so that they decide
from what their seat may know, never from the real order of a deck or another player's hand.
"""

from __future__ import annotations

import random
from operator import itemgetter
from typing import Any, Protocol, Self, TypeVar

import attrs

from ..compile.memo import unused_seat_dicts
from ..language.values import CardRef, Player
from ..syntax import ast as s
from .asks import Ask
from .context import Context
from .knowledge import cards_in as cards_in  # (re-exported: determinize and tests read it here)
from .knowledge import facts_of, fits, offered_by_place, seen_anyway
from .state import State, card_with


class Copyable(Context, Protocol):
    """A game as information.py and determinize.py use it (`Game` has it all): its `Context`, copies of
    it, its pending question, the values of expressions and what a player sees."""

    @property
    def rulebook(self) -> Any: ...

    def clone(self, *, trace: bool = False) -> Self: ...

    def pending_ask(self) -> Ask | None: ...

    def evaluate(self, e: s.Expr, env: dict[str, Any]) -> Any: ...

    def share_label(self, card: Any, like: Any) -> None: ...

    def reseed(self, seed: int) -> None: ...

    def state_changed(self) -> None: ...

    def view(self, player: Player | int | str | None) -> dict[str, Any]: ...


G = TypeVar("G", bound=Copyable)  # the game's own class (a copy of a `Game` is a `Game`)


class HeldView:
    """A player's view as it was when it began to hold: made from a copy of the game at that moment,
    the first time it is asked for (`Information.hold_views`)."""

    __slots__ = ("_game", "_view", "player")

    def __init__(self, game: Copyable, player: Player):
        self._game, self.player = game, player
        self._view: dict[str, Any] | None = None

    def view(self) -> dict[str, Any]:
        if self._view is None:
            self._view = self._game.view(self.player)  # (the copy holds no views: its own, as it is)
        return self._view


def hidden_positions(game: Copyable, viewer: Player) -> list[tuple[str, int]]:
    """The places (zone key, index) whose card `viewer` cannot identify now.

    The cards of another player's `owner` zone, of the viewer's own `others` zone, of a `hidden`
    or `count` zone, and of a `top` zone below its top (a batch of cards landing on such a pile
    shows others only the new top). Not hidden: `public` zones (shuffled or not), the viewer's
    own `owner` zones, another player's `others` zones, the top of a `top`
    zone, the cards named by a variable the viewer sees (its value shows in the view), the cards
    revealed to the viewer that are still where they were revealed (`reveal`: the view shows
    them), and the cards the pending decision of `viewer` names among its options (a search of a
    `top` pile shows the searcher what it offers; a choice among cards the viewer may not
    identify offers them by their places: `knowledge.offered_by_place`).
    """
    shown = _shown(game, viewer)
    zones = game.state.zones
    out: list[tuple[str, int]] = []
    for key, top in _unseen_zones(game, viewer):
        ids = zones[key]
        below = len(ids) - 1 if top else len(ids)
        out.extend((key, i) for i in range(below) if ids[i] not in shown)
    return out


def _shown(game: Copyable, viewer: Player) -> set[int]:
    """The cards `viewer` identifies wherever they lie (`hidden_positions`): offered by the pending
    decision of `viewer` by their label, revealed, or named by a variable the viewer sees."""
    shown: set[int] = set()
    ask = game.pending_ask()
    if ask is not None and ask.decision.player == viewer:
        offered = [v for v in ask.offered if isinstance(v, CardRef)]
        by_place = offered_by_place(game, viewer, offered)
        shown = {v.id for v in offered if v.id not in by_place}
    shown |= seen_anyway(game, viewer)
    return shown


# By the program's identity, the viewer's seat and the zones' keys (as the state lists them): the
# program, and the keys, in order, of the zones whose cards the viewer cannot all see, each with
# whether only its top shows. Whether a seat sees a zone follows from the zone's key and declaration
# alone (`Information.zone_seen_by`), and a search asks at every decision it samples.
_UNSEEN: dict[tuple[int, int, tuple[str, ...]], tuple[Any, list[tuple[str, bool]]]] = {}


def _unseen_zones(game: Copyable, viewer: Player) -> list[tuple[str, bool]]:
    """The keys of the zones whose cards `viewer` cannot all see, in key order, each with whether it is
    a `top` zone (its top card seen): the zones `hidden_positions` looks into."""
    program, zones = game.program, game.state.zones
    whose = (id(program), viewer.index, tuple(zones))
    kept = _UNSEEN.get(whose)
    if kept is not None and kept[0] is program:
        return kept[1]
    unseen = []
    for key in sorted(zones):
        decl = program.zones[key.split("[", 1)[0]]
        if not game.information.zone_seen_by(game, decl.visibility, key, viewer):
            unseen.append((key, decl.visibility == "top"))
    if len(_UNSEEN) >= 1024:
        _UNSEEN.clear()
    _UNSEEN[whose] = (program, unseen)
    return unseen


def hidden_groups(game: Copyable, viewer: Player) -> list[list[int]]:
    """The cards at the places `viewer` cannot see, grouped by card type (in the order the types first
    appear): the cards whose contents may be exchanged within a group without `viewer` noticing."""
    by_type: dict[type, list[int]] = {}
    zones, cards = game.state.zones, game.state.cards
    shown = _shown(game, viewer)
    for key, top in _unseen_zones(game, viewer):
        ids = zones[key]
        part = ids[:-1] if top else ids
        if not part:
            continue
        if shown and not shown.isdisjoint(part):
            part = [cid for cid in part if cid not in shown]
            if not part:
                continue
        # (a zone's cards are commonly of one type; taken by one C call, not a bound method's call each)
        kinds = set(map(type, itemgetter(*part)(cards))) if len(part) > 1 else {cards[part[0]].__class__}
        if len(kinds) == 1:
            kind = kinds.pop()
            group = by_type.get(kind)
            if group is None:
                by_type[kind] = list(part)
            else:
                group.extend(part)
            continue
        for cid in part:
            kind = cards[cid].__class__
            group = by_type.get(kind)
            if group is None:
                group = by_type[kind] = []
            group.append(cid)
    return list(by_type.values())


def permute_hidden(game: G, viewer: Player, rng: random.Random, *, trace: bool = False) -> G:
    """A clone whose state differs from the game's only in what `viewer` cannot see.

    The cards at the hidden positions are dealt anew among those places, at random (within each
    card type), as `deal` does: each place takes another card as it was created and keeps what
    the rules changed at it. Card ids, zones, sizes and everything the viewer sees stay as they
    are. With `trace` the clone keeps a trace (see `Game.clone`).
    """
    twin = game.clone(trace=trace)
    created = twin.state.created_list()
    facts = facts_of(game, viewer)
    for cids in hidden_groups(game, viewer):
        cards = [created[c] for c in cids]
        allowed = allowed_at(game.state, cids, cards, facts)
        made = [(card, _kept(card)[2]) for card in cards]
        if allowed:
            made = [made[k] for k in consistent_order(len(cids), allowed, rng)]
        else:
            shuffle(rng, made)
        deal(game, twin, created, cids, made)
    twin.state.created = created
    twin.state_changed()  # changed outside the rules: the twin must not reuse values derived before
    return twin


def sample_hidden(game: G, viewer: Player, seed: int) -> G:
    """A clone in which the cards `viewer` cannot identify are dealt anew, at random, among their places.

    The draw depends only on what `viewer` may know: the cards at the hidden places, as they
    were created, are put in a canonical order (by content) before the seeded shuffle, and each
    place keeps what the rules changed at it (`deal`), so two games that differ only in which
    card is where give the same clone for the same seed. What the viewer saw of a card that has
    since gone out of sight is not kept (the sample knows less than the player might, never
    more). The clone's chance is not reseeded here: a caller that plays on must `reseed` it.
    """
    twin = game.clone()
    rng = random.Random(seed)
    created = twin.state.created_list()
    facts = facts_of(game, viewer)
    for cids in hidden_groups(game, viewer):
        made = _sorted_as_created(game.state.created, created, cids)
        allowed = allowed_at(game.state, cids, [card for card, _ in made], facts) if facts else None
        if allowed:
            made = [made[k] for k in consistent_order(len(cids), allowed, rng)]
        else:
            shuffle(rng, made)
        deal(game, twin, created, cids, made)
    twin.state.created = created
    _forget_contents(twin)  # changed outside the rules: the clone must not reuse values derived from what was dealt
    return twin


def shuffle(rng: random.Random, items: list[Any]) -> None:
    """`rng.shuffle(items)`, the same permutation from the same generator, with each index drawn
    inline: a search shuffles the hidden cards of every world it samples, and `Random.shuffle` makes
    two Python calls an item (`_randbelow`, then its `getrandbits` path). Python 3.11's algorithm
    (Fisher-Yates from the end, each index by rejection from `getrandbits` of n's bit length),
    written out; tests/test_determinize.py holds it to `Random.shuffle`."""
    getrandbits = rng.getrandbits
    for i, n, k in _shuffle_steps(len(items)):
        j = getrandbits(k)
        while j >= n:
            j = getrandbits(k)
        items[i], items[j] = items[j], items[i]


_SHUFFLE_STEPS: dict[int, tuple[tuple[int, int, int], ...]] = {}


def _shuffle_steps(size: int) -> tuple[tuple[int, int, int], ...]:
    """The steps of `shuffle` for a list of `size` items: each place from the end, how many items it
    draws among and that number's bit length; made once for each size (a search shuffles lists of
    the same sizes at every decision)."""
    steps = _SHUFFLE_STEPS.get(size)
    if steps is None:
        steps = tuple((i, i + 1, (i + 1).bit_length()) for i in range(size - 1, 0, -1))
        if len(_SHUFFLE_STEPS) >= 256:
            _SHUFFLE_STEPS.clear()
        _SHUFFLE_STEPS[size] = steps
    return steps


# By the places of a group of hidden cards (`hidden_groups`): the game's list of cards as created and the
# cards created at those places, sorted by content, each with its copies at other places (`_kept`, as `deal`
# takes them). A search samples a world at every decision, and the places hidden from a seat are most often
# those of its decision before: their cards as created are the same (a state's `created` is only ever
# appended to, else replaced: `State.created`), sorted once.
_SORTED: dict[tuple[int, ...], tuple[list[Any], list[tuple[Any, dict[int, Any]]]]] = {}
# By the identity of a state's list of cards as created: that list, its length when ranked, each of its
# cards' place in the order of `content_key` (cards that hold the same share one), and each card with its
# copies (`_kept`). The places hidden from a seat change when a card is drawn or played, the cards as
# created do not: ranked once, the cards of new places are sorted by their ranks, by C calls.
_RANKS: dict[int, tuple[list[Any], int, list[int], list[tuple[Any, dict[int, Any]]]]] = {}


def _sorted_as_created(base: list[Any], created: list[Any], cids: list[int]) -> list[tuple[Any, dict[int, Any]]]:
    """`sorted((created[c] for c in cids), key=content_key)`, each card with its copies (`_kept`), `created` a
    copy of `base` (a state's `created`) with the cards as they are after its end: kept while `base` holds
    every card sorted, and sorted by the ranks of `base`'s cards (a sort is stable: cards that hold the
    same keep the order of their places, as by their keys)."""
    if not cids or max(cids) >= len(base):  # (a card made since: its key read from the card as it is)
        return [(card, _kept(card)[2]) for card in sorted(map(created.__getitem__, cids), key=content_key)]
    key = tuple(cids)
    kept = _SORTED.get(key)
    if kept is not None and kept[0] is base:
        return list(kept[1])
    ranked = _RANKS.get(id(base))
    if ranked is None or ranked[0] is not base or ranked[1] != len(base):
        keys = [content_key(card) for card in base]
        rank = {k: r for r, k in enumerate(sorted(set(keys)))}
        if len(_RANKS) >= 64:
            _RANKS.clear()
        ranked = _RANKS[id(base)] = (base, len(base), [rank[k] for k in keys], [(c, _kept(c)[2]) for c in base])
    made = list(map(ranked[3].__getitem__, sorted(cids, key=ranked[2].__getitem__)))
    if len(_SORTED) >= 256:
        _SORTED.clear()
    _SORTED[key] = (base, list(made))
    return made


# By the program's code and the game's players: the code, and the dicts of its memo a world empties.
_EMPTIED: dict[tuple[int, int], tuple[Any, tuple[int, ...]]] = {}


def _forget_contents(twin: Any) -> None:
    """Forget what `twin`, a world just dealt, derived from what its cards are: its memo keeps only the
    dicts of the functions whose values depend on which card is where, never on what a card is
    (`MemoLayout.by_place`, as a determinized world keeps them): a world deals identities and leaves
    every card id where it was, so those values are right in it (and in the game it shares them with).
    The others start from an empty dict of the world's own, not from none: a clone shares it, as it
    shares every dict (`Game.clone`), so that what one trial finds before it changes what the value
    reads is found by the trials cloned after it (a change replaces a dict, never empties it). The dicts
    of seats beyond the game's players never hold a value (`unused_seat_dicts`): left as they are."""
    code, players = twin.code, len(twin.players)
    kept = _EMPTIED.get((id(code), players))
    if kept is None or kept[0] is not code:
        layout = code.memo_layout
        unused = unused_seat_dicts(layout, players)
        emptied = tuple(i for i in range(layout.size) if i not in layout.by_place and i not in unused)
        if len(_EMPTIED) >= 64:
            _EMPTIED.clear()
        kept = _EMPTIED[id(code), players] = (code, emptied)
    memo = twin.memo  # (the world's own list: `Game.clone` copies it)
    for i in kept[1]:
        memo[i] = {}


def allowed_at(
    state: State, cids: list[int], made: list[Any], facts: dict[int, list[tuple[str, Any, bool]]]
) -> dict[int, set[int]]:
    """For each place of `cids` of which the viewer holds facts (`tell`), the indexes of the cards of
    `made` (as created) that agree with them once dealt there (with what the rules changed at the
    place on top, as `deal` deals them); empty when the viewer holds no fact of these places."""
    out: dict[int, set[int]] = {}
    if not facts:  # (the common case: nothing told, no place to look up)
        return out
    for place, cid in enumerate(cids):
        held = facts.get(cid)
        if held:
            change = changes(state, cid)
            out[place] = {k for k, card in enumerate(made) if fits(card_with(card, **change) if change else card, held)}
    return out


SHUFFLE_TRIES = 8  # shuffles tried before a world consistent with the facts is built by matching


def consistent_order(n: int, allowed: dict[int, set[int]], rng: random.Random) -> list[int]:
    """An order of `n` cards (`order[place]` is the card dealt at that place) in which each place of
    `allowed` takes one of the cards it allows, drawn from `rng`.

    A few plain shuffles first: the first that agrees with every fact is a world drawn uniformly
    among those that do. When none does (the facts leave few worlds), a matching of the constrained
    places (Kuhn's augmenting paths, places and cards tried in a random order) finds one, which
    exists since the real deal is one; the cards left go to the other places in a random order.
    That world is consistent, not drawn exactly uniformly among the consistent ones. (Facts that fit
    no deal, as another seat's may in a world already drawn for someone else, leave the places
    no card fits to the cards left: a world is always dealt.)
    """
    order = list(range(n))
    for _ in range(SHUFFLE_TRIES):
        rng.shuffle(order)
        if all(order[p] in ks for p, ks in allowed.items()):
            return order
    places = list(allowed)
    rng.shuffle(places)
    taken: dict[int, int] = {}  # card -> place
    choices = {p: rng.sample(sorted(allowed[p]), len(allowed[p])) for p in places}

    def augment(p: int, seen: set[int]) -> bool:
        for k in choices[p]:
            if k not in seen:
                seen.add(k)
                if k not in taken or augment(taken[k], seen):
                    taken[k] = p
                    return True
        return False

    for p in places:
        augment(p, set())  # (the real deal fits every fact; a place left unmatched takes a card left, below)
    order = [-1] * n
    for k, p in taken.items():
        order[p] = k
    rest = [k for k in range(n) if k not in taken]
    rng.shuffle(rest)
    it = iter(rest)
    return [k if k >= 0 else next(it) for k in order]


def deal(
    game: Copyable, twin: Copyable, created: list[Any], cids: list[int], made: list[tuple[Any, dict[int, Any]]]
) -> None:
    """Deal the cards `made` (as created, each with its copies at other places: `_kept`) to the places
    `cids` of `twin`, a clone of `game`, one each.

    A card's identity moves, what the rules changed on it stays at its place: the place takes
    the new card as it was created, with the fields the rules changed at the place (`changes`)
    on top. So a card the rules turned face down stays face down, whichever card it now is, and
    a card dealt from there to a clean place arrives clean. `created` (the twin's cards as
    created, the twin's `created` once dealt) learns the new identities.
    """
    state = game.state
    now, before, n = state.cards, state.created, len(state.created)
    cards = twin.state.cards
    # No card changed since its `create` (one C pass over the two lists, which compares each pair by identity
    # first; a card changed back compares equal, and its changes are none): no look at each place.
    changed = now != before
    for cid, (card, copies) in zip(cids, made, strict=True):
        copy = copies.get(cid)  # (a card's copies hold it at its own place: `_kept`)
        if copy is None:  # (`with_id`, written out: a search deals every hidden card at every decision it samples)
            copy = _copy_at(card, cid, copies)
        created[cid] = copy
        # (most places hold their card as it was created, one made since as well: nothing changed, without the call)
        if changed and cid < n and now[cid] is not before[cid] and (change := changes(state, cid)):
            copy = card_with(copy, **change)
        cards[cid] = copy


# The copies of cards at new places, by what the card holds: (class, its fields but the id) -> new id ->
# the copy. Cards never change (frozen), and a search deals the same cards as created to the same
# places at every decision it samples; two cards that hold the same (a deck's copies of one card)
# share their copies, so that a game's many places are soon all dealt to once.
_WITH_ID: dict[tuple[type, tuple[Any, ...]], dict[int, Any]] = {}
_COPIES_MADE = [0]  # copies kept since the caches were last emptied


def with_id(card: Any, cid: int) -> Any:
    """`card_with(card, id=cid)`, made once and kept (see `_WITH_ID`)."""
    copies = _kept(card)[2]
    copy = copies.get(cid)
    return copy if copy is not None else _copy_at(card, cid, copies)


def _copy_at(card: Any, cid: int, copies: dict[int, Any]) -> Any:
    """The copy of `card` at id `cid`, made and kept among `copies` (those of the cards that hold the same)."""
    if _COPIES_MADE[0] >= CONTENT_KEYS_KEPT:
        _COPIES_MADE[0] = 0
        _WITH_ID.clear()  # (the dicts still held by `_CONTENT_KEYS` fill on: bounded by the next clear)
        _CONTENT_KEYS.clear()
    _COPIES_MADE[0] += 1
    new = copies[cid] = card_with(card, id=cid)
    return new


def changes(state: State, cid: int) -> dict[str, Any]:
    """What the rules changed on card `cid` since its `create`: each field whose value differs from
    the one it was created with, and its value now."""
    card, made = state.cards[cid], state.created_card(cid)
    if card is made:
        return {}
    return {
        f.name: getattr(card, f.name)
        for f in attrs.fields(type(card))
        if f.name != "id" and getattr(card, f.name) != getattr(made, f.name)
    }


_CONTENT_KEYS: dict[int, tuple[Any, str, dict[int, Any]]] = {}  # id(card) -> (the card, kept alive so its id
# stays its own; its key; the copies of the cards that hold what it holds, `_WITH_ID`)
CONTENT_KEYS_KEPT = 1 << 16  # entries kept before the caches start again (a search deals new cards at every sample)


def content_key(card: Any) -> str:
    """A total order on cards by what they hold, their id left out: the card's text as if its id
    were 0 (`repr(card_with(card, id=0))`: the id is the first field of every card class), made
    without a copy of the card (a search sorts the hidden cards at every decision it samples).

    Cards never change (frozen), and a search sorts the same cards as created at every decision
    it samples: each card's key is made once and kept (by the card's identity, the card held so
    that its identity is not reused), a third of a greedy agent's sampling in a game of many hidden cards."""
    kept = _CONTENT_KEYS.get(id(card))
    if kept is not None and kept[0] is card:
        return kept[1]
    return _kept(card)[1]


def _kept(card: Any) -> tuple[Any, str, dict[int, Any]]:
    """What is kept of a card (`_CONTENT_KEYS`), made if need be."""
    kept = _CONTENT_KEYS.get(id(card))
    if kept is not None and kept[0] is card:
        return kept
    if len(_CONTENT_KEYS) >= CONTENT_KEYS_KEPT or len(_WITH_ID) >= CONTENT_KEYS_KEPT:
        _CONTENT_KEYS.clear()
        _WITH_ID.clear()
    holds = (card.__class__, tuple(getattr(card, f.name) for f in attrs.fields(card.__class__) if f.name != "id"))
    try:
        copies = _WITH_ID.get(holds)
        if copies is None:
            copies = _WITH_ID[holds] = {}
    except TypeError:  # a field's value that has no hash: the card's copies its own
        copies = {}
    copies.setdefault(card.id, card)  # (at its own place, the card itself, unless a copy was made there first)
    kept = _CONTENT_KEYS[id(card)] = (card, _content_text(card), copies)
    return kept


def _content_text(card: Any) -> str:
    text, head = repr(card), f"(id={card.id!r}"
    at = text.index(head)  # right after the class's name
    return f"{text[:at]}(id=0{text[at + len(head) :]}"
