"""Reliability: fuzzed rulebooks, invariants over many games, hidden information, budgets, untrusted input.

The large runs are commands (`rulecraft fuzz`, `rulecraft soak`); these are their CI-sized cuts.
Game-level checks cover the tutorial and every bundled rulebook as it lands.
"""

from __future__ import annotations

import json
import os
import pty
import random
import re
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import rulecraft
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rulecraft import cli
from rulecraft.errors import RecordError, RulebookError, RulecraftError
from rulecraft.language.builtins import LIST_BUDGET
from rulecraft.records import read_record, replay
from rulecraft.rulebook import MAX_RULEBOOK_BYTES
from rulecraft.runtime.basics import OPTION_BUDGET
from rulecraft.tools import fuzz, soak

ROOT = Path(__file__).resolve().parent.parent
TUTORIAL = str(ROOT / "examples" / "tutorial.rules")
GAMES = [TUTORIAL, *rulecraft.bundled_names()]
CORPUS = fuzz.corpus([TUTORIAL])
CI = settings(max_examples=100, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))


def _id(game: str) -> str:
    return Path(game).stem


# ---------------------------------------------------------------------------- 1. fuzzing the front end

MUTATIONS = st.builds(
    fuzz.Mutation,
    st.sampled_from(fuzz.KINDS),
    st.floats(0, 1),
    st.floats(0, 1),
    st.one_of(st.sampled_from(fuzz._KEYWORDS + fuzz._JUNK), st.text(max_size=8)),
)


@CI
@given(name=st.sampled_from(sorted(CORPUS)), mutations=st.lists(MUTATIONS, min_size=1, max_size=4))
def test_mutated_rulebooks_fail_only_with_located_errors(name: str, mutations: list[fuzz.Mutation]) -> None:
    """A mutated rulebook loads (and plays) or fails with a RulebookError naming file:line:col."""
    outcome = fuzz.run_case(fuzz.mutate(CORPUS[name], mutations), play_decisions=10)
    assert outcome.kind != "crash", outcome.detail


@settings(CI, max_examples=30)
@given(seed=st.integers(0, 2**32))
def test_generated_rulebooks_fail_only_with_located_errors(seed: int) -> None:
    """A program generated from the grammar loads and plays, or fails with a located error."""
    outcome = fuzz.run_case(fuzz.generate(random.Random(seed)), play_decisions=10)
    assert outcome.kind != "crash", outcome.detail


@settings(CI, max_examples=100)
@given(seed=st.integers(0, 2**32))
def test_values_of_any_kind_spliced_into_a_rulebook_fail_only_with_located_errors(seed: int) -> None:
    """Built-ins, queries and statements given values of any kind run, or fail with a located error."""
    outcome = fuzz.run_case(fuzz.splice(random.Random(seed)), play_decisions=10)
    assert outcome.kind != "crash", outcome.detail


def test_the_fuzz_command_reports_its_cases(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`rulecraft fuzz --cases N` runs N seeded cases and exits 0 when nothing crashed."""
    assert cli.main(["fuzz", "--cases", "25", "--corpus", TUTORIAL, "--out", str(tmp_path)]) == 0
    assert "fuzz: 25 cases over" in capsys.readouterr().out


def test_the_fuzzer_tells_a_crash_from_a_located_error() -> None:
    """A case is a crash when an error has no line, so the fuzzer itself can fail."""
    assert fuzz.run_case("game G players 1..1 play { }").kind == "loaded"
    assert fuzz.run_case('game G players 1..1 play { fail "x" }').kind == "error"
    located = RulebookError([rulecraft.errors.Diagnostic(rulecraft.errors.Span("f.rules", 0, 0), "m")])
    assert fuzz._located(located, {"f.rules"}) == "diagnostic without a line: f.rules:0:0: m"


# ---------------------------------------------------------------------------- 2. invariants at scale


@pytest.mark.parametrize("game", GAMES, ids=_id)
def test_seeded_random_games_keep_every_invariant(game: str, tmp_path: Path) -> None:
    """A few seeded random games: cards conserved, invariants hold, state and views round-trip."""
    summary = soak.soak(game, games=2, seed=100, max_decisions=250, hidden_every=25, out_dir=tmp_path)
    assert [f.problem for f in summary.findings] == []
    assert summary.decisions > 0


@pytest.mark.parametrize("game", GAMES, ids=_id)
def test_a_hundred_seeded_openings_keep_every_invariant(game: str, tmp_path: Path) -> None:
    """The CI cut of the large soak: a hundred seeded games per rulebook, each checked for its first
    60 decisions (every player count in turn), hidden information every 10th, on two workers."""
    summary = soak.soak(game, games=100, seed=10_000, max_decisions=60, hidden_every=10, out_dir=tmp_path, workers=2)
    assert [f.problem for f in summary.findings] == []
    assert summary.games == 100
    assert summary.hidden_checks > 100


def test_conservation_names_a_lost_or_doubled_card() -> None:
    """The conservation check finds a card in two zones, a card in none, and a card out of place."""
    rb = rulecraft.load(TUTORIAL)
    problems = []
    for tamper in ("double", "lose", "misplace"):
        game = rb.new_game(players=2, seed=1)
        assert soak.conservation(game) is None
        hand = game.state.zones["hand[P1]"]
        if tamper == "double":
            game.state.zones["hand[P2]"].append(hand[0])
        elif tamper == "lose":
            hand.pop()
        else:
            game.state.location[hand[0]] = "deck"
        problems.append(soak.conservation(game))
    ids = rb.new_game(players=2, seed=1).state.zones["hand[P1]"]
    assert problems == [
        f"card #{ids[0]} is in hand[P1] and in hand[P2]",
        f"cards #{ids[-1]} are in no zone",
        f"card #{ids[0]} is in hand[P1], but its location says deck",
    ]


BROKEN = """game B players 2..2
card Chip { n: int } label "chip {n}"
zone row: Chip public
zone hand[Player]: Chip owner
invariant small_hands(p in players): len(hand[p]) <= 1
setup { for n in 1..6 { create 1 Chip { n: n } in row } }
play { repeat 3 { for p in players { let c = choose one from row by p  move c to hand[p] } } }
"""


def test_a_violation_names_seed_and_step_and_writes_a_record_that_reproduces_it(tmp_path: Path) -> None:
    """A broken invariant is a finding with its seed and step; its record replays to the same state."""
    path = tmp_path / "broken.rules"
    path.write_text(BROKEN, encoding="utf-8")
    summary = soak.soak(str(path), games=1, seed=4, out_dir=tmp_path / "out")
    [finding] = summary.findings
    assert (finding.seed, finding.step) == (4, 3)
    assert finding.problem.endswith("broken.rules:5:1: error: invariant small_hands does not hold (p = P1)")
    assert finding.record is not None
    game = replay(read_record(finding.record), rulebook=rulecraft.load(path))
    assert [(d.name, where) for d, where in game.invariant_violations()] == [("small_hands", " (p = P1)")]


def test_the_cheap_round_trip_finds_what_the_whole_one_finds() -> None:
    """Card by card, remembering the cards it checked, the round-trip still finds every planted change."""
    rb = rulecraft.load(TUTORIAL)
    found = []
    for plant in ("a new card", "a card changed in place", "a variable"):
        game = rb.new_game(players=2, seed=1)
        cheap = soak.RoundTrip(game)
        assert cheap(game) is None and soak.round_trip(game) is None
        cid = game.state.zones["hand[P1]"][0]
        card = game.state.cards[cid]
        if plant == "a new card":  # a list comes back from JSON as a tuple
            game.state.cards[cid] = type(card)(id=cid, suit=card.suit, value=[card.value])
        elif plant == "a card changed in place":  # the object it remembers, no longer what came back
            object.__setattr__(card, "value", [card.value])
        else:
            game.state.vars["turns_left"] = [6]
        found.append((cheap(game), soak.round_trip(game)))
    assert found == [
        (
            f"the state changes through the converter and JSON (card #{cid})",
            "the state changes through the converter and JSON",
        ),
        (
            f"the state changes through the converter and JSON (card #{cid})",
            "the state changes through the converter and JSON",
        ),
        ("the state changes through the converter and JSON", "the state changes through the converter and JSON"),
    ]


def test_the_views_crossing_json_as_one_text_still_name_the_view_that_changes(monkeypatch: pytest.MonkeyPatch) -> None:
    """All the views cross JSON together; a view that does not survive is still named, in both checks."""
    game = rulecraft.load(TUTORIAL).new_game(players=3, seed=1)
    assert soak.views_round_trip(game) is None
    view = rulecraft.runtime.game.Game.view

    def broken(self: rulecraft.runtime.game.Game, who: object) -> dict[str, object]:
        out = view(self, who)
        if str(who) == "P2":
            out["zones"]["deck"] = ("a tuple comes back from JSON as a list",)
        return out

    monkeypatch.setattr(rulecraft.runtime.game.Game, "view", broken)
    assert [soak.views_round_trip(game), soak.round_trip(game), soak.RoundTrip(game)(game)] == [
        "the view of P2 changes through JSON"
    ] * 3


def test_any_number_of_workers_plays_the_same_games_and_finds_the_same(tmp_path: Path) -> None:
    """One process or two: the same games, the same figures, the same findings in seed order."""
    broken = tmp_path / "broken.rules"
    broken.write_text(BROKEN, encoding="utf-8")
    for game, seed in ((TUTORIAL, 7), (str(broken), 0)):
        one = soak.soak(game, games=4, seed=seed, max_decisions=60, hidden_every=5, out_dir=tmp_path / "out")
        two = soak.soak(game, games=4, seed=seed, max_decisions=60, hidden_every=5, out_dir=tmp_path / "out", workers=2)
        assert one == two
        assert one.decisions > 0 and one.seeds == f"{seed}-{seed + 3}"
    assert [f.seed for f in two.findings] == [0, 1, 2, 3]


def test_ctrl_c_stops_a_run_of_two_workers_with_the_figures_of_the_first_seeds(tmp_path: Path) -> None:
    """Ctrl-C (SIGINT to the whole process group) stops the workers; the figures cover seeds 0..n-1, no gap."""
    runs = tmp_path / "runs.jsonl"
    # stderr is a terminal (a pseudo-terminal), so that the run draws its progress bar: it says when
    # 50 games have been played.
    screen, terminal = pty.openpty()
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "rulecraft",
            "soak",
            TUTORIAL,
            "--games",
            "1000000",
            "--workers",
            "2",
            "--max-decisions",
            "40",
            "--json",
            str(runs),
            "--out",
            str(tmp_path),
        ],
        stdout=subprocess.PIPE,
        stderr=terminal,
        text=True,
        start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    os.close(terminal)
    shown = ""
    deadline = time.monotonic() + 300  # a bound for a stuck run, not a measure: no figure depends on it
    try:
        while not any(int(done) >= 50 for done in re.findall(r"(\d+)/1000000", shown)):
            if proc.poll() is not None or time.monotonic() > deadline:
                break
            if select.select([screen], [], [], 1.0)[0]:
                shown += os.read(screen, 4096).decode("utf-8", "replace")
        os.killpg(proc.pid, signal.SIGINT)
        out, _ = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        os.close(screen)
    assert "soak tutorial.rules:" in shown  # the bar, drawn on the terminal, names the work
    assert proc.returncode == 0
    [line] = [json.loads(text) for text in runs.read_text(encoding="utf-8").splitlines()]
    n = line["games"]
    assert line["interrupted"] and line["first_seed"] == 0 and 50 <= n < 1000000
    assert out.splitlines()[-1] == f"  seeds 0-{n - 1}, 2 worker(s)"
    again = soak.soak(TUTORIAL, games=n, max_decisions=40)
    assert (line["decisions"], line["hidden_checks"]) == (again.decisions, again.hidden_checks)


def test_runs_of_split_seed_ranges_add_up_to_one_run() -> None:
    """Seeds 0-5 in one run, or 0-2 and then 3-5: the same games (players by seed), the same figures."""
    whole = soak.soak(TUTORIAL, games=6, seed=0, max_decisions=40)
    first = soak.soak(TUTORIAL, games=3, seed=0, max_decisions=40)
    first.add(soak.soak(TUTORIAL, games=3, seed=3, max_decisions=40))
    assert first == whole
    assert [soak.players_of(s, [2, 3, 4]) for s in range(6)] == [2, 3, 4, 2, 3, 4]


def test_the_figures_of_runs_appended_to_a_file_add_up(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`soak --json` appends a line per run; `--totals` sums them and refuses seed ranges that overlap."""
    runs = tmp_path / "runs.jsonl"
    for seed in ("0", "3"):
        assert (
            cli.main(
                [
                    "soak",
                    TUTORIAL,
                    "--games",
                    "3",
                    "--seed",
                    seed,
                    "--max-decisions",
                    "40",
                    "--players",
                    "2",
                    "--json",
                    str(runs),
                    "--out",
                    str(tmp_path),
                ]
            )
            == 0
        )
    capsys.readouterr()
    whole = soak.soak(TUTORIAL, games=6, seed=0, players=[2], max_decisions=40)
    assert cli.main(["soak", "--totals", str(runs)]) == 0
    assert capsys.readouterr().out == (
        f"{TUTORIAL} (players 2, max 40 decisions, hidden every 10): 2 runs, seeds 0-5: 6 games "
        f"({whole.finished} finished, {whole.unfinished} unfinished), {whole.decisions} decisions, {whole.hidden_checks} hidden-information "
        "checks, 0 violations\n"
    )
    assert (
        cli.main(
            [
                "soak",
                TUTORIAL,
                "--games",
                "2",
                "--seed",
                "4",
                "--max-decisions",
                "40",
                "--players",
                "2",
                "--json",
                str(runs),
                "--out",
                str(tmp_path),
            ]
        )
        == 0
    )
    capsys.readouterr()
    assert cli.main(["soak", "--totals", str(runs)]) == 1
    assert capsys.readouterr().err == (
        f"{TUTORIAL}: the runs of seeds 3-5 and 4-5 overlap: their games would be counted twice\n"
    )


def _number(cell: str) -> int:
    return int(cell.replace(" ", ""))


def test_the_large_runs_in_reliability_md_are_the_recorded_ones() -> None:
    """The table of large soak runs in examples/benchmarks/RELIABILITY-RUNS.md says what
    examples/benchmarks/soak-runs.jsonl adds up to.

    The runs take hours, so CI cannot repeat them; it can hold the prose to the data the runs wrote.
    """
    runs = [
        json.loads(line)
        for line in (ROOT / "examples" / "benchmarks" / "soak-runs.jsonl").read_text().splitlines()
        if line
    ]
    recorded = {}
    for line in soak.totals(runs):  # raises if two runs counted the same seeds
        name = line.split(" ", 1)[0]
        figures = re.search(
            r"seeds ([\d, -]+): (\d+) games \((\d+) finished, 0 unfinished\), (\d+) decisions, (\d+) "
            r"hidden-information checks, (\d+) violations",
            line,
        )
        assert figures is not None, line
        assert "," not in figures.group(1), f"{name}: the recorded runs leave a gap of seeds: {line}"
        first, last = figures.group(1).split("-")
        recorded[name] = (int(first), int(last), *map(int, figures.groups()[1:]))
    text = (ROOT / "examples" / "benchmarks" / "RELIABILITY-RUNS.md").read_text()
    table = text.split("## Invariants at scale", 1)[1].split("\n\n")[2]
    documented = {}
    for row in table.splitlines()[2:]:
        game, seeds, games, decisions, hidden, violations, _time = (c.strip() for c in row.strip("|").split("|"))
        name = game.split(" (")[0].lower().replace(" ", "_")
        played = re.fullmatch(r"([\d ]+) \(([\d ]+)\)", games)
        assert played is not None, row
        first, last = seeds.split("–")
        documented[name] = (
            _number(first),
            _number(last),
            _number(played.group(1)),
            _number(played.group(2)),
            _number(decisions),
            _number(hidden),
            _number(violations),
        )
    assert documented == recorded


# ---------------------------------------------------------------------------- 3. hidden information


@pytest.mark.parametrize("game", GAMES, ids=_id)
def test_a_decision_does_not_depend_on_what_the_player_cannot_see(game: str) -> None:
    """Exchanging the cards a player cannot see changes neither their view nor their decision."""
    rb = rulecraft.load(game)

    @settings(CI, max_examples=12)
    @given(seed=st.integers(0, 10**6), steps=st.integers(0, 120), players=st.integers(0, 8))
    def check(seed: int, steps: int, players: int) -> None:
        count = rb.program.min_players + players % (rb.program.max_players - rb.program.min_players + 1)
        g = rb.new_game(players=count, seed=seed, trace=False)
        rng = random.Random(seed)
        for _ in range(steps):
            if g.over:
                return
            labels = g.legal_answers()
            g.apply(labels[rng.randrange(len(labels))])
        assert soak.hidden_leak(g, rng) is None

    check()


LEAKY = """game L players 2..2
enum Colour { red, blue }
card Chip { colour: Colour } label "{colour}"
zone deck: Chip hidden shuffled
zone hand[Player]: Chip owner
var shown: Chip = none public
setup {
  create 4 Chip { colour: red } in deck  create 4 Chip { colour: blue } in deck
  for p in players { draw 3 from deck to hand[p] }
}
"""


@pytest.mark.parametrize(
    ("play", "problem"),
    [
        (
            'play { choose by players[0] { option "a" when len(hand[players[1]] where it.colour == red) > 0 { }'
            ' option "b" { } option "c" { } } }',
            "the decision depends on what the player cannot see",
        ),
        (
            'ability peek(p: Player) "Peek" { tier 0 "plain" { } tier 1 "red" when len(hand[next(p)] where it.colour == red)'
            " > 1 { } }\nplay { use peek(players[0]) upto 1 }",
            "the decision depends on what the player cannot see",
        ),
    ],
)
def test_a_rulebook_that_leaks_is_caught(play: str, problem: str) -> None:
    """An option or a tier offered according to another player's hand is a leak."""
    rb = rulecraft.load_text(LEAKY + play, "leak.rules")
    leaks = set()
    for seed in range(10):
        found = soak.hidden_leak(rb.new_game(players=2, seed=seed), random.Random(seed))
        leaks.add(found is not None and problem in found)
    assert True in leaks


def test_the_later_picks_of_a_search_depend_only_on_what_it_first_offered() -> None:
    """A choice of several that searches a hidden pile offers each later pick among the cards it
    first offered (read again with the picks so far), so no later pick depends on a hidden card."""
    rb = rulecraft.load_text(
        """game S players 2..2
enum Colour { red, blue, green }
card Chip { colour: Colour } label "{colour}"
zone deck: Chip hidden shuffled
zone pile: Chip top
setup {
  for c in Colour { create 6 Chip { colour: c } in deck }
  draw 5 from deck to pile
}
play {
  attempt { let two = choose exactly 2 from pile where it.colour not in (two map it.colour) by players[0] }
}
""",
        "search.rules",
    )
    checked = 0
    for seed in range(12):
        game = rb.new_game(players=2, seed=seed)
        decision = game.current_decision()
        if decision is None or len(decision.labels) < 3:
            continue
        game.apply(decision.labels[0])
        checked += 1
        assert len(game.legal_answers()) == 2
        assert soak.hidden_leak(game, random.Random(seed)) is None
    assert checked > 0


def test_a_card_named_by_a_variable_the_player_sees_is_not_hidden() -> None:
    """A public variable (or one's own) naming a card shows that card: it is not a hidden position."""
    rb = rulecraft.load_text(
        LEAKY + 'play { set shown = first(hand[players[1]])  choose by players[0] { option "a" { } option "b" { } } }',
        "leak.rules",
    )
    game = rb.new_game(players=2, seed=1)
    shown = game.state.vars["shown"].id
    positions = soak.hidden_positions(game, rulecraft.language.values.Player(0))
    assert shown not in {game.state.zones[key][i] for key, i in positions}
    assert soak.hidden_leak(game, random.Random(1)) is None


def test_hidden_positions_are_what_the_viewer_cannot_identify() -> None:
    """Other hands and the hidden deck are hidden; one's own hand and the top of a top zone are seen."""
    rb = rulecraft.load(TUTORIAL)
    game = rb.new_game(players=2, seed=3)
    zones = {key for key, _ in soak.hidden_positions(game, rulecraft.language.values.Player(0))}
    assert zones == {"deck", "hand[P2]"}


# ---------------------------------------------------------------------------- 4. runaway rules

RUNAWAY = [
    (
        "fn f(n: int) = f(n + 1)\nvar v: int = 0 public\nplay { set v = f(1) }",
        "r.rules:2:16: error: functions called 100 deep (in f): runaway recursion?",
    ),
    (
        "play { let xs = [1]\n repeat 40 { xs = xs + xs } }",
        f"r.rules:3:19: error: a list of 131072 elements is more than a rulebook may build ({LIST_BUDGET}): "
        "a runaway computation?",
    ),
    (
        "play { let subsets = [[]]\n for x in 1..30 { subsets = subsets + [s + [x] for s in subsets] } }",
        f"r.rules:3:29: error: a list of 131072 elements is more than a rulebook may build ({LIST_BUDGET}): "
        "a runaway computation?",
    ),
    (
        "var v: int = 0 public\nplay { set v = len(1..1000000000) }",
        f"r.rules:3:20: error: a list of 1000000000 elements is more than a rulebook may build ({LIST_BUDGET}): "
        "a runaway computation?",
    ),
    (
        "play { let v = choose one from 1..20000 by players[0] }",
        f"r.rules:2:8: error: a decision of 20000 options is more than a decision may offer ({OPTION_BUDGET}): "
        "choose in steps instead",
    ),
    (
        "play { let n = 2\n repeat 100 { n = n * n } }",
        "r.rules:3:19: error: a number beyond 9223372036854775808 in size: a runaway computation?",
    ),
    (  # a count added to itself, `x += ...` (its own fast path in the statement)
        "play { let n = 1\n repeat 100 { n += n } }",
        "r.rules:3:15: error: a number beyond 9223372036854775808 in size: a runaway computation?",
    ),
    (  # and a variable's, `set v += ...`
        "var v: int = 1 public\nplay { repeat 100 { set v += v } }",
        "r.rules:3:21: error: a number beyond 9223372036854775808 in size: a runaway computation?",
    ),
    (
        'play { let t = "ab"\n repeat 100 { t = t + t } }',
        "r.rules:3:19: error: a text of 131072 characters is more than a rulebook may build (100000): "
        "a runaway computation?",
    ),
    (
        "card K { n: int }\nzone z: K public\nplay { create 1000000000 K { n: 1 } in z }",
        "r.rules:4:8: error: 1000000000 cards is more than a game may hold (100000): a runaway computation?",
    ),
    (
        "const X = " + "-" * 120 + "1\nplay { }",
        "r.rules:2:110: error: nested more than 100 levels deep: split it into procedures, functions or constants",
    ),
    (  # a chain is one level of nesting as written, but the stages still recurse once per operator
        "const X = " + " + ".join(["1"] * 300) + "\nplay { }",
        "r.rules:2:415: error: a chain of operators more than 200 levels deep in all: split it into constants or "
        "functions",
    ),
    (  # real nesting (brackets) is still counted level by level, a chain inside it or not
        "const X = " + "[" * 101 + "1 + 2 + 3" + "]" * 101 + "\nplay { }",
        "r.rules:2:110: error: nested more than 100 levels deep: split it into procedures, functions or constants",
    ),
    (  # a placeholder's expression is counted on from where its string stands (it escaped the count:
        # a RecursionError traceback)
        'play { say "{' + " + ".join(["1"] * 400) + '}" }',
        "r.rules:2:834: error: a chain of operators more than 200 levels deep in all: split it into constants or "
        "functions",
    ),
    (
        'play { if true { if true { say "{' + "-" * 100 + '1}" } } }',
        "r.rules:2:125: error: nested more than 100 levels deep: split it into procedures, functions or constants",
    ),
]


@pytest.mark.parametrize(
    ("body", "message"),
    RUNAWAY,
    ids=[
        "fn-recursion",
        "doubling-list",
        "exponential-subsets",
        "huge-range",
        "huge-decision",
        "huge-number",
        "doubling-count",
        "doubling-variable",
        "doubling-text",
        "huge-create",
        "deep-nesting",
        "long-chain",
        "deep-lists",
        "long-chain-in-placeholder",
        "deep-placeholder",
    ],
)
def test_runaway_rules_stop_with_a_located_error(body: str, message: str) -> None:
    """Unbounded recursion, exponential lists and choices stop within a budget, at their place."""
    with pytest.raises(RulebookError) as info:
        rulecraft.load_text("game R players 1..1\n" + body, "r.rules").new_game(players=1)
    assert info.value.messages == [message]


def test_nesting_just_within_the_limit_runs() -> None:
    """Text nested up to the limit parses, checks and runs: the limit refuses only what is deeper."""
    rb = rulecraft.load_text(
        "game R players 1..1\nvar v: int = 0 public\nplay { set v = " + "-" * 90 + "1 }", "r.rules"
    )
    assert rb.new_game(players=1).state.vars["v"] == 1


def test_a_flat_chain_of_operators_is_not_nesting() -> None:
    """`1 + 1 + ... + 1` of 100 terms is a tree 99 deep on its left, but one level as written: it is
    accepted, as a chain of `and`, `*` or queries is; inside nesting just within the limit too, and
    it parses, checks, runs, formats and explains (the stages recurse once per operator)."""
    from rulecraft.authoring.explain import explain
    from rulecraft.authoring.fmt import format_text

    chain = " + ".join(["1"] * 100)
    deep = "abs(" * 90 + " + ".join(["1"] * 105) + ")" * 90
    both = "[" * 95 + " and ".join(["true"] * 100) + "]" * 95
    text = (
        "game R players 1..1\nvar v: int = 0 public\nvar w: int = 0 public\nvar b: any = 0 public\n"
        f"play {{ set v = {chain}\n set w = {deep}\n set b = {both}\n set v += 2 * 3 * 4 * 5 }}"
    )
    rb = rulecraft.load_text(text, "r.rules")
    game = rb.new_game(players=1)
    assert (game.state.vars["v"], game.state.vars["w"]) == (220, 105)
    assert format_text(text, "r.rules") and explain(rb.program, None)


# ---------------------------------------------------------------------------- 5. untrusted input

NO_HOST = [
    ('play { let x = eval("1") }', "r.rules:2:16: error: unknown function 'eval'"),
    ('play { let x = __import__("os") }', "r.rules:2:16: error: unknown function '__import__'"),
    (
        "card K { n: int }\nzone z: K public\nplay { for c in z { let x = c.__class__ } }",
        "r.rules:4:29: error: card type K has no field '__class__'",
    ),
    ('play { let x = open("/etc/passwd") }', "r.rules:2:16: error: unknown function 'open'"),
]


@pytest.mark.parametrize(("body", "message"), NO_HOST)
def test_the_language_cannot_reach_python(body: str, message: str) -> None:
    """Names of the host (eval, imports, files, dunder fields) are unknown to the language."""
    with pytest.raises(RulebookError) as info:
        rulecraft.load_text("game R players 1..1\n" + body, "r.rules")
    assert message in info.value.messages


@pytest.mark.parametrize(
    ("include", "message"),
    [
        ("/etc/passwd", "an include names a rulebook file ending in .rules, not '/etc/passwd'"),
        ("/tmp/x.rules", "an include names a path relative to the including file, not '/tmp/x.rules'"),
        ("folder.rules", "'folder.rules' is not a regular file"),
        ("missing.rules", "cannot find included rulebook 'missing.rules'"),
    ],
)
def test_includes_read_only_rulebook_files(tmp_path: Path, include: str, message: str) -> None:
    """An include reads a .rules file named by a relative path, or a bundled one; nothing else."""
    (tmp_path / "outside.rules").write_text("game O players 1..1\n", encoding="utf-8")
    (tmp_path / "book").mkdir()
    (tmp_path / "book" / "folder.rules").mkdir()
    main = tmp_path / "book" / "main.rules"
    main.write_text(f'include "{include}"\ngame M players 1..1\nplay {{ }}\n', encoding="utf-8")
    with pytest.raises(RulebookError) as info:
        rulecraft.load(main)
    assert info.value.messages == [f"{main}:1:1: error: {message}"]


def test_an_include_beside_or_below_is_read(tmp_path: Path) -> None:
    """A rulebook split across files loads, whether the parts sit below it or beside its folder."""
    (tmp_path / "parts").mkdir()
    (tmp_path / "parts" / "vars.rules").write_text("var v: int = 3 public\n", encoding="utf-8")
    (tmp_path / "game.rules").write_text(
        'include "parts/vars.rules"\ngame M players 1..1\nplay { }\n', encoding="utf-8"
    )
    (tmp_path / "ext").mkdir()
    (tmp_path / "ext" / "more.rules").write_text('include "../game.rules"\nvar w: int = 4 public\n', encoding="utf-8")
    assert rulecraft.load(tmp_path / "ext" / "more.rules").new_game(players=1).state.vars == {"v": 3, "w": 4}


def test_a_huge_rulebook_is_refused_before_parsing(tmp_path: Path) -> None:
    """A 100k-line rulebook over the size limit is refused at once, not parsed."""
    lines = ["game Big players 1..1", "var v: int = 0 public", "play {"]
    lines += [f"  set v += {i}" for i in range(100_000)] + ["}"]
    path = tmp_path / "big.rules"
    path.write_text("\n".join(lines), encoding="utf-8")
    with pytest.raises(RulecraftError, match=f"more than {MAX_RULEBOOK_BYTES} bytes is more than a rulebook may be"):
        rulecraft.load(path)


def test_a_long_rulebook_within_the_limit_loads() -> None:
    """Five thousand statements parse, check and run."""
    text = "game Big players 1..1\nvar v: int = 0 public\nplay {\n" + "set v += 1\n" * 5000 + "}\n"
    assert rulecraft.load_text(text, "big.rules").new_game(players=1).state.vars["v"] == 5000


def test_a_huge_record_is_refused(tmp_path: Path) -> None:
    """A 50 MB record is refused by its size, without being read."""
    path = tmp_path / "huge.json"
    with open(path, "wb") as f:
        f.truncate(50_000_000)
    with pytest.raises(RecordError, match="50000000 bytes is larger than a record may be"):
        read_record(path)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ("[" * 100_000 + "]" * 100_000, "not a record: JSON nested too deeply"),
        (
            json.dumps({"format": 1, "rulebook": {"name": "/etc/passwd"}, "players": 2, "answers": []}),
            "the record names rulebook '/etc/passwd', which is neither bundled nor a .rules file",
        ),
        (
            json.dumps({"format": 1, "rulebook": {"name": "x.rules"}, "players": 2, "answers": [], "run": "os.system"}),
            "not a valid record",
        ),
    ],
)
def test_a_record_cannot_make_the_interpreter_do_anything_else(tmp_path: Path, data: str, message: str) -> None:
    """A record is data: it names a rulebook and answers; deep nesting, other files, extra keys are refused."""
    path = tmp_path / "r.json"
    path.write_text(data, encoding="utf-8")
    with pytest.raises(RecordError, match=message.replace("(", r"\(").replace(")", r"\)")):
        replay(read_record(path))


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes")
def test_a_pipe_named_as_a_rulebook_include_is_not_read(tmp_path: Path) -> None:
    """An include that names a pipe is refused rather than read (it could block or never end)."""
    os.mkfifo(tmp_path / "pipe.rules")
    main = tmp_path / "main.rules"
    main.write_text('include "pipe.rules"\ngame M players 1..1\nplay { }\n', encoding="utf-8")
    with pytest.raises(RulebookError, match=r"'pipe\.rules' is not a regular file"):
        rulecraft.load(main)


def test_an_owner_zone_is_seen_by_the_player_named_in_any_key_position() -> None:
    """`zone box[int, Player]: ... owner` shows box[1,P2] to P2 and only its count to P1."""
    rb = rulecraft.load_text(
        """game O players 2..2
card Chip { n: int } label "chip {n}"
zone box[int, Player]: Chip owner
var secret[int, Player]: int = 0 owner
setup { create 1 Chip { n: 7 } in box[1, players[1]]  set secret[1, players[1]] = 5 }
play { choose by players[0] { option "a" { } option "b" { } } }
""",
        "o.rules",
    )
    game = rb.new_game(players=2)
    assert game.view("P2")["zones"]["box[1,P2]"] == ["chip 7"]
    assert game.view("P1")["zones"]["box[1,P2]"] == {"count": 1}
    assert game.view("P2")["vars"] == {"secret[1,P2]": "5"}
    assert game.view("P1")["vars"] == {}


WRONG_KIND = """game T players 2..2
enum Colour { red, blue }
card Chip { colour: Colour, n: int } label "{colour} {n}"
zone row: Chip public
zone hand[Player]: Chip owner
var w: any = none public
setup { create 2 Chip { colour: red, n: 1 } in row }
"""


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (
            'play { let p = players[0]  say "{p.colour}" }',
            "t.rules:8:34: error: Player has no fields",
        ),
        ("play { set w = seat(none) }", "t.rules:8:16: error: seat(none): not values seat can take"),
        ('play { set w = abs("x") }', "t.rules:8:16: error: abs(x): not values abs can take"),
        ("play { set w = key_of(row, 5) }", "t.rules:8:16: error: key_of(row, 5): not values key_of can take"),
        (
            'play { set w = sorted([1, "a", red]) }',
            "t.rules:8:16: error: sorted([1, a, red]): not values sorted can take",
        ),
        (
            'play { set w = [1, "a"] max by it }',
            "t.rules:8:16: error: cannot order by these keys: max by needs keys of "
            "one kind (numbers, or values of one enumeration, ...)",
        ),
        (
            "play { move first(row) to hand[none] }",
            "t.rules:8:27: error: 'there is no zone hand[none]' failed outside any attempt or ability",
        ),
        ("play { set w = ord([1] group by it) }", "t.rules:8:16: error: ord([[1]]): not values ord can take"),
        ("play { repeat last(distinct([])) { } }", "t.rules:8:15: error: a number is needed here, not none"),
        (
            "play { create none Chip { colour: red, n: 1 } in row }",
            "t.rules:8:15: error: a number is needed here, not none",
        ),
        ("play { set w = first(row)  set w = w.__class__ }", "t.rules:8:36: error: red 1 has no field '__class__'"),
    ],
)
def test_values_of_the_wrong_kind_stop_with_a_located_error(body: str, message: str) -> None:
    """What `any` lets past the checker fails at run time at its place, never as a Python exception."""
    with pytest.raises(RulebookError) as info:
        rulecraft.load_text(WRONG_KIND + body, "t.rules").new_game(players=2)
    assert info.value.messages == [message]


def test_the_table_as_a_value_survives_the_converter() -> None:
    """A variable may hold `table` (who decides next); the state still round-trips."""
    rb = rulecraft.load_text(
        WRONG_KIND + 'play { set w = table  choose by players[0] { option "a" { } option "b" { } } }', "t.rules"
    )
    assert soak.round_trip(rb.new_game(players=2)) is None


def test_a_text_reaches_declared_fields_only() -> None:
    """A label or a `say` naming a Python attribute shows nothing of Python: '?' or a located error."""
    with pytest.raises(RulebookError) as info:
        rulecraft.load_text(
            """game T players 1..1
enum Colour { red, blue }
card Chip { colour: Colour } label "{colour} {colour.__class__.__init__.__globals__}"
zone row: Chip public
setup { create 1 Chip { colour: red } in row }
play { let c = first(row)  say "{c.colour}"  say "{c.__class__}" }
""",
            "t.rules",
        )
    assert info.value.messages == ["t.rules:6:52: error: card type Chip has no field '__class__'"]
    game = rulecraft.load_text(
        """game T players 1..1
enum Colour { red, blue }
card Chip { colour: Colour } label "{colour} {colour.__class__.__init__.__globals__}"
zone row: Chip public
setup { create 1 Chip { colour: red } in row }
play { }
""",
        "t.rules",
    ).new_game(players=1)
    assert game.view(None)["zones"]["row"] == ["red ?"]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            'card K { n: int } label "a\x00b"',
            "s.rules:2:25: error: this string holds a NUL or an escape that cannot be read",
        ),
        ('play { say "\\N{nope}" }', "s.rules:2:12: error: this string holds a NUL or an escape that cannot be read"),
        ('play { say "\\x4" }', "s.rules:2:12: error: this string holds a NUL or an escape that cannot be read"),
    ],
)
def test_a_string_that_cannot_be_read_is_a_located_error(text: str, message: str) -> None:
    """A NUL or a broken escape in a string (found by the fuzzer) is a syntax error at the string."""
    with pytest.raises(RulebookError) as info:
        rulecraft.load_text("game G players 1..1\n" + text, "s.rules")
    assert info.value.messages == [message]


DYING_WORKER = """
import os, sys
from rulecraft.cli import main
from rulecraft.tools import {module} as tool

real = tool.{function}


def dying(task):
    if task[{index}] == 1:
        os._exit(9)  # as the out-of-memory killer or `kill -9` ends a worker: no result, no exception
    return real(task)


tool.{function} = dying  # the workers are forked: they play with this one
sys.exit(main([{argv}]))
"""


@pytest.mark.parametrize(
    ("module", "function", "index", "argv"),
    [
        ("simulate", "play_one", -1, f"'simulate', {TUTORIAL!r}, '-n', '8', '--workers', '2', '--top', '0'"),
        ("soak", "_one", 1, f"'soak', {TUTORIAL!r}, '--games', '8', '--workers', '2'"),
    ],
)
def test_a_worker_that_dies_ends_the_command_with_one_line_not_a_hang(
    module: str, function: str, index: int, argv: str
) -> None:
    """A worker killed mid-run (multiprocessing's Pool waited for its games for ever): the command
    ends with exit 1 and one line that says what happened, and no worker is left behind."""
    script = DYING_WORKER.format(module=module, function=function, index=index, argv=argv)
    # The timeout bounds a regression (a hang), it measures nothing.
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 1, done.stderr
    assert done.stderr.splitlines()[-1].startswith("a worker process died before it finished its games")
    assert "Traceback" not in done.stderr
