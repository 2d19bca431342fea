"""Load on `rulecraft serve`: N concurrent games of bot clients over WebSockets, on loopback.

    python examples/benchmarks/serve_load.py [--games 10] [--seconds 20] [--rulebook guildhall]

Starts a server (`--port 0`, a fresh data folder), starts N games of bot seats (every seat a client
that answers at random the moment it is asked: no agent on the server, so the time is the rules'
and the server's), and plays them all at once for at most --seconds. It reports the answers a
second, the 50th and 95th percentile of the latency from an answer sent to the next view received
by the seat that sent it, the server's CPU time and its resident memory (idle, with the games
started, and at the end: the memory of an idle game). With --think the bots wait before answering,
as people do, so that the latency is the server's and not a queue of bots. The figures of a run are in docs/SERVE.md.
Loopback only, bounded in games and seconds; it needs the `serve` extra.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

import websockets


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def start_server(data: Path) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "rulecraft", "serve", "--port", "0", "--data", str(data)],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    assert proc.stdout is not None
    for line in proc.stdout:
        if line.startswith("lobby: "):
            return proc, line.split()[1]
    raise SystemExit("the server did not start")


def start_game(lobby: str, rulebook: str, players: int) -> dict[str, Any]:
    body = json.dumps({"rulebook": rulebook, "players": players, "seats": ["human"] * players}).encode()
    request = urllib.request.Request(lobby + "/games", data=body, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=60) as r:
        game: dict[str, Any] = json.loads(r.read())
    return game


async def bot_seat(
    link: str, rng: random.Random, until: float, latencies: list[float], done: asyncio.Event, think: float
) -> int:
    """One seat: answer at random whenever asked; the latency of each answer is to the next message received."""
    answers = 0
    url = link.replace("http://", "ws://", 1) + "/ws"
    async with websockets.connect(url, max_size=None) as ws:
        msg = json.loads(await ws.recv())
        while time.monotonic() < until and not done.is_set():
            if msg.get("end", {}).get("result"):
                done.set()
                break
            decision = msg.get("decision")
            if decision and "options" in decision:
                label = rng.choice(decision["options"])
                if think:
                    await asyncio.sleep(rng.uniform(0, 2 * think))  # (at random: bots in step would come in bursts)
                sent = time.perf_counter()
                await ws.send(json.dumps({"answer": [label], "turn": decision["turn"]}))
                msg = json.loads(await ws.recv())
                latencies.append(time.perf_counter() - sent)
                answers += 1
                continue
            try:
                msg = json.loads(await asyncio.wait_for(ws.recv(), timeout=max(0.05, until - time.monotonic())))
            except TimeoutError:
                break
    return answers


async def play(games: list[dict[str, Any]], seconds: float, think: float) -> tuple[int, list[float], float]:
    latencies: list[float] = []
    until = time.monotonic() + seconds
    start = time.perf_counter()
    tasks = []
    for i, game in enumerate(games):
        done = asyncio.Event()
        for s, link in enumerate(game["links"]):
            tasks.append(bot_seat(link, random.Random(i * 100 + s), until, latencies, done, think))
    counts = await asyncio.gather(*tasks)
    return sum(counts), latencies, time.perf_counter() - start


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=10, help="concurrent games (default 10; 100 on request)")
    parser.add_argument("--seconds", type=float, default=20, help="play for at most this long (default 20)")
    parser.add_argument("--rulebook", default="guildhall", help="a bundled rulebook (default guildhall)")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument(
        "--think",
        type=float,
        default=0,
        help="the mean seconds a bot waits before it answers (default 0: at once, a stress test)",
    )
    parser.add_argument("--json", action="store_true", help="print the figures as one JSON line")
    args = parser.parse_args(argv)
    if not (1 <= args.games <= 500 and 0 < args.seconds <= 600):
        parser.error("--games from 1 to 500, --seconds up to 600")
    with tempfile.TemporaryDirectory() as folder:
        proc, lobby = start_server(Path(folder) / "data")
        try:
            start_game(lobby, args.rulebook, args.players)  # the rulebook loaded and compiled: not a game's memory
            idle = rss_kib(proc.pid)
            games = [start_game(lobby, args.rulebook, args.players) for _ in range(args.games)]
            started = rss_kib(proc.pid)
            cpu0 = cpu_seconds(proc.pid)
            answers, latencies, wall = asyncio.run(play(games, args.seconds, args.think))
            cpu = cpu_seconds(proc.pid) - cpu0
            end = rss_kib(proc.pid)
        finally:
            proc.terminate()
            proc.wait(timeout=20)
    figures = {
        "games": args.games,
        "think_seconds": args.think,
        "rulebook": args.rulebook,
        "answers": answers,
        "seconds": round(wall, 2),
        "answers_per_second": round(answers / wall, 1),
        "latency_p50_ms": round(percentile(latencies, 0.5) * 1000, 2),
        "latency_p95_ms": round(percentile(latencies, 0.95) * 1000, 2),
        "server_cpu_seconds": round(cpu, 2),
        "server_cpu_share": round(cpu / wall, 2),
        "server_rss_idle_mib": round(idle / 1024, 1),
        "server_rss_started_mib": round(started / 1024, 1),
        "server_rss_end_mib": round(end / 1024, 1),
        "kib_per_idle_game": round((started - idle) / args.games, 1),
    }
    if args.json:
        print(json.dumps(figures))
    else:
        for key, value in figures.items():
            print(f"{key:24} {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
