"""`rulecraft view`: a record as one HTML page, opened and stepped through in a real browser.

The browser is headless Chromium (Debian's `chromium` package; `.ci/run` installs it) driven by
Playwright with the system browser. Where there is none (no `chromium` on the PATH, no
`RULECRAFT_CHROMIUM`), the tests that open a page are skipped with one line saying why, except
where `RULECRAFT_BROWSER_REQUIRED` is set (`.ci/run`): there they fail. A `RULECRAFT_CHROMIUM` that
names no executable file is an error of one line, naming it. One browser serves the whole module. A screenshot of each bundled game's page is kept in
build/viewer/ (docs/VIEWER.md shows them).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import attrs
import pytest
import rulecraft
from playwright.sync_api import Browser, Page
from rulecraft.cli import main
from rulecraft.inputs import clip
from rulecraft.language.values import CardRef, Player
from rulecraft.records import read_record, record_of, record_text, replay, write_record
from rulecraft.render import result_lines, trace_lines
from rulecraft.viewer import build, page, score_visibility

ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = ROOT / "build" / "viewer"
TABLE_RECORDS = sorted((ROOT / "examples" / "records").glob("*.json"))

# Every zone the page shows at its current step, in the shape of `Game.view`: a list of labels
# (a chip with a count stands for that many equal cards), `{count}` hidden, `{top, count}` a pile.
# (As pairs, made a dict in Python: an object sent back by Playwright loses a key named `__proto__`.)
SHOWN_ZONES = """() => {
  const out = [];
  for (const z of document.querySelectorAll(".zone")) {
    const labels = [];
    for (const c of z.querySelectorAll(".card"))
      for (let i = 0; i < Number(c.dataset.n); i++) labels.push(c.querySelector(".label").textContent);
    if (z.dataset.kind === "list") out.push([z.dataset.zone, labels]);
    else if (z.dataset.kind === "top") out.push([z.dataset.zone, {top: labels.length ? labels[0] : null, count: Number(z.dataset.count)}]);
    else out.push([z.dataset.zone, {count: Number(z.dataset.count)}]);
  }
  return out;
}"""
SHOWN_VARS = """() => [...document.querySelectorAll("tr[data-var]")].map(
  (tr) => [tr.dataset.var, tr.children[1].textContent])"""


@pytest.fixture(scope="module")
def records(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The table-played records (one per game), a seeded game of random agents and its first quarter.

    (A seeded game of Renaissance Man or Valdora takes 700 to 900 answers: a second each to
    replay, too slow for here; their table records are long enough to hold every kind of step.)
    """
    folder = tmp_path_factory.mktemp("records")
    out = {path.stem: path for path in TABLE_RECORDS}
    out["guildhall"] = folder / "guildhall.json"
    assert main(["play", "guildhall", "--seed", "1", "--agents", "random", "--record", str(out["guildhall"])]) == 0
    record = read_record(out["guildhall"])
    out["guildhall_early"] = folder / "guildhall_early.json"
    early = attrs.evolve(record, answers=record.answers[: len(record.answers) // 4], result=None)
    out["guildhall_early"].write_text(record_text(early))
    # An extension: its trace has lines in two files, the extension and the game it includes.
    out["jester"] = folder / "jester.json"
    jester = str(ROOT / "examples" / "extensions" / "tutorial_jester.rules")
    assert main(["play", jester, "--seed", "4", "--agents", "random", "--record", str(out["jester"])]) == 0
    return out


def write_page(record: Path, folder: Path, viewer: str | None = None) -> Path:
    out = folder / f"{record.stem}{'.' + viewer if viewer else ''}.html"
    args = ["view", str(record), "-o", str(out)] + (["--as", viewer] if viewer else [])
    assert main(args) == 0
    return out


def open_page(browser: Browser, path: Path) -> Page:
    tab = browser.new_page(viewport={"width": 1280, "height": 900})
    errors: list[str] = []
    tab.on("pageerror", lambda exc: errors.append(str(exc)))
    tab.goto(path.as_uri())
    assert errors == []
    return tab


def step_shown(tab: Page) -> int:
    return int(tab.input_value("#jump"))


def state_at(record: Path, step: int, viewer: str | None = None) -> dict[str, Any]:
    """What `replay --until STEP` reaches, as `viewer` sees it."""
    return replay(read_record(record), until=step, base=record.parent).view(viewer)


def page_data(html: str) -> dict[str, Any]:
    found = re.search(r'<script id="game-data" type="application/json">(.*?)</script>', html, re.S)
    assert found is not None
    data: dict[str, Any] = json.loads(found.group(1))
    return data


# ---------------------------------------------------------------------------- in the browser


# Each bundled game, and the tutorial played on a table; named by game for the screenshots.
STEPPED = {
    "guildhall": "guildhall",
    "renaissance_man": "renaissance_man_table",
    "valdora": "valdora_table",
    "tutorial": "tutorial_table",
}


@pytest.mark.parametrize("name", STEPPED)
def test_stepping_shows_the_state_replay_reaches(
    name: str, records: dict[str, Path], browser: Browser, tmp_path: Path
) -> None:
    """→, ←, Home, End and a typed step move through the game; each step shows replay --until's zones and variables."""
    record = records[STEPPED[name]]
    answers = len(read_record(record).answers)
    tab = open_page(browser, write_page(record, tmp_path))
    assert step_shown(tab) == 0
    assert dict(tab.evaluate(SHOWN_ZONES)) == state_at(record, 0)["zones"]
    tab.keyboard.press("End")
    assert step_shown(tab) == answers
    tab.keyboard.press("ArrowLeft")
    tab.keyboard.press("ArrowLeft")
    assert step_shown(tab) == answers - 2
    assert dict(tab.evaluate(SHOWN_ZONES)) == state_at(record, answers - 2)["zones"]
    tab.keyboard.press("Home")
    tab.keyboard.press("ArrowRight")
    assert step_shown(tab) == 1
    middle = answers // 2
    tab.fill("#jump", str(middle))
    tab.press("#jump", "Enter")
    assert step_shown(tab) == middle
    expected = state_at(record, middle)
    assert dict(tab.evaluate(SHOWN_ZONES)) == expected["zones"]
    assert dict(tab.evaluate(SHOWN_VARS)) == expected["vars"]
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    tab.screenshot(path=str(ARTIFACTS / f"{name}.png"))
    tab.close()


# At a step: every element of the areas whose content is taller or wider than its box (it would
# scroll), every card not wholly inside the window's width, and each area's place and size.
LAYOUT = """() => {
  const inner = [...document.querySelectorAll("#areas, #areas *, #decision .options")]
    .filter((e) => e.scrollHeight > e.clientHeight + 1 || e.scrollWidth > e.clientWidth + 1)
    .map((e) => e.className + " " + (e.dataset.zone || ""));
  const outside = [...document.querySelectorAll("#areas .card")]
    .filter((c) => { const r = c.getBoundingClientRect(); return r.left < 0 || r.right > window.innerWidth; })
    .map((c) => c.textContent);
  const areas = [...document.querySelectorAll(".area")].map((a) => {
    const r = a.getBoundingClientRect(), last = a.lastElementChild.getBoundingClientRect();
    return { owner: a.dataset.owner, top: r.top, width: r.width, slack: r.bottom - last.bottom };
  });
  return { inner, outside, areas, cards: document.querySelectorAll("#areas .card").length };
}"""


def test_every_card_shows_without_scrolling_and_the_players_areas_stand_side_by_side(
    browser: Browser, tmp_path: Path
) -> None:
    """At 1400x1000, a three-player Guildhall game shows every card of every zone at step 0, midway and at
    the end without a scroll box inside the page, each card within the window's width; P1, P2 and P3 have
    areas of the same width side by side, each as tall as its own zones (no stretched empty area)."""
    record = tmp_path / "guildhall3.json"
    assert (
        main(["play", "guildhall", "--players", "3", "--seed", "2", "--agents", "random", "--record", str(record)]) == 0
    )
    answers = len(read_record(record).answers)
    tab = browser.new_page(viewport={"width": 1400, "height": 1000})
    tab.goto(write_page(record, tmp_path).as_uri())
    for step in (0, answers // 2, answers):
        tab.fill("#jump", str(step))
        tab.press("#jump", "Enter")
        shown = tab.evaluate(LAYOUT)
        assert shown["cards"] > 10
        assert shown["inner"] == [], step
        assert shown["outside"] == [], step
        players = [a for a in shown["areas"] if a["owner"] in ("P1", "P2", "P3")]
        assert [a["owner"] for a in players] == ["P1", "P2", "P3"]
        assert len({round(a["top"]) for a in players}) == 1, step  # one row
        assert len({round(a["width"]) for a in players}) == 1, step  # equal columns
        assert all(a["slack"] < 12 for a in shown["areas"]), (step, shown["areas"])  # none stretched
    tab.close()


def test_the_score_chart_has_a_score_axis_and_a_step_axis_with_their_values(
    records: dict[str, Path], browser: Browser, tmp_path: Path
) -> None:
    """The chart's axes carry values: scores from 0 up to near the highest score, steps from 0 up to near the
    last; a click at a step's tick shows that step."""
    record = records["guildhall"]
    data = build(read_record(record), base=record.parent)
    last, high = len(data["steps"]) - 1, max(v for s in data["steps"] for v in s["scores"] if v is not None)
    tab = open_page(browser, write_page(record, tmp_path))
    labels = "(axis) => [...document.querySelectorAll(`#chart text.tick[data-axis=${axis}]`)].map((t) => t.textContent)"
    scores = [int(v) for v in tab.evaluate(labels, "score")]
    steps = [int(v) for v in tab.evaluate(labels, "step")]
    assert scores[0] == 0 and scores == sorted(scores) and high / 2 < scores[-1] <= high
    assert steps[0] == 0 and steps == sorted(steps) and last / 2 < steps[-1] <= last and len(steps) >= 3
    tick = tab.locator("#chart text.tick[data-axis=step]").nth(1)
    box = tick.bounding_box()
    assert box is not None
    tab.mouse.click(box["x"] + box["width"] / 2, box["y"] - 20)
    assert step_shown(tab) == steps[1]
    tab.close()


def test_zones_and_variables_show_their_display_names_with_the_rules_name_as_tooltip(
    browser: Browser, tmp_path: Path
) -> None:
    """A zone or variable declared with a name for people shows by it (`VP cards` in P1's area), the key the
    rules use as its tooltip; one without shows its own name (without the owner, in the owner's area)."""
    from tests.test_display_names import NAMED

    rules = tmp_path / "named.rules"
    rules.write_text(NAMED, encoding="utf-8")
    record = tmp_path / "named.json"
    assert main(["play", str(rules), "--seed", "1", "--agents", "random", "--record", str(record)]) == 0
    tab = open_page(browser, write_page(record, tmp_path))
    names = """() => [...document.querySelectorAll(".zone .zname, tr[data-var] td:first-child")].map(
      (n) => [n.closest(".area").dataset.owner, n.textContent, n.title])"""
    assert sorted(tab.evaluate(names)) == [
        ["", "the bag", "bag"],
        ["", "turns", "turns"],
        ["P1", "VP cards", "vp_cards[P1]"],
        ["P1", "VP tokens", "tokens[P1]"],
    ]
    tab.close()


MAPPED = """game M players 2..2
enum Spot { a, b, c, d }
card Chip { value: int } label "chip {value}"
zone pile[Spot]: Chip public
var at[Player]: Spot = a public
const LINKS = [[a, b], [b, c], [c, d]]
setup { create 2 Chip { value: 1 } in pile[b] }
play {
  let g = choose one from [b, c] by players[0] prompt "Go where?"
  set at[players[0]] = g
  end game winners []
}
layout Spot { a: 0 0, b: 2 0, c: 2 2, d: 0 2 } links LINKS
"""

MAP = """() => {
  const centre = (e) => { const r = e.getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2]; };
  const places = {};
  for (const p of document.querySelectorAll(".map .place"))
    places[p.dataset.place] = { at: centre(p), zones: [...p.querySelectorAll(".zone")].map((z) => z.dataset.zone),
      markers: [...p.querySelectorAll(".marker")].map((m) => m.textContent) };
  const links = [...document.querySelectorAll(".map svg.links line")].map((l) => {
    const box = l.ownerSVGElement.getBoundingClientRect();
    return [l.dataset.link, [box.left + Number(l.getAttribute("x1")), box.top + Number(l.getAttribute("y1"))],
      [box.left + Number(l.getAttribute("x2")), box.top + Number(l.getAttribute("y2"))]];
  });
  return { places, links };
}"""


def test_a_laid_out_board_is_drawn_as_a_map(browser: Browser, tmp_path: Path) -> None:
    """A `layout` places each value of an enumeration at its column and row: the page draws each place there,
    with the zones keyed by it and a marker for each variable naming it, and the links as lines between them."""
    rules = tmp_path / "mapped.rules"
    rules.write_text(MAPPED, encoding="utf-8")
    record = tmp_path / "mapped.json"
    assert main(["play", str(rules), "--seed", "1", "--agents", "random", "--record", str(record)]) == 0
    tab = open_page(browser, write_page(record, tmp_path))
    tab.keyboard.press("End")
    shown = tab.evaluate(MAP)
    places = shown["places"]
    assert sorted(places) == ["a", "b", "c", "d"]
    (ax, ay), (bx, by), (cx, cy), (dx, dy) = (places[n]["at"] for n in "abcd")
    assert (
        ax < bx
        and abs(ay - by) < 1
        and abs(bx - cx) < 1
        and cy > by
        and dx < cx
        and abs(dx - ax) < 1
        and abs(dy - cy) < 1
    )
    assert places["b"]["zones"] == ["pile[b]"] and places["a"]["zones"] == []
    went = state_at(record, 1)["vars"]["at[P1]"]
    assert [n for n, p in places.items() if p["markers"] == ["P1"]] == [went]
    assert dict(tab.evaluate(SHOWN_ZONES)) == state_at(record, 1)["zones"]
    assert sorted(name for name, _, _ in shown["links"]) == ["a-b", "b-c", "c-d"]
    for name, start, end in shown["links"]:
        for end_point, place in ((start, name[0]), (end, name[2])):
            assert all(abs(u - v) < 1.5 for u, v in zip(end_point, places[place]["at"], strict=True)), name
    tab.close()


def test_valdoras_map_is_drawn_with_its_roads(records: dict[str, Path], browser: Browser, tmp_path: Path) -> None:
    """Valdora lays out its spaces: the page draws its 30 spaces and its 37 roads."""
    tab = open_page(browser, write_page(records["valdora_table"], tmp_path))
    shown = tab.evaluate(MAP)
    assert len(shown["places"]) == 30 and len(shown["links"]) == 37
    tab.close()


DOC_IMAGES = ROOT / "docs" / "images"
# The screenshots docs/VIEWER.md shows: each bundled game at its first step, midway and at its last, at
# 1400x1000. Guildhall is a three-player game of greedy agents; the other two are their table records.
DOC_SHOTS = {
    "guildhall": ["play", "guildhall", "--players", "3", "--seed", "1", "--agents", "greedy"],
    "renaissance-man": "renaissance_man_table",
    "valdora": "valdora_table",
}


@pytest.mark.parametrize("game", DOC_SHOTS)
def test_the_docs_screenshots_are_taken_of_each_game_at_three_steps(
    game: str, records: dict[str, Path], browser: Browser, tmp_path: Path
) -> None:
    """Writes docs/images/viewer-GAME-{first,middle,last}.png from the page in Chromium, each a small PNG."""
    how = DOC_SHOTS[game]
    if isinstance(how, list):
        record = tmp_path / f"{game}.json"
        assert main([*how, "--record", str(record)]) == 0
    else:
        record = records[how]
    last = len(read_record(record).answers)
    # The page at 1400x1000, drawn at 0.6 of its size: a PNG of text drawn full size is too large for the docs.
    tab = browser.new_page(viewport={"width": 1400, "height": 1000}, device_scale_factor=0.6)
    tab.goto(write_page(record, tmp_path).as_uri())
    for name, step in (("first", 0), ("middle", last // 2), ("last", last)):
        tab.fill("#jump", str(step))
        tab.press("#jump", "Enter")
        assert step_shown(tab) == step
        path = DOC_IMAGES / f"viewer-{game}-{name}.png"
        png = tab.screenshot(type="png")
        assert png.startswith(b"\x89PNG") and len(png) < 200_000, (path, len(png))
        if not path.exists() or path.read_bytes() != png:
            path.write_bytes(png)
    tab.close()
    if game == "guildhall":  # and the middle step as P2 sees it
        tab = browser.new_page(viewport={"width": 1400, "height": 1000}, device_scale_factor=0.6)
        tab.goto(write_page(record, tmp_path, "P2").as_uri() + f"#step={last // 2}")
        path, png = DOC_IMAGES / "viewer-guildhall-as-p2.png", tab.screenshot(type="png")
        assert len(png) < 200_000, (path, len(png))
        if path.read_bytes() != png:
            path.write_bytes(png)
        tab.close()


def test_the_slider_moves_to_a_step_and_the_changed_zones_are_marked(
    records: dict[str, Path], browser: Browser, tmp_path: Path
) -> None:
    """Moving the slider shows that step; the zones whose cards changed since the step before are marked."""
    record = records["tutorial_table"]
    tab = open_page(browser, write_page(record, tmp_path))
    step = 13  # P1 stocks the 5 of swords: it leaves P1's hand for P1's stall
    tab.fill("#slider", str(step))
    assert step_shown(tab) == step
    before, after = state_at(record, step - 1)["zones"], state_at(record, step)["zones"]
    changed = sorted(k for k in after if before.get(k) != after[k])
    assert changed and len(changed) < len(after)
    assert sorted(tab.eval_on_selector_all(".zone.changed", "zs => zs.map(z => z.dataset.zone)")) == changed
    tab.close()


def test_the_decision_shows_its_options_the_answer_and_who_chose(
    records: dict[str, Path], browser: Browser, tmp_path: Path
) -> None:
    """Step N shows the decision answered at step N: who answered, every option, the recorded answer marked."""
    record = records["tutorial_table"]
    answer = read_record(record).answers[8]  # step 9
    game = replay(read_record(record), until=8, base=record.parent)
    tab = open_page(browser, write_page(record, tmp_path))
    tab.fill("#jump", "9")
    tab.press("#jump", "Enter")
    assert tab.inner_text("#decision .who") == answer.by
    assert tab.eval_on_selector_all("#decision .options li", "ls => ls.map(l => l.textContent)") == game.legal_answers()
    assert tab.inner_text("#decision .options li.chosen") == answer.answer
    tab.close()


def test_a_trace_line_links_to_the_rulebook_line_that_caused_it(
    records: dict[str, Path], browser: Browser, tmp_path: Path
) -> None:
    """Clicking a trace line's place highlights that line of the rulebook, in the included file too."""
    record = records["jester"]
    tab = open_page(browser, write_page(record, tmp_path))
    files = tab.eval_on_selector_all("#tabs button", "bs => bs.map(b => b.textContent)")
    assert sorted(files) == ["tutorial.rules", "tutorial_jester.rules"]
    sources = {name: (ROOT / "examples" / ("extensions" if "jester" in name else "") / name) for name in files}
    seen = set()
    for step in range(1, len(read_record(record).answers) + 1):
        # The events of this step, with the spans the runtime gave them: the truth the links must match.
        events = replay(read_record(record), until=step, base=record.parent).events
        events = events[len(replay(read_record(record), until=step - 1, base=record.parent).events) :]
        moves = [e for e in events if e.verb in ("set", "move") and Path(e.span.file).name not in seen]
        if not moves:
            continue
        event = moves[0]
        file = Path(event.span.file).name
        tab.fill("#jump", str(step))
        tab.press("#jump", "Enter")
        item = tab.locator("#trace li", has_text=event.text).first
        item.locator("a.src").click()
        highlighted = tab.locator(".line.hl")
        assert highlighted.count() == 1
        assert highlighted.get_attribute("id") == f"L{files.index(file)}-{event.span.line}"
        assert tab.inner_text("#tabs button.on") == file
        line = sources[file].read_text(encoding="utf-8").splitlines()[event.span.line - 1]
        assert highlighted.evaluate("l => l.childNodes[1].textContent") == line
        seen.add(file)
        if len(seen) == 2:
            break
    assert seen == {"tutorial.rules", "tutorial_jester.rules"}
    tab.close()


def test_as_p2_the_page_shows_p2s_hand_and_only_counts_of_the_others(
    records: dict[str, Path], browser: Browser, tmp_path: Path
) -> None:
    """With --as P2, each step shows P2's view: P2's hand by label, P1's hand as a count."""
    record = records["guildhall"]
    tab = open_page(browser, write_page(record, tmp_path, "P2"))
    assert "as P2" in tab.inner_text("h1")
    tab.fill("#jump", "40")
    tab.press("#jump", "Enter")
    shown = dict(tab.evaluate(SHOWN_ZONES))
    assert shown == state_at(record, 40, "P2")["zones"]
    assert set(shown["hand[P1]"]) == {"count"}
    assert isinstance(shown["hand[P2]"], list) and shown["hand[P2]"]
    tab.close()


# Zones and variables named as the properties every JavaScript object has: the page keeps them all.
PROTO_NAMES = """game Protos players 2..2
card Chip { n: int } label "{n}"
zone __proto__: Chip public
zone constructor: Chip public
zone toString[Player]: Chip public
var valueOf: int = 0 public
var hasOwnProperty[Player]: int = 0 public
fn score(p: Player) = hasOwnProperty[p]
setup {
  create 1 Chip { n: 1 } in __proto__  create 1 Chip { n: 3 } in __proto__
  create 1 Chip { n: 2 } in constructor  create 1 Chip { n: 4 } in constructor
}
play {
  let c = choose one from __proto__ by players[0] prompt "Take"
  move c to toString[players[0]]
  set valueOf = 3
  set hasOwnProperty[players[1]] = 4
  let d = choose one from constructor by players[1] prompt "Take"
  move d to __proto__
}
"""


def test_zones_and_variables_named_like_javascripts_own_properties_are_shown(browser: Browser, tmp_path: Path) -> None:
    """A zone named `__proto__` or `constructor`, a variable named `hasOwnProperty`: each step of the page shows
    every zone and variable replay reaches, each in its owner's area (the page keys them by Map, not by object)."""
    rules = tmp_path / "protos.rules"
    rules.write_text(PROTO_NAMES, encoding="utf-8")
    record = tmp_path / "protos.json"
    assert main(["play", str(rules), "--seed", "1", "--agents", "random", "--record", str(record)]) == 0
    tab = open_page(browser, write_page(record, tmp_path))
    areas = (
        "() => [...document.querySelectorAll('.area')].map((a) => [a.dataset.owner, a.querySelector('h3').textContent])"
    )
    for step in range(len(read_record(record).answers) + 1):
        tab.fill("#jump", str(step))
        tab.press("#jump", "Enter")
        expected = state_at(record, step)
        assert "__proto__" in expected["zones"] and "constructor" in expected["zones"]
        assert dict(tab.evaluate(SHOWN_ZONES)) == expected["zones"]
        assert dict(tab.evaluate(SHOWN_VARS)) == {k: str(v) for k, v in expected["vars"].items()}
        owners = {owner: heading.split("score")[0] for owner, heading in tab.evaluate(areas)}
        assert owners == {"": "Table", "P1": "P1", "P2": "P2"}
        if step:
            before = state_at(record, step - 1)["zones"]
            changed = sorted(k for k in expected["zones"] if before.get(k) != expected["zones"][k])
            assert sorted(tab.eval_on_selector_all(".zone.changed", "zs => zs.map(z => z.dataset.zone)")) == changed
    assert len(read_record(record).answers) == 2 and "__proto__" in changed
    tab.close()


def test_as_p1_the_page_shows_beside_p2s_count_the_card_revealed_to_p1(browser: Browser, tmp_path: Path) -> None:
    """In Peek, P1 looks at P2's card (a 1): P1's page shows it in P2's hand; P3's page shows only the count."""
    game = rulecraft.load(ROOT / "examples" / "games" / "peek.rules").new_game(players=3, seed=1)
    for answer in ("P2", "Look"):
        game.apply(answer)
    record = tmp_path / "peek.json"
    write_record(record_of(game, rulebook_file=str(ROOT / "examples" / "games" / "peek.rules")), record)
    revealed = (
        "() => [...document.querySelectorAll('.zone[data-zone=\"hand[P2]\"] .card.shown')].map((c) => c.textContent)"
    )
    for viewer, expected in (("P1", ["1"]), ("P3", [])):
        tab = open_page(browser, write_page(record, tmp_path, viewer))
        tab.keyboard.press("End")
        assert tab.evaluate(revealed) == expected
        assert "1 card (hidden)" in tab.inner_text('.zone[data-zone="hand[P2]"]')
        tab.close()


# ---------------------------------------------------------------------------- the page's data


def labels_p2_never_sees(record: Path) -> tuple[set[str], rulecraft.Game]:
    """The labels of cards that P2 sees nowhere in the whole game: no view, trace line, own decision or result shows them."""
    seen: list[str] = []
    p2 = Player(1)

    def look(game: rulecraft.Game, decision: Any, answer: Any) -> None:
        seen.append(json.dumps(game.view(p2), ensure_ascii=False))
        if decision.by == "P2":
            seen.extend(decision.labels)

    game = replay(read_record(record), base=record.parent, on_step=look)
    seen.append(json.dumps(game.view(p2), ensure_ascii=False))
    seen.extend(trace_lines(game, viewer=p2))
    if game.over:
        seen.extend(result_lines(game))
    visible = "\n".join(seen)
    labels = {game.label(CardRef(i)) for i in range(len(game.state.cards))}
    return {label for label in labels if label not in visible}, game


# A whole game shows P2 most cards in the end, so the first quarter of a game is searched too.
# (In Valdora every card is dealt face up onto a pile before anyone takes it: P2 sees every label,
# and the test after this one covers it, step by step.)
@pytest.mark.parametrize(
    "name", ["guildhall", "guildhall_early", "guildhall_table", "renaissance_man_table", "tutorial_table"]
)
def test_as_p2_the_file_holds_no_card_hidden_from_p2(name: str, records: dict[str, Path]) -> None:
    """No label of a card P2 never sees is anywhere in P2's file, but in the rulebook's source (which is public)."""
    record = records[name]
    hidden, game = labels_p2_never_sees(record)
    assert hidden, "a game where P2 sees every card tests nothing here"
    text = page(build(read_record(record), viewer=Player(1), base=record.parent))
    for source in game.program.sources.values():
        text = text.replace(json.dumps(source, ensure_ascii=False)[1:-1].replace("<", "\\u003c"), "")
    assert [label for label in sorted(hidden) if json.dumps(label, ensure_ascii=False)[1:-1] in text] == []
    # The full page has them: the search above would find them.
    full = page(build(read_record(record), base=record.parent))
    assert any(json.dumps(label, ensure_ascii=False)[1:-1] in full for label in hidden)


def states(data: dict[str, Any]) -> list[dict[str, Any]]:
    """Each step's zones and variables, rebuilt from what changed, as the page's script rebuilds them."""
    zones: dict[str, Any] = {}
    vars_: dict[str, Any] = {}
    out = []
    for step in data["steps"]:
        zones = {k: v for k, v in {**zones, **step["zones"]}.items() if k not in step.get("zones_gone", [])}
        vars_ = {k: v for k, v in {**vars_, **step["vars"]}.items() if k not in step.get("vars_gone", [])}
        out.append({"zones": zones, "vars": vars_})
    return out


def p2_steps(record: Path) -> list[dict[str, Any]]:
    """P2's view after each step as P2 counts steps: another player's run of a `secret` block is one step."""
    views: list[dict[str, Any]] = []
    runs: list[Any] = [None]  # the secret run of the step before, when P2 did not see it

    def look(game: rulecraft.Game, decision: Any, answer: Any) -> None:
        unseen = game.secret_run if game.secret_run is not None and decision.by != "P2" else None
        if unseen is None or unseen != runs[-1]:
            views.append(game.view("P2"))
        runs.append(unseen)

    game = replay(read_record(record), base=record.parent, on_step=look)
    return [*views, game.view("P2")]


@pytest.mark.parametrize("name", ["guildhall", *(p.stem for p in TABLE_RECORDS)])
def test_as_p2_every_step_is_p2s_view_of_that_step(name: str, records: dict[str, Path]) -> None:
    """Each step of P2's page holds P2's view of the game then, and no option or answer of another player."""
    record = records[name]
    data = page_data(page(build(read_record(record), viewer=Player(1), base=record.parent)))  # as the file holds it
    assert states(data) == [{"zones": v["zones"], "vars": v["vars"]} for v in p2_steps(record)]
    for step in data["steps"][1:]:
        decision = step["decision"]
        if decision["by"] != "P2":
            assert "options" not in decision
        if decision["by"] not in ("P2", "table") and "chosen" in decision:
            # Only a public choice (a menu's label, a target, a public card): P2's trace shows it too.
            shown = f"{decision['by']} {decision['chosen']}  [{decision['prompt']}]"
            assert any(text == shown for verb, text, _ in step["trace"] if verb == "choose"), decision


def test_as_p2_another_players_secret_run_is_one_step(records: dict[str, Path]) -> None:
    """Another player's steps in a `secret` block are one step for P2, with neither prompt nor answer; P2's own are all there."""
    record = records["renaissance_man_table"]
    full = build(read_record(record), base=record.parent)
    mine = build(read_record(record), viewer=Player(1), base=record.parent)
    secret = [s["decision"] for s in mine["steps"][1:] if s["decision"].get("secret")]
    assert secret and all(d == {"by": "P1", "secret": True} for d in secret)
    assert len(mine["steps"]) < len(full["steps"])
    own = [s["decision"]["chosen"] for s in mine["steps"][1:] if s["decision"]["by"] == "P2"]
    assert own == [a.answer for a in read_record(record).answers if a.by == "P2"]
    # The fold of a secret run is exactly what P2's trace shows of it.
    lines = [text for step in mine["steps"] for _, text, _ in step["trace"]]
    assert "P1 [a secret choice]" in lines


def test_scores_that_read_a_hidden_zone_are_only_the_players_own(records: dict[str, Path]) -> None:
    """A score that reads an `owner` zone (Valdora's fulfilled commissions) shows P2 only P2's own; the full page shows all."""
    record = records["valdora_table"]
    steps = build(read_record(record), viewer=Player(1), base=record.parent)["steps"]
    assert all(step["scores"][0] is None and step["scores"][2] is None for step in steps)
    assert all(step["scores"][1] is not None for step in steps)
    full = build(read_record(record), base=record.parent)["steps"]
    assert all(None not in step["scores"] for step in full)


def test_view_writes_the_page_beside_the_record(
    records: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Without -o the page is the record's name with .html; the file needs nothing else (no link, no script from elsewhere)."""
    record = tmp_path / "r.json"
    record.write_text(
        records["tutorial_table"].read_text().replace('"../tutorial.rules"', f'"{ROOT}/examples/tutorial.rules"')
    )
    assert main(["view", str(record)]) == 0
    assert capsys.readouterr().out == f"{tmp_path / 'r.html'}: 36 steps\n"
    html = (tmp_path / "r.html").read_text()
    assert not re.search(r"""(src|href)=["'](?!#)""", html)
    assert "http://" not in html.replace("http://www.w3.org/2000/svg", "") and "https://" not in html


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--as", "P3"], "--as P3: there is no P3 in a game of 2"),
        (["--as", "X"], "--as X: 'X' is not a seat: seats are P1, P2, ..."),
    ],
)
def test_view_refuses_a_seat_the_game_does_not_have(
    args: list[str], message: str, records: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A seat that is not in the game is a located message and exit 1, and no file is written."""
    assert main(["view", str(records["tutorial_table"]), "-o", str(tmp_path / "p.html"), *args]) == 1
    assert capsys.readouterr().err.strip() == message
    assert not (tmp_path / "p.html").exists()


def test_view_of_a_damaged_record_names_the_step(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A record that the rules refuse is refused as replay refuses it: the file and the step."""
    text = TABLE_RECORDS[-1].read_text()
    record = tmp_path / "r.json"
    record.write_text(text.replace('"answer": "gold"', '"answer": "nothing"', 1))
    assert main(["view", str(record)]) == 1
    assert capsys.readouterr().err.startswith(f"{record}: step 1: the table drew 'nothing' from bag")


def test_the_docs_show_each_bundled_game_in_the_viewer() -> None:
    """docs/VIEWER.md shows a screenshot of each bundled game's page, each a small PNG."""
    doc = (ROOT / "docs" / "VIEWER.md").read_text(encoding="utf-8")
    images = re.findall(r"!\[[^]]*\]\((images/[^)]+\.png)\)", doc)
    for name in rulecraft.bundled_names():
        assert any(name.replace("_", "-") in image for image in images), name
    for image in images:
        png = (ROOT / "docs" / image).read_bytes()
        assert png.startswith(b"\x89PNG") and len(png) < 200_000, image


SCORED = """game S players 2..2
card Chip { value: int } label "chip {value}"
zone pile[Player]: Chip public
zone stash[Player]: Chip owner
zone bag: Chip hidden
var bank[Player]: int = 0 public
var secret_bank[Player]: int = 0 owner
var held: any = none public
play { end game winners [] }
"""


@pytest.mark.parametrize(
    ("score", "shown"),
    [
        ("len(pile[p]) + bank[p]", (True, True)),  # public only: every score, every step
        ("bank[p] + secret_bank[p]", (False, True)),  # an owner variable: one's own score
        ("len(stash[p])", (False, True)),  # an owner zone, the same
        ("total(p)", (False, True)),  # read through another function
        ("len(bag)", (False, False)),  # a hidden zone: no score before the end
        ("len(held)", (False, False)),  # a zone held in a variable may be any zone
    ],
)
def test_which_scores_a_player_sees_follows_what_score_reads(score: str, shown: tuple[bool, bool]) -> None:
    """Every score shows when `score` reads only public zones and variables; one's own also through `owner` ones."""
    rulebook = rulecraft.load_text(
        SCORED + f"fn total(p: Player) = len(stash[p])\nfn score(p: Player) = {score}\n", "s.rules"
    )
    assert score_visibility(rulebook.program) == shown


def test_view_replaces_only_a_page_of_view_without_force(
    records: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`view -o FILE` leaves a file that is not a page of view (a rulebook, notes) as it is, exit 2 with one
    line; --force replaces it. A page of view is replaced (view again), atomically: no file is left beside it."""
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes\n")
    record = str(records["tutorial_table"])
    assert main(["view", record, "-o", str(notes)]) == 2
    assert capsys.readouterr().err == (
        f"rulecraft view: error: -o {clip(str(notes))}: the file is there already and is not a page of rulecraft view; "
        "it is left as it is (give --force to replace it)\n"
    )
    assert notes.read_text() == "my notes\n"
    page = tmp_path / "p.html"
    assert main(["view", record, "-o", str(page)]) == 0
    assert main(["view", record, "-o", str(page), "--as", "P2"]) == 0  # a page of view: replaced
    assert '"as":"P2"' in page.read_text()
    assert main(["view", record, "-o", str(notes), "--force"]) == 0
    assert notes.read_text().startswith("<!doctype html>")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt", "p.html"]


def test_view_never_writes_through_a_symlink(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`<record>.html` (or -o) that is a symlink is refused without --force, and with it the link itself is
    replaced: the file it leads to is never written."""
    record = tmp_path / "r.json"
    record.write_text(TABLE_RECORDS[-1].read_text())  # a bundled game's record: it names no file
    victim = tmp_path / "victim.rules"
    victim.write_text("game Mine players 1..1\n")
    (tmp_path / "r.html").symlink_to(victim)
    assert main(["view", str(record)]) == 2
    assert "is a symbolic link (the page is never written through one)" in capsys.readouterr().err
    assert main(["view", str(record), "--force"]) == 0
    assert victim.read_text() == "game Mine players 1..1\n"
    assert not (tmp_path / "r.html").is_symlink() and (tmp_path / "r.html").read_text().startswith("<!doctype")
