"""Helpers for the supersession tests that run one-message episodes through all seven phases."""

from __future__ import annotations

from ingestion.pipeline import run_inline
from memhq.models import Memory, Project
from tests.ingestion.helpers import make_episode

FIRST = "2026-03-02T10:00:00+00:00"
LATER = "2026-06-15T09:30:00+00:00"


def ingest(project: Project, content: str, timestamp: str, user_id: str = "u1") -> None:
    episode = make_episode(
        project,
        [{"role": "user", "content": content}, {"role": "assistant", "content": "Thanks for telling me!"}],
        user_id=user_id,
        timestamp=timestamp,
    )
    run_inline(episode.pk)
    episode.refresh_from_db()
    assert episode.status == "completed", episode.error


def ingest_both(project: Project, before: str, after: str, later: str = LATER) -> None:
    """The first message at :data:`FIRST`, the second at ``later``."""
    ingest(project, before, FIRST)
    ingest(project, after, later)


def memory(project: Project, predicate: str, obj: str) -> Memory:
    return Memory.objects.get(project=project, predicate=predicate, object_value__iexact=obj)


def assert_superseded(old: Memory, new: Memory) -> None:
    old.refresh_from_db()
    new.refresh_from_db()
    assert (old.status, old.superseded_by_id) == ("superseded", new.pk)
    assert old.valid_until == new.valid_from
    assert new.status == "active"


def assert_new_value(project: Project, before: str, after: str, predicate: str, old: str, new: str) -> None:
    """Said at :data:`FIRST` and :data:`LATER`, the second message's value of ``predicate`` replaces the
    first's."""
    ingest_both(project, before, after)
    assert_superseded(memory(project, predicate, old), memory(project, predicate, new))
