"""examples/benchmarks/calls.py: the anchors' calls a game, counted with `sys.setprofile`. These tests
keep the script from rotting and hold what its figures rest on: a seed's count is exact (no timing),
and it counts the games' own calls, not the first pass's imports and code made on first use."""

from __future__ import annotations

import json
import signal
import sys
from typing import Any

import pytest

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


def test_each_line_of_generated_code_is_named_by_what_it_is_for() -> None:
    purpose = calls.purpose_of
    assert purpose("    g.work_left -= len(t4)") == purpose("if g.work_left < 0:") == "budget of work"
    assert purpose("g.fn_depth += 1") == purpose("if d > _INLINE_DEPTH or g.sinks.pushes:") == "depth of calls"
    assert purpose("t5 = g.memo[t7].get(t6, _M)") == purpose("memo[key] = v") == "memo of functions' values"
    # a local read and tested against the memo's marker is a read of a local, not the memo
    assert purpose("t5 = (v4 if v4 is not _M else g.global_value('p', _N[9]))") == "locals, zones and variables read"
    assert purpose("if a0.__class__ is _Player and -1 < a0.index < 4:") == "kind and range tests, fall-backs"
    assert purpose("t22 = t23[v21.id].profession") == "card fields and labels"
    assert purpose("if len(frames) != depth or g.pending is not None or g.state.over:") == "frames and steps"
    assert purpose("for v12 in t11:") == "loops and branches"
    assert purpose("t3 = t4 + t8") == calls.RULES_OWN and purpose("") == calls.ENTRIES


def test_the_generated_code_s_bytecodes_are_counted_exactly_and_summed_by_purpose() -> None:
    lines, every, games = calls.count_generated_lines("kuhn_poker", 3)
    again = calls.count_generated_lines("kuhn_poker", 3)
    assert games == 3 and (lines, every) == again[:2]  # a count, not a timing
    assert all(module.startswith("<generated") for module, _ in lines)
    summary = calls.purpose_summary(lines, every, games, 2)
    by = {purpose: n for purpose, n, _ in summary["purposes"]}
    assert summary["generated"] == sum(lines.values()) / 3 < summary["bytecodes"]
    assert sum(by.values()) == pytest.approx(summary["generated"])  # every line counted under one purpose
    assert by["budget of work"] > 0 and by["depth of calls"] > 0 and by[calls.RULES_OWN] > 0
    assert all(len(most) <= 2 for _, _, most in summary["purposes"])


def test_the_command_prints_the_purposes(capsys: Any) -> None:
    assert calls.main(["kuhn_poker", "--games", "2", "--top", "1", "--purposes"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("kuhn_poker (2 games):") and "in its generated code" in out and "budget of work" in out
    assert sys.gettrace() is None  # the counting is switched off after


def test_each_module_is_named_and_the_generated_code_is_one() -> None:
    assert calls.module_of("<generated 4f25003300b35a37c5f2e79cd81cddca>") == calls.GENERATED
    assert calls.module_of("<generated block 57210ed6c161>") == calls.GENERATED
    assert calls.module_of("<attrs generated methods rulecraft.runtime.asks.Option>") == "attrs"
    assert calls.module_of("/work/main/interpreter/runtime/machine.py") == "machine.py"


def test_the_cpu_time_is_sampled_by_the_module_running() -> None:
    # A sample, not a count: what it holds is that every sample is charged to a module of the games' own
    # work (the first pass's code generator left out), and that the timer is off and its handler put back.
    before = signal.getsignal(signal.SIGPROF)
    counts, games = calls.sample_modules("kuhn_poker", 3000, every=0.0005)
    assert games == 3000 and sum(counts.values()) > 0
    assert not {"generate.py", "blocks.py", "parser.py"} & set(counts)
    assert signal.getitimer(signal.ITIMER_PROF) == (0.0, 0.0) and signal.getsignal(signal.SIGPROF) is before
    summary = calls.module_summary(counts, games, 3)
    assert summary["samples"] == sum(counts.values()) and len(summary["modules"]) <= 3
    shares = [share for _, share in summary["modules"]]
    assert shares == sorted(shares, reverse=True) and 0 < sum(shares) <= 100.0001


def test_the_command_prints_the_modules_and_takes_one_count_at_a_time(capsys: Any) -> None:
    assert calls.main(["kuhn_poker", "--games", "500", "--top", "2", "--modules"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("kuhn_poker (500 games):") and "samples of CPU time, by the module running" in out
    with pytest.raises(SystemExit):
        calls.main(["kuhn_poker", "--modules", "--bytecodes"])
    assert "name one" in capsys.readouterr().err
