"""The per-user erasure lock: an erasure holds it exclusively for its whole transaction; every write that
starts new work for a user (``episode_create``: /add and thread cuts) takes it shared for its own
transaction, without waiting. So a write never lands in the middle of an erasure (it is refused with
``ErasureInProgress`` → 409), and an erasure waits for writes already in flight to commit, then removes
them too.
"""

from __future__ import annotations

import uuid

from django.db import OperationalError, connection, transaction

from memhq.services.locks import LockNamespace


class ErasureInProgress(Exception):
    """The user's data is being erased right now; new work for that user is refused."""


def erasure_key(project_id: uuid.UUID, user_id: str) -> str:
    """The text hashed into the second half of the lock key (with LockNamespace.ERASURE as the first)."""
    return f"{project_id}:{user_id}"


def _key(project_id: uuid.UUID, user_id: str) -> tuple[int, str]:
    return (int(LockNamespace.ERASURE), erasure_key(project_id, user_id))


def erasure_guard(project_id: uuid.UUID, user_id: str) -> None:
    """Take the user's erasure lock shared until the transaction ends; raise if an erasure holds it.

    Call inside ``atomic`` (the lock is transaction-scoped).
    """
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_xact_lock_shared(%s, hashtext(%s))", _key(project_id, user_id))
        row = cursor.fetchone()
    if not row or not row[0]:
        raise ErasureInProgress(user_id)


def erasure_lock(project_id: uuid.UUID, user_id: str, timeout_s: float) -> None:
    """Take the user's erasure lock exclusively, waiting at most ``timeout_s`` for in-flight writes.

    Raises ``ErasureInProgress`` when it cannot (another erasure of the same user is running).
    """
    try:
        with transaction.atomic(), connection.cursor() as cursor:  # a savepoint: a timeout must not poison
            cursor.execute(
                "SELECT current_setting('lock_timeout'), set_config('lock_timeout', %s, true)",
                [f"{max(1, int(timeout_s * 1000))}ms"],
            )
            row = cursor.fetchone()
            cursor.execute("SELECT pg_advisory_xact_lock(%s, hashtext(%s))", _key(project_id, user_id))
            cursor.execute("SELECT set_config('lock_timeout', %s, true)", [row[0] if row else "0"])
    except OperationalError as exc:  # lock_not_available
        raise ErasureInProgress(user_id) from exc
