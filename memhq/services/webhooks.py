"""Writes to the webhook outbox. Delivery (signing, retries) reads from it separately."""

from __future__ import annotations

import uuid
from typing import Any

from memhq.models import WebhookEvent

EVENT_TYPES = ("episode.completed", "episode.failed", "memories.changed")


def event_emit(*, project_id: uuid.UUID, user_id: str, type: str, payload: dict[str, Any]) -> WebhookEvent:
    """Put an event in the outbox; call inside the transaction that made the change it reports."""
    if type not in EVENT_TYPES:
        raise ValueError(f"unknown webhook event type {type!r}")
    return WebhookEvent.objects.create(project_id=project_id, user_id=user_id, type=type, payload=payload)
