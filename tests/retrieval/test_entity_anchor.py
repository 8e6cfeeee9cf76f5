"""The entity anchor through the real pipeline: a favourite show (typed media by the extractor) surfaces for
a question about Netflix that names no show, through the type-hint anchor; uninformative anchors are not
used."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from ingestion.pipeline import run_inline
from memhq.models import Entity, Project
from retrieval.type_hints import hinted_types
from tests.ingestion.helpers import make_episode

RECALL = "/v1/memhq/recall"
FAVOURITE = "My favourite show is Breaking Bad."
OTHER_FACTS = (
    "I live in Berlin.",
    "I work at Acme as a data engineer.",
    "I have a dog named Rex.",
    "I'm allergic to peanuts.",
    "I play tennis every Sunday.",
    "My sister Anna lives in Madrid.",
)


def tell(project: Project, texts: tuple[str, ...], user_id: str = "alice") -> None:
    for number, text in enumerate(texts):
        episode = make_episode(
            project,
            [{"role": "user", "content": text, "id": f"m{number}"}],
            user_id,
            timestamp=f"2024-03-{number + 1:02d}T10:00:00Z",
        )
        run_inline(episode.pk)


def memories(body: dict[str, Any]) -> list[dict[str, Any]]:
    return [item for item in body["items"] if item["type"] == "memory"]


@pytest.fixture
def alice(project: Project) -> Project:
    tell(project, (FAVOURITE, *OTHER_FACTS))
    return project


def test_the_show_is_stored_as_a_media_entity(alice: Project) -> None:
    show = Entity.objects.get(project=alice, user_id="alice", normalized_name="breaking bad")
    assert show.type == "media"


def test_netflix_tonight_surfaces_the_favourite_show_through_the_entity_anchor(
    alice: Project, api: APIClient
) -> None:
    body = api.post(RECALL, {"user_id": "alice", "query": "anything good on Netflix tonight?"}, "json").json()
    found = memories(body)
    show = next(item for item in found if "Breaking Bad" in item["text"])
    assert "entity" in show["ranks"]
    assert found[0] is show  # the best memory for the question
    assert "Breaking Bad" in body["context"]


def test_the_type_hint_alone_anchors_the_show(
    alice: Project, api: APIClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Without the query's nearest entities (MiniLM also puts "Breaking Bad" near "Netflix") only the type
    # hint is left to anchor the show; without the hint too, the entity signal finds nothing.
    monkeypatch.setattr("retrieval.signals.entity.NEAREST_ENTITIES", 0)
    query = {"user_id": "alice", "query": "anything good on Netflix tonight?"}
    show = next(
        item for item in memories(api.post(RECALL, query, "json").json()) if "Breaking" in item["text"]
    )
    assert "entity" in show["ranks"]
    monkeypatch.setattr("retrieval.query.hinted_types", lambda text: [])
    body = api.post(RECALL, query, "json").json()
    assert not any("entity" in item["ranks"] for item in body["items"])


def test_a_question_without_a_media_hint_does_not_anchor_on_the_show(alice: Project, api: APIClient) -> None:
    body = api.post(RECALL, {"user_id": "alice", "query": "Where does my sister live?"}, "json").json()
    show = [item for item in memories(body) if "Breaking Bad" in item["text"]]
    assert not show or "entity" not in show[0]["ranks"]


@pytest.mark.parametrize(
    ("query", "types"),
    [
        ("anything good on Netflix tonight?", ["media"]),
        ("any book recommendations?", ["media"]),
        ("which cities did I visit?", ["location"]),
        ("how are you?", []),
    ],
)
def test_type_hints(query: str, types: list[str]) -> None:
    assert hinted_types(query) == types


@pytest.mark.parametrize(
    ("name", "query", "shown"),
    [
        ("madrid", "what to pack for Madridd", "Madrid"),
        # two words: near spellings are looked up for one- and two-word n-grams (MAX_FUZZY_GRAM_WORDS)
        ("breaking bad", "should I rewatch Breaking Badd", "Breaking Bad"),
    ],
)
def test_a_name_misspelt_in_the_query_still_anchors_its_memories(
    alice: Project, api: APIClient, monkeypatch: pytest.MonkeyPatch, name: str, query: str, shown: str
) -> None:
    # Only the named anchor is left (no nearest entities, no type hints): the misspelling is not a word of any
    # name, so only the fuzzy match (the trigram index's candidates, then word_similarity) can find it.
    assert Entity.objects.filter(project=alice, user_id="alice", normalized_name=name).exists()
    monkeypatch.setattr("retrieval.signals.entity.NEAREST_ENTITIES", 0)
    monkeypatch.setattr("retrieval.query.hinted_types", lambda text: [])
    body = api.post(RECALL, {"user_id": "alice", "query": query}, "json").json()
    anchored = [item["text"] for item in memories(body) if "entity" in item["ranks"]]
    assert anchored and all(shown in text for text in anchored), anchored
