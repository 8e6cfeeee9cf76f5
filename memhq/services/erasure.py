"""Erasure: everything of one user in one project, removed in ONE transaction, with a receipt.

Removed: episodes (raw bodies), their messages, candidates and batches; memories, evidence, entities; the
journal; threads and thread messages; webhook events about the user with all their deliveries (so nothing
pending is sent afterwards). The evidence immutability trigger refuses UPDATE, not DELETE.

Concurrency (see ``memhq.services.erasure_guard``): the erasure holds the user's erasure lock exclusively,
so /add (and thread cuts) for that user are refused (409) while it runs. It then locks the user's episode
and thread rows — waiting for any phase that is storing its result to commit — and the user's entity and
memory locks (same order as the phases, so no deadlock), and only then deletes, so whatever was in flight
is removed too. Tasks still queued for the user's episodes find them gone and do nothing (the runner's claim
answers GONE); the outbox, webhook and consolidation sweeps only see rows, so nothing comes back.

The receipt holds the count per table, the time, and a SHA-256 of the sorted ``<table>:<id>`` lines of every
row removed (so the caller can prove what was erased without MemHQ keeping the ids).
"""

from __future__ import annotations

import hashlib
import hmac
import time
import uuid
from dataclasses import dataclass

from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone

from memhq.models import ErasureReceipt, Project
from memhq.replicas import freshness
from memhq.services.erasure_guard import erasure_lock
from memhq.services.locks import LockNamespace, lock_user

_USER = "project_id = %(project)s AND user_id = %(user)s"
_EPISODES = f"SELECT id FROM memhq_episode WHERE {_USER}"
_MEMORIES = f"SELECT id FROM memhq_memory WHERE {_USER}"
_THREADS = f"SELECT id FROM memhq_thread WHERE {_USER}"
_EVENTS = f"SELECT id FROM memhq_webhookevent WHERE {_USER}"

#: (table, DELETE … RETURNING id), in an order where every subquery still sees the rows it needs.
DELETIONS: tuple[tuple[str, str], ...] = (
    ("memhq_webhookdelivery", f"DELETE FROM memhq_webhookdelivery WHERE event_id IN ({_EVENTS})"),
    ("memhq_webhookevent", f"DELETE FROM memhq_webhookevent WHERE {_USER}"),
    (
        "memhq_journalentry",
        f"DELETE FROM memhq_journalentry WHERE batch_id IN (SELECT id FROM memhq_batch WHERE {_USER})",
    ),
    ("memhq_batch", f"DELETE FROM memhq_batch WHERE {_USER}"),
    (
        "memhq_evidence",
        f"DELETE FROM memhq_evidence WHERE memory_id IN ({_MEMORIES}) OR episode_id IN ({_EPISODES})",
    ),
    ("memhq_candidate", f"DELETE FROM memhq_candidate WHERE episode_id IN ({_EPISODES})"),
    ("memhq_memory", f"DELETE FROM memhq_memory WHERE {_USER}"),
    ("memhq_entity", f"DELETE FROM memhq_entity WHERE {_USER}"),
    ("memhq_episodemessage", f"DELETE FROM memhq_episodemessage WHERE episode_id IN ({_EPISODES})"),
    ("memhq_threadmessage", f"DELETE FROM memhq_threadmessage WHERE thread_id IN ({_THREADS})"),
    ("memhq_thread", f"DELETE FROM memhq_thread WHERE {_USER}"),
    ("memhq_episode", f"DELETE FROM memhq_episode WHERE {_USER}"),
)

# The consolidation sweep's cursor may name the user: forget the name (the pass resumes at the next user).
FORGET_CURSOR = f"UPDATE memhq_consolidationcursor SET user_id = '', position = '{{}}' WHERE {_USER}"


def user_digest(user_id: str) -> str:
    """A keyed hash of the erased user's id (HMAC with the server secret, so ids such as e-mail addresses
    cannot be recovered from a receipt by trying candidates)."""
    return hmac.new(settings.SECRET_KEY.encode(), user_id.encode(), hashlib.sha256).hexdigest()


@dataclass(frozen=True)
class Erasure:
    receipt: ErasureReceipt
    user_id: str
    duration_ms: float

    @property
    def total(self) -> int:
        return sum(self.receipt.counts.values())


def ids_digest(removed: dict[str, list[str]]) -> str:
    lines = sorted(f"{table}:{row_id}" for table, ids in removed.items() for row_id in ids)
    return hashlib.sha256("\n".join(lines).encode()).hexdigest()


def user_erase(*, project: Project, user_id: str, actor: str) -> Erasure:
    """Remove everything of ``user_id`` in ``project``; raises ``ErasureInProgress`` if one is running."""
    started_at = timezone.now()
    started = time.perf_counter()
    params: dict[str, uuid.UUID | str] = {"project": project.pk, "user": user_id}
    removed: dict[str, list[str]] = {}
    with transaction.atomic():
        erasure_lock(project.pk, user_id, settings.MEMHQ_ERASURE_LOCK_TIMEOUT_S)
        with connection.cursor() as cursor:
            cursor.execute(f"{_EPISODES} ORDER BY id FOR UPDATE", params)
            cursor.execute(f"{_THREADS} ORDER BY id FOR UPDATE", params)
        lock_user(LockNamespace.ENTITIES, project.pk, user_id)
        lock_user(LockNamespace.MEMORIES, project.pk, user_id)
        with connection.cursor() as cursor:
            for table, sql in DELETIONS:
                cursor.execute(f"{sql} RETURNING id", params)
                removed[table] = [str(row[0]) for row in cursor.fetchall()]
            cursor.execute(FORGET_CURSOR, params)
        receipt = ErasureReceipt.objects.create(
            project=project,
            user_id_sha256=user_digest(user_id),
            actor=actor[:200],
            started_at=started_at,
            finished_at=timezone.now(),
            counts={table: len(ids) for table, ids in removed.items()},
            ids_sha256=ids_digest(removed),
        )
        freshness.wrote(project.pk, user_id=user_id)  # recall on a replica must not show erased rows
    duration_ms = round((time.perf_counter() - started) * 1000, 2)
    return Erasure(receipt=receipt, user_id=user_id, duration_ms=duration_ms)
