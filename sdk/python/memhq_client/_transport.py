"""What both clients share: the request description, retry policy, answer decoding, configuration."""

from __future__ import annotations

import os
import random
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any

import httpx

from memhq_client.errors import APIError, error_for

DEFAULT_URL = "http://127.0.0.1:8000"
URL_ENV, KEY_ENV = "MEMHQ_URL", "MEMHQ_KEY"
DEFAULT_TIMEOUT_S = 30.0
DEFAULT_MAX_RETRIES = 3
BACKOFF_BASE_S = 0.5
BACKOFF_MAX_S = 8.0
RETRY_AFTER_MAX_S = 60.0
#: Answers that mean "not done, try again": rate limited, temporarily unavailable. Retried for every request.
RETRY_STATUSES = frozenset({429, 503})
#: Methods that may be sent again after a connection broke mid-request (the server may have acted on it).
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "DELETE"})
API = "/v1/memhq"


@dataclass(frozen=True)
class Request:
    method: str
    path: str  # under the base URL ("/v1/memhq/add"), or an absolute URL (a page's ``next``)
    params: dict[str, Any] | None = None
    json: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    #: Whether sending it twice is harmless (GET, DELETE, /add with its Idempotency-Key, thread create).
    repeatable: bool = False

    def retry_after_broken_connection(self) -> bool:
        return self.repeatable or self.method in SAFE_METHODS


def settings(base_url: str | None, api_key: str | None) -> tuple[str, str]:
    """The base URL and key: arguments, else MEMHQ_URL / MEMHQ_KEY, else the `make run` default URL."""
    url = (base_url or os.environ.get(URL_ENV) or DEFAULT_URL).rstrip("/")
    key = api_key or os.environ.get(KEY_ENV) or ""
    if not key:
        raise ValueError(f"no API key: pass api_key= or set {KEY_ENV}")
    return url, key


def new_idempotency_key() -> str:
    return f"memhq-client-{uuid.uuid4()}"


def compact(body: dict[str, Any]) -> dict[str, Any]:
    """A JSON body without its None values (JSON keeps true/false; the API wants JSON booleans there)."""
    return {name: value for name, value in body.items() if value is not None}


def clean(params: dict[str, Any]) -> dict[str, Any]:
    """Query parameters: drop None values; lists become repeated values as httpx sends them; bools as
    true/false."""
    out: dict[str, Any] = {}
    for name, value in params.items():
        if value is None:
            continue
        out[name] = ("true" if value else "false") if isinstance(value, bool) else value
    return out


def backoff_s(attempt: int, response: httpx.Response | None) -> float:
    """Full-jitter exponential backoff, or what the server's Retry-After asks (capped)."""
    if response is not None and (asked := retry_after_s(response)) is not None:
        return min(asked, RETRY_AFTER_MAX_S)
    return random.uniform(0, min(BACKOFF_MAX_S, BACKOFF_BASE_S * 2**attempt))


def retry_after_s(response: httpx.Response) -> float | None:
    value = response.headers.get("retry-after")
    if value is None:
        return None
    try:
        return max(float(value), 0.0)
    except ValueError:
        try:
            return max((parsedate_to_datetime(value) - datetime.now(UTC)).total_seconds(), 0.0)
        except (TypeError, ValueError):
            return None


def should_retry_status(response: httpx.Response, attempt: int, max_retries: int) -> bool:
    return response.status_code in RETRY_STATUSES and attempt < max_retries


def should_retry_error(exc: httpx.TransportError, request: Request, attempt: int, max_retries: int) -> bool:
    """A connection that never opened is always retried; one that broke, only for a repeatable request."""
    if attempt >= max_retries:
        return False
    never_sent = isinstance(exc, httpx.ConnectError | httpx.ConnectTimeout | httpx.PoolTimeout)
    return never_sent or request.retry_after_broken_connection()


def decode(response: httpx.Response) -> Any:
    """The answer's JSON (None for an empty body), or the typed error."""
    try:
        body = response.json() if response.content else None
    except ValueError:
        body = response.text
    if response.status_code >= 400:
        raise error_for(response.status_code, body)
    return body


def headers_for(api_key: str, user_agent: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {api_key}", "User-Agent": user_agent, "Accept": "application/json"}


__all__ = ["APIError", "Request"]
