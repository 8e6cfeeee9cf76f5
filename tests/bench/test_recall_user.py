"""The recall benchmark's realistic user: built in the pipeline's ratios, with its vector indexes rebuilt as
the migrations define them, and answering recall through every kind of row."""

from __future__ import annotations

import pytest
from django.db import connection

from memhq.models import Entity, Episode, EpisodeMessage, Evidence, Memory, Passage, Project
from retrieval.recall import recall
from tooling.bench.recall_breakdown import breakdown, execution_ms, explain
from tooling.bench.recall_user import (
    MESSAGES_PER_MEMORY,
    VECTOR_TABLES,
    Shape,
    VectorIndexesDropped,
    build_user,
    vectors_for,
)

MEMORIES = 200


def hnsw_indexes() -> list[tuple[str, str]]:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT indexname, indexdef FROM pg_indexes WHERE tablename = ANY(%s) AND indexdef ILIKE %s "
            "ORDER BY indexname",
            [list(VECTOR_TABLES), "%USING hnsw%"],
        )
        return cursor.fetchall()


@pytest.mark.django_db(transaction=True)
def test_a_realistic_user_has_the_pipelines_rows_and_recall_finds_them(project: Project) -> None:
    before = hnsw_indexes()
    vectors = vectors_for()
    with VectorIndexesDropped():
        assert hnsw_indexes() == []
        build_user(project.pk, "big", Shape(MEMORIES), vectors, seed=1)
        build_user(project.pk, "big", Shape(MEMORIES // 2), vectors, seed=2)  # grown in a second step
        build_user(project.pk, "other", Shape(20), vectors, seed=3)
    assert hnsw_indexes() == before and before

    mine = {"project": project, "user_id": "big"}
    memories = Memory.objects.filter(**mine).count()
    assert memories == MEMORIES + MEMORIES // 2
    assert EpisodeMessage.objects.filter(**mine).count() == memories * MESSAGES_PER_MEMORY
    assert Evidence.objects.filter(memory__user_id="big").count() == memories
    assert Passage.objects.filter(**mine).count() > 0
    assert Entity.objects.filter(**mine).count() == Shape(MEMORIES).entities + Shape(MEMORIES // 2).entities
    episodes = Episode.objects.filter(**mine)
    assert episodes.exclude(summary="").count() == episodes.count() > 0

    result = recall(project_id=project.pk, user_id="big", query_text="Who likes rock climbing?")
    assert not result.degraded
    assert {item.type for item in result.items} >= {"memory", "message"}

    steps = breakdown(project.pk, "big", ("Who likes rock climbing?", "gift ideas"), runs=4)
    assert set(steps) == {"embed", "sql", "fuse_and_render", "total"}
    assert steps["total"]["p50_ms"] >= steps["sql"]["p50_ms"] > 0
    plan = explain(project.pk, "big", "Who likes rock climbing?")
    assert (execution_ms(plan) or 0) > 0
