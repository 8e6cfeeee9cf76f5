from __future__ import annotations

import json
from typing import Any

import pytest
from rest_framework.test import APIClient

from memhq.models import Episode

ADD = "/v1/memhq/add"


def body(**overrides: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "user_id": "u1",
        "messages": [
            {"role": "user", "content": "I live in Berlin.", "id": "m1"},
            {"role": "assistant", "content": "Nice city!"},
        ],
    }
    data.update(overrides)
    return data


def post(api: APIClient, payload: Any, **headers: str) -> Any:
    raw = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    return api.generic("POST", ADD, raw, content_type="application/json", **headers)  # type: ignore[arg-type]


def assert_error_shape(response: Any, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.content
    error = response.json()["error"]
    assert set(error) == {"code", "message", "fields"}
    assert error["code"] == code
    return error


def test_add_stores_the_exact_request_bytes_and_answers_202(api: APIClient) -> None:
    raw = b'{"user_id":  "u1",\n "messages": [{"role": "user", "content": "caf\\u00e9 \xc3\xa9"}]}'
    response = post(api, raw)
    assert response.status_code == 202
    data = response.json()
    assert set(data) == {"episode_id", "status", "received_at"}
    assert data["status"] == "queued"
    episode = Episode.objects.get(pk=data["episode_id"])
    assert bytes(episode.raw_body) == raw
    assert episode.user_id == "u1"
    assert episode.status == "queued"


def test_add_with_every_optional_field(api: APIClient) -> None:
    payload = body(
        timestamp="2023-05-08T13:56:00",
        thread_id="t-1",
        metadata={"source": "test"},
        messages=[
            {"role": "user", "content": "hi", "name": "Rosalind", "timestamp": "2023-05-08T13:56:00+02:00"}
        ],
    )
    response = post(api, payload)
    assert response.status_code == 202
    assert Episode.objects.get(pk=response.json()["episode_id"]).thread_key == "t-1"


def test_same_idempotency_key_and_body_returns_the_same_episode(api: APIClient) -> None:
    first = post(api, body(), HTTP_IDEMPOTENCY_KEY="k1")
    second = post(api, body(), HTTP_IDEMPOTENCY_KEY="k1")
    assert first.status_code == second.status_code == 202
    assert first.json()["episode_id"] == second.json()["episode_id"]
    assert Episode.objects.count() == 1


def test_same_idempotency_key_with_another_body_is_a_conflict(api: APIClient) -> None:
    post(api, body(), HTTP_IDEMPOTENCY_KEY="k1")
    response = post(api, body(user_id="u2"), HTTP_IDEMPOTENCY_KEY="k1")
    assert_error_shape(response, 409, "conflict")
    assert Episode.objects.count() == 1


def test_idempotency_keys_are_per_project(api: APIClient, other_api: APIClient) -> None:
    a = post(api, body(), HTTP_IDEMPOTENCY_KEY="k1")
    b = post(other_api, body(user_id="zz"), HTTP_IDEMPOTENCY_KEY="k1")
    assert a.status_code == b.status_code == 202
    assert a.json()["episode_id"] != b.json()["episode_id"]


BAD_BODIES = [
    ("missing user_id", {"messages": [{"role": "user", "content": "x"}]}, "user_id"),
    ("empty user_id", body(user_id=""), "user_id"),
    ("user_id over 200 chars", body(user_id="u" * 201), "user_id"),
    ("empty messages", body(messages=[]), "messages"),
    ("messages not a list", body(messages="hi"), "messages"),
    ("over 500 messages", body(messages=[{"role": "user", "content": "x"}] * 501), "messages"),
    ("message over 32 KB", body(messages=[{"role": "user", "content": "é" * 16385}]), "messages"),
    ("unknown role", body(messages=[{"role": "robot", "content": "x"}]), "messages"),
    ("empty content", body(messages=[{"role": "user", "content": ""}]), "messages"),
    ("unknown message field", body(messages=[{"role": "user", "content": "x", "mood": "ok"}]), "messages"),
    (
        "bad message timestamp",
        body(messages=[{"role": "user", "content": "x", "timestamp": "yesterday"}]),
        "messages",
    ),
    ("bad timestamp", body(timestamp="not a date"), "timestamp"),
    ("metadata over 16 KB", body(metadata={"blob": "x" * 16400}), "metadata"),
    ("metadata not an object", body(metadata=[1, 2]), "metadata"),
    ("unknown top-level field", body(colour="red"), "colour"),
]


@pytest.mark.parametrize(("case", "payload", "field"), BAD_BODIES, ids=[case for case, _, _ in BAD_BODIES])
def test_bad_input_is_400_with_field_errors_and_writes_nothing(
    api: APIClient, case: str, payload: dict[str, Any], field: str
) -> None:
    error = assert_error_shape(post(api, payload), 400, "invalid")
    assert field in error["fields"], error
    assert Episode.objects.count() == 0


def test_message_of_exactly_32_kb_is_accepted(api: APIClient) -> None:
    assert post(api, body(messages=[{"role": "user", "content": "a" * 32768}])).status_code == 202


def test_malformed_json_is_400(api: APIClient) -> None:
    assert_error_shape(post(api, b'{"user_id": "u1", "messages": ['), 400, "invalid")
    assert Episode.objects.count() == 0


def test_json_that_is_not_an_object_is_400(api: APIClient) -> None:
    assert_error_shape(post(api, b"[1, 2]"), 400, "invalid")


def test_body_over_1_mb_is_413(api: APIClient) -> None:
    big = body(messages=[{"role": "user", "content": "x" * 30000}] * 40)
    assert_error_shape(post(api, big), 413, "too_large")
    assert Episode.objects.count() == 0


def test_wrong_content_type_is_415(api: APIClient) -> None:
    response = api.generic("POST", ADD, json.dumps(body()), content_type="text/plain")
    assert_error_shape(response, 415, "unsupported_media_type")
    assert Episode.objects.count() == 0


def test_form_content_type_is_415(api: APIClient) -> None:
    assert_error_shape(api.post(ADD, {"user_id": "u1"}), 415, "unsupported_media_type")


def test_get_on_add_is_405(api: APIClient) -> None:
    assert_error_shape(api.get(ADD), 405, "method_not_allowed")


def test_over_long_idempotency_key_is_400(api: APIClient) -> None:
    assert_error_shape(post(api, body(), HTTP_IDEMPOTENCY_KEY="k" * 201), 400, "invalid")
