"""A bound on each database call of a web request, enforced by the client (issue 14: a frozen database).

``connect_timeout`` bounds opening a connection and a server-side ``statement_timeout`` bounds a query the
server runs, but neither helps when the server stops answering on a connection that is already open (a
SIGSTOPped or wedged PostgreSQL, a network path that silently drops): the request then waits for as long as
the server stays frozen, and every gunicorn thread that touches the database piles up behind it.

``QueryWatchdogMiddleware`` installs an ``execute_wrapper`` on the request's connections: each call
registers a deadline ``MEMHQ_REQUEST_QUERY_TIMEOUT_S`` away with one watchdog thread per process. If the call
is still running at its deadline, the watchdog shuts the connection's socket down; the blocked read returns,
psycopg raises ``OperationalError`` and the request answers 503 with ``Retry-After``
(``memhq.api.errors``); Django replaces the broken connection on the next request. What a cut call did on
the server is unknown, as after any timeout: a 503 ``/add`` may have been stored (a retry with its
``Idempotency-Key`` gets the same episode), but a 2xx is only ever sent after the commit.

Cost: a lock, a dict entry and a heap push per call (a few microseconds); the thread is woken only when a
call's deadline is the earliest pending, and drops the calls that finished when it wakes. Workers are not
guarded: their calls are bounded by the phase's claim and retried by Celery.
"""

from __future__ import annotations

import heapq
import itertools
import logging
import os
import socket
import threading
import time
from collections.abc import Callable
from contextlib import ExitStack
from typing import Any

from django.conf import settings
from django.db import connections
from django.http import HttpRequest, HttpResponse

logger = logging.getLogger(__name__)


class Watchdog:
    def __init__(self) -> None:
        self._lock = threading.Condition()
        self._calls: dict[int, tuple[float, Any]] = {}
        self._deadlines: list[tuple[float, int]] = []
        self._numbers = itertools.count()
        self._pid = 0

    def _ensure_thread(self) -> None:
        if self._pid != os.getpid():  # first use in this process (gunicorn forks after import)
            self._pid = os.getpid()
            self._calls.clear()
            self._deadlines.clear()
            threading.Thread(target=self._run, name="memhq-query-watchdog", daemon=True).start()

    def start(self, raw_connection: Any, timeout_s: float) -> int:
        deadline = time.monotonic() + timeout_s
        with self._lock:
            self._ensure_thread()
            number = next(self._numbers)
            self._calls[number] = (deadline, raw_connection)
            heapq.heappush(self._deadlines, (deadline, number))
            if self._deadlines[0][1] == number:  # the earliest now: wake the thread (else it wakes in time)
                self._lock.notify()
        return number

    def finish(self, number: int) -> None:
        with self._lock:
            self._calls.pop(number, None)

    def _run(self) -> None:
        while True:
            with self._lock:
                while self._deadlines and self._deadlines[0][1] not in self._calls:
                    heapq.heappop(self._deadlines)  # finished in time
                if not self._deadlines:
                    self._lock.wait()
                    continue
                deadline, number = self._deadlines[0]
                wait_s = deadline - time.monotonic()
                if wait_s > 0:
                    self._lock.wait(wait_s)
                    continue
                heapq.heappop(self._deadlines)
                _, raw_connection = self._calls.pop(number)
            _cut(raw_connection)


def _cut(raw_connection: Any) -> None:
    """Shut the connection's socket down so that the thread blocked reading it gets an error."""
    try:
        with socket.socket(fileno=os.dup(raw_connection.fileno())) as sock:
            sock.shutdown(socket.SHUT_RDWR)
        logger.warning("a database call ran past MEMHQ_REQUEST_QUERY_TIMEOUT_S: its connection was cut")
    except (OSError, ValueError):  # already closed
        pass


WATCHDOG = Watchdog()


def _guard(connection: Any, timeout_s: float) -> Callable[..., Any]:
    def wrapper(execute: Callable[..., Any], sql: Any, params: Any, many: bool, context: Any) -> Any:
        number = WATCHDOG.start(connection.connection, timeout_s)
        try:
            return execute(sql, params, many, context)
        finally:
            WATCHDOG.finish(number)

    return wrapper


def _checked(connection: Any, timeout_s: float) -> None:
    """Django's health check of a persistent connection (``CONN_HEALTH_CHECKS``), run now under the same
    deadline: Django runs its ``SELECT 1`` on the raw connection, outside every ``execute_wrapper``, so on a
    frozen server the first request of each reused connection hung until the server came back (30 s in
    tests/faults/test_database_under_load.py). A cut check closes the connection; the request then opens a
    new one within ``connect_timeout`` or answers 503."""
    if connection.connection is None or connection.health_check_done or not connection.health_check_enabled:
        return
    number = WATCHDOG.start(connection.connection, timeout_s)
    try:
        connection.close_if_health_check_failed()
    finally:
        WATCHDOG.finish(number)


class QueryWatchdogMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        timeout_s = settings.MEMHQ_REQUEST_QUERY_TIMEOUT_S
        if timeout_s <= 0:
            return self.get_response(request)
        for connection in connections.all(initialized_only=True):
            _checked(connection, timeout_s)
        with ExitStack() as stack:
            for connection in connections.all(initialized_only=False):
                stack.enter_context(connection.execute_wrapper(_guard(connection, timeout_s)))
            return self.get_response(request)
