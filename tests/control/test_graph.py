"""GET /graph: entities and live memories as nodes and edges — bounded, deterministic, time-aware."""

from __future__ import annotations

from typing import Any

from rest_framework.test import APIClient

from memhq.models import Memory, Project
from tests.control.helpers import MEMORIES, ingest, moved

GRAPH = "/v1/memhq/graph"


def graph(api: APIClient, **params: str) -> dict[str, Any]:
    response = api.get(GRAPH, {"user_id": "alice", **params})
    assert response.status_code == 200, response.content
    body: dict[str, Any] = response.json()
    return body


def labelled_edges(body: dict[str, Any]) -> set[tuple[str, str, str]]:
    labels = {node["id"]: node["label"] for node in body["nodes"]}
    return {(labels[edge["source"]], edge["predicate"], labels[edge["target"]]) for edge in body["edges"]}


def test_the_graph_links_entities_the_user_and_values_through_live_memories(
    project: Project, api: APIClient
) -> None:
    ingest(project, "My sister Emma lives in Porto.", "2023-01-10T10:00:00Z")
    ingest(project, "I work at Acme.", "2023-01-11T10:00:00Z")
    api.post(
        MEMORIES,
        {
            "user_id": "alice",
            "text": "Alice is vegetarian.",
            "kind": "preference",
            "predicate": "diet",
            "object": "vegetarian",
        },
        format="json",
    )
    body = graph(api)
    assert labelled_edges(body) == {
        ("Emma", "lives_in", "Porto"),
        ("user", "sibling", "Emma"),
        ("user", "works_at", "Acme"),
        ("user", "diet", "vegetarian"),
    }
    kinds = {node["label"]: node["kind"] for node in body["nodes"]}
    assert kinds == {
        "user": "user",
        "Emma": "entity",
        "Porto": "entity",
        "Acme": "entity",
        "vegetarian": "value",
    }
    assert body["nodes"][0]["kind"] == "user" and body["truncated"] is False
    importances = [edge["importance"] for edge in body["edges"]]
    assert importances == sorted(importances, reverse=True)
    again = graph(api)
    assert (again["nodes"], again["edges"]) == (body["nodes"], body["edges"])  # deterministic


def test_the_graph_follows_as_of_and_leaves_out_disabled_memories(project: Project, api: APIClient) -> None:
    _, lisbon = moved(project)
    assert labelled_edges(graph(api, as_of="2023-02-01T00:00:00Z")) == {("user", "lives_in", "Berlin")}
    assert labelled_edges(graph(api)) == {("user", "lives_in", "Lisbon")}
    api.post(f"{MEMORIES}/{lisbon.pk}/disable")
    body = graph(api)
    assert body["edges"] == []
    assert {node["label"] for node in body["nodes"]} == {"Berlin", "Lisbon"}  # entities stay nodes


def test_the_graph_is_bounded_by_the_settings(project: Project, api: APIClient, settings: Any) -> None:
    ingest(project, "My sister Emma lives in Porto. I work at Acme. I love hiking.", "2023-01-10T10:00:00Z")
    edges = Memory.objects.filter(project=project).count()
    settings.MEMHQ_GRAPH_MAX_EDGES = 2
    body = graph(api)
    assert len(body["edges"]) == 2 < edges and body["truncated"] is True
    settings.MEMHQ_GRAPH_MAX_EDGES, settings.MEMHQ_GRAPH_MAX_NODES = 100, 3
    body = graph(api)
    assert len(body["nodes"]) <= 3 and body["truncated"] is True
    ids = {node["id"] for node in body["nodes"]}
    assert all(edge["source"] in ids and edge["target"] in ids for edge in body["edges"])


def test_the_graph_validates_its_query_and_never_shows_other_projects(
    project: Project, api: APIClient, other_api: APIClient
) -> None:
    ingest(project, "I work at Acme.", "2023-01-11T10:00:00Z")
    assert api.get(GRAPH).status_code == 400
    assert api.get(GRAPH, {"user_id": "alice", "as_of": "later"}).status_code == 400
    assert "depth" in api.get(GRAPH, {"user_id": "alice", "depth": "2"}).json()["error"]["fields"]
    assert other_api.get(GRAPH, {"user_id": "alice"}).json()["nodes"] == []
