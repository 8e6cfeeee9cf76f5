"""An episode's seven phases in chain order, for the admin's timeline: start, duration, outcome, tries.

Built from the completion record (``Episode.stats``, written by ``ingestion.runner``): ``timings_ms`` (how
long the successful run took), ``started_at`` (when its claim was taken) and ``attempts_at`` (the episode's
claim count when the phase finished; a phase's tries are the difference from the previous phase). A phase
that failed shows the error; tries beyond the first are retries (a transient error, a lost worker).
Episodes processed before these keys existed show durations only.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from memhq.models import Episode, EpisodePhase, EpisodeStatus

DONE = "done"
FAILED = "failed"
RUNNING = "running"
PENDING = "pending"


@dataclass(frozen=True)
class PhaseRow:
    phase: EpisodePhase
    outcome: str
    started_at: datetime | None
    duration_ms: float | None
    tries: int | None
    error: str = ""

    @property
    def name(self) -> str:
        return self.phase.label.lower()

    @property
    def retries(self) -> int:
        return max(0, (self.tries or 1) - 1)


def _outcome(episode: Episode, phase: EpisodePhase) -> str:
    if phase <= episode.phase_done:
        return DONE
    if episode.status == EpisodeStatus.FAILED and episode.error_phase == phase:
        return FAILED
    if episode.phase_running == phase:
        return RUNNING
    return PENDING


def episode_timeline(episode: Episode) -> list[PhaseRow]:
    stats = episode.stats if isinstance(episode.stats, dict) else {}
    timings = stats.get("timings_ms") or {}
    starts = stats.get("started_at") or {}
    attempts_at = stats.get("attempts_at") or {}
    rows: list[PhaseRow] = []
    claims_before = 0
    for phase in EpisodePhase:
        name = phase.label.lower()
        outcome = _outcome(episode, phase)
        tries: int | None = None
        if name in attempts_at:
            tries = int(attempts_at[name]) - claims_before
            claims_before = int(attempts_at[name])
        elif outcome in (FAILED, RUNNING) and (attempts_at or episode.phase_done == 0):
            tries = episode.attempts - claims_before
        started = starts.get(name)
        rows.append(
            PhaseRow(
                phase=phase,
                outcome=outcome,
                started_at=datetime.fromisoformat(started) if started else None,
                duration_ms=timings.get(name),
                tries=tries,
                error=episode.error if outcome == FAILED else "",
            )
        )
    return rows
