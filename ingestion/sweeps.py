"""Beat-driven sweeps. Beat only enqueues; the work runs here, in a worker."""

from __future__ import annotations

import logging
from datetime import timedelta

from django.conf import settings
from django.db.models import Q
from django.utils import timezone

from ingestion.runner import stall_timeout_s, waits_for_a_model
from memhq.models import Episode, EpisodePhase, EpisodeStatus

logger = logging.getLogger(__name__)

SWEEP_BATCH = 500


def outbox_sweep() -> int:
    """Re-enqueue episodes left behind: never published (broker was down), or stalled in or between phases.

    Postgres is the outbox: an episode row that is queued/running and has not progressed within the stall
    timeout is enqueued again from its next phase. The CAS claim in every task makes a duplicate harmless.
    """
    from ingestion.pipeline import enqueue_episode

    now = timezone.now()
    stale = now - timedelta(seconds=settings.MEMHQ_STALL_TIMEOUT_S)
    grace = now - timedelta(seconds=settings.MEMHQ_QUEUED_GRACE_S)
    # A claim on a phase that waits for a model is stale only after a whole call (runner.stall_timeout_s).
    model_phases = [phase for phase in EpisodePhase if waits_for_a_model(phase)]
    stalled = Q(progressed_at__lt=stale)
    if model_phases:
        stalled &= ~Q(phase_running__in=model_phases)
    for phase in model_phases:
        phase_stale = now - timedelta(seconds=stall_timeout_s(phase))
        stalled |= Q(phase_running=phase, progressed_at__lt=phase_stale)
    left_behind = (
        Episode.objects.filter(status__in=[EpisodeStatus.QUEUED, EpisodeStatus.RUNNING])
        .filter(
            Q(enqueue_failed_at__isnull=False, enqueue_failed_at__lt=grace)
            | Q(progressed_at__isnull=True, received_at__lt=stale)
            | stalled
        )
        .order_by("received_at")
        .values_list("pk", "phase_done", "progressed_at")[:SWEEP_BATCH]
    )
    count = 0
    for episode_id, phase_done, progressed_at in left_behind:
        # Take the stale claim away and mark the episode as progressed now (so the next sweep leaves it alone
        # for another stall period) — only if nothing moved since it was read: a worker that claimed or
        # finished a phase in between keeps its claim and the episode is not enqueued twice.
        taken = Episode.objects.filter(
            pk=episode_id, phase_done=phase_done, progressed_at=progressed_at
        ).update(phase_running=None, progressed_at=now, enqueue_failed_at=None)
        if taken and enqueue_episode(episode_id, from_phase=min(phase_done + 1, EpisodePhase.NOTIFY)):
            count += 1
    if count:
        logger.info("outbox sweep re-enqueued %d episodes", count)
    return count
