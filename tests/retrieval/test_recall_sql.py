"""How recall's one statement runs: the exact kNN a user with few rows gets is the true nearest (not
another tenant's HNSW neighbourhood), and the statement is prepared once per connection."""

from __future__ import annotations

from typing import cast

import numpy as np
import pytest
from django.db import connection
from django.test import override_settings
from django.utils import timezone

from memhq.ai import provider
from memhq.models import Project
from retrieval import query
from retrieval.signals import LIVE_MEMORY, SIGNAL_LIMIT, USER_MESSAGE
from retrieval.signals.terms import terms_cte
from tests.retrieval.factories import make_memories

QUESTION = "hiking in the Alps"


def run(project: Project, user_id: str = "alice") -> list[dict[str, object]]:
    vector = provider.get_embedder().embed([QUESTION])[0]
    return query.run(
        query.QueryContext(project.pk, user_id, QUESTION, vector, as_of=timezone.now(), history=False)
    )


def test_a_small_users_vector_hits_are_exactly_their_nearest_memories(project: Project) -> None:
    make_memories(project, "bob", [f"Bob hiked trail number {i} in the Alps" for i in range(200)])
    texts = [f"Alice note {i}: {topic}" for i, topic in enumerate(["mountains", "garden", "tax", "ski"] * 10)]
    mine = make_memories(project, "alice", texts)
    query_vector = provider.get_embedder().embed([QUESTION])[0]
    cosine = {str(memory.pk): float(np.dot(np.asarray(memory.embedding), query_vector)) for memory in mine}
    expected = sorted(cosine, key=lambda key: -cosine[key])[:SIGNAL_LIMIT]
    # The statement's rows come in no particular order (its joins may hash); each hit carries its rank.
    hits = sorted(
        (row for row in run(project) if row["signal"] == "vector"), key=lambda row: cast(int, row["rank"])
    )
    assert [row["rank"] for row in hits] == list(range(1, SIGNAL_LIMIT + 1))
    assert [str(row["memory_id"]) for row in hits] == expected
    assert [row["score"] for row in hits] == pytest.approx([cosine[key] for key in expected], abs=1e-5)


def prepared_recall_statements() -> list[tuple[int, int]]:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT generic_plans, custom_plans FROM pg_prepared_statements WHERE statement LIKE %s",
            ["%base_hits%"],
        )
        return list(cursor.fetchall())


def plans_run() -> int:
    """How often recall's prepared statement(s) ran on this connection."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT coalesce(sum(generic_plans + custom_plans), 0) FROM pg_prepared_statements"
            " WHERE statement LIKE %s",
            ["%base_hits%"],
        )
        return int(cursor.fetchone()[0])


def test_the_statement_is_prepared_once_and_reused(project: Project) -> None:
    make_memories(project, "alice", ["Alice went hiking in the Alps"])
    before = plans_run()
    first = run(project)
    for _ in range(6):
        assert run(project) == first
    assert plans_run() == before + 7
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM pg_prepared_statements WHERE statement LIKE %s", ["%base_hits%"])
        assert cursor.fetchone()[0] == 1


def test_without_prepared_statements_recall_prepares_nothing(project: Project) -> None:
    make_memories(project, "alice", ["Alice went hiking in the Alps"])
    run(project)
    before = plans_run()
    with override_settings(MEMHQ_RECALL_PREPARED=False):
        rows = [run(project) for _ in range(3)]
    assert all(any(row["signal"] == "vector" for row in result) for result in rows)
    assert plans_run() == before


def selecting_query(project: Project, text: str) -> str | None:
    """The tsquery the memory keyword signal selects its candidates with, for ``text``."""
    sql = (
        f"WITH {query.QUERY_CTE}, {terms_cte(USER_MESSAGE, LIVE_MEMORY)} SELECT mem_tsq::text FROM term_sets"
    )
    vector = provider.get_embedder().embed([text])[0]
    context = query.QueryContext(project.pk, "alice", text, vector, as_of=timezone.now(), history=False)
    with connection.cursor() as cursor:
        cursor.execute(sql, query.parameters(context))
        selecting = cursor.fetchone()[0]
        return None if selecting is None else str(selecting)


def keyword_hits(project: Project, text: str) -> int:
    vector = provider.get_embedder().embed([text])[0]
    context = query.QueryContext(project.pk, "alice", text, vector, as_of=timezone.now(), history=False)
    return sum(1 for row in query.run(context) if row["signal"] == "keyword")


def test_keyword_candidates_come_from_the_rare_terms_and_a_big_corpus_has_none_for_common_ones(
    project: Project,
) -> None:
    # 600 memories in a repeating pattern: "ana" and "like" are each in 2/3 of any sample, "jazz" in 1/3.
    pattern = ["Ana swims lap", "Ana likes jazz", "Tom likes tea"]
    make_memories(project, "alice", [f"{pattern[i % 3]} {i}" for i in range(600)])
    # No rare term, a corpus larger than the sample: every candidate set would be ~400 near-equal documents.
    assert selecting_query(project, "What does Ana like?") is None
    make_memories(project, "alice", ["Ana plays the oboe"])
    assert selecting_query(project, "Does Ana play the oboe?") == "'obo' | 'play'"  # rare: they select
    assert keyword_hits(project, "What does Ana like?") == 0
    assert keyword_hits(project, "Does Ana play the oboe?") == 1


def test_a_small_corpus_without_rare_terms_selects_by_the_rarest_term(project: Project) -> None:
    make_memories(project, "alice", ["Ana swims", "Ana likes jazz", "Tom likes tea", "Ana likes tea"])
    assert selecting_query(project, "What does Ana like?") == "'ana'"  # all 4 documents are candidates
