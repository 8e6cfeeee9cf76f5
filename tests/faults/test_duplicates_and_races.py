"""Every phase task delivered twice, and 50 episodes racing to name one new entity, on a real worker pool:
each episode completes exactly once, the entity exists once with every mention counted, no memory is stored
twice, and a third copy of every phase task after completion changes nothing.

The copies go through the real broker: one set published with the episode (arriving while its chain runs,
or before its phase is due), one set after every episode completed (a late redelivery)."""

from __future__ import annotations

import time
from collections import Counter
from pathlib import Path
from typing import Any

from rest_framework.test import APIClient

from config.celery import app
from ingestion.phases import MODULES, task_name
from memhq.models import Candidate, Entity, Episode, Memory, WebhookEvent
from tests.support.worker import celery_process, procfile_worker_flags, relay_process, worker_env

EPISODES = 50
TIMEOUT_S = 240.0
FACTS = ("plays the cello", "grows tomatoes", "collects stamps", "runs marathons", "bakes sourdough")


def payload(n: int) -> dict[str, Any]:
    fact = FACTS[n % len(FACTS)]
    return {"user_id": "racer", "messages": [{"role": "user", "content": f"My friend Oskar {fact}."}]}


def publish_every_phase(ids: list[str]) -> None:
    for episode_id in ids:
        for phase in MODULES:
            app.send_task(task_name(phase), args=[episode_id], ignore_result=True)


def wait_completed(ids: list[str]) -> None:
    deadline = time.monotonic() + TIMEOUT_S
    while Episode.objects.filter(pk__in=ids, status="completed").count() < len(ids):
        pending = Episode.objects.filter(pk__in=ids).exclude(status="completed")
        assert time.monotonic() < deadline, list(pending.values_list("status", "phase_done")[:5])
        time.sleep(0.3)


def snapshot() -> tuple[int, int, int, Counter[str]]:
    events = Counter(
        WebhookEvent.objects.filter(type="episode.completed").values_list("payload__episode_id", flat=True)
    )
    return Memory.objects.count(), Candidate.objects.count(), Entity.objects.count(), events


def test_duplicated_phase_tasks_and_racing_episodes_store_everything_once(
    transactional_db: None, api: APIClient, tmp_path: Path, record_property: Any
) -> None:
    env = worker_env()
    with (
        relay_process(env, tmp_path / "relay.log"),
        celery_process(procfile_worker_flags(2), env, tmp_path / "worker.log", ready="ready."),
    ):
        ids = [
            api.post("/v1/memhq/add", payload(n), format="json").json()["episode_id"] for n in range(EPISODES)
        ]
        publish_every_phase(ids)  # a second copy of every phase task, racing the chains
        wait_completed(ids)
        before = snapshot()
        publish_every_phase(ids)  # a third copy, after completion
        time.sleep(3)
        wait_completed(ids)
        after = snapshot()
    record_property("trials", EPISODES * len(MODULES) * 2)
    events = before[3]
    assert set(events) == set(ids) and set(events.values()) == {1}, "an episode completed twice (or never)"
    assert after == before, f"late copies changed something: {before[:3]} -> {after[:3]}"
    oskar = Entity.objects.filter(normalized_name="oskar")
    assert oskar.count() == 1, list(oskar.values_list("name", "type"))
    assert oskar.get().mention_count == EPISODES
    memories = Counter(Memory.objects.filter(status="active").values_list("text", flat=True))
    # ten episodes say each fact: one memory per fact, reinforced, never a second copy
    assert set(memories.values()) == {1}, memories
    assert all(any(fact in text for text in memories) for fact in FACTS), memories
