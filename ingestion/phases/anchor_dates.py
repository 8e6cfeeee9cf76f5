"""Phase 2 — give every message a document date and resolve the time expressions it contains.

The document date is the message's own timestamp, else the episode's ``timestamp``, else the time the
episode was received. Expressions are found and resolved by ``ingestion.temporal``.
"""

from __future__ import annotations

import json
from dataclasses import asdict
from datetime import datetime
from typing import Any

from ingestion.phases.persist import parse_timestamp
from ingestion.runner import PhaseOutcome
from ingestion.temporal import find_time_mentions
from memhq.models import Episode, EpisodeMessage
from memhq.services.bulk import rows_update


def mention_to_json(mention: Any) -> dict[str, Any]:
    data = asdict(mention)
    data["start"] = mention.start.isoformat()
    data["end"] = mention.end.isoformat()
    return data


def compute(episode: Episode) -> list[EpisodeMessage]:
    body = json.loads(bytes(episode.raw_body))
    episode_date: datetime = parse_timestamp(body.get("timestamp")) or episode.received_at
    messages = list(EpisodeMessage.objects.filter(episode=episode).order_by("index").defer("embedding"))
    for message in messages:
        message.document_date = message.timestamp or episode_date
        message.time_mentions = [
            mention_to_json(mention) for mention in find_time_mentions(message.content, message.document_date)
        ]
    return messages


def store(episode: Episode, messages: list[EpisodeMessage]) -> PhaseOutcome:
    rows_update(messages, ["document_date", "time_mentions"])
    return PhaseOutcome(counts={"time_mentions": sum(len(message.time_mentions) for message in messages)})
