"""The user is one person whatever they are called (issue 13, item 3): "I'm Maria", or user turns carrying
``name: "Maria"``, make Maria an alias of the user, not a second node; two named friends stay two people."""

from __future__ import annotations

from typing import Any

from rest_framework.test import APIClient

from ingestion.pipeline import run_inline
from memhq.models import Entity, Memory, Project
from memhq.selectors.graph import user_graph
from memhq.services.entities import user_entity_find
from tests.ingestion.helpers import make_episode

ASSISTANT = {"role": "assistant", "content": "Got it, thanks!"}


def ingest(project: Project, messages: list[dict[str, Any]], timestamp: str, user_id: str = "u1") -> None:
    episode = make_episode(project, messages, user_id=user_id, timestamp=timestamp)
    run_inline(episode.pk)
    episode.refresh_from_db()
    assert episode.status == "completed", episode.error


def people(project: Project, user_id: str = "u1") -> list[str]:
    return sorted(
        Entity.objects.filter(
            project=project, user_id=user_id, type="person", merged_into__isnull=True
        ).values_list("name", flat=True)
    )


def test_a_user_who_says_im_maria_is_one_entity_with_maria_as_an_alias(project: Project) -> None:
    ingest(
        project, [{"role": "user", "content": "Hi, I'm Maria. I live in Lisbon."}, ASSISTANT], "2026-03-02"
    )
    user = user_entity_find(project.pk, "u1")
    assert user is not None and user.aliases == ["Maria"]
    assert people(project) == ["user"]
    assert set(Memory.objects.filter(project=project).values_list("subject", flat=True)) == {"user"}


def test_named_user_turns_with_an_assistant_are_the_user(project: Project) -> None:
    ingest(
        project, [{"role": "user", "content": "I work at Google.", "name": "Maria"}, ASSISTANT], "2026-03-02"
    )
    memory = Memory.objects.get(project=project, predicate="works_at")
    assert memory.subject == "user"
    assert "Maria" in memory.text  # the claim keeps the name it was said under
    assert people(project) == ["user"]


def test_the_users_memories_under_either_name_supersede_each_other(project: Project) -> None:
    ingest(project, [{"role": "user", "content": "I work at Google."}, ASSISTANT], "2026-03-02T10:00:00Z")
    ingest(
        project,
        [{"role": "user", "content": "I just joined Anthropic.", "name": "Maria"}, ASSISTANT],
        "2026-06-02T10:00:00Z",
    )
    google = Memory.objects.get(project=project, object_value="Google")
    anthropic = Memory.objects.get(project=project, object_value="Anthropic")
    assert (google.status, google.superseded_by_id) == ("superseded", anthropic.pk)
    assert anthropic.subject == "user"


def test_a_name_learned_once_is_recognised_in_later_episodes_without_an_assistant(project: Project) -> None:
    ingest(project, [{"role": "user", "content": "My name is Maria."}, ASSISTANT], "2026-03-02T10:00:00Z")
    ingest(
        project, [{"role": "user", "content": "I moved to Porto.", "name": "Maria"}], "2026-04-02T10:00:00Z"
    )
    assert Memory.objects.get(project=project, predicate="lives_in").subject == "user"
    assert people(project) == ["user"]


def test_a_person_met_before_the_name_was_known_is_merged_into_the_user(project: Project) -> None:
    ingest(project, [{"role": "user", "content": "I love hiking.", "name": "Maria"}], "2026-03-02T10:00:00Z")
    assert people(project) == ["Maria"]  # one named speaker, no assistant: not known to be the user yet
    ingest(
        project, [{"role": "user", "content": "I'm Maria, by the way."}, ASSISTANT], "2026-03-03T10:00:00Z"
    )
    assert people(project) == ["user"]
    maria = Entity.objects.get(project=project, name="Maria")
    user = user_entity_find(project.pk, "u1")
    assert user is not None and maria.merged_into_id == user.pk


def test_two_named_friends_without_an_assistant_stay_two_people(project: Project) -> None:
    ingest(
        project,
        [
            {"role": "user", "content": "I work at Google.", "name": "Maria"},
            {"role": "user", "content": "I work at Stripe.", "name": "John"},
        ],
        "2026-03-02T10:00:00Z",
    )
    assert user_entity_find(project.pk, "u1") is None
    assert dict(Memory.objects.filter(project=project).values_list("subject", "object_value")) == {
        "Maria": "Google",
        "John": "Stripe",
    }


def test_the_graph_shows_one_user_node_with_the_name_as_alias(project: Project) -> None:
    ingest(project, [{"role": "user", "content": "I work at Google."}, ASSISTANT], "2026-03-02T10:00:00Z")
    ingest(
        project,
        [{"role": "user", "content": "I'm Maria. I have a dog named Rex.", "name": "Maria"}, ASSISTANT],
        "2026-03-05T10:00:00Z",
    )
    graph = user_graph(project=project, user_id="u1")
    users = [node for node in graph.nodes if node["kind"] == "user"]
    assert len(users) == 1 and users[0]["aliases"] == ["Maria"]
    assert not [node for node in graph.nodes if node["kind"] == "entity" and node["label"] == "Maria"]
    assert {edge["source"] for edge in graph.edges} == {"user"}


def test_recall_context_groups_the_users_memories_under_one_heading(project: Project, api: APIClient) -> None:
    ingest(project, [{"role": "user", "content": "I work at Google."}, ASSISTANT], "2026-03-02T10:00:00Z")
    ingest(
        project,
        [{"role": "user", "content": "I'm Maria and I love hiking.", "name": "Maria"}, ASSISTANT],
        "2026-03-05T10:00:00Z",
    )
    response = api.post(
        "/v1/memhq/recall", {"user_id": "u1", "query": "what does she do at work and for fun?"}, format="json"
    )
    assert response.status_code == 200, response.content
    context = response.json()["context"]
    assert "Google" in context and "hiking" in context
    assert "\nMaria:" not in "\n" + context
