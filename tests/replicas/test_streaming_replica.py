"""Reads on a real streaming replica of the test server (``pg_basebackup -R``, config/streaming_replica.py).

The suite's own PostgreSQL is the primary; the replica streams from it and is added as ``replica1``. Checks:
recall's rows come from the replica (its own statistics count the scans), writes never go there, a paused
replay never hides a user's own last write, and a stopped replica leaves recall answering from the primary.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
from django.db import connections, router
from django.utils.timezone import now
from rest_framework.test import APIClient

from config.streaming_replica import Replica, streaming_replica
from memhq.models import Memory, Project, WorkerHeartbeat
from memhq.replicas import routing
from memhq.replicas.pool import POOL, lsn_int
from tests.control.helpers import ingest

pytestmark = pytest.mark.django_db(transaction=True, databases="__all__")

ALIAS = "replica1"
RECALL = "/v1/memhq/recall"
CATCH_UP_S = 10.0
SCANS = """SELECT coalesce(sum(coalesce(seq_scan, 0) + coalesce(idx_scan, 0)), 0) FROM pg_stat_user_tables
WHERE relname = 'memhq_memory'"""


@pytest.fixture(scope="module")
def replica(
    django_db_setup: None, django_db_blocker: Any, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Replica]:
    primary = dict(connections["default"].settings_dict)
    if not str(primary["HOST"]).startswith("/"):
        pytest.skip("needs the embedded PostgreSQL on its Unix socket (make test), to base-backup it")
    with django_db_blocker.unblock(), streaming_replica(primary, tmp_path_factory.mktemp("pg")) as made:
        connections.settings[ALIAS] = made.settings()
        try:
            yield made
        finally:
            connections[ALIAS].close()
            del connections[ALIAS]
            del connections.settings[ALIAS]
            POOL.forget()


@pytest.fixture(autouse=True)
def _fresh_pool(replica: Replica, settings: Any) -> Iterator[None]:
    settings.MEMHQ_REPLICA_CHECK_S = 0.0  # probe on every read: the tests change the replica under it
    settings.MEMHQ_REPLICA_RETRY_S = 0.0
    POOL.forget()
    yield
    if replica.sql("SELECT pg_is_in_recovery()", "postgres") == "t":
        replica.sql("SELECT pg_wal_replay_resume()")


def caught_up(replica: Replica) -> None:
    """Wait until the replica has replayed everything the primary has written so far."""
    with connections["default"].cursor() as cursor:
        cursor.execute("SELECT pg_current_wal_lsn()::text")
        target = lsn_int(cursor.fetchone()[0])
    deadline = time.monotonic() + CATCH_UP_S
    while lsn_int(replica.sql("SELECT pg_last_wal_replay_lsn()")) < target:
        assert time.monotonic() < deadline, "the replica did not catch up"
        time.sleep(0.02)


def replica_scans(replica: Replica) -> int:
    """Scans of the memory table the replica's own statistics count."""
    return int(replica.sql(SCANS))


def scanned_after(replica: Replica, before: int) -> bool:
    """Whether the replica counted more scans than ``before``. A backend flushes its counts when it goes
    idle, at most once a second and else within 10 s: the request's replica connection (this thread's) is
    asked to flush at its next transaction's end first."""
    if ALIAS in connections.settings and connections[ALIAS].connection is not None:
        with connections[ALIAS].cursor() as cursor:
            cursor.execute("SELECT pg_stat_force_next_flush()")
            cursor.execute("SELECT 1")
    return replica_scans(replica) > before


def recall(api: APIClient, user_id: str, query: str) -> dict[str, Any]:
    response = api.post(RECALL, {"user_id": user_id, "query": query}, format="json")
    assert response.status_code == 200, response.content
    body: dict[str, Any] = response.json()
    return body


def texts(body: dict[str, Any]) -> list[str]:
    return [item["text"] for item in body["items"]]


def test_recall_reads_on_the_replica_and_writes_stay_on_the_primary(
    replica: Replica, project: Project, api: APIClient
) -> None:
    ingest(project, "I keep my bike in the hallway.", "2024-03-01T09:00:00Z", "rider")
    caught_up(replica)
    before = replica_scans(replica)
    body = recall(api, "rider", "where is my bike")
    assert not body["degraded"]
    assert any("bike" in text for text in texts(body))
    assert scanned_after(replica, before), "recall did not read the replica"

    def write_inside_a_routed_read() -> str:
        assert routing.current() == ALIAS
        memory = Memory.objects.get(project=project, user_id="rider", object_value__contains="hallway")
        memory.importance = 0.9
        memory.save(update_fields=["importance"])  # the replica is read-only: this would fail there
        return router.db_for_write(Memory, instance=memory)

    assert routing.read(write_inside_a_routed_read, ["nothing-written-here"]) == "default"
    edited = api.patch(
        f"/v1/memhq/memories/{Memory.objects.get(project=project, user_id='rider').pk}",
        {"text": "I keep my bike in the cellar."},
        format="json",
    )
    assert edited.status_code == 200, edited.content


def test_paused_replay_never_hides_a_users_own_write(
    replica: Replica, project: Project, api: APIClient, settings: Any
) -> None:
    ingest(project, "My sister lives in Ghent.", "2024-03-01T09:00:00Z", "writer")
    ingest(project, "I play the cello on Sundays.", "2024-03-01T09:00:00Z", "bystander")
    caught_up(replica)
    replica.sql("SELECT pg_wal_replay_pause()")
    added = api.post(
        "/v1/memhq/add",
        {"user_id": "writer", "messages": [{"role": "user", "content": "I adopted a tortoise named Flint."}]},
        format="json",
    )
    assert added.status_code == 202
    fresh = recall(api, "writer", "tortoise Flint")
    assert any("Flint" in text for text in texts(fresh)), "the user's own write was hidden"
    memory = Memory.objects.get(project=project, user_id="writer")
    edited = api.patch(f"/v1/memhq/memories/{memory.pk}", {"text": "My sister lives in Bruges."}, "json")
    assert edited.status_code == 200, edited.content
    assert any("Bruges" in text for text in texts(recall(api, "writer", "where does my sister live")))
    # A user who wrote nothing since the replica paused is still read there.
    before = replica_scans(replica)
    assert any("cello" in text for text in texts(recall(api, "bystander", "what do I play")))
    assert scanned_after(replica, before), "a user with no new writes should read the replica"
    settings.MEMHQ_REPLICA_MAX_LAG_S = 0.001  # replay is paused behind the writes above: now too far behind
    assert POOL.usable() == [] and POOL.states()[0].lag_bytes > 0
    assert any("cello" in text for text in texts(recall(api, "bystander", "what do I play")))


def test_a_stopped_replica_is_left_out_and_taken_back(
    replica: Replica, project: Project, api: APIClient, settings: Any
) -> None:
    ingest(project, "I work night shifts at the bakery.", "2024-03-01T09:00:00Z", "baker")
    caught_up(replica)
    settings.MEMHQ_REPLICA_CHECK_S = 60.0  # the pool still believes the replica is up when it stops
    assert any("bakery" in text for text in texts(recall(api, "baker", "where do I work")))
    assert [state.alias for state in POOL.usable()] == [ALIAS]
    replica.stop()
    try:
        body = recall(api, "baker", "where do I work")  # fails on the replica, runs again on the primary
        assert not body["degraded"] and any("bakery" in text for text in texts(body))
        assert POOL.usable() == []
        body = recall(api, "baker", "what shifts do I work")  # left out: straight to the primary
        assert not body["degraded"] and any("bakery" in text for text in texts(body))
        WorkerHeartbeat.objects.create(node="w@test", pid=1, started_at=now(), seen_at=now())
        health = APIClient().get("/healthz")
        assert health.status_code == 200
        assert health.json()["replicas"][ALIAS]["up"] is False
    finally:
        replica.start()
    settings.MEMHQ_REPLICA_CHECK_S = 0.0
    caught_up(replica)
    before = replica_scans(replica)
    recall(api, "baker", "where do I work")
    assert scanned_after(replica, before), "the restarted replica should be read again"
    lag = APIClient().get("/healthz").json()["replicas"][ALIAS]
    assert lag["up"] is True and lag["lag_seconds"] >= 0 and lag["lag_bytes"] >= 0
