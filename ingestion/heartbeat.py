"""Workers announce themselves: a consumer bootstep upserts a ``WorkerHeartbeat`` row every
``MEMHQ_WORKER_HEARTBEAT_S`` from the consumer's own event loop, so the row goes stale when the process dies
or its consumer stops consuming (the broker is gone and it is reconnecting, or it is wedged). ``/healthz``
says "unhealthy" when no row is fresher than ``MEMHQ_WORKER_HEARTBEAT_TTL_S``.
"""

from __future__ import annotations

import logging
import os
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import close_old_connections
from django.utils import timezone

from ingestion.consumer_step import RepeatingConsumerStep

logger = logging.getLogger(__name__)


def beat(node: str, started_at: Any) -> None:
    from memhq.models import WorkerHeartbeat

    WorkerHeartbeat.objects.update_or_create(
        node=node, defaults={"pid": os.getpid(), "started_at": started_at, "seen_at": timezone.now()}
    )


def live_workers() -> int:
    """How many workers announced themselves within the TTL."""
    from memhq.models import WorkerHeartbeat

    fresh = timezone.now() - timedelta(seconds=settings.MEMHQ_WORKER_HEARTBEAT_TTL_S)
    return WorkerHeartbeat.objects.filter(seen_at__gte=fresh).count()


class Heartbeat(RepeatingConsumerStep):
    """Writes this worker's heartbeat row while the consumer consumes."""

    def __init__(self, parent: Any, **kwargs: Any) -> None:
        self.started_at = timezone.now()
        super().__init__(parent, **kwargs)

    def start(self, c: Any) -> None:
        self.beat(c)
        self.repeat(c, settings.MEMHQ_WORKER_HEARTBEAT_S, self.beat)

    def shutdown(self, c: Any) -> None:
        from memhq.models import WorkerHeartbeat

        super().shutdown(c)
        try:
            WorkerHeartbeat.objects.filter(node=c.hostname, pid=os.getpid()).delete()
        except Exception:
            logger.warning("could not remove this worker's heartbeat", exc_info=True)

    def beat(self, c: Any) -> None:
        try:
            beat(c.hostname, self.started_at)
        except Exception:  # the database is away: /healthz says so anyway; try again next time
            logger.warning("could not write the worker heartbeat", exc_info=True)
            close_old_connections()
