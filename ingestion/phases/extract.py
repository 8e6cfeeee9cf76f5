"""Phase 3 — the configured Extractor turns the episode into candidates, a summary and key learnings.

The model call (or spaCy pass) happens in ``compute``, outside any transaction; ``store`` writes candidates
and the summary together with the "phase done" mark, so a retry never repeats a call whose result was kept.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from ingestion.extractors.base import EpisodeIn, ExtractionResult, MessageIn, TimeMention
from ingestion.runner import PhaseOutcome
from memhq.ai.provider import get_extractor
from memhq.models import Candidate, Episode, EpisodeMessage


def mention_from_json(data: dict[str, Any]) -> TimeMention:
    return TimeMention(
        text=data["text"],
        start_char=data["start_char"],
        end_char=data["end_char"],
        start=datetime.fromisoformat(data["start"]),
        end=datetime.fromisoformat(data["end"]),
        granularity=data["granularity"],
    )


def episode_input(episode: Episode) -> EpisodeIn:
    rows = EpisodeMessage.objects.filter(episode=episode).order_by("index").defer("embedding")
    messages = tuple(
        MessageIn(
            index=row.index,
            role=row.role,  # type: ignore[arg-type]  # validated at /add
            content=row.content,
            document_date=row.document_date or episode.received_at,
            name=row.name or None,
            caller_id=row.caller_id or None,
            time_mentions=tuple(mention_from_json(item) for item in row.time_mentions),
        )
        for row in rows
    )
    return EpisodeIn(messages=messages, received_at=episode.received_at)


def compute(episode: Episode) -> ExtractionResult:
    return get_extractor().extract(episode_input(episode))


def store(episode: Episode, result: ExtractionResult) -> PhaseOutcome:
    Candidate.objects.bulk_create(
        [
            Candidate(
                episode=episode,
                ordinal=ordinal,
                claim=candidate.claim,
                kind=candidate.kind,
                subject=candidate.subject,
                predicate=candidate.predicate,
                object_value=candidate.object,
                mentions=[
                    {"name": mention.name, "type": mention.type, "role": mention.role}
                    for mention in candidate.mentions
                ],
                source_message_indexes=list(candidate.source_message_indexes),
                span_start=candidate.span_start,
                span_end=candidate.span_end,
                confidence=candidate.confidence,
                importance=candidate.importance,
                valid_from=candidate.valid_from,
            )
            for ordinal, candidate in enumerate(result.candidates)
        ]
    )
    return PhaseOutcome(
        counts={"candidates": len(result.candidates)},
        episode_fields={"summary": result.summary, "key_learnings": result.key_learnings},
        llm_calls=result.llm_calls,
        prompt_tokens=result.prompt_tokens,
        completion_tokens=result.completion_tokens,
    )
