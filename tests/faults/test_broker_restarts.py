"""Redis killed and restarted under a busy worker started with the Procfile's flags, five times: the worker
rides every restart out (no "Unrecoverable error", no consumer step failing to restart), and every episode
completes exactly once."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from rest_framework.test import APIClient

from ingestion.sweeps import outbox_sweep
from memhq.models import Episode, EpisodePhase, WebhookEvent
from tests.support.redis_server import celery_pointed_at, redis_server
from tests.support.worker import relay_process, slow_worker_process, worker_env

RESTARTS = 5
EPISODES_PER_ROUND = 8
DOWN_S = 1.5
COMPLETION_TIMEOUT_S = 120.0


def payload(n: int) -> dict[str, Any]:
    return {
        "user_id": f"u{n % 3}",
        "messages": [{"role": "user", "content": f"I live in Oslo. I own {n} bikes."}],
    }


def test_the_worker_survives_five_broker_restarts_under_load_and_every_episode_completes(
    transactional_db: None, api: APIClient, tmp_path: Path, settings: Any, record_property: Any
) -> None:
    record_property("trials", RESTARTS)
    log = tmp_path / "worker.log"
    with redis_server(tmp_path / "redis") as server:
        env = worker_env(REDIS_URL=server.url, MEMHQ_RELAY_BACKOFF_MAX_S="0.5", MEMHQ_STALL_TIMEOUT_S="5")
        with (
            relay_process(env, tmp_path / "relay.log"),
            slow_worker_process(
                {EpisodePhase.EXTRACT: 0.5, EpisodePhase.RECONCILE: 0.3},
                env,
                log,
                concurrency=2,
                as_deployed=True,
            ) as worker,
        ):
            ids: list[str] = []
            for round_ in range(RESTARTS):
                for n in range(EPISODES_PER_ROUND):
                    response = api.post("/v1/memhq/add", payload(round_ * 10 + n), format="json")
                    ids.append(response.json()["episode_id"])
                deadline = time.monotonic() + 30
                while not Episode.objects.filter(pk__in=ids, phase_running=EpisodePhase.EXTRACT).exists():
                    assert time.monotonic() < deadline, "nothing reached the slow phase"
                    time.sleep(0.02)
                server.kill()  # tasks running and prefetched: unacknowledged messages in flight
                time.sleep(DOWN_S)
                assert worker.poll() is None, f"worker died in round {round_}:\n{log.read_text()[-4000:]}"
                server.start()
                time.sleep(DOWN_S)
                assert worker.poll() is None, f"worker died in round {round_}:\n{log.read_text()[-4000:]}"
            # The outbox sweep (beat's job) rescues what the killed Redis lost with it.
            settings.MEMHQ_STALL_TIMEOUT_S = 5
            deadline = time.monotonic() + COMPLETION_TIMEOUT_S
            with celery_pointed_at(server.url):
                while Episode.objects.filter(pk__in=ids, status="completed").count() < len(ids):
                    assert time.monotonic() < deadline, list(
                        Episode.objects.filter(pk__in=ids).values_list(
                            "status", "phase_done", "phase_running"
                        )
                    )
                    outbox_sweep()
                    time.sleep(1)
            assert worker.poll() is None
    text = log.read_text()
    assert "Unrecoverable error" not in text and "Error on restarting" not in text, text[-4000:]
    assert WebhookEvent.objects.filter(type="episode.completed").count() == len(ids)
