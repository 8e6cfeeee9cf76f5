"""One helper thread per process, for work that runs beside the caller's: the second embedder's model
(``memhq.ai.e5``) while MiniLM runs on the caller's thread, in recall (``retrieval.query_vectors``) and in
the index phase (``ingestion.phases.index``).

onnxruntime runs a graph without holding the GIL, so two models on two threads take about as long as the
slower one, on a box with a core to spare. The thread is started on first use after a fork (an executor
inherited from a parent that had used it would wait on a thread the child does not have).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import ParamSpec, TypeVar

P = ParamSpec("P")
T = TypeVar("T")

_lock = threading.Lock()
_pool: tuple[int, ThreadPoolExecutor] | None = None


def helper() -> ThreadPoolExecutor:
    """This process's one helper thread (a new one in a forked child)."""
    global _pool
    with _lock:
        if _pool is None or _pool[0] != os.getpid():
            _pool = (os.getpid(), ThreadPoolExecutor(max_workers=1, thread_name_prefix="memhq-beside"))
        return _pool[1]


def beside(function: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> Future[T]:
    """``function(*args, **kwargs)`` started on the helper thread; the caller takes ``.result()``."""
    return helper().submit(function, *args, **kwargs)
