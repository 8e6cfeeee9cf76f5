"""The user's control over their memories: state one, edit it, disable or enable it, delete it.

Every change is one journaled batch (``BatchKind.EDIT``, with its actor: ``key:<api key prefix>`` or
``admin:<username>``) written in one transaction under the per-user memory lock, so it can be reverted
like any other batch and shows in the memory's history. Choices (docs/memory-control.md):

- A user-stated memory has ``origin=user``, confidence 1 and, as evidence, the request itself (an evidence
  row with no episode, quoting the text). Its subject/object are linked to the user's existing entities
  whose name or alias matches exactly; no entity is created.
- Editing the text, object or kind *supersedes*: a new version (``origin=user``) replaces the old one,
  which stays in history with ``status=superseded`` and a validity window closed at the new version's
  start (a correction: the old version was never true). Changing only the importance (or the status)
  is an in-place update — importance is a score, not a statement.
- Only the current version (active or disabled) can be edited, disabled or enabled; a superseded one
  answers ``MemoryNotCurrent`` (409). Deleting works on any version: ``status=deleted``, never a hard
  delete; the row, its evidence and its journal stay.
- A change that changes nothing writes nothing (no batch).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime

import numpy as np
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Q
from django.http import Http404
from django.utils import timezone

from ingestion.extractors.base import USER_SUBJECT
from memhq.ai.provider import get_embedder
from memhq.models import Batch, BatchKind, Entity, JournalEntry, Memory, MemoryOrigin, MemoryStatus, Project
from memhq.services.batches import batch_finish, batch_start
from memhq.services.entities import normalize_name
from memhq.services.erasure_guard import erasure_guard
from memhq.services.journal import Journal, snapshot
from memhq.services.locks import LockNamespace, lock_user
from memhq.services.memories import evidence_add, memory_create, memory_supersede

USER_MEMORY_CONFIDENCE = 1.0
#: Importance of a user-stated memory when the request gives none (extraction's range is 0.4–0.95).
USER_MEMORY_IMPORTANCE = 0.7
CURRENT_STATUSES = (MemoryStatus.ACTIVE, MemoryStatus.DISABLED)
SWITCHABLE_STATUSES = (MemoryStatus.ACTIVE, MemoryStatus.DISABLED)


class MemoryNotCurrent(Exception):
    """The memory was superseded: only its current version can be changed."""

    def __init__(self, memory: Memory) -> None:
        super().__init__(
            f"Memory {memory.pk} is {memory.status}"
            + (f" by {memory.superseded_by_id}" if memory.superseded_by_id else "")
            + "; change its current version instead."
        )
        self.memory = memory


@dataclass(frozen=True)
class MemoryChange:
    memory: Memory  # the current version after the change
    batch: Batch | None  # None when nothing changed


def _embed(text: str) -> np.ndarray:
    return get_embedder().embed([text])[0]


def _entity_named(project_id: uuid.UUID, user_id: str, name: str) -> uuid.UUID | None:
    normalized = normalize_name(name)
    if not normalized or normalized == USER_SUBJECT:
        return None
    found: uuid.UUID | None = (
        Entity.objects.filter(project_id=project_id, user_id=user_id, merged_into__isnull=True)
        .filter(Q(normalized_name=normalized) | Q(normalized_aliases__contains=[normalized]))
        .order_by("-mention_count", "normalized_name", "id")
        .values_list("pk", flat=True)
        .first()
    )
    return found


def _entity_ids(*ids: uuid.UUID | None) -> list[uuid.UUID]:
    return list(dict.fromkeys(entity_id for entity_id in ids if entity_id is not None))


def memory_add_by_user(
    *,
    project: Project,
    user_id: str,
    text: str,
    kind: str,
    actor: str,
    subject: str = USER_SUBJECT,
    predicate: str = "",
    object_value: str = "",
    importance: float | None = None,
    valid_from: datetime | None = None,
) -> MemoryChange:
    """A memory the user states; visible to recall at once (embedded here, ``indexed_at`` set)."""
    vector = _embed(text)  # outside the transaction: the lock is held only for the writes
    now = timezone.now()
    with transaction.atomic():
        erasure_guard(project.pk, user_id)  # no new memory while the user's data is being erased (409)
        lock_user(LockNamespace.MEMORIES, project.pk, user_id)
        journal = batch_start(
            project_id=project.pk, user_id=user_id, kind=BatchKind.EDIT, actor=actor, note="memory stated"
        )
        subject_entity = _entity_named(project.pk, user_id, subject)
        object_entity = _entity_named(project.pk, user_id, object_value) if object_value else None
        memory = memory_create(
            journal,
            text=text,
            kind=kind,
            subject=subject,
            subject_entity_id=subject_entity,
            predicate=predicate,
            object_value=object_value,
            object_entity_id=object_entity,
            entity_ids=_entity_ids(subject_entity, object_entity),
            confidence=USER_MEMORY_CONFIDENCE,
            importance=USER_MEMORY_IMPORTANCE if importance is None else importance,
            valid_from=valid_from or now,
            last_seen_at=now,
            origin=MemoryOrigin.USER,
            embedding=vector,
            indexed_at=now,
        )
        evidence_add(journal, memory, episode=None, message_indexes=[], caller_message_ids=[], quote=text)
        return MemoryChange(memory=memory, batch=batch_finish(journal))


def _locked(project: Project, memory_id: uuid.UUID | str) -> Memory:
    """The memory (not deleted) under its user's memory lock; 404 for unknown or other projects' ids."""
    live = Memory.objects.filter(project=project).exclude(status=MemoryStatus.DELETED)
    try:
        user_id = live.values_list("user_id", flat=True).get(pk=memory_id)
    except (Memory.DoesNotExist, ValidationError, ValueError):
        raise Http404 from None
    lock_user(LockNamespace.MEMORIES, project.pk, user_id)
    memory = live.select_for_update().filter(pk=memory_id).first()
    if memory is None:  # deleted while we waited for the lock
        raise Http404
    return memory


def _set(journal: Journal, memory: Memory, **fields: object) -> None:
    before = snapshot(memory)
    for name, value in fields.items():
        setattr(memory, name, value)
    memory.save(update_fields=list(fields))
    journal.record(JournalEntry.Op.UPDATE, memory, before=before)


def memory_edit(
    *,
    project: Project,
    memory_id: uuid.UUID | str,
    actor: str,
    text: str | None = None,
    object_value: str | None = None,
    kind: str | None = None,
    importance: float | None = None,
    status: str | None = None,
) -> MemoryChange:
    """Edit the current version: new text/object/kind supersede it; importance and status change in place."""
    vector = _embed(text) if text is not None else None
    with transaction.atomic():
        memory = _locked(project, memory_id)
        if memory.status not in CURRENT_STATUSES:
            raise MemoryNotCurrent(memory)
        content = {
            name: value
            for name, value in (("text", text), ("object_value", object_value), ("kind", kind))
            if value is not None and value != getattr(memory, name)
        }
        journal = batch_start(
            project_id=project.pk,
            user_id=memory.user_id,
            kind=BatchKind.EDIT,
            actor=actor,
            note="memory edited",
        )
        current = memory
        if content:
            current = _new_version(journal, memory, content, importance, vector)
        elif importance is not None and importance != memory.importance:
            _set(journal, memory, importance=importance)
        if status is not None and status != current.status:
            _set(journal, current, status=status)
        return MemoryChange(memory=current, batch=batch_finish(journal))


def _new_version(
    journal: Journal,
    old: Memory,
    content: dict[str, str],
    importance: float | None,
    vector: np.ndarray | None,
) -> Memory:
    now = timezone.now()
    object_entity = old.object_entity_id
    entity_ids = list(old.entity_ids)
    if "object_value" in content:
        object_entity = _entity_named(old.project_id, old.user_id, content["object_value"])
        entity_ids = [entity for entity in entity_ids if entity != old.object_entity_id]
    if vector is None:  # the text did not change: so does not its embedding
        vector = Memory.objects.values_list("embedding", flat=True).get(pk=old.pk)
    new = memory_create(
        journal,
        text=content.get("text", old.text),
        kind=content.get("kind", old.kind),
        subject=old.subject,
        subject_entity_id=old.subject_entity_id,
        predicate=old.predicate,
        object_value=content.get("object_value", old.object_value),
        object_entity_id=object_entity,
        entity_ids=_entity_ids(old.subject_entity_id, object_entity, *entity_ids),
        confidence=USER_MEMORY_CONFIDENCE,
        importance=old.importance if importance is None else importance,
        status=old.status,
        valid_from=old.valid_from,
        last_seen_at=now,
        origin=MemoryOrigin.USER,
        episode_id=old.episode_id,
        embedding=vector,
        indexed_at=now,
    )
    memory_supersede(journal, old, by=new)
    evidence_add(journal, new, episode=None, message_indexes=[], caller_message_ids=[], quote=new.text)
    return new


def memory_set_status(
    *, project: Project, memory_id: uuid.UUID | str, status: str, actor: str
) -> MemoryChange:
    """Disable (never in recall, still listed) or enable the current version; idempotent."""
    if status not in SWITCHABLE_STATUSES:
        raise ValueError(f"status must be one of {SWITCHABLE_STATUSES}")
    return memory_edit(project=project, memory_id=memory_id, actor=actor, status=status)


def memory_delete(*, project: Project, memory_id: uuid.UUID | str, actor: str) -> MemoryChange:
    """``status=deleted``: out of recall and lists; the row, its evidence and its history stay."""
    with transaction.atomic():
        memory = _locked(project, memory_id)
        journal = batch_start(
            project_id=project.pk,
            user_id=memory.user_id,
            kind=BatchKind.EDIT,
            actor=actor,
            note="memory deleted",
        )
        _set(journal, memory, status=MemoryStatus.DELETED, expired_at=memory.expired_at or timezone.now())
        return MemoryChange(memory=memory, batch=batch_finish(journal))
