"""Claim → work → record: the protocol every phase task follows (DESIGN §2).

A task claims its phase with a compare-and-swap on the episode row, so a redelivered or duplicated task finds
the phase done (or claimed) and returns without redoing it. A phase's work and the "phase done" mark are
written in one transaction, so a crash mid-phase leaves nothing half-written and the phase simply runs again.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Protocol, TypeVar

from django.conf import settings
from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from memhq.models import Episode, EpisodePhase, EpisodeStatus
from memhq.services.webhooks import event_emit

logger = logging.getLogger(__name__)

T = TypeVar("T")


@dataclass
class PhaseOutcome:
    """What a phase reports for the completion record."""

    counts: dict[str, int] = field(default_factory=dict)
    llm_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0


class Phase(Protocol[T]):
    """A phase module: ``compute`` runs outside any transaction (model calls, embeddings); ``store`` writes
    its result inside the transaction that also marks the phase done."""

    def compute(self, episode: Episode) -> T: ...

    def store(self, episode: Episode, data: T) -> PhaseOutcome | None: ...


def waits_for_a_model(phase: int) -> bool:
    """Whether ``phase`` makes a model call that may legitimately take up to OPENAI_TIMEOUT_S."""
    if phase == EpisodePhase.EXTRACT:
        return bool(settings.MEMHQ_EXTRACTOR == "openai")
    if phase in (EpisodePhase.RESOLVE_ENTITIES, EpisodePhase.INDEX):
        return bool(settings.MEMHQ_EMBEDDINGS == "openai")
    return False


def stall_timeout_s(phase: int) -> float:
    """How long a claim on ``phase`` may go without progress before another worker may take it over."""
    if waits_for_a_model(phase):
        return max(float(settings.MEMHQ_STALL_TIMEOUT_S), float(settings.MEMHQ_LLM_STALL_TIMEOUT_S))
    return float(settings.MEMHQ_STALL_TIMEOUT_S)


class Claim:
    CLAIMED = "claimed"
    DONE = "done"  # already done: nothing to do
    BUSY = "busy"  # another worker holds a fresh claim
    GONE = "gone"  # episode deleted or failed: nothing to do


def claim_phase(episode_id: str, phase: int) -> tuple[str, datetime | None]:
    """Compare-and-swap the phase's claim. Returns (Claim.*, token): the token — the ``progressed_at`` this
    claim wrote — identifies the claim, so a worker never stores into, or releases, another worker's claim."""
    token = timezone.now()
    stale = token - timedelta(seconds=stall_timeout_s(phase))
    claimed = (
        Episode.objects.filter(pk=episode_id, phase_done=phase - 1)
        .exclude(status=EpisodeStatus.FAILED)
        .filter(Q(phase_running__isnull=True) | Q(progressed_at__lt=stale))
        .update(
            phase_running=phase,
            progressed_at=token,
            status=EpisodeStatus.RUNNING,
            attempts=F("attempts") + 1,
        )
    )
    if claimed:
        return Claim.CLAIMED, token
    row = Episode.objects.filter(pk=episode_id).values("phase_done", "status").first()
    if row is None or row["status"] == EpisodeStatus.FAILED:
        return Claim.GONE, None
    return (Claim.DONE if row["phase_done"] >= phase else Claim.BUSY), None


def release_phase(episode_id: str, phase: int, token: datetime) -> None:
    """Give this worker's claim back (only if it is still ours) so a retry or the sweep can take it."""
    Episode.objects.filter(pk=episode_id, phase_running=phase, progressed_at=token).update(phase_running=None)


def run_phase(episode_id: str, phase: EpisodePhase, module: Phase[Any]) -> str:
    """Run ``module`` for ``phase`` if this task wins the claim. Returns the claim result.

    On any error the claim is released before the error propagates (the task decides about retrying).
    """
    claim, token = claim_phase(episode_id, phase)
    if claim != Claim.CLAIMED or token is None:
        logger.info("episode %s phase %s: %s, nothing to do", episode_id, phase.label, claim)
        return claim
    try:
        return _run_claimed(episode_id, phase, module, token)
    except BaseException:
        release_phase(episode_id, phase, token)
        raise


def _run_claimed(episode_id: str, phase: EpisodePhase, module: Phase[Any], token: datetime) -> str:
    started = time.perf_counter()
    claimed = Episode.objects.defer("summary_embedding").filter(pk=episode_id).first()
    if claimed is None:  # erased since the claim (DELETE /users/{user_id})
        return Claim.GONE
    data = module.compute(claimed)
    with transaction.atomic():
        episode = Episode.objects.select_for_update().defer("summary_embedding").filter(pk=episode_id).first()
        if episode is None:
            return Claim.GONE
        if (
            episode.phase_running != phase
            or episode.phase_done != phase - 1
            or episode.progressed_at != token
        ):
            # The claim went stale and another worker took the phase over: its result wins.
            logger.warning("episode %s phase %s: claim lost, discarding result", episode_id, phase.label)
            return Claim.BUSY
        outcome = module.store(episode, data) or PhaseOutcome()
        elapsed_ms = round((time.perf_counter() - started) * 1000, 2)
        _record_done(episode, phase, outcome, elapsed_ms)
    return Claim.CLAIMED


def _record_done(episode: Episode, phase: EpisodePhase, outcome: PhaseOutcome, elapsed_ms: float) -> None:
    stats: dict[str, Any] = dict(episode.stats or {})
    stats.setdefault("timings_ms", {})[phase.label.lower()] = elapsed_ms
    for name, value in outcome.counts.items():
        stats.setdefault("counts", {})[name] = value
    stats["llm_calls"] = stats.get("llm_calls", 0) + outcome.llm_calls
    stats["prompt_tokens"] = stats.get("prompt_tokens", 0) + outcome.prompt_tokens
    stats["completion_tokens"] = stats.get("completion_tokens", 0) + outcome.completion_tokens
    now = timezone.now()
    updates: dict[str, Any] = {
        "phase_done": phase,
        "phase_running": None,
        "progressed_at": now,
        "stats": stats,
    }
    if phase == EpisodePhase.NOTIFY:
        updates.update(status=EpisodeStatus.COMPLETED, completed_at=now)
    Episode.objects.filter(pk=episode.pk).update(**updates)
    episode.stats = stats


def fail_episode(episode_id: str, phase: int, reason: str) -> None:
    """Mark the episode failed in ``phase``; earlier phases' work stays so a later retry resumes there."""
    with transaction.atomic():
        episode = Episode.objects.select_for_update().filter(pk=episode_id).first()
        if episode is None or episode.status == EpisodeStatus.FAILED:
            return
        episode.status = EpisodeStatus.FAILED
        episode.phase_running = None
        episode.error_phase = phase
        episode.error = reason[:4000]
        episode.progressed_at = timezone.now()
        episode.save(update_fields=["status", "phase_running", "error_phase", "error", "progressed_at"])
        event_emit(
            project_id=episode.project_id,
            user_id=episode.user_id,
            type="episode.failed",
            payload={
                "episode_id": str(episode.pk),
                "user_id": episode.user_id,
                "phase": EpisodePhase(phase).label.lower(),
                "error": episode.error,
            },
        )
