"""Who made a change, as recorded on its batch: ``key:<api key prefix>`` for the API."""

from __future__ import annotations

from rest_framework.request import Request

from memhq.services.tenancy import split_key


def actor_of(request: Request) -> str:
    """The prefix of the (already authenticated) API key of the request, never its secret."""
    _, _, token = request.META.get("HTTP_AUTHORIZATION", "").partition(" ")
    parts = split_key(token.strip())
    return f"key:{parts[0]}" if parts else "key:unknown"
