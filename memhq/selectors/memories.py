"""Reads for memories and entities, always filtered by project (other tenants' ids look unknown)."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from django.core.exceptions import ValidationError
from django.db.models import Q, QuerySet
from django.http import Http404

from memhq.models import Entity, Memory, MemoryStatus, Project

#: How far a supersede chain is followed in either direction.
MAX_CHAIN = 50
LISTED_STATUSES = (MemoryStatus.ACTIVE, MemoryStatus.SUPERSEDED, MemoryStatus.DISABLED)


def valid_at(as_of: datetime) -> Q:
    return Q(valid_from__lte=as_of) & (Q(valid_until__isnull=True) | Q(valid_until__gt=as_of))


def memory_list(
    *, project: Project, user_id: str, status: str | None = None, as_of: datetime | None = None
) -> QuerySet[Memory]:
    queryset = Memory.objects.filter(project=project, user_id=user_id).defer("embedding")
    queryset = queryset.filter(status=status) if status else queryset.filter(status__in=LISTED_STATUSES)
    if as_of is not None:
        queryset = queryset.filter(valid_at(as_of)).exclude(status=MemoryStatus.DISABLED)
    return queryset


def _get(queryset: QuerySet[Any], pk: uuid.UUID | str) -> Any:
    try:
        return queryset.get(pk=pk)
    except (queryset.model.DoesNotExist, ValidationError, ValueError):
        raise Http404 from None


def memory_get(*, project: Project, memory_id: uuid.UUID | str) -> Memory:
    queryset = Memory.objects.filter(project=project).exclude(status=MemoryStatus.DELETED).defer("embedding")
    memory: Memory = _get(queryset.prefetch_related("evidence"), memory_id)
    return memory


def memory_chain(memory: Memory) -> tuple[list[Memory], list[Memory]]:
    """(older versions it superseded, newest first; newer versions that superseded it, oldest first)."""
    scope = Memory.objects.filter(project_id=memory.project_id, user_id=memory.user_id).defer("embedding")
    older: list[Memory] = []
    frontier = [memory.pk]
    while frontier and len(older) < MAX_CHAIN:
        found = list(scope.filter(superseded_by__in=frontier).order_by("-valid_from"))
        older.extend(found)
        frontier = [item.pk for item in found]
    newer: list[Memory] = []
    current = memory
    while current.superseded_by_id and len(newer) < MAX_CHAIN:
        next_memory = scope.filter(pk=current.superseded_by_id).first()
        if next_memory is None:
            break
        newer.append(next_memory)
        current = next_memory
    return older, newer


def entity_list(*, project: Project, user_id: str, type_: str | None = None) -> QuerySet[Entity]:
    queryset = Entity.objects.filter(project=project, user_id=user_id, merged_into__isnull=True).defer(
        "embedding"
    )
    return queryset.filter(type=type_) if type_ else queryset


def entity_get(*, project: Project, entity_id: uuid.UUID | str) -> Entity:
    entity: Entity = _get(Entity.objects.filter(project=project).defer("embedding"), entity_id)
    return entity


def entity_memories(entity: Entity) -> QuerySet[Memory]:
    return (
        Memory.objects.filter(
            project_id=entity.project_id, user_id=entity.user_id, entity_ids__contains=[entity.pk]
        )
        .filter(status__in=LISTED_STATUSES)
        .defer("embedding")
        .order_by("-valid_from")
    )
