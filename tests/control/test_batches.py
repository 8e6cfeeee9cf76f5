"""GET /batches and /batches/{id}: every journaled change, newest first, with its journal."""

from __future__ import annotations

import uuid

from rest_framework.test import APIClient

from memhq.models import Batch, Project
from tests.control.helpers import MEMORIES, moved

BATCHES = "/v1/memhq/batches"


def test_batches_are_listed_newest_first_with_cursor_pagination_and_filters(
    project: Project, api: APIClient, other_api: APIClient
) -> None:
    moved(project, user_id="bob")
    _, lisbon = moved(project, user_id="carol")
    api.post(f"{MEMORIES}/{lisbon.pk}/disable")
    first = api.get(BATCHES, {"user_id": "carol", "page_size": "2"}).json()
    assert [item["kind"] for item in first["results"]] == ["edit", "episode"]
    assert first["results"][0]["actor"].startswith("key:") and first["results"][0]["entry_count"] == 1
    rest = api.get(first["next"]).json()
    assert [item["kind"] for item in rest["results"]] == ["episode"] and rest["next"] is None
    assert len(api.get(BATCHES).json()["results"]) == 5
    assert [item["user_id"] for item in api.get(BATCHES, {"kind": "edit"}).json()["results"]] == ["carol"]
    assert other_api.get(BATCHES).json()["results"] == []
    assert api.get(BATCHES, {"kind": "nope"}).status_code == 400
    assert api.get(BATCHES, {"user": "carol"}).status_code == 400


def test_a_batch_shows_its_journal_before_and_after_per_row(
    project: Project, api: APIClient, other_api: APIClient
) -> None:
    berlin, lisbon = moved(project)
    batch = Batch.objects.get(episode=lisbon.episode_id)
    body = api.get(f"{BATCHES}/{batch.pk}").json()
    assert (body["kind"], body["user_id"], body["episode"], body["reverted_by"]) == (
        "episode",
        "alice",
        str(lisbon.episode_id),
        [],
    )
    rows = [(entry["op"], entry["table"], entry["row_id"]) for entry in body["entries"]]
    assert ("insert", "memhq_memory", str(lisbon.pk)) in rows
    assert ("update", "memhq_memory", str(berlin.pk)) in rows
    assert body["entry_count"] == len(rows) == 3
    update = next(entry for entry in body["entries"] if entry["op"] == "update")
    assert (update["before"]["status"], update["after"]["status"]) == ("active", "superseded")
    assert "embedding" not in update["after"]
    foreign = other_api.get(f"{BATCHES}/{batch.pk}")
    assert foreign.status_code == 404 and foreign.json() == api.get(f"{BATCHES}/{uuid.uuid4()}").json()
    assert api.get(f"{BATCHES}/x").status_code == 404
