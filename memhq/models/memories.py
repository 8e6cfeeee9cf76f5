from __future__ import annotations

import uuid

from django.contrib.postgres.fields import ArrayField
from django.contrib.postgres.indexes import GinIndex
from django.contrib.postgres.search import SearchVector, SearchVectorField
from django.db import models
from pgvector.django import HnswIndex

from memhq.models.entities import Entity
from memhq.models.episodes import EMBEDDING_DIM, FULL_TEXT_CONFIG, Episode
from memhq.models.tenancy import Project
from memhq.models.vectors import VectorField


class MemoryStatus(models.TextChoices):
    ACTIVE = "active"
    SUPERSEDED = "superseded"
    DISABLED = "disabled"
    DELETED = "deleted"


class MemoryKind(models.TextChoices):
    FACT = "fact"
    PREFERENCE = "preference"
    DECISION = "decision"
    RELATIONSHIP = "relationship"
    EVENT = "event"


class MemoryOrigin(models.TextChoices):
    EXTRACTED = "extracted"
    USER = "user"


class Memory(models.Model):
    """A durable statement about the user's world, with validity time, provenance and status.

    Bitemporal: ``valid_from``/``valid_until`` say when it was true in the world,
    ``recorded_at``/``expired_at`` when MemHQ believed it. Nothing is deleted by reconciliation: a superseded
    memory keeps its row.
    """

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="memories")
    user_id = models.CharField(max_length=200)
    text = models.TextField()
    kind = models.CharField(max_length=16, choices=MemoryKind.choices)
    subject = models.CharField(max_length=200)
    subject_entity = models.ForeignKey(
        Entity, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    predicate = models.CharField(max_length=100)
    object_value = models.TextField(blank=True, default="")
    object_entity = models.ForeignKey(
        Entity, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    entity_ids = ArrayField(models.UUIDField(), default=list, blank=True)
    confidence = models.FloatField()
    importance = models.FloatField()
    status = models.CharField(max_length=16, choices=MemoryStatus.choices, default=MemoryStatus.ACTIVE)
    valid_from = models.DateTimeField()
    valid_until = models.DateTimeField(null=True, blank=True)
    recorded_at = models.DateTimeField()
    expired_at = models.DateTimeField(null=True, blank=True)
    superseded_by = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    reinforce_count = models.PositiveIntegerField(default=0)
    last_seen_at = models.DateTimeField()
    origin = models.CharField(max_length=16, choices=MemoryOrigin.choices, default=MemoryOrigin.EXTRACTED)
    episode = models.ForeignKey(Episode, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    embedding = VectorField(dimensions=EMBEDDING_DIM, null=True, blank=True)
    search_vector = models.GeneratedField(
        expression=SearchVector("text", config=FULL_TEXT_CONFIG),
        output_field=SearchVectorField(),
        db_persist=True,
    )
    indexed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name_plural = "memories"
        indexes = [
            models.Index(fields=["project", "user_id", "status"], name="memory_user_status"),
            models.Index(fields=["project", "user_id", "predicate"], name="memory_user_predicate"),
            GinIndex(fields=["entity_ids"], name="memory_entities"),
            # Per-user full text (btree_gin, migration 0007): the GIN scan skips to this user's postings.
            GinIndex(fields=["project", "user_id", "search_vector"], name="memory_user_fts"),
            HnswIndex(
                name="memory_embedding_hnsw",
                fields=["embedding"],
                m=16,
                ef_construction=64,
                opclasses=["vector_cosine_ops"],
            ),
        ]

    def __str__(self) -> str:
        return self.text


class Evidence(models.Model):
    """Why a memory exists: an immutable snapshot (a database trigger refuses UPDATE)."""

    memory = models.ForeignKey(Memory, on_delete=models.CASCADE, related_name="evidence")
    episode = models.ForeignKey(Episode, null=True, blank=True, on_delete=models.CASCADE, related_name="+")
    message_indexes = ArrayField(models.PositiveIntegerField(), default=list, blank=True)
    caller_message_ids = ArrayField(models.CharField(max_length=200), default=list, blank=True)
    quote = models.TextField(blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name_plural = "evidence"

    def __str__(self) -> str:
        return f"evidence for {self.memory_id}"
