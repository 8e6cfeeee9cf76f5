"""Helper threads, for work that runs beside the caller's: the second embedder's model (``memhq.ai.e5``)
while MiniLM runs on the caller's thread, in recall (``retrieval.query_vectors``) and in the index phase
(``ingestion.phases.index``).

onnxruntime runs a graph without holding the GIL, so two models on two threads take about as long as the
slower one, on a box with a core to spare. Up to ``MAX_HELPERS`` per process, each started only when every
started one is busy: a Celery prefork child runs one task at a time and starts one; a gunicorn worker
serving four requests at once (``--threads 4``, the Procfile) does not queue their e5 work behind one
thread. The pool is made on first use after a fork (an executor inherited from a parent that had used it
would wait on threads the child does not have).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import ParamSpec, TypeVar

P = ParamSpec("P")
T = TypeVar("T")

#: As many as the requests one gunicorn worker serves at once (the Procfile's ``--threads``).
MAX_HELPERS = 4

_lock = threading.Lock()
_pool: tuple[int, ThreadPoolExecutor] | None = None


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
    return helper().submit(function, *args, **kwargs)
