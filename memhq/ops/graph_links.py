"""Short-lived signed links to one user's graph page, for an application to embed (an iframe).

The API (``POST /v1/memhq/graph/links``, project key) issues a URL whose token is the project id, the user
id and an expiry, signed with Django's signing (HMAC over DJANGO_SECRET_KEY, its own salt). The page and its
data endpoint accept nothing but a valid, unexpired token: no key ever reaches the browser. The token is
read-only and names one user of one project; it cannot be widened.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from django.conf import settings
from django.core import signing
from django.utils import timezone

SALT = "memhq.graph-link"


class LinkInvalid(Exception):
    """Tampered, malformed or expired."""


@dataclass(frozen=True)
class GraphLink:
    project_id: uuid.UUID
    user_id: str
    expires_at: datetime


def link_sign(*, project_id: uuid.UUID, user_id: str, ttl_s: int) -> tuple[str, datetime]:
    expires_at = timezone.now() + timedelta(seconds=ttl_s)
    payload = {"p": str(project_id), "u": user_id, "e": int(expires_at.timestamp())}
    return signing.dumps(payload, salt=SALT, compress=True), expires_at


def link_verify(token: str) -> GraphLink:
    try:
        payload = signing.loads(token, salt=SALT, max_age=settings.MEMHQ_GRAPH_LINK_MAX_TTL_S)
        expires_at = datetime.fromtimestamp(int(payload["e"]), tz=UTC)
        link = GraphLink(uuid.UUID(payload["p"]), str(payload["u"]), expires_at)
    except (signing.BadSignature, KeyError, TypeError, ValueError):
        raise LinkInvalid from None
    if link.expires_at <= timezone.now():
        raise LinkInvalid
    return link
