"""Celery tasks: thin adapters from an episode id to a phase module (ingestion/phases/)."""

from __future__ import annotations

import logging
from typing import Any

from celery import Task
from celery.exceptions import Ignore
from django.conf import settings
from django.db import InterfaceError, OperationalError

from config.celery import app
from ingestion import sweeps
from ingestion.outbox import hand_over
from ingestion.phases import MODULES, task_name
from ingestion.pipeline import build_chain
from ingestion.runner import Claim, fail_episode, run_phase
from memhq.ai.errors import TransientAIError
from memhq.models import EpisodeErrorKind, EpisodePhase
from memhq.ops import metrics
from memhq.ops.backoff import retry_countdown

logger = logging.getLogger(__name__)

#: Worth retrying with backoff; anything else fails the episode at once.
TRANSIENT_ERRORS = (TransientAIError, OperationalError, InterfaceError, ConnectionError, TimeoutError)


class PhaseTask(Task):
    acks_late = True
    reject_on_worker_lost = True
    ignore_result = True

    def on_failure(self, exc: Exception, task_id: str, args: Any, kwargs: Any, einfo: Any) -> None:
        """Failures of the phase's own work end in a retry or in ``fail_episode`` (then ``Ignore``); what
        reaches here failed around it, e.g. publishing the next hop while the broker is down."""
        if args:
            try:
                if hand_over(str(args[0])):
                    logger.warning("episode %s: %s; handed to the outbox relay", args[0], exc)
            except Exception:  # the database is away too: the sweep's stall rule still covers it
                logger.warning("episode %s: could not hand over to the outbox", args[0], exc_info=True)


def execute(task: Task, episode_id: str, phase: EpisodePhase) -> None:
    try:
        claim = run_phase(episode_id, phase, MODULES[phase])
    except TRANSIENT_ERRORS as exc:  # run_phase has released the claim
        retries = task.request.retries
        if retries >= settings.MEMHQ_TASK_MAX_RETRIES:
            reason = f"{type(exc).__name__}: {exc} (gave up after {retries} retries)"
            fail_episode(episode_id, phase, reason, kind=EpisodeErrorKind.TRANSIENT)
            raise Ignore() from exc
        countdown = retry_countdown(retries)
        logger.warning("episode %s phase %s: %s; retry in %ss", episode_id, phase.label, exc, countdown)
        metrics.PHASE_RETRIES.labels(phase.label.lower()).inc()
        raise task.retry(exc=exc, countdown=countdown, max_retries=settings.MEMHQ_TASK_MAX_RETRIES) from exc
    except Exception as exc:  # a bug or bad data: retrying will not help
        logger.exception("episode %s phase %s failed", episode_id, phase.label)
        fail_episode(episode_id, phase, f"{type(exc).__name__}: {exc}", kind=EpisodeErrorKind.PERMANENT)
        raise Ignore() from exc
    if claim == Claim.BUSY and task.request.chain and task.request.retries < settings.MEMHQ_TASK_MAX_RETRIES:
        # Another task holds the phase, and it may be a copy without the rest of the chain (a task published
        # on its own): wait for it, then carry the chain on ("done"), or take the claim over once its lease
        # runs out. Past the retries, the sweep's stall rule restarts the episode.
        raise task.retry(
            countdown=retry_countdown(task.request.retries), max_retries=settings.MEMHQ_TASK_MAX_RETRIES
        )
    if claim in (Claim.GONE, Claim.BUSY):
        raise Ignore()  # stop this copy of the chain; the owner of the claim carries it on


@app.task(base=PhaseTask, name="ingestion.start")
def start(episode_id: str, from_phase: int = EpisodePhase.PERSIST) -> None:
    """Publish the episode's chain from ``from_phase``; /add sends only this small message."""
    build_chain(episode_id, from_phase).apply_async()


def _phase_task(phase: EpisodePhase) -> Task:
    def run(self: Task, episode_id: str) -> None:
        execute(self, episode_id, phase)

    run.__name__ = run.__qualname__ = phase.name.lower()
    run.__doc__ = f"Phase {int(phase)}, {phase.label}: ingestion/phases/{phase.name.lower()}.py."
    return app.task(bind=True, base=PhaseTask, name=task_name(phase))(run)


#: One task per phase of ``ingestion.phases.MODULES``, named by ``task_name``.
PHASE_TASKS: dict[EpisodePhase, Task] = {phase: _phase_task(phase) for phase in MODULES}


@app.task(name="ingestion.outbox_sweep", ignore_result=True)
def outbox_sweep() -> int:
    return sweeps.outbox_sweep()


@app.task(name="memhq.ping", ignore_result=False)
def ping(value: str) -> str:
    """A trivial task for health checks and the worker smoke test."""
    return value
