from __future__ import annotations

import time
from typing import Any

from rest_framework.test import APIClient

from ingestion.tasks import ping
from memhq.models import Episode

PAYLOAD = {"user_id": "u1", "messages": [{"role": "user", "content": "I live in Berlin."}]}
ENQUEUE_FAILURE_BUDGET_S = 5.0


def test_a_real_worker_process_runs_a_task_from_the_real_broker(celery_worker_process: Any) -> None:
    result = ping.delay("pong")
    assert result.get(timeout=30) == "pong"


def test_add_succeeds_and_records_the_missed_enqueue_when_the_broker_is_down(
    api: APIClient, broker_down: None, django_capture_on_commit_callbacks: Any
) -> None:
    started = time.monotonic()
    with django_capture_on_commit_callbacks(execute=True):
        response = api.post("/v1/memhq/add", PAYLOAD, format="json")
    elapsed = time.monotonic() - started
    assert response.status_code == 202
    episode = Episode.objects.get(pk=response.json()["episode_id"])
    assert episode.status == "queued"
    assert episode.enqueue_failed_at is not None
    assert elapsed < ENQUEUE_FAILURE_BUDGET_S
    detail = api.get(f"/v1/memhq/episodes/{episode.pk}").json()
    assert detail["enqueued"] is False


def test_add_enqueues_the_chain_after_commit(
    api: APIClient, broker: Any, django_capture_on_commit_callbacks: Any
) -> None:
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        response = api.post("/v1/memhq/add", PAYLOAD, format="json")
    assert broker.llen("celery") == 0  # nothing published before commit
    for callback in callbacks:
        callback()
    assert broker.llen("celery") == 1
    assert Episode.objects.get(pk=response.json()["episode_id"]).enqueue_failed_at is None
