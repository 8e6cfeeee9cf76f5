"""Cutting a thread's pending messages into an episode, through the /add front door (``episode_create``).

The episode body is built in the shape ``POST /v1/memhq/add`` accepts, so the chain, the outbox sweep and the
webhooks treat it exactly like a client's episode. Each message carries a timestamp (the caller's, else
the time MemHQ received it), so dates like "yesterday" resolve against when it was said, not when it was
cut. More pending messages than ``MEMHQ_MAX_MESSAGES`` (the /add limit) become several episodes.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from django.conf import settings

from memhq.models import Episode, Thread, ThreadMessage
from memhq.services.episodes import episode_create

#: ``metadata.source`` of an episode cut from a thread.
EPISODE_SOURCE = "thread"


def episode_body(thread: Thread, messages: Sequence[ThreadMessage]) -> bytes:
    """The /add-shaped JSON body of an episode made of ``messages``."""
    turns: list[dict[str, Any]] = []
    for message in messages:
        turn: dict[str, Any] = {"role": message.role, "content": message.content}
        if message.name:
            turn["name"] = message.name
        if message.caller_id:
            turn["id"] = message.caller_id
        turn["timestamp"] = (message.timestamp or message.created_at).isoformat()
        turns.append(turn)
    body = {
        "user_id": thread.user_id,
        "thread_id": thread.key,
        "messages": turns,
        "metadata": {"source": EPISODE_SOURCE, "thread_seq": [messages[0].seq, messages[-1].seq]},
    }
    return json.dumps(body, ensure_ascii=False).encode()


def cut_idempotency_key(thread: Thread, first_seq: int, last_seq: int) -> str:
    """The same messages can never become two episodes, even if a lock were ever bypassed."""
    return f"thread:{thread.pk}:{first_seq}-{last_seq}"


def thread_cut(*, thread: Thread) -> list[Episode]:
    """Make the thread's pending messages episodes (their chains start on commit); the thread stays open.

    The caller holds the thread row's lock (``SELECT … FOR UPDATE``) in a transaction: messages are added
    under the same lock, so the pending set read here is complete, and the messages are marked with their
    episode in the same transaction, so two cuts never take the same messages.
    """
    if thread.temporary:
        Thread.objects.filter(pk=thread.pk).update(episode_due_at=None)
        return []
    pending = list(
        ThreadMessage.objects.filter(thread=thread, seq__gt=thread.episode_through_seq)
        .only("seq", "caller_id", "role", "name", "content", "timestamp", "created_at")
        .order_by("seq")
    )
    episodes = []
    size = settings.MEMHQ_MAX_MESSAGES
    for start in range(0, len(pending), size):
        chunk = pending[start : start + size]
        first, last = chunk[0].seq, chunk[-1].seq
        receipt = episode_create(
            project=thread.project,
            user_id=thread.user_id,
            raw_body=episode_body(thread, chunk),
            thread_key=thread.key,
            idempotency_key=cut_idempotency_key(thread, first, last),
        )
        episode = receipt.episode
        Episode.objects.filter(pk=episode.pk).update(thread=thread)
        ThreadMessage.objects.filter(thread=thread, seq__gte=first, seq__lte=last).update(episode=episode)
        episodes.append(episode)
    through = pending[-1].seq if pending else thread.episode_through_seq
    Thread.objects.filter(pk=thread.pk).update(episode_through_seq=through, episode_due_at=None)
    thread.episode_through_seq, thread.episode_due_at = through, None
    return episodes
