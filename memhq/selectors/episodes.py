"""Reads for episodes; every query is filtered by project so other tenants' ids look like unknown ids."""

from __future__ import annotations

import uuid

from django.core.exceptions import ValidationError
from django.db.models import QuerySet
from django.http import Http404

from memhq.models import Episode, Project

LIST_FIELDS_DEFERRED = ("raw_body", "summary_embedding", "key_learnings")


def episode_get(*, project: Project, episode_id: uuid.UUID | str) -> Episode:
    try:
        return Episode.objects.defer(*LIST_FIELDS_DEFERRED).get(project=project, pk=episode_id)
    except (Episode.DoesNotExist, ValidationError, ValueError, TypeError):
        raise Http404 from None


def episode_list(
    *, project: Project, user_id: str | None = None, status: str | None = None
) -> QuerySet[Episode]:
    queryset = Episode.objects.filter(project=project).defer(*LIST_FIELDS_DEFERRED)
    if user_id is not None:
        queryset = queryset.filter(user_id=user_id)
    if status is not None:
        queryset = queryset.filter(status=status)
    return queryset
