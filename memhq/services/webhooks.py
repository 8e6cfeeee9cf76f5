"""Writes for webhooks: the outbox (``event_emit``), endpoints, pings and replays.

Delivery itself (signing, sending, retries) is ``memhq.webhooks``, run by workers.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from memhq.models import (
    DeliveryStatus,
    Project,
    WebhookDelivery,
    WebhookEndpoint,
    WebhookEvent,
)
from memhq.models.webhooks import EVENT_TYPES, PING_EVENT_TYPE
from memhq.webhooks.address_policy import AddressRefused, check_url
from memhq.webhooks.dispatch import enqueue_on_commit
from memhq.webhooks.signing import secret_generate

__all__ = [
    "EVENT_TYPES",
    "AddressRefused",
    "DeliveryInProgress",
    "EndpointInactive",
    "EndpointLimitReached",
    "IssuedSecret",
    "delivery_replay",
    "endpoint_create",
    "endpoint_delete",
    "endpoint_ping",
    "endpoint_rotate_secret",
    "endpoint_update",
    "event_emit",
    "events_emit",
]

REPLAYABLE = (DeliveryStatus.DELIVERED, DeliveryStatus.FAILED, DeliveryStatus.DEAD)


class EndpointLimitReached(Exception):
    pass


class EndpointInactive(Exception):
    pass


class DeliveryInProgress(Exception):
    pass


@dataclass(frozen=True)
class IssuedSecret:
    endpoint: WebhookEndpoint
    secret: str  # shown once


def event_emit(*, project_id: uuid.UUID, user_id: str, type: str, payload: dict[str, Any]) -> WebhookEvent:
    """Put an event in the outbox with one delivery per active endpoint of the project subscribed to its type.

    Call inside the transaction that made the change it reports: the event and its deliveries commit (or
    roll back) with it, and the deliver tasks are published only after the commit.
    """
    return events_emit(project_id=project_id, user_id=user_id, events=[(type, payload)])[0]


def events_emit(
    *, project_id: uuid.UUID, user_id: str, events: list[tuple[str, dict[str, Any]]]
) -> list[WebhookEvent]:
    """:func:`event_emit` for several ``(type, payload)`` events of one user at once: one INSERT of the
    events, one read of the endpoints, one INSERT of the deliveries."""
    unknown = [type_ for type_, _ in events if type_ not in EVENT_TYPES]
    if unknown:
        raise ValueError(f"unknown webhook event type {unknown[0]!r}")
    types = sorted({type_ for type_, _ in events})
    with transaction.atomic():
        created = WebhookEvent.objects.bulk_create(
            WebhookEvent(project_id=project_id, user_id=user_id, type=type_, payload=payload)
            for type_, payload in events
        )
        endpoints = list(
            WebhookEndpoint.objects.filter(
                project_id=project_id, is_active=True, event_types__overlap=types
            ).values_list("pk", "event_types")
        )
        _deliveries_create(
            [(event, pk) for event in created for pk, subscribed in endpoints if event.type in subscribed]
        )
    return created


def _deliveries_create(pairs: list[tuple[WebhookEvent, uuid.UUID]]) -> list[WebhookDelivery]:
    """One delivery per ``(event, endpoint id)``, published once the transaction commits."""
    if not pairs:
        return []
    now = timezone.now()
    deliveries = WebhookDelivery.objects.bulk_create(
        WebhookDelivery(event=event, endpoint_id=endpoint_id, next_attempt_at=now, enqueued_at=now)
        for event, endpoint_id in pairs
    )
    enqueue_on_commit([delivery.pk for delivery in deliveries])
    return deliveries


@transaction.atomic
def endpoint_create(
    *, project: Project, url: str, event_types: list[str], description: str = "", is_active: bool = True
) -> IssuedSecret:
    check_url(url)
    Project.objects.select_for_update().filter(pk=project.pk).first()  # serialises the limit check
    limit = settings.MEMHQ_WEBHOOKS_MAX_ENDPOINTS
    if WebhookEndpoint.objects.filter(project=project).count() >= limit:
        raise EndpointLimitReached(f"A project may have at most {limit} webhook endpoints.")
    secret = secret_generate()
    endpoint = WebhookEndpoint.objects.create(
        project=project,
        url=url,
        event_types=list(dict.fromkeys(event_types)),
        description=description,
        is_active=is_active,
        secret=secret,
    )
    return IssuedSecret(endpoint=endpoint, secret=secret)


@transaction.atomic
def endpoint_update(
    *,
    endpoint: WebhookEndpoint,
    url: str | None = None,
    event_types: list[str] | None = None,
    description: str | None = None,
    is_active: bool | None = None,
) -> WebhookEndpoint:
    endpoint = WebhookEndpoint.objects.select_for_update().get(pk=endpoint.pk)
    if url is not None and url != endpoint.url:
        check_url(url)
        endpoint.url = url
    if event_types is not None:
        endpoint.event_types = list(dict.fromkeys(event_types))
    if description is not None:
        endpoint.description = description
    if is_active is not None and is_active != endpoint.is_active:
        endpoint.is_active = is_active
        endpoint.disabled_at = None if is_active else timezone.now()
        endpoint.disabled_reason = "" if is_active else "disabled through the API"
    endpoint.save()
    return endpoint


def endpoint_delete(*, endpoint: WebhookEndpoint) -> None:
    """Deletes the endpoint and its delivery history; events stay in the outbox."""
    endpoint.delete()


@transaction.atomic
def endpoint_rotate_secret(*, endpoint: WebhookEndpoint) -> IssuedSecret:
    """A new secret; the current one keeps signing (a second signature) for the rotation grace period.

    Rotating again within that period drops the oldest secret.
    """
    endpoint = WebhookEndpoint.objects.select_for_update().get(pk=endpoint.pk)
    secret = secret_generate()
    endpoint.previous_secret = endpoint.secret
    grace = timedelta(seconds=float(settings.MEMHQ_WEBHOOKS_SECRET_ROTATION_GRACE_S))
    endpoint.previous_secret_expires_at = timezone.now() + grace
    endpoint.secret = secret
    endpoint.save(update_fields=["secret", "previous_secret", "previous_secret_expires_at", "updated_at"])
    return IssuedSecret(endpoint=endpoint, secret=secret)


@transaction.atomic
def endpoint_ping(*, endpoint: WebhookEndpoint) -> WebhookDelivery:
    """A ``webhook.ping`` event delivered to this endpoint only."""
    if not endpoint.is_active:
        raise EndpointInactive("The endpoint is disabled; activate it before testing it.")
    event = WebhookEvent.objects.create(
        project_id=endpoint.project_id,
        user_id="",
        type=PING_EVENT_TYPE,
        payload={"endpoint_id": str(endpoint.pk), "message": "A test event from MemHQ."},
    )
    return _deliveries_create([(event, endpoint.pk)])[0]


@transaction.atomic
def delivery_replay(*, delivery: WebhookDelivery) -> WebhookDelivery:
    """A fresh attempt sequence for the same event (same ``webhook-id``), starting now."""
    delivery = WebhookDelivery.objects.select_for_update().select_related("endpoint").get(pk=delivery.pk)
    if delivery.status not in REPLAYABLE:
        raise DeliveryInProgress("This delivery is still being attempted; replay it once it has finished.")
    if not delivery.endpoint.is_active:
        raise EndpointInactive("The endpoint is disabled; activate it before replaying its deliveries.")
    now = timezone.now()
    delivery.status = DeliveryStatus.PENDING
    delivery.attempts = 0
    delivery.replay_count += 1
    delivery.next_attempt_at = now
    delivery.enqueued_at = now
    delivery.delivered_at = None
    delivery.save(
        update_fields=["status", "attempts", "replay_count", "next_attempt_at", "enqueued_at", "delivered_at"]
    )
    enqueue_on_commit([delivery.pk])
    return delivery
