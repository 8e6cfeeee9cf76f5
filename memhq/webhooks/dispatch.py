"""Publishing ``webhooks.deliver`` tasks: right after the commit that created (or replayed) a delivery, and
from the beat sweep for everything due — retries, deliveries whose publication failed, and attempts whose
worker died. Postgres is the source of truth: nothing depends on a task surviving in the broker.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Sequence
from datetime import timedelta
from functools import partial

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from config.celery import publish
from memhq.models import WebhookDelivery
from memhq.webhooks.state import claimable

logger = logging.getLogger(__name__)

SWEEP_BATCH = 500
DELIVER_TASK = "webhooks.deliver"


def enqueue(delivery_ids: Sequence[uuid.UUID | str]) -> int:
    """Publish one deliver task per id. Never raises: what could not be published is left for the sweep."""
    for published, delivery_id in enumerate(delivery_ids):
        try:
            publish(DELIVER_TASK, str(delivery_id))
        except Exception:  # kombu/redis raise many types; whatever it is, the sweep will retry
            logger.warning("could not enqueue webhook deliveries; the sweep will retry", exc_info=True)
            WebhookDelivery.objects.filter(pk__in=list(delivery_ids[published:])).update(enqueued_at=None)
            return published
    return len(delivery_ids)


def enqueue_on_commit(delivery_ids: Sequence[uuid.UUID | str]) -> None:
    if delivery_ids:
        transaction.on_commit(partial(enqueue, list(delivery_ids)))


def sweep(*, limit: int = SWEEP_BATCH) -> int:
    """Publish a deliver task for every due delivery not published recently; returns how many.

    Due = pending with ``next_attempt_at`` passed, or sending with an expired lease. A delivery published less
    than ``MEMHQ_WEBHOOKS_REQUEUE_AFTER_S`` ago is left to the task already in the queue. Rows are picked with
    SKIP LOCKED, so two sweeps never publish the same delivery; a duplicate task would be harmless anyway
    (the claim is a compare-and-swap).
    """
    now = timezone.now()
    recent = now - timedelta(seconds=float(settings.MEMHQ_WEBHOOKS_REQUEUE_AFTER_S))
    with transaction.atomic():
        due = list(
            WebhookDelivery.objects.filter(claimable(now))
            .filter(Q(enqueued_at__isnull=True) | Q(enqueued_at__lt=recent))
            .order_by("next_attempt_at")
            .select_for_update(skip_locked=True)
            .values_list("pk", flat=True)[:limit]
        )
        WebhookDelivery.objects.filter(pk__in=due).update(enqueued_at=now)
    published = enqueue(due)
    if published:
        logger.info("webhook sweep published %d deliveries", published)
    return published
