"""``/healthz``: 200 when the database and the broker answer and at least one worker is consuming (its
heartbeat is fresh, ingestion/heartbeat.py); 503 in the error shape, naming what failed, otherwise. A
pipeline nobody consumes accepts episodes that are never processed: that is unhealthy. With read replicas,
``replicas`` reports each one's state and lag; one that is down is left out of reads, so it is not a failure.

Anyone may call it, so the body names the failed dependency only: the exception (hosts, ports, users) goes to
the web process's log at WARNING.
"""

from __future__ import annotations

import logging

from django.conf import settings
from django.db import connection
from drf_spectacular.utils import extend_schema
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from config.celery import app as celery_app
from memhq.api.errors import error_body
from memhq.replicas.pool import POOL

BROKER_PING_TIMEOUT_S = 2.0
UNREACHABLE = "unreachable (details in the web log)"
logger = logging.getLogger(__name__)


def _database_ok() -> str | None:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
        return None
    except Exception:  # any failure means "not healthy"; the reason goes to the log, never the body
        logger.warning("healthz: database unreachable", exc_info=True)
        return UNREACHABLE


def _broker_ok() -> str | None:
    try:
        with celery_app.connection_for_write() as conn:
            conn.ensure_connection(max_retries=1, timeout=BROKER_PING_TIMEOUT_S)
        return None
    except Exception:
        logger.warning("healthz: broker unreachable", exc_info=True)
        return UNREACHABLE


def _workers_ok() -> str | None:
    from ingestion.heartbeat import live_workers

    try:
        if live_workers():
            return None
    except Exception:
        logger.warning("healthz: worker heartbeats unreadable", exc_info=True)
        return UNREACHABLE
    return f"No worker has announced itself in the last {settings.MEMHQ_WORKER_HEARTBEAT_TTL_S:g}s."


class HealthView(APIView):
    authentication_classes: list[type] = []
    permission_classes = [AllowAny]
    throttle_classes: list[type] = []

    @extend_schema(exclude=True)
    def get(self, request: Request) -> Response:
        checks = {"database": _database_ok(), "broker": _broker_ok(), "workers": _workers_ok()}
        failed = {name: [error] for name, error in checks.items() if error is not None}
        if failed:
            return Response(error_body(503, "A dependency is unreachable.", failed), status=503)
        body: dict[str, object] = {"status": "ok", "checks": {name: "ok" for name in checks}}
        replicas = POOL.states(fresh=True)
        if replicas:  # a replica that is down is left out of reads, not a failure of the service
            body["replicas"] = {state.alias: state.as_dict() for state in replicas}
        return Response(body)
