"""Reads for threads; every query is filtered by project, so another project's thread is an unknown id.

``prepare_and_recall`` runs the prepare statement and recall at the same time. Recall needs the thread's
user; a thread's (user, temporary) never change, so they are remembered per process after the first call
for a thread (which runs prepare, then recall). From then on prepare runs on the helper thread
(``memhq.threads.pool``, its own connection) while the request thread runs recall, the long one (query
embedding, then one SQL statement), so the short one hides behind it. Prepare's answer is the authority: if
the remembered identity turns out wrong (the thread was deleted and its id reused), the concurrent recall is
thrown away and recall runs again for the right user (or not at all for a temporary thread).
``MEMHQ_PREPARE_AND_RECALL_CONCURRENT=0`` always runs prepare, then recall (no helper thread, no second
connection per web process). Measured with ``memhq_bench thread`` (docs/benchmarks.md): prepare is well
under a millisecond next to recall's ~14 ms, so running them together saves at most prepare's time.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any, NamedTuple

from django.conf import settings
from django.db.models import Prefetch, QuerySet
from django.http import Http404

from memhq.models import Episode, Project, Thread
from memhq.threads import pool
from retrieval.prepare import Prepared, prepare
from retrieval.recall import RecallResult, recall

#: Remembered thread identities per process; the map is emptied when it reaches this size.
IDENTITY_CACHE_SIZE = 10_000


class Identity(NamedTuple):
    thread_id: uuid.UUID
    user_id: str
    temporary: bool


_identities: dict[tuple[str, str], Identity] = {}


@dataclass(frozen=True)
class RecallOptions:
    query: str
    limit: int
    max_tokens: int
    as_of: datetime | None = None
    include_history: bool = False
    kinds: list[str] | None = None


@dataclass(frozen=True)
class PreparedRecall:
    prepared: Prepared
    recall: RecallResult
    concurrent: bool  # recall ran beside prepare (else after it, or not at all)


def _episodes() -> Prefetch[Any]:
    return Prefetch("episodes", queryset=Episode.objects.only("id", "thread_id").order_by("received_at"))


def thread_get(*, project: Project, key: str) -> Thread:
    thread = Thread.objects.filter(project=project, key=key).prefetch_related(_episodes()).first()
    if thread is None:
        raise Http404
    return thread


def thread_list(
    *, project: Project, user_id: str | None = None, status: str | None = None
) -> QuerySet[Thread]:
    queryset = Thread.objects.filter(project=project).prefetch_related(_episodes())
    if user_id is not None:
        queryset = queryset.filter(user_id=user_id)
    if status is not None:
        queryset = queryset.filter(status=status)
    return queryset


def thread_prepare(*, project: Project, key: str, message_limit: int) -> Prepared:
    prepared = prepare(project_id=project.pk, thread_key=key, message_limit=message_limit)
    if prepared is None:
        raise Http404
    return prepared


def empty_recall() -> RecallResult:
    return RecallResult(items=[], context="", context_tokens=0, processed_through=None)


def _recall(project: Project, user_id: str, options: RecallOptions) -> RecallResult:
    return recall(
        project_id=project.pk,
        user_id=user_id,
        query_text=options.query,
        as_of=options.as_of,
        limit=options.limit,
        max_tokens=options.max_tokens,
        include_history=options.include_history,
        kinds=options.kinds,
    )


def _remember(cache_key: tuple[str, str], prepared: Prepared) -> None:
    if len(_identities) >= IDENTITY_CACHE_SIZE:
        _identities.clear()
    _identities[cache_key] = Identity(prepared.thread_id, prepared.user_id, prepared.temporary)


def prepare_and_recall(
    *, project: Project, key: str, message_limit: int, options: RecallOptions, concurrent: bool = True
) -> PreparedRecall:
    """A temporary thread gets no memories: recall is not even run."""
    cache_key = (str(project.pk), key)
    concurrent = concurrent and settings.MEMHQ_PREPARE_AND_RECALL_CONCURRENT
    known = _identities.get(cache_key) if concurrent else None
    if known is None or known.temporary:
        prepared = thread_prepare(project=project, key=key, message_limit=message_limit)
        _remember(cache_key, prepared)
        found = empty_recall() if prepared.temporary else _recall(project, prepared.user_id, options)
        return PreparedRecall(prepared, found, concurrent=False)
    future = pool.submit(prepare, project_id=project.pk, thread_key=key, message_limit=message_limit)
    found = _recall(project, known.user_id, options)
    maybe_prepared = future.result()
    if maybe_prepared is None:
        _identities.pop(cache_key, None)
        raise Http404
    prepared = maybe_prepared
    if Identity(prepared.thread_id, prepared.user_id, prepared.temporary) == known:
        return PreparedRecall(prepared, found, concurrent=True)
    _remember(cache_key, prepared)
    found = empty_recall() if prepared.temporary else _recall(project, prepared.user_id, options)
    return PreparedRecall(prepared, found, concurrent=False)
