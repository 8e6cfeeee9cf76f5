"""Retry a failed episode from the phase that failed (admin action, ``POST /v1/memhq/episodes/{id}/retry``).

Earlier phases' work stays in place (DESIGN §3), so the chain is re-enqueued from ``error_phase``. The retry
is journaled as its own batch (kind ``retry``, with its actor) holding one UPDATE of the episode row — its
status, error, failed phase and the retry count before and after; the episode row is not a table a revert
restores, so such a batch is not revertible (what the retried episode changes is its own batch). The retry
puts the episode in the outbox (``publish_from``, ingestion/outbox.py): the relay publishes it once the
transaction commits, and the sweep does if the relay or the broker is down.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.http import Http404
from django.utils import timezone

from memhq.models import Batch, BatchKind, Episode, EpisodePhase, EpisodeStatus, JournalEntry, Project
from memhq.services.batches import batch_start

JOURNALED_FIELDS = ("status", "error", "error_kind", "error_phase", "phase_done", "phase_running")


class EpisodeNotFailed(Exception):
    """Only a failed episode can be retried."""


@dataclass(frozen=True)
class EpisodeRetry:
    episode: Episode
    from_phase: EpisodePhase
    batch: Batch


def _journaled(episode: Episode) -> dict[str, Any]:
    values: dict[str, Any] = {name: getattr(episode, name) for name in JOURNALED_FIELDS}
    values["manual_retries"] = int((episode.stats or {}).get("manual_retries", 0))
    return values


@transaction.atomic
def episode_retry(*, project: Project, episode_id: uuid.UUID | str, actor: str) -> EpisodeRetry:
    """Set a failed episode of ``project`` back to queued and enqueue it from its failed phase.

    Raises Http404 for an id that is not the project's, EpisodeNotFailed when it is not failed.
    """
    try:
        episode = (
            Episode.objects.select_for_update()
            .defer("raw_body", "summary_embedding")
            .get(project=project, pk=episode_id)
        )
    except (Episode.DoesNotExist, ValidationError, ValueError, TypeError):
        raise Http404 from None
    if episode.status != EpisodeStatus.FAILED:
        raise EpisodeNotFailed(f"Episode {episode.pk} is {episode.status}; only a failed episode is retried.")
    from_phase = EpisodePhase(episode.error_phase or min(episode.phase_done + 1, EpisodePhase.NOTIFY))
    before = _journaled(episode)
    stats = dict(episode.stats or {})
    stats["manual_retries"] = before["manual_retries"] + 1
    stats["retried_error"] = episode.error
    episode.status = EpisodeStatus.QUEUED
    episode.error = ""
    episode.error_kind = ""
    episode.error_phase = None
    episode.phase_running = None
    episode.progressed_at = timezone.now()
    episode.publish_from = from_phase
    episode.stats = stats
    episode.save(
        update_fields=[
            "status",
            "error",
            "error_kind",
            "error_phase",
            "phase_running",
            "progressed_at",
            "publish_from",
            "stats",
        ]
    )
    journal = batch_start(
        project_id=project.pk,
        user_id=episode.user_id,
        kind=BatchKind.RETRY,
        actor=actor,
        note=f"retry episode {episode.pk} from {from_phase.label.lower()}: {before['error']}",
    )
    JournalEntry.objects.create(
        batch=journal.batch,
        seq=0,
        op=JournalEntry.Op.UPDATE,
        table=Episode._meta.db_table,
        row_id=str(episode.pk),
        before=before,
        after=_journaled(episode),
    )
    return EpisodeRetry(episode=episode, from_phase=from_phase, batch=journal.batch)
