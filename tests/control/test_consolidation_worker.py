"""Deep consolidation in real worker processes: a sweep killed (SIGKILL) after its first chunk committed and
run again in a new worker ends exactly like an uninterrupted sweep on an identical data set."""

from __future__ import annotations

import signal
import time
import uuid
from datetime import timedelta
from pathlib import Path
from typing import Any

import redis
from django.utils import timezone

from ingestion.phases import MODULES
from ingestion.runner import fail_episode, run_phase
from memhq.consolidation_tasks import consolidation_sweep
from memhq.models import (
    ConsolidationCursor,
    Entity,
    Episode,
    EpisodeErrorKind,
    EpisodePhase,
    JournalEntry,
    Memory,
    Project,
)
from memhq.services.tenancy import project_create
from tests.control.helpers import ingest
from tests.ingestion.helpers import make_episode
from tests.support.worker import celery_process, relay_process, stop, worker_args, worker_env

TIMEOUT_S = 120.0
CHUNK_SIZE = "2"
WORKER_SETTINGS = {"MEMHQ_CONSOLIDATION_CHUNK_SIZE": CHUNK_SIZE, "MEMHQ_CONSOLIDATION_RETRY_AFTER_S": "0"}
STALE = timedelta(days=400, hours=12)  # mid-day: the whole-day age cannot change between the two runs


def build(broker: redis.Redis) -> Project:
    """Two users: duplicate entities, memories unseen for long, failed episodes (one transient)."""
    project, _ = project_create(name="consolidation")
    for user_id in ("alice", "carol"):
        ingest(project, "I work at Acme with Bob.", "2023-01-10T10:00:00Z", user_id)
        ingest(project, "My colleague Robert loves chess.", "2023-01-11T10:00:00Z", user_id)
        ingest(project, "My sister Emma lives in Porto. I love hiking.", "2023-01-12T10:00:00Z", user_id)
        Entity.objects.filter(project=project, user_id=user_id, name="Robert").update(
            aliases=["Bob"], normalized_aliases=["bob"], mention_count=3
        )
    Memory.objects.filter(project=project, predicate__in=["likes", "works_at"]).update(
        last_seen_at=timezone.now() - STALE
    )
    for content, error, kind in (
        (
            "I own a boat.",
            "OperationalError: server closed the connection (gave up after 5 retries)",
            EpisodeErrorKind.TRANSIENT,
        ),
        ("I own a bike.", "ValueError: bad data", EpisodeErrorKind.PERMANENT),
    ):
        episode = make_episode(project, [{"role": "user", "content": content}], "alice")
        run_phase(str(episode.pk), EpisodePhase.PERSIST, MODULES[EpisodePhase.PERSIST])
        fail_episode(str(episode.pk), EpisodePhase.ANCHOR_DATES, error, kind=kind)
    broker.flushdb()  # the chains published at creation already ran in this process
    return project


def state(project: Project) -> dict[str, Any]:
    """Everything consolidation can change, by content (ids differ between data sets)."""
    names: dict[uuid.UUID | None, str] = dict(
        Entity.objects.filter(project=project).values_list("pk", "normalized_name")
    )
    entities = sorted(
        (e.user_id, e.type, e.normalized_name, tuple(e.aliases), e.mention_count, names.get(e.merged_into_id))
        for e in Entity.objects.filter(project=project)
    )
    memories = sorted(
        (
            m.user_id,
            m.text,
            m.status,
            round(m.importance, 6),
            names.get(m.subject_entity_id),
            names.get(m.object_entity_id),
            tuple(sorted(names[e] for e in m.entity_ids)),
        )
        for m in Memory.objects.filter(project=project)
    )
    episodes = sorted(
        (bytes(e.raw_body), e.status, e.phase_done, e.stats.get("consolidation_retries"))
        for e in Episode.objects.filter(project=project)
    )
    cursor = ConsolidationCursor.objects.get()
    entries = JournalEntry.objects.filter(batch__project=project, batch__kind="consolidation").count()
    return {
        "entities": entities,
        "memories": memories,
        "episodes": episodes,
        "journal_entries": entries,
        "cursor": (cursor.passes_completed, cursor.chunks, cursor.step, cursor.pass_started_at),
    }


def wait_until(condition: Any, what: str) -> None:
    deadline = time.monotonic() + TIMEOUT_S
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.02)


def cursor_value(field: str, default: Any = 0) -> Any:
    cursor = ConsolidationCursor.objects.filter(name="global").first()
    return getattr(cursor, field) if cursor else default


def run_to_the_end(project: Project) -> None:
    """Ask the worker for a sweep; wait for the pass and for the episodes it re-enqueued."""
    consolidation_sweep.delay()
    wait_until(lambda: cursor_value("passes_completed") == 1, "the pass to complete")
    wait_until(
        lambda: not Episode.objects.filter(project=project, status__in=["queued", "running"]).exists(),
        "the retried episode",
    )


def test_a_sweep_killed_after_its_first_chunk_resumes_and_ends_like_an_uninterrupted_one(
    transactional_db: None, broker: redis.Redis, tmp_path: Path
) -> None:
    project = build(broker)
    slow = worker_env(**WORKER_SETTINGS, MEMHQ_CONSOLIDATION_CHUNK_PAUSE_S="2")
    with celery_process(worker_args(), slow, tmp_path / "w1.log", ready="ready.") as first:
        consolidation_sweep.delay()
        wait_until(lambda: cursor_value("chunks") >= 1, "the first chunk to commit")
        stop(first, sig=signal.SIGKILL)
    interrupted = ConsolidationCursor.objects.get()
    assert interrupted.pass_started_at is not None and interrupted.passes_completed == 0
    assert interrupted.chunks == 1, "the kill came too late to interrupt anything"
    fast = worker_env(**WORKER_SETTINGS)
    with (
        relay_process(fast, tmp_path / "relay.log"),  # publishes the episodes the sweep re-enqueues
        celery_process(worker_args(), fast, tmp_path / "w2.log", ready="ready.") as second,
    ):
        run_to_the_end(project)
        resumed = state(project)
        Project.objects.filter(pk=project.pk).delete()
        ConsolidationCursor.objects.all().delete()
        reference_project = build(broker)
        run_to_the_end(reference_project)
        reference = state(reference_project)
        stop(second)
    assert resumed["cursor"][:3] == reference["cursor"][:3] == (1, reference["cursor"][1], "merge")
    assert resumed["entities"] == reference["entities"]
    assert resumed["memories"] == reference["memories"]
    assert resumed["episodes"] == reference["episodes"]
    assert resumed["journal_entries"] == reference["journal_entries"] > 0
    merged = [entity for entity in reference["entities"] if entity[5] is not None]
    assert [(user, name, into) for user, _, name, _, _, into in merged] == [
        ("alice", "bob", "robert"),
        ("carol", "bob", "robert"),
    ]
    decayed = round(0.5 ** ((STALE.days - 90) / 180), 4)  # the default decay settings
    assert {memory[3] for memory in reference["memories"] if "hiking" in memory[1]} == {decayed}
    boat = next(episode for episode in reference["episodes"] if b"boat" in episode[0])
    bike = next(episode for episode in reference["episodes"] if b"bike" in episode[0])
    assert (boat[1], boat[3], bike[1], bike[3]) == ("completed", 1, "failed", None)
