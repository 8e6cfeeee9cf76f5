"""Recall on the product's shape (one person talking with an assistant): several facts from one message each
compete, long turns come back as the passage that matched, a role is not a name, and ``as_of`` renders what
was true then."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from django.conf import settings
from rest_framework.test import APIClient

from ingestion import passages
from ingestion.pipeline import run_inline
from memhq.ai.tokens import count_tokens
from memhq.models import EpisodeMessage, Passage, Project
from retrieval.fusion import named
from retrieval.items import Item, item_from_row
from retrieval.recall import fetch
from retrieval.render import item_line
from tests.ingestion.helpers import make_episode

RECALL = "/v1/memhq/recall"


def turns(project: Project, messages: list[tuple[str, str]], when: str, user: str = "alice") -> None:
    body = [
        {"role": role, "content": content, "id": f"{when}-{n}"} for n, (role, content) in enumerate(messages)
    ]
    run_inline(make_episode(project, body, user, timestamp=when).pk)


def test_every_fact_of_one_message_is_recalled_on_its_own(project: Project, api: APIClient) -> None:
    turns(
        project,
        [("user", "I am vegetarian and I hate spicy food. I love Italian restaurants.")],
        "2026-03-01T10:00:00Z",
    )
    response = api.post(RECALL, {"user_id": "alice", "query": "a restaurant for a family dinner"}, "json")
    facts = [item["text"] for item in response.json()["items"] if item["type"] == "memory"]
    assert len(facts) >= 3, facts
    assert response.json()["fact_count"] == len(facts)


def long_reply(topic: str, detail: str) -> str:
    filler = " ".join(
        f"Step {n} of the {topic} plan is to review the notes and keep the schedule in order."
        for n in range(40)
    )
    return f"{filler}\n\n{detail}\n\n{filler}"


def test_a_long_turn_is_recalled_as_the_passage_that_matched(project: Project, api: APIClient) -> None:
    detail = "For the database we settled on PostgreSQL 16 with the pgvector extension for embeddings."
    turns(
        project,
        [
            ("user", "Can you help me plan the backend of my recipe app?"),
            ("assistant", long_reply("backend", detail)),
        ],
        "2026-03-02T10:00:00Z",
    )
    message = EpisodeMessage.objects.get(role="assistant")
    parts = list(Passage.objects.filter(message=message).order_by("ordinal"))
    assert message.passage_count == len(parts) > settings.MEMHQ_PASSAGES_EMBEDDED
    # The first passages are embedded (the message's own vector is the first one's), the rest full text only.
    embedded = [part.embedding is not None for part in parts]
    assert embedded == [n < settings.MEMHQ_PASSAGES_EMBEDDED for n in range(len(parts))]
    assert message.embedding is not None and parts[0].embedding is not None
    assert list(message.embedding) == list(parts[0].embedding)
    response = api.post(RECALL, {"user_id": "alice", "query": "Which database with pgvector?"}, "json")
    body = response.json()
    passage = next(item for item in body["items"] if item["type"] == "passage")
    assert "PostgreSQL 16" in passage["text"]
    start, end = passage["provenance"]["span"]
    assert message.content[start:end] == passage["text"]
    assert count_tokens(passage["text"]) < count_tokens(message.content) / 3
    assert not any(item["text"] == message.content for item in body["items"])


def test_a_role_is_not_a_name_the_query_gives() -> None:
    user_turn = Item(key="m", id="m", type="message", text="t", anchor="user")
    ana = Item(key="a", id="a", type="message", text="t", anchor="Ana")
    assert not named(user_turn, {"what", "does", "the", "user", "like"})
    assert named(ana, {"what", "does", "ana", "like"})


def test_as_of_shows_a_fact_that_was_true_then_without_its_later_end() -> None:
    fact = Item(
        key="f",
        id="f",
        type="memory",
        text="User works at Initech.",
        anchor="user",
        valid_from=datetime(2026, 6, 2, tzinfo=UTC),
        valid_until=datetime(2026, 11, 15, tzinfo=UTC),
    )
    assert item_line(fact, datetime(2026, 7, 1, tzinfo=UTC)) == "- User works at Initech. (2026-06-02)"
    ended = "- User works at Initech. (2026-06-02 to 2026-11-15, no longer true)"
    assert item_line(fact, datetime(2026, 12, 1, tzinfo=UTC)) == ended
    assert item_line(fact) == ended


def test_an_assistants_filler_never_takes_a_slot(project: Project, api: APIClient) -> None:
    turns(
        project,
        [
            ("user", "We are driving to the lake house in Maine for the weekend."),
            ("assistant", "Exciting! Is anyone else coming along?"),
            ("user", "My brother Tom is coming with his dog."),
        ],
        "2026-03-03T10:00:00Z",
    )
    assert EpisodeMessage.objects.get(role="assistant").filler
    response = api.post(RECALL, {"user_id": "alice", "query": "Who is coming to the lake house?"}, "json")
    texts = [item["text"] for item in response.json()["items"]]
    assert texts and not any("Exciting" in text for text in texts)


def test_a_long_message_found_whole_is_shown_as_its_stored_first_passage(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    detail = "For the database we settled on PostgreSQL 16 with the pgvector extension for embeddings."
    turns(project, [("assistant", long_reply("backend", detail))], "2026-03-02T10:00:00Z")
    message = EpisodeMessage.objects.get(role="assistant")
    first = Passage.objects.get(message=message, ordinal=0).text
    rows = fetch(
        project_id=project.pk,
        user_id="alice",
        query_text="the review of the notes in the backend plan",
        as_of=datetime(2026, 3, 3, tzinfo=UTC),
        history=False,
    )
    found = [row for row in rows if row["message_id"] == message.pk]
    assert found and all(row["msg_first_passage"] == first for row in found)

    def no_tokenising(text: str) -> None:
        raise AssertionError("recall split a stored message again")

    monkeypatch.setattr(passages, "split", no_tokenising)
    assert {item_from_row(row).text for row in found} == {f"{first}{passages.CUT_MARK}"}
