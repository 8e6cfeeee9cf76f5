"""Reverting a batch: apply its revert plan (``memhq.services.revert_plan``) atomically, as a new batch.

The plan is computed again under the user's entity and memory locks, inside the transaction that applies
it, so the dry run a caller saw and what is applied can differ only if something changed in between (and
then the conflict check catches it). The revert is itself a journaled batch (``BatchKind.REVERT``,
``reverts`` → the original), so it can be reverted in turn. Restored texts (memories) and names (entities)
are embedded again, because the journal does not keep vectors.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db import transaction
from django.utils import timezone

from memhq.ai.provider import get_embedder
from memhq.models import Batch, BatchKind, JournalEntry
from memhq.services.batches import batch_finish, batch_start
from memhq.services.journal import Journal, snapshot
from memhq.services.locks import LockNamespace, lock_user
from memhq.services.revert_plan import (
    EMBEDDED_FROM,
    MEMORY_TABLE,
    RESTORABLE,
    NotRevertible,
    RevertPlan,
    RowChange,
    python_value,
    revert_plan,
)

__all__ = ["NotRevertible", "RevertConflict", "RevertResult", "batch_revert", "revert_plan"]


class RevertConflict(Exception):
    """Later batches changed rows of this batch again; reverting would overwrite them."""

    def __init__(self, plan: RevertPlan) -> None:
        super().__init__(
            f"Rows of batch {plan.batch.pk} were changed again by {len(plan.conflicts)} later batch(es); "
            "revert those first, or force the revert."
        )
        self.plan = plan


@dataclass(frozen=True)
class RevertResult:
    plan: RevertPlan
    revert_batch: Batch | None  # None when there was nothing to change


def _restored_vectors(changes: list[RowChange]) -> dict[tuple[str, str], object]:
    to_embed = [
        (change, str(change.fields[EMBEDDED_FROM[change.table]][1]))
        for change in changes
        if EMBEDDED_FROM.get(change.table) in change.fields
    ]
    if not to_embed:
        return {}
    vectors = get_embedder().embed([text for _, text in to_embed])
    return {
        (change.table, change.row_id): vector for (change, _), vector in zip(to_embed, vectors, strict=True)
    }


def _apply(journal: Journal, change: RowChange, vector: object | None) -> None:
    model = RESTORABLE[change.table]
    instance = model._default_manager.select_for_update().defer("embedding").get(pk=change.row_id)
    before = snapshot(instance)
    update_fields = list(change.fields)
    for name, (_, restored) in change.fields.items():
        setattr(instance, name, python_value(model, name, restored))
    if vector is not None:
        instance.embedding = vector  # type: ignore[attr-defined]
        update_fields.append("embedding")
        if change.table == MEMORY_TABLE:
            instance.indexed_at = timezone.now()  # type: ignore[attr-defined]
            update_fields.append("indexed_at")
    if any(f.attname == "updated_at" for f in model._meta.concrete_fields):
        update_fields.append("updated_at")
    instance.save(update_fields=update_fields)
    journal.record(JournalEntry.Op.UPDATE, instance, before=before)


def batch_revert(*, batch: Batch, actor: str, force: bool = False) -> RevertResult:
    """Undo ``batch`` atomically; raises ``RevertConflict`` (unless ``force``) or ``NotRevertible``."""
    with transaction.atomic():
        lock_user(LockNamespace.ENTITIES, batch.project_id, batch.user_id)
        lock_user(LockNamespace.MEMORIES, batch.project_id, batch.user_id)
        plan = revert_plan(batch)
        if plan.conflicts and not force:
            raise RevertConflict(plan)
        changes = plan.applied
        if not changes:
            return RevertResult(plan=plan, revert_batch=None)
        journal = batch_start(
            project_id=batch.project_id,
            user_id=batch.user_id,
            kind=BatchKind.REVERT,
            actor=actor,
            note=f"revert of {batch.kind} batch {batch.pk}" + (" (forced)" if plan.conflicts else ""),
            reverts=batch,
        )
        vectors = _restored_vectors(changes)
        for change in changes:
            _apply(journal, change, vectors.get((change.table, change.row_id)))
        return RevertResult(plan=plan, revert_batch=batch_finish(journal))
