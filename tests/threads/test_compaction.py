from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
import redis
from django.utils import timezone
from rest_framework.test import APIClient

from config.celery import app
from memhq import thread_tasks
from memhq.ai.tokens import count_tokens
from memhq.models import Thread, ThreadMessage
from memhq.threads import compaction
from memhq.threads.compaction import Outcome, compact
from memhq.threads.sweep import inactivity_sweep
from tests.threads.helpers import THREADS, create, post, prepare, say

CONVERSATION = [
    ("user", "Hi! I'm planning a trip to Lisbon with my partner Ana at the end of May."),
    ("assistant", "Lisbon in late May is lovely. Is it your first visit?"),
    ("user", "Ana is vegetarian and I can't eat shellfish, so we need restaurants for both."),
    ("assistant", "Noted. Ao 26 and Prado are good fits for both of you."),
    ("user", "Great, we fly from Munich on May 24th."),
]


@pytest.fixture
def small_thresholds(settings: Any) -> Any:
    settings.MEMHQ_THREAD_COMPACT_AFTER_MESSAGES = 4
    settings.MEMHQ_THREAD_KEEP_RECENT_MESSAGES = 2
    return settings


def thread(key: str = "t") -> Thread:
    return Thread.objects.get(key=key)


def test_compaction_folds_the_older_messages_and_prepare_returns_summary_and_recent(
    api: APIClient, small_thresholds: Any
) -> None:
    create(api, thread_id="t")
    say(api, "t", *CONVERSATION)
    assert thread().compaction_requested_at is not None
    assert compact(thread().pk) == Outcome.COMPACTED
    compacted = thread()
    assert compacted.summary_through_seq == 3 and compacted.compaction_requested_at is None
    assert "Lisbon" in compacted.summary and "vegetarian" in compacted.summary
    assert compacted.unsummarized_tokens == sum(count_tokens(text) for _, text in CONVERSATION[3:])
    messages = prepare(api, "t").json()["messages"]
    assert messages[0]["role"] == "system"
    assert messages[0]["content"].startswith("Summary of earlier turns: ")
    assert [m["content"] for m in messages[1:]] == [CONVERSATION[3][1], CONVERSATION[4][1]]
    assert api.get(f"{THREADS}/t").json()["summary_through"] == 3


def test_the_next_compaction_folds_the_old_summary_with_the_new_turns(
    api: APIClient, small_thresholds: Any
) -> None:
    create(api, thread_id="t")
    say(api, "t", *CONVERSATION)
    compact(thread().pk)
    say(api, "t", ("user", "My sister Priya will join us in Porto for two days."), ("assistant", "Fun!"))
    say(api, "t", ("user", "Please book a table for four."))
    assert compact(thread().pk) == Outcome.COMPACTED
    summary = thread().summary
    assert "Lisbon" in summary and "Priya" in summary
    assert thread().summary_through_seq == 6


def test_compaction_under_the_threshold_does_nothing(api: APIClient, small_thresholds: Any) -> None:
    create(api, thread_id="t")
    say(api, "t", *CONVERSATION[:3])
    Thread.objects.update(compaction_requested_at=timezone.now())  # e.g. a duplicate task
    assert compact(thread().pk) == Outcome.NOT_NEEDED
    assert thread().summary == "" and thread().compaction_requested_at is None


def test_compaction_of_a_missing_or_ended_temporary_thread_is_gone(api: APIClient) -> None:
    assert compact("00000000-0000-0000-0000-000000000000") == Outcome.GONE
    create(api, thread_id="t", temporary=True)
    say(api, "t", ("user", "secret"))
    post(api, f"{THREADS}/t/end")
    assert compact(thread().pk) == Outcome.GONE


def test_the_newest_message_is_kept_even_when_it_alone_is_over_the_token_budget(
    api: APIClient, settings: Any
) -> None:
    settings.MEMHQ_THREAD_COMPACT_AFTER_TOKENS = 20
    settings.MEMHQ_THREAD_KEEP_RECENT_TOKENS = 10
    create(api, thread_id="t")
    say(api, "t", ("user", "I work as a nurse at St Mary's Hospital in Leeds."))
    say(api, "t", ("user", "Tomorrow I start night shifts for three weeks, which I find really exhausting."))
    assert compact(thread().pk) == Outcome.COMPACTED
    assert thread().summary_through_seq == 1
    assert [m["content"][:9] for m in prepare(api, "t").json()["messages"][1:]] == ["Tomorrow "]


def test_a_compaction_that_lost_a_race_writes_nothing(
    api: APIClient, small_thresholds: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    create(api, thread_id="t")
    say(api, "t", *CONVERSATION)
    real = compaction.summariser.summarise

    def slow_summary(previous: str, turns: Any, max_tokens: int) -> str:
        # Another compaction finishes while this one is still summarising.
        Thread.objects.update(summary="the winner", summary_through_seq=3)
        return str(real(previous, turns, max_tokens))

    monkeypatch.setattr(compaction.summariser, "summarise", slow_summary)
    assert compact(thread().pk) == Outcome.RACED
    assert thread().summary == "the winner"


def test_a_temporary_thread_ended_during_compaction_keeps_no_summary(
    api: APIClient, small_thresholds: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    create(api, thread_id="t", temporary=True)
    say(api, "t", *CONVERSATION)
    real = compaction.summariser.summarise

    def end_meanwhile(previous: str, turns: Any, max_tokens: int) -> str:
        assert post(api, f"{THREADS}/t/end").status_code == 200
        return str(real(previous, turns, max_tokens))

    monkeypatch.setattr(compaction.summariser, "summarise", end_meanwhile)
    assert compact(thread().pk) == Outcome.RACED
    assert thread().summary == "" and not ThreadMessage.objects.exists()


def test_the_celery_task_runs_the_compaction(api: APIClient, small_thresholds: Any) -> None:
    create(api, thread_id="t")
    say(api, "t", *CONVERSATION)
    assert thread_tasks.compact.apply(args=[str(thread().pk)]).get() == "compacted"
    assert thread().summary_through_seq == 3


def test_the_sweep_re_enqueues_a_compaction_requested_long_ago(
    api: APIClient, small_thresholds: Any, broker: redis.Redis, django_capture_on_commit_callbacks: Any
) -> None:
    create(api, thread_id="t")
    with django_capture_on_commit_callbacks(execute=False):  # the broker "lost" this request
        say(api, "t", *CONVERSATION)
    Thread.objects.update(compaction_requested_at=timezone.now() - timedelta(hours=1))
    assert inactivity_sweep().compactions == 1
    assert broker.llen("celery") == 1
    requested = thread().compaction_requested_at
    assert requested is not None and requested > timezone.now() - timedelta(minutes=1)
    assert inactivity_sweep().compactions == 0  # recently re-requested: left alone


def test_enqueueing_a_compaction_never_raises_when_the_broker_is_down(
    project: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    def down(*args: Any, **kwargs: Any) -> None:
        raise ConnectionError("broker down")

    monkeypatch.setattr(app, "send_task", down)
    assert compaction.enqueue_compaction("00000000-0000-0000-0000-000000000000") is False
