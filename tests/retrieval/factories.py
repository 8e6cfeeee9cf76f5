"""Memories written straight to the table (embedded with the real local model), for retrieval tests."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import numpy as np
from django.utils import timezone

from memhq.ai.provider import get_embedder
from memhq.models import Memory, Project

EPOCH = datetime(2023, 1, 1, tzinfo=UTC)


def make_memories(project: Project, user_id: str, texts: list[str], **fields: Any) -> list[Memory]:
    vectors = get_embedder().embed(texts)
    now = timezone.now()
    return Memory.objects.bulk_create(
        [
            Memory(
                project=project,
                user_id=user_id,
                text=text,
                kind=fields.get("kind", "fact"),
                subject="user",
                predicate="states",
                object_value=text,
                confidence=0.9,
                importance=0.5,
                valid_from=fields.get("valid_from", EPOCH),
                recorded_at=now,
                last_seen_at=now,
                embedding=vector,
                indexed_at=now,
            )
            for text, vector in zip(texts, vectors, strict=True)
        ]
    )


class RecordingEmbedder:
    """An embedder that records the texts it is given and answers one constant unit vector."""

    name, dim = "recording", 384

    def __init__(self) -> None:
        self.embedded: list[str] = []

    def embed(self, texts: list[str]) -> np.ndarray:
        self.embedded.extend(texts)
        return np.ones((len(texts), self.dim), dtype=np.float32) / np.sqrt(self.dim)

    def embed_query(self, text: str) -> np.ndarray:
        return self.embed([text])[0]
