"""`rulecraft coverage`: which statements, arms, tiers, rules and options scenarios and games ran."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import rulecraft
from rulecraft.cli import main
from rulecraft.tools.coverage import Recorder, observe, report

TALLY = """game Tally players 1..1
var points[Player]: int = 0 public
var rounds: int = 2 public
fn score(p: Player) = points[p]

ability gain(p: Player) "Gain points" {
  tier 1 "Gain 1" { set points[p] += 1 }
  tier 2 "Gain 2" { set points[p] += 2 }
}

rule bonus(p in players) when points[p] == 3 {
  set points[p] += 10
}

rule never(p in players) when points[p] < -5 {
  set points[p] = 0
}

proc rest(p: Player) { }

play {
  repeat rounds {
    for p in players {
      choose by p prompt "Your turn" {
        option "Good" {
          use gain(p) upto 2
          rest(p)
        }
        option "Bad" {
          set points[p] -= 1
          say "ouch"
        }
        option "Pass" { }
      }
      if points[p] > 100 {
        say "unreachable"
      } elif points[p] > 1 {
        say "two or more"
      }
    }
  }
}
"""

SCENARIO = """game tally.rules
players 1
answer "Good"
answer "tier 1: Gain 1"
answer "Pass"
expect points[P1] == 1
"""


@pytest.fixture
def tally(tmp_path: Path) -> Path:
    (tmp_path / "tally.rules").write_text(TALLY, encoding="utf-8")
    scenarios = tmp_path / "scenarios"
    scenarios.mkdir()
    (scenarios / "good_then_pass.scenario").write_text(SCENARIO.replace("tally.rules", "../tally.rules"))
    (scenarios / "other.scenario").write_text('game tutorial\nanswer "Pass"\n')
    return tmp_path


def line_of(text: str) -> int:
    return next(i for i, line in enumerate(TALLY.splitlines(), 1) if text in line)


def test_a_scenario_covers_what_it_plays_and_the_report_names_the_rest(
    tally: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """One scenario: tier 1 and the options Good and Pass run; tier 2, Bad, both rules and two arms never do."""
    path = tally / "tally.rules"
    assert main(["coverage", str(path), "--scenarios", str(tally / "scenarios")]) == 0
    out = capsys.readouterr().out
    assert out.startswith("coverage of tally by 1 scenario(s)\n(1 scenario(s) in ")
    assert "  ability tiers resolved               1 / 2      50.0%" in out
    assert "  rules fired                          0 / 2       0.0%" in out
    assert "  menu options chosen                  2 / 3      66.7%" in out
    assert "  procedures called                    1 / 1     100.0%" in out  # an empty one, called by "Good"
    assert "  gain  1:1  2:0" in out
    bad = line_of('option "Bad"')
    never = out.split("never run\n")[1].split("\n\n")[0].splitlines()
    assert never == [
        f"  {path}:{line_of('tier 2')}: gain tier 2  (in gain)",
        f"  {path}:{line_of('rule bonus')}: rule bonus  (in bonus)",
        f"  {path}:{line_of('rule never')}: rule never  (in never)",
        f'  {path}:{bad}: option "Bad"',
        f"  {path}:{line_of('if points[p] > 100')}: if points[p] > 100",
        f"  {path}:{line_of('elif points[p] > 1')}: elif points[p] > 1",
    ]
    assert out.rstrip().endswith(
        f"statements never run (file:line)\n  {path}:{line_of('tier 2')}, {line_of('rule bonus') + 1}, "
        f"{line_of('rule never') + 1}, {bad + 1}-{bad + 2}, {line_of('unreachable')}, {line_of('two or more')}"
    )


def test_games_played_by_greedy_agents_count_their_moves_not_their_look_ahead() -> None:
    """Greedy agents try every answer on clones; coverage counts what the game itself ran, as a replay does."""
    from rulecraft.agents import make_agents, play

    rb = rulecraft.load("examples/tutorial.rules")
    played = Recorder()
    with observe(played):
        game = rb.new_game(players=2, seed=4)
        play(game, make_agents(["greedy"], 2, 4))
    replayed = Recorder()
    with observe(replayed):
        again = rb.new_game(players=2, seed=4, auto_chance=False)  # the chance answers are in the list too
        for _, answer in game.answers:
            again.apply(answer)
    assert again.over
    assert played.statement_runs == replayed.statement_runs
    assert played.arm_runs == replayed.arm_runs
    assert sum(played.arm_runs.values()) > 10


def test_coverage_of_seeded_games_on_the_command_line(tally: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--games N plays N seeded games with the agents named; the heading says what ran."""
    assert main(["coverage", str(tally / "tally.rules"), "--games", "3", "--agents", "greedy,random"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("coverage of tally by 3 game(s) (greedy,random, seeds 0-2, 1 players)\n")
    assert "rule never" in out.split("never run\n")[1]


def test_the_html_report_annotates_every_line(tally: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--html writes an index and one page per rulebook file, a line that never ran marked as missed."""
    html = tally / "html"
    assert main(["coverage", str(tally / "tally.rules"), "--games", "1", "--html", str(html)]) == 0
    assert capsys.readouterr().out.rstrip().endswith(f"wrote {html / 'index.html'}")
    page = (html / "file0.html").read_text(encoding="utf-8")
    assert f'<tr class="miss"><td class="n">{line_of("unreachable")}</td><td class="n">0</td>' in page
    assert "never: rule never" in page
    assert "tally.rules" in (html / "index.html").read_text(encoding="utf-8")


def test_observing_hears_only_the_games_made_while_it_lasts() -> None:
    """The recorder is a sink of the games made inside `observe`: not of their clones, nor of the games made after."""
    recorder = Recorder()
    rb = rulecraft.load("examples/tutorial.rules")
    with observe(recorder):
        game = rb.new_game(players=2, seed=1)
        assert game.push_sinks == (recorder,)
        assert game.clone().push_sinks == ()
    later = rb.new_game(players=2, seed=2)
    assert later.push_sinks == ()
    rep = report(recorder, rb.program, "tutorial")
    done, total = rep.line_totals()
    assert 0 < done < total  # setup ran, play is waiting on the first decision
    before = dict(recorder.statement_runs)
    later.apply(later.legal_answers()[0])
    assert dict(recorder.statement_runs) == before


@pytest.mark.parametrize(
    ("argv", "code", "message"),
    [
        (["coverage", "tutorial-none"], 1, "no rulebook 'tutorial-none'"),
        (["coverage", "examples/tutorial.rules", "--games", "-1"], 2, "'-1' is not a whole number from 0 to 1,000,000"),
        (["coverage", "examples/tutorial.rules", "--agents", "human"], 2, "unknown agent 'human'"),
        (["coverage", "examples/tutorial.rules", "--players", "9"], 2, "Market is played by 2 to 4 players"),
        (["coverage", "examples/tutorial.rules", "--scenarios", "nowhere"], 1, "--scenarios nowhere: not a folder"),
    ],
)
def test_bad_arguments_are_errors(argv: list[str], code: int, message: str, capsys: pytest.CaptureFixture[str]) -> None:
    """Each misuse exits with a sentence, never a traceback: 2 for bad usage, 1 for a missing input."""
    assert main(argv) == code
    assert message in capsys.readouterr().err


def test_the_pytest_plugin_reports_what_the_tests_ran(tally: Path) -> None:
    """`pytest --rulecraft-cov` observes the games of a test run and reports the rulebooks named."""
    (tally / "test_tally.py").write_text(
        "import rulecraft\n\n"
        "def test_pass_twice():\n"
        "    game = rulecraft.load('tally.rules').new_game(players=1, seed=0)\n"
        "    game.apply('Pass')\n"
        "    game.apply('Pass')\n"
        "    assert game.over\n",
        encoding="utf-8",
    )
    argv = ["-m", "pytest", "-q", "-p", "no:cacheprovider", "--rulecraft-cov", "--rulecraft-cov-rulebook"]
    result = subprocess.run(
        [sys.executable, *argv, "tally.rules", "--rulecraft-cov-html", "html", "test_tally.py"],
        cwd=tally,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    out = result.stdout
    assert "coverage of tally by the tests" in out
    assert "  menu options chosen                  1 / 3      33.3%" in out
    assert "  rules fired                          0 / 2       0.0%" in out
    assert (tally / "html" / "tally" / "index.html").exists()


def test_without_the_option_the_plugin_observes_nothing(tally: Path) -> None:
    """The plugin is always installed; without --rulecraft-cov it adds no sink to the games."""
    (tally / "test_plain.py").write_text(
        "import rulecraft\n\n"
        "def test_no_sink_but_the_trace():\n"
        "    game = rulecraft.load('tally.rules').new_game(players=1, seed=0)\n"
        "    assert game.sinks == (game.trace,)\n",
        encoding="utf-8",
    )
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_plain.py"],
        cwd=tally,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "rulecraft coverage" not in result.stdout
