"""Phase 7 — the completion record on the episode and the webhook events in the outbox."""

from __future__ import annotations

from collections import Counter
from typing import Any

from django.db.models import Count

from ingestion.runner import PhaseOutcome
from memhq.models import Candidate, Episode
from memhq.services.webhooks import event_emit


def compute(episode: Episode) -> None:
    return None


def store(episode: Episode, data: None) -> PhaseOutcome:
    decisions: Counter[str] = Counter(
        {
            row["decision"] or "undecided": row["n"]
            for row in Candidate.objects.filter(episode=episode).values("decision").annotate(n=Count("id"))
        }
    )
    changed = [
        str(memory_id)
        for memory_id in Candidate.objects.filter(episode=episode, memory__isnull=False)
        .exclude(decision=Candidate.Decision.REJECT)
        .values_list("memory_id", flat=True)
        .distinct()
    ]
    stats: dict[str, Any] = episode.stats or {}
    payload = {
        "episode_id": str(episode.pk),
        "user_id": episode.user_id,
        "status": "completed",
        "decisions": dict(decisions),
        "memory_ids": changed,
        "timings_ms": stats.get("timings_ms", {}),
        "llm_calls": stats.get("llm_calls", 0),
    }
    event_emit(
        project_id=episode.project_id, user_id=episode.user_id, type="episode.completed", payload=payload
    )
    if changed:
        event_emit(
            project_id=episode.project_id,
            user_id=episode.user_id,
            type="memories.changed",
            payload={"episode_id": str(episode.pk), "user_id": episode.user_id, "memory_ids": changed},
        )
    return PhaseOutcome(counts={f"decision_{name}": count for name, count in decisions.items()})
