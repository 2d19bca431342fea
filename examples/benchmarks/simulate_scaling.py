"""Games per second of `simulate` with 1 and 2 local processes and on a local Ray instance of 2 CPUs.

    python examples/benchmarks/simulate_scaling.py guildhall --games 300 --batches 1 4 16 64

Needs the `ray` extra. Ray's start-up and the first run of its workers (each imports rulecraft
and loads the rulebook once) are timed apart from the runs, which are what a long simulation
pays per game. Every run plays the same games (the same master seed) and must give the same
report. The runs are repeated in turn (a shared machine's load moves the figures): the best and
the median of each are printed, with the load average during the runs.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Callable
from typing import Any

import ray
from rulecraft.tools.distributed import ray_map
from rulecraft.tools.simulate import report, simulate


def noop(k: int) -> int:
    return k


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("game")
    p.add_argument("--games", type=int, default=300)
    p.add_argument("--batches", type=int, nargs="+", default=[1, 4, 16, 64])
    p.add_argument("--agents", default="random")
    p.add_argument("--rounds", type=int, default=3, help="each run this many times, interleaved (best and median)")
    args = p.parse_args()
    agents, n = args.agents.split(","), args.games
    print(f"{args.game}, {n} games a run, agents {args.agents}, {os.cpu_count()} CPUs, {args.rounds} rounds\n")
    start = time.perf_counter()
    ray.init(address="local", num_cpus=2, include_dashboard=False, logging_level="ERROR", log_to_driver=False)
    print(f"Ray start-up (`ray.init`, 2 CPUs): {time.perf_counter() - start:.1f} s")
    start = time.perf_counter()
    simulate(args.game, 8, agents=agents, backend="ray", batch=4)
    print(
        f"Ray's first run, 8 games (workers import rulecraft, load the rulebook): {time.perf_counter() - start:.1f} s"
    )
    for batch in (1, 64):
        tasks = 2000
        start = time.perf_counter()
        list(ray_map(noop, range(tasks), batch=batch))
        per = (time.perf_counter() - start) / tasks * 1000
        print(f"Ray's cost of a task that does nothing, batch {batch}: {per:.2f} ms a task (wall clock, 2 CPUs)")
    runs: dict[str, Callable[[], Any]] = {
        "local, 1 process": lambda: simulate(args.game, n, agents=agents, workers=1),
        "local, 2 processes": lambda: simulate(args.game, n, agents=agents, workers=2),
    }
    for batch in args.batches:
        runs[f"Ray, 2 CPUs, batch {batch}"] = lambda b=batch: simulate(
            args.game, n, agents=agents, backend="ray", batch=b
        )
    rates: dict[str, list[float]] = {label: [] for label in runs}
    loads: list[float] = []
    expected = None
    for _ in range(args.rounds):
        for label, run in runs.items():
            start = time.perf_counter()
            text = report(run())
            rates[label].append(n / (time.perf_counter() - start))
            assert expected is None or text == expected, f"{label}: a different report"
            expected = text
            loads.append(os.getloadavg()[0])
    print(f"\nload average (1 min) during the runs: {min(loads):.1f} to {max(loads):.1f}\n")
    print("| run | games/s, best | games/s, median |\n|---|---|---|")
    for label, xs in rates.items():
        print(f"| {label} | {max(xs):.1f} | {statistics.median(xs):.1f} |")
    ray.shutdown()


if __name__ == "__main__":
    main()
