"""A user above EXACT_KNN_MAX_ROWS is searched through the HNSW index, even when they hold most of a table
shared with many small users: the prepared statement cannot know a user's share, and Postgres, guessing
1/n_distinct, filtered on the per-user indexes and computed every one of the big user's distances."""

from __future__ import annotations

import re

import pytest
from django.db import connection

from memhq.models import Project
from memhq.selectors.nearest import EXACT_KNN_MAX_ROWS
from retrieval import query
from retrieval.signals import nearest, owned_by_user
from retrieval.signals.terms import SAMPLE_SIZE
from tooling.bench.recall_breakdown import explain
from tooling.bench.recall_user import Shape, VectorIndexesDropped, build_user, vectors_for

SMALL_USERS = 30


def scanned_rows(plan: list[str], index: str) -> list[float]:
    """``rows`` of each plan node that reads ``index``."""
    return [
        float(match.group(1))
        for line in plan
        if index in line and (match := re.search(r"actual time=[\d.]+\.\.[\d.]+ rows=([\d.]+)", line))
    ]


def cte(plan: list[str], name: str) -> list[str]:
    """The lines of the CTE ``name``'s plan."""
    start = next(n for n, line in enumerate(plan) if line.strip() == f"CTE {name}")
    end = next((n for n in range(start + 1, len(plan)) if plan[n].strip().startswith("CTE ")), len(plan))
    return plan[start:end]


@pytest.mark.django_db(transaction=True)
def test_a_big_users_message_vectors_are_searched_through_the_index(project: Project) -> None:
    vectors = vectors_for()
    big = Shape(EXACT_KNN_MAX_ROWS // 2)  # 3 messages per memory: above the threshold in messages
    assert big.messages > EXACT_KNN_MAX_ROWS
    with VectorIndexesDropped():
        build_user(project.pk, "big", big, vectors, seed=1)
        for number in range(SMALL_USERS):
            build_user(project.pk, f"small-{number}", Shape(10), vectors, seed=100 + number)
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE memhq_episodemessage")
    plan = explain(project.pk, "big", "Who likes rock climbing?")
    walked = scanned_rows(plan, "message_embedding_hnsw")
    assert walked, "the message signal did not use the HNSW index:\n" + "\n".join(plan)
    assert max(walked) < big.messages / 4  # the walk stops early; the user's rows were not all read
    # The term statistics' sample of messages stops at its size too, not a bitmap of all the user's rows.
    sampled = scanned_rows(cte(plan, "msg_sample"), "message_user_date")
    assert sampled and max(sampled) <= SAMPLE_SIZE, "\n".join(plan)
    # Each query term is counted once per sample: the planner substituted the counts into every expression
    # that used them (the IDF, the selectivity test), so each sample was scanned four times per term.
    terms = scanned_rows(cte(plan, "terms")[1:2], "")[0]  # the CTE's own rows: one per query term
    scans = [
        int(match.group(1))
        for line in cte(plan, "terms")
        if "CTE Scan on msg_sample" in line and (match := re.search(r"loops=(\d+)", line))
    ]
    assert sum(scans) <= terms + 1, "\n".join(cte(plan, "terms"))  # + the sample's size, counted once
    # A summary hit's episode is read by its key, not found in a hash of every user's episodes. (The
    # summary signal's own scan of the user's recent episodes may read the table: the user owns most of it.)
    summaries = [line for line in plan if re.search(r" on memhq_episode ep\b", line)]
    assert summaries and all("memhq_episode_pkey" in line for line in summaries), "\n".join(plan)


def test_a_knn_filter_must_name_the_owner() -> None:
    table = {"table": "memhq_memory m", "alias": "m", "exact": "memories_exact", "limit": 5}
    with pytest.raises(ValueError, match="must contain"):
        nearest(where="m.status = 'active'", **table)  # type: ignore[arg-type]
    assert owned_by_user("m") in nearest(where=owned_by_user("m"), **table)  # type: ignore[arg-type]


@pytest.mark.django_db(transaction=True)
def test_the_entity_signal_anchors_on_at_most_max_anchors_entities(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    # recall_user's people share first names as aliases (one entity in 25 per name): "Ana" names several.
    user = Shape(1000)
    with VectorIndexesDropped():
        build_user(project.pk, "people", user, vectors_for(), seed=3)
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE memhq_memory; ANALYZE memhq_entity")
    monkeypatch.setattr("retrieval.signals.entity.MAX_ANCHORS", 1)
    query.statement.cache_clear()  # the statement is built once per process
    try:
        plan = explain(project.pk, "people", "What does Ana like?")
    finally:
        query.statement.cache_clear()
    assert max(scanned_rows(plan, "CTE Scan on weighted")) == 1.0, "\n".join(plan)


@pytest.mark.django_db(transaction=True)
def test_names_in_the_query_are_looked_up_in_the_name_indexes_by_the_generic_plan(project: Project) -> None:
    # The statement is prepared: after a few calls Postgres keeps a generic plan, which takes any user for
    # 1/n_distinct of the table. For a big user among many small ones it then read every one of the user's
    # entities to test each query n-gram's trigrams against them (105 ms at 5,000 entities).
    vectors = vectors_for()
    with VectorIndexesDropped():
        build_user(project.pk, "big", Shape(4000), vectors, seed=5)
        for number in range(SMALL_USERS):
            build_user(project.pk, f"small-{number}", Shape(10), vectors, seed=200 + number)
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE memhq_entity")
        cursor.execute("SET plan_cache_mode = force_generic_plan")
    try:
        plan = explain(project.pk, "big", "What does Anna Silvaa like?")
    finally:
        with connection.cursor() as cursor:
            cursor.execute("RESET plan_cache_mode")
    text = "\n".join(plan)
    assert "Bitmap Index Scan on entity_name_trgm" in text, text
    # Neither test is a filter over the rows of the user's own index (all 200 of the user's entities, read
    # once per n-gram); the alias test may filter a scan of the whole (small) table.
    for condition in ("% gram.gram", "normalized_aliases"):
        for n, line in enumerate(plan):
            if line.strip().startswith("Filter:") and condition in line:
                node = next(plan[k] for k in range(n - 1, -1, -1) if "->" in plan[k])
                assert "entity_unique_name_per_type" not in node and "entity_user_name" not in node, text
