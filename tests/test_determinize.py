"""A determinization is a world its player could be in: what they see stays, what they cannot see is drawn anew."""

from __future__ import annotations

import json
import random
from functools import cache
from pathlib import Path

import attrs
import pytest
import rulecraft
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from rulecraft.agents import GreedyAgent
from rulecraft.errors import NO_SPAN
from rulecraft.language.values import Player
from rulecraft.runtime import information
from rulecraft.runtime.core import shared_dict
from rulecraft.runtime.game import Game
from rulecraft.runtime.state import State, card_with

# Each player deals a chip to the other's sight but keeps a sealed bid: the bid is a secret commitment.
SEALED = """game Sealed players 2..3
card Chip { value: int } label "chip {value}"
zone deck: Chip hidden shuffled
zone hand[Player]: Chip owner
zone pot: Chip public shuffled
var bid[Player]: int = 0 owner
var bids: int = 0 public
setup {
  for v in 1..9 { create 1 Chip { value: v } in deck }
  for p in players { draw 2 from deck to hand[p] }
  draw 2 from deck to pot
}
play {
  for p in players {
    secret {
      choose by p prompt "Your sealed bid" {
        option "bid 1" { set bid[p] = 1 }
        option "bid 2" { set bid[p] = 2 }
      }
    }
    set bids += 1
  }
  end game winners [p for p in players if bid[p] + first(hand[p]).value == max([bid[q] + first(hand[q]).value for q in players])]
}
"""

# One chip is marked by the rules (`set`) as it goes into the vault; the others stay as created.
# Then P1 mints a chip, whose value depends on the answer.
MARKED = """game Marked players 2..2
card Chip { value: int, marked: bool } label "{value}"
zone deck: Chip hidden shuffled
zone vault: Chip hidden
zone hand[Player]: Chip owner
setup {
  for v in 1..6 { create 1 Chip { value: v, marked: false } in deck }
  draw 1 from deck to vault
  let c = top(vault)
  set c.marked = true
  for p in players { draw 1 from deck to hand[p] }
}
play {
  let p = first(players)
  choose by p prompt "Mint a chip" {
    option "high" { create 1 Chip { value: 9, marked: false } in hand[p] }
    option "low" { create 1 Chip { value: 0, marked: false } in hand[p] }
  }
  end game winners [p for p in players if first(hand[p]).value > 3]
}
"""

GAMES = [
    "examples/tutorial.rules",
    "examples/games/kuhn_poker.rules",
    "examples/games/dominion_first_game.rules",
    "guildhall",
    "renaissance_man",
    "valdora",
    "sealed",
    "marked",
]


@cache
def _rulebook(name: str) -> rulecraft.Rulebook:
    if name in ("sealed", "marked"):
        return rulecraft.load_text(SEALED if name == "sealed" else MARKED, f"{name}.rules")
    return rulecraft.load(name)


def _played(name: str, seed: int, steps: int) -> Game:
    """A game of `name` after up to `steps` random answers."""
    rb = _rulebook(name)
    players = rb.program.min_players + seed % (rb.program.max_players - rb.program.min_players + 1)
    game = rb.new_game(players=players, seed=seed, trace=False)
    rng = random.Random(seed)
    for _ in range(steps):
        decision = game.current_decision()
        if decision is None:
            break
        game.apply(decision.options[rng.randrange(len(decision.options))].label)
    return game


def _lookalike(game: Game, player: Player, rng: random.Random) -> Game:
    """The same game as `player` sees it, and another behind their back: hidden cards exchanged,
    another chance generator, every secret they cannot see changed."""
    twin = information.permute_hidden(game, player, rng)
    twin.reseed(rng.getrandbits(64))
    for key, value in twin.state.vars.items():
        decl = game.program.vars[key.split("[", 1)[0]]
        sees = decl.visibility == "public" or (decl.visibility == "owner" and game.owned_by(key, player))
        if not sees and not information.cards_in(value):
            twin.state.vars[key] = "changed"
    twin.state_changed()
    return twin


GAME_STATES = st.tuples(st.sampled_from(GAMES), st.integers(0, 10_000), st.integers(0, 60), st.integers(0, 3))
SETTINGS = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(GAME_STATES, st.integers(0, 2**32))
def test_a_determinization_never_changes_what_its_player_sees(where: tuple[str, int, int, int], draw: int) -> None:
    """The player's view of the determinized world is their view of the game, and the game is left as it was."""
    name, seed, steps, seat = where
    game = _played(name, seed, steps)
    player = Player(seat % game.state.players)
    before, full = game.view(player), game.view(None)
    world = game.determinize(player, random.Random(draw))
    assert world.view(player) == before
    assert game.view(None) == full


@SETTINGS
@given(GAME_STATES, st.integers(0, 2**32), st.integers(0, 2**32))
def test_games_that_look_the_same_give_the_same_determinization(
    where: tuple[str, int, int, int], draw: int, other: int
) -> None:
    """Two games that look the same to the player (hidden cards, chance and secrets differing) give
    the same world for the same generator: a determinization depends on the player's view alone."""
    name, seed, steps, seat = where
    game = _played(name, seed, steps)
    player = Player(seat % game.state.players)
    twin = _lookalike(game, player, random.Random(other))
    assert twin.view(player) == game.view(player)
    # The known limitation (runtime/determinize.py): a change is what a field holds that the card
    # created at its place did not. Where the look-alike's card there was created holding it already
    # (a Valdora card turned to a side whose text the other card's first side had), it is no change
    # there, and the two worlds differ in that field: those games are left out.
    assume(
        all(
            information.changes(game.state, c) == information.changes(twin.state, c)
            for c in range(len(game.state.cards))
        )
    )
    assert game.determinize(player, draw).state == twin.determinize(player, draw).state


def test_hidden_cards_and_the_future_are_drawn_anew() -> None:
    """Across seeds, another player's hand, the order of a public shuffled zone and chance vary;
    the player's own hand and the public cards do not."""
    game = _played("sealed", 2, 0)
    me, other = Player(0), Player(1)
    worlds = [game.determinize(me, draw) for draw in range(40)]
    hands = {tuple(w.view(None)["zones"]["hand[P2]"]) for w in worlds}
    orders = {tuple(w.state.cards[c] for c in w.state.zones["pot"]) for w in worlds}
    assert len(hands) > 3 and len(orders) == 2
    assert len({w.state.rng for w in worlds}) == 40
    assert all(w.view(None)["zones"]["hand[P1]"] == game.view(None)["zones"]["hand[P1]"] for w in worlds)
    assert all(w.view(other)["zones"]["pot"] == game.view(other)["zones"]["pot"] for w in worlds)


def test_a_secret_commitment_is_not_read_by_the_determinization() -> None:
    """P2 deciding after P1's sealed bid finds, in every world, P1's bid at its initial value, while
    P1's own world keeps it."""
    game = _played("sealed", 2, 0)
    game.apply("bid 2")
    assert game.state.vars["bid[P1]"] == 2
    assert all(game.determinize(Player(1), draw).state.vars["bid[P1]"] == 0 for draw in range(5))
    assert game.determinize(Player(0), 0).state.vars["bid[P1]"] == 2


@pytest.mark.parametrize("name", ["guildhall", "renaissance_man", "valdora", "sealed"])
def test_a_world_keeps_only_the_remembered_values_that_are_right_in_it(name: str) -> None:
    """A world starts with its game's remembered values of the functions that depend on which card
    is where, never on what a card is (`MemoLayout.by_place`): played on, it asks, judges and moves
    exactly as the same world with nothing remembered, and the game's values stay its own."""
    for seed in range(6):
        game = _played(name, seed, 30 + 7 * seed)
        decision = game.current_decision()
        if decision is None or decision.player is None:
            continue
        judged = [game.heuristic(p) for p in game.players]  # (remembered in the game: worlds start with them)
        for draw in range(4):
            world = game.determinize(decision.player, draw)
            afresh = world.clone()
            afresh.state_changed()  # the same world, with nothing remembered
            rng = random.Random(draw)
            for _ in range(8):
                assert [world.heuristic(p) for p in world.players] == [afresh.heuristic(p) for p in afresh.players]
                pending = world.current_decision()
                assert pending == afresh.current_decision()
                if pending is None:
                    break
                label = pending.options[rng.randrange(len(pending.options))].label
                world.apply(label, atomic=False)
                afresh.apply(label, atomic=False)
            assert world.state == afresh.state
        assert [game.heuristic(p) for p in game.players] == judged


def test_a_clean_card_dealt_to_a_clean_place_is_made_once_for_the_rulebook() -> None:
    """Worlds drawn for two positions of a game hold the very same copy of a card, as created, dealt
    to a place where the rules changed nothing; with that copy forgotten, a world made anew is equal."""
    game = _played("sealed", 2, 0)
    first = game.determinize(Player(0), 5)
    dealt = [cid for cid, card in enumerate(first.state.cards) if card is not game.state.cards[cid]]
    assert dealt
    game.apply("bid 1")
    second = game.determinize(Player(1), 5)  # another position, another player: a Determinizer of its own
    same = [cid for cid in dealt if second.state.cards[cid] == first.state.cards[cid]]
    assert same and all(second.state.cards[cid] is first.state.cards[cid] for cid in same)
    again = game.determinize(Player(1), 5)
    shared_dict(game.rulebook, "dealt_cards").clear()
    anew = game.determinize(Player(1), 5)
    assert anew.state == again.state and anew.view(Player(1)) == again.view(Player(1))
    assert any(anew.state.cards[cid] is not again.state.cards[cid] for cid in dealt)


def test_a_world_forgets_the_remembered_values_of_a_secret_it_resets() -> None:
    """A function that reads a secret commitment is remembered by the game, but a world of the other
    player resets the secret: there the function is computed again from the reset value."""
    rb = rulecraft.load_text(
        SEALED + "fn total_bid() = sum([bid[q] for q in players])\nfn twice() = total_bid() * 2\n", "sealed.rules"
    )
    game = rb.new_game(players=2, seed=0, trace=False)
    game.apply("bid 2")
    assert game.call_fn("twice", (), NO_SPAN) == 4  # (total_bid's value remembered)
    slot = game.code.memo_layout.slots["total_bid"]
    assert slot in game.code.memo_layout.by_place and game.memo[slot]
    assert game.determinize(Player(1), 0).call_fn("twice", (), NO_SPAN) == 0
    assert game.determinize(Player(0), 0).call_fn("twice", (), NO_SPAN) == 4  # its own bid: kept


@pytest.mark.parametrize("name", ["guildhall", "renaissance_man", "valdora"])
def test_a_determinized_game_plays_on(name: str) -> None:
    """A bundled game's determinized world is a game: random answers carry it on without an error."""
    game = _played(name, 5, 40)
    decision = game.current_decision()
    assert decision is not None and decision.player is not None
    world = game.determinize(decision.player, 7)
    rng = random.Random(7)
    for _ in range(200):
        pending = world.current_decision()
        if pending is None:
            break
        world.apply(pending.options[rng.randrange(len(pending.options))].label, atomic=False)


def test_what_the_rules_changed_on_a_hidden_card_stays_at_its_place() -> None:
    """The vault's chip is dealt anew, a chip as it was created, and stays marked: the mark was set
    by the rules at that place. No chip dealt to the deck is marked; the cards as created are kept."""
    game = _played("marked", 4, 0)
    (vault,) = game.state.zones["vault"]
    assert game.state.cards[vault].marked and not game.state.created_card(vault).marked
    assert information.changes(game.state, vault) == {"marked": True}
    worlds = [game.determinize(Player(0), draw) for draw in range(30)]
    assert all(w.state.cards[vault].marked for w in worlds)
    assert len({w.state.cards[vault].value for w in worlds}) > 2
    assert not any(w.state.cards[c].marked for w in worlds for c in w.state.zones["deck"])
    assert all(not w.state.created_card(vault).marked for w in worlds)
    for twin in (
        information.sample_hidden(game, Player(1), 3),
        information.permute_hidden(game, Player(1), random.Random(3)),
    ):
        assert twin.state.cards[vault].marked and not any(twin.state.cards[c].marked for c in twin.state.zones["deck"])


def test_cards_as_created_go_with_the_state_and_its_copies() -> None:
    """A clone that creates another card than the game keeps its own card as created, and the state's
    JSON carries the cards as created that the rules have changed since."""
    game = _played("marked", 4, 0)
    twin = game.clone()
    game.apply("high")
    twin.apply("low")
    (minted,) = (c for c in game.state.zones["hand[P1]"] if game.state.cards[c].value == 9)
    assert game.state.created_card(minted).value == 9 and twin.state.created_card(minted).value == 0
    (vault,) = game.state.zones["vault"]
    converter = game.rulebook.converter
    again = converter.structure(json.loads(json.dumps(converter.unstructure(game.state))))
    assert again.created_card(vault) == game.state.created_card(vault) != game.state.cards[vault]


def test_a_face_down_renaissance_man_stays_face_down_in_every_world() -> None:
    """At "Where does your Renaissance Man go?", the card drawn for it lies face down in the builder's
    hidden building zone: every world deals it anew (another card), still face down, and goes on
    from there when it goes into the pyramid."""
    rb = _rulebook("renaissance_man")
    game = rb.new_game(players=2, seed=3, trace=False)
    agents = [GreedyAgent(30 + i) for i in range(2)]
    decision = game.current_decision()
    while decision is not None and not decision.prompt.startswith("Where does your Renaissance Man go"):
        assert decision.player is not None
        game.apply(agents[decision.player.index].choose(game, decision))
        decision = game.current_decision()
    assert decision is not None and decision.player is not None
    builder = decision.player
    (card,) = game.state.zones[f"building[{builder}]"]
    worlds = [game.determinize(builder, draw) for draw in range(20)]
    assert all(w.state.cards[card].face_down for w in worlds)
    assert len({w.state.cards[card].kind for w in worlds}) > 1
    for world in worlds[:5]:
        world.apply("Into the pyramid", atomic=False)
        assert world.current_decision() is not None


@pytest.mark.parametrize("name", [*rulecraft.bundled_names(), "examples/games/clues.rules"])
def test_the_content_key_of_a_card_is_its_text_with_id_0(name: str) -> None:
    """The order the hidden cards are dealt from is that of their text with id 0 (its definition), for
    every card of a game, whatever its fields hold (numbers, texts with quotes and parentheses, none)."""
    path = str(Path(__file__).resolve().parent.parent / name) if name.endswith(".rules") else name
    rb = rulecraft.load(path)
    game = rb.new_game(players=rb.program.max_players, seed=3)
    cards = list(game.state.cards)
    cards.append(card_with(cards[0], id=12345, **dict.fromkeys(_field_names(cards[0])[:1], "a (id=1, 'x')")))
    assert cards and [information.content_key(c) for c in cards] == [repr(card_with(c, id=0)) for c in cards]


def _field_names(card: object) -> list[str]:
    return [f.name for f in attrs.fields(type(card)) if f.name != "id"]


@attrs.frozen
class _Made:
    id: int
    n: int


@pytest.mark.parametrize("created", [2, 0], ids=["copy appended past", "read from an older JSON"])
def test_a_card_created_past_a_shared_list_keeps_each_state_s_own_cards_as_created(created: int) -> None:
    """A state whose list of cards as created another copy has appended to (or which holds fewer of them
    than its cards: read from an older state's JSON) takes a list of its own when it creates a card:
    its cards as created before it, then the new card, and the other copy's list is left as it was."""
    state = State(players=1, cards=[_Made(0, 0), _Made(1, 1)], location=["a", "a"])
    state.created = [_Made(0, 10), _Made(1, 11)][:created]
    twin = state.copy()
    twin.cards.append(_Made(2, 20))
    twin.add_created(twin.cards[-1])
    card = _Made(2, 30)
    state.cards.append(card)
    state.add_created(card)
    own = [_Made(0, 10), _Made(1, 11)][:created] + state.cards[created:2]
    assert state.created == [*own, card]
    assert [twin.created_card(i) for i in range(3)] == [*own, _Made(2, 20)]


@given(st.integers(min_value=0, max_value=2**64), st.integers(min_value=0, max_value=300))
def test_a_worlds_shuffle_is_the_generators_own(seed: int, n: int) -> None:
    """`information.shuffle` gives the permutation `Random.shuffle` gives, and leaves the generator where
    it leaves it: worlds sampled with it are the worlds sampled before (greedy games stay the same)."""
    ours, theirs = random.Random(seed), random.Random(seed)
    mine, reference = list(range(n)), list(range(n))
    information.shuffle(ours, mine)
    theirs.shuffle(reference)
    assert mine == reference
    assert ours.getrandbits(64) == theirs.getrandbits(64)
