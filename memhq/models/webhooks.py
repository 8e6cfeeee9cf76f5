from __future__ import annotations

import uuid

from django.contrib.postgres.fields import ArrayField
from django.db import models

from memhq.models.tenancy import Project

#: Event types an endpoint can subscribe to. Add new types here; the API validates against this list.
EVENT_TYPES = ("episode.completed", "episode.failed", "memories.changed")
#: Sent only by ``POST /webhooks/{id}/test``, to that endpoint; not subscribable.
PING_EVENT_TYPE = "webhook.ping"


class WebhookEvent(models.Model):
    """An event in the outbox (``episode.completed``, ``episode.failed``, ``memories.changed``).

    Written in the same transaction as the change it reports; delivery to endpoints is a separate job.
    """

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="webhook_events")
    user_id = models.CharField(max_length=200)
    type = models.CharField(max_length=64)
    payload = models.JSONField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        indexes = [models.Index(fields=["project", "-created_at"], name="webhook_event_recent")]

    def __str__(self) -> str:
        return f"{self.type} {self.id}"


class WebhookEndpoint(models.Model):
    """A subscriber URL of a project. ``secret`` signs every delivery (Standard Webhooks ``whsec_…``).

    After a rotation the previous secret keeps signing (a second signature) until
    ``previous_secret_expires_at``. Secrets are needed in clear to sign, so they are stored as is and never
    shown again after creation or rotation.
    """

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="webhook_endpoints")
    url = models.URLField(max_length=2000)
    description = models.CharField(max_length=500, blank=True, default="")
    event_types = ArrayField(models.CharField(max_length=64))
    is_active = models.BooleanField(default=True)
    disabled_reason = models.CharField(max_length=500, blank=True, default="")
    disabled_at = models.DateTimeField(null=True, blank=True)
    secret = models.CharField(max_length=200)
    previous_secret = models.CharField(max_length=200, blank=True, default="")
    previous_secret_expires_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        indexes = [models.Index(fields=["project", "is_active"], name="webhook_endpoint_active")]

    def __str__(self) -> str:
        return self.url


class DeliveryStatus(models.TextChoices):
    PENDING = "pending"  # waiting for its next attempt (``next_attempt_at``)
    SENDING = "sending"  # claimed by a worker until ``lease_expires_at``
    DELIVERED = "delivered"
    FAILED = "failed"  # a permanent refusal (3xx, 4xx, 410, refused address, disabled endpoint)
    DEAD = "dead"  # the retry schedule ran out


class WebhookDelivery(models.Model):
    """One event to one endpoint, with the state of its current attempt sequence.

    A worker claims the row with a compare-and-swap (pending and due → sending, with a lease and a fresh
    ``claim_token``) and records the outcome only while it still holds that token.
    """

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    event = models.ForeignKey(WebhookEvent, on_delete=models.CASCADE, related_name="deliveries")
    endpoint = models.ForeignKey(WebhookEndpoint, on_delete=models.CASCADE, related_name="deliveries")
    status = models.CharField(max_length=16, choices=DeliveryStatus.choices, default=DeliveryStatus.PENDING)
    attempts = models.PositiveIntegerField(default=0)  # in the current sequence (a replay starts a new one)
    replay_count = models.PositiveIntegerField(default=0)
    next_attempt_at = models.DateTimeField(null=True, blank=True)
    enqueued_at = models.DateTimeField(null=True, blank=True)  # a deliver task was published at this time
    claim_token = models.UUIDField(null=True, blank=True)
    lease_expires_at = models.DateTimeField(null=True, blank=True)
    last_attempt_at = models.DateTimeField(null=True, blank=True)
    last_status_code = models.PositiveSmallIntegerField(null=True, blank=True)
    last_error = models.TextField(blank=True, default="")
    delivered_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name_plural = "webhook deliveries"
        constraints = [
            models.UniqueConstraint(fields=["event", "endpoint"], name="webhook_delivery_once_per_endpoint")
        ]
        indexes = [
            models.Index(fields=["status", "next_attempt_at"], name="webhook_delivery_due"),
            models.Index(fields=["endpoint", "-created_at"], name="webhook_delivery_recent"),
        ]

    def __str__(self) -> str:
        return f"delivery {self.id} ({self.status})"
