"""The runtime on tiny inline rulebooks: decisions, chance, all-or-nothing, rules, budgets, state."""

from __future__ import annotations

import json

import pytest
import rulecraft
from rulecraft.agents import GreedyAgent, RandomAgent, play
from rulecraft.errors import GameError, RulebookError
from rulecraft.language.values import Player
from rulecraft.render import trace_lines, view_text

from .conftest import run_script

CARDS = """game T players 1..3
enum Colour { red, blue, green }
card Chip { colour: Colour, n: int } label "{colour} {n}"
zone bag: Chip hidden shuffled
zone row: Chip public
zone hand[Player]: Chip owner
zone pile: Chip top
var points[Player]: int = 0 public
fn score(p: Player) = points[p]
"""


def load(body: str) -> rulecraft.Rulebook:
    return rulecraft.load_text(CARDS + body, "t.rules")


def test_decision_options_are_labels_and_identical_cards_are_one_option() -> None:
    """A choice lists labelled options; two identical cards in one zone are one option."""
    rb = load("""
setup { create 2 Chip { colour: red, n: 1 } in row  create 1 Chip { colour: blue, n: 2 } in row }
play { let c = choose one from row by P1 prompt "Take" move c to hand[P1] }
const P1 = players[0]
""")
    game = rb.new_game(players=1)
    decision = game.current_decision()
    assert decision is not None
    assert decision.labels == ["red 1", "blue 2"]
    assert decision.prompt == "Take"
    game.apply("blue 2")
    assert game.over
    assert game.view("P1")["zones"]["hand[P1]"] == ["blue 2"]


def test_illegal_answer_is_refused_with_the_legal_ones() -> None:
    """An answer that is not an option is refused, naming the legal answers."""
    rb = load('play { choose by players[0] { option "a" { } option "b" { } } }')
    game = rb.new_game(players=1)
    with pytest.raises(GameError, match="'c' is not a legal answer to \"Choose\" \\(by P1\\); legal: a, b"):
        game.apply("c")


def test_chance_is_seeded_and_recorded_as_what_was_revealed() -> None:
    """Draws from a shuffled zone are table decisions: the same seed draws the same cards."""
    rb = load("""
setup { for c in Colour { create 1 Chip { colour: c, n: 1 } in bag } }
play { draw 2 from bag to hand[players[0]] }
""")
    a, b = rb.new_game(players=1, seed=5), rb.new_game(players=1, seed=5)
    assert a.answers == b.answers
    assert [by for by, _ in a.answers] == ["table", "table"]
    assert a.view(None)["zones"]["hand[P1]"] == [label for _, label in reversed(a.answers)]
    others = {tuple(rb.new_game(players=1, seed=s).answers) for s in range(20)}
    assert len(others) > 1, "different seeds draw differently"


def test_without_a_seed_chance_waits_for_the_table() -> None:
    """A game without a seed asks the table, e.g. what a person drew on a real table."""
    rb = load("""
setup { for c in Colour { create 1 Chip { colour: c, n: 1 } in bag } }
play { draw 1 from bag to hand[players[0]] }
""")
    game = rb.new_game(players=1, seed=None)
    decision = game.current_decision()
    assert decision is not None and decision.player is None
    assert decision.labels == ["red 1", "blue 1", "green 1"]
    game.apply("green 1")
    assert game.view("P1")["zones"]["hand[P1]"] == ["green 1"]


def test_a_decision_of_one_answer_is_taken_at_once_unless_every_decision_is_asked() -> None:
    """A choice with a single possible answer is taken at once and not recorded; a game made with
    `ask_forced` (the OpenSpiel adapter's) asks it like any other and records its answer."""
    rb = load("""
play {
  let c = choose one from [1] by players[0] prompt "Which?"
  let d = choose one from [2, 3] by players[0] prompt "Then?"
}
""")
    taken = rb.new_game(players=1, seed=1)
    assert taken.current_decision().prompt == "Then?"
    asked = rb.new_game(players=1, seed=1, ask_forced=True)
    assert (asked.current_decision().prompt, asked.legal_answers()) == ("Which?", ["1"])
    asked.apply("1")
    assert asked.current_decision().prompt == "Then?"
    assert asked.answers == [("P1", "1")]
    assert asked.clone().switches.ask_forced


def test_attempt_undoes_everything_on_failure() -> None:
    """A failed attempt leaves the state exactly as it was and runs its else block."""
    rb = load("""
setup { create 1 Chip { colour: red, n: 1 } in row }
play {
  let p = players[0]
  attempt {
    move top(row) to hand[p]
    set points[p] += 5
    require false else "too bad"
  } else {
    set points[p] += 1
  }
}
""")
    game = rb.new_game(players=1)
    assert game.over
    assert game.state.vars == {"points[P1]": 1}
    assert game.view(None)["zones"]["row"] == ["red 1"]
    assert [e.verb for e in game.events][-3:] == ["undo", "set", "end"]


def test_ability_tier_that_cannot_be_completed_is_rolled_back() -> None:
    """Choosing a tier that fails midway undoes the tier (all or nothing) and asks again without it."""
    rb = load("""
ability take(p: Player) "Take chips" {
  tier 0 "Take 1" { move top(row) to hand[p] }
  tier 2 "Take 2 and score" {
    set points[p] += 3
    let two = choose exactly 2 from row by p
    move two to hand[p]
  }
}
setup { create 1 Chip { colour: red, n: 1 } in row }
play { use take(players[0]) upto 2 }
""")
    game = rb.new_game(players=1)
    assert game.legal_answers() == ["no ability", "tier 0: Take 1", "tier 2: Take 2 and score"]
    game.apply("tier 2: Take 2 and score")
    assert game.state.vars.get("points[P1]", 0) == 0
    assert game.view(None)["zones"]["row"] == ["red 1"]
    # A tier that cannot be completed cannot be chosen: the others are offered again.
    assert game.legal_answers() == ["no ability", "tier 0: Take 1"]
    game.apply("tier 0: Take 1")
    assert game.over
    assert game.view(None)["zones"]["hand[P1]"] == ["red 1"]


def test_a_choice_of_several_reads_its_list_again_with_the_values_picked_so_far() -> None:
    """While several values are chosen, the choice's name holds those picked so far and the list
    chosen from is read again before each pick: here the second chip must differ in colour."""
    rb = load("""
setup {
  create 2 Chip { colour: red, n: 1 } in row
  create 1 Chip { colour: red, n: 2 } in row
  create 1 Chip { colour: blue, n: 3 } in row
}
play {
  let p = players[0]
  let two = choose exactly 2 from row where it.colour not in (two map it.colour) by p prompt "Take"
  move two to hand[p]
}
""")
    game = rb.new_game(players=1)
    assert game.legal_answers() == ["red 1", "red 2", "blue 3"]
    game.apply("red 2")
    assert game.over, "only the blue chip differs in colour: it is taken at once"
    assert game.view(None)["zones"]["hand[P1]"] == ["blue 3", "red 2"]


def test_a_choice_of_several_fails_when_no_value_fits_the_next_pick() -> None:
    """`choose exactly N` fails (and an attempt runs its else) if the picks so far leave nothing to pick."""
    rb = load("""
setup { create 1 Chip { colour: red, n: 1 } in row  create 1 Chip { colour: red, n: 2 } in row }
play {
  let p = players[0]
  attempt {
    let two = choose exactly 2 from row where it.colour not in (two map it.colour) by p
    move two to hand[p]
  } else {
    set points[p] += 1
  }
}
""")
    game = rb.new_game(players=1)
    game.apply("red 1")
    assert game.over
    assert game.state.vars == {"points[P1]": 1}
    assert game.view(None)["zones"]["row"] == ["red 2", "red 1"]


def test_rules_fire_after_each_change_until_none_applies() -> None:
    """A state-based rule runs as soon as its condition holds, even in the middle of a procedure."""
    rb = load("""
rule overflow(p in players) when len(hand[p]) > 2 {
  move first(hand[p]) to pile
}
setup { for n in 1..5 { create 1 Chip { colour: red, n: n } in row } }
play {
  let p = players[0]
  for c in row { move c to hand[p] }
  set points[p] = len(pile)
}
""")
    game = rb.new_game(players=1)
    assert game.view(None)["zones"]["hand[P1]"] == ["red 5", "red 4"]
    assert game.state.vars["points[P1]"] == 3
    assert sum(e.verb == "rule" for e in game.events) == 3


def test_together_checks_rules_once_after_the_block() -> None:
    """Inside `together` a rule does not see the halfway state."""
    rb = load("""
rule too_many(p in players) when len(hand[p]) > 1 { move hand[p] to pile }
setup { create 1 Chip { colour: red, n: 1 } in row  create 1 Chip { colour: blue, n: 1 } in hand[players[0]] }
play {
  let p = players[0]
  together { move row to hand[p]  move first(hand[p]) to row }
}
""")
    game = rb.new_game(players=1)
    assert not any(e.verb == "rule" for e in game.events)
    assert game.view(None)["zones"]["row"] == ["blue 1"]


def test_endless_loop_stops_with_a_located_error() -> None:
    """A runaway rulebook stops after a step budget, naming the rule that was running."""
    rb = load('play { while true { say "again" } }')
    with pytest.raises(RulebookError, match=r"t\.rules:10:\d+: error: 200000 steps without a decision"):
        rb.new_game(players=1)


def test_runaway_recursion_stops_with_a_located_error() -> None:
    """Unbounded recursion stops with a clear error, not a Python RecursionError."""
    rb = load("proc again() { again() }\nplay { again() }")
    with pytest.raises(RulebookError, match="nested steps: runaway recursion"):
        rb.new_game(players=1)


def test_runtime_fail_outside_attempt_is_located() -> None:
    """A failure with nothing to undo is reported at its place."""
    rb = load('play { fail "cannot" }')
    with pytest.raises(RulebookError) as info:
        rb.new_game(players=1)
    assert info.value.messages == ["t.rules:10:8: error: 'cannot' failed outside any attempt or ability"]


def test_state_round_trips_through_the_converter() -> None:
    """The state (cards, zones, variables of every kind) survives cattrs and JSON unchanged."""
    rb = load("""
var latest: Chip = none public
var seen[Player]: list of Colour = [] public
setup { for c in Colour { create 1 Chip { colour: c, n: 2 } in bag } }
play {
  let p = players[0]
  draw 2 from bag to hand[p]
  set latest = first(hand[p])
  set seen[p] = hand[p] map it.colour
  choose by p { option "stop" { } option "go" { } }
}
""")
    game = rb.new_game(players=2, seed=3)
    data = json.loads(json.dumps(rb.converter.unstructure(game.state)))
    again = rb.converter.structure(data)
    assert again == game.state
    assert rb.converter.unstructure(again) == data


def test_clone_is_independent() -> None:
    """A clone at a decision goes its own way without touching the original."""
    rb = load("""
setup { for n in 1..4 { create 1 Chip { colour: red, n: n } in row } }
play { let p = players[0]  repeat 2 { let c = choose one from row by p  move c to hand[p] } }
""")
    game = rb.new_game(players=1)
    twin = game.clone()
    twin.apply("red 3")
    assert game.legal_answers() == ["red 1", "red 2", "red 3", "red 4"]
    run_script(game, ["red 1", "red 2"])
    run_script(twin, ["red 4"])
    assert game.view(None)["zones"]["hand[P1]"] == ["red 2", "red 1"]
    assert twin.view(None)["zones"]["hand[P1]"] == ["red 4", "red 3"]


def test_views_hide_what_a_player_cannot_see() -> None:
    """Another player's hand and a shuffled zone show only counts; a top zone shows its top."""
    rb = load("""
setup {
  for c in Colour { create 1 Chip { colour: c, n: 1 } in bag }
  draw 2 from bag to hand[players[0]]
  create 1 Chip { colour: red, n: 7 } in pile
  create 1 Chip { colour: blue, n: 8 } in pile
}
play { choose by players[1] { option "a" { } option "b" { } } }
""")
    game = rb.new_game(players=2, seed=1)
    mine, theirs = game.view("P1"), game.view("P2")
    assert len(mine["zones"]["hand[P1]"]) == 2
    assert theirs["zones"]["hand[P1]"] == {"count": 2}
    assert theirs["zones"]["bag"] == {"count": 1}
    assert theirs["zones"]["pile"] == {"top": "blue 8", "count": 2}
    assert mine["pending"] == {"by": "P2", "prompt": "(waiting)"}
    assert theirs["pending"]["options"] == ["a", "b"]


@pytest.mark.parametrize("agent", [RandomAgent, GreedyAgent])
def test_agents_finish_the_tutorial(agent: type) -> None:
    """Seeded agents play the tutorial game to its end; the same seeds give the same game."""
    rb = rulecraft.load("examples/tutorial.rules")
    results = []
    for _ in range(2):
        game = rb.new_game(players=3, seed=11)
        play(game, [agent(i) for i in range(3)])
        results.append((game.answers, game.result()))
    assert results[0] == results[1]
    assert results[0][1]["winners"]


def test_greedy_beats_random_more_often_than_not() -> None:
    """Greedy's one-ply lookahead wins most two-player tutorial games against random."""
    rb = rulecraft.load("examples/tutorial.rules")
    wins = 0
    for seed in range(12):
        game = rb.new_game(players=2, seed=seed)
        play(game, [GreedyAgent(seed), RandomAgent(seed)])
        wins += Player(0).index in (game.state.winners or [])
    assert wins >= 7


def test_arrange_moves_cards_by_label_and_asks_again() -> None:
    """`arrange` puts labelled cards on a zone outside the rules, and the pending decision is asked anew."""
    rb = load("""
setup { for n in 1..3 { create 1 Chip { colour: red, n: n } in bag }  create 1 Chip { colour: blue, n: 8 } in hand[players[0]]  create 1 Chip { colour: blue, n: 9 } in hand[players[0]] }
play { let p = players[0]  let c = choose one from hand[p] by p prompt "Show"  move c to row }
""")
    game = rb.new_game(players=1, seed=1)
    assert game.legal_answers() == ["blue 8", "blue 9"]
    game.arrange("bag", ["blue 8", "blue 9"], source="hand[P1]", ask=False)
    assert game.legal_answers() == ["blue 8", "blue 9"], "the decision is asked again only when told"
    game.arrange("hand[P1]", ["red 2", "red 3"], source="bag")
    assert game.legal_answers() == ["red 2", "red 3"]
    assert game.view(None)["zones"]["bag"] == ["blue 8", "blue 9", "red 1"]
    assert game.answers == []
    with pytest.raises(GameError, match="no card 'red 2' in bag to arrange into row"):
        game.arrange("row", ["red 2"], source="bag")
    game.apply("red 3")
    assert game.view(None)["zones"]["row"] == ["red 3"]
    assert "arrange red 2, red 3 -> hand[P1]" in [f"{e.verb} {e.text}" for e in game.events]


def test_trace_shows_others_only_the_top_card_of_cards_landing_on_a_top_pile() -> None:
    """Cards from a hidden hand onto a pile whose top alone is face up: others learn the top card only."""
    rb = load("""
setup { create 1 Chip { colour: red, n: 1 } in hand[players[0]]  create 1 Chip { colour: blue, n: 2 } in hand[players[0]] }
play { move hand[players[0]] to pile }
""")
    game = rb.new_game(players=2)
    move = next(e for e in game.events if e.verb == "move")
    assert game.visible_to(move, Player(0)) == "red 1, blue 2: hand[P1] -> pile"
    assert game.visible_to(move, Player(1)) == "2 cards: hand[P1] -> pile (top: blue 2)"


def test_setting_a_field_traces_the_card_as_it_was() -> None:
    """A field that is part of a card's label is traced under the card's old label."""
    rb = load("""
setup { create 1 Chip { colour: red, n: 1 } in row }
play { set first(row).n = 2  set first(row).colour = blue }
""")
    game = rb.new_game(players=1)
    assert [e.text for e in game.events if e.verb == "set"] == ["red 1.n = 2", "red 2.colour = blue"]


def test_an_extension_extends_an_enumeration_and_overrides_a_procedure(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """`extend enum` adds values after the included ones; `override proc` replaces the included body."""
    (tmp_path / "base.rules").write_text(
        "game T players 1..2\nenum Suit { coins, cups }\nvar seen: int = 0 public\n"
        "proc hook(n: int) { set seen = n }\nplay { for s in Suit { hook(ord(s)) } }\n",
        encoding="utf-8",
    )
    (tmp_path / "ext.rules").write_text(
        'include "base.rules"\nextend enum Suit { swords }\noverride proc hook(n: int) { set seen += 10 * n }\n',
        encoding="utf-8",
    )
    base = rulecraft.load(tmp_path / "base.rules").new_game(players=1)
    ext = rulecraft.load(tmp_path / "ext.rules")
    assert base.state.vars["seen"] == 1
    assert [v.name for v in ext.program.enums["Suit"]] == ["coins", "cups", "swords"]
    assert ext.new_game(players=1).state.vars["seen"] == 0 + 10 + 20


@pytest.mark.parametrize(
    ("decls", "condition", "start"),
    [
        ("var target: any = none public", "len(target) >= 2", "set target = hand[players[0]]"),
        ("const TARGET = hand[players[0]]", "len(TARGET) >= 2", ""),
    ],
)
def test_a_rule_reading_a_zone_through_a_variable_or_constant_is_checked_when_the_zone_changes(
    decls: str, condition: str, start: str
) -> None:
    """A rule whose condition reaches a zone through a variable or a constant fires when that zone changes."""
    rb = load(f"""
{decls}
var alarms: int = 0 public
rule full() when {condition} and alarms == 0 {{ set alarms = 1 }}
setup {{ create 4 Chip {{ colour: red, n: 1 }} in row  {start} }}
play {{
  repeat 2 {{ let c = choose one from row by players[0]  move c to hand[players[0]] }}
  choose by players[0] {{ option "end" {{ }} option "more" {{ }} }}
}}
""")
    game = rb.new_game(players=1)
    assert game.current_decision() is not None
    assert len(game.state.zones["hand[P1]"]) == 2
    assert game.state.vars["alarms"] == 1


def test_a_rule_reading_a_field_of_a_card_held_in_a_variable_is_checked_when_the_field_changes() -> None:
    """A rule reading a field of a card named by a variable fires when that card's field changes."""
    rb = load("""
var watched: Chip = none public
var alarms: int = 0 public
rule high() when watched != none and watched.n > 2 and alarms == 0 { set alarms = 1 }
setup { create 1 Chip { colour: red, n: 1 } in row  set watched = first(row) }
play {
  set first(row).n = 5
  choose by players[0] { option "end" { } option "more" { } }
}
""")
    game = rb.new_game(players=1)
    assert game.state.vars["alarms"] == 1


COMPOUND = """game C players 2..2
var seen[Player]: list of int = [] public
var names: str = "" public
var total: int = 0 public
play {
  set seen[players[0]] += [3, 4, 3]
  set seen[players[0]] -= [3, 7]
  set names += "ab"
  set names += "c"
  let xs = [1, 2]
  xs += [5]
  xs -= [1]
  set total += len(xs) + len([1, 2, 2, 1] - [2, 1])
}
"""


def test_compound_assignment_adds_and_takes_from_lists_and_texts() -> None:
    """`+=` and `-=` mean `x = x + v` and `x = x - v`: a list gains and loses elements, a text grows."""
    game = rulecraft.load_text(COMPOUND, "c.rules").new_game(players=2, seed=1)
    assert game.state.vars["seen[P1]"] == (4, 3)  # one 3 taken out, the first; 7 was not there
    assert game.state.vars["names"] == "abc"
    assert game.state.vars["total"] == 4  # [2, 5] and [2, 1]


@pytest.mark.parametrize(
    ("statement", "message"),
    [
        ("set seen[players[0]] += 3", "the value added to seen must be list of int, not int"),
        ('set seen[players[0]] -= ["x"]', "the value taken from seen must be list of int, not list of str"),
        ('set names -= "a"', "variable names used with -= must be int, not str"),
    ],
)
def test_compound_assignment_checks_its_value(statement: str, message: str) -> None:
    """A list takes a list of its elements; a text takes `+=` only."""
    source = COMPOUND.split("play {")[0] + "play {\n  " + statement + "\n}\n"
    with pytest.raises(RulebookError) as caught:
        rulecraft.load_text(source, "c.rules")
    assert message in str(caught.value)


def test_a_view_and_a_hidden_arrangement_count_one_card_in_the_singular() -> None:
    """A view says `1 card` (and `2 cards`, `0 cards`), as the trace does; so does a hidden `arrange` line."""
    rb = load("""
setup { create 1 Chip { colour: red, n: 1 } in pile  create 2 Chip { colour: blue, n: 2 } in bag
        create 1 Chip { colour: green, n: 3 } in hand[players[1]] }
play { let p = players[0]  let c = choose one from [1, 2] by p prompt "Go" }
""")
    game = rb.new_game(players=2, seed=1)
    text = view_text(game, Player(0))
    assert "  pile: 1 card, top: red 1" in text and "  bag: 2 cards (hidden)" in text
    assert "  hand[P2]: 1 card (hidden)" in text
    game.arrange("hand[P2]", ["blue 2"], source="bag", ask=False)
    assert trace_lines(game, game.events[-1:], viewer=Player(0)) == ["arrange 1 card -> hand[P2]"]


MOVES_TOLD = """
const P1 = players[0]
var fired: int = 0 public
fn held() = len(hand[P1])
rule emptied when len(hand[P1]) == 0 and fired == 0 { set fired = 1 }
rule filled when len(pile) > 1 and fired == 1 { set fired = 2 }
setup { create 2 Chip { colour: red, n: 1 } in hand[P1]  create 1 Chip { colour: blue, n: 2 } in row }
play {
  say "{held()} {fired}"
  move first(hand[P1]) to pile
  say "{held()} {fired}"
  move first(hand[P1]) to pile
  say "{held()} {fired}"
  move pile + row to hand[P1]
  say "{held()} {fired} {len(pile)}"
}
"""


def test_a_move_forgets_and_tells_the_rules_of_the_zone_it_leaves_as_of_the_one_it_reaches() -> None:
    """A move forgets what was derived from the zone its cards leave and from the zone they reach, and
    the rules that read either look again: from one zone (`CodeCache.move_plan`, made once for the pair
    of zones), and from several."""
    rb = load(MOVES_TOLD)
    game = rb.new_game(players=1, trace=True)
    said = [line.text for line in game.events if line.verb == "say"]
    # after the second move the hand is empty (a rule reading the zone left fires) and the pile holds two
    # (then a rule reading the zone reached); the last move takes cards from two zones at once
    assert said == ["2 0", "1 0", "0 2", "3 2 0"]
    assert [line.text for line in game.events if line.verb == "rule"] == ["emptied", "filled"]


def test_identical_cards_in_two_zones_are_an_option_each_named_by_its_zone() -> None:
    """Values of one label are one option when they lie in one zone; cards of one label in two zones
    are an option per zone, each naming its zone, while a label in one place keeps its plain text."""
    rb = load("""
const P1 = players[0]
setup {
  create 2 Chip { colour: red, n: 1 } in row
  create 1 Chip { colour: red, n: 1 } in hand[P1]
  create 1 Chip { colour: blue, n: 2 } in hand[P1]
}
play {
  let c = choose one from row + hand[P1] by P1 prompt "Take"
  let k = choose one from [1, 2, 1, 3] by P1 prompt "How many"
}
""")
    game = rb.new_game(players=1)
    decision = game.current_decision()
    assert decision is not None
    assert decision.labels == ["red 1 in row", "red 1 in hand[P1]", "blue 2"]
    game.apply("red 1 in hand[P1]")
    decision = game.current_decision()
    assert decision is not None
    assert decision.labels == ["1", "2", "3"]
