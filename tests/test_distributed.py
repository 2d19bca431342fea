"""`simulate --backend ray` and `soak --backend ray`: the same games, the same figures, on Ray.

One local Ray instance serves the whole module (it takes seconds to start): two CPUs, no
dashboard, on the loopback interface only. Without Ray installed the module is skipped, except
in CI (`RULECRAFT_EXTRAS_REQUIRED`), which installs the extra and must run it.
"""

from __future__ import annotations

import importlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import attrs
import pytest
from rulecraft.cli import main
from rulecraft.tools.simulate import Stats, game_seeds, play_one, report, report_data, seat_agents, simulate
from rulecraft.tools.soak import soak

TUTORIAL = str(Path(__file__).resolve().parent.parent / "examples" / "tutorial.rules")


def needs(module: str) -> ModuleType:
    """An optional dependency: skipped where it is not installed, required where CI installed it."""
    if os.environ.get("RULECRAFT_EXTRAS_REQUIRED"):
        return importlib.import_module(module)
    return pytest.importorskip(module)


@pytest.fixture(scope="module")
def ray() -> Iterator[ModuleType]:
    ray = needs("ray")
    ray.init(
        address="local",
        num_cpus=2,
        include_dashboard=False,
        _node_ip_address="127.0.0.1",
        logging_level="ERROR",
        log_to_driver=False,
    )
    yield ray
    ray.shutdown()


def test_a_run_on_ray_reports_what_local_workers_report(ray: ModuleType) -> None:
    """The same master seed and games give the same report (and JSON) on Ray as in two local processes."""
    local = simulate(TUTORIAL, 12, agents=["greedy", "random"], seed=7, workers=2)
    done: list[int] = []
    on_ray = simulate(TUTORIAL, 12, agents=["greedy", "random"], seed=7, backend="ray", batch=5, progress=done.append)
    assert report(on_ray) == report(local)
    assert report_data(on_ray) == report_data(local)
    assert done == list(range(1, 13))  # progress after every game, as for a local run


def test_a_worker_lost_mid_run_loses_no_game(ray: ModuleType, tmp_path: Path) -> None:
    """A worker killed while it plays a batch: Ray runs the batch again, and every game comes back once."""
    from rulecraft.tools.distributed import ray_map

    marker = tmp_path / "killed"
    tasks = [(TUTORIAL, 2, seat_agents(["random"], 2, i), s, i) for i, s in enumerate(game_seeds(3, 9))]

    def dies_once(task: tuple[str, int, tuple[str, ...], int, int]) -> object:
        if task[4] == 4 and not marker.exists():  # game 4, the first time: the worker process dies
            marker.touch()
            os.kill(os.getpid(), signal.SIGKILL)
        return play_one(task)

    results = list(ray_map(dies_once, tasks, batch=3))
    assert marker.exists()  # a worker was killed
    assert sorted(r.index for r in results) == list(range(9))  # type: ignore[attr-defined]
    expected = Stats("tutorial", 2, ("random",), 3, [play_one(t) for t in tasks])
    again = Stats("tutorial", 2, ("random",), 3, sorted(results, key=lambda r: r.index))  # type: ignore[attr-defined]
    assert report(again) == report(expected)


def test_results_in_order_come_back_in_the_order_of_the_tasks(ray: ModuleType) -> None:
    """With `ordered`, a batch that finishes early waits for the ones before it (soak counts seeds in order)."""
    from rulecraft.tools.distributed import ray_map

    def first_is_slow(k: int) -> int:
        if k == 0:
            time.sleep(0.5)
        return k

    assert list(ray_map(first_is_slow, range(6), batch=1, ordered=True)) == list(range(6))


def test_soak_on_ray_finds_what_local_workers_find(ray: ModuleType) -> None:
    """A soak run on Ray plays and counts the same games, in seed order, as one in local processes."""
    local = soak(TUTORIAL, 8, seed=5, workers=2)
    on_ray = soak(TUTORIAL, 8, seed=5, backend="ray", batch=3)
    assert attrs.asdict(on_ray) == attrs.asdict(local)
    assert on_ray.games == 8 and on_ray.seeds == "5-12"


def test_the_command_line_on_ray(ray: ModuleType, capsys: pytest.CaptureFixture[str]) -> None:
    """`--backend ray` prints the report of a local run; the timing line says where the games ran."""
    assert main(["simulate", TUTORIAL, "-n", "4", "--top", "3", "--workers", "2"]) == 0
    local = capsys.readouterr().out
    assert main(["simulate", TUTORIAL, "-n", "4", "--top", "3", "--backend", "ray", "--batch", "2"]) == 0
    out, err = capsys.readouterr()
    assert out == local
    assert "games/s" in err and "on Ray" in err
    assert main(["soak", TUTORIAL, "--games", "3", "--backend", "ray", "--quiet"]) == 0
    assert "seeds 0-2, on Ray" in capsys.readouterr().out


def test_ray_flags_without_the_ray_backend_are_usage_errors(capsys: pytest.CaptureFixture[str]) -> None:
    """`--address` or `--batch` with local processes is refused (exit 2) before any game."""
    assert main(["simulate", TUTORIAL, "-n", "2", "--address", "auto"]) == 2
    assert "--address needs --backend ray" in capsys.readouterr().err
    assert main(["soak", TUTORIAL, "--games", "2", "--batch", "4"]) == 2
    assert "--batch needs --backend ray" in capsys.readouterr().err


def test_without_ray_installed_the_backend_says_how_to_get_it(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--backend ray` where Ray is not installed: a usage error naming the extra, not a traceback."""
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` raises ImportError
    assert main(["simulate", TUTORIAL, "-n", "2", "--backend", "ray"]) == 2
    assert "pip install 'rulecraft[ray]'" in capsys.readouterr().err


def test_an_address_where_no_cluster_listens_is_refused_at_once(capsys: pytest.CaptureFixture[str]) -> None:
    """A closed port is an error naming the address (Ray alone would retry for minutes); a malformed one, bad usage."""
    needs("ray")
    assert main(["simulate", TUTORIAL, "-n", "2", "--backend", "ray", "--address", "127.0.0.1:1"]) == 1
    assert "cannot reach the Ray cluster at 127.0.0.1:1: Connection refused" in capsys.readouterr().err
    assert main(["soak", TUTORIAL, "--games", "2", "--backend", "ray", "--address", "nohost"]) == 2
    assert "--address nohost: not a Ray address" in capsys.readouterr().err


def test_a_command_keeps_its_sigterm_handler_when_it_starts_ray() -> None:
    """Ray's core installs its own SIGTERM handler (a stack dump, then death); starting Ray for a run
    puts the command's back, so `kill` stops a soak run that still prints its figures."""
    needs("ray")
    program = """
import signal
from rulecraft.tools.distributed import connected
def stop(signum, frame): pass
signal.signal(signal.SIGTERM, stop)
with connected(cpus=1):
    print(signal.getsignal(signal.SIGTERM) is stop)
"""
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=120, check=True)
    assert done.stdout.strip() == "True"
