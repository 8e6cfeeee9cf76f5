"""Sweeps and writers racing on the real database (each Python thread has its own connection)."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
import redis
from django.db import connections, transaction
from django.utils import timezone

from memhq.models import Episode, Project, Thread, ThreadMessage
from memhq.services import thread_episodes
from memhq.services.threads import message_add, thread_create
from memhq.threads.sweep import SweepResult, inactivity_sweep

THREADS = 30
MESSAGES_PER_THREAD = 3
SKIP_BUDGET_S = 1.0


def in_threads(target: Callable[[], Any], count: int) -> list[Any]:
    """Run ``target`` in ``count`` threads released together; their results (exceptions re-raised)."""
    barrier = threading.Barrier(count)
    results: list[Any] = []

    def run() -> None:
        try:
            barrier.wait()
            results.append(target())
        except Exception as exc:
            results.append(exc)
        finally:
            connections.close_all()

    workers = [threading.Thread(target=run) for _ in range(count)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    for result in results:
        if isinstance(result, Exception):
            raise result
    return results


@pytest.mark.django_db(transaction=True)
def test_two_sweeps_at_the_same_time_never_cut_the_same_messages_twice(
    project: Project, broker: redis.Redis, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Only the row lock may protect the messages here: no idempotency key to catch a double cut.
    monkeypatch.setattr(thread_episodes, "cut_idempotency_key", lambda *args: None)
    for index in range(THREADS):
        thread_create(project=project, user_id=f"user-{index}", key=f"t{index}")
        for turn in range(MESSAGES_PER_THREAD):
            message_add(project=project, key=f"t{index}", role="user", content=f"t{index} says {turn}")
    now = timezone.now() + timedelta(hours=1)
    results: list[SweepResult] = in_threads(lambda: inactivity_sweep(now), 2)
    assert sum(result.episodes for result in results) == THREADS
    assert Episode.objects.count() == THREADS
    for thread in Thread.objects.all():
        episode_ids = set(ThreadMessage.objects.filter(thread=thread).values_list("episode", flat=True))
        assert len(episode_ids) == 1 and None not in episode_ids
        episode = Episode.objects.get(pk=episode_ids.pop())
        contents = [m["content"] for m in json.loads(bytes(episode.raw_body))["messages"]]
        assert contents == [f"{thread.key} says {turn}" for turn in range(MESSAGES_PER_THREAD)]
        assert episode.thread_id == thread.pk


@pytest.mark.django_db(transaction=True)
def test_a_thread_someone_else_holds_is_skipped_not_waited_for(project: Project, broker: redis.Redis) -> None:
    thread_create(project=project, user_id="alice", key="t")
    message_add(project=project, key="t", role="user", content="hello")
    locked, release = threading.Event(), threading.Event()

    def hold() -> None:
        try:
            with transaction.atomic():
                Thread.objects.select_for_update().get(key="t")
                locked.set()
                release.wait(10)
        finally:
            connections.close_all()

    holder = threading.Thread(target=hold)
    holder.start()
    try:
        assert locked.wait(10)
        started = time.monotonic()
        assert inactivity_sweep(timezone.now() + timedelta(hours=1)).episodes == 0
        assert time.monotonic() - started < SKIP_BUDGET_S
    finally:
        release.set()
        holder.join()
    assert inactivity_sweep(timezone.now() + timedelta(hours=1)).episodes == 1


@pytest.mark.django_db(transaction=True)
def test_messages_added_while_sweeps_run_are_each_cut_exactly_once(
    project: Project, broker: redis.Redis, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(thread_episodes, "cut_idempotency_key", lambda *args: None)
    thread_create(project=project, user_id="alice", key="t")
    project.settings = {"auto_episode_interval": 0.001}  # every message is due at once
    project.save()
    stop = threading.Event()

    def writer() -> int:
        for turn in range(40):
            message_add(project=project, key="t", role="user", content=f"turn {turn}")
        stop.set()
        return 0

    def sweeper() -> int:
        made = 0
        while not stop.is_set():
            made += inactivity_sweep(timezone.now() + timedelta(seconds=1)).episodes
        return made

    roles = iter([writer, sweeper, sweeper])
    lock = threading.Lock()

    def role() -> int:
        with lock:
            job = next(roles)
        return job()

    in_threads(role, 3)
    inactivity_sweep(timezone.now() + timedelta(hours=1))  # whatever the last sweep left
    contents = [
        m["content"] for e in Episode.objects.all() for m in json.loads(bytes(e.raw_body))["messages"]
    ]
    assert sorted(contents) == sorted(f"turn {turn}" for turn in range(40))  # none lost, none twice
    assert not ThreadMessage.objects.filter(episode__isnull=True).exists()
