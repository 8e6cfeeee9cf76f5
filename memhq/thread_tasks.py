"""Celery tasks for working memory (threads): thin adapters to ``memhq.threads``.

Discovered by ``config.celery`` (``autodiscover_tasks(["memhq"], related_name="thread_tasks")``).
"""

from __future__ import annotations

import logging

from celery import Task
from django.conf import settings
from django.db import InterfaceError, OperationalError

from config.celery import app
from memhq.ai.errors import TransientAIError
from memhq.ops.backoff import retry_countdown
from memhq.threads import compaction, sweep

logger = logging.getLogger(__name__)

TRANSIENT_ERRORS = (TransientAIError, OperationalError, InterfaceError, ConnectionError, TimeoutError)


class ThreadTask(Task):
    acks_late = True
    reject_on_worker_lost = True
    ignore_result = True


@app.task(bind=True, base=ThreadTask, name=compaction.COMPACT_TASK)
def compact(self: Task, thread_id: str) -> str:
    """Fold the thread's older messages into its summary; idempotent (a compare-and-swap writes it)."""
    retries = self.request.retries
    final = retries >= settings.MEMHQ_TASK_MAX_RETRIES
    try:
        return compaction.compact(thread_id, final_attempt=final).value
    except TRANSIENT_ERRORS as exc:
        if final:
            raise
        countdown = retry_countdown(retries)
        logger.warning("compaction of thread %s: %s; retry in %ss", thread_id, exc, countdown)
        raise self.retry(exc=exc, countdown=countdown, max_retries=settings.MEMHQ_TASK_MAX_RETRIES) from exc


@app.task(base=ThreadTask, name="threads.inactivity_sweep")
def inactivity_sweep() -> int:
    """Cut due threads into episodes, expire temporary threads, re-enqueue lost compactions."""
    result = sweep.inactivity_sweep()
    return result.episodes
