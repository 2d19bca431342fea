"""Guildhall, the rules around the abilities: legality, completed chapters, winning, invariants, records."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import rulecraft
from rulecraft.agents import GreedyAgent, RandomAgent, play
from rulecraft.cli import main
from rulecraft.language.values import CardRef, Player
from rulecraft.records import parse_record, replay

from .scenarios import RB, scenario_trace, start

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
SNAPSHOTS = HERE / "__snapshots__"
FARMERS = ["red Farmer", "blue Farmer", "yellow Farmer", "green Farmer", "purple Farmer"]
DANCERS = ["red Dancer", "blue Dancer", "yellow Dancer", "green Dancer", "purple Dancer"]
WEAVERS = ["red Weaver", "blue Weaver", "yellow Weaver", "green Weaver", "purple Weaver"]


def zones(game: rulecraft.Game) -> dict:  # type: ignore[type-arg]
    return game.view(None)["zones"]


# ---------------------------------------------------------------- playing a card (§5)


def test_p1_a_card_identical_to_one_in_the_guild_is_not_offered() -> None:
    """P1: with a blue Farmer in the guild, a blue Farmer cannot be played; a red one can."""
    game = start({"guild[P1]": ["blue Farmer"], "hand[P1]": ["blue Farmer", "red Farmer"]})
    assert game.legal_answers() == ["play red Farmer", "discard and draw"]


def test_p2_one_card_per_profession_per_turn() -> None:
    """P2: after a Farmer is played, no other Farmer is offered for the rest of the turn."""
    game = start({"guild[P1]": ["blue Farmer"], "hand[P1]": ["red Farmer", "green Farmer", "red Dancer"]})
    game.apply("play red Farmer")
    game.apply("no ability")
    assert game.legal_answers() == ["play red Dancer", "discard and draw"]


def test_a_tier_above_the_count_is_not_offered() -> None:
    """The tiers offered are those at most the count of the profession already in the guild (A1)."""
    offered = {}
    for guild in ([], ["blue Weaver"], ["blue Weaver", "yellow Weaver"], WEAVERS[1:]):
        game = start({"guild[P1]": guild, "hand[P1]": ["red Weaver", "green Farmer", "blue Farmer"]})
        game.apply("play red Weaver")
        offered[len(guild)] = [label.split(":")[0] for label in game.legal_answers()]
    assert offered == {
        0: ["no ability", "tier 0"],
        1: ["no ability", "tier 0"],
        2: ["no ability", "tier 0", "tier 2"],
        4: ["no ability", "tier 0", "tier 2", "tier 4"],
    }


def test_cards_added_this_turn_count_for_the_next_card() -> None:
    """A card placed in the guild earlier in the turn counts; the card just played does not (A1)."""
    game = start({"guild[P1]": ["blue Farmer"], "hand[P1]": ["red Weaver", "yellow Farmer", "green Farmer"]})
    for answer in [
        "play red Weaver",
        "tier 0: Place 1 card from your hand into your guild",
        "yellow Farmer",
        "play green Farmer",
    ]:
        game.apply(answer)
    assert game.current_decision().prompt == "You gain VP tokens: which tier? (count 2)"


# ---------------------------------------------------------------- completed chapters (§10)


def test_a_fourth_completed_chapter_forces_a_discard(trace_snapshot) -> None:  # type: ignore[no-untyped-def]
    """Completing a fourth chapter asks its owner at once which completed chapter to discard."""
    position = {
        "closed[P1]": FARMERS + DANCERS + WEAVERS,
        "guild[P1]": ["red Trader", "blue Trader", "yellow Trader", "green Trader"],
        "discard": ["purple Trader"],
        "hand[P1]": ["red Historian", "green Assassin"],
    }
    answers = ["play red Historian", "tier 0: Place the top card of the discard pile into your guild"]
    game = start(position)
    for answer in answers:
        game.apply(answer)
    decision = game.current_decision()
    assert (decision.by, decision.prompt) == ("P1", "Discard which completed chapter?")
    assert decision.labels == ["Farmer", "Dancer", "Weaver", "Trader"]
    # §10, A7: the owner also chooses the order of the chapter's cards on the pile (purple first,
    # so red ends on top).
    game, trace = scenario_trace(position, [*answers, "Dancer", *DANCERS[:0:-1]])
    assert len(zones(game)["closed[P1]"]) == 15
    assert zones(game)["discard"][:5] == DANCERS
    assert trace == trace_snapshot


def test_the_buyer_chooses_the_order_of_a_paid_chapter_on_the_discard_pile() -> None:
    """§9.1, A7: the cards of a chapter paid for a VP card go onto the discard pile in the order the
    buyer chooses, one at a time; the last one ends on top, where the next Historian's tier 0 takes it."""
    position = {
        "closed[P1]": FARMERS,
        "row": ["5 VP plain (cost 1)"],
        "hand[P1]": ["green Assassin", "red Historian"],
    }
    game = start(position)
    game.apply("buy 5 VP plain (cost 1)")
    decision = game.current_decision()
    assert (decision.by, decision.prompt) == ("P1", "Discard its cards in which order? (the last one ends on top) (1)")
    assert decision.labels == FARMERS
    for label in ["yellow Farmer", "purple Farmer", "red Farmer", "blue Farmer"]:
        game.apply(label)
    assert zones(game)["discard"] == ["green Farmer", "blue Farmer", "red Farmer", "purple Farmer", "yellow Farmer"]
    game.apply("play red Historian")
    game.apply("tier 0: Place the top card of the discard pile into your guild")
    assert "green Farmer" in zones(game)["guild[P1]"]
    assert zones(game)["discard"][0] == "blue Farmer"


def test_completion_is_checked_in_the_other_players_guild_too() -> None:
    """A Trader exchange that completes the partner's chapter closes it at once, on the partner's side."""
    game = start(
        {
            "guild[P1]": ["purple Farmer"],
            "hand[P1]": ["red Trader", "green Dancer"],
            "guild[P2]": ["red Farmer", "blue Farmer", "yellow Farmer", "green Farmer", "red Weaver"],
        }
    )
    for answer in ["play red Trader", "tier 0: Exchange 1 card", "red Weaver"]:
        game.apply(answer)
    assert len(zones(game)["closed[P2]"]) == 5
    assert zones(game)["guild[P1]"] == ["red Weaver"]
    assert "guild[P2]" not in zones(game) or zones(game)["guild[P2]"] == []


def test_completed_chapters_are_hidden_from_the_other_players() -> None:
    """Others see how many cards the completed chapters hold, not which; hands likewise (§12)."""
    game = start(
        {"closed[P1]": FARMERS, "hand[P1]": ["red Weaver", "green Dancer"], "discard": ["red Trader", "blue Farmer"]}
    )
    seen = game.view("P2")["zones"]
    assert seen["closed[P1]"] == {"count": 5}
    assert seen["hand[P1]"] == {"count": 2}
    assert seen["discard"] == {"top": "blue Farmer", "count": 2}
    assert set(seen["deck"]) == {"count"}
    assert game.view("P1")["zones"]["closed[P1]"] == FARMERS[::-1]


# ---------------------------------------------------------------- duplicates (§14)


def test_setup_places_three_cards_without_duplicates() -> None:
    """At setup, once a red Weaver is placed, the second red Weaver in hand is no longer offered."""
    game = RB.new_game(players=2, seed=None)
    row = ["5 VP plain (cost 1)"] * 4 + ["9 VP plain (cost 2)"]
    hand = [
        "red Weaver",
        "red Weaver",
        "blue Farmer",
        "green Dancer",
        "red Farmer",
        "yellow Trader",
        "purple Assassin",
        "blue Historian",
        "green Weaver",
    ]
    for label in row + hand + hand:
        game.apply(label)
    game.apply("done")
    assert game.current_decision().prompt == "Place which card in your guild?"
    game.apply("red Weaver")
    assert "red Weaver" not in game.legal_answers()
    assert len(game.legal_answers()) == 7


def test_two_identical_cards_found_in_a_guild_are_cut_to_one() -> None:
    """However two identical cards came into a guild, the next change to it discards one of them."""
    game = start({"hand[P1]": ["red Historian", "green Dancer"], "discard": ["blue Farmer"]})
    game.arrange("guild[P1]", ["red Weaver", "red Weaver"], source="deck")
    game.apply("play red Historian")
    game.apply("tier 0: Place the top card of the discard pile into your guild")
    assert zones(game)["guild[P1]"] == ["blue Farmer", "red Weaver"]
    assert zones(game)["discard"] == ["red Weaver"]


def test_completed_chapters_do_not_count_as_duplicates() -> None:
    """A red Trader in a completed chapter does not stop a red Trader from joining the guild."""
    game = start(
        {
            "closed[P1]": ["red Trader", "blue Trader", "yellow Trader", "green Trader", "purple Trader"],
            "hand[P1]": ["red Historian", "green Dancer"],
            "discard": ["red Trader"],
        }
    )
    game.apply("play red Historian")
    game.apply("tier 0: Place the top card of the discard pile into your guild")
    assert zones(game)["guild[P1]"] == ["red Trader"]


# ---------------------------------------------------------------- end of turn and winning (§11)


def test_a_win_reached_mid_turn_counts_only_at_the_end_of_the_turn(trace_snapshot) -> None:  # type: ignore[no-untyped-def]
    """Reaching 20 VP with the first action ends nothing; the game ends when that turn ends."""
    position = {
        "vp_cards[P1]": ["9 VP plain (cost 2)", "9 VP plain (cost 2)"],
        "guild[P1]": ["blue Farmer", "yellow Farmer", "green Farmer"],
        "hand[P1]": ["red Farmer", "green Dancer", "purple Weaver"],
    }
    game = start(position)
    game.apply("play red Farmer")
    game.apply("tier 3: Gain 2 VP tokens")
    assert game.score(game.players[0]) == 20
    assert not game.over
    assert game.current_decision().by == "P1"
    game, trace = scenario_trace(
        position, ["play red Farmer", "tier 3: Gain 2 VP tokens", "play green Dancer", "no ability"]
    )
    assert game.over
    assert game.result()["winners"] == ["P1"]
    assert trace == trace_snapshot


def test_an_incoming_duplicate_is_discarded_at_the_end_of_the_turn() -> None:
    """A card placed by an ability while its twin sits in the action area: the twin is discarded (A19)."""
    game = start({"hand[P1]": ["red Weaver", "red Weaver", "green Dancer"]})
    for answer in [
        "play red Weaver",
        "tier 0: Place 1 card from your hand into your guild",
        "red Weaver",
        "play green Dancer",
        "no ability",
    ]:
        game.apply(answer)
    assert zones(game)["guild[P1]"] == ["green Dancer", "red Weaver"]
    assert zones(game)["discard"] == ["red Weaver"]


def test_an_empty_deck_is_refilled_by_shuffling_the_discard_pile() -> None:
    """Drawing from an empty deck first shuffles the whole discard pile into a new deck (§8)."""
    game = start({"hand[P1]": ["red Weaver"]})
    game.arrange("discard", zones(game)["deck"], source="deck")
    assert "deck" not in zones(game) or zones(game)["deck"] == []
    pile = len(zones(game)["discard"])
    for answer in ["discard and draw", "done"]:
        game.apply(answer)
    assert len(zones(game)["hand[P1]"]) == 6
    assert len(zones(game)["deck"]) == pile - 5
    assert "discard" not in zones(game) or zones(game)["discard"] == []
    assert any(e.text == "the deck is empty: the discard pile is shuffled into a new deck" for e in game.events)


def test_small_games_use_the_smaller_vp_deck() -> None:
    """2-3 players: two 5-VP cards and one of each other kind leave the deck (§13): 20 cards, else 30."""
    sizes = {}
    for n in (2, 3, 4):
        game = RB.new_game(players=n, seed=1)
        sizes[n] = len(zones(game)["vp_deck"]) + len(zones(game)["row"])
    assert sizes == {2: 20, 3: 20, 4: 30}


# ---------------------------------------------------------------- invariants over seeded games


def check_invariants(game: rulecraft.Game) -> None:
    """120 profession cards in all; no guild with two identical cards; at most 3 completed chapters."""
    st = game.state
    workers = {c.id for c in st.cards if type(c).__name__ == "Worker"}
    assert len(workers) == 120
    assert sum(len([i for i in ids if i in workers]) for ids in st.zones.values()) == 120
    decision = game.current_decision()
    for p in game.players:
        guild = [game.label(CardRef(i)) for i in st.zones.get(f"guild[{p}]", [])]
        assert len(set(guild)) == len(guild), f"two identical cards in guild[{p}]: {guild}"
        if len(st.zones.get(f"closed[{p}]", [])) > 15:
            assert decision is not None and decision.by == str(p), "only the cap's own question may wait"
            assert decision.prompt == "Discard which completed chapter?"


@pytest.mark.parametrize(
    ("players", "seed", "agent"), [(2, 3, RandomAgent), (3, 4, RandomAgent), (4, 5, RandomAgent), (2, 6, GreedyAgent)]
)
def test_invariants_hold_in_seeded_games(players: int, seed: int, agent: type) -> None:
    """Cards are conserved, no guild holds a duplicate and nobody keeps 4 completed chapters, at every decision."""
    game = RB.new_game(players=players, seed=seed)
    play(game, [agent(seed * 10 + i) for i in range(players)], on_answer=check_invariants)
    assert game.over
    winners = game.result()["winners"]
    assert len(winners) == 1
    assert game.score(Player(int(winners[0][1:]) - 1)) >= 20


@pytest.mark.parametrize(("players", "seed"), [(2, 1), (3, 2), (4, 3)])
def test_no_ability_is_lost_while_it_can_be_carried_out_in_full(players: int, seed: int) -> None:
    """§5, §14, A17: every pick offered can complete its tier, so in random games no tier is undone,
    except a Historian's search that finds too few cards (the pile is not known before it, §12)."""
    game = RB.new_game(players=players, seed=seed)
    play(game, [RandomAgent(seed * 10 + i) for i in range(players)])
    undone = [e.text for e in game.events if e.verb == "undo" and not e.text.startswith("historian tier")]
    assert undone == []


# ---------------------------------------------------------------- coverage of the snapshots


def test_every_tier_and_every_vp_kind_has_a_trace_snapshot() -> None:
    """Each tier of each ability is used in at least one kept `.trace` snapshot."""
    traces = "\n".join(p.read_text(encoding="utf-8") for p in SNAPSHOTS.rglob("*.trace"))
    missing = [
        f"{name} tier {tier.level}"
        for name, ability in RB.program.abilities.items()
        for tier in ability.tiers
        if f"use     {name} tier {tier.level}:" not in traces
    ]
    assert missing == []
    game = RB.new_game(players=4, seed=1)
    cards = sorted({game.label(CardRef(c.id)) for c in game.state.cards if type(c).__name__ == "VpCard"})
    assert len(cards) == 9
    assert [c for c in cards if f"choose  P1 buy {c}  [Your action]" not in traces] == []


# ---------------------------------------------------------------- a table record


def test_the_table_record_replays() -> None:
    """The hand-written record of a real table (no seed: chance answers are the cards revealed) replays."""
    data = json.loads((ROOT / "examples" / "records" / "guildhall_table.json").read_text(encoding="utf-8"))
    assert "seed" not in data and "result" not in data
    game = replay(parse_record(data))
    assert not game.over, "the record stops mid-game: it has no result"
    assert (game.current_decision().by, game.current_decision().prompt) == ("P1", "Your action")
    assert game.state.vars["tokens[P1]"] == 1
    assert zones(game)["guild[P2]"] == [
        "green Assassin",
        "purple Dancer",
        "yellow Farmer",
        "blue Trader",
        "green Trader",
    ]
    assert zones(game)["discard"][0] == "red Historian"


def test_replaying_the_table_record_says_where_the_game_waits(capsys) -> None:  # type: ignore[no-untyped-def]
    """`rulecraft replay` of a record without a result replays it and names the pending decision."""
    assert main(["replay", str(ROOT / "examples" / "records" / "guildhall_table.json")]) == 0
    assert capsys.readouterr().out == "replayed and verified 51 answers; the game waits on P1: Your action\n"


# ---------------------------------------------------------------- the README's first command


def test_the_readme_game_ends_with_a_winner(capsys) -> None:  # type: ignore[no-untyped-def]
    """`rulecraft play guildhall --players 3 --seed 1 --agents greedy` ends by 20 VP, naming one winner."""
    assert main(["play", "guildhall", "--players", "3", "--seed", "1", "--agents", "greedy"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[-1].startswith("winner: P")
    scores = [int(line.split(": ")[1]) for line in lines if re.fullmatch(r"P\d: \d+", line)]
    assert len(scores) == 3 and max(scores) >= 20
