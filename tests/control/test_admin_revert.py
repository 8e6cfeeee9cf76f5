"""The admin: a batch's revert action shows the dry-run diff on a confirmation page first; evidence and
history stay read-only."""

from __future__ import annotations

import pytest
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.contrib.auth import get_user_model
from django.test import Client

from memhq.models import Batch, ConsolidationCursor, ErasureReceipt, JournalEntry, Memory, Project
from memhq.services.consolidation import consolidation_sweep
from memhq.services.erasure import user_erase
from tests.control.helpers import moved

CHANGELIST = "/admin/memhq/batch/"


@pytest.fixture
def admin_client(db: None) -> Client:
    user = get_user_model().objects.create_superuser("root", "", "pw")
    client = Client()
    client.force_login(user)
    return client


def action(client: Client, batch: Batch, **extra: str) -> str:
    response = client.post(
        CHANGELIST, {"action": "revert_batch", ACTION_CHECKBOX_NAME: [str(batch.pk)], **extra}, follow=True
    )
    assert response.status_code == 200
    return response.content.decode()


def test_the_revert_action_confirms_with_the_diff_then_applies_as_the_admin(
    project: Project, admin_client: Client
) -> None:
    berlin, lisbon = moved(project)
    batch = Batch.objects.get(episode=lisbon.episode_id)
    page = action(admin_client, batch)
    assert "Yes, revert" in page and "undo_insert" in page and "rollback_update" in page
    assert "<strong>status</strong>: superseded →" in page and str(berlin.pk) in page
    assert 'name="force"' not in page  # no later batch touched these rows: nothing to force
    berlin.refresh_from_db()
    assert berlin.status == "superseded"  # nothing applied yet
    done = action(admin_client, batch, confirm="yes")
    assert "Reverted batch" in done
    berlin.refresh_from_db()
    assert berlin.status == "active"
    assert Batch.objects.get(reverts=batch).actor == "admin:root"


def test_the_revert_action_refuses_conflicts_unless_forced(project: Project, admin_client: Client) -> None:
    berlin, _ = moved(project)
    first = Batch.objects.get(episode=berlin.episode_id)
    page = action(admin_client, first)
    assert "Later changes to the same rows" in page and 'name="force"' in page
    refused = action(admin_client, first, confirm="yes")
    assert "were changed again" in refused
    assert Memory.objects.get(pk=berlin.pk).status == "superseded"
    action(admin_client, first, confirm="yes", force="on")
    assert Memory.objects.get(pk=berlin.pk).status == "deleted"


def test_the_revert_action_takes_exactly_one_batch(project: Project, admin_client: Client) -> None:
    moved(project)
    response = admin_client.post(
        CHANGELIST,
        {"action": "revert_batch", ACTION_CHECKBOX_NAME: [str(batch.pk) for batch in Batch.objects.all()]},
        follow=True,
    )
    assert "Select exactly one batch" in response.content.decode()
    assert not Batch.objects.filter(kind="revert").exists()


def test_history_and_evidence_cannot_be_changed_or_deleted_in_the_admin(
    project: Project, admin_client: Client
) -> None:
    berlin, _ = moved(project)
    batch = Batch.objects.get(episode=berlin.episode_id)
    for url in (f"/admin/memhq/memory/{berlin.pk}/delete/", f"/admin/memhq/batch/{batch.pk}/delete/"):
        assert admin_client.post(url, {"post": "yes"}).status_code == 403
    assert Memory.objects.filter(pk=berlin.pk).exists() and Batch.objects.filter(pk=batch.pk).exists()
    page = admin_client.get(f"/admin/memhq/memory/{berlin.pk}/change/").content.decode()
    assert 'name="evidence-0-quote"' not in page  # the evidence inline is read-only


def test_erasure_receipts_and_the_consolidation_cursor_are_shown_read_only(
    project: Project, admin_client: Client
) -> None:
    moved(project)
    consolidation_sweep()
    receipt = user_erase(project=project, user_id="alice", actor="admin:root").receipt
    for obj in (ErasureReceipt.objects.get(pk=receipt.pk), ConsolidationCursor.objects.get()):
        meta = obj._meta
        assert admin_client.get(f"/admin/memhq/{meta.model_name}/").status_code == 200
        assert admin_client.get(f"/admin/memhq/{meta.model_name}/{obj.pk}/change/").status_code == 200
    assert (
        admin_client.post(f"/admin/memhq/erasurereceipt/{receipt.pk}/delete/", {"post": "yes"}).status_code
        == 403
    )


def test_the_revert_action_explains_a_batch_it_cannot_undo(project: Project, admin_client: Client) -> None:
    berlin, _ = moved(project)
    batch = Batch.objects.create(project=project, user_id="alice", kind="edit")
    JournalEntry.objects.create(batch=batch, seq=0, op="delete", table="memhq_memory", row_id=str(berlin.pk))
    assert "cannot be reverted" in action(admin_client, batch)
    assert "cannot be reverted" in action(admin_client, batch, confirm="yes")
    assert not Batch.objects.filter(kind="revert").exists()


def test_memories_are_disabled_enabled_and_deleted_from_the_admin_as_the_admin(
    project: Project, admin_client: Client
) -> None:
    berlin, lisbon = moved(project)

    def memory_action(name: str, *memories: Memory) -> str:
        response = admin_client.post(
            "/admin/memhq/memory/",
            {"action": name, ACTION_CHECKBOX_NAME: [str(memory.pk) for memory in memories]},
            follow=True,
        )
        assert response.status_code == 200
        return response.content.decode()

    page = memory_action("disable_memories", lisbon, berlin)
    assert "Disabled 1 memories" in page and "is superseded" in page  # Berlin is not the current version
    assert Memory.objects.get(pk=lisbon.pk).status == "disabled"
    memory_action("enable_memories", lisbon)
    assert Memory.objects.get(pk=lisbon.pk).status == "active"
    memory_action("delete_memories", lisbon)
    assert Memory.objects.get(pk=lisbon.pk).status == "deleted"
    assert "already deleted" in memory_action("delete_memories", lisbon)
    actors = set(Batch.objects.filter(kind="edit").values_list("actor", flat=True))
    assert actors == {"admin:root"} and Batch.objects.filter(kind="edit").count() == 3
