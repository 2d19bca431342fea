"""examples/benchmarks/ceiling_kuhn.py: Kuhn poker written by hand as the engine's design generates
it (issue 40's measured ceiling). These tests keep the script from rotting: its variants play
rulecraft's very game on the same seeds, keep the promises they are timed with, and the script runs
in its quickest mode (OpenSpiel used where installed, left out where not)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import rulecraft
from rulecraft.agents import RandomAgent, play
from rulecraft.runtime.basics import splitmix

from tests.scripts import load_script

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "examples" / "benchmarks" / "ceiling_kuhn.py"


ceiling = load_script(SCRIPT, "ceiling_kuhn")
SEEDS = range(60)


def _rulecraft_game(seed: int, trace: bool = False) -> Any:
    game = rulecraft.load(ceiling.RULES).new_game(players=2, seed=seed, trace=trace)
    play(game, [RandomAgent(s) for s in ceiling.agent_seeds(seed)], atomic=False)
    return game


def test_every_variant_plays_rulecraft_game_on_the_same_seeds() -> None:
    """The same seed gives the same game everywhere: the state machine, with and without its journal,
    logs rulecraft's answers (the table's draws labelled by the cards' labels) and writes its trace,
    line for line; the generic layout and the plain code end with rulecraft's outcome."""
    assert ceiling.splitmix(12345) == splitmix(12345)  # the script's copy of rulecraft's generator
    generic, outcome = ceiling.generic_runner(), ceiling.make_runner("rulecraft")
    for seed in SEEDS:
        game = _rulecraft_game(seed, trace=True)
        plain = ceiling.Machine(seed, trace=True)
        atomic = ceiling.Machine(seed, trace=True, atomic=True)
        for m in (plain, atomic):
            ceiling.play_random(m, seed)
            assert m.answers == game.answers
            assert m.events == [(e.verb, e.text) for e in game.trace.events]
        assert plain.data() == atomic.data()
        assert ceiling.machine_outcome(plain) == outcome(seed) == generic(seed) == ceiling.plain_game(seed)
    assert ceiling.same_games(range(20)) == {"machine": 0, "machine_atomic": 0, "generic": 0, "plain": 0}


def test_a_failed_answer_changes_nothing_with_the_journal() -> None:
    """machine_atomic's `apply` is all or nothing: an answer whose effects fail midway (a showdown
    with an empty hand, after the bet was paid) is undone to the decision, which is asked again; a
    bad index is refused. Without the journal the bet paid stays (the promise is the journal's)."""
    for atomic in (True, False):
        m = ceiling.Machine(3, atomic=atomic)
        m.apply(1)  # P1 bets
        m.zones[ceiling.HAND + 1].clear()  # a broken state: P2 holds no card
        before = m.clone().data()
        with pytest.raises(ceiling.GameError, match="first of an empty list"):
            m.apply(1)  # P2 calls: pot[P2] is paid, then the showdown fails
        assert (m.data() == before) is atomic
        if not atomic:
            assert m.vars[ceiling.POT + 1] == 2 and m.pending is None
    m = ceiling.Machine(3, atomic=True)
    before = m.data()
    for bad in (2, -1, "Bet", True):
        with pytest.raises(ceiling.GameError, match="no option"):
            m.apply(bad)
        assert m.data() == before


def test_a_clone_at_a_decision_goes_on_alone() -> None:
    """A clone is a copy of the data: played on to the end, it leaves its original at the decision,
    which then plays the same game the clone played."""
    for seed in range(10):
        m = ceiling.Machine(seed)
        m.apply(0)  # P1 passes: an activation waits with its resume point
        before = m.data()
        c = ceiling.play_random(m.clone(), seed)
        assert m.data() == before and c.over and not m.over
        ceiling.play_random(m, seed)
        assert m.data() == c.data()


def test_without_a_seed_the_table_is_asked_as_rulecraft_asks_it() -> None:
    """A game without a seed asks the table for each draw, with rulecraft's prompt and labels."""
    game = rulecraft.load(ceiling.RULES).new_game(players=2, seed=None)
    m = ceiling.Machine(None)
    for answer in (1, 1):
        decision = game.current_decision()
        assert decision is not None and decision.player is None and m.pending.player is None
        assert (decision.prompt, tuple(o.label for o in decision.options)) == (m.pending.prompt, m.pending.labels)
        game.apply(decision.options[answer].label)
        m.apply(answer)
    assert m.answers == game.answers and m.pending is ceiling.ASK[0]
    assert [m.cards[c] for c in m.zones[ceiling.HAND]] == [1] and [m.cards[c] for c in m.zones[ceiling.HAND + 1]] == [2]


def test_the_script_runs_in_its_quickest_mode() -> None:
    """`ceiling_kuhn.py --quick --json` checks the variants against rulecraft, compares the statistics
    and times every side (no callgrind); the program callgrind counts runs each kind of work."""
    run = subprocess.run(
        [sys.executable, str(SCRIPT), "--quick", "--json", "--stat-games", "40"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    report = json.loads(run.stdout)
    assert report["differ_from_rulecraft"] == {"machine": 0, "machine_atomic": 0, "generic": 0, "plain": 0}
    sides = {"rulecraft", "machine", "machine_atomic", "generic", "plain"}
    assert sides <= set(report["games_per_s"]) and all(g["median"] > 0 for g in report["games_per_s"].values())
    assert {"rulecraft", "machine"} <= set(report["clone_us"])
    if report["openspiel"] == "ok":
        assert all(z < 4 for side in report["agree_with_openspiel"].values() for z in side.values())
    cmd = ceiling.counted_command("machine", "playout", 3, 2)
    assert cmd[:3] == ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null"]
    assert subprocess.run(cmd[3:], capture_output=True, check=False).returncode == 0
