from __future__ import annotations

import uuid

from django.contrib.postgres.fields import ArrayField
from django.contrib.postgres.indexes import GinIndex
from django.db import models
from pgvector.django import HnswIndex

from memhq.models.episodes import EMBEDDING_DIM
from memhq.models.tenancy import Project
from memhq.models.vectors import VectorField


class Entity(models.Model):
    """A node of a user's graph: a person, organisation, place, product, …"""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="entities")
    user_id = models.CharField(max_length=200)
    name = models.CharField(max_length=300)
    normalized_name = models.CharField(max_length=300)
    type = models.CharField(max_length=20)
    aliases = ArrayField(models.CharField(max_length=300), default=list, blank=True)
    normalized_aliases = ArrayField(models.CharField(max_length=300), default=list, blank=True)
    embedding = VectorField(dimensions=EMBEDDING_DIM, null=True, blank=True)
    mention_count = models.PositiveIntegerField(default=0)
    merged_into = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name_plural = "entities"
        constraints = [
            models.UniqueConstraint(
                fields=["project", "user_id", "type", "normalized_name"], name="entity_unique_name_per_type"
            )
        ]
        indexes = [
            models.Index(fields=["project", "user_id", "normalized_name"], name="entity_user_name"),
            GinIndex(fields=["normalized_name"], name="entity_name_trgm", opclasses=["gin_trgm_ops"]),
            GinIndex(fields=["normalized_aliases"], name="entity_aliases"),
            HnswIndex(
                name="entity_embedding_hnsw",
                fields=["embedding"],
                m=16,
                ef_construction=64,
                opclasses=["vector_cosine_ops"],
            ),
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.type})"
