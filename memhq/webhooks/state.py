"""Claim → send → record: the protocol every delivery attempt follows.

A worker claims a delivery with a compare-and-swap (pending and due, or sending with an expired lease →
sending, with a fresh claim token and a lease), so two copies of a task never send at once. The outcome is
written only while the worker still holds its token; an attempt that outlived its lease is discarded (the
new holder's result wins). A worker that dies mid-attempt leaves the row ``sending``; once its lease
expires the sweep hands it to another worker. Delivery is therefore at-least-once: a receiver can see an
event twice (the answer was lost, the lease expired) and deduplicates by ``webhook-id``.
"""

from __future__ import annotations

import logging
import uuid
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from memhq.models import DeliveryStatus, WebhookDelivery, WebhookEndpoint
from memhq.ops import metrics
from memhq.webhooks import delivery as http
from memhq.webhooks.delivery import Outcome, Verdict
from memhq.webhooks.schedule import max_attempts, next_attempt_at

logger = logging.getLogger(__name__)

LEASE_TIMEOUTS = 4  # a lease covers this many send timeouts (connect, write, read, a second address)…
LEASE_MARGIN_S = 30  # …plus this margin
MAX_ERROR_CHARS = 2000
SKIPPED = "skipped"
LOST = "lost"


def lease_duration() -> timedelta:
    return timedelta(seconds=float(settings.MEMHQ_WEBHOOKS_TIMEOUT_S) * LEASE_TIMEOUTS + LEASE_MARGIN_S)


def claimable(now: datetime) -> Q:
    return Q(status=DeliveryStatus.PENDING, next_attempt_at__lte=now) | Q(
        status=DeliveryStatus.SENDING, lease_expires_at__lt=now
    )


def delivery_claim(delivery_id: uuid.UUID | str) -> WebhookDelivery | None:
    """Take the delivery for one attempt, or None when it is not due or another worker holds it."""
    try:
        delivery_id = uuid.UUID(str(delivery_id))
    except ValueError:
        return None
    now = timezone.now()
    token = uuid.uuid4()
    claimed = WebhookDelivery.objects.filter(claimable(now), pk=delivery_id).update(
        status=DeliveryStatus.SENDING,
        claim_token=token,
        lease_expires_at=now + lease_duration(),
        attempts=F("attempts") + 1,
        last_attempt_at=now,
    )
    if not claimed:
        return None
    return (
        WebhookDelivery.objects.select_related("endpoint", "event")
        .filter(pk=delivery_id, claim_token=token)
        .first()
    )


def deliver(delivery_id: uuid.UUID | str) -> str:
    """One attempt of one delivery; returns the status it was left in (or skipped/lost)."""
    delivery = delivery_claim(delivery_id)
    if delivery is None:
        return SKIPPED
    now = timezone.now()
    if delivery.attempts > max_attempts():
        outcome = Outcome(Verdict.RETRY, error="the previous attempt was interrupted (worker lost)")
    elif not delivery.endpoint.is_active:
        outcome = Outcome(Verdict.FAILED, error="endpoint is disabled")
    else:
        try:
            outcome = http.send(delivery.endpoint, delivery.event, now=now)
        except Exception as exc:  # a bug must not wedge the delivery: count it as an attempt and retry
            logger.exception("webhook delivery %s: unexpected error", delivery.pk)
            outcome = Outcome(Verdict.RETRY, error=f"internal error: {type(exc).__name__}: {exc}")
    return delivery_record(delivery, outcome)


def delivery_record(delivery: WebhookDelivery, outcome: Outcome) -> str:
    now = timezone.now()
    updates: dict[str, Any] = {
        "claim_token": None,
        "lease_expires_at": None,
        "last_status_code": outcome.status_code,
        "last_error": outcome.error[:MAX_ERROR_CHARS],
        "next_attempt_at": None,
    }
    if outcome.verdict == Verdict.DELIVERED:
        updates.update(status=DeliveryStatus.DELIVERED, delivered_at=now)
    elif outcome.verdict in (Verdict.FAILED, Verdict.GONE):
        updates.update(status=DeliveryStatus.FAILED)
    else:
        retry_at = next_attempt_at(attempts=delivery.attempts, now=now, retry_after_s=outcome.retry_after_s)
        if retry_at is None:
            updates.update(status=DeliveryStatus.DEAD)
        else:
            updates.update(status=DeliveryStatus.PENDING, next_attempt_at=retry_at, enqueued_at=None)
    with transaction.atomic():
        held = WebhookDelivery.objects.filter(
            pk=delivery.pk, status=DeliveryStatus.SENDING, claim_token=delivery.claim_token
        ).update(**updates)
        if not held:
            logger.warning("webhook delivery %s: claim lost, discarding the result", delivery.pk)
            return LOST
        if outcome.verdict == Verdict.GONE:
            endpoint_disable(
                endpoint_id=delivery.endpoint_id, reason=f"{outcome.error} (delivery {delivery.pk})"
            )
    status = str(updates["status"])
    log = logger.info if status == DeliveryStatus.DELIVERED else logger.warning
    log("webhook delivery %s attempt %d: %s %s", delivery.pk, delivery.attempts, status, outcome.error)
    metrics.WEBHOOK_ATTEMPTS.labels(status).inc()
    return status


def endpoint_disable(*, endpoint_id: uuid.UUID, reason: str) -> None:
    now = timezone.now()
    WebhookEndpoint.objects.filter(pk=endpoint_id, is_active=True).update(
        is_active=False, disabled_at=now, disabled_reason=reason[:500], updated_at=now
    )
