"""Reads for batches and their journal, always filtered by project (other tenants' ids look unknown)."""

from __future__ import annotations

import uuid

from django.core.exceptions import ValidationError
from django.db.models import Count, QuerySet
from django.http import Http404

from memhq.models import Batch, JournalEntry, Project


def batch_list(*, project: Project, user_id: str | None = None, kind: str | None = None) -> QuerySet[Batch]:
    queryset = Batch.objects.filter(project=project).annotate(entry_count=Count("entries"))
    if user_id is not None:
        queryset = queryset.filter(user_id=user_id)
    if kind is not None:
        queryset = queryset.filter(kind=kind)
    return queryset


def batch_get(*, project: Project, batch_id: uuid.UUID | str) -> Batch:
    try:
        return Batch.objects.get(project=project, pk=batch_id)
    except (Batch.DoesNotExist, ValidationError, ValueError):
        raise Http404 from None


def batch_entries(batch: Batch) -> QuerySet[JournalEntry]:
    return JournalEntry.objects.filter(batch=batch).order_by("seq")


def batch_reverted_by(batch: Batch) -> list[uuid.UUID]:
    return list(Batch.objects.filter(reverts=batch).order_by("created_at").values_list("pk", flat=True))
