"""The outbox relay: ``LISTEN memhq_outbox`` on its own connection, publish what is pending on every
notification (and every ``MEMHQ_RELAY_POLL_S`` anyway), back off while the broker or the database is away.

Run it as ``python manage.py memhq_relay`` (a Procfile and compose process). Several relays may run; the
rows are shared with ``SKIP LOCKED`` (ingestion/outbox.py).
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Any

import psycopg
from django.conf import settings
from django.db import close_old_connections, connection
from django.db.utils import DatabaseError, InterfaceError

from ingestion.outbox import CHANNEL, PublishFailed, drain

logger = logging.getLogger(__name__)

BACKOFF_MIN_S = 0.1
STOP_SLICE_S = 1.0
READY_LINE = "relay: listening"


def listener() -> psycopg.Connection[Any]:
    """A connection of its own (autocommit) that listens on the outbox channel."""
    params = connection.get_connection_params()
    params.pop("cursor_factory", None)  # Django's; a plain psycopg connection is all this needs
    conn = psycopg.connect(**params, autocommit=True)
    conn.execute(f"LISTEN {CHANNEL}")
    return conn


class Relay:
    def __init__(self) -> None:
        self.stop = threading.Event()
        self.listening = threading.Event()  # set once LISTEN is in place (tests wait for it)
        self.published = 0

    def run(self) -> None:
        conn: psycopg.Connection[Any] | None = None
        backoff = BACKOFF_MIN_S
        announced = False
        while not self.stop.is_set():
            try:
                if conn is None or conn.closed:
                    conn = listener()
                    self.listening.set()
                    if not announced:
                        logger.info(READY_LINE)
                        announced = True
                # Drain after LISTEN, so a commit between the two is never missed.
                self.published += drain()
                backoff = BACKOFF_MIN_S
                wait = settings.MEMHQ_RELAY_POLL_S
            except PublishFailed as exc:
                logger.warning("relay: broker unavailable (%s); retrying in %.1fs", exc, backoff)
                wait, backoff = backoff, min(backoff * 2, settings.MEMHQ_RELAY_BACKOFF_MAX_S)
            except (DatabaseError, InterfaceError, psycopg.Error) as exc:
                logger.warning("relay: database unavailable (%s); retrying in %.1fs", exc, backoff)
                close_old_connections()
                connection.close()
                if conn is not None:
                    conn.close()
                conn = None
                wait, backoff = backoff, min(backoff * 2, settings.MEMHQ_RELAY_BACKOFF_MAX_S)
            self._wait(conn, wait)
        if conn is not None:
            conn.close()

    def _wait(self, conn: psycopg.Connection[Any] | None, seconds: float) -> None:
        """Until a notification arrives, ``seconds`` pass or the relay is stopped."""
        if conn is None or conn.closed:
            self.stop.wait(seconds)
            return
        deadline = time.monotonic() + seconds
        try:
            while not self.stop.is_set() and (left := deadline - time.monotonic()) > 0:
                # In short slices, so a stop request is seen within STOP_SLICE_S.
                if any(True for _ in conn.notifies(timeout=min(left, STOP_SLICE_S), stop_after=1)):
                    return
        except psycopg.Error:
            conn.close()  # reconnected on the next turn
