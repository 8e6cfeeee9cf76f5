"""Migration 0013 reads the kind of episodes that failed before ``error_kind`` existed from their error text,
as consolidation used to."""

from __future__ import annotations

import importlib

from django.apps import apps

from memhq.models import Episode, Project
from tests.ingestion.helpers import make_episode

backfill = importlib.import_module("memhq.migrations.0013_episode_error_kind").backfill


def test_old_failures_get_the_kind_their_error_text_says(project: Project) -> None:
    rows = {}
    for error in ("OperationalError: server closed (gave up after 5 retries)", "ValueError: bad data", ""):
        episode = make_episode(project, [{"role": "user", "content": "I live in Oslo."}])
        Episode.objects.filter(pk=episode.pk).update(status="failed", error=error, error_kind="")
        rows[error] = episode.pk
    running = make_episode(project, [{"role": "user", "content": "I live in Bergen."}])
    backfill(apps, None)
    kinds = dict(Episode.objects.values_list("pk", "error_kind"))
    assert kinds[rows["OperationalError: server closed (gave up after 5 retries)"]] == "transient"
    assert kinds[rows["ValueError: bad data"]] == "permanent"
    assert kinds[rows[""]] == "permanent"
    assert kinds[running.pk] == ""  # only failed episodes have a kind
