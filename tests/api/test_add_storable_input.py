"""What /add accepts can always be stored: NUL, lone surrogates and timestamps beyond the documented range
are 400 with field errors at the door, never a 500 or an episode that fails later."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st
from rest_framework.test import APIClient

from ingestion.pipeline import run_inline
from memhq.models import Episode, EpisodeMessage


def post_raw(api: APIClient, raw: str) -> Any:
    return api.post("/v1/memhq/add", data=raw.encode(), content_type="application/json")


def body(**overrides: Any) -> dict[str, Any]:
    message = {"role": "user", "content": "I live in Oslo.", **overrides.pop("message", {})}
    return {"user_id": "u1", "messages": [message], **overrides}


@pytest.mark.parametrize(
    ("raw_body", "field"),
    [
        (json.dumps(body(user_id="a\u0000b")), "user_id"),
        (json.dumps(body(thread_id="t\u0000")), "thread_id"),
        (json.dumps(body(message={"content": "x\u0000y"})), "messages"),
        (json.dumps(body(message={"name": "A\u0000"})), "messages"),
        (json.dumps(body(message={"id": "m\u0000"})), "messages"),
        (json.dumps(body(metadata={"k": "v\u0000"})), "metadata"),
        (json.dumps(body(metadata={"k\u0000": 1})), "metadata"),
        (
            '{"user_id": "u1", "messages": [{"role": "user", "content": "lone \\ud800 surrogate"}]}',
            "non_field_errors",
        ),
        ('{"user_id": "\\udfff", "messages": [{"role": "user", "content": "hi"}]}', "non_field_errors"),
    ],
)
def test_unstorable_text_is_400_with_the_field(api: APIClient, raw_body: str, field: str) -> None:
    # (the JSON parser itself refuses a lone surrogate escape: "Invalid JSON", non_field_errors)
    response = post_raw(api, raw_body)
    assert response.status_code == 400, response.content
    assert field in response.json()["error"]["fields"]
    assert not Episode.objects.exists()


@pytest.mark.parametrize(
    "timestamp",
    [
        "9999-12-31T23:59:59-14:00",
        "0001-01-01T00:00:00+14:00",
        "0999-12-31T23:59:59Z",
        "9000-01-01T00:00:00Z",
    ],
)
def test_timestamps_beyond_the_documented_range_are_400(api: APIClient, timestamp: str) -> None:
    for payload in (body(timestamp=timestamp), body(message={"timestamp": timestamp})):
        response = api.post("/v1/memhq/add", payload, format="json")
        assert response.status_code == 400, (timestamp, response.content)
    assert not Episode.objects.exists()


def test_timestamps_at_the_ends_of_the_range_are_accepted_and_persist(api: APIClient) -> None:
    for timestamp in ("1000-01-01T00:00:00Z", "8999-12-31T23:59:59Z", "8999-12-31T10:00:00-13:00"):
        response = api.post("/v1/memhq/add", body(message={"timestamp": timestamp}), format="json")
        assert response.status_code == 202, response.content
        run_inline(response.json()["episode_id"])
        assert Episode.objects.get(pk=response.json()["episode_id"]).status == "completed"


TEXT = st.text(st.characters(codec="utf-8"), min_size=1, max_size=40)
STAMP = st.datetimes(
    min_value=__import__("datetime").datetime(1000, 1, 2),
    max_value=__import__("datetime").datetime(8999, 12, 30),
).map(lambda d: d.isoformat())
MESSAGE = st.fixed_dictionaries(
    {"role": st.sampled_from(["user", "assistant", "system", "tool"]), "content": TEXT},
    optional={"name": TEXT, "id": TEXT, "timestamp": STAMP},
)
BODY = st.fixed_dictionaries(
    {"user_id": TEXT, "messages": st.lists(MESSAGE, min_size=1, max_size=3)},
    optional={"timestamp": STAMP, "metadata": st.dictionaries(TEXT, TEXT, max_size=2)},
)


@hypothesis_settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(payload=BODY)
def test_any_body_add_accepts_completes(api: APIClient, payload: dict[str, Any]) -> None:
    response = api.post("/v1/memhq/add", payload, format="json")
    if response.status_code != 202:
        assert response.status_code == 400, response.content  # refused at the door, never a 500
        return
    episode_id = response.json()["episode_id"]
    run_inline(episode_id)
    episode = Episode.objects.get(pk=episode_id)
    assert episode.status == "completed", (episode.error_phase, episode.error)
    assert EpisodeMessage.objects.filter(episode=episode).count() == len(payload["messages"])
