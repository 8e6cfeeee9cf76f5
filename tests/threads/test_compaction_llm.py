"""Compaction with MEMHQ_EXTRACTOR=openai: the real SDK against a local fake OpenAI-compatible server."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from rest_framework.test import APIClient

from ingestion.prompts.thread_summary import SCHEMA_NAME, ThreadSummaryAnswer
from memhq import thread_tasks
from memhq.ai.llm import make_client
from memhq.models import Thread
from memhq.threads.compaction import compact
from tests.fakes import fixtures
from tests.fakes.openai_server import FakeOpenAIServer
from tests.threads.helpers import create, prepare, say

fake_openai = fixtures.fake_openai

TURNS = [
    ("user", "I'm Dana. I'm organising a surprise party for my husband Tom on 14 June."),
    ("assistant", "Lovely! How many guests?"),
    ("user", "About twenty. Tom is vegetarian."),
    ("assistant", "Got it: twenty guests, vegetarian options."),
    ("user", "Can you remind me to book the venue on Monday?"),
]
SUMMARY = "Dana is organising a surprise party for her husband Tom on 14 June, about twenty guests."


@pytest.fixture
def llm_mode(settings: Any, fake_openai: FakeOpenAIServer) -> Iterator[FakeOpenAIServer]:
    settings.MEMHQ_EXTRACTOR = "openai"
    settings.OPENAI_BASE_URL = fake_openai.base_url
    settings.OPENAI_API_KEY = "test-key"
    settings.OPENAI_MODEL = "fake-model"
    settings.OPENAI_TIMEOUT_S = 1.0
    settings.MEMHQ_TASK_MAX_RETRIES = 1
    settings.MEMHQ_THREAD_COMPACT_AFTER_MESSAGES = 4
    settings.MEMHQ_THREAD_KEEP_RECENT_MESSAGES = 2
    make_client.cache_clear()
    yield fake_openai
    make_client.cache_clear()


@pytest.fixture
def thread_over_threshold(api: APIClient) -> Thread:
    create(api, thread_id="t")
    say(api, "t", *TURNS)
    Thread.objects.update(summary="Dana said hello.")
    return Thread.objects.get()


def run_task(thread: Thread) -> str:
    return str(thread_tasks.compact.apply(args=[str(thread.pk)]).get())


def test_one_structured_call_folds_the_older_turns(
    api: APIClient, llm_mode: FakeOpenAIServer, thread_over_threshold: Thread
) -> None:
    llm_mode.answer(ThreadSummaryAnswer(summary=SUMMARY))
    assert run_task(thread_over_threshold) == "compacted"
    thread = Thread.objects.get()
    assert thread.summary == SUMMARY and thread.summary_through_seq == 3
    (request,) = llm_mode.requests
    assert request.body["model"] == "fake-model"
    assert request.body["response_format"]["json_schema"]["name"] == SCHEMA_NAME
    transcript = request.body["messages"][-1]["content"]
    assert "Previous summary: Dana said hello." in transcript
    assert "User: About twenty. Tom is vegetarian." in transcript
    assert TURNS[4][1] not in transcript  # the newest turns stay verbatim, they are not folded
    messages = prepare(api, "t").json()["messages"]
    assert messages[0]["content"] == f"Summary of earlier turns: {SUMMARY}"
    assert [m["content"] for m in messages[1:]] == [TURNS[3][1], TURNS[4][1]]


def test_a_transient_error_is_retried_by_the_task(
    llm_mode: FakeOpenAIServer, thread_over_threshold: Thread
) -> None:
    llm_mode.server_error()
    llm_mode.answer(ThreadSummaryAnswer(summary=SUMMARY))
    assert run_task(thread_over_threshold) == "compacted"
    assert len(llm_mode.requests) == 2
    assert Thread.objects.get().summary == SUMMARY


def test_invalid_json_is_transient_too(llm_mode: FakeOpenAIServer, thread_over_threshold: Thread) -> None:
    llm_mode.answer_invalid_json()
    llm_mode.answer(ThreadSummaryAnswer(summary=SUMMARY))
    assert run_task(thread_over_threshold) == "compacted"
    assert Thread.objects.get().summary == SUMMARY


def test_an_empty_summary_is_retried(llm_mode: FakeOpenAIServer, thread_over_threshold: Thread) -> None:
    llm_mode.answer(ThreadSummaryAnswer(summary="  "))
    llm_mode.answer(ThreadSummaryAnswer(summary=SUMMARY))
    assert run_task(thread_over_threshold) == "compacted"
    assert Thread.objects.get().summary == SUMMARY


def test_exhausted_retries_fall_back_to_the_extractive_summary(
    llm_mode: FakeOpenAIServer, thread_over_threshold: Thread
) -> None:
    llm_mode.server_error()
    llm_mode.server_error()
    assert run_task(thread_over_threshold) == "compacted"
    assert len(llm_mode.requests) == 2  # the first attempt and one retry (MEMHQ_TASK_MAX_RETRIES=1)
    summary = Thread.objects.get().summary
    assert "surprise party" in summary and summary.startswith("Earlier: Dana said hello.")


def test_a_permanent_error_falls_back_at_once(
    llm_mode: FakeOpenAIServer, thread_over_threshold: Thread
) -> None:
    llm_mode.unauthorized()
    assert run_task(thread_over_threshold) == "compacted"
    assert len(llm_mode.requests) == 1
    assert "surprise party" in Thread.objects.get().summary


def test_a_long_answer_is_cut_to_the_summary_budget(
    settings: Any, llm_mode: FakeOpenAIServer, thread_over_threshold: Thread
) -> None:
    settings.MEMHQ_THREAD_SUMMARY_MAX_TOKENS = 10
    llm_mode.answer(ThreadSummaryAnswer(summary=SUMMARY * 5))
    assert compact(thread_over_threshold.pk) == "compacted"
    summary = Thread.objects.get().summary
    assert SUMMARY.startswith(summary) and len(summary) < len(SUMMARY)


def test_a_transient_error_outside_the_last_attempt_is_raised_for_retry(
    llm_mode: FakeOpenAIServer, thread_over_threshold: Thread
) -> None:
    from memhq.ai.errors import TransientAIError

    llm_mode.rate_limit()
    with pytest.raises(TransientAIError):
        compact(thread_over_threshold.pk, final_attempt=False)
    assert Thread.objects.get().summary_through_seq == 0  # nothing written
