"""Second-embedder vectors (``memhq.ai.e5``) for messages stored before ``MEMHQ_SECOND_EMBEDDER`` was turned
on: ``manage.py memhq_embed_second`` fills them once, episode by episode, as the index phase would have
(``ingestion.phases.index.second_vectors``). Until then those messages are found by every other signal.
"""

from __future__ import annotations

import uuid

from django.db import transaction

from ingestion.phases import index
from memhq.ai import e5
from memhq.models import Episode, EpisodeMessage

#: Episodes read per statement.
EPISODES_PER_BATCH = 20


def embed_episode(episode_id: uuid.UUID) -> int:
    """The second vectors of one indexed episode's messages that have none; returns how many."""
    messages = list(EpisodeMessage.objects.filter(episode_id=episode_id).order_by("index"))
    if all(message.embedding_e5 is not None for message in messages if e5.reads(message.role)):
        return 0
    searched = index.searched_messages(messages)
    embedded = index.second_vectors(searched, index.first_passages(searched))
    with transaction.atomic():
        EpisodeMessage.objects.bulk_update(messages, ["embedding_e5"], batch_size=200)
    return embedded


def fill_all() -> int:
    """Every indexed episode, in primary-key order (restartable: done episodes are skipped); returns how many
    messages were embedded."""
    done = 0
    last = None
    while True:
        batch = Episode.objects.filter(indexed_at__isnull=False).order_by("pk")
        if last is not None:
            batch = batch.filter(pk__gt=last)
        ids = list(batch.values_list("pk", flat=True)[:EPISODES_PER_BATCH])
        if not ids:
            return done
        for episode_id in ids:
            done += embed_episode(episode_id)
        last = ids[-1]
