"""Bounds of the machine that a rulebook could slip past: a local nested deeper than the state may
hold, a `set` whose check of its value did work the budget did not count, a view of many large
labels. Each ends in its located message, never a traceback; none is timed."""

from __future__ import annotations

from pathlib import Path

import attrs
import pytest
import rulecraft
from rulecraft import cli
from rulecraft.errors import RecordError, RulebookError
from rulecraft.records import Answer, record_of, replay
from rulecraft.runtime import views
from rulecraft.runtime.basics import WORK_BUDGET

DEEP = "a value nested more than 100 deep is more than a game may hold: a runaway computation?"
WORK = (
    f"more than {WORK_BUDGET} units of work without a decision (elements built or read, comparisons, characters, "
    "calls, bindings): a runaway computation?"
)

# ---------------------------------------------------------------------------- locals nested too deep

# The case: a local nested 350 deep, offered by a choice after a first decision.
NESTING = """game Deep players 1..1
play {
  choose by players[0] { option "a" { } option "b" { } }
  let v = 0
  repeat 350 { v = [v] }
  let c = choose one from [v, [v]] by players[0]
}
"""


def test_a_local_nested_too_deep_is_refused_where_it_is_made(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`rulecraft play` stops at `v = [v]` with the state's depth message, not a RecursionError
    from the choice that offers it (which recursed into it outside the game's handler)."""
    (tmp_path / "deep.rules").write_text(NESTING, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert cli.main(["play", "deep.rules", "--seed", "1", "--agents", "random"]) == 1
    _, err = capsys.readouterr()
    assert err == f"deep.rules:5:20: error: {DEEP}\n      repeat 350 {{ v = [v] }}\n                       ^^^\n"


def test_apply_and_replay_stop_at_the_same_place() -> None:
    """`game.apply` of the answer that leads there, and the replay of a record of it, stop alike."""
    rb = rulecraft.load_text(NESTING, "deep.rules")
    game = rb.new_game(seed=1)
    record = attrs.evolve(record_of(game), answers=[Answer("P1", "a")])
    with pytest.raises(RulebookError) as info:
        game.apply("a")
    assert info.value.messages == [f"deep.rules:5:20: error: {DEEP}"]
    with pytest.raises(RecordError) as replayed:
        replay(record, rb)
    assert str(replayed.value).splitlines()[:2] == [
        "step 1: after P1 answered 'a', the rules fail:",
        f"deep.rules:5:20: error: {DEEP}",
    ]


@pytest.mark.parametrize(
    ("declarations", "body", "message"),
    [
        (  # a procedure's parameter, nested a little more at each call
            "proc p(n: int, x: any) { if n == 0 { let c = choose one from [x, 1] by players[0] } else { p(n - 1, [[x]]) } }",
            "p(60, 0)",
            "deep.rules:2:101",
        ),
        (  # a function's value, nested ten levels at each call, offered by a choice at once
            "fn wrap(n: int, x: any) = if n == 0 then x else wrap(n - 1, [[[[[[[[[[x]]]]]]]]]])",
            "let c = choose one from [wrap(60, 0), 1] by players[0]",
            "deep.rules:4:27",
        ),
        (  # a record holding itself
            "",
            "let r = {a: 0}\n  repeat 200 { r = {a: r} }",
            "deep.rules:5:20",
        ),
    ],
    ids=["procedure-parameter", "choice-of-a-function-s-value", "record"],
)
def test_every_way_into_a_local_or_a_choice_is_bounded(declarations: str, body: str, message: str) -> None:
    rb = rulecraft.load_text(f"game Deep players 1..1\n{declarations}\nplay {{\n  {body}\n}}\n", "deep.rules")
    with pytest.raises(RulebookError) as info:
        rb.new_game(seed=1)
    assert info.value.messages == [f"{message}: error: {DEEP}"]


@pytest.mark.parametrize(
    ("body", "message"),
    [
        # `let v = [v]` in a loop reads the `v` of the pass before (a body's locals are one dict): its
        # type, `list of int` from the outer `v`, proves nothing of the value's depth
        ("let v = 0\n  repeat 350 { let v = [v] }\n  let c = choose one from [v, 1] by players[0]", "deep.rules:7:24"),
        # a name some binder gives an unchecked value (`for`) is not trusted wherever it is read
        ("let x = 0\n  for x in [wrap(60, 0)] { p(x) }", "deep.rules:7:30"),
        ("let x = 0\n  for x in [wrap(60, 0)] { }\n  p(x)", "deep.rules:8:5"),
        ("let v = 0\n  for x in [wrap(60, 0)] { v = x }", "deep.rules:7:32"),
        ("let v = [0]\n  repeat 350 { v = v + [v] }", "deep.rules:7:20"),
        # a function's value, bounded through its body: here as deep as its argument, plus one
        ("let v = 0\n  repeat 350 { v = one(v) }", "deep.rules:7:20"),
    ],
    ids=["let-in-a-loop", "for-variable-passed", "for-variable-after", "for-variable-assigned", "joined", "function"],
)
def test_a_check_is_skipped_only_where_the_text_proves_the_value_shallow(body: str, message: str) -> None:
    """The generated code skips the depth check of a local, a parameter or a `return` only where the
    text proves the value no deeper than a local may hold (compile/depth.py); everywhere else the
    check stays, located where the definition locates it."""
    declarations = (
        "fn wrap(n: int, x: any) = if n == 0 then x else wrap(n - 1, [[[[[[[[[[x]]]]]]]]]])\n"
        "fn one(x: any) = [x]\nproc p(y: any) { }"
    )
    rb = rulecraft.load_text(f"game Deep players 1..1\n{declarations}\nplay {{\n  {body}\n}}\n", "deep.rules")
    with pytest.raises(RulebookError) as info:
        rb.new_game(seed=1)
    assert info.value.messages == [f"{message}: error: {DEEP}"]


def test_a_local_at_the_limit_is_offered_and_viewed() -> None:
    """A local 99 deep, in a list of the options, is offered: the limit refuses only what is deeper."""
    rb = rulecraft.load_text(
        "game Deep players 1..1\nvar s: any = 0 public\n"
        "play {\n  let v = 0\n  repeat 99 { v = [v] }\n  let c = choose one from [v, 1] by players[0]\n  set s = c\n}\n",
        "deep.rules",
    )
    game = rb.new_game(seed=1)
    game.apply("[" * 99 + "0" + "]" * 99)
    assert game.view("P1")["vars"]["s"] == "[" * 99 + "0" + "]" * 99


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
