"""The whole chain through a real worker process and the real broker."""

from __future__ import annotations

import signal
import time
from pathlib import Path
from typing import Any

import pytest
from rest_framework.test import APIClient

from ingestion.sweeps import outbox_sweep
from memhq.models import Candidate, Episode, EpisodePhase, Evidence, Memory, WebhookEvent
from tests.support.worker import celery_process, stop, worker_args, worker_env

COMPLETION_TIMEOUT_S = 90.0
STALL_TIMEOUT_S = 2


def add(api: APIClient, content: str, **extra: Any) -> str:
    payload = {"user_id": "alice", "messages": [{"role": "user", "content": content, "id": "m1"}], **extra}
    response = api.post("/v1/memhq/add", payload, format="json")
    assert response.status_code == 202, response.content
    return str(response.json()["episode_id"])


def wait_for(episode_id: str, status: str = "completed", timeout_s: float = COMPLETION_TIMEOUT_S) -> Episode:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        episode = Episode.objects.get(pk=episode_id)
        if episode.status == status:
            return episode
        if episode.status == "failed":
            pytest.fail(f"episode failed in phase {episode.error_phase}: {episode.error}")
        time.sleep(0.1)
    pytest.fail(
        f"episode {episode_id} not {status} after {timeout_s}s: {Episode.objects.get(pk=episode_id).__dict__}"
    )


def test_add_becomes_memories_with_history_through_a_real_worker(
    api: APIClient, celery_worker_process: Any
) -> None:
    first = wait_for(add(api, "I live in Berlin.", timestamp="2023-01-10T10:00:00Z"))
    assert first.phase_done == EpisodePhase.NOTIFY
    assert set(first.stats["timings_ms"]) == {
        "persist",
        "anchor dates",
        "extract",
        "resolve entities",
        "reconcile",
        "index",
        "notify",
    }
    second = wait_for(add(api, "I moved to Lisbon last month.", timestamp="2023-05-08T10:00:00Z"))
    lisbon = Memory.objects.get(user_id="alice", object_value="Lisbon")
    berlin = Memory.objects.get(user_id="alice", object_value="Berlin")
    assert lisbon.status == "active"
    assert lisbon.valid_from.date().isoformat() == "2023-04-01"  # "last month", anchored
    assert berlin.status == "superseded"
    assert berlin.valid_until == lisbon.valid_from
    assert berlin.superseded_by_id == lisbon.pk
    assert lisbon.indexed_at is not None and lisbon.embedding is not None
    assert Evidence.objects.get(memory=lisbon).caller_message_ids == ["m1"]
    assert Candidate.objects.get(episode=second).decision == "supersede"
    events = set(
        WebhookEvent.objects.filter(payload__episode_id=str(second.pk)).values_list("type", flat=True)
    )
    assert events == {"episode.completed", "memories.changed"}


def wait_with_sweeps(episode_id: str) -> Episode:
    """Wait for completion, running the outbox sweep every second as beat would."""
    deadline = time.monotonic() + COMPLETION_TIMEOUT_S
    while time.monotonic() < deadline:
        outbox_sweep()
        try:
            return wait_for(episode_id, timeout_s=1.0)
        except pytest.fail.Exception:
            continue
    pytest.fail(f"episode {episode_id} did not complete")


def test_a_worker_killed_mid_chain_is_replaced_and_the_episode_completes_once(
    api: APIClient, celery_worker_process: Any, tmp_path: Path, settings: Any
) -> None:
    # A fresh worker so the kill can land while the first extract loads its models.
    stop(celery_worker_process)
    settings.MEMHQ_STALL_TIMEOUT_S = STALL_TIMEOUT_S
    env = worker_env(MEMHQ_STALL_TIMEOUT_S=str(STALL_TIMEOUT_S))
    with celery_process(worker_args(), env, tmp_path / "w1.log", ready="ready.") as worker:
        episode_id = add(api, "My sister Emma lives in Porto. I love climbing.")
        deadline = time.monotonic() + COMPLETION_TIMEOUT_S
        while Episode.objects.get(pk=episode_id).phase_done < EpisodePhase.PERSIST:
            assert time.monotonic() < deadline
            time.sleep(0.005)
        stop(worker, sig=signal.SIGKILL)
    killed_at = Episode.objects.get(pk=episode_id)
    assert killed_at.status != "completed", "the kill came too late to test anything"
    with celery_process(worker_args(), env, tmp_path / "w2.log", ready="ready."):
        episode = wait_with_sweeps(episode_id)
    assert episode.phase_done == EpisodePhase.NOTIFY
    claims = list(Candidate.objects.filter(episode=episode).values_list("claim", flat=True))
    assert len(claims) == len(set(claims)) > 0
    assert Memory.objects.filter(user_id="alice").count() == len(claims)
    assert WebhookEvent.objects.filter(type="episode.completed", payload__episode_id=episode_id).count() == 1
