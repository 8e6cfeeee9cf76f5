"""Leave nothing behind: the benchmark's episodes, their queued Celery chains, and its project.

Nobody consumes the queue during a benchmark, so every /add leaves a chain message in Redis, and every
stored episode would be re-enqueued by the outbox sweep later. Only the benchmark's own messages are removed
(matched by episode id), so a broker shared with a real deployment keeps everything else.
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass

import redis
from django.conf import settings
from django.db.models import Q

from config.celery import app as celery_app
from memhq.models import Episode, Project

PAGE = 1000
PRIORITY_SEPARATOR = "\x06\x16"  # kombu's Redis transport: one list per priority step, "<queue>\x06\x16<n>"
PRIORITY_STEPS = range(1, 10)
UUID = re.compile(rb"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


@dataclass(frozen=True)
class Cleanup:
    episodes_deleted: int
    messages_removed: int
    project_deleted: bool


def _episode_ids_of(raw: bytes) -> set[bytes]:
    """The uuids in a kombu message's task arguments (``argsrepr``, else the decoded body)."""
    try:
        message = json.loads(raw)
        args = message.get("headers", {}).get("argsrepr")
        text = args.encode() if isinstance(args, str) else base64.b64decode(message.get("body", ""))
    except (ValueError, TypeError, AttributeError):
        return set()
    return set(UUID.findall(text))


def _queue_keys(client: redis.Redis) -> list[str]:
    queue = celery_app.conf.task_default_queue
    names = [queue, *(f"{queue}{PRIORITY_SEPARATOR}{step}" for step in PRIORITY_STEPS)]
    return [name for name in names if client.type(name) == b"list"]


def purge_messages(episode_ids: Iterable[str]) -> int:
    """Remove the queued messages whose task argument is one of ``episode_ids``; returns how many."""
    wanted = {str(episode_id).encode() for episode_id in episode_ids}
    if not wanted:
        return 0
    client = redis.Redis.from_url(settings.REDIS_URL)
    removed = 0
    for key in _queue_keys(client):
        matches: list[bytes] = []
        length = int(client.llen(key))
        for start in range(0, length, PAGE):
            page: list[bytes] = client.lrange(key, start, start + PAGE - 1)  # type: ignore[assignment]
            matches += [raw for raw in page if _episode_ids_of(raw) & wanted]
        for start in range(0, len(matches), PAGE):
            pipe = client.pipeline(transaction=False)
            for raw in matches[start : start + PAGE]:
                pipe.lrem(key, 1, raw)  # type: ignore[arg-type]  # redis-py sends bytes as they are
            removed += sum(int(count) for count in pipe.execute())
    return removed


def bench_episodes(project_id: str, user_prefix: str, baseline_user: str) -> list[str]:
    episodes = Episode.objects.filter(project_id=project_id).filter(
        Q(user_id__startswith=user_prefix) | Q(user_id=baseline_user)
    )
    return [str(pk) for pk in episodes.values_list("pk", flat=True)]


def clean_up(*, project_id: str, created: bool, user_prefix: str, baseline_user: str) -> Cleanup:
    ids = bench_episodes(project_id, user_prefix, baseline_user)
    removed = purge_messages(ids)
    if created:
        Project.objects.filter(pk=project_id).delete()  # cascades to its episodes and keys
    else:
        Episode.objects.filter(pk__in=ids).delete()
    return Cleanup(episodes_deleted=len(ids), messages_removed=removed, project_deleted=created)
