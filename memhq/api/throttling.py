"""Per-project request rate limit (``MEMHQ_RATE_LIMIT``, e.g. ``100/s``); off when the setting is empty."""

from __future__ import annotations

from typing import Any

from rest_framework.request import Request
from rest_framework.throttling import SimpleRateThrottle


class ProjectRateThrottle(SimpleRateThrottle):
    scope = "project"

    def allow_request(self, request: Request, view: Any) -> bool:
        if self.rate is None:
            return True
        return super().allow_request(request, view)

    def get_cache_key(self, request: Request, view: Any) -> str | None:
        project = getattr(request, "auth", None)
        if project is None:
            return None
        return self.cache_format % {"scope": self.scope, "ident": str(project.pk)}
