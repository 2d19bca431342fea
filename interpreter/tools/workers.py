"""Games played in worker processes of this machine (`simulate --workers`, `soak --workers`).

`multiprocessing.Pool` waits for ever on the results of a worker that died (killed by the kernel's
out-of-memory killer, or by hand with `kill -9`): the command hangs without a word. A
`ProcessPoolExecutor` notices the death (`BrokenProcessPool`); `worker_map` then stops the workers
left and ends the command with one line that says what happened (`WorkerDied`).

Workers ignore Ctrl-C: the parent gets it (as `KeyboardInterrupt`, which its caller handles) and
stops them, so an interrupted command prints its own summary, not a traceback from each worker.
"""

from __future__ import annotations

import itertools
import multiprocessing
import signal
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import TypeVar

from ..errors import RulecraftError

T = TypeVar("T")
R = TypeVar("R")


class WorkerDied(RulecraftError):
    """A worker process ended before it gave back the games it was playing."""


def worker_map(fn: Callable[[T], R], tasks: Sequence[T], workers: int, *, ordered: bool, chunk: int = 1) -> Iterator[R]:
    """`fn` of each task, in `workers` processes, `chunk` tasks at a time: in the tasks' order
    (`ordered`), else as they finish. Raises `WorkerDied` if a worker process dies.

    A few chunks per worker are in flight at a time, not all of them: a run of a million games
    holds a million tasks, not a million futures."""
    size = max(1, chunk)
    starts = iter(range(0, len(tasks), size))
    # fork, as the platform's default and the Pool before: workers start at once with the parent's
    # loaded rulebooks and generated code.
    executor = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork"), initializer=_worker_init)
    try:
        pending: dict[Future[list[R]], int] = {}
        done: dict[int, list[R]] = {}
        next_index = 0

        def submit() -> None:
            for start in itertools.islice(starts, 4 * workers - len(pending)):
                pending[executor.submit(_run_chunk, fn, list(tasks[start : start + size]))] = start

        submit()
        while pending:
            # With a timeout: a signal (Ctrl-C) may be taken by the executor's thread, and the main
            # thread runs its handler only once it wakes; without one it could sleep for ever.
            finished, _ = wait(pending, timeout=0.2, return_when=FIRST_COMPLETED)
            for future in finished:
                start = pending.pop(future)
                results = _result(future)
                if not ordered:
                    yield from results
                else:
                    done[start] = results
            while ordered and next_index in done:
                yield from done.pop(next_index)
                next_index += size
            submit()
    finally:
        _stop(executor)


def _run_chunk(fn: Callable[[T], R], chunk: list[T]) -> list[R]:
    return [fn(task) for task in chunk]


def _result(future: Future[list[R]]) -> list[R]:
    try:
        return future.result()
    except BrokenProcessPool:
        raise WorkerDied(
            "a worker process died before it finished its games (killed, or out of memory?): "
            "the command stops; play fewer games at once (--workers) or with more memory"
        ) from None


def _worker_init() -> None:
    """Workers leave Ctrl-C to the parent (which stops them) and die on SIGTERM."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _stop(executor: ProcessPoolExecutor) -> None:
    """No more work is started, and the workers still playing are stopped at once (the games they
    play are no longer wanted: the command is done, interrupted or failed)."""
    # The executor has no public way to stop busy workers before Python 3.14 (`terminate_workers`).
    processes = list((getattr(executor, "_processes", None) or {}).values())
    executor.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        if process.is_alive():
            process.terminate()
    for process in processes:
        process.join()
