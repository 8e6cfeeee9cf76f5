"""The floor /add is compared with: a plain Django view that stores the raw body with ONE INSERT.

No DRF, no authentication, no validation, no enqueue: the same middleware, the same gunicorn, the same
Postgres table and an episode-sized row (raw body, hash, defaults of every other column). Whatever /add
costs above this is the price of authentication, validation, DRF and the Celery publish.

Mounted only by ``tooling.bench.urls`` when ``MEMHQ_BENCH_BASELINE=1``; never part of normal serving.
"""

from __future__ import annotations

import hashlib
import uuid
from functools import cache
from typing import Any

from django.db import connection
from django.http import HttpRequest, HttpResponse, HttpResponseNotAllowed, JsonResponse
from django.utils import timezone
from django.views.decorators.csrf import csrf_exempt

from memhq.models import Episode

BASELINE_ROUTE = "v1/tooling/bench/baseline-add"
PROJECT_HEADER = "X-MemHQ-Bench-Project"
BASELINE_USER_ID = "bench-baseline"
# Columns the view fills per request; every other column gets its model default.
PER_REQUEST = ("id", "project_id", "user_id", "raw_body", "content_hash", "received_at")


@cache
def insert_statement() -> tuple[str, tuple[Any, ...]]:
    """``INSERT INTO memhq_episode (...) VALUES (...)`` and the prepared defaults of the other columns."""
    fields = [field for field in Episode._meta.concrete_fields if field.attname not in PER_REQUEST]
    columns = [*PER_REQUEST, *(str(field.column) for field in fields)]
    defaults = tuple(field.get_db_prep_save(field.get_default(), connection) for field in fields)
    quoted = ", ".join(connection.ops.quote_name(column) for column in columns)
    placeholders = ", ".join(["%s"] * len(columns))
    return (
        f"INSERT INTO {connection.ops.quote_name(Episode._meta.db_table)} ({quoted}) VALUES ({placeholders})",
        defaults,
    )


@csrf_exempt
def baseline_add(request: HttpRequest) -> HttpResponse:
    if request.method != "POST":
        return HttpResponseNotAllowed(["POST"])
    raw_body = request.body
    episode_id, received_at = uuid.uuid4(), timezone.now()
    sql, defaults = insert_statement()
    row = (
        episode_id,
        request.headers[PROJECT_HEADER],
        BASELINE_USER_ID,
        raw_body,
        hashlib.sha256(raw_body).hexdigest(),
        received_at,
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, row + defaults)
    body = {"episode_id": str(episode_id), "status": "queued", "received_at": received_at.isoformat()}
    return JsonResponse(body, status=202)
