"""The pipeline with MEMHQ_EXTRACTOR=openai against a local fake OpenAI-compatible server (the real SDK)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from ingestion.prompts.extract import ExtractedCandidate, ExtractedMention, ExtractionAnswer
from memhq.ai import provider
from memhq.ai.llm import make_client
from memhq.models import Episode, EpisodeMessage, EpisodePhase, Memory, Project, WebhookEvent
from tests.fakes import fixtures
from tests.fakes.openai_server import FakeOpenAIServer
from tests.ingestion.helpers import make_episode, run_tasks

fake_openai = fixtures.fake_openai

GOOD = ExtractionAnswer(
    summary="The user said where they live.",
    key_learnings=["User lives in Porto."],
    candidates=[
        ExtractedCandidate(
            source_message_indexes=[0],
            span_text="I live in Porto",
            claim="User lives in Porto.",
            kind="fact",
            subject="user",
            predicate="lives_in",
            object="Porto",
            mentions=[ExtractedMention(name="Porto", type="location", role="object")],
            valid_from=None,
            confidence=0.9,
            importance=0.7,
        )
    ],
)


@pytest.fixture
def llm_mode(settings: Any, fake_openai: FakeOpenAIServer) -> Iterator[FakeOpenAIServer]:
    settings.MEMHQ_EXTRACTOR = "openai"
    settings.OPENAI_BASE_URL = fake_openai.base_url
    settings.OPENAI_API_KEY = "test-key"
    settings.OPENAI_MODEL = "fake-model"
    settings.OPENAI_TIMEOUT_S = 1.0
    settings.MEMHQ_TASK_MAX_RETRIES = 2
    provider.get_extractor.cache_clear()
    make_client.cache_clear()
    yield fake_openai
    provider.get_extractor.cache_clear()


def run_chain(episode: Episode) -> Episode:
    return run_tasks(episode)


def porto(project: Project) -> Episode:
    return make_episode(project, [{"role": "user", "content": "I live in Porto with my cat."}])


def test_a_good_answer_becomes_memories_and_the_call_is_recorded(
    project: Project, llm_mode: FakeOpenAIServer
) -> None:
    llm_mode.answer(GOOD, prompt_tokens=321, completion_tokens=45)
    episode = run_chain(porto(project))
    assert episode.status == "completed"
    assert episode.stats["llm_calls"] == 1
    assert (episode.stats["prompt_tokens"], episode.stats["completion_tokens"]) == (321, 45)
    assert Memory.objects.get(project=project).text == "User lives in Porto."
    assert episode.summary == "The user said where they live."
    request = llm_mode.requests[0]
    assert request.body["model"] == "fake-model"
    assert request.body["response_format"]["type"] == "json_schema"


def test_invalid_json_is_retried_then_fails_the_episode_with_phase_and_reason(
    project: Project, llm_mode: FakeOpenAIServer
) -> None:
    for _ in range(3):
        llm_mode.answer_invalid_json()
    episode = run_chain(porto(project))
    assert episode.status == "failed"
    assert episode.error_phase == EpisodePhase.EXTRACT
    assert "gave up after 2 retries" in episode.error
    assert episode.error_kind == "transient"  # stored: consolidation retries it later
    assert "json" in episode.error.lower()
    assert len(llm_mode.requests) == 3  # first try + 2 retries
    assert episode.phase_done == EpisodePhase.ANCHOR_DATES  # earlier work kept for a later retry
    assert EpisodeMessage.objects.filter(episode=episode).exists()
    failed = WebhookEvent.objects.get(type="episode.failed")
    assert failed.payload["phase"] == "extract"


def test_a_429_is_retried_and_the_episode_completes(project: Project, llm_mode: FakeOpenAIServer) -> None:
    llm_mode.rate_limit(retry_after_s=0)
    llm_mode.answer(GOOD)
    episode = run_chain(porto(project))
    assert episode.status == "completed"
    assert len(llm_mode.requests) == 2


def test_a_timeout_is_retried_and_the_episode_completes(project: Project, llm_mode: FakeOpenAIServer) -> None:
    llm_mode.delay(2.0)
    llm_mode.answer(GOOD)
    episode = run_chain(porto(project))
    assert episode.status == "completed"
    assert Memory.objects.filter(project=project).count() == 1


def test_a_permanent_error_fails_at_once_without_retries(
    project: Project, llm_mode: FakeOpenAIServer
) -> None:
    llm_mode.unauthorized()
    episode = run_chain(porto(project))
    assert episode.status == "failed"
    assert episode.error_phase == EpisodePhase.EXTRACT
    assert "PermanentAIError" in episode.error
    assert episode.error_kind == "permanent"
    assert len(llm_mode.requests) == 1
