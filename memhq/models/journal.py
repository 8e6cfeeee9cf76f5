from __future__ import annotations

import uuid

from django.db import models

from memhq.models.episodes import Episode
from memhq.models.tenancy import Project


class BatchKind(models.TextChoices):
    EPISODE = "episode"
    CONSOLIDATION = "consolidation"
    EDIT = "edit"
    REVERT = "revert"
    RETRY = "retry"  # an operator re-ran a failed episode from its failed phase (journals the episode row)


class Batch(models.Model):
    """One consolidation run; every write it makes is a journal entry, enough to revert it."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="batches")
    user_id = models.CharField(max_length=200)
    kind = models.CharField(max_length=16, choices=BatchKind.choices)
    episode = models.ForeignKey(
        Episode, null=True, blank=True, on_delete=models.CASCADE, related_name="batches"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    # Who made it: "key:<api key prefix>", "admin:<username>", "consolidation"; empty for ingestion.
    actor = models.CharField(max_length=200, blank=True, default="")
    note = models.CharField(max_length=500, blank=True, default="")
    reverts = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="reverted_by"
    )

    class Meta:
        verbose_name_plural = "batches"
        indexes = [models.Index(fields=["project", "user_id", "-created_at"], name="batch_user_recent")]

    def __str__(self) -> str:
        return f"{self.kind} batch {self.id}"


class JournalEntry(models.Model):
    class Op(models.TextChoices):
        INSERT = "insert"
        UPDATE = "update"
        DELETE = "delete"

    batch = models.ForeignKey(Batch, on_delete=models.CASCADE, related_name="entries")
    seq = models.PositiveIntegerField()
    op = models.CharField(max_length=8, choices=Op.choices)
    table = models.CharField(max_length=64)
    row_id = models.CharField(max_length=64)
    before = models.JSONField(null=True, blank=True)
    after = models.JSONField(null=True, blank=True)

    class Meta:
        verbose_name_plural = "journal entries"
        ordering = ["batch", "seq"]
        constraints = [models.UniqueConstraint(fields=["batch", "seq"], name="journal_seq")]
        indexes = [models.Index(fields=["table", "row_id"], name="journal_row")]

    def __str__(self) -> str:
        return f"{self.op} {self.table}:{self.row_id}"
