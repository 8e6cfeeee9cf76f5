"""structured_call / make_client against the fake OpenAI-compatible server, through the real openai SDK."""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from typing import Any

import httpx2
import openai
import pytest
from pydantic import BaseModel, Field

from memhq.ai.errors import PermanentAIError, TransientAIError
from memhq.ai.llm import (
    LOCAL_SERVER_API_KEY,
    LLMConfig,
    RateLimitedAIError,
    StructuredResult,
    make_client,
    strict_json_schema,
    structured_call,
    translate_error,
)
from tests.fakes import fixtures
from tests.fakes.openai_server import FakeOpenAIServer

fake_openai = fixtures.fake_openai  # the shared fixture, imported explicitly

MODEL = "test-chat-model"
SCHEMA = "household"
SHORT_TIMEOUT_S = 0.5
SLOW_ANSWER_S = 2.0
MESSAGES = [
    {"role": "system", "content": "List the pets."},
    {"role": "user", "content": "I have a cat, Tom."},
]


class Pet(BaseModel):
    name: str
    species: str
    age: int | None = None  # a default: must still be required in the strict schema


class Household(BaseModel):
    owner: str
    pets: list[Pet]
    favourite: Pet = Field(description="a nested model with a description: $ref must lose its siblings")


GOOD_ANSWER = {
    "owner": "user",
    "pets": [{"name": "Tom", "species": "cat", "age": None}],
    "favourite": {"name": "Tom", "species": "cat", "age": 3},
}


@pytest.fixture(autouse=True)
def _fresh_clients() -> Iterator[None]:
    make_client.cache_clear()
    yield
    make_client.cache_clear()


def _config(server: FakeOpenAIServer, *, timeout_s: float = 5.0, api_key: str = "sk-test") -> LLMConfig:
    return LLMConfig(base_url=server.base_url, api_key=api_key, model=MODEL, timeout_s=timeout_s)


def _call(server: FakeOpenAIServer, **config: Any) -> StructuredResult[Household]:
    return structured_call(
        make_client(_config(server, **config)),
        model=MODEL,
        messages=MESSAGES,
        response_model=Household,
        schema_name=SCHEMA,
    )


def _objects(node: Any) -> Iterator[dict[str, Any]]:
    if isinstance(node, dict):
        if node.get("type") == "object":
            yield node
        for value in node.values():
            yield from _objects(value)
    elif isinstance(node, list):
        for item in node:
            yield from _objects(item)


def test_good_answer_is_parsed_with_token_usage(fake_openai: FakeOpenAIServer) -> None:
    fake_openai.answer(GOOD_ANSWER, prompt_tokens=321, completion_tokens=54)

    result = _call(fake_openai)

    assert isinstance(result.parsed, Household)
    assert result.parsed.pets[0].name == "Tom"
    assert result.parsed.favourite.age == 3
    assert (result.prompt_tokens, result.completion_tokens) == (321, 54)


def test_request_sends_one_strict_json_schema_call_with_the_configured_model(
    fake_openai: FakeOpenAIServer,
) -> None:
    fake_openai.answer(GOOD_ANSWER)

    _call(fake_openai)

    [request] = fake_openai.requests
    assert request.path == "/v1/chat/completions"
    assert request.headers["authorization"] == "Bearer sk-test"
    assert request.body["model"] == MODEL
    assert request.body["messages"] == MESSAGES
    response_format = request.body["response_format"]
    assert response_format["type"] == "json_schema"
    assert response_format["json_schema"]["name"] == SCHEMA
    assert response_format["json_schema"]["strict"] is True
    assert response_format["json_schema"]["schema"] == strict_json_schema(Household)


def test_strict_schema_requires_every_field_and_forbids_extra_properties() -> None:
    schema = strict_json_schema(Household)

    objects = list(_objects(schema))
    assert len(objects) == 2  # Household and Pet (in $defs)
    for node in objects:
        assert node["additionalProperties"] is False
        assert sorted(node["required"]) == sorted(node["properties"])
    assert "default" not in str(schema)
    assert schema["properties"]["favourite"] == {"$ref": "#/$defs/Pet"}


def test_invalid_json_answer_is_transient(fake_openai: FakeOpenAIServer) -> None:
    fake_openai.answer_invalid_json()

    with pytest.raises(TransientAIError, match="not valid JSON"):
        _call(fake_openai)


def test_answer_that_violates_the_schema_is_transient(fake_openai: FakeOpenAIServer) -> None:
    fake_openai.answer({"owner": "user", "pets": "a cat"})

    with pytest.raises(TransientAIError, match="does not match the schema"):
        _call(fake_openai)


def test_empty_answer_is_transient(fake_openai: FakeOpenAIServer) -> None:
    fake_openai.answer("   ")

    with pytest.raises(TransientAIError, match="empty answer"):
        _call(fake_openai)


def test_answer_in_a_markdown_code_fence_is_unwrapped(fake_openai: FakeOpenAIServer) -> None:
    fake_openai.answer(
        '```json\n{"owner": "Ana", "pets": [], "favourite": {"name": "Rex", "species": "dog", '
        '"age": null}}\n```'
    )

    assert _call(fake_openai).parsed.owner == "Ana"


def test_rate_limit_is_transient_with_the_servers_retry_after_and_no_sdk_retry(
    fake_openai: FakeOpenAIServer,
) -> None:
    fake_openai.rate_limit(retry_after_s=7)
    fake_openai.answer(GOOD_ANSWER)  # would be used if the SDK retried

    with pytest.raises(RateLimitedAIError, match="429") as caught:
        _call(fake_openai)

    assert isinstance(caught.value, TransientAIError)
    assert caught.value.retry_after_s == 7
    assert len(fake_openai.requests) == 1


def test_server_error_is_transient_and_not_retried_by_the_sdk(fake_openai: FakeOpenAIServer) -> None:
    fake_openai.server_error()
    fake_openai.answer(GOOD_ANSWER)

    with pytest.raises(TransientAIError, match="HTTP 500"):
        _call(fake_openai)

    assert len(fake_openai.requests) == 1


def test_timeout_is_transient(fake_openai: FakeOpenAIServer) -> None:
    fake_openai.delay(SLOW_ANSWER_S)
    started = time.monotonic()

    with pytest.raises(TransientAIError, match="timed out"):
        _call(fake_openai, timeout_s=SHORT_TIMEOUT_S)

    assert time.monotonic() - started < SLOW_ANSWER_S


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ({"retry-after-ms": "1500"}, 1.5),
        ({"retry-after": "12"}, 12.0),
        ({"retry-after": "soon"}, None),
        ({}, None),
    ],
)
def test_rate_limit_reads_retry_after_in_seconds_or_milliseconds(
    headers: dict[str, str], expected: float | None
) -> None:
    assert _rate_limited(headers).retry_after_s == expected


def test_rate_limit_reads_retry_after_as_an_http_date() -> None:
    when = format_datetime(datetime.now(UTC) + timedelta(seconds=30), usegmt=True)

    waited = _rate_limited({"retry-after": when}).retry_after_s

    assert waited is not None and 25.0 <= waited <= 30.0


def _rate_limited(headers: dict[str, str]) -> RateLimitedAIError:
    request = httpx2.Request("POST", "http://127.0.0.1/v1/chat/completions")
    response = httpx2.Response(429, headers=headers, request=request)
    error = translate_error(openai.RateLimitError("slow down", response=response, body=None), operation="op")
    assert isinstance(error, RateLimitedAIError)
    return error


def test_unauthorized_is_permanent(fake_openai: FakeOpenAIServer) -> None:
    fake_openai.unauthorized()

    with pytest.raises(PermanentAIError, match="401"):
        _call(fake_openai)


@pytest.mark.parametrize(
    ("status", "expected"),
    [
        (400, PermanentAIError),
        (403, PermanentAIError),
        (404, PermanentAIError),
        (422, PermanentAIError),
        (408, TransientAIError),
        (409, TransientAIError),
        (503, TransientAIError),
    ],
)
def test_http_statuses_are_sorted_into_transient_or_permanent(
    fake_openai: FakeOpenAIServer, status: int, expected: type[Exception]
) -> None:
    fake_openai.fail(status)

    with pytest.raises(expected, match=str(status)):
        _call(fake_openai)


def test_connection_refused_is_transient() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    config = LLMConfig(base_url=f"http://127.0.0.1:{port}/v1", api_key="k", model=MODEL, timeout_s=2.0)

    with pytest.raises(TransientAIError, match="connection error"):
        structured_call(
            make_client(config), model=MODEL, messages=MESSAGES, response_model=Household, schema_name=SCHEMA
        )


def test_refusal_is_permanent(fake_openai: FakeOpenAIServer) -> None:
    fake_openai.refuse("I won't list pets.")

    with pytest.raises(PermanentAIError, match="refused"):
        _call(fake_openai)


def test_make_client_caches_one_client_per_config_without_sdk_retries(fake_openai: FakeOpenAIServer) -> None:
    config = _config(fake_openai)

    client = make_client(config)

    assert make_client(_config(fake_openai)) is client
    assert make_client(_config(fake_openai, timeout_s=9.0)) is not client
    assert client.max_retries == 0
    assert str(client.base_url).rstrip("/") == fake_openai.base_url
    assert "sk-test" not in repr(config)


def test_local_server_without_api_key_gets_a_placeholder_key(fake_openai: FakeOpenAIServer) -> None:
    fake_openai.answer(GOOD_ANSWER)

    _call(fake_openai, api_key="")

    assert fake_openai.requests[0].headers["authorization"] == f"Bearer {LOCAL_SERVER_API_KEY}"


def test_a_timeout_names_the_setting_and_the_seconds(fake_openai: FakeOpenAIServer) -> None:
    fake_openai.delay(SLOW_ANSWER_S)
    with pytest.raises(TransientAIError, match=r"timed out after 0\.5 s \(OPENAI_TIMEOUT_S; raise it"):
        _call(fake_openai, timeout_s=SHORT_TIMEOUT_S)
