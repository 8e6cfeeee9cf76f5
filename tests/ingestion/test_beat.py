"""Celery beat with django-celery-beat's DatabaseScheduler: the schedules declared in settings land in the
database and beat enqueues the sweeps (it only enqueues; workers run them)."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import redis
from django.conf import settings
from django_celery_beat.models import PeriodicTask

from tests.support.worker import celery_process, worker_env

ENQUEUE_TIMEOUT_S = 30.0
#: Sweeps on a seconds-long interval: beat must enqueue each soon after it starts.
FREQUENT_SWEEPS = {"ingestion.outbox_sweep", "webhooks.sweep", "threads.inactivity_sweep"}


def queued_task_names(broker: redis.Redis) -> set[str]:
    names = set()
    for raw in broker.lrange(settings.MEMHQ_QUEUES["sweeps"], 0, -1):
        headers = json.loads(raw).get("headers", {})
        names.add(headers.get("task"))
    return names


def test_beat_stores_the_declared_schedules_and_enqueues_the_sweeps(
    transactional_db: None, broker: redis.Redis, tmp_path: Path
) -> None:
    args = ["beat", "--loglevel=INFO", f"--schedule={tmp_path / 'beat-schedule'}", "--max-interval=1"]
    with celery_process(args, worker_env(), tmp_path / "beat.log", ready="beat: Starting"):
        declared = {entry["task"] for entry in settings.CELERY_BEAT_SCHEDULE.values()}
        assert FREQUENT_SWEEPS.issubset(declared)
        deadline = time.monotonic() + ENQUEUE_TIMEOUT_S
        seen: set[Any] = set()
        while time.monotonic() < deadline and not FREQUENT_SWEEPS.issubset(seen):
            seen = queued_task_names(broker)
            time.sleep(0.2)
    assert FREQUENT_SWEEPS.issubset(seen), f"beat enqueued {seen}, expected {FREQUENT_SWEEPS}"
    stored = set(PeriodicTask.objects.values_list("task", flat=True))
    assert declared <= stored
