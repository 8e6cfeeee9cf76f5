"""Celery task for deep consolidation: a thin adapter to ``memhq.services.consolidation``.

Discovered by ``config.celery`` (``autodiscover_tasks(["memhq"], related_name="consolidation_tasks")``);
beat enqueues it every ``MEMHQ_CONSOLIDATION_EVERY_S`` (``CELERY_BEAT_SCHEDULE["consolidation-sweep"]``).
"""

from __future__ import annotations

from celery import Task

from config.celery import app
from memhq.services import consolidation


class ConsolidationTask(Task):
    acks_late = True
    reject_on_worker_lost = True
    ignore_result = True


@app.task(base=ConsolidationTask, name="memhq.consolidation_sweep")
def consolidation_sweep() -> int:
    """Run chunks of the current pass; a sweep killed mid-way loses only its uncommitted chunk."""
    return consolidation.consolidation_sweep().chunks
