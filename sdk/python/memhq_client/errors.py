"""Errors raised by the client: one class per kind of failure, carrying the API's error body."""

from __future__ import annotations

from typing import Any


class MemHQError(Exception):
    """Base class of everything the client raises."""


class MemHQConnectionError(MemHQError):
    """The server could not be reached (or the connection broke), after the retries."""


class APIError(MemHQError):
    """The server answered with an error status. ``fields`` holds the per-field errors of a 400."""

    def __init__(
        self,
        status_code: int,
        code: str,
        message: str,
        fields: dict[str, list[str]] | None = None,
        body: Any = None,
    ) -> None:
        detail = f" {fields}" if fields else ""
        super().__init__(f"HTTP {status_code} {code}: {message}{detail}")
        self.status_code = status_code
        self.code = code
        self.message = message
        self.fields = fields or {}
        self.body = body


class ValidationError(APIError):
    """400: the request was invalid; see ``fields``."""


class AuthenticationError(APIError):
    """401: the API key is missing, unknown or revoked."""


class NotFoundError(APIError):
    """404: no such id in this project (another project's ids answer the same)."""


class ConflictError(APIError):
    """409: an Idempotency-Key reused with another body, a superseded memory edited, a revert conflict."""


class RateLimitError(APIError):
    """429: over the project's rate limit (retried automatically first)."""


class ServerError(APIError):
    """5xx (503 is retried automatically first)."""


_BY_STATUS: dict[int, type[APIError]] = {
    400: ValidationError,
    401: AuthenticationError,
    404: NotFoundError,
    409: ConflictError,
    429: RateLimitError,
}


def error_for(status_code: int, body: Any) -> APIError:
    """The exception for an error answer, from the API's one error shape when the body has it."""
    error = body.get("error") if isinstance(body, dict) else None
    if isinstance(error, dict):
        code = str(error.get("code", "error"))
        message = str(error.get("message", ""))
        fields = error.get("fields") if isinstance(error.get("fields"), dict) else None
    else:
        code, message, fields = "error", str(body)[:500], None
    cls = _BY_STATUS.get(status_code, ServerError if status_code >= 500 else APIError)
    return cls(status_code, code, message, fields, body)
