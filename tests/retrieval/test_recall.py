from __future__ import annotations

from typing import Any

import pytest
from django.db import transaction
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rest_framework.test import APIClient

from ingestion.pipeline import run_inline
from memhq.ai import provider
from memhq.ai.tokens import count_tokens
from memhq.models import Project
from memhq.services.tenancy import project_create
from retrieval import query, signals
from retrieval.recall import recall
from retrieval.signals import SIGNAL_LIMIT
from tests.ingestion.helpers import make_episode
from tests.retrieval.factories import make_memories

RECALL = "/v1/memhq/recall"


def ingest(
    project: Project, content: str, timestamp: str, user_id: str = "alice", msg_id: str = "m1"
) -> None:
    episode = make_episode(
        project, [{"role": "user", "content": content, "id": msg_id}], user_id, timestamp=timestamp
    )
    run_inline(episode.pk)


def memory_texts(response: Any) -> list[tuple[str, str]]:
    return [(item["text"], item["status"]) for item in response.json()["items"] if item["type"] == "memory"]


@pytest.fixture
def moved(project: Project) -> Project:
    ingest(project, "I live in Berlin.", "2023-01-10T10:00:00Z", msg_id="b1")
    ingest(project, "I moved to Lisbon last month.", "2023-05-08T10:00:00Z", msg_id="l1")
    return project


def test_recall_now_returns_the_current_city_and_not_the_old_one(moved: Project, api: APIClient) -> None:
    response = api.post(RECALL, {"user_id": "alice", "query": "Where does the user live?"}, format="json")
    assert response.status_code == 200
    memories = memory_texts(response)
    assert any("Lisbon" in text for text, _ in memories)
    assert not any("Berlin" in text for text, _ in memories)
    body = response.json()
    assert body["degraded"] is False
    assert body["fact_count"] == len(memories)
    lisbon = next(item for item in body["items"] if item["type"] == "memory")
    assert lisbon["provenance"]["message_ids"] == ["l1"]
    assert "vector" in lisbon["ranks"]


def test_recall_as_of_before_the_move_returns_the_old_city(moved: Project, api: APIClient) -> None:
    response = api.post(
        RECALL,
        {"user_id": "alice", "query": "Where does the user live?", "as_of": "2023-02-01T00:00:00Z"},
        "json",
    )
    memories = memory_texts(response)
    assert any("Berlin" in text for text, _ in memories)
    assert not any("Lisbon" in text for text, _ in memories)
    # Messages written after as_of are not visible either.
    assert not any("Lisbon" in item["text"] for item in response.json()["items"])


def test_include_history_returns_both_marked(moved: Project, api: APIClient) -> None:
    response = api.post(
        RECALL, {"user_id": "alice", "query": "Where does the user live?", "include_history": True}, "json"
    )
    statuses = {
        text.split()[-1].strip("."): status
        for text, status in memory_texts(response)
        if "live" in text or "moved" in text
    }
    assert statuses.get("Berlin") == "superseded"
    assert "active" in statuses.values()


def test_history_as_of_a_past_moment_holds_nothing_that_started_after_it(
    moved: Project, api: APIClient
) -> None:
    body = {"user_id": "alice", "query": "Where does the user live?", "include_history": True}
    response = api.post(RECALL, {**body, "as_of": "2023-02-01T00:00:00Z"}, "json")
    memories = memory_texts(response)
    assert any("Berlin" in text for text, _ in memories)
    assert not any("Lisbon" in text for text, _ in memories)


def test_a_message_sent_a_moment_ago_is_findable_before_its_chain_runs(
    project: Project, api: APIClient
) -> None:
    ingest(project, "I live in Berlin.", "2023-01-10T10:00:00Z")
    added = api.post(
        "/v1/memhq/add",
        {
            "user_id": "alice",
            "messages": [{"role": "user", "content": "I just adopted a corgi named Biscuit", "id": "n1"}],
        },
        format="json",
    )
    assert added.status_code == 202
    response = api.post(RECALL, {"user_id": "alice", "query": "corgi Biscuit"}, "json").json()
    fresh = [item for item in response["items"] if item["status"] == "unprocessed"]
    assert fresh and "Biscuit" in fresh[0]["text"]
    assert fresh[0]["provenance"]["message_ids"] == ["n1"]
    assert response["processed_through"] is not None  # the Berlin episode


def test_processed_through_is_null_when_nothing_was_processed(project: Project, api: APIClient) -> None:
    response = api.post(RECALL, {"user_id": "nobody", "query": "anything"}, "json").json()
    assert response == {
        "context": "",
        "context_tokens": 0,
        "items": [],
        "fact_count": 0,
        "processed_through": None,
        "degraded": False,
    }


@pytest.mark.parametrize("exact_max_rows", [signals.EXACT_KNN_CEILING, 10], ids=["exact", "hnsw"])
def test_per_user_filtering_still_fills_the_vector_signal(
    project: Project, monkeypatch: pytest.MonkeyPatch, exact_max_rows: int
) -> None:
    # The other user's memories are all closer to the query than ours: an unfiltered kNN would find none of
    # ours. Both ways recall searches: exact (a user with few rows), HNSW with iterative scans (many rows).
    monkeypatch.setattr(signals, "EXACT_KNN_CEILING", exact_max_rows)
    make_memories(project, "bob", [f"Bob likes hiking trip number {i} in the Alps" for i in range(300)])
    make_memories(project, "alice", [f"Alice note {i} about the weather and her garden" for i in range(40)])
    vector = provider.get_embedder().embed(["hiking in the Alps"])[0]
    rows = query.run(
        query.QueryContext(
            project.pk, "alice", "hiking in the Alps", vector, as_of=query_now(), history=False
        )
    )
    vector_hits = [row for row in rows if row["signal"] == "vector"]
    assert len(vector_hits) == SIGNAL_LIMIT
    assert all(row["m_text"].startswith("Alice") for row in vector_hits)


def query_now() -> Any:
    from django.utils import timezone

    return timezone.now()


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(tenants=st.lists(st.tuples(st.integers(0, 2), st.integers(0, 2)), min_size=2, max_size=6, unique=True))
def test_recall_never_returns_another_users_or_projects_rows(
    db: None, tenants: list[tuple[int, int]]
) -> None:
    with transaction.atomic():  # each example in its own savepoint, rolled back at the end
        projects: dict[int, Project] = {}
        for project_index, user_index in tenants:
            if project_index not in projects:
                projects[project_index] = Project.objects.create(name=f"p{project_index}")
            make_memories(
                projects[project_index], f"u{user_index}", [f"p{project_index} u{user_index} loves tea"]
            )
        for project_index, user_index in tenants:
            result = recall(
                project_id=projects[project_index].pk, user_id=f"u{user_index}", query_text="loves tea"
            )
            assert not result.degraded
            assert [item.text for item in result.items if item.type == "memory"] == [
                f"p{project_index} u{user_index} loves tea"
            ]
        transaction.set_rollback(True)


def test_context_never_exceeds_max_tokens(project: Project, api: APIClient) -> None:
    make_memories(
        project,
        "alice",
        [f"The user once visited city number {i} and loved its old town squares" for i in range(50)],
    )
    for max_tokens in (50, 120, 400):
        body = api.post(
            RECALL,
            {"user_id": "alice", "query": "cities visited", "max_tokens": max_tokens, "limit": 50},
            "json",
        ).json()
        assert body["items"]
        assert count_tokens(body["context"]) <= max_tokens
        assert body["context_tokens"] == count_tokens(body["context"])


def test_limit_bounds_the_items(project: Project, api: APIClient) -> None:
    make_memories(project, "alice", [f"The user likes fruit number {i}" for i in range(40)])
    body = api.post(RECALL, {"user_id": "alice", "query": "fruit", "limit": 7}, "json").json()
    assert len(body["items"]) == 7


def test_a_failing_embedder_degrades_to_the_latest_memories(
    project: Project, api: APIClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    make_memories(project, "alice", [f"fact {i}" for i in range(25)])

    class Broken:
        def embed(self, texts: list[str]) -> Any:
            raise RuntimeError("model server down")

        def embed_query(self, text: str) -> Any:
            raise RuntimeError("model server down")

    monkeypatch.setattr("retrieval.query_vectors.get_embedder", lambda: Broken())
    body = api.post(RECALL, {"user_id": "alice", "query": "anything"}, "json").json()
    assert body["degraded"] is True
    assert len(body["items"]) == 20


@pytest.mark.parametrize(
    ("payload", "field"),
    [
        ({"user_id": "alice", "query": ""}, "query"),
        ({"user_id": "alice"}, "query"),
        ({"query": "x"}, "user_id"),
        ({"user_id": "alice", "query": "x", "limit": 0}, "limit"),
        ({"user_id": "alice", "query": "x", "limit": 51}, "limit"),
        ({"user_id": "alice", "query": "x", "max_tokens": 10}, "max_tokens"),
        ({"user_id": "alice", "query": "x", "as_of": "later"}, "as_of"),
        ({"user_id": "alice", "query": "x", "kinds": ["gossip"]}, "kinds"),
        ({"user_id": "alice", "query": "x", "colour": "red"}, "colour"),
    ],
)
def test_bad_recall_input_is_400(api: APIClient, payload: dict[str, Any], field: str) -> None:
    response = api.post(RECALL, payload, "json")
    assert response.status_code == 400
    assert field in response.json()["error"]["fields"]


def test_another_projects_memories_are_never_visible(moved: Project, other_api: APIClient) -> None:
    body = other_api.post(RECALL, {"user_id": "alice", "query": "Where does the user live?"}, "json").json()
    assert body["items"] == []


def test_kinds_restricts_to_memories_of_those_kinds(project: Project, api: APIClient) -> None:
    make_memories(project, "alice", ["User loves jazz"], kind="preference")
    make_memories(project, "alice", ["User owns a piano"], kind="fact")
    body = api.post(RECALL, {"user_id": "alice", "query": "music", "kinds": ["preference"]}, "json").json()
    assert [item["text"] for item in body["items"]] == ["User loves jazz"]


def test_unknown_project_user_pair_is_empty_not_an_error(db: None) -> None:
    other, _ = project_create(name="lonely")
    assert recall(project_id=other.pk, user_id="ghost", query_text="hello").items == []
