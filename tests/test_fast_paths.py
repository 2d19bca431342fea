"""The runtime's fast paths, which must change nothing but speed.

- Blocks run inline: an `if`, a `for` and a procedure call do their work at once, and what has to
  wait becomes frames only then (compile/blocks.py, runtime/codecache.py `Body`). The tests compare the inline
  run with the machine that makes a frame for every block (which it does while a sink hears every
  frame pushed, as rule coverage does).
- A function's remembered values outlive the changes it does not read (compile/generate.py, `MemoLayout`),
  and a function of a player's keys the changes at the other players' keys.
- A constant that reads no state is computed once for every game of as many players.
- A number or a seat as the one key of a zone or variable names its state key from a table made once.
- The views held while a `secret` run asks others are made when asked for, from a copy of the game.
- A change that no state-based rule reads checks no rule.
- A game played without keeping each step whole (`atomic=False`) is the same game.
- A clone at a decision shares its game's frames, each copied by the first of the two games to touch it
  (runtime/machine.py `Sharing`).
- A question asked between decisions (`heuristic`, `score`) is the function's generated call, which reads the
  memo first (`Game.ask_fn`), not its body run afresh (`call_fn`).
"""

from __future__ import annotations

from typing import Any

import pytest
import rulecraft
from rulecraft.agents import GreedyAgent, RandomAgent, play
from rulecraft.check.program import reads_of, reads_of_declarations
from rulecraft.compile.memo import readers_for
from rulecraft.errors import NO_SPAN, RulebookError
from rulecraft.language.values import CardRef
from rulecraft.runtime import store
from rulecraft.runtime.basics import WORK_BUDGET
from rulecraft.runtime.codecache import INLINE_DEPTH
from rulecraft.runtime.context import Frame
from rulecraft.runtime.decisions import Decisions
from rulecraft.runtime.game import Game
from rulecraft.runtime.observe import Observer
from rulecraft.runtime.views import Information

CARDS = """game T players 1..2
enum Colour { red, blue, green }
card Chip { colour: Colour, n: int } label "{colour} {n}"
zone row: Chip public
zone hand[Player]: Chip public
zone pile: Chip public
var log: list of int = [] public
var total: int = 0 public
"""


class EveryFrame(Observer):
    """Hears every frame pushed: the game then makes a frame for every block, as before inlining."""

    def on_push(self, game: Game, frame: Any) -> None:
        pass


def load(body: str) -> rulecraft.Rulebook:
    return rulecraft.load_text(CARDS + body, "t.rules")


def both(rb: rulecraft.Rulebook, players: int = 1, seed: int = 0) -> tuple[Game, Game]:
    """The same game inline and with a frame per block."""
    return Game(rb, players, seed), Game(rb, players, seed, observers=[EveryFrame()])


def trace(game: Game) -> list[str]:
    return [f"{e.verb} {e.text}" for e in game.events]


def test_a_decision_inside_a_loop_inside_a_call_inside_an_if_resumes_where_it_was() -> None:
    """The blocks under way when a decision is asked become frames in order: the loop goes on with
    its next item after the answer, then the call's last statement, then the statements after the `if`."""
    rb = load("""
proc each(xs: list of int) {
  for x in xs {
    set log = log + [x]
    if x == 2 { choose by players[0] { option "a" { set total = total + 10 } option "b" { } } }
    set total = total + x
  }
  say "done with the list"
}
play {
  if true { each([1, 2, 3]) say "after the call" }
  say "after the if"
}
""")
    for game in both(rb):
        assert game.current_decision() is not None
        assert game.state.vars["log"] == (1, 2)
        game.apply("a")
        assert game.over
        assert game.state.vars["log"] == (1, 2, 3)
        assert game.state.vars["total"] == 16
        says = [t for t in trace(game) if t.startswith("say")]
        assert says == ["say done with the list", "say after the call", "say after the if"]


def test_a_game_paused_inside_inline_work_clones_and_both_copies_go_on_alike() -> None:
    """Paused at a decision asked from deep inside inline work, the game is plain frames: a clone
    answered differently goes its own way, and the original is untouched."""
    rb = load("""
proc pick(n: int) {
  for i in 1..n { if i == 2 { choose by players[0] { option "low" { set total = total + 1 } option "high" { set total = total + 100 } } } }
  set total = total * 2
}
play { pick(3) pick(3) }
""")
    game = rb.new_game(players=1)
    copy = game.clone()
    game.apply("low")
    copy.apply("high")
    game.apply("low")
    copy.apply("low")
    assert (game.state.vars["total"], copy.state.vars["total"]) == (6, 402)


SHARED_STACK = """
proc pick(n: int) {
  for i in 1..n { if i == 2 { attempt { choose by players[0] { option "a" { } option "b" { } } } } }
}
play { pick(3) pick(3) }
"""


def _same_frame(old: Any, new: Any, stand_ins: dict[int, dict[str, Any]]) -> bool:
    """Whether `new` is a copy of `old`: of its kind, with the same slots, its envs (a dict, alone or in a
    tuple) other objects with the contents of `old`'s, or of the game's copies that stand in for them."""

    def alike(a: Any, b: Any) -> bool:
        if isinstance(a, dict):
            return b is not a and b == stand_ins.get(id(a), a)
        if isinstance(a, tuple) and isinstance(b, tuple) and len(a) == len(b):
            return all(alike(x, y) for x, y in zip(a, b, strict=True))
        return bool(a == b)

    slots = [slot for cls in type(old).__mro__ for slot in getattr(cls, "__slots__", ())]
    return new is not old and type(new) is type(old) and all(alike(getattr(old, k), getattr(new, k)) for k in slots)


def test_a_clone_at_a_decision_shares_the_frames_until_a_game_touches_one() -> None:
    """A clone made at a decision holds its game's very frames; the game answering copies the frames it
    steps (its envs with them, once for the frames that share one) and leaves the shared ones as they were."""
    rb = load(SHARED_STACK)
    game = rb.new_game(players=1)
    copy = game.clone()
    assert all(new is old for old, new in zip(game.frames, copy.frames, strict=True))
    before = [(f, f.env, dict(f.env)) for f in copy.frames]
    game.apply("a")
    assert [(f, f.env, dict(f.env)) for f in copy.frames] == before  # (nothing the clone holds changed)
    assert any(f not in copy.frames for f in game.frames)
    copy.apply("b")
    game.apply("b")
    copy.apply("a")
    assert game.over and copy.over


def test_a_clone_of_a_game_that_touched_shared_frames_copies_every_frame_with_one_copy_of_each_env() -> None:
    """A game that copied some of the frames it shares (its copies of their envs then stand in for envs other
    frames still hold) is cloned whole: the clone's stack is the game's frame by frame (same kinds, same slot
    values, each env the contents of the game's copy where it has one), and frames that share their local
    names in the game, the shared ones and the game's copies alike, share one copy of them."""
    rb = load(SHARED_STACK)
    game = rb.new_game(players=1)
    game.clone()
    game.apply("a")  # (the game touched some of the frames it shares: its copies stand in for their envs)
    assert game.sharing is not None and game.sharing.envs
    copy = game.clone()
    stand_ins = game.sharing.envs
    assert all(_same_frame(old, new, stand_ins) for old, new in zip(game.frames, copy.frames, strict=True))
    shared = {id(stand_ins.get(id(f.env), f.env)) for f in game.frames}
    assert len({id(f.env) for f in copy.frames}) == len(shared) < len(game.frames)
    game.apply("b")
    copy.apply("a")
    assert game.over and copy.over


def test_a_value_returned_and_an_attempt_failed_through_shared_frames_land_in_each_games_own_env() -> None:
    """A `return` unwinds through frames a clone shares to a shared call's frame, and a failure undoes back to
    a shared attempt: each game's value goes into its own copy of the caller's env, each game's `else` runs
    with its own copy of the attempt's env, and the other game's are untouched."""
    rb = load("""
proc asked() {
  let seen = 10
  choose by players[0] { option "one" { return seen + 1 } option "two" { return seen + 2 } }
  return 0
}
play {
  let x = 100
  attempt {
    let got = asked()
    choose by players[0] { option "keep" { } option "fail" { fail "no" } }
    x = x + got
  } else { x = x + 1000 }
  choose by players[0] { option "end" { } option "end too" { } }
  set total = x
}
""")
    game = rb.new_game(players=1)
    first = game.clone()
    second = game.clone()
    game.apply("one")
    first.apply("two")
    third = first.clone()  # (a clone of a clone that touched shared frames: copied whole)
    second.apply("one")
    game.apply("keep")
    first.apply("fail")
    third.apply("keep")
    second.apply("fail")
    for g in (game, first, second, third):
        g.apply("end")
    assert [g.state.vars["total"] for g in (game, first, second, third)] == [111, 1100, 1100, 112]


def test_return_gives_its_value_from_inside_loops_and_branches_inline_and_after_a_decision() -> None:
    """`return` inside an `if` inside a `for` of a procedure called inline gives its value to the `let`
    at once; the same procedure after a decision (its call then a frame) gives it the same way."""
    rb = load("""
proc find(xs: list of int, wanted: int) {
  for x in xs { if x == wanted { return x * 10 } }
  return -1
}
proc asked(xs: list of int) {
  choose by players[0] { option "go" { } option "stay" { } }
  for x in xs { if x > 1 { return x } }
  return 0
}
play {
  let a = find([1, 2, 3], 2)
  let b = find([1, 2, 3], 7)
  let c = asked([1, 5, 9])
  set log = [a, b, c]
}
""")
    for game in both(rb):
        game.apply("go")
        assert game.over
        assert game.state.vars["log"] == (20, -1, 5)


def test_a_state_based_rule_fires_between_two_statements_of_an_inline_block() -> None:
    """A change inside a branch checks the rules at once: the rule's body runs before the branch's
    next statement, as when every block was a frame."""
    rb = load("""
rule full(p in players) when len(hand[p]) >= 2 { say "full hand" move hand[p] to pile }
setup { create 3 Chip { colour: red, n: 1 } in row }
play {
  let p = players[0]
  for c in row { if true { move c to hand[p] say "moved a chip" } }
}
""")
    inline, framed = both(rb)
    assert trace(inline) == trace(framed)
    says = [t for t in trace(inline) if t.startswith("say")]
    assert says == ["say moved a chip", "say full hand", "say moved a chip", "say moved a chip"]


def test_a_draw_is_made_where_the_block_reaches_it_and_a_rule_it_starts_runs_between_its_cards() -> None:
    """A draw from a shuffled zone is made at once, inside the block that reaches it (no frame
    left behind); a rule one of its cards starts runs before the next card is drawn, and the block
    goes on after the draw: the log is the one the engine wrote when every draw was a frame stepped
    on its own (main before this change), and a frame per block changes nothing."""
    rb = load("""
zone deck: Chip hidden shuffled
rule full(p in players) when len(hand[p]) >= 2 { say "full hand" set log = log + [len(deck)] move hand[p] to pile }
setup { for n in 1..6 { create 1 Chip { colour: red, n: n } in deck } }
play {
  for k in 1..2 {
    draw 3 from deck to hand[players[0]]
    set log = log + [len(hand[players[0]])]
  }
  choose by players[0] { option "go" { } option "wait" { } }
}
""")
    inline, framed = both(rb)
    assert trace(inline) == trace(framed) and inline.state == framed.state
    assert inline.state.vars["log"] == (4, 1, 2, 0, 0)  # (the deck after each rule, the hand after each draw)
    assert [type(f).__name__ for f in inline.frames] == [type(f).__name__ for f in framed.frames]


class RuleChecks(Observer):
    """Counts the checks of the state-based rules (each is a frame pushed)."""

    def __init__(self) -> None:
        self.checks = 0

    def on_push(self, game: Game, frame: Any) -> None:
        self.checks += type(frame).__name__ == "RuleFrame"


def test_a_change_that_no_rule_reads_checks_no_rule() -> None:
    """Only a change of what some rule reads checks the rules: five chips drawn into the row (which
    no rule reads) are drawn without a check; the chips moved into a hand are checked one by one,
    and the rule fires as before."""
    rb = load("""
zone deck: Chip hidden shuffled
rule full(p in players) when len(hand[p]) >= 2 { say "full hand" move hand[p] to pile }
setup { create 6 Chip { colour: red, n: 1 } in deck }
play {
  draw 5 from deck to row
  choose by players[0] { option "go" { } option "wait" { } }
  for c in row { move c to hand[players[0]] }
}
""")
    counter = RuleChecks()
    game = Game(rb, 1, 0, observers=[counter])
    assert len(game.state.zones["row"]) == 5
    assert counter.checks == 0
    game.apply("go")
    assert counter.checks == 5
    assert [t for t in trace(game) if t.startswith("say")] == ["say full hand", "say full hand"]


def test_a_failure_inside_inline_work_unwinds_to_its_attempt() -> None:
    """A `fail` deep inside a loop of a procedure called inline undoes the attempt around the call."""
    rb = load("""
proc risky(xs: list of int) { for x in xs { set total = total + x if x == 3 { fail "three" } } }
play { attempt { risky([1, 2, 3, 4]) } else { set log = [total] } }
""")
    for game in both(rb):
        assert game.over
        assert game.state.vars["total"] == 0
        assert game.state.vars["log"] == (0,)


def test_recursion_deeper_than_inline_work_goes_on_in_frames_with_the_same_values() -> None:
    """A recursion deeper than inline work may go (INLINE_DEPTH) goes on in frames, with the same values."""
    depth = INLINE_DEPTH
    rb = load(f"""
proc down(n: int) {{ if n == 0 {{ return 0 }} let rest = down(n - 1) return rest + n }}
play {{ let t = down({depth}) set total = t }}
""")
    for game in both(rb):
        assert game.state.vars["total"] == depth * (depth + 1) // 2


def runaway_messages(rb: rulecraft.Rulebook) -> list[str]:
    """The runaway errors of a game of `rb`, run inline and with a frame per block."""
    messages = []
    for observers in ([], [EveryFrame()]):
        with pytest.raises(RulebookError, match="more than 400 nested steps: runaway recursion") as caught:
            Game(rb, 1, 0, observers=observers)
        messages.append(str(caught.value))
    return messages


@pytest.mark.parametrize(
    "body",
    [
        "proc again(n: int) { if n >= 0 { again(n + 1) } }\nplay { again(0) }",
        "proc again(n: int) { for i in [n] { attempt { again(i + 1) } } }\nplay { again(0) }",
        "proc again(n: int) { let x = n if true { set total = n again(x + 1) } }\nplay { again(0) }",
    ],
)
def test_runaway_recursion_inline_stops_where_the_machine_did(body: str) -> None:
    """Unbounded recursion through inline work stops at the depth budget with the machine's message,
    naming the same statement (the budget counts the frames inline work stands for)."""
    messages = runaway_messages(load(body))
    assert messages[0] == messages[1]
    assert "t.rules:9:" in messages[0]


@pytest.mark.parametrize("rule", ["", 'rule back() when len(pile) > 0 { say "back" move pile to deck }'])
@pytest.mark.parametrize("start", ["again(0)", "if true { again(0) }"])  # (the second starts one frame deeper)
def test_runaway_recursion_through_draws_stops_where_the_machine_did(rule: str, start: str) -> None:
    """A draw made at once makes no frame of its own; the depth budget still counts the one it and a
    rule its card starts would have pushed, so runaway recursion through draws stops at the same
    statement with the same message as when every draw was a frame (a frame per block makes one)."""
    rb = load(f"""
zone deck: Chip hidden shuffled
{rule}
proc again(n: int) {{
  draw 1 from deck to pile
  again(n + 1)
}}
setup {{ create 3 Chip {{ colour: red, n: 1 }} in deck }}
play {{ {start} }}
""")
    messages = runaway_messages(rb)
    assert messages[0] == messages[1]


@pytest.mark.parametrize("name", ["guildhall", "renaissance_man", "valdora"])
def test_whole_games_are_the_same_inline_and_with_a_frame_per_block(name: str) -> None:
    """Seeded random games of the bundled rulebooks give the same trace both ways."""
    rb = rulecraft.load(name)
    players = rb.program.min_players + 1 if rb.program.max_players > rb.program.min_players else 1
    for seed in range(2):
        games = both(rb, players, seed)
        for game in games:
            play(game, [RandomAgent(seed * 31 + i) for i in range(players)])
        inline, framed = games
        assert inline.answers == framed.answers
        assert trace(inline) == trace(framed)


def test_a_held_view_made_when_asked_for_is_the_view_when_it_began_to_hold(monkeypatch: Any) -> None:
    """In Renaissance Man's secret phases, each view held for a player not asked is, when read
    decisions later, exactly the view that player had at the decision where it began to hold."""
    began: dict[int, dict[str, Any]] = {}  # id of a held view -> the view when it began to hold
    hold = Information.hold_views

    def hold_and_note(self: Information, g: Game, decision: Any) -> None:
        before = dict(self.held_views)
        hold(self, g, decision)
        for seat, held in self.held_views.items():
            if before.get(seat) is not held:
                began[id(held)] = self.seen_now(g, held.player)

    monkeypatch.setattr(Information, "hold_views", hold_and_note)
    game = Game(rulecraft.load("renaissance_man"), 2, 3)
    agents = [RandomAgent(5), RandomAgent(6)]
    read = 0
    while not game.over:
        for seat, held in game.information.held_views.items():
            # Read first where the game has moved on under it, so that a view made now would differ.
            if (
                id(held) in began
                and game.pending.player != held.player
                and game.information.seen_now(game, held.player) != began[id(held)]
            ):
                assert game.view(seat) == began.pop(id(held))
                read += 1
        decision = game.pending
        game.apply(agents[decision.player.index if decision.player else 0].choose(game, decision))
    assert read >= 5  # (9 in this game)


MEMO = """
zone deck: Chip public
fn reds(z: int) = len([c for c in row if c.colour == red]) + z
fn passed_in(cs: list of Chip) = len(cs where it.n > 0)
setup { create 2 Chip { colour: red, n: 1 } in row  create 1 Chip { colour: red, n: 2 } in deck }
play {
  set total = reds(0)
  choose by players[0] { option "add" { set total = total + 1 } option "move" { move first(deck) to row } }
  set total = reds(0) + total
  choose by players[0] { option "paint" { set first(row).colour = blue } option "keep" { } }
  set total = reds(0) * 100 + total
}
"""


def test_a_key_read_from_the_table_of_keys_is_the_key_spelled_anew() -> None:
    """A number or a seat as a variable's one key names the same state key inside the table of key texts
    made once (numbers 0 .. 63, the seats of the rulebook) and outside it (a negative number, 64 and on)."""
    rb = load("""
var at[int]: int = 0 public
var mine[Player]: int = 0 public
fn read(ks: list of int) = [at[k] for k in ks]
play {
  for k in [-1, 0, 63, 64, 1000] { set at[k] = k + 2 }
  for p in players { set mine[p] = seat(p) + 10 }
  set log = read([-1, 0, 63, 64, 1000, 5]) + [mine[p] for p in players]
}
""")
    game = rb.new_game(players=2, seed=0)
    assert game.state.vars["log"] == (1, 2, 65, 66, 1002, 0, 11, 12)
    assert {k: v for k, v in game.state.vars.items() if k.startswith(("at[", "mine["))} == {
        "at[-1]": 1,
        "at[0]": 2,
        "at[63]": 65,
        "at[64]": 66,
        "at[1000]": 1002,
        "mine[P1]": 11,
        "mine[P2]": 12,
    }


def test_a_short_flat_list_or_record_is_labelled_as_the_piece_by_piece_writer_labels_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Lists and records of at most FLAT plain elements are written at once (`flat_label`), as the
    writer that goes piece by piece within the label budget writes them; nested ones by that writer."""
    from rulecraft.language import values
    from rulecraft.language.values import Player, Record
    from rulecraft.runtime import evaluate

    rb = load(
        'setup { create 2 Chip { colour: red, n: 1 } in row }\nplay { choose by players[0] { option "a" { } option "b" { } } }'
    )
    game = rb.new_game(players=2)
    cards = tuple(CardRef(i) for i in game.state.zones["row"])
    values = [
        (),
        (1, -2, "a b", True, False, None),
        cards,
        (Player(0), Player(1)),
        Record({}),
        Record({"level": 3, "who": Player(1), "card": cards[0], "gone": None}),
        (1, (2, 3), Record({"x": (4,)})),
        Record({"xs": (1, 2), "r": Record({"y": 5})}),
        tuple(range(values.FLAT + 1)),
    ]
    at_once = [game.label(v) for v in values]
    monkeypatch.setattr(evaluate, "flat_label", lambda value, label: None)
    assert at_once == [game.label(v) for v in values]
    assert at_once[1] == "[1, -2, a b, true, false, none]"
    assert at_once[5] == "{level: 3, who: P2, card: red 1, gone: none}"


def test_a_menus_options_are_made_once_and_its_conditions_asked_at_every_ask() -> None:
    """A menu's options are made once for all its asks (never changed), while each `when` is asked
    anew: the options offered follow the state, in the menu's order."""
    rb = load("""
play {
  repeat 3 {
    choose by players[0] {
      option "small" when total < 2 { set total = total + 1 }
      option "any" { set total = total + 1 }
      option "big" when total >= 1 { set total = total + 10 }
    }
  }
}
""")
    game = rb.new_game(players=1)
    first = game.current_decision()
    offered = []
    for answer in ("small", "small", "big"):
        offered.append(game.legal_answers())
        game.apply(answer)
    assert offered == [["small", "any"], ["small", "any", "big"], ["any", "big"]]
    assert game.state.vars["total"] == 12
    again = rb.new_game(players=1)
    assert again.current_decision().options[0] is first.options[0]  # the same option, made once


def test_a_functions_values_outlive_the_changes_it_does_not_read() -> None:
    """A remembered function keeps its values through a change to what it does not read, and forgets
    them at a change to a zone it reads or to any card's field; its value is always what it reads."""
    rb = load(MEMO)
    game = rb.new_game(players=1)
    layout = game.code.memo_layout
    slot = layout.slots["reds"]
    assert slot > 0 and slot in layout.readers["row"] and slot not in layout.readers.get("total", ())
    assert layout.slots["passed_in"] > 0  # a list of cards passed in is a value, not a zone
    assert game.memo[slot]
    game.apply("add")  # `set total`: reds does not read it
    assert game.memo[slot]
    assert game.state.vars["total"] == 2 + 3
    other = rb.new_game(players=1)
    other.apply("move")  # a red chip moved into `row`, which reds reads
    assert other.state.vars["total"] == 2 + 3
    other.apply("paint")  # a field changed (a red chip painted blue): everything is forgotten
    assert other.state.vars["total"] == 100 * 2 + 5
    game.apply("keep")
    assert game.state.vars["total"] == 200 + 5


def test_a_clone_shares_the_functions_values_until_one_of_the_two_changes_what_they_read() -> None:
    """A clone starts with its game's remembered values (the same dicts, not copies); a change in
    either game replaces its own dict, so the other keeps its values and each finds its own."""
    rb = load("""
zone deck: Chip public
fn held() = len([c for c in row])
setup { create 2 Chip { colour: red, n: 1 } in row  create 1 Chip { colour: red, n: 2 } in deck }
play {
  set total = held()
  choose by players[0] { option "move" { move first(deck) to row } option "stay" { } }
  set total = held() * 10 + total
  choose by players[0] { option "again" { } option "move again" { move first(row) to deck } }
  set total = held() * 100 + total
}
""")
    game = rb.new_game(players=1)
    slot = game.code.memo_layout.slots["held"]
    shared = game.memo[slot]
    assert shared == {(): 2}
    clone = game.clone()
    assert clone.memo[slot] is shared
    clone.apply("move")  # the clone's row changed: its value is found anew, in a dict of its own
    assert clone.memo[slot] is not shared and clone.memo[slot] == {(): 3}
    assert game.memo[slot] is shared and shared == {(): 2}
    game.apply("stay")  # the game's row did not change: it finds its value in the dict it shares
    assert game.memo[slot] is shared
    game.clone().apply("move again")  # a second clone's change leaves the game's values as they were
    for g in (game, clone):
        g.apply("again")
    assert (game.state.vars["total"], clone.state.vars["total"]) == (222, 332)


SEATS = """
var bonus[Player]: int = 0 public
fn reds(p: Player) = len(hand[p] where it.colour == red) + bonus[p]
fn through(p: Player) = reds(p) * 10
fn everyone(p: Player) = sum([len(hand[q]) for q in players]) + len(hand[p])
fn shadowed(p: Player) = sum([len(hand[p]) for p in players])
fn with_pile(p: Player) = len(hand[p]) + len(pile)
setup { create 3 Chip { colour: red, n: 1 } in pile }
play {
  set log = [reds(players[0]), reds(players[1]), through(players[1]), everyone(players[1]), with_pile(players[1]), shadowed(players[1])]
  choose by players[0] {
    option "mine" { move first(pile) to hand[players[0]] }
    option "bonus" { set bonus[players[0]] = 5 }
    option "theirs" { move first(pile) to hand[players[1]] }
  }
  set log = log + [reds(players[0]), reds(players[1]), through(players[1]), everyone(players[1]), with_pile(players[1]), shadowed(players[1])]
  choose by players[0] { option "again" { move first(pile) to hand[players[1]] } option "stop" { } }
  set log = log + [reds(players[0]), reds(players[1]), through(players[1]), everyone(players[1]), with_pile(players[1]), shadowed(players[1])]
}
"""


def test_a_function_of_a_player_keeps_its_values_for_the_others_when_one_players_zone_changes() -> None:
    """A function that reads a zone or variable only at its player's keys (itself or through a
    function it passes the player to) keeps its values for the other players through a change at
    one player's key; a read at another key, a comprehension's own `p`, or a zone read whole
    makes every change to that zone forget all its values."""
    rb = load(SEATS)
    game = rb.new_game(players=2)
    layout = game.code.memo_layout
    assert layout.seat_params == {"reds": 0, "through": 0, "with_pile": 0}
    assert set(layout.seat_readers) == {"hand", "bonus"}
    assert layout.slots["reds"] in layout.seat_readers["hand"]
    assert layout.slots["everyone"] in layout.readers["hand"]  # it reads every player's hand: one dict
    assert layout.slots["shadowed"] in layout.readers["hand"]  # its `p` is the comprehension's
    assert layout.slots["with_pile"] + 1 in layout.readers["pile"]  # a read of a whole zone: every seat's dict
    # In a solo game every change is the one player's: its dicts are emptied as any function's.
    solo_readers, solo_seat_readers = readers_for(layout, 1)
    assert layout.slots["reds"] in solo_readers["hand"] and not solo_seat_readers
    assert layout.slots["reds"] + 1 not in solo_readers["hand"]  # (a second seat never holds a value)
    seat = {n: layout.slots[n] + 1 for n in ("reds", "through", "with_pile")}  # the second player's dicts
    seat["everyone"] = layout.slots["everyone"]
    before = {name: game.memo[i] for name, i in seat.items()}
    assert all(before.values())
    game.apply("mine")  # the first player's hand changes: the second player's values are kept
    assert game.memo[seat["reds"]] is before["reds"] and game.memo[seat["through"]] is before["through"]
    # (forgotten, then computed again into a new dict)
    assert game.memo[seat["everyone"]] is not before["everyone"]
    assert game.memo[seat["with_pile"]] is not before["with_pile"]
    theirs = rb.new_game(players=2)
    theirs.apply("theirs")
    bonus = rb.new_game(players=2)
    bonus.apply("bonus")
    for g in (game, theirs, bonus):
        g.apply("again")
    assert game.state.vars["log"] == (0, 0, 0, 0, 3, 0, 1, 0, 0, 1, 2, 1, 1, 1, 10, 3, 2, 2)
    assert theirs.state.vars["log"] == (0, 0, 0, 0, 3, 0, 0, 1, 10, 2, 3, 1, 0, 2, 20, 4, 3, 2)
    assert bonus.state.vars["log"] == (0, 0, 0, 0, 3, 0, 5, 0, 0, 0, 3, 0, 5, 1, 10, 2, 3, 1)


def test_a_functions_values_are_kept_by_all_its_arguments_in_a_dict_of_its_own_or_by_seat() -> None:
    """In a dict of its own a function's values are keyed by its arguments alone (one alone as itself),
    in a seat's dict by the arguments but the player's, and in the shared dict under the function's
    name: no two calls that differ in a function or an argument find each other's value, whatever the
    dict, a player or none (which is no seat's: its values go to the shared dict)."""
    rb = load("""
fn many(p: Player, x: int) = if p == none then x * 100 else len(hand[p] where it.n >= x) * 10 + x
fn other(p: Player, x: int) = if p == none then x * 1000 else len(hand[p] where it.n < x) * 10 + x
fn pair(p: Player, x: int, y: int) = many(p, x) * 2 + other(p, y)
fn big(x: int) = len(row where it.n >= x)
fn both(x: int, y: int) = len(row where it.n >= x) * 10 + y
setup {
  create 2 Chip { colour: red, n: 1 } in hand[players[0]]
  create 1 Chip { colour: red, n: 2 } in hand[players[1]]
  create 1 Chip { colour: red, n: 2 } in row
}
play {
  set log = [many(players[0], 1), many(players[1], 1), many(players[0], 2), many(none, 1), other(none, 1),
    other(players[1], 3), many(none, 1), other(none, 1), pair(players[0], 2, 3), pair(players[0], 3, 2),
    pair(none, 1, 2), many(players[0], 1), big(1), big(3), big(1), other(none, 2), many(none, 2), both(1, 1),
    both(1, 2), both(3, 1), both(1, 1)] + [many(q, 1) for q in players] + [[many(q, x) for x in [1, 2]] for q in players]
}
""")
    game = rb.new_game(players=2)
    layout = game.code.memo_layout
    assert layout.seat_params == {"many": 0, "other": 0, "pair": 0} and layout.slots["big"] > 0
    assert layout.slots["both"] > 0
    log = (
        21,
        11,
        2,
        100,
        1000,
        13,
        100,
        1000,
        27,
        28,
        2200,
        21,
        1,
        0,
        1,
        2000,
        200,
        11,
        12,
        1,
        11,
        21,
        11,
        (21, 2),
        (11, 12),
    )
    assert game.state.vars["log"] == log


def test_a_rules_condition_is_kept_for_the_players_whose_keys_did_not_change() -> None:
    """The condition of a rule over the players that reads their own keys is kept by player, like
    a function's value: a change to one player's hand checks the rule for every player, and the
    other player's condition is found, not computed again; each fires when its own condition holds."""
    rb = load("""
rule pairs(p in players) when len(hand[p] where it.colour == red) >= 2 {
  set log = log + [seat(p)]
  move hand[p] to pile
}
setup { create 4 Chip { colour: red, n: 1 } in row }
play {
  for i in 1..4 {
    choose by players[0] {
      option "mine" { move first(row) to hand[players[0]] }
      option "theirs" { move first(row) to hand[players[1]] }
    }
  }
}
""")
    game = rb.new_game(players=2)
    layout = game.code.memo_layout
    first = layout.slots["rule pairs"]
    assert layout.seat_readers["hand"] == (first,)
    game.apply("mine")
    theirs = game.memo[first + 1]
    assert theirs  # checked for the second player too, and kept
    game.apply("mine")  # the first player's pair fires; the second player's condition is found
    assert game.memo[first + 1] is theirs
    assert game.state.vars["log"] == (1,)
    game.apply("theirs")
    game.apply("theirs")
    assert game.state.vars["log"] == (1, 2)
    assert len(game.state.zones["pile"]) == 4


def test_the_labels_of_a_zone_drawn_from_are_kept_until_it_or_a_card_changes() -> None:
    """A draw labels the cards of its zone once and keeps the labels, in step with the cards drawn;
    a card of the zone given a new label (a field set) is drawn, and recorded, under its new label."""
    rb = load("""
zone bag: Chip hidden shuffled
setup {
  create 2 Chip { colour: red, n: 1 } in bag
  create 1 Chip { colour: green, n: 2 } in bag
  create 1 Chip { colour: blue, n: 3 } in bag
}
play {
  draw 1 from bag to hand[players[0]]
  set log = [len(bag)]
  for c in bag { if c.colour == red { set c.n = 7 } }
  draw 3 from bag to hand[players[0]]
}
""")
    for seed in range(6):
        game = rb.new_game(players=1, seed=seed)
        drawn = [label for by, label in game.answers if by == "table"]
        hand = {game.label(CardRef(i)) for i in game.state.zones["hand[P1]"]}
        assert game.state.vars["log"] == (3,) and len(hand) >= 3
        assert set(drawn) <= hand  # each card drawn under the label it has
        assert "red 1" not in drawn[1:]  # (after the first draw, no card of the bag is red 1)
    assert "red 7" in [label for by, label in rb.new_game(players=1, seed=0).answers if by == "table"]


@pytest.mark.parametrize(
    "name",
    ["guildhall", "renaissance_man", "valdora", "examples/games/dominion_first_game.rules", "examples/tutorial.rules"],
)
def test_the_reads_of_every_declaration_at_once_are_what_reads_of_finds_for_each(name: str) -> None:
    """The memo layout reads what each function and constant reads from one walk of each
    (`reads_of_declarations`): the same sets as walking through each one's calls (`reads_of`)."""
    program = rulecraft.load(name).program
    at_once = reads_of_declarations(program)
    assert set(at_once) == {("fn", n) for n in program.fns} | {("const", n) for n in program.consts}
    for (kind, n), reads in at_once.items():
        body = program.fns[n].body if kind == "fn" else program.consts[n].value
        assert reads == reads_of(program, [body]), (kind, n)
    assert any(reads for reads in at_once.values())


def test_a_function_of_a_zone_passed_in_is_forgotten_at_every_change() -> None:
    """A function given a zone itself (a parameter of type `any`) may read any zone: it keeps no
    values of its own past a change."""
    rb = load("fn size(z: any) = len(z where true)\nplay { }")
    layout = rb.new_game(players=1).code.memo_layout
    assert layout.slots.get("size", 0) == 0


def test_a_function_that_only_reads_fields_and_compares_them_is_computed_at_every_call() -> None:
    """A function whose body reads fields and calls only functions like it (no comprehension, query or
    built-in call) keeps no values (looking a value up by its arguments costs more); one that calls a
    function doing work, or itself, keeps them; both give the same values."""
    rb = load("""
fn same_colour(a: Chip, b: Chip) = a.colour == b.colour
fn alike(a: Chip, b: Chip) = same_colour(a, b) and a.n == b.n
fn count_like(a: Chip) = len(row where alike(it, a))
fn like_any(a: Chip) = count_like(a) > 0
fn down(n: int) = if n <= 0 then 0 else down(n - 1) + 1
setup { create 2 Chip { colour: red, n: 1 } in row  create 1 Chip { colour: blue, n: 1 } in row }
play { set log = [count_like(c) for c in row] + [down(3)]  set total = len(row where like_any(it)) }
""")
    game = rb.new_game(players=1)
    assert {
        n for n in ("same_colour", "alike", "count_like", "like_any", "down") if n in game.code.memo_layout.slots
    } == {
        "count_like",
        "like_any",
        "down",
    }
    assert game.state.vars["log"] == (2, 2, 1, 3)
    assert game.state.vars["total"] == 3


def test_a_constant_that_reads_no_state_is_computed_once_for_every_game() -> None:
    """A constant of the rules alone is shared by the games of as many players; one that reads the
    state (lazily, at its first use) is each game's own."""
    rb = load("""
const SIZES = [len([j for j in 1..i]) for i in 1..5]
const START = total
play {
  choose by players[0] { option "one" { set total = 1 } option "two" { set total = 2 } }
  set log = SIZES + [START]
}
""")
    first, second = rb.new_game(players=1), rb.new_game(players=1)
    first.apply("one")
    second.apply("two")
    assert (first.state.vars["log"], second.state.vars["log"]) == ((1, 2, 3, 4, 5, 1), (1, 2, 3, 4, 5, 2))
    assert set(first.code.const_values[1]) == {"SIZES"}
    assert rb.new_game(players=1).consts == {"SIZES": (1, 2, 3, 4, 5)}


def test_a_failed_apply_puts_back_the_zones_an_earlier_attempt_had_changed() -> None:
    """`apply` keeps the state to put back without copying every zone (a zone is copied before it
    first changes): an answer whose step undoes an attempt begun before it, then stops with an
    error, leaves every zone as it was, the attempt's earlier move included."""
    rb = load("""
setup { create 3 Chip { colour: red, n: 1 } in row }
play {
  let p = players[0]
  attempt {
    move first(row) to hand[p]
    choose by p { option "fail" { move first(row) to pile  fail "no" } option "ok" { } }
  } else {
    move first(row) to pile
    move first(hand[p]) to pile
  }
}
""")
    game = rb.new_game(players=1)
    before = rb.converter.unstructure(game.state)
    with pytest.raises(RulebookError, match="no card to move"):
        game.apply("fail")
    assert rb.converter.unstructure(game.state) == before
    game.apply("ok")
    assert game.over and len(game.state.zones["hand[P1]"]) == 1 and len(game.state.zones["row"]) == 2


@pytest.mark.parametrize("name", ["guildhall", "renaissance_man", "valdora"])
def test_a_game_played_without_keeping_each_step_whole_is_the_same_game(name: str) -> None:
    """`play(..., atomic=False)`, as `rulecraft simulate` and `bench` play, keeps nothing to put a
    step back, and gives the same answers, trace and final state as answers applied all or nothing."""
    rb = rulecraft.load(name)
    players = rb.program.min_players + 1 if rb.program.max_players > rb.program.min_players else 1
    games = [Game(rb, players, 3), Game(rb, players, 3)]
    for game, atomic in zip(games, (True, False), strict=True):
        play(game, [RandomAgent(7 + i) for i in range(players)], atomic=atomic)
    whole, loose = games
    assert whole.over and whole.answers == loose.answers
    assert trace(whole) == trace(loose)
    assert rb.converter.unstructure(whole.state) == rb.converter.unstructure(loose.state)


def test_a_failed_answer_in_a_game_played_without_keeping_steps_whole_stops_with_the_same_error() -> None:
    """`atomic=False` changes nothing but what is kept: the error a failing answer stops with is the same."""
    rb = load("""
setup { create 3 Chip { colour: red, n: 1 } in row }
play {
  choose by players[0] { option "fail" { move first(row) to pile  fail "no" } }
}
""")
    messages = []
    for atomic in (True, False):
        with pytest.raises(RulebookError) as failure:
            play(rb.new_game(players=1), [RandomAgent(1)], atomic=atomic)
        messages.append(str(failure.value))
    assert messages[0] == messages[1] and "no" in messages[0]


def test_a_card_with_changed_fields_is_what_attrs_evolve_makes() -> None:
    """`card_with` (the searches' and `set`'s copy of a card) equals `attrs.evolve`'s copy, leaves
    the card as it was, and refuses a field the card type lacks with evolve's own error."""
    import attrs
    from rulecraft.runtime.state import card_with

    game = load("setup { create 1 Chip { colour: blue, n: 4 } in row }\nplay { }").new_game(players=1)
    card = game.state.cards[0]
    assert card_with(card, id=7, n=5) == attrs.evolve(card, id=7, n=5) != card
    assert card_with(card, id=7).n == 4 and card.id == 0
    with pytest.raises(TypeError):
        card_with(card, weight=1)


# A rule whose body asks, and a rule true from the start that no change has checked yet.
ASKING_RULE = """
var trigger: int = 0 public
var counter: int = 0 public
rule asks() when trigger == 1 {
  set trigger = 2
  choose by players[0] { option "bad" { set counter = 5 } option "good" { } }
}
rule zero() when counter == 0 {
  say "zero"
  set counter = 1
}
"""


def test_a_failed_apply_puts_back_what_a_rule_check_under_way_had_seen_change() -> None:
    """A rule check under way keeps the names that changed since it began (`RuleFrame.pending`),
    and `apply` puts them back with the rest when an answer fails: the answer given next is played
    as if the failed one had never been given. (Here `zero`, true from the start but never checked,
    would fire if the failed answer's change of `counter` were still counted as seen.)"""
    rb = load(
        ASKING_RULE + 'play { set trigger = 1  if counter == 5 { fail "the bad answer is refused" }  say "done" }'
    )
    game, twin = rb.new_game(players=1), rb.new_game(players=1)
    with pytest.raises(RulebookError, match="the bad answer is refused"):
        game.apply("bad")
    game.apply("good")
    twin.apply("good")
    assert trace(game) == trace(twin)
    assert "say zero" not in trace(game) and game.over


def test_a_clone_paused_inside_a_rule_goes_on_as_its_game_does() -> None:
    """A clone taken while a rule's body asks shares nothing the rule check keeps with its game:
    the game's answer, which changes `counter`, leaves the clone's check as it was, and the clone
    then plays as a fresh game would (`zero`, never checked, stays unfired)."""
    rb = load(ASKING_RULE + 'play { set trigger = 1  say "done" }')
    game, fresh = rb.new_game(players=1), rb.new_game(players=1)
    twin = game.clone(trace=True)
    game.apply("bad")
    twin.apply("good")
    fresh.apply("good")
    assert trace(twin) == trace(fresh) and "say zero" not in trace(twin)


@pytest.mark.parametrize(
    "path", ["examples/games/kuhn_poker.rules", "examples/games/dominion_first_game.rules", "guildhall", "valdora"]
)
def test_a_draw_made_at_once_is_the_draw_the_table_would_be_asked(path: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Drawing from a shuffled zone with the game's own generator at once (`draw_at_once`: its
    cards' labels all distinct, each one option, or counted by label) draws what asking the table
    for each card draws: the same answers, state and trace (Kuhn poker's three cards are distinct;
    Dominion's decks hold many alike)."""
    rb = rulecraft.load(path)

    def played() -> list[Any]:
        out = []
        for seed in range(4):
            players = rb.program.min_players
            game = rb.new_game(players=players, seed=seed)
            play(game, [RandomAgent(seed * 10 + i) for i in range(players)], atomic=False)
            out.append((game.answers, game.state, [(e.verb, e.text) for e in game.events]))
        return out

    at_once = played()
    monkeypatch.setattr(Decisions, "draw_at_once", lambda *_: False)  # the table asked for each card
    assert played() == at_once


def test_the_label_cache_of_new_cards_stays_within_its_size_and_labels_as_before(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """New cards of plain fields take their label from the rulebook's label cache, which every game of the
    rulebook shares: each `create` bounds it (it grew by every card of every game, without end, in a long
    simulation), and the games draw, record and label as they do with a cache that never fills."""
    body = """
zone bag: Chip hidden shuffled
setup {
  for n in 1..3 { create 1 Chip { colour: red, n: n } in bag }
  create 2 Chip { colour: blue, n: 4 } in bag
}
play {
  draw 3 from bag to hand[players[0]]
}
"""

    def games(rb: rulecraft.Rulebook) -> list[Any]:
        return [
            (g.answers, [g.label(CardRef(i)) for i in range(5)]) for g in (rb.new_game(1, seed) for seed in range(40))
        ]

    roomy = games(load(body))
    monkeypatch.setattr(store, "LABEL_CACHE_SIZE", 12)
    rb = load(body)
    assert games(rb) == roomy
    assert len(rb.label_cache) <= 12  # type: ignore[attr-defined]  # (kept on the rulebook: core.shared_dict)


def test_a_zone_of_one_seat_or_number_is_the_zone_its_keys_name() -> None:
    """Generated code reads a zone of no key, or of one seat or number within its table, from values made
    once for every game (compile/body.py `_zone_ref`); the zones they name are those their keys name, and
    a number past the table (or below it) makes its zone as before."""
    rb = load("""
zone slot[int]: Chip public
setup {
  for n in [0, 1, 63, 64, 70, 0 - 2] { create 1 Chip { colour: red, n: n } in row }
  for c in row { move c to slot[c.n] }
  create 1 Chip { colour: blue, n: 9 } in hand[players[1]]
  move first(hand[players[1]]) to hand[players[0]]
  set log = [len(slot[63]), len(slot[64]), len(slot[0 - 2]), len(hand[players[0]]), len(hand[players[1]])]
}
play { end game winners [] }
""")
    game = rb.new_game(players=2, seed=0)
    zones = {key: len(ids) for key, ids in game.state.zones.items() if ids}
    assert zones == {f"slot[{n}]": 1 for n in (0, 1, 63, 64, 70, -2)} | {"hand[P1]": 1}
    assert game.state.vars["log"] == (1, 1, 1, 1, 0)


@pytest.mark.parametrize("name", ["guildhall", "renaissance_man", "valdora"])
def test_a_shared_frame_stepped_without_a_copy_is_popped_by_its_step_and_changes_nothing_it_holds(name: str) -> None:
    """A game copies a frame it shares before it steps it unless the step only pops it (`Sharing.own_top`):
    along seeded games of greedy agents (each answer tried on clones that share the stack), every shared
    frame stepped as it is is gone from the stack after its step, its slots and the envs it holds as they
    were, and such frames are stepped."""
    from rulecraft.runtime import machine

    def held(frame: Any) -> list[Any]:
        slots = [slot for cls in type(frame).__mro__ for slot in getattr(cls, "__slots__", ())]
        return [dict(v) if isinstance(v, dict) else v for v in (getattr(frame, slot) for slot in slots)]

    seen = 0
    kinds = [c for c in vars(machine).values() if isinstance(c, type) and issubclass(c, Frame) and c is not Frame]
    steps = {cls: cls.__dict__["step"] for cls in kinds}

    def checked(cls: type) -> Any:
        def step(frame: Any, g: Any) -> None:
            nonlocal seen
            place, sharing = len(g.frames) - 1, g.sharing
            if sharing is None or place >= len(sharing.frames) or sharing.frames[place] is not frame:
                steps[cls](frame, g)
                return
            before = held(frame)
            steps[cls](frame, g)
            assert (len(g.frames) <= place or g.frames[place] is not frame) and held(frame) == before
            seen += 1

        return step

    rb = rulecraft.load(name)
    with pytest.MonkeyPatch.context() as patch:
        for cls in steps:
            patch.setattr(cls, "step", checked(cls))
        game = rb.new_game(players=rb.program.min_players, seed=1, trace=False)
        for _ in range(12):
            if game.over:
                break
            decision = game.current_decision()
            assert decision is not None
            chooser = GreedyAgent(7) if decision.player is not None else RandomAgent(7)
            game.apply(chooser.choose(game, decision), atomic=False)
    assert seen > 10


def _asked_afresh(game: Game, name: str, player: Any) -> Any:
    """`name(player)` as `call_fn` computes it, its body run in a copy of the game whose memo is empty."""
    fresh = game.clone()
    fresh.state_changed()  # (nothing remembered: every function it calls computed again)
    fresh.work_left = WORK_BUDGET
    return fresh.call_fn(name, (player,), NO_SPAN)


@pytest.mark.parametrize("name", ["guildhall", "renaissance_man", "valdora"])
def test_a_question_between_decisions_is_the_value_of_the_functions_body(name: str) -> None:
    """`heuristic(p)` and `score(p)`, asked at every decision of a seeded random game, then again (read from the
    memo the first kept), are what the function's body gives run afresh."""
    rb = rulecraft.load(name)
    game = rb.new_game(seed=3)
    agents = [RandomAgent(7 + i) for i in range(len(game.players))]
    asked = 0
    while not game.over and asked < 60:
        for p in game.players:
            for fn in ("heuristic", "score"):
                if fn in rb.program.fns:
                    want = _asked_afresh(game, fn, p)
                    assert game.ask_fn(fn, (p,)) == want and game.ask_fn(fn, (p,)) == want
        decision = game.current_decision()
        assert decision is not None
        game.apply(agents[decision.player.index if decision.player else 0].choose(game, decision))
        asked += 1
    assert asked == 60  # (every bundled game is longer than that)


@pytest.mark.parametrize(
    "heuristic",
    [
        "fn heuristic(p: Player) = heuristic(p) + 1",  # runaway recursion
        "fn heuristic(p: Player) = len([x for x in 1..9999999 if x > 0])",  # a list longer than a rulebook may build
        "fn heuristic(p: Player) = sum([len([y for y in 1..20000 if y > x]) for x in 1..20000])",  # the work spent
    ],
)
def test_a_question_between_decisions_fails_as_the_functions_body_does(heuristic: str) -> None:
    """A `heuristic` that cannot be computed is the same located error through `Game.heuristic` (the generated
    call) as through `call_fn`."""
    rb = load(heuristic + '\nplay { say "once" }\n')
    game, other = rb.new_game(players=1), rb.new_game(players=1)
    with pytest.raises(RulebookError) as asked:
        game.heuristic(game.players[0])
    with pytest.raises(RulebookError) as called:
        other.work_left = WORK_BUDGET
        other.call_fn("heuristic", (other.players[0],), NO_SPAN)
    assert str(asked.value) == str(called.value)
    assert game.fn_depth == 0  # (the call's count of depth undone by its failure: the next question starts at 0)
