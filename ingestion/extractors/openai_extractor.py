"""The ``openai`` extractor: one JSON-schema chat call per episode, mapped into ``CandidateOut``.

Choices:
- Exactly one LLM call per episode (none for an empty episode); errors come out of ``structured_call``
  already sorted into ``TransientAIError`` / ``PermanentAIError`` for the extract task's retry policy.
- The model's answer is trusted for wording, not for structure: a candidate is dropped (logged with the
  reason, never the claim text) when its kind or one of its entity types is unknown, when it cites no
  message or a message index the episode does not have, when its claim or predicate is empty, or when every
  message it cites is an unnamed assistant's (the rule "drop what only the assistant said", enforced here too;
  a *named* assistant is a speaker in a role-played or imported conversation and is kept).
- An unknown mention role becomes "other"; confidence and importance are clamped to 0..1 (NaN → 0);
  predicates are folded to snake_case and then to the canonical vocabulary (``moved_to`` → ``lives_in``,
  ``ingestion/extractors/predicates.py``) so reconcile compares like with like; a subject spelled "User"
  becomes ``USER_SUBJECT``.
- Span: the quoted span is looked up in the cited messages (exactly, then ignoring case, then without
  surrounding quotes or a final period); the message that contains it moves first in
  ``source_message_indexes`` (the span is an offset into the first source message). When no cited message
  contains it, the span is the whole first message.
- valid_from accepts YYYY-MM-DD, YYYY-MM, YYYY (first day of the period) or a full ISO datetime; anything
  else becomes None (the candidate is kept). Dates are aware UTC.
"""

from __future__ import annotations

import logging
import math
import re
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import TypeVar

from ingestion.extractors.base import (
    ENTITY_TYPES,
    KINDS,
    USER_SUBJECT,
    CandidateOut,
    EpisodeIn,
    ExtractionResult,
    Mention,
    MessageIn,
)
from ingestion.extractors.predicates import normalise_predicate as canonical_predicate
from ingestion.prompts.extract import (
    MAX_KEY_LEARNINGS,
    MENTION_ROLES,
    SCHEMA_NAME,
    ExtractedCandidate,
    ExtractionAnswer,
    MentionRole,
    build_messages,
)
from memhq.ai.llm import LLMConfig, make_client, structured_call

logger = logging.getLogger(__name__)

#: The mention role used when the model gives one we do not know.
FALLBACK_MENTION_ROLE: MentionRole = "other"
#: Characters stripped from both ends of a quoted span before a second lookup.
SPAN_TRIM_CHARS = " \t\n\"'“”‘’.…"
_PARTIAL_DATE_RE = re.compile(r"^(?P<year>\d{4})(?:-(?P<month>\d{1,2}))?(?:-(?P<day>\d{1,2}))?$")
_NON_WORD_RE = re.compile(r"[^0-9a-z]+")

ChoiceT = TypeVar("ChoiceT", bound=str)


class OpenAIExtractor:
    name = "openai"

    def __init__(self, config: LLMConfig, examples: int | None = None) -> None:
        self.config = config
        self.examples = examples  # worked examples in the prompt; None: all of them

    def extract(self, episode: EpisodeIn) -> ExtractionResult:
        if not episode.messages:
            return ExtractionResult(candidates=[], summary="")
        result = structured_call(
            make_client(self.config),
            model=self.config.model,
            messages=build_messages(episode, self.examples),
            response_model=ExtractionAnswer,
            schema_name=SCHEMA_NAME,
            stream=self.config.stream,
            max_call_s=self.config.max_call_s,
        )
        answer = result.parsed
        learnings = [text.strip() for text in answer.key_learnings if text.strip()]
        return ExtractionResult(
            candidates=map_candidates(answer, episode),
            summary=answer.summary.strip(),
            key_learnings=learnings[:MAX_KEY_LEARNINGS],
            llm_calls=1,
            prompt_tokens=result.prompt_tokens,
            completion_tokens=result.completion_tokens,
        )


def map_candidates(answer: ExtractionAnswer, episode: EpisodeIn) -> list[CandidateOut]:
    """The answer's usable candidates, in the model's order; unusable ones are logged and dropped."""
    messages = {message.index: message for message in episode.messages}
    candidates = []
    for ordinal, raw in enumerate(answer.candidates):
        candidate, reason = _to_candidate(raw, messages)
        if candidate is None:
            logger.info("openai extractor: dropped candidate %d: %s", ordinal, reason)
        else:
            candidates.append(candidate)
    return candidates


def _to_candidate(
    raw: ExtractedCandidate, messages: Mapping[int, MessageIn]
) -> tuple[CandidateOut | None, str]:
    kind = _pick(raw.kind, KINDS)
    if kind is None:
        return None, f"unknown kind {raw.kind!r}"
    unknown_types = sorted({m.type for m in raw.mentions} - set(ENTITY_TYPES))
    if unknown_types:
        return None, f"unknown entity types {unknown_types}"
    indexes = tuple(dict.fromkeys(raw.source_message_indexes))
    if not indexes:
        return None, "no source message"
    missing = [index for index in indexes if index not in messages]
    if missing:
        return None, f"source message indexes out of range: {missing}"
    sources = [messages[index] for index in indexes]
    if all(message.role == "assistant" and not message.name for message in sources):
        return None, "only the assistant said it"
    claim = raw.claim.strip()
    predicate = normalise_predicate(raw.predicate)
    if not claim or not predicate:
        return None, "empty claim or predicate"
    first, start, end = locate_span(raw.span_text, sources)
    ordered = (first.index, *(index for index in indexes if index != first.index))
    subject = raw.subject.strip()
    if not subject or subject.casefold() == USER_SUBJECT.casefold():
        subject = USER_SUBJECT
    candidate = CandidateOut(
        claim=claim,
        kind=kind,
        subject=subject,
        predicate=predicate,
        object=raw.object.strip(),
        mentions=_mentions(raw),
        source_message_indexes=ordered,
        span_start=start,
        span_end=end,
        confidence=clamp_unit(raw.confidence),
        importance=clamp_unit(raw.importance),
        valid_from=parse_valid_from(raw.valid_from),
    )
    return candidate, ""


def locate_span(span_text: str, sources: list[MessageIn]) -> tuple[MessageIn, int, int]:
    """The first cited message containing the quoted span, and the span's offsets in it."""
    needles = [span_text, span_text.strip(SPAN_TRIM_CHARS)]
    for needle in needles:
        if not needle:
            continue
        for message in sources:
            position = _find(message.content, needle)
            if position >= 0:
                return message, position, position + len(needle)
    first = sources[0]
    return first, 0, len(first.content)


def _find(content: str, needle: str) -> int:
    position = content.find(needle)
    if position >= 0:
        return position
    lowered = content.lower()
    if len(lowered) != len(content):  # lower() changed offsets (rare Unicode): no safe case-free lookup
        return -1
    return lowered.find(needle.lower())


def normalise_predicate(predicate: str) -> str:
    """``"Lives In"`` / ``"lives-in"`` → ``"lives_in"``; synonyms folded (``"Moved To"`` → ``"lives_in"``)."""
    return canonical_predicate(_NON_WORD_RE.sub("_", predicate.strip().lower()).strip("_"))


def clamp_unit(value: float) -> float:
    if math.isnan(value):
        return 0.0
    return min(max(float(value), 0.0), 1.0)


def parse_valid_from(text: str | None) -> datetime | None:
    """An ISO date (or year / year-month, or datetime) as an aware UTC datetime; None when unusable."""
    text = (text or "").strip()
    if not text:
        return None
    partial = _PARTIAL_DATE_RE.match(text)
    try:
        if partial:
            return datetime(
                int(partial["year"]), int(partial["month"] or 1), int(partial["day"] or 1), tzinfo=UTC
            )
        parsed = datetime.fromisoformat(text)
    except ValueError:
        return None
    return parsed.replace(tzinfo=UTC) if parsed.tzinfo is None else parsed.astimezone(UTC)


def _mentions(raw: ExtractedCandidate) -> tuple[Mention, ...]:
    mentions: dict[tuple[str, str, str], Mention] = {}
    for item in raw.mentions:
        name = item.name.strip()
        entity_type = _pick(item.type, ENTITY_TYPES)
        if not name or entity_type is None:  # unknown types were rejected with the whole candidate
            continue
        role = _pick(item.role, MENTION_ROLES) or FALLBACK_MENTION_ROLE
        mentions.setdefault((name, entity_type, role), Mention(name=name, type=entity_type, role=role))
    return tuple(mentions.values())


def _pick(value: str, allowed: tuple[ChoiceT, ...]) -> ChoiceT | None:
    """``value`` as one of the ``allowed`` literals, or None (typed, unlike ``value in allowed``)."""
    return next((option for option in allowed if option == value), None)
