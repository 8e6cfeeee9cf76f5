"""Deep consolidation, step 1: merge one user's duplicate entities (journaled in the chunk's batch).

Entities are examined in (type, normalised name) order — a content key, unique per user and type, so the
same data always gives the same merges. For each live entity, its duplicates are the user's other live
entities of the same type whose name or aliases overlap its name or aliases, or whose embedding is within
``ENTITY_MATCH_COSINE`` (the threshold entity resolution uses). The group is merged into its most mentioned
member (then the first by name): the others get ``merged_into``, their names and aliases become the
canonical entity's aliases, their mention counts are added, and every memory of the user that points at
them (``subject_entity``, ``object_entity``, ``entity_ids``) is re-pointed. Entities merged into a merged
entity are re-pointed too, so chains stay one hop long.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

from django.db.models import Q

from memhq.models import Entity, JournalEntry, Memory
from memhq.selectors.nearest import cosine_distance, few_rows
from memhq.services.entities import ENTITY_MATCH_COSINE, MAX_ALIASES
from memhq.services.journal import Journal, snapshot

#: At most this many duplicates are merged into one entity per examination (the rest on the next pass).
MAX_GROUP = 20


@dataclass(frozen=True)
class StepProgress:
    used: int  # rows examined or written
    done: bool  # the step has nothing left for this user
    position: dict[str, Any]


def _update(journal: Journal, instance: Entity | Memory, **fields: Any) -> None:
    before = snapshot(instance)
    for name, value in fields.items():
        setattr(instance, name, value)
    update_fields = list(fields) + (["updated_at"] if isinstance(instance, Entity) else [])
    instance.save(update_fields=update_fields)
    journal.record(JournalEntry.Op.UPDATE, instance, before=before)


def duplicates_of(entity: Entity) -> list[Entity]:
    keys = [entity.normalized_name, *entity.normalized_aliases]
    scope = Entity.objects.filter(
        project_id=entity.project_id, user_id=entity.user_id, type=entity.type, merged_into__isnull=True
    ).exclude(pk=entity.pk)
    found = {
        other.pk: other
        for other in scope.filter(Q(normalized_name__in=keys) | Q(normalized_aliases__overlap=keys)).order_by(
            "normalized_name"
        )[:MAX_GROUP]
    }
    if entity.embedding is not None:
        exact = few_rows(Entity.objects.filter(project_id=entity.project_id, user_id=entity.user_id))
        near = (
            scope.exclude(embedding__isnull=True)
            .annotate(distance=cosine_distance(entity.embedding, exact=exact))
            .filter(distance__lte=1.0 - ENTITY_MATCH_COSINE)
            .order_by("distance", "normalized_name")[:MAX_GROUP]
        )
        for other in near:
            found.setdefault(other.pk, other)
    return sorted(found.values(), key=lambda other: other.normalized_name)[:MAX_GROUP]


def entity_merge(journal: Journal, other: Entity, *, into: Entity) -> int:
    """Merge ``other`` into ``into``; returns how many rows it wrote."""
    aliases, normalized = list(into.aliases), list(into.normalized_aliases)
    for name, key in zip(
        [other.name, *other.aliases], [other.normalized_name, *other.normalized_aliases], strict=False
    ):
        if key != into.normalized_name and key not in normalized and len(aliases) < MAX_ALIASES:
            aliases.append(name)
            normalized.append(key)
    _update(
        journal,
        into,
        aliases=aliases,
        normalized_aliases=normalized,
        mention_count=into.mention_count + other.mention_count,
    )
    _update(journal, other, merged_into_id=into.pk)
    written = 2
    for merged in (
        Entity.objects.filter(merged_into_id=other.pk).defer("embedding").order_by("normalized_name")
    ):
        _update(journal, merged, merged_into_id=into.pk)
        written += 1
    return written + _repoint_memories(journal, other.pk, into.pk, other)


def _repoint_memories(journal: Journal, old: uuid.UUID, new: uuid.UUID, entity: Entity) -> int:
    memories = (
        Memory.objects.filter(project_id=entity.project_id, user_id=entity.user_id)
        .filter(Q(subject_entity_id=old) | Q(object_entity_id=old) | Q(entity_ids__contains=[old]))
        .defer("embedding")
        .order_by("valid_from", "text", "id")
    )
    written = 0
    for memory in memories:
        fields: dict[str, Any] = {
            "entity_ids": list(dict.fromkeys(new if value == old else value for value in memory.entity_ids))
        }
        if memory.subject_entity_id == old:
            fields["subject_entity_id"] = new
        if memory.object_entity_id == old:
            fields["object_entity_id"] = new
        _update(journal, memory, **fields)
        written += 1
    return written


def merge_step(
    journal: Journal, *, project_id: uuid.UUID, user_id: str, position: dict[str, Any], budget: int
) -> StepProgress:
    """Examine the user's entities after ``position`` until ``budget`` rows were examined or written."""
    used = 0
    while used < budget:
        after = Q()
        if position:
            after = Q(type__gt=position["type"]) | Q(
                type=position["type"], normalized_name__gt=position["name"]
            )
        entity = (
            Entity.objects.filter(project_id=project_id, user_id=user_id)
            .filter(after)
            .order_by("type", "normalized_name")
            .first()
        )
        if entity is None:
            return StepProgress(used, True, position)
        position = {"type": entity.type, "name": entity.normalized_name}
        used += 1
        if entity.merged_into_id is not None:
            continue
        duplicates = duplicates_of(entity)
        if not duplicates:
            continue
        group = [entity, *duplicates]
        canonical = min(group, key=lambda member: (-member.mention_count, member.normalized_name))
        for member in group:
            if member.pk != canonical.pk:
                used += entity_merge(journal, member, into=canonical)
    return StepProgress(used, False, position)
