"""Phase 1 — parse the raw body stored by /add into EpisodeMessage rows. The raw body is never modified."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from ingestion.runner import PhaseOutcome
from memhq.models import Episode, EpisodeMessage
from memhq.text_rules import parse_timestamp as parse_iso


def parse_timestamp(value: str | None) -> datetime | None:
    """ISO-8601 → aware UTC; naive timestamps are taken as UTC (as /add documents). The same parser /add
    validates with (memhq/text_rules.py), so an accepted timestamp always parses here."""
    return parse_iso(value) if value else None


def compute(episode: Episode) -> list[EpisodeMessage]:
    body: dict[str, Any] = json.loads(bytes(episode.raw_body))
    return [
        EpisodeMessage(
            episode_id=episode.pk,
            project_id=episode.project_id,
            user_id=episode.user_id,
            index=index,
            caller_id=str(message.get("id") or ""),
            role=message["role"],
            name=message.get("name") or "",
            content=message["content"],
            timestamp=parse_timestamp(message.get("timestamp")),
        )
        for index, message in enumerate(body["messages"])
    ]


def store(episode: Episode, messages: list[EpisodeMessage]) -> PhaseOutcome:
    EpisodeMessage.objects.bulk_create(messages)
    return PhaseOutcome(counts={"messages": len(messages)})
