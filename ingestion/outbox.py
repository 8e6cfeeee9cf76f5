"""Postgres is the outbox: an episode row with ``publish_from`` set is waiting for its chain to be published.

Writers only set the column (``/add`` through its database default, re-enqueues by an UPDATE); a trigger
(migration 0009) sends ``NOTIFY memhq_outbox`` when such a write commits. The relay (ingestion/relay.py)
listens and publishes; the beat sweep publishes what has waited longer than ``MEMHQ_QUEUED_GRACE_S`` (the
relay is down or missing). So a request never waits for, or fails on, the broker.

Publication is at least once: a message lost by the broker after publication is rescued by the sweep's stall
rule, and a duplicate is harmless because every phase claims its work with a compare-and-swap.
"""

from __future__ import annotations

import logging
import uuid
from datetime import datetime

from django.conf import settings
from django.db import transaction
from django.db.models import F, Q

from ingestion.pipeline import publish_start
from memhq.models import Episode, EpisodePhase, EpisodeStatus

logger = logging.getLogger(__name__)

CHANNEL = "memhq_outbox"
LIVE = (EpisodeStatus.QUEUED, EpisodeStatus.RUNNING)


class PublishFailed(Exception):
    """The broker refused or did not answer; what was published before the failure is marked done."""


def publish_pending(*, limit: int | None = None, pending_before: datetime | None = None) -> int:
    """Publish up to ``limit`` pending episodes, oldest first; returns how many were published.

    Rows are locked ``FOR UPDATE SKIP LOCKED`` so several relays (and the sweep) share the work without
    publishing one row twice. ``pending_before``: only rows waiting since before then (the sweep's grace).
    Raises ``PublishFailed`` when the broker fails; the rows not published stay pending.
    """
    return _publish_batch(limit or settings.MEMHQ_RELAY_BATCH, pending_before)[0]


def drain(*, pending_before: datetime | None = None) -> int:
    """Publish batches until nothing is pending (or the broker fails: ``PublishFailed``)."""
    total = 0
    while True:
        published, taken = _publish_batch(settings.MEMHQ_RELAY_BATCH, pending_before)
        total += published
        if taken < settings.MEMHQ_RELAY_BATCH:
            return total


def _publish_batch(limit: int, pending_before: datetime | None) -> tuple[int, int]:
    """(published, rows taken off the outbox)."""
    done: list[uuid.UUID] = []
    published = 0
    error: Exception | None = None
    with transaction.atomic():
        pending = Episode.objects.filter(publish_from__isnull=False)
        if pending_before is not None:
            pending = pending.filter(
                Q(progressed_at__lt=pending_before)
                | Q(progressed_at__isnull=True, received_at__lt=pending_before)
            )
        rows = list(
            pending.order_by("received_at")
            .select_for_update(skip_locked=True)
            .values_list("pk", "publish_from", "status")[:limit]
        )
        for episode_id, from_phase, status in rows:
            if status in LIVE:  # else finished meanwhile (run inline, failed): nothing to publish
                try:
                    publish_start(episode_id, from_phase or EpisodePhase.PERSIST)
                except Exception as exc:  # kombu/redis raise many types; the rows stay pending
                    error = exc
                    break
                published += 1
            done.append(episode_id)
        if done:
            Episode.objects.filter(pk__in=done).update(publish_from=None)
    if error is not None:
        raise PublishFailed(f"{type(error).__name__}: {error}") from error
    return published, len(done)


def hand_over(episode_id: str) -> bool:
    """A phase task failed outside its phase's work — typically the broker went away as the worker
    published the chain's next hop (or, for ``ingestion.start``, the chain itself): put the episode back in
    the outbox from its next phase, so the relay carries the chain on when the broker is back instead of
    the episode waiting for the stall timeout. Only an idle, live episode not already pending."""
    return bool(
        Episode.objects.filter(
            pk=episode_id,
            status__in=LIVE,
            phase_running__isnull=True,
            publish_from__isnull=True,
            phase_done__lt=EpisodePhase.NOTIFY,
        ).update(publish_from=F("phase_done") + 1)
    )
