"""Helper threads, for work that runs beside the caller's: the second embedder's model (``memhq.ai.e5``)
while MiniLM runs on the caller's thread, in recall (``retrieval.query_vectors``) and in the index phase
(``ingestion.phases.index``).

onnxruntime runs a graph without holding the GIL, so two models on two threads take about as long as the
slower one, on a box with a core to spare. Up to ``MAX_HELPERS`` per process, each started only when every
started one is busy: a Celery prefork child runs one task at a time and starts one; a gunicorn worker
serving four requests at once (``--threads 4``, the Procfile) does not queue their e5 work behind one
thread. The pool is made on first use after a fork (an executor inherited from a parent that had used it
would wait on threads the child does not have).

``spread`` shares one call's many jobs (texts to embed, parts of an episode to parse) between the caller's
thread and up to ``MEMHQ_MODEL_HELPERS`` helpers, each taking the next job in turn, when a core is idle
(``spare_cores``): an episode on a quiet box finishes sooner, a busy box is not slowed.
"""

from __future__ import annotations

import math
import os
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, ParamSpec, TypeVar

P = ParamSpec("P")
T = TypeVar("T")

#: As many as the requests one gunicorn worker serves at once (the Procfile's ``--threads``).
MAX_HELPERS = 4
#: Linux's run-queue figures, and the cgroup's CPU quota (``spare_cores``).
LOADAVG = "/proc/loadavg"
CPU_MAX = "/sys/fs/cgroup/cpu.max"

_lock = threading.Lock()
_pool: tuple[int, ThreadPoolExecutor] | None = None
#: Helper jobs submitted and not yet done (``spare_cores``).
_lent = 0
_lent_lock = threading.Lock()


def helper() -> ThreadPoolExecutor:
    """This process's helper threads (a new pool in a forked child)."""
    global _pool
    with _lock:
        if _pool is None or _pool[0] != os.getpid():
            threads = ThreadPoolExecutor(max_workers=MAX_HELPERS, thread_name_prefix="memhq-beside")
            _pool = (os.getpid(), threads)
        return _pool[1]


def beside(function: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> Future[T]:
    """``function(*args, **kwargs)`` started on a helper thread; the caller takes ``.result()``."""
    return _lend(function, *args, **kwargs)


class _Turns:
    """The next job's number, handed to one thread at a time; ``stop`` hands out no more."""

    def __init__(self, count: int) -> None:
        self._next = 0
        self._count = count
        self._lock = threading.Lock()

    def take(self) -> int | None:
        with self._lock:
            if self._next >= self._count:
                return None
            self._next += 1
            return self._next - 1

    def stop(self) -> None:
        with self._lock:
            self._next = self._count


def spare_cores() -> int:
    """Cores no thread is waiting for at this moment: the CPUs this process may use (:func:`usable_cpus`)
    less the threads runnable now (``/proc/loadavg``'s fourth field, which counts the caller; host-wide
    in a container, which only makes the answer smaller) and less this process's helper jobs not yet
    done (one just handed to a helper may not be runnable yet). A helper on a busy box only takes turns
    with the other workers' processes: with every worker busy, helper threads cost 5-25% of the box's
    episodes per second (docs/benchmarks.md). Where that file cannot be read, only the caller counts."""
    try:
        with open(LOADAVG, encoding="ascii") as status:
            runnable = int(status.read().split()[3].split("/")[0])
    except (OSError, ValueError, IndexError):
        runnable = 1
    with _lent_lock:
        lent = _lent
    return max(usable_cpus() - max(runnable, 1 + lent), 0)


def usable_cpus() -> int:
    """The CPUs this process may run on, no more than its cgroup's CPU quota (``cpu.max``, cgroup v2: a
    container limited to 2 CPUs on a 64-CPU host has 2)."""
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    try:
        with open(CPU_MAX, encoding="ascii") as limit:
            quota, period = limit.read().split()[:2]
        if quota != "max":
            cpus = min(cpus, max(math.ceil(int(quota) / int(period)), 1))
    except (OSError, ValueError, ZeroDivisionError):
        pass
    return cpus


def _returned(_: Future[Any]) -> None:
    global _lent
    with _lent_lock:
        _lent -= 1


def _lend(function: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> Future[T]:
    """``function`` submitted to a helper thread, counted in ``_lent`` until it is done or cancelled."""
    global _lent
    with _lent_lock:
        _lent += 1
    try:
        future = helper().submit(function, *args, **kwargs)
    except BaseException:  # never submitted (the interpreter is shutting down)
        with _lent_lock:
            _lent -= 1
        raise
    future.add_done_callback(_returned)
    return future


def spread(job: Callable[[int], None], count: int, helpers: int) -> None:
    """``job(0)`` … ``job(count - 1)``, taken in turn by the caller's thread and up to ``helpers`` helper
    threads (no more than :func:`spare_cores`); returns when every thread has stopped. A job's error stops
    the others from taking more and is raised (the caller's own first, else the first helper's).

    The caller takes jobs too, so all of them run even when every helper thread is busy: a helper request
    still queued when the caller runs out of jobs is cancelled, never waited for (a ``spread`` from inside
    a helper thread cannot wait on the pool it occupies)."""
    turns = _Turns(count)

    def work() -> None:
        try:
            while (number := turns.take()) is not None:
                job(number)
        except BaseException:
            turns.stop()
            raise

    lent = min(helpers, count - 1)
    if lent > 0:
        lent = min(lent, spare_cores())
    started = [_lend(work) for _ in range(lent)]
    error: BaseException | None = None
    try:
        work()
    except BaseException as exc:
        error = exc
    for future in started:
        if future.cancel():  # still queued: it never ran
            continue
        failed = future.exception()  # waits: its job may still be writing the caller's results
        if error is None:
            error = failed
    if error is not None:
        raise error
