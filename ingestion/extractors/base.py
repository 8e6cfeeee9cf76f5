"""The extractor interface: an episode (messages + anchored dates) in, candidate memories out.

Pure Python on purpose: nothing here touches Django or the database, so every extractor can be tested on
plain data and the extract phase (``ingestion/phases/extract.py``) is the only place that maps rows to
these types and back.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal, Protocol

Role = Literal["user", "assistant", "system", "tool"]
Kind = Literal["fact", "preference", "decision", "relationship", "event"]
EntityType = Literal[
    "person",
    "organization",
    "location",
    "product",
    "project",
    "tool",
    "concept",
    "event",
    "media",
    "other",
]

KINDS: tuple[Kind, ...] = ("fact", "preference", "decision", "relationship", "event")
ENTITY_TYPES: tuple[EntityType, ...] = (
    "person",
    "organization",
    "location",
    "product",
    "project",
    "tool",
    "concept",
    "event",
    "media",
    "other",
)

#: The subject name used for claims about the memory's owner when the speaker has no name of its own.
USER_SUBJECT = "user"


@dataclass(frozen=True)
class TimeMention:
    """A time expression found in a message, resolved against the message's document date."""

    text: str
    start_char: int  # offsets into the message content
    end_char: int
    start: datetime  # aware UTC, inclusive
    end: datetime  # aware UTC, exclusive
    granularity: Literal["day", "week", "weekend", "month", "season", "year"]


@dataclass(frozen=True)
class MessageIn:
    index: int  # position in the episode, 0-based
    role: Role
    content: str
    document_date: datetime  # aware UTC
    name: str | None = None  # speaker name, e.g. "Rosalind"
    caller_id: str | None = None  # the id the caller gave the message, if any
    time_mentions: tuple[TimeMention, ...] = ()


@dataclass(frozen=True)
class EpisodeIn:
    messages: tuple[MessageIn, ...]
    received_at: datetime  # aware UTC


@dataclass(frozen=True)
class Mention:
    """An entity named by a candidate. ``name`` is the surface form as written (typos included)."""

    name: str
    type: EntityType
    role: Literal["subject", "object", "other"] = "other"


@dataclass(frozen=True)
class CandidateOut:
    claim: (
        str  # standalone third-person sentence with dates resolved ("Rosalind moved to Lisbon in May 2023.")
    )
    kind: Kind
    subject: str  # "user" or the speaker / person the claim is about
    predicate: str  # snake_case, e.g. "lives_in", "likes", "works_at"; see ingestion/extractors/predicates.py
    object: str  # the value, e.g. "Lisbon"
    mentions: tuple[Mention, ...]
    source_message_indexes: tuple[int, ...]  # MessageIn.index values the claim came from
    span_start: int  # character span in the first source message's content
    span_end: int
    confidence: float  # 0..1
    importance: float  # 0..1
    valid_from: datetime | None = None  # when the claim started being true, if the text says so (aware UTC)


@dataclass
class ExtractionResult:
    candidates: list[CandidateOut]
    summary: str  # what the conversation was about, a few sentences
    key_learnings: list[str] = field(default_factory=list)
    llm_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0


class Extractor(Protocol):
    name: str

    def extract(self, episode: EpisodeIn) -> ExtractionResult: ...
