"""Transaction-scoped advisory locks keyed by (namespace, project, user)."""

from __future__ import annotations

import uuid
from enum import IntEnum

from django.db import connection


class LockNamespace(IntEnum):
    ENTITIES = 1
    MEMORIES = 2
    ERASURE = 3  # memhq.services.erasure_guard: /add takes it shared, an erasure exclusively


def lock_user(namespace: LockNamespace, project_id: uuid.UUID, user_id: str) -> None:
    """``pg_advisory_xact_lock``: held until the surrounding transaction ends; call inside ``atomic``."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_advisory_xact_lock(%s, hashtext(%s))", [int(namespace), f"{project_id}:{user_id}"]
        )
