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
SLOW_PHASE_TIMEOUT_S = 60.0
SWEEP_EVERY_S = 5.0
# The rounds' sweeps rescue only what waited this long: a message the killed Redis lost, not the backlog of
# a busy worker (re-requesting that would flood the queue with duplicates).
ROUND_STALL_S = 20
FINAL_STALL_S = 5


def payload(n: int) -> dict[str, Any]:
    return {
        "user_id": f"u{n % 3}",
        "messages": [{"role": "user", "content": f"I live in Oslo. I own {n} bikes."}],
    }


def wait_for_the_slow_phase(ids: list[str], broker_url: str, round_: int, log: Path, relay_log: Path) -> None:
    """Until an episode is in the slow phase (so the kill finds tasks running and prefetched). Every
    SWEEP_EVERY_S the outbox sweep runs, as beat runs it in a deployment: if the relay or the broker lost a
    message, the sweep re-publishes it."""
    started = time.monotonic()
    next_sweep = started + SWEEP_EVERY_S
    while not Episode.objects.filter(pk__in=ids, phase_running=EpisodePhase.EXTRACT).exists():
        now = time.monotonic()
        if now - started > SLOW_PHASE_TIMEOUT_S:
            states = list(
                Episode.objects.filter(pk__in=ids[-EPISODES_PER_ROUND:]).values_list(
                    "status", "phase_done", "phase_running", "publish_from"
                )
            )
            raise AssertionError(
                f"nothing reached the slow phase in round {round_}; this round's episodes {states}\n"
                f"worker:\n{log.read_text()[-6000:]}\nrelay:\n{relay_log.read_text()[-3000:]}"
            )
        if now > next_sweep:
            with celery_pointed_at(broker_url):
                outbox_sweep()
            next_sweep = now + SWEEP_EVERY_S
        time.sleep(0.02)


def test_the_worker_survives_five_broker_restarts_under_load_and_every_episode_completes(
    transactional_db: None, api: APIClient, tmp_path: Path, settings: Any, record_property: Any
) -> None:
    record_property("trials", RESTARTS)
    log = tmp_path / "worker.log"
    with redis_server(tmp_path / "redis") as server:
        env = worker_env(REDIS_URL=server.url, MEMHQ_RELAY_BACKOFF_MAX_S="0.5", MEMHQ_STALL_TIMEOUT_S="5")
        settings.MEMHQ_STALL_TIMEOUT_S = ROUND_STALL_S  # for the sweeps this test runs (beat's job)
        settings.MEMHQ_QUEUED_GRACE_S = ROUND_STALL_S
        relay_log = tmp_path / "relay.log"
        with (
            relay_process(env, relay_log),
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
                wait_for_the_slow_phase(ids, server.url, round_, log, relay_log)
                server.kill()  # tasks running and prefetched: unacknowledged messages in flight
                time.sleep(DOWN_S)
                assert worker.poll() is None, f"worker died in round {round_}:\n{log.read_text()[-4000:]}"
                server.start()
                time.sleep(DOWN_S)
                assert worker.poll() is None, f"worker died in round {round_}:\n{log.read_text()[-4000:]}"
            # The outbox sweep (beat's job) rescues what the killed Redis lost with it.
            settings.MEMHQ_STALL_TIMEOUT_S = FINAL_STALL_S
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
