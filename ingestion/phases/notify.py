"""Phase 7 — the completion record on the episode and the webhook events in the outbox."""

from __future__ import annotations

from collections import Counter
from typing import Any

from ingestion.runner import PhaseOutcome
from memhq.models import Candidate, Episode
from memhq.replicas import freshness
from memhq.services.webhooks import events_emit


def compute(episode: Episode) -> None:
    return None


def store(episode: Episode, data: None) -> PhaseOutcome:
    rows = list(
        Candidate.objects.filter(episode=episode).order_by("ordinal").values_list("decision", "memory_id")
    )
    decisions: Counter[str] = Counter(decision or "undecided" for decision, _ in rows)
    changed = list(
        dict.fromkeys(
            str(memory_id)
            for decision, memory_id in rows
            if memory_id is not None and decision != Candidate.Decision.REJECT
        )
    )
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
    events = [("episode.completed", payload)]
    if changed:
        events.append(
            (
                "memories.changed",
                {"episode_id": str(episode.pk), "user_id": episode.user_id, "memory_ids": changed},
            )
        )
    events_emit(project_id=episode.project_id, user_id=episode.user_id, events=events)
    freshness.wrote(episode.project_id, user_id=episode.user_id, thread_id=episode.thread_key or None)
    return PhaseOutcome(counts={f"decision_{name}": count for name, count in decisions.items()})
