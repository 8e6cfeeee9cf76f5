from __future__ import annotations

import time
from typing import Any

from rest_framework.test import APIClient

from ingestion.tasks import ping
from memhq.models import Episode

PAYLOAD = {"user_id": "u1", "messages": [{"role": "user", "content": "I live in Berlin."}]}
ADD_BUDGET_S = 1.0


def test_a_real_worker_process_runs_a_task_from_the_real_broker(celery_worker_process: Any) -> None:
    result = ping.delay("pong")
    assert result.get(timeout=30) == "pong"


def test_add_never_talks_to_the_broker_even_when_it_is_down(
    api: APIClient, broker_down: None, django_capture_on_commit_callbacks: Any
) -> None:
    # The budget is for a broker's connect-and-retry (seconds), not for the process's first request (URL
    # resolution, imports): one request first, then the timed one (a cold one took 1.03 s on a slow box).
    assert api.post("/v1/memhq/add", PAYLOAD, format="json").status_code == 202
    started = time.monotonic()
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        response = api.post("/v1/memhq/add", PAYLOAD, format="json")
    elapsed = time.monotonic() - started
    assert response.status_code == 202
    assert not callbacks  # nothing left to do after the commit: the row is the outbox entry
    episode = Episode.objects.get(pk=response.json()["episode_id"])
    assert (episode.status, episode.publish_from) == ("queued", 1)
    assert elapsed < ADD_BUDGET_S
    detail = api.get(f"/v1/memhq/episodes/{episode.pk}").json()
    assert detail["enqueued"] is False


def test_add_publishes_nothing_itself_the_relay_does(
    api: APIClient, broker: Any, django_capture_on_commit_callbacks: Any
) -> None:
    from ingestion.outbox import publish_pending

    with django_capture_on_commit_callbacks(execute=True):
        response = api.post("/v1/memhq/add", PAYLOAD, format="json")
    assert broker.llen("celery") == 0  # the request published nothing
    assert publish_pending() == 1
    assert broker.llen("celery") == 1
    assert Episode.objects.get(pk=response.json()["episode_id"]).publish_from is None
    assert api.get(f"/v1/memhq/episodes/{response.json()['episode_id']}").json()["enqueued"] is True
