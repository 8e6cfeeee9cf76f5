"""The seven phases, one module each, in chain order (DESIGN §3): the one list of them.

A phase is a member of ``EpisodePhase`` and a module here with ``compute`` and ``store``; its Celery task
(``ingestion.tasks``) and its place in the chain (``ingestion.pipeline``) follow from this mapping.
"""

from __future__ import annotations

from typing import Any

from ingestion.phases import anchor_dates, extract, index, notify, persist, reconcile, resolve_entities
from ingestion.runner import Phase
from memhq.models import EpisodePhase

MODULES: dict[EpisodePhase, Phase[Any]] = {
    EpisodePhase.PERSIST: persist,
    EpisodePhase.ANCHOR_DATES: anchor_dates,
    EpisodePhase.EXTRACT: extract,
    EpisodePhase.RESOLVE_ENTITIES: resolve_entities,
    EpisodePhase.RECONCILE: reconcile,
    EpisodePhase.INDEX: index,
    EpisodePhase.NOTIFY: notify,
}


def task_name(phase: EpisodePhase) -> str:
    """The phase's Celery task name (``ingestion.persist`` …): what the chain publishes by name."""
    return f"ingestion.{phase.name.lower()}"
