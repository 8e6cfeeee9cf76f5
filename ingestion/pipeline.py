"""Builds and enqueues the seven-phase chain of an episode."""

from __future__ import annotations

import uuid

from celery import chain
from celery.canvas import Signature

from config.celery import app as celery_app
from config.celery import publish
from memhq.models import EpisodePhase


def phase_signatures(episode_id: str, from_phase: int = EpisodePhase.PERSIST) -> list[Signature]:
    """The chain's hops from ``from_phase``, by task name (this module never imports the tasks)."""
    from ingestion.phases import MODULES, task_name

    return [
        celery_app.signature(task_name(phase), args=(episode_id,), immutable=True)
        for phase in MODULES
        if phase >= from_phase
    ]


def build_chain(episode_id: str, from_phase: int = EpisodePhase.PERSIST) -> chain:
    return chain(*phase_signatures(episode_id, from_phase))


START_TASK = "ingestion.start"


def publish_start(episode_id: uuid.UUID | str, from_phase: int = EpisodePhase.PERSIST) -> None:
    """Publish one small ``ingestion.start`` message (by name: the relay never imports the phases); the
    worker that takes it publishes the chain. Raises when the broker is unreachable.

    Only the outbox relay calls this (ingestion/outbox.py): a request never talks to the broker.
    """
    publish(START_TASK, str(episode_id), int(from_phase))


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
