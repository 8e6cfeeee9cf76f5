from __future__ import annotations

import uuid

from django.db import models

from memhq.models.tenancy import Project


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
