"""Writes for projects and API keys."""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass

from django.db import transaction
from django.utils import timezone

from memhq.models import ApiKey, Project
from memhq.selectors.tenancy import api_key_forget

KEY_PREFIX_BYTES = 6  # 12 hex chars: unique lookup handle, not a secret
KEY_SECRET_BYTES = 32
KEY_SCHEME = "mhq"


@dataclass(frozen=True)
class IssuedKey:
    api_key: ApiKey
    plaintext: str  # shown once, never stored


def hash_key(plaintext: str) -> str:
    return hashlib.sha256(plaintext.encode()).hexdigest()


def split_key(plaintext: str) -> tuple[str, str] | None:
    """``mhq_<prefix>_<secret>`` → (prefix, secret), or None when it is not shaped like a key."""
    parts = plaintext.split("_", 2)
    if len(parts) != 3 or parts[0] != KEY_SCHEME or not parts[1] or not parts[2]:
        return None
    return parts[1], parts[2]


@transaction.atomic
def api_key_create(*, project: Project, name: str = "") -> IssuedKey:
    prefix = secrets.token_hex(KEY_PREFIX_BYTES)
    plaintext = f"{KEY_SCHEME}_{prefix}_{secrets.token_urlsafe(KEY_SECRET_BYTES)}"
    api_key = ApiKey.objects.create(
        project=project, name=name, prefix=prefix, secret_hash=hash_key(plaintext)
    )
    return IssuedKey(api_key=api_key, plaintext=plaintext)


def api_key_revoke(*, prefix: str) -> ApiKey:
    """Refused at once by this process, by the others within ``MEMHQ_KEY_CACHE_S``."""
    api_key = ApiKey.objects.get(prefix=prefix)
    if api_key.revoked_at is None:
        api_key.revoked_at = timezone.now()
        api_key.save(update_fields=["revoked_at"])
    api_key_forget(prefix)
    return api_key


@transaction.atomic
def project_create(*, name: str, key_name: str = "default") -> tuple[Project, IssuedKey]:
    project = Project.objects.create(name=name)
    return project, api_key_create(project=project, name=key_name)
