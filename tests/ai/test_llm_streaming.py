"""structured_call(stream=True): the timeout bounds the gaps between tokens, not the whole answer."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import pytest
from pydantic import BaseModel

from memhq.ai.errors import PermanentAIError, TransientAIError
from memhq.ai.llm import LLMConfig, StructuredResult, make_client, structured_call
from tests.fakes import fixtures
from tests.fakes.openai_server import FakeOpenAIServer

fake_openai = fixtures.fake_openai
TIMEOUT_S = 0.5
ANSWER = {"owner": "user", "pets": ["Tom the cat", "Rex the dog"]}


class Household(BaseModel):
    owner: str
    pets: list[str]


@pytest.fixture(autouse=True)
def _fresh_clients() -> Iterator[None]:
    make_client.cache_clear()
    yield
    make_client.cache_clear()


def call(
    server: FakeOpenAIServer, *, stream: bool, max_call_s: float | None = None
) -> StructuredResult[Household]:
    config = LLMConfig(base_url=server.base_url, api_key="k", model="m", timeout_s=TIMEOUT_S)
    return structured_call(
        make_client(config),
        model="m",
        messages=[{"role": "user", "content": "I have a cat and a dog."}],
        response_model=Household,
        schema_name="household",
        stream=stream,
        max_call_s=max_call_s,
    )


def test_a_streamed_answer_is_assembled_with_its_usage(fake_openai: FakeOpenAIServer) -> None:
    fake_openai.stream_slowly(json.dumps(ANSWER), pieces=5, gap_s=0.0)
    result = call(fake_openai, stream=True)
    assert result.parsed == Household.model_validate(ANSWER)
    assert (result.prompt_tokens, result.completion_tokens) == (120, 45)
    body = fake_openai.requests[0].body
    assert body["stream"] is True and body["stream_options"] == {"include_usage": True}
    assert body["response_format"]["type"] == "json_schema"


def test_an_answer_that_keeps_streaming_past_the_timeout_is_not_cut_off(
    fake_openai: FakeOpenAIServer,
) -> None:
    fake_openai.stream_slowly(json.dumps(ANSWER), pieces=6, gap_s=TIMEOUT_S * 0.6)  # 3 x the timeout in all
    started = time.monotonic()
    assert call(fake_openai, stream=True).parsed.pets == ANSWER["pets"]
    assert time.monotonic() - started > 2 * TIMEOUT_S


def test_without_streaming_the_same_slow_answer_times_out(fake_openai: FakeOpenAIServer) -> None:
    fake_openai.delay(TIMEOUT_S * 3, json.dumps(ANSWER))
    with pytest.raises(TransientAIError, match="timed out"):
        call(fake_openai, stream=False)


def test_a_silence_between_tokens_longer_than_the_timeout_is_a_timeout(fake_openai: FakeOpenAIServer) -> None:
    fake_openai.stream_slowly(json.dumps(ANSWER), pieces=2, gap_s=TIMEOUT_S * 3)
    with pytest.raises(TransientAIError, match="timed out"):
        call(fake_openai, stream=True)


def test_a_call_longer_than_max_call_s_is_stopped_naming_the_setting(fake_openai: FakeOpenAIServer) -> None:
    fake_openai.stream_slowly(json.dumps(ANSWER), pieces=8, gap_s=TIMEOUT_S * 0.5)
    with pytest.raises(TransientAIError, match="still answering after 1 s \\(OPENAI_MAX_CALL_S"):
        call(fake_openai, stream=True, max_call_s=1.0)


def test_a_streamed_refusal_is_permanent_and_bad_json_transient(fake_openai: Any) -> None:
    fake_openai.refuse("I can't help with that.")
    with pytest.raises(PermanentAIError, match="refused"):
        call(fake_openai, stream=True)
    fake_openai.answer_invalid_json()
    with pytest.raises(TransientAIError, match="not valid JSON"):
        call(fake_openai, stream=True)
