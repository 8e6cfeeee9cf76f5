"""``memhq_bench ingest``: the chain's own cost is read off each episode's completion record."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from memhq.models import Episode, Project
from tests.ingestion.helpers import make_episode
from tooling.bench import ingest

RECEIVED = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


def finished(project: Project, user_id: str, first_claim_ms: float, gap_ms: float, work_ms: float) -> Episode:
    """An episode whose phases each took ``work_ms``, the first claimed ``first_claim_ms`` after /add and
    each next one ``gap_ms`` after the one before ended."""
    episode = make_episode(project, [{"role": "user", "content": "I moved to Porto."}], user_id=user_id)
    started, timings, at = {}, {}, RECEIVED + timedelta(milliseconds=first_claim_ms)
    for phase in ingest.PHASES:
        started[phase], timings[phase] = at.isoformat(), work_ms
        at += timedelta(milliseconds=work_ms + gap_ms)
    completed = at - timedelta(milliseconds=gap_ms)
    Episode.objects.filter(pk=episode.pk).update(
        received_at=RECEIVED, completed_at=completed, stats={"started_at": started, "timings_ms": timings}
    )
    return episode


def test_the_chain_overhead_is_the_time_no_phase_spent_working(project: Project) -> None:
    finished(project, "lat-00", first_claim_ms=12, gap_ms=4, work_ms=10)
    finished(project, "lat-01", first_claim_ms=12, gap_ms=6, work_ms=20)
    finished(project, "tp-00", first_claim_ms=500, gap_ms=500, work_ms=10)  # another run's: not read
    hops = ingest.hops(project, "lat-")
    assert hops["episodes"] == 2
    assert hops["to_first_claim_ms_p50"] == 12.0
    assert hops["between_phases_ms_p50"] == 5.0  # six gaps of 4 ms and six of 6 ms
    assert hops["per_episode_ms_p50"] == 12 + 6 * 5  # the first claim and six gaps, per episode
    assert ingest.hops(project, "none-") == {"episodes": 0}
