"""Reads for projects and API keys."""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, replace
from datetime import datetime

from django.conf import settings
from django.db import connection
from django.db.models import QuerySet

from memhq.models import ApiKey, Project


def api_key_list(*, project_name: str | None = None) -> QuerySet[ApiKey]:
    """Every key (or one project's), oldest first, with its project; secrets are never stored."""
    keys = ApiKey.objects.select_related("project").order_by("created_at", "pk")
    return keys.filter(project__name=project_name) if project_name is not None else keys


@dataclass(frozen=True)
class FoundKey:
    prefix: str
    key_id: int
    secret_hash: str
    revoked_at: datetime | None
    last_used_at: datetime | None
    project: Project


# One indexed read in plain SQL: on /add, the ORM's query building cost more than the query itself.
LOOKUP_SQL = """
SELECT k.id, k.secret_hash, k.revoked_at, k.last_used_at, p.id, p.name, p.settings, p.created_at
FROM memhq_apikey k JOIN memhq_project p ON p.id = k.project_id WHERE k.prefix = %s
"""

# prefix → (monotonic time read, key). Per process; a key revoked elsewhere is refused within the TTL, one
# revoked in this process at once (api_key_forget). Unknown prefixes are not kept.
_found: dict[str, tuple[float, FoundKey]] = {}
_lock = threading.Lock()


def api_key_find(prefix: str) -> FoundKey | None:
    """The key with this prefix and its project, as read at most ``MEMHQ_KEY_CACHE_S`` ago (0: every time).

    Every authenticated request asks; the cache saves /add one of its statements (the other is its INSERT).
    """
    ttl = settings.MEMHQ_KEY_CACHE_S
    now = time.monotonic()
    cached = _found.get(prefix)
    if cached is not None and now - cached[0] < ttl:
        return cached[1]
    found = _read(prefix)
    with _lock:
        if found is None or ttl <= 0:
            _found.pop(prefix, None)
        else:
            _found[prefix] = (now, found)
    return found


def api_key_used(found: FoundKey, at: datetime) -> None:
    """The cached copy learns the ``last_used_at`` just written (so the next request does not write it)."""
    with _lock:
        cached = _found.get(found.prefix)
        if cached is not None and cached[1].key_id == found.key_id:
            _found[found.prefix] = (cached[0], replace(cached[1], last_used_at=at))


def api_key_forget(prefix: str) -> None:
    with _lock:
        _found.pop(prefix, None)


def _read(prefix: str) -> FoundKey | None:
    with connection.cursor() as cursor:
        cursor.execute(LOOKUP_SQL, [prefix])
        row = cursor.fetchone()
    if row is None:
        return None
    key_id, secret_hash, revoked_at, last_used_at, project_id, name, project_settings, created_at = row
    if isinstance(project_settings, str):
        project_settings = json.loads(project_settings)
    project = Project.from_db(
        "default", ["id", "name", "settings", "created_at"], [project_id, name, project_settings, created_at]
    )
    return FoundKey(prefix, key_id, secret_hash, revoked_at, last_used_at, project)
