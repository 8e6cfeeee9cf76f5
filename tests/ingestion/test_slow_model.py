"""A slow local model on the defaults: one long call completes the episode, and is never started twice."""

from __future__ import annotations

import os
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from ingestion.sweeps import outbox_sweep, requeue_stalled
from memhq.models import Episode, EpisodePhase, Memory, Project
from tests.fakes import fixtures
from tests.fakes.openai_server import FakeOpenAIServer
from tests.ingestion.helpers import make_episode
from tests.ingestion.test_llm_mode import GOOD
from tests.support.worker import celery_process, relay_process, worker_args, worker_env

fake_openai = fixtures.fake_openai

OLD_DEFAULT_TIMEOUT_S = 60.0  # OPENAI_TIMEOUT_S before issue 16
SLOW_CALL_S = OLD_DEFAULT_TIMEOUT_S + 5
STALL_TIMEOUT_S = 2  # small, so a sweep would take the claim over many times during the slow call
COMPLETION_TIMEOUT_S = SLOW_CALL_S + 60
QUEUE_SLOW_CALL_S = 15.0  # long enough for the second episode's first phases to run meanwhile


def test_a_model_call_slower_than_the_old_timeout_completes_the_episode_in_one_call(
    api: APIClient,
    transactional_db: None,
    broker: Any,
    fake_openai: FakeOpenAIServer,
    settings: Any,
    tmp_path: Path,
) -> None:
    fake_openai.delay(SLOW_CALL_S, GOOD.model_dump_json())
    fake_openai.answer(GOOD)  # what a second (duplicate) call would get
    llm = {
        "MEMHQ_EXTRACTOR": "openai",
        "OPENAI_BASE_URL": fake_openai.base_url,
        "OPENAI_API_KEY": "test-key",
        "OPENAI_MODEL": "fake-model",
        "MEMHQ_STALL_TIMEOUT_S": str(STALL_TIMEOUT_S),
        "MEMHQ_LLM_QUEUE": "",  # one queue, so a duplicate extract could run beside the slow one
    }
    env = worker_env(**llm)
    env.pop("OPENAI_TIMEOUT_S", None)  # the default
    env.pop("MEMHQ_LLM_STALL_TIMEOUT_S", None)
    # This process runs the sweep as beat would, with the worker's settings.
    settings.MEMHQ_EXTRACTOR = "openai"
    settings.MEMHQ_STALL_TIMEOUT_S = STALL_TIMEOUT_S
    settings.MEMHQ_LLM_STALL_TIMEOUT_S = settings.OPENAI_TIMEOUT_S + STALL_TIMEOUT_S
    assert "OPENAI_TIMEOUT_S" not in os.environ and settings.OPENAI_TIMEOUT_S > SLOW_CALL_S
    # Two processes, so a duplicate extract task would run beside the slow one, not after it.
    with celery_process(worker_args(concurrency=2), env, tmp_path / "worker.log", ready="ready."):
        response = api.post(
            "/v1/memhq/add",
            {"user_id": "u1", "messages": [{"role": "user", "content": "I live in Porto."}]},
            format="json",
        )
        episode_id = response.json()["episode_id"]
        deadline = time.monotonic() + COMPLETION_TIMEOUT_S
        while (episode := Episode.objects.get(pk=episode_id)).status not in ("completed", "failed"):
            assert time.monotonic() < deadline, f"not done after {COMPLETION_TIMEOUT_S} s"
            outbox_sweep()
            time.sleep(1.0)
    assert episode.status == "completed", episode.error
    assert len(fake_openai.requests) == 1
    assert episode.stats["llm_calls"] == 1
    assert Memory.objects.get(project=episode.project).text == "User lives in Porto."


def test_a_slow_model_call_does_not_hold_up_another_episodes_cheap_phases(
    api: APIClient,
    transactional_db: None,
    broker: Any,
    fake_openai: FakeOpenAIServer,
    settings: Any,
    tmp_path: Path,
) -> None:
    fake_openai.delay(QUEUE_SLOW_CALL_S, GOOD.model_dump_json())
    fake_openai.answer(GOOD)
    env = worker_env(
        MEMHQ_EXTRACTOR="openai", OPENAI_BASE_URL=fake_openai.base_url, OPENAI_MODEL="fake-model"
    )
    settings.MEMHQ_EXTRACTOR = "openai"
    llm_worker = [*worker_args(concurrency=1), "-Q", "llm", "-n", "llm@%h"]
    with (
        celery_process(worker_args(concurrency=1), env, tmp_path / "worker.log", ready="ready."),
        celery_process(llm_worker, env, tmp_path / "worker-llm.log", ready="ready."),
        relay_process(env, tmp_path / "relay.log"),
    ):
        first = add(api, "I live in Porto.")
        wait_until(lambda: Episode.objects.get(pk=first).phase_running == EpisodePhase.EXTRACT)
        second = add(api, "I live in Porto too.")
        # The cheap phases of the second episode run while the first one's model call is still going.
        wait_until(lambda: Episode.objects.get(pk=second).phase_done >= EpisodePhase.ANCHOR_DATES)
        assert Episode.objects.get(pk=first).phase_running == EpisodePhase.EXTRACT
        for episode_id in (first, second):
            wait_until(lambda e=episode_id: Episode.objects.get(pk=e).status == "completed")
    assert len(fake_openai.requests) == 2


def add(api: APIClient, content: str) -> str:
    payload = {"user_id": "u1", "messages": [{"role": "user", "content": content}]}
    return str(api.post("/v1/memhq/add", payload, format="json").json()["episode_id"])


def wait_until(condition: Any, timeout_s: float = 90.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.1)


@pytest.mark.parametrize(
    ("extractor", "phase", "idle_s", "re_enqueued"),
    [
        ("openai", EpisodePhase.EXTRACT, 400, False),  # within one model call + the stall timeout
        ("openai", EpisodePhase.EXTRACT, 1000, True),
        ("openai", EpisodePhase.RECONCILE, 400, True),  # no model here
        ("rules", EpisodePhase.EXTRACT, 400, True),
    ],
)
def test_the_sweep_leaves_a_leaseless_claim_waiting_for_a_model_alone_for_one_whole_call(
    project: Project,
    broker: Any,
    settings: Any,
    extractor: str,
    phase: EpisodePhase,
    idle_s: float,
    re_enqueued: bool,
) -> None:
    settings.MEMHQ_EXTRACTOR = extractor
    settings.MEMHQ_STALL_TIMEOUT_S = 300
    settings.MEMHQ_LLM_STALL_TIMEOUT_S = 900  # the defaults: 600 s call + 300 s
    episode = make_episode(project, [{"role": "user", "content": "I live in Porto."}])
    Episode.objects.filter(pk=episode.pk).update(
        status="running",
        phase_done=phase - 1,
        phase_running=phase,
        progressed_at=timezone.now() - timedelta(seconds=idle_s),
        publish_from=None,  # its chain was published; the claim has no lease
    )
    assert requeue_stalled() == (1 if re_enqueued else 0)
    episode.refresh_from_db()
    assert (episode.publish_from is not None) == re_enqueued  # back in the outbox, for the relay


@pytest.mark.parametrize(("examples", "turns"), [(0, 2), (1, 4), (2, 6)])
def test_memhq_extract_examples_sets_how_many_worked_examples_the_prompt_carries(
    project: Project, fake_openai: FakeOpenAIServer, settings: Any, examples: int, turns: int
) -> None:
    from memhq.ai import provider
    from memhq.ai.llm import make_client
    from tests.ingestion.helpers import run_tasks

    settings.MEMHQ_EXTRACTOR = "openai"
    settings.OPENAI_BASE_URL = fake_openai.base_url
    settings.MEMHQ_EXTRACT_EXAMPLES = examples
    provider.get_extractor.cache_clear()
    make_client.cache_clear()
    try:
        fake_openai.answer(GOOD)
        episode = run_tasks(make_episode(project, [{"role": "user", "content": "I live in Porto."}]))
    finally:
        provider.get_extractor.cache_clear()
    assert episode.status == "completed"
    sent = fake_openai.requests[0].body["messages"]
    assert len(sent) == turns
    assert sent[-1]["content"].endswith("I live in Porto.")
