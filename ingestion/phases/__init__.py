"""The seven phases, one module each, in chain order (DESIGN §3)."""

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
