"""Check a webhook delivery's signature (Standard Webhooks 1.0, as MemHQ signs them).

from memhq_client import verify_webhook, WebhookVerificationError
event = verify_webhook(secret, body, headers)   # the parsed JSON envelope, or raises
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time
from collections.abc import Mapping
from typing import Any

from memhq_client.errors import MemHQError

SECRET_PREFIX = "whsec_"
#: Deliveries whose timestamp is further than this from now are refused (replay protection).
TOLERANCE_S = 5 * 60


class WebhookVerificationError(MemHQError):
    """The delivery is not signed with this secret, is too old or too new, or lacks its headers."""


def _key(secret: str) -> bytes:
    return base64.b64decode(secret.removeprefix(SECRET_PREFIX))


def sign(secret: str, message_id: str, timestamp: int, body: bytes) -> str:
    """The ``v1,<base64>`` signature of a delivery (what the server sends in ``webhook-signature``)."""
    signed = f"{message_id}.{timestamp}.".encode() + body
    digest = hmac.new(_key(secret), signed, hashlib.sha256).digest()
    return f"v1,{base64.b64encode(digest).decode()}"


def verify_webhook(
    secret: str, body: bytes, headers: Mapping[str, str], *, now: float | None = None
) -> dict[str, Any]:
    """The delivery's JSON envelope if one of its signatures matches ``secret``; else raise.

    ``headers`` may use any capitalisation. During a secret rotation deliveries carry two signatures, and
    either the old or the new secret verifies them. Deduplicate on ``headers["webhook-id"]`` yourself:
    delivery is at-least-once.
    """
    lowered = {name.lower(): value for name, value in headers.items()}
    try:
        message_id = lowered["webhook-id"]
        timestamp = int(lowered["webhook-timestamp"])
        signatures = lowered["webhook-signature"].split()
    except (KeyError, ValueError) as exc:
        raise WebhookVerificationError(f"missing or malformed webhook header: {exc}") from None
    current = time.time() if now is None else now
    if abs(current - timestamp) > TOLERANCE_S:
        raise WebhookVerificationError("timestamp too far from now")
    expected = sign(secret, message_id, timestamp, body)
    if not any(hmac.compare_digest(expected, candidate) for candidate in signatures):
        raise WebhookVerificationError("no signature matches")
    try:
        return dict(json.loads(body))
    except ValueError as exc:
        raise WebhookVerificationError(f"body is not JSON: {exc}") from None
