"""Compaction: fold a thread's older messages into its summary, in a worker, never on the request path.

Due when the messages not covered by the summary exceed ``MEMHQ_THREAD_COMPACT_AFTER_MESSAGES`` messages or
``MEMHQ_THREAD_COMPACT_AFTER_TOKENS`` tokens (``message_add`` checks this on the thread row and enqueues the
task after its commit). The newest messages stay verbatim (at most ``MEMHQ_THREAD_KEEP_RECENT_MESSAGES`` and
``MEMHQ_THREAD_KEEP_RECENT_TOKENS``, always at least one); all older uncovered ones are folded.

No lock is held while summarising (an LLM call can take seconds, and messages keep arriving): the new
summary is written with a compare-and-swap on ``summary_through_seq``, so a concurrent compaction that got
there first wins and this one is discarded, and a temporary thread ended meanwhile is never written to.

Summariser: extractive (``memhq.threads.summariser``) by default; with ``MEMHQ_EXTRACTOR=openai`` one
structured call (``ingestion.prompts.thread_summary``). A permanent LLM error, or a transient one on the
task's last attempt, falls back to the extractive summary so working memory keeps compacting.
"""

from __future__ import annotations

import logging
import uuid
from enum import StrEnum

from django.conf import settings
from django.db.models import F, Value
from django.db.models.functions import Greatest
from django.utils import timezone

from config.celery import publish
from ingestion.prompts.thread_summary import SCHEMA_NAME, ThreadSummaryAnswer, Turn, build_messages
from memhq.ai.errors import PermanentAIError, TransientAIError
from memhq.ai.llm import make_client, structured_call
from memhq.ai.provider import llm_config
from memhq.ai.tokens import truncate_to_tokens
from memhq.models import Thread, ThreadMessage, ThreadStatus
from memhq.replicas import freshness
from memhq.threads import summariser

logger = logging.getLogger(__name__)
COMPACT_TASK = "threads.compact"


class Outcome(StrEnum):
    COMPACTED = "compacted"
    NOT_NEEDED = "not_needed"
    GONE = "gone"  # no such thread, or an ended temporary thread
    RACED = "raced"  # another compaction (or a temporary thread's end) changed the thread first


def over_threshold(thread: Thread) -> bool:
    uncovered = thread.message_count - thread.summary_through_seq
    return (
        uncovered > settings.MEMHQ_THREAD_COMPACT_AFTER_MESSAGES
        or thread.unsummarized_tokens > settings.MEMHQ_THREAD_COMPACT_AFTER_TOKENS
    )


def to_fold(messages: list[ThreadMessage]) -> list[ThreadMessage]:
    """The oldest of ``messages`` (oldest first): all but the newest ones within the keep limits."""
    kept = tokens = 0
    for index in range(len(messages) - 1, -1, -1):
        message = messages[index]
        full = (
            kept + 1 > settings.MEMHQ_THREAD_KEEP_RECENT_MESSAGES
            or tokens + message.tokens > settings.MEMHQ_THREAD_KEEP_RECENT_TOKENS
        )
        if kept and full:
            return messages[: index + 1]
        kept, tokens = kept + 1, tokens + message.tokens
    return []


def llm_summary(previous: str, messages: list[ThreadMessage], max_tokens: int) -> str:
    config = llm_config()
    turns = [Turn(summariser.speaker_of(message), message.content) for message in messages]
    result = structured_call(
        make_client(config),
        model=config.model,
        messages=build_messages(previous, turns, max_tokens),
        response_model=ThreadSummaryAnswer,
        schema_name=SCHEMA_NAME,
        stream=config.stream,
        max_call_s=config.max_call_s,
    )
    text = result.parsed.summary.strip()
    if not text:
        raise TransientAIError(f"{SCHEMA_NAME} call to {config.model}: empty summary")
    logger.info(
        "thread summary: %d prompt + %d completion tokens", result.prompt_tokens, result.completion_tokens
    )
    return text


def summarise(previous: str, messages: list[ThreadMessage], *, final_attempt: bool) -> str:
    max_tokens = settings.MEMHQ_THREAD_SUMMARY_MAX_TOKENS
    if settings.MEMHQ_EXTRACTOR == "openai":
        try:
            return truncate_to_tokens(llm_summary(previous, messages, max_tokens), max_tokens)
        except PermanentAIError:
            logger.warning("thread summary: the LLM refused permanently; extractive fallback", exc_info=True)
        except TransientAIError:
            if not final_attempt:
                raise
            logger.warning("thread summary: LLM retries exhausted; extractive fallback", exc_info=True)
    return summariser.summarise(previous, messages, max_tokens)


def compact(thread_id: uuid.UUID | str, *, final_attempt: bool = True) -> Outcome:
    """Fold the thread's older uncovered messages into its summary, if it is still over the threshold."""
    thread = Thread.objects.filter(pk=thread_id).first()
    if thread is None or (thread.temporary and thread.status == ThreadStatus.ENDED):
        return Outcome.GONE
    uncovered = list(
        ThreadMessage.objects.filter(thread=thread, seq__gt=thread.summary_through_seq)
        .only("seq", "role", "name", "content", "tokens")
        .order_by("seq")
    )
    folding = to_fold(uncovered) if over_threshold(thread) else []
    if not folding:
        Thread.objects.filter(pk=thread.pk).update(compaction_requested_at=None)
        return Outcome.NOT_NEEDED
    summary = summarise(thread.summary, folding, final_attempt=final_attempt)
    folded_tokens = sum(message.tokens for message in folding)
    updated = (
        Thread.objects.filter(pk=thread.pk, summary_through_seq=thread.summary_through_seq)
        .exclude(temporary=True, status=ThreadStatus.ENDED)
        .update(
            summary=summary,
            summary_through_seq=folding[-1].seq,
            summary_updated_at=timezone.now(),
            unsummarized_tokens=Greatest(F("unsummarized_tokens") - folded_tokens, Value(0)),
            compaction_requested_at=None,
        )
    )
    if updated:
        freshness.wrote(thread.project_id, thread_id=thread.key)
    return Outcome.COMPACTED if updated else Outcome.RACED


def enqueue_compaction(thread_id: uuid.UUID | str) -> bool:
    """Publish the compaction task; never raises (the inactivity sweep re-enqueues a missed request)."""
    try:
        publish(COMPACT_TASK, str(thread_id))
    except Exception:  # kombu/redis raise many types; the request stays recorded on the thread row
        logger.warning("could not enqueue compaction of thread %s; the sweep will retry", thread_id)
        return False
    return True
