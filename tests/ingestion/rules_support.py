"""Helpers shared by the rules extractor tests: build episodes from fixtures or from a few turns."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import cast

from ingestion.extractors.base import CandidateOut, EpisodeIn, ExtractionResult, MessageIn, Role
from ingestion.extractors.rules import RulesExtractor
from ingestion.temporal import find_time_mentions
from tests.fixtures.conversations import Conversation, Session

DOC_DATE = datetime(2024, 5, 10, 12, tzinfo=UTC)
EXTRACTOR = RulesExtractor()


def episode_of(session: Session) -> EpisodeIn:
    """A fixture session as the extract phase sees it: document dates and resolved time mentions."""
    messages = []
    for i, m in enumerate(session.messages):
        when = m.timestamp or session.date
        mentions = tuple(find_time_mentions(m.content, when))
        messages.append(MessageIn(i, cast(Role, m.role), m.content, when, m.name, None, mentions))
    return EpisodeIn(tuple(messages), session.date)


def extract_all(conv: Conversation) -> list[CandidateOut]:
    return [c for s in conv.sessions for c in EXTRACTOR.extract(episode_of(s)).candidates]


def say(*turns: tuple[str, ...]) -> ExtractionResult:
    """Extract from turns ``(role, content[, name])`` dated :data:`DOC_DATE`."""
    msgs = tuple(
        MessageIn(
            i,
            cast(Role, t[0]),
            t[1],
            DOC_DATE,
            t[2] if len(t) > 2 else None,
            None,
            tuple(find_time_mentions(t[1], DOC_DATE)),
        )
        for i, t in enumerate(turns)
    )
    return EXTRACTOR.extract(EpisodeIn(msgs, DOC_DATE))


def one(text: str, name: str | None = None) -> list[CandidateOut]:
    """Candidates of a single user message."""
    return say(("user", text, name) if name else ("user", text)).candidates


#: The assistant's answer to a user message, so that "you" in it is the assistant.
ASSISTANT_REPLY = ("assistant", "Sure, I will.")


def told(text: str) -> list[str]:
    """The claims of one user message said to the assistant."""
    return [c.claim for c in say(("user", text), ASSISTANT_REPLY).candidates]


def claims(result: ExtractionResult) -> list[str]:
    return [c.claim for c in result.candidates]
