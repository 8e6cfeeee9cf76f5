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
from django.db import connections, router, transaction
from django.db.models import BooleanField, F, Q, QuerySet
from django.db.models.expressions import RawSQL
from django.db.models.functions import Now
from django.db.models.sql import UpdateQuery
from django.utils import timezone

from ingestion.claims import CLEARED, holder_fields, holder_is_dead, is_own_stale_claim, leases
from memhq.models import Episode, EpisodeErrorKind, EpisodePhase, EpisodeStatus
from memhq.ops import metrics
from memhq.replicas import freshness
from memhq.services.webhooks import event_emit

logger = logging.getLogger(__name__)

T = TypeVar("T")


@dataclass
class PhaseOutcome:
    """What a phase reports for the completion record."""

    counts: dict[str, int] = field(default_factory=dict)
    #: Columns of the episode row the phase writes: set by the "done" update, one statement for both.
    episode_fields: dict[str, Any] = field(default_factory=dict)
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
    """How long a claim on ``phase`` that has no lease (written before leases existed, ingestion/claims.py)
    may go without progress before another worker may take it over. A leased claim is renewed while its
    holder lives, however long its model call takes."""
    if waits_for_a_model(phase):
        return max(float(settings.MEMHQ_STALL_TIMEOUT_S), float(settings.MEMHQ_LLM_STALL_TIMEOUT_S))
    return float(settings.MEMHQ_STALL_TIMEOUT_S)


#: A condition that is always true and, evaluated, makes the transaction commit without waiting for its WAL
#: to be flushed (``synchronous_commit`` is read at commit). It rides on a statement the transaction makes
#: anyway (the claim, the "done" update) instead of a ``SET LOCAL`` of its own, one round trip less per phase.
_ASYNC_COMMIT = RawSQL(
    "set_config('synchronous_commit', 'off', true) = 'off'", (), output_field=BooleanField()
)


def commits_asynchronously(phase: int) -> bool:
    """Whether ``phase``'s claim and result commit without waiting for the disk
    (``MEMHQ_PHASE_ASYNC_COMMIT``).

    A phase's work is derived from the episode /add stored durably, and each phase is idempotent: a result a
    database crash loses is computed again once the stall sweep re-requests the episode (WAL reaches the disk
    in order, so what survives is always a prefix: never phase N+1 without phase N).
    Notify is the exception: "completed" is what a client is told, so it stays durable.

    The setting holds until the transaction ends: a phase run inside a caller's ``transaction.atomic()`` (a
    test's) makes that whole transaction asynchronous. The service never does (each task runs in its own)."""
    return bool(settings.MEMHQ_PHASE_ASYNC_COMMIT) and phase != EpisodePhase.NOTIFY


def _commit_mode(queryset: QuerySet[Episode], phase: int) -> QuerySet[Episode]:
    return queryset.filter(_ASYNC_COMMIT) if commits_asynchronously(phase) else queryset


class Claim:
    CLAIMED = "claimed"
    DONE = "done"  # already done: nothing to do
    BUSY = "busy"  # another worker holds a fresh claim
    GONE = "gone"  # episode deleted or failed: nothing to do


def _update_returning(queryset: QuerySet[Episode], values: dict[str, Any]) -> Episode | None:
    """``queryset.update(**values)`` that also returns the updated row (its summary vector deferred) in the
    same statement, ``UPDATE … RETURNING``: the claim and the read of the episode were two round trips."""
    assert values, "an UPDATE needs columns to set"
    using = router.db_for_write(Episode) or "default"
    query = queryset.query.chain(UpdateQuery)
    assert isinstance(query, UpdateQuery)
    query.add_update_values(values)
    statement, params = query.get_compiler(using).as_sql()
    quote = connections[using].ops.quote_name
    fields = [f for f in Episode._meta.concrete_fields if f.attname != "summary_embedding"]
    columns = ", ".join(quote(str(f.column)) for f in fields)
    rows = Episode.objects.db_manager(using).raw(f"{statement} RETURNING {columns}", params)
    return next(iter(rows), None)


def claim_phase(episode_id: str, phase: int) -> tuple[str, datetime | None, Episode | None]:
    """Compare-and-swap the phase's claim. Returns (Claim.*, token, episode): the token — the
    ``progressed_at`` this claim wrote — identifies the claim, so a worker never stores into, or releases,
    another worker's claim; the episode is the row as the claim left it (the same statement).

    A claim held by a dead process of this host, or whose lease ran out, is taken over (ingestion/claims.py).
    """
    token = timezone.now()
    claim = {
        "phase_running": phase,
        "progressed_at": token,
        "status": EpisodeStatus.RUNNING,
        "attempts": F("attempts") + 1,
        **holder_fields(),
    }
    phase_open = Episode.objects.filter(pk=episode_id, phase_done=phase - 1).exclude(
        status=EpisodeStatus.FAILED
    )
    stale = token - timedelta(seconds=stall_timeout_s(phase))
    free = (
        Q(phase_running__isnull=True)
        | Q(claim_expires_at__lt=Now())
        | Q(claim_expires_at__isnull=True, progressed_at__lt=stale)  # a claim written before leases existed
    )
    episode = _update_returning(_commit_mode(phase_open.filter(free), phase), claim)
    if episode is not None:
        return Claim.CLAIMED, token, episode
    row = (
        Episode.objects.filter(pk=episode_id)
        .values(
            "phase_done",
            "status",
            "phase_running",
            "progressed_at",
            "claim_host",
            "claim_pid",
            "claim_pid_start",
        )
        .first()
    )
    if row is None or row["status"] == EpisodeStatus.FAILED:
        return Claim.GONE, None, None
    if row["phase_done"] >= phase:
        return Claim.DONE, None, None
    holder = (row["claim_host"], row["claim_pid"], row["claim_pid_start"])
    if row["phase_running"] == phase and (
        holder_is_dead(*holder) or is_own_stale_claim(*holder, episode_id, phase)
    ):
        # Exactly that holder's claim: if anyone else took it over meanwhile, this update finds nothing.
        holders_claim = phase_open.filter(
            phase_running=phase,
            progressed_at=row["progressed_at"],
            claim_host=row["claim_host"],
            claim_pid=row["claim_pid"],
        )
        taken = _update_returning(_commit_mode(holders_claim, phase), claim)
        if taken is not None:
            logger.warning(
                "episode %s phase %s: took over the stale claim of process %s on %s",
                episode_id,
                phase,
                row["claim_pid"],
                row["claim_host"],
            )
            return Claim.CLAIMED, token, taken
    return Claim.BUSY, None, None


def release_phase(episode_id: str, phase: int, token: datetime) -> None:
    """Give this worker's claim back (only if it is still ours) so a retry or the sweep can take it."""
    Episode.objects.filter(pk=episode_id, phase_running=phase, progressed_at=token).update(
        phase_running=None, **CLEARED
    )


def run_phase(episode_id: str, phase: EpisodePhase, module: Phase[Any]) -> str:
    """Run ``module`` for ``phase`` if this task wins the claim. Returns the claim result.

    On any error the claim is released before the error propagates (the task decides about retrying).
    """
    claim, token, episode = claim_phase(episode_id, phase)
    if claim != Claim.CLAIMED or token is None:
        logger.info("episode %s phase %s: %s, nothing to do", episode_id, phase.label, claim)
        return claim
    leases.hold(episode_id, phase, token)
    try:
        return _run_claimed(episode_id, phase, module, token, episode)
    except BaseException:
        release_phase(episode_id, phase, token)
        raise
    finally:
        leases.release(episode_id, phase, token)


def _run_claimed(
    episode_id: str, phase: EpisodePhase, module: Phase[Any], token: datetime, claimed: Episode | None = None
) -> str:
    """Run the claimed phase; ``claimed`` is the row the claim returned (read here when not given)."""
    started = time.perf_counter()
    episode = claimed or Episode.objects.defer("summary_embedding").filter(pk=episode_id).first()
    if episode is None:  # erased since the claim (DELETE /users/{user_id})
        return Claim.GONE
    data = module.compute(episode)
    try:
        with transaction.atomic():
            outcome = module.store(episode, data) or PhaseOutcome()
            elapsed_ms = round((time.perf_counter() - started) * 1000, 2)
            held = _record_done(episode, phase, outcome, elapsed_ms, token)
            if not held:  # nothing this phase wrote is kept
                transaction.set_rollback(True)
    except Exception:
        # The claim is checked only at the end (the "done" update), so a store that collides with the writes
        # of a worker that took the claim over (a unique row it already inserted) fails first: that is the
        # lost claim, not an error of this episode.
        if Episode.objects.filter(pk=episode_id, phase_running=phase, progressed_at=token).exists():
            raise
        held = False
    if held:
        return Claim.CLAIMED
    if not Episode.objects.filter(pk=episode_id).exists():
        return Claim.GONE  # erased meanwhile
    # The claim went stale and another worker took the phase over: its result wins.
    logger.warning("episode %s phase %s: claim lost, discarding result", episode_id, phase.label)
    return Claim.BUSY


def _record_done(
    episode: Episode, phase: EpisodePhase, outcome: PhaseOutcome, elapsed_ms: float, token: datetime
) -> bool:
    """The completion record, written only if this worker's claim still holds (a compare-and-swap on the
    claim token: the one statement that both checks the claim and locks the row, so the phase's writes and
    its "done" mark commit together or not at all). Returns whether the claim held.

    Besides each phase's duration it keeps when the successful claim started and the episode's claim count
    when the phase finished (the difference between two phases = that phase's tries), for the admin's
    timeline (memhq.selectors.episode_timeline). ``episode`` is the row as read right after the claim: while
    the claim holds nobody else writes its stats."""
    stats: dict[str, Any] = dict(episode.stats or {})
    label = phase.label.lower()
    stats.setdefault("timings_ms", {})[label] = elapsed_ms
    stats.setdefault("started_at", {})[label] = token.isoformat()
    stats.setdefault("attempts_at", {})[label] = episode.attempts
    metrics.PHASE_SECONDS.labels(label).observe(elapsed_ms / 1000)
    for name, value in outcome.counts.items():
        stats.setdefault("counts", {})[name] = value
    stats["llm_calls"] = stats.get("llm_calls", 0) + outcome.llm_calls
    stats["prompt_tokens"] = stats.get("prompt_tokens", 0) + outcome.prompt_tokens
    stats["completion_tokens"] = stats.get("completion_tokens", 0) + outcome.completion_tokens
    now = timezone.now()
    protocol = {"phase_done", "phase_running", "progressed_at", "stats", *CLEARED}
    assert not outcome.episode_fields.keys() & protocol, "a phase never writes the claim's own columns"
    updates: dict[str, Any] = {
        "phase_done": phase,
        "phase_running": None,
        "progressed_at": now,
        "stats": stats,
        **CLEARED,
        **outcome.episode_fields,
    }
    if phase == EpisodePhase.NOTIFY:
        updates.update(status=EpisodeStatus.COMPLETED, completed_at=now)
    mine = Episode.objects.filter(
        pk=episode.pk, phase_running=phase, phase_done=phase - 1, progressed_at=token
    )
    held = _commit_mode(mine, phase).update(**updates)
    if held:
        episode.stats = stats
    return bool(held)


def fail_episode(episode_id: str, phase: int, reason: str, *, kind: EpisodeErrorKind) -> None:
    """Mark the episode failed in ``phase``, saying whether the error was transient (``kind``); earlier
    phases' work stays so a later retry resumes there."""
    with transaction.atomic():
        episode = Episode.objects.select_for_update().filter(pk=episode_id).first()
        if episode is None or episode.status == EpisodeStatus.FAILED:
            return
        episode.status = EpisodeStatus.FAILED
        episode.phase_running = None
        episode.claim_host, episode.claim_pid, episode.claim_pid_start, episode.claim_expires_at = (
            "",
            None,
            None,
            None,
        )
        episode.error_phase = phase
        episode.error = reason[:4000]
        episode.error_kind = kind
        episode.progressed_at = timezone.now()
        episode.save(
            update_fields=[
                "status",
                "phase_running",
                "claim_host",
                "claim_pid",
                "claim_pid_start",
                "claim_expires_at",
                "error_phase",
                "error",
                "error_kind",
                "progressed_at",
            ]
        )
        metrics.PHASE_FAILURES.labels(EpisodePhase(phase).label.lower()).inc()
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
        freshness.wrote(episode.project_id, user_id=episode.user_id)  # its status, read on a replica
