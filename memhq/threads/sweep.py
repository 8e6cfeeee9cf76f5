"""The inactivity sweep (beat, every ``MEMHQ_THREADS_SWEEP_EVERY_S``), run in a worker.

1. Threads whose episode is due: each one, in its own short transaction, is locked with
   ``SELECT … FOR UPDATE SKIP LOCKED`` and its pending messages become an episode (``thread_cut``), marked
   with the episode id in the same transaction. Two sweeps running at once therefore take different threads,
   and a thread a client is writing to right now is simply left for the next sweep.
2. Temporary threads inactive for ``MEMHQ_TEMPORARY_THREAD_EXPIRY_S`` are ended: messages and summary deleted.
3. Compactions requested more than ``MEMHQ_THREAD_COMPACTION_RETRY_S`` ago and not done are enqueued again.

Each step handles at most ``SWEEP_BATCH`` threads per run; the next run carries on.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from memhq.models import Thread, ThreadStatus
from memhq.services.thread_episodes import thread_cut
from memhq.services.threads import thread_wipe
from memhq.threads.compaction import enqueue_compaction

logger = logging.getLogger(__name__)

SWEEP_BATCH = 200
#: A thread whose cut failed (a bug or bad data) is tried again after this, so it cannot starve the others.
CUT_RETRY_DELAY = timedelta(seconds=60)


@dataclass(frozen=True)
class SweepResult:
    threads_cut: int = 0
    episodes: int = 0
    expired: int = 0
    compactions: int = 0


def cut_next_due(now: datetime) -> int | None:
    """Cut one due thread that nobody else holds; the number of episodes made, or None when none is left."""
    picked = None
    try:
        with transaction.atomic():
            thread = (
                Thread.objects.select_for_update(skip_locked=True, of=("self",))
                .select_related("project")
                .filter(episode_due_at__lte=now)
                .order_by("episode_due_at")
                .first()
            )
            if thread is None:
                return None
            picked = thread.pk
            return len(thread_cut(thread=thread))
    except Exception:
        if picked is None:
            raise
        logger.exception("could not cut thread %s; trying again in %s", picked, CUT_RETRY_DELAY)
        Thread.objects.filter(pk=picked).update(episode_due_at=now + CUT_RETRY_DELAY)
        return 0


def expire_next_temporary(now: datetime) -> bool:
    cutoff = now - timedelta(seconds=settings.MEMHQ_TEMPORARY_THREAD_EXPIRY_S)
    with transaction.atomic():
        thread = (
            Thread.objects.select_for_update(skip_locked=True)
            .filter(temporary=True, status=ThreadStatus.OPEN, last_activity_at__lt=cutoff)
            .first()
        )
        if thread is None:
            return False
        thread_wipe(thread=thread, now=now)
        return True


def retry_compactions(now: datetime) -> int:
    stale = now - timedelta(seconds=settings.MEMHQ_THREAD_COMPACTION_RETRY_S)
    ids = list(
        Thread.objects.filter(compaction_requested_at__lt=stale).values_list("pk", flat=True)[:SWEEP_BATCH]
    )
    count = 0
    for thread_id in ids:
        claimed = Thread.objects.filter(pk=thread_id, compaction_requested_at__lt=stale).update(
            compaction_requested_at=now
        )
        if claimed and enqueue_compaction(thread_id):
            count += 1
    return count


def inactivity_sweep(now: datetime | None = None) -> SweepResult:
    now = now or timezone.now()
    threads_cut = episodes = expired = 0
    for _ in range(SWEEP_BATCH):
        made = cut_next_due(now)
        if made is None:
            break
        threads_cut, episodes = threads_cut + (made > 0), episodes + made
    for _ in range(SWEEP_BATCH):
        if not expire_next_temporary(now):
            break
        expired += 1
    result = SweepResult(threads_cut, episodes, expired, retry_compactions(now))
    if result != SweepResult():
        logger.info("inactivity sweep: %s", result)
    return result
