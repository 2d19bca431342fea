"""The server of `rulecraft serve`: Starlette routes and WebSockets on uvicorn.

    GET  /host/SECRET               the lobby (the host's secret: printed at start)
    GET  /host/SECRET/games         the games, their state and links (JSON); POST: start one
    GET  /game/ID/SECRET            a seat's (or the spectator's) table page
    WS   /game/ID/SECRET/ws         its messages: a first one, then what changed after each step
    GET  /game/ID/SECRET/record     the record, once the game is over
    GET  /static/NAME               the pages' scripts and styles (no secret in them)

A wrong or missing secret is 403 with nothing else, the same for a game that does not exist. Each
game has a lock: one change at a time, and the messages of a change are made under it (agents
think in a worker thread, holding it: the game is never read while it moves).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import socket
import sys
import traceback
from collections.abc import AsyncIterator
from importlib import resources
from pathlib import Path
from typing import Any

import anyio
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from .. import agents as agents_mod
from ..errors import GameError, RulecraftError
from ..inputs import clip
from ..rulebook import Rulebook, bundled_names, load
from . import store
from .table import Meta, Table, new_secret

# The pages keep the secret in their address: it goes to no other site (no Referer), no cache keeps them.
_HEADERS = {
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
    "X-Content-Type-Options": "nosniff",
    "Content-Security-Policy": "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
    "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
}
_STATIC = {
    "draw.js": "rulecraft",
    "draw.css": "rulecraft",
    "table.js": "rulecraft.serve",
    "lobby.js": "rulecraft.serve",
}
_TYPES = {".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8"}


def _asset(package: str, name: str) -> str:
    return resources.files(package).joinpath(name).read_text(encoding="utf-8")


def forbidden() -> Response:
    return Response(status_code=403)


async def forbid(request: Request) -> Response:
    """A link without its secret: 403, as a wrong one."""
    return forbidden()


class Conn:
    """An open WebSocket of a seat: what it was sent (the steps, and the last message's text)."""

    def __init__(self, ws: WebSocket, seat: int):
        self.ws, self.seat, self.sent, self.last = ws, seat, 0, ""
        self.heard: Any = None  # the run of a `secret` block asking another seat it was told of (see messages)


class Server:
    """The games of one data folder."""

    def __init__(self, data: Path, rulebooks: Path | None):
        self.data = store.open_folder(data)
        self.rulebooks = rulebooks.resolve() if rulebooks is not None else None
        self.host = store.host_secret(self.data)
        self.index = store.Index(self.data)
        self.metas: dict[str, Meta] = {m.id: m for m in self.index.games()}
        self.tables: dict[str, Table] = {}
        self.locks: dict[str, asyncio.Lock] = {}
        self.running: set[str] = set()
        self.tasks: set[asyncio.Task[None]] = set()

    # ------------------------------------------------------------------------ games

    def restore_all(self) -> None:
        """Replay every unfinished game from its record (a finished one is replayed when its page is opened)."""
        for meta in self.metas.values():
            if meta.status == "playing":
                self._restore(meta)

    def _restore(self, meta: Meta) -> Table | None:
        try:
            table = self.tables[meta.id] = Table.restore(meta, self._rulebook(meta.rulebook))
        except RulecraftError as exc:
            meta.status, meta.note = "stopped", clip(str(exc).splitlines()[0], 300)
            self.index.set_status(meta)
            print(f"rulecraft serve: game {meta.id} cannot go on: {meta.note}", file=sys.stderr)
            return None
        if meta.status != table.indexed:  # killed after its last answer was written, before the index said so
            self.index.set_status(meta)
            table.indexed = meta.status
        return table

    def table(self, game_id: str) -> Table | None:
        table = self.tables.get(game_id)
        if table is None and game_id in self.metas and self.metas[game_id].status == "over":
            table = self._restore(self.metas[game_id])
        return table

    def _rulebook(self, name: str) -> Rulebook:
        if name in bundled_names():
            return load(name)
        path = Path(name)
        if self.rulebooks is None or path.parent != self.rulebooks:
            raise RulecraftError(f"the rulebook {clip(name)} is not in the folder of --rulebooks")
        return load(path)

    def choices(self) -> list[dict[str, Any]]:
        """The rulebooks the lobby offers: the bundled ones and the .rules files of --rulebooks."""
        names: list[tuple[str, str]] = [(n, n) for n in bundled_names()]
        if self.rulebooks is not None:
            names += [(p.name, str(p)) for p in sorted(self.rulebooks.glob("*.rules")) if p.is_file()]
        out: list[dict[str, Any]] = []
        for shown, name in names:
            try:
                program = self._rulebook(name).program
            except RulecraftError as exc:
                out.append({"name": shown, "error": clip(str(exc).splitlines()[0], 200)})
                continue
            out.append({"name": shown, "game": program.name, "min": program.min_players, "max": program.max_players})
        return out

    def create(self, body: Any) -> Meta:
        """Start a game from the lobby's form: {rulebook, players, seats}; GameError says what is wrong."""
        if not isinstance(body, dict):
            raise GameError("send {rulebook, players, seats}")
        shown, players, seats = body.get("rulebook"), body.get("players"), body.get("seats")
        names = {n: n for n in bundled_names()}
        if self.rulebooks is not None:
            names |= {p.name: str(p) for p in self.rulebooks.glob("*.rules") if p.is_file()}
        if not isinstance(shown, str) or shown not in names:
            raise GameError("choose a rulebook of the lobby's list")
        rb = self._rulebook(names[shown])
        program = rb.program
        if not isinstance(players, int) or isinstance(players, bool):
            raise GameError("players is a whole number")
        if not program.min_players <= players <= program.max_players:
            raise GameError(f"{program.name} is played by {program.min_players} to {program.max_players} players")
        if not isinstance(seats, list) or len(seats) != players or not all(isinstance(a, str) for a in seats):
            raise GameError("name one agent a seat (human for a person)")
        for spec in seats:
            agents_mod.make_agent(spec, 0)  # an unknown agent or option: its one-line GameError
        game_id = new_secret()[:10]
        meta = Meta(
            id=game_id,
            rulebook=names[shown],
            players=players,
            seats=[s.strip() for s in seats],
            secrets=[new_secret() for _ in range(players)],
            spectator=new_secret(),
            record=str(self.data / "records" / f"{game_id}.json"),
        )
        rulebook_file = None
        if shown not in bundled_names():
            rulebook_file = Path(os.path.relpath(names[shown], self.data / "records")).as_posix()
        seed, agent_seed = int.from_bytes(os.urandom(16)), int.from_bytes(os.urandom(8))
        table = Table.start(meta, rb, rulebook_file=rulebook_file, seed=seed, agent_seed=agent_seed)
        self.index.add(meta)  # after the record: a game in the index always has one
        if meta.status != "playing":
            self.index.set_status(meta)
        self.metas[meta.id] = meta
        self.tables[meta.id] = table
        self.kick(table)
        return meta

    def listing(self, base: str) -> list[dict[str, Any]]:
        out = []
        for meta in self.metas.values():
            table = self.tables.get(meta.id)
            links = [f"{base}/game/{meta.id}/{s}" for s in meta.secrets]
            out.append(
                {
                    "id": meta.id,
                    "rulebook": Path(meta.rulebook).name,
                    "players": meta.players,
                    "seats": meta.seats,
                    "status": meta.status,
                    "state": table.state() if table is not None else meta.status,
                    "note": meta.note,
                    "links": links,
                    "spectator": f"{base}/game/{meta.id}/{meta.spectator}",
                }
            )
        return out

    # ------------------------------------------------------------------------ changes

    def lock(self, table: Table) -> asyncio.Lock:
        return self.locks.setdefault(table.meta.id, asyncio.Lock())

    def messages(self, table: Table) -> list[tuple[Conn, str]]:
        """What each open connection of the game is to be sent now (made under the game's lock)."""
        out = []
        for conn in list(table.watchers):
            # While a `secret` block asks another seat, a seat hears once that it began, then nothing till it ends.
            run = table.game.secret_run if table.quiet_for(conn.seat) else None
            if run is not None and conn.heard == run:
                continue
            conn.heard = run
            msg = table.since(conn.seat, conn.sent)
            text = json.dumps(msg, ensure_ascii=False, separators=(",", ":"))
            if text != conn.last:
                conn.sent, conn.last = msg["from"] + len(msg["steps"]), text
                out.append((conn, text))
        if table.meta.status != table.indexed:
            self.index.set_status(table.meta)
            table.indexed = table.meta.status
        return out

    async def send(self, batch: list[tuple[Conn, str]]) -> None:
        for conn, text in batch:
            try:
                await conn.ws.send_text(text)
            except Exception:  # a connection closed meanwhile: its reader removes it
                continue

    def kick(self, table: Table) -> None:
        """Let the agents play while the game waits on one (a task of its own, one a game)."""
        if table.agent_seat() is None or table.meta.id in self.running:
            return
        self.running.add(table.meta.id)
        task = asyncio.get_running_loop().create_task(self._agents(table))
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def _agents(self, table: Table) -> None:
        try:
            while True:
                async with self.lock(table):
                    seat = table.agent_seat()
                    if seat is None:
                        return
                    try:
                        label = await anyio.to_thread.run_sync(table.think)
                        table.play_agent(seat, label)
                    except Exception as exc:  # the rules failed on the agent's answer, or the agent did
                        table.stopped = str(exc)
                        table.meta.status, table.meta.note = "stopped", clip(str(exc).splitlines()[0], 300)
                        self.index.set_status(table.meta)
                        traceback.print_exc()
                        print(
                            f"rulecraft serve: game {table.meta.id}: an agent's answer failed:\n{exc}", file=sys.stderr
                        )
                    batch = self.messages(table)
                await self.send(batch)
        finally:
            self.running.discard(table.meta.id)

    # ------------------------------------------------------------------------ routes

    async def home(self, request: Request) -> Response:
        return Response("rulecraft serve: open the link you were given.\n", media_type="text/plain")

    def _host(self, request: Request) -> bool:
        return store.same(request.path_params["token"], self.host)

    async def lobby(self, request: Request) -> Response:
        if not self._host(request):
            return forbidden()
        return Response(_asset("rulecraft.serve", "lobby.html"), media_type="text/html", headers=_HEADERS)

    async def games(self, request: Request) -> Response:
        if not self._host(request):
            return forbidden()
        base = str(request.base_url).rstrip("/")
        if request.method == "POST":
            try:
                body = await request.json()
            except ValueError:
                return JSONResponse({"error": "send the game as JSON"}, status_code=400, headers=_HEADERS)
            try:
                meta = self.create(body)
            except RulecraftError as exc:
                return JSONResponse({"error": clip(str(exc), 500)}, status_code=400, headers=_HEADERS)
            return JSONResponse(next(g for g in self.listing(base) if g["id"] == meta.id), headers=_HEADERS)
        return JSONResponse({"games": self.listing(base), "rulebooks": self.choices()}, headers=_HEADERS)

    def _seat(self, params: dict[str, Any]) -> tuple[Table, int] | None:
        table = self.table(str(params["id"])) if str(params["id"]) in self.metas else None
        seat = table.seat_of(str(params["secret"])) if table is not None else None
        return None if table is None or seat is None else (table, seat)

    async def page(self, request: Request) -> Response:
        if self._seat(request.path_params) is None:
            return forbidden()
        return Response(_asset("rulecraft.serve", "table.html"), media_type="text/html", headers=_HEADERS)

    async def record(self, request: Request) -> Response:
        found = self._seat(request.path_params)
        if found is None:
            return forbidden()
        table, _ = found
        if not table.game.over:  # a record names every card drawn: offered once nothing is hidden any more
            return Response("the record is offered when the game is over\n", status_code=409, media_type="text/plain")
        name = f"{table.meta.id}.json"
        return FileResponse(table.meta.record, media_type="application/json", filename=name, headers=_HEADERS)

    async def static(self, request: Request) -> Response:
        name = request.path_params["name"]
        if name not in _STATIC:
            return Response(status_code=404)
        return Response(_asset(_STATIC[name], name), media_type=_TYPES[Path(name).suffix])

    async def socket(self, ws: WebSocket) -> None:
        found = self._seat(ws.path_params)
        if found is None:
            await ws.close(code=1008)  # before accepting: the handshake is answered 403
            return
        table, seat = found
        await ws.accept()
        conn = Conn(ws, seat)
        async with self.lock(table):
            first, conn.sent = table.first(seat)
            conn.heard = table.game.secret_run if table.quiet_for(seat) else None
            table.watchers.add(conn)
        conn.last = ""
        try:
            await ws.send_text(json.dumps(first, ensure_ascii=False, separators=(",", ":")))
            while True:
                text = await ws.receive_text()
                error = None
                try:
                    msg = json.loads(text)
                    labels, turn = msg["answer"], msg["turn"]
                    if not (isinstance(labels, list) and labels and all(isinstance(x, str) for x in labels)):
                        raise ValueError
                    if not isinstance(turn, int):
                        raise ValueError
                except (ValueError, KeyError, TypeError):
                    error = 'a message of the table is {"answer": [labels], "turn": n}'
                if error is None and seat < 0:
                    error = "a spectator does not answer"
                if error is None:
                    async with self.lock(table):
                        error = table.answer(seat, labels[:1000], turn)
                        batch = self.messages(table) if error is None else []
                    await self.send(batch)
                    if error is None:
                        self.kick(table)
                if error is not None:
                    await ws.send_text(json.dumps({"type": "error", "text": error}))
        except WebSocketDisconnect:
            pass
        finally:
            table.watchers.discard(conn)


def app(server: Server) -> Starlette:
    """The ASGI application of a server."""

    @contextlib.asynccontextmanager
    async def lifespan(_: Starlette) -> AsyncIterator[None]:
        for table in list(server.tables.values()):
            server.kick(table)
        yield
        for table in server.tables.values():  # a clean stop: each live record written durably, its lock let go
            if table.writer is not None and not table.game.over:
                with contextlib.suppress(RulecraftError):
                    table.writer.close(table.game)
        server.index.close()

    return Starlette(
        routes=[
            Route("/", server.home),
            Route("/host", forbid),
            Route("/host/", forbid),
            Route("/host/{token}", server.lobby),
            Route("/host/{token}/games", server.games, methods=["GET", "POST"]),
            Route("/game/{id}", forbid),
            Route("/game/{id}/", forbid),
            Route("/game/{id}/{secret}", server.page),
            Route("/game/{id}/{secret}/record", server.record),
            WebSocketRoute("/game/{id}/{secret}/ws", server.socket),
            Route("/static/{name}", server.static),
        ],
        lifespan=lifespan,
    )


def serve(host: str, port: int, data: Path, rulebooks: Path | None) -> int:
    """Restore the games of the data folder, listen, print the lobby's link; serve until interrupted."""
    server = Server(data, rulebooks)
    server.restore_all()
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise RulecraftError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    sock.listen(128)
    chosen = sock.getsockname()[1]
    shown = f"[{host}]" if family == socket.AF_INET6 else host
    playing = sum(1 for m in server.metas.values() if m.status == "playing")
    print(f"rulecraft serve: listening on {shown}:{chosen}; {playing} unfinished games restored from {data}")
    print(f"lobby: http://{shown}:{chosen}/host/{server.host}", flush=True)
    config = uvicorn.Config(app(server), log_level="warning", ws="websockets-sansio", lifespan="on")
    uvicorn.Server(config).run(sockets=[sock])
    return 0
