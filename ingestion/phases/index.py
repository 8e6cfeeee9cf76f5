"""Phase 6 — embed the episode's messages and summary (batched) and make its memories visible to recall.

Memories created by reconcile already carry the embedding of their claim (computed there to compare with
existing memories), so only memories still missing one are embedded here. A memory is visible to recall
from ``indexed_at`` on. Full-text vectors are generated columns and need nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from django.utils import timezone

from ingestion.runner import PhaseOutcome
from memhq.ai.provider import get_embedder
from memhq.models import Episode, EpisodeMessage, Memory


@dataclass
class Embedded:
    messages: list[EpisodeMessage]
    memories: list[Memory]
    summary: np.ndarray | None


def message_text(message: EpisodeMessage) -> str:
    """What a message is embedded as: the speaker matters for "what did Caroline say about …"."""
    speaker = message.name or message.role
    return f"{speaker}: {message.content}"


def compute(episode: Episode) -> Embedded:
    messages = list(
        EpisodeMessage.objects.filter(episode=episode).order_by("index").only("pk", "name", "role", "content")
    )
    missing = list(Memory.objects.filter(episode=episode, embedding__isnull=True).only("pk", "text"))
    texts = [message_text(m) for m in messages] + [m.text for m in missing]
    if episode.summary:
        texts.append(episode.summary)
    vectors = get_embedder().embed(texts) if texts else np.zeros((0, 0), dtype=np.float32)
    for message, vector in zip(messages, vectors[: len(messages)], strict=True):
        message.embedding = vector
    for memory, vector in zip(missing, vectors[len(messages) : len(messages) + len(missing)], strict=True):
        memory.embedding = vector
    summary = vectors[-1] if episode.summary else None
    return Embedded(messages=messages, memories=missing, summary=summary)


def store(episode: Episode, data: Embedded) -> PhaseOutcome:
    now = timezone.now()
    EpisodeMessage.objects.bulk_update(data.messages, ["embedding"])
    Memory.objects.bulk_update(data.memories, ["embedding"])
    indexed = Memory.objects.filter(episode=episode, indexed_at__isnull=True).update(indexed_at=now)
    Episode.objects.filter(pk=episode.pk).update(summary_embedding=data.summary, indexed_at=now)
    return PhaseOutcome(counts={"messages_embedded": len(data.messages), "memories_indexed": indexed})
