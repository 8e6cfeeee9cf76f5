"""POST /batches/{id}/revert: the dry-run diff, the atomic revert (itself revertable), conflicts, force."""

from __future__ import annotations

import uuid
from typing import Any

import numpy as np
from rest_framework.test import APIClient

from memhq.ai.provider import get_embedder
from memhq.models import Batch, BatchKind, Evidence, JournalEntry, Memory, Project
from memhq.services.journal import snapshot
from tests.control.helpers import MEMORIES, key_prefix, moved, recalled

BATCHES = "/v1/memhq/batches"


def revert(api: APIClient, batch: Batch | str, code: int = 200, **params: str) -> dict[str, Any]:
    batch_id = batch.pk if isinstance(batch, Batch) else batch
    query = "&".join(f"{name}={value}" for name, value in params.items())
    response = api.post(f"{BATCHES}/{batch_id}/revert" + (f"?{query}" if query else ""))
    assert response.status_code == code, response.content
    body: dict[str, Any] = response.json()
    return body


def state(memory: Memory) -> tuple[str, str | None, Any]:
    memory.refresh_from_db()
    superseded_by = str(memory.superseded_by_id) if memory.superseded_by_id else None
    return memory.status, superseded_by, memory.valid_until


def test_a_dry_run_returns_the_exact_diff_and_writes_nothing(project: Project, api: APIClient) -> None:
    berlin, lisbon = moved(project)
    batch = Batch.objects.get(episode=lisbon.episode_id)
    before = [snapshot(row) for row in Memory.objects.order_by("pk")]
    body = revert(api, batch, dry_run="true")
    assert (body["dry_run"], body["would_apply"], body["would_conflict"], body["conflicts"]) == (
        True,
        True,
        False,
        [],
    )
    assert body["summary"] == {"inserts_undone": 1, "updates_rolled_back": 1, "kept": 1, "unchanged": 0}
    changes = {change["row_id"]: change for change in body["changes"]}
    assert changes[str(lisbon.pk)]["action"] == "undo_insert"
    assert changes[str(lisbon.pk)]["fields"]["status"] == {"current": "active", "restored": "deleted"}
    rollback = changes[str(berlin.pk)]
    assert rollback["action"] == "rollback_update"
    assert set(rollback["fields"]) == {"status", "valid_until", "superseded_by_id", "expired_at"}
    assert rollback["fields"]["status"] == {"current": "superseded", "restored": "active"}
    assert rollback["fields"]["superseded_by_id"] == {"current": str(lisbon.pk), "restored": None}
    evidence = Evidence.objects.get(memory=lisbon)
    assert changes[str(evidence.pk)] == {
        "table": "memhq_evidence",
        "row_id": str(evidence.pk),
        "action": "keep",
        "fields": {},
    }
    assert [snapshot(row) for row in Memory.objects.order_by("pk")] == before
    assert not Batch.objects.filter(kind=BatchKind.REVERT).exists()


def test_the_revert_leaves_every_row_as_its_dry_run_said_it_would(project: Project, api: APIClient) -> None:
    _, lisbon = moved(project)
    batch = Batch.objects.get(episode=lisbon.episode_id)
    planned = revert(api, batch, dry_run="true")["changes"]
    revert(api, batch)
    checked = 0
    for change in planned:
        if change["table"] != "memhq_memory":
            continue
        row = snapshot(Memory.objects.get(pk=change["row_id"]))
        for field, values in change["fields"].items():
            if field == "expired_at" and values["restored"] is not None:  # stamped when the revert runs
                assert row[field] is not None and row[field] >= values["restored"]
            else:
                assert row[field] == values["restored"], (change["action"], field)
            checked += 1
    assert checked >= 5  # the undone insert's status and the rolled-back update's four fields


def test_a_revert_applies_atomically_as_a_new_batch_that_can_itself_be_reverted(
    project: Project, api: APIClient
) -> None:
    berlin, lisbon = moved(project)
    batch = Batch.objects.get(episode=lisbon.episode_id)
    evidence_before = list(Evidence.objects.order_by("pk").values())
    body = revert(api, batch)
    assert body["dry_run"] is False and body["forced"] is False
    undo = Batch.objects.get(pk=body["revert_batch_id"])
    assert (undo.kind, undo.reverts_id, undo.actor) == ("revert", batch.pk, f"key:{key_prefix(project)}")
    assert state(berlin) == ("active", None, None)
    assert state(lisbon)[0] == "deleted"  # never a hard delete
    assert (
        list(Evidence.objects.order_by("pk").values()) == evidence_before
    )  # evidence is immutable and stays
    texts = recalled(api, "Where does the user live?")
    assert any("Berlin" in text for text in texts) and not any("Lisbon" in text for text in texts)
    assert api.get(f"{BATCHES}/{batch.pk}").json()["reverted_by"] == [str(undo.pk)]
    again = revert(api, undo)  # revert the revert: back to Lisbon
    assert state(lisbon) == ("active", None, None)
    assert state(berlin)[:2] == ("superseded", str(lisbon.pk))
    assert Batch.objects.get(pk=again["revert_batch_id"]).reverts_id == undo.pk


def test_reverting_rows_changed_again_later_is_a_conflict_unless_forced(
    project: Project, api: APIClient
) -> None:
    berlin, lisbon = moved(project)
    first = Batch.objects.get(episode=berlin.episode_id)
    later = Batch.objects.get(episode=lisbon.episode_id)
    refused = revert(api, first, code=409)
    error = refused["error"]
    assert error["code"] == "conflict" and set(error) == {"code", "message", "fields", "conflicts"}
    assert [conflict["batch_id"] for conflict in error["conflicts"]] == [str(later.pk)]
    assert error["conflicts"][0]["rows"] == [{"table": "memhq_memory", "row_id": str(berlin.pk)}]
    assert state(berlin)[0] == "superseded"
    dry = revert(api, first, dry_run="true")
    assert dry["would_conflict"] is True and dry["conflicts"][0]["batch_id"] == str(later.pk)
    assert revert(api, first, dry_run="true", force="true")["would_conflict"] is False
    forced = revert(api, first, force="true")
    assert forced["forced"] is True and state(berlin)[0] == "deleted"
    assert "forced" in Batch.objects.get(pk=forced["revert_batch_id"]).note
    assert revert(api, later, code=409)["error"]["conflicts"]  # the first revert touched Berlin later
    assert revert(api, first, code=409)["error"]["conflicts"][-1]["kind"] == "revert"  # no double revert


def test_reverting_an_edit_or_a_delete_brings_the_old_version_back(project: Project, api: APIClient) -> None:
    _, lisbon = moved(project)
    edit = api.patch(f"{MEMORIES}/{lisbon.pk}", {"text": "User lives in Faro."}, format="json").json()
    revert(api, edit["batch_id"])
    assert state(lisbon)[:2] == ("active", None)
    assert Memory.objects.get(pk=edit["id"]).status == "deleted"
    deleted = api.delete(f"{MEMORIES}/{lisbon.pk}").json()
    revert(api, deleted["batch_id"])
    assert state(lisbon)[0] == "active"
    assert api.get(f"{MEMORIES}/{lisbon.pk}").status_code == 200


def test_a_revert_with_nothing_left_to_change_writes_no_batch(project: Project, api: APIClient) -> None:
    stated = api.post(
        MEMORIES, {"user_id": "alice", "text": "I like tea.", "kind": "preference"}, format="json"
    )
    body = stated.json()
    api.delete(f"{MEMORIES}/{body['id']}")
    result = revert(api, body["batch_id"], force="true")
    assert result["revert_batch_id"] is None and result["summary"]["unchanged"] == 1


def test_a_restored_text_is_embedded_again(project: Project, api: APIClient) -> None:
    _, lisbon = moved(project)
    journal = Batch.objects.create(project=project, user_id="alice", kind=BatchKind.EDIT, actor="legacy")
    before = snapshot(lisbon)
    Memory.objects.filter(pk=lisbon.pk).update(
        text="User lives in Rome.", embedding=get_embedder().embed(["Rome"])[0]
    )
    lisbon.refresh_from_db()
    JournalEntry.objects.create(
        batch=journal,
        seq=0,
        op="update",
        table="memhq_memory",
        row_id=str(lisbon.pk),
        before=before,
        after=snapshot(lisbon),
    )
    body = revert(api, journal)
    assert body["changes"][0]["fields"]["text"] == {
        "current": "User lives in Rome.",
        "restored": before["text"],
    }
    lisbon.refresh_from_db()
    assert lisbon.text == before["text"]
    expected = get_embedder().embed([before["text"]])[0]
    assert np.allclose(np.asarray(lisbon.embedding), expected, atol=1e-5)
    assert lisbon.indexed_at is not None and lisbon.indexed_at.isoformat() > before["indexed_at"]
    assert any("Lisbon" in text for text in recalled(api, "Where does the user live?"))


def test_a_batch_with_changes_memhq_cannot_undo_is_refused(project: Project, api: APIClient) -> None:
    berlin, _ = moved(project)
    for op, table in (("delete", "memhq_memory"), ("update", "memhq_episode"), ("insert", "memhq_entity")):
        batch = Batch.objects.create(project=project, user_id="alice", kind=BatchKind.EDIT)
        row_id = str(berlin.pk) if table == "memhq_memory" else str(berlin.episode_id)
        JournalEntry.objects.create(
            batch=batch, seq=0, op=op, table=table, row_id=row_id, before={}, after=None
        )
        for params in ({}, {"dry_run": "true"}):
            error = revert(api, batch, code=409, **params)["error"]
            assert error["code"] == "conflict" and table in error["message"]
    assert state(berlin)[0] == "superseded"


def test_revert_validates_its_query_and_hides_other_projects(
    project: Project, api: APIClient, other_api: APIClient
) -> None:
    _, lisbon = moved(project)
    batch = Batch.objects.get(episode=lisbon.episode_id)
    assert "dry_run" in revert(api, batch, code=400, dry_run="maybe")["error"]["fields"]
    assert "force_it" in revert(api, batch, code=400, force_it="1")["error"]["fields"]
    assert revert(other_api, batch, code=404) == revert(api, str(uuid.uuid4()), code=404)
    assert state(lisbon)[0] == "active"
