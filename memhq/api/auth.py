"""``Authorization: Bearer mhq_<prefix>_<secret>``: the key found by its prefix (one indexed read, kept for
``MEMHQ_KEY_CACHE_S`` in the process: memhq.selectors.tenancy), a constant-time hash comparison."""

from __future__ import annotations

import hmac
from typing import Any

from django.conf import settings
from django.utils import timezone
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework import authentication, exceptions, permissions
from rest_framework.request import Request

from memhq.models import ApiKey, Project
from memhq.selectors.tenancy import FoundKey, api_key_find, api_key_used
from memhq.services.tenancy import hash_key, split_key

BEARER = "bearer"


class ApiKeyAuthentication(authentication.BaseAuthentication):
    def authenticate(self, request: Request) -> tuple[None, Project] | None:
        header = request.META.get("HTTP_AUTHORIZATION", "")
        if not header:
            return None
        scheme, _, token = header.partition(" ")
        token = token.strip()
        parts = split_key(token) if scheme.lower() == BEARER else None
        if parts is None:
            raise exceptions.AuthenticationFailed(
                "Malformed Authorization header: expected 'Bearer <api key>'."
            )
        found = api_key_find(parts[0])
        if found is None or not hmac.compare_digest(found.secret_hash, hash_key(token)):
            raise exceptions.AuthenticationFailed("Unknown API key.")
        if found.revoked_at is not None:
            raise exceptions.AuthenticationFailed("This API key has been revoked.")
        _touch(found)
        return None, found.project

    def authenticate_header(self, request: Request) -> str:
        return 'Bearer realm="memhq"'


def _touch(found: FoundKey) -> None:
    """Record use at most once per MEMHQ_KEY_TOUCH_INTERVAL so authentication stays a read."""
    now = timezone.now()
    stale_before = now - settings.MEMHQ_KEY_TOUCH_INTERVAL
    if found.last_used_at is None or found.last_used_at < stale_before:
        ApiKey.objects.filter(pk=found.key_id).update(last_used_at=now)
        api_key_used(found, now)


class HasProject(permissions.BasePermission):
    def has_permission(self, request: Request, view: Any) -> bool:
        return isinstance(request.auth, Project)


def project_of(request: Request) -> Project:
    project = request.auth
    if not isinstance(project, Project):  # guarded by HasProject; kept for the type checker
        raise exceptions.NotAuthenticated()
    return project


class ApiKeyAuthenticationScheme(OpenApiAuthenticationExtension):
    """Tells drf-spectacular how the API authenticates, so the schema and Swagger UI show it."""

    target_class = "memhq.api.auth.ApiKeyAuthentication"
    name = "ApiKey"

    def get_security_definition(self, auto_schema: Any) -> dict[str, str]:
        return {
            "type": "http",
            "scheme": "bearer",
            "description": "A project API key: mhq_<prefix>_<secret>.",
        }
