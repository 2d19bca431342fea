"""Bounds of the machine that a rulebook could slip past: a `set` whose check of its value did work
the budget did not count, a view of many large labels. Each ends in its located message, never a
traceback; none is timed."""

from __future__ import annotations

import pytest
import rulecraft
from rulecraft.errors import RulebookError
from rulecraft.runtime import views
from rulecraft.runtime.machine import WORK_BUDGET

WORK = (
    f"more than {WORK_BUDGET} units of work without a decision (elements built or read, comparisons, characters, "
    "calls, bindings): a runaway computation?"
)

# ---------------------------------------------------------------------------- work a `set` does


def _work(rules: str) -> int:
    """The units of work a one-player game did up to its first decision."""
    game = rulecraft.load_text(rules, "g.rules").new_game(seed=1, trace=False)
    return WORK_BUDGET - game.work_left


def test_a_set_charges_the_elements_of_the_value_it_checks() -> None:
    """`set a = y` looks at every element of y (its depth and size, before the state holds it):
    a list of 500 lists of 500 numbers costs 1 + 500 + 500 x 501 units more than `set a = 0`."""
    rules = (
        "game G players 1..1\nvar a: any = 0 public\n"
        "play {\n  let b = 1..500\n  let y = [b for i in 1..500]\n  set a = %s\n"
        '  choose by players[0] { option "a" { } option "b" { } }\n}\n'
    )
    assert _work(rules % "y") - _work(rules % "0") == 1 + 500 + 500 * 501


def test_setting_a_large_shared_value_again_and_again_runs_out_the_budget_of_work() -> None:
    """`while true { set a = y }` with y of a million elements stopped at the step budget after
    minutes: its walks are charged, so the budget of work stops it, at the `set`."""
    rb = rulecraft.load_text(
        "game G players 1..1\nvar a: any = 0 public\n"
        "play {\n  let b = 1..999\n  let y = [b for i in 1..999]\n  while true { set a = y }\n}\n",
        "g.rules",
    )
    with pytest.raises(RulebookError) as info:
        rb.new_game(trace=False)
    assert info.value.messages == [f"g.rules:6:16: error: {WORK}"]


# ---------------------------------------------------------------------------- the size of a view


def test_a_view_of_many_large_labels_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each label within its own limit, a view of them all is refused past VIEW_BUDGET characters
    (lowered here to a million, to keep the test small: 12 labels of 128 894 characters)."""
    monkeypatch.setattr(views, "VIEW_BUDGET", 1_000_000, raising=False)
    names = [f"v{i}" for i in range(12)]
    rb = rulecraft.load_text(
        "game G players 1..1\n"
        + "".join(f"var {n}: any = 0 public\n" for n in names)
        + "play {\n  let x = 1..20000\n"
        + "".join(f"  set {n} = x\n" for n in names)
        + '  choose by players[0] { option "a" { } option "b" { } }\n}\n',
        "g.rules",
    )
    game = rb.new_game(seed=1, trace=False)
    assert len(game.label(game.state.vars["v0"])) == 128_894
    for who in ("P1", None):
        with pytest.raises(RulebookError) as info:
            game.view(who)
        assert info.value.messages == [
            "g.rules:28:3: error: a view of more than 1000000 characters is more than a game may show: "
            "a runaway computation?"
        ]
    monkeypatch.setattr(views, "VIEW_BUDGET", 12 * 128_894)
    assert len(game.view("P1")["vars"]) == 12  # at the budget, the view is whole
