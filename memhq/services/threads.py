"""Writes for threads (working memory): create, add a message, end.

Choices (see docs/api.md "Working memory (threads)"):
- Creating a thread whose ``thread_id`` already exists returns that thread (``created=False``) when it has
  the same user and the same ``temporary`` flag, so a client can retry a create or call it at the start of
  every session; with another user or flag it is a conflict.
- Creating a new thread makes the same user's other open threads' pending messages episodes at once.
- A message to an ended thread reopens it; an ended *temporary* thread refuses it (its messages are gone).
- ``message_add`` is ONE SQL statement (autocommit, no explicit transaction): it bumps the thread's
  counters, schedules its episode and decides whether compaction is due (under the thread row's lock, so
  concurrent messages get consecutive ``seq``), and inserts the message. Compaction, when the thresholds
  are crossed, is enqueued after the commit; the message never waits for it.
"""

from __future__ import annotations

import logging
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import IntegrityError, connection, transaction
from django.utils import timezone

from memhq.ai.tokens import count_tokens
from memhq.models import Episode, Project, Thread, ThreadMessage, ThreadStatus
from memhq.replicas import freshness
from memhq.services.erasure_guard import erasure_guard
from memhq.services.thread_episodes import thread_cut
from memhq.threads.compaction import enqueue_compaction

logger = logging.getLogger(__name__)

#: Key of the per-project override of ``MEMHQ_AUTO_EPISODE_INTERVAL_S`` in ``Project.settings`` (seconds).
AUTO_EPISODE_INTERVAL_KEY = "auto_episode_interval"


class ThreadNotFound(Exception):
    """No thread with this id in the project (another project's thread looks exactly the same)."""


class ThreadConflict(Exception):
    """The thread id exists with another user or another ``temporary`` flag."""


class ThreadClosed(Exception):
    """The thread is an ended temporary thread: it takes no more messages."""


@dataclass(frozen=True)
class ThreadReceipt:
    thread: Thread
    created: bool
    episodes: list[Episode] = field(default_factory=list)  # cut from the user's other threads


@dataclass(frozen=True)
class AddedMessage:
    thread_id: uuid.UUID
    seq: int
    created_at: datetime
    episode_due_at: datetime | None
    compaction_requested: bool


def auto_episode_interval(project: Project) -> timedelta:
    """The project's ``auto_episode_interval`` (seconds) if it is a positive number, else the setting."""
    value = (project.settings or {}).get(AUTO_EPISODE_INTERVAL_KEY)
    if isinstance(value, int | float) and not isinstance(value, bool) and value > 0:
        return timedelta(seconds=value)
    if value is not None:
        logger.warning("project %s: ignoring invalid %s=%r", project.pk, AUTO_EPISODE_INTERVAL_KEY, value)
    return timedelta(seconds=settings.MEMHQ_AUTO_EPISODE_INTERVAL_S)


@transaction.atomic
def thread_create(
    *, project: Project, user_id: str, key: str | None = None, temporary: bool = False
) -> ThreadReceipt:
    erasure_guard(project.pk, user_id)  # no new thread while the user's data is being erased (409)
    thread_pk = uuid.uuid4()
    thread = Thread(pk=thread_pk, project=project, user_id=user_id, key=key or str(thread_pk))
    thread.temporary = temporary
    try:
        with transaction.atomic():  # a savepoint: a duplicate id must not poison the transaction
            thread.save(force_insert=True)
    except IntegrityError:
        existing = Thread.objects.get(project=project, key=thread.key)
        if existing.user_id != user_id or existing.temporary != temporary:
            raise ThreadConflict(thread.key) from None
        return ThreadReceipt(thread=existing, created=False)
    freshness.wrote(project.pk, user_id=user_id, thread_id=thread.key)
    others = (
        Thread.objects.select_for_update(of=("self",))
        .select_related("project")
        .filter(project=project, user_id=user_id, episode_due_at__isnull=False)
        .exclude(pk=thread.pk)
        .order_by("created_at", "pk")  # one lock order for every caller: no deadlock between creates
    )
    episodes = [episode for other in others for episode in thread_cut(thread=other)]
    return ThreadReceipt(thread=thread, created=True, episodes=episodes)


_ADD_MESSAGE_SQL = """
WITH t AS (
    UPDATE memhq_thread SET
        message_count = message_count + 1,
        last_activity_at = %(now)s,
        status = 'open',
        ended_at = NULL,
        episode_due_at = CASE WHEN temporary THEN NULL ELSE %(due)s END,
        unsummarized_tokens = unsummarized_tokens + %(tokens)s,
        compaction_requested_at = CASE
            WHEN (message_count + 1 - summary_through_seq > %(max_messages)s
                  OR unsummarized_tokens + %(tokens)s > %(max_tokens)s)
             AND (compaction_requested_at IS NULL OR compaction_requested_at < %(stale)s)
            THEN %(now)s ELSE compaction_requested_at END
    WHERE project_id = %(project_id)s AND "key" = %(key)s AND NOT (temporary AND status = 'ended')
    RETURNING id, message_count, episode_due_at, compaction_requested_at
)
INSERT INTO memhq_threadmessage
    (thread_id, seq, caller_id, role, name, content, "timestamp", created_at, tokens, episode_id)
SELECT id, message_count, %(caller_id)s, %(role)s, %(name)s, %(content)s, %(timestamp)s, %(now)s,
       %(tokens)s, NULL
FROM t
RETURNING thread_id, seq,
          (SELECT episode_due_at FROM t),
          (SELECT compaction_requested_at = %(now)s FROM t)
"""


def message_add(
    *,
    project: Project,
    key: str,
    role: str,
    content: str,
    name: str = "",
    caller_id: str = "",
    timestamp: datetime | None = None,
) -> AddedMessage:
    """Store one message and schedule the thread's episode; enqueue compaction when it becomes due."""
    now = timezone.now()
    params: dict[str, Any] = {
        "now": now,
        "due": now + auto_episode_interval(project),
        "tokens": count_tokens(content),
        "max_messages": settings.MEMHQ_THREAD_COMPACT_AFTER_MESSAGES,
        "max_tokens": settings.MEMHQ_THREAD_COMPACT_AFTER_TOKENS,
        "stale": now - timedelta(seconds=settings.MEMHQ_THREAD_COMPACTION_RETRY_S),
        "project_id": project.pk,
        "key": key,
        "caller_id": caller_id,
        "role": role,
        "name": name,
        "content": content,
        "timestamp": timestamp,
    }
    with connection.cursor() as cursor:
        cursor.execute(_ADD_MESSAGE_SQL, params)
        row = cursor.fetchone()
    if row is None:
        if Thread.objects.filter(project=project, key=key).exists():
            raise ThreadClosed(key)
        raise ThreadNotFound(key)
    thread_id, seq, episode_due_at, compact = row
    freshness.wrote(project.pk, thread_id=key)
    if compact:
        transaction.on_commit(lambda: enqueue_compaction(thread_id))
    return AddedMessage(thread_id, seq, now, episode_due_at, bool(compact))


def thread_wipe(*, thread: Thread, now: datetime) -> None:
    """End a temporary thread: delete its messages and its summary. The caller holds the row's lock."""
    ThreadMessage.objects.filter(thread=thread).delete()
    Thread.objects.filter(pk=thread.pk).update(
        status=ThreadStatus.ENDED,
        ended_at=now,
        episode_due_at=None,
        summary="",
        summary_through_seq=thread.message_count,
        summary_updated_at=None,
        unsummarized_tokens=0,
        compaction_requested_at=None,
    )


@transaction.atomic
def thread_end(*, project: Project, key: str) -> tuple[Thread, list[Episode]]:
    """Cut the pending messages into an episode now (or, for a temporary thread, delete them); idempotent."""
    thread = (
        Thread.objects.select_for_update(of=("self",))
        .select_related("project")
        .filter(project=project, key=key)
        .first()
    )
    if thread is None:
        raise ThreadNotFound(key)
    now = timezone.now()
    episodes: list[Episode] = []
    if thread.temporary:
        thread_wipe(thread=thread, now=now)
    else:
        episodes = thread_cut(thread=thread)
        if thread.status != ThreadStatus.ENDED:
            Thread.objects.filter(pk=thread.pk).update(status=ThreadStatus.ENDED, ended_at=now)
    freshness.wrote(project.pk, user_id=thread.user_id, thread_id=key)
    thread.refresh_from_db()
    return thread, episodes
