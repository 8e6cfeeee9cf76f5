"""``tooling.bench.recall.settle``: the table is left as a long-lived one before measuring, and a database
role that may not CHECKPOINT still gets measured (with a note)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from django.db import connection

from tooling.bench.recall import settle

ROLE = "memhq_bench_no_checkpoint"


@pytest.fixture
def unprivileged() -> Iterator[None]:
    """The connection acts as a role without superuser or pg_checkpoint."""
    with connection.cursor() as cursor:
        cursor.execute(f"DROP ROLE IF EXISTS {ROLE}")
        cursor.execute(f"CREATE ROLE {ROLE}")
        cursor.execute(f"SET ROLE {ROLE}")
    try:
        yield
    finally:
        with connection.cursor() as cursor:
            cursor.execute("RESET ROLE")
            cursor.execute(f"DROP ROLE {ROLE}")


@pytest.mark.django_db(transaction=True)
def test_settle_vacuums_and_checkpoints_silently() -> None:
    notes: list[str] = []
    settle(notes.append)  # as the test database's superuser: both statements run
    assert notes == []


@pytest.mark.django_db(transaction=True)
def test_a_role_that_may_not_checkpoint_is_measured_anyway(unprivileged: None) -> None:
    notes: list[str] = []
    settle(notes.append)
    assert len(notes) == 1 and notes[0].startswith("CHECKPOINT not allowed")
    with connection.cursor() as cursor:  # the connection is still usable
        cursor.execute("SELECT 1")
        assert cursor.fetchone() == (1,)
