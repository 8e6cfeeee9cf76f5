from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from memhq.models import Episode, Thread
from tests.threads.helpers import THREADS, add, assert_error, create, post, say


def test_create_thread_with_the_callers_id_is_201(api: APIClient) -> None:
    response = post(api, THREADS, {"user_id": "alice", "thread_id": "chat-42"})
    assert response.status_code == 201
    data = response.json()
    assert data["thread_id"] == "chat-42"
    assert data["user_id"] == "alice"
    assert data["temporary"] is False
    assert data["status"] == "open"
    assert data["message_count"] == data["pending_messages"] == data["summary_through"] == 0
    assert data["episode_due_at"] is None and data["episode_ids"] == [] and data["summary"] == ""


def test_create_without_an_id_generates_one(api: APIClient) -> None:
    first, second = create(api), create(api)
    assert first["thread_id"] and second["thread_id"] and first["thread_id"] != second["thread_id"]
    assert Thread.objects.count() == 2


def test_creating_an_existing_thread_id_again_returns_that_thread_with_200(api: APIClient) -> None:
    created = create(api, thread_id="chat-1")
    say(api, "chat-1", ("user", "hello there"))
    again = post(api, THREADS, {"user_id": "alice", "thread_id": "chat-1"})
    assert again.status_code == 200
    assert again.json()["thread_id"] == created["thread_id"]
    assert again.json()["message_count"] == 1
    assert Thread.objects.count() == 1


@pytest.mark.parametrize("change", [{"user_id": "bob"}, {"temporary": True}])
def test_an_existing_thread_id_with_another_user_or_flag_is_409(
    api: APIClient, change: dict[str, Any]
) -> None:
    create(api, thread_id="chat-1")
    response = post(api, THREADS, {"user_id": "alice", "thread_id": "chat-1", **change})
    assert_error(response, 409, "conflict")
    assert Thread.objects.count() == 1


def test_thread_ids_are_per_project(api: APIClient, other_api: APIClient) -> None:
    assert post(api, THREADS, {"user_id": "alice", "thread_id": "t"}).status_code == 201
    assert post(other_api, THREADS, {"user_id": "zed", "thread_id": "t"}).status_code == 201


BAD_CREATES = [
    ("missing user_id", {"thread_id": "t"}, "user_id"),
    ("empty user_id", {"user_id": ""}, "user_id"),
    ("user_id over 200 chars", {"user_id": "u" * 201}, "user_id"),
    ("thread_id over 200 chars", {"user_id": "u", "thread_id": "t" * 201}, "thread_id"),
    ("thread_id with a slash", {"user_id": "u", "thread_id": "a/b"}, "thread_id"),
    ("thread_id with a space", {"user_id": "u", "thread_id": "a b"}, "thread_id"),
    ("temporary not a boolean", {"user_id": "u", "temporary": "maybe"}, "temporary"),
    ("unknown field", {"user_id": "u", "colour": "red"}, "colour"),
]


@pytest.mark.parametrize(("case", "payload", "field"), BAD_CREATES, ids=[c for c, _, _ in BAD_CREATES])
def test_bad_create_is_400_with_field_errors_and_writes_nothing(
    api: APIClient, case: str, payload: dict[str, Any], field: str
) -> None:
    error = assert_error(post(api, THREADS, payload), 400, "invalid")
    assert field in error["fields"]
    assert not Thread.objects.exists()


def test_create_with_a_wrong_content_type_is_415(api: APIClient) -> None:
    response = api.generic("POST", THREADS, '{"user_id": "u"}', content_type="text/plain")
    assert_error(response, 415, "unsupported_media_type")


def test_create_with_malformed_json_is_400(api: APIClient) -> None:
    assert_error(post(api, THREADS, b'{"user_id": '), 400, "invalid")


def test_create_body_over_the_limit_is_413(api: APIClient, settings: Any) -> None:
    settings.MEMHQ_MAX_BODY_BYTES = 100
    assert_error(post(api, THREADS, {"user_id": "u" * 150}), 413, "too_large")


def test_requests_without_a_key_are_401(client: Any, db: None) -> None:
    assert_error(client.get(THREADS), 401, "unauthenticated")
    assert_error(client.get(f"{THREADS}/x/prepare"), 401, "unauthenticated")


def test_detail_shows_counts_and_the_episodes_cut_from_the_thread(api: APIClient) -> None:
    create(api, thread_id="t1")
    say(api, "t1", ("user", "I moved to Lisbon."), ("assistant", "How is it?"))
    ended = post(api, f"{THREADS}/t1/end").json()
    say(api, "t1", ("user", "It is sunny."))
    detail = api.get(f"{THREADS}/t1")
    assert detail.status_code == 200
    data = detail.json()
    assert data["message_count"] == 3
    assert data["pending_messages"] == 1
    assert data["episode_ids"] == ended["new_episode_ids"] == [str(Episode.objects.get().pk)]


def test_another_projects_thread_is_404_like_an_unknown_id(api: APIClient, other_api: APIClient) -> None:
    create(api, thread_id="mine")
    for url in ("mine", "mine/prepare"):
        foreign, unknown = other_api.get(f"{THREADS}/{url}"), other_api.get(f"{THREADS}/nope")
        assert foreign.status_code == unknown.status_code == 404
        assert foreign.json() == unknown.json()
    for url in ("mine/messages", "mine/end", "mine/prepare-and-recall"):
        payload = {"role": "user", "content": "x"} if url.endswith("messages") else {"query": "x"}
        response = post(other_api, f"{THREADS}/{url}", payload if not url.endswith("end") else None)
        assert_error(response, 404, "not_found")
    assert Thread.objects.get().message_count == 0


def test_list_filters_by_user_and_status_and_never_shows_other_projects(
    api: APIClient, other_api: APIClient
) -> None:
    mine = {create(api, "alice")["thread_id"], create(api, "alice")["thread_id"]}
    create(api, "bob")
    create(other_api, "alice")
    ended = create(api, "alice")["thread_id"]
    post(api, f"{THREADS}/{ended}/end")
    response = api.get(THREADS, {"user_id": "alice", "status": "open"})
    assert response.status_code == 200
    assert {item["thread_id"] for item in response.json()["results"]} == mine
    assert len(api.get(THREADS).json()["results"]) == 4


def test_list_paginates_with_a_cursor_newest_first(api: APIClient) -> None:
    created = [create(api, "alice")["thread_id"] for _ in range(5)]
    seen: list[str] = []
    url: str | None = f"{THREADS}?user_id=alice&page_size=2"
    while url:
        page = api.get(url).json()
        seen.extend(item["thread_id"] for item in page["results"])
        url = page["next"]
    assert seen == list(reversed(created))


def test_list_rejects_unknown_parameters_and_statuses(api: APIClient) -> None:
    assert_error(api.get(THREADS, {"colour": "red"}), 400, "invalid")
    assert "status" in assert_error(api.get(THREADS, {"status": "bogus"}), 400, "invalid")["fields"]


def test_a_new_thread_for_the_same_user_makes_the_previous_threads_pending_messages_an_episode(
    api: APIClient,
) -> None:
    create(api, "alice", thread_id="old")
    say(api, "old", ("user", "I adopted a cat named Miso."), ("assistant", "Lovely name!"))
    create(api, "bob", thread_id="bobs")
    say(api, "bobs", ("user", "Hi"))
    create(api, "alice", thread_id="new")
    episode = Episode.objects.get()
    assert episode.thread is not None and episode.thread.key == "old" and episode.user_id == "alice"
    assert episode.publish_from == 1, "the episode is in the outbox: the relay publishes its chain"
    old = api.get(f"{THREADS}/old").json()
    assert old["status"] == "open" and old["pending_messages"] == 0 and old["episode_due_at"] is None
    assert api.get(f"{THREADS}/bobs").json()["pending_messages"] == 1  # another user's thread is untouched


def test_returning_an_existing_thread_cuts_nothing(api: APIClient) -> None:
    create(api, "alice", thread_id="a")
    create(api, "alice", thread_id="b")
    say(api, "a", ("user", "I like tea."))
    create(api, "alice", thread_id="b")  # already exists: nothing new started
    assert not Episode.objects.exists()


def test_a_message_to_an_ended_thread_reopens_it(api: APIClient) -> None:
    create(api, thread_id="t")
    say(api, "t", ("user", "first"))
    post(api, f"{THREADS}/t/end")
    assert add(api, "t", "I am back").status_code == 201
    data = api.get(f"{THREADS}/t").json()
    assert data["status"] == "open" and data["ended_at"] is None
    assert data["pending_messages"] == 1 and data["message_count"] == 2
