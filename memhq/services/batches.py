"""Opening journaled batches that belong to no episode: user edits, reverts, consolidation chunks."""

from __future__ import annotations

import uuid

from memhq.models import Batch, BatchKind
from memhq.replicas import freshness
from memhq.services.journal import Journal

#: ``Batch.actor`` of the deep-consolidation sweep.
CONSOLIDATION_ACTOR = "consolidation"
MAX_NOTE_CHARS = 500


def batch_start(
    *,
    project_id: uuid.UUID,
    user_id: str,
    kind: BatchKind,
    actor: str,
    note: str = "",
    reverts: Batch | None = None,
) -> Journal:
    """A new batch and its journal; call inside the transaction (and under the lock) of the change."""
    batch = Batch.objects.create(
        project_id=project_id,
        user_id=user_id,
        kind=kind,
        actor=actor[:200],
        note=note[:MAX_NOTE_CHARS],
        reverts=reverts,
    )
    return Journal(batch)


def batch_finish(journal: Journal) -> Batch | None:
    """Write the journal; a batch that recorded nothing is removed (returns None)."""
    batch = journal.batch
    freshness.wrote(batch.project_id, user_id=batch.user_id)
    if journal.flush() == 0:
        journal.batch.delete()
        return None
    return journal.batch
