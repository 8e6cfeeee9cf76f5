"""Reads for webhooks; every query is filtered by project so other tenants' ids look like unknown ids."""

from __future__ import annotations

import uuid

from django.core.exceptions import ValidationError
from django.db.models import QuerySet
from django.http import Http404

from memhq.models import Project, WebhookDelivery, WebhookEndpoint

NOT_FOUND_ERRORS = (WebhookEndpoint.DoesNotExist, WebhookDelivery.DoesNotExist, ValidationError, ValueError)


def endpoint_get(*, project: Project, endpoint_id: uuid.UUID | str) -> WebhookEndpoint:
    try:
        return WebhookEndpoint.objects.get(project=project, pk=endpoint_id)
    except NOT_FOUND_ERRORS:
        raise Http404 from None


def endpoint_list(*, project: Project) -> QuerySet[WebhookEndpoint]:
    return WebhookEndpoint.objects.filter(project=project)


def delivery_list(*, endpoint: WebhookEndpoint, status: str | None = None) -> QuerySet[WebhookDelivery]:
    deliveries = WebhookDelivery.objects.filter(endpoint=endpoint).select_related("event")
    if status is not None:
        deliveries = deliveries.filter(status=status)
    return deliveries


def delivery_get(*, project: Project, delivery_id: uuid.UUID | str) -> WebhookDelivery:
    try:
        return WebhookDelivery.objects.select_related("event", "endpoint").get(
            endpoint__project=project, pk=delivery_id
        )
    except NOT_FOUND_ERRORS:
        raise Http404 from None
