"""Games as Ray tasks: `simulate --backend ray` and `soak --backend ray` (`pip install 'rulecraft[ray]'`).

The games of a run are cut into batches of `batch` games; each batch is one Ray task that plays
its games one after the other (one task a game would spend more on Ray's bookkeeping than on
the game: docs/SIMULATION.md has the figures). Only a few batches per CPU are in flight at a
time, so a run of millions of games does not queue millions of tasks.

A game's result depends only on its task (rulebook, seed, seats), never on the worker or the
order, so a run gives the same results on Ray as in local processes. A worker process (or a
node) lost mid-run loses no game: Ray runs its batch again (`RETRIES` times at most), and a
batch's games count only when the whole batch comes back.

Without an address, a local Ray instance is started for the run (`cpus` CPUs, no dashboard) and
stopped after it; with one (`ray://host:10001`, `host:6379` or `auto`), the run joins that
cluster. When Ray is already initialised in this process (a notebook, the tests), that instance
is used and left running. A rulebook given by path must be readable at the same path on every
node of a cluster (a bundled rulebook ships with the package).
"""

from __future__ import annotations

import argparse
import logging
import signal
import socket
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, TypeVar

from ..console import UsageError, whole
from ..errors import RulecraftError

T = TypeVar("T")
R = TypeVar("R")

RETRIES = 5  # how many times a batch whose worker died is run again before the run fails
IN_FLIGHT = 4  # batches per CPU submitted ahead: enough to keep every CPU busy between two waits


def add_backend(p: argparse.ArgumentParser) -> None:
    """`--backend local|ray`, `--address` and `--batch`: the flags of the commands that play many games."""
    p.add_argument(
        "--backend",
        choices=("local", "ray"),
        default="local",
        help="where the games run: local processes (--workers), or Ray tasks (needs pip install 'rulecraft[ray]')",
    )
    p.add_argument(
        "--address",
        metavar="ADDR",
        help="with --backend ray: the Ray cluster to join (ray://host:10001, host:6379, auto); "
        "default: a local Ray instance started for the run",
    )
    p.add_argument(
        "--batch",
        type=whole(1, 1_000_000),
        help="with --backend ray: games per Ray task (default: about 8 tasks per CPU, at most 64 games each)",
    )


def backend_for(args: argparse.Namespace) -> None:
    """Refuse --address and --batch without --backend ray, --backend ray without Ray installed, and
    an address where no cluster listens: before any game."""
    if args.backend != "ray":
        for flag in ("address", "batch"):
            if getattr(args, flag) is not None:
                raise UsageError(f"--{flag} needs --backend ray")
        return
    _ray()
    if args.address:
        _reachable(args.address)


def _ray() -> Any:
    try:
        import ray
    except ImportError:
        raise UsageError("--backend ray needs Ray: pip install 'rulecraft[ray]'") from None
    return ray


@contextmanager
def connected(address: str | None = None, cpus: int | None = None) -> Iterator[int]:
    """Ray, initialised for the run (see the module's text); yields the cluster's CPU count."""
    ray = _ray()
    started = False
    if not ray.is_initialized():
        if address:
            _reachable(address)
        # Ray's core installs its own SIGTERM handler (it dumps a stack and dies): the command's own
        # (soak prints the figures of the games finished) is put back after it.
        handlers = _signal_handlers()
        try:
            ray.init(
                # "local": a new instance of our own, never a cluster that happens to run on this machine
                address=address or "local",
                num_cpus=None if address else cpus,
                include_dashboard=False if not address else None,
                logging_level=logging.ERROR,
                log_to_driver=False,
            )
        except Exception as exc:  # Ray raises ConnectionError, ValueError, RuntimeError, ... by cause
            where = f"the Ray cluster at {address}" if address else "a local Ray instance"
            raise RulecraftError(f"cannot start or reach {where}: {exc}") from None
        finally:
            for signum, handler in handlers.items():
                signal.signal(signum, handler)
        started = True
    try:
        yield max(1, int(ray.cluster_resources().get("CPU", 1)))
    finally:
        if started:
            ray.shutdown()


def _signal_handlers() -> dict[int, Any]:
    """SIGTERM's and SIGINT's handlers now (only the main thread may set them back)."""
    if threading.current_thread() is not threading.main_thread():
        return {}
    handlers = {signum: signal.getsignal(signum) for signum in (signal.SIGTERM, signal.SIGINT)}
    return {signum: handler for signum, handler in handlers.items() if handler is not None}  # None: not Python's


def _reachable(address: str) -> None:
    """Refuse at once a cluster address where nothing listens (Ray itself would retry for minutes)."""
    if address == "auto":  # the cluster `ray start` left its address for on this machine
        return
    host, _, port = address.removeprefix("ray://").rpartition(":")
    if not host or not port.isdigit():
        raise UsageError(f"--address {address}: not a Ray address (ray://host:10001, host:6379 or auto)")
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=5).close()
    except (OSError, ValueError) as exc:
        reason = getattr(exc, "strerror", None) or str(exc) or type(exc).__name__
        raise RulecraftError(f"cannot reach the Ray cluster at {address}: {reason}") from None


def batch_size(tasks: int, cpus: int) -> int:
    """Games per Ray task when not given: about 8 batches per CPU (so the last batches finish
    together), at most 64 games a batch (a lost worker costs no more than that), at least 1."""
    return max(1, min(64, -(-tasks // (cpus * 8))))


def _run_batch(fn: Callable[[T], R], batch: Sequence[T]) -> list[R]:
    return [fn(task) for task in batch]


def ray_map(
    fn: Callable[[T], R],
    tasks: Sequence[T],
    *,
    address: str | None = None,
    cpus: int | None = None,
    batch: int | None = None,
    ordered: bool = False,
) -> Iterator[R]:
    """`fn` of every task, run as Ray tasks in batches; yields results as their batch comes back
    (in the order of the tasks if `ordered`). `fn` must be importable on the workers (a function of
    a module, or one cloudpickle can send by value)."""
    ray = _ray()
    with connected(address, cpus) as cluster_cpus:
        size = batch or batch_size(len(tasks), cluster_cpus)
        remote = ray.remote(num_cpus=1, max_retries=RETRIES)(_run_batch)
        batches = [tasks[i : i + size] for i in range(0, len(tasks), size)]
        fn_ref = ray.put(fn)
        pending: dict[Any, int] = {}
        came_back: dict[int, list[R]] = {}
        following = 0  # with `ordered`: the next batch to yield
        submitted = 0
        try:
            while submitted < len(batches) or pending:
                while submitted < len(batches) and len(pending) < cluster_cpus * IN_FLIGHT:
                    pending[remote.remote(fn_ref, batches[submitted])] = submitted
                    submitted += 1
                ready, _ = ray.wait(list(pending), num_returns=1)
                for ref in ready:
                    index = pending.pop(ref)
                    results = _get(ray, ref)
                    if not ordered:
                        yield from results
                        continue
                    came_back[index] = results
                    while following in came_back:
                        yield from came_back.pop(following)
                        following += 1
        finally:  # interrupted (Ctrl-C) or failed: the batches still running are of no use
            for ref in pending:
                ray.cancel(ref, force=True)


def _get(ray: Any, ref: Any) -> list[Any]:
    """A batch's results; the exception a game raised is raised here as itself (not wrapped by Ray)."""
    try:
        return list(ray.get(ref))
    except ray.exceptions.RayTaskError as exc:
        cause = exc.cause
        if isinstance(cause, BaseException):
            raise cause from None
        raise
    except ray.exceptions.WorkerCrashedError:
        raise RulecraftError(
            f"a batch of games lost its Ray worker on each of {RETRIES + 1} tries; the run stops"
        ) from None
