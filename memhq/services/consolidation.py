"""Deep consolidation (beat ``memhq.consolidation_sweep``): bounded chunks, resumable, each one revertable.

A *pass* walks every user that has entities or memories, in (project id, user id) order: first the merge of
duplicate entities (``consolidation_merge``), then the importance decay (``consolidation_refresh``); after
the last user it retries failed episodes whose error was transient. Every decision of a pass is taken
relative to the time the pass started, so resuming a pass gives what an uninterrupted one would have.

A *chunk* is one transaction: it locks the cursor row (``ConsolidationCursor``, so two sweeps never work at
once), works on ONE user under that user's entity and memory locks until it has examined
``MEMHQ_CONSOLIDATION_CHUNK_SIZE`` rows or finished the user, journals every write in one batch
(``BatchKind.CONSOLIDATION``, actor ``consolidation``; none when nothing changed), and saves the advanced
cursor — all committed together. A worker killed mid-chunk loses only that chunk's uncommitted work; the next
sweep resumes at it and never redoes a chunk that committed.

A sweep runs chunks until the pass completes or ``MEMHQ_CONSOLIDATION_MAX_CHUNKS`` chunks ran, pausing
``MEMHQ_CONSOLIDATION_CHUNK_PAUSE_S`` after each; the next sweep carries on (a new pass starts only at the
sweep after the one that completed a pass).
"""

from __future__ import annotations

import logging
import time
import uuid
from dataclasses import dataclass

from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone

from memhq.models import Batch, BatchKind, ConsolidationCursor, ConsolidationStep
from memhq.services.batches import CONSOLIDATION_ACTOR, batch_finish, batch_start
from memhq.services.consolidation_merge import merge_step
from memhq.services.consolidation_refresh import decay_step, retry_cutoff, retry_failed_episodes
from memhq.services.locks import LockNamespace, lock_user

logger = logging.getLogger(__name__)

CURSOR_NAME = "global"
_NO_PROJECT = uuid.UUID(int=0)
_NEXT_USER = """
SELECT project_id, user_id FROM (
    (SELECT project_id, user_id FROM memhq_memory WHERE (project_id, user_id) > (%(p)s, %(u)s)
     ORDER BY project_id, user_id LIMIT 1)
    UNION ALL
    (SELECT project_id, user_id FROM memhq_entity WHERE (project_id, user_id) > (%(p)s, %(u)s)
     ORDER BY project_id, user_id LIMIT 1)
) AS following ORDER BY project_id, user_id LIMIT 1
"""


@dataclass(frozen=True)
class ChunkOutcome:
    batch: Batch | None
    pass_completed: bool
    examined: int


@dataclass(frozen=True)
class SweepResult:
    chunks: int
    batches: int
    pass_completed: bool


def _next_user(project_id: uuid.UUID | None, user_id: str) -> tuple[uuid.UUID, str] | None:
    with connection.cursor() as cursor:
        cursor.execute(_NEXT_USER, {"p": project_id or _NO_PROJECT, "u": user_id if project_id else ""})
        row = cursor.fetchone()
    return (row[0], row[1]) if row else None


def _move_to_user(cursor: ConsolidationCursor, user: tuple[uuid.UUID, str] | None) -> None:
    cursor.position = {}
    if user is None:
        cursor.project_id, cursor.user_id, cursor.step = None, "", ConsolidationStep.RETRY
    else:
        cursor.project_id, cursor.user_id = user
        cursor.step = ConsolidationStep.MERGE


def _locked_cursor() -> ConsolidationCursor:
    ConsolidationCursor.objects.get_or_create(name=CURSOR_NAME)
    return ConsolidationCursor.objects.select_for_update().get(name=CURSOR_NAME)


def _start_pass(cursor: ConsolidationCursor) -> None:
    cursor.pass_started_at = timezone.now()
    cursor.chunks = 0
    _move_to_user(cursor, _next_user(None, ""))


def _user_chunk(cursor: ConsolidationCursor, budget: int) -> tuple[Batch | None, int]:
    """Work on the cursor's user until the budget is spent or the user is done; advances the cursor."""
    assert cursor.project_id is not None and cursor.pass_started_at is not None
    project_id, user_id = cursor.project_id, cursor.user_id
    lock_user(LockNamespace.ENTITIES, project_id, user_id)
    lock_user(LockNamespace.MEMORIES, project_id, user_id)
    journal = batch_start(
        project_id=project_id,
        user_id=user_id,
        kind=BatchKind.CONSOLIDATION,
        actor=CONSOLIDATION_ACTOR,
        note=f"pass {cursor.passes_completed + 1}, chunk {cursor.chunks + 1}",
    )
    examined = 0
    while examined < budget and (cursor.project_id, cursor.user_id) == (project_id, user_id):
        if cursor.step == ConsolidationStep.MERGE:
            progress = merge_step(
                journal,
                project_id=project_id,
                user_id=user_id,
                position=cursor.position,
                budget=budget - examined,
            )
        else:
            progress = decay_step(
                journal,
                project_id=project_id,
                user_id=user_id,
                position=cursor.position,
                budget=budget - examined,
                now=cursor.pass_started_at,
            )
        examined += progress.used
        cursor.position = progress.position
        if progress.done and cursor.step == ConsolidationStep.MERGE:
            cursor.step, cursor.position = ConsolidationStep.DECAY, {}
        elif progress.done:
            _move_to_user(cursor, _next_user(project_id, user_id))
    return batch_finish(journal), examined


@transaction.atomic
def consolidation_chunk() -> ChunkOutcome:
    """One chunk of the current pass (starting a pass if none is running), committed with the cursor."""
    cursor = _locked_cursor()
    if cursor.pass_started_at is None:
        _start_pass(cursor)
    assert cursor.pass_started_at is not None
    budget = max(1, settings.MEMHQ_CONSOLIDATION_CHUNK_SIZE)
    batch, completed = None, False
    if cursor.step == ConsolidationStep.RETRY:
        examined = retry_failed_episodes(failed_before=retry_cutoff(cursor.pass_started_at), limit=budget)
        if examined < budget:
            completed = True
            cursor.pass_started_at = None
            cursor.passes_completed += 1
            cursor.last_pass_finished_at = timezone.now()
            cursor.step, cursor.position = ConsolidationStep.MERGE, {}
    else:
        batch, examined = _user_chunk(cursor, budget)
    cursor.chunks += 1
    cursor.save()
    return ChunkOutcome(batch=batch, pass_completed=completed, examined=examined)


def consolidation_sweep(*, max_chunks: int | None = None) -> SweepResult:
    """Run chunks until the pass completes or ``max_chunks`` (default: the setting) ran."""
    limit = settings.MEMHQ_CONSOLIDATION_MAX_CHUNKS if max_chunks is None else max_chunks
    chunks = batches = 0
    completed = False
    while chunks < limit and not completed:
        outcome = consolidation_chunk()
        chunks += 1
        batches += outcome.batch is not None
        completed = outcome.pass_completed
        if not completed and settings.MEMHQ_CONSOLIDATION_CHUNK_PAUSE_S > 0:
            time.sleep(settings.MEMHQ_CONSOLIDATION_CHUNK_PAUSE_S)
    logger.info("consolidation sweep: %d chunks, %d batches, pass completed: %s", chunks, batches, completed)
    return SweepResult(chunks=chunks, batches=batches, pass_completed=completed)
