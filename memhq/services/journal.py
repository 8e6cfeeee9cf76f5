"""The journal: every write a batch makes, with the row before and after — enough to revert the batch."""

from __future__ import annotations

import uuid
from datetime import date, datetime
from typing import Any

from django.db import models

from memhq.models import Batch, BatchKind, Episode, JournalEntry

#: Columns not worth journaling: derived from others and re-computable (vectors, full-text).
UNJOURNALED = frozenset({"embedding", "search_vector", "summary_embedding"})


def _jsonable(value: Any) -> Any:
    if isinstance(value, datetime | date):
        return value.isoformat()
    if isinstance(value, uuid.UUID):
        return str(value)
    if isinstance(value, list | tuple):
        return [_jsonable(item) for item in value]
    return value


def snapshot(instance: models.Model) -> dict[str, Any]:
    return {
        field.attname: _jsonable(getattr(instance, field.attname))
        for field in instance._meta.concrete_fields
        if field.attname not in UNJOURNALED
    }


class Journal:
    """Collects a batch's entries in memory and writes them in one bulk INSERT at ``flush``."""

    def __init__(self, batch: Batch) -> None:
        self.batch = batch
        self._entries: list[JournalEntry] = []
        self._seq = 0

    def record(self, op: str, instance: models.Model, before: dict[str, Any] | None) -> None:
        after = None if op == JournalEntry.Op.DELETE else snapshot(instance)
        self._entries.append(
            JournalEntry(
                batch=self.batch,
                seq=self._seq,
                op=op,
                table=instance._meta.db_table,
                row_id=str(instance.pk),
                before=before,
                after=after,
            )
        )
        self._seq += 1

    def flush(self) -> int:
        JournalEntry.objects.bulk_create(self._entries)
        count = len(self._entries)
        self._entries = []
        return count


def batch_open(*, episode: Episode, kind: str = BatchKind.EPISODE) -> Journal:
    batch = Batch.objects.create(
        project_id=episode.project_id, user_id=episode.user_id, kind=kind, episode=episode
    )
    return Journal(batch)
