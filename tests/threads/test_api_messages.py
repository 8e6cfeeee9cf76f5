from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import redis
from django.db import connections
from django.utils import timezone
from django.utils.dateparse import parse_datetime
from rest_framework.test import APIClient

from memhq.ai.tokens import count_tokens
from memhq.models import Project, Thread, ThreadMessage
from memhq.services.threads import message_add
from tests.threads.helpers import THREADS, add, assert_error, create, post, say


def test_add_message_stores_it_bumps_activity_and_schedules_the_episode(api: APIClient) -> None:
    create(api, thread_id="t")
    before = timezone.now()
    response = add(api, "t", "I live in Porto.", name="Ana", id="m-1", timestamp="2026-01-02T10:00:00")
    assert response.status_code == 201
    data = response.json()
    assert set(data) == {"thread_id", "seq", "created_at", "episode_due_at"}
    assert data["thread_id"] == "t" and data["seq"] == 1
    due = parse_datetime(data["episode_due_at"])
    assert due is not None and before + timedelta(minutes=30) <= due <= timezone.now() + timedelta(minutes=30)
    thread = Thread.objects.get()
    assert thread.last_activity_at >= before and thread.episode_due_at == due
    assert thread.message_count == 1 and thread.unsummarized_tokens == count_tokens("I live in Porto.")
    message = ThreadMessage.objects.get()
    assert (message.role, message.name, message.caller_id, message.content) == (
        "user",
        "Ana",
        "m-1",
        "I live in Porto.",
    )
    assert message.timestamp == datetime(2026, 1, 2, 10, tzinfo=UTC)  # naive → UTC, like /add
    assert message.episode is None


def test_messages_get_consecutive_seq_and_push_the_episode_back(api: APIClient) -> None:
    create(api, thread_id="t")
    first = add(api, "t", "one").json()
    second = add(api, "t", "two", role="assistant").json()
    assert (first["seq"], second["seq"]) == (1, 2)
    assert second["episode_due_at"] > first["episode_due_at"]


def test_the_project_setting_overrides_the_auto_episode_interval(api: APIClient, project: Project) -> None:
    project.settings = {"auto_episode_interval": 60}
    project.save()
    create(api, thread_id="t")
    before = timezone.now()
    due = parse_datetime(add(api, "t", "hello").json()["episode_due_at"])
    assert due is not None and before + timedelta(seconds=60) <= due <= timezone.now() + timedelta(seconds=60)


@pytest.mark.parametrize("bad", ["soon", 0, -5, True])
def test_an_invalid_project_interval_falls_back_to_the_setting(
    api: APIClient, project: Project, settings: Any, bad: Any
) -> None:
    settings.MEMHQ_AUTO_EPISODE_INTERVAL_S = 120.0
    project.settings = {"auto_episode_interval": bad}
    project.save()
    create(api, thread_id="t")
    before = timezone.now()
    due = parse_datetime(add(api, "t", "hello").json()["episode_due_at"])
    assert due is not None and before + timedelta(seconds=120) <= due <= timezone.now() + timedelta(
        seconds=120
    )


def test_a_temporary_thread_never_schedules_an_episode(api: APIClient) -> None:
    create(api, thread_id="t", temporary=True)
    assert add(api, "t", "something sensitive").json()["episode_due_at"] is None
    assert Thread.objects.get().episode_due_at is None


def test_a_message_to_an_ended_temporary_thread_is_409(api: APIClient) -> None:
    create(api, thread_id="t", temporary=True)
    say(api, "t", ("user", "secret"))
    post(api, f"{THREADS}/t/end")
    assert_error(add(api, "t", "more"), 409, "conflict")
    assert not ThreadMessage.objects.exists()


def test_a_message_to_an_unknown_thread_is_404(api: APIClient) -> None:
    assert_error(add(api, "nope", "hello"), 404, "not_found")
    assert not ThreadMessage.objects.exists()


BAD_MESSAGES = [
    ("missing role", {"content": "x"}, "role"),
    ("unknown role", {"role": "robot", "content": "x"}, "role"),
    ("missing content", {"role": "user"}, "content"),
    ("empty content", {"role": "user", "content": ""}, "content"),
    ("content over 32 KB", {"role": "user", "content": "é" * 16385}, "content"),
    ("name over 200 chars", {"role": "user", "content": "x", "name": "n" * 201}, "name"),
    ("bad timestamp", {"role": "user", "content": "x", "timestamp": "yesterday"}, "timestamp"),
    ("unknown field", {"role": "user", "content": "x", "mood": "ok"}, "mood"),
]


@pytest.mark.parametrize(("case", "payload", "field"), BAD_MESSAGES, ids=[c for c, _, _ in BAD_MESSAGES])
def test_bad_message_is_400_with_field_errors_and_writes_nothing(
    api: APIClient, case: str, payload: dict[str, Any], field: str
) -> None:
    create(api, thread_id="t")
    error = assert_error(post(api, f"{THREADS}/t/messages", payload), 400, "invalid")
    assert field in error["fields"]
    assert not ThreadMessage.objects.exists()
    assert Thread.objects.get().message_count == 0


def test_a_message_of_exactly_the_limit_is_accepted(api: APIClient, settings: Any) -> None:
    create(api, thread_id="t")
    assert add(api, "t", "a" * settings.MEMHQ_MAX_MESSAGE_BYTES).status_code == 201


def test_message_body_over_the_limit_is_413_and_wrong_type_415(api: APIClient, settings: Any) -> None:
    create(api, thread_id="t")
    settings.MEMHQ_MAX_BODY_BYTES = 200
    assert_error(add(api, "t", "x" * 300), 413, "too_large")
    response = api.generic("POST", f"{THREADS}/t/messages", '{"role": "user"}', content_type="text/plain")
    assert_error(response, 415, "unsupported_media_type")
    assert not ThreadMessage.objects.exists()


def test_adding_a_message_is_one_statement(api: APIClient, django_assert_num_queries: Any) -> None:
    create(api, thread_id="t")
    add(api, "t", "warm-up")  # the API key's last_used_at is written at most once a minute
    with django_assert_num_queries(1):  # the message (the key was read by the warm-up: MEMHQ_KEY_CACHE_S)
        assert add(api, "t", "hello").status_code == 201


def test_compaction_is_enqueued_on_commit_only_when_the_threshold_is_crossed(
    api: APIClient, settings: Any, broker: redis.Redis, django_capture_on_commit_callbacks: Any
) -> None:
    settings.MEMHQ_THREAD_COMPACT_AFTER_MESSAGES = 3
    create(api, thread_id="t")
    with django_capture_on_commit_callbacks(execute=True) as below:
        say(api, "t", ("user", "one"), ("assistant", "two"), ("user", "three"))
    assert not below and broker.llen("celery") == 0
    with django_capture_on_commit_callbacks(execute=False) as crossing:
        say(api, "t", ("assistant", "four"))
    assert len(crossing) == 1 and broker.llen("celery") == 0  # nothing published before the commit
    crossing[0]()
    assert broker.llen("celery") == 1
    with django_capture_on_commit_callbacks(execute=True) as again:
        say(api, "t", ("user", "five"))  # already requested: not enqueued twice
    assert not again and broker.llen("celery") == 1
    assert Thread.objects.get().compaction_requested_at is not None


def test_the_token_threshold_also_triggers_compaction(
    api: APIClient, settings: Any, django_capture_on_commit_callbacks: Any
) -> None:
    settings.MEMHQ_THREAD_COMPACT_AFTER_TOKENS = 20
    create(api, thread_id="t")
    with django_capture_on_commit_callbacks() as callbacks:
        say(api, "t", ("user", "a long message with quite a few words in it " * 3))
    assert len(callbacks) == 1


def test_a_message_never_waits_for_a_running_compaction(
    api: APIClient, project: Project, settings: Any
) -> None:
    """Compaction holds no lock on the thread while it summarises; a message goes straight in."""
    settings.MEMHQ_THREAD_COMPACT_AFTER_MESSAGES = 1
    create(api, thread_id="t")
    say(api, "t", ("user", "one"), ("user", "two"))
    assert Thread.objects.get().compaction_requested_at is not None
    added = message_add(project=project, key="t", role="user", content="three")
    assert added.seq == 3 and not added.compaction_requested  # already requested


@pytest.mark.django_db(transaction=True)
def test_concurrent_messages_to_one_thread_get_distinct_consecutive_seq(project: Project) -> None:
    from memhq.services.threads import thread_create

    thread_create(project=project, user_id="alice", key="t")
    barrier, errors = threading.Barrier(8), []

    def send(index: int) -> None:
        try:
            barrier.wait()
            for turn in range(5):
                message_add(project=project, key="t", role="user", content=f"{index}-{turn}")
        except Exception as exc:  # surfaced below
            errors.append(exc)
        finally:
            connections.close_all()

    workers = [threading.Thread(target=send, args=(i,)) for i in range(8)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert not errors
    assert sorted(ThreadMessage.objects.values_list("seq", flat=True)) == list(range(1, 41))
    assert Thread.objects.get().message_count == 40
