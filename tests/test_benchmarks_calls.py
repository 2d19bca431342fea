"""examples/benchmarks/calls.py: the anchors' calls a game, counted with `sys.setprofile`. These tests
keep the script from rotting and hold what its figures rest on: a seed's count is exact (no timing),
and it counts the games' own calls, not the first pass's imports and code made on first use."""

from __future__ import annotations

import json
import sys
from typing import Any

from tests.scripts import BENCHMARKS, load_script

calls = load_script(BENCHMARKS / "calls.py", "benchmark_calls")


def test_a_seeds_calls_are_counted_exactly() -> None:
    first, games = calls.count_calls("kuhn_poker", "rulecraft", 5)
    again, _ = calls.count_calls("kuhn_poker", "rulecraft", 5)
    assert games == 5 and first == again  # the same seeds, the same calls: a count, not a timing


def test_the_calls_counted_are_the_games_own() -> None:
    first, games = calls.count_calls("kuhn_poker", "rulecraft", 5)
    summary = calls.summary(first, games, 3)
    assert summary["python_calls"] > 0 and summary["c_calls"] > 0
    assert len(summary["most_called"]) == 3
    # The games' own work: the rulebook's generated code and the runtime, not the parser nor the
    # code generator, which ran in the first pass, left out.
    where = {w for w, _ in first}
    assert any(w.startswith("<generated") for w in where) and "game.py" in where
    assert not {"parser.py", "generate.py", "blocks.py", "lark.py"} & where  # (compile/blocks.py: first use)
    more, _ = calls.count_calls("kuhn_poker", "rulecraft", 10)
    assert sum(more.values()) > sum(first.values())


def test_the_command_prints_each_anchor_or_says_why_it_is_skipped(capsys: Any) -> None:
    assert calls.main(["kuhn_poker", "--games", "2", "--top", "2", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)["kuhn_poker"]
    if "skipped" in out:  # no OpenSpiel here: the reason is said
        assert "pip install" in out["skipped"] or "missing" in out["skipped"]
    else:
        assert out["rulecraft"]["games"] == 2 and out["reference"]["python_calls"] > 0
    assert sys.getprofile() is None  # the counting is switched off after


def test_an_unknown_anchor_is_a_usage_error(capsys: Any) -> None:
    try:
        calls.main(["no_such_game"])
    except SystemExit as exc:
        assert exc.code == 2
    else:
        raise AssertionError("an unknown anchor must be refused")
    assert "unknown anchor no_such_game" in capsys.readouterr().err


def test_bytecodes_are_counted_exactly_by_the_function_that_runs_them() -> None:
    first, games = calls.count_bytecodes("kuhn_poker", "rulecraft", 3)
    again, _ = calls.count_bytecodes("kuhn_poker", "rulecraft", 3)
    assert games == 3 and first == again  # a count, not a timing
    summary = calls.bytecode_summary(first, games, 2)
    assert summary["bytecodes"] == sum(first.values()) / 3 and len(summary["most_run"]) == 2
    # every function that runs is counted, the generated code's too, the first pass's code generator not
    assert ("game.py", "apply") in first and any(w.startswith("<generated") for w, _ in first)
    assert not {"generate.py", "parser.py"} & {w for w, _ in first}
    more, _ = calls.count_bytecodes("kuhn_poker", "rulecraft", 6)
    assert sum(more.values()) > sum(first.values())


def test_the_command_prints_bytecodes_or_says_why_it_is_skipped(capsys: Any) -> None:
    assert calls.main(["kuhn_poker", "--games", "2", "--top", "2", "--json", "--bytecodes"]) == 0
    out = json.loads(capsys.readouterr().out)["kuhn_poker"]
    if "skipped" not in out:
        assert out["rulecraft"]["bytecodes"] > 0 and len(out["rulecraft"]["most_run"]) == 2
