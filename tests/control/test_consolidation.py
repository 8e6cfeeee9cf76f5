"""Deep consolidation in-process: entity merges, importance decay, transient retries — journaled per chunk,
revertable, resumable from the cursor."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np
import pytest
from django.conf import settings as django_settings
from django.utils import timezone

from config.celery import app
from ingestion.phases import MODULES
from ingestion.runner import fail_episode, run_phase
from memhq.models import (
    Batch,
    ConsolidationCursor,
    Entity,
    Episode,
    EpisodeErrorKind,
    EpisodePhase,
    Memory,
    Project,
)
from memhq.services.consolidation import consolidation_chunk, consolidation_sweep
from memhq.services.consolidation_refresh import importance_cap
from memhq.services.revert import batch_revert
from tests.control.helpers import ingest
from tests.ingestion.helpers import make_episode


def colleagues(project: Project) -> tuple[Entity, Entity]:
    """Bob and Robert: two person entities that turn out to be the same colleague (Robert goes by Bob)."""
    ingest(project, "I work at Acme with Bob.", "2023-01-10T10:00:00Z")
    ingest(project, "My colleague Robert loves chess.", "2023-01-11T10:00:00Z")
    ingest(project, "Robert is my colleague.", "2023-01-12T10:00:00Z")
    robert = Entity.objects.get(project=project, name="Robert")
    Entity.objects.filter(pk=robert.pk).update(aliases=["Bob"], normalized_aliases=["bob"], mention_count=3)
    return Entity.objects.get(project=project, name="Bob"), Entity.objects.get(pk=robert.pk)


def consolidation_batches() -> list[Batch]:
    return list(Batch.objects.filter(kind="consolidation").order_by("created_at"))


def test_duplicate_entities_are_merged_and_memories_repointed_in_a_revertable_batch(project: Project) -> None:
    bob, robert = colleagues(project)
    pointing = list(Memory.objects.filter(entity_ids__contains=[bob.pk]).values_list("pk", flat=True))
    assert pointing
    result = consolidation_sweep()
    assert result.pass_completed and result.batches == 1
    bob.refresh_from_db()
    robert.refresh_from_db()
    assert (bob.merged_into_id, robert.merged_into_id) == (robert.pk, None)  # into the most mentioned
    assert robert.aliases == ["Bob"] and robert.mention_count == 4
    for memory in Memory.objects.filter(project=project):
        assert bob.pk not in memory.entity_ids and bob.pk not in (
            memory.subject_entity_id,
            memory.object_entity_id,
        )
    assert all(robert.pk in Memory.objects.get(pk=pk).entity_ids for pk in pointing)
    [batch] = consolidation_batches()
    assert (batch.kind, batch.actor, batch.user_id) == ("consolidation", "consolidation", "alice")
    tables = set(batch.entries.values_list("table", flat=True))
    assert tables == {"memhq_entity", "memhq_memory"}
    batch_revert(batch=batch, actor="admin:root")
    bob.refresh_from_db()
    assert bob.merged_into_id is None
    assert Memory.objects.filter(entity_ids__contains=[bob.pk]).exists()
    assert consolidation_sweep().batches == 1  # a later pass merges them again (the data still says so)


def test_entities_whose_embeddings_are_near_are_merged_and_far_ones_are_not(project: Project) -> None:
    base = np.zeros(384, dtype=np.float32)
    base[0] = 1.0
    near = base.copy()
    near[1] = 0.3  # cosine ≈ 0.96
    far = np.zeros(384, dtype=np.float32)
    far[2] = 1.0
    for name, vector, mentions in (("NYC", base, 5), ("New York City", near, 2), ("Boston", far, 1)):
        Entity.objects.create(
            project=project,
            user_id="alice",
            name=name,
            normalized_name=name.lower(),
            type="location",
            embedding=vector,
            mention_count=mentions,
        )
    consolidation_sweep()
    merged = dict(Entity.objects.values_list("name", "merged_into__name"))
    assert merged == {"NYC": None, "New York City": "NYC", "Boston": None}


def test_importance_of_memories_unseen_for_long_is_capped_idempotently(
    project: Project, settings: Any
) -> None:
    settings.MEMHQ_IMPORTANCE_DECAY_AFTER_DAYS = 30.0
    settings.MEMHQ_IMPORTANCE_HALF_LIFE_DAYS = 60.0
    settings.MEMHQ_IMPORTANCE_FLOOR = 0.2
    ingest(project, "I am allergic to peanuts.", "2023-01-10T10:00:00Z")
    old = Memory.objects.get(predicate="allergic_to")
    now = timezone.now()
    Memory.objects.filter(pk=old.pk).update(last_seen_at=now - timedelta(days=90))
    ingest(project, "I love hiking.", now.isoformat())
    fresh = Memory.objects.get(predicate="likes")
    importances = {fresh.pk: fresh.importance}
    consolidation_sweep()
    old.refresh_from_db()
    assert old.importance == 0.5  # 60 days past the threshold, one half-life
    assert Memory.objects.get(pk=fresh.pk).importance == importances[fresh.pk]
    assert consolidation_sweep().batches == 0  # a second pass changes nothing
    Memory.objects.filter(pk=old.pk).update(last_seen_at=now - timedelta(days=3000))
    consolidation_sweep()
    assert Memory.objects.get(pk=old.pk).importance == 0.2  # never below the floor


def test_importance_cap_follows_the_documented_formula(settings: Any) -> None:
    now = datetime(2024, 1, 1, tzinfo=UTC)
    settings.MEMHQ_IMPORTANCE_DECAY_AFTER_DAYS, settings.MEMHQ_IMPORTANCE_HALF_LIFE_DAYS = 90.0, 180.0
    assert importance_cap(now - timedelta(days=90, hours=23), now) == 1.0
    assert importance_cap(now - timedelta(days=270), now) == 0.5
    assert importance_cap(now - timedelta(days=450), now) == 0.25


def failed(
    project: Project, error: str, kind: EpisodeErrorKind, phase: EpisodePhase = EpisodePhase.ANCHOR_DATES
) -> Episode:
    episode = make_episode(project, [{"role": "user", "content": "I live in Oslo."}], "alice")
    run_phase(str(episode.pk), EpisodePhase.PERSIST, MODULES[EpisodePhase.PERSIST])
    fail_episode(str(episode.pk), phase, error, kind=kind)
    return Episode.objects.get(pk=episode.pk)


def test_episodes_failed_by_transient_errors_are_retried_from_their_phase(
    project: Project, settings: Any, django_capture_on_commit_callbacks: Any
) -> None:
    settings.MEMHQ_CONSOLIDATION_RETRY_AFTER_S = 0
    settings.MEMHQ_CONSOLIDATION_MAX_EPISODE_RETRIES = 2
    transient = failed(project, "OperationalError: server closed the connection", EpisodeErrorKind.TRANSIENT)
    other = failed(project, "ConnectionResetError: [Errno 104] (gave up)", EpisodeErrorKind.TRANSIENT)
    permanent = failed(project, "OperationalError: a bug that looks transient", EpisodeErrorKind.PERMANENT)
    Episode.objects.update(publish_from=None)  # all published once
    with django_capture_on_commit_callbacks(execute=True):
        consolidation_sweep()
    pending = Episode.objects.filter(publish_from__isnull=False).values_list("pk", "publish_from")
    assert sorted((str(pk), phase) for pk, phase in pending) == sorted(  # asked of the outbox relay
        [(str(transient.pk), 2), (str(other.pk), 2)]
    )
    episode = Episode.objects.get(pk=transient.pk)
    assert (episode.status, episode.error, episode.error_kind, episode.error_phase) == (
        "queued",
        "",
        "",
        None,
    )
    assert episode.stats["consolidation_retries"] == 1 and episode.stats["retried_error"].startswith(
        "Operational"
    )
    assert Episode.objects.get(pk=permanent.pk).status == "failed"
    for _ in range(3):  # fails again each time: retried at most MAX_EPISODE_RETRIES times
        fail_episode(str(transient.pk), EpisodePhase.ANCHOR_DATES, "again", kind=EpisodeErrorKind.TRANSIENT)
        Episode.objects.filter(pk=transient.pk).update(progressed_at=timezone.now() - timedelta(seconds=1))
        with django_capture_on_commit_callbacks(execute=True):
            consolidation_sweep()
    assert Episode.objects.get(pk=transient.pk).stats["consolidation_retries"] == 2
    assert Episode.objects.get(pk=transient.pk).status == "failed"


def test_a_sweep_stops_after_max_chunks_and_the_next_resumes_from_the_cursor(
    project: Project, settings: Any
) -> None:
    settings.MEMHQ_CONSOLIDATION_CHUNK_SIZE = 2
    colleagues(project)
    first = consolidation_sweep(max_chunks=1)
    assert (first.chunks, first.pass_completed) == (1, False)
    cursor = ConsolidationCursor.objects.get()
    assert cursor.pass_started_at is not None and cursor.user_id == "alice" and cursor.position
    rest = consolidation_sweep()
    assert rest.pass_completed
    cursor.refresh_from_db()
    assert (cursor.pass_started_at, cursor.passes_completed, cursor.chunks) == (
        None,
        1,
        first.chunks + rest.chunks,
    )
    assert Entity.objects.filter(merged_into__isnull=False).count() == 1


def test_chunks_serialise_on_the_cursor_and_a_chunk_without_users_completes_the_pass(db: None) -> None:
    outcome = consolidation_chunk()
    assert outcome.pass_completed and outcome.batch is None
    assert ConsolidationCursor.objects.get().passes_completed == 1


def test_the_sweep_is_a_beat_task_in_a_module_the_worker_discovers() -> None:
    schedule = django_settings.CELERY_BEAT_SCHEDULE["consolidation-sweep"]
    assert schedule["task"] == "memhq.consolidation_sweep" and schedule["schedule"] == 900.0  # every 15 min
    app.loader.import_default_modules()
    assert "memhq.consolidation_sweep" in app.tasks


def test_a_chunk_that_fails_midway_leaves_nothing_half_written(
    project: Project, settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    bob, robert = colleagues(project)

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("the database went away")

    monkeypatch.setattr("memhq.services.consolidation.decay_step", broken)
    with pytest.raises(RuntimeError):
        consolidation_sweep()  # the chunk merged Bob into Robert, then failed in the decay step
    bob.refresh_from_db()
    assert bob.merged_into_id is None and not consolidation_batches()
    assert not ConsolidationCursor.objects.filter(chunks__gt=0).exists()
    monkeypatch.undo()
    assert consolidation_sweep().pass_completed
    bob.refresh_from_db()
    assert bob.merged_into_id == robert.pk
