"""Workers announce themselves here (ingestion/heartbeat.py); ``/healthz`` reads it."""

from __future__ import annotations

from django.db import models


class WorkerHeartbeat(models.Model):
    """One row per live Celery worker (its node name), refreshed while its consumer is connected."""

    node = models.CharField(max_length=255, unique=True)
    pid = models.PositiveIntegerField()
    started_at = models.DateTimeField()
    seen_at = models.DateTimeField()

    def __str__(self) -> str:
        return f"{self.node} (pid {self.pid})"
