"""Queues per kind of work (config/queues.py): every task has a named queue, a plain worker consumes them all,
and hosts specialised by ``-Q`` (docs/deployment.md) each run only their kind: an episode waits at the first
embedding phase until an ``embed`` worker is there."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import redis
from django.conf import settings
from rest_framework.test import APIClient

from config import queues
from config.celery import app
from memhq.models import Episode, EpisodePhase
from tests.support.worker import celery_process, relay_process, worker_args, worker_env

WAIT_S = 60.0
QUIET_S = 3.0


def test_every_task_has_a_queue_a_plain_worker_consumes() -> None:
    consumed = {queue.name for queue in settings.CELERY_TASK_QUEUES}
    for name in [task for task in app.tasks if not task.startswith("celery.")]:
        route = settings.CELERY_TASK_ROUTES.get(name, {"queue": settings.CELERY_TASK_DEFAULT_QUEUE})
        assert route["queue"] in consumed, name
    assert settings.CELERY_TASK_ROUTES["ingestion.index"] == {"queue": "embed"}
    assert settings.CELERY_TASK_ROUTES["webhooks.deliver"] == {"queue": "webhooks"}


def test_llm_mode_sends_model_calls_to_a_queue_plain_workers_leave_alone() -> None:
    names = {"cheap": "celery", "embed": "embed", "llm": "llm", "webhooks": "webhooks", "sweeps": "sweeps"}
    routes = queues.routes(names, llm_mode=True)
    assert routes["ingestion.extract"] == routes["threads.compact"] == {"queue": "llm"}
    assert "llm" not in {queue.name for queue in queues.consumed(names, llm_mode=True)}
    shared = {**names, "llm": "celery"}  # MEMHQ_LLM_QUEUE="": the model calls share the cheap queue
    assert "celery" in {queue.name for queue in queues.consumed(shared, llm_mode=True)}


def _phase_done(episode_id: str) -> int:
    return int(Episode.objects.values_list("phase_done", flat=True).get(pk=episode_id))


def _wait_for(condition: Any, what: str) -> None:
    deadline = time.monotonic() + WAIT_S
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.2)


def test_a_host_per_kind_runs_only_its_queues(
    transactional_db: None, broker: redis.Redis, api: APIClient, tmp_path: Path
) -> None:
    env = worker_env()
    cheap_only = [*worker_args(), "-Q", "celery,sweeps,webhooks", "-n", "cheap@%h"]
    body = {"user_id": "q1", "messages": [{"role": "user", "content": "I moved to Utrecht in May."}]}
    with (
        relay_process(env, tmp_path / "relay.log"),
        celery_process(cheap_only, env, tmp_path / "cheap.log", ready="ready."),
    ):
        episode_id = api.post("/v1/memhq/add", body, format="json").json()["episode_id"]
        _wait_for(lambda: _phase_done(episode_id) >= EpisodePhase.ANCHOR_DATES, "the cheap host ran nothing")
        time.sleep(QUIET_S)
        assert _phase_done(episode_id) == EpisodePhase.ANCHOR_DATES, "a cheap-only host ran extract"
        assert broker.llen("embed") == 1
        embed = [*worker_args(), "-Q", "embed", "-n", "embed@%h"]
        with celery_process(embed, env, tmp_path / "embed.log", ready="ready."):
            _wait_for(
                lambda: Episode.objects.get(pk=episode_id).status == "completed", "the episode did not finish"
            )
