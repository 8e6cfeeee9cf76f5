"""Builds and enqueues the seven-phase chain of an episode."""

from __future__ import annotations

import logging
import uuid

from celery import Task, chain
from celery.canvas import Signature
from django.utils import timezone

from config.celery import app as celery_app
from memhq.models import Episode, EpisodePhase

logger = logging.getLogger(__name__)


def phase_tasks() -> list[Task]:
    """The seven phase tasks, in order."""
    from ingestion import tasks

    return [
        tasks.persist,
        tasks.anchor_dates,
        tasks.extract,
        tasks.resolve_entities,
        tasks.reconcile,
        tasks.index,
        tasks.notify,
    ]


def phase_signatures(episode_id: str, from_phase: int = EpisodePhase.PERSIST) -> list[Signature]:
    return [task.si(episode_id) for task in phase_tasks()[from_phase - 1 :]]


def build_chain(episode_id: str, from_phase: int = EpisodePhase.PERSIST) -> chain:
    return chain(*phase_signatures(episode_id, from_phase))


START_TASK = "ingestion.start"


def enqueue_episode(episode_id: uuid.UUID | str, from_phase: int = EpisodePhase.PERSIST) -> bool:
    """Publish one small ``ingestion.start`` message (by name: the web process never imports the phases);
    the worker that takes it publishes the chain. When the broker is unreachable, record it on the episode
    for the outbox sweep.

    Never raises: the episode is already stored, and the sweep re-enqueues what could not be published.
    """
    try:
        celery_app.send_task(START_TASK, args=[str(episode_id), int(from_phase)])
    except Exception:  # kombu/redis raise many types; whatever it is, the sweep will retry
        logger.warning("could not enqueue episode %s; the outbox sweep will retry", episode_id, exc_info=True)
        Episode.objects.filter(pk=episode_id).update(enqueue_failed_at=timezone.now())
        return False
    return True


def run_inline(episode_id: uuid.UUID | str) -> None:
    """Run every remaining phase in this process, in order, through the same claim/record protocol.

    For commands that ingest in bulk (the eval command) and for tests; the service itself always goes
    through the broker.
    """
    from ingestion.phases import MODULES
    from ingestion.runner import Claim, run_phase

    for phase, module in MODULES.items():
        if run_phase(str(episode_id), phase, module) in (Claim.GONE, Claim.BUSY):
            return
