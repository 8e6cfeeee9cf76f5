"""DELETE /users/{user_id}: everything of the user in the project, in one transaction, with a receipt; new
work for the user refused meanwhile; nothing comes back through a queued task, a sweep or a replay."""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import psycopg
import pytest
from django.db import connection
from rest_framework.test import APIClient

from ingestion import tasks
from ingestion.phases import MODULES
from ingestion.runner import Claim, fail_episode, run_phase
from ingestion.sweeps import outbox_sweep
from memhq.models import (
    Batch,
    Candidate,
    DeliveryStatus,
    Entity,
    Episode,
    EpisodeErrorKind,
    EpisodeMessage,
    EpisodePhase,
    ErasureReceipt,
    Evidence,
    JournalEntry,
    Memory,
    Project,
    Thread,
    ThreadMessage,
    WebhookDelivery,
    WebhookEvent,
)
from memhq.services import erasure
from memhq.services.consolidation import consolidation_sweep
from memhq.services.erasure import DELETIONS, user_digest
from memhq.services.locks import LockNamespace
from memhq.services.threads import message_add, thread_create
from memhq.services.webhooks import event_emit
from memhq.webhooks import dispatch
from tests.control.helpers import MEMORIES, key_prefix, moved
from tests.ingestion.helpers import make_episode
from tests.webhooks.conftest import make_endpoint

USERS = "/v1/memhq/users"
ADD = "/v1/memhq/add"
TABLES: dict[str, Any] = {
    "memhq_webhookdelivery": WebhookDelivery.objects.filter(event__user_id="alice"),
    "memhq_webhookevent": WebhookEvent.objects.filter(user_id="alice"),
    "memhq_journalentry": JournalEntry.objects.filter(batch__user_id="alice"),
    "memhq_batch": Batch.objects.filter(user_id="alice"),
    "memhq_evidence": Evidence.objects.filter(memory__user_id="alice"),
    "memhq_candidate": Candidate.objects.filter(episode__user_id="alice"),
    "memhq_memory": Memory.objects.filter(user_id="alice"),
    "memhq_entity": Entity.objects.filter(user_id="alice"),
    "memhq_episodemessage": EpisodeMessage.objects.filter(episode__user_id="alice"),
    "memhq_threadmessage": ThreadMessage.objects.filter(thread__user_id="alice"),
    "memhq_thread": Thread.objects.filter(user_id="alice"),
    "memhq_episode": Episode.objects.filter(user_id="alice"),
}


def populate(project: Project, user_id: str = "alice") -> None:
    """A user with everything: episodes (done, queued, failed), memories, an edit, a thread, webhooks."""
    moved(project, user_id)
    make_episode(project, [{"role": "user", "content": "I have a cat."}], user_id)  # still queued
    failed = make_episode(project, [{"role": "user", "content": "I own a boat."}], user_id)
    run_phase(str(failed.pk), EpisodePhase.PERSIST, MODULES[EpisodePhase.PERSIST])
    fail_episode(
        str(failed.pk), EpisodePhase.ANCHOR_DATES, "OperationalError: lost", kind=EpisodeErrorKind.TRANSIENT
    )
    thread = thread_create(project=project, user_id=user_id, key=f"chat-{user_id}").thread
    message_add(project=project, key=thread.key, role="user", content="Hello there.")
    event_emit(project_id=project.pk, user_id=user_id, type="memories.changed", payload={"memory_ids": []})


@pytest.fixture
def everything(project: Project, other_project: Project) -> Project:
    make_endpoint(project, "http://127.0.0.1:9/hook")
    populate(project)
    populate(project, "bob")
    populate(other_project)
    return project


def test_erasure_removes_everything_of_the_user_and_returns_a_receipt(
    everything: Project, other_project: Project, api: APIClient
) -> None:
    expected = {
        table: sorted(
            str(pk) for pk in TABLES[table].filter(**_in(everything, table)).values_list("pk", flat=True)
        )
        for table in TABLES
    }
    assert all(expected[table] for table in TABLES), {table: len(ids) for table, ids in expected.items()}
    others = {table: TABLES[table].model.objects.count() - len(expected[table]) for table in TABLES}
    response = api.delete(f"{USERS}/alice")
    assert response.status_code == 200, response.content
    receipt = response.json()
    assert receipt["user_id"] == "alice" and receipt["counts"] == {t: len(ids) for t, ids in expected.items()}
    assert receipt["total"] == sum(receipt["counts"].values()) and receipt["duration_ms"] >= 0
    lines = sorted(f"{table}:{pk}" for table, ids in expected.items() for pk in ids)
    assert receipt["ids_sha256"] == hashlib.sha256("\n".join(lines).encode()).hexdigest()
    for table in TABLES:
        assert not TABLES[table].filter(**_in(everything, table)).exists(), table
        assert TABLES[table].model.objects.count() == others[table], table  # bob and the other project stay
    stored = ErasureReceipt.objects.get(pk=receipt["receipt_id"])
    assert stored.user_id_sha256 == user_digest("alice") != hashlib.sha256(b"alice").hexdigest()  # keyed
    assert stored.actor == f"key:{key_prefix(everything)}" and stored.ids_sha256 == receipt["ids_sha256"]
    assert {table for table, _ in DELETIONS} == set(TABLES)
    again = api.delete(f"{USERS}/alice").json()  # idempotent: nothing left
    assert again["total"] == 0 and set(again["counts"]) == set(TABLES)
    assert api.get(MEMORIES, {"user_id": "alice"}).json()["results"] == []


def _in(project: Project, table: str) -> dict[str, Any]:
    paths = {
        "memhq_webhookdelivery": "event__project",
        "memhq_webhookevent": "project",
        "memhq_journalentry": "batch__project",
        "memhq_batch": "project",
        "memhq_evidence": "memory__project",
        "memhq_candidate": "episode__project",
        "memhq_memory": "project",
        "memhq_entity": "project",
        "memhq_episodemessage": "episode__project",
        "memhq_threadmessage": "thread__project",
        "memhq_thread": "project",
        "memhq_episode": "project",
    }
    return {paths[table]: project}


@contextmanager
def erasure_running(project: Project, user_id: str) -> Iterator[None]:
    """Another session holds the user's erasure lock, as a running erasure does."""
    with psycopg.connect(**connection.get_connection_params(), autocommit=True) as other:
        other.execute(
            "SELECT pg_advisory_lock(%s, hashtext(%s))",
            (int(LockNamespace.ERASURE), f"{project.pk}:{user_id}"),
        )
        yield


def test_new_work_for_a_user_being_erased_is_refused_with_409(
    project: Project, api: APIClient, settings: Any
) -> None:
    settings.MEMHQ_ERASURE_LOCK_TIMEOUT_S = 0.2
    payload = {"user_id": "alice", "messages": [{"role": "user", "content": "I live in Oslo."}]}
    with erasure_running(project, "alice"):
        refused = api.post(ADD, payload, format="json")
        assert refused.status_code == 409
        assert (
            refused.json()["error"]["code"] == "conflict" and "erased" in refused.json()["error"]["message"]
        )
        assert api.post(ADD, {**payload, "user_id": "bob"}, format="json").status_code == 202  # others go on
        stated = {"user_id": "alice", "text": "I like tea.", "kind": "preference"}
        assert api.post(MEMORIES, stated, format="json").status_code == 409
        assert api.post("/v1/memhq/threads", {"user_id": "alice"}, format="json").status_code == 409
        assert api.delete(f"{USERS}/alice").status_code == 409  # one erasure at a time
    assert not Episode.objects.filter(user_id="alice").exists()
    assert api.post(ADD, payload, format="json").status_code == 202


def test_a_task_still_queued_for_an_erased_episode_finishes_as_a_no_op(
    project: Project, api: APIClient
) -> None:
    episode = make_episode(project, [{"role": "user", "content": "I live in Oslo."}], "alice")
    api.delete(f"{USERS}/alice")
    phases = (EpisodePhase.PERSIST, EpisodePhase.ANCHOR_DATES, EpisodePhase.RECONCILE, EpisodePhase.NOTIFY)
    for task in (tasks.PHASE_TASKS[phase] for phase in phases):
        task.apply(args=[str(episode.pk)])
    assert run_phase(str(episode.pk), EpisodePhase.PERSIST, MODULES[EpisodePhase.PERSIST]) == Claim.GONE
    assert (
        not Episode.objects.exists() and not EpisodeMessage.objects.exists() and not Memory.objects.exists()
    )


def test_a_phase_whose_episode_is_erased_while_it_computes_stores_nothing(
    project: Project, api: APIClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    episode = make_episode(project, [{"role": "user", "content": "I live in Oslo."}], "alice")
    module = MODULES[EpisodePhase.PERSIST]
    compute = module.compute

    def erase_meanwhile(claimed: Episode) -> Any:
        data = compute(claimed)
        assert api.delete(f"{USERS}/alice").json()["counts"]["memhq_episode"] == 1
        return data

    monkeypatch.setattr(module, "compute", erase_meanwhile)
    assert run_phase(str(episode.pk), EpisodePhase.PERSIST, module) == Claim.GONE
    assert not EpisodeMessage.objects.exists()


def test_no_sweep_or_replay_brings_anything_back(
    everything: Project, api: APIClient, settings: Any, broker: Any
) -> None:
    settings.MEMHQ_STALL_TIMEOUT_S = settings.MEMHQ_QUEUED_GRACE_S = 0
    settings.MEMHQ_CONSOLIDATION_RETRY_AFTER_S = 0
    settings.MEMHQ_WEBHOOKS_REQUEUE_AFTER_S = 0
    WebhookDelivery.objects.update(enqueued_at=None)
    delivery = WebhookDelivery.objects.filter(event__user_id="alice", event__project=everything).first()
    assert delivery is not None and delivery.status == DeliveryStatus.PENDING
    api.delete(f"{USERS}/alice")
    queued_bob = Episode.objects.filter(user_id="bob", project=everything, status="queued").count()
    published = outbox_sweep()
    assert published == Episode.objects.filter(status__in=["queued", "running"]).count() > 0
    assert not Episode.objects.filter(user_id="alice", project=everything).exists() and queued_bob
    assert dispatch.sweep() == WebhookDelivery.objects.filter(status=DeliveryStatus.PENDING).count() > 0
    assert not WebhookDelivery.objects.filter(pk=delivery.pk).exists()
    assert api.post(f"/v1/memhq/deliveries/{delivery.pk}/replay").status_code == 404
    consolidation_sweep()
    for table in TABLES:
        assert not TABLES[table].filter(**_in(everything, table)).exists(), table


def test_erasure_validates_the_user_id(api: APIClient) -> None:
    response = api.delete(f"{USERS}/{'x' * 201}")
    assert response.status_code == 400 and "user_id" in response.json()["error"]["fields"]
    assert api.delete(f"{USERS}/someone%2Fwith%2Fslashes").json()["total"] == 0
    assert api.get(f"{USERS}/alice").status_code == 405


def test_add_during_a_real_erasure_is_refused_and_the_erasure_removes_what_was_there(
    transactional_db: None, project: Project, api: APIClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    make_episode(project, [{"role": "user", "content": "I live in Oslo."}], "alice")
    locked, release = threading.Event(), threading.Event()
    real_lock_user = erasure.lock_user

    def slow_lock_user(*args: Any) -> None:  # the erasure holds its lock, then waits here
        real_lock_user(*args)
        locked.set()
        assert release.wait(30)

    monkeypatch.setattr(erasure, "lock_user", slow_lock_user)
    receipts: list[Any] = []

    def erase() -> None:
        try:
            receipts.append(erasure.user_erase(project=project, user_id="alice", actor="key:test"))
        finally:
            connection.close()

    worker = threading.Thread(target=erase)
    worker.start()
    try:
        assert locked.wait(30)
        payload = {"user_id": "alice", "messages": [{"role": "user", "content": "I live in Rome."}]}
        assert api.post(ADD, payload, format="json").status_code == 409
    finally:
        release.set()
        worker.join(30)
    assert receipts and receipts[0].receipt.counts["memhq_episode"] == 1
    assert not Episode.objects.filter(user_id="alice").exists()
