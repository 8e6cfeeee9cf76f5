"""Writes for episodes: the /add front door."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import partial

from django.db import IntegrityError, transaction
from django.utils import timezone

from memhq.models import Episode, Project
from memhq.services.erasure_guard import erasure_guard


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
    """Store the request verbatim in ONE INSERT and enqueue its chain once the row is committed.

    A repeated idempotency key with the same body returns the first episode; with another body it raises.
    While the user's data is being erased it raises ``ErasureInProgress`` and writes nothing.
    """
    from ingestion.pipeline import enqueue_episode

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
        # A transaction (a savepoint inside a caller's): the erasure guard's shared lock covers the INSERT,
        # and a duplicate idempotency key must not poison the caller's transaction.
        with transaction.atomic():
            erasure_guard(project.pk, user_id)  # raises ErasureInProgress while the user is being erased
            episode.save(force_insert=True)
    except IntegrityError:
        if idempotency_key is None:
            raise
        existing = Episode.objects.get(project=project, idempotency_key=idempotency_key)
        if existing.content_hash != content_hash:
            raise IdempotencyConflict(idempotency_key) from None
        return EpisodeReceipt(episode=existing, created=False)
    transaction.on_commit(partial(enqueue_episode, episode.pk))
    return EpisodeReceipt(episode=episode, created=True)
