"""What reverting a batch would do, row by row — the dry run, and the plan the revert applies.

Per row the batch touched (its journal entries grouped by table and row id):
- a memory the batch INSERTed → ``undo_insert``: marked ``deleted`` (never a hard delete);
- evidence the batch INSERTed → ``keep``: evidence is immutable; its memory is deleted instead;
- a row the batch UPDATEd → ``rollback_update``: every journaled field back to the ``before`` snapshot of the
  batch's first entry for that row (``id``, ``indexed_at``, ``created_at``, ``updated_at`` are not restored);
- a row already in the state the revert would give → ``unchanged``.

A later journal entry (of another batch) on any of the batch's rows is a conflict: the revert would
overwrite that later change, so it is refused unless forced. Anything else (a DELETE entry, a table MemHQ
cannot restore, a row that no longer exists) makes the batch not revertible.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.contrib.postgres.fields import ArrayField
from django.db import models
from django.db.models import Q
from django.utils import timezone

from memhq.models import Batch, Entity, Evidence, JournalEntry, Memory, MemoryStatus
from memhq.services.journal import snapshot

Op = JournalEntry.Op
MEMORY_TABLE = Memory._meta.db_table
EVIDENCE_TABLE = Evidence._meta.db_table
ENTITY_TABLE = Entity._meta.db_table
RESTORABLE: dict[str, type[models.Model]] = {MEMORY_TABLE: Memory, ENTITY_TABLE: Entity}
#: The text each table is embedded from: restoring it re-embeds the row.
EMBEDDED_FROM = {MEMORY_TABLE: "text", ENTITY_TABLE: "name"}
NOT_RESTORED = frozenset({"id", "indexed_at", "created_at", "updated_at"})

UNDO_INSERT = "undo_insert"
ROLLBACK_UPDATE = "rollback_update"
KEEP = "keep"
UNCHANGED = "unchanged"
APPLIED = (UNDO_INSERT, ROLLBACK_UPDATE)


class NotRevertible(Exception):
    """The batch holds a change MemHQ cannot undo."""


@dataclass
class RowChange:
    table: str
    row_id: str
    action: str
    fields: dict[str, tuple[Any, Any]] = field(default_factory=dict)  # name → (current, restored), JSON

    def as_dict(self) -> dict[str, Any]:
        return {
            "table": self.table,
            "row_id": self.row_id,
            "action": self.action,
            "fields": {
                name: {"current": current, "restored": restored}
                for name, (current, restored) in self.fields.items()
            },
        }


@dataclass
class ConflictingBatch:
    batch_id: str
    kind: str
    actor: str
    created_at: datetime
    rows: list[dict[str, str]]

    def as_dict(self) -> dict[str, Any]:
        return {
            "batch_id": self.batch_id,
            "kind": self.kind,
            "actor": self.actor,
            "created_at": self.created_at.isoformat(),
            "rows": self.rows,
        }


@dataclass
class RevertPlan:
    batch: Batch
    rows: list[RowChange]
    conflicts: list[ConflictingBatch]

    @property
    def applied(self) -> list[RowChange]:
        return [row for row in self.rows if row.action in APPLIED]

    def summary(self) -> dict[str, int]:
        counts = {"inserts_undone": 0, "updates_rolled_back": 0, "kept": 0, "unchanged": 0}
        names = {UNDO_INSERT: "inserts_undone", ROLLBACK_UPDATE: "updates_rolled_back", KEEP: "kept"}
        for row in self.rows:
            counts[names.get(row.action, "unchanged")] += 1
        return counts

    def as_dict(self) -> dict[str, Any]:
        return {
            "batch_id": str(self.batch.pk),
            "kind": self.batch.kind,
            "user_id": self.batch.user_id,
            "summary": self.summary(),
            "conflicts": [conflict.as_dict() for conflict in self.conflicts],
            "changes": [row.as_dict() for row in self.rows],
        }


def python_value(model: type[models.Model], attname: str, value: Any) -> Any:
    """A journaled (JSON) value back to what the model field holds."""
    if value is None:
        return None
    model_field = next(f for f in model._meta.concrete_fields if f.attname == attname)
    if isinstance(model_field, ArrayField):
        return [model_field.base_field.to_python(item) for item in value]
    if isinstance(model_field, models.ForeignKey):
        return model_field.target_field.to_python(value)
    return model_field.to_python(value)


def _same(model: type[models.Model], attname: str, current: Any, restored: Any) -> bool:
    return bool(python_value(model, attname, current) == python_value(model, attname, restored))


def _plan_row(table: str, row_id: str, entries: list[JournalEntry], now: datetime) -> RowChange:
    if any(entry.op == Op.DELETE for entry in entries):
        raise NotRevertible(f"{table} {row_id}: a deleted row cannot be restored from the journal.")
    first = entries[0]
    if table == EVIDENCE_TABLE and all(entry.op == Op.INSERT for entry in entries):
        return RowChange(table, row_id, KEEP)
    model = RESTORABLE.get(table)
    if model is None or (first.op == Op.INSERT and model is not Memory):
        raise NotRevertible(f"{table} {row_id}: MemHQ cannot undo a {first.op} of this table.")
    instance = model._default_manager.defer("embedding").filter(pk=row_id).first()
    if instance is None:
        raise NotRevertible(f"{table} {row_id} no longer exists.")
    current = snapshot(instance)
    if first.op == Op.INSERT:
        if current["status"] == MemoryStatus.DELETED:
            return RowChange(table, row_id, UNCHANGED)
        target: dict[str, Any] = {"status": MemoryStatus.DELETED.value}
        if current["expired_at"] is None:
            target["expired_at"] = now.isoformat()
        action = UNDO_INSERT
    else:
        target = {name: value for name, value in (first.before or {}).items() if name not in NOT_RESTORED}
        action = ROLLBACK_UPDATE
    changed = {
        name: (current.get(name), value)
        for name, value in target.items()
        if name in current and not _same(model, name, current.get(name), value)
    }
    return RowChange(table, row_id, action if changed else UNCHANGED, changed)


def _conflicts(batch: Batch, rows: dict[tuple[str, str], list[JournalEntry]]) -> list[ConflictingBatch]:
    by_table: dict[str, list[str]] = defaultdict(list)
    for table, row_id in rows:
        by_table[table].append(row_id)
    touching = Q()
    for table, row_ids in by_table.items():
        touching |= Q(table=table, row_id__in=row_ids)
    later = (
        JournalEntry.objects.filter(touching)
        .filter(batch__project_id=batch.project_id, batch__created_at__gte=batch.created_at)
        .exclude(batch_id=batch.pk)
        .select_related("batch")
        .order_by("batch__created_at", "batch_id", "seq")
    )
    found: dict[str, ConflictingBatch] = {}
    for entry in later:
        other = entry.batch
        conflict = found.setdefault(
            str(other.pk), ConflictingBatch(str(other.pk), other.kind, other.actor, other.created_at, [])
        )
        row = {"table": entry.table, "row_id": entry.row_id}
        if row not in conflict.rows:
            conflict.rows.append(row)
    return list(found.values())


def revert_plan(batch: Batch, *, now: datetime | None = None) -> RevertPlan:
    """The exact diff reverting ``batch`` would apply now (reads only)."""
    now = now or timezone.now()
    rows: dict[tuple[str, str], list[JournalEntry]] = {}
    for entry in JournalEntry.objects.filter(batch=batch).order_by("seq"):
        rows.setdefault((entry.table, entry.row_id), []).append(entry)
    changes = [_plan_row(table, row_id, entries, now) for (table, row_id), entries in rows.items()]
    return RevertPlan(batch=batch, rows=changes, conflicts=_conflicts(batch, rows) if rows else [])
