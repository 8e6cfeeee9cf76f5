"""Every hand-written fixture conversation through all seven phases: the memories that must (and must not)
exist at the end, with supersession applied across sessions."""

from __future__ import annotations

from typing import Any

import pytest

from ingestion.pipeline import run_inline
from memhq.models import Memory, Project
from tests.fixtures.conversations import CONVERSATIONS, Conversation
from tests.ingestion.helpers import make_episode


def session_messages(session: Any) -> list[dict[str, Any]]:
    messages = []
    for message in session.messages:
        item: dict[str, Any] = {"role": message.role, "content": message.content}
        if message.name:
            item["name"] = message.name
        if message.timestamp:
            item["timestamp"] = message.timestamp.isoformat()
        messages.append(item)
    return messages


def triples(memories: list[Memory]) -> set[tuple[str, str, str]]:
    return {(m.subject.lower(), m.predicate, m.object_value.lower()) for m in memories}


@pytest.mark.parametrize("conversation", CONVERSATIONS, ids=[c.id for c in CONVERSATIONS])
def test_fixture_conversation_through_the_pipeline(project: Project, conversation: Conversation) -> None:
    for session in conversation.sessions:
        episode = make_episode(
            project, session_messages(session), user_id=conversation.id, timestamp=session.date.isoformat()
        )
        run_inline(episode.pk)
        episode.refresh_from_db()
        assert episode.status == "completed", episode.error
    memories = list(Memory.objects.filter(project=project, user_id=conversation.id))
    if conversation.yields_nothing:
        assert memories == []
        return
    active = triples([m for m in memories if m.status == "active"])
    superseded = triples([m for m in memories if m.status == "superseded"])
    for expected in conversation.expected_active():
        key = (expected.subject.lower(), expected.predicate, expected.object.lower())
        assert key in active, f"{key} not active; active: {sorted(active)}"
    for old, new in conversation.supersedes:
        assert (old.subject.lower(), old.predicate, old.object.lower()) in superseded
        assert (new.subject.lower(), new.predicate, new.object.lower()) in active
    texts = " | ".join(m.text.lower() for m in memories)
    for forbidden in conversation.must_not:
        assert forbidden.lower() not in texts, forbidden
    assert len({m.text for m in memories if m.status == "active"}) == len(
        [m for m in memories if m.status == "active"]
    ), "no duplicate active memories"
