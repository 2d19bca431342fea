"""examples/benchmarks/promises.py: what the budget of work, the depth of calls and the cards offered by their
places cost a game, each taken out of the same games (issue 40's ceiling for Guildhall). These tests keep the
script from rotting and hold what its figures rest on: it still finds the lines the generator writes for each
promise, and taking them out leaves the games as they were (so a difference of counts is the promise's cost)."""

from __future__ import annotations

import re
from typing import Any

from tests.scripts import BENCHMARKS, load_script

promises = load_script(BENCHMARKS / "promises.py", "benchmark_promises")

CHARGED = """def f1(g, a0):
    g.fn_depth += 1
    try:
        t2 = g.fn_depth >= _FN_DEPTH_BUDGET
        g.work_left -= len(a0)
        if g.work_left < 0:
            g.charge(0, _N[3])
        g.work_left -= k7  # budget: each call, remembered or not
        if g.work_left < 0:
            g.charge(0, _N[4])
    finally:
        g.fn_depth -= 1"""


def test_each_promise_s_lines_are_rewritten_and_keep_their_numbers() -> None:
    budget, n = promises.rewrite(CHARGED, frozenset({"budget"}))
    assert n == 4 and "work_left" not in budget and "if False:" in budget
    depth, n = promises.rewrite(CHARGED, frozenset({"depth"}))
    assert n == 3 and "fn_depth" not in depth and "t2 = False" in depth
    both, n = promises.rewrite(CHARGED, frozenset({"budget", "depth"}))
    assert n == 7 and both.count("\n") == CHARGED.count("\n")  # (the line table still reads the module)
    compile(both, "<rewritten>", "exec")  # (each block left with a statement)
    calls, n = promises.rewrite(CHARGED, frozenset({"calls"}))  # (a call's charge only: the query's stays)
    assert n == 2 and "g.work_left -= len(a0)" in calls and "k7" not in calls
    assert calls.count("if g.work_left < 0:") == 1


def test_the_games_are_the_same_without_each_promise(capsys: Any) -> None:
    """Guildhall's seeded games, each promise taken out in a process of its own: the same answers, steps,
    winners and states, and each patch did something (lines rewritten, cards offered by their labels)."""
    assert promises.main(["guildhall", "--check", "--games", "2"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 4 and all("the same games" in line for line in out)
    done = [tuple(map(int, re.findall(r"\((\d+) lines .*, (\d+) choices", line)[0])) for line in out]
    (budget_lines, _), (depth_lines, _), (hidden_lines, offers), _ = done
    assert budget_lines > 0 and depth_lines > 0 and hidden_lines == 0 and offers > 0


def test_a_small_game_s_code_has_the_lines_taken_out_too() -> None:
    """The generator writes the charges and the depth counts in the form the script removes in every
    rulebook's code, not only Guildhall's (`played` refuses a run that rewrote no line)."""
    kuhn = str(BENCHMARKS.parent / "games" / "kuhn_poker.rules")
    done, games = promises.played(kuhn, 2, 3, frozenset({"budget", "depth"}))
    assert done["lines"] > 0 and done["offers"] == 0
    assert games == promises.played(kuhn, 2, 3, frozenset())[1]
