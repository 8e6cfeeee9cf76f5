"""Deep consolidation, steps 2 and 3: importance decay of one user's memories, and transient-failure retries.

**Importance decay.** Recency is already part of every recall (``retrieval.rerank``, relative to ``as_of``);
what consolidation refreshes is the stored importance of memories nobody has mentioned for a long time. A
memory extracted from conversation (user-stated ones keep the importance they were given) whose
``last_seen_at`` is more than ``MEMHQ_IMPORTANCE_DECAY_AFTER_DAYS`` whole days before the pass started has its
importance capped at ``0.5 ** ((days unseen - DECAY_AFTER_DAYS) / MEMHQ_IMPORTANCE_HALF_LIFE_DAYS)``, never
below ``MEMHQ_IMPORTANCE_FLOOR``, and never raised. The cap depends only on the memory and the pass's start,
so running the step twice changes nothing (a pass interrupted and resumed ends like an uninterrupted one);
a reinforcement moves ``last_seen_at`` and raises the importance back to the candidate's.

**Retries.** A failed episode whose error was transient (``error_kind``, stored by the task that gave up
after retrying one of ``ingestion.tasks.TRANSIENT_ERRORS``) and that has been failed
for ``MEMHQ_CONSOLIDATION_RETRY_AFTER_S`` is set back to queued and re-enqueued from the phase that failed,
at most ``MEMHQ_CONSOLIDATION_MAX_EPISODE_RETRIES`` times (counted in ``stats.consolidation_retries``; the
error it had is kept in ``stats.retried_error``). Retries are pipeline work, not memory changes: they are
not journaled; what the retried episode then changes is its own (revertable) batch.
"""

from __future__ import annotations

import math
import uuid
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db.models import Q
from django.utils import timezone

from memhq.models import (
    Episode,
    EpisodeErrorKind,
    EpisodePhase,
    EpisodeStatus,
    JournalEntry,
    Memory,
    MemoryOrigin,
    MemoryStatus,
)
from memhq.services.consolidation_merge import StepProgress
from memhq.services.journal import Journal, snapshot

DAY_S = 86400.0
IMPORTANCE_PRECISION = 4


def importance_cap(last_seen_at: datetime, now: datetime) -> float:
    """The highest importance a memory last seen at ``last_seen_at`` may keep at ``now`` (1.0 = no cap)."""
    days = math.floor((now - last_seen_at).total_seconds() / DAY_S)
    after = settings.MEMHQ_IMPORTANCE_DECAY_AFTER_DAYS
    if days <= after:
        return 1.0
    decayed = 0.5 ** ((days - after) / settings.MEMHQ_IMPORTANCE_HALF_LIFE_DAYS)
    return round(max(settings.MEMHQ_IMPORTANCE_FLOOR, decayed), IMPORTANCE_PRECISION)


def decay_step(
    journal: Journal,
    *,
    project_id: uuid.UUID,
    user_id: str,
    position: dict[str, Any],
    budget: int,
    now: datetime,
) -> StepProgress:
    """Cap the importance of up to ``budget`` of the user's active extracted memories after ``position``."""
    scope = Memory.objects.filter(
        project_id=project_id, user_id=user_id, status=MemoryStatus.ACTIVE, origin=MemoryOrigin.EXTRACTED
    )
    if position:
        scope = scope.filter(pk__gt=position["id"])
    memories = list(scope.defer("embedding").order_by("pk")[:budget])
    for memory in memories:
        cap = importance_cap(memory.last_seen_at, now)
        if memory.importance > cap:
            before = snapshot(memory)
            memory.importance = cap
            memory.save(update_fields=["importance"])
            journal.record(JournalEntry.Op.UPDATE, memory, before=before)
    if memories:
        position = {"id": str(memories[-1].pk)}
    return StepProgress(len(memories), len(memories) < budget, position)


def retry_failed_episodes(*, failed_before: datetime, limit: int) -> int:
    """Re-enqueue up to ``limit`` episodes failed (before ``failed_before``) by a transient error."""
    max_retries = settings.MEMHQ_CONSOLIDATION_MAX_EPISODE_RETRIES
    episodes = list(
        Episode.objects.filter(
            status=EpisodeStatus.FAILED,
            error_phase__isnull=False,
            error_kind=EpisodeErrorKind.TRANSIENT,
            progressed_at__lt=failed_before,
        )
        .filter(
            Q(stats__consolidation_retries__isnull=True) | Q(stats__consolidation_retries__lt=max_retries)
        )
        .order_by("progressed_at", "pk")
        .select_for_update(skip_locked=True)
        .only("pk", "stats", "error", "error_phase")[:limit]
    )
    now = timezone.now()
    for episode in episodes:
        stats = dict(episode.stats or {})
        stats["consolidation_retries"] = int(stats.get("consolidation_retries", 0)) + 1
        stats["retried_error"] = episode.error
        Episode.objects.filter(pk=episode.pk, status=EpisodeStatus.FAILED).update(
            status=EpisodeStatus.QUEUED,
            error="",
            error_kind="",
            error_phase=None,
            phase_running=None,
            progressed_at=now,
            publish_from=episode.error_phase or EpisodePhase.PERSIST,  # the outbox relay publishes it
            stats=stats,
        )
    return len(episodes)


def retry_cutoff(pass_started_at: datetime) -> datetime:
    """Episodes failed before this are due for a retry in the pass that started at ``pass_started_at``."""
    return pass_started_at - timedelta(seconds=settings.MEMHQ_CONSOLIDATION_RETRY_AFTER_S)
