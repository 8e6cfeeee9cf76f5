"""Writes for memories and their evidence. Every write is recorded in the caller's journal (batch)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.utils import timezone

from memhq.models import Episode, Evidence, JournalEntry, Memory, MemoryStatus
from memhq.services.journal import Journal, snapshot

#: Each reinforcement closes this share of the gap between the memory's confidence and certainty.
REINFORCE_CONFIDENCE_STEP = 0.25


def memory_build(journal: Journal, **fields: Any) -> Memory:
    """A new memory, journaled but not yet written: the caller inserts it (:func:`memories_insert`)."""
    now = timezone.now()
    fields.setdefault("recorded_at", now)
    fields.setdefault("last_seen_at", fields.get("valid_from") or now)
    memory = Memory(project_id=journal.batch.project_id, user_id=journal.batch.user_id, **fields)
    journal.record(JournalEntry.Op.INSERT, memory, before=None)
    return memory


def memory_create(journal: Journal, **fields: Any) -> Memory:
    memory = memory_build(journal, **fields)
    memory.save(force_insert=True)
    return memory


def memories_insert(memories: list[Memory]) -> None:
    """Write memories built by :func:`memory_build` in one INSERT."""
    Memory.objects.bulk_create(memories)


REINFORCED_FIELDS = ["confidence", "importance", "reinforce_count", "last_seen_at"]


def memory_reinforce(
    journal: Journal, memory: Memory, *, seen_at: datetime, importance: float, save: bool = True
) -> Memory:
    """``save=False``: the caller writes :data:`REINFORCED_FIELDS` itself (reconcile: one bulk UPDATE)."""
    before = snapshot(memory)
    memory.confidence = min(1.0, memory.confidence + REINFORCE_CONFIDENCE_STEP * (1.0 - memory.confidence))
    memory.importance = max(memory.importance, importance)
    memory.reinforce_count += 1
    memory.last_seen_at = max(memory.last_seen_at, seen_at)
    if save:
        memory.save(update_fields=REINFORCED_FIELDS)
    journal.record(JournalEntry.Op.UPDATE, memory, before=before)
    return memory


SUPERSEDED_FIELDS = ["status", "valid_until", "superseded_by", "expired_at"]


def memory_supersede(journal: Journal, old: Memory, *, by: Memory, save: bool = True) -> Memory:
    """``old`` stops being valid when ``by`` starts; it stays queryable as history. ``save=False``: the
    caller writes :data:`SUPERSEDED_FIELDS` itself (reconcile: one bulk UPDATE)."""
    before = snapshot(old)
    old.status = MemoryStatus.SUPERSEDED
    old.valid_until = max(by.valid_from, old.valid_from)  # a plan called off before its day never held
    old.superseded_by = by
    old.expired_at = timezone.now()
    if save:
        old.save(update_fields=SUPERSEDED_FIELDS)
    journal.record(JournalEntry.Op.UPDATE, old, before=before)
    return old


def evidence_add(
    journal: Journal,
    memory: Memory,
    *,
    episode: Episode | None,
    message_indexes: list[int],
    caller_message_ids: list[str],
    quote: str,
) -> Evidence:
    evidence = Evidence.objects.create(
        memory=memory,
        episode=episode,
        message_indexes=message_indexes,
        caller_message_ids=caller_message_ids,
        quote=quote,
    )
    journal.record(JournalEntry.Op.INSERT, evidence, before=None)
    return evidence


def evidence_bulk_add(journal: Journal, evidence: list[Evidence]) -> list[Evidence]:
    """Insert unsaved evidence rows in one statement, journaled like :func:`evidence_add`."""
    created = Evidence.objects.bulk_create(evidence)
    for row in created:
        journal.record(JournalEntry.Op.INSERT, row, before=None)
    return created
