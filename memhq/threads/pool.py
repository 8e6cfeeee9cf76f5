"""A per-process helper thread with its own database connection, to run one query beside the request's.

Used by prepare-and-recall: the prepare statement runs here while the request thread runs recall (query
embedding + one SQL statement). Django connections are per thread, so this thread has its own; it is opened on
first use and then handled like a request's (``close_old_connections`` before and after each job honours
``DATABASE_CONN_MAX_AGE`` and the health checks).

``POOL_THREADS`` is 1: gunicorn's sync workers (the Procfile) serve one request at a time per process, so one
helper is enough; with threaded workers, concurrent requests of one process queue for it. The executor is
created lazily and forgotten in a forked child (its thread does not exist there).
"""

from __future__ import annotations

import contextvars
import os
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, TypeVar

from django.db import close_old_connections, connections

POOL_THREADS = 1
T = TypeVar("T")

_lock = threading.Lock()
_executor: ThreadPoolExecutor | None = None


def _pool() -> ThreadPoolExecutor:
    global _executor
    with _lock:
        if _executor is None:
            _executor = ThreadPoolExecutor(max_workers=POOL_THREADS, thread_name_prefix="memhq-helper")
        return _executor


def _job(fn: Callable[..., T], args: tuple[Any, ...], kwargs: dict[str, Any]) -> T:
    close_old_connections()
    try:
        return fn(*args, **kwargs)
    finally:
        close_old_connections()


def submit(fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> Future[T]:
    """Run ``fn`` on the helper in a copy of the caller's context (the read replica routing chose)."""
    return _pool().submit(contextvars.copy_context().run, _job, fn, args, kwargs)


def shutdown() -> None:
    """Close the helper's database connection and stop it (tests; a process that stops serving)."""
    global _executor
    with _lock:
        executor, _executor = _executor, None
    if executor is not None:
        executor.submit(connections.close_all).result()
        executor.shutdown(wait=True)


def _forget_after_fork() -> None:
    global _executor, _lock
    _executor, _lock = None, threading.Lock()


os.register_at_fork(after_in_child=_forget_after_fork)
