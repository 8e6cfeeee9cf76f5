"""Writes for episodes: the /add front door."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from django.db import IntegrityError, connection
from django.utils import timezone

from memhq.models import Episode, Project
from memhq.replicas import freshness
from memhq.services.erasure_guard import ErasureInProgress, erasure_key
from memhq.services.locks import LockNamespace
from memhq.services.transactions import savepoint_if_in_transaction


class IdempotencyConflict(Exception):
    """The idempotency key was used before with a different body."""


@dataclass(frozen=True)
class EpisodeReceipt:
    episode: Episode
    created: bool


def episode_create(
    *,
    project: Project,
    user_id: str,
    raw_body: bytes,
    thread_key: str = "",
    idempotency_key: str | None = None,
) -> EpisodeReceipt:
    """Store the request verbatim in ONE INSERT. Nothing here talks to the broker: the row is the outbox
    entry (``publish_from`` defaults to phase 1); the relay publishes it once committed (ingestion/outbox.py).

    A repeated idempotency key with the same body returns the first episode; with another body it raises.
    While the user's data is being erased it raises ``ErasureInProgress`` and writes nothing.
    """
    content_hash = hashlib.sha256(raw_body).hexdigest()
    episode = Episode(
        project=project,
        user_id=user_id,
        thread_key=thread_key,
        raw_body=raw_body,
        content_hash=content_hash,
        idempotency_key=idempotency_key,
        received_at=timezone.now(),
    )
    try:
        # A savepoint only inside a caller's transaction: a duplicate idempotency key must not poison it.
        with savepoint_if_in_transaction():
            insert_guarded(episode)  # raises ErasureInProgress while the user is being erased
    except IntegrityError:
        if idempotency_key is None:
            raise
        existing = Episode.objects.get(project=project, idempotency_key=idempotency_key)
        if existing.content_hash != content_hash:
            raise IdempotencyConflict(idempotency_key) from None
        return EpisodeReceipt(episode=existing, created=False)
    freshness.wrote(project.pk, user_id=user_id, thread_id=thread_key or None)
    return EpisodeReceipt(episode=episode, created=True)


# One statement, so one round trip: the INSERT happens only if the user's erasure lock can be taken shared
# (see memhq.services.erasure_guard); outside a transaction the lock lasts exactly as long as the INSERT.
# Columns not named here take their database defaults (``db_default`` on the model).
GUARDED_INSERT = f"""
INSERT INTO memhq_episode
    (id, project_id, user_id, thread_key, raw_body, content_hash, idempotency_key, received_at)
SELECT %s, %s, %s, %s, %s, %s, %s, %s
WHERE pg_try_advisory_xact_lock_shared({int(LockNamespace.ERASURE)}, hashtext(%s))
"""


def insert_guarded(episode: Episode) -> None:
    with connection.cursor() as cursor:
        cursor.execute(
            GUARDED_INSERT,
            [
                episode.pk,
                episode.project_id,
                episode.user_id,
                episode.thread_key,
                bytes(episode.raw_body),
                episode.content_hash,
                episode.idempotency_key,
                episode.received_at,
                erasure_key(episode.project_id, episode.user_id),
            ],
        )
        if cursor.rowcount != 1:
            raise ErasureInProgress(episode.user_id)
    episode._state.adding = False
    episode._state.db = connection.alias
