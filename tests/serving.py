"""A real `rulecraft serve` for the tests: a process on loopback (`--port 0`), its lobby read from its output."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import attrs


@attrs.define
class Served:
    proc: subprocess.Popen[str]
    lobby: str  # http://127.0.0.1:PORT/host/SECRET
    data: Path

    @property
    def base(self) -> str:
        return self.lobby.split("/host/")[0]

    def start_game(self, rulebook: str, seats: list[str]) -> dict[str, Any]:
        """Start a game as the lobby's form does; its row (id, links, spectator, state)."""
        status, body = post(self.lobby + "/games", {"rulebook": rulebook, "players": len(seats), "seats": seats})
        assert status == 200, body
        game: dict[str, Any] = json.loads(body)
        return game

    def kill(self) -> None:
        """kill -9: no chance to write anything more."""
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=10)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        for stream in (self.proc.stdout, self.proc.stderr):
            if stream is not None:
                stream.close()


def serve(data: Path, *extra: str) -> Served:
    """Start a server on a free port of loopback, and wait until it prints its lobby (it listens by then)."""
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "rulecraft", "serve", "--port", "0", "--data", str(data), *extra],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert proc.stdout is not None
    lines = []
    for line in proc.stdout:
        lines.append(line)
        if line.startswith("lobby: "):
            return Served(proc, line.split()[1], data)
    proc.wait(timeout=10)
    assert proc.stderr is not None
    raise AssertionError(f"the server did not start: {''.join(lines)}{proc.stderr.read()}")


def get(url: str) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=20) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


def post(url: str, body: Any) -> tuple[int, bytes]:
    request = urllib.request.Request(
        url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}, method="POST"
    )
    try:
        with urllib.request.urlopen(request, timeout=60) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


def ws_url(link: str) -> str:
    return link.replace("http://", "ws://", 1) + "/ws"
