"""rows_update writes what bulk_update writes (vectors, JSON, arrays, foreign keys, NULL) in one statement."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from memhq.models import Candidate, Entity, EpisodeMessage, Memory, Project
from memhq.services.bulk import rows_update
from tests.ingestion.helpers import make_episode, run_tasks

MESSAGES = [
    {"role": "user", "content": "I moved to Lisbon last month and my sister Ana lives in Porto."},
    {"role": "assistant", "content": "Lisbon is lovely in spring. Do you visit Ana often?"},
    {"role": "user", "content": "Yes, I take the train to Porto every other weekend."},
]


@pytest.fixture
def ingested(project: Project) -> Any:
    return run_tasks(make_episode(project, MESSAGES))


def test_rows_update_writes_vectors_json_and_nulls_of_many_rows_in_one_statement(
    ingested: Any, django_assert_num_queries: Any
) -> None:
    messages = list(EpisodeMessage.objects.filter(episode=ingested).order_by("index"))
    vector = np.linspace(-1, 1, 384, dtype=np.float32)
    messages[0].embedding, messages[1].embedding = vector, None
    messages[0].time_mentions = [{"text": "last month", "granularity": "month"}]
    messages[2].filler, messages[2].passage_count = True, 3
    with django_assert_num_queries(1):
        written = rows_update(messages, ["embedding", "time_mentions", "filler", "passage_count"])
    assert written == 3
    stored = list(EpisodeMessage.objects.filter(episode=ingested).order_by("index"))
    assert np.allclose(np.asarray(stored[0].embedding), vector, atol=1e-6)
    assert stored[1].embedding is None
    assert stored[0].time_mentions == [{"text": "last month", "granularity": "month"}]
    assert stored[2].filler is True and stored[2].passage_count == 3
    assert stored[1].content == MESSAGES[1]["content"]  # columns not named are left alone


def test_rows_update_writes_arrays_and_foreign_keys(ingested: Any) -> None:
    entity = Entity.objects.filter(project=ingested.project, merged_into__isnull=True).first()
    assert entity is not None
    entity.aliases, entity.normalized_aliases = ["Ana M.", "Aninha"], ["ana m", "aninha"]
    entity.mention_count = 7
    rows_update([entity], ["mention_count", "aliases", "normalized_aliases"])
    entity.refresh_from_db()
    assert (entity.aliases, entity.normalized_aliases, entity.mention_count) == (
        ["Ana M.", "Aninha"],
        ["ana m", "aninha"],
        7,
    )
    candidates = list(Candidate.objects.filter(episode=ingested).order_by("ordinal"))
    memory = Memory.objects.filter(project=ingested.project).first()
    assert len(candidates) >= 2 and memory is not None
    candidates[0].memory, candidates[1].memory = None, memory
    candidates[0].reason = "checked"
    rows_update(candidates[:2], ["memory", "reason"])
    first, second = (Candidate.objects.get(pk=c.pk) for c in candidates[:2])
    assert first.memory_id is None and first.reason == "checked"
    assert second.memory_id == memory.pk


def test_rows_update_refuses_what_it_cannot_write(ingested: Any) -> None:
    message = EpisodeMessage.objects.filter(episode=ingested).first()
    entity = Entity.objects.filter(project=ingested.project).first()
    assert message is not None and entity is not None
    assert rows_update([], ["filler"]) == 0
    with pytest.raises(ValueError, match="one model"):
        rows_update([message, entity], ["filler"])
    with pytest.raises(ValueError, match="primary key"):
        rows_update([EpisodeMessage(content="unsaved")], ["content"])
    with pytest.raises(ValueError, match="primary key"):
        rows_update([message], ["id"])
    with pytest.raises(ValueError, match="concrete columns"):
        rows_update([message], ["passages"])  # a reverse relation, not a column
