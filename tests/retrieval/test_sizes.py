"""Recall remembers, per process and for a TTL, whether a user's tables are searched exactly or through
HNSW (``retrieval.sizes``): the statement counts the user's rows only when it is not told."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.db import connection
from django.test import override_settings
from django.utils import timezone

from memhq.ai import provider
from memhq.models import Project
from retrieval import query, signals, sizes
from tests.retrieval.factories import make_memories

QUESTION = "hiking in the Alps"


@pytest.fixture(autouse=True)
def _empty_cache() -> Iterator[None]:
    sizes.forget_all()
    yield
    sizes.forget_all()


def run(project: Project, user_id: str = "alice") -> list[dict[str, Any]]:
    vector = provider.get_embedder().embed([QUESTION])[0]
    return query.run(
        query.QueryContext(project.pk, user_id, QUESTION, vector, as_of=timezone.now(), history=False)
    )


def memories_exact(rows: list[dict[str, Any]]) -> bool:
    return bool(rows[0]["sizes_memories_exact"])


def shrink_the_threshold(monkeypatch: pytest.MonkeyPatch) -> None:
    """From now on, alice's 20 memories are "many": a fresh count would pick HNSW."""
    monkeypatch.setattr(signals, "EXACT_KNN_CEILING", 10)
    query.statement.cache_clear()  # built once per process (and once per test: tests/conftest.py)


def test_the_decision_is_remembered_and_not_recounted_within_the_ttl(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    make_memories(project, "alice", [f"Alice note {i}" for i in range(20)])
    assert memories_exact(run(project))
    assert sizes.known(project.pk, "alice") == sizes.Sizes(True, True, True, True)
    shrink_the_threshold(monkeypatch)
    assert memories_exact(run(project))  # told, not counted
    sizes.forget_all()
    assert not memories_exact(run(project))  # counted again


@override_settings(MEMHQ_RECALL_SIZES_TTL_S=0)
def test_a_zero_ttl_counts_on_every_recall(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    make_memories(project, "alice", [f"Alice note {i}" for i in range(20)])
    assert memories_exact(run(project))
    assert sizes.known(project.pk, "alice") is None
    shrink_the_threshold(monkeypatch)
    assert not memories_exact(run(project))


def test_the_decision_expires_after_the_ttl(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    clock = [1000.0]
    monkeypatch.setattr(sizes.time, "monotonic", lambda: clock[0])
    make_memories(project, "alice", [f"Alice note {i}" for i in range(20)])
    run(project)
    clock[0] += 59.0
    assert sizes.known(project.pk, "alice") is not None
    clock[0] += 1.0
    assert sizes.known(project.pk, "alice") is None


def test_each_user_is_decided_for_itself(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    make_memories(project, "alice", [f"Alice note {i}" for i in range(20)])
    make_memories(project, "bob", [f"Bob note {i}" for i in range(20)])
    run(project, "alice")
    shrink_the_threshold(monkeypatch)
    assert memories_exact(run(project, "alice"))
    assert not memories_exact(run(project, "bob"))
    other, _ = Project.objects.get_or_create(name="other")
    assert sizes.known(other.pk, "alice") is None


def test_a_users_share_of_the_table_decides_the_way(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same user, with the same rows, walks the HNSW index while holding most of a small table and is
    compared exactly once the table holds many other rows (n² ≤ WALK_COST_RATIO × the table's rows, as the
    planner's statistics have it)."""
    monkeypatch.setattr(signals, "WALK_MIN_ROWS", 10)
    monkeypatch.setattr(signals, "WALK_COST_RATIO", 10)
    query.statement.cache_clear()
    make_memories(project, "alice", [f"Alice note {i}" for i in range(20)])
    make_memories(project, "bob", [f"Bob note {i}" for i in range(5)])
    analyze()
    assert not memories_exact(run(project, "alice"))  # 20² > 10 × 25
    assert memories_exact(run(project, "bob"))  # too few rows to walk
    make_memories(project, "carol", [f"Carol note {i}" for i in range(200)])
    analyze()
    sizes.forget_all()
    assert memories_exact(run(project, "alice"))  # 20² ≤ 10 × 225


def analyze() -> None:
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE memhq_memory")


def test_the_cache_is_bounded_least_recently_used_out(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sizes, "MAX_USERS", 2)
    row = {
        "sizes_memories_exact": True,
        "sizes_messages_exact": True,
        "sizes_entities_exact": False,
        "sizes_passages_exact": True,
    }
    for user in ("a", "b"):
        sizes.remember(project.pk, user, row)
    assert sizes.known(project.pk, "a") is not None  # "a" is now the most recently used
    sizes.remember(project.pk, "c", row)
    assert sizes.known(project.pk, "b") is None
    assert (
        sizes.known(project.pk, "a") == sizes.known(project.pk, "c") == sizes.Sizes(True, True, False, True)
    )


def test_a_row_without_the_decision_is_not_remembered(project: Project) -> None:
    sizes.remember(project.pk, "alice", {"sizes_memories_exact": None})
    assert sizes.known(project.pk, "alice") is None
