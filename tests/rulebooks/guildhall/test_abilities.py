"""Guildhall, ability by ability: one scenario per tier of every profession and per VP card kind.

Each scenario is a fixed position (see scenarios.py), scripted answers, and a `.trace` snapshot
that was read line by line against the rules digest (shared/rules/guildhall.md) before it was kept.
"""

from __future__ import annotations

from .scenarios import scenario_trace, start

FARMERS = ["red Farmer", "blue Farmer", "yellow Farmer", "green Farmer", "purple Farmer"]
DANCERS = ["red Dancer", "blue Dancer", "yellow Dancer", "green Dancer", "purple Dancer"]
WEAVERS = ["red Weaver", "blue Weaver", "yellow Weaver", "green Weaver", "purple Weaver"]
ROW = ["5 VP plain (cost 1)", "5 VP plain (cost 1)", "4 VP take_one (cost 1)", "3 VP draw_six (cost 1)"]


def zones(game):  # type: ignore[no-untyped-def]
    return game.view(None)["zones"]


# ---------------------------------------------------------------- Assassin (§6.1)


def test_assassin_tier_0_discards_one_card(trace_snapshot) -> None:  # type: ignore[no-untyped-def]
    """With no Assassin in the guild, the Assassin discards 1 card of another player's guild."""
    game, trace = scenario_trace(
        {"hand[P1]": ["red Assassin", "green Farmer"], "guild[P2]": ["blue Weaver", "yellow Weaver"]},
        ["play red Assassin", "tier 0: Discard 1 card", "blue Weaver"],
    )
    assert zones(game)["guild[P2]"] == ["yellow Weaver"]
    assert zones(game)["discard"] == ["blue Weaver"]
    assert trace == trace_snapshot


def test_assassin_tier_2_discards_from_two_different_chapters(trace_snapshot) -> None:  # type: ignore[no-untyped-def]
    """At count 2, the second card must come from another chapter: here only the Farmer is left to pick."""
    game, trace = scenario_trace(
        {
            "guild[P1]": ["blue Assassin", "yellow Assassin"],
            "hand[P1]": ["red Assassin", "green Farmer"],
            "guild[P2]": ["blue Weaver", "yellow Weaver", "red Farmer"],
        },
        ["play red Assassin", "tier 2: Discard 1 card from each of 2 different chapters", "blue Weaver"],
    )
    assert zones(game)["guild[P2]"] == ["yellow Weaver"]
    assert zones(game)["discard"] == ["red Farmer", "blue Weaver"]
    assert trace == trace_snapshot


def test_assassin_tier_4_may_discard_two_of_one_chapter(trace_snapshot) -> None:  # type: ignore[no-untyped-def]
    """At count 4, both cards may come from the same chapter; the second discarded is on top."""
    game, trace = scenario_trace(
        {
            "guild[P1]": ["blue Assassin", "yellow Assassin", "green Assassin", "purple Assassin"],
            "hand[P1]": ["red Assassin", "green Farmer"],
            "guild[P2]": ["blue Weaver", "yellow Weaver", "red Farmer"],
        },
        ["play red Assassin", "tier 4: Discard 2 cards, from any chapters", "blue Weaver", "yellow Weaver"],
    )
    assert zones(game)["guild[P2]"] == ["red Farmer"]
    assert zones(game)["discard"] == ["yellow Weaver", "blue Weaver"]
    assert trace == trace_snapshot


# ---------------------------------------------------------------- Dancer (§6.3)


def test_dancer_at_count_0_draws_nothing_and_gives_an_action(trace_snapshot) -> None:  # type: ignore[no-untyped-def]
    """A first Dancer draws 0 cards and gives one more action (A2); a second Dancer is not offered (P2)."""
    game, trace = scenario_trace(
        {"hand[P1]": ["red Dancer", "blue Dancer", "green Farmer"]},
        ["play red Dancer", "tier 0: Draw 1 card per Dancer in your guild, then take one more action"],
    )
    assert game.state.vars["actions"] == 1
    assert game.legal_answers() == ["play green Farmer", "discard and draw"]
    assert trace == trace_snapshot


def test_dancer_at_count_2_draws_two(trace_snapshot) -> None:  # type: ignore[no-untyped-def]
    """With 2 Dancers in the guild, the Dancer draws 2 cards, then gives one more action."""
    game, trace = scenario_trace(
        {"guild[P1]": ["blue Dancer", "yellow Dancer"], "hand[P1]": ["red Dancer"]},
        ["play red Dancer", "tier 0: Draw 1 card per Dancer in your guild, then take one more action"],
    )
    assert len(zones(game)["hand[P1]"]) == 2
    assert game.state.vars["actions"] == 1
    assert trace == trace_snapshot


# ---------------------------------------------------------------- Farmer (§6.2)


def test_farmer_at_count_0_has_no_effect() -> None:
    """Below the lowest tier the Farmer does nothing and asks nothing; it is still played."""
    game = start({"hand[P1]": ["red Farmer", "green Dancer"]})
    game.apply("play red Farmer")
    assert game.current_decision().prompt == "Your action"
    assert zones(game)["action[P1]"] == ["red Farmer"]
    assert game.score(game.players[0]) == 0


def test_farmer_tier_1_gains_a_token(trace_snapshot) -> None:  # type: ignore[no-untyped-def]
    """At count 1 only tier 1 is offered (a tier above the count is not), and it gains 1 VP token."""
    game = start({"guild[P1]": ["blue Farmer"], "hand[P1]": ["red Farmer", "green Dancer"]})
    game.apply("play red Farmer")
    assert game.legal_answers() == ["no ability", "tier 1: Gain 1 VP token"]
    game, trace = scenario_trace(
        {"guild[P1]": ["blue Farmer"], "hand[P1]": ["red Farmer", "green Dancer"]},
        ["play red Farmer", "tier 1: Gain 1 VP token"],
    )
    assert game.state.vars["tokens[P1]"] == 1
    assert trace == trace_snapshot


def test_farmer_tier_3_gains_two_tokens(trace_snapshot) -> None:  # type: ignore[no-untyped-def]
    """At count 3 the player may take tier 1 or tier 3; tier 3 gains 2 VP tokens."""
    game, trace = scenario_trace(
        {"guild[P1]": ["blue Farmer", "yellow Farmer", "green Farmer"], "hand[P1]": ["red Farmer", "green Dancer"]},
        ["play red Farmer", "tier 3: Gain 2 VP tokens"],
    )
    assert game.state.vars["tokens[P1]"] == 2
    assert trace == trace_snapshot


# ---------------------------------------------------------------- Weaver (§6.4)


def test_weaver_tier_0_places_one_card(trace_snapshot) -> None:  # type: ignore[no-untyped-def]
    """The Weaver at count 0 places 1 card from the hand into the guild and takes nothing back."""
    game, trace = scenario_trace(
        {"hand[P1]": ["red Weaver", "green Farmer", "blue Dancer"]},
        ["play red Weaver", "tier 0: Place 1 card from your hand into your guild", "green Farmer"],
    )
    assert zones(game)["guild[P1]"] == ["green Farmer"]
    assert trace == trace_snapshot


def test_weaver_tier_2_the_rulebook_example(trace_snapshot) -> None:  # type: ignore[no-untyped-def]
    """Seed example: two Weavers in the guild, a third played: place 2 from the hand, take 1 back."""
    game, trace = scenario_trace(
        {
            "guild[P1]": ["red Weaver", "blue Weaver"],
            "hand[P1]": ["yellow Weaver", "green Farmer", "red Farmer", "blue Dancer"],
        },
        [
            "play yellow Weaver",
            "tier 2: Exchange 2 cards from your hand for 1 card from your guild",
            "green Farmer",
            "red Farmer",
            "blue Weaver",
        ],
    )
    assert zones(game)["guild[P1]"] == ["red Farmer", "green Farmer", "red Weaver"]
    assert sorted(zones(game)["hand[P1]"]) == ["blue Dancer", "blue Weaver"]
    assert trace == trace_snapshot


def test_weaver_tier_2_cannot_be_used_in_part() -> None:
    """Seed example: placing 2 and not taking 1 back is not an answer; lower tiers stay on offer."""
    game = start(
        {
            "guild[P1]": ["red Weaver", "blue Weaver"],
            "hand[P1]": ["yellow Weaver", "green Farmer", "red Farmer", "blue Dancer"],
        }
    )
    game.apply("play yellow Weaver")
    assert game.legal_answers() == [
        "no ability",
        "tier 0: Place 1 card from your hand into your guild",
        "tier 2: Exchange 2 cards from your hand for 1 card from your guild",
    ]
    for answer in ["tier 2: Exchange 2 cards from your hand for 1 card from your guild", "green Farmer", "red Farmer"]:
        game.apply(answer)
    assert game.current_decision().prompt == "Take back which card?"
    assert game.legal_answers() == ["red Weaver", "blue Weaver"], "no 'done': the exchange is whole or nothing"
    assert sorted(zones(game)["hand[P1]"]) == ["blue Dancer", "green Farmer", "red Farmer"], (
        "nothing moves before the exchange is whole"
    )


def test_weaver_tier_2_identical_exchange_is_legal(trace_snapshot) -> None:  # type: ignore[no-untyped-def]
    """A blue Weaver from the hand may go in while the guild's blue Weaver comes out (§14)."""
    game, trace = scenario_trace(
        {
            "guild[P1]": ["red Weaver", "blue Weaver"],
            "hand[P1]": ["yellow Weaver", "blue Weaver", "red Farmer", "blue Dancer"],
        },
        [
            "play yellow Weaver",
            "tier 2: Exchange 2 cards from your hand for 1 card from your guild",
            "blue Weaver",
            "red Farmer",  # the blue Weaver of the guild is then the only card to take back
        ],
    )
    assert zones(game)["guild[P1]"] == ["red Farmer", "blue Weaver", "red Weaver"]
    assert trace == trace_snapshot


def test_weaver_tier_2_takes_back_the_twin_of_a_card_placed(trace_snapshot) -> None:  # type: ignore[no-untyped-def]
    """A card placed whose twin is in the guild must take that twin back: after placing a blue Weaver
    the guild's blue Weaver is the only card offered to take back, so the tier is never lost to a
    pick that would leave two identical cards (§5, §14)."""
    position = {
        "guild[P1]": ["red Weaver", "blue Weaver"],
        "hand[P1]": ["yellow Weaver", "blue Weaver", "red Farmer", "blue Dancer"],
    }
    tier = "tier 2: Exchange 2 cards from your hand for 1 card from your guild"
    game = start(position)
    for answer in ["play yellow Weaver", tier, "blue Weaver", "red Farmer"]:
        game.apply(answer)
    assert "undo" not in [e.verb for e in game.events]
    assert zones(game)["guild[P1]"] == ["red Farmer", "blue Weaver", "red Weaver"], "the blue Weavers changed places"
    game, trace = scenario_trace(position, ["play yellow Weaver", tier, "blue Weaver", "red Farmer"])
    assert trace == trace_snapshot


def test_weaver_tier_2_places_at_most_one_card_with_a_twin() -> None:
    """Only 1 card comes back, so of the 2 cards placed at most 1 may have a twin in the guild: after
    the red Weaver, the blue Weaver is not offered; nor is a card identical to one already picked."""
    game = start(
        {
            "guild[P1]": ["red Weaver", "blue Weaver"],
            "hand[P1]": ["yellow Weaver", "red Weaver", "blue Weaver", "red Farmer", "red Farmer"],
        }
    )
    game.apply("play yellow Weaver")
    game.apply("tier 2: Exchange 2 cards from your hand for 1 card from your guild")
    assert game.legal_answers() == ["red Weaver", "blue Weaver", "red Farmer"]
    game.apply("red Weaver")  # then the red Farmer (the one card left to place) and the red Weaver back
    assert sorted(zones(game)["guild[P1]"]) == ["blue Weaver", "red Farmer", "red Weaver"]
    assert "undo" not in [e.verb for e in game.events]


def test_weaver_tier_4_places_no_more_cards_with_twins_than_it_takes_back() -> None:
    """At count 4 only 2 cards come back: at most 2 cards placed may have a twin in the guild, no two
    cards placed are identical, and the twins are the cards taken back (§6.4, §14)."""
    game = start(
        {
            "guild[P1]": ["red Weaver", "blue Weaver", "yellow Weaver", "green Weaver"],
            "hand[P1]": ["purple Weaver", "red Weaver", "blue Weaver", "yellow Weaver", "red Farmer", "red Farmer"],
        }
    )
    game.apply("play purple Weaver")
    game.apply("tier 4: Exchange any number of cards from your hand for 2 cards from your guild")
    for answer in ["red Farmer", "red Weaver"]:
        game.apply(answer)
    assert game.legal_answers() == ["blue Weaver", "yellow Weaver", "done"], "no second red Farmer"
    game.apply("blue Weaver")  # a third card with a twin cannot go in: the placing is done
    assert game.current_decision().prompt == "Take back which cards? (1 of 2)"
    assert game.legal_answers() == ["red Weaver", "blue Weaver"], "the twins of the Weavers placed"
    game.apply("red Weaver")
    assert sorted(zones(game)["hand[P1]"]) == ["blue Weaver", "red Farmer", "red Weaver", "yellow Weaver"]
    assert "undo" not in [e.verb for e in game.events]


def test_weaver_tier_4_places_any_and_takes_two(trace_snapshot) -> None:  # type: ignore[no-untyped-def]
    """At count 4 the Weaver places any number of cards and takes 2 of the guild's cards back."""
    game, trace = scenario_trace(
        {
            "guild[P1]": ["red Weaver", "blue Weaver", "yellow Weaver", "green Weaver"],
            "hand[P1]": ["purple Weaver", "red Farmer", "blue Farmer", "green Dancer"],
        },
        [
            "play purple Weaver",
            "tier 4: Exchange any number of cards from your hand for 2 cards from your guild",
            "red Farmer",
            "blue Farmer",
            "done",
            "red Weaver",
            "blue Weaver",
        ],
    )
    assert zones(game)["guild[P1]"] == ["blue Farmer", "red Farmer", "green Weaver", "yellow Weaver"]
    assert sorted(zones(game)["hand[P1]"]) == ["blue Weaver", "green Dancer", "red Weaver"]
    assert trace == trace_snapshot


# ---------------------------------------------------------------- Historian (§6.5)


def test_historian_tier_0_takes_the_top_card(trace_snapshot) -> None:  # type: ignore[no-untyped-def]
    """The Historian at count 0 places the top card of the discard pile into the guild."""
    game, trace = scenario_trace(
        {"discard": ["red Trader", "blue Farmer"], "hand[P1]": ["red Historian", "green Dancer"]},
        ["play red Historian", "tier 0: Place the top card of the discard pile into your guild"],
    )
    assert zones(game)["guild[P1]"] == ["blue Farmer"]
    assert zones(game)["discard"] == ["red Trader"]
    assert trace == trace_snapshot


def test_historian_tier_2_searches_for_one_card(trace_snapshot) -> None:  # type: ignore[no-untyped-def]
    """At count 2 the Historian takes any card of the pile; the rest keep their order."""
    game, trace = scenario_trace(
        {
            "guild[P1]": ["blue Historian", "yellow Historian"],
            "discard": ["red Trader", "blue Farmer", "green Dancer"],
            "hand[P1]": ["red Historian", "green Dancer"],
        },
        ["play red Historian", "tier 2: Search the discard pile and place 1 card into your guild", "red Trader"],
    )
    assert "red Trader" in zones(game)["guild[P1]"]
    assert zones(game)["discard"] == ["green Dancer", "blue Farmer"]
    assert trace == trace_snapshot


def test_historian_tier_4_searches_for_two_cards(trace_snapshot) -> None:  # type: ignore[no-untyped-def]
    """At count 4 the Historian places 2 cards of the pile into the guild, in one step."""
    game, trace = scenario_trace(
        {
            "guild[P1]": ["blue Historian", "yellow Historian", "green Historian", "purple Historian"],
            "discard": ["red Trader", "blue Farmer", "green Dancer"],
            "hand[P1]": ["red Historian", "green Dancer"],
        },
        [
            "play red Historian",
            "tier 4: Search the discard pile and place 2 cards into your guild",
            "red Trader",
            "green Dancer",
        ],
    )
    assert zones(game)["discard"] == ["blue Farmer"]
    assert trace == trace_snapshot


def test_historian_tier_4_places_two_cards_that_are_not_identical() -> None:
    """The two cards placed must not be identical: after a red Trader, the pile's other red Trader is
    not offered, and the green Dancer is taken at once (§6.5, §14)."""
    game = start(
        {
            "guild[P1]": ["blue Historian", "yellow Historian", "green Historian", "purple Historian"],
            "discard": ["red Trader", "red Trader", "green Dancer"],
            "hand[P1]": ["red Historian", "blue Dancer"],
        }
    )
    game.apply("play red Historian")
    game.apply("tier 4: Search the discard pile and place 2 cards into your guild")
    game.apply("red Trader")
    assert sorted(zones(game)["guild[P1]"])[:2] == ["blue Historian", "green Dancer"]
    assert zones(game)["discard"] == ["red Trader"]
    assert "undo" not in [e.verb for e in game.events]


def test_historian_completes_the_trader_chapter_then_a_red_trader_starts_anew(trace_snapshot) -> None:  # type: ignore[no-untyped-def]
    """Seed example (§10): the purple Trader completes the chapter at once; the red Trader is then playable."""
    position = {
        "guild[P1]": ["red Trader", "blue Trader", "yellow Trader", "green Trader"],
        "hand[P1]": ["red Trader", "blue Historian"],
        "discard": ["purple Trader"],
    }
    game = start(position)
    assert game.legal_answers() == ["play blue Historian", "discard and draw"], "P1: a red Trader is in the guild"
    game, trace = scenario_trace(
        position,
        ["play blue Historian", "tier 0: Place the top card of the discard pile into your guild", "play red Trader"],
    )
    assert len(zones(game)["closed[P1]"]) == 5
    assert zones(game)["guild[P1]"] == ["red Trader", "blue Historian"]
    assert trace == trace_snapshot


# ---------------------------------------------------------------- Trader (§6.6)


def test_trader_tier_0_exchanges_one_card(trace_snapshot) -> None:  # type: ignore[no-untyped-def]
    """The Trader at count 0 exchanges 1 card of the guild for 1 of another player's guild."""
    game, trace = scenario_trace(
        {"guild[P1]": ["blue Farmer"], "hand[P1]": ["red Trader", "green Dancer"], "guild[P2]": ["green Weaver"]},
        ["play red Trader", "tier 0: Exchange 1 card"],
    )
    assert zones(game)["guild[P1]"] == ["green Weaver"]
    assert zones(game)["guild[P2]"] == ["blue Farmer"]
    assert trace == trace_snapshot


def test_trader_identical_exchange_is_legal(trace_snapshot) -> None:  # type: ignore[no-untyped-def]
    """Two red Weavers may be exchanged between two guilds (§14)."""
    game, trace = scenario_trace(
        {
            "guild[P1]": ["red Weaver", "blue Farmer"],
            "hand[P1]": ["red Trader", "green Dancer"],
            "guild[P2]": ["red Weaver", "green Dancer"],
        },
        ["play red Trader", "tier 0: Exchange 1 card", "red Weaver"],  # then P2's red Weaver is the only card to take
    )
    assert "undo" not in trace
    assert zones(game)["guild[P2]"] == ["red Weaver", "green Dancer"]
    assert trace == trace_snapshot


def test_trader_tier_2_exchanges_two_cards(trace_snapshot) -> None:  # type: ignore[no-untyped-def]
    """At count 2 the Trader exchanges 2 cards for 2, with one other player."""
    game, trace = scenario_trace(
        {
            "guild[P1]": ["blue Trader", "yellow Trader", "red Weaver", "blue Farmer"],
            "hand[P1]": ["red Trader", "green Dancer"],
            "guild[P2]": ["green Dancer", "purple Assassin", "yellow Farmer"],
        },
        ["play red Trader", "tier 2: Exchange 2 cards", "red Weaver", "blue Farmer", "green Dancer", "purple Assassin"],
    )
    assert sorted(zones(game)["guild[P2]"]) == ["blue Farmer", "red Weaver", "yellow Farmer"]
    assert trace == trace_snapshot


def test_trader_tier_4_exchanges_chapters_of_any_professions(trace_snapshot) -> None:  # type: ignore[no-untyped-def]
    """At count 4 the Trader exchanges a whole chapter for a whole chapter, of any professions (A4)."""
    game, trace = scenario_trace(
        {
            "guild[P1]": ["blue Trader", "yellow Trader", "green Trader", "purple Trader", "red Weaver", "blue Weaver"],
            "hand[P1]": ["red Trader", "green Dancer"],
            "guild[P2]": ["green Farmer", "yellow Farmer", "red Dancer"],
        },
        ["play red Trader", "tier 4: Exchange 1 chapter", "Weaver", "Farmer"],
    )
    assert sorted(zones(game)["guild[P2]"]) == ["blue Weaver", "red Dancer", "red Weaver"]
    assert trace == trace_snapshot


def test_trader_chapter_exchange_offers_only_chapters_without_twins(trace_snapshot) -> None:  # type: ignore[no-untyped-def]
    """A chapter whose card is already in the receiving guild cannot move (§14, A4): giving the
    Weavers (P2 has a red Weaver), only P2's Weavers can come back, so no pick loses the tier."""
    position = {
        "guild[P1]": ["blue Trader", "yellow Trader", "green Trader", "purple Trader", "red Weaver", "blue Weaver"],
        "hand[P1]": ["red Trader", "green Dancer"],
        "guild[P2]": ["red Weaver", "red Farmer"],
    }
    game = start(position)
    game.apply("play red Trader")
    game.apply("tier 4: Exchange 1 chapter")
    assert game.legal_answers() == ["Trader", "Weaver"]
    game, trace = scenario_trace(position, ["play red Trader", "tier 4: Exchange 1 chapter", "Weaver"])
    assert sorted(zones(game)["guild[P2]"]) == ["blue Weaver", "red Farmer", "red Weaver"]
    assert "undo" not in trace
    assert trace == trace_snapshot


def test_trader_takes_no_card_that_would_be_a_second_copy() -> None:
    """Giving the blue Farmer, P1 cannot take P2's red Weaver (P1 keeps one): the green Dancer is the
    only card offered, and the exchange is made (§6.6, §14)."""
    game = start(
        {
            "guild[P1]": ["red Weaver", "blue Farmer"],
            "hand[P1]": ["red Trader", "green Dancer"],
            "guild[P2]": ["red Weaver", "green Dancer"],
        }
    )
    for answer in ["play red Trader", "tier 0: Exchange 1 card", "blue Farmer"]:
        game.apply(answer)
    assert sorted(zones(game)["guild[P1]"]) == ["green Dancer", "red Weaver"]
    assert sorted(zones(game)["guild[P2]"]) == ["blue Farmer", "red Weaver"]


def test_trader_tier_2_gives_a_card_with_a_twin_only_for_that_twin() -> None:
    """A card given whose twin is in the partner's guild must be exchanged for that twin: after giving
    the red Weaver and the blue Farmer, the red Weaver must be among the cards taken."""
    game = start(
        {
            "guild[P1]": ["blue Trader", "yellow Trader", "red Weaver", "blue Farmer"],
            "hand[P1]": ["red Trader", "green Dancer"],
            "guild[P2]": ["red Weaver", "green Dancer", "purple Assassin"],
        }
    )
    for answer in ["play red Trader", "tier 2: Exchange 2 cards", "red Weaver", "blue Farmer"]:
        game.apply(answer)
    assert game.legal_answers() == ["red Weaver", "green Dancer", "purple Assassin"]
    game.apply("green Dancer")
    assert not game.current_decision().prompt.startswith("Take"), "the red Weaver is taken at once: the only one left"
    assert sorted(zones(game)["guild[P2]"]) == ["blue Farmer", "purple Assassin", "red Weaver"]


# ---------------------------------------------------------------- VP cards (§9)


# The order in which the paid Farmer chapter goes onto the discard pile (§9.1, A7): red first, so
# purple ends on top (the fifth card is the only one left: it is not asked).
PAID = FARMERS[:4]


def buying(card: str, **more: list[str]) -> dict[str, list[str]]:
    """A position where P1 has one completed Farmer chapter (two for a 2-chapter card) and `card` is in the row."""
    closed = FARMERS + (DANCERS if card.endswith("(cost 2)") else [])
    position = {"closed[P1]": closed, "row": [*ROW, card], "hand[P1]": ["green Assassin"]}
    position.update({k.replace("_P", "[P") + "]": v for k, v in more.items()})
    return position


def test_vp_steal_chapter(trace_snapshot) -> None:  # type: ignore[no-untyped-def]
    """2 VP: take a whole chapter of another player's guild; the price is paid and the row refills."""
    game, trace = scenario_trace(
        buying("2 VP steal_chapter (cost 1)", guild_P2=["red Weaver", "blue Weaver", "green Dancer"]),
        ["buy 2 VP steal_chapter (cost 1)", *PAID, "tier 0: Take a chapter", "Weaver"],
    )
    assert sorted(zones(game)["guild[P1]"]) == ["blue Weaver", "red Weaver"]
    assert zones(game)["closed[P1]"] == []
    assert len(zones(game)["row"]) == 5
    assert trace == trace_snapshot


def test_vp_steal_chapter_blocked_by_a_duplicate(trace_snapshot) -> None:  # type: ignore[no-untyped-def]
    """The chapter cannot move if one of its cards is identical to one in the buyer's guild: with no
    other chapter to take, the ability cannot be carried out and is not offered; the card stays bought."""
    game, trace = scenario_trace(
        buying("2 VP steal_chapter (cost 1)", guild_P1=["red Weaver"], guild_P2=["red Weaver", "blue Weaver"]),
        ["buy 2 VP steal_chapter (cost 1)", *PAID],
    )
    assert "vp_steal_chapter" not in trace and "undo" not in trace
    assert zones(game)["guild[P2]"] == ["blue Weaver", "red Weaver"]
    assert zones(game)["vp_cards[P1]"] == ["2 VP steal_chapter (cost 1)"]
    assert trace == trace_snapshot


def test_vp_steal_chapter_offers_only_chapters_without_twins() -> None:
    """Of P2's chapters, only those without a card identical to one of the buyer's can be taken: the
    Weavers cannot (P1 has a red Weaver), so the Dancers are taken at once (§14, A17)."""
    game = start(
        buying(
            "2 VP steal_chapter (cost 1)",
            guild_P1=["red Weaver"],
            guild_P2=["red Weaver", "blue Weaver", "green Dancer"],
        )
    )
    for answer in ["buy 2 VP steal_chapter (cost 1)", *PAID, "tier 0: Take a chapter"]:
        game.apply(answer)
    assert sorted(zones(game)["guild[P1]"]) == ["green Dancer", "red Weaver"]
    assert "undo" not in [e.verb for e in game.events]


def test_vp_draw_six(trace_snapshot) -> None:  # type: ignore[no-untyped-def]
    """3 VP: draw 6 cards."""
    game, trace = scenario_trace(
        buying("3 VP draw_six (cost 1)"), ["buy 3 VP draw_six (cost 1)", *PAID, "tier 0: Draw 6 cards"]
    )
    assert len(zones(game)["hand[P1]"]) == 7
    assert trace == trace_snapshot


def test_vp_swap_one_for_two(trace_snapshot) -> None:  # type: ignore[no-untyped-def]
    """3 VP: give 1 card of the guild, take 2 of one other player's guild."""
    game, trace = scenario_trace(
        buying("3 VP swap_one_for_two (cost 1)", guild_P1=["red Weaver"], guild_P2=["green Dancer", "blue Farmer"]),
        ["buy 3 VP swap_one_for_two (cost 1)", *PAID, "tier 0: Give 1 card, take 2", "green Dancer"],
    )
    assert sorted(zones(game)["guild[P1]"]) == ["blue Farmer", "green Dancer"]
    assert zones(game)["guild[P2]"] == ["red Weaver"]
    assert trace == trace_snapshot


def test_vp_swap_one_for_two_gives_a_card_with_a_twin_only_for_that_twin() -> None:
    """Giving the red Weaver, of which P2 has a copy, P1 must take P2's red Weaver as one of the two
    cards: after the green Dancer it is the only card left to take (§14, A17)."""
    game = start(
        buying(
            "3 VP swap_one_for_two (cost 1)",
            guild_P1=["red Weaver", "blue Farmer"],
            guild_P2=["red Weaver", "green Dancer", "yellow Farmer"],
        )
    )
    for answer in ["buy 3 VP swap_one_for_two (cost 1)", *PAID, "tier 0: Give 1 card, take 2", "red Weaver"]:
        game.apply(answer)
    assert game.legal_answers() == ["red Weaver", "green Dancer", "yellow Farmer"]
    game.apply("green Dancer")
    assert sorted(zones(game)["guild[P1]"]) == ["blue Farmer", "green Dancer", "red Weaver"]
    assert zones(game)["guild[P2]"] == ["red Weaver", "yellow Farmer"]
    assert "undo" not in [e.verb for e in game.events]


def test_vp_place_any_places_no_card_twice_and_none_already_in_the_guild() -> None:
    """Of two identical cards in the hand only one can be placed, and a card identical to one in the
    guild is not offered, so no pick loses the ability (§14, A17)."""
    game = start(
        buying(
            "3 VP place_any (cost 1)",
            hand_P1=["red Weaver", "red Weaver", "blue Farmer", "green Dancer"],
            guild_P1=["blue Farmer"],
        )
    )
    for answer in ["buy 3 VP place_any (cost 1)", *PAID, "tier 0: Place cards from your hand"]:
        game.apply(answer)
    assert game.legal_answers() == ["red Weaver", "green Dancer", "done"]
    game.apply("red Weaver")
    assert game.legal_answers() == ["green Dancer", "done"]
    game.apply("done")
    assert sorted(zones(game)["guild[P1]"]) == ["blue Farmer", "red Weaver"]
    assert "undo" not in [e.verb for e in game.events]


def test_vp_place_any(trace_snapshot) -> None:  # type: ignore[no-untyped-def]
    """3 VP: place as many cards as wanted from the hand into the guild."""
    game, trace = scenario_trace(
        buying("3 VP place_any (cost 1)", hand_P1=["red Weaver", "blue Farmer", "green Dancer"]),
        [
            "buy 3 VP place_any (cost 1)",
            *PAID,
            "tier 0: Place cards from your hand",
            "red Weaver",
            "blue Farmer",
            "done",
        ],
    )
    assert sorted(zones(game)["guild[P1]"]) == ["blue Farmer", "red Weaver"]
    assert trace == trace_snapshot


def test_vp_take_one(trace_snapshot) -> None:  # type: ignore[no-untyped-def]
    """4 VP: take 1 card of another player's guild into the buyer's guild."""
    game, trace = scenario_trace(
        buying("4 VP take_one (cost 1)", guild_P2=["green Dancer", "blue Farmer"]),
        ["buy 4 VP take_one (cost 1)", *PAID, "tier 0: Take a card", "blue Farmer"],
    )
    assert zones(game)["guild[P1]"] == ["blue Farmer"]
    assert trace == trace_snapshot


def test_vp_extra_action(trace_snapshot) -> None:  # type: ignore[no-untyped-def]
    """4 VP: take one more action this turn."""
    game, trace = scenario_trace(
        buying("4 VP extra_action (cost 1)"), ["buy 4 VP extra_action (cost 1)", *PAID, "tier 0: Take one more action"]
    )
    assert game.state.vars["actions"] == 1
    assert game.current_decision().by == "P1"
    assert trace == trace_snapshot


def test_vp_plain_five(trace_snapshot) -> None:  # type: ignore[no-untyped-def]
    """5 VP: no ability; with two completed chapters the buyer chooses which pays."""
    position = buying("5 VP plain (cost 1)")
    position["closed[P1]"] = FARMERS + WEAVERS
    game, trace = scenario_trace(position, ["buy 5 VP plain (cost 1)", "Weaver", *WEAVERS[:4]])
    assert zones(game)["closed[P1]"] == FARMERS[::-1]
    assert game.score(game.players[0]) == 5
    assert trace == trace_snapshot


def test_vp_two_actions(trace_snapshot) -> None:  # type: ignore[no-untyped-def]
    """7 VP (RECONSTRUCTED ability): costs 2 completed chapters, paid in the chosen order, gives two more actions."""
    game, trace = scenario_trace(
        buying("7 VP two_actions (cost 2)"),
        ["buy 7 VP two_actions (cost 2)", "Dancer", *DANCERS[:4], *PAID, "tier 0: Take two more actions"],
    )
    assert zones(game)["closed[P1]"] == []
    assert zones(game)["discard"][:5] == FARMERS[::-1], "the Farmer chapter, paid second, is on top"
    assert game.state.vars["actions"] == 2
    assert trace == trace_snapshot


def test_vp_plain_nine(trace_snapshot) -> None:  # type: ignore[no-untyped-def]
    """9 VP: no ability; costs 2 completed chapters."""
    game, trace = scenario_trace(
        buying("9 VP plain (cost 2)"), ["buy 9 VP plain (cost 2)", "Farmer", *PAID, *DANCERS[:4]]
    )
    assert game.score(game.players[0]) == 9
    assert trace == trace_snapshot


def test_vp_card_is_not_offered_without_its_price() -> None:
    """A 2-chapter card is not offered to a player with one completed chapter."""
    position = buying("5 VP plain (cost 1)")
    position["row"] = [*ROW, "9 VP plain (cost 2)"]
    game = start(position)
    assert "buy 9 VP plain (cost 2)" not in game.legal_answers()
    assert "buy 5 VP plain (cost 1)" in game.legal_answers()
    assert "buy 4 VP take_one (cost 1)" in game.legal_answers()
