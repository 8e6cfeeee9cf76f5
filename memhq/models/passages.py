from __future__ import annotations

from django.contrib.postgres.indexes import GinIndex
from django.contrib.postgres.search import SearchVector, SearchVectorField
from django.db import models
from pgvector.django import HnswIndex

from memhq.models.episodes import EMBEDDING_DIM, FULL_TEXT_CONFIG, Episode, EpisodeMessage
from memhq.models.tenancy import Project
from memhq.models.vectors import VectorField


class Passage(models.Model):
    """A part of a long episode message (``ingestion.passages``): searched and returned instead of the whole
    message. ``message.content[start:end] == text``; written by the index phase, never changed."""

    message = models.ForeignKey(EpisodeMessage, on_delete=models.CASCADE, related_name="passages")
    episode = models.ForeignKey(Episode, on_delete=models.CASCADE, related_name="+")
    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="+")
    user_id = models.CharField(max_length=200)
    message_index = models.PositiveIntegerField()  # the message's index in its episode (recall's sources)
    ordinal = models.PositiveIntegerField()
    start = models.PositiveIntegerField()
    end = models.PositiveIntegerField()
    text = models.TextField()
    document_date = models.DateTimeField(null=True, blank=True)
    embedding = VectorField(dimensions=EMBEDDING_DIM, null=True, blank=True)
    search_vector = models.GeneratedField(
        expression=SearchVector("text", config=FULL_TEXT_CONFIG),
        output_field=SearchVectorField(),
        db_persist=True,
    )

    class Meta:
        constraints = [models.UniqueConstraint(fields=["message", "ordinal"], name="passage_message_ordinal")]
        indexes = [
            models.Index(fields=["project", "user_id", "document_date"], name="passage_user_date"),
            HnswIndex(
                name="passage_embedding_hnsw",
                fields=["embedding"],
                m=16,
                ef_construction=64,
                opclasses=["vector_cosine_ops"],
            ),
            GinIndex(fields=["project", "user_id", "search_vector"], name="passage_user_fts"),
        ]

    def __str__(self) -> str:
        return f"{self.message_id}/{self.ordinal}"
