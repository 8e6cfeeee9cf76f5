"""Memory control: erasure receipts and the deep-consolidation cursor (docs/memory-control.md)."""

from __future__ import annotations

import uuid

from django.db import models

from memhq.models.tenancy import Project


class ErasureReceipt(models.Model):
    """Proof that a user's data was erased: what was removed, when, by whom.

    The user id itself is not kept (only its SHA-256), nor the removed ids (only a SHA-256 of their sorted
    list), so the receipt holds nothing of the user's data.
    """

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="+")
    user_id_sha256 = models.CharField(max_length=64)
    actor = models.CharField(max_length=200, blank=True, default="")
    started_at = models.DateTimeField()
    finished_at = models.DateTimeField()
    counts = models.JSONField(default=dict)
    ids_sha256 = models.CharField(max_length=64)

    class Meta:
        indexes = [models.Index(fields=["project", "-finished_at"], name="erasure_recent")]

    def __str__(self) -> str:
        return f"erasure {self.id}"


class ConsolidationStep(models.TextChoices):
    MERGE = "merge"  # duplicate entities of one user
    DECAY = "decay"  # importance of one user's memories not seen for a long time
    RETRY = "retry"  # failed episodes whose error was transient (all users, at the end of a pass)


class ConsolidationCursor(models.Model):
    """Where deep consolidation stopped: one row (``name="global"``), locked by every chunk.

    A pass walks the users in (project id, user id) order, for each one the merge then the decay step, then
    retries failed episodes. Each chunk commits its work and the advanced cursor in one transaction, so an
    interrupted run resumes at the first chunk that did not commit and never redoes one that did.
    """

    name = models.CharField(max_length=32, unique=True)
    pass_started_at = models.DateTimeField(null=True, blank=True)  # "now" of every decision of the pass
    project_id = models.UUIDField(null=True, blank=True)
    user_id = models.CharField(max_length=200, blank=True, default="")
    step = models.CharField(max_length=16, choices=ConsolidationStep.choices, default=ConsolidationStep.MERGE)
    position = models.JSONField(default=dict, blank=True)  # the last key done within the step
    chunks = models.PositiveIntegerField(default=0)  # chunks committed in the current pass
    passes_completed = models.PositiveIntegerField(default=0)
    last_pass_finished_at = models.DateTimeField(null=True, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"consolidation cursor {self.name}"
