"""`rulecraft serve`: a real server process on loopback, spoken to over HTTP and WebSockets.

Without the `[serve]` extra the module is skipped, except in CI (`RULECRAFT_EXTRAS_REQUIRED`),
which installs it and must run it. The browser's tests are in test_serve_browser.py.
"""

from __future__ import annotations

import importlib
import json
import os
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from rulecraft.cli import main
from rulecraft.inputs import clip
from rulecraft.language.values import Player
from rulecraft.records import read_record, replay
from rulecraft.render import trace_lines

from tests.serving import Served, get, serve, ws_url


def needs(module: str) -> ModuleType:
    """An optional dependency: skipped where it is not installed, required where CI installed it."""
    if os.environ.get("RULECRAFT_EXTRAS_REQUIRED"):
        return importlib.import_module(module)
    return pytest.importorskip(module)


needs("starlette")
needs("uvicorn")
needs("websockets")
from websockets.exceptions import InvalidStatus  # noqa: E402
from websockets.sync.client import ClientConnection, connect  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
TUTORIAL = ROOT / "examples" / "tutorial.rules"


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Served]:
    rules = tmp_path / "rules"
    rules.mkdir()
    (rules / "tutorial.rules").write_text(TUTORIAL.read_text())
    served = serve(tmp_path / "data", "--rulebooks", str(rules))
    yield served
    served.stop()


class Seat:
    """A seat's WebSocket: every frame it receives is kept (`frames`), the latest decision read from them."""

    def __init__(self, link: str):
        self.ws: ClientConnection = connect(ws_url(link), max_size=None, open_timeout=20).__enter__()
        self.frames: list[str] = []
        self.hello = self.receive()
        self.decision: dict[str, Any] | None = self.hello["decision"]
        self.end: dict[str, Any] = self.hello["end"]

    def receive(self, timeout: float = 30) -> dict[str, Any]:
        text = self.ws.recv(timeout=timeout)
        assert isinstance(text, str)
        self.frames.append(text)
        msg: dict[str, Any] = json.loads(text)
        if msg["type"] != "error":
            self.decision, self.end = msg["decision"], msg["end"]
        return msg

    def owes(self) -> bool:
        return self.decision is not None and "options" in self.decision

    def answer(self, labels: list[str], turn: int | None = None) -> None:
        assert self.decision is not None
        self.ws.send(json.dumps({"answer": labels, "turn": self.decision["turn"] if turn is None else turn}))

    def close(self) -> None:
        self.ws.close()


def play_out(seats: list[Seat], limit: int = 400) -> None:
    """Each seat answers its own decisions with their first option until the game is over."""
    for _ in range(limit):
        drain(seats)
        if all(s.end.get("result") for s in seats):
            return
        seat = next(s for s in seats if s.owes())
        assert seat.decision is not None
        seat.answer([seat.decision["options"][0]])
        msg = seat.receive()
        assert msg["type"] == "update", msg
    raise AssertionError("the game did not end")


def drain(seats: list[Seat]) -> None:
    """Read the seats' messages until the game waits on a person (the agents have played) or is over."""
    for _ in range(2000):
        got = False
        for s in seats:
            try:
                s.receive(timeout=0.02)
                got = True
            except TimeoutError:
                pass
        if not got and (any(s.owes() for s in seats) or all(s.end.get("result") for s in seats)):
            return
    raise AssertionError("the game waits on nobody")


def test_each_link_opens_its_own_seat_and_a_wrong_or_missing_secret_gets_403_and_nothing_else(server: Served) -> None:
    """A seat's link opens that seat (its own decision, its own view); another secret, none, or the
    lobby's with a wrong secret gets 403 with an empty body, on the page, the record and the socket."""
    game = server.start_game("tutorial.rules", ["human", "human"])
    p1, p2 = Seat(game["links"][0]), Seat(game["links"][1])
    assert p1.hello["as"] == "P1" and p2.hello["as"] == "P2"
    assert p1.owes() and not p2.owes() and p2.decision == {"by": "P1"}
    spectator = Seat(game["spectator"])
    assert spectator.hello["as"] is None and not spectator.owes()
    for s in (p1, p2, spectator):
        s.close()
    status, body = get(game["links"][0])
    assert status == 200 and b"table.js" in body
    base, gid, secret = server.base, game["id"], game["links"][0].rsplit("/", 1)[1]
    wrong = [
        f"{base}/game/{gid}/{secret[:-1]}x",
        f"{base}/game/{gid}/",
        f"{base}/game/{gid}",
        f"{base}/game/nosuchgame/{secret}",
        f"{base}/game/{gid}/{secret[:-1]}x/record",
        f"{base}/host/{secret}",
        f"{base}/host/{secret}/games",
        f"{base}/host",
    ]
    for url in wrong:
        assert get(url) == (403, b""), url
    for url in (f"{base}/game/{gid}/{secret[:-1]}x", f"{base}/game/nosuchgame/{secret}"):
        with pytest.raises(InvalidStatus) as refused:
            connect(ws_url(url), open_timeout=20)
        assert refused.value.response.status_code == 403
        assert refused.value.response.body in (b"", None)


def test_an_answer_is_taken_only_from_the_seat_that_owes_it(server: Served) -> None:
    """P2's answer to P1's decision, the spectator's, an old turn's and a label not offered are refused
    with one line that names no card; P1's own answer is taken, and both seats hear of it."""
    game = server.start_game("tutorial.rules", ["human", "human"])
    p1, p2, spectator = Seat(game["links"][0]), Seat(game["links"][1]), Seat(game["spectator"])
    assert p1.decision is not None
    label, turn = p1.decision["options"][0], p1.decision["turn"]
    p2.answer([label], turn)
    assert p2.receive() == {"type": "error", "text": "it is not your turn: the game waits on P1"}
    spectator.answer([label], turn)
    assert spectator.receive() == {"type": "error", "text": "a spectator does not answer"}
    p1.answer(["no such answer"], turn)
    assert p1.receive() == {"type": "error", "text": "that is not an answer to the decision shown now"}
    p1.answer([label], turn - 1)
    assert p1.receive()["text"] == "the game has moved on since: answer the decision shown now"
    p1.ws.send("{not json")
    assert p1.receive()["type"] == "error"
    p1.answer([label], turn)
    moved = p1.receive()
    assert moved["type"] == "update" and moved["from"] == p1.hello["count"] and moved["steps"]
    assert p2.receive()["type"] == "update"
    record = read_record(Path(server.data) / "records" / f"{game['id']}.json")
    assert record.answers[-1].answer == label and record.answers[-1].by == "P1"
    for s in (p1, p2, spectator):
        s.close()


def test_a_choice_of_several_is_answered_as_picks_then_done_in_one_message(server: Served) -> None:
    """A `choose any` (an option `done`) offered as picks: one message with the picks and `done` answers it."""
    game = server.start_game("guildhall", ["human", "random"])
    p1 = Seat(game["links"][0])
    assert p1.decision is not None and p1.decision["pick"], p1.decision
    first, second = p1.decision["options"][:2]
    before = len(read_record(Path(server.data) / "records" / f"{game['id']}.json").answers)
    p1.answer([first, second, "done"])
    assert p1.receive()["type"] == "update"
    answers = read_record(Path(server.data) / "records" / f"{game['id']}.json").answers
    assert [a.answer for a in answers[before : before + 3]] == [first, second, "done"]
    p1.close()


MENU = """game Menu players 1..2

var n: int = 0 public

play {
  choose by players[0] prompt "More or done?" {
    option "more" { set n = n + 1 }
    option "done" { }
  }
  let w = choose one from ["done", "again"] by players[0] prompt "Which word?"
  end game
}
"""


def test_only_a_choice_of_several_is_offered_as_picks(tmp_path: Path) -> None:
    """A menu with an option "done", or a choice of one among values that read "done", is answered
    with one click: were they offered as picks, the page's "confirm" would send a second answer,
    "done", to the decision after."""
    rules = tmp_path / "rules"
    rules.mkdir()
    (rules / "menu.rules").write_text(MENU)
    served = serve(tmp_path / "data", "--rulebooks", str(rules))
    try:
        game = served.start_game("menu.rules", ["human"])
        p1 = Seat(game["links"][0])
        assert p1.decision is not None and p1.decision["options"] == ["more", "done"]
        assert not p1.decision["pick"]
        p1.answer(["more"])
        assert p1.receive()["type"] == "update"
        assert p1.decision is not None and p1.decision["options"] == ["done", "again"]
        assert not p1.decision["pick"]
        p1.close()
    finally:
        served.stop()


def secret_labels(record_path: Path, owner: str, other: str) -> set[str]:
    """The labels of the cards that were in `owner`'s hand and that `other` never saw (in a view or its trace)."""
    record = read_record(record_path)
    held: set[str] = set()
    seen: set[str] = set()
    for n in range(len(record.answers) + 1):
        game = replay(record, until=n, base=record_path.parent)
        held.update(game.view(None)["zones"].get(f"hand[{owner}]", []))
        for value in game.view(other)["zones"].values():
            seen.update(value if isinstance(value, list) else [value.get("top")])
    game = replay(record, base=record_path.parent)
    text = "\n".join(trace_lines(game, viewer=Player(int(other[1:]) - 1)))
    return {label for label in held - seen if label not in text}


def test_another_seats_secret_steps_are_not_counted_by_the_frames(server: Served) -> None:
    """P1 answers a `secret` block in one step or in two: P2 receives the very same frames either way."""
    from tests.test_secret import SECRET

    (Path(server.data).parent / "rules" / "s.rules").write_text(SECRET)
    received = []
    for answers in (["Red"], ["Other", "blue"]):
        game = server.start_game("s.rules", ["human", "human"])
        p1, p2 = Seat(game["links"][0]), Seat(game["links"][1])
        for label in answers:
            p1.answer([label])
            p1.receive()
        drain([p1, p2])
        assert p2.owes()
        received.append(p2.frames)
        p1.close()
        p2.close()
    for a, b in zip(*received, strict=False):
        assert a == b
    assert len(received[0]) == len(received[1])


def test_no_frame_to_a_seat_names_a_card_it_may_not_see(server: Served) -> None:
    """A whole game of two people: no frame P2 received (errors included) names a card of P1's hand
    that P2 was never shown, and the same the other way round; the spectator sees neither hand."""
    game = server.start_game("tutorial.rules", ["human", "human"])
    p1, p2, spectator = Seat(game["links"][0]), Seat(game["links"][1]), Seat(game["spectator"])
    assert p1.decision is not None
    p2.answer([p1.decision["options"][0]], p1.decision["turn"])  # an error, in the frames checked too
    assert p2.receive()["type"] == "error"
    play_out([p1, p2, spectator])
    path = Path(server.data) / "records" / f"{game['id']}.json"
    hidden_from_p2 = secret_labels(path, "P1", "P2")
    hidden_from_p1 = secret_labels(path, "P2", "P1")
    assert hidden_from_p2 and hidden_from_p1  # (the test means something: the last hands are never shown)
    for frame in p2.frames:
        assert not [label for label in hidden_from_p2 if label in frame], frame
    for frame in p1.frames:
        assert not [label for label in hidden_from_p1 if label in frame], frame
    for frame in spectator.frames:
        assert not [label for label in hidden_from_p1 | hidden_from_p2 if label in frame], frame
    assert p1.end["result"] == p2.end["result"]
    status, body = get(game["links"][1] + "/record")
    assert status == 200 and json.loads(body)["result"] is not None
    # The record is one as `play --record` writes: replay and view read it.
    assert main(["replay", str(path), "--quiet"]) == 0
    assert main(["view", str(path), "-o", str(path.with_suffix(".html"))]) == 0
    for s in (p1, p2, spectator):
        s.close()


def test_kill_9_and_restart_loses_nothing(tmp_path: Path) -> None:
    """A server killed (SIGKILL) mid-game and started again on the same --data: every game is at the
    decision it was at, shows the same state, and every link (seats, spectator) still works."""
    rules = tmp_path / "rules"
    rules.mkdir()
    (rules / "tutorial.rules").write_text(TUTORIAL.read_text())
    served = serve(tmp_path / "data", "--rulebooks", str(rules))
    try:
        mixed = served.start_game("guildhall", ["human", "greedy"])
        people = served.start_game("tutorial.rules", ["human", "human", "random"])
        seats = [Seat(mixed["links"][0]), Seat(people["links"][0]), Seat(people["links"][1])]
        for _ in range(4):
            for s in seats:
                if s.owes():
                    assert s.decision is not None
                    s.answer([s.decision["options"][0]])
                    s.receive()
                    drain(seats)
        firsts = [Seat(link).hello for link in (mixed["links"][0], people["links"][0], people["links"][1])]
        spectators = [Seat(g["spectator"]).hello for g in (mixed, people)]
    finally:
        served.kill()
    again = serve(tmp_path / "data", "--rulebooks", str(rules))
    for game in (mixed, people):  # (the same links, on the port the new server listens on)
        game["links"] = [link.replace(served.base, again.base) for link in game["links"]]
        game["spectator"] = game["spectator"].replace(served.base, again.base)
    try:
        after = [Seat(link).hello for link in (mixed["links"][0], people["links"][0], people["links"][1])]
        assert [a["decision"] for a in after] == [f["decision"] for f in firsts]
        assert [(a["state"], a["count"], a["open"], a["scores"]) for a in after] == [
            (f["state"], f["count"], f["open"], f["scores"]) for f in firsts
        ]
        assert [Seat(g["spectator"]).hello["state"] for g in (mixed, people)] == [s["state"] for s in spectators]
        p1 = Seat(people["links"][0])
        if p1.owes():  # the game goes on from there
            assert p1.decision is not None
            p1.answer([p1.decision["options"][0]])
            assert p1.receive()["type"] == "update"
    finally:
        again.stop()


def test_without_the_extra_serve_says_what_to_install(monkeypatch: pytest.MonkeyPatch, capsys: Any) -> None:
    """Without Starlette (the serve extra) `rulecraft serve` says in one line what to install."""
    import sys

    monkeypatch.setitem(sys.modules, "starlette", None)
    monkeypatch.setitem(sys.modules, "starlette.applications", None)
    monkeypatch.delitem(sys.modules, "rulecraft.serve.app", raising=False)
    assert main(["serve", "--port", "0"]) == 1
    assert capsys.readouterr().err == (
        "rulecraft serve needs the serve extra (starlette.applications is missing): pip install 'rulecraft[serve]'\n"
    )


def test_the_load_benchmark_runs_small() -> None:
    """examples/benchmarks/serve_load.py plays a few bot games on its own server and reports its figures
    (the figures themselves are measured, never asserted: docs/SERVE.md)."""
    import subprocess
    import sys

    script = ROOT / "examples" / "benchmarks" / "serve_load.py"
    out = subprocess.run(
        [sys.executable, str(script), "--games", "2", "--seconds", "2", "--json"],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    figures = json.loads(out.stdout)
    assert figures["games"] == 2 and figures["answers"] > 0
    assert {"latency_p50_ms", "latency_p95_ms", "server_cpu_seconds", "kib_per_idle_game"} <= set(figures)


def test_a_bad_flag_or_an_unusable_folder_or_port_is_one_line(tmp_path: Path, capsys: Any) -> None:
    """A --rulebooks that is no folder, a --data that is a file, a port taken: one line each (a port out of
    range is a usage error, as every numeric flag's: test_cli.py)."""
    import socket

    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen(1)
    port = taken.getsockname()[1]
    (tmp_path / "file").write_text("not a folder")
    cases = [
        (["--rulebooks", str(tmp_path / "none")], f"--rulebooks {clip(str(tmp_path / 'none'))}: not a folder"),
        (
            ["--data", str(tmp_path / "file")],
            f"{clip(str(tmp_path / 'file'))}: cannot use it as the data folder: File exists",
        ),
        (
            ["--port", str(port), "--data", str(tmp_path / "data")],
            f"cannot listen on 127.0.0.1:{port}: Address already in use",
        ),
    ]
    try:
        for args, line in cases:
            assert main(["serve", *args]) == 1, args
            assert capsys.readouterr().err == line + "\n"
    finally:
        taken.close()
