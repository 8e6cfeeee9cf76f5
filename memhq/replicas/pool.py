"""The replicas this process may read from, and how far behind each one is.

``states()`` probes at most every ``MEMHQ_REPLICA_CHECK_S`` (on the request path, so a web process with
replicas spends two small queries a second on it): the primary's WAL position, then on each replica its
replayed position, whether replay is paused and the age of the last transaction it replayed. A replica is
*usable* when it answered, is in recovery, and its lag is within ``MEMHQ_REPLICA_MAX_LAG_S``; one that failed
(the probe or a read on it) is left out for ``MEMHQ_REPLICA_RETRY_S`` before it is probed again, so a
stopped replica costs one failed connection per retry period, not one per request.

Lag in seconds is the standard measure: 0 when the replica has replayed everything the primary has written,
else the age of the last transaction it replayed (an idle primary's first new write can make it look old for
one probe period; the byte lag says how much is outstanding).
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass

from django.conf import settings
from django.db import DatabaseError, connections

from config.databases import PRIMARY, REPLICA_PREFIX

logger = logging.getLogger(__name__)

PROBE_SQL = """
SELECT pg_is_in_recovery(), pg_last_wal_replay_lsn()::text,
       CASE WHEN pg_is_in_recovery() THEN pg_is_wal_replay_paused() END,
       extract(epoch FROM clock_timestamp() - pg_last_xact_replay_timestamp())
"""
REPLAY_SQL = "SELECT pg_last_wal_replay_lsn()::text"
PRIMARY_LSN_SQL = "SELECT pg_current_wal_lsn()::text"


def lsn_int(text: str | None) -> int:
    """``'16/B374D848'`` → its byte position (pg_lsn's two 32-bit halves)."""
    if not text:
        return 0
    high, low = text.split("/")
    return (int(high, 16) << 32) | int(low, 16)


def aliases() -> list[str]:
    """The configured replicas (``DATABASE_REPLICA_URLS``; tests add one to ``connections.settings``)."""
    return [alias for alias in connections.settings if alias.startswith(REPLICA_PREFIX)]


@dataclass(frozen=True)
class ReplicaState:
    alias: str
    up: bool
    replay_lsn: int = 0
    lag_bytes: int = 0
    lag_s: float = 0.0
    paused: bool = False
    problem: str = ""

    @property
    def usable(self) -> bool:
        return self.up and self.lag_s <= settings.MEMHQ_REPLICA_MAX_LAG_S

    def as_dict(self) -> dict[str, object]:
        return {
            "up": self.up,
            "usable": self.usable,
            "lag_seconds": round(self.lag_s, 3),
            "lag_bytes": self.lag_bytes,
            "replay_paused": self.paused,
            **({"problem": self.problem} if self.problem else {}),
        }


class Pool:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._states: dict[str, ReplicaState] = {}
        self._checked_at = 0.0
        self._down_until: dict[str, float] = {}

    def states(self, *, fresh: bool = False) -> list[ReplicaState]:
        names = aliases()
        if not names:
            return []
        with self._lock:
            now = time.monotonic()
            if fresh or now - self._checked_at >= settings.MEMHQ_REPLICA_CHECK_S:
                self._states = self._probe(names, now)
                self._checked_at = now
            return list(self._states.values())

    def usable(self) -> list[ReplicaState]:
        return [state for state in self.states() if state.usable]

    def replay_lsn(self, alias: str) -> int | None:
        """The replica's replayed position now (one query); None if it failed (then it is left out)."""
        try:
            with connections[alias].cursor() as cursor:
                cursor.execute(REPLAY_SQL)
                return lsn_int(cursor.fetchone()[0])
        except DatabaseError:
            self.mark_down(alias, "the replay position query failed")
            return None

    def mark_down(self, alias: str, problem: str) -> None:
        logger.warning("replica %s left out for %ss: %s", alias, settings.MEMHQ_REPLICA_RETRY_S, problem)
        connections[alias].close()
        with self._lock:
            self._down_until[alias] = time.monotonic() + settings.MEMHQ_REPLICA_RETRY_S
            self._states[alias] = ReplicaState(alias, up=False, problem=problem)

    def forget(self) -> None:
        """Drop what was probed (tests; a changed replica list)."""
        with self._lock:
            self._states, self._checked_at, self._down_until = {}, 0.0, {}

    def _probe(self, names: list[str], now: float) -> dict[str, ReplicaState]:
        try:
            with connections[PRIMARY].cursor() as cursor:
                cursor.execute(PRIMARY_LSN_SQL)
                primary_lsn = lsn_int(cursor.fetchone()[0])
        except DatabaseError:
            primary_lsn = 0  # the primary is away: a replica's lag is unknown, its own answer still counts
        states = {}
        for alias in names:
            if self._down_until.get(alias, 0.0) > now:
                states[alias] = self._states.get(alias) or ReplicaState(alias, up=False, problem="left out")
                continue
            states[alias] = self._probe_one(alias, primary_lsn)
            if not states[alias].up:
                self._down_until[alias] = now + settings.MEMHQ_REPLICA_RETRY_S
        return states

    def _probe_one(self, alias: str, primary_lsn: int) -> ReplicaState:
        try:
            with connections[alias].cursor() as cursor:
                cursor.execute(PROBE_SQL)
                in_recovery, replay, paused, age_s = cursor.fetchone()
        except DatabaseError as exc:
            logger.warning("replica %s did not answer: %s", alias, exc)
            connections[alias].close()
            return ReplicaState(alias, up=False, problem="unreachable (details in the log)")
        if not in_recovery:
            return ReplicaState(alias, up=False, problem="not in recovery (a promoted replica)")
        replay_lsn = lsn_int(replay)
        lag_bytes = max(primary_lsn - replay_lsn, 0) if primary_lsn else 0
        lag_s = float(age_s or 0.0) if lag_bytes > 0 else 0.0
        return ReplicaState(alias, True, replay_lsn, lag_bytes, max(lag_s, 0.0), bool(paused))


POOL = Pool()
