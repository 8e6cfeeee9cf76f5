"""A failed episode is retried from the phase that failed: by the API and from the admin, journaled."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from rest_framework.test import APIClient

from ingestion.phases import extract
from memhq.models import Batch, BatchKind, Episode, EpisodeStatus, JournalEntry, Memory, Project
from memhq.selectors.episode_timeline import DONE, FAILED, episode_timeline
from tests.ingestion.helpers import make_episode, run_tasks

MESSAGES = [{"role": "user", "content": "My brother Tomas works at a bakery in Ghent."}]


@pytest.fixture
def failed_episode(project: Project, monkeypatch: pytest.MonkeyPatch) -> Episode:
    """An episode whose extract phase hit a bug (not a transient error): failed at once, in phase 3."""
    original = extract.compute

    def broken(episode: Episode) -> Any:
        raise RuntimeError("extractor bug")

    monkeypatch.setattr(extract, "compute", broken)
    episode = run_tasks(make_episode(project, MESSAGES))
    monkeypatch.setattr(extract, "compute", original)
    assert episode.status == EpisodeStatus.FAILED and episode.error_phase == 3
    return episode


def test_timeline_shows_done_phases_and_the_failed_one_with_its_error(failed_episode: Episode) -> None:
    rows = episode_timeline(failed_episode)
    assert [row.name for row in rows] == [
        "persist",
        "anchor dates",
        "extract",
        "resolve entities",
        "reconcile",
        "index",
        "notify",
    ]
    assert [row.outcome for row in rows[:3]] == [DONE, DONE, FAILED]
    assert rows[0].started_at is not None and rows[0].duration_ms is not None
    assert rows[0].started_at <= rows[1].started_at  # type: ignore[operator]
    assert rows[2].tries == 1 and "extractor bug" in rows[2].error
    assert all(row.outcome == "pending" for row in rows[3:])


def test_api_retry_resumes_from_the_failed_phase_and_is_journaled(
    api: APIClient, failed_episode: Episode
) -> None:
    persisted_at = failed_episode.stats["started_at"]["persist"]
    response = api.post(f"/v1/memhq/episodes/{failed_episode.pk}/retry")
    assert response.status_code == 202, response.content
    body = response.json()
    assert body["from_phase"] == "extract"
    assert body["episode"]["status"] == "queued" and body["episode"]["error"] == ""
    failed_episode.refresh_from_db()
    assert failed_episode.publish_from == 3  # in the outbox, from extract: the relay publishes it
    batch = Batch.objects.get(pk=body["batch_id"])
    assert batch.kind == BatchKind.RETRY and batch.actor.startswith("key:")
    entry = JournalEntry.objects.get(batch=batch)
    assert entry.before is not None and entry.after is not None
    assert entry.op == "update" and entry.row_id == str(failed_episode.pk)
    assert entry.before["status"] == "failed" and entry.before["error_phase"] == 3
    assert entry.after["status"] == "queued" and entry.after["manual_retries"] == 1
    episode = run_tasks(failed_episode)  # what the worker does with the enqueued chain
    assert episode.status == EpisodeStatus.COMPLETED
    assert episode.stats["started_at"]["persist"] == persisted_at  # persist was not run again
    assert Memory.objects.filter(project=episode.project, user_id="u1").exists()


def test_retrying_an_episode_that_is_not_failed_is_409(api: APIClient, project: Project) -> None:
    episode = run_tasks(make_episode(project, MESSAGES))
    response = api.post(f"/v1/memhq/episodes/{episode.pk}/retry")
    assert response.status_code == 409
    assert response.json()["error"]["code"] == "conflict"
    assert not Batch.objects.filter(kind=BatchKind.RETRY).exists()


def test_another_projects_episode_cannot_be_retried(other_api: APIClient, failed_episode: Episode) -> None:
    assert other_api.post(f"/v1/memhq/episodes/{failed_episode.pk}/retry").status_code == 404
    assert other_api.post("/v1/memhq/episodes/not-a-uuid/retry").status_code == 404
    failed_episode.refresh_from_db()
    assert failed_episode.status == EpisodeStatus.FAILED


def test_admin_action_retries_the_selected_failed_episodes(failed_episode: Episode) -> None:
    client = Client()
    client.force_login(get_user_model().objects.create_superuser("root", "", "pw"))
    response = client.post(
        "/admin/memhq/episode/",
        {"action": "retry_episodes", "_selected_action": [str(failed_episode.pk)]},
        follow=True,
    )
    assert response.status_code == 200
    assert any("Retried 1" in str(message) for message in response.context["messages"])
    failed_episode.refresh_from_db()
    assert failed_episode.status == EpisodeStatus.QUEUED and failed_episode.publish_from == 3
    assert Batch.objects.get(kind=BatchKind.RETRY).actor == "admin:root"
