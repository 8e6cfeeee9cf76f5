from __future__ import annotations

import uuid

from rest_framework.test import APIClient

from ingestion.pipeline import run_inline
from memhq.models import Entity, Memory, Project
from tests.ingestion.helpers import make_episode


def ingest(project: Project, content: str, timestamp: str, user_id: str = "alice") -> None:
    episode = make_episode(
        project, [{"role": "user", "content": content, "id": "m1"}], user_id, timestamp=timestamp
    )
    run_inline(episode.pk)


def test_memory_list_filters_by_status_and_as_of(project: Project, api: APIClient) -> None:
    ingest(project, "I live in Berlin.", "2023-01-10T10:00:00Z")
    ingest(project, "I moved to Lisbon last month.", "2023-05-08T10:00:00Z")

    def objects(**params: str) -> list[str]:
        response = api.get("/v1/memhq/memories", {"user_id": "alice", **params})
        assert response.status_code == 200, response.content
        return sorted(item["object"] for item in response.json()["results"])

    assert objects() == ["Berlin", "Lisbon"]
    assert objects(status="active") == ["Lisbon"]
    assert objects(status="superseded") == ["Berlin"]
    assert objects(as_of="2023-02-01T00:00:00Z") == ["Berlin"]
    assert objects(as_of="2023-06-01T00:00:00Z") == ["Lisbon"]
    assert objects(as_of="2022-01-01T00:00:00Z") == []


def test_memory_detail_shows_evidence_and_the_supersede_chain(project: Project, api: APIClient) -> None:
    ingest(project, "I live in Berlin.", "2023-01-10T10:00:00Z")
    ingest(project, "I moved to Lisbon last month.", "2023-05-08T10:00:00Z")
    lisbon = Memory.objects.get(object_value="Lisbon")
    berlin = Memory.objects.get(object_value="Berlin")
    detail = api.get(f"/v1/memhq/memories/{lisbon.pk}").json()
    assert detail["evidence"][0]["message_ids"] == ["m1"]
    assert "Lisbon" in detail["evidence"][0]["quote"]
    assert [item["id"] for item in detail["supersedes"]] == [str(berlin.pk)]
    old = api.get(f"/v1/memhq/memories/{berlin.pk}").json()
    assert [item["id"] for item in old["superseded_by_chain"]] == [str(lisbon.pk)]


def test_memory_list_requires_a_user_and_validates_filters(api: APIClient) -> None:
    assert "user_id" in api.get("/v1/memhq/memories").json()["error"]["fields"]
    assert api.get("/v1/memhq/memories", {"user_id": "a", "status": "nope"}).status_code == 400
    assert api.get("/v1/memhq/memories", {"user_id": "a", "as_of": "soon"}).status_code == 400


def test_entities_list_and_detail_with_the_memories_touching_them(project: Project, api: APIClient) -> None:
    ingest(project, "My sister Emma lives in Porto.", "2023-01-10T10:00:00Z")
    listing = api.get("/v1/memhq/entities", {"user_id": "alice"}).json()["results"]
    names = {item["name"] for item in listing}
    assert "Emma" in names
    emma = next(item for item in listing if item["name"] == "Emma")
    detail = api.get(f"/v1/memhq/entities/{emma['id']}").json()
    assert detail["type"] == "person"
    assert any("Emma" in memory["text"] for memory in detail["memories"])


def test_other_projects_memories_and_entities_are_404(
    project: Project, api: APIClient, other_api: APIClient
) -> None:
    ingest(project, "My sister Emma lives in Porto.", "2023-01-10T10:00:00Z")
    memory = Memory.objects.filter(project=project).first()
    entity = Entity.objects.filter(project=project).first()
    assert memory is not None and entity is not None
    for url in (f"/v1/memhq/memories/{memory.pk}", f"/v1/memhq/entities/{entity.pk}"):
        foreign = other_api.get(url)
        assert foreign.status_code == 404
        assert foreign.json() == other_api.get(url.rsplit("/", 1)[0] + f"/{uuid.uuid4()}").json()
    assert other_api.get("/v1/memhq/memories", {"user_id": "alice"}).json()["results"] == []
    assert other_api.get("/v1/memhq/entities", {"user_id": "alice"}).json()["results"] == []
