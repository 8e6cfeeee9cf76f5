from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from ingestion.pipeline import run_inline
from memhq.models import Episode, EpisodeMessage, Memory, Thread, ThreadMessage
from memhq.threads import sweep
from memhq.threads.sweep import inactivity_sweep
from tests.threads.helpers import THREADS, add, create, post, say

LATER = timedelta(hours=1)


def later() -> Any:
    return timezone.now() + LATER


def test_a_due_thread_becomes_one_episode_of_its_pending_messages(
    api: APIClient, django_capture_on_commit_callbacks: Any
) -> None:
    create(api, "alice", thread_id="t")
    add(api, "t", "I moved to Lisbon last month.", id="m1", name="Alice", timestamp="2026-03-01T09:00:00Z")
    say(api, "t", ("assistant", "How are you finding it?"))
    assert inactivity_sweep().episodes == 0  # not due yet
    with django_capture_on_commit_callbacks() as callbacks:
        result = inactivity_sweep(later())
    assert (result.threads_cut, result.episodes) == (1, 1)
    assert not callbacks  # nothing published by the request: the episode row is the outbox entry
    episode = Episode.objects.get()
    assert episode.thread is not None and episode.thread.key == "t"
    assert (episode.user_id, episode.thread_key, episode.status) == ("alice", "t", "queued")
    body = json.loads(bytes(episode.raw_body))
    assert body["user_id"] == "alice" and body["thread_id"] == "t"
    assert body["metadata"] == {"source": "thread", "thread_seq": [1, 2]}
    first, second = body["messages"]
    assert first == {
        "role": "user",
        "content": "I moved to Lisbon last month.",
        "name": "Alice",
        "id": "m1",
        "timestamp": "2026-03-01T09:00:00+00:00",
    }
    assert second["role"] == "assistant" and second["timestamp"]  # the time MemHQ received it
    assert set(ThreadMessage.objects.values_list("episode", flat=True)) == {episode.pk}
    thread = Thread.objects.get()
    assert thread.status == "open" and thread.episode_due_at is None and thread.episode_through_seq == 2


def test_the_thread_stays_open_and_later_messages_make_the_next_episode(api: APIClient) -> None:
    create(api, thread_id="t")
    say(api, "t", ("user", "one"), ("assistant", "two"))
    inactivity_sweep(later())
    say(api, "t", ("user", "three"))
    assert Thread.objects.get().episode_due_at is not None
    inactivity_sweep(later())
    first, second = Episode.objects.order_by("received_at")
    assert [m["content"] for m in json.loads(bytes(second.raw_body))["messages"]] == ["three"]
    assert ThreadMessage.objects.get(seq=3).episode == second
    assert inactivity_sweep(later()).episodes == 0  # nothing pending any more


def test_a_cut_episode_goes_through_the_chain_like_any_other(api: APIClient) -> None:
    create(api, "alice", thread_id="t")
    say(api, "t", ("user", "I live in Porto with my dog Rex."), ("assistant", "Nice!"))
    inactivity_sweep(later())
    episode = Episode.objects.get()
    run_inline(episode.pk)
    episode.refresh_from_db()
    assert episode.status == "completed"
    assert EpisodeMessage.objects.filter(episode=episode).count() == 2
    assert any("Porto" in text for text in Memory.objects.values_list("text", flat=True))


def test_more_pending_messages_than_the_add_limit_become_several_episodes(
    api: APIClient, settings: Any
) -> None:
    settings.MEMHQ_MAX_MESSAGES = 2
    create(api, thread_id="t")
    say(api, "t", ("user", "a"), ("assistant", "b"), ("user", "c"))
    assert inactivity_sweep(later()).episodes == 2
    sizes = [len(json.loads(bytes(e.raw_body))["messages"]) for e in Episode.objects.order_by("received_at")]
    assert sorted(sizes) == [1, 2]


def test_temporary_threads_never_become_episodes(api: APIClient) -> None:
    create(api, "alice", thread_id="t", temporary=True)
    say(api, "t", ("user", "something sensitive"))
    Thread.objects.update(episode_due_at=timezone.now())  # even if one were ever scheduled
    inactivity_sweep(later())
    post(api, f"{THREADS}/t/end")
    create(api, "alice", thread_id="next")
    assert not Episode.objects.exists()


def test_an_expired_temporary_thread_is_ended_and_its_messages_deleted(api: APIClient, settings: Any) -> None:
    settings.MEMHQ_TEMPORARY_THREAD_EXPIRY_S = 60
    create(api, thread_id="temp", temporary=True)
    create(api, thread_id="fresh", temporary=True)
    say(api, "temp", ("user", "secret one"), ("user", "secret two"))
    say(api, "fresh", ("user", "still talking"))
    Thread.objects.filter(key="temp").update(
        last_activity_at=timezone.now() - timedelta(minutes=5), summary="User: secret."
    )
    assert inactivity_sweep().expired == 1
    temp = Thread.objects.get(key="temp")
    assert temp.status == "ended" and temp.summary == "" and temp.ended_at is not None
    assert not ThreadMessage.objects.filter(thread=temp).exists()
    assert Thread.objects.get(key="fresh").status == "open"
    assert ThreadMessage.objects.filter(thread__key="fresh").count() == 1


def test_end_cuts_the_pending_messages_into_an_episode_now(
    api: APIClient, django_capture_on_commit_callbacks: Any
) -> None:
    create(api, thread_id="t")
    say(api, "t", ("user", "I am allergic to peanuts."), ("assistant", "Noted."))
    with django_capture_on_commit_callbacks() as callbacks:
        response = post(api, f"{THREADS}/t/end")
    assert response.status_code == 200
    data = response.json()
    episode = Episode.objects.get()
    assert data["new_episode_ids"] == data["episode_ids"] == [str(episode.pk)]
    assert data["status"] == "ended" and data["ended_at"] and data["pending_messages"] == 0
    assert not callbacks and episode.publish_from == 1  # pending in the outbox
    assert episode.thread_id == Thread.objects.get().pk


def test_ending_twice_is_harmless(api: APIClient) -> None:
    create(api, thread_id="t")
    say(api, "t", ("user", "hello there, I'm Sam"))
    first = post(api, f"{THREADS}/t/end").json()
    second = post(api, f"{THREADS}/t/end").json()
    assert second["new_episode_ids"] == [] and second["ended_at"] == first["ended_at"]
    assert Episode.objects.count() == 1


def test_ending_a_thread_without_messages_makes_no_episode(api: APIClient) -> None:
    create(api, thread_id="t")
    assert post(api, f"{THREADS}/t/end").json()["new_episode_ids"] == []
    assert not Episode.objects.exists()


def test_ending_a_temporary_thread_deletes_its_messages_and_summary(api: APIClient) -> None:
    create(api, thread_id="t", temporary=True)
    say(api, "t", ("user", "my diagnosis is private"), ("assistant", "I understand."))
    Thread.objects.update(summary="User: shared a diagnosis.", summary_through_seq=1)
    data = post(api, f"{THREADS}/t/end").json()
    assert data["status"] == "ended" and data["new_episode_ids"] == [] and data["summary"] == ""
    assert not ThreadMessage.objects.exists() and not Episode.objects.exists()


def test_a_failing_cut_is_retried_later_and_does_not_block_other_threads(
    api: APIClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    create(api, "alice", thread_id="bad")
    say(api, "bad", ("user", "one"))
    create(api, "bob", thread_id="good")
    say(api, "good", ("user", "two"))
    Thread.objects.filter(key="bad").update(episode_due_at=timezone.now() - timedelta(minutes=1))
    real_cut = sweep.thread_cut

    def cut(*, thread: Thread) -> list[Episode]:
        if thread.key == "bad":
            raise RuntimeError("boom")
        return real_cut(thread=thread)

    monkeypatch.setattr(sweep, "thread_cut", cut)
    now = later()
    result = inactivity_sweep(now)
    assert (result.threads_cut, result.episodes) == (1, 1)
    assert Episode.objects.get().thread_key == "good"
    bad = Thread.objects.get(key="bad")
    assert bad.episode_due_at == now + sweep.CUT_RETRY_DELAY
    assert ThreadMessage.objects.get(thread=bad).episode is None  # rolled back, nothing half-written
