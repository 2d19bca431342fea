"""Valdora (rulebooks/valdora.rules): the rulebook's worked examples, every action, movement,
payments, refusals, the end of the game, and invariants over seeded games.

A scenario is a small rulebook that includes the bundled Valdora and adds a second `setup`
block arranging the table (setups run in order, so it runs after the real setup); the game
then starts at P1's first move. Gems and coins are only ever moved, never made, so the
scenarios keep the 78 gems and 30 silver.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import rulecraft
from rulecraft.agents import GreedyAgent, RandomAgent, play
from rulecraft.cli import main
from rulecraft.records import read_record, replay
from rulecraft.render import trace_lines


def run_script(game: rulecraft.Game, answers: list[str | int]) -> None:
    """Answer the pending decisions with the given labels (or option indexes, for card ids), in order."""
    for answer in answers:
        assert game.current_decision() is not None, f"the game asks nothing, but the script says {answer!r}"
        game.apply(answer)


ROOT = Path(__file__).resolve().parents[3]

PRELUDE = """
include "valdora.rules"
zone aside: Craftsman public   # craftsmen taken out of the guild to arrange a scenario
const P1 = players[0]
const P2 = players[1]
const P3 = players[2]
# A gem from a deposit other than `keep`; an equipment card from catalogue A by its code.
fn gem_from(g: Gem, keep: Space) = first(flatten([site[x] for x in Space if x != keep]) where it.gem == g)
fn catalogue(code: str) = first(eq_right[A] where it.code == code)
fn book_page(k: Craft) = first(co_right[C] where patron(it) == k)
proc give_coins(p: Player, n: int) {
  set bank += silver[p] - n
  set silver[p] = n
}
proc equip(p: Player, code: str, side: Side) {
  let c = catalogue(code)
  move c to gear[p]
  show_equipment(c, side)
}
proc leave_in_guild(k: Craft, n: int) {
  move top(guild[k], len(guild[k]) - n) to aside
}
"""


def scenario(setup: str, players: int = 3, seed: int = 1) -> rulecraft.Game:
    rb = rulecraft.load_text(PRELUDE + "setup {\n" + setup + "\n}\n", "scenario.rules")
    return rb.new_game(players=players, seed=seed)


def played(game: rulecraft.Game, answers: list[str | int], title: str) -> str:
    """Run the answers and render the trace from the first round on (the setup is not repeated)."""
    start = next(i for i, e in enumerate(game.events) if e.text == "round = 1")
    first = game.current_decision()
    offered = f'# {first.by} is first asked "{first.prompt}": {", ".join(first.labels)}'
    run_script(game, answers)
    lines = [f"# {title}", f"# players: {game.state.players}", offered, f"# answers: {answers}", ""]
    lines += trace_lines(game, game.events[start:])
    return "\n".join(lines) + "\n"


def var(game: rulecraft.Game, key: str) -> str:
    return game.view(None)["vars"].get(key, "")


def zone(game: rulecraft.Game, key: str) -> list[str]:
    return game.view(None)["zones"].get(key, [])


# ---------------------------------------------------------------- the rulebook's worked examples

LOADING = """
  # §5.2 example: the deposit holds 2 gold, 1 ruby, 2 sapphires and 1 emerald; Andras (P1) has
  # a ruby card (pickaxe), a sapphire card (chisel), a cart loading for 2 silver, and a gold in his pan.
  move site[g9] to site[g1]
  for g in [gold, gold, ruby, sapphire, sapphire, emerald] { move gem_from(g, g9) to site[g9] }
  move gem_from(gold, g9) to load[first(gear[P1])]
  equip(P1, "E02", recto)
  equip(P1, "E04", recto)
  equip(P1, "E15", verso)
  give_coins(P1, 3)
"""


def test_loading_example(trace_snapshot) -> None:
    """Ruby and sapphire go on their tools, the emerald on the cart for 2 silver; no room for gold."""
    game = scenario(LOADING)
    text = played(
        game, ["g9", "Load gems", "ruby", "E02 pickaxe", "sapphire", "E04 chisel", "emerald"], "§5.2 loading example"
    )
    assert text == trace_snapshot
    assert zone(game, "site[g9]") == ["sapphire", "gold", "gold"], "the second sapphire has no card either"
    assert var(game, "silver[P1]") == "1"
    assert game.current_decision().by == "P2", "with no room for gold the loading ends by itself"


PAGES = """
  # §5.1 example: Andras (P1) in catalogue A with 2 gold (pan and cart) and 3 silver.
  equip(P1, "E10", verso)
  move gem_from(gold, g9) to load[first(gear[P1])]
  move gem_from(gold, g9) to load[first(gear[P1] where tool(it) == cart)]
  give_coins(P1, 3)
  set at[P1] = g11
"""


def test_page_turning_example(trace_snapshot) -> None:
    """Buy, turn (free), turn (1 silver), buy, turn twice (2 silver): 3 silver for 4 turns."""
    game = scenario(PAGES)
    book = game.view(None)["zones"]["eq_right[A]"]
    assert len(book) == 17
    answers = [
        "A",
        "Buy equipment",
        "Buy the right page",
        0,
        "Turn a right page",
        "Turn a right page",
        "Buy the right page",
        "Turn a right page",
        "Turn a left page",
    ]
    text = played(game, answers, "§5.1 page-turning example")
    assert text == trace_snapshot
    assert var(game, "silver[P1]") == "0"
    assert var(game, "bank") == str(30 - 2 - 3), "P2 and P3 hold 2 and 3; P1's 3 coins went to the bank"
    assert game.current_decision().by == "P2", "without silver or gold the book closes by itself"


WORKSHOP = """
  # §5.3 example: Bea (P1). The guild holds 1 purple, 0 red and 1 blue craftsman; Bea has a
  # purple and a blue craftsman, two purple commissions, an amethyst on her hammer and on her cart.
  leave_in_guild(purple, 1)
  leave_in_guild(red, 0)
  leave_in_guild(blue, 1)
  move last(aside where it.colour == purple) to hired[P1]
  move last(aside where it.colour == blue) to hired[P1]
  move book_page(purple) to held[P1]
  move book_page(purple) to held[P1]
  equip(P1, "E03", recto)
  equip(P1, "E15", verso)
  for e in gear[P1] where tool(it) in [hammer, cart] { move gem_from(amethyst, g9) to load[e] }
"""


def test_workshop_example(trace_snapshot) -> None:
    """Bea opens purple, earns a bonus with the second purple commission, gets blue and opens blue."""
    game = scenario(WORKSHOP)
    text = played(
        game,
        ["hf", "Fulfil commissions", "K24 purple [amethyst] 4 VP", 0, "K10 purple [amethyst] 3 VP"],
        "§5.3 workshop example",
    )
    assert text == trace_snapshot
    assert zone(game, "opened[P1]") == ["blue workshop (2 needed, 5 VP)", "purple workshop (2 needed, 5 VP)"]
    assert var(game, "bonus[P1]") == "1"
    assert zone(game, "guild[purple]") == [] and zone(game, "guild[blue]") == []


RED = """
  # §5.3 example: no red craftsman left, one blue and one green; Andras (P1) fulfils 2 red commissions.
  leave_in_guild(red, 0)
  leave_in_guild(blue, 1)
  leave_in_guild(green, 1)
  move book_page(red) to held[P1]
  move book_page(red) to held[P1]
  equip(P1, "E02", recto)
  equip(P1, "E05", recto)
  for e in gear[P1] where tool(it) in [pickaxe, horse] { move gem_from(ruby, g9) to load[e] }
  set at[P1] = g1
"""


def test_two_red_commissions_fall_back_to_blue_then_green(trace_snapshot) -> None:
    """The first craftsman is the next colour clockwise (blue); blue is then empty, so green."""
    game = scenario(RED)
    first, second = list(zone(game, "held[P1]"))
    text = played(game, ["ha", "Fulfil commissions", second, 0, first], "§5.3 fallback example")
    assert text == trace_snapshot
    assert zone(game, "hired[P1]") == ["green craftsman", "blue craftsman"]


WHITE = """
  # P1, next to the white patron's house, holds the white commission K04 (a ruby, a sapphire and an
  # amethyst) and carries a ruby, two sapphires (chisel and horse) and an amethyst.
  move first(co_right[C] where it.code == "K04") to held[P1]
  equip(P1, "E02", recto)
  equip(P1, "E04", recto)
  equip(P1, "E05", recto)
  equip(P1, "E03", recto)
  for e in gear[P1] where tool(it) in [pickaxe, hammer] {
    move gem_from(if tool(e) == pickaxe then ruby else amethyst, g9) to load[e]
  }
  for e in gear[P1] where tool(it) in [chisel, horse] { move gem_from(sapphire, g9) to load[e] }
  set at[P1] = g10
"""


def test_a_commissions_gems_are_all_picked_before_any_is_handed_in() -> None:
    """§5.3: a commission is paid with the gems shown on it. While the player picks which sapphire
    to hand in, the ruby is still carried and the commission still held; then the three gems go to
    the pool together."""
    game = scenario(WHITE)
    run_script(game, ["hg", "Fulfil commissions", "K04 white [ruby, sapphire, amethyst] 10 VP"])
    decision = game.current_decision()
    assert decision.prompt == "Hand in which gem?"
    assert [label.split(" in ")[0] for label in decision.labels] == ["sapphire", "sapphire"]
    assert zone(game, "pool") == [] and zone(game, "held[P1]") == ["K04 white [ruby, sapphire, amethyst] 10 VP"]
    run_script(game, [0])
    assert sorted(zone(game, "pool")) == ["amethyst", "ruby", "sapphire"]
    assert zone(game, "done[P1]") == ["K04 white [ruby, sapphire, amethyst] 10 VP"]


# ---------------------------------------------------------------- one trace per action

COMMISSIONS_FULL = """
  # P1 holds 3 commissions and 3 silver, one step from town C's commission book.
  repeat 3 { move top(co_right[D]) to held[P1] }
  give_coins(P1, 3)
  set at[P1] = g12
"""


def test_buying_a_fourth_commission_returns_one_to_this_book(trace_snapshot) -> None:
    """With 3 open commissions, buying a page (1 silver) sends one of the 3 back onto either side of the book."""
    game = scenario(COMMISSIONS_FULL)
    old = zone(game, "held[P1]")
    run_script(game, ["C", "Buy commissions", "Return a commission, then buy a page"])
    decision = game.current_decision()
    assert decision.prompt == "Return which commission to the book?"
    assert sorted(decision.labels) == sorted(old), "only one of the 3 old commissions, and no way to keep all 4"
    text = played(
        scenario(COMMISSIONS_FULL),
        [
            "C",
            "Buy commissions",
            "Return a commission, then buy a page",
            old[0],
            "The left side",
            "The right page",
            "Close the book",
        ],
        "§5.1 buying commissions",
    )
    assert text == trace_snapshot


def test_with_three_open_commissions_the_page_is_chosen_after_the_return() -> None:
    """§5.1, A-13: with 3 open commissions, one goes back first ("first return one"); the page to buy
    is then chosen among the pages visible after the return, so a page the return covered cannot be
    bought, and the returned card, showing that side's face, can."""
    game = scenario(COMMISSIONS_FULL)
    old = zone(game, "held[P1]")
    run_script(game, ["C", "Buy commissions", "Turn a right page"])
    assert "Buy the right page" not in game.legal_answers(), "no page is named before the return"
    covered = zone(game, "co_right[C]")[0]
    run_script(game, ["Return a commission, then buy a page", old[0], "The right side"])
    decision = game.current_decision()
    assert decision.prompt == "Buy which page?"
    assert decision.labels == ["The right page", "The left page"]
    assert zone(game, "co_right[C]")[0] == old[0], "the right page now shows the returned card"
    run_script(game, ["The right page"])
    assert covered not in zone(game, "held[P1]"), "the covered page cannot be bought"
    assert zone(game, "co_right[C]")[0] == covered, "it stays in the book, visible again"
    assert sorted(zone(game, "held[P1]")) == sorted(old), "the returned card, bought back"


PORT = """
  # P1 stands next to the south harbour (2 ships) with a horse (load 3) and a shovel; the pool
  # holds an emerald, a ruby and a gold.
  equip(P1, "E05", recto)
  equip(P1, "E01", recto)
  for g in [emerald, ruby, gold] { move gem_from(g, g9) to pool }
  set at[P1] = hc
  give_coins(P1, 3)
"""


def test_loading_at_a_harbour_takes_at_most_its_ships_from_the_pool(trace_snapshot) -> None:
    """The south harbour has 2 ships: two gems come from the used-gem pool, the horse costs 3 silver."""
    game = scenario(PORT)
    text = played(game, ["h2", "Load gems from the pool", "emerald", "E01 shovel", "ruby"], "§5.2 loading at a harbour")
    assert text == trace_snapshot
    assert zone(game, "pool") == ["gold"]


THROWN_OFF = """
  # P1 stands next to the south harbour (2 ships) with a horse (load 3) that carries an amethyst,
  # and 6 silver; the pool holds an emerald and a ruby.
  equip(P1, "E05", recto)
  move gem_from(amethyst, g9) to load[first(gear[P1] where tool(it) == horse)]
  for g in [emerald, ruby] { move gem_from(g, g9) to pool }
  set at[P1] = hc
  give_coins(P1, 6)
"""


def test_a_gem_thrown_off_cannot_be_loaded_again_by_the_second_ship() -> None:
    """Loading the emerald throws the amethyst off the horse into the pool; the second ship offers
    only the gems that were in the pool when the loading began (§5.2, A-19, A-20)."""
    game = scenario(THROWN_OFF)
    run_script(game, ["h2", "Load gems from the pool", "emerald"])
    assert zone(game, "pool") == ["amethyst", "ruby"], "the amethyst is in the pool now"
    second = game.current_decision()
    assert second.prompt == "Load which gem? (1 of 1)"
    assert second.labels == ["ruby", "done"]


def test_mining_silver_refills_to_six(trace_snapshot) -> None:
    """At a silver mine the action takes coins from the bank up to 6."""
    game = scenario("set at[P1] = g3")
    text = played(game, ["m2", "Mine silver"], "§5.4 mining silver")
    assert text == trace_snapshot
    assert var(game, "silver[P1]") == "6"


def test_provisions_let_a_move_pass_one_town_and_are_used_up(trace_snapshot) -> None:
    """P1 takes provisions in town C; next turn a walk from C through A ends beyond it and flips the card back."""
    game = scenario("")
    text = played(
        game,
        ["C", "Take provisions", "g9", "Do nothing", "g10", "Do nothing", "g8"],
        "§4.1, §5.5 taking provisions, then a move with provisions",
    )
    assert text == trace_snapshot
    assert var(game, "fed[P1]") == "false"
    assert "g8" not in scenario("set at[P1] = C").legal_answers(), "without provisions g8 is beyond town A"


def test_a_move_without_provisions(trace_snapshot) -> None:
    """Without provisions P1 is offered the central spaces and the four towns, and stops in town A."""
    assert played(scenario(""), ["A"], "§4.1 movement without provisions") == trace_snapshot


def test_a_move_without_provisions_stops_at_the_first_town() -> None:
    """From the port city a move reaches the central spaces and the four towns, never beyond (§9.2 counts)."""
    game = scenario("")
    assert sorted(game.legal_answers()) == sorted(
        ["g9", "he", "g10", "hf", "g11", "g12", "hg", "g13", "A", "B", "C", "D"]
    )
    assert len(scenario("set fed[P1] = true").legal_answers()) == 29
    assert sorted(scenario("set at[P1] = g1").legal_answers()) == ["A", "C", "g2", "h1", "ha"]


def test_a_move_that_uses_no_town_keeps_the_provisions() -> None:
    """Provisions are spent only when the walk has to pass a town (A-5)."""
    game = scenario("set fed[P1] = true")
    run_script(game, ["g9"])
    assert var(game, "fed[P1]") == "true"


PAYING = """
  # P2 (6 silver) and P3 (3 silver) stand on g9; P1 has 2 silver.
  set at[P2] = g9
  set at[P3] = g9
  give_coins(P1, 2)
  give_coins(P2, 6)
"""


def test_ending_on_other_figures_pays_each_owner_or_the_bank(trace_snapshot) -> None:
    """1 silver to each other figure's owner; P2 holds 6, so that coin goes to the bank."""
    game = scenario(PAYING)
    text = played(game, ["g9"], "§4.1 meeting rivals")
    assert text == trace_snapshot
    assert (var(game, "silver[P1]"), var(game, "silver[P2]"), var(game, "silver[P3]")) == ("0", "6", "4")


def test_a_silver_mine_is_free_to_end_on() -> None:
    """Ending on a silver mine with other figures costs nothing, even without money."""
    game = scenario("set at[P2] = m2  set at[P3] = m2  set at[P1] = g3  give_coins(P1, 0)")
    run_script(game, ["m2"])
    assert var(game, "silver[P1]") == "0" and var(game, "silver[P2]") == "2"


# ---------------------------------------------------------------- refusals


PAN = "first(gear[P1] where tool(it) == pan)"
PICKAXES_ON_TOP = "while tool(top(eq_right[A])) != pickaxe { move top(eq_right[A]) to bottom of eq_right[A] }"


@pytest.mark.parametrize(
    ("allowed", "refused", "script", "answer"),
    [
        # a second equipment of one type: with a pickaxe, a pickaxe page cannot be bought
        (
            f"move gem_from(gold, g9) to load[{PAN}]  {PICKAXES_ON_TOP}",
            f"""equip(P1, "E02", recto)  move gem_from(gold, g9) to load[{PAN}]  {PICKAXES_ON_TOP}""",
            ["A", "Buy equipment"],
            "Buy the right page",
        ),
        # a move ending where it began (P is reachable from g9, not from P itself)
        ("set at[P1] = g9  give_coins(P1, 3)", "", [], "P"),
        # a space you cannot pay for: two figures on g9 and only 1 silver
        (
            "set at[P2] = g9  set at[P3] = g9  give_coins(P1, 2)",
            "set at[P2] = g9  set at[P3] = g9  give_coins(P1, 1)",
            [],
            "g9",
        ),
        # loading without capacity: the pan holds a gold and the deposit holds only gold
        (
            "move site[g9] to site[g1]  for i in 1..3 { move gem_from(gold, g9) to site[g9] }",
            f"""move site[g9] to site[g1]  for i in 1..3 {{ move gem_from(gold, g9) to site[g9] }}
         move gem_from(gold, g9) to load[{PAN}]""",
            ["g9"],
            "Load gems",
        ),
    ],
    ids=["second-equipment-of-a-type", "end-where-it-began", "cannot-pay", "no-capacity"],
)
def test_refusals(allowed: str, refused: str, script: list[str], answer: str) -> None:
    """What the rules forbid is never offered; the same answer is offered when the rules allow it."""
    game = scenario(allowed)
    run_script(game, script)
    assert answer in game.legal_answers()
    game = scenario(refused)
    run_script(game, script)
    assert answer not in game.legal_answers()


# ---------------------------------------------------------------- the end of the game and scoring

ENDING = """
  # Only grey (1) and yellow (1) craftsmen are left. P1 can fulfil a yellow commission at house c;
  # P2 has two red craftsmen (and so the red workshop) and a gem on the pan; P3 holds an open commission.
  for k in Craft { leave_in_guild(k, if k in [grey, yellow] then 1 else 0) }
  move first(aside where it.colour == red) to hired[P2]
  move first(aside where it.colour == red) to hired[P2]
  move book_page(yellow) to held[P1]
  move gem_from(gold, g9) to load[first(gear[P1])]
  move gem_from(gold, g9) to load[first(gear[P2])]
  move book_page(red) to held[P3]
  set at[P1] = g5
"""


def test_the_last_colour_ends_the_game_after_the_round(trace_snapshot) -> None:
    """When one craftsman colour is left the round is finished; then each player's score is totalled."""
    game = scenario(ENDING)
    assert zone(game, "opened[P2]") == ["red workshop (2 needed, 5 VP)"]
    text = played(
        game,
        ["hc", "Fulfil commissions", "K19 yellow [gold] 3 VP", "g9", "g10", "Do nothing"],
        "§6-7 the end of the game",
    )
    assert text == trace_snapshot
    assert game.over
    assert game.result() == {"scores": {"P1": 3 + 10, "P2": 10 + 5 + 1, "P3": 0}, "winners": ["P2"]}


@pytest.mark.parametrize(("coins", "winners"), [((1, 2, 3), ["P3"]), ((1, 3, 3), ["P2", "P3"])])
def test_a_tie_goes_to_more_silver_then_is_shared(coins: tuple[int, int, int], winners: list[str]) -> None:
    """Equal scores: the player with more silver wins; equal silver too: all of them win."""
    setup = "for k in Craft { leave_in_guild(k, if k == grey then 1 else 0) }\n" + "\n".join(
        f"give_coins(P{i + 1}, {n})" for i, n in enumerate(coins)
    )
    game = scenario(setup)
    for to in ["g9", "g10", "hf"]:
        run_script(game, [to])
        if "Do nothing" in game.legal_answers():
            run_script(game, ["Do nothing"])
    assert game.over and game.result()["winners"] == winners


# ---------------------------------------------------------------- invariants over seeded games

STONE_ZONES = ("bag", "site[", "pool", "load[")


def check_invariants(game: rulecraft.Game) -> None:
    view = game.view(None)
    zones, vars_ = view["zones"], view["vars"]
    gems = sum(len(cards) for key, cards in zones.items() if key.startswith(STONE_ZONES))
    assert gems == 78, f"{gems} gems on the table"
    coins = [int(vars_.get(f"silver[P{i + 1}]", 0)) for i in range(game.state.players)]
    assert sum(coins) + int(vars_["bank"]) == 30, f"silver {coins} and bank {vars_['bank']}"
    assert all(0 <= c <= 6 for c in coins), f"silver {coins}"
    assert all(len(zones.get(f"held[P{i + 1}]", [])) <= 3 for i in range(game.state.players))


@pytest.mark.parametrize(("players", "seed"), [(3, 1), (5, 2)])
def test_random_games_end_and_conserve_gems_and_silver(players: int, seed: int) -> None:
    """Random players' games end (at the latest stopped unfinished by the round limit); 78 gems and 30 silver are
    kept, silver <= 6."""
    rb = rulecraft.load("valdora")
    game = rb.new_game(players=players, seed=seed, trace=False)
    check_invariants(game)
    play(game, [RandomAgent(seed * 10 + i) for i in range(players)], on_answer=check_invariants)
    result = game.result()
    assert game.over and (result["winners"] or result["unfinished"] == "stopped after 100 rounds")


@pytest.mark.parametrize(("bought", "worth_more"), [("E04", True), ("E02", False), ("E05", False)])
def test_a_tool_for_a_held_commissions_gem_counts_in_the_hint_for_agents(bought: str, worth_more: bool) -> None:
    """The hint for agents (`heuristic`) values a held blue commission more once the player has the
    sapphire's tool (the chisel): else spending a gold on it looks like a loss, and the player never
    buys it. Not a pickaxe, nor a horse: it carries one gem of any kind, not one of each needed."""

    def hint(code: str | None) -> int:
        equip = f'equip(P1, "{code}", recto)' if code else ""
        game = scenario(f"move book_page(blue) to held[P1]\n{equip}")
        return game.heuristic(game.players[0])

    assert (hint(bought) - hint(None) > 16) == worth_more, "16: what any card counts"


def test_greedy_players_decide_from_few_options() -> None:
    """A greedy player makes a round of decisions; no decision offers more than the 29 destinations."""
    rb = rulecraft.load("valdora")
    game = rb.new_game(players=3, seed=4, trace=False)
    agents = [GreedyAgent(i) for i in range(3)]
    widest = 0
    for _ in range(12):
        decision = game.current_decision()
        widest = max(widest, len(decision.options))
        game.apply(agents[decision.player.index].choose(game, decision))
        check_invariants(game)
    assert widest <= 29


# ---------------------------------------------------------------- a game written down at a table


def test_the_table_record_replays() -> None:
    """A hand-written record without a seed (the table's answers are what was revealed) replays step by step."""

    record = read_record(ROOT / "examples" / "records" / "valdora_table.json")
    assert record.seed is None
    game = replay(record)
    assert not game.over and game.current_decision().by == "P1"
    assert zone(game, "site[g1]") == ["gold", "emerald", "amethyst", "sapphire", "ruby"]
    assert zone(game, "gear[P2]") == ["E18 cart (load 3 silver)", "S pan"]
    assert (var(game, "at[P3]"), var(game, "fed[P3]"), var(game, "round")) == ("g1", "false", "3")
    check_invariants(game)


def test_the_play_command_ends_with_the_result_line(capsys) -> None:
    """`rulecraft play valdora` plays a whole game and ends with the result: random players never end
    it by the guild, so the round limit stops it unfinished, with no winner."""
    assert main(["play", "valdora", "--players", "4", "--seed", "3", "--agents", "random"]) == 0
    last = capsys.readouterr().out.strip().splitlines()[-1]
    assert last == "unfinished: stopped after 100 rounds"
