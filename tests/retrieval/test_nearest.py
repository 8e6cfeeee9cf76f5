"""Ingestion's "is there already one like this?" lookups compare every row of a small user instead of walking
the HNSW index shared with every other user (memhq.selectors.nearest)."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from memhq.ai import provider
from memhq.models import Memory, Project
from memhq.models.vectors import vector_literal
from memhq.selectors import nearest
from memhq.selectors.lateral import column, lateral_sql
from memhq.selectors.nearest import cosine_distance, few_rows, nearest_each
from tests.retrieval.factories import make_memories


def plan(project: Project, *, exact: bool) -> str:
    vector = provider.get_embedder().embed(["green tea"])[0]
    queryset = (
        Memory.objects.filter(project=project, user_id="alice")
        .annotate(distance=cosine_distance(vector, exact=exact))
        .order_by("distance")[:1]
    )
    with connection.cursor() as cursor:
        # Push the planner towards an index that yields the order.
        cursor.execute("SET LOCAL enable_sort = off")
        sql, params = queryset.query.sql_with_params()
        cursor.execute(f"EXPLAIN {sql}", params)
        return "\n".join(row[0] for row in cursor.fetchall())


def test_the_exact_distance_never_uses_the_shared_hnsw_index(project: Project) -> None:
    make_memories(project, "bob", [f"Bob drinks tea number {i}" for i in range(50)])
    make_memories(project, "alice", ["Alice likes green tea"])
    assert "memory_embedding_hnsw" not in plan(project, exact=True)
    assert "memory_embedding_hnsw" in plan(project, exact=False)  # what the exact form avoids


def test_the_exact_form_orders_like_the_plain_distance(project: Project) -> None:
    make_memories(project, "alice", ["Alice likes green tea", "Alice owns a bike", "Alice drinks tea daily"])
    vector = provider.get_embedder().embed(["green tea"])[0]
    scope = Memory.objects.filter(project=project, user_id="alice")

    def ranked(exact: bool) -> list[tuple[str, float]]:
        rows = scope.annotate(distance=cosine_distance(vector, exact=exact)).order_by("distance")
        return [(memory.text, round(memory.distance, 6)) for memory in rows]

    assert ranked(exact=True) == ranked(exact=False)
    assert ranked(exact=True)[0][0] == "Alice likes green tea"


def test_few_rows_counts_the_users_rows_up_to_the_threshold(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(nearest, "EXACT_KNN_MAX_ROWS", 3)
    make_memories(project, "bob", ["b1", "b2", "b3", "b4", "b5"])
    make_memories(project, "alice", ["a1", "a2", "a3"])
    assert few_rows(Memory.objects.filter(project=project, user_id="alice"))
    assert not few_rows(Memory.objects.filter(project=project, user_id="bob"))


@pytest.mark.parametrize("exact", [True, False])
def test_nearest_each_answers_every_vector_in_one_statement_as_one_query_each_would(
    project: Project, exact: bool
) -> None:
    make_memories(project, "alice", ["Alice likes green tea", "Alice owns a bike", "Alice drinks tea daily"])
    make_memories(project, "bob", ["Bob likes green tea"])
    queries = ["green tea", "a bicycle", "coffee in the morning"]
    vectors = list(provider.get_embedder().embed(queries))
    scope = Memory.objects.filter(project=project, user_id="alice").defer("embedding")
    with CaptureQueriesContext(connection) as statements:
        found = nearest_each(scope, vectors, exact=exact, depth=2)
    assert len(statements.captured_queries) == 1
    for vector, pairs in zip(vectors, found, strict=True):
        one = scope.annotate(distance=cosine_distance(vector, exact=exact)).order_by("distance")[:2]
        assert [(m.text, round(d, 5)) for m, d in pairs] == [(m.text, round(m.distance, 5)) for m in one]
    assert [memory.text for memory, _ in found[1]][0] == "Alice owns a bike"
    assert all(memory.user_id == "alice" for pairs in found for memory, _ in pairs)
    assert nearest_each(scope, [], exact=exact, depth=2) == []


def test_nearest_each_walks_the_hnsw_index_per_input_unless_exact(project: Project) -> None:
    make_memories(project, "bob", [f"Bob drinks tea number {i}" for i in range(50)])
    make_memories(project, "alice", ["Alice likes green tea"])
    vectors = [vector_literal(v) for v in provider.get_embedder().embed(["tea", "bike"])]

    def plan(exact: bool) -> str:
        rows = (
            Memory.objects.filter(project=project, user_id="alice")
            .annotate(distance=cosine_distance(column("vector"), exact=exact))
            .order_by("distance")[:3]
        )
        statement, arguments, _ = lateral_sql(rows, {"vector": ("vector", vectors)})
        with connection.cursor() as cursor:
            cursor.execute("SET LOCAL enable_sort = off")
            cursor.execute(f"EXPLAIN {statement}", arguments)
            return "\n".join(row[0] for row in cursor.fetchall())

    assert "memory_embedding_hnsw" in plan(exact=False)
    assert "memory_embedding_hnsw" not in plan(exact=True)
