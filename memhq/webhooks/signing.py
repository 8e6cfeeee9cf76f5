"""Standard Webhooks 1.0 signatures (https://www.standardwebhooks.com/).

``webhook-signature`` is ``v1,<base64 HMAC-SHA256>`` over ``{webhook-id}.{webhook-timestamp}.{body}``, keyed
with the base64-decoded part of the secret after ``whsec_``. Several signatures are space-separated; a
receiver accepts the message when any of them verifies (used while a rotated secret is still valid).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import secrets
from collections.abc import Iterable

SECRET_PREFIX = "whsec_"
SECRET_BYTES = 32  # Standard Webhooks asks for 24 to 64 random bytes
SIGNATURE_VERSION = "v1"


class InvalidSecret(ValueError):
    pass


def secret_generate() -> str:
    return SECRET_PREFIX + base64.b64encode(secrets.token_bytes(SECRET_BYTES)).decode()


def secret_key(secret: str) -> bytes:
    """The HMAC key: the base64-decoded part after ``whsec_``."""
    if not secret.startswith(SECRET_PREFIX):
        raise InvalidSecret(f"a signing secret starts with {SECRET_PREFIX!r}")
    try:
        key = base64.b64decode(secret[len(SECRET_PREFIX) :], validate=True)
    except (binascii.Error, ValueError) as exc:
        raise InvalidSecret("a signing secret is base64 after the prefix") from exc
    if not key:
        raise InvalidSecret("a signing secret may not be empty")
    return key


def sign(*, secret: str, msg_id: str, timestamp: int, body: bytes) -> str:
    """One ``v1,<base64>`` signature."""
    to_sign = f"{msg_id}.{timestamp}.".encode() + body
    digest = hmac.new(secret_key(secret), to_sign, hashlib.sha256).digest()
    return f"{SIGNATURE_VERSION},{base64.b64encode(digest).decode()}"


def signature_header(*, secrets_: Iterable[str], msg_id: str, timestamp: int, body: bytes) -> str:
    """The ``webhook-signature`` value: one signature per secret, space-separated."""
    return " ".join(sign(secret=secret, msg_id=msg_id, timestamp=timestamp, body=body) for secret in secrets_)


def headers(*, secrets_: Iterable[str], msg_id: str, timestamp: int, body: bytes) -> dict[str, str]:
    return {
        "webhook-id": msg_id,
        "webhook-timestamp": str(timestamp),
        "webhook-signature": signature_header(
            secrets_=secrets_, msg_id=msg_id, timestamp=timestamp, body=body
        ),
    }
