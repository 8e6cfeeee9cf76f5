"""A pool child killed mid-phase: Celery redelivers its task at once (acks_late + reject_on_worker_lost) and
the new copy takes the dead child's claim over at once (ingestion/claims.py), at default settings: no wait
for the stall timeout or the lease, no sweep. The episode completes exactly once."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path
from typing import Any

import pytest
from rest_framework.test import APIClient

from memhq.models import Candidate, Episode, EpisodePhase, Memory, WebhookEvent
from tests.support.worker import relay_process, slow_worker_process, worker_env

PAYLOAD = {"user_id": "alice", "messages": [{"role": "user", "content": "My sister Emma lives in Porto."}]}
RECOVERY_BUDGET_S = 10.0
PHASE_DELAY_S = 2.0
TIMEOUT_S = 90.0


def wait_for(predicate: Any, timeout_s: float, what: str) -> Episode:
    deadline = time.monotonic() + timeout_s
    while True:
        episode = Episode.objects.get()
        if predicate(episode):
            return episode
        if time.monotonic() > deadline:
            pytest.fail(f"{what}: {episode.__dict__}")
        time.sleep(0.02)


@pytest.mark.parametrize("phase", [EpisodePhase.EXTRACT, EpisodePhase.RECONCILE])
def test_a_child_killed_mid_phase_is_recovered_at_once_and_the_episode_completes_once(
    transactional_db: None, api: APIClient, tmp_path: Path, phase: EpisodePhase
) -> None:
    env = worker_env()
    with (
        relay_process(env, tmp_path / "relay.log"),
        slow_worker_process({phase: PHASE_DELAY_S}, env, tmp_path / "worker.log"),
    ):
        assert api.post("/v1/memhq/add", PAYLOAD, format="json").status_code == 202
        running = wait_for(
            lambda e: e.phase_running == phase and e.claim_pid, TIMEOUT_S, "never ran the phase"
        )
        killed = running.claim_pid
        assert killed is not None and killed != os.getpid()
        os.kill(killed, signal.SIGKILL)
        killed_at = time.monotonic()
        wait_for(
            lambda e: e.phase_done >= phase or (e.phase_running == phase and e.claim_pid != killed),
            RECOVERY_BUDGET_S,
            "the redelivered task did not take the dead child's claim over",
        )
        recovery_s = time.monotonic() - killed_at
        print(f"phase {phase.label}: claim taken over {recovery_s:.2f}s after the kill")
        episode = wait_for(lambda e: e.status == "completed", TIMEOUT_S, "did not complete")
    assert episode.attempts >= 8  # the killed attempt and the seven that finished
    claims = list(Candidate.objects.filter(episode=episode).values_list("claim", flat=True))
    assert len(claims) == len(set(claims)) > 0
    assert Memory.objects.filter(user_id="alice").count() == len(claims)
    assert WebhookEvent.objects.filter(type="episode.completed").count() == 1
