"""A worker whose consumer stopped asking the broker for messages (as kombu's Redis transport sometimes does
after a broker restart) reconnects by itself and the episode completes; without the watchdog it waits for
ever. The wedge is the test worker's (``MEMHQ_TEST_WEDGE_AFTER``); the worker, relay and Redis are real."""

from __future__ import annotations

import time
from pathlib import Path

from rest_framework.test import APIClient

from memhq.models import Episode, EpisodePhase
from tests.support.redis_server import redis_server
from tests.support.worker import relay_process, slow_worker_process, worker_env

STALL_S = 2.0
WEDGE_AFTER = 3  # tasks received (start, persist, anchor dates): extract is never asked for
COMPLETION_TIMEOUT_S = 30.0
CONTROL_WAIT_S = 4 * STALL_S


def ingest_with_a_wedged_consumer(
    api: APIClient, tmp_path: Path, stall_s: float, wait_s: float
) -> tuple[Episode, str]:
    log = tmp_path / "worker.log"
    with redis_server(tmp_path / "redis") as server:
        env = worker_env(
            REDIS_URL=server.url, MEMHQ_CONSUMER_STALL_S=str(stall_s), MEMHQ_TEST_WEDGE_AFTER=str(WEDGE_AFTER)
        )
        with relay_process(env, tmp_path / "relay.log"), slow_worker_process({}, env, log):
            response = api.post(
                "/v1/memhq/add",
                {"user_id": "u1", "messages": [{"role": "user", "content": "I moved to Lisbon in May."}]},
                format="json",
            )
            episode = Episode.objects.get(pk=response.json()["episode_id"])
            deadline = time.monotonic() + wait_s
            while episode.status != "completed" and time.monotonic() < deadline:
                time.sleep(0.2)
                episode.refresh_from_db()
    return episode, log.read_text()


def test_a_wedged_consumer_reconnects_and_the_episode_completes(
    transactional_db: None, api: APIClient, tmp_path: Path
) -> None:
    episode, log = ingest_with_a_wedged_consumer(api, tmp_path, STALL_S, COMPLETION_TIMEOUT_S)
    assert episode.status == "completed", (episode.phase_done, log[-4000:])
    assert "consumer stalled: 1 message(s) waiting" in log
    assert "Unrecoverable error" not in log


def test_without_the_watchdog_the_wedged_consumer_leaves_the_episode_waiting(
    transactional_db: None, api: APIClient, tmp_path: Path
) -> None:
    episode, log = ingest_with_a_wedged_consumer(api, tmp_path, 0, CONTROL_WAIT_S)
    assert (episode.status, episode.phase_done) == ("running", EpisodePhase.ANCHOR_DATES), log[-4000:]
    assert "ingestion.extract[" not in log
    assert "consumer stalled" not in log
