"""A phase task that finds its phase held by another task: a copy that carries the rest of the chain waits
for the holder (which may be a copy published on its own, with no chain to carry on) and goes on once the
phase is done; a copy without a chain stops."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import timedelta

import pytest
from celery.exceptions import Ignore, Retry
from django.conf import settings
from django.utils import timezone

from ingestion.tasks import PHASE_TASKS, execute
from memhq.models import Episode, EpisodePhase, EpisodeStatus, Project
from tests.ingestion.helpers import make_episode

PHASE = EpisodePhase.EXTRACT
REST_OF_CHAIN = [{"task": "ingestion.resolve_entities", "args": [], "kwargs": {}, "options": {}}]


@pytest.fixture
def busy(project: Project) -> str:
    """An episode whose extract phase another host's worker holds under a fresh lease."""
    episode = make_episode(project, [{"role": "user", "content": "I play the cello."}])
    now = timezone.now()
    Episode.objects.filter(pk=episode.pk).update(
        status=EpisodeStatus.RUNNING,
        phase_done=PHASE - 1,
        phase_running=PHASE,
        progressed_at=now,
        claim_host="another-host",
        claim_pid=4242,
        claim_expires_at=now + timedelta(minutes=5),
    )
    return str(episode.pk)


Push = Callable[..., None]


@pytest.fixture
def request_of() -> Iterator[Push]:
    task = PHASE_TASKS[PHASE]
    pushed = 0

    def push(**request: object) -> None:
        nonlocal pushed
        task.push_request(**request)
        pushed += 1

    yield push
    for _ in range(pushed):
        task.pop_request()


def test_a_chain_copy_waits_for_the_holder(busy: str, request_of: Push) -> None:
    request_of(chain=REST_OF_CHAIN, retries=0)
    with pytest.raises(Retry):
        execute(PHASE_TASKS[PHASE], busy, PHASE)
    assert Episode.objects.get(pk=busy).phase_running == PHASE  # the holder's claim is untouched


def test_a_copy_without_a_chain_stops(busy: str, request_of: Push) -> None:
    request_of(chain=None, retries=0)
    with pytest.raises(Ignore):
        execute(PHASE_TASKS[PHASE], busy, PHASE)


def test_past_its_retries_a_chain_copy_stops_and_leaves_it_to_the_sweep(busy: str, request_of: Push) -> None:
    request_of(chain=REST_OF_CHAIN, retries=settings.MEMHQ_TASK_MAX_RETRIES)
    with pytest.raises(Ignore):
        execute(PHASE_TASKS[PHASE], busy, PHASE)
