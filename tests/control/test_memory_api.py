"""The user's memory list: state, edit, disable/enable and delete memories through the API."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from rest_framework.test import APIClient

from memhq.models import Batch, Entity, Evidence, Memory, Project
from memhq.services.memory_control import memory_set_status
from tests.control.helpers import MEMORIES, ingest, key_prefix, listed, moved, recalled

STATED = {"user_id": "alice", "text": "Alice is vegetarian.", "kind": "preference"}


def state(api: APIClient, **fields: object) -> dict[str, Any]:
    response = api.post(MEMORIES, {**STATED, **fields}, format="json")
    assert response.status_code == 201, response.content
    body: dict[str, Any] = response.json()
    return body


def test_a_stated_memory_has_the_request_as_evidence_is_journaled_and_recalled(
    project: Project, api: APIClient
) -> None:
    body = state(
        api, predicate="diet", object="vegetarian", importance=0.9, valid_from="2024-03-01T00:00:00Z"
    )
    memory = Memory.objects.get(pk=body["id"])
    assert (memory.origin, memory.confidence, memory.importance, memory.status) == (
        "user",
        1.0,
        0.9,
        "active",
    )
    assert memory.valid_from.isoformat() == "2024-03-01T00:00:00+00:00"
    assert memory.indexed_at is not None and memory.embedding is not None
    [evidence] = Evidence.objects.filter(memory=memory)
    assert (evidence.episode_id, evidence.quote) == (None, "Alice is vegetarian.")
    assert body["evidence"][0]["quote"] == "Alice is vegetarian."
    batch = Batch.objects.get(pk=body["batch_id"])
    assert (batch.kind, batch.user_id, batch.actor) == ("edit", "alice", f"key:{key_prefix(project)}")
    assert sorted(batch.entries.values_list("op", "table")) == [
        ("insert", "memhq_evidence"),
        ("insert", "memhq_memory"),
    ]
    assert "Alice is vegetarian." in recalled(api, "What does Alice eat?")


def test_a_stated_memory_links_the_users_existing_entities_by_name(project: Project, api: APIClient) -> None:
    ingest(project, "My sister Emma lives in Porto.", "2023-01-10T10:00:00Z")
    emma = Entity.objects.get(project=project, name="Emma")
    body = state(
        api, text="Emma plays the cello.", kind="fact", subject="emma", predicate="plays", object="cello"
    )
    assert body["subject_entity"] == str(emma.pk)
    assert body["object_entity"] is None
    assert body["entity_ids"] == [str(emma.pk)]


def test_stating_a_memory_validates_and_writes_nothing_on_bad_input(api: APIClient) -> None:
    bad = [
        ({"text": "x", "kind": "fact"}, "user_id"),
        ({"user_id": "a", "kind": "fact"}, "text"),
        ({**STATED, "kind": "rumour"}, "kind"),
        ({**STATED, "importance": 1.5}, "importance"),
        ({**STATED, "valid_from": "soon"}, "valid_from"),
        ({**STATED, "text": "x" * 4001}, "text"),
        ({**STATED, "status": "active"}, "status"),
    ]
    for payload, field in bad:
        response = api.post(MEMORIES, payload, format="json")
        assert response.status_code == 400, payload
        error = response.json()["error"]
        assert error["code"] == "invalid" and field in error["fields"], error
    assert not Memory.objects.exists() and not Batch.objects.exists()


def test_editing_the_text_supersedes_the_old_version_and_refreshes_recall(
    project: Project, api: APIClient
) -> None:
    _, lisbon = moved(project)
    response = api.patch(
        f"{MEMORIES}/{lisbon.pk}", {"text": "User lives in Porto.", "object": "Porto"}, format="json"
    )
    assert response.status_code == 200, response.content
    body = response.json()
    new = Memory.objects.get(pk=body["id"])
    lisbon.refresh_from_db()
    assert (new.text, new.object_value, new.origin, new.status) == (
        "User lives in Porto.",
        "Porto",
        "user",
        "active",
    )
    assert (new.valid_from, new.predicate, new.indexed_at is not None) == (
        lisbon.valid_from,
        "lives_in",
        True,
    )
    assert (lisbon.status, lisbon.superseded_by_id, lisbon.valid_until) == (
        "superseded",
        new.pk,
        new.valid_from,
    )
    assert [item["id"] for item in body["supersedes"]][0] == str(lisbon.pk)
    assert Batch.objects.get(pk=body["batch_id"]).kind == "edit"
    texts = recalled(api, "Where does the user live?")
    assert "User lives in Porto." in texts
    assert not any("Lisbon" in text for text in texts)
    assert "User lives in Porto." in listed(api, status="active")


def test_editing_only_the_importance_changes_it_in_place(project: Project, api: APIClient) -> None:
    memory = Memory.objects.get(pk=state(api)["id"])
    body = api.patch(f"{MEMORIES}/{memory.pk}", {"importance": 0.2}, format="json").json()
    assert body["id"] == str(memory.pk) and body["importance"] == 0.2 and body["status"] == "active"
    assert Memory.objects.filter(project=project).count() == 1
    same = api.patch(f"{MEMORIES}/{memory.pk}", {"importance": 0.2, "kind": "preference"}, format="json")
    assert same.status_code == 200 and same.json()["batch_id"] is None  # nothing changed, nothing written


def test_edits_fail_cleanly(project: Project, api: APIClient, other_api: APIClient) -> None:
    berlin, lisbon = moved(project)
    url = f"{MEMORIES}/{lisbon.pk}"
    assert api.patch(url, {}, format="json").status_code == 400
    assert api.patch(url, {"text": ""}, format="json").status_code == 400
    assert api.patch(url, {"status": "deleted"}, format="json").status_code == 400
    assert api.patch(url, {"colour": "red"}, format="json").json()["error"]["fields"] == {
        "colour": ["Unknown field."]
    }
    stale = api.patch(f"{MEMORIES}/{berlin.pk}", {"text": "User lives in Bonn."}, format="json")
    assert stale.status_code == 409 and str(lisbon.pk) in stale.json()["error"]["message"]
    foreign = other_api.patch(url, {"text": "hacked"}, format="json")
    unknown = api.patch(f"{MEMORIES}/{uuid.uuid4()}", {"text": "x"}, format="json")
    assert foreign.status_code == unknown.status_code == 404
    assert foreign.json() == unknown.json()
    assert api.patch(f"{MEMORIES}/not-a-uuid", {"text": "x"}, format="json").status_code == 404
    assert Batch.objects.filter(kind="edit").count() == 0


def test_a_disabled_memory_stays_listed_but_never_reaches_recall(project: Project, api: APIClient) -> None:
    _, lisbon = moved(project)
    assert any("Lisbon" in text for text in recalled(api, "Where does the user live?"))
    body = api.post(f"{MEMORIES}/{lisbon.pk}/disable").json()
    assert body["status"] == "disabled" and body["batch_id"]
    assert not any("Lisbon" in text for text in recalled(api, "Where does the user live?"))
    assert not any("Lisbon" in text for text in recalled(api, "Lisbon", include_history=True))
    assert any("Lisbon" in text for text in listed(api, status="disabled"))
    assert api.post(f"{MEMORIES}/{lisbon.pk}/disable").json()["batch_id"] is None  # idempotent
    assert api.post(f"{MEMORIES}/{lisbon.pk}/enable").json()["status"] == "active"
    assert any("Lisbon" in text for text in recalled(api, "Where does the user live?"))
    assert (
        api.patch(f"{MEMORIES}/{lisbon.pk}", {"status": "disabled"}, format="json").json()["status"]
        == "disabled"
    )
    assert (
        api.patch(f"{MEMORIES}/{lisbon.pk}", {"status": "active"}, format="json").json()["status"] == "active"
    )


def test_disabling_fails_cleanly(project: Project, api: APIClient, other_api: APIClient) -> None:
    berlin, lisbon = moved(project)
    assert (
        api.post(f"{MEMORIES}/{berlin.pk}/disable").status_code == 409
    )  # superseded: not the current version
    assert other_api.post(f"{MEMORIES}/{lisbon.pk}/disable").status_code == 404
    assert api.post(f"{MEMORIES}/{uuid.uuid4()}/enable").status_code == 404
    assert api.get(f"{MEMORIES}/{lisbon.pk}/disable").status_code == 405


def test_a_deleted_memory_leaves_recall_and_lists_and_its_history_says_who_and_when(
    project: Project, api: APIClient
) -> None:
    _, lisbon = moved(project)
    response = api.delete(f"{MEMORIES}/{lisbon.pk}")
    assert response.status_code == 200, response.content
    body = response.json()
    assert (body["status"], body["deleted_by"]) == ("deleted", f"key:{key_prefix(project)}")
    lisbon.refresh_from_db()
    assert lisbon.status == "deleted" and lisbon.expired_at is not None  # never a hard delete
    assert Evidence.objects.filter(memory=lisbon).count() == 1
    assert not any("Lisbon" in text for text in listed(api))
    assert not any("Lisbon" in text for text in recalled(api, "Lisbon", include_history=True))
    assert api.get(f"{MEMORIES}/{lisbon.pk}").status_code == 404
    assert api.delete(f"{MEMORIES}/{lisbon.pk}").status_code == 404
    history = api.get(f"{MEMORIES}/{lisbon.pk}/history").json()
    deleted = history["events"][-1]
    assert deleted["action"] == "deleted" and deleted["batch"]["actor"] == f"key:{key_prefix(project)}"
    assert deleted["at"] and deleted["batch"]["id"] == body["batch_id"]


def test_only_active_and_disabled_are_statuses_a_user_can_switch_to(project: Project, api: APIClient) -> None:
    memory = Memory.objects.get(pk=state(api)["id"])
    with pytest.raises(ValueError, match="status"):
        memory_set_status(project=project, memory_id=memory.pk, status="deleted", actor="key:x")
    assert Memory.objects.get(pk=memory.pk).status == "active"


def test_deleting_another_projects_memory_is_404_and_changes_nothing(
    project: Project, api: APIClient, other_api: APIClient
) -> None:
    memory = Memory.objects.get(pk=state(api)["id"])
    assert other_api.delete(f"{MEMORIES}/{memory.pk}").status_code == 404
    memory.refresh_from_db()
    assert memory.status == "active"
