"""Read-your-writes: the primary's WAL position after each user-visible write, kept per scope in Redis.

A write that a later read must see (``/add``'s pending episode, a thread's turn, a memory edit, an erasure,
an episode's completion) calls ``wrote(project_id, user_id=..., thread_id=...)`` inside its transaction.
Once that commits, ``pg_current_wal_lsn()`` (a position at or after the commit record) is stored under the
user's, the thread's and the project's key, each only ever raised (one Lua script: concurrent writers can
never lower it). A read then asks for the highest position of the scopes it covers (recall: the user; a
thread's prepare: the thread; a project-wide list: the project) and may use a replica only once that
replica has replayed past it (memhq/replicas/routing.py).

Why per scope in Redis, not per request: the writer and the reader are often different processes (an
agent's web request, then a worker's completion, then another web process's recall), and a client need not
carry a token. Costs: with replicas configured, one more primary query and one Redis call per write; none
without replicas. If Redis does not answer when a read asks, the read goes to the primary; if it did not
answer when the write was recorded, that one write is not protected (logged at WARNING).
"""

from __future__ import annotations

import logging
import threading
import uuid
from functools import partial
from typing import Any

import redis
from django.conf import settings
from django.db import connections, transaction

from config.databases import PRIMARY
from memhq.replicas.pool import PRIMARY_LSN_SQL, aliases, lsn_int

logger = logging.getLogger(__name__)

KEY_PREFIX = "memhq:written:"
REDIS_TIMEOUT_S = 0.25
# KEYS: the scopes; ARGV: the position, the TTL in seconds. Raises each key to the position, never lowers it.
RAISE = """
for _, key in ipairs(KEYS) do
    local current = tonumber(redis.call('GET', key) or '0')
    if current < tonumber(ARGV[1]) then
        redis.call('SET', key, ARGV[1], 'EX', ARGV[2])
    else
        redis.call('EXPIRE', key, ARGV[2])
    end
end
return 1
"""

_lock = threading.Lock()
_client: Any = None
_raise: Any = None


def _redis() -> tuple[Any, Any]:
    global _client, _raise
    with _lock:
        if _client is None:
            _client = redis.Redis.from_url(
                settings.REDIS_URL, socket_timeout=REDIS_TIMEOUT_S, socket_connect_timeout=REDIS_TIMEOUT_S
            )
            _raise = _client.register_script(RAISE)
        return _client, _raise


def keys(
    project_id: uuid.UUID | str, *, user_id: str | None = None, thread_id: str | None = None
) -> list[str]:
    project = f"{KEY_PREFIX}{project_id}"
    scopes = [project]
    if user_id is not None:
        scopes.append(f"{project}:user:{user_id}")
    if thread_id is not None:
        scopes.append(f"{project}:thread:{thread_id}")
    return scopes


def wrote(project_id: uuid.UUID | str, *, user_id: str | None = None, thread_id: str | None = None) -> None:
    """Record, once the current transaction commits, that these scopes were written (no-op without
    replicas)."""
    if not aliases():
        return
    transaction.on_commit(
        partial(_record, keys(project_id, user_id=user_id, thread_id=thread_id)), using=PRIMARY
    )


def _record(scopes: list[str]) -> None:
    try:
        with connections[PRIMARY].cursor() as cursor:
            cursor.execute(PRIMARY_LSN_SQL)
            position = lsn_int(cursor.fetchone()[0])
        _redis()[1](keys=scopes, args=[position, settings.MEMHQ_REPLICA_WRITE_TTL_S])
    except Exception:  # the write has committed; failing it now would only lose the response
        logger.warning("could not record the write position of %s", scopes[-1], exc_info=True)


def needed(scopes: list[str]) -> int:
    """The highest position written in these scopes (0: none remembered). Raises ``redis.RedisError``."""
    if not scopes:
        return 0
    values = _redis()[0].mget(scopes)
    return max((int(value) for value in values if value is not None), default=0)
