"""The outbox relay: /add only commits; the relay, woken by NOTIFY on commit, publishes; the sweep is the
safety net when the relay is away; the broker being down delays publication and loses nothing."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
import redis
from django.db import connection
from django.utils import timezone
from rest_framework.test import APIClient

from ingestion.outbox import drain
from ingestion.relay import Relay
from ingestion.sweeps import outbox_sweep
from ingestion.tasks import PHASE_TASKS
from memhq.models import Episode, EpisodePhase, Project
from tests.ingestion.helpers import make_episode

PAYLOAD = {"user_id": "u1", "messages": [{"role": "user", "content": "I live in Oslo."}]}
WAKE_BUDGET_S = 2.0
MESSAGES = [{"role": "user", "content": "I live in Oslo."}]


@pytest.fixture
def relay(transactional_db: None, settings: Any) -> Iterator[Relay]:
    settings.MEMHQ_RELAY_POLL_S = 60.0  # only a NOTIFY can wake it within the tests' budgets
    settings.MEMHQ_RELAY_BACKOFF_MAX_S = 0.2
    relay = Relay()

    def run() -> None:
        try:
            relay.run()
        finally:
            connection.close()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    assert relay.listening.wait(10)
    yield relay
    relay.stop.set()
    thread.join(10)


def wait_until(predicate: Any, budget_s: float) -> float:
    started = time.monotonic()
    while not predicate():
        assert time.monotonic() - started < budget_s, "not within budget"
        time.sleep(0.01)
    return time.monotonic() - started


def test_the_relay_publishes_an_episode_as_soon_as_it_commits(
    relay: Relay, api: APIClient, broker: redis.Redis
) -> None:
    response = api.post("/v1/memhq/add", PAYLOAD, format="json")
    assert response.status_code == 202
    episode_id = response.json()["episode_id"]
    wait_until(lambda: Episode.objects.get(pk=episode_id).publish_from is None, WAKE_BUDGET_S)
    assert broker.llen("celery") == 1


def test_a_re_enqueue_wakes_the_relay_too(relay: Relay, project: Project, broker: redis.Redis) -> None:
    episode = make_episode(project, MESSAGES)
    wait_until(lambda: broker.llen("celery") == 1, WAKE_BUDGET_S)
    Episode.objects.filter(pk=episode.pk).update(publish_from=3)
    wait_until(lambda: broker.llen("celery") == 2, WAKE_BUDGET_S)


def test_while_the_broker_is_down_episodes_stay_pending_and_are_published_when_it_returns(
    relay: Relay, api: APIClient, broker: redis.Redis, broker_down: Any
) -> None:
    started = time.monotonic()
    ids = [api.post("/v1/memhq/add", PAYLOAD, format="json").json()["episode_id"] for _ in range(5)]
    assert time.monotonic() - started < 5 * 0.5
    time.sleep(0.5)
    assert Episode.objects.filter(pk__in=ids, publish_from=1).count() == 5
    broker_down()  # back
    wait_until(lambda: not Episode.objects.filter(pk__in=ids, publish_from__isnull=False).exists(), 5.0)
    assert broker.llen("celery") == 5


def test_the_sweep_publishes_what_the_relay_left_pending_past_the_grace(
    project: Project, broker: redis.Redis, settings: Any
) -> None:
    settings.MEMHQ_QUEUED_GRACE_S = 30
    old = make_episode(project, MESSAGES)
    Episode.objects.filter(pk=old.pk).update(received_at=timezone.now() - timedelta(minutes=1))
    fresh = make_episode(project, MESSAGES)
    assert outbox_sweep() == 1
    assert broker.llen("celery") == 1
    assert Episode.objects.get(pk=old.pk).publish_from is None
    assert Episode.objects.get(pk=fresh.pk).publish_from == 1  # the relay's, not yet the sweep's


def test_the_sweep_asks_for_a_stalled_episode_again_from_its_next_phase(
    project: Project, broker: redis.Redis, settings: Any
) -> None:
    settings.MEMHQ_STALL_TIMEOUT_S = 60
    episode = make_episode(project, MESSAGES)
    Episode.objects.filter(pk=episode.pk).update(
        publish_from=None, phase_done=2, progressed_at=timezone.now() - timedelta(minutes=5)
    )
    outbox_sweep()
    assert Episode.objects.get(pk=episode.pk).publish_from == 3


def test_two_relays_draining_at_once_publish_each_episode_once(
    transactional_db: None, project: Project, broker: redis.Redis, settings: Any
) -> None:
    settings.MEMHQ_RELAY_BATCH = 20
    for _ in range(120):
        make_episode(project, MESSAGES)
    counts: list[int] = []

    def run() -> None:
        try:
            counts.append(drain())
        finally:
            connection.close()

    threads = [threading.Thread(target=run) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert sum(counts) == 120 == broker.llen("celery")
    assert not Episode.objects.filter(publish_from__isnull=False).exists()


def test_a_task_that_fails_after_its_phase_hands_the_chain_to_the_outbox(project: Project) -> None:
    extract = PHASE_TASKS[EpisodePhase.EXTRACT]
    episode = make_episode(project, MESSAGES)
    Episode.objects.filter(pk=episode.pk).update(publish_from=None, phase_done=3, status="running")
    # What Celery calls when publishing the next hop failed (the broker went away).
    extract.on_failure(ConnectionError("broker gone"), "task-id", (str(episode.pk),), {}, None)
    assert Episode.objects.get(pk=episode.pk).publish_from == 4


def test_a_failure_never_hands_over_an_episode_another_worker_is_running(project: Project) -> None:
    extract = PHASE_TASKS[EpisodePhase.EXTRACT]
    episode = make_episode(project, MESSAGES)
    Episode.objects.filter(pk=episode.pk).update(publish_from=None, phase_done=3, phase_running=4)
    extract.on_failure(ConnectionError("broker gone"), "task-id", (str(episode.pk),), {}, None)
    assert Episode.objects.get(pk=episode.pk).publish_from is None
