"""Scenarios: a partial state by card labels and scripted answers, traced with the rule of every step.

Every file in examples/scenarios/ is run here. A new scenario gets its trace snapshot with
`pytest tests/test_scenarios.py --snapshot-update`; read the `.trace` line by line before keeping it.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from rulecraft.authoring.scenario import run_scenario
from rulecraft.cli import main
from rulecraft.errors import RulebookError

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = sorted((ROOT / "examples" / "scenarios").rglob("*.scenario"))


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_scenario_runs_and_its_expectations_hold(path: Path) -> None:
    """Each scenario sets up, applies its changes, takes every scripted answer and meets every `expect`."""
    text = run_scenario(None, path)
    expects = sum(1 for line in path.read_text(encoding="utf-8").splitlines() if line.startswith("expect "))
    assert text.count(": holds  @ ") == expects


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_scenario_trace(path: Path, trace_snapshot) -> None:  # type: ignore[no-untyped-def]
    """The trace of each scenario, each line with the rulebook (or scenario) line that caused it."""
    assert run_scenario(None, path) == trace_snapshot


def test_a_failed_expectation_is_located_and_shows_the_value(tmp_path: Path) -> None:
    """An `expect` that does not hold is an error at its place, showing the value of its left side."""
    scenario = tmp_path / "s.scenario"
    scenario.write_text("players 2\nset gold[P1] = 4\nexpect gold[P1] == 5\n", encoding="utf-8")
    with pytest.raises(RulebookError) as info:
        run_scenario(str(ROOT / "examples" / "tutorial.rules"), scenario)
    assert info.value.messages == [f"{scenario}:3:8: error: expected gold[P1] == 5, but gold[P1] is 4"]


@pytest.mark.parametrize(
    ("expect", "shown"),
    [
        ("gold[P1] == 5 and gold[P2] == 1", "but gold[P1] is 4 and gold[P2] is 0"),
        ("gold[P1] == 4 and gold[P2] == 1", "but gold[P2] is 0"),
        ("gold[P1] == 5 or gold[P2] > 0", "but gold[P1] is 4 and gold[P2] is 0"),
        ("gold[P1] == gold[P2]", "but gold[P1] is 4 and gold[P2] is 0"),
    ],
)
def test_a_failed_expectation_shows_the_values_of_each_failing_part(tmp_path: Path, expect: str, shown: str) -> None:
    """A failing `expect a and b` (or `a or b`) shows the values that make each failing comparison false."""
    scenario = tmp_path / "s.scenario"
    scenario.write_text(f"players 2\nset gold[P1] = 4\nexpect {expect}\n", encoding="utf-8")
    with pytest.raises(RulebookError) as info:
        run_scenario(str(ROOT / "examples" / "tutorial.rules"), scenario)
    assert info.value.messages == [f"{scenario}:3:8: error: expected {expect}, {shown}"]


COPIES = """game Copies players 1..2
card Chip { n: int, mark: int } label "chip {n}"
zone deck: Chip hidden
zone pile: Chip public
zone hand[Player]: Chip owner
setup {
  create 1 Chip { n: 1, mark: 0 } in pile
  for m in 1..3 { create 1 Chip { n: 1, mark: m } in deck }
  create 1 Chip { n: 2, mark: 9 } in deck
}
play { let c = choose one from [1, 2] by players[0] prompt "Go" }
"""


def _copies(tmp_path: Path, lines: str) -> str:
    (tmp_path / "copies.rules").write_text(COPIES, encoding="utf-8")
    (tmp_path / "s.scenario").write_text("game copies.rules\nplayers 1\n" + lines, encoding="utf-8")
    return run_scenario(None, tmp_path / "s.scenario")


def test_move_from_a_zone_takes_the_top_most_copy_there(tmp_path: Path) -> None:
    """`move "LABEL" from ZONE to ZONE` takes the top-most card of that label in ZONE (not the first
    created, which lies on the pile here); a label named twice takes the two top-most copies."""
    text = _copies(
        tmp_path,
        'move "chip 1" from deck to hand[P1]\n'
        'move ["chip 1", "chip 1"] from deck to pile\n'
        "expect hand[P1][0].mark == 3 and len(deck) == 1\n"
        "expect (pile map it.mark) == [0, 2, 1]\n",
    )
    assert "move    chip 1: deck -> hand[P1]  @ s.scenario:3:1" in text
    assert text.count(": holds  @ ") == 2
    # Without `from`, the card is taken from wherever it is: the first created, on the pile.
    text = _copies(tmp_path, 'move "chip 1" to hand[P1]\nexpect hand[P1][0].mark == 0 and len(pile) == 0\n')
    assert "move    chip 1: pile -> hand[P1]  @ s.scenario:3:1" in text


@pytest.mark.parametrize(
    ("line", "message"),
    [
        (
            'move "chip 2" from pile to hand[P1]',
            "3:6: error: no card is labelled 'chip 2' in pile; a card of that label is in deck",
        ),
        (
            'move ["chip 1", "chip 1"] from pile to deck',
            "3:17: error: no card is labelled 'chip 1' in pile (every one is taken by this line)",
        ),
        ("move 3 from deck to hand[P1]", "3:1: error: a 'move … from' line names cards by their labels"),
        ('move "chip 1" from dek to hand[P1]', "3:20: error: unknown name 'dek' (did you mean 'deck'?)"),
    ],
)
def test_move_from_a_zone_that_lacks_the_card_is_located(tmp_path: Path, line: str, message: str) -> None:
    """A label that is not in the named zone, a count instead of labels, an unknown zone: located errors."""
    with pytest.raises(RulebookError) as info:
        _copies(tmp_path, line + "\n")
    assert info.value.messages[0].startswith(f"{tmp_path / 's.scenario'}:{message}")


def test_the_command_line_runs_a_scenario(capsys: pytest.CaptureFixture[str]) -> None:
    """`rulecraft trace --scenario F` takes the game from the scenario's `game` line."""
    assert main(["trace", "--scenario", str(ROOT / "examples" / "scenarios" / "tutorial_sell.scenario")]) == 0
    assert capsys.readouterr().out.startswith("# rulebook: tutorial (Market)\n# scenario: ")


def _trace(tmp_path: Path, capsys: pytest.CaptureFixture[str], lines: str) -> tuple[int, str, str]:
    """Run a scenario of the tutorial through `rulecraft trace --scenario`: exit code, stdout, stderr."""
    scenario = tmp_path / "s.scenario"
    scenario.write_text("players 2\nseed 1\n" + lines, encoding="utf-8")
    code = main(["trace", str(ROOT / "examples" / "tutorial.rules"), "--scenario", str(scenario)])
    out, err = capsys.readouterr()
    return code, out, err.replace(str(scenario), "s.scenario")


def test_an_expect_between_answers_checks_the_state_at_that_point(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An `expect` before an answer sees the state before that answer: P1's gold is 1 after the
    first turn, though it is 2 at the end; the trace shows the check where it was made."""
    turn = 'answer "Stock a ware", "1 of cups", "tier 0: Gain 1 gold"\n'
    p2 = 'answer "Stock a ware", "5 of swords", "tier 0: Gain 1 gold"\n'
    code, out, _ = _trace(tmp_path, capsys, turn + "expect gold[P1] == 1\n" + p2 + "expect gold[P2] == 1\n")
    assert code == 0
    lines = out.splitlines()
    check = lines.index("expect  gold[P1] == 1: holds  @ s.scenario:4:1")
    assert lines[check - 1].startswith("move    ") and lines[check + 1].startswith("choose  P2 Stock a ware")


def test_a_failing_expect_between_answers_prints_the_trace_up_to_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An `expect` that does not hold between answers stops the scenario there: the trace up to
    it on stdout, with nothing of the answers after it, and the located error on stderr."""
    turn = 'answer "Stock a ware", "1 of cups", "tier 0: Gain 1 gold"\n'
    next_draws = 'next draws from deck: "5 of coins"\n'
    code, out, err = _trace(tmp_path, capsys, next_draws + turn + 'expect gold[P1] == 3\nanswer "Pass"\n')
    assert code == 1
    assert out.splitlines()[-2:] == [
        "set     gold[P1] = 1  @ tutorial.rules:29:5",
        "move    5 of coins: deck -> hand[P1]  @ tutorial.rules:23:3",
    ]
    assert "choose  P2" not in out and "pending" not in out
    assert err.startswith("s.scenario:5:8: error: expected gold[P1] == 3, but gold[P1] is 1\n")


def test_next_draws_take_the_named_cards_in_order_then_the_seed_draws(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`next draws from deck: "A", "B"` makes the next two draws from the deck take A then B (here
    the refills after P1's and P2's turns); the draw after them is the seed's, as without the line."""
    turns = (
        'answer "Stock a ware", "1 of cups", "tier 0: Gain 1 gold"\n'
        'answer "Stock a ware", "5 of swords", "tier 0: Gain 1 gold"\n'
        'answer "Stock a ware", "4 of cups", "no ability"\n'
    )
    _, plain, _ = _trace(tmp_path, capsys, turns)
    code, out, _ = _trace(tmp_path, capsys, 'next draws from deck: "2 of swords", "4 of coins"\n' + turns)
    assert code == 0
    refills = [line for line in out.splitlines() if line.endswith("@ tutorial.rules:23:3")][6:]
    assert refills[:2] == [
        "move    2 of swords: deck -> hand[P1]  @ tutorial.rules:23:3",
        "move    4 of coins: deck -> hand[P2]  @ tutorial.rules:23:3",
    ]
    assert len(refills) == 3 and refills[2] != "move    2 of swords: deck -> hand[P1]  @ tutorial.rules:23:3"
    assert out != plain


@pytest.mark.parametrize(
    ("line", "error"),
    [
        (
            'next draws from deck: "9 of coins"',
            "s.scenario:3:23: error: no card is labelled '9 of coins' (did you mean '5 of coins'?)",
        ),
        (
            'next draws from stall[P1]: "1 of cups"',
            "s.scenario:3:17: error: stall[P1] is not shuffled: its draws are not chance",
        ),
        (
            'next draws from deck "1 of cups"',
            "s.scenario:3:1: error: a 'next' line reads: next draws from ZONE: \"label\", …",
        ),
        (
            "next draws from deck: 3",
            's.scenario:3:1: error: the next draws are labels of cards, in quotes: next draws from ZONE: "label", …',
        ),
        (
            'next draws from deck: "5 of swords"\nanswer "Stock a ware", "1 of cups", "no ability"',
            "s.scenario:3:23: error: the next draw from deck is to be '5 of swords', which is not in deck",
        ),
    ],
    ids=["unknown label", "not shuffled", "no colon", "not a label", "no longer there"],
)
def test_a_wrong_next_draws_line_is_a_located_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], line: str, error: str
) -> None:
    """A `next draws` line names a shuffled zone and cards by label; a card already dealt from it
    when its draw comes (5 of swords went to P2 at setup) is an error at its label."""
    code, _, err = _trace(tmp_path, capsys, line + "\n")
    assert code == 1
    assert err.splitlines()[0] == error


def test_a_scenarios_lines_are_checked_as_the_rulebooks_are(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`expect gold == 0` of a keyed `gold[Player]` once "held" (the name read by itself, without
    its key); `set gold = 7` and `move ... to hand` wrote a variable and a zone the rulebook never
    declared. Now every such line is a located error, all of them at once, before anything runs."""
    code, out, err = _trace(
        tmp_path,
        capsys,
        'set gold[P1] = 5\nexpect gold == 0\nset gold = 7\nmove "1 of cups" to hand\nexpect len(hand) == 0\n',
    )
    assert code == 1 and out == ""
    assert [line for line in err.splitlines() if "error:" in line] == [
        "s.scenario:4:8: error: variable gold takes 1 key(s): gold[Player]",
        "s.scenario:5:1: error: variable gold takes 1 key(s): gold[Player]",
        "s.scenario:6:21: error: zone hand takes 1 key(s): hand[Player]",
        "s.scenario:7:12: error: zone hand takes 1 key(s): hand[Player]",
    ]
    assert "    expect gold == 0\n           ^^^^" in err


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("expect nosuch == 1\n", "s.scenario:1:8: error: unknown name 'nosuch'"),
        ("set gold = 7\n", "s.scenario:1:1: error: variable gold takes 1 key(s): gold[Player]"),
        ('move "1 of cups" to hand\n', "s.scenario:1:21: error: zone hand takes 1 key(s): hand[Player]"),
    ],
)
def test_a_line_on_the_scenarios_first_line_is_located_at_its_own_column(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, shown: str
) -> None:
    """A statement on line 1 was parsed after the opening the others have on the lines before it,
    and its errors pointed 25-odd columns to the right, past the end of the line."""
    scenario = tmp_path / "s.scenario"
    scenario.write_text(text, encoding="utf-8")
    assert main(["trace", str(ROOT / "examples" / "tutorial.rules"), "--scenario", str(scenario)]) == 1
    err = capsys.readouterr().err.replace(str(scenario), "s.scenario")
    assert err.splitlines()[0] == shown
    caret = err.splitlines()[2]
    assert caret.index("^") - 4 == int(shown.split(":")[2]) - 1  # the caret under the column named
