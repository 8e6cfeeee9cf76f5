"""A memory's whole history: every version of its supersede chain and every journaled change, oldest first.

Versions come from the supersede links (``memhq.selectors.memories.memory_chain``: world changes such as a
move, and user edits); events from the journal entries of those versions and of their evidence, grouped per
batch, each with the evidence that batch added (evidence rows are immutable, so the row is the snapshot).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db.models import Q
from django.http import Http404

from memhq.models import Batch, BatchKind, Evidence, JournalEntry, Memory, MemoryStatus, Project
from memhq.selectors.memories import memory_chain

MEMORY_TABLE = Memory._meta.db_table
EVIDENCE_TABLE = Evidence._meta.db_table
INSERT_ACTIONS = {
    BatchKind.EPISODE: "extracted",
    BatchKind.EDIT: "stated",
    BatchKind.CONSOLIDATION: "created",
    BatchKind.REVERT: "restored",
}
STATUS_ACTIONS: dict[str, str] = {
    MemoryStatus.SUPERSEDED: "superseded",
    MemoryStatus.DISABLED: "disabled",
    MemoryStatus.DELETED: "deleted",
}


@dataclass
class HistoryEvent:
    at: datetime
    action: str
    memory_id: str
    op: str
    batch: Batch | None
    changes: dict[str, dict[str, Any]] = field(default_factory=dict)
    snapshot: dict[str, Any] | None = None
    evidence: list[Evidence] = field(default_factory=list)


@dataclass
class MemoryHistory:
    memory: Memory
    current: Memory
    versions: list[Memory]
    events: list[HistoryEvent]
    truncated: bool


def memory_get_any(*, project: Project, memory_id: uuid.UUID | str) -> Memory:
    """A memory of the project in any status, deleted included (its history stays readable)."""
    try:
        return Memory.objects.defer("embedding").get(project=project, pk=memory_id)
    except (Memory.DoesNotExist, ValidationError, ValueError):
        raise Http404 from None


def _changes(before: dict[str, Any], after: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {
        name: {"before": before.get(name), "after": value}
        for name, value in after.items()
        if before.get(name) != value
    }


def _update_action(batch: Batch, before: dict[str, Any], after: dict[str, Any]) -> str:
    if batch.kind == BatchKind.REVERT:
        return "reverted"
    status = after.get("status")
    if status != before.get("status"):
        if status == MemoryStatus.ACTIVE:
            return "enabled" if before.get("status") == MemoryStatus.DISABLED else "restored"
        return STATUS_ACTIONS.get(str(status), "updated")
    if (after.get("reinforce_count") or 0) > (before.get("reinforce_count") or 0):
        return "reinforced"
    return "consolidated" if batch.kind == BatchKind.CONSOLIDATION else "updated"


def _event(entry: JournalEntry, superseding: set[uuid.UUID]) -> HistoryEvent:
    batch = entry.batch
    if entry.op == JournalEntry.Op.INSERT:
        action = INSERT_ACTIONS.get(BatchKind(batch.kind), "created")
        if batch.kind == BatchKind.EDIT and batch.pk in superseding:
            action = "edited"
        changes: dict[str, dict[str, Any]] = {}
    else:
        action = _update_action(batch, entry.before or {}, entry.after or {})
        changes = _changes(entry.before or {}, entry.after or {})
    return HistoryEvent(
        at=batch.created_at,
        action=action,
        memory_id=entry.row_id,
        op=entry.op,
        batch=batch,
        changes=changes,
        snapshot=entry.after,
    )


def memory_history(memory: Memory) -> MemoryHistory:
    older, newer = memory_chain(memory)
    versions = sorted([*older, memory, *newer], key=lambda version: (version.recorded_at, str(version.pk)))
    version_ids = [str(version.pk) for version in versions]
    evidence = {str(row.pk): row for row in Evidence.objects.filter(memory_id__in=version_ids)}
    entries = (
        JournalEntry.objects.filter(
            Q(table=MEMORY_TABLE, row_id__in=version_ids) | Q(table=EVIDENCE_TABLE, row_id__in=list(evidence))
        )
        .select_related("batch")
        .order_by("batch__created_at", "batch_id", "seq")
    )
    memory_entries = [entry for entry in entries if entry.table == MEMORY_TABLE]
    superseding = {
        entry.batch_id
        for entry in memory_entries
        if entry.op == JournalEntry.Op.UPDATE
        and (entry.after or {}).get("status") == MemoryStatus.SUPERSEDED
        and (entry.before or {}).get("status") != MemoryStatus.SUPERSEDED
    }
    events: list[HistoryEvent] = []
    by_key: dict[tuple[uuid.UUID, str], HistoryEvent] = {}
    for entry in entries:
        if entry.table == MEMORY_TABLE:
            event = _event(entry, superseding)
            events.append(event)
            by_key.setdefault((entry.batch_id, entry.row_id), event)
            continue
        row = evidence[entry.row_id]
        owner = by_key.get((entry.batch_id, str(row.memory_id)))
        if owner is None:
            owner = HistoryEvent(
                entry.batch.created_at, "evidence_added", str(row.memory_id), entry.op, entry.batch
            )
            events.append(owner)
        owner.evidence.append(row)
    inserted = {entry.row_id for entry in memory_entries if entry.op == JournalEntry.Op.INSERT}
    for version in versions:  # rows written before the journal existed
        if str(version.pk) not in inserted:
            events.append(HistoryEvent(version.recorded_at, "created", str(version.pk), "insert", None))
    events.sort(key=lambda event: event.at)
    limit = settings.MEMHQ_HISTORY_MAX_EVENTS
    current = newer[-1] if newer else memory
    return MemoryHistory(memory, current, versions, events[:limit], truncated=len(events) > limit)
