"""Every failure at run time is undone inside an attempt or a tier, whatever caused it.

One table of failing statements, each run three ways: inside an `attempt` (its changes are undone
and its `else` runs), inside an ability's tier (the tier is undone and withdrawn), and outside
both (a located error). A budget is not a failure: it stops the game even inside an attempt.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
import rulecraft
from rulecraft.errors import GameError, RulebookError
from rulecraft.records import record_of
from rulecraft.runtime import game as runtime
from rulecraft.tools import fuzz
from rulecraft.tools.simulate import simulate

HEAD = """game T players 1..2
enum Colour { red, blue }
card Chip { colour: Colour, n: int } label "{colour} {n}"
zone row: Chip public
zone pile: Chip public
zone bag: Chip hidden shuffled
zone hand[Player]: Chip owner
var points[Player]: int = 0 public
var w: any = "x" public
setup { create 2 Chip { colour: red, n: 1 } in row  create 2 Chip { colour: blue, n: 2 } in bag }
"""
# Line 12 (13 inside an attempt or a tier) is the failing statement in every rulebook below; `p` is
# P1 and hand[p] is empty;
# `w` holds a text, which `any` lets past the checker into places that need another kind.

FAILURES = [
    ('fail "no luck"', "12:3: error: 'no luck' failed outside any attempt or ability"),
    ('require len(row) > 5 else "too few"', "12:3: error: 'too few' failed outside any attempt or ability"),
    (
        "let c = choose exactly 3 from hand[p] by p",
        "12:3: error: 'cannot choose 3: only 0 to choose from' failed outside any attempt or ability",
    ),
    (
        "let c = choose one from hand[p] by p",
        "12:3: error: 'cannot choose one: only 0 to choose from' failed outside any attempt or ability",
    ),
    (
        "set w += len(hand[p])",
        "12:3: error: cannot compute x + 0",
    ),
    (
        'choose by p { option "a" when false { } }',
        "12:3: error: 'no option of this choice is possible' failed outside any attempt or ability",
    ),
    ("move top(hand[p]) to row", "12:8: error: 'there is no card to move' failed outside any attempt or ability"),
    ("let v = top(hand[p]).n", "12:11: error: 'no card to read n of' failed outside any attempt or ability"),
    ("set top(hand[p]).n = 2", "12:3: error: 'no card to set n on' failed outside any attempt or ability"),
    ("let v = [1, 2][5]", "12:11: error: 'index 5 is outside a list of 2' failed outside any attempt or ability"),
    (
        "move top(row) to hand[none]",
        "12:20: error: 'there is no zone hand[none]' failed outside any attempt or ability",
    ),
    ("let z = zone_of(top(hand[p]))", "12:11: error: 'zone_of needs a card' failed outside any attempt or ability"),
    ("let v = 1 // len(hand[p])", "12:11: error: division by zero"),
    ("let v = 1 % len(hand[p])", "12:11: error: division by zero"),
    ("let v = abs(w)", "12:11: error: abs(x): not values abs can take"),
    ("let v = key_of(row, 5)", "12:11: error: key_of(row, 5): not values key_of can take"),
    ("let v = w + 1", "12:11: error: cannot compute x + 1"),
    ("set w += 1", "12:3: error: cannot compute x + 1"),
    ("let v = w < 1", "12:11: error: cannot compare x < 1"),
    ("let v = -w", "12:11: error: cannot negate x"),
    ("let v = w..3", "12:11: error: a range needs numbers, not x..3"),
    ("repeat w { }", "12:10: error: a number is needed here, not x"),
    ("if w { }", "12:6: error: a condition must be true or false, not x"),
    ("for c in w { }", "12:12: error: a list is needed here, not x"),
    ("move [w] to row", "12:8: error: only cards move, not x"),
    ("move top(row) to w", "12:20: error: a zone is needed here, not x"),
    ("let v = w.colour", "12:11: error: x has no field 'colour'"),
    ("let v = {a: 1}.b", "12:11: error: the record has no field 'b'"),
    (
        "let v = [1, w] max by it",
        "12:11: error: cannot order by these keys: max by needs keys of one kind "
        "(numbers, or values of one enumeration, ...)",
    ),
    ("let v = next(w)", "12:11: error: next takes a player or an enumeration value"),
    ('say "{w.n}"', "12:9: error: x has no field 'n'"),
    ("let c = choose one from row by w", "12:34: error: a decision is made by a player, not x"),
    ("let v = top(bag)", "12:11: error: bag is shuffled: it has no top; draw from it instead"),
]
IDS = [statement.split(" ")[0] + ": " + message.split("error: ")[1][:40] for statement, message in FAILURES]


def _reason(message: str) -> str:
    """What the undo line of the trace gives as the reason: the message, unquoted."""
    text = message.split("error: ", 1)[1]
    suffix = "' failed outside any attempt or ability"
    return text[1 : -len(suffix)] if text.endswith(suffix) else text


@pytest.mark.parametrize(("statement", "message"), FAILURES, ids=IDS)
def test_a_failure_outside_any_attempt_or_tier_is_a_located_error(statement: str, message: str) -> None:
    """Outside both, the failure stops the game with its place, the line and a caret."""
    rb = rulecraft.load_text(HEAD + "play { let p = players[0]\n  " + statement + "\n}\n", "t.rules")
    with pytest.raises(RulebookError) as info:
        rb.new_game(players=1)
    assert info.value.messages == ["t.rules:" + message]
    rendered = str(info.value).splitlines()
    assert rendered[1].strip() == statement and rendered[2].strip().startswith("^")


@pytest.mark.parametrize(("statement", "message"), FAILURES, ids=IDS)
def test_a_failure_inside_an_attempt_undoes_it_and_runs_its_else(statement: str, message: str) -> None:
    """The attempt's changes are undone, as a `fail` undoes them, and its `else` runs."""
    rb = rulecraft.load_text(
        HEAD
        + "play { let p = players[0]\n  attempt { set points[p] += 5  move top(row) to pile\n  "
        + statement
        + "\n  } else { set points[p] += 1 }\n}\n",
        "t.rules",
    )
    game = rb.new_game(players=1)
    assert game.over
    assert game.state.vars["points[P1]"] == 1
    assert game.view(None)["zones"]["row"] == ["red 1", "red 1"] and game.view(None)["zones"].get("pile", []) == []
    [undo] = [e for e in game.events if e.verb == "undo"]
    assert undo.text == f"attempt fails: {_reason(message)}; nothing it did stands"
    assert (undo.span.line, undo.span.column) == (13, int(message.split(":")[1]))


@pytest.mark.parametrize(("statement", "message"), FAILURES, ids=IDS)
def test_a_failure_inside_a_tier_undoes_the_tier_and_withdraws_it(statement: str, message: str) -> None:
    """The tier is undone (the state is as if it had not started) and offered no more."""
    rb = rulecraft.load_text(
        HEAD
        + 'ability act(p: Player) "Act" {\n  tier 0 "Pass" { say "passes" }  tier 1 "Try" { set points[p] += 5  '
        + "move top(row) to pile\n  "
        + statement
        + " } }\nplay { use act(players[0]) upto 1 }\n",
        "t.rules",
    )
    game = rb.new_game(players=1)
    before = rb.converter.unstructure(game.state)
    assert game.legal_answers() == ["no ability", "tier 0: Pass", "tier 1: Try"]
    game.apply("tier 1: Try")
    assert rb.converter.unstructure(game.state) == before
    assert game.legal_answers() == ["no ability", "tier 0: Pass"]
    undo = game.events[-1]
    assert undo.text == f"act tier 1 fails: {_reason(message)}; nothing it did stands"
    assert (undo.span.line, undo.span.column) == (13, int(message.split(":")[1]))
    assert record_of(game).answers[-1].answer == "tier 1: Try"  # the record keeps the answer: replay needs it


BUDGETS = [
    ('while true { say "again" }', "200000 steps without a decision"),
    ("again()", "more than 400 nested steps: runaway recursion?"),
    ("let v = len(1..200000)", "a list of 200000 elements is more than a rulebook may build"),
    ("create 200000 Chip { colour: red, n: 1 } in row", "200004 cards is more than a game may hold"),
]


@pytest.mark.parametrize(("statement", "message"), BUDGETS, ids=[m for _, m in BUDGETS])
def test_a_budget_is_not_a_failure_and_stops_the_game_even_inside_an_attempt(statement: str, message: str) -> None:
    """A rulebook that runs away is broken: no attempt can undo that, so the game stops, located."""
    rb = rulecraft.load_text(
        HEAD + "proc again() { again() }\nplay { attempt {\n  " + statement + '\n  } else { say "undone" } }\n',
        "t.rules",
    )
    with pytest.raises(RulebookError, match=message) as info:
        rb.new_game(players=1)
    assert info.value.messages[0].startswith("t.rules:")


def test_drawing_from_an_empty_zone_draws_nothing_and_is_no_failure() -> None:
    """`draw` takes what there is (LANGUAGE.md): an empty zone gives nothing, and nothing is undone."""
    rb = rulecraft.load_text(
        HEAD + "play { let p = players[0]  attempt { draw 2 from pile to hand[p]  set points[p] += 5 } }\n", "t.rules"
    )
    game = rb.new_game(players=1)
    assert game.state.vars["points[P1]"] == 5 and not any(e.verb == "undo" for e in game.events)


ATOMIC = (
    HEAD
    + """
play {
  let p = players[0]
  choose by p { option "safe" { set points[p] += 1 } option "broken" { set points[p] += 1  move top(hand[p]) to row } }
  choose by p { option "again" { } option "stop" { } }
}
"""
)


def test_apply_is_all_or_nothing() -> None:
    """After a rule error inside `apply`, the game is exactly as it was: state, answers, trace, decision."""
    game = rulecraft.load_text(ATOMIC, "t.rules").new_game(players=1)
    state, answers, events, decision = (
        game.rulebook.converter.unstructure(game.state),
        list(game.answers),
        list(game.events),
        game.current_decision(),
    )
    with pytest.raises(RulebookError, match="there is no card to move"):
        game.apply("broken")
    assert game.rulebook.converter.unstructure(game.state) == state
    assert (game.answers, game.events, game.current_decision(), game.over) == (answers, events, decision, False)
    game.apply("safe")  # the game goes on as if the broken answer had never been given
    assert game.state.vars["points[P1]"] == 1 and game.legal_answers() == ["again", "stop"]


def test_an_illegal_answer_changes_nothing() -> None:
    """An answer that is not an option is refused before anything happens."""
    game = rulecraft.load_text(ATOMIC, "t.rules").new_game(players=1)
    with pytest.raises(GameError):
        game.apply("neither")
    assert game.legal_answers() == ["safe", "broken"] and game.answers == []


def test_simulate_of_a_card_whose_tier_can_fail_does_not_abort(tmp_path: Path) -> None:
    """A new ability whose tier takes from an empty discard pile is withdrawn there; the run finishes."""
    tutorial = Path(__file__).resolve().parent.parent / "examples" / "tutorial.rules"
    (tmp_path / "tutorial.rules").write_text(tutorial.read_text(encoding="utf-8"), encoding="utf-8")
    (tmp_path / "pickpocket.rules").write_text(
        """include "tutorial.rules"
var seen[Player]: int = 0 public
ability pickpocket(p: Player) "Your stall changed: pick a pocket" {
  tier 0 "Take the top ware of the discard pile into your hand" { move top(discard) to hand[p] }
}
rule pickpocket(p in players) when len(stall[p]) != seen[p] {
  set seen[p] = len(stall[p])
  use pickpocket(p) upto 0
}
""",
        encoding="utf-8",
    )
    stats = simulate(str(tmp_path / "pickpocket.rules"), 10, players=2, agents=["random"], progress=lambda done: None)
    assert len(stats.results) == 10


@pytest.mark.parametrize("seed", range(40))
def test_generated_failures_inside_attempts_and_tiers_are_always_undone(seed: int) -> None:
    """`rulecraft fuzz`'s unwound cases: no failure escapes, and what failed leaves the state as it was."""
    outcome = fuzz.run_case(fuzz.unwound(random.Random(seed)), seed=seed, unwinds=True)
    assert outcome.kind == "loaded", outcome.detail


def test_the_unwound_fuzz_cases_find_a_failure_that_escapes() -> None:
    """A failure outside every attempt is what an unwound case reports as a crash."""
    outcome = fuzz.run_case('game G players 1..1 play { fail "x" }', unwinds=True)
    assert outcome.kind == "crash" and "was not undone" in outcome.detail


@pytest.mark.parametrize("game", ["guildhall", "renaissance_man", "valdora"])
def test_apply_undone_at_any_step_leaves_the_game_to_play_on_as_before(
    game: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An error at any step inside `apply` (injected here) leaves a game that plays on exactly as an
    untouched copy does: the same answers, decisions and state, whatever the step broke off."""
    rb = rulecraft.load(game)
    players = rb.program.min_players if game != "renaissance_man" else 2
    live = rb.new_game(players=players, seed=3, trace=False)
    rng = random.Random(3)
    broken = 0
    original_step = runtime.BlockFrame.step
    for n in range(120):
        if live.over:
            break
        label = rng.choice(live.legal_answers())
        copy = live.clone()
        countdown = [rng.randint(1, 12)]

        def step(frame: runtime.BlockFrame, g: runtime.Game, countdown: list[int] = countdown) -> None:
            countdown[0] -= 1
            if countdown[0] == 0:
                raise RuntimeError("injected")
            original_step(frame, g)

        monkeypatch.setattr(runtime.BlockFrame, "step", step)
        try:
            live.apply(label)
        except RuntimeError:
            broken += 1
            assert live.answers == copy.answers and live.current_decision() == copy.current_decision()
        monkeypatch.setattr(runtime.BlockFrame, "step", original_step)
        if countdown[0] <= 0:
            live.apply(label)
        copy.apply(label)
        assert live.answers == copy.answers, f"answer {n}"
        assert rb.converter.unstructure(live.state) == rb.converter.unstructure(copy.state), f"answer {n}"
        assert live.current_decision() == copy.current_decision()
    assert broken > 20
