"""What others see of a choice: nothing by its shape, everything when its options are public."""

from __future__ import annotations

import random

import pytest
import rulecraft
from rulecraft.language.values import Player
from rulecraft.records import record_of
from rulecraft.render import trace_lines
from rulecraft.runtime.game import Game
from rulecraft.tools import soak
from rulecraft.viewer import build

P1, P2 = Player(0), Player(1)

# P1 holds a red chip and a second one; the market shows a red and a blue chip.
TABLE = """game T players 2..2
enum Colour { red, blue }
card Chip { colour: Colour } label "{colour}"
zone hand[Player]: Chip owner
zone market: Chip public
zone discard: Chip hidden
setup {
  create 1 Chip { colour: red } in hand[players[0]]
  create 1 Chip { colour: SECOND } in hand[players[0]]
  create 1 Chip { colour: red } in market
  create 1 Chip { colour: blue } in market
}
"""


def table(play: str, second: str = "blue") -> rulecraft.Game:
    return rulecraft.load_text(TABLE.replace("SECOND", second) + play, "t.rules").new_game(players=2)


def lines(game: rulecraft.Game, viewer: Player | None) -> list[str]:
    return [line for line in trace_lines(game, viewer=viewer) if not line.startswith("create")]


DISCARD = 'play { let c = choose one from hand[players[0]] by players[0] prompt "Discard"  move c to discard }'


def test_a_forced_hidden_discard_looks_to_the_other_player_like_a_free_one() -> None:
    """Two red chips make one option, taken at once; P2 is shown the same lines as for a free pick."""
    free = table(DISCARD, second="blue")
    free.apply("red")
    forced = table(DISCARD, second="red")
    assert forced.over
    assert lines(forced, P2) == lines(free, P2)
    assert lines(forced, P2)[0] == "choose  P1 [Discard]  @ t.rules:13:8"


def test_a_forced_decision_leaves_no_line_for_the_full_trace_nor_for_the_player_who_took_it() -> None:
    """The full trace and P1's own trace are as they were: a decision with one option has no line."""
    forced = table(DISCARD, second="red")
    assert not any(line.startswith("choose") for line in lines(forced, None))
    assert not any(line.startswith("choose") for line in lines(forced, P1))


@pytest.mark.parametrize(
    ("play", "answer", "shown"),
    [
        (
            'play { let c = choose one from market by players[0] prompt "Take"  move c to hand[players[0]] }',
            "blue",
            "choose  P1 blue  [Take]  @ t.rules:13:8",
        ),
        (
            'play { let t = choose one from players by players[0] prompt "Target" }',
            "P2",
            "choose  P1 P2  [Target]  @ t.rules:13:8",
        ),
        (
            'play { choose by players[0] prompt "Action" { option "rest" { } option "trade" { } } }',
            "trade",
            "choose  P1 trade  [Action]  @ t.rules:13:8",
        ),
    ],
)
def test_a_choice_among_public_options_is_shown_to_the_others(play: str, answer: str, shown: str) -> None:
    """Which public card P1 takes, whom P1 targets, which labelled option P1 picks: P2 sees it."""
    game = table(play)
    game.apply(answer)
    assert shown in lines(game, P2)


def test_a_choice_from_ones_own_hand_is_not_shown_to_the_others() -> None:
    """P1's pick from a hand only P1 sees shows P2 only the prompt."""
    game = table(DISCARD)
    game.apply("blue")
    assert lines(game, P2)[0] == "choose  P1 [Discard]  @ t.rules:13:8"
    assert lines(game, P1)[0] == "choose  P1 blue  [Discard]  @ t.rules:13:8"


def test_a_secret_choice_among_public_options_stays_secret() -> None:
    """`secret` hides even a choice of a target player: P2 sees one line that names neither."""
    game = table('play { secret { let t = choose one from players by players[0] prompt "Target" } }')
    game.apply("P2")
    assert lines(game, P2) == ["choose  P1 [a secret choice]  @ t.rules:13:8", "end     winners "]


# P2's hand holds two chips; P1 is told whether one of them is red, by a hidden step or a forced pick.
LEAKS = """game L players 2..2
enum Colour { red, blue }
card Chip { colour: Colour } label "{colour}"
zone deck: Chip hidden shuffled
zone hand[Player]: Chip owner
zone discard: Chip hidden
var mark[Player]: int = 0 owner
setup {
  create 3 Chip { colour: red } in deck  create 3 Chip { colour: blue } in deck
  for p in players { draw 2 from deck to hand[p] }
}
"""


def caught(play: str, games: int = 12) -> bool:
    rb = rulecraft.load_text(LEAKS + play, "l.rules")
    for seed in range(games):
        game = rb.new_game(players=2, seed=seed, trace=False)
        while not game.over:
            if soak.shape_leak(game, random.Random(seed)) is not None:
                return True
            game.apply(0)
    return False


def old_check(play: str, games: int = 12) -> bool:
    """The check of views and decisions alone, at every decision of the same games."""
    rb = rulecraft.load_text(LEAKS + play, "l.rules")
    for seed in range(games):
        game = rb.new_game(players=2, seed=seed, trace=False)
        while not game.over:
            if soak.hidden_leak(game, random.Random(seed)) is not None:
                return True
            game.apply(0)
    return False


BRANCH = """play {
  let p = players[1]
  choose by players[0] prompt "Go" { option "a" { } option "b" { } }
  if len(hand[p] where it.colour == red) > 0 { set mark[p] = 1 }
  let c = choose one from hand[p] by p prompt "Discard"
  move c to discard
}
"""


def test_the_soak_catches_a_hidden_step_in_a_branch_on_a_hidden_card() -> None:
    """P1 sees a hidden `set` line only when P2 holds red: views and decisions alike, the shape not."""
    assert not old_check(BRANCH)
    assert caught(BRANCH)


def test_the_soak_catches_a_forced_choice_that_leaves_no_line(monkeypatch: pytest.MonkeyPatch) -> None:
    """Were a forced discard shown to nobody (as before), two chips of one colour would show by the
    missing line; as it is, the soak finds nothing."""
    play = BRANCH.replace("if len(hand[p] where it.colour == red) > 0 { set mark[p] = 1 }", "")
    assert not caught(play)
    monkeypatch.setattr(Game, "shown_to", lambda self, event, who: not event.forced)
    assert not old_check(play)
    assert caught(play)


def test_a_secret_block_with_a_forced_choice_looks_like_one_with_a_free_choice() -> None:
    """A secret discard of one of two red chips shows P2 the same line as a pick between colours."""
    play = 'play { secret { let c = choose one from hand[players[0]] by players[0] prompt "Hide"  move c to discard } }'
    free = table(play, second="blue")
    free.apply("blue")
    forced = table(play, second="red")
    assert lines(forced, P2) == lines(free, P2)
    assert lines(forced, P2)[0] == "choose  P1 [a secret choice]  @ t.rules:13:8"


def test_a_choice_of_any_number_that_runs_out_looks_like_one_that_stops() -> None:
    """P1 places red chips: with nothing red left the choice ends by itself; P2 sees it end as if
    P1 had said "done"."""
    play = 'play { let rs = choose any from hand[players[0]] where it.colour == red by players[0] prompt "Place"  move rs to discard }'
    out = table(play, second="blue")
    out.apply("red")
    stop = table(play, second="red")
    stop.apply("red")
    stop.apply("done")
    assert out.over and stop.over
    assert lines(out, P2) == lines(stop, P2)
    assert lines(out, P2)[:2] == ["choose  P1 [Place (1)]  @ t.rules:13:8", "choose  P1 [Place (2)]  @ t.rules:13:8"]


def test_a_records_view_as_another_player_shows_a_public_choice_and_hides_a_private_one() -> None:
    """In a record's steps as P2 (`replay --as P2`, the viewer), whom P1 targets is chosen in the
    open; which card of P1's hand P1 discards is not."""
    play = (
        'play { let t = choose one from players by players[0] prompt "Target"'
        '  let c = choose one from hand[players[0]] by players[0] prompt "Discard"  move c to discard }'
    )
    game = table(play)
    game.apply("P2")
    game.apply("blue")
    steps = build(record_of(game), viewer=P2, rulebook=game.rulebook)["steps"]
    decisions = [step["decision"] for step in steps if step["decision"] is not None]
    assert decisions == [
        {"by": "P1", "prompt": "Target", "chosen": "P2"},
        {"by": "P1", "prompt": "Discard"},
    ]


# P1 searches the hidden pile for a red chip, all or nothing: where none lies there, the search
# fails, and the failure is shown to everyone, as at the table, where the searcher says so.
SEARCH = """play {
  for p in players { let c = choose one from hand[p] by p prompt "Discard"  move c to discard }
  attempt {
    let r = choose one from discard where it.colour == red by players[0] prompt "Take a red chip"
    move r to hand[players[0]]
  }
  let d = choose one from hand[players[1]] by players[1] prompt "Discard again"
  move d to discard
}
"""


def test_a_search_that_fails_in_the_open_is_no_leak_of_shape() -> None:
    """Whether the hidden pile holds a red chip shows, in one world, by the failure everyone is shown
    (the rules show it, as a `say` would), in the other by the searcher's hidden pick: the soak
    accepts that, as it accepts two different cards shown in full."""
    rb = rulecraft.load_text(LEAKS + SEARCH, "l.rules")
    shown = set()
    for seed in range(12):  # both worlds occur: a pile with red, one without
        game = rb.new_game(players=2, seed=seed)
        while not game.over:
            game.apply(0)
        shown.add(any(line.startswith("undo") for line in trace_lines(game, viewer=P2)))
    assert shown == {True, False}
    assert not caught(SEARCH)


def test_a_hidden_line_before_a_line_both_worlds_show_is_still_a_leak() -> None:
    """A hidden step on a branch on a hidden card, before a line shown in full in both worlds: the
    full line tells the worlds nothing apart, the hidden one does."""
    play = BRANCH.replace("{ set mark[p] = 1 }", '{ set mark[p] = 1 }\n  say "next"')
    assert caught(play)
