"""Beat-driven sweeps. Beat only enqueues; the work runs here, in a worker."""

from __future__ import annotations

import logging
from datetime import timedelta

from django.conf import settings
from django.db.models import Q
from django.db.models.functions import Now
from django.utils import timezone

from ingestion.claims import CLEARED
from ingestion.outbox import PublishFailed, drain
from ingestion.runner import stall_timeout_s, waits_for_a_model
from memhq.models import Episode, EpisodePhase, EpisodeStatus

logger = logging.getLogger(__name__)

SWEEP_BATCH = 500


def outbox_sweep() -> int:
    """The relay's safety net. Returns how many episodes it published itself.

    1. Episodes left behind are asked for publication again (``publish_from``, which wakes the relay): a
       claim whose lease ran out (its holder's host died), or no claim and no progress within the stall
       timeout (the broker lost the message between two phases, or before the first).
    2. What has been pending publication longer than ``MEMHQ_QUEUED_GRACE_S`` (the relay is down or not
       deployed) is published here.

    The CAS claim in every task makes a duplicate harmless.
    """
    requeued = requeue_stalled()
    grace = timezone.now() - timedelta(seconds=settings.MEMHQ_QUEUED_GRACE_S)
    try:
        published = drain(pending_before=grace)
    except PublishFailed as exc:
        logger.warning("outbox sweep: broker unavailable (%s)", exc)
        published = 0
    if requeued or published:
        logger.info("outbox sweep: %d stalled episodes re-requested, %d published", requeued, published)
    return published


def requeue_stalled() -> int:
    now = timezone.now()
    stale = now - timedelta(seconds=settings.MEMHQ_STALL_TIMEOUT_S)
    # A claim without a lease (written before leases existed) on a phase that waits for a model is stale only
    # after a whole call (runner.stall_timeout_s); a leased claim is renewed while its holder lives.
    model_phases = [phase for phase in EpisodePhase if waits_for_a_model(phase)]
    leaseless_stale = Q(progressed_at__lt=stale) & ~Q(phase_running__in=model_phases)
    for phase in model_phases:
        phase_stale = now - timedelta(seconds=stall_timeout_s(phase))
        leaseless_stale |= Q(phase_running=phase, progressed_at__lt=phase_stale)
    left_behind = (
        Episode.objects.filter(
            status__in=[EpisodeStatus.QUEUED, EpisodeStatus.RUNNING], publish_from__isnull=True
        )
        .filter(
            Q(phase_running__isnull=False, claim_expires_at__lt=Now())
            | (Q(phase_running__isnull=False, claim_expires_at__isnull=True) & leaseless_stale)
            | Q(phase_running__isnull=True, progressed_at__isnull=True, received_at__lt=stale)
            | Q(phase_running__isnull=True, progressed_at__lt=stale)
        )
        .order_by("received_at")
        .values_list("pk", "phase_done", "progressed_at")[:SWEEP_BATCH]
    )
    count = 0
    for episode_id, phase_done, progressed_at in left_behind:
        # Take the stale claim away and ask for publication from the next phase — only if nothing moved
        # since it was read: a worker that claimed or finished a phase in between keeps its claim.
        count += Episode.objects.filter(
            pk=episode_id, phase_done=phase_done, progressed_at=progressed_at
        ).update(
            phase_running=None,
            progressed_at=now,
            publish_from=min(phase_done + 1, EpisodePhase.NOTIFY),
            **CLEARED,
        )
    return count
