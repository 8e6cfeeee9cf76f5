"""Reads for projects and API keys."""

from __future__ import annotations

from django.db.models import QuerySet

from memhq.models import ApiKey


def api_key_list(*, project_name: str | None = None) -> QuerySet[ApiKey]:
    """Every key (or one project's), oldest first, with its project; secrets are never stored."""
    keys = ApiKey.objects.select_related("project").order_by("created_at", "pk")
    return keys.filter(project__name=project_name) if project_name is not None else keys
