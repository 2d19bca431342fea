"""`rulecraft serve` in a real browser: headless Chromium (Playwright) on a real server on loopback.

Skipped without the `[serve]` extra or without Chromium, except where CI requires them
(`RULECRAFT_EXTRAS_REQUIRED`, `RULECRAFT_BROWSER_REQUIRED`), as in test_viewer.py.
"""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Browser, Page

from tests.serving import Served, serve
from tests.test_serve import TUTORIAL, secret_labels

FIRST_VIEW_BYTES = 300_000


class Tab:
    """A seat's page in its own browser context: the frames its WebSocket received, its errors."""

    def __init__(self, browser: Browser, link: str):
        self.context = browser.new_context(viewport={"width": 1280, "height": 900})
        self.page: Page = self.context.new_page()
        self.frames: list[str] = []
        self.errors: list[str] = []
        self.page.on("pageerror", lambda exc: self.errors.append(str(exc)))
        self.page.on("websocket", lambda ws: ws.on("framereceived", lambda payload: self.frames.append(str(payload))))
        self.page.goto(link)
        self.page.wait_for_selector("body[data-live=yes]")

    def owes(self) -> bool:
        return bool(self.page.query_selector("#ask.mine"))

    def over(self) -> bool:
        return bool(self.page.query_selector("#record"))

    def answer(self, last: bool = False) -> None:
        """Click the first answer (or the last; a choice of several: confirm what is picked), and wait for the
        next decision."""
        turn = self.page.get_attribute("#ask", "data-turn")
        confirm = self.page.query_selector("#ask button.confirm")
        buttons = self.page.locator("#ask button.answer")
        (confirm or (buttons.last if last else buttons.first)).click()
        self.page.wait_for_function("(turn) => document.querySelector('#ask').dataset.turn !== turn", arg=turn)

    def close(self) -> None:
        self.context.close()


def rules_folder(tmp_path: Path) -> Path:
    rules = tmp_path / "rules"
    rules.mkdir()
    (rules / "tutorial.rules").write_text(TUTORIAL.read_text())
    return rules


def test_two_people_and_an_agent_play_a_whole_game_through_a_server_killed_midway(
    browser: Browser, tmp_path: Path
) -> None:
    """Three browser contexts (P1, P2, a spectator) and a random agent (P3) play the tutorial to its end.
    Midway the server is killed (-9) and started again on its port: the pages connect again by
    themselves and the game goes on where it was. P2's page (every DOM seen) and every frame P2 received
    never name a card of P1's hand that P2 was not shown; at the end each page offers the record."""
    rules = rules_folder(tmp_path)
    served: Served = serve(tmp_path / "data", "--rulebooks", str(rules))
    game = served.start_game("tutorial.rules", ["human", "human", "random"])
    port = served.base.rsplit(":", 1)[1]
    p1, p2, watcher = (Tab(browser, link) for link in (*game["links"][:2], game["spectator"]))
    doms: list[str] = []
    answered = 0
    try:
        for _ in range(300):
            if p1.over() and p2.over():
                break
            tab = p1 if p1.owes() else p2 if p2.owes() else None
            if tab is None:
                p1.page.wait_for_timeout(50)
                continue
            tab.answer(last=tab is p1)  # P1 passes (its hand stays hidden), P2 stocks its wares
            answered += 1
            doms.append(p2.page.content())
            if answered == 8:  # kill -9 mid-game; a new server on the same port and data
                served.kill()
                served = serve(tmp_path / "data", "--rulebooks", str(rules), "--port", port)
                for t in (p1, p2, watcher):
                    t.page.wait_for_selector("body[data-live=yes]", timeout=20_000)
        assert p1.over() and p2.over(), "the game did not end"
        watcher.page.wait_for_selector("#record")
        doms.append(p2.page.content())
        result = p1.page.inner_text("#ask")
        assert "winner" in result.lower() or "score" in result.lower(), result
        assert p2.page.inner_text("#ask") == result == watcher.page.inner_text("#ask")
        hidden = secret_labels(tmp_path / "data" / "records" / f"{game['id']}.json", "P1", "P2")
        assert hidden
        for text in [*doms, *p2.frames]:
            assert not [label for label in hidden if label in text]
        assert p1.errors == p2.errors == watcher.errors == []
    finally:
        for t in (p1, p2, watcher):
            t.close()
        served.stop()


def test_the_lobby_starts_a_game_of_each_bundled_rulebook(browser: Browser, tmp_path: Path) -> None:
    """The lobby's form starts a game of each bundled rulebook; its row holds a link per seat, and P1's
    link opens a table that draws the game and asks P1; a table's first view is under 300 KB."""
    served = serve(tmp_path / "data")
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    errors: list[str] = []
    try:
        lobby = context.new_page()
        lobby.on("pageerror", lambda exc: errors.append(str(exc)))
        lobby.goto(served.lobby)
        lobby.wait_for_selector("#rulebook option[value=valdora]", state="attached")
        for name in ("guildhall", "renaissance_man", "valdora"):
            lobby.select_option("#rulebook", name)
            lobby.click("#go")
            lobby.wait_for_function(
                "(n) => document.body.dataset.started && document.querySelector("
                "`tr[data-game='${document.body.dataset.started}']`)?.children[1].textContent === n",
                arg=name,
            )
            started = lobby.get_attribute("body", "data-started")
            link = lobby.get_attribute(f"tr[data-game='{started}'] a[data-seat=P1]", "href")
            assert link is not None
            table = context.new_page()
            table.on("pageerror", lambda exc: errors.append(str(exc)))
            frames: list[str] = []
            table.on("websocket", lambda ws, frames=frames: ws.on("framereceived", lambda p: frames.append(str(p))))
            table.goto(link)
            table.wait_for_selector("#areas .area")
            table.wait_for_selector("#ask.mine button.answer")
            assert table.inner_text("#title").endswith("as P1")
            assert len(frames[0].encode()) < FIRST_VIEW_BYTES, (name, len(frames[0].encode()))
            table.close()
        assert errors == []
    finally:
        context.close()
        served.stop()
