from __future__ import annotations

import time
from typing import Any

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.test import Client
from rest_framework.test import APIClient

from config.celery import app
from memhq import thread_tasks
from memhq.models import Episode, Memory, Project, Thread
from memhq.threads import compaction
from tests.threads.helpers import THREADS, create, post, say

E2E_TIMEOUT_S = 120.0


@pytest.fixture
def admin_client(db: None) -> Client:
    client = Client()
    client.force_login(get_user_model().objects.create_superuser("root", "", "pw"))
    return client


def test_the_admin_shows_a_thread_with_its_messages_summary_and_episodes(
    api: APIClient, admin_client: Client, settings: Any
) -> None:
    settings.MEMHQ_THREAD_COMPACT_AFTER_MESSAGES = 2
    settings.MEMHQ_THREAD_KEEP_RECENT_MESSAGES = 1
    create(api, thread_id="chat-7")
    say(api, "chat-7", ("user", "My cat Miso is fourteen years old."), ("assistant", "A wise old cat!"))
    say(api, "chat-7", ("user", "She loves sleeping on my keyboard."))
    compaction.compact(Thread.objects.get().pk)
    post(api, f"{THREADS}/chat-7/end")
    thread, episode = Thread.objects.get(), Episode.objects.get()
    assert admin_client.get("/admin/memhq/thread/").status_code == 200
    page = admin_client.get(f"/admin/memhq/thread/{thread.pk}/change/")
    assert page.status_code == 200
    html = page.content.decode()
    assert "She loves sleeping on my keyboard." in html  # a message
    assert "Miso is fourteen" in thread.summary and "fourteen years old" in html  # the summary
    assert str(episode.pk) in html  # the episode cut from it
    assert admin_client.get("/admin/memhq/thread/add/").status_code == 403


def test_the_sweep_is_on_the_beat_schedule_and_both_tasks_are_registered() -> None:
    entry = settings.CELERY_BEAT_SCHEDULE["threads-inactivity-sweep"]
    assert entry == {"task": "threads.inactivity_sweep", "schedule": 5.0}  # MEMHQ_THREADS_SWEEP_EVERY_S
    app.loader.import_default_modules()  # what a worker does at start: autodiscovery
    assert {"threads.inactivity_sweep", "threads.compact"} <= set(app.tasks)
    assert thread_tasks.compact.acks_late and thread_tasks.compact.reject_on_worker_lost


def test_openapi_documents_the_thread_endpoints(db: None) -> None:
    paths = Client().get("/v1/memhq/openapi.json").json()["paths"]
    for suffix in ("", "/{thread_id}", "/{thread_id}/messages", "/{thread_id}/prepare", "/{thread_id}/end"):
        assert f"/v1/memhq/threads{suffix}" in paths
    assert "/v1/memhq/threads/{thread_id}/prepare-and-recall" in paths


@pytest.mark.django_db(transaction=True)
def test_a_real_worker_sweeps_a_due_thread_into_an_episode_and_processes_it(
    celery_worker_process: Any, project: Project, api: APIClient
) -> None:
    project.settings = {"auto_episode_interval": 0.001}
    project.save()
    create(api, "alice", thread_id="t")
    say(api, "t", ("user", "I live in Porto with my dog Rex."), ("assistant", "Nice!"))
    thread_tasks.inactivity_sweep.delay()  # what beat sends every MEMHQ_THREADS_SWEEP_EVERY_S
    deadline = time.monotonic() + E2E_TIMEOUT_S
    while not Episode.objects.filter(status="completed").exists():
        assert time.monotonic() < deadline, "the worker did not sweep and process the thread in time"
        time.sleep(0.2)
    episode = Episode.objects.get()
    assert episode.thread_id == Thread.objects.get().pk
    assert any("Porto" in text for text in Memory.objects.values_list("text", flat=True))
    assert Thread.objects.get().status == "open"
