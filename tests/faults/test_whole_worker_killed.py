"""The whole worker (its main process and pool children) killed with -9 under 50 episodes, then started
again: what it held is unacknowledged in the broker until the visibility timeout, so the claims' leases and
the outbox sweep (run here as beat runs it) bring those episodes back. Every episode completes, exactly once.
"""

from __future__ import annotations

import os
import signal
import time
from collections import Counter
from pathlib import Path
from typing import Any

from django.test import override_settings
from rest_framework.test import APIClient

from ingestion.sweeps import outbox_sweep
from memhq.models import Episode, EpisodePhase, Memory, WebhookEvent
from tests.support.worker import relay_process, slow_worker_process, worker_env

EPISODES = 50
USERS = 5
KILL_AFTER_COMPLETED = 10
LEASE_S = 3  # the killed worker's claims expire this soon (default 30 s)
STALL_S = 10  # and a lost hop between phases is re-published this soon (default 300 s)
SWEEP_EVERY_S = 2.0
TIMEOUT_S = 150.0


def payload(n: int) -> dict[str, Any]:
    return {
        "user_id": f"w{n % USERS}",
        "messages": [{"role": "user", "content": f"I work at a bakery in Ghent. My locker is number {n}."}],
    }


def completed(ids: list[str]) -> int:
    return Episode.objects.filter(pk__in=ids, status="completed").count()


def left(ids: list[str]) -> list[tuple[str, int, int | None]]:
    """(status, phase done, phase running) of the episodes not completed."""
    pending = Episode.objects.filter(pk__in=ids).exclude(status="completed")
    return list(pending.values_list("status", "phase_done", "phase_running"))


def test_a_worker_killed_whole_under_load_loses_and_duplicates_nothing(
    transactional_db: None, api: APIClient, tmp_path: Path
) -> None:
    env = worker_env(MEMHQ_CLAIM_LEASE_S=str(LEASE_S), MEMHQ_STALL_TIMEOUT_S=str(STALL_S))
    slow: dict[int, float] = {EpisodePhase.RECONCILE: 0.3}  # several episodes in flight at the kill
    with relay_process(env, tmp_path / "relay.log"):
        with slow_worker_process(slow, env, tmp_path / "first.log", concurrency=2, as_deployed=True) as first:
            ids = [
                api.post("/v1/memhq/add", payload(n), format="json").json()["episode_id"]
                for n in range(EPISODES)
            ]
            deadline = time.monotonic() + TIMEOUT_S
            while completed(ids) < KILL_AFTER_COMPLETED:
                assert time.monotonic() < deadline, "the first worker completed too little"
                time.sleep(0.1)
            in_flight = Episode.objects.filter(pk__in=ids, phase_running__isnull=False).count()
            os.killpg(first.pid, signal.SIGKILL)
            first.wait()
        killed_with = completed(ids)
        with (
            slow_worker_process({}, env, tmp_path / "second.log", concurrency=2, as_deployed=True),
            override_settings(MEMHQ_STALL_TIMEOUT_S=STALL_S),
        ):
            while completed(ids) < EPISODES:
                assert time.monotonic() < deadline, f"{completed(ids)}/{EPISODES} completed: {left(ids)}"
                outbox_sweep()
                time.sleep(SWEEP_EVERY_S)
    print(f"killed with {killed_with} completed and {in_flight} in a phase; all {EPISODES} completed")
    events = Counter(
        WebhookEvent.objects.filter(type="episode.completed").values_list("payload__episode_id", flat=True)
    )
    assert set(events) == set(ids) and set(events.values()) == {1}, "an episode completed twice"
    active = Counter(Memory.objects.filter(status="active").values_list("user_id", "text"))
    assert max(active.values()) == 1, "a memory was stored twice"
