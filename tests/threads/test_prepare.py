from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from memhq.ai import provider
from memhq.models import Thread
from tests.threads.helpers import THREADS, assert_error, create, post, prepare, say


def test_prepare_returns_the_last_n_messages_oldest_first(api: APIClient) -> None:
    create(api, thread_id="t")
    say(api, "t", *[("user" if i % 2 else "assistant", f"turn {i}") for i in range(1, 8)])
    response = prepare(api, "t", message_limit=3)
    assert response.status_code == 200
    assert response.json() == {
        "messages": [
            {"role": "user", "content": "turn 5"},
            {"role": "assistant", "content": "turn 6"},
            {"role": "user", "content": "turn 7"},
        ]
    }


def test_prepare_defaults_to_20_messages_and_keeps_names(api: APIClient) -> None:
    create(api, thread_id="t")
    say(api, "t", *[("user", f"m{i}") for i in range(25)])
    post(api, f"{THREADS}/t/messages", {"role": "user", "content": "named", "name": "Ana"})
    messages = prepare(api, "t").json()["messages"]
    assert len(messages) == 20
    assert messages[0]["content"] == "m6"
    assert messages[-1] == {"role": "user", "content": "named", "name": "Ana"}


def test_prepare_puts_the_summary_first_and_skips_what_it_covers(api: APIClient) -> None:
    create(api, thread_id="t")
    say(api, "t", *[("user", f"m{i}") for i in range(1, 6)])
    Thread.objects.filter(key="t").update(summary="User: counted to three.", summary_through_seq=3)
    messages = prepare(api, "t", message_limit=10).json()["messages"]
    assert messages == [
        {"role": "system", "content": "Summary of earlier turns: User: counted to three."},
        {"role": "user", "content": "m4"},
        {"role": "user", "content": "m5"},
    ]


def test_prepare_of_an_empty_thread_is_an_empty_list(api: APIClient) -> None:
    create(api, thread_id="t")
    assert prepare(api, "t").json() == {"messages": []}


def test_prepare_is_one_sql_statement_and_no_model_call(
    api: APIClient, monkeypatch: pytest.MonkeyPatch, django_assert_num_queries: Any
) -> None:
    create(api, thread_id="t")
    say(api, "t", ("user", "hello"))
    prepare(api, "t")  # the API key's last_used_at is written at most once a minute

    def no_model(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("prepare must not call a model")

    monkeypatch.setattr(provider, "get_embedder", no_model)
    with django_assert_num_queries(1):  # prepare (the key was read by the warm-up: MEMHQ_KEY_CACHE_S)
        assert prepare(api, "t").status_code == 200


@pytest.mark.parametrize("params", [{"message_limit": 0}, {"message_limit": 201}, {"message_limit": "x"}])
def test_a_bad_message_limit_is_400(api: APIClient, params: dict[str, Any]) -> None:
    create(api, thread_id="t")
    assert "message_limit" in assert_error(prepare(api, "t", **params), 400, "invalid")["fields"]


def test_prepare_rejects_unknown_parameters(api: APIClient) -> None:
    create(api, thread_id="t")
    assert "limit" in assert_error(prepare(api, "t", limit=3), 400, "invalid")["fields"]


def test_prepare_of_an_unknown_thread_is_404(api: APIClient) -> None:
    assert_error(prepare(api, "nope"), 404, "not_found")


def test_prepare_of_an_ended_temporary_thread_is_empty(api: APIClient) -> None:
    create(api, thread_id="t", temporary=True)
    say(api, "t", ("user", "secret"))
    Thread.objects.filter(key="t").update(summary="User: said a secret.", summary_through_seq=0)
    post(api, f"{THREADS}/t/end")
    assert prepare(api, "t").json() == {"messages": []}
