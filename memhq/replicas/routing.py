"""Which database a read runs on: a replica that has replayed the reader's last write, else the primary.

``read(fn, scopes)`` chooses, runs ``fn`` with the choice in a context variable (``current()``; the router
and recall's raw SQL read it), and if the replica fails under it (it stopped since the last probe), leaves
that replica out and runs ``fn`` again on the primary. Nothing here ever fails a read: no usable replica,
Redis not answering, or a replica behind the scopes' last write all mean the primary.

Choice: replicas are taken in turn (per process) among the usable ones. If the chosen one's probed position
is behind what ``scopes`` last wrote, its position is asked once more (it is usually a few ms behind, so
this mostly succeeds); still behind → the primary, rather than waiting.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from contextvars import ContextVar
from typing import TypeVar

import redis
from django.db import DatabaseError, InterfaceError, OperationalError

from config.databases import PRIMARY
from memhq.ops import metrics
from memhq.replicas import freshness
from memhq.replicas.pool import POOL

T = TypeVar("T")

_current: ContextVar[str] = ContextVar("memhq_read_alias", default=PRIMARY)
_turn = itertools.count()


def current() -> str:
    """The alias reads of this request use (``default`` outside ``read``)."""
    return _current.get()


def on_replica() -> bool:
    return _current.get() != PRIMARY


def choose(scopes: list[str]) -> tuple[str, str]:
    """(alias, reason): reason is ``replica`` or why the primary (``metrics.READS``' label)."""
    usable = POOL.usable()
    if not usable:
        return PRIMARY, "no_replica"
    try:
        position = freshness.needed(scopes)
    except redis.RedisError:
        return PRIMARY, "writes_unknown"
    state = usable[next(_turn) % len(usable)]
    if state.replay_lsn >= position:
        return state.alias, "replica"
    replayed = POOL.replay_lsn(state.alias)
    if replayed is not None and replayed >= position:
        return state.alias, "replica"
    return PRIMARY, "replica_behind"


def _replica_failed(exc: DatabaseError) -> bool:
    """The replica's connection failed (leave it out), rather than this query: a query cancelled by a
    recovery conflict (SQLSTATE class 40) or any other query error only runs again on the primary."""
    sqlstate = getattr(exc.__cause__, "sqlstate", None) or ""
    return isinstance(exc, OperationalError | InterfaceError) and not sqlstate.startswith("40")


def read(fn: Callable[[], T], scopes: list[str]) -> T:
    alias, reason = choose(scopes)
    token = _current.set(alias)
    try:
        try:
            result = fn()
        except DatabaseError as exc:
            if alias == PRIMARY:
                raise
            if _replica_failed(exc):
                POOL.mark_down(alias, f"a read failed: {type(exc).__name__}")
            alias, reason = PRIMARY, "replica_failed"
            _current.set(PRIMARY)
            result = fn()
        metrics.READS.labels("replica" if alias != PRIMARY else "primary", reason).inc()
        return result
    finally:
        _current.reset(token)
