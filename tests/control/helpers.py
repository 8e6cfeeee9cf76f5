"""Creating memories the real way (the pipeline, in-process) and reading them back, for control tests."""

from __future__ import annotations

from typing import Any

from rest_framework.test import APIClient

from ingestion.pipeline import run_inline
from memhq.models import Episode, Memory, Project
from tests.ingestion.helpers import make_episode

MEMORIES = "/v1/memhq/memories"
RECALL = "/v1/memhq/recall"


def ingest(
    project: Project, content: str, timestamp: str, user_id: str = "alice", msg_id: str = "m1"
) -> Episode:
    episode = make_episode(
        project, [{"role": "user", "content": content, "id": msg_id}], user_id, timestamp=timestamp
    )
    run_inline(episode.pk)
    episode.refresh_from_db()
    assert episode.status == "completed", episode.error
    return episode


def moved(project: Project, user_id: str = "alice") -> tuple[Memory, Memory]:
    """Berlin, then Lisbon: (the superseded Berlin memory, the active Lisbon one)."""
    ingest(project, "I live in Berlin.", "2023-01-10T10:00:00Z", user_id, "b1")
    ingest(project, "I moved to Lisbon last month.", "2023-05-08T10:00:00Z", user_id, "l1")
    scope = Memory.objects.filter(project=project, user_id=user_id)
    return scope.get(object_value="Berlin"), scope.get(object_value="Lisbon")


def recalled(api: APIClient, query: str, user_id: str = "alice", **extra: Any) -> list[str]:
    """Texts of the memories recall returns."""
    response = api.post(RECALL, {"user_id": user_id, "query": query, **extra}, format="json")
    assert response.status_code == 200, response.content
    assert response.json()["degraded"] is False
    return [item["text"] for item in response.json()["items"] if item["type"] == "memory"]


def listed(api: APIClient, user_id: str = "alice", **params: str) -> list[str]:
    response = api.get(MEMORIES, {"user_id": user_id, **params})
    assert response.status_code == 200, response.content
    return sorted(item["text"] for item in response.json()["results"])


def key_prefix(project: Project) -> str:
    return str(project.test_key).split("_")[1]  # type: ignore[attr-defined]
